//! `locker store copy`: a repository moved between stores keeps every chain and hash.

use serde_json::Value;

use crate::common::{create_database, drop_database, on_postgres, TestEnv};

/// A repository with a bit of everything: pads, an artifact, a lease with a plan and a step.
fn populated() -> TestEnv {
    let mut env = TestEnv::new();
    // Always a SQLite source: PostgreSQL destinations are made by the test.
    env.locker().arg("init").assert().success();
    let pad = env.pad_with_envelope(&[]);
    env.append(&pad, "{\"status\":\"done\"}");
    env.json(&["pad", "seal", &pad.id, "--key", &pad.key]);
    env.json(&["artifact", "publish", "report", "--expect", "0", "--op", "op-1", "--data", "v1"]);
    let big = "x".repeat(100_000);
    env.json(&["artifact", "publish", "report", "--expect", "1", "--op", "op-2", "--data", &big]);
    env.json(&["lease", "acquire", "job", "--holder", "w"]);
    env.json(&["token", "create", "--agent", "agent-a", "--scope", "default"]);
    env.pg = None;
    env
}

fn head(v: &Value) -> (Value, Value) {
    (v["journal"]["head_seq"].clone(), v["journal"]["head_hash"].clone())
}

#[test]
fn test_store_copy_to_a_new_directory_keeps_every_hash() {
    let src = populated();
    let before = src.json(&["verify"]);
    let dest = src.path().join("copy");
    let dest_s = dest.to_str().unwrap();
    let out = src.json(&["store", "copy", "--to", dest_s]);
    assert_eq!(out["verified"], true, "{out}");
    assert_eq!((&out["rows"]["pads"], &out["rows"]["blobs"]), (&1.into(), &2.into()), "{out}");
    let copied = src.json(&["-R", dest_s, "verify"]);
    assert_eq!(copied["ok"], true, "{copied}");
    assert_eq!(head(&copied), head(&before));
    let log = |args: &[&str]| src.locker().args(args).output().unwrap().stdout;
    assert_eq!(log(&["-R", dest_s, "log", "--json"]), log(&["log", "--json"]));
    // A second copy into the same place is refused and changes nothing.
    let e = src.json_err(&["store", "copy", "--to", dest_s], 4);
    assert_eq!(e["error"], "destination_not_empty", "{e}");
}

#[test]
#[allow(clippy::print_stderr)]
fn test_store_copy_sqlite_to_postgres_and_back() {
    if !on_postgres() {
        eprintln!("skipped: needs LOCKER_TEST_STORE (scripts/test-postgres.sh)");
        return;
    }
    let src = populated();
    let before = src.json(&["verify"]);
    let url = create_database().unwrap();
    let out = src.json(&["store", "copy", "--to", &url]);
    assert_eq!(out["verified"], true, "{out}");
    // Another directory joins the copied repository and sees the same journal.
    let mut joined = TestEnv::new();
    joined.pg = Some(url.clone());
    let j = joined.json(&["init", "--store", &url]);
    assert_eq!(j["repository_id"], out["repository_id"], "{j}");
    assert_eq!((&j["created"], &j["joined"]), (&true.into(), &true.into()), "{j}");
    // As the README says: every host signs with the one log key, copied from the first (the
    // checkpoints every write signs are signed by it; #22 makes this one signer by design).
    let key = |env: &TestEnv| env.path().join(".locker/keys/log.key");
    std::fs::copy(key(&src), key(&joined)).unwrap();
    let v = joined.json(&["verify"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(head(&v), head(&before));
    let got = joined.json(&["artifact", "get", "report"]);
    assert_eq!(got["version"], 2);
    // Copying into it again is refused: it holds a repository.
    let e = src.json_err(&["store", "copy", "--to", &url], 4);
    assert_eq!(e["error"], "destination_not_empty", "{e}");
    // And back from PostgreSQL to a SQLite directory.
    let back = joined.path().join("back");
    let back_s = back.to_str().unwrap();
    joined.json(&["store", "copy", "--to", back_s]);
    let b = joined.json(&["-R", back_s, "verify"]);
    assert_eq!(b["ok"], true, "{b}");
    assert_eq!(head(&b), head(&before));
    drop(joined);
    drop_database(&url);
}

#[test]
fn test_store_backup_of_a_postgres_store_is_refused_and_makes_nothing() {
    let env = TestEnv::init();
    if !on_postgres() {
        return;
    }
    let dest = env.path().join("bak");
    let before = env.snapshot();
    let e = env.json_err(&["backup", dest.to_str().unwrap()], 2);
    assert_eq!(e["error"], "unsupported_store", "{e}");
    assert!(e["detail"].as_str().unwrap().contains("locker store copy --to DIR"), "{e}");
    assert!(!dest.exists());
    assert_eq!(env.snapshot(), before);
}

#[test]
fn test_init_store_refuses_a_password_in_the_url_and_keeps_only_the_password_file_path() {
    let env = TestEnv::new();
    let e = env.json_err(&["init", "--store", "postgres://u:hunter2@127.0.0.1:1/db"], 2);
    assert_eq!(e["error"], "usage", "{e}");
    assert!(!e.to_string().contains("hunter2"), "{e}");
    assert!(!env.path().join(".locker").exists());
    let out = env.run(&["init", "--store-password-file", "pw"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--store"));
    if let Some(url) = create_database() {
        // The cluster trusts loopback, so any password does; what matters is where it goes.
        let pw = env.file("pw", b"s3cret-pw\n");
        let out =
            env.locker().args(["init", "--store", &url, "--store-password-file", &pw]).output();
        let out = out.unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let cfg = std::fs::read_to_string(env.path().join(".locker/config.json")).unwrap();
        assert!(cfg.contains("store_password_file") && !cfg.contains("s3cret"), "{cfg}");
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!all.contains("s3cret"), "{all}");
        assert_eq!(env.json(&["verify"])["ok"], true);
        // Without the file the repository cannot be opened, and says why.
        std::fs::remove_file(&pw).unwrap();
        let e = env.json_err(&["verify"], 8);
        assert!(e["detail"].as_str().unwrap().contains("password file"), "{e}");
        drop_database(&url);
    }
}
