//! `locker step`.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::Args;

use super::{CmdResult, CommandCtx};
use crate::api::RecordStep;
use crate::ops::work::step::{StepInput, StepView};
use crate::output::Render;

/// Log a step of a work item under its current lease: what was planned and executed
///
/// A step is logged once per (work item, lease, step name): the identical record again
/// changes nothing (`replayed`), a different one fails with exit 4 (`step_conflict`). A lease
/// that expired (exit 7) or was completed or released (exit 4) logs nothing.
#[derive(Debug, Args)]
pub struct StepArgs {
    /// The work item
    #[arg(add = super::complete::work_items())]
    pub work: String,
    /// The step's name (1–256 bytes, no control characters)
    pub step: String,
    /// The current lease's id
    #[arg(long = "lease", value_name = "ID")]
    pub lease: String,
    /// What was planned for this step
    #[arg(long, value_name = "TEXT")]
    pub planned: Option<String>,
    /// What was executed
    #[arg(long, value_name = "TEXT")]
    pub executed: Option<String>,
    /// Who resolved the step: agent, human, ci, … (a–z, 0–9, `-`, `_`)
    #[arg(long, default_value = crate::domain::work::DEFAULT_GATE, value_name = "GATE")]
    pub gate: String,
    #[command(flatten)]
    pub sign: super::input::SignArgs,
}

pub fn run(ctx: &mut CommandCtx, a: &StepArgs) -> CmdResult {
    let signing = a.sign.signing()?;
    let input = StepInput {
        step: &a.step,
        planned: a.planned.as_deref(),
        executed: a.executed.as_deref(),
        gate: Some(&a.gate),
        signing: signing.as_ref(),
    };
    let out =
        ctx.locker()?.step_record(RecordStep { work: &a.work, lease: &a.lease, step: input })?;
    ctx.printer.emit(&out)?;
    Ok(ExitCode::SUCCESS)
}

impl Render for StepView {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        let how = if self.replayed { "already logged" } else { "logged" };
        writeln!(w, "{} {how}: {} (gate {}, fence {})", self.work, self.step, self.gate, self.fence)
    }
}
