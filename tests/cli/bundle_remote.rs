//! Bundles of remote pads: `pad export`, `verify PAD` and `review PAD` with `--remote` and a
//! ticket, against `locker serve` and against a real agent-locker daemon (`lockerd` 0.1.5).

use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{TestEnv, ENVELOPE};
use crate::interop::{deps, python};

const ATTESTATION: &str =
    r#"{"task_id":"t-1","from_agent":"a","to_agent":"b","status":"completed"}"#;

fn failed(report: &Value) -> Vec<String> {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "fail")
        .map(|c| c["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn test_pad_export_remote_from_locker_serve_pages_and_verifies() {
    let server_env = TestEnv::init();
    // Two blocks near 40 KB: the 64 KiB slice limit makes the client halve its pages.
    let pad = server_env.create_pad(&["--max-blocks", "8"]);
    server_env.append(&pad, ENVELOPE);
    server_env.append(&pad, ATTESTATION);
    for c in ['x', 'y'] {
        server_env.append(&pad, &c.to_string().repeat(40_000));
    }
    let sealed = server_env.json(&["seal", &pad.id, "--key", &pad.key]);
    let head = sealed["head_hash"].as_str().unwrap().to_owned();
    let s = server_env.serve(&[]);
    let url = s.url();

    // A CI machine with no repository at all.
    let ci = TestEnv::new();
    let file = ci.path().join("pad.bundle").to_str().unwrap().to_owned();
    let v = ci.json(&[
        "pad",
        "export",
        &pad.id,
        "--remote",
        &url,
        "--ticket",
        &pad.ticket,
        "-o",
        &file,
    ]);
    assert_eq!(v["block_count"], 4);
    assert_eq!(v["head_hash"], head.as_str());
    let r = ci.json(&["verify", "--bundle", &file, "--expect-head", &head]);
    assert_eq!(r["verdict"], "trusted_head_match", "{r}");
    assert_eq!(r["source"]["kind"], "locker");
    assert_eq!(r["source"]["url"], url.as_str());
    assert_eq!(r["blocks_read"], 4);
    // The same blocks as a local export on the server's repository.
    let local = server_env.path().join("local.bundle").to_str().unwrap().to_owned();
    server_env.json(&["pad", "export", &pad.id, "-o", &local]);
    let blocks = |p: &str| -> Vec<String> {
        std::fs::read_to_string(p).unwrap().lines().skip(1).map(str::to_owned).collect()
    };
    let (a, b) = (blocks(&file), blocks(&local));
    assert_eq!(a[..4], b[..4], "block lines differ");

    // verify PAD --remote with a ticket checks here; LOCKER_URL works as --remote does.
    let out = ci
        .locker()
        .env("LOCKER_URL", &url)
        .args(["--json", "verify", &pad.id, "--ticket", &pad.ticket, "--expect-head", &head])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["verdict"], "trusted_head_match");
    let wrong = "2".repeat(64);
    let out = ci
        .locker()
        .args(["--json", "verify", &pad.id, "--remote", &url, "--ticket", &pad.ticket])
        .args(["--expect-head", &wrong])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(failed(&r), ["expected_head"]);
    // A bad ticket is refused by the server; import has no remote form.
    let e = ci
        .json_err(&["pad", "export", &pad.id, "--remote", &url, "--ticket", "bad", "-o", &file], 5);
    assert_eq!(e["detail"], "invalid read ticket");
    let e = ci.json_err(&["verify", &pad.id, "--remote", &url, "--ticket", "bad"], 5);
    assert_eq!(e["detail"], "invalid read ticket");
    let e = server_env.json_err(&["pad", "import", &file, "--remote", &url], 2);
    assert_eq!(e["error"], "usage");

    // A block altered on the server is found from the CI side, and named.
    server_env
        .sql()
        .execute("UPDATE blocks SET payload = CAST('tampered' AS BLOB) WHERE seq = 1", [])
        .unwrap();
    let out = ci
        .locker()
        .args(["--json", "verify", &pad.id, "--remote", &url, "--ticket", &pad.ticket])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["first_failure"]["name"], "hashes", "{r}");
    assert!(r["first_failure"]["detail"].as_str().unwrap().starts_with("block 1 "));
    assert!(!ci.path().join(".locker").exists());
}

