//! The `--json` contract: what real commands print validates against the committed schemas in
//! `docs/json/` (generated from the output types by `locker util generate-docs`; `docs.rs`
//! keeps the files equal to the generated ones).

use std::path::Path;

use serde_json::{json, Value};

use crate::common::{create_database, TestEnv};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The committed schema `docs/json/<file>`, checked against the JSON Schema meta-schema.
fn schema(file: &str) -> Value {
    let path = root().join("docs/json").join(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run scripts/gen-docs.sh)", path.display()));
    let schema: Value = serde_json::from_str(&text).unwrap();
    if let Err(e) = jsonschema::meta::validate(&schema) {
        panic!("{file} is not a valid JSON Schema: {e}");
    }
    schema
}

/// Asserts that `instance` (what `what` printed) matches the schema in `file`.
fn assert_valid(file: &str, what: &str, instance: &Value) {
    let validator = jsonschema::validator_for(&schema(file)).unwrap();
    let errors: Vec<String> =
        validator.iter_errors(instance).map(|e| format!("at {}: {e}", e.instance_path())).collect();
    assert!(
        errors.is_empty(),
        "`locker --json {what}` does not match docs/json/{file}:\n{}\n{instance:#}",
        errors.join("\n")
    );
}

/// Runs `locker --json ARGS` (exit `code`), validates stdout against `file` and returns it.
fn check_code(env: &TestEnv, file: &str, args: &[&str], code: i32) -> Value {
    let out = env.locker().arg("--json").args(args).output().unwrap();
    let what = args.join(" ");
    assert_eq!(
        out.status.code(),
        Some(code),
        "locker --json {what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("locker --json {what}: stdout is not one JSON object: {e}"));
    assert_valid(file, &what, &v);
    v
}

fn check(env: &TestEnv, file: &str, args: &[&str]) -> Value {
    check_code(env, file, args, 0)
}

/// Runs a JSON Lines command and validates every line; returns the lines.
fn check_lines(env: &TestEnv, file: &str, args: &[&str]) -> Vec<Value> {
    let out = env.locker().arg("--json").args(args).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is one JSON object"))
        .collect();
    for l in &lines {
        assert_valid(file, &args.join(" "), l);
    }
    lines
}

/// Runs a failing `locker --json ARGS` (exit `code`) and validates stderr against the error
/// schema; returns the error object.
fn check_error(env: &TestEnv, args: &[&str], code: i32) -> Value {
    let e = env.json_err(args, code);
    assert_valid("error.schema.json", &args.join(" "), &e);
    e
}

fn s(v: &Value, field: &str) -> String {
    v[field].as_str().unwrap_or_else(|| panic!("no string `{field}` in {v}")).to_owned()
}

const ENVELOPE: &str = r#"{"schema":"locker.handoff.v1","task_id":"t","from_agent":"a","to_agent":"b","constraints":[],"artifacts":[],"budget_usd":null}"#;

#[test]
fn test_json_outputs_match_their_committed_schemas() {
    let mut env = TestEnv::new();
    env.pg = create_database();
    let url = env.pg.clone();
    let mut init = vec!["init"];
    if let Some(u) = &url {
        init.extend(["--store", u.as_str()]);
    }
    check(&env, "init.schema.json", &init);
    check(&env, "status.schema.json", &["status"]);

    // Pads.
    let pad = check(&env, "pad-create.schema.json", &["pad", "create"]);
    let (id, key, ticket) = (s(&pad, "pad_id"), s(&pad, "write_key"), s(&pad, "read_ticket"));
    check(&env, "append.schema.json", &["append", &id, "--key", &key, "--data", ENVELOPE]);
    check(&env, "pad-append.schema.json", &["pad", "append", &id, "--key", &key, "-d", "two"]);
    check(&env, "pad-ticket.schema.json", &["pad", "ticket", &id, "--key", &key]);
    check(&env, "seal.schema.json", &["seal", &id, "--key", &key]);
    check(&env, "pad-show.schema.json", &["pad", "show", &id]);
    let read = check(&env, "pad-read.schema.json", &["pad", "read", &id, "--ticket", &ticket]);
    assert_eq!(read["count"], 2);
    check(&env, "pad-list.schema.json", &["pad", "list"]);
    let bundle = env.path().join("pad.bundle");
    let bundle = bundle.to_str().unwrap();
    check(&env, "pad-export.schema.json", &["pad", "export", &id, "-o", bundle]);
    check(&env, "verify.schema.json", &["verify", &id]);
    check(&env, "verify.schema.json", &["verify", "--bundle", bundle]);

    // Artifacts.
    let publish = ["artifact", "publish", "notes/a.md", "--data", "one", "--expect", "0"];
    let p = check(&env, "artifact-publish.schema.json", &[&publish[..], &["--op", "o1"]].concat());
    assert_eq!(p["replayed"], false);
    let get = check(&env, "artifact-get.schema.json", &["artifact", "get", "notes/a.md"]);
    assert_eq!(get["content"], "one");
    check(&env, "artifact-log.schema.json", &["artifact", "log", "notes/a.md"]);
    check(&env, "artifact-list.schema.json", &["artifact", "list"]);

    // Work: a lease, its manifest and a step.
    let lease =
        check(&env, "lease-acquire.schema.json", &["lease", "acquire", "job", "--ttl", "1h"]);
    let l = s(&lease, "lease_id");
    check(
        &env,
        "manifest-commit.schema.json",
        &["manifest", "commit", "job", "--lease", &l, "a", "b"],
    );
    check(&env, "step.schema.json", &["step", "job", "a", "--lease", &l, "--executed", "did a"]);
    check(&env, "manifest-show.schema.json", &["manifest", "show", "job"]);
    // Step `b` is a hole: a clean "no", exit 1, with the same shape.
    let diff = check_code(&env, "manifest-diff.schema.json", &["manifest", "diff", "job"], 1);
    assert_eq!(diff["holes"], json!(["b"]), "{diff}");
    check(&env, "lease-heartbeat.schema.json", &["lease", "heartbeat", "job", "--lease", &l]);
    check(&env, "lease-show.schema.json", &["lease", "show", "job"]);
    check(&env, "lease-list.schema.json", &["lease", "list"]);
    check(&env, "lease-history.schema.json", &["lease", "history", "job"]);

    // Tokens and keys.
    check(
        &env,
        "token-create.schema.json",
        &["token", "create", "--agent", "bot", "--scope", "default"],
    );
    check(&env, "token-list.schema.json", &["token", "list"]);
    check(&env, "key-list.schema.json", &["key", "list"]);
    let vkey = s(&check(&env, "key-show.schema.json", &["key", "show"]), "vkey");

    // The journal, the repository's verdict and the transparency log.
    let entries = check_lines(&env, "log.schema.json", &["log"]);
    assert!(entries.len() > 5, "{entries:?}");
    let report = check(&env, "verify.schema.json", &["verify"]);
    assert_eq!(report["ok"], true);
    check(&env, "checkpoint.schema.json", &["checkpoint"]);
    let state = env.path().join("state");
    let state = state.to_str().unwrap();
    let pinned =
        check(&env, "checkpoint.schema.json", &["checkpoint", "--key", &vkey, "--state", state]);
    assert_eq!(pinned["pin"]["status"], "pinned");
    let proof = env.path().join("entry.proof");
    let proof = proof.to_str().unwrap();
    check(&env, "proof-inclusion.schema.json", &["proof", "inclusion", "1", "-o", proof]);
    check(&env, "proof-consistency.schema.json", &["proof", "consistency", "1"]);
    let r = check(
        &env,
        "verify.schema.json",
        &["verify", "--proof", proof, "--key", &vkey, "--no-pin"],
    );
    assert_eq!(r["ok"], true);

    // Housekeeping that changes nothing.
    check(&env, "gc.schema.json", &["gc", "--dry-run", "--blobs", "--pads-older-than", "1d"]);
    check(&env, "doctor.schema.json", &["doctor"]);

    // Errors: one object on stderr, whatever the class.
    let e = check_error(&env, &["pad", "show"], 2);
    assert_eq!(e["error"], "usage");
    let e = check_error(&env, &["pad", "show", "no-such-pad"], 3);
    assert_eq!(e["error"], "not_found");
    let stale = [&publish[..], &["--op", "o2"]].concat();
    let e = check_error(&env, &stale, 4);
    assert_eq!(e["current_version"], 1, "{e}");
    check_error(&env, &["seal", &id, "--key", "wrong"], 5);
}

/// The validator is not a rubber stamp: a missing required field, a wrong type and a wrong
/// alternative are each refused.
#[test]
fn test_json_schemas_refuse_what_the_commands_never_print() {
    let refused = |file: &str, instance: Value| {
        let validator = jsonschema::validator_for(&schema(file)).unwrap();
        assert!(!validator.is_valid(&instance), "{file} accepted {instance}");
    };
    refused(
        "pad-create.schema.json",
        json!({"write_key": "k", "read_ticket": "t", "expires_at": 1, "max_blocks": 4}),
    );
    refused(
        "pad-create.schema.json",
        json!({"pad_id": 7, "write_key": "k", "read_ticket": "t", "expires_at": 1, "max_blocks": 4}),
    );
    refused("verify.schema.json", json!({"ok": "yes"}));
    refused("error.schema.json", json!({"error": "usage"}));
    refused("error.schema.json", json!({"error": "usage", "detail": "x", "hints": "not a list"}));
}

/// Every schema file is listed in docs/json.md, the reference page that explains them.
#[test]
fn test_json_reference_page_lists_every_schema() {
    let page = std::fs::read_to_string(root().join("docs/json.md")).unwrap();
    for entry in std::fs::read_dir(root().join("docs/json")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        assert!(page.contains(&format!("json/{name}")), "docs/json.md does not list {name}");
    }
}
