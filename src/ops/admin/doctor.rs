//! `locker doctor`: checks a repository and its surroundings without changing anything, and
//! says what to do about each finding.
//!
//! Nothing here migrates or writes: the store is inspected read-only
//! ([`crate::store::inspect`]) and opened for use only when its schema is the one this binary
//! writes (to look up `LOCKER_TOKEN`). The front end adds what needs the network (a server's
//! reachability) with [`DoctorReport::push`].

use std::fs;
use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::domain::secret::Secret;
use crate::repo::{self, Location, Repo, DOT_LOCKER};

/// A write-ahead log larger than this means checkpoints are not keeping up.
pub const WAL_WARN_BYTES: u64 = 64 * 1024 * 1024;
/// Less free space than this (or than the database) is a problem; less than
/// [`DISK_WARN_BYTES`] a warning.
pub const DISK_PROBLEM_BYTES: u64 = 100 * 1024 * 1024;
pub const DISK_WARN_BYTES: u64 = 1024 * 1024 * 1024;
/// Less than this share of the file system free (in percent) is a warning, and less than
/// [`DISK_PROBLEM_PERCENT`] a problem: node_exporter's mixin's thresholds, so that a large disk a
/// tenth free (tens of GiB) is not called low. `doctor --remote` and `LockerDiskNearlyFull` use
/// the same numbers.
pub const DISK_WARN_PERCENT: u64 = 5;
pub const DISK_PROBLEM_PERCENT: u64 = 3;
/// Paths walked at most when checking modes.
const MAX_WALK: usize = 200_000;
/// Paths named at most in one finding.
const MAX_NAMED: usize = 5;

/// How a finding counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Ok,
    /// Worth attention; not failing.
    Warn,
    /// Needs fixing: `doctor` exits 1.
    Problem,
    /// Could not be checked here (said why).
    Skipped,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::Warn => "warn",
            Self::Problem => "problem",
            Self::Skipped => "skipped",
        }
    }
}

/// One check's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Finding {
    /// `repository`, `config`, `modes`, `owner`, `leftovers`, `schema`, `wal`, `mark`, `disk`,
    /// `clock`, `token`, `server`.
    pub check: String,
    pub status: Severity,
    pub detail: String,
    /// What to do about it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

/// Every finding, and the verdict.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DoctorReport {
    /// No finding is a problem.
    pub ok: bool,
    /// The repository root checked, if one was found.
    pub repository: Option<PathBuf>,
    pub problems: u64,
    pub warnings: u64,
    pub findings: Vec<Finding>,
}

impl DoctorReport {
    /// Adds a finding.
    pub fn push(&mut self, check: &str, status: Severity, detail: String, fix: Option<String>) {
        match status {
            Severity::Problem => self.problems += 1,
            Severity::Warn => self.warnings += 1,
            Severity::Ok | Severity::Skipped => {}
        }
        self.ok = self.problems == 0;
        self.findings.push(Finding { check: check.into(), status, detail, fix });
    }
}

/// What the checks need from the front end.
pub struct Input<'a> {
    pub location: Location,
    pub now: i64,
    /// `LOCKER_NOW` pins the clock.
    pub clock_pinned: bool,
    pub token: Option<&'a Secret>,
    /// A server is named (`--remote`/`LOCKER_URL`): a missing local repository is then fine.
    pub remote: bool,
    /// The log key's file, when it is not the repository's own (`--log-key`).
    pub log_key: Option<&'a Path>,
}

/// Shell-quotes a path for a suggested command.
fn quote(p: &Path) -> String {
    format!("'{}'", p.display().to_string().replace('\'', r"'\''"))
}

fn some(s: impl Into<String>) -> Option<String> {
    Some(s.into())
}

