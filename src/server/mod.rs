//! `locker serve`: the repository over HTTP, a thin edge over [`crate::ops`].
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

mod artifacts;
mod http;
mod leases;
mod native;
mod pads;
mod routes;
mod tlog;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use serde::Serialize;
use tokio::sync::Semaphore;
use tower_service::Service as _;

use crate::domain::secret::Secret;
use crate::ops::group::{self, Job};
use crate::ops::{self, Actor, Clock, OpError, OpResult};
use crate::store::Store;

pub use routes::{openapi_document, route_table, router, OPENAPI_JSON};

/// How the server behaves at its edge.
#[derive(Debug, Clone)]
pub struct Options {
    /// Stores (SQLite connections) kept open for operations; also the most operations that
    /// run at once.
    pub pool_size: usize,
    /// Most open connections; further clients wait in the listen backlog.
    pub max_connections: usize,
    /// Most requests being handled at once; others wait up to `queue_timeout`, then get 503.
    pub max_in_flight: usize,
    /// How long a client may take to send a request's headers.
    pub header_read_timeout: Duration,
    /// How long a client may take to send a request's body.
    pub body_timeout: Duration,
    /// How long a request may wait for a free slot before it gets 503.
    pub queue_timeout: Duration,
    /// How long shutdown waits for requests in flight.
    pub shutdown_grace: Duration,
    /// The longest a connection may stay open, whatever it does.
    pub max_connection_age: Duration,
    /// Whether lease routes demand a bearer token.
    pub require_token: bool,
    /// Pay-per-pad: `POST /v1/pads` demands a payment proof (`--payment-mode txid`).
    pub payment: Option<ops::payment::PaymentConfig>,
    /// The log's key and origin, for checkpoints and proofs (none: those routes answer 404).
    pub log: Option<ops::tlog::LogIdentity>,
    /// Witnesses asked to cosign each checkpoint `GET /v1/checkpoint` signs
    /// (`--witness URL`).
    pub witnesses: Vec<String>,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            pool_size: 4,
            max_connections: 512,
            max_in_flight: 128,
            header_read_timeout: Duration::from_secs(5),
            body_timeout: Duration::from_secs(20),
            queue_timeout: Duration::from_secs(10),
            shutdown_grace: Duration::from_secs(10),
            max_connection_age: Duration::from_secs(600),
            require_token: false,
            payment: None,
            log: None,
            witnesses: Vec::new(),
        }
    }
}

/// Opens another store on the served repository.
pub type StoreOpener = Box<dyn Fn() -> OpResult<Box<dyn Store>> + Send + Sync>;

/// Most operations committed in one group.
const MAX_GROUP: usize = 256;

/// What every request handler shares.
#[derive(Clone)]
pub struct AppState(Arc<Inner>);

struct Inner {
    opts: Options,
    clock: Arc<dyn Clock>,
    settings: ops::Settings,
    idle: Mutex<Vec<Box<dyn Store>>>,
    open: Arc<StoreOpener>,
    stores: Arc<Semaphore>,
    in_flight: Arc<Semaphore>,
    /// The queue of the writer thread (see [`writer`]).
    writes: std::sync::mpsc::Sender<Box<dyn Job>>,
    writer: Arc<Mutex<Option<std::thread::JoinHandle<()>>>>,
}

impl AppState {
    /// A server state over `first` (an open store) and `open` (to open more, up to
    /// `opts.pool_size`).
    pub fn new(
        first: Box<dyn Store>,
        open: StoreOpener,
        clock: Arc<dyn Clock>,
        settings: ops::Settings,
        opts: Options,
    ) -> Self {
        let pool = opts.pool_size.max(1);
        let in_flight = opts.max_in_flight.max(1);
        let open = Arc::new(open);
        let (writes, queue) = std::sync::mpsc::channel();
        let (kick, kicks) = std::sync::mpsc::sync_channel(1);
        let writer = {
            let (open, clock) = (Arc::clone(&open), Arc::clone(&clock));
            std::thread::Builder::new()
                .name("locker-writer".into())
                .spawn(move || writer(&queue, &open, clock.as_ref(), settings, &kick))
                .ok()
        };
        {
            let open = Arc::clone(&open);
            let _ = std::thread::Builder::new()
                .name("locker-maintain".into())
                .spawn(move || maintainer(&kicks, &open));
        }
        Self(Arc::new(Inner {
            clock,
            settings,
            idle: Mutex::new(vec![first]),
            open,
            stores: Arc::new(Semaphore::new(pool)),
            in_flight: Arc::new(Semaphore::new(in_flight)),
            writes,
            writer: Arc::new(Mutex::new(writer)),
            opts,
        }))
    }

