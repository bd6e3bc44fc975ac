//! The journal replayed for signatures, for `locker verify` and `locker review`: agent keys as
//! registered and revoked, the repository's settings, and every signed pad append, artifact
//! publish and step re-verified against the key registered when it was made.

use serde::{Deserialize, Serialize};

use crate::domain::event::{
    self, kind, subject, Event, KeyRegister, KeyRevoke, RepoSetting, Signed,
};
use crate::domain::journal::Entry;
use crate::domain::sign::{self, PublicKey, Statement};
use crate::ops::keys::REQUIRE_SIGNED;
use crate::ops::OpResult;
use crate::store::{Flow, JournalQuery, Tx};

/// What `locker verify` requires of signatures beyond their being good.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Require {
    /// Every pad append, artifact publish and step is signed (`--require-signed`).
    pub signed: bool,
    /// Every signature comes from a key its agent registered itself (`--require-self-keys`).
    pub self_keys: bool,
}

/// The signature part of a `locker verify` report.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct SignaturesSummary {
    pub ok: bool,
    /// Registered agent keys (stored rows checked against the journal).
    pub keys: u64,
    /// Appends, publishes and steps carrying a signature, all re-verified.
    pub signed: u64,
    /// Appends, publishes and steps without one.
    pub unsigned: u64,
    /// Signed entries by signing agent.
    pub by_signer: std::collections::BTreeMap<String, u64>,
    /// Whether every write had to be signed (`--require-signed`).
    pub required: bool,
    /// Per signing agent: whether every signature comes from a key it registered itself.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub agents: std::collections::BTreeMap<String, AgentSignatures>,
    /// Whether a signature by a key the operator registered was a problem
    /// (`--require-self-keys`).
    #[serde(default, skip_serializing_if = "crate::domain::event::is_false")]
    pub self_keys_required: bool,
    pub broken: u64,
}

/// One agent's signatures, by who registered the key that made them.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct AgentSignatures {
    pub signed: u64,
    /// Made with keys the agent registered itself (with its own token).
    pub by_self_registered_keys: u64,
    /// Made with keys the operator registered for it (which the operator could have kept).
    pub by_operator_registered_keys: u64,
    /// Every signature of the agent comes from a key it registered itself.
    pub self_keys_only: bool,
}

impl AgentSignatures {
    /// Counts one signature by a key registered by `registered_by` (`self` or `operator`).
    pub fn count(&mut self, registered_by: &str) {
        self.signed += 1;
        if registered_by == "self" {
            self.by_self_registered_keys += 1;
        } else {
            self.by_operator_registered_keys += 1;
        }
        self.self_keys_only = self.by_operator_registered_keys == 0;
    }
}

/// What the journal says one key is.
#[derive(Debug, Clone)]
struct KeyRecord {
    vkey: String,
    created_at: i64,
    revoked_at: Option<i64>,
    /// `self` or `operator`: who registered it (the `key.register` entry's actor).
    registered_by: &'static str,
    found: bool,
}

/// Who signed one journal entry, as the signature replay found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedBy {
    pub signer: String,
    pub key_id: String,
    /// Who registered the key: `self` or `operator` (`None` for a key the journal never
    /// registered).
    pub registered_by: Option<String>,
}

/// The journal replayed for signatures: the repository id, keys as registered and revoked,
/// settings, and every signed entry re-verified against the key registered at that point.
#[derive(Debug, Default)]
pub(crate) struct Replay {
    repository: Option<String>,
    keys: std::collections::BTreeMap<(String, String), KeyRecord>,
    settings: std::collections::BTreeMap<String, String>,
    /// `--require-signed`: every append, publish and step must be signed.
    pub require_all: bool,
    /// `--require-self-keys`: a signature by a key the operator registered is a problem.
    pub require_self: bool,
    pub summary: SignaturesSummary,
}

