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

/// The pad ids starting with `prefix` (of `scope`, or every scope), in id order, with their
/// state and block count as of `now`.
pub fn pad_ids(
    store: &mut dyn Store,
    scope: Option<&str>,
    prefix: &str,
    now: i64,
) -> OpResult<Vec<Candidate>> {
    let tx = store.read()?;
    let mut out = Vec::new();
    // Every id starting with `prefix` sorts after `prefix` less its last character.
    let mut after = prefix.char_indices().last().map(|(i, _)| prefix[..i].to_owned());
    'pages: loop {
        let q = PadQuery { scope: scope.map(str::to_owned), after: after.clone(), limit: 500 };
        let page = tx.pads(&q)?;
        let Some(last) = page.last() else { break };
        after = Some(last.id.clone());
        for p in page {
            if p.id.as_str() < prefix {
                continue;
            }
            if !p.id.starts_with(prefix) || out.len() >= MAX_CANDIDATES {
                break 'pages;
            }
            let state = match p.state {
                StoredState::Sealed => "sealed",
                StoredState::Open if p.expires_at <= now => "expired",
                StoredState::Open => "open",
            };
            let blocks = if p.block_count == 1 { "block" } else { "blocks" };
            out.push(Candidate {
                help: format!("{state}, {} {blocks}", p.block_count),
                value: p.id,
            });
        }
    }
    Ok(out)
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
    let mut out = Vec::new();
    let mut after = prefix.char_indices().last().map(|(i, _)| prefix[..i].to_owned());
    'pages: loop {
        let q = ArtifactQuery { scope: scope.to_owned(), after: after.clone(), limit: 500 };
        let page = tx.artifact_heads(&q)?;
        let Some(last) = page.last() else { break };
        after = Some(last.key.clone());
        for v in page {
            if v.key.as_str() < prefix {
                continue;
            }
            if !v.key.starts_with(prefix) || out.len() >= MAX_CANDIDATES {
                break 'pages;
            }
            out.push(Candidate {
                help: format!("version {}, {} bytes", v.version, v.size),
                value: v.key,
            });
        }
    }
    Ok(out)
}
