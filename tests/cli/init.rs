//! `locker init` and repository discovery (SPEC §2).

use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;

use serde_json::Value;

use crate::common::{TestEnv, NOW};

fn mode(p: &Path) -> u32 {
    std::fs::symlink_metadata(p).unwrap().permissions().mode() & 0o7777
}

fn journal_kinds(env: &TestEnv) -> Vec<String> {
    let conn = env.sql();
    let mut stmt = conn.prepare("SELECT kind FROM journal ORDER BY seq").unwrap();
    stmt.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
}

#[test]
fn test_init_creates_the_repository_with_restrictive_modes_and_config() {
    if crate::common::sqlite_only("reads or tampers with the SQLite files directly") {
        return;
    }
    let env = TestEnv::new();
    let out = env.json(&["init"]);
    let dot = env.path().join(".locker");
    assert_eq!(out["created"], true);
    assert_eq!(out["path"], dot.to_str().unwrap());
    assert_eq!(mode(&dot), 0o700);
    assert_eq!(mode(&dot.join("objects")), 0o700);
    assert_eq!(mode(&dot.join("config.json")), 0o600);
    assert_eq!(mode(&dot.join("locker.db")), 0o600);
    for entry in std::fs::read_dir(&dot).unwrap() {
        let p = entry.unwrap().path();
        let want = if p.is_dir() { 0o700 } else { 0o600 };
        assert_eq!(mode(&p), want, "{}", p.display());
    }
    let config: Value =
        serde_json::from_slice(&std::fs::read(dot.join("config.json")).unwrap()).unwrap();
    assert_eq!(config["format"], 1);
    assert_eq!(config["created_at"], NOW);
    assert_eq!(config["store"], "sqlite:locker.db");
    let id = config["repository_id"].as_str().unwrap();
    assert_eq!(id.len(), 32);
    assert!(id.bytes().all(|c| c.is_ascii_hexdigit()));
    assert_eq!(out["repository_id"], id);
    // No temporary directory is left beside it.
    let names: Vec<String> = std::fs::read_dir(env.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec![".locker".to_owned()]);
    // WAL mode with synchronous=FULL is what a writer gets; the first entry is repo.init.
    let conn = env.sql();
    let wal: String = conn.query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
    assert_eq!(wal, "wal");
    assert_eq!(journal_kinds(&env), vec!["repo.init"]);
    let (code, report) = env.verify();
    assert_eq!((code, report["ok"].clone()), (0, Value::Bool(true)));
}

#[test]
fn test_init_again_changes_nothing_and_says_so() {
    let env = TestEnv::init();
    let dot = env.path().join(".locker");
    let config = std::fs::read(dot.join("config.json")).unwrap();
    let before = env.snapshot();
    let out = env.locker().env("LOCKER_NOW", (NOW + 50).to_string()).arg("init").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("already exists"), "{text}");
    assert!(text.contains("nothing changed"), "{text}");
    let again = env.json(&["init"]);
    assert_eq!(again["created"], false);
    assert_eq!(std::fs::read(dot.join("config.json")).unwrap(), config);
    assert_eq!(env.snapshot(), before);
    assert_eq!(journal_kinds(&env), vec!["repo.init"]);
}

#[test]
fn test_init_path_argument_and_repo_flag_create_directories() {
    if crate::common::sqlite_only("reads or tampers with the SQLite files directly") {
        return;
    }
    let env = TestEnv::new();
    let out = env.json(&["init", "a/b/c"]);
    assert_eq!(out["created"], true);
    assert!(env.path().join("a/b/c/.locker/locker.db").is_file());
    let target = env.path().join("viaflag");
    env.json(&["-R", target.to_str().unwrap(), "init"]);
    assert!(target.join(".locker/config.json").is_file());
    let out = env.locker().env("LOCKER_DIR", env.path().join("viaenv")).args(["init"]).output();
    assert!(out.unwrap().status.success());
    assert!(env.path().join("viaenv/.locker/config.json").is_file());
}

