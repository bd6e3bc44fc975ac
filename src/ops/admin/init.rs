//! `locker init`.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::domain::event::RepoInit;
use crate::ops::{Actor, Clock, OpResult};
use crate::repo::{self, Initialized, Repo};

/// What `init` did.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct InitOutcome {
    /// The `.locker/` directory.
    pub path: PathBuf,
    pub repository_id: String,
    /// `false` when the repository already existed (nothing was changed).
    pub created: bool,
    /// Where the repository's data is: `sqlite:locker.db`, or a PostgreSQL URL.
    pub store: String,
    /// `true` when `.locker/` was made for a shared database that already held the repository
    /// (another host's `locker init --store`): it joined it, and the database is unchanged.
    pub joined: bool,
}

/// Creates a repository in `root`, or reports the one already there.
pub fn init(root: &Path, clock: &dyn Clock) -> OpResult<(InitOutcome, Repo)> {
    init_with(root, clock, None)
}

/// [`init`] with its store: `None` for SQLite inside `.locker/`, or a PostgreSQL database
/// (which may already hold the repository: the new `.locker/` then joins it).
pub fn init_with(
    root: &Path,
    clock: &dyn Clock,
    store: Option<&crate::store::StoreUrl>,
) -> OpResult<(InitOutcome, Repo)> {
    let now = clock.now();
    let mut joined = false;
    let result = repo::init_with(root, now, store, |store, config| {
        // The journal's first entry in the store's clock, as every later one (see `Ctx::now`).
        let now = if clock.follows_the_store() { now + store.clock_offset() } else { now };
        let mut tx = store.write()?;
        if tx.journal_head()?.is_some() {
            // A shared database that holds a repository already (checked under the write
            // lock, so two hosts initialising at once make one repository).
            joined = true;
            return Ok(());
        }
        let event = RepoInit {
            repository_id: config.repository_id.clone(),
            format: u64::from(config.format),
            store: config.store.clone(),
        };
        crate::ops::log::journal::append(tx.as_mut(), &Actor::operator(), now, event)
            .map_err(|e| repo::RepoError::Invalid { path: root.to_owned(), reason: e.detail })?;
        tx.commit()?;
        Ok(())
    })?;
    let (mut repo, created) = match result {
        Initialized::Created(r) => (r, true),
        Initialized::Existing(r) => (r, false),
    };
    if created && !joined {
        // The first checkpoint, signed at once: from now on the log key's high-water mark
        // stands beside the key, and a database that loses entries is refused.
        let log = crate::ops::LogIdentity::new(&repo.dot, &repo.config);
        let mut ctx = crate::ops::Ctx::new(repo.store.as_mut(), Actor::operator(), clock);
        crate::ops::log::checkpoint::publish(&mut ctx, &log)?;
    }
    let outcome = InitOutcome {
        path: repo.dot.clone(),
        repository_id: repo.config.repository_id.clone(),
        created,
        store: repo.config.store.clone(),
        joined: created && joined,
    };
    Ok((outcome, repo))
}
