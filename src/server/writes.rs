//! The server's writes: group commits on the writer thread, or, on SQLite when no other write
//! is in flight, on the request's own thread; and the maintenance thread that folds SQLite's
//! write-ahead log in after them.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::publish::{Publisher, StoreOpener};
use crate::ops::group::{self, Job};
use crate::ops::{self, Env, OpError};
use crate::store::Store;

/// Most operations committed in one group.
const MAX_GROUP: usize = 256;

/// Where the server's writes go: the writer thread's queue, or the committer itself.
pub(super) struct Writes {
    queue: std::sync::mpsc::Sender<Box<dyn Job>>,
    /// Writes submitted and not yet answered (queued, committing, or given back to commit
    /// again).
    active: Arc<AtomicUsize>,
    committer: Arc<Mutex<Committer>>,
    /// Whether a request may commit on its own thread (SQLite: a commit is a local `fsync`;
    /// PostgreSQL's client must not block a runtime's worker).
    inline: bool,
    after: Arc<AfterGroup>,
    pub(super) thread: Arc<Mutex<Option<std::thread::JoinHandle<()>>>>,
}

impl Writes {
    /// Starts the writer and the maintenance threads on stores from `open`. `inline`: see
    /// [`Writes::submit`].
    pub(super) fn start(
        open: &Arc<StoreOpener>,
        env: &Env,
        publisher: Arc<Publisher>,
        inline: bool,
    ) -> Self {
        let (queue, jobs) = std::sync::mpsc::channel();
        let (kick, kicks) = std::sync::mpsc::sync_channel(1);
        let committer = Arc::new(Mutex::new(Committer {
            open: Arc::clone(open),
            env: env.clone(),
            store: None,
            last_signed: None,
        }));
        let after = Arc::new(AfterGroup { publisher, kick });
        let thread = {
            let (committer, after) = (Arc::clone(&committer), Arc::clone(&after));
            std::thread::Builder::new()
                .name("locker-writer".into())
                .spawn(move || writer(&jobs, &committer, &after))
                .ok()
        };
        {
            let open = Arc::clone(open);
            let _ = std::thread::Builder::new()
                .name("locker-maintain".into())
                .spawn(move || maintainer(&kicks, &open));
        }
        let active = Arc::new(AtomicUsize::new(0));
        Self { queue, active, committer, inline, after, thread: Arc::new(Mutex::new(thread)) }
    }

    /// Commits `job` in a group: on this thread, as a group of one, when the store allows it
    /// and no other write is in flight (the writer thread would commit it alone at once, so
    /// the hop to it and back is all it would add); otherwise in the writer thread's next
    /// group, so that writes that come together share one commit. Either way `job` is
    /// finished once its group is durable. `Err` gives the job back when the server is
    /// shutting down.
    ///
    /// On this thread (a runtime's worker) the commit never waits for another process's write
    /// lock: the group begins without waiting, and a write that finds the lock held goes to
    /// the writer thread, which waits for it. A worker blocked on that wait stalled the whole
    /// server, for up to a minute: the worker that a request's bytes wake runs the task they
    /// woke without waking the other worker, so no thread was left polling the sockets and
    /// not even `/healthz` was answered (`tests/cli/serve.rs`). The commit's own work, its
    /// `fsync` included, still holds the worker. `tokio::task::block_in_place`, which would
    /// not, hands the worker's tasks to another thread at every call, and cost more than the
    /// hop to the writer thread (docs/performance.md). Measured (docs/performance.md, stop
    /// 38): sequential 200-byte appends cost about a sixth less server CPU this way; 16
    /// clients the same.
    pub(super) fn submit(&self, job: Box<dyn Job>) -> Result<(), Box<dyn Job>> {
        let alone = self.active.fetch_add(1, Ordering::SeqCst) == 0;
        let job = Counted::wrap(job, &self.active);
        if self.inline && alone {
            if let Ok(mut c) = self.committer.try_lock() {
                let lone = Lone::wrap(job, self.queue.clone());
                let left = crate::store::begin_without_waiting(|| {
                    c.commit(vec![lone], &mut |_| Vec::new())
                });
                drop(c);
                self.after.grew();
                // A storage failure before the job ran: the writer thread runs it again on a
                // fresh connection.
                for j in left {
                    self.queue.send(j).map_err(|e| e.0)?;
                }
                return Ok(());
            }
        }
        self.queue.send(job).map_err(|e| e.0)
    }
}

