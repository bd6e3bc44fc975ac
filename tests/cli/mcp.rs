//! `locker mcp`, driven by real MCP clients in both protocol eras:
//! - the official Python SDK (`mcp` 2.3.0 from PyPI) through `tests/cli/mcp_client.py`, in
//!   `legacy` mode (the `initialize` handshake, 2025-11-25) and `2026-07-28` mode
//!   (`server/discover` era, per-request `_meta`);
//! - the MCP Inspector CLI (`@modelcontextprotocol/inspector` 2.12.0 on Node 22, from npm), in
//!   its default (legacy) era and `--protocol-era modern`;
//! - raw JSON-RPC lines for what no client does on purpose (EOF first, a discovery probe only).
//!
//! The clients are installed by `scripts/test-deps-mcp.sh` under
//! `target/test-deps/mcp-clients/` (or `$LOCKER_TEST_DEPS/mcp-clients/`). Without them these tests FAIL, unless `LOCKER_SKIP_INTEROP=1`.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{json, Value};

use crate::common::{bin, TestEnv};

/// The Python SDK's connect modes under test: the handshake era and the 2026-07-28 era.
pub(crate) const MODES: [&str; 2] = ["legacy", "2026-07-28"];

/// The six tools agent-locker's prompts use.
const PEER_TOOLS: [&str; 6] = [
    "locker_deposit",
    "locker_create",
    "locker_append",
    "locker_seal",
    "locker_manifest",
    "locker_read_blocks",
];

fn deps_dir() -> PathBuf {
    std::env::var_os("LOCKER_TEST_DEPS")
        .map_or_else(
            || Path::new(env!("CARGO_MANIFEST_DIR")).join("target").join("test-deps"),
            PathBuf::from,
        )
        .join("mcp-clients")
}

/// A client installed by `scripts/test-deps-mcp.sh`, or `None` when it is missing and
/// `LOCKER_SKIP_INTEROP=1` (otherwise a missing client fails the test).
pub fn client(rel: &str) -> Option<PathBuf> {
    let path = deps_dir().join(rel);
    if path.exists() {
        return Some(path);
    }
    assert!(
        std::env::var("LOCKER_SKIP_INTEROP").is_ok_and(|v| v == "1"),
        "{} is missing: run `scripts/test-deps-mcp.sh` first (or set LOCKER_SKIP_INTEROP=1 to \
         skip the MCP interoperability tests)",
        path.display()
    );
    None
}

pub(crate) fn python() -> Option<PathBuf> {
    client("venv/bin/python")
}

pub(crate) fn inspector() -> Option<PathBuf> {
    client("npm/node_modules/.bin/mcp-inspector")
}

pub(crate) fn driver() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/mcp_client.py")
}

/// Runs one Python SDK session (`mode`) against `locker -R <env> mcp` with `steps`, and returns
/// the driver's report.
fn session(env: &TestEnv, py: &Path, mode: &str, steps: &Value) -> Value {
    session_as(env, py, mode, None, steps)
}

/// [`session`] with `LOCKER_TOKEN` set for the server.
fn session_as(env: &TestEnv, py: &Path, mode: &str, token: Option<&str>, steps: &Value) -> Value {
    let vars: Vec<(&str, &str)> = token.map(|t| ("LOCKER_TOKEN", t)).into_iter().collect();
    session_in(env.path(), env.now, py, mode, &vars, steps)
}

/// One Python SDK session against `locker -R DIR mcp` run in DIR with `vars` set.
fn session_in(
    dir: &Path,
    now: i64,
    py: &Path,
    mode: &str,
    vars: &[(&str, &str)],
    steps: &Value,
) -> Value {
    let mut cmd = Command::new(py);
    cmd.env_clear();
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let mut child = cmd
        .arg(driver())
        .arg(mode)
        .arg(bin())
        .arg(dir)
        .env("HOME", dir)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("LOCKER_NOW", now.to_string())
        .current_dir(dir)
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
    let report: Value = serde_json::from_slice(&out.stdout).expect("the driver prints JSON");
    let want = if mode == "legacy" { "2025-11-25" } else { mode };
    assert_eq!(report["protocol_version"], want, "{mode}: negotiated version");
    report
}

/// One call's result: `(is_error, value)`, where value is the structured content of a
/// success or the JSON error object of a failure (from the text content).
pub(crate) fn outcome(step: &Value) -> (bool, Value) {
    assert!(step.get("exception").is_none(), "the client raised: {step}");
    let is_error = step["is_error"].as_bool().unwrap();
    let text: Value = serde_json::from_str(step["text"].as_str().expect("a text copy")).unwrap();
    if is_error {
        assert!(step["structured"].is_null(), "errors carry their JSON in the text only");
        (true, text)
    } else {
        assert_eq!(text, step["structured"], "the text copy equals the structured content");
        (false, step["structured"].clone())
    }
}

pub(crate) fn call(tool: &str, args: Value) -> Value {
    json!({"call": tool, "args": args})
}

/// The handoff envelope, as an MCP client sends it.
pub(crate) fn envelope() -> Value {
    json!({
        "schema": "locker.handoff.v1",
        "task_id": "fix-42",
        "from_agent": "planner",
        "to_agent": "worker",
        "constraints": ["tests must pass", "touch only src/"],
        "artifacts": [{"name": "plan", "sha": "é"}],
        "budget_usd": 2.5,
        "allowed_paths": ["src/"]
    })
}

/// The exact block bytes agent-locker's `lockermcp` writes for the deposit in
/// [`deposit_args`]: Python's `json.dumps` with its default separators and ASCII escapes.
const PY_ENVELOPE: &str = r#"{"schema": "locker.handoff.v1", "task_id": "fix-42", "from_agent": "planner", "to_agent": "worker", "constraints": ["tests must pass", "touch only src/"], "artifacts": [{"name": "plan", "sha": "\u00e9"}], "budget_usd": 2.5, "allowed_paths": ["src/"]}"#;
const PY_PLAN: &str = r#"{"steps": ["read", "fix", "test"], "estimate": 1.0}"#;
pub(crate) const NOTES: &str = "free text notes\n";

pub(crate) fn deposit_args() -> Value {
    json!({
        "envelope": envelope(),
        "artifacts": [{"steps": ["read", "fix", "test"], "estimate": 1.0}, NOTES],
    })
}

/// The head the deposit must have, computed from the peer client's bytes.
pub(crate) fn expected_head() -> String {
    locker::domain::chain::head([PY_ENVELOPE.as_bytes(), PY_PLAN.as_bytes(), NOTES.as_bytes()])
        .to_hex()
}

/// Deposits the handoff in one session and returns (pad_id, read_ticket, head_hash).
fn deposit(env: &TestEnv, py: &Path, mode: &str) -> (String, String, String) {
    let report = session(env, py, mode, &json!([call("locker_deposit", deposit_args())]));
    let (is_error, d) = outcome(&report["steps"][0]);
    assert!(!is_error, "{d}");
    (
        d["pad_id"].as_str().unwrap().to_owned(),
        d["read_ticket"].as_str().unwrap().to_owned(),
        d["head_hash"].as_str().unwrap().to_owned(),
    )
}

#[test]
fn test_mcp_python_lists_tools_with_schemas_and_annotations() {
    let Some(py) = python() else { return };
    let env = TestEnv::init();
    for mode in MODES {
        let report = session(&env, &py, mode, &json!([{"list_tools": true}]));
        if mode == "legacy" {
            assert_eq!(report["server_info"]["name"], "locker");
            assert!(report["instructions"].as_str().unwrap().contains("trusted_head_match"));
        }
        let tools = report["steps"][0]["tools"].as_array().unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
        for name in PEER_TOOLS.iter().chain(&["locker_verify_pad", "locker_verify", "locker_log"]) {
            assert!(names.contains(name), "{mode}: {name} missing from {names:?}");
        }
        for t in tools {
            let name = t["name"].as_str().unwrap();
            assert!(t["description"].as_str().unwrap().len() > 80, "{name}: description");
            assert_eq!(t["input_schema"]["type"], "object", "{name}");
            assert_eq!(t["output_schema"]["type"], "object", "{name}: output schema");
            let a = &t["annotations"];
            assert_eq!(a["openWorldHint"], false, "{name}");
            for hint in ["readOnlyHint", "destructiveHint", "idempotentHint"] {
                assert!(a[hint].is_boolean(), "{name}: {hint}");
            }
            assert!(a["title"].is_string(), "{name}");
        }
        let by_name = |n: &str| tools.iter().find(|t| t["name"] == n).unwrap();
        // agent-locker's inputs and defaults.
        let rb = &by_name("locker_read_blocks")["input_schema"];
        assert_eq!(rb["required"], json!(["pad_id", "ticket"]));
        assert_eq!(rb["properties"]["from_block"]["default"], 0);
        assert_eq!(rb["properties"]["to_block"]["default"], 0);
        assert!(rb["properties"]["expected_head_hash"].is_object());
        let ap = &by_name("locker_append")["input_schema"];
        assert_eq!(ap["required"], json!(["pad_id", "write_key", "payload"]));
        assert_eq!(ap["properties"]["content_type"]["default"], "application/json");
        let dp = &by_name("locker_deposit")["input_schema"];
        assert_eq!(dp["required"], json!(["envelope", "artifacts"]));
        assert_eq!(dp["properties"]["ttl_seconds"]["default"], 3600);
        let mf = &by_name("locker_manifest")["input_schema"];
        assert_eq!(mf["required"], json!(["pad_id"]));
        assert_eq!(by_name("locker_read_blocks")["annotations"]["readOnlyHint"], true);
        assert_eq!(by_name("locker_lease_show")["annotations"]["readOnlyHint"], true);
        assert_eq!(by_name("locker_seal")["annotations"]["readOnlyHint"], false);
        assert_eq!(by_name("locker_read_blocks")["annotations"]["idempotentHint"], true);
        // A retry with the same operation_id changes nothing: honestly idempotent.
        assert_eq!(by_name("locker_artifact_publish")["annotations"]["idempotentHint"], true);
        assert_eq!(by_name("locker_deposit")["annotations"]["idempotentHint"], false);
        let out = by_name("locker_read_blocks")["output_schema"].to_string();
        for field in
            ["integrity", "chain_valid", "blocks_verified", "verdict", "trusted_head_match"]
        {
            assert!(out.contains(field), "read_blocks output schema lacks {field}");
        }
    }
}

