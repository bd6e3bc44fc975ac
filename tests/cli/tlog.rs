//! The journal as a transparency log: `locker checkpoint`, `locker key show`, `locker proof`,
//! `locker verify --proof`, bundles' log proofs, pinned verifiers, and a malicious operator who
//! rewrites the journal and re-signs its head.

use std::os::unix::fs::PermissionsExt as _;

use serde_json::Value;
use sha2::Digest as _;

use crate::common::{TestEnv, ENVELOPE};

/// A repository with a few entries: two pads, one deposited.
fn busy_repo() -> (TestEnv, String) {
    let (env, pad, _) = busy_repo_with_ticket();
    (env, pad)
}

/// [`busy_repo`], with the deposited pad's read ticket.
fn busy_repo_with_ticket() -> (TestEnv, String, String) {
    let env = TestEnv::init();
    env.pad_with_envelope(&[]);
    let e = env.file("envelope.json", ENVELOPE.as_bytes());
    let d = env.json(&["deposit", "--envelope", &e]);
    let ticket = d["read_ticket"].as_str().unwrap().to_owned();
    (env, d["pad_id"].as_str().unwrap().to_owned(), ticket)
}

fn vkey(env: &TestEnv) -> String {
    env.json(&["key", "show"])["vkey"].as_str().unwrap().to_owned()
}

fn state(env: &TestEnv) -> String {
    env.path().join("verifier-state").to_str().unwrap().to_owned()
}

/// Runs `locker --json ARGS` and returns (exit code, stdout JSON).
fn run(env: &TestEnv, args: &[&str]) -> (i32, Value) {
    let out = env.run(args);
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{args:?} printed no JSON ({e}): {}", String::from_utf8_lossy(&out.stderr))
    });
    (out.status.code().unwrap(), v)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// What an operator with the files does to forget what the log key signed: deletes its
/// high-water mark (`.locker/keys/log.checkpoint`), which locker would otherwise check the
/// database against and refuse a rewritten one.
pub fn forget_mark(env: &TestEnv) {
    std::fs::remove_file(env.path().join(".locker/keys/log.checkpoint")).unwrap();
}

/// What a malicious operator with the database, the key and its high-water mark does: rewrites
/// journal entry `seq` (replacing `from` by `to` in its bytes), recomputes every chain hash
/// after it, throws away the Merkle tree, the signed checkpoints and the mark, and has locker
/// rebuild the tree and re-sign the head with the repository's own key.
fn rewrite_and_resign(env: &TestEnv, seq: i64, from: &str, to: &str) {
    let conn = env.sql();
    let entry: Vec<u8> =
        conn.query_row("SELECT entry FROM journal WHERE seq = ?1", [seq], |r| r.get(0)).unwrap();
    let text = String::from_utf8(entry).unwrap();
    assert!(text.contains(from), "entry {seq} has no `{from}`: {text}");
    let forged = text.replacen(from, to, 1);
    conn.execute(
        "UPDATE journal SET entry = ?1 WHERE seq = ?2",
        rusqlite::params![forged.as_bytes(), seq],
    )
    .unwrap();
    let rows: Vec<(i64, Vec<u8>)> = conn
        .prepare("SELECT seq, entry FROM journal ORDER BY seq")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut prev = vec![0u8; 32];
    for (s, e) in rows {
        let mut h = sha2::Sha256::new();
        h.update(b"locker-journal-v1\0");
        h.update(&prev);
        h.update((e.len() as u64).to_be_bytes());
        h.update(&e);
        let hash = h.finalize().to_vec();
        conn.execute(
            "UPDATE journal SET prev_hash = unhex(?1), hash = unhex(?2) WHERE seq = ?3",
            rusqlite::params![hex(&prev), hex(&hash), s],
        )
        .unwrap();
        prev = hash;
    }
    conn.move_head_to_last();
    conn.drop_merkle();
    conn.execute_batch("DELETE FROM checkpoints;").unwrap();
    drop(conn);
    // With the mark in place, locker refuses the rewritten database outright.
    let e = env.json_err(&["checkpoint"], 6);
    assert_eq!(e["error"], "rolled_back", "{e}");
    forget_mark(env);
    // Without it, locker rebuilds the tree from the rewritten journal and signs it: a
    // re-signed head, which only readers (pins, witnesses) can catch.
    env.json(&["checkpoint"]);
}

