//! The pad hash chain, checked against values computed outside locker: the peer's formula
//! `curr_hash = sha256(prev_hash_hex_ascii ‖ payload)` evaluated by Python's hashlib and by
//! `sha256sum`, never by locker's own code.

use std::io::Write as _;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::common::{TestEnv, ENVELOPE};

const ZERO: &str = "0000000000000000000000000000000000000000000000000000000000000000";
/// agent-locker's transcript: block 0 of [`ENVELOPE`].
const REFERENCE: &str = "7a16e7c76df03bfa38933b2f586696278db332895450b653b59322eb56c036e9";

/// The chain of `payloads` per Python's hashlib: one `curr_hash` per block. The payloads go
/// to Python as hex lines on stdin.
fn python_chain(payloads: &[&[u8]]) -> Vec<String> {
    const SCRIPT: &str = r#"
import hashlib, sys
prev = "0" * 64
for line in sys.stdin:
    prev = hashlib.sha256(prev.encode("ascii") + bytes.fromhex(line.strip())).hexdigest()
    print(prev)
"#;
    let mut child = Command::new("python3")
        .arg("-c")
        .arg(SCRIPT)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    let mut stdin = child.stdin.take().unwrap();
    for p in payloads {
        let hex: String = p.iter().map(|b| format!("{b:02x}")).collect();
        writeln!(stdin, "{hex}").unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap().lines().map(str::to_owned).collect()
}

/// `sha256sum` of `prev_hex ‖ payload`.
fn sha256sum_link(prev_hex: &str, payload: &[u8]) -> String {
    let mut child = Command::new("sha256sum")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("sha256sum");
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(prev_hex.as_bytes()).unwrap();
    stdin.write_all(payload).unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    String::from_utf8(out.stdout).unwrap()[..64].to_owned()
}

fn blocks(env: &TestEnv, id: &str, ticket: &str) -> Vec<Value> {
    env.json(&["pad", "read", id, "--ticket", ticket])["blocks"].as_array().unwrap().clone()
}

#[test]
fn test_hashes_reference_vector_independently() {
    // The formula itself, by two independent tools, gives the peer's reference value.
    assert_eq!(sha256sum_link(ZERO, ENVELOPE.as_bytes()), REFERENCE);
    assert_eq!(python_chain(&[ENVELOPE.as_bytes()]), vec![REFERENCE.to_owned()]);
    // And so does locker.
    let env = TestEnv::init();
    let pad = env.create_pad(&[]);
    assert_eq!(env.append(&pad, ENVELOPE)["curr_hash"], REFERENCE);
}

#[test]
fn test_hashes_a_filled_and_sealed_pad_matches_the_formula() {
    let env = TestEnv::init();
    let pad = env.create_pad(&[]);
    // Exact bytes matter: a pretty-printed envelope with odd spacing and non-ASCII text,
    // plain text with CRLF and no final newline, binary bytes, and a 64 KiB block.
    let envelope = "{\n  \"schema\" : \"locker.handoff.v1\",\"task_id\":\"t-\u{e9}\u{1f600}\",\n\
                    \t\"from_agent\":\"a\", \"to_agent\":\"b\",\"constraints\":[\"no \\\"rm\\\"\"],\
                    \"artifacts\":[{}],\"budget_usd\":1e2 }\n";
    let text = b"line one\r\nline two".to_vec();
    let binary: Vec<u8> = (0..=255u8).chain([0u8, 0, 0xff]).collect();
    let big: Vec<u8> = (0..65_536u32).map(|i| (i % 251) as u8).collect();
    let json_block = br#"{"status":"done", "n": 1.0}"#.to_vec();
    let payloads: Vec<Vec<u8>> =
        vec![envelope.as_bytes().to_vec(), text, binary, json_block, big, b"-".to_vec()];
    let mut acks = Vec::new();
    for (i, p) in payloads.iter().enumerate() {
        let f = env.file(&format!("p{i}"), p);
        acks.push(env.json(&["append", &pad.id, &f, "--key", &pad.key]));
    }
    let refs: Vec<&[u8]> = payloads.iter().map(Vec::as_slice).collect();
    let want = python_chain(&refs);
    for (i, ack) in acks.iter().enumerate() {
        assert_eq!(ack["seq"], i as u64);
        assert_eq!(ack["curr_hash"], want[i].as_str(), "block {i}");
    }
    // A second tool agrees on every link.
    let mut prev = ZERO.to_owned();
    for (i, p) in payloads.iter().enumerate() {
        let h = sha256sum_link(&prev, p);
        assert_eq!(h, want[i], "sha256sum block {i}");
        prev = h;
    }
    let sealed = env.json(&["seal", &pad.id, "--key", &pad.key]);
    assert_eq!(sealed["head_hash"], want.last().unwrap().as_str());
    assert_eq!(env.json(&["pad", "show", &pad.id])["head_hash"], want.last().unwrap().as_str());
    // The stored blocks carry the same links and the exact bytes, read in slices under 64 KiB.
    let mut stored = Vec::new();
    for (from, to) in [("0", "3"), ("4", "4"), ("5", "5")] {
        let out = env.json(&[
            "pad",
            "read",
            &pad.id,
            "--ticket",
            &pad.ticket,
            "--from",
            from,
            "--to",
            to,
        ]);
        stored.extend(out["blocks"].as_array().unwrap().clone());
    }
    assert_eq!(stored.len(), payloads.len());
    let mut prev = ZERO.to_owned();
    for (i, b) in stored.iter().enumerate() {
        assert_eq!(b["prev_hash"], prev.as_str(), "block {i}");
        assert_eq!(b["curr_hash"], want[i].as_str(), "block {i}");
        prev = want[i].clone();
    }
    let raw = env
        .locker()
        .args(["pad", "read", &pad.id, "--ticket", &pad.ticket, "--to", "3", "--raw"])
        .output()
        .unwrap();
    assert_eq!(raw.stdout, payloads[..4].concat());
    // `locker verify PAD --expect-head` with the independently computed head.
    let v = env.json(&["verify", &pad.id, "--expect-head", want.last().unwrap()]);
    assert_eq!(v["ok"], true);
}

#[test]
fn test_hashes_empty_pad_head_is_zeros() {
    let env = TestEnv::init();
    let pad = env.create_pad(&[]);
    assert_eq!(env.json(&["pad", "show", &pad.id])["head_hash"], ZERO);
    assert_eq!(env.json(&["seal", &pad.id, "--key", &pad.key])["head_hash"], ZERO);
    assert!(blocks(&env, &pad.id, &pad.ticket).is_empty());
}

#[test]
fn test_hashes_deposit_gives_the_same_chain_as_appends() {
    let env = TestEnv::init();
    let text = b"attestation: ok\n".to_vec();
    let binary = vec![0u8, 1, 2, 0xfe, 0xff];
    let want = python_chain(&[ENVELOPE.as_bytes(), &text, &binary]);
    assert_eq!(want[0], REFERENCE);
    let e = env.file("e.json", ENVELOPE.as_bytes());
    let t = env.file("t.txt", &text);
    let b = env.file("b.bin", &binary);
    let d = env.json(&["deposit", "--envelope", &e, "--artifact", &t, "--artifact", &b]);
    assert_eq!(d["head_hash"], want[2].as_str());
    let got: Vec<String> =
        blocks(&env, d["pad_id"].as_str().unwrap(), d["read_ticket"].as_str().unwrap())
            .iter()
            .map(|b| b["curr_hash"].as_str().unwrap().to_owned())
            .collect();
    assert_eq!(got, want);
    // The same bytes appended one by one give the same head.
    let pad = env.create_pad(&[]);
    for f in [&e, &t, &b] {
        env.json(&["append", &pad.id, f, "--key", &pad.key]);
    }
    assert_eq!(env.json(&["seal", &pad.id, "--key", &pad.key])["head_hash"], want[2].as_str());
}
