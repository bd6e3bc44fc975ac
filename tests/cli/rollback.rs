//! The log key's high-water mark (`.locker/keys/log.checkpoint`, the newest checkpoint the key
//! signed here): a database that lost entries the key signed (emptied, a lost write-ahead log,
//! rows rolled back or rewritten behind locker's back) is refused by every command that opens
//! it (exit 6, `rolled_back`, naming both sizes), reported by `verify` (exit 1) and `doctor`,
//! never re-initialised, and taken back only explicitly: `locker checkpoint --accept-rollback`,
//! which is journaled and signed. The signer never signs what it cannot prove extends the mark
//! (exit 4). See: #17.

use serde_json::Value;

use crate::common::TestEnv;

/// A repository with a few entries, each command having signed a checkpoint of the journal it
/// left.
fn busy() -> TestEnv {
    let env = TestEnv::init();
    let pad = env.pad_with_envelope(&[]);
    env.append(&pad, "second");
    env.create_pad(&[]);
    env.create_pad(&[]);
    env
}

fn count(env: &TestEnv, table: &str) -> i64 {
    env.sql().query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| r.get(0)).unwrap()
}

/// Rolls the journal back to its first `keep` entries behind locker's back, with its tree and
/// its head, as an older copy of the database would be; with `checkpoints`, the checkpoints
/// beyond it go too (else every one is deleted, as the attacker did).
fn roll_back(env: &TestEnv, keep: u64, keep_checkpoints: bool) {
    let conn = env.sql();
    let keep_i = i64::try_from(keep).unwrap();
    conn.drop_merkle_after(keep);
    conn.execute("DELETE FROM journal WHERE seq > ?1", [keep_i]).unwrap();
    if keep_checkpoints {
        conn.execute("DELETE FROM checkpoints WHERE size > ?1", [keep_i]).unwrap();
    } else {
        conn.execute("DELETE FROM checkpoints", []).unwrap();
    }
    conn.move_head_to_last();
}

/// Every command that opens the repository refuses it, naming both sizes, and changes nothing.
fn refused_everywhere(env: &TestEnv, entries: u64, mark: u64) {
    let note = env.mark_note();
    for args in [
        &["pad", "list"][..],
        &["pad", "create"],
        &["log"],
        &["checkpoint"],
        &["key", "show"],
        &["proof", "consistency", "1"],
        &["backup", "refused-backup"],
    ] {
        let e = env.json_err(args, 6);
        assert_eq!(e["error"], "rolled_back", "{args:?}: {e}");
        assert_eq!(
            (e["journal_entries"].as_u64(), e["mark_size"].as_u64()),
            (Some(entries), Some(mark))
        );
        let detail = e["detail"].as_str().unwrap();
        assert!(
            detail.contains(&format!("checkpoint of {mark} entries"))
                || detail.contains(&format!("first {mark} journal entries")),
            "{detail}"
        );
        assert!(e["hints"].to_string().contains("--accept-rollback"), "{e}");
    }
    assert_eq!(env.mark_note(), note, "the mark never moves back");
    assert!(!env.path().join("refused-backup").exists());
}

/// `verify` reports the rollback and exits 1.
fn verify_says_rolled_back(env: &TestEnv) -> Value {
    let (code, v) = env.verify();
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["ok"], false);
    assert_eq!(v["mark"]["ok"], false, "{v}");
    assert!(v["first_broken"]["rollback"]["detail"].as_str().unwrap().contains("high-water mark"));
    v
}

/// Empties the store: the SQLite file truncated and its write-ahead log gone, or every table of
/// the PostgreSQL database dropped.
fn empty_store(env: &TestEnv) {
    if crate::common::on_postgres() {
        env.sql().execute_batch("DROP SCHEMA public CASCADE; CREATE SCHEMA public;").unwrap();
        return;
    }
    std::fs::write(env.db_path(), b"").unwrap();
    for ext in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(env.path().join(format!(".locker/locker.db{ext}")));
    }
}

