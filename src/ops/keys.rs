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

use crate::domain::event::{Event, KeyRegister, KeyRevoke, KeyRotation, RepoSetting, Signed};
use crate::domain::journal::Entry;
use crate::domain::sign::{self, PrivateKey, PublicKey, Statement};
use crate::domain::token::check_agent;
use crate::ops::auth::operator_only;
use crate::ops::log::journal;
use crate::ops::{Actor, ActorKind, Ctx, ErrorKind, OpError, OpResult};
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
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
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
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
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
    /// Who registered it, as the journal says: `self` (the agent, with its token) or
    /// `operator`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registered_by: Option<String>,
}

/// The registered keys and the signing policy: what a client needs to sign.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct KeyList {
    /// The id every signed message names.
    pub repository_id: String,
    /// The caller's scope: the scope its artifact and step signatures name.
    pub scope: String,
    /// The caller's agent, when it presented a token (the name its keys must carry).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// Whether unsigned appends, publishes and steps are refused.
    pub require_signed_appends: bool,
    pub keys: Vec<KeyView>,
}

/// The signing policy after a change.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PolicySet {
    pub require_signed_appends: bool,
    /// `false` when it already had this value (nothing changed).
    pub changed: bool,
}

/// A registered key (`locker key register`, `POST /v1/keys`, `locker_key_register`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct KeyRegistered {
    pub agent: String,
    pub key_id: String,
    /// The verifier key, in signed-note form.
    pub vkey: String,
    /// Who registered it: `self` (the agent, with its own token) or `operator`.
    pub registered_by: String,
    /// A rotation: the key this one replaced (and which signed the hand-over); now revoked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotated: Option<String>,
    pub created_at: i64,
}

/// `self` when `actor` is `agent` itself, else `operator` (who the journal says registered a
/// key, by its `key.register` entry's actor).
pub fn registered_by(actor: &str, agent: &str) -> &'static str {
    if actor == agent {
        "self"
    } else {
        "operator"
    }
}

/// Registers the verifier key `vkey` for the agent it names. An agent (with its token)
/// registers its own key only; the operator any agent's. An agent with an active key gets a
/// new one only by a rotation: `rotation_signature`, by the active key, over
/// [`Statement::key_rotation`], which revokes the old key in the same journal entry. The entry's
/// actor records who registered the key.
pub fn register_key(
    ctx: &mut Ctx<'_>,
    vkey: &str,
    rotation_signature: Option<&str>,
) -> OpResult<KeyRegistered> {
    let invalid_key = |why: String| OpError::new(ErrorKind::BadRequest, "invalid_key", why);
    let public = PublicKey::parse(vkey.trim()).map_err(|e| {
        invalid_key(e.to_string())
            .hint("A verifier key is the `<agent>+<key id>+<base64>` line `locker key new` prints.")
    })?;
    let agent = public.name.clone();
    check_agent(&agent).map_err(|e| invalid_key(e.to_string()))?;
    let actor = ctx.actor.clone();
    match actor.kind {
        ActorKind::Operator => {}
        ActorKind::Agent if actor.name == agent => {}
        ActorKind::Agent => {
            return Err(OpError::forbidden(format!(
                "agent {} cannot register a key for agent {agent}: an agent registers its own \
                 key only",
                actor.name
            ))
            .hint("Make the key with `locker key new --agent YOUR-NAME`."))
        }
        ActorKind::Anonymous => {
            return Err(OpError::unauthorized("registering a key needs the agent's token")
                .hint("Send the agent's token (`LOCKER_TOKEN`, or `Authorization: Bearer`)."))
        }
    }
    let signature = rotation_signature
        .map(|s| sign::decode_signature(s.trim()).map_err(|e| invalid_signature(e.to_string())))
        .transpose()?;
    let now = ctx.now();
    let mut tx = ctx.store.write()?;
    crate::ops::auth::authorize(tx.as_ref(), &actor)?;
    let (key_id, vkey) = (public.key_id(), public.vkey());
    let keys = tx.agent_keys(&agent)?;
    if keys.iter().any(|k| k.key_id == key_id) {
        return Err(OpError::new(
            ErrorKind::Conflict,
            "key_exists",
            format!("key {key_id} of agent {agent} is already registered"),
        )
        .hint("A key is registered once; make a new one with `locker key new`."));
    }
    let active: Vec<AgentKeyRow> = keys.into_iter().filter(|k| k.revoked_at.is_none()).collect();
    let rotates = match (active.first(), signature) {
        (None, None) => None,
        (None, Some(_)) => {
            return Err(OpError::new(
                ErrorKind::Conflict,
                "no_active_key",
                format!("agent {agent} has no active key to rotate from"),
            )
            .hint("Register the key without a rotation signature."))
        }
        (Some(_), None) => {
            return Err(OpError::new(
                ErrorKind::Conflict,
                "key_exists",
                format!("agent {agent} already has an active signing key"),
            )
            .hint("Rotate to the new key with the old one: `locker key register --public-key VKEY --rotate-with OLD-KEY-FILE`.")
            .hint(format!("Or the operator revokes it first: `locker key revoke --agent {agent}`.")))
        }
        (Some(_), Some(sig)) => {
            let repo = repository_id(tx.as_ref())?;
            let old = active.iter().find(|k| {
                let st = Statement::key_rotation(&repo, &agent, &k.key_id, &vkey);
                PublicKey::parse(&k.vkey).is_ok_and(|pk| pk.verify(&st.message(), &sig).is_ok())
            });
            let Some(old) = old else {
                let current: Vec<&str> = active.iter().map(|k| k.key_id.as_str()).collect();
                return Err(OpError::new(
                    ErrorKind::Forbidden,
                    "bad_signature",
                    format!(
                        "the rotation is not signed by agent {agent}'s current key {}",
                        current.join(", ")
                    ),
                )
                .with("signer", agent.as_str())
                .hint("Sign with the agent's current private key (`--rotate-with FILE`)."));
            };
            Some((old.clone(), sig))
        }
    };
    if let Some((old, _)) = &rotates {
        let mut revoked = old.clone();
        revoked.revoked_at = Some(now);
        tx.update_agent_key(&revoked)?;
    }
    let row = AgentKeyRow {
        agent: agent.clone(),
        key_id: key_id.clone(),
        vkey: vkey.clone(),
        created_at: now,
        revoked_at: None,
    };
    tx.insert_agent_key(&row)?;
    journal::append(
        tx.as_mut(),
        &actor,
        now,
        KeyRegister {
            agent: agent.clone(),
            key_id: key_id.clone(),
            vkey: vkey.clone(),
            rotates: rotates.as_ref().map(|(old, sig)| KeyRotation {
                key_id: old.key_id.clone(),
                signature: sign::encode_signature(sig),
            }),
        },
    )?;
    tx.commit()?;
    Ok(KeyRegistered {
        registered_by: registered_by(&actor.name, &agent).to_owned(),
        agent,
        key_id,
        vkey,
        rotated: rotates.map(|(old, _)| old.key_id),
        created_at: now,
    })
}

