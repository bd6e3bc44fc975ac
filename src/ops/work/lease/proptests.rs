//! The lease state machine against a model of its rules (the lease module's docs), on random
//! sequences of operations, holders, TTLs and clock moves; the journal replay (`verify`) stays
//! clean.

use proptest::prelude::*;

use super::*;
use crate::ops::{verify, FixedClock, NoProgress};

#[derive(Debug, Clone)]
enum Op {
    Acquire { work: usize, holder: usize, ttl: i64, reopen: bool },
    Heartbeat { work: usize, lease: usize },
    Complete { work: usize, lease: usize, result: Option<&'static str> },
    Release { work: usize, lease: usize },
    Reap,
    Wait(i64),
}

fn op() -> impl Strategy<Value = Op> {
    let work = 0usize..2;
    let lease = 0usize..4;
    prop_oneof![
        4 => (work.clone(), 0usize..2, 1i64..60, prop::bool::weighted(0.2))
            .prop_map(|(work, holder, ttl, reopen)| Op::Acquire { work, holder, ttl, reopen }),
        2 => (work.clone(), lease.clone()).prop_map(|(work, lease)| Op::Heartbeat { work, lease }),
        2 => (work.clone(), lease.clone(), prop::option::of(prop::sample::select(vec!["r1", "r2"])))
            .prop_map(|(work, lease, result)| Op::Complete { work, lease, result }),
        1 => (work, lease).prop_map(|(work, lease)| Op::Release { work, lease }),
        1 => Just(Op::Reap),
        2 => (0i64..90).prop_map(Op::Wait),
    ]
}

/// The model's view of one lease.
#[derive(Debug, Clone)]
struct M {
    id: String,
    holder: String,
    fence: u64,
    state: LeaseState,
    ttl: i64,
    expires_at: i64,
    result: Option<String>,
}

/// What the model expects: the outcome's error code, or success.
fn expect(leases: &mut Vec<M>, op: &Op, now: i64) -> Result<(), &'static str> {
    // Every access to a work item first abandons its expired active lease.
    if let Some(l) = leases.last_mut() {
        if l.state == LeaseState::Active && l.expires_at <= now {
            l.state = LeaseState::Abandoned;
        }
    }
    let pick = |leases: &mut Vec<M>, i: usize| -> Result<usize, &'static str> {
        (i < leases.len()).then_some(i).ok_or("lease_not_found")
    };
    let current = |l: &M| match l.state {
        LeaseState::Active => Ok(()),
        LeaseState::Abandoned => Err("gone"),
        _ => Err("stale_lease"),
    };
    match *op {
        Op::Acquire { holder, ttl, reopen, .. } => {
            let holder = ["a", "b"][holder];
            if let Some(l) = leases.last() {
                match l.state {
                    LeaseState::Active if l.holder == holder => return Ok(()),
                    LeaseState::Active => return Err("lease_held"),
                    LeaseState::Completed if !reopen => return Err("work_completed"),
                    _ => {}
                }
            }
            let fence = leases.last().map_or(1, |l| l.fence + 1);
            leases.push(M {
                id: String::new(),
                holder: holder.into(),
                fence,
                state: LeaseState::Active,
                ttl,
                expires_at: now + ttl,
                result: None,
            });
            Ok(())
        }
        Op::Heartbeat { lease, .. } => {
            let i = pick(leases, lease)?;
            current(&leases[i])?;
            leases[i].expires_at = now + leases[i].ttl;
            Ok(())
        }
        Op::Complete { lease, result, .. } => {
            let i = pick(leases, lease)?;
            let l = &mut leases[i];
            if l.state == LeaseState::Completed && l.result.as_deref() == result {
                return Ok(());
            }
            current(l)?;
            l.state = LeaseState::Completed;
            l.result = result.map(str::to_owned);
            Ok(())
        }
        Op::Release { lease, .. } => {
            let i = pick(leases, lease)?;
            let l = &mut leases[i];
            if l.state == LeaseState::Released {
                return Ok(());
            }
            current(l)?;
            l.state = LeaseState::Released;
            Ok(())
        }
        Op::Reap | Op::Wait(_) => Ok(()),
    }
}

