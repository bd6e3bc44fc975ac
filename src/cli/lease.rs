//! `locker lease …`.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{Args, Subcommand};

use super::{CmdResult, CommandCtx};
use crate::api::{AcquireLease, CompleteLease, Heartbeat, LeaseRef, ListLeases};
use crate::domain::work::{LeaseState, DEFAULT_LEASE_TTL};
use crate::ops::work::history::History;
use crate::ops::work::lease::{
    Acquired, Completed, LeaseList, LeaseView, Reaped, Released, WorkStatus,
};
use crate::output::{rfc3339, Render};

/// Lease work items: exclusive, expiring, fenced locks with heartbeats and a reaper
///
/// One holder per work item at a time. Every new lease gets a fencing token one greater than
/// the last; an expired lease is turned into `abandoned` by the next access to its work item,
/// and its holder's late heartbeats, plans, steps and completion are refused.
#[derive(Debug, Subcommand)]
pub enum LeaseCommand {
    Acquire(AcquireArgs),
    Heartbeat(HeartbeatArgs),
    Complete(CompleteArgs),
    Release(ReleaseArgs),
    Show(ShowArgs),
    List(ListArgs),
    Reap(ReapArgs),
    History(HistoryArgs),
}

pub fn run(ctx: &mut CommandCtx, cmd: LeaseCommand) -> CmdResult {
    match cmd {
        LeaseCommand::Acquire(a) => acquire(ctx, &a),
        LeaseCommand::Heartbeat(a) => heartbeat(ctx, &a),
        LeaseCommand::Complete(a) => complete(ctx, &a),
        LeaseCommand::Release(a) => release(ctx, &a),
        LeaseCommand::Show(a) => show(ctx, &a),
        LeaseCommand::List(a) => list(ctx, &a),
        LeaseCommand::Reap(a) => reap(ctx, &a),
        LeaseCommand::History(a) => history(ctx, &a),
    }
}

fn render_lease(w: &mut dyn Write, l: &LeaseView) -> io::Result<()> {
    writeln!(w, "work:        {}", l.work)?;
    writeln!(w, "lease_id:    {}", l.lease_id)?;
    writeln!(w, "fence:       {}", l.fence)?;
    writeln!(w, "holder:      {}", l.holder)?;
    writeln!(w, "state:       {}", l.state.as_str())?;
    writeln!(w, "acquired_at: {}", rfc3339(l.acquired_at))?;
    if l.state == LeaseState::Active {
        writeln!(w, "expires_at:  {} (ttl {}s)", rfc3339(l.expires_at), l.ttl)?;
    }
    if let Some(t) = l.last_heartbeat_at {
        writeln!(w, "heartbeat:   {} (#{})", rfc3339(t), l.heartbeats)?;
        if let Some(d) = &l.heartbeat_details {
            writeln!(w, "details:     {d}")?;
        }
    }
    if let Some(t) = l.ended_at {
        writeln!(w, "ended_at:    {}", rfc3339(t))?;
    }
    if let Some(r) = &l.result {
        writeln!(w, "result:      {r}")?;
    }
    Ok(())
}

/// Acquire an exclusive lease on a work item and print its id
///
/// The holder is the acting agent, or for the operator the name given with `--holder`.
/// Acquiring a work item you already hold returns your lease unchanged; one held by another
/// holder fails with exit 4 (`lease_held`, naming the holder and the expiry). A completed work
/// item is only leased again with `--reopen`.
#[derive(Debug, Args)]
pub struct AcquireArgs {
    /// The work item (1–256 bytes, no control characters)
    #[arg(add = super::complete::work_items())]
    pub work: String,
    /// How long until the lease expires unless heartbeaten, from 1s to 30d (`90s`, `45m`,
    /// `12h`, `30d`, or plain seconds)
    #[arg(long, default_value_t = DEFAULT_LEASE_TTL, allow_negative_numbers = true, value_name = "DURATION", value_parser = crate::domain::time::parse_duration)]
    pub ttl: i64,
    /// Who holds the lease (operator only; default: `operator`)
    #[arg(long, value_name = "NAME")]
    pub holder: Option<String>,
    /// Lease the work item even if it was completed
    #[arg(long)]
    pub reopen: bool,
}

