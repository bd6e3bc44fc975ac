//! Pay-per-pad (`locker serve --payment-mode txid`) against a REAL local chain: anvil (from the
//! npm package `@foundry-rs/anvil`, installed by `scripts/test-deps-chain.sh` under
//! `target/test-deps/chain/`) with chain id 8453 and a token at the USDC address that emits
//! `Transfer`; plus a fake JSON-RPC server for timeouts and malformed answers. Without anvil
//! the chain tests fail, unless `LOCKER_SKIP_INTEROP=1`.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::server::Server;
use crate::common::TestEnv;

const USDC: &str = "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913";
const OTHER_TOKEN: &str = "0x4444444444444444444444444444444444444444";
const REVERTING_TOKEN: &str = "0x5555555555555555555555555555555555555555";
const WALLET: &str = "0x1111111111111111111111111111111111111111";
const STRANGER: &str = "0x2222222222222222222222222222222222222222";
/// anvil's unlocked dev account 0.
const DEV0: &str = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
/// `transfer(to, amount)` emits `Transfer(caller, to, amount)` and stops (49 bytes).
const TOKEN_CODE: &str = "0x602435600052600435337fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef60206000a300";
/// `REVERT(0, 0)`.
const REVERT_CODE: &str = "0x60006000fd";

fn anvil_bin() -> Option<PathBuf> {
    let dir = std::env::var_os("LOCKER_TEST_DEPS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("target/test-deps"),
        PathBuf::from,
    );
    let bin = dir.join("chain/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil");
    if bin.exists() {
        return Some(bin);
    }
    assert!(
        std::env::var("LOCKER_SKIP_INTEROP").is_ok_and(|v| v == "1"),
        "{} is missing: run `scripts/test-deps-chain.sh` first (or set LOCKER_SKIP_INTEROP=1 to \
         skip the pay-per-pad chain tests)",
        bin.display()
    );
    None
}

fn rpc_agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .proxy(None)
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into()
}

/// A running anvil; killed when dropped.
struct Anvil {
    child: Child,
    url: String,
}

