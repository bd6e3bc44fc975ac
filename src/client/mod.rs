//! A blocking client for a remote `locker serve`, returning the same outcome types as
//! [`crate::ops`] and the same [`OpError`]s (the HTTP status maps back to the
//! [`ErrorKind`]), so that the CLI's remote mode prints exactly what local mode prints.
//!
//! It refuses plain HTTP except to a literal loopback address (`127.0.0.0/8`, `::1`), never
//! follows a redirect (a credential must not travel to another origin), ignores proxy
//! variables, and bounds every exchange in time and size.

use std::net::IpAddr;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use crate::domain::digest::Digest;
use crate::domain::limits::PadLimits;
use crate::domain::pad::{PadState, TicketType};
use crate::domain::secret::Secret;
use crate::domain::sign::Statement;
use crate::domain::work::LeaseState;
use crate::ops::artifact::{ArtifactList, ArtifactLog, ArtifactView, PublishRequest, Published};
use crate::ops::journal::LogPage;
use crate::ops::lease::{Acquired, Completed, LeaseList, LeaseView, Reaped, Released, WorkStatus};
use crate::ops::ledger::History;
use crate::ops::pad::{
    Appended, BlockSlice, DepositBlock, Deposited, Manifest, PadCreated, PadList, Sealed,
    TicketMinted, TicketRevoked,
};
use crate::ops::plan::{Diff, PlanCommitted, PlanView};
use crate::ops::sign::{KeyList, Signing};
use crate::ops::step::{StepInput, StepView};
use crate::ops::verify::{PadReport, RepoReport};
use crate::ops::wire::{DepositRequest, NativePublish, RevokeRequest};
use crate::ops::{ErrorKind, OpError, OpResult};
use crate::store::JournalQuery;

/// The largest response the client reads.
pub const MAX_RESPONSE_BYTES: u64 = 16 * 1024 * 1024;

/// How long one exchange may take, connection included.
pub const TIMEOUT: Duration = Duration::from_secs(60);

/// How long connecting may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// A remote `locker serve`.
pub struct Client {
    base: String,
    agent: ureq::Agent,
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
        Ok(Self { base, agent: config.into() })
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
        if !(200..300).contains(&status) {
            return Err(error_from(status, &bytes));
        }
        serde_json::from_slice(&bytes).map_err(|e| {
            OpError::unavailable(format!("the server's answer is not what locker expects: {e}"))
        })
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

    fn pad_path(pad: &str, rest: &str) -> String {
        format!("/v1/pads/{}{rest}", segment(pad))
    }

    /// `GET /health`: the server's liveness report (`status`, `version`, pad counts).
    pub fn health(&self) -> OpResult<Value> {
        self.call("GET", "/health", None, Body::None)
    }

    /// `POST /v1/pads`, with a payment proof for a pay-per-pad server.
    pub fn create(&self, limits: PadLimits, proof: Option<&str>) -> OpResult<PadCreated> {
        let body = serde_json::json!({
            "ttl_seconds": limits.ttl_seconds,
            "max_blocks": limits.max_blocks,
        });
        self.post_paid("/v1/pads", &body, proof)
    }

    /// A JSON `POST` that may carry a payment proof.
    fn post_paid<T: DeserializeOwned, B: Serialize>(
        &self,
        path: &str,
        body: &B,
        proof: Option<&str>,
    ) -> OpResult<T> {
        let bytes = serde_json::to_vec(body).map_err(|e| OpError::internal(e.to_string()))?;
        let (status, bytes) =
            self.exchange_paid("POST", path, None, Body::Bytes(&bytes, "application/json"), proof)?;
        if !(200..300).contains(&status) {
            return Err(error_from(status, &bytes));
        }
        serde_json::from_slice(&bytes).map_err(|e| {
            OpError::unavailable(format!("the server's answer is not what locker expects: {e}"))
        })
    }

