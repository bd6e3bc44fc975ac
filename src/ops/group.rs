//! Group commit: several operations applied in one write transaction, made durable by one
//! commit (one `fsync`), each acknowledged only once that commit is durable.
//!
//! Every operation is the same function the CLI calls, run against the group's store
//! ([`crate::store::Group::store`]), so its own `write()` … `commit()` becomes a nested
//! transaction: an operation that fails undoes its own changes and nothing else, and one
//! that journals a rejection keeps that entry, exactly as when it runs alone. Each operation
//! still writes its own journal entry. The rules are not repeated here; this module only
//! decides what each caller is told.
//!
//! A store may send a group's writes ahead without waiting for each one's answer
//! (PostgreSQL: the whole group in two round trips). A write that then fails ends the group
//! (the store says so, [`Store::group_runs_again`]), and the group's operations run again,
//! from the start, in a new group that waits for each write, where a failure is once more
//! only its own operation's. So an operation may run twice; only its last run counts.

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::ops::{Actor, Ctx, Env, OpError, OpResult};
use crate::store::Store;

/// One operation waiting for a group.
pub trait Job: Send {
    /// Runs the operation on the group's store: again, from the start, if the group it ran
    /// in was undone and runs again (only the last run's outcome is kept).
    fn run(&mut self, store: &mut dyn Store, env: &Env);
    /// Tells the caller the outcome once the group's fate is known: `undone` is `Some` when
    /// the group did not become durable, and is then the error a succeeded operation
    /// reports instead of its outcome.
    fn finish(self: Box<Self>, undone: Option<OpError>);
}

