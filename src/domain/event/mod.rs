//! Every journal event: its kind, its subject and its body, read and written by one type.
//!
//! The body of a journal entry is hashed as it is stored, so its shape is the journal's
//! tamper-evidence contract: a field renamed, reordered, added where it was absent or written
//! `null` where it was left out changes the bytes every verifier recomputes. Each kind has one
//! struct here whose fields are declared in the order they are stored, with the omission rules
//! of the entries already written (a field left out is `#[serde(skip_serializing_if)]`, a field
//! written as `null` is a plain `Option`). [`Event`] ties a body to its kind (and derives the
//! entry's subject from the body), so an entry's kind, subject and body cannot disagree.
//!
//! Older entries are decoded too: the shapes earlier releases wrote are modelled as optional
//! fields, documented where they are declared (pads created before their write key hash and
//! byte limit were recorded; lease, plan and step texts recorded as text before they were
//! recorded by SHA-256 only; artifact publishes from before fences; gc runs from before the
//! abandoned-work policy).
//!
//! Kinds and fields are only ever added: `repo.rollback` and a `key.register`'s `rotates` came
//! after the golden fixture was made, and appear only in entries that use them.
//!
//! `tests/fixtures/golden/` holds a repository with every kind and shape the code writes; the
//! `golden` test decodes each of its entries into its [`Event`] and re-encodes it byte for byte.
//!
//! Layout: [`pad`] (handoff pads), [`work`] (leases, plans and steps), [`artifact`] (artifact
//! versions), [`agent`] (agent tokens and signing keys, and the signature a write carries),
//! [`repo`] (the repository: init, settings, gc).

pub mod agent;
pub mod artifact;
pub mod pad;
pub mod repo;
pub mod work;

use serde::{Deserialize, Deserializer};
use serde_json::Value;

pub use agent::{KeyRegister, KeyRevoke, KeyRotation, Signed, TokenCreate, TokenRevoke};
pub use artifact::{ArtifactPublish, ArtifactReject, ArtifactReplay};
pub use pad::{
    BlockRecord, PadAppend, PadCreate, PadDeposit, PadImport, PadReadLease, PadSeal, PadTicket,
    PadTicketRevoke, Payment,
};
pub use repo::{
    GcBlob, GcLease, GcPad, GcPolicy, GcStrayFile, RepoGc, RepoInit, RepoRollback, RepoSetting,
};
pub use work::{
    LeaseAbandon, LeaseAcquire, LeaseComplete, LeaseHeartbeat, LeaseRelease, ManifestCommit,
    StepRecord,
};

/// The kinds of journal entries (an entry's `kind`).
pub mod kind {
    pub const REPO_INIT: &str = "repo.init";
    pub const REPO_SETTING: &str = "repo.setting";
    pub const REPO_GC: &str = "repo.gc";
    /// A deliberate restore accepted: the checkpoint the log key gave up.
    pub const REPO_ROLLBACK: &str = "repo.rollback";
    pub const PAD_CREATE: &str = "pad.create";
    pub const PAD_APPEND: &str = "pad.append";
    pub const PAD_SEAL: &str = "pad.seal";
    pub const PAD_TICKET: &str = "pad.ticket";
    pub const PAD_TICKET_REVOKE: &str = "pad.ticket_revoke";
    pub const PAD_READ_LEASE: &str = "pad.read_lease";
    pub const PAD_DEPOSIT: &str = "pad.deposit";
    pub const PAD_IMPORT: &str = "pad.import";
    pub const TOKEN_CREATE: &str = "token.create";
    pub const TOKEN_REVOKE: &str = "token.revoke";
    pub const KEY_REGISTER: &str = "key.register";
    pub const KEY_REVOKE: &str = "key.revoke";
    pub const LEASE_ACQUIRE: &str = "lease.acquire";
    pub const LEASE_HEARTBEAT: &str = "lease.heartbeat";
    pub const LEASE_COMPLETE: &str = "lease.complete";
    pub const LEASE_RELEASE: &str = "lease.release";
    pub const LEASE_ABANDON: &str = "lease.abandon";
    /// A plan (a work item's manifest of steps) committed.
    pub const MANIFEST_COMMIT: &str = "manifest.commit";
    pub const STEP_RECORD: &str = "step.record";
    pub const ARTIFACT_PUBLISH: &str = "artifact.publish";
    pub const ARTIFACT_REPLAY: &str = "artifact.replay";
    pub const ARTIFACT_REJECT: &str = "artifact.reject";

