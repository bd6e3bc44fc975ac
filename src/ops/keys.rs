//! Signed writes: agent keys registered with the repository, the signature a pad append, an
//! artifact publish or a step may carry, and the policy that requires one.
//!
//! The rule is decided here once for the CLI, HTTP and MCP: a write's signature is checked
//! inside its write transaction against the signer's registered, unrevoked key, over the
//! canonical message of [`crate::domain::sign`]; a good one is recorded in the journal entry's
//! body (`"signed": {"signer", "key_id", "signature"}`), so the hash chain covers it and
//! `locker verify` re-checks it ([`crate::ops::verify::signatures`]). A missing signature is
//! refused only where the repository's `require_signed_appends` setting is on. A refused
//! signature changes nothing.

use serde::{Deserialize, Serialize};

use crate::domain::event::{Event, KeyRegister, KeyRevoke, RepoSetting, Signed};
use crate::domain::journal::Entry;
use crate::domain::sign::{self, PrivateKey, PublicKey, Statement};
use crate::domain::token::check_agent;
use crate::ops::auth::operator_only;
use crate::ops::log::journal;
use crate::ops::{Actor, Ctx, ErrorKind, OpError, OpResult};
use crate::store::{AgentKeyRow, Flow, JournalQuery, Tx};

/// The setting that makes unsigned appends, publishes and steps be refused.
pub const REQUIRE_SIGNED: &str = "require_signed_appends";

/// The HTTP header naming the agent that signed a pad append.
pub const SIGNER_HEADER: &str = "x-locker-signer";
/// The HTTP header holding the agent's base64 Ed25519 signature over a pad append.
pub const SIGNATURE_HEADER: &str = "x-locker-signature";

/// The signature a write carries.
#[derive(Debug, Clone)]
pub enum Signing {
    /// Computed by the client: the signing agent's name and the 64-byte Ed25519 signature.
    Provided { signer: String, signature: [u8; 64] },
    /// Made here with the agent's private key once the write's statement is known (the local
    /// CLI with `--sign-key`), then checked like a provided one.
    Key(PrivateKey),
}

impl Signing {
    /// The signing agent's name.
    pub fn signer(&self) -> &str {
        match self {
            Self::Provided { signer, .. } => signer,
            Self::Key(k) => &k.name,
        }
    }
}

fn invalid_signature(detail: impl Into<String>) -> OpError {
    OpError::new(ErrorKind::BadRequest, "invalid_signature", detail)
}

/// The signature fields of a request (HTTP, MCP): both `signer` and `signature` (standard
/// base64 of 64 bytes), or neither.
pub fn from_fields(signer: Option<&str>, signature: Option<&str>) -> OpResult<Option<Signing>> {
    let signer = signer.map(str::trim).filter(|s| !s.is_empty());
    let signature = signature.map(str::trim).filter(|s| !s.is_empty());
    match (signer, signature) {
        (None, None) => Ok(None),
        (Some(signer), Some(sig)) => {
            check_agent(signer).map_err(|e| invalid_signature(e.to_string()))?;
            let signature =
                sign::decode_signature(sig).map_err(|e| invalid_signature(e.to_string()))?;
            Ok(Some(Signing::Provided { signer: signer.to_owned(), signature }))
        }
        _ => Err(invalid_signature("a signature needs both `signer` and `signature`")),
    }
}

/// Reads a private key line (a `--sign-key` file or `LOCKER_SIGN_KEY`).
pub fn parse_private_key(text: &str) -> OpResult<PrivateKey> {
    let invalid = |why: String| OpError::new(ErrorKind::BadRequest, "invalid_key", why);
    let k = PrivateKey::parse(text).map_err(|e| {
        // A name the key codec refuses, `check_agent` refuses too: with its message, as before
        // the codec checked names.
        if let sign::SignError::BadName(name) = &e {
            if let Err(why) = check_agent(name) {
                return invalid(why.to_string());
            }
        }
        invalid(e.to_string())
            .hint("A signing key is the `PRIVATE+KEY+…` line `locker key generate` wrote.")
    })?;
    check_agent(&k.name).map_err(|e| invalid(e.to_string()))?;
    Ok(k)
}

/// The repository's id, as its first journal entry (`repo.init`) recorded it: what every
/// signature names, so that a signature made for one repository is worthless in another.
pub fn repository_id(tx: &dyn Tx) -> OpResult<String> {
    let q = JournalQuery { ascending: true, limit: 1, ..JournalQuery::default() };
    let first = tx.journal(&q)?.into_iter().next();
    first
        .and_then(|row| Entry::decode(&row.entry).ok())
        .and_then(|e| match e.event() {
            Ok(Event::RepoInit(init)) => Some(init.repository_id),
            _ => None,
        })
        .ok_or_else(|| {
            OpError::integrity("the journal does not open with the repository's `repo.init` entry")
        })
}

/// Whether the repository refuses unsigned writes.
pub fn required(tx: &dyn Tx) -> OpResult<bool> {
    Ok(tx.setting(REQUIRE_SIGNED)?.as_deref() == Some("true"))
}

