//! `locker doctor`: checks the repository and its surroundings, changes nothing, and exits 1
//! only when a finding is a problem.

use std::os::unix::fs::PermissionsExt as _;

use serde_json::Value;

use crate::common::{TestEnv, NOW};

/// Runs `locker --json doctor ARGS` with extra environment; returns the exit code and report.
fn doctor(env: &TestEnv, args: &[&str], vars: &[(&str, &str)]) -> (i32, Value) {
    let mut cmd = env.locker();
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = cmd.arg("--json").arg("doctor").args(args).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("doctor printed no JSON ({e}): {}", String::from_utf8_lossy(&out.stderr))
    });
    (out.status.code().unwrap(), v)
}

/// The findings of one check.
fn findings(v: &Value, check: &str) -> Vec<Value> {
    v["findings"].as_array().unwrap().iter().filter(|f| f["check"] == check).cloned().collect()
}

fn status(v: &Value, check: &str) -> Vec<String> {
    findings(v, check).iter().map(|f| f["status"].as_str().unwrap().to_owned()).collect()
}

#[test]
fn test_doctor_a_healthy_repository_has_no_problems() {
    let env = TestEnv::init();
    env.pad_with_envelope(&[]);
    let before = env.snapshot();
    let (code, v) = doctor(&env, &[], &[]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["ok"], true);
    assert_eq!(v["problems"], 0);
    for check in ["repository", "config", "modes", "schema", "token"] {
        assert_eq!(status(&v, check), ["ok"], "{check}: {v}");
    }
    // Each store's own checks: SQLite's write-ahead log; PostgreSQL's server (#22).
    let own: &[&str] = if crate::common::on_postgres() {
        &["postgres", "replication", "connections", "lock"]
    } else {
        &["wal"]
    };
    for check in own {
        assert_eq!(status(&v, check), ["ok"], "{check}: {v}");
    }
    let absent = if crate::common::on_postgres() { "wal" } else { "postgres" };
    assert!(findings(&v, absent).is_empty(), "{v}");
    // The suite pretends a disk with room to spare (LOCKER_DISK_SPACE), and doctor says so.
    assert_eq!(status(&v, "disk"), ["ok"], "{v}");
    let detail = findings(&v, "disk")[0]["detail"].as_str().unwrap().to_owned();
    assert!(
        detail.starts_with("102400.0 MiB free of 204800.0 MiB where .locker/ is")
            && detail.ends_with(", as LOCKER_DISK_SPACE pretends"),
        "{detail}"
    );
    // The tests pin the clock with LOCKER_NOW, which doctor points out; the clock itself is
    // not behind the journal.
    assert_eq!(status(&v, "clock"), ["warn", "ok"], "{v}");
    assert_eq!(v["warnings"], 1);
    assert_eq!(env.snapshot(), before);
    // The human form: one line per finding, then the verdict.
    let out = env.locker().arg("doctor").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let kind = if crate::common::on_postgres() { "postgres" } else { "sqlite" };
    assert!(text.contains(&format!("ok       schema     {kind} schema version")), "{text}");
    assert!(text.ends_with("no problems (1 warning(s))\n"), "{text}");
}

#[test]
fn test_doctor_reads_the_free_space_of_the_repositorys_file_system() {
    let env = TestEnv::init();
    let mut cmd = env.locker();
    let out = cmd.env_remove("LOCKER_DISK_SPACE").args(["--json", "doctor"]).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let disk = &findings(&v, "disk")[0];
    let detail = disk["detail"].as_str().unwrap();
    // The size is df's, to the byte; the free space moves with whatever else runs.
    let (total, free) = crate::common::df(env.path());
    let mib = |n: u64| format!("{:.1} MiB", n as f64 / (1024.0 * 1024.0));
    assert!(detail.contains(&format!(" free of {} where .locker/ is", mib(total))), "{detail}");
    assert!(!detail.contains("pretends"), "{detail}");
    let shown: f64 = detail.split(' ').next().unwrap().parse().unwrap();
    let wanted = free as f64 / (1024.0 * 1024.0);
    assert!((shown - wanted).abs() <= wanted * 0.05 + 64.0, "{detail} against df's {wanted}");
    // Whatever this machine's disk is, the verdict follows the documented thresholds.
    let percent = free as f64 * 100.0 / total as f64;
    let expected = if percent < 3.0 || free < 100 << 20 {
        "problem"
    } else if percent < 5.0 || free < 1 << 30 {
        "warn"
    } else {
        "ok"
    };
    let near = [3.0, 5.0].iter().any(|t| (percent - t).abs() < 0.05);
    assert!(near || disk["status"] == expected, "{percent:.2}% free: {v}");
}

