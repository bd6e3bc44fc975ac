//! The repository: a `.locker/` directory found like git finds `.git/`.
//!
//! ```text
//! .locker/            0700
//!   config.json       0600  {"format": 1, "repository_id": …, "created_at": …, "store": "sqlite:locker.db"}
//!   locker.db         0600  SQLite, WAL
//!   objects/          0700  content-addressed blobs too large to keep inline
//!   keys/             0700
//!     log.key         0600  the log's Ed25519 signing key (`PRIVATE+KEY+<origin>+…`)
//!     log.checkpoint  0600  the newest checkpoint it signed here: the high-water mark ([`mark`])
//! ```
//!
//! With a PostgreSQL store (`locker init --store postgres://…`), `.locker/` holds only
//! `config.json`, whose `store` is the database's URL (never with a password: that comes from
//! the file `store_password_file` names, `PGPASSWORD` or `~/.pgpass`). Several `.locker/`
//! directories, on several hosts, can name one database: they are one repository.

use std::fs;
use std::io::Write as _;
use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::domain::{event, note};
use crate::store::{self, Store, StoreError};

pub mod mark;

/// The repository directory's name.
pub const DOT_LOCKER: &str = ".locker";
/// The config file inside it.
pub const CONFIG_FILE: &str = "config.json";
/// The SQLite database inside it.
pub const DB_FILE: &str = "locker.db";
/// The blob directory inside it.
pub const OBJECTS_DIR: &str = "objects";
/// The key directory inside it.
pub const KEYS_DIR: &str = "keys";
/// The log's signing key inside the key directory.
pub const LOG_KEY_FILE: &str = "log.key";
/// The repository format this binary reads and writes.
pub const FORMAT: u32 = 1;

/// `.locker/config.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Config {
    pub format: u32,
    pub repository_id: String,
    pub created_at: i64,
    pub store: String,
    /// PostgreSQL: the file holding the database password (its first line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store_password_file: Option<PathBuf>,
    /// The log's origin: the name its checkpoints and verifier key carry
    /// (default `locker/<repository_id>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
}

impl Config {
    /// Where the store is.
    pub fn store_location(&self) -> store::StoreUrl {
        store::StoreUrl { url: self.store.clone(), password_file: self.store_password_file.clone() }
    }

    /// The log's origin.
    pub fn origin(&self) -> String {
        self.origin.clone().unwrap_or_else(|| format!("locker/{}", self.repository_id))
    }
}

/// A failure to find, create or open a repository.
#[derive(Debug, thiserror::Error)]
pub enum RepoError {
    #[error("there is no locker repository in {} (or any parent directory)", .0.display())]
    NotFound(PathBuf),
    #[error("{} has no locker repository", .0.display())]
    NotFoundAt(PathBuf),
    #[error("{} is a symbolic link; locker refuses to follow it", .0.display())]
    Symlink(PathBuf),
    #[error("{} is not a valid locker repository: {reason}", .path.display())]
    Invalid { path: PathBuf, reason: String },
    #[error("the repository format {found} is newer than this locker supports ({supported}); upgrade locker")]
    FormatTooNew { found: u32, supported: u32 },
    #[error("{}: {source}", .path.display())]
    Io { path: PathBuf, source: std::io::Error },
    /// The database lost entries the log key here already signed (see [`mark`]).
    #[error("{0}")]
    RolledBack(mark::Rollback),
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> RepoError + '_ {
    move |source| RepoError::Io { path: path.to_owned(), source }
}

/// An open repository.
pub struct Repo {
    /// The directory that holds `.locker/`.
    pub root: PathBuf,
    /// The `.locker/` directory.
    pub dot: PathBuf,
    pub config: Config,
    pub store: Box<dyn Store>,
    /// What the database lost against the log key's high-water mark, when it was opened with
    /// [`Opening::Inspect`] (a checked opening refuses such a database instead).
    pub rollback: Option<mark::Rollback>,
}

/// How a repository is opened.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Opening {
    /// Refuse a database that lost entries the log key signed (every command but the few
    /// below).
    #[default]
    Checked,
    /// Open it anyway, recording what it lost in [`Repo::rollback`]: for `locker verify`
    /// (which reports it), `locker doctor` and accepting a deliberate restore.
    Inspect,
}

