//! Several real `locker` processes writing one repository at once (SPEC §2: no lost update, no
//! fork, no "database is locked" reaching the user).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{Pad, TestEnv};

/// Writer processes at once, and appends each one makes (each a separate `locker append`).
const WRITERS: usize = 8;
const APPENDS_EACH: usize = 25;
/// No single append may take longer than this, however many writers wait.
const MAX_LATENCY: Duration = Duration::from_secs(10);

#[derive(Debug)]
struct Ack {
    pad: String,
    seq: u64,
    curr_hash: String,
    latency: Duration,
}

/// Runs `WRITERS` threads, each spawning `APPENDS_EACH` `locker append` processes one after
/// another; writer `w`'s `i`-th append goes to `pick(w, i)`. Every process must succeed
/// quietly. Meanwhile two readers run `pad read` and `verify` in a loop: each must succeed,
/// and `verify` must find the repository intact at every moment.
#[allow(clippy::print_stderr)]
fn hammer(env: &TestEnv, pads: &[Pad], pick: impl Fn(usize, usize) -> usize + Sync) -> Vec<Ack> {
    let done = AtomicBool::new(false);
    let started = Instant::now();
    let (acks, reads) = std::thread::scope(|s| {
        let writers: Vec<_> = (0..WRITERS)
            .map(|w| {
                let pick = &pick;
                s.spawn(move || {
                    let mut acks = Vec::new();
                    for i in 0..APPENDS_EACH {
                        let pad = &pads[pick(w, i)];
                        let data = format!("writer {w} append {i}");
                        let t = Instant::now();
                        let out = env
                            .process()
                            .args(["--json", "append", &pad.id, "--key", &pad.key, "--data", &data])
                            .output()
                            .expect("locker runs");
                        let latency = t.elapsed();
                        let stderr = String::from_utf8_lossy(&out.stderr);
                        assert!(
                            out.status.success(),
                            "writer {w} append {i}: exit {:?}: {stderr}",
                            out.status.code()
                        );
                        assert!(stderr.is_empty(), "writer {w} append {i}: {stderr}");
                        let v: Value = serde_json::from_slice(&out.stdout).expect("one ack");
                        assert_eq!(v["pad_id"], pad.id.as_str());
                        acks.push(Ack {
                            pad: pad.id.clone(),
                            seq: v["seq"].as_u64().unwrap(),
                            curr_hash: v["curr_hash"].as_str().unwrap().to_owned(),
                            latency,
                        });
                    }
                    acks
                })
            })
            .collect();
        let readers: Vec<_> = (0..2)
            .map(|r| {
                let done = &done;
                s.spawn(move || {
                    let mut runs = 0;
                    while !done.load(Ordering::Relaxed) {
                        let pad = &pads[runs % pads.len()];
                        let args: Vec<&str> = if r == 0 {
                            vec![
                                "--json",
                                "pad",
                                "read",
                                &pad.id,
                                "--ticket",
                                &pad.ticket,
                                "--from",
                                "0",
                                "--to",
                                "3",
                            ]
                        } else {
                            vec!["--json", "verify"]
                        };
                        let out = env.process().args(&args).output().unwrap();
                        let stderr = String::from_utf8_lossy(&out.stderr);
                        assert!(
                            out.status.success(),
                            "reader {args:?}: {:?} {stderr}",
                            out.status.code()
                        );
                        assert!(stderr.is_empty(), "reader {args:?}: {stderr}");
                        runs += 1;
                    }
                    runs
                })
            })
            .collect();
        let acks: Vec<Ack> = writers.into_iter().flat_map(|h| h.join().unwrap()).collect();
        done.store(true, Ordering::Relaxed);
        let reads: usize = readers.into_iter().map(|h| h.join().unwrap()).sum();
        (acks, reads)
    });
    let mut latencies: Vec<Duration> = acks.iter().map(|a| a.latency).collect();
    latencies.sort();
    let pct = |p: usize| latencies[(latencies.len() - 1) * p / 100];
    let max = *latencies.last().unwrap();
    eprintln!(
        "{} appends by {WRITERS} processes at once in {:.2?} ({reads} concurrent reads/verifies); \
         append latency p50 {:.2?}, p99 {:.2?}, max {max:.2?}",
        acks.len(),
        started.elapsed(),
        pct(50),
        pct(99),
    );
    assert!(max < MAX_LATENCY, "an append waited {max:?}");
    acks
}

/// Every ack is a distinct block, each pad's seqs are contiguous after block 0, and each
/// acknowledged hash is the stored one.
fn check_acks(env: &TestEnv, pads: &[Pad], acks: &[Ack]) {
    assert_eq!(acks.len(), WRITERS * APPENDS_EACH);
    let mut by_pad: HashMap<&str, Vec<&Ack>> = HashMap::new();
    for a in acks {
        by_pad.entry(&a.pad).or_default().push(a);
    }
    for pad in pads {
        let mut mine = by_pad.remove(pad.id.as_str()).unwrap_or_default();
        mine.sort_by_key(|a| a.seq);
        let seqs: Vec<u64> = mine.iter().map(|a| a.seq).collect();
        let want: Vec<u64> = (1..=mine.len() as u64).collect();
        assert_eq!(seqs, want, "pad {}: every append acknowledged exactly once", pad.id);
        let stored = env.json(&["pad", "read", &pad.id, "--ticket", &pad.ticket]);
        let blocks = stored["blocks"].as_array().unwrap();
        assert_eq!(blocks.len(), mine.len() + 1);
        for a in &mine {
            assert_eq!(blocks[a.seq as usize]["curr_hash"], a.curr_hash.as_str());
        }
        let v = env.json(&["verify", &pad.id]);
        assert_eq!(v["ok"], true);
    }
    let (code, report) = env.verify();
    assert_eq!(code, 0, "{report:#}");
}

fn read_unlimited(env: &TestEnv, pad: &Pad) -> Pad {
    let t = env.json(&["pad", "ticket", &pad.id, "--key", &pad.key]);
    Pad {
        id: pad.id.clone(),
        key: pad.key.clone(),
        ticket: t["ticket"].as_str().unwrap().to_owned(),
    }
}

#[test]
fn test_concurrency_many_processes_append_to_one_pad() {
    let env = TestEnv::init();
    let pad = env.pad_with_envelope(&["--max-blocks", "256"]);
    let pads = [read_unlimited(&env, &pad)];
    let acks = hammer(&env, &pads, |_, _| 0);
    check_acks(&env, &pads, &acks);
    let m = env.json(&["pad", "show", &pad.id]);
    assert_eq!(m["block_count"], (WRITERS * APPENDS_EACH + 1) as u64);
    env.json(&["seal", &pad.id, "--key", &pad.key]);
}

#[test]
fn test_concurrency_many_processes_append_to_many_pads() {
    let env = TestEnv::init();
    let pads: Vec<Pad> = (0..WRITERS)
        .map(|_| {
            let p = env.pad_with_envelope(&["--max-blocks", "64"]);
            read_unlimited(&env, &p)
        })
        .collect();
    // Each writer moves across every pad, so writers meet on every pad.
    let acks = hammer(&env, &pads, |w, i| (w + i) % WRITERS);
    check_acks(&env, &pads, &acks);
}