#[test]
fn test_checkpoint_is_a_signed_note_verifiable_with_key_show() {
    let (env, _) = busy_repo();
    let key_file = env.path().join(".locker/keys/log.key");
    assert_eq!(std::fs::metadata(&key_file).unwrap().permissions().mode() & 0o777, 0o600);
    let dir = env.path().join(".locker/keys");
    assert_eq!(std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777, 0o700);
    let key = env.json(&["key", "show"]);
    let origin = key["origin"].as_str().unwrap();
    let config: Value =
        serde_json::from_slice(&std::fs::read(env.path().join(".locker/config.json")).unwrap())
            .unwrap();
    assert_eq!(origin, format!("locker/{}", config["repository_id"].as_str().unwrap()));
    let vk = key["vkey"].as_str().unwrap();
    assert!(vk.starts_with(&format!("{origin}+{}+A", key["key_id"].as_str().unwrap())), "{vk}");
    // Human `key show` is the bare key.
    let out = env.locker().args(["key", "show"]).output().unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), format!("{vk}\n"));

    let cp = env.json(&["checkpoint"]);
    let head = env.verify().1["journal"]["head_seq"].as_u64().unwrap();
    assert_eq!(cp["size"], head);
    // Every command that wrote signed a checkpoint of the journal it left (at most one per
    // size): this one was signed already.
    assert_eq!(cp["signed_now"], false);
    let note = cp["note"].as_str().unwrap();
    assert!(note.starts_with(&format!("{origin}\n{head}\n")), "{note}");
    assert!(note.contains(&format!("\n\n\u{2014} {origin} ")), "{note}");
    // Asking again signs nothing new; the human form is the note itself.
    assert_eq!(env.json(&["checkpoint"])["signed_now"], false);
    let out = env.locker().args(["checkpoint"]).output().unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), note);
    // A pinned verifier accepts it.
    let st = state(&env);
    let (code, r) = run(&env, &["checkpoint", "--key", vk, "--state", &st]);
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["pin"]["status"], "pinned");
    let (code, r) = run(&env, &["checkpoint", "--key", vk, "--state", &st]);
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["pin"]["status"], "unchanged");
    // The whole repository verifies, tree and checkpoints included.
    let (code, v) = env.verify();
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["merkle"]["ok"], true);
    assert_eq!(v["merkle"]["leaves"], head);
    assert_eq!(v["merkle"]["checkpoints"], head);
    assert_eq!(v["merkle"]["signatures_checked"], true);
    assert_eq!(v["mark"]["ok"], true);
    assert_eq!(v["mark"]["size"], head);
}

#[test]
fn test_checkpoint_key_pins_advances_and_rejects_a_wrong_key() {
    let (env, _) = busy_repo();
    let vk = vkey(&env);
    let st = state(&env);
    let (code, r) = run(&env, &["checkpoint", "--key", &vk, "--state", &st]);
    assert_eq!((code, r["pin"]["status"].as_str()), (0, Some("pinned")));
    env.pad_with_envelope(&[]);
    let (code, r) = run(&env, &["checkpoint", "--key", &vk, "--state", &st]);
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["pin"]["status"], "advanced");
    // Another repository's key does not verify this log's checkpoint.
    let other = TestEnv::init();
    let (code, r) = run(&env, &["checkpoint", "--key", &vkey(&other), "--state", &st]);
    assert_eq!(code, 1, "{r}");
    assert!(r["failure"].as_str().unwrap().contains("does not verify"), "{r}");
    // A malformed key is invalid input.
    let e = env.json_err(&["checkpoint", "--key", "not-a-key"], 6);
    assert_eq!(e["error"], "bad_key");
}

