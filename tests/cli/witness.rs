//! `locker witness`: the C2SP tlog-witness add-checkpoint protocol, cosignatures collected by
//! `locker checkpoint --witness` and `locker serve --witness`, a malicious operator's rewritten
//! log refused, state kept across a SIGKILL, and `verify --policy` quorums.

use serde_json::Value;

use crate::common::server::Server;
use crate::common::{TestEnv, ENVELOPE};

/// A witness following `env`'s log, served; returns it with its verifier key and directory.
fn witness(env: &TestEnv, name: &str) -> (Server, String, String) {
    let vk = env.json(&["key", "show"])["vkey"].as_str().unwrap().to_owned();
    let dir = env.path().join(format!("witness-{name}"));
    let dir = dir.to_str().unwrap().to_owned();
    let w = env.json(&["witness", "init", &dir, "--name", name, "--log", &vk]);
    let wvk = w["vkey"].as_str().unwrap().to_owned();
    assert!(wvk.starts_with(&format!("{name}+")), "{wvk}");
    (serve_witness(env, &dir), wvk, dir)
}

fn serve_witness(env: &TestEnv, dir: &str) -> Server {
    env.listening(&["witness", "serve", dir, "--listen", "127.0.0.1:0"], &[])
}

fn cosign(env: &TestEnv, urls: &[&str]) -> (i32, Value) {
    let mut args = vec!["checkpoint"];
    for u in urls {
        args.extend(["--witness", u]);
    }
    let out = env.run(&args);
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("checkpoint printed no JSON ({e}): {}", String::from_utf8_lossy(&out.stderr))
    });
    (out.status.code().unwrap_or(-1), v)
}

fn post(w: &Server, body: &str) -> (u16, String) {
    w.curl("/add-checkpoint", &["-X", "POST", "--data-binary", body])
}

fn stored_size(dir: &str, origin: &str) -> Option<i64> {
    let conn = rusqlite::Connection::open(format!("{dir}/state.db")).unwrap();
    conn.query_row("SELECT size FROM witnessed WHERE origin = ?1", [origin], |r| r.get(0)).ok()
}

