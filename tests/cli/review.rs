//! `locker review`: handed-off pads held against real git repositories made in each test.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};
use sha2::Digest as _;

use crate::common::TestEnv;

const ENVELOPE: &str = r#"{"schema":"locker.handoff.v1","task_id":"t-1","from_agent":"planner","to_agent":"worker","constraints":["tests pass"],"artifacts":[],"budget_usd":null,"allowed_paths":["src/**","Cargo.lock"]}"#;

const CHECKS: [&str; 11] = [
    "sealed",
    "chain",
    "expected_head",
    "envelope",
    "attestation",
    "identity",
    "status",
    "commit",
    "allowed_paths",
    "rerun",
    "dependencies",
];

/// Runs git in `dir` with a fixed identity; panics unless it succeeds.
fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=Locker Test",
            "-c",
            "user.email=test@example.com",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

fn sha256_hex(bytes: &[u8]) -> String {
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// A repository (`.locker/` in the test directory) and a git checkout `work/` beneath it with
/// two commits: `base` (a README) and `commit` (the handed-off work).
struct Work {
    env: TestEnv,
    repo: PathBuf,
    base: String,
    commit: String,
}

impl Work {
    /// The work commit adds `src/lib.rs` and `Cargo.lock`, plus `extra` files.
    fn new(extra: &[(&str, &str)]) -> Self {
        let env = TestEnv::init();
        let repo = env.path().join("work");
        std::fs::create_dir_all(&repo).unwrap();
        git(&repo, &["init", "-q"]);
        std::fs::write(repo.join("README.md"), "# project\n").unwrap();
        git(&repo, &["add", "-A"]);
        git(&repo, &["commit", "-q", "-m", "base"]);
        let base = git(&repo, &["rev-parse", "HEAD"]);
        let files = [("src/lib.rs", "pub fn f() {}\n"), ("Cargo.lock", "# lock v1\n")];
        for (name, text) in files.iter().chain(extra) {
            let p = repo.join(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        git(&repo, &["add", "-A"]);
        git(&repo, &["commit", "-q", "-m", "work"]);
        let commit = git(&repo, &["rev-parse", "HEAD"]);
        Self { env, repo, base, commit }
    }

    /// The attestation of the work commit, as the worker would write it.
    fn attestation(&self) -> Value {
        let lock = std::fs::read(self.repo.join("Cargo.lock")).unwrap();
        json!({
            "task_id": "t-1",
            "from_agent": "planner",
            "to_agent": "worker",
            "status": "completed",
            "canonical_ref": {"commit_sha": self.commit},
            "verification": {"test_command": "test -f src/lib.rs", "exit_code": 0},
            "environment": {
                "dependency_manifest": "Cargo.lock",
                "dependency_hash": sha256_hex(&lock)
            }
        })
    }

    /// Deposits a sealed pad with the envelope and `attestation` (none: envelope only);
    /// returns (pad id, head).
    fn deposit(&self, attestation: Option<&Value>) -> (String, String) {
        let e = self.env.file("envelope.json", ENVELOPE.as_bytes());
        let mut args = vec!["deposit".to_owned(), "--envelope".into(), e];
        if let Some(a) = attestation {
            let path = self.env.file("attestation.json", a.to_string().as_bytes());
            args.extend(["--artifact".into(), path]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let d = self.env.json(&args);
        (d["pad_id"].as_str().unwrap().to_owned(), d["head_hash"].as_str().unwrap().to_owned())
    }

    /// Exports a pad to a bundle file and returns its path.
    fn bundle(&self, pad: &str) -> String {
        let path = self.env.path().join(format!("{pad}.bundle")).to_str().unwrap().to_owned();
        self.env.json(&["pad", "export", pad, "-o", &path]);
        path
    }

    /// `locker --json review ARGS` run in the checkout; (exit code, report).
    fn review(&self, args: &[&str]) -> (i32, Value) {
        review_in(&self.env, &self.repo, args)
    }
}

fn review_in(env: &TestEnv, dir: &Path, args: &[&str]) -> (i32, Value) {
    let out = env.locker().current_dir(dir).args(["--json", "review"]).args(args).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "review printed no JSON report ({e}): stdout {} stderr {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap(), v)
}

fn status<'a>(report: &'a Value, name: &str) -> &'a str {
    check(report, name)["status"].as_str().unwrap()
}

fn detail<'a>(report: &'a Value, name: &str) -> &'a str {
    check(report, name)["detail"].as_str().unwrap()
}

fn check<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no check {name} in {report}"))
}