#[test]
fn test_discovery_walks_up_from_a_subdirectory() {
    let env = TestEnv::init();
    let deep = env.path().join("x/y/z");
    std::fs::create_dir_all(&deep).unwrap();
    let out = env.locker().current_dir(&deep).args(["--json", "pad", "create"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!deep.join(".locker").exists());
    let pads = env.json(&["pad", "list"]);
    assert_eq!(pads["pads"].as_array().unwrap().len(), 1);
}

#[test]
fn test_discovery_with_repo_flag_and_locker_dir() {
    if crate::common::sqlite_only("reads or tampers with the SQLite files directly") {
        return;
    }
    let env = TestEnv::new();
    let a = env.path().join("a");
    let b = env.path().join("b");
    let elsewhere = env.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    env.json(&["init", "a"]);
    env.json(&["init", "b"]);
    let count = |dir: &Path| -> usize {
        let conn = rusqlite::Connection::open(dir.join(".locker/locker.db")).unwrap();
        conn.query_row("SELECT COUNT(*) FROM pads", [], |r| r.get::<_, i64>(0)).unwrap() as usize
    };
    // -R names the directory holding .locker/.
    let run = |args: &[&str], env_dir: Option<&Path>| {
        let mut cmd = env.locker();
        cmd.current_dir(&elsewhere);
        if let Some(d) = env_dir {
            cmd.env("LOCKER_DIR", d);
        }
        cmd.args(args).output().unwrap()
    };
    assert!(run(&["-R", a.to_str().unwrap(), "pad", "create"], None).status.success());
    assert_eq!((count(&a), count(&b)), (1, 0));
    // LOCKER_DIR likewise.
    assert!(run(&["pad", "create"], Some(&b)).status.success());
    assert_eq!((count(&a), count(&b)), (1, 1));
    // -R wins over LOCKER_DIR.
    assert!(run(&["--repo", a.to_str().unwrap(), "pad", "create"], Some(&b)).status.success());
    assert_eq!((count(&a), count(&b)), (2, 1));
    // -R names exactly one directory: its parents are not searched.
    let sub = a.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    let out = run(&["--json", "-R", sub.to_str().unwrap(), "pad", "list"], None);
    assert_eq!(out.status.code(), Some(3));
    let e: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(e["error"], "no_repository");
}

#[test]
fn test_no_repository_is_not_found_with_an_init_hint() {
    let env = TestEnv::new();
    for args in [&["pad", "list"][..], &["log"], &["verify"], &["pad", "show", "x"]] {
        let e = env.json_err(args, 3);
        assert_eq!(e["error"], "no_repository", "{args:?}");
        let hints = e["hints"].to_string();
        assert!(hints.contains("locker init"), "{hints}");
    }
    let out = env.locker().args(["pad", "list"]).output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(text.contains("no locker repository"), "{text}");
    assert!(text.contains("locker init"), "{text}");
    assert!(!env.path().join(".locker").exists(), "nothing was created");
}

#[test]
fn test_symlinked_dot_locker_is_refused() {
    if crate::common::sqlite_only("reads or tampers with the SQLite files directly") {
        return;
    }
    let env = TestEnv::new();
    env.json(&["init", "real"]);
    let linked = env.path().join("linked");
    std::fs::create_dir_all(&linked).unwrap();
    std::os::unix::fs::symlink(env.path().join("real/.locker"), linked.join(".locker")).unwrap();
    let real_db = env.path().join("real/.locker/locker.db");
    let before = std::fs::read(&real_db).unwrap();
    for args in [&["pad", "create"][..], &["init"], &["log"]] {
        let out = env.locker().current_dir(&linked).arg("--json").args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(5), "{args:?}");
        let e: Value = serde_json::from_slice(&out.stderr).unwrap();
        assert_eq!(e["error"], "symlink");
        assert!(e["detail"].as_str().unwrap().contains("symbolic link"), "{e}");
    }
    let out = env.locker().args(["--json", "-R", linked.to_str().unwrap(), "pad", "list"]).output();
    assert_eq!(out.unwrap().status.code(), Some(5));
    assert_eq!(std::fs::read(&real_db).unwrap(), before, "the real repository is untouched");
}

