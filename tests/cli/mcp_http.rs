//! `locker serve`'s `POST /mcp`: MCP over Streamable HTTP, driven by real clients against a
//! real server on loopback, in both protocol eras:
//! - the official Python SDK (`mcp` 2.3.0) through `tests/cli/mcp_client.py` with an `http://`
//!   URL (its `streamable_http_client`), `legacy` (the `initialize` handshake) and `2026-07-28`;
//! - the MCP Inspector CLI with `--transport http`, its default era and `--protocol-era modern`;
//! - both again over MCP's 2024-11-05 transport (`GET /mcp/sse`, `POST /mcp/messages`): the
//!   SDK's `sse_client` and the Inspector's `--transport sse`;
//! - curl, for what the edge refuses before MCP is spoken.
//!
//! The clients come from `scripts/test-deps-mcp.sh` (see `mcp.rs`).

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{json, Value};

use super::mcp::{
    call, deposit_args, driver, envelope, expected_head, inspector, outcome, python, MODES, NOTES,
};
use crate::common::server::Server;
use crate::common::TestEnv;

/// One Python SDK session (`mode`) against `url` over Streamable HTTP, with `token` as its
/// bearer token and `headers` besides; returns the driver's report (`{"connect_error"}` when
/// it could not connect).
fn http_session(
    py: &Path,
    mode: &str,
    url: &str,
    token: Option<&str>,
    headers: &Value,
    steps: &Value,
) -> Value {
    let report = drive(py, mode, url, token, &[("MCP_HEADERS", &headers.to_string())], steps);
    if report.get("connect_error").is_none() {
        let want = if mode == "legacy" { "2025-11-25" } else { mode };
        assert_eq!(report["protocol_version"], want, "{mode}: negotiated version");
    }
    report
}

/// [`http_session`] over the 2024-11-05 transport (the SDK's `sse_client`).
fn sse_session(py: &Path, mode: &str, url: &str, token: Option<&str>, steps: &Value) -> Value {
    drive(py, mode, url, token, &[("MCP_TRANSPORT", "sse")], steps)
}

/// Runs `tests/cli/mcp_client.py MODE URL` with `vars` and the bearer token, `steps` on stdin.
fn drive(
    py: &Path,
    mode: &str,
    url: &str,
    token: Option<&str>,
    vars: &[(&str, &str)],
    steps: &Value,
) -> Value {
    let mut cmd = Command::new(py);
    cmd.env_clear().env("PATH", std::env::var_os("PATH").unwrap_or_default());
    for (k, v) in vars {
        cmd.env(k, v);
    }
    if let Some(t) = token {
        cmd.env("MCP_BEARER_TOKEN", t);
    }
    let mut child = cmd
        .arg(driver())
        .arg(mode)
        .arg(url)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the Python MCP client starts");
    child.stdin.take().unwrap().write_all(steps.to_string().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "the Python MCP client ({mode}) failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the driver prints JSON")
}

/// [`http_session`] that must connect: the report's steps.
fn steps_as(py: &Path, mode: &str, url: &str, token: &str, steps: &Value) -> Vec<Value> {
    let report = http_session(py, mode, url, Some(token), &json!({}), steps);
    assert!(report.get("connect_error").is_none(), "{mode}: {report}");
    report["steps"].as_array().unwrap().clone()
}

/// Each call's outcome, all of them successes.
fn successes(mode: &str, steps: &[Value]) -> Vec<Value> {
    steps
        .iter()
        .map(|s| {
            let (is_error, v) = outcome(s);
            assert!(!is_error, "{mode}: {v}");
            v
        })
        .collect()
}

/// A new token of `agent` in `scope`.
fn token(env: &TestEnv, agent: &str, scope: &str) -> String {
    let t = env.json(&["token", "create", "--agent", agent, "--scope", scope]);
    t["token"].as_str().unwrap().to_owned()
}

fn mcp_url(server: &Server) -> String {
    format!("{}/mcp", server.url())
}

fn names(tools: &Value) -> Vec<String> {
    tools.as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect()
}

