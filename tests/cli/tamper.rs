//! Editing the database behind locker's back: `locker verify` exits 1 and names the item.

use std::sync::OnceLock;

use rusqlite::params;
use serde_json::Value;
use sha2::Digest as _;

use crate::common::{Pad, TestEnv, ENVELOPE, NOW};

/// Builds the fixture with the real binary.
fn build_fixture() -> Fixture {
    let env = TestEnv::init();
    let sealed = env.pad_with_envelope(&[]);
    for text in ["one", "two", "three"] {
        env.append(&sealed, text);
    }
    env.json(&["seal", &sealed.id, "--key", &sealed.key]);
    let open = env.pad_with_envelope(&[]);
    env.append(&open, "first");
    env.append(&open, "second");
    env.json(&["pad", "ticket", &open.id, "--key", &open.key]);
    env.json(&["pad", "read", &open.id, "--ticket", &open.ticket]);
    let t = env.json(&["pad", "ticket", &open.id, "--key", &open.key]);
    let revoked = t["ticket_id"].as_str().unwrap().to_owned();
    env.json(&["pad", "revoke-ticket", &open.id, &revoked, "--key", &open.key]);
    let (code, report) = env.verify();
    assert_eq!(code, 0, "the fixture is intact: {report}");
    assert_eq!(report["ok"], true);
    assert_eq!(report["problem_count"], 0);
    Fixture { env, sealed, open, revoked }
}

/// A repository with every kind of row: a sealed pad of 4 blocks, an open pad of 3 blocks, a
/// read_unlimited ticket, a read_once ticket whose lease is open, and a revoked ticket.
struct Fixture {
    env: TestEnv,
    sealed: Pad,
    open: Pad,
    /// The ticket id of a revoked ticket of `open`.
    revoked: String,
}

/// A copy of the fixture: it is built once per test run and copied for each test, which is
/// much faster than building it again with a dozen processes.
fn fixture() -> Fixture {
    if crate::common::on_postgres() {
        // Each test gets its own database: built afresh.
        return build_fixture();
    }
    type Template = (Vec<(std::ffi::OsString, Vec<u8>)>, [String; 7]);
    static TEMPLATE: OnceLock<Template> = OnceLock::new();
    let (files, s) = TEMPLATE.get_or_init(|| {
        let fx = build_fixture();
        let mut files = Vec::new();
        // The files of .locker/ and of its keys/ (the log key and its high-water mark).
        for sub in ["", "keys"] {
            for entry in std::fs::read_dir(fx.env.path().join(".locker").join(sub)).unwrap() {
                let entry = entry.unwrap();
                let name = std::path::Path::new(sub).join(entry.file_name()).into_os_string();
                if entry.file_type().unwrap().is_file() && !name.to_string_lossy().ends_with("-shm")
                {
                    files.push((name, std::fs::read(entry.path()).unwrap()));
                }
            }
        }
        let s = [
            fx.sealed.id,
            fx.sealed.key,
            fx.sealed.ticket,
            fx.open.id,
            fx.open.key,
            fx.open.ticket,
            fx.revoked,
        ];
        (files, s)
    });
    let env = TestEnv::new();
    let dot = env.path().join(".locker");
    std::fs::create_dir_all(dot.join(crate::common::OBJECTS)).unwrap();
    std::fs::create_dir_all(dot.join("keys")).unwrap();
    for (name, bytes) in files {
        std::fs::write(dot.join(name), bytes).unwrap();
    }
    let pad = |i: usize| Pad { id: s[i].clone(), key: s[i + 1].clone(), ticket: s[i + 2].clone() };
    Fixture { env, sealed: pad(0), open: pad(3), revoked: s[6].clone() }
}

fn subject(pad: &Pad) -> String {
    format!("pad:{}", pad.id)
}

