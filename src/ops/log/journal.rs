//! Writing and reading the journal.

use serde::Serialize;
use serde_json::Value;

use crate::domain::digest::Digest;
use crate::domain::event::Event;
use crate::domain::journal::{self, Entry};
use crate::ops::{Ctx, OpError, OpResult};
use crate::store::{JournalQuery, JournalRow, Tx};

/// Appends one event to the journal inside `tx`, as an entry whose kind, subject and body the
/// event gives: the next sequence number and the chain hash are taken under the transaction's
/// write lock, so the chain never forks, and the entry's leaf joins the journal's Merkle tree
/// in the same transaction.
pub fn append(
    tx: &mut dyn Tx,
    actor: &crate::ops::Actor,
    time: i64,
    event: impl Into<Event>,
) -> OpResult<JournalRow> {
    let event = event.into();
    let head = tx.journal_head()?;
    let (seq, prev) = head.map_or((1, Digest::ZERO), |h| (h.seq + 1, h.hash));
    let entry = Entry {
        v: journal::VERSION,
        seq,
        time,
        kind: event.kind().to_owned(),
        actor: actor.name.clone(),
        scope: actor.scope.clone(),
        subject: event.subject(),
        body: event.body(),
    };
    let bytes = entry.encode();
    let row = JournalRow {
        seq,
        prev_hash: prev,
        hash: journal::link(&prev, &bytes),
        entry: bytes,
        time,
        kind: entry.kind,
        actor: entry.actor,
        scope: entry.scope,
        subject: entry.subject,
    };
    let (start, hashes) = crate::ops::log::on_append(tx, &row)?;
    tx.append_journal(&row, start, &hashes)?;
    Ok(row)
}

/// The problem of an intact entry whose body does not decode as its kind says.
pub(crate) fn malformed_body(e: &Entry) -> String {
    format!("entry {} ({}) has a malformed body", e.seq, e.kind)
}

/// One journal entry as shown by `locker log` and the HTTP journal route.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct LogEntry {
    pub seq: u64,
    pub time: i64,
    pub kind: String,
    pub actor: String,
    pub scope: String,
    pub subject: String,
    /// The entry's body (`null` when its stored bytes do not decode).
    #[schemars(schema_with = "body_schema")]
    pub body: Value,
    pub prev_hash: Digest,
    pub hash: Digest,
}

pub(crate) fn body_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"anyOf": [{"type": "object"}, {"type": "null"}]})
}

impl LogEntry {
    /// The entry as stored. The body is taken from the hashed bytes, never from the index
    /// columns; an entry whose bytes do not parse is shown with a `null` body.
    pub fn from_row(row: JournalRow) -> Self {
        let body = Entry::decode(&row.entry).map(|e| e.body).unwrap_or(Value::Null);
        Self {
            seq: row.seq,
            time: row.time,
            kind: row.kind,
            actor: row.actor,
            scope: row.scope,
            subject: row.subject,
            body,
            prev_hash: row.prev_hash,
            hash: row.hash,
        }
    }
}

/// A page of the journal.
#[derive(Debug, Clone, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct LogPage {
    pub entries: Vec<LogEntry>,
}

/// Most entries one call returns.
pub const MAX_LOG_LIMIT: u64 = 10_000;

/// Reads journal entries matching `q`, newest first unless `q.ascending`.
pub fn log(ctx: &mut Ctx<'_>, q: &JournalQuery) -> OpResult<LogPage> {
    if q.limit == 0 || q.limit > MAX_LOG_LIMIT {
        return Err(OpError::unprocessable(format!("limit must be between 1 and {MAX_LOG_LIMIT}"))
            .hint(
                "Page through a longer journal: newest first with `--before SEQ` (the oldest seq \
                 shown), or oldest first with `--reverse --after SEQ` (the newest seq shown).",
            ));
    }
    let tx = ctx.store.read()?;
    crate::ops::authorize(tx.as_ref(), &ctx.actor)?;
    // An agent sees only its own scope's entries.
    let scoped;
    let q = if ctx.actor.is_operator() {
        q
    } else {
        scoped = JournalQuery { scope: Some(ctx.actor.scope.clone()), ..q.clone() };
        &scoped
    };
    let rows = tx.journal(q)?;
    Ok(LogPage { entries: rows.into_iter().map(LogEntry::from_row).collect() })
}

/// Calls `f` with every journal entry matching `base` (its subject and kind), oldest first,
/// each checked against its own hash and its columns.
pub fn for_each_entry(
    tx: &dyn Tx,
    base: &JournalQuery,
    f: &mut dyn FnMut(&JournalRow, Result<Entry, String>),
) -> OpResult<()> {
    let mut after = None;
    loop {
        let q = JournalQuery { after, ascending: true, limit: 1000, ..base.clone() };
        let rows = tx.journal(&q)?;
        let Some(last) = rows.last() else { break };
        after = Some(last.seq);
        for row in &rows {
            if journal::link(&row.prev_hash, &row.entry) != row.hash {
                let what = format!(
                    "entry {} has been altered: its hash does not match its bytes",
                    row.seq
                );
                f(row, Err(what));
                continue;
            }
            match Entry::decode(&row.entry) {
                Ok(e)
                    if base.subject.as_ref().is_none_or(|s| *s == e.subject)
                        && base.kind.as_ref().is_none_or(|k| *k == e.kind) =>
                {
                    f(row, Ok(e));
                }
                _ => f(row, Err(format!("entry {}'s bytes do not match its columns", row.seq))),
            }
        }
    }
    Ok(())
}
