//! A blocking client for a remote `locker serve`, returning the same outcome types as
//! [`crate::ops`] and the same [`OpError`]s (the HTTP status maps back to the
//! [`ErrorKind`]), so that the CLI's remote mode prints exactly what local mode prints.
//!
//! It refuses plain HTTP except to a literal loopback address (`127.0.0.0/8`, `::1`), never
//! follows a redirect (a credential must not travel to another origin), ignores proxy
//! variables, and bounds every exchange in time and size.

mod locker;

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use crate::domain::secret::Secret;
use crate::domain::sign::Statement;
use crate::ops::keys::{KeyList, Signing};
use crate::ops::{Clock, ErrorKind, OpError, OpResult, SystemClock};

/// The largest response the client reads.
pub const MAX_RESPONSE_BYTES: u64 = 16 * 1024 * 1024;

/// How long one exchange may take, connection included.
pub const TIMEOUT: Duration = Duration::from_secs(60);

/// How long connecting may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// A remote `locker serve` (or, for the pad routes, an agent-locker daemon).
pub struct Client {
    base: String,
    agent: ureq::Agent,
    /// The agent token presented on the routes that act as an agent (leases, plans, steps,
    /// artifacts, keys); pads act through the capabilities in each request.
    token: Option<Secret>,
    /// The clock that dates what the client makes (an exported bundle's `exported_at`).
    clock: Arc<dyn Clock>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client").field("base", &self.base).finish_non_exhaustive()
    }
}

/// Whether `host` (as it appears in a URL) is a literal loopback address.
fn is_loopback_literal(host: &str) -> bool {
    let bare = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host);
    match bare.parse::<IpAddr>() {
        Ok(IpAddr::V4(v4)) => v4.is_loopback(),
        Ok(IpAddr::V6(v6)) => {
            v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
        Err(_) => false,
    }
}

fn usage(detail: String) -> OpError {
    OpError::usage(detail).hint(
        "Give the server's base URL, e.g. `--remote http://127.0.0.1:8000` or an https:// URL.",
    )
}

/// Percent-encodes one path segment.
fn segment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Checks a server URL: `http://` only to a literal loopback address, `https://` anywhere; no
/// credentials, query or fragment. Returns it without a trailing slash.
pub fn check_url(url: &str) -> OpResult<String> {
    let (scheme, rest) = url
        .split_once("://")
        .ok_or_else(|| usage(format!("`{url}` is not a URL: it has no scheme")))?;
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return Err(usage(format!("the server URL must use http or https, not `{scheme}`")));
    }
    if rest.contains(['?', '#']) {
        return Err(usage("the server URL must not have a query or a fragment".into()));
    }
    let authority = rest.split('/').next().unwrap_or_default();
    if authority.contains('@') {
        return Err(usage("the server URL must not carry credentials".into()));
    }
    let host = if authority.starts_with('[') {
        authority.split_once(']').map_or(authority, |(h, _)| h).to_owned() + "]"
    } else {
        authority.rsplit_once(':').map_or(authority, |(h, _)| h).to_owned()
    };
    if host.is_empty() || host == "]" {
        return Err(usage(format!("`{url}` has no host")));
    }
    if url.parse::<ureq::http::Uri>().is_err() {
        return Err(usage(format!("`{url}` is not a valid URL")));
    }
    if scheme == "http" && !is_loopback_literal(&host) {
        return Err(OpError::usage(format!(
            "refusing plain http:// to `{host}`: secrets would cross the network unencrypted"
        ))
        .hint("Use https://, or a literal loopback address such as 127.0.0.1 or [::1]."));
    }
    Ok(format!("{scheme}://{rest}").trim_end_matches('/').to_owned())
}

