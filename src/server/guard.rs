//! Browser-origin safety, checked on every request before it is routed: a web page the
//! developer visits must not be able to act on a `locker serve` it can reach.
//!
//! - **Host** (DNS rebinding): a page on `evil.example` whose name resolves to 127.0.0.1 sends
//!   `Host: evil.example`. Only loopback names and addresses, the address the server listens on
//!   and the names given with `--allow-host` are served; any other is refused with 421.
//! - **Origin**: a browser names the page that sends a request in `Origin`. A request that
//!   carries one not given with `--allow-origin` (none by default) is refused with 403; an
//!   allowed origin gets CORS headers, and its preflights are answered.
//! - **Content-Type** (the "simple requests" a page may send anywhere: `text/plain`, forms):
//!   a write route accepts only `application/json` (or `…+json`), or no body at all; 415
//!   otherwise. Two exceptions: agent-locker's append, whose body is the raw block with
//!   whatever type the writer gives it (it needs the pad's write key in `Authorization`, which
//!   a page cannot send without a preflight); and the web view's sign-in form (`POST
//!   /ui/login`), which takes `application/x-www-form-urlencoded` and nothing else.
//! - The web view's own pages (`/ui/…`) are same-origin to it: a request under `/ui` whose
//!   `Origin` is the server's own (`http://` or `https://` and the `Host` it was called by,
//!   which has passed the check above) is let through without CORS headers. Any other origin
//!   is refused there too, so another site's page cannot post the sign-in form.

use std::net::IpAddr;

use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::response::Response;

use crate::ops::{ErrorKind, OpError};

/// What the guard lets through.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    /// Origins (`scheme://host[:port]`) whose pages may call the server.
    pub allow_origins: Vec<String>,
    /// Host names served besides loopback ones.
    pub allow_hosts: Vec<String>,
    /// The address the server listens on (served as a `Host` too, unless unspecified).
    pub listen: Option<IpAddr>,
}

/// The request headers a preflight may ask for (MCP's on `/mcp`: its version, and 2026-07-28's
/// method and name).
const CORS_HEADERS: &str = "authorization, content-type, x-locker-signer, x-locker-signature, \
                            x-payment-proof, mcp-protocol-version, mcp-method, mcp-name";

impl Policy {
    /// Checks a request before routing: `Err` is why it is refused (answered in the path's
    /// error shape, closing the connection); `Ok(Some(origin))` is an allowed origin whose
    /// response gets CORS headers.
    pub fn check(
        &self,
        method: &Method,
        uri: &Uri,
        headers: &HeaderMap,
    ) -> Result<Option<HeaderValue>, OpError> {
        let path = uri.path();
        if let Some(host) = headers.get(header::HOST) {
            let name = host.to_str().ok().and_then(host_name);
            if !name.is_some_and(|n| self.host_allowed(&n)) {
                let shown: String =
                    String::from_utf8_lossy(host.as_bytes()).chars().take(100).collect();
                return Err(misdirected(&shown));
            }
        }
        let origin = match headers.get(header::ORIGIN) {
            None => None,
            Some(o) if self.origin_allowed(o.as_bytes()) => Some(o.clone()),
            Some(o) if is_ui(path) && same_origin(o.as_bytes(), headers) => None,
            Some(o) => {
                let shown: String =
                    String::from_utf8_lossy(o.as_bytes()).chars().take(100).collect();
                return Err(OpError::new(
                    ErrorKind::Forbidden,
                    "origin_not_allowed",
                    format!("requests from the web origin {shown} are refused"),
                )
                .hint("A browser page may call locker only from an origin given with `locker serve --allow-origin ORIGIN`."));
            }
        };
        if *method == Method::POST && !body_type_allowed(path, headers) {
            let detail = if path == FORM_ROUTE {
                "this route takes a form: send `Content-Type: application/x-www-form-urlencoded`"
            } else {
                "this route takes a JSON body: send `Content-Type: application/json`"
            };
            return Err(OpError::new(
                ErrorKind::UnsupportedMediaType,
                "unsupported_media_type",
                detail,
            ));
        }
        Ok(origin)
    }

    fn host_allowed(&self, name: &str) -> bool {
        if name == "localhost" || name.ends_with(".localhost") {
            return true;
        }
        if let Ok(ip) = name.parse::<IpAddr>() {
            let ip = match ip {
                IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
                v4 => v4,
            };
            if ip.is_loopback() || (Some(ip) == self.listen && !ip.is_unspecified()) {
                return true;
            }
        }
        self.allow_hosts.iter().any(|h| h.eq_ignore_ascii_case(name))
    }

    fn origin_allowed(&self, origin: &[u8]) -> bool {
        let origin = origin.strip_suffix(b"/").unwrap_or(origin);
        self.allow_origins.iter().any(|o| {
            let o = o.strip_suffix('/').unwrap_or(o);
            o.as_bytes().eq_ignore_ascii_case(origin)
        })
    }
}

