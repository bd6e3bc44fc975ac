//! See: #22 (5). A write refused as it begins because the journal's lock is busy past the
//! database's `lock_timeout` ran nothing, so it is begun again (a bounded number of times);
//! held longer than that, it is `busy` (exit 8) with nothing changed. The database's own
//! `lock_timeout` is the one that counts: locker sets its 60 s only where none is set.

use std::time::Duration;

use crate::common::{on_postgres, TestEnv};

/// The journal's lock key (src/store/postgres/mod.rs, JOURNAL_LOCK).
const JOURNAL_LOCK: &str = "7813573191425739340";

#[test]
fn test_a_write_kept_waiting_past_lock_timeout_is_begun_again_then_busy() {
    if !on_postgres() {
        return;
    }
    let env = TestEnv::init();
    let url = env.pg.clone().unwrap();
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let db: String = admin.query_one("SELECT current_database()", &[]).unwrap().get(0);
    admin.batch_execute(&format!("ALTER DATABASE \"{db}\" SET lock_timeout = '40ms'")).unwrap();

    // Held for 150 ms: the first attempts time out, a later one gets the lock.
    let mut holder = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    holder.batch_execute(&format!("BEGIN; SELECT pg_advisory_xact_lock({JOURNAL_LOCK})")).unwrap();
    let release = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(150));
        holder.batch_execute("COMMIT").unwrap();
        holder
    });
    let pad = env.json(&["pad", "create"]);
    assert!(pad["pad_id"].is_string(), "{pad}");
    let mut holder = release.join().unwrap();

    // Held past every retry (about 0.6 s of pauses): busy, and nothing was written.
    holder.batch_execute(&format!("BEGIN; SELECT pg_advisory_xact_lock({JOURNAL_LOCK})")).unwrap();
    let before = env.snapshot();
    let started = std::time::Instant::now();
    let e = env.json_err(&["pad", "create"], 8);
    assert_eq!(e["error"], "busy", "{e}");
    // The database's 40 ms, not locker's own 60 s default, bounded each attempt.
    assert!(started.elapsed() < Duration::from_secs(30), "{:?}", started.elapsed());
    holder.batch_execute("COMMIT").unwrap();
    assert_eq!(env.snapshot(), before);
    let (code, v) = env.verify();
    assert_eq!(code, 0, "{v}");
}
