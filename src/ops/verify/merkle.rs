//! The journal's Merkle tree and its signed checkpoints, recomputed from the journal's leaves and
//! compared with what is stored.

use std::collections::{HashMap, HashSet};

use crate::domain::digest::{Digest, Hasher};
use crate::domain::merkle::{held_by_entry, leaf_hash, stored_count, Frontier};
use crate::ops::OpResult;
use crate::store::{CheckpointRow, Flow, Tx};

use super::{Findings, MarkSummary, MerkleSummary};
use crate::repo::mark::Mark;

/// The journal's tree, recomputed one leaf at a time while the journal is walked: the roots at
/// the sizes checked afterwards (the stored checkpoints' and the high-water mark's), and a
/// running digest of every hash the store should hold, in stored order. Memory stays flat
/// however long the journal is; only when the stored hashes differ is the journal read again,
/// to name the first one that does ([`locate_stored_mismatch`]).
pub(super) struct TreeWalk {
    frontier: Frontier,
    wanted: HashSet<u64>,
    roots: HashMap<u64, Digest>,
    /// `(position, hash)` of every hash the store should hold, digested in stored order.
    expected: Hasher,
    expected_count: u64,
    /// The hashes the store holds, when they come with the entries ([`TreeWalk::push_held`]).
    held: StoredDigest,
}

impl TreeWalk {
    /// Starts a walk, reading the stored checkpoints (their sizes are where roots are kept):
    /// the walk, and the checkpoints for [`check_merkle`].
    pub(super) fn start(tx: &dyn Tx, mark: Option<&Mark>) -> OpResult<(Self, Vec<CheckpointRow>)> {
        let mut checkpoints = Vec::new();
        tx.for_each_checkpoint(&mut |c| {
            checkpoints.push(c);
            Flow::Continue(())
        })?;
        let mut wanted: HashSet<u64> = checkpoints.iter().map(|c| c.size).collect();
        wanted.extend(mark.map(Mark::size));
        let mut roots = HashMap::new();
        let frontier = Frontier::default();
        if wanted.contains(&0) {
            roots.insert(0, frontier.root());
        }
        let walk = Self {
            frontier,
            wanted,
            roots,
            expected: Hasher::default(),
            expected_count: 0,
            held: StoredDigest::default(),
        };
        Ok((walk, checkpoints))
    }

    /// The next journal entry's bytes.
    pub(super) fn push(&mut self, entry: &[u8]) {
        let Self { frontier, expected, expected_count, .. } = self;
        frontier.push_each(leaf_hash(entry), |h| {
            digest_stored(expected, *expected_count, &h);
            *expected_count += 1;
        });
        if self.wanted.contains(&self.frontier.size) {
            self.roots.insert(self.frontier.size, self.frontier.root());
        }
    }

    /// The Merkle hashes journal entry `seq`'s row holds, read with it (a store that keeps the
    /// tree in the journal's rows): what [`StoredTree::read`] would read of that entry.
    pub(super) fn push_held(&mut self, seq: u64, hashes: &[u8]) {
        for (idx, hash) in held_by_entry(seq, hashes) {
            self.held.add(idx, &hash);
        }
    }

    /// The stored tree as pushed with the entries ([`TreeWalk::push_held`]).
    pub(super) fn take_held(&mut self) -> StoredTree {
        std::mem::take(&mut self.held).finish()
    }
}

/// The stored tree's hashes, digested in stored order the way [`TreeWalk`] digests the ones the
/// journal gives (read beside the journal's walk, on a second connection, when there is one).
#[derive(Debug, PartialEq, Eq)]
pub(super) struct StoredTree {
    digest: Digest,
    count: u64,
}

impl StoredTree {
    pub(super) fn read(tx: &dyn Tx) -> OpResult<Self> {
        let mut stored = StoredDigest::default();
        tx.for_each_merkle_hash(&mut |idx, hash| {
            stored.add(idx, &hash);
            Flow::Continue(())
        })?;
        Ok(stored.finish())
    }
}

/// A [`StoredTree`] digested one stored hash at a time.
#[derive(Default)]
struct StoredDigest {
    h: Hasher,
    count: u64,
}