/// Runs every local check.
pub fn run(input: &Input<'_>) -> DoctorReport {
    let mut r =
        DoctorReport { ok: true, repository: None, problems: 0, warnings: 0, findings: Vec::new() };
    let root = match repo::discover(&input.location) {
        Ok(root) => root,
        Err(e) => {
            if input.remote && matches!(input.location, Location::Search(_)) {
                r.push("repository", Severity::Skipped, format!("no local repository: {e}"), None);
            } else {
                r.push(
                    "repository",
                    Severity::Problem,
                    e.to_string(),
                    some("Run `locker init`, or point `-R PATH` / `LOCKER_DIR` at the directory that holds .locker/."),
                );
            }
            check_token(&mut r, input, None);
            return r;
        }
    };
    r.repository = Some(root.clone());
    let dot = root.join(DOT_LOCKER);
    r.push("repository", Severity::Ok, format!("found {}", dot.display()), None);

    let config = match repo::read_config(&dot) {
        Ok(c) => {
            r.push(
                "config",
                Severity::Ok,
                format!("format {}, repository {}, store {}", c.format, c.repository_id, c.store),
                None,
            );
            Some(c)
        }
        Err(e) => {
            r.push(
                "config",
                Severity::Problem,
                e.to_string(),
                some("Restore .locker/config.json from a backup (`locker restore`)."),
            );
            None
        }
    };
    check_modes(&mut r, &root, &dot);
    check_leftovers(&mut r, &root);
    check_stray_blobs(&mut r, &dot);

    let mut usable = false;
    let mut db_bytes = 0;
    if let Some(config) = &config {
        match crate::store::inspect(&config.store_location(), &dot) {
            Ok(info) => {
                db_bytes = info.files.iter().map(|(_, n)| n).sum();
                usable = check_schema(&mut r, &info);
                match &info.postgres {
                    Some(pg) => check_postgres(&mut r, pg, &config.store_location().url),
                    None => check_wal(&mut r, &info),
                }
                check_clock(&mut r, input, info.newest_journal_time);
            }
            Err(e) => r.push(
                "schema",
                Severity::Problem,
                format!("the store cannot be read: {e}"),
                some("Run `locker verify`; restore the latest backup if it fails."),
            ),
        }
    }
    check_mark(&mut r, &root, &dot, usable, config.as_ref());
    if let (true, Some(c)) = (usable, &config) {
        check_signer(&mut r, input, &root, &dot, c);
    }
    check_disk(&mut r, &dot, db_bytes);
    // Opened for use only to look the token up (and only when the schema needs no upgrade).
    if usable && input.token.is_some() {
        match Repo::open_root(&root) {
            Ok(mut repo) => check_token(&mut r, input, Some(repo.store.as_mut())),
            Err(e) => {
                r.push(
                    "token",
                    Severity::Skipped,
                    format!("the repository does not open: {e}"),
                    None,
                );
            }
        }
    } else {
        check_token(&mut r, input, None);
    }
    r
}

/// The effective user id of this process (Linux: `/proc/self/status`).
fn euid() -> Option<u32> {
    let status = fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("Uid:"))?;
    line.split_whitespace().nth(2)?.parse().ok()
}