#[test]
fn test_proof_inclusion_verifies_offline_and_any_flipped_byte_fails() {
    let (env, pad) = busy_repo();
    let vk = vkey(&env);
    let proof = env.path().join("entry2.tlog-proof");
    let out = env.json(&["proof", "inclusion", "2", "-o", proof.to_str().unwrap()]);
    assert_eq!(out["seq"], 2);
    assert_eq!(out["index"], 1);
    let text = std::fs::read_to_string(&proof).unwrap();
    assert!(text.starts_with("c2sp.org/tlog-proof@v1\nextra "), "{text}");
    assert!(text.contains("\nindex 1\n"), "{text}");
    // Checked with nothing but the key, far from any repository.
    let offline = TestEnv::new();
    let file = offline.file("p.tlog-proof", text.as_bytes());
    let st = state(&offline);
    let (code, r) = run(&offline, &["verify", "--proof", &file, "--key", &vk, "--state", &st]);
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["proof_kind"], "inclusion");
    assert_eq!(r["entry"]["seq"], 2);
    assert_eq!(r["entry"]["kind"], "pad.create");
    assert_eq!(r["pin"]["status"], "pinned");
    // One flipped bit anywhere: refused (exit 1, or 6 when it no longer parses as a proof).
    let bytes = text.as_bytes();
    for i in (0..bytes.len()).step_by(7) {
        let mut b = bytes.to_vec();
        b[i] ^= 0x01;
        let f = offline.file("flipped.tlog-proof", &b);
        let out = offline
            .locker()
            .args(["--json", "verify", "--proof", &f, "--key", &vk, "--no-pin"])
            .output()
            .unwrap();
        let code = out.status.code().unwrap();
        assert!(code == 1 || code == 6, "flipping byte {i} gave exit {code}");
    }
    // A pad block's proof names the deposit that recorded it.
    let b = env.json(&["proof", "inclusion", "--pad", &pad, "--block", "0"]);
    assert_eq!(b["kind"], "pad.deposit");
    assert_eq!(b["block"]["pad_id"], pad.as_str());
    let f = offline.file("block.tlog-proof", b["proof"].as_str().unwrap().as_bytes());
    let (code, r) = run(&offline, &["verify", "--proof", &f, "--key", &vk, "--no-pin"]);
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["entry"]["subject"], format!("pad:{pad}"));
    assert_eq!(r["pin"]["status"], "disabled");
}

#[test]
fn test_proof_consistency_verifies_and_a_flipped_byte_fails() {
    let (env, _) = busy_repo();
    let vk = vkey(&env);
    let head = env.json(&["checkpoint"])["size"].as_u64().unwrap();
    let c = env.json(&["proof", "consistency", "2"]);
    assert_eq!((c["old"].as_u64(), c["new"].as_u64()), (Some(2), Some(head)));
    let text = c["proof"].as_str().unwrap();
    assert!(text.starts_with("locker/tlog-consistency@v1\nold 2\n"), "{text}");
    let offline = TestEnv::new();
    let f = offline.file("c.proof", text.as_bytes());
    let (code, r) = run(&offline, &["verify", "--proof", &f, "--key", &vk, "--no-pin"]);
    assert_eq!(code, 0, "{r}");
    assert_eq!((r["old_size"].as_u64(), r["size"].as_u64()), (Some(2), Some(head)));
    for i in (0..text.len()).step_by(5) {
        let mut b = text.as_bytes().to_vec();
        b[i] ^= 0x02;
        let f = offline.file("flipped.proof", &b);
        let out = offline
            .locker()
            .args(["--json", "verify", "--proof", &f, "--key", &vk, "--no-pin"])
            .output()
            .unwrap();
        let code = out.status.code().unwrap();
        assert!(code == 1 || code == 6, "flipping byte {i} gave exit {code}");
    }
}

#[test]
fn test_proof_error_paths_exit_codes_and_change_nothing() {
    let (env, pad) = busy_repo();
    env.json(&["checkpoint"]);
    env.fails(&["proof", "inclusion", "999"], 3, "not_found", "journal entry 999 not found");
    env.fails(
        &["proof", "inclusion", "--pad", &pad, "--block", "7"],
        3,
        "not_found",
        &format!("pad {pad} has no block 7"),
    );
    let head = env.json(&["checkpoint"])["size"].as_u64().unwrap();
    env.fails(
        &["proof", "consistency", "3", "2"],
        6,
        "unprocessable",
        "the old size 3 is larger than the new size 2",
    );
    env.fails(
        &["proof", "consistency", "1", "999"],
        3,
        "not_found",
        &format!("the log has {head} entries; there is no tree of size 999"),
    );
    // verify --proof: no key is a usage error, garbage is invalid input.
    let f = env.file("garbage.proof", b"hello\n\nworld\n");
    let e = env.json_err(&["verify", "--proof", &f], 2);
    assert_eq!(e["error"], "usage");
    let e = env.json_err(&["verify", "--proof", &f, "--key", &vkey(&env), "--no-pin"], 6);
    assert_eq!(e["error"], "bad_proof");
    // Outside any repository, the log commands say there is none.
    let nowhere = TestEnv::new();
    assert_eq!(nowhere.json_err(&["checkpoint"], 3)["error"], "no_repository");
    assert_eq!(nowhere.json_err(&["key", "show"], 3)["error"], "no_repository");
}