impl StoredDigest {
    fn add(&mut self, idx: u64, hash: &Digest) {
        digest_stored(&mut self.h, idx, hash);
        self.count += 1;
    }

    fn finish(self) -> StoredTree {
        StoredTree { digest: self.h.finish(), count: self.count }
    }
}

/// One stored hash, as the streams of expected and stored hashes are digested.
fn digest_stored(h: &mut Hasher, idx: u64, hash: &Digest) {
    h.update(&idx.to_le_bytes());
    h.update(&hash.0);
}

/// What is wrong with each checkpoint's signature by `key`, in order (`None`: it verifies):
/// the one costly part of checking the checkpoints (one Ed25519 verification each, and a busy
/// server signs one every 50 ms), so `locker verify` runs it beside the journal's walk.
pub(super) fn check_signatures(
    checkpoints: &[CheckpointRow],
    key: &crate::domain::note::Verifier,
) -> Vec<Option<String>> {
    use crate::domain::note::SignedCheckpoint;
    checkpoints
        .iter()
        .map(|c| SignedCheckpoint::verify(&c.note, key).err().map(|e| e.to_string()))
        .collect()
}

/// Compares every stored hash and every signed checkpoint with the tree the journal walk
/// recomputed, and the journal with the log key's high-water mark. `checkpoints` are the
/// stored checkpoints ([`TreeWalk::start`]), each with what is wrong with its signature by
/// `key` ([`check_signatures`]; `None` when it verifies or there is no key).
pub(super) fn check_merkle(
    tx: &dyn Tx,
    tree: TreeWalk,
    checkpoints: &[(CheckpointRow, Option<String>)],
    stored: Option<StoredTree>,
    key: Option<&crate::domain::note::Verifier>,
    mark: Option<&Mark>,
    f: &mut Findings,
) -> OpResult<(MerkleSummary, MarkSummary)> {
    use crate::domain::note::SignedCheckpoint;
    let before = f.count;
    let TreeWalk { frontier, roots, expected, expected_count, .. } = tree;
    let n = frontier.size;
    let count = tx.merkle_count()?;
    let mut s = MerkleSummary {
        leaves: n,
        stored_hashes: count,
        checkpoints: checkpoints.len() as u64,
        latest_checkpoint: checkpoints.last().map(|(c, _)| c.size),
        signatures_checked: key.is_some(),
        root: Some(frontier.root()),
        ..MerkleSummary::default()
    };
    // A repository made before the tree existed (it has no log key either) builds it on its
    // next write; one with a log key signs a checkpoint of every journal it leaves, so a
    // non-empty journal without a tree or checkpoints lost them.
    if count == 0 && checkpoints.is_empty() && n > 0 && mark.is_none() && key.is_none() {
        s.pending = true;
    } else {
        if checkpoints.is_empty() && n > 0 {
            let why = match mark {
                Some(m) => format!("the log key here signed one of {} entries", m.size()),
                None => "the repository has a log key, which signs every journal it leaves".into(),
            };
            f.add(
                "checkpoint",
                "checkpoints",
                None,
                format!(
                    "the journal has {n} entries but no signed checkpoint is stored, though \
                     {why}: the checkpoints were deleted"
                ),
            );
        }
        let want = stored_count(n);
        if count != want {
            f.add(
                "merkle",
                "merkle",
                None,
                format!(
                    "the Merkle tree holds {count} hashes, but a journal of {n} entries needs \
                     {want}"
                ),
            );
        }
        let stored = match stored {
            Some(s) => s,
            None => StoredTree::read(tx)?,
        };
        if stored.count != expected_count || stored.digest != expected.finish() {
            locate_stored_mismatch(tx, f)?;
        }
    }
    for (c, bad_signature) in checkpoints {
        let subject = format!("checkpoint:{}", c.size);
        let claimed = match SignedCheckpoint::parse_unverified(&c.note) {
            Ok(claimed) => claimed,
            Err(e) => {
                f.add("checkpoint", &subject, None, format!("its note is malformed: {e}"));
                continue;
            }
        };
        if claimed.size != c.size || claimed.root != c.root {
            f.add(
                "checkpoint",
                &subject,
                None,
                format!(
                    "its note says size {} and root {}, its row size {} and root {}",
                    claimed.size, claimed.root, c.size, c.root
                ),
            );
        }
        if let Some(e) = bad_signature {
            f.add("checkpoint", &subject, None, format!("its signature: {e}"));
        }
        match roots.get(&c.size) {
            None => f.add(
                "checkpoint",
                &subject,
                None,
                format!("it was signed for {} entries, but the journal has {n}", c.size),
            ),
            Some(root) if *root != claimed.root => f.add(
                "checkpoint",
                &subject,
                None,
                format!(
                    "it signed root {} for {} entries, but the journal gives {root}: the journal \
                     was rewritten after it was signed",
                    claimed.root, c.size
                ),
            ),
            Some(_) => {}
        }
    }
    s.ok = f.count == before;
    let m = check_mark(mark, key, &roots, n, f);
    Ok((s, m))
}