impl Anvil {
    fn start() -> Option<Self> {
        let bin = anvil_bin()?;
        for _ in 0..5 {
            let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
            let child = Command::new(&bin)
                .args(["--host", "127.0.0.1", "--port", &port.to_string()])
                .args(["--chain-id", "8453", "--silent"])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("anvil starts");
            let mut a = Self { child, url: format!("http://127.0.0.1:{port}") };
            let start = Instant::now();
            while start.elapsed() < Duration::from_secs(20) {
                if let Ok(Some(_)) = a.child.try_wait() {
                    break; // the port was taken: try another
                }
                if a.try_rpc("eth_chainId", json!([])).is_some() {
                    a.rpc("anvil_setCode", json!([USDC, TOKEN_CODE]));
                    a.rpc("anvil_setCode", json!([OTHER_TOKEN, TOKEN_CODE]));
                    a.rpc("anvil_setCode", json!([REVERTING_TOKEN, REVERT_CODE]));
                    return Some(a);
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        panic!("anvil did not start");
    }

    fn try_rpc(&self, method: &str, params: Value) -> Option<Value> {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let mut r = rpc_agent()
            .post(&self.url)
            .header("content-type", "application/json")
            .send(body.to_string().as_bytes())
            .ok()?;
        let v: Value = serde_json::from_slice(&r.body_mut().read_to_vec().ok()?).ok()?;
        v.get("result").cloned()
    }

    fn rpc(&self, method: &str, params: Value) -> Value {
        self.try_rpc(method, params.clone())
            .unwrap_or_else(|| panic!("anvil {method} {params} failed"))
    }

    /// Sends `transfer(to, amount)` to `token` from dev account 0; returns the hash.
    fn transfer(&self, token: &str, to: &str, amount: u64) -> String {
        let data = format!("0xa9059cbb{:0>64}{amount:064x}", &to[2..]);
        let tx = json!({"from": DEV0, "to": token, "data": data, "gas": "0x30000"});
        self.rpc("eth_sendTransaction", json!([tx])).as_str().expect("a hash").to_owned()
    }

    fn mine(&self, blocks: u64) {
        self.rpc("anvil_mine", json!([format!("0x{blocks:x}")]));
    }
}

impl Drop for Anvil {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A response from the server: status, `WWW-Authenticate`, body as JSON.
fn post_pads(s: &Server, proof: Option<&str>, body: &str) -> (u16, Option<String>, Value) {
    let mut req = rpc_agent().post(format!("{}/v1/pads", s.url()));
    if let Some(p) = proof {
        req = req.header("x-payment-proof", p);
    }
    let mut r = req.header("content-type", "application/json").send(body.as_bytes()).unwrap();
    let www = r.headers().get("www-authenticate").map(|v| v.to_str().unwrap().to_owned());
    let bytes = r.body_mut().read_to_vec().unwrap();
    let v = serde_json::from_slice(&bytes)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&bytes)));
    (r.status().as_u16(), www, v)
}

fn paid_serve(env: &TestEnv, rpc: &str, extra: &[&str]) -> Server {
    let mut args = vec![
        "--payment-mode",
        "txid",
        "--payment-wallet",
        WALLET,
        "--payment-rpc-url",
        rpc,
        "--payment-amount",
        "2000",
        "--payment-confirmations",
        "2",
    ];
    args.extend_from_slice(extra);
    env.serve(&args)
}

fn detail(v: &Value) -> &str {
    v["detail"].as_str().unwrap_or("?")
}

fn payments(env: &TestEnv) -> i64 {
    env.sql().query_row("SELECT count(*) FROM payment_receipts", [], |r| r.get(0)).unwrap()
}

#[test]
fn test_payment_real_chain_pays_for_pads_and_refuses_every_cheat() {
    let Some(chain) = Anvil::start() else { return };
    let env = TestEnv::init();
    let s = paid_serve(&env, &chain.url, &[]);

    // No proof: the peer's challenge, body and header.
    let (st, www, v) = post_pads(&s, None, "{}");
    assert_eq!(st, 402, "{v}");
    assert_eq!(
        www.as_deref(),
        Some(
            "Locker-Txid network=\"base\", token=\"USDC\", amount=\"0.002\", \
             recipient=\"0x1111111111111111111111111111111111111111\""
        )
    );
    assert_eq!(v["error"], "payment_required");
    assert_eq!(v["chain_id"], 8453);
    assert_eq!(v["currency"], "USDC");
    assert_eq!(v["token_contract"], USDC);
    assert_eq!(v["amount"], "0.002");
    assert_eq!(v["amount_units"], 2000);
    assert_eq!(v["recipient"], WALLET);
    assert!(v["instructions"].as_str().unwrap().contains("X-Payment-Proof"));
    let (st, _, _) = post_pads(&s, Some(""), "{}");
    assert_eq!(st, 402, "an empty proof is no proof");

    // Malformed and unknown hashes.
    let (st, _, v) = post_pads(&s, Some("0x1234"), "{}");
    assert_eq!((st, detail(&v)), (400, "payment verification failed: invalid transaction format"));
    assert_eq!(v.as_object().unwrap().len(), 1, "the peer's {{\"detail\"}} body: {v}");
    let unknown = format!("0x{}", "ab".repeat(32));
    let (st, _, v) = post_pads(&s, Some(&unknown), "{}");
    assert_eq!((st, detail(&v)), (402, "payment verification failed: transaction not found"));

    // Real transactions that do not pay.
    let under = chain.transfer(USDC, WALLET, 1999);
    let stranger = chain.transfer(USDC, STRANGER, 5000);
    let other_token = chain.transfer(OTHER_TOKEN, WALLET, 5000);
    let reverted = chain.transfer(REVERTING_TOKEN, WALLET, 5000);
    let good = chain.transfer(USDC, WALLET, 2500);
    chain.mine(3);
    let cases = [
        (&under, "payment verification failed: underpaid: 1999 units < 2000 required"),
        (&stranger, "payment verification failed: no USDC transfer to the payment wallet found"),
        (&other_token, "payment verification failed: no USDC transfer to the payment wallet found"),
        (&reverted, "payment verification failed: transaction reverted"),
    ];
    for (hash, want) in cases {
        let (st, _, v) = post_pads(&s, Some(hash), "{}");
        assert_eq!((st, detail(&v)), (402, want), "{hash}");
    }
    assert_eq!(payments(&env), 0);

    // A request refused for another reason (422) does not spend the payment.
    let (st, _, v) = post_pads(&s, Some(&good), "{\"ttl_seconds\": -1}");
    assert_eq!(st, 422, "{v}");
    assert_eq!(payments(&env), 0);

    // A valid payment gets its pad; the hash is spent in the same transaction.
    let (st, _, pad) = post_pads(&s, Some(&good.to_uppercase().replacen("0X", "0x", 1)), "{}");
    assert_eq!(st, 201, "{pad}");
    let pad_id = pad["pad_id"].as_str().unwrap().to_owned();
    let (owner, amount): (String, String) = env
        .sql()
        .query_row(
            "SELECT pad_id, amount_units FROM payment_receipts WHERE tx_hash = ?1",
            [&good],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((owner.as_str(), amount.as_str()), (pad_id.as_str(), "2500"));
    let out = env.locker().args(["--json", "log", "--kind", "pad.create"]).output().unwrap();
    let log = String::from_utf8(out.stdout).unwrap();
    let entry: Value = log
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|e| e["body"]["pad_id"] == pad_id.as_str())
        .unwrap_or_else(|| panic!("{log}"));
    assert_eq!(entry["body"]["payment"]["tx_hash"], good.as_str());
    assert_eq!(entry["body"]["payment"]["payer"], DEV0);

    // Replay: refused forever, nothing written.
    let before = env.fingerprint();
    let (st, _, v) = post_pads(&s, Some(&good), "{}");
    assert_eq!((st, detail(&v)), (409, "payment already redeemed"));
    assert_eq!(v.as_object().unwrap().len(), 1);
    assert_eq!(env.fingerprint(), before);

    // Too few confirmations (2 needed, the newest block has 1), then enough.
    let fresh = chain.transfer(USDC, WALLET, 2000);
    let (st, _, v) = post_pads(&s, Some(&fresh), "{}");
    assert_eq!(st, 402, "{v}");
    assert!(detail(&v).contains("1 confirmations < 2 required"), "{v}");
    assert_eq!(payments(&env), 1, "an unconfirmed payment is not spent");
    chain.mine(1);
    let (st, _, v) = post_pads(&s, Some(&fresh), "{}");
    assert_eq!(st, 201, "{v}");

    // /health probes the node.
    let h = s.curl_json("/health", &[], 200);
    assert_eq!(h["rpc"], json!({"network": "base", "reachable": true}));

    // verify checks the receipts against the journal.
    let (code, report) = env.verify();
    assert_eq!(code, 0, "{report}");
    env.sql()
        .execute("UPDATE payment_receipts SET pad_id = 'x' WHERE tx_hash = ?1", [&fresh])
        .unwrap();
    let (code, report) = env.verify();
    assert_eq!(code, 1, "{report}");
    assert!(report.to_string().contains(&format!("payment:{fresh}")), "{report}");
    env.sql().execute("DELETE FROM payment_receipts WHERE tx_hash = ?1", [&fresh]).unwrap();
    let (code, report) = env.verify();
    assert_eq!(code, 1, "{report}");
    assert!(report.to_string().contains("missing from the store"), "{report}");
    drop(s);
}

#[test]
fn test_payment_misconfiguration_refuses_to_start() {
    let empty = TestEnv::new();
    let bad: [&[&str]; 5] = [
        &["--payment-mode", "txid"],
        &["--payment-mode", "txid", "--payment-wallet", "0x1234"],
        &["--payment-mode", "txid", "--payment-wallet", WALLET, "--payment-amount", "0.5"],
        &["--payment-mode", "txid", "--payment-wallet", WALLET, "--payment-token", "usdc"],
        &["--payment-mode", "txid", "--payment-wallet", WALLET, "--payment-rpc-url", "ftp://x"],
    ];
    for args in bad {
        let out = empty
            .locker()
            .args(["--json", "serve", "--listen", "127.0.0.1:0"])
            .args(args)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let e: Value = serde_json::from_slice(&out.stderr).unwrap();
        assert_eq!(e["error"], "usage", "{e}");
        assert!(!empty.path().join(".locker").exists(), "nothing is opened or created");
    }
    // The environment configures it too.
    let out = empty
        .locker()
        .args(["serve", "--listen", "127.0.0.1:0"])
        .env("LOCKER_PAYMENT_MODE", "txid")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("LOCKER_PAYMENT_WALLET"));
}

