//! `locker init`.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::{CmdResult, Ctx};
use crate::ops::init::{init, InitOutcome};
use crate::ops::OpError;
use crate::output::Render;

/// Create a locker repository (`.locker/`) in PATH, or report the one already there
#[derive(Debug, Args)]
pub struct InitArgs {
    /// The directory to hold `.locker/` (default: the current directory)
    pub path: Option<PathBuf>,
}

pub fn run(ctx: &mut Ctx, a: &InitArgs) -> CmdResult {
    let root = match (&a.path, &ctx.global.repo) {
        (Some(p), _) | (None, Some(p)) => p.clone(),
        (None, None) => std::env::current_dir()
            .map_err(|e| OpError::unavailable(format!("cannot read the current directory: {e}")))?,
    };
    let (out, _repo) = init(&root, ctx.clock())?;
    ctx.printer.emit(&out)?;
    Ok(ExitCode::SUCCESS)
}

impl Render for InitOutcome {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        if self.created {
            writeln!(w, "Initialized an empty locker repository in {}", self.path.display())
        } else {
            writeln!(
                w,
                "A locker repository already exists in {}; nothing changed.",
                self.path.display()
            )
        }
    }
}
