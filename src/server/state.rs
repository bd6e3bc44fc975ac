//! What every request handler shares: the options, the pooled stores that reads run on, the
//! writer thread that commits writes in groups, and the maintenance thread.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Semaphore;

use super::admission::Peers;
use super::guard::Policy;
use crate::domain::secret::Secret;
use crate::ops::group;
use crate::ops::{self, Actor, Clock, Env, OpError, OpResult};
use crate::store::Store;

/// How the server behaves at its edge.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// Stores (SQLite connections) kept open for operations; also the most operations that
    /// run at once.
    pub pool_size: usize,
    /// Most open connections; further clients wait in the listen backlog.
    pub max_connections: usize,
    /// Most operations running at once (a request takes a slot once it is read whole);
    /// others wait up to `queue_timeout`, then get 503.
    pub max_in_flight: usize,
    /// Most connections one peer address may hold open.
    pub max_connections_per_peer: usize,
    /// Most requests one peer address may have in flight (bodies being read included).
    pub max_requests_per_peer: usize,
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
    /// Whether every write route without a credential of its own (leases, plans, steps, pad
    /// creation and deposit, reaping) and the listings (`/v1/journal`, `/v1/verify`,
    /// `/v1/leases`, `/v1/pads`) demand an agent's bearer token.
    pub require_token: bool,
    /// Web origins whose pages may call the server (`--allow-origin`).
    pub allow_origins: Vec<String>,
    /// Host names served besides loopback ones (`--allow-host`).
    pub allow_hosts: Vec<String>,
    /// The address the server listens on (served as a `Host`).
    pub listen: Option<std::net::IpAddr>,
    /// Pay-per-pad: `POST /v1/pads` demands a payment proof (`--payment-mode txid`).
    pub payment: Option<ops::pad::payment::PaymentConfig>,
    /// The log's key and origin, for checkpoints and proofs (none: those routes answer 404).
    pub log: Option<ops::log::LogIdentity>,
    /// Stop when stdin reaches its end (the parent that started the server is gone).
    pub exit_with_stdin: bool,
    /// Witnesses asked to cosign each checkpoint the server signs (`--witness URL`).
    pub witnesses: Vec<String>,
    /// The repository's directory (`.locker/`), whose file system `/metrics` reports the free
    /// space of; none when served straight from a shared database.
    pub data_dir: Option<std::path::PathBuf>,
    /// The MCP tools `POST /mcp` offers (`--mcp-toolsets`, `--mcp-read-only`); checked with
    /// [`crate::mcp::check_selection`] before the server starts.
    pub mcp_tools: crate::mcp::ToolSelection,
    /// The operator's credential for the web view (`--ui-token-file`): it shows every scope.
    pub ui_token: Option<Secret>,
}

impl Default for ServerOptions {
    fn default() -> Self {
        Self {
            pool_size: 4,
            max_connections: 512,
            max_in_flight: 128,
            max_connections_per_peer: 256,
            max_requests_per_peer: 64,
            header_read_timeout: Duration::from_secs(5),
            body_timeout: Duration::from_secs(20),
            queue_timeout: Duration::from_secs(10),
            shutdown_grace: Duration::from_secs(10),
            max_connection_age: Duration::from_secs(600),
            require_token: false,
            allow_origins: Vec::new(),
            allow_hosts: Vec::new(),
            listen: None,
            payment: None,
            log: None,
            witnesses: Vec::new(),
            exit_with_stdin: false,
            data_dir: None,
            mcp_tools: crate::mcp::ToolSelection::default(),
            ui_token: None,
        }
    }
}

pub use super::publish::StoreOpener;

/// The newest whole-repository verification the web view made (the operator's report): when
/// (the process's clock, for its age; the operations' clock, to show) and what it found.
pub type Verified = Mutex<Option<(std::time::Instant, i64, crate::ops::verify::RepoReport)>>;

/// What every request handler shares.
#[derive(Clone)]
pub struct AppState(pub(super) Arc<Inner>);

pub(super) struct Inner {
    pub(super) opts: ServerOptions,
    /// The clock, the settings and the log identity every operation gets.
    env: Env,
    idle: Mutex<Vec<Box<dyn Store>>>,
    open: Arc<StoreOpener>,
    stores: Arc<Semaphore>,
    /// The slots of running operations (see [`super::admission`]).
    in_flight: Arc<Semaphore>,
    /// What each peer holds.
    pub(super) peers: Arc<Peers>,
    /// The browser guard.
    pub(super) policy: Policy,
    /// The store `/health` reads with, apart from the pool so that it never waits for a slot.
    health: tokio::sync::Mutex<Option<Box<dyn Store>>>,
    /// Where writes are committed (see [`super::writes`]).
    writes: super::writes::Writes,
    /// The signer: checkpoints as the journal grows (requests never sign).
    publisher: Arc<super::publish::Publisher>,
    /// The MCP endpoint (`POST /mcp`).
    mcp: crate::mcp::http::Endpoint,
    /// The web view's newest whole-repository verification.
    pub(super) verified: Arc<Verified>,
}

