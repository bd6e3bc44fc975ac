//! An RFC 6962 Merkle tree over the journal: hashing, the stored-hash layout, and inclusion and
//! consistency proofs with their verification (RFC 9162 §2.1.3.2 and §2.1.4.2).
//!
//! ```text
//! leaf hash  = SHA-256(0x00 ‖ entry bytes)
//! node hash  = SHA-256(0x01 ‖ left ‖ right)
//! empty tree = SHA-256("")
//! ```
//!
//! The leaves are the journal entries' exact stored bytes, in sequence order (entry `seq` is
//! leaf `seq - 1`). The store keeps every complete subtree's hash in the order they are
//! completed (the layout of Go's `sumdb/tlog`, after Crosby & Wallach): level `L`'s `n`-th hash
//! is stored right after level `L+1`'s `(2n+1)`-th. Appending leaf `n` writes the leaf hash
//! and one hash per trailing one bit of `n` (under two on average), and any subtree hash is one
//! read, so appends and proofs cost O(log n).

use super::digest::Digest;

/// SHA-256 of the empty string: the root of the empty tree.
pub const EMPTY_ROOT: Digest = Digest([
    0xe3, 0xb0, 0xc4, 0x42, 0x98, 0xfc, 0x1c, 0x14, 0x9a, 0xfb, 0xf4, 0xc8, 0x99, 0x6f, 0xb9, 0x24,
    0x27, 0xae, 0x41, 0xe4, 0x64, 0x9b, 0x93, 0x4c, 0xa4, 0x95, 0x99, 0x1b, 0x78, 0x52, 0xb8, 0x55,
]);

/// The most hashes a proof may hold (a tree of up to 2^63 leaves needs at most 2·63).
pub const MAX_PROOF_HASHES: usize = 128;

/// The hash of a leaf whose data is `data`.
pub fn leaf_hash(data: &[u8]) -> Digest {
    Digest::of_parts(&[&[0x00], data])
}

/// The hash of an interior node.
pub fn node_hash(left: &Digest, right: &Digest) -> Digest {
    Digest::of_parts(&[&[0x01], &left.0, &right.0])
}

/// The largest power of two smaller than `n` (`n >= 2`).
fn split(n: u64) -> u64 {
    debug_assert!(n >= 2);
    1 << (63 - (n - 1).leading_zeros())
}

/// The position in the stored-hash sequence of level `level`'s `n`-th hash.
pub fn stored_index(level: u32, n: u64) -> u64 {
    let mut n = n;
    for _ in 0..level {
        n = 2 * n + 1;
    }
    let mut i = 0;
    while n > 0 {
        i += n;
        n >>= 1;
    }
    i + u64::from(level)
}

/// How many hashes are stored for a tree of `size` leaves.
pub fn stored_count(size: u64) -> u64 {
    if size == 0 {
        return 0;
    }
    let mut count = stored_index(0, size - 1) + 1;
    let mut i = size - 1;
    while i & 1 == 1 {
        count += 1;
        i >>= 1;
    }
    count
}

/// The tree size whose stored-hash count is `count`, if `count` is one.
pub fn size_for_count(count: u64) -> Option<u64> {
    // stored_count(n) >= n.
    let n = largest_size_within(count, 0, count);
    (stored_count(n) == count).then_some(n)
}