    /// Runs a write operation in the writer thread's next group commit: the result comes
    /// back once the group is durable (or with the error that undid it).
    pub async fn write<T, F>(&self, actor: Actor, f: F) -> OpResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut ops::Ctx<'_>) -> OpResult<T> + Send + 'static,
    {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let job = group::job(actor, f, move |r| {
            let _ = tx.send(r);
        });
        if self.0.writes.send(job).is_err() {
            return Err(OpError::unavailable("the server is shutting down"));
        }
        rx.await.unwrap_or_else(|_| Err(OpError::internal("the writer thread stopped")))
    }

    /// Like [`Self::write`], as the agent whose bearer token is `token` (see
    /// [`Self::run_as_token`]).
    pub async fn write_as_token<T, F>(&self, token: Secret, f: F) -> OpResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut ops::Ctx<'_>) -> OpResult<T> + Send + 'static,
    {
        self.write(Actor::operator(), move |ctx| {
            ctx.actor = ops::token::authenticate(&mut *ctx.store, &token)?;
            f(ctx)
        })
        .await
    }

    /// The writer thread, to wait for at shutdown.
    fn writer_handle(&self) -> Arc<Mutex<Option<std::thread::JoinHandle<()>>>> {
        Arc::clone(&self.0.writer)
    }

    pub fn options(&self) -> &Options {
        &self.0.opts
    }

    pub fn now(&self) -> i64 {
        self.0.clock.now()
    }

    /// Runs an operation on a blocking thread with a pooled store. The operation runs to its
    /// end even if the client goes away, so a write is either committed or not, never torn.
    pub async fn run<T, F>(&self, actor: Actor, f: F) -> OpResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut ops::Ctx<'_>) -> OpResult<T> + Send + 'static,
    {
        let permit = Arc::clone(&self.0.stores)
            .acquire_owned()
            .await
            .map_err(|_| OpError::unavailable("the server is shutting down"))?;
        let inner = Arc::clone(&self.0);
        let joined = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let mut store = match inner.idle.lock().map(|mut v| v.pop()) {
                Ok(Some(s)) => s,
                _ => (inner.open)()?,
            };
            let result = {
                let mut ctx = ops::Ctx::new(store.as_mut(), actor, inner.clock.as_ref());
                ctx.settings = inner.settings;
                f(&mut ctx)
            };
            // A store that failed as unavailable (a lost database connection) is not reused:
            // the next request opens a fresh one.
            let lost = matches!(&result, Err(e) if e.kind == ops::ErrorKind::Unavailable);
            if let (false, Ok(mut idle)) = (lost, inner.idle.lock()) {
                idle.push(store);
            }
            result
        })
        .await;
        joined.unwrap_or_else(|e| Err(OpError::internal(format!("an operation failed: {e}"))))
    }
}

impl AppState {
    /// Runs an operation as the agent whose bearer token is `token`: the token is checked on
    /// the same blocking thread, then the operation acts as that agent in its scope (and
    /// re-checks the token inside its own transaction).
    pub async fn run_as_token<T, F>(&self, token: Secret, f: F) -> OpResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut ops::Ctx<'_>) -> OpResult<T> + Send + 'static,
    {
        self.run(Actor::operator(), move |ctx| {
            ctx.actor = ops::token::authenticate(&mut *ctx.store, &token)?;
            f(ctx)
        })
        .await
    }
}

