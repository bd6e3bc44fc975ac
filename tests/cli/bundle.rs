//! `locker pad export`, `locker pad import` and `locker verify --bundle`: bundles written,
//! checked offline with no repository, cut, edited, forged and imported.

use serde_json::Value;
use sha2::Digest as _;

use crate::common::{TestEnv, ENVELOPE, NOW};

/// A block-1 attestation for the reference envelope.
pub const ATTESTATION: &str =
    r#"{"task_id":"t-1","from_agent":"a","to_agent":"b","status":"completed"}"#;

fn sha256_hex(bytes: &[u8]) -> String {
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// `curr_hash = sha256(prev_hex ‖ payload)`, computed here independently of locker.
fn link(prev: &str, payload: &[u8]) -> String {
    let mut h = sha2::Sha256::new();
    h.update(prev.as_bytes());
    h.update(payload);
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// A sealed pad (envelope, attestation, one binary block); returns (pad id, head, ticket).
fn deposit(env: &TestEnv) -> (String, String, String) {
    let e = env.file("envelope.json", ENVELOPE.as_bytes());
    let a = env.file("attest.json", ATTESTATION.as_bytes());
    let b = env.file("blob.bin", &[0xff, 0x00, 0x01]);
    let d = env.json(&["deposit", "--envelope", &e, "--artifact", &a, "--artifact", &b]);
    (
        d["pad_id"].as_str().unwrap().to_owned(),
        d["head_hash"].as_str().unwrap().to_owned(),
        d["read_ticket"].as_str().unwrap().to_owned(),
    )
}

/// Exports a pad to `name` in the test directory and returns the file's path.
fn export(env: &TestEnv, pad: &str, name: &str) -> String {
    let path = env.path().join(name).to_str().unwrap().to_owned();
    let v = env.json(&["pad", "export", pad, "-o", &path]);
    assert_eq!(v["pad_id"], pad);
    path
}

/// `locker --json verify --bundle FILE [ARGS]` run in `dir` (any directory), with its exit code.
fn verify_bundle(env: &TestEnv, file: &str, extra: &[&str]) -> (i32, Value) {
    let out =
        env.locker().args(["--json", "verify", "--bundle", file]).args(extra).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("no JSON report ({e}): {}", String::from_utf8_lossy(&out.stderr))
    });
    (out.status.code().unwrap(), v)
}

fn check<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["checks"].as_array().unwrap().iter().find(|c| c["name"] == name).unwrap()
}

fn failed(report: &Value) -> Vec<String> {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "fail")
        .map(|c| c["name"].as_str().unwrap().to_owned())
        .collect()
}

/// A directory with no `.locker/` in it or above it would still find one under `$HOME`'s
/// parents only if one existed there; a fresh temporary directory has none.
fn elsewhere() -> TestEnv {
    let env = TestEnv::new();
    assert!(!env.path().join(".locker").exists());
    env
}

#[test]
fn test_verify_bundle_checks_an_export_offline_with_no_repository() {
    let env = TestEnv::init();
    let (pad, head, _) = deposit(&env);
    let file = export(&env, &pad, "pad.bundle");
    let offline = elsewhere();
    let (code, r) = verify_bundle(&offline, &file, &[]);
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["ok"], true);
    assert_eq!(r["verdict"], "internal_consistency_only");
    assert_eq!(r["pad_id"], pad.as_str());
    assert_eq!(r["state"], "sealed");
    assert_eq!(r["computed_head"], head.as_str());
    assert_eq!(r["block_count"], 3);
    assert_eq!(r["blocks_read"], 3);
    assert_eq!(r["first_failure"], Value::Null);
    let names: Vec<&str> =
        r["checks"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "format",
            "records",
            "trailer",
            "digest",
            "sequence",
            "links",
            "hashes",
            "head",
            "counts",
            "envelope",
            "expected_head",
            "log"
        ]
    );
    assert_eq!(check(&r, "expected_head")["status"], "skip");
    assert!(failed(&r).is_empty());
    // The file's SHA-256 is reported, and the repository was never needed.
    let bytes = std::fs::read(&file).unwrap();
    assert_eq!(r["sha256"], sha256_hex(&bytes).as_str());
    assert!(!offline.path().join(".locker").exists());

    // Pinning the head makes the verdict a trusted match; a wrong head fails that check only.
    let (code, r) = verify_bundle(&offline, &file, &["--expect-head", &head]);
    assert_eq!(code, 0);
    assert_eq!(r["verdict"], "trusted_head_match");
    assert_eq!(check(&r, "expected_head")["status"], "pass");
    let wrong = "0".repeat(63) + "1";
    let (code, r) = verify_bundle(&offline, &file, &["--expect-head", &wrong]);
    assert_eq!(code, 1);
    assert_eq!(r["verdict"], "failed");
    assert_eq!(failed(&r), ["expected_head"]);
    assert_eq!(r["first_failure"]["name"], "expected_head");
    // A malformed expected head is bad input.
    offline.json_err(&["verify", "--bundle", &file, "--expect-head", "xyz"], 6);
    // The human report names each check and the verdict.
    let out = offline.locker().args(["verify", "--bundle", &file]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("  pass  hashes "), "{text}");
    assert!(text.contains("intact (internally consistent only"), "{text}");
}

