//! The repository: `repo.init`, `repo.setting`, `repo.gc` and `repo.rollback`.

use serde::{Deserialize, Serialize};

use crate::domain::digest::Digest;

/// `repo.init`: the journal's first entry, naming the repository (every signature names its
/// id).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepoInit {
    pub repository_id: String,
    pub format: u64,
    pub store: String,
}

/// `repo.setting`: a setting's new value (`require_signed_appends`: `"true"` or `"false"`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepoSetting {
    pub name: String,
    pub value: String,
}

/// `repo.gc`: one `locker gc` run and everything it removed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepoGc {
    pub policy: GcPolicy,
    pub pads: Vec<GcPad>,
    pub blobs: Vec<GcBlob>,
    pub stray_files: Vec<GcStrayFile>,
    pub payload_bytes: u64,
    pub blob_bytes: u64,
    pub more: bool,
    /// The abandoned leases whose texts went; only in runs with the abandoned-work policy
    /// (and never in runs from before it existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leases: Option<Vec<GcLease>>,
    /// The bytes of text those leases, plans and steps lost; with `leases` only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub work_bytes: Option<u64>,
}

/// What a gc run was allowed to remove.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GcPolicy {
    /// Seconds since a pad was sealed or expired; `null` when pads were not pruned.
    pub pads_older_than: Option<i64>,
    pub blobs: bool,
    /// Seconds since a lease was abandoned; only in runs with the abandoned-work policy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abandoned_older_than: Option<i64>,
}

/// A pad whose payloads went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GcPad {
    pub pad_id: String,
    pub scope: String,
    /// `sealed` or `expired`.
    pub reason: String,
    /// When it was sealed, or expired.
    pub since: i64,
    pub blocks: u64,
    pub bytes: u64,
}

/// A blob no artifact version named, removed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GcBlob {
    pub sha256: Digest,
    pub size: u64,
    /// `inline`, or `objects/ab/cdef…`.
    pub location: String,
}

/// A stray blob file removed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GcStrayFile {
    pub location: String,
    pub bytes: u64,
}

/// An abandoned lease whose text, and its plans' and steps', went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GcLease {
    pub lease_id: String,
    pub scope: String,
    pub work: String,
    pub fence: u64,
    pub abandoned_at: i64,
    pub plans: u64,
    pub steps: u64,
    pub bytes: u64,
}

/// `repo.rollback`: the operator accepted a database that lost entries the log key had already
/// signed (a deliberate restore of an older backup): the checkpoint given up (the log key's
/// high-water mark, verbatim) and the journal as it was restored. The log key signs the
/// journal that follows this entry; a reader pinned beyond the restored size sees a fork, and
/// this entry says why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepoRollback {
    pub abandoned_size: u64,
    pub abandoned_root: Digest,
    /// The abandoned checkpoint: its signed note.
    pub abandoned_checkpoint: String,
    pub restored_size: u64,
    pub restored_root: Digest,
}
