//! `locker gc`: retention that keeps verification intact. Pruned pads keep their hashes and
//! verify as pruned, not broken; every run is journaled; `--dry-run` changes nothing.

use serde_json::Value;

use crate::common::{Pad, TestEnv, ENVELOPE, NOW};

/// A pad sealed at NOW, an open pad that never expires in these tests, an open pad that
/// expires at NOW + 10 and an empty sealed pad.
fn setup() -> (TestEnv, Pad, Pad, Pad) {
    let env = TestEnv::init();
    let sealed = env.pad_with_envelope(&[]);
    env.append(&sealed, "a second block");
    env.json(&["seal", &sealed.id, "--key", &sealed.key]);
    let open = env.pad_with_envelope(&["--ttl", "2592000"]);
    let expiring = env.pad_with_envelope(&["--ttl", "10"]);
    let empty = env.create_pad(&[]);
    env.json(&["seal", &empty.id, "--key", &empty.key]);
    (env, sealed, open, expiring)
}

/// Asserts that no copy of `needles` is left in the SQLite files (free space, write-ahead
/// log) of `env`'s repository; PostgreSQL keeps its own files.
fn assert_gone_from_files(env: &TestEnv, needles: &[&str]) {
    if crate::common::on_postgres() {
        return;
    }
    let dot = env.path().join(".locker");
    for file in ["locker.db", "locker.db-wal"] {
        let bytes = std::fs::read(dot.join(file)).unwrap_or_default();
        for needle in needles {
            let found = bytes.windows(needle.len()).any(|w| w == needle.as_bytes());
            assert!(!found, "{needle:?} is still in {file}");
        }
    }
}