    /// `POST /v1/pads/{id}/append`.
    pub fn append(
        &self,
        pad: &str,
        key: Option<&Secret>,
        payload: &[u8],
        content_type: Option<&str>,
    ) -> OpResult<Appended> {
        self.append_signed(pad, key, payload, content_type, None)
    }

    /// `POST /v1/pads/{id}/append` with an agent's signature in `X-Locker-Signer` and
    /// `X-Locker-Signature`; a private key signs here, for the block the pad's manifest says
    /// comes next.
    pub fn append_signed(
        &self,
        pad: &str,
        key: Option<&Secret>,
        payload: &[u8],
        content_type: Option<&str>,
        signing: Option<&Signing>,
    ) -> OpResult<Appended> {
        let ct = content_type.unwrap_or(crate::ops::pad::DEFAULT_CONTENT_TYPE);
        let signed = self.sign_here(None, signing, |keys| {
            let seq = self.manifest(pad)?.block_count;
            Ok(Statement::pad_append(&keys.repository_id, pad, seq, &Digest::of(payload)))
        })?;
        let extra: Vec<(&str, String)> = signed
            .map(|(signer, sig)| {
                vec![
                    (crate::ops::sign::SIGNER_HEADER, signer),
                    (crate::ops::sign::SIGNATURE_HEADER, sig),
                ]
            })
            .unwrap_or_default();
        let path = Self::pad_path(pad, "/append");
        let (status, bytes) =
            self.exchange_with("POST", &path, key, Body::Bytes(payload, ct), None, &extra)?;
        if !(200..300).contains(&status) {
            return Err(error_from(status, &bytes));
        }
        serde_json::from_slice(&bytes).map_err(|e| {
            OpError::unavailable(format!("the server's answer is not what locker expects: {e}"))
        })
    }

    /// `GET /v1/keys`: the registered agent keys, the repository id and the signing policy.
    pub fn keys(&self, token: Option<&Secret>) -> OpResult<KeyList> {
        self.call("GET", "/v1/keys", token, Body::None)
    }

    /// The `(signer, base64 signature)` a request carries: a provided signature as is, or one
    /// made here with a private key over the statement `build` makes from the server's keys
    /// listing (its repository id and the caller's scope).
    fn sign_here(
        &self,
        token: Option<&Secret>,
        signing: Option<&Signing>,
        build: impl FnOnce(&KeyList) -> OpResult<Statement>,
    ) -> OpResult<Option<(String, String)>> {
        match signing {
            None => Ok(None),
            Some(Signing::Provided { signer, signature }) => {
                Ok(Some((signer.clone(), crate::domain::sign::encode_signature(signature))))
            }
            Some(Signing::Key(k)) => {
                let keys = self.keys(token)?;
                let st = build(&keys)?;
                let sig = k.sign(&st.message());
                Ok(Some((k.name.clone(), crate::domain::sign::encode_signature(&sig))))
            }
        }
    }

    /// `POST /v1/pads/{id}/seal`.
    pub fn seal(&self, pad: &str, key: Option<&Secret>) -> OpResult<Sealed> {
        self.call("POST", &Self::pad_path(pad, "/seal"), key, Body::None)
    }

    /// `POST /v1/pads/{id}/tickets`.
    pub fn mint_ticket(
        &self,
        pad: &str,
        key: Option<&Secret>,
        ticket_type: TicketType,
    ) -> OpResult<TicketMinted> {
        let body = serde_json::json!({ "type": ticket_type });
        self.post_json(&Self::pad_path(pad, "/tickets"), key, &body)
    }

    /// `POST /v1/pads/{id}/tickets/revoke`.
    pub fn revoke_ticket(
        &self,
        pad: &str,
        key: Option<&Secret>,
        ticket: &str,
    ) -> OpResult<TicketRevoked> {
        let body = RevokeRequest { ticket: ticket.to_owned() };
        self.post_json(&Self::pad_path(pad, "/tickets/revoke"), key, &body)
    }

