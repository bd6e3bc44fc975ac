//! Witness policies in the ordinary reader flow (`--policy FILE`, `LOCKER_POLICY`, the reader's
//! config file): `checkpoint`, `verify --proof`, `verify --bundle`, `review` and remote
//! `pad read` accept (and pin) only a checkpoint carrying the policy's quorum of valid
//! cosignatures, the first one too; a split view is refused by a majority quorum and not by an
//! "any of N" one. See: #17.

use std::path::Path;

use serde_json::Value;

use crate::common::server::Server;
use crate::common::TestEnv;

/// The log's verifier key.
pub fn log_key(env: &TestEnv) -> String {
    env.json(&["key", "show"])["vkey"].as_str().unwrap().to_owned()
}

/// A witness named `name` following the log `vkey`, served; returns it with its verifier key.
pub fn witness(env: &TestEnv, vkey: &str, name: &str) -> (Server, String) {
    let dir = env.path().join(format!("witness-{name}"));
    let dir = dir.to_str().unwrap().to_owned();
    let w = env.json(&["witness", "init", &dir, "--name", name, "--log", vkey]);
    let wvk = w["vkey"].as_str().unwrap().to_owned();
    (env.listening(&["witness", "serve", &dir, "--listen", "127.0.0.1:0"], &[]), wvk)
}

/// Writes a policy file: the log, witnesses `A`, `B`, … with these keys, a group `g` of
/// `threshold` of them, and `quorum g`.
pub fn policy(
    env: &TestEnv,
    file: &str,
    vkey: &str,
    witnesses: &[&str],
    threshold: &str,
) -> String {
    let mut text = format!("log {vkey}\n");
    let mut names = Vec::new();
    for (i, wvk) in witnesses.iter().enumerate() {
        let name = char::from(b'A' + u8::try_from(i).unwrap()).to_string();
        text.push_str(&format!("witness {name} {wvk}\n"));
        names.push(name);
    }
    text.push_str(&format!("group g {threshold} {}\nquorum g\n", names.join(" ")));
    env.file(file, text.as_bytes())
}

