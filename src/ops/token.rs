//! Agent tokens: the operator creates and revokes them; an agent acts with one, in its scope.
//!
//! Only a token's SHA-256 is stored. A revoked agent's row is kept, so its name is never reused.
//! [`authenticate`] turns a presented token into an [`Actor`]; [`authorize`] re-checks that
//! actor inside a transaction, so a token revoked after authentication is refused by every
//! write that starts after the revocation commits.

use serde::{Deserialize, Serialize};

use crate::domain::digest::Digest;
use crate::domain::event::{TokenCreate, TokenRevoke};
use crate::domain::secret::Secret;
use crate::domain::token::{self, InvalidName};
use crate::ops::log::journal;
use crate::ops::{Actor, Ctx, ErrorKind, OpError, OpResult};
use crate::store::{AgentRow, Flow, Store, Tx};

/// A new agent and its token, shown once.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TokenCreated {
    pub agent: String,
    pub scope: String,
    pub token: String,
    /// The token's SHA-256: what is stored, and how `locker log` refers to it.
    pub token_id: Digest,
    pub created_at: i64,
}

/// A revoked agent.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TokenRevoked {
    pub agent: String,
    pub scope: String,
    pub revoked_at: i64,
    /// `true` when it had been revoked before (nothing changed).
    pub already_revoked: bool,
}

/// Whether an agent's token still works.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AgentView {
    pub agent: String,
    pub scope: String,
    pub state: AgentState,
    pub token_id: Digest,
    pub created_at: i64,
    pub revoked_at: Option<i64>,
}

/// The agents an actor may see.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AgentList {
    pub agents: Vec<AgentView>,
}

fn invalid(e: &InvalidName) -> OpError {
    OpError::new(ErrorKind::BadRequest, "invalid", e.to_string())
}

/// Refuses an agent: `what` is the operator's alone.
pub fn operator_only(actor: &Actor, what: &str) -> OpResult<()> {
    if actor.is_operator() {
        Ok(())
    } else {
        Err(OpError::forbidden(format!("only the repository's operator can {what}"))
            .hint("Unset `LOCKER_TOKEN` to act as the operator."))
    }
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

fn revoked() -> OpError {
    OpError::unauthorized("the token has been revoked")
        .hint("Ask the operator for a token under a new agent name.")
}

/// The agent a presented token belongs to, if it is known and not revoked.
pub fn authenticate(store: &mut dyn Store, presented: &Secret) -> OpResult<Actor> {
    let tx = store.read()?;
    match tx.agent_by_token(&presented.digest())? {
        Some(a) if presented.matches(&a.token_hash) => {
            if a.revoked_at.is_some() {
                return Err(revoked());
            }
            Ok(Actor::agent(&a.name, &a.scope, a.token_hash))
        }
        _ => Err(OpError::unauthorized("unknown token")
            .hint("Check `LOCKER_TOKEN`; `locker token create` prints a token once.")),
    }
}

/// Who acts: the agent of `token` when one is presented (and `scope`, if given, must be its
/// scope), else the operator in `scope` (default `default`).
pub fn actor_for(
    store: &mut dyn Store,
    token: Option<&Secret>,
    scope: Option<&str>,
) -> OpResult<Actor> {
    if let Some(scope) = scope {
        token::check_scope(scope).map_err(|e| invalid(&e))?;
    }
    match token {
        Some(t) => {
            let actor = authenticate(store, t)?;
            match scope {
                Some(s) if s != actor.scope => Err(OpError::forbidden(format!(
                    "this token acts only in scope `{}`",
                    actor.scope
                ))
                .hint("Drop `--scope`, or unset `LOCKER_TOKEN` to act as the operator.")),
                _ => Ok(actor),
            }
        }
        None => Ok(Actor::operator_in(scope.unwrap_or(token::DEFAULT_SCOPE))),
    }
}

/// Re-checks, inside `tx`, that an agent actor's token is still the agent's, unrevoked and in
/// the actor's scope. Call it first in every transaction that acts for `actor`; the operator
/// always passes.
pub fn authorize(tx: &dyn Tx, actor: &Actor) -> OpResult<()> {
    let Some(token) = &actor.token else { return Ok(()) };
    match tx.agent(&actor.name)? {
        Some(a) if a.token_hash == *token && a.scope == actor.scope => {
            if a.revoked_at.is_some() {
                Err(revoked())
            } else {
                Ok(())
            }
        }
        _ => Err(OpError::unauthorized("the token is no longer valid")),
    }
}