#[test]
fn test_an_emptied_database_is_refused_never_reinitialised() {
    let env = busy();
    let mark = env.mark_size();
    assert_eq!(mark, 6, "init, three pads and two appends, each command signed");
    empty_store(&env);
    refused_everywhere(&env, 0, mark);
    // Nothing made a schema anew.
    if crate::common::on_postgres() {
        let none: bool =
            env.sql().query_row("SELECT to_regclass('journal') IS NULL", [], |r| r.get(0)).unwrap();
        assert!(none);
    } else {
        assert_eq!(std::fs::metadata(env.db_path()).unwrap().len(), 0);
    }
    let v = verify_says_rolled_back(&env);
    assert_eq!(v["journal"]["entries"], 0);
    // doctor says what to do.
    let out = env.run(&["doctor"]);
    assert_eq!(out.status.code(), Some(1));
    let d: Value = serde_json::from_slice(&out.stdout).unwrap();
    let schema = d["findings"].as_array().unwrap().iter().find(|f| f["check"] == "schema").unwrap();
    assert_eq!(schema["status"], "problem", "{d}");
    assert!(schema["detail"].as_str().unwrap().contains("no schema"), "{d}");
    assert!(schema["fix"].as_str().unwrap().contains("locker restore"), "{d}");
}

#[test]
fn test_a_database_copied_without_its_write_ahead_log_is_refused() {
    if crate::common::sqlite_only("copies SQLite files") {
        return;
    }
    let env = busy();
    let mark = env.mark_size();
    // The data is still in the write-ahead log: a copy of locker.db alone has none of it.
    let alone = std::fs::read(env.db_path()).unwrap();
    std::fs::remove_file(env.path().join(".locker/locker.db-wal")).unwrap();
    let _ = std::fs::remove_file(env.path().join(".locker/locker.db-shm"));
    std::fs::write(env.db_path(), &alone).unwrap();
    let entries = if alone.is_empty() { 0 } else { 1 };
    let e = env.json_err(&["pad", "list"], 6);
    assert_eq!(e["error"], "rolled_back", "{e}");
    assert_eq!(e["mark_size"], mark);
    assert!(e["journal_entries"].as_u64().unwrap() <= entries);
    assert_eq!(std::fs::read(env.db_path()).unwrap(), alone, "never re-initialised");
    verify_says_rolled_back(&env);
}

#[test]
fn test_a_lost_write_ahead_log_is_refused_naming_both_sizes() {
    if crate::common::sqlite_only("deletes the SQLite write-ahead log") {
        return;
    }
    let env = busy();
    // gc folds the write-ahead log into locker.db; what comes after stays in the log.
    env.json(&["gc", "--blobs", "--yes"]);
    let folded: u64 = env.json(&["verify"])["journal"]["entries"].as_u64().unwrap();
    env.create_pad(&[]);
    env.create_pad(&[]);
    let mark = env.mark_size();
    assert!(mark > folded + 1, "{mark} {folded}");
    // A clean-up script deletes the log.
    std::fs::remove_file(env.path().join(".locker/locker.db-wal")).unwrap();
    let _ = std::fs::remove_file(env.path().join(".locker/locker.db-shm"));
    // Before, `pad list` answered an empty list with exit 0.
    let e = env.json_err(&["pad", "list"], 6);
    assert_eq!(e["error"], "rolled_back", "{e}");
    let entries = e["journal_entries"].as_u64().unwrap();
    assert!(entries < mark, "{e}");
    refused_everywhere(&env, entries, mark);
    verify_says_rolled_back(&env);
}

#[test]
fn test_a_journal_rolled_back_below_the_mark_is_refused_and_never_resigned() {
    let env = busy();
    let mark = env.mark_size();
    // The attacker: delete the checkpoints, roll the journal and the tree back below
    // the last checkpoint. `verify` used to pass and `locker checkpoint` to sign the shorter
    // tree with the same key.
    roll_back(&env, 3, false);
    refused_everywhere(&env, 3, mark);
    assert_eq!(count(&env, "checkpoints"), 0, "nothing was signed");
    let v = verify_says_rolled_back(&env);
    assert_eq!(v["journal"]["entries"], 3);
    let detail = v["mark"]["detail"].as_str().unwrap();
    assert!(detail.contains("holds 3 journal entries"), "{detail}");
    assert!(detail.contains(&format!("checkpoint of {mark} entries")), "{detail}");
}

