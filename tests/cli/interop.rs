//! agent-locker's real clients against `locker serve`: its MCP server `lockermcp` 0.1.5 from
//! PyPI (driven by the `mcp` Python client), and `demo_handoff.py` and
//! `scripts/inspect_pad.py` from its sdist, all run unchanged.
//!
//! `scripts/test-deps.sh` installs them under `target/test-deps/` (or the directory named by
//! `LOCKER_TEST_DEPS`). Without them these tests fail, unless `LOCKER_SKIP_INTEROP=1`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::server::Server;
use crate::common::{TestEnv, ENVELOPE};

/// The installed interop dependencies, or `None` when the tests are skipped on purpose.
pub(crate) struct Deps {
    pub(crate) python: PathBuf,
    pub(crate) lockermcp: PathBuf,
    pub(crate) sdist: PathBuf,
}

pub(crate) fn deps() -> Option<Deps> {
    if std::env::var("LOCKER_SKIP_INTEROP").is_ok_and(|v| v == "1") {
        return None;
    }
    let dir = std::env::var_os("LOCKER_TEST_DEPS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("target/test-deps"),
        PathBuf::from,
    );
    let file = dir.join("env");
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| {
        panic!(
            "the interop test dependencies are missing ({}: {e}).\n\
             Run `scripts/test-deps.sh` first, or set LOCKER_SKIP_INTEROP=1 to skip these tests.",
            file.display()
        )
    });
    let vars: HashMap<&str, &str> = text.lines().filter_map(|l| l.split_once('=')).collect();
    let path = |k: &str| {
        let p = PathBuf::from(
            vars.get(k).unwrap_or_else(|| panic!("{k} missing from {}", file.display())),
        );
        assert!(p.exists(), "{} does not exist: run `scripts/test-deps.sh` again", p.display());
        p
    };
    Some(Deps {
        python: path("LOCKER_TEST_PYTHON"),
        lockermcp: path("LOCKER_TEST_LOCKERMCP"),
        sdist: path("LOCKER_TEST_SDIST"),
    })
}

/// Runs the deps' Python with ARGS; returns (exit code, stdout, stderr).
pub(crate) fn python(d: &Deps, cwd: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(&d.python)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", cwd)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .current_dir(cwd)
        .args(args)
        .output()
        .expect("python runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn session_script() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/interop/lockermcp_session.py")
        .display()
        .to_string()
}

#[test]
fn test_interop_lockermcp_deposits_and_reads_with_a_trusted_head() {
    let Some(d) = deps() else { return };
    let env = TestEnv::init();
    let s: Server = env.serve(&[]);
    let (code, out, err) =
        python(&d, env.path(), &[&session_script(), &d.lockermcp.display().to_string(), &s.url()]);
    assert_eq!(code, 0, "stdout: {out}\nstderr: {err}");
    let v: Value = serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(
        v["tools"],
        serde_json::json!([
            "locker_append",
            "locker_create",
            "locker_deposit",
            "locker_manifest",
            "locker_read_blocks",
            "locker_seal"
        ])
    );
    let dep = &v["deposit"];
    assert_eq!(dep["status"], "sealed", "{dep}");
    assert_eq!(dep["head_hash"], dep["server_head_hash"]);
    let head = dep["head_hash"].as_str().unwrap();
    assert_eq!(v["manifest_free"]["block_count"], 3);
    assert_eq!(
        v["manifest_checked"]["integrity"]["verdict"], "trusted_head_match",
        "{}",
        v["manifest_checked"]
    );
    let read = &v["read"];
    assert_eq!(read["integrity"]["verdict"], "trusted_head_match", "{read}");
    assert_eq!(read["integrity"]["chain_valid"], true);
    assert_eq!(read["count"], 3);
    assert_eq!(read["blocks"][1]["payload_utf8"], "plain text artifact\n");
    assert_eq!(v["read_wrong_head"]["error"]["cause"], "expected_head_mismatch");
    assert!(v["read_wrong_head"].get("blocks").is_none(), "no payloads on a mismatch");
    assert_eq!(v["append"]["seq"], 0);
    assert_eq!(v["append_after_seal"]["error"]["status"], 409);
    assert_eq!(v["read_created"]["integrity"]["verdict"], "trusted_head_match");
    // The same pads, seen by the CLI on the repository.
    let pad = dep["pad_id"].as_str().unwrap();
    let report = env.json(&["verify", pad, "--expect-head", head]);
    assert_eq!(report["ok"], true);
    assert_eq!(env.json(&["verify"])["ok"], true);
    let (code, log) = s.stop();
    assert_eq!(code, Some(0));
    let ticket = dep["read_ticket"].as_str().unwrap();
    assert!(!log.contains(ticket), "the access log shows a ticket");
}

#[test]
fn test_interop_demo_handoff_script_verifies_the_chain() {
    let Some(d) = deps() else { return };
    let env = TestEnv::init();
    let s = env.serve(&[]);
    let script = d.sdist.join("demo_handoff.py");
    let (code, out, err) = python(&d, env.path(), &[&script.display().to_string(), &s.url()]);
    assert_eq!(code, 0, "stdout: {out}\nstderr: {err}");
    assert!(out.contains("blocks=2  chain_valid=True"), "{out}");
    assert!(out.contains(r#""task_id": "demo-001""#), "{out}");
    assert_eq!(env.json(&["verify"])["ok"], true);
}

#[test]
fn test_interop_inspect_pad_script_verifies_and_catches_tampering() {
    let Some(d) = deps() else { return };
    let env = TestEnv::init();
    let s = env.serve(&[]);
    let script = d.sdist.join("scripts/inspect_pad.py").display().to_string();
    let url = s.url();
    // Three blocks near 64 KiB each: the script halves its pages on 413 to read them.
    let pad = env.create_pad(&["--max-blocks", "8"]);
    env.append(&pad, ENVELOPE);
    for c in ['a', 'b'] {
        let big = c.to_string().repeat(60_000);
        env.append(&pad, &big);
    }
    let t = env.json(&["pad", "ticket", &pad.id, "--key", &pad.key]);
    let ticket = format!("--ticket={}", t["ticket"].as_str().unwrap());
    let (code, out, err) = python(&d, env.path(), &[&script, &pad.id, &ticket, "--url", &url]);
    assert_eq!(code, 0, "stdout: {out}\nstderr: {err}");
    assert!(out.contains("chain: VERIFIED — 3 blocks"), "{out}");

    // The demo pad (the script does not know it needs no ticket).
    let (code, out, _) = python(&d, env.path(), &[&script, "demo-pad-v1", "--url", &url]);
    assert_eq!(code, 0);
    assert!(
        out.contains("5f77fb573937fa35d50e36ad944a8bd500343bf808d2035b7c4c29a3de5b512b"),
        "{out}"
    );

    // An unknown pad, and a block altered behind locker's back.
    let (code, _, err) = python(&d, env.path(), &[&script, "nope", "--url", &url]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("not_found"), "{err}");
    env.sql()
        .execute(
            "UPDATE blocks SET payload = CAST('tampered' AS BLOB) WHERE pad_id = ?1 AND seq = 1",
            [&pad.id],
        )
        .unwrap();
    let (code, out, _) = python(&d, env.path(), &[&script, &pad.id, &ticket, "--url", &url]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("chain: BROKEN — 1 blocks verified before mismatch"), "{out}");
}