    /// `GET /v1/pads/{id}/manifest`.
    pub fn manifest(&self, pad: &str) -> OpResult<Manifest> {
        self.call("GET", &Self::pad_path(pad, "/manifest"), None, Body::None)
    }

    /// `GET /v1/pads/{id}/blocks` with the ticket in the `Authorization` header (never in the
    /// URL).
    pub fn read(
        &self,
        pad: &str,
        ticket: Option<&Secret>,
        from: Option<i64>,
        to: Option<i64>,
    ) -> OpResult<BlockSlice> {
        let mut q = form_urlencoded::Serializer::new(String::new());
        if let Some(f) = from {
            q.append_pair("from", &f.to_string());
        }
        if let Some(t) = to {
            q.append_pair("to", &t.to_string());
        }
        let q = q.finish();
        let path = Self::pad_path(pad, "/blocks") + if q.is_empty() { "" } else { "?" } + &q;
        self.call("GET", &path, ticket, Body::None)
    }

    /// Fetches a whole pad as a bundle through the pad API (agent-locker's daemon or
    /// `locker serve`): the manifest, then every block in pages of at most 256, halving a page
    /// the server refuses as too large (its 64 KiB slice limit). Nothing is verified here: the
    /// bundle records what the server said, and its checks decide (`locker verify --bundle`).
    pub fn export_pad(
        &self,
        pad: &str,
        ticket: Option<&Secret>,
        now: i64,
    ) -> OpResult<crate::domain::bundle::Bundle> {
        use crate::domain::limits::MAX_SLICE_BLOCKS;
        let manifest: Value =
            self.call("GET", &Self::pad_path(pad, "/manifest"), None, Body::None)?;
        let total = manifest
            .get("block_count")
            .and_then(Value::as_u64)
            .ok_or_else(|| OpError::unavailable("the server's manifest has no block_count"))?;
        let mut pages = Vec::new();
        let (mut from, mut size) = (0u64, MAX_SLICE_BLOCKS);
        while from < total {
            let to = (from + size - 1).min(total - 1);
            let path = format!("{}?from={from}&to={to}", Self::pad_path(pad, "/blocks"));
            let page: Value = match self.call("GET", &path, ticket, Body::None) {
                Err(e) if e.kind == ErrorKind::TooLarge && size > 1 => {
                    size /= 2;
                    continue;
                }
                other => other?,
            };
            let got = page.get("blocks").and_then(Value::as_array).map_or(0, Vec::len) as u64;
            pages.push(page);
            if got == 0 {
                break;
            }
            from += got;
        }
        // locker's manifest states its limits; agent-locker's does not.
        let kind = if manifest.get("max_blocks").is_some() { "locker" } else { "agent-locker" };
        let source = crate::domain::bundle::Source {
            kind: kind.into(),
            url: Some(self.base.clone()),
            exported_at: now,
            exporter: crate::ops::bundle::exporter(),
        };
        let mut bundle = crate::ops::bundle::from_peer(&manifest, &pages, source).map_err(|e| {
            OpError::unavailable(format!("the server's answer is not a pad: {}", e.detail))
        })?;
        // A locker server also proves the blocks in its log; a peer has no log.
        if kind == "locker" {
            let path =
                format!("{}?blocks={}", Self::pad_path(pad, "/log-proofs"), bundle.blocks.len());
            bundle.header.log = self.call("GET", &path, None, Body::None).ok();
        }
        Ok(bundle)
    }

    /// `GET /v1/pads?state=&limit=`.
    pub fn list(&self, state: Option<PadState>, limit: usize) -> OpResult<PadList> {
        let mut q = form_urlencoded::Serializer::new(String::new());
        if let Some(s) = state {
            q.append_pair("state", s.as_str());
        }
        q.append_pair("limit", &limit.to_string());
        self.call("GET", &format!("/v1/pads?{}", q.finish()), None, Body::None)
    }

