//! Several `locker serve` processes on one PostgreSQL repository (only with
//! `LOCKER_TEST_STORE`, e.g. through `scripts/test-postgres.sh`): concurrent clients spread
//! over three servers never fork a chain, one compare-and-swap wins, a lease has one holder,
//! replays answer the same on every server, and a server killed mid-load loses nothing it
//! acknowledged.

use std::process::{Child, Output, Stdio};

use serde_json::Value;

use crate::common::server::Server;
use crate::common::{on_postgres, TestEnv, ENVELOPE};

/// Three servers on the environment's repository (one PostgreSQL database).
fn three_servers(env: &TestEnv) -> Vec<Server> {
    (0..3).map(|_| env.serve(&[])).collect()
}

#[allow(clippy::print_stderr)]
fn skip() -> bool {
    if !on_postgres() {
        eprintln!(
            "skipped: the multi-server tests need LOCKER_TEST_STORE (scripts/test-postgres.sh)"
        );
        return true;
    }
    false
}

/// `locker --json --remote URL ARGS` as a child process with piped output.
fn spawn_remote(env: &TestEnv, url: &str, token: Option<&str>, args: &[&str]) -> Child {
    let mut cmd = env.process();
    cmd.args(["--json", "--remote", url]).args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
    if let Some(t) = token {
        cmd.env("LOCKER_TOKEN", t);
    }
    cmd.spawn().expect("locker runs")
}

fn wait_all(children: Vec<Child>) -> Vec<Output> {
    children.into_iter().map(|c| c.wait_with_output().expect("locker finishes")).collect()
}

fn json_of(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes)
        .unwrap_or_else(|e| panic!("not one JSON object ({e}): {}", String::from_utf8_lossy(bytes)))
}

#[test]
fn test_postgres_multi_concurrent_appends_over_three_servers_never_fork() {
    if skip() {
        return;
    }
    let env = TestEnv::init();
    let servers = three_servers(&env);
    let pad = env.create_pad(&["--max-blocks", "200"]);
    env.append(&pad, ENVELOPE);
    const N: usize = 45;
    let children: Vec<Child> = (0..N)
        .map(|i| {
            let url = servers[i % 3].url();
            let data = format!("{{\"n\":{i}}}");
            spawn_remote(&env, &url, None, &["append", &pad.id, "--key", &pad.key, "--data", &data])
        })
        .collect();
    let outputs = wait_all(children);
    for out in &outputs {
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    }
    // Every acknowledged block is stored once, with its own sequence number, in one chain.
    let mut seqs: Vec<u64> =
        outputs.iter().map(|o| json_of(&o.stdout)["seq"].as_u64().expect("a seq")).collect();
    seqs.sort_unstable();
    assert_eq!(seqs, (1..=N as u64).collect::<Vec<_>>());
    let m = env.json(&["pad", "show", &pad.id]);
    assert_eq!(m["block_count"], N + 1, "{m}");
    env.assert_verified();
    // The journal is one chain: entry n links to entry n-1, whichever server wrote it.
    let log = env.json(&["verify"]);
    assert_eq!(log["journal"]["ok"], true);
    for s in servers {
        let (code, text) = s.stop();
        assert_eq!(code, Some(0), "{text}");
    }
}

