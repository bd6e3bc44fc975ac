//! The peer's request formats, parsed the way its daemon parses them, so that its clients get
//! the same answers from `locker serve`: small JSON bodies read under a 4096-byte cap and
//! validated leniently (pydantic's lax mode: `"60"`, `60.0` and `true` are integers; unknown
//! fields are ignored; an empty body, an array or a non-object is invalid), and integer query
//! parameters.
//!
//! locker's own bodies, which its client writes too, are in [`crate::api::wire`]; this module
//! only reads them.

use base64::Engine as _;
use serde::Deserialize;
use serde_json::Value;

use crate::api::wire::{DepositRequest, NativePublish, RevokeRequest};
use crate::domain::limits::{PadLimits, MAX_JSON_BODY_BYTES};
use crate::domain::pad::TicketType;
use crate::ops::pad::DepositBlock;
use crate::ops::{ErrorKind, OpError, OpResult};

/// The error for a JSON body over [`MAX_JSON_BODY_BYTES`].
pub fn json_body_too_large() -> OpError {
    OpError::too_large(format!("request body exceeds {MAX_JSON_BODY_BYTES} bytes"))
}

/// Checks a JSON body's length (or its announced length) against [`MAX_JSON_BODY_BYTES`].
pub fn check_json_body_size(len: u64) -> OpResult<()> {
    if len > MAX_JSON_BODY_BYTES as u64 {
        return Err(json_body_too_large());
    }
    Ok(())
}

fn invalid_body() -> OpError {
    OpError::unprocessable("invalid request body")
}

/// Parses a body that must be one JSON object.
fn object(raw: &[u8]) -> OpResult<serde_json::Map<String, Value>> {
    check_json_body_size(raw.len() as u64)?;
    match serde_json::from_slice::<Value>(raw) {
        Ok(Value::Object(m)) => Ok(m),
        _ => Err(invalid_body()),
    }
}

/// An integer the way pydantic's lax mode reads one from JSON.
fn lax_int(v: &Value) -> Option<i64> {
    match v {
        Value::Bool(b) => Some(i64::from(*b)),
        Value::Number(n) => n.as_i64().or_else(|| {
            let f = n.as_f64()?;
            // Whole, finite and in range (the casts below are exact for such values).
            (f.is_finite() && f.fract() == 0.0 && f.abs() < 9.0e18).then_some(f as i64)
        }),
        Value::String(s) => lax_int_str(s),
        _ => None,
    }
}

/// An integer in a string, as pydantic reads it: surrounding whitespace, an optional sign,
/// digits with single underscores between them, and an optional fraction of zeros (`"60.0"`).
pub fn lax_int_str(s: &str) -> Option<i64> {
    let s = s.trim();
    let (neg, rest) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let (int_part, frac) = match rest.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (rest, None),
    };
    if let Some(f) = frac {
        if f.is_empty() || !f.bytes().all(|b| b == b'0') {
            return None;
        }
    }
    if int_part.is_empty()
        || int_part.starts_with('_')
        || int_part.ends_with('_')
        || int_part.contains("__")
        || !int_part.bytes().all(|b| b.is_ascii_digit() || b == b'_')
    {
        return None;
    }
    let digits: String = int_part.chars().filter(|c| *c != '_').collect();
    let n: i64 = digits.parse().ok()?;
    Some(if neg { -n } else { n })
}

/// The body of `POST /v1/pads`: `{"ttl_seconds": int = 3600, "max_blocks": int = 32}`.
pub fn create_request(raw: &[u8]) -> OpResult<PadLimits> {
    let m = object(raw)?;
    let field = |k: &str, default: u32| match m.get(k) {
        None => Ok(i64::from(default)),
        Some(v) => lax_int(v).ok_or_else(invalid_body),
    };
    let defaults = PadLimits::default();
    let ttl = field("ttl_seconds", defaults.ttl_seconds)?;
    let blocks = field("max_blocks", defaults.max_blocks)?;
    PadLimits::new(ttl, blocks).map_err(|_| invalid_body())
}

/// The body of `POST /v1/pads/{id}/tickets`: `{"type": "read_once" | "read_unlimited"}`
/// (default `read_unlimited`).
pub fn ticket_request(raw: &[u8]) -> OpResult<TicketType> {
    let m = object(raw)?;
    let t = match m.get("type") {
        None => return Ok(TicketType::ReadUnlimited),
        Some(Value::String(s)) => s,
        Some(_) => return Err(invalid_body()),
    };
    TicketType::parse(t).ok_or_else(|| {
        OpError::unprocessable(format!(
            "type must be 'read_once' or 'read_unlimited', got {}",
            python_repr(t)
        ))
    })
}