fn by_status(report: &Value, s: &str) -> Vec<String> {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == s)
        .map(|c| c["name"].as_str().unwrap().to_owned())
        .collect()
}

/// Asserts the review failed (exit 1) with exactly `names` failing, the first of them first.
fn fails_with(code: i32, report: &Value, names: &[&str]) {
    assert_eq!(code, 1, "{report}");
    assert_eq!(report["ok"], false);
    assert_eq!(by_status(report, "fail"), names, "{report}");
    assert_eq!(report["first_failure"]["name"], names[0]);
}

#[test]
fn test_review_clean_handoff_passes() {
    let w = Work::new(&[]);
    let (pad, head) = w.deposit(Some(&w.attestation()));
    let file = w.bundle(&pad);
    // The bundle, with every check applying.
    let (code, r) = w.review(&["--bundle", &file, "--expect-head", &head, "--rerun"]);
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["ok"], true);
    assert_eq!(r["source"], "bundle");
    assert_eq!(r["head_hash"], head.as_str());
    let names: Vec<&str> =
        r["checks"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, CHECKS);
    assert_eq!(by_status(&r, "pass").len(), CHECKS.len(), "{r}");
    assert_eq!(
        (r["passed"].as_u64(), r["failed"].as_u64(), r["skipped"].as_u64()),
        (Some(11), Some(0), Some(0))
    );
    assert!(detail(&r, "allowed_paths").contains("all 2 file(s)"), "{r}");
    assert!(detail(&r, "commit").contains(&w.commit));
    // Strict mode passes too: nothing was skipped.
    let (code, _) = w.review(&["--bundle", &file, "--expect-head", &head, "--rerun", "--strict"]);
    assert_eq!(code, 0);
    // The local pad, read by the operator without a ticket: the same verdict.
    let (code, r) = w.review(&[&pad, "--expect-head", &head, "--rerun"]);
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["source"], "repository");
    assert!(by_status(&r, "fail").is_empty());
    // Without --expect-head and --rerun those two are skipped, not passed; the review passes.
    let (code, r) = w.review(&[&pad]);
    assert_eq!(code, 0);
    assert_eq!(by_status(&r, "skip"), ["expected_head", "rerun"]);
    let (code, r) = w.review(&[&pad, "--strict"]);
    assert_eq!(code, 1);
    assert_eq!(r["first_failure"]["name"], "expected_head");
    // The human report.
    let out =
        w.env.locker().current_dir(&w.repo).args(["review", "--bundle", &file]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("  pass  allowed_paths  "), "{text}");
    assert!(text.contains("  skip  rerun          not requested"), "{text}");
    assert!(text.trim_end().ends_with("PASS (9 passed, 0 failed, 2 skipped)"), "{text}");
}

#[test]
fn test_review_names_each_file_outside_allowed_paths() {
    let w = Work::new(&[("docs/notes.md", "notes\n"), ("src/deep/x.rs", "\n")]);
    std::fs::write(w.repo.join("README.md"), "# changed\n").unwrap();
    git(&w.repo, &["commit", "-q", "-a", "--amend", "--no-edit"]);
    let commit = git(&w.repo, &["rev-parse", "HEAD"]);
    let mut a = w.attestation();
    a["canonical_ref"]["commit_sha"] = commit.clone().into();
    let (pad, _) = w.deposit(Some(&a));
    let (code, r) = w.review(&[&pad]);
    fails_with(code, &r, &["allowed_paths"]);
    let d = detail(&r, "allowed_paths");
    assert!(d.starts_with("2 of 5 file(s) changed in"), "{d}");
    assert!(d.ends_with(": README.md, docs/notes.md"), "{d}");
    // An explicit range is diffed instead of the attested commit.
    let (code, r) = w.review(&[&pad, "--range", &format!("{}..{commit}", w.base)]);
    assert_eq!(code, 1);
    assert!(detail(&r, "allowed_paths").contains("docs/notes.md"));
}

