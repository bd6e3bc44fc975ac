//! Tests of the lease operations on a real store: fencing tokens checked against the newest
//! lease, `--fence` parsing, and the reaping a failed access still commits.

use super::*;
use crate::ops::FixedClock;
use crate::store::sqlite;

struct Env {
    _dir: tempfile::TempDir,
    store: sqlite::SqliteStore,
}

fn env() -> Env {
    let dir = tempfile::tempdir().unwrap();
    let store = sqlite::create(&dir.path().join("locker.db")).unwrap();
    Env { _dir: dir, store }
}

#[test]
fn fence_tokens_are_checked_against_the_newest_lease() {
    let mut e = env();
    let clock = FixedClock(1000);
    let mut ctx = Ctx::new(&mut e.store, Actor::operator(), &clock);
    let a = acquire(&mut ctx, "job", 10, Some("a"), false).unwrap();
    assert_eq!(a.lease.fence, 1);
    let op = Actor::operator();
    let other_scope = Actor::operator_in("other");
    {
        let mut tx = ctx.store.write().unwrap();
        let tx = tx.as_mut();
        check_fence(tx, &op, 1000, "job", 1).unwrap();
        let code = |r: OpResult<()>| r.unwrap_err().code.to_string();
        assert_eq!(code(check_fence(tx, &op, 1000, "job", 2)), "unknown_fence");
        assert_eq!(code(check_fence(tx, &op, 1000, "other", 1)), "unknown_fence");
        assert_eq!(code(check_fence(tx, &other_scope, 1000, "job", 1)), "unknown_fence");
        assert_eq!(code(check_fence(tx, &op, 1000, "", 1)), "bad_request");
    }
    // The holder's own token still passes after its lease expired, as long as no newer
    // lease exists; the check reaps the expired lease on the way.
    {
        let mut tx = ctx.store.write().unwrap();
        check_fence(tx.as_mut(), &op, 1010, "job", 1).unwrap();
        tx.commit().unwrap();
    }
    let stored = ctx.store.read().unwrap().lease(&a.lease.lease_id).unwrap().unwrap();
    assert_eq!(stored.state, LeaseState::Abandoned);
    let clock = FixedClock(1010);
    let mut ctx = Ctx::new(&mut e.store, Actor::operator(), &clock);
    let b = acquire(&mut ctx, "job", 10, Some("b"), false).unwrap();
    assert_eq!(b.lease.fence, 2);
    let mut tx = ctx.store.write().unwrap();
    let err = check_fence(tx.as_mut(), &op, 1010, "job", 1).unwrap_err();
    assert_eq!((err.code.as_ref(), err.kind.exit_code()), ("stale_fence", 4));
    assert_eq!(err.fields["current_fence"], 2);
    assert_eq!(err.fields["current_holder"], "b");
    check_fence(tx.as_mut(), &op, 1010, "job", 2).unwrap();
}

#[test]
fn fence_arguments_parse_with_colons_in_the_work_name() {
    assert_eq!(parse_fence("job:3").unwrap(), Fence { work: "job".into(), token: 3 });
    assert_eq!(parse_fence("ns:job:12").unwrap().to_string(), "ns:job:12");
    for bad in ["job", "job:", "job:0", "job:-1", ":3", "job:x"] {
        assert_eq!(parse_fence(bad).unwrap_err().kind.exit_code(), 6, "{bad}");
    }
}

#[test]
fn a_failed_access_still_commits_its_reaping() {
    let mut e = env();
    let clock = FixedClock(1000);
    let mut ctx = Ctx::new(&mut e.store, Actor::operator(), &clock);
    let a = acquire(&mut ctx, "job", 10, None, false).unwrap();
    let clock = FixedClock(1010);
    let mut ctx = Ctx::new(&mut e.store, Actor::operator(), &clock);
    let err = heartbeat(&mut ctx, "job", &a.lease.lease_id, None).unwrap_err();
    assert_eq!((err.code.as_ref(), err.kind.exit_code()), ("gone", 7));
    let tx = ctx.store.read().unwrap();
    let l = tx.lease(&a.lease.lease_id).unwrap().unwrap();
    assert_eq!(l.state, LeaseState::Abandoned);
    assert_eq!(l.ended_at, Some(1010));
    let q = crate::store::JournalQuery {
        kind: Some(crate::domain::event::kind::LEASE_ABANDON.into()),
        limit: 10,
        ..Default::default()
    };
    assert_eq!(tx.journal(&q).unwrap().len(), 1);
}
