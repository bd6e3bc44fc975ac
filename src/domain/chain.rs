//! The handoff-pad hash chain, byte-compatible with agent-locker 0.1.5:
//! `curr_hash = sha256(prev_hash_hex_ascii ‖ payload_bytes)`.

use std::fmt;

use super::digest::Digest;

/// The `curr_hash` of a block whose predecessor's hash is `prev` and whose payload is `payload`.
pub fn link(prev: &Digest, payload: &[u8]) -> Digest {
    let mut hex = [0u8; 64];
    prev.write_hex(&mut hex);
    Digest::of_parts(&[&hex, payload])
}

/// The head of a chain of payloads (64 zeros when empty).
pub fn head<'a>(payloads: impl IntoIterator<Item = &'a [u8]>) -> Digest {
    payloads.into_iter().fold(Digest::ZERO, |prev, p| link(&prev, p))
}

/// One inconsistency found in a stored chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChainProblem {
    /// A block's sequence number is not the next one.
    Sequence { expected: u64, found: u64 },
    /// A block's `prev_hash` is not its predecessor's `curr_hash`.
    PrevLink { seq: u64, expected: Digest, found: Digest },
    /// A block's stored `curr_hash` is not the hash of its payload.
    Hash { seq: u64, stored: Digest, computed: Digest },
    /// The stored head is not the last block's hash.
    Head { stored: Digest, computed: Digest },
    /// The stored block count differs from the blocks present.
    Count { stored: u64, found: u64 },
    /// The stored byte count differs from the sum of the payloads.
    Bytes { stored: u64, found: u64 },
}

impl ChainProblem {
    /// The block the problem is in, if it is in one.
    pub fn seq(&self) -> Option<u64> {
        match self {
            Self::Sequence { found, .. } => Some(*found),
            Self::PrevLink { seq, .. } | Self::Hash { seq, .. } => Some(*seq),
            Self::Head { .. } | Self::Count { .. } | Self::Bytes { .. } => None,
        }
    }
}

impl fmt::Display for ChainProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Sequence { expected, found } => {
                write!(f, "block {found} is out of sequence (expected block {expected})")
            }
            Self::PrevLink { seq, expected, found } => write!(
                f,
                "block {seq} prev_hash {found} does not link to the previous block's hash {expected}"
            ),
            Self::Hash { seq, stored, computed } => write!(
                f,
                "block {seq} curr_hash {stored} does not match its payload (recomputed {computed})"
            ),
            Self::Head { stored, computed } => {
                write!(f, "head_hash {stored} is not the last block's hash {computed}")
            }
            Self::Count { stored, found } => {
                write!(f, "block count {stored} does not match the {found} blocks stored")
            }
            Self::Bytes { stored, found } => write!(
                f,
                "byte count {stored} does not match the {found} payload bytes stored"
            ),
        }
    }
}

/// Checks a stored chain block by block, in constant memory.
#[derive(Debug)]
pub struct ChainChecker {
    next_seq: u64,
    fed: u64,
    pruned: u64,
    prev: Digest,
    bytes: u64,
    problems: Vec<ChainProblem>,
}

impl Default for ChainChecker {
    fn default() -> Self {
        Self::new()
    }
}

impl ChainChecker {
    pub fn new() -> Self {
        Self { next_seq: 0, fed: 0, pruned: 0, prev: Digest::ZERO, bytes: 0, problems: Vec::new() }
    }

    /// Feeds the next stored block (in storage order).
    pub fn block(&mut self, seq: u64, prev_hash: &Digest, curr_hash: &Digest, payload: &[u8]) {
        self.link(seq, prev_hash);
        let computed = link(prev_hash, payload);
        if computed != *curr_hash {
            self.problems.push(ChainProblem::Hash { seq, stored: *curr_hash, computed });
        }
        self.advance(seq, curr_hash, payload.len() as u64);
    }

    /// Feeds the next stored block whose payload was pruned (it had `bytes` bytes): its
    /// sequence number and its link to the block before it are checked, its hash cannot be.
    pub fn pruned_block(&mut self, seq: u64, prev_hash: &Digest, curr_hash: &Digest, bytes: u64) {
        self.link(seq, prev_hash);
        self.pruned += 1;
        self.advance(seq, curr_hash, bytes);
    }

