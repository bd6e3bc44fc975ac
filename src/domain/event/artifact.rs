//! Artifact versions: `artifact.publish`, `artifact.replay` and `artifact.reject`.

use serde::{Deserialize, Serialize};

use super::agent::Signed;
use crate::domain::digest::Digest;
use crate::domain::work::Fence;

/// `artifact.publish`: a new version of a key written (compare-and-swap on
/// `expected_version`, under operation id `op_id`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArtifactPublish {
    pub key: String,
    pub op_id: String,
    pub version: u64,
    pub expected_version: u64,
    pub sha256: Digest,
    pub size: u64,
    /// The lease fence the publish was made under: `Some(Some(_))`, or `null` (`Some(None)`)
    /// without one. Absent (`None`) from publishes made before fences existed.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "super::nullable"
    )]
    pub fence: Option<Option<Fence>>,
    /// The agent's signature; absent from unsigned publishes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signed: Option<Signed>,
}

impl ArtifactPublish {
    /// The fence, whichever way the entry records its absence.
    pub fn fence(&self) -> Option<&Fence> {
        self.fence.as_ref().and_then(Option::as_ref)
    }
}

/// `artifact.replay`: an identical retry answered with the version it wrote first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArtifactReplay {
    pub key: String,
    pub op_id: String,
    pub version: u64,
    pub expected_version: u64,
    pub current_version: u64,
    pub sha256: Digest,
}

/// `artifact.reject`: a publish refused, and why (`reason` is the error code:
/// `version_conflict`, `operation_conflict`, `stale_fence`, `unknown_fence`…).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArtifactReject {
    pub key: String,
    pub op_id: String,
    pub reason: String,
    pub expected_version: u64,
    pub current_version: u64,
    pub sha256: Digest,
    pub size: u64,
    /// The fence of a publish refused for its fence; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fence: Option<Fence>,
}
