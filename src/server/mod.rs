//! `locker serve`: the repository over HTTP, a thin edge over the operations interface
//! ([`crate::api::Locker`]).
//!
//! Every route parses its request, calls the same operation the CLI calls, and maps the
//! outcome or the [`OpError`] to a response ([`crate::ops::ErrorKind::http_status`] decides the
//! status). Operations are synchronous. Reads run on blocking threads, each with one store (one
//! SQLite connection) taken from a small pool. Writes go to one writer thread that commits them
//! in groups ([`crate::ops::group`]): whatever arrived while the previous group was being made
//! durable runs in the next one, each operation in its own savepoint and with its own journal
//! entry, and none is answered before its group's commit (`synchronous=FULL`) has returned. The
//! server and CLI processes share one repository through SQLite's locking like any two
//! writers.
//!
//! The edge itself is hardened: a header-read timeout and a body deadline (a slow client
//! cannot hold a connection), bodies capped while streaming (413 before more than the cap is
//! read), the browser guard (`guard`: `Host`, `Origin`, JSON-only writes), fair admission
//! (`admission`: a slot only once a request is read, each peer's share of connections and
//! requests, `/health` never waiting), JSON for every refusal (hyper's own included: `conn`),
//! graceful shutdown on SIGTERM and SIGINT that finishes the requests in flight, and one JSON
//! access-log line per request on stderr with no secret and no raw query value.
//!
//! One module per resource: `pads`, `tickets`, `artifacts`, `leases`, `plans`, `journal`,
//! `keys`, `tlog` (checkpoints and proofs) and `health`; `ui` is the read-only web view for
//! people (HTML under `/ui/`); `routes` is the table of every route,
//! [`wire`] the request bodies of the compatible APIs, `http` the helpers every handler uses.
//! `publish` is the signer: requests never sign a checkpoint; it does, as the journal grows.

mod access;
mod admission;
mod agentstate;
mod artifacts;
mod caller;
mod conn;
mod guard;
mod health;
mod http;
mod journal;
mod keys;
mod leases;
mod mcp;
mod pads;
mod payments;
mod plans;
mod publish;
mod routes;
mod scrape;
mod state;
mod surface;
mod tickets;
mod tlog;
mod ui;
pub mod wire;
mod writes;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::http::{header, HeaderValue};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::sync::Semaphore;
use tower_service::Service as _;
use tracing::field::Empty;

use crate::ops::{ErrorKind, OpError};

pub use access::redact_query;
pub use routes::{openapi_document, route_table, router, OPENAPI_JSON};
pub use state::{AppState, ServerOptions, StoreOpener};

/// The longest URI served (414 beyond).
const MAX_URI_BYTES: usize = 8 * 1024;

async fn handle(
    state: AppState,
    router: axum::Router,
    peer: SocketAddr,
    req: hyper::Request<Incoming>,
) -> Result<axum::response::Response, std::convert::Infallible> {
    use tracing::Instrument as _;
    let arrived = access::Arrived::new(&req);
    let is_ui = ui::is_ui(req.uri().path());
    let acting = access::Acting::default();
    let span = tracing::debug_span!("request", method = req.method().as_str(), route = Empty);
    let mut resp = access::with_acting(Arc::clone(&acting), respond(&state, router, peer, req))
        .instrument(span.clone())
        .await;
    if is_ui {
        // The web view's headers, on its refusals too.
        ui::secure(&mut resp);
    }
    if let Some(r) = resp.extensions().get::<http::RouteName>() {
        span.record("route", r.0.as_str());
    }
    let who = acting.lock().ok().and_then(|mut a| a.take());
    arrived.log(peer, &resp, who);
    Ok(resp)
}

