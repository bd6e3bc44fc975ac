//! What the open write transaction has read or written of the journal's head, the journal's
//! Merkle tree, the repository's settings and pads, kept so that the next operation of the
//! same transaction (the next request of a group commit) need not ask PostgreSQL again; and,
//! of the Merkle hashes and the pads, what the connection's last write transaction left, for
//! the next one.
//!
//! It is true only while the journal's lock is held: every write transaction takes that lock
//! before its first statement (`Conn::begin_write`), so no other process writes these rows
//! until it ends. [`Known::begin`] empties what is the transaction's own (head, tree size,
//! settings) when any transaction begins, and [`Known::forget`] everything when a savepoint is
//! rolled back (what it wrote is undone, what it read may be too). A read transaction is served
//! nothing: it holds no lock.
//!
//! The Merkle hashes and pads outlive a write transaction that committed, and are served to
//! the connection's next one only if the journal's head is then still the one that commit left
//! ([`Known::confirm`]): every write to those rows, by any process, appends to the journal in
//! the same transaction (a pad's append, seal or pruning; a Merkle hash only with its entry),
//! so an unmoved head means no one else wrote them. When the head moved (another server
//! wrote), the next transaction reads, in its `BEGIN` round trip, what was journaled since
//! ([`Since`]): if the journal still holds the entry that commit left, the Merkle hashes
//! stored since are added to those kept (a stored hash never changes), and of the pads only
//! those the new entries name are dropped (every pad's entry names its pad; an entry about
//! anything else drops them all). (An append's own statement checks the
//! pad's row as well, see `PadStore::append_block`, so a row changed behind locker's back
//! fails that append instead of forking its chain.)

use std::collections::HashMap;

use crate::domain::digest::Digest;
use crate::store::{JournalHead, PadRow};

/// Most Merkle hashes kept at once: one append reads and writes a few (its height's worth), so
/// this covers any group; a bulk load (`store copy`) goes over it and is simply not kept.
const MAX_HASHES: usize = 4096;
/// Most pads kept at once.
const MAX_PADS: usize = 4096;
/// Most entries journaled by others since this connection's last commit that are read to keep
/// what it knows; with more, it is dropped.
pub(super) const CATCH_UP_ENTRIES: u64 = 256;
/// Most Merkle hashes stored since then that are read: an entry adds at most two on average,
/// and one more for each level of the tree it completes.
pub(super) const CATCH_UP_HASHES: u64 = 2 * CATCH_UP_ENTRIES + 64;

/// What was journaled since the connection's last commit, read under the journal's lock (see
/// the module's documentation).
#[derive(Debug, Default)]
pub(super) struct Since {
    /// The entries from the last commit's head on (that one first, if it is still there):
    /// their position, hash and subject.
    pub entries: Vec<(u64, Digest, String)>,
    /// The Merkle hashes from the tree's size at the last commit on.
    pub hashes: Vec<(u64, Digest)>,
}

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
    /// Pads by id, as read or written.
    pads: HashMap<String, PadRow>,
    /// `merkle` and `pads` may be served: true of this transaction.
    current: bool,
    /// The journal's head that the connection's last write transaction left when it
    /// committed (`None`: none did since, or one did not commit).
    committed: Option<Option<JournalHead>>,
    /// The Merkle tree's size that commit left, when known.
    committed_count: Option<u64>,
}

impl Known {
    /// A transaction begins: nothing of its own is known, and what it reads is kept only if it
    /// holds the journal's lock (`locked`). The Merkle hashes and pads an earlier write
    /// transaction left are kept, not served until [`Known::confirm`].
    pub(super) fn begin(&mut self, locked: bool) {
        let merkle = std::mem::take(&mut self.merkle);
        let pads = std::mem::take(&mut self.pads);
        let committed = self.committed.take();
        let committed_count = self.committed_count.take();
        *self = Self { locked, merkle, pads, committed, committed_count, ..Self::default() };
    }

    /// Where what was journaled since the connection's last commit starts: the position of
    /// the entry that commit left and the Merkle tree's size then (`None`: nothing is kept
    /// that it could save).
    pub(super) fn catch_up_from(&self) -> Option<(u64, u64)> {
        match (self.committed, self.committed_count) {
            (Some(Some(head)), Some(count)) if self.locked => Some((head.seq, count)),
            _ => None,
        }
    }

    /// The write transaction just begun read the journal's head `head`, and `since` what was
    /// journaled since the last commit (when [`Known::catch_up_from`] asked for it): what the
    /// last one left is served if that is the head it committed; if not, what `since` shows
    /// others did not change is, with the Merkle hashes they stored; the rest is dropped.
    pub(super) fn confirm(&mut self, head: Option<JournalHead>, since: Option<Since>) {
        let committed = self.committed.take();
        let count = self.committed_count.take();
        if committed != Some(head) && !self.catch_up(committed, count, since) {
            self.merkle.clear();
            self.pads.clear();
        }
        self.current = self.locked;
        self.set_head(head);
    }

