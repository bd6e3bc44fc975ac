//! `locker token …`, `LOCKER_TOKEN` and `--scope`: questlock's credential tests rebuilt for
//! locker, plus `verify` catching forged or edited agent rows.

use std::process::Stdio;

use serde_json::Value;

use crate::common::TestEnv;

fn publish<'a>(key: &'a str, data: &'a str, expect: &'a str, op: &'a str) -> Vec<&'a str> {
    vec!["artifact", "publish", key, "--data", data, "--expect", expect, "--op", op]
}

#[test]
fn test_token_create_prints_only_the_token_and_stores_only_its_digest() {
    let env = TestEnv::init();
    let out = env
        .locker()
        .args(["token", "create", "--agent", "worker-a", "--scope", "demo"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    let token = stdout.strip_suffix('\n').expect("one line");
    assert!(!token.contains('\n'));
    assert_eq!(token.len(), 46);
    assert!(token.starts_with("lk_"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not shown again"));

    let other = env.token("worker-b", "demo");
    assert_ne!(token, other);
    // Only the SHA-256 is stored: the token itself is nowhere in the repository.
    let stored: String = env
        .sql()
        .query_row("SELECT token_hash FROM agents WHERE name = 'worker-a'", [], |r| r.get(0))
        .unwrap();
    use sha2::Digest as _;
    let digest: String =
        sha2::Sha256::digest(token.as_bytes()).iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(stored, digest);
    for file in crate::artifact::walk(&env.path().join(".locker")) {
        let bytes = std::fs::read(&file).unwrap();
        assert!(
            !bytes.windows(token.len()).any(|w| w == token.as_bytes()),
            "{} holds the token",
            file.display()
        );
    }
    // The journal records the creation, in the token's scope, by the operator.
    let entry = &env.journal_bodies("token.create")[0];
    assert_eq!((&entry["actor"], &entry["scope"]), (&"operator".into(), &"demo".into()));
    assert_eq!(entry["body"]["token_id"], digest);
    // With --json, the token is a field.
    let v = env.json(&["token", "create", "--agent", "worker-c", "--scope", "demo"]);
    assert_eq!(v["agent"], "worker-c");
    assert_eq!(v["token"].as_str().unwrap().len(), 46);
}

#[test]
fn test_token_create_requires_a_scope_and_valid_names() {
    let env = TestEnv::init();
    let before = env.fingerprint();
    let out = env.locker().args(["token", "create", "--agent", "a"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--scope"));
    let long = "x".repeat(65);
    for bad in ["", "../evil", ".hidden", "with space", "ä", long.as_str(), "operator"] {
        let e = env.json_err(&["token", "create", "--agent", bad, "--scope", "demo"], 6);
        assert_eq!(e["error"], "invalid", "{bad:?}");
        if bad != "operator" {
            let e = env.json_err(&["token", "create", "--agent", "ok", "--scope", bad], 6);
            assert_eq!(e["error"], "invalid", "{bad:?}");
        }
    }
    assert_eq!(before, env.fingerprint());
}

#[test]
fn test_token_names_are_never_reused() {
    let env = TestEnv::init();
    env.token("worker-a", "demo");
    let before = env.fingerprint();
    let e = env.json_err(&["token", "create", "--agent", "worker-a", "--scope", "other"], 4);
    assert_eq!(e["error"], "agent_exists");
    assert_eq!(before, env.fingerprint());
    env.json(&["token", "revoke", "--agent", "worker-a", "--yes"]);
    let before = env.fingerprint();
    let e = env.json_err(&["token", "create", "--agent", "worker-a", "--scope", "demo"], 4);
    assert_eq!(e["error"], "agent_exists");
    assert_eq!(before, env.fingerprint());
}

#[test]
fn test_token_revoke_is_idempotent_and_unknown_agents_are_not_found() {
    let env = TestEnv::init();
    env.token("worker-a", "demo");
    let first = env.json(&["token", "revoke", "--agent", "worker-a", "--yes"]);
    assert_eq!(first["already_revoked"], false);
    let before = env.fingerprint();
    let again = env.json(&["token", "revoke", "--agent", "worker-a", "--yes"]);
    assert_eq!(again["already_revoked"], true);
    assert_eq!(again["revoked_at"], first["revoked_at"]);
    assert_eq!(before, env.fingerprint(), "a second revoke changes nothing");
    let e = env.json_err(&["token", "revoke", "--agent", "nobody", "--yes"], 3);
    assert_eq!(e["error"], "not_found");
    assert_eq!(before, env.fingerprint());
    assert_eq!(env.journal_count("token.revoke"), 1);
}

#[test]
fn test_token_list_shows_agents_scopes_and_states_without_secrets() {
    let env = TestEnv::init();
    let a = env.token("worker-a", "demo");
    let b = env.token("worker-b", "other");
    env.json(&["token", "revoke", "--agent", "worker-b", "--yes"]);
    let out = env.locker().args(["--json", "token", "list"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains(&a) && !text.contains(&b), "no secrets");
    let v: Value = serde_json::from_str(&text).unwrap();
    let rows: Vec<(String, String, String)> = v["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["agent"].as_str().unwrap().into(),
                a["scope"].as_str().unwrap().into(),
                a["state"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("worker-a".into(), "demo".into(), "active".into()),
            ("worker-b".into(), "other".into(), "revoked".into())
        ]
    );
    let human = env.locker().args(["token", "list"]).output().unwrap();
    let human = String::from_utf8(human.stdout).unwrap();
    assert!(human.contains("worker-b") && human.contains("revoked"), "{human}");
    // An agent sees only its own scope.
    let seen = env.json_as(&a, &["token", "list"]);
    assert_eq!(seen["agents"].as_array().unwrap().len(), 1);
}

#[test]
fn test_token_admin_is_for_the_operator_only() {
    let env = TestEnv::init();
    let t = env.token("worker-a", "demo");
    let before = env.fingerprint();
    let e = env.json_err_as(&t, &["token", "create", "--agent", "sneaky", "--scope", "demo"], 5);
    assert_eq!(e["error"], "forbidden");
    let e = env.json_err_as(&t, &["token", "revoke", "--agent", "worker-a"], 5);
    assert_eq!(e["error"], "forbidden");
    assert_eq!(before, env.fingerprint());
}

#[test]
fn test_token_unknown_empty_or_foreign_scope_tokens_are_refused() {
    let env = TestEnv::init();
    let t = env.token("worker-a", "demo");
    let before = env.fingerprint();
    let forged = format!("lk_{}", "x".repeat(43));
    for bad in ["wrong", forged.as_str(), "", "   "] {
        let e = env.json_err_as(bad, &publish("k", "x", "0", "op"), 5);
        assert_eq!(e["error"], "unauthorized", "{bad:?}");
        env.json_err_as(bad, &["artifact", "list"], 5);
    }
    // A token acts only in its own scope.
    let e = env.json_err_as(&t, &["--scope", "other", "artifact", "list"], 5);
    assert_eq!(e["error"], "forbidden");
    assert_eq!(before, env.fingerprint());
    assert_eq!(env.json_as(&t, &["--scope", "demo", "artifact", "list"])["scope"], "demo");
    // Surrounding whitespace (a token read from a file) is tolerated.
    assert_eq!(env.json_as(&format!("{t}\n"), &["artifact", "list"])["scope"], "demo");
}

#[test]
fn test_token_revoked_token_is_refused_for_reads_and_writes() {
    let env = TestEnv::init();
    let t = env.token("worker-a", "demo");
    env.json_as(&t, &publish("k", "one", "0", "op-1"));
    env.json(&["token", "revoke", "--agent", "worker-a", "--yes"]);
    let before = env.fingerprint();
    for args in [
        publish("k", "two", "1", "op-2"),
        publish("k", "one", "0", "op-1"), // even a replay of its own acknowledged publish
        vec!["artifact", "get", "k"],
        vec!["artifact", "log", "k"],
        vec!["artifact", "list"],
        vec!["log"],
    ] {
        let e = env.json_err_as(&t, &args, 5);
        assert_eq!(e["error"], "unauthorized", "{args:?}");
        assert_eq!(e["detail"], "the token has been revoked");
    }
    assert_eq!(before, env.fingerprint(), "refusals are not journaled");
}

/// A publish that authenticated before the revocation committed, and waited for the write
/// lock while it did, is refused inside its transaction.
#[test]
fn test_token_revocation_is_rechecked_inside_the_write_transaction() {
    if crate::common::sqlite_only("reads or tampers with the SQLite files directly") {
        return;
    }
    let env = TestEnv::init();
    let t = env.token("worker-a", "demo");
    env.json_as(&t, &publish("k", "one", "0", "op-1"));
    let before = env.fingerprint();
    // Hold the write lock, revoke inside it, and start the publish meanwhile: it reads the
    // committed (unrevoked) agent, then waits for the lock.
    let mut conn = rusqlite::Connection::open(env.db_path()).unwrap();
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate).unwrap();
    tx.execute("UPDATE agents SET revoked_at = 1 WHERE name = 'worker-a'", []).unwrap();
    let child = env
        .raw_cmd(Some(&t))
        .arg("--json")
        .args(publish("k", "two", "1", "op-2"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(400));
    tx.commit().unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(5), "{}", String::from_utf8_lossy(&out.stderr));
    let e: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(e["error"], "unauthorized");
    // Only the test's own revocation changed the database; the publish wrote nothing.
    let after = env.fingerprint();
    assert_eq!(before, after);
    assert_eq!(env.json(&["--scope", "demo", "artifact", "get", "k"])["version"], 1);
}

#[test]
fn test_verify_catches_forged_and_edited_agent_rows() {
    let setup = || {
        let env = TestEnv::init();
        env.token("worker-a", "demo");
        env.token("worker-b", "demo");
        env.json(&["token", "revoke", "--agent", "worker-b", "--yes"]);
        assert_eq!(env.json(&["verify"])["ok"], true);
        env
    };
    let forged = "0".repeat(63) + "1";
    let cases: [(String, &str, &str); 5] = [
        (
            format!("INSERT INTO agents VALUES ('intruder', 'demo', '{forged}', 0, NULL)"),
            "agent:intruder",
            "no record in the journal",
        ),
        (
            format!("UPDATE agents SET token_hash = '{forged}' WHERE name = 'worker-a'"),
            "agent:worker-a",
            "token digest differs",
        ),
        (
            "UPDATE agents SET revoked_at = NULL WHERE name = 'worker-b'".into(),
            "agent:worker-b",
            "revocation differs",
        ),
        (
            "UPDATE agents SET scope = 'other' WHERE name = 'worker-a'".into(),
            "agent:worker-a",
            "stored in scope other",
        ),
        (
            "DELETE FROM agents WHERE name = 'worker-a'".into(),
            "agent:worker-a",
            "missing from the store",
        ),
    ];
    for (sql, subject, text) in cases {
        let env = setup();
        env.sql().execute_batch(&sql).unwrap();
        let r = env.verify_broken();
        assert_eq!(r["agents"]["ok"], false, "{sql}");
        assert!(TestEnv::has_problem(&r, subject, text), "{sql}: {r}");
        assert_eq!(r["first_broken"]["token"]["subject"], subject);
    }
}
