//! `locker backup` and `locker restore`: a consistent, verified copy of a live repository,
//! taken while writers go on, and restored only when it verifies.

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{Pad, TestEnv, ENVELOPE};

fn mode(p: &Path) -> u32 {
    std::fs::symlink_metadata(p).unwrap().permissions().mode() & 0o7777
}

/// A repository with a sealed pad, an open one, a large (file) and a small (inline)
/// artifact, and an agent.
fn populated() -> (TestEnv, Pad) {
    let env = TestEnv::init();
    let pad = env.pad_with_envelope(&[]);
    env.append(&pad, "second block");
    env.json(&["seal", &pad.id, "--key", &pad.key]);
    let open = env.pad_with_envelope(&[]);
    env.append(&open, "still open");
    let big = env.file("big.bin", &vec![b'B'; 70_000]);
    env.json(&["artifact", "publish", "big", &big, "--expect", "0", "--op", "o1"]);
    env.json(&["artifact", "publish", "small", "--data", "hi", "--expect", "0", "--op", "o2"]);
    env.json(&["--scope", "team", "token", "create", "--agent", "worker"]);
    (env, pad)
}

/// Every path under `dir`, sorted.
fn tree(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        out.push(p.clone());
        if std::fs::symlink_metadata(&p).unwrap().is_dir() {
            out.extend(tree(&p));
        }
    }
    out.sort();
    out
}

fn journal_head(env: &TestEnv) -> Value {
    let v = env.json(&["verify"]);
    assert_eq!(v["ok"], true, "{v}");
    v["journal"]["head_hash"].clone()
}

