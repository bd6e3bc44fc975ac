//! The security suite: one file per class of attack, each reproduced from outside the process
//! (real sockets, curl, the CLI), both the attacks issue #18 found and those that held, so
//! that they keep holding.

mod admission;
mod browser;
mod disclosure;
mod errors;
mod glob;
mod held;
mod housekeeping;

use std::io::{Read as _, Write as _};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::time::Duration;

use serde_json::Value;

/// Sends `bytes` on a new connection (then shuts down its write side if `half_close`, as
/// `nc -N` does) and reads until the server closes; returns everything it answered.
pub fn raw(addr: SocketAddr, bytes: &[u8], half_close: bool) -> Vec<u8> {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let _ = s.write_all(bytes);
    if half_close {
        s.shutdown(Shutdown::Write).unwrap();
    }
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    out
}

/// The status and the JSON body of a raw answer.
pub fn answer(resp: &[u8]) -> (u16, Value) {
    let (status, body) = crate::common::server::parse_response(resp)
        .unwrap_or_else(|_| panic!("no HTTP answer: {:?}", String::from_utf8_lossy(resp)));
    let v = serde_json::from_slice(&body)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", String::from_utf8_lossy(resp)));
    (status, v)
}

/// The agent `name`'s token, in `scope`.
pub fn token(env: &crate::common::TestEnv, name: &str, scope: &str) -> String {
    let v = env.json(&["token", "create", "--agent", name, "--scope", scope]);
    v["token"].as_str().unwrap().to_owned()
}

pub fn bearer(t: &str) -> String {
    format!("Authorization: Bearer {t}")
}