/// A fake JSON-RPC node: answers `eth_chainId` with `chain`, and everything else with
/// `answer` (a raw HTTP response), or sleeps when `answer` is empty. Serves `n` connections.
fn fake_rpc(chain: &'static str, answer: &'static str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for conn in listener.incoming().take(64) {
            let Ok(mut c) = conn else { continue };
            std::thread::spawn(move || {
                let _ = c.set_read_timeout(Some(Duration::from_secs(10)));
                let mut r = BufReader::new(c.try_clone().unwrap());
                let mut len = 0usize;
                let mut line = String::new();
                while r.read_line(&mut line).unwrap_or(0) > 0 {
                    if line == "\r\n" {
                        break;
                    }
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        len = v.trim().parse().unwrap_or(0);
                    }
                    line.clear();
                }
                let mut body = vec![0; len];
                let _ = r.read_exact(&mut body);
                let req: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                let resp = if req["method"] == "eth_chainId" {
                    let b = json!({"jsonrpc": "2.0", "id": 1, "result": chain}).to_string();
                    format!("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{b}", b.len())
                } else if answer.is_empty() {
                    std::thread::sleep(Duration::from_secs(8));
                    return;
                } else {
                    answer.to_owned()
                };
                let _ = c.write_all(resp.as_bytes());
            });
        }
    });
    url
}

