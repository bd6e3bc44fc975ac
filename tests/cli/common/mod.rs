//! The sealed test environment every integration test uses: a temporary HOME and working
//! directory, a cleared environment, a fixed clock unless a test moves it.

#![allow(dead_code)]

pub mod cluster;
pub mod http1;
pub mod server;
pub mod sql;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

/// The blob directory inside `.locker/` (SQLite stores).
pub const OBJECTS: &str = "objects";

/// The fixed time tests run at (`LOCKER_NOW`), unless they set another.
pub const NOW: i64 = 1_800_000_000;
/// What every command and server of the suite takes the repository's file system to be
/// (`LOCKER_DISK_SPACE`): 100 GiB free of 200 GiB, so that `doctor`'s findings do not follow
/// the free space of the machine the suite runs on. The tests of the real reading remove it.
pub const DISK_SPACE: &str = "107374182400/214748364800";

/// A temporary directory with its own repository location and a sealed environment.
pub struct TestEnv {
    pub dir: tempfile::TempDir,
    pub now: i64,
    /// With `LOCKER_TEST_STORE` set: the PostgreSQL database made for this test's repository
    /// (dropped with the environment).
    pub pg: Option<String>,
}

impl Drop for TestEnv {
    fn drop(&mut self) {
        if let Some(url) = self.pg.take() {
            drop_database(&url);
        }
    }
}

/// The PostgreSQL server the suite runs against (`LOCKER_TEST_STORE=postgres://USER@HOST:PORT/DB`,
/// a database it may connect to in order to create and drop others), if any.
pub fn pg_admin_url() -> Option<String> {
    std::env::var("LOCKER_TEST_STORE").ok().filter(|u| u.starts_with("postgres"))
}

/// Whether the suite runs against PostgreSQL.
pub fn on_postgres() -> bool {
    pg_admin_url().is_some()
}

/// Skips the calling test on PostgreSQL, for the one reason a test may not run on both stores:
/// it reads or tampers with SQLite files directly. Returns whether to skip.
#[allow(clippy::print_stderr)]
pub fn sqlite_only(why: &str) -> bool {
    if on_postgres() {
        eprintln!("skipped on PostgreSQL: {why}");
        return true;
    }
    false
}

fn pg_client(url: &str) -> postgres::Client {
    postgres::Client::connect(url, postgres::NoTls).expect("the test PostgreSQL server answers")
}

/// A URL naming database `db` on the server of `url`.
pub fn with_database(url: &str, db: &str) -> String {
    let (scheme, rest) = url.split_once("://").expect("a URL");
    let host = rest.split('/').next().unwrap_or(rest);
    format!("{scheme}://{host}/{db}")
}

/// Creates a fresh, empty database on the test server and returns its URL.
pub fn create_database() -> Option<String> {
    let admin = pg_admin_url()?;
    let name = format!("test_{}", hex(&rand_bytes()));
    pg_client(&admin).batch_execute(&format!("CREATE DATABASE {name}")).expect("CREATE DATABASE");
    Some(with_database(&admin, &name))
}

/// Drops a database [`create_database`] made.
pub fn drop_database(url: &str) {
    let Some(admin) = pg_admin_url() else { return };
    let Some(name) = url.rsplit('/').next() else { return };
    if let Ok(mut c) = postgres::Client::connect(&admin, postgres::NoTls) {
        let _ = c.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
    }
}