fn ids(v: &Value) -> Vec<String> {
    let mut ids: Vec<String> =
        v.as_array().unwrap().iter().map(|p| p["pad_id"].as_str().unwrap().to_owned()).collect();
    ids.sort();
    ids
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

#[test]
fn test_gc_prunes_old_pads_and_verify_reports_them_pruned() {
    let (env, sealed, open, expiring) = setup();
    let later = NOW + 100;
    let out = env.json_at(later, &["gc", "--yes", "--pads-older-than", "60s"]);
    assert_eq!(out["dry_run"], false);
    assert_eq!(out["pads_older_than"], 60);
    // Sealed 100 s ago and expired 90 s ago: both go. The open pad and the empty one stay.
    assert_eq!(ids(&out["pads"]), sorted(vec![sealed.id.clone(), expiring.id.clone()]));
    let by_id = |id: &str| {
        out["pads"].as_array().unwrap().iter().find(|p| p["pad_id"] == id).unwrap().clone()
    };
    assert_eq!(by_id(&sealed.id)["reason"], "sealed");
    assert_eq!(by_id(&sealed.id)["blocks"], 2);
    assert_eq!(by_id(&sealed.id)["bytes"], ENVELOPE.len() + "a second block".len());
    assert_eq!(by_id(&expiring.id)["reason"], "expired");
    assert_eq!(by_id(&expiring.id)["since"], NOW + 10);
    let seq = out["journal_seq"].as_u64().unwrap();
    assert_gone_from_files(&env, &["a second block"]);

    // The payloads are gone from the store; the hashes and lengths stay.
    let conn = env.sql();
    let (payload, pruned): (Vec<u8>, Option<i64>) = conn
        .query_row(
            "SELECT payload, pruned_bytes FROM blocks WHERE pad_id = ?1 AND seq = 1",
            [&sealed.id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert!(payload.is_empty());
    assert_eq!(pruned, Some("a second block".len() as i64));
    let open_payloads: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM blocks WHERE pad_id = ?1 AND pruned_bytes IS NULL",
            [&open.id],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(open_payloads, 1);

    // verify: intact, with the pruned pads counted as pruned.
    let (code, v) = env.verify();
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["pads"]["pruned"], 2);
    assert_eq!(v["pads"]["pruned_blocks"], 3);
    assert_eq!(v["pads"]["broken"], 0);
    assert_eq!(v["gc"]["runs"], 1);
    assert_eq!(v["gc"]["pads"], 2);
    assert_eq!(v["gc"]["last_at"], later);
    let human = env.locker().arg("verify").output().unwrap();
    let text = String::from_utf8(human.stdout).unwrap();
    assert!(text.contains("2 pruned (3 blocks)"), "{text}");
    assert!(text.contains("gc:      1 run(s)"), "{text}");
    let one = env.json(&["verify", &sealed.id]);
    assert_eq!(one["ok"], true, "{one}");
    assert_eq!(one["blocks_pruned"], 2);
    assert_eq!(one["pruned_at"], later);

    // Reading a pruned pad is gone (exit 7), after the ticket check; its manifest says so.
    let e = env.json_err(&["pad", "read", &sealed.id, "--ticket", &sealed.ticket], 7);
    assert_eq!(e["error"], "pruned");
    assert_eq!(e["pruned_at"], later);
    env.json_err(&["pad", "read", &sealed.id, "--ticket", "wrong"], 5);
    let m = env.json(&["pad", "show", &sealed.id]);
    assert_eq!(m["pruned_at"], later);
    // Nor can it be exported: a bundle needs the payloads.
    let bundle = env.path().join("pruned.bundle");
    let e = env.json_err(&["pad", "export", &sealed.id, "-o", bundle.to_str().unwrap()], 7);
    assert_eq!(e["error"], "pruned");
    assert!(!bundle.exists());
    assert_eq!(m["block_count"], 2);
    let m = env.json(&["pad", "show", &open.id]);
    assert!(m.get("pruned_at").is_none(), "{m}");
    // The open pad still reads.
    let r = env.json(&["pad", "read", &open.id, "--ticket", &open.ticket]);
    assert_eq!(r["blocks"][0]["payload_utf8"], ENVELOPE);

    // The run is one journal entry listing what went.
    let log = env.json(&["log", "--kind", "repo.gc"]);
    let entry = if log.get("entries").is_some() { log["entries"][0].clone() } else { log };
    assert_eq!(entry["seq"], seq);
    assert_eq!(entry["subject"], "repo");
    assert_eq!(entry["actor"], "operator");
    assert_eq!(ids(&entry["body"]["pads"]), sorted(vec![sealed.id.clone(), expiring.id.clone()]));

    // A second run finds nothing more: a pad is pruned once.
    let again = env.json_at(later + 10, &["gc", "--yes", "--pads-older-than", "0s"]);
    assert_eq!(again["pads"], Value::Array(vec![]));
    let (code, v) = env.verify();
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["gc"]["runs"], 2);

    // A backup of a pruned repository verifies and restores; a copy of it (the way a
    // PostgreSQL store is backed up) verifies too.
    let bk = env.path().join("bk");
    if !crate::common::on_postgres() {
        let b = env.json(&["backup", bk.to_str().unwrap()]);
        assert_eq!(b["pruned_pads"], 2);
    }
    let cp = env.path().join("cp");
    env.json(&["store", "copy", "--to", cp.to_str().unwrap()]);
    let v = env.json(&["-R", cp.to_str().unwrap(), "verify"]);
    assert_eq!(v["pads"]["pruned"], 2, "{v}");
}

#[test]
fn test_gc_dry_run_shows_what_would_go_and_changes_nothing() {
    let (env, sealed, _open, expiring) = setup();
    let before = env.snapshot();
    let out = env.json_at(NOW + 50, &["gc", "--dry-run", "--pads-older-than", "30s", "--blobs"]);
    assert_eq!(out["dry_run"], true);
    // Sealed 50 s ago, expired 40 s ago.
    assert_eq!(ids(&out["pads"]), sorted(vec![sealed.id.clone(), expiring.id.clone()]));
    assert_eq!(out["journal_seq"], Value::Null);
    assert_eq!(env.snapshot(), before);
    let human = env
        .locker()
        .env("LOCKER_NOW", (NOW + 50).to_string())
        .args(["gc", "--dry-run", "--pads-older-than", "30s"])
        .output()
        .unwrap();
    let text = String::from_utf8(human.stdout).unwrap();
    assert!(text.contains(&format!("would prune pad {}", sealed.id)), "{text}");
    assert!(text.contains("dry run, nothing changed"), "{text}");
    assert_eq!(env.snapshot(), before);
}

#[test]
fn test_gc_keeps_pads_younger_than_the_age() {
    let (env, _sealed, _open, _expiring) = setup();
    let out = env.json_at(NOW + 10, &["gc", "--yes", "--pads-older-than", "1h"]);
    assert_eq!(out["pads"], Value::Array(vec![]));
    // Even a run that removed nothing is journaled.
    assert!(out["journal_seq"].is_u64());
    let (code, v) = env.verify();
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["pads"]["pruned"], 0);
}

