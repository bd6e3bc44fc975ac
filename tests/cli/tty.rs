//! What a person at a terminal sees: the confirmations of `gc`, `token revoke`, `key revoke`,
//! `key require` and `restore`, and the progress bars of the long commands, each run on a real
//! pseudo-terminal by `tests/cli/pty_run.py` (python3's `pty`: the crate forbids unsafe code,
//! so the tests do not open terminals themselves). Without a terminal, the same commands refuse
//! to go on without `--yes` and never draw a bar.

use std::path::Path;

use predicates::prelude::*;
use serde_json::Value;

use crate::common::{bin, TestEnv, ENVELOPE};

/// What `pty_run.py` reports of one run.
struct Run {
    /// Everything written to the terminal (stdout and stderr, unless `--stderr-pipe`).
    transcript: String,
    /// What went to stderr when it was a pipe.
    stderr: String,
    status: i64,
}

/// Runs `locker ARGS` on a pseudo-terminal in `env`'s sealed environment (`TERM=xterm`, as a
/// terminal emulator sets it), typing each answer once its prompt has appeared. `opts` are
/// more options of `pty_run.py` (`--stderr-pipe`, `--stdin-null`).
fn pty(env: &TestEnv, args: &[&str], answers: &[(&str, &str)], opts: &[&str]) -> Run {
    pty_with(env, args, answers, opts, &[])
}

