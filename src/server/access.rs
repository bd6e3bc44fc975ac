//! The access log and the request metrics: one `info` event per request (target
//! `locker::access`; `warn` when it failed on the server's side or took over
//! [`SLOW_REQUEST`]) with the method, the route template (never the raw path), the status,
//! the time and bytes it took, who acted and in which scope, and the query's parameter names
//! with no raw value; and the same request counted in [`crate::obs::metrics`].

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::HttpBody as _;
use axum::response::Response;

use super::http;
use crate::obs::metrics::metrics;
use crate::ops::Actor;

/// A request that takes longer than this is logged as a warning.
pub const SLOW_REQUEST: Duration = Duration::from_secs(1);

/// Who acted for the request being answered: set by the operation (which learns it from the
/// request's token on its own thread), read by the access log.
pub type Acting = Arc<Mutex<Option<(String, String)>>>;

tokio::task_local! {
    /// The request's [`Acting`], for the operations its handler runs.
    static ACTING: Acting;
}

/// Answers a request with `respond` while the operations it runs may say who acted.
pub async fn with_acting<F: std::future::Future>(acting: Acting, respond: F) -> F::Output {
    ACTING.scope(acting, respond).await
}

/// The request's [`Acting`], if a request is being answered (to fill from another thread).
pub fn acting() -> Option<Acting> {
    ACTING.try_with(Arc::clone).ok()
}

/// Notes that `actor` acts for the request.
pub fn note(slot: Option<&Acting>, actor: &Actor) {
    if let Some(mut a) = slot.and_then(|s| s.lock().ok()) {
        *a = Some((actor.name.clone(), actor.scope.clone()));
    }
}

/// Query parameters whose value is logged when it is an integer (as the integer it parses to,
/// never as the text sent); every other value is replaced by `***`.
const INTEGER_PARAMS: &[&str] =
    &["from", "to", "limit", "after", "before", "version", "seq", "old", "new", "blocks"];

/// Every other parameter name some route reads: shown, with its value as `***`.
const KNOWN_PARAMS: &[&str] = &[
    "ticket",
    "token",
    "key",
    "work",
    "work_ref",
    "diff",
    "state",
    "kind",
    "subject",
    "actor",
    "scope",
    "reverse",
    "format",
    "expect_head",
    "require_signed",
    "pad",
    "block",
    "session_id",
];

/// A query string as the log shows it: no raw value ever. Integer parameters show the integer
/// they parse to (so `from=0;ticket=X`, which is no integer, shows `from=***`); every other
/// value is `***`, and a name no route reads is `?` (a secret could be sent as a name).
pub fn redact_query(q: &str) -> String {
    let mut out = Vec::new();
    for (k, v) in form_urlencoded::parse(q.as_bytes()) {
        let known = INTEGER_PARAMS.contains(&k.as_ref()) || KNOWN_PARAMS.contains(&k.as_ref());
        let name = if known { k.as_ref() } else { "?" };
        let value = match v.parse::<i64>() {
            Ok(n) if INTEGER_PARAMS.contains(&name) => n.to_string(),
            _ => "***".to_owned(),
        };
        out.push(format!("{name}={value}"));
    }
    out.join("&")
}

fn truncate(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// What the log keeps of a request, taken as it arrives.
pub struct Arrived {
    started: Instant,
    method: &'static str,
    query: Option<String>,
    _in_flight: crate::obs::metrics::InFlight,
}

/// A method as the log and the metrics name it: one of HTTP's, or `other` (a client cannot
/// make up new label values).
fn method_name(m: &hyper::Method) -> &'static str {
    match m.as_str() {
        "GET" => "GET",
        "HEAD" => "HEAD",
        "POST" => "POST",
        "PUT" => "PUT",
        "DELETE" => "DELETE",
        "PATCH" => "PATCH",
        "OPTIONS" => "OPTIONS",
        _ => "other",
    }
}

/// Every reason `locker_http_admission_refusals_total` counts (each starts at 0).
pub const REFUSAL_REASONS: &[&str] =
    &["peer_connections", "peer_requests", "busy", "timeout", "host", "origin", "content_type"];

/// Why a request was refused before any operation ran, by its error code.
fn refusal_reason(code: &str) -> Option<&'static str> {
    Some(match code {
        "too_many_requests" => "peer_requests",
        "request_timeout" => "timeout",
        "misdirected_request" => "host",
        "origin_not_allowed" => "origin",
        "unsupported_media_type" => "content_type",
        _ => return None,
    })
}

impl Arrived {
    pub fn new<B>(req: &hyper::Request<B>) -> Self {
        Self {
            started: Instant::now(),
            method: method_name(req.method()),
            query: req.uri().query().map(|q| truncate(&redact_query(q), 1024).to_owned()),
            _in_flight: metrics().request_started(),
        }
    }

    /// Counts the request and writes its line, with what the response says of it and who
    /// acted.
    pub fn log(&self, peer: SocketAddr, resp: &Response, acting: Option<(String, String)>) {
        let took = self.started.elapsed();
        let ext = resp.extensions();
        let route = ext.get::<http::RouteName>().map_or("unmatched", |r| r.0.as_str());
        let status = resp.status().as_u16();
        let error = ext.get::<http::ErrorCode>().map(|c| c.0.as_str());
        let m = metrics();
        m.http_requests.inc(&[self.method, route, &status.to_string()]);
        m.http_duration.observe(&[self.method, route], took.as_secs_f64());
        if let Some(reason) = error.and_then(refusal_reason) {
            m.admission_refusals.inc(&[reason]);
        }
        let (actor, scope) = acting.unzip();
        let ms = (took.as_secs_f64() * 1e6).round() / 1e3;
        let bytes = resp.body().size_hint().exact();
        let detail = ext.get::<http::InternalDetail>().map(|d| d.0.as_str());
        let peer = peer.to_string();
        macro_rules! access {
            ($level:expr) => {
                tracing::event!(
                    target: "locker::access",
                    $level,
                    method = self.method,
                    route,
                    status,
                    ms,
                    bytes,
                    peer,
                    actor,
                    scope,
                    query = self.query.as_deref(),
                    error,
                    detail,
                    "{} {route} {status}",
                    self.method,
                )
            };
        }
        if status >= 500 || took >= SLOW_REQUEST {
            access!(tracing::Level::WARN);
        } else {
            access!(tracing::Level::INFO);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::redact_query;

    #[test]
    fn no_raw_query_value_is_logged() {
        assert_eq!(redact_query("ticket=abc&from=0&to=3"), "ticket=***&from=0&to=3");
        assert_eq!(redact_query("token=t&key=k&write_key=w&x=1"), "token=***&key=***&?=***&?=***");
        assert_eq!(redact_query("work=job%201&diff=1"), "work=***&diff=***");
        assert_eq!(redact_query("TICKET=abc"), "?=***");
        // See: #18. A malformed value that carries a secret is not an integer.
        assert_eq!(redact_query("from=0;ticket=SECRET"), "from=***");
        assert_eq!(redact_query("from=-07"), "from=-7");
        assert_eq!(redact_query("SECRET%3Dx=1&a%20b=2"), "?=***&?=***");
    }
}