#[test]
fn test_mcp_python_deposit_and_read_with_integrity() {
    let Some(py) = python() else { return };
    for mode in MODES {
        let env = TestEnv::init();
        let (pad, ticket, head) = deposit(&env, &py, mode);
        assert_eq!(head, expected_head(), "{mode}: the head agent-locker's client would get");
        let wrong = "0".repeat(64);
        let report = session(
            &env,
            &py,
            mode,
            &json!([
                call(
                    "locker_read_blocks",
                    json!({"pad_id": pad, "ticket": ticket,
                    "from_block": 0, "to_block": 9, "expected_head_hash": head})
                ),
                call("locker_read_blocks", json!({"pad_id": pad, "ticket": ticket})),
                call(
                    "locker_manifest",
                    json!({"pad_id": pad, "ticket": ticket,
                    "expected_head_hash": head})
                ),
                call("locker_manifest", json!({"pad_id": pad})),
                call(
                    "locker_read_blocks",
                    json!({"pad_id": pad, "ticket": ticket,
                    "expected_head_hash": wrong})
                ),
            ]),
        );
        let steps = &report["steps"];

        let (is_error, r) = outcome(&steps[0]);
        assert!(!is_error, "{mode}: {r}");
        let i = &r["integrity"];
        assert_eq!(i["verdict"], "trusted_head_match", "{mode}: {i}");
        assert_eq!(i["chain_valid"], true);
        assert_eq!(i["blocks_verified"], 3);
        assert_eq!(i["payloads"], "untrusted");
        assert_eq!(i["expected_head"]["supplied"], true);
        assert_eq!(i["expected_head"]["checked"], true);
        assert_eq!(i["expected_head"]["matches"], true);
        assert_eq!(i["expected_head"]["observed"], head.as_str());
        assert_eq!(
            (r["from"].clone(), r["to"].clone(), r["count"].clone()),
            (json!(0), json!(2), json!(3))
        );
        assert_eq!(r["total_blocks"], 3);
        let blocks = r["blocks"].as_array().unwrap();
        assert_eq!(blocks[0]["payload_utf8"], PY_ENVELOPE);
        assert_eq!(blocks[0]["content_type"], "application/json");
        assert_eq!(blocks[1]["payload_utf8"], PY_PLAN);
        assert_eq!(blocks[2]["payload_utf8"], NOTES);
        assert_eq!(blocks[2]["content_type"], "text/plain");
        assert_eq!(blocks[2]["curr_hash"], head.as_str());

        // The defaults read block 0 only; no expected head: consistent, not proven.
        let (_, r) = outcome(&steps[1]);
        assert_eq!(r["count"], 1);
        assert_eq!(r["blocks"][0]["seq"], 0);
        assert_eq!(r["integrity"]["verdict"], "internal_consistency_only");
        assert_eq!(r["integrity"]["expected_head"]["supplied"], false);

        let (_, m) = outcome(&steps[2]);
        assert_eq!(m["state"], "sealed");
        assert_eq!(m["block_count"], 3);
        assert_eq!(m["head_hash"], head.as_str());
        assert_eq!(m["integrity"]["verdict"], "trusted_head_match");
        let (_, m) = outcome(&steps[3]);
        assert_eq!(m["integrity"]["verdict"], "not_checked");
        assert_eq!(m["integrity"]["chain_valid"], Value::Null);

        let (is_error, e) = outcome(&steps[4]);
        assert!(is_error, "{mode}: a different head must fail closed");
        assert_eq!(e["error"], "verification_failed");
        assert_eq!(e["cause"], "expected_head_mismatch");
        assert_eq!(e["integrity"]["verdict"], "failed");
        assert_eq!(e["integrity"]["chain_valid"], true);
        assert!(e.get("blocks").is_none(), "no payloads on failure");
        assert!(!e.to_string().contains("free text notes"), "no payload leaks: {e}");
    }
}

/// Rewrites a pad's block `seq` payload behind locker's back.
fn tamper_payload(env: &TestEnv, pad: &str, seq: i64, payload: &[u8]) {
    let n = env
        .sql()
        .execute(
            "UPDATE blocks SET payload = ?1 WHERE pad_id = ?2 AND seq = ?3",
            rusqlite::params![payload, pad, seq],
        )
        .unwrap();
    assert_eq!(n, 1);
}

#[test]
fn test_mcp_python_tampered_pad_fails_closed() {
    let Some(py) = python() else { return };
    for mode in MODES {
        let env = TestEnv::init();
        let (pad, ticket, head) = deposit(&env, &py, mode);
        tamper_payload(&env, &pad, 2, b"TAMPERED-NOTES\n");
        let report = session(
            &env,
            &py,
            mode,
            &json!([
                call(
                    "locker_read_blocks",
                    json!({"pad_id": pad, "ticket": ticket,
                    "to_block": 2, "expected_head_hash": head})
                ),
                call("locker_read_blocks", json!({"pad_id": pad, "ticket": ticket, "to_block": 1})),
                call("locker_manifest", json!({"pad_id": pad, "ticket": ticket})),
                call("locker_verify_pad", json!({"pad_id": pad, "expected_head_hash": head})),
            ]),
        );
        let steps = &report["steps"];
        for (i, step) in steps.as_array().unwrap()[..3].iter().enumerate() {
            let (is_error, e) = outcome(step);
            assert!(is_error, "{mode} step {i}: a broken chain must fail closed: {e}");
            assert_eq!(e["error"], "verification_failed");
            assert_eq!(e["cause"], "chain_inconsistent");
            assert_eq!(e["pad_id"], pad.as_str());
            assert_eq!(e["integrity"]["verdict"], "failed");
            assert_eq!(e["integrity"]["chain_valid"], false);
            assert_eq!(e["integrity"]["blocks_verified"], 2);
            assert!(e.get("blocks").is_none());
            assert!(!e.to_string().contains("TAMPERED"), "no payload leaks: {e}");
            assert!(!e.to_string().contains("tests must pass"), "not even untouched blocks: {e}");
        }
        let (is_error, v) = outcome(&steps[3]);
        assert!(!is_error, "verify answers; it does not fail: {v}");
        assert_eq!(v["ok"], false);
        assert_eq!(v["blocks_verified"], 2);
    }
}

#[test]
fn test_mcp_python_consistent_rewrite_is_caught_by_the_expected_head() {
    let Some(py) = python() else { return };
    let env = TestEnv::init();
    let (pad, ticket, head) = deposit(&env, &py, "2026-07-28");
    // Rewrite block 2 AND re-hash it and the pad's head: internally consistent.
    let forged = b"forged notes\n";
    let total = env.json(&["pad", "show", &pad])["total_bytes"].as_i64().unwrap();
    let conn = env.sql();
    let prev: String = conn
        .query_row(
            "SELECT lower(hex(prev_hash)) FROM blocks WHERE pad_id = ?1 AND seq = 2",
            [&pad],
            |r| r.get(0),
        )
        .unwrap();
    let prev = locker::domain::digest::Digest::parse(&prev).unwrap();
    let new_head = locker::domain::chain::link(&prev, forged).to_hex();
    conn.execute(
        "UPDATE blocks SET payload = ?1, curr_hash = unhex(?2) WHERE pad_id = ?3 AND seq = 2",
        rusqlite::params![&forged[..], new_head, pad],
    )
    .unwrap();
    // Block 2 is the pad's last: its bytes and head are the pad's.
    let bytes = total - (NOTES.len() - forged.len()) as i64;
    conn.set_pad_accounting(&pad, Some(bytes), Some(&new_head));
    drop(conn);
    for mode in MODES {
        let report = session(
            &env,
            &py,
            mode,
            &json!([
                call(
                    "locker_read_blocks",
                    json!({"pad_id": pad, "ticket": ticket,
                    "to_block": 2, "expected_head_hash": head})
                ),
                call("locker_read_blocks", json!({"pad_id": pad, "ticket": ticket, "to_block": 2})),
            ]),
        );
        let (is_error, e) = outcome(&report["steps"][0]);
        assert!(is_error, "{mode}: {e}");
        assert_eq!(e["cause"], "expected_head_mismatch");
        assert_eq!(e["integrity"]["chain_valid"], true);
        assert_eq!(e["integrity"]["expected_head"]["observed"], new_head.as_str());
        assert!(!e.to_string().contains("forged"));
        // Without the expected head the forgery is only "internally consistent", and says so.
        let (is_error, r) = outcome(&report["steps"][1]);
        assert!(!is_error);
        assert_eq!(r["integrity"]["verdict"], "internal_consistency_only");
    }
}

