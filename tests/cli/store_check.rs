//! See: #22 (6). `locker store check URL` runs the conformance checks against a database a
//! user points at, in a throwaway schema it drops afterwards, and fails a database whose
//! settings would lose acknowledged writes. Runs once, on its own cluster, in the SQLite pass.

use serde_json::Value;

use crate::common::cluster::Cluster;
use crate::common::{on_postgres, TestEnv};

fn check(env: &TestEnv, url: &str) -> (Option<i32>, Value) {
    let out = env.locker().args(["--json", "store", "check", url]).output().unwrap();
    let v = serde_json::from_slice(&out.stdout)
        .or_else(|_| serde_json::from_slice(&out.stderr))
        .unwrap_or_else(|e| panic!("no JSON ({e}): {out:?}"));
    (out.status.code(), v)
}

fn status(v: &Value, name: &str) -> String {
    let c = v["checks"].as_array().unwrap().iter().find(|c| c["name"] == name);
    c.map(|c| c["status"].as_str().unwrap().to_owned()).unwrap_or_else(|| panic!("{name}: {v}"))
}

#[test]
fn test_store_check_passes_a_durable_database_and_leaves_nothing_behind() {
    if on_postgres() {
        return;
    }
    let Some(cluster) = Cluster::start("-c fsync=on") else { return };
    let env = TestEnv::new();
    let (code, v) = check(&env, &cluster.url);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["ok"], true);
    for name in [
        "repository",
        "chain",
        "concurrency",
        "compare-and-swap",
        "verify",
        "durability",
        "cleanup",
    ] {
        assert_eq!(status(&v, name), "ok", "{name}: {v}");
    }
    let schema = v["schema"].as_str().unwrap().to_owned();
    assert!(schema.starts_with("locker_check_"), "{v}");
    let mut db = cluster.client();
    let left: i64 = db
        .query_one("SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'locker_check_%'", &[])
        .unwrap()
        .get(0);
    assert_eq!(left, 0, "the throwaway schema is gone");
    let tables: i64 = db
        .query_one("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'", &[])
        .unwrap()
        .get(0);
    assert_eq!(tables, 0, "nothing was made outside it");
    assert!(!env.path().join(".locker").exists(), "no repository is made here");

    // A server that does not fsync (the suite's clusters, made for speed) loses acknowledged
    // writes in a crash: refused.
    drop(cluster);
    let Some(cluster) = Cluster::start("") else { return };
    let (code, v) = check(&env, &cluster.url);
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(v["ok"], false);
    assert_eq!(status(&v, "durability"), "fail", "{v}");
    assert_eq!(status(&v, "cleanup"), "ok", "{v}");
    let out = env.locker().args(["store", "check", &cluster.url]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("FAIL   durability       PostgreSQL"), "{text}");
    assert!(text.ends_with("cannot hold a repository as it is\n"), "{text}");
}

#[test]
fn test_store_check_refuses_what_is_not_a_reachable_database() {
    let env = TestEnv::new();
    let (code, v) = check(&env, "sqlite:locker.db");
    assert_eq!(code, Some(2), "{v}");
    assert!(v["detail"].as_str().unwrap().contains("postgres://"), "{v}");
    let gone = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = gone.local_addr().unwrap().port();
    drop(gone);
    let (code, v) = check(&env, &format!("postgres://postgres@127.0.0.1:{port}/postgres"));
    assert_eq!(code, Some(8), "{v}");
    assert_eq!(v["error"], "database_unavailable", "{v}");
}