#[test]
fn test_witness_cosigns_honest_growth_and_keeps_its_state_across_a_kill() {
    let env = TestEnv::init();
    let (w, wvk, dir) = witness(&env, "w1.example");
    let url = w.url();
    let (code, first) = cosign(&env, &[&url]);
    assert_eq!(code, 0, "{first:#}");
    assert_eq!(first["all_cosigned"], true);
    assert_eq!(first["witnesses"][0]["status"], 200);
    let origin = first["origin"].as_str().unwrap().to_owned();
    let size1 = first["size"].as_i64().unwrap();
    assert!(first["note"].as_str().unwrap().contains("\u{2014} w1.example "));
    assert_eq!(stored_size(&dir, &origin), Some(size1));

    // The log grows; the witness gets a consistency proof (after a 409 naming its size).
    env.pad_with_envelope(&[]);
    let (code, second) = cosign(&env, &[&url]);
    assert_eq!(code, 0, "{second:#}");
    let size2 = second["size"].as_i64().unwrap();
    assert!(size2 > size1);
    assert_eq!(stored_size(&dir, &origin), Some(size2));
    // The cosignature is stored with the checkpoint: `locker checkpoint` shows it.
    let cp = env.json(&["checkpoint"]);
    assert!(cp["note"].as_str().unwrap().contains("\u{2014} w1.example "), "{cp}");

    // SIGKILL, restart on the same directory: it still holds size2 (a 409 says so).
    w.signal("KILL");
    drop(w);
    let w = serve_witness(&env, &dir);
    let note = cp["note"].as_str().unwrap();
    let (status, body) = post(&w, &format!("old 0\n\n{note}"));
    assert_eq!((status, body.trim()), (409, size2.to_string().as_str()));
    let (_, ctype) = (
        0,
        std::process::Command::new("curl")
            .args([
                "-sS",
                "-o",
                "/dev/null",
                "-w",
                "%{content_type}",
                "-X",
                "POST",
                "--data-binary",
            ])
            .arg(format!("old 0\n\n{note}"))
            .arg(format!("{}/add-checkpoint", w.url()))
            .output()
            .unwrap()
            .stdout,
    );
    assert_eq!(String::from_utf8(ctype).unwrap(), "text/x.tlog.size");
    // The same checkpoint again from its own size: cosigned again (same size, same root).
    let (status, body) = post(&w, &format!("old {size2}\n\n{note}"));
    assert_eq!(status, 200, "{body}");
    assert!(body.starts_with("\u{2014} w1.example "), "{body}");
    // More growth after the restart.
    env.pad_with_envelope(&[]);
    let (code, third) = cosign(&env, &[&w.url()]);
    assert_eq!(code, 0, "{third:#}");

    // A policy with this witness is satisfied; one that also needs another is not.
    let log_vk = env.json(&["key", "show"])["vkey"].as_str().unwrap().to_owned();
    let other =
        locker::domain::witness::Cosigner::generate("w2.example").unwrap().public().to_vkey();
    let one =
        env.file("one.policy", format!("log {log_vk}\nwitness A {wvk}\nquorum A\n").as_bytes());
    let r = env.json(&["verify", "--policy", &one]);
    assert_eq!(r["ok"], true, "{r:#}");
    assert_eq!(r["log_signature"], "verified");
    assert_eq!(r["quorum"]["cosigned_by"][0][0], "A");
    let both = env.file(
        "both.policy",
        format!("log {log_vk}\nwitness A {wvk}\nwitness B {other}\ngroup AB all A B\nquorum AB\n")
            .as_bytes(),
    );
    let out = env.run(&["verify", "--policy", &both]);
    assert_eq!(out.status.code(), Some(1));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["quorum"]["missing"][0], "B");
    assert!(r["failure"].as_str().unwrap().contains("not satisfied"));
    let any = env.file(
        "any.policy",
        format!("log {log_vk}\nwitness A {wvk}\nwitness B {other}\ngroup AB any A B\nquorum AB\n")
            .as_bytes(),
    );
    assert_eq!(env.run(&["verify", "--policy", &any]).status.code(), Some(0));
    // Offline, from a checkpoint file, with no repository.
    let cp = env.json(&["checkpoint"]);
    let file = env.file("cp.note", cp["note"].as_str().unwrap().as_bytes());
    let elsewhere = TestEnv::new();
    let out = elsewhere
        .locker()
        .args(["--json", "verify", "--policy", &one, "--checkpoint", &file])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    // A forged cosignature by the known witness fails the policy.
    let text = cp["note"].as_str().unwrap();
    let line = text.lines().find(|l| l.contains("w1.example ")).unwrap();
    let (head, b64) = line.rsplit_once(' ').unwrap();
    let mut raw = base64_decode(b64);
    raw[20] ^= 1;
    let forged = text.replace(line, &format!("{head} {}", base64_encode(&raw)));
    let file = env.file("forged.note", forged.as_bytes());
    let out = env.run(&["verify", "--policy", &one, "--checkpoint", &file]);
    assert_eq!(out.status.code(), Some(1));
    // A malformed policy is invalid input.
    let bad = env.file("bad.policy", b"witness A nonsense\nquorum A\n");
    assert_eq!(env.json_err(&["verify", "--policy", &bad], 6)["error"], "bad_request");
}

fn base64_decode(s: &str) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.decode(s).unwrap()
}

fn base64_encode(b: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(b)
}