#[test]
fn test_review_a_wrong_commit_fails() {
    let w = Work::new(&[]);
    let mut a = w.attestation();
    a["canonical_ref"]["commit_sha"] = "0123456789abcdef0123456789abcdef01234567".into();
    let (pad, _) = w.deposit(Some(&a));
    let (code, r) = w.review(&[&pad]);
    fails_with(code, &r, &["commit"]);
    assert_eq!(
        detail(&r, "commit"),
        "commit 0123456789abcdef0123456789abcdef01234567 is not in this repository"
    );
    // With no commit to diff, allowed_paths cannot apply: skipped, not passed.
    assert_eq!(status(&r, "allowed_paths"), "skip");
    // An explicit range still applies.
    let (code, r) = w.review(&[&pad, "--range", &format!("{}..{}", w.base, w.commit)]);
    fails_with(code, &r, &["commit"]);
    assert_eq!(status(&r, "allowed_paths"), "pass");
    // Not a commit id at all, or none named.
    a["canonical_ref"]["commit_sha"] = "--all".into();
    let (pad, _) = w.deposit(Some(&a));
    let (code, r) = w.review(&[&pad]);
    fails_with(code, &r, &["commit"]);
    assert!(detail(&r, "commit").contains("is not a commit id"));
    a.as_object_mut().unwrap().remove("canonical_ref");
    let (pad, _) = w.deposit(Some(&a));
    let (code, r) = w.review(&[&pad]);
    fails_with(code, &r, &["commit"]);
    assert_eq!(detail(&r, "commit"), "the attestation names no canonical_ref.commit_sha");
}

#[test]
fn test_review_rerun_compares_exit_codes() {
    let w = Work::new(&[]);
    let mut a = w.attestation();
    a["verification"]["test_command"] = "echo noisy; echo noisier >&2; exit 3".into();
    let (pad, _) = w.deposit(Some(&a));
    // Not asked for: skipped.
    let (code, r) = w.review(&[&pad]);
    assert_eq!(code, 0);
    assert_eq!(status(&r, "rerun"), "skip");
    // Re-run: exits 3, attested 0. Its output went to stderr, not into the JSON on stdout.
    let (code, r) = w.review(&[&pad, "--rerun"]);
    fails_with(code, &r, &["rerun"]);
    assert!(detail(&r, "rerun").contains("exited 3, but the attestation says 0"), "{r}");
    // The command runs in the checkout.
    a["verification"] = json!({"test_command": "test -f Cargo.lock && exit 5", "exit_code": 5});
    let (pad, _) = w.deposit(Some(&a));
    let (code, r) = w.review(&[&pad, "--rerun"]);
    assert_eq!(code, 0, "{r}");
    // A pad that fails its integrity checks is never run.
    let wrong = "1".repeat(64);
    let (code, r) = w.review(&[&pad, "--rerun", "--expect-head", &wrong]);
    fails_with(code, &r, &["expected_head"]);
    assert_eq!(detail(&r, "rerun"), "not run: the pad failed its integrity checks");
    // No command attested.
    a.as_object_mut().unwrap().remove("verification");
    let (pad, _) = w.deposit(Some(&a));
    let (code, r) = w.review(&[&pad, "--rerun"]);
    fails_with(code, &r, &["rerun"]);
}

