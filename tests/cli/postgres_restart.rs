//! See: #22 (1). A running `locker serve` on PostgreSQL survives a database restart and an
//! outage without being restarted itself: the first request after a restart runs on a fresh
//! connection (its transaction had not begun, so it is retried once), requests while the
//! database is down get 503 `database_unavailable` with a hint (the CLI exit 8), never 500,
//! `/health` says so, and once the database is back the same server writes again. Every
//! acknowledged write is there afterwards and the journal verifies.
//!
//! The test runs its own throwaway cluster (scripts/pg-cluster.sh), since it restarts it; it
//! runs once, in the SQLite pass of the suite.

use serde_json::Value;

use crate::common::cluster::Cluster;
use crate::common::server::append_block;
use crate::common::{on_postgres, TestEnv, ENVELOPE};

#[test]
fn test_postgres_serve_survives_a_database_restart_and_an_outage() {
    if on_postgres() {
        return; // Runs once, on its own cluster, in the SQLite pass.
    }
    let Some(cluster) = Cluster::start("") else { return };
    let env = TestEnv::new();
    env.locker().args(["init", "--store", &cluster.url]).assert().success();
    let s = env.serve(&[]);
    let pad = s.curl_json("/v1/pads", &["-X", "POST", "-d", r#"{"max_blocks":64}"#], 201);
    let (id, key) = (pad["pad_id"].as_str().unwrap(), pad["write_key"].as_str().unwrap());
    let mut acked = Vec::new();
    for _ in 0..3 {
        let (status, v) = append_block(s.addr, id, key, ENVELOPE);
        assert_eq!(status, 201, "{v}");
        acked.push(v["curr_hash"].as_str().unwrap().to_owned());
    }
    s.curl_json("/v1/pads", &[], 200);

    // A restart cuts every connection: the next requests, reads and writes, are answered.
    cluster.run("restart");
    for _ in 0..3 {
        let (status, v) = append_block(s.addr, id, key, ENVELOPE);
        assert_eq!(status, 201, "the first writes after a restart succeed: {v}");
        acked.push(v["curr_hash"].as_str().unwrap().to_owned());
    }
    for _ in 0..6 {
        // More reads than the pool holds connections: each stale one is replaced.
        s.curl_json("/v1/pads", &[], 200);
    }
    let h = s.curl_json("/health", &[], 200);
    assert_eq!(h["database"]["writable"], true, "{h}");

    // Down: 503 with a hint, never 500; /health says so; the CLI exits 8.
    cluster.run("down");
    let (status, e) = append_block(s.addr, id, key, ENVELOPE);
    assert_eq!(status, 503, "{e}");
    assert_eq!(e["error"], "database_unavailable", "{e}");
    assert_eq!(e["retry"], true, "{e}");
    assert!(e["hints"][0].as_str().unwrap().contains("connects again on its own"), "{e}");
    let (code, body) = s.curl("/v1/pads", &[]);
    assert_eq!(code, 503, "{body}");
    let (code, body) = s.curl("/health", &[]);
    assert_eq!(code, 503, "{body}");
    let h: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(h["status"], "unavailable");
    assert_eq!(h["database"]["writable"], false);
    let out = env.locker().args(["--json", "pad", "list"]).output().unwrap();
    assert_eq!(out.status.code(), Some(8), "{out:?}");
    let e: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(e["error"], "database_unavailable", "{e}");

    // Back: the same server writes again, without a restart.
    cluster.run("up");
    let (status, v) = append_block(s.addr, id, key, ENVELOPE);
    assert_eq!(status, 201, "writes resume once the database is back: {v}");
    acked.push(v["curr_hash"].as_str().unwrap().to_owned());
    let reconnects = s.metric("locker_store_reconnects_total");
    assert!(reconnects >= 2.0, "{reconnects}");
    let (_, log) = s.stop();
    assert!(log.contains("the PostgreSQL connection was lost"), "{log}");
    assert!(!log.contains(" 500 "), "no request was answered 500: {log}");

    // Every acknowledged write is there, in order, and the repository verifies.
    let stored: Vec<String> = env.stored_blocks(id, key).into_iter().map(|(_, _, h)| h).collect();
    assert_eq!(stored, acked);
    assert_eq!(env.json(&["verify"])["ok"], true);
}
