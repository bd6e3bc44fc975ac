//! Torture (SPEC §13, issue 9): SIGKILL rounds against `locker serve` and CLI writers at once,
//! a disk that fills up, a read-only disk, and 64 clients doing a mix of every operation.
//!
//! Each test is bounded here (a few rounds, a few seconds); `scripts/torture.sh` runs them
//! longer through `LOCKER_TORTURE_ROUNDS` and `LOCKER_TORTURE_LOAD_SECS`. The disk tests
//! mount a small tmpfs and are skipped (with a note on stderr) where that is not allowed.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use serde_json::{json, Value};

use crate::common::http1::Http;
use crate::common::{Pad, TestEnv, ENVELOPE};

fn env_num(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// A small xorshift generator; the seed is printed so that a failing run can be repeated.
#[derive(Clone)]
struct Rng(u64);

impl Rng {
    #[allow(clippy::print_stderr)]
    fn seeded(name: &str) -> Self {
        let seed =
            std::env::var("LOCKER_TEST_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(
                || SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos() as u64 | 1,
            );
        eprintln!("{name}: LOCKER_TEST_SEED={seed}");
        Self(seed)
    }

    fn fork(&mut self, salt: u64) -> Self {
        Self((self.next() ^ salt.wrapping_mul(0x9E37_79B9_7F4A_7C15)) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

// ---------------------------------------------------------------------------------------------
// Crash rounds.

/// What writers were told and what they tried.
#[derive(Default)]
struct Ledger {
    /// Acknowledged appends: payload → (pad, seq, curr_hash).
    appends: HashMap<String, (String, u64, String)>,
    /// Every payload an append was attempted with (acknowledged or not).
    attempted: Vec<String>,
    /// Acknowledged deposits: pad → head.
    deposits: HashMap<String, String>,
}

/// Every acknowledged append is stored exactly once with its acknowledged seq and hash, no
/// payload was stored twice, every acknowledged deposit is there and sealed with its head, and
/// `locker verify` (journal chain, pad chains, replay) is clean.
fn check_ledger(env: &TestEnv, ledger: &Ledger) {
    let conn = env.sql();
    let mut stored: HashMap<String, Vec<(String, u64, String)>> = HashMap::new();
    let mut stmt = conn
        .prepare("SELECT pad_id, seq, CAST(payload AS TEXT), lower(hex(curr_hash)) FROM blocks")
        .unwrap();
    let rows = stmt
        .query_map([], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?, r.get::<_, String>(2)?, r.get(3)?))
        })
        .unwrap();
    for row in rows {
        let (pad, seq, payload, hash) = row.unwrap();
        stored.entry(payload).or_default().push((pad, seq as u64, hash));
    }
    for p in &ledger.attempted {
        let n = stored.get(p).map_or(0, Vec::len);
        assert!(n <= 1, "payload {p:?} is stored {n} times");
    }
    for (payload, (pad, seq, hash)) in &ledger.appends {
        let found = stored.get(payload).and_then(|v| v.first());
        assert_eq!(
            found,
            Some(&(pad.clone(), *seq, hash.clone())),
            "the acknowledged append {payload:?} is lost or changed"
        );
    }
    for (pad, head) in &ledger.deposits {
        let (state, stored_head): (String, String) = conn
            .query_row(
                "SELECT state, (SELECT lower(hex(curr_hash)) FROM blocks WHERE pad_id = ?1 \
                 ORDER BY seq DESC LIMIT 1) FROM pads WHERE id = ?1",
                [pad],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap_or_else(|e| panic!("the acknowledged deposit {pad} is lost: {e}"));
        assert_eq!((state.as_str(), &stored_head), ("sealed", head), "deposit {pad}");
    }
    let (code, report) = env.verify();
    assert_eq!(code, 0, "{report:#}");
}

/// A CLI writer's running `locker append`, killable by the killer thread.
type Running = Arc<Mutex<Vec<Arc<Mutex<Child>>>>>;

/// Spawns `locker --json append` processes one after another until `stop`.
fn cli_writer(
    env: &TestEnv,
    pads: &[Pad],
    tag: &str,
    mut rng: Rng,
    stop: &AtomicBool,
    running: &Running,
    ledger: &Mutex<Ledger>,
) {
    let mut n = 0;
    while !stop.load(Ordering::Relaxed) {
        let pad = &pads[rng.below(pads.len() as u64) as usize];
        let payload = format!("{tag} {n}");
        n += 1;
        ledger.lock().unwrap().attempted.push(payload.clone());
        let child = env
            .process()
            .env("LOCKER_WRITE_KEY", &pad.key)
            .args(["--json", "append", &pad.id, "--data", &payload])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let child = Arc::new(Mutex::new(child));
        running.lock().unwrap().push(Arc::clone(&child));
        let status = loop {
            if let Some(s) = child.lock().unwrap().try_wait().unwrap() {
                break s;
            }
            std::thread::sleep(Duration::from_millis(1));
        };
        running.lock().unwrap().retain(|c| !Arc::ptr_eq(c, &child));
        let mut out = Vec::new();
        if let Some(mut o) = child.lock().unwrap().stdout.take() {
            let _ = std::io::Read::read_to_end(&mut o, &mut out);
        }
        // A killed process that printed a whole ack had committed.
        if let Ok(v) = serde_json::from_slice::<Value>(&out) {
            let hash = v["curr_hash"].as_str().unwrap().to_owned();
            let ack = (pad.id.clone(), v["seq"].as_u64().unwrap(), hash);
            ledger.lock().unwrap().appends.insert(payload, ack);
        } else if status.success() {
            panic!("a successful append printed no ack");
        }
    }
}

/// Appends over one keep-alive connection until `stop` or the server is gone.
fn http_writer(
    addr: std::net::SocketAddr,
    pads: &[Pad],
    tag: &str,
    mut rng: Rng,
    stop: &AtomicBool,
    ledger: &Mutex<Ledger>,
) {
    let mut c = Http::new(addr);
    let mut n = 0;
    while !stop.load(Ordering::Relaxed) {
        let pad = &pads[rng.below(pads.len() as u64) as usize];
        let payload = format!("{tag} {n}");
        n += 1;
        ledger.lock().unwrap().attempted.push(payload.clone());
        let auth = format!("Bearer {}", pad.key);
        let Ok(r) = c.req(
            "POST",
            &format!("/v1/pads/{}/append", pad.id),
            &[("Authorization", &auth), ("Content-Type", "text/plain")],
            payload.as_bytes(),
        ) else {
            return;
        };
        assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
        let v = r.json().unwrap();
        let ack = (
            pad.id.clone(),
            v["seq"].as_u64().unwrap(),
            v["curr_hash"].as_str().unwrap().to_owned(),
        );
        ledger.lock().unwrap().appends.insert(payload, ack);
    }
}

/// Deposits small sealed pads until `stop` or the server is gone.
fn http_depositor(
    addr: std::net::SocketAddr,
    tag: &str,
    stop: &AtomicBool,
    ledger: &Mutex<Ledger>,
) {
    let b64 = |b: &[u8]| base64::engine::general_purpose::STANDARD.encode(b);
    let mut c = Http::new(addr);
    let mut n = 0;
    while !stop.load(Ordering::Relaxed) {
        let artifact = format!("{tag} deposit {n}");
        n += 1;
        let body = json!({"envelope_b64": b64(ENVELOPE.as_bytes()),
                          "artifacts": [{"payload_b64": b64(artifact.as_bytes()), "content_type": "text/plain"}]});
        ledger.lock().unwrap().attempted.push(artifact);
        let Ok(r) = c.post_json("/v1/deposit", &[], &body) else { return };
        assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
        let v = r.json().unwrap();
        let pad = v["pad_id"].as_str().unwrap().to_owned();
        ledger.lock().unwrap().deposits.insert(pad, v["head_hash"].as_str().unwrap().to_owned());
    }
}

/// Fresh pads for a round (with a `--max-blocks` high enough for any round).
fn round_pads(env: &TestEnv) -> Vec<Pad> {
    (0..3).map(|_| env.pad_with_envelope(&["--max-blocks", "4096"])).collect()
}

/// Rounds of two CLI writers, three HTTP writers and a depositor against one repository;
/// at a random moment one random process (the server or a running `locker append`) is
/// killed with SIGKILL, then the round ends by killing the server. After every round every
/// acknowledged write is there exactly once and `verify` is clean.
#[test]
#[allow(clippy::print_stderr)]
fn test_torture_sigkill_server_and_cli_writers_loses_no_acknowledged_write() {
    let rounds = env_num("LOCKER_TORTURE_ROUNDS", 3);
    let env = TestEnv::init();
    let mut rng = Rng::seeded("torture crash");
    let ledger = Mutex::new(Ledger::default());
    let (mut server_kills, mut cli_kills) = (0, 0);
    let mut pads = round_pads(&env);
    for round in 0..rounds {
        if round % 10 == 9 {
            pads = round_pads(&env);
        }
        let server = Mutex::new(env.serve(&[]));
        let addr = server.lock().unwrap().addr;
        let stop = AtomicBool::new(false);
        let running: Running = Arc::default();
        let victim_is_server = rng.below(3) == 0;
        let delay = Duration::from_millis(50 + rng.below(400));
        std::thread::scope(|s| {
            for w in 0..2 {
                let (rng, pads, stop, running, ledger, env) =
                    (rng.fork(w), &pads, &stop, &running, &ledger, &env);
                s.spawn(move || {
                    cli_writer(env, pads, &format!("r{round} cli{w}"), rng, stop, running, ledger);
                });
            }
            for w in 0..3 {
                let (rng, pads, stop, ledger) = (rng.fork(10 + w), &pads, &stop, &ledger);
                s.spawn(move || {
                    http_writer(addr, pads, &format!("r{round} http{w}"), rng, stop, ledger);
                });
            }
            let (stop2, ledger2) = (&stop, &ledger);
            s.spawn(move || http_depositor(addr, &format!("r{round}"), stop2, ledger2));
            std::thread::sleep(delay);
            if victim_is_server {
                server.lock().unwrap().child.kill().unwrap();
                server_kills += 1;
            } else {
                let victim = {
                    let r = running.lock().unwrap();
                    (!r.is_empty()).then(|| Arc::clone(&r[rng.below(r.len() as u64) as usize]))
                };
                if let Some(v) = victim {
                    // SIGKILL; a no-op on a process that has exited but is not reaped yet.
                    let _ = v.lock().unwrap().kill();
                    cli_kills += 1;
                }
            }
            std::thread::sleep(Duration::from_millis(50));
            stop.store(true, Ordering::Relaxed);
            // The round ends with the server killed too.
            let _ = server.lock().unwrap().child.kill();
        });
        let mut srv = server.into_inner().unwrap();
        let _ = srv.child.wait();
        check_ledger(&env, &ledger.lock().unwrap());
    }
    let l = ledger.lock().unwrap();
    eprintln!(
        "{rounds} SIGKILL rounds ({server_kills} of the server mid-round, {cli_kills} of a locker \
         append): {} acknowledged appends, {} acknowledged deposits, {} attempts",
        l.appends.len(),
        l.deposits.len(),
        l.attempted.len()
    );
    assert!(!l.appends.is_empty(), "nothing was ever acknowledged");
}

// ---------------------------------------------------------------------------------------------
// Disk full and read-only.

/// A tmpfs of `size` mounted at a new directory, unmounted when dropped.
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    /// `None` (with a note) where mounting is not allowed.
    #[allow(clippy::print_stderr)]
    fn mount(size: &str) -> Option<Self> {
        let dir = tempfile::tempdir().unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size},mode=0755"), "tmpfs"])
            .arg(dir.path())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            eprintln!("skipped: cannot mount a tmpfs here (needs root)");
            return None;
        }
        Some(Self { dir })
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn remount(&self, opts: &str) {
        let ok = Command::new("mount")
            .args(["-o", &format!("remount,{opts}")])
            .arg(self.path())
            .status()
            .unwrap();
        assert!(ok.success(), "remount {opts}");
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(self.dir.path()).status();
    }
}