/// The tools `locker mcp ARGS` lists over stdio (the reference the HTTP listing must equal).
fn stdio_names(env: &TestEnv, args: &[&str]) -> Vec<String> {
    let mut child = env
        .process()
        .arg("mcp")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"}
    });
    let list =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}});
    writeln!(child.stdin.take().unwrap(), "{list}").unwrap();
    let out = child.wait_with_output().unwrap();
    let answer: Value = serde_json::from_slice(&out.stdout).expect("one JSON answer");
    names(&answer["result"]["tools"])
}

#[test]
fn test_mcp_http_python_read_only_lists_only_the_read_only_tools() {
    let Some(py) = python() else { return };
    let env = TestEnv::init();
    let agent = token(&env, "reader", "team");
    let server = env.serve(&["--require-token", "--mcp-read-only"]);
    let url = mcp_url(&server);
    let reads = stdio_names(&env, &["--read-only"]);
    assert!(reads.contains(&"locker_read_blocks".to_owned()), "{reads:?}");
    for mode in MODES {
        let before = env.fingerprint();
        let steps = steps_as(
            &py,
            mode,
            &url,
            &agent,
            &json!([{"list_tools": true}, call("locker_create", json!({})),
                call("locker_verify", json!({}))]),
        );
        let tools = &steps[0]["tools"];
        assert_eq!(names(tools), reads, "{mode}: exactly the read-only tools, in order");
        for t in tools.as_array().unwrap() {
            assert_eq!(t["annotations"]["readOnlyHint"], true, "{mode}: {}", t["name"]);
        }
        let refused = steps[1]["exception"].as_str().expect("a tool not offered is refused");
        assert!(refused.contains("not enabled") && refused.contains("read-only"), "{refused}");
        assert_eq!(outcome(&steps[2]).1["ok"], true, "{mode}: a read-only server still reads");
        assert_eq!(env.fingerprint(), before, "{mode}: nothing changed");
    }
    drop(server);

    // Toolsets too, with the same names as `locker mcp`'s; a selection of nothing is refused.
    let server = env.serve(&["--mcp-toolsets", "work", "--mcp-read-only"]);
    let report = http_session(
        &py,
        "legacy",
        &mcp_url(&server),
        None,
        &json!({}),
        &json!([
            {"list_tools": true}
        ]),
    );
    assert_eq!(
        names(&report["steps"][0]["tools"]),
        stdio_names(&env, &["--toolsets", "work", "--read-only"])
    );
    drop(server);
    let out = env
        .locker()
        .args(["--json", "serve", "--listen", "127.0.0.1:0", "--mcp-toolsets", "admin"])
        .arg("--mcp-read-only")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let e: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert!(e["detail"].as_str().unwrap().contains("no tool"), "{e}");
}

