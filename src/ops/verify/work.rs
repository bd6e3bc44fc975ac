//! The journal's account of leases, plans and steps, replayed and checked against the stored
//! rows, for `locker verify` (the whole repository) and `locker lease history` (one work item).
//!
//! Every lease, plan and step row is written together with one journal entry (`lease.*`,
//! `manifest.commit`, `step.record`) whose body holds everything the row says. Replaying the
//! entries in order rebuilds the rows a faithful store must hold, and checks the rules while
//! doing so (fencing tokens 1, 2, 3… with no gaps or reuse, one active lease at a time, no
//! write under a lease that was not active and live, plan versions 1, 2, 3…), so a row
//! edited, added or deleted behind locker's back is named, and so is a journal that records
//! something the rules forbid.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::domain::digest::Digest;
use crate::domain::event::{subject, Event, RepoGc};
use crate::domain::journal::Entry;
use crate::domain::work::{self, LeaseState};
use crate::ops::OpResult;
use crate::store::{LeaseRow, PlanRow, StepRow, Tx};

/// What the journal says the lease, plan and step rows must be.
#[derive(Debug, Default)]
pub struct WorkReplay {
    leases: BTreeMap<String, LeaseRow>,
    last_fence: HashMap<(String, String), u64>,
    active: HashMap<(String, String), String>,
    plans: BTreeMap<(String, String, u64), PlanRow>,
    last_version: HashMap<(String, String), u64>,
    steps: BTreeMap<(String, String), StepRow>,
    /// Plans and steps recorded under each lease, for checking what `repo.gc` says it pruned.
    per_lease: HashMap<String, (u64, u64)>,
    /// Leases whose text `repo.gc` pruned, with the time.
    pruned: HashMap<String, i64>,
}

/// How the journal records a text that `locker gc` may later remove from its row (heartbeat
/// details, plan steps, a step's planned and executed): by its SHA-256, never the text, so
/// that pruning the row leaves no copy behind. `None` stays `None`.
pub(crate) fn text_sha256(text: Option<&str>) -> Option<String> {
    text.map(|t| Digest::of(t.as_bytes()).to_hex())
}

fn hex(d: Option<Digest>) -> Option<String> {
    d.map(|d| d.to_hex())
}

/// The work item a lease, plan or step event is about, and the lease it names.
fn work_of(ev: &Event) -> Option<(&str, &str)> {
    Some(match ev {
        Event::LeaseAcquire(b) => (&b.work, &b.lease_id),
        Event::LeaseHeartbeat(b) => (&b.work, &b.lease_id),
        Event::LeaseComplete(b) => (&b.work, &b.lease_id),
        Event::LeaseRelease(b) => (&b.work, &b.lease_id),
        Event::LeaseAbandon(b) => (&b.work, &b.lease_id),
        Event::ManifestCommit(b) => (&b.work, &b.lease_id),
        Event::StepRecord(b) => (&b.work, &b.lease_id),
        _ => return None,
    })
}

impl WorkReplay {
    /// Applies the event of one intact journal entry. `None` when the entry is not about
    /// leases, plans or steps; otherwise `Some(problem)`, where `problem` describes anything
    /// inconsistent.
    pub fn apply(&mut self, e: &Entry, ev: &Event) -> Option<Option<String>> {
        let (work, id) = work_of(ev)?;
        Some(self.apply_work(e, ev, work, id))
    }

