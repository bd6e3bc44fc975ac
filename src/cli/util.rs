//! `locker completions` and the hidden `locker util` (documentation generation).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use clap_complete::Shell;

use super::{CmdResult, CommandCtx};
use crate::ops::OpError;

/// Print a shell completion script for SHELL to stdout
///
/// The script registers dynamic completion: on every TAB the shell asks `locker` (on the
/// PATH) to complete the words typed so far, so commands and options follow the installed
/// version, and pad ids, work items and artifact keys are read from the repository (found
/// through -R, LOCKER_DIR or the current directory; opened read-only, nothing is written).
/// `COMPLETE=SHELL locker` prints the same script, naming the binary it was run as.
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
    /// Write the man pages, completion scripts and JSON Schemas into `man/`, `completions/` and
    /// `docs/json/`
    GenerateDocs {
        /// The directory holding `man/`, `completions/` and `docs/`
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
