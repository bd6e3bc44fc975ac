//! `GET /v1/keys`: the registered agent keys, the repository id and the signing policy.

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;

use super::http::{self, anonymous};
use super::AppState;
use crate::api::Locker as _;

/// `GET /v1/keys` (public; with a bearer token, `scope` is the token's scope): what a client
/// needs to sign its writes.
pub async fn list(State(s): State<AppState>, headers: HeaderMap) -> Response {
    let result = match http::bearer_token(&headers) {
        Some(t) => s.run_as_token(t, |ctx| ctx.key_list()).await,
        None => s.run(anonymous(), |ctx| ctx.key_list()).await,
    };
    http::respond(200, result)
}