#[test]
fn test_witness_refuses_a_rewritten_log_and_bad_requests() {
    let env = TestEnv::init();
    let pad = env.create_pad(&[]);
    env.json(&["append", &pad.id, "--key", &pad.key, "-d", ENVELOPE]);
    env.json(&["append", &pad.id, "--key", &pad.key, "-d", "the real block"]);
    let (w, _, dir) = witness(&env, "w1.example");
    let url = w.url();
    let (code, honest) = cosign(&env, &[&url]);
    assert_eq!(code, 0, "{honest:#}");
    let origin = honest["origin"].as_str().unwrap().to_owned();
    let size = honest["size"].as_i64().unwrap();

    // A malicious operator rewrites an old entry, re-hashes the chain, drops the tree, the
    // checkpoints and the log key's high-water mark, lets locker re-sign, and grows the log.
    let seq = {
        let out = env.locker().args(["--json", "log", "--kind", "pad.append"]).output().unwrap();
        let last: Value =
            serde_json::from_str(String::from_utf8(out.stdout).unwrap().lines().next().unwrap())
                .unwrap();
        last["seq"].as_i64().unwrap()
    };
    crate::sign::rewrite_entry(&env, seq, |b| b["bytes"] = 999.into());
    let conn = env.sql();
    conn.drop_merkle();
    conn.execute("DELETE FROM checkpoints", []).unwrap();
    drop(conn);
    crate::tlog::forget_mark(&env);
    env.create_pad(&[]);
    let (code, forged) = cosign(&env, &[&url]);
    assert_eq!(code, 1, "the witness refuses: {forged:#}");
    let answer = &forged["witnesses"][0];
    assert_eq!(answer["status"], 422, "{answer}");
    assert!(answer["error"].as_str().unwrap().contains("not consistent"), "{answer}");
    assert!(answer["cosignatures"].as_array().unwrap().is_empty());
    // The witness still holds the honest size, and kept the forgery as evidence.
    assert_eq!(stored_size(&dir, &origin), Some(size));
    let conn = rusqlite::Connection::open(format!("{dir}/state.db")).unwrap();
    let n: i64 = conn.query_row("SELECT COUNT(*) FROM evidence", [], |r| r.get(0)).unwrap();
    assert_eq!(n, 1);

    // Bad requests: malformed (400), old beyond the checkpoint (400), an unknown log (404), a
    // signature by the wrong key (403), wrong method (405).
    let note = forged["note"].as_str().unwrap();
    assert_eq!(post(&w, "garbage").0, 400);
    assert_eq!(post(&w, &format!("old 999999\n\n{note}")).0, 400);
    let stranger = TestEnv::init();
    let their = stranger.json(&["checkpoint"]);
    assert_eq!(post(&w, &format!("old 0\n\n{}", their["note"].as_str().unwrap())).0, 404);
    let impostor = locker::domain::note::Signer::generate(&origin).unwrap();
    let text = forged["note"].as_str().unwrap().split("\n\n").next().unwrap().to_owned() + "\n";
    assert_eq!(post(&w, &format!("old 0\n\n{}", impostor.sign(&text))).0, 403);
    assert_eq!(w.curl("/add-checkpoint", &[]).0, 405);
    assert_eq!(stored_size(&dir, &origin), Some(size), "no refused request moved the witness");
}

#[test]
fn test_serve_collects_cosignatures_from_its_witnesses() {
    let env = TestEnv::init();
    let (w, wvk, _) = witness(&env, "w1.example");
    let s = env.serve(&["--witness", &w.url()]);
    let cp = s.curl_json("/v1/checkpoint", &[], 200);
    assert!(cp["note"].as_str().unwrap().contains("\u{2014} w1.example "), "{cp}");
    // The server's metrics count the cosignature, none refused (#23).
    let (code, metrics) = s.curl("/metrics", &[]);
    assert_eq!(code, 200);
    let url = w.url();
    let base = url.trim_end_matches('/');
    let count = |family: &str| -> f64 {
        metrics
            .lines()
            .find(|l| l.starts_with(family) && l.contains(&format!("witness=\"{base}")))
            .and_then(|l| l.rsplit(' ').next()?.parse().ok())
            .unwrap_or_else(|| panic!("no {family} for {base} in {metrics}"))
    };
    assert!(count("locker_witness_cosignatures_total{") >= 1.0);
    assert_eq!(count("locker_witness_cosignature_failures_total{"), 0.0);
    s.stop();
    let log_vk = env.json(&["key", "show"])["vkey"].as_str().unwrap().to_owned();
    let policy = env.file("p", format!("log {log_vk}\nwitness A {wvk}\nquorum A\n").as_bytes());
    assert_eq!(env.json(&["verify", "--policy", &policy])["ok"], true);
}