/// A job that runs `f` as `actor` and hands its outcome to `reply`.
pub fn job<T, F, R>(actor: Actor, f: F, reply: R) -> Box<dyn Job>
where
    T: Send + 'static,
    F: FnMut(&mut Ctx<'_>) -> OpResult<T> + Send + 'static,
    R: FnOnce(OpResult<T>) + Send + 'static,
{
    Box::new(Pending { actor, f, result: None, reply })
}

struct Pending<T, F, R> {
    actor: Actor,
    f: F,
    result: Option<OpResult<T>>,
    reply: R,
}

impl<T, F, R> Job for Pending<T, F, R>
where
    T: Send + 'static,
    F: FnMut(&mut Ctx<'_>) -> OpResult<T> + Send + 'static,
    R: FnOnce(OpResult<T>) + Send + 'static,
{
    fn run(&mut self, store: &mut dyn Store, env: &Env) {
        let (f, actor) = (&mut self.f, self.actor.clone());
        // A panicking operation drops its nested transaction (undoing its changes) and fails
        // alone; the others in the group go on.
        let outcome = catch_unwind(AssertUnwindSafe(move || f(&mut env.ctx(store, actor))));
        self.result = Some(outcome.unwrap_or_else(|_| {
            Err(OpError::internal("the operation panicked; nothing it did was kept"))
        }));
    }

    fn finish(self: Box<Self>, undone: Option<OpError>) {
        let this = *self;
        let result = match (this.result, undone) {
            (Some(Ok(_)), Some(e)) | (None, Some(e)) => Err(e),
            (Some(r), _) => r,
            (None, None) => Err(OpError::internal("the operation did not run")),
        };
        (this.reply)(result);
    }
}

/// Applies `jobs` in one write transaction of `store`, in order, then commits it and
/// finishes every job that ran: each is told its own outcome once the commit is durable, or
/// the commit's error if its changes were undone. Returns the jobs that did not run because
/// a storage failure ended the transaction early; run them again in a new group (at least
/// one job always runs, so this makes progress).
pub fn apply(store: &mut dyn Store, env: &Env, jobs: Vec<Box<dyn Job>>) -> Vec<Box<dyn Job>> {
    apply_sealed(store, env, jobs, &mut |_| {}, &mut |_| Vec::new())
}

/// [`apply`], with `seal` run on the group's store after the operations and before the commit
/// (when the group is still open): what must be durable with them (`locker serve` signs the
/// checkpoint of the journal they grew). It runs in nested transactions of its own, like any
/// operation. `more(n)`, called once the group's transaction holds the write lock (with `n`
/// jobs in it), gives the jobs that arrived meanwhile, to join the group: a lock that another
/// process held makes the group larger instead of leaving them for the next one.
pub fn apply_sealed(
    store: &mut dyn Store,
    env: &Env,
    jobs: Vec<Box<dyn Job>>,
    seal: &mut dyn FnMut(&mut dyn Store),
    more: &mut dyn FnMut(usize) -> Vec<Box<dyn Job>>,
) -> Vec<Box<dyn Job>> {
    match attempt(store, env, jobs, seal, Some(more)) {
        Attempt::Ended(rest) => rest,
        // The store's next group waits for each write: it does not ask to run again.
        Attempt::Again(jobs) => match attempt(store, env, jobs, seal, None) {
            Attempt::Ended(rest) | Attempt::Again(rest) => rest,
        },
    }
}

/// How one run of a group ended.
enum Attempt {
    /// Every job that ran was finished; these did not run.
    Ended(Vec<Box<dyn Job>>),
    /// The group was undone by a write sent ahead, and nothing was finished: run these (all
    /// of them) again.
    Again(Vec<Box<dyn Job>>),
}

/// Runs `jobs`, and those `more` adds once the group holds the lock, in one group of `store`,
/// sealed by `seal`, and commits it. When the group is undone by a write the store sent ahead
/// and this is the first attempt (`more` is given), gives every job back to run again instead
/// of finishing them.
fn attempt(
    store: &mut dyn Store,
    env: &Env,
    mut jobs: Vec<Box<dyn Job>>,
    seal: &mut dyn FnMut(&mut dyn Store),
    more: Option<&mut dyn FnMut(usize) -> Vec<Box<dyn Job>>>,
) -> Attempt {
    let again = more.is_some();
    let mut group = match store.group() {
        Ok(g) => g,
        Err(e) => {
            let e = OpError::from(e);
            for j in jobs {
                j.finish(Some(e.clone()));
            }
            return Attempt::Ended(Vec::new());
        }
    };
    if let Some(more) = more {
        let n = jobs.len();
        jobs.extend(more(n));
    }
    let mut done: Vec<Box<dyn Job>> = Vec::with_capacity(jobs.len());
    let mut rest = jobs.into_iter();
    let mut lost = false;
    for mut j in rest.by_ref() {
        j.run(group.store(), env);
        done.push(j);
        if !group.is_open() {
            lost = true;
            break;
        }
    }
    if !lost {
        seal(group.store());
        lost = !group.is_open();
    }
    let undone = if lost {
        drop(group);
        Some(OpError::unavailable(
            "a storage failure undid this write before it was committed; retry",
        ))
    } else {
        let started = std::time::Instant::now();
        let committed = group.commit().err().map(OpError::from);
        if committed.is_none() {
            let took = started.elapsed();
            crate::obs::metrics::metrics().group_committed(done.len(), took);
            tracing::debug!(
                size = done.len(),
                ms = took.as_secs_f64() * 1e3,
                "group commit durable"
            );
        }
        committed
    };
    if undone.is_some() && again && store.group_runs_again() {
        tracing::debug!(size = done.len(), "a write sent ahead failed; the group runs again");
        crate::obs::metrics::metrics().commit_group_reruns.inc(&[]);
        return Attempt::Again(done.into_iter().chain(rest).collect());
    }
    for j in done {
        j.finish(undone.clone());
    }
    Attempt::Ended(rest.collect())
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;
    use crate::domain::limits::PadLimits;
    use crate::domain::secret::Secret;
    use crate::ops::{pad, verify, FixedClock, NoProgress};
    use crate::repo::Repo;

    const ENVELOPE: &[u8] = br#"{"schema":"locker.handoff.v1","task_id":"t","from_agent":"a","to_agent":"b","constraints":[],"artifacts":[],"budget_usd":null}"#;
    const CLOCK: FixedClock = FixedClock(1_800_000_000);

    fn repo() -> (tempfile::TempDir, Repo) {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let (_, repo) = crate::ops::admin::init::init(dir.path(), &CLOCK).expect("init");
        (dir, repo)
    }

    fn ctx(repo: &mut Repo) -> Ctx<'_> {
        Ctx::new(repo.store.as_mut(), Actor::operator(), &CLOCK)
    }

    type Outcomes = Arc<Mutex<Vec<(usize, OpResult<serde_json::Value>)>>>;

    /// A job that runs `f` and records its outcome as JSON under `i`.
    fn recorded<T, F>(out: &Outcomes, i: usize, f: F) -> Box<dyn Job>
    where
        T: serde::Serialize + Send + 'static,
        F: FnMut(&mut Ctx<'_>) -> OpResult<T> + Send + 'static,
    {
        let out = Arc::clone(out);
        job(Actor::operator(), f, move |r: OpResult<T>| {
            let r = r.map(|v| serde_json::to_value(v).expect("JSON"));
            out.lock().expect("not poisoned").push((i, r));
        })
    }

    fn journal_len(repo: &mut Repo) -> u64 {
        let tx = repo.store.read().expect("read");
        tx.journal_head().expect("head").map_or(0, |h| h.seq)
    }

    #[test]
    fn failing_operations_in_a_group_change_nothing_and_the_others_commit() {
        let (_dir, mut repo) = repo();
        let p = pad::create(&mut ctx(&mut repo), PadLimits::new(3600, 4).expect("limits"))
            .expect("create");
        let key = Secret::new(p.write_key.clone());
        pad::append(&mut ctx(&mut repo), &p.pad_id, Some(&key), ENVELOPE, None).expect("block 0");
        let before = journal_len(&mut repo);

        let out: Outcomes = Arc::default();
        let id = p.pad_id.clone();
        let good = |n: &'static str| {
            let (id, key) = (id.clone(), key.clone());
            move |c: &mut Ctx<'_>| pad::append(c, &id, Some(&key), n.as_bytes(), None)
        };
        let wrong = Secret::new("not the key");
        let id2 = id.clone();
        let jobs = vec![
            recorded(&out, 0, good("one")),
            recorded(&out, 1, move |c| pad::append(c, &id2, Some(&wrong), b"x", None)),
            recorded(&out, 2, good("two")),
            recorded(&out, 3, |_c: &mut Ctx<'_>| -> OpResult<()> { panic!("a bug") }),
            recorded(&out, 4, good("three")),
            // The pad holds 4 blocks: this one is over its quota.
            recorded(&out, 5, good("four")),
        ];
        let env =
            Env { clock: Arc::new(CLOCK), settings: crate::ops::Settings::default(), log: None };
        let rest = apply(repo.store.as_mut(), &env, jobs);
        assert!(rest.is_empty());

        let mut got = out.lock().expect("not poisoned").drain(..).collect::<Vec<_>>();
        got.sort_by_key(|(i, _)| *i);
        let seqs: Vec<Option<u64>> =
            got.iter().map(|(_, r)| r.as_ref().ok().and_then(|v| v["seq"].as_u64())).collect();
        assert_eq!(seqs, [Some(1), None, Some(2), None, Some(3), None]);
        let codes: Vec<Option<&str>> =
            got.iter().map(|(_, r)| r.as_ref().err().map(|e| e.code.as_ref())).collect();
        assert_eq!(
            codes,
            [None, Some("unauthorized"), None, Some("internal"), None, Some("conflict")]
        );
        assert_eq!(journal_len(&mut repo), before + 3, "one entry per accepted append");
        let report = verify::repository(&mut ctx(&mut repo), None, &NoProgress).expect("verify");
        assert!(report.ok, "{:?}", report.problems);
    }

    #[test]
    fn nothing_in_a_group_is_visible_before_its_commit_and_a_dropped_group_keeps_nothing() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let (_, mut repo) = crate::ops::admin::init::init(dir.path(), &CLOCK).expect("init");
        let mut other = Repo::open_root(dir.path()).expect("a second connection");
        let before = journal_len(&mut repo);
        let limits = PadLimits::default();
        {
            let mut g = repo.store.group().expect("group");
            let mut c = Ctx::new(g.store(), Actor::operator(), &CLOCK);
            pad::create(&mut c, limits).expect("create");
            pad::create(&mut c, limits).expect("create");
            assert_eq!(journal_len(&mut other), before, "not visible before the commit");
            drop(g);
        }
        assert_eq!(journal_len(&mut repo), before, "a dropped group keeps nothing");
        let mut g = repo.store.group().expect("group");
        let mut c = Ctx::new(g.store(), Actor::operator(), &CLOCK);
        pad::create(&mut c, limits).expect("create");
        pad::create(&mut c, limits).expect("create");
        assert!(g.is_open());
        g.commit().expect("commit");
        assert_eq!(journal_len(&mut other), before + 2, "visible once committed");
        assert!(other.store.group().expect("group").store().group().is_err());
    }

    #[test]
    fn writes_that_arrive_while_a_group_begins_join_it() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let (_, mut repo) = crate::ops::admin::init::init(dir.path(), &CLOCK).expect("init");
        let mut other = Repo::open_root(dir.path()).expect("a second connection");
        let before = journal_len(&mut repo);
        let out: Outcomes = Arc::default();
        let create = |c: &mut Ctx<'_>| pad::create(c, PadLimits::default());
        let env =
            Env { clock: Arc::new(CLOCK), settings: crate::ops::Settings::default(), log: None };
        let mut asked = Vec::new();
        let rest = apply_sealed(
            repo.store.as_mut(),
            &env,
            vec![recorded(&out, 0, create)],
            &mut |_| {},
            &mut |n| {
                asked.push(n);
                // The group has begun: nothing of it is committed yet.
                assert_eq!(journal_len(&mut other), before);
                vec![recorded(&out, 1, create), recorded(&out, 2, create)]
            },
        );
        assert!(rest.is_empty());
        assert_eq!(asked, [1], "asked once, with the one job it had");
        let got = out.lock().expect("not poisoned").drain(..).collect::<Vec<_>>();
        assert_eq!(got.len(), 3);
        assert!(got.iter().all(|(_, r)| r.is_ok()), "{got:?}");
        assert_eq!(journal_len(&mut other), before + 3, "all three in the one commit");
    }
}