/// The statement a journal entry's signature must cover, rebuilt from its event (`scope` is
/// the entry's scope).
pub fn statement_of(repository: &str, scope: &str, ev: &Event) -> Option<Statement> {
    match ev {
        Event::PadAppend(b) => {
            Some(Statement::pad_append(repository, &b.pad_id, b.seq, b.sha256.as_ref()?))
        }
        Event::ArtifactPublish(b) => Some(Statement::artifact_publish(
            repository,
            scope,
            &b.key,
            b.version,
            &b.sha256,
            b.fence().map(|f| (f.work.as_str(), f.token)),
        )),
        Event::StepRecord(b) => Some(Statement::step_record(
            repository,
            scope,
            &b.work,
            &b.lease_id,
            &b.step,
            b.fence,
            &step_record_digest(b),
        )),
        _ => None,
    }
}

/// The step digest a `step.record` entry's signature covers: from the texts' digests
/// (`planned_sha256`, `executed_sha256`), or from the texts themselves in older entries.
fn step_record_digest(b: &event::StepRecord) -> crate::domain::digest::Digest {
    sign::step_digest_of_hashes(
        b.planned_digest().map(|d| d.to_hex()).as_deref(),
        b.executed_digest().map(|d| d.to_hex()).as_deref(),
        &b.gate,
    )
}

impl Replay {
    /// Applies the event of one intact journal entry; returns who signed it and the problems
    /// found.
    pub fn apply(&mut self, e: &Entry, ev: &Event) -> (Option<SignedBy>, Vec<String>) {
        let mut problems = Vec::new();
        match ev {
            Event::RepoInit(b) => self.repository = Some(b.repository_id.clone()),
            Event::KeyRegister(KeyRegister { agent, key_id: id, vkey, rotates }) => {
                match PublicKey::parse(vkey) {
                    Ok(pk) if pk.name == *agent && pk.key_id() == *id => {}
                    _ => problems.push(format!(
                        "entry {} registers a key for agent {agent} that is not a valid key of that agent",
                        e.seq
                    )),
                }
                let by = crate::ops::keys::registered_by(&e.actor, agent);
                if by != "self" && e.actor != crate::domain::token::OPERATOR {
                    problems.push(format!(
                        "entry {} registers a key for agent {agent} by agent {}",
                        e.seq, e.actor
                    ));
                }
                if let Some(r) = rotates {
                    problems.extend(self.rotate(e, agent, vkey, r));
                }
                let rec = KeyRecord {
                    vkey: vkey.clone(),
                    created_at: e.time,
                    revoked_at: None,
                    registered_by: by,
                    found: false,
                };
                if self.keys.insert((agent.clone(), id.clone()), rec).is_some() {
                    problems.push(format!("key {id} of agent {agent} is registered twice"));
                }
            }
            Event::KeyRevoke(KeyRevoke { agent, key_ids }) => {
                for id in key_ids {
                    match self.keys.get_mut(&(agent.clone(), id.clone())) {
                        Some(k) if k.revoked_at.is_none() => k.revoked_at = Some(e.time),
                        Some(_) => {
                            problems.push(format!("key {id} of agent {agent} is revoked twice"));
                        }
                        None => problems.push(format!(
                            "key {id} of agent {agent} is revoked but never registered"
                        )),
                    }
                }
            }
            Event::RepoSetting(RepoSetting { name, value }) => {
                self.settings.insert(name.clone(), value.clone());
            }
            _ => {}
        }
        if !ev.signable() {
            return (None, problems);
        }
        let Some(Signed { signer, key_id, signature: sig }) = ev.signed() else {
            self.summary.unsigned += 1;
            if self.require_all {
                problems.push(format!("entry {} ({}) is not signed", e.seq, e.kind));
            } else if self.settings.get(REQUIRE_SIGNED).map(String::as_str) == Some("true") {
                problems.push(format!(
                    "entry {} ({}) is not signed, but the repository required signatures then",
                    e.seq, e.kind
                ));
            }
            return (None, problems);
        };
        self.summary.signed += 1;
        *self.summary.by_signer.entry(signer.clone()).or_default() += 1;
        let registered_by =
            self.keys.get(&(signer.clone(), key_id.clone())).map(|k| k.registered_by);
        if let Some(r) = registered_by {
            self.summary.agents.entry(signer.clone()).or_default().count(r);
            if self.require_self && r != "self" {
                problems.push(format!(
                    "entry {} ({}) is signed by key {key_id} of agent {signer}, which the operator \
                     registered, not the agent itself",
                    e.seq, e.kind
                ));
            }
        }
        let by = SignedBy {
            signer: signer.clone(),
            key_id: key_id.clone(),
            registered_by: registered_by.map(str::to_owned),
        };
        let verdict = (|| {
            let Some(k) = self.keys.get(&(signer.clone(), key_id.clone())) else {
                return Err(format!(
                    "is signed by key {key_id} of agent {signer}, which was not registered then"
                ));
            };
            if k.revoked_at.is_some() {
                return Err(format!(
                    "is signed by key {key_id} of agent {signer} after it was revoked"
                ));
            }
            let pk =
                PublicKey::parse(&k.vkey).map_err(|e| format!("names an unusable key: {e}"))?;
            let repo = self.repository.as_deref().unwrap_or_default();
            let st = statement_of(repo, &e.scope, ev)
                .ok_or("does not record what its signature covers")?;
            let sig = sign::decode_signature(sig).map_err(|e| e.to_string())?;
            pk.verify(&st.message(), &sig)
                .map_err(|_| format!("has a signature by agent {signer} that does not verify"))
        })();
        if let Err(why) = verdict {
            problems.push(format!("entry {} ({}) {why}", e.seq, e.kind));
        }
        (Some(by), problems)
    }

