//! Steps: what was planned and executed under a lease, and who resolved it (the gate).
//!
//! A step is idempotent per (work item, lease, step name): the identical record again is a
//! replay (nothing new is stored or journaled); a different record is `step_conflict`. A step
//! needs the work item's current, live lease, so a stalled holder cannot log late steps.

use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::domain::event::work::sha256_of;
use crate::domain::event::StepRecord;
use crate::domain::work;
use crate::ops::log::journal;
use crate::ops::work::access::{bad, check_work, current_lease, write_work};
use crate::ops::{Ctx, ErrorKind, OpError, OpResult};
use crate::store::StepRow;

/// A step record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StepView {
    pub scope: String,
    pub work: String,
    pub lease_id: String,
    pub fence: u64,
    pub step: String,
    pub planned: Option<String>,
    pub executed: Option<String>,
    pub gate: String,
    pub recorded_at: i64,
    /// When `locker gc` removed `planned` and `executed` with the rest of an abandoned lease
    /// (absent until then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pruned_at: Option<i64>,
    /// `true` when this exact record was already stored (nothing changed).
    pub replayed: bool,
}

/// What a caller logs.
#[derive(Debug, Clone, Default)]
pub struct StepInput<'a> {
    pub step: &'a str,
    pub planned: Option<&'a str>,
    pub executed: Option<&'a str>,
    pub gate: Option<&'a str>,
    /// An agent's signature over the record (see [`crate::ops::keys`]); checked only when the step
    /// is stored (a replay stores nothing).
    pub signing: Option<&'a crate::ops::keys::Signing>,
}

/// Logs a step under the work item's current lease.
pub fn record(
    ctx: &mut Ctx<'_>,
    work: &str,
    lease_id: &str,
    input: &StepInput<'_>,
) -> OpResult<StepView> {
    check_work(work)?;
    work::check_step(input.step).map_err(bad)?;
    let gate = input.gate.unwrap_or(work::DEFAULT_GATE);
    work::check_gate(gate).map_err(bad)?;
    for (what, t) in [("planned", input.planned), ("executed", input.executed)] {
        if let Some(t) = t {
            work::check_text(what, t).map_err(bad)?;
        }
    }
    let planned = input.planned.map(str::to_owned);
    let executed = input.executed.map(str::to_owned);
    write_work(ctx, work, |tx, actor, now| {
        let lease = current_lease(tx, actor, work, lease_id)?;
        let view = |s: &StepRow, replayed| StepView {
            scope: s.scope.clone(),
            work: s.work.clone(),
            lease_id: s.lease_id.clone(),
            fence: lease.fence,
            step: s.step.clone(),
            planned: s.planned.clone(),
            executed: s.executed.clone(),
            gate: s.gate.clone(),
            recorded_at: s.recorded_at,
            pruned_at: s.pruned_at,
            replayed,
        };
        if let Some(s) = tx.step(&lease.id, input.step)? {
            if s.planned == planned && s.executed == executed && s.gate == gate {
                return Ok(view(&s, true));
            }
            return Err(OpError::new(
                ErrorKind::Conflict,
                "step_conflict",
                format!(
                    "step {} was already logged under lease {} with a different record",
                    s.step, lease.id
                ),
            )
            .with("work", work)
            .with("lease_id", lease.id.as_str())
            .with("step", s.step.as_str())
            .with("recorded", json!({"planned": s.planned, "executed": s.executed, "gate": s.gate}))
            .hint("A step is logged once per lease; log a differently named step instead."));
        }
        let signed = crate::ops::keys::check(tx, input.signing, |repo| {
            crate::domain::sign::Statement::step_record(
                &repo,
                &actor.scope,
                work,
                &lease.id,
                input.step,
                lease.fence,
                &crate::domain::sign::step_digest(planned.as_deref(), executed.as_deref(), gate),
            )
        })?;
        let row = StepRow {
            scope: actor.scope.clone(),
            work: work.to_owned(),
            lease_id: lease.id.clone(),
            step: input.step.to_owned(),
            planned,
            executed,
            gate: gate.to_owned(),
            recorded_at: now,
            pruned_at: None,
        };
        tx.insert_step(&row)?;
        let event = StepRecord {
            work: work.to_owned(),
            lease_id: lease.id.clone(),
            fence: lease.fence,
            step: row.step.clone(),
            planned: None,
            executed: None,
            planned_sha256: sha256_of(row.planned.as_deref()),
            executed_sha256: sha256_of(row.executed.as_deref()),
            gate: row.gate.clone(),
            signed,
        };
        journal::append(tx, actor, now, event)?;
        Ok(view(&row, false))
    })
}
