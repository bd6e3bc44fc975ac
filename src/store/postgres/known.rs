//! What the open write transaction has read or written of the journal's head, the journal's
//! Merkle tree and the repository's settings, kept so that the next operation of the same
//! transaction (the next request of a group commit) need not ask PostgreSQL again.
//!
//! It is true only while the journal's lock is held, and only of what this transaction did:
//! every write transaction takes that lock before its first statement (`Conn::begin_write`), so
//! no other process writes these rows until it ends. [`Known::begin`] empties it when any
//! transaction begins (another process may have written since the last one), and
//! [`Known::forget`] when a savepoint is rolled back (what it wrote is undone, what it read
//! may be too). A read transaction keeps nothing: it holds no lock.

use std::collections::HashMap;

use crate::domain::digest::Digest;
use crate::store::JournalHead;

/// Most Merkle hashes kept at once: one append reads and writes a few (its height's worth), so
/// this covers any group; a bulk load (`store copy`) goes over it and is simply not kept.
const MAX_HASHES: usize = 4096;

/// What the open write transaction knows (see the module's documentation).
#[derive(Debug, Default)]
pub(super) struct Known {
    /// The open transaction holds the journal's lock: what it reads stays true until it ends.
    locked: bool,
    /// `Some(head)` once read or written (`Some(None)`: an empty journal).
    head: Option<Option<JournalHead>>,
    /// How many hashes the stored Merkle tree has, once read.
    merkle_count: Option<u64>,
    /// Stored Merkle hashes by position, as read or written.
    merkle: HashMap<u64, Digest>,
    /// Repository settings by name, as read or written (`None`: no such setting).
    settings: HashMap<String, Option<String>>,
    /// Every setting was read: one not in `settings` does not exist.
    all_settings: bool,
}

impl Known {
    /// A transaction begins: nothing is known, and what it reads is kept only if it holds the
    /// journal's lock (`locked`).
    pub(super) fn begin(&mut self, locked: bool) {
        *self = Self { locked, ..Self::default() };
    }

    /// Forgets everything (a savepoint was rolled back); the transaction still holds its lock.
    pub(super) fn forget(&mut self) {
        self.begin(self.locked);
    }

    pub(super) fn head(&self) -> Option<Option<JournalHead>> {
        self.head
    }

    pub(super) fn set_head(&mut self, head: Option<JournalHead>) {
        if self.locked {
            self.head = Some(head);
        }
    }

    pub(super) fn merkle_count(&self) -> Option<u64> {
        self.merkle_count
    }

    pub(super) fn set_merkle_count(&mut self, n: u64) {
        if self.locked {
            self.merkle_count = Some(n);
        }
    }

    pub(super) fn merkle_hash(&self, idx: u64) -> Option<Digest> {
        self.merkle.get(&idx).copied()
    }

    pub(super) fn add_merkle_hash(&mut self, idx: u64, hash: Digest) {
        if !self.locked {
            return;
        }
        if self.merkle.len() >= MAX_HASHES {
            self.merkle.clear();
        }
        self.merkle.insert(idx, hash);
    }

    /// `hashes` were stored from position `start` on.
    pub(super) fn stored_merkle_hashes(&mut self, start: u64, hashes: &[Digest]) {
        let end = start + hashes.len() as u64;
        // The count moves only from a known count that `start` continues.
        self.merkle_count = self.merkle_count.filter(|&n| n == start).map(|_| end);
        if hashes.len() <= MAX_HASHES / 2 {
            for (idx, h) in (start..).zip(hashes) {
                self.add_merkle_hash(idx, *h);
            }
        }
    }

    pub(super) fn setting(&self, name: &str) -> Option<Option<String>> {
        match self.settings.get(name) {
            Some(v) => Some(v.clone()),
            None if self.all_settings => Some(None),
            None => None,
        }
    }

    /// Every setting there is, as just read.
    pub(super) fn set_all_settings(&mut self, settings: Vec<(String, String)>) {
        if self.locked {
            self.settings = settings.into_iter().map(|(n, v)| (n, Some(v))).collect();
            self.all_settings = true;
        }
    }

    pub(super) fn set_setting(&mut self, name: &str, value: Option<String>) {
        if self.locked {
            self.settings.insert(name.to_owned(), value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(seq: u64) -> JournalHead {
        JournalHead { seq, hash: Digest::of(&seq.to_be_bytes()) }
    }

    #[test]
    fn a_read_transaction_keeps_nothing() {
        let mut k = Known::default();
        k.begin(false);
        k.set_head(Some(head(1)));
        k.set_merkle_count(1);
        k.add_merkle_hash(0, Digest::ZERO);
        k.set_setting("a", Some("b".into()));
        k.set_all_settings(vec![("c".into(), "d".into())]);
        assert_eq!(k.head(), None);
        assert_eq!(k.merkle_count(), None);
        assert_eq!(k.merkle_hash(0), None);
        assert_eq!(k.setting("a"), None);
    }

    #[test]
    fn forgetting_or_beginning_again_empties_it() {
        let mut k = Known::default();
        k.begin(true);
        k.set_head(Some(head(3)));
        k.set_setting("a", None);
        assert_eq!(k.head(), Some(Some(head(3))));
        assert_eq!(k.setting("a"), Some(None));
        k.forget();
        assert_eq!(k.head(), None);
        assert_eq!(k.setting("a"), None);
        k.set_head(None);
        assert_eq!(k.head(), Some(None), "still locked after forgetting");
        k.begin(true);
        assert_eq!(k.head(), None);
    }

    #[test]
    fn once_every_setting_was_read_a_missing_one_is_known_missing() {
        let mut k = Known::default();
        k.begin(true);
        assert_eq!(k.setting("absent"), None, "not known before they were read");
        k.set_all_settings(vec![("repo.id".into(), "r".into())]);
        assert_eq!(k.setting("repo.id"), Some(Some("r".into())));
        assert_eq!(k.setting("absent"), Some(None));
        k.set_setting("absent", Some("now".into()));
        assert_eq!(k.setting("absent"), Some(Some("now".into())));
        k.forget();
        assert_eq!(k.setting("repo.id"), None, "forgotten with the rest");
    }

    #[test]
    fn stored_hashes_move_a_known_count_and_are_kept() {
        let mut k = Known::default();
        k.begin(true);
        let hs = [Digest::of(b"a"), Digest::of(b"b")];
        k.stored_merkle_hashes(4, &hs);
        assert_eq!(k.merkle_count(), None, "an unknown count stays unknown");
        assert_eq!(k.merkle_hash(5), Some(hs[1]));
        k.set_merkle_count(6);
        k.stored_merkle_hashes(6, &hs);
        assert_eq!(k.merkle_count(), Some(8));
        k.stored_merkle_hashes(9, &hs);
        assert_eq!(k.merkle_count(), None, "a gap makes the count unknown");
    }
}