/// A string as Python's `repr` shows it (the peer puts it into error details).
pub fn python_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || (0x7f..0xa0).contains(&(c as u32)) => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Largest `POST /v1/deposit` body: a full pad in base64 with room for the JSON around it.
pub const MAX_DEPOSIT_BODY_BYTES: usize = 512 * 1024;

/// Parses a `POST /v1/deposit` body and decodes its blocks: the envelope, the artifacts and the
/// pad's TTL.
pub fn deposit_request(raw: &[u8]) -> OpResult<(Vec<u8>, Vec<DepositBlock>, i64)> {
    if raw.len() > MAX_DEPOSIT_BODY_BYTES {
        return Err(OpError::too_large(format!(
            "request body exceeds {MAX_DEPOSIT_BODY_BYTES} bytes"
        )));
    }
    let req: DepositRequest = serde_json::from_slice(raw)
        .map_err(|e| OpError::unprocessable(format!("invalid request body: {e}")))?;
    let decode = |what: &str, s: &str| {
        base64::engine::general_purpose::STANDARD
            .decode(s)
            .map_err(|_| OpError::unprocessable(format!("{what} is not valid base64")))
    };
    let envelope = decode("envelope_b64", &req.envelope_b64)?;
    let mut blocks = Vec::with_capacity(req.artifacts.len());
    for (i, a) in req.artifacts.iter().enumerate() {
        blocks.push(DepositBlock {
            payload: decode(&format!("artifacts[{i}].payload_b64"), &a.payload_b64)?,
            content_type: a.content_type.clone(),
        });
    }
    Ok((envelope, blocks, req.ttl_seconds))
}

/// Parses a `POST /v1/pads/{id}/tickets/revoke` body.
pub fn revoke_request(raw: &[u8]) -> OpResult<RevokeRequest> {
    check_json_body_size(raw.len() as u64)?;
    serde_json::from_slice(raw).map_err(|_| invalid_body())
}

/// Largest body of `POST /v1/artifact` (questlock's: 6 MiB + 64 KiB, room for JSON escapes).
pub const MAX_PUBLISH_BODY_BYTES: usize = 6 * 1024 * 1024 + 64 * 1024;

/// A publish as it arrives over HTTP.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublishBody {
    pub key: String,
    pub expected_version: i64,
    pub operation_id: String,
    pub content: Vec<u8>,
    /// `WORK:TOKEN` (locker's form only).
    pub fence: Option<String>,
    /// The signing agent and its base64 signature (locker's form only; see `ops::keys`).
    pub signer: Option<String>,
    pub signature: Option<String>,
}

/// questlock's publish body: exactly these four fields.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct QuestlockPublish {
    #[serde(default)]
    key: Option<String>,
    #[serde(default)]
    expected_version: Option<i64>,
    #[serde(default)]
    operation_id: Option<String>,
    #[serde(default)]
    content: Option<String>,
}

/// The error for a publish body over [`MAX_PUBLISH_BODY_BYTES`].
pub fn publish_too_large() -> OpError {
    OpError::new(ErrorKind::TooLarge, "too_large", "request body exceeds the size limit")
}

fn invalid_input(detail: &str) -> OpError {
    OpError::new(ErrorKind::BadRequest, "invalid", detail)
}

