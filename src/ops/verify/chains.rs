//! Walking a pad's stored chain block by block: its links and hashes recomputed from the
//! payloads, and running digests of what the journal also records (hashes, lengths, content
//! types, times), to be compared with the journal's record of the pad in `pads`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::domain::chain::ChainChecker;
use crate::domain::digest::{Digest, Hasher};
use crate::domain::event::subject;
use crate::ops::{OpResult, Progress};
use crate::store::{BlockRef, Flow, PadRow, StoreError, Tx};

use super::Findings;

/// Feeds one block's hash and length to a pad's running digest of them.
pub(super) fn feed_hashes(h: &mut Hasher, seq: u64, curr_hash: &Digest, bytes: u64) {
    h.update(&seq.to_be_bytes());
    h.update(&curr_hash.0);
    h.update(&bytes.to_be_bytes());
}

/// Feeds one block's unhashed fields to a pad's running metadata digest. Every field has a
/// fixed width but the content type, which is fed after its length, so the stream of fields
/// has one reading.
pub(super) fn feed_meta(h: &mut Hasher, seq: u64, content_type: &str, created_at: i64) {
    h.update(&seq.to_be_bytes());
    h.update(&(content_type.len() as u64).to_be_bytes());
    h.update(content_type.as_bytes());
    h.update(&created_at.to_be_bytes());
}

/// What walking one pad's stored blocks found. The walk needs nothing from the journal, so
/// `locker verify` walks every pad on a second connection while it reads the journal
/// ([`walk_chains`]); what the journal then says of the pad is applied by [`report_chain`].
pub(super) struct ChainWalk {
    /// Blocks verified before the first problem (all of them when the chain is intact).
    pub(super) verified: u64,
    /// The head recomputed from the payloads.
    pub(super) computed: Digest,
    /// The digest of the blocks' unhashed fields (see [`feed_meta`]).
    pub(super) meta: Digest,
    /// The digest of the blocks' hashes and lengths (see [`feed_hashes`]).
    pub(super) hashes: Digest,
    /// Blocks whose payloads were pruned.
    pub(super) pruned: u64,
    /// The numbers of the first pruned blocks (as many as a report lists): a problem unless
    /// the journal records the pad as pruned.
    pruned_seqs: Vec<u64>,
    /// What the chain itself gets wrong, in block order: `(block, description)`.
    problems: Vec<(Option<u64>, String)>,
    /// Whether a stored block could not be read, so the walk stopped there (the digests
    /// above cover the blocks before it).
    pub(super) unreadable: bool,
}

/// One pad's chain part-way through a walk, fed its stored blocks in sequence order.
#[derive(Default)]
struct Walking {
    checker: ChainChecker,
    verified: u64,
    meta: Hasher,
    hashes: Hasher,
    pruned_seqs: Vec<u64>,
}

impl Walking {
    fn feed(&mut self, b: &BlockRef<'_>) {
        let bytes = match b.pruned_bytes {
            Some(n) => {
                if self.pruned_seqs.len() < super::MAX_LISTED_PROBLEMS {
                    self.pruned_seqs.push(b.seq);
                }
                self.checker.pruned_block(b.seq, &b.prev_hash, &b.curr_hash, n);
                n
            }
            None => {
                self.checker.block(b.seq, &b.prev_hash, &b.curr_hash, b.payload);
                b.payload.len() as u64
            }
        };
        if self.checker.is_clean() {
            self.verified += 1;
        }
        feed_meta(&mut self.meta, b.seq, b.content_type, b.created_at);
        feed_hashes(&mut self.hashes, b.seq, &b.curr_hash, bytes);
    }

    /// Compares what was fed with the pad's stored head, count and size.
    fn finish(self, pad: &PadRow) -> ChainWalk {
        let Walking { checker, verified, meta, hashes, pruned_seqs } = self;
        let computed = checker.computed_head();
        let pruned = checker.pruned();
        let problems = checker
            .finish(&pad.head_hash, pad.block_count, pad.current_bytes)
            .into_iter()
            .map(|p| (p.seq(), format!("pad {}: {p}", pad.id)))
            .collect();
        let (meta, hashes) = (meta.finish(), hashes.finish());
        ChainWalk {
            verified,
            computed,
            meta,
            hashes,
            pruned,
            pruned_seqs,
            problems,
            unreadable: false,
        }
    }

