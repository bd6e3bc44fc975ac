//! The storage trait and its backends.
//!
//! [`Store`] opens transactions; a [`Tx`] reads and writes rows. Every rule (check order,
//! hashing, journaling) lives above this trait in `ops`, so another backend (PostgreSQL, for
//! several servers sharing one repository) only has to persist rows and serialise writers:
//! a write transaction must hold a lock that excludes every other writer of the repository
//! from its first read to its commit.

mod maintenance;
pub mod objects;
pub mod postgres;
pub mod sqlite;

use std::path::Path;

pub use maintenance::{BackupStats, BlobFiles, CheckpointStats, Maintenance, StrayFile};

use crate::domain::digest::Digest;
use crate::domain::pad::{StoredState, TicketType};
use crate::domain::work::LeaseState;

/// A failure of the storage layer.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("the repository's schema version {found} is newer than this locker supports ({supported}); upgrade locker")]
    SchemaTooNew { found: i64, supported: i64 },
    #[error("the store is busy: another writer held the repository for too long")]
    Busy,
    #[error("the stored data is malformed: {0}")]
    Corrupt(String),
    #[error("a unique constraint was violated: {0}")]
    Duplicate(String),
    #[error("the disk is full")]
    DiskFull,
    #[error("the repository is read-only")]
    ReadOnly,
    #[error("storage I/O failed: {0}")]
    Io(String),
    /// Any other failure of the backend, in its own words: `backend` names it for people
    /// (`SQLite`, `PostgreSQL`).
    #[error("{backend}: {detail}")]
    Backend { backend: &'static str, detail: String },
    #[error("{0}")]
    Unsupported(String),
    #[error("blob {digest} is missing from the store ({location})")]
    BlobMissing { digest: Digest, location: String },
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// A pad's row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PadRow {
    pub id: String,
    pub scope: String,
    pub created_at: i64,
    pub expires_at: i64,
    pub max_blocks: u32,
    pub max_bytes: u64,
    pub block_count: u64,
    pub current_bytes: u64,
    pub state: StoredState,
    pub write_key_hash: Digest,
    pub head_hash: Digest,
    pub sealed_at: Option<i64>,
    /// When `locker gc` removed the payloads of its blocks (see [`BlockRow::pruned_bytes`]).
    pub pruned_at: Option<i64>,
}

/// One block of a pad.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockRow {
    pub pad_id: String,
    pub seq: u64,
    pub prev_hash: Digest,
    pub curr_hash: Digest,
    pub content_type: String,
    /// The exact payload bytes; empty once pruned.
    pub payload: Vec<u8>,
    pub created_at: i64,
    /// `Some(length)` once `locker gc` has removed the payload: the hashes stay, so the chain
    /// still links, but the payload can no longer be re-hashed or read.
    pub pruned_bytes: Option<u64>,
}

/// A read ticket, known only by its digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TicketRow {
    pub digest: Digest,
    pub pad_id: String,
    pub ticket_type: TicketType,
    pub created_at: i64,
    pub lease_started_at: Option<i64>,
    pub revoked_at: Option<i64>,
}

/// One journal entry as stored: the hashed bytes plus the columns that index them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JournalRow {
    pub seq: u64,
    pub prev_hash: Digest,
    pub hash: Digest,
    pub entry: Vec<u8>,
    pub time: i64,
    pub kind: String,
    pub actor: String,
    pub scope: String,
    pub subject: String,
}

/// The journal's stored head.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JournalHead {
    pub seq: u64,
    pub hash: Digest,
}

/// A checkpoint the repository's log key signed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckpointRow {
    pub size: u64,
    pub root: Digest,
    /// The C2SP signed note, exactly as signed.
    pub note: String,
    pub signed_at: i64,
}

/// A lease on a work item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaseRow {
    /// Random id (32 lowercase hex characters).
    pub id: String,
    pub scope: String,
    pub work: String,
    /// The fencing token: 1 for a work item's first lease, one more for each later one.
    pub fence: u64,
    pub holder: String,
    pub state: LeaseState,
    pub ttl: i64,
    pub acquired_at: i64,
    pub expires_at: i64,
    pub heartbeats: u64,
    pub heartbeat_at: Option<i64>,
    pub details: Option<String>,
    pub ended_at: Option<i64>,
    pub result: Option<String>,
    /// When `locker gc` removed the text of this abandoned lease and of its plans and steps.
    pub pruned_at: Option<i64>,
}

