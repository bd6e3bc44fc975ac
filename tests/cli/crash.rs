//! SIGKILL at random moments: no acknowledged block is ever lost, chains stay contiguous and
//! `locker verify` stays clean (SPEC §13).

use std::os::unix::process::CommandExt as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;

use crate::common::{bin, Pad, TestEnv, NOW};

/// A small xorshift generator; the seed is printed so a failing run can be repeated.
struct Rng(u64);

impl Rng {
    #[allow(clippy::print_stderr)]
    fn seeded(name: &str) -> Self {
        let seed =
            std::env::var("LOCKER_TEST_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(
                || SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos() as u64 | 1,
            );
        eprintln!("{name}: LOCKER_TEST_SEED={seed}");
        Self(seed)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// Waits until no live (non-zombie) process is left in process group `pgid`. SIGKILL is
/// asynchronous: a process in the middle of a system call (an fsync) finishes it first, and
/// only once every process of the group is gone is the repository quiet.
fn wait_group_gone(pgid: u32) {
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let alive = std::fs::read_dir("/proc").unwrap().filter_map(Result::ok).any(|e| {
            let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
            // `pid (comm) state ppid pgrp …`; comm may hold spaces and parentheses.
            let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else { return false };
            let fields: Vec<&str> = rest.split_whitespace().collect();
            fields.len() > 2 && fields[0] != "Z" && fields[2] == pgid.to_string()
        });
        if !alive {
            return;
        }
        assert!(std::time::Instant::now() < deadline, "process group {pgid} does not die");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The acks in a file of JSON lines; a torn last line (killed mid-write) is no ack.
fn acks_in(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()).collect()
}

/// Every acknowledged block is stored with the acknowledged hash, the chain is intact, and
/// the repository verifies.
fn check(env: &TestEnv, pad: &Pad, acks: &[Value]) -> u64 {
    let m = env.json(&["pad", "show", &pad.id]);
    let count = m["block_count"].as_u64().unwrap();
    let mut hashes = Vec::new();
    let mut from = 0;
    while from < count {
        let to = (from + 255).to_string();
        let s = env.json(&[
            "pad",
            "read",
            &pad.id,
            "--ticket",
            &pad.ticket,
            "--from",
            &from.to_string(),
            "--to",
            &to,
        ]);
        for b in s["blocks"].as_array().unwrap() {
            assert_eq!(b["seq"], hashes.len() as u64, "the chain is contiguous");
            hashes.push(b["curr_hash"].as_str().unwrap().to_owned());
        }
        from += 256;
    }
    assert_eq!(hashes.len() as u64, count);
    for a in acks {
        let seq = a["seq"].as_u64().unwrap() as usize;
        assert!(seq < hashes.len(), "acknowledged block {seq} of pad {} is lost", pad.id);
        assert_eq!(
            hashes[seq],
            a["curr_hash"].as_str().unwrap(),
            "acknowledged block {seq} changed"
        );
    }
    let mut seqs: Vec<u64> = acks.iter().map(|a| a["seq"].as_u64().unwrap()).collect();
    seqs.sort_unstable();
    seqs.dedup();
    assert_eq!(seqs.len(), acks.len(), "a seq was acknowledged twice");
    let v = env.json(&["verify", &pad.id]);
    assert_eq!(v["ok"], true, "{v:#}");
    let (code, report) = env.verify();
    assert_eq!(code, 0, "{report:#}");
    count
}

fn unlimited(env: &TestEnv, pad: Pad) -> Pad {
    let t = env.json(&["pad", "ticket", &pad.id, "--key", &pad.key]);
    Pad { ticket: t["ticket"].as_str().unwrap().to_owned(), ..pad }
}

/// Two shell loops append to one pad, one `locker append` after another, each printing its
/// ack to its own file; the whole process group is killed with SIGKILL at a random moment.
#[test]
#[allow(clippy::print_stderr)]
fn test_crash_sigkill_appending_loops_loses_no_acknowledged_block() {
    const ROUNDS: usize = 30;
    const SCRIPT: &str = r#"
for w in 1 2; do
  (
    i=0
    while :; do
      "$LOCKER" --json append "$PAD" --key="$KEY" --data "round $ROUND writer $w append $i" >>"$ACKS.$w" || exit 1
      i=$((i + 1))
    done
  ) &
done
wait
"#;
    let env = TestEnv::init();
    let mut rng = Rng::seeded("crash loops");
    let mut total_acks = 0;
    let mut total_blocks = 0;
    for round in 0..ROUNDS {
        let pad = unlimited(&env, env.pad_with_envelope(&["--max-blocks", "4096"]));
        let acks = env.path().join(format!("acks-{round}"));
        let mut child = Command::new("bash")
            .args(["-c", SCRIPT])
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", env.path())
            .env("LOCKER_NOW", NOW.to_string())
            .env("LOCKER", bin())
            .env("PAD", &pad.id)
            .env("KEY", &pad.key)
            .env("ROUND", round.to_string())
            .env("ACKS", &acks)
            .current_dir(env.path())
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(20 + rng.below(250)));
        let group = format!("-{}", child.id());
        let killed = Command::new("kill").args(["-KILL", "--", &group]).status().unwrap();
        assert!(killed.success(), "kill -KILL -- {group}");
        child.wait().unwrap();
        wait_group_gone(child.id());
        // The acks of writer 1 and 2 are in `acks-N.1` and `acks-N.2`.
        let mut got = acks_in(&acks.with_extension("1"));
        got.extend(acks_in(&acks.with_extension("2")));
        total_acks += got.len();
        total_blocks += check(&env, &pad, &got);
    }
    eprintln!(
        "{ROUNDS} SIGKILL rounds: {total_acks} acknowledged appends, {total_blocks} blocks stored"
    );
    assert!(total_acks > 0, "the loops never got to append");
}

/// A `locker append` process itself is killed at a random moment, over and over.
#[test]
#[allow(clippy::print_stderr)]
fn test_crash_sigkill_a_locker_append_mid_flight() {
    const ROUNDS: usize = 40;
    let env = TestEnv::init();
    let pad = unlimited(&env, env.pad_with_envelope(&["--max-blocks", "4096"]));
    let payload = env.file("payload", &vec![b'p'; 1000]);
    let mut rng = Rng::seeded("crash mid-flight");
    let mut acks = Vec::new();
    let mut killed = 0;
    for round in 0..ROUNDS {
        let mut child = env
            .process()
            .args(["--json", "append", &pad.id, &payload, "--key", &pad.key])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_micros(rng.below(30_000)));
        // SIGKILL (a no-op if it has already exited; it is not reaped yet, so its pid is ours).
        child.kill().unwrap();
        let out = child.wait_with_output().unwrap();
        if out.status.success() {
            acks.push(
                serde_json::from_slice::<Value>(&out.stdout).expect("a finished append acks"),
            );
        } else {
            killed += 1;
            // A killed process may or may not have committed; if it printed a whole ack,
            // that block must be there.
            if let Ok(v) = serde_json::from_slice::<Value>(&out.stdout) {
                acks.push(v);
            }
        }
        if round % 10 == 9 {
            check(&env, &pad, &acks);
        }
    }
    check(&env, &pad, &acks);
    eprintln!("{ROUNDS} appends, {killed} killed mid-flight, {} acknowledged", acks.len());
    // The pad can still be appended to and sealed.
    env.append(&pad, "after the crashes");
    env.json(&["seal", &pad.id, "--key", &pad.key]);
    assert_eq!(env.verify().0, 0);
}