/// What a response says when it is not a success: the server's error object mapped back to
/// an [`OpError`] (the status decides the kind).
fn error_from(status: u16, body: &[u8]) -> OpError {
    let kind = ErrorKind::from_http_status(status);
    let Ok(Value::Object(mut m)) = serde_json::from_slice::<Value>(body) else {
        return OpError::new(kind, "http_error", format!("the server answered HTTP {status}"));
    };
    let text = |v: Option<Value>| match v {
        Some(Value::String(s)) => Some(s),
        _ => None,
    };
    let (code, detail) = if m.contains_key("error") {
        (text(m.shift_remove("error")), text(m.shift_remove("detail")))
    } else if m.contains_key("code") {
        (text(m.shift_remove("code")), text(m.shift_remove("message")))
    } else {
        // FastAPI's own errors: {"detail": "Not Found"} or {"detail": [...]}.
        let detail = match m.shift_remove("detail") {
            Some(Value::String(s)) => Some(s),
            Some(v @ Value::Array(_)) => Some(format!("invalid request: {v}")),
            _ => None,
        };
        (Some(if status == 404 { "not_found" } else { "http_error" }.to_owned()), detail)
    };
    if status == 402 && code.as_deref() == Some("payment_required") {
        return payment_challenge(m);
    }
    let code = match (status, code.as_deref()) {
        (402 | 409 | 400 | 502, Some("http_error"))
            if detail.as_deref().is_some_and(is_payment_detail) =>
        {
            Some(
                if status == 409 { "payment_already_redeemed" } else { "payment_refused" }
                    .to_owned(),
            )
        }
        _ => code,
    };
    let hints = match m.shift_remove("hints") {
        Some(Value::Array(h)) => {
            h.into_iter().filter_map(|v| v.as_str().map(str::to_owned)).collect()
        }
        _ => Vec::new(),
    };
    let mut e = OpError::new(
        kind,
        code.unwrap_or_else(|| "http_error".into()),
        detail.unwrap_or_else(|| format!("the server answered HTTP {status}")),
    );
    e.fields = m;
    e.hints = hints;
    e
}

fn is_payment_detail(d: &str) -> bool {
    d.starts_with("payment ") || d == "rpc provider unreachable"
}

/// A pay-per-pad server's 402 challenge as an error (exit 5) whose fields are the
/// challenge's (`network`, `chain_id`, `token_contract`, `amount`, `amount_units`,
/// `recipient`, …) and whose detail says what to pay.
fn payment_challenge(m: serde_json::Map<String, Value>) -> OpError {
    let f = |k: &str| match m.get(k) {
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
        None => "?".into(),
    };
    let mut e = OpError::new(
        ErrorKind::PaymentRequired,
        "payment_required",
        format!(
            "the server wants a payment: send {} {} on {} (chain {}, token {}) to {}",
            f("amount"),
            f("currency"),
            f("network"),
            f("chain_id"),
            f("token_contract"),
            f("recipient")
        ),
    )
    .hint("Pay, then retry with --payment-proof <transaction hash> (MCP: payment_tx_hash).");
    e.fields = m;
    e
}

/// A request body.
enum Body<'a> {
    None,
    Bytes(&'a [u8], &'a str),
}

impl Client {
    /// A client for the server at `url` (see [`check_url`]).
    pub fn new(url: &str) -> OpResult<Self> {
        let base = check_url(url)?;
        let config = ureq::Agent::config_builder()
            .proxy(None)
            .max_redirects(0)
            .http_status_as_error(false)
            .timeout_global(Some(TIMEOUT))
            .timeout_connect(Some(CONNECT_TIMEOUT))
            .user_agent(concat!("locker/", env!("CARGO_PKG_VERSION")))
            .build();
        Ok(Self { base, agent: config.into(), token: None, clock: Arc::new(SystemClock) })
    }

    /// The same client, dating what it makes with `clock` (`LOCKER_NOW`).
    #[must_use]
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// The same client, acting as the agent of `token`.
    #[must_use]
    pub fn with_token(mut self, token: Option<Secret>) -> Self {
        self.token = token;
        self
    }

    /// The server's base URL.
    pub fn base_url(&self) -> &str {
        &self.base
    }

    fn exchange(
        &self,
        method: &str,
        path: &str,
        auth: Option<&Secret>,
        body: Body<'_>,
    ) -> OpResult<(u16, Vec<u8>)> {
        self.exchange_with(method, path, auth, body, None, &[])
    }