/// One version of a work item's plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanRow {
    pub scope: String,
    pub work: String,
    /// 1, 2, 3… per work item.
    pub version: u64,
    pub lease_id: String,
    /// The steps as stored: a JSON array of unique step names, exactly as the journal's
    /// `manifest.commit` entry encodes them (parsed above the store, so a damaged row is
    /// reported rather than fatal).
    pub steps_json: String,
    pub committed_at: i64,
    /// When `locker gc` removed the steps (then `[]`) with the rest of its abandoned lease.
    pub pruned_at: Option<i64>,
}

/// One step logged under a lease.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepRow {
    pub scope: String,
    pub work: String,
    pub lease_id: String,
    pub step: String,
    pub planned: Option<String>,
    pub executed: Option<String>,
    pub gate: String,
    pub recorded_at: i64,
    /// When `locker gc` removed `planned` and `executed` with the rest of its abandoned lease.
    pub pruned_at: Option<i64>,
}

/// Filters for listing leases.
#[derive(Debug, Clone, Default)]
pub struct LeaseQuery {
    pub scope: Option<String>,
    pub state: Option<LeaseState>,
    pub limit: u64,
}

/// A page of the journal.
#[derive(Debug, Clone, Default)]
pub struct JournalQuery {
    /// Exact kind, or a prefix when it ends with `.` (e.g. `pad.`).
    pub kind: Option<String>,
    pub subject: Option<String>,
    pub actor: Option<String>,
    pub scope: Option<String>,
    /// Only entries with a sequence number greater than this.
    pub after: Option<u64>,
    /// Only entries with a sequence number smaller than this.
    pub before: Option<u64>,
    /// Oldest first instead of newest first.
    pub ascending: bool,
    pub limit: u64,
}

/// Filters for listing pads.
#[derive(Debug, Clone, Default)]
pub struct PadQuery {
    pub scope: Option<String>,
    /// Only pads whose id sorts after this (for paging).
    pub after: Option<String>,
    pub limit: u64,
}

/// An agent and its token, known only by its digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentRow {
    pub name: String,
    pub scope: String,
    pub token_hash: Digest,
    pub created_at: i64,
    pub revoked_at: Option<i64>,
}

/// Where a blob's bytes are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlobStorage {
    /// In the database row.
    Inline,
    /// In a file of its own (SQLite: `.locker/objects/ab/cdef…`).
    File,
}

/// A content-addressed blob's metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlobRow {
    pub digest: Digest,
    pub size: u64,
    pub storage: BlobStorage,
    /// Where the bytes are, for messages: `inline`, or `objects/ab/cdef…`.
    pub location: String,
    pub created_at: i64,
}

/// One immutable version of an artifact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArtifactVersionRow {
    pub scope: String,
    pub key: String,
    pub version: u64,
    /// The SHA-256 of the content: the blob holding it.
    pub blob: Digest,
    pub size: u64,
    pub actor: String,
    pub op_id: String,
    pub created_at: i64,
}

/// A key's current version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArtifactHeadRow {
    pub scope: String,
    pub key: String,
    pub version: u64,
}

/// The receipt of an accepted publish: what an operation id was first used for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceiptRow {
    pub actor: String,
    pub op_id: String,
    pub scope: String,
    pub key: String,
    pub expected_version: u64,
    pub version: u64,
    pub created_at: i64,
    /// The lease fencing token the publish carried, if any.
    pub fence: Option<crate::domain::work::Fence>,
}

/// An agent's registered signing key (`locker key generate`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentKeyRow {
    pub agent: String,
    /// The signed-note key id, 8 lowercase hex characters.
    pub key_id: String,
    /// The public key in signed-note form (`<agent>+<key id>+<base64>`).
    pub vkey: String,
    pub created_at: i64,
    pub revoked_at: Option<i64>,
}

/// A redeemed payment: the transaction that paid for a pad (pay-per-pad).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentRow {
    /// The transaction hash, lower case; spent forever.
    pub tx_hash: String,
    pub pad_id: String,
    pub payer: String,
    /// Token units, as a decimal string (they may exceed i64).
    pub amount_units: String,
    pub token: String,
    pub recipient: String,
    pub chain_id: u64,
    pub block_number: u64,
    pub redeemed_at: i64,
}