    fn apply_work(&mut self, e: &Entry, ev: &Event, work: &str, id: &str) -> Option<String> {
        if e.subject != subject::work(work) {
            return Some(format!(
                "entry {}'s subject {} does not name its work item {work}",
                e.seq, e.subject
            ));
        }
        let key = (e.scope.clone(), work.to_owned());
        let id = id.to_owned();
        if let Event::LeaseAcquire(a) = ev {
            let (fence, holder, ttl, expires_at) = (a.fence, &a.holder, a.ttl, a.expires_at);
            let last = self.last_fence.get(&key).copied().unwrap_or(0);
            let mut problem = None;
            if fence != last + 1 {
                problem = Some(format!(
                    "work item {work}'s lease {id} has fencing token {fence}, but the token \
                     before it was {last}"
                ));
            }
            if let Some(other) = self.active.get(&key) {
                problem = Some(format!(
                    "work item {work}'s lease {id} was acquired while lease {other} was active"
                ));
            }
            if self.leases.contains_key(&id) {
                problem = Some(format!("lease {id} is acquired twice"));
            }
            self.last_fence.insert(key.clone(), last.max(fence));
            self.active.insert(key, id.clone());
            self.leases.insert(
                id.clone(),
                LeaseRow {
                    id,
                    scope: e.scope.clone(),
                    work: work.to_owned(),
                    fence,
                    holder: holder.clone(),
                    state: LeaseState::Active,
                    ttl,
                    acquired_at: e.time,
                    expires_at,
                    heartbeats: 0,
                    heartbeat_at: None,
                    details: None,
                    ended_at: None,
                    result: None,
                    pruned_at: None,
                },
            );
            return problem;
        }
        let Some(lease) = self.leases.get_mut(&id) else {
            return Some(format!("entry {} ({}) names an unknown lease {id}", e.seq, e.kind));
        };
        if lease.scope != e.scope || lease.work != work {
            return Some(format!(
                "entry {} ({}) uses lease {id} of another work item ({})",
                e.seq, e.kind, lease.work
            ));
        }
        // Every write but the reaper's needs the lease active and live at the entry's time.
        let usable = lease.state == LeaseState::Active && !work::expired(lease.expires_at, e.time);
        let mut problem = None;
        if let Event::LeaseAbandon(_) = ev {
            if lease.state != LeaseState::Active || !work::expired(lease.expires_at, e.time) {
                problem = Some(format!(
                    "lease {id} on work item {work} was abandoned while {} and not expired",
                    lease.state.as_str()
                ));
            }
        } else if !usable {
            return Some(format!(
                "entry {} ({}) was accepted under lease {id} of work item {work}, which was {} \
                 at the time",
                e.seq,
                e.kind,
                if lease.state == LeaseState::Active { "expired" } else { lease.state.as_str() }
            ));
        }
        let mut end = |state: LeaseState, result: Option<String>| {
            lease.state = state;
            lease.ended_at = Some(e.time);
            lease.result = result;
            if self.active.get(&key) == Some(&id) {
                self.active.remove(&key);
            }
        };
        match ev {
            Event::LeaseHeartbeat(h) => {
                lease.expires_at = h.expires_at;
                lease.heartbeats += 1;
                lease.heartbeat_at = Some(e.time);
                lease.details = hex(h.details_digest());
            }
            Event::LeaseComplete(c) => end(LeaseState::Completed, c.result.clone()),
            Event::LeaseRelease(_) => end(LeaseState::Released, None),
            Event::LeaseAbandon(_) => end(LeaseState::Abandoned, None),
            Event::ManifestCommit(m) => {
                let version = m.version;
                // Entries written since retention existed hold the steps' digest; older ones
                // the steps themselves, which are checked as well.
                let steps_digest = match (&m.steps_sha256, &m.steps) {
                    (Some(d), _) => d.to_hex(),
                    (None, Some(steps)) => {
                        if let Err(err) = work::check_plan(steps) {
                            problem = Some(format!(
                                "plan v{version} of work item {work} is invalid: {err}"
                            ));
                        }
                        let json =
                            serde_json::to_string(steps).expect("a list of strings serialises");
                        Digest::of(json.as_bytes()).to_hex()
                    }
                    (None, None) => return Some(crate::ops::log::journal::malformed_body(e)),
                };
                let last = self.last_version.get(&key).copied().unwrap_or(0);
                self.last_version.insert(key.clone(), last.max(version));
                if version != last + 1 {
                    problem = Some(format!("plan v{version} of work item {work} follows v{last}"));
                }
                self.plans.insert(
                    (e.scope.clone(), work.to_owned(), version),
                    PlanRow {
                        scope: e.scope.clone(),
                        work: work.to_owned(),
                        version,
                        lease_id: id.clone(),
                        steps_json: steps_digest,
                        committed_at: e.time,
                        pruned_at: None,
                    },
                );
                self.per_lease.entry(id).or_default().0 += 1;
            }
            Event::StepRecord(r) => {
                let step = r.step.as_str();
                let k = (id.clone(), step.to_owned());
                if self.steps.contains_key(&k) {
                    problem = Some(format!(
                        "step {step} of work item {work} is logged twice under lease {id}"
                    ));
                }
                self.steps.insert(
                    k,
                    StepRow {
                        scope: e.scope.clone(),
                        work: work.to_owned(),
                        lease_id: id.clone(),
                        step: step.to_owned(),
                        planned: hex(r.planned_digest()),
                        executed: hex(r.executed_digest()),
                        gate: r.gate.clone(),
                        recorded_at: e.time,
                        pruned_at: None,
                    },
                );
                self.per_lease.entry(id).or_default().1 += 1;
            }
            _ => {}
        }
        problem
    }
}

