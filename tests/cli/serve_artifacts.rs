//! questlock's artifact API on `locker serve`, with curl, and the remote CLI's artifact
//! commands.

use serde_json::Value;

use crate::common::server::Server;
use crate::common::TestEnv;

fn token(env: &TestEnv, agent: &str, scope: &str) -> String {
    let v = env.json(&["token", "create", "--agent", agent, "--scope", scope]);
    v["token"].as_str().unwrap().to_owned()
}

fn publish(s: &Server, tok: &str, body: &str, status: u16) -> Value {
    s.curl_json(
        "/v1/artifact",
        &["-X", "POST", "-H", &format!("Authorization: Bearer {tok}"), "--data-binary", body],
        status,
    )
}

fn qerr(v: &Value) -> (&str, &str) {
    (v["code"].as_str().unwrap_or("?"), v["message"].as_str().unwrap_or("?"))
}

#[test]
fn test_serve_artifact_api_like_questlock() {
    let env = TestEnv::init();
    let tok = token(&env, "worker-a", "demo");
    let other = token(&env, "worker-b", "elsewhere");
    let s = env.serve(&[]);
    assert_eq!(s.curl_json("/healthz", &[], 200), serde_json::json!({"status": "ok"}));
    let auth = format!("Authorization: Bearer {tok}");

    // Authentication first: 401 with WWW-Authenticate, questlock's body.
    let (code, head) = s.curl("/v1/artifact?key=a", &["-i"]);
    assert_eq!(code, 401);
    let lower = head.to_ascii_lowercase();
    assert!(lower.contains("www-authenticate: bearer"), "{head}");
    assert!(
        lower.contains("cache-control: no-store")
            && lower.contains("x-content-type-options: nosniff")
    );
    assert!(head.contains(r#""code":"unauthorized""#), "{head}");
    let v = s.curl_json("/v1/artifact?key=a", &["-H", "Authorization: Bearer af_nope"], 401);
    assert_eq!(qerr(&v).0, "unauthorized");

    let before = env.fingerprint();
    for (body, message) in [
        ("{", "body must contain exactly one valid JSON object with known fields"),
        ("[]", "body must contain exactly one valid JSON object with known fields"),
        (
            r#"{"key":"a","expected_version":"0","operation_id":"o","content":""}"#,
            "body must contain exactly one valid JSON object with known fields",
        ),
        (
            r#"{"key":"a","expected_version":0,"operation_id":"o","content":"","x":1}"#,
            "body must contain exactly one valid JSON object with known fields",
        ),
        (
            r#"{"key":"a","operation_id":"o","content":""}"#,
            "expected_version is required and must be an integer",
        ),
        (
            r#"{"key":"a","expected_version":0,"operation_id":"o"}"#,
            "content is required and must be a string (empty is allowed)",
        ),
    ] {
        let v = publish(&s, &tok, body, 400);
        assert_eq!(qerr(&v), ("invalid", message), "{body}");
    }
    let v = publish(
        &s,
        &tok,
        r#"{"key":"../x","expected_version":0,"operation_id":"o","content":""}"#,
        400,
    );
    assert_eq!(qerr(&v).0, "invalid");
    let v = s.curl_json(
        "/v1/artifact",
        &["-X", "POST", "-H", &auth, "-H", "Content-Length: 7000000", "-d", "{}"],
        413,
    );
    assert_eq!(qerr(&v), ("too_large", "request body exceeds the size limit"));
    assert_eq!(env.fingerprint(), before, "bad input changes nothing");

    // Create, replay, conflicts.
    let body = r#"{"key":"notes/a.md","expected_version":0,"operation_id":"op-1","content":"one"}"#;
    let v = publish(&s, &tok, body, 200);
    assert_eq!(
        (v["replayed"].as_bool(), v["artifact"]["version"].as_u64()),
        (Some(false), Some(1))
    );
    assert_eq!(v["artifact"]["scope"], "demo");
    assert!(v["artifact"]["updated_at"].as_str().unwrap().ends_with('Z'), "RFC 3339: {v}");
    let again = publish(&s, &tok, body, 200);
    assert_eq!(again["replayed"], true);
    let v = publish(
        &s,
        &tok,
        r#"{"key":"notes/a.md","expected_version":0,"operation_id":"op-1","content":"other"}"#,
        409,
    );
    assert_eq!(
        v,
        serde_json::json!({"code": "operation_conflict", "message": "operation ID was already used with a different request", "current_version": 1})
    );
    let v = publish(
        &s,
        &tok,
        r#"{"key":"notes/a.md","expected_version":0,"operation_id":"op-2","content":"two"}"#,
        409,
    );
    assert_eq!(
        v,
        serde_json::json!({"code": "version_conflict", "message": "expected version does not match current version", "current_version": 1})
    );
    publish(
        &s,
        &tok,
        r#"{"key":"notes/a.md","expected_version":1,"operation_id":"op-3","content":"two"}"#,
        200,
    );

    let v = s.curl_json("/v1/artifact?key=notes/a.md", &["-H", &auth], 200);
    assert_eq!((v["version"].as_u64(), v["content"].as_str()), (Some(2), Some("two")));
    let v = s.curl_json("/v1/artifact?key=notes/a.md&version=1", &["-H", &auth], 200);
    assert_eq!(v["content"], "one");
    let v = s.curl_json("/v1/artifact?key=missing", &["-H", &auth], 404);
    assert_eq!(qerr(&v), ("not_found", "artifact not found"));
    // Another scope sees nothing of this one.
    s.curl_json(
        "/v1/artifact?key=notes/a.md",
        &["-H", &format!("Authorization: Bearer {other}")],
        404,
    );

    let list = s.curl_json("/v1/artifacts", &["-H", &auth], 200);
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(
        (list[0]["key"].as_str(), list[0]["content"].as_str()),
        (Some("notes/a.md"), Some(""))
    );

    let audit = s.curl_json("/v1/audit", &["-H", &auth], 200);
    let outcomes: Vec<&str> =
        audit.as_array().unwrap().iter().map(|e| e["outcome"].as_str().unwrap()).collect();
    assert_eq!(
        outcomes,
        ["accepted", "version_conflict", "operation_conflict", "replayed", "accepted"]
    );
    assert_eq!(audit[0]["agent_id"], "worker-a");
    assert_eq!(audit[1]["current_version"], 1);
    assert_eq!(s.curl_json("/v1/audit?limit=2", &["-H", &auth], 200).as_array().unwrap().len(), 2);
    for bad in ["0", "1001", "abc", "", "1&limit=2"] {
        let v = s.curl_json(&format!("/v1/audit?limit={bad}"), &["-H", &auth], 400);
        assert_eq!(qerr(&v), ("invalid", "limit must be an integer between 1 and 1000"), "{bad}");
    }

    // Routes and methods in questlock's shapes.
    let (code, head) = s.curl("/v1/artifact", &["-i", "-X", "DELETE"]);
    assert_eq!(code, 405);
    assert!(
        head.contains(r#"{"code":"method_not_allowed","message":"method not allowed"}"#),
        "{head}"
    );
    assert_eq!(qerr(&s.curl_json("/v1/artifact/", &[], 404)).0, "not_found");

    // A revoked token is refused at once.
    env.json(&["token", "revoke", "--agent", "worker-a", "--yes"]);
    let v = publish(
        &s,
        &tok,
        r#"{"key":"b","expected_version":0,"operation_id":"op-9","content":""}"#,
        401,
    );
    assert_eq!(qerr(&v).0, "unauthorized");
    assert_eq!(env.json(&["verify"])["ok"], true);
}

#[test]
fn test_serve_remote_artifact_commands_give_the_local_answers() {
    let env = TestEnv::init();
    let tok = token(&env, "worker-a", "demo");
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
    let out = run(
        true,
        &["--json", "artifact", "publish", "k/a", "--data", "v1", "--expect", "0", "--op", "o1"],
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::write(env.path().join("bin"), [0u8, 0xff, 1]).unwrap();
    let out = run(true, &["artifact", "publish", "k/a", "bin", "--expect", "1", "--op", "o2"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Reads: the same bytes and JSON, remote and local.
    for args in [
        vec!["artifact", "get", "k/a"],
        vec!["--json", "artifact", "get", "k/a"],
        vec!["--json", "artifact", "get", "k/a", "--version", "1"],
        vec!["--json", "artifact", "log", "k/a"],
        vec!["--json", "artifact", "list"],
        vec!["artifact", "list"],
    ] {
        let (r, l) = (run(true, &args), run(false, &args));
        assert_eq!((r.status.code(), &r.stdout), (l.status.code(), &l.stdout), "{args:?}");
        assert_eq!(r.status.code(), Some(0), "{args:?}");
    }
    assert_eq!(run(true, &["artifact", "get", "k/a"]).stdout, [0u8, 0xff, 1]);
    // Errors: the same exit codes and JSON objects (the replay writes a journal entry, so it
    // runs once each way; it is idempotent).
    for (args, code) in [
        (
            vec![
                "--json", "artifact", "publish", "k/a", "--data", "x", "--expect", "1", "--op",
                "o3",
            ],
            4,
        ),
        (
            vec![
                "--json", "artifact", "publish", "k/a", "--data", "x", "--expect", "2", "--op",
                "o1",
            ],
            4,
        ),
        (vec!["--json", "artifact", "get", "nope"], 3),
        (vec!["--json", "artifact", "get", "../x"], 6),
    ] {
        let (r, l) = (run(true, &args), run(false, &args));
        assert_eq!(r.status.code(), Some(code), "{args:?}: {}", String::from_utf8_lossy(&r.stderr));
        assert_eq!((r.status.code(), &r.stderr), (l.status.code(), &l.stderr), "{args:?}");
    }
    let replay = run(
        true,
        &["--json", "artifact", "publish", "k/a", "--data", "v1", "--expect", "0", "--op", "o1"],
    );
    let v: Value = serde_json::from_slice(&replay.stdout).unwrap();
    assert_eq!((v["replayed"].as_bool(), v["artifact"]["version"].as_u64()), (Some(true), Some(1)));
    // Without a token the server refuses: exit 5.
    let out =
        env.locker().args(["--json", "--remote", &url, "artifact", "get", "k/a"]).output().unwrap();
    assert_eq!(out.status.code(), Some(5));
}
