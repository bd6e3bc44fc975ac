//! `locker store`.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};

use super::{CmdResult, CommandCtx};
use crate::ops::admin::store_copy::{self as op, CopyOutcome};
use crate::ops::OpError;
use crate::output::Render;
use crate::store::StoreUrl;

/// Move the repository between stores (SQLite and PostgreSQL), or check a database first
#[derive(Debug, Subcommand)]
pub enum StoreCommand {
    Copy(CopyArgs),
    Check(CheckArgs),
}

/// Check that a PostgreSQL database can hold a repository, before moving to it
///
/// Runs in a throwaway schema of that database (`locker_check_…`, dropped afterwards whatever
/// happens; the rest of the database is not touched): the schema's migrations and a new
/// repository, a hash chain appended and read back, writers on connections of their own
/// appending to one pad at once (no fork, no `busy`), racers on one compare-and-swap (one
/// winner), a verify of all of it, and the server settings durability depends on (`fsync`,
/// `full_page_writes`, `synchronous_commit`). Needs the right to create a schema. Exits 0 when
/// every check passes (warnings allowed), 1 otherwise; needs no repository.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The database: postgres://USER@HOST:PORT/DATABASE (TLS settings as for `init --store`)
    #[arg(value_name = "URL")]
    pub url: String,
    /// The file whose first line is the database password (else `PGPASSWORD` or `~/.pgpass`)
    #[arg(long, value_name = "FILE")]
    pub password_file: Option<PathBuf>,
}

/// Copy the repository into another store, every chain and hash unchanged, and verify the copy
///
/// `--to postgres://USER@HOST:PORT/DATABASE` copies into an empty PostgreSQL database (the
/// password from `--to-password-file`, `PGPASSWORD` or `~/.pgpass`, never from the URL);
/// `--to DIR` copies into a new SQLite repository in DIR (how a PostgreSQL repository comes
/// back to one machine). The copy is written in one transaction and verified inside it against
/// the source's journal head: one that does not verify is rolled back and nothing is kept. The
/// source is only read, and writers may go on meanwhile (the copy is of one snapshot). The
/// repository keeps its id. Then point hosts at the copy: `locker init --store URL` in a new
/// directory joins the database's repository.
#[derive(Debug, Args)]
pub struct CopyArgs {
    /// The destination: an empty PostgreSQL database's URL, or a new directory
    #[arg(long, value_name = "URL|DIR")]
    pub to: String,
    /// The file whose first line is the destination database's password
    #[arg(long, value_name = "FILE")]
    pub to_password_file: Option<PathBuf>,
}

pub fn run(ctx: &mut CommandCtx, c: StoreCommand) -> CmdResult {
    match c {
        StoreCommand::Copy(a) => copy(ctx, &a),
        StoreCommand::Check(a) => check(ctx, &a),
    }
}

fn check(ctx: &mut CommandCtx, a: &CheckArgs) -> CmdResult {
    let mut url = StoreUrl::new(a.url.trim());
    if !url.is_postgres() {
        return Err(OpError::usage(format!(
            "`locker store check` takes a postgres:// URL, not `{}`",
            crate::store::postgres::redact(&url.url)
        ))
        .into());
    }
    crate::store::postgres::parse_url(&url.url).map_err(|e| OpError::usage(e.to_string()))?;
    url.password_file = a.password_file.clone();
    let clock = ctx.shared_clock();
    let report = crate::ops::admin::store_check::run(&url, clock.as_ref())?;
    ctx.printer.emit(&report)?;
    Ok(if report.ok { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

impl Render for crate::ops::admin::store_check::CheckReport {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        writeln!(w, "database {} (checks in schema {})", self.database, self.schema)?;
        for c in &self.checks {
            let mark = match c.status.as_str() {
                "ok" => "ok",
                "warn" => "WARN",
                _ => "FAIL",
            };
            writeln!(w, "{mark:<6} {:<17}{}", c.name, c.detail)?;
        }
        let failed = self.checks.iter().filter(|c| c.status == "fail").count();
        if self.ok {
            writeln!(w, "this database can hold a locker repository")
        } else {
            writeln!(w, "{failed} check(s) failed: this database cannot hold a repository as it is")
        }
    }
}

fn copy(ctx: &mut CommandCtx, a: &CopyArgs) -> CmdResult {
    let mut to = StoreUrl::new(a.to.trim());
    if to.is_postgres() {
        crate::store::postgres::parse_url(&to.url).map_err(|e| OpError::usage(e.to_string()))?;
        to.password_file = match &a.to_password_file {
            Some(p) => Some(
                std::path::absolute(p)
                    .map_err(|e| OpError::usage(format!("{}: {e}", p.display())))?,
            ),
            None => None,
        };
    } else if a.to_password_file.is_some() {
        return Err(OpError::usage("--to-password-file goes with a postgres:// destination").into());
    }
    let clock = ctx.shared_clock();
    let progress = ctx.printer.progress();
    let out = op::copy(ctx.local()?.repo()?, &to, clock.as_ref(), &*progress)?;
    drop(progress);
    ctx.printer.emit(&out)?;
    Ok(ExitCode::SUCCESS)
}

impl Render for CopyOutcome {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        writeln!(w, "Copied repository {} from {} to {}", self.repository_id, self.from, self.to)?;
        let r = &self.rows;
        writeln!(
            w,
            "  {} journal entries (head {}), {} pads, {} blocks, {} tickets, {} agents, {} blobs",
            self.journal_entries, self.head, r.pads, r.blocks, r.tickets, r.agents, r.blobs
        )?;
        writeln!(
            w,
            "  {} artifact versions, {} receipts, {} leases, {} plans, {} steps, {} payments",
            r.artifact_versions, r.receipts, r.leases, r.plans, r.steps, r.payments
        )?;
        writeln!(w, "verified: every chain and hash is unchanged")?;
        if crate::store::postgres::is_url(&self.to) {
            writeln!(w, "Join it from any host with `locker init --store {}`.", self.to)
        } else {
            writeln!(w, "It is a repository of its own now: `locker -R {} verify`.", self.to)
        }
    }
}