/// A test environment whose repository lives on `fs`.
fn env_on(fs: &Tmpfs) -> TestEnv {
    let env = TestEnv::new();
    let repo = fs.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    let out = env.locker().arg("-R").arg(&repo).arg("init").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    env
}

/// `locker --json -R REPO ARGS` in `env`.
fn on(env: &TestEnv, repo: &Path, args: &[&str]) -> std::process::Output {
    env.locker().arg("--json").arg("-R").arg(repo).args(args).output().unwrap()
}

fn ok_json(out: &std::process::Output) -> Value {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A read-only connection to a repository's database. While it is open, the WAL and its index
/// stay in place (as with a running server), so that SQLite can still be read on a full disk.
fn reader(repo: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open_with_flags(
        repo.join(".locker/locker.db"),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .unwrap()
}

/// The rows of the main tables and the journal head, as `conn` sees them.
fn db_state(conn: &rusqlite::Connection) -> String {
    let mut out = String::new();
    for t in ["journal", "pads", "blocks", "tickets", "artifact_versions", "blobs"] {
        let n: i64 =
            conn.query_row(&format!("SELECT COUNT(*) FROM {t}"), [], |r| r.get(0)).unwrap();
        out.push_str(&format!("{t}={n} "));
    }
    let head: Option<String> = conn
        .query_row("SELECT lower(hex(hash)) FROM journal ORDER BY seq DESC LIMIT 1", [], |r| {
            r.get(0)
        })
        .ok();
    out.push_str(&format!("head={head:?}"));
    out
}

/// Fills the filesystem holding `dir` with a filler file; returns its path.
fn fill(dir: &Path) -> PathBuf {
    let path = dir.join("filler");
    let mut f = std::fs::File::create(&path).unwrap();
    let chunk = vec![0u8; 64 * 1024];
    while std::io::Write::write_all(&mut f, &chunk).is_ok() {}
    // Byte-sized leftovers too.
    while std::io::Write::write_all(&mut f, &[0u8; 512]).is_ok() {}
    let _ = f.sync_all();
    path
}

/// Every write on a full disk fails with exit 8 and a clear error, leaves the database as it
/// was and creates no stray file; once space is back, everything verifies and writing works.
#[test]
#[allow(clippy::print_stderr)]
fn test_torture_disk_full_clear_errors_nothing_half_written_then_recovers() {
    if crate::common::sqlite_only("reads or tampers with the SQLite files directly") {
        return;
    }
    let Some(fs) = Tmpfs::mount("4m") else { return };
    let env = env_on(&fs);
    let repo = fs.path().join("repo");
    let pad: Value = ok_json(&on(&env, &repo, &["pad", "create", "--max-blocks", "4096"]));
    let (id, key) = (pad["pad_id"].as_str().unwrap(), pad["write_key"].as_str().unwrap());
    ok_json(&on(&env, &repo, &["append", id, "--key", key, "--data", ENVELOPE]));
    let tok = ok_json(&on(&env, &repo, &["token", "create", "--agent", "a", "--scope", "demo"]));
    let tok = tok["token"].as_str().unwrap().to_owned();
    let conn = reader(&repo);
    db_state(&conn); // maps the WAL index before the disk fills up
    let filler = fill(fs.path());

    let big = env.file("big", &vec![b'b'; 60_000]);
    let artifact = env.file("artifact", &vec![b'a'; 200_000]);
    let mut failures: HashMap<String, u32> = HashMap::new();
    for round in 0..40 {
        let before = db_state(&conn);
        let objects_before = count_files(&repo.join(".locker/objects"));
        let data = format!("round {round}");
        let out = match round % 4 {
            0 => on(&env, &repo, &["append", id, "--key", key, &big]),
            1 => on(&env, &repo, &["pad", "create"]),
            2 => {
                let mut cmd = env.locker();
                cmd.env("LOCKER_TOKEN", &tok).arg("--json").arg("-R").arg(&repo);
                cmd.args(["artifact", "publish", "k", &artifact, "--op", &data, "--expect", "0"]);
                cmd.output().unwrap()
            }
            _ => on(&env, &repo, &["append", id, "--key", key, "--data", &data]),
        };
        if out.status.success() {
            continue;
        }
        assert_eq!(out.status.code(), Some(8), "{}", String::from_utf8_lossy(&out.stderr));
        let e: Value = serde_json::from_slice(&out.stderr).expect("a JSON error");
        assert!(["disk_full", "io"].contains(&e["error"].as_str().unwrap()), "a clear error: {e}");
        assert_eq!(db_state(&conn), before, "a failed write changed the database: {e}");
        *failures.entry(format!("{}: {}", e["error"], e["detail"])).or_default() += 1;
        assert_eq!(count_files(&repo.join(".locker/objects")), objects_before, "a stray blob file");
    }
    eprintln!("disk full: refused writes: {failures:?}");
    assert!(!failures.is_empty(), "the disk never filled up");
    // Reads still work on a full disk.
    ok_json(&on(&env, &repo, &["pad", "show", id]));
    std::fs::remove_file(filler).unwrap();
    let v = ok_json(&on(&env, &repo, &["verify"]));
    assert_eq!(v["ok"], true, "{v:#}");
    ok_json(&on(&env, &repo, &["append", id, "--key", key, "--data", "after"]));
    assert_eq!(ok_json(&on(&env, &repo, &["verify"]))["ok"], true);
}

fn count_files(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    entries
        .filter_map(Result::ok)
        .map(|e| if e.path().is_dir() { count_files(&e.path()) } else { 1 })
        .sum()
}

/// `locker serve` on a disk that fills up: writes get 503 with a clear error, none is
/// acknowledged without being stored; once space is back the server writes again and
/// everything verifies.
#[test]
fn test_torture_disk_full_under_serve_then_recovers() {
    if crate::common::sqlite_only("reads or tampers with the SQLite files directly") {
        return;
    }
    let Some(fs) = Tmpfs::mount("4m") else { return };
    let env = env_on(&fs);
    let repo = fs.path().join("repo");
    let server = env.serve(&["-R", repo.to_str().unwrap()]);
    let mut c = Http::new(server.addr);
    let created = c
        .post_json("/v1/pads", &[], &json!({"ttl_seconds": 3600, "max_blocks": 4096}))
        .unwrap()
        .json()
        .unwrap();
    let id = created["pad_id"].as_str().unwrap().to_owned();
    let auth = format!("Bearer {}", created["write_key"].as_str().unwrap());
    let append = |c: &mut Http, body: &[u8]| {
        c.req("POST", &format!("/v1/pads/{id}/append"), &[("Authorization", &auth)], body).unwrap()
    };
    assert_eq!(append(&mut c, ENVELOPE.as_bytes()).status, 201);
    let filler = fill(fs.path());
    let mut acked = Vec::new();
    let mut refused = 0;
    for i in 0..60 {
        let body = format!("{i:06}").repeat(300);
        let r = append(&mut c, body.as_bytes());
        match r.status {
            201 => acked.push((r.json().unwrap()["seq"].as_u64().unwrap(), body)),
            503 => {
                let e = r.json().unwrap();
                assert!(
                    ["disk_full", "io", "unavailable"].contains(&e["error"].as_str().unwrap()),
                    "{e}"
                );
                refused += 1;
            }
            s => panic!("unexpected status {s}: {}", String::from_utf8_lossy(&r.body)),
        }
    }
    assert!(refused > 0, "the disk never filled up");
    std::fs::remove_file(filler).unwrap();
    let r = append(&mut c, b"after");
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    drop(server);
    let conn = rusqlite::Connection::open(repo.join(".locker/locker.db")).unwrap();
    for (seq, body) in &acked {
        let stored: Vec<u8> = conn
            .query_row(
                "SELECT payload FROM blocks WHERE pad_id = ?1 AND seq = ?2",
                rusqlite::params![id, *seq as i64],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(stored, body.as_bytes(), "acknowledged block {seq}");
    }
    assert_eq!(ok_json(&on(&env, &repo, &["verify"]))["ok"], true);
}

/// On a read-only filesystem writes fail with exit 8 and a clear error and reads still work;
/// once it is writable again everything verifies.
#[test]
fn test_torture_read_only_disk_clear_errors_then_recovers() {
    if crate::common::sqlite_only("reads or tampers with the SQLite files directly") {
        return;
    }
    let Some(fs) = Tmpfs::mount("8m") else { return };
    let env = env_on(&fs);
    let repo = fs.path().join("repo");
    let pad = ok_json(&on(&env, &repo, &["pad", "create"]));
    let (id, key) = (pad["pad_id"].as_str().unwrap(), pad["write_key"].as_str().unwrap());
    ok_json(&on(&env, &repo, &["append", id, "--key", key, "--data", ENVELOPE]));
    let before = db_state(&reader(&repo));
    fs.remount("ro");
    for args in [
        vec!["append", id, "--key", key, "--data", "x"],
        vec!["pad", "create"],
        vec!["seal", id, "--key", key],
    ] {
        let out = on(&env, &repo, &args);
        assert_eq!(
            out.status.code(),
            Some(8),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let e: Value = serde_json::from_slice(&out.stderr).expect("a JSON error");
        assert!(
            ["read_only", "io", "unavailable"].contains(&e["error"].as_str().unwrap()),
            "{args:?}: {e}"
        );
    }
    // Reading works, or fails just as clearly.
    let out = on(&env, &repo, &["pad", "show", id]);
    assert!(out.status.code() == Some(0) || out.status.code() == Some(8));
    fs.remount("rw");
    assert_eq!(db_state(&reader(&repo)), before, "nothing was written");
    assert_eq!(ok_json(&on(&env, &repo, &["verify"]))["ok"], true);
    ok_json(&on(&env, &repo, &["append", id, "--key", key, "--data", "after"]));
}

// ---------------------------------------------------------------------------------------------
// Load.

/// Shared state the load clients race on.
struct Shared {
    pads: Mutex<Vec<(String, String, String)>>,
    versions: Mutex<HashMap<String, u64>>,
}

/// What the load clients saw.
#[derive(Default)]
struct Tally {
    lat: Vec<f64>,
    by_op: HashMap<(&'static str, u16), u64>,
    unexpected: Vec<String>,
}

/// One operation of the mix; records its status and whether it was one of `ok`.
#[allow(clippy::too_many_lines)]
fn load_op(c: &mut Http, rng: &mut Rng, shared: &Shared, token: &str, me: usize, t: &mut Tally) {
    let pick = rng.below(100);
    let (pad_id, key, ticket) = {
        let pads = shared.pads.lock().unwrap();
        pads[rng.below(pads.len() as u64) as usize].clone()
    };
    let auth = format!("Bearer {key}");
    let tauth = format!("Bearer {token}");
    let started = Instant::now();
    let (op, ok, r): (&'static str, &[u16], _) = match pick {
        0..=34 => {
            let body = format!("client {me} {}", rng.next());
            let r = c.req(
                "POST",
                &format!("/v1/pads/{pad_id}/append"),
                &[("Authorization", &auth)],
                body.as_bytes(),
            );
            ("append", &[201, 409], r)
        }
        35..=36 => {
            let r =
                c.req("POST", &format!("/v1/pads/{pad_id}/seal"), &[("Authorization", &auth)], b"");
            ("seal", &[200, 409], r)
        }
        37..=41 => {
            let r = c.post_json("/v1/pads", &[], &json!({"ttl_seconds": 3600, "max_blocks": 64}));
            if let Ok(Ok(v)) = r.as_ref().map(|r| r.json()) {
                if let (Some(id), Some(k)) = (v["pad_id"].as_str(), v["write_key"].as_str()) {
                    // Block 0, then an unlimited ticket, then the pad joins the shared pool.
                    let a = format!("Bearer {k}");
                    let _ = c.req(
                        "POST",
                        &format!("/v1/pads/{id}/append"),
                        &[("Authorization", &a)],
                        ENVELOPE.as_bytes(),
                    );
                    let tk = c.post_json(
                        &format!("/v1/pads/{id}/tickets"),
                        &[("Authorization", &a)],
                        &json!({"type": "read_unlimited"}),
                    );
                    if let Ok(Ok(tv)) = tk.map(|r| r.json()) {
                        let mut pads = shared.pads.lock().unwrap();
                        let slot = rng.below(pads.len() as u64) as usize;
                        pads[slot] = (
                            id.to_owned(),
                            k.to_owned(),
                            tv["ticket"].as_str().unwrap_or("").to_owned(),
                        );
                    }
                }
            }
            ("create", &[201], r)
        }
        42..=44 => {
            let r = c.post_json(
                &format!("/v1/pads/{pad_id}/tickets"),
                &[("Authorization", &auth)],
                &json!({"type": "read_once"}),
            );
            ("ticket", &[201], r)
        }
        45..=54 => {
            let r = c.req(
                "GET",
                &format!("/v1/pads/{pad_id}/blocks?from=0&to=9&ticket={ticket}"),
                &[],
                b"",
            );
            ("read", &[200], r)
        }
        55..=59 => {
            ("manifest", &[200], c.req("GET", &format!("/v1/pads/{pad_id}/manifest"), &[], b""))
        }
        60..=63 => {
            let b64 = |b: &[u8]| base64::engine::general_purpose::STANDARD.encode(b);
            let body = json!({"envelope_b64": b64(ENVELOPE.as_bytes()),
                              "artifacts": [{"payload_b64": b64(b"result"), "content_type": "text/plain"}]});
            ("deposit", &[201], c.post_json("/v1/deposit", &[], &body))
        }
        64..=73 => {
            let k = format!("shared/{}", rng.below(8));
            let expected = shared.versions.lock().unwrap().get(&k).copied().unwrap_or(0);
            let body = json!({"key": k, "expected_version": expected,
                              "operation_id": format!("op-{me}-{}", rng.next()), "content": "x".repeat(100)});
            let r = c.post_json("/v1/artifact", &[("Authorization", &tauth)], &body);
            if let Ok(Ok(v)) = r.as_ref().map(|r| r.json()) {
                let v = v["artifact"]["version"].as_u64().or(v["current_version"].as_u64());
                if let Some(v) = v {
                    shared.versions.lock().unwrap().insert(k, v);
                }
            }
            ("publish", &[200, 409], r)
        }
        74..=78 => {
            let k = format!("shared/{}", rng.below(8));
            (
                "get",
                &[200, 404],
                c.req("GET", &format!("/v1/artifact?key={k}"), &[("Authorization", &tauth)], b""),
            )
        }
        79..=88 => {
            // A few hot work items (held: conflicts) among many fresh ones.
            let hot = rng.below(4) == 0;
            let work = format!("job-{}", rng.below(if hot { 4 } else { 100_000 }));
            let holder = format!("client-{me}");
            let r =
                c.post_json("/lease", &[], &json!({"work_ref": work, "holder": holder, "ttl": 60}));
            let lease = r.as_ref().ok().filter(|r| r.status == 200).and_then(|r| r.json().ok());
            if let Some(l) = lease.and_then(|v| v["lease"].as_str().map(str::to_owned)) {
                let body = json!({"work_ref": work, "lease": l});
                let hb = c.post_json("/heartbeat", &[], &body);
                tally(t, "heartbeat", &[200, 409, 410], started, hb);
                let done = c.post_json("/complete", &[], &body);
                tally(t, "complete", &[200, 409, 410], started, done);
            }
            ("lease", &[200, 409], r)
        }
        89..=92 => ("journal", &[200], c.req("GET", "/v1/journal?limit=20", &[], b"")),
        93..=95 => {
            ("verify_pad", &[200], c.req("GET", &format!("/v1/pads/{pad_id}/verify"), &[], b""))
        }
        96..=97 => ("health", &[200], c.req("GET", "/health", &[], b"")),
        _ => ("list", &[200], c.req("GET", "/v1/pads?limit=10", &[], b"")),
    };
    tally(t, op, ok, started, r);
}

fn tally(
    t: &mut Tally,
    op: &'static str,
    ok: &[u16],
    started: Instant,
    r: Result<crate::common::http1::Resp, String>,
) {
    t.lat.push(started.elapsed().as_secs_f64());
    match r {
        Ok(r) => {
            *t.by_op.entry((op, r.status)).or_default() += 1;
            if !ok.contains(&r.status) {
                t.unexpected.push(format!(
                    "{op}: {} {}",
                    r.status,
                    String::from_utf8_lossy(&r.body)
                ));
            }
        }
        Err(e) => t.unexpected.push(format!("{op}: {e}")),
    }
}

/// 64 clients, each on its own keep-alive connection, doing a mix of every kind of operation
/// on shared pads, artifact keys and work items: no status but the expected ones (conflicts
/// are expected), a bounded p99 and resident memory, and `verify` clean afterwards.
#[test]
#[allow(clippy::print_stderr)]
fn test_torture_load_64_clients_mixed_operations() {
    let secs = env_num("LOCKER_TORTURE_LOAD_SECS", 5);
    let env = TestEnv::init();
    let tok = env.json(&["token", "create", "--agent", "loader", "--scope", "load"]);
    let token = tok["token"].as_str().unwrap().to_owned();
    let pads = (0..8)
        .map(|_| {
            let p = env.pad_with_envelope(&["--max-blocks", "4096"]);
            let t = env.json(&["pad", "ticket", &p.id, "--key", &p.key]);
            (p.id, p.key, t["ticket"].as_str().unwrap().to_owned())
        })
        .collect();
    let shared = Shared { pads: Mutex::new(pads), versions: Mutex::default() };
    let server = env.serve(&[]);
    let addr = server.addr;
    let pid = server.child.id();
    let deadline = Instant::now() + Duration::from_secs(secs);
    let peak = AtomicU64::new(0);
    let done = AtomicBool::new(false);
    let mut rng = Rng::seeded("torture load");
    let tallies: Vec<Tally> = std::thread::scope(|s| {
        let (peak, done) = (&peak, &done);
        s.spawn(move || {
            while !done.load(Ordering::Relaxed) {
                if let Some(kib) = rss_kib(pid) {
                    peak.fetch_max(kib, Ordering::Relaxed);
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        });
        let handles: Vec<_> = (0..64)
            .map(|me| {
                let (mut rng, shared, token) = (rng.fork(me as u64), &shared, &token);
                s.spawn(move || {
                    let mut c = Http::new(addr);
                    let mut t = Tally::default();
                    while Instant::now() < deadline {
                        load_op(&mut c, &mut rng, shared, token, me, &mut t);
                    }
                    t
                })
            })
            .collect();
        let tallies = handles.into_iter().map(|h| h.join().unwrap()).collect();
        done.store(true, Ordering::Relaxed);
        tallies
    });
    let (code, log) = server.stop();
    assert_eq!(code, Some(0), "{log}");
    let mut lat: Vec<f64> = tallies.iter().flat_map(|t| t.lat.iter().copied()).collect();
    lat.sort_by(f64::total_cmp);
    let p99 = lat[(lat.len() * 99 / 100).min(lat.len() - 1)];
    let mut by_op: HashMap<(&str, u16), u64> = HashMap::new();
    for t in &tallies {
        for (k, v) in &t.by_op {
            *by_op.entry(*k).or_default() += v;
        }
    }
    let mut summary: Vec<String> =
        by_op.iter().map(|((op, st), n)| format!("{op} {st}: {n}")).collect();
    summary.sort();
    let peak = peak.load(Ordering::Relaxed);
    eprintln!(
        "load: {} requests in {secs} s by 64 clients, p99 {:.1} ms, server peak RSS {:.1} MiB\n  {}",
        lat.len(),
        p99 * 1e3,
        peak as f64 / 1024.0,
        summary.join(", ")
    );
    let unexpected: Vec<&String> = tallies.iter().flat_map(|t| &t.unexpected).take(10).collect();
    assert!(unexpected.is_empty(), "unexpected answers: {unexpected:#?}");
    assert!(p99 < 2.0, "p99 {p99:.3} s");
    assert!(peak < 256 * 1024, "peak RSS {peak} KiB");
    let (code, report) = env.verify();
    assert_eq!(code, 0, "{report:#}");
}

fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status.lines().find(|l| l.starts_with("VmRSS:"))?.split_whitespace().nth(1)?.parse().ok()
}