#[test]
fn test_mcp_http_python_handoff_as_the_tokens_agent() {
    let Some(py) = python() else { return };
    let env = TestEnv::init();
    let planner = token(&env, "planner", "team");
    let worker = token(&env, "worker", "team");
    let server = env.serve(&["--require-token"]);
    let url = mcp_url(&server);
    for (planner_mode, worker_mode) in [("legacy", "2026-07-28"), ("2026-07-28", "legacy")] {
        // The planner builds a pad call by call, seals it and mints the worker a ticket.
        let created = successes(
            planner_mode,
            &steps_as(
                &py,
                planner_mode,
                &url,
                &planner,
                &json!([call("locker_create", json!({"ttl_seconds": 600, "max_blocks": 8}))]),
            ),
        );
        let pad = created[0]["pad_id"].as_str().unwrap().to_owned();
        let key = created[0]["write_key"].as_str().unwrap().to_owned();
        let written = successes(
            planner_mode,
            &steps_as(
                &py,
                planner_mode,
                &url,
                &planner,
                &json!([
                    call(
                        "locker_append",
                        json!({"pad_id": pad, "write_key": key, "payload": envelope()})
                    ),
                    call(
                        "locker_append",
                        json!({"pad_id": pad, "write_key": key,
                        "payload": {"steps": ["read", "fix", "test"], "estimate": 1.0}})
                    ),
                    call(
                        "locker_append",
                        json!({"pad_id": pad, "write_key": key, "payload": NOTES,
                        "content_type": "text/plain"})
                    ),
                    call("locker_seal", json!({"pad_id": pad, "write_key": key})),
                    call("locker_mint_ticket", json!({"pad_id": pad, "write_key": key})),
                ]),
            ),
        );
        let head = written[3]["head_hash"].as_str().unwrap().to_owned();
        assert_eq!(head, expected_head(), "{planner_mode}: the same bytes as over stdio");
        let ticket = written[4]["ticket"].as_str().unwrap().to_owned();

        // The worker, another agent in another session and era, reads and verifies it.
        let read = successes(
            worker_mode,
            &steps_as(
                &py,
                worker_mode,
                &url,
                &worker,
                &json!([
                    call(
                        "locker_read_blocks",
                        json!({"pad_id": pad, "ticket": ticket, "from_block": 0, "to_block": 2,
                        "expected_head_hash": head})
                    ),
                    call("locker_verify_pad", json!({"pad_id": pad, "expected_head_hash": head})),
                    call("locker_proof_inclusion", json!({"pad_id": pad, "block": 2})),
                    call("locker_lease_acquire", json!({"work": format!("fix-{worker_mode}")})),
                ]),
            ),
        );
        assert_eq!(read[0]["integrity"]["verdict"], "trusted_head_match", "{worker_mode}");
        let task: Value =
            serde_json::from_str(read[0]["blocks"][0]["payload_utf8"].as_str().unwrap()).unwrap();
        assert_eq!(task["to_agent"], "worker");
        assert_eq!(read[0]["blocks"][2]["payload_utf8"], NOTES);
        assert_eq!(read[1]["ok"], true);
        assert_eq!(read[1]["expected_head"]["matches"], true);
        // The checkpoint covers the writes made just before (the signer caught up first).
        assert_eq!(read[2]["kind"], "pad.append", "{}", read[2]);
        assert_eq!(read[2]["subject"], format!("pad:{pad}"));
        assert!(read[2]["size"].as_u64().unwrap() >= read[2]["seq"].as_u64().unwrap());
        assert_eq!(read[3]["holder"], "worker");
        assert_eq!(read[3]["scope"], "team");

        // The journal names the token's agent as the actor of each write, in its scope.
        let entries: Vec<Value> = env
            .locker()
            .args(["--json", "log", "--subject", &format!("pad:{pad}"), "--reverse"])
            .output()
            .map(|o| {
                String::from_utf8_lossy(&o.stdout)
                    .lines()
                    .map(|l| serde_json::from_str(l).unwrap())
                    .collect()
            })
            .unwrap();
        let acts: Vec<(&str, &str)> = entries
            .iter()
            .map(|e| (e["kind"].as_str().unwrap(), e["actor"].as_str().unwrap()))
            .collect();
        assert_eq!(
            acts,
            [
                ("pad.create", "planner"),
                ("pad.append", "planner"),
                ("pad.append", "planner"),
                ("pad.append", "planner"),
                ("pad.seal", "planner"),
                ("pad.ticket", "planner"),
            ],
            "{entries:?}"
        );
        assert!(entries.iter().all(|e| e["scope"] == "team"), "{entries:?}");
    }
    // The repository the server wrote verifies, as the CLI sees it.
    let (code, report) = env.verify();
    assert_eq!((code, report["ok"].clone()), (0, json!(true)), "{report}");
    let (_, log) = server.stop();
    assert!(log.contains("POST /mcp 200"), "{log}");
    assert!(log.contains("actor=planner scope=team"), "the access log names the agent: {log}");
    assert!(!log.contains(&planner), "no token in the log");
}

