//! `locker manifest …`: a work item's plan and its diff.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};

use super::input::read_payload;
use super::{CmdResult, CommandCtx};
use crate::api::{CommitPlan, ShowPlan};
use crate::domain::work::{self, MAX_PLAN_FILE_BYTES};
use crate::ops::work::plan::{Diff, PlanCommitted, PlanView};
use crate::ops::OpError;
use crate::output::{rfc3339, Render};

/// Commit, show and diff a work item's plan (its manifest of steps)
#[derive(Debug, Subcommand)]
pub enum PlanCommand {
    Commit(CommitArgs),
    Show(ShowArgs),
    Diff(DiffArgs),
}

pub fn run(ctx: &mut CommandCtx, cmd: PlanCommand) -> CmdResult {
    match cmd {
        PlanCommand::Commit(a) => commit(ctx, &a),
        PlanCommand::Show(a) => show(ctx, &a),
        PlanCommand::Diff(a) => diff(ctx, &a),
    }
}

/// Commit a plan of steps under the work item's current lease
///
/// The steps are unique, non-empty names, given as arguments or with `--file` as a JSON array
/// of strings (`-` for stdin). Committing again under the current lease makes a new version;
/// committing the newest version's steps again changes nothing (`replayed`).
#[derive(Debug, Args)]
pub struct CommitArgs {
    /// The work item
    #[arg(add = super::complete::work_items())]
    pub work: String,
    /// The planned steps, in order
    #[arg(value_name = "STEP", required_unless_present = "file", conflicts_with = "file")]
    pub steps: Vec<String>,
    /// Read the steps from FILE, a JSON array of strings (`-` for stdin)
    #[arg(long, value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// The current lease's id
    #[arg(long = "lease", value_name = "ID")]
    pub lease: String,
}

fn commit(ctx: &mut CommandCtx, a: &CommitArgs) -> CmdResult {
    let steps = match &a.file {
        Some(f) => {
            let bytes = read_payload(Some(f), MAX_PLAN_FILE_BYTES)?;
            if bytes.len() > MAX_PLAN_FILE_BYTES {
                return Err(OpError::too_large(format!(
                    "the plan file exceeds {MAX_PLAN_FILE_BYTES} bytes"
                ))
                .into());
            }
            work::parse_plan_json(&bytes).map_err(|e| OpError::bad_request(e.0))?
        }
        None => a.steps.clone(),
    };
    let out =
        ctx.locker()?.plan_commit(CommitPlan { work: &a.work, lease: &a.lease, steps: &steps })?;
    ctx.printer.emit(&out)?;
    let how = if out.replayed { "was already" } else { "committed as" };
    ctx.printer
        .status(format_args!("Plan of {} {how} version {}", out.plan.work, out.plan.version));
    Ok(ExitCode::SUCCESS)
}

fn render_plan(w: &mut dyn Write, p: &PlanView) -> io::Result<()> {
    writeln!(w, "work:      {}", p.work)?;
    writeln!(w, "version:   {} of {}", p.version, p.versions)?;
    writeln!(w, "lease_id:  {} (fence {})", p.lease_id, p.fence)?;
    writeln!(w, "committed: {}", rfc3339(p.committed_at))?;
    for (i, s) in p.steps.iter().enumerate() {
        writeln!(w, "  {:>3}. {s}", i + 1)?;
    }
    Ok(())
}

impl Render for PlanCommitted {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        render_plan(w, &self.plan)
    }
}

/// Show a work item's newest plan, or one version of it
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The work item
    #[arg(add = super::complete::work_items())]
    pub work: String,
    /// Show this version instead of the newest
    #[arg(long, value_name = "N")]
    pub version: Option<u64>,
}

fn show(ctx: &mut CommandCtx, a: &ShowArgs) -> CmdResult {
    let out = ctx.locker()?.plan_show(ShowPlan { work: &a.work, version: a.version })?;
    ctx.printer.emit(&out)?;
    Ok(ExitCode::SUCCESS)
}

impl Render for PlanView {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        render_plan(w, self)
    }
}

/// Compare the newest plan with the steps logged under the newest lease
///
/// `holes` are planned steps never logged (in plan order), `extras` logged steps that are not
/// planned (sorted). Only the work item's newest lease counts: steps logged under earlier
/// leases are listed as `earlier_lease_steps` and fill no hole. Exits 0 when there are no
/// holes and no extras, 1 when there are (so CI can gate on it).
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The work item
    #[arg(add = super::complete::work_items())]
    pub work: String,
}

fn diff(ctx: &mut CommandCtx, a: &DiffArgs) -> CmdResult {
    let out = ctx.locker()?.plan_diff(&a.work)?;
    ctx.printer.emit(&out)?;
    Ok(if out.clean { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "(none)".into()
    } else {
        items.join(", ")
    }
}

pub(super) fn render_diff(w: &mut dyn Write, d: &Diff) -> io::Result<()> {
    match d.plan_version {
        Some(v) if d.plan_pruned => writeln!(
            w,
            "plan:     v{v}: plan pruned (its steps were removed by gc: nothing to compare)"
        )?,
        Some(v) => writeln!(w, "plan:     v{v}: {}", list(&d.planned))?,
        None => writeln!(w, "plan:     none committed")?,
    }
    writeln!(w, "lease:    {} (fence {})", d.lease_id, d.fence)?;
    writeln!(w, "holes:    {}", list(&d.holes))?;
    writeln!(w, "extras:   {}", list(&d.extras))?;
    if !d.earlier_lease_steps.is_empty() {
        writeln!(
            w,
            "earlier:  {} (logged under earlier leases; not counted)",
            list(&d.earlier_lease_steps)
        )?;
    }
    let verdict = match (d.clean, d.plan_pruned) {
        (true, _) => "clean",
        (false, true) => "NOT CLEAN: plan pruned",
        (false, false) => "DIFFERS",
    };
    writeln!(w, "{verdict}")
}

impl Render for Diff {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        render_diff(w, self)
    }
}
