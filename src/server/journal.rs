//! The journal and the whole repository's verification: `GET /v1/journal` (a page of
//! entries) and `GET /v1/verify` (what `locker verify` reports).

use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;

use super::caller::act;
use super::http::{self, Query};
use super::AppState;
use crate::api::{Locker as _, VerifyRepository};
use crate::ops::verify::parse_expected_head;
use crate::ops::{NoProgress, OpError};
use crate::store::JournalQuery;

/// `GET /v1/journal?kind=&subject=&actor=&scope=&after=&before=&since=&until=&limit=&reverse=`:
/// a page of the journal, newest first unless `reverse` (`since`/`until`: Unix seconds).
pub async fn page(
    State(s): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Response {
    let q = Query::parse(raw.as_deref());
    let query = (|| {
        Ok::<_, OpError>(JournalQuery {
            kind: q.get("kind").map(str::to_owned),
            subject: q.get("subject").map(str::to_owned),
            actor: q.get("actor").map(str::to_owned),
            scope: q.get("scope").map(str::to_owned),
            after: q.unsigned("after")?,
            before: q.unsigned("before")?,
            since: q.int("since")?,
            until: q.int("until")?,
            ascending: q.flag("reverse"),
            limit: q.unsigned("limit")?.unwrap_or(50),
            skip_appends: false,
        })
    })();
    let query = match query {
        Ok(q) => q,
        Err(e) => return http::error_response(&e),
    };
    http::respond(200, act(&s, &headers, move |ctx| ctx.journal(&query)).await)
}

/// `GET /v1/verify?expect_head=&require_signed=&require_self_keys=`: the whole repository, like
/// `locker verify`.
/// The report's `ok` says whether everything is intact; the status is 200 either way.
pub async fn verify(
    State(s): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Response {
    let q = Query::parse(raw.as_deref());
    let expect_head = match q.get("expect_head").map(parse_expected_head).transpose() {
        Ok(e) => e,
        Err(e) => return http::error_response(&e),
    };
    let r = VerifyRepository {
        expect_head,
        require_signed: q.flag("require_signed"),
        require_self_keys: q.flag("require_self_keys"),
    };
    http::respond(200, act(&s, &headers, move |ctx| ctx.verify(r, &NoProgress)).await)
}