#[test]
fn test_mcp_python_invalid_calls_are_tool_errors() {
    let Some(py) = python() else { return };
    for mode in MODES {
        let env = TestEnv::init();
        let (pad, ticket, _) = deposit(&env, &py, mode);
        let before = env.fingerprint();
        let report = session(
            &env,
            &py,
            mode,
            &json!([
                call("locker_seal", json!({"pad_id": pad, "write_key": "not-the-key"})),
                call("locker_seal", json!({"pad_id": "no-such-pad", "write_key": "k"})),
                call("locker_seal", json!({"pad_id": pad})),
                call("locker_append", json!({"pad_id": pad, "write_key": "k", "payload": 7})),
                call(
                    "locker_read_blocks",
                    json!({"pad_id": pad, "ticket": ticket,
                    "expected_head_hash": "ABC"})
                ),
                call("locker_read_blocks", json!({"pad_id": pad, "ticket": "wrong-ticket"})),
                call(
                    "locker_manifest",
                    json!({"pad_id": pad,
                    "expected_head_hash": "0".repeat(64)})
                ),
                call("locker_create", json!({"ttl_seconds": 0})),
                call("locker_deposit", json!({"envelope": {"schema": "x"}, "artifacts": []})),
                call("no_such_tool", json!({})),
            ]),
        );
        let steps = report["steps"].as_array().unwrap();
        let err = |i: usize| {
            let (is_error, e) = outcome(&steps[i]);
            assert!(is_error, "{mode} step {i}: {e}");
            assert!(e["detail"].is_string(), "{e}");
            e
        };
        // The same error object as the CLI's `--json` error for the same operation, but for
        // the hints: the CLI's name flags and commands, the tool's arguments and tools.
        let same = |mcp: Value, cli: Value| {
            let strip = |mut v: Value| {
                let hints = v.as_object_mut().unwrap().remove("hints");
                (v, hints)
            };
            let ((mcp, mcp_hints), (cli, cli_hints)) = (strip(mcp), strip(cli));
            assert_eq!(mcp, cli);
            assert_ne!(mcp_hints, cli_hints);
        };
        same(err(0), env.json_err(&["seal", &pad, "--key", "not-the-key"], 5));
        assert_eq!(err(0)["error"], "unauthorized");
        assert!(err(0)["hints"][0].as_str().unwrap().contains("write_key"));
        same(err(1), env.json_err(&["seal", "no-such-pad", "--key", "k"], 3));
        assert_eq!(err(2)["error"], "invalid_arguments");
        assert!(err(2)["detail"].as_str().unwrap().contains("write_key"));
        assert_eq!(err(3)["error"], "bad_request");
        assert_eq!(err(4)["error"], "verification_failed");
        assert_eq!(err(4)["cause"], "malformed_expected_head");
        assert!(err(4).get("blocks").is_none());
        assert_eq!(err(5)["error"], "unauthorized");
        assert_eq!(err(5)["detail"], "invalid read ticket");
        assert_eq!(err(6)["cause"], "ticket_required");
        assert_eq!(err(7)["error"], "unprocessable");
        assert_eq!(err(8)["error"], "bad_request");
        assert!(err(8)["detail"].as_str().unwrap().starts_with("block 0 invalid envelope"));
        let unknown = steps[9]["exception"].as_str().expect("an unknown tool is a protocol error");
        assert!(unknown.contains("tool not found"), "{unknown}");
        assert_eq!(env.fingerprint(), before, "{mode}: failed calls change nothing");
    }
}

#[test]
fn test_mcp_python_planner_worker_handoff() {
    let Some(py) = python() else { return };
    for (planner_mode, worker_mode) in [("legacy", "2026-07-28"), ("2026-07-28", "legacy")] {
        let env = TestEnv::init();
        // The planner builds a pad step by step in its own session, then seals it.
        let report = session(
            &env,
            &py,
            planner_mode,
            &json!([call("locker_create", json!({"ttl_seconds": 600, "max_blocks": 8}))]),
        );
        let (_, created) = outcome(&report["steps"][0]);
        let pad = created["pad_id"].as_str().unwrap().to_owned();
        let key = created["write_key"].as_str().unwrap().to_owned();
        let ticket = created["read_ticket"].as_str().unwrap().to_owned();
        let report = session(
            &env,
            &py,
            planner_mode,
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
                call("locker_append", json!({"pad_id": pad, "write_key": key, "payload": "late"})),
            ]),
        );
        let steps = &report["steps"];
        for i in 0..3 {
            let (is_error, ack) = outcome(&steps[i]);
            assert!(!is_error, "{ack}");
            assert_eq!(ack["seq"], i);
        }
        let (_, sealed) = outcome(&steps[3]);
        assert_eq!(sealed["state"], "sealed");
        let head = sealed["head_hash"].as_str().unwrap().to_owned();
        assert_eq!(head, expected_head(), "same bytes and head as agent-locker's client");
        let (is_error, late) = outcome(&steps[4]);
        assert!(is_error);
        assert_eq!(late["detail"], "pad is sealed");

        // The planner hands pad_id + ticket + head to the worker, which has its own session.
        let report = session(
            &env,
            &py,
            worker_mode,
            &json!([
                call(
                    "locker_manifest",
                    json!({"pad_id": pad, "ticket": ticket,
                    "expected_head_hash": head})
                ),
                call(
                    "locker_read_blocks",
                    json!({"pad_id": pad, "ticket": ticket,
                    "from_block": 0, "to_block": 2, "expected_head_hash": head})
                ),
                call("locker_verify_pad", json!({"pad_id": pad, "expected_head_hash": head})),
                call("locker_log", json!({"subject": format!("pad:{pad}"), "reverse": true})),
            ]),
        );
        let steps = &report["steps"];
        let (_, m) = outcome(&steps[0]);
        assert_eq!(m["integrity"]["verdict"], "trusted_head_match");
        assert_eq!(m["state"], "sealed");
        let (is_error, r) = outcome(&steps[1]);
        assert!(!is_error, "{r}");
        assert_eq!(r["integrity"]["verdict"], "trusted_head_match");
        let task: Value =
            serde_json::from_str(r["blocks"][0]["payload_utf8"].as_str().unwrap()).unwrap();
        assert_eq!(task["task_id"], "fix-42");
        assert_eq!(task["to_agent"], "worker");
        assert_eq!(r["blocks"][2]["payload_utf8"], NOTES);
        let (_, v) = outcome(&steps[2]);
        assert_eq!(v["ok"], true);
        assert_eq!(v["expected_head"]["matches"], true);
        let (_, log) = outcome(&steps[3]);
        let kinds: Vec<&str> = log["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["kind"].as_str().unwrap())
            .collect();
        assert_eq!(
            kinds,
            ["pad.create", "pad.append", "pad.append", "pad.append", "pad.seal", "pad.read_lease"]
        );
        // The CLI sees the same pad and head.
        let report = env.json(&["verify", &pad, "--expect-head", &head]);
        assert_eq!(report["ok"], true);
    }
}

#[test]
fn test_mcp_python_artifacts_as_an_agent() {
    let Some(py) = python() else { return };
    let env = TestEnv::init();
    let token = env.json(&["token", "create", "--agent", "writer", "--scope", "team"]);
    let token = token["token"].as_str().unwrap().to_owned();
    for (i, mode) in MODES.into_iter().enumerate() {
        let key = format!("notes/plan-{i}.md");
        // Operation ids are the agent's, across keys: each mode uses its own.
        let publish = |expected: i64, op: &str, content: &str| {
            call(
                "locker_artifact_publish",
                json!({"key": key, "expected_version": expected, "operation_id": format!("{op}-{i}"),
                       "content": content}),
            )
        };
        let report = session_as(
            &env,
            &py,
            mode,
            Some(&token),
            &json!([
                publish(0, "op-1", "first draft"),
                publish(0, "op-1", "first draft"),
                publish(0, "op-2", "a rival draft"),
                publish(1, "op-1", "not the same request"),
                call(
                    "locker_artifact_publish",
                    json!({"key": key, "expected_version": 1,
                    "operation_id": format!("op-3-{i}"), "content_b64": "c2Vjb25kAP8="})
                ),
                call("locker_artifact_get", json!({"key": key})),
                call("locker_artifact_get", json!({"key": key, "version": 1})),
                call("locker_artifact_log", json!({"key": key})),
                call("locker_artifact_list", json!({})),
            ]),
        );
        let steps = &report["steps"];
        let (is_error, v1) = outcome(&steps[0]);
        assert!(!is_error, "{mode}: {v1}");
        assert_eq!(
            (v1["replayed"].clone(), v1["artifact"]["version"].clone()),
            (json!(false), json!(1))
        );
        assert_eq!(v1["artifact"]["actor"], "writer", "{mode}: acts as the token's agent");
        assert_eq!(v1["artifact"]["scope"], "team");
        let (_, again) = outcome(&steps[1]);
        assert_eq!(again["replayed"], true);
        assert_eq!(again["artifact"]["version"], 1);
        let (is_error, stale) = outcome(&steps[2]);
        assert!(is_error);
        assert_eq!(stale["error"], "version_conflict");
        assert_eq!(stale["current_version"], 1);
        let (is_error, reused) = outcome(&steps[3]);
        assert!(is_error);
        assert_eq!(reused["error"], "operation_conflict");
        let (is_error, v2) = outcome(&steps[4]);
        assert!(!is_error, "{mode}: {v2}");
        assert_eq!(v2["artifact"]["version"], 2);
        assert_eq!(v2["artifact"]["content"], Value::Null);
        assert_eq!(v2["artifact"]["content_b64"], "c2Vjb25kAP8=");
        let (_, head) = outcome(&steps[5]);
        assert_eq!(head["version"], 2);
        let (_, first) = outcome(&steps[6]);
        assert_eq!(first["content"], "first draft");
        let (_, log) = outcome(&steps[7]);
        assert_eq!(log["current_version"], 2);
        assert_eq!(log["versions"].as_array().unwrap().len(), 2);
        let (_, list) = outcome(&steps[8]);
        assert_eq!(list["scope"], "team");
        assert_eq!(list["artifacts"].as_array().unwrap().len(), i + 1);
    }
    // A revoked token stops working at once, in a running server too.
    env.json(&["token", "revoke", "--agent", "writer", "--yes"]);
    let report = session_as(
        &env,
        &py,
        "legacy",
        Some(&token),
        &json!([call("locker_artifact_get", json!({"key": "notes/plan-0.md"}))]),
    );
    let (is_error, e) = outcome(&report["steps"][0]);
    assert!(is_error);
    assert_eq!(e["error"], "unauthorized", "{e}");
}