#[test]
fn test_verify_names_a_tampered_merkle_hash_and_checkpoint() {
    let (env, _) = busy_repo();
    env.json(&["checkpoint"]);
    assert_eq!(env.verify().0, 0);
    let conn = env.sql();
    conn.set_merkle_hash(1, [0xab; 32]);
    let (code, v) = env.verify();
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["merkle"]["ok"], false);
    let p = &v["first_broken"]["merkle"];
    assert!(p["detail"].as_str().unwrap().contains("journal entry 2"), "{p}");
    // Put it back, then forge a checkpoint row's note.
    conn.drop_merkle();
    drop(conn);
    env.json(&["checkpoint"]); // rebuilds the tree; the stored checkpoint still matches
    assert_eq!(env.verify().0, 0);
    let conn = env.sql();
    let note: String = conn
        .query_row("SELECT note FROM checkpoints ORDER BY size DESC", [], |r| r.get(0))
        .unwrap();
    let forged = note.replacen("\n\n", "\nextension\n\n", 1);
    conn.execute(
        "UPDATE checkpoints SET note = ?1 WHERE size = (SELECT MAX(size) FROM checkpoints)",
        [&forged],
    )
    .unwrap();
    let (code, v) = env.verify();
    assert_eq!(code, 1, "{v}");
    assert!(
        v["first_broken"]["checkpoint"]["detail"].as_str().unwrap().contains("signature"),
        "{v}"
    );
}

#[test]
fn test_existing_repository_gets_its_tree_and_key_on_first_use() {
    let (env, _) = busy_repo();
    // As a repository made before signed checkpoints: no tree, no key, no signer.
    env.sql().drop_merkle();
    env.sql().execute_batch("DELETE FROM checkpoints; DELETE FROM log_signer;").unwrap();
    std::fs::remove_dir_all(env.path().join(".locker/keys")).unwrap();
    let (code, v) = env.verify();
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["merkle"]["pending"], true);
    // The next write hashes the whole journal in, in its own transaction.
    env.pad_with_envelope(&[]);
    let (code, v) = env.verify();
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["merkle"]["pending"], false);
    assert_eq!(v["merkle"]["leaves"], v["journal"]["entries"]);
    // The first checkpoint makes the key, mode 0600.
    let cp = env.json(&["checkpoint"]);
    assert_eq!(cp["size"], v["journal"]["entries"]);
    let key_file = env.path().join(".locker/keys/log.key");
    assert_eq!(std::fs::metadata(&key_file).unwrap().permissions().mode() & 0o777, 0o600);
}

#[test]
fn test_bundle_carries_log_proofs_checked_against_the_key() {
    let (env, pad) = busy_repo();
    let vk = vkey(&env);
    let file = env.path().join("pad.bundle");
    env.json(&["pad", "export", &pad, "-o", file.to_str().unwrap()]);
    let offline = TestEnv::new();
    let f = offline.file("pad.bundle", &std::fs::read(&file).unwrap());
    let st = state(&offline);
    let (code, r) = run(&offline, &["verify", "--bundle", &f, "--key", &vk, "--state", &st]);
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["verdict"], "trusted_log_checkpoint");
    let log = r["checks"].as_array().unwrap().iter().find(|c| c["name"] == "log").unwrap();
    assert_eq!(log["status"], "pass", "{r}");
    assert_eq!(r["pin"]["status"], "pinned");
    // Without the key: said so, and still intact.
    let (code, r) = run(&offline, &["verify", "--bundle", &f]);
    assert_eq!(code, 0, "{r}");
    let log = r["checks"].as_array().unwrap().iter().find(|c| c["name"] == "log").unwrap();
    assert_eq!(log["status"], "skip");
    assert!(log["detail"].as_str().unwrap().contains("NOT checked"), "{log}");
    // An older bundle (no log proofs) still verifies without a key, but not against one.
    let text = std::fs::read_to_string(&f).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let mut h: Value = serde_json::from_str(&lines[0]).unwrap();
    h.as_object_mut().unwrap().remove("log");
    lines[0] = h.to_string();
    let old = reseal(&lines);
    let g = offline.file("old.bundle", old.as_bytes());
    assert_eq!(run(&offline, &["verify", "--bundle", &g]).0, 0);
    let (code, r) = run(&offline, &["verify", "--bundle", &g, "--key", &vk, "--no-pin"]);
    assert_eq!(code, 1, "{r}");
    assert_eq!(r["first_failure"]["name"], "log");
}