fn sha256_hex(s: &str) -> String {
    use sha2::Digest as _;
    sha2::Sha256::digest(s.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// See: #17. One witness follows two logs, each cosigned on its own; the C2SP checkpoint
/// monitoring endpoint (`GET /<sha256(origin)>/checkpoint`) serves the newest checkpoint it
/// cosigned per log, with the log's signature and its cosignature (a policy accepts it), so a
/// reader can compare views; `locker witness show` prints the same state, human and JSON.
#[test]
fn test_one_witness_follows_several_logs_with_monitoring_and_show() {
    let a = TestEnv::init();
    let b = TestEnv::init();
    let va = a.json(&["key", "show"])["vkey"].as_str().unwrap().to_owned();
    let vb = b.json(&["key", "show"])["vkey"].as_str().unwrap().to_owned();
    let dir = a.path().join("w");
    let dir = dir.to_str().unwrap();
    let init = a.json(&["witness", "init", dir, "--name", "w.example", "--log", &va, "--log", &vb]);
    let wvk = init["vkey"].as_str().unwrap().to_owned();
    assert_eq!(init["logs"].as_array().unwrap().len(), 2);
    let w = serve_witness(&a, dir);
    let origin = |env: &TestEnv| env.json(&["checkpoint"])["origin"].as_str().unwrap().to_owned();
    let (oa, ob) = (origin(&a), origin(&b));
    let monitored = |o: &str| w.curl(&format!("/{}/checkpoint", sha256_hex(o)), &[]);

    let shown = a.json(&["witness", "show", dir]);
    assert_eq!(
        (shown["name"].as_str(), shown["vkey"].as_str()),
        (Some("w.example"), Some(wvk.as_str()))
    );
    assert_eq!(shown["logs"][0]["size"], Value::Null, "{shown:#}");
    assert_eq!(monitored(&oa).0, 404, "nothing cosigned yet");

    let (code, ca) = cosign(&a, &[&w.url()]);
    assert_eq!(code, 0, "{ca:#}");
    let (code, cb) = cosign(&b, &[&w.url()]);
    assert_eq!(code, 0, "{cb:#}");
    b.pad_with_envelope(&[]);
    let (code, cb2) = cosign(&b, &[&w.url()]);
    assert_eq!(code, 0, "{cb2:#}");
    assert!(cb2["size"].as_u64() > cb["size"].as_u64());

    // Each log's newest cosigned checkpoint, as the witness saw it: the log's stored note
    // carries the very cosignature line the monitoring endpoint serves.
    for (env, o, vk, cp) in [(&a, &oa, &va, &ca), (&b, &ob, &vb, &cb2)] {
        let (status, note) = monitored(o);
        assert_eq!(status, 200, "{note}");
        assert!(note.starts_with(&format!("{o}\n{}\n", cp["size"])), "{note}");
        let line = note.lines().last().unwrap();
        assert!(line.starts_with("\u{2014} w.example "), "{note}");
        assert!(cp["note"].as_str().unwrap().contains(line), "{cp:#}\n{note}");
        let policy =
            env.file("w.policy", format!("log {vk}\nwitness W {wvk}\nquorum W\n").as_bytes());
        let file = env.file("monitored.note", note.as_bytes());
        let r = env.json(&["verify", "--policy", &policy, "--checkpoint", &file]);
        assert_eq!(r["ok"], true, "{r:#}");
    }
    assert_eq!(w.curl(&format!("/{}/checkpoint", sha256_hex("unknown.example/log")), &[]).0, 404);

    let shown = a.json(&["witness", "show", dir]);
    let logs = shown["logs"].as_array().unwrap();
    assert_eq!(logs.len(), 2);
    let by = |o: &str| logs.iter().find(|l| l["origin"] == o).unwrap().clone();
    assert_eq!(
        (by(&oa)["size"].clone(), by(&ob)["size"].clone()),
        (ca["size"].clone(), cb2["size"].clone())
    );
    assert_eq!(by(&ob)["root"], cb2["root"]);
    assert_eq!(by(&oa)["evidence"], 0);
    assert_eq!(by(&oa)["monitoring_path"], format!("/{}/checkpoint", sha256_hex(&oa)));
    let out = a.locker().args(["witness", "show", dir]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains(&format!("log {ob}")), "{text}");
    assert!(
        text.contains(&format!(
            "cosigned:   size {}, root {}",
            cb2["size"],
            cb2["root"].as_str().unwrap()
        )),
        "{text}"
    );

    // Not a witness directory, and one log followed twice: refused.
    let e = a.json_err(&["witness", "show", a.path().to_str().unwrap()], 3);
    assert!(e["detail"].as_str().unwrap().contains("is not a witness"), "{e}");
    let twice = a.path().join("w2");
    let e = a.json_err(
        &[
            "witness",
            "init",
            twice.to_str().unwrap(),
            "--name",
            "x.example",
            "--log",
            &va,
            "--log",
            &va,
        ],
        6,
    );
    assert!(e["detail"].as_str().unwrap().contains("two followed logs"), "{e}");
    assert!(!twice.exists());
}
