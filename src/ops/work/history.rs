//! `locker lease history WORK`: every journal entry of one work item with its integrity verdict,
//! and the work item's stored lease, plan and step rows checked against the journal's account of
//! them (replayed by `crate::ops::verify::work`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::domain::digest::Digest;
use crate::domain::event::{subject, DecodeError, Event};
use crate::domain::journal::{self, Entry};
use crate::ops::verify::work::{check_store, WorkReplay};
use crate::ops::work::access::{check_work, read_work};
use crate::ops::{ErrorKind, OpError, OpResult};
use crate::store::{JournalQuery, JournalRow, Tx};

/// One journal entry of a work item's history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HistoryEntry {
    pub seq: u64,
    pub time: i64,
    pub kind: String,
    pub actor: String,
    pub hash: Digest,
    /// Whether this entry is intact: its bytes match its hash, it links to its neighbours,
    /// and it is consistent with the entries before it.
    pub ok: bool,
    /// The entry's body, from its hashed bytes (`null` when they do not parse).
    #[schemars(schema_with = "crate::ops::log::journal::body_schema")]
    pub body: Value,
}

/// Something broken in a work item's history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HistoryProblem {
    /// The journal entry, when the problem is one.
    pub seq: Option<u64>,
    pub detail: String,
}

/// `lease history WORK`.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct History {
    pub scope: String,
    pub work: String,
    /// `ok` or `broken`.
    pub integrity: String,
    pub ok: bool,
    /// Every lease, plan, step and transition of the work item, oldest first.
    pub entries: Vec<HistoryEntry>,
    /// The first broken entry (or row), if any.
    pub first_broken: Option<HistoryProblem>,
    pub problems: Vec<HistoryProblem>,
}

fn neighbour(tx: &dyn Tx, seq: u64, before: bool) -> OpResult<Option<JournalRow>> {
    let q = JournalQuery {
        before: before.then_some(seq),
        after: (!before).then_some(seq),
        ascending: !before,
        limit: 1,
        ..JournalQuery::default()
    };
    Ok(tx.journal(&q)?.pop())
}

/// Checks one entry's hash, its links to the entries on either side and its columns.
fn check_row(tx: &dyn Tx, row: &JournalRow, problems: &mut Vec<String>) -> OpResult<Option<Entry>> {
    let seq = row.seq;
    match neighbour(tx, seq, true)? {
        None if seq == 1 && row.prev_hash == Digest::ZERO => {}
        Some(p) if p.seq + 1 == seq && p.hash == row.prev_hash => {}
        Some(p) if p.seq + 1 != seq => {
            problems.push(format!("entry {} before entry {seq} is missing", seq - 1));
        }
        _ => problems.push(format!("entry {seq} does not link to the entry before it")),
    }
    match neighbour(tx, seq, false)? {
        Some(n) if n.seq == seq + 1 && n.prev_hash == row.hash => {}
        Some(n) if n.seq != seq + 1 => {
            problems.push(format!("entry {} after entry {seq} is missing", seq + 1));
        }
        Some(_) => problems.push(format!("entry {} does not link to entry {seq}", seq + 1)),
        None => match tx.journal_head()? {
            Some(h) if h.seq == seq && h.hash == row.hash => {}
            _ => problems.push(format!(
                "entry {seq} is the last stored entry but not the journal's head: the tail was truncated"
            )),
        },
    }
    if journal::link(&row.prev_hash, &row.entry) != row.hash {
        problems.push(format!("entry {seq} has been altered: its hash does not match its bytes"));
        return Ok(None);
    }
    let Ok(e) = Entry::decode(&row.entry) else {
        problems.push(format!("entry {seq} is not a valid journal entry"));
        return Ok(None);
    };
    let columns = e.seq == row.seq
        && e.time == row.time
        && e.kind == row.kind
        && e.actor == row.actor
        && e.scope == row.scope
        && e.subject == row.subject;
    if !columns {
        problems.push(format!("entry {seq}'s columns differ from its hashed bytes"));
    }
    Ok(Some(e))
}

/// Every journal entry `q` matches, oldest first, read a page at a time.
fn all_entries(tx: &dyn Tx, mut q: JournalQuery) -> OpResult<Vec<JournalRow>> {
    q.ascending = true;
    q.limit = 1000;
    let mut rows = Vec::new();
    loop {
        let page = tx.journal(&q)?;
        let Some(last) = page.last() else { break };
        q.after = Some(last.seq);
        rows.extend(page);
    }
    Ok(rows)
}

/// Every journal entry of the work item with its integrity verdict, and its stored rows
/// checked against them.
pub fn history(ctx: &mut crate::ops::Ctx<'_>, work: &str) -> OpResult<History> {
    check_work(work)?;
    let scope = ctx.actor.scope.clone();
    read_work(ctx, work, |tx, _| {
        let q = JournalQuery {
            subject: Some(subject::work(work)),
            scope: Some(scope.clone()),
            ..JournalQuery::default()
        };
        let rows = all_entries(tx, q)?;
        if rows.is_empty() && tx.newest_lease(&scope, work)?.is_none() {
            return Err(OpError::new(
                ErrorKind::NotFound,
                "work_not_found",
                format!("work item {work} has no history"),
            )
            .with("work", work)
            .hint("If it should have one, run `locker verify` to check the whole journal."));
        }
        let mut replay = WorkReplay::default();
        let mut problems: Vec<HistoryProblem> = Vec::new();
        let mut entries = Vec::with_capacity(rows.len());
        for row in rows {
            let mut found = Vec::new();
            let e = check_row(tx, &row, &mut found)?;
            if let Some(e) = &e {
                match e.event() {
                    Ok(ev) => {
                        if let Some(Some(p)) = replay.apply(e, &ev) {
                            found.push(p);
                        }
                    }
                    Err(DecodeError::Malformed { .. }) => {
                        found.push(crate::ops::log::journal::malformed_body(e));
                    }
                    Err(DecodeError::UnknownKind(_)) => {}
                }
            }
            entries.push(HistoryEntry {
                seq: row.seq,
                time: row.time,
                kind: row.kind.clone(),
                actor: row.actor.clone(),
                hash: row.hash,
                ok: found.is_empty(),
                body: e.map_or(Value::Null, |e| e.body),
            });
            problems.extend(
                found.into_iter().map(|detail| HistoryProblem { seq: Some(row.seq), detail }),
            );
        }
        // What `locker gc` pruned of this work item is recorded in `repo.gc` entries.
        let q = JournalQuery {
            kind: Some(crate::domain::event::kind::REPO_GC.to_owned()),
            ..JournalQuery::default()
        };
        for row in all_entries(tx, q)? {
            let mut found = Vec::new();
            if let Some(e) = check_row(tx, &row, &mut found)? {
                let (applied, problem) = match e.event() {
                    Ok(Event::RepoGc(gc)) => replay.apply_gc(&e, &gc, Some((&scope, work))),
                    _ => (0, Some(crate::ops::log::journal::malformed_body(&e))),
                };
                found.extend(problem);
                if applied == 0 {
                    continue;
                }
            }
            problems.extend(
                found.into_iter().map(|detail| HistoryProblem { seq: Some(row.seq), detail }),
            );
        }
        check_store(tx, &replay, Some((&scope, work)), &mut |_, _, detail| {
            problems.push(HistoryProblem { seq: None, detail });
        })?;
        let ok = problems.is_empty();
        Ok(History {
            scope: scope.clone(),
            work: work.to_owned(),
            integrity: if ok { "ok" } else { "broken" }.to_owned(),
            ok,
            entries,
            first_broken: problems.first().cloned(),
            problems,
        })
    })
}
