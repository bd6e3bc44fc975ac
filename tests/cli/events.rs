//! The golden journal (`tests/fixtures/golden/`, made by `tests/fixtures/make-golden.sh` with
//! the binary from before the typed events): every stored entry decodes into its typed event
//! and re-encodes to the very bytes that were hashed, every kind is among them, and the
//! repository verifies. The fixture is a contract: it is never regenerated to make a change
//! pass.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use locker::domain::digest::Digest;
use locker::domain::event::{kind, Event};
use locker::domain::journal::{self, Entry};

use crate::common::TestEnv;

/// Kinds no entry of the fixture has, each with the reason: kinds added after it was made (a
/// kind only older releases wrote would be listed here too). Their bodies are covered by the
/// vectors in `src/domain/event/tests.rs` and by the tests that write them.
const NOT_IN_FIXTURE: &[(&str, &str)] = &[(
    "repo.rollback",
    "added after the fixture: `locker checkpoint --accept-rollback` (tests/cli/rollback.rs)",
)];

fn golden() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/golden")
}

/// The stored entries, one a line, exactly as hashed.
fn lines() -> Vec<Vec<u8>> {
    let bytes = std::fs::read(golden().join("journal.jsonl")).expect("journal.jsonl");
    assert!(bytes.ends_with(b"\n"), "journal.jsonl ends with a newline");
    bytes[..bytes.len() - 1].split(|b| *b == b'\n').map(<[u8]>::to_vec).collect()
}

#[test]
fn test_golden_journal_round_trips_through_typed_events() {
    let lines = lines();
    assert!(lines.len() > 50, "the fixture holds {} entries", lines.len());
    let mut kinds = BTreeSet::new();
    for (i, line) in lines.iter().enumerate() {
        let text = String::from_utf8_lossy(line);
        let e = Entry::decode(line).unwrap_or_else(|err| panic!("line {}: {err}: {text}", i + 1));
        assert_eq!(e.seq, i as u64 + 1, "entries are in sequence");
        let ev = e.event().unwrap_or_else(|err| panic!("entry {}: {err}: {text}", e.seq));
        // Kind, subject and body all come from the typed event.
        let again = Entry {
            kind: ev.kind().to_owned(),
            subject: ev.subject(),
            body: ev.body(),
            ..e.clone()
        };
        assert_eq!(
            String::from_utf8_lossy(&again.encode()),
            text,
            "entry {} ({}) re-encodes byte for byte",
            e.seq,
            e.kind
        );
        // And decoding the re-encoded body gives the same event.
        assert_eq!(Event::decode(&e.kind, &again.body).unwrap(), ev);
        kinds.insert(ev.kind());
    }
    for k in kind::ALL {
        let excepted = NOT_IN_FIXTURE.iter().any(|(x, _)| x == k);
        assert!(kinds.contains(k) || excepted, "no `{k}` entry in the golden fixture");
        assert!(!(kinds.contains(k) && excepted), "`{k}` is in the fixture: unlist it");
    }
}

/// Copies a directory tree.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let dest = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &dest);
        } else {
            std::fs::copy(entry.path(), &dest).unwrap();
        }
    }
}

/// A copy of the golden fixture's repository (`None` on PostgreSQL: it is a SQLite one).
fn golden_copy() -> Option<TestEnv> {
    if crate::common::sqlite_only("the golden fixture is a SQLite repository") {
        return None;
    }
    let env = TestEnv::new();
    copy_dir(&golden().join(".locker"), &env.path().join(".locker"));
    Some(env)
}

#[test]
fn test_verify_golden_fixture_is_intact() {
    let Some(env) = golden_copy() else { return };

    // journal.jsonl is the database's journal, byte for byte, and every link holds.
    let lines = lines();
    let conn = rusqlite::Connection::open(env.db_path()).unwrap();
    let mut stmt =
        conn.prepare("SELECT seq, prev_hash, hash, entry FROM journal ORDER BY seq").unwrap();
    let rows: Vec<(i64, String, String, Vec<u8>)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(rows.len(), lines.len());
    let mut prev = Digest::ZERO;
    for ((seq, prev_hash, hash, entry), line) in rows.iter().zip(&lines) {
        assert_eq!(entry, line, "entry {seq} of journal.jsonl is the stored one");
        assert_eq!(prev_hash, &prev.to_hex());
        prev = journal::link(&prev, entry);
        assert_eq!(hash, &prev.to_hex(), "entry {seq} is hashed as stored");
    }
    drop(stmt);
    drop(conn);

    let (code, v) = env.verify();
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(v["ok"], true);
    assert_eq!(v["journal"]["entries"], lines.len() as u64);
    assert_eq!(v["problem_count"], 0);
}

