//! `locker serve`.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;

use super::{CmdResult, CommandCtx};
use crate::ops::pad::payment::PaymentConfig;
use crate::ops::{self, Actor, OpError};
use crate::repo::Repo;
use crate::server::{self, AppState, ServerOptions};

/// Serve the repository over HTTP until SIGTERM or SIGINT
///
/// Routes: agent-locker's pad API (`POST /v1/pads`, `…/append`, `…/seal`, `…/tickets`,
/// `GET …/manifest`, `…/blocks`, `/health`), wire-compatible with its clients; questlock's
/// artifact API (`/healthz`, `/v1/artifact`, `/v1/artifacts`, `/v1/audit`; bearer tokens);
/// agentstate's lease API (`POST /lease`, `/heartbeat`, `/complete`, `/manifest`, `/event`,
/// `GET /ledger`) with locker's semantics; and locker's own routes (`/v1/journal`,
/// `/v1/verify`, `/v1/pads`, `/v1/deposit`, `/v1/leases`, …), all described by
/// `GET /openapi.json`; `POST /mcp`, the tools of `locker mcp` over MCP's Streamable HTTP
/// (`GET /mcp/sse` for 2024-11-05 clients) for agents elsewhere, acting as their bearer token's
/// agent (`--mcp-toolsets` and `--mcp-read-only` choose them); and a read-only web view for
/// people under `/ui/` (the journal, pads, work items, artifacts and the log, as HTML). The
/// demo pad `demo-pad-v1` is created at start if it is missing.
///
/// Prints `locker listening on http://ADDR` on stderr once it accepts connections (with
/// `--listen 127.0.0.1:0` the system picks the port; the line is written at every log level),
/// then one access-log event per request (`--log-level`, `--log-format`), with no key, ticket
/// or token. `GET /metrics` serves Prometheus metrics. On SIGTERM or SIGINT it stops accepting,
/// finishes the requests in flight and exits 0. The CLI can use the same repository at the
/// same time.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The address and port to listen on
    #[arg(long, default_value = "127.0.0.1:8000", value_name = "ADDR")]
    pub listen: SocketAddr,
    /// Also serve `GET /metrics` (Prometheus) on this address, without a token: for a
    /// scraper on a private network when the main address demands tokens
    #[arg(long, value_name = "ADDR")]
    pub metrics_listen: Option<SocketAddr>,
    /// Allow an address other than loopback; locker speaks plain HTTP, so put a TLS proxy in
    /// front of it
    #[arg(long)]
    pub allow_remote_http: bool,
    /// Seconds a client may take to send a request's headers
    #[arg(long, default_value_t = 5, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub header_timeout: u64,
    /// Seconds a client may take to send a request's body
    #[arg(long, default_value_t = 20, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub body_timeout: u64,
    /// Most connections open at once
    #[arg(long, default_value_t = 512, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub max_connections: u64,
    /// Demand an agent's bearer token (`locker token create`) on every write route that has
    /// no credential of its own (leases, plans, steps, pad creation, deposit, reaping) and on
    /// the listings (`/v1/journal`, `/v1/verify`, `/v1/leases`, `/v1/pads`); without it they
    /// also serve anonymous callers, as the peers do. The default is false on loopback and
    /// true with `--allow-remote-http`; `--require-token=false` turns it off there
    #[arg(long, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub require_token: Option<bool>,
    /// A web origin (`https://app.example.com`) whose pages may call this server (CORS);
    /// requests from any other origin are refused (403). None by default. Repeatable
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    pub allow_origins: Vec<String>,
    /// A host name clients may call this server by, besides loopback names and addresses and
    /// the listen address: any other `Host` is refused (421), which defeats DNS rebinding.
    /// Repeatable
    #[arg(long = "allow-host", value_name = "NAME")]
    pub allow_hosts: Vec<String>,
    /// A file holding the operator's token for the web view under `/ui/` (16 characters or
    /// more; a trailing newline is ignored): sent as `Authorization: Bearer` or through the
    /// sign-in form, it shows every scope. Without a token the view shows the operator's view
    /// only on loopback without `--require-token`; an agent's token shows its own scope
    #[arg(long, value_name = "FILE")]
    pub ui_token_file: Option<std::path::PathBuf>,
    /// Most connections one client address may hold open (others are answered 429)
    #[arg(long, default_value_t = 256, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub max_connections_per_peer: u64,
    /// Most requests one client address may have in flight, bodies still arriving included
    /// (others are answered 429)
    #[arg(long, default_value_t = 64, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub max_requests_per_peer: u64,
    /// Most operations running at once (a request takes a slot once its body has arrived;
    /// others wait, then get 503)
    #[arg(long, default_value_t = 128, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub max_concurrent: u64,
    /// Stop (as on SIGTERM) when stdin reaches its end: for a parent that must not leave the
    /// server behind when it dies (`locker quest`)
    #[arg(long, hide = true)]
    pub exit_with_stdin: bool,
    /// Create the repository first if there is none (in `-R PATH`, else the current
    /// directory), as `locker init` would: for containers and services that start empty
    #[arg(long)]
    pub init: bool,
    #[command(flatten)]
    pub store: super::init::StoreArgs,
    /// Ask the witness at URL (a `locker witness serve` or any C2SP tlog-witness) to cosign
    /// every checkpoint `GET /v1/checkpoint` signs; the cosignatures are stored with it.
    /// Repeatable
    #[arg(long = "witness", value_name = "URL")]
    pub witnesses: Vec<String>,
    /// Offer only the MCP tools that change nothing at `POST /mcp` (as `locker mcp
    /// --read-only` does over stdio)
    #[arg(long)]
    pub mcp_read_only: bool,
    /// Offer only these MCP toolsets at `POST /mcp`, comma-separated: pads, artifacts, work,
    /// log, admin (as `locker mcp --toolsets` does over stdio) [default: all]
    #[arg(
        long,
        value_name = "LIST",
        value_delimiter = ',',
        value_parser = clap::builder::PossibleValuesParser::new(crate::mcp::Toolset::NAMES)
    )]
    pub mcp_toolsets: Vec<String>,
    /// Pay-per-pad: `txid` makes `POST /v1/pads` demand `X-Payment-Proof: <tx hash>` of a
    /// token transfer to the wallet, checked on chain (402 with a challenge without it);
    /// `off` (the default) shows nothing about payments; `locker serve --help` lists
    /// the `--payment-*` settings
    #[arg(long, help_heading = PAYMENT_HEADING, value_enum, default_value_t = PaymentMode::Off, env = "LOCKER_PAYMENT_MODE", value_name = "MODE")]
    pub payment_mode: PaymentMode,
    /// The wallet payments must go to (0x + 40 hex digits); required with `--payment-mode txid`
    #[arg(long, help_heading = PAYMENT_HEADING, env = "LOCKER_PAYMENT_WALLET", value_name = "ADDRESS")]
    pub payment_wallet: Option<String>,
    /// The JSON-RPC endpoint that checks payments (every call times out after 5 seconds)
    #[arg(long, help_heading = PAYMENT_HEADING, env = "LOCKER_PAYMENT_RPC_URL",
        value_name = "URL",
        default_value = "https://mainnet.base.org"
    )]
    pub payment_rpc_url: String,
    /// The token contract payments are made in (default: USDC on Base)
    #[arg(long, help_heading = PAYMENT_HEADING, env = "LOCKER_PAYMENT_TOKEN", value_name = "ADDRESS", default_value = crate::domain::payment::USDC_BASE)]
    pub payment_token: String,
    /// The price of one pad in token units (USDC has 6 decimals: 2000 is 0.002 USDC)
    #[arg(long, help_heading = PAYMENT_HEADING, env = "LOCKER_PAYMENT_AMOUNT", value_name = "UNITS", default_value = "2000")]
    pub payment_amount: String,
    /// Blocks a payment needs, its own included, before it counts
    #[arg(long, help_heading = PAYMENT_HEADING, env = "LOCKER_PAYMENT_CONFIRMATIONS", value_name = "N", default_value_t = 2)]
    pub payment_confirmations: u64,
    /// The chain id the RPC node must be on (8453 is Base)
    #[arg(long, help_heading = PAYMENT_HEADING, env = "LOCKER_PAYMENT_CHAIN_ID", value_name = "ID", default_value_t = crate::domain::payment::BASE_CHAIN_ID)]
    pub payment_chain_id: u64,
}