#[test]
fn test_mcp_http_a_scope_keeps_its_pads_and_artifacts() {
    let Some(py) = python() else { return };
    let env = TestEnv::init();
    let alice = token(&env, "alice", "team-a");
    let bob = token(&env, "bob", "team-b");
    let server = env.serve(&["--require-token"]);
    let url = mcp_url(&server);
    for mode in MODES {
        let key = format!("plan-{mode}");
        let done = successes(
            mode,
            &steps_as(
                &py,
                mode,
                &url,
                &alice,
                &json!([
                    call("locker_deposit", deposit_args()),
                    call(
                        "locker_artifact_publish",
                        json!({"key": key, "expected_version": 0,
                        "operation_id": format!("op-{mode}"), "content": "alice's plan"})
                    ),
                    call("locker_pad_list", json!({})),
                ]),
            ),
        );
        let pad = done[0]["pad_id"].as_str().unwrap().to_owned();
        assert!(done[2]["pads"].as_array().unwrap().iter().any(|p| p["pad_id"] == pad.as_str()));

        let steps = steps_as(
            &py,
            mode,
            &url,
            &bob,
            &json!([
                call("locker_pad_list", json!({})),
                call("locker_artifact_get", json!({"key": key})),
                call("locker_read_blocks", json!({"pad_id": pad, "ticket": "not-the-ticket"})),
                call("locker_log", json!({"subject": format!("pad:{pad}")})),
            ]),
        );
        let (is_error, listed) = outcome(&steps[0]);
        assert!(!is_error, "{mode}: {listed}");
        assert_eq!(listed["pads"], json!([]), "{mode}: bob sees his own scope's pads only");
        let (is_error, e) = outcome(&steps[1]);
        assert!(is_error, "{mode}: {e}");
        assert_eq!(e["error"], "not_found", "{mode}: {e}");
        let (is_error, e) = outcome(&steps[2]);
        assert!(is_error, "{mode}: {e}");
        assert_eq!(e["error"], "unauthorized", "{mode}: {e}");
        let (is_error, log) = outcome(&steps[3]);
        assert!(!is_error, "{mode}: {log}");
        assert!(!log.to_string().contains("alice's plan"), "{mode}: {log}");
        for entry in log["entries"].as_array().unwrap() {
            assert_ne!(entry["actor"], "alice", "{mode}: another scope's entries are redacted");
        }
    }
}

/// Whether the client got nowhere: it could not connect (the handshake era), or its first
/// request failed (2026-07-28 has no handshake).
fn refused(report: &Value) -> bool {
    report["connect_error"].is_string() || report["steps"][0]["exception"].is_string()
}

/// `curl -i` against `/mcp`: (status, headers and body as text).
fn curl_mcp(server: &Server, headers: &[&str], body: &str) -> (u16, String) {
    let mut args = vec!["-i", "-X", "POST", "-H", "Accept: application/json, text/event-stream"];
    for h in headers {
        args.extend(["-H", h]);
    }
    args.extend(["-d", body]);
    server.curl("/mcp", &args)
}