impl WorkReplay {
    /// Applies the abandoned leases a `repo.gc` entry pruned (its `leases`, absent from runs
    /// that pruned none). Each must be abandoned by then, not pruned before, and have had the
    /// plans and steps the entry counts. `only` limits this to one work item (scope, work).
    /// Returns the leases applied and the first problem.
    pub fn apply_gc(
        &mut self,
        e: &Entry,
        gc: &RepoGc,
        only: Option<(&str, &str)>,
    ) -> (u64, Option<String>) {
        let Some(list) = &gc.leases else { return (0, None) };
        let (mut applied, mut problem) = (0, None);
        for l in list {
            let (id, scope, work) = (l.lease_id.as_str(), l.scope.as_str(), l.work.as_str());
            let (plans, steps) = (l.plans, l.steps);
            if only.is_some_and(|o| o != (scope, work)) {
                continue;
            }
            applied += 1;
            let detail = match self.leases.get(id) {
                None => Some(format!("lease {id} is pruned but was never acquired")),
                Some(j) if j.scope != scope || j.work != work => Some(format!(
                    "lease {id} is pruned as work item {work}'s, but it is {}'s",
                    j.work
                )),
                Some(_) if self.pruned.contains_key(id) => {
                    Some(format!("lease {id} is pruned twice"))
                }
                Some(j) if j.state != LeaseState::Abandoned => Some(format!(
                    "lease {id} on work item {work} was pruned while {}, not abandoned",
                    j.state.as_str()
                )),
                Some(_) => {
                    let had = self.per_lease.get(id).copied().unwrap_or_default();
                    (had != (plans, steps)).then(|| {
                        format!(
                            "lease {id} on work item {work} was pruned with {plans} plan(s) and \
                             {steps} step(s), but it had {} and {}",
                            had.0, had.1
                        )
                    })
                }
            };
            self.pruned.insert(id.to_owned(), e.time);
            if let Some(d) = detail {
                problem.get_or_insert(d);
            }
        }
        (applied, problem)
    }
}

/// What kind of row a problem is about: `lease`, `plan` or `step`.
pub type RowKind = &'static str;

/// The fields that differ; `texts` are (name, stored text, the journal's digest of it).
fn field_diffs(
    pairs: &[(&str, String, String)],
    texts: &[(&str, Option<&str>, Option<&str>)],
) -> Option<String> {
    let shown = |t: Option<&str>| match t {
        None => "absent".to_owned(),
        Some(t) => {
            let digest = text_sha256(Some(t)).unwrap_or_default();
            match t.char_indices().nth(64) {
                Some((cut, _)) => format!("{:?}… (sha256 {digest})", &t[..cut]),
                None => format!("{t:?} (sha256 {digest})"),
            }
        }
    };

    let diffs: Vec<String> = pairs
        .iter()
        .filter(|(_, s, j)| s != j)
        .map(|(name, s, j)| format!("{name} is {s} in the store but {j} in the journal"))
        .chain(texts.iter().filter(|(_, s, j)| text_sha256(*s).as_deref() != *j).map(
            |(name, s, j)| {
                let j = j.map_or_else(|| "absent".to_owned(), |d| format!("sha256 {d}"));
                format!("{name} is {} in the store but {j} in the journal", shown(*s))
            },
        ))
        .collect();
    (!diffs.is_empty()).then(|| diffs.join("; "))
}