    /// [`Self::exchange`] with an optional `X-Payment-Proof` (pay-per-pad servers).
    fn exchange_paid(
        &self,
        method: &str,
        path: &str,
        auth: Option<&Secret>,
        body: Body<'_>,
        proof: Option<&str>,
    ) -> OpResult<(u16, Vec<u8>)> {
        self.exchange_with(method, path, auth, body, proof, &[])
    }

    /// [`Self::exchange`] with an optional `X-Payment-Proof` and extra headers.
    fn exchange_with(
        &self,
        method: &str,
        path: &str,
        auth: Option<&Secret>,
        body: Body<'_>,
        proof: Option<&str>,
        extra: &[(&str, String)],
    ) -> OpResult<(u16, Vec<u8>)> {
        let url = format!("{}{path}", self.base);
        let unreachable = |e: ureq::Error| {
            OpError::unavailable(format!("cannot reach the server at {}: {e}", self.base))
                .hint("Check that `locker serve` is running there and the URL is right.")
        };
        let bearer = auth.map(|s| format!("Bearer {}", s.expose()));
        let result = match (method, body) {
            ("GET", _) => {
                let mut req = self.agent.get(&url);
                if let Some(b) = &bearer {
                    req = req.header("authorization", b);
                }
                req.call()
            }
            (_, body) => {
                let mut req = self.agent.post(&url);
                if let Some(b) = &bearer {
                    req = req.header("authorization", b);
                }
                if let Some(p) = proof {
                    req = req.header("x-payment-proof", p);
                }
                for (name, value) in extra {
                    req = req.header(*name, value);
                }
                match body {
                    Body::None => req.send_empty(),
                    Body::Bytes(bytes, ct) => req.header("content-type", ct).send(bytes),
                }
            }
        };
        let mut resp = result.map_err(unreachable)?;
        let status = resp.status().as_u16();
        if (300..400).contains(&status) {
            return Err(OpError::unavailable(format!(
                "the server at {} answered with a redirect (HTTP {status}); locker does not follow redirects",
                self.base
            ))
            .hint("Point --remote (or LOCKER_URL) at the final URL."));
        }
        let bytes =
            resp.body_mut().with_config().limit(MAX_RESPONSE_BYTES).read_to_vec().map_err(|e| {
                OpError::unavailable(format!("cannot read the server's answer: {e}"))
            })?;
        Ok((status, bytes))
    }

    fn call<T: DeserializeOwned>(
        &self,
        method: &str,
        path: &str,
        auth: Option<&Secret>,
        body: Body<'_>,
    ) -> OpResult<T> {
        let (status, bytes) = self.exchange(method, path, auth, body)?;
        decode(status, &bytes)
    }

    fn post_json<T: DeserializeOwned, B: Serialize>(
        &self,
        path: &str,
        auth: Option<&Secret>,
        body: &B,
    ) -> OpResult<T> {
        let bytes = serde_json::to_vec(body).map_err(|e| OpError::internal(e.to_string()))?;
        self.call("POST", path, auth, Body::Bytes(&bytes, "application/json"))
    }

    /// `GET /health`: the server's liveness report (`status`, `version`, pad counts).
    pub fn health(&self) -> OpResult<Value> {
        self.call("GET", "/health", None, Body::None)
    }

    /// `GET /metrics`: the server's Prometheus text (with the agent's token, if any).
    pub fn metrics(&self) -> OpResult<String> {
        let (status, bytes) = self.exchange("GET", "/metrics", self.token.as_ref(), Body::None)?;
        if status != 200 {
            return decode::<Value>(status, &bytes).map(|_| String::new());
        }
        String::from_utf8(bytes).map_err(|_| OpError::unavailable("the metrics are not UTF-8"))
    }

    /// A JSON `POST` that may carry a payment proof.
    fn post_paid<T: DeserializeOwned, B: Serialize>(
        &self,
        path: &str,
        body: &B,
        proof: Option<&str>,
    ) -> OpResult<T> {
        let bytes = serde_json::to_vec(body).map_err(|e| OpError::internal(e.to_string()))?;
        // The agent's token, if any: the pad is then the agent's, in its scope.
        let auth = self.token.as_ref();
        let (status, bytes) =
            self.exchange_paid("POST", path, auth, Body::Bytes(&bytes, "application/json"), proof)?;
        decode(status, &bytes)
    }

