//! Attack: slow and idle clients starve the server (#18, item 2). 130 connections that send
//! their headers and never their body each took one of the 128 slots for the 20 s body
//! timeout, so every other request, `/health` included, waited 10 s and got 503.

use std::io::Write as _;
use std::net::TcpStream;
use std::time::{Duration, Instant};

use super::answer;
use crate::common::TestEnv;

/// Opens `n` connections that send a request's headers and one byte of its body.
fn stalled(addr: std::net::SocketAddr, n: usize) -> Vec<TcpStream> {
    (0..n)
        .map(|_| {
            let mut c = TcpStream::connect(addr).unwrap();
            c.write_all(
                b"POST /v1/pads HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
                  Content-Length: 10\r\n\r\n{",
            )
            .unwrap();
            c
        })
        .collect()
}

#[test]
fn test_security_bodies_that_never_come_hold_no_slot() {
    let env = TestEnv::init();
    let s = env.serve(&["--max-requests-per-peer", "200"]);
    let _held = stalled(s.addr, 130);
    std::thread::sleep(Duration::from_millis(300));
    // Another client is served at once: health, a read and a write.
    let start = Instant::now();
    s.curl_json("/health", &["--interface", "127.0.0.2"], 200);
    s.curl_json("/v1/pads/demo-pad-v1/manifest", &["--interface", "127.0.0.2"], 200);
    s.curl_json("/v1/pads", &["--interface", "127.0.0.2", "-X", "POST", "-d", "{}"], 201);
    let took = start.elapsed();
    assert!(took < Duration::from_secs(3), "{took:?} (it was 10 s and 503 before)");
    // So is the stalling client's own next request: the stalled bodies hold no slot.
    s.curl_json("/v1/pads/demo-pad-v1/manifest", &[], 200);
}

#[test]
fn test_security_one_peer_gets_its_share_of_requests_and_connections() {
    let env = TestEnv::init();
    let s = env.serve(&["--max-requests-per-peer", "8", "--max-connections-per-peer", "12"]);
    let held = stalled(s.addr, 8);
    std::thread::sleep(Duration::from_millis(300));
    // Its ninth request in flight is refused at once, in the flat error shape.
    let e = s.curl_json("/v1/pads/demo-pad-v1/manifest", &[], 429);
    assert_eq!(e["error"], "too_many_requests", "{e}");
    // Health is answered whatever the peer holds; other peers are served.
    s.curl_json("/health", &[], 200);
    s.curl_json("/v1/pads/demo-pad-v1/manifest", &["--interface", "127.0.0.2"], 200);
    // Idle connections: past the peer's share, a connection gets a JSON 429 and is closed.
    let mut idle: Vec<TcpStream> = (0..4).map(|_| TcpStream::connect(s.addr).unwrap()).collect();
    std::thread::sleep(Duration::from_millis(300));
    let (status, v) =
        answer(&super::raw(s.addr, b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n", false));
    assert_eq!((status, v["error"].as_str()), (429, Some("too_many_connections")), "{v}");
    s.curl_json("/health", &["--interface", "127.0.0.3"], 200);
    // Once they go, the peer is served again.
    drop(held);
    idle.clear();
    std::thread::sleep(Duration::from_millis(300));
    s.curl_json("/v1/pads/demo-pad-v1/manifest", &[], 200);
}