/// The golden fixture is a schema-8 repository: the first open by this locker moves its Merkle
/// hashes into the journal rows and drops the head row (schema 10), leaves `pad.append`
/// entries out of the journal's subject index (schema 11), stores each pad's blocks in a range
/// of their own (schema 12) and the chains' hashes as bytes (schema 13); the result verifies
/// with the same tree and head, and answers a query by subject with every entry about it.
#[test]
fn test_golden_fixture_migrates_to_the_append_layout() {
    let Some(env) = golden_copy() else { return };
    let db = env.db_path();
    assert_eq!(int(&db, "PRAGMA user_version"), 8);
    assert_eq!(int(&db, SUBJECT_INDEX), 0);
    let job_entries = int(&db, "SELECT COUNT(*) FROM journal WHERE subject = 'work:job'");
    assert!(job_entries > 1);
    let hashes = int(&db, "SELECT COUNT(*) FROM merkle_hashes");
    assert!(hashes > 0);
    let head: String = rusqlite::Connection::open(&db)
        .unwrap()
        .query_row("SELECT hash FROM journal_head", [], |r| r.get(0))
        .unwrap();
    let pads_before = strings(
        &db,
        "SELECT id || ' ' || block_count || ' ' || current_bytes || ' ' || head_hash \
         FROM pads ORDER BY id",
    );
    assert!(pads_before.len() > 1 && int(&db, "SELECT COUNT(*) FROM blocks") > 1);

    let (code, v) = env.verify();
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(v["merkle"]["ok"], true, "{v:#}");
    assert_eq!(v["merkle"]["pending"], false);
    assert_eq!(v["merkle"]["stored_hashes"], hashes, "every hash moved");
    assert_eq!(v["journal"]["head_hash"], head.as_str());
    assert_eq!(int(&db, "PRAGMA user_version"), 13);
    assert_eq!(int(&db, OLD_TABLES), 0);
    // Schema 12: every block at its pad's row `ord * 2^32 + seq`, and each pad's count, bytes
    // and head read from its last block are what its row held.
    assert_eq!(
        int(
            &db,
            "SELECT COUNT(*) FROM blocks b JOIN pads p ON p.id = b.pad_id \
             WHERE b.id <> p.ord * 4294967296 + b.seq"
        ),
        0
    );
    assert_eq!(
        int(&db, "SELECT COUNT(*) FROM pragma_table_info('pads') WHERE name = 'head_hash'"),
        0
    );
    let pads_after = strings(
        &db,
        "SELECT p.id || ' ' || COALESCE(b.seq + 1, 0) || ' ' || COALESCE(b.total_bytes, 0) \
         || ' ' || CASE WHEN b.curr_hash IS NULL THEN printf('%.64d', 0) \
         ELSE lower(hex(b.curr_hash)) END FROM pads p LEFT JOIN blocks b \
         ON b.pad_id = p.id AND b.seq = (SELECT MAX(seq) FROM blocks WHERE pad_id = p.id) \
         ORDER BY p.id",
    );
    assert_eq!(pads_after, pads_before);
    assert_eq!(int(&db, SUBJECT_INDEX), 1);
    assert_eq!(int(&db, "SELECT SUM(length(merkle)) FROM journal"), hashes * 32);
    // Schema 13: every hash of both chains is its 32 bytes, and each is the one it was.
    assert_eq!(
        int(
            &db,
            "SELECT COUNT(*) FROM journal WHERE typeof(prev_hash) <> 'blob' OR length(prev_hash) \
             <> 32 OR typeof(hash) <> 'blob' OR length(hash) <> 32"
        ),
        0
    );
    assert_eq!(
        int(
            &db,
            "SELECT COUNT(*) FROM blocks WHERE typeof(prev_hash) <> 'blob' OR length(prev_hash) \
             <> 32 OR typeof(curr_hash) <> 'blob' OR length(curr_hash) <> 32"
        ),
        0
    );
    let last: String = rusqlite::Connection::open(&db)
        .unwrap()
        .query_row("SELECT lower(hex(hash)) FROM journal ORDER BY seq DESC LIMIT 1", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(last, head, "the head is the same hash");

    let out = env.locker().args(["--json", "log", "--subject", "work:job", "-n", "100"]).output();
    let out = out.unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let subjects: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["subject"].to_string())
        .collect();
    assert_eq!(subjects.len() as i64, job_entries, "{subjects:?}");
    assert!(subjects.iter().all(|s| s == "\"work:job\""), "{subjects:?}");
}

