//! Agents, blobs and artifacts (journal kinds `token.*` and `artifact.*`): the journal's account
//! of them replayed, and the stored agents, blobs (every one re-hashed), artifact versions, heads
//! and receipts checked against it.

use std::collections::{BTreeMap, HashSet};

use crate::domain::digest::Digest;
use crate::domain::event::{subject, Event};
use crate::domain::journal::Entry;
use crate::ops::OpResult;
use crate::store::{BlobStorage, Flow, StoreError, Tx};

use super::{AgentsSummary, ArtifactsSummary, BlobsSummary, Findings};

/// What the journal says one artifact version is.
#[derive(Debug, Clone)]
struct VersionRecord {
    sha256: Digest,
    size: u64,
    actor: String,
    op_id: String,
    found: bool,
}

/// What the journal says about one key: its versions in order.
#[derive(Debug, Clone, Default)]
struct KeyRecord {
    versions: BTreeMap<u64, VersionRecord>,
    head_found: bool,
}

impl KeyRecord {
    fn head(&self) -> u64 {
        self.versions.keys().next_back().copied().unwrap_or(0)
    }
}

/// What the journal says one receipt is.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ReceiptRecord {
    scope: String,
    key: String,
    expected_version: u64,
    version: u64,
    fence: Option<crate::domain::work::Fence>,
    found: bool,
}

/// What the journal says one agent is.
#[derive(Debug, Clone)]
struct AgentRecord {
    scope: String,
    token_id: Digest,
    revoked: bool,
    found: bool,
}

/// The journal's account of agents and artifacts, replayed entry by entry.
#[derive(Default)]
pub(super) struct ArtifactReplay {
    /// By (scope, key).
    keys: BTreeMap<(String, String), KeyRecord>,
    /// By (actor, operation id).
    receipts: BTreeMap<(String, String), ReceiptRecord>,
    agents: BTreeMap<String, AgentRecord>,
}

fn artifact_subject(scope: &str, key: &str) -> String {
    format!("artifact:{scope}:{key}")
}

impl ArtifactReplay {
    /// Applies the event of one verified journal entry; returns a description of anything
    /// inconsistent.
    pub(super) fn apply(&mut self, e: &Entry, ev: &Event) -> Option<String> {
        match ev {
            Event::TokenCreate(b) => {
                let agent = b.agent.clone();
                let rec = AgentRecord {
                    scope: b.scope.clone(),
                    token_id: b.token_id,
                    revoked: false,
                    found: false,
                };
                if self.agents.insert(agent.clone(), rec).is_some() {
                    return Some(format!("agent {agent} is created twice"));
                }
            }
            Event::TokenRevoke(b) => {
                let agent = &b.agent;
                match self.agents.get_mut(agent) {
                    Some(rec) => rec.revoked = true,
                    None => return Some(format!("agent {agent} is revoked but never created")),
                }
            }
            Event::ArtifactPublish(b) => {
                let key = b.key.clone();
                let (version, expected) = (b.version, b.expected_version);
                let op_id = b.op_id.clone();
                let rec = self.keys.entry((e.scope.clone(), key.clone())).or_default();
                let head = rec.head();
                if expected != head || version != head + 1 {
                    return Some(format!(
                        "version {version} of {} is recorded out of order (after version {head})",
                        artifact_subject(&e.scope, &key)
                    ));
                }
                rec.versions.insert(
                    version,
                    VersionRecord {
                        sha256: b.sha256,
                        size: b.size,
                        actor: e.actor.clone(),
                        op_id: op_id.clone(),
                        found: false,
                    },
                );
                let receipt = ReceiptRecord {
                    scope: e.scope.clone(),
                    key,
                    expected_version: expected,
                    version,
                    fence: b.fence().cloned(),
                    found: false,
                };
                if self.receipts.insert((e.actor.clone(), op_id.clone()), receipt).is_some() {
                    return Some(format!("operation `{op_id}` of {} is accepted twice", e.actor));
                }
            }
            _ => {}
        }
        None
    }
}