/// Registers the public half of `key` (made by [`PrivateKey::generate`] and kept by the agent)
/// for its agent (operator only: `locker key generate`). An agent with an active key must have
/// it revoked first.
pub fn register(ctx: &mut Ctx<'_>, key: &PrivateKey) -> OpResult<KeyGenerated> {
    operator_only(&ctx.actor, "register signing keys")?;
    let r = register_key(ctx, &key.public().vkey(), None)?;
    Ok(KeyGenerated {
        agent: r.agent,
        key_id: r.key_id,
        vkey: r.vkey,
        private_key: None,
        private_key_file: None,
        created_at: r.created_at,
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

/// Who registered each key, by its `key.register` entry's actor: (agent, key id) → `self` or
/// `operator`.
fn registrars(tx: &dyn Tx) -> OpResult<std::collections::HashMap<(String, String), String>> {
    let mut by = std::collections::HashMap::new();
    let q = JournalQuery {
        kind: Some(crate::domain::event::kind::KEY_REGISTER.into()),
        ..JournalQuery::default()
    };
    journal::for_each_entry(tx, &q, &mut |_, e| {
        let Ok(e) = e else { return };
        if let Ok(Event::KeyRegister(k)) = e.event() {
            by.insert((k.agent.clone(), k.key_id), registered_by(&e.actor, &k.agent).to_owned());
        }
    })?;
    Ok(by)
}

/// Lists the registered keys and the policy (public: anyone may read them).
pub fn list(ctx: &mut Ctx<'_>) -> OpResult<KeyList> {
    let tx = ctx.store.read()?;
    let by = registrars(tx.as_ref())?;
    let mut keys = Vec::new();
    tx.for_each_agent_key(&mut |k| {
        keys.push(KeyView {
            state: if k.revoked_at.is_some() { "revoked" } else { "active" }.into(),
            registered_by: by.get(&(k.agent.clone(), k.key_id.clone())).cloned(),
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
        agent: (ctx.actor.kind == ActorKind::Agent).then(|| ctx.actor.name.clone()),
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
