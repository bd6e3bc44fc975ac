//! `locker gc`.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::Args;

use super::confirm::{self, Consent};
use super::{CmdResult, CommandCtx};
use crate::ops::admin::gc::{self as op, GcOutcome, Retention};
use crate::output::{rfc3339, Render};

/// Remove what the retention policy allows: old pads' payloads, abandoned work, unreferenced blobs
///
/// With `--pads-older-than AGE`, pads sealed (or expired) at least AGE ago lose their blocks'
/// payloads; their hashes, lengths, heads, tickets and journal entries stay, so `locker verify`
/// still checks their chains and reports them as pruned, and `locker pad read` answers
/// `pruned` (exit 7). With `--abandoned-older-than AGE`, leases abandoned (expired without
/// being completed or released) at least AGE ago lose their heartbeat details, and the plans
/// and steps recorded under them lose their steps, planned and executed text; fencing tokens,
/// versions, step names and times stay, the rows show `pruned_at`, and `locker verify` checks
/// them against the journal, which records those texts only by digest. With `--blobs`, blobs
/// that no artifact version names and stray blob files left by killed processes are removed.
///
/// Every run (except `--dry-run`) is one `repo.gc` journal entry listing what went, and
/// checkpoints the database's write-ahead log afterwards. One run removes at most 1000 pads and
/// 1000 blobs; `more: true` says to run it again. AGE is a number with a unit: `90s`, `45m`,
/// `12h`, `30d`, `2w`. Only the operator can run gc.
///
/// On a terminal, gc first says what it would remove and asks (the default is no: exit 1,
/// nothing changed); elsewhere `--yes` is required (exit 2 without it). `--dry-run` never asks.
#[derive(Debug, Args)]
pub struct GcArgs {
    /// Show what would be removed, and change nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Remove without asking (required when stdin or stderr is not a terminal)
    #[arg(short, long)]
    pub yes: bool,
    /// Prune the payloads of pads sealed or expired at least AGE ago
    #[arg(long, value_name = "AGE", value_parser = op::parse_age)]
    pub pads_older_than: Option<i64>,
    /// Remove unreferenced blobs and stray blob files
    #[arg(long)]
    pub blobs: bool,
    /// Prune the text of leases abandoned at least AGE ago, and of their plans and steps
    #[arg(long, value_name = "AGE", value_parser = op::parse_age)]
    pub abandoned_older_than: Option<i64>,
}

pub fn run(ctx: &mut CommandCtx, a: &GcArgs) -> CmdResult {
    let policy = Retention {
        pads_older_than: a.pads_older_than,
        blobs: a.blobs,
        abandoned_older_than: a.abandoned_older_than,
        dry_run: a.dry_run,
    };
    if !a.dry_run {
        confirm::operator_only(ctx, "run gc")?;
        op::check_policy(&policy)?;
        match confirm::consent(a.yes) {
            Consent::Given => {}
            Consent::Missing => return Err(confirm::missing(ctx).into()),
            Consent::Ask => {
                let progress = ctx.printer.progress();
                let preview = Retention { dry_run: true, ..policy };
                let preview = op::gc(&mut ctx.local()?.ctx()?, &preview, &*progress)?;
                drop(progress);
                confirm::ask(ctx, &what_goes(&preview))?;
            }
        }
    }
    let progress = ctx.printer.progress();
    let out = op::gc(&mut ctx.local()?.ctx()?, &policy, &*progress)?;
    drop(progress);
    ctx.printer.emit(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// What a run will remove, from its dry run, for the question.
fn what_goes(p: &GcOutcome) -> String {
    format!(
        "This gc removes {}{}, and journals it as one repo.gc entry. `--dry-run` lists them.",
        totals(p),
        if p.more { " (more remains for another run)" } else { "" },
    )
}

/// The counts of a run, as the question and the summary line both say them.
fn totals(p: &GcOutcome) -> String {
    format!(
        "{} pads ({} payload bytes), {} abandoned leases ({} bytes of text), {} blobs and {} \
         stray files ({} bytes)",
        p.pads.len(),
        p.payload_bytes,
        p.leases.len(),
        p.work_bytes,
        p.blobs.len(),
        p.stray_files.len(),
        p.blob_bytes,
    )
}

impl Render for GcOutcome {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        let verb = if self.dry_run { "would prune" } else { "pruned" };
        for p in &self.pads {
            writeln!(
                w,
                "{verb} pad {} ({}, {} since {}): {} blocks, {} payload bytes",
                p.pad_id,
                p.scope,
                p.reason,
                rfc3339(p.since),
                p.blocks,
                p.bytes
            )?;
        }
        for l in &self.leases {
            writeln!(
                w,
                "{verb} lease {} of work item {} ({}, fence {}, abandoned since {}): {} plans, \
                 {} steps, {} bytes of text",
                l.lease_id,
                l.work,
                l.scope,
                l.fence,
                rfc3339(l.abandoned_at),
                l.plans,
                l.steps,
                l.bytes
            )?;
        }
        let verb = if self.dry_run { "would remove" } else { "removed" };
        for b in &self.blobs {
            writeln!(
                w,
                "{verb} unreferenced blob {} ({}, {} bytes)",
                b.sha256, b.location, b.size
            )?;
        }
        for f in &self.stray_files {
            writeln!(w, "{verb} stray file {} ({} bytes)", f.location, f.bytes)?;
        }
        writeln!(
            w,
            "{}: {}{}",
            if self.dry_run { "dry run, nothing changed" } else { "gc" },
            totals(self),
            if self.more { "; more remains: run gc again" } else { "" }
        )?;
        if self.current_plans_kept > 0 {
            writeln!(
                w,
                "kept {} abandoned lease(s) whose plan is still their work item's current plan",
                self.current_plans_kept
            )?;
        }
        if let Some(seq) = self.journal_seq {
            writeln!(w, "journaled as entry {seq} (repo.gc)")?;
        }
        Ok(())
    }
}
