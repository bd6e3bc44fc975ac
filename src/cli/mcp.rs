//! `locker mcp`.

use std::process::ExitCode;

use clap::Args;

use super::{CmdResult, CommandCtx};

/// Serve locker's operations as MCP tools over stdio, for agents
///
/// Configure an MCP client with `{"command": "locker", "args": ["mcp"]}`. The tools work on the
/// repository found like every other command's (`-R`, `LOCKER_DIR`, or the current directory
/// and its parents). The pad tools keep agent-locker's names and inputs (`locker_deposit`,
/// `locker_create`, `locker_append`, `locker_seal`, `locker_manifest`, `locker_read_blocks`);
/// read tools re-hash every block and return an integrity verdict against the head the caller
/// expects, and return no payloads when the chain is broken or the head differs. Both protocol
/// eras are served: the `initialize` handshake (2025-11-25 and earlier) and 2026-07-28's
/// `server/discover` with per-request `_meta`. stdout carries only the protocol; the server
/// exits when the client closes stdin.
///
/// With `--sign-key FILE` (or `LOCKER_SIGN_KEY`), the server signs every pad append, artifact
/// publish and step with that agent key, unless the call brings its own `signer` and
/// `signature`.
///
/// `--toolsets` and `--read-only` choose the tools it offers (all of them by default); a tool
/// not offered is neither listed nor callable.
///
/// Agents on other machines need no local binary: `locker serve` offers the same tools over
/// HTTP at `/mcp`, acting as the agent of the request's bearer token.
#[derive(Debug, Args)]
pub struct McpArgs {
    #[command(flatten)]
    pub sign: super::input::SignArgs,
    /// Offer only the tools that change nothing (their readOnlyHint is true): reading pads,
    /// artifacts, leases, plans, the journal and proofs, and verifying
    #[arg(long)]
    pub read_only: bool,
    /// Offer only these toolsets, comma-separated: pads (handoff pads and tickets), artifacts,
    /// work (leases, plans, steps), log (verify, journal, checkpoints, proofs), admin (your
    /// signing key) [default: all]
    #[arg(
        long,
        value_name = "LIST",
        value_delimiter = ',',
        value_parser = clap::builder::PossibleValuesParser::new(crate::mcp::Toolset::NAMES)
    )]
    pub toolsets: Vec<String>,
}

pub fn run(ctx: &mut CommandCtx, a: &McpArgs) -> CmdResult {
    let sign_key = match a.sign.signing()? {
        Some(crate::ops::keys::Signing::Key(k)) => Some(k),
        _ => None,
    };
    let selection = crate::mcp::ToolSelection::default()
        .with_toolsets(a.toolsets.iter().map(String::as_str))?
        .read_only(a.read_only);
    let server = crate::mcp::McpServer::new(ctx.take_session()?, sign_key, selection)?;
    crate::mcp::serve_stdio(server)?;
    Ok(ExitCode::SUCCESS)
}
