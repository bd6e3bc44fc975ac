//! Tampering with a PostgreSQL store behind locker's back (only with `LOCKER_TEST_STORE`):
//! `locker verify` finds every kind of damage there too, and names it. (The SQLite tamper
//! tests speak SQLite's dialect to its file; these are their counterparts.)

use serde_json::Value;

use crate::common::{on_postgres, TestEnv};

/// A repository with a pad, an artifact, a lease, a ticket and a token, and its clean verdict.
fn fixture() -> Option<(TestEnv, String)> {
    if !on_postgres() {
        return None;
    }
    let env = TestEnv::init();
    let pad = env.pad_with_envelope(&[]);
    env.append(&pad, "{\"status\":\"done\"}");
    env.json(&["artifact", "publish", "report", "--expect", "0", "--op", "op-1", "--data", "v1"]);
    env.json(&["lease", "acquire", "job", "--holder", "w"]);
    env.json(&["token", "create", "--agent", "agent-a", "--scope", "default"]);
    let (code, v) = env.verify();
    assert_eq!(code, 0, "{v}");
    Some((env, pad.id))
}

fn sql(env: &TestEnv, statements: &str) {
    let url = env.pg.as_deref().expect("a PostgreSQL repository");
    let mut c = postgres::Client::connect(url, postgres::NoTls).expect("connects");
    c.batch_execute(statements).expect("the tampering statement runs");
}

/// `locker verify` exits 1 and names a problem of `kind` whose subject or detail contains
/// `needle`.
fn broken(env: &TestEnv, kind: &str, needle: &str) -> Value {
    let (code, report) = env.verify();
    assert_eq!(code, 1, "verify must fail: {report}");
    assert_eq!(report["ok"], false);
    assert!(report["first_broken"][kind]["subject"].is_string(), "{kind}: {report:#}");
    assert!(report["problems"].to_string().contains(needle), "{needle:?} not in {report:#}");
    report
}

