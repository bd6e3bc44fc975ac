//! The journal as a transparency log over HTTP: the latest signed checkpoint, the verifier
//! key, and inclusion and consistency proofs (the same operations as `locker checkpoint`,
//! `locker key show` and `locker proof`).

use axum::extract::{RawQuery, State};
use axum::response::Response;

use super::http::{self, Query};
use super::pads::anonymous;
use super::AppState;
use crate::ops::tlog::{self, LogIdentity, Target};
use crate::ops::OpError;

fn log(s: &AppState) -> Result<LogIdentity, Response> {
    s.options().log.clone().ok_or_else(|| {
        http::error_response(&OpError::not_found("this server keeps no transparency log"))
    })
}

fn unsigned(q: &Query, name: &str) -> Result<Option<u64>, OpError> {
    q.int(name)?
        .map(|v| {
            u64::try_from(v).map_err(|_| {
                OpError::bad_request(format!("query parameter `{name}` must not be negative"))
            })
        })
        .transpose()
}

/// `GET /v1/checkpoint`: the latest signed checkpoint (signing one if the journal grew, then
/// collecting the configured witnesses' cosignatures on it).
pub async fn checkpoint(State(s): State<AppState>) -> Response {
    let log = match log(&s) {
        Ok(l) => l,
        Err(r) => return r,
    };
    let witnesses = s.options().witnesses.clone();
    if witnesses.is_empty() {
        return http::respond(
            200,
            s.run(anonymous(), move |ctx| tlog::checkpoint(ctx, &log)).await,
        );
    }
    // A newly signed checkpoint is sent to the witnesses; one they already cosigned is not.
    let result = s
        .run(anonymous(), move |ctx| {
            let cp = tlog::checkpoint(ctx, &log)?;
            if !cp.signed_now {
                return Ok(cp);
            }
            Ok(crate::ops::cosign::collect(ctx, &log, &witnesses)?.checkpoint)
        })
        .await;
    http::respond(200, result)
}

/// `GET /v1/key`: the log's verifier key.
pub async fn key(State(s): State<AppState>) -> Response {
    let log = match log(&s) {
        Ok(l) => l,
        Err(r) => return r,
    };
    http::respond(200, s.run(anonymous(), move |_| tlog::key(&log)).await)
}

/// `GET /v1/proof/inclusion?seq=N` or `?pad=ID&block=N`: an inclusion proof in the latest
/// checkpoint.
pub async fn inclusion(State(s): State<AppState>, RawQuery(raw): RawQuery) -> Response {
    let log = match log(&s) {
        Ok(l) => l,
        Err(r) => return r,
    };
    let q = Query::parse(raw.as_deref());
    let target = (|| {
        Ok::<_, OpError>(match (q.get("pad"), unsigned(&q, "block")?, unsigned(&q, "seq")?) {
            (Some(pad), Some(block), None) => Target::Block { pad_id: pad.to_owned(), seq: block },
            (None, None, Some(seq)) => Target::Entry(seq),
            _ => return Err(OpError::bad_request("give either `seq`, or `pad` and `block`")),
        })
    })();
    let target = match target {
        Ok(t) => t,
        Err(e) => return http::error_response(&e),
    };
    let result = s.run(anonymous(), move |ctx| tlog::prove_inclusion(ctx, &log, &target)).await;
    http::respond(200, result)
}

/// `GET /v1/proof/consistency?old=M&new=N`: a consistency proof between two signed
/// checkpoints (`new` defaults to the whole journal).
pub async fn consistency(State(s): State<AppState>, RawQuery(raw): RawQuery) -> Response {
    let log = match log(&s) {
        Ok(l) => l,
        Err(r) => return r,
    };
    let q = Query::parse(raw.as_deref());
    let sizes = (|| Ok::<_, OpError>((unsigned(&q, "old")?, unsigned(&q, "new")?)))();
    let (old, new) = match sizes {
        Ok((Some(old), new)) => (old, new),
        Ok((None, _)) => {
            return http::error_response(&OpError::bad_request("query parameter `old` is required"))
        }
        Err(e) => return http::error_response(&e),
    };
    let result = s.run(anonymous(), move |ctx| tlog::prove_consistency(ctx, &log, old, new)).await;
    http::respond(200, result)
}

/// `GET /v1/pads/{pad_id}/log-proofs?blocks=N`: the latest signed checkpoint and the inclusion
/// proofs of the journal entries that recorded blocks `0..N` of the pad (default: all), as a
/// bundle carries them.
pub async fn pad_log_proofs(
    State(s): State<AppState>,
    axum::extract::Path(id): axum::extract::Path<String>,
    RawQuery(raw): RawQuery,
) -> Response {
    let log = match log(&s) {
        Ok(l) => l,
        Err(r) => return r,
    };
    let q = Query::parse(raw.as_deref());
    let blocks = match unsigned(&q, "blocks") {
        Ok(b) => b,
        Err(e) => return http::error_response(&e),
    };
    let result = s
        .run(anonymous(), move |ctx| {
            let n = match blocks {
                Some(n) => n,
                None => {
                    let tx = ctx.store.read()?;
                    tx.pad(&id)?.ok_or_else(|| OpError::not_found("pad not found"))?.block_count
                }
            };
            let seqs: Vec<u64> = (0..n.min(4096)).collect();
            crate::ops::bundle::log_proofs(ctx, &log, &id, &seqs)
        })
        .await;
    http::respond(200, result)
}
