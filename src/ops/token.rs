//! Agent tokens: the operator creates and revokes them; an agent acts with one, in its scope.
//!
//! Only a token's SHA-256 is stored. A revoked agent's row is kept, so its name is never reused.
//! Who a presented token acts as is decided in [`crate::ops::auth`].

use serde::{Deserialize, Serialize};

use crate::domain::digest::Digest;
use crate::domain::event::{TokenCreate, TokenRevoke};
use crate::domain::token::{self};
use crate::ops::auth::{authorize, invalid, operator_only};
use crate::ops::log::journal;
use crate::ops::{Actor, Ctx, ErrorKind, OpError, OpResult};
use crate::store::{AgentRow, Flow};

/// A new agent and its token, shown once.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TokenCreated {
    pub agent: String,
    pub scope: String,
    pub token: String,
    /// The token's SHA-256: what is stored, and how `locker log` refers to it.
    pub token_id: Digest,
    pub created_at: i64,
}

/// A revoked agent.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TokenRevoked {
    pub agent: String,
    pub scope: String,
    pub revoked_at: i64,
    /// `true` when it had been revoked before (nothing changed).
    pub already_revoked: bool,
}

/// Whether an agent's token still works.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AgentState {
    Active,
    Revoked,
}

impl AgentState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Active => "active",
            Self::Revoked => "revoked",
        }
    }
}

/// An agent as listed (never its token).
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AgentView {
    pub agent: String,
    pub scope: String,
    pub state: AgentState,
    pub token_id: Digest,
    pub created_at: i64,
    pub revoked_at: Option<i64>,
}

/// The agents an actor may see.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AgentList {
    pub agents: Vec<AgentView>,
}

/// Creates an agent in `scope` with a new token (operator only). A name that exists, active or
/// revoked, is a conflict: names are never reused.
pub fn create(ctx: &mut Ctx<'_>, agent: &str, scope: &str) -> OpResult<TokenCreated> {
    operator_only(&ctx.actor, "create tokens")?;
    token::check_agent(agent).map_err(|e| invalid(&e))?;
    token::check_scope(scope).map_err(|e| invalid(&e))?;
    let now = ctx.now();
    let secret = token::generate();
    let row = AgentRow {
        name: agent.to_owned(),
        scope: scope.to_owned(),
        token_hash: secret.digest(),
        created_at: now,
        revoked_at: None,
    };
    let mut tx = ctx.store.write()?;
    if tx.agent(agent)?.is_some() {
        return Err(OpError::new(
            ErrorKind::Conflict,
            "agent_exists",
            "agent ID already exists; use a new identity",
        )
        .hint("Agent names are never reused, even after revocation; pick a new name."));
    }
    tx.insert_agent(&row)?;
    journal::append(
        tx.as_mut(),
        &Actor::operator_in(scope),
        now,
        TokenCreate { agent: agent.to_owned(), scope: scope.to_owned(), token_id: row.token_hash },
    )?;
    tx.commit()?;
    Ok(TokenCreated {
        agent: row.name,
        scope: row.scope,
        token: secret.expose().to_owned(),
        token_id: row.token_hash,
        created_at: now,
    })
}

/// Revokes an agent's token for good (operator only); revoking it again changes nothing.
pub fn revoke(ctx: &mut Ctx<'_>, agent: &str) -> OpResult<TokenRevoked> {
    operator_only(&ctx.actor, "revoke tokens")?;
    token::check_agent(agent).map_err(|e| invalid(&e))?;
    let now = ctx.now();
    let mut tx = ctx.store.write()?;
    let mut row = tx.agent(agent)?.ok_or_else(|| {
        OpError::not_found("agent not found").hint("`locker token list` shows the agents.")
    })?;
    if let Some(at) = row.revoked_at {
        return Ok(TokenRevoked {
            agent: row.name,
            scope: row.scope,
            revoked_at: at,
            already_revoked: true,
        });
    }
    row.revoked_at = Some(now);
    tx.update_agent(&row)?;
    journal::append(
        tx.as_mut(),
        &Actor::operator_in(&row.scope),
        now,
        TokenRevoke { agent: agent.to_owned(), scope: row.scope.clone(), token_id: row.token_hash },
    )?;
    tx.commit()?;
    Ok(TokenRevoked { agent: row.name, scope: row.scope, revoked_at: now, already_revoked: false })
}

/// Lists agents: all of them for the operator, those of its own scope for an agent.
pub fn list(ctx: &mut Ctx<'_>) -> OpResult<AgentList> {
    let actor = ctx.actor.clone();
    let tx = ctx.store.read()?;
    authorize(tx.as_ref(), &actor)?;
    let mut agents = Vec::new();
    tx.for_each_agent(&mut |a| {
        if actor.is_operator() || a.scope == actor.scope {
            agents.push(AgentView {
                agent: a.name,
                scope: a.scope,
                state: if a.revoked_at.is_some() {
                    AgentState::Revoked
                } else {
                    AgentState::Active
                },
                token_id: a.token_hash,
                created_at: a.created_at,
                revoked_at: a.revoked_at,
            });
        }
        Flow::Continue(())
    })?;
    Ok(AgentList { agents })
}
