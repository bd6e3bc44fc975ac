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
#[derive(Debug, Args)]
pub struct McpArgs {
    #[command(flatten)]
    pub sign: super::input::SignArgs,
}

pub fn run(ctx: &mut CommandCtx, a: &McpArgs) -> CmdResult {
    let sign_key = match a.sign.signing()? {
        Some(crate::ops::keys::Signing::Key(k)) => Some(k),
        _ => None,
    };
    let server = crate::mcp::McpServer::new(ctx.take_session()?, sign_key);
    crate::mcp::serve_stdio(server)?;
    Ok(ExitCode::SUCCESS)
}
