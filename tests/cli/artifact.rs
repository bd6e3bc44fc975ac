//! `locker artifact …`: questlock's failure tests rebuilt for locker (compare-and-swap races,
//! simultaneous retries, replay after newer versions, scope isolation, exact limits, rollback of
//! a publish that fails half-way), plus `verify` catching tampered artifact rows.

use std::process::{Command, Output, Stdio};

use serde_json::Value;

use crate::common::{bin, TestEnv};

// ---------------------------------------------------------------------------------------------
// Helpers shared by the artifact, token and blob tests.

impl TestEnv {
    /// The binary as a plain `std::process::Command` (for spawning many at once), sealed like
    /// [`TestEnv::locker`]; with `token`, acting as that agent.
    pub fn raw_cmd(&self, token: Option<&str>) -> Command {
        let mut cmd = Command::new(bin());
        cmd.env_clear()
            .env("HOME", self.path())
            .env("NO_COLOR", "1")
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("LOCKER_NOW", self.now.to_string())
            .current_dir(self.path())
            .stdin(Stdio::null());
        if let Some(t) = token {
            cmd.env("LOCKER_TOKEN", t);
        }
        cmd
    }

    /// Runs `locker --json ARGS` as `token`'s agent (or the operator) and returns its output.
    pub fn run_as(&self, token: Option<&str>, args: &[&str]) -> Output {
        self.raw_cmd(token).arg("--json").args(args).output().expect("locker runs")
    }

