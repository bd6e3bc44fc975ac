//! The smaller holes of #18 (item 6): who a pad made over HTTP is journaled as, a restore under
//! a running server, a quest killed with its server left behind, temporary blob files left by
//! killed writes, and `verify` on a damaged database file.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{bin, TestEnv};

fn token(env: &TestEnv, agent: &str, scope: &str) -> String {
    let v = env.json(&["token", "create", "--agent", agent, "--scope", scope]);
    v["token"].as_str().unwrap().to_owned()
}

/// The journal entry that created `pad`, as the operator reads it.
fn creation(env: &TestEnv, pad: &str) -> Value {
    let out = env.locker().args(["--json", "log", "--subject", &format!("pad:{pad}")]).output();
    let text = String::from_utf8(out.unwrap().stdout).unwrap();
    let last = text.lines().last().unwrap_or_else(|| panic!("no entry for pad {pad}"));
    serde_json::from_str(last).unwrap()
}

#[test]
fn test_security_a_pad_made_over_http_is_journaled_as_the_agent_whose_token_made_it() {
    let env = TestEnv::init();
    let tok = token(&env, "planner", "team-a");
    let s = env.serve(&[]);
    let auth = format!("Authorization: Bearer {tok}");
    let pad = s.curl_json("/v1/pads", &["-X", "POST", "-H", &auth, "-d", "{}"], 201);
    let e = creation(&env, pad["pad_id"].as_str().unwrap());
    assert_eq!(
        (&e["kind"], &e["actor"], &e["scope"]),
        (&"pad.create".into(), &"planner".into(), &"team-a".into()),
        "{e}"
    );
    // The remote CLI sends its agent's token too.
    let out = env
        .locker()
        .env("LOCKER_TOKEN", &tok)
        .args(["--remote", &s.url(), "--json", "pad", "create"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let made: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(creation(&env, made["pad_id"].as_str().unwrap())["actor"], "planner");
    // A bad token is refused, not ignored.
    let e = s.curl_json(
        "/v1/pads",
        &["-X", "POST", "-H", "Authorization: Bearer nope", "-d", "{}"],
        401,
    );
    assert_eq!(e["error"], "unauthorized");
    // Without a token (agent-locker's clients): an anonymous caller, named so.
    let pad = s.curl_json("/v1/pads", &["-X", "POST", "-d", "{}"], 201);
    assert_eq!(creation(&env, pad["pad_id"].as_str().unwrap())["actor"], "anonymous");
}

#[test]
fn test_security_restore_yes_refuses_a_repository_a_server_runs_on() {
    if crate::common::sqlite_only("backup and restore copy SQLite's files") {
        return;
    }
    let env = TestEnv::init();
    env.pad_with_envelope(&[]);
    let bk = env.path().join("bk");
    env.json(&["backup", bk.to_str().unwrap()]);
    let here = env.path().to_str().unwrap().to_owned();
    let s = env.serve(&[]);
    let before = env.snapshot();
    let e = env.json_err(&["restore", bk.to_str().unwrap(), "--to", &here, "--yes"], 4);
    assert_eq!(e["error"], "server_running", "{e}");
    assert!(e["detail"].as_str().unwrap().contains(&s.child.id().to_string()), "{e}");
    assert_eq!(env.snapshot(), before, "nothing was replaced");
    // Once the server is gone (even killed outright), the restore goes ahead (the backup is
    // older than what the log key has signed since, so it is a deliberate rollback: #17).
    let mut s = s;
    s.child.kill().unwrap();
    s.child.wait().unwrap();
    let out =
        env.json(&["restore", bk.to_str().unwrap(), "--to", &here, "--yes", "--accept-rollback"]);
    assert_eq!(out["verified"], true);
}

/// The pids of `pid`'s children.
fn children(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for task in std::fs::read_dir(format!("/proc/{pid}/task")).into_iter().flatten().flatten() {
        let list = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        out.extend(list.split_whitespace().filter_map(|p| p.parse::<u32>().ok()));
    }
    out
}

fn cmdline(pid: u32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
        .unwrap_or_default()
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|s| !s.rsplit(')').next().unwrap_or("").trim_start().starts_with('Z'))
}

#[test]
fn test_security_a_killed_quest_leaves_no_server_behind() {
    let env = TestEnv::new();
    let mut quest = Command::new(bin())
        .env_clear()
        .env("HOME", env.path())
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .current_dir(env.path())
        .args(["quest", "--keep"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait for its server child, then kill the quest outright.
    let start = Instant::now();
    let server = loop {
        if let Some(p) = children(quest.id()).into_iter().find(|&p| cmdline(p).contains(" serve "))
        {
            break p;
        }
        assert!(start.elapsed() < Duration::from_secs(30), "the quest started no server");
        std::thread::sleep(Duration::from_millis(5));
    };
    quest.kill().unwrap();
    quest.wait().unwrap();
    let start = Instant::now();
    while alive(server) {
        assert!(
            start.elapsed() < Duration::from_secs(15),
            "the server {server} outlived its quest"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn test_security_doctor_reports_blob_files_left_by_killed_writes() {
    if crate::common::sqlite_only("blob files live in .locker/objects/ with SQLite only") {
        return;
    }
    let env = TestEnv::init();
    let objects = env.path().join(".locker/objects");
    std::fs::write(objects.join(".tmp-4f2a9c"), vec![7u8; 1000]).unwrap();
    let out = env.locker().args(["--json", "doctor"]).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let f: Vec<&Value> =
        v["findings"].as_array().unwrap().iter().filter(|f| f["check"] == "stray_blobs").collect();
    assert_eq!(f.len(), 1, "{v}");
    assert_eq!(f[0]["status"], "warn");
    let detail = f[0]["detail"].as_str().unwrap();
    assert!(detail.contains(".tmp-4f2a9c") && detail.contains("1000 bytes"), "{detail}");
}

#[test]
fn test_security_verify_on_a_damaged_database_file_finds_it_exit_1() {
    if crate::common::sqlite_only("damages SQLite's pages") {
        return;
    }
    let env = TestEnv::init();
    for _ in 0..20 {
        env.pad_with_envelope(&[]);
    }
    // Fold the WAL into the database file, then damage its pages.
    let db = rusqlite::Connection::open(env.db_path()).unwrap();
    db.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).unwrap();
    drop(db);
    let path = env.db_path();
    let mut bytes = std::fs::read(&path).unwrap();
    for page in (1..bytes.len() / 4096).step_by(2) {
        bytes[page * 4096 + 8..page * 4096 + 72].fill(7);
    }
    std::fs::write(&path, bytes).unwrap();
    let out = env.locker().args(["--json", "verify"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["ok"], false);
    assert_eq!(v["problems"][0]["kind"], "store", "{v}");
    assert!(v["problems"][0]["detail"].as_str().unwrap().contains("malformed"), "{v}");
}
