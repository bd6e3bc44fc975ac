//! The use cases every front end calls: the CLI, `locker serve` and `locker mcp` all go
//! through these functions, so each rule is decided once.
//!
//! Every function returns a `Serialize` outcome whose JSON form is the CLI's `--json` output, the
//! HTTP body and the MCP tool result, or an [`OpError`] whose [`ErrorKind`] decides the exit
//! code and the HTTP status in one place.

pub mod admin;
pub mod artifact;
pub mod auth;
pub mod complete;
mod context;
pub mod disclose;
mod error;
pub mod group;
pub mod keys;
pub mod log;
pub mod pad;
pub mod status;
pub mod token;
pub mod verify;
pub mod work;

pub use auth::authorize;
pub use context::{
    now_at, Actor, ActorKind, Clock, Ctx, Env, FixedClock, NoProgress, Progress, Settings,
    SystemClock,
};
pub use error::{
    rolled_back, ErrorKind, ErrorObject, OpError, OpResult, CORRUPT_STORE, STORE_ERROR_KINDS,
};
pub use log::identity::{LogIdentity, LogKey};

/// A temporary directory for a test repository: in memory (`/dev/shm`) where there is one, so
/// that property tests do not wait for the disk.
#[cfg(test)]
pub(crate) fn test_dir() -> tempfile::TempDir {
    tempfile::tempdir_in("/dev/shm")
        .or_else(|_| tempfile::tempdir())
        .expect("a temporary directory")
}

/// Cases per property test: `PROPTEST_CASES` when set (scripts/torture.sh raises it), else
/// `default` (kept small: each case builds a repository).
#[cfg(test)]
pub(crate) fn proptest_cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}