/// A page of a scope's artifacts, by key.
#[derive(Debug, Clone, Default)]
pub struct ArtifactQuery {
    pub scope: String,
    /// Only keys that sort after this (for paging).
    pub after: Option<String>,
    pub limit: u64,
}

/// Row counts, for progress bars.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub journal: u64,
    pub pads: u64,
    pub blocks: u64,
}

/// Facts about a store read without opening it for use (no migration, no writes), for
/// `locker doctor`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreInfo {
    pub kind: &'static str,
    /// The schema version the stored data has, and the one this binary writes.
    pub schema_version: i64,
    pub supported_schema: i64,
    /// The store's files (relative to `.locker/`) and their sizes; none for a database kept
    /// by a server.
    pub files: Vec<(String, u64)>,
    /// The time of the newest journal entry, if any.
    pub newest_journal_time: Option<i64>,
    /// What only a SQLite store has.
    pub sqlite: Option<SqliteInfo>,
}

/// Facts only a SQLite store has.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SqliteInfo {
    /// Bytes of the write-ahead log not yet folded into the database (0 if none).
    pub wal_bytes: u64,
    /// Unused pages inside the database file, in bytes.
    pub free_bytes: u64,
}

/// A callback's answer while streaming rows.
pub type Flow = std::ops::ControlFlow<()>;

/// A repository store.
pub trait Store: Send {
    /// `"sqlite"` or `"postgres"`.
    fn kind(&self) -> &'static str;
    /// A consistent read-only snapshot.
    fn read(&mut self) -> Result<Box<dyn Tx + '_>>;
    /// A write transaction holding the repository's write lock from its start to its commit.
    fn write(&mut self) -> Result<Box<dyn Tx + '_>>;
    /// A group commit: one write transaction (holding the write lock like [`Store::write`])
    /// in which several operations run one after another, each in a nested transaction of
    /// its own, made durable together by [`Group::commit`].
    fn group(&mut self) -> Result<Box<dyn Group + '_>>;
    /// The store's own housekeeping (SQLite: its write-ahead log, file-by-file backups), or
    /// `None` when it has none (PostgreSQL looks after itself) or none can run here (the store
    /// a [`Group`] lends).
    fn maintenance(&mut self) -> Option<&mut dyn Maintenance>;
}

/// One write transaction shared by several operations. The store it lends
/// ([`Group::store`]) opens a nested transaction (a savepoint) on every `read()` and
/// `write()`: committing one keeps its changes in the group, dropping one undoes its changes
/// and nothing else. Nothing is durable before [`Group::commit`]; dropping the group undoes
/// everything.
pub trait Group: Send {
    /// The store the next operation runs on.
    fn store(&mut self) -> &mut dyn Store;
    /// Whether the group's transaction is still open (a storage failure can end it early,
    /// undoing everything done in it so far).
    fn is_open(&self) -> bool;
    /// Makes every kept change durable at once.
    fn commit(self: Box<Self>) -> Result<()>;
}

/// The store a backend's [`Group`] lends: every transaction it opens is a savepoint inside the
/// group's one write transaction. Each such type is a [`Store`] through the impl below, so what
/// a group refuses is written once for every backend.
pub trait Savepoints: Send {
    /// The backend's [`Store::kind`].
    fn backend_kind(&self) -> &'static str;
    /// A nested transaction (a savepoint), read-only unless `writable`.
    fn savepoint(&mut self, writable: bool) -> Result<Box<dyn Tx + '_>>;
}

impl<S: Savepoints> Store for S {
    fn kind(&self) -> &'static str {
        self.backend_kind()
    }

    fn read(&mut self) -> Result<Box<dyn Tx + '_>> {
        self.savepoint(false)
    }

    fn write(&mut self) -> Result<Box<dyn Tx + '_>> {
        self.savepoint(true)
    }

    fn group(&mut self) -> Result<Box<dyn Group + '_>> {
        Err(StoreError::Io("a group cannot be opened inside a group".into()))
    }

    fn maintenance(&mut self) -> Option<&mut dyn Maintenance> {
        // Housekeeping never runs inside a group's transaction.
        None
    }
}