#[test]
fn test_symlinked_database_is_refused() {
    if crate::common::sqlite_only("reads or tampers with the SQLite files directly") {
        return;
    }
    let env = TestEnv::init();
    let dot = env.path().join(".locker");
    let moved = env.path().join("moved.db");
    std::fs::rename(dot.join("locker.db"), &moved).unwrap();
    std::os::unix::fs::symlink(&moved, dot.join("locker.db")).unwrap();
    let before = std::fs::read(&moved).unwrap();
    let e = env.json_err(&["pad", "create"], 5);
    assert_eq!(e["error"], "symlink");
    assert!(e["detail"].as_str().unwrap().contains("locker.db"), "{e}");
    assert_eq!(env.json_err(&["init"], 5)["error"], "symlink");
    assert_eq!(std::fs::read(&moved).unwrap(), before);
}

#[test]
fn test_a_schema_newer_than_the_binary_is_refused() {
    if crate::common::sqlite_only("reads or tampers with the SQLite files directly") {
        return;
    }
    let env = TestEnv::init();
    env.sql().execute_batch("PRAGMA user_version = 999").unwrap();
    let before = env.snapshot();
    for args in [&["pad", "create"][..], &["log"], &["verify"], &["init"]] {
        let e = env.json_err(args, 8);
        assert_eq!(e["error"], "schema_too_new", "{args:?}");
        let detail = e["detail"].as_str().unwrap();
        assert!(detail.contains("999") && detail.contains("newer"), "{detail}");
        assert!(detail.contains("upgrade locker"), "{detail}");
    }
    let version: i64 = env.sql().query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    assert_eq!(version, 999);
    assert_eq!(env.snapshot(), before);
}

#[test]
fn test_unknown_or_broken_config_is_refused() {
    if crate::common::sqlite_only("reads or tampers with the SQLite files directly") {
        return;
    }
    let env = TestEnv::init();
    let cfg = env.path().join(".locker/config.json");
    let original = std::fs::read_to_string(&cfg).unwrap();
    let before = env.snapshot();

    std::fs::write(&cfg, original.replace("\"format\": 1", "\"format\": 2")).unwrap();
    let e = env.json_err(&["pad", "create"], 8);
    assert_eq!(e["error"], "bad_repository");
    assert!(e["detail"].as_str().unwrap().contains("format 2 is newer"), "{e}");

    std::fs::write(&cfg, "not json").unwrap();
    let e = env.json_err(&["pad", "create"], 8);
    assert_eq!(e["error"], "bad_repository");
    assert!(e["detail"].as_str().unwrap().contains("config.json is malformed"), "{e}");

    std::fs::write(&cfg, original.replace("sqlite:locker.db", "mysql://x")).unwrap();
    let e = env.json_err(&["pad", "create"], 8);
    assert_eq!(e["error"], "bad_repository");
    assert!(e["detail"].as_str().unwrap().contains("unknown store"), "{e}");

    std::fs::write(&cfg, original.replace("sqlite:locker.db", "sqlite:../elsewhere.db")).unwrap();
    std::fs::write(env.path().join("elsewhere.db"), b"").unwrap();
    let e = env.json_err(&["pad", "create"], 8);
    assert_eq!(e["error"], "bad_repository", "{e}");
    assert!(e["detail"].as_str().unwrap().contains("must name a file inside .locker/"), "{e}");
    assert_eq!(std::fs::read(env.path().join("elsewhere.db")).unwrap(), b"");

    std::fs::remove_file(&cfg).unwrap();
    let e = env.json_err(&["pad", "create"], 8);
    assert_eq!(e["error"], "bad_repository");

    std::fs::write(&cfg, &original).unwrap();
    std::fs::set_permissions(&cfg, std::fs::Permissions::from_mode(0o600)).unwrap();
    assert_eq!(env.snapshot(), before);
    env.json(&["pad", "create"]);
}

#[test]
fn test_locker_now_must_be_integer_seconds() {
    let env = TestEnv::init();
    for bad in ["soon", "1.5", ""] {
        let out = env.locker().env("LOCKER_NOW", bad).args(["--json", "pad", "list"]).output();
        let out = out.unwrap();
        assert_eq!(out.status.code(), Some(2), "LOCKER_NOW={bad:?}");
        let e: Value = serde_json::from_slice(&out.stderr).unwrap();
        assert_eq!(e["error"], "usage");
        assert!(e["detail"].as_str().unwrap().contains("LOCKER_NOW"), "{e}");
    }
}