    /// `POST /v1/deposit`.
    pub fn deposit(
        &self,
        envelope: &[u8],
        artifacts: &[DepositBlock],
        ttl_seconds: i64,
        proof: Option<&str>,
    ) -> OpResult<Deposited> {
        let req = DepositRequest::new(envelope, artifacts, ttl_seconds);
        self.post_paid("/v1/deposit", &req, proof)
    }

    /// `GET /v1/verify`.
    pub fn verify_repository(&self, expect_head: Option<Digest>) -> OpResult<RepoReport> {
        self.verify_repository_with(expect_head, false)
    }

    /// `GET /v1/verify?expect_head=&require_signed=1`.
    pub fn verify_repository_with(
        &self,
        expect_head: Option<Digest>,
        require_signed: bool,
    ) -> OpResult<RepoReport> {
        let mut q = form_urlencoded::Serializer::new(String::new());
        if let Some(h) = expect_head {
            q.append_pair("expect_head", &h.to_string());
        }
        if require_signed {
            q.append_pair("require_signed", "1");
        }
        let q = q.finish();
        let path = if q.is_empty() { "/v1/verify".to_owned() } else { format!("/v1/verify?{q}") };
        self.call("GET", &path, None, Body::None)
    }

    /// `GET /v1/pads/{id}/verify`.
    pub fn verify_pad(&self, pad: &str, expect_head: Option<Digest>) -> OpResult<PadReport> {
        let mut path = Self::pad_path(pad, "/verify");
        if let Some(h) = expect_head {
            path.push_str(&format!("?expect_head={h}"));
        }
        self.call("GET", &path, None, Body::None)
    }

    /// `POST /v1/artifact?format=locker` as the agent of `token`.
    pub fn artifact_publish(
        &self,
        token: Option<&Secret>,
        req: &PublishRequest<'_>,
    ) -> OpResult<Published> {
        let fence = req.fence.map(ToString::to_string);
        let mut body =
            NativePublish::new(req.key, req.expected_version, req.op_id, req.content, fence);
        let version = u64::try_from(req.expected_version).unwrap_or(0).saturating_add(1);
        if let Some((signer, sig)) = self.sign_here(token, req.signing, |keys| {
            Ok(Statement::artifact_publish(
                &keys.repository_id,
                &keys.scope,
                req.key,
                version,
                &Digest::of(req.content),
                req.fence.map(|f| (f.work.as_str(), f.token)),
            ))
        })? {
            body.signer = Some(signer);
            body.signature = Some(sig);
        }
        self.post_json("/v1/artifact?format=locker", token, &body)
    }

    /// `GET /v1/artifact?format=locker&key=K[&version=V]`.
    pub fn artifact_get(
        &self,
        token: Option<&Secret>,
        key: &str,
        version: Option<i64>,
    ) -> OpResult<ArtifactView> {
        let mut q = form_urlencoded::Serializer::new(String::new());
        q.append_pair("format", "locker").append_pair("key", key);
        if let Some(v) = version {
            q.append_pair("version", &v.to_string());
        }
        self.call("GET", &format!("/v1/artifact?{}", q.finish()), token, Body::None)
    }

    /// `GET /v1/artifact/log?key=K&after=&limit=`.
    pub fn artifact_log(
        &self,
        token: Option<&Secret>,
        key: &str,
        after: u64,
        limit: u64,
    ) -> OpResult<ArtifactLog> {
        let mut q = form_urlencoded::Serializer::new(String::new());
        q.append_pair("key", key)
            .append_pair("after", &after.to_string())
            .append_pair("limit", &limit.to_string());
        self.call("GET", &format!("/v1/artifact/log?{}", q.finish()), token, Body::None)
    }

    /// `GET /v1/artifacts?format=locker&after=&limit=`.
    pub fn artifact_list(
        &self,
        token: Option<&Secret>,
        after: Option<&str>,
        limit: u64,
    ) -> OpResult<ArtifactList> {
        let mut q = form_urlencoded::Serializer::new(String::new());
        q.append_pair("format", "locker").append_pair("limit", &limit.to_string());
        if let Some(a) = after {
            q.append_pair("after", a);
        }
        self.call("GET", &format!("/v1/artifacts?{}", q.finish()), token, Body::None)
    }