/// A transaction. Dropping it without [`Tx::commit`] rolls it back.
pub trait Tx {
    fn pad(&self, id: &str) -> Result<Option<PadRow>>;
    fn pads(&self, q: &PadQuery) -> Result<Vec<PadRow>>;
    fn for_each_pad(&self, f: &mut dyn FnMut(PadRow) -> Flow) -> Result<()>;
    /// Blocks `from..=to` of a pad, in order.
    fn blocks(&self, pad: &str, from: u64, to: u64) -> Result<Vec<BlockRow>>;
    /// Sum of the payload lengths of blocks `from..=to`.
    fn blocks_bytes(&self, pad: &str, from: u64, to: u64) -> Result<u64>;
    /// Every stored block of a pad, in sequence order, one at a time.
    fn for_each_block(&self, pad: &str, f: &mut dyn FnMut(BlockRow) -> Flow) -> Result<()>;
    fn ticket(&self, digest: &Digest) -> Result<Option<TicketRow>>;
    /// Every ticket, one at a time.
    fn for_each_ticket(&self, f: &mut dyn FnMut(TicketRow) -> Flow) -> Result<()>;
    fn journal_head(&self) -> Result<Option<JournalHead>>;
    fn journal(&self, q: &JournalQuery) -> Result<Vec<JournalRow>>;
    /// Every journal entry in sequence order, one at a time.
    fn for_each_journal(&self, f: &mut dyn FnMut(JournalRow) -> Flow) -> Result<()>;
    fn counts(&self) -> Result<Counts>;

    /// A lease by id.
    fn lease(&self, id: &str) -> Result<Option<LeaseRow>>;
    /// A work item's lease with the highest fencing token.
    fn newest_lease(&self, scope: &str, work: &str) -> Result<Option<LeaseRow>>;
    /// A work item's leases, by fencing token.
    fn work_leases(&self, scope: &str, work: &str) -> Result<Vec<LeaseRow>>;
    /// Leases matching `q`, by scope, work item and fencing token.
    fn leases(&self, q: &LeaseQuery) -> Result<Vec<LeaseRow>>;
    /// Active leases whose expiry is at or before `now`, in any scope.
    fn expired_leases(&self, now: i64) -> Result<Vec<LeaseRow>>;
    /// Every lease, one at a time.
    fn for_each_lease(&self, f: &mut dyn FnMut(LeaseRow) -> Flow) -> Result<()>;
    /// A work item's plan versions, oldest first.
    fn plans(&self, scope: &str, work: &str) -> Result<Vec<PlanRow>>;
    /// Every plan version, one at a time.
    fn for_each_plan(&self, f: &mut dyn FnMut(PlanRow) -> Flow) -> Result<()>;
    /// One step of a lease.
    fn step(&self, lease_id: &str, step: &str) -> Result<Option<StepRow>>;
    /// A work item's steps, in the order they were recorded.
    fn work_steps(&self, scope: &str, work: &str) -> Result<Vec<StepRow>>;
    /// Every step, one at a time.
    fn for_each_step(&self, f: &mut dyn FnMut(StepRow) -> Flow) -> Result<()>;

    fn insert_pad(&mut self, pad: &PadRow) -> Result<()>;
    /// Writes a pad's mutable fields (counts, head, state, sealed_at).
    fn update_pad(&mut self, pad: &PadRow) -> Result<()>;
    fn insert_block(&mut self, block: &BlockRow) -> Result<()>;
    fn insert_ticket(&mut self, t: &TicketRow) -> Result<()>;
    /// Writes a ticket's mutable fields (lease start, revocation).
    fn update_ticket(&mut self, t: &TicketRow) -> Result<()>;
    fn insert_lease(&mut self, l: &LeaseRow) -> Result<()>;
    /// Writes a lease's mutable fields (state, expiry, heartbeat, end, result).
    fn update_lease(&mut self, l: &LeaseRow) -> Result<()>;
    fn insert_plan(&mut self, p: &PlanRow) -> Result<()>;
    fn insert_step(&mut self, s: &StepRow) -> Result<()>;
    /// Appends a journal row and moves the journal head to it.
    fn insert_journal(&mut self, row: &JournalRow) -> Result<()>;

