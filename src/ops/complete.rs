//! What shell completion offers from a repository: pad ids, work items and artifact keys that
//! start with what was typed, each with a few words about it. Read from a store opened
//! read-only ([`open`]): completing never migrates, reaps, signs or writes anything, and the
//! journal is not touched.

use std::collections::BTreeMap;

use crate::domain::pad::StoredState;
use crate::repo::{Location, Repo};
use crate::store::{ArtifactQuery, Flow, PadQuery, Store};

use super::{OpError, OpResult};

/// At most this many candidates are offered (a shell asks before listing more anyway).
pub const MAX_CANDIDATES: usize = 200;

/// One value to offer, and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub value: String,
    pub help: String,
}

/// The store of the repository at `loc`, opened read-only (SQLite only).
pub fn open(loc: &Location) -> OpResult<Box<dyn Store>> {
    Repo::open_read_only(loc).map_err(OpError::from)
}

/// The values starting with `prefix`, read page by page in key order from `page(after)` (each
/// page after the key given), at most [`MAX_CANDIDATES`].
fn prefixed<T>(
    prefix: &str,
    mut page: impl FnMut(Option<String>) -> OpResult<Vec<T>>,
    key: impl Fn(&T) -> &str,
    candidate: impl Fn(T) -> Candidate,
) -> OpResult<Vec<Candidate>> {
    let mut out = Vec::new();
    // Every key starting with `prefix` sorts after `prefix` less its last character.
    let mut after = prefix.char_indices().last().map(|(i, _)| prefix[..i].to_owned());
    loop {
        let items = page(after.clone())?;
        let Some(last) = items.last() else { return Ok(out) };
        after = Some(key(last).to_owned());
        for item in items {
            if key(&item) < prefix {
                continue;
            }
            if !key(&item).starts_with(prefix) || out.len() >= MAX_CANDIDATES {
                return Ok(out);
            }
            out.push(candidate(item));
        }
    }
}

/// The pad ids starting with `prefix` (of `scope`, or every scope), in id order, with their
/// state and block count as of `now`.
pub fn pad_ids(
    store: &mut dyn Store,
    scope: Option<&str>,
    prefix: &str,
    now: i64,
) -> OpResult<Vec<Candidate>> {
    let tx = store.read()?;
    let page = |after| {
        let q = PadQuery { scope: scope.map(str::to_owned), after, limit: 500 };
        Ok(tx.pads(&q)?)
    };
    prefixed(
        prefix,
        page,
        |p| p.id.as_str(),
        |p| {
            let state = match p.state {
                StoredState::Sealed => "sealed",
                StoredState::Open if p.expires_at <= now => "expired",
                StoredState::Open => "open",
            };
            let blocks = if p.block_count == 1 { "block" } else { "blocks" };
            Candidate { help: format!("{state}, {} {blocks}", p.block_count), value: p.id }
        },
    )
}

/// The work items of `scope` starting with `prefix`, by name, with their newest lease's state
/// and holder.
pub fn work_items(store: &mut dyn Store, scope: &str, prefix: &str) -> OpResult<Vec<Candidate>> {
    let tx = store.read()?;
    let mut newest: BTreeMap<String, (u64, String)> = BTreeMap::new();
    tx.for_each_lease(&mut |l| {
        if l.scope == scope && l.work.starts_with(prefix) {
            let help = format!("{} by {} (fence {})", l.state.as_str(), l.holder, l.fence);
            let e = newest.entry(l.work).or_insert((0, String::new()));
            if l.fence >= e.0 {
                *e = (l.fence, help);
            }
        }
        Flow::Continue(())
    })?;
    let items = newest.into_iter().take(MAX_CANDIDATES);
    Ok(items.map(|(value, (_, help))| Candidate { value, help }).collect())
}

/// The artifact keys of `scope` starting with `prefix`, in key order, with their current
/// version.
pub fn artifact_keys(store: &mut dyn Store, scope: &str, prefix: &str) -> OpResult<Vec<Candidate>> {
    let tx = store.read()?;
    let page = |after| {
        let q = ArtifactQuery { scope: scope.to_owned(), after, limit: 500 };
        Ok(tx.artifact_heads(&q)?)
    };
    prefixed(
        prefix,
        page,
        |v| v.key.as_str(),
        |v| Candidate { help: format!("version {}, {} bytes", v.version, v.size), value: v.key },
    )
}
