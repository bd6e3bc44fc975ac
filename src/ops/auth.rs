//! Who acts: a presented token is turned into an [`Actor`] ([`authenticate`], [`actor_for`]),
//! and that actor is re-checked inside every transaction that acts for it ([`authorize`]), so a
//! token revoked after authentication is refused by every write that starts after the
//! revocation commits. Some operations are the operator's alone ([`operator_only`]).

use crate::domain::secret::Secret;
use crate::domain::token::{self, InvalidName};
use crate::ops::{Actor, ErrorKind, OpError, OpResult};
use crate::store::{Store, Tx};

/// An agent or scope name that is not valid.
pub(crate) fn invalid(e: &InvalidName) -> OpError {
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