    // The journal's Merkle tree and signed checkpoints (see `domain::merkle`).
    /// How many Merkle hashes are stored (the highest position plus one).
    fn merkle_count(&self) -> Result<u64>;
    /// The Merkle hash stored at position `idx`.
    fn merkle_hash(&self, idx: u64) -> Result<Option<Digest>>;
    /// Every stored Merkle hash, by position, one at a time.
    fn for_each_merkle_hash(&self, f: &mut dyn FnMut(u64, Digest) -> Flow) -> Result<()>;
    /// Stores `hashes` at positions `start..`.
    fn insert_merkle_hashes(&mut self, start: u64, hashes: &[Digest]) -> Result<()>;
    /// The signed checkpoint with the largest tree size.
    fn latest_checkpoint(&self) -> Result<Option<CheckpointRow>>;
    fn checkpoint_at(&self, size: u64) -> Result<Option<CheckpointRow>>;
    /// Every signed checkpoint, by size, one at a time.
    fn for_each_checkpoint(&self, f: &mut dyn FnMut(CheckpointRow) -> Flow) -> Result<()>;
    fn insert_checkpoint(&mut self, c: &CheckpointRow) -> Result<()>;
    /// Replaces a stored checkpoint's note (the same checkpoint with witnesses' cosignatures
    /// added).
    fn set_checkpoint_note(&mut self, size: u64, note: &str) -> Result<()>;

    // Agents and their tokens.
    fn agent(&self, name: &str) -> Result<Option<AgentRow>>;
    fn agent_by_token(&self, token_hash: &Digest) -> Result<Option<AgentRow>>;
    /// Every agent, by name, one at a time.
    fn for_each_agent(&self, f: &mut dyn FnMut(AgentRow) -> Flow) -> Result<()>;
    fn insert_agent(&mut self, a: &AgentRow) -> Result<()>;
    /// Writes an agent's mutable field (its revocation).
    fn update_agent(&mut self, a: &AgentRow) -> Result<()>;

    // Content-addressed blobs. The store keeps the bytes; callers re-hash them on every read.
    fn blob_row(&self, digest: &Digest) -> Result<Option<BlobRow>>;
    /// A blob's stored bytes as they are (unchecked); `None` when there is no such blob, and
    /// [`StoreError::BlobMissing`] when its row exists but its bytes are gone.
    fn blob(&self, digest: &Digest) -> Result<Option<Vec<u8>>>;
    /// Stores `bytes` under `digest` (their SHA-256, computed by the caller) unless a blob with
    /// that digest exists. Bytes written outside the database are removed again when the
    /// transaction is not committed.
    fn put_blob(&mut self, digest: &Digest, bytes: &[u8], now: i64) -> Result<()>;
    /// Every blob, by digest, one at a time.
    fn for_each_blob(&self, f: &mut dyn FnMut(BlobRow) -> Flow) -> Result<()>;

    // Versioned artifacts.
    fn artifact_head(&self, scope: &str, key: &str) -> Result<Option<u64>>;
    fn artifact_version(
        &self,
        scope: &str,
        key: &str,
        version: u64,
    ) -> Result<Option<ArtifactVersionRow>>;
    /// Versions of a key after `after`, oldest first, at most `limit`.
    fn artifact_versions(
        &self,
        scope: &str,
        key: &str,
        after: u64,
        limit: u64,
    ) -> Result<Vec<ArtifactVersionRow>>;
    /// The head version of each key in a scope, by key.
    fn artifact_heads(&self, q: &ArtifactQuery) -> Result<Vec<ArtifactVersionRow>>;
    /// Every stored version, by scope, key and version, one at a time.
    fn for_each_artifact_version(
        &self,
        f: &mut dyn FnMut(ArtifactVersionRow) -> Flow,
    ) -> Result<()>;
    /// Every stored head, by scope and key, one at a time.
    fn for_each_artifact_head(&self, f: &mut dyn FnMut(ArtifactHeadRow) -> Flow) -> Result<()>;
    fn receipt(&self, actor: &str, op_id: &str) -> Result<Option<ReceiptRow>>;
    /// Every receipt, by actor and operation id, one at a time.
    fn for_each_receipt(&self, f: &mut dyn FnMut(ReceiptRow) -> Flow) -> Result<()>;
    fn insert_artifact_version(&mut self, v: &ArtifactVersionRow) -> Result<()>;
    /// Creates or moves a key's head.
    fn set_artifact_head(&mut self, h: &ArtifactHeadRow) -> Result<()>;
    fn insert_receipt(&mut self, r: &ReceiptRow) -> Result<()>;

