//! `locker log`.

use std::process::ExitCode;

use clap::Args;

use super::{CmdResult, CommandCtx};
use crate::domain::time::TimeArg;
use crate::ops::log::journal::LogEntry;
use crate::output::rfc3339;
use crate::store::JournalQuery;

/// Show the journal, newest first, like `git log`
///
/// Every change to the repository is one entry, hash-chained to the one before it. With
/// `--json`, each entry is one JSON object per line (JSON Lines).
///
/// One call shows at most 10000 entries; page through a longer journal newest first with
/// `--before SEQ` (the oldest seq shown), or oldest first with `--reverse --after SEQ` (the
/// newest seq shown). `--follow` shows the newest entries, oldest first, then each new entry
/// as it is written, like `tail -f`, until interrupted.
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
    /// Only entries written at or after TIME: a duration ago (`2h`, `30d`), an RFC 3339
    /// time or date (`2026-11-29T08:48:13Z`, `2026-11-29`), or Unix seconds (`@1796175870`)
    #[arg(long, value_name = "TIME", value_parser = TimeArg::parse)]
    pub since: Option<TimeArg>,
    /// Only entries written before TIME (as --since)
    #[arg(long, value_name = "TIME", value_parser = TimeArg::parse)]
    pub until: Option<TimeArg>,
    /// Oldest first
    #[arg(long)]
    pub reverse: bool,
    /// Keep running: after the newest entries (oldest first), show each new one as it is
    /// written, until interrupted
    #[arg(short = 'f', long, conflicts_with_all = ["before", "until", "reverse"])]
    pub follow: bool,
}

/// How often `--follow` asks for new entries.
const FOLLOW_POLL: std::time::Duration = std::time::Duration::from_millis(250);

pub fn run(ctx: &mut CommandCtx, a: &LogArgs) -> CmdResult {
    let now = ctx.now();
    let q = JournalQuery {
        since: a.since.map(|t| t.at(now)),
        until: a.until.map(|t| t.at(now)),
        kind: a.kind.clone(),
        subject: a.subject.clone(),
        actor: a.actor.clone(),
        scope: a.scope.clone(),
        after: a.after,
        before: a.before,
        ascending: a.reverse,
        limit: a.limit,
        skip_appends: false,
    };
    if a.follow {
        return follow(ctx, q);
    }
    let page = ctx.locker()?.journal(&q)?;
    print(ctx, &page.entries)?;
    Ok(ExitCode::SUCCESS)
}

fn print(ctx: &CommandCtx, entries: &[LogEntry]) -> std::io::Result<()> {
    if ctx.printer.is_json() {
        for e in entries {
            ctx.printer.json_line(e)?;
        }
        Ok(())
    } else {
        ctx.printer.with_stdout(|w| entries.iter().try_for_each(|e| human(w, e)))
    }
}

/// `log --follow`: the newest `q.limit` entries oldest first, then every new entry matching
/// `q` as it is written (polling), until interrupted or the reader goes away.
fn follow(ctx: &mut CommandCtx, q: JournalQuery) -> CmdResult {
    let mut page = ctx.locker()?.journal(&JournalQuery { ascending: false, ..q.clone() })?;
    page.entries.reverse();
    print(ctx, &page.entries)?;
    // Where to go on from: the newest entry shown, else the journal's head (entries not
    // matching the filters are not read again on every poll).
    let mut last = match page.entries.last() {
        Some(e) => e.seq,
        None => {
            let head = JournalQuery { limit: 1, ..JournalQuery::default() };
            ctx.locker()?.journal(&head)?.entries.first().map_or(0, |e| e.seq)
        }
    };
    loop {
        let next = JournalQuery { after: Some(last), ascending: true, limit: 1000, ..q.clone() };
        let page = ctx.locker()?.journal(&next)?;
        match page.entries.last() {
            Some(e) => {
                last = e.seq;
                print(ctx, &page.entries)?;
            }
            None => std::thread::sleep(FOLLOW_POLL),
        }
    }
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
