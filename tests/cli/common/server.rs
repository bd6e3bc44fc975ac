//! A real `locker serve` process on a free loopback port, and a minimal HTTP client for
//! requests that curl cannot make (slow or oversized ones).

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{bin, TestEnv};

/// A running `locker serve`; killed when dropped.
pub struct Server {
    pub child: Child,
    pub addr: SocketAddr,
    /// Everything the server wrote on stderr so far.
    pub log: Arc<Mutex<String>>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl TestEnv {
    /// `locker serve --listen 127.0.0.1:0 EXTRA…` in this environment, once it listens.
    pub fn serve(&self, extra: &[&str]) -> Server {
        self.serve_with(extra, &[])
    }

    /// Like [`TestEnv::serve`], with extra environment variables.
    pub fn serve_with(&self, extra: &[&str], env: &[(&str, &str)]) -> Server {
        let mut args = vec!["serve", "--listen", "127.0.0.1:0"];
        args.extend_from_slice(extra);
        self.listening(&args, env)
    }

    /// `locker ARGS` (a command that serves, with `--listen 127.0.0.1:0` among ARGS), once its
    /// banner names the address it listens on.
    pub fn listening(&self, args: &[&str], env: &[(&str, &str)]) -> Server {
        let mut cmd = Command::new(bin());
        cmd.env_clear()
            .env("HOME", self.path())
            .env("NO_COLOR", "1")
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("LOCKER_NOW", self.now.to_string())
            .env("LOCKER_DISK_SPACE", super::DISK_SPACE)
            .current_dir(self.path())
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for (k, v) in env {
            // An empty LOCKER_NOW runs the server on the real clock; an empty
            // LOCKER_DISK_SPACE on the real file system's figures.
            if matches!(*k, "LOCKER_NOW" | "LOCKER_DISK_SPACE") && v.is_empty() {
                cmd.env_remove(k);
            } else {
                cmd.env(k, v);
            }
        }
        let mut child = cmd.spawn().expect("locker serve starts");
        let stderr = child.stderr.take().expect("stderr is piped");
        let log = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let sink = Arc::clone(&log);
        let reader = std::thread::spawn(move || {
            let mut lines = BufReader::new(stderr);
            let mut line = String::new();
            let mut tx = Some(tx);
            while lines.read_line(&mut line).unwrap_or(0) > 0 {
                // The ready line, in the text format or (`--log-format json`) as a message.
                let json: Option<Value> = serde_json::from_str(line.trim()).ok();
                let text = json
                    .as_ref()
                    .and_then(|v| v["message"].as_str())
                    .unwrap_or(line.trim())
                    .to_owned();
                if let Some(rest) = text.strip_prefix("locker listening on http://") {
                    if let Some(t) = tx.take() {
                        let _ = t.send(rest.to_owned());
                    }
                }
                sink.lock().unwrap().push_str(&line);
                line.clear();
            }
        });
        let addr = match rx.recv_timeout(Duration::from_secs(20)) {
            Ok(a) => a.parse().expect("the banner names an address"),
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("locker serve did not start: {}", log.lock().unwrap());
            }
        };
        Server { child, addr, log, reader: Some(reader) }
    }
}

