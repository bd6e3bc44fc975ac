//! `GET /v1/keys`: the registered agent keys, the repository id and the signing policy;
//! `POST /v1/keys`: an agent registers (or rotates) its own key with its token.

use axum::body::Body;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;

use super::http::{self, anonymous, read_body};
use super::{wire, AppState};
use crate::api::wire::RegisterKeyRequest;
use crate::api::{Locker as _, RegisterKey};
use crate::domain::limits::MAX_JSON_BODY_BYTES;
use crate::ops::OpError;

/// `GET /v1/keys` (public; with a bearer token, `scope` is the token's scope): what a client
/// needs to sign its writes.
pub async fn list(State(s): State<AppState>, headers: HeaderMap) -> Response {
    let result = match http::bearer_token(&headers) {
        Some(t) => s.run_as_token(t, |ctx| ctx.key_list()).await,
        None => s.run(anonymous(), |ctx| ctx.key_list()).await,
    };
    http::respond(200, result)
}

/// `POST /v1/keys {"public_key", "rotation_signature"?}` with the agent's bearer token: the
/// agent registers its own verifier key (made where it runs: `locker key new`), or rotates to
/// one with its current key's signature. 201 with the registration; 401 without a token.
pub async fn register(State(s): State<AppState>, headers: HeaderMap, body: Body) -> Response {
    let Some(token) = http::bearer_token(&headers) else {
        return http::error_response(
            &OpError::unauthorized("registering a key needs the agent's token")
                .hint("Send `Authorization: Bearer <the agent's token>`."),
        );
    };
    let raw = match read_body(&headers, body, MAX_JSON_BODY_BYTES, s.options().body_timeout).await {
        Ok(b) => b,
        Err(e) => return http::body_error(e, |_| wire::json_body_too_large()),
    };
    let req: RegisterKeyRequest = match serde_json::from_slice(&raw) {
        Ok(r) => r,
        Err(e) => {
            return http::error_response(
                &OpError::unprocessable(format!("invalid request body: {e}"))
                    .hint("Send {\"public_key\": \"<agent>+<key id>+<base64>\"}."),
            )
        }
    };
    let result = s
        .write_as_token(token, move |ctx| {
            ctx.key_register(RegisterKey {
                public_key: &req.public_key,
                rotation_signature: req.rotation_signature.as_deref(),
            })
        })
        .await;
    http::respond(201, result)
}
