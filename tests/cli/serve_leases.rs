//! agentstate's lease API on `locker serve` with locker's semantics, and the remote CLI's
//! lease, manifest and step commands.

use serde_json::Value;

use crate::common::server::Server;
use crate::common::TestEnv;

fn post(s: &Server, path: &str, auth: Option<&str>, body: &str, status: u16) -> Value {
    let h = auth.map(|t| format!("Authorization: Bearer {t}"));
    let mut args = vec!["-X", "POST", "--data-binary", body];
    if let Some(h) = &h {
        args.extend(["-H", h.as_str()]);
    }
    s.curl_json(path, &args, status)
}

fn token(env: &TestEnv, agent: &str) -> String {
    let v = env.json(&["--scope", "demo", "token", "create", "--agent", agent]);
    v["token"].as_str().unwrap().to_owned()
}

#[test]
fn test_serve_lease_api_with_lockers_semantics() {
    let env = TestEnv::init();
    let a = token(&env, "worker-a");
    let b = token(&env, "worker-b");
    let s = env.serve(&[]);

    let l = post(&s, "/lease", Some(&a), r#"{"work_ref":"job-42","ttl":300}"#, 200);
    assert_eq!(
        (l["status"].as_str(), l["holder"].as_str(), l["fence"].as_u64()),
        (Some("active"), Some("worker-a"), Some(1))
    );
    assert_eq!(l["lease"], l["lease_id"]);
    assert_eq!(l["expires_at"].as_i64(), Some(env.now + 300));
    let lease = l["lease"].as_str().unwrap().to_owned();
    // The same holder gets its lease back; another holder is refused (agentstate handed it out).
    let again = post(&s, "/lease", Some(&a), r#"{"work_ref":"job-42"}"#, 200);
    assert_eq!(
        (again["lease"].as_str(), again["reacquired"].as_bool()),
        (Some(lease.as_str()), Some(true))
    );
    let held = post(&s, "/lease", Some(&b), r#"{"work_ref":"job-42"}"#, 409);
    assert_eq!(
        (held["error"].as_str(), held["holder"].as_str()),
        (Some("lease_held"), Some("worker-a"))
    );
    // Another agent cannot use the lease.
    let e = post(
        &s,
        "/heartbeat",
        Some(&b),
        &format!(r#"{{"work_ref":"job-42","lease":"{lease}"}}"#),
        403,
    );
    assert_eq!(e["error"], "forbidden");

    let m = post(
        &s,
        "/manifest",
        Some(&a),
        &format!(r#"{{"work_ref":"job-42","lease":"{lease}","steps":["a","b","c"]}}"#),
        200,
    );
    assert_eq!(m["committed"], 3);
    for (step, executed) in [("a", "did a"), ("c", "did c"), ("x", "stray")] {
        let v = post(
            &s,
            "/event",
            Some(&a),
            &format!(
                r#"{{"work_ref":"job-42","lease":"{lease}","step":"{step}","executed":"{executed}"}}"#
            ),
            200,
        );
        assert_eq!(v["logged"], step);
    }
    // The identical step again is a replay; a different one a conflict (agentstate kept the
    // first silently).
    let v = post(
        &s,
        "/event",
        Some(&a),
        &format!(r#"{{"work_ref":"job-42","lease":"{lease}","step":"a","executed":"did a"}}"#),
        200,
    );
    assert_eq!(v["replayed"], true);
    let v = post(
        &s,
        "/event",
        Some(&a),
        &format!(r#"{{"work_ref":"job-42","lease":"{lease}","step":"a","executed":"RETRY"}}"#),
        409,
    );
    assert_eq!(v["error"], "step_conflict");
    // A step needs the current lease.
    let v = post(&s, "/event", Some(&a), r#"{"work_ref":"job-42","step":"y"}"#, 400);
    assert_eq!(v["detail"], "`work_ref` is required".replace("work_ref", "lease"));
    let hb = post(
        &s,
        "/heartbeat",
        Some(&a),
        &format!(r#"{{"work_ref":"job-42","lease":"{lease}"}}"#),
        200,
    );
    assert_eq!(hb["status"], "active");

    let ledger = s.curl_json(
        "/ledger?work=job-42&diff=1",
        &["-H", &format!("Authorization: Bearer {a}")],
        200,
    );
    assert_eq!(
        (ledger["integrity"].as_str(), ledger["work_ref"].as_str()),
        (Some("ok"), Some("job-42"))
    );
    assert_eq!(ledger["first_broken_event_id"], Value::Null);
    assert_eq!(ledger["diff"]["holes"], serde_json::json!(["b"]));
    assert_eq!(ledger["diff"]["extras"], serde_json::json!(["x"]));
    assert_eq!(ledger["diff"]["has_manifest"], true);
    assert!(ledger["events"].as_array().unwrap().len() >= 5);
    let no_diff = s.curl_json(
        "/ledger?work_ref=job-42&diff=",
        &["-H", &format!("Authorization: Bearer {a}")],
        200,
    );
    assert_eq!(no_diff["diff"], Value::Null);

    let done = post(
        &s,
        "/complete",
        Some(&a),
        &format!(r#"{{"work_ref":"job-42","lease":"{lease}","result":"ok"}}"#),
        200,
    );
    assert_eq!(
        (done["status"].as_str(), done["work_ref"].as_str()),
        (Some("done"), Some("job-42"))
    );
    assert_eq!(done["diff"]["holes"], serde_json::json!(["b"]));
    // After completion the lease is spent (agentstate accepted later events).
    let v = post(
        &s,
        "/event",
        Some(&a),
        &format!(r#"{{"work_ref":"job-42","lease":"{lease}","step":"late"}}"#),
        409,
    );
    assert!(v["error"].as_str().is_some());
    let v = post(
        &s,
        "/heartbeat",
        Some(&a),
        &format!(r#"{{"work_ref":"job-42","lease":"{lease}"}}"#),
        409,
    );
    assert!(v["error"].as_str().is_some());

    // Bad input: locker's statuses and bodies.
    assert_eq!(
        post(&s, "/lease", Some(&a), r#"{"ttl":5}"#, 400)["detail"],
        "`work_ref` is required"
    );
    assert_eq!(
        post(&s, "/lease", Some(&a), "[]", 400)["detail"],
        "the body must be one JSON object"
    );
    assert_eq!(s.curl_json("/ledger", &[], 400)["detail"], "`work` is required");
    let v = post(&s, "/heartbeat", Some(&a), r#"{"work_ref":"nope","lease":"x"}"#, 404);
    assert!(v["error"].as_str().is_some());
    post(&s, "/lease", Some("af_not-a-token"), r#"{"work_ref":"j"}"#, 401);
    assert_eq!(env.json(&["verify"])["ok"], true);
}

#[test]
fn test_serve_lease_routes_without_tokens_unless_required() {
    let env = TestEnv::init();
    let s = env.serve(&[]);
    // Anonymous callers, as with agentstate, naming a holder if they like.
    let l = post(&s, "/lease", None, r#"{"work_ref":"j","holder":"bot-1"}"#, 200);
    assert_eq!(l["holder"], "bot-1");
    let held = post(&s, "/lease", None, r#"{"work_ref":"j","holder":"bot-2"}"#, 409);
    assert_eq!(held["error"], "lease_held");
    let plain = post(&s, "/lease", None, r#"{"work_ref":"k"}"#, 200);
    assert_eq!(plain["holder"], "anonymous");
    drop(s);
    let s = env.serve(&["--require-token"]);
    let e = post(&s, "/lease", None, r#"{"work_ref":"m"}"#, 401);
    assert_eq!(e["error"], "unauthorized");
    let e = s.curl_json("/ledger?work=j", &[], 401);
    assert_eq!(e["error"], "unauthorized");
    // Creating a pad is a write with no credential of its own: it needs a token too; the
    // pad's own routes take its write key as before. See: #18.
    let e = s.curl_json("/v1/pads", &["-X", "POST", "-d", "{}"], 401);
    assert_eq!(e["error"], "unauthorized");
    let tok = token(&env, "maker");
    let pad = s.curl_json(
        "/v1/pads",
        &["-X", "POST", "-H", &format!("Authorization: Bearer {tok}"), "-d", "{}"],
        201,
    );
    let key = format!("Authorization: Bearer {}", pad["write_key"].as_str().unwrap());
    let seal = format!("/v1/pads/{}/seal", pad["pad_id"].as_str().unwrap());
    s.curl_json(&seal, &["-X", "POST", "-H", &key], 200);
}

#[test]
fn test_serve_remote_lease_commands_give_the_local_answers() {
    let env = TestEnv::init();
    let tok = token(&env, "worker-a");
    let s = env.serve(&[]);
    let url = s.url();
    let run = |remote: bool, args: &[&str]| {
        let mut cmd = env.locker();
        cmd.env("LOCKER_TOKEN", &tok);
        if remote {
            cmd.args(["--remote", &url]);
        }
        cmd.args(args).output().unwrap()
    };
    let ok = |out: std::process::Output| -> Value {
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let l = ok(run(true, &["--json", "lease", "acquire", "w1", "--ttl", "120"]));
    let lease = l["lease_id"].as_str().unwrap().to_owned();
    std::fs::write(env.path().join("plan.json"), r#"["build","test"]"#).unwrap();
    ok(run(
        true,
        &["--json", "manifest", "commit", "w1", "--lease", &lease, "--file", "plan.json"],
    ));
    ok(run(
        true,
        &["--json", "step", "w1", "build", "--lease", &lease, "--executed", "cargo build"],
    ));
    ok(run(true, &["--json", "lease", "heartbeat", "w1", "--lease", &lease]));
    for args in [
        vec!["--json", "lease", "show", "w1"],
        vec!["--json", "lease", "list"],
        vec!["lease", "list"],
        vec!["--json", "manifest", "show", "w1"],
        vec!["--json", "manifest", "diff", "w1"],
        vec!["manifest", "diff", "w1"],
        vec!["--json", "lease", "history", "w1"],
        vec!["--json", "lease", "show", "nope"],
        vec!["--json", "step", "w1", "build", "--lease", &lease, "--executed", "other"],
        vec!["--json", "lease", "acquire", "w1", "--ttl", "0"],
    ] {
        let (r, l) = (run(true, &args), run(false, &args));
        assert_eq!(
            (r.status.code(), &r.stdout, &r.stderr),
            (l.status.code(), &l.stdout, &l.stderr),
            "{args:?}"
        );
    }
    let done =
        ok(run(true, &["--json", "lease", "complete", "w1", "--lease", &lease, "--result", "ok"]));
    assert_eq!(done["state"], "completed");
    ok(run(true, &["--json", "lease", "reap"]));
    let l2 = ok(run(true, &["--json", "lease", "acquire", "w2"]));
    let r = ok(run(
        true,
        &["--json", "lease", "release", "w2", "--lease", l2["lease_id"].as_str().unwrap()],
    ));
    assert_eq!(r["state"], "released");
    assert_eq!(env.json(&["verify"])["ok"], true);
}
