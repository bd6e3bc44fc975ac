//! The journal's Merkle tree and its signed checkpoints, recomputed from the journal's leaves and
//! compared with what is stored.

use std::collections::{HashMap, HashSet};

use crate::domain::digest::Digest;
use crate::ops::OpResult;
use crate::store::{Flow, Tx};

use super::{Findings, MarkSummary, MerkleSummary};
use crate::repo::mark::Mark;

/// Recomputes the journal's Merkle tree from its leaves and compares every stored hash and
/// every signed checkpoint with it, and the journal with the log key's high-water mark.
pub(super) fn check_merkle(
    tx: &dyn Tx,
    leaves: &[Digest],
    key: Option<&crate::domain::note::Verifier>,
    mark: Option<&Mark>,
    f: &mut Findings,
) -> OpResult<(MerkleSummary, MarkSummary)> {
    use crate::domain::merkle::{stored_count, Frontier};
    use crate::domain::note::SignedCheckpoint;
    let before = f.count;
    let n = leaves.len() as u64;
    let count = tx.merkle_count()?;
    let mut checkpoints = Vec::new();
    tx.for_each_checkpoint(&mut |c| {
        checkpoints.push(c);
        Flow::Continue(())
    })?;
    let mut s = MerkleSummary {
        leaves: n,
        stored_hashes: count,
        checkpoints: checkpoints.len() as u64,
        latest_checkpoint: checkpoints.last().map(|c| c.size),
        signatures_checked: key.is_some(),
        ..MerkleSummary::default()
    };
    // The roots at the checkpoints' sizes and at the end, recomputed.
    let mut roots = HashMap::new();
    let mut fr = Frontier::default();
    let mut wanted: HashSet<u64> = checkpoints.iter().map(|c| c.size).collect();
    wanted.extend(mark.map(Mark::size));
    if wanted.contains(&0) {
        roots.insert(0, fr.root());
    }
    for leaf in leaves {
        fr.push(*leaf);
        if wanted.contains(&fr.size) {
            roots.insert(fr.size, fr.root());
        }
    }
    s.root = Some(fr.root());
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
        let expected = stored_count(n);
        if count != expected {
            f.add(
                "merkle",
                "merkle",
                None,
                format!(
                    "the Merkle tree holds {count} hashes, but a journal of {n} entries needs \
                     {expected}"
                ),
            );
        }
        // Stream the stored hashes against the recomputed ones, in stored order.
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
                        "{what} (stored at position {idx}) is {stored}, but the journal gives \
                         {want}"
                    ),
                );
                return Flow::Break(());
            }
            pos += 1;
            Flow::Continue(())
        })?;
    }
    for c in &checkpoints {
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
        if let Some(k) = key {
            if let Err(e) = SignedCheckpoint::verify(&c.note, k) {
                f.add("checkpoint", &subject, None, format!("its signature: {e}"));
            }
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