/// Names the first stored hash that differs from the one the journal gives, reading the
/// journal's leaves again (only when the digests of the two streams differ).
fn locate_stored_mismatch(tx: &dyn Tx, f: &mut Findings) -> OpResult<()> {
    let mut leaves = Vec::new();
    tx.for_each_journal(&mut |row| {
        leaves.push(leaf_hash(&row.entry));
        Flow::Continue(())
    })?;
    let mut fr = Frontier::default();
    let mut queue = std::collections::VecDeque::new();
    let mut next_leaf = leaves.iter();
    let mut pos = 0u64;
    tx.for_each_merkle_hash(&mut |idx, stored| {
        if queue.is_empty() {
            if let Some(leaf) = next_leaf.next() {
                let index = fr.size;
                for (level, h) in fr.push(*leaf).into_iter().enumerate() {
                    queue.push_back((level, index >> level, h));
                }
            }
        }
        let Some((level, node, want)) = queue.pop_front() else { return Flow::Break(()) };
        if idx != pos || stored != want {
            let what = if level == 0 {
                format!("the leaf hash of journal entry {}", node + 1)
            } else {
                format!(
                    "the level-{level} hash over entries {}..={}",
                    (node << level) + 1,
                    (node + 1) << level
                )
            };
            f.add(
                "merkle",
                "merkle",
                (level == 0).then_some(node + 1),
                format!(
                    "{what} (stored at position {idx}) is {stored}, but the journal gives {want}"
                ),
            );
            return Flow::Break(());
        }
        pos += 1;
        Flow::Continue(())
    })?;
    Ok(())
}

/// The journal against the high-water mark: as long as it, with the mark's root at its size.
fn check_mark(
    mark: Option<&Mark>,
    key: Option<&crate::domain::note::Verifier>,
    roots: &HashMap<u64, Digest>,
    n: u64,
    f: &mut Findings,
) -> MarkSummary {
    let Some(m) = mark else {
        return MarkSummary {
            ok: true,
            detail: "no high-water mark: the log key has signed no checkpoint here yet".into(),
            ..MarkSummary::default()
        };
    };
    let mut out = MarkSummary {
        ok: true,
        present: true,
        size: Some(m.size()),
        root: Some(m.root()),
        signature_checked: key.is_some(),
        detail: String::new(),
    };
    let mut problem = None;
    if let Some(k) = key {
        if let Err(e) = crate::domain::note::SignedCheckpoint::verify(&m.note, k) {
            problem = Some(format!("the high-water mark is not signed by the log key: {e}"));
        }
    }
    let rollback = crate::repo::mark::Rollback {
        mark_size: m.size(),
        mark_root: m.root(),
        journal_entries: n,
        journal_root: roots.get(&m.size()).copied(),
    };
    match roots.get(&m.size()) {
        Some(root) if *root == m.root() => {}
        _ => problem = problem.or(Some(rollback.to_string())),
    }
    match problem {
        Some(p) => {
            f.add("rollback", "journal", None, p.clone());
            out.ok = false;
            out.detail = p;
        }
        None => {
            out.detail = format!(
                "the journal extends the checkpoint the log key signed at size {}",
                m.size()
            );
        }
    }
    out
}