#[test]
fn test_postgres_verify_finds_an_altered_block_payload() {
    let Some((env, pad)) = fixture() else { return };
    sql(
        &env,
        &format!("UPDATE blocks SET payload = 'forged'::BYTEA WHERE pad_id = '{pad}' AND seq = 1"),
    );
    broken(&env, "pad", &pad);
    let out = env.run(&["verify", &pad]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn test_postgres_verify_finds_altered_journal_bytes_and_a_cut_tail() {
    let Some((env, _)) = fixture() else { return };
    let before = env.snapshot();
    sql(&env, "UPDATE journal SET entry = entry || ' '::BYTEA WHERE seq = 3");
    assert_ne!(env.snapshot(), before, "the snapshot sees the change");
    broken(&env, "journal", "entry 3 has been altered");
    sql(
        &env,
        "UPDATE journal SET entry = substring(entry FROM 1 FOR length(entry) - 1) WHERE seq = 3",
    );
    let (code, v) = env.verify();
    assert_eq!(code, 0, "restored: {v}");
    // The tail entry deleted and the head moved back to the one before it.
    sql(
        &env,
        "DELETE FROM journal WHERE seq = (SELECT MAX(seq) FROM journal); \
         UPDATE journal_head SET seq = j.seq, hash = j.hash FROM \
         (SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1) j WHERE id = 1",
    );
    let (code, v) = env.verify();
    assert_eq!(code, 1, "a lost journal entry is found: {v}");
}

#[test]
fn test_postgres_verify_finds_an_altered_blob_and_artifact_head() {
    let Some((env, _)) = fixture() else { return };
    sql(&env, "UPDATE blobs SET data = 'v2'::BYTEA");
    broken(&env, "blob", "blob:");
    let e = env.json_err(&["artifact", "get", "report"], 8);
    assert!(e.to_string().contains("blob"), "{e}");
}

#[test]
fn test_postgres_verify_finds_a_forged_lease_ticket_and_token() {
    let Some((env, _)) = fixture() else { return };
    sql(&env, "UPDATE leases SET holder = 'mallory'");
    let (code, v) = env.verify();
    assert_eq!(code, 1, "{v}");
    assert!(v["problems"].to_string().contains("mallory"), "{v:#}");
    sql(&env, "UPDATE leases SET holder = 'w'; UPDATE tickets SET revoked_at = 5");
    broken(&env, "ticket", "ticket:");
    sql(&env, "UPDATE tickets SET revoked_at = NULL; UPDATE agents SET scope = 'other'");
    broken(&env, "token", "agent-a");
}

/// What PostgreSQL holds of the journal and of each pad in `pads`: the number of `pad.append`
/// entries, and each pad's block count and stored blocks.
fn stored(env: &TestEnv, pads: &[&str]) -> (i64, Vec<(i64, i64)>) {
    let url = env.pg.as_deref().expect("a PostgreSQL repository");
    let mut c = postgres::Client::connect(url, postgres::NoTls).expect("connects");
    let journal: i64 = c
        .query_one("SELECT COUNT(*) FROM journal WHERE kind = 'pad.append'", &[])
        .expect("count")
        .get(0);
    let pads = pads
        .iter()
        .map(|p| {
            let row = c
                .query_one(
                    "SELECT block_count, (SELECT COUNT(*) FROM blocks WHERE pad_id = $1) \
                     FROM pads WHERE id = $1",
                    &[p],
                )
                .expect("the pad's row");
            (row.get(0), row.get(1))
        })
        .collect();
    (journal, pads)
}

/// An append's block and journal entry reach PostgreSQL after its checks, in the round trip
/// that ends its transaction (or its savepoint in a group): a block row planted behind
/// locker's back where the next append goes makes that append fail there, as its own error,
/// and keeps nothing of it; on its own (the CLI) and among other requests of `locker serve`'s
/// group commits, which are kept whole.
#[test]
fn test_postgres_an_append_failing_at_its_commit_fails_alone_and_keeps_nothing() {
    if !on_postgres() {
        return;
    }
    let env = TestEnv::init();
    let victim = env.pad_with_envelope(&["--max-blocks", "64"]);
    let good: Vec<_> = (0..3).map(|_| env.pad_with_envelope(&["--max-blocks", "64"])).collect();
    sql(
        &env,
        &format!(
            "INSERT INTO blocks (pad_id, seq, prev_hash, curr_hash, content_type, payload, \
             created_at, pruned_bytes) SELECT pad_id, 1, prev_hash, curr_hash, content_type, \
             payload, created_at, pruned_bytes FROM blocks WHERE pad_id = '{}' AND seq = 0",
            victim.id
        ),
    );
    let ids: Vec<&str> =
        std::iter::once(victim.id.as_str()).chain(good.iter().map(|p| p.id.as_str())).collect();
    let (journal, pads) = stored(&env, &ids);
    assert_eq!(pads[0], (1, 2), "the planted row is there, the pad's count is not moved");

    // On its own: the CLI's transaction.
    let out = env.run(&["append", &victim.id, "--key", &victim.key, "--data", "x"]);
    assert_ne!(out.status.code(), Some(0), "the append fails");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("duplicate key"), "the failure is named: {err}");
    assert_eq!(stored(&env, &ids), (journal, pads.clone()), "nothing of it is kept");

    // Among others: appends to the good pads and to the victim at once, through one server.
    let server = env.serve(&[]);
    let addr = server.addr;
    let statuses: Vec<(usize, u16)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|t| {
                let pad = if t % 2 == 0 { &victim } else { &good[(t / 2) % 3] };
                s.spawn(move || {
                    (0..6)
                        .map(|n| {
                            let (status, v) = crate::common::server::append_block(
                                addr,
                                &pad.id,
                                &pad.key,
                                &format!("client {t} append {n}"),
                            );
                            if t % 2 == 0 {
                                // The server does not show a stranger its storage's words.
                                assert_eq!(v["error"], "internal", "{v}");
                            }
                            (t, status)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("a client")).collect()
    });
    for (t, status) in &statuses {
        let want = if t % 2 == 0 { 500 } else { 201 };
        assert_eq!(*status, want, "client {t}");
    }
    // The group sends its writes ahead: each group holding one of the 24 failing appends
    // failed whole at first and ran again, waiting for each write.
    let reruns = server.metric("locker_commit_group_reruns_total");
    assert!((1.0..=24.0).contains(&reruns), "{reruns} groups ran again");
    drop(server);
    let (journal_after, pads_after) = stored(&env, &ids);
    assert_eq!(journal_after, journal + 24, "one entry per acknowledged append, and no other");
    assert_eq!(pads_after[0], pads[0], "nothing of the failed appends is kept");
    let per_pad: Vec<i64> = pads_after[1..]
        .iter()
        .map(|(count, rows)| {
            assert_eq!(count, rows, "each good pad's count is its rows");
            *count
        })
        .collect();
    // Clients 1, 3, 5, 7 append 6 blocks each to good pads 0, 1, 2, 0 (block 0 is the envelope).
    assert_eq!(per_pad, vec![13, 7, 7]);
}

/// `locker serve` keeps the pads it wrote from one write transaction to the next while no one
/// else writes; a pad's row changed behind its back (sealed here, with no journal entry) makes
/// the next append's statement refuse itself, which undoes its group, and the group runs
/// again on rows read afresh: the append sees the pad sealed and keeps nothing.
#[test]
fn test_postgres_a_pad_changed_behind_the_servers_back_is_not_appended_to() {
    if !on_postgres() {
        return;
    }
    let env = TestEnv::init();
    let pad = env.pad_with_envelope(&["--max-blocks", "64"]);
    let server = env.serve(&[]);
    let append = |n: u32| {
        crate::common::server::append_block(server.addr, &pad.id, &pad.key, &format!("n{n}"))
    };
    for n in 0..3 {
        assert_eq!(append(n).0, 201);
    }
    let ids = [pad.id.as_str()];
    let before = stored(&env, &ids);
    sql(&env, &format!("UPDATE pads SET state = 'sealed' WHERE id = '{}'", pad.id));
    let reruns = || server.metric("locker_commit_group_reruns_total");
    assert_eq!(reruns(), 0.0);
    for n in 3..5 {
        let (status, v) = append(n);
        assert_eq!(status, 409, "the append sees the pad sealed: {v}");
        assert_eq!(v["detail"], "pad is sealed", "{v}");
        assert_eq!(stored(&env, &ids), before, "nothing of it is kept");
    }
    // The first ran on the kept row and was undone; the second read the row afresh.
    assert_eq!(reruns(), 1.0, "one group ran again");

    // Through MCP the same: the tool's call runs again, from its own arguments.
    let other = env.pad_with_envelope(&["--max-blocks", "64"]);
    let (status, v) =
        crate::common::server::append_block(server.addr, &other.id, &other.key, "kept");
    assert_eq!(status, 201, "{v}");
    let ids = [other.id.as_str()];
    let before = stored(&env, &ids);
    sql(&env, &format!("UPDATE pads SET state = 'sealed' WHERE id = '{}'", other.id));
    let result = server.mcp_call(
        "locker_append",
        serde_json::json!({"pad_id": other.id, "write_key": other.key, "payload": "late"}),
    );
    assert_eq!(result["isError"], true, "{result}");
    let text = result["content"][0]["text"].as_str().expect("the error's JSON");
    let e: serde_json::Value = serde_json::from_str(text).expect("JSON");
    assert_eq!(e["detail"], "pad is sealed", "{e}");
    assert_eq!(stored(&env, &ids), before, "nothing of it is kept");
    assert_eq!(reruns(), 2.0, "its group ran again");
}