/// The browser guard, the peer's share, then the route.
async fn respond(
    state: &AppState,
    mut router: axum::Router,
    peer: SocketAddr,
    req: hyper::Request<Incoming>,
) -> axum::response::Response {
    let uri = req.uri().clone();
    if uri.to_string().len() > MAX_URI_BYTES {
        let e =
            OpError::new(ErrorKind::UriTooLong, "uri_too_long", "the request's URI is too long")
                .with("max_bytes", MAX_URI_BYTES);
        return surface::error(&uri, &e);
    }
    let origin = match state.0.policy.check(req.method(), &uri, req.headers()) {
        Ok(o) => o,
        Err(e) => {
            let mut r = surface::error(&uri, &e);
            // A refused request's body is never read: the connection cannot be reused.
            r.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
            return r;
        }
    };
    if let Some(pre) =
        origin.as_ref().and_then(|o| guard::preflight(req.method(), req.headers(), o))
    {
        return pre;
    }
    // Health checks and scrapes are answered whatever the peer holds.
    let _share = if matches!(uri.path(), "/health" | "/healthz" | "/metrics") {
        None
    } else {
        match state.0.peers.request(peer.ip()) {
            Some(p) => Some(p),
            None => {
                let e = OpError::new(
                    ErrorKind::TooManyRequests,
                    "too_many_requests",
                    format!(
                        "{} has {} requests in flight already, its share of this server",
                        peer.ip(),
                        state.0.opts.max_requests_per_peer
                    ),
                )
                .with("retry", true)
                .hint("Wait for the answers to your requests in flight, then retry.");
                let mut r = surface::error(&uri, &e);
                r.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
                return r;
            }
        }
    };
    let mut resp = match router.call(req.map(axum::body::Body::new)).await {
        Ok(r) => r,
        Err(never) => match never {},
    };
    if let Some(o) = origin {
        guard::allow(&mut resp, o);
    }
    resp
}

/// Answers a connection over its peer's share with 429 and closes it.
async fn refuse_connection(
    mut stream: tokio::net::TcpStream,
    peer: SocketAddr,
    state: AppState,
    permit: tokio::sync::OwnedSemaphorePermit,
) {
    use tokio::io::AsyncWriteExt as _;
    let detail = format!(
        "{} holds {} connections already, its share of this server",
        peer.ip(),
        state.0.opts.max_connections_per_peer
    );
    let bytes = conn::refusal(429, "Too Many Requests", "too_many_connections", &detail);
    let _ = tokio::time::timeout(Duration::from_secs(2), async {
        let _ = stream.write_all(&bytes).await;
        let _ = stream.shutdown().await;
    })
    .await;
    crate::obs::metrics::metrics().admission_refusals.inc(&["peer_connections"]);
    tracing::warn!(%peer, "refused a connection: {detail}");
    drop(permit);
}

/// Serves `router` (`GET /metrics` alone) on a `--metrics-listen` address: a handful of
/// connections at a time, each for at most a minute.
async fn serve_metrics(listener: tokio::net::TcpListener, router: axum::Router) {
    let slots = Arc::new(Semaphore::new(16));
    loop {
        let Ok(permit) = Arc::clone(&slots).acquire_owned().await else { return };
        let Ok((stream, _)) = listener.accept().await else {
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        let rt = router.clone();
        let svc = hyper::service::service_fn(move |req: hyper::Request<Incoming>| {
            let mut rt = rt.clone();
            async move { rt.call(req.map(axum::body::Body::new)).await }
        });
        let conn = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(Duration::from_secs(5))
            .serve_connection(TokioIo::new(stream), svc);
        tokio::spawn(async move {
            let _ = tokio::time::timeout(Duration::from_secs(60), conn).await;
            drop(permit);
        });
    }
}

/// Resolves when stdin reaches its end, if `watch`; never otherwise.
async fn stdin_closed(watch: bool) {
    if !watch {
        return std::future::pending().await;
    }
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let _ = std::thread::Builder::new().name("locker-lifeline".into()).spawn(move || {
        use std::io::Read as _;
        let mut sink = [0u8; 256];
        let mut stdin = std::io::stdin();
        while matches!(stdin.read(&mut sink), Ok(n) if n > 0) {}
        let _ = tx.send(());
    });
    let _ = rx.await;
}

/// Resolves when the process receives SIGTERM or SIGINT.
async fn shutdown_signal(
    mut term: tokio::signal::unix::Signal,
    mut int: tokio::signal::unix::Signal,
) -> &'static str {
    tokio::select! {
        _ = term.recv() => "SIGTERM",
        _ = int.recv() => "SIGINT",
    }
}