/// Compares a stored lease with the replayed one, whose texts are digests (see
/// [`text_sha256`]); `pruned` is when `repo.gc` pruned it, if it did: then the texts must be
/// gone.
fn lease_diff(s: &LeaseRow, j: &LeaseRow, pruned: Option<i64>) -> Option<String> {
    let d = |v: &dyn std::fmt::Debug| format!("{v:?}");
    let text = |t: &Option<String>| if pruned.is_some() { None } else { t.clone() };
    field_diffs(
        &[
            ("scope", d(&s.scope), d(&j.scope)),
            ("work", d(&s.work), d(&j.work)),
            ("fence", d(&s.fence), d(&j.fence)),
            ("holder", d(&s.holder), d(&j.holder)),
            ("state", d(&s.state.as_str()), d(&j.state.as_str())),
            ("ttl", d(&s.ttl), d(&j.ttl)),
            ("acquired_at", d(&s.acquired_at), d(&j.acquired_at)),
            ("expires_at", d(&s.expires_at), d(&j.expires_at)),
            ("heartbeats", d(&s.heartbeats), d(&j.heartbeats)),
            ("heartbeat_at", d(&s.heartbeat_at), d(&j.heartbeat_at)),
            ("ended_at", d(&s.ended_at), d(&j.ended_at)),
            ("result", d(&s.result), d(&text(&j.result))),
            ("pruned_at", d(&s.pruned_at), d(&pruned)),
        ],
        &[("details", s.details.as_deref(), text(&j.details).as_deref())],
    )
}

fn plan_diff(s: &PlanRow, j: &PlanRow, pruned: Option<i64>) -> Option<String> {
    let d = |v: &dyn std::fmt::Debug| format!("{v:?}");
    let steps = match pruned {
        Some(_) => text_sha256(Some("[]")),
        None => Some(j.steps_json.clone()),
    };
    field_diffs(
        &[
            ("lease_id", d(&s.lease_id), d(&j.lease_id)),
            ("committed_at", d(&s.committed_at), d(&j.committed_at)),
            ("pruned_at", d(&s.pruned_at), d(&pruned)),
        ],
        &[("steps", Some(&s.steps_json), steps.as_deref())],
    )
}

fn step_diff(s: &StepRow, j: &StepRow, pruned: Option<i64>) -> Option<String> {
    let d = |v: &dyn std::fmt::Debug| format!("{v:?}");
    let text = |t: &Option<String>| if pruned.is_some() { None } else { t.clone() };
    field_diffs(
        &[
            ("scope", d(&s.scope), d(&j.scope)),
            ("work", d(&s.work), d(&j.work)),
            ("gate", d(&s.gate), d(&j.gate)),
            ("recorded_at", d(&s.recorded_at), d(&j.recorded_at)),
            ("pruned_at", d(&s.pruned_at), d(&pruned)),
        ],
        &[
            ("planned", s.planned.as_deref(), text(&j.planned).as_deref()),
            ("executed", s.executed.as_deref(), text(&j.executed).as_deref()),
        ],
    )
}

/// Counts of what [`check_store`] looked at.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoreCounts {
    pub leases: u64,
    pub plans: u64,
    pub steps: u64,
}