#[test]
fn test_a_consistent_rewrite_after_dropping_checkpoints_is_refused() {
    let env = busy();
    let mark = env.mark_size();
    // Rewrite an old entry, re-hash the chain after it, drop the tree and the checkpoints:
    // `verify` used to say intact, and locker signed the forged tree itself.
    crate::sign::rewrite_entry(&env, 3, |b| b["bytes"] = 999.into());
    env.sql().drop_merkle();
    env.sql().execute_batch("DELETE FROM checkpoints;").unwrap();
    refused_everywhere(&env, mark, mark);
    assert_eq!(count(&env, "checkpoints"), 0, "the forged tree was not signed");
    let v = verify_says_rolled_back(&env);
    assert!(v["mark"]["detail"].as_str().unwrap().contains("rewritten"), "{v}");
}

#[test]
fn test_a_deleted_tree_and_checkpoints_fail_verify() {
    let env = busy();
    env.sql().drop_merkle();
    env.sql().execute_batch("DELETE FROM checkpoints;").unwrap();
    // It used to say "not built yet" and pass.
    let (code, v) = env.verify();
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["merkle"]["pending"], false);
    assert_eq!(v["merkle"]["ok"], false);
    let details = v["problems"].to_string();
    assert!(details.contains("the Merkle tree holds 0 hashes"), "{details}");
    assert!(details.contains("no signed checkpoint is stored"), "{details}");
    // The journal itself is intact: the mark holds, so the repository still opens.
    assert_eq!(v["mark"]["ok"], true, "{v}");
    // Without the mark too (the operator owns the files): still a failure, never "not built
    // yet", since the repository has a log key.
    crate::tlog::forget_mark(&env);
    let (code, v) = env.verify();
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["merkle"]["pending"], false);
    let details = v["problems"].to_string();
    assert!(details.contains("the checkpoints were deleted"), "{details}");
    assert!(details.contains("the Merkle tree holds 0 hashes"), "{details}");
    // Either one missing alone fails too.
    let env = busy();
    env.sql().execute_batch("DELETE FROM checkpoints;").unwrap();
    assert_eq!(env.verify().0, 1);
    let env = busy();
    env.sql().drop_merkle();
    assert_eq!(env.verify().0, 1);
}

#[test]
fn test_a_server_opened_before_a_rollback_refuses_to_sign_or_serve_it() {
    let env = busy();
    let s = env.serve(&[]);
    let url = s.url();
    // (The server's first start wrote its demo pad and signed it.)
    let cp = env.json(&["--remote", &url, "checkpoint"]);
    let mark = env.mark_size();
    assert_eq!(cp["size"], mark);
    // Rolled back behind the running server's back (its checkpoints kept): the signer and the
    // readers' checkpoint both refuse what does not extend the mark, exit 4.
    roll_back(&env, 3, true);
    let e = env.json_err(&["--remote", &url, "checkpoint"], 4);
    assert_eq!(e["error"], "inconsistent_tree", "{e}");
    // A write through the server grows the rolled-back journal; its signer refuses to sign it.
    let (code, body) =
        s.curl("/v1/pads", &["-X", "POST", "-H", "content-type: application/json", "-d", "{}"]);
    assert_eq!(code, 201, "{body}");
    let e = env.json_err(&["--remote", &url, "checkpoint"], 4);
    assert_eq!(e["error"], "inconsistent_tree", "{e}");
    let (_, log) = s.stop();
    assert!(log.contains("no checkpoint was signed"), "{log}");
    assert_eq!(env.mark_size(), mark, "the mark never moves back");
    let sizes: Vec<i64> = {
        let conn = env.sql();
        let mut stmt = conn.prepare("SELECT size FROM checkpoints ORDER BY size").unwrap();
        stmt.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
    };
    assert_eq!(sizes, [1, 2, 3], "nothing was signed over the rolled-back journal");
}

