//! The journal through `locker log`: one entry per change, filters, JSON Lines, broken pipes.

use std::process::Stdio;

use serde::Deserialize;
use serde_json::Value;

use crate::common::{Pad, TestEnv, ENVELOPE, NOW};

/// One `locker --json log` line, as a typed record: any unknown or missing field fails.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    seq: u64,
    time: i64,
    kind: String,
    actor: String,
    scope: String,
    subject: String,
    body: Value,
    prev_hash: String,
    hash: String,
}

fn log(env: &TestEnv, args: &[&str]) -> Vec<Line> {
    let out = env.locker().arg("--json").arg("log").args(args).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON line ({e}): {l}")))
        .collect()
}

fn seqs(lines: &[Line]) -> Vec<u64> {
    lines.iter().map(|l| l.seq).collect()
}

fn kinds(lines: &[Line]) -> Vec<&str> {
    lines.iter().map(|l| l.kind.as_str()).collect()
}

fn subject(pad: &Pad) -> String {
    format!("pad:{}", pad.id)
}

#[test]
fn test_log_every_change_is_one_entry() {
    let env = TestEnv::init();
    let mut expected: Vec<(&str, String, i64)> = vec![("repo.init", "repo".into(), NOW)];
    let pad = env.create_pad(&["--ttl", "100", "--max-blocks", "3"]);
    let s = subject(&pad);
    expected.push(("pad.create", s.clone(), NOW));
    let ack = env.json_at(NOW + 1, &["append", &pad.id, "--key", &pad.key, "--data", ENVELOPE]);
    expected.push(("pad.append", s.clone(), NOW + 1));
    // Failures and reads change nothing and journal nothing.
    env.json_err(&["append", &pad.id, "--key", "wrong", "--data", "x"], 5);
    env.json_err(&["append", &pad.id, "--key", &pad.key, "--data", ""], 6);
    env.json(&["pad", "show", &pad.id]);
    env.json(&["pad", "list"]);
    env.json(&["verify"]);
    env.json(&["verify", &pad.id]);
    log(&env, &[]);
    let t = env.json_at(NOW + 2, &["pad", "ticket", &pad.id, "--key", &pad.key]);
    expected.push(("pad.ticket", s.clone(), NOW + 2));
    env.json_at(NOW + 3, &["pad", "read", &pad.id, "--ticket", t["ticket"].as_str().unwrap()]);
    env.json_at(NOW + 4, &["pad", "read", &pad.id, "--ticket", &pad.ticket]);
    expected.push(("pad.read_lease", s.clone(), NOW + 4));
    env.json_at(NOW + 5, &["pad", "read", &pad.id, "--ticket", &pad.ticket]);
    env.json_at(
        NOW + 6,
        &["pad", "revoke-ticket", &pad.id, t["ticket_id"].as_str().unwrap(), "--key", &pad.key],
    );
    expected.push(("pad.ticket_revoke", s.clone(), NOW + 6));
    env.json_at(
        NOW + 7,
        &["pad", "revoke-ticket", &pad.id, t["ticket_id"].as_str().unwrap(), "--key", &pad.key],
    );
    env.json_at(NOW + 8, &["seal", &pad.id, "--key", &pad.key]);
    expected.push(("pad.seal", s.clone(), NOW + 8));
    let e = env.file("e.json", ENVELOPE.as_bytes());
    let d = env.json_at(NOW + 9, &["deposit", "--envelope", &e]);
    expected.push(("pad.deposit", format!("pad:{}", d["pad_id"].as_str().unwrap()), NOW + 9));
    env.json_err(&["deposit", "--envelope", "/nope"], 6);

    let lines = log(&env, &["--reverse", "-n", "10000"]);
    assert_eq!(lines.len(), expected.len(), "{:?}", kinds(&lines));
    let mut prev = "0".repeat(64);
    for (i, (line, (kind, subject, time))) in lines.iter().zip(&expected).enumerate() {
        assert_eq!(line.seq, i as u64 + 1);
        assert_eq!(line.kind, *kind);
        assert_eq!(&line.subject, subject);
        assert_eq!(line.time, *time, "{kind}");
        assert_eq!(line.actor, "operator");
        assert_eq!(line.scope, "default");
        assert_eq!(line.prev_hash, prev, "entry {} links to the one before", line.seq);
        assert_eq!(line.hash.len(), 64);
        prev = line.hash.clone();
    }
    // Bodies record what changed, and no secret.
    let body = |kind: &str| &lines.iter().find(|l| l.kind == kind).unwrap().body;
    assert_eq!(body("pad.create")["pad_id"], pad.id.as_str());
    assert_eq!(body("pad.create")["ttl_seconds"], 100);
    assert_eq!(body("pad.create")["max_blocks"], 3);
    assert_eq!(body("pad.append")["seq"], 0);
    assert_eq!(body("pad.append")["curr_hash"], ack["curr_hash"]);
    assert_eq!(body("pad.append")["bytes"], ENVELOPE.len());
    assert_eq!(body("pad.seal")["head_hash"], ack["curr_hash"]);
    assert_eq!(body("pad.ticket")["ticket_id"], t["ticket_id"]);
    assert_eq!(body("pad.ticket_revoke")["ticket_id"], t["ticket_id"]);
    assert_eq!(body("pad.deposit")["head_hash"], d["head_hash"]);
    let all =
        String::from_utf8(env.locker().args(["--json", "log"]).output().unwrap().stdout).unwrap();
    for secret in [
        pad.key.as_str(),
        pad.ticket.as_str(),
        t["ticket"].as_str().unwrap(),
        d["write_key"].as_str().unwrap(),
    ] {
        assert!(!all.contains(secret), "a secret is in the journal");
    }
    // The journal head is the last entry, as `verify` reports it.
    let v = env.json(&["verify"]);
    assert_eq!(v["journal"]["head_hash"], prev.as_str());
    assert_eq!(v["journal"]["entries"], expected.len());
}