#[test]
fn test_postgres_multi_exactly_one_compare_and_swap_wins_across_servers() {
    if skip() {
        return;
    }
    let env = TestEnv::init();
    let token = env.json(&["token", "create", "--agent", "racer", "--scope", "default"])["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let servers = three_servers(&env);
    const N: usize = 15;
    let children: Vec<Child> = (0..N)
        .map(|i| {
            let (content, op) = (format!("result {i}"), format!("op-{i}"));
            spawn_remote(
                &env,
                &servers[i % 3].url(),
                Some(&token),
                &[
                    "artifact", "publish", "shared", "--expect", "0", "--op", &op, "--data",
                    &content,
                ],
            )
        })
        .collect();
    let mut winners = Vec::new();
    for out in wait_all(children) {
        match out.status.code() {
            Some(0) => winners.push(json_of(&out.stdout)),
            Some(4) => {
                let e = json_of(&out.stderr);
                assert_eq!(e["error"], "version_conflict", "{e}");
                assert_eq!(e["current_version"], 1, "{e}");
            }
            other => panic!("exit {other:?}: {}", String::from_utf8_lossy(&out.stderr)),
        }
    }
    assert_eq!(winners.len(), 1, "exactly one winner: {winners:?}");
    assert_eq!(winners[0]["artifact"]["version"], 1);
    let got = env.json(&["artifact", "get", "shared"]);
    assert_eq!(got["content"], winners[0]["artifact"]["content"]);
    env.assert_verified();

    // The winner's retry, sent to every server, is the same replay everywhere, and writes no
    // new version.
    let op = winners[0]["artifact"]["op_id"].as_str().unwrap().to_owned();
    let content = winners[0]["artifact"]["content"].as_str().unwrap().to_owned();
    let replays: Vec<Value> = servers
        .iter()
        .map(|s| {
            let out = spawn_remote(
                &env,
                &s.url(),
                Some(&token),
                &[
                    "artifact", "publish", "shared", "--expect", "0", "--op", &op, "--data",
                    &content,
                ],
            )
            .wait_with_output()
            .unwrap();
            assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
            json_of(&out.stdout)
        })
        .collect();
    for r in &replays {
        assert_eq!(r["replayed"], true, "{r}");
        assert_eq!(r["artifact"], winners[0]["artifact"], "{r}");
    }
    assert_eq!(env.json(&["artifact", "get", "shared"])["version"], 1);
    env.assert_verified();
}

#[test]
fn test_postgres_multi_a_lease_has_one_holder_across_servers() {
    if skip() {
        return;
    }
    let env = TestEnv::init();
    let servers = three_servers(&env);
    const N: usize = 12;
    let children: Vec<Child> = (0..N)
        .map(|i| {
            let holder = format!("worker-{i}");
            spawn_remote(
                &env,
                &servers[i % 3].url(),
                None,
                &["lease", "acquire", "job-1", "--holder", &holder],
            )
        })
        .collect();
    let mut holders = Vec::new();
    for out in wait_all(children) {
        match out.status.code() {
            Some(0) => holders.push(json_of(&out.stdout)),
            Some(4) => {
                let e = json_of(&out.stderr);
                assert_eq!(e["error"], "lease_held", "{e}");
            }
            other => panic!("exit {other:?}: {}", String::from_utf8_lossy(&out.stderr)),
        }
    }
    assert_eq!(holders.len(), 1, "one holder: {holders:?}");
    assert_eq!(holders[0]["fence"], 1);
    // Every server sees the same holder.
    let holder = holders[0]["holder"].as_str().unwrap().to_owned();
    for s in &servers {
        let out =
            spawn_remote(&env, &s.url(), None, &["lease", "acquire", "job-1", "--holder", "late"])
                .wait_with_output()
                .unwrap();
        assert_eq!(out.status.code(), Some(4));
        let e = json_of(&out.stderr);
        assert_eq!(e["holder"], holder.as_str(), "{e}");
    }
    env.assert_verified();
}

#[test]
fn test_postgres_multi_a_server_killed_mid_load_loses_no_acknowledged_write() {
    if skip() {
        return;
    }
    let env = TestEnv::init();
    let mut servers = three_servers(&env);
    let pads: Vec<_> = (0..3).map(|_| env.pad_with_envelope(&["--max-blocks", "200"])).collect();
    // Three waves of appends over every server; the second server is killed with SIGKILL while
    // the second wave runs. What a server acknowledged must be there afterwards.
    let mut acked: Vec<(String, u64, String)> = Vec::new();
    for wave in 0..3 {
        let children: Vec<(usize, String, Child)> = (0..18)
            .map(|i| {
                let pad = &pads[i % 3];
                let data = format!("{{\"wave\":{wave},\"i\":{i}}}");
                let child = spawn_remote(
                    &env,
                    &servers[i % servers.len()].url(),
                    None,
                    &["append", &pad.id, "--key", &pad.key, "--data", &data],
                );
                (i % 3, data, child)
            })
            .collect();
        if wave == 1 {
            std::thread::sleep(std::time::Duration::from_millis(20));
            let mut victim = servers.remove(1);
            victim.child.kill().expect("SIGKILL");
            let _ = victim.child.wait();
        }
        for (p, data, child) in children {
            let out = child.wait_with_output().unwrap();
            match out.status.code() {
                Some(0) => {
                    let seq = json_of(&out.stdout)["seq"].as_u64().unwrap();
                    acked.push((pads[p].id.clone(), seq, data));
                }
                // Refused or cut off by the killed server: not acknowledged.
                Some(8) => assert_eq!(wave, 1, "{}", String::from_utf8_lossy(&out.stderr)),
                other => panic!("exit {other:?}: {}", String::from_utf8_lossy(&out.stderr)),
            }
        }
    }
    assert!(acked.len() >= 36, "the surviving servers kept answering: {}", acked.len());
    for (pad_id, seq, data) in &acked {
        let pad = pads.iter().find(|p| &p.id == pad_id).unwrap();
        let s = seq.to_string();
        let v =
            env.json(&["pad", "read", pad_id, "--ticket", &pad.ticket, "--from", &s, "--to", &s]);
        use base64::Engine as _;
        let want = base64::engine::general_purpose::STANDARD.encode(data);
        assert_eq!(v["blocks"][0]["payload_b64"].as_str(), Some(want.as_str()), "{v}");
    }
    env.assert_verified();
}

/// A server keeps the pads and Merkle hashes it wrote from one group to the next while other
/// servers write: when its next group begins it reads what they journaled since its last
/// commit, and reads again only the pads their entries name. Appends to one pad alternating
/// between two servers, and a seal made through the other one, are each seen at once: every
/// append continues the chain and no group refuses itself and runs again.
#[test]
fn test_postgres_multi_a_server_sees_what_another_wrote_to_a_pad_it_keeps() {
    if skip() {
        return;
    }
    let env = TestEnv::init();
    let shared = env.pad_with_envelope(&["--max-blocks", "64"]);
    let own = env.pad_with_envelope(&["--max-blocks", "64"]);
    let (a, b) = (env.serve(&[]), env.serve(&[]));
    let append = |s: &Server, pad: &crate::common::Pad, n: usize| {
        let (status, v) =
            crate::common::server::append_block(s.addr, &pad.id, &pad.key, &n.to_string());
        assert_eq!(status, 201, "{v}");
        v["seq"].as_u64().expect("a seq")
    };
    for n in 1..=8 {
        // Server a also appends to a pad only it writes, which it keeps throughout.
        assert_eq!(append(&a, &own, n), n as u64);
        let s = if n % 2 == 0 { &a } else { &b };
        assert_eq!(append(s, &shared, n), n as u64, "append {n} continues the chain");
    }
    let auth = format!("Authorization: Bearer {}", shared.key);
    b.curl_json(&format!("/v1/pads/{}/seal", shared.id), &["-X", "POST", "-H", &auth], 200);
    let (status, v) = crate::common::server::append_block(a.addr, &shared.id, &shared.key, "late");
    assert_eq!(status, 409, "{v}");
    assert_eq!(v["detail"], "pad is sealed", "{v}");
    for s in [&a, &b] {
        assert_eq!(s.metric("locker_commit_group_reruns_total"), 0.0);
    }
    env.assert_verified();
}