fn sha256_hex(parts: &[&[u8]]) -> String {
    let mut h = sha2::Sha256::new();
    for p in parts {
        h.update(p);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// Runs `locker verify`, expects exit 1 with a problem about `subject` whose detail contains
/// `needle`; checks the human form names it too. Returns the JSON report.
fn broken(env: &TestEnv, subject: &str, needle: &str) -> Value {
    let (code, report) = env.verify();
    assert_eq!(code, 1, "verify must fail: {report}");
    assert_eq!(report["ok"], false);
    let problems = report["problems"].as_array().unwrap();
    assert!(
        problems
            .iter()
            .any(|p| p["subject"] == subject && p["detail"].as_str().unwrap().contains(needle)),
        "no problem about {subject} containing {needle:?}: {report:#}"
    );
    let kind = subject.split(':').next().unwrap();
    assert!(report["first_broken"][kind]["subject"].is_string(), "{report:#}");
    let out = env.locker().arg("verify").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains(&format!("first broken {kind}: ")), "{text}");
    assert!(text.contains(subject), "{text}");
    assert!(text.trim_end().ends_with("BROKEN"), "{text}");
    report
}

/// `locker verify PAD` fails too, naming the problem.
fn pad_broken(env: &TestEnv, pad: &Pad, needle: &str) {
    let out = env.run(&["verify", &pad.id]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["ok"], false);
    assert!(r["problems"].to_string().contains(needle), "{needle:?} not in {r:#}");
}

fn exec(env: &TestEnv, sql: &str, p: impl crate::common::sql::Args) {
    let n = env.sql().execute(sql, p).unwrap();
    assert!(n > 0, "the tampering statement changed nothing: {sql}");
}

// ---------------------------------------------------------------------------------------------
// blocks and pads

#[test]
fn test_verify_clean_repository_is_intact() {
    let fx = fixture();
    let out = fx.env.locker().arg("verify").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("journal: ok") && text.trim_end().ends_with("intact"), "{text}");
    let (_, r) = fx.env.verify();
    assert_eq!(r["pads"]["checked"], 2);
    assert_eq!(r["pads"]["blocks"], 7);
    assert_eq!(r["tickets"]["checked"], 4);
    for pad in [&fx.sealed, &fx.open] {
        let v = fx.env.json(&["verify", &pad.id]);
        assert_eq!(v["ok"], true);
        assert_eq!(v["blocks_verified"], v["block_count"]);
        assert_eq!(v["computed_head"], v["head_hash"]);
        assert_eq!(v["journal_head"], v["head_hash"]);
    }
}

/// Moves the row of a pad's block 0 to row id `to` (an SQL expression over `id`) of SQLite's
/// `blocks` table: since schema 12 a block's row id is where its pad's reads look for it.
fn move_block_zero(env: &TestEnv, pad: &Pad, to: &str) {
    exec(env, &format!("UPDATE blocks SET id = {to} WHERE pad_id = ?1 AND seq = 0"), [&pad.id]);
}

#[test]
fn test_verify_finds_a_block_whose_row_was_moved_and_nothing_once_it_is_back() {
    // SQLite stores block `seq` of a pad at row `ord * 2^32 + seq`: a row moved elsewhere is a
    // block its pad no longer has, whether it went past the pad's last block or into another
    // pad's rows (PostgreSQL has no row ids to move).
    if crate::common::sqlite_only("renumbers SQLite row ids") {
        return;
    }
    let fx = fixture();
    for to in ["id + 100", "(SELECT MAX(id) + 1 FROM blocks)"] {
        move_block_zero(&fx.env, &fx.sealed, to);
        // Read in order, the pad's blocks start at block 1 (block 0 is past them, or gone).
        let missing_first = "block 1 is out of sequence (expected block 0)";
        let r = broken(&fx.env, &subject(&fx.sealed), missing_first);
        let subjects: Vec<&Value> = r["problems"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| &p["subject"])
            .filter(|s| s.as_str() != Some(subject(&fx.sealed).as_str()))
            .collect();
        assert!(subjects.is_empty(), "only the moved block's pad is broken ({to}): {r:#}");
        pad_broken(&fx.env, &fx.sealed, missing_first);
        // The open pad, whose rows the second move went into, reads as before.
        assert_eq!(fx.env.json(&["pad", "show", &fx.open.id])["block_count"], 3, "{to}");
        exec(
            &fx.env,
            "UPDATE blocks SET id = (SELECT ord * 4294967296 FROM pads WHERE id = ?1) \
             WHERE pad_id = ?1 AND seq = 0",
            [&fx.sealed.id],
        );
        let (code, r) = fx.env.verify();
        assert_eq!((code, &r["problem_count"]), (0, &Value::from(0)), "{to}: {r:#}");
    }
}