/// A real agent-locker daemon on a free loopback port; killed when dropped.
struct Lockerd {
    child: Child,
    url: String,
    db: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

impl Drop for Lockerd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn lockerd(lockermcp: &std::path::Path) -> Lockerd {
    let dir = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let db = dir.path().join("lockerd.db");
    let child = Command::new(lockermcp.with_file_name("lockerd"))
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", dir.path())
        .env("LOCKER_MODE", "open")
        .env("LOCKER_DB_PATH", &db)
        .env("LOCKER_HOST", "127.0.0.1")
        .env("LOCKER_PORT", port.to_string())
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("lockerd starts");
    let d = Lockerd { child, url: format!("http://127.0.0.1:{port}"), db, _dir: dir };
    let start = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(start.elapsed() < Duration::from_secs(30), "lockerd did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    d
}

/// Creates, fills and seals a pad on the daemon with its own HTTP API (httpx), and mints a
/// `read_unlimited` ticket; prints {pad_id, head, ticket}.
const SETUP: &str = r#"
import json, sys, httpx
url = sys.argv[1]
env, att = sys.argv[2], sys.argv[3]
c = httpx.Client(base_url=url, timeout=30)
p = c.post("/v1/pads", json={"ttl_seconds": 600, "max_blocks": 8}).json()
auth = {"Authorization": "Bearer " + p["write_key"]}
for body, ct in [(env, "application/json"), (att, "application/json"),
                 ("x" * 40000, "text/plain"), ("y" * 40000, "text/plain")]:
    r = c.post(f"/v1/pads/{p['pad_id']}/append", content=body.encode(),
               headers={**auth, "Content-Type": ct})
    assert r.status_code == 201, r.text
s = c.post(f"/v1/pads/{p['pad_id']}/seal", headers=auth).json()
t = c.post(f"/v1/pads/{p['pad_id']}/tickets", json={"type": "read_unlimited"}, headers=auth).json()
print(json.dumps({"pad_id": p["pad_id"], "head": s["head_hash"], "ticket": t["ticket"]}))
"#;

#[test]
fn test_pad_export_remote_from_an_agent_locker_daemon() {
    if crate::common::sqlite_only("reads or tampers with the SQLite files directly") {
        return;
    }
    let Some(d) = deps() else { return };
    let daemon = lockerd(&d.lockermcp);
    let ci = TestEnv::new();
    let (code, out, err) =
        python(&d, ci.path(), &["-c", SETUP, &daemon.url, ENVELOPE, ATTESTATION]);
    assert_eq!(code, 0, "{out}\n{err}");
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    let (pad, head, ticket) =
        (v["pad_id"].as_str().unwrap(), v["head"].as_str().unwrap(), v["ticket"].as_str().unwrap());
    let file = ci.path().join("peer.bundle").to_str().unwrap().to_owned();
    let url = daemon.url.as_str();
    let x = ci.json(&["pad", "export", pad, "--remote", url, "--ticket", ticket, "-o", &file]);
    assert_eq!(x["block_count"], 4);
    // Offline, with the head the daemon reported at sealing.
    let r = ci.json(&["verify", "--bundle", &file, "--expect-head", head]);
    assert_eq!(r["verdict"], "trusted_head_match", "{r}");
    assert_eq!(r["source"]["kind"], "agent-locker");
    assert_eq!(r["state"], "sealed");
    // Verified directly from the daemon, and imported into a locker repository.
    let r = ci.json(&["verify", pad, "--remote", url, "--ticket", ticket, "--expect-head", head]);
    assert_eq!(r["ok"], true);
    let repo = TestEnv::init();
    let imported = repo.json(&["pad", "import", &file, "--expect-head", head]);
    assert_eq!(imported["pad_id"], pad);
    assert_eq!(repo.verify().0, 0);
    assert_eq!(repo.json(&["verify", pad, "--expect-head", head])["ok"], true);

    // The daemon's database altered behind its back: found and named.
    let conn = rusqlite::Connection::open(&daemon.db).unwrap();
    conn.execute("UPDATE blocks SET payload = CAST('forged' AS BLOB) WHERE seq = 2", []).unwrap();
    let out = ci
        .locker()
        .args(["--json", "verify", pad, "--remote", url, "--ticket", ticket])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["first_failure"]["name"], "hashes", "{r}");
    assert!(r["first_failure"]["detail"].as_str().unwrap().starts_with("block 2 "));
}