fn rand_bytes() -> [u8; 8] {
    use std::hash::{BuildHasher as _, Hasher as _};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap();
    h.write_u128(t.as_nanos());
    h.write_u32(std::process::id());
    h.finish().to_le_bytes()
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

impl Default for TestEnv {
    fn default() -> Self {
        Self::new()
    }
}

impl TestEnv {
    /// Every stored block of a pad: (seq, payload, curr_hash), read through the CLI with a
    /// ticket minted with the pad's write key.
    pub fn stored_blocks(&self, pad: &str, key: &str) -> Vec<(u64, String, String)> {
        let t = self.json(&["pad", "ticket", pad, "--key", key]);
        let ticket = t["ticket"].as_str().unwrap().to_owned();
        let count = self.json(&["pad", "show", pad])["block_count"].as_u64().unwrap();
        let mut out = Vec::new();
        let mut from = 0;
        while from < count {
            let (f, to) = (from.to_string(), (from + 255).to_string());
            let s =
                self.json(&["pad", "read", pad, "--ticket", &ticket, "--from", &f, "--to", &to]);
            for b in s["blocks"].as_array().unwrap() {
                out.push((
                    b["seq"].as_u64().unwrap(),
                    b["payload_utf8"].as_str().unwrap_or_default().to_owned(),
                    b["curr_hash"].as_str().unwrap().to_owned(),
                ));
            }
            from += 256;
        }
        out
    }

    /// A fresh, empty directory (no repository yet).
    pub fn new() -> Self {
        Self { dir: tempfile::tempdir().expect("a temporary directory"), now: NOW, pg: None }
    }

    /// A fresh directory with `locker init` already run in it; with `LOCKER_TEST_STORE` set,
    /// its store is a new PostgreSQL database.
    pub fn init() -> Self {
        let mut env = Self::new();
        env.init_here(&[]);
        env
    }

    /// Runs `locker init ARGS` in this environment's directory, on a new PostgreSQL database
    /// when the suite runs against PostgreSQL.
    pub fn init_here(&mut self, args: &[&str]) {
        let mut cmd = self.locker();
        cmd.arg("init").args(args);
        if self.pg.is_none() {
            self.pg = create_database();
        }
        if let Some(url) = &self.pg {
            cmd.args(["--store", url]);
        }
        cmd.assert().success();
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The `.locker/locker.db` file.
    pub fn db_path(&self) -> PathBuf {
        self.path().join(".locker").join("locker.db")
    }

    /// The real `locker` binary with a cleared environment, run in the test directory.
    pub fn locker(&self) -> Command {
        let mut cmd = Command::new(bin());
        cmd.env_clear()
            .env("HOME", self.path())
            .env("NO_COLOR", "1")
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("LOCKER_NOW", self.now.to_string())
            .env("LOCKER_DISK_SPACE", DISK_SPACE)
            .current_dir(self.path());
        cmd
    }

    /// Runs `locker --json ARGS`, expects exit 0, and parses stdout as one JSON object.
    pub fn json(&self, args: &[&str]) -> Value {
        let out = self.locker().arg("--json").args(args).output().expect("locker runs");
        assert!(
            out.status.success(),
            "locker {args:?} failed with {:?}: {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).expect("stdout is one JSON object")
    }

    /// Runs `locker --json ARGS`, expects exit `code`, and parses stderr's JSON error.
    pub fn json_err(&self, args: &[&str], code: i32) -> Value {
        let out = self.locker().arg("--json").args(args).output().expect("locker runs");
        assert_eq!(
            out.status.code(),
            Some(code),
            "locker {args:?}: stdout {} stderr {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stdout.is_empty(), "an error prints nothing on stdout");
        serde_json::from_slice(&out.stderr).expect("stderr is one JSON error object")
    }

    /// A fingerprint of the repository's state: the journal head and every table's row count.
    /// Equal fingerprints before and after a failed command prove it changed nothing.
    /// [`TestEnv::snapshot`] is stricter: it also covers every column of every row.
    pub fn fingerprint(&self) -> String {
        self.state(false)
    }

    /// [`TestEnv::fingerprint`] plus a SHA-256 over every row of every table, so that a changed
    /// column anywhere (a ticket's revocation or read lease, a pad's expiry) changes it too.
    pub fn snapshot(&self) -> String {
        self.state(true)
    }

    fn state(&self, content_too: bool) -> String {
        if let Some(url) = &self.pg {
            return pg_state(url, content_too);
        }
        use sha2::Digest as _;
        let conn = rusqlite::Connection::open_with_flags(
            self.db_path(),
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )
        .expect("the database opens");
        let mut parts = Vec::new();
        let mut content = sha2::Sha256::new();
        let mut stmt = conn
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            .unwrap();
        let tables: Vec<String> =
            stmt.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect();
        for t in tables {
            let n: i64 =
                conn.query_row(&format!("SELECT COUNT(*) FROM \"{t}\""), [], |r| r.get(0)).unwrap();
            parts.push(format!("{t}={n}"));
            if !content_too {
                continue;
            }
            let mut rows = conn.prepare(&format!("SELECT * FROM \"{t}\" ORDER BY rowid")).unwrap();
            let cols = rows.column_count();
            let mut q = rows.query([]).unwrap();
            while let Some(row) = q.next().unwrap() {
                for i in 0..cols {
                    let v: rusqlite::types::Value = row.get(i).unwrap();
                    content.update(format!("{v:?}\u{1f}").as_bytes());
                }
                content.update(b"\x1e");
            }
        }
        let head: Option<(i64, String)> = conn
            .query_row(
                "SELECT seq, lower(hex(hash)) FROM journal ORDER BY seq DESC LIMIT 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .ok();
        parts.push(format!("head={head:?}"));
        let pads: Vec<String> = conn
            .prepare(
                "SELECT p.id || ':' || p.state || ':' || COALESCE((SELECT lower(hex(curr_hash)) || ':' || \
                 (seq + 1) FROM blocks b WHERE b.pad_id = p.id ORDER BY seq DESC LIMIT 1), \
                 '0000000000000000000000000000000000000000000000000000000000000000:0') \
                 FROM pads p ORDER BY p.id",
            )
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        parts.extend(pads);
        if content_too {
            let digest: String = content.finalize().iter().map(|b| format!("{b:02x}")).collect();
            parts.push(format!("content={digest}"));
        }
        parts.join(" ")
    }

    /// Opens the store directly, to tamper with it behind locker's back: the SQLite file, or
    /// (with `LOCKER_TEST_STORE`) the test's PostgreSQL database, in the same dialect.
    pub fn sql(&self) -> sql::Db {
        match &self.pg {
            Some(url) => sql::Db::pg(url),
            None => sql::Db::Lite(
                rusqlite::Connection::open(self.db_path()).expect("the database opens"),
            ),
        }
    }
}

/// [`TestEnv::fingerprint`] and [`TestEnv::snapshot`] of a PostgreSQL store.
fn pg_state(url: &str, content_too: bool) -> String {
    use sha2::Digest as _;
    let mut c = pg_client(url);
    let mut parts = Vec::new();
    let mut content = sha2::Sha256::new();
    let tables: Vec<String> = c
        .query(
            "SELECT table_name::TEXT FROM information_schema.tables \
             WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' \
             ORDER BY table_name",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    for t in tables {
        let n: i64 = c.query_one(&format!("SELECT COUNT(*) FROM \"{t}\""), &[]).unwrap().get(0);
        parts.push(format!("{t}={n}"));
        if !content_too || t == "locker_schema" {
            continue;
        }
        for row in c.query(&format!("SELECT r::TEXT FROM \"{t}\" r ORDER BY 1"), &[]).unwrap() {
            let v: String = row.get(0);
            content.update(v.as_bytes());
            content.update(b"\x1e");
        }
    }
    let head: Option<(i64, String)> = c
        .query_opt("SELECT seq, hash FROM journal_head WHERE id = 1", &[])
        .unwrap()
        .map(|r| (r.get(0), r.get(1)));
    parts.push(format!("head={head:?}"));
    for r in c
        .query(
            "SELECT id || ':' || state || ':' || head_hash || ':' || block_count FROM pads \
             ORDER BY id",
            &[],
        )
        .unwrap()
    {
        parts.push(r.get(0));
    }
    if content_too {
        let digest: String = content.finalize().iter().map(|b| format!("{b:02x}")).collect();
        parts.push(format!("content={digest}"));
    }
    parts.join(" ")
}

/// `df -Pk`'s size and free space of the file system `dir` is on, in bytes: what locker's own
/// reading of it is checked against.
pub fn df(dir: &Path) -> (u64, u64) {
    let out = Command::new("df").arg("-Pk").arg(dir).output().expect("df runs");
    let text = String::from_utf8(out.stdout).expect("df prints text");
    let fields: Vec<&str> = text.lines().nth(1).expect("a line").split_whitespace().collect();
    let n = fields.len();
    let kib = |i: usize| fields[i].parse::<u64>().expect("a number of KiB") * 1024;
    (kib(n - 5), kib(n - 3))
}

/// The path of the `locker` binary under test.
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_locker"))
}

/// A valid `locker.handoff.v1` envelope.
pub const ENVELOPE: &str = r#"{"schema":"locker.handoff.v1","task_id":"t-1","from_agent":"a","to_agent":"b","constraints":["c1"],"artifacts":[{"name":"x"}],"budget_usd":1.25}"#;

/// A created pad's capabilities.
pub struct Pad {
    pub id: String,
    pub key: String,
    pub ticket: String,
}

impl TestEnv {
    /// Creates a pad and returns its capabilities.
    pub fn create_pad(&self, extra: &[&str]) -> Pad {
        let mut args = vec!["pad", "create"];
        args.extend_from_slice(extra);
        let v = self.json(&args);
        Pad {
            id: v["pad_id"].as_str().unwrap().to_owned(),
            key: v["write_key"].as_str().unwrap().to_owned(),
            ticket: v["read_ticket"].as_str().unwrap().to_owned(),
        }
    }

    /// Appends `data` to a pad with its key, expecting success; returns the ack.
    pub fn append(&self, pad: &Pad, data: &str) -> Value {
        self.json(&["append", &pad.id, "--key", &pad.key, "--data", data])
    }
}

impl TestEnv {
    /// The real `locker` binary as a `std::process::Command` (for spawning, piping and
    /// killing), with the same sealed environment as [`TestEnv::locker`].
    pub fn process(&self) -> std::process::Command {
        let mut cmd = std::process::Command::new(bin());
        cmd.env_clear()
            .env("HOME", self.path())
            .env("NO_COLOR", "1")
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("LOCKER_NOW", self.now.to_string())
            .env("LOCKER_DISK_SPACE", DISK_SPACE)
            .current_dir(self.path());
        cmd
    }

    /// Runs `locker --json ARGS` and returns its output, whatever the exit code.
    pub fn run(&self, args: &[&str]) -> std::process::Output {
        self.locker().arg("--json").args(args).output().expect("locker runs")
    }

    /// Like [`TestEnv::json`], at another time (`LOCKER_NOW`).
    pub fn json_at(&self, now: i64, args: &[&str]) -> Value {
        let out = self
            .locker()
            .env("LOCKER_NOW", now.to_string())
            .arg("--json")
            .args(args)
            .output()
            .expect("locker runs");
        assert!(
            out.status.success(),
            "locker {args:?} at {now} failed with {:?}: {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).expect("stdout is one JSON object")
    }

    /// Like [`TestEnv::json_err`], at another time (`LOCKER_NOW`).
    pub fn json_err_at(&self, now: i64, args: &[&str], code: i32) -> Value {
        let out = self
            .locker()
            .env("LOCKER_NOW", now.to_string())
            .arg("--json")
            .args(args)
            .output()
            .expect("locker runs");
        assert_eq!(
            out.status.code(),
            Some(code),
            "locker {args:?} at {now}: stdout {} stderr {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stdout.is_empty(), "an error prints nothing on stdout");
        serde_json::from_slice(&out.stderr).expect("stderr is one JSON error object")
    }

    /// Runs a failing command and checks its exit code, its JSON error code and detail, and
    /// that the repository is exactly as it was ([`TestEnv::snapshot`]). Returns the error.
    pub fn fails(&self, args: &[&str], code: i32, error: &str, detail: &str) -> Value {
        let before = self.snapshot();
        let e = self.json_err(args, code);
        assert_eq!(e["error"], error, "{args:?}: {e}");
        assert_eq!(e["detail"], detail, "{args:?}: {e}");
        assert_eq!(self.snapshot(), before, "{args:?} changed the repository");
        e
    }

    /// Writes `bytes` to a file in the test directory and returns its path as a string.
    pub fn file(&self, name: &str, bytes: &[u8]) -> String {
        let p = self.path().join(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&p, bytes).unwrap();
        p.to_str().unwrap().to_owned()
    }

    /// Creates a pad and appends the reference envelope as block 0.
    pub fn pad_with_envelope(&self, extra: &[&str]) -> Pad {
        let pad = self.create_pad(extra);
        self.append(&pad, ENVELOPE);
        pad
    }

    /// `locker verify` (whole repository) as JSON, with its exit code.
    pub fn verify(&self) -> (i32, Value) {
        let out = self.run(&["verify"]);
        let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!("verify printed no JSON ({e}): {}", String::from_utf8_lossy(&out.stderr))
        });
        (out.status.code().unwrap_or(-1), v)
    }

    /// The log key's high-water mark (`.locker/keys/log.checkpoint`): the signed note of its
    /// newest whole slot.
    pub fn mark_note(&self) -> String {
        locker::repo::mark::load(&self.path().join(".locker")).unwrap().expect("a mark").note
    }

    /// The size the high-water mark names.
    pub fn mark_size(&self) -> u64 {
        self.mark_note().lines().nth(1).unwrap().parse().unwrap()
    }

    /// Asserts that `locker verify` passes: exit 0 and `ok: true`.
    pub fn assert_verified(&self) {
        let (code, v) = self.verify();
        assert_eq!(code, 0, "verify: {v}");
        assert_eq!(v["ok"], true, "{v}");
    }
}

/// The `locker.handoff.v1` envelope padded with an `x` field to exactly `len` bytes.
pub fn envelope_of_len(len: usize) -> String {
    let base = r#"{"schema":"locker.handoff.v1","task_id":"t-1","from_agent":"a","to_agent":"b","constraints":[],"artifacts":[],"budget_usd":null,"x":""}"#;
    assert!(len >= base.len(), "an envelope needs at least {} bytes", base.len());
    let fill = "x".repeat(len - base.len());
    let s = base.replace(r#""x":"""#, &format!(r#""x":"{fill}""#));
    assert_eq!(s.len(), len);
    s
}
