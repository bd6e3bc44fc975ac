//! `locker step`: idempotent per (work item, lease, step), fenced by the current lease.

use serde_json::json;

use crate::common::TestEnv;
use crate::lease::{acquire, id, json_code, kinds, verify_broken, verify_ok};

#[test]
fn test_step_records_and_replays_an_identical_record() {
    let env = TestEnv::init();
    let l = id(&acquire(&env, "job", "a", 300));
    let args = ["step", "job", "fetch", "--lease", &l, "--planned", "get", "--executed", "got"];
    let s = env.json(&args);
    assert_eq!(s["replayed"], false);
    assert_eq!(s["gate"], "agent");
    assert_eq!(s["planned"], "get");
    assert_eq!(s["executed"], "got");
    assert_eq!(s["fence"], 1);
    assert_eq!(s["recorded_at"], env.now);
    let before = env.fingerprint();
    let again = env.json(&args);
    assert_eq!(again["replayed"], true);
    assert_eq!(again["recorded_at"], s["recorded_at"]);
    assert_eq!(env.fingerprint(), before, "a replay stores and journals nothing");
    assert_eq!(kinds(&env, "job"), ["lease.acquire", "step.record"]);
    let text = env.locker().args(args).output().unwrap();
    assert_eq!(
        String::from_utf8(text.stdout).unwrap(),
        "job already logged: fetch (gate agent, fence 1)\n"
    );
}

// agentstate: a retry with different text answered 200 `logged` and was silently dropped
// (first write wins); `None` and the string "None" hashed alike.
#[test]
fn test_step_conflicting_record_is_refused_unlike_agentstate() {
    let env = TestEnv::init();
    let l = id(&acquire(&env, "job-42", "a", 300));
    env.json(&["step", "job-42", "a", "--lease", &l, "--executed", "did a"]);
    let before = env.fingerprint();
    for extra in [
        &["--executed", "RETRY different text"][..],
        &["--executed", "did a", "--gate", "human"],
        &["--executed", "did a", "--planned", "None"],
        &[],
    ] {
        let mut args = vec!["step", "job-42", "a", "--lease", &l];
        args.extend_from_slice(extra);
        let e = env.json_err(&args, 4);
        assert_eq!(e["error"], "step_conflict", "{extra:?}");
        assert_eq!(e["step"], "a");
        assert_eq!(e["recorded"], json!({"planned": null, "executed": "did a", "gate": "agent"}));
    }
    assert_eq!(env.fingerprint(), before);
}