/// The largest size in `lo..=hi` whose stored-hash count is at most `count` (`lo`'s is):
/// stored_count is strictly increasing.
fn largest_size_within(count: u64, mut lo: u64, mut hi: u64) -> u64 {
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if stored_count(mid) <= count {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// The hashes a journal entry's row holds (a store that keeps them beside the entry: the
/// 32-byte digests that appending leaf `seq - 1` stored, in order), each with its position. A
/// torn trailing part that is not a whole digest gives nothing, so a reader comparing
/// positions sees the gap.
pub fn held_by_entry(seq: u64, hashes: &[u8]) -> impl Iterator<Item = (u64, Digest)> + '_ {
    let start = stored_count(seq.saturating_sub(1));
    (start..).zip(hashes.chunks_exact(32)).map(|(i, chunk)| {
        let mut d = [0u8; 32];
        d.copy_from_slice(chunk);
        (i, Digest(d))
    })
}

/// The leaf whose append stores position `pos`, and the position's offset among the hashes that
/// append stores (the leaf hash is offset 0; see [`append_hashes`]).
pub fn leaf_for_position(pos: u64) -> (u64, u64) {
    // stored_count(n) <= pos < stored_count(n + 1); stored_count(n) is 2n minus at most 64.
    let n = largest_size_within(pos, (pos / 2).saturating_sub(1), pos / 2 + 33);
    (n, pos - stored_count(n))
}

/// The stored-hash positions whose hashes appending leaf `n` needs: the left siblings of the
/// subtrees it completes, from the lowest level up.
pub fn append_needs(n: u64) -> Vec<u64> {
    let m = (n + 1).trailing_zeros();
    (0..m).map(|i| stored_index(i, (n >> i) - 1)).collect()
}

/// The hashes appending leaf `n` with hash `leaf` stores, in order, given the hashes at the
/// positions [`append_needs`] names (in that order). They go at positions
/// `stored_count(n)..stored_count(n + 1)`.
pub fn append_hashes(leaf: Digest, siblings: &[Digest]) -> Vec<Digest> {
    let mut out = Vec::with_capacity(1 + siblings.len());
    let mut h = leaf;
    out.push(h);
    for s in siblings {
        h = node_hash(s, &h);
        out.push(h);
    }
    out
}

/// Reads stored complete-subtree hashes: `hash(level, n)` is the root of leaves
/// `n·2^level .. (n+1)·2^level`.
pub trait Hashes {
    type Error;
    fn hash(&mut self, level: u32, n: u64) -> Result<Digest, Self::Error>;
}

/// The root of leaves `lo..hi` (`lo < hi`, and the range one the RFC 6962 recursion makes).
fn range_hash<H: Hashes + ?Sized>(h: &mut H, lo: u64, hi: u64) -> Result<Digest, H::Error> {
    let width = hi - lo;
    if width.is_power_of_two() && lo.is_multiple_of(width) {
        return h.hash(width.trailing_zeros(), lo >> width.trailing_zeros());
    }
    let k = split(width);
    let left = range_hash(h, lo, lo + k)?;
    let right = range_hash(h, lo + k, hi)?;
    Ok(node_hash(&left, &right))
}

/// The root hash of the first `size` leaves.
pub fn root<H: Hashes + ?Sized>(h: &mut H, size: u64) -> Result<Digest, H::Error> {
    if size == 0 {
        return Ok(EMPTY_ROOT);
    }
    range_hash(h, 0, size)
}

/// The inclusion proof (audit path, RFC 6962 §2.1.1) of leaf `index` in the tree of `size`
/// leaves, leaf sibling first. `index < size`.
pub fn inclusion_proof<H: Hashes + ?Sized>(
    h: &mut H,
    index: u64,
    size: u64,
) -> Result<Vec<Digest>, H::Error> {
    debug_assert!(index < size);
    let mut path = Vec::new();
    path_into(h, index, 0, size, &mut path)?;
    Ok(path)
}

fn path_into<H: Hashes + ?Sized>(
    h: &mut H,
    m: u64,
    lo: u64,
    hi: u64,
    out: &mut Vec<Digest>,
) -> Result<(), H::Error> {
    if hi - lo <= 1 {
        return Ok(());
    }
    let k = split(hi - lo);
    if m - lo < k {
        path_into(h, m, lo, lo + k, out)?;
        out.push(range_hash(h, lo + k, hi)?);
    } else {
        path_into(h, m, lo + k, hi, out)?;
        out.push(range_hash(h, lo, lo + k)?);
    }
    Ok(())
}

/// The consistency proof (RFC 6962 §2.1.2) between the trees of `old` and `new` leaves
/// (`old <= new`); empty when `old` is 0 or equals `new`.
pub fn consistency_proof<H: Hashes + ?Sized>(
    h: &mut H,
    old: u64,
    new: u64,
) -> Result<Vec<Digest>, H::Error> {
    debug_assert!(old <= new);
    let mut out = Vec::new();
    if old > 0 && old < new {
        subproof(h, old, 0, new, true, &mut out)?;
    }
    Ok(out)
}

fn subproof<H: Hashes + ?Sized>(
    h: &mut H,
    m: u64,
    lo: u64,
    hi: u64,
    complete: bool,
    out: &mut Vec<Digest>,
) -> Result<(), H::Error> {
    let n = hi - lo;
    if m == n {
        if !complete {
            out.push(range_hash(h, lo, hi)?);
        }
        return Ok(());
    }
    let k = split(n);
    if m <= k {
        subproof(h, m, lo, lo + k, complete, out)?;
        out.push(range_hash(h, lo + k, hi)?);
    } else {
        subproof(h, m - k, lo + k, hi, false, out)?;
        out.push(range_hash(h, lo, lo + k)?);
    }
    Ok(())
}

/// Why a proof did not verify.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProofError {
    #[error("leaf index {index} is not below the tree size {size}")]
    IndexOutOfRange { index: u64, size: u64 },
    #[error("the old tree size {old} is larger than the new one {new}")]
    SizesReversed { old: u64, new: u64 },
    #[error("the proof has the wrong number of hashes ({got}; expected {expected})")]
    WrongLength { got: usize, expected: usize },
    #[error("the proof does not lead to the expected root hash")]
    RootMismatch,
    #[error("the old tree's root differs from the one the proof leads to")]
    OldRootMismatch,
    #[error("the two trees have the same size but different roots")]
    SameSizeDifferentRoots,
    #[error("a tree of size 0 must have the empty root")]
    BadEmptyRoot,
}