    /// `POST /lease`.
    pub fn lease_acquire(
        &self,
        token: Option<&Secret>,
        work: &str,
        ttl: i64,
        holder: Option<&str>,
        reopen: bool,
    ) -> OpResult<Acquired> {
        let body =
            serde_json::json!({"work_ref": work, "ttl": ttl, "holder": holder, "reopen": reopen});
        self.post_json("/lease", token, &body)
    }

    /// `POST /heartbeat`.
    pub fn lease_heartbeat(
        &self,
        token: Option<&Secret>,
        work: &str,
        lease: &str,
        details: Option<&str>,
    ) -> OpResult<LeaseView> {
        let body = serde_json::json!({"work_ref": work, "lease": lease, "details": details});
        self.post_json("/heartbeat", token, &body)
    }

    /// `POST /complete`.
    pub fn lease_complete(
        &self,
        token: Option<&Secret>,
        work: &str,
        lease: &str,
        result: Option<&str>,
    ) -> OpResult<Completed> {
        let body = serde_json::json!({"work_ref": work, "lease": lease, "result": result});
        self.post_json("/complete", token, &body)
    }

    /// `POST /v1/lease/release`.
    pub fn lease_release(
        &self,
        token: Option<&Secret>,
        work: &str,
        lease: &str,
    ) -> OpResult<Released> {
        let body = serde_json::json!({"work_ref": work, "lease": lease});
        self.post_json("/v1/lease/release", token, &body)
    }

    fn work_query(path: &str, work: &str, extra: &[(&str, String)]) -> String {
        let mut q = form_urlencoded::Serializer::new(String::new());
        q.append_pair("work", work);
        for (k, v) in extra {
            q.append_pair(k, v);
        }
        format!("{path}?{}", q.finish())
    }

    /// `GET /v1/lease?work=W`.
    pub fn lease_show(&self, token: Option<&Secret>, work: &str) -> OpResult<WorkStatus> {
        self.call("GET", &Self::work_query("/v1/lease", work, &[]), token, Body::None)
    }

    /// `GET /v1/leases`.
    pub fn lease_list(
        &self,
        token: Option<&Secret>,
        state: Option<LeaseState>,
        limit: u64,
    ) -> OpResult<LeaseList> {
        let mut q = form_urlencoded::Serializer::new(String::new());
        if let Some(s) = state {
            if let Some(name) =
                serde_json::to_value(s).ok().and_then(|v| v.as_str().map(str::to_owned))
            {
                q.append_pair("state", &name);
            }
        }
        q.append_pair("limit", &limit.to_string());
        self.call("GET", &format!("/v1/leases?{}", q.finish()), token, Body::None)
    }

    /// `POST /v1/leases/reap`.
    pub fn lease_reap(&self, token: Option<&Secret>) -> OpResult<Reaped> {
        self.call("POST", "/v1/leases/reap", token, Body::None)
    }

    /// `GET /ledger?work=W`: the work item's history.
    pub fn lease_history(&self, token: Option<&Secret>, work: &str) -> OpResult<History> {
        self.call("GET", &Self::work_query("/ledger", work, &[]), token, Body::None)
    }

    /// `POST /manifest`.
    pub fn plan_commit(
        &self,
        token: Option<&Secret>,
        work: &str,
        lease: &str,
        steps: Vec<String>,
    ) -> OpResult<PlanCommitted> {
        let body = serde_json::json!({"work_ref": work, "lease": lease, "steps": steps});
        self.post_json("/manifest", token, &body)
    }

    /// `GET /v1/manifest?work=W[&version=V]`.
    pub fn plan_show(
        &self,
        token: Option<&Secret>,
        work: &str,
        version: Option<u64>,
    ) -> OpResult<PlanView> {
        let extra: Vec<(&str, String)> =
            version.map(|v| ("version", v.to_string())).into_iter().collect();
        self.call("GET", &Self::work_query("/v1/manifest", work, &extra), token, Body::None)
    }

