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
