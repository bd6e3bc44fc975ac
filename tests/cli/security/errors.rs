//! Attack surface: answers that are not the documented JSON (#18, item 4): hyper's own
//! refusals came with empty bodies, a half-closed request got no answer, `locker mcp` dropped
//! bad lines in silence, and one server spoke three error shapes.

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Command, Stdio};

use serde_json::Value;

use super::{answer, raw};
use crate::common::{bin, TestEnv};

const H: &str = "Host: 127.0.0.1\r\n";

#[test]
fn test_security_malformed_http_gets_a_json_error() {
    let env = TestEnv::init();
    let s = env.serve(&[]);
    let json = "Content-Type: application/json\r\n";
    let cases: Vec<(String, u16, &str)> = vec![
        (format!("POST /v1/pads HTTP/1.1\r\n{H}{json}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{{}}"), 400, "bad_request"),
        (format!("POST /v1/pads HTTP/1.1\r\n{H}{json}Transfer-Encoding: gzip\r\n\r\n{{}}"), 400, "bad_request"),
        (format!("GET /health HTTP/1.1\r\n{H}{}\r\n", (0..150).map(|i| format!("X-H{i}: 1\r\n")).collect::<String>()), 431, "headers_too_large"),
        (format!("GET /health HTTP/1.1\r\n{H}X-Big: {}\r\n\r\n", "a".repeat(300_000)), 431, "headers_too_large"),
        (format!("GET /{} HTTP/1.1\r\n{H}\r\n", "a".repeat(66_000)), 414, "uri_too_long"),
        (format!("GET /health?{} HTTP/1.1\r\n{H}\r\n", "a".repeat(9_000)), 414, "uri_too_long"),
        (format!("GET /health HTTP/2.0\r\n{H}\r\n"), 400, "bad_request"),
        ("BLAH\r\n\r\n".to_owned(), 400, "bad_request"),
    ];
    for (req, status, code) in cases {
        let (got, v) = answer(&raw(s.addr, req.as_bytes(), false));
        assert_eq!(
            (got, v["error"].as_str()),
            (status, Some(code)),
            "{}: {v}",
            &req[..40.min(req.len())]
        );
        assert!(v["detail"].is_string());
    }
    // The server is still fine.
    s.curl_json("/health", &[], 200);
}

#[test]
fn test_security_a_half_closed_request_is_answered() {
    let env = TestEnv::init();
    let s = env.serve(&[]);
    // `nc -N`: the request, then the client shuts down its side.
    let (status, v) =
        answer(&raw(s.addr, format!("GET /health HTTP/1.1\r\n{H}\r\n").as_bytes(), true));
    assert_eq!((status, v["status"].as_str()), (200, Some("ok")));
    let req = format!("POST /v1/pads HTTP/1.1\r\n{H}Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{{}}");
    let (status, v) = answer(&raw(s.addr, req.as_bytes(), true));
    assert_eq!(status, 201, "{v}");
    assert!(v["write_key"].is_string());
}

#[test]
fn test_security_one_error_contract_per_surface() {
    let env = TestEnv::init();
    let s = env.serve(&[]);
    let flat = |v: &Value| {
        let m = v.as_object().unwrap();
        m.contains_key("error") && m.contains_key("detail") && !m.contains_key("code")
    };
    // locker's own and agent-locker's and agentstate's routes: the flat shape, even for an
    // unknown path or a wrong method.
    for (path, args, status) in [
        ("/v1/nothing", vec![], 404),
        ("/nothing", vec![], 404),
        ("/v1/pads/x/seal", vec![], 405),
        ("/v1/journal?limit=x", vec![], 400),
        ("/ledger", vec![], 400),
        ("/v1/pads/nope/manifest", vec![], 404),
        ("/v1/deposit", vec!["-X", "POST", "-d", "[]"], 422),
    ] {
        let v = s.curl_json(path, &args, status);
        assert!(flat(&v), "{path}: {v}");
    }
    // questlock's routes: its `{code, message}` (`?format=locker` asks for the flat one).
    for (path, status) in [("/v1/artifact?key=k", 401), ("/v1/artifactz", 404), ("/healthz", 200)] {
        let v = s.curl_json(path, &[], status);
        if status != 200 {
            assert!(v["code"].is_string() && v["message"].is_string(), "{path}: {v}");
        }
    }
    assert!(flat(&s.curl_json("/v1/artifact?key=k&format=locker", &[], 401)));
    // The OpenAPI document says which route speaks which.
    let doc = s.curl_json("/openapi.json", &[], 200);
    let surface = |path: &str, method: &str| doc["paths"][path][method]["x-locker-surface"].clone();
    assert_eq!(surface("/v1/artifact", "post"), "questlock");
    assert_eq!(surface("/v1/pads/{pad_id}/append", "post"), "agent-locker");
    assert_eq!(surface("/lease", "post"), "agentstate");
    assert_eq!(surface("/v1/journal", "get"), "locker");
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            assert!(op["x-locker-surface"].is_string(), "{method} {path} names no surface");
        }
    }
}

#[test]
fn test_security_mcp_answers_lines_that_are_no_message() {
    let env = TestEnv::init();
    let mut child = Command::new(bin())
        .env_clear()
        .env("HOME", env.path())
        .current_dir(env.path())
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    for line in ["{not json", "[1,2]", r#"{"id":7,"method":"ping"}"#, init, "\u{1}\u{2}"] {
        writeln!(stdin, "{line}").unwrap();
    }
    drop(stdin);
    let out = BufReader::new(child.stdout.take().unwrap());
    let answers: Vec<Value> =
        out.lines().map(|l| serde_json::from_str(&l.unwrap()).unwrap()).collect();
    child.wait().unwrap();
    let errors: Vec<(i64, Value)> = answers
        .iter()
        .filter(|a| a["error"].is_object())
        .map(|a| (a["error"]["code"].as_i64().unwrap(), a["id"].clone()))
        .collect();
    assert_eq!(
        errors,
        vec![
            (-32700, Value::Null),
            (-32600, Value::Null),
            (-32600, 7.into()),
            (-32700, Value::Null)
        ],
        "{answers:?}"
    );
    assert!(answers.iter().any(|a| a["id"] == 1 && a["result"]["serverInfo"]["name"] == "locker"));
}