// agentstate: `/event` needed no lease (and two identical lease-less events made two rows,
// NULLs being distinct in a UNIQUE constraint), and accepted any lease string.
#[test]
fn test_step_requires_a_real_current_lease_unlike_agentstate() {
    let env = TestEnv::init();
    let out = env.locker().args(["step", "job", "a"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "--lease is required");
    let before = env.fingerprint();
    let e = env.json_err(&["step", "job", "a", "--lease", "any-string-i-like"], 3);
    assert_eq!(e["error"], "lease_not_found");
    assert_eq!(env.fingerprint(), before);
}

#[test]
fn test_step_same_name_under_a_new_lease_is_a_new_record() {
    let env = TestEnv::init();
    let l1 = id(&acquire(&env, "job", "a", 300));
    env.json(&["step", "job", "s", "--lease", &l1, "--executed", "first"]);
    env.json(&["lease", "release", "job", "--lease", &l1]);
    let l2 = id(&acquire(&env, "job", "b", 300));
    let s = env.json(&["step", "job", "s", "--lease", &l2, "--executed", "second"]);
    assert_eq!(s["replayed"], false);
    assert_eq!(s["fence"], 2);
    let n: i64 = env.sql().query_row("SELECT COUNT(*) FROM steps", [], |r| r.get(0)).unwrap();
    assert_eq!(n, 2);
    verify_ok(&env);
}

// agentstate: a step under a lease past its expiry was accepted (`late-step`).
#[test]
fn test_step_after_expiry_is_gone_unlike_agentstate() {
    let mut env = TestEnv::init();
    let l = id(&acquire(&env, "job-exp", "a", 1));
    env.now += 1;
    let e = env.json_err(&["step", "job-exp", "late-step", "--lease", &l], 7);
    assert_eq!(e["error"], "gone");
    let n: i64 = env.sql().query_row("SELECT COUNT(*) FROM steps", [], |r| r.get(0)).unwrap();
    assert_eq!(n, 0);
    assert_eq!(kinds(&env, "job-exp"), ["lease.acquire", "lease.abandon"]);
}

// agentstate: the plan was the last event named `manifest`, so any caller could forge it
// with a step of that name (even without a lease), and steps named `complete` or
// `lease-expired` vanished from the diff.
#[test]
fn test_step_reserved_names_are_ordinary_steps_unlike_agentstate() {
    let env = TestEnv::init();
    let l = id(&acquire(&env, "job-fake-plan", "a", 300));
    env.json(&[
        "step",
        "job-fake-plan",
        "manifest",
        "--lease",
        &l,
        "--executed",
        r#"["only-this"]"#,
    ]);
    let e = env.json_err(&["manifest", "show", "job-fake-plan"], 3);
    assert_eq!(e["error"], "plan_not_found", "a step never becomes the plan");
    env.json(&["manifest", "commit", "job-fake-plan", "--lease", &l, "real"]);
    for s in ["complete", "lease-expired"] {
        env.json(&["step", "job-fake-plan", s, "--lease", &l, "--planned", "commit"]);
    }
    assert_eq!(env.json(&["manifest", "show", "job-fake-plan"])["steps"], json!(["real"]));
    let d = json_code(&env, &["manifest", "diff", "job-fake-plan"], 1);
    assert_eq!(d["holes"], json!(["real"]));
    assert_eq!(d["extras"], json!(["complete", "lease-expired", "manifest"]));
}

// agentstate: entries hashed `"|".join(str(x) …)`, so step 'pay|vendorA' with planned '100'
// and step 'pay' with planned 'vendorA|100' had the same hash, and a row could be rewritten
// from one into the other undetected.
#[test]
fn test_step_delimiter_forgery_is_caught_unlike_agentstate() {
    let env = TestEnv::init();
    let l = id(&acquire(&env, "job", "a", 300));
    env.json(&["step", "job", "pay|vendorA", "--lease", &l, "--planned", "100"]);
    let other = env.json(&["step", "job", "pay", "--lease", &l, "--planned", "vendorA|100"]);
    assert_eq!(other["replayed"], false, "distinct records");
    verify_ok(&env);
    env.sql()
        .execute_batch(
            "DELETE FROM steps WHERE step = 'pay';
             UPDATE steps SET step = 'pay', planned = 'vendorA|100' WHERE step = 'pay|vendorA';",
        )
        .unwrap();
    let v = verify_broken(&env);
    assert_eq!(v["first_broken"]["step"]["subject"], "work:job");
    assert!(v["problems"].to_string().contains("pay|vendorA"), "{v:#}");
}

#[test]
fn test_step_inputs_are_validated() {
    let env = TestEnv::init();
    let l = id(&acquire(&env, "job", "a", 300));
    let before = env.fingerprint();
    let long_step = "s".repeat(257);
    let long_text = "t".repeat(16_385);
    for args in [
        vec!["step", "job", "", "--lease", &l],
        vec!["step", "job", &long_step, "--lease", &l],
        vec!["step", "job", "s\u{7}", "--lease", &l],
        vec!["step", "job", "s", "--lease", &l, "--gate", "Human"],
        vec!["step", "job", "s", "--lease", &l, "--gate", ""],
        vec!["step", "job", "s", "--lease", &l, "--executed", &long_text],
        vec!["step", "job", "s", "--lease", &l, "--planned", "a\u{1b}[31m"],
    ] {
        let e = env.json_err(&args, 6);
        assert_eq!(e["error"], "bad_request", "{args:?}");
    }
    assert_eq!(env.fingerprint(), before);
    let ok =
        env.json(&["step", "job", "s", "--lease", &l, "--gate", "ci_2", "--executed", "a\nb\tc"]);
    assert_eq!(ok["gate"], "ci_2");
}

#[test]
fn test_step_tampered_rows_are_caught_by_verify() {
    for sql in [
        "UPDATE steps SET executed = 'FORGED' WHERE step = 'b'",
        "UPDATE steps SET planned = NULL WHERE step = 'a'",
        "UPDATE steps SET planned = 'None' WHERE step = 'c'",
        "UPDATE steps SET gate = 'human' WHERE step = 'a'",
        "UPDATE steps SET recorded_at = 0 WHERE step = 'b'",
        "UPDATE steps SET lease_id = (SELECT id FROM leases WHERE fence = 1) WHERE step = 'c'",
        "DELETE FROM steps WHERE step = 'b'",
        "INSERT INTO steps (scope, work, lease_id, step, planned, executed, gate, recorded_at)
         SELECT scope, work, lease_id, 'forged', NULL, 'ok', 'agent', recorded_at FROM steps LIMIT 1",
    ] {
        let mut env = TestEnv::init();
        let l1 = id(&acquire(&env, "job", "a", 60));
        env.json(&["step", "job", "a", "--lease", &l1, "--planned", "p"]);
        env.now += 60;
        let l2 = id(&acquire(&env, "job", "b", 60));
        env.json(&["step", "job", "b", "--lease", &l2, "--executed", "x"]);
        env.json(&["step", "job", "c", "--lease", &l2]);
        env.sql().execute(sql, []).unwrap();
        let v = verify_broken(&env);
        assert_eq!(v["first_broken"]["step"]["subject"], "work:job", "{sql}: {v:#}");
        assert_eq!(v["leases"]["ok"], false);
        let h = json_code(&env, &["lease", "history", "job"], 1);
        assert_eq!(h["integrity"], "broken");
    }
}
