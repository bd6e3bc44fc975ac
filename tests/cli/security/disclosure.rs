//! Attack: anonymous readers see more than they should (#18, item 5): write-key hashes,
//! ticket and lease ids in `/v1/journal`; every scope's names in `/v1/verify`; a ticket in the
//! access log through a malformed query; a payment block in `/health` for payments that are
//! off.

use serde_json::Value;

use super::{bearer, token};
use crate::common::{TestEnv, ENVELOPE};

const SECRETS: [&str; 4] = ["write_key_hash", "ticket_id", "lease_id", "token_id"];

/// Every value of the fields in `SECRETS`, at any depth.
fn secrets(v: &Value, out: &mut Vec<Value>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                if SECRETS.contains(&k.as_str()) {
                    out.push(x.clone());
                } else {
                    secrets(x, out);
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| secrets(x, out)),
        _ => {}
    }
}

/// A repository with a pad, a ticket, an anonymous lease and agents in two scopes.
fn busy_repository() -> (TestEnv, String, String) {
    let env = TestEnv::init();
    let pad = env.pad_with_envelope(&[]);
    env.json(&["pad", "ticket", &pad.id, "--key", &pad.key]);
    env.json(&["lease", "acquire", "job", "--holder", "bot"]);
    let a = token(&env, "alice", "team-a");
    let b = token(&env, "bob", "team-b");
    (env, a, b)
}

#[test]
fn test_security_anonymous_readers_see_no_credential_metadata() {
    let (env, _, _) = busy_repository();
    let s = env.serve(&[]);
    let page = s.curl_json("/v1/journal?limit=1000&reverse=1", &[], 200);
    let mut found = Vec::new();
    secrets(&page, &mut found);
    assert!(!found.is_empty(), "the test has such entries");
    assert!(found.iter().all(|v| v == "redacted"), "{found:?}");
    // The operator sees them.
    let mut local = Vec::new();
    for l in String::from_utf8(
        env.locker().args(["--json", "log", "-n", "1000"]).output().unwrap().stdout,
    )
    .unwrap()
    .lines()
    {
        secrets(&serde_json::from_str(l).unwrap(), &mut local);
    }
    assert!(local.iter().any(|v| v != "redacted"));
    // Nor lease ids in the lease listing and a work item's status.
    let leases = s.curl_json("/v1/leases", &[], 200);
    assert_eq!(leases["leases"][0]["lease_id"], "redacted", "{leases}");
    assert_eq!(s.curl_json("/v1/lease?work=job", &[], 200)["lease_id"], "redacted");
    let mut found = Vec::new();
    secrets(&s.curl_json("/ledger?work=job", &[], 200), &mut found);
    assert!(found.iter().all(|v| v == "redacted"), "{found:?}");
}

