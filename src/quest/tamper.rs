//! Altering a block behind locker's back, as anyone with access to the database file could:
//! the quest opens `.locker/locker.db` with plain SQLite and changes one byte of one payload,
//! touching nothing else. Only the quest does this, on the repository it made itself.

use std::path::Path;

use rusqlite::{params, Connection, OptionalExtension as _};

/// The change made.
#[derive(Debug, Clone)]
pub struct Tampered {
    /// The byte's offset in the payload.
    pub offset: usize,
    pub before: char,
    pub after: char,
}

/// Flips the case of one ASCII letter in block `seq` of `pad` (so the payload stays the same
/// length and valid UTF-8: only its hash gives it away).
pub fn flip_payload_byte(db: &Path, pad: &str, seq: u64) -> Result<Tampered, String> {
    let sql = |e: rusqlite::Error| format!("cannot change the database: {e}");
    let conn = Connection::open(db).map_err(sql)?;
    conn.busy_timeout(std::time::Duration::from_secs(10)).map_err(sql)?;
    let seq = i64::try_from(seq).map_err(|_| "block number out of range".to_owned())?;
    let mut payload: Vec<u8> = conn
        .query_row(
            "SELECT payload FROM blocks WHERE pad_id = ?1 AND seq = ?2",
            params![pad, seq],
            |r| r.get(0),
        )
        .optional()
        .map_err(sql)?
        .ok_or_else(|| format!("pad {pad} has no block {seq}"))?;
    // A letter from the middle, so that the change is not at an edge.
    let offset = (payload.len() / 2..payload.len())
        .chain(0..payload.len() / 2)
        .find(|&i| payload[i].is_ascii_alphabetic())
        .ok_or_else(|| format!("block {seq} of pad {pad} has no letter to change"))?;
    let before = payload[offset];
    payload[offset] ^= 0x20;
    let changed = conn
        .execute(
            "UPDATE blocks SET payload = ?3 WHERE pad_id = ?1 AND seq = ?2",
            params![pad, seq, payload],
        )
        .map_err(sql)?;
    if changed != 1 {
        return Err(format!("{changed} rows changed, not 1"));
    }
    Ok(Tampered { offset, before: char::from(before), after: char::from(payload[offset]) })
}

/// What a malicious operator holding the database did to the journal.
#[derive(Debug, Clone)]
pub struct Rewritten {
    pub seq: u64,
    pub entries: u64,
}

/// Rewrites journal entry `seq` as an operator with the database could: flips the case of one
/// letter of its subject, recomputes the chain hash of it and every later entry and the head,
/// and throws away the Merkle tree and the signed checkpoints, so that locker itself rebuilds
/// the tree and re-signs a head that agrees with the rewritten journal.
pub fn rewrite_journal(db: &Path, seq: u64) -> Result<Rewritten, String> {
    use crate::domain::digest::Digest;
    let sql = |e: rusqlite::Error| format!("cannot change the database: {e}");
    let mut conn = Connection::open(db).map_err(sql)?;
    conn.busy_timeout(std::time::Duration::from_secs(10)).map_err(sql)?;
    let tx = conn.transaction().map_err(sql)?;
    let target = i64::try_from(seq).map_err(|_| "entry number out of range".to_owned())?;
    let mut entry: Vec<u8> = tx
        .query_row("SELECT entry FROM journal WHERE seq = ?1", [target], |r| r.get(0))
        .optional()
        .map_err(sql)?
        .ok_or_else(|| format!("the journal has no entry {seq}"))?;
    let at = find(&entry, b"\"subject\":\"")
        .map(|i| i + b"\"subject\":\"".len())
        .filter(|&i| entry.get(i).is_some_and(u8::is_ascii_alphabetic))
        .ok_or_else(|| format!("entry {seq} has no subject to change"))?;
    entry[at] ^= 0x20;
    tx.execute("UPDATE journal SET entry = ?1 WHERE seq = ?2", params![entry, target])
        .map_err(sql)?;
    let rows: Vec<(i64, Vec<u8>)> = {
        let mut stmt = tx.prepare("SELECT seq, entry FROM journal ORDER BY seq").map_err(sql)?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).map_err(sql)?;
        rows.collect::<Result<_, _>>().map_err(sql)?
    };
    let mut prev = Digest::ZERO;
    for (s, e) in &rows {
        let hash = crate::domain::journal::link(&prev, e);
        tx.execute(
            "UPDATE journal SET prev_hash = ?1, hash = ?2 WHERE seq = ?3",
            // The chain's hashes are stored as their 32 bytes (schema 13).
            params![&prev.0[..], &hash.0[..], s],
        )
        .map_err(sql)?;
        prev = hash;
    }
    // The Merkle tree (kept in the journal rows) and the checkpoints go with the rewrite.
    tx.execute_batch("UPDATE journal SET merkle = NULL; DELETE FROM checkpoints;").map_err(sql)?;
    tx.commit().map_err(sql)?;
    Ok(Rewritten { seq, entries: rows.len() as u64 })
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Deletes the log key's high-water mark (`.locker/keys/log.checkpoint`), as an operator who
/// owns the files could, so that locker no longer remembers what its key signed.
pub fn forget_mark(repo: &Path) -> Result<(), String> {
    let dot = repo.join(crate::repo::DOT_LOCKER);
    std::fs::remove_file(crate::repo::mark::path(&dot))
        .map_err(|e| format!("cannot delete the high-water mark: {e}"))
}
