//! The JSON bodies of locker's own routes that its client writes and `locker serve` reads: one
//! definition for both sides (the server's parsing, with the peers' formats, is in
//! `crate::server::wire`).

use base64::Engine as _;
use serde::{Deserialize, Serialize};

use crate::ops::pad::DepositBlock;

/// The body of locker's own `POST /v1/deposit`: the envelope and the artifacts as exact bytes
/// (base64), and the pad's TTL.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DepositRequest {
    pub envelope_b64: String,
    #[serde(default)]
    pub artifacts: Vec<DepositArtifact>,
    #[serde(default = "default_ttl")]
    pub ttl_seconds: i64,
}

/// One artifact of a [`DepositRequest`].
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DepositArtifact {
    pub payload_b64: String,
    pub content_type: String,
}

fn default_ttl() -> i64 {
    i64::from(crate::domain::limits::DEFAULT_TTL_SECONDS)
}

impl DepositRequest {
    /// The request for these bytes.
    pub fn new(envelope: &[u8], artifacts: &[DepositBlock], ttl_seconds: i64) -> Self {
        let b64 = |b: &[u8]| base64::engine::general_purpose::STANDARD.encode(b);
        Self {
            envelope_b64: b64(envelope),
            artifacts: artifacts
                .iter()
                .map(|a| DepositArtifact {
                    payload_b64: b64(&a.payload),
                    content_type: a.content_type.clone(),
                })
                .collect(),
            ttl_seconds,
        }
    }
}

/// The body of `POST /v1/keys`: an agent's verifier key, and for a rotation the current key's
/// signature over it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegisterKeyRequest {
    pub public_key: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation_signature: Option<String>,
}

/// The body of locker's own `POST /v1/pads/{id}/tickets/revoke`: the ticket or its id.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RevokeRequest {
    pub ticket: String,
}

/// locker's publish body: questlock's, or with `content_b64` for content that is not text.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NativePublish {
    #[serde(default)]
    pub key: Option<String>,
    #[serde(default)]
    pub expected_version: Option<i64>,
    #[serde(default)]
    pub operation_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_b64: Option<String>,
    /// The lease fence the publish is made under: `WORK:TOKEN`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fence: Option<String>,
    /// The agent whose key signed the publish.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signer: Option<String>,
    /// The agent's Ed25519 signature over the publish, in standard base64.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
}

impl NativePublish {
    /// The body for these bytes: text as `content`, anything else as `content_b64`.
    pub fn new(
        key: &str,
        expected_version: i64,
        operation_id: &str,
        content: &[u8],
        fence: Option<String>,
    ) -> Self {
        let (text, b64) = match std::str::from_utf8(content) {
            Ok(t) => (Some(t.to_owned()), None),
            Err(_) => (None, Some(base64::engine::general_purpose::STANDARD.encode(content))),
        };
        Self {
            key: Some(key.to_owned()),
            expected_version: Some(expected_version),
            operation_id: Some(operation_id.to_owned()),
            content: text,
            content_b64: b64,
            fence,
            signer: None,
            signature: None,
        }
    }
}
