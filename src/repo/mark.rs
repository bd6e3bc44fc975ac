//! The log key's high-water mark: the newest checkpoint this key holder signed, kept beside the
//! key (`.locker/keys/log.checkpoint`), outside the database.
//!
//! The signer writes it (durably, atomically) before a new signature is stored or leaves
//! locker, and never signs a checkpoint not proven to extend it; every command that opens the
//! repository first checks the database against it. A database that lost entries the key
//! already signed (a restored copy, a truncated file, a lost write-ahead log, rows deleted
//! behind locker's back) is therefore refused, instead of silently becoming a shorter or
//! different history that the same key would sign again.
//!
//! The mark is per key holder: with a PostgreSQL store each host keeps its own beside its copy
//! of the key, and refuses a database rolled back below the checkpoints it signed itself.

use std::fs;
use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _};
use std::path::{Path, PathBuf};

use crate::domain::digest::Digest;
use crate::domain::merkle::{self, Frontier, Hashes};
use crate::domain::note::{Checkpoint, SignedCheckpoint};
use crate::store::{Flow, Store, StoreError, Tx};

use super::{io, refuse_symlink, RepoError, KEYS_DIR};

mod slots;

/// The mark's file inside the key directory.
pub const MARK_FILE: &str = "log.checkpoint";

/// The mark: the newest checkpoint signed with the log key here, as a signed note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mark {
    /// The signed note, verbatim.
    pub note: String,
    pub checkpoint: Checkpoint,
}

impl Mark {
    pub fn size(&self) -> u64 {
        self.checkpoint.size
    }

    pub fn root(&self) -> Digest {
        self.checkpoint.root
    }
}

/// The mark's path for the repository whose `.locker/` is `dot`.
pub fn path(dot: &Path) -> PathBuf {
    dot.join(KEYS_DIR).join(MARK_FILE)
}

/// Where a host with a key file and no `.locker/` keeps the mark of the log `origin`: a
/// directory under the user's state directory (`$XDG_STATE_HOME/locker/logs/<hash>/`), made on
/// first use. None when the home directory is unknown.
pub fn state_home(origin: &str) -> Option<PathBuf> {
    let dirs = directories::ProjectDirs::from("", "", "locker")?;
    let base = dirs.state_dir().unwrap_or_else(|| dirs.data_local_dir()).to_owned();
    let hash = crate::domain::digest::Digest::of(origin.as_bytes()).to_hex();
    Some(base.join("logs").join(&hash[..16]))
}

/// Reads the mark (none before the first checkpoint was signed here). Its signature is checked
/// by `locker verify` and `locker doctor`, not here: whoever could forge it could replace the
/// key beside it too.
pub fn load(dot: &Path) -> Result<Option<Mark>, RepoError> {
    Ok(read(dot)?.and_then(|held| newest(held.marks).map(|(_, m)| m)))
}

/// What the mark's file holds.
struct Held {
    /// Whether it has two slots (else it is the earlier format, one note verbatim).
    slotted: bool,
    /// The marks of its slots, whole ones only (the earlier format's note in the first).
    marks: [Option<Mark>; 2],
}

/// The marks the file holds; None when there is no file.
fn read(dot: &Path) -> Result<Option<Held>, RepoError> {
    let p = path(dot);
    refuse_symlink(&p)?;
    let unreadable = |reason: String| RepoError::Invalid {
        path: dot.to_owned(),
        reason: format!(
            "{KEYS_DIR}/{MARK_FILE} (the log key's high-water mark) is unreadable: {reason}"
        ),
    };
    let parse = |note: Option<String>| -> Result<Option<Mark>, RepoError> {
        let Some(note) = note else { return Ok(None) };
        let checkpoint =
            SignedCheckpoint::parse_unverified(&note).map_err(|e| unreadable(e.to_string()))?;
        Ok(Some(Mark { note, checkpoint }))
    };
    match slots::read(&p).map_err(io(&p))? {
        slots::Stored::Missing => Ok(None),
        slots::Stored::Note(note) => {
            Ok(Some(Held { slotted: false, marks: [parse(Some(note))?, None] }))
        }
        slots::Stored::Slots([None, None]) => {
            Err(unreadable("neither of its two slots holds a whole checkpoint".into()))
        }
        slots::Stored::Slots([a, b]) => {
            Ok(Some(Held { slotted: true, marks: [parse(a)?, parse(b)?] }))
        }
    }
}

/// The larger of two marks, and its slot.
fn newest(marks: [Option<Mark>; 2]) -> Option<(usize, Mark)> {
    let [a, b] = marks;
    match (a, b) {
        (Some(a), Some(b)) if b.size() > a.size() => Some((1, b)),
        (Some(a), _) => Some((0, a)),
        (None, b) => b.map(|b| (1, b)),
    }
}