/// A write tried on a request's thread: when its group could not begin at once there because
/// another process held the write lock, it is sent to the writer thread (which waits for the
/// lock) instead of being answered `busy`. Anywhere else (the writer thread, after a storage
/// failure gave it back) a `busy` is the answer.
struct Lone {
    job: Option<Box<dyn Job>>,
    ran: bool,
    tried_on: std::thread::ThreadId,
    writer: std::sync::mpsc::Sender<Box<dyn Job>>,
}

impl Lone {
    fn wrap(job: Box<dyn Job>, writer: std::sync::mpsc::Sender<Box<dyn Job>>) -> Box<dyn Job> {
        let tried_on = std::thread::current().id();
        Box::new(Self { job: Some(job), ran: false, tried_on, writer })
    }
}

impl Job for Lone {
    fn run(&mut self, store: &mut dyn Store, env: &Env) {
        self.ran = true;
        if let Some(j) = self.job.as_mut() {
            j.run(store, env);
        }
    }

    fn finish(mut self: Box<Self>, undone: Option<OpError>) {
        let Some(job) = self.job.take() else { return };
        let here = std::thread::current().id() == self.tried_on;
        if here && !self.ran && undone.as_ref().is_some_and(|e| e.code == "busy") {
            if let Err(back) = self.writer.send(job) {
                back.0.finish(Some(OpError::unavailable("the server is shutting down")));
            }
        } else {
            job.finish(undone);
        }
    }
}

/// A write counted in [`Writes::active`] until it is answered (or dropped unanswered, which
/// only a server shutting down does).
struct Counted {
    job: Option<Box<dyn Job>>,
    active: Option<Arc<AtomicUsize>>,
}

impl Counted {
    fn wrap(job: Box<dyn Job>, active: &Arc<AtomicUsize>) -> Box<dyn Job> {
        Box::new(Self { job: Some(job), active: Some(Arc::clone(active)) })
    }