    fn link(&mut self, seq: u64, prev_hash: &Digest) {
        if seq != self.next_seq {
            self.problems.push(ChainProblem::Sequence { expected: self.next_seq, found: seq });
        }
        if *prev_hash != self.prev {
            self.problems.push(ChainProblem::PrevLink {
                seq,
                expected: self.prev,
                found: *prev_hash,
            });
        }
    }

    fn advance(&mut self, seq: u64, curr_hash: &Digest, bytes: u64) {
        self.prev = *curr_hash;
        self.next_seq = seq.saturating_add(1);
        self.fed += 1;
        self.bytes += bytes;
    }

    /// Blocks fed so far.
    pub fn blocks(&self) -> u64 {
        self.fed
    }

    /// Pruned blocks fed so far (their hashes were not checked).
    pub fn pruned(&self) -> u64 {
        self.pruned
    }

    /// Whether no problem has been found so far.
    pub fn is_clean(&self) -> bool {
        self.problems.is_empty()
    }

    /// The hash of the last block fed (the chain's recomputed head).
    pub fn computed_head(&self) -> Digest {
        self.prev
    }

    /// Compares the stored accounting with what was fed and returns every problem found.
    pub fn finish(
        mut self,
        stored_head: &Digest,
        stored_count: u64,
        stored_bytes: u64,
    ) -> Vec<ChainProblem> {
        if *stored_head != self.prev {
            self.problems.push(ChainProblem::Head { stored: *stored_head, computed: self.prev });
        }
        if stored_count != self.fed {
            self.problems.push(ChainProblem::Count { stored: stored_count, found: self.fed });
        }
        if stored_bytes != self.bytes {
            self.problems.push(ChainProblem::Bytes { stored: stored_bytes, found: self.bytes });
        }
        self.problems
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Independently computed: `printf '%s' "$(printf '0%.0s' {1..64})hello" | sha256sum`.
    #[test]
    fn link_matches_the_peer_formula() {
        assert_eq!(
            link(&Digest::ZERO, b"hello").to_hex(),
            "0412c7e9f60fa2bb214bf996f1c0549152cac21653247d34eac58627753d8204"
        );
        assert_eq!(head([b"hello".as_slice()]), link(&Digest::ZERO, b"hello"));
        assert_eq!(head(std::iter::empty::<&[u8]>()), Digest::ZERO);
    }

    #[test]
    fn reference_envelope_vector() {
        // agent-locker's transcript: block 0 of this exact envelope has curr_hash 7a16e7c7…36e9.
        let env = br#"{"schema":"locker.handoff.v1","task_id":"t-1","from_agent":"a","to_agent":"b","constraints":["c1"],"artifacts":[{"name":"x"}],"budget_usd":1.25}"#;
        assert_eq!(
            link(&Digest::ZERO, env).to_hex(),
            "7a16e7c76df03bfa38933b2f586696278db332895450b653b59322eb56c036e9"
        );
    }

    #[test]
    fn checker_accepts_a_good_chain_and_names_each_problem() {
        let payloads: [&[u8]; 3] = [b"a", b"bb", b"ccc"];
        let mut hashes = Vec::new();
        let mut prev = Digest::ZERO;
        for p in payloads {
            let h = link(&prev, p);
            hashes.push((prev, h));
            prev = h;
        }
        let mut c = ChainChecker::new();
        for (i, p) in payloads.iter().enumerate() {
            c.block(i as u64, &hashes[i].0, &hashes[i].1, p);
        }
        assert!(c.finish(&prev, 3, 6).is_empty());

        // A changed payload is a hash problem in that block.
        let mut c = ChainChecker::new();
        c.block(0, &hashes[0].0, &hashes[0].1, b"a");
        c.block(1, &hashes[1].0, &hashes[1].1, b"XX");
        c.block(2, &hashes[2].0, &hashes[2].1, b"ccc");
        let problems = c.finish(&prev, 3, 6);
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].seq(), Some(1));

        // A missing middle block breaks the sequence and the link, and the accounting.
        let mut c = ChainChecker::new();
        c.block(0, &hashes[0].0, &hashes[0].1, b"a");
        c.block(2, &hashes[2].0, &hashes[2].1, b"ccc");
        let problems = c.finish(&prev, 3, 6);
        assert!(matches!(problems[0], ChainProblem::Sequence { expected: 1, found: 2 }));
        assert!(problems.iter().any(|p| matches!(p, ChainProblem::Count { .. })));