/// The host name of a `Host` value (`name`, `name:port`, `[v6]:port`), lowercased.
fn host_name(value: &str) -> Option<String> {
    let v = value.trim();
    let name = if let Some(rest) = v.strip_prefix('[') {
        rest.split_once(']')?.0
    } else {
        match v.rsplit_once(':') {
            Some((n, port)) if port.bytes().all(|b| b.is_ascii_digit()) => n,
            _ => v,
        }
    };
    let name = name.strip_suffix('.').unwrap_or(name);
    (!name.is_empty()).then(|| name.to_ascii_lowercase())
}

fn misdirected(host: &str) -> OpError {
    OpError::new(
        ErrorKind::Misdirected,
        "misdirected_request",
        format!("this server does not serve the host name {host}"),
    )
    .hint("Call it by a loopback address (127.0.0.1, [::1], localhost), or start it with `locker serve --allow-host NAME`.")
}

/// Whether a path belongs to the web view.
fn is_ui(path: &str) -> bool {
    path == "/ui" || path.starts_with("/ui/")
}

/// Whether `origin` is the server's own as the request calls it: `http://` or `https://` and
/// the request's `Host` (already checked).
fn same_origin(origin: &[u8], headers: &HeaderMap) -> bool {
    let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else {
        return false;
    };
    let origin = origin.strip_suffix(b"/").unwrap_or(origin);
    let Ok(origin) = std::str::from_utf8(origin) else { return false };
    let rest = origin.strip_prefix("http://").or_else(|| origin.strip_prefix("https://"));
    rest.is_some_and(|r| !r.is_empty() && r.eq_ignore_ascii_case(host.trim()))
}

/// The one form the server takes: the web view's sign-in.
const FORM_ROUTE: &str = "/ui/login";

/// Whether a `POST`'s body type is one the route takes.
fn body_type_allowed(path: &str, headers: &HeaderMap) -> bool {
    if is_append(path) {
        return true;
    }
    let allowed: fn(&str) -> bool = if path == FORM_ROUTE { is_form } else { is_json };
    match headers.get(header::CONTENT_TYPE) {
        Some(ct) => ct.to_str().is_ok_and(allowed),
        // No type: only a request with no body.
        None => {
            !headers.contains_key(header::TRANSFER_ENCODING)
                && headers
                    .get(header::CONTENT_LENGTH)
                    .is_none_or(|l| l.to_str().is_ok_and(|l| l.trim() == "0"))
        }
    }
}

/// `/v1/pads/{id}/append`.
fn is_append(path: &str) -> bool {
    path.strip_prefix("/v1/pads/")
        .and_then(|rest| rest.strip_suffix("/append"))
        .is_some_and(|id| !id.is_empty() && !id.contains('/'))
}

/// `application/x-www-form-urlencoded`, with any parameters.
fn is_form(ct: &str) -> bool {
    let essence = ct.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    essence == "application/x-www-form-urlencoded"
}

/// `application/json` or `application/…+json`, with any parameters.
fn is_json(ct: &str) -> bool {
    let essence = ct.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    essence == "application/json"
        || essence.strip_prefix("application/").is_some_and(|s| s.ends_with("+json"))
}

/// Adds the CORS headers of an allowed origin to a response.
pub fn allow(resp: &mut Response, origin: HeaderValue) {
    let h = resp.headers_mut();
    h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    h.append(header::VARY, HeaderValue::from_static("Origin"));
}

