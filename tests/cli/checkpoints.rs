//! When checkpoints are signed: as the journal grows (each CLI command that wrote, each group
//! commit of `locker serve`), at most once per size; never because someone read. See: #17.

use serde_json::Value;

use crate::common::TestEnv;

fn sizes(env: &TestEnv) -> Vec<i64> {
    let conn = env.sql();
    let mut stmt = conn.prepare("SELECT size FROM checkpoints ORDER BY size").unwrap();
    stmt.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
}

fn head(env: &TestEnv) -> i64 {
    env.sql().query_row("SELECT MAX(seq) FROM journal", [], |r| r.get(0)).unwrap()
}

#[test]
fn test_every_write_is_checkpointed_once_and_reading_signs_nothing() {
    let env = TestEnv::init();
    let pad = env.pad_with_envelope(&[]);
    env.append(&pad, "two");
    // One checkpoint per command that wrote, of the journal it left.
    assert_eq!(sizes(&env), [1, 2, 3, 4]);
    // Reading signs nothing, locally either.
    for args in [&["pad", "list"][..], &["checkpoint"], &["log", "--limit", "1"], &["verify"]] {
        env.json(args);
    }
    assert_eq!(sizes(&env), [1, 2, 3, 4]);

    let s = env.serve(&[]);
    // The server signed what it wrote at start (its demo pad) before listening.
    let start = head(&env);
    assert_eq!(*sizes(&env).last().unwrap(), start);
    // A write through the server is checkpointed in the same commit as its entry.
    let body = r#"{"ttl_seconds":60}"#;
    s.curl_json(
        "/v1/pads",
        &["-X", "POST", "-H", "content-type: application/json", "-d", body],
        201,
    );
    assert_eq!(*sizes(&env).last().unwrap(), start + 1);
    // Unauthenticated GETs sign nothing: not the checkpoint, not a consistency proof of a
    // size no checkpoint was signed at (which used to sign and store one for any size asked).
    env.sql().execute("DELETE FROM checkpoints WHERE size = 2", []).unwrap();
    let before = env.snapshot();
    for _ in 0..3 {
        let cp = s.curl_json("/v1/checkpoint", &[], 200);
        assert_eq!(cp["size"], start + 1);
        assert_eq!(cp["signed_now"], false);
    }
    let (code, body) = s.curl("/v1/proof/consistency?old=2&new=3", &[]);
    assert_eq!(code, 404, "{body}");
    let e: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(e["error"], "no_checkpoint", "{e}");
    let ok = s.curl_json("/v1/proof/consistency?old=3&new=4", &[], 200);
    assert_eq!((ok["old"].as_u64(), ok["new"].as_u64()), (Some(3), Some(4)));
    let incl = s.curl_json("/v1/proof/inclusion?seq=3", &[], 200);
    assert_eq!(incl["size"], start + 1);
    assert_eq!(env.snapshot(), before, "reading signed or stored nothing");
    drop(s);
    // The local operator may sign an older size on request, once.
    let p = env.json(&["proof", "consistency", "2", "3"]);
    assert_eq!(p["old"], 2);
    assert!(sizes(&env).contains(&2));
    let n = sizes(&env).len();
    env.json(&["proof", "consistency", "2", "3"]);
    assert_eq!(sizes(&env).len(), n, "at most once per size");
}

#[test]
fn test_a_cli_write_commits_once_with_its_checkpoint() {
    let env = TestEnv::init();
    let pad = env.pad_with_envelope(&[]);
    let out = env
        .locker()
        .env("LOCKER_LOG", "locker::store=debug")
        .args(["--json", "append", &pad.id, "--key", &pad.key, "--data", "two"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    // One durable commit: the block, its journal entry and the checkpoint of the journal it
    // grew (signing no longer takes a second transaction).
    let commits = stderr.lines().filter(|l| l.contains("transaction committed")).count();
    assert_eq!(commits, 1, "{stderr}");
    assert_eq!(*sizes(&env).last().unwrap(), head(&env));
    // The high-water mark followed it, and asking for the checkpoint signs nothing more.
    assert_eq!(env.mark_size() as i64, head(&env));
    let cp = env.json(&["checkpoint"]);
    assert_eq!((cp["size"].as_i64(), &cp["signed_now"]), (Some(head(&env)), &Value::Bool(false)));
    env.assert_verified();
}

#[test]
fn test_a_write_whose_checkpoint_is_refused_is_kept_and_says_so() {
    let env = TestEnv::init();
    let pad = env.pad_with_envelope(&[]);
    let signed = sizes(&env);
    let rival = TestEnv::init();
    let rival_key = rival.path().join(".locker/keys/log.key");
    let out = env
        .locker()
        .arg("--log-key")
        .arg(&rival_key)
        .args(["append", &pad.id, "--key", &pad.key, "--data", "two"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The write is done and durable; only the checkpoint is refused, and the user is told.
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("warning: the journal grew but no checkpoint was signed"), "{stderr}");
    assert!(stderr.contains("is not the log's key"), "{stderr}");
    assert_eq!(head(&env), signed.last().unwrap() + 1);
    assert_eq!(sizes(&env), signed, "nothing was signed with the rival key");
    assert_eq!(env.mark_size() as i64, *signed.last().unwrap());
    // The next command with the log's own key (a read) signs what grew.
    assert_eq!(env.json(&["pad", "show", &pad.id])["block_count"], 2);
    assert_eq!(*sizes(&env).last().unwrap(), head(&env));
    env.assert_verified();
}