impl AppState {
    /// A server state over `first` (an open store) and `open` (to open more, up to
    /// `opts.pool_size`).
    pub fn new(
        first: Box<dyn Store>,
        open: StoreOpener,
        clock: Arc<dyn Clock>,
        settings: ops::Settings,
        opts: ServerOptions,
    ) -> Self {
        // Every counter an alert watches exists from the start, at 0: its first event is an
        // increase Prometheus can see.
        let m = crate::obs::metrics::metrics();
        for reason in super::access::REFUSAL_REASONS {
            m.admission_refusals.add(&[reason], 0);
        }
        for kind in ops::STORE_ERROR_KINDS {
            m.store_errors.add(&[kind], 0);
        }
        for w in &opts.witnesses {
            let name = super::publish::witness_label(w);
            m.cosignatures.add(&[&name], 0);
            m.cosignature_failures.add(&[&name], 0);
        }
        let pool = opts.pool_size.max(1);
        let in_flight = opts.max_in_flight.max(1);
        let open = Arc::new(open);
        // Requests never sign a checkpoint: the signer does, when the journal grows.
        let settings = ops::Settings { sign_checkpoints: false, ..settings };
        let env = Env { clock, settings, log: opts.log.clone() };
        let publisher = Arc::new(super::publish::Publisher::start(
            Arc::clone(&open),
            &env,
            opts.witnesses.clone(),
        ));
        let inline = first.kind() == "sqlite";
        let writes = super::writes::Writes::start(&open, &env, Arc::clone(&publisher), inline);
        let policy = Policy {
            allow_origins: opts.allow_origins.clone(),
            allow_hosts: opts.allow_hosts.clone(),
            listen: opts.listen,
        };
        let mcp = crate::mcp::http::Endpoint::new(opts.mcp_tools.clone());
        Self(Arc::new(Inner {
            mcp,
            peers: Peers::new(opts.max_connections_per_peer, opts.max_requests_per_peer),
            policy,
            health: tokio::sync::Mutex::new(None),
            env,
            idle: Mutex::new(vec![first]),
            open,
            stores: Arc::new(Semaphore::new(pool)),
            in_flight: Arc::new(Semaphore::new(in_flight)),
            writes,
            publisher,
            verified: Arc::default(),
            opts,
        }))
    }