/// The number of hashes in an inclusion proof of `index` in a tree of `size`.
fn inclusion_len(index: u64, size: u64) -> usize {
    let (mut fn_, mut sn, mut len) = (index, size - 1, 0);
    while sn != 0 {
        if fn_ & 1 == 1 || fn_ != sn {
            len += 1;
        }
        fn_ >>= 1;
        sn >>= 1;
    }
    len
}

/// Checks that `proof` proves the leaf hash `leaf` at `index` in the tree of `size` leaves
/// whose root is `root` (RFC 9162 §2.1.3.2).
pub fn verify_inclusion(
    leaf: &Digest,
    index: u64,
    size: u64,
    proof: &[Digest],
    root: &Digest,
) -> Result<(), ProofError> {
    if index >= size {
        return Err(ProofError::IndexOutOfRange { index, size });
    }
    let expected = inclusion_len(index, size);
    if proof.len() != expected {
        return Err(ProofError::WrongLength { got: proof.len(), expected });
    }
    let (mut fn_, mut sn, mut r) = (index, size - 1, *leaf);
    for p in proof {
        if sn == 0 {
            return Err(ProofError::WrongLength { got: proof.len(), expected });
        }
        if fn_ & 1 == 1 || fn_ == sn {
            r = node_hash(p, &r);
            if fn_ & 1 == 0 {
                while fn_ & 1 == 0 && fn_ != 0 {
                    fn_ >>= 1;
                    sn >>= 1;
                }
            }
        } else {
            r = node_hash(&r, p);
        }
        fn_ >>= 1;
        sn >>= 1;
    }
    if sn != 0 || r != *root {
        return Err(ProofError::RootMismatch);
    }
    Ok(())
}