    /// `GET /v1/manifest/diff?work=W`.
    pub fn plan_diff(&self, token: Option<&Secret>, work: &str) -> OpResult<Diff> {
        self.call("GET", &Self::work_query("/v1/manifest/diff", work, &[]), token, Body::None)
    }

    /// `POST /event`.
    pub fn step_record(
        &self,
        token: Option<&Secret>,
        work: &str,
        lease: &str,
        input: &StepInput<'_>,
    ) -> OpResult<StepView> {
        let mut body = serde_json::json!({
            "work_ref": work, "lease": lease, "step": input.step, "planned": input.planned,
            "executed": input.executed, "gate": input.gate,
        });
        let gate = input.gate.unwrap_or(crate::domain::work::DEFAULT_GATE);
        if let Some((signer, sig)) = self.sign_here(token, input.signing, |keys| {
            let fence = self.lease_show(token, work)?.lease.fence;
            Ok(Statement::step_record(
                &keys.repository_id,
                &keys.scope,
                work,
                lease,
                input.step,
                fence,
                &crate::domain::sign::step_digest(input.planned, input.executed, gate),
            ))
        })? {
            body["signer"] = signer.into();
            body["signature"] = sig.into();
        }
        self.post_json("/event", token, &body)
    }

    /// `GET /v1/checkpoint`: the log's latest signed checkpoint.
    pub fn checkpoint(&self) -> OpResult<crate::ops::tlog::CheckpointOutcome> {
        self.call("GET", "/v1/checkpoint", None, Body::None)
    }

    /// `GET /v1/key`: the log's verifier key.
    pub fn log_key(&self) -> OpResult<crate::ops::tlog::KeyOutcome> {
        self.call("GET", "/v1/key", None, Body::None)
    }

    /// `GET /v1/proof/inclusion?seq=` or `?pad=&block=`.
    pub fn prove_inclusion(
        &self,
        target: &crate::ops::tlog::Target,
    ) -> OpResult<crate::ops::tlog::InclusionOutcome> {
        let mut q = form_urlencoded::Serializer::new(String::new());
        match target {
            crate::ops::tlog::Target::Entry(seq) => q.append_pair("seq", &seq.to_string()),
            crate::ops::tlog::Target::Block { pad_id, seq } => {
                q.append_pair("pad", pad_id).append_pair("block", &seq.to_string())
            }
        };
        self.call("GET", &format!("/v1/proof/inclusion?{}", q.finish()), None, Body::None)
    }

    /// `GET /v1/proof/consistency?old=&new=`.
    pub fn prove_consistency(
        &self,
        old: u64,
        new: Option<u64>,
    ) -> OpResult<crate::ops::tlog::ConsistencyOutcome> {
        let mut path = format!("/v1/proof/consistency?old={old}");
        if let Some(n) = new {
            path.push_str(&format!("&new={n}"));
        }
        self.call("GET", &path, None, Body::None)
    }

    /// `GET /v1/journal`.
    pub fn log(&self, q: &JournalQuery) -> OpResult<LogPage> {
        let mut s = form_urlencoded::Serializer::new(String::new());
        let mut put = |k: &str, v: Option<String>| {
            if let Some(v) = v {
                s.append_pair(k, &v);
            }
        };
        put("kind", q.kind.clone());
        put("subject", q.subject.clone());
        put("actor", q.actor.clone());
        put("scope", q.scope.clone());
        put("after", q.after.map(|v| v.to_string()));
        put("before", q.before.map(|v| v.to_string()));
        put("limit", Some(q.limit.to_string()));
        if q.ascending {
            put("reverse", Some("1".into()));
        }
        self.call("GET", &format!("/v1/journal?{}", s.finish()), None, Body::None)
    }
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