fn pty_with(
    env: &TestEnv,
    args: &[&str],
    answers: &[(&str, &str)],
    opts: &[&str],
    vars: &[(&str, &str)],
) -> Run {
    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/pty_run.py");
    let mut cmd = std::process::Command::new("python3");
    cmd.env_clear()
        .env("HOME", env.path())
        .env("NO_COLOR", "1")
        .env("TERM", "xterm")
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("LOCKER_NOW", env.now.to_string())
        .current_dir(env.path())
        .arg(&driver);
    for (k, v) in vars {
        cmd.env(k, v);
    }
    for (prompt, text) in answers {
        cmd.args(["--answer", prompt, text]);
    }
    cmd.args(opts).arg("--").arg(bin()).args(args);
    let out = cmd.output().expect("python3 runs pty_run.py");
    assert!(out.status.success(), "pty_run.py failed: {}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).expect("pty_run.py prints JSON");
    assert_eq!(report["timed_out"], false, "locker {args:?} hung: {report}");
    assert_eq!(report["unanswered"], Value::Array(vec![]), "locker {args:?} never asked: {report}");
    Run {
        transcript: report["transcript"].as_str().unwrap_or_default().to_owned(),
        stderr: report["stderr"].as_str().unwrap_or_default().to_owned(),
        status: report["status"].as_i64().expect("an exit status"),
    }
}

const QUESTION: &str = "Go on? [y/N]";

fn yes() -> [(&'static str, &'static str); 1] {
    [(QUESTION, "y\n")]
}

/// Enter alone: the default, no.
fn enter() -> [(&'static str, &'static str); 1] {
    [(QUESTION, "\n")]
}

fn shows(haystack: &str, needle: &str) -> bool {
    predicate::str::contains(needle).eval(haystack)
}

fn token(env: &TestEnv, agent: &str) -> String {
    env.json(&["--scope", "demo", "token", "create", "--agent", agent])["token"]
        .as_str()
        .expect("a token")
        .to_owned()
}

/// Whether `token` still acts (its agent lists its scope's agents).
fn token_works(env: &TestEnv, token: &str) -> bool {
    env.locker()
        .env("LOCKER_TOKEN", token)
        .args(["--json", "token", "list"])
        .output()
        .expect("locker runs")
        .status
        .success()
}

#[test]
fn test_tty_token_revoke_asks_and_only_a_yes_revokes() {
    let env = TestEnv::init();
    let t = token(&env, "worker-a");
    let before = env.snapshot();

    // Enter: the default is no. Nothing changed, exit 1, and the token still works.
    let r = pty(&env, &["token", "revoke", "--agent", "worker-a"], &enter(), &[]);
    assert_eq!(r.status, 1, "{}", r.transcript);
    assert!(shows(&r.transcript, "Agent worker-a loses its token for good"), "{}", r.transcript);
    assert!(shows(&r.transcript, "Nothing was changed."), "{}", r.transcript);
    assert_eq!(env.snapshot(), before);
    assert!(token_works(&env, &t));

    // An explicit no, under --json: the decline is one JSON object, on the terminal's stderr.
    let r =
        pty(&env, &["--json", "token", "revoke", "--agent", "worker-a"], &[(QUESTION, "n\n")], &[]);
    assert_eq!(r.status, 1, "{}", r.transcript);
    assert!(shows(&r.transcript, r#"{"error":"declined""#), "{}", r.transcript);
    assert_eq!(env.snapshot(), before);

    // Something else is asked again; then yes revokes.
    let r = pty(
        &env,
        &["token", "revoke", "--agent", "worker-a"],
        &[(QUESTION, "maybe\n"), ("answer y (yes) or n (no)", "yes\n")],
        &[],
    );
    assert_eq!(r.status, 0, "{}", r.transcript);
    assert!(shows(&r.transcript, "revoked agent worker-a"), "{}", r.transcript);
    assert!(!token_works(&env, &t), "the revoked token still acts");
}

#[test]
fn test_tty_without_a_terminal_confirmations_need_yes() {
    let mut env = TestEnv::init();
    let t = token(&env, "worker-a");
    let key = env.path().join("w.key").to_str().unwrap().to_owned();
    env.json(&["key", "generate", "--agent", "worker-a", "--out", &key]);
    let pad = env.create_pad(&[]);
    env.append(&pad, ENVELOPE);
    env.json(&["seal", &pad.id, "--key", &pad.key]);
    env.now += 3600;
    let refused: &[&[&str]] = &[
        &["gc", "--pads-older-than", "0s"],
        &["token", "revoke", "--agent", "worker-a"],
        &["key", "revoke", "--agent", "worker-a"],
        &["key", "require"],
        &["key", "require", "--off"],
    ];
    for args in refused {
        // Under --json: exit 2, one JSON object with the hint, and nothing changed.
        let e = env.fails(
            args,
            2,
            "confirmation_required",
            &format!(
                "`locker {}` asks for confirmation, and there is no terminal to ask on: nothing \
                 was changed",
                args.iter()
                    .take_while(|a| !a.starts_with('-'))
                    .copied()
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
        );
        assert_eq!(e["hints"][0], "Pass --yes to confirm without a terminal.", "{args:?}: {e}");
        // In human mode: the error and the hint, on stderr.
        env.locker()
            .args(*args)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains("there is no terminal to ask on"))
            .stderr(predicate::str::contains("Hint: Pass --yes to confirm without a terminal."));
        // A terminal on one side only is no one to ask either.
        let before = env.snapshot();
        for opt in ["--stderr-pipe", "--stdin-null"] {
            let r = pty(&env, args, &[], &[opt]);
            assert_eq!(r.status, 2, "{args:?} {opt}: {}{}", r.transcript, r.stderr);
            assert!(!shows(&r.transcript, QUESTION), "{args:?} {opt}: {}", r.transcript);
            assert!(
                shows(&format!("{}{}", r.transcript, r.stderr), "Pass --yes"),
                "{args:?} {opt}: {}{}",
                r.transcript,
                r.stderr
            );
        }
        assert_eq!(env.snapshot(), before, "{args:?} changed the repository");
    }
    assert!(token_works(&env, &t));

    // The refusals that come first still do: an agent is forbidden (exit 5) before anything
    // is asked, and gc without a policy is a usage error about the policy.
    for args in refused {
        let out = env.locker().env("LOCKER_TOKEN", &t).arg("--json").args(*args).output().unwrap();
        assert_eq!(out.status.code(), Some(5), "{args:?}");
    }
    env.fails(&["gc"], 2, "usage", "gc needs a policy: nothing would be removed");

    // With --yes (or -y) they go on.
    assert_eq!(env.json(&["gc", "-y", "--pads-older-than", "0s"])["pads"][0]["pad_id"], pad.id);
    assert_eq!(env.json(&["key", "require", "--yes"])["changed"], true);
    assert_eq!(env.json(&["key", "require", "--off", "-y"])["changed"], true);
    assert_eq!(env.json(&["key", "revoke", "--agent", "worker-a", "-y"])["already_revoked"], false);
    assert_eq!(
        env.json(&["token", "revoke", "--agent", "worker-a", "--yes"])["already_revoked"],
        false
    );
    assert!(!token_works(&env, &t));
}

#[test]
fn test_tty_key_revoke_and_key_require_ask() {
    let env = TestEnv::init();
    token(&env, "worker-a");
    let key = env.path().join("w.key").to_str().unwrap().to_owned();
    env.json(&["key", "generate", "--agent", "worker-a", "--out", &key]);
    let before = env.snapshot();

    let r = pty(&env, &["key", "require"], &enter(), &[]);
    assert_eq!(r.status, 1, "{}", r.transcript);
    assert!(shows(&r.transcript, "Signatures become required"), "{}", r.transcript);
    let r = pty(&env, &["key", "revoke", "--agent", "worker-a"], &enter(), &[]);
    assert_eq!(r.status, 1, "{}", r.transcript);
    assert!(shows(&r.transcript, "Agent worker-a's signing keys are revoked"), "{}", r.transcript);
    assert_eq!(env.snapshot(), before);
    let keys = env.json(&["key", "list"]);
    assert_eq!(keys["require_signed_appends"], false, "{keys}");
    assert_eq!(keys["keys"][0]["state"], "active", "{keys}");

    let r = pty(&env, &["key", "require"], &yes(), &[]);
    assert_eq!(r.status, 0, "{}", r.transcript);
    assert!(shows(&r.transcript, "signed appends are now required"), "{}", r.transcript);
    let r = pty(&env, &["key", "require", "--off"], &yes(), &[]);
    assert_eq!(r.status, 0, "{}", r.transcript);
    assert!(shows(&r.transcript, "Signatures stop being required"), "{}", r.transcript);
    let r = pty(&env, &["key", "revoke", "--agent", "worker-a"], &yes(), &[]);
    assert_eq!(r.status, 0, "{}", r.transcript);
    let keys = env.json(&["key", "list"]);
    assert_eq!(keys["keys"][0]["state"], "revoked", "{keys}");
}

#[test]
fn test_tty_gc_says_what_goes_and_asks() {
    let mut env = TestEnv::init();
    let pad = env.create_pad(&[]);
    env.append(&pad, ENVELOPE);
    env.json(&["seal", &pad.id, "--key", &pad.key]);
    env.now += 3600;
    let before = env.snapshot();

    // --dry-run never asks.
    let r = pty(&env, &["gc", "--dry-run", "--pads-older-than", "0s"], &[], &[]);
    assert_eq!(r.status, 0, "{}", r.transcript);
    assert!(!shows(&r.transcript, QUESTION), "{}", r.transcript);

    let r = pty(&env, &["gc", "--pads-older-than", "0s"], &enter(), &[]);
    assert_eq!(r.status, 1, "{}", r.transcript);
    assert!(
        shows(&r.transcript, "This gc removes 1 pads ("),
        "the question says what goes: {}",
        r.transcript
    );
    assert_eq!(env.snapshot(), before);
    let read = env.json(&["pad", "read", &pad.id, "--ticket", &pad.ticket]);
    assert_eq!(read["blocks"][0]["payload_utf8"], ENVELOPE, "the pad still reads");

    let r = pty(&env, &["gc", "--pads-older-than", "0s"], &yes(), &[]);
    assert_eq!(r.status, 0, "{}", r.transcript);
    assert!(shows(&r.transcript, &format!("pruned pad {}", pad.id)), "{}", r.transcript);
    assert!(shows(&r.transcript, "pruning pads"), "a progress bar: {}", r.transcript);
    let e = env.json_err(&["pad", "read", &pad.id, "--ticket", &pad.ticket], 7);
    assert_eq!(e["error"], "pruned", "{e}");
}

#[test]
fn test_tty_restore_over_a_repository_asks() {
    if crate::common::sqlite_only("backups are SQLite files") {
        return;
    }
    let env = TestEnv::init();
    let pad = env.create_pad(&[]);
    env.append(&pad, ENVELOPE);
    let bk = env.path().join("bk");
    let bk = bk.to_str().unwrap();
    env.json(&["backup", bk]);
    let here = env.path().to_str().unwrap();
    let before = env.snapshot();
    let replaced = || {
        std::fs::read_dir(env.path())
            .unwrap()
            .filter(|e| {
                e.as_ref().unwrap().file_name().to_string_lossy().starts_with(".locker.replaced-")
            })
            .count()
    };

    // Into a new directory: nothing to replace, nothing asked; a bar while it works.
    let fresh = env.path().join("fresh");
    let r = pty(&env, &["restore", bk, "--to", fresh.to_str().unwrap()], &[], &[]);
    assert_eq!(r.status, 0, "{}", r.transcript);
    assert!(!shows(&r.transcript, QUESTION), "{}", r.transcript);
    assert!(shows(&r.transcript, "copying the backup"), "{}", r.transcript);
    assert!(shows(&r.transcript, "verifying"), "{}", r.transcript);

    // Over the repository: asked; no keeps it.
    let r = pty(&env, &["restore", bk, "--to", here], &enter(), &[]);
    assert_eq!(r.status, 1, "{}", r.transcript);
    assert!(shows(&r.transcript, "will be replaced by the backup in"), "{}", r.transcript);
    assert_eq!(env.snapshot(), before);
    assert_eq!(replaced(), 0);

    // Without a terminal it is refused as before (exit 4), and --yes replaces it.
    let e = env.json_err(&["restore", bk, "--to", here], 4);
    assert_eq!(e["error"], "repository_exists", "{e}");

    // Yes replaces it, the old one kept beside.
    let r = pty(&env, &["restore", bk, "--to", here], &yes(), &[]);
    assert_eq!(r.status, 0, "{}", r.transcript);
    assert!(shows(&r.transcript, "replaced:"), "{}", r.transcript);
    assert_eq!(replaced(), 1);
    assert_eq!(env.verify().0, 0);
}

#[test]
fn test_tty_remote_commands_with_no_remote_form_refuse_before_asking() {
    let env = TestEnv::init();
    token(&env, "worker-a");
    let before = env.snapshot();
    for args in
        [&["token", "revoke", "--agent", "worker-a"][..], &["key", "require"], &["gc", "--blobs"]]
    {
        let r = pty_with(&env, args, &[], &[], &[("LOCKER_URL", "http://127.0.0.1:9")]);
        assert_eq!(r.status, 2, "{args:?}: {}", r.transcript);
        assert!(shows(&r.transcript, "no remote form"), "{args:?}: {}", r.transcript);
        assert!(!shows(&r.transcript, QUESTION), "{args:?}: {}", r.transcript);
    }
    assert_eq!(env.snapshot(), before);
}

/// A repository with a few pads of a few blocks, a blob file, and a sealed pad's bundle.
fn populated() -> (TestEnv, String) {
    let env = TestEnv::init();
    for _ in 0..3 {
        let pad = env.create_pad(&[]);
        env.append(&pad, ENVELOPE);
        for i in 0..5 {
            env.append(&pad, &format!("block {i}"));
        }
    }
    let big = "x".repeat(70_000);
    let file = env.file("big.txt", big.as_bytes());
    env.json(&["artifact", "publish", "big.txt", &file, "--expect", "0", "--op", "o1"]);
    let pad = env.create_pad(&[]);
    env.append(&pad, ENVELOPE);
    env.append(&pad, "more");
    env.json(&["seal", &pad.id, "--key", &pad.key]);
    let bundle = env.path().join("pad.bundle").to_str().unwrap().to_owned();
    env.json(&["pad", "export", &pad.id, "-o", &bundle]);
    (env, bundle)
}

/// A drawn bar: its unit, and a rate without a run of decimals.
fn has_bar(transcript: &str, what: &str, unit: &str) -> bool {
    let bar = predicate::str::contains(what)
        .and(predicate::str::contains(format!(" {unit} ")))
        .and(predicate::str::contains(" eta "));
    let messy_rate = predicate::str::is_match(r"\d\.\d{2,}[kM]?/s").expect("a valid pattern");
    bar.eval(transcript) && !messy_rate.eval(transcript)
}

#[test]
fn test_tty_progress_bars_on_a_terminal_only() {
    if crate::common::sqlite_only("backups are SQLite files") {
        return;
    }
    let (env, bundle) = populated();

    let r = pty(&env, &["verify"], &[], &[]);
    assert_eq!(r.status, 0, "{}", r.transcript);
    assert!(has_bar(&r.transcript, "verifying", "entries"), "{}", r.transcript);
    assert!(shows(&r.transcript, "intact"), "{}", r.transcript);

    let bk = env.path().join("bk");
    let r = pty(&env, &["backup", bk.to_str().unwrap()], &[], &[]);
    assert_eq!(r.status, 0, "{}", r.transcript);
    assert!(shows(&r.transcript, "copying the database"), "{}", r.transcript);
    assert!(has_bar(&r.transcript, "copying blob files", "blobs"), "{}", r.transcript);
    assert!(has_bar(&r.transcript, "verifying", "entries"), "{}", r.transcript);

    let to = env.path().join("restored");
    let r = pty(&env, &["restore", bk.to_str().unwrap(), "--to", to.to_str().unwrap()], &[], &[]);
    assert_eq!(r.status, 0, "{}", r.transcript);
    assert!(has_bar(&r.transcript, "verifying", "entries"), "{}", r.transcript);

    let copy = env.path().join("copy");
    let r = pty(&env, &["store", "copy", "--to", copy.to_str().unwrap()], &[], &[]);
    assert_eq!(r.status, 0, "{}", r.transcript);
    assert!(has_bar(&r.transcript, "copying the journal", "entries"), "{}", r.transcript);
    assert!(has_bar(&r.transcript, "copying pads", "blocks"), "{}", r.transcript);

    let out = env.path().join("again.bundle");
    let pad = env.json(&["pad", "list"])["pads"][0]["pad_id"].as_str().unwrap().to_owned();
    let r = pty(&env, &["pad", "export", &pad, "-o", out.to_str().unwrap()], &[], &[]);
    assert_eq!(r.status, 0, "{}", r.transcript);
    assert!(has_bar(&r.transcript, "exporting", "blocks"), "{}", r.transcript);

    let other = TestEnv::init();
    let r = pty(&other, &["pad", "import", &bundle], &[], &[]);
    assert_eq!(r.status, 0, "{}", r.transcript);
    assert!(has_bar(&r.transcript, "importing", "blocks"), "{}", r.transcript);

    // Never with stderr elsewhere than the terminal, with --json, or with -q.
    let no_bar = |r: &Run, what: &str| {
        let all = format!("{}{}", r.transcript, r.stderr);
        assert!(!shows(&all, " eta "), "{what}: a bar: {all}");
        assert!(!shows(&all, "verifying"), "{what}: a bar: {all}");
    };
    let r = pty(&env, &["verify"], &[], &["--stderr-pipe"]);
    assert_eq!(r.status, 0);
    no_bar(&r, "verify, stderr a pipe");
    let r = pty(&env, &["--json", "verify"], &[], &[]);
    assert_eq!(r.status, 0);
    no_bar(&r, "verify --json");
    let r = pty(&env, &["-q", "verify"], &[], &[]);
    assert_eq!(r.status, 0);
    no_bar(&r, "verify -q");
    let r = pty(&env, &["--json", "backup", env.path().join("bk2").to_str().unwrap()], &[], &[]);
    assert_eq!(r.status, 0, "{}", r.transcript);
    no_bar(&r, "backup --json");
    // And never without a terminal at all.
    let out = env.locker().args(["backup", env.path().join("bk3").to_str().unwrap()]).output();
    let out = out.unwrap();
    assert!(out.status.success());
    assert!(!shows(&String::from_utf8_lossy(&out.stderr), " eta "));
}