fn acquire(ctx: &mut CommandCtx, a: &AcquireArgs) -> CmdResult {
    let out = ctx.locker()?.lease_acquire(AcquireLease {
        work: &a.work,
        ttl: a.ttl,
        holder: a.holder.as_deref(),
        reopen: a.reopen,
    })?;
    ctx.printer.emit(&out)?;
    let l = &out.lease;
    let how = if out.reacquired { "already held" } else { "leased" };
    ctx.printer.status(format_args!(
        "{} {how} by {} with fencing token {} until {}",
        l.work,
        l.holder,
        l.fence,
        rfc3339(l.expires_at)
    ));
    Ok(ExitCode::SUCCESS)
}

/// Only the lease id on stdout (details go to stderr), so `id=$(locker lease acquire …)`
/// works.
impl Render for Acquired {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        writeln!(w, "{}", self.lease.lease_id)
    }
}

/// Extend a lease by its TTL from now, optionally with progress details
///
/// Fails with exit 7 (`gone`) when the lease has expired (it is then abandoned), and exit 4
/// (`stale_lease`) when it was completed or released.
#[derive(Debug, Args)]
pub struct HeartbeatArgs {
    /// The work item
    #[arg(add = super::complete::work_items())]
    pub work: String,
    /// The lease's id (printed by `lease acquire`)
    #[arg(long = "lease", value_name = "ID")]
    pub lease: String,
    /// What the holder is doing, kept with the lease until the next heartbeat
    #[arg(long, value_name = "TEXT")]
    pub details: Option<String>,
}

fn heartbeat(ctx: &mut CommandCtx, a: &HeartbeatArgs) -> CmdResult {
    let out = ctx.locker()?.lease_heartbeat(Heartbeat {
        work: &a.work,
        lease: &a.lease,
        details: a.details.as_deref(),
    })?;
    ctx.printer.emit(&out)?;
    Ok(ExitCode::SUCCESS)
}

impl Render for LeaseView {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        render_lease(w, self)
    }
}

/// Complete a lease, keeping a result, and print the plan diff
///
/// The work item is then done: it is leased again only with `lease acquire --reopen`.
/// Completing again with the same result changes nothing (`replayed`).
#[derive(Debug, Args)]
pub struct CompleteArgs {
    /// The work item
    #[arg(add = super::complete::work_items())]
    pub work: String,
    /// The lease's id
    #[arg(long = "lease", value_name = "ID")]
    pub lease: String,
    /// The outcome to keep with the lease
    #[arg(long, value_name = "TEXT")]
    pub result: Option<String>,
}

fn complete(ctx: &mut CommandCtx, a: &CompleteArgs) -> CmdResult {
    let out = ctx.locker()?.lease_complete(CompleteLease {
        work: &a.work,
        lease: &a.lease,
        result: a.result.as_deref(),
    })?;
    ctx.printer.emit(&out)?;
    Ok(ExitCode::SUCCESS)
}

impl Render for Completed {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        render_lease(w, &self.lease)?;
        super::plan::render_diff(w, &self.diff)
    }
}

/// Release a lease without completing it, so the work item can be acquired again
#[derive(Debug, Args)]
pub struct ReleaseArgs {
    /// The work item
    #[arg(add = super::complete::work_items())]
    pub work: String,
    /// The lease's id
    #[arg(long = "lease", value_name = "ID")]
    pub lease: String,
}

fn release(ctx: &mut CommandCtx, a: &ReleaseArgs) -> CmdResult {
    let out = ctx.locker()?.lease_release(LeaseRef { work: &a.work, lease: &a.lease })?;
    ctx.printer.emit(&out)?;
    Ok(ExitCode::SUCCESS)
}

impl Render for Released {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        render_lease(w, &self.lease)
    }
}

/// Show a work item's newest lease: state, holder, fencing token, attempts, last heartbeat
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The work item
    #[arg(add = super::complete::work_items())]
    pub work: String,
}

fn show(ctx: &mut CommandCtx, a: &ShowArgs) -> CmdResult {
    let out = ctx.locker()?.lease_show(&a.work)?;
    ctx.printer.emit(&out)?;
    Ok(ExitCode::SUCCESS)
}