#[test]
fn test_backup_copies_a_verified_repository_with_private_modes() {
    if crate::common::sqlite_only("reads or tampers with the SQLite files directly") {
        return;
    }
    let (env, _pad) = populated();
    let head = journal_head(&env);
    let before = env.snapshot();
    let dest = env.path().join("backups/b1");
    let out = env.json(&["backup", dest.to_str().unwrap()]);
    assert_eq!(out["verified"], true);
    assert_eq!(out["backup"], dest.to_str().unwrap());
    assert_eq!(out["head_hash"], head);
    assert_eq!(out["pads"], 2);
    assert_eq!(out["blob_files"], 1);
    assert_eq!(out["blob_bytes"], 70_000);
    assert_eq!(out["artifact_versions"], 2);
    // The source is unchanged: a backup is not journaled.
    assert_eq!(env.snapshot(), before);

    // DEST is a repository root of its own, private throughout.
    assert_eq!(mode(&dest), 0o700);
    let dot = dest.join(".locker");
    for p in std::iter::once(dot.clone()).chain(tree(&dot)) {
        let m = std::fs::symlink_metadata(&p).unwrap();
        assert!(!m.file_type().is_symlink(), "{}", p.display());
        let want = if m.is_dir() { 0o700 } else { 0o600 };
        assert_eq!(mode(&p), want, "{}", p.display());
    }
    let names: Vec<String> =
        tree(&dot).iter().map(|p| p.strip_prefix(&dot).unwrap().display().to_string()).collect();
    assert!(names.contains(&"config.json".to_owned()), "{names:?}");
    assert!(names.contains(&"locker.db".to_owned()), "{names:?}");
    assert!(!names.iter().any(|n| n.ends_with("-wal") || n.ends_with("-shm")), "{names:?}");
    // No temporary directory is left beside it.
    let siblings: Vec<_> = std::fs::read_dir(dest.parent().unwrap()).unwrap().collect();
    assert_eq!(siblings.len(), 1);

    // It opens and verifies like the original, with the same journal and config.
    let v: Value = serde_json::from_slice(
        &env.locker()
            .args(["--json", "-R", dest.to_str().unwrap(), "verify"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["journal"]["head_hash"], head);
    assert_eq!(
        std::fs::read(dot.join("config.json")).unwrap(),
        std::fs::read(env.path().join(".locker/config.json")).unwrap()
    );
    let got = env
        .locker()
        .args(["-R", dest.to_str().unwrap(), "artifact", "get", "big"])
        .output()
        .unwrap();
    assert_eq!(got.stdout, vec![b'B'; 70_000]);
}

#[test]
fn test_backup_into_an_empty_directory_and_refusals() {
    if crate::common::sqlite_only("reads or tampers with the SQLite files directly") {
        return;
    }
    let (env, _pad) = populated();
    let before = env.snapshot();
    // An existing, empty directory (a mount point, say) is fine.
    let empty = env.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    env.json(&["backup", empty.to_str().unwrap()]);
    assert!(empty.join(".locker/locker.db").is_file());

    // A non-empty directory or a file is refused: exit 4, nothing touched.
    let e = env.json_err(&["backup", empty.to_str().unwrap()], 4);
    assert_eq!(e["error"], "exists");
    let file = env.file("a-file", b"x");
    let e = env.json_err(&["backup", &file], 4);
    assert_eq!(e["error"], "exists");
    assert_eq!(std::fs::read(&file).unwrap(), b"x");
    // Inside the repository's own .locker/: usage error.
    let inside = env.path().join(".locker/backup");
    let e = env.json_err(&["backup", inside.to_str().unwrap()], 2);
    assert_eq!(e["error"], "usage");
    assert!(!inside.exists());
    // A symbolic link as DEST is refused.
    let link = env.path().join("link");
    std::os::unix::fs::symlink(env.path().join("elsewhere"), &link).unwrap();
    let e = env.json_err(&["backup", link.to_str().unwrap()], 5);
    assert_eq!(e["error"], "symlink");
    // An agent token cannot take backups.
    let out = env
        .locker()
        .env("LOCKER_TOKEN", "whatever")
        .args(["--json", "backup", env.path().join("b2").to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(5));
    let e: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(e["error"], "forbidden");
    assert!(!env.path().join("b2").exists());
    // Outside a repository: not found.
    let bare = TestEnv::new();
    let e = bare.json_err(&["backup", "b"], 3);
    assert_eq!(e["error"], "no_repository");
    assert_eq!(env.snapshot(), before);
}

#[test]
fn test_restore_into_a_new_directory_and_replacing_only_with_yes() {
    if crate::common::sqlite_only("reads or tampers with the SQLite files directly") {
        return;
    }
    let (env, pad) = populated();
    let head = journal_head(&env);
    let bk = env.path().join("bk");
    env.json(&["backup", bk.to_str().unwrap()]);
    let bk = bk.to_str().unwrap();

    // Into a new directory.
    let target = env.path().join("restored");
    let out = env.json(&["restore", bk, "--to", target.to_str().unwrap()]);
    assert_eq!(out["verified"], true);
    assert_eq!(out["head_hash"], head);
    assert_eq!(out["replaced"], Value::Null);
    assert_eq!(mode(&target.join(".locker")), 0o700);
    assert_eq!(mode(&target.join(".locker/locker.db")), 0o600);
    let restored = env.locker().args(["--json", "-R", target.to_str().unwrap(), "verify"]).output();
    let v: Value = serde_json::from_slice(&restored.unwrap().stdout).unwrap();
    assert_eq!(v["ok"], true);
    assert_eq!(v["journal"]["head_hash"], head);
    // The restored pad reads back with its ticket (nothing was spent by the backup).
    let read = env.json(&[
        "-R",
        target.to_str().unwrap(),
        "pad",
        "read",
        &pad.id,
        "--ticket",
        &pad.ticket,
    ]);
    assert_eq!(read["blocks"][0]["payload_utf8"], ENVELOPE);

    // The live repository moves on; restoring over it needs --yes.
    env.append(&env.create_pad(&[]), ENVELOPE);
    let moved_on = env.snapshot();
    let e = env.json_err(&["restore", bk, "--to", env.path().to_str().unwrap()], 4);
    assert_eq!(e["error"], "repository_exists");
    // `-R` names the target too.
    let e = env.json_err(&["-R", env.path().to_str().unwrap(), "restore", bk], 4);
    assert_eq!(e["error"], "repository_exists");
    assert_eq!(env.snapshot(), moved_on);

    // The backup is older than what the log key signed since: a rollback, refused unless
    // accepted, and then journaled and signed.
    let to = env.path().to_str().unwrap();
    let e = env.json_err(&["restore", bk, "--to", to, "--yes"], 6);
    assert_eq!(e["error"], "rolled_back", "{e}");
    assert!(e["mark_size"].as_u64().unwrap() > e["journal_entries"].as_u64().unwrap(), "{e}");
    assert_eq!(env.snapshot(), moved_on);
    let out = env.json(&["restore", bk, "--to", to, "--yes", "--accept-rollback"]);
    let aside = PathBuf::from(out["replaced"].as_str().unwrap());
    assert!(aside.starts_with(env.path()));
    assert!(aside.file_name().unwrap().to_string_lossy().starts_with(".locker.replaced-"));
    // The repository is the backup again, plus the entry accepting the rollback; the one it
    // replaced is kept, intact.
    let restored = out["rollback"]["restored_size"].as_u64().unwrap();
    assert_eq!(out["rollback"]["journal_seq"], restored + 1);
    let entries: Vec<Value> = String::from_utf8(
        env.locker().args(["--json", "log", "--reverse"]).output().unwrap().stdout,
    )
    .unwrap()
    .lines()
    .map(|l| serde_json::from_str(l).unwrap())
    .collect();
    assert_eq!(entries[restored as usize - 1]["hash"], head);
    assert_eq!(entries[restored as usize]["kind"], "repo.rollback");
    assert_eq!(journal_head(&env), out["head_hash"]);
    let old = env.locker().args(["--json", "verify"]).current_dir(env.path()).output().unwrap();
    assert_eq!(old.status.code(), Some(0));
    let kept = rusqlite::Connection::open(aside.join("locker.db")).unwrap();
    let pads: i64 = kept.query_row("SELECT COUNT(*) FROM pads", [], |r| r.get(0)).unwrap();
    assert_eq!(pads, 3);
    // No temporary directories are left.
    let leftovers: Vec<String> = std::fs::read_dir(env.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".locker.restore-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn test_restore_refuses_a_backup_that_does_not_verify() {
    if crate::common::sqlite_only("reads or tampers with the SQLite files directly") {
        return;
    }
    let (env, _pad) = populated();
    let bk = env.path().join("bk");
    env.json(&["backup", bk.to_str().unwrap()]);
    let target = env.path().join("target");
    let to = target.to_str().unwrap().to_owned();
    let bk_s = bk.to_str().unwrap().to_owned();
    let refused = |code: i32, error: &str| {
        let e = env.json_err(&["restore", &bk_s, "--to", &to], code);
        assert_eq!(e["error"], error, "{e}");
        assert!(!target.exists(), "a refused restore leaves nothing behind");
        e
    };

    // A journal entry altered in the backup.
    let db = bk.join(".locker/locker.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute("UPDATE journal SET actor = 'mallory' WHERE seq = 2", []).unwrap();
    let e = refused(6, "backup_broken");
    assert_eq!(e["problem_count"], 1);
    assert_eq!(e["problems"][0]["seq"], 2);
    conn.execute("UPDATE journal SET actor = 'operator' WHERE seq = 2", []).unwrap();
    drop(conn);
    env.json(&["restore", &bk_s, "--to", &to]);
    std::fs::remove_dir_all(&target).unwrap();

    // A blob file altered in the backup.
    let blob = tree(&bk.join(".locker/objects")).into_iter().find(|p| p.is_file()).unwrap();
    let good = std::fs::read(&blob).unwrap();
    std::fs::write(&blob, b"tampered").unwrap();
    let e = refused(6, "backup_broken");
    assert!(e["problems"][0]["detail"].as_str().unwrap().contains("altered"), "{e}");
    std::fs::write(&blob, &good).unwrap();

    // A symbolic link inside the backup.
    let link = bk.join(".locker/objects/link");
    std::os::unix::fs::symlink("/etc/passwd", &link).unwrap();
    refused(6, "bad_backup");
    std::fs::remove_file(&link).unwrap();

    // A database that is not one.
    let saved = std::fs::read(&db).unwrap();
    std::fs::write(&db, b"not a database at all, not even close........................").unwrap();
    refused(6, "bad_backup");
    std::fs::write(&db, &saved).unwrap();

    // No backup there at all.
    let e =
        env.json_err(&["restore", env.path().join("nothing").to_str().unwrap(), "--to", &to], 3);
    assert_eq!(e["error"], "no_backup");
    // An agent cannot restore.
    let out = env
        .locker()
        .env("LOCKER_TOKEN", "whatever")
        .args(["--json", "restore", &bk_s, "--to", &to])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(5));
    assert!(!target.exists());

    // Intact again, it restores.
    env.json(&["restore", &bk_s, "--to", &to]);
}

/// Writer processes at once during the backup, and the appends each makes at least after it.
const WRITERS: usize = 4;
const AFTER_BACKUP: usize = 3;

#[test]
fn test_backup_during_a_burst_of_appends_restores_every_acknowledged_block() {
    if crate::common::sqlite_only("reads or tampers with the SQLite files directly") {
        return;
    }
    let env = TestEnv::init();
    let pads: Vec<Pad> =
        (0..WRITERS).map(|_| env.pad_with_envelope(&["--max-blocks", "4096"])).collect();
    // Every acknowledged append, with when its process had exited.
    let acks: Mutex<Vec<(String, u64, String, Instant)>> = Mutex::new(Vec::new());
    let backup_done = AtomicBool::new(false);
    let total = AtomicUsize::new(0);
    let dest = env.path().join("bk");
    let (started, out) = std::thread::scope(|s| {
        for (w, pad) in pads.iter().enumerate() {
            let (acks, backup_done, total, env) = (&acks, &backup_done, &total, &env);
            s.spawn(move || {
                let mut after = 0;
                let deadline = Instant::now() + Duration::from_secs(120);
                for i in 0.. {
                    if backup_done.load(Ordering::SeqCst) {
                        after += 1;
                        if after > AFTER_BACKUP {
                            break;
                        }
                    }
                    assert!(Instant::now() < deadline, "writer {w} ran too long");
                    let data = format!("writer {w} block {i}");
                    let out = env
                        .process()
                        .args(["--json", "append", &pad.id, "--key", &pad.key, "--data", &data])
                        .output()
                        .unwrap();
                    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
                    let at = Instant::now();
                    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
                    acks.lock().unwrap().push((
                        pad.id.clone(),
                        v["seq"].as_u64().unwrap(),
                        v["curr_hash"].as_str().unwrap().to_owned(),
                        at,
                    ));
                    total.fetch_add(1, Ordering::SeqCst);
                }
            });
        }
        // Let the burst get going, then back up in the middle of it.
        while total.load(Ordering::SeqCst) < 2 * WRITERS {
            std::thread::sleep(Duration::from_millis(5));
        }
        let started = Instant::now();
        let out =
            env.process().args(["--json", "backup", dest.to_str().unwrap()]).output().unwrap();
        backup_done.store(true, Ordering::SeqCst);
        (started, out)
    });
    assert!(out.status.success(), "backup: {}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["verified"], true);

    let acks = acks.into_inner().unwrap();
    let before: Vec<_> = acks.iter().filter(|a| a.3 < started).collect();
    assert!(before.len() >= 2 * WRITERS);
    assert!(acks.len() >= before.len() + WRITERS * AFTER_BACKUP, "writers went on");

    // The backup restores into a repository that verifies and holds every block acknowledged
    // before it started, with the acknowledged hash.
    let target = env.path().join("restored");
    env.json(&["restore", dest.to_str().unwrap(), "--to", target.to_str().unwrap()]);
    let v = env.json(&["-R", target.to_str().unwrap(), "verify"]);
    assert_eq!(v["ok"], true, "{v}");
    let conn = rusqlite::Connection::open(target.join(".locker/locker.db")).unwrap();
    for (pad, seq, hash, _) in &before {
        let stored: String = conn
            .query_row(
                "SELECT lower(hex(curr_hash)) FROM blocks WHERE pad_id = ?1 AND seq = ?2",
                rusqlite::params![pad, *seq as i64],
                |r| r.get(0),
            )
            .unwrap_or_else(|e| panic!("block {seq} of pad {pad} is missing: {e}"));
        assert_eq!(&stored, hash);
    }
    // The live repository verifies too, with everything.
    let (code, live) = env.verify();
    assert_eq!(code, 0, "{live}");
    assert_eq!(live["pads"]["blocks"], acks.len() + WRITERS);
}