/// The JSON body of a `curl -i` answer.
fn body_json(text: &str) -> Value {
    let body = text.split("\r\n\r\n").last().unwrap();
    serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

#[test]
fn test_mcp_http_edge_refuses_before_mcp_is_spoken() {
    let env = TestEnv::init();
    let agent = token(&env, "worker", "team");
    let server = env.serve(&["--require-token"]);
    let before = env.fingerprint();
    let list = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    let create = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"locker_create","arguments":{}}}"#;

    // No token with --require-token, and a token nobody issued: 401, the flat error object
    // and `WWW-Authenticate: Bearer`.
    for (headers, detail) in [
        (vec![], "requires an agent's bearer token"),
        (vec!["Authorization: Bearer not-a-token"], "unknown token"),
    ] {
        let (status, text) = curl_mcp(&server, &headers, create);
        assert_eq!(status, 401, "{text}");
        assert!(text.to_ascii_lowercase().contains("www-authenticate: bearer"), "{text}");
        let e = body_json(&text);
        assert_eq!(e["error"], "unauthorized");
        assert!(e["detail"].as_str().unwrap().contains(detail), "{e}");
    }
    // A page on another origin (403) or a rebinding host name (421), whatever the token.
    let auth = format!("Authorization: Bearer {agent}");
    let (status, text) = curl_mcp(&server, &[&auth, "Origin: https://evil.example"], list);
    assert_eq!(status, 403, "{text}");
    assert_eq!(body_json(&text)["error"], "origin_not_allowed");
    let (status, text) = curl_mcp(&server, &[&auth, "Host: evil.example"], list);
    assert_eq!(status, 421, "{text}");
    // A form body (what a page may send anywhere): 415.
    let (status, _) = curl_mcp(&server, &[&auth, "Content-Type: text/plain"], list);
    assert_eq!(status, 415);
    // No session stream and no session to end: 405, allowing POST.
    for method in ["GET", "DELETE"] {
        let (status, text) = server.curl("/mcp", &["-i", "-X", method, "-H", &auth]);
        assert_eq!(status, 405, "{method}: {text}");
        assert!(text.to_ascii_lowercase().contains("allow: post"), "{method}: {text}");
    }
    // What is no JSON-RPC message is answered as `locker mcp` answers such a line.
    for (body, code) in [("{not json", -32700), ("[1,2]", -32600), (r#"{"id":7}"#, -32600)] {
        let (status, text) = curl_mcp(&server, &[&auth], body);
        assert_eq!(status, 400, "{body}: {text}");
        assert_eq!(body_json(&text)["error"]["code"], code, "{body}: {text}");
    }
    // The transport's own refusals are JSON too.
    let (status, text) = server.curl("/mcp", &["-i", "-X", "POST", "-H", &auth, "-d", list]);
    assert_eq!(status, 406, "{text}");
    let e = body_json(&text);
    assert_eq!(e["error"], "not_acceptable");
    assert!(e["hints"][0].as_str().unwrap().contains("text/event-stream"), "{e}");
    let (status, text) = curl_mcp(&server, &[&auth, "MCP-Protocol-Version: 1999-01-01"], list);
    assert_eq!(status, 400, "{text}");
    assert_eq!(body_json(&text)["error"], "bad_request");
    // More than the cap: 413 before it is all read.
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"locker_create","arguments":{{"x":"{}"}}}}}}"#,
        "a".repeat(1024 * 1024)
    );
    let file = env.file("big.json", big.as_bytes());
    let (status, text) = curl_mcp(&server, &[&auth], &format!("@{file}"));
    assert_eq!(status, 413, "{text}");
    assert_eq!(env.fingerprint(), before, "nothing refused changed anything");

    // The token works, and the real client sees the refusal too.
    let (status, text) = curl_mcp(&server, &[&auth], create);
    assert_eq!(status, 200, "{text}");
    assert_eq!(body_json(&text)["result"]["isError"], false, "{text}");
    let Some(py) = python() else { return };
    let url = mcp_url(&server);
    for mode in MODES {
        let report =
            http_session(&py, mode, &url, None, &json!({}), &json!([{"list_tools": true}]));
        assert!(refused(&report), "{mode}: {report}");
        assert_eq!(report["http"], json!(["POST 401"]), "{mode}: {report}");
        let report = http_session(
            &py,
            mode,
            &url,
            Some(&agent),
            &json!({"Origin": "https://evil.example"}),
            &json!([{"list_tools": true}]),
        );
        assert!(refused(&report), "{mode}: {report}");
        assert_eq!(report["http"], json!(["POST 403"]), "{mode}: {report}");
    }
}

#[test]
fn test_mcp_http_without_require_token_acts_anonymously() {
    let Some(py) = python() else { return };
    let env = TestEnv::init();
    let server = env.serve(&[]);
    let url = mcp_url(&server);
    for mode in MODES {
        let report = http_session(
            &py,
            mode,
            &url,
            None,
            &json!({}),
            &json!([call("locker_deposit", deposit_args())]),
        );
        let (is_error, d) = outcome(&report["steps"][0]);
        assert!(!is_error, "{mode}: {d}");
        assert_eq!(d["head_hash"], expected_head().as_str(), "{mode}");
    }
    assert_eq!(deposits_by(&env), ["anonymous", "anonymous"]);
}