    /// A rotation recorded by `e`: `agent`'s active key `r.key_id` signed the hand-over to
    /// `new_vkey`, and is revoked by the same entry.
    fn rotate(
        &mut self,
        e: &Entry,
        agent: &str,
        new_vkey: &str,
        r: &crate::domain::event::KeyRotation,
    ) -> Vec<String> {
        let repo = self.repository.clone().unwrap_or_default();
        let Some(old) = self.keys.get_mut(&(agent.to_owned(), r.key_id.clone())) else {
            return vec![format!(
                "entry {} rotates from key {} of agent {agent}, which was never registered",
                e.seq, r.key_id
            )];
        };
        if old.revoked_at.is_some() {
            return vec![format!(
                "entry {} rotates from key {} of agent {agent}, which was revoked",
                e.seq, r.key_id
            )];
        }
        old.revoked_at = Some(e.time);
        let st = Statement::key_rotation(&repo, agent, &r.key_id, new_vkey);
        let good = PublicKey::parse(&old.vkey).is_ok_and(|pk| {
            sign::decode_signature(&r.signature)
                .is_ok_and(|sig| pk.verify(&st.message(), &sig).is_ok())
        });
        if good {
            Vec::new()
        } else {
            vec![format!(
                "entry {} rotates agent {agent}'s key without a valid signature by key {}",
                e.seq, r.key_id
            )]
        }
    }