#[test]
fn test_pad_export_bundle_format_is_exact() {
    let env = TestEnv::init();
    let (pad, head, _) = deposit(&env);
    let file = export(&env, &pad, "pad.bundle");
    let bytes = std::fs::read(&file).unwrap();
    assert!(bytes.ends_with(b"\n"));
    let text = std::str::from_utf8(&bytes).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 5, "header, 3 blocks, trailer");
    let header: Value = serde_json::from_str(lines[0]).unwrap();
    assert!(lines[0].starts_with(r#"{"format":"locker.bundle.v1","type":"header""#));
    assert_eq!(header["pad_id"], pad.as_str());
    assert_eq!(header["head_hash"], head.as_str());
    assert_eq!(header["state"], "sealed");
    assert_eq!(header["created_at"], NOW);
    assert_eq!(header["source"]["kind"], "locker");
    assert_eq!(header["source"]["exported_at"], NOW);
    // Every block: exact bytes in base64, and hashes that chain (computed here).
    let payloads: [&[u8]; 3] = [ENVELOPE.as_bytes(), ATTESTATION.as_bytes(), &[0xff, 0x00, 0x01]];
    let mut prev = "0".repeat(64);
    for (i, p) in payloads.iter().enumerate() {
        let b: Value = serde_json::from_str(lines[i + 1]).unwrap();
        assert_eq!(b["type"], "block");
        assert_eq!(b["seq"], i);
        assert_eq!(b["prev_hash"], prev.as_str());
        use base64::Engine as _;
        let got = base64::engine::general_purpose::STANDARD
            .decode(b["payload_b64"].as_str().unwrap())
            .unwrap();
        assert_eq!(got, *p);
        prev = link(&prev, p);
        assert_eq!(b["curr_hash"], prev.as_str());
    }
    assert_eq!(prev, head);
    let t: Value = serde_json::from_str(lines[4]).unwrap();
    assert_eq!(t["type"], "trailer");
    assert_eq!(t["block_count"], 3);
    assert_eq!(t["total_bytes"], (ENVELOPE.len() + ATTESTATION.len() + 3) as u64);
    assert_eq!(t["head_hash"], head.as_str());
    let before = text.len() - lines[4].len() - 1;
    assert_eq!(t["sha256"], sha256_hex(&bytes[..before]).as_str());

    // Without -o the same bytes go to stdout (the clock is fixed); the file is mode 0600.
    let out = env.locker().args(["pad", "export", &pad]).output().unwrap();
    assert!(out.status.success());
    assert_eq!(out.stdout, bytes);
    use std::os::unix::fs::PermissionsExt as _;
    assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
    // With --json the bundle cannot share stdout with the JSON result.
    let e = env.json_err(&["pad", "export", &pad], 2);
    assert_eq!(e["error"], "usage");
}

#[test]
fn test_pad_export_needs_a_ticket_except_for_the_operator() {
    let env = TestEnv::init();
    let (pad, _, ticket) = deposit(&env);
    let out = env.path().join("x.bundle").to_str().unwrap().to_owned();
    // Unknown pads are not found; a wrong ticket is refused even for the operator.
    env.fails(&["pad", "export", "nope", "-o", &out], 3, "not_found", "pad not found");
    env.fails(
        &["pad", "export", &pad, "--ticket", "wrong", "-o", &out],
        5,
        "unauthorized",
        "invalid read ticket",
    );
    assert!(!std::path::Path::new(&out).exists());
    // An agent needs a ticket.
    let token = env.token("ci", "default");
    let agent = |args: &[&str]| {
        env.locker().env("LOCKER_TOKEN", &token).arg("--json").args(args).output().unwrap()
    };
    let o = agent(&["pad", "export", &pad, "-o", &out]);
    assert_eq!(o.status.code(), Some(5));
    let e: Value = serde_json::from_slice(&o.stderr).unwrap();
    assert_eq!(e["detail"], "missing read ticket");
    // The read_once ticket opens its read lease with the export, as a read does.
    let o = agent(&["pad", "export", &pad, "--ticket", &ticket, "-o", &out]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let leases: i64 = env
        .sql()
        .query_row("SELECT COUNT(*) FROM journal WHERE kind = 'pad.read_lease'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(leases, 1);
    let e =
        env.json_err_at(NOW + 601, &["pad", "export", &pad, "--ticket", &ticket, "-o", &out], 5);
    assert_eq!(e["detail"], "read ticket lease expired");
    assert_eq!(env.verify().0, 0);
}

/// Rewrites a bundle's lines with `f` (the trailer's SHA-256 is left as it was).
fn edit_lines(path: &str, mut f: impl FnMut(usize, &mut Value)) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = String::new();
    for (i, l) in text.lines().enumerate() {
        let mut v: Value = serde_json::from_str(l).unwrap();
        f(i, &mut v);
        out.push_str(&serde_json::to_string(&v).unwrap());
        out.push('\n');
    }
    out
}

/// Recomputes a bundle's trailer SHA-256 (what a careful forger would do).
fn reseal(text: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let body: String = lines[..lines.len() - 1].iter().map(|l| format!("{l}\n")).collect();
    let mut t: Value = serde_json::from_str(lines.last().unwrap()).unwrap();
    t["sha256"] = sha256_hex(body.as_bytes()).into();
    *lines.last_mut().unwrap() = serde_json::to_string(&t).unwrap();
    lines.iter().map(|l| format!("{l}\n")).collect()
}

#[test]
fn test_verify_bundle_detects_every_truncation() {
    let env = TestEnv::init();
    let (pad, _, _) = deposit(&env);
    let file = export(&env, &pad, "pad.bundle");
    let bytes = std::fs::read(&file).unwrap();
    let header_len = bytes.iter().position(|b| *b == b'\n').unwrap() + 1;
    let offline = elsewhere();
    // Cut after the header, inside a block, at a line boundary, and one byte short.
    for cut in [header_len, header_len + 40, bytes.len() - 200, bytes.len() - 1] {
        let cut_file = offline.file("cut.bundle", &bytes[..cut]);
        let (code, r) = verify_bundle(&offline, &cut_file, &[]);
        assert_eq!(code, 1, "cut at {cut}: {r}");
        assert_eq!(r["first_failure"]["name"], "trailer", "cut at {cut}: {r}");
        assert!(
            r["first_failure"]["detail"].as_str().unwrap().contains("truncated")
                || cut == bytes.len() - 1,
            "{r}"
        );
    }
    // A whole block line removed (and the trailer kept) breaks the digest, the chain and the
    // counts.
    let text = std::str::from_utf8(&bytes).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let dropped: String =
        lines.iter().enumerate().filter(|(i, _)| *i != 2).map(|(_, l)| format!("{l}\n")).collect();
    let f = offline.file("dropped.bundle", dropped.as_bytes());
    let (code, r) = verify_bundle(&offline, &f, &[]);
    assert_eq!(code, 1);
    let fails = failed(&r);
    for name in ["digest", "sequence", "links", "counts"] {
        assert!(fails.contains(&name.to_owned()), "{name} in {fails:?}");
    }
    // Anything after the trailer is refused too.
    let mut extra = bytes.clone();
    extra.extend_from_slice(b"{}\n");
    let f = offline.file("extra.bundle", &extra);
    let (code, r) = verify_bundle(&offline, &f, &[]);
    assert_eq!(code, 1);
    assert_eq!(failed(&r), ["trailer"]);
}

#[test]
fn test_verify_bundle_names_a_tampered_block() {
    let env = TestEnv::init();
    let (pad, head, _) = deposit(&env);
    let file = export(&env, &pad, "pad.bundle");
    use base64::Engine as _;
    let forged = br#"{"task_id":"t-1","from_agent":"a","to_agent":"b","status":"failed!!!"}"#;
    let edited = edit_lines(&file, |i, v| {
        if i == 2 {
            v["payload_b64"] = base64::engine::general_purpose::STANDARD.encode(forged).into();
        }
    });
    let offline = elsewhere();
    let f = offline.file("edited.bundle", edited.as_bytes());
    let (code, r) = verify_bundle(&offline, &f, &[]);
    assert_eq!(code, 1);
    assert_eq!(r["first_failure"]["name"], "digest");
    assert!(failed(&r).contains(&"hashes".to_owned()));
    let hashes = check(&r, "hashes")["detail"].as_str().unwrap().to_owned();
    assert!(hashes.starts_with("block 1 curr_hash"), "{hashes}");

    // With the trailer recomputed, the chain still names block 1.
    let resealed = offline.file("resealed.bundle", reseal(&edited).as_bytes());
    let (code, r) = verify_bundle(&offline, &resealed, &[]);
    assert_eq!(code, 1);
    assert_eq!(r["first_failure"]["name"], "hashes");

    // A consistent forgery (every hash, the head and the trailer recomputed) passes every
    // internal check, and only the expected head catches it.
    let mut prev = "0".repeat(64);
    let consistent = edit_lines(&file, |i, v| {
        if i == 0 || v["type"] != "block" {
            return;
        }
        let payload: Vec<u8> = if i == 2 {
            forged.to_vec()
        } else {
            base64::engine::general_purpose::STANDARD
                .decode(v["payload_b64"].as_str().unwrap())
                .unwrap()
        };
        v["payload_b64"] = base64::engine::general_purpose::STANDARD.encode(&payload).into();
        v["prev_hash"] = prev.clone().into();
        prev = link(&prev, &payload);
        v["curr_hash"] = prev.clone().into();
    });
    let new_head = prev.clone();
    let total = ENVELOPE.len() + forged.len() + 3;
    let consistent = edit_lines(&offline.file("tmp.bundle", consistent.as_bytes()), |_, v| {
        if v["type"] == "header" || v["type"] == "trailer" {
            v["head_hash"] = new_head.clone().into();
            v["total_bytes"] = total.into();
        }
    });
    // The log's inclusion proofs still record the original block: the forgery is caught even
    // without the key, so a forger strips them (then only a trusted head or key catches it).
    let with_log = offline.file("with-log.bundle", reseal(&consistent).as_bytes());
    let (code, r) = verify_bundle(&offline, &with_log, &[]);
    assert_eq!(code, 1, "{r}");
    assert_eq!(failed(&r), ["log"]);
    let consistent = edit_lines(&offline.file("tmp2.bundle", consistent.as_bytes()), |_, v| {
        if v["type"] == "header" {
            v.as_object_mut().unwrap().remove("log");
        }
    });
    let f = offline.file("forged.bundle", reseal(&consistent).as_bytes());
    let (code, r) = verify_bundle(&offline, &f, &[]);
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["verdict"], "internal_consistency_only");
    let (code, r) = verify_bundle(&offline, &f, &["--expect-head", &head]);
    assert_eq!(code, 1);
    assert_eq!(failed(&r), ["expected_head"]);
}

#[test]
fn test_verify_bundle_names_a_block_tampered_in_the_repository() {
    let env = TestEnv::init();
    let (pad, head, _) = deposit(&env);
    env.sql()
        .execute("UPDATE blocks SET payload = CAST('{\"x\":1}' AS BLOB) WHERE seq = 1", [])
        .unwrap();
    // Export writes what is stored; the bundle's checks then name the block.
    let file = export(&env, &pad, "pad.bundle");
    let (code, r) = verify_bundle(&elsewhere(), &file, &["--expect-head", &head]);
    assert_eq!(code, 1);
    assert_eq!(r["first_failure"]["name"], "hashes");
    assert!(check(&r, "hashes")["detail"].as_str().unwrap().starts_with("block 1 "));
    assert_eq!(check(&r, "expected_head")["status"], "fail");
}

#[test]
fn test_verify_bundle_malformed_files_exit_6() {
    let env = elsewhere();
    let cases: [(&str, &[u8], &str); 6] = [
        ("empty", b"", "the file is empty"),
        ("binary", &[0xff, 0xfe, 0x00, 0x0a], "the first line is not a JSON object"),
        ("text", b"hello world\n", "the first line is not a JSON object"),
        ("json", b"{\"pad_id\":\"x\"}\n", "the first line names no `format`"),
        ("future", b"{\"format\":\"locker.bundle.v2\"}\n", "unsupported bundle format"),
        ("header", b"{\"format\":\"locker.bundle.v1\",\"pad_id\":1}\n", "header is malformed"),
    ];
    for (name, bytes, detail) in cases {
        let f = env.file(&format!("{name}.bundle"), bytes);
        let e = env.json_err(&["verify", "--bundle", &f], 6);
        assert_eq!(e["error"], "malformed_bundle", "{name}: {e}");
        assert!(e["detail"].as_str().unwrap().contains(detail), "{name}: {e}");
    }
    // A missing file is unreadable input; PAD and --bundle cannot be combined.
    let missing = env.path().join("missing.bundle");
    let e = env.json_err(&["verify", "--bundle", missing.to_str().unwrap()], 6);
    assert!(e["detail"].as_str().unwrap().contains("cannot read"), "{e}");
    let out = env.locker().args(["verify", "pad", "--bundle", "x"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(!env.path().join(".locker").exists());
}

#[test]
fn test_pad_import_round_trip() {
    let src = TestEnv::init();
    let (pad, head, _) = deposit(&src);
    let file = export(&src, &pad, "pad.bundle");

    let dst = TestEnv::init();
    let before = dst.snapshot();
    let v = dst.json(&["pad", "import", &file, "--expect-head", &head]);
    assert_ne!(dst.snapshot(), before);
    assert_eq!(v["pad_id"], pad.as_str());
    assert_eq!(v["head_hash"], head.as_str());
    assert_eq!(v["state"], "sealed");
    assert_eq!(v["block_count"], 3);
    assert_eq!(v["source"]["kind"], "locker");
    let bytes = std::fs::read(&file).unwrap();
    assert_eq!(v["bundle_sha256"], sha256_hex(&bytes).as_str());
    // The imported pad is the same pad: manifest, blocks and a fresh ticket that reads them.
    let m_src = src.json(&["pad", "show", &pad]);
    let m_dst = dst.json(&["pad", "show", &pad]);
    assert_eq!(m_src, m_dst);
    let ticket = v["read_ticket"].as_str().unwrap();
    let read = dst.json(&["pad", "read", &pad, "--ticket", ticket]);
    assert_eq!(read["count"], 3);
    assert_eq!(read["blocks"][1]["payload_utf8"], ATTESTATION);
    // Exporting it again gives the same bundle, byte for byte, but for the log proofs (each
    // repository's own log proves the blocks).
    let again = export(&dst, &pad, "again.bundle");
    let without_log = |text: &str| -> Vec<String> {
        let lines: Vec<&str> = text.lines().collect();
        let mut out: Vec<String> =
            lines[1..lines.len() - 1].iter().map(|l| (*l).to_owned()).collect();
        let mut h: Value = serde_json::from_str(lines[0]).unwrap();
        assert!(
            h.as_object_mut().unwrap().remove("log").is_some(),
            "a locker export proves its blocks"
        );
        out.push(h.to_string());
        out
    };
    assert_eq!(
        without_log(&std::fs::read_to_string(&again).unwrap()),
        without_log(std::str::from_utf8(&bytes).unwrap())
    );
    // Journaled, and the whole repository verifies, pad by pad too.
    let imports: i64 = dst
        .sql()
        .query_row("SELECT COUNT(*) FROM journal WHERE kind = 'pad.import'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(imports, 1);
    assert_eq!(dst.verify().0, 0);
    let r = dst.json(&["verify", &pad, "--expect-head", &head]);
    assert_eq!(r["ok"], true);
    // Importing it again is a conflict that changes nothing.
    dst.fails(&["pad", "import", &file], 4, "conflict", &format!("pad {pad} already exists"));
    // The journal's record of the import covers the blocks' own times.
    dst.sql().execute("UPDATE blocks SET created_at = created_at + 1 WHERE seq = 2", []).unwrap();
    let (code, report) = dst.verify();
    assert_eq!(code, 1);
    assert!(report["problems"][0]["detail"].as_str().unwrap().contains("block 2"), "{report}");
}

#[test]
fn test_pad_import_refuses_broken_unsealed_and_malformed_bundles() {
    let src = TestEnv::init();
    let (pad, _, _) = deposit(&src);
    let file = export(&src, &pad, "pad.bundle");
    let bytes = std::fs::read(&file).unwrap();
    let dst = TestEnv::init();

    let cut = dst.file("cut.bundle", &bytes[..bytes.len() - 10]);
    let e = dst.json_err(&["pad", "import", &cut], 6);
    assert_eq!(e["error"], "broken_bundle");
    assert_eq!(e["check"], "trailer");
    let wrong = "1".repeat(64);
    let before = dst.snapshot();
    let e = dst.json_err(&["pad", "import", &file, "--expect-head", &wrong], 6);
    assert_eq!(e["check"], "expected_head");
    let junk = dst.file("junk.bundle", b"junk\n");
    let e = dst.json_err(&["pad", "import", &junk], 6);
    assert_eq!(e["error"], "malformed_bundle");

    // An open pad's bundle verifies, but only sealed pads are imported.
    let open = src.pad_with_envelope(&[]);
    let open_file = export(&src, &open.id, "open.bundle");
    let (code, r) = verify_bundle(&dst, &open_file, &[]);
    assert_eq!(code, 0);
    assert_eq!(r["state"], "open");
    let e = dst.json_err(&["pad", "import", &open_file], 6);
    assert_eq!(e["error"], "not_sealed");
    assert_eq!(dst.snapshot(), before);
}