/// Recomputes a bundle's trailer over its other lines.
fn reseal(lines: &[String]) -> String {
    let body: String = lines[..lines.len() - 1].iter().map(|l| format!("{l}\n")).collect();
    let mut t: Value = serde_json::from_str(lines.last().unwrap()).unwrap();
    t["sha256"] = hex(&sha2::Sha256::digest(body.as_bytes())).into();
    format!("{body}{t}\n")
}

#[test]
fn test_bundle_with_a_forged_checkpoint_fails_against_the_key() {
    let (env, pad) = busy_repo();
    let vk = vkey(&env);
    let origin = env.json(&["key", "show"])["origin"].as_str().unwrap().to_owned();
    // A forger's repository claiming the same origin, with its own key.
    let forger = TestEnv::init();
    let cfg = forger.path().join(".locker/config.json");
    let mut c: Value = serde_json::from_slice(&std::fs::read(&cfg).unwrap()).unwrap();
    c["origin"] = origin.clone().into();
    std::fs::write(&cfg, serde_json::to_vec(&c).unwrap()).unwrap();
    // It forgets what it signed under its own origin, and signs under that one.
    forger.sql().execute("DELETE FROM checkpoints", []).unwrap();
    forget_mark(&forger);
    let forged_note = forger.json(&["checkpoint"])["note"].as_str().unwrap().to_owned();
    assert!(forged_note.starts_with(&format!("{origin}\n")));
    let file = env.path().join("pad.bundle");
    env.json(&["pad", "export", &pad, "-o", file.to_str().unwrap()]);
    let text = std::fs::read_to_string(&file).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let mut h: Value = serde_json::from_str(&lines[0]).unwrap();
    h["log"]["checkpoint"] = forged_note.into();
    lines[0] = h.to_string();
    let offline = TestEnv::new();
    let f = offline.file("forged.bundle", reseal(&lines).as_bytes());
    let (code, r) = run(&offline, &["verify", "--bundle", &f, "--key", &vk, "--no-pin"]);
    assert_eq!(code, 1, "{r}");
    assert_eq!(r["first_failure"]["name"], "log");
    assert!(r["first_failure"]["detail"].as_str().unwrap().contains("checkpoint"), "{r}");
}

