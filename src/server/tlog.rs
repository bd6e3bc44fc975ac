//! The journal as a transparency log over HTTP: the latest signed checkpoint, the verifier
//! key, and inclusion and consistency proofs (the same operations as `locker checkpoint`,
//! `locker key show` and `locker proof`). A server with no log (a database with no `.locker/`)
//! answers 404.

use axum::extract::{RawQuery, State};
use axum::response::Response;

use super::http::{self, anonymous, Query};
use super::AppState;
use crate::api::{Locker as _, ProveConsistency};
use crate::ops::log::Target;
use crate::ops::OpError;

/// `GET /v1/checkpoint`: the newest signed checkpoint, with the cosignatures the configured
/// witnesses gave it. A read never signs: the server's signer signs as the journal grows (and
/// collects the cosignatures); this waits briefly for it to cover earlier writes.
pub async fn checkpoint(State(s): State<AppState>) -> Response {
    s.caught_up().await;
    http::respond(200, s.run(anonymous(), |ctx| ctx.checkpoint()).await)
}

/// `GET /v1/key`: the log's verifier key.
pub async fn key(State(s): State<AppState>) -> Response {
    http::respond(200, s.run(anonymous(), |ctx| ctx.log_key()).await)
}

/// `GET /v1/proof/inclusion?seq=N` or `?pad=ID&block=N`: an inclusion proof in the newest
/// signed checkpoint.
pub async fn inclusion(State(s): State<AppState>, RawQuery(raw): RawQuery) -> Response {
    let q = Query::parse(raw.as_deref());
    let target = (|| {
        Ok::<_, OpError>(match (q.get("pad"), q.unsigned("block")?, q.unsigned("seq")?) {
            (Some(pad), Some(block), None) => Target::Block { pad_id: pad.to_owned(), seq: block },
            (None, None, Some(seq)) => Target::Entry(seq),
            _ => return Err(OpError::bad_request("give either `seq`, or `pad` and `block`")),
        })
    })();
    let target = match target {
        Ok(t) => t,
        Err(e) => return http::error_response(&e),
    };
    s.caught_up().await;
    http::respond(200, s.run(anonymous(), move |ctx| ctx.prove_inclusion(&target)).await)
}

/// `GET /v1/proof/consistency?old=M&new=N`: a consistency proof between two checkpoints the
/// log signed (`new` defaults to the newest); a size no checkpoint was signed at is 404.
pub async fn consistency(State(s): State<AppState>, RawQuery(raw): RawQuery) -> Response {
    let q = Query::parse(raw.as_deref());
    let sizes = (|| Ok::<_, OpError>((q.unsigned("old")?, q.unsigned("new")?)))();
    let (old, new) = match sizes {
        Ok((Some(old), new)) => (old, new),
        Ok((None, _)) => {
            return http::error_response(&OpError::bad_request("query parameter `old` is required"))
        }
        Err(e) => return http::error_response(&e),
    };
    s.caught_up().await;
    let result =
        s.run(anonymous(), move |ctx| ctx.prove_consistency(ProveConsistency { old, new })).await;
    http::respond(200, result)
}
