//! Attack: a web page the developer visits acts on their local `locker serve` (#18, item 1):
//! "simple" `text/plain` POSTs that need no preflight, a foreign `Origin`, DNS rebinding (a
//! `Host` that is the attacker's name), and anonymous callers using or squatting an agent's
//! leases.

use serde_json::Value;

use super::{bearer, token};
use crate::common::TestEnv;

#[test]
fn test_security_a_page_cannot_post_text_plain_to_the_lease_api() {
    let env = TestEnv::init();
    let s = env.serve(&[]);
    for ct in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]
    {
        let h = format!("Content-Type: {ct}");
        let e = s.curl_json(
            "/lease",
            &["-X", "POST", "-H", &h, "-d", r#"{"work_ref":"job","ttl":2592000}"#],
            415,
        );
        assert_eq!(e["error"], "unsupported_media_type", "{ct}: {e}");
    }
    // Nothing was leased.
    assert_eq!(env.json(&["lease", "list"])["leases"], serde_json::json!([]));
    // The pad API too, but for append's raw block (which needs the write key).
    let e =
        s.curl_json("/v1/pads", &["-X", "POST", "-H", "Content-Type: text/plain", "-d", "{}"], 415);
    assert_eq!(e["error"], "unsupported_media_type");
}

#[test]
fn test_security_a_foreign_origin_is_refused_an_allowed_one_gets_cors() {
    let env = TestEnv::init();
    let s = env.serve(&["--allow-origin", "https://app.example"]);
    let evil = "Origin: https://evil.example";
    let e = s.curl_json("/v1/leases", &["-H", evil], 403);
    assert_eq!(e["error"], "origin_not_allowed");
    let e = s.curl_json("/lease", &["-X", "POST", "-H", evil, "-d", r#"{"work_ref":"j"}"#], 403);
    assert_eq!(e["error"], "origin_not_allowed");
    // questlock's routes answer in questlock's shape.
    let e = s.curl_json("/v1/artifacts", &["-H", evil], 403);
    assert_eq!(e["code"], "origin_not_allowed");
    // The allowed origin: CORS on answers, and its preflights.
    let (code, head) = s.curl("/v1/leases", &["-i", "-H", "Origin: https://app.example"]);
    assert_eq!(code, 200);
    assert!(
        head.to_ascii_lowercase().contains("access-control-allow-origin: https://app.example"),
        "{head}"
    );
    let (code, head) = s.curl(
        "/lease",
        &[
            "-i",
            "-X",
            "OPTIONS",
            "-H",
            "Origin: https://app.example",
            "-H",
            "Access-Control-Request-Method: POST",
        ],
    );
    assert_eq!(code, 204, "{head}");
    assert!(
        head.to_ascii_lowercase()
            .contains("access-control-allow-headers: authorization, content-type"),
        "{head}"
    );
    // No origin at all (curl, scripts, the peers' clients): served as before.
    s.curl_json("/v1/leases", &[], 200);
    // By default no origin is allowed.
    let s = env.serve(&[]);
    s.curl_json("/v1/leases", &["-H", "Origin: https://app.example"], 403);
    s.curl_json("/v1/leases", &["-H", "Origin: null"], 403);
}

#[test]
fn test_security_dns_rebinding_is_refused_by_host() {
    let env = TestEnv::init();
    let s = env.serve(&[]);
    // The attacker's name, resolved to 127.0.0.1: a read of the leases, then a complete.
    let rebind = "Host: attacker.example:8000";
    let e = s.curl_json("/v1/leases", &["-H", rebind], 421);
    assert_eq!(e["error"], "misdirected_request", "{e}");
    s.curl_json(
        "/complete",
        &["-X", "POST", "-H", rebind, "-d", r#"{"work_ref":"j","lease":"l"}"#],
        421,
    );
    s.curl_json("/health", &["-H", "Host: 127.0.0.1.attacker.example"], 421);
    // Loopback names and addresses are served.
    for host in ["localhost:1", "127.0.0.1", "[::1]:8000", "LocalHost"] {
        s.curl_json("/v1/leases", &["-H", &format!("Host: {host}")], 200);
    }
    // And the names the operator allows.
    let s = env.serve(&["--allow-host", "locker.internal"]);
    s.curl_json("/v1/leases", &["-H", "Host: locker.internal:8443"], 200);
    s.curl_json("/v1/leases", &["-H", rebind], 421);
}

#[test]
fn test_security_an_agents_lease_needs_its_token() {
    let env = TestEnv::init();
    let tok = token(&env, "worker", "default");
    let s = env.serve(&[]);
    let auth = bearer(&tok);
    let l = s.curl_json("/lease", &["-X", "POST", "-H", &auth, "-d", r#"{"work_ref":"job"}"#], 200);
    let lease = l["lease_id"].as_str().unwrap();
    // An anonymous caller who learned the lease id can neither heartbeat nor complete it.
    let body = format!(r#"{{"work_ref":"job","lease":"{lease}","result":"forged"}}"#);
    for route in ["/heartbeat", "/complete", "/v1/lease/release", "/event", "/manifest"] {
        let body = body.replace('}', r#","step":"s","steps":["s"]}"#);
        let e = s.curl_json(route, &["-X", "POST", "-d", &body], 403);
        assert_eq!(e["error"], "forbidden", "{route}: {e}");
    }
    // Nor take a lease in a registered agent's name.
    let e = s.curl_json(
        "/lease",
        &["-X", "POST", "-d", r#"{"work_ref":"other","holder":"worker"}"#],
        403,
    );
    assert_eq!(e["error"], "forbidden", "{e}");
    // The agent's own token still works; the lease was untouched.
    let done = s.curl_json(
        "/complete",
        &[
            "-X",
            "POST",
            "-H",
            &auth,
            "-d",
            &format!(r#"{{"work_ref":"job","lease":"{lease}","result":"real"}}"#),
        ],
        200,
    );
    assert_eq!(done["result"], "real");
    // Anonymous leases (agentstate's model) still work between anonymous callers.
    let l = s.curl_json(
        "/lease",
        &["-X", "POST", "-d", r#"{"work_ref":"anon","holder":"bot-1"}"#],
        200,
    );
    let body = format!(r#"{{"work_ref":"anon","lease":"{}"}}"#, l["lease_id"].as_str().unwrap());
    s.curl_json("/heartbeat", &["-X", "POST", "-d", &body], 200);
}

#[test]
fn test_security_allow_remote_http_requires_tokens_by_default_and_says_so() {
    let env = TestEnv::init();
    let s = env.serve(&["--allow-remote-http"]);
    let e = s.curl_json("/lease", &["-X", "POST", "-d", r#"{"work_ref":"j"}"#], 401);
    assert_eq!(e["error"], "unauthorized");
    s.curl_json("/v1/pads", &["-X", "POST", "-d", "{}"], 401);
    s.curl_json("/v1/leases/reap", &["-X", "POST"], 401);
    let (_, log) = s.stop();
    assert!(log.contains("--require-token is the default"), "{log}");
    // Turned off on purpose, with a warning.
    let s = env.serve(&["--allow-remote-http", "--require-token=false"]);
    let l: Value = s.curl_json("/lease", &["-X", "POST", "-d", r#"{"work_ref":"j"}"#], 200);
    assert_eq!(l["holder"], "anonymous");
    let (_, log) = s.stop();
    assert!(log.contains("warning: --allow-remote-http with --require-token=false"), "{log}");
}