    fn uncount(&mut self) {
        if let Some(a) = self.active.take() {
            a.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

impl Job for Counted {
    fn run(&mut self, store: &mut dyn Store, env: &Env) {
        if let Some(j) = self.job.as_mut() {
            j.run(store, env);
        }
    }

    fn finish(mut self: Box<Self>, undone: Option<OpError>) {
        // Before the answer: the caller's next write finds none in flight.
        self.uncount();
        if let Some(j) = self.job.take() {
            j.finish(undone);
        }
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.uncount();
    }
}

/// What follows a group commit: the signer and the maintainer are told (both coalesce).
struct AfterGroup {
    publisher: Arc<Publisher>,
    kick: std::sync::mpsc::SyncSender<()>,
}

impl AfterGroup {
    fn grew(&self) {
        // The journal may have grown: a checkpoint is due; and housekeeping.
        self.publisher.grew();
        let _ = self.kick.try_send(());
    }
}

/// The store every group commit runs on, and when a checkpoint was last signed in one.
struct Committer {
    open: Arc<StoreOpener>,
    env: Env,
    store: Option<Box<dyn Store>>,
    last_signed: Option<Instant>,
}

impl Committer {
    /// Applies `jobs`, and those `more` gives once the group holds the write lock, in one
    /// group commit and finishes them; gives back those a storage failure kept from running
    /// (the connection is then dropped, and the next group opens a fresh one).
    fn commit(
        &mut self,
        jobs: Vec<Box<dyn Job>>,
        more: &mut dyn FnMut(usize) -> Vec<Box<dyn Job>>,
    ) -> Vec<Box<dyn Job>> {
        let s = match self.store.as_mut() {
            Some(s) => s,
            None => match (self.open)().and_then(|mut s| {
                // Checkpoints are left to the maintainer thread; a store without housekeeping
                // (PostgreSQL) has none to defer.
                if let Some(m) = s.maintenance() {
                    m.defer_maintenance()?;
                }
                Ok(s)
            }) {
                Ok(s) => self.store.insert(s),
                Err(e) => {
                    for j in jobs {
                        j.finish(Some(e.clone()));
                    }
                    return Vec::new();
                }
            },
        };
        let (env, last_signed) = (&self.env, &mut self.last_signed);
        // The checkpoint of the journal the group grew is signed in the group, durable with
        // its writes, when one is due (at most every `SIGN_EVERY`): an Ed25519 signature, two
        // consistency proofs and a checkpoint row per append would more than double an
        // append's CPU. What grows in between is signed by the publisher's next round, which a
        // reader of checkpoints waits for; the high-water mark follows on that thread.
        let mut seal = |store: &mut dyn Store| {
            let Some(log) = env.log.as_ref() else { return };
            if last_signed.is_some_and(|t| t.elapsed() < super::publish::SIGN_EVERY) {
                return;
            }
            let mut ctx = env.ctx(store, ops::Actor::operator());
            match ops::log::checkpoint::sign_in_group(&mut ctx, log) {
                Ok(Some(_)) => *last_signed = Some(Instant::now()),
                Ok(None) => {}
                Err(e) => {
                    tracing::warn!("the journal grew but no checkpoint was signed: {}", e.detail);
                }
            }
        };
        let span = tracing::debug_span!("group", size = jobs.len());
        let left = span.in_scope(|| group::apply_sealed(s.as_mut(), env, jobs, &mut seal, more));
        if !left.is_empty() {
            tracing::warn!(
                left = left.len(),
                "a storage failure ended a group commit early; retrying the writes it did not \
                 run on a fresh connection"
            );
            self.store = None;
        }
        left
    }
}

/// The writer thread: takes the first queued write, then every other one already queued (up
/// to [`MAX_GROUP`]), applies them in one group commit and answers them; repeats until every
/// sender is gone. Writes that arrive while a group is being made durable wait for the next
/// one, so under load each commit (each `fsync`) serves many writes, and a lone write is
/// committed at once.
fn writer(
    jobs: &std::sync::mpsc::Receiver<Box<dyn Job>>,
    committer: &Mutex<Committer>,
    after: &AfterGroup,
) {
    let mut pending: Vec<Box<dyn Job>> = Vec::new();
    loop {
        if pending.is_empty() {
            match jobs.recv() {
                Ok(j) => pending.push(j),
                Err(_) => return,
            }
        }
        while pending.len() < MAX_GROUP {
            match jobs.try_recv() {
                Ok(j) => pending.push(j),
                Err(_) => break,
            }
        }
        let Ok(mut c) = committer.lock() else {
            // A panic while committing (here or on a request's thread) poisoned the committer:
            // nothing more can be written. The writer stops as if it had panicked itself, so
            // that `/health` says so and later writes are refused at once.
            for j in pending.drain(..) {
                j.finish(Some(OpError::internal("the writer stopped")));
            }
            return;
        };
        // Writes that came while the group waited for the write lock (held by another server
        // on the same PostgreSQL database) join it.
        let mut more = |have: usize| jobs.try_iter().take(MAX_GROUP.saturating_sub(have)).collect();
        pending = c.commit(std::mem::take(&mut pending), &mut more);
        drop(c);
        after.grew();
    }
}

/// The maintenance thread: after writes, runs the store's deferred housekeeping (SQLite's
/// WAL checkpoints) on a connection of its own, at most every 50 ms, so that no write waits
/// for it. Stops with the writer.
fn maintainer(kicks: &std::sync::mpsc::Receiver<()>, open: &StoreOpener) {
    let mut store: Option<Box<dyn Store>> = None;
    while kicks.recv().is_ok() {
        if store.is_none() {
            store = open().ok();
        }
        // A store without housekeeping (PostgreSQL) has nothing to run.
        if let Some(m) = store.as_mut().and_then(|s| s.maintenance()) {
            // A checkpoint that cannot run now (another is running) runs after the next write.
            let _ = m.maintain();
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;

    use super::*;
    use crate::ops::{Actor, FixedClock, OpResult, Settings};

    const CLOCK: FixedClock = FixedClock(1_800_000_000);

    /// A repository and [`Writes`] on it (`inline` as given), with no log key (no signer).
    fn writes(inline: bool) -> (tempfile::TempDir, Writes) {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let (_, repo) = crate::ops::admin::init::init(dir.path(), &CLOCK).expect("init");
        let (url, dot) = (repo.config.store_location(), repo.dot.clone());
        let open: Arc<StoreOpener> =
            Arc::new(Box::new(move || Ok(crate::store::open(&url, &dot)?)));
        let env = Env { clock: Arc::new(CLOCK), settings: Settings::default(), log: None };
        let publisher = Arc::new(Publisher::start(Arc::clone(&open), &env, Vec::new()));
        (dir, Writes::start(&open, &env, publisher, inline))
    }

    /// What a job saw: the thread it ran on and the journal's length after its own entry.
    type Seen = (Option<String>, u64);

    /// A gate a job stops at: it says it has started, then waits to be let through.
    type Gate = (mpsc::Sender<()>, mpsc::Receiver<()>);

    /// A job that appends a journal entry (creates a pad), stops at `gate` if given, and sends
    /// where it ran once its group is durable.
    fn job(mut gate: Option<Gate>, seen: mpsc::Sender<OpResult<Seen>>) -> Box<dyn Job> {
        group::job(
            Actor::operator(),
            move |ctx| {
                if let Some((started, through)) = gate.take() {
                    let _ = started.send(());
                    let _ = through.recv();
                }
                let limits = crate::domain::limits::PadLimits::new(3600, 4).expect("limits");
                crate::ops::pad::create(ctx, limits)?;
                let len = ctx.store.read()?.journal_head()?.map_or(0, |h| h.seq);
                Ok((std::thread::current().name().map(str::to_owned), len))
            },
            move |r| {
                let _ = seen.send(r);
            },
        )
    }

    #[test]
    fn a_lone_write_commits_on_its_own_thread_when_it_may() {
        let (_dir, w) = writes(true);
        let (tx, rx) = mpsc::channel();
        assert!(w.submit(job(None, tx.clone())).is_ok());
        // Finished before `submit` returned, on this thread.
        let (thread, first) = rx.try_recv().expect("answered at once").expect("committed");
        assert_eq!(thread.as_deref(), std::thread::current().name());
        assert!(w.submit(job(None, tx)).is_ok());
        let (_, second) = rx.try_recv().expect("answered at once").expect("committed");
        assert_eq!(second, first + 1);

        // Where the store must not block a request's thread, the writer thread commits.
        let (_dir, w) = writes(false);
        let (tx, rx) = mpsc::channel();
        assert!(w.submit(job(None, tx)).is_ok());
        let (thread, _) = rx.recv().expect("answered").expect("committed");
        assert_eq!(thread.as_deref(), Some("locker-writer"));
    }

    #[test]
    fn writes_that_come_while_one_commits_wait_for_the_writer_thread() {
        let (_dir, w) = writes(true);
        let w = Arc::new(w);
        let (tx, rx) = mpsc::channel();
        // A write held inside its commit on another thread (inline: it holds the committer).
        let (open_gate, through) = mpsc::channel();
        let (started, running) = mpsc::channel();
        let held = {
            let (w, tx) = (Arc::clone(&w), tx.clone());
            std::thread::Builder::new()
                .name("held".into())
                .spawn(move || assert!(w.submit(job(Some((started, through)), tx)).is_ok()))
                .expect("a thread")
        };
        running.recv().expect("the held write runs");
        // Three more come meanwhile: none may commit on this thread, and none is lost.
        for _ in 0..3 {
            assert!(w.submit(job(None, tx.clone())).is_ok());
        }
        assert!(rx.try_recv().is_err(), "nothing is answered before its group is durable");
        open_gate.send(()).expect("the held write waits");
        held.join().expect("the held write's thread");
        let mut seen: Vec<Seen> =
            (0..4).map(|_| rx.recv().expect("answered").expect("committed")).collect();
        seen.sort_by_key(|s| s.1);
        assert_eq!(seen[0].0.as_deref(), Some("held"));
        for s in &seen[1..] {
            assert_eq!(s.0.as_deref(), Some("locker-writer"), "{seen:?}");
        }
        let lens: Vec<u64> = seen.iter().map(|s| s.1).collect();
        assert_eq!(lens, (lens[0]..lens[0] + 4).collect::<Vec<_>>(), "one entry each, in turn");
        // The queue is empty again: once the writer thread lets go of the committer (it
        // answers before it does), the next lone write commits on its own thread.
        assert_eq!(w.active.load(Ordering::SeqCst), 0);
        while w.committer.try_lock().is_err() {
            std::thread::yield_now();
        }
        assert!(w.submit(job(None, tx)).is_ok());
        let (thread, _) = rx.try_recv().expect("answered at once").expect("committed");
        assert_eq!(thread.as_deref(), std::thread::current().name());
    }

    #[test]
    fn a_lone_write_that_finds_the_lock_held_waits_on_the_writer_thread_not_here() {
        let (dir, w) = writes(true);
        let other = rusqlite::Connection::open(dir.path().join(".locker").join("locker.db"))
            .expect("another connection");
        other.execute_batch("BEGIN IMMEDIATE").expect("it takes the write lock");
        let (tx, rx) = mpsc::channel();
        let start = Instant::now();
        assert!(w.submit(job(None, tx.clone())).is_ok());
        // Handed to the writer thread at once (waiting here for the lock would have taken
        // up to the busy handler's minute), and not refused as busy either.
        assert!(start.elapsed() < Duration::from_secs(5), "{:?}", start.elapsed());
        assert!(rx.try_recv().is_err(), "nothing is answered while the lock is held");
        other.execute_batch("ROLLBACK").expect("it lets go");
        let (thread, _) = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("answered")
            .expect("committed once the lock was free");
        assert_eq!(thread.as_deref(), Some("locker-writer"));
        // The next lone write commits on this thread again.
        while w.active.load(Ordering::SeqCst) != 0 || w.committer.try_lock().is_err() {
            std::thread::yield_now();
        }
        assert!(w.submit(job(None, tx)).is_ok());
        let (thread, _) = rx.try_recv().expect("answered at once").expect("committed");
        assert_eq!(thread.as_deref(), std::thread::current().name());
    }

    #[test]
    fn a_panic_while_committing_stops_the_writer_and_refuses_later_writes() {
        let (_dir, w) = writes(true);
        let w = Arc::new(w);
        let poison = Arc::clone(&w);
        let panicked = std::thread::spawn(move || {
            let _held = poison.committer.lock();
            panic!("a commit went wrong");
        })
        .join();
        assert!(panicked.is_err());
        let (tx, rx) = mpsc::channel();
        // The write cannot commit on this thread (the committer is poisoned): the writer
        // thread refuses it and stops.
        assert!(w.submit(job(None, tx.clone())).is_ok());
        let e = rx.recv().expect("answered").expect_err("refused");
        assert_eq!(e.kind, crate::ops::ErrorKind::Internal, "{e:?}");
        let thread = w.thread.lock().expect("the handle").take().expect("a writer thread");
        let deadline = Instant::now() + Duration::from_secs(10);
        while !thread.is_finished() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(thread.is_finished(), "the writer thread stopped");
        thread.join().expect("the writer stopped without a panic of its own");
        // Later writes are given back at once (the server answers 503), and none stays
        // counted as in flight.
        assert!(w.submit(job(None, tx)).is_err());
        assert_eq!(w.active.load(Ordering::SeqCst), 0);
        assert!(rx.try_recv().is_err(), "a write given back is not answered as committed");
    }
}
