//! See: #22 (4). One signing identity: every process that writes a repository signs its
//! checkpoints under one origin with one key, one at a time (the turn to sign, held in the
//! store). A command beside a running server leaves signing to it; a server that stops or dies
//! hands the turn on; hosts of one PostgreSQL database with the key (`.locker/keys/log.key` or
//! `--log-key FILE`) sign as one log, a host without it serves what the signer stored, and a
//! host with another key is refused before it can sign a rival log.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::server::Server;
use crate::common::{on_postgres, TestEnv};

/// The journal's head (entries).
fn head(env: &TestEnv) -> u64 {
    let h: i64 = env.sql().query_row("SELECT MAX(seq) FROM journal", [], |r| r.get(0)).unwrap();
    u64::try_from(h).unwrap()
}

/// Polls the server's checkpoint until it covers `size` entries (the signer's rounds run at
/// least every second), within 15 s.
fn checkpoint_covering(s: &Server, size: u64) -> Value {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let cp = s.curl_json("/v1/checkpoint", &[], 200);
        if cp["size"].as_u64().unwrap() >= size {
            return cp;
        }
        assert!(Instant::now() < deadline, "no checkpoint covers {size} entries: {cp}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The `signer` finding of `locker doctor`.
fn signer_finding(env: &TestEnv, extra: &[&str]) -> Value {
    let mut args = vec!["doctor"];
    args.extend_from_slice(extra);
    let out = env.locker().arg("--json").args(&args).output().unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    report["findings"].as_array().unwrap().iter().find(|f| f["check"] == "signer").cloned().unwrap()
}

#[test]
fn test_a_command_signs_in_its_own_servers_turn_and_takes_it_when_the_server_is_gone() {
    let env = TestEnv::init();
    let s = env.serve(&[]);
    let pad = env.pad_with_envelope(&[]);
    env.append(&pad, "beside the server");
    // The command and the server share the repository's key and high-water mark: one signer.
    // The command signs in the server's turn, which stays the server's.
    let cp = env.json(&["checkpoint"]);
    assert_eq!(cp["size"].as_u64(), Some(head(&env)), "{cp}");
    let finding = signer_finding(&env, &[]);
    assert_eq!(finding["status"], "ok", "{finding}");
    let detail = finding["detail"].as_str().unwrap().to_owned();
    assert!(detail.contains(&format!("/{}/", s.child.id())), "{finding}");
    assert!(detail.contains(" holds the turn to sign (turn 1)"), "{finding}");
    assert!(detail.contains("this host has the log's key"), "{finding}");

    // A server that dies without giving the turn up is seen dead on this host: the next command
    // signs at once.
    drop(s);
    env.append(&pad, "after the server died");
    let cp = env.json(&["checkpoint"]);
    assert_eq!(cp["size"].as_u64(), Some(head(&env)), "{cp}");

    // A server that stops gives the turn up.
    let s = env.serve(&[]);
    assert!(signer_finding(&env, &[])["detail"].as_str().unwrap().contains(" holds the turn"));
    let (code, _) = s.stop();
    assert_eq!(code, Some(0));
    let finding = signer_finding(&env, &[]);
    assert!(finding["detail"].as_str().unwrap().contains("held (lapsed) the turn"), "{finding}");
    env.append(&pad, "after the server stopped");
    let cp = env.json(&["checkpoint"]);
    assert_eq!(cp["size"].as_u64(), Some(head(&env)), "{cp}");
    let (code, v) = env.verify();
    assert_eq!(code, 0, "{v}");
}

/// A command signs under its station's lapsed turn as it stands: the row is not written
/// again (it would name only another process and a time already past, in one more page of
/// every command's commit), the turn keeps its number, and the command's checkpoint is
/// signed. A stopped server's turn, given up, is signed under the same way.
#[test]
fn test_commands_sign_under_their_stations_lapsed_turn_without_rewriting_it() {
    let env = TestEnv::init();
    let turn = |env: &TestEnv| -> (String, i64, i64) {
        env.sql()
            .query_row("SELECT holder, fence, expires_at FROM log_signer WHERE id = 1", [], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .unwrap()
    };
    let pad = env.pad_with_envelope(&[]);
    let before = turn(&env);
    for i in 0..3 {
        env.append(&pad, &format!("command {i}"));
        let cp = env.json(&["checkpoint"]);
        assert_eq!(cp["size"].as_u64(), Some(head(&env)), "{cp}");
        assert_eq!(cp["signed_now"], false, "the append signed it: {cp}");
        assert_eq!(turn(&env), before, "command {i} wrote the turn again");
    }

    let s = env.serve(&[]);
    let held = turn(&env);
    assert!(held.0.contains(&format!("/{}/", s.child.id())), "{held:?}");
    let (code, _) = s.stop();
    assert_eq!(code, Some(0));
    let given_up = turn(&env);
    env.append(&pad, "after the server stopped");
    let cp = env.json(&["checkpoint"]);
    assert_eq!(cp["size"].as_u64(), Some(head(&env)), "{cp}");
    assert_eq!(turn(&env), given_up);
    let (code, v) = env.verify();
    assert_eq!(code, 0, "{v}");
}

#[test]
fn test_hosts_of_one_database_sign_as_one_log_and_a_rival_key_is_refused() {
    if !on_postgres() {
        return; // Hosts without a `.locker/` share a PostgreSQL database.
    }
    let a = TestEnv::init();
    let url = a.pg.clone().unwrap();
    let key = a.json(&["key", "show"]);
    let (vkey, origin) = (key["vkey"].as_str().unwrap(), key["origin"].as_str().unwrap());
    // The log's key, as a secret mounted on another host (mode 0600, outside any repository).
    let secrets = tempfile::tempdir().unwrap();
    let key_file = secrets.path().join("log.key");
    std::fs::copy(a.path().join(".locker/keys/log.key"), &key_file).unwrap();
    let key_file = key_file.to_str().unwrap();
    // Three hosts: A with its repository, B with no key at all, C with the key file.
    let (b, c) = (TestEnv::new(), TestEnv::new());
    let host_a = a.serve(&[]);
    let host_b = b.serve(&["--store", &url]);
    let host_c = c.serve(&["--store", &url, "--log-key", key_file]);
    for (name, s) in [("A", &host_a), ("B", &host_b), ("C", &host_c)] {
        let pad = s.curl_json("/v1/pads", &["-X", "POST", "-d", r#"{"max_blocks":8}"#], 201);
        assert!(pad["pad_id"].is_string(), "host {name}: {pad}");
    }
    let size = head(&a);
    for (name, s) in [("A", &host_a), ("B", &host_b), ("C", &host_c)] {
        let cp = checkpoint_covering(s, size);
        assert_eq!(cp["key"], vkey, "host {name} serves the log's key: {cp}");
        assert_eq!(cp["origin"], origin, "host {name}: {cp}");
    }
    // A holds the turn (it signed first); C waits with the same key, B has none.
    let a_pid = format!("/{}/", host_a.child.id());
    let finding = signer_finding(&a, &[]);
    assert!(finding["detail"].as_str().unwrap().contains(&a_pid), "{finding}");
    // Another host's repository joins with no key of its own (the log has one): its commands
    // write, and A's server signs what they wrote.
    let joined = TestEnv::new();
    let j = joined.json(&["init", "--store", &url]);
    assert_eq!(j["joined"], true, "{j}");
    assert!(!joined.path().join(".locker/keys/log.key").exists());
    let finding = signer_finding(&joined, &[]);
    assert!(finding["detail"].as_str().unwrap().contains("has no log key"), "{finding}");
    // With the log's key (a mounted secret), its commands still leave signing to A's server.
    let out = joined.locker().args(["--json", "--log-key", key_file, "pad", "create"]).output();
    assert!(out.unwrap().status.success());
    let cp = joined.json(&["--log-key", key_file, "checkpoint"]);
    assert_eq!(cp["signed_now"], false, "{cp}");
    assert_eq!(cp["key"], vkey, "{cp}");
    let cp = checkpoint_covering(&host_a, head(&a));
    assert_eq!(cp["key"], vkey, "{cp}");

    // A dies: C takes the turn (a new one, fenced) and signs what B writes.
    drop(host_a);
    host_b.curl_json("/v1/pads", &["-X", "POST", "-d", r#"{"max_blocks":8}"#], 201);
    let size = head(&a);
    let cp = checkpoint_covering(&host_c, size);
    assert_eq!(cp["key"], vkey, "{cp}");
    assert_eq!(checkpoint_covering(&host_b, size)["size"], cp["size"]);
    let finding = signer_finding(&a, &[]);
    let c_pid = format!("/{}/", host_c.child.id());
    assert!(finding["detail"].as_str().unwrap().contains(&c_pid), "C signs now: {finding}");
    assert!(finding["detail"].as_str().unwrap().contains("(turn 2)"), "{finding}");

    // A host with another key is refused before it signs anything, and doctor says why.
    let rival = TestEnv::init();
    let rival_key = secrets.path().join("rival.key");
    std::fs::copy(rival.path().join(".locker/keys/log.key"), &rival_key).unwrap();
    let rival_key = rival_key.to_str().unwrap();
    let d = TestEnv::new();
    let before = a.snapshot();
    let out = d
        .locker()
        .args(["serve", "--listen", "127.0.0.1:0", "--store", &url, "--log-key", rival_key])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("is not the log's key"), "{stderr}");
    assert_eq!(a.snapshot(), before, "the refused host changed nothing");
    let finding = signer_finding(&a, &["--log-key", rival_key]);
    assert_eq!(finding["status"], "problem", "{finding}");
    assert!(finding["detail"].as_str().unwrap().contains("cannot sign"), "{finding}");
    // Every stored checkpoint verifies with the log's key, in one tree.
    let (code, v) = a.verify();
    assert_eq!(code, 0, "{v}");
}
