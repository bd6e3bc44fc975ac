//! `locker witness …`: a C2SP tlog-witness that cosigns the checkpoints of the logs it follows.

use std::io::{self, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Subcommand};

use super::{CmdResult, CommandCtx};
use crate::ops::OpError;
use crate::output::Render;
use crate::witness::{self as w, WitnessInitialized};

/// Run a witness: cosign the checkpoints of logs it follows, never two inconsistent ones
#[derive(Debug, Subcommand)]
pub enum WitnessCommand {
    Init(InitArgs),
    Serve(ServeArgs),
    Show(ShowArgs),
}

pub fn run(ctx: &mut CommandCtx, cmd: WitnessCommand) -> CmdResult {
    match cmd {
        WitnessCommand::Init(a) => init(ctx, &a),
        WitnessCommand::Serve(a) => serve(ctx, &a),
        WitnessCommand::Show(a) => show(ctx, &a),
    }
}

/// Show a witness's state: its key, and per followed log the newest checkpoint it cosigned
///
/// For each log: its origin and verifier key, the size and root of the newest checkpoint the
/// witness cosigned and when, how many inconsistent checkpoints it refused and kept as
/// evidence, and the path where `locker witness serve` publishes that checkpoint for readers
/// to compare (`GET /<sha256 of the origin>/checkpoint`). Reads the state only; safe while the
/// witness serves.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The witness directory (from `locker witness init`)
    pub dir: PathBuf,
}

fn show(ctx: &mut CommandCtx, a: &ShowArgs) -> CmdResult {
    let out = w::Witness::open(&a.dir)?.show(&a.dir)?;
    ctx.printer.emit(&out)?;
    Ok(ExitCode::SUCCESS)
}

impl Render for w::WitnessShown {
    fn render_human(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "witness: {} ({})", self.name, self.dir.display())?;
        writeln!(out, "key:     {}", self.vkey)?;
        if self.logs.is_empty() {
            writeln!(out, "follows no log (add `log <verifier key>` lines to its `logs` file)")?;
        }
        for l in &self.logs {
            writeln!(out, "log {}", l.origin)?;
            writeln!(out, "  key:        {}", l.vkey)?;
            match (l.size, l.root, l.cosigned_at) {
                (Some(size), Some(root), Some(at)) => writeln!(
                    out,
                    "  cosigned:   size {size}, root {root}, at {}",
                    crate::output::rfc3339(at)
                )?,
                _ => writeln!(out, "  cosigned:   nothing yet")?,
            }
            writeln!(out, "  evidence:   {} refused inconsistent checkpoint(s)", l.evidence)?;
            writeln!(out, "  monitoring: GET {}", l.monitoring_path)?;
        }
        Ok(())
    }
}

/// Create a witness in DIR: its cosigning key and the logs it follows
///
/// DIR gets `witness.key` (the Ed25519 cosigning key, mode 0600), `logs` (one `log <verifier
/// key>` line per followed log; edit it to follow more) and `state.db` (the newest checkpoint
/// cosigned per log). Prints the witness's verifier key (type 0x04, for `witness` lines of a
/// policy file).
#[derive(Debug, Args)]
pub struct InitArgs {
    /// The directory to create
    pub dir: PathBuf,
    /// The witness's name (a schema-less URL such as `witness.example.com/w1`)
    #[arg(long, value_name = "NAME")]
    pub name: String,
    /// Follow the log with this verifier key (as `locker key show` prints it); repeatable
    #[arg(long = "log", value_name = "VKEY")]
    pub logs: Vec<String>,
}

fn init(ctx: &mut CommandCtx, a: &InitArgs) -> CmdResult {
    let out = w::init(&a.dir, &a.name, &a.logs)?;
    ctx.printer.emit(&out)?;
    Ok(ExitCode::SUCCESS)
}

impl Render for WitnessInitialized {
    fn render_human(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "{}", self.vkey)
    }
}

/// Serve the witness in DIR over HTTP (`POST /add-checkpoint`) until SIGTERM or SIGINT
///
/// The C2SP tlog-witness protocol: the body is `old N`, the consistency proof lines, a blank
/// line and the signed checkpoint. 200 with a timestamped cosignature line; 409 with the size
/// the witness holds (`text/x.tlog.size`); 404 for a log it does not follow; 403 without a
/// valid signature by the log's key; 400 for a malformed request; 422 for a checkpoint
/// inconsistent with the one it cosigned (kept as evidence). The new checkpoint is stored
/// durably before the answer. One witness follows every log in its `logs` file (read at start).
///
/// Checkpoint monitoring: `GET /<hex SHA-256 of the log's origin>/checkpoint` answers the
/// newest checkpoint cosigned for that log, with the log's signature and the witness's
/// cosignature (404 before the first), so readers can compare what they were served with
/// what the witness saw.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The witness directory (from `locker witness init`)
    pub dir: PathBuf,
    /// The address to listen on
    #[arg(long, default_value = "127.0.0.1:8100", value_name = "ADDR")]
    pub listen: SocketAddr,
    /// Allow a non-loopback listen address (plain HTTP: put TLS in front)
    #[arg(long)]
    pub allow_remote_http: bool,
}

fn serve(ctx: &mut CommandCtx, a: &ServeArgs) -> CmdResult {
    if !a.listen.ip().is_loopback() && !a.allow_remote_http {
        return Err(OpError::usage(format!(
            "{} is not a loopback address; pass --allow-remote-http to serve plain HTTP on it",
            a.listen
        ))
        .into());
    }
    let witness = Arc::new(w::Witness::open(&a.dir)?);
    let listener = std::net::TcpListener::bind(a.listen)
        .map_err(|e| OpError::unavailable(format!("cannot listen on {}: {e}", a.listen)))?;
    let clock = ctx.shared_clock();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| OpError::unavailable(format!("cannot start the runtime: {e}")))?;
    rt.block_on(async move {
        use tokio::signal::unix::{signal, SignalKind};
        let mut term = signal(SignalKind::terminate())?;
        let mut int = signal(SignalKind::interrupt())?;
        let stop = async move {
            tokio::select! {
                _ = term.recv() => {},
                _ = int.recv() => {},
            }
        };
        w::run(listener, witness, clock, stop).await
    })
    .map_err(|e| OpError::unavailable(format!("the witness failed: {e}")))?;
    Ok(ExitCode::SUCCESS)
}
