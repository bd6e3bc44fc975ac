//! `locker lease …`: exclusivity, fencing, expiry and the reaper, history, and `verify` over
//! lease rows. Tests named `…_unlike_agentstate` each pin one bug of the peer (reference part
//! B) that locker must not have.

use serde_json::Value;

use crate::common::TestEnv;

/// `lease acquire WORK --holder HOLDER --ttl TTL`, expecting success.
pub fn acquire(env: &TestEnv, work: &str, holder: &str, ttl: i64) -> Value {
    env.json(&["lease", "acquire", work, "--holder", holder, "--ttl", &ttl.to_string()])
}

/// The lease id of an outcome.
pub fn id(v: &Value) -> String {
    v["lease_id"].as_str().expect("a lease_id").to_owned()
}

/// Kinds of the journal entries about `work`, oldest first.
pub fn kinds(env: &TestEnv, work: &str) -> Vec<String> {
    let out = env
        .locker()
        .args(["--json", "log", "--reverse", "--subject", &format!("work:{work}")])
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["kind"].as_str().unwrap().to_owned())
        .collect()
}

/// `locker --json verify`, expecting exit 1; returns the report.
pub fn verify_broken(env: &TestEnv) -> Value {
    let out = env.locker().args(["--json", "verify"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Asserts that `verify` is intact.
pub fn verify_ok(env: &TestEnv) {
    let v = env.json(&["verify"]);
    assert_eq!(v["ok"], true, "{v:#}");
}

/// Runs `locker --json ARGS`, expecting exit `code` with JSON on stdout (a clean "no").
pub fn json_code(env: &TestEnv, args: &[&str], code: i32) -> Value {
    let out = env.locker().arg("--json").args(args).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(code),
        "{args:?}: {} {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn problems(report: &Value) -> String {
    report["problems"].to_string()
}

/// Starts `n` `locker --json lease acquire job --holder <prefix>N` processes at once and
/// waits for all of them.
fn race(env: &TestEnv, n: usize, prefix: &str) -> Vec<std::process::Output> {
    let children: Vec<_> = (0..n)
        .map(|i| {
            std::process::Command::new(crate::common::bin())
                .env_clear()
                .env("HOME", env.path())
                .env("LOCKER_NOW", env.now.to_string())
                .current_dir(env.path())
                .args(["--json", "lease", "acquire", "job", "--holder", &format!("{prefix}{i}")])
                .args(["--ttl", "60"])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    children.into_iter().map(|c| c.wait_with_output().unwrap()).collect()
}

#[test]
fn test_lease_acquire_concurrent_processes_exactly_one_holder() {
    let mut env = TestEnv::init();
    let outs = race(&env, 16, "w");
    let winners: Vec<Value> = outs
        .iter()
        .filter(|o| o.status.success())
        .map(|o| serde_json::from_slice(&o.stdout).unwrap())
        .collect();
    assert_eq!(winners.len(), 1, "exactly one acquirer wins");
    let holder = winners[0]["holder"].as_str().unwrap();
    assert_eq!(winners[0]["fence"], 1);
    for o in outs.iter().filter(|o| !o.status.success()) {
        assert_eq!(o.status.code(), Some(4), "{}", String::from_utf8_lossy(&o.stderr));
        let e: Value = serde_json::from_slice(&o.stderr).unwrap();
        assert_eq!(e["error"], "lease_held");
        assert_eq!(e["holder"], holder);
        assert_eq!(e["expires_at"], winners[0]["expires_at"]);
    }
    let list = env.json(&["lease", "list"]);
    assert_eq!(list["leases"].as_array().unwrap().len(), 1);
    assert_eq!(kinds(&env, "job"), ["lease.acquire"]);

    // After expiry, racing acquirers reap the old lease exactly once and one of them wins
    // fencing token 2.
    env.now += 60;
    let outs = race(&env, 12, "v");
    let winners: Vec<Value> = outs
        .iter()
        .filter(|o| o.status.success())
        .map(|o| serde_json::from_slice(&o.stdout).unwrap())
        .collect();
    assert_eq!(winners.len(), 1);
    assert_eq!(winners[0]["fence"], 2);
    assert!(outs.iter().all(|o| o.status.success() || o.status.code() == Some(4)));
    assert_eq!(kinds(&env, "job"), ["lease.acquire", "lease.abandon", "lease.acquire"]);
    verify_ok(&env);
}

// agentstate: a second caller got the same lease id (no holder identity).
#[test]
fn test_lease_acquire_is_exclusive_unlike_agentstate() {
    let env = TestEnv::init();
    let a = acquire(&env, "job-shared", "alice", 300);
    let before = env.fingerprint();
    let e = env.json_err(&["lease", "acquire", "job-shared", "--holder", "bob", "--ttl", "5"], 4);
    assert_eq!(e["error"], "lease_held");
    assert_eq!(e["holder"], "alice");
    assert_eq!(e["expires_at"], a["expires_at"]);
    assert!(e.get("lease_id").is_none(), "the holder's lease id is not handed out");
    assert_eq!(env.fingerprint(), before);
}

#[test]
fn test_lease_acquire_same_holder_gets_its_lease_back() {
    let env = TestEnv::init();
    let a = acquire(&env, "job", "alice", 300);
    assert_eq!(a["reacquired"], false);
    let before = env.fingerprint();
    let again = acquire(&env, "job", "alice", 300);
    assert_eq!(again["reacquired"], true);
    assert_eq!(id(&again), id(&a));
    assert_eq!(again["expires_at"], a["expires_at"]);
    assert_eq!(again["fence"], 1);
    assert_eq!(env.fingerprint(), before, "getting a lease back changes nothing");
    // Without --holder the operator acquires as `operator`.
    let op = env.json(&["lease", "acquire", "other"]);
    assert_eq!(op["holder"], "operator");
    assert_eq!(op["ttl"], 300);
}

#[test]
fn test_lease_acquire_human_output_is_the_lease_id() {
    let env = TestEnv::init();
    let out = env.locker().args(["lease", "acquire", "job", "--holder", "a"]).output().unwrap();
    assert!(out.status.success());
    let id = String::from_utf8(out.stdout).unwrap();
    assert_eq!(id.trim().len(), 32);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("job leased by a with fencing token 1"), "{stderr}");
    let e = env.locker().args(["lease", "acquire", "job", "--holder", "b"]).output().unwrap();
    assert_eq!(e.status.code(), Some(4));
    let stderr = String::from_utf8(e.stderr).unwrap();
    assert!(
        stderr
            .starts_with("Error: Work item job is leased by a (fencing token 1) for another 300 s"),
        "{stderr}"
    );
}

#[test]
fn test_lease_fencing_tokens_increase_and_are_never_reused() {
    let mut env = TestEnv::init();
    let l1 = acquire(&env, "job", "a", 60);
    env.json(&["lease", "release", "job", "--lease", &id(&l1)]);
    let l2 = acquire(&env, "job", "b", 60);
    env.now += 60;
    let l3 = acquire(&env, "job", "c", 60);
    env.json(&["lease", "complete", "job", "--lease", &id(&l3)]);
    let l4 = env.json(&["lease", "acquire", "job", "--holder", "d", "--reopen"]);
    let fences: Vec<_> =
        [&l1, &l2, &l3, &l4].iter().map(|l| l["fence"].as_u64().unwrap()).collect();
    assert_eq!(fences, [1, 2, 3, 4]);
    let ids: std::collections::HashSet<_> = [&l1, &l2, &l3, &l4].iter().map(|l| id(l)).collect();
    assert_eq!(ids.len(), 4, "lease ids are fresh");
    let show = env.json(&["lease", "show", "job"]);
    assert_eq!(show["attempts"], 4);
    assert_eq!(show["fence"], 4);
    // Fences are per work item.
    assert_eq!(acquire(&env, "other", "a", 60)["fence"], 1);
    verify_ok(&env);
}

#[test]
fn test_lease_expiry_reaping_and_reacquisition() {
    let mut env = TestEnv::init();
    let a = acquire(&env, "job", "a", 60);
    env.now += 59;
    let e = env.json_err(&["lease", "acquire", "job", "--holder", "b"], 4);
    assert_eq!(e["error"], "lease_held");
    env.now += 1; // exactly at expires_at: over
    let b = acquire(&env, "job", "b", 60);
    assert_eq!(b["fence"], 2);
    assert_eq!(b["reacquired"], false);
    assert_eq!(kinds(&env, "job"), ["lease.acquire", "lease.abandon", "lease.acquire"]);
    let list = env.json(&["lease", "list", "--state", "abandoned"]);
    let abandoned = list["leases"].as_array().unwrap();
    assert_eq!(abandoned.len(), 1);
    assert_eq!(abandoned[0]["lease_id"], a["lease_id"]);
    assert_eq!(abandoned[0]["ended_at"], env.now);
    verify_ok(&env);
}

// agentstate: the reaper ran only inside POST /lease, so an expired lease stayed `active` and
// unrecorded through heartbeats, events and ledger reads.
#[test]
fn test_lease_every_access_reaps_unlike_agentstate() {
    for access in [
        &["lease", "show", "job"][..],
        &["lease", "history", "job"],
        &["manifest", "diff", "job"],
        &["manifest", "show", "job"],
        &["lease", "list"],
    ] {
        let mut env = TestEnv::init();
        let a = acquire(&env, "job", "a", 60);
        env.json(&["manifest", "commit", "job", "--lease", &id(&a), "x"]);
        env.now += 60;
        let out = env.locker().args(access).output().unwrap();
        assert!(matches!(out.status.code(), Some(0 | 1)), "{access:?}");
        assert_eq!(
            kinds(&env, "job"),
            ["lease.acquire", "manifest.commit", "lease.abandon"],
            "{access:?} reaps"
        );
        let show = env.json(&["lease", "show", "job"]);
        assert_eq!(show["state"], "abandoned");
        verify_ok(&env);
    }
    // A refused write reaps too: the refusal rolls back, the reaping is kept.
    let mut env = TestEnv::init();
    let a = acquire(&env, "job", "a", 60);
    env.now += 61;
    let e = env.json_err(&["step", "job", "s", "--lease", &id(&a)], 7);
    assert_eq!(e["error"], "gone");
    assert_eq!(kinds(&env, "job"), ["lease.acquire", "lease.abandon"]);
}

#[test]
fn test_lease_heartbeat_extends_by_the_ttl_and_keeps_details() {
    let mut env = TestEnv::init();
    let a = acquire(&env, "job", "a", 60);
    env.now += 50;
    let hb = env.json(&["lease", "heartbeat", "job", "--lease", &id(&a), "--details", "step 2/3"]);
    assert_eq!(hb["expires_at"], env.now + 60);
    assert_eq!(hb["heartbeats"], 1);
    env.now += 59;
    let e = env.json_err(&["lease", "acquire", "job", "--holder", "b"], 4);
    assert_eq!(e["expires_at"], hb["expires_at"]);
    let show = env.json(&["lease", "show", "job"]);
    assert_eq!(show["state"], "active");
    assert_eq!(show["holder"], "a");
    assert_eq!(show["fence"], 1);
    assert_eq!(show["attempts"], 1);
    assert_eq!(show["last_heartbeat_at"], env.now - 59);
    assert_eq!(show["heartbeat_details"], "step 2/3");
    assert_eq!(show["plan_version"], Value::Null);
    let human = env.locker().args(["lease", "show", "job"]).output().unwrap();
    let text = String::from_utf8(human.stdout).unwrap();
    assert!(text.contains("details:     step 2/3"), "{text}");
    assert!(text.contains("attempts:    1"), "{text}");
    verify_ok(&env);
}

#[test]
fn test_lease_heartbeat_on_an_expired_lease_is_gone() {
    let mut env = TestEnv::init();
    let a = acquire(&env, "job", "a", 60);
    env.now += 60;
    let e = env.json_err(&["lease", "heartbeat", "job", "--lease", &id(&a)], 7);
    assert_eq!(e["error"], "gone");
    assert_eq!(e["state"], "abandoned");
    assert_eq!(e["expired_at"], a["expires_at"]);
    // The expired lease was reaped by that access, and stays gone.
    let before = env.fingerprint();
    let e = env.json_err(&["lease", "heartbeat", "job", "--lease", &id(&a)], 7);
    assert_eq!(e["error"], "gone");
    assert_eq!(env.fingerprint(), before);
}

// agentstate: an unknown lease (or work_ref) got 400 `unknown lease`, and `/event` accepted
// any lease string at all.
#[test]
fn test_lease_heartbeat_on_an_unknown_lease_is_not_found_unlike_agentstate() {
    let env = TestEnv::init();
    let a = acquire(&env, "job", "a", 60);
    let b = acquire(&env, "other", "a", 60);
    let before = env.fingerprint();
    for (work, lease) in [
        ("job", "any-string-i-like".to_owned()),
        ("nowhere", id(&a)),
        ("other", id(&a)), // a real lease, of another work item
        ("job", id(&b)),
    ] {
        let e = env.json_err(&["lease", "heartbeat", work, "--lease", &lease], 3);
        assert_eq!(e["error"], "lease_not_found", "{work} {lease}");
        let e = env.json_err(&["step", work, "s", "--lease", &lease], 3);
        assert_eq!(e["error"], "lease_not_found");
        let e = env.json_err(&["lease", "complete", work, "--lease", &lease], 3);
        assert_eq!(e["error"], "lease_not_found");
    }
    assert_eq!(env.fingerprint(), before);
    let e = env.json_err(&["lease", "show", "nowhere"], 3);
    assert_eq!(e["error"], "work_not_found");
}

#[test]
fn test_lease_stalled_holder_is_refused_after_being_replaced() {
    let mut env = TestEnv::init();
    let a = acquire(&env, "job", "a", 60);
    let la = id(&a);
    env.json(&["manifest", "commit", "job", "--lease", &la, "fetch", "build", "test"]);
    env.json(&["step", "job", "fetch", "--lease", &la, "--executed", "ok"]);
    env.now += 120; // a stalls
    let b = acquire(&env, "job", "b", 60);
    let before = env.fingerprint();
    for args in [
        &["lease", "heartbeat", "job", "--lease", &la][..],
        &["step", "job", "build", "--lease", &la, "--executed", "late"],
        &["manifest", "commit", "job", "--lease", &la, "fetch"],
        &["lease", "complete", "job", "--lease", &la],
        &["lease", "release", "job", "--lease", &la],
    ] {
        let e = env.json_err(args, 7);
        assert_eq!(e["error"], "gone", "{args:?}");
        assert_eq!(e["current_fence"], 2);
        assert_eq!(e["current_holder"], "b");
        assert_eq!(e["fence"], 1);
    }
    assert_eq!(env.fingerprint(), before, "the stalled holder changed nothing");
    // b is unaffected.
    env.json(&["step", "job", "build", "--lease", &id(&b)]);
    let show = env.json(&["lease", "show", "job"]);
    assert_eq!(show["holder"], "b");
    verify_ok(&env);
}

// agentstate: complete on an expired (not yet reaped) lease answered 200 `done`.
#[test]
fn test_lease_complete_on_an_expired_lease_is_gone_unlike_agentstate() {
    let mut env = TestEnv::init();
    let a = acquire(&env, "job-exp2", "a", 1);
    env.now += 1;
    let e = env.json_err(&["lease", "complete", "job-exp2", "--lease", &id(&a)], 7);
    assert_eq!(e["error"], "gone");
    let show = env.json(&["lease", "show", "job-exp2"]);
    assert_eq!(show["state"], "abandoned");
    assert_eq!(show["result"], Value::Null);
}

// agentstate: steps were accepted after `done`, a second complete was silently ignored, and
// a done job could be leased again by anyone.
#[test]
fn test_lease_complete_is_final_unlike_agentstate() {
    let env = TestEnv::init();
    let a = acquire(&env, "job-42", "a", 300);
    let la = id(&a);
    env.json(&["manifest", "commit", "job-42", "--lease", &la, "a", "b", "c"]);
    env.json(&["step", "job-42", "a", "--lease", &la]);
    env.json(&["step", "job-42", "x", "--lease", &la]);
    let done = env.json(&["lease", "complete", "job-42", "--lease", &la, "--result", "ok"]);
    assert_eq!(done["state"], "completed");
    assert_eq!(done["result"], "ok");
    assert_eq!(done["replayed"], false);
    assert_eq!(done["diff"]["holes"], serde_json::json!(["b", "c"]));
    assert_eq!(done["diff"]["extras"], serde_json::json!(["x"]));
    let before = env.fingerprint();
    let again = env.json(&["lease", "complete", "job-42", "--lease", &la, "--result", "ok"]);
    assert_eq!(again["replayed"], true);
    assert_eq!(again["diff"], done["diff"]);
    for (args, code) in [
        (&["lease", "complete", "job-42", "--lease", &la, "--result", "second"][..], "stale_lease"),
        (&["step", "job-42", "after-done", "--lease", &la], "stale_lease"),
        (&["lease", "heartbeat", "job-42", "--lease", &la], "stale_lease"),
        (&["manifest", "commit", "job-42", "--lease", &la, "z"], "stale_lease"),
        (&["lease", "release", "job-42", "--lease", &la], "stale_lease"),
        (&["lease", "acquire", "job-42", "--holder", "b"], "work_completed"),
    ] {
        let e = env.json_err(args, 4);
        assert_eq!(e["error"], code, "{args:?}");
    }
    assert_eq!(env.fingerprint(), before);
    let re = env.json(&["lease", "acquire", "job-42", "--holder", "b", "--reopen"]);
    assert_eq!(re["fence"], 2);
    verify_ok(&env);
}

#[test]
fn test_lease_release_lets_another_holder_acquire() {
    let env = TestEnv::init();
    let a = acquire(&env, "job", "a", 300);
    let r = env.json(&["lease", "release", "job", "--lease", &id(&a)]);
    assert_eq!(r["state"], "released");
    assert_eq!(r["replayed"], false);
    let before = env.fingerprint();
    let r = env.json(&["lease", "release", "job", "--lease", &id(&a)]);
    assert_eq!(r["replayed"], true);
    assert_eq!(env.fingerprint(), before);
    let e = env.json_err(&["step", "job", "s", "--lease", &id(&a)], 4);
    assert_eq!(e["error"], "stale_lease");
    assert_eq!(e["state"], "released");
    let b = acquire(&env, "job", "b", 300);
    assert_eq!(b["fence"], 2);
    // The released lease, now superseded, names its successor.
    let e = env.json_err(&["step", "job", "s", "--lease", &id(&a)], 4);
    assert_eq!(e["current_holder"], "b");
}

#[test]
fn test_lease_list_filters_by_state() {
    let mut env = TestEnv::init();
    let a = acquire(&env, "w1", "a", 300);
    env.json(&["lease", "complete", "w1", "--lease", &id(&a)]);
    let b = acquire(&env, "w2", "a", 300);
    env.json(&["lease", "release", "w2", "--lease", &id(&b)]);
    acquire(&env, "w3", "a", 10);
    acquire(&env, "w4", "a", 300);
    env.now += 10;
    let all = env.json(&["lease", "list"]);
    let states: Vec<_> =
        all["leases"].as_array().unwrap().iter().map(|l| l["state"].as_str().unwrap()).collect();
    assert_eq!(states, ["completed", "released", "abandoned", "active"]);
    for s in ["active", "completed", "released", "abandoned"] {
        let v = env.json(&["lease", "list", "--state", s]);
        let l = v["leases"].as_array().unwrap();
        assert_eq!(l.len(), 1, "{s}");
        assert_eq!(l[0]["state"], s);
    }
    let e = env.locker().args(["lease", "list", "--state", "done"]).output().unwrap();
    assert_eq!(e.status.code(), Some(2));
    env.json_err(&["lease", "list", "--limit", "0"], 6);
}

#[test]
fn test_lease_reap_sweeps_the_whole_repository() {
    let mut env = TestEnv::init();
    for w in ["w1", "w2", "w3"] {
        acquire(&env, w, "a", 10);
    }
    acquire(&env, "long", "a", 1000);
    env.now += 10;
    let r = env.json(&["lease", "reap"]);
    let works: Vec<_> =
        r["abandoned"].as_array().unwrap().iter().map(|l| l["work"].as_str().unwrap()).collect();
    assert_eq!(works, ["w1", "w2", "w3"]);
    let before = env.fingerprint();
    let r = env.json(&["lease", "reap"]);
    assert!(r["abandoned"].as_array().unwrap().is_empty());
    assert_eq!(env.fingerprint(), before);
    assert_eq!(kinds(&env, "w2"), ["lease.acquire", "lease.abandon"]);
    // Abandoned work can be acquired again.
    assert_eq!(acquire(&env, "w1", "b", 10)["fence"], 2);
    verify_ok(&env);
}

#[test]
fn test_lease_work_names_and_ttls_are_validated() {
    let env = TestEnv::init();
    let before = env.fingerprint();
    let long = "w".repeat(257);
    for work in ["", long.as_str(), "a\nb", "tab\there", "nul\u{1}"] {
        let e = env.json_err(&["lease", "acquire", work], 6);
        assert_eq!(e["error"], "bad_request", "{work:?}");
        env.json_err(&["lease", "show", work], 6);
        env.json_err(&["manifest", "diff", work], 6);
        env.json_err(&["step", work, "s", "--lease", "x"], 6);
    }
    // agentstate accepted ttl 0 and negative ttls (a lease born expired).
    for ttl in ["0", "-100", "2592001"] {
        let e = env.json_err(&["lease", "acquire", "job", "--ttl", ttl], 6);
        assert_eq!(e["error"], "unprocessable", "{ttl}");
    }
    env.json_err(&["lease", "acquire", "job", "--holder", ""], 6);
    assert_eq!(env.fingerprint(), before);
    let max = "w".repeat(256);
    assert_eq!(acquire(&env, &max, "a", 2_592_000)["work"], max.as_str());
    acquire(&env, "ünï:code/1 with spaces", "a", 1);
}

#[test]
fn test_lease_history_shows_every_transition_and_its_integrity() {
    let mut env = TestEnv::init();
    let a = acquire(&env, "job", "a", 60);
    let la = id(&a);
    env.json(&["manifest", "commit", "job", "--lease", &la, "s1", "s2"]);
    env.json(&["lease", "heartbeat", "job", "--lease", &la, "--details", "half"]);
    env.json(&["step", "job", "s1", "--lease", &la, "--executed", "done"]);
    acquire(&env, "unrelated", "z", 60); // interleaved entries of another subject
    env.now += 60;
    let b = acquire(&env, "job", "b", 60);
    env.json(&["lease", "complete", "job", "--lease", &id(&b)]);
    let h = env.json(&["lease", "history", "job"]);
    assert_eq!(h["integrity"], "ok");
    assert_eq!(h["first_broken"], Value::Null);
    let kinds: Vec<_> =
        h["entries"].as_array().unwrap().iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "lease.acquire",
            "manifest.commit",
            "lease.heartbeat",
            "step.record",
            "lease.abandon",
            "lease.acquire",
            "lease.complete"
        ]
    );
    assert!(h["entries"].as_array().unwrap().iter().all(|e| e["ok"] == true));
    // The journal records the texts a gc may prune by digest only.
    assert_eq!(h["entries"][3]["body"]["executed_sha256"], sha256_hex("done"));
    assert_eq!(h["entries"][3]["body"].get("executed"), None);
    assert_eq!(h["entries"][2]["body"]["details_sha256"], sha256_hex("half"));
    assert_eq!(h["entries"][1]["body"]["steps_count"], 2);
    assert_eq!(h["entries"][1]["body"]["steps_sha256"], sha256_hex(r#"["s1","s2"]"#));
    let text = env.locker().args(["lease", "history", "job"]).output().unwrap();
    assert!(String::from_utf8(text.stdout).unwrap().contains("v1 (2 steps)"));

    // Alter the step's journal entry: history names it, and verify too.
    let seq = h["entries"][3]["seq"].as_u64().unwrap();
    env.sql()
        .execute(
            "UPDATE journal SET entry = CAST(replace(CAST(entry AS TEXT), ?2, ?3) AS BLOB) WHERE seq = ?1",
            rusqlite::params![seq as i64, sha256_hex("done"), sha256_hex("DONE")],
        )
        .unwrap();
    let h = json_code(&env, &["lease", "history", "job"], 1);
    assert_eq!(h["integrity"], "broken");
    assert_eq!(h["first_broken"]["seq"], seq);
    assert!(h["first_broken"]["detail"].as_str().unwrap().contains("altered"), "{h:#}");
    assert_eq!(h["entries"][3]["ok"], false);
    let v = verify_broken(&env);
    assert_eq!(v["first_broken"]["journal"]["seq"], seq);
    let text = env.locker().args(["lease", "history", "job"]).output().unwrap();
    assert_eq!(text.status.code(), Some(1));
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("BROKEN") && text.ends_with("integrity: broken\n"), "{text}");
}

// agentstate: a broken ledger reported `first_broken_event_id`, an internal id its events
// list never showed; locker's first broken entry is a journal sequence number shown in the
// history and in `locker log`.
#[test]
fn test_lease_history_names_a_tampered_row_unlike_agentstate() {
    let env = TestEnv::init();
    let a = acquire(&env, "job-t", "a", 60);
    let la = id(&a);
    for s in ["s1", "s2", "s3"] {
        env.json(&["step", "job-t", s, "--lease", &la, "--executed", "ok"]);
    }
    env.sql().execute("UPDATE steps SET executed = 'FORGED' WHERE step = 's2'", []).unwrap();
    let h = json_code(&env, &["lease", "history", "job-t"], 1);
    let d = h["first_broken"]["detail"].as_str().unwrap();
    assert!(d.contains("\"s2\"") && d.contains("FORGED"), "{d}");
    let v = verify_broken(&env);
    assert_eq!(v["first_broken"]["step"]["subject"], "work:job-t");
}

/// Tampering with a lease row in any field is caught by `verify`, naming the work item.
#[test]
fn test_lease_tampered_rows_are_caught_by_verify() {
    let tampers = [
        "UPDATE leases SET holder = 'mallory' WHERE fence = 1",
        "UPDATE leases SET fence = 7 WHERE fence = 2",
        "UPDATE leases SET state = 'completed' WHERE fence = 1",
        "UPDATE leases SET expires_at = expires_at + 3600 WHERE fence = 2",
        "UPDATE leases SET details = 'forged' WHERE fence = 1",
        "UPDATE leases SET result = 'ok' WHERE fence = 2",
        "UPDATE leases SET ttl = 99999 WHERE fence = 2",
        "DELETE FROM leases WHERE fence = 2",
        "INSERT INTO leases (id, scope, work, fence, holder, state, ttl, acquired_at, expires_at) \
         VALUES ('f0f0', 'default', 'job', 3, 'mallory', 'completed', 60, 0, 60)",
    ];
    for sql in tampers {
        let mut env = TestEnv::init();
        let a = acquire(&env, "job", "a", 60);
        env.json(&["lease", "heartbeat", "job", "--lease", &id(&a), "--details", "d"]);
        env.now += 60;
        acquire(&env, "job", "b", 60);
        verify_ok(&env);
        let c = env.sql();
        c.execute_batch("PRAGMA foreign_keys = OFF").unwrap();
        c.execute(sql, []).unwrap();
        drop(c);
        let v = verify_broken(&env);
        assert_eq!(v["leases"]["ok"], false, "{sql}");
        assert_eq!(v["first_broken"]["lease"]["subject"], "work:job", "{sql}: {}", problems(&v));
        json_code(&env, &["lease", "history", "job"], 1);
    }
}

// agentstate: deleting the tail row verified ok, and so did deleting every row of a job or
// re-hashing the whole chain after an edit (no anchor); its leases table was not chained.
#[test]
fn test_lease_truncation_and_deletion_are_caught_unlike_agentstate() {
    let build = || {
        let env = TestEnv::init();
        let a = acquire(&env, "job-t", "a", 60);
        for s in ["s1", "s2", "s3"] {
            env.json(&["step", "job-t", s, "--lease", &id(&a)]);
        }
        env
    };
    // The tail step row.
    let env = build();
    env.sql().execute("DELETE FROM steps WHERE step = 's3'", []).unwrap();
    let v = verify_broken(&env);
    assert!(problems(&v).contains("missing from the store"), "{}", problems(&v));
    // Every row of the work item.
    let env = build();
    env.sql().execute_batch("DELETE FROM steps; DELETE FROM plans; DELETE FROM leases;").unwrap();
    let v = verify_broken(&env);
    assert_eq!(v["leases"]["broken"], 4);
    // The tail journal entry (and its step row), with the head moved back: the journal's
    // Merkle tree still has the removed leaf.
    let env = build();
    let head = env.json(&["verify"])["journal"]["head_hash"].as_str().unwrap().to_owned();
    let truncate = "DELETE FROM steps WHERE step = 's3';
             DELETE FROM journal WHERE seq = (SELECT MAX(seq) FROM journal);";
    env.sql().execute_batch(truncate).unwrap();
    env.sql().move_head_to_last();
    let v = verify_broken(&env);
    assert_eq!(v["merkle"]["ok"], false, "{v}");
    // Dropping the tree too (as if it was never built) used to make a consistent rewrite that
    // only a known head (or a pinned checkpoint) exposed; the log key's high-water mark, beside
    // the key, exposes it now.
    env.sql().drop_merkle();
    env.sql().execute_batch("DELETE FROM checkpoints;").unwrap();
    let v = verify_broken(&env);
    assert_eq!(v["mark"]["ok"], false, "{v}");
    let out = env.locker().args(["--json", "verify", "--expect-head", &head]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    // The tail journal entry alone.
    let env = build();
    env.sql()
        .execute("DELETE FROM journal WHERE seq = (SELECT MAX(seq) FROM journal)", [])
        .unwrap();
    let v = verify_broken(&env);
    if env.sql().keeps_head_row() {
        assert_eq!(v["journal"]["ok"], false, "{v}");
    } else {
        // SQLite's head is the last entry: the log key's high-water mark finds the loss.
        assert_eq!(v["mark"]["ok"], false, "{v}");
    }
    assert!(problems(&v).contains("s3"), "the orphaned step row is named: {}", problems(&v));
    if env.sql().keeps_head_row() {
        let h = json_code(&env, &["lease", "history", "job-t"], 1);
        assert!(h["first_broken"]["detail"].as_str().unwrap().contains("truncated"), "{h:#}");
    } else {
        // The removed entry's Merkle hashes went with its row: the tree no longer reaches the
        // checkpoint the log key signed, so every command refuses the repository.
        let h = env.json_err(&["lease", "history", "job-t"], 6);
        assert_eq!(h["error"], "rolled_back", "{h:#}");
        assert!(h["detail"].as_str().unwrap().contains("truncated"), "{h:#}");
    }
}

fn publish_args<'a>(data: &'a str, expect: &'a str, op: &'a str, fence: &'a str) -> Vec<&'a str> {
    let mut a = vec!["artifact", "publish", "out.txt", "--data", data, "--expect", expect];
    a.extend(["--op", op, "--fence", fence]);
    a
}

/// SPEC §4/§5: a stalled holder's publish under its old fencing token is refused once a newer
/// lease exists, in the publish's own transaction; its acknowledged publish still replays.
#[test]
fn test_lease_stale_fence_refuses_a_stalled_holders_publish() {
    let mut env = TestEnv::init();
    acquire(&env, "job", "a", 60);
    let v1 = env.json(&publish_args("a's draft", "0", "a-1", "job:1"));
    assert_eq!(v1["artifact"]["version"], 1);
    env.now += 120; // a stalls
    acquire(&env, "job", "b", 60);
    let before = env.fingerprint();
    let e = env.json_err(&publish_args("a's late work", "1", "a-2", "job:1"), 4);
    assert_eq!(e["error"], "stale_fence");
    assert_eq!(e["fence"], 1);
    assert_eq!(e["current_fence"], 2);
    assert_eq!(e["current_holder"], "b");
    assert_eq!(e["current_version"], 1);
    assert_ne!(env.fingerprint(), before, "the rejection is journaled");
    let rejects = env.journal_bodies("artifact.reject");
    assert_eq!(rejects.len(), 1);
    assert_eq!(rejects[0]["body"]["reason"], "stale_fence");
    assert_eq!(rejects[0]["body"]["fence"], serde_json::json!({"work": "job", "token": 1}));
    let head = env.json(&["artifact", "get", "out.txt"]);
    assert_eq!(head["version"], 1, "nothing was published");
    // The new holder publishes; the stalled one's acknowledged publish still replays, but the
    // same operation with another fence is another request.
    let v2 = env.json(&publish_args("b's work", "1", "b-1", "job:2"));
    assert_eq!(v2["artifact"]["version"], 2);
    let replay = env.json(&publish_args("a's draft", "0", "a-1", "job:1"));
    assert_eq!(replay["replayed"], true);
    assert_eq!(replay["artifact"]["version"], 1);
    let e = env.json_err(&publish_args("a's draft", "0", "a-1", "job:2"), 4);
    assert_eq!(e["error"], "operation_conflict");
    // A token never issued, and a malformed fence.
    let e = env.json_err(&publish_args("x", "2", "c-1", "job:9"), 3);
    assert_eq!(e["error"], "unknown_fence");
    let e = env.json_err(&publish_args("x", "2", "c-2", "nowhere:1"), 3);
    assert_eq!(e["error"], "unknown_fence");
    let before = env.fingerprint();
    for bad in ["job", "job:0", ":1", "job:x"] {
        env.json_err(&publish_args("x", "2", "c-3", bad), 6);
    }
    assert_eq!(env.fingerprint(), before);
    verify_ok(&env);
}

/// Only a newer lease makes a token stale: an expired holder nobody replaced may still
/// publish, and the check reaps its lease like any access.
#[test]
fn test_lease_fence_check_reaps_but_only_a_newer_lease_makes_a_token_stale() {
    let mut env = TestEnv::init();
    acquire(&env, "job", "a", 60);
    env.now += 61;
    let v = env.json(&publish_args("late but unopposed", "0", "a-1", "job:1"));
    assert_eq!(v["artifact"]["version"], 1);
    assert_eq!(kinds(&env, "job"), ["lease.acquire", "lease.abandon"]);
    verify_ok(&env);
}

#[test]
fn test_lease_tampered_receipt_fence_is_caught_by_verify() {
    for sql in [
        "UPDATE artifact_receipts SET fence_token = 2",
        "UPDATE artifact_receipts SET fence_work = NULL",
        "UPDATE artifact_receipts SET fence_work = NULL, fence_token = NULL",
    ] {
        let env = TestEnv::init();
        acquire(&env, "job", "a", 60);
        env.json(&publish_args("x", "0", "a-1", "job:1"));
        env.sql().execute(sql, []).unwrap();
        let v = verify_broken(&env);
        assert!(problems(&v).contains("fence"), "{sql}: {}", problems(&v));
    }
}

/// With `LOCKER_TOKEN`, the holder is the token's agent: agents cannot acquire for others or
/// use others' leases; the operator can. Work items are per scope.
#[test]
fn test_lease_agents_act_only_as_themselves() {
    let env = TestEnv::init();
    let alice = env.token("alice", "default");
    let bob = env.token("bob", "default");
    let carol = env.token("carol", "other");
    let e = env.json_err_as(&alice, &["lease", "acquire", "job", "--holder", "bob"], 5);
    assert_eq!(e["error"], "forbidden");
    let a = env.json_as(&alice, &["lease", "acquire", "job"]);
    assert_eq!(a["holder"], "alice");
    assert_eq!(
        env.json_as(&alice, &["lease", "acquire", "job", "--holder", "alice"])["reacquired"],
        true
    );
    let la = id(&a);
    let before = env.fingerprint();
    let e = env.json_err_as(&bob, &["lease", "acquire", "job"], 4);
    assert_eq!(e["holder"], "alice");
    env.json_err_as(&bob, &["lease", "heartbeat", "job", "--lease", &la], 5);
    env.json_err_as(&bob, &["step", "job", "s", "--lease", &la], 5);
    env.json_err_as(&bob, &["lease", "release", "job", "--lease", &la], 5);
    assert_eq!(env.fingerprint(), before);
    env.json_as(&alice, &["step", "job", "s", "--lease", &la]);
    env.json(&["lease", "heartbeat", "job", "--lease", &la, "--details", "operator"]);
    // Another scope has its own work items and fences.
    let e = env.json_err_as(&carol, &["lease", "show", "job"], 3);
    assert_eq!(e["error"], "work_not_found");
    env.json_err_as(&carol, &["step", "job", "s", "--lease", &la], 3);
    assert_eq!(env.json_as(&carol, &["lease", "acquire", "job"])["fence"], 1);
    assert_eq!(env.json_as(&carol, &["lease", "list"])["leases"].as_array().unwrap().len(), 1);
    // A revoked agent can do nothing more.
    env.json(&["token", "revoke", "--agent", "alice", "--yes"]);
    let e = env.json_err_as(&alice, &["step", "job", "t", "--lease", &la], 5);
    assert_eq!(e["error"], "unauthorized");
    verify_ok(&env);
}

fn sha256_hex(text: &str) -> String {
    use sha2::Digest as _;
    sha2::Sha256::digest(text.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}
