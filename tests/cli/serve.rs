//! `locker serve`: the real binary on a free port, driven with curl and raw sockets.

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::server::{http, parse_response, wait_timeout, Server};
use crate::common::{Pad, TestEnv, ENVELOPE};

const DEMO_HEAD: &str = "5f77fb573937fa35d50e36ad944a8bd500343bf808d2035b7c4c29a3de5b512b";

fn bearer(secret: &str) -> String {
    format!("Authorization: Bearer {secret}")
}

/// Creates a pad over HTTP and appends the envelope.
fn http_pad(s: &Server, body: &str) -> Pad {
    let v = s.curl_json("/v1/pads", &["-X", "POST", "-d", body], 201);
    let pad = Pad {
        id: v["pad_id"].as_str().unwrap().to_owned(),
        key: v["write_key"].as_str().unwrap().to_owned(),
        ticket: v["read_ticket"].as_str().unwrap().to_owned(),
    };
    let ack = s.curl_json(
        &format!("/v1/pads/{}/append", pad.id),
        &["-X", "POST", "-H", &bearer(&pad.key), "--data-binary", ENVELOPE],
        201,
    );
    assert_eq!(ack["seq"], 0);
    pad
}

fn err(v: &Value) -> (&str, &str) {
    (v["error"].as_str().unwrap_or("?"), v["detail"].as_str().unwrap_or("?"))
}

