//! Attack: the agent under review stalls `locker review` with the globs of its own envelope
//! (`allowed_paths`), which a backtracking matcher took exponential time over; and the globs
//! users know (`{a,b}`, `[...]`) were literal text. See: #18 (item 3).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::TestEnv;

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=T", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"])
        .args(args)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// A git checkout `work/` whose second commit adds `files`; returns (checkout, range).
fn checkout(env: &TestEnv, files: &[&str]) -> (std::path::PathBuf, String) {
    let repo = env.path().join("work");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q"]);
    std::fs::write(repo.join("README.md"), "x\n").unwrap();
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "base"]);
    let base = git(&repo, &["rev-parse", "HEAD"]);
    for f in files {
        let p = repo.join(f);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, "y\n").unwrap();
    }
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "work"]);
    (repo, format!("{base}..HEAD"))
}

fn envelope(allowed: &[&str]) -> String {
    json!({
        "schema": "locker.handoff.v1", "task_id": "t", "from_agent": "a", "to_agent": "b",
        "constraints": [], "artifacts": [], "budget_usd": null, "allowed_paths": allowed,
    })
    .to_string()
}

fn deposit(env: &TestEnv, allowed: &[&str]) -> String {
    let e = env.file("envelope.json", envelope(allowed).as_bytes());
    env.json(&["deposit", "--envelope", &e])["pad_id"].as_str().unwrap().to_owned()
}

fn review(env: &TestEnv, dir: &Path, pad: &str, range: &str) -> (i32, Value) {
    let out = env
        .locker()
        .current_dir(dir)
        .args(["--json", "review", pad, "--range", range])
        .output()
        .unwrap();
    (out.status.code().unwrap(), serde_json::from_slice(&out.stdout).unwrap())
}

fn check<'a>(r: &'a Value, name: &str) -> &'a Value {
    r["checks"].as_array().unwrap().iter().find(|c| c["name"] == name).unwrap()
}

#[test]
fn test_security_review_is_not_stalled_by_the_globs_of_the_envelope_it_reviews() {
    let env = TestEnv::init();
    let deep = ["d"; 29].join("/") + "/y.rs";
    let (dir, range) = checkout(&env, &[&deep]);
    // 12 `**` segments: over 30 s with the backtracking matcher.
    let hostile = ["**"; 12].join("/") + "/x.rs";
    let pad = deposit(&env, &[&hostile]);
    let start = Instant::now();
    let (code, r) = review(&env, &dir, &pad, &range);
    let took = start.elapsed();
    assert!(took < Duration::from_secs(10), "review took {took:?}");
    assert_eq!(code, 1, "{r}");
    let c = check(&r, "allowed_paths");
    assert_eq!(c["status"], "fail", "{r}");
    assert!(c["detail"].as_str().unwrap().contains(&deep), "{c}");
}

#[test]
fn test_security_globs_have_braces_and_classes() {
    let env = TestEnv::init();
    let (dir, range) = checkout(&env, &["src/lib.rs", "tests/a1.rs"]);
    let pad = deposit(&env, &["{src,docs}/**", "tests/a[0-9].rs"]);
    let (code, r) = review(&env, &dir, &pad, &range);
    assert_eq!(check(&r, "allowed_paths")["status"], "pass", "{r}");
    assert_eq!(code, 1, "no attestation: {r}");
    // And what is outside them is named.
    let env = TestEnv::init();
    let (dir, range) = checkout(&env, &["src/lib.rs", "tests/ab.rs"]);
    let pad = deposit(&env, &["{src,docs}/**", "tests/a[0-9].rs"]);
    let (_, r) = review(&env, &dir, &pad, &range);
    let c = check(&r, "allowed_paths");
    assert_eq!(c["status"], "fail", "{r}");
    assert!(c["detail"].as_str().unwrap().ends_with(": tests/ab.rs"), "{c}");
}

#[test]
fn test_security_an_invalid_glob_is_an_envelope_error_naming_it() {
    let env = TestEnv::init();
    let e = env.file("envelope.json", envelope(&["src/**", "src/[ab"]).as_bytes());
    let err = env.json_err(&["deposit", "--envelope", &e], 6);
    let detail = err["detail"].as_str().unwrap();
    assert!(detail.contains("invalid pattern 'src/[ab'"), "{err}");
    // Nothing was created.
    assert_eq!(env.json(&["pad", "list"])["pads"], json!([]));
}
