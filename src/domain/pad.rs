//! Pad states and ticket types.

use serde::{Deserialize, Serialize};

/// The state a pad is stored in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StoredState {
    Open,
    Sealed,
}

/// The state a pad is in at a moment: an open pad past its expiry is expired.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PadState {
    Open,
    Sealed,
    Expired,
}

impl PadState {
    /// The effective state of a pad stored as `stored` that expires at `expires_at`, at `now`
    /// (integer Unix seconds; expired when `expires_at <= now`, as with the peer). A sealed pad
    /// never expires.
    pub fn at(stored: StoredState, expires_at: i64, now: i64) -> Self {
        match stored {
            StoredState::Sealed => Self::Sealed,
            StoredState::Open if expires_at <= now => Self::Expired,
            StoredState::Open => Self::Open,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Open => "open",
            Self::Sealed => "sealed",
            Self::Expired => "expired",
        }
    }
}

impl StoredState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Open => "open",
            Self::Sealed => "sealed",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "open" => Some(Self::Open),
            "sealed" => Some(Self::Sealed),
            _ => None,
        }
    }
}

/// The kinds of read ticket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TicketType {
    /// Opens a read lease at its first successful read; unusable once the lease is over
    ReadOnce,
    /// Reads for as long as the ticket is not revoked
    ReadUnlimited,
}

impl TicketType {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ReadOnce => "read_once",
            Self::ReadUnlimited => "read_unlimited",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "read_once" => Some(Self::ReadOnce),
            "read_unlimited" => Some(Self::ReadUnlimited),
            _ => None,
        }
    }
}

/// Whether a `read_once` ticket whose lease opened at `started` is over at `now`
/// (strictly more than `lease_seconds` later, as with the peer).
pub fn read_lease_over(started: Option<i64>, lease_seconds: i64, now: i64) -> bool {
    started.is_some_and(|s| now - s > lease_seconds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expiry_is_inclusive_and_sealed_pads_never_expire() {
        assert_eq!(PadState::at(StoredState::Open, 100, 99), PadState::Open);
        assert_eq!(PadState::at(StoredState::Open, 100, 100), PadState::Expired);
        assert_eq!(PadState::at(StoredState::Sealed, 100, 1000), PadState::Sealed);
    }

    #[test]
    fn read_lease_window() {
        assert!(!read_lease_over(None, 600, 10_000));
        assert!(!read_lease_over(Some(1000), 600, 1600));
        assert!(read_lease_over(Some(1000), 600, 1601));
    }
}
