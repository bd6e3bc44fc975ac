//! `locker completions` and the hidden `locker util` (documentation generation).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use clap_complete::Shell;

use super::{CmdResult, CommandCtx};
use crate::ops::OpError;

/// Print a shell completion script for SHELL to stdout
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// bash, zsh, fish, elvish or powershell
    pub shell: Shell,
}

pub fn completions(ctx: &mut CommandCtx, a: &CompletionsArgs) -> CmdResult {
    ctx.printer.raw(&super::docs::completion(a.shell))?;
    Ok(ExitCode::SUCCESS)
}

/// Developer tools
#[derive(Debug, Subcommand)]
pub enum UtilCommand {
    /// Write the man pages and completion scripts into `man/` and `completions/`
    GenerateDocs {
        /// The directory holding `man/` and `completions/`
        #[arg(long, default_value = ".")]
        out_dir: PathBuf,
    },
}

pub fn run(ctx: &mut CommandCtx, cmd: UtilCommand) -> CmdResult {
    match cmd {
        UtilCommand::GenerateDocs { out_dir } => {
            let changed = super::docs::write_all(&out_dir)
                .map_err(|e| OpError::unavailable(format!("cannot write docs: {e}")))?;
            for path in &changed {
                ctx.printer.status(format_args!("updated {}", out_dir.join(path).display()));
            }
            ctx.printer.status(format_args!(
                "{} generated files changed under {}",
                changed.len(),
                out_dir.display()
            ));
            Ok(ExitCode::SUCCESS)
        }
    }
}