/// Checks a write's signature inside its transaction (`statement` builds what it must cover
/// from the repository id). Returns what the journal entry records under `signed`, or `None`
/// for an unsigned write the policy allows.
pub fn check(
    tx: &dyn Tx,
    signing: Option<&Signing>,
    statement: impl FnOnce(String) -> Statement,
) -> OpResult<Option<Signed>> {
    let Some(signing) = signing else {
        if required(tx)? {
            return Err(OpError::new(
                ErrorKind::Forbidden,
                "signature_required",
                "this repository requires signed appends, publishes and steps",
            )
            .hint("Sign with `--sign-key FILE` or `LOCKER_SIGN_KEY` (a key from `locker key generate`), or send `signer` and `signature`."));
        }
        return Ok(None);
    };
    let st = statement(repository_id(tx)?);
    let message = st.message();
    let (signer, signature) = match signing {
        Signing::Provided { signer, signature } => (signer.clone(), *signature),
        Signing::Key(k) => (k.name.clone(), k.sign(&message)),
    };
    let keys = tx.agent_keys(&signer)?;
    if keys.is_empty() {
        return Err(OpError::new(
            ErrorKind::Forbidden,
            "unknown_signer",
            format!("agent {signer} has no registered signing key"),
        )
        .with("signer", signer.as_str())
        .hint(format!("The operator registers one with `locker key generate --agent {signer}`.")));
    }
    let active: Vec<&AgentKeyRow> = keys.iter().filter(|k| k.revoked_at.is_none()).collect();
    if active.is_empty() {
        return Err(OpError::new(
            ErrorKind::Forbidden,
            "key_revoked",
            format!("agent {signer}'s signing key has been revoked"),
        )
        .with("signer", signer.as_str())
        .hint("Ask the operator for a new key (`locker key generate`)."));
    }
    for k in active {
        let Ok(pk) = PublicKey::parse(&k.vkey) else { continue };
        if pk.verify(&message, &signature).is_ok() {
            return Ok(Some(Signed {
                signer,
                key_id: k.key_id.clone(),
                signature: sign::encode_signature(&signature),
            }));
        }
    }
    Err(OpError::new(
        ErrorKind::Forbidden,
        "bad_signature",
        format!("the signature of agent {signer} does not verify for this write"),
    )
    .with("signer", signer.as_str())
    .with("signed_message", String::from_utf8_lossy(&message).into_owned())
    .hint("Sign exactly `signed_message` with the agent's registered key (it names the block, version or fencing token the write gets)."))
}

// ---------------------------------------------------------------------------------------------
// Keys.

/// A new agent key: the private key is shown once and never stored.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct KeyGenerated {
    pub agent: String,
    pub key_id: String,
    /// The public key in signed-note form (registered with the repository).
    pub vkey: String,
    /// The private key (`PRIVATE+KEY+…`); absent when it was written to a file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub private_key: Option<String>,
    /// Where the private key was written, if it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub private_key_file: Option<String>,
    pub created_at: i64,
}

/// A revoked agent key.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct KeyRevoked {
    pub agent: String,
    pub key_ids: Vec<String>,
    pub revoked_at: i64,
    /// `true` when every key was already revoked (nothing changed).
    pub already_revoked: bool,
}

/// One registered key.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct KeyView {
    pub agent: String,
    pub key_id: String,
    pub vkey: String,
    /// `active` or `revoked`.
    pub state: String,
    pub created_at: i64,
    pub revoked_at: Option<i64>,
}

/// The registered keys and the signing policy: what a client needs to sign.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct KeyList {
    /// The id every signed message names.
    pub repository_id: String,
    /// The caller's scope: the scope its artifact and step signatures name.
    pub scope: String,
    /// Whether unsigned appends, publishes and steps are refused.
    pub require_signed_appends: bool,
    pub keys: Vec<KeyView>,
}

/// The signing policy after a change.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PolicySet {
    pub require_signed_appends: bool,
    /// `false` when it already had this value (nothing changed).
    pub changed: bool,
}

/// Registers the public half of `key` (made by [`PrivateKey::generate`] and kept by the agent)
/// for its agent (operator only). An agent with an active key must have it revoked first.
pub fn register(ctx: &mut Ctx<'_>, key: &PrivateKey) -> OpResult<KeyGenerated> {
    operator_only(&ctx.actor, "register signing keys")?;
    let agent = key.name.as_str();
    check_agent(agent)
        .map_err(|e| OpError::new(ErrorKind::BadRequest, "invalid", e.to_string()))?;
    let now = ctx.now();
    let public = key.public();
    let row = AgentKeyRow {
        agent: agent.to_owned(),
        key_id: public.key_id(),
        vkey: public.vkey(),
        created_at: now,
        revoked_at: None,
    };
    let mut tx = ctx.store.write()?;
    if tx.agent_keys(agent)?.iter().any(|k| k.revoked_at.is_none()) {
        return Err(OpError::new(
            ErrorKind::Conflict,
            "key_exists",
            format!("agent {agent} already has an active signing key"),
        )
        .hint(format!("Revoke it first with `locker key revoke --agent {agent}`.")));
    }
    tx.insert_agent_key(&row)?;
    journal::append(
        tx.as_mut(),
        &ctx.actor,
        now,
        KeyRegister {
            agent: agent.to_owned(),
            key_id: row.key_id.clone(),
            vkey: row.vkey.clone(),
            rotates: None,
        },
    )?;
    tx.commit()?;
    Ok(KeyGenerated {
        agent: agent.to_owned(),
        key_id: row.key_id,
        vkey: row.vkey,
        private_key: None,
        private_key_file: None,
        created_at: now,
    })
}