impl Render for WorkStatus {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        render_lease(w, &self.lease)?;
        writeln!(w, "attempts:    {}", self.attempts)?;
        match self.plan_version {
            Some(v) => writeln!(w, "plan:        v{v}"),
            None => writeln!(w, "plan:        none"),
        }
    }
}

/// List leases (expired ones are reaped first), optionally only those in one state
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Only leases in this state
    #[arg(long, value_parser = ["active", "completed", "released", "abandoned"])]
    pub state: Option<String>,
    /// Most leases to list (1–10000)
    #[arg(long, default_value_t = 1000, value_name = "N")]
    pub limit: u64,
}

fn list(ctx: &mut CommandCtx, a: &ListArgs) -> CmdResult {
    let state = a.state.as_deref().and_then(LeaseState::parse);
    let out = ctx.locker()?.lease_list(ListLeases { state, limit: a.limit })?;
    ctx.printer.emit(&out)?;
    Ok(ExitCode::SUCCESS)
}

fn render_row(w: &mut dyn Write, l: &LeaseView) -> io::Result<()> {
    writeln!(
        w,
        "{}  fence {:<4} {:<9}  {}  {}",
        l.lease_id,
        l.fence,
        l.state.as_str(),
        l.holder,
        l.work
    )
}

impl Render for LeaseList {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        for l in &self.leases {
            render_row(w, l)?;
        }
        Ok(())
    }
}

/// Abandon every expired lease in the repository now
///
/// Every access to a work item already does this for its own lease; `reap` sweeps them all.
#[derive(Debug, Args)]
pub struct ReapArgs {}

fn reap(ctx: &mut CommandCtx, _a: &ReapArgs) -> CmdResult {
    let out = ctx.locker()?.lease_reap()?;
    ctx.printer.emit(&out)?;
    ctx.printer.status(format_args!("Abandoned {} expired lease(s)", out.abandoned.len()));
    Ok(ExitCode::SUCCESS)
}

impl Render for Reaped {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        for l in &self.abandoned {
            render_row(w, l)?;
        }
        Ok(())
    }
}

/// Show every lease, plan, step and transition of a work item, with an integrity verdict
///
/// Each journal entry of the work item is checked against its hash and its neighbours in the
/// journal chain, replayed, and compared with the stored leases, plans and steps. Exits 0 when
/// everything is intact and 1 when anything is broken, naming the first broken entry.
#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// The work item
    #[arg(add = super::complete::work_items())]
    pub work: String,
}

fn history(ctx: &mut CommandCtx, a: &HistoryArgs) -> CmdResult {
    let out = ctx.locker()?.work_history(&a.work)?;
    ctx.printer.emit(&out)?;
    Ok(if out.ok { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn summary(kind: &str, b: &serde_json::Value) -> String {
    let s = |k: &str| {
        b.get(k).map_or_else(String::new, |v| v.as_str().map_or(v.to_string(), str::to_owned))
    };
    match kind {
        "lease.acquire" => format!("fence {} to {} (ttl {}s)", s("fence"), s("holder"), s("ttl")),
        "lease.heartbeat" => format!("fence {} until {}", s("fence"), s("expires_at")),
        "lease.abandon" => format!("fence {} of {} expired", s("fence"), s("holder")),
        // Older entries hold the steps; newer ones their count and digest.
        "manifest.commit" => match b.get("steps") {
            Some(steps) => format!("v{} {steps}", s("version")),
            None => format!("v{} ({} steps)", s("version"), s("steps_count")),
        },
        "step.record" => format!("{} [{}] under fence {}", s("step"), s("gate"), s("fence")),
        _ => format!("fence {}", s("fence")),
    }
}

impl Render for History {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        for e in &self.entries {
            writeln!(
                w,
                "{:>6}  {}  {:<16} {:<10} {}{}",
                e.seq,
                rfc3339(e.time),
                e.kind,
                e.actor,
                summary(&e.kind, &e.body),
                if e.ok { "" } else { "  BROKEN" }
            )?;
        }
        for p in &self.problems {
            match p.seq {
                Some(s) => writeln!(w, "problem at entry {s}: {}", p.detail)?,
                None => writeln!(w, "problem: {}", p.detail)?,
            }
        }
        writeln!(w, "integrity: {}", self.integrity)
    }
}
