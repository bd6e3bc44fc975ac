//! `locker quest`: the demo plays the whole story with real processes of the binary, passes
//! every step, cleans up after itself (or keeps its directory with `--keep`), leaks nothing of
//! its environment into its children, and leaves no process running, even when a step fails.

use std::collections::BTreeSet;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde::Deserialize;
use serde_json::Value;

use crate::common::{bin, TestEnv};

/// One line of `locker quest --json`.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", content = "data", rename_all = "snake_case")]
enum Line {
    Step(StepLine),
    Summary(SummaryLine),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct StepLine {
    n: u32,
    name: String,
    ok: bool,
    detail: String,
    facts: Value,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SummaryLine {
    ok: bool,
    passed: u32,
    failed: u32,
    steps: u32,
    elapsed_ms: u64,
    dir: PathBuf,
    kept: bool,
}

/// Variables a careless quest would hand down to its children.
const SECRETS: [(&str, &str); 3] = [
    ("LOCKER_TOKEN", "secret"),
    ("AWS_SECRET_ACCESS_KEY", "aws-secret-value"),
    ("GITHUB_TOKEN", "ghp_secret"),
];

/// Runs `locker quest ARGS` with its temporary directory under the test's own directory.
fn quest(env: &TestEnv, args: &[&str], extra: &[(&str, &str)]) -> Output {
    let tmp = tmp_dir(env);
    std::fs::create_dir_all(&tmp).unwrap();
    let mut cmd = env.locker();
    cmd.env("TMPDIR", &tmp).arg("quest").args(args);
    for (k, v) in extra {
        cmd.env(k, v);
    }
    cmd.output().expect("locker quest runs")
}

fn tmp_dir(env: &TestEnv) -> PathBuf {
    env.path().join("tmp")
}

fn lines(out: &Output) -> (Vec<StepLine>, SummaryLine) {
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    let mut steps = Vec::new();
    let mut summary = None;
    for l in text.lines() {
        match serde_json::from_str::<Line>(l).unwrap_or_else(|e| panic!("{e}: {l}")) {
            Line::Step(s) => steps.push(s),
            Line::Summary(s) => {
                assert!(summary.is_none(), "one summary");
                summary = Some(s);
            }
        }
    }
    (steps, summary.expect("a summary line comes last"))
}

/// The processes (pid and command line) whose `HOME` lies under `prefix`: every quest child
/// has `HOME` set to the quest's directory.
fn processes_under(prefix: &Path) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else { return found };
    for entry in dir.flatten() {
        let pid = entry.file_name().to_string_lossy().into_owned();
        if !pid.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else { continue };
        let under = environ.split(|b| *b == 0).any(|kv| {
            kv.strip_prefix(b"HOME=")
                .is_some_and(|home| Path::new(&*String::from_utf8_lossy(home)).starts_with(prefix))
        });
        if under {
            let cmd = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            found.push((pid, String::from_utf8_lossy(&cmd).replace('\0', " ")));
        }
    }
    found
}

fn assert_nothing_running_under(prefix: &Path) {
    if cfg!(target_os = "linux") {
        let left = processes_under(prefix);
        assert!(left.is_empty(), "processes left running: {left:?}");
    }
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn test_quest_passes_every_step_and_removes_its_directory() {
    let env = TestEnv::new();
    let out = quest(&env, &[], &[]);
    let stdout = String::from_utf8(out.stdout.clone()).unwrap();
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.starts_with(&format!("{}\n", locker::quest::TITLE)), "{stdout}");
    let passes: Vec<&str> = stdout.lines().filter_map(|l| l.strip_prefix("PASS  ")).collect();
    assert_eq!(passes, locker::quest::STEPS, "{stdout}");
    assert!(!stdout.contains("FAIL"), "{stdout}");
    let last = stdout.lines().last().unwrap();
    assert!(last.starts_with("QUEST CLEARED: all 9 steps passed in "), "{last}");
    assert!(last.ends_with("Temporary directory removed."), "{last}");
    let left: Vec<_> = std::fs::read_dir(tmp_dir(&env)).unwrap().collect();
    assert!(left.is_empty(), "the temporary directory is removed: {left:?}");
    assert_nothing_running_under(&tmp_dir(&env));
}

#[test]
fn test_quest_json_lines_and_children_inherit_no_secrets() {
    let env = TestEnv::new();
    let out = quest(&env, &["--json"], &SECRETS);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let (steps, summary) = lines(&out);
    assert_eq!(steps.len(), 9);
    for (i, s) in steps.iter().enumerate() {
        assert_eq!(s.n as usize, i + 1);
        assert!(s.ok, "step {} failed: {}", s.n, s.detail);
        assert_eq!(s.name, locker::quest::STEPS[i]);
        assert!(!s.detail.is_empty());
    }
    assert!(summary.ok && !summary.kept, "{summary:?}");
    assert_eq!((summary.passed, summary.failed, summary.steps), (9, 0, 9));
    assert!(summary.elapsed_ms < 30_000, "the quest takes seconds: {summary:?}");
    assert!(summary.dir.starts_with(tmp_dir(&env)), "{summary:?}");
    assert!(!summary.dir.exists(), "the temporary directory is removed");

    // The story's evidence.
    let facts = |n: usize| &steps[n - 1].facts;
    assert_eq!(facts(2)["fence"], 1);
    assert_eq!(facts(3)["fence"], 2);
    assert_eq!(facts(3)["version"], 2);
    assert_eq!(facts(4)["exit_code"], 4);
    assert_eq!(facts(4)["error"]["error"], "stale_fence");
    assert_eq!(facts(5)["killed_by_signal"], 9);
    assert_eq!(facts(6)["replayed"], true);
    assert_eq!(facts(6)["versions"], 2);
    assert_eq!(facts(7)["exit_after"], 1);
    assert_eq!(facts(7)["problem"]["seq"], 1);
    assert_eq!(
        facts(7)["problem"]["subject"],
        format!("pad:{}", facts(1)["pad_id"].as_str().unwrap())
    );
    assert_eq!(facts(8)["holes"], serde_json::json!(["review"]));
    assert_eq!(facts(9)["status"], "fork");
    assert_ne!(facts(9)["pinned"], facts(9)["presented"]);
    assert_eq!(
        (&facts(8)["accepted"], &facts(8)["rejected"], &facts(8)["replayed"]),
        (&Value::from(2), &Value::from(1), &Value::from(1))
    );

    // Worker A reported its environment's names: exactly what the quest gave it. (Had the
    // local children inherited LOCKER_TOKEN=secret, they would have been refused.)
    let names: Vec<&str> =
        facts(2)["environment"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    let names: Vec<&str> = names.into_iter().filter(|n| !n.starts_with("__")).collect();
    assert_eq!(names, ["HOME", "LANG", "LOCKER_NOW", "LOCKER_TOKEN", "LOCKER_URL", "PATH"]);
    if cfg!(target_os = "linux") {
        // The server's, read from /proc while it ran.
        let server: BTreeSet<&str> = facts(1)["server_environment"]
            .as_array()
            .expect("the server's environment is read on Linux")
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(server, BTreeSet::from(["HOME", "LANG", "LOCKER_DIR", "LOCKER_NOW", "PATH"]));
    }
    let all = String::from_utf8_lossy(&out.stdout);
    for (name, value) in SECRETS {
        assert!(!all.contains(value), "{name}'s value shows up in the output");
    }
    assert!(!all.contains("AWS_SECRET_ACCESS_KEY") && !all.contains("GITHUB_TOKEN"));
    assert_nothing_running_under(&tmp_dir(&env));
}

#[test]
fn test_quest_keep_keeps_the_directory_with_the_story_in_it() {
    if crate::common::sqlite_only("reads or tampers with the SQLite files directly") {
        return;
    }
    let env = TestEnv::new();
    let out = quest(&env, &["--keep", "--json"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let (_, summary) = lines(&out);
    assert!(summary.ok && summary.kept, "{summary:?}");
    let dir = &summary.dir;
    assert_eq!(mode(dir), 0o700);
    assert!(dir.join("repo/.locker/locker.db").is_file());
    for secret in ["worker-a/handoff.json", "worker-a/pending.json", "worker-b/pending.json"] {
        assert_eq!(mode(&dir.join(secret)), 0o600, "{secret}");
    }
    let pending: Value =
        serde_json::from_slice(&std::fs::read(dir.join("worker-a/pending.json")).unwrap()).unwrap();
    assert_eq!(
        (pending["expected_version"].as_i64(), pending["fence"]["token"].as_i64()),
        (Some(1), Some(1))
    );
    // It is the real repository: the block the quest altered is still broken.
    let verify =
        env.locker().arg("-R").arg(dir.join("repo")).args(["--json", "verify"]).output().unwrap();
    assert_eq!(verify.status.code(), Some(1));
    let human = quest(&TestEnv::new(), &["--keep"], &[]);
    let text = String::from_utf8(human.stdout).unwrap();
    assert!(text.lines().last().unwrap().contains("Kept the temporary directory: "), "{text}");
    assert_nothing_running_under(&tmp_dir(&env));
}

/// A step that fails (here worker A's stale retry "succeeds") gives a FAIL step, stops the
/// story, kills the server and removes the directory.
#[test]
fn test_quest_failure_stops_kills_every_child_and_cleans_up() {
    let env = TestEnv::new();
    let fake = env.path().join("locker-with-a-bug");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\nif [ \"$1\" = __quest-worker ] && [ \"$2\" = resume ] && \
             [ \"${{PWD##*/}}\" = worker-a ]; then echo '{{}}'; exit 0; fi\n\
             unset PWD\nexec '{}' \"$@\"\n",
            bin().display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let tmp = tmp_dir(&env);
    std::fs::create_dir_all(&tmp).unwrap();
    let opts = locker::quest::QuestOptions {
        exe: fake,
        keep: false,
        now: crate::common::NOW,
        temp_parent: Some(tmp.clone()),
    };
    let mut steps = Vec::new();
    let summary = locker::quest::run(&opts, &mut |s| steps.push(s.clone()));
    assert!(!summary.ok);
    assert_eq!((summary.passed, summary.failed), (3, 1), "{steps:#?}");
    let last = steps.last().unwrap();
    assert_eq!((last.n, last.ok), (4, false));
    assert!(last.detail.contains("exited 0, not 4"), "{}", last.detail);
    assert!(!summary.dir.exists(), "the directory is removed after a failure too");
    assert_nothing_running_under(&tmp);
}

#[test]
fn test_quest_processes_are_found_by_the_leftover_check() {
    // The check that no child is left must see a child that is: one started with a quest-like
    // HOME is found, and gone once killed.
    if !cfg!(target_os = "linux") {
        return;
    }
    let env = TestEnv::new();
    let home = tmp_dir(&env).join("locker-quest-x");
    std::fs::create_dir_all(&home).unwrap();
    let mut child = std::process::Command::new("sleep")
        .arg("60")
        .env_clear()
        .env("HOME", &home)
        .spawn()
        .unwrap();
    // `spawn` returns once the child's exec has begun, but the kernel fills in its environment
    // later in the exec; until then `/proc/PID/environ` reads empty. Wait for it, bounded.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let mut seen = processes_under(&tmp_dir(&env));
    while seen.is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(5));
        seen = processes_under(&tmp_dir(&env));
    }
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert!(seen[0].1.starts_with("sleep 60"), "{seen:?}");
    assert_nothing_running_under(&tmp_dir(&env));
}

#[test]
fn test_quest_worker_is_hidden_from_help_man_pages_and_completions() {
    let env = TestEnv::new();
    let help = env.locker().arg("--help").output().unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    assert!(help.contains("quest"), "quest is listed: {help}");
    assert!(!help.contains("quest-worker"));
    for (path, bytes) in locker::docs::generated_files() {
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains("quest-worker"), "{} mentions the worker", path.display());
    }
    // Run by hand with no role, it says what it is and exits 2.
    let out = env.locker().arg("__quest-worker").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(err["error"], "usage");
    assert!(err["detail"].as_str().unwrap().contains("locker quest"));
}