#[test]
fn test_malicious_operator_rewrite_is_caught_by_pinned_verifier_and_bundle() {
    let (env, pad) = busy_repo();
    let vk = vkey(&env);
    let st = state(&env);
    // A verifier pins the honest log, and a reader keeps an honest inclusion proof.
    let (code, r) = run(&env, &["checkpoint", "--key", &vk, "--state", &st]);
    assert_eq!((code, r["pin"]["status"].as_str()), (0, Some("pinned")), "{r}");
    let honest = r["note"].as_str().unwrap().to_owned();
    let bundle_state = env.path().join("bundle-state").to_str().unwrap().to_owned();
    let before = env.path().join("before.bundle");
    env.json(&["pad", "export", &pad, "-o", before.to_str().unwrap()]);
    let (code, r) = run(
        &env,
        &["verify", "--bundle", before.to_str().unwrap(), "--key", &vk, "--state", &bundle_state],
    );
    assert_eq!(code, 0, "{r}");

    // The operator rewrites entry 2 (a pad's creation), recomputes every hash and re-signs.
    rewrite_and_resign(&env, 2, "\"max_blocks\":32", "\"max_blocks\":31");
    env.pad_with_envelope(&[]);

    // The pinned verifier demands a consistency proof from its pin: the rewritten tree has none.
    let (code, r) = run(&env, &["checkpoint", "--key", &vk, "--state", &st]);
    assert_eq!(code, 1, "{r}");
    assert_eq!(r["pin"]["status"], "fork", "{r}");
    let ev = &r["evidence"];
    assert_eq!(ev["pinned"], honest.as_str());
    assert_eq!(ev["presented"], r["note"]);
    assert!(!ev["proof"].as_array().unwrap().is_empty(), "{r}");
    assert!(!ev["failure"].as_str().unwrap().is_empty());
    // The human report shows the evidence too.
    let out = env.locker().args(["checkpoint", "--key", &vk, "--state", &st]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let human = String::from_utf8(out.stdout).unwrap();
    assert!(human.contains("FORK") && human.contains(&honest), "{human}");

    // A bundle exported after the rewrite is signed by the real key, but forks from the pin.
    let after = env.path().join("after.bundle");
    env.json(&["pad", "export", &pad, "-o", after.to_str().unwrap()]);
    let (code, r) = run(
        &env,
        &["verify", "--bundle", after.to_str().unwrap(), "--key", &vk, "--state", &bundle_state],
    );
    assert_eq!(code, 1, "{r}");
    assert_eq!(r["first_failure"]["name"], "pin", "{r}");
    assert_eq!(r["pin"]["status"], "fork");
    assert!(r["evidence"]["pinned"].as_str().unwrap().contains(&origin_of(&honest)));
}

fn origin_of(note: &str) -> String {
    note.lines().next().unwrap().to_owned()
}

#[test]
fn test_checkpoint_and_proofs_over_http() {
    let (env, pad, ticket) = busy_repo_with_ticket();
    let vk = vkey(&env);
    let server = env.serve(&[]);
    let url = format!("http://{}", server.addr);
    let remote = TestEnv::new();
    let cp = remote.json(&["--remote", &url, "checkpoint"]);
    assert_eq!(cp["key"], vk.as_str());
    assert_eq!(remote.json(&["--remote", &url, "key", "show"])["vkey"], vk.as_str());
    let st = state(&remote);
    let (code, r) = run(&remote, &["--remote", &url, "checkpoint", "--key", &vk, "--state", &st]);
    assert_eq!((code, r["pin"]["status"].as_str()), (0, Some("pinned")), "{r}");
    // The log grows; the pinned client fetches the consistency proof from the server.
    env.pad_with_envelope(&[]);
    let (code, r) = run(&remote, &["--remote", &url, "checkpoint", "--key", &vk, "--state", &st]);
    assert_eq!((code, r["pin"]["status"].as_str()), (0, Some("advanced")), "{r}");
    let p = remote.json(&["--remote", &url, "proof", "inclusion", "--pad", &pad, "--block", "0"]);
    let f = remote.file("p.tlog-proof", p["proof"].as_str().unwrap().as_bytes());
    let (code, r) =
        run(&remote, &["--remote", &url, "verify", "--proof", &f, "--key", &vk, "--state", &st]);
    assert_eq!(code, 0, "{r}");
    let c = remote.json(&["--remote", &url, "proof", "consistency", "1"]);
    assert_eq!(c["old"], 1);
    let e = remote.json_err(&["--remote", &url, "proof", "inclusion", "999"], 3);
    assert_eq!(e["error"], "not_found");
    // A bundle exported through the server carries the proofs too.
    let file = remote.path().join("remote.bundle");
    remote.json(&[
        "--remote",
        &url,
        "pad",
        "export",
        &pad,
        "--ticket",
        &ticket,
        "-o",
        file.to_str().unwrap(),
    ]);
    let (code, r) =
        run(&remote, &["verify", "--bundle", file.to_str().unwrap(), "--key", &vk, "--no-pin"]);
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["verdict"], "trusted_log_checkpoint");
    drop(server);
}