/// Parses a publish body in questlock's order of checks: size (413), UTF-8, one JSON object
/// with known fields, `expected_version`, `content`. `native` also accepts `content_b64`.
pub fn publish_request(raw: &[u8], native: bool) -> OpResult<PublishBody> {
    if raw.len() > MAX_PUBLISH_BODY_BYTES {
        return Err(publish_too_large());
    }
    let text =
        std::str::from_utf8(raw).map_err(|_| invalid_input("body must contain valid UTF-8"))?;
    let shape =
        || invalid_input("body must contain exactly one valid JSON object with known fields");
    // One JSON value (no trailing data; a repeated key keeps its last value, as Go's decoder
    // does), and an object or `null` (Go decodes `null` into an empty struct).
    let value: Value = serde_json::from_str(text).map_err(|_| shape())?;
    if !(value.is_object() || value.is_null()) {
        return Err(shape());
    }
    let body: NativePublish = if native {
        serde_json::from_value::<Option<NativePublish>>(value).map_err(|_| shape())?
    } else {
        serde_json::from_value::<Option<QuestlockPublish>>(value).map_err(|_| shape())?.map(|q| {
            NativePublish {
                key: q.key,
                expected_version: q.expected_version,
                operation_id: q.operation_id,
                content: q.content,
                content_b64: None,
                fence: None,
                signer: None,
                signature: None,
            }
        })
    }
    .unwrap_or(NativePublish {
        key: None,
        expected_version: None,
        operation_id: None,
        content: None,
        content_b64: None,
        fence: None,
        signer: None,
        signature: None,
    });
    let expected_version = body
        .expected_version
        .ok_or_else(|| invalid_input("expected_version is required and must be an integer"))?;
    let content = match (body.content, body.content_b64) {
        (Some(t), None) => t.into_bytes(),
        (None, Some(b)) => base64::engine::general_purpose::STANDARD
            .decode(b)
            .map_err(|_| invalid_input("content_b64 must be standard base64"))?,
        (Some(_), Some(_)) => return Err(invalid_input("give content or content_b64, not both")),
        (None, None) => {
            return Err(invalid_input(
                "content is required and must be a string (empty is allowed)",
            ))
        }
    };
    Ok(PublishBody {
        key: body.key.unwrap_or_default(),
        expected_version,
        operation_id: body.operation_id.unwrap_or_default(),
        content,
        fence: body.fence,
        signer: body.signer,
        signature: body.signature,
    })
}

/// Largest body of the lease routes (a plan of up to 1 MiB, with room for JSON).
pub const MAX_LEASE_BODY_BYTES: usize = 1024 * 1024 + 64 * 1024;

/// The fields of a JSON object body (agentstate's lease routes), read with clear errors.
#[derive(Debug, Clone, Default)]
pub struct Fields(serde_json::Map<String, Value>);

impl Fields {
    /// Parses a body that must be one JSON object (an empty body is an empty object).
    pub fn parse(raw: &[u8]) -> OpResult<Self> {
        if raw.len() > MAX_LEASE_BODY_BYTES {
            return Err(OpError::too_large(format!(
                "request body exceeds {MAX_LEASE_BODY_BYTES} bytes"
            )));
        }
        if raw.iter().all(u8::is_ascii_whitespace) {
            return Ok(Self::default());
        }
        match serde_json::from_slice::<Value>(raw) {
            Ok(Value::Object(m)) => Ok(Self(m)),
            _ => Err(OpError::bad_request("the body must be one JSON object")),
        }
    }

    fn get(&self, k: &str) -> Option<&Value> {
        self.0.get(k).filter(|v| !v.is_null())
    }

