//! Who acts on the routes that take an agent's bearer token: the token's agent, or, when the
//! request sends none and the server does not run with `--require-token`, an anonymous caller
//! (`anonymous` in the journal, in the `default` scope).

use axum::http::HeaderMap;

use super::http::{self, anonymous};
use super::AppState;
use crate::domain::secret::Secret;
use crate::ops::{self, OpError, OpResult};

/// The caller's bearer token; `None` to act anonymously (refused with `--require-token`).
pub fn caller(s: &AppState, headers: &HeaderMap) -> OpResult<Option<Secret>> {
    match http::bearer_token(headers) {
        Some(t) => Ok(Some(t)),
        None if s.options().require_token => Err(OpError::unauthorized(
            "this server requires an agent's bearer token on this route",
        )
        .hint("Send `Authorization: Bearer TOKEN` (remote CLI: set `LOCKER_TOKEN`); `locker token create` makes one.")),
        None => Ok(None),
    }
}

/// Runs `f` as the token's agent, or anonymously when no token is sent and none is required.
pub async fn act<T, F>(s: &AppState, headers: &HeaderMap, f: F) -> OpResult<T>
where
    T: Send + 'static,
    F: FnOnce(&mut ops::Ctx<'_>) -> OpResult<T> + Send + 'static,
{
    act_as(s, caller(s, headers)?, f).await
}

/// Like [`act`], for an operation that writes: it runs in the writer's next group commit.
pub async fn act_write<T, F>(s: &AppState, headers: &HeaderMap, f: F) -> OpResult<T>
where
    T: Send + 'static,
    F: FnMut(&mut ops::Ctx<'_>) -> OpResult<T> + Send + 'static,
{
    act_write_as(s, caller(s, headers)?, f).await
}

/// [`act`] for the caller [`caller`] found: as the token's agent, or anonymously.
pub async fn act_as<T, F>(s: &AppState, token: Option<Secret>, f: F) -> OpResult<T>
where
    T: Send + 'static,
    F: FnOnce(&mut ops::Ctx<'_>) -> OpResult<T> + Send + 'static,
{
    match token {
        Some(t) => s.run_as_token(t, f).await,
        None => s.run(anonymous(), f).await,
    }
}

/// [`act_write`] for the caller [`caller`] found: as the token's agent, or anonymously.
pub async fn act_write_as<T, F>(s: &AppState, token: Option<Secret>, f: F) -> OpResult<T>
where
    T: Send + 'static,
    F: FnMut(&mut ops::Ctx<'_>) -> OpResult<T> + Send + 'static,
{
    match token {
        Some(t) => s.write_as_token(t, f).await,
        None => s.write(anonymous(), f).await,
    }
}