/// Directories 0700 and files 0600 (no group or other bits), no symbolic links, one owner.
fn check_modes(r: &mut DoctorReport, root: &Path, dot: &Path) {
    let mut loose = Vec::new();
    let mut links = Vec::new();
    let mut foreign = Vec::new();
    let mut walked = 0usize;
    let me = euid();
    let mut stack = vec![dot.to_owned()];
    while let Some(p) = stack.pop() {
        walked += 1;
        if walked > MAX_WALK {
            break;
        }
        let Ok(m) = fs::symlink_metadata(&p) else { continue };
        let rel = p.strip_prefix(root).unwrap_or(&p).display().to_string();
        if m.file_type().is_symlink() {
            links.push(rel);
            continue;
        }
        let mode = m.permissions().mode() & 0o7777;
        if mode & 0o077 != 0 {
            loose.push(format!("{rel} ({mode:04o})"));
        }
        if me.is_some_and(|u| u != m.uid()) {
            foreign.push(format!("{rel} (uid {})", m.uid()));
        }
        if m.is_dir() {
            if let Ok(rd) = fs::read_dir(&p) {
                let mut children: Vec<PathBuf> =
                    rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
                children.sort();
                children.reverse();
                stack.extend(children);
            }
        }
    }
    let named = |v: &[String]| {
        let mut s = v.iter().take(MAX_NAMED).cloned().collect::<Vec<_>>().join(", ");
        if v.len() > MAX_NAMED {
            s.push_str(&format!(" and {} more", v.len() - MAX_NAMED));
        }
        s
    };
    if !links.is_empty() {
        r.push(
            "symlinks",
            Severity::Problem,
            format!(
                "{} symbolic link(s) inside .locker/, which locker refuses to follow: {}",
                links.len(),
                named(&links)
            ),
            some("Replace each link with the real file or directory (or restore a backup)."),
        );
    }
    if loose.is_empty() {
        let dirs = fs::symlink_metadata(dot).map(|m| m.permissions().mode() & 0o7777).unwrap_or(0);
        r.push(
            "modes",
            Severity::Ok,
            format!("{walked} path(s) private to their owner (.locker/ is {dirs:04o})"),
            None,
        );
    } else {
        r.push(
            "modes",
            Severity::Problem,
            format!(
                "{} path(s) are open to the group or others (keys, tickets and tokens are \
                 stored only as digests, but payloads and artifacts are not): {}",
                loose.len(),
                named(&loose)
            ),
            Some(format!("chmod -R go-rwx {}", quote(dot))),
        );
    }
    if !foreign.is_empty() {
        r.push(
            "owner",
            Severity::Warn,
            format!(
                "{} path(s) belong to another user than this one (uid {}): {}; writes may fail",
                foreign.len(),
                me.unwrap_or(0),
                named(&foreign)
            ),
            Some(format!(
                "Run locker as the owner, or `chown -R USER {}` to the user that runs it",
                quote(dot)
            )),
        );
    }
    // Whoever can write the directory holding .locker/ can swap it for another.
    if let Ok(m) = fs::metadata(root) {
        let mode = m.permissions().mode();
        if mode & 0o002 != 0 && mode & 0o1000 == 0 {
            r.push(
                "modes",
                Severity::Problem,
                format!(
                    "{} is writable by everyone: anyone could replace its .locker/",
                    root.display()
                ),
                Some(format!("chmod o-w {}", quote(root))),
            );
        }
    }
}

/// Directories that interrupted commands (or a `restore --yes`) leave beside `.locker/`.
fn check_leftovers(r: &mut DoctorReport, root: &Path) {
    let Ok(rd) = fs::read_dir(root) else { return };
    let mut names: Vec<String> = rd
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| {
            n.starts_with(".locker.init-")
                || n.starts_with(".locker.restore-")
                || n.starts_with(".locker.replaced-")
        })
        .collect();
    if names.is_empty() {
        return;
    }
    names.sort();
    let paths: Vec<String> = names.iter().map(|n| quote(&root.join(n))).collect();
    r.push(
        "leftovers",
        Severity::Warn,
        format!(
            "{} directory(ies) beside .locker/ left by an interrupted init or restore, or \
             replaced by `restore --yes`: {}",
            names.len(),
            names.join(", ")
        ),
        Some(format!("Once you no longer need them: rm -rf {}", paths.join(" "))),
    );
}

/// Temporary blob files (`objects/.tmp-*`) that a write killed before its rename left behind:
/// nothing refers to them, but they take space.
fn check_stray_blobs(r: &mut DoctorReport, dot: &Path) {
    let objects = dot.join("objects");
    let Ok(rd) = fs::read_dir(&objects) else { return };
    let mut stray: Vec<(String, u64)> = rd
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(".tmp-"))
        .map(|e| {
            (e.file_name().to_string_lossy().into_owned(), e.metadata().map_or(0, |m| m.len()))
        })
        .collect();
    if stray.is_empty() {
        return;
    }
    stray.sort();
    let bytes: u64 = stray.iter().map(|(_, n)| n).sum();
    let names: Vec<&str> = stray.iter().map(|(n, _)| n.as_str()).collect();
    r.push(
        "stray_blobs",
        Severity::Warn,
        format!(
            "{} unfinished blob file(s) in {} ({bytes} bytes), left by writes that were killed \
             before they finished (or being written right now): {}",
            stray.len(),
            objects.display(),
            names.join(", ")
        ),
        Some(format!(
            "Nothing refers to them. When no locker command or server is writing: rm {}/.tmp-*",
            quote(&objects)
        )),
    );
}

/// What to do about a database that lost entries the log key signed.
const ROLLBACK_FIX: &str = "Restore the newest backup: `locker restore BACKUP --yes` (a backup \
     older than the mark is refused unless you add `--accept-rollback`). If the state the \
     database is in is a restore you made on purpose, accept it: `locker checkpoint \
     --accept-rollback` journals a `repo.rollback` entry naming the checkpoint given up and signs \
     the restored journal with the log key; readers pinned beyond it will see a fork.";

