//! `locker token …`.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{Args, Subcommand};

use super::{confirm, CmdResult, CommandCtx};
use crate::ops::token::{self as op, AgentList, TokenCreated, TokenRevoked};
use crate::ops::OpError;
use crate::output::{rfc3339, Render};

/// Manage agent tokens: each acts as one agent in one scope (`LOCKER_TOKEN`)
#[derive(Debug, Subcommand)]
pub enum TokenCommand {
    Create(CreateArgs),
    Revoke(RevokeArgs),
    List(ListArgs),
}

pub fn run(ctx: &mut CommandCtx, cmd: TokenCommand) -> CmdResult {
    match cmd {
        TokenCommand::Create(a) => create(ctx, &a),
        TokenCommand::Revoke(a) => revoke(ctx, &a),
        TokenCommand::List(a) => list(ctx, &a),
    }
}

/// Create an agent and print its bearer token (shown once)
///
/// Requires `--scope SCOPE`: the one scope the token acts in. Only the token's SHA-256 is
/// stored. stdout holds only the token (unless `--json`), so it can go straight to a file:
/// `(umask 077; locker token create --agent worker-a --scope demo > worker-a.token)`. Agent
/// names are never reused, even after revocation.
#[derive(Debug, Args)]
pub struct CreateArgs {
    /// The agent's name: 1–64 characters from A–Z, a–z, 0–9, `.`, `_`, `-`
    #[arg(long, value_name = "NAME")]
    pub agent: String,
}

fn create(ctx: &mut CommandCtx, a: &CreateArgs) -> CmdResult {
    let Some(scope) = ctx.global.scope.clone() else {
        return Err(OpError::usage("`--scope SCOPE` is required: the scope the token acts in")
            .hint("For example: `locker token create --agent worker-a --scope demo`.")
            .into());
    };
    let out = op::create(&mut ctx.local()?.ctx()?, &a.agent, &scope)?;
    ctx.printer.emit(&out)?;
    ctx.printer.status(format_args!(
        "Created agent {} in scope {}; keep the token: it is not shown again.",
        out.agent, out.scope
    ));
    Ok(ExitCode::SUCCESS)
}

impl Render for TokenCreated {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        writeln!(w, "{}", self.token)
    }
}

/// Revoke an agent's token for good (revoking twice changes nothing)
///
/// The token is refused from then on, also by writes that had already started; the agent's
/// name is never reused. On a terminal you are asked first (the default is no: exit 1, nothing
/// changed); elsewhere `--yes` is required (exit 2 without it).
#[derive(Debug, Args)]
pub struct RevokeArgs {
    /// The agent's name
    #[arg(long, value_name = "NAME")]
    pub agent: String,
    /// Revoke without asking (required when stdin or stderr is not a terminal)
    #[arg(short, long)]
    pub yes: bool,
}

fn revoke(ctx: &mut CommandCtx, a: &RevokeArgs) -> CmdResult {
    confirm::operator_only(ctx, "revoke tokens")?;
    confirm::confirm(
        ctx,
        &format!(
            "Agent {} loses its token for good: it is refused from now on, also by writes \
             already under way, and the name is never reused.",
            a.agent
        ),
        a.yes,
    )?;
    let out = op::revoke(&mut ctx.local()?.ctx()?, &a.agent)?;
    ctx.printer.emit(&out)?;
    Ok(ExitCode::SUCCESS)
}

impl Render for TokenRevoked {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        if self.already_revoked {
            writeln!(w, "agent {} was already revoked", self.agent)
        } else {
            writeln!(w, "revoked agent {}", self.agent)
        }
    }
}

/// List agents with their scopes and states (never their tokens)
///
/// The operator sees every agent; an agent sees those of its own scope.
#[derive(Debug, Args)]
pub struct ListArgs {}

fn list(ctx: &mut CommandCtx, _a: &ListArgs) -> CmdResult {
    let out = op::list(&mut ctx.local()?.ctx()?)?;
    ctx.printer.emit(&out)?;
    Ok(ExitCode::SUCCESS)
}

impl Render for AgentList {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        for a in &self.agents {
            write!(
                w,
                "{:<24} {:<24} {:<8} created {}",
                a.agent,
                a.scope,
                a.state.as_str(),
                rfc3339(a.created_at)
            )?;
            match a.revoked_at {
                Some(at) => writeln!(w, ", revoked {}", rfc3339(at))?,
                None => writeln!(w)?,
            }
        }
        Ok(())
    }
}