    /// Like [`TestEnv::json`], as `token`'s agent.
    pub fn json_as(&self, token: &str, args: &[&str]) -> Value {
        let out = self.run_as(Some(token), args);
        assert!(
            out.status.success(),
            "locker {args:?} failed with {:?}: {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).expect("stdout is one JSON object")
    }

    /// Like [`TestEnv::json_err`], as `token`'s agent.
    pub fn json_err_as(&self, token: &str, args: &[&str], code: i32) -> Value {
        let out = self.run_as(Some(token), args);
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

    /// Creates an agent in `scope` and returns its token.
    pub fn token(&self, agent: &str, scope: &str) -> String {
        let v = self.json(&["token", "create", "--agent", agent, "--scope", scope]);
        v["token"].as_str().expect("a token").to_owned()
    }

    /// Publishes `data` as the operator, expecting success.
    pub fn publish(&self, key: &str, data: &str, expect: u64, op: &str) -> Value {
        self.json(&[
            "artifact",
            "publish",
            key,
            "--data",
            data,
            "--expect",
            &expect.to_string(),
            "--op",
            op,
        ])
    }

    /// The number of journal entries of `kind`.
    pub fn journal_count(&self, kind: &str) -> i64 {
        self.sql()
            .query_row("SELECT COUNT(*) FROM journal WHERE kind = ?1", [kind], |r| r.get(0))
            .unwrap()
    }

    /// The bodies of the journal entries of `kind`, oldest first.
    pub fn journal_bodies(&self, kind: &str) -> Vec<Value> {
        let conn = self.sql();
        let mut stmt =
            conn.prepare("SELECT entry FROM journal WHERE kind = ?1 ORDER BY seq").unwrap();
        stmt.query_map([kind], |r| r.get::<_, Vec<u8>>(0))
            .unwrap()
            .map(|e| serde_json::from_slice::<Value>(&e.unwrap()).unwrap())
            .collect()
    }

    /// Runs `locker --json verify`, expecting it to find tampering (exit 1); returns the report.
    pub fn verify_broken(&self) -> Value {
        let out = self.locker().args(["--json", "verify"]).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// Whether some problem in a verify report has `subject` and a detail containing `text`.
    pub fn has_problem(report: &Value, subject: &str, text: &str) -> bool {
        report["problems"].as_array().unwrap().iter().any(|p| {
            p["subject"].as_str() == Some(subject)
                && p["detail"].as_str().is_some_and(|d| d.contains(text))
        })
    }
}

fn publish_args<'a>(key: &'a str, data: &'a str, expect: &'a str, op: &'a str) -> Vec<&'a str> {
    vec!["artifact", "publish", key, "--data", data, "--expect", expect, "--op", op]
}

// ---------------------------------------------------------------------------------------------
// Publish, get, log, list.

#[test]
fn test_artifact_publish_get_log_list_round_trip() {
    let env = TestEnv::init();
    let v1 = env.publish("notes/summary.md", "first draft", 0, "op-1");
    assert_eq!(v1["replayed"], false);
    let a = &v1["artifact"];
    assert_eq!(
        (&a["scope"], &a["key"], &a["version"], &a["content"], &a["updated_at"]),
        (
            &Value::from("default"),
            &Value::from("notes/summary.md"),
            &Value::from(1),
            &Value::from("first draft"),
            &Value::from(env.now)
        )
    );
    assert_eq!(a["size"], 11);
    assert_eq!(a["actor"], "operator");
    // From a file, and from stdin with `-`.
    std::fs::write(env.path().join("v2.md"), "second draft").unwrap();
    let v2 = env.json(&[
        "artifact",
        "publish",
        "notes/summary.md",
        "v2.md",
        "--expect",
        "1",
        "--op",
        "op-2",
    ]);
    assert_eq!(v2["artifact"]["version"], 2);
    let out = env
        .locker()
        .args(["artifact", "publish", "notes/summary.md", "-", "--expect", "2", "--op", "op-3"])
        .write_stdin("third draft")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("published notes/summary.md version 3 (sha256 {})\n", sha256_hex(b"third draft"))
    );

    // Human `get` prints the exact content; `--version` reads an older one.
    let out = env.locker().args(["artifact", "get", "notes/summary.md"]).output().unwrap();
    assert_eq!(out.stdout, b"third draft");
    let old = env.json(&["artifact", "get", "notes/summary.md", "--version", "2"]);
    assert_eq!(old["content"], "second draft");
    assert_eq!(old["sha256"], sha256_hex(b"second draft"));

    let log = env.json(&["artifact", "log", "notes/summary.md"]);
    assert_eq!(log["current_version"], 3);
    let versions: Vec<_> =
        log["versions"].as_array().unwrap().iter().map(|v| &v["op_id"]).collect();
    assert_eq!(versions, ["op-1", "op-2", "op-3"]);

    env.publish("a-first", "x", 0, "op-4");
    let list = env.json(&["artifact", "list"]);
    let keys: Vec<_> = list["artifacts"].as_array().unwrap().iter().map(|a| &a["key"]).collect();
    assert_eq!(keys, ["a-first", "notes/summary.md"]);
    assert_eq!(list["artifacts"][1]["version"], 3);
    assert!(list["artifacts"][0].get("content").is_none(), "list shows metadata only");
    let page = env.json(&["artifact", "list", "--after", "a-first"]);
    assert_eq!(page["artifacts"].as_array().unwrap().len(), 1);

    assert_eq!(env.journal_count("artifact.publish"), 4);
    assert_eq!(env.json(&["verify"])["ok"], true);
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn test_artifact_get_binary_content_round_trips() {
    let env = TestEnv::init();
    let bytes: Vec<u8> = (0..=255u8).rev().collect();
    std::fs::write(env.path().join("bin"), &bytes).unwrap();
    env.json(&["artifact", "publish", "blob.bin", "bin", "--expect", "0", "--op", "b"]);
    let out = env.locker().args(["artifact", "get", "blob.bin"]).output().unwrap();
    assert_eq!(out.stdout, bytes);
    let v = env.json(&["artifact", "get", "blob.bin"]);
    assert_eq!(v["content"], Value::Null);
    use base64::Engine as _;
    assert_eq!(v["content_b64"], base64::engine::general_purpose::STANDARD.encode(&bytes));
    assert_eq!(v["size"], 256);
}

#[test]
fn test_artifact_get_missing_key_or_version_is_not_found() {
    let env = TestEnv::init();
    env.publish("k", "x", 0, "op");
    let before = env.fingerprint();
    let e = env.json_err(&["artifact", "get", "nope"], 3);
    assert_eq!(e["error"], "not_found");
    env.json_err(&["artifact", "log", "nope"], 3);
    let e = env.json_err(&["artifact", "get", "k", "--version", "2"], 3);
    assert_eq!(e["error"], "not_found");
    assert!(e["detail"].as_str().unwrap().contains("version 2"));
    assert_eq!(before, env.fingerprint(), "reads change nothing");
}

// ---------------------------------------------------------------------------------------------
// Compare-and-swap, replays and conflicts.

#[test]
fn test_artifact_publish_stale_expectation_is_version_conflict() {
    let env = TestEnv::init();
    env.publish("k", "one", 0, "a");
    env.publish("k", "two", 1, "b");
    let e = env.json_err(&publish_args("k", "stale", "1", "c"), 4);
    assert_eq!(e["error"], "version_conflict");
    assert_eq!(e["detail"], "expected version does not match current version");
    assert_eq!(e["current_version"], 2);
    // A key that does not exist, expected to: current version 0.
    let e = env.json_err(&publish_args("absent", "x", "3", "d"), 4);
    assert_eq!(e["current_version"], 0);
    // The head is unchanged and the rejections are journaled (and committed).
    assert_eq!(env.json(&["artifact", "get", "k"])["content"], "two");
    let rejects = env.journal_bodies("artifact.reject");
    assert_eq!(rejects.len(), 2);
    assert_eq!(rejects[0]["body"]["reason"], "version_conflict");
    assert_eq!(rejects[0]["body"]["current_version"], 2);
    assert_eq!(rejects[0]["body"]["expected_version"], 1);
    // A rejected request leaves no receipt: the same op id may be used for the corrected work.
    assert_eq!(env.publish("k", "stale", 2, "c")["artifact"]["version"], 3);
}

#[test]
fn test_artifact_publish_replay_returns_the_original_even_after_newer_versions() {
    let mut env = TestEnv::init();
    let t0 = env.now;
    let v1 = env.publish("k", "one", 0, "op-1");
    env.now += 10;
    env.publish("k", "two", 1, "op-2");
    env.now += 10;
    env.publish("k", "three", 2, "op-3");
    env.now += 10;
    let before = env.fingerprint();
    let replay = env.publish("k", "one", 0, "op-1");
    assert_eq!(replay["replayed"], true);
    assert_eq!(replay["artifact"], v1["artifact"], "the exact original result");
    assert_eq!(replay["artifact"]["updated_at"], t0);
    // Head unchanged, no version written; the replay is journaled with the current head.
    assert_eq!(env.json(&["artifact", "get", "k"])["version"], 3);
    let after = env.fingerprint();
    let tables = |fp: &str| {
        fp.split(' ').filter(|p| p.starts_with("artifact")).collect::<Vec<_>>().join(" ")
    };
    assert_eq!(tables(&before), tables(&after), "no version, head or receipt written");
    let replays = env.journal_bodies("artifact.replay");
    assert_eq!(replays.len(), 1);
    let b = &replays[0]["body"];
    assert_eq!(
        (&b["version"], &b["expected_version"], &b["current_version"]),
        (&1.into(), &0.into(), &3.into())
    );
    // Human form says so.
    let out = env.locker().args(publish_args("k", "one", "0", "op-1")).output().unwrap();
    assert!(String::from_utf8(out.stdout).unwrap().starts_with("replayed k version 1"));
}

#[test]
fn test_artifact_publish_same_op_with_a_different_request_is_operation_conflict() {
    let env = TestEnv::init();
    env.publish("k", "one", 0, "op-1");
    env.publish("k", "two", 1, "op-2");
    // Changed content, key, and expected version: each an operation_conflict.
    for args in [
        publish_args("k", "changed", "0", "op-1"),
        publish_args("other", "one", "0", "op-1"),
        publish_args("k", "one", "1", "op-1"),
    ] {
        let e = env.json_err(&args, 4);
        assert_eq!(e["error"], "operation_conflict");
        assert_eq!(e["detail"], "operation ID was already used with a different request");
    }
    let e = env.json_err(&publish_args("k", "changed", "0", "op-1"), 4);
    assert_eq!(e["current_version"], 2);
    let e = env.json_err(&publish_args("other", "one", "0", "op-1"), 4);
    assert_eq!(e["current_version"], 0);
    // A stale expectation with a fresh op id, and a replay.
    env.json_err(&publish_args("k", "stale", "1", "op-3"), 4);
    env.publish("k", "one", 0, "op-1");
    // questlock's audit: 2 accepted, 1 replayed, 5 operation conflicts, 1 version conflict.
    assert_eq!(env.journal_count("artifact.publish"), 2);
    assert_eq!(env.journal_count("artifact.replay"), 1);
    let reasons: Vec<String> = env
        .journal_bodies("artifact.reject")
        .iter()
        .map(|e| e["body"]["reason"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(reasons.iter().filter(|r| *r == "operation_conflict").count(), 5);
    assert_eq!(reasons.iter().filter(|r| *r == "version_conflict").count(), 1);
    assert_eq!(env.json(&["artifact", "get", "k"])["content"], "two");
    assert_eq!(env.json(&["verify"])["ok"], true);
}

/// Many processes race one compare-and-swap: exactly one wins, every other gets a
/// `version_conflict` naming version 1, and no one sees "database is locked".
#[test]
fn test_artifact_race_exactly_one_compare_and_swap_wins() {
    const N: usize = 12;
    let env = TestEnv::init();
    let children: Vec<_> = (0..N)
        .map(|i| {
            env.raw_cmd(None)
                .arg("--json")
                .args(publish_args("shared", &format!("result {i}"), "0", &format!("op-{i}")))
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let outputs: Vec<Output> =
        children.into_iter().map(|c| c.wait_with_output().unwrap()).collect();
    let mut winners = Vec::new();
    for out in &outputs {
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("locked"), "{stderr}");
        match out.status.code() {
            Some(0) => winners.push(serde_json::from_slice::<Value>(&out.stdout).unwrap()),
            Some(4) => {
                let e: Value = serde_json::from_slice(&out.stderr).unwrap();
                assert_eq!(e["error"], "version_conflict");
                assert_eq!(e["current_version"], 1);
            }
            other => panic!("unexpected exit {other:?}: {stderr}"),
        }
    }
    assert_eq!(winners.len(), 1, "exactly one winner");
    assert_eq!(winners[0]["artifact"]["version"], 1);
    let got = env.json(&["artifact", "get", "shared"]);
    assert_eq!(got["content"], winners[0]["artifact"]["content"]);
    assert_eq!(env.journal_count("artifact.publish"), 1);
    assert_eq!(env.journal_count("artifact.reject"), (N - 1) as i64);
    assert_eq!(env.json(&["verify"])["ok"], true);
}

/// Many identical retries at once: one write, every other a replay of it.
#[test]
fn test_artifact_race_identical_retries_write_once() {
    const N: usize = 12;
    let env = TestEnv::init();
    let token = env.token("worker-a", "demo");
    let children: Vec<_> = (0..N)
        .map(|_| {
            env.raw_cmd(Some(&token))
                .arg("--json")
                .args(publish_args("shared", "the result", "0", "op-same"))
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let results: Vec<Value> = children
        .into_iter()
        .map(|c| {
            let out = c.wait_with_output().unwrap();
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            serde_json::from_slice(&out.stdout).unwrap()
        })
        .collect();
    let fresh = results.iter().filter(|r| r["replayed"] == false).count();
    assert_eq!(fresh, 1, "one write");
    for r in &results {
        assert_eq!(r["artifact"], results[0]["artifact"], "every result is the same artifact");
        assert_eq!(r["artifact"]["version"], 1);
        assert_eq!(r["artifact"]["actor"], "worker-a");
    }
    assert_eq!(env.journal_count("artifact.publish"), 1);
    assert_eq!(env.journal_count("artifact.replay"), (N - 1) as i64);
    let versions: i64 =
        env.sql().query_row("SELECT COUNT(*) FROM artifact_versions", [], |r| r.get(0)).unwrap();
    assert_eq!(versions, 1);
    assert_eq!(env.json(&["verify"])["ok"], true);
}

// ---------------------------------------------------------------------------------------------
// Scopes.

#[test]
fn test_artifact_scope_isolation() {
    let env = TestEnv::init();
    let a = env.token("agent-a", "team-a");
    let a2 = env.token("agent-a2", "team-a");
    let b = env.token("agent-b", "team-b");
    env.json_as(&a, &publish_args("plan", "team a's plan", "0", "op-1"));

    // Another scope's key is not found, for every read.
    let e = env.json_err_as(&b, &["artifact", "get", "plan"], 3);
    assert_eq!(e["error"], "not_found");
    env.json_err_as(&b, &["artifact", "get", "plan", "--version", "1"], 3);
    env.json_err_as(&b, &["artifact", "log", "plan"], 3);
    assert_eq!(env.json_as(&b, &["artifact", "list"])["artifacts"], Value::Array(vec![]));
    // A write under the same key and op id lands in its own scope, leaving team a's alone.
    let mine = env.json_as(&b, &publish_args("plan", "team b's plan", "0", "op-1"));
    assert_eq!(mine["artifact"]["scope"], "team-b");
    assert_eq!(mine["artifact"]["version"], 1);
    assert_eq!(env.json_as(&a, &["artifact", "get", "plan"])["content"], "team a's plan");
    // Agents of one scope share its keys; op ids belong to each agent.
    let v2 = env.json_as(&a2, &publish_args("plan", "a2's edit", "1", "op-1"));
    assert_eq!(v2["artifact"]["version"], 2);
    // The operator works in `default` unless `--scope` names another.
    env.json_err(&["artifact", "get", "plan"], 3);
    assert_eq!(env.json(&["--scope", "team-a", "artifact", "get", "plan"])["content"], "a2's edit");
    // An agent's `locker log` shows only its scope's entries; the others are placeholders
    // that keep the chain's links (see: #18).
    let out = env.run_as(Some(&b), &["log", "-n", "100"]);
    let entries: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .collect();
    assert!(entries.iter().any(|e| e["scope"] == "team-b"));
    for e in &entries {
        if e["scope"] != "team-b" {
            assert_eq!(
                (&e["kind"], &e["scope"], &e["body"]),
                (&"redacted".into(), &"".into(), &Value::Null),
                "{e}"
            );
        }
    }
    for w in entries.windows(2) {
        assert_eq!(w[0]["prev_hash"], w[1]["hash"], "newest first, linked");
    }
    // The journal records who acted, in which scope.
    let conn = env.sql();
    let (actor, scope): (String, String) = conn
        .query_row(
            "SELECT actor, scope FROM journal WHERE kind = 'artifact.publish' ORDER BY seq LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((actor.as_str(), scope.as_str()), ("agent-a", "team-a"));
}

// ---------------------------------------------------------------------------------------------
// Validation and limits.

#[test]
fn test_artifact_content_size_limits_are_exact() {
    let env = TestEnv::init();
    let mib = 1 << 20;
    std::fs::write(env.path().join("exact"), vec![b'a'; mib]).unwrap();
    std::fs::write(env.path().join("over"), vec![b'a'; mib + 1]).unwrap();
    let v = env.json(&["artifact", "publish", "big", "exact", "--expect", "0", "--op", "exact"]);
    assert_eq!(v["artifact"]["size"], mib);
    let out = env.locker().args(["artifact", "get", "big"]).output().unwrap();
    assert_eq!(out.stdout.len(), mib);

    let before = env.fingerprint();
    let e = env.json_err(&["artifact", "publish", "big2", "over", "--expect", "0", "--op", "o"], 6);
    assert_eq!(e["error"], "too_large");
    assert_eq!(e["detail"], "content exceeds the 1 MiB limit");
    // Through stdin too.
    let out = env
        .locker()
        .args(["--json", "artifact", "publish", "big2", "-", "--expect", "0", "--op", "o"])
        .write_stdin(vec![b'a'; mib + 1])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(6));
    assert_eq!(before, env.fingerprint());
    // Empty content is fine, under a Unicode key.
    let v = env.publish("unicode/λ", "", 0, "empty");
    assert_eq!(v["artifact"]["content"], "");
}

#[test]
fn test_artifact_invalid_input_changes_nothing() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt as _;

    let env = TestEnv::init();
    env.publish("k", "x", 0, "seed");
    let before = env.fingerprint();
    let long_key = "a".repeat(513);
    let bad_strs = [
        "",
        "/absolute",
        "a/",
        "a//b",
        ".",
        "..",
        "a/../b",
        "a/./b",
        "a\\b",
        "a\nb",
        "a/ /b",
        long_key.as_str(),
    ];
    let bad_keys: Vec<&OsStr> = bad_strs
        .iter()
        .map(OsStr::new)
        .chain([OsStr::from_bytes(b"\xff"), OsStr::from_bytes(b"ok/\xfe")])
        .collect();
    for key in &bad_keys {
        for args in [
            vec![
                OsStr::new("artifact"),
                OsStr::new("publish"),
                key,
                OsStr::new("--data"),
                OsStr::new("x"),
                OsStr::new("--expect"),
                OsStr::new("0"),
                OsStr::new("--op"),
                OsStr::new("op"),
            ],
            vec![OsStr::new("artifact"), OsStr::new("get"), key],
        ] {
            let out = env.locker().arg("--json").args(&args).output().unwrap();
            assert_eq!(
                out.status.code(),
                Some(6),
                "key {key:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let e: Value = serde_json::from_slice(&out.stderr).unwrap();
            assert_eq!(e["error"], "invalid", "{key:?}");
            assert!(e["detail"].as_str().unwrap().starts_with("key must"), "{e}");
        }
    }
    let long_op = "o".repeat(129);
    for op in ["", " ", "a\nb", "a\u{7f}", long_op.as_str()] {
        let e = env.json_err(&publish_args("k", "y", "1", op), 6);
        assert!(e["detail"].as_str().unwrap().starts_with("operation ID must"), "{op:?}: {e}");
    }
    let out = env
        .locker()
        .arg("--json")
        .args(["artifact", "publish", "k", "--data", "y", "--expect", "1", "--op"])
        .arg(OsStr::from_bytes(b"\xff"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(6));
    for expect in ["-1", "9223372036854775807", "abc", ""] {
        let e = env.json_err(&publish_args("k", "y", expect, "op"), 6);
        assert_eq!(e["error"], "invalid", "{expect:?}");
    }
    let e = env.json_err(&publish_args("k", "y", "-1", "op"), 6);
    assert_eq!(e["detail"], "expected version must be between 0 and 9223372036854775806");
    for v in ["0", "-3", "x"] {
        env.json_err(&["artifact", "get", "k", "--version", v], 6);
    }
    env.json_err(&["artifact", "list", "--limit", "0"], 6);
    assert_eq!(before, env.fingerprint(), "invalid input is neither stored nor journaled");
}

// ---------------------------------------------------------------------------------------------
// Atomicity.

/// A failure in the middle of a publish (the journal insert) rolls everything back: no
/// version, head, receipt, blob, blob file or journal entry; the same request then succeeds as
/// new, because no receipt was consumed.
#[test]
fn test_artifact_publish_rolls_back_when_the_journal_insert_fails() {
    if crate::common::sqlite_only("reads or tampers with the SQLite files directly") {
        return;
    }
    let env = TestEnv::init();
    let large = vec![b'z'; 100_000];
    std::fs::write(env.path().join("large"), &large).unwrap();
    let before = env.fingerprint();
    env.sql()
        .execute_batch(
            "CREATE TRIGGER fail_journal BEFORE INSERT ON journal \
             BEGIN SELECT RAISE(ABORT, 'injected failure'); END;",
        )
        .unwrap();
    let small = publish_args("k", "small", "0", "op-small");
    let large_args = ["artifact", "publish", "big", "large", "--expect", "0", "--op", "op-large"];
    for args in [small.as_slice(), large_args.as_slice()] {
        let e = env.json_err(args, 8);
        assert_eq!(e["error"], "internal");
    }
    assert_eq!(before, env.fingerprint(), "nothing half-written");
    let files = walk(&env.path().join(".locker/objects"));
    assert!(files.is_empty(), "no blob file left behind: {files:?}");

    env.sql().execute_batch("DROP TRIGGER fail_journal").unwrap();
    let v = env.json(&small);
    assert_eq!((&v["replayed"], &v["artifact"]["version"]), (&false.into(), &1.into()));
    let v = env.json(&large_args);
    assert_eq!((&v["replayed"], &v["artifact"]["version"]), (&false.into(), &1.into()));
    assert_eq!(walk(&env.path().join(".locker/objects")).len(), 1);
    assert_eq!(env.json(&["verify"])["ok"], true);
}

/// Every regular file under `dir`.
pub fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Verify.

fn three_versions() -> TestEnv {
    let env = TestEnv::init();
    env.publish("k", "one", 0, "op-1");
    env.publish("k", "two", 1, "op-2");
    env.publish("k", "three", 2, "op-3");
    assert_eq!(env.json(&["verify"])["ok"], true);
    env
}

#[test]
fn test_verify_catches_an_artifact_version_pointed_at_other_content() {
    let env = three_versions();
    // Version 2 now names version 3's (stored, intact) content.
    env.sql()
        .execute_batch(
            "UPDATE artifact_versions SET blob = (SELECT blob FROM artifact_versions \
             WHERE version = 3), size = 5 WHERE version = 2",
        )
        .unwrap();
    let r = env.verify_broken();
    assert_eq!(r["artifacts"]["ok"], false);
    assert!(TestEnv::has_problem(
        &r,
        "artifact:default:k",
        "version 2 of artifact:default:k has been altered"
    ));
    assert_eq!(r["first_broken"]["artifact"]["subject"], "artifact:default:k");
}

#[test]
fn test_verify_catches_a_renumbered_artifact_version() {
    let env = three_versions();
    env.sql()
        .execute_batch(
            "PRAGMA foreign_keys = OFF; UPDATE artifact_versions SET version = 7 WHERE version = 3; \
             UPDATE artifact_heads SET version = 7;",
        )
        .unwrap();
    let r = env.verify_broken();
    assert!(TestEnv::has_problem(
        &r,
        "artifact:default:k",
        "version 7 of artifact:default:k has no record"
    ));
    assert!(TestEnv::has_problem(
        &r,
        "artifact:default:k",
        "version 3 of artifact:default:k is in the journal but missing"
    ));
    assert!(TestEnv::has_problem(
        &r,
        "artifact:default:k",
        "the head of artifact:default:k is version 7"
    ));
}

#[test]
fn test_verify_catches_a_moved_head() {
    let env = three_versions();
    env.sql().execute_batch("UPDATE artifact_heads SET version = 1").unwrap();
    let r = env.verify_broken();
    assert!(TestEnv::has_problem(
        &r,
        "artifact:default:k",
        "is version 1, but the journal's last version is 3"
    ));
}

#[test]
fn test_verify_catches_forged_edited_and_deleted_receipts() {
    // Forged: a receipt that would make an unrelated request "replay" version 1.
    let env = three_versions();
    env.sql()
        .execute_batch(
            "INSERT INTO artifact_receipts \
             (actor, op_id, scope, key, expected_version, version, created_at) \
             VALUES ('operator', 'forged', 'default', 'k', 0, 1, 0)",
        )
        .unwrap();
    let r = env.verify_broken();
    assert!(TestEnv::has_problem(&r, "receipt:operator:forged", "has no record in the journal"));
    assert_eq!(r["first_broken"]["receipt"]["subject"], "receipt:operator:forged");

    // Edited: op-3's receipt pointed at version 1.
    let env = three_versions();
    env.sql()
        .execute_batch("UPDATE artifact_receipts SET version = 1 WHERE op_id = 'op-3'")
        .unwrap();
    let r = env.verify_broken();
    assert!(TestEnv::has_problem(&r, "receipt:operator:op-3", "differs from the journal"));

    // Deleted: a retry of op-2 would publish again.
    let env = three_versions();
    env.sql().execute_batch("DELETE FROM artifact_receipts WHERE op_id = 'op-2'").unwrap();
    let r = env.verify_broken();
    assert!(TestEnv::has_problem(&r, "receipt:operator:op-2", "missing from the store"));
}

#[test]
fn test_verify_catches_a_deleted_journal_entry() {
    let env = three_versions();
    env.sql()
        .execute_batch("DELETE FROM journal WHERE kind = 'artifact.publish' AND seq = 3")
        .unwrap();
    let r = env.verify_broken();
    assert_eq!(r["journal"]["ok"], false);
    assert!(TestEnv::has_problem(&r, "journal", "entry 3 is missing"));
    // The version it recorded has lost its journal record as well.
    assert_eq!(r["artifacts"]["ok"], false);
}