    /// Checks the stored keys and settings against the journal's account of them; `add` is
    /// called with (kind, subject, detail) for each difference.
    pub fn check_store(
        &mut self,
        tx: &dyn Tx,
        add: &mut dyn FnMut(&str, String, String),
    ) -> OpResult<()> {
        let mut count = 0u64;
        tx.for_each_agent_key(&mut |k| {
            count += 1;
            let subject = subject::key(&k.agent);
            match self.keys.get_mut(&(k.agent.clone(), k.key_id.clone())) {
                None => add(
                    "key",
                    subject,
                    format!("key {} of agent {} has no record in the journal", k.key_id, k.agent),
                ),
                Some(r) => {
                    r.found = true;
                    if r.vkey != k.vkey {
                        add(
                            "key",
                            subject,
                            format!(
                                "key {} of agent {} differs from the one the journal registered",
                                k.key_id, k.agent
                            ),
                        );
                    } else if r.created_at != k.created_at || r.revoked_at != k.revoked_at {
                        add(
                            "key",
                            subject,
                            format!(
                                "key {} of agent {}'s times or revocation differ from the journal",
                                k.key_id, k.agent
                            ),
                        );
                    }
                }
            }
            Flow::Continue(())
        })?;
        self.summary.keys = count;
        for ((agent, id), _) in self.keys.iter().filter(|(_, r)| !r.found) {
            add(
                "key",
                subject::key(agent),
                format!("key {id} of agent {agent} is in the journal but missing from the store"),
            );
        }
        let mut stored = std::collections::BTreeMap::new();
        tx.for_each_setting(&mut |(n, v)| {
            stored.insert(n, v);
            Flow::Continue(())
        })?;
        if stored != self.settings {
            add(
                "setting",
                "repo".into(),
                "the repository's settings differ from the journal's `repo.setting` entries".into(),
            );
        }
        Ok(())
    }
}

/// Who signed one block of a pad.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct BlockSigner {
    /// The block number.
    pub seq: u64,
    /// The journal entry that appended it.
    pub entry: u64,
    /// The signing agent, or `null` for an unsigned block (or one deposited or imported).
    pub signer: Option<String>,
    pub key_id: Option<String>,
    /// Who registered the signing key: `self` (the agent, with its token) or `operator`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registered_by: Option<String>,
    /// The signature (standard base64), so that a bundle can carry it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
}

/// Who signed each appended block of `pad_id`, every signature re-verified against the key
/// registered when it was made; the second list holds the problems found.
pub fn pad_signers(tx: &dyn Tx, pad_id: &str) -> OpResult<(Vec<BlockSigner>, Vec<String>)> {
    let mut entries = Vec::new();
    let mut problems = Vec::new();
    let first = JournalQuery { ascending: true, limit: 1, ..JournalQuery::default() };
    for row in tx.journal(&first)? {
        if let Ok(e) = Entry::decode(&row.entry) {
            entries.push(e);
        }
    }
    let mut collect = |row: &crate::store::JournalRow, e: Result<Entry, String>| match e {
        Ok(e) => entries.push(e),
        Err(p) => problems.push(format!("entry {}: {p}", row.seq)),
    };
    for kind in [kind::KEY_REGISTER, kind::KEY_REVOKE] {
        let q = JournalQuery { kind: Some(kind.into()), ..JournalQuery::default() };
        crate::ops::log::journal::for_each_entry(tx, &q, &mut collect)?;
    }
    let q = JournalQuery { subject: Some(subject::pad(pad_id)), ..JournalQuery::default() };
    crate::ops::log::journal::for_each_entry(tx, &q, &mut collect)?;
    entries.sort_by_key(|e| e.seq);
    entries.dedup_by_key(|e| e.seq);
    let mut replay = Replay::default();
    let mut signers = Vec::new();
    for e in &entries {
        let ev = match e.event() {
            Ok(ev) => ev,
            Err(event::DecodeError::UnknownKind(_)) => continue,
            Err(event::DecodeError::Malformed { .. }) => {
                problems.push(crate::ops::log::journal::malformed_body(e));
                continue;
            }
        };
        let (by, found) = replay.apply(e, &ev);
        problems.extend(found);
        if let Event::PadAppend(b) = &ev {
            signers.push(BlockSigner {
                seq: b.seq,
                entry: e.seq,
                signer: by.as_ref().map(|b| b.signer.clone()),
                key_id: by.as_ref().map(|b| b.key_id.clone()),
                registered_by: by.and_then(|b| b.registered_by),
                signature: ev.signed().map(|s| s.signature.clone()),
            });
        }
    }
    Ok((signers, problems))
}
