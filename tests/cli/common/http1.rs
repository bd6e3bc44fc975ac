//! A keep-alive HTTP/1.1 client over a plain `TcpStream`, light enough that the client is
//! not the bottleneck: used by the load tests and by `examples/bench.rs` (which includes this
//! file).

#![allow(dead_code)]

use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use serde_json::Value;

type Res<T> = Result<T, String>;

/// One connection, reopened when the server closes it.
pub struct Http {
    addr: SocketAddr,
    stream: Option<TcpStream>,
    buf: Vec<u8>,
}

/// A response's status and body.
pub struct Resp {
    pub status: u16,
    pub body: Vec<u8>,
}

impl Resp {
    pub fn json(&self) -> Res<Value> {
        serde_json::from_slice(&self.body)
            .map_err(|e| format!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }

    pub fn expect(self, status: u16, what: &str) -> Res<Self> {
        if self.status == status {
            Ok(self)
        } else {
            Err(format!(
                "{what}: status {} (wanted {status}): {}",
                self.status,
                String::from_utf8_lossy(&self.body)
            ))
        }
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

impl Http {
    pub fn new(addr: SocketAddr) -> Self {
        Self { addr, stream: None, buf: Vec::with_capacity(16 * 1024) }
    }

    fn connect(&mut self) -> std::io::Result<&mut TcpStream> {
        if self.stream.is_none() {
            let s = TcpStream::connect(self.addr)?;
            s.set_nodelay(true)?;
            s.set_read_timeout(Some(Duration::from_secs(120)))?;
            self.buf.clear();
            self.stream = Some(s);
        }
        Ok(self.stream.as_mut().expect("just connected"))
    }

    pub fn req(
        &mut self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Res<Resp> {
        let mut msg = Vec::with_capacity(256 + body.len());
        write!(msg, "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n").expect("to a Vec");
        if method != "GET" {
            write!(msg, "Content-Length: {}\r\n", body.len()).expect("to a Vec");
        }
        for (k, v) in headers {
            write!(msg, "{k}: {v}\r\n").expect("to a Vec");
        }
        msg.extend_from_slice(b"\r\n");
        msg.extend_from_slice(body);
        // A kept-alive connection the server closed in the meantime fails before any byte of
        // an answer arrives: retry once on a new connection.
        for attempt in 0..2 {
            match self.exchange(&msg) {
                Ok(r) => return Ok(r),
                Err((e, fresh)) => {
                    self.stream = None;
                    if attempt == 1 || !fresh {
                        return Err(format!("{method} {path}: {e}"));
                    }
                }
            }
        }
        unreachable!("the loop returns")
    }

    /// Sends one request and reads its answer; the error says whether nothing was received
    /// (so that a retry is safe).
    fn exchange(&mut self, msg: &[u8]) -> Result<Resp, (String, bool)> {
        let s = self.connect().map_err(|e| (e.to_string(), false))?;
        s.write_all(msg).map_err(|e| (e.to_string(), true))?;
        let mut chunk = [0u8; 16 * 1024];
        let head_end = loop {
            if let Some(i) = find(&self.buf, b"\r\n\r\n") {
                break i;
            }
            let s = self.stream.as_mut().expect("connected");
            let n = s.read(&mut chunk).map_err(|e| (e.to_string(), self.buf.is_empty()))?;
            if n == 0 {
                return Err(("connection closed".into(), self.buf.is_empty()));
            }
            self.buf.extend_from_slice(&chunk[..n]);
        };
        let head = String::from_utf8_lossy(&self.buf[..head_end]).into_owned();
        let status: u16 = head
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| (format!("bad status line: {head}"), false))?;
        let mut length = None;
        let mut chunked = false;
        let mut close = false;
        for line in head.lines().skip(1) {
            let Some((k, v)) = line.split_once(':') else { continue };
            let (k, v) = (k.trim().to_ascii_lowercase(), v.trim().to_ascii_lowercase());
            match k.as_str() {
                "content-length" => length = v.parse::<usize>().ok(),
                "transfer-encoding" => chunked = v.contains("chunked"),
                "connection" => close = v == "close",
                _ => {}
            }
        }
        let mut pos = head_end + 4;
        let body = if chunked {
            let mut body = Vec::new();
            loop {
                let line_end = loop {
                    if let Some(i) = find(&self.buf[pos..], b"\r\n") {
                        break pos + i;
                    }
                    self.fill(&mut chunk)?;
                };
                let size_text = String::from_utf8_lossy(&self.buf[pos..line_end]).into_owned();
                let size =
                    usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
                        .map_err(|_| (format!("bad chunk size {size_text:?}"), false))?;
                pos = line_end + 2;
                while self.buf.len() < pos + size + 2 {
                    self.fill(&mut chunk)?;
                }
                body.extend_from_slice(&self.buf[pos..pos + size]);
                pos += size + 2;
                if size == 0 {
                    break;
                }
            }
            body
        } else {
            let len = length.unwrap_or(0);
            while self.buf.len() < pos + len {
                self.fill(&mut chunk)?;
            }
            let body = self.buf[pos..pos + len].to_vec();
            pos += len;
            body
        };
        self.buf.drain(..pos);
        if close {
            self.stream = None;
        }
        Ok(Resp { status, body })
    }

    fn fill(&mut self, chunk: &mut [u8]) -> Result<(), (String, bool)> {
        let s = self.stream.as_mut().expect("connected");
        let n = s.read(chunk).map_err(|e| (e.to_string(), false))?;
        if n == 0 {
            return Err(("connection closed mid-answer".into(), false));
        }
        self.buf.extend_from_slice(&chunk[..n]);
        Ok(())
    }

    pub fn post_json(&mut self, path: &str, headers: &[(&str, &str)], v: &Value) -> Res<Resp> {
        let mut h = vec![("Content-Type", "application/json")];
        h.extend_from_slice(headers);
        self.req("POST", path, &h, v.to_string().as_bytes())
    }
}