/// Moves the mark to `note` if it is newer (larger) than the mark, atomically and durably: a
/// crash leaves the old mark or the new one, never a torn file; concurrent processes never move
/// it back. The caller has proved `note`'s checkpoint consistent with the mark. Returns whether
/// it moved. It overwrites the slot that does not hold the newest mark, in place (`slots.rs`).
pub fn advance(dot: &Path, note: &str) -> Result<bool, RepoError> {
    let size = parsed(dot, note)?.size;
    let _lock = lock(dot)?;
    let p = path(dot);
    let Held { slotted, marks } =
        read(dot)?.unwrap_or(Held { slotted: false, marks: [None, None] });
    let newest = newest(marks);
    if newest.as_ref().is_some_and(|(_, m)| m.size() >= size) {
        return Ok(false);
    }
    match (slotted, newest, slots::encode(note)) {
        (true, Some((i, _)), Some(slot)) => slots::write_slot(&p, 1 - i, &slot).map_err(io(&p))?,
        _ => slots::write_new(&p, note)?,
    }
    Ok(true)
}

/// Replaces the mark with `note` whatever it was: only for accepting a deliberate rollback. A
/// new file, so that no slot keeps the larger mark it replaces.
pub fn replace(dot: &Path, note: &str) -> Result<(), RepoError> {
    parsed(dot, note)?;
    let _lock = lock(dot)?;
    let p = path(dot);
    refuse_symlink(&p)?;
    slots::write_new(&p, note)
}

fn parsed(dot: &Path, note: &str) -> Result<Checkpoint, RepoError> {
    SignedCheckpoint::parse_unverified(note).map_err(|e| RepoError::Invalid {
        path: dot.to_owned(),
        reason: format!("a malformed checkpoint for the high-water mark: {e}"),
    })
}

/// An exclusive lock on the mark (a lock file beside it), held until dropped.
fn lock(dot: &Path) -> Result<fs::File, RepoError> {
    let dir = dot.join(KEYS_DIR);
    refuse_symlink(&dir)?;
    if !dir.exists() {
        // A host's state directory for a log served without `.locker/` (see [`state_home`]).
        fs::DirBuilder::new().recursive(true).mode(0o700).create(&dir).map_err(io(&dir))?;
    }
    let p = dir.join(format!("{MARK_FILE}.lock"));
    refuse_symlink(&p)?;
    let f = fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(&p)
        .map_err(io(&p))?;
    f.lock().map_err(io(&p))?;
    Ok(f)
}

/// How a database stands against the mark: what it lost.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rollback {
    /// The mark's size and root.
    pub mark_size: u64,
    pub mark_root: Digest,
    /// The journal's entries now.
    pub journal_entries: u64,
    /// The root the database gives at the mark's size, when it is long enough.
    pub journal_root: Option<Digest>,
}

impl std::fmt::Display for Rollback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.journal_root {
            None => write!(
                f,
                "the database holds {} journal entries, but the log key here already signed a \
                 checkpoint of {} entries (its high-water mark): the database was rolled back, \
                 truncated or replaced",
                self.journal_entries, self.mark_size
            ),
            Some(root) => write!(
                f,
                "the database's first {} journal entries (of {}) have root {root}, but the log \
                 key here signed root {} for them (its high-water mark): the database was \
                 rewritten or replaced",
                self.mark_size, self.journal_entries, self.mark_root
            ),
        }
    }
}

/// Stored tree hashes read through a transaction (`None`: the position is not stored).
struct Stored<'a>(&'a dyn Tx);

impl Hashes for Stored<'_> {
    type Error = Option<StoreError>;
    fn hash(&mut self, level: u32, n: u64) -> Result<Digest, Self::Error> {
        self.0.merkle_hash(merkle::stored_index(level, n)).map_err(Some)?.ok_or(None)
    }
}

/// The root of the journal's first `size` entries: from the stored tree when it covers them,
/// else recomputed from the entries themselves (a tree deleted or cut short); `None` when the
/// journal has fewer than `size` consecutive entries.
pub fn root_at(tx: &dyn Tx, size: u64) -> Result<Option<Digest>, StoreError> {
    if size == 0 {
        return Ok(Some(merkle::EMPTY_ROOT));
    }
    let stored = merkle::size_for_count(tx.merkle_count()?).unwrap_or(0);
    if stored >= size {
        match merkle::root(&mut Stored(tx), size) {
            Ok(root) => return Ok(Some(root)),
            Err(Some(e)) => return Err(e),
            Err(None) => {}
        }
    }
    let mut fr = Frontier::default();
    tx.for_each_journal(&mut |row| {
        if row.seq != fr.size + 1 {
            return Flow::Break(());
        }
        fr.push(merkle::leaf_hash(&row.entry));
        if fr.size == size {
            Flow::Break(())
        } else {
            Flow::Continue(())
        }
    })?;
    Ok((fr.size == size).then(|| fr.root()))
}