#[test]
fn test_verify_finds_an_altered_block_payload() {
    let fx = fixture();
    exec(
        &fx.env,
        "UPDATE blocks SET payload = CAST('0ne' AS BLOB) WHERE pad_id = ?1 AND seq = 1",
        [&fx.sealed.id],
    );
    let r = broken(&fx.env, &subject(&fx.sealed), "block 1 curr_hash");
    let p = r["problems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["subject"] == subject(&fx.sealed))
        .unwrap();
    assert_eq!(p["seq"], 1);
    assert!(p["detail"].as_str().unwrap().contains("does not match its payload"));
    pad_broken(&fx.env, &fx.sealed, "block 1 curr_hash");
}

#[test]
fn test_verify_finds_an_altered_curr_hash() {
    let fx = fixture();
    exec(
        &fx.env,
        "UPDATE blocks SET curr_hash = unhex(?2) WHERE pad_id = ?1 AND seq = 2",
        params![fx.sealed.id, "ab".repeat(32)],
    );
    broken(&fx.env, &subject(&fx.sealed), "block 2 curr_hash");
    broken(&fx.env, &subject(&fx.sealed), "block 3 prev_hash");
    pad_broken(&fx.env, &fx.sealed, "block 2 curr_hash");
}

#[test]
fn test_verify_finds_an_altered_prev_hash() {
    let fx = fixture();
    exec(
        &fx.env,
        "UPDATE blocks SET prev_hash = unhex(?2) WHERE pad_id = ?1 AND seq = 2",
        params![fx.open.id, "cd".repeat(32)],
    );
    broken(&fx.env, &subject(&fx.open), "block 2 prev_hash");
    pad_broken(&fx.env, &fx.open, "block 2 prev_hash");
}

#[test]
fn test_verify_finds_an_altered_pad_head() {
    let fx = fixture();
    fx.env.sql().set_pad_accounting(&fx.sealed.id, None, Some(&"0".repeat(64)));
    if fx.env.sql().keeps_pad_heads() {
        broken(&fx.env, &subject(&fx.sealed), "is not the last block's hash");
        pad_broken(&fx.env, &fx.sealed, "head_hash");
    } else {
        // SQLite's head is its last block's hash: the block no longer matches its payload.
        broken(&fx.env, &subject(&fx.sealed), "block 3 curr_hash");
        pad_broken(&fx.env, &fx.sealed, "block 3 curr_hash");
    }
}

#[test]
fn test_verify_finds_altered_pad_accounting() {
    let fx = fixture();
    if fx.env.sql().keeps_pad_heads() {
        exec(&fx.env, "UPDATE pads SET block_count = 5 WHERE id = ?1", [&fx.sealed.id]);
        broken(&fx.env, &subject(&fx.sealed), "block count 5 does not match the 4 blocks stored");
    } else {
        // SQLite counts a pad's blocks by its last one's `seq`.
        exec(&fx.env, "UPDATE blocks SET seq = 4 WHERE pad_id = ?1 AND seq = 3", [&fx.sealed.id]);
        broken(&fx.env, &subject(&fx.sealed), "block 4 is out of sequence (expected block 3)");
        assert_eq!(fx.env.json(&["pad", "show", &fx.sealed.id])["block_count"], 5);
    }
    let fx = fixture();
    let bytes = fx.env.json(&["pad", "show", &fx.open.id])["total_bytes"].as_i64().unwrap();
    fx.env.sql().set_pad_accounting(&fx.open.id, Some(bytes - 1), None);
    broken(&fx.env, &subject(&fx.open), "byte count");
    pad_broken(&fx.env, &fx.open, "byte count");
}

#[test]
fn test_verify_finds_a_chain_rewritten_and_rehashed() {
    let fx = fixture();
    let env = &fx.env;
    let original =
        env.json(&["pad", "show", &fx.sealed.id])["head_hash"].as_str().unwrap().to_owned();
    // A consistent forgery: new payloads, every link recomputed, the head and bytes adjusted.
    let payloads = [ENVELOPE.as_bytes(), b"ONE", b"TWO", b"THREE-forged"];
    let mut prev = "0".repeat(64);
    let conn = env.sql();
    let mut total = 0;
    for (seq, p) in payloads.iter().enumerate() {
        let curr = sha256_hex(&[prev.as_bytes(), p]);
        conn.execute(
            "UPDATE blocks SET payload = ?3, prev_hash = unhex(?4), curr_hash = unhex(?5) WHERE pad_id = ?1 AND seq = ?2",
            params![fx.sealed.id, seq as i64, p.to_vec(), prev, curr],
        )
        .unwrap();
        total += p.len();
        if !conn.keeps_pad_heads() {
            conn.execute(
                "UPDATE blocks SET total_bytes = ?3 WHERE pad_id = ?1 AND seq = ?2",
                params![fx.sealed.id, seq as i64, total as i64],
            )
            .unwrap();
        }
        prev = curr;
    }
    conn.set_pad_accounting(&fx.sealed.id, Some(total as i64), Some(&prev));
    drop(conn);
    // The chain is internally consistent, so only the journal can tell.
    let r = broken(env, &subject(&fx.sealed), "head_hash");
    assert!(r["problems"].to_string().contains("but the journal says"), "{r:#}");
    let v = env.run(&["verify", &fx.sealed.id]);
    assert_eq!(v.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&v.stdout).unwrap();
    assert_eq!(v["blocks_verified"], 4, "the forged chain is internally consistent");
    assert_eq!(v["journal_head"], original.as_str());
    // Against the head the reader was given, it fails too.
    let v = env.run(&["verify", &fx.sealed.id, "--expect-head", &original]);
    assert_eq!(v.status.code(), Some(1));
}

#[test]
fn test_verify_finds_a_deleted_middle_block() {
    let fx = fixture();
    exec(&fx.env, "DELETE FROM blocks WHERE pad_id = ?1 AND seq = 1", [&fx.sealed.id]);
    broken(&fx.env, &subject(&fx.sealed), "block 2 is out of sequence (expected block 1)");
    pad_broken(&fx.env, &fx.sealed, "out of sequence");
}

#[test]
fn test_verify_finds_a_deleted_last_block_with_the_pad_adjusted() {
    let fx = fixture();
    let env = &fx.env;
    let conn = env.sql();
    let (prev, len): (String, i64) = conn
        .query_row(
            "SELECT lower(hex(prev_hash)), length(payload) FROM blocks WHERE pad_id = ?1 AND seq = 3",
            [&fx.sealed.id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    conn.execute("DELETE FROM blocks WHERE pad_id = ?1 AND seq = 3", [&fx.sealed.id]).unwrap();
    if conn.keeps_pad_heads() {
        // SQLite's pad is adjusted by the deletion itself: its last block is now block 2.
        conn.execute(
            "UPDATE pads SET head_hash = ?2, block_count = 3, current_bytes = current_bytes - ?3 WHERE id = ?1",
            params![fx.sealed.id, prev, len],
        )
        .unwrap();
    }
    drop(conn);
    broken(env, &subject(&fx.sealed), "block_count is 3 but the journal says 4");
    pad_broken(env, &fx.sealed, "block_count is 3 but the journal says 4");
}

#[test]
fn test_verify_finds_altered_pad_fields_the_chain_does_not_cover() {
    let cases: [(&str, &str); 8] = [
        ("UPDATE pads SET expires_at = expires_at + 86400 WHERE id = ?1", "expires_at"),
        ("UPDATE pads SET max_blocks = 4096 WHERE id = ?1", "max_blocks"),
        ("UPDATE pads SET max_bytes = 10000000 WHERE id = ?1", "max_bytes"),
        ("UPDATE pads SET write_key_hash = '0000000000000000000000000000000000000000000000000000000000000001' WHERE id = ?1", "write_key_hash"),
        ("UPDATE pads SET scope = 'other' WHERE id = ?1", "scope"),
        ("UPDATE pads SET created_at = created_at - 1 WHERE id = ?1", "created_at"),
        ("UPDATE blocks SET content_type = 'text/html' WHERE pad_id = ?1 AND seq = 2", "block 2 has the content type `text/html`"),
        ("UPDATE blocks SET created_at = created_at + 5 WHERE pad_id = ?1 AND seq = 1", "block 1 has the created_at"),
    ];
    for (sql, needle) in cases {
        let fx = fixture();
        exec(&fx.env, sql, [&fx.open.id]);
        broken(&fx.env, &subject(&fx.open), needle);
        pad_broken(&fx.env, &fx.open, needle);
    }
}

#[test]
fn test_verify_finds_a_pad_state_changed() {
    let fx = fixture();
    exec(
        &fx.env,
        "UPDATE pads SET state = 'open', sealed_at = NULL WHERE id = ?1",
        [&fx.sealed.id],
    );
    broken(&fx.env, &subject(&fx.sealed), "state is open but the journal says sealed");
    let fx = fixture();
    exec(
        &fx.env,
        "UPDATE pads SET state = 'sealed', sealed_at = ?2 WHERE id = ?1",
        params![fx.open.id, NOW],
    );
    broken(&fx.env, &subject(&fx.open), "state is sealed but the journal says open");
    let fx = fixture();
    exec(&fx.env, "UPDATE pads SET sealed_at = sealed_at + 1 WHERE id = ?1", [&fx.sealed.id]);
    broken(&fx.env, &subject(&fx.sealed), "sealed_at");
}

#[test]
fn test_verify_finds_a_deleted_pad() {
    let fx = fixture();
    let conn = fx.env.sql();
    for sql in [
        "DELETE FROM blocks WHERE pad_id = ?1",
        "DELETE FROM tickets WHERE pad_id = ?1",
        "DELETE FROM pads WHERE id = ?1",
    ] {
        conn.execute(sql, [&fx.sealed.id]).unwrap();
    }
    drop(conn);
    broken(&fx.env, &subject(&fx.sealed), "is in the journal but missing from the store");
}

// ---------------------------------------------------------------------------------------------
// the journal

fn last_seq(env: &TestEnv) -> i64 {
    env.sql().query_row("SELECT MAX(seq) FROM journal", [], |r| r.get(0)).unwrap()
}

#[test]
fn test_verify_finds_altered_journal_bytes() {
    let fx = fixture();
    let conn = fx.env.sql();
    let entry: Vec<u8> =
        conn.query_row("SELECT entry FROM journal WHERE seq = 4", [], |r| r.get(0)).unwrap();
    let text = String::from_utf8(entry).unwrap().replacen("\"seq\":1", "\"seq\":7", 1);
    conn.execute("UPDATE journal SET entry = ?1 WHERE seq = 4", [text.into_bytes()]).unwrap();
    drop(conn);
    let r = broken(&fx.env, "journal", "entry 4 has been altered");
    assert_eq!(r["first_broken"]["journal"]["seq"], 4);
    assert_eq!(r["journal"]["ok"], false);
    // The altered entry is not replayed: the block number it now says (7) is in no finding,
    // though verify's first walk decodes every entry before their hashes are checked (on
    // another thread), and walks again when one does not match.
    let details: Vec<&str> =
        r["problems"].as_array().unwrap().iter().map(|p| p["detail"].as_str().unwrap()).collect();
    assert!(details.iter().all(|d| !d.contains("block 7")), "{details:#?}");
    assert_eq!(r["journal"]["entries"], last_seq(&fx.env), "{r:#}");
}

#[test]
fn test_verify_finds_an_altered_journal_index_column() {
    for (col, value) in [
        ("kind", "pad.seal"),
        ("actor", "mallory"),
        ("subject", "pad:elsewhere"),
        ("scope", "x"),
        ("time", "1"),
    ] {
        let fx = fixture();
        exec(&fx.env, &format!("UPDATE journal SET {col} = ?1 WHERE seq = 5"), [value]);
        broken(
            &fx.env,
            "journal",
            &format!("entry 5's `{col}` column differs from its hashed bytes"),
        );
    }
}

#[test]
fn test_verify_finds_altered_journal_links() {
    let fx = fixture();
    exec(&fx.env, "UPDATE journal SET hash = unhex(?1) WHERE seq = 3", ["ef".repeat(32)]);
    broken(&fx.env, "journal", "entry 3 has been altered");
    broken(&fx.env, "journal", "entry 4 does not link to the entry before it");
    let fx = fixture();
    exec(&fx.env, "UPDATE journal SET prev_hash = unhex(?1) WHERE seq = 3", ["ef".repeat(32)]);
    broken(&fx.env, "journal", "entry 3 does not link");
}

#[test]
fn test_verify_finds_a_deleted_middle_journal_entry() {
    let fx = fixture();
    exec(&fx.env, "DELETE FROM journal WHERE seq = 3", []);
    let r = broken(&fx.env, "journal", "entry 3 is missing: the next stored entry is 4");
    assert!(r["problems"].to_string().contains("entry 4 does not link"), "{r:#}");
}

#[test]
fn test_verify_finds_a_deleted_last_journal_entry() {
    // With the journal head left alone (PostgreSQL keeps it in a row of its own; SQLite's is
    // the last entry, and the Merkle hashes went with the entry's row, so the tree no longer
    // reaches the checkpoint the log key signed).
    let fx = fixture();
    let last = last_seq(&fx.env);
    exec(&fx.env, "DELETE FROM journal WHERE seq = ?1", [last]);
    if fx.env.sql().keeps_head_row() {
        broken(&fx.env, "journal", &format!("the journal head names entry {last}"));
    } else {
        let (code, v) = fx.env.verify();
        assert_eq!(code, 1, "{v:#}");
        assert_eq!(v["mark"]["ok"], false, "{v:#}");
        assert!(v["problems"].to_string().contains("rolled back, truncated or replaced"), "{v:#}");
    }
    // With the journal head moved back as well: the change it recorded is unaccounted for.
    let fx = fixture();
    let env = &fx.env;
    env.append(&fx.open, "the last change");
    let last = last_seq(env);
    let conn = env.sql();
    conn.execute("DELETE FROM journal WHERE seq = ?1", [last]).unwrap();
    conn.move_head_to_last();
    drop(conn);
    let r = broken(env, &subject(&fx.open), "block_count is 4 but the journal says 3");
    assert_eq!(r["journal"]["ok"], true, "the shortened journal is itself consistent");
    // The same for a seal, a ticket, a lease and a revocation as the last change.
    let undo_last = |env: &TestEnv| {
        let last = last_seq(env);
        let conn = env.sql();
        conn.execute("DELETE FROM journal WHERE seq = ?1", [last]).unwrap();
        conn.move_head_to_last();
    };
    let fx = fixture();
    fx.env.json(&["seal", &fx.open.id, "--key", &fx.open.key]);
    undo_last(&fx.env);
    broken(&fx.env, &subject(&fx.open), "state is sealed but the journal says open");
    let fx = fixture();
    let t =
        fx.env.json(&["pad", "ticket", &fx.open.id, "--type", "read_once", "--key", &fx.open.key]);
    undo_last(&fx.env);
    broken(
        &fx.env,
        &format!("ticket:{}", t["ticket_id"].as_str().unwrap()),
        "has no record in the journal",
    );
    let fx = fixture();
    let t =
        fx.env.json(&["pad", "ticket", &fx.open.id, "--type", "read_once", "--key", &fx.open.key]);
    fx.env.json(&["pad", "read", &fx.open.id, "--ticket", t["ticket"].as_str().unwrap()]);
    undo_last(&fx.env);
    broken(&fx.env, &format!("ticket:{}", t["ticket_id"].as_str().unwrap()), "lease_started_at");
    let fx = fixture();
    let t = fx.env.json(&["pad", "ticket", &fx.open.id, "--key", &fx.open.key]);
    fx.env.json(&[
        "pad",
        "revoke-ticket",
        &fx.open.id,
        t["ticket"].as_str().unwrap(),
        "--key",
        &fx.open.key,
    ]);
    undo_last(&fx.env);
    broken(&fx.env, &format!("ticket:{}", t["ticket_id"].as_str().unwrap()), "revoked_at");
}

#[test]
fn test_verify_finds_an_altered_journal_head_row() {
    let fx = fixture();
    if !fx.env.sql().keeps_head_row() {
        return; // SQLite's head is its last entry: there is no row to alter
    }
    exec(&fx.env, "UPDATE journal_head SET hash = ?1", ["12".repeat(32)]);
    broken(&fx.env, "journal", "the journal head names entry");
    let fx = fixture();
    exec(&fx.env, "UPDATE journal_head SET seq = seq - 1", []);
    broken(&fx.env, "journal", "but the journal ends at entry");
    let fx = fixture();
    exec(&fx.env, "DELETE FROM journal_head", []);
    broken(&fx.env, "journal", "the journal head is missing");
}

// ---------------------------------------------------------------------------------------------
// tickets

#[test]
fn test_verify_finds_tickets_changed_behind_its_back() {
    // Inserted.
    let fx = fixture();
    let forged = sha256_hex(&[b"a forged ticket"]);
    exec(
        &fx.env,
        "INSERT INTO tickets (digest, pad_id, type, created_at) VALUES (?1, ?2, 'read_unlimited', ?3)",
        params![forged, fx.sealed.id, NOW],
    );
    broken(&fx.env, &format!("ticket:{forged}"), "has no record in the journal");
    pad_broken(&fx.env, &fx.sealed, "has no record in the journal");
    // Revoked.
    let fx = fixture();
    let creation = sha256_hex(&[fx.sealed.ticket.as_bytes()]);
    exec(&fx.env, "UPDATE tickets SET revoked_at = ?2 WHERE digest = ?1", params![creation, NOW]);
    broken(
        &fx.env,
        &format!("ticket:{creation}"),
        "revoked_at is 1800000000 but the journal says none",
    );
    // Un-revoked: the ticket would read again.
    let fx = fixture();
    exec(&fx.env, "UPDATE tickets SET revoked_at = NULL WHERE digest = ?1", [&fx.revoked]);
    broken(&fx.env, &format!("ticket:{}", fx.revoked), "revoked_at is none but the journal says");
    // The read lease reset (a read_once ticket made fresh again).
    let fx = fixture();
    let leased = sha256_hex(&[fx.open.ticket.as_bytes()]);
    exec(&fx.env, "UPDATE tickets SET lease_started_at = NULL WHERE digest = ?1", [&leased]);
    broken(&fx.env, &format!("ticket:{leased}"), "lease_started_at is none");
    // The type changed.
    let fx = fixture();
    let creation = sha256_hex(&[fx.sealed.ticket.as_bytes()]);
    exec(&fx.env, "UPDATE tickets SET type = 'read_unlimited' WHERE digest = ?1", [&creation]);
    broken(
        &fx.env,
        &format!("ticket:{creation}"),
        "type is read_unlimited but the journal says read_once",
    );
    // Moved to another pad.
    let fx = fixture();
    let creation = sha256_hex(&[fx.sealed.ticket.as_bytes()]);
    exec(
        &fx.env,
        "UPDATE tickets SET pad_id = ?2 WHERE digest = ?1",
        params![creation, fx.open.id],
    );
    broken(&fx.env, &format!("ticket:{creation}"), "but was minted for pad");
    // Deleted.
    let fx = fixture();
    exec(&fx.env, "DELETE FROM tickets WHERE digest = ?1", [&fx.revoked]);
    broken(
        &fx.env,
        &format!("ticket:{}", fx.revoked),
        "is in the journal but missing from the store",
    );
}

// ---------------------------------------------------------------------------------------------
// verify PAD --expect-head, and seal's own check

#[test]
fn test_verify_pad_expect_head() {
    let fx = fixture();
    let env = &fx.env;
    let head = env.json(&["pad", "show", &fx.sealed.id])["head_hash"].as_str().unwrap().to_owned();
    let v = env.json(&["verify", &fx.sealed.id, "--expect-head", &head]);
    assert_eq!(v["ok"], true);
    assert_eq!(v["expected_head"]["matches"], true);
    let other = "1".repeat(64);
    let out = env.run(&["verify", &fx.sealed.id, "--expect-head", &other]);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["expected_head"]["matches"], false);
    assert!(v["problems"].to_string().contains("is not the expected head"));
    for bad in ["abc", &head.to_uppercase(), &format!("{head}0"), ""] {
        env.fails(
            &["verify", &fx.sealed.id, "--expect-head", bad],
            6,
            "bad_request",
            "the expected head must be 64 lowercase hex characters",
        );
    }
    env.fails(&["verify", "no-such-pad"], 3, "not_found", "pad not found");
    // The whole repository against the journal head.
    let (_, r) = env.verify();
    let jh = r["journal"]["head_hash"].as_str().unwrap().to_owned();
    assert_eq!(env.json(&["verify", "--expect-head", &jh])["ok"], true);
    assert_eq!(env.run(&["verify", "--expect-head", &other]).status.code(), Some(1));
    // Human form.
    let out =
        env.locker().args(["verify", &fx.sealed.id, "--expect-head", &other]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("DOES NOT MATCH") && text.trim_end().ends_with("BROKEN"), "{text}");
}

#[test]
fn test_seal_refuses_an_inconsistent_pad() {
    let fx = fixture();
    let env = &fx.env;
    exec(
        env,
        "UPDATE blocks SET payload = CAST('f1rst' AS BLOB) WHERE pad_id = ?1 AND seq = 1",
        [&fx.open.id],
    );
    let before = env.snapshot();
    let e = env.json_err(&["seal", &fx.open.id, "--key", &fx.open.key], 4);
    assert_eq!(e["error"], "inconsistent_pad");
    let detail = e["detail"].as_str().unwrap();
    assert!(
        detail.starts_with("refusing to seal: the stored chain is not consistent (1 problem(s): block 1 curr_hash "),
        "{detail}"
    );
    assert_eq!(env.snapshot(), before);
    assert_eq!(env.json(&["pad", "show", &fx.open.id])["state"], "open");
    // More problems: at most three are listed, all are counted.
    env.sql().set_pad_accounting(&fx.open.id, Some(1), Some(&"9".repeat(64)));
    let e = env.json_err(&["seal", &fx.open.id, "--key", &fx.open.key], 4);
    let detail = e["detail"].as_str().unwrap();
    assert!(detail.contains("(3 problem(s): "), "{detail}");
    assert_eq!(detail.matches("; ").count(), 2, "{detail}");
    // The key is checked before the chain.
    env.fails(&["seal", &fx.open.id, "--key", "nope"], 5, "unauthorized", "invalid write key");
}

// ---------------------------------------------------------------------------------------------
// rows locker cannot read: a value of a type or form it never writes

/// A block whose hash is not a digest is a finding about its pad, not a failure to verify:
/// exit 1, the block named, the other pad still checked, and nothing changed by looking.
#[test]
fn test_verify_finds_a_block_it_cannot_read() {
    let fx = fixture();
    let env = &fx.env;
    exec(
        env,
        "UPDATE blocks SET curr_hash = 'not a digest' WHERE pad_id = ?1 AND seq = 2",
        [&fx.sealed.id],
    );
    let before = env.snapshot();
    let r = broken(env, &subject(&fx.sealed), "a stored block cannot be read");
    let p = r["problems"].as_array().unwrap();
    assert_eq!(p.len(), 1, "the unreadable block is the one problem: {r:#}");
    let detail = p[0]["detail"].as_str().unwrap();
    assert!(detail.contains("`curr_hash`"), "the column is named: {detail}");
    if !crate::common::on_postgres() {
        let at = format!("the `blocks` row with pad_id {} and seq 2", fx.sealed.id);
        assert!(detail.contains(&at), "the row is named: {detail}");
    }
    assert_eq!(r["pads"]["checked"], 2, "the other pad is checked: {r:#}");
    assert_eq!(r["pads"]["broken"], 1, "{r:#}");
    assert_eq!(r["journal"]["ok"], true, "the journal is intact: {r:#}");
    pad_broken(env, &fx.sealed, "a stored block cannot be read");
    assert_eq!(env.json(&["verify", &fx.open.id])["ok"], true, "the other pad verifies");
    assert_eq!(env.snapshot(), before, "verify changed nothing");
}

/// Every other command refuses such a row as damage (exit 8, `corrupt_store`), names it, and
/// points at `locker verify`, which then reports it (exit 1) rather than failing the same way.
#[test]
fn test_a_row_locker_cannot_read_is_refused_and_verify_reports_it() {
    let fx = fixture();
    let env = &fx.env;
    let last = last_seq(env);
    exec(env, "UPDATE journal SET hash = 'zz' WHERE seq = ?1", [last - 1]);
    let before = env.snapshot();
    let e = env.json_err(&["log", "--limit", "1000"], 8);
    assert_eq!(e["error"], "corrupt_store", "{e}");
    let detail = e["detail"].as_str().unwrap();
    assert!(detail.starts_with("a stored row cannot be read: "), "{detail}");
    assert!(detail.contains("`hash`"), "{detail}");
    if !crate::common::on_postgres() {
        assert!(detail.contains(&format!("the `journal` row with seq {}", last - 1)), "{detail}");
    }
    assert!(e["hints"].to_string().contains("locker verify"), "{e}");
    let (code, r) = env.verify();
    assert_eq!(code, 1, "{r:#}");
    assert_eq!(r["ok"], false);
    assert_eq!(r["problems"][0]["kind"], "store", "{r:#}");
    assert!(r["problems"][0]["detail"].as_str().unwrap().contains("`hash`"), "{r:#}");
    assert_eq!(env.snapshot(), before, "nothing changed");
}

/// SQLite stores any value in any column: a column of another storage class than locker
/// writes (text for a blob, text for a hash, text for a number) is named with its class, and
/// a hash of another length with its length.
#[test]
fn test_verify_names_a_column_of_another_type() {
    if crate::common::sqlite_only("PostgreSQL's columns refuse values of another type") {
        return;
    }
    let cases = [
        ("payload = CAST(payload AS TEXT)", "its `payload` column holds text"),
        ("curr_hash = lower(hex(curr_hash))", "its `curr_hash` column holds text"),
        (
            "prev_hash = zeroblob(31)",
            "its `prev_hash` column holds a blob: 31 bytes, where a hash has 32",
        ),
        ("created_at = 'yesterday'", "its `created_at` column holds text"),
        ("content_type = CAST(content_type AS BLOB)", "its `content_type` column holds a blob"),
        ("pruned_bytes = 'none'", "its `pruned_bytes` column holds text"),
    ];
    for (set, needle) in cases {
        let fx = fixture();
        let db = rusqlite::Connection::open(fx.env.db_path()).unwrap();
        let sql = format!("UPDATE blocks SET {set} WHERE pad_id = ?1 AND seq = 1");
        assert_eq!(db.execute(&sql, [&fx.sealed.id]).unwrap(), 1, "{sql}");
        drop(db);
        let r = broken(&fx.env, &subject(&fx.sealed), needle);
        assert_eq!(r["problem_count"], 1, "{set}: {r:#}");
        pad_broken(&fx.env, &fx.sealed, needle);
    }
    // A journal entry's bytes as text: the walk cannot go on without them.
    let fx = fixture();
    let db = rusqlite::Connection::open(fx.env.db_path()).unwrap();
    db.execute("UPDATE journal SET entry = CAST(entry AS TEXT) WHERE seq = 3", []).unwrap();
    drop(db);
    let (code, r) = fx.env.verify();
    assert_eq!(code, 1, "{r:#}");
    let detail = r["problems"][0]["detail"].as_str().unwrap();
    assert!(
        detail.contains("the `journal` row with seq 3: its `entry` column holds text"),
        "{r:#}"
    );
    // An index column of another type, or text that is not UTF-8: the same.
    for (set, needle) in [
        ("kind = CAST(kind AS BLOB)", "its `kind` column holds a blob"),
        ("subject = CAST(x'ff70' AS TEXT)", "its `subject` column holds text"),
    ] {
        let fx = fixture();
        let db = rusqlite::Connection::open(fx.env.db_path()).unwrap();
        let sql = format!("UPDATE journal SET {set} WHERE seq = 3");
        assert_eq!(db.execute(&sql, []).unwrap(), 1, "{sql}");
        drop(db);
        let (code, r) = fx.env.verify();
        assert_eq!(code, 1, "{set}: {r:#}");
        let detail = r["problems"][0]["detail"].as_str().unwrap();
        assert!(
            detail.contains("the `journal` row with seq 3: ") && detail.contains(needle),
            "{r:#}"
        );
    }
}