/// The database against the log key's high-water mark (`.locker/keys/log.checkpoint`).
fn check_mark(
    r: &mut DoctorReport,
    root: &Path,
    dot: &Path,
    usable: bool,
    config: Option<&repo::Config>,
) {
    let m = match repo::mark::load(dot) {
        Ok(Some(m)) => m,
        Ok(None) => {
            r.push(
                "mark",
                Severity::Ok,
                "no high-water mark yet: the log key has signed no checkpoint here".into(),
                None,
            );
            return;
        }
        Err(e) => {
            r.push(
                "mark",
                Severity::Problem,
                e.to_string(),
                some("Restore .locker/keys/ from the newest backup."),
            );
            return;
        }
    };
    if let Some(c) = config {
        let signed = repo::log_verifier(dot, &c.origin())
            .ok()
            .flatten()
            .map(|v| crate::domain::note::SignedCheckpoint::verify(&m.note, &v));
        if let Some(Err(e)) = signed {
            r.push(
                "mark",
                Severity::Problem,
                format!("the high-water mark is not signed by the log key beside it: {e}"),
                some("Restore .locker/keys/ from the newest backup: the key or the mark was replaced."),
            );
            return;
        }
    }
    if !usable {
        r.push(
            "mark",
            Severity::Skipped,
            format!(
                "the log key's high-water mark is size {}; the database is checked against it \
                 once its schema is readable",
                m.size()
            ),
            None,
        );
        return;
    }
    match Repo::open_root_with(root, repo::Opening::Inspect) {
        Ok(repo) => match repo.rollback {
            None => r.push(
                "mark",
                Severity::Ok,
                format!(
                    "the journal extends the log key's high-water mark (a checkpoint of {} \
                     entries)",
                    m.size()
                ),
                None,
            ),
            Some(rb) => r.push("mark", Severity::Problem, rb.to_string(), some(ROLLBACK_FIX)),
        },
        Err(e) => r.push("mark", Severity::Problem, e.to_string(), some(ROLLBACK_FIX)),
    }
}

/// Whose turn it is to sign checkpoints, and whether this host's key is the log's.
fn check_signer(
    r: &mut DoctorReport,
    input: &Input<'_>,
    root: &Path,
    dot: &Path,
    c: &repo::Config,
) {
    let log = crate::ops::LogIdentity::new(dot, c).with_key_file(input.log_key);
    let read = Repo::open_root_with(root, repo::Opening::Inspect)
        .map_err(|e| e.to_string())
        .and_then(|mut repo| {
            let tx = repo.store.read().map_err(|e| e.to_string())?;
            let row = tx.log_signer().map_err(|e| e.to_string())?;
            let turn = crate::ops::log::signer::turn(tx.as_ref(), &log, input.now)
                .map_err(|e| e.detail)?;
            Ok((row, turn))
        });
    let (row, turn) = match read {
        Ok(x) => x,
        Err(e) => {
            r.push("signer", Severity::Skipped, format!("the store does not open: {e}"), None);
            return;
        }
    };
    let (Some(row), Some(turn)) = (row, turn) else {
        r.push("signer", Severity::Ok, "no checkpoint signed yet".into(), None);
        return;
    };
    let here = match &log.key {
        crate::ops::LogKey::File(_) => log.verifier().map_err(|e| e.detail),
        _ if repo::has_log_key(dot) => log.verifier().map_err(|e| e.detail),
        _ => Ok(None),
    };
    let state = if turn.live { "holds" } else { "held (lapsed)" };
    let who = format!("{} {state} the turn to sign (turn {})", turn.holder, turn.fence);
    match here {
        Err(e) => r.push(
            "signer",
            Severity::Problem,
            format!("{who}; this host's log key is unreadable: {e}"),
            some("Point `--log-key` / LOCKER_LOG_KEY at the log's key file."),
        ),
        Ok(Some(v)) if v.to_vkey() != row.vkey => r.push(
            "signer",
            Severity::Problem,
            format!(
                "{who}; this host's log key ({}) is not the log's ({}): it cannot sign",
                v.to_vkey(),
                row.vkey
            ),
            some("Give this host the log's key (`--log-key FILE` / LOCKER_LOG_KEY), or remove its .locker/keys/log.key to serve stored checkpoints."),
        ),
        Ok(Some(_)) => r.push(
            "signer",
            Severity::Ok,
            format!("{who}; this host has the log's key and signs in its turn"),
            None,
        ),
        Ok(None) => r.push(
            "signer",
            Severity::Ok,
            format!("{who}; this host has no log key and serves the stored checkpoints"),
            None,
        ),
    }
}