/// Checks the database against the mark: `Some` when the journal is shorter than the mark, or
/// its root at the mark's size is not the mark's. Read the mark before calling this (the
/// database only grows, so a mark read first can never be ahead of an honest database).
pub fn check(store: &mut dyn Store, mark: &Mark) -> Result<Option<Rollback>, StoreError> {
    let tx = store.read()?;
    let entries = tx.journal_head()?.map_or(0, |h| h.seq);
    let rollback = |journal_root| Rollback {
        mark_size: mark.size(),
        mark_root: mark.root(),
        journal_entries: entries,
        journal_root,
    };
    if entries < mark.size() {
        return Ok(Some(rollback(None)));
    }
    match root_at(tx.as_ref(), mark.size())? {
        Some(root) if root == mark.root() => Ok(None),
        found => Ok(Some(rollback(found))),
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::MetadataExt as _;

    use super::*;
    use crate::domain::note::Signer;

    fn note(signer: &Signer, size: u64) -> String {
        let root = Digest::of(&size.to_be_bytes());
        signer.sign(&Checkpoint { origin: signer.name.clone(), size, root }.to_text())
    }

    fn dot() -> (tempfile::TempDir, PathBuf, Signer) {
        let dir = tempfile::tempdir().unwrap();
        let dot = dir.path().join(".locker");
        fs::create_dir_all(dot.join(KEYS_DIR)).unwrap();
        (dir, dot, Signer::generate("locker/test").unwrap())
    }

    #[test]
    fn moves_overwrite_the_older_slot_in_place_and_never_move_back() {
        let (_dir, dot, s) = dot();
        assert_eq!(load(&dot).unwrap(), None);
        assert!(advance(&dot, &note(&s, 3)).unwrap());
        let ino = fs::metadata(path(&dot)).unwrap().ino();
        assert_eq!(fs::metadata(path(&dot)).unwrap().len(), 2 * slots::SLOT as u64);
        for size in 4..10 {
            assert!(advance(&dot, &note(&s, size)).unwrap());
            assert_eq!(load(&dot).unwrap().unwrap().note, note(&s, size));
            assert_eq!(fs::metadata(path(&dot)).unwrap().ino(), ino, "written in place");
        }
        // Both slots hold whole marks, the newest and the one before it.
        let held = read(&dot).unwrap().unwrap();
        let mut sizes: Vec<u64> = held.marks.iter().flatten().map(Mark::size).collect();
        sizes.sort_unstable();
        assert!(held.slotted);
        assert_eq!(sizes, [8, 9]);
        // Never back, not even to the older slot's size.
        assert!(!advance(&dot, &note(&s, 8)).unwrap());
        assert!(!advance(&dot, &note(&s, 9)).unwrap());
        assert_eq!(load(&dot).unwrap().unwrap().size(), 9);
    }

    #[test]
    fn a_torn_slot_leaves_the_other_whole_and_both_torn_is_refused() {
        let (_dir, dot, s) = dot();
        advance(&dot, &note(&s, 5)).unwrap();
        advance(&dot, &note(&s, 6)).unwrap();
        let p = path(&dot);
        let bytes = fs::read(&p).unwrap();
        // A new file holds the first mark in slot 0; the next move wrote slot 1.
        let newest = 1;
        assert_eq!(read(&dot).unwrap().unwrap().marks[newest].as_ref().map(Mark::size), Some(6));
        // A write cut short in the newest slot (a crash mid-write, or a reader that raced it):
        // the note's second half never reached the file.
        let mut torn = bytes.clone();
        let start = newest * slots::SLOT;
        torn[start + 200..start + slots::SLOT].fill(0);
        fs::write(&p, &torn).unwrap();
        assert_eq!(load(&dot).unwrap().unwrap().size(), 5, "the older whole slot");
        // The next move overwrites the torn slot, not the whole one.
        assert!(advance(&dot, &note(&s, 7)).unwrap());
        assert_eq!(load(&dot).unwrap().unwrap().size(), 7);
        let held = read(&dot).unwrap().unwrap();
        assert_eq!(held.marks[1 - newest].as_ref().map(Mark::size), Some(5));
        // A flipped byte in a note is caught by its hash as well.
        let mut flipped = fs::read(&p).unwrap();
        flipped[newest * slots::SLOT + 150] ^= 1;
        flipped[(1 - newest) * slots::SLOT + 150] ^= 1;
        fs::write(&p, &flipped).unwrap();
        let e = load(&dot).unwrap_err().to_string();
        assert!(e.contains("neither of its two slots"), "{e}");
    }

    #[test]
    fn a_garbled_slot_header_is_a_torn_slot_not_a_crash() {
        let (_dir, dot, s) = dot();
        advance(&dot, &note(&s, 5)).unwrap();
        advance(&dot, &note(&s, 6)).unwrap();
        let p = path(&dot);
        let mut bytes = fs::read(&p).unwrap();
        let header = format!("locker-mark/1 {} 00\n", usize::MAX);
        bytes[slots::SLOT..slots::SLOT + header.len()].copy_from_slice(header.as_bytes());
        fs::write(&p, &bytes).unwrap();
        assert_eq!(load(&dot).unwrap().unwrap().size(), 5);
    }

    #[test]
    fn a_note_verbatim_is_read_and_the_next_move_makes_slots() {
        let (_dir, dot, s) = dot();
        // What backups, `store copy` and earlier versions write.
        fs::write(path(&dot), note(&s, 4)).unwrap();
        assert_eq!(load(&dot).unwrap().unwrap().note, note(&s, 4));
        assert!(!advance(&dot, &note(&s, 4)).unwrap());
        assert!(advance(&dot, &note(&s, 5)).unwrap());
        assert_eq!(fs::metadata(path(&dot)).unwrap().len(), 2 * slots::SLOT as u64);
        assert_eq!(load(&dot).unwrap().unwrap().note, note(&s, 5));
        // Garbage in the earlier format is refused, as before.
        fs::write(path(&dot), "not a note").unwrap();
        assert!(load(&dot).unwrap_err().to_string().contains("is unreadable"));
    }

    #[test]
    fn replace_moves_back_and_no_slot_keeps_the_larger_mark() {
        let (_dir, dot, s) = dot();
        for size in 5..8 {
            advance(&dot, &note(&s, size)).unwrap();
        }
        replace(&dot, &note(&s, 3)).unwrap();
        assert_eq!(load(&dot).unwrap().unwrap().size(), 3);
        let held = read(&dot).unwrap().unwrap();
        assert_eq!(held.marks.iter().flatten().count(), 1);
        assert!(advance(&dot, &note(&s, 4)).unwrap());
        assert_eq!(load(&dot).unwrap().unwrap().size(), 4);
    }

    #[test]
    fn a_reader_racing_the_writer_always_reads_a_whole_mark_that_never_goes_back() {
        let (_dir, dot, s) = dot();
        advance(&dot, &note(&s, 1)).unwrap();
        let notes: Vec<String> = (2..=300).map(|n| note(&s, n)).collect();
        let reader_dot = dot.clone();
        let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let stop = std::sync::Arc::clone(&done);
        let reader = std::thread::spawn(move || {
            let (mut last, mut reads) = (0, 0);
            while !stop.load(std::sync::atomic::Ordering::Relaxed) || reads == 0 {
                let m = load(&reader_dot).unwrap().expect("a mark");
                assert!(m.size() >= last, "went back from {last} to {}", m.size());
                last = m.size();
                reads += 1;
            }
            reads
        });
        for n in &notes {
            assert!(advance(&dot, n).unwrap());
        }
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        assert!(reader.join().unwrap() > 0);
        assert_eq!(load(&dot).unwrap().unwrap().size(), 300);
    }

    #[test]
    fn a_note_too_large_for_a_slot_is_kept_verbatim() {
        let (_dir, dot, s) = dot();
        // Cosigned by twenty witnesses with long names: more than a slot holds.
        let witnesses: Vec<Signer> = (0..20)
            .map(|i| Signer::generate(&format!("witness-{i}-{}", "w".repeat(200))).unwrap())
            .collect();
        let cosigned = |size: u64| {
            let text =
                Checkpoint { origin: s.name.clone(), size, root: Digest::of(b"r") }.to_text();
            let mut n = s.sign(&text);
            for w in &witnesses {
                n.push_str(&w.signature_line(&text));
                n.push('\n');
            }
            n
        };
        assert!(cosigned(2).len() > slots::SLOT);
        assert!(advance(&dot, &cosigned(2)).unwrap());
        assert_eq!(fs::read_to_string(path(&dot)).unwrap(), cosigned(2));
        assert!(advance(&dot, &cosigned(3)).unwrap());
        assert_eq!(load(&dot).unwrap().unwrap().note, cosigned(3));
        // A small one again goes back to slots.
        assert!(advance(&dot, &note(&s, 4)).unwrap());
        assert_eq!(fs::metadata(path(&dot)).unwrap().len(), 2 * slots::SLOT as u64);
        assert_eq!(load(&dot).unwrap().unwrap().size(), 4);
    }
}
