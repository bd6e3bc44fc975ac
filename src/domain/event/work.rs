//! Work items: `lease.acquire`, `lease.heartbeat`, `lease.complete`, `lease.release`,
//! `lease.abandon`, `manifest.commit` (a plan) and `step.record`.
//!
//! Texts that `locker gc` may later prune from their rows (heartbeat details, a plan's steps,
//! a step's planned and executed) are recorded by SHA-256 only (`*_sha256`), so that pruning
//! leaves no copy in the journal. Entries written before retention existed hold the texts
//! themselves; both shapes decode, and [`text_digest`] reads either.

use serde::{Deserialize, Serialize};

use super::agent::Signed;
use crate::domain::digest::Digest;

/// The digest of a text as an entry records it: `sha256` (`<name>_sha256`, since retention)
/// when present, else the digest of the `text` itself (`<name>`, before), `None` for no text.
/// Each is `None` when absent, `Some(None)` when `null`.
pub fn text_digest(
    text: Option<&Option<String>>,
    sha256: Option<&Option<Digest>>,
) -> Option<Digest> {
    match sha256 {
        Some(d) => *d,
        None => text.and_then(Option::as_deref).map(|t| Digest::of(t.as_bytes())),
    }
}

/// How new entries record a text: by its SHA-256 (`null` without one).
pub fn sha256_of(text: Option<&str>) -> Option<Option<Digest>> {
    Some(text.map(|t| Digest::of(t.as_bytes())))
}

/// `lease.acquire`: a new lease and its fencing token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaseAcquire {
    pub lease_id: String,
    pub work: String,
    pub fence: u64,
    pub holder: String,
    pub ttl: i64,
    pub expires_at: i64,
    /// Whether it leased a completed work item again (`--reopen`).
    pub reopened: bool,
}

/// `lease.heartbeat`: a lease extended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaseHeartbeat {
    pub lease_id: String,
    pub work: String,
    pub fence: u64,
    pub expires_at: i64,
    /// Before retention: the details themselves (`null` without); absent since.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "super::nullable"
    )]
    pub details: Option<Option<String>>,
    /// Since retention: the details' SHA-256 (`null` without); absent before.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "super::nullable"
    )]
    pub details_sha256: Option<Option<Digest>>,
}

impl LeaseHeartbeat {
    /// The details' digest, from either shape.
    pub fn details_digest(&self) -> Option<Digest> {
        text_digest(self.details.as_ref(), self.details_sha256.as_ref())
    }
}

/// `lease.complete`: a lease completed, with its result and its plan diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaseComplete {
    pub lease_id: String,
    pub work: String,
    pub fence: u64,
    pub result: Option<String>,
    pub plan_version: Option<u64>,
    pub holes: Vec<String>,
    pub extras: Vec<String>,
}

/// `lease.release`: a lease given up without completing it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaseRelease {
    pub lease_id: String,
    pub work: String,
    pub fence: u64,
}

/// `lease.abandon`: an expired lease reaped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaseAbandon {
    pub lease_id: String,
    pub work: String,
    pub fence: u64,
    pub holder: String,
    pub expired_at: i64,
}

/// `manifest.commit`: a plan version committed under a lease.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestCommit {
    pub work: String,
    pub version: u64,
    pub lease_id: String,
    pub fence: u64,
    /// Before retention: the steps themselves; absent since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps: Option<Vec<String>>,
    /// Since retention: how many steps; absent before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps_count: Option<u64>,
    /// Since retention: the SHA-256 of the steps as a JSON array (the stored `steps_json`);
    /// absent before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps_sha256: Option<Digest>,
}

/// `step.record`: a step logged under a lease.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepRecord {
    pub work: String,
    pub lease_id: String,
    pub fence: u64,
    pub step: String,
    /// Before retention: the planned text (`null` without); absent since.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "super::nullable"
    )]
    pub planned: Option<Option<String>>,
    /// Before retention: the executed text (`null` without); absent since.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "super::nullable"
    )]
    pub executed: Option<Option<String>>,
    /// Since retention: the planned text's SHA-256 (`null` without); absent before.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "super::nullable"
    )]
    pub planned_sha256: Option<Option<Digest>>,
    /// Since retention: the executed text's SHA-256 (`null` without); absent before.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "super::nullable"
    )]
    pub executed_sha256: Option<Option<Digest>>,
    pub gate: String,
    /// The agent's signature; absent from unsigned steps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signed: Option<Signed>,
}

impl StepRecord {
    /// The planned text's digest, from either shape.
    pub fn planned_digest(&self) -> Option<Digest> {
        text_digest(self.planned.as_ref(), self.planned_sha256.as_ref())
    }

    /// The executed text's digest, from either shape.
    pub fn executed_digest(&self) -> Option<Digest> {
        text_digest(self.executed.as_ref(), self.executed_sha256.as_ref())
    }
}