#[test]
fn test_backup_and_restore_keep_the_log_key() {
    if crate::common::sqlite_only("`locker backup` copies SQLite files") {
        return;
    }
    let (env, _) = busy_repo();
    env.json(&["checkpoint"]);
    let vk = vkey(&env);
    let dest = env.path().join("backups/one");
    env.json(&["backup", dest.to_str().unwrap()]);
    let key = dest.join(".locker/keys/log.key");
    assert_eq!(std::fs::metadata(&key).unwrap().permissions().mode() & 0o777, 0o600);
    let out = env.locker().args(["--json", "-R", dest.to_str().unwrap(), "key", "show"]).output();
    let shown: Value = serde_json::from_slice(&out.unwrap().stdout).unwrap();
    assert_eq!(shown["vkey"], vk.as_str());
    // The copy's stored checkpoints verify with the key it carries.
    let out =
        env.locker().args(["--json", "-R", dest.to_str().unwrap(), "verify"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
}

/// The promise, offline: a reader holding only the verifier key and its last
/// checkpoint proves a handed-off pad included in the log and the log not rewritten since,
/// from two files (the bundle and a consistency proof from the size it pinned).
#[test]
fn test_offline_reader_advances_its_pin_with_a_consistency_proof_file() {
    let (env, _) = busy_repo();
    let vk = vkey(&env);
    // Two readers pinned the log's checkpoint at the same moment (each has its own state).
    let (reader, other) = (TestEnv::new(), TestEnv::new());
    let (st, ost) = (state(&reader), state(&other));
    let (code, r) = run(&env, &["checkpoint", "--key", &vk, "--state", &st]);
    assert_eq!((code, r["pin"]["status"].as_str()), (0, Some("pinned")), "{r}");
    assert_eq!(run(&env, &["checkpoint", "--key", &vk, "--state", &ost]).0, 0);
    let old = r["size"].as_u64().unwrap().to_string();

    // The log grows; the writer hands over a bundle and a consistency proof from size `old`.
    let pad = env.pad_with_envelope(&[]);
    env.json(&["seal", &pad.id, "--key", &pad.key]);
    let handover = |name: &str, args: &[&str]| {
        let file = env.path().join(name);
        let mut args = args.to_vec();
        args.extend(["-o", file.to_str().unwrap()]);
        env.json(&args);
        std::fs::read(&file).unwrap()
    };
    let b = reader.file("pad.bundle", &handover("pad.bundle", &["pad", "export", &pad.id]));
    let p = reader.file("since.proof", &handover("since.proof", &["proof", "consistency", &old]));

    // Without the proof the bundle's newer checkpoint cannot be trusted offline.
    let (code, r) = run(&reader, &["verify", "--bundle", &b, "--key", &vk, "--state", &st]);
    assert_eq!((code, r["pin"]["status"].as_str()), (1, Some("unproven")), "{r}");
    // The proof file alone advances the pin; the bundle then verifies against it.
    let (code, r) = run(&reader, &["verify", "--proof", &p, "--key", &vk, "--state", &st]);
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["pin"]["status"], "advanced", "{r}");
    let (code, r) = run(&reader, &["verify", "--bundle", &b, "--key", &vk, "--state", &st]);
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["verdict"], "trusted_log_checkpoint");
    assert_eq!(r["pin"]["status"], "unchanged", "{r}");

    // The operator rewrites an old entry, re-signs, and hands the other reader a proof file
    // from size `old` of the rewritten log: consistent in itself, not with the pin. A fork.
    rewrite_and_resign(&env, 2, "\"max_blocks\":32", "\"max_blocks\":31");
    env.pad_with_envelope(&[]);
    let q = other.file("forged.proof", &handover("forged.proof", &["proof", "consistency", &old]));
    let (code, r) = run(&other, &["verify", "--proof", &q, "--key", &vk, "--state", &ost]);
    assert_eq!(code, 1, "{r}");
    assert_eq!(r["pin"]["status"], "fork", "{r}");
    assert!(!r["evidence"]["pinned"].as_str().unwrap().is_empty(), "{r}");
    // And with --no-pin the file is only checked in itself (which it passes).
    assert_eq!(run(&other, &["verify", "--proof", &q, "--key", &vk, "--no-pin"]).0, 0);
}

