//! The attacks that held when #18 tried them, kept here so that they keep holding: tokens and
//! scopes, write keys and tickets, no secret in any log, bodies capped while they stream, no
//! request smuggling, slow headers cut off, idle connections, symlinks, and exactly one winner
//! of a compare-and-swap. (Acknowledged writes surviving SIGKILL are `tests/cli/crash.rs` and
//! `torture.rs`.)

use std::io::Write as _;
use std::net::TcpStream;
use std::time::{Duration, Instant};

use super::{answer, bearer, raw, token};
use crate::common::{TestEnv, ENVELOPE};

#[test]
fn test_security_tokens_keys_tickets_and_scopes_hold() {
    let env = TestEnv::init();
    let a = token(&env, "alice", "team-a");
    let b = token(&env, "bob", "team-b");
    let pad = env.pad_with_envelope(&[]);
    let other = env.pad_with_envelope(&[]);
    let s = env.serve(&[]);
    let body = r#"{"key":"plan","expected_version":0,"operation_id":"op","content":"a's"}"#;
    s.curl_json("/v1/artifact", &["-X", "POST", "-H", &bearer(&a), "-d", body], 200);
    // Another scope does not see it; a wrong or revoked token gets nothing.
    s.curl_json("/v1/artifact?key=plan", &["-H", &bearer(&b)], 404);
    s.curl_json("/v1/artifact?key=plan", &["-H", &bearer("lk_wrong")], 401);
    env.json(&["token", "revoke", "--agent", "alice", "--yes"]);
    s.curl_json("/v1/artifact?key=plan", &["-H", &bearer(&a)], 401);
    // A wrong write key, another pad's ticket.
    let e = s.curl_json(
        &format!("/v1/pads/{}/append", pad.id),
        &["-X", "POST", "-H", &bearer("nope"), "-d", "x"],
        401,
    );
    assert_eq!(e["detail"], "invalid write key");
    let e =
        s.curl_json(&format!("/v1/pads/{}/blocks", pad.id), &["-H", &bearer(&other.ticket)], 401);
    assert_eq!(e["detail"], "invalid read ticket");
}

#[test]
fn test_security_no_secret_reaches_the_log() {
    let env = TestEnv::init();
    let s = env.serve(&[]);
    let p = s.curl_json("/v1/pads", &["-X", "POST", "-d", "{}"], 201);
    let (id, key, ticket) = (
        p["pad_id"].as_str().unwrap(),
        p["write_key"].as_str().unwrap(),
        p["read_ticket"].as_str().unwrap(),
    );
    s.curl_json(
        &format!("/v1/pads/{id}/append"),
        &["-X", "POST", "-H", &bearer(key), "--data-binary", ENVELOPE],
        201,
    );
    s.curl_json(&format!("/v1/pads/{id}/blocks?ticket={ticket}"), &[], 200);
    s.curl(&format!("/v1/pads/{id}/blocks?ticket={ticket}x"), &[]);
    let (_, log) = s.stop();
    for secret in [key, ticket] {
        assert!(!log.contains(secret), "{log}");
    }
}

#[test]
fn test_security_bodies_are_capped_while_they_stream_and_not_smuggled() {
    let env = TestEnv::init();
    let s = env.serve(&[]);
    // A chunked body over the 4096-byte cap: 413 long before it ends.
    let mut c = TcpStream::connect(s.addr).unwrap();
    c.write_all(b"POST /v1/pads HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n").unwrap();
    let chunk = format!("1000\r\n{}\r\n", "x".repeat(0x1000));
    let mut refused = false;
    for _ in 0..64 {
        if c.write_all(chunk.as_bytes()).is_err() {
            refused = true;
            break;
        }
    }
    let mut buf = Vec::new();
    let _ = std::io::Read::read_to_end(&mut c, &mut buf);
    assert!(
        refused || String::from_utf8_lossy(&buf).starts_with("HTTP/1.1 413"),
        "{}",
        String::from_utf8_lossy(&buf)
    );
    // Content-Length and Transfer-Encoding together: the chunked body counts, the connection
    // closes, and the request hidden after it never runs.
    let smuggle = "POST /v1/pads HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
                   Content-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n\
                   POST /v1/leases/reap HTTP/1.1\r\nHost: localhost\r\n\r\n";
    let out = raw(s.addr, smuggle.as_bytes(), false);
    let text = String::from_utf8_lossy(&out);
    assert_eq!(text.matches("HTTP/1.1 ").count(), 1, "{text}");
    assert_eq!(answer(&out).0, 201);
}

#[test]
fn test_security_slow_headers_are_cut_off_and_idle_connections_starve_no_one() {
    let env = TestEnv::init();
    let s = env.serve(&["--header-timeout", "1"]);
    // Slowloris: a header line a byte at a time is cut off after the header timeout.
    let mut c = TcpStream::connect(s.addr).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let start = Instant::now();
    c.write_all(b"GET /health HTTP/1.1\r\nHost: localhost\r\nX-A: ").unwrap();
    let mut buf = Vec::new();
    for _ in 0..50 {
        if c.write_all(b"a").is_err() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
        if start.elapsed() > Duration::from_secs(4) {
            break;
        }
    }
    let _ = std::io::Read::read_to_end(&mut c, &mut buf);
    assert!(start.elapsed() < Duration::from_secs(8), "{:?}", start.elapsed());
    // 300 idle connections from one address: the others are still served at once.
    let _idle: Vec<TcpStream> = (0..300).filter_map(|_| TcpStream::connect(s.addr).ok()).collect();
    std::thread::sleep(Duration::from_millis(300));
    let start = Instant::now();
    s.curl_json("/v1/pads/demo-pad-v1/manifest", &["--interface", "127.0.0.2"], 200);
    assert!(start.elapsed() < Duration::from_secs(2), "{:?}", start.elapsed());
}

#[test]
fn test_security_a_symlinked_repository_is_refused() {
    let env = TestEnv::init();
    let elsewhere = TestEnv::new();
    std::os::unix::fs::symlink(env.path().join(".locker"), elsewhere.path().join(".locker"))
        .unwrap();
    let out = elsewhere.locker().args(["--json", "verify"]).output().unwrap();
    assert_ne!(out.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("symlink"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn test_security_exactly_one_compare_and_swap_winner() {
    let env = TestEnv::init();
    let tokens: Vec<String> = (0..8).map(|i| token(&env, &format!("w{i}"), "default")).collect();
    let s = env.serve(&[]);
    let url = s.url();
    let handles: Vec<_> = tokens
        .into_iter()
        .enumerate()
        .map(|(i, t)| {
            let url = url.clone();
            std::thread::spawn(move || {
                let body = format!(
                    r#"{{"key":"k","expected_version":0,"operation_id":"op{i}","content":"{i}"}}"#
                );
                let out = std::process::Command::new("curl")
                    .args([
                        "-s",
                        "-o",
                        "/dev/null",
                        "-w",
                        "%{http_code}",
                        "-X",
                        "POST",
                        "-H",
                        &bearer(&t),
                    ])
                    .args([
                        "-H",
                        "Content-Type: application/json",
                        "-d",
                        &body,
                        &format!("{url}/v1/artifact"),
                    ])
                    .output()
                    .unwrap();
                String::from_utf8(out.stdout).unwrap()
            })
        })
        .collect();
    let mut codes: Vec<String> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    codes.sort();
    assert_eq!(codes, ["200", "409", "409", "409", "409", "409", "409", "409"]);
}
