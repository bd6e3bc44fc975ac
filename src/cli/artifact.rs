//! `locker artifact …`.

use std::ffi::OsString;
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};

use super::input::read_payload;
use super::{CmdResult, CommandCtx};
use crate::api::{ArtifactHistory, GetArtifact, ListArtifacts};
use crate::domain::artifact::{InvalidInput, MAX_CONTENT_BYTES};
use crate::ops::artifact::{
    self as op, ArtifactList, ArtifactLog, ArtifactView, PublishRequest, Published,
};
use crate::ops::{ErrorKind, OpError};
use crate::output::{rfc3339, Render};

/// Publish and read versioned artifacts (compare-and-swap, idempotent retries)
#[derive(Debug, Subcommand)]
pub enum ArtifactCommand {
    Publish(PublishArgs),
    Get(GetArgs),
    Log(LogArgs),
    List(ListArgs),
}

pub fn run(ctx: &mut CommandCtx, cmd: ArtifactCommand) -> CmdResult {
    match cmd {
        ArtifactCommand::Publish(a) => publish(ctx, &a),
        ArtifactCommand::Get(a) => get(ctx, &a),
        ArtifactCommand::Log(a) => log(ctx, &a),
        ArtifactCommand::List(a) => list(ctx, &a),
    }
}

fn invalid(detail: impl Into<String>) -> OpError {
    OpError::new(ErrorKind::BadRequest, "invalid", detail)
}

/// A key from the command line: non-UTF-8 is invalid input (exit 6), not a usage error.
fn key_arg(key: &OsString) -> Result<String, OpError> {
    key.to_str().map(str::to_owned).ok_or_else(|| invalid(InvalidInput::KeyLength.to_string()))
}

fn int_arg(value: &str, what: &str) -> Result<i64, OpError> {
    value.trim().parse().map_err(|_| invalid(format!("{what} must be an integer, got `{value}`")))
}

/// Publish a new version of KEY, if its current version is still the one you read
///
/// `--expect N` names the version you read (0 to create KEY); `--op ID` names this operation.
/// Repeating the identical request with the same `--op` returns the original result with
/// `replayed: true`, even after newer versions; the same `--op` with a different request is an
/// `operation_conflict`; a stale `--expect` is a `version_conflict` carrying the current version
/// (both exit 4). Content (up to 1 MiB, text or bytes) comes from FILE, `-` (stdin), `--data`,
/// or stdin when it is not a terminal.
#[derive(Debug, Args)]
#[command(after_long_help = "Examples:
  locker artifact publish notes/summary.md summary.md --expect 0 --op draft-1
  locker artifact publish notes/summary.md --data 'second draft' --expect 1 --op draft-2")]
pub struct PublishArgs {
    /// The artifact's key: a relative path such as `notes/summary.md` (1–512 bytes)
    #[arg(add = super::complete::artifact_keys())]
    pub key: OsString,
    /// Read the content from FILE (`-` for stdin)
    #[arg(value_name = "FILE", conflicts_with = "data")]
    pub file: Option<PathBuf>,
    /// Use TEXT as the content
    #[arg(short, long, value_name = "TEXT")]
    pub data: Option<OsString>,
    /// The version you read and are replacing: 0 to create the key
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub expect: String,
    /// This operation's id (1–128 bytes): reuse it only to retry the identical request
    #[arg(long = "op", value_name = "ID")]
    pub op: OsString,
    /// Publish under the lease with fencing token TOKEN on work item WORK: refused with exit 4
    /// (`stale_fence`) once a newer lease exists on WORK
    #[arg(long, value_name = "WORK:TOKEN")]
    pub fence: Option<String>,
    #[command(flatten)]
    pub sign: super::input::SignArgs,
}

fn publish(ctx: &mut CommandCtx, a: &PublishArgs) -> CmdResult {
    let key = key_arg(&a.key)?;
    let op_id =
        a.op.to_str().ok_or_else(|| invalid(InvalidInput::OpIdLength.to_string()))?.to_owned();
    let expected_version = int_arg(&a.expect, "expected version")?;
    let content = match &a.data {
        Some(d) => d.as_bytes().to_vec(),
        None => read_payload(a.file.as_deref(), MAX_CONTENT_BYTES)?,
    };
    let fence = a.fence.as_deref().map(crate::ops::work::lease::parse_fence).transpose()?;
    let signing = a.sign.signing()?;
    let req = PublishRequest {
        key: &key,
        expected_version,
        op_id: &op_id,
        content: &content,
        fence: fence.as_ref(),
        signing: signing.as_ref(),
    };
    let out = ctx.locker()?.artifact_publish(req)?;
    ctx.printer.emit(&PublishOutput::of(out))?;
    Ok(ExitCode::SUCCESS)
}