    /// The `(signer, base64 signature)` a request carries: a provided signature as is, or one
    /// made here with a private key over the statement `build` makes from the server's keys
    /// listing (its repository id and the caller's scope).
    fn sign_here(
        &self,
        signing: Option<&Signing>,
        build: impl FnOnce(&KeyList) -> OpResult<Statement>,
    ) -> OpResult<Option<(String, String)>> {
        match signing {
            None => Ok(None),
            Some(Signing::Provided { signer, signature }) => {
                Ok(Some((signer.clone(), crate::domain::sign::encode_signature(signature))))
            }
            Some(Signing::Key(k)) => {
                let keys: KeyList =
                    self.call("GET", "/v1/keys", self.token.as_ref(), Body::None)?;
                let st = build(&keys)?;
                let sig = k.sign(&st.message());
                Ok(Some((k.name.clone(), crate::domain::sign::encode_signature(&sig))))
            }
        }
    }

    fn work_query(path: &str, work: &str, extra: &[(&str, String)]) -> String {
        let mut q = form_urlencoded::Serializer::new(String::new());
        q.append_pair("work", work);
        for (k, v) in extra {
            q.append_pair(k, v);
        }
        format!("{path}?{}", q.finish())
    }
}

/// A response's JSON body, or the server's error.
fn decode<T: DeserializeOwned>(status: u16, bytes: &[u8]) -> OpResult<T> {
    if !(200..300).contains(&status) {
        return Err(error_from(status, bytes));
    }
    serde_json::from_slice(bytes).map_err(|e| {
        OpError::unavailable(format!("the server's answer is not what locker expects: {e}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_http_only_to_literal_loopback() {
        for ok in [
            "http://127.0.0.1:8000",
            "http://127.0.0.1:8000/",
            "http://127.1.2.3",
            "http://[::1]:8000/prefix/",
            "http://[::ffff:127.0.0.1]:80",
            "https://example.com",
            "https://example.com:8443/base",
        ] {
            assert!(check_url(ok).is_ok(), "{ok}");
        }
        assert_eq!(check_url("http://127.0.0.1:8000/").unwrap(), "http://127.0.0.1:8000");
        for bad in [
            "http://localhost:8000",
            "http://0.0.0.0:8000",
            "http://[::]:8000",
            "http://10.0.0.1",
            "http://127.0.0.1.example.com",
            "ftp://127.0.0.1",
            "127.0.0.1:8000",
            "https://user:pw@example.com",
            "https://example.com/?x=1",
            "https://example.com/#f",
            "https://",
        ] {
            let e = check_url(bad).unwrap_err();
            assert_eq!(e.kind, ErrorKind::Usage, "{bad}");
        }
    }

    #[test]
    fn errors_map_back_to_their_kinds() {
        let e = error_from(
            409,
            br#"{"error":"conflict","detail":"pad is sealed","max_blocks":3,"hints":["h"]}"#,
        );
        assert_eq!(
            (e.kind, e.code.as_ref(), e.detail.as_str()),
            (ErrorKind::Conflict, "conflict", "pad is sealed")
        );
        assert_eq!(e.fields["max_blocks"], 3);
        assert_eq!(e.hints, vec!["h".to_owned()]);
        let e = error_from(404, br#"{"detail":"Not Found"}"#);
        assert_eq!((e.kind, e.code.as_ref()), (ErrorKind::NotFound, "not_found"));
        let e =
            error_from(409, br#"{"code":"version_conflict","message":"m","current_version":3}"#);
        assert_eq!((e.code.as_ref(), e.detail.as_str()), ("version_conflict", "m"));
        assert_eq!(e.fields["current_version"], 3);
        let e = error_from(502, b"<html>");
        assert_eq!((e.kind, e.code.as_ref()), (ErrorKind::BadGateway, "http_error"));
        assert_eq!(segment("a b/c"), "a%20b%2Fc");
    }
}