#[test]
fn test_mcp_python_leases_plans_and_steps() {
    let Some(py) = python() else { return };
    for mode in MODES {
        let mut env = TestEnv::init();
        let work = "fix-42";
        let report = session(
            &env,
            &py,
            mode,
            &json!([call(
                "locker_lease_acquire",
                json!({"work": work, "ttl_seconds": 60,
                                                        "holder": "worker-a"})
            )]),
        );
        let (is_error, lease) = outcome(&report["steps"][0]);
        assert!(!is_error, "{mode}: {lease}");
        assert_eq!(
            (lease["fence"].clone(), lease["holder"].clone()),
            (json!(1), json!("worker-a"))
        );
        let id = lease["lease_id"].as_str().unwrap().to_owned();
        let fence = format!("{work}:1");
        let report = session(
            &env,
            &py,
            mode,
            &json!([
                call(
                    "locker_plan_commit",
                    json!({"work": work, "lease_id": id,
                    "steps": ["read", "fix", "test"]})
                ),
                call(
                    "locker_step",
                    json!({"work": work, "lease_id": id, "step": "read",
                    "executed": "read the handoff"})
                ),
                call(
                    "locker_step",
                    json!({"work": work, "lease_id": id, "step": "read",
                    "executed": "read the handoff"})
                ),
                call(
                    "locker_step",
                    json!({"work": work, "lease_id": id, "step": "fix",
                    "planned": "patch", "executed": "patched", "gate": "ci"})
                ),
                call(
                    "locker_lease_heartbeat",
                    json!({"work": work, "lease_id": id,
                    "details": "half way"})
                ),
                call(
                    "locker_artifact_publish",
                    json!({"key": "fix-42/patch", "expected_version": 0,
                    "operation_id": "patch-1", "content": "diff", "fence": fence})
                ),
                call("locker_plan_diff", json!({"work": work})),
                call("locker_lease_show", json!({"work": work})),
                call("locker_lease_acquire", json!({"work": work, "holder": "worker-b"})),
            ]),
        );
        let steps = &report["steps"];
        let ok = |i: usize| {
            let (is_error, v) = outcome(&steps[i]);
            assert!(!is_error, "{mode} step {i}: {v}");
            v
        };
        assert_eq!(ok(0)["version"], 1);
        assert_eq!(ok(1)["replayed"], false);
        assert_eq!(ok(2)["replayed"], true);
        assert_eq!(ok(3)["gate"], "ci");
        assert_eq!(ok(4)["heartbeats"], 1);
        assert_eq!(ok(5)["artifact"]["version"], 1);
        let diff = ok(6);
        assert_eq!(diff["holes"], json!(["test"]));
        assert_eq!(diff["clean"], false);
        assert_eq!(ok(7)["attempts"], 1);
        let (is_error, held) = outcome(&steps[8]);
        assert!(is_error);
        assert_eq!(held["error"], "lease_held");
        assert_eq!(held["holder"], "worker-a");

        // The lease runs out: worker-a's heartbeat is gone, worker-b gets fence 2, and a
        // publish under the old fence is refused.
        env.now += 120;
        let report = session(
            &env,
            &py,
            mode,
            &json!([
                call("locker_lease_heartbeat", json!({"work": work, "lease_id": id})),
                call("locker_lease_acquire", json!({"work": work, "holder": "worker-b"})),
                call(
                    "locker_artifact_publish",
                    json!({"key": "fix-42/patch", "expected_version": 1,
                    "operation_id": "patch-2", "content": "late diff", "fence": fence})
                ),
            ]),
        );
        let steps = &report["steps"];
        let (is_error, gone) = outcome(&steps[0]);
        assert!(is_error);
        assert_eq!(gone["error"], "gone", "{gone}");
        let (_, b) = outcome(&steps[1]);
        assert_eq!(b["fence"], 2);
        let b_id = b["lease_id"].as_str().unwrap().to_owned();
        let (is_error, stale) = outcome(&steps[2]);
        assert!(is_error);
        assert_eq!(stale["error"], "stale_fence");

        let report = session(
            &env,
            &py,
            mode,
            &json!([
                call("locker_step", json!({"work": work, "lease_id": b_id, "step": "read"})),
                call("locker_step", json!({"work": work, "lease_id": b_id, "step": "fix"})),
                call("locker_step", json!({"work": work, "lease_id": b_id, "step": "test"})),
                call(
                    "locker_lease_complete",
                    json!({"work": work, "lease_id": b_id,
                    "result": "fixed"})
                ),
                call("locker_lease_history", json!({"work": work})),
            ]),
        );
        let steps = &report["steps"];
        let (is_error, done) = outcome(&steps[3]);
        assert!(!is_error, "{done}");
        assert_eq!(done["state"], "completed");
        assert_eq!(done["diff"]["clean"], true);
        assert_eq!(done["diff"]["earlier_lease_steps"], json!([]));
        let (_, history) = outcome(&steps[4]);
        assert_eq!(history["ok"], true);
        let kinds: Vec<&str> = history["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["kind"].as_str().unwrap())
            .collect();
        assert!(kinds.contains(&"lease.abandon"), "{kinds:?}");
        assert_eq!(kinds.last(), Some(&"lease.complete"));
    }
}

/// Runs the MCP Inspector CLI against `locker mcp` on `env`'s repository.
fn inspect(env: &TestEnv, insp: &Path, args: &[&str]) -> (i32, Value, String) {
    let node_bin = insp.parent().unwrap();
    let path = std::env::join_paths(
        std::iter::once(node_bin.to_path_buf())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    let out = Command::new(insp)
        .arg("--cli")
        .args(["-e", &format!("LOCKER_NOW={}", env.now)])
        .args(["-e", &format!("LOCKER_DIR={}", env.path().display())])
        .args(args)
        .env_clear()
        .env("HOME", env.path())
        .env("PATH", path)
        .env("MCP_INSPECTOR_SECRET_STORE", "memory")
        .current_dir(env.path())
        .stdin(Stdio::null())
        .output()
        .expect("the MCP Inspector runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let value = serde_json::from_str(stdout.trim()).unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), value, String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn test_mcp_inspector_lists_and_calls_tools_in_both_eras() {
    let Some(insp) = inspector() else { return };
    let env = TestEnv::init();
    let locker = bin();
    let locker = locker.to_str().unwrap();
    for era in [&[][..], &["--protocol-era", "modern"][..]] {
        let with = |rest: &[&str]| -> Vec<String> {
            era.iter().chain(&[locker, "mcp"]).chain(rest).map(ToString::to_string).collect()
        };
        let args = with(&["--method", "tools/list", "--format", "json", "--strict"]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, list, stderr) = inspect(&env, &insp, &args);
        assert_eq!(code, 0, "{era:?}: tools/list (strict schema portability): {stderr}");
        let names: Vec<&str> = list["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        for name in PEER_TOOLS {
            assert!(names.contains(&name), "{era:?}: {name}");
        }

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
        let (code, r, stderr) = inspect(&env, &insp, &args);
        assert_eq!(code, 0, "{era:?}: tools/call: {stderr}");
        let d = &r["result"]["structuredContent"];
        assert_eq!(d["status"], "sealed");
        // (Not the Python client's head: JavaScript turns the plan's `1.0` into `1`.)
        assert_eq!(d["head_hash"].as_str().unwrap().len(), 64);

        let read = json!({"pad_id": d["pad_id"], "ticket": d["read_ticket"], "to_block": 2,
            "expected_head_hash": d["head_hash"]})
        .to_string();
        let args = with(&[
            "--method",
            "tools/call",
            "--tool-name",
            "locker_read_blocks",
            "--tool-args-json",
            &read,
            "--format",
            "json",
        ]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, r, stderr) = inspect(&env, &insp, &args);
        assert_eq!(code, 0, "{era:?}: read_blocks: {stderr}");
        assert_eq!(r["result"]["structuredContent"]["integrity"]["verdict"], "trusted_head_match");

        // A tool error: the Inspector exits 5 and nothing changes.
        let before = env.fingerprint();
        let args = with(&[
            "--method",
            "tools/call",
            "--tool-name",
            "locker_seal",
            "--tool-args-json",
            r#"{"pad_id": "nope", "write_key": "k"}"#,
            "--format",
            "json",
        ]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, r, stderr) = inspect(&env, &insp, &args);
        assert_eq!(code, 5, "{era:?}: isError: {r} {stderr}");
        assert_eq!(env.fingerprint(), before);
    }
}

// ---------------------------------------------------------------------------------------------
// Raw JSON-RPC: what no well-behaved client does on purpose.

/// Runs `locker mcp` with `lines` on stdin; returns (exit code, stdout lines as JSON, stderr).
fn raw(env: &TestEnv, lines: &[Value]) -> (i32, Vec<Value>, String) {
    raw_with(env, &[], lines)
}

/// [`raw`] with `args` after `mcp`.
fn raw_with(env: &TestEnv, args: &[&str], lines: &[Value]) -> (i32, Vec<Value>, String) {
    raw_as(env, None, args, lines)
}

/// [`raw_with`], with `LOCKER_TOKEN` set to `token` when one is given.
fn raw_as(
    env: &TestEnv,
    token: Option<&str>,
    args: &[&str],
    lines: &[Value],
) -> (i32, Vec<Value>, String) {
    let mut input = String::new();
    for l in lines {
        input.push_str(&l.to_string());
        input.push('\n');
    }
    let mut cmd = env.locker();
    if let Some(t) = token {
        cmd.env("LOCKER_TOKEN", t);
    }
    let out = cmd.arg("mcp").args(args).write_stdin(input).output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let msgs = stdout
        .lines()
        .map(|l| {
            serde_json::from_str(l).unwrap_or_else(|e| panic!("non-protocol stdout {l:?}: {e}"))
        })
        .collect();
    (out.status.code().unwrap(), msgs, String::from_utf8_lossy(&out.stderr).into_owned())
}

fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"}
    })
}