#[test]
fn test_review_a_changed_dependency_manifest_fails() {
    let w = Work::new(&[]);
    let (pad, _) = w.deposit(Some(&w.attestation()));
    let file = w.bundle(&pad);
    std::fs::write(w.repo.join("Cargo.lock"), "# lock v2\n").unwrap();
    let (code, r) = w.review(&["--bundle", &file]);
    fails_with(code, &r, &["dependencies"]);
    let want = sha256_hex(b"# lock v2\n");
    assert!(detail(&r, "dependencies").starts_with(&format!("sha256(Cargo.lock) = {want}, but")));
    // The manifest gone, or a path out of the checkout.
    std::fs::remove_file(w.repo.join("Cargo.lock")).unwrap();
    let (code, r) = w.review(&["--bundle", &file]);
    fails_with(code, &r, &["dependencies"]);
    assert!(detail(&r, "dependencies").starts_with("cannot read Cargo.lock"));
    let mut a = w.attestation_without_lock();
    a["environment"]["dependency_manifest"] = "../outside".into();
    let (pad, _) = w.deposit(Some(&a));
    let (code, r) = w.review(&[&pad]);
    fails_with(code, &r, &["dependencies"]);
    assert!(detail(&r, "dependencies").contains("must be a relative path inside the checkout"));
    // No environment attested: nothing to re-hash, skipped.
    a.as_object_mut().unwrap().remove("environment");
    let (pad, _) = w.deposit(Some(&a));
    let (code, r) = w.review(&[&pad]);
    assert_eq!(code, 0, "{r}");
    assert_eq!(status(&r, "dependencies"), "skip");
}

impl Work {
    /// The attestation, with a made-up dependency hash (for when Cargo.lock is gone).
    fn attestation_without_lock(&self) -> Value {
        let mut a = json!({
            "task_id": "t-1", "from_agent": "planner", "to_agent": "worker",
            "status": "completed", "canonical_ref": {"commit_sha": self.commit},
        });
        a["environment"] =
            json!({"dependency_manifest": "Cargo.lock", "dependency_hash": "0".repeat(64)});
        a
    }
}

#[test]
fn test_review_a_mismatched_agent_or_status_fails() {
    let w = Work::new(&[]);
    let mut a = w.attestation();
    a["to_agent"] = "mallory".into();
    let (pad, _) = w.deposit(Some(&a));
    let (code, r) = w.review(&[&pad]);
    fails_with(code, &r, &["identity"]);
    assert_eq!(
        detail(&r, "identity"),
        "to_agent: the attestation says `mallory`, the envelope `worker`"
    );
    let mut a = w.attestation();
    a["status"] = "failed".into();
    let (pad, _) = w.deposit(Some(&a));
    let (code, r) = w.review(&[&pad]);
    fails_with(code, &r, &["status"]);
    assert_eq!(detail(&r, "status"), "the attestation's status is `failed`, not `completed`");
}

#[test]
fn test_review_without_an_attestation_fails() {
    let w = Work::new(&[]);
    let (pad, _) = w.deposit(None);
    let (code, r) = w.review(&[&pad, "--rerun"]);
    fails_with(code, &r, &["attestation"]);
    for name in ["identity", "status", "commit", "rerun", "dependencies"] {
        assert_eq!(status(&r, name), "skip", "{name}");
        assert_eq!(detail(&r, name), "no attestation");
    }
    // Block 1 that is not an attestation.
    let (pad, _) = w.deposit(Some(&json!({"task_id": "t-1"})));
    let (code, r) = w.review(&[&pad]);
    fails_with(code, &r, &["attestation"]);
    assert!(detail(&r, "attestation").contains("`from_agent`, `to_agent`, `status`"));
}

#[test]
fn test_review_an_unsealed_pad_fails() {
    let w = Work::new(&[]);
    let pad = w.env.create_pad(&[]);
    w.env.append(&pad, ENVELOPE);
    w.env.append(&pad, &w.attestation().to_string());
    let (code, r) = w.review(&[&pad.id]);
    fails_with(code, &r, &["sealed"]);
    assert_eq!(r["state"], "open");
    // Its bundle says so too.
    let file = w.bundle(&pad.id);
    let (code, r) = w.review(&["--bundle", &file]);
    fails_with(code, &r, &["sealed"]);
}