#[test]
fn test_doctor_warns_of_a_disk_running_low_and_fails_on_a_nearly_full_one() {
    let env = TestEnv::init();
    const GIB: u64 = 1 << 30;
    let space = |free: u64, total: u64| format!("{free}/{total}");
    // 4% of a large disk free: running low, still no problem (exit 0).
    let (code, v) = doctor(&env, &[], &[("LOCKER_DISK_SPACE", &space(4 * GIB, 100 * GIB))]);
    assert_eq!((code, status(&v, "disk")), (0, vec!["warn".to_owned()]), "{v}");
    let f = &findings(&v, "disk")[0];
    assert!(f["detail"].as_str().unwrap().contains("running low"), "{v}");
    assert!(f["fix"].as_str().unwrap().contains("locker gc"), "{v}");
    // Half a small disk free, but under 1 GiB: running low too.
    let (code, v) = doctor(&env, &[], &[("LOCKER_DISK_SPACE", &space(GIB - 1, 2 * GIB))]);
    assert_eq!((code, status(&v, "disk")), (0, vec!["warn".to_owned()]), "{v}");
    // 2% free, or under 100 MiB: writes may fail (exit 1).
    for (free, total) in [(2 * GIB, 100 * GIB), ((100 << 20) - 1, 200 << 20)] {
        let (code, v) = doctor(&env, &[], &[("LOCKER_DISK_SPACE", &space(free, total))]);
        assert_eq!((code, status(&v, "disk")), (1, vec!["problem".to_owned()]), "{v}");
        assert!(findings(&v, "disk")[0]["detail"].as_str().unwrap().contains("may fail"));
    }
    // A malformed value is a usage error (exit 2) that names it, as a malformed LOCKER_NOW
    // is, for every command: never a silently real reading, nor a server without its disk
    // figures. Nothing is changed.
    let before = env.snapshot();
    for bad in ["plenty", "5/4", "1G/2G", ""] {
        for args in [&["--json", "doctor"][..], &["--json", "serve", "--listen", "127.0.0.1:0"]] {
            let out = env.locker().env("LOCKER_DISK_SPACE", bad).args(args).output().unwrap();
            assert_eq!(out.status.code(), Some(2), "{args:?} with {bad:?}");
            let e: Value = serde_json::from_slice(&out.stderr).unwrap();
            assert_eq!(e["error"], "usage", "{e}");
            let detail = e["detail"].as_str().unwrap();
            assert!(detail.contains("LOCKER_DISK_SPACE must be FREE/TOTAL"), "{detail}");
            assert!(detail.contains(&format!("`{bad}`")), "{detail}");
            assert!(out.stdout.is_empty());
        }
    }
    assert_eq!(env.snapshot(), before);
}

#[test]
fn test_doctor_names_open_modes_symlinks_and_leftovers() {
    if crate::common::sqlite_only("reads or tampers with the SQLite files directly") {
        return;
    }
    let env = TestEnv::init();
    let dot = env.path().join(".locker");
    std::fs::set_permissions(dot.join("config.json"), std::fs::Permissions::from_mode(0o644))
        .unwrap();
    std::os::unix::fs::symlink("/etc/hostname", dot.join("objects/link")).unwrap();
    std::fs::create_dir(env.path().join(".locker.replaced-1-abc")).unwrap();
    let before = env.snapshot();
    let (code, v) = doctor(&env, &[], &[]);
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["ok"], false);
    let modes = &findings(&v, "modes")[0];
    assert_eq!(modes["status"], "problem");
    assert!(modes["detail"].as_str().unwrap().contains(".locker/config.json (0644)"), "{modes}");
    assert_eq!(
        modes["fix"],
        format!("chmod -R go-rwx '{}'", dot.display()),
        "the fix is a command to run"
    );
    let links = &findings(&v, "symlinks")[0];
    assert_eq!(links["status"], "problem");
    assert!(links["detail"].as_str().unwrap().contains(".locker/objects/link"), "{links}");
    assert_eq!(status(&v, "leftovers"), ["warn"]);
    assert_eq!(v["problems"], 2);
    // Nothing was changed: the mode is still wrong, the link still there.
    assert_eq!(env.snapshot(), before);
    let mode = std::fs::metadata(dot.join("config.json")).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o644);
    // Following the advice fixes it.
    std::fs::remove_file(dot.join("objects/link")).unwrap();
    let fix = std::process::Command::new("sh")
        .arg("-c")
        .arg(modes["fix"].as_str().unwrap())
        .status()
        .unwrap();
    assert!(fix.success());
    let (code, v) = doctor(&env, &[], &[]);
    assert_eq!(code, 0, "{v}");
}