/// Returns whether the store can be opened without migrating it.
fn check_schema(r: &mut DoctorReport, info: &crate::store::StoreInfo) -> bool {
    let (found, supported) = (info.schema_version, info.supported_schema);
    if found == 0 {
        r.push(
            "schema",
            Severity::Problem,
            format!(
                "the {} database has no schema: it is empty, truncated, or lost its write-ahead \
                 log; locker refuses it (only `locker init` creates a schema)",
                info.kind
            ),
            some("Restore the newest backup: `locker restore BACKUP --yes` (add `--accept-rollback` if it is older than the log key's high-water mark)."),
        );
        false
    } else if found > supported {
        r.push(
            "schema",
            Severity::Problem,
            format!(
                "the {} schema is version {found}, newer than this locker's {supported}",
                info.kind
            ),
            some("Upgrade locker to the version that wrote this repository."),
        );
        false
    } else if found < supported {
        r.push(
            "schema",
            Severity::Warn,
            format!(
                "the {} schema is version {found}; this locker writes {supported} and will \
                 upgrade it on the next command",
                info.kind
            ),
            some("Take a backup first (`locker backup DIR`): older lockers cannot read the upgraded repository."),
        );
        false
    } else {
        r.push(
            "schema",
            Severity::Ok,
            format!("{} schema version {found}, as this locker writes", info.kind),
            None,
        );
        true
    }
}

fn mib(n: u64) -> String {
    format!("{:.1} MiB", n as f64 / (1024.0 * 1024.0))
}

/// How long a transaction may hold the journal's lock before doctor warns (every write waits
/// for it).
const LOCK_WARN_SECONDS: f64 = 30.0;

/// PostgreSQL: the server's version, TLS on this connection, replication, connections and who
/// holds the journal's lock.
fn check_postgres(r: &mut DoctorReport, pg: &crate::store::PgInfo, url: &str) {
    let loopback = url.split_once('@').map_or(url, |(_, h)| h).starts_with("127.")
        || url.contains("@localhost")
        || url.contains("@[::1]");
    match &pg.tls {
        Some(v) => r.push(
            "postgres",
            Severity::Ok,
            format!("PostgreSQL {}, connected with TLS ({v})", pg.server_version),
            None,
        ),
        None if loopback => r.push(
            "postgres",
            Severity::Ok,
            format!("PostgreSQL {}, on loopback without TLS", pg.server_version),
            None,
        ),
        None => r.push(
            "postgres",
            Severity::Warn,
            format!("PostgreSQL {}, connected without TLS", pg.server_version),
            some("Add `?sslmode=verify-full&sslrootcert=CA.pem` to the store URL (docs/postgres.md)."),
        ),
    }
    if pg.in_recovery {
        r.push(
            "replication",
            Severity::Problem,
            "the store's server is a standby (read-only): writes fail".into(),
            some("Point the URL at the primary, or name every host with `target_session_attrs=read-write`."),
        );
    } else if pg.standbys == 0 {
        r.push("replication", Severity::Ok, "a primary with no standby".into(), None);
    } else {
        r.push(
            "replication",
            Severity::Ok,
            format!("a primary with {} standby(s), {} synchronous", pg.standbys, pg.sync_standbys),
            None,
        );
    }
    let busy = pg.max_connections > 0 && pg.connections * 10 >= pg.max_connections * 8;
    r.push(
        "connections",
        if busy { Severity::Warn } else { Severity::Ok },
        format!("{} of at most {} connections in use", pg.connections, pg.max_connections),
        busy.then(|| "Raise max_connections, or run fewer servers or smaller pools.".into()),
    );
    match &pg.lock_holder {
        None => r.push("lock", Severity::Ok, "the journal's lock is free".into(), None),
        Some((app, secs)) if *secs > LOCK_WARN_SECONDS => r.push(
            "lock",
            Severity::Warn,
            format!(
                "`{app}` has held the journal's lock for {secs:.0} s: every write waits for it"
            ),
            some("Find it in pg_stat_activity (application_name) and end it if it is stuck."),
        ),
        Some((app, secs)) => r.push(
            "lock",
            Severity::Ok,
            format!("the journal's lock is held by `{app}` ({secs:.1} s)"),
            None,
        ),
    }
}