/// Asks the witnesses at `urls` to cosign the repository's latest checkpoint (`-R dir`).
pub fn cosign(env: &TestEnv, dir: &Path, urls: &[&str]) -> Value {
    let mut cmd = env.locker();
    cmd.arg("-R").arg(dir).args(["--json", "checkpoint"]);
    for u in urls {
        cmd.args(["--witness", u]);
    }
    let out = cmd.output().unwrap();
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "checkpoint --witness printed no JSON ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// Runs `locker --json ARGS` with extra environment; (exit code, stdout as JSON).
fn run_env(env: &TestEnv, vars: &[(&str, &str)], args: &[&str]) -> (i32, Value) {
    let mut cmd = env.locker();
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = cmd.arg("--json").args(args).output().unwrap();
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "locker {args:?} printed no JSON ({e}): {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), v)
}

fn pins(state: &Path) -> usize {
    std::fs::read_dir(state.join("pins")).map_or(0, Iterator::count)
}

#[test]
fn test_checkpoint_with_a_policy_accepts_and_pins_only_a_quorum_cosigned_checkpoint() {
    let env = TestEnv::init();
    env.create_pad(&[]);
    let vk = log_key(&env);
    let (w1, w1vk) = witness(&env, &vk, "w1.example");
    let (w2, w2vk) = witness(&env, &vk, "w2.example");
    let p = policy(&env, "all.policy", &vk, &[&w1vk, &w2vk], "all");
    let state = env.path().join("reader");
    let st = state.to_str().unwrap();

    // Nobody cosigned yet: a first use is refused, and nothing is pinned.
    let (code, r) = run_env(&env, &[], &["checkpoint", "--policy", &p, "--state", st]);
    assert_eq!(code, 1, "{r:#}");
    assert_eq!((r["ok"].as_bool(), r["pin"]["status"].as_str()), (Some(false), Some("refused")));
    assert_eq!(r["policy"]["quorum"]["missing"], serde_json::json!(["A", "B"]), "{r:#}");
    assert!(r["failure"].as_str().unwrap().contains("neither accepted nor pinned"), "{r:#}");
    assert!(r["failure"].as_str().unwrap().contains("missing A, B"), "{r:#}");
    assert_eq!(pins(&state), 0);
    // One of the two: still refused, naming the other.
    cosign(&env, env.path(), &[&w1.url()]);
    let (code, r) = run_env(&env, &[], &["checkpoint", "--policy", &p, "--state", st]);
    assert_eq!(code, 1, "{r:#}");
    assert_eq!(r["policy"]["quorum"]["missing"], serde_json::json!(["B"]));
    assert_eq!(pins(&state), 0);
    // The human report names the missing witness too.
    let out = env.locker().args(["checkpoint", "--policy", &p, "--state", st]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("NOT satisfied") && text.contains("missing: B"), "{text}");
    // Both: accepted and pinned (the trusted key is the policy's `log` line).
    assert_eq!(cosign(&env, env.path(), &[&w1.url(), &w2.url()])["all_cosigned"], true);
    let (code, r) = run_env(&env, &[], &["checkpoint", "--policy", &p, "--state", st]);
    assert_eq!(code, 0, "{r:#}");
    assert_eq!(r["pin"]["status"], "pinned");
    assert_eq!(r["policy"]["quorum"]["satisfied"], true);
    assert_eq!(pins(&state), 1);
    let pinned = std::fs::read_dir(state.join("pins")).unwrap().next().unwrap().unwrap().path();
    let pin_before = std::fs::read_to_string(&pinned).unwrap();

    // The same policy from LOCKER_POLICY, and from the reader's config file (the default one,
    // and one named by LOCKER_CONFIG with a path relative to it).
    let (code, r) = run_env(&env, &[("LOCKER_POLICY", &p)], &["checkpoint", "--state", st]);
    assert_eq!((code, r["pin"]["status"].as_str()), (0, Some("unchanged")), "{r:#}");
    assert_eq!(r["policy"]["quorum"]["satisfied"], true);
    let config = serde_json::json!({ "policy": p }).to_string();
    env.file(".config/locker/config.json", config.as_bytes());
    let (code, r) = run_env(&env, &[], &["checkpoint", "--state", st]);
    assert_eq!((code, r["policy"]["quorum"]["quorum"].as_str()), (0, Some("g")), "{r:#}");
    std::fs::remove_file(env.path().join(".config/locker/config.json")).unwrap();
    let other = env.file("elsewhere/reader.json", br#"{"policy": "../all.policy"}"#);
    let (code, r) = run_env(&env, &[("LOCKER_CONFIG", &other)], &["checkpoint", "--state", st]);
    assert_eq!((code, r["policy"]["quorum"]["satisfied"].as_bool()), (0, Some(true)), "{r:#}");

    // The log grows: its new checkpoint is not cosigned, so it is refused and the pin stays.
    env.create_pad(&[]);
    let (code, r) = run_env(&env, &[("LOCKER_POLICY", &p)], &["checkpoint", "--state", st]);
    assert_eq!((code, r["pin"]["status"].as_str()), (1, Some("refused")), "{r:#}");
    assert_eq!(std::fs::read_to_string(&pinned).unwrap(), pin_before, "the pin did not move");
    // Cosigned, it advances the pin.
    cosign(&env, env.path(), &[&w1.url(), &w2.url()]);
    let (code, r) = run_env(&env, &[("LOCKER_POLICY", &p)], &["checkpoint", "--state", st]);
    assert_eq!((code, r["pin"]["status"].as_str()), (0, Some("advanced")), "{r:#}");

    // Bad policies and configs: invalid input (exit 6), nothing pinned or changed.
    let bad = env.file("bad.policy", b"witness A nonsense\nquorum A\n");
    let e = env.json_err(&["checkpoint", "--policy", &bad, "--state", st], 6);
    assert!(e["detail"].as_str().unwrap().contains("the witness policy"), "{e}");
    let e = env.json_err(&["checkpoint", "--policy", "/nonexistent.policy", "--state", st], 6);
    assert!(e["detail"].as_str().unwrap().contains("cannot read the witness policy"), "{e}");
    let broken = env.file("broken.json", b"[1, 2]");
    let out = env
        .locker()
        .env("LOCKER_CONFIG", &broken)
        .args(["--json", "checkpoint", "--state", st])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(6), "{}", String::from_utf8_lossy(&out.stderr));
    // A policy naming no log, without --key: a usage error.
    let nolog = env.file("nolog.policy", format!("witness A {w1vk}\nquorum A\n").as_bytes());
    env.json_err(&["checkpoint", "--policy", &nolog, "--state", st], 2);
}

/// The issue's split view: the operator keeps two histories of one log (a copy that diverges),
/// signed at the same size by the same key, and shows each reader one. Without a policy both
/// readers exit 0. Witnesses refuse to cosign a second tree of a size they cosigned, so with a
/// majority quorum (2 of 3) only one history can be accepted: the other reader is refused
/// (exit 1, naming the missing witnesses) and pins nothing. An "any of 3" quorum does not stop
/// it: each history found one witness.
#[test]
fn test_a_split_view_is_caught_by_a_majority_policy_not_by_any_of_n() {
    let env = TestEnv::init();
    env.create_pad(&[]);
    let vk = log_key(&env);
    // (`store copy` makes a SQLite repository with the same log key and mark, whatever the
    // store: a second history of the same log.)
    let fork = env.path().join("fork");
    env.json(&["store", "copy", "--to", fork.to_str().unwrap()]);
    // Both histories are served (a server makes its demo pad when it starts).
    let s_honest = env.serve(&[]);
    let s_fork =
        env.listening(&["-R", fork.to_str().unwrap(), "serve", "--listen", "127.0.0.1:0"], &[]);
    // Each history grows by one different entry: same size, different roots.
    env.create_pad(&[]);
    let out = env.locker().arg("-R").arg(&fork).args(["pad", "create"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let ws: Vec<(Server, String)> =
        ["w1.example", "w2.example", "w3.example"].iter().map(|n| witness(&env, &vk, n)).collect();
    let url = |i: usize| ws[i].0.url();
    // The honest view reaches w1 and w2 first; the fork then asks w2 (who refuses) and w3.
    let honest = cosign(&env, env.path(), &[&url(0), &url(1)]);
    assert_eq!(honest["all_cosigned"], true, "{honest:#}");
    let forked = cosign(&env, &fork, &[&url(1), &url(2)]);
    assert_eq!(forked["witnesses"][0]["status"], 422, "{forked:#}");
    assert_eq!(forked["witnesses"][1]["status"], 200, "{forked:#}");
    assert_eq!(honest["size"], forked["size"]);
    assert_ne!(honest["root"], forked["root"]);

    let read = |server: &Server, state: &str, extra: &[&str]| {
        let dir = env.path().join(state).to_str().unwrap().to_owned();
        let url = server.url();
        let mut args = vec!["--remote", url.as_str(), "checkpoint", "--state", dir.as_str()];
        args.extend_from_slice(extra);
        run_env(&TestEnv::new(), &[], &args)
    };
    // No policy: each reader pins its own history, and both exit 0.
    assert_eq!(read(&s_honest, "a0", &["--key", &vk]).0, 0);
    assert_eq!(read(&s_fork, "b0", &["--key", &vk]).0, 0);
    // Any of three: both histories carry one cosignature, so both readers still exit 0.
    let wvks: Vec<&str> = ws.iter().map(|(_, k)| k.as_str()).collect();
    let any = policy(&env, "any.policy", &vk, &wvks, "any");
    let (code, a1) = read(&s_honest, "a1", &["--policy", &any]);
    assert_eq!(code, 0, "{a1:#}");
    let (code, b1) = read(&s_fork, "b1", &["--policy", &any]);
    assert_eq!(code, 0, "{b1:#}");
    // A majority: the honest reader is accepted; the forked one is refused and pins nothing.
    let majority = policy(&env, "majority.policy", &vk, &wvks, "2");
    let (code, a) = read(&s_honest, "a2", &["--policy", &majority]);
    assert_eq!((code, a["pin"]["status"].as_str()), (0, Some("pinned")), "{a:#}");
    let (code, b) = read(&s_fork, "b2", &["--policy", &majority]);
    assert_eq!(code, 1, "{b:#}");
    assert_eq!(b["pin"]["status"], "refused");
    assert_eq!(b["policy"]["quorum"]["missing"], serde_json::json!(["A", "B"]), "{b:#}");
    assert_eq!(b["policy"]["quorum"]["cosigned_by"][0][0], "C");
    assert_eq!(pins(&env.path().join("b2")), 0);
}

/// `verify --proof` and `verify --bundle` with a policy: a proof or bundle whose checkpoint lacks
/// the quorum fails (exit 1) and pins nothing, even offline with no repository; once cosigned,
/// both pass and pin.
#[test]
fn test_verify_proof_and_bundle_with_a_policy() {
    let env = TestEnv::init();
    let pad = env.pad_with_envelope(&[]);
    env.append(&pad, "the work");
    let vk = log_key(&env);
    let (w1, w1vk) = witness(&env, &vk, "w1.example");
    let p = policy(&env, "one.policy", &vk, &[&w1vk], "all");
    let make = |tag: &str| {
        let proof = env.path().join(format!("{tag}.proof")).to_str().unwrap().to_owned();
        env.json(&["proof", "inclusion", "--pad", &pad.id, "--block", "1", "-o", &proof]);
        let bundle = env.path().join(format!("{tag}.bundle")).to_str().unwrap().to_owned();
        env.json(&["pad", "export", &pad.id, "-o", &bundle]);
        (proof, bundle)
    };
    // A reader elsewhere: no repository, only the policy.
    let reader = TestEnv::new();
    let state = reader.path().join("state");
    let st = state.to_str().unwrap();
    let (proof, bundle) = make("bare");
    let (code, r) =
        run_env(&reader, &[], &["verify", "--proof", &proof, "--policy", &p, "--state", st]);
    assert_eq!(code, 1, "{r:#}");
    assert_eq!((r["ok"].as_bool(), r["pin"]["status"].as_str()), (Some(false), Some("refused")));
    assert!(r["failure"].as_str().unwrap().contains("missing A"), "{r:#}");
    let (code, r) =
        run_env(&reader, &[], &["verify", "--bundle", &bundle, "--policy", &p, "--state", st]);
    assert_eq!(code, 1, "{r:#}");
    assert_eq!(r["first_failure"]["name"], "policy", "{r:#}");
    assert!(r["first_failure"]["detail"].as_str().unwrap().contains("missing A"), "{r:#}");
    assert_eq!(pins(&state), 0, "nothing was pinned");
    // Without the policy the same files verify: the policy is what refused them.
    let (code, _) =
        run_env(&reader, &[], &["verify", "--bundle", &bundle, "--key", &vk, "--no-pin"]);
    assert_eq!(code, 0);

    cosign(&env, env.path(), &[&w1.url()]);
    let (proof, bundle) = make("cosigned");
    let (code, r) =
        run_env(&reader, &[], &["verify", "--proof", &proof, "--policy", &p, "--state", st]);
    assert_eq!(code, 0, "{r:#}");
    assert_eq!(r["pin"]["status"], "pinned");
    assert_eq!(r["policy"]["quorum"]["cosigned_by"][0][0], "A");
    let (code, r) =
        run_env(&reader, &[("LOCKER_POLICY", &p)], &["verify", "--bundle", &bundle, "--state", st]);
    assert_eq!(code, 0, "{r:#}");
    assert_eq!(r["verdict"], "trusted_log_checkpoint");
    let names: Vec<&str> =
        r["checks"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert!(names.ends_with(&["log", "policy", "pin"]), "{names:?}");
    assert_eq!(r["pin"]["status"], "unchanged");
    // A local pad has no checkpoint to hold to a policy: a usage error.
    env.json_err(&["verify", &pad.id, "--policy", &p], 2);
}

/// Remote `pad read` with a policy: the blocks read must be those the server's log proves, under
/// a checkpoint carrying the quorum; otherwise no payload is printed (exit 1). With
/// `serve --witness`, reads are served checkpoints the witnesses cosigned.
#[test]
fn test_remote_pad_read_with_a_policy() {
    let env = TestEnv::init();
    let pad = env.pad_with_envelope(&[]);
    env.append(&pad, "the secret work");
    let vk = log_key(&env);
    let (w1, w1vk) = witness(&env, &vk, "w1.example");
    let p = policy(&env, "one.policy", &vk, &[&w1vk], "all");
    let reader = TestEnv::new();
    let state = reader.path().join("state");
    let st = state.to_str().unwrap();
    let read = |url: &str, extra: &[&str]| {
        let mut args = vec!["--remote", url, "pad", "read", &pad.id, "--ticket", &pad.ticket];
        args.extend_from_slice(extra);
        reader.locker().args(args).output().unwrap()
    };

    // A server with no witness: its checkpoints carry no cosignature.
    let bare = env.serve(&[]);
    let out = read(&bare.url(), &["--json", "--policy", &p, "--state", st]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains("the secret work") && !text.contains("dGhlIHNlY3JldCB3b3Jr"), "{text}");
    let r: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(r["first_failure"]["name"], "policy", "{r:#}");
    assert!(r["first_failure"]["detail"].as_str().unwrap().contains("missing A"), "{r:#}");
    let out = read(&bare.url(), &["--raw", "--policy", &p, "--state", st]);
    assert_eq!((out.status.code(), out.stdout.is_empty()), (Some(1), true));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing A"));
    assert_eq!(pins(&state), 0);
    // Without a policy the read works as it always did.
    let out = read(&bare.url(), &["--raw"]);
    assert_eq!(out.status.code(), Some(0));
    bare.stop();

    // Served with the witness: accepted, pinned, and the payloads are printed.
    let s = env.serve(&["--witness", &w1.url()]);
    let out = read(&s.url(), &["--raw", "--policy", &p, "--state", st]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("the secret work"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cosigned by A"));
    assert_eq!(pins(&state), 1);
    // `verify --remote PAD` with a ticket holds the pad to the same rule.
    let out = reader
        .locker()
        .args(["--json", "--remote", &s.url(), "verify", &pad.id, "--ticket", &pad.ticket])
        .args(["--policy", &p, "--state", st])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["policy"]["quorum"]["satisfied"], true, "{v:#}");
    // A policy on a local read is a usage error: there is nothing served to check.
    let e = env.json_err(&["pad", "read", &pad.id, "--ticket", &pad.ticket, "--policy", &p], 2);
    assert!(e["detail"].as_str().unwrap().contains("needs --remote"), "{e}");
}
