//! The log's identity as a process sees it: its name, where its signing key and high-water mark
//! are, and whether this process signs or serves what the signer stored
//! ([`super::signer`] decides whose turn it is).

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::domain::note::{Signer, Verifier};
use crate::ops::{ErrorKind, OpError, OpResult};
use crate::store::{SignerRow, Tx};

/// The log: where its key and high-water mark are, what it is called, and how this process
/// signs (see [`crate::ops::log::signer`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogIdentity {
    /// The repository's `.locker/` (its `keys/` holds the high-water mark, and the key by
    /// default); it need not exist (`locker serve --store URL` on a host with no repository).
    pub dot: PathBuf,
    pub origin: String,
    /// Where the signing key is.
    pub key: LogKey,
    /// The directory whose `keys/log.checkpoint` is the high-water mark of what this host
    /// signed: `.locker/`, else (a host with a key file and no repository) one under the user's
    /// state directory; none on a host without the key.
    pub mark: Option<PathBuf>,
    /// Whether this process keeps the turn to sign between checkpoints (`locker serve`), or takes
    /// it only for the transaction it signs in (a command).
    pub keeps_turn: bool,
    /// The signing key once read: parsed once per process (and its clones), where possible
    /// before a transaction that signs begins ([`LogIdentity::preload`]).
    loaded: Loaded,
}

/// A signing key read once, shared by the clones of a [`LogIdentity`].
#[derive(Clone, Default)]
struct Loaded(Arc<OnceLock<Signer>>);

impl std::fmt::Debug for Loaded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.get().is_some() { "Loaded(key)" } else { "Loaded(none)" })
    }
}

/// A cache: two identities are equal whether or not either has read its key yet.
impl PartialEq for Loaded {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
impl Eq for Loaded {}

/// Where a process finds the log's signing key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogKey {
    /// `.locker/keys/log.key`, made on first use unless the store records a log key already.
    Repo,
    /// A file named with `--log-key` or `LOCKER_LOG_KEY` (e.g. a secret mount): never made here.
    File(PathBuf),
    /// None: this host serves the checkpoints the signer stored.
    Absent,
}

impl LogIdentity {
    /// The log of the repository whose `.locker/` is `dot` (with no `.locker/`, a host without
    /// the key).
    pub fn new(dot: &Path, config: &crate::repo::Config) -> Self {
        let (key, mark) = if dot.is_dir() {
            (LogKey::Repo, Some(dot.to_owned()))
        } else {
            (LogKey::Absent, None)
        };
        let origin = config.origin();
        Self {
            dot: dot.to_owned(),
            origin,
            key,
            mark,
            keeps_turn: false,
            loaded: Loaded::default(),
        }
    }

    /// The key read from `file` instead (`--log-key`), if one is given.
    #[must_use]
    pub fn with_key_file(mut self, file: Option<&Path>) -> Self {
        if let Some(f) = file {
            self.key = LogKey::File(f.to_owned());
            self.loaded = Loaded::default();
            if self.mark.is_none() {
                self.mark = crate::repo::mark::state_home(&self.origin);
            }
        }
        self
    }

    /// A server: keeps the turn to sign while it runs.
    #[must_use]
    pub fn keeping_turn(mut self) -> Self {
        self.keeps_turn = true;
        self
    }

    /// Whether this process has a key to sign with (it may still wait for its turn).
    pub fn has_key(&self) -> bool {
        !matches!(self.key, LogKey::Absent)
    }

    /// The signing key (`.locker/keys/log.key` is made on first use); an error where this
    /// process has none.
    pub fn signer(&self) -> OpResult<Signer> {
        if let Some(s) = self.loaded.0.get() {
            return Ok(s.clone());
        }
        let s = match &self.key {
            LogKey::Repo => crate::repo::log_signer(&self.dot, &self.origin)?,
            LogKey::File(f) => crate::repo::read_log_key(f, &self.origin)?,
            LogKey::Absent => return Err(not_signer(None)),
        };
        Ok(self.loaded.0.get_or_init(|| s).clone())
    }

    /// Reads the signing key now if this process has one (never makes one), so that a
    /// transaction about to sign does not parse it while it holds the store's write lock.
    pub fn preload(&self) {
        let present = match &self.key {
            LogKey::Repo => crate::repo::has_log_key(&self.dot),
            LogKey::File(_) => true,
            LogKey::Absent => false,
        };
        if present {
            let _ = self.signer();
        }
    }

    /// The key to sign with, given the store's record `recorded` of the log's key: none where
    /// this process has no key, or where the repository's key file was never made and the
    /// store names a key already (another host signs: this one must not make a rival key).
    pub fn signing_key(&self, recorded: Option<&SignerRow>) -> OpResult<Option<Signer>> {
        match &self.key {
            LogKey::Repo if recorded.is_some() && !crate::repo::has_log_key(&self.dot) => Ok(None),
            LogKey::Absent => Ok(None),
            _ => self.signer().map(Some),
        }
    }

    /// The log's verifier key: this process's key's, else the one the store records (a host
    /// without the key); an error when neither exists.
    pub fn public(&self, tx: &dyn Tx) -> OpResult<Verifier> {
        let recorded = recorded(tx)?;
        match (&self.key, recorded) {
            (LogKey::File(_), _) => Ok(self.signer()?.verifier()),
            (LogKey::Repo, _) if crate::repo::has_log_key(&self.dot) => {
                Ok(self.signer()?.verifier())
            }
            (_, Some(v)) => Ok(v),
            (LogKey::Repo, None) => Ok(self.signer()?.verifier()),
            (LogKey::Absent, None) => Err(not_signer(None)),
        }
    }

    /// The verifier key, if this process has the log key (never creates one: what a reader of
    /// the repository, such as `locker verify`, uses).
    pub fn verifier(&self) -> OpResult<Option<Verifier>> {
        match &self.key {
            LogKey::Repo => Ok(crate::repo::log_verifier(&self.dot, &self.origin)?),
            LogKey::File(_) => Ok(Some(self.signer()?.verifier())),
            LogKey::Absent => Ok(None),
        }
    }
}

/// The log's verifier key as the store records it (none before the first checkpoint).
pub fn recorded(tx: &dyn Tx) -> OpResult<Option<Verifier>> {
    let Some(row) = tx.log_signer()? else { return Ok(None) };
    Verifier::parse(&row.vkey).map(Some).map_err(|e| {
        OpError::integrity(format!(
            "the log's verifier key recorded in the store is unreadable: {e}"
        ))
    })
}

/// The refusal to sign while another process holds the turn (or while this one has no key).
pub fn not_signer(row: Option<&SignerRow>) -> OpError {
    let detail = match row {
        Some(r) => format!(
            "checkpoints of this log are signed by {} (turn {}, until {}); this process does \
             not sign while it holds the turn",
            r.holder, r.fence, r.expires_at
        ),
        None => "this host has no log key: it serves the checkpoints the signer stored".into(),
    };
    OpError::new(ErrorKind::Unavailable, "not_signer", detail)
        .hint("The signer signs the journal as it grows; retry shortly for a newer checkpoint.")
}

/// Whether `e` is [`not_signer`]: the caller serves the newest stored checkpoint instead.
pub fn is_not_signer(e: &OpError) -> bool {
    e.code == "not_signer"
}