    // Agent signing keys and repository settings.
    /// An agent's keys, oldest first.
    fn agent_keys(&self, agent: &str) -> Result<Vec<AgentKeyRow>>;
    /// Every agent key, by agent and key id, one at a time.
    fn for_each_agent_key(&self, f: &mut dyn FnMut(AgentKeyRow) -> Flow) -> Result<()>;
    fn insert_agent_key(&mut self, k: &AgentKeyRow) -> Result<()>;
    /// Stores a key's `revoked_at`.
    fn update_agent_key(&mut self, k: &AgentKeyRow) -> Result<()>;
    /// A repository setting's value.
    fn setting(&self, name: &str) -> Result<Option<String>>;
    /// Every setting, by name.
    fn for_each_setting(&self, f: &mut dyn FnMut((String, String)) -> Flow) -> Result<()>;
    /// Creates or changes a setting.
    fn set_setting(&mut self, name: &str, value: &str) -> Result<()>;

    // Redeemed payments (pay-per-pad).
    fn payment(&self, tx_hash: &str) -> Result<Option<PaymentRow>>;
    /// Every redeemed payment, by hash, one at a time.
    fn for_each_payment(&self, f: &mut dyn FnMut(PaymentRow) -> Flow) -> Result<()>;
    /// Records a payment; a spent hash is [`StoreError::Duplicate`].
    fn insert_payment(&mut self, p: &PaymentRow) -> Result<()>;
    // Retention (`locker gc`).
    /// Removes the payloads of a pad's blocks, keeping their hashes and lengths, and records
    /// `now` as the pad's `pruned_at`. Returns the blocks pruned.
    fn prune_pad(&mut self, pad_id: &str, now: i64) -> Result<u64>;
    /// Removes the text of an abandoned lease (details, result), of the plans committed under
    /// it (steps become `[]`) and of its steps (planned, executed), recording `now` as each
    /// row's `pruned_at`. Fencing tokens, versions, names and times stay.
    fn prune_lease_work(&mut self, lease_id: &str, now: i64) -> Result<()>;
    /// Blobs that no artifact version names, by digest.
    fn unreferenced_blobs(&self) -> Result<Vec<BlobRow>>;
    /// Deletes a blob's row; a file holding its bytes is removed once the transaction commits.
    fn delete_blob(&mut self, digest: &Digest) -> Result<()>;
    /// The blob files this store keeps outside its database (SQLite's `objects/`), or `None`
    /// when every blob is a row (PostgreSQL): then no file can stray.
    fn blob_files(&mut self) -> Option<&mut dyn BlobFiles>;

    fn commit(self: Box<Self>) -> Result<()>;
}

/// Where a repository's store is: the `store` of its `config.json` (`sqlite:FILE`, relative to
/// `.locker/`, or `postgres://USER@HOST:PORT/DATABASE`) and, for PostgreSQL, the file holding
/// the password (else `PGPASSWORD` or `~/.pgpass`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreUrl {
    pub url: String,
    pub password_file: Option<std::path::PathBuf>,
}

impl StoreUrl {
    /// A store URL without a password file.
    pub fn new(url: impl Into<String>) -> Self {
        Self { url: url.into(), password_file: None }
    }

    /// Whether it names a PostgreSQL database.
    pub fn is_postgres(&self) -> bool {
        postgres::is_url(&self.url)
    }
}

/// Reads facts about the store a repository's config names without opening it for use.
pub fn inspect(loc: &StoreUrl, dot_locker: &Path) -> Result<StoreInfo> {
    if loc.is_postgres() {
        return postgres::inspect(&loc.url, loc.password_file.as_deref());
    }
    match loc.url.strip_prefix("sqlite:") {
        Some(rel) => sqlite::inspect(&dot_locker.join(rel)),
        None => Err(StoreError::Corrupt(format!("unknown store `{}` in config.json", loc.url))),
    }
}

/// Opens the store a repository's config names (a SQLite file relative to its `.locker/`
/// directory, or a PostgreSQL database), bringing its schema up to date.
pub fn open(loc: &StoreUrl, dot_locker: &Path) -> Result<Box<dyn Store>> {
    if loc.is_postgres() {
        return Ok(Box::new(postgres::PgStore::open(&loc.url, loc.password_file.as_deref())?));
    }
    match loc.url.strip_prefix("sqlite:") {
        Some(rel) => Ok(Box::new(sqlite::SqliteStore::open(&dot_locker.join(rel))?)),
        None => Err(StoreError::Corrupt(format!("unknown store `{}` in config.json", loc.url))),
    }
}
