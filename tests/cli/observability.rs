//! Observability (#23): `GET /metrics` after a scripted workload holds the figures the
//! workload makes, in an exposition `promtool` accepts and that has every family the alerts
//! and the dashboard in `deploy/` use; `--log-level`/`LOCKER_LOG` and `--log-format` do what
//! they say; and no log line at any level carries a key, ticket or token.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::common::server::{append_block, Server};
use crate::common::{TestEnv, ENVELOPE};

/// A new agent's bearer token, in the `default` scope.
fn agent_token(env: &TestEnv, agent: &str) -> String {
    let t = env.json(&["token", "create", "--agent", agent, "--scope", "default"]);
    t["token"].as_str().unwrap().to_owned()
}

fn bearer(secret: &str) -> String {
    format!("Authorization: Bearer {secret}")
}

/// `GET /metrics` with curl ARGS, expecting 200 and the Prometheus text type.
fn scrape(s: &Server, args: &[&str]) -> String {
    let out = Command::new("curl")
        .args(["-sS", "-D", "-", "-o", "-"])
        .args(args)
        .arg(format!("{}/metrics", s.url()))
        .output()
        .expect("curl runs");
    let text = String::from_utf8(out.stdout).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").expect("a response");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}\n{body}");
    assert!(
        head.to_ascii_lowercase().contains("content-type: text/plain; version=0.0.4"),
        "{head}"
    );
    body.to_owned()
}

/// The value of the sample written exactly as `series` (`name` or `name{labels}`).
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' '))
        .map(|v| v.parse().unwrap_or_else(|_| panic!("{series} has value {v}")))
}

fn must(text: &str, series: &str) -> f64 {
    sample(text, series).unwrap_or_else(|| panic!("no sample {series} in:\n{text}"))
}

/// The metric families (`# TYPE` lines) of an exposition.
fn families(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

/// Runs `promtool check metrics` on `text` (Debian's `prometheus` package; `.ci/run`
/// installs it). `LOCKER_SKIP_PROMTOOL=1` skips the check where it cannot be installed.
fn promtool_accepts(text: &str) {
    use std::io::Write as _;
    if std::env::var("LOCKER_SKIP_PROMTOOL").is_ok_and(|v| v == "1") {
        return;
    }
    let mut child = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "promtool is missing ({e}): `apt-get install prometheus`, or set \
                 LOCKER_SKIP_PROMTOOL=1 to skip this check"
            )
        });
    child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "promtool check metrics: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Every metric name `deploy/`'s alert rules and dashboard use (their families).
fn deployed_names() -> BTreeSet<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut names = BTreeSet::new();
    for file in ["deploy/prometheus/alerts.yml", "deploy/grafana/locker.json"] {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        let mut rest = text.as_str();
        while let Some(i) = rest.find(['l', 'p']) {
            let word: String =
                rest[i..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            let boundary = i == 0 || !rest[..i].ends_with(|c: char| c.is_ascii_alphanumeric());
            let named = ["locker_", "process_"]
                .iter()
                .any(|p| word.strip_prefix(p).is_some_and(|rest| !rest.is_empty()));
            if boundary && named {
                let family = ["_bucket", "_sum", "_count"]
                    .iter()
                    .find_map(|s| word.strip_suffix(s))
                    .unwrap_or(&word);
                names.insert(family.to_owned());
            }
            rest = &rest[i + word.len().max(1)..];
        }
    }
    names
}

