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