    /// An optional string field.
    pub fn text(&self, k: &str) -> OpResult<Option<String>> {
        match self.get(k) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(OpError::bad_request(format!("`{k}` must be a string"))),
        }
    }

    /// A required string field.
    pub fn required(&self, k: &str) -> OpResult<String> {
        self.text(k)?.ok_or_else(|| OpError::bad_request(format!("`{k}` is required")))
    }

    /// The first of several names that is present (agentstate's aliases).
    pub fn required_any(&self, names: &[&str]) -> OpResult<String> {
        for n in names {
            if let Some(v) = self.text(n)? {
                return Ok(v);
            }
        }
        Err(OpError::bad_request(format!("`{}` is required", names[0])))
    }

    /// An optional integer field (lax: `300`, `300.0`, `"300"`).
    pub fn int(&self, k: &str) -> OpResult<Option<i64>> {
        self.get(k)
            .map(|v| {
                lax_int(v).ok_or_else(|| OpError::bad_request(format!("`{k}` must be an integer")))
            })
            .transpose()
    }

    /// An optional boolean field.
    pub fn flag(&self, k: &str) -> OpResult<bool> {
        match self.get(k) {
            None => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(OpError::bad_request(format!("`{k}` must be true or false"))),
        }
    }

    /// A required list of strings.
    pub fn strings(&self, k: &str) -> OpResult<Vec<String>> {
        let bad = || OpError::bad_request(format!("`{k}` must be a list of strings"));
        match self.get(k) {
            None => Err(OpError::bad_request(format!("`{k}` is required"))),
            Some(Value::Array(a)) => {
                a.iter().map(|v| v.as_str().map(str::to_owned).ok_or_else(bad)).collect()
            }
            Some(_) => Err(bad()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::ErrorKind;

    #[test]
    fn create_bodies_are_read_leniently() {
        let ok = |raw: &str| create_request(raw.as_bytes()).unwrap();
        assert_eq!(ok("{}"), PadLimits::default());
        assert_eq!(ok(r#"{"ttl_seconds":"60"}"#).ttl_seconds, 60);
        assert_eq!(ok(r#"{"ttl_seconds":" 60 "}"#).ttl_seconds, 60);
        assert_eq!(ok(r#"{"ttl_seconds":"60.00"}"#).ttl_seconds, 60);
        assert_eq!(ok(r#"{"ttl_seconds":"1_000"}"#).ttl_seconds, 1000);
        assert_eq!(ok(r#"{"ttl_seconds":true}"#).ttl_seconds, 1);
        assert_eq!(ok(r#"{"ttl_seconds":2.0,"max_blocks":1e3}"#).max_blocks, 1000);
        assert_eq!(ok(r#"{"ttl_seconds":60,"extra":[1]}"#).ttl_seconds, 60);
        for bad in [
            "",
            "[]",
            "5",
            "{",
            r#"{"ttl_seconds":60}x"#,
            r#"{"ttl_seconds":null}"#,
            r#"{"ttl_seconds":1.5}"#,
            r#"{"ttl_seconds":"1e3"}"#,
            r#"{"ttl_seconds":"60."}"#,
            r#"{"ttl_seconds":"1__0"}"#,
            r#"{"ttl_seconds":0}"#,
            r#"{"ttl_seconds":60,"ttl_seconds":0}"#,
            r#"{"max_blocks":4097}"#,
            r#"{"max_blocks":"-0"}"#,
        ] {
            let e = create_request(bad.as_bytes()).unwrap_err();
            assert_eq!(
                (e.kind, e.detail.as_str()),
                (ErrorKind::Unprocessable, "invalid request body"),
                "{bad}"
            );
        }
        let big = format!(r#"{{"pad":"{}"}}"#, "x".repeat(4096));
        assert_eq!(create_request(big.as_bytes()).unwrap_err().kind, ErrorKind::TooLarge);
    }

    #[test]
    fn publish_bodies_follow_questlock() {
        let ok = publish_request(
            br#"{"key":"a/b","expected_version":0,"operation_id":"op","content":""}"#,
            false,
        )
        .unwrap();
        assert_eq!((ok.key.as_str(), ok.expected_version, ok.content.len()), ("a/b", 0, 0));
        let detail = |raw: &[u8]| publish_request(raw, false).unwrap_err().detail;
        assert_eq!(detail(b"\xff"), "body must contain valid UTF-8");
        for bad in
            [&b""[..], b"[]", b"{", br#"{"expected_version":"0"}"#, br#"{"x":1}"#, br#"{} {}"#]
        {
            assert_eq!(
                detail(bad),
                "body must contain exactly one valid JSON object with known fields",
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
        assert_eq!(detail(b"null"), "expected_version is required and must be an integer");
        assert_eq!(
            detail(br#"{"expected_version":1,"content":null}"#),
            "content is required and must be a string (empty is allowed)"
        );
        // Only locker's own form takes bytes.
        let raw = br#"{"key":"k","expected_version":0,"operation_id":"o","content_b64":"/w=="}"#;
        assert_eq!(publish_request(raw, true).unwrap().content, vec![0xff]);
        assert!(publish_request(raw, false).is_err());
    }

    #[test]
    fn ticket_bodies_follow_the_peer() {
        assert_eq!(ticket_request(b"{}").unwrap(), TicketType::ReadUnlimited);
        assert_eq!(ticket_request(br#"{"type":"read_once"}"#).unwrap(), TicketType::ReadOnce);
        assert_eq!(ticket_request(br#"{"type":5}"#).unwrap_err().detail, "invalid request body");
        assert_eq!(ticket_request(b"").unwrap_err().detail, "invalid request body");
        assert_eq!(
            ticket_request(br#"{"type":"write"}"#).unwrap_err().detail,
            "type must be 'read_once' or 'read_unlimited', got 'write'"
        );
        assert_eq!(python_repr("it's"), "\"it's\"");
        assert_eq!(python_repr("a\nb\u{0}"), "'a\\nb\\x00'");
        assert_eq!(python_repr("é"), "'é'");
    }
}