#[test]
fn test_review_a_truncated_bundle_fails() {
    let w = Work::new(&[]);
    let (pad, head) = w.deposit(Some(&w.attestation()));
    let file = w.bundle(&pad);
    let bytes = std::fs::read(&file).unwrap();
    // Cut inside the trailer: every block is there, but the file is not whole.
    let cut = w.env.file("cut.bundle", &bytes[..bytes.len() - 20]);
    let (code, r) = w.review(&["--bundle", &cut, "--expect-head", &head]);
    fails_with(code, &r, &["chain"]);
    assert!(detail(&r, "chain").starts_with("`trailer`: the bundle is truncated"), "{r}");
    // Cut after the envelope: the attestation is gone as well.
    let lines: Vec<&[u8]> = bytes.split_inclusive(|b| *b == b'\n').collect();
    let cut = w.env.file("cut2.bundle", &lines[..2].concat());
    let (code, r) = w.review(&["--bundle", &cut, "--expect-head", &head]);
    fails_with(code, &r, &["chain", "expected_head", "attestation"]);
}

#[test]
fn test_review_a_tampered_block_fails_in_a_bundle_and_in_the_repository() {
    let w = Work::new(&[]);
    let (pad, head) = w.deposit(Some(&w.attestation()));
    let file = w.bundle(&pad);
    // In the bundle file: the attestation's block edited (status flipped back to completed
    // from something else would look the same), the trailer left alone.
    let text = std::fs::read_to_string(&file).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let mut blk: Value = serde_json::from_str(&lines[2]).unwrap();
    use base64::Engine as _;
    let mut a = w.attestation();
    a["verification"]["exit_code"] = 1.into();
    blk["payload_b64"] = base64::engine::general_purpose::STANDARD.encode(a.to_string()).into();
    lines[2] = blk.to_string();
    let edited: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let f = w.env.file("edited.bundle", edited.as_bytes());
    let (code, r) = w.review(&["--bundle", &f]);
    fails_with(code, &r, &["chain"]);
    assert!(detail(&r, "chain").starts_with("`digest`"), "{r}");
    // In the repository: a block's payload changed behind locker's back.
    w.env
        .sql()
        .execute("UPDATE blocks SET payload = CAST(? AS BLOB) WHERE seq = 1", [a.to_string()])
        .unwrap();
    let (code, r) = w.review(&[&pad, "--expect-head", &head]);
    fails_with(code, &r, &["chain", "expected_head"]);
    assert!(detail(&r, "chain").contains("block 1"), "{r}");
}