/// Who made each deposit the journal records but the demo pad the server seeds.
fn deposits_by(env: &TestEnv) -> Vec<String> {
    let out = env.locker().args(["--json", "log", "--kind", "pad.deposit"]).output().unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["subject"] != "pad:demo-pad-v1")
        .map(|e| e["actor"].as_str().unwrap().to_owned())
        .collect()
}

/// Runs the MCP Inspector CLI against `url` with ARGS: over Streamable HTTP, or the 2024-11-05
/// transport for an `…/sse` URL.
fn inspect_url(insp: &Path, home: &Path, url: &str, args: &[&str]) -> (i32, Value, String) {
    let transport = if url.ends_with("/sse") { "sse" } else { "http" };
    let node_bin = insp.parent().unwrap();
    let path = std::env::join_paths(
        std::iter::once(node_bin.to_path_buf())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    let out = Command::new(insp)
        .arg("--cli")
        .arg(url)
        .args(["--transport", transport])
        .args(args)
        .env_clear()
        .env("HOME", home)
        .env("PATH", path)
        .env("MCP_INSPECTOR_SECRET_STORE", "memory")
        .current_dir(home)
        .stdin(Stdio::null())
        .output()
        .expect("the MCP Inspector runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let value = serde_json::from_str(stdout.trim()).unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), value, String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn test_mcp_http_inspector_lists_and_calls_tools_in_both_eras() {
    let Some(insp) = inspector() else { return };
    let env = TestEnv::init();
    let agent = token(&env, "inspector", "team");
    let server = env.serve(&["--require-token"]);
    let url = mcp_url(&server);
    let auth = format!("Authorization: Bearer {agent}");
    for era in [&[][..], &["--protocol-era", "modern"][..]] {
        let with = |rest: &[&str]| -> Vec<String> {
            era.iter()
                .chain(&["--header", auth.as_str()])
                .chain(rest)
                .map(ToString::to_string)
                .collect()
        };
        let args = with(&["--method", "tools/list", "--format", "json", "--strict"]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, list, stderr) = inspect_url(&insp, env.path(), &url, &args);
        assert_eq!(code, 0, "{era:?}: tools/list (strict schema portability): {stderr}");
        let names = names(&list["result"]["tools"]);
        assert!(names.contains(&"locker_deposit".to_owned()), "{era:?}: {names:?}");
        assert!(names.contains(&"locker_read_blocks".to_owned()), "{era:?}: {names:?}");

        let deposit = deposit_args().to_string();
        let args = with(&[
            "--method",
            "tools/call",
            "--tool-name",
            "locker_deposit",
            "--tool-args-json",
            &deposit,
            "--format",
            "json",
        ]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, r, stderr) = inspect_url(&insp, env.path(), &url, &args);
        assert_eq!(code, 0, "{era:?}: tools/call: {stderr}");
        assert_eq!(r["result"]["structuredContent"]["status"], "sealed", "{r}");

        // Without the token the Inspector cannot connect.
        let args: Vec<String> = era
            .iter()
            .chain(&["--method", "tools/list", "--format", "json"])
            .map(ToString::to_string)
            .collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, _, stderr) = inspect_url(&insp, env.path(), &url, &args);
        assert_ne!(code, 0, "{era:?}: {stderr}");

        // The 2024-11-05 transport lists the same tools.
        let sse = format!("{}/mcp/sse", server.url());
        let args = with(&["--method", "tools/list", "--format", "json"]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, over_sse, stderr) = inspect_url(&insp, env.path(), &sse, &args);
        assert_eq!(code, 0, "{era:?}: tools/list over SSE: {stderr}");
        assert_eq!(self::names(&over_sse["result"]["tools"]), names, "{era:?}");
    }
    assert_eq!(deposits_by(&env), ["inspector", "inspector"]);
}

#[test]
fn test_mcp_http_sse_transport_of_2024_11_05_in_both_eras() {
    let Some(py) = python() else { return };
    let env = TestEnv::init();
    let alice = token(&env, "alice", "team");
    let bob = token(&env, "bob", "team");
    let server = env.serve(&["--require-token"]);
    let url = format!("{}/mcp/sse", server.url());
    for mode in MODES {
        let steps = json!([{"list_tools": true}, call("locker_deposit", deposit_args())]);
        let report = sse_session(&py, mode, &url, Some(&alice), &steps);
        assert!(report.get("connect_error").is_none(), "{mode}: {report}");
        let want = if mode == "legacy" { "2025-11-25" } else { mode };
        assert_eq!(report["protocol_version"], want, "{mode}");
        assert_eq!(names(&report["steps"][0]["tools"]), stdio_names(&env, &[]), "{mode}");
        let (is_error, d) = outcome(&report["steps"][1]);
        assert!(!is_error, "{mode}: {d}");
        assert_eq!(d["head_hash"], expected_head().as_str(), "{mode}: the same bytes");
        let http = report["http"].as_array().unwrap();
        assert_eq!(http[0], "GET 200", "{mode}: {report}");
        assert!(http[1..].iter().all(|h| h == "POST 202"), "{mode}: {report}");
        // Without a token the stream is not opened.
        let report = sse_session(&py, mode, &url, None, &json!([{"list_tools": true}]));
        assert!(refused(&report), "{mode}: {report}");
        assert_eq!(report["http"], json!(["GET 401"]), "{mode}: {report}");
    }
    assert_eq!(deposits_by(&env), ["alice", "alice"]);

    // A session answers its opener only: another agent's post is refused as if there were no
    // such session, the opener's is accepted.
    let mut stream = Command::new("curl")
        .args(["-sN", "-H", &format!("Authorization: Bearer {alice}"), &url])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    {
        use std::io::BufRead as _;
        let mut lines = std::io::BufReader::new(stream.stdout.as_mut().unwrap());
        while !first.contains("session_id=") {
            assert!(lines.read_line(&mut first).unwrap() > 0, "the stream ended: {first}");
        }
    }
    let endpoint = first.lines().find_map(|l| l.strip_prefix("data: ")).unwrap().to_owned();
    assert!(endpoint.starts_with("messages?session_id="), "{endpoint}");
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let post = |token: &str| {
        server.curl(
            &format!("/mcp/{endpoint}"),
            &["-X", "POST", "-H", &format!("Authorization: Bearer {token}"), "-d", ping],
        )
    };
    let (status, body) = post(&bob);
    assert_eq!(status, 404, "{body}");
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap()["error"], "not_found");
    assert_eq!(post(&alice).0, 202);
    let (status, body) = server.curl(
        "/mcp/messages?session_id=nope",
        &["-X", "POST", "-H", &format!("Authorization: Bearer {alice}"), "-d", ping],
    );
    assert_eq!(status, 404, "{body}");
    let _ = stream.kill();
    let _ = stream.wait();
}

#[test]
fn test_mcp_http_an_allowed_web_origin_gets_cors_for_mcp() {
    let env = TestEnv::init();
    let server = env.serve(&["--allow-origin", "https://app.example"]);
    let origin = "Origin: https://app.example";
    let (status, head) = server.curl(
        "/mcp",
        &[
            "-i",
            "-X",
            "OPTIONS",
            "-H",
            origin,
            "-H",
            "Access-Control-Request-Method: POST",
            "-H",
            "Access-Control-Request-Headers: authorization, content-type, mcp-protocol-version",
        ],
    );
    assert_eq!(status, 204, "{head}");
    let head = head.to_ascii_lowercase();
    assert!(head.contains("access-control-allow-origin: https://app.example"), "{head}");
    assert!(head.contains("mcp-protocol-version"), "{head}");
    let list = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    let (status, text) = curl_mcp(&server, &[origin, "MCP-Protocol-Version: 2025-06-18"], list);
    assert_eq!(status, 200, "{text}");
    assert!(text.to_ascii_lowercase().contains("access-control-allow-origin: https://app.example"));
    assert_eq!(names(&body_json(&text)["result"]["tools"]), stdio_names(&env, &[]));
}