/// What `locker artifact publish` prints: the version written under `artifact`, with
/// `replayed` (the shape HTTP and MCP answer a publish with), and its metadata flat as well,
/// as `artifact get` and every other write print theirs (`jq .version` reads them alike). The
/// content is not repeated.
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub struct PublishOutput {
    #[serde(flatten)]
    pub published: Published,
    pub scope: String,
    pub key: String,
    pub version: u64,
    pub sha256: crate::domain::digest::Digest,
    pub size: u64,
    pub actor: String,
    pub op_id: String,
    /// When this version was published (Unix seconds).
    pub updated_at: i64,
}

impl PublishOutput {
    fn of(published: Published) -> Self {
        let a = published.artifact.clone();
        Self {
            published,
            scope: a.scope,
            key: a.key,
            version: a.version,
            sha256: a.sha256,
            size: a.size,
            actor: a.actor,
            op_id: a.op_id,
            updated_at: a.updated_at,
        }
    }
}

impl Render for PublishOutput {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        let a = &self.published.artifact;
        if self.published.replayed {
            writeln!(
                w,
                "replayed {} version {} (sha256 {}): this operation was already published; \
                 nothing new was written",
                a.key, a.version, a.sha256
            )
        } else {
            writeln!(w, "published {} version {} (sha256 {})", a.key, a.version, a.sha256)
        }
    }
}

/// Print KEY's current content, or that of one version
///
/// The content's exact bytes go to stdout; `--json` gives the version's fields instead, with
/// the content as text (`content`) or, when it is not UTF-8, as base64 (`content_b64`). The
/// content is re-hashed first: content that does not match its SHA-256 is never printed.
#[derive(Debug, Args)]
pub struct GetArgs {
    /// The artifact's key
    #[arg(add = super::complete::artifact_keys())]
    pub key: OsString,
    /// Read this version instead of the current one
    #[arg(long, value_name = "V", allow_negative_numbers = true)]
    pub version: Option<String>,
}

fn get(ctx: &mut CommandCtx, a: &GetArgs) -> CmdResult {
    let key = key_arg(&a.key)?;
    let version = a.version.as_deref().map(|v| int_arg(v, "version")).transpose()?;
    let out = ctx.locker()?.artifact_get(GetArtifact { key: &key, version })?;
    if ctx.printer.is_json() {
        ctx.printer.emit(&out)?;
    } else {
        ctx.printer.raw(&out.bytes())?;
    }
    Ok(ExitCode::SUCCESS)
}

impl Render for ArtifactView {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        w.write_all(&self.bytes())
    }
}

/// Show every version of KEY, oldest first
#[derive(Debug, Args)]
pub struct LogArgs {
    /// The artifact's key
    #[arg(add = super::complete::artifact_keys())]
    pub key: OsString,
    /// Only versions after V
    #[arg(long, value_name = "V", default_value_t = 0)]
    pub after: u64,
    /// Show at most N versions (1–10000)
    #[arg(short = 'n', long, value_name = "N", default_value_t = op::MAX_LIST_LIMIT)]
    pub limit: u64,
}

fn log(ctx: &mut CommandCtx, a: &LogArgs) -> CmdResult {
    let key = key_arg(&a.key)?;
    let out = ctx.locker()?.artifact_log(ArtifactHistory {
        key: &key,
        after: a.after,
        limit: a.limit,
    })?;
    ctx.printer.emit(&out)?;
    Ok(ExitCode::SUCCESS)
}

impl Render for ArtifactLog {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        for v in &self.versions {
            writeln!(
                w,
                "{:>6}  {}  {:>8} bytes  {}  {}  op {}{}",
                v.version,
                rfc3339(v.updated_at),
                v.size,
                &v.sha256.to_hex()[..12],
                v.actor,
                v.op_id,
                if v.version == self.current_version { "  (current)" } else { "" }
            )?;
        }
        Ok(())
    }
}

/// List the keys of your scope with their current versions
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Only keys that sort after KEY (for paging)
    #[arg(long, value_name = "KEY")]
    pub after: Option<String>,
    /// Show at most N keys (1–10000)
    #[arg(short = 'n', long, value_name = "N", default_value_t = 1000)]
    pub limit: u64,
}

fn list(ctx: &mut CommandCtx, a: &ListArgs) -> CmdResult {
    let out =
        ctx.locker()?.artifact_list(ListArtifacts { after: a.after.as_deref(), limit: a.limit })?;
    ctx.printer.emit(&out)?;
    Ok(ExitCode::SUCCESS)
}

impl Render for ArtifactList {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        for s in &self.artifacts {
            writeln!(
                w,
                "{}  v{}  {} bytes  {}  {}",
                s.key,
                s.version,
                s.size,
                rfc3339(s.updated_at),
                s.actor
            )?;
        }
        Ok(())
    }
}
