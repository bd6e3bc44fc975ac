//! `locker log`.

use std::process::ExitCode;

use clap::Args;

use super::{CmdResult, CommandCtx};
use crate::ops::log::journal::LogEntry;
use crate::output::rfc3339;
use crate::store::JournalQuery;

/// Show the journal, newest first, like `git log`
///
/// Every change to the repository is one entry, hash-chained to the one before it. With
/// `--json`, each entry is one JSON object per line (JSON Lines).
#[derive(Debug, Args)]
pub struct LogArgs {
    /// Only entries of this kind (`pad.append`), or of this family when it ends with `.`
    /// (`pad.`)
    #[arg(long, value_name = "KIND")]
    pub kind: Option<String>,
    /// Only entries about this subject (`pad:<id>`, `repo`)
    #[arg(long, value_name = "SUBJECT")]
    pub subject: Option<String>,
    /// Only entries by this actor (`operator`, or an agent's name)
    #[arg(long, value_name = "NAME")]
    pub actor: Option<String>,
    /// Only entries in this scope
    #[arg(long, value_name = "SCOPE")]
    pub scope: Option<String>,
    /// Show at most N entries (1–10000)
    #[arg(short = 'n', long = "limit", default_value_t = 50, value_name = "N")]
    pub limit: u64,
    /// Only entries after sequence number SEQ
    #[arg(long, value_name = "SEQ")]
    pub after: Option<u64>,
    /// Only entries before sequence number SEQ
    #[arg(long, value_name = "SEQ")]
    pub before: Option<u64>,
    /// Oldest first
    #[arg(long)]
    pub reverse: bool,
}

pub fn run(ctx: &mut CommandCtx, a: &LogArgs) -> CmdResult {
    let q = JournalQuery {
        kind: a.kind.clone(),
        subject: a.subject.clone(),
        actor: a.actor.clone(),
        scope: a.scope.clone(),
        after: a.after,
        before: a.before,
        ascending: a.reverse,
        limit: a.limit,
    };
    let page = ctx.locker()?.journal(&q)?;
    if ctx.printer.is_json() {
        for e in &page.entries {
            ctx.printer.json_line(e)?;
        }
    } else {
        ctx.printer.with_stdout(|w| {
            for e in &page.entries {
                human(w, e)?;
            }
            Ok(())
        })?;
    }
    Ok(ExitCode::SUCCESS)
}

fn human(w: &mut dyn std::io::Write, e: &LogEntry) -> std::io::Result<()> {
    // A signed append, publish or step names its signer (the signature itself is in --json).
    let signed = e.body.get("signed").and_then(|s| s.get("signer")).and_then(|s| s.as_str());
    writeln!(
        w,
        "{:>6}  {}  {:<18} {:<12} {}  {}{}",
        e.seq,
        rfc3339(e.time),
        e.kind,
        e.actor,
        e.subject,
        &e.hash.to_hex()[..12],
        signed.map(|s| format!("  signed by {s}")).unwrap_or_default()
    )
}
