//! Fair admission: what one client may hold of the server at once, so that slow or idle
//! clients cannot starve the others.
//!
//! - A **slot** (one of `--max-concurrent`) is taken only when an operation is about to run,
//!   that is once its request has been read whole within the body timeout
//!   ([`super::AppState::run`] and [`super::AppState::write`] take it), never while a client is
//!   still sending: 130 clients that send headers and then nothing hold no slot at all.
//! - Each peer address may hold at most `--max-connections-per-peer` connections and
//!   `--max-requests-per-peer` requests at once (reading bodies included); beyond that it is
//!   answered 429 at once.
//! - `/health` and `/healthz` take neither a slot nor a peer's request: they are answered
//!   even when every slot is busy.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

#[derive(Debug, Default, Clone, Copy)]
struct Held {
    connections: usize,
    requests: usize,
}

/// The per-peer counts.
#[derive(Debug)]
pub struct Peers {
    held: Mutex<HashMap<IpAddr, Held>>,
    max_connections: usize,
    max_requests: usize,
}

/// What a permit counts.
#[derive(Debug, Clone, Copy)]
enum What {
    Connection,
    Request,
}

/// A connection or a request of one peer; released when dropped.
#[derive(Debug)]
pub struct PeerPermit {
    peers: Arc<Peers>,
    ip: IpAddr,
    what: What,
}

impl Peers {
    pub fn new(max_connections: usize, max_requests: usize) -> Arc<Self> {
        Arc::new(Self {
            held: Mutex::new(HashMap::new()),
            max_connections: max_connections.max(1),
            max_requests: max_requests.max(1),
        })
    }

    /// One more connection of `ip`, unless it holds its share already.
    pub fn connection(self: &Arc<Self>, ip: IpAddr) -> Option<PeerPermit> {
        self.take(ip, What::Connection)
    }

    /// One more request of `ip` in flight, unless it has its share in flight already.
    pub fn request(self: &Arc<Self>, ip: IpAddr) -> Option<PeerPermit> {
        self.take(ip, What::Request)
    }

    fn take(self: &Arc<Self>, ip: IpAddr, what: What) -> Option<PeerPermit> {
        let mut held = self.held.lock().ok()?;
        let h = held.entry(ip).or_default();
        let (n, max) = match what {
            What::Connection => (&mut h.connections, self.max_connections),
            What::Request => (&mut h.requests, self.max_requests),
        };
        if *n >= max {
            return None;
        }
        *n += 1;
        Some(PeerPermit { peers: Arc::clone(self), ip, what })
    }
}

impl Drop for PeerPermit {
    fn drop(&mut self) {
        if let Ok(mut held) = self.peers.held.lock() {
            if let Some(h) = held.get_mut(&self.ip) {
                match self.what {
                    What::Connection => h.connections = h.connections.saturating_sub(1),
                    What::Request => h.requests = h.requests.saturating_sub(1),
                }
                if h.connections == 0 && h.requests == 0 {
                    held.remove(&self.ip);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_peer_has_its_own_share() {
        let p = Peers::new(2, 1);
        let a: IpAddr = "127.0.0.1".parse().unwrap();
        let b: IpAddr = "127.0.0.2".parse().unwrap();
        let c1 = p.connection(a).unwrap();
        let _c2 = p.connection(a).unwrap();
        assert!(p.connection(a).is_none());
        assert!(p.connection(b).is_some(), "another peer is not affected");
        let r = p.request(a).unwrap();
        assert!(p.request(a).is_none());
        drop(r);
        assert!(p.request(a).is_some());
        drop(c1);
        assert!(p.connection(a).is_some());
    }
}