#[test]
fn test_accepting_a_deliberate_restore_is_journaled_and_signed() {
    if crate::common::sqlite_only("puts an older SQLite file back by hand") {
        return;
    }
    let env = busy();
    let token = env.json(&["token", "create", "--agent", "w", "--scope", "default"])["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let bk = env.path().join("bk");
    let older = env.json(&["backup", bk.to_str().unwrap()])["journal_entries"].as_u64().unwrap();
    env.create_pad(&[]);
    env.create_pad(&[]);
    let mark = env.mark_size();
    let old = env.mark_note();
    let vk = env.json(&["key", "show"])["vkey"].as_str().unwrap().to_owned();
    let state = env.path().join("reader").to_str().unwrap().to_owned();
    let pinned = env.json(&["checkpoint", "--key", &vk, "--state", &state]);
    assert_eq!(pinned["pin"]["status"], "pinned");
    // Nothing to accept while the journal extends the mark.
    let e = env.json_err(&["checkpoint", "--accept-rollback"], 4);
    assert_eq!(e["error"], "not_rolled_back");

    // The operator puts the older database back by hand.
    for ext in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(env.path().join(format!(".locker/locker.db{ext}")));
    }
    std::fs::copy(bk.join(".locker/locker.db"), env.db_path()).unwrap();
    refused_everywhere(&env, older, mark);
    // Only the operator accepts it.
    let out = env
        .locker()
        .env("LOCKER_TOKEN", &token)
        .args(["--json", "checkpoint", "--accept-rollback"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(5), "{}", String::from_utf8_lossy(&out.stderr));
    let out = env.json(&["checkpoint", "--accept-rollback"]);
    assert_eq!(out["abandoned_size"], mark);
    assert_eq!(out["restored_size"], older);
    assert_eq!(out["journal_seq"], older + 1);
    assert_eq!(out["checkpoint"]["size"], older + 1);
    assert_eq!(env.mark_size(), older + 1, "the mark moved to the acceptance, explicitly");
    // Journaled: the entry names the checkpoint given up, verbatim.
    let entry = env.json(&["log", "--kind", "repo.rollback"]);
    assert_eq!(entry["body"]["abandoned_checkpoint"], old.as_str(), "{entry}");
    assert_eq!(entry["body"]["abandoned_size"], mark);
    assert_eq!(entry["actor"], "operator");
    // Signed: the repository verifies and works again.
    let (code, v) = env.verify();
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["mark"]["size"], older + 1);
    env.pad_with_envelope(&[]);
    assert_eq!(env.verify().0, 0);
    // A reader pinned beyond the restored size sees the fork.
    let out = env.run(&["checkpoint", "--key", &vk, "--state", &state]);
    assert_eq!(out.status.code(), Some(1));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["pin"]["status"], "fork", "{r}");
}

#[test]
fn test_doctor_reports_a_rollback_with_what_to_do() {
    let env = busy();
    let out = env.run(&["doctor"]);
    let d: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mark = d["findings"].as_array().unwrap().iter().find(|f| f["check"] == "mark").unwrap();
    assert_eq!(mark["status"], "ok", "{d}");
    roll_back(&env, 3, true);
    let out = env.run(&["doctor"]);
    assert_eq!(out.status.code(), Some(1));
    let d: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mark = d["findings"].as_array().unwrap().iter().find(|f| f["check"] == "mark").unwrap();
    assert_eq!(mark["status"], "problem", "{d}");
    assert!(mark["detail"].as_str().unwrap().contains("holds 3 journal entries"), "{d}");
    let fix = mark["fix"].as_str().unwrap();
    assert!(fix.contains("locker restore BACKUP --yes"), "{fix}");
    assert!(fix.contains("locker checkpoint --accept-rollback"), "{fix}");
    assert!(fix.contains("repo.rollback"), "{fix}");
}