    /// Keeps what `since` shows no one else changed after the commit that left `committed`
    /// and a tree of `count` hashes; false when that cannot be told (nothing was committed,
    /// the entry it left is gone or different, or too much was journaled since).
    fn catch_up(
        &mut self,
        committed: Option<Option<JournalHead>>,
        count: Option<u64>,
        since: Option<Since>,
    ) -> bool {
        let (Some(Some(last)), Some(count), Some(since)) = (committed, count, since) else {
            return false;
        };
        let continues = since
            .entries
            .first()
            .is_some_and(|(seq, hash, _)| *seq == last.seq && *hash == last.hash);
        let whole = (since.entries.len() as u64) < CATCH_UP_ENTRIES + 1
            && (since.hashes.len() as u64) < CATCH_UP_HASHES;
        // The hashes must start where the tree ended and leave no gap.
        let contiguous = since.hashes.iter().zip(count..).all(|((idx, _), want)| *idx == want);
        if !(continues && whole && contiguous) {
            return false;
        }
        for (_, _, subject) in &since.entries[1..] {
            match crate::domain::event::subject::pad_id(subject) {
                Some(id) => {
                    self.pads.remove(id);
                }
                None => self.pads.clear(),
            }
        }
        if self.merkle.len() + since.hashes.len() > MAX_HASHES {
            self.merkle.clear();
        }
        self.merkle.extend(since.hashes);
        true
    }

    /// The write transaction committed: what it knows stays true for the next one, while the
    /// journal's head stays where it left it.
    pub(super) fn committed(&mut self) {
        if self.locked && self.current {
            self.committed = self.head;
            self.committed_count = self.merkle_count;
        }
    }

    /// Forgets everything (a savepoint was rolled back); the transaction still holds its lock.
    pub(super) fn forget(&mut self) {
        self.merkle.clear();
        self.pads.clear();
        let current = self.current;
        self.begin(self.locked);
        self.current = current;
    }

    fn serves(&self) -> bool {
        self.locked && self.current
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
        self.serves().then(|| self.merkle.get(&idx).copied()).flatten()
    }

