//! Group commit: several operations applied in one write transaction, made durable by one
//! commit (one `fsync`), each acknowledged only once that commit is durable.
//!
//! Every operation is the same function the CLI calls, run against the group's store
//! ([`crate::store::Group::store`]), so its own `write()` … `commit()` becomes a nested
//! transaction: an operation that fails undoes its own changes and nothing else, and one
//! that journals a rejection keeps that entry, exactly as when it runs alone. Each operation
//! still writes its own journal entry. The rules are not repeated here; this module only
//! decides what each caller is told.

use std::panic::{catch_unwind, AssertUnwindSafe};

use super::{Actor, Clock, Ctx, OpError, OpResult, Settings};
use crate::store::Store;

/// One operation waiting for a group.
pub trait Job: Send {
    /// Runs the operation on the group's store (at most once).
    fn run(&mut self, store: &mut dyn Store, clock: &dyn Clock, settings: Settings);
    /// Tells the caller the outcome once the group's fate is known: `undone` is `Some` when
    /// the group did not become durable, and is then the error a succeeded operation
    /// reports instead of its outcome.
    fn finish(self: Box<Self>, undone: Option<OpError>);
}

/// A job that runs `f` as `actor` and hands its outcome to `reply`.
pub fn job<T, F, R>(actor: Actor, f: F, reply: R) -> Box<dyn Job>
where
    T: Send + 'static,
    F: FnOnce(&mut Ctx<'_>) -> OpResult<T> + Send + 'static,
    R: FnOnce(OpResult<T>) + Send + 'static,
{
    Box::new(Pending { actor, f: Some(f), result: None, reply })
}

struct Pending<T, F, R> {
    actor: Actor,
    f: Option<F>,
    result: Option<OpResult<T>>,
    reply: R,
}

impl<T, F, R> Job for Pending<T, F, R>
where
    T: Send + 'static,
    F: FnOnce(&mut Ctx<'_>) -> OpResult<T> + Send + 'static,
    R: FnOnce(OpResult<T>) + Send + 'static,
{
    fn run(&mut self, store: &mut dyn Store, clock: &dyn Clock, settings: Settings) {
        let Some(f) = self.f.take() else { return };
        let actor = self.actor.clone();
        // A panicking operation drops its nested transaction (undoing its changes) and fails
        // alone; the others in the group go on.
        let outcome = catch_unwind(AssertUnwindSafe(move || {
            let mut ctx = Ctx::new(store, actor, clock);
            ctx.settings = settings;
            f(&mut ctx)
        }));
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
pub fn apply(
    store: &mut dyn Store,
    clock: &dyn Clock,
    settings: Settings,
    jobs: Vec<Box<dyn Job>>,
) -> Vec<Box<dyn Job>> {
    let mut group = match store.group() {
        Ok(g) => g,
        Err(e) => {
            let e = OpError::from(e);
            for j in jobs {
                j.finish(Some(e.clone()));
            }
            return Vec::new();
        }
    };
    let mut done: Vec<Box<dyn Job>> = Vec::with_capacity(jobs.len());
    let mut rest = jobs.into_iter();
    let mut lost = false;
    for mut j in rest.by_ref() {
        j.run(group.store(), clock, settings);
        done.push(j);
        if !group.is_open() {
            lost = true;
            break;
        }
    }
    let undone = if lost {
        drop(group);
        Some(OpError::unavailable(
            "a storage failure undid this write before it was committed; retry",
        ))
    } else {
        group.commit().err().map(OpError::from)
    };
    for j in done {
        j.finish(undone.clone());
    }
    rest.collect()
}
