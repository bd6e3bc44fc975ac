//! The journal's entries as `locker verify` walks them: each row checked against the one
//! before it and against its own bytes, decoded and replayed ([`decode_entry`]), and handed
//! to the Merkle tree's thread in batches ([`LeafBatch`]).

use crate::domain::digest::Digest;
use crate::domain::event::{DecodeError, Event};
use crate::domain::journal::{self, Entry, EntryText};
use crate::ops::log::journal::malformed_body;
use crate::store::JournalRow;

use super::{signatures, Findings, Replay};

/// Journal entries handed to the Merkle tree's thread at a time, and batches in flight.
pub(super) const LEAF_BATCH: usize = 512;
pub(super) const LEAF_BATCHES: usize = 8;

/// Journal entries handed to the Merkle tree's thread (`entries`: their bytes in one buffer;
/// `ends`: where each ends), with their rows' `prev_hash` and `hash` (`links`, checked there
/// against the entries' bytes), and the Merkle hashes their rows hold where the store keeps
/// them there (`held`: every entry's in one buffer; each entry's sequence number and where its
/// hashes end). The tree's thread hands each batch back emptied, for the walk to fill again:
/// no allocation per entry, and none freed on another thread than the one that made it.
#[derive(Default)]
pub(super) struct LeafBatch {
    entries: Vec<u8>,
    ends: Vec<usize>,
    links: Vec<(Digest, Digest)>,
    held: Vec<u8>,
    held_ends: Vec<(u64, usize)>,
}

impl LeafBatch {
    pub(super) fn with_capacity() -> Self {
        Self {
            ends: Vec::with_capacity(LEAF_BATCH),
            links: Vec::with_capacity(LEAF_BATCH),
            ..Self::default()
        }
    }

    /// Adds one entry: its bytes, its row's links, and the Merkle hashes its row holds.
    pub(super) fn push(&mut self, row: &JournalRow, held: &[u8]) {
        self.entries.extend_from_slice(&row.entry);
        self.ends.push(self.entries.len());
        self.links.push((row.prev_hash, row.hash));
        if !held.is_empty() {
            self.held.extend_from_slice(held);
            self.held_ends.push((row.seq, self.held.len()));
        }
    }

    pub(super) fn len(&self) -> usize {
        self.ends.len()
    }

    /// Each entry's bytes, with its row's links.
    pub(super) fn entries(&self) -> impl Iterator<Item = (&[u8], &(Digest, Digest))> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(&self.ends).map(|(start, &end)| &self.entries[start..end]).zip(&self.links)
    }

    /// Each entry's sequence number with the Merkle hashes its row holds (entries whose row
    /// holds none are left out).
    pub(super) fn held(&self) -> impl Iterator<Item = (u64, &[u8])> {
        let starts = std::iter::once(0).chain(self.held_ends.iter().map(|&(_, end)| end));
        starts.zip(&self.held_ends).map(|(start, &(seq, end))| (seq, &self.held[start..end]))
    }

    pub(super) fn clear(&mut self) {
        self.entries.clear();
        self.ends.clear();
        self.links.clear();
        self.held.clear();
        self.held_ends.clear();
    }
}

/// The walk's state that [`decode_entry`] advances, entry by entry.
pub(super) struct Walked<'a> {
    f: &'a mut Findings,
    replay: &'a mut Replay,
    signatures: &'a mut signatures::Replay,
    /// The entry being replayed: one, filled again for each (its text keeps its buffers).
    entry: Entry,
}

impl<'a> Walked<'a> {
    pub(super) fn new(
        f: &'a mut Findings,
        replay: &'a mut Replay,
        signatures: &'a mut signatures::Replay,
    ) -> Self {
        Self { f, replay, signatures, entry: Entry::default() }
    }
}

/// Checks one journal row the walk read ([`check_entry`]) and replays it.
pub(super) fn decode_entry(
    row: &JournalRow,
    expected_seq: u64,
    prev: &Digest,
    link: Link,
    w: &mut Walked<'_>,
) {
    let Some(event) = check_entry(row, expected_seq, prev, link, w.f, &mut w.entry) else {
        return;
    };
    let e = &w.entry;
    match event {
        Ok(ev) => {
            if let Some(problem) = w.replay.apply(e, &ev) {
                w.f.add("journal", "journal", Some(row.seq), problem);
            }
            for problem in w.signatures.apply(e, &ev).1 {
                w.signatures.summary.broken += 1;
                w.f.add("signature", &e.subject, Some(row.seq), problem);
            }
        }
        Err(DecodeError::Malformed { .. }) => {
            w.f.add("journal", "journal", Some(row.seq), malformed_body(e));
        }
        Err(DecodeError::UnknownKind(_)) => {}
    }
}

/// Whether [`check_entry`] recomputes an entry's hash from its bytes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Link {
    /// Here: an entry whose bytes do not match its hash is reported and not decoded.
    Check,
    /// Elsewhere: on the Merkle tree's thread, which hashes the same bytes anyway. The walk
    /// decodes every entry, and is walked again with [`Link::Check`] if one did not match.
    CheckedBeside,
}

/// Checks one journal row against its predecessor; when its bytes are intact (or, with
/// [`Link::CheckedBeside`], taken to be), puts the entry in `e` (its body left out: replay
/// reads the event) and returns its event.
fn check_entry(
    row: &JournalRow,
    expected_seq: u64,
    prev: &Digest,
    link: Link,
    f: &mut Findings,
    e: &mut Entry,
) -> Option<Result<Event, DecodeError>> {
    let seq = Some(row.seq);
    if row.seq != expected_seq {
        f.add(
            "journal",
            "journal",
            seq,
            format!("entry {expected_seq} is missing: the next stored entry is {}", row.seq),
        );
    }
    if row.prev_hash != *prev {
        f.add(
            "journal",
            "journal",
            seq,
            format!("entry {} does not link to the entry before it", row.seq),
        );
    }
    if link == Link::Check && journal::link(&row.prev_hash, &row.entry) != row.hash {
        f.add(
            "journal",
            "journal",
            seq,
            format!("entry {} has been altered: its hash does not match its bytes", row.seq),
        );
        return None;
    }
    let Ok(t) = EntryText::parse(&row.entry) else {
        f.add("journal", "journal", seq, format!("entry {} is not a valid journal entry", row.seq));
        return None;
    };
    let mismatched = [
        ("seq", t.seq != row.seq),
        ("time", t.time != row.time),
        ("kind", t.kind != row.kind),
        ("actor", t.actor != row.actor),
        ("scope", t.scope != row.scope),
        ("subject", t.subject != row.subject),
    ];
    for (col, bad) in mismatched {
        if bad {
            f.add(
                "journal",
                "journal",
                seq,
                format!("entry {}'s `{col}` column differs from its hashed bytes", row.seq),
            );
        }
    }
    // The entry's text, as hashed, into the buffers `e` has.
    let fill = |slot: &mut String, text: &str| {
        slot.clear();
        slot.push_str(text);
    };
    (e.v, e.seq, e.time) = (t.v, t.seq, t.time);
    fill(&mut e.kind, &t.kind);
    fill(&mut e.actor, &t.actor);
    fill(&mut e.scope, &t.scope);
    fill(&mut e.subject, &t.subject);
    // Replay reads the event, not the body.
    e.body = serde_json::Value::Null;
    Some(t.event)
}