#[test]
fn test_serve_refuses_a_non_loopback_address_before_touching_anything() {
    let empty = TestEnv::new();
    let out = empty.locker().args(["serve", "--listen", "0.0.0.0:0"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--allow-remote-http"));
    assert!(!empty.path().join(".locker").exists(), "nothing is created");

    let env = TestEnv::init();
    let before = env.fingerprint();
    let e = env.json_err(&["serve", "--listen", "[::]:0"], 2);
    assert_eq!(e["error"], "usage");
    assert_eq!(env.fingerprint(), before, "the repository is not opened or changed");
    // Without a repository, serve does not create one either.
    let e = empty.json_err(&["serve", "--listen", "127.0.0.1:0"], 3);
    assert_eq!(e["error"], "no_repository");
    assert!(!empty.path().join(".locker").exists());
}

#[test]
fn test_serve_pad_round_trip_with_curl() {
    let env = TestEnv::init();
    let s = env.serve(&[]);
    let health = s.curl_json("/health", &[], 200);
    assert_eq!(health["status"], "ok");
    let sqlite = !crate::common::on_postgres();
    assert_eq!(
        health["database"],
        serde_json::json!({"backend": if sqlite { "sqlite" } else { "postgres" },
                           "writable": true, "wal_mode": sqlite})
    );
    assert_eq!(health["pads"], serde_json::json!({"total": 1, "unsealed": 0, "sealed": 1}));
    // What is true of this server: no payment block when payments are off; the journal's
    // size, head and key. See: #18.
    assert!(health.get("rpc").is_none(), "{health}");
    let journal = &env.json(&["verify"])["journal"];
    assert_eq!(health["journal"]["entries"], journal["entries"], "{health}");
    assert_eq!(health["journal"]["head_hash"], journal["head_hash"]);
    assert_eq!(health["journal"]["key_id"], env.json(&["key", "show"])["key_id"]);
    let length = s.curl("/health", &[]).1.len();
    let (code, body) = s.curl("/health", &["-I"]);
    assert_eq!(code, 200);
    assert!(body.contains(&format!("content-length: {length}")), "{body}");

    let pad = http_pad(&s, r#"{"ttl_seconds":"60","max_blocks":8}"#);
    let ack = s.curl_json(
        &format!("/v1/pads/{}/append", pad.id),
        &["-X", "POST", "-H", &bearer(&pad.key), "-d", "four"],
        201,
    );
    assert_eq!(ack["seq"], 1);
    let m = s.curl_json(&format!("/v1/pads/{}/manifest", pad.id), &[], 200);
    assert_eq!((m["state"].as_str(), m["block_count"].as_u64()), (Some("open"), Some(2)));
    assert_eq!(m["expires_at"].as_i64(), Some(env.now + 60));
    let sealed = s.curl_json(
        &format!("/v1/pads/{}/seal", pad.id),
        &["-X", "POST", "-H", &format!("authorization: bearer {}", pad.key)],
        200,
    );
    assert_eq!(sealed["state"], "sealed");
    assert_eq!(sealed["head_hash"], ack["curr_hash"]);

    // Header ticket; then the query parameter wins over a wrong header.
    let read = s.curl_json(
        &format!("/v1/pads/{}/blocks?from=1&to=99", pad.id),
        &["-H", &bearer(&pad.ticket)],
        200,
    );
    assert_eq!(
        (read["from"].as_i64(), read["to"].as_i64(), read["count"].as_u64()),
        (Some(1), Some(1), Some(1))
    );
    let b = &read["blocks"][0];
    assert_eq!(b["content_type"], "application/x-www-form-urlencoded");
    assert_eq!(
        (b["payload_utf8"].as_str(), b["payload_b64"].as_str()),
        (Some("four"), Some("Zm91cg=="))
    );
    let read = s.curl_json(
        &format!("/v1/pads/{}/blocks?ticket={}", pad.id, pad.ticket),
        &["-H", "Authorization: Bearer wrong"],
        200,
    );
    assert_eq!(read["total_blocks"], 2);
    assert_eq!(read["blocks"][0]["payload_utf8"], ENVELOPE);

    let t = s.curl_json(
        &format!("/v1/pads/{}/tickets", pad.id),
        &["-X", "POST", "-H", &bearer(&pad.key), "-d", "{}"],
        201,
    );
    assert_eq!(t["type"], "read_unlimited");
    // The CLI sees the same repository, and it verifies.
    let local = env.json(&["pad", "read", &pad.id, "--ticket", t["ticket"].as_str().unwrap()]);
    assert_eq!(local["count"], 2);
    assert_eq!(env.json(&["verify"])["ok"], true);
}

#[test]
fn test_serve_demo_pad_is_the_peers() {
    let env = TestEnv::init();
    let s = env.serve(&[]);
    let m = s.curl_json("/v1/pads/demo-pad-v1/manifest", &[], 200);
    assert_eq!(m["head_hash"], DEMO_HEAD);
    assert_eq!((m["block_count"].as_u64(), m["total_bytes"].as_u64()), (Some(3), Some(339)));
    assert_eq!(m["state"], "sealed");
    assert_eq!(m["expires_at"].as_i64(), Some(env.now + 100 * 365 * 24 * 3600));
    // Readable without a ticket, and any ticket given is ignored.
    let b = s.curl_json("/v1/pads/demo-pad-v1/blocks", &["-H", "Authorization: Bearer nope"], 200);
    assert_eq!(b["blocks"][1]["payload_utf8"], "Permanent read-only demo handoff pad.\n");
    assert_eq!(b["blocks"][0]["content_type"], "application/json");
    assert_eq!(b["blocks"][2]["content_type"], "text/plain");
    // The published key mints tickets but cannot write.
    s.curl_json(
        "/v1/pads/demo-pad-v1/tickets",
        &["-X", "POST", "-H", &bearer("demo-write-key"), "-d", "{}"],
        201,
    );
    let e = s.curl_json(
        "/v1/pads/demo-pad-v1/append",
        &["-X", "POST", "-H", &bearer("demo-write-key"), "-d", "x"],
        409,
    );
    assert_eq!(err(&e), ("conflict", "pad is sealed"));
    drop(s);
    // A second start does not seed it again; the repository verifies.
    let s = env.serve(&[]);
    assert_eq!(s.curl_json("/health", &[], 200)["pads"]["total"], 1);
    assert_eq!(env.json(&["verify"])["ok"], true);
    // Like every pad, it is checked: a block altered behind locker's back is found.
    env.sql()
        .execute("UPDATE blocks SET payload = CAST('x' AS BLOB) WHERE pad_id = 'demo-pad-v1' AND seq = 2", [])
        .unwrap();
    let out = env.locker().args(["verify"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("demo-pad-v1"));
}

#[test]
fn test_serve_every_error_status_in_the_peers_order() {
    let env = TestEnv::init();
    // Made an hour ago: a pad that has expired by now, and a read_once ticket whose lease
    // opened then.
    let earlier = (env.now - 3600).to_string();
    let old = |args: &[&str]| -> Value {
        let out =
            env.locker().env("LOCKER_NOW", &earlier).arg("--json").args(args).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let v = old(&["pad", "create", "--ttl", "60"]);
    let expired = v["pad_id"].as_str().unwrap().to_owned();
    let expired_key = v["write_key"].as_str().unwrap().to_owned();
    let v = old(&["pad", "create"]);
    let leased = Pad {
        id: v["pad_id"].as_str().unwrap().to_owned(),
        key: v["write_key"].as_str().unwrap().to_owned(),
        ticket: v["read_ticket"].as_str().unwrap().to_owned(),
    };
    old(&["append", &leased.id, "--key", &leased.key, "--data", ENVELOPE]);
    old(&["pad", "read", &leased.id, "--ticket", &leased.ticket]);

    let s = env.serve(&[]);
    let pad = http_pad(&s, r#"{"max_blocks":2}"#);
    // The server signs what the writes grew in its next round (at most every 50 ms); a reader
    // of the checkpoint waits for that round, so the store is settled when it answers.
    s.curl_json("/v1/checkpoint", &[], 200);
    let before = env.fingerprint();
    let append = |id: &str| format!("/v1/pads/{id}/append");
    let big = "x".repeat(65_537);
    let key_h = bearer(&pad.key);
    let exp_h = bearer(&expired_key);
    let tick_h = bearer(&pad.ticket);
    let low_h = format!("authorization: bearer {}", pad.ticket);
    let leased_h = bearer(&leased.ticket);
    type Case<'a> = (&'a str, String, Vec<&'a str>, u16, (&'a str, &'a str));
    let cases: Vec<Case> = vec![
        // 413 comes before the pad lookup, 404 before the key, the key before the state.
        (
            "oversized append to an unknown pad",
            append("nope"),
            vec!["-X", "POST", "-d", &big],
            413,
            ("payload_too_large", "payload exceeds 65536 bytes"),
        ),
        (
            "unknown pad without a key",
            append("nope"),
            vec!["-X", "POST", "-d", "x"],
            404,
            ("not_found", "pad not found"),
        ),
        (
            "no key",
            append(&pad.id),
            vec!["-X", "POST", "-d", "x"],
            401,
            ("unauthorized", "invalid write key"),
        ),
        (
            "another scheme",
            append(&pad.id),
            vec!["-X", "POST", "-H", "Authorization: Basic abc", "-d", "x"],
            401,
            ("unauthorized", "invalid write key"),
        ),
        (
            "expired pad",
            append(&expired),
            vec!["-X", "POST", "-H", &exp_h, "-d", "x"],
            410,
            ("gone", "pad is expired"),
        ),
        (
            "empty payload",
            append(&pad.id),
            vec!["-X", "POST", "-H", &key_h, "--data-binary", ""],
            400,
            ("bad_request", "empty payload"),
        ),
        (
            "seal of an expired pad",
            format!("/v1/pads/{expired}/seal"),
            vec!["-X", "POST", "-H", &exp_h],
            410,
            ("gone", "pad is expired"),
        ),
        (
            "oversized create body",
            "/v1/pads".into(),
            vec!["-X", "POST", "-d", &big],
            413,
            ("payload_too_large", "request body exceeds 4096 bytes"),
        ),
        (
            "empty create body",
            "/v1/pads".into(),
            vec!["-X", "POST", "-d", ""],
            422,
            ("unprocessable", "invalid request body"),
        ),
        (
            "array create body",
            "/v1/pads".into(),
            vec!["-X", "POST", "-d", "[]"],
            422,
            ("unprocessable", "invalid request body"),
        ),
        (
            "ttl out of range",
            "/v1/pads".into(),
            vec!["-X", "POST", "-d", r#"{"ttl_seconds":0}"#],
            422,
            ("unprocessable", "invalid request body"),
        ),
        // /tickets checks its body before the pad and the key.
        (
            "bad ticket type on an unknown pad",
            "/v1/pads/nope/tickets".into(),
            vec!["-X", "POST", "-d", r#"{"type":"write"}"#],
            422,
            ("unprocessable", "type must be 'read_once' or 'read_unlimited', got 'write'"),
        ),
        (
            "ticket for an unknown pad",
            "/v1/pads/nope/tickets".into(),
            vec!["-X", "POST", "-d", "{}"],
            404,
            ("not_found", "pad not found"),
        ),
        (
            "ticket without the key",
            format!("/v1/pads/{}/tickets", pad.id),
            vec!["-X", "POST", "-d", "{}"],
            401,
            ("unauthorized", "invalid write key"),
        ),
        (
            "blocks of an unknown pad",
            "/v1/pads/nope/blocks".into(),
            vec![],
            404,
            ("not_found", "pad not found"),
        ),
        (
            "blocks without a ticket",
            format!("/v1/pads/{}/blocks", pad.id),
            vec![],
            401,
            ("unauthorized", "missing read ticket"),
        ),
        (
            "lowercase bearer on blocks",
            format!("/v1/pads/{}/blocks", pad.id),
            vec!["-H", &low_h],
            401,
            ("unauthorized", "missing read ticket"),
        ),
        (
            "another pad's ticket",
            format!("/v1/pads/{}/blocks", pad.id),
            vec!["-H", &leased_h],
            401,
            ("unauthorized", "invalid read ticket"),
        ),
        (
            "read lease over",
            format!("/v1/pads/{}/blocks", leased.id),
            vec!["-H", &leased_h],
            403,
            ("forbidden", "read ticket lease expired"),
        ),
        (
            "bad range",
            format!("/v1/pads/{}/blocks?from=-1", pad.id),
            vec!["-H", &tick_h],
            422,
            ("unprocessable", "invalid from/to range"),
        ),
        (
            "manifest of an unknown pad",
            "/v1/pads/nope/manifest".into(),
            vec![],
            404,
            ("not_found", "pad not found"),
        ),
    ];
    for (what, path, args, status, expected) in &cases {
        let v = s.curl_json(path, args, *status);
        assert_eq!(err(&v), *expected, "{what}");
        assert_eq!(env.fingerprint(), before, "{what} changed nothing");
    }

    // Quotas, then the envelope, then a sealed pad.
    s.curl_json(&append(&pad.id), &["-X", "POST", "-H", &bearer(&pad.key), "-d", "1"], 201);
    let e = s.curl_json(&append(&pad.id), &["-X", "POST", "-H", &bearer(&pad.key), "-d", "2"], 409);
    assert_eq!(err(&e), ("conflict", "block quota exceeded"));
    let fresh = s.curl_json("/v1/pads", &["-X", "POST", "-d", "{}"], 201);
    let e = s.curl_json(
        &append(fresh["pad_id"].as_str().unwrap()),
        &["-X", "POST", "-H", &bearer(fresh["write_key"].as_str().unwrap()), "-d", "{}"],
        400,
    );
    assert_eq!(
        err(&e),
        ("bad_request", "block 0 invalid envelope: schema must be 'locker.handoff.v1'")
    );
    s.curl_json(
        &format!("/v1/pads/{}/seal", pad.id),
        &["-X", "POST", "-H", &bearer(&pad.key)],
        200,
    );
    let e = s.curl_json(&append(&pad.id), &["-X", "POST", "-H", &bearer(&pad.key), "-d", "3"], 409);
    assert_eq!(err(&e), ("conflict", "pad is sealed"));
    let e = s.curl_json(
        &format!("/v1/pads/{}/seal", pad.id),
        &["-X", "POST", "-H", &bearer(&pad.key)],
        409,
    );
    assert_eq!(err(&e), ("conflict", "pad is sealed"));

    // A pad tampered with behind locker's back is not sealed.
    let t = http_pad(&s, "{}");
    env.sql().execute("UPDATE blocks SET payload = X'00' WHERE pad_id = ?1", [&t.id]).unwrap();
    let e = s.curl_json(
        &format!("/v1/pads/{}/seal", t.id),
        &["-X", "POST", "-H", &bearer(&t.key)],
        409,
    );
    assert_eq!(e["error"], "inconsistent_pad");
    let detail = e["detail"].as_str().unwrap();
    assert!(
        detail.starts_with("refusing to seal: the stored chain is not consistent ("),
        "{detail}"
    );

    // FastAPI's own shapes: query parameters that are not integers, unknown routes, methods.
    let v = s.curl_json("/v1/pads/nope/blocks?from=abc&to=1.5", &[], 422);
    assert_eq!(v["detail"][0]["loc"], serde_json::json!(["query", "from"]));
    assert_eq!(v["detail"][0]["type"], "int_parsing");
    assert_eq!(v["detail"][1]["input"], "1.5");
    // Unknown routes: locker's flat error, with FastAPI's `detail` text. See: #18.
    let e = s.curl_json("/v1/nothing", &[], 404);
    assert_eq!((&e["error"], &e["detail"]), (&"not_found".into(), &"Not Found".into()), "{e}");
    let (code, head) = s.curl("/v1/pads/x/seal", &["-i"]);
    assert_eq!(code, 405);
    assert!(head.to_ascii_lowercase().contains("allow: post"), "{head}");
    assert!(
        head.ends_with(r#"{"error":"method_not_allowed","detail":"Method Not Allowed"}"#),
        "{head}"
    );
}

#[test]
fn test_serve_json_bodies_are_read_like_the_peer() {
    let env = TestEnv::init();
    let s = env.serve(&[]);
    for (body, ttl, blocks) in [
        (r#"{"ttl_seconds":"60"}"#, 60, 32),
        (r#"{"ttl_seconds":2.0,"max_blocks":true}"#, 2, 1),
        (r#"{"max_blocks":" 7 ","unknown":[1]}"#, 3600, 7),
    ] {
        let v = s.curl_json("/v1/pads", &["-X", "POST", "-d", body], 201);
        assert_eq!(v["expires_at"].as_i64(), Some(env.now + ttl), "{body}");
        assert_eq!(v["max_blocks"], blocks, "{body}");
        // Unlike the peer, a type a web page may send anywhere is refused. See: #18.
        let e = s.curl_json(
            "/v1/pads",
            &["-X", "POST", "-H", "content-type: text/plain", "-d", body],
            415,
        );
        assert_eq!(e["error"], "unsupported_media_type");
    }
    // Exactly 4096 bytes is accepted; 4097 is not.
    let pad = format!(r#"{{"ttl_seconds":60,"pad":"{}"}}"#, "x".repeat(4096 - 27));
    assert_eq!(pad.len(), 4096);
    s.curl_json("/v1/pads", &["-X", "POST", "-d", &pad], 201);
    let pad = format!(r#"{{"ttl_seconds":60,"pad":"{}"}}"#, "x".repeat(4097 - 27));
    s.curl_json("/v1/pads", &["-X", "POST", "-d", &pad], 413);
}

#[test]
fn test_serve_oversized_bodies_are_refused_before_they_are_read() {
    let env = TestEnv::init();
    let s = env.serve(&[]);
    let before = env.fingerprint();
    // An announced length over the cap: 413 at once, while the body is still unsent.
    let mut c = TcpStream::connect(s.addr).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    c.write_all(
        b"POST /v1/pads/nope/append HTTP/1.1\r\nHost: localhost\r\nContent-Length: 104857600\r\n\r\n",
    )
    .unwrap();
    c.write_all(&[b'x'; 1024]).unwrap();
    let mut resp = Vec::new();
    let _ = c.read_to_end(&mut resp);
    let (status, body) = parse_response(&resp).unwrap();
    assert_eq!(status, 413, "{}", String::from_utf8_lossy(&body));

    // A chunked body with no length: refused once the cap is passed, long before its end.
    let mut c = TcpStream::connect(s.addr).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    c.write_all(b"POST /v1/pads HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
        .unwrap();
    let chunk = format!("{:x}\r\n{}\r\n", 1024, "y".repeat(1024));
    let mut sent = 0usize;
    let mut refused_after = None;
    for _ in 0..10_240 {
        if c.write_all(chunk.as_bytes()).is_err() {
            refused_after = Some(sent);
            break;
        }
        sent += 1024;
        if sent == 8 * 1024 {
            // Give the server time to answer and close.
            std::thread::sleep(Duration::from_millis(300));
        }
    }
    let mut resp = Vec::new();
    let _ = c.read_to_end(&mut resp);
    let (status, body) = parse_response(&resp).unwrap();
    assert_eq!(status, 413);
    let v: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(v["detail"], "request body exceeds 4096 bytes");
    assert!(
        refused_after.is_some_and(|n| n < 10 * 1024 * 1024),
        "the body was cut off: {refused_after:?}"
    );
    assert_eq!(env.fingerprint(), before);
}

#[test]
fn test_serve_cuts_off_a_slow_header_client() {
    let env = TestEnv::init();
    let s = env.serve(&["--header-timeout", "1"]);
    for partial in [&b""[..], b"GET /health HT", b"GET /health HTTP/1.1\r\nHost: localhost\r\n"] {
        let mut c = TcpStream::connect(s.addr).unwrap();
        c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        c.write_all(partial).unwrap();
        let start = Instant::now();
        let mut buf = Vec::new();
        let _ = c.read_to_end(&mut buf);
        let took = start.elapsed();
        assert!(took < Duration::from_secs(5), "held for {took:?}");
        assert!(!String::from_utf8_lossy(&buf).contains("200 OK"));
    }
    // A slow body is cut off too (408) by the body deadline.
    let s = env.serve(&["--body-timeout", "1"]);
    let mut c = TcpStream::connect(s.addr).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    c.write_all(b"POST /v1/pads HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{").unwrap();
    let mut buf = Vec::new();
    let _ = c.read_to_end(&mut buf);
    assert_eq!(parse_response(&buf).unwrap().0, 408);
    // The server still answers.
    assert_eq!(s.curl("/health", &[]).0, 200);
}

#[test]
fn test_serve_sigterm_during_appends_loses_no_acknowledged_write() {
    let env = TestEnv::init();
    let s = env.serve(&[]);
    let pad = http_pad(&s, r#"{"max_blocks":4096}"#);
    let addr = s.addr;
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let workers: Vec<_> = (0..4)
        .map(|w| {
            let (id, key, stop) = (pad.id.clone(), pad.key.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut acked = Vec::new();
                for i in 0.. {
                    if stop.load(std::sync::atomic::Ordering::Relaxed) || i > 2000 {
                        break;
                    }
                    let auth = format!("Bearer {key}");
                    match http(
                        addr,
                        "POST",
                        &format!("/v1/pads/{id}/append"),
                        &[("Authorization", &auth), ("Content-Type", "text/plain")],
                        format!("w{w}-{i}").as_bytes(),
                    ) {
                        Ok((201, body)) => {
                            acked.push(serde_json::from_slice::<Value>(&body).unwrap());
                        }
                        Ok((status, body)) => {
                            panic!("append answered {status}: {}", String::from_utf8_lossy(&body))
                        }
                        // Refused or cut off after SIGTERM: not acknowledged.
                        Err(_) => break,
                    }
                }
                acked
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(400));
    let (code, log) = s.stop();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    assert_eq!(code, Some(0), "{log}");
    assert!(log.contains("locker received SIGTERM"));
    let acked: Vec<Value> = workers.into_iter().flat_map(|w| w.join().unwrap()).collect();
    assert!(acked.len() > 10, "the burst ran ({} appends)", acked.len());
    let read = |from: u64| {
        env.json(&[
            "pad",
            "read",
            &pad.id,
            "--ticket",
            &pad.ticket,
            "--from",
            &from.to_string(),
            "--to",
            &(from + 255).to_string(),
        ])
    };
    let mut stored = std::collections::HashMap::new();
    let total = read(0)["total_blocks"].as_u64().unwrap();
    let mut from = 0;
    while from < total {
        for b in read(from)["blocks"].as_array().unwrap() {
            stored.insert(b["seq"].as_u64().unwrap(), b["curr_hash"].as_str().unwrap().to_owned());
        }
        from += 256;
    }
    for a in &acked {
        let seq = a["seq"].as_u64().unwrap();
        assert_eq!(
            stored.get(&seq).map(String::as_str),
            a["curr_hash"].as_str(),
            "acknowledged block {seq} survives"
        );
    }
    assert_eq!(env.json(&["verify"])["ok"], true);
}

#[test]
fn test_serve_access_log_never_shows_a_secret() {
    let env = TestEnv::init();
    let s = env.serve(&["--log-format", "json"]);
    let pad = http_pad(&s, "{}");
    s.curl_json(&format!("/v1/pads/{}/blocks?ticket={}&from=0", pad.id, pad.ticket), &[], 200);
    s.curl_json(&format!("/v1/pads/{}/blocks", pad.id), &["-H", &bearer(&pad.ticket)], 200);
    s.curl(&format!("/v1/pads/{}/blocks?token=tok-secret&key=key-secret", pad.id), &[]);
    let t = s.curl_json(
        &format!("/v1/pads/{}/tickets", pad.id),
        &["-X", "POST", "-H", &bearer(&pad.key), "-d", "{}"],
        201,
    );
    let (code, log) = s.stop();
    assert_eq!(code, Some(0));
    for secret in [&pad.key, &pad.ticket, t["ticket"].as_str().unwrap(), "tok-secret", "key-secret"]
    {
        assert!(!log.contains(secret), "the log shows a secret: {log}");
    }
    let lines: Vec<Value> = log.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    assert!(lines.len() >= 6, "{log}");
    let blocks =
        lines.iter().find(|l| l["query"].as_str().is_some_and(|q| q.contains("from=0"))).unwrap();
    assert_eq!(blocks["query"], "ticket=***&from=0");
    assert_eq!(blocks["route"], "/v1/pads/{pad_id}/blocks");
    assert_eq!(blocks["status"], 200);
    assert!(lines.iter().any(|l| l["status"] == 401 && l["error"] == "unauthorized"));
}

#[test]
fn test_serve_remote_mode_gives_the_local_answers() {
    let env = TestEnv::init();
    let s = env.serve(&[]);
    let url = s.url();
    fn rm<'a>(url: &'a str, args: &[&'a str]) -> Vec<&'a str> {
        let mut a = vec!["--remote", url];
        a.extend_from_slice(args);
        a
    }
    let created = env.json(&rm(&url, &["pad", "create", "--max-blocks", "3"]));
    let id = created["pad_id"].as_str().unwrap();
    let key = created["write_key"].as_str().unwrap();
    let ticket = created["read_ticket"].as_str().unwrap();
    let ack = env.json(&rm(&url, &["append", id, "--key", key, "--data", ENVELOPE]));
    assert_eq!(
        ack["curr_hash"],
        "7a16e7c76df03bfa38933b2f586696278db332895450b653b59322eb56c036e9"
    );
    let out = env
        .locker()
        .args(rm(&url, &["append", id, "--content-type", "text/plain", "-"]))
        .env("LOCKER_WRITE_KEY", key)
        .write_stdin("two\n")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).split(' ').nth(1), Some("1"));
    // Same output as local mode, byte for byte.
    let local = env.locker().args(["pad", "show", id]).output().unwrap();
    let over = env.locker().args(rm(&url, &["pad", "show", id])).output().unwrap();
    assert_eq!((over.status.code(), &over.stdout), (Some(0), &local.stdout));
    let local =
        env.locker().args(["--json", "pad", "read", id, "--ticket", ticket]).output().unwrap();
    let over = env
        .locker()
        .args(rm(&url, &["--json", "pad", "read", id, "--ticket", ticket]))
        .output()
        .unwrap();
    assert_eq!(over.stdout, local.stdout);
    let raw = env
        .locker()
        .args(rm(&url, &["pad", "read", id, "--ticket", ticket, "--from", "1", "--raw"]))
        .output()
        .unwrap();
    assert_eq!(raw.stdout, b"two\n");
    // Errors: the same exit codes and JSON error objects.
    for (args, code) in [
        (vec!["append", id, "--key", "wrong", "--data", "x"], 5),
        (vec!["append", "nope", "--key", key, "--data", "x"], 3),
        (vec!["pad", "read", id], 5),
        (vec!["pad", "read", id, "--ticket", ticket, "--from", "-1"], 6),
        (vec!["pad", "create", "--ttl", "0"], 6),
    ] {
        let local = env.json_err(&args, code);
        let over = env.json_err(&rm(&url, &args), code);
        assert_eq!(over, local, "{args:?}");
    }
    let sealed = env.json(&rm(&url, &["seal", id, "--key", key]));
    assert_eq!(sealed["state"], "sealed");
    let e = env.json_err(&rm(&url, &["append", id, "--key", key, "--data", "x"]), 4);
    assert_eq!(e["detail"], "pad is sealed");
    let t = env.json(&rm(&url, &["pad", "ticket", id, "--key", key]));
    let r = env.json(&rm(
        &url,
        &["pad", "revoke-ticket", id, t["ticket"].as_str().unwrap(), "--key", key],
    ));
    assert_eq!(r["already_revoked"], false);
    env.json_err(&rm(&url, &["pad", "read", id, "--ticket", t["ticket"].as_str().unwrap()]), 5);
    let list = env.json(&rm(&url, &["pad", "list", "--state", "sealed"]));
    assert_eq!(list["pads"].as_array().unwrap().len(), 2, "the demo pad and this one");
    // Deposit, verify and log.
    std::fs::write(env.path().join("env.json"), ENVELOPE).unwrap();
    std::fs::write(env.path().join("a.txt"), "artifact\n").unwrap();
    let d = env.json(&rm(&url, &["deposit", "--envelope", "env.json", "--artifact", "a.txt"]));
    assert_eq!((d["status"].as_str(), d["block_count"].as_u64()), (Some("sealed"), Some(2)));
    let head = d["head_hash"].as_str().unwrap();
    let v = env.json(&rm(&url, &["verify", d["pad_id"].as_str().unwrap(), "--expect-head", head]));
    assert_eq!(v["ok"], true);
    assert_eq!(env.json(&rm(&url, &["verify"]))["ok"], true);
    // The journal: the same entries, but an anonymous reader never sees write-key hashes or
    // ticket ids. See: #18.
    let lines = |out: std::process::Output| -> Vec<Value> {
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let log = lines(env.locker().args(rm(&url, &["--json", "log", "-n", "3"])).output().unwrap());
    let mut local = lines(env.locker().args(["--json", "log", "-n", "3"]).output().unwrap());
    assert_eq!(log.len(), 3);
    for (over, here) in log.iter().zip(&mut local) {
        for field in ["write_key_hash", "ticket_id"] {
            if let Some(v) = here["body"].get_mut(field) {
                assert_eq!(over["body"][field], "redacted", "{over}");
                *v = "redacted".into();
            }
        }
        assert_eq!(over, here);
    }
    assert!(log.iter().any(|e| e["body"].get("ticket_id").is_some()));
    // Tampering shows remotely as it does locally: exit 1.
    env.sql()
        .execute("UPDATE blocks SET payload = X'00' WHERE pad_id = ?1 AND seq = 1", [id])
        .unwrap();
    let over = env.locker().args(rm(&url, &["verify", id])).output().unwrap();
    assert_eq!(over.status.code(), Some(1));
    assert_eq!(over.stdout, env.locker().args(["verify", id]).output().unwrap().stdout);
}

#[test]
fn test_serve_remote_client_refuses_unsafe_urls_and_ignores_proxies() {
    let env = TestEnv::init();
    for url in [
        "http://localhost:8000",
        "http://10.1.2.3:8000",
        "http://0.0.0.0:1",
        "ftp://127.0.0.1",
        "https://u:p@example.com",
    ] {
        let e = env.json_err(&["--remote", url, "pad", "show", "x"], 2);
        assert_eq!(e["error"], "usage", "{url}");
    }
    // Nothing listening: unavailable.
    let e = env.json_err(&["--remote", "http://127.0.0.1:9", "pad", "show", "x"], 8);
    assert_eq!(e["error"], "unavailable");
    // Proxy variables are ignored.
    let s = env.serve(&[]);
    let out = env
        .locker()
        .env("HTTP_PROXY", "http://127.0.0.1:9")
        .env("http_proxy", "http://127.0.0.1:9")
        .env("ALL_PROXY", "http://127.0.0.1:9")
        .env("LOCKER_URL", s.url())
        .args(["--json", "pad", "show", "demo-pad-v1"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn test_serve_openapi_document_is_served() {
    let env = TestEnv::init();
    let s = env.serve(&[]);
    let doc = s.curl_json("/openapi.json", &[], 200);
    let file: Value = serde_json::from_str(
        &std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/server/openapi.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(doc, file);
    assert!(doc["paths"]["/v1/pads/{pad_id}/append"]["post"].is_object());
}

#[test]
fn test_serve_and_cli_write_one_repository_at_once() {
    let env = TestEnv::init();
    let s = env.serve(&[]);
    let over_http = http_pad(&s, r#"{"max_blocks":200}"#);
    let local = env.create_pad(&["--max-blocks", "200"]);
    env.append(&local, ENVELOPE);
    let addr = s.addr;
    let http_writer = {
        let (id, key) = (over_http.id.clone(), over_http.key.clone());
        std::thread::spawn(move || {
            for i in 0..60 {
                let auth = format!("Bearer {key}");
                let (status, _) = http(
                    addr,
                    "POST",
                    &format!("/v1/pads/{id}/append"),
                    &[("Authorization", &auth)],
                    format!("h{i}").as_bytes(),
                )
                .unwrap();
                assert_eq!(status, 201);
            }
        })
    };
    let mut children = Vec::new();
    for i in 0..20 {
        children.push(
            std::process::Command::new(crate::common::bin())
                .env_clear()
                .env("LOCKER_NOW", env.now.to_string())
                .current_dir(env.path())
                .args(["append", &local.id, "--key", &local.key, "--data", &format!("c{i}")])
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap(),
        );
    }
    for mut c in children {
        assert_eq!(wait_timeout(&mut c, Duration::from_secs(60)), Some(0));
    }
    http_writer.join().unwrap();
    assert_eq!(env.json(&["pad", "show", &local.id])["block_count"], 21);
    assert_eq!(env.json(&["pad", "show", &over_http.id])["block_count"], 61);
    assert_eq!(env.json(&["verify"])["ok"], true);
}

#[test]
fn test_serve_bounds_the_operations_running_and_answers_health_when_every_slot_is_busy() {
    if crate::common::sqlite_only("holds SQLite's write lock from outside") {
        return;
    }
    let env = TestEnv::init();
    let s = env.serve(&["--max-concurrent", "1"]);
    // Another process holds the write lock: the server's next write waits for it, in the only
    // slot.
    let db = rusqlite::Connection::open(env.db_path()).unwrap();
    db.execute_batch("BEGIN IMMEDIATE").unwrap();
    let addr = s.addr;
    let writer = std::thread::spawn(move || {
        let json = [("Content-Type", "application/json")];
        http(addr, "POST", "/v1/pads", &json, b"{}").unwrap().0
    });
    // The writer has the slot once a read no longer gets through at once: until then (a
    // loaded machine can be slow to start the writer's request) each read is answered, and
    // tried again.
    let deadline = Instant::now() + Duration::from_secs(20);
    let waiting = loop {
        let probe = std::thread::spawn(move || {
            let start = Instant::now();
            let r = http(addr, "GET", "/v1/pads/demo-pad-v1/manifest", &[], b"").unwrap();
            (r.0, start.elapsed())
        });
        std::thread::sleep(Duration::from_millis(500));
        if !probe.is_finished() {
            break probe;
        }
        assert_eq!(probe.join().unwrap().0, 200, "a read with the slot free");
        assert!(Instant::now() < deadline, "the writer never took the slot");
    };
    // Health is answered at once, whatever the slots. See: #18.
    let start = Instant::now();
    let (code, body) = http(addr, "GET", "/health", &[], b"").unwrap();
    assert_eq!(code, 200, "{}", String::from_utf8_lossy(&body));
    assert!(start.elapsed() < Duration::from_secs(2), "{:?}", start.elapsed());
    std::thread::sleep(Duration::from_millis(200));
    assert!(!waiting.is_finished(), "the second operation waits for the slot");
    db.execute_batch("ROLLBACK").unwrap();
    assert_eq!(writer.join().unwrap(), 201);
    let (status, took) = waiting.join().unwrap();
    assert_eq!(status, 200);
    assert!(took >= Duration::from_millis(600), "{took:?}");
}

/// A write that waits for another process's write lock, sent on a connection kept alive
/// since an earlier request, must not stop the server: until the runtime's worker handed its
/// queue on before committing, the worker woken by that request's bytes ran it and blocked,
/// no thread was left polling the sockets, and nothing at all was answered until the lock
/// was let go (or the write gave up a minute later).
#[test]
fn test_serve_answers_others_while_a_write_on_a_kept_alive_connection_waits_for_the_lock() {
    if crate::common::sqlite_only("holds SQLite's write lock from outside") {
        return;
    }
    let env = TestEnv::init();
    let s = env.serve(&[]);
    let addr = s.addr;
    let db = rusqlite::Connection::open(env.db_path()).unwrap();
    for round in 0..3 {
        let mut kept = crate::common::http1::Http::new(addr);
        let r = kept.req("GET", "/healthz", &[], b"").unwrap();
        assert_eq!(r.status, 200);
        // Both workers go idle: the write's bytes wake whichever one polls the sockets.
        std::thread::sleep(Duration::from_millis(200));
        db.execute_batch("BEGIN IMMEDIATE").unwrap();
        let writer = std::thread::spawn(move || {
            let json = [("Content-Type", "application/json")];
            kept.req("POST", "/v1/pads", &json, b"{}").unwrap().status
        });
        std::thread::sleep(Duration::from_millis(300));
        assert!(!writer.is_finished(), "round {round}: the write waits for the lock");
        for path in ["/healthz", "/health", "/v1/pads/demo-pad-v1/manifest"] {
            let start = Instant::now();
            let (code, body) = http(addr, "GET", path, &[], b"").unwrap_or_else(|e| {
                panic!("round {round}: {path}: no answer ({e}): the server stalled")
            });
            assert_eq!(code, 200, "round {round}: {path}: {}", String::from_utf8_lossy(&body));
            assert!(start.elapsed() < Duration::from_secs(2), "{path}: {:?}", start.elapsed());
        }
        assert!(!writer.is_finished(), "round {round}: the write still waits");
        db.execute_batch("ROLLBACK").unwrap();
        assert_eq!(writer.join().unwrap(), 201, "round {round}");
    }
    assert_eq!(env.json(&["verify"])["ok"], true);
}

#[test]
fn test_serve_exports_a_pad_as_a_bundle_that_verifies_offline() {
    let env = TestEnv::init();
    let pad = env.create_pad(&[]);
    let ack = env.append(&pad, ENVELOPE);
    env.json(&["seal", &pad.id, "--key", &pad.key]);
    let s = env.serve(&[]);
    let path = format!("/v1/pads/{}/export", pad.id);

    // Without a ticket an HTTP caller gets nothing, even though the local operator could.
    let (code, body) = s.curl(&path, &[]);
    assert_eq!(code, 401, "{body}");
    assert_eq!(err(&serde_json::from_str(&body).unwrap()).0, "unauthorized");
    let (code, _) = s.curl(&path, &["-H", &bearer("not-a-ticket")]);
    assert_eq!(code, 401);
    let (code, _) = s.curl("/v1/pads/no-such-pad/export", &["-H", &bearer(&pad.ticket)]);
    assert_eq!(code, 404);

    // With the ticket: the bundle's bytes, which verify with no repository against the head.
    let (code, bundle) = s.curl(&path, &["-H", &bearer(&pad.ticket)]);
    assert_eq!(code, 200, "{bundle}");
    let file = env.path().join("pad.bundle");
    std::fs::write(&file, &bundle).unwrap();
    let elsewhere = TestEnv::new();
    let head = ack["curr_hash"].as_str().unwrap();
    let report =
        elsewhere.json(&["verify", "--bundle", file.to_str().unwrap(), "--expect-head", head]);
    assert_eq!(report["ok"], true, "{report}");
    assert!(!elsewhere.path().join(".locker").exists());
    // The same bytes as the CLI's export.
    let local =
        env.locker().args(["pad", "export", &pad.id, "--ticket", &pad.ticket]).output().unwrap();
    let strip = |b: &str| -> Vec<String> {
        // The header names its exporter and time; every other line is the pad itself.
        b.lines().skip(1).map(str::to_owned).collect()
    };
    let local = String::from_utf8(local.stdout).unwrap();
    assert_eq!(
        strip(&bundle)[..strip(&bundle).len() - 1],
        strip(&local)[..strip(&local).len() - 1]
    );
}
