//! `locker deposit`: create + envelope + artifacts + seal in one atomic step.

use std::io::Write as _;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::common::{envelope_of_len, TestEnv, ENVELOPE, NOW};

/// The chain head of `payloads` per Python's hashlib (independent of locker).
fn python_head(payloads: &[&[u8]]) -> String {
    const SCRIPT: &str = r#"
import hashlib, sys
prev = "0" * 64
for line in sys.stdin:
    prev = hashlib.sha256(prev.encode() + bytes.fromhex(line.strip())).hexdigest()
print(prev)
"#;
    let mut child = Command::new("python3")
        .args(["-c", SCRIPT])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for p in payloads {
        let hex: String = p.iter().map(|b| format!("{b:02x}")).collect();
        writeln!(stdin, "{hex}").unwrap();
    }
    drop(stdin);
    String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap().trim().to_owned()
}

fn journal_kinds(env: &TestEnv) -> Vec<String> {
    let conn = env.sql();
    let mut stmt = conn.prepare("SELECT kind FROM journal ORDER BY seq").unwrap();
    stmt.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
}

#[test]
fn test_deposit_makes_a_sealed_pad_with_content_types() {
    let env = TestEnv::init();
    let e = env.file("envelope.json", ENVELOPE.as_bytes());
    let json = br#"{"task_id":"t-1","status":"done"}"#.to_vec();
    let text = "résumé\n".as_bytes().to_vec();
    let binary = vec![0xffu8, 0x00, 0x01];
    let files = [
        env.file("attest.json", &json),
        env.file("notes.txt", &text),
        env.file("blob.bin", &binary),
    ];
    let d = env.json(&[
        "deposit",
        "--envelope",
        &e,
        "--artifact",
        &files[0],
        "--artifact",
        &files[1],
        "--artifact",
        &files[2],
    ]);
    let want = python_head(&[ENVELOPE.as_bytes(), &json, &text, &binary]);
    assert_eq!(d["head_hash"], want.as_str());
    assert_eq!(d["status"], "sealed");
    assert_eq!(d["block_count"], 4);
    assert_eq!(d["sealed_at"], NOW);
    assert_eq!(d["write_key"].as_str().unwrap().len(), 43);
    let id = d["pad_id"].as_str().unwrap();
    let m = env.json(&["pad", "show", id]);
    assert_eq!(m["state"], "sealed");
    assert_eq!(m["head_hash"], want.as_str());
    assert_eq!(m["block_count"], 4);
    assert_eq!(m["total_bytes"], (ENVELOPE.len() + json.len() + text.len() + binary.len()) as u64);
    let s = env.json(&["pad", "read", id, "--ticket", d["read_ticket"].as_str().unwrap()]);
    let types: Vec<&str> = s["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["content_type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        ["application/json", "application/json", "text/plain", "application/octet-stream"]
    );
    assert_eq!(s["blocks"][2]["payload_utf8"], "résumé\n");
    assert_eq!(s["blocks"][3]["payload_utf8"], Value::Null);
    // One journal entry for the whole deposit (then the read's lease), and nothing can be
    // appended afterwards.
    assert_eq!(journal_kinds(&env), ["repo.init", "pad.deposit", "pad.read_lease"]);
    let key = d["write_key"].as_str().unwrap();
    env.fails(&["append", id, "--key", key, "--data", "x"], 4, "conflict", "pad is sealed");
    // Tickets can still be minted with the write key.
    env.json(&["pad", "ticket", id, "--key", key]);
    assert_eq!(env.verify().0, 0);
    let v = env.json(&["verify", id, "--expect-head", &want]);
    assert_eq!(v["ok"], true);
}