impl std::fmt::Debug for Repo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Repo").field("root", &self.root).field("config", &self.config).finish()
    }
}

/// Where a command looks for its repository.
#[derive(Debug, Clone)]
pub enum Location {
    /// `-R PATH` or `LOCKER_DIR`: exactly this directory holds `.locker/`.
    Exact(PathBuf),
    /// Search this directory and its parents.
    Search(PathBuf),
}

/// Finds the directory holding `.locker/`.
pub fn discover(loc: &Location) -> Result<PathBuf, RepoError> {
    match loc {
        Location::Exact(dir) => {
            let dot = dir.join(DOT_LOCKER);
            match fs::symlink_metadata(&dot) {
                Ok(m) if m.file_type().is_symlink() => Err(RepoError::Symlink(dot)),
                Ok(m) if m.is_dir() => Ok(dir.clone()),
                _ => Err(RepoError::NotFoundAt(dir.clone())),
            }
        }
        Location::Search(start) => {
            for dir in start.ancestors() {
                let dot = dir.join(DOT_LOCKER);
                match fs::symlink_metadata(&dot) {
                    Ok(m) if m.file_type().is_symlink() => return Err(RepoError::Symlink(dot)),
                    Ok(m) if m.is_dir() => return Ok(dir.to_owned()),
                    _ => {}
                }
            }
            Err(RepoError::NotFound(start.clone()))
        }
    }
}

/// The SQLite database file `config` names inside `dot`: a bare file name (never a path, never a
/// symlink) that exists.
fn sqlite_file(dot: &Path, config: &Config) -> Result<PathBuf, RepoError> {
    let Some(rel) = config.store.strip_prefix("sqlite:") else {
        return Err(RepoError::Invalid {
            path: dot.to_owned(),
            reason: format!("unknown store `{}` in {CONFIG_FILE}", config.store),
        });
    };
    // The database lives inside `.locker/`: a bare file name, never a path.
    if rel.is_empty() || rel.contains(['/', '\\']) || rel == "." || rel == ".." {
        return Err(RepoError::Invalid {
            path: dot.to_owned(),
            reason: format!("its store `{}` must name a file inside .locker/", config.store),
        });
    }
    let db = dot.join(rel);
    refuse_symlink(&db)?;
    if !db.is_file() {
        return Err(RepoError::Invalid {
            path: dot.to_owned(),
            reason: format!("its database `{rel}` is missing"),
        });
    }
    Ok(db)
}

fn refuse_symlink(path: &Path) -> Result<(), RepoError> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(RepoError::Symlink(path.to_owned())),
        _ => Ok(()),
    }
}

impl Repo {
    /// Finds and opens the repository at `loc`.
    pub fn open(loc: &Location) -> Result<Self, RepoError> {
        Self::open_with(loc, Opening::Checked)
    }

    /// Finds and opens the repository at `loc`, as `how` says.
    pub fn open_with(loc: &Location, how: Opening) -> Result<Self, RepoError> {
        let root = discover(loc)?;
        Self::open_root_with(&root, how)
    }

    /// Opens the repository whose `.locker/` is in `root`.
    pub fn open_root(root: &Path) -> Result<Self, RepoError> {
        Self::open_root_with(root, Opening::Checked)
    }

    /// Opens the repository whose `.locker/` is in `root`, as `how` says. The database is
    /// checked against the log key's high-water mark ([`mark`]), read before the database.
    pub fn open_root_with(root: &Path, how: Opening) -> Result<Self, RepoError> {
        let dot = root.join(DOT_LOCKER);
        refuse_symlink(&dot)?;
        let config = read_config(&dot)?;
        let high = mark::load(&dot)?;
        let store = Self::open_store_of(&dot, &config).map_err(|e| match (e, &high) {
            // Only `init` makes a schema: an emptied database is a rollback to nothing.
            (RepoError::Store(StoreError::Uninitialized(_)), Some(m)) => {
                RepoError::RolledBack(mark::Rollback {
                    mark_size: m.size(),
                    mark_root: m.root(),
                    journal_entries: 0,
                    journal_root: None,
                })
            }
            (e, _) => e,
        })?;
        let mut repo = Self { root: root.to_owned(), dot, config, store, rollback: None };
        if let Some(m) = &high {
            repo.rollback = mark::check(repo.store.as_mut(), m)?;
        }
        match (&repo.rollback, how) {
            (Some(rb), Opening::Checked) => Err(RepoError::RolledBack(rb.clone())),
            _ => Ok(repo),
        }
    }