    /// Every kind, in the order of [`super::Event`]'s variants.
    pub const ALL: &[&str] = &[
        REPO_INIT,
        REPO_SETTING,
        REPO_GC,
        PAD_CREATE,
        PAD_APPEND,
        PAD_SEAL,
        PAD_TICKET,
        PAD_TICKET_REVOKE,
        PAD_READ_LEASE,
        PAD_DEPOSIT,
        PAD_IMPORT,
        TOKEN_CREATE,
        TOKEN_REVOKE,
        KEY_REGISTER,
        KEY_REVOKE,
        LEASE_ACQUIRE,
        LEASE_HEARTBEAT,
        LEASE_COMPLETE,
        LEASE_RELEASE,
        LEASE_ABANDON,
        MANIFEST_COMMIT,
        STEP_RECORD,
        ARTIFACT_PUBLISH,
        ARTIFACT_REPLAY,
        ARTIFACT_REJECT,
        REPO_ROLLBACK,
    ];
}

/// The subjects of journal entries (an entry's `subject`): what an entry is about.
pub mod subject {
    /// The repository itself (`repo.*`).
    pub const REPO: &str = "repo";

    /// What a pad's subject starts with.
    const PAD: &str = "pad:";

    /// A pad (`pad.*`).
    pub fn pad(pad_id: &str) -> String {
        format!("{PAD}{pad_id}")
    }

    /// Whether `subject` is a pad's, of any pad.
    pub fn is_any_pad(subject: &str) -> bool {
        subject.starts_with(PAD)
    }

    /// Whether `subject` is [`pad`]`(pad_id)` (without building it).
    pub fn is_pad(subject: &str, pad_id: &str) -> bool {
        subject.strip_prefix(PAD) == Some(pad_id)
    }

    /// The pad `subject` names, if it names one.
    pub fn pad_id(subject: &str) -> Option<&str> {
        subject.strip_prefix(PAD)
    }

    /// A work item, with its leases, plans and steps (`lease.*`, `manifest.commit`,
    /// `step.record`).
    pub fn work(work: &str) -> String {
        format!("work:{work}")
    }

    /// An artifact key (`artifact.*`; the entry's scope column holds the scope).
    pub fn artifact(key: &str) -> String {
        format!("artifact:{key}")
    }

    /// An agent and its token (`token.*`).
    pub fn agent(agent: &str) -> String {
        format!("agent:{agent}")
    }

    /// An agent's signing keys (`key.*`).
    pub fn key(agent: &str) -> String {
        format!("key:{agent}")
    }
}

/// A body that does not decode as its kind says.
#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    /// A kind this version does not know (no release of locker wrote it).
    #[error("unknown journal entry kind `{0}`")]
    UnknownKind(String),
    /// A known kind whose body has not the fields, or not the types, the kind's body has.
    #[error("malformed `{kind}` body: {error}")]
    Malformed { kind: String, error: serde_json::Error },
}