/// Checks that `proof` proves the tree of `old` leaves with root `old_root` is a prefix of the
/// tree of `new` leaves with root `new_root` (RFC 9162 §2.1.4.2).
pub fn verify_consistency(
    old: u64,
    new: u64,
    old_root: &Digest,
    new_root: &Digest,
    proof: &[Digest],
) -> Result<(), ProofError> {
    if old > new {
        return Err(ProofError::SizesReversed { old, new });
    }
    if old == 0 {
        if *old_root != EMPTY_ROOT {
            return Err(ProofError::BadEmptyRoot);
        }
        return if proof.is_empty() {
            Ok(())
        } else {
            Err(ProofError::WrongLength { got: proof.len(), expected: 0 })
        };
    }
    if old == new {
        if !proof.is_empty() {
            return Err(ProofError::WrongLength { got: proof.len(), expected: 0 });
        }
        return if old_root == new_root { Ok(()) } else { Err(ProofError::SameSizeDifferentRoots) };
    }
    if proof.is_empty() || proof.len() > MAX_PROOF_HASHES {
        return Err(ProofError::WrongLength { got: proof.len(), expected: 1 });
    }
    let mut path: Vec<Digest> = Vec::with_capacity(proof.len() + 1);
    if old.is_power_of_two() {
        path.push(*old_root);
    }
    path.extend_from_slice(proof);
    let (mut fn_, mut sn) = (old - 1, new - 1);
    while fn_ & 1 == 1 {
        fn_ >>= 1;
        sn >>= 1;
    }
    let (mut fr, mut sr) = (path[0], path[0]);
    for c in &path[1..] {
        if sn == 0 {
            return Err(ProofError::WrongLength { got: proof.len(), expected: path.len() - 1 });
        }
        if fn_ & 1 == 1 || fn_ == sn {
            fr = node_hash(c, &fr);
            sr = node_hash(c, &sr);
            if fn_ & 1 == 0 {
                while fn_ & 1 == 0 && fn_ != 0 {
                    fn_ >>= 1;
                    sn >>= 1;
                }
            }
        } else {
            sr = node_hash(&sr, c);
        }
        fn_ >>= 1;
        sn >>= 1;
    }
    if sn != 0 {
        return Err(ProofError::RootMismatch);
    }
    if fr != *old_root {
        return Err(ProofError::OldRootMismatch);
    }
    if sr != *new_root {
        return Err(ProofError::RootMismatch);
    }
    Ok(())
}

/// A tree held in memory: the stored hashes in their stored order. Used to recompute the tree
/// from the journal and by tests.
#[derive(Debug, Clone, Default)]
pub struct MemTree {
    pub size: u64,
    pub stored: Vec<Digest>,
}

impl MemTree {
    /// Appends a leaf with hash `leaf`; returns the hashes it stored.
    pub fn push(&mut self, leaf: Digest) -> &[Digest] {
        let start = self.stored.len();
        let siblings: Vec<Digest> = append_needs(self.size)
            .into_iter()
            .map(|i| self.stored[usize::try_from(i).expect("in memory")])
            .collect();
        self.stored.extend(append_hashes(leaf, &siblings));
        self.size += 1;
        &self.stored[start..]
    }
}

impl Hashes for MemTree {
    type Error = std::convert::Infallible;
    fn hash(&mut self, level: u32, n: u64) -> Result<Digest, Self::Error> {
        Ok(self.stored[usize::try_from(stored_index(level, n)).expect("in memory")])
    }
}

/// Recomputes a tree's stored hashes one leaf at a time with O(log n) memory: the right edge
/// (the roots of the complete subtrees that are not yet some other subtree's children).
#[derive(Debug, Clone, Default)]
pub struct Frontier {
    pub size: u64,
    /// `(level, hash)`, highest level first.
    edge: Vec<(u32, Digest)>,
}

impl Frontier {
    /// Appends a leaf; returns the hashes a store holds for it, in stored order.
    pub fn push(&mut self, leaf: Digest) -> Vec<Digest> {
        let mut out = Vec::with_capacity(2);
        self.push_each(leaf, |h| out.push(h));
        out
    }

    /// [`Self::push`], handing each hash to `each` in stored order instead of collecting them.
    pub fn push_each(&mut self, leaf: Digest, mut each: impl FnMut(Digest)) {
        each(leaf);
        let mut h = leaf;
        let mut level = 0;
        while let Some(&(l, left)) = self.edge.last() {
            if l != level {
                break;
            }
            self.edge.pop();
            h = node_hash(&left, &h);
            level += 1;
            each(h);
        }
        self.edge.push((level, h));
        self.size += 1;
    }

    /// The root of the leaves pushed so far.
    pub fn root(&self) -> Digest {
        let mut it = self.edge.iter().rev();
        let Some(&(_, mut h)) = it.next() else { return EMPTY_ROOT };
        for (_, left) in it {
            h = node_hash(left, &h);
        }
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaf_for_position_inverts_stored_count() {
        let mut pos = 0;
        for n in 0..5000u64 {
            let width = stored_count(n + 1) - stored_count(n);
            assert_eq!(width, 1 + u64::from((n + 1).trailing_zeros()), "leaf {n}");
            for off in 0..width {
                assert_eq!(leaf_for_position(pos), (n, off), "position {pos}");
                pos += 1;
            }
        }
        for n in [1u64 << 40, (1 << 40) - 1, u64::MAX / 4] {
            let start = stored_count(n);
            assert_eq!(leaf_for_position(start), (n, 0));
            assert_eq!(leaf_for_position(start - 1).0, n - 1);
        }
    }

    fn hexd(s: &str) -> Digest {
        Digest::parse(s).unwrap()
    }

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
    }