/// Whether a database's journal subject index is schema 11's, without `pad.append` entries.
const SUBJECT_INDEX: &str = "SELECT COUNT(*) FROM sqlite_master WHERE name = 'journal_subject' \
                             AND instr(sql, 'WHERE kind <> ') > 0";

/// How many of schema 8's `merkle_hashes` and `journal_head` tables a database has.
const OLD_TABLES: &str =
    "SELECT COUNT(*) FROM sqlite_master WHERE name IN ('merkle_hashes', 'journal_head')";

/// The strings a query on the SQLite file `db` gives, a row each.
fn strings(db: &Path, sql: &str) -> Vec<String> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut stmt = conn.prepare(sql).unwrap();
    let rows = stmt.query_map([], |r| r.get(0)).unwrap();
    rows.map(Result::unwrap).collect()
}

/// One integer a query on the SQLite file `db` gives.
fn int(db: &Path, sql: &str) -> i64 {
    rusqlite::Connection::open(db).unwrap().query_row(sql, [], |r| r.get(0)).unwrap()
}

/// A schema-8 repository whose head row does not name its last entry was damaged before the
/// upgrade: the migration refuses it and changes nothing, so the old version's `verify` still
/// sees the evidence.
#[test]
fn test_a_damaged_old_repository_is_not_migrated() {
    let Some(env) = golden_copy() else { return };
    let db = env.db_path();
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute("DELETE FROM journal WHERE seq = (SELECT MAX(seq) FROM journal)", [])
        .unwrap();
    let before = std::fs::read(&db).unwrap();
    let e = env.json_err(&["verify"], 8);
    assert_eq!(e["error"], "internal", "{e}");
    let detail = e["detail"].as_str().unwrap();
    assert!(detail.contains("the journal head row names entry 60"), "{detail}");
    assert!(detail.contains("the journal ends at entry 59"), "{detail}");
    assert!(detail.contains("damaged before this upgrade, and nothing was changed"), "{detail}");
    assert_eq!(int(&db, "PRAGMA user_version"), 8, "nothing was migrated");
    assert_eq!(int(&db, OLD_TABLES), 2);
    assert_eq!(std::fs::read(&db).unwrap(), before, "the file is unchanged");
}

/// A schema-8 repository one of whose pads' rows disagrees with its blocks: moving the blocks
/// by pad (schema 12) would lose the row's account, so the migration refuses it and changes
/// nothing.
#[test]
fn test_an_old_repository_whose_pad_disagrees_with_its_blocks_is_not_migrated() {
    let Some(env) = golden_copy() else { return };
    let db = env.db_path();
    let pad: String = rusqlite::Connection::open(&db)
        .unwrap()
        .query_row("SELECT pad_id FROM blocks ORDER BY pad_id LIMIT 1", [], |r| r.get(0))
        .unwrap();
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute("UPDATE pads SET current_bytes = current_bytes + 1 WHERE id = ?1", [&pad])
        .unwrap();
    let before = std::fs::read(&db).unwrap();
    let e = env.json_err(&["verify"], 8);
    let detail = e["detail"].as_str().unwrap();
    assert!(detail.contains(&format!("pad {pad}'s row says")), "{detail}");
    assert!(detail.contains("nothing was changed"), "{detail}");
    assert_eq!(int(&db, "PRAGMA user_version"), 8, "nothing was migrated");
    assert_eq!(std::fs::read(&db).unwrap(), before, "the file is unchanged");
}