    /// Runs a write operation in the writer thread's next group commit: the result comes
    /// back once the group is durable (or with the error that undid it).
    pub async fn write<T, F>(&self, actor: Actor, f: F) -> OpResult<T>
    where
        T: Send + 'static,
        F: FnMut(&mut ops::Ctx<'_>) -> OpResult<T> + Send + 'static,
    {
        super::access::note(super::access::acting().as_ref(), &actor);
        self.submit(actor, f).await
    }

    /// [`Self::write`] without saying who acts (the caller's operation says it once known).
    async fn submit<T, F>(&self, actor: Actor, mut f: F) -> OpResult<T>
    where
        T: Send + 'static,
        F: FnMut(&mut ops::Ctx<'_>) -> OpResult<T> + Send + 'static,
    {
        let _slot = self.slot().await?;
        let (tx, rx) = tokio::sync::oneshot::channel();
        // The write's span: its time idle is the wait for the writer's next group.
        let span = tracing::debug_span!("write");
        let job = group::job(
            actor,
            move |ctx| span.in_scope(|| f(ctx)),
            move |r| {
                let _ = tx.send(r);
            },
        );
        if self.0.writes.submit(job).is_err() {
            return Err(OpError::unavailable("the server is shutting down"));
        }
        rx.await.unwrap_or_else(|_| Err(OpError::internal("the writer thread stopped")))
    }

    /// Like [`Self::write`], as the agent whose bearer token is `token` (see
    /// [`Self::run_as_token`]).
    pub async fn write_as_token<T, F>(&self, token: Secret, mut f: F) -> OpResult<T>
    where
        T: Send + 'static,
        F: FnMut(&mut ops::Ctx<'_>) -> OpResult<T> + Send + 'static,
    {
        let acting = super::access::acting();
        self.submit(Actor::operator(), move |ctx| {
            ctx.actor = ops::auth::authenticate(&mut *ctx.store, &token)?;
            super::access::note(acting.as_ref(), &ctx.actor);
            f(ctx)
        })
        .await
    }

    /// A slot for an operation about to run: its request has been read whole. Waits up to the
    /// queue timeout, then the server is busy (503).
    async fn slot(&self) -> OpResult<tokio::sync::OwnedSemaphorePermit> {
        let wait = Arc::clone(&self.0.in_flight).acquire_owned();
        match tokio::time::timeout(self.0.opts.queue_timeout, wait).await {
            Ok(Ok(p)) => Ok(p),
            _ => {
                crate::obs::metrics::metrics().admission_refusals.inc(&["busy"]);
                Err(OpError::unavailable("the server is busy; retry shortly").with("retry", true))
            }
        }
    }

    /// Runs a read for `/health` on its own store, without a slot: answered even when every
    /// slot is busy (health checks wait only for one another).
    pub async fn health_read<T, F>(&self, f: F) -> OpResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut ops::Ctx<'_>) -> OpResult<T> + Send + 'static,
    {
        let mut guard = self.0.health.lock().await;
        let taken = guard.take();
        let inner = Arc::clone(&self.0);
        let joined = tokio::task::spawn_blocking(move || {
            crate::store::blocking(|| {
                let mut store = match taken {
                    Some(s) => s,
                    None => (inner.open)()?,
                };
                let result = f(&mut inner.env.ctx(store.as_mut(), Actor::anonymous()));
                Ok::<_, OpError>((result, store))
            })
        })
        .await;
        match joined {
            Ok(Ok((result, store))) => {
                if !matches!(&result, Err(e) if e.kind == ops::ErrorKind::Unavailable) {
                    *guard = Some(store);
                }
                result
            }
            Ok(Err(e)) => Err(e),
            Err(e) => Err(OpError::internal(format!("an operation failed: {e}"))),
        }
    }

    /// Whether the writer thread is running (writes can be made).
    pub fn writer_alive(&self) -> bool {
        self.0.writes.thread.lock().is_ok_and(|w| w.as_ref().is_some_and(|h| !h.is_finished()))
    }

    /// The writer thread, to wait for at shutdown.
    pub(super) fn writer_handle(&self) -> Arc<Mutex<Option<std::thread::JoinHandle<()>>>> {
        Arc::clone(&self.0.writes.thread)
    }

    /// The signer thread, which stops (and gives up its turn to sign) after the writer.
    pub(super) fn signer_handle(&self) -> Arc<Mutex<Option<std::thread::JoinHandle<()>>>> {
        Arc::clone(&self.0.publisher.thread)
    }

    pub fn options(&self) -> &ServerOptions {
        &self.0.opts
    }

    /// The MCP endpoint.
    pub fn mcp(&self) -> &crate::mcp::http::Endpoint {
        &self.0.mcp
    }

    pub fn now(&self) -> i64 {
        self.0.env.clock.now()
    }

    /// A read that may have journaled something (a `read_once` ticket's first read opens its
    /// read lease) outside a group commit: the publisher signs what grew.
    pub fn journal_may_have_grown(&self) {
        self.0.publisher.grew();
    }

    /// Waits (briefly) until the signer has signed a checkpoint covering every write committed
    /// before now: what a reader of checkpoints and proofs does first.
    pub async fn caught_up(&self) {
        self.0.publisher.caught_up().await;
    }

    /// Runs an operation on a blocking thread with a pooled store. The operation runs to its
    /// end even if the client goes away, so a write is either committed or not, never torn.
    pub async fn run<T, F>(&self, actor: Actor, f: F) -> OpResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut ops::Ctx<'_>) -> OpResult<T> + Send + 'static,
    {
        super::access::note(super::access::acting().as_ref(), &actor);
        self.read_as(actor, f).await
    }

    /// [`Self::run`] without saying who acts (the caller's operation says it once known).
    async fn read_as<T, F>(&self, actor: Actor, f: F) -> OpResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut ops::Ctx<'_>) -> OpResult<T> + Send + 'static,
    {
        let _slot = self.slot().await?;
        let span = tracing::debug_span!("read");
        let permit = Arc::clone(&self.0.stores)
            .acquire_owned()
            .await
            .map_err(|_| OpError::unavailable("the server is shutting down"))?;
        let inner = Arc::clone(&self.0);
        let joined = tokio::task::spawn_blocking(move || {
            crate::store::blocking(|| {
                let _permit = permit;
                let _entered = span.enter();
                let mut store = match inner.idle.lock().map(|mut v| v.pop()) {
                    Ok(Some(s)) => s,
                    _ => (inner.open)()?,
                };
                let result = f(&mut inner.env.ctx(store.as_mut(), actor));
                // A store that failed as unavailable (a lost database connection) is not reused:
                // the next request opens a fresh one.
                let lost = matches!(&result, Err(e) if e.kind == ops::ErrorKind::Unavailable);
                if let (false, Ok(mut idle)) = (lost, inner.idle.lock()) {
                    idle.push(store);
                }
                result
            })
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
        let acting = super::access::acting();
        self.read_as(Actor::operator(), move |ctx| {
            ctx.actor = ops::auth::authenticate(&mut *ctx.store, &token)?;
            super::access::note(acting.as_ref(), &ctx.actor);
            f(ctx)
        })
        .await
    }
}