        // A truncated tail is caught by the stored head.
        let mut c = ChainChecker::new();
        c.block(0, &hashes[0].0, &hashes[0].1, b"a");
        let problems = c.finish(&prev, 3, 6);
        assert!(matches!(problems[0], ChainProblem::Head { .. }));
    }

    /// Independently computed with `printf '%s' "$(printf '0%.0s' {1..64})…" | sha256sum`.
    #[test]
    fn link_edge_payloads() {
        assert_eq!(
            link(&Digest::ZERO, b"").to_hex(),
            "60e05bd1b195af2f94112fa7197a5c88289058840ce7c6df9693756bc6250f55"
        );
        let a = link(&Digest::ZERO, b"a");
        assert_eq!(a.to_hex(), "798681f5061511d34f32f43ab175a3ee7007fecfdc844295e054315b0af2d23d");
        // The predecessor enters as its 64 hex characters, not its 32 bytes.
        let e = link(&Digest::ZERO, b"");
        assert_eq!(
            link(&e, b"b").to_hex(),
            "fe8a5892b443df4cf78dfdb5056bbfe2fc1864733f55e85ae39166afad4a8148"
        );
        assert_eq!(head([b"".as_slice(), b"b"]), link(&e, b"b"));
        // A 64 KiB payload, and payloads that differ in their last byte.
        let big = vec![7u8; 65_536];
        let mut other = big.clone();
        other[65_535] = 8;
        assert_ne!(link(&Digest::ZERO, &big), link(&Digest::ZERO, &other));
    }

    fn chain(payloads: &[&[u8]]) -> Vec<(Digest, Digest)> {
        let mut prev = Digest::ZERO;
        payloads
            .iter()
            .map(|p| {
                let h = link(&prev, p);
                let pair = (prev, h);
                prev = h;
                pair
            })
            .collect()
    }

    #[test]
    fn checker_edge_cases() {
        // An empty chain: head zero, no blocks, no bytes.
        assert!(ChainChecker::new().finish(&Digest::ZERO, 0, 0).is_empty());
        let problems = ChainChecker::new().finish(&Digest::ZERO, 1, 0);
        assert_eq!(problems, vec![ChainProblem::Count { stored: 1, found: 0 }]);

        let payloads: [&[u8]; 3] = [b"x", b"yy", b"zzz"];
        let h = chain(&payloads);
        let head = h[2].1;
        // A duplicated block.
        let mut c = ChainChecker::new();
        c.block(0, &h[0].0, &h[0].1, payloads[0]);
        c.block(1, &h[1].0, &h[1].1, payloads[1]);
        c.block(1, &h[1].0, &h[1].1, payloads[1]);
        c.block(2, &h[2].0, &h[2].1, payloads[2]);
        let problems = c.finish(&head, 3, 6);
        assert!(problems.contains(&ChainProblem::Sequence { expected: 2, found: 1 }));
        assert!(problems.iter().any(|p| matches!(p, ChainProblem::PrevLink { seq: 1, .. })));
        assert!(problems.contains(&ChainProblem::Count { stored: 3, found: 4 }));
        // Block 0 that does not start from zeros.
        let mut c = ChainChecker::new();
        let fake_prev = Digest::of(b"elsewhere");
        c.block(0, &fake_prev, &link(&fake_prev, b"x"), b"x");
        let problems = c.finish(&link(&fake_prev, b"x"), 1, 1);
        assert!(matches!(problems[..], [ChainProblem::PrevLink { seq: 0, .. }]));
        // Only the byte count is wrong.
        let mut c = ChainChecker::new();
        for (i, p) in payloads.iter().enumerate() {
            c.block(i as u64, &h[i].0, &h[i].1, p);
        }
        assert_eq!(c.blocks(), 3);
        assert!(c.is_clean());
        assert_eq!(c.computed_head(), head);
        assert_eq!(c.finish(&head, 3, 7), vec![ChainProblem::Bytes { stored: 7, found: 6 }]);
        // Every problem names its block where it has one.
        let p = ChainProblem::Hash { seq: 4, stored: head, computed: head };
        assert_eq!(p.seq(), Some(4));
        assert!(p.to_string().starts_with("block 4 curr_hash "));
        assert_eq!(ChainProblem::Head { stored: head, computed: head }.seq(), None);
    }

    #[test]
    fn pruned_blocks_keep_their_links_and_lengths() {
        let payloads: [&[u8]; 3] = [b"x", b"yy", b"zzz"];
        let h = chain(&payloads);
        let head = h[2].1;
        // Block 1 pruned: its link and length still count, its hash is not checked.
        let mut c = ChainChecker::new();
        c.block(0, &h[0].0, &h[0].1, payloads[0]);
        c.pruned_block(1, &h[1].0, &h[1].1, 2);
        c.block(2, &h[2].0, &h[2].1, payloads[2]);
        assert_eq!((c.blocks(), c.pruned()), (3, 1));
        assert!(c.finish(&head, 3, 6).is_empty());
        // A pruned block whose hash was changed breaks the next block's link.
        let mut c = ChainChecker::new();
        c.pruned_block(0, &h[0].0, &Digest::of(b"forged"), 1);
        c.block(1, &h[1].0, &h[1].1, payloads[1]);
        assert!(matches!(c.finish(&h[1].1, 2, 3)[..], [ChainProblem::PrevLink { seq: 1, .. }]));
        // A wrong pruned length shows in the byte count.
        let mut c = ChainChecker::new();
        c.pruned_block(0, &h[0].0, &h[0].1, 5);
        assert_eq!(c.finish(&h[0].1, 1, 1), vec![ChainProblem::Bytes { stored: 1, found: 5 }]);
    }
}

