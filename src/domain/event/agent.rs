//! Agents: `token.create` and `token.revoke` (an agent's token), `key.register` and
//! `key.revoke` (its signing keys), and the signature a write carries.

use serde::{Deserialize, Serialize};

use crate::domain::digest::Digest;

/// `token.create`: an agent made in a scope, with its token's digest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenCreate {
    pub agent: String,
    pub scope: String,
    pub token_id: Digest,
}

/// `token.revoke`: an agent's token revoked for good.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenRevoke {
    pub agent: String,
    pub scope: String,
    pub token_id: Digest,
}

/// `key.register`: an agent's public signing key (signed-note `vkey` form). Who registered it
/// is the entry's actor: the agent itself (with its token) or the operator.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyRegister {
    pub agent: String,
    pub key_id: String,
    pub vkey: String,
    /// A rotation: the agent's key this one replaces (revoked by this entry), and that old
    /// key's signature over the rotation. Only in rotations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotates: Option<KeyRotation>,
}

/// The key a rotation replaces, and its signature over the rotation statement
/// ([`crate::domain::sign::Statement::key_rotation`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyRotation {
    pub key_id: String,
    /// Standard base64 of the old key's 64-byte Ed25519 signature.
    pub signature: String,
}

/// `key.revoke`: an agent's active keys revoked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyRevoke {
    pub agent: String,
    pub key_ids: Vec<String>,
}

/// The signature a pad append, an artifact publish or a step carries (`"signed"`): checked
/// against the signer's registered key when it was written, re-checked by `locker verify`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Signed {
    pub signer: String,
    pub key_id: String,
    /// Standard base64 of the 64-byte Ed25519 signature.
    pub signature: String,
}