fn check_wal(r: &mut DoctorReport, info: &crate::store::StoreInfo) {
    let db = info.files.first().map_or(0, |(_, n)| *n);
    // PostgreSQL keeps its write-ahead log on the server: reported here as empty.
    let crate::store::SqliteInfo { wal_bytes, free_bytes } = info.sqlite.unwrap_or_default();
    if wal_bytes > WAL_WARN_BYTES {
        r.push(
            "wal",
            Severity::Warn,
            format!(
                "the write-ahead log is {} (database {}): checkpoints are overdue, usually \
                 because a long-running reader keeps them from finishing",
                mib(wal_bytes),
                mib(db)
            ),
            some("Stop stray long-running locker processes; then `locker gc --blobs` (every gc checkpoints and truncates the log)."),
        );
    } else {
        r.push(
            "wal",
            Severity::Ok,
            format!(
                "write-ahead log {}, database {} ({} unused)",
                mib(wal_bytes),
                mib(db),
                mib(free_bytes)
            ),
            None,
        );
    }
}

fn check_clock(r: &mut DoctorReport, input: &Input<'_>, newest: Option<i64>) {
    if input.clock_pinned {
        r.push(
            "clock",
            Severity::Warn,
            format!("LOCKER_NOW pins the clock at {}", input.now),
            some("Unset LOCKER_NOW outside tests and demos: leases and pads would never expire."),
        );
    }
    match newest {
        Some(t) if t > input.now => r.push(
            "clock",
            Severity::Problem,
            format!(
                "the clock ({}) is {} s behind the journal's newest entry ({})",
                crate::domain::time::rfc3339(input.now),
                t - input.now,
                crate::domain::time::rfc3339(t)
            ),
            some("Correct the system clock (enable NTP): leases, pads and read tickets expire by it, and new journal entries would go back in time."),
        ),
        Some(t) => r.push(
            "clock",
            Severity::Ok,
            format!("the clock is not behind the journal's newest entry ({})", crate::domain::time::rfc3339(t)),
            None,
        ),
        None => r.push("clock", Severity::Ok, "the journal is empty".into(), None),
    }
}

fn check_disk(r: &mut DoctorReport, dot: &Path, db_bytes: u64) {
    use crate::obs::process::{Disk, DISK_SPACE_ENV};
    match crate::obs::process::disk(dot) {
        Err(e) => r.push("disk", Severity::Skipped, e, None),
        Ok(Disk { free, total, pretended }) => {
            let pretence = format!(", as {DISK_SPACE_ENV} pretends");
            let detail = format!(
                "{} free of {} where .locker/ is (the store takes {}){}",
                mib(free),
                mib(total),
                mib(db_bytes),
                if pretended { pretence.as_str() } else { "" }
            );
            let fix = some("Free space (`locker gc --pads-older-than 30d --blobs`, old backups) or move the repository to a larger disk.");
            match disk_status(free, total, db_bytes) {
                Severity::Problem => r.push(
                    "disk",
                    Severity::Problem,
                    format!("{detail}: writes, backups and checkpoints may fail"),
                    fix,
                ),
                Severity::Warn => {
                    r.push("disk", Severity::Warn, format!("{detail}: running low"), fix);
                }
                status => r.push("disk", status, detail, None),
            }
        }
    }
}

/// How much free space counts: less than [`DISK_PROBLEM_BYTES`] (or than the store itself) or
/// [`DISK_PROBLEM_PERCENT`] of the file system is a problem; less than [`DISK_WARN_BYTES`] or
/// [`DISK_WARN_PERCENT`] a warning.
fn disk_status(free: u64, total: u64, db_bytes: u64) -> Severity {
    let under = |percent: u64| free.saturating_mul(100) < total.saturating_mul(percent);
    if free < DISK_PROBLEM_BYTES.max(db_bytes) || under(DISK_PROBLEM_PERCENT) {
        Severity::Problem
    } else if free < DISK_WARN_BYTES || under(DISK_WARN_PERCENT) {
        Severity::Warn
    } else {
        Severity::Ok
    }
}