#[cfg(test)]
mod proptests {
    use proptest::prelude::*;

    use super::*;

    /// A stored block: seq, prev, curr, payload.
    type Stored = (u64, Digest, Digest, Vec<u8>);

    fn honest(payloads: &[Vec<u8>]) -> Vec<Stored> {
        let mut prev = Digest::ZERO;
        let mut out = Vec::new();
        for (i, p) in payloads.iter().enumerate() {
            let curr = link(&prev, p);
            out.push((i as u64, prev, curr, p.clone()));
            prev = curr;
        }
        out
    }

    fn check(blocks: &[Stored], head: &Digest, count: u64, bytes: u64) -> Vec<ChainProblem> {
        let mut c = ChainChecker::new();
        for (seq, prev, curr, payload) in blocks {
            c.block(*seq, prev, curr, payload);
        }
        c.finish(head, count, bytes)
    }

    fn payloads() -> impl Strategy<Value = Vec<Vec<u8>>> {
        prop::collection::vec(prop::collection::vec(any::<u8>(), 1..64), 1..24)
    }

    proptest! {
        /// An honestly built chain checks clean, and its recomputed head is `head()`.
        #[test]
        fn an_honest_chain_is_clean(ps in payloads()) {
            let blocks = honest(&ps);
            let h = head(ps.iter().map(Vec::as_slice));
            let bytes = ps.iter().map(|p| p.len() as u64).sum();
            let mut c = ChainChecker::new();
            for (seq, prev, curr, p) in &blocks {
                c.block(*seq, prev, curr, p);
            }
            prop_assert_eq!(c.computed_head(), h);
            prop_assert!(c.finish(&h, ps.len() as u64, bytes).is_empty());
        }

        /// Any single change to a stored chain (a payload byte, a hash, a sequence number, a
        /// dropped or swapped block, the stored accounting) is found.
        #[test]
        fn every_single_change_is_found(
            ps in payloads(),
            which in any::<prop::sample::Index>(),
            kind in 0u8..7,
            byte in any::<prop::sample::Index>(),
            flip in 1u8..=255,
        ) {
            let mut blocks = honest(&ps);
            let h = head(ps.iter().map(Vec::as_slice));
            let mut count = ps.len() as u64;
            let mut bytes: u64 = ps.iter().map(|p| p.len() as u64).sum();
            let i = which.index(blocks.len());
            let mut stored_head = h;
            match kind {
                0 => {
                    let p = &mut blocks[i].3;
                    let j = byte.index(p.len());
                    p[j] ^= flip;
                }
                1 => blocks[i].2 .0[byte.index(32)] ^= flip,
                2 => blocks[i].1 .0[byte.index(32)] ^= flip,
                3 => blocks[i].0 += 1 + u64::from(flip),
                4 => {
                    blocks.remove(i);
                }
                5 => {
                    prop_assume!(blocks.len() > 1);
                    let j = (i + 1) % blocks.len();
                    blocks.swap(i, j);
                }
                _ => match flip % 3 {
                    0 => stored_head.0[byte.index(32)] ^= flip,
                    1 => count += 1,
                    _ => bytes += 1,
                },
            }
            prop_assert!(!check(&blocks, &stored_head, count, bytes).is_empty());
        }
    }
}
