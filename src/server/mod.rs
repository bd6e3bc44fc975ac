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
//! read), a bound on connections and on requests in flight, graceful shutdown on SIGTERM and
//! SIGINT that finishes the requests in flight, and one JSON access-log line per request on
//! stderr with every secret redacted.
//!
//! One module per resource: `pads`, `tickets`, `artifacts`, `leases`, `plans`, `journal`,
//! `keys`, `tlog` (checkpoints and proofs) and `health`; `routes` is the table of every route,
//! [`wire`] the request bodies of the compatible APIs, `http` the helpers every handler uses.
//! `publish` is the signer: requests never sign a checkpoint; it does, as the journal grows.

mod access;
mod agentstate;
mod artifacts;
mod health;
mod http;
mod journal;
mod keys;
mod leases;
mod pads;
mod payments;
mod plans;
mod publish;
mod routes;
mod state;
mod tickets;
mod tlog;
pub mod wire;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::sync::Semaphore;
use tower_service::Service as _;

use crate::ops::OpError;

pub use access::redact_query;
pub use routes::{openapi_document, route_table, router, OPENAPI_JSON};
pub use state::{AppState, ServerOptions, StoreOpener};

async fn handle(
    state: AppState,
    router: axum::Router,
    peer: SocketAddr,
    req: hyper::Request<Incoming>,
) -> Result<axum::response::Response, std::convert::Infallible> {
    let arrived = access::Arrived::new(&req);
    let mut router = router;
    let slot = tokio::time::timeout(
        state.0.opts.queue_timeout,
        Arc::clone(&state.0.in_flight).acquire_owned(),
    )
    .await;
    let resp = match slot {
        Ok(Ok(permit)) => {
            let resp = router.call(req.map(axum::body::Body::new)).await;
            drop(permit);
            match resp {
                Ok(r) => r,
                Err(never) => match never {},
            }
        }
        _ => http::error_response(
            &OpError::unavailable("the server is busy; retry shortly").with("retry", true),
        ),
    };
    arrived.log(state.now(), peer, &resp);
    Ok(resp)
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
pub fn serve(listener: std::net::TcpListener, state: AppState) -> std::io::Result<()> {
    let writer = state.writer_handle();
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
        run(listener, state, async move {
            let which = shutdown_signal(term, int).await;
            crate::output::log_line(&format!(
                "locker received {which}; finishing the requests in flight"
            ));
        })
        .await
    });
    // Waits for operations still running on blocking threads: none is cut off mid-commit.
    drop(rt);
    // Every handle on the state is gone with the runtime, so the writer thread finishes the
    // groups it holds and stops.
    let handle = writer.lock().ok().and_then(|mut w| w.take());
    if let Some(h) = handle {
        let deadline = Instant::now() + grace;
        while !h.is_finished() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        if h.is_finished() {
            let _ = h.join();
        }
    }
    result
}

/// Serves until `shutdown` resolves (used by [`serve`] and by tests).
pub async fn run(
    listener: std::net::TcpListener,
    state: AppState,
    shutdown: impl std::future::Future<Output = ()>,
) -> std::io::Result<()> {
    listener.set_nonblocking(true)?;
    let listener = tokio::net::TcpListener::from_std(listener)?;
    let addr = listener.local_addr()?;
    let router = routes::router(state.clone());
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let connections = Arc::new(Semaphore::new(state.0.opts.max_connections.max(1)));
    crate::output::log_line(&format!("locker listening on http://{addr}"));
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
        let st = state.clone();
        let rt = router.clone();
        let svc = hyper::service::service_fn(move |req| handle(st.clone(), rt.clone(), peer, req));
        let conn = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(state.0.opts.header_read_timeout)
            .max_buf_size(64 * 1024)
            .serve_connection(TokioIo::new(stream), svc);
        let conn = graceful.watch(conn);
        let max_age = state.0.opts.max_connection_age;
        tokio::spawn(async move {
            // A connection lives at most `max_age`: a client that reads its answers too slowly
            // (or keeps one connection busy forever) cannot hold a slot for good.
            let _ = tokio::time::timeout(max_age, conn).await;
            drop(permit);
        });
    }
    drop(listener);
    let grace = state.0.opts.shutdown_grace;
    if tokio::time::timeout(grace, graceful.shutdown()).await.is_err() {
        crate::output::log_line(
            "locker: some connections were still open at shutdown; closing them",
        );
    }
    crate::output::log_line("locker stopped");
    Ok(())
}
