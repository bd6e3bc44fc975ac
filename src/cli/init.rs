//! `locker init`.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::{CmdResult, CommandCtx};
use crate::ops::admin::init::{init_with, InitOutcome};
use crate::ops::OpError;
use crate::output::Render;

/// Create a locker repository (`.locker/`) in PATH, or report the one already there
#[derive(Debug, Args)]
pub struct InitArgs {
    /// The directory to hold `.locker/` (default: the current directory)
    pub path: Option<PathBuf>,
    #[command(flatten)]
    pub store: StoreArgs,
}

/// Where a repository's store is.
#[derive(Debug, Clone, Args)]
pub struct StoreArgs {
    /// Keep the repository in this PostgreSQL database (`postgres://USER@HOST:PORT/DATABASE`,
    /// no password in it; TLS as libpq spells it: `?sslmode=verify-full&sslrootcert=CA.pem`)
    /// instead of SQLite inside `.locker/`; several servers can share it. A database that
    /// already holds a repository is joined, not changed
    #[arg(long, value_name = "URL")]
    pub store: Option<String>,
    /// The file whose first line is the database password (else `PGPASSWORD` or
    /// `~/.pgpass`); its path, never the password, is kept in `config.json`
    #[arg(long, value_name = "FILE", requires = "store")]
    pub store_password_file: Option<PathBuf>,
}

impl StoreArgs {
    /// The store named, checked; `None` for the default (SQLite).
    pub fn location(&self) -> Result<Option<crate::store::StoreUrl>, OpError> {
        let Some(url) = self.store.as_deref().map(str::trim).filter(|u| !u.is_empty()) else {
            return Ok(None);
        };
        if url.starts_with("sqlite:") {
            return Ok(None);
        }
        crate::store::postgres::parse_url(url).map_err(|e| {
            OpError::usage(e.to_string())
                .hint("--store takes postgres://USER@HOST:PORT/DATABASE; the password comes from PGPASSWORD, ~/.pgpass or --store-password-file.")
        })?;
        let password_file = match &self.store_password_file {
            Some(p) => Some(
                std::path::absolute(p)
                    .map_err(|e| OpError::usage(format!("{}: {e}", p.display())))?,
            ),
            None => None,
        };
        Ok(Some(crate::store::StoreUrl { url: url.to_owned(), password_file }))
    }
}

pub fn run(ctx: &mut CommandCtx, a: &InitArgs) -> CmdResult {
    // A server cannot be initialised from here: refuse rather than create a local repository.
    ctx.local()?;
    let root = match (&a.path, &ctx.global.repo) {
        (Some(p), _) | (None, Some(p)) => p.clone(),
        (None, None) => std::env::current_dir()
            .map_err(|e| OpError::unavailable(format!("cannot read the current directory: {e}")))?,
    };
    let store = a.store.location()?;
    let (out, _repo) = init_with(&root, ctx.clock(), store.as_ref())?;
    ctx.printer.emit_confirmation(&out)?;
    Ok(ExitCode::SUCCESS)
}

impl Render for InitOutcome {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        if self.joined {
            writeln!(
                w,
                "Joined repository {} in {} (store {}); nothing in the database changed",
                self.repository_id,
                self.path.display(),
                self.store
            )
        } else if self.created {
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
