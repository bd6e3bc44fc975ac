//! Handoff pads through the CLI: every command, every error path in the peer's check order,
//! every limit at and one past its edge (SPEC §3, agent-locker §3–§6).

use std::io::Write as _;
use std::process::Stdio;

use serde_json::Value;

use crate::common::{envelope_of_len, Pad, TestEnv, ENVELOPE, NOW};

const ZERO: &str = "0000000000000000000000000000000000000000000000000000000000000000";

fn count_kind(env: &TestEnv, kind: &str) -> i64 {
    env.sql()
        .query_row("SELECT COUNT(*) FROM journal WHERE kind = ?1", [kind], |r| r.get(0))
        .unwrap()
}

fn read(env: &TestEnv, pad: &Pad, ticket: &str, range: &[&str]) -> Value {
    let mut args = vec!["pad", "read", &pad.id, "--ticket", ticket];
    args.extend_from_slice(range);
    env.json(&args)
}

fn sha256_hex(bytes: &[u8]) -> String {
    let mut child = std::process::Command::new("sha256sum")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("sha256sum runs");
    child.stdin.take().unwrap().write_all(bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8(out.stdout).unwrap()[..64].to_owned()
}

// ---------------------------------------------------------------------------------------------
// create

#[test]
fn test_pad_create_defaults_and_manifest() {
    if crate::common::sqlite_only("reads or tampers with the SQLite files directly") {
        return;
    }
    let env = TestEnv::init();
    let created = env.json(&["pad", "create"]);
    let id = created["pad_id"].as_str().unwrap();
    assert_eq!(id.len(), 32);
    assert_eq!(created["write_key"].as_str().unwrap().len(), 43);
    assert_eq!(created["read_ticket"].as_str().unwrap().len(), 43);
    assert_eq!(created["expires_at"], NOW + 3600);
    assert_eq!(created["max_blocks"], 32);
    let m = env.json(&["pad", "show", id]);
    assert_eq!(m["pad_id"], id);
    assert_eq!(m["state"], "open");
    assert_eq!(m["block_count"], 0);
    assert_eq!(m["total_bytes"], 0);
    assert_eq!(m["sealed_at"], Value::Null);
    assert_eq!(m["head_hash"], ZERO);
    assert_eq!(m["created_at"], NOW);
    assert_eq!(m["expires_at"], NOW + 3600);
    assert_eq!(m["max_blocks"], 32);
    assert_eq!(m["max_bytes"], 262_144);
    // Only digests are stored: the secrets appear nowhere in the database file.
    let db = std::fs::read(env.db_path()).unwrap();
    let wal = std::fs::read(env.db_path().with_extension("db-wal")).unwrap_or_default();
    for secret in [&created["write_key"], &created["read_ticket"]] {
        let s = secret.as_str().unwrap().as_bytes();
        assert!(!db.windows(s.len()).any(|w| w == s), "a secret is stored in plain text");
        assert!(!wal.windows(s.len()).any(|w| w == s), "a secret is stored in plain text");
    }
    // Human output shows each capability once.
    let out = env.locker().args(["pad", "create"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("write_key:") && text.contains("read_ticket:"), "{text}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("not shown again"));
}

#[test]
fn test_pad_create_limits_at_and_past_their_edges() {
    let env = TestEnv::init();
    for (ttl, blocks) in [("1", "1"), ("2592000", "4096")] {
        let c = env.json(&["pad", "create", "--ttl", ttl, "--max-blocks", blocks]);
        assert_eq!(c["expires_at"], NOW + ttl.parse::<i64>().unwrap());
        assert_eq!(c["max_blocks"], blocks.parse::<i64>().unwrap());
    }
    for (flag, value, detail) in [
        ("--ttl", "0", "ttl_seconds must be between 1 and 2592000, got 0"),
        ("--ttl", "2592001", "ttl_seconds must be between 1 and 2592000, got 2592001"),
        ("--ttl", "-1", "ttl_seconds must be between 1 and 2592000, got -1"),
        ("--max-blocks", "0", "max_blocks must be between 1 and 4096, got 0"),
        ("--max-blocks", "4097", "max_blocks must be between 1 and 4096, got 4097"),
    ] {
        let arg = format!("{flag}={value}");
        env.fails(&["pad", "create", &arg], 6, "unprocessable", detail);
    }
    let before = env.snapshot();
    let out = env.run(&["pad", "create", "--ttl", "soon"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(env.snapshot(), before);
}

// ---------------------------------------------------------------------------------------------
// append

#[test]
fn test_pad_append_acks_and_payload_sources() {
    let env = TestEnv::init();
    let pad = env.create_pad(&[]);
    // --data
    let ack = env.append(&pad, ENVELOPE);
    assert_eq!(ack["pad_id"], pad.id.as_str());
    assert_eq!(ack["seq"], 0);
    // FILE, with a content type
    let f = env.file("note.txt", b"from a file\n");
    let ack = env.json(&["append", &pad.id, &f, "--key", &pad.key, "--content-type", "text/plain"]);
    assert_eq!(ack["seq"], 1);
    // `-` and implicit stdin, and `locker pad append`
    for args in [
        vec!["--json", "pad", "append", &pad.id, "-", "--key", &pad.key],
        vec!["--json", "append", &pad.id, "--key", &pad.key],
    ] {
        let mut child = env
            .process()
            .args(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(b"from stdin").unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    // The key from the environment and from a file.
    let ack = env
        .locker()
        .env("LOCKER_WRITE_KEY", &pad.key)
        .args(["--json", "append", &pad.id, "--data", "env key"])
        .output()
        .unwrap();
    assert!(ack.status.success());
    let keyfile = env.file("key", format!("{}\n", pad.key).as_bytes());
    let ack = env.json(&["append", &pad.id, "--key-file", &keyfile, "--data", "file key"]);
    assert_eq!(ack["seq"], 5);
    let slice = read(&env, &pad, &pad.ticket, &[]);
    let blocks = slice["blocks"].as_array().unwrap();
    let texts: Vec<&str> = blocks.iter().map(|b| b["payload_utf8"].as_str().unwrap()).collect();
    assert_eq!(
        texts,
        [ENVELOPE, "from a file\n", "from stdin", "from stdin", "env key", "file key"]
    );
    let types: Vec<&str> = blocks.iter().map(|b| b["content_type"].as_str().unwrap()).collect();
    assert_eq!(types[..2], ["application/json", "text/plain"]);
    // Human output: "<pad> <seq> <hash>".
    let out = env.locker().args(["append", &pad.id, "--key", &pad.key, "--data", "h"]).output();
    let text = String::from_utf8(out.unwrap().stdout).unwrap();
    let fields: Vec<&str> = text.split_whitespace().collect();
    assert_eq!(fields.len(), 3);
    assert_eq!((fields[0], fields[1]), (pad.id.as_str(), "6"));
    assert_eq!(fields[2].len(), 64);
}

#[test]
fn test_pad_append_oversize_is_refused_before_the_pad_lookup() {
    let env = TestEnv::init();
    let pad = env.create_pad(&[]);
    let big = env.file("big", &vec![b'x'; 65_537]);
    let detail = "payload exceeds 65536 bytes";
    // Unknown pad, no key: still 413 first.
    env.fails(&["append", "no-such-pad", &big], 6, "payload_too_large", detail);
    env.fails(&["append", &pad.id, &big], 6, "payload_too_large", detail);
    env.fails(&["append", &pad.id, &big, "--key", &pad.key], 6, "payload_too_large", detail);
    // From stdin too, and --data.
    let data = "y".repeat(65_537);
    env.fails(
        &["append", &pad.id, "--key", &pad.key, "--data", &data],
        6,
        "payload_too_large",
        detail,
    );
    let before = env.snapshot();
    let mut child = env
        .process()
        .args(["--json", "append", &pad.id, "-", "--key", &pad.key])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The writer may see a broken pipe once locker has read one byte past the limit.
    let _ = child.stdin.take().unwrap().write_all(&vec![b'z'; 200_000]);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(6));
    let e: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(e["detail"], detail);
    assert_eq!(env.snapshot(), before);
}

#[test]
fn test_pad_append_check_order() {
    let env = TestEnv::init();
    let open = env.pad_with_envelope(&["--max-blocks", "2"]);
    let sealed = env.pad_with_envelope(&[]);
    env.json(&["seal", &sealed.id, "--key", &sealed.key]);
    let expiring = env.pad_with_envelope(&["--ttl", "10"]);
    let empty = env.file("empty", b"");

    // 2. pad lookup before the key: an unknown pad is 404 without a key.
    for id in ["no-such-pad", "0123456789abcdef0123456789abcdef", &"p".repeat(300), "a b\tc"] {
        env.fails(&["append", id, "--data", "x"], 3, "not_found", "pad not found");
    }
    // 3. the key before the state and the payload.
    for pad in [&open, &sealed] {
        for key in [&["--key", "wrong"][..], &[]] {
            let mut args = vec!["append", pad.id.as_str(), empty.as_str()];
            args.extend_from_slice(key);
            env.fails(&args, 5, "unauthorized", "invalid write key");
        }
    }
    // Another pad's key is just as wrong.
    env.fails(
        &["append", &open.id, "--key", &sealed.key, "--data", "x"],
        5,
        "unauthorized",
        "invalid write key",
    );
    // 5. the state before the payload.
    env.fails(
        &["append", &sealed.id, &empty, "--key", &sealed.key],
        4,
        "conflict",
        "pad is sealed",
    );
    let before = env.snapshot();
    let at = NOW + 10;
    for payload in [&["--data", "x"][..], &[empty.as_str()]] {
        let mut args = vec!["append", expiring.id.as_str(), "--key", expiring.key.as_str()];
        args.extend_from_slice(payload);
        let e = env.json_err_at(at, &args, 7);
        assert_eq!(
            (e["error"].as_str(), e["detail"].as_str()),
            (Some("gone"), Some("pad is expired"))
        );
    }
    assert_eq!(env.snapshot(), before);
    // One second earlier it is still open.
    env.json_at(at - 1, &["append", &expiring.id, "--key", &expiring.key, "--data", "in time"]);
    // 6. empty payload before the quota.
    env.append(&open, "second");
    env.fails(&["append", &open.id, &empty, "--key", &open.key], 6, "bad_request", "empty payload");
    // 8. the block quota.
    let e = env.fails(
        &["append", &open.id, "--key", &open.key, "--data", "third"],
        4,
        "conflict",
        "block quota exceeded",
    );
    assert_eq!(e["max_blocks"], 2);
    // A bad content type is refused.
    let fresh = env.pad_with_envelope(&[]);
    env.fails(
        &["append", &fresh.id, "--key", &fresh.key, "--data", "x", "--content-type", ""],
        6,
        "bad_request",
        "content type must be 1–255 bytes without control characters",
    );
}

#[test]
fn test_pad_append_quota_is_checked_before_the_envelope() {
    let env = TestEnv::init();
    let pad = env.create_pad(&[]);
    // No honest pad can be full before block 0; make one look full behind locker's back.
    env.sql().execute("UPDATE pads SET max_bytes = 0 WHERE id = ?1", [&pad.id]).unwrap();
    env.fails(
        &["append", &pad.id, "--key", &pad.key, "--data", "not an envelope"],
        4,
        "conflict",
        "byte quota exceeded",
    );
    env.sql()
        .execute("UPDATE pads SET max_bytes = 262144, max_blocks = 0 WHERE id = ?1", [&pad.id])
        .unwrap();
    env.fails(
        &["append", &pad.id, "--key", &pad.key, "--data", "not an envelope"],
        4,
        "conflict",
        "block quota exceeded",
    );
}

#[test]
fn test_pad_append_block_zero_envelope_reasons() {
    let env = TestEnv::init();
    let pad = env.create_pad(&[]);
    let full = |extra: &str| {
        format!(
            r#"{{"schema":"locker.handoff.v1","task_id":"t","from_agent":"a","to_agent":"b","constraints":[],"artifacts":[],"budget_usd":null{extra}}}"#
        )
    };
    let cases: Vec<(String, &str)> = vec![
        ("not json".into(), "payload must be JSON"),
        ("{\"schema\": NaN}".into(), "payload must be JSON"),
        ("[1,2]".into(), "payload must be a JSON object"),
        ("\"text\"".into(), "payload must be a JSON object"),
        (r#"{"schema":"locker.handoff.v2"}"#.into(), "schema must be 'locker.handoff.v1'"),
        (r#"{"task_id":"t"}"#.into(), "schema must be 'locker.handoff.v1'"),
        (r#"{"schema":"locker.handoff.v1"}"#.into(), "missing required field 'task_id'"),
        (
            r#"{"schema":"locker.handoff.v1","task_id":"t","from_agent":"a","to_agent":"b"}"#
                .into(),
            "missing required field 'constraints'",
        ),
        (full("").replace(r#","budget_usd":null"#, ""), "missing required field 'budget_usd'"),
        (
            full("").replace(r#""task_id":"t""#, r#""task_id":"""#),
            "field 'task_id' has an invalid type/value",
        ),
        (
            full("").replace(r#""to_agent":"b""#, r#""to_agent":7"#),
            "field 'to_agent' has an invalid type/value",
        ),
        (
            full("").replace(r#""constraints":[]"#, r#""constraints":[1]"#),
            "field 'constraints' has an invalid type/value",
        ),
        (
            full("").replace(r#""artifacts":[]"#, r#""artifacts":["a"]"#),
            "field 'artifacts' has an invalid type/value",
        ),
        (
            full("").replace(r#""budget_usd":null"#, r#""budget_usd":true"#),
            "field 'budget_usd' has an invalid type/value",
        ),
        (
            full(r#","allowed_paths":"src""#),
            "field 'allowed_paths' has an invalid type/value (expected list[str] or null)",
        ),
    ];
    for (payload, reason) in &cases {
        let detail = format!("block 0 invalid envelope: {reason}");
        let e = env.fails(
            &["append", &pad.id, "--key", &pad.key, "--data", payload],
            6,
            "bad_request",
            &detail,
        );
        assert!(e["hints"].to_string().contains("locker.handoff.v1"), "{e}");
    }
    let binary = env.file("bin", &[0xff, 0xfe, 0x00]);
    env.fails(
        &["append", &pad.id, &binary, "--key", &pad.key],
        6,
        "bad_request",
        "block 0 invalid envelope: payload must be JSON",
    );
    // Valid ones: extra keys, allowed_paths, numbers, and later blocks are free-form.
    env.append(&pad, &full(r#","allowed_paths":["src/**"],"extra":{"k":1}"#));
    env.append(&pad, "anything at all");
    env.append(&pad, "[1,2]");
}

#[test]
fn test_pad_append_block_and_pad_size_limits() {
    let env = TestEnv::init();
    let pad = env.create_pad(&[]);
    // A 65536-byte envelope is accepted as block 0.
    let env0 = env.file("env0", envelope_of_len(65_536).as_bytes());
    assert_eq!(env.json(&["append", &pad.id, &env0, "--key", &pad.key])["seq"], 0);
    let block = env.file("block", &vec![b'b'; 65_536]);
    for seq in 1..=3 {
        let ack = env.json(&["append", &pad.id, &block, "--key", &pad.key]);
        assert_eq!(ack["seq"], seq);
    }
    let m = env.json(&["pad", "show", &pad.id]);
    assert_eq!(m["total_bytes"], 262_144);
    assert_eq!(m["block_count"], 4);
    // The pad is exactly full: one more byte is over the byte quota.
    let e = env.fails(
        &["append", &pad.id, "--key", &pad.key, "--data", "1"],
        4,
        "conflict",
        "byte quota exceeded",
    );
    assert_eq!(e["max_bytes"], 262_144);
    // One byte short of full accepts one byte and not two.
    let pad2 = env.create_pad(&[]);
    env.json(&["append", &pad2.id, &env0, "--key", &pad2.key]);
    env.json(&["append", &pad2.id, &block, "--key", &pad2.key]);
    env.json(&["append", &pad2.id, &block, "--key", &pad2.key]);
    let almost = env.file("almost", &vec![b'c'; 65_535]);
    env.json(&["append", &pad2.id, &almost, "--key", &pad2.key]);
    env.fails(
        &["append", &pad2.id, "--key", &pad2.key, "--data", "22"],
        4,
        "conflict",
        "byte quota exceeded",
    );
    env.json(&["append", &pad2.id, "--key", &pad2.key, "--data", "2"]);
    assert_eq!(env.json(&["pad", "show", &pad2.id])["total_bytes"], 262_144);
    // Reading a full 64 KiB block works one block at a time.
    let slice = read(&env, &pad, &pad.ticket, &["--from", "1", "--to", "1"]);
    assert_eq!(slice["blocks"][0]["payload_utf8"].as_str().unwrap().len(), 65_536);
}

#[test]
fn test_pad_append_max_blocks_edges() {
    let env = TestEnv::init();
    let one = env.create_pad(&["--max-blocks", "1"]);
    env.append(&one, ENVELOPE);
    env.fails(
        &["append", &one.id, "--key", &one.key, "--data", "x"],
        4,
        "conflict",
        "block quota exceeded",
    );
    // 4096 blocks fit in a 4096-block pad, and the 4097th does not (deposit fills it quickly).
    let dir = env.path().join("many");
    std::fs::create_dir_all(&dir).unwrap();
    let mut args = vec![
        "deposit".to_owned(),
        "--envelope".to_owned(),
        env.file("e.json", ENVELOPE.as_bytes()),
    ];
    for i in 0..4095 {
        let p = env.file(&format!("many/{i}"), b"z");
        args.push("--artifact".into());
        args.push(p);
    }
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let d = env.json(&refs);
    assert_eq!(d["block_count"], 4096);
    let p = env.file("many/extra", b"z");
    let mut over = refs.clone();
    over.extend_from_slice(&["--artifact", &p]);
    env.fails(&over, 6, "payload_too_large", "a pad holds at most 4096 blocks; got 4097");
}

// ---------------------------------------------------------------------------------------------
// seal

#[test]
fn test_pad_seal_and_its_errors() {
    let env = TestEnv::init();
    let pad = env.pad_with_envelope(&[]);
    let last = env.append(&pad, "two");
    // Errors, in order: pad, key.
    env.fails(&["seal", "no-such-pad"], 3, "not_found", "pad not found");
    env.fails(&["seal", &pad.id], 5, "unauthorized", "invalid write key");
    env.fails(&["seal", &pad.id, "--key", "nope"], 5, "unauthorized", "invalid write key");
    let sealed = env.json_at(NOW + 5, &["pad", "seal", &pad.id, "--key", &pad.key]);
    assert_eq!(sealed["pad_id"], pad.id.as_str());
    assert_eq!(sealed["state"], "sealed");
    assert_eq!(sealed["sealed_at"], NOW + 5);
    assert_eq!(sealed["head_hash"], last["curr_hash"]);
    let m = env.json(&["pad", "show", &pad.id]);
    assert_eq!((m["state"].as_str(), m["sealed_at"].as_i64()), (Some("sealed"), Some(NOW + 5)));
    env.fails(&["seal", &pad.id, "--key", &pad.key], 4, "conflict", "pad is sealed");
    env.fails(
        &["append", &pad.id, "--key", &pad.key, "--data", "x"],
        4,
        "conflict",
        "pad is sealed",
    );
    // A sealed pad never expires.
    let m = env.json_at(NOW + 10_000_000, &["pad", "show", &pad.id]);
    assert_eq!(m["state"], "sealed");
    // An expired pad cannot be sealed.
    let exp = env.pad_with_envelope(&["--ttl", "60"]);
    let before = env.snapshot();
    let e = env.json_err_at(NOW + 60, &["seal", &exp.id, "--key", &exp.key], 7);
    assert_eq!((e["error"].as_str(), e["detail"].as_str()), (Some("gone"), Some("pad is expired")));
    assert_eq!(env.snapshot(), before);
    // The human form prints the head.
    let h = env.pad_with_envelope(&[]);
    let out = env.locker().args(["seal", &h.id, "--key", &h.key]).output().unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap().trim(),
        env.json(&["pad", "show", &h.id])["head_hash"]
    );
}

#[test]
fn test_pad_seal_an_empty_pad() {
    let env = TestEnv::init();
    let pad = env.create_pad(&[]);
    let sealed = env.json(&["seal", &pad.id, "--key", &pad.key]);
    assert_eq!(sealed["head_hash"], ZERO);
    let slice = read(&env, &pad, &pad.ticket, &[]);
    assert_eq!(slice["count"], 0);
    assert_eq!(slice["total_blocks"], 0);
    assert_eq!(env.verify().0, 0);
}

// ---------------------------------------------------------------------------------------------
// tickets

#[test]
fn test_pad_ticket_mint_both_types() {
    let env = TestEnv::init();
    let pad = env.pad_with_envelope(&[]);
    let t = env.json(&["pad", "ticket", &pad.id, "--key", &pad.key]);
    assert_eq!(t["pad_id"], pad.id.as_str());
    assert_eq!(t["type"], "read_unlimited");
    let ticket = t["ticket"].as_str().unwrap();
    assert_eq!(ticket.len(), 43);
    assert_eq!(t["ticket_id"], sha256_hex(ticket.as_bytes()));
    let once = env.json(&["pad", "ticket", &pad.id, "--type", "read_once", "--key", &pad.key]);
    assert_eq!(once["type"], "read_once");
    assert_ne!(once["ticket"], t["ticket"]);
    for tk in [ticket, once["ticket"].as_str().unwrap()] {
        assert_eq!(read(&env, &pad, tk, &[])["count"], 1);
    }
    assert_eq!(count_kind(&env, "pad.ticket"), 2);
    // Errors: pad, then key; an unknown type is a usage error.
    env.fails(&["pad", "ticket", "nope", "--key", &pad.key], 3, "not_found", "pad not found");
    env.fails(&["pad", "ticket", &pad.id], 5, "unauthorized", "invalid write key");
    env.fails(&["pad", "ticket", &pad.id, "--key", "bad"], 5, "unauthorized", "invalid write key");
    let before = env.snapshot();
    let out = env.run(&["pad", "ticket", &pad.id, "--type", "write", "--key", &pad.key]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(env.snapshot(), before);
    // Tickets can be minted on sealed and expired pads (as with the peer).
    let exp = env.pad_with_envelope(&["--ttl", "5"]);
    let late = env.json_at(NOW + 100, &["pad", "ticket", &exp.id, "--key", &exp.key]);
    let slice = env.json_at(
        NOW + 100,
        &["pad", "read", &exp.id, "--ticket", late["ticket"].as_str().unwrap()],
    );
    assert_eq!(slice["count"], 1);
    env.json(&["seal", &pad.id, "--key", &pad.key]);
    env.json(&["pad", "ticket", &pad.id, "--key", &pad.key]);
}

#[test]
fn test_pad_revoke_ticket_by_ticket_and_by_id() {
    let env = TestEnv::init();
    let pad = env.pad_with_envelope(&[]);
    let other = env.pad_with_envelope(&[]);
    let a = env.json(&["pad", "ticket", &pad.id, "--key", &pad.key]);
    let b = env.json(&["pad", "ticket", &pad.id, "--key", &pad.key]);
    let (ta, tb) = (a["ticket"].as_str().unwrap(), b["ticket"].as_str().unwrap());
    let id_b = b["ticket_id"].as_str().unwrap();

    // Errors first: pad, key, then the ticket must belong to this pad.
    env.fails(
        &["pad", "revoke-ticket", "nope", ta, "--key", &pad.key],
        3,
        "not_found",
        "pad not found",
    );
    env.fails(&["pad", "revoke-ticket", &pad.id, ta], 5, "unauthorized", "invalid write key");
    env.fails(
        &["pad", "revoke-ticket", &pad.id, &other.ticket, "--key", &pad.key],
        3,
        "not_found",
        "ticket not found for this pad",
    );
    env.fails(
        &["pad", "revoke-ticket", &other.id, ta, "--key", &other.key],
        3,
        "not_found",
        "ticket not found for this pad",
    );
    env.fails(
        &["pad", "revoke-ticket", &pad.id, "garbage", "--key", &pad.key],
        3,
        "not_found",
        "ticket not found for this pad",
    );

    let r = env.json_at(NOW + 7, &["pad", "revoke-ticket", &pad.id, ta, "--key", &pad.key]);
    assert_eq!(r["already_revoked"], false);
    assert_eq!(r["revoked_at"], NOW + 7);
    assert_eq!(r["ticket_id"], a["ticket_id"]);
    let r = env.json(&["pad", "revoke-ticket", &pad.id, id_b, "--key", &pad.key]);
    assert_eq!(
        (r["already_revoked"].as_bool(), r["ticket_id"].as_str()),
        (Some(false), Some(id_b))
    );
    // A revoked ticket is unknown: 401.
    for t in [ta, tb] {
        env.fails(
            &["pad", "read", &pad.id, "--ticket", t],
            5,
            "unauthorized",
            "invalid read ticket",
        );
    }
    // Revoking again is idempotent and journals nothing.
    assert_eq!(count_kind(&env, "pad.ticket_revoke"), 2);
    let before = env.snapshot();
    for r in [ta, a["ticket_id"].as_str().unwrap()] {
        let again = env.json_at(NOW + 99, &["pad", "revoke-ticket", &pad.id, r, "--key", &pad.key]);
        assert_eq!(again["already_revoked"], true);
        assert_eq!(again["revoked_at"], NOW + 7);
    }
    assert_eq!(env.snapshot(), before);
    assert_eq!(count_kind(&env, "pad.ticket_revoke"), 2);
    // The creation ticket can be revoked too; other tickets still work.
    let c = env.json(&["pad", "ticket", &pad.id, "--key", &pad.key]);
    env.json(&["pad", "revoke-ticket", &pad.id, &pad.ticket, "--key", &pad.key]);
    env.fails(
        &["pad", "read", &pad.id, "--ticket", &pad.ticket],
        5,
        "unauthorized",
        "invalid read ticket",
    );
    assert_eq!(read(&env, &pad, c["ticket"].as_str().unwrap(), &[])["count"], 1);
    assert_eq!(env.verify().0, 0);
}

// ---------------------------------------------------------------------------------------------
// read

#[test]
fn test_pad_read_ticket_errors_in_order() {
    let env = TestEnv::init();
    let pad = env.pad_with_envelope(&[]);
    let other = env.pad_with_envelope(&[]);
    // 1. pad before ticket.
    env.fails(&["pad", "read", "nope"], 3, "not_found", "pad not found");
    env.fails(&["pad", "read", "nope", "--ticket", &pad.ticket], 3, "not_found", "pad not found");
    // 2. missing, 3. invalid, or another pad's ticket.
    env.fails(&["pad", "read", &pad.id], 5, "unauthorized", "missing read ticket");
    env.fails(
        &["pad", "read", &pad.id, "--ticket", "bogus"],
        5,
        "unauthorized",
        "invalid read ticket",
    );
    env.fails(
        &["pad", "read", &pad.id, "--ticket", &other.ticket],
        5,
        "unauthorized",
        "invalid read ticket",
    );
    env.fails(
        &["pad", "read", &pad.id, "--ticket", &pad.key],
        5,
        "unauthorized",
        "invalid read ticket",
    );
    // Secrets may begin with `-` (URL-safe base64): they are values, not options.
    env.fails(
        &["pad", "read", &pad.id, "--ticket", "-H_x"],
        5,
        "unauthorized",
        "invalid read ticket",
    );
    env.fails(
        &["append", &pad.id, "--key", "-k", "--data", "x"],
        5,
        "unauthorized",
        "invalid write key",
    );
    env.fails(
        &["pad", "revoke-ticket", &pad.id, "-H_x", "--key", &pad.key],
        3,
        "not_found",
        "ticket not found for this pad",
    );
    assert_eq!(env.append(&pad, "-1")["seq"], 1);
    // The ticket check comes before the range check.
    env.fails(&["pad", "read", &pad.id, "--from", "-1"], 5, "unauthorized", "missing read ticket");
    // Tickets from the environment and from a file.
    let out = env
        .locker()
        .env("LOCKER_TICKET", &pad.ticket)
        .args(["--json", "pad", "read", &pad.id])
        .output()
        .unwrap();
    assert!(out.status.success());
    let f = env.file("ticket", format!("{}\n", other.ticket).as_bytes());
    assert_eq!(env.json(&["pad", "read", &other.id, "--ticket-file", &f])["count"], 1);
    let empty = env.file("empty-ticket", b"\n");
    let e = env.json_err(&["pad", "read", &other.id, "--ticket-file", &empty], 6);
    assert!(e["detail"].as_str().unwrap().contains("is empty"), "{e}");
}

#[test]
fn test_pad_read_ranges() {
    let env = TestEnv::init();
    let pad = env.pad_with_envelope(&[]);
    for i in 1..5 {
        env.append(&pad, &format!("block {i}"));
    }
    let t = env.json(&["pad", "ticket", &pad.id, "--key", &pad.key]);
    let t = t["ticket"].as_str().unwrap();
    let all = read(&env, &pad, t, &[]);
    assert_eq!(
        (all["from"].as_i64(), all["to"].as_i64(), all["count"].as_i64()),
        (Some(0), Some(4), Some(5))
    );
    assert_eq!(all["total_blocks"], 5);
    let s = read(&env, &pad, t, &["--from", "2", "--to", "99"]);
    assert_eq!(
        (s["from"].as_i64(), s["to"].as_i64(), s["count"].as_i64()),
        (Some(2), Some(4), Some(3))
    );
    let seqs: Vec<i64> =
        s["blocks"].as_array().unwrap().iter().map(|b| b["seq"].as_i64().unwrap()).collect();
    assert_eq!(seqs, [2, 3, 4]);
    // Block fields and the chain.
    let b = &all["blocks"];
    assert_eq!(b[0]["prev_hash"], ZERO);
    for i in 1..5 {
        assert_eq!(b[i]["prev_hash"], b[i - 1]["curr_hash"]);
        assert_eq!(b[i]["created_at"], NOW);
    }
    let s = read(&env, &pad, t, &["--from", "3", "--to", "3"]);
    assert_eq!(s["count"], 1);
    // from ≥ total: empty, from = to = F.
    let s = read(&env, &pad, t, &["--from", "5"]);
    assert_eq!(
        (s["from"].as_i64(), s["to"].as_i64(), s["count"].as_i64()),
        (Some(5), Some(5), Some(0))
    );
    assert_eq!(s["blocks"], serde_json::json!([]));
    let s = read(&env, &pad, t, &["--from", "50", "--to", "60"]);
    assert_eq!(s["count"], 0);
    // Bad ranges.
    for range in [&["--from", "-1"][..], &["--from", "3", "--to", "2"], &["--to", "-1"]] {
        let mut args = vec!["pad", "read", pad.id.as_str(), "--ticket", t];
        args.extend_from_slice(range);
        env.fails(&args, 6, "unprocessable", "invalid from/to range");
    }
    // An empty pad skips the range checks (as with the peer).
    let empty = env.create_pad(&[]);
    let s = read(&env, &empty, &empty.ticket, &["--from", "-5", "--to", "-9"]);
    assert_eq!(
        (s["from"].as_i64(), s["count"].as_i64(), s["total_blocks"].as_i64()),
        (Some(-5), Some(0), Some(0))
    );
    // Human output.
    let out =
        env.locker().args(["pad", "read", &pad.id, "--ticket", t, "--from", "4"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("--- block 4 ") && text.contains("block 4\n"), "{text}");
    assert!(text.contains("--- 1 of 5 blocks (from 4 to 4)"), "{text}");
}

#[test]
fn test_pad_read_slice_limits() {
    let env = TestEnv::init();
    // 257 blocks: a deposit makes them in one step.
    let mut args = vec![
        "deposit".to_owned(),
        "--envelope".to_owned(),
        env.file("e.json", ENVELOPE.as_bytes()),
    ];
    for i in 0..256 {
        args.push("--artifact".into());
        args.push(env.file(&format!("a/{i}"), format!("{i}").as_bytes()));
    }
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let d = env.json(&refs);
    let (id, t) = (d["pad_id"].as_str().unwrap(), d["read_ticket"].as_str().unwrap());
    let detail = "slice exceeds 256 blocks; narrow from/to";
    env.fails(&["pad", "read", id, "--ticket", t], 6, "payload_too_large", detail);
    env.fails(
        &["pad", "read", id, "--ticket", t, "--from", "0", "--to", "256"],
        6,
        "payload_too_large",
        detail,
    );
    // A failed read does not open the read_once lease.
    let lease = env
        .sql()
        .query_row("SELECT COUNT(*) FROM tickets WHERE lease_started_at IS NOT NULL", [], |r| {
            r.get::<_, i64>(0)
        })
        .unwrap();
    assert_eq!(lease, 0);
    // Exactly 256 blocks is fine (the range is clipped first).
    assert_eq!(env.json(&["pad", "read", id, "--ticket", t, "--from", "1"])["count"], 256);
    assert_eq!(env.json(&["pad", "read", id, "--ticket", t, "--to", "255"])["count"], 256);

    // Payload bytes: 65536 in one slice is fine, one more is not.
    let pad = env.create_pad(&[]);
    let e = envelope_of_len(1_000);
    env.append(&pad, &e);
    let rest = env.file("rest", &vec![b'r'; 65_536 - 1_000]);
    env.json(&["append", &pad.id, &rest, "--key", &pad.key]);
    env.append(&pad, "1");
    let ticket = env.json(&["pad", "ticket", &pad.id, "--key", &pad.key]);
    let t = ticket["ticket"].as_str().unwrap();
    assert_eq!(env.json(&["pad", "read", &pad.id, "--ticket", t, "--to", "1"])["count"], 2);
    let detail = "slice payload exceeds 65536 bytes; narrow from/to";
    env.fails(&["pad", "read", &pad.id, "--ticket", t], 6, "payload_too_large", detail);
    assert_eq!(env.json(&["pad", "read", &pad.id, "--ticket", t, "--from", "1"])["count"], 2);
}

#[test]
fn test_pad_read_once_lease_moves_with_the_clock() {
    let env = TestEnv::init();
    let pad = env.pad_with_envelope(&[]);
    env.append(&pad, "payload");
    let unlimited = env.json(&["pad", "ticket", &pad.id, "--key", &pad.key]);
    let unlimited = unlimited["ticket"].as_str().unwrap();
    let t0 = NOW + 100;
    let rd = |now: i64, ticket: &str, extra: &[&str]| {
        let mut args = vec!["pad", "read", pad.id.as_str(), "--ticket", ticket];
        args.extend_from_slice(extra);
        env.json_at(now, &args)
    };
    // An empty read, a failed read and the manifest do not open the lease.
    assert_eq!(rd(t0 - 50, &pad.ticket, &["--from", "9"])["count"], 0);
    env.json_err_at(t0 - 40, &["pad", "read", &pad.id, "--ticket", &pad.ticket, "--from", "-1"], 6);
    env.json_at(t0 - 30, &["pad", "show", &pad.id]);
    assert_eq!(count_kind(&env, "pad.read_lease"), 0);
    // The first successful read opens it; reads within 600 s are fine.
    assert_eq!(rd(t0, &pad.ticket, &[])["count"], 2);
    assert_eq!(count_kind(&env, "pad.read_lease"), 1);
    assert_eq!(rd(t0 + 1, &pad.ticket, &[])["count"], 2);
    assert_eq!(rd(t0 + 600, &pad.ticket, &["--from", "1"])["count"], 1);
    assert_eq!(count_kind(&env, "pad.read_lease"), 1, "the lease opens once");
    let before = env.snapshot();
    for now in [t0 + 601, t0 + 10_000] {
        let e = env.json_err_at(now, &["pad", "read", &pad.id, "--ticket", &pad.ticket], 5);
        assert_eq!(e["error"], "forbidden");
        assert_eq!(e["detail"], "read ticket lease expired");
        // The hint says how long the window was, so the reader knows what happened.
        assert!(e["hints"][0].as_str().unwrap().contains("reads for 10 minutes"), "{e}");
    }
    // Even an empty read is refused once the lease is over.
    env.json_err_at(t0 + 601, &["pad", "read", &pad.id, "--ticket", &pad.ticket, "--from", "9"], 5);
    assert_eq!(env.snapshot(), before);
    // read_unlimited never runs out.
    assert_eq!(rd(t0 + 10_000_000, unlimited, &[])["count"], 2);

    // LOCKER_READ_LEASE_SECONDS shortens the window.
    let once = env.json(&["pad", "ticket", &pad.id, "--type", "read_once", "--key", &pad.key]);
    let once = once["ticket"].as_str().unwrap();
    let short = |now: i64| {
        env.locker()
            .env("LOCKER_NOW", now.to_string())
            .env("LOCKER_READ_LEASE_SECONDS", "3")
            .args(["--json", "pad", "read", &pad.id, "--ticket", once])
            .output()
            .unwrap()
    };
    assert!(short(t0).status.success());
    assert!(short(t0 + 3).status.success());
    let out = short(t0 + 4);
    assert_eq!(out.status.code(), Some(5));
    let e: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(e["detail"], "read ticket lease expired");
    assert!(e["hints"][0].as_str().unwrap().contains("reads for 3 seconds"), "{e}");
    for bad in ["0", "-3", "soon", ""] {
        let out = env
            .locker()
            .env("LOCKER_READ_LEASE_SECONDS", bad)
            .args(["--json", "pad", "read", &pad.id, "--ticket", once])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "LOCKER_READ_LEASE_SECONDS={bad:?}");
    }
    assert_eq!(env.verify().0, 0);
}

#[test]
fn test_pad_ttl_expiry_by_moving_the_clock() {
    let env = TestEnv::init();
    let pad = env.pad_with_envelope(&["--ttl", "60"]);
    env.json_at(NOW + 59, &["append", &pad.id, "--key", &pad.key, "--data", "late"]);
    assert_eq!(env.json_at(NOW + 59, &["pad", "show", &pad.id])["state"], "open");
    let m = env.json_at(NOW + 60, &["pad", "show", &pad.id]);
    assert_eq!(m["state"], "expired");
    assert_eq!(m["block_count"], 2);
    // Expired pads are still readable, with the creation ticket too.
    let s = env.json_at(NOW + 60, &["pad", "read", &pad.id, "--ticket", &pad.ticket]);
    assert_eq!(s["count"], 2);
    let list = env.json_at(NOW + 60, &["pad", "list", "--state", "expired"]);
    assert_eq!(list["pads"][0]["pad_id"], pad.id.as_str());
    // A ttl of 1 second expires at the next second.
    let quick = env.create_pad(&["--ttl", "1"]);
    env.append(&quick, ENVELOPE);
    env.json_err_at(NOW + 1, &["append", &quick.id, "--key", &quick.key, "--data", "x"], 7);
    assert_eq!(env.verify().0, 0);
}

#[test]
fn test_pad_binary_payloads_round_trip() {
    let env = TestEnv::init();
    let pad = env.pad_with_envelope(&[]);
    let bytes: Vec<u8> = (0..=255u8).rev().chain([0, 0xff, 0xfe]).collect();
    let f = env.file("bin", &bytes);
    env.json(&[
        "append",
        &pad.id,
        &f,
        "--key",
        &pad.key,
        "--content-type",
        "application/octet-stream",
    ]);
    let crlf = env.file("crlf", b"line\r\n\ttab \xc3\xa9\n");
    env.json(&["append", &pad.id, &crlf, "--key", &pad.key]);
    let s = read(&env, &pad, &pad.ticket, &["--from", "1"]);
    let b = &s["blocks"][0];
    assert_eq!(b["payload_utf8"], Value::Null);
    assert_eq!(b["content_type"], "application/octet-stream");
    let py = std::process::Command::new("python3")
        .args([
            "-c",
            "import base64,sys; print(base64.b64encode(open(sys.argv[1],'rb').read()).decode())",
            &f,
        ])
        .output()
        .unwrap();
    assert_eq!(b["payload_b64"], String::from_utf8(py.stdout).unwrap().trim());
    assert_eq!(s["blocks"][1]["payload_utf8"], "line\r\n\ttab é\n");
    // --raw writes the exact bytes, one payload after another.
    let out = env
        .locker()
        .args(["pad", "read", &pad.id, "--ticket", &pad.ticket, "--from", "1", "--raw"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let mut want = bytes.clone();
    want.extend_from_slice(b"line\r\n\ttab \xc3\xa9\n");
    assert_eq!(out.stdout, want);
    // The human form does not dump binary.
    let out = env
        .locker()
        .args(["pad", "read", &pad.id, "--ticket", &pad.ticket, "--from", "1", "--to", "1"])
        .output()
        .unwrap();
    assert!(String::from_utf8(out.stdout)
        .unwrap()
        .contains("<binary payload; use --raw or --json>"));
    // --raw and --json do not go together.
    assert_eq!(
        env.run(&["pad", "read", &pad.id, "--ticket", &pad.ticket, "--raw"]).status.code(),
        Some(2)
    );
}

#[test]
fn test_pad_list_with_state_filter_and_limit() {
    let env = TestEnv::init();
    let open = env.pad_with_envelope(&[]);
    let sealed = env.pad_with_envelope(&[]);
    env.json(&["seal", &sealed.id, "--key", &sealed.key]);
    let expiring = env.create_pad(&["--ttl", "30"]);
    let ids = |v: &Value| -> Vec<String> {
        let mut ids: Vec<String> = v["pads"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["pad_id"].as_str().unwrap().to_owned())
            .collect();
        ids.sort();
        ids
    };
    let sorted = |mut v: Vec<&String>| {
        v.sort();
        v.into_iter().cloned().collect::<Vec<_>>()
    };
    assert_eq!(ids(&env.json(&["pad", "list"])), sorted(vec![&open.id, &sealed.id, &expiring.id]));
    assert_eq!(
        ids(&env.json(&["pad", "list", "--state", "open"])),
        sorted(vec![&open.id, &expiring.id])
    );
    assert_eq!(ids(&env.json(&["pad", "list", "--state", "sealed"])), vec![sealed.id.clone()]);
    assert!(ids(&env.json(&["pad", "list", "--state", "expired"])).is_empty());
    let later = env.json_at(NOW + 30, &["pad", "list", "--state", "expired"]);
    assert_eq!(ids(&later), vec![expiring.id.clone()]);
    let later = env.json_at(NOW + 30, &["pad", "list", "--state", "open"]);
    assert_eq!(ids(&later), vec![open.id.clone()]);
    assert_eq!(env.json(&["pad", "list", "--limit", "2"])["pads"].as_array().unwrap().len(), 2);
    assert_eq!(
        env.json(&["pad", "list", "--limit", "1", "--state", "sealed"])["pads"][0]["pad_id"],
        sealed.id.as_str()
    );
    assert_eq!(env.json(&["pad", "list", "--limit", "0"])["pads"].as_array().unwrap().len(), 0);
    assert_eq!(env.run(&["pad", "list", "--state", "bogus"]).status.code(), Some(2));
    let out = env.locker().args(["pad", "list"]).output().unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), 3);
}

/// Pages of `pad list --after`, locally and through `locker serve` (the remote client and the
/// route's `after` parameter): every pad once, in id order, whatever the page size.
#[test]
fn test_pad_list_pages_with_after_locally_and_remotely() {
    let env = TestEnv::init();
    let mut all: Vec<String> = (0..5).map(|_| env.create_pad(&[]).id).collect();
    all.sort();
    let server = env.serve(&[]);
    let url = server.url();
    let page = |remote: bool, after: Option<&str>, limit: &str| -> Vec<String> {
        let mut cmd = env.locker();
        if remote {
            cmd.env("LOCKER_URL", &url);
        }
        cmd.args(["--json", "pad", "list", "--limit", limit]);
        if let Some(a) = after {
            cmd.args(["--after", a]);
        }
        let out = cmd.output().expect("locker runs");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
        v["pads"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["pad_id"].as_str().unwrap().to_owned())
            .collect()
    };
    for remote in [false, true] {
        for size in ["1", "2", "5"] {
            let (mut seen, mut after) = (Vec::new(), None::<String>);
            loop {
                let got = page(remote, after.as_deref(), size);
                if got.is_empty() {
                    break;
                }
                after = got.last().cloned();
                seen.extend(got);
            }
            let demo_free: Vec<String> = seen.into_iter().filter(|id| all.contains(id)).collect();
            assert_eq!(demo_free, all, "remote {remote}, page size {size}");
        }
        // After the last id there is nothing; an id before every pad starts at the first.
        assert!(page(remote, Some(all.last().unwrap()), "10").iter().all(|id| !all.contains(id)));
        assert_eq!(page(remote, Some(""), "1").len(), 1);
    }
}

#[test]
fn test_pad_show_errors() {
    let env = TestEnv::init();
    env.fails(&["pad", "show", "nope"], 3, "not_found", "pad not found");
    env.fails(&["pad", "show", ""], 3, "not_found", "pad not found");
}
