//! See: #22 (3). Failover: a primary and a streaming standby on loopback (pg_basebackup,
//! synchronous replication so that an acknowledged write is on both), two `locker serve` on a
//! URL naming both hosts with `target_session_attrs=read-write`. Writes go through both
//! servers; the standby is promoted and the primary stopped; the same servers, never
//! restarted, write again on the new primary. Every acknowledged write is there, in one chain
//! with no fork, and the repository verifies.

use serde_json::Value;

use crate::common::cluster::Cluster;
use crate::common::server::append_block;
use crate::common::{on_postgres, TestEnv, ENVELOPE};

#[test]
fn test_postgres_failover_to_a_promoted_standby_loses_no_acknowledged_write() {
    if on_postgres() {
        return; // Runs once, on its own clusters, in the SQLite pass.
    }
    let Some(primary) = Cluster::start("") else { return };
    let standby = primary.standby();
    // Synchronous replication: a commit is acknowledged once the standby has it.
    let mut admin = primary.client();
    admin.batch_execute("ALTER SYSTEM SET synchronous_standby_names = '*'").unwrap();
    admin.batch_execute("SELECT pg_reload_conf()").unwrap();
    let url = format!(
        "postgres://postgres@{},{}/postgres?target_session_attrs=read-write",
        primary.host_port(),
        standby.host_port()
    );
    let env = TestEnv::new();
    env.locker().args(["init", "--store", &url]).assert().success();
    // doctor sees the synchronous standby (#22).
    let doctor = env.json(&["doctor"]);
    let replication = doctor["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["check"] == "replication")
        .cloned()
        .unwrap();
    assert_eq!(replication["detail"], "a primary with 1 standby(s), 1 synchronous", "{doctor}");
    let servers = [env.serve(&[]), env.serve(&[])];
    let pad = servers[0].curl_json("/v1/pads", &["-X", "POST", "-d", r#"{"max_blocks":64}"#], 201);
    let (id, key) = (pad["pad_id"].as_str().unwrap(), pad["write_key"].as_str().unwrap());
    let mut acked = Vec::new();
    for i in 0..6 {
        let (status, v) = append_block(servers[i % 2].addr, id, key, ENVELOPE);
        assert_eq!(status, 201, "{v}");
        acked.push(v["curr_hash"].as_str().unwrap().to_owned());
    }

    standby.run("promote");
    primary.run("down");
    let mut recovery = standby.client();
    let in_recovery: bool = recovery.query_one("SELECT pg_is_in_recovery()", &[]).unwrap().get(0);
    assert!(!in_recovery, "the standby is the primary now");

    for i in 0..6 {
        let (status, v) = append_block(servers[i % 2].addr, id, key, ENVELOPE);
        assert_eq!(status, 201, "server {} writes on the new primary: {v}", i % 2);
        acked.push(v["curr_hash"].as_str().unwrap().to_owned());
    }
    for s in servers {
        let (code, log) = s.stop();
        assert_eq!(code, Some(0));
        assert!(!log.contains(" 500 "), "no request was answered 500: {log}");
    }

    // On the new primary: every acknowledged block, in one chain, and a verified repository.
    let stored: Vec<String> = env.stored_blocks(id, key).into_iter().map(|(_, _, h)| h).collect();
    assert_eq!(stored, acked);
    let (code, v) = env.verify();
    assert_eq!((code, &v["ok"]), (0, &Value::Bool(true)), "{v}");
}