/// A journal of 1 + 2 × 4 + … entries over two pads, for the filters.
fn two_pads(env: &TestEnv) -> (Pad, Pad) {
    let a = env.create_pad(&[]);
    let b = env.create_pad(&[]);
    env.append(&a, ENVELOPE);
    env.append(&b, ENVELOPE);
    env.append(&a, "a1");
    let t = env.json(&["pad", "ticket", &a.id, "--key", &a.key]);
    env.json(&["pad", "revoke-ticket", &a.id, t["ticket"].as_str().unwrap(), "--key", &a.key]);
    env.json(&["seal", &b.id, "--key", &b.key]);
    (a, b)
}

#[test]
fn test_log_filters() {
    let env = TestEnv::init();
    let (a, b) = two_pads(&env);
    // 1 init, 2 create a, 3 create b, 4 append a, 5 append b, 6 append a, 7 ticket a,
    // 8 revoke a, 9 seal b.
    let all = log(&env, &[]);
    assert_eq!(seqs(&all), [9, 8, 7, 6, 5, 4, 3, 2, 1], "newest first");
    assert_eq!(seqs(&log(&env, &["--reverse"])), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert_eq!(seqs(&log(&env, &["-n", "2"])), [9, 8]);
    assert_eq!(seqs(&log(&env, &["--limit", "2", "--reverse"])), [1, 2]);
    assert_eq!(seqs(&log(&env, &["--kind", "pad.append"])), [6, 5, 4]);
    assert_eq!(seqs(&log(&env, &["--kind", "pad.ticket"])), [7], "exact, not a prefix");
    assert_eq!(seqs(&log(&env, &["--kind", "pad."])), [9, 8, 7, 6, 5, 4, 3, 2]);
    assert_eq!(seqs(&log(&env, &["--kind", "repo."])), [1]);
    assert!(log(&env, &["--kind", "PAD."]).is_empty(), "kinds are case-sensitive");
    assert!(log(&env, &["--kind", "pad"]).is_empty());
    assert!(log(&env, &["--kind", "p%."]).is_empty(), "no wildcards");
    assert_eq!(seqs(&log(&env, &["--subject", &subject(&a)])), [8, 7, 6, 4, 2]);
    assert_eq!(seqs(&log(&env, &["--subject", &subject(&b), "--reverse"])), [3, 5, 9]);
    assert_eq!(seqs(&log(&env, &["--subject", "repo"])), [1]);
    assert_eq!(log(&env, &["--actor", "operator"]).len(), 9);
    assert!(log(&env, &["--actor", "someone-else"]).is_empty());
    assert_eq!(log(&env, &["--scope", "default"]).len(), 9);
    assert_eq!(seqs(&log(&env, &["--after", "3", "--before", "6"])), [5, 4]);
    assert_eq!(seqs(&log(&env, &["--after", "7"])), [9, 8]);
    assert_eq!(seqs(&log(&env, &["--before", "3", "--reverse"])), [1, 2]);
    assert!(log(&env, &["--after", "9"]).is_empty());
    assert_eq!(
        seqs(&log(&env, &["--kind", "pad.", "--subject", &subject(&a), "--after", "2", "-n", "2"])),
        [8, 7]
    );
    // Bad limits are refused; bad numbers are usage errors.
    for n in ["0", "10001"] {
        let e = env.json_err(&["log", "-n", n], 6);
        assert_eq!(e["error"], "unprocessable");
        assert_eq!(e["detail"], "limit must be between 1 and 10000");
    }
    assert_eq!(env.run(&["log", "--after", "x"]).status.code(), Some(2));
    // Human form: one line per entry, newest first.
    let out = env.locker().args(["log", "-n", "3"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3);
    assert!(lines[0].trim_start().starts_with("9  2027-01-15T08:00:00Z  pad.seal"), "{}", lines[0]);
    assert!(lines[0].contains(&subject(&b)), "{}", lines[0]);
}

#[test]
fn test_log_closed_stdout_exits_quietly() {
    let env = TestEnv::init();
    two_pads(&env);
    for args in [&["log"][..], &["--json", "log"], &["--json", "pad", "list"], &["verify"]] {
        // The reader is gone before locker writes a byte: every write is a broken pipe.
        let mut child =
            env.process().args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stderr.is_empty(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

#[test]
fn test_log_piped_into_head_exits_quietly() {
    let env = TestEnv::init();
    // Enough journal to overflow a pipe: each deposit's entry lists its 256 blocks.
    let e = env.file("e.json", ENVELOPE.as_bytes());
    let mut args = vec!["deposit".to_owned(), "--envelope".to_owned(), e];
    for i in 0..255 {
        args.push("--artifact".into());
        args.push(env.file(&format!("a/{i}"), format!("artifact {i}").as_bytes()));
    }
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    for _ in 0..4 {
        env.json(&refs);
    }
    let size = env.locker().args(["--json", "log"]).output().unwrap().stdout.len();
    assert!(size > 128 * 1024, "the log is {size} bytes");
    for cmd in [
        "locker --json log | head -1",
        "locker log -n 10000 | head -c 10",
        "locker --json log | true",
    ] {
        let script = format!("{cmd} >/dev/null; echo \"${{PIPESTATUS[0]}}\"");
        let out = std::process::Command::new("bash")
            .args(["-c", &script])
            .current_dir(env.path())
            .env("LOCKER_NOW", NOW.to_string())
            .env(
                "PATH",
                format!(
                    "{}:{}",
                    crate::common::bin().parent().unwrap().display(),
                    std::env::var("PATH").unwrap()
                ),
            )
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "0", "{cmd}");
        assert!(out.stderr.is_empty(), "{cmd}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

/// `locker --json log ARGS` at `now`, against `url` when given; the entries' seqs.
fn seqs_at(env: &TestEnv, now: i64, url: Option<&str>, args: &[&str]) -> Vec<u64> {
    let mut cmd = env.locker();
    cmd.env("LOCKER_NOW", now.to_string());
    if let Some(u) = url {
        cmd.env("LOCKER_URL", u);
    }
    let out = cmd.args(["--json", "log", "--reverse"]).args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Line>(l).unwrap().seq)
        .collect()
}

#[test]
fn test_log_since_and_until_select_by_time_locally_and_remotely() {
    let env = TestEnv::init();
    // Three writes an hour apart (after init's entries at NOW).
    let at = [NOW + 3600, NOW + 7200, NOW + 10_800];
    for (i, t) in at.iter().enumerate() {
        env.json_at(*t, &["lease", "acquire", &format!("w{i}"), "--ttl", "1h"]);
    }
    let all = seqs_at(&env, NOW + 10_800, None, &["-n", "100"]);
    let by_time = |from: i64, to: i64| -> Vec<u64> {
        let lines = log(&env, &["--reverse", "-n", "100"]);
        lines.iter().filter(|l| l.time >= from && l.time < to).map(|l| l.seq).collect()
    };
    let last_two = by_time(NOW + 7200, i64::MAX);
    assert_eq!(by_time(NOW + 3600, NOW + 7200).len(), 1);
    assert_eq!(last_two.len(), 2, "{all:?}");
    let s = |t: i64| format!("@{t}");
    let rfc = |t: i64| locker::domain::time::rfc3339(t);
    let server = env.serve(&[]);
    for url in [None, Some(server.url())] {
        let url = url.as_deref();
        // Unix seconds, an RFC 3339 time, and a duration ago all name the same instant.
        for since in [s(NOW + 7200), rfc(NOW + 7200), "1h".to_owned()] {
            assert_eq!(seqs_at(&env, NOW + 10_800, url, &["--since", &since]), last_two, "{since}");
        }
        assert_eq!(
            seqs_at(&env, NOW + 10_800, url, &["--until", &s(NOW + 7200)]),
            by_time(i64::MIN, NOW + 7200)
        );
        assert_eq!(
            seqs_at(&env, NOW + 10_800, url, &["--since", &s(NOW + 3600), "--until", "1h"]),
            by_time(NOW + 3600, NOW + 7200),
            "a window of one hour holds one write"
        );
    }
    let e = env.json_err(&["log", "--since", "yesterday"], 2);
    assert_eq!(e["error"], "usage");
    assert!(e["detail"].as_str().unwrap().contains("RFC 3339"), "{e}");
}

#[test]
fn test_log_limit_error_says_how_to_page() {
    let env = TestEnv::init();
    let e = env.json_err(&["log", "-n", "20000"], 6);
    let hints = e["hints"].to_string();
    assert!(hints.contains("--before SEQ") && hints.contains("--reverse --after SEQ"), "{e}");
}

#[test]
fn test_log_follow_shows_each_new_entry_as_it_is_written() {
    use std::io::BufRead as _;
    let env = TestEnv::init();
    env.json(&["lease", "acquire", "before-follow", "--ttl", "1h"]);
    let head: u64 = log(&env, &["-n", "1"])[0].seq;
    let mut child = env
        .process()
        .args(["--json", "log", "--follow", "-n", "2"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(serde_json::from_str::<Line>(&line).unwrap()).is_err() {
                break;
            }
        }
    });
    let next = || rx.recv_timeout(std::time::Duration::from_secs(20)).expect("a line in time");
    // The newest two entries, oldest first.
    assert_eq!([next().seq, next().seq], [head - 1, head]);
    // Then each new entry, as it is written by another process.
    env.json(&["lease", "acquire", "after-follow", "--ttl", "1h"]);
    let e = next();
    assert_eq!(
        (e.seq, e.kind.as_str(), e.subject.as_str()),
        (head + 1, "lease.acquire", "work:after-follow")
    );
    env.json(&["lease", "acquire", "again", "--ttl", "1h"]);
    assert_eq!(next().seq, head + 2);
    child.kill().unwrap();
    child.wait().unwrap();
    // --follow shows what comes next: it cannot be combined with an end or with newest-first.
    for conflicting in ["--reverse", "--before=3", "--until=1h"] {
        let e = env.json_err(&["log", "--follow", conflicting], 2);
        assert_eq!(e["error"], "usage", "{conflicting}: {e}");
    }
}
