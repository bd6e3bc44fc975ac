//! Group commit on the repository's own store (SQLite, or PostgreSQL with `LOCKER_TEST_STORE`,
//! whose write transactions keep the journal's head, the Merkle hashes and the settings they
//! read or wrote for their later requests): what a group knows never outlives a savepoint
//! rolled back, the group itself, or another process's write between groups.

use std::sync::{Arc, Mutex};

use locker::domain::event::RepoSetting;
use locker::domain::limits::PadLimits;
use locker::domain::secret::Secret;
use locker::ops::group::{apply, job, Job};
use locker::ops::log::journal;
use locker::ops::{keys, pad, Actor, Ctx, Env, FixedClock, OpError, OpResult, Settings};
use locker::repo::Repo;

use crate::common::TestEnv;

type Outcomes = Arc<Mutex<Vec<(usize, Result<(), String>)>>>;

/// A job that runs `f` as the operator and records whether it succeeded, under `i`.
fn recorded<T, F>(out: &Outcomes, i: usize, f: F) -> Box<dyn Job>
where
    T: Send + 'static,
    F: FnMut(&mut Ctx<'_>) -> OpResult<T> + Send + 'static,
{
    let out = Arc::clone(out);
    job(Actor::operator(), f, move |r: OpResult<T>| {
        out.lock().unwrap().push((i, r.map(|_| ()).map_err(|e| e.code.to_string())));
    })
}

/// The outcomes recorded so far, in job order.
fn outcomes(out: &Outcomes) -> Vec<Result<(), String>> {
    let mut got: Vec<_> = out.lock().unwrap().drain(..).collect();
    got.sort_by_key(|(i, _)| *i);
    got.into_iter().map(|(_, r)| r).collect()
}

/// A pad with its envelope, made through the CLI.
fn pad_with_envelope(env: &TestEnv) -> (String, Secret) {
    let p = env.pad_with_envelope(&["--max-blocks", "4096"]);
    (p.id, Secret::new(p.key))
}

fn append_job(out: &Outcomes, i: usize, id: &str, key: &Secret, data: &str) -> Box<dyn Job> {
    let (id, key, data) = (id.to_owned(), key.clone(), data.to_owned());
    recorded(out, i, move |c| pad::append(c, &id, Some(&key), data.as_bytes(), None))
}

/// A request that journals an entry and sets the signing policy, then fails: its savepoint is
/// rolled back after the store saw the new head, Merkle hashes and setting.
fn failing_job(out: &Outcomes, i: usize) -> Box<dyn Job> {
    recorded(out, i, |c: &mut Ctx<'_>| -> OpResult<()> {
        let now = c.now();
        let mut tx = c.store.write()?;
        tx.set_setting(keys::REQUIRE_SIGNED, "true")?;
        let event = RepoSetting { name: keys::REQUIRE_SIGNED.into(), value: "true".into() };
        journal::append(tx.as_mut(), &c.actor, now, event)?;
        assert!(keys::required(tx.as_ref())?, "the transaction sees its own setting");
        drop(tx);
        Err(OpError::conflict("changed its mind"))
    })
}

fn ops_env(env: &TestEnv) -> Env {
    Env { clock: Arc::new(FixedClock(env.now)), settings: Settings::default(), log: None }
}

#[test]
fn test_store_group_a_rolled_back_request_leaves_the_next_ones_a_sound_chain() {
    let env = TestEnv::init();
    let (id, key) = pad_with_envelope(&env);
    let mut repo = Repo::open_root(env.path()).unwrap();
    let out: Outcomes = Arc::default();
    let jobs = vec![
        append_job(&out, 0, &id, &key, "one"),
        failing_job(&out, 1),
        // Unsigned: refused if the rolled-back policy were still seen.
        append_job(&out, 2, &id, &key, "two"),
        failing_job(&out, 3),
        failing_job(&out, 4),
        append_job(&out, 5, &id, &key, "three"),
    ];
    let rest = apply(repo.store.as_mut(), &ops_env(&env), jobs);
    assert!(rest.is_empty());
    let conflict = Err("conflict".to_owned());
    assert_eq!(
        outcomes(&out),
        [Ok(()), conflict.clone(), Ok(()), conflict.clone(), conflict, Ok(())]
    );
    drop(repo);
    assert_eq!(env.json(&["pad", "show", &id])["block_count"], 4);
    assert_eq!(env.json(&["key", "list"])["require_signed_appends"], false);
    env.assert_verified();
}

#[test]
fn test_store_group_sees_what_another_process_wrote_between_groups() {
    let env = TestEnv::init();
    let (id, key) = pad_with_envelope(&env);
    let mut repo = Repo::open_root(env.path()).unwrap();
    let ops = ops_env(&env);
    let out: Outcomes = Arc::default();
    for round in 0..3 {
        let jobs = (0..3).map(|n| append_job(&out, n, &id, &key, &format!("group {round}.{n}")));
        assert!(apply(repo.store.as_mut(), &ops, jobs.collect()).is_empty());
        assert_eq!(outcomes(&out), [Ok(()), Ok(()), Ok(())]);
        // Another process appends to the same pad and grows the journal meanwhile.
        env.json(&["append", &id, "--key", key.expose(), "--data", &format!("cli {round}")]);
        env.json(&["pad", "create"]);
    }
    // The signing policy turned on by another process is seen by the next group.
    env.json(&["key", "require", "--yes"]);
    assert!(apply(repo.store.as_mut(), &ops, vec![append_job(&out, 0, &id, &key, "x")]).is_empty());
    assert_eq!(outcomes(&out), [Err("signature_required".to_owned())]);
    // And within one group, a request sees the policy an earlier one changed.
    let jobs = vec![
        recorded(&out, 0, |c| keys::set_required(c, false)),
        append_job(&out, 1, &id, &key, "y"),
        recorded(&out, 2, |c| keys::set_required(c, true)),
        append_job(&out, 3, &id, &key, "z"),
    ];
    assert!(apply(repo.store.as_mut(), &ops, jobs).is_empty());
    let refused = Err("signature_required".to_owned());
    assert_eq!(outcomes(&out), [Ok(()), Ok(()), Ok(()), refused]);
    // A group dropped before its commit keeps nothing, and the next one starts afresh.
    {
        let clock = FixedClock(env.now);
        let mut g = repo.store.group().unwrap();
        let mut c = Ctx::new(g.store(), Actor::operator(), &clock);
        keys::set_required(&mut c, false).unwrap();
        pad::create(&mut c, PadLimits::default()).unwrap();
    }
    let jobs = vec![append_job(&out, 0, &id, &key, "w")];
    assert!(apply(repo.store.as_mut(), &ops, jobs).is_empty());
    assert_eq!(outcomes(&out), [Err("signature_required".to_owned())]);
    drop(repo);
    assert_eq!(env.json(&["pad", "show", &id])["block_count"], 1 + 3 * 4 + 1);
    env.assert_verified();
}
