//! `locker verify`'s walk: what is read beside it, and what it reports either way.

use super::*;
use crate::domain::limits::PadLimits;
use crate::domain::secret::Secret;
use crate::ops::{pad, Actor, FixedClock, NoProgress};
use crate::repo::Repo;

const CLOCK: FixedClock = FixedClock(1_800_000_000);
const ENVELOPE: &[u8] = br#"{"schema":"locker.handoff.v1","task_id":"t","from_agent":"a","to_agent":"b","constraints":[],"artifacts":[],"budget_usd":null}"#;

/// A repository with two pads of a few blocks each.
fn repo() -> (tempfile::TempDir, Repo) {
    repo_of(3)
}

/// A repository with two pads of `blocks` blocks each.
fn repo_of(blocks: u32) -> (tempfile::TempDir, Repo) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (_, mut repo) = crate::ops::admin::init::init(dir.path(), &CLOCK).expect("init");
    let mut ctx = Ctx::new(repo.store.as_mut(), Actor::operator(), &CLOCK);
    for _ in 0..2 {
        let limits = PadLimits::new(86_400, 4096).unwrap();
        let created = pad::create(&mut ctx, limits).unwrap();
        let key = Secret::new(created.write_key.clone());
        for i in 0..blocks {
            let body = if i == 0 { ENVELOPE.to_vec() } else { format!("block {i}").into_bytes() };
            pad::append(&mut ctx, &created.pad_id, Some(&key), &body, None).unwrap();
        }
    }
    (dir, repo)
}

#[test]
fn the_reader_beside_reads_the_same_snapshot_or_nothing() {
    let (_dir, mut repo) = repo();
    let (head, counts) = {
        let tx = repo.store.read().unwrap();
        (tx.journal_head().unwrap(), tx.counts().unwrap())
    };
    let walked = AtomicU64::new(0);
    let walk = |tx: &dyn crate::store::Tx| chains::walk_chains(tx, &walked);
    // At the same snapshot: every pad's chain.
    let chains = read_beside(repo.store.parallel_reader().unwrap(), head, counts, walk)
        .expect("the same snapshot is read beside");
    assert_eq!(chains.len(), 2);
    assert_eq!(walked.load(Ordering::Relaxed), counts.blocks);
    // The journal grew after the first connection's snapshot: nothing is read beside
    // (the caller reads it all itself).
    let mut ctx = Ctx::new(repo.store.as_mut(), Actor::operator(), &CLOCK);
    pad::create(&mut ctx, PadLimits::new(86_400, 64).unwrap()).unwrap();
    let reader = repo.store.parallel_reader().unwrap();
    assert!(read_beside(reader, head, counts, merkle::StoredTree::read).is_none());
}

#[test]
fn verify_beside_and_alone_give_the_same_report() {
    let (_dir, mut repo) = repo();
    let mut ctx = Ctx::new(repo.store.as_mut(), Actor::operator(), &CLOCK);
    let beside = repository(&mut ctx, None, &NoProgress).unwrap();
    assert!(beside.ok, "{:?}", beside.problems);
    // A group's store has no second connection: everything is read on the one.
    let mut group = repo.store.group().unwrap();
    assert!(group.store().parallel_reader().is_none());
    let mut ctx = Ctx::new(group.store(), Actor::operator(), &CLOCK);
    let alone = repository(&mut ctx, None, &NoProgress).unwrap();
    assert_eq!(serde_json::to_value(&beside).unwrap(), serde_json::to_value(&alone).unwrap());
}

#[test]
fn the_tree_read_with_the_journal_is_the_tree_read_apart() {
    let (dir, mut repo) = repo();
    let db = rusqlite::Connection::open(dir.path().join(".locker/locker.db")).unwrap();
    // Intact; a hash changed; a torn column; a column emptied.
    let tampering = [
        None,
        Some("UPDATE journal SET merkle = randomblob(length(merkle)) WHERE seq = 3"),
        Some("UPDATE journal SET merkle = substr(merkle, 1, 40) WHERE seq = 4"),
        Some("UPDATE journal SET merkle = NULL WHERE seq = 5"),
    ];
    for sql in tampering {
        if let Some(sql) = sql {
            assert_eq!(db.execute(sql, []).unwrap(), 1, "{sql}");
        }
        let tx = repo.store.read().unwrap();
        let (mut walk, _) = merkle::TreeWalk::start(tx.as_ref(), None).unwrap();
        let held = tx
            .for_each_journal_with_tree(&mut |row, hashes| {
                walk.push_held(row.seq, hashes);
                Flow::Continue(())
            })
            .unwrap();
        assert!(held, "SQLite keeps the tree in the journal's rows");
        assert_eq!(walk.take_held(), merkle::StoredTree::read(tx.as_ref()).unwrap(), "{sql:?}");
    }
    let mut ctx = Ctx::new(repo.store.as_mut(), Actor::operator(), &CLOCK);
    let report = repository(&mut ctx, None, &NoProgress).unwrap();
    assert!(!report.merkle.ok);
    assert!(report.first_broken["merkle"].detail.contains("journal entry 3"), "{report:?}");
    // A column that is not a blob: the store is damaged, read either way.
    db.execute("UPDATE journal SET merkle = 'text' WHERE seq = 2", []).unwrap();
    let tx = repo.store.read().unwrap();
    assert!(tx.for_each_journal_with_tree(&mut |_, _| Flow::Continue(())).is_err());
    assert!(merkle::StoredTree::read(tx.as_ref()).is_err());
}

#[test]
fn every_payload_pruned_behind_the_journals_back_is_counted_beside_and_alone() {
    let (dir, mut repo) = repo_of(150);
    // 150 blocks of one pad lose their payloads with no gc in the journal: more than a
    // report lists, every one of them counted.
    let db = rusqlite::Connection::open(dir.path().join(".locker/locker.db")).unwrap();
    let pad: String = db.query_row("SELECT id FROM pads LIMIT 1", [], |r| r.get(0)).unwrap();
    let n = db
        .execute(
            "UPDATE blocks SET pruned_bytes = length(payload), payload = X'' \
             WHERE pad_id = ?1",
            [&pad],
        )
        .unwrap();
    assert_eq!(n, 150);
    drop(db);
    let mut ctx = Ctx::new(repo.store.as_mut(), Actor::operator(), &CLOCK);
    let beside = repository(&mut ctx, None, &NoProgress).unwrap();
    assert!(!beside.ok);
    assert_eq!(beside.problem_count, 150, "{:?}", beside.problems.first());
    assert_eq!(beside.problems.len(), MAX_LISTED_PROBLEMS);
    assert!(beside.problems.iter().all(|p| p.detail.contains("records no gc")));
    assert_eq!(beside.problems[99].seq, Some(99));
    let mut group = repo.store.group().unwrap();
    let mut ctx = Ctx::new(group.store(), Actor::operator(), &CLOCK);
    let alone = repository(&mut ctx, None, &NoProgress).unwrap();
    assert_eq!(serde_json::to_value(&beside).unwrap(), serde_json::to_value(&alone).unwrap());
}
