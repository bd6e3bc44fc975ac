//! See: #22 (5). On PostgreSQL the journal's times are the database server's clock, not each
//! host's: a cluster whose clock runs three hours ahead (libfaketime in the server's
//! environment) gets journal entries three hours ahead of this host's clock, from `init` on,
//! through the CLI and through `locker serve`. Runs once, in the SQLite pass.

use std::path::Path;

use serde_json::Value;

use crate::common::cluster::Cluster;
use crate::common::{on_postgres, TestEnv};

/// libfaketime, as Debian installs it (package `faketime`).
const FAKETIME: &str = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1";
const AHEAD: i64 = 3 * 3600;

fn unix_now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64
}

#[test]
fn test_postgres_journal_times_are_the_database_servers_clock() {
    if on_postgres() {
        return;
    }
    if !Path::new(FAKETIME).exists() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI installs libfaketime (apt-get install faketime)"
        );
        if std::env::var("LOCKER_SKIP_INTEROP").is_ok_and(|v| v == "1") {
            return;
        }
        panic!("libfaketime is missing: `apt-get install faketime`, or LOCKER_SKIP_INTEROP=1");
    }
    let env_words = format!("LD_PRELOAD={FAKETIME} FAKETIME=+{AHEAD}s");
    let Some(cluster) = Cluster::start_env("", &env_words) else { return };
    let server_now: i64 = cluster
        .client()
        .query_one("SELECT EXTRACT(EPOCH FROM clock_timestamp())::bigint", &[])
        .unwrap()
        .get(0);
    assert!((server_now - unix_now() - AHEAD).abs() < 30, "the server's clock is ahead");

    let env = TestEnv::new();
    // This host's real clock: no LOCKER_NOW.
    let run = |args: &[&str]| {
        let out = env.locker().env_remove("LOCKER_NOW").args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {out:?}");
        out.stdout
    };
    run(&["init", "--store", &cluster.url]);
    run(&["pad", "create"]);
    // `locker serve` on the real clock journals in the server's clock too.
    let s = env.serve_with(&[], &[("LOCKER_NOW", "")]);
    s.curl_json("/v1/pads", &["-X", "POST", "-d", "{}"], 201);
    drop(s);
    let log = run(&["log", "--json", "--reverse"]);
    let entries: Vec<Value> =
        String::from_utf8(log).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let kinds: Vec<&str> = entries.iter().filter_map(|e| e["kind"].as_str()).collect();
    assert!(kinds.iter().filter(|k| **k == "pad.create").count() >= 2, "{kinds:?}");
    assert!(kinds.contains(&"repo.init"), "{kinds:?}");
    let host = unix_now();
    for e in &entries {
        let t = e["time"].as_i64().unwrap();
        assert!((t - host - AHEAD).abs() < 60, "{} at {t}, host {host}: {e}", e["kind"]);
    }
}