#[test]
fn test_deposit_envelope_only_and_from_stdin() {
    let env = TestEnv::init();
    let mut child = env
        .process()
        .args(["--json", "deposit", "--envelope", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(ENVELOPE.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let d: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(d["block_count"], 1);
    assert_eq!(d["head_hash"], "7a16e7c76df03bfa38933b2f586696278db332895450b653b59322eb56c036e9");
    // Human output.
    let e = env.file("e.json", ENVELOPE.as_bytes());
    let out = env.locker().args(["deposit", "--envelope", &e]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("pad_id:") && text.contains("head_hash:   7a16e7c7"), "{text}");
}

#[test]
fn test_deposit_failures_create_nothing() {
    let env = TestEnv::init();
    let good = env.file("good.json", ENVELOPE.as_bytes());
    let bad = env.file("bad.json", br#"{"schema":"locker.handoff.v1","task_id":""}"#);
    let small = env.file("small", b"ok");
    let big = env.file("big", &vec![b'b'; 65_537]);
    let edge = env.file("edge", &vec![b'e'; 65_536]);
    let empty = env.file("empty", b"");
    let big_env = env.file("big.json", envelope_of_len(65_537).as_bytes());
    let cases: Vec<(Vec<&str>, i32, &str, &str)> = vec![
        (
            vec!["--envelope", &bad, "--artifact", &small],
            6,
            "bad_request",
            "block 0 invalid envelope: field 'task_id' has an invalid type/value",
        ),
        (
            vec!["--envelope", &small],
            6,
            "bad_request",
            "block 0 invalid envelope: payload must be JSON",
        ),
        (
            vec!["--envelope", &good, "--artifact", &small, "--artifact", &big],
            6,
            "payload_too_large",
            "block 2: payload exceeds 65536 bytes",
        ),
        (
            vec!["--envelope", &big_env],
            6,
            "payload_too_large",
            "block 0: payload exceeds 65536 bytes",
        ),
        (
            vec!["--envelope", &good, "--artifact", &empty],
            6,
            "bad_request",
            "block 1: empty payload",
        ),
        (
            // 4 × 65536 + the envelope is over the 256 KiB pad limit.
            vec![
                "--envelope",
                &good,
                "--artifact",
                &edge,
                "--artifact",
                &edge,
                "--artifact",
                &edge,
                "--artifact",
                &edge,
            ],
            6,
            "payload_too_large",
            "the deposit's 262288 bytes exceed the pad limit of 262144",
        ),
        (
            vec!["--envelope", &good, "--ttl", "0"],
            6,
            "unprocessable",
            "ttl_seconds must be between 1 and 2592000, got 0",
        ),
    ];
    for (extra, code, error, detail) in cases {
        let mut args = vec!["deposit"];
        args.extend_from_slice(&extra);
        env.fails(&args, code, error, detail);
    }
    // Over-size is checked before the envelope.
    env.fails(
        &["deposit", "--envelope", &bad, "--artifact", &big],
        6,
        "payload_too_large",
        "block 1: payload exceeds 65536 bytes",
    );
    // A missing file, and `-` as an artifact.
    let before = env.snapshot();
    let e = env.json_err(&["deposit", "--envelope", &good, "--artifact", "/no/such/file"], 6);
    assert!(e["detail"].as_str().unwrap().contains("/no/such/file"), "{e}");
    assert_eq!(
        env.json_err(&["deposit", "--envelope", &good, "--artifact", "-"], 2)["error"],
        "usage"
    );
    assert_eq!(env.snapshot(), before);
    assert_eq!(journal_kinds(&env), ["repo.init"]);
    assert!(env.json(&["pad", "list"])["pads"].as_array().unwrap().is_empty());
    // Exactly at the pad limit is fine: envelope + 3 × 65536 + the rest.
    let rest = env.file("rest", &vec![b'r'; 65_536 - ENVELOPE.len()]);
    let d = env.json(&[
        "deposit",
        "--envelope",
        &good,
        "--artifact",
        &edge,
        "--artifact",
        &edge,
        "--artifact",
        &edge,
        "--artifact",
        &rest,
    ]);
    assert_eq!(env.json(&["pad", "show", d["pad_id"].as_str().unwrap()])["total_bytes"], 262_144);
    assert_eq!(env.verify().0, 0);
}