/// The answer to an allowed origin's CORS preflight (`OPTIONS` with
/// `Access-Control-Request-Method`), or `None` when the request is no preflight.
pub fn preflight(method: &Method, headers: &HeaderMap, origin: &HeaderValue) -> Option<Response> {
    if *method != Method::OPTIONS || !headers.contains_key(header::ACCESS_CONTROL_REQUEST_METHOD) {
        return None;
    }
    let mut r = Response::new(axum::body::Body::empty());
    *r.status_mut() = StatusCode::NO_CONTENT;
    let h = r.headers_mut();
    h.insert(header::ACCESS_CONTROL_ALLOW_METHODS, HeaderValue::from_static("GET, POST"));
    h.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, HeaderValue::from_static(CORS_HEADERS));
    h.insert(header::ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static("600"));
    allow(&mut r, origin.clone());
    Some(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(header::HeaderName::from_bytes(k.as_bytes()).unwrap(), v.parse().unwrap());
        }
        h
    }

    fn status(p: &Policy, method: Method, path: &str, h: &[(&str, &str)]) -> u16 {
        match p.check(&method, &path.parse().unwrap(), &headers(h)) {
            Ok(_) => 200,
            Err(e) => e.kind.http_status(),
        }
    }

    #[test]
    fn hosts_are_loopback_the_listen_address_or_allowed() {
        let p = Policy {
            allow_hosts: vec!["locker.example".into()],
            listen: Some("10.0.0.5".parse().unwrap()),
            ..Policy::default()
        };
        for ok in [
            "127.0.0.1:8000",
            "127.1.2.3",
            "localhost:1",
            "LOCALHOST",
            "a.localhost",
            "[::1]:8000",
            "[::ffff:127.0.0.1]:80",
            "10.0.0.5:8000",
            "Locker.Example:443",
            "locker.example.",
        ] {
            assert_eq!(status(&p, Method::GET, "/health", &[("host", ok)]), 200, "{ok}");
        }
        for bad in [
            "evil.example",
            "evil.example:8000",
            "127.0.0.1.evil.example",
            "0.0.0.0",
            "",
            "10.0.0.6",
        ] {
            assert_eq!(status(&p, Method::GET, "/health", &[("host", bad)]), 421, "{bad}");
        }
        assert_eq!(status(&Policy::default(), Method::GET, "/health", &[]), 200, "no Host");
    }

    #[test]
    fn origins_must_be_allowed() {
        let p = Policy { allow_origins: vec!["https://app.example".into()], ..Policy::default() };
        let get = |o: &str| status(&p, Method::GET, "/v1/leases", &[("origin", o)]);
        assert_eq!(get("https://app.example"), 200);
        assert_eq!(get("https://APP.example/"), 200);
        for bad in ["https://evil.example", "null", "http://app.example", "http://127.0.0.1:8000"] {
            assert_eq!(get(bad), 403, "{bad}");
        }
    }

    #[test]
    fn write_routes_take_json_or_no_body() {
        let p = Policy::default();
        let post = |path: &str, h: &[(&str, &str)]| status(&p, Method::POST, path, h);
        assert_eq!(post("/lease", &[("content-type", "application/json")]), 200);
        assert_eq!(post("/lease", &[("content-type", "Application/JSON; charset=utf-8")]), 200);
        assert_eq!(post("/lease", &[("content-type", "application/merge-patch+json")]), 200);
        for bad in [
            "text/plain",
            "application/x-www-form-urlencoded",
            "multipart/form-data; b=x",
            "text/json",
        ] {
            assert_eq!(post("/lease", &[("content-type", bad), ("content-length", "2")]), 415);
            assert_eq!(post("/v1/pads", &[("content-type", bad)]), 415);
        }
        // No type: only without a body.
        assert_eq!(post("/v1/leases/reap", &[]), 200);
        assert_eq!(post("/v1/pads/x/seal", &[("content-length", "0")]), 200);
        assert_eq!(post("/lease", &[("content-length", "2")]), 415);
        assert_eq!(post("/lease", &[("transfer-encoding", "chunked")]), 415);
        // agent-locker's append takes the raw block, whatever its type.
        assert_eq!(post("/v1/pads/abc/append", &[("content-type", "text/plain")]), 200);
        assert_eq!(post("/v1/pads/abc/append", &[("content-length", "3")]), 200);
        assert_eq!(post("/v1/pads/a/b/append", &[("content-type", "text/plain")]), 415);
    }

    #[test]
    fn the_sign_in_form_takes_a_form_and_nothing_else_does() {
        let p = Policy::default();
        let post = |path: &str, ct: &str| {
            status(&p, Method::POST, path, &[("content-type", ct), ("content-length", "9")])
        };
        let form = "application/x-www-form-urlencoded";
        assert_eq!(post("/ui/login", form), 200);
        assert_eq!(post("/ui/login", "application/x-www-form-urlencoded; charset=UTF-8"), 200);
        for bad in ["application/json", "text/plain", "multipart/form-data; boundary=x"] {
            assert_eq!(post("/ui/login", bad), 415, "{bad}");
        }
        for other in ["/ui/login/", "/ui/logout", "/lease", "/v1/pads", "/ui/"] {
            assert_eq!(post(other, form), 415, "{other}");
        }
    }

    #[test]
    fn the_view_is_same_origin_to_itself_and_to_no_other_site() {
        let p = Policy::default();
        let req = |path: &str, host: &str, origin: &str| {
            let h = [("host", host), ("origin", origin)];
            p.check(&Method::POST, &path.parse().unwrap(), &headers(&h))
                .map(|o| o.is_some())
                .map_err(|e| e.kind.http_status())
        };
        // Its own origin: through, with no CORS headers.
        assert_eq!(req("/ui/login", "127.0.0.1:8000", "http://127.0.0.1:8000"), Ok(false));
        assert_eq!(req("/ui/login", "localhost:8000", "http://LOCALHOST:8000/"), Ok(false));
        // Another port, another host, `null`: refused.
        for bad in ["http://127.0.0.1:8001", "http://evil.example", "null", "http://127.0.0.1"] {
            assert_eq!(req("/ui/login", "127.0.0.1:8000", bad), Err(403), "{bad}");
        }
        // Outside the view, the JSON routes keep their rule: no origin but the allowed ones.
        assert_eq!(req("/v1/journal", "127.0.0.1:8000", "http://127.0.0.1:8000"), Err(403));
    }
}