/// Revokes an agent's keys (operator only): signatures made with them are refused from now
/// on; what they signed before stays verified. Revoking again changes nothing.
pub fn revoke(ctx: &mut Ctx<'_>, agent: &str) -> OpResult<KeyRevoked> {
    operator_only(&ctx.actor, "revoke signing keys")?;
    check_agent(agent)
        .map_err(|e| OpError::new(ErrorKind::BadRequest, "invalid", e.to_string()))?;
    let now = ctx.now();
    let mut tx = ctx.store.write()?;
    let keys = tx.agent_keys(agent)?;
    if keys.is_empty() {
        return Err(OpError::not_found(format!("agent {agent} has no signing key"))
            .hint("`locker key list` shows the registered keys."));
    }
    let active: Vec<AgentKeyRow> =
        keys.iter().filter(|k| k.revoked_at.is_none()).cloned().collect();
    if active.is_empty() {
        let at = keys.iter().filter_map(|k| k.revoked_at).max().unwrap_or(now);
        return Ok(KeyRevoked {
            agent: agent.to_owned(),
            key_ids: keys.into_iter().map(|k| k.key_id).collect(),
            revoked_at: at,
            already_revoked: true,
        });
    }
    let mut ids = Vec::new();
    for mut k in active {
        k.revoked_at = Some(now);
        tx.update_agent_key(&k)?;
        ids.push(k.key_id);
    }
    journal::append(
        tx.as_mut(),
        &ctx.actor,
        now,
        KeyRevoke { agent: agent.to_owned(), key_ids: ids.clone() },
    )?;
    tx.commit()?;
    Ok(KeyRevoked {
        agent: agent.to_owned(),
        key_ids: ids,
        revoked_at: now,
        already_revoked: false,
    })
}

/// Lists the registered keys and the policy (public: anyone may read them).
pub fn list(ctx: &mut Ctx<'_>) -> OpResult<KeyList> {
    let tx = ctx.store.read()?;
    let mut keys = Vec::new();
    tx.for_each_agent_key(&mut |k| {
        keys.push(KeyView {
            state: if k.revoked_at.is_some() { "revoked" } else { "active" }.into(),
            agent: k.agent,
            key_id: k.key_id,
            vkey: k.vkey,
            created_at: k.created_at,
            revoked_at: k.revoked_at,
        });
        Flow::Continue(())
    })?;
    Ok(KeyList {
        repository_id: repository_id(tx.as_ref())?,
        scope: ctx.actor.scope.clone(),
        require_signed_appends: required(tx.as_ref())?,
        keys,
    })
}

/// Turns the signing policy on or off (operator only; journaled as `repo.setting`).
pub fn set_required(ctx: &mut Ctx<'_>, on: bool) -> OpResult<PolicySet> {
    operator_only(&ctx.actor, "change the signing policy")?;
    let now = ctx.now();
    let mut tx = ctx.store.write()?;
    if required(tx.as_ref())? == on {
        return Ok(PolicySet { require_signed_appends: on, changed: false });
    }
    let value = if on { "true" } else { "false" };
    tx.set_setting(REQUIRE_SIGNED, value)?;
    journal::append(
        tx.as_mut(),
        &Actor::operator(),
        now,
        RepoSetting { name: REQUIRE_SIGNED.to_owned(), value: value.to_owned() },
    )?;
    tx.commit()?;
    Ok(PolicySet { require_signed_appends: on, changed: true })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signing_key_with_a_bad_agent_name_gets_check_agents_message() {
        let good = PrivateKey::from_seed("worker-a", [7; 32]).unwrap().skey();
        assert_eq!(parse_private_key(&good).unwrap().name, "worker-a");
        // A valid key name that is no agent name; one that is neither (which the key codec
        // refuses first): the same refusal, as before the codec checked names.
        let slash = PrivateKey::from_seed("a/b", [7; 32]).unwrap().skey();
        let seed = ed25519_dalek::SigningKey::from_bytes(&[7; 32]);
        let spaced =
            crate::domain::key::encode_skey("a b", crate::domain::key::Alg::Ed25519, &seed);
        for (skey, name) in [(slash, "a/b"), (spaced, "a b")] {
            let e = parse_private_key(&skey).unwrap_err();
            let want = check_agent(name).unwrap_err().to_string();
            assert_eq!((e.code.as_ref(), e.detail.as_str()), ("invalid_key", want.as_str()));
            assert!(e.hints.is_empty(), "{:?}", e.hints);
        }
        let e = parse_private_key("not a key").unwrap_err();
        assert_eq!(e.code, "invalid_key");
        assert_eq!(e.hints.len(), 1);
    }
}
