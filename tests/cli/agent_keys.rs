//! Keys that belong to agents: `locker key new` makes a key pair where the agent runs, the agent
//! registers its verifier key itself with its token (CLI, HTTP, MCP), rotations are signed by
//! the old key, the journal records who registered each key, and `verify` / `review` tell an
//! agent's own keys from keys the operator registered for it (`--require-self-keys`). See: #17.

use std::os::unix::fs::PermissionsExt as _;

use serde_json::{json, Value};

use crate::common::{TestEnv, ENVELOPE};

/// `locker --json ARGS` with `LOCKER_TOKEN` set (when given); (exit code, stdout JSON or Null,
/// stderr JSON or Null).
fn run_as(env: &TestEnv, token: Option<&str>, args: &[&str]) -> (i32, Value, Value) {
    let mut cmd = env.locker();
    if let Some(t) = token {
        cmd.env("LOCKER_TOKEN", t);
    }
    let out = cmd.arg("--json").args(args).output().unwrap();
    let parse = |b: &[u8]| serde_json::from_slice(b).unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), parse(&out.stdout), parse(&out.stderr))
}

fn token(env: &TestEnv, agent: &str) -> String {
    env.json(&["token", "create", "--agent", agent, "--scope", "default"])["token"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn path(env: &TestEnv, name: &str) -> String {
    env.path().join(name).to_str().unwrap().to_owned()
}

/// Appends a block signed with the private key in `key_file`; returns the append.
fn signed_append(env: &TestEnv, pad: &crate::common::Pad, key_file: &str, data: &str) -> Value {
    env.json(&["append", &pad.id, "--key", &pad.key, "--sign-key", key_file, "-d", data])
}

fn key_register_entries(env: &TestEnv) -> Vec<Value> {
    let out = env.locker().args(["--json", "log", "--kind", "key.register"]).output().unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The scenario: worker-a makes its own key and registers it with its token; verify
/// with `--require-self-keys` passes. The operator then revokes it, registers a key of its own
/// making under worker-a's name and writes "signed by worker-a": `--require-signed` alone still
/// passes (as before), but it now reports that worker-a's signature comes from a key the
/// operator registered, and `--require-self-keys` fails (exit 1) naming the entry, as does
/// `review --require-self-keys`.
#[test]
fn test_an_agents_own_key_is_told_from_one_the_operator_registered_for_it() {
    let env = TestEnv::init();
    let t = token(&env, "worker-a");
    let before = env.fingerprint();
    // Made where the agent runs: named for LOCKER_TOKEN's agent, private key 0600, nothing
    // registered.
    let a_key = path(&env, "a.key");
    let (code, made, err) = run_as(&env, Some(&t), &["key", "new", "-o", &a_key]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(made["agent"], "worker-a");
    let vkey = made["vkey"].as_str().unwrap().to_owned();
    assert!(vkey.starts_with("worker-a+"), "{vkey}");
    assert_eq!(std::fs::metadata(&a_key).unwrap().permissions().mode() & 0o777, 0o600);
    let private = std::fs::read_to_string(&a_key).unwrap();
    assert!(private.starts_with("PRIVATE+KEY+worker-a+"));
    assert!(!made.to_string().contains("PRIVATE"), "the private key is never printed");
    assert_eq!(env.fingerprint(), before, "making a key registers nothing");
    // The human form is the verifier key alone; an existing file is never overwritten.
    let out = env.locker().args(["key", "new", "--agent", "worker-a", "-o", &a_key]).output();
    assert_eq!(out.unwrap().status.code(), Some(4));
    assert_eq!(std::fs::read_to_string(&a_key).unwrap(), private);
    let x = path(&env, "x.key");
    let human = env.locker().args(["key", "new", "--agent", "x", "-o", &x]).output().unwrap();
    let text = String::from_utf8(human.stdout).unwrap();
    assert!(text.starts_with("x+") && text.lines().count() == 1, "{text}");
    // Without --agent or a token: a usage error.
    assert_eq!(run_as(&env, None, &["key", "new", "-o", &path(&env, "y.key")]).0, 2);

    // The agent registers it itself; the journal's entry is the agent's.
    let (code, reg, err) = run_as(&env, Some(&t), &["key", "register", "--public-key", &vkey]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        (reg["agent"].as_str(), reg["registered_by"].as_str()),
        (Some("worker-a"), Some("self"))
    );
    let entries = key_register_entries(&env);
    assert_eq!(entries[0]["actor"], "worker-a");
    let list = env.json(&["key", "list"]);
    assert_eq!(list["keys"][0]["registered_by"], "self");

    let pad = env.create_pad(&[]);
    signed_append(&env, &pad, &a_key, ENVELOPE);
    let (code, v, _) = run_as(&env, None, &["verify", "--require-signed", "--require-self-keys"]);
    assert_eq!(code, 0, "{v:#}");
    let a = &v["signatures"]["agents"]["worker-a"];
    assert_eq!(
        (a["signed"].as_u64(), a["self_keys_only"].as_bool()),
        (Some(1), Some(true)),
        "{v:#}"
    );

    // The operator's move: revoke, register a key it made, sign as worker-a.
    env.json(&["key", "revoke", "--agent", "worker-a", "--yes"]);
    let op_key = path(&env, "op.key");
    env.json(&["key", "generate", "--agent", "worker-a", "--out", &op_key]);
    assert_eq!(key_register_entries(&env)[0]["actor"], "operator");
    signed_append(&env, &pad, &op_key, "the operator's words");
    // --require-signed alone passes, as it did, but says whose key it was.
    let (code, v, _) = run_as(&env, None, &["verify", "--require-signed"]);
    assert_eq!(code, 0, "{v:#}");
    let a = &v["signatures"]["agents"]["worker-a"];
    assert_eq!(
        (a["by_self_registered_keys"].as_u64(), a["by_operator_registered_keys"].as_u64()),
        (Some(1), Some(1)),
        "{v:#}"
    );
    assert_eq!(a["self_keys_only"], false);
    let human = env.locker().args(["verify", "--require-signed"]).output().unwrap();
    let text = String::from_utf8(human.stdout).unwrap();
    assert!(
        text.contains("signer worker-a: 2 signature(s), 1 by keys the OPERATOR registered"),
        "{text}"
    );
    // --require-self-keys fails, naming the entry.
    let (code, v, _) = run_as(&env, None, &["verify", "--require-self-keys"]);
    assert_eq!(code, 1, "{v:#}");
    let detail = v["first_broken"]["signature"]["detail"].as_str().unwrap();
    assert!(detail.contains("which the operator registered, not the agent itself"), "{detail}");
    // The same over HTTP.
    let s = env.serve(&[]);
    let r = s.curl_json("/v1/verify?require_self_keys=1", &[], 200);
    assert_eq!(r["ok"], false);
    assert_eq!(s.curl_json("/v1/verify", &[], 200)["ok"], true);
    // review: reported per agent, and a failure with --require-self-keys.
    env.json(&["seal", &pad.id, "--key", &pad.key]);
    let review = |extra: &[&str]| {
        let mut args = vec!["review", pad.id.as_str()];
        args.extend_from_slice(extra);
        run_as(&env, None, &args)
    };
    let (_, r, _) = review(&[]);
    assert_eq!(r["agents"]["worker-a"]["by_operator_registered_keys"], 1, "{r:#}");
    assert!(r["checks"].as_array().unwrap().iter().all(|c| c["name"] != "self_keys"));
    let signers = r["signers"].as_array().unwrap();
    assert_eq!(
        (signers[0]["registered_by"].as_str(), signers[1]["registered_by"].as_str()),
        (Some("self"), Some("operator")),
        "{r:#}"
    );
    let (code, r, _) = review(&["--require-self-keys"]);
    assert_eq!(code, 1);
    let c = r["checks"].as_array().unwrap().iter().find(|c| c["name"] == "self_keys").unwrap();
    assert_eq!(c["status"], "fail", "{c}");
    assert!(c["detail"].as_str().unwrap().contains("block 1 by worker-a"), "{c}");
}

/// Registering over HTTP with the agent's token, the refusals (no token, another agent's key,
/// a malformed key, an active key without a rotation), a rotation signed by the old key through
/// `--remote` (and one signed by another key refused, changing nothing), and the MCP tool.
#[test]
fn test_key_register_over_http_rotation_and_mcp() {
    let env = TestEnv::init();
    let tb = token(&env, "worker-b");
    let tc = token(&env, "worker-c");
    let new_key = |agent: &str, file: &str| {
        env.json(&["key", "new", "--agent", agent, "-o", &path(&env, file)])["vkey"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let b1 = new_key("worker-b", "b1.key");
    let s = env.serve(&[]);
    let post = |token: Option<&str>, body: &Value| {
        let auth = token.map(|t| format!("Authorization: Bearer {t}"));
        let mut args = vec!["-X", "POST", "-H", "Content-Type: application/json"];
        if let Some(a) = &auth {
            args.extend(["-H", a.as_str()]);
        }
        let body = body.to_string();
        args.extend(["--data-binary", body.as_str()]);
        let (code, text) = s.curl("/v1/keys", &args);
        (code, serde_json::from_str::<Value>(&text).unwrap_or(Value::Null))
    };
    let snapshot = env.snapshot();
    assert_eq!(post(None, &json!({"public_key": b1})).0, 401);
    let (code, e) = post(Some(&tc), &json!({"public_key": b1}));
    assert_eq!(code, 403, "{e}");
    assert!(e["detail"].as_str().unwrap().contains("registers its own key only"), "{e}");
    assert_eq!(post(Some(&tb), &json!({"public_key": "nonsense"})).0, 400);
    assert_eq!(post(Some(&tb), &json!({"key": b1})).0, 422);
    assert_eq!(env.snapshot(), snapshot, "no refusal changed anything");
    let (code, r) = post(Some(&tb), &json!({"public_key": b1}));
    assert_eq!(code, 201, "{r}");
    assert_eq!(r["registered_by"], "self");

    // A second key needs a rotation signed by the first.
    let url = s.url();
    let b2 = new_key("worker-b", "b2.key");
    let (code, _, e) =
        run_as(&env, Some(&tb), &["--remote", &url, "key", "register", "--public-key", &b2]);
    assert_eq!((code, e["error"].as_str()), (4, Some("key_exists")), "{e}");
    let b3_file = path(&env, "b3.key");
    new_key("worker-b", "b3.key");
    let snapshot = env.snapshot();
    let (code, _, e) = run_as(
        &env,
        Some(&tb),
        &["--remote", &url, "key", "register", "--public-key", &b2, "--rotate-with", &b3_file],
    );
    assert_eq!((code, e["error"].as_str()), (5, Some("bad_signature")), "{e}");
    assert_eq!(env.snapshot(), snapshot);
    let b1_file = path(&env, "b1.key");
    let (code, r, e) = run_as(
        &env,
        Some(&tb),
        &["--remote", &url, "key", "register", "--public-key", &b2, "--rotate-with", &b1_file],
    );
    assert_eq!(code, 0, "{e}");
    assert_eq!(
        (r["registered_by"].as_str(), r["rotated"].is_string()),
        (Some("self"), true),
        "{r}"
    );
    let entry = &key_register_entries(&env)[0];
    assert_eq!(entry["body"]["rotates"]["key_id"], r["rotated"], "{entry}");
    assert_eq!(entry["actor"], "worker-b");
    let keys = env.json(&["key", "list"])["keys"].clone();
    let state = |id: &Value| {
        keys.as_array().unwrap().iter().find(|k| k["key_id"] == *id).unwrap()["state"].clone()
    };
    assert_eq!((state(&r["rotated"]), state(&r["key_id"])), (json!("revoked"), json!("active")));
    // The old key signs no more; the new one does; verify replays the rotation.
    let pad = env.create_pad(&[]);
    let out =
        env.run(&["append", &pad.id, "--key", &pad.key, "--sign-key", &b1_file, "-d", ENVELOPE]);
    assert_eq!(out.status.code(), Some(5));
    signed_append(&env, &pad, &path(&env, "b2.key"), ENVELOPE);
    let (code, v, _) = run_as(&env, None, &["verify", "--require-self-keys"]);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(v["signatures"]["agents"]["worker-b"]["self_keys_only"], true);
    s.stop();

    // MCP, as worker-c with its token.
    let c1 = new_key("worker-c", "c1.key");
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}});
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "locker_key_register", "arguments": {"public_key": c1}}});
    let input = format!(
        "{init}\n{}\n{call}\n",
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    );
    let out = env.locker().env("LOCKER_TOKEN", &tc).arg("mcp").write_stdin(input).output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let reply: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    let r = &reply["result"]["structuredContent"];
    assert_eq!(
        (r["agent"].as_str(), r["registered_by"].as_str()),
        (Some("worker-c"), Some("self")),
        "{reply}"
    );
    assert_eq!(key_register_entries(&env)[0]["actor"], "worker-c");
}
