//! The bodies of the fuzz targets (`fuzz_targets/*.rs`). The main test suite replays the
//! committed corpus through the same functions (`tests/cli/fuzz_corpus.rs` includes this
//! file), so a crash found once stays fixed.
//!
//! Each body feeds untrusted bytes to one parser and checks that it answers (a value or an
//! error, never a panic) and that what it accepts is consistent: a decoded journal entry
//! re-encodes to itself, a parsed digest prints back to the same text, an HTTP request gets
//! an answer that is not a server error.

use std::sync::OnceLock;

use locker::domain::digest::Digest;
use locker::domain::journal::Entry;
use locker::server::wire::{self, Fields};

/// A block-0 envelope: whatever `validate` accepts is a JSON object.
pub fn envelope(data: &[u8]) {
    if locker::domain::envelope::validate(data).is_ok() {
        let v: serde_json::Value =
            serde_json::from_slice(data).expect("an accepted envelope is JSON");
        assert!(v.is_object(), "an accepted envelope is an object");
    }
}

/// A stored journal entry: what decodes re-encodes to an entry that decodes to itself.
pub fn journal_entry(data: &[u8]) {
    if let Ok(e) = Entry::decode(data) {
        let again = Entry::decode(&e.encode()).expect("a re-encoded entry decodes");
        assert_eq!(again, e, "a journal entry survives encoding");
    }
}

/// The request bodies of the HTTP routes (the first byte picks the parser).
pub fn wire(data: &[u8]) {
    let Some((&which, body)) = data.split_first() else { return };
    match which % 7 {
        0 => {
            let _ = wire::create_request(body);
        }
        1 => {
            let _ = wire::ticket_request(body);
        }
        2 => {
            let _ = wire::deposit_request(body);
        }
        3 => {
            let _ = wire::revoke_request(body);
        }
        4 => {
            let _ = wire::publish_request(body, false);
        }
        5 => {
            let _ = wire::publish_request(body, true);
        }
        _ => {
            if let Ok(f) = Fields::parse(body) {
                for k in ["work", "work_ref", "lease", "holder", "ttl", "reopen", "steps", "step"] {
                    let _ = f.text(k);
                    let _ = f.int(k);
                    let _ = f.flag(k);
                    let _ = f.strings(k);
                }
                let _ = f.required_any(&["work_ref", "work"]);
            }
        }
    }
}

/// Text parsed from query strings, headers and arguments: digests, integers, fences, plans.
pub fn text(data: &[u8]) {
    let _ = locker::domain::work::parse_plan_json(data);
    let Ok(s) = std::str::from_utf8(data) else { return };
    if let Ok(d) = Digest::parse(s) {
        assert_eq!(Digest::parse(&d.to_hex()).ok(), Some(d), "a digest prints back");
        assert!(s.eq_ignore_ascii_case(&d.to_hex()), "a digest is its hex");
    }
    let _ = wire::lax_int_str(s);
    let _ = wire::python_repr(s);
    let _ = locker::ops::work::lease::parse_fence(s);
    let _ = locker::ops::verify::parse_expected_head(s);
    let _ = locker::domain::pad::StoredState::parse(s);
    let _ = locker::domain::pad::TicketType::parse(s);
    let _ = locker::domain::work::LeaseState::parse(s);
}

/// A server on a repository in a temporary directory, shared by every input.
struct Server {
    rt: tokio::runtime::Runtime,
    router: axum::Router,
    _dir: tempfile::TempDir,
}

fn server() -> &'static Server {
    static SERVER: OnceLock<Server> = OnceLock::new();
    SERVER.get_or_init(|| {
        let dir = tempfile::tempdir_in("/dev/shm")
            .or_else(|_| tempfile::tempdir())
            .expect("a temporary directory");
        let clock = std::sync::Arc::new(locker::ops::FixedClock(1_800_000_000));
        let (_, repo) = locker::ops::admin::init::init(dir.path(), clock.as_ref()).expect("init");
        let (url, dot) = (repo.config.store_location(), repo.dot.clone());
        let state = locker::server::AppState::new(
            repo.store,
            Box::new(move || Ok(locker::store::open(&url, &dot)?)),
            clock,
            locker::ops::Settings::default(),
            locker::server::ServerOptions::default(),
        );
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("a runtime");
        Server { router: locker::server::router(state), rt, _dir: dir }
    })
}

/// One HTTP request, given as `METHOD TARGET` on the first line, then `Name: value` header
/// lines, an empty line and the body: answered with a status below 500.
pub fn http(data: &[u8]) {
    use tower_service::Service as _;
    let (head, body) = match data.windows(2).position(|w| w == b"\n\n") {
        Some(i) => (&data[..i], &data[i + 2..]),
        None => (data, &[][..]),
    };
    let head = String::from_utf8_lossy(head);
    let mut lines = head.lines();
    let Some((method, target)) = lines.next().and_then(|l| l.split_once(' ')) else { return };
    let mut req = axum::http::Request::builder().method(method).uri(target);
    for line in lines {
        if let Some((k, v)) = line.split_once(':') {
            req = req.header(k.trim(), v.trim());
        }
    }
    let Ok(req) = req.body(axum::body::Body::from(body.to_vec())) else { return };
    let s = server();
    let mut router = s.router.clone();
    let resp = s.rt.block_on(router.call(req)).expect("the router never fails");
    let status = resp.status().as_u16();
    assert!(status < 500, "{method} {target}: status {status}");
}