    /// Opens the store `config` names, inside `dot`.
    fn open_store_of(dot: &Path, config: &Config) -> Result<Box<dyn Store>, RepoError> {
        if store::postgres::is_url(&config.store) {
            return Ok(store::open(&config.store_location(), dot)?);
        }
        sqlite_file(dot, config)?;
        Ok(store::open(&config.store_location(), dot)?)
    }

    /// Finds the repository at `loc` and opens its SQLite store for reading only: nothing is
    /// migrated, checked against the log key's mark, or written (shell completion reads ids
    /// with it). A PostgreSQL store is refused.
    pub fn open_read_only(loc: &Location) -> Result<Box<dyn Store>, RepoError> {
        let dot = discover(loc)?.join(DOT_LOCKER);
        refuse_symlink(&dot)?;
        let config = read_config(&dot)?;
        if store::postgres::is_url(&config.store) {
            return Err(RepoError::Store(StoreError::Unsupported(
                "a PostgreSQL store is not opened read-only".into(),
            )));
        }
        sqlite_file(&dot, &config)?;
        Ok(store::open_read_only(&config.store_location(), &dot)?)
    }

    /// Opens the repository a shared store holds, without a `.locker/` directory
    /// (`locker serve --store postgres://…`): `root` stands for where it is served from.
    pub fn open_store(root: &Path, loc: &store::StoreUrl) -> Result<Self, RepoError> {
        let dot = root.join(DOT_LOCKER);
        let mut store = store::open(loc, &dot)?;
        let (repository_id, created_at) = repository_of(store.as_mut())?;
        // The log's name is the one its key signs under, which the store records once a
        // checkpoint was signed (a signing host may have named it in its `.locker/config.json`).
        let origin = store
            .read()?
            .log_signer()?
            .and_then(|r| note::Verifier::parse(&r.vkey).ok())
            .map(|v| v.name);
        let config = Config {
            format: FORMAT,
            repository_id,
            created_at,
            store: loc.url.clone(),
            store_password_file: loc.password_file.clone(),
            origin,
        };
        Ok(Self { root: root.to_owned(), dot, config, store, rollback: None })
    }

    /// The blob directory.
    pub fn objects_dir(&self) -> PathBuf {
        self.dot.join(OBJECTS_DIR)
    }
}

/// Reads and checks `dot/config.json`.
pub fn read_config(dot: &Path) -> Result<Config, RepoError> {
    let path = dot.join(CONFIG_FILE);
    refuse_symlink(&path)?;
    let bytes = fs::read(&path).map_err(|e| RepoError::Invalid {
        path: dot.to_owned(),
        reason: format!("cannot read {CONFIG_FILE}: {e}"),
    })?;
    #[derive(Deserialize)]
    struct Format {
        format: u32,
    }
    let format: Format = serde_json::from_slice(&bytes).map_err(|e| RepoError::Invalid {
        path: dot.to_owned(),
        reason: format!("{CONFIG_FILE} is malformed: {e}"),
    })?;
    if format.format > FORMAT {
        return Err(RepoError::FormatTooNew { found: format.format, supported: FORMAT });
    }
    serde_json::from_slice(&bytes).map_err(|e| RepoError::Invalid {
        path: dot.to_owned(),
        reason: format!("{CONFIG_FILE} is malformed: {e}"),
    })
}

/// What `init` found or made.
#[derive(Debug)]
pub enum Initialized {
    Created(Repo),
    Existing(Repo),
}

/// Creates `root/.locker/` (and `root` if needed), or opens it if it already exists.
///
/// The new repository is assembled in a temporary sibling directory and renamed into place, so
/// a crash never leaves a half-made `.locker/`. `seed` runs on the new store before the rename
/// (it writes the first journal entry; on a PostgreSQL database that already holds a
/// repository it must write nothing, and the new `.locker/` joins that repository).
pub fn init(
    root: &Path,
    now: i64,
    seed: impl FnOnce(&mut dyn Store, &Config) -> Result<(), RepoError>,
) -> Result<Initialized, RepoError> {
    init_with(root, now, None, seed)
}