fn check_token(
    r: &mut DoctorReport,
    input: &Input<'_>,
    store: Option<&mut dyn crate::store::Store>,
) {
    let Some(token) = input.token else {
        let detail = if input.remote {
            "LOCKER_TOKEN is not set: local commands act as the operator; a server started with \
             --require-token refuses its lease routes without one"
        } else {
            "LOCKER_TOKEN is not set: commands act as the repository's operator"
        };
        r.push("token", Severity::Ok, detail.into(), None);
        return;
    };
    let Some(store) = store else {
        r.push(
            "token",
            Severity::Skipped,
            "LOCKER_TOKEN is set, but there is no usable local repository to check it against"
                .into(),
            None,
        );
        return;
    };
    match crate::ops::auth::authenticate(store, token) {
        Ok(a) => r.push(
            "token",
            Severity::Ok,
            format!("LOCKER_TOKEN acts as agent {} in scope {}", a.name, a.scope),
            None,
        ),
        Err(e) => r.push(
            "token",
            Severity::Problem,
            format!("LOCKER_TOKEN is set but refused: {}", e.detail),
            some("Unset LOCKER_TOKEN to act as the operator, or ask the operator for a new token (`locker token create`)."),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_space_thresholds() {
        const GIB: u64 = 1 << 30;
        assert_eq!(disk_status(50 * GIB, 100 * GIB, 1 << 20), Severity::Ok);
        // A large disk a tenth free is not low: 25 GiB of 252 GiB.
        assert_eq!(disk_status(25 * GIB, 252 * GIB, 1 << 20), Severity::Ok);
        assert_eq!(disk_status(5 * GIB, 100 * GIB, 1 << 20), Severity::Ok);
        // Under 5% of the file system, or under 1 GiB: running low.
        assert_eq!(disk_status(5 * GIB - 1, 100 * GIB, 1 << 20), Severity::Warn);
        assert_eq!(disk_status(3 * GIB, 100 * GIB, 1 << 20), Severity::Warn);
        assert_eq!(disk_status(DISK_WARN_BYTES - 1, 2 * GIB, 1 << 20), Severity::Warn);
        assert_eq!(disk_status(DISK_WARN_BYTES, 2 * GIB, 1 << 20), Severity::Ok);
        // Under 100 MiB, or less than the store takes: writes may fail.
        assert_eq!(disk_status(DISK_PROBLEM_BYTES - 1, GIB, 1 << 20), Severity::Problem);
        assert_eq!(disk_status(200 << 20, GIB, 300 << 20), Severity::Problem);
        // Under 3% of the file system: a problem however large the disk.
        assert_eq!(disk_status(3 * GIB - 1, 100 * GIB, 1 << 20), Severity::Problem);
    }

    #[test]
    fn a_large_wal_is_a_warning() {
        let info = |wal_bytes| crate::store::StoreInfo {
            kind: "sqlite",
            schema_version: 4,
            supported_schema: 4,
            files: vec![("locker.db".into(), 1 << 20)],
            newest_journal_time: None,
            sqlite: Some(crate::store::SqliteInfo { wal_bytes, free_bytes: 0 }),
            postgres: None,
        };
        let mut r =
            DoctorReport { ok: true, repository: None, problems: 0, warnings: 0, findings: vec![] };
        check_wal(&mut r, &info(WAL_WARN_BYTES));
        check_wal(&mut r, &info(WAL_WARN_BYTES + 1));
        assert_eq!(r.findings[0].status, Severity::Ok);
        assert_eq!(r.findings[1].status, Severity::Warn);
        assert!(r.findings[1].detail.contains("checkpoints are overdue"));
        assert_eq!((r.ok, r.warnings), (true, 1));
    }

    #[test]
    fn quoting() {
        assert_eq!(quote(Path::new("/a b/c")), "'/a b/c'");
        assert_eq!(quote(Path::new("/it's")), r"'/it'\''s'");
    }
}
