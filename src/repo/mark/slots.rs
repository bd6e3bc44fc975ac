//! The mark's file: two slots, written in turn in place.
//!
//! Replacing a file atomically (a new file, its fsync, a rename) costs a journal commit for the
//! new inode, three times an in-place overwrite and `fdatasync` of a file whose blocks exist
//! (0.26 ms against 0.08 ms here, docs/performance.md), and the mark moves at every command
//! that signs. So the file holds two fixed slots of [`SLOT`] bytes, each in its own page; a move
//! overwrites the slot that does not hold the newest mark and syncs its data. A crash or a
//! reader in the middle of that write finds the written slot torn (its length and SHA-256
//! disagree with its bytes) and the other one whole, so the mark read is the old one or the
//! new one, never a torn one or an older one. A slot is
//!
//! ```text
//! locker-mark/1 <note length> <SHA-256 of the note, hex>\n<the signed note>
//! ```
//!
//! padded with newlines to [`SLOT`] bytes. A file in the earlier format, the signed note
//! verbatim (what backups, `store copy` and older versions write), is read as one; the next
//! move rewrites it as slots (a new file renamed over it, as a note too large for a slot is).

use std::fs;
use std::os::unix::fs::{FileExt as _, OpenOptionsExt as _};
use std::path::Path;

use crate::domain::digest::Digest;
use crate::repo::{io, write_new_file, RepoError};

/// The bytes of one slot: a page, so that writing one never rewrites the other.
pub const SLOT: usize = 4096;

/// How a slot begins.
const MAGIC: &[u8] = b"locker-mark/1 ";

/// What the mark's file holds.
#[derive(Debug, PartialEq, Eq)]
pub enum Stored {
    /// No file: no checkpoint was signed here.
    Missing,
    /// The earlier format: the signed note, verbatim.
    Note(String),
    /// Two slots: the notes of the whole ones (`None`: empty, torn or garbled).
    Slots([Option<String>; 2]),
}

/// Reads the file at `path`.
pub fn read(path: &Path) -> std::io::Result<Stored> {
    let bytes = match fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Stored::Missing),
        Err(e) => return Err(e),
    };
    // A note verbatim begins with its origin; a slotted file's either slot may be torn.
    if bytes.len() == 2 * SLOT && (bytes.starts_with(MAGIC) || bytes[SLOT..].starts_with(MAGIC)) {
        let (a, b) = bytes.split_at(SLOT);
        return Ok(Stored::Slots([decode(a), decode(b)]));
    }
    String::from_utf8(bytes)
        .map(Stored::Note)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8 text"))
}

/// The note a slot holds whole, if it does.
fn decode(slot: &[u8]) -> Option<String> {
    let rest = slot.strip_prefix(MAGIC)?;
    let end = rest.iter().position(|&b| b == b'\n')?;
    let header = std::str::from_utf8(&rest[..end]).ok()?;
    let (len, hash) = header.split_once(' ')?;
    let len: usize = len.parse().ok()?;
    let note = rest.get(end + 1..(end + 1).checked_add(len)?)?;
    (Digest::of(note).to_hex() == hash).then(|| String::from_utf8(note.to_vec()).ok())?
}

/// `note` as a whole slot; `None` when it does not fit in one.
pub fn encode(note: &str) -> Option<Vec<u8>> {
    let mut slot = MAGIC.to_vec();
    slot.extend_from_slice(
        format!("{} {}\n", note.len(), Digest::of(note.as_bytes()).to_hex()).as_bytes(),
    );
    slot.extend_from_slice(note.as_bytes());
    if slot.len() > SLOT {
        return None;
    }
    slot.resize(SLOT, b'\n');
    Some(slot)
}

/// Overwrites slot `index` (0 or 1) of the two-slot file at `path` with `slot` (from
/// [`encode`]) and syncs its data: no new inode, no size change, no journal commit.
pub fn write_slot(path: &Path, index: usize, slot: &[u8]) -> std::io::Result<()> {
    debug_assert!(index < 2 && slot.len() == SLOT);
    let nofollow = rustix::fs::OFlags::NOFOLLOW.bits() as i32;
    let f = fs::OpenOptions::new().write(true).custom_flags(nofollow).open(path)?;
    if f.metadata()?.len() != (2 * SLOT) as u64 {
        return Err(std::io::Error::other("the mark's file changed size under its lock"));
    }
    f.write_all_at(slot, (index * SLOT) as u64)?;
    f.sync_data()
}

/// Writes a new file at `path` whose first slot holds `note` (a note too large for a slot: the
/// note verbatim, the earlier format): a temporary file, synced, renamed over it. The rename
/// itself need not be durable: a crash before it reaches the disk leaves the older mark, which
/// is safe.
pub fn write_new(path: &Path, note: &str) -> Result<(), RepoError> {
    let bytes = match encode(note) {
        Some(mut slot) => {
            slot.resize(2 * SLOT, b'\n');
            slot
        }
        None => note.as_bytes().to_vec(),
    };
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp-{}", crate::domain::secret::random_id()));
    let result =
        write_new_file(&tmp, &bytes).and_then(|()| fs::rename(&tmp, path).map_err(io(path)));
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}