#[test]
fn test_metrics_match_a_scripted_workload() {
    let env = TestEnv::init();
    let agent = agent_token(&env, "w1");
    let s = env.serve(&[]);
    let pad = s.curl_json("/v1/pads", &["-X", "POST", "-d", "{}"], 201);
    let (id, key) = (pad["pad_id"].as_str().unwrap(), pad["write_key"].as_str().unwrap());
    const APPENDS: usize = 7;
    for _ in 0..APPENDS {
        let (status, body) = append_block(s.addr, id, key, ENVELOPE);
        assert_eq!(status, 201, "{body}");
    }
    let (status, _) = append_block(s.addr, id, "not-the-key", ENVELOPE);
    assert_eq!(status, 401);
    s.curl_json(
        "/lease",
        &["-X", "POST", "-H", &bearer(&agent), "-d", r#"{"work_ref":"job-1"}"#],
        200,
    );
    s.curl("/v1/no-such-route", &[]);
    // Checkpoints are signed off the request path: wait until one covers every write.
    s.curl_json("/v1/checkpoint", &[], 200);
    let health = s.curl_json("/health", &[], 200);

    let text = scrape(&s, &[]);
    let route = r#"route="/v1/pads/{pad_id}/append""#;
    assert_eq!(
        must(
            &text,
            &format!(r#"locker_http_requests_total{{method="POST",{route},status="201"}}"#)
        ),
        APPENDS as f64
    );
    assert_eq!(
        must(
            &text,
            &format!(r#"locker_http_requests_total{{method="POST",{route},status="401"}}"#)
        ),
        1.0
    );
    assert_eq!(
        must(
            &text,
            &format!(r#"locker_http_request_duration_seconds_count{{method="POST",{route}}}"#)
        ),
        (APPENDS + 1) as f64
    );
    assert_eq!(
        must(&text, r#"locker_http_requests_total{method="GET",route="unmatched",status="404"}"#),
        1.0
    );
    assert_eq!(
        must(&text, r#"locker_http_requests_total{method="POST",route="/lease",status="200"}"#),
        1.0
    );
    // No raw path is a label: the pad's id appears nowhere.
    assert!(!text.contains(id), "{text}");
    // The scrape itself is the one request in flight.
    assert_eq!(must(&text, "locker_http_requests_in_flight"), 1.0);

    // Group commits: each write ran in one (the pad, the appends, the refused append, the
    // lease); every group is counted once in both the counter and the histograms.
    let groups = must(&text, "locker_commit_groups_total");
    let writes = must(&text, "locker_commit_group_size_sum");
    assert!(groups >= 1.0 && writes >= groups, "{groups} groups, {writes} writes");
    assert!(writes >= (APPENDS + 3) as f64, "{writes} writes");
    assert_eq!(must(&text, "locker_commit_group_size_count"), groups);
    assert_eq!(must(&text, "locker_commit_duration_seconds_count"), groups);

    // The repository's gauges are what /health and the CLI say.
    let entries = health["journal"]["entries"].as_f64().unwrap();
    assert_eq!(must(&text, "locker_journal_entries"), entries);
    assert_eq!(must(&text, "locker_checkpoint_tree_size"), entries);
    assert!(must(&text, "locker_checkpoint_age_seconds") >= 0.0);
    assert!(must(&text, "locker_journal_head_age_seconds") >= 0.0);
    // This pad is open, as /health counts it.
    let open = health["pads"]["unsealed"].as_f64().unwrap();
    assert!(open >= 1.0, "{health}");
    assert_eq!(must(&text, r#"locker_pads{state="open"}"#), open);
    assert_eq!(
        must(&text, r#"locker_pads{state="sealed"}"#),
        health["pads"]["sealed"].as_f64().unwrap()
    );
    assert_eq!(must(&text, r#"locker_leases{state="active"}"#), 1.0);
    assert_eq!(must(&text, r#"locker_leases{state="abandoned"}"#), 0.0);
    assert_eq!(must(&text, "locker_store_up"), 1.0);
    // Counters an alert watches exist at 0 before their first event.
    assert_eq!(must(&text, r#"locker_store_errors_total{kind="corrupt"}"#), 0.0);
    assert_eq!(must(&text, r#"locker_http_admission_refusals_total{reason="host"}"#), 0.0);
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(must(&text, &format!(r#"locker_build_info{{version="{version}"}}"#)), 1.0);
    assert!(must(&text, "process_cpu_seconds_total") > 0.0);
    assert!(must(&text, "process_resident_memory_bytes") > 1e6);
    assert!(must(&text, "process_open_fds") > 3.0);
    // The suite's pretended disk (LOCKER_DISK_SPACE)...
    let (free, size) =
        (must(&text, "locker_disk_free_bytes"), must(&text, "locker_disk_size_bytes"));
    assert_eq!((free, size), (107_374_182_400.0, 214_748_364_800.0));

    // A refused request is counted by its reason.
    s.curl("/health", &["-H", "Host: evil.example"]);
    let text = scrape(&s, &[]);
    assert_eq!(must(&text, r#"locker_http_admission_refusals_total{reason="host"}"#), 1.0);

    // ...and, without it, the file system's: its size is df's to the byte.
    let real = env.serve_with(&[], &[("LOCKER_DISK_SPACE", "")]);
    let real_text = scrape(&real, &[]);
    let df_size = crate::common::df(env.path()).0 as f64;
    assert_eq!(must(&real_text, "locker_disk_size_bytes"), df_size);
    let free = must(&real_text, "locker_disk_free_bytes");
    assert!(free > 0.0 && free <= df_size, "{free}");
    drop(real);

    promtool_accepts(&text);
    let have = families(&text);
    let missing: Vec<_> = deployed_names().difference(&have).cloned().collect();
    assert!(missing.is_empty(), "deploy/ uses metrics the server does not expose: {missing:?}");
}

#[test]
fn test_metrics_need_a_token_when_the_server_requires_one() {
    let env = TestEnv::init();
    let agent = agent_token(&env, "w1");
    let s = env.serve(&["--require-token", "--metrics-listen", "127.0.0.1:0"]);
    let (code, body) = s.curl("/metrics", &[]);
    assert_eq!(code, 401, "{body}");
    let e: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(e["error"], "unauthorized");
    let (code, _) = s.curl("/metrics", &["-H", "Authorization: Bearer wrong-token"]);
    assert_eq!(code, 401);
    let text = scrape(&s, &["-H", &bearer(&agent)]);
    assert_eq!(must(&text, "locker_store_up"), 1.0);

    // The metrics address answers without a token, and only /metrics.
    let log = s.log.lock().unwrap().clone();
    let url = log
        .lines()
        .find_map(|l| l.strip_prefix("locker serves metrics on "))
        .unwrap_or_else(|| panic!("no metrics address in {log}"))
        .trim()
        .to_owned();
    let get = |u: &str| {
        let out = Command::new("curl").args(["-sS", "-w", "\n%{http_code}", u]).output().unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        let (body, code) = text.rsplit_once('\n').unwrap();
        (code.to_owned(), body.to_owned())
    };
    let (code, text) = get(&url);
    assert_eq!(code, "200");
    assert!(text.contains("\nlocker_journal_entries "), "{text}");
    let base = url.strip_suffix("/metrics").unwrap();
    for other in ["/health", "/v1/journal", "/v1/pads"] {
        assert_eq!(get(&format!("{base}{other}")).0, "404", "{other}");
    }
}

#[test]
fn test_metrics_bad_bind_address_is_refused_with_nothing_started() {
    let env = TestEnv::init();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let before = env.fingerprint();
    let out = env
        .locker()
        .args(["--json", "serve", "--listen", "127.0.0.1:0", "--metrics-listen", &addr])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(8), "{out:?}");
    let e: Value =
        serde_json::from_slice(out.stderr.rsplit(|b| *b == b'\n').find(|l| !l.is_empty()).unwrap())
            .unwrap();
    assert!(e["detail"].as_str().unwrap().contains("for metrics"), "{e}");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("locker listening"));
    assert_eq!(env.fingerprint(), before);
}

/// A workload that sends every kind of secret: a pad's write key and read tickets (header
/// and query), an agent's token, a lease.
fn secret_workload(env: &TestEnv, s: &Server, agent: &str) -> Vec<String> {
    let pad = s.curl_json("/v1/pads", &["-X", "POST", "-H", &bearer(agent), "-d", "{}"], 201);
    let id = pad["pad_id"].as_str().unwrap();
    let key = pad["write_key"].as_str().unwrap();
    let ticket = pad["read_ticket"].as_str().unwrap();
    s.curl_json(
        &format!("/v1/pads/{id}/append"),
        &["-X", "POST", "-H", &bearer(key), "-H", "Content-Type: text/plain", "-d", ENVELOPE],
        201,
    );
    let minted = s.curl_json(
        &format!("/v1/pads/{id}/tickets"),
        &["-X", "POST", "-H", &bearer(key), "-d", "{}"],
        201,
    );
    let minted = minted["ticket"].as_str().unwrap();
    s.curl(&format!("/v1/pads/{id}/blocks?ticket={ticket}&from=0"), &[]);
    s.curl(&format!("/v1/pads/{id}/blocks"), &["-H", &bearer(minted)]);
    s.curl(&format!("/v1/pads/{id}/blocks?token={agent}&key={key}"), &[]);
    s.curl_json(
        "/lease",
        &["-X", "POST", "-H", &bearer(agent), "-d", r#"{"work_ref":"job-9"}"#],
        200,
    );
    s.curl("/v1/leases", &["-H", &bearer(agent)]);
    let _ = env;
    vec![key.to_owned(), ticket.to_owned(), minted.to_owned(), agent.to_owned()]
}

#[test]
fn test_logs_json_format_parses_and_carries_no_secret_at_any_level() {
    for level in ["trace", "debug", "info"] {
        let env = TestEnv::init();
        let agent = agent_token(&env, "w1");
        let s = env.serve_with(&["--log-format", "json"], &[("LOCKER_LOG", level)]);
        let secrets = secret_workload(&env, &s, &agent);
        let (code, log) = s.stop();
        assert_eq!(code, Some(0));
        let mut access = 0;
        for line in log.lines().filter(|l| !l.trim().is_empty()) {
            let v: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("a log line is not JSON ({e}): {line}"));
            assert!(v["time"].as_str().is_some_and(|t| t.ends_with('Z')), "{line}");
            assert!(v["level"].as_str().is_some(), "{line}");
            assert!(v["message"].as_str().is_some(), "{line}");
            if v["target"] == "locker::access" {
                access += 1;
                assert!(v["route"].as_str().is_some() && v["status"].as_u64().is_some(), "{line}");
                assert!(v.get("path").is_none(), "no raw path: {line}");
            }
        }
        assert!(access >= 8, "{level}: {access} access lines in {log}");
        let acted = log
            .lines()
            .any(|l| l.contains(r#""actor":"w1""#) && l.contains(r#""scope":"default""#));
        assert!(acted, "the access log says who acted: {log}");
        for secret in &secrets {
            assert!(!log.contains(secret.as_str()), "{level}: a secret is in the log: {log}");
        }
        if level == "debug" {
            assert!(log.contains("time.busy"), "debug shows each span's time: {log}");
        }
    }
}

#[test]
fn test_logs_text_format_at_trace_carries_no_secret() {
    let env = TestEnv::init();
    let agent = agent_token(&env, "w1");
    let s = env.serve(&["--log-level", "trace"]);
    let secrets = secret_workload(&env, &s, &agent);
    let (_, log) = s.stop();
    assert!(log.lines().any(|l| l.starts_with("locker listening on http://127.0.0.1:")), "{log}");
    assert!(log.lines().any(|l| l.starts_with("POST /v1/pads/{pad_id}/append 201 ms=")), "{log}");
    assert!(log.contains("debug: "), "{log}");
    for secret in &secrets {
        assert!(!log.contains(secret.as_str()), "a secret is in the log: {log}");
    }
}

#[test]
fn test_logs_warn_silences_the_access_log_but_not_the_ready_line() {
    let env = TestEnv::init();
    for (args, env_vars) in [
        (vec![], vec![("LOCKER_LOG", "warn")]),
        (vec!["--log-level", "off"], vec![]),
        // The flag wins over the environment.
        (vec!["--log-level", "warn"], vec![("LOCKER_LOG", "debug")]),
    ] {
        let s = env.serve_with(&args, &env_vars);
        s.curl_json("/health", &[], 200);
        s.curl("/v1/no-such-route", &[]);
        let (code, log) = s.stop();
        assert_eq!(code, Some(0));
        let lines: Vec<&str> = log.lines().collect();
        assert_eq!(lines.len(), 1, "{args:?} {env_vars:?}: only the ready line: {log}");
        assert!(lines[0].starts_with("locker listening on http://"), "{log}");
    }
    // At the default level the same requests are logged.
    let s = env.serve(&[]);
    s.curl_json("/health", &[], 200);
    let (_, log) = s.stop();
    assert!(log.lines().any(|l| l.starts_with("GET /health 200 ")), "{log}");
    assert!(log.contains("locker stopped"), "{log}");
}

#[test]
fn test_logs_the_cli_is_quiet_unless_asked_and_bad_filters_are_usage_errors() {
    let env = TestEnv::init();
    let out = env.locker().args(["pad", "create", "--json"]).output().unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stderr), "", "the CLI logs nothing by default");
    let out = env.locker().args(["-vv", "pad", "create", "--json"]).output().unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("debug: "), "-vv logs debug events: {err}");

    let before = env.fingerprint();
    for (args, env_vars) in [
        (vec!["--log-level", "loud", "pad", "create"], vec![]),
        (vec!["pad", "create"], vec![("LOCKER_LOG", "locker=loud")]),
        (vec!["--log-format", "xml", "pad", "create"], vec![]),
    ] {
        let mut cmd = env.locker();
        cmd.arg("--json").args(&args);
        for (k, v) in &env_vars {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?} {env_vars:?}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("loud") || err.contains("xml"), "{err}");
    }
    assert_eq!(env.fingerprint(), before, "a refused command changes nothing");
}

#[test]
fn test_doctor_remote_reads_the_servers_metrics() {
    let env = TestEnv::init();
    let s = env.serve(&[]);
    let report = |extra_env: &[(&str, &str)]| {
        let mut cmd = env.locker();
        cmd.args(["--json", "doctor", "--remote", &s.url()]);
        for (k, v) in extra_env {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        (out.status.code(), v)
    };
    let (code, v) = report(&[]);
    assert_eq!(code, Some(0), "{v}");
    let metrics: Vec<&Value> =
        v["findings"].as_array().unwrap().iter().filter(|f| f["check"] == "metrics").collect();
    assert_eq!(metrics.len(), 1, "{v}");
    assert_eq!(metrics[0]["status"], "ok");
    assert!(metrics[0]["detail"].as_str().unwrap().starts_with("server metrics: "), "{v}");
    drop(s);

    // A server whose disk runs low: what LockerDiskNearlyFull would say, a warning at under
    // 5% free and a problem (exit 1) at under 3%.
    for (space, code, status, words) in [
        ("4000000000/100000000000", 0, "warn", "the server's disk is 4% free"),
        ("2000000000/100000000000", 1, "problem", "the server's disk is 2% free"),
    ] {
        let low = env.serve_with(&[], &[("LOCKER_DISK_SPACE", space)]);
        let out = env.locker().args(["--json", "doctor", "--remote", &low.url()]).output().unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(out.status.code(), Some(code), "{v}");
        let m: Vec<&Value> =
            v["findings"].as_array().unwrap().iter().filter(|f| f["check"] == "metrics").collect();
        assert_eq!(m.len(), 1, "{v}");
        assert_eq!((m[0]["status"].as_str(), m[0]["detail"].as_str()), (Some(status), Some(words)));
    }

    // Behind --require-token without a token: said, not failed.
    let s = env.serve(&["--require-token"]);
    let mut cmd = env.locker();
    let out = cmd.args(["--json", "doctor", "--remote", &s.url()]).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let m = v["findings"].as_array().unwrap().iter().find(|f| f["check"] == "metrics").unwrap();
    assert_eq!(m["status"], "skipped", "{v}");
    assert!(m["detail"].as_str().unwrap().contains("needs an agent's token"), "{v}");
}

/// What the receiver got: each request's path, lowercased head and body.
#[cfg(feature = "otlp")]
type Received = std::sync::Arc<std::sync::Mutex<Vec<(String, String, Vec<u8>)>>>;

/// A minimal OTLP/HTTP receiver on loopback: records each request's path, headers and body,
/// answers 200 with an empty protobuf body.
#[cfg(feature = "otlp")]
fn otlp_receiver() -> (String, Received) {
    use std::io::{BufRead as _, BufReader, Read as _, Write as _};
    use std::sync::{Arc, Mutex};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let got = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&got);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let sink = Arc::clone(&sink);
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut out = stream;
                loop {
                    let mut head = String::new();
                    loop {
                        let mut line = String::new();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        if line == "\r\n" {
                            break;
                        }
                        head.push_str(&line);
                    }
                    let len = head
                        .lines()
                        .find_map(|l| {
                            let (k, v) = l.split_once(':')?;
                            k.eq_ignore_ascii_case("content-length")
                                .then(|| v.trim().parse().ok())?
                        })
                        .unwrap_or(0);
                    let mut body = vec![0; len];
                    reader.read_exact(&mut body).unwrap();
                    let path = head.split_whitespace().nth(1).unwrap_or_default().to_owned();
                    sink.lock().unwrap().push((path, head.to_ascii_lowercase(), body));
                    let answer = "HTTP/1.1 200 OK\r\ncontent-type: application/x-protobuf\r\n\
                                  content-length: 0\r\n\r\n";
                    if out.write_all(answer.as_bytes()).is_err() {
                        return;
                    }
                }
            });
        }
    });
    (url, got)
}

#[cfg(feature = "otlp")]
#[test]
fn test_otlp_spans_reach_a_collector() {
    let env = TestEnv::init();
    let (url, got) = otlp_receiver();
    // The log stays quiet: the export does not depend on the log level.
    let s = env.serve_with(&[], &[("OTEL_EXPORTER_OTLP_ENDPOINT", &url), ("LOCKER_LOG", "warn")]);
    s.curl_json("/v1/pads", &["-X", "POST", "-d", "{}"], 201);
    s.curl("/v1/journal", &[]);
    let (code, log) = s.stop();
    assert_eq!(code, Some(0), "{log}");
    let got = got.lock().unwrap();
    let traces: Vec<_> = got.iter().filter(|(p, _, _)| p == "/v1/traces").collect();
    assert!(!traces.is_empty(), "no POST /v1/traces reached the collector: {:?}", got.len());
    for (_, head, body) in &traces {
        assert!(head.contains("content-type: application/x-protobuf"), "{head}");
        assert!(!body.is_empty());
    }
    let all: Vec<u8> = traces.iter().flat_map(|(_, _, b)| b.clone()).collect();
    let has = |s: &str| all.windows(s.len()).any(|w| w == s.as_bytes());
    assert!(has("locker"), "the service is named locker");
    assert!(has("request") && has("/v1/pads") && has("write"), "the spans are exported");
}

#[test]
fn test_metrics_count_a_witness_that_does_not_cosign() {
    let env = TestEnv::init();
    // Nothing listens there: every cosignature request fails.
    let gone = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let witness = format!("http://{}/", gone.local_addr().unwrap());
    drop(gone);
    let s = env.serve(&["--witness", &witness]);
    let series = format!(r#"locker_witness_cosignature_failures_total{{witness="{witness}"}}"#);
    // Counted from the start, at 0.
    let before = must(&scrape(&s, &[]), &series);
    s.curl_json("/v1/pads", &["-X", "POST", "-d", "{}"], 201);
    // A reader of checkpoints waits for the signing round, which asks the witness.
    s.curl_json("/v1/checkpoint", &[], 200);
    let text = scrape(&s, &[]);
    assert!(must(&text, &series) > before, "{text}");
    let ok = format!(r#"locker_witness_cosignatures_total{{witness="{witness}"}}"#);
    assert_eq!(must(&text, &ok), 0.0);
    let (_, log) = s.stop();
    assert!(log.contains("warning: a witness did not cosign checkpoint"), "{log}");
}

#[test]
fn test_logs_name_who_acted_only_once_it_is_known() {
    let env = TestEnv::init();
    let agent = agent_token(&env, "w7");
    let s = env.serve(&["--log-format", "json"]);
    s.curl_json("/v1/leases", &["-H", &bearer(&agent)], 200);
    let (code, _) = s.curl("/v1/leases", &["-H", "Authorization: Bearer not-a-token"]);
    assert_eq!(code, 401);
    let (_, log) = s.stop();
    let lines: Vec<Value> = log
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["route"] == "/v1/leases")
        .collect();
    assert_eq!(lines.len(), 2, "{log}");
    assert_eq!(
        (&lines[0]["actor"], &lines[0]["scope"]),
        (&Value::from("w7"), &Value::from("default"))
    );
    // A token that does not authenticate names nobody (never the operator it stood in for).
    assert_eq!(lines[1]["status"], 401);
    assert!(lines[1].get("actor").is_none(), "{}", lines[1]);
}

/// `locker serve --listen 127.0.0.1:0` in `env`, its stderr going to `stderr`.
fn serve_to(env: &TestEnv, stderr: impl Into<std::process::Stdio>) -> std::process::Child {
    Command::new(crate::common::bin())
        .env_clear()
        .env("HOME", env.path())
        .current_dir(env.path())
        .args(["serve", "--listen", "127.0.0.1:0"])
        .stdout(std::process::Stdio::null())
        .stderr(stderr)
        .spawn()
        .unwrap()
}

/// `locker serve` with its stderr piped, read up to the banner only; its address and the rest
/// of its stderr.
fn serve_unread(env: &TestEnv) -> (std::process::Child, std::net::SocketAddr, impl std::io::Read) {
    use std::io::BufRead as _;
    let mut child = serve_to(env, std::process::Stdio::piped());
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut banner = String::new();
    stderr.read_line(&mut banner).unwrap();
    let addr = banner.trim().strip_prefix("locker listening on http://").unwrap().parse().unwrap();
    (child, addr, stderr)
}

/// Sends 6,000 requests on one connection, each answered with one access line of about 60
/// bytes (far more than a 64 KiB pipe and the log thread's 4,096 lines hold), and returns the
/// server's count of dropped log lines.
fn flood(addr: std::net::SocketAddr) -> f64 {
    let mut c = crate::common::http1::Http::new(addr);
    for i in 0..6000 {
        let r = c.req("GET", "/healthz", &[], b"").unwrap_or_else(|e| panic!("request {i}: {e}"));
        assert_eq!(r.status, 200, "request {i}");
    }
    let r = c.req("GET", "/metrics", &[], b"").unwrap();
    must(&String::from_utf8(r.body).unwrap(), "locker_log_lines_dropped_total")
}

/// What the warnings of dropped lines in `log` add up to.
fn said_dropped(log: &str) -> f64 {
    const WARNING: &str =
        "warning: log lines were dropped: stderr was not read fast enough dropped=";
    log.lines().filter_map(|l| l.strip_prefix(WARNING)).map(|n| n.parse::<f64>().unwrap()).sum()
}

/// A server whose stderr is a pipe nobody reads (a parent that piped it and never reads, as
/// `subprocess.Popen(..., stderr=PIPE)` does) keeps answering: once the pipe and the log
/// thread's queue are full it drops log lines and counts them, stops promptly on SIGTERM, and
/// when its stderr is read again says how many it dropped. Before, the access line that found
/// the pipe full blocked the runtime worker writing it, and after about a thousand requests
/// nothing was answered.
#[test]
fn test_logs_a_stderr_nobody_reads_costs_log_lines_not_answers() {
    use std::io::Read as _;
    use std::time::{Duration, Instant};
    let env = TestEnv::init();

    // Never read again: SIGTERM still ends it at once, with exit 0.
    let (mut child, addr, mut stderr) = serve_unread(&env);
    assert!(thread_names(child.id()).iter().any(|n| n == "locker-log"));
    assert!(flood(addr) > 0.0);
    let start = Instant::now();
    assert!(Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap()
        .success());
    let code = crate::common::server::wait_timeout(&mut child, Duration::from_secs(15));
    assert_eq!(code, Some(0), "after {:?}", start.elapsed());
    // What was kept is whole lines.
    let mut rest = String::new();
    stderr.read_to_string(&mut rest).unwrap();
    assert!(rest.lines().filter(|l| l.starts_with("GET /healthz 200 ")).count() > 500);
    for l in rest.lines() {
        assert!(
            l.starts_with("GET /") || l.starts_with("warning: ") || l.starts_with("locker "),
            "a torn or unexpected line: {l:?}"
        );
    }

    // Read again later: it says how many lines it dropped.
    let (mut child, addr, mut stderr) = serve_unread(&env);
    let dropped = flood(addr);
    assert!(dropped > 0.0);
    let log = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let reader = {
        let log = std::sync::Arc::clone(&log);
        std::thread::spawn(move || {
            let mut buf = [0u8; 65536];
            while let Ok(n @ 1..) = stderr.read(&mut buf) {
                log.lock().unwrap().push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        })
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    while said_dropped(&log.lock().unwrap()) < dropped && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let said = said_dropped(&log.lock().unwrap());
    assert!(said >= dropped, "{said} < {dropped}");
    assert!(Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap()
        .success());
    assert_eq!(crate::common::server::wait_timeout(&mut child, Duration::from_secs(15)), Some(0));
    reader.join().unwrap();
}

/// The names of a process's threads.
fn thread_names(pid: u32) -> Vec<String> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).unwrap();
    tasks
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .map(|n| n.trim().to_owned())
        .collect()
}

/// With stderr on a file (`2> serve.log`), a server writes each access line itself (no log
/// thread), before the answer leaves: a script that greps the log right after a request finds
/// the request there.
#[test]
fn test_logs_to_a_file_hold_each_request_before_its_answer() {
    let env = TestEnv::init();
    let path = env.path().join("serve.log");
    let mut child = serve_to(&env, std::fs::File::create(&path).unwrap());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let addr: std::net::SocketAddr = loop {
        let log = std::fs::read_to_string(&path).unwrap();
        if let Some(rest) =
            log.lines().next().and_then(|l| l.strip_prefix("locker listening on http://"))
        {
            break rest.parse().unwrap();
        }
        assert!(std::time::Instant::now() < deadline, "no banner: {log}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert!(!thread_names(child.id()).iter().any(|n| n == "locker-log"));
    let mut c = crate::common::http1::Http::new(addr);
    for i in 1..=200 {
        assert_eq!(c.req("GET", "/healthz", &[], b"").unwrap().status, 200);
        let log = std::fs::read_to_string(&path).unwrap();
        assert_eq!(log.matches("GET /healthz 200 ").count(), i, "{log}");
    }
    let _ = child.kill();
    let _ = child.wait();
}
