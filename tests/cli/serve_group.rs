//! Group commit in `locker serve`: concurrent writes share transactions, yet every
//! acknowledged write is stored exactly once with its own journal entry, and a request that
//! fails inside a group changes nothing and does not fail the others.

use std::collections::{BTreeMap, BTreeSet};

use crate::common::server::append_block as append;
use crate::common::{Pad, TestEnv, ENVELOPE};

/// An acknowledged append: which pad, what was sent, what the server answered.
struct Ack {
    pad: String,
    payload: String,
    seq: u64,
    hash: String,
}

/// Every ack is stored once, at its sequence number, with its payload and hash; the chains
/// are contiguous; the journal has one `pad.append` per block; `verify` is clean.
fn check(env: &TestEnv, pads: &[Pad], acks: &[Ack]) {
    let mut by_pad: BTreeMap<&str, Vec<&Ack>> = BTreeMap::new();
    for a in acks {
        by_pad.entry(a.pad.as_str()).or_default().push(a);
    }
    let mut total_blocks = 0;
    for pad in pads {
        let stored = env.stored_blocks(&pad.id, &pad.key);
        total_blocks += stored.len();
        let seqs: Vec<u64> = stored.iter().map(|b| b.0).collect();
        assert_eq!(seqs, (0..stored.len() as u64).collect::<Vec<_>>(), "contiguous chain");
        let mine = by_pad.remove(pad.id.as_str()).unwrap_or_default();
        assert_eq!(mine.len() + 1, stored.len(), "pad {}: one block per ack (+ block 0)", pad.id);
        let mut seen = BTreeSet::new();
        for a in mine {
            assert!(seen.insert(a.seq), "seq {} of pad {} acknowledged twice", a.seq, pad.id);
            let (_, payload, hash) = &stored[a.seq as usize];
            assert_eq!(payload, &a.payload, "pad {} block {}", pad.id, a.seq);
            assert_eq!(hash, &a.hash, "pad {} block {}", pad.id, a.seq);
        }
    }
    assert!(by_pad.is_empty(), "acks for unknown pads");
    let appends: i64 = env
        .sql()
        .query_row("SELECT COUNT(*) FROM journal WHERE kind = 'pad.append'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(appends as usize, total_blocks, "one journal entry per block");
    let (code, report) = env.verify();
    assert_eq!(code, 0, "{report:#}");
}

#[test]
fn test_serve_group_commit_concurrent_appends_are_each_stored_once() {
    let env = TestEnv::init();
    let pads: Vec<Pad> = (0..5)
        .map(|_| {
            let p = env.create_pad(&["--max-blocks", "4096"]);
            env.append(&p, ENVELOPE);
            p
        })
        .collect();
    let server = env.serve(&[]);
    let addr = server.addr;
    // Half the clients share pad 0; the others spread over pads 1–4.
    let acks: Vec<Ack> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..16)
            .map(|t| {
                let pad = if t % 2 == 0 { &pads[0] } else { &pads[1 + (t / 2) % 4] };
                s.spawn(move || {
                    (0..20)
                        .map(|n| {
                            let payload = format!("client {t} append {n}");
                            let (status, v) = append(addr, &pad.id, &pad.key, &payload);
                            assert_eq!(status, 201, "{v}");
                            assert_eq!(v["pad_id"], pad.id.as_str());
                            Ack {
                                pad: pad.id.clone(),
                                payload,
                                seq: v["seq"].as_u64().unwrap(),
                                hash: v["curr_hash"].as_str().unwrap().to_owned(),
                            }
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(acks.len(), 320);
    let (code, _) = server.stop();
    assert_eq!(code, Some(0));
    check(&env, &pads, &acks);
}

#[test]
fn test_serve_group_commit_failing_requests_do_not_affect_the_others() {
    let env = TestEnv::init();
    let open: Vec<Pad> = (0..2)
        .map(|_| {
            let p = env.create_pad(&["--max-blocks", "4096"]);
            env.append(&p, ENVELOPE);
            p
        })
        .collect();
    let sealed = env.create_pad(&[]);
    env.append(&sealed, ENVELOPE);
    env.json(&["pad", "seal", &sealed.id, "--key", &sealed.key]);
    let full = env.create_pad(&["--max-blocks", "1"]);
    env.append(&full, ENVELOPE);
    let server = env.serve(&[]);
    let addr = server.addr;

    // Each client alternates good appends with one of four failing requests, so that
    // failures land in the same groups as successes.
    let acks: Vec<Ack> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..12)
            .map(|t| {
                let (open, sealed, full) = (&open, &sealed, &full);
                s.spawn(move || {
                    let mut acks = Vec::new();
                    for n in 0..16 {
                        let pad = &open[(t + n) % 2];
                        let payload = format!("client {t} append {n}");
                        let (status, v) = append(addr, &pad.id, &pad.key, &payload);
                        assert_eq!(status, 201, "{v}");
                        acks.push(Ack {
                            pad: pad.id.clone(),
                            payload,
                            seq: v["seq"].as_u64().unwrap(),
                            hash: v["curr_hash"].as_str().unwrap().to_owned(),
                        });
                        let (status, v) = match n % 4 {
                            0 => append(addr, &pad.id, "not-the-key", "refused"),
                            1 => append(addr, &sealed.id, &sealed.key, "refused"),
                            2 => append(addr, &full.id, &full.key, "refused"),
                            _ => append(addr, "no-such-pad", &pad.key, "refused"),
                        };
                        let want = [
                            (401, "unauthorized"),
                            (409, "conflict"),
                            (409, "conflict"),
                            (404, "not_found"),
                        ];
                        assert_eq!((status, v["error"].as_str().unwrap()), want[n % 4], "{v}");
                    }
                    acks
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(acks.len(), 192);
    let (code, _) = server.stop();
    assert_eq!(code, Some(0));
    let pads: Vec<Pad> = open.into_iter().chain([sealed, full]).collect();
    check(&env, &pads, &acks);
    let refused: i64 = env
        .sql()
        .query_row("SELECT COUNT(*) FROM blocks WHERE CAST(payload AS TEXT) = 'refused'", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(refused, 0, "no refused block was stored");
}
