//! The journal as a transparency log: the hash-chained journal itself ([`journal`]), its
//! RFC 6962 Merkle tree ([`merkle`]), signed checkpoints, inclusion and consistency proofs,
//! witness cosignatures ([`cosign`]) and the reader's pinned checkpoints ([`pin`]).

pub mod cosign;
pub mod journal;
pub mod merkle;
pub mod pin;

pub use crate::ops::LogIdentity;
pub use merkle::{
    block_entry, checkpoint, consistency_hashes, key, on_append, parse_verifier, prove_blocks,
    prove_consistency, prove_inclusion, root_at, sync, tree_size, BlockRef, CheckpointOutcome,
    ConsistencyOutcome, InclusionOutcome, KeyOutcome, Target,
};