    /// transparency-dev/merkle `testonly/constants.go`.
    const LEAVES: [&str; 8] = [
        "",
        "00",
        "10",
        "2021",
        "3031",
        "40414243",
        "5051525354555657",
        "606162636465666768696a6b6c6d6e6f",
    ];
    const ROOTS: [&str; 9] = [
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
        "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
        "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
        "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
    ];

    /// The RFC 6962 definition, recursively over the leaf hashes.
    fn mth(leaves: &[Digest]) -> Digest {
        match leaves.len() {
            0 => EMPTY_ROOT,
            1 => leaves[0],
            n => {
                let k = usize::try_from(split(n as u64)).unwrap();
                node_hash(&mth(&leaves[..k]), &mth(&leaves[k..]))
            }
        }
    }

    #[test]
    fn rfc6962_known_answer_roots() {
        assert_eq!(EMPTY_ROOT, Digest::of(b""));
        let mut t = MemTree::default();
        let mut f = Frontier::default();
        assert_eq!(root(&mut t, 0).unwrap(), hexd(ROOTS[0]));
        assert_eq!(f.root(), hexd(ROOTS[0]));
        for (i, leaf) in LEAVES.iter().enumerate() {
            let h = leaf_hash(&unhex(leaf));
            let stored = t.push(h).to_vec();
            assert_eq!(f.push(h), stored);
            assert_eq!(root(&mut t, i as u64 + 1).unwrap(), hexd(ROOTS[i + 1]), "size {}", i + 1);
            assert_eq!(f.root(), hexd(ROOTS[i + 1]));
        }
    }

    /// transparency-dev/merkle `testonly/reference_test.go` inclusion and consistency vectors
    /// (over the eight leaves above).
    #[test]
    fn rfc6962_known_answer_proofs() {
        let mut t = MemTree::default();
        for leaf in LEAVES {
            t.push(leaf_hash(&unhex(leaf)));
        }
        let inclusion: &[(u64, u64, &[&str])] = &[
            (0, 1, &[]),
            (
                0,
                8,
                &[
                    "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
                    "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
                    "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
                ],
            ),
            (
                5,
                8,
                &[
                    "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
                    "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
                    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
                ],
            ),
            (2, 3, &["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"]),
            (
                1,
                5,
                &[
                    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
                    "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
                    "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
                ],
            ),
        ];
        for (index, size, want) in inclusion {
            let got = inclusion_proof(&mut t, *index, *size).unwrap();
            let want: Vec<Digest> = want.iter().map(|s| hexd(s)).collect();
            assert_eq!(got, want, "inclusion {index} in {size}");
            let r = root(&mut t, *size).unwrap();
            let leaf = leaf_hash(&unhex(LEAVES[usize::try_from(*index).unwrap()]));
            verify_inclusion(&leaf, *index, *size, &got, &r).unwrap();
        }
        let consistency: &[(u64, u64, &[&str])] = &[
            (1, 1, &[]),
            (
                1,
                8,
                &[
                    "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
                    "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
                    "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
                ],
            ),
            (
                6,
                8,
                &[
                    "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
                    "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
                    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
                ],
            ),
            (
                2,
                5,
                &[
                    "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
                    "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
                ],
            ),
        ];
        for (old, new, want) in consistency {
            let got = consistency_proof(&mut t, *old, *new).unwrap();
            let want: Vec<Digest> = want.iter().map(|s| hexd(s)).collect();
            assert_eq!(got, want, "consistency {old} {new}");
            let (a, b) = (root(&mut t, *old).unwrap(), root(&mut t, *new).unwrap());
            verify_consistency(*old, *new, &a, &b, &got).unwrap();
        }
    }