/// [`init`] with the store to use: `None` for a new SQLite database inside `.locker/`, or a
/// PostgreSQL database.
pub fn init_with(
    root: &Path,
    now: i64,
    store_at: Option<&store::StoreUrl>,
    seed: impl FnOnce(&mut dyn Store, &Config) -> Result<(), RepoError>,
) -> Result<Initialized, RepoError> {
    let dot = root.join(DOT_LOCKER);
    refuse_symlink(&dot)?;
    if fs::symlink_metadata(&dot).is_ok() {
        return Repo::open_root(root).map(Initialized::Existing);
    }
    fs::create_dir_all(root).map_err(io(root))?;
    let tmp = root.join(format!(".locker.init-{}", crate::domain::secret::random_id()));
    let result = (|| {
        fs::DirBuilder::new().mode(0o700).create(&tmp).map_err(io(&tmp))?;
        let mut config = Config {
            format: FORMAT,
            repository_id: crate::domain::secret::random_id(),
            created_at: now,
            store: format!("sqlite:{DB_FILE}"),
            store_password_file: None,
            origin: None,
        };
        // A `.locker/` joining a shared database whose log already has a key makes none of its
        // own: it signs with the log's key only if given it (`--log-key`), else serves what the
        // signer stored (a key of its own would be a rival log under the same origin).
        let mut make_key = true;
        match store_at.filter(|l| l.is_postgres()) {
            None => {
                fs::DirBuilder::new()
                    .mode(0o700)
                    .create(tmp.join(OBJECTS_DIR))
                    .map_err(io(&tmp))?;
                let mut store = store::sqlite::create(&tmp.join(DB_FILE))?;
                seed(&mut store, &config)?;
            }
            Some(loc) => {
                config.store.clone_from(&loc.url);
                config.store_password_file.clone_from(&loc.password_file);
                let mut store = store::create_shared(loc)?;
                seed(store.as_mut(), &config)?;
                // The repository the database holds (made just now, or earlier by another
                // `locker init --store` naming it) is the one this `.locker/` joins.
                let (id, created_at) = repository_of(store.as_mut())?;
                config.repository_id = id;
                config.created_at = created_at;
                make_key = store.read()?.log_signer()?.is_none();
            }
        }
        let mut json = serde_json::to_vec_pretty(&config).expect("config serialises");
        json.push(b'\n');
        write_new_file(&tmp.join(CONFIG_FILE), &json)?;
        if make_key {
            create_log_key(&tmp, &config.origin())?;
        } else {
            fs::DirBuilder::new().mode(0o700).create(tmp.join(KEYS_DIR)).map_err(io(&tmp))?;
        }
        sync_dir(&tmp)?;
        match fs::rename(&tmp, &dot) {
            Ok(()) => {}
            // Someone else initialised it first: theirs stands.
            Err(_) if dot.is_dir() => return Ok(false),
            Err(e) => return Err(io(&dot)(e)),
        }
        sync_dir(root)?;
        Ok(true)
    })();
    if fs::symlink_metadata(&tmp).is_ok() {
        let _ = fs::remove_dir_all(&tmp);
    }
    let created = result?;
    let repo = Repo::open_root(root)?;
    Ok(if created { Initialized::Created(repo) } else { Initialized::Existing(repo) })
}

/// The repository id and creation time a store's first journal entry (`repo.init`) records.
pub fn repository_of(store: &mut dyn Store) -> Result<(String, i64), RepoError> {
    let tx = store.read()?;
    let q = store::JournalQuery { ascending: true, limit: 1, ..store::JournalQuery::default() };
    let first = tx.journal(&q)?.into_iter().next();
    let invalid = |reason: &str| RepoError::Invalid { path: PathBuf::new(), reason: reason.into() };
    let row =
        first.ok_or_else(|| invalid("the store holds no repository (its journal is empty)"))?;
    let entry = crate::domain::journal::Entry::decode(&row.entry)
        .map_err(|_| invalid("the store's first journal entry does not decode"))?;
    match event::Event::decode(&row.kind, &entry.body) {
        Ok(event::Event::RepoInit(init)) => Ok((init.repository_id, row.time)),
        _ => Err(invalid("the store's first journal entry is not a repo.init")),
    }
}

