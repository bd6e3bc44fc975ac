//! Content-addressed blobs: inline or in `.locker/objects/`, deduplicated, re-hashed on every
//! read, and checked by `verify`.

use std::path::PathBuf;

use crate::artifact::walk;
use crate::common::TestEnv;

fn publish_file(env: &TestEnv, key: &str, bytes: &[u8], op: &str) -> serde_json::Value {
    let file = env.path().join(format!("content-{op}"));
    std::fs::write(&file, bytes).unwrap();
    env.json(&["artifact", "publish", key, file.to_str().unwrap(), "--expect", "0", "--op", op])
}

fn object_path(env: &TestEnv, sha256: &str) -> PathBuf {
    env.path().join(".locker/objects").join(&sha256[..2]).join(&sha256[2..])
}

fn mode(p: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[test]
fn test_blob_small_inline_large_in_objects_and_deduplicated() {
    if crate::common::sqlite_only("reads or tampers with the SQLite files directly") {
        return;
    }
    let env = TestEnv::init();
    let inline = vec![b'i'; 64 * 1024];
    let large = vec![b'L'; 64 * 1024 + 1];
    publish_file(&env, "inline", &inline, "a");
    let v = publish_file(&env, "large", &large, "b");
    let sha = v["artifact"]["sha256"].as_str().unwrap().to_owned();
    // Exactly 64 KiB stays in the database; one byte more goes to objects/ab/cdef….
    let storage: Vec<(String, i64)> = env
        .sql()
        .prepare("SELECT storage, size FROM blobs ORDER BY size")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(storage, [("inline".into(), 65_536), ("file".into(), 65_537)]);
    let path = object_path(&env, &sha);
    assert_eq!(std::fs::read(&path).unwrap(), large);
    assert_eq!(mode(&path), 0o600);
    assert_eq!(mode(path.parent().unwrap()), 0o700);
    assert_eq!(walk(&env.path().join(".locker/objects")), std::slice::from_ref(&path));

    // The same content under another key, and as a second version: one blob, one file.
    publish_file(&env, "copy", &large, "c");
    env.json(&["artifact", "publish", "inline", "content-b", "--expect", "1", "--op", "d"]);
    let blobs: i64 = env.sql().query_row("SELECT COUNT(*) FROM blobs", [], |r| r.get(0)).unwrap();
    assert_eq!(blobs, 2);
    assert_eq!(walk(&env.path().join(".locker/objects")).len(), 1);
    let out = env.locker().args(["artifact", "get", "copy"]).output().unwrap();
    assert_eq!(out.stdout, large);

    let report = env.json(&["verify"]);
    assert_eq!(report["ok"], true);
    assert_eq!(report["blobs"]["checked"], 2);
    assert_eq!(report["blobs"]["inline"], 1);
    assert_eq!(report["blobs"]["files"], 1);
}

#[test]
fn test_blob_altered_file_is_never_returned_and_verify_names_it() {
    if crate::common::sqlite_only("reads or tampers with the SQLite files directly") {
        return;
    }
    let env = TestEnv::init();
    let large = vec![b'L'; 200_000];
    let sha =
        publish_file(&env, "large", &large, "a")["artifact"]["sha256"].as_str().unwrap().to_owned();
    let path = object_path(&env, &sha);
    let mut altered = large.clone();
    altered[1000] = b'X';
    std::fs::write(&path, &altered).unwrap();

    let out = env.locker().args(["artifact", "get", "large"]).output().unwrap();
    assert_eq!(out.status.code(), Some(8));
    assert!(out.stdout.is_empty(), "altered content is never printed");
    let e = env.json_err(&["artifact", "get", "large"], 8);
    assert_eq!(e["error"], "integrity");

    let r = env.verify_broken();
    assert_eq!(r["blobs"]["ok"], false);
    let location = format!("objects/{}/{}", &sha[..2], &sha[2..]);
    assert!(TestEnv::has_problem(&r, &format!("blob:{sha}"), &location), "{r}");
    assert!(TestEnv::has_problem(&r, &format!("blob:{sha}"), "has been altered"));
    assert_eq!(r["first_broken"]["blob"]["subject"], format!("blob:{sha}"));

    // Publishing the same content again repairs the file.
    env.json(&["artifact", "publish", "again", "content-a", "--expect", "0", "--op", "b"]);
    assert_eq!(std::fs::read(&path).unwrap(), large);
    assert_eq!(env.json(&["verify"])["ok"], true);
}

#[test]
fn test_blob_deleted_file_is_named_by_verify() {
    if crate::common::sqlite_only("reads or tampers with the SQLite files directly") {
        return;
    }
    let env = TestEnv::init();
    let sha = publish_file(&env, "large", &vec![b'L'; 100_000], "a")["artifact"]["sha256"]
        .as_str()
        .unwrap()
        .to_owned();
    std::fs::remove_file(object_path(&env, &sha)).unwrap();
    let e = env.json_err(&["artifact", "get", "large"], 8);
    assert_eq!(e["error"], "integrity");
    let r = env.verify_broken();
    let location = format!("objects/{}/{}", &sha[..2], &sha[2..]);
    assert!(TestEnv::has_problem(
        &r,
        &format!("blob:{sha}"),
        &format!("{location} does not exist")
    ));
}

#[test]
fn test_blob_altered_inline_content_is_caught() {
    let env = TestEnv::init();
    let sha = env.publish("k", "the real content", 0, "a")["artifact"]["sha256"]
        .as_str()
        .unwrap()
        .to_owned();
    env.sql()
        .execute(
            "UPDATE blobs SET data = CAST('the fake content' AS BLOB) WHERE digest = ?1",
            [&sha],
        )
        .unwrap();
    let out = env.locker().args(["artifact", "get", "k"]).output().unwrap();
    assert_eq!(out.status.code(), Some(8));
    assert!(out.stdout.is_empty());
    let r = env.verify_broken();
    assert!(TestEnv::has_problem(&r, &format!("blob:{sha}"), "(inline) has been altered"));
}