impl Server {
    /// The base URL.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Sends a signal (by name, e.g. `TERM`) to the server.
    pub fn signal(&self, sig: &str) {
        let ok = Command::new("kill")
            .args([&format!("-{sig}"), &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(ok.success());
    }

    /// Sends SIGTERM and waits for the exit; returns the exit code and the whole log.
    pub fn stop(mut self) -> (Option<i32>, String) {
        self.signal("TERM");
        let status = wait_timeout(&mut self.child, Duration::from_secs(20));
        if let Some(r) = self.reader.take() {
            let _ = r.join();
        }
        let log = self.log.lock().unwrap().clone();
        (status, log)
    }

    /// `curl -s` with ARGS against PATH; returns the status and the body. A body sent with
    /// `-d`/`--data…` and no `Content-Type` goes as `application/json` (curl's default, a form
    /// type, is refused by every write route but append's raw block, whose type it keeps).
    pub fn curl(&self, path: &str, args: &[&str]) -> (u16, String) {
        let data = args.iter().any(|a| a.starts_with("-d") || a.starts_with("--data"));
        let typed = args.iter().any(|a| a.to_ascii_lowercase().starts_with("content-type:"));
        let json = data && !typed && !path.split('?').next().unwrap_or("").ends_with("/append");
        let out = Command::new("curl")
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .args(["-sS", "-o", "-", "-w", "\n%{http_code}"])
            .args(if json { &["-H", "Content-Type: application/json"][..] } else { &[] })
            .args(args)
            .arg(format!("{}{path}", self.url()))
            .output()
            .expect("curl runs");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let (body, code) = text.rsplit_once('\n').expect("curl printed a status");
        (code.trim().parse().expect("a status code"), body.to_owned())
    }

    /// `curl` expecting `status`; returns the body as JSON.
    pub fn curl_json(&self, path: &str, args: &[&str], status: u16) -> Value {
        let (code, body) = self.curl(path, args);
        assert_eq!(code, status, "curl {args:?} {path}: {body}");
        serde_json::from_str(&body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"))
    }

    /// Calls MCP tool `tool` with `arguments` at the server's `/mcp` (one stateless
    /// `tools/call`, anonymous); returns the JSON-RPC answer's `result`.
    pub fn mcp_call(&self, tool: &str, arguments: Value) -> Value {
        let call = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}});
        let accept = "Accept: application/json, text/event-stream";
        let answer =
            self.curl_json("/mcp", &["-X", "POST", "-H", accept, "-d", &call.to_string()], 200);
        answer["result"].clone()
    }

    /// The value of the sample written exactly as `series` (`name` or `name{labels}`) in the
    /// server's `/metrics` now.
    pub fn metric(&self, series: &str) -> f64 {
        let (code, text) = self.curl("/metrics", &[]);
        assert_eq!(code, 200, "{text}");
        let value = text.lines().find_map(|l| l.strip_prefix(series)?.strip_prefix(' '));
        let value = value.unwrap_or_else(|| panic!("no sample {series} in:\n{text}"));
        value.parse().unwrap_or_else(|_| panic!("{series} has value {value}"))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Waits for a child to exit, killing it after `limit`.
pub fn wait_timeout(child: &mut Child, limit: Duration) -> Option<i32> {
    let start = Instant::now();
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return status.code();
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the process did not exit within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// One HTTP/1.1 request on its own connection (`Connection: close`); returns the status and
/// the body.
pub fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> std::io::Result<(u16, Vec<u8>)> {
    let mut s = TcpStream::connect(addr)?;
    s.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes())?;
    s.write_all(body)?;
    let mut resp = Vec::new();
    s.read_to_end(&mut resp)?;
    parse_response(&resp)
}

/// Splits a raw HTTP/1.1 response into its status and body (no chunked bodies).
pub fn parse_response(resp: &[u8]) -> std::io::Result<(u16, Vec<u8>)> {
    let bad = || std::io::Error::other(format!("bad response: {}", String::from_utf8_lossy(resp)));
    let end = resp.windows(4).position(|w| w == b"\r\n\r\n").ok_or_else(bad)?;
    let head = std::str::from_utf8(&resp[..end]).map_err(|_| bad())?;
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).ok_or_else(bad)?;
    Ok((status, resp[end + 4..].to_vec()))
}

/// `POST /v1/pads/PAD/append` of `payload` (as `text/plain`, the raw block) with `key`: the
/// status and the JSON answer (`null` if none).
pub fn append_block(addr: SocketAddr, pad: &str, key: &str, payload: &str) -> (u16, Value) {
    let auth = format!("Bearer {key}");
    let (status, body) = http(
        addr,
        "POST",
        &format!("/v1/pads/{pad}/append"),
        &[("Authorization", &auth), ("Content-Type", "text/plain")],
        payload.as_bytes(),
    )
    .expect("the server answers");
    (status, serde_json::from_slice(&body).unwrap_or(Value::Null))
}