/// Creates `dot/keys/log.key` with a new Ed25519 key named `origin`; an existing key is left
/// as it is (another process made it first).
pub fn create_log_key(dot: &Path, origin: &str) -> Result<(), RepoError> {
    let dir = dot.join(KEYS_DIR);
    refuse_symlink(&dir)?;
    match fs::DirBuilder::new().mode(0o700).create(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(io(&dir)(e)),
    }
    let signer = note::Signer::generate(origin)
        .map_err(|e| RepoError::Invalid { path: dot.to_owned(), reason: e.to_string() })?;
    let path = dir.join(LOG_KEY_FILE);
    match write_new_file(&path, format!("{}\n", signer.to_skey()).as_bytes()) {
        Ok(()) => sync_dir(&dir),
        Err(RepoError::Io { source, .. }) if source.kind() == std::io::ErrorKind::AlreadyExists => {
            Ok(())
        }
        Err(e) => Err(e),
    }
}

/// The log's signing key, named `origin` (created on first use in a repository made before
/// signed checkpoints existed). The key never leaves `.locker/`.
pub fn log_signer(dot: &Path, origin: &str) -> Result<note::Signer, RepoError> {
    let path = dot.join(KEYS_DIR).join(LOG_KEY_FILE);
    refuse_symlink(&path)?;
    if fs::symlink_metadata(&path).is_err() {
        create_log_key(dot, origin)?;
    }
    let text = fs::read_to_string(&path).map_err(io(&path))?;
    named_key(&text, origin, dot, &format!("{KEYS_DIR}/{LOG_KEY_FILE}: "))
}

/// A log key's text parsed and named `origin` (a key file written under an older origin is
/// renamed); errors name `path` and start with `what`.
fn named_key(text: &str, origin: &str, path: &Path, what: &str) -> Result<note::Signer, RepoError> {
    let invalid = |reason: String| RepoError::Invalid { path: path.to_owned(), reason };
    let signer = note::Signer::parse(text).map_err(|e| invalid(format!("{what}{e}")))?;
    if signer.name == origin {
        Ok(signer)
    } else {
        signer.renamed(origin).map_err(|e| invalid(e.to_string()))
    }
}

/// Whether the repository whose `.locker/` is `dot` has its own log key file.
pub fn has_log_key(dot: &Path) -> bool {
    fs::symlink_metadata(dot.join(KEYS_DIR).join(LOG_KEY_FILE)).is_ok()
}

/// The log's signing key read from `path`, a file given on purpose (`--log-key`,
/// `LOCKER_LOG_KEY`: typically a secret mounted into the host, which may be a symbolic link),
/// named `origin`. Never created here.
pub fn read_log_key(path: &Path, origin: &str) -> Result<note::Signer, RepoError> {
    let text = fs::read_to_string(path).map_err(|e| RepoError::Invalid {
        path: path.to_owned(),
        reason: format!("cannot read the log key file: {e}"),
    })?;
    named_key(&text, origin, path, "not a log key (a signed-note private key, `PRIVATE+KEY+…`): ")
}

/// The log's verifier key named `origin`, if the repository has a log key (never creates one).
pub fn log_verifier(dot: &Path, origin: &str) -> Result<Option<note::Verifier>, RepoError> {
    let path = dot.join(KEYS_DIR).join(LOG_KEY_FILE);
    refuse_symlink(&path)?;
    match fs::symlink_metadata(&path) {
        Ok(_) => log_signer(dot, origin).map(|s| Some(s.verifier())),
        Err(_) => Ok(None),
    }
}

/// Writes a new file with mode 0600 and syncs it.
pub fn write_new_file(path: &Path, bytes: &[u8]) -> Result<(), RepoError> {
    let mut f = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(io(path))?;
    f.write_all(bytes).map_err(io(path))?;
    f.sync_all().map_err(io(path))?;
    Ok(())
}

/// Syncs a directory so that renames and creations in it are durable.
pub fn sync_dir(dir: &Path) -> Result<(), RepoError> {
    fs::File::open(dir).and_then(|d| d.sync_all()).map_err(io(dir))
}