#[test]
fn test_mcp_eof_before_initialize_is_a_clean_exit() {
    let env = TestEnv::init();
    let (code, msgs, stderr) = raw(&env, &[]);
    assert_eq!((code, msgs.len()), (0, 0), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
    // A discovery probe only, then EOF (what a modern client's probe does).
    let (code, msgs, stderr) = raw(
        &env,
        &[json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover",
                 "params": {"_meta": modern_meta()}})],
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(msgs.len(), 1);
    let r = &msgs[0]["result"];
    assert!(r["supportedVersions"].as_array().unwrap().contains(&json!("2026-07-28")));
    assert!(r["supportedVersions"].as_array().unwrap().contains(&json!("2025-11-25")));
    assert_eq!(r["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "locker");
    assert!(r["capabilities"]["tools"].is_object());
}

#[test]
fn test_mcp_both_eras_on_the_wire_and_stdout_is_protocol_only() {
    let env = TestEnv::init();
    let (code, msgs, _) = raw(
        &env,
        &[
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"}}}),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
                "name": "locker_create", "arguments": {}}}),
            json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
                "name": "locker_log", "arguments": {"limit": 1}}}),
        ],
    );
    assert_eq!(code, 0);
    assert_eq!(msgs.len(), 4, "one reply per request, none for the notification");
    assert_eq!(msgs[0]["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(msgs[0]["result"]["serverInfo"]["name"], "locker");
    assert!(msgs[1]["result"].get("resultType").is_none(), "legacy replies have no resultType");
    let created = &msgs[2]["result"]["structuredContent"];
    assert_eq!(created["max_blocks"], 32);
    assert_eq!(created["expires_at"], env.now + 3600);
    assert_eq!(msgs[3]["result"]["structuredContent"]["entries"][0]["kind"], "pad.create");

    let (code, msgs, _) = raw(
        &env,
        &[
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                   "params": {"_meta": modern_meta()}}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                   "params": {"name": "locker_verify", "arguments": {}, "_meta": modern_meta()}}),
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                   "params": {"name": "locker_verify", "arguments": {}}}),
        ],
    );
    assert_eq!(code, 0);
    assert_eq!(msgs[0]["result"]["resultType"], "complete");
    assert!(msgs[0]["result"]["ttlMs"].is_number());
    assert_eq!(msgs[1]["result"]["structuredContent"]["ok"], true);
    assert_eq!(msgs[1]["result"]["isError"], false);
    assert_eq!(msgs[2]["error"]["code"], -32602, "2026-07-28 requests need their _meta");
}