#[test]
fn test_doctor_finds_a_clock_behind_the_journal() {
    let env = TestEnv::init();
    env.pad_with_envelope(&[]);
    let (code, v) = doctor(&env, &[], &[("LOCKER_NOW", &(NOW - 3600).to_string())]);
    assert_eq!(code, 1, "{v}");
    let clock = findings(&v, "clock");
    let behind = clock.iter().find(|f| f["status"] == "problem").unwrap();
    assert!(behind["detail"].as_str().unwrap().contains("is 3600 s behind"), "{behind}");
    assert!(behind["fix"].as_str().unwrap().contains("NTP"));
}

#[test]
fn test_doctor_reports_the_schema_without_migrating() {
    if crate::common::sqlite_only("reads or tampers with the SQLite files directly") {
        return;
    }
    let env = TestEnv::init();
    let version = |env: &TestEnv| -> i64 {
        env.sql().query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap()
    };
    let current = version(&env);
    // Newer than this binary: a problem, and the fix is to upgrade.
    env.sql().execute_batch(&format!("PRAGMA user_version = {}", current + 1)).unwrap();
    let (code, v) = doctor(&env, &[], &[]);
    assert_eq!(code, 1, "{v}");
    let schema = &findings(&v, "schema")[0];
    assert_eq!(schema["status"], "problem");
    assert!(schema["fix"].as_str().unwrap().contains("Upgrade locker"));
    assert_eq!(version(&env), current + 1);
    // Older: a warning (the next command upgrades it); doctor itself does not.
    env.sql().execute_batch(&format!("PRAGMA user_version = {}", current - 1)).unwrap();
    let (code, v) = doctor(&env, &[], &[]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(status(&v, "schema"), ["warn"]);
    assert!(findings(&v, "schema")[0]["fix"].as_str().unwrap().contains("locker backup"));
    assert_eq!(version(&env), current - 1, "doctor must not migrate");
    env.sql().execute_batch(&format!("PRAGMA user_version = {current}")).unwrap();
}

#[test]
fn test_doctor_checks_locker_token() {
    let env = TestEnv::init();
    let token = env.json(&["--scope", "team", "token", "create", "--agent", "w1"])["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let (code, v) = doctor(&env, &[], &[("LOCKER_TOKEN", &token)]);
    assert_eq!(code, 0, "{v}");
    let t = &findings(&v, "token")[0];
    assert_eq!(t["status"], "ok");
    assert!(t["detail"].as_str().unwrap().contains("agent w1 in scope team"), "{t}");

    let (code, v) = doctor(&env, &[], &[("LOCKER_TOKEN", "not-a-token")]);
    assert_eq!(code, 1, "{v}");
    let t = &findings(&v, "token")[0];
    assert_eq!(t["status"], "problem");
    assert!(t["detail"].as_str().unwrap().contains("unknown token"), "{t}");

    env.json(&["token", "revoke", "--agent", "w1", "--yes"]);
    let (code, v) = doctor(&env, &[], &[("LOCKER_TOKEN", &token)]);
    assert_eq!(code, 1, "{v}");
    assert!(findings(&v, "token")[0]["detail"].as_str().unwrap().contains("revoked"), "{v}");
}

#[test]
fn test_doctor_without_a_repository() {
    let env = TestEnv::new();
    let (code, v) = doctor(&env, &[], &[]);
    assert_eq!(code, 1, "{v}");
    let r = &findings(&v, "repository")[0];
    assert_eq!(r["status"], "problem");
    assert!(r["fix"].as_str().unwrap().contains("locker init"));
    assert_eq!(v["repository"], Value::Null);
    // Pointed at a server only, a missing local repository is fine, but the server must answer.
    let (code, v) = doctor(&env, &[], &[("LOCKER_URL", "http://127.0.0.1:9")]);
    assert_eq!(code, 1, "{v}");
    assert_eq!(status(&v, "repository"), ["skipped"]);
    let s = &findings(&v, "server")[0];
    assert_eq!(s["status"], "problem");
    assert!(s["detail"].as_str().unwrap().contains("cannot reach"), "{s}");
    assert!(s["fix"].as_str().unwrap().contains("locker serve"));
}

#[test]
fn test_doctor_reaches_a_running_server() {
    let env = TestEnv::init();
    let server = env.serve(&[]);
    let url = server.url();
    let (code, v) = doctor(&env, &["--remote", &url], &[]);
    assert_eq!(code, 0, "{v}");
    let s = &findings(&v, "server")[0];
    assert_eq!(s["status"], "ok", "{v}");
    assert!(s["detail"].as_str().unwrap().contains("status ok"), "{s}");
    let (code, _) = server.stop();
    assert_eq!(code, Some(0));
}

/// `serve --init` (what the container runs) creates the repository on first start and uses
/// the existing one afterwards.
#[test]
fn test_serve_init_creates_the_repository_once() {
    let env = TestEnv::new();
    let data = env.path().join("data");
    let first = env.serve(&["--init", "-R", data.to_str().unwrap()]);
    let (code, log) = first.stop();
    assert_eq!(code, Some(0), "{log}");
    assert!(log.contains("locker: created the repository"), "{log}");
    let id = env.json(&["-R", data.to_str().unwrap(), "verify"]);
    assert_eq!(id["ok"], true);
    let config = std::fs::read(data.join(".locker/config.json")).unwrap();
    let second = env.serve(&["--init", "-R", data.to_str().unwrap()]);
    let (code, log) = second.stop();
    assert_eq!(code, Some(0), "{log}");
    assert!(!log.contains("created the repository"), "{log}");
    assert_eq!(std::fs::read(data.join(".locker/config.json")).unwrap(), config);
    // Without --init, a missing repository is still an error.
    let e = env.json_err(&["-R", env.path().join("none").to_str().unwrap(), "serve"], 3);
    assert_eq!(e["error"], "no_repository");
}

/// See: #22. On PostgreSQL, doctor names who holds the journal's lock (every write waits for
/// it), from the server's own view.
#[test]
fn test_doctor_on_postgres_names_the_journal_lock_holder() {
    let Some(admin) = crate::common::pg_admin_url() else { return };
    let env = TestEnv::init();
    assert_eq!(env.json(&["status"])["backend"], "postgres");
    let store = std::fs::read_to_string(env.path().join(".locker/config.json")).unwrap();
    let store: Value = serde_json::from_str(&store).unwrap();
    let db_url = store["store"].as_str().unwrap_or(&admin).to_owned();
    // The same lock key held in another database of the cluster (another repository's
    // journal) is not this one's.
    let mut other = postgres::Client::connect(&admin, postgres::NoTls).unwrap();
    let mut other_tx = other.transaction().unwrap();
    other_tx.batch_execute("SELECT pg_advisory_xact_lock(7813573191425739340)").unwrap();
    let (_, v) = doctor(&env, &[], &[]);
    assert_eq!(findings(&v, "lock")[0]["detail"], "the journal's lock is free", "{v}");
    other_tx.rollback().unwrap();
    let mut holder = postgres::Client::connect(
        &format!("{db_url}?application_name=stuck-holder"),
        postgres::NoTls,
    )
    .unwrap();
    let mut tx = holder.transaction().unwrap();
    // The journal's lock key (src/store/postgres/mod.rs, JOURNAL_LOCK).
    tx.batch_execute("SELECT pg_advisory_xact_lock(7813573191425739340)").unwrap();
    let (_, v) = doctor(&env, &[], &[]);
    let lock = findings(&v, "lock");
    assert_eq!(lock.len(), 1, "{v}");
    assert!(lock[0]["detail"].as_str().unwrap().contains("`stuck-holder`"), "{v}");
    tx.rollback().unwrap();
    let (_, v) = doctor(&env, &[], &[]);
    assert_eq!(findings(&v, "lock")[0]["detail"], "the journal's lock is free", "{v}");
}
