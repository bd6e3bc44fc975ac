//! The access log: one JSON line per request on stderr, with no header, no body and no raw
//! query value.

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