/// The writer thread: takes the first queued write, then every other one already queued (up
/// to [`MAX_GROUP`]), applies them in one group commit and answers them; repeats until every
/// sender is gone. Writes that arrive while a group is being made durable wait for the next
/// one, so under load each commit (each `fsync`) serves many writes, and a lone write is
/// committed at once.
fn writer(
    queue: &std::sync::mpsc::Receiver<Box<dyn Job>>,
    open: &StoreOpener,
    clock: &dyn Clock,
    settings: ops::Settings,
    kick: &std::sync::mpsc::SyncSender<()>,
) {
    let mut store: Option<Box<dyn Store>> = None;
    let mut pending: Vec<Box<dyn Job>> = Vec::new();
    loop {
        if pending.is_empty() {
            match queue.recv() {
                Ok(j) => pending.push(j),
                Err(_) => return,
            }
        }
        while pending.len() < MAX_GROUP {
            match queue.try_recv() {
                Ok(j) => pending.push(j),
                Err(_) => break,
            }
        }
        let s = match store.as_mut() {
            Some(s) => s,
            None => match open().and_then(|mut s| {
                // Checkpoints are left to the maintainer thread; a store without housekeeping
                // (PostgreSQL) has none to defer.
                if let Some(m) = s.maintenance() {
                    m.defer_maintenance()?;
                }
                Ok(s)
            }) {
                Ok(s) => store.insert(s),
                Err(e) => {
                    for j in pending.drain(..) {
                        j.finish(Some(e.clone()));
                    }
                    continue;
                }
            },
        };
        pending = group::apply(s.as_mut(), clock, settings, std::mem::take(&mut pending));
        if !pending.is_empty() {
            // A storage failure ended the group early: start again on a fresh connection.
            store = None;
        }
        // Housekeeping is due (the maintainer coalesces kicks).
        let _ = kick.try_send(());
    }
}

/// The maintenance thread: after writes, runs the store's deferred housekeeping (SQLite's
/// WAL checkpoints) on a connection of its own, at most every 50 ms, so that no write waits
/// for it. Stops with the writer.
fn maintainer(kicks: &std::sync::mpsc::Receiver<()>, open: &StoreOpener) {
    let mut store: Option<Box<dyn Store>> = None;
    while kicks.recv().is_ok() {
        if store.is_none() {
            store = open().ok();
        }
        // A store without housekeeping (PostgreSQL) has nothing to run.
        if let Some(m) = store.as_mut().and_then(|s| s.maintenance()) {
            // A checkpoint that cannot run now (another is running) runs after the next write.
            let _ = m.maintain();
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// One access-log record: no header, body or query value that could hold a secret.
#[derive(Debug, Serialize)]
struct AccessLog<'a> {
    time: String,
    peer: String,
    method: &'a str,
    path: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    query: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    route: Option<String>,
    status: u16,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    /// What went wrong, for internal failures only (the client is not told).
    #[serde(skip_serializing_if = "Option::is_none")]
    detail: Option<String>,
    ms: f64,
}

/// Query parameters whose values are logged; every other value is replaced by `***`.
const LOGGED_PARAMS: &[&str] = &[
    "from", "to", "limit", "diff", "work", "work_ref", "state", "after", "before", "kind",
    "subject", "actor", "scope", "reverse",
];

/// A query string with every value that is not known to be harmless replaced by `***`.
pub fn redact_query(q: &str) -> String {
    let mut out = form_urlencoded::Serializer::new(String::new());
    for (k, v) in form_urlencoded::parse(q.as_bytes()) {
        if LOGGED_PARAMS.contains(&k.as_ref()) {
            out.append_pair(&k, &v);
        } else {
            out.append_pair(&k, "***");
        }
    }
    out.finish().replace("%2A%2A%2A", "***")
}

fn truncate(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

async fn handle(
    state: AppState,
    router: axum::Router,
    peer: SocketAddr,
    req: hyper::Request<Incoming>,
) -> Result<axum::response::Response, std::convert::Infallible> {
    let started = Instant::now();
    let method = req.method().as_str().to_owned();
    let path = truncate(req.uri().path(), 512).to_owned();
    let query = req.uri().query().map(|q| truncate(&redact_query(q), 1024).to_owned());

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
    let log = AccessLog {
        time: crate::output::rfc3339(state.now()),
        peer: peer.to_string(),
        method: &method,
        path: &path,
        query,
        route: resp.extensions().get::<http::RouteName>().map(|r| r.0.to_owned()),
        status: resp.status().as_u16(),
        error: resp.extensions().get::<http::ErrorCode>().map(|c| c.0.clone()),
        detail: resp.extensions().get::<http::InternalDetail>().map(|d| d.0.clone()),
        ms: (started.elapsed().as_secs_f64() * 1e6).round() / 1e3,
    };
    crate::output::log_json(&log);
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

#[cfg(test)]
mod tests {
    use super::redact_query;

    #[test]
    fn only_harmless_query_values_are_logged() {
        assert_eq!(redact_query("ticket=abc&from=0&to=3"), "ticket=***&from=0&to=3");
        assert_eq!(
            redact_query("token=t&key=k&write_key=w&x=1"),
            "token=***&key=***&write_key=***&x=***"
        );
        assert_eq!(redact_query("work=job%201&diff=1"), "work=job+1&diff=1");
        assert_eq!(redact_query("TICKET=abc"), "TICKET=***");
    }
}