#[test]
fn test_security_with_require_token_the_listings_need_one_and_show_its_scope() {
    let (env, a, _) = busy_repository();
    let s = env.serve(&["--require-token"]);
    for path in ["/v1/journal", "/v1/verify", "/v1/leases", "/v1/pads"] {
        let e = s.curl_json(path, &[], 401);
        assert_eq!(e["error"], "unauthorized", "{path}");
    }
    // alice's scope gets an entry of its own.
    let auth = bearer(&a);
    s.curl_json("/lease", &["-X", "POST", "-H", &auth, "-d", r#"{"work_ref":"mine"}"#], 200);
    let page = s.curl_json("/v1/journal?limit=1000", &["-H", &auth], 200);
    let entries = page["entries"].as_array().unwrap();
    let total = env.json(&["verify"])["journal"]["entries"].as_u64().unwrap();
    assert_eq!(entries.len() as u64, total, "every entry has its place");
    for e in entries {
        if e["scope"] != "team-a" {
            assert_eq!(
                (&e["kind"], &e["actor"], &e["subject"], &e["body"]),
                (&"redacted".into(), &"".into(), &"".into(), &Value::Null),
                "{e}"
            );
        }
    }
    assert!(entries.iter().any(|e| e["scope"] == "team-a" && e["kind"] == "lease.acquire"));
    // The chain still links, newest first.
    for w in entries.windows(2) {
        assert_eq!(w[0]["prev_hash"], w[1]["hash"]);
    }
    // Pads and leases: its own scope's only.
    assert_eq!(s.curl_json("/v1/pads", &["-H", &auth], 200)["pads"], serde_json::json!([]));
    let leases = s.curl_json("/v1/leases", &["-H", &auth], 200);
    assert_eq!(leases["leases"].as_array().unwrap().len(), 1);
    assert_eq!(leases["leases"][0]["work"], "mine");
}

#[test]
fn test_security_verify_names_what_is_broken_to_the_operator_only() {
    let (env, a, _) = busy_repository();
    env.sql().execute("UPDATE leases SET holder = 'mallory' WHERE work = 'job'", []).unwrap();
    let s = env.serve(&["--require-token"]);
    let (_, local) = env.verify();
    assert_eq!(local["ok"], false);
    let named = local["problems"].to_string();
    let report = s.curl_json("/v1/verify", &["-H", &bearer(&a)], 200);
    assert_eq!((&report["ok"], &report["problem_count"]), (&local["ok"], &local["problem_count"]));
    for p in report["problems"].as_array().unwrap() {
        assert_eq!(p["subject"], "redacted", "{p}");
        assert!(p["detail"].as_str().unwrap().starts_with("redacted"), "{p}");
    }
    assert!(named.contains("job"), "the operator is told: {named}");
    assert!(!report.to_string().contains("work:job"), "{report}");
}

#[test]
fn test_security_the_access_log_never_prints_a_raw_query_value() {
    let env = TestEnv::init();
    let pad = env.pad_with_envelope(&[]);
    let s = env.serve(&["--log-format", "json"]);
    let secret = "TICKETSECRETxyz";
    for q in [
        format!("from=0;ticket={secret}"),
        format!("ticket={secret}"),
        format!("from={secret}&to=1"),
        format!("{secret}=1"),
    ] {
        s.curl(&format!("/v1/pads/{}/blocks?{q}", pad.id), &[]);
    }
    s.curl("/v1/journal?limit=2&kind=pad.create", &[]);
    let (_, log) = s.stop();
    assert!(!log.contains(secret), "{log}");
    assert!(log.contains(r#""query":"from=***""#), "{log}");
    assert!(log.contains(r#""query":"limit=2&kind=***""#), "{log}");
}

#[test]
fn test_security_health_reports_what_is_true() {
    let env = TestEnv::init();
    env.append(&env.create_pad(&[]), ENVELOPE);
    let s = env.serve(&[]);
    let h = s.curl_json("/health", &[], 200);
    assert!(h.get("rpc").is_none(), "payments are off: {h}");
    let v = env.json(&["verify"]);
    assert_eq!(h["journal"]["entries"], v["journal"]["entries"]);
    assert_eq!(h["journal"]["head_hash"], v["journal"]["head_hash"]);
    assert_eq!(h["journal"]["key_id"].as_str().map(str::len), Some(8), "{h}");
}

/// A row edited outside locker is damage to the store: a client is told the error's code and
/// no more (not the table, row or column, which are the operator's to read in the server's log
/// and from `locker verify`); a client of the MCP endpoint the same.
#[test]
fn test_security_a_damaged_row_is_named_to_the_operator_only() {
    let env = TestEnv::init();
    let pad = env.pad_with_envelope(&[]);
    env.append(&pad, "second");
    // The pad's head, which every append reads: its row's on PostgreSQL, its last block's on
    // SQLite.
    env.sql().set_pad_accounting(&pad.id, None, Some("not a digest"));
    let s = env.serve(&[]);
    let (status, v) = crate::common::server::append_block(s.addr, &pad.id, &pad.key, "third");
    assert_eq!(status, 500, "{v}");
    assert_eq!(v["error"], "corrupt_store", "{v}");
    assert_eq!(v["detail"], "internal server error", "{v}");
    assert!(!v.to_string().contains("curr_hash"), "{v}");
    // The same append as an MCP tool over HTTP: an error result with the code and no more.
    let result = s.mcp_call(
        "locker_append",
        serde_json::json!({"pad_id": pad.id, "write_key": pad.key, "payload": "third"}),
    );
    assert_eq!(result["isError"], true, "{result}");
    let e: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(
        (&e["error"], &e["detail"]),
        (&"corrupt_store".into(), &"internal server error".into())
    );
    let (_, log) = s.stop();
    assert!(log.contains("error=corrupt_store"), "{log}");
    assert!(log.contains("cannot be read") && log.contains("hash`"), "the log names it: {log}");
    let (code, report) = env.verify();
    assert_eq!(code, 1, "{report}");
    assert!(report["problems"].to_string().contains("hash`"), "{report}");
}