#[test]
fn test_gc_refusals_change_nothing() {
    let (env, _sealed, _open, _expiring) = setup();
    // No policy: usage error.
    let e = env.fails(&["gc"], 2, "usage", "gc needs a policy: nothing would be removed");
    assert!(e["hints"][0].as_str().unwrap().contains("--pads-older-than"));
    // A malformed age: clap's usage error.
    let before = env.snapshot();
    for bad in ["1y", "-1d", "x", ""] {
        let out = env.run(&["gc", "--pads-older-than", bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
    }
    // An agent cannot run gc.
    let token = env.json(&["--scope", "team", "token", "create", "--agent", "w"])["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let before_token = env.snapshot();
    let out = env
        .locker()
        .env("LOCKER_TOKEN", &token)
        .args(["--json", "gc", "--pads-older-than", "0s", "--blobs"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(5));
    let e: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(e["error"], "forbidden");
    assert_eq!(env.snapshot(), before_token);
    assert_ne!(before, before_token);
}

#[test]
fn test_gc_removes_unreferenced_blobs_and_stray_files_only() {
    if crate::common::sqlite_only("reads or tampers with the SQLite files directly") {
        return;
    }
    let env = TestEnv::init();
    let big = env.file("big.bin", &vec![b'B'; 70_000]);
    let v = env.json(&["artifact", "publish", "big", &big, "--expect", "0", "--op", "o1"]);
    let sha = v["artifact"]["sha256"].as_str().unwrap().to_owned();
    let objects = env.path().join(".locker/objects");
    let kept = objects.join(&sha[..2]).join(&sha[2..]);
    assert!(kept.is_file());
    // What a process killed mid-publish leaves: a blob file with no row, a temporary file.
    let orphan_hex = "ab".repeat(32);
    let orphan = objects.join(&orphan_hex[..2]).join(&orphan_hex[2..]);
    std::fs::create_dir_all(orphan.parent().unwrap()).unwrap();
    std::fs::write(&orphan, vec![1u8; 70_001]).unwrap();
    std::fs::write(objects.join(".tmp-deadbeef"), b"half").unwrap();
    // And a blob row no version names.
    let lonely = "cd".repeat(32);
    env.sql()
        .execute(
            "INSERT INTO blobs (digest, size, storage, data, created_at) \
             VALUES (?1, 3, 'inline', X'010203', 0)",
            [&lonely],
        )
        .unwrap();
    // Files locker does not know are left alone.
    std::fs::write(objects.join("README"), b"operator's note").unwrap();

    let dry = env.json(&["gc", "--blobs", "--dry-run"]);
    assert_eq!(dry["blobs"][0]["sha256"], lonely.as_str());
    let strays: Vec<&str> = dry["stray_files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["location"].as_str().unwrap())
        .collect();
    assert_eq!(
        strays,
        vec![
            "objects/.tmp-deadbeef".to_owned(),
            format!("objects/{}/{}", &orphan_hex[..2], &orphan_hex[2..])
        ]
    );
    assert!(orphan.is_file());

    let out = env.json(&["gc", "--yes", "--blobs"]);
    assert_eq!(out["blob_bytes"], 3 + 70_001 + 4);
    assert!(!orphan.exists());
    assert!(!objects.join(".tmp-deadbeef").exists());
    assert!(objects.join("README").exists());
    assert!(kept.is_file());
    let rows: i64 = env.sql().query_row("SELECT COUNT(*) FROM blobs", [], |r| r.get(0)).unwrap();
    assert_eq!(rows, 1);
    let got = env.locker().args(["artifact", "get", "big"]).output().unwrap();
    assert_eq!(got.stdout, vec![b'B'; 70_000]);
    let (code, v) = env.verify();
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["gc"]["blobs"], 3);
    assert_eq!(v["gc"]["blob_bytes"], 3 + 70_001 + 4);
    // Nothing is left for a second run.
    let again = env.json(&["gc", "--yes", "--blobs"]);
    assert_eq!(again["blobs"], Value::Array(vec![]));
    assert_eq!(again["stray_files"], Value::Array(vec![]));
}

#[test]
fn test_verify_catches_tampering_with_pruned_pads() {
    let (env, sealed, open, _expiring) = setup();
    env.json_at(NOW + 100, &["gc", "--yes", "--pads-older-than", "60s"]);
    assert_eq!(env.verify().0, 0);
    let broken = |sql: &str, undo: &str, needle: &str, pad: &str| {
        env.sql().execute_batch(sql).unwrap();
        let (code, v) = env.verify();
        assert_eq!(code, 1, "{sql}: {v}");
        let first = &v["first_broken"]["pad"];
        assert_eq!(first["subject"], format!("pad:{pad}"), "{sql}: {v}");
        let all = v["problems"].to_string();
        assert!(all.contains(needle), "{sql}: {needle} not in {all}");
        env.sql().execute_batch(undo).unwrap();
        assert_eq!(env.verify().0, 0, "{undo}");
    };
    let id = &sealed.id;
    // Hiding a payload of a pad no gc pruned, by marking its block pruned.
    broken(
        &format!(
            "UPDATE blocks SET pruned_bytes = length(payload), payload = X'' \
             WHERE pad_id = '{0}' AND seq = 0",
            open.id
        ),
        &format!(
            "UPDATE blocks SET pruned_bytes = NULL, payload = CAST('{1}' AS BLOB) \
             WHERE pad_id = '{0}' AND seq = 0",
            open.id, ENVELOPE
        ),
        "the journal records no gc of this pad",
        &open.id,
    );
    // A pruned block's recorded length changed.
    broken(
        &format!(
            "UPDATE blocks SET pruned_bytes = pruned_bytes + 1 WHERE pad_id = '{id}' AND seq = 1"
        ),
        &format!(
            "UPDATE blocks SET pruned_bytes = pruned_bytes - 1 WHERE pad_id = '{id}' AND seq = 1"
        ),
        "block 1 has the length",
        id,
    );
    // The pad's pruning undone in its row.
    broken(
        &format!("UPDATE pads SET pruned_at = NULL WHERE id = '{id}'"),
        &format!("UPDATE pads SET pruned_at = {} WHERE id = '{id}'", NOW + 100),
        "pruned_at",
        id,
    );
    // A pruned block's hash rewritten together with its successor's link and the head: the
    // chain still links, but the hash is not the one the journal recorded.
    let (h0, h1): (String, String) = env
        .sql()
        .query_row(
            "SELECT (SELECT lower(hex(curr_hash)) FROM blocks WHERE pad_id = ?1 AND seq = 0), \
                    (SELECT lower(hex(curr_hash)) FROM blocks WHERE pad_id = ?1 AND seq = 1)",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    let forged = "f".repeat(64);
    // Block 1 is the pad's last: SQLite's head is its hash, PostgreSQL's is in the pad's row.
    let head = |h: &str| {
        if env.sql().keeps_pad_heads() {
            format!("UPDATE pads SET head_hash = '{h}' WHERE id = '{id}';")
        } else {
            String::new()
        }
    };
    broken(
        &format!(
            "UPDATE blocks SET curr_hash = unhex('{forged}') WHERE pad_id = '{id}' AND seq = 1; {}",
            head(&forged)
        ),
        &format!(
            "UPDATE blocks SET curr_hash = unhex('{h1}') WHERE pad_id = '{id}' AND seq = 1; {}",
            head(&h1)
        ),
        "block 1 has the hash",
        id,
    );
    broken(
        &format!(
            "UPDATE blocks SET curr_hash = unhex('{forged}') WHERE pad_id = '{id}' AND seq = 0; \
             UPDATE blocks SET prev_hash = unhex('{forged}') WHERE pad_id = '{id}' AND seq = 1;"
        ),
        &format!(
            "UPDATE blocks SET curr_hash = unhex('{h0}') WHERE pad_id = '{id}' AND seq = 0; \
             UPDATE blocks SET prev_hash = unhex('{h0}') WHERE pad_id = '{id}' AND seq = 1;"
        ),
        "block 0 has the hash",
        id,
    );
    // The one-pad verify sees it too.
    env.sql()
        .execute_batch(&format!(
            "UPDATE blocks SET pruned_bytes = pruned_bytes + 1 WHERE pad_id = '{id}' AND seq = 1"
        ))
        .unwrap();
    let out = env.run(&["verify", id]);
    assert_eq!(out.status.code(), Some(1));
}

/// Abandoned work at NOW + 100: `old-job`'s lease (a plan, a heartbeat with details, a step)
/// expired at NOW + 60 and was reaped; `done-job`'s lease was completed; `live-job`'s is active.
fn abandoned_setup() -> (TestEnv, String) {
    let mut env = TestEnv::init();
    let lease = |v: Value| v["lease_id"].as_str().unwrap().to_owned();
    let old = lease(env.json(&["lease", "acquire", "old-job", "--holder", "a", "--ttl", "60"]));
    env.json(&["manifest", "commit", "old-job", "--lease", &old, "fetch", "build"]);
    env.json(&["lease", "heartbeat", "old-job", "--lease", &old, "--details", "half way"]);
    env.json(&["step", "old-job", "fetch", "--lease", &old, "--executed", "fetched 3 files"]);
    let done = lease(env.json(&["lease", "acquire", "done-job", "--holder", "b", "--ttl", "600"]));
    env.json(&["lease", "heartbeat", "done-job", "--lease", &done, "--details", "kept"]);
    env.json(&["lease", "complete", "done-job", "--lease", &done, "--result", "ok"]);
    env.now = NOW + 100;
    env.json(&["lease", "acquire", "live-job", "--holder", "c", "--ttl", "86400"]);
    assert_eq!(env.json(&["lease", "reap"])["abandoned"][0]["lease_id"], old.as_str());
    (env, old)
}

/// `old-job` is taken up again: a new lease (fencing token 2) commits plan v2, so the plan of
/// the abandoned lease is no longer the work item's current plan. Returns the new lease.
fn supersede(env: &TestEnv) -> String {
    let next = env.json(&["lease", "acquire", "old-job", "--holder", "d", "--ttl", "86400"]);
    assert_eq!(next["fence"], 2);
    let lease = next["lease_id"].as_str().unwrap().to_owned();
    let plan = env.json(&["manifest", "commit", "old-job", "--lease", &lease, "fetch"]);
    assert_eq!(plan["version"], 2, "plan versions number on");
    lease
}

/// The lease `id` as `lease list` shows it.
fn listed(env: &TestEnv, id: &str) -> Value {
    let list = env.json(&["lease", "list"]);
    list["leases"].as_array().unwrap().iter().find(|l| l["lease_id"] == id).unwrap().clone()
}

#[test]
fn test_gc_prunes_abandoned_work_and_verify_reports_it_pruned() {
    let (mut env, old) = abandoned_setup();
    // Abandoned an hour ago: younger than 2h, older than 30m.
    env.now = NOW + 100 + 3600;
    assert_eq!(
        env.json(&["gc", "--yes", "--abandoned-older-than", "2h"])["leases"],
        Value::Array(vec![])
    );
    // Its plan is still old-job's current plan: kept whole, so `manifest diff` still gates.
    let out = env.json(&["gc", "--yes", "--abandoned-older-than", "30m"]);
    assert_eq!(
        (out["leases"].as_array().unwrap().len(), out["current_plans_kept"].as_u64()),
        (0, Some(1))
    );
    assert_eq!(env.run(&["manifest", "diff", "old-job"]).status.code(), Some(1));
    supersede(&env);
    let out = env.json(&["gc", "--yes", "--abandoned-older-than", "30m"]);
    assert_eq!(out["abandoned_older_than"], 1800);
    let leases = out["leases"].as_array().unwrap();
    assert_eq!(leases.len(), 1, "{out}");
    let l = &leases[0];
    assert_eq!((l["lease_id"].as_str().unwrap(), l["work"].as_str().unwrap()), (&*old, "old-job"));
    assert_eq!((l["plans"].as_u64(), l["steps"].as_u64()), (Some(1), Some(1)));
    assert_eq!(l["abandoned_at"], NOW + 100);
    // "half way" + ["fetch","build"] + "fetched 3 files".
    let bytes = ("half way".len() + r#"["fetch","build"]"#.len() + "fetched 3 files".len()) as u64;
    assert_eq!(l["bytes"], bytes);
    assert_eq!(out["work_bytes"], bytes);
    let seq = out["journal_seq"].as_u64().unwrap();

    // The text is gone from the rows and was never in the journal; the rest stays.
    let db = env.sql();
    let count = |sql: &str| db.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap();
    for needle in ["half way", "fetched 3 files", "\"fetch\",\"build\""] {
        let like = needle.replace('\'', "''");
        assert_eq!(
            count(&format!(
                "SELECT (SELECT count(*) FROM journal WHERE CAST(entry AS TEXT) LIKE '%{like}%') \
                 + (SELECT count(*) FROM leases WHERE details LIKE '%{like}%') \
                 + (SELECT count(*) FROM plans WHERE steps LIKE '%{like}%') \
                 + (SELECT count(*) FROM steps WHERE executed LIKE '%{like}%')"
            )),
            0,
            "{needle}"
        );
    }
    // Nor is any copy left in the SQLite files' free space or write-ahead log.
    assert_gone_from_files(&env, &["half way", "fetched 3 files"]);
    let show = listed(&env, &old);
    assert_eq!(show["pruned_at"], NOW + 100 + 3600);
    assert_eq!(show["heartbeat_details"], Value::Null);
    assert_eq!((show["fence"].as_u64(), show["heartbeats"].as_u64()), (Some(1), Some(1)));
    let plan = env.json(&["manifest", "show", "old-job", "--version", "1"]);
    assert_eq!(plan["steps"], Value::Array(vec![]));
    assert_eq!(plan["pruned_at"], NOW + 100 + 3600);
    // The current plan (v2) keeps its steps.
    assert_eq!(env.json(&["manifest", "show", "old-job"])["steps"], serde_json::json!(["fetch"]));
    // Completed and active work keeps its text.
    assert_eq!(env.json(&["lease", "show", "done-job"])["heartbeat_details"], "kept");
    assert_eq!(env.json(&["lease", "show", "done-job"]).get("pruned_at"), None);

    // verify and history: pruned, not broken.
    let (code, v) = env.verify();
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["gc"]["leases"], 1);
    assert_eq!(v["leases"]["ok"], true);
    let h = env.json(&["lease", "history", "old-job"]);
    assert_eq!(h["integrity"], "ok", "{h}");
    let human = env.locker().arg("verify").output().unwrap();
    let text = String::from_utf8(human.stdout).unwrap();
    assert!(text.contains("and 1 abandoned leases"), "{text}");
    // The run is journaled: the newest repo.gc entry lists the lease.
    let log = String::from_utf8(env.run(&["log", "--kind", "repo.gc"]).stdout).unwrap();
    let entry: Value = serde_json::from_str(log.lines().next().unwrap()).unwrap();
    assert_eq!(entry["seq"], seq, "{entry}");
    assert!(entry.to_string().contains(&old), "{entry}");

    // Nothing is pruned twice.
    env.now += 7200;
    assert_eq!(
        env.json(&["gc", "--yes", "--abandoned-older-than", "1s"])["leases"],
        Value::Array(vec![])
    );
    assert_eq!(env.verify().0, 0);
}

#[test]
fn test_gc_dry_run_of_abandoned_work_changes_nothing() {
    let (mut env, old) = abandoned_setup();
    supersede(&env);
    env.now = NOW + 100 + 60;
    let before = env.snapshot();
    let out = env.json(&["gc", "--dry-run", "--abandoned-older-than", "0s"]);
    assert_eq!(out["leases"][0]["lease_id"], old.as_str());
    assert_eq!(out["journal_seq"], Value::Null);
    assert_eq!(env.snapshot(), before);
    let human = env.locker().args(["gc", "--dry-run", "--abandoned-older-than", "0s"]).output();
    let text = String::from_utf8(human.unwrap().stdout).unwrap();
    assert!(text.contains(&format!("would prune lease {old} of work item old-job")), "{text}");
    assert!(text.contains("1 abandoned leases (40 bytes of text)"), "{text}");
    assert_eq!(env.snapshot(), before);
    // A negative or malformed age is a usage error and changes nothing.
    for bad in ["-1s", "soon"] {
        assert_eq!(env.run(&["gc", "--abandoned-older-than", bad]).status.code(), Some(2));
    }
    assert_eq!(env.snapshot(), before);
}

/// Clearing a lease's text behind locker's back, or putting text back into a pruned one, is
/// caught: a pruned row must match a `repo.gc` entry, and a kept one its journal digests.
#[test]
fn test_verify_catches_tampering_with_abandoned_work() {
    let tampers = [
        // Hiding text without a gc run.
        "UPDATE steps SET executed = NULL, pruned_at = 1 WHERE step = 'fetch'",
        "UPDATE leases SET details = NULL WHERE work = 'old-job'",
        "UPDATE plans SET steps = '[\"fetch\"]' WHERE work = 'old-job'",
        "UPDATE leases SET pruned_at = 5 WHERE work = 'done-job'",
    ];
    for sql in tampers {
        let (env, _old) = abandoned_setup();
        env.sql().execute(sql, []).unwrap();
        let (code, v) = env.verify();
        assert_eq!(code, 1, "{sql}: {v}");
        assert_eq!(v["leases"]["ok"], false, "{sql}");
        let (code, _) = (env.run(&["lease", "history", "old-job"]).status.code(), ());
        if !sql.contains("done-job") {
            assert_eq!(code, Some(1), "{sql}");
        }
    }
    // After a real gc: putting text back into a pruned row is caught too.
    let (mut env, _old) = abandoned_setup();
    supersede(&env);
    env.now = NOW + 200;
    env.json(&["gc", "--yes", "--abandoned-older-than", "0s"]);
    assert_eq!(env.verify().0, 0);
    env.sql().execute("UPDATE steps SET executed = 'forged' WHERE step = 'fetch'", []).unwrap();
    let (code, v) = env.verify();
    assert_eq!(code, 1, "{v}");
    let detail = v["first_broken"]["step"]["detail"].as_str().unwrap_or_default().to_owned();
    assert!(v.to_string().contains("forged"), "{v}{detail}");
}

/// See: #17. The issue's gate: a plan committed under a lease that was later abandoned is still
/// the work item's current plan; gc used to empty it while a newer lease was active, and
/// `manifest diff` flipped from "holes" (exit 1) to "clean" (exit 0).
#[test]
fn test_gc_never_turns_a_failing_manifest_diff_green() {
    let (mut env, _old) = abandoned_setup();
    // A newer lease on old-job, with no plan of its own: the abandoned lease's plan is current.
    let next = env.json(&["lease", "acquire", "old-job", "--holder", "d", "--ttl", "2592000"]);
    let lease = next["lease_id"].as_str().unwrap().to_owned();
    let diff = |env: &TestEnv| {
        let out = env.run(&["manifest", "diff", "old-job"]);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        (out.status.code(), v)
    };
    let (code, before) = diff(&env);
    assert_eq!(code, Some(1));
    assert_eq!(before["holes"], serde_json::json!(["fetch", "build"]), "{before}");
    // Thirty-one days on, the newer lease kept alive by a heartbeat on the way.
    env.now += 20 * 86_400;
    env.json(&["lease", "heartbeat", "old-job", "--lease", &lease]);
    env.now += 11 * 86_400;
    let out = env.json(&["gc", "--yes", "--abandoned-older-than", "30d"]);
    assert_eq!(out["current_plans_kept"], 1, "{out}");
    assert_eq!(out["leases"], Value::Array(vec![]));
    assert_eq!(listed(&env, &lease)["state"], "active");
    let (code, after) = diff(&env);
    assert_eq!(code, Some(1), "still failing: {after}");
    assert_eq!((&after["holes"], &after["lease_id"]), (&before["holes"], &next["lease_id"]));
    assert_eq!(env.verify().0, 0);
}

/// See: #17. A current plan pruned anyway (by an older locker's gc) makes `manifest diff` fail
/// closed: "plan pruned", exit 1, never "clean".
#[test]
fn test_manifest_diff_of_a_pruned_plan_fails_closed() {
    let (env, _old) = abandoned_setup();
    env.sql()
        .execute("UPDATE plans SET steps = '[]', pruned_at = 1 WHERE work = 'old-job'", [])
        .unwrap();
    let out = env.run(&["manifest", "diff", "old-job"]);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((v["clean"].as_bool(), v["plan_pruned"].as_bool()), (Some(false), Some(true)));
    let text = String::from_utf8(
        env.locker().args(["manifest", "diff", "old-job"]).output().unwrap().stdout,
    )
    .unwrap();
    assert!(text.contains("plan pruned"), "{text}");
    // Over HTTP too.
    let s = env.serve(&[]);
    let d = s.curl_json("/v1/manifest/diff?work=old-job", &[], 200);
    assert_eq!((d["clean"].as_bool(), d["plan_pruned"].as_bool()), (Some(false), Some(true)));
}

/// See: #17. The other gates gc could weaken fail closed too: `review` of a pruned pad cannot
/// pass (its payloads are gone: exit 7, `pruned`), and `verify --expect-head` still checks the
/// head of a pruned pad against the journal.
#[test]
fn test_gc_never_turns_a_failing_review_or_verify_green() {
    let (env, sealed, _open, _expiring) = setup();
    let later = NOW + 100;
    env.json_at(later, &["gc", "--yes", "--pads-older-than", "60s"]);
    let out = env
        .locker()
        .env("LOCKER_NOW", later.to_string())
        .args(["--json", "review", &sealed.id])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(7), "{}", String::from_utf8_lossy(&out.stderr));
    let e: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(e["error"], "pruned", "{e}");
    let wrong = "1".repeat(64);
    let out = env.run(&["verify", &sealed.id, "--expect-head", &wrong]);
    assert_eq!(out.status.code(), Some(1));
}