/// Copies a repository directory (a backup's `.locker/`) to `dst`, which must not exist:
/// directories 0700, files 0600, each file synced. Symbolic links and special files are
/// refused. SQLite's shared-memory index (`*-shm`) is skipped: it is rebuilt on open. Returns
/// the bytes copied.
pub fn copy_tree(src: &Path, dst: &Path) -> Result<u64, RepoError> {
    fs::DirBuilder::new().mode(0o700).create(dst).map_err(io(dst))?;
    let mut entries: Vec<fs::DirEntry> =
        fs::read_dir(src).map_err(io(src))?.collect::<Result<_, _>>().map_err(io(src))?;
    entries.sort_by_key(fs::DirEntry::file_name);
    let mut bytes = 0;
    for e in entries {
        let from = e.path();
        let to = dst.join(e.file_name());
        let meta = fs::symlink_metadata(&from).map_err(io(&from))?;
        if meta.file_type().is_symlink() {
            return Err(RepoError::Symlink(from));
        } else if meta.is_dir() {
            bytes += copy_tree(&from, &to)?;
        } else if meta.is_file() {
            if e.file_name().to_string_lossy().ends_with("-shm") {
                continue;
            }
            let mut r = fs::File::open(&from).map_err(io(&from))?;
            let mut w = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&to)
                .map_err(io(&to))?;
            bytes += std::io::copy(&mut r, &mut w).map_err(io(&to))?;
            w.sync_all().map_err(io(&to))?;
        } else {
            return Err(RepoError::Invalid {
                path: from,
                reason: "it holds something that is neither a file nor a directory".into(),
            });
        }
    }
    sync_dir(dst)?;
    Ok(bytes)
}

/// The mode bits of a path (for tests and `doctor`).
pub fn mode_of(path: &Path) -> std::io::Result<u32> {
    Ok(fs::symlink_metadata(path)?.permissions().mode() & 0o7777)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discovery_walks_up_and_refuses_symlinks() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("proj");
        let Initialized::Created(_) = init(&root, 0, |_, _| Ok(())).unwrap() else {
            panic!("expected a new repository")
        };
        let deep = root.join("a/b");
        fs::create_dir_all(&deep).unwrap();
        assert_eq!(discover(&Location::Search(deep.clone())).unwrap(), root);
        assert!(matches!(discover(&Location::Exact(deep.clone())), Err(RepoError::NotFoundAt(_))));
        assert_eq!(mode_of(&root.join(DOT_LOCKER)).unwrap(), 0o700);
        assert_eq!(mode_of(&root.join(DOT_LOCKER).join(DB_FILE)).unwrap(), 0o600);
        assert_eq!(mode_of(&root.join(DOT_LOCKER).join(CONFIG_FILE)).unwrap(), 0o600);
        assert_eq!(mode_of(&root.join(DOT_LOCKER).join(OBJECTS_DIR)).unwrap(), 0o700);

        let linked = dir.path().join("linked");
        fs::create_dir_all(&linked).unwrap();
        std::os::unix::fs::symlink(root.join(DOT_LOCKER), linked.join(DOT_LOCKER)).unwrap();
        assert!(matches!(discover(&Location::Search(linked.clone())), Err(RepoError::Symlink(_))));
        assert!(matches!(init(&linked, 0, |_, _| Ok(())), Err(RepoError::Symlink(_))));
        // A second init opens the existing repository.
        assert!(matches!(init(&root, 0, |_, _| Ok(())).unwrap(), Initialized::Existing(_)));
        // No temporary directories are left behind.
        let leftovers: Vec<_> = fs::read_dir(&root)
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().starts_with(".locker.init"))
            .collect();
        assert!(leftovers.is_empty());
    }

    #[test]
    fn a_newer_format_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        init(dir.path(), 0, |_, _| Ok(())).unwrap();
        let cfg = dir.path().join(DOT_LOCKER).join(CONFIG_FILE);
        let text = fs::read_to_string(&cfg).unwrap().replace("\"format\": 1", "\"format\": 2");
        fs::write(&cfg, text).unwrap();
        assert!(matches!(
            Repo::open_root(dir.path()),
            Err(RepoError::FormatTooNew { found: 2, supported: 1 })
        ));
    }
}