/// Compares stored lease, plan and step rows with the replayed journal. `only` limits the
/// check to one work item (scope, work); `report(kind, subject, detail)` gets each problem.
pub fn check_store(
    tx: &dyn Tx,
    replay: &WorkReplay,
    only: Option<(&str, &str)>,
    report: &mut dyn FnMut(RowKind, String, String),
) -> OpResult<StoreCounts> {
    let mut counts = StoreCounts::default();
    let (leases, plans, steps) = match only {
        Some((scope, w)) => {
            (tx.work_leases(scope, w)?, tx.plans(scope, w)?, tx.work_steps(scope, w)?)
        }
        None => {
            let (mut l, mut p, mut s) = (Vec::new(), Vec::new(), Vec::new());
            tx.for_each_lease(&mut |r| {
                l.push(r);
                std::ops::ControlFlow::Continue(())
            })?;
            tx.for_each_plan(&mut |r| {
                p.push(r);
                std::ops::ControlFlow::Continue(())
            })?;
            tx.for_each_step(&mut |r| {
                s.push(r);
                std::ops::ControlFlow::Continue(())
            })?;
            (l, p, s)
        }
    };
    let wanted = |scope: &str, w: &str| only.is_none_or(|(s, o)| s == scope && o == w);

    let mut seen = HashSet::new();
    for l in &leases {
        counts.leases += 1;
        let detail = match replay.leases.get(&l.id) {
            None => Some(format!(
                "lease {} (fence {}, holder {}) on work item {} has no record in the journal",
                l.id, l.fence, l.holder, l.work
            )),
            Some(j) => lease_diff(l, j, replay.pruned.get(&l.id).copied()).map(|d| {
                format!("lease {} on work item {} differs from the journal: {d}", l.id, j.work)
            }),
        };
        if let Some(d) = detail {
            report("lease", subject::work(&l.work), d);
        }
        seen.insert(l.id.clone());
    }
    for j in replay.leases.values().filter(|j| wanted(&j.scope, &j.work) && !seen.contains(&j.id)) {
        report(
            "lease",
            subject::work(&j.work),
            format!(
                "lease {} (fence {}) on work item {} is in the journal but missing from the store",
                j.id, j.fence, j.work
            ),
        );
    }

    let mut seen = HashSet::new();
    for p in &plans {
        counts.plans += 1;
        let key = (p.scope.clone(), p.work.clone(), p.version);
        let detail = match replay.plans.get(&key) {
            None => Some(format!(
                "plan v{} of work item {} has no record in the journal",
                p.version, p.work
            )),
            Some(j) => plan_diff(p, j, replay.pruned.get(&p.lease_id).copied()).map(|d| {
                format!("plan v{} of work item {} differs from the journal: {d}", p.version, p.work)
            }),
        };
        if let Some(d) = detail {
            report("plan", subject::work(&p.work), d);
        }
        seen.insert(key);
    }
    for (k, j) in replay.plans.iter().filter(|(k, _)| wanted(&k.0, &k.1) && !seen.contains(*k)) {
        report(
            "plan",
            subject::work(&j.work),
            format!(
                "plan v{} of work item {} is in the journal but missing from the store",
                k.2, j.work
            ),
        );
    }

    let mut seen = HashSet::new();
    for s in &steps {
        counts.steps += 1;
        let key = (s.lease_id.clone(), s.step.clone());
        let detail = match replay.steps.get(&key) {
            None => Some(format!(
                "step {:?} under lease {} of work item {} has no record in the journal",
                s.step, s.lease_id, s.work
            )),
            Some(j) => step_diff(s, j, replay.pruned.get(&s.lease_id).copied()).map(|d| {
                format!(
                    "step {:?} under lease {} of work item {} differs from the journal: {d}",
                    s.step, s.lease_id, j.work
                )
            }),
        };
        if let Some(d) = detail {
            report("step", subject::work(&s.work), d);
        }
        seen.insert(key);
    }
    for (k, j) in
        replay.steps.iter().filter(|(k, j)| wanted(&j.scope, &j.work) && !seen.contains(*k))
    {
        report(
            "step",
            subject::work(&j.work),
            format!(
                "step {:?} under lease {} of work item {} is in the journal but missing from the store",
                k.1, k.0, j.work
            ),
        );
    }
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;
    use crate::domain::journal;

    fn entry(seq: u64, time: i64, kind: &str, body: Value) -> Entry {
        Entry {
            v: journal::VERSION,
            seq,
            time,
            kind: kind.into(),
            actor: "operator".into(),
            scope: "default".into(),
            subject: "work:job".into(),
            body,
        }
    }

    fn acquire(seq: u64, time: i64, id: &str, fence: u64) -> Entry {
        entry(
            seq,
            time,
            "lease.acquire",
            json!({"lease_id": id, "work": "job", "fence": fence, "holder": "a", "ttl": 10,
                   "expires_at": time + 10, "reopened": false}),
        )
    }

    fn step(seq: u64, time: i64, id: &str, name: &str) -> Entry {
        entry(
            seq,
            time,
            "step.record",
            json!({"work": "job", "lease_id": id, "fence": 1, "step": name, "planned": null,
                   "executed": null, "gate": "agent"}),
        )
    }

    /// Applies `e` as [`WorkReplay::apply`] does after decoding its event.
    fn apply(r: &mut WorkReplay, e: &Entry) -> Option<Option<String>> {
        r.apply(e, &e.event().expect("a well-formed body"))
    }

    /// A journal re-hashed after the fact still has to obey the lease rules.
    #[test]
    fn replay_names_what_the_rules_forbid() {
        let mut r = WorkReplay::default();
        assert_eq!(apply(&mut r, &acquire(1, 100, "l1", 1)), Some(None));
        assert_eq!(apply(&mut r, &step(2, 105, "l1", "a")), Some(None));
        let p = apply(&mut r, &step(3, 106, "l1", "a")).unwrap().unwrap();
        assert!(p.contains("logged twice"), "{p}");
        let p = apply(&mut r, &acquire(4, 107, "l2", 2)).unwrap().unwrap();
        assert!(p.contains("while lease l1 was active"), "{p}");

        let mut r = WorkReplay::default();
        apply(&mut r, &acquire(1, 100, "l1", 1));
        let p = apply(&mut r, &step(2, 110, "l1", "late")).unwrap().unwrap();
        assert!(p.contains("which was expired at the time"), "{p}");
        let early = entry(
            3,
            105,
            "lease.abandon",
            json!({"lease_id": "l1", "work": "job", "fence": 1, "holder": "a", "expired_at": 110}),
        );
        let p = apply(&mut r, &early).unwrap().unwrap();
        assert!(p.contains("abandoned while active and not expired"), "{p}");
        let p = apply(&mut r, &acquire(4, 120, "l3", 3)).unwrap().unwrap();
        assert!(p.contains("fencing token 3, but the token before it was 1"), "{p}");
        let p = apply(&mut r, &step(5, 121, "ghost", "x")).unwrap().unwrap();
        assert!(p.contains("unknown lease ghost"), "{p}");
        // A body that is not its kind's is malformed before any replay sees it.
        let bad = entry(6, 122, "step.record", json!({"lease_id": "l3"}));
        assert!(bad.event().is_err());
        assert!(crate::ops::log::journal::malformed_body(&bad).contains("malformed"));
        let mut wrong = step(7, 122, "l3", "x");
        wrong.subject = "work:other".into();
        assert!(apply(&mut r, &wrong).unwrap().unwrap().contains("does not name its work item"));
        let other = json!({"pad_id": "p", "head_hash": Digest::ZERO, "block_count": 0,
                           "total_bytes": 0});
        assert_eq!(apply(&mut r, &entry(8, 1, "pad.seal", other)), None);
    }

    /// A plan from before retention records its steps, which are checked and digested as the
    /// store holds them.
    #[test]
    fn old_plans_and_heartbeats_replay_to_digests() {
        let mut r = WorkReplay::default();
        apply(&mut r, &acquire(1, 100, "l1", 1));
        let hb = entry(
            2,
            101,
            "lease.heartbeat",
            json!({"lease_id": "l1", "work": "job", "fence": 1, "expires_at": 111,
                   "details": "half"}),
        );
        assert_eq!(apply(&mut r, &hb), Some(None));
        assert_eq!(r.leases["l1"].details, text_sha256(Some("half")));
        let plan = entry(
            3,
            102,
            "manifest.commit",
            json!({"work": "job", "version": 1, "lease_id": "l1", "fence": 1,
                   "steps": ["a", "a"]}),
        );
        let p = apply(&mut r, &plan).unwrap().unwrap();
        assert!(p.contains("plan v1 of work item job is invalid"), "{p}");
        let key = ("default".to_owned(), "job".to_owned(), 1);
        assert_eq!(Some(r.plans[&key].steps_json.clone()), text_sha256(Some(r#"["a","a"]"#)));
    }
}