#[test]
fn test_mcp_without_a_repository_tools_say_so() {
    let env = TestEnv::new();
    let (code, msgs, _) = raw(
        &env,
        &[json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                 "params": {"name": "locker_verify", "arguments": {}, "_meta": modern_meta()}})],
    );
    assert_eq!(code, 0);
    let r = &msgs[0]["result"];
    assert_eq!(r["isError"], true);
    let e: Value = serde_json::from_str(r["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(e["error"], "no_repository");
    assert!(e["hints"][0].as_str().unwrap().contains("LOCKER_DIR"), "{e}");
}

#[test]
fn test_mcp_refuses_a_bad_server_url() {
    let env = TestEnv::init();
    for url in ["http://user:secret@127.0.0.1:9", "http://example.com:8000"] {
        let out = env.locker().args(["--json", "mcp"]).env("LOCKER_URL", url).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{url}");
        assert!(out.stdout.is_empty());
        let e: Value = serde_json::from_slice(&out.stderr).unwrap();
        assert_eq!(e["error"], "usage");
        assert!(!e.to_string().contains("user:secret"), "no credentials echoed: {e}");
    }
}

#[test]
fn test_mcp_python_remote_server_handoff_and_fail_closed() {
    let Some(py) = python() else { return };
    let env = TestEnv::init();
    let server = env.serve(&[]);
    let url = server.url();
    let token = env.json(&["token", "create", "--agent", "worker", "--scope", "team"]);
    let token = token["token"].as_str().unwrap().to_owned();
    // The MCP server runs where there is no repository at all: everything goes over HTTP.
    let elsewhere = tempfile::tempdir().unwrap();
    let remote = [("LOCKER_URL", url.as_str())];
    let as_agent = [("LOCKER_URL", url.as_str()), ("LOCKER_TOKEN", token.as_str())];
    for mode in MODES {
        let report = session_in(
            elsewhere.path(),
            env.now,
            &py,
            mode,
            &remote,
            &json!([call("locker_deposit", deposit_args())]),
        );
        let (is_error, d) = outcome(&report["steps"][0]);
        assert!(!is_error, "{mode}: {d}");
        let (pad, ticket, head) = (
            d["pad_id"].as_str().unwrap().to_owned(),
            d["read_ticket"].as_str().unwrap().to_owned(),
            d["head_hash"].as_str().unwrap().to_owned(),
        );
        assert_eq!(head, expected_head(), "{mode}: same bytes over HTTP");
        let read = call(
            "locker_read_blocks",
            json!({"pad_id": pad, "ticket": ticket, "to_block": 2, "expected_head_hash": head}),
        );
        let report = session_in(
            elsewhere.path(),
            env.now,
            &py,
            mode,
            &remote,
            &json!([
                read,
                call("locker_verify_pad", json!({"pad_id": pad, "expected_head_hash": head})),
                call("locker_log", json!({"subject": format!("pad:{pad}")})),
                call("locker_pad_list", json!({})),
            ]),
        );
        let (is_error, r) = outcome(&report["steps"][0]);
        assert!(!is_error, "{mode}: {r}");
        assert_eq!(r["integrity"]["verdict"], "trusted_head_match");
        assert_eq!(r["blocks"][2]["payload_utf8"], NOTES);
        assert_eq!(outcome(&report["steps"][1]).1["ok"], true);
        assert_eq!(outcome(&report["steps"][2]).1["entries"][0]["kind"], "pad.read_lease");
        let (is_error, listed) = outcome(&report["steps"][3]);
        assert!(!is_error, "{mode}: {listed}");
        assert!(listed["pads"].as_array().unwrap().iter().any(|p| p["pad_id"] == pad.as_str()));

        // Altered behind the server's back: the server serves the altered bytes, and the MCP
        // server's own re-hash refuses them.
        tamper_payload(&env, &pad, 2, b"TAMPERED-NOTES\n");
        let report = session_in(elsewhere.path(), env.now, &py, mode, &remote, &json!([read]));
        let (is_error, e) = outcome(&report["steps"][0]);
        assert!(is_error, "{mode}: {e}");
        assert_eq!(e["cause"], "chain_inconsistent");
        assert!(!e.to_string().contains("TAMPERED"));

        // Leases and artifacts act as the token's agent.
        let work = format!("remote-{mode}");
        let report = session_in(
            elsewhere.path(),
            env.now,
            &py,
            mode,
            &as_agent,
            &json!([
                call("locker_pad_list", json!({})),
                call("locker_lease_acquire", json!({"work": work})),
                call(
                    "locker_artifact_publish",
                    json!({"key": format!("{work}/out"),
                    "expected_version": 0, "operation_id": format!("op-{mode}"),
                    "content": "done", "fence": format!("{work}:1")})
                ),
            ]),
        );
        let (is_error, listed) = outcome(&report["steps"][0]);
        assert!(!is_error, "{mode}: {listed}");
        assert_eq!(listed["pads"], json!([]), "{mode}: the agent sees its own scope's pads only");
        let (is_error, lease) = outcome(&report["steps"][1]);
        assert!(!is_error, "{mode}: {lease}");
        assert_eq!(lease["holder"], "worker");
        assert_eq!(lease["scope"], "team");
        let (is_error, published) = outcome(&report["steps"][2]);
        assert!(!is_error, "{mode}: {published}");
        assert_eq!(published["artifact"]["actor"], "worker");
    }
    // The repository the server uses saw it all.
    let (code, report) = env.verify();
    assert_eq!((code, report["ok"].clone()), (1, json!(false)), "the tampered pads are found");
}

#[test]
fn test_mcp_python_verifies_a_bundle_offline() {
    let Some(py) = python() else { return };
    for mode in MODES {
        let env = TestEnv::init();
        let (pad, ticket, head) = deposit(&env, &py, mode);
        let out = env.locker().args(["pad", "export", &pad, "--ticket", &ticket]).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let bundle = String::from_utf8(out.stdout).unwrap();
        // One payload byte changed inside the bundle text (the plan's base64 line).
        let lines: Vec<&str> = bundle.lines().collect();
        let mut bad: Value = serde_json::from_str(lines[2]).unwrap();
        let b64 = bad["payload_b64"].as_str().unwrap().to_owned();
        let flipped = if b64.starts_with('e') {
            b64.replacen('e', "f", 1)
        } else {
            format!("e{}", &b64[1..])
        };
        bad["payload_b64"] = json!(flipped);
        let mut tampered = lines.clone();
        let bad_line = bad.to_string();
        tampered[2] = &bad_line;
        let tampered = tampered.join("\n") + "\n";
        // Verification needs no repository: run the MCP server where there is none.
        let elsewhere = TestEnv::new();
        let report = session(
            &elsewhere,
            &py,
            mode,
            &json!([
                call("locker_verify_bundle", json!({"bundle": bundle, "expected_head_hash": head})),
                call("locker_verify_bundle", json!({"bundle": bundle})),
                call(
                    "locker_verify_bundle",
                    json!({"bundle": tampered, "expected_head_hash": head})
                ),
                call("locker_verify_bundle", json!({"bundle": "not a bundle"})),
                call("locker_verify_bundle", json!({"bundle": bundle, "expected_head_hash": "zz"})),
            ]),
        );
        let steps = &report["steps"];
        let (is_error, r) = outcome(&steps[0]);
        assert!(!is_error, "{mode}: {r}");
        assert_eq!(
            (r["ok"].clone(), r["verdict"].clone()),
            (json!(true), json!("trusted_head_match"))
        );
        assert_eq!(r["pad_id"], pad.as_str());
        let (_, r) = outcome(&steps[1]);
        assert_eq!(r["verdict"], "internal_consistency_only", "{mode}: unanchored");
        let (is_error, r) = outcome(&steps[2]);
        assert!(!is_error, "a broken bundle is an answer, not an error");
        assert_eq!((r["ok"].clone(), r["verdict"].clone()), (json!(false), json!("failed")));
        assert!(r["first_failure"]["name"].is_string(), "{r}");
        let (is_error, e) = outcome(&steps[3]);
        assert!(is_error);
        assert_eq!(e["error"], "malformed_bundle");
        let (is_error, e) = outcome(&steps[4]);
        assert!(is_error);
        assert_eq!(e["error"], "bad_request");
        assert!(!elsewhere.path().join(".locker").exists());
    }
}

#[test]
fn test_mcp_python_signed_writes() {
    let Some(py) = python() else { return };
    let env = TestEnv::init();
    let keyfile = env.path().join("alice.key");
    env.json(&["key", "generate", "--agent", "alice", "--out", keyfile.to_str().unwrap()]);
    let skey = std::fs::read_to_string(&keyfile).unwrap();
    let k = locker::domain::sign::PrivateKey::parse(&skey).unwrap();
    let repo = env.json(&["key", "list"])["repository_id"].as_str().unwrap().to_owned();
    env.json(&["key", "require", "--yes"]);
    let pad = env.create_pad(&[]);
    // The client signs block 0 itself; the server's own key (LOCKER_SIGN_KEY) signs block 1
    // and the publish; a call without either is refused.
    let st = locker::domain::sign::Statement::pad_append(
        &repo,
        &pad.id,
        0,
        &locker::domain::digest::Digest::of(PY_ENVELOPE.as_bytes()),
    );
    let sig = locker::domain::sign::encode_signature(&k.sign(&st.message()));
    let steps = json!([call(
        "locker_append",
        json!({"pad_id": pad.id, "write_key": pad.key, "payload": envelope(),
            "signer": "alice", "signature": sig})
    ),]);
    let report = session(&env, &py, "legacy", &steps);
    let (is_error, a) = outcome(&report["steps"][0]);
    assert!(!is_error, "{a}");
    let unsigned = json!([call(
        "locker_append",
        json!({"pad_id": pad.id, "write_key": pad.key,
        "payload": "no signature"})
    )]);
    let report = session(&env, &py, "legacy", &unsigned);
    let (is_error, e) = outcome(&report["steps"][0]);
    assert!(is_error);
    assert_eq!(e["error"], "signature_required");
    let signed_by_server = json!([
        call("locker_append", json!({"pad_id": pad.id, "write_key": pad.key, "payload": "second"})),
        call(
            "locker_artifact_publish",
            json!({"key": "k", "expected_version": 0,
            "operation_id": "o1", "content": "c"})
        ),
    ]);
    let report = session_in(
        env.path(),
        env.now,
        &py,
        "2026-07-28",
        &[("LOCKER_SIGN_KEY", skey.trim())],
        &signed_by_server,
    );
    for step in report["steps"].as_array().unwrap() {
        let (is_error, v) = outcome(step);
        assert!(!is_error, "{v}");
    }
    let (code, v) = env.verify();
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(v["signatures"]["signed"], 3);
    assert_eq!(v["signatures"]["by_signer"]["alice"], 3);
}

#[test]
fn test_mcp_python_log_checkpoint_and_proofs() {
    let Some(py) = python() else { return };
    for mode in MODES {
        let env = TestEnv::init();
        let (pad, _, _) = deposit(&env, &py, mode);
        let vkey = env.json(&["key", "show"])["vkey"].as_str().unwrap().to_owned();
        let report = session(
            &env,
            &py,
            mode,
            &json!([
                call("locker_checkpoint", json!({})),
                call("locker_proof_inclusion", json!({"pad_id": pad, "block": 0})),
                call("locker_proof_consistency", json!({"old": 1})),
                call("locker_proof_inclusion", json!({"seq": 999})),
                call("locker_proof_inclusion", json!({})),
            ]),
        );
        let steps = &report["steps"];
        let (is_error, cp) = outcome(&steps[0]);
        assert!(!is_error, "{mode}: {cp}");
        assert_eq!(cp["key"], vkey.as_str());
        let (is_error, p) = outcome(&steps[1]);
        assert!(!is_error, "{mode}: {p}");
        assert_eq!(p["kind"], "pad.deposit");
        let (is_error, c) = outcome(&steps[2]);
        assert!(!is_error, "{mode}: {c}");
        let (is_error, e) = outcome(&steps[3]);
        assert!(is_error);
        assert_eq!(e["error"], "not_found");
        let (is_error, e) = outcome(&steps[4]);
        assert!(is_error);
        assert_eq!(e["error"], "bad_request");
        // Verified with nothing but the key, where there is no repository.
        let mut flipped = p["proof"].as_str().unwrap().to_owned().into_bytes();
        let i = flipped.len() - 10;
        flipped[i] ^= 0x01;
        let elsewhere = TestEnv::new();
        let report = session(
            &elsewhere,
            &py,
            mode,
            &json!([
                call("locker_verify_proof", json!({"proof": p["proof"], "key": vkey})),
                call("locker_verify_proof", json!({"proof": c["proof"], "key": vkey})),
                call(
                    "locker_verify_proof",
                    json!({"proof": String::from_utf8_lossy(&flipped), "key": vkey})
                ),
                call("locker_verify_proof", json!({"proof": p["proof"], "key": "nope"})),
            ]),
        );
        let steps = &report["steps"];
        let (is_error, r) = outcome(&steps[0]);
        assert!(!is_error, "{mode}: {r}");
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(r["entry"]["subject"], format!("pad:{pad}"));
        assert_eq!(outcome(&steps[1]).1["ok"], true);
        let (is_error, r) = outcome(&steps[2]);
        assert!(!is_error, "a failed proof is an answer: {r}");
        assert_eq!(r["ok"], false);
        let (is_error, e) = outcome(&steps[3]);
        assert!(is_error);
        assert_eq!(e["error"], "bad_key");
        assert!(!elsewhere.path().join(".locker").exists());
    }
}

/// A 2026-07-28 request: `method` with `params` and the per-request `_meta`.
fn modern(id: u64, method: &str, mut params: Value) -> Value {
    params["_meta"] = modern_meta();
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// The tools `locker mcp ARGS` lists, in order.
fn listed(env: &TestEnv, args: &[&str]) -> Vec<Value> {
    let (code, msgs, stderr) = raw_with(env, args, &[modern(1, "tools/list", json!({}))]);
    assert_eq!(code, 0, "{args:?}: {stderr}");
    msgs[0]["result"]["tools"].as_array().unwrap_or_else(|| panic!("{:?}", msgs[0])).clone()
}

fn names(tools: &[Value]) -> Vec<&str> {
    tools.iter().map(|t| t["name"].as_str().unwrap()).collect()
}

#[test]
fn test_mcp_read_only_and_toolsets_choose_the_tools() {
    let env = TestEnv::init();
    let all = listed(&env, &[]);
    for t in &all {
        let a = &t["annotations"];
        for hint in ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] {
            assert!(a[hint].is_boolean(), "{}: {hint}", t["name"]);
        }
        assert_eq!(a["openWorldHint"], false);
    }
    let reads: Vec<&str> = all
        .iter()
        .filter(|t| t["annotations"]["readOnlyHint"] == true)
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    // The reads the issue named are reads.
    for name in ["locker_lease_show", "locker_lease_list", "locker_plan_show", "locker_plan_diff"] {
        assert!(reads.contains(&name), "{name}");
    }
    assert!(reads.contains(&"locker_manifest") && reads.contains(&"locker_read_blocks"));
    let read_only = listed(&env, &["--read-only"]);
    assert_eq!(names(&read_only), reads, "--read-only lists exactly the read-only tools");
    assert!(read_only.len() < all.len());

    let some = listed(&env, &["--toolsets", "pads,log"]);
    assert!(names(&some).contains(&"locker_deposit"));
    assert!(names(&some).contains(&"locker_verify"));
    assert!(!names(&some).iter().any(|n| n.contains("lease") || n.contains("artifact")));
    let both = listed(&env, &["--toolsets", "work", "--read-only"]);
    assert_eq!(
        names(&both),
        [
            "locker_lease_show",
            "locker_lease_list",
            "locker_lease_history",
            "locker_plan_show",
            "locker_plan_diff"
        ]
    );
    let admin = listed(&env, &["--toolsets=admin"]);
    assert_eq!(names(&admin), ["locker_key_register"]);

    // A tool not offered is refused when called, saying why, and changes nothing.
    let before = env.fingerprint();
    let create = json!({"name": "locker_create", "arguments": {}});
    let (code, msgs, _) =
        raw_with(&env, &["--read-only"], &[modern(1, "tools/call", create.clone())]);
    assert_eq!(code, 0);
    let e = &msgs[0]["error"];
    assert_eq!(e["code"], -32602, "{e}");
    let m = e["message"].as_str().unwrap();
    assert!(
        m.contains("locker_create") && m.contains("not enabled") && m.contains("read-only"),
        "{m}"
    );
    assert_eq!(e["data"]["error"], "tool_not_enabled");
    assert_eq!(e["data"]["toolset"], "pads");
    let (_, msgs, _) = raw_with(&env, &["--toolsets", "work"], &[modern(1, "tools/call", create)]);
    let m = msgs[0]["error"]["message"].as_str().unwrap();
    assert!(m.contains("pads toolset") && m.contains("offers only work"), "{m}");
    assert_eq!(env.fingerprint(), before);
    // A read-only server still reads.
    let (_, msgs, _) = raw_with(
        &env,
        &["--read-only"],
        &[modern(1, "tools/call", json!({"name": "locker_verify", "arguments": {}}))],
    );
    assert_eq!(msgs[0]["result"]["structuredContent"]["ok"], true, "{}", msgs[0]);

    // An unknown toolset is a usage error naming the valid ones; so is a selection of nothing.
    let out = env.locker().args(["--json", "mcp", "--toolsets", "pads,nope"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let e: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(e["error"], "usage");
    assert!(e["detail"].as_str().unwrap().contains("pads, artifacts, work, log, admin"), "{e}");
    let out = env
        .locker()
        .args(["--json", "mcp", "--read-only", "--toolsets", "admin"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let e: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert!(e["detail"].as_str().unwrap().contains("no tool"), "{e}");
}

/// Calls `(tool, arguments)` in one `locker mcp ARGS` session; returns each call's
/// `(is_error, value)`: the structured content of a success, the error object of a failure.
fn calls(env: &TestEnv, args: &[&str], calls: &[(&str, Value)]) -> Vec<(bool, Value)> {
    calls_as(env, None, args, calls)
}

/// [`calls`] acting as `token`'s agent when one is given.
fn calls_as(
    env: &TestEnv,
    token: Option<&str>,
    args: &[&str],
    calls: &[(&str, Value)],
) -> Vec<(bool, Value)> {
    let lines: Vec<Value> = calls
        .iter()
        .enumerate()
        .map(|(i, (name, a))| {
            modern(i as u64 + 1, "tools/call", json!({"name": name, "arguments": a}))
        })
        .collect();
    let (code, mut msgs, stderr) = raw_as(env, token, args, &lines);
    assert_eq!(code, 0, "{stderr}");
    msgs.sort_by_key(|m| m["id"].as_u64());
    assert_eq!(msgs.len(), calls.len(), "{msgs:?}");
    msgs.iter()
        .map(|m| {
            let r = &m["result"];
            assert!(r.is_object(), "a tool result: {m}");
            if r["isError"] == true {
                (true, serde_json::from_str(r["content"][0]["text"].as_str().unwrap()).unwrap())
            } else {
                (false, r["structuredContent"].clone())
            }
        })
        .collect()
}

/// Arguments that break a bound the input schema declares: the schema refuses each, and the
/// server, which does not rely on the client honouring it, answers with the operation's own
/// error (not the MCP edge's `invalid_arguments`), changing nothing.
#[test]
fn test_mcp_out_of_range_input_is_refused_by_the_schema_and_by_the_operation() {
    let env = TestEnv::init();
    let tools = listed(&env, &[]);
    let lease = "0".repeat(32);
    let cases: Vec<(&str, Value, &str)> = vec![
        ("locker_create", json!({"ttl_seconds": 0}), "unprocessable"),
        ("locker_create", json!({"ttl_seconds": 2_592_001}), "unprocessable"),
        ("locker_create", json!({"max_blocks": 4097}), "unprocessable"),
        ("locker_deposit", json!({"envelope": envelope(), "artifacts": [""]}), "bad_request"),
        (
            "locker_deposit",
            json!({"envelope": envelope(), "artifacts": [], "ttl_seconds": 0}),
            "unprocessable",
        ),
        (
            "locker_read_blocks",
            json!({"pad_id": "p", "ticket": "t", "expected_head_hash": "ABC"}),
            "verification_failed",
        ),
        ("locker_artifact_get", json!({"key": "k", "version": 0}), "invalid"),
        ("locker_artifact_get", json!({"key": "k".repeat(513)}), "invalid"),
        ("locker_artifact_list", json!({"limit": 0}), "invalid"),
        ("locker_artifact_log", json!({"key": "k", "limit": 10_001}), "invalid"),
        (
            "locker_artifact_publish",
            json!({"key": "k", "expected_version": -1, "operation_id": "o", "content": "c"}),
            "invalid",
        ),
        (
            "locker_artifact_publish",
            json!({"key": "k", "expected_version": 0, "operation_id": "o".repeat(129),
                   "content": "c"}),
            "invalid",
        ),
        (
            "locker_artifact_publish",
            json!({"key": "k", "expected_version": 0, "operation_id": "o", "content": "c",
                   "fence": "w:0"}),
            "bad_request",
        ),
        ("locker_lease_acquire", json!({"work": "w", "ttl_seconds": 0}), "unprocessable"),
        ("locker_lease_acquire", json!({"work": "w".repeat(257)}), "bad_request"),
        ("locker_lease_list", json!({"limit": 10_001}), "unprocessable"),
        (
            "locker_plan_commit",
            json!({"work": "w", "lease_id": lease, "steps": ["a", "a"]}),
            "bad_request",
        ),
        ("locker_plan_commit", json!({"work": "w", "lease_id": lease, "steps": []}), "bad_request"),
        (
            "locker_step",
            json!({"work": "w", "lease_id": lease, "step": "s", "gate": "NOPE"}),
            "bad_request",
        ),
        (
            "locker_lease_heartbeat",
            json!({"work": "w", "lease_id": lease, "details": "d".repeat(16_385)}),
            "bad_request",
        ),
        ("locker_log", json!({"limit": 0}), "unprocessable"),
        ("locker_log", json!({"limit": 10_001}), "unprocessable"),
        ("locker_verify", json!({"expected_head_hash": "f".repeat(63)}), "bad_request"),
        ("locker_verify_pad", json!({"pad_id": "p", "expected_head_hash": "zz"}), "bad_request"),
    ];
    for (tool, args, _) in &cases {
        let t = tools.iter().find(|t| t["name"] == *tool).unwrap();
        let v = jsonschema::validator_for(&t["inputSchema"]).unwrap();
        assert!(!v.is_valid(args), "{tool}'s schema takes {args}");
    }
    let before = env.fingerprint();
    let calls_: Vec<(&str, Value)> = cases.iter().map(|(t, a, _)| (*t, a.clone())).collect();
    for ((tool, args, want), (is_error, e)) in cases.iter().zip(calls(&env, &[], &calls_)) {
        assert!(is_error, "{tool} {args}: {e}");
        assert_eq!(e["error"], *want, "{tool} {args}: {e}");
    }
    assert_eq!(env.fingerprint(), before, "refused calls change nothing");
    // In range, the same calls' schemas take them.
    for (tool, args) in [
        ("locker_create", json!({"ttl_seconds": 2_592_000, "max_blocks": 4096})),
        ("locker_deposit", deposit_args()),
        (
            "locker_artifact_publish",
            json!({"key": "k", "expected_version": 0, "operation_id": "o", "content": "c",
                "fence": "w:1"}),
        ),
        ("locker_step", json!({"work": "w", "lease_id": lease, "step": "s", "gate": "ci-2"})),
        ("locker_verify", json!({"expected_head_hash": "f".repeat(64)})),
    ] {
        let t = tools.iter().find(|t| t["name"] == tool).unwrap();
        let v = jsonschema::validator_for(&t["inputSchema"]).unwrap();
        assert!(v.is_valid(&args), "{tool}'s schema refuses {args}");
    }
}

/// `locker_pad_list` is `locker pad list`: the same operation, the same scope rules (an agent
/// sees its own scope's pads, the operator every pad), and it is read-only.
#[test]
fn test_mcp_pad_list_is_the_cli_pad_list_with_its_scope_rules() {
    let env = TestEnv::init();
    let token = env.json(&["token", "create", "--agent", "worker", "--scope", "team"]);
    let token = token["token"].as_str().unwrap().to_owned();
    let mine = env.create_pad(&[]);
    let theirs = {
        let out = env
            .locker()
            .env("LOCKER_TOKEN", &token)
            .args(["--json", "pad", "create"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v["pad_id"].as_str().unwrap().to_owned()
    };
    let cli_operator = env.json(&["pad", "list"]);
    let out =
        env.locker().env("LOCKER_TOKEN", &token).args(["--json", "pad", "list"]).output().unwrap();
    let cli_agent: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(cli_operator["pads"].as_array().unwrap().len(), 2);
    assert_eq!(cli_agent["pads"].as_array().unwrap().len(), 1);

    let list = |token: Option<&str>, args: Value| {
        let got = calls_as(&env, token, &["--read-only"], &[("locker_pad_list", args)]);
        let (is_error, v) = got.into_iter().next().unwrap();
        assert!(!is_error, "{v}");
        v
    };
    assert_eq!(list(None, json!({})), cli_operator);
    let agent = list(Some(&token), json!({}));
    assert_eq!(agent, cli_agent);
    assert_eq!(agent["pads"][0]["pad_id"], theirs.as_str());
    assert_eq!(list(None, json!({"state": "sealed"}))["pads"], json!([]));
    let first = cli_operator["pads"][0]["pad_id"].as_str().unwrap();
    let page = list(None, json!({"limit": 1, "after": first}));
    assert_eq!(page["pads"].as_array().unwrap().len(), 1);
    assert_ne!(page["pads"][0]["pad_id"], first);
    assert!(
        [mine.id.as_str(), theirs.as_str()].contains(&page["pads"][0]["pad_id"].as_str().unwrap())
    );
    assert!(!agent.to_string().contains(&mine.key), "no credential listed");
}

/// Where `text` names a `locker` command or a command-line flag: what a model calling tools
/// cannot act on.
fn cli_words(text: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let b = text.as_bytes();
    for i in 0..b.len().saturating_sub(2) {
        let boundary = i == 0 || matches!(b[i - 1], b' ' | b'`' | b'(' | b'"' | b'\'' | b'\n');
        if boundary && b[i] == b'-' && b[i + 1] == b'-' && b[i + 2].is_ascii_lowercase() {
            found.push(text[i..].chars().take(24).collect());
        }
    }
    for (i, _) in text.match_indices("`locker ") {
        found.push(text[i..].chars().take(30).collect());
    }
    found
}

/// What a model reads (the instructions, every tool's name, title, description, annotations
/// and input schema, and the errors of common failures) names tools and arguments, never a
/// command or a flag.
#[test]
fn test_mcp_speaks_tools_and_arguments_not_commands_and_flags() {
    let mut env = TestEnv::init();
    let (_, msgs, _) = raw(
        &env,
        &[json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}})],
    );
    let instructions = msgs[0]["result"]["instructions"].as_str().unwrap().to_owned();
    assert!(cli_words(&instructions).is_empty(), "{:?}", cli_words(&instructions));
    for t in listed(&env, &[]) {
        let read =
            json!([t["name"], t["title"], t["description"], t["annotations"], t["inputSchema"]]);
        let words = cli_words(&read.to_string());
        assert!(words.is_empty(), "{}: {words:?}", t["name"]);
    }

    let ok = |v: &(bool, Value)| {
        assert!(!v.0, "{}", v.1);
        v.1.clone()
    };
    let created = calls(&env, &[], &[("locker_create", json!({}))]);
    let created = ok(&created[0]);
    let (pad, key) = (created["pad_id"].as_str().unwrap(), created["write_key"].as_str().unwrap());
    let lease =
        calls(&env, &[], &[("locker_lease_acquire", json!({"work": "w", "ttl_seconds": 60}))]);
    let l1 = ok(&lease[0])["lease_id"].as_str().unwrap().to_owned();
    let lease =
        calls(&env, &[], &[("locker_lease_acquire", json!({"work": "x", "ttl_seconds": 60}))]);
    let l2 = ok(&lease[0])["lease_id"].as_str().unwrap().to_owned();
    let unknown_lease = "0".repeat(32);
    let mut failures: Vec<(&str, Value, &str)> = vec![
        ("locker_seal", json!({"pad_id": "no-such-pad", "write_key": "k"}), "not_found"),
        ("locker_seal", json!({"pad_id": pad, "write_key": "wrong"}), "unauthorized"),
        ("locker_seal", json!({"pad_id": pad}), "invalid_arguments"),
        ("locker_read_blocks", json!({"pad_id": pad, "ticket": "wrong"}), "unauthorized"),
        (
            "locker_manifest",
            json!({"pad_id": pad, "expected_head_hash": "0".repeat(64)}),
            "verification_failed",
        ),
        (
            "locker_append",
            json!({"pad_id": pad, "write_key": key, "payload": {"not": "an envelope"}}),
            "bad_request",
        ),
        ("locker_create", json!({"ttl_seconds": 0}), "unprocessable"),
        (
            "locker_artifact_publish",
            json!({"key": "k", "expected_version": 0, "operation_id": "o1", "content": "a"}),
            "",
        ),
        (
            "locker_artifact_publish",
            json!({"key": "k", "expected_version": 0, "operation_id": "o2", "content": "b"}),
            "version_conflict",
        ),
        (
            "locker_artifact_publish",
            json!({"key": "k", "expected_version": 1, "operation_id": "o1", "content": "c"}),
            "operation_conflict",
        ),
        ("locker_artifact_get", json!({"key": "nope"}), "not_found"),
        ("locker_artifact_get", json!({"key": "k", "version": 9}), "not_found"),
        ("locker_artifact_list", json!({"limit": 0}), "invalid"),
        ("locker_lease_acquire", json!({"work": "w", "holder": "other"}), "lease_held"),
        ("locker_plan_show", json!({"work": "w"}), "plan_not_found"),
        ("locker_lease_show", json!({"work": "none"}), "work_not_found"),
        ("locker_lease_history", json!({"work": "none"}), "work_not_found"),
        (
            "locker_lease_heartbeat",
            json!({"work": "w", "lease_id": unknown_lease}),
            "lease_not_found",
        ),
        (
            "locker_step",
            json!({"work": "w", "lease_id": l1, "step": "s", "gate": "BAD"}),
            "bad_request",
        ),
        ("locker_log", json!({"limit": 0}), "unprocessable"),
        (
            "locker_artifact_publish",
            json!({"key": "w/out", "expected_version": 0, "operation_id": "o3", "content": "c", "fence": "w:9"}),
            "unknown_fence",
        ),
        ("locker_lease_complete", json!({"work": "w", "lease_id": l1}), ""),
        ("locker_lease_acquire", json!({"work": "w"}), "work_completed"),
        ("locker_lease_heartbeat", json!({"work": "w", "lease_id": l1}), "stale_lease"),
        ("locker_proof_inclusion", json!({"seq": 999}), "not_found"),
        ("locker_verify_proof", json!({"proof": "no proof", "key": "nope"}), "bad_key"),
        ("locker_key_register", json!({"public_key": "nope"}), "invalid_key"),
    ];
    let first: Vec<(&str, Value)> = failures.iter().map(|(t, a, _)| (*t, a.clone())).collect();
    let mut got = calls(&env, &[], &first);
    // The lease on x runs out: its heartbeat is gone, and a publish under its fence is stale.
    env.now += 120;
    let later = vec![
        ("locker_lease_heartbeat", json!({"work": "x", "lease_id": l2}), "gone"),
        ("locker_lease_acquire", json!({"work": "x"}), ""),
        (
            "locker_artifact_publish",
            json!({"key": "x/out", "expected_version": 0, "operation_id": "o4", "content": "c",
                   "fence": "x:1"}),
            "stale_fence",
        ),
    ];
    let second: Vec<(&str, Value)> = later.iter().map(|(t, a, _)| (*t, a.clone())).collect();
    got.extend(calls(&env, &[], &second));
    failures.extend(later);
    let elsewhere = TestEnv::new();
    got.extend(calls(&elsewhere, &[], &[("locker_verify", json!({}))]));
    failures.push(("locker_verify", json!({}), "no_repository"));

    let mut hints = std::collections::BTreeMap::new();
    for ((tool, args, want), (is_error, v)) in failures.iter().zip(&got) {
        if want.is_empty() {
            assert!(!is_error, "{tool} {args}: {v}");
            continue;
        }
        assert!(is_error, "{tool} {args}: {v}");
        assert_eq!(v["error"], *want, "{tool} {args}: {v}");
        let words = cli_words(&v.to_string());
        assert!(words.is_empty(), "{tool} {args}: {words:?} in {v}");
        hints.insert(format!("{tool} {want}"), v["hints"].to_string());
    }
    // The hints that matter most say what to call, with which argument.
    let has = |k: &str, words: &[&str]| {
        let h = hints.get(k).unwrap_or_else(|| panic!("{k}: {hints:#?}"));
        for w in words {
            assert!(h.contains(w), "{k}: {w} missing from {h}");
        }
    };
    has("locker_seal not_found", &["pad_id", "locker_pad_list"]);
    has("locker_seal unauthorized", &["write_key"]);
    has("locker_read_blocks unauthorized", &["locker_mint_ticket"]);
    has(
        "locker_artifact_publish version_conflict",
        &["locker_artifact_get", "expected_version 1", "operation_id"],
    );
    has("locker_artifact_get not_found", &["locker_artifact_list", "locker_artifact_log"]);
    has("locker_lease_show work_not_found", &["locker_lease_acquire"]);
    has("locker_plan_show plan_not_found", &["locker_plan_commit"]);
    has("locker_lease_heartbeat lease_not_found", &["lease_id", "locker_lease_show"]);
    has("locker_lease_acquire work_completed", &["reopen"]);
    has("locker_lease_heartbeat stale_lease", &["locker_lease_acquire"]);
    has("locker_lease_heartbeat gone", &["locker_lease_acquire"]);
    has("locker_log unprocessable", &["before", "after", "reverse"]);
    has("locker_verify_proof bad_key", &["locker_checkpoint"]);
    has("locker_verify no_repository", &["LOCKER_DIR"]);
    has("locker_seal invalid_arguments", &["tools/list"]);
    // The CLI says the same failure in its own terms.
    let cli = env.json_err(&["seal", "no-such-pad", "--key", "k"], 3);
    assert!(cli["hints"][0].as_str().unwrap().contains("`locker pad list`"), "{cli}");
}
