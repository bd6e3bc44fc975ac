//! The limits of agent-locker 0.1.5, kept so that its clients interoperate.

/// Largest block payload, in bytes.
pub const MAX_BLOCK_BYTES: usize = 65_536;
/// Largest pad, in payload bytes.
pub const MAX_PAD_BYTES: u64 = 262_144;
/// Blocks a pad may hold when `max_blocks` is not given.
pub const DEFAULT_MAX_BLOCKS: u32 = 32;
/// Largest `max_blocks`.
pub const MAX_MAX_BLOCKS: u32 = 4096;
/// Seconds until an unsealed pad expires when `ttl_seconds` is not given.
pub const DEFAULT_TTL_SECONDS: u32 = 3600;
/// Largest `ttl_seconds` (30 days).
pub const MAX_TTL_SECONDS: u32 = 2_592_000;
/// Most blocks in one read slice.
pub const MAX_SLICE_BLOCKS: u64 = 256;
/// Most payload bytes in one read slice.
pub const MAX_SLICE_BYTES: u64 = 65_536;
/// Seconds a `read_once` ticket stays usable after its first successful read.
pub const DEFAULT_READ_LEASE_SECONDS: u32 = 600;
/// Largest JSON request body on the pad routes that take JSON.
pub const MAX_JSON_BODY_BYTES: usize = 4096;
/// Longest pad id accepted as input.
pub const MAX_PAD_ID_BYTES: usize = 128;
/// Longest `content_type` stored with a block.
pub const MAX_CONTENT_TYPE_BYTES: usize = 255;

/// The limits a pad is created with, validated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PadLimits {
    pub ttl_seconds: u32,
    pub max_blocks: u32,
}

/// A pad limit outside its range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LimitError {
    #[error("ttl_seconds must be between 1 and {MAX_TTL_SECONDS}, got {0}")]
    Ttl(i64),
    #[error("max_blocks must be between 1 and {MAX_MAX_BLOCKS}, got {0}")]
    MaxBlocks(i64),
}

impl Default for PadLimits {
    fn default() -> Self {
        Self { ttl_seconds: DEFAULT_TTL_SECONDS, max_blocks: DEFAULT_MAX_BLOCKS }
    }
}

impl PadLimits {
    /// Checks both limits against their ranges (`0 < ttl ≤ 30 days`, `0 < max_blocks ≤ 4096`).
    pub fn new(ttl_seconds: i64, max_blocks: i64) -> Result<Self, LimitError> {
        let ttl = u32::try_from(ttl_seconds)
            .ok()
            .filter(|t| (1..=MAX_TTL_SECONDS).contains(t))
            .ok_or(LimitError::Ttl(ttl_seconds))?;
        let blocks = u32::try_from(max_blocks)
            .ok()
            .filter(|b| (1..=MAX_MAX_BLOCKS).contains(b))
            .ok_or(LimitError::MaxBlocks(max_blocks))?;
        Ok(Self { ttl_seconds: ttl, max_blocks: blocks })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_at_and_past_their_edges() {
        assert!(PadLimits::new(1, 1).is_ok());
        assert!(PadLimits::new(2_592_000, 4096).is_ok());
        assert_eq!(PadLimits::new(0, 1), Err(LimitError::Ttl(0)));
        assert_eq!(PadLimits::new(2_592_001, 1), Err(LimitError::Ttl(2_592_001)));
        assert_eq!(PadLimits::new(-1, 1), Err(LimitError::Ttl(-1)));
        assert_eq!(PadLimits::new(60, 0), Err(LimitError::MaxBlocks(0)));
        assert_eq!(PadLimits::new(60, 4097), Err(LimitError::MaxBlocks(4097)));
        assert_eq!(PadLimits::default(), PadLimits { ttl_seconds: 3600, max_blocks: 32 });
    }

    #[test]
    fn the_peers_numbers() {
        assert_eq!(MAX_BLOCK_BYTES, 65_536);
        assert_eq!(MAX_PAD_BYTES, 4 * 65_536);
        assert_eq!((DEFAULT_MAX_BLOCKS, MAX_MAX_BLOCKS), (32, 4096));
        assert_eq!((DEFAULT_TTL_SECONDS, MAX_TTL_SECONDS), (3600, 30 * 86_400));
        assert_eq!((MAX_SLICE_BLOCKS, MAX_SLICE_BYTES), (256, 65_536));
        assert_eq!(DEFAULT_READ_LEASE_SECONDS, 600);
        assert_eq!(MAX_JSON_BODY_BYTES, 4096);
    }

    #[test]
    fn limits_far_out_of_range() {
        assert_eq!(PadLimits::new(i64::MAX, 1), Err(LimitError::Ttl(i64::MAX)));
        assert_eq!(PadLimits::new(i64::MIN, 1), Err(LimitError::Ttl(i64::MIN)));
        assert_eq!(PadLimits::new(1 << 32, 1), Err(LimitError::Ttl(1 << 32)));
        assert_eq!(PadLimits::new(60, (1 << 32) + 1), Err(LimitError::MaxBlocks((1 << 32) + 1)));
        assert_eq!(PadLimits::new(60, -1), Err(LimitError::MaxBlocks(-1)));
        // The ttl is checked first.
        assert_eq!(PadLimits::new(0, 0), Err(LimitError::Ttl(0)));
        assert_eq!(
            LimitError::MaxBlocks(0).to_string(),
            "max_blocks must be between 1 and 4096, got 0"
        );
    }
}

#[cfg(test)]
mod proptests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// Limits are accepted exactly in their ranges and kept as given.
        #[test]
        fn limits_are_accepted_exactly_in_range(ttl in any::<i64>(), blocks in any::<i64>()) {
            let ttl_ok = (1..=i64::from(MAX_TTL_SECONDS)).contains(&ttl);
            let blocks_ok = (1..=i64::from(MAX_MAX_BLOCKS)).contains(&blocks);
            match PadLimits::new(ttl, blocks) {
                Ok(l) => {
                    prop_assert!(ttl_ok && blocks_ok);
                    prop_assert_eq!((i64::from(l.ttl_seconds), i64::from(l.max_blocks)), (ttl, blocks));
                }
                Err(LimitError::Ttl(t)) => prop_assert!(!ttl_ok && t == ttl),
                Err(LimitError::MaxBlocks(b)) => prop_assert!(ttl_ok && !blocks_ok && b == blocks),
            }
        }

        /// The same, near the edges (where a random i64 rarely lands).
        #[test]
        fn limits_near_their_edges(ttl in -2i64..2_592_003, blocks in -2i64..4100) {
            let ok = (1..=2_592_000).contains(&ttl) && (1..=4096).contains(&blocks);
            prop_assert_eq!(PadLimits::new(ttl, blocks).is_ok(), ok);
        }
    }
}
