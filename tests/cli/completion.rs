//! Dynamic shell completion: pad ids, work items and artifact keys come from the repository
//! (read-only), through clap_complete's `COMPLETE=SHELL locker -- WORDS…` protocol, and reach a
//! real interactive bash through the committed registration script.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{bin, sqlite_only, TestEnv};

/// Runs the completion protocol as the bash registration does for `words` (the program name
/// first; the last word is the one being completed) and returns the candidates offered.
fn complete(env: &TestEnv, dir: &Path, words: &[&str]) -> Vec<String> {
    let out = env
        .locker()
        .current_dir(dir)
        .env("COMPLETE", "bash")
        .env("_CLAP_COMPLETE_INDEX", (words.len() - 1).to_string())
        .env("_CLAP_IFS", "\n")
        .arg("--")
        .args(words)
        .output()
        .unwrap();
    assert!(out.status.success(), "{words:?}: {}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "{words:?}: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    text.lines().filter(|l| !l.is_empty()).map(str::to_owned).collect()
}

/// The candidates that are not options.
fn values(all: Vec<String>) -> Vec<String> {
    all.into_iter().filter(|c| !c.starts_with('-')).collect()
}

/// The repository's files and its journal, to compare before and after completing.
fn state(env: &TestEnv) -> (Vec<u8>, Vec<u8>, String, usize) {
    let dot = env.path().join(".locker");
    let db = std::fs::read(dot.join("locker.db")).unwrap();
    let wal = std::fs::read(dot.join("locker.db-wal")).unwrap_or_default();
    let log = env.locker().args(["--json", "log", "--limit", "10000"]).output().unwrap();
    assert!(log.status.success());
    (db, wal, env.snapshot(), log.stdout.iter().filter(|b| **b == b'\n').count())
}

/// A repository with two pads, two work items and two artifacts; returns the pad ids.
fn populated() -> (TestEnv, Vec<String>) {
    let env = TestEnv::init();
    let mut pads: Vec<String> = (0..2)
        .map(|_| env.json(&["pad", "create"])["pad_id"].as_str().unwrap().to_owned())
        .collect();
    pads.sort();
    env.json(&["lease", "acquire", "job-a", "--holder", "worker-1"]);
    env.json(&["lease", "acquire", "build-b"]);
    for (key, op) in [("notes/a.md", "o1"), ("notes/b.md", "o2")] {
        env.json(&["artifact", "publish", key, "--data", "x", "--expect", "0", "--op", op]);
    }
    (env, pads)
}

#[test]
fn test_completion_offers_pad_ids_work_items_and_artifact_keys_without_writing() {
    if sqlite_only("completion opens SQLite read-only and offers nothing on PostgreSQL") {
        return;
    }
    let (env, pads) = populated();
    let here = env.path().to_owned();
    let before = state(&env);

    // Pad ids, for every argument that names a pad; a prefix narrows them.
    assert_eq!(values(complete(&env, &here, &["locker", "pad", "show", ""])), pads);
    assert_eq!(values(complete(&env, &here, &["locker", "verify", ""])), pads);
    let one = &pads[1];
    let prefix = &one[..one.len() - 4];
    assert_eq!(complete(&env, &here, &["locker", "pad", "read", prefix]), [one.as_str()]);
    assert_eq!(complete(&env, &here, &["locker", "seal", one]), [one.as_str()]);
    assert!(complete(&env, &here, &["locker", "pad", "show", "zz"]).is_empty());

    // Work items, for leases, manifests and steps.
    let work = ["build-b", "job-a"];
    assert_eq!(values(complete(&env, &here, &["locker", "lease", "show", ""])), work);
    assert_eq!(values(complete(&env, &here, &["locker", "manifest", "diff", ""])), work);
    assert_eq!(complete(&env, &here, &["locker", "step", "j"]), ["job-a"]);
    // In another scope there is none.
    assert!(values(complete(&env, &here, &["locker", "--scope", "other", "lease", "show", ""]))
        .is_empty());

    // Artifact keys.
    let keys = ["notes/a.md", "notes/b.md"];
    assert_eq!(complete(&env, &here, &["locker", "artifact", "get", "notes/"]), keys);
    assert_eq!(complete(&env, &here, &["locker", "artifact", "log", "notes/b"]), ["notes/b.md"]);

    // From elsewhere: `-R` names the repository; without it there is none, and no candidate.
    let elsewhere = tempfile::tempdir().unwrap();
    let repo = here.to_str().unwrap();
    let far = complete(&env, elsewhere.path(), &["locker", "-R", repo, "lease", "show", "b"]);
    assert_eq!(far, ["build-b"]);
    assert!(values(complete(&env, elsewhere.path(), &["locker", "pad", "show", ""])).is_empty());

    // Subcommands come from the same protocol (and the hidden `util` is not offered).
    let subs = complete(&env, &here, &["locker", "pa"]);
    assert_eq!(subs, ["pad"]);
    assert!(!complete(&env, &here, &["locker", ""]).contains(&"util".to_owned()));

    // Nothing was written: the database, its write-ahead log, every row and the journal.
    assert!(before == state(&env), "completing changed the repository");
}

#[test]
fn test_completion_describes_candidates_for_zsh_and_fish() {
    if sqlite_only("completion opens SQLite read-only") {
        return;
    }
    let (env, _) = populated();
    let out = env
        .locker()
        .env("COMPLETE", "fish")
        .args(["--", "locker", "lease", "show", "j"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "job-a\tactive by worker-1 (fence 1)\n");
}

/// The registration script of `locker completions bash`, sourced in a real interactive bash in
/// a pseudo-terminal: TAB completes pad ids and work items from the repository.
#[test]
fn test_completion_in_an_interactive_bash() {
    if sqlite_only("completion opens SQLite read-only") {
        return;
    }
    let bash = ["bash", "--norc", "--noprofile", "-i"];
    if Command::new("bash").arg("--version").output().is_err() {
        return; // no bash on this machine
    }
    let (env, pads) = populated();
    let script = env.path().join("locker.bash");
    let registered = env.locker().args(["completions", "bash"]).output().unwrap();
    assert!(registered.status.success());
    std::fs::write(&script, &registered.stdout).unwrap();
    let bin_dir = bin().parent().unwrap().to_owned();
    let path = std::env::join_paths(
        std::iter::once(bin_dir).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let setup = format!(
        "PS1='$ '; bind 'set bell-style none' 2>/dev/null; source {}; cd {}",
        script.display(),
        env.path().display()
    );
    let before = state(&env);
    let drive = |typed: &str, expect: &[&str]| {
        let helper: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/pty_shell.py");
        let out = Command::new("python3")
            .arg(helper)
            .arg(serde_json::to_string(&bash).unwrap())
            .arg(&setup)
            .arg(typed)
            .args(expect)
            .env_clear()
            .env("PATH", &path)
            .env("HOME", env.path())
            .env("TERM", "dumb")
            .env("LOCKER_NOW", env.now.to_string())
            .output()
            .unwrap();
        let shown = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "typing {typed:?} did not show {expect:?}; the terminal showed:\n{shown}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        shown
    };
    // Two TABs list every pad id (with the options one could type instead).
    // (Waited for as a whole: the listing arrives row by row.)
    drive("locker pad show \t\t", &[&pads[0], &pads[1], "--json"]);
    // One TAB after a prefix only one work item has completes it on the line.
    drive("locker lease show jo\t", &["job-a"]);
    // ... and one artifact key.
    drive("locker artifact get notes/b\t", &["notes/b.md"]);
    assert!(before == state(&env), "completing changed the repository");
}
