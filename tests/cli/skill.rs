//! `locker skill`: a SKILL.md in the Agent Skills format, generated from the CLI definition.

use std::process::Command;

use crate::common::TestEnv;

/// The front matter's keys and the body, split the way Agent Skills loaders split them.
fn split(skill: &str) -> (Vec<(String, String)>, String) {
    let rest = skill.strip_prefix("---\n").expect("front matter opens the file");
    let (front, body) = rest.split_once("\n---\n").expect("front matter is closed");
    let mut keys = Vec::new();
    for line in front.lines() {
        if line.starts_with(' ') {
            continue; // a nested `metadata` entry
        }
        let (k, v) = line.split_once(':').expect("a `key: value` line");
        keys.push((k.to_owned(), v.trim().to_owned()));
    }
    (keys, body.to_owned())
}

/// Every visible command path, `locker pad create`, from `locker --help` walked recursively.
fn command_paths(cmd: &clap::Command, prefix: &str, out: &mut Vec<String>) {
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set() && s.get_name() != "help") {
        let path = format!("{prefix} {}", sub.get_name());
        out.push(path.clone());
        command_paths(sub, &path, out);
    }
}

#[test]
fn test_skill_front_matter_and_every_command() {
    let env = TestEnv::new();
    let out = env.locker().arg("skill").output().unwrap();
    assert!(out.status.success());
    let skill = String::from_utf8(out.stdout).unwrap();
    assert_eq!(skill, locker::skill::render(), "the binary prints the library's rendering");
    let (keys, body) = split(&skill);
    let names: Vec<&str> = keys.iter().map(|(k, _)| k.as_str()).collect();
    for k in &names {
        assert!(locker::skill::ALLOWED_KEYS.contains(k), "front matter key {k} is not allowed");
    }
    assert_eq!(names[..2], ["name", "description"]);
    assert_eq!(keys[0].1, "locker", "the name equals the skill's directory name");
    let description = keys[1].1.trim_matches('"');
    assert!(!description.is_empty() && description.len() <= locker::skill::MAX_DESCRIPTION);
    assert!(description.contains("Use it"), "the description says when to use it");
    assert!(body.lines().count() < 500, "the body stays under 500 lines");

    let mut paths = Vec::new();
    command_paths(&locker::cli::command(), "locker", &mut paths);
    assert!(paths.len() > 10, "{paths:?}");
    for path in paths {
        assert!(body.contains(&format!("`{path}")), "{path} is missing from the skill");
    }
    assert!(!body.contains("`locker util"), "hidden commands stay hidden");
    for (code, text) in locker::cli::EXIT_CODES {
        assert!(body.contains(&format!("| {code} | {text} |")), "exit code {code}");
    }
    assert!(body.contains("--json"));
}

#[test]
fn test_skill_passes_the_agent_skills_validator() {
    let Some(validator) = crate::mcp::client("npm/node_modules/.bin/skills-ref") else { return };
    let env = TestEnv::new();
    let dir = env.path().join("skills").join("locker");
    std::fs::create_dir_all(&dir).unwrap();
    let out = env.locker().arg("skill").output().unwrap();
    std::fs::write(dir.join("SKILL.md"), &out.stdout).unwrap();
    let node_bin = validator.parent().unwrap().to_path_buf();
    let path = std::env::join_paths(
        std::iter::once(node_bin)
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    let out = Command::new(&validator)
        .arg("validate")
        .arg(&dir)
        .env("PATH", path)
        .output()
        .expect("skills-ref runs");
    assert!(
        out.status.success(),
        "skills-ref validate: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