#[test]
fn test_payment_rpc_failures_are_502_without_detail() {
    let hash = format!("0x{}", "cd".repeat(32));
    let json_answer = |b: &'static str| -> &'static str {
        Box::leak(
            format!("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{b}", b.len())
                .into_boxed_str(),
        )
    };
    let cases: Vec<(&str, &'static str, &'static str)> = vec![
        ("not JSON", "0x2105", json_answer("<html>secret-upstream-text</html>")),
        ("JSON-RPC error", "0x2105", json_answer(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"secret-upstream-text"}}"#)),
        ("no result", "0x2105", json_answer(r#"{"jsonrpc":"2.0","id":1}"#)),
        ("receipt not a receipt", "0x2105", json_answer(r#"{"jsonrpc":"2.0","id":1,"result":{"status":"0x1"}}"#)),
        ("HTTP 500", "0x2105", "HTTP/1.1 500 Internal Server Error\r\ncontent-length: 20\r\nconnection: close\r\n\r\nsecret-upstream-text"),
        ("redirect", "0x2105", "HTTP/1.1 302 Found\r\nlocation: http://127.0.0.1:9/\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"),
        ("wrong chain", "0x14a34", json_answer(r#"{"jsonrpc":"2.0","id":1,"result":null}"#)),
        ("timeout", "0x2105", ""),
    ];
    let env = TestEnv::init();
    for (what, chain, answer) in cases {
        let url = fake_rpc(chain, answer);
        let s = paid_serve(&env, &url, &[]);
        let before = env.fingerprint();
        let start = Instant::now();
        let (st, _, v) = post_pads(&s, Some(&hash), "{}");
        assert_eq!(st, 502, "{what}: {v}");
        assert_eq!(v, json!({"detail": "rpc provider unreachable"}), "{what}");
        assert!(start.elapsed() < Duration::from_secs(7), "{what}: every call has a timeout");
        assert_eq!(env.fingerprint(), before, "{what}");
    }
    // An unreachable node at start-up is a warning, and /health says so.
    let dead = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", l.local_addr().unwrap())
    };
    let s = paid_serve(&env, &dead, &[]);
    let h = s.curl_json("/health", &[], 200);
    assert_eq!(h["rpc"], json!({"network": "base", "reachable": false}));
    let (st, _, v) = post_pads(&s, Some(&hash), "{}");
    assert_eq!((st, v), (502, json!({"detail": "rpc provider unreachable"})));
    let (_, log) = s.stop();
    assert!(log.contains("warning: the payment RPC node"), "{log}");
    assert!(!log.contains("secret-upstream-text"));
}

#[test]
fn test_payment_off_by_default_shows_nothing() {
    let env = TestEnv::init();
    let s = env.serve(&[]);
    let (st, www, v) = post_pads(&s, Some(&format!("0x{}", "ab".repeat(32))), "{}");
    assert_eq!(st, 201, "{v}");
    assert!(www.is_none());
    let h = s.curl_json("/health", &[], 200);
    // No payment block at all when payments are off. See: #18.
    assert!(h.get("rpc").is_none(), "{h}");
    assert_eq!(payments(&env), 0);
    let _ = TcpStream::connect(s.addr);
}

/// `locker mcp` against `url`, classic era: initialize, then each tool call; the results.
fn mcp_calls(env: &TestEnv, url: &str, calls: &[(&str, Value)]) -> Vec<Value> {
    let mut lines = vec![
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ];
    for (i, (tool, args)) in calls.iter().enumerate() {
        lines.push(json!({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                          "params": {"name": tool, "arguments": args}}));
    }
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let out = env.locker().arg("mcp").env("LOCKER_URL", url).write_stdin(input).output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let mut msgs: Vec<Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    msgs.retain(|m| m["id"].as_u64().is_some_and(|id| id > 0));
    msgs.sort_by_key(|m| m["id"].as_u64());
    msgs.into_iter().map(|m| m["result"].clone()).collect()
}

#[test]
fn test_payment_cli_and_mcp_pass_proofs_and_surface_the_challenge() {
    let Some(chain) = Anvil::start() else { return };
    let env = TestEnv::init();
    let s = paid_serve(&env, &chain.url, &[]);
    let url = s.url();
    let client = TestEnv::new();
    let envelope = client.file("env.json", crate::common::ENVELOPE.as_bytes());

    // Without a proof: exit 5 with the challenge's fields.
    let e = client.json_err(&["pad", "create", "--remote", &url], 5);
    assert_eq!(e["error"], "payment_required", "{e}");
    assert_eq!(e["recipient"], WALLET);
    assert_eq!(e["amount_units"], 2000);
    assert_eq!(e["token_contract"], USDC);
    assert!(e["detail"].as_str().unwrap().contains("0.002 USDC"), "{e}");
    let e = client.json_err(&["deposit", "--remote", &url, "--envelope", &envelope], 5);
    assert_eq!(e["error"], "payment_required", "{e}");

    let p1 = chain.transfer(USDC, WALLET, 2000);
    let p2 = chain.transfer(USDC, WALLET, 2000);
    let p3 = chain.transfer(USDC, WALLET, 2000);
    let p4 = chain.transfer(USDC, WALLET, 2000);
    chain.mine(2);

    // With one: the pad, then the spent proof is a conflict (exit 4).
    let v = client.json(&["pad", "create", "--remote", &url, "--payment-proof", &p1]);
    assert!(v["pad_id"].is_string(), "{v}");
    let e = client.json_err(&["pad", "create", "--remote", &url, "--payment-proof", &p1], 4);
    assert_eq!(e["detail"], "payment already redeemed", "{e}");
    let v = client.json(&[
        "deposit",
        "--remote",
        &url,
        "--envelope",
        &envelope,
        "--payment-proof",
        &p2,
    ]);
    assert_eq!(v["status"], "sealed", "{v}");
    // A deposit is a pad too: a spent proof does not buy a second one.
    let e = client.json_err(
        &["deposit", "--remote", &url, "--envelope", &envelope, "--payment-proof", &p2],
        4,
    );
    assert_eq!(e["detail"], "payment already redeemed", "{e}");
    // Locally there is nothing to pay.
    let local = TestEnv::init();
    let e = local.json_err(&["pad", "create", "--payment-proof", &p3], 2);
    assert_eq!(e["error"], "usage");

    // MCP: payment_tx_hash passes through; without it, the challenge is a tool error.
    let envelope_v: Value = serde_json::from_str(crate::common::ENVELOPE).unwrap();
    let results = mcp_calls(
        &client,
        &url,
        &[
            ("locker_create", json!({"ttl_seconds": 600})),
            ("locker_create", json!({"ttl_seconds": 600, "payment_tx_hash": p3})),
            (
                "locker_deposit",
                json!({"envelope": envelope_v, "artifacts": ["x"],
                                      "payment_tx_hash": p4}),
            ),
        ],
    );
    assert_eq!(results.len(), 3, "{results:?}");
    assert_eq!(results[0]["isError"], true, "{}", results[0]);
    assert!(results[0].to_string().contains(WALLET), "{}", results[0]);
    assert_ne!(results[1]["isError"], true, "{}", results[1]);
    assert!(results[1].to_string().contains("write_key"), "{}", results[1]);
    assert_ne!(results[2]["isError"], true, "{}", results[2]);
    assert_eq!(payments(&env), 4);
    let (code, report) = env.verify();
    assert_eq!(code, 0, "{report}");
}