macro_rules! events {
    ($( $(#[$doc:meta])* $variant:ident($body:ident) = $kind:ident => |$b:ident| $subject:expr; )*) => {
        /// One journal event: a body of the kind its variant names.
        #[derive(Debug, Clone, PartialEq)]
        pub enum Event {
            $( $(#[$doc])* $variant($body), )*
        }

        impl Event {
            /// The entry's `kind`.
            pub fn kind(&self) -> &'static str {
                match self {
                    $( Self::$variant(_) => kind::$kind, )*
                }
            }

            /// The entry's `subject`, as the body names it.
            pub fn subject(&self) -> String {
                match self {
                    $( Self::$variant($b) => $subject, )*
                }
            }

            /// The entry's `body`, its fields in their stored order.
            pub fn body(&self) -> Value {
                let v = match self {
                    $( Self::$variant(b) => serde_json::to_value(b), )*
                };
                v.expect("a journal event body always serialises")
            }

            /// Decodes a stored body by its entry's kind.
            pub fn decode(kind: &str, body: &Value) -> Result<Self, DecodeError> {
                let decoded = match kind {
                    $( kind::$kind => $body::deserialize(body).map(Self::$variant), )*
                    _ => return Err(DecodeError::UnknownKind(kind.to_owned())),
                };
                decoded.map_err(|error| DecodeError::Malformed { kind: kind.to_owned(), error })
            }

            /// Decodes a stored body from its JSON text by its entry's kind, straight into the
            /// kind's type (no [`Value`] in between: `locker verify` decodes millions).
            pub fn decode_json(kind: &str, body: &str) -> Result<Self, DecodeError> {
                let decoded = match kind {
                    $( kind::$kind => serde_json::from_str::<$body>(body).map(Self::$variant), )*
                    _ => return Err(DecodeError::UnknownKind(kind.to_owned())),
                };
                decoded.map_err(|error| DecodeError::Malformed { kind: kind.to_owned(), error })
            }

            /// Decodes a body by its entry's kind from a deserializer positioned at it, in the
            /// same pass as the entry around it; `None` for a kind this version does not know
            /// (its body is read and dropped).
            pub fn deserialize_kind<'de, D: Deserializer<'de>>(
                kind: &str,
                d: D,
            ) -> Result<Option<Self>, D::Error> {
                match kind {
                    $( kind::$kind => $body::deserialize(d).map(|b| Some(Self::$variant(b))), )*
                    _ => serde::de::IgnoredAny::deserialize(d).map(|_| None),
                }
            }
        }

        $(
            impl From<$body> for Event {
                fn from(b: $body) -> Self {
                    Self::$variant(b)
                }
            }
        )*
    };
}

events! {
    /// `locker init`: the repository's id, format and store.
    RepoInit(RepoInit) = REPO_INIT => |_b| subject::REPO.to_owned();
    /// A repository setting changed.
    RepoSetting(RepoSetting) = REPO_SETTING => |_b| subject::REPO.to_owned();
    /// A `locker gc` run and what it removed.
    RepoGc(RepoGc) = REPO_GC => |_b| subject::REPO.to_owned();
    PadCreate(PadCreate) = PAD_CREATE => |b| subject::pad(&b.pad_id);
    PadAppend(PadAppend) = PAD_APPEND => |b| subject::pad(&b.pad_id);
    PadSeal(PadSeal) = PAD_SEAL => |b| subject::pad(&b.pad_id);
    PadTicket(PadTicket) = PAD_TICKET => |b| subject::pad(&b.pad_id);
    PadTicketRevoke(PadTicketRevoke) = PAD_TICKET_REVOKE => |b| subject::pad(&b.pad_id);
    PadReadLease(PadReadLease) = PAD_READ_LEASE => |b| subject::pad(&b.pad_id);
    PadDeposit(PadDeposit) = PAD_DEPOSIT => |b| subject::pad(&b.pad_id);
    PadImport(PadImport) = PAD_IMPORT => |b| subject::pad(&b.pad_id);
    TokenCreate(TokenCreate) = TOKEN_CREATE => |b| subject::agent(&b.agent);
    TokenRevoke(TokenRevoke) = TOKEN_REVOKE => |b| subject::agent(&b.agent);
    KeyRegister(KeyRegister) = KEY_REGISTER => |b| subject::key(&b.agent);
    KeyRevoke(KeyRevoke) = KEY_REVOKE => |b| subject::key(&b.agent);
    LeaseAcquire(LeaseAcquire) = LEASE_ACQUIRE => |b| subject::work(&b.work);
    LeaseHeartbeat(LeaseHeartbeat) = LEASE_HEARTBEAT => |b| subject::work(&b.work);
    LeaseComplete(LeaseComplete) = LEASE_COMPLETE => |b| subject::work(&b.work);
    LeaseRelease(LeaseRelease) = LEASE_RELEASE => |b| subject::work(&b.work);
    LeaseAbandon(LeaseAbandon) = LEASE_ABANDON => |b| subject::work(&b.work);
    ManifestCommit(ManifestCommit) = MANIFEST_COMMIT => |b| subject::work(&b.work);
    StepRecord(StepRecord) = STEP_RECORD => |b| subject::work(&b.work);
    ArtifactPublish(ArtifactPublish) = ARTIFACT_PUBLISH => |b| subject::artifact(&b.key);
    ArtifactReplay(ArtifactReplay) = ARTIFACT_REPLAY => |b| subject::artifact(&b.key);
    ArtifactReject(ArtifactReject) = ARTIFACT_REJECT => |b| subject::artifact(&b.key);
    /// A deliberate restore accepted (`locker checkpoint --accept-rollback`).
    RepoRollback(RepoRollback) = REPO_ROLLBACK => |_b| subject::REPO.to_owned();
}

impl Event {
    /// The pad a `pad.*` event is about.
    pub fn pad_id(&self) -> Option<&str> {
        Some(match self {
            Self::PadCreate(b) => &b.pad_id,
            Self::PadAppend(b) => &b.pad_id,
            Self::PadSeal(b) => &b.pad_id,
            Self::PadTicket(b) => &b.pad_id,
            Self::PadTicketRevoke(b) => &b.pad_id,
            Self::PadReadLease(b) => &b.pad_id,
            Self::PadDeposit(b) => &b.pad_id,
            Self::PadImport(b) => &b.pad_id,
            _ => return None,
        })
    }

    /// Whether entries of this kind may carry a signature: pad appends, artifact publishes and
    /// steps.
    pub fn signable(&self) -> bool {
        matches!(self, Self::PadAppend(_) | Self::ArtifactPublish(_) | Self::StepRecord(_))
    }

    /// The signature a signable entry carries.
    pub fn signed(&self) -> Option<&Signed> {
        match self {
            Self::PadAppend(b) => b.signed.as_ref(),
            Self::ArtifactPublish(b) => b.signed.as_ref(),
            Self::StepRecord(b) => b.signed.as_ref(),
            _ => None,
        }
    }
}

/// `deserialize_with` for a field that may be absent, `null` or a value
/// (`Option<Option<T>>`): absent is `None` (with `#[serde(default)]`), `null` is `Some(None)`.
pub(crate) fn nullable<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// `skip_serializing_if` for a `bool` written only when it is `true`.
#[allow(clippy::trivially_copy_pass_by_ref)]
pub(crate) fn is_false(b: &bool) -> bool {
    !*b
}

#[cfg(test)]
mod tests;
