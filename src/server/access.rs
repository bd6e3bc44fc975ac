//! The access log: one JSON line per request on stderr, with no header, body or query value
//! that could hold a secret.

use std::net::SocketAddr;
use std::time::Instant;

use axum::response::Response;
use serde::Serialize;

use super::http;

/// One access-log record.
#[derive(Debug, Serialize)]
struct AccessLog<'a> {
    time: String,
    peer: String,
    method: &'a str,
    path: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    query: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    route: Option<&'a str>,
    status: u16,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    /// What went wrong, for internal failures only (the client is not told).
    #[serde(skip_serializing_if = "Option::is_none")]
    detail: Option<&'a str>,
    ms: f64,
}

/// Query parameters whose values are logged; every other value is replaced by `***`.
const LOGGED_PARAMS: &[&str] = &[
    "from", "to", "limit", "diff", "work", "work_ref", "state", "after", "before", "kind",
    "subject", "actor", "scope", "reverse",
];

/// A query string with every value that is not known to be harmless replaced by `***`.
pub fn redact_query(q: &str) -> String {
    let mut out = form_urlencoded::Serializer::new(String::new());
    for (k, v) in form_urlencoded::parse(q.as_bytes()) {
        if LOGGED_PARAMS.contains(&k.as_ref()) {
            out.append_pair(&k, &v);
        } else {
            out.append_pair(&k, "***");
        }
    }
    out.finish().replace("%2A%2A%2A", "***")
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
    method: String,
    path: String,
    query: Option<String>,
}

impl Arrived {
    pub fn new<B>(req: &hyper::Request<B>) -> Self {
        Self {
            started: Instant::now(),
            method: req.method().as_str().to_owned(),
            path: truncate(req.uri().path(), 512).to_owned(),
            query: req.uri().query().map(|q| truncate(&redact_query(q), 1024).to_owned()),
        }
    }

    /// Writes the request's line, with what the response says of it.
    pub fn log(&self, now: i64, peer: SocketAddr, resp: &Response) {
        let ext = resp.extensions();
        let record = AccessLog {
            time: crate::output::rfc3339(now),
            peer: peer.to_string(),
            method: &self.method,
            path: &self.path,
            query: self.query.as_deref(),
            route: ext.get::<http::RouteName>().map(|r| r.0.as_str()),
            status: resp.status().as_u16(),
            error: ext.get::<http::ErrorCode>().map(|c| c.0.as_str()),
            detail: ext.get::<http::InternalDetail>().map(|d| d.0.as_str()),
            ms: (self.started.elapsed().as_secs_f64() * 1e6).round() / 1e3,
        };
        crate::output::log_json(&record);
    }
}

#[cfg(test)]
mod tests {
    use super::redact_query;

    #[test]
    fn only_harmless_query_values_are_logged() {
        assert_eq!(redact_query("ticket=abc&from=0&to=3"), "ticket=***&from=0&to=3");
        assert_eq!(
            redact_query("token=t&key=k&write_key=w&x=1"),
            "token=***&key=***&write_key=***&x=***"
        );
        assert_eq!(redact_query("work=job%201&diff=1"), "work=job+1&diff=1");
        assert_eq!(redact_query("TICKET=abc"), "TICKET=***");
    }
}