/// Checks stored agents, blobs, artifact versions, heads and receipts against each other and
/// against the journal's account of them. Every blob is read and re-hashed.
pub(super) fn check_artifacts(
    tx: &dyn Tx,
    replay: &mut ArtifactReplay,
    f: &mut Findings,
) -> OpResult<(AgentsSummary, BlobsSummary, ArtifactsSummary)> {
    // Agents.
    let mut agents = AgentsSummary { ok: true, ..AgentsSummary::default() };
    tx.for_each_agent(&mut |a| {
        agents.checked += 1;
        let subject = subject::agent(&a.name);
        let bad = match replay.agents.get_mut(&a.name) {
            None => Some(format!("agent {} has no record in the journal", a.name)),
            Some(r) => {
                r.found = true;
                if r.scope != a.scope {
                    Some(format!(
                        "agent {} is stored in scope {} but was created in scope {}",
                        a.name, a.scope, r.scope
                    ))
                } else if r.token_id != a.token_hash {
                    Some(format!(
                        "agent {}'s token digest differs from the one the journal recorded",
                        a.name
                    ))
                } else if r.revoked != a.revoked_at.is_some() {
                    Some(format!("agent {}'s revocation differs from the journal", a.name))
                } else {
                    None
                }
            }
        };
        if let Some(detail) = bad {
            agents.broken += 1;
            f.add("token", &subject, None, detail);
        }
        Flow::Continue(())
    })?;
    for (name, _) in replay.agents.iter().filter(|(_, r)| !r.found) {
        agents.broken += 1;
        f.add(
            "token",
            &subject::agent(name),
            None,
            format!("agent {name} is in the journal but missing from the store"),
        );
    }
    agents.ok = agents.broken == 0;

    // Blobs: every one read back and re-hashed.
    let mut blobs = BlobsSummary { ok: true, ..BlobsSummary::default() };
    let mut stored_blobs = HashSet::new();
    let mut fatal = None;
    tx.for_each_blob(&mut |row| {
        blobs.checked += 1;
        blobs.bytes += row.size;
        match row.storage {
            BlobStorage::Inline => blobs.inline += 1,
            BlobStorage::File => blobs.files += 1,
        }
        stored_blobs.insert(row.digest);
        let subject = format!("blob:{}", row.digest);
        let bad = match tx.blob(&row.digest) {
            Ok(Some(bytes))
                if bytes.len() as u64 == row.size && Digest::of(&bytes) == row.digest =>
            {
                None
            }
            Ok(Some(_)) => Some(format!(
                "blob {} ({}) has been altered: its bytes do not match its SHA-256",
                row.digest, row.location
            )),
            Ok(None) => None,
            Err(StoreError::BlobMissing { .. }) => {
                Some(format!("blob {} is missing: {} does not exist", row.digest, row.location))
            }
            Err(StoreError::Io(e)) => {
                Some(format!("blob {} ({}) cannot be read: {e}", row.digest, row.location))
            }
            Err(e) => {
                fatal = Some(e);
                return Flow::Break(());
            }
        };
        if let Some(detail) = bad {
            blobs.broken += 1;
            f.add("blob", &subject, None, detail);
        }
        Flow::Continue(())
    })?;
    if let Some(e) = fatal {
        return Err(e.into());
    }
    blobs.ok = blobs.broken == 0;

    // Artifact versions.
    let mut artifacts = ArtifactsSummary { ok: true, ..ArtifactsSummary::default() };
    let mut keys_seen = HashSet::new();
    tx.for_each_artifact_version(&mut |v| {
        artifacts.versions += 1;
        keys_seen.insert((v.scope.clone(), v.key.clone()));
        let subject = artifact_subject(&v.scope, &v.key);
        let rec = replay
            .keys
            .get_mut(&(v.scope.clone(), v.key.clone()))
            .and_then(|k| k.versions.get_mut(&v.version));
        let bad = match rec {
            None => {
                Some(format!("version {} of {subject} has no record in the journal", v.version))
            }
            Some(r) => {
                r.found = true;
                if r.sha256 != v.blob || r.size != v.size {
                    Some(format!(
                        "version {} of {subject} has been altered: it names content {} ({} bytes), \
                         the journal {} ({} bytes)",
                        v.version, v.blob, v.size, r.sha256, r.size
                    ))
                } else if r.actor != v.actor || r.op_id != v.op_id {
                    Some(format!(
                        "version {} of {subject} names a publisher the journal does not",
                        v.version
                    ))
                } else if !stored_blobs.contains(&v.blob) {
                    Some(format!(
                        "version {} of {subject} names blob {}, which is not stored",
                        v.version, v.blob
                    ))
                } else {
                    None
                }
            }
        };
        if let Some(detail) = bad {
            artifacts.broken += 1;
            f.add("artifact", &subject, Some(v.version), detail);
        }
        Flow::Continue(())
    })?;
    for ((scope, key), k) in &replay.keys {
        for (version, _) in k.versions.iter().filter(|(_, r)| !r.found) {
            artifacts.broken += 1;
            let subject = artifact_subject(scope, key);
            f.add(
                "artifact",
                &subject,
                Some(*version),
                format!(
                    "version {version} of {subject} is in the journal but missing from the store"
                ),
            );
        }
    }

    // Heads.
    tx.for_each_artifact_head(&mut |h| {
        let subject = artifact_subject(&h.scope, &h.key);
        let bad = match replay.keys.get_mut(&(h.scope.clone(), h.key.clone())) {
            None => Some(format!("{subject} has a head but no record in the journal")),
            Some(k) => {
                k.head_found = true;
                (k.head() != h.version).then(|| {
                    format!(
                        "the head of {subject} is version {}, but the journal's last version is {}",
                        h.version,
                        k.head()
                    )
                })
            }
        };
        if let Some(detail) = bad {
            artifacts.broken += 1;
            f.add("artifact", &subject, Some(h.version), detail);
        }
        Flow::Continue(())
    })?;
    for ((scope, key), _) in replay.keys.iter().filter(|(_, k)| !k.head_found) {
        artifacts.broken += 1;
        let subject = artifact_subject(scope, key);
        f.add("artifact", &subject, None, format!("{subject} is in the journal but has no head"));
    }
    artifacts.keys = keys_seen.len() as u64;

    // Receipts: what a retry would replay.
    tx.for_each_receipt(&mut |r| {
        artifacts.receipts += 1;
        let subject = format!("receipt:{}:{}", r.actor, r.op_id);
        let bad = match replay.receipts.get_mut(&(r.actor.clone(), r.op_id.clone())) {
            None => Some(format!(
                "the receipt of operation `{}` by {} has no record in the journal",
                r.op_id, r.actor
            )),
            Some(rec) => {
                rec.found = true;
                let same = rec.scope == r.scope
                    && rec.key == r.key
                    && rec.expected_version == r.expected_version
                    && rec.version == r.version;
                let fence = |f: &Option<crate::domain::work::Fence>| {
                    f.as_ref().map_or_else(|| "no fence".to_owned(), |f| format!("fence {f}"))
                };
                if !same {
                    Some(format!(
                        "the receipt of operation `{}` by {} differs from the journal: stored \
                         {} version {}, journal {} version {}",
                        r.op_id,
                        r.actor,
                        artifact_subject(&r.scope, &r.key),
                        r.version,
                        artifact_subject(&rec.scope, &rec.key),
                        rec.version
                    ))
                } else if rec.fence != r.fence {
                    Some(format!(
                        "the receipt of operation `{}` by {} differs from the journal: stored \
                         {}, journal {}",
                        r.op_id,
                        r.actor,
                        fence(&r.fence),
                        fence(&rec.fence)
                    ))
                } else {
                    None
                }
            }
        };
        if let Some(detail) = bad {
            artifacts.broken += 1;
            f.add("receipt", &subject, None, detail);
        }
        Flow::Continue(())
    })?;
    for ((actor, op_id), _) in replay.receipts.iter().filter(|(_, r)| !r.found) {
        artifacts.broken += 1;
        f.add(
            "receipt",
            &format!("receipt:{actor}:{op_id}"),
            None,
            format!(
                "the receipt of operation `{op_id}` by {actor} is in the journal but missing \
                 from the store (a retry would publish again)"
            ),
        );
    }
    artifacts.ok = artifacts.broken == 0;
    Ok((agents, blobs, artifacts))
}