    pub(super) fn add_merkle_hash(&mut self, idx: u64, hash: Digest) {
        if !self.serves() {
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

    pub(super) fn pad(&self, id: &str) -> Option<PadRow> {
        self.serves().then(|| self.pads.get(id).cloned()).flatten()
    }

    /// `pad` is the pad's row as just read or written.
    pub(super) fn set_pad(&mut self, pad: &PadRow) {
        if !self.serves() {
            return;
        }
        if self.pads.len() >= MAX_PADS {
            self.pads.clear();
        }
        self.pads.insert(pad.id.clone(), pad.clone());
    }

    /// Pad `id`'s row was changed by a statement that did not say how.
    pub(super) fn forget_pad(&mut self, id: &str) {
        self.pads.remove(id);
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
        k.confirm(None, None);
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

    fn pad(id: &str, blocks: u64) -> PadRow {
        PadRow {
            id: id.into(),
            scope: "default".into(),
            created_at: 1,
            expires_at: 2,
            max_blocks: 8,
            max_bytes: 1024,
            block_count: blocks,
            current_bytes: 0,
            state: crate::domain::pad::StoredState::Open,
            write_key_hash: Digest::ZERO,
            head_hash: Digest::of(&blocks.to_be_bytes()),
            sealed_at: None,
            pruned_at: None,
        }
    }

    /// One write transaction that wrote pad `p` and Merkle hash 7, and (`commit`) committed
    /// with the journal's head at `head`.
    fn write(k: &mut Known, head: u64, commit: bool) {
        k.begin(true);
        k.confirm(Some(self::head(head - 1)), None);
        k.set_pad(&pad("p", head));
        k.add_merkle_hash(7, Digest::of(b"h"));
        k.set_head(Some(self::head(head)));
        if commit {
            k.committed();
        }
    }

    #[test]
    fn pads_and_hashes_outlive_a_commit_while_the_head_stays_where_it_left_it() {
        let mut k = Known::default();
        write(&mut k, 5, true);
        // A read transaction in between is served nothing, and changes nothing.
        k.begin(false);
        assert_eq!(k.pad("p"), None);
        assert_eq!(k.merkle_hash(7), None);
        // Not served before the head is confirmed.
        k.begin(true);
        assert_eq!(k.pad("p"), None);
        k.confirm(Some(head(5)), None);
        assert_eq!(k.pad("p").map(|p| p.block_count), Some(5));
        assert_eq!(k.merkle_hash(7), Some(Digest::of(b"h")));
        assert_eq!(k.head(), Some(Some(head(5))));
    }

    #[test]
    fn another_writer_or_an_uncommitted_transaction_drops_what_was_kept() {
        let mut k = Known::default();
        write(&mut k, 5, true);
        k.begin(true);
        k.confirm(Some(head(6)), None);
        assert_eq!(k.pad("p"), None, "someone else moved the head");
        assert_eq!(k.merkle_hash(7), None);

        write(&mut k, 5, false);
        k.begin(true);
        k.confirm(Some(head(5)), None);
        assert_eq!(k.pad("p"), None, "the last transaction did not commit");

        write(&mut k, 5, true);
        k.forget();
        assert_eq!(k.pad("p"), None, "a savepoint rolled back forgets them too");
        k.set_pad(&pad("q", 1));
        assert!(k.pad("q").is_some(), "and the transaction goes on keeping what it reads");
        k.forget_pad("q");
        assert_eq!(k.pad("q"), None);
    }

    /// A write transaction that read pads `p` and `q` and stored Merkle hash 7 (the tree had
    /// 7), and committed with the head at 5.
    fn committed_at_5(k: &mut Known) {
        k.begin(true);
        k.confirm(Some(head(4)), None);
        k.set_merkle_count(7);
        k.set_pad(&pad("p", 1));
        k.set_pad(&pad("q", 1));
        k.stored_merkle_hashes(7, &[Digest::of(b"7")]);
        k.set_head(Some(head(5)));
        k.committed();
    }

    fn since(entries: &[(u64, &str)], hashes: std::ops::Range<u64>) -> Since {
        Since {
            entries: entries.iter().map(|&(seq, s)| (seq, head(seq).hash, s.into())).collect(),
            hashes: hashes.map(|i| (i, Digest::of(&i.to_be_bytes()))).collect(),
        }
    }

    #[test]
    fn what_others_journaled_since_drops_the_pads_it_names_and_adds_the_hashes_they_stored() {
        let mut k = Known::default();
        committed_at_5(&mut k);
        k.begin(true);
        assert_eq!(k.catch_up_from(), Some((5, 8)), "from the head and tree it left");
        k.confirm(Some(head(7)), Some(since(&[(5, "pad:p"), (6, "pad:q"), (7, "pad:r")], 8..12)));
        assert!(k.pad("p").is_some(), "named only by its own committed entry");
        assert_eq!(k.pad("q"), None, "another server appended to it");
        assert_eq!(k.merkle_hash(7), Some(Digest::of(b"7")));
        assert_eq!(k.merkle_hash(11), Some(Digest::of(&11u64.to_be_bytes())));
        assert_eq!(k.head(), Some(Some(head(7))));

        // An entry about something else than a pad drops every pad, and keeps the hashes.
        committed_at_5(&mut k);
        k.begin(true);
        k.confirm(Some(head(6)), Some(since(&[(5, "pad:p"), (6, "repo")], 8..10)));
        assert_eq!(k.pad("p"), None);
        assert_eq!(k.merkle_hash(9), Some(Digest::of(&9u64.to_be_bytes())));
    }

    #[test]
    fn what_others_journaled_since_is_not_trusted_unless_it_continues_what_was_committed() {
        let cases: [(&str, Since); 4] = [
            ("the committed entry is gone", since(&[(6, "pad:q")], 8..10)),
            ("the committed entry differs", {
                let mut s = since(&[(5, "pad:p"), (6, "pad:q")], 8..10);
                s.entries[0].1 = Digest::ZERO;
                s
            }),
            ("the hashes leave a gap", since(&[(5, "pad:p"), (6, "pad:q")], 9..11)),
            ("too much was journaled", {
                let n = CATCH_UP_ENTRIES + 1;
                let names: Vec<(u64, &str)> = (5..5 + n).map(|i| (i, "pad:q")).collect();
                since(&names, 8..10)
            }),
        ];
        for (what, since) in cases {
            let mut k = Known::default();
            committed_at_5(&mut k);
            k.begin(true);
            k.confirm(Some(head(6)), Some(since));
            assert_eq!(k.pad("p"), None, "{what}");
            assert_eq!(k.merkle_hash(7), None, "{what}");
        }
        // And nothing is asked for after a transaction that did not commit.
        let mut k = Known::default();
        committed_at_5(&mut k);
        k.begin(true);
        k.confirm(Some(head(5)), None);
        k.begin(true);
        assert_eq!(k.catch_up_from(), None);
    }
}
