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
