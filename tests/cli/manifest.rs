//! `locker manifest …`: plans as versioned records of their own, and the diff.

use serde_json::{json, Value};

use crate::common::TestEnv;
use crate::lease::{acquire, id, json_code, verify_broken, verify_ok};

fn diff(env: &TestEnv, work: &str, code: i32) -> Value {
    json_code(env, &["manifest", "diff", work], code)
}

#[test]
fn test_manifest_commit_and_show() {
    let env = TestEnv::init();
    let l = id(&acquire(&env, "job", "a", 300));
    let c = env.json(&["manifest", "commit", "job", "--lease", &l, "fetch", "build", "test"]);
    assert_eq!(c["version"], 1);
    assert_eq!(c["versions"], 1);
    assert_eq!(c["fence"], 1);
    assert_eq!(c["lease_id"], l.as_str());
    assert_eq!(c["steps"], json!(["fetch", "build", "test"]));
    assert_eq!(c["replayed"], false);
    let s = env.json(&["manifest", "show", "job"]);
    assert_eq!(s["steps"], c["steps"]);
    assert_eq!(s["committed_at"], env.now);
    std::fs::write(env.path().join("plan.json"), r#"["fetch", "ünï", "ship"]"#).unwrap();
    let c = env.json(&["manifest", "commit", "job", "--lease", &l, "--file", "plan.json"]);
    assert_eq!(c["version"], 2);
    assert_eq!(c["steps"], json!(["fetch", "ünï", "ship"]));
    let out = env
        .locker()
        .args(["--json", "manifest", "commit", "job", "--lease", &l, "--file", "-"])
        .write_stdin(r#"["one"]"#)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(env.json(&["manifest", "show", "job"])["steps"], json!(["one"]));
    assert_eq!(env.json(&["lease", "show", "job"])["plan_version"], 3);
    let text = env.locker().args(["manifest", "show", "job", "--version", "2"]).output().unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("version:   2 of 3") && text.contains("  2. ünï"), "{text}");
    let e = env.json_err(&["manifest", "show", "job", "--version", "9"], 3);
    assert_eq!(e["error"], "plan_not_found");
    acquire(&env, "bare", "a", 300);
    let e = env.json_err(&["manifest", "show", "bare"], 3);
    assert_eq!(e["error"], "plan_not_found");
    verify_ok(&env);
}

// agentstate: a second manifest under the same lease answered 200 with the new steps but was
// silently ignored (INSERT OR IGNORE), so the diff kept comparing against the first.
#[test]
fn test_manifest_commit_again_is_a_new_version_unlike_agentstate() {
    let env = TestEnv::init();
    let l = id(&acquire(&env, "job-m", "a", 300));
    env.json(&["manifest", "commit", "job-m", "--lease", &l, "a", "b", "c"]);
    let c = env.json(&["manifest", "commit", "job-m", "--lease", &l, "z"]);
    assert_eq!(c["version"], 2);
    assert_eq!(env.json(&["manifest", "show", "job-m"])["steps"], json!(["z"]));
    let v1 = env.json(&["manifest", "show", "job-m", "--version", "1"]);
    assert_eq!(v1["steps"], json!(["a", "b", "c"]));
    let d = diff(&env, "job-m", 1);
    assert_eq!(d["planned"], json!(["z"]));
    assert_eq!(d["plan_version"], 2);
    assert_eq!(d["holes"], json!(["z"]));
}

#[test]
fn test_manifest_commit_same_steps_is_a_replay() {
    let env = TestEnv::init();
    let l = id(&acquire(&env, "job", "a", 300));
    env.json(&["manifest", "commit", "job", "--lease", &l, "a", "b"]);
    let before = env.fingerprint();
    let c = env.json(&["manifest", "commit", "job", "--lease", &l, "a", "b"]);
    assert_eq!(c["replayed"], true);
    assert_eq!(c["version"], 1);
    assert_eq!(env.fingerprint(), before);
    // Reordered steps are a different plan.
    assert_eq!(env.json(&["manifest", "commit", "job", "--lease", &l, "b", "a"])["version"], 2);
}

// agentstate: duplicates in a plan were kept (holes ["b","b",…]); a plan of objects or
// numbers was accepted and then crashed every diff of the job with an empty reply.
#[test]
fn test_manifest_commit_rejects_duplicates_and_malformed_plans_unlike_agentstate() {
    let env = TestEnv::init();
    let l = id(&acquire(&env, "job", "a", 300));
    let before = env.fingerprint();
    let e = env.json_err(&["manifest", "commit", "job", "--lease", &l, "a", "b", "b", "ünï"], 6);
    assert_eq!(e["error"], "bad_request");
    assert_eq!(e["duplicates"], json!(["b"]));
    env.json_err(&["manifest", "commit", "job", "--lease", &l, "a", ""], 6);
    for (name, body) in [
        ("objects.json", r#"[{"id":"a"},7]"#),
        ("object.json", r#"{"steps":["a"]}"#),
        ("empty.json", "[]"),
        ("junk.json", "not json"),
        ("dups.json", r#"["a","a"]"#),
        ("control.json", r#"["a\u0000b"]"#),
    ] {
        std::fs::write(env.path().join(name), body).unwrap();
        let e = env.json_err(&["manifest", "commit", "job", "--lease", &l, "--file", name], 6);
        assert_eq!(e["error"], "bad_request", "{name}");
    }
    let big = format!("[\"{}\"]", "x".repeat(1_048_576));
    std::fs::write(env.path().join("big.json"), big).unwrap();
    let e = env.json_err(&["manifest", "commit", "job", "--lease", &l, "--file", "big.json"], 6);
    assert_eq!(e["error"], "payload_too_large");
    let out = env.locker().args(["manifest", "commit", "job", "--lease", &l]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "steps or --file are required");
    let out = env
        .locker()
        .args(["manifest", "commit", "job", "--lease", &l, "a", "--file", "x"])
        .output();
    assert_eq!(out.unwrap().status.code(), Some(2));
    assert_eq!(env.fingerprint(), before);
    // The diff of the work item still works.
    diff(&env, "job", 0);
}

#[test]
fn test_manifest_commit_needs_the_current_lease() {
    let env = TestEnv::init();
    let out = env.locker().args(["manifest", "commit", "job", "a"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "--lease is required");
    let e = env.json_err(&["manifest", "commit", "job", "--lease", "nope", "a"], 3);
    assert_eq!(e["error"], "lease_not_found");
    let l = id(&acquire(&env, "job", "a", 300));
    env.json(&["lease", "release", "job", "--lease", &l]);
    let e = env.json_err(&["manifest", "commit", "job", "--lease", &l, "a"], 4);
    assert_eq!(e["error"], "stale_lease");
}

/// The reference's happy path (job-42): plan a, b, c; a and c logged, plus a stray x.
#[test]
fn test_manifest_diff_reports_holes_and_extras() {
    let env = TestEnv::init();
    let l = id(&acquire(&env, "job-42", "a", 300));
    env.json(&["manifest", "commit", "job-42", "--lease", &l, "a", "b", "c"]);
    env.json(&["step", "job-42", "a", "--lease", &l, "--planned", "do a", "--executed", "did a"]);
    env.json(&["step", "job-42", "c", "--lease", &l, "--gate", "human"]);
    env.json(&["step", "job-42", "x", "--lease", &l, "--executed", "stray"]);
    env.json(&["step", "job-42", "B", "--lease", &l]);
    let d = diff(&env, "job-42", 1);
    assert_eq!(d["has_plan"], true);
    assert_eq!(d["planned"], json!(["a", "b", "c"]));
    assert_eq!(d["holes"], json!(["b"]));
    assert_eq!(d["extras"], json!(["B", "x"]), "extras sorted by bytes");
    assert_eq!(d["clean"], false);
    assert_eq!(d["fence"], 1);
    let out = env.locker().args(["manifest", "diff", "job-42"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("holes:    b\n") && text.contains("extras:   B, x\n"), "{text}");
    assert!(text.ends_with("DIFFERS\n"));
    env.json(&["step", "job-42", "b", "--lease", &l]);
    let d = diff(&env, "job-42", 1);
    assert_eq!(d["holes"], json!([]));
    env.json(&["manifest", "commit", "job-42", "--lease", &l, "a", "b", "c", "x", "B"]);
    let d = diff(&env, "job-42", 0);
    assert_eq!(d["clean"], true);
    let e = env.json_err(&["manifest", "diff", "nowhere"], 3);
    assert_eq!(e["error"], "work_not_found");
}

#[test]
fn test_manifest_diff_without_a_plan() {
    let env = TestEnv::init();
    let l = id(&acquire(&env, "job", "a", 300));
    let d = diff(&env, "job", 0);
    assert_eq!(d["has_plan"], false);
    assert_eq!(d["plan_version"], Value::Null);
    env.json(&["step", "job", "s", "--lease", &l]);
    let d = diff(&env, "job", 1);
    assert_eq!(d["extras"], json!(["s"]));
}

/// The diff rule: only the newest lease's steps count. The reference's job-m case: "a" under
/// lease 1, expiry, a new lease with a new plan, "a" logged again under lease 2 (allowed).
#[test]
fn test_manifest_diff_counts_only_the_newest_lease() {
    let mut env = TestEnv::init();
    let l1 = id(&acquire(&env, "job-m", "a", 60));
    env.json(&["manifest", "commit", "job-m", "--lease", &l1, "a", "b", "c"]);
    env.json(&["step", "job-m", "a", "--lease", &l1]);
    env.json(&["step", "job-m", "b", "--lease", &l1]);
    env.now += 60;
    let l2 = id(&acquire(&env, "job-m", "b2", 60));
    // The plan carries over; the steps of lease 1 do not.
    let d = diff(&env, "job-m", 1);
    assert_eq!(d["fence"], 2);
    assert_eq!(d["lease_id"], l2.as_str());
    assert_eq!(d["planned"], json!(["a", "b", "c"]));
    assert_eq!(d["holes"], json!(["a", "b", "c"]));
    assert_eq!(d["earlier_lease_steps"], json!(["a", "b"]));
    env.json(&["manifest", "commit", "job-m", "--lease", &l2, "a", "b", "ünï"]);
    let again = env.json(&["step", "job-m", "a", "--lease", &l2]);
    assert_eq!(again["replayed"], false, "a new lease logs its own record");
    let d = diff(&env, "job-m", 1);
    assert_eq!(d["holes"], json!(["b", "ünï"]));
    assert_eq!(d["extras"], json!([]));
    assert_eq!(d["earlier_lease_steps"], json!(["b"]));
    let done = env.json(&["lease", "complete", "job-m", "--lease", &l2]);
    assert_eq!(done["diff"], d);
    let text = env.locker().args(["manifest", "diff", "job-m"]).output().unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("earlier:  b (logged under earlier leases; not counted)"), "{text}");
}

#[test]
fn test_manifest_tampered_plans_are_caught_by_verify() {
    for sql in [
        r#"UPDATE plans SET steps = '["only-this"]' WHERE version = 1"#,
        "UPDATE plans SET steps = 'not json' WHERE version = 2",
        "UPDATE plans SET committed_at = 0 WHERE version = 2",
        "DELETE FROM plans WHERE version = 2",
        r#"INSERT INTO plans (scope, work, version, lease_id, steps, committed_at)
           SELECT scope, work, 3, lease_id, '["z"]', committed_at FROM plans WHERE version = 2"#,
    ] {
        let env = TestEnv::init();
        let l = id(&acquire(&env, "job", "a", 300));
        env.json(&["manifest", "commit", "job", "--lease", &l, "a", "b"]);
        env.json(&["manifest", "commit", "job", "--lease", &l, "a", "b", "c"]);
        env.sql().execute(sql, []).unwrap();
        let v = verify_broken(&env);
        assert_eq!(v["first_broken"]["plan"]["subject"], "work:job", "{sql}");
        assert_eq!(v["leases"]["ok"], false);
        json_code(&env, &["lease", "history", "job"], 1);
    }
}
