//! The journal as a transparency log: the hash-chained journal itself ([`journal`]), its
//! RFC 6962 Merkle tree ([`merkle`]), signed checkpoints ([`mod@checkpoint`]), inclusion and
//! consistency proofs ([`proof`]), witness cosignatures ([`cosign`]), the reader's pinned
//! checkpoints ([`pin`]) and accepting a deliberate restore ([`rollback`]).

pub mod checkpoint;
pub mod cosign;
pub mod identity;
pub mod journal;
pub mod merkle;
pub mod pin;
pub mod proof;
pub mod rollback;
pub mod signer;

pub use checkpoint::{checkpoint, key, parse_verifier, CheckpointOutcome, KeyOutcome};
pub use identity::{LogIdentity, LogKey};
pub use merkle::{on_append, root_at, sync, tree_size};
pub use proof::{
    block_entry, consistency_hashes, prove_blocks, prove_consistency, prove_inclusion, BlockRef,
    ConsistencyOutcome, InclusionOutcome, Target,
};