/// Serves `state` on `listener` until SIGTERM or SIGINT, then stops accepting, lets the
/// requests in flight finish (up to `shutdown_grace`) and returns. Prints
/// `locker listening on http://ADDR` on stderr once it accepts connections.
pub fn serve(
    listener: std::net::TcpListener,
    metrics: Option<std::net::TcpListener>,
    state: AppState,
) -> std::io::Result<()> {
    let writer = state.writer_handle();
    let signer = state.signer_handle();
    let grace = state.0.opts.shutdown_grace;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(32)
        .thread_name("locker-serve")
        .enable_all()
        .build()?;
    let result = rt.block_on(async move {
        use tokio::signal::unix::{signal, SignalKind};
        let term = signal(SignalKind::terminate())?;
        let int = signal(SignalKind::interrupt())?;
        let lifeline = state.0.opts.exit_with_stdin;
        run(listener, metrics, state, async move {
            let which = tokio::select! {
                w = shutdown_signal(term, int) => w,
                () = stdin_closed(lifeline) => "the end of stdin (whoever started it is gone)",
            };
            tracing::info!("locker received {which}; finishing the requests in flight");
        })
        .await
    });
    // Waits for operations still running on blocking threads: none is cut off mid-commit.
    drop(rt);
    // Every handle on the state is gone with the runtime, so the writer thread finishes the
    // groups it holds and stops; then the signer signs what they grew and gives up its turn.
    let deadline = Instant::now() + grace;
    for thread in [writer, signer] {
        let handle = thread.lock().ok().and_then(|mut w| w.take());
        if let Some(h) = handle {
            while !h.is_finished() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(5));
            }
            if h.is_finished() {
                let _ = h.join();
            }
        }
    }
    result
}

/// Serves until `shutdown` resolves (used by [`serve`] and by tests); `GET /metrics` also on
/// `metrics`, if given.
pub async fn run(
    listener: std::net::TcpListener,
    metrics: Option<std::net::TcpListener>,
    state: AppState,
    shutdown: impl std::future::Future<Output = ()>,
) -> std::io::Result<()> {
    listener.set_nonblocking(true)?;
    let listener = tokio::net::TcpListener::from_std(listener)?;
    let addr = listener.local_addr()?;
    let router = routes::router(state.clone());
    let scraper = match metrics {
        Some(l) => {
            l.set_nonblocking(true)?;
            let l = tokio::net::TcpListener::from_std(l)?;
            tracing::info!("locker serves metrics on http://{}/metrics", l.local_addr()?);
            Some(tokio::spawn(serve_metrics(l, routes::metrics_router(state.clone()))))
        }
        None => None,
    };
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let connections = Arc::new(Semaphore::new(state.0.opts.max_connections.max(1)));
    tracing::info!(target: crate::obs::log::READY, "locker listening on http://{addr}");
    tokio::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            p = Arc::clone(&connections).acquire_owned() => match p {
                Ok(p) => p,
                Err(_) => break,
            },
            () = &mut shutdown => break,
        };
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                // Out of file descriptors or a connection reset before accept: keep serving.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let Some(share) = state.0.peers.connection(peer.ip()) else {
            tokio::spawn(refuse_connection(stream, peer, state.clone(), permit));
            continue;
        };
        let st = state.clone();
        let rt = router.clone();
        let svc = hyper::service::service_fn(move |req| handle(st.clone(), rt.clone(), peer, req));
        let conn = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(state.0.opts.header_read_timeout)
            .max_buf_size(64 * 1024)
            // A client that shuts down its side after sending its request (`nc -N`) still
            // gets the answer.
            .half_close(true)
            .serve_connection(TokioIo::new(conn::JsonRefusals::new(stream)), svc);
        let conn = graceful.watch(conn);
        let max_age = state.0.opts.max_connection_age;
        tokio::spawn(async move {
            // A connection lives at most `max_age`: a client that reads its answers too slowly
            // (or keeps one connection busy forever) cannot hold a slot for good.
            let _ = tokio::time::timeout(max_age, conn).await;
            drop(share);
            drop(permit);
        });
    }
    drop(listener);
    // The MCP event streams end with their sessions: nothing keeps a connection open.
    state.mcp().close_sessions();
    if let Some(t) = scraper {
        t.abort();
    }
    let grace = state.0.opts.shutdown_grace;
    if tokio::time::timeout(grace, graceful.shutdown()).await.is_err() {
        tracing::warn!("some connections were still open at shutdown; closing them");
    }
    tracing::info!("locker stopped");
    Ok(())
}
