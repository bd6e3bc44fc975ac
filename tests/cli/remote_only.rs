//! Commands with no remote form refuse `--remote`/`LOCKER_URL` (exit 2, naming the command)
//! instead of acting on a local repository, whether or not one is there.

use serde_json::Value;

use crate::common::TestEnv;

/// Every command that works on a local repository only, as a user would type it.
fn local_only(env: &TestEnv) -> Vec<(&'static str, Vec<String>)> {
    let bundle = env.file("pad.bundle", b"not a bundle");
    let dest = env.path().join("backup-here").display().to_string();
    let copy = env.path().join("copy-here").display().to_string();
    let key = env.path().join("agent.key").display().to_string();
    let s = |v: &[&str]| v.iter().map(|a| (*a).to_owned()).collect::<Vec<_>>();
    vec![
        ("locker token list", s(&["token", "list"])),
        ("locker token create", s(&["--scope", "demo", "token", "create", "--agent", "w"])),
        ("locker token revoke", s(&["token", "revoke", "--agent", "w"])),
        ("locker gc", s(&["gc", "--dry-run"])),
        ("locker status", s(&["status"])),
        ("locker backup", vec!["backup".into(), dest]),
        ("locker restore", vec!["restore".into(), env.path().display().to_string()]),
        ("locker store copy", vec!["store".into(), "copy".into(), "--to".into(), copy]),
        ("locker key require", s(&["key", "require"])),
        ("locker key revoke", s(&["key", "revoke", "--agent", "w"])),
        (
            "locker key generate",
            vec![
                "key".into(),
                "generate".into(),
                "--agent".into(),
                "w".into(),
                "--out".into(),
                key,
            ],
        ),
        ("locker init", s(&["init"])),
        ("locker pad import", vec!["pad".into(), "import".into(), bundle]),
        ("locker checkpoint", s(&["checkpoint", "--witness", "http://127.0.0.1:9"])),
    ]
}

fn refused(env: &TestEnv, url: &str, args: &[String]) -> Value {
    let out =
        env.locker().env("LOCKER_URL", url).arg("--json").args(args).output().expect("locker runs");
    assert_eq!(out.status.code(), Some(2), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout.is_empty(), "{args:?} printed a result");
    serde_json::from_slice(&out.stderr).expect("one JSON error")
}

#[test]
fn test_remote_local_only_commands_refuse_a_server_without_a_local_repository() {
    let server_env = TestEnv::init();
    let server = server_env.serve(&[]);
    let before = server_env.snapshot();
    let here = TestEnv::new();
    for (name, args) in local_only(&here) {
        let e = refused(&here, &server.url(), &args);
        assert_eq!(e["error"], "usage", "{name}: {e}");
        let detail = e["detail"].as_str().expect("a detail");
        assert!(detail.contains(&format!("`{name}`")), "{name}: {detail}");
        assert!(detail.contains("no remote form"), "{name}: {detail}");
        assert!(!detail.contains("no locker repository"), "{name}: {detail}");
        assert!(e["hints"][0].as_str().is_some_and(|h| h.contains("LOCKER_URL")), "{name}: {e}");
        assert!(!here.path().join(".locker").exists(), "{name} created a repository");
        assert!(!here.path().join("backup-here").exists(), "{name} made a backup");
        assert!(!here.path().join("copy-here").exists(), "{name} made a copy");
        assert!(!here.path().join("agent.key").exists(), "{name} wrote a private key");
    }
    // The flag spelling is refused the same way.
    let out = here
        .locker()
        .args(["--json", "--remote", &server.url(), "token", "list"])
        .output()
        .expect("locker runs");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(server_env.snapshot(), before, "the server's repository changed");
}

#[test]
fn test_remote_local_only_commands_never_act_on_the_local_repository_instead() {
    let server_env = TestEnv::init();
    let server = server_env.serve(&[]);
    let here = TestEnv::init();
    here.json(&["--scope", "demo", "token", "create", "--agent", "w"]);
    let before = here.snapshot();
    for args in [vec!["token", "list"], vec!["token", "revoke", "--agent", "w"], vec!["gc"]] {
        let args: Vec<String> = args.into_iter().map(str::to_owned).collect();
        let e = refused(&here, &server.url(), &args);
        assert_eq!(e["error"], "usage", "{args:?}: {e}");
    }
    assert_eq!(here.snapshot(), before, "a refused command changed the local repository");
    // Without the server named, the same commands work here.
    let agents = here.json(&["token", "list"]);
    assert_eq!(agents["agents"].as_array().map(Vec::len), Some(1), "{agents}");
}

#[test]
fn test_remote_commands_with_a_remote_form_use_the_server() {
    let server_env = TestEnv::init();
    let server = server_env.serve(&[]);
    let here = TestEnv::new();
    let out = here
        .locker()
        .env("LOCKER_URL", server.url())
        .args(["--json", "pad", "create"])
        .output()
        .expect("locker runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let created: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let id = created["pad_id"].as_str().expect("a pad id");
    // The pad is the server's, and nothing was created here.
    assert!(!here.path().join(".locker").exists());
    let listed = server_env.json(&["pad", "list"]);
    assert!(listed["pads"].as_array().expect("pads").iter().any(|p| p["pad_id"] == id));
}