#[test]
fn test_review_without_git_skips_the_git_checks() {
    let w = Work::new(&[]);
    let (pad, head) = w.deposit(Some(&w.attestation()));
    let file = w.bundle(&pad);
    // No git on PATH: commit and allowed_paths are skipped and say why.
    let empty = tempfile::tempdir().unwrap();
    let out = w
        .env
        .locker()
        .env("PATH", empty.path())
        .current_dir(&w.repo)
        .args(["--json", "review", "--bundle", &file, "--expect-head", &head])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(by_status(&r, "skip"), ["commit", "allowed_paths", "rerun"]);
    assert!(detail(&r, "commit").contains("git is not installed"), "{r}");
    // --strict turns the skips into a failure.
    let out = w
        .env
        .locker()
        .env("PATH", empty.path())
        .current_dir(&w.repo)
        .args(["--json", "review", "--bundle", &file, "--strict"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["first_failure"]["name"], "expected_head");
    // Outside a work tree (and with no repository anywhere): skipped as well; the dependency
    // manifest is not there either, so that check fails.
    let outside = TestEnv::new();
    let (code, r) = review_in(&outside, outside.path(), &["--bundle", &file]);
    assert_eq!(code, 1, "{r}");
    assert_eq!(by_status(&r, "skip"), ["expected_head", "commit", "allowed_paths", "rerun"]);
    assert!(detail(&r, "commit").contains("not a git repository"), "{r}");
    assert_eq!(by_status(&r, "fail"), ["dependencies"]);
    assert!(!outside.path().join(".locker").exists());
    // -C points at the checkout from anywhere.
    let (code, r) =
        review_in(&outside, outside.path(), &["--bundle", &file, "-C", w.repo.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert_eq!(status(&r, "commit"), "pass");
}

#[test]
fn test_review_errors() {
    let w = Work::new(&[]);
    let (pad, _) = w.deposit(Some(&w.attestation()));
    let run = |args: &[&str], code: i32| -> Value {
        let out = w.env.locker().current_dir(&w.repo).arg("--json").args(args).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(code),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stdout.is_empty());
        serde_json::from_slice(&out.stderr).unwrap_or(Value::Null)
    };
    let e = run(&["review", "0123456789abcdef0123456789abcdef"], 3);
    assert_eq!(e["error"], "not_found");
    run(&["review"], 2);
    run(&["review", &pad, "--bundle", "x"], 2);
    let e = run(&["review", &pad, "--range", "main"], 2);
    assert_eq!(e["error"], "usage");
    let junk = w.env.file("junk.bundle", b"junk\n");
    let e = run(&["review", "--bundle", &junk], 6);
    assert_eq!(e["error"], "malformed_bundle");
    let e = run(&["review", &pad, "--expect-head", "nope"], 6);
    assert_eq!(e["error"], "bad_request");
    // An agent needs a ticket to read the pad.
    let token = w.env.token("ci", "default");
    let out = w
        .env
        .locker()
        .env("LOCKER_TOKEN", &token)
        .current_dir(&w.repo)
        .args(["--json", "review", &pad])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(5));
}

#[test]
fn test_review_remote_pad_with_a_ticket() {
    let w = Work::new(&[]);
    let e = w.env.file("envelope.json", ENVELOPE.as_bytes());
    let a = w.env.file("attestation.json", w.attestation().to_string().as_bytes());
    let d = w.env.json(&["deposit", "--envelope", &e, "--artifact", &a]);
    let (pad, head, ticket) = (
        d["pad_id"].as_str().unwrap(),
        d["head_hash"].as_str().unwrap(),
        d["read_ticket"].as_str().unwrap(),
    );
    let s = w.env.serve(&[]);
    // The CI side has the checkout and a ticket, but no repository.
    let ci = TestEnv::new();
    let url = s.url();
    let args = ["--remote", &url, "--ticket", ticket, "--expect-head", head, "--rerun"];
    let mut all = vec![pad];
    all.extend(args);
    let (code, r) = review_in(&ci, &w.repo, &all);
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["source"], "remote");
    assert_eq!(r["file"], url.as_str());
    assert_eq!(by_status(&r, "pass").len(), CHECKS.len(), "{r}");
    // A wrong ticket is the server's refusal, exit 5.
    let out = ci
        .locker()
        .current_dir(&w.repo)
        .args(["--json", "review", pad, "--remote", &url, "--ticket", "nope"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(5));
}

#[test]
fn test_review_root_commits_and_shallow_clones() {
    let w = Work::new(&[]);
    // A root commit is diffed against nothing: its README is outside allowed_paths.
    let mut a = w.attestation();
    a["canonical_ref"]["commit_sha"] = w.base.clone().into();
    let (pad, _) = w.deposit(Some(&a));
    let (code, r) = w.review(&[&pad]);
    fails_with(code, &r, &["allowed_paths"]);
    assert!(detail(&r, "allowed_paths").contains("(a root commit)"), "{r}");
    assert!(detail(&r, "allowed_paths").ends_with(": README.md"), "{r}");
    // A shallow clone lacks the parent: the check says so instead of listing every file.
    let (pad, _) = w.deposit(Some(&w.attestation()));
    let file = w.bundle(&pad);
    let shallow = w.env.path().join("shallow");
    let src = format!("file://{}", w.repo.display());
    git(w.env.path(), &["clone", "-q", "--depth", "1", &src, shallow.to_str().unwrap()]);
    let (code, r) = review_in(&w.env, &shallow, &["--bundle", &file]);
    fails_with(code, &r, &["allowed_paths"]);
    assert!(detail(&r, "allowed_paths").contains("fetch-depth: 0"), "{r}");
    assert_eq!(status(&r, "commit"), "pass");
}

/// See: #17. `review --policy`: the bundle's checkpoint must verify with the policy's log key,
/// prove every block, and carry the quorum (`log`, `policy`, `pin` checks); short of the quorum
/// the review fails naming the missing witness and pins nothing. A local pad's review holds the
/// repository's latest checkpoint to the same rule.
#[test]
fn test_review_with_a_witness_policy() {
    use crate::policy::{cosign, log_key, policy, witness};
    let w = Work::new(&[]);
    let (pad, head) = w.deposit(Some(&w.attestation()));
    let vk = log_key(&w.env);
    let (w1, w1vk) = witness(&w.env, &vk, "w1.example");
    let p = policy(&w.env, "one.policy", &vk, &[&w1vk], "all");
    let state = w.env.path().join("reviewer");
    let st = state.to_str().unwrap();
    let file = w.bundle(&pad);
    let (code, r) =
        w.review(&["--bundle", &file, "--expect-head", &head, "--policy", &p, "--state", st]);
    fails_with(code, &r, &["policy"]);
    assert!(detail(&r, "policy").contains("missing A"), "{r}");
    assert_eq!((status(&r, "log"), status(&r, "pin")), ("pass", "skip"));
    assert!(!state.join("pins").exists(), "nothing pinned");
    // Without a key or policy there are no log checks at all (as before).
    let (code, r) = w.review(&["--bundle", &file, "--expect-head", &head]);
    assert_eq!(code, 0, "{r}");
    assert!(r["checks"].as_array().unwrap().iter().all(|c| c["name"] != "log"));

    cosign(&w.env, w.env.path(), &[&w1.url()]);
    let file = w.bundle(&pad);
    let (code, r) =
        w.review(&["--bundle", &file, "--expect-head", &head, "--policy", &p, "--state", st]);
    assert_eq!(code, 0, "{r}");
    assert_eq!(
        (status(&r, "log"), status(&r, "policy"), status(&r, "pin")),
        ("pass", "pass", "pass")
    );
    assert!(detail(&r, "pin").contains("pinned"), "{r}");
    // The local pad, with the policy from the environment.
    let out = w
        .env
        .locker()
        .current_dir(&w.repo)
        .env("LOCKER_POLICY", &p)
        .args(["--json", "review", &pad, "--expect-head", &head, "--state", st])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((status(&r, "log"), status(&r, "policy")), ("pass", "pass"));
}

/// Rewrites a bundle's header with `edit` and fixes its trailer's digest, as a forger would.
fn forge_header(file: &str, edit: impl FnOnce(&mut Value)) {
    let text = std::fs::read_to_string(file).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let mut header: Value = serde_json::from_str(&lines[0]).unwrap();
    edit(&mut header);
    lines[0] = header.to_string();
    let n = lines.len();
    let before: String = lines[..n - 1].iter().map(|l| format!("{l}\n")).collect();
    let mut trailer: Value = serde_json::from_str(&lines[n - 1]).unwrap();
    trailer["sha256"] = sha256_hex(before.as_bytes()).into();
    std::fs::write(file, format!("{before}{trailer}\n")).unwrap();
}

/// See: #17. A bundle carries its block signers (signer, key, signature, who registered the
/// key), so an offline review reports them per agent and re-checks every signature with no
/// repository; a forged signer fails the `signatures` check. The same through `--remote`.
#[test]
fn test_bundles_carry_block_signers_and_an_offline_review_reports_them() {
    let w = Work::new(&[]);
    let env = &w.env;
    let token = env.json(&["token", "create", "--agent", "worker", "--scope", "default"])["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let key_file = env.path().join("worker.key").to_str().unwrap().to_owned();
    let vkey = env.json(&["key", "new", "--agent", "worker", "-o", &key_file])["vkey"]
        .as_str()
        .unwrap()
        .to_owned();
    let out = env
        .locker()
        .env("LOCKER_TOKEN", &token)
        .args(["key", "register", "--public-key", &vkey])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let pad = env.create_pad(&[]);
    for data in [ENVELOPE.to_owned(), w.attestation().to_string()] {
        env.json(&["append", &pad.id, "--key", &pad.key, "--sign-key", &key_file, "-d", &data]);
    }
    let head =
        env.json(&["seal", &pad.id, "--key", &pad.key])["head_hash"].as_str().unwrap().to_owned();
    let file = w.bundle(&pad.id);
    let header: Value =
        serde_json::from_str(std::fs::read_to_string(&file).unwrap().lines().next().unwrap())
            .unwrap();
    let carried = &header["signers"]["blocks"];
    assert_eq!(carried.as_array().map(Vec::len), Some(2), "{header:#}");
    assert_eq!(
        (carried[0]["signer"].as_str(), carried[0]["registered_by"].as_str()),
        (Some("worker"), Some("self"))
    );

    // Offline, in the checkout, with no repository.
    let ci = TestEnv::new();
    let (code, r) = review_in(
        &ci,
        &w.repo,
        &["--bundle", &file, "--expect-head", &head, "--require-self-keys"],
    );
    assert_eq!(code, 0, "{r:#}");
    assert_eq!(status(&r, "signatures"), "pass", "{r:#}");
    assert!(detail(&r, "signatures").contains("as the log's journal entries record"), "{r:#}");
    assert_eq!(status(&r, "self_keys"), "pass");
    assert_eq!(r["agents"]["worker"]["signed"], 2);
    assert_eq!(r["agents"]["worker"]["self_keys_only"], true);
    assert_eq!(r["signers"][1]["seq"], 1);
    let text = String::from_utf8(
        ci.locker()
            .current_dir(&w.repo)
            .args(["review", "--bundle", &file])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert!(
        text.contains("signer worker: 2 block(s), every one by a key it registered itself"),
        "{text}"
    );
    // verify --bundle checks them too.
    let v = ci.json(&["verify", "--bundle", &file]);
    let signers = v["checks"].as_array().unwrap().iter().find(|c| c["name"] == "signers").unwrap();
    assert_eq!(signers["status"], "pass", "{v:#}");

    // A forger names another signer (or breaks a signature): the signatures check fails.
    let forged = env.path().join("forged.bundle").to_str().unwrap().to_owned();
    std::fs::copy(&file, &forged).unwrap();
    forge_header(&forged, |h| {
        let sig = h["signers"]["blocks"][0]["signature"].clone();
        h["signers"]["blocks"][1]["signature"] = sig;
    });
    let (code, r) = review_in(&ci, &w.repo, &["--bundle", &forged, "--expect-head", &head]);
    assert_eq!(code, 1, "{r:#}");
    assert_eq!(status(&r, "signatures"), "fail", "{r:#}");
    assert!(detail(&r, "signatures").contains("block 1"), "{r:#}");

    // Fetched from a server with a ticket: the same signers.
    let s = env.serve(&[]);
    let (code, r) = review_in(
        &ci,
        &w.repo,
        &[&pad.id, "--remote", &s.url(), "--ticket", &pad.ticket, "--expect-head", &head],
    );
    assert_eq!(code, 0, "{r:#}");
    assert_eq!(r["agents"]["worker"]["signed"], 2, "{r:#}");
    assert_eq!(status(&r, "signatures"), "pass");
}