/// The `--help` section of the pay-per-pad options (the skill lists only `--payment-mode`).
pub const PAYMENT_HEADING: &str = "Pay-per-pad";

/// Whether pad creation is paid for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PaymentMode {
    /// Free pads, as without payments
    Off,
    /// Each pad needs the hash of an on-chain token transfer to the wallet
    Txid,
}

pub fn run(ctx: &mut CommandCtx, a: &ServeArgs) -> CmdResult {
    // Refused before anything is opened or created.
    if !a.listen.ip().is_loopback() && !a.allow_remote_http {
        return Err(OpError::usage(format!(
            "refusing to listen on {}: it is not a loopback address, and locker serves plain HTTP",
            a.listen
        ))
        .hint("Listen on 127.0.0.1 (the default), or pass `--allow-remote-http` and put a TLS proxy in front.")
        .into());
    }
    let ui_token = a.ui_token_file.as_deref().map(read_ui_token).transpose()?;
    let payment = match a.payment_mode {
        PaymentMode::Off => None,
        PaymentMode::Txid => Some(PaymentConfig::new(
            a.payment_wallet.as_deref(),
            &a.payment_rpc_url,
            &a.payment_token,
            &a.payment_amount,
            a.payment_confirmations,
            a.payment_chain_id,
        )?),
    };
    let mcp_tools = crate::mcp::ToolSelection::default()
        .with_toolsets(a.mcp_toolsets.iter().map(String::as_str))?
        .read_only(a.mcp_read_only);
    crate::mcp::check_selection(&mcp_tools)?;
    let store_at = a.store.location()?;
    let mut repo = if let (Some(loc), false) = (&store_at, a.init) {
        // Served straight from the shared database: no `.locker/` needed.
        let root = match &ctx.global.repo {
            Some(p) => p.clone(),
            None => std::env::current_dir().map_err(|e| {
                OpError::unavailable(format!("cannot read the current directory: {e}"))
            })?,
        };
        Repo::open_store(&root, loc).map_err(OpError::from)?
    } else if a.init {
        let root = match &ctx.global.repo {
            Some(p) => p.clone(),
            None => std::env::current_dir().map_err(|e| {
                OpError::unavailable(format!("cannot read the current directory: {e}"))
            })?,
        };
        let (outcome, repo) = ops::admin::init::init_with(&root, ctx.clock(), store_at.as_ref())?;
        if outcome.created {
            tracing::info!(
                "locker: created the repository {} ({})",
                outcome.path.display(),
                outcome.repository_id
            );
        }
        repo
    } else {
        Repo::open(&ctx.location()?).map_err(OpError::from)?
    };
    let listener = std::net::TcpListener::bind(a.listen).map_err(|e| {
        OpError::unavailable(format!("cannot listen on {}: {e}", a.listen))
            .hint("Is another server using this port? `--listen 127.0.0.1:0` picks a free one.")
    })?;
    let metrics_listener = match a.metrics_listen {
        None => None,
        Some(addr) => Some(std::net::TcpListener::bind(addr).map_err(|e| {
            OpError::unavailable(format!("cannot listen on {addr} for metrics: {e}"))
                .hint("`--metrics-listen 127.0.0.1:0` picks a free port.")
        })?),
    };
    // Held while the server runs: `restore --yes` refuses to replace a served repository.
    let _serving =
        if repo.dot.is_dir() { Some(ops::admin::serving::hold(&repo.dot)?) } else { None };
    let clock = ctx.shared_clock();
    // The log this server signs while it holds the turn to sign (see ops::log::signer): with
    // the repository's key, the key file of `--log-key`, or (a host with neither) none, serving
    // what the signer stored.
    let log = ops::log::LogIdentity::new(&repo.dot, &repo.config)
        .with_key_file(ctx.global.log_key.as_deref())
        .keeping_turn();
    {
        let mut octx = ops::Ctx::new(repo.store.as_mut(), Actor::operator(), clock.as_ref());
        octx.settings = ctx.settings();
        ops::pad::seed_demo(&mut octx)?;
        // The turn to sign, unless another host holds it; a key that is not the log's is
        // refused here, before the server answers anything. Whatever is committed (the demo
        // pad, writes while no server ran) is signed before the first request: requests never
        // sign.
        ops::log::signer::hold(&mut octx, &log)?;
        ops::log::checkpoint::publish(&mut octx, &log)?;
    }
    if !log.has_key() {
        tracing::info!(
            "no log key here (no .locker/keys/log.key, no --log-key): checkpoints are those the \
             signing host stored"
        );
    }
    if !a.listen.ip().is_loopback() {
        tracing::warn!(
            "listening on the non-loopback address {}: traffic is plain HTTP; use a TLS proxy",
            a.listen
        );
    }
    let require_token = a.require_token.unwrap_or(a.allow_remote_http);
    if a.allow_remote_http {
        if require_token {
            tracing::info!(
                "--allow-remote-http: every write route without a credential of its own, and \
                 the journal, verify, lease and pad listings, demand an agent's bearer token \
                 (--require-token is the default; --require-token=false turns it off)"
            );
        } else {
            tracing::warn!(
                "--allow-remote-http with --require-token=false: anyone who reaches this server \
                 can take leases and create pads anonymously"
            );
        }
    }
    for o in &a.allow_origins {
        let rest = o.strip_prefix("https://").or_else(|| o.strip_prefix("http://"));
        if !rest.is_some_and(|r| !r.is_empty() && !r.trim_end_matches('/').contains('/')) {
            return Err(OpError::usage(format!(
                "--allow-origin takes an origin such as https://app.example.com, not `{o}`"
            ))
            .into());
        }
    }
    for h in &a.allow_hosts {
        if h.is_empty() || h.contains(['/', ':', ' ']) {
            return Err(OpError::usage(format!(
                "--allow-host takes a host name without scheme or port, not `{h}`"
            ))
            .into());
        }
    }
    if let Some(cfg) = &payment {
        if let Err(why) = crate::rpc::probe(cfg, Duration::from_secs(5)) {
            tracing::warn!(
                "the payment RPC node at {} is not usable ({why}); paid pad creation answers \
                 502 until it is, and /health shows rpc.reachable false",
                cfg.rpc_host()
            );
        }
    }
    let url = repo.config.store_location();
    let dot = repo.dot.clone();
    let opts = ServerOptions {
        header_read_timeout: Duration::from_secs(a.header_timeout),
        body_timeout: Duration::from_secs(a.body_timeout),
        max_connections: usize::try_from(a.max_connections).unwrap_or(usize::MAX),
        max_in_flight: usize::try_from(a.max_concurrent).unwrap_or(usize::MAX),
        max_connections_per_peer: usize::try_from(a.max_connections_per_peer).unwrap_or(usize::MAX),
        max_requests_per_peer: usize::try_from(a.max_requests_per_peer).unwrap_or(usize::MAX),
        require_token,
        allow_origins: a.allow_origins.clone(),
        allow_hosts: a.allow_hosts.clone(),
        listen: Some(a.listen.ip()),
        payment,
        log: Some(log),
        witnesses: a.witnesses.clone(),
        exit_with_stdin: a.exit_with_stdin,
        data_dir: repo.dot.is_dir().then(|| repo.dot.clone()),
        mcp_tools,
        ui_token,
        ..ServerOptions::default()
    };
    let state = AppState::new(
        repo.store,
        Box::new(move || Ok(crate::store::open(&url, &dot)?)),
        clock,
        ctx.settings(),
        opts,
    );
    server::serve(listener, metrics_listener, state)
        .map_err(|e| OpError::unavailable(format!("the server failed: {e}")))?;
    Ok(ExitCode::SUCCESS)
}

/// The shortest operator token the web view takes.
const MIN_UI_TOKEN_CHARS: usize = 16;

/// Reads `--ui-token-file`: the token, without its trailing newline.
fn read_ui_token(path: &std::path::Path) -> Result<crate::domain::secret::Secret, OpError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        OpError::usage(format!("cannot read the UI token file {}: {e}", path.display()))
    })?;
    let token = text.trim_end_matches(['\n', '\r']);
    if token.chars().count() < MIN_UI_TOKEN_CHARS
        || token.chars().any(|c| c.is_control() || c.is_whitespace())
    {
        return Err(OpError::usage(format!(
            "the UI token in {} must be at least {MIN_UI_TOKEN_CHARS} characters, without spaces \
             or control characters",
            path.display()
        ))
        .hint(
            "Make one with `head -c 32 /dev/urandom | base64 > ui-token` (and keep it private).",
        ));
    }
    Ok(crate::domain::secret::Secret::new(token))
}