/// `verify --proof` writes a pin under the state directory: it says so, once, on stderr, with
/// the pin's file, when it pins a log for the first time and when it advances the pin; never
/// with --json or -q, and not when the pin only confirms.
#[test]
fn test_verify_proof_says_where_it_pins_and_when_the_pin_advances() {
    let (env, _) = busy_repo();
    let vk = vkey(&env);
    let first = env.json(&["proof", "inclusion", "1"])["proof"].as_str().unwrap().to_owned();
    let offline = TestEnv::new();
    let f = offline.file("first.proof", first.as_bytes());
    let st = state(&offline);
    let verify = |file: &str, flags: &[&str]| {
        let out = offline
            .locker()
            .args(flags)
            .args(["verify", "--proof", file, "--key", &vk, "--state", &st])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stderr).unwrap()
    };
    // Quiet or JSON: the pin is written, and nothing is said.
    let quiet_state = state(&TestEnv::new());
    let out = offline
        .locker()
        .args(["-q", "verify", "--proof", &f, "--key", &vk, "--state", &quiet_state])
        .output()
        .unwrap();
    assert!(out.status.success() && out.stderr.is_empty(), "{out:?}");
    let (code, r) =
        run(&offline, &["verify", "--proof", &f, "--key", &vk, "--state", &quiet_state]);
    assert_eq!((code, r["pin"]["status"].as_str()), (0, Some("unchanged")), "{r}");
    // First use: one line naming the log, the size and the pin's file under the state dir.
    let said = verify(&f, &[]);
    let origin = r["origin"].as_str().unwrap();
    let pin_file = std::fs::read_dir(std::path::Path::new(&st).join("pins"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    assert_eq!(said.lines().count(), 1, "{said}");
    assert!(said.starts_with(&format!("Pinned the checkpoint of {origin} (size ")), "{said}");
    assert!(said.contains(&format!("in {}:", pin_file.display())), "{said}");
    assert!(said.contains("--no-pin"), "{said}");
    // The same checkpoint again: the pin holds and nothing is said.
    assert_eq!(verify(&f, &[]), "");
    // A newer checkpoint, proved consistent by the file itself: the pin advances, and says so.
    let old = r["size"].as_u64().unwrap();
    env.pad_with_envelope(&[]);
    let c = env.json(&["proof", "consistency", &old.to_string()]);
    let g = offline.file("newer.proof", c["proof"].as_str().unwrap().as_bytes());
    let said = verify(&g, &[]);
    let new = c["new"].as_u64().unwrap();
    assert_eq!(
        said,
        format!("Advanced the pin of {origin} to size {new} in {}.\n", pin_file.display())
    );
    assert_eq!(verify(&g, &["--json"]), "");
}

/// With a key that is not the log's, nothing is pinned, and the report says so and what to
/// pass instead, rather than that pinning is off (nobody turned it off).
#[test]
fn test_verify_proof_with_another_logs_key_says_nothing_was_pinned_and_why() {
    let (env, _) = busy_repo();
    let proof = env.json(&["proof", "inclusion", "1"])["proof"].as_str().unwrap().to_owned();
    let other = TestEnv::init();
    let wrong = vkey(&other);
    let offline = TestEnv::new();
    let f = offline.file("p.proof", proof.as_bytes());
    let st = state(&offline);
    let (code, r) = run(&offline, &["verify", "--proof", &f, "--key", &wrong, "--state", &st]);
    assert_eq!(code, 1, "{r}");
    assert_eq!(r["pin"]["status"], "unverified", "{r}");
    let detail = r["pin"]["detail"].as_str().unwrap();
    assert!(detail.starts_with("nothing was pinned: this checkpoint is of the log `"), "{detail}");
    assert!(detail.contains("locker key show"), "{detail}");
    assert!(!detail.contains("pinning is off"), "{detail}");
    assert!(!std::path::Path::new(&st).join("pins").exists(), "a pin was written");
    // The human report shows the same line, and no status line claims a pin.
    let out = offline
        .locker()
        .args(["verify", "--proof", &f, "--key", &wrong, "--state", &st])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("pin:     unverified: nothing was pinned: "), "{text}");
    assert!(!String::from_utf8(out.stderr).unwrap().contains("Pinned"));
    // `checkpoint --key` with the wrong key says the same; with --no-pin pinning really is off.
    let (code, r) = run(&env, &["checkpoint", "--key", &wrong, "--state", &st]);
    assert_eq!((code, r["pin"]["status"].as_str()), (1, Some("unverified")), "{r}");
    let (_, r) = run(&offline, &["verify", "--proof", &f, "--key", &wrong, "--no-pin"]);
    assert_eq!(r["pin"]["status"], "disabled", "{r}");
}