fn code<T>(r: &OpResult<T>) -> Result<(), String> {
    r.as_ref().map(|_| ()).map_err(|e| e.code.to_string())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::ops::proptest_cases(32)))]
    #[test]
    fn leases_follow_their_rules(ops in prop::collection::vec(op(), 1..40)) {
        let dir = crate::ops::test_dir();
        let (_, mut repo) = crate::ops::admin::init::init(dir.path(), &FixedClock(1_000)).unwrap();
        let works = ["job-0", "job-1"];
        let mut model: Vec<Vec<M>> = vec![Vec::new(), Vec::new()];
        let mut now = 1_000;
        for op in &ops {
            let clock = FixedClock(now);
            let mut ctx = Ctx::new(repo.store.as_mut(), Actor::operator(), &clock);
            let id_of = |m: &Vec<M>, i: usize| m.get(i).map_or("no-such-lease".into(), |l| l.id.clone());
            let (got, want) = match *op {
                Op::Acquire { work, holder, ttl, reopen } => {
                    let r = acquire(&mut ctx, works[work], ttl, Some(["a", "b"][holder]), reopen);
                    let want = expect(&mut model[work], op, now);
                    if let (Ok(a), Ok(())) = (&r, &want) {
                        let m = model[work].last_mut().unwrap();
                        if m.id.is_empty() {
                            m.id = a.lease.lease_id.clone();
                            prop_assert!(!a.reacquired);
                        } else {
                            prop_assert!(a.reacquired);
                        }
                        prop_assert_eq!(&a.lease.lease_id, &m.id);
                        prop_assert_eq!(a.lease.fence, m.fence);
                        prop_assert_eq!(a.lease.expires_at, m.expires_at);
                    }
                    (code(&r), want)
                }
                Op::Heartbeat { work, lease } => {
                    let id = id_of(&model[work], lease);
                    let r = heartbeat(&mut ctx, works[work], &id, None);
                    (code(&r), expect(&mut model[work], op, now))
                }
                Op::Complete { work, lease, result } => {
                    let id = id_of(&model[work], lease);
                    let r = complete(&mut ctx, works[work], &id, result);
                    (code(&r), expect(&mut model[work], op, now))
                }
                Op::Release { work, lease } => {
                    let id = id_of(&model[work], lease);
                    let r = release(&mut ctx, works[work], &id);
                    (code(&r), expect(&mut model[work], op, now))
                }
                Op::Reap => {
                    let r = reap(&mut ctx);
                    for m in &mut model {
                        expect(m, op, now).unwrap();
                    }
                    (code(&r), Ok(()))
                }
                Op::Wait(dt) => {
                    now += dt;
                    continue;
                }
            };
            prop_assert_eq!(got, want.map_err(str::to_owned), "{:?} at {}", op, now);
            // The store agrees with the model, lease by lease.
            let tx = repo.store.read().unwrap();
            for (w, m) in works.iter().zip(&model) {
                let stored = tx.work_leases("default", w).unwrap();
                prop_assert_eq!(stored.len(), m.len());
                for (s, m) in stored.iter().zip(m) {
                    prop_assert_eq!((&s.id, s.fence, s.state), (&m.id, m.fence, m.state));
                    prop_assert_eq!((s.holder.as_str(), s.expires_at), (m.holder.as_str(), m.expires_at));
                }
                let active = stored.iter().filter(|l| l.state == LeaseState::Active).count();
                prop_assert!(active <= 1, "two active leases on {}", w);
            }
        }
        let clock = FixedClock(now);
        let mut ctx = Ctx::new(repo.store.as_mut(), Actor::operator(), &clock);
        let report = verify::repository(&mut ctx, None, &NoProgress).unwrap();
        prop_assert!(report.ok, "{:?}", report.problems);
    }
}