    #[test]
    fn stored_layout_matches_go_sumdb() {
        // Go's TestStoredHashIndex examples.
        assert_eq!(stored_index(0, 0), 0);
        assert_eq!(stored_index(0, 1), 1);
        assert_eq!(stored_index(1, 0), 2);
        assert_eq!(stored_index(0, 2), 3);
        assert_eq!(stored_index(0, 3), 4);
        assert_eq!(stored_index(1, 1), 5);
        assert_eq!(stored_index(2, 0), 6);
        let mut t = MemTree::default();
        for n in 0..300u64 {
            assert_eq!(stored_count(n), t.stored.len() as u64);
            assert_eq!(size_for_count(stored_count(n)), Some(n));
            t.push(leaf_hash(&n.to_be_bytes()));
        }
        assert_eq!(size_for_count(2), None);
    }

    /// Every inclusion proof of every leaf and every consistency proof of every pair of sizes
    /// up to 300 leaves verifies, and with any one byte flipped (or the wrong index, size or
    /// root) it does not.
    #[test]
    fn every_proof_up_to_300_verifies_and_a_flipped_byte_fails() {
        const N: u64 = 300;
        let mut t = MemTree::default();
        let mut leaves = Vec::new();
        let mut roots = vec![EMPTY_ROOT];
        for n in 0..N {
            let h = leaf_hash(format!("entry {n}").as_bytes());
            leaves.push(h);
            t.push(h);
            roots.push(root(&mut t, n + 1).unwrap());
        }
        for (n, r) in roots.iter().enumerate().take(40) {
            assert_eq!(*r, mth(&leaves[..n]), "root of {n}");
        }
        for size in 1..=N {
            let r = roots[usize::try_from(size).unwrap()];
            for index in 0..size {
                let leaf = leaves[usize::try_from(index).unwrap()];
                let mut p = inclusion_proof(&mut t, index, size).unwrap();
                verify_inclusion(&leaf, index, size, &p, &r).unwrap();
                // A flipped byte: each hash in turn for small trees, one (rotating) otherwise.
                let flips: Vec<usize> = if size <= 64 {
                    (0..p.len()).collect()
                } else if p.is_empty() {
                    vec![]
                } else {
                    vec![usize::try_from(index).unwrap() % p.len()]
                };
                for i in flips {
                    let byte = (usize::try_from(index + size).unwrap()) % 32;
                    p[i].0[byte] ^= 0x01;
                    assert!(verify_inclusion(&leaf, index, size, &p, &r).is_err());
                    p[i].0[byte] ^= 0x01;
                }
                let mut bad = leaf;
                bad.0[0] ^= 0x80;
                assert!(verify_inclusion(&bad, index, size, &p, &r).is_err());
                if size > 1 {
                    assert!(verify_inclusion(&leaf, (index + 1) % size, size, &p, &r).is_err());
                }
            }
            assert!(verify_inclusion(&leaves[0], size, size, &[], &r).is_err());
        }
        for new in 1..=N {
            let nr = roots[usize::try_from(new).unwrap()];
            for old in 0..=new {
                let or = roots[usize::try_from(old).unwrap()];
                let mut p = consistency_proof(&mut t, old, new).unwrap();
                verify_consistency(old, new, &or, &nr, &p).unwrap();
                if !p.is_empty() {
                    let i = usize::try_from(old).unwrap() % p.len();
                    let byte = usize::try_from(new).unwrap() % 32;
                    p[i].0[byte] ^= 0x04;
                    assert!(verify_consistency(old, new, &or, &nr, &p).is_err(), "{old} {new}");
                    p[i].0[byte] ^= 0x04;
                }
                if old > 0 && old < new {
                    let mut bad = or;
                    bad.0[31] ^= 1;
                    assert!(verify_consistency(old, new, &bad, &nr, &p).is_err());
                    let mut bad = nr;
                    bad.0[0] ^= 1;
                    assert!(verify_consistency(old, new, &or, &bad, &p).is_err());
                    assert!(verify_consistency(old, new, &or, &nr, &p[1..]).is_err());
                }
            }
        }
        assert_eq!(
            verify_consistency(5, 5, &roots[5], &roots[4], &[]),
            Err(ProofError::SameSizeDifferentRoots)
        );
        assert!(verify_consistency(6, 5, &roots[6], &roots[5], &[]).is_err());
    }
}
