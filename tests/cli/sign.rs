//! Agent signing keys and signed writes: `locker key`, `--sign-key` on append, publish and step,
//! the `require_signed_appends` policy, `verify` re-checking every signature, `review`
//! reporting signers, and the same through HTTP and the remote CLI.

use std::os::unix::fs::PermissionsExt as _;

use locker::domain::digest::Digest;
use locker::domain::sign::{PrivateKey, Statement};
use rusqlite::params;
use serde_json::Value;

use crate::common::{TestEnv, ENVELOPE};

/// Registers a key for `agent`, written to `<agent>.key`; returns the file's path.
fn key(env: &TestEnv, agent: &str) -> String {
    let path = env.path().join(format!("{agent}.key"));
    let p = path.to_str().unwrap().to_owned();
    let out = env.json(&["key", "generate", "--agent", agent, "--out", &p]);
    assert_eq!(out["agent"], agent);
    p
}

fn entries(env: &TestEnv, kind: &str) -> Vec<Value> {
    let out = env.locker().args(["--json", "log", "--kind", kind]).output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn repository_id(env: &TestEnv) -> String {
    env.json(&["key", "list"])["repository_id"].as_str().unwrap().to_owned()
}

#[test]
fn test_key_generate_writes_the_private_key_and_registers_the_public_key() {
    let env = TestEnv::init();
    let before = entries(&env, "key.").len();
    let path = env.path().join("alice.key");
    let out = env.json(&["key", "generate", "--agent", "alice", "--out", path.to_str().unwrap()]);
    assert_eq!(out["private_key_file"], path.to_str().unwrap());
    assert!(out.get("private_key").is_none(), "a key written to a file is not printed");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("PRIVATE+KEY+alice+"), "{text}");
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    let k = PrivateKey::parse(&text).unwrap();
    assert_eq!(out["vkey"], k.public().vkey().as_str());
    assert_eq!(out["key_id"], k.public().key_id().as_str());
    // One journal entry, and the listing.
    let logged = entries(&env, "key.register");
    assert_eq!(logged.len(), before + 1);
    assert_eq!(logged[0]["body"]["vkey"], out["vkey"]);
    assert_eq!(logged[0]["subject"], "key:alice");
    let list = env.json(&["key", "list"]);
    assert_eq!(list["keys"][0]["agent"], "alice");
    assert_eq!(list["keys"][0]["state"], "active");
    assert_eq!(list["require_signed_appends"], false);
    assert_eq!(list["repository_id"].as_str().unwrap().len(), 32);

    // Printed once when no file is given.
    let printed = env.json(&["key", "generate", "--agent", "bob"]);
    let skey = printed["private_key"].as_str().unwrap();
    assert_eq!(PrivateKey::parse(skey).unwrap().public().vkey(), printed["vkey"].as_str().unwrap());
    let human = env.locker().args(["key", "generate", "--agent", "carol"]).output().unwrap();
    assert!(String::from_utf8(human.stdout).unwrap().starts_with("PRIVATE+KEY+carol+"));

    // Errors change nothing: an active key exists, the file exists, a bad name.
    env.fails(
        &["key", "generate", "--agent", "alice"],
        4,
        "key_exists",
        "agent alice already has an active signing key",
    );
    let other = env.path().join("other.key");
    std::fs::write(&other, "keep me").unwrap();
    let e =
        env.json_err(&["key", "generate", "--agent", "dave", "--out", other.to_str().unwrap()], 4);
    assert_eq!(e["error"], "conflict");
    assert_eq!(std::fs::read_to_string(&other).unwrap(), "keep me");
    assert!(env.json(&["key", "list"])["keys"]
        .as_array()
        .unwrap()
        .iter()
        .all(|k| k["agent"] != "dave"));
    let e = env.json_err(&["key", "generate", "--agent", "bad name"], 6);
    assert_eq!(e["error"], "invalid");
    let e = env.json_err(&["key", "generate", "--agent", "operator"], 6);
    assert_eq!(e["error"], "invalid");
    // A failed registration removes the file it wrote.
    let kept = env.path().join("alice2.key");
    env.json_err(&["key", "generate", "--agent", "alice", "--out", kept.to_str().unwrap()], 4);
    assert!(!kept.exists());
    // Only the operator registers keys.
    let token = env.json(&["token", "create", "--agent", "w", "--scope", "s"])["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let out = env
        .locker()
        .env("LOCKER_TOKEN", &token)
        .args(["--json", "key", "generate", "--agent", "eve"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(5));
}

#[test]
fn test_pad_append_signed_is_journaled_verified_and_reported() {
    let env = TestEnv::init();
    let alice = key(&env, "alice");
    let pad = env.create_pad(&[]);
    let a0 =
        env.json(&["append", &pad.id, "--key", &pad.key, "--sign-key", &alice, "-d", ENVELOPE]);
    assert_eq!(a0["seq"], 0);
    // LOCKER_SIGN_KEY may hold the key itself.
    let text = std::fs::read_to_string(&alice).unwrap();
    let out = env
        .locker()
        .env("LOCKER_SIGN_KEY", text.trim())
        .args(["--json", "append", &pad.id, "--key", &pad.key, "-d", "second"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    env.append(&pad, "unsigned third");

    let appends = entries(&env, "pad.append");
    let signed: Vec<&Value> =
        appends.iter().filter(|e| e["body"].get("signed").is_some()).collect();
    assert_eq!(signed.len(), 2);
    for e in &signed {
        assert_eq!(e["body"]["signed"]["signer"], "alice");
        assert_eq!(e["body"]["sha256"].as_str().unwrap().len(), 64);
    }
    // The signature is over the canonical statement.
    let first = appends.iter().find(|e| e["body"]["seq"] == 0).unwrap();
    let st =
        Statement::pad_append(&repository_id(&env), &pad.id, 0, &Digest::of(ENVELOPE.as_bytes()));
    let sig = locker::domain::sign::decode_signature(
        first["body"]["signed"]["signature"].as_str().unwrap(),
    )
    .unwrap();
    PrivateKey::parse(&text).unwrap().public().verify(&st.message(), &sig).unwrap();

    let (code, v) = env.verify();
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(v["signatures"]["signed"], 2);
    assert_eq!(v["signatures"]["unsigned"], 1);
    assert_eq!(v["signatures"]["by_signer"]["alice"], 2);
    assert_eq!(v["signatures"]["keys"], 1);
    // --require-signed names the unsigned entry.
    let out = env.run(&["verify", "--require-signed"]);
    assert_eq!(out.status.code(), Some(1));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["first_broken"]["signature"]["subject"], format!("pad:{}", pad.id));
    assert!(r["first_broken"]["signature"]["detail"].as_str().unwrap().contains("is not signed"));
    let log = env.locker().args(["log", "--kind", "pad.append"]).output().unwrap();
    assert_eq!(String::from_utf8(log.stdout).unwrap().matches("signed by alice").count(), 2);
    let human = env.locker().args(["verify"]).output().unwrap();
    assert!(String::from_utf8(human.stdout).unwrap().contains("signed by: alice 2"));

    // review reports who signed each block.
    env.json(&["seal", &pad.id, "--key", &pad.key]);
    let out = env.run(&["review", &pad.id]);
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    let signers = r["signers"].as_array().unwrap();
    assert_eq!(signers.len(), 3);
    assert_eq!(signers[0]["signer"], "alice");
    assert_eq!(signers[1]["signer"], "alice");
    assert!(signers[2]["signer"].is_null());
    let check = r["checks"].as_array().unwrap().iter().find(|c| c["name"] == "signatures").unwrap();
    assert_eq!(check["status"], "pass", "{check}");
}

#[test]
fn test_signed_writes_refuse_unknown_wrong_and_revoked_keys() {
    let env = TestEnv::init();
    let alice = key(&env, "alice");
    let pad = env.pad_with_envelope(&[]);
    let append = |k: &str| {
        vec![
            "append".to_owned(),
            pad.id.clone(),
            "--key".into(),
            pad.key.clone(),
            "--sign-key".into(),
            k.to_owned(),
            "-d".into(),
            "x".into(),
        ]
    };
    let args = |v: &Vec<String>| v.clone();
    // An agent with no registered key.
    let ghost = env.file("ghost.key", PrivateKey::generate("ghost").unwrap().skey().as_bytes());
    let a = args(&append(&ghost));
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let e = env.fails(&a, 5, "unknown_signer", "agent ghost has no registered signing key");
    assert_eq!(e["signer"], "ghost");
    // A key of the right name that is not the registered one.
    let forged = env.file("forged.key", PrivateKey::generate("alice").unwrap().skey().as_bytes());
    let a = args(&append(&forged));
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let e = env.fails(
        &a,
        5,
        "bad_signature",
        "the signature of agent alice does not verify for this write",
    );
    assert!(e["signed_message"].as_str().unwrap().starts_with("locker.signed-write/v1\n"));
    // A file that is not a key; a missing file.
    let junk = env.file("junk.key", b"not a key\n");
    let a = args(&append(&junk));
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    assert_eq!(env.json_err(&a, 6)["error"], "invalid_key");
    let a = args(&append("/nonexistent/key"));
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    env.json_err(&a, 6);
    // The good key works; once revoked it is refused, and what it signed stays verified.
    let a = args(&append(&alice));
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    env.json(&a);
    let r = env.json(&["key", "revoke", "--agent", "alice", "--yes"]);
    assert_eq!(r["already_revoked"], false);
    assert_eq!(env.json(&["key", "revoke", "--agent", "alice", "--yes"])["already_revoked"], true);
    assert_eq!(env.json(&["key", "list"])["keys"][0]["state"], "revoked");
    let e = env.fails(&a, 5, "key_revoked", "agent alice's signing key has been revoked");
    assert_eq!(e["signer"], "alice");
    env.json_err(&["key", "revoke", "--agent", "nobody", "--yes"], 3);
    let (code, v) = env.verify();
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(v["signatures"]["signed"], 1);
    // A new key can be registered after revocation.
    let new = env.path().join("alice-2.key");
    env.json(&["key", "generate", "--agent", "alice", "--out", new.to_str().unwrap()]);
    let a = args(&append(new.to_str().unwrap()));
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    env.json(&a);
    assert_eq!(env.verify().0, 0);
}

#[test]
fn test_artifact_publish_and_step_signed_and_the_require_policy() {
    let env = TestEnv::init();
    let alice = key(&env, "alice");
    let lease = env.json(&["lease", "acquire", "job", "--holder", "alice"]);
    let lease_id = lease["lease_id"].as_str().unwrap().to_owned();

    env.json(&["key", "require", "--yes"]);
    assert_eq!(env.json(&["key", "require", "--yes"])["changed"], false);
    assert_eq!(env.json(&["key", "list"])["require_signed_appends"], true);
    // Unsigned writes are refused and change nothing.
    let detail = "this repository requires signed appends, publishes and steps";
    env.fails(
        &["artifact", "publish", "k", "-d", "v1", "--expect", "0", "--op", "o1"],
        5,
        "signature_required",
        detail,
    );
    env.fails(
        &["step", "job", "s1", "--lease", &lease_id, "--executed", "did it"],
        5,
        "signature_required",
        detail,
    );
    let pad = env.create_pad(&[]);
    env.fails(
        &["append", &pad.id, "--key", &pad.key, "-d", ENVELOPE],
        5,
        "signature_required",
        detail,
    );
    let env_file = env.file("envelope.json", ENVELOPE.as_bytes());
    env.fails(
        &["deposit", "--envelope", &env_file],
        5,
        "signature_required",
        "this repository requires signed appends, and a deposit's blocks cannot be signed",
    );

    // Signed ones go through, with a fence on the publish.
    let p = env.json(&[
        "artifact",
        "publish",
        "k",
        "-d",
        "v1",
        "--expect",
        "0",
        "--op",
        "o1",
        "--fence",
        "job:1",
        "--sign-key",
        &alice,
    ]);
    assert_eq!(p["artifact"]["version"], 1);
    let s = env.json(&[
        "step",
        "job",
        "s1",
        "--lease",
        &lease_id,
        "--executed",
        "did it",
        "--sign-key",
        &alice,
    ]);
    assert_eq!(s["replayed"], false);
    env.json(&["append", &pad.id, "--key", &pad.key, "-d", ENVELOPE, "--sign-key", &alice]);
    // A replayed publish writes nothing new and needs no new signature check.
    let again = env.json(&[
        "artifact",
        "publish",
        "k",
        "-d",
        "v1",
        "--expect",
        "0",
        "--op",
        "o1",
        "--fence",
        "job:1",
        "--sign-key",
        &alice,
    ]);
    assert_eq!(again["replayed"], true);
    // A signature for one version does not fit another: signed for expect 0 → version 1, but
    // the statement for version 2 differs (the CLI signs the right one; a forged one fails).
    let pub_entry = &entries(&env, "artifact.publish")[0];
    assert_eq!(pub_entry["body"]["signed"]["signer"], "alice");
    let step_entry = &entries(&env, "step.record")[0];
    assert_eq!(step_entry["body"]["signed"]["signer"], "alice");

    let (code, v) = env.verify();
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(v["signatures"]["signed"], 3);
    assert_eq!(v["signatures"]["unsigned"], 0);
    assert_eq!(env.run(&["verify", "--require-signed"]).status.code(), Some(0));
    assert_eq!(entries(&env, "repo.setting").len(), 1);

    // Off again: unsigned writes are accepted; verify still holds.
    assert_eq!(env.json(&["key", "require", "--off", "--yes"])["require_signed_appends"], false);
    env.json(&["artifact", "publish", "k", "-d", "v2", "--expect", "1", "--op", "o2"]);
    assert_eq!(env.verify().0, 0);
    assert_eq!(env.run(&["verify", "--require-signed"]).status.code(), Some(1));
}

/// Rewrites journal entry `seq`'s bytes with `edit` and re-hashes the chain from there on, as
/// an operator with the database could.
pub fn rewrite_entry(env: &TestEnv, seq: i64, edit: impl Fn(&mut Value)) {
    let conn = env.sql();
    let rows: Vec<(i64, Vec<u8>)> = {
        let mut stmt =
            conn.prepare("SELECT seq, entry FROM journal WHERE seq >= ?1 ORDER BY seq").unwrap();
        stmt.query_map([seq], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().map(Result::unwrap).collect()
    };
    let mut prev: String = conn
        .query_row("SELECT lower(hex(hash)) FROM journal WHERE seq = ?1", [seq - 1], |r| r.get(0))
        .unwrap();
    for (s, bytes) in rows {
        let mut entry = locker::domain::journal::Entry::decode(&bytes).unwrap();
        if s == seq {
            edit(&mut entry.body);
        }
        let bytes = entry.encode();
        let hash = locker::domain::journal::link(&Digest::parse(&prev).unwrap(), &bytes).to_hex();
        conn.execute(
            "UPDATE journal SET entry = ?2, prev_hash = unhex(?3), hash = unhex(?4) WHERE seq = ?1",
            params![s, bytes, prev, hash],
        )
        .unwrap();
        prev = hash;
    }
    conn.move_head_to_last();
}

#[test]
fn test_verify_catches_a_forged_signature_and_a_swapped_key() {
    let env = TestEnv::init();
    let alice = key(&env, "alice");
    let pad = env.create_pad(&[]);
    env.json(&["append", &pad.id, "--key", &pad.key, "--sign-key", &alice, "-d", ENVELOPE]);
    env.append(&pad, "later");
    assert_eq!(env.verify().0, 0);
    let seq = entries(&env, "pad.append").iter().find(|e| e["body"]["seq"] == 0).unwrap()["seq"]
        .as_i64()
        .unwrap();

    // One flipped byte of the signature, the chain re-hashed: only the signature tells.
    rewrite_entry(&env, seq, |b| {
        let s = b["signed"]["signature"].as_str().unwrap().to_owned();
        let mut raw = locker::domain::sign::decode_signature(&s).unwrap();
        raw[10] ^= 1;
        b["signed"]["signature"] = locker::domain::sign::encode_signature(&raw).into();
    });
    let (code, v) = env.verify();
    assert_eq!(code, 1, "{v:#}");
    assert_eq!(v["journal"]["ok"], true, "the chain itself is consistent");
    let p = &v["first_broken"]["signature"];
    assert_eq!(p["seq"].as_i64(), Some(seq));
    assert!(p["detail"].as_str().unwrap().contains("does not verify"), "{p}");
    assert!(p["detail"].as_str().unwrap().contains(&format!("entry {seq}")), "{p}");
    // review fails its signatures check too.
    let r: Value = serde_json::from_slice(&env.run(&["review", &pad.id]).stdout).unwrap();
    let check = r["checks"].as_array().unwrap().iter().find(|c| c["name"] == "signatures").unwrap();
    assert_eq!(check["status"], "fail");

    // A payload swapped in the entry (its signed digest) is caught the same way.
    let env2 = TestEnv::init();
    let alice2 = key(&env2, "alice");
    let pad2 = env2.create_pad(&[]);
    env2.json(&["append", &pad2.id, "--key", &pad2.key, "--sign-key", &alice2, "-d", ENVELOPE]);
    let seq2 = entries(&env2, "pad.append")[0]["seq"].as_i64().unwrap();
    rewrite_entry(&env2, seq2, |b| b["sha256"] = Digest::of(b"other").to_hex().into());
    let (code, v) = env2.verify();
    assert_eq!(code, 1);
    assert_eq!(v["first_broken"]["signature"]["seq"].as_i64(), Some(seq2));

    // The stored key swapped for another: the stored row differs from the journal.
    let env3 = TestEnv::init();
    key(&env3, "alice");
    let other = PrivateKey::generate("alice").unwrap().public().vkey();
    env3.sql().execute("UPDATE agent_keys SET vkey = ?1", [other]).unwrap();
    let (code, v) = env3.verify();
    assert_eq!(code, 1);
    assert_eq!(v["first_broken"]["key"]["subject"], "key:alice");
    // A revocation undone behind locker's back.
    let env4 = TestEnv::init();
    key(&env4, "bob");
    env4.json(&["key", "revoke", "--agent", "bob", "--yes"]);
    env4.sql().execute("UPDATE agent_keys SET revoked_at = NULL", []).unwrap();
    assert_eq!(env4.verify().0, 1);
    // The policy switched off behind locker's back.
    let env5 = TestEnv::init();
    env5.json(&["key", "require", "--yes"]);
    env5.sql().execute("DELETE FROM repo_settings", []).unwrap();
    let (code, v) = env5.verify();
    assert_eq!(code, 1);
    assert!(v["first_broken"]["setting"].is_object(), "{v:#}");
}

#[test]
fn test_serve_signed_append_publish_and_step_over_http_and_the_remote_cli() {
    let env = TestEnv::init();
    let alice = key(&env, "alice");
    let skey = PrivateKey::parse(&std::fs::read_to_string(&alice).unwrap()).unwrap();
    let token = env.json(&["--scope", "demo", "token", "create", "--agent", "worker"])["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let pad = env.create_pad(&[]);
    let s = env.serve(&[]);
    let keys = s.curl_json("/v1/keys", &[], 200);
    assert_eq!(keys["keys"][0]["agent"], "alice");
    assert_eq!(keys["scope"], "default");
    let auth = format!("Authorization: Bearer {token}");
    assert_eq!(s.curl_json("/v1/keys", &["-H", &auth], 200)["scope"], "demo");
    let repo = keys["repository_id"].as_str().unwrap().to_owned();

    // A client signs block 0 itself and sends the signature in two headers.
    let st = Statement::pad_append(&repo, &pad.id, 0, &Digest::of(ENVELOPE.as_bytes()));
    let sig = locker::domain::sign::encode_signature(&skey.sign(&st.message()));
    let wk = format!("Authorization: Bearer {}", pad.key);
    let path = format!("/v1/pads/{}/append", pad.id);
    let before = env.fingerprint();
    // Signed for the wrong block: 403 bad_signature, nothing written.
    let wrong = Statement::pad_append(&repo, &pad.id, 1, &Digest::of(ENVELOPE.as_bytes()));
    let wrong = locker::domain::sign::encode_signature(&skey.sign(&wrong.message()));
    let (status, body) = s.curl(
        &path,
        &[
            "-X",
            "POST",
            "-H",
            &wk,
            "-H",
            "X-Locker-Signer: alice",
            "-H",
            &format!("X-Locker-Signature: {wrong}"),
            "--data-binary",
            ENVELOPE,
        ],
    );
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("bad_signature"), "{body}");
    let (status, body) = s.curl(
        &path,
        &[
            "-X",
            "POST",
            "-H",
            &wk,
            "-H",
            "X-Locker-Signer: alice",
            "-H",
            "X-Locker-Signature: !!",
            "--data-binary",
            ENVELOPE,
        ],
    );
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("invalid_signature"), "{body}");
    assert_eq!(env.fingerprint(), before);
    let (status, body) = s.curl(
        &path,
        &[
            "-X",
            "POST",
            "-H",
            &wk,
            "-H",
            "X-Locker-Signer: alice",
            "-H",
            &format!("X-Locker-Signature: {sig}"),
            "--data-binary",
            ENVELOPE,
        ],
    );
    assert_eq!(status, 201, "{body}");

    // The remote CLI signs client-side: append, publish (as the token's agent) and a step.
    let url = s.url();
    let remote = |args: &[&str], tok: Option<&str>| {
        let mut cmd = env.locker();
        cmd.env("LOCKER_URL", &url);
        if let Some(t) = tok {
            cmd.env("LOCKER_TOKEN", t);
        }
        let out = cmd.arg("--json").args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    let a = remote(
        &["append", &pad.id, "--key", &pad.key, "-d", "remote block", "--sign-key", &alice],
        None,
    );
    assert_eq!(a["seq"], 1);
    let p = remote(
        &[
            "artifact",
            "publish",
            "notes",
            "-d",
            "text",
            "--expect",
            "0",
            "--op",
            "r1",
            "--sign-key",
            &alice,
        ],
        Some(&token),
    );
    assert_eq!(p["artifact"]["version"], 1);
    let l = remote(&["lease", "acquire", "job"], Some(&token));
    let lease_id = l["lease_id"].as_str().unwrap().to_owned();
    remote(
        &["step", "job", "s1", "--lease", &lease_id, "--executed", "x", "--sign-key", &alice],
        Some(&token),
    );
    // A wrong key through the remote CLI: exit 5, the server's error.
    let forged = env.file("forged.key", PrivateKey::generate("alice").unwrap().skey().as_bytes());
    let out = env
        .locker()
        .env("LOCKER_URL", &url)
        .args(["--json", "append", &pad.id, "--key", &pad.key, "-d", "x", "--sign-key", &forged])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(5));
    let e: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(e["error"], "bad_signature");

    let report = s.curl_json("/v1/verify?require_signed=1", &[], 200);
    assert_eq!(report["ok"], true, "{report:#}");
    assert_eq!(report["signatures"]["signed"], 4);
    assert_eq!(report["signatures"]["by_signer"]["alice"], 4);
    s.stop();
    assert_eq!(env.verify().0, 0);
}