    /// Stops the walk at a block that cannot be read (`why`, which names it): the one problem
    /// reported, since the count, size and head cannot be checked past it.
    fn unreadable(self, pad: &PadRow, why: &str) -> ChainWalk {
        let Walking { checker, verified, meta, hashes, pruned_seqs } = self;
        let problem = format!(
            "pad {}: a stored block cannot be read, so the chain is not checked past it: {why}",
            pad.id
        );
        ChainWalk {
            verified,
            computed: checker.computed_head(),
            meta: meta.finish(),
            hashes: hashes.finish(),
            pruned: checker.pruned(),
            pruned_seqs,
            problems: vec![(None, problem)],
            unreadable: true,
        }
    }
}

/// Walks one pad's stored chain; `advance` is told of every block walked.
fn walk_chain(tx: &dyn Tx, pad: &PadRow, advance: &mut dyn FnMut()) -> OpResult<ChainWalk> {
    let mut walking = Walking::default();
    let read = tx.for_each_block(&pad.id, &mut |b| {
        walking.feed(&b.as_ref());
        advance();
        Flow::Continue(())
    });
    match read {
        Ok(()) => Ok(walking.finish(pad)),
        // A row altered outside locker is a finding, not a failure to verify.
        Err(StoreError::Unreadable(why)) => Ok(walking.unreadable(pad, &why)),
        Err(e) => Err(e.into()),
    }
}

/// Records what a walk of `pad` found: its pruned blocks, unless the journal records the pad
/// as pruned (`pruned_by_gc`), then what its chain gets wrong.
pub(super) fn report_chain(pad: &PadRow, pruned_by_gc: bool, walk: &ChainWalk, f: &mut Findings) {
    let subject = subject::pad(&pad.id);
    if !pruned_by_gc {
        for seq in &walk.pruned_seqs {
            f.add(
                "pad",
                &subject,
                Some(*seq),
                format!(
                    "pad {} block {seq}'s payload is marked pruned, but the journal records no \
                     gc of this pad",
                    pad.id
                ),
            );
        }
        f.add_unlisted(walk.pruned - walk.pruned_seqs.len() as u64);
    }
    for (seq, detail) in &walk.problems {
        f.add("pad", &subject, *seq, detail.clone());
    }
}

/// Walks one pad's stored chain, recording every problem. `pruned_by_gc` says whether the
/// journal records the pad as pruned: only then may its blocks lack their payloads.
pub(super) fn check_pad_chain(
    tx: &dyn Tx,
    pad: &PadRow,
    pruned_by_gc: bool,
    f: &mut Findings,
    progress: &dyn Progress,
) -> OpResult<ChainWalk> {
    let walk = walk_chain(tx, pad, &mut || progress.advance(1))?;
    report_chain(pad, pruned_by_gc, &walk, f);
    Ok(walk)
}

/// Walks every stored pad's chain: the half of `locker verify` that runs on a second
/// connection beside the journal's walk. `walked` counts the blocks, for progress.
///
/// The blocks are read once in the order the store keeps them
/// ([`crate::store::PadStore::for_each_stored_block`]: a table scan, each page read once),
/// every pad's walk advanced as its blocks come. A pad whose blocks do not come in sequence
/// order is left out of the result, and the caller walks it by its own index (`check_pads`),
/// so the order only decides the speed, never a finding.
pub(super) fn walk_chains(tx: &dyn Tx, walked: &AtomicU64) -> OpResult<HashMap<String, ChainWalk>> {
    // Each pad's walk, and the last block number fed to it (`None` once out of order).
    let mut walks: HashMap<String, (Walking, Option<u64>)> = HashMap::new();
    tx.for_each_stored_block(&mut |b| {
        walked.fetch_add(1, Ordering::Relaxed);
        match walks.get_mut(b.pad_id) {
            None => {
                let mut w = Walking::default();
                w.feed(b);
                walks.insert(b.pad_id.to_owned(), (w, Some(b.seq)));
            }
            // Out of order already: left to the caller.
            Some((_, None)) => {}
            Some((w, Some(last))) if b.seq > *last => {
                w.feed(b);
                *last = b.seq;
            }
            // Out of order now: what was fed is dropped, the caller walks the pad.
            Some(walk) => *walk = (Walking::default(), None),
        }
        Flow::Continue(())
    })?;
    let mut out = HashMap::with_capacity(walks.len());
    tx.for_each_pad(&mut |pad| {
        let walk = match walks.remove(&pad.id) {
            Some((w, Some(_))) => w.finish(&pad),
            Some((_, None)) => return Flow::Continue(()),
            None => Walking::default().finish(&pad),
        };
        out.insert(pad.id, walk);
        Flow::Continue(())
    })?;
    Ok(out)
}
