//! Versioned artifacts: compare-and-swap publishes with idempotent operation ids, in
//! questlock's check order, stored as content-addressed blobs.
//!
//! A publish runs in one write transaction: the actor's token is re-checked; a receipt for the
//! actor's operation id makes an identical request a replay (the original result, even after
//! newer versions) and a different one an `operation_conflict`; a head other than the expected
//! version is a `version_conflict`; otherwise the next version is written. Accepted, replayed
//! and rejected publishes are each journaled and committed. Invalid input is refused before the
//! transaction and changes nothing.

pub mod audit;

use base64::Engine as _;
use serde::{Deserialize, Serialize};

use crate::domain::artifact::{self as rules, InvalidInput};
use crate::domain::digest::Digest;
use crate::domain::event::{ArtifactPublish, ArtifactReject, ArtifactReplay};
use crate::domain::work::Fence;
use crate::ops::log::journal;
use crate::ops::{authorize, Ctx, ErrorKind, OpError, OpResult};
use crate::store::{ArtifactHeadRow, ArtifactQuery, ArtifactVersionRow, Flow, ReceiptRow, Tx};

/// Most versions or keys one listing returns.
pub const MAX_LIST_LIMIT: u64 = 10_000;

/// One version of an artifact with its content: questlock's fields (`scope`, `key`,
/// `version`, `content`, `updated_at`) and locker's (`sha256`, `size`, `content_b64` for
/// content that is not UTF-8, who published it and under which operation id).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ArtifactView {
    pub scope: String,
    pub key: String,
    pub version: u64,
    /// The content as text; `null` when it is not valid UTF-8 (then see `content_b64`).
    pub content: Option<String>,
    /// When this version was published (Unix seconds).
    pub updated_at: i64,
    pub sha256: Digest,
    pub size: u64,
    /// The content in standard base64, present only when it is not valid UTF-8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_b64: Option<String>,
    pub actor: String,
    pub op_id: String,
}

impl ArtifactView {
    fn of(v: &ArtifactVersionRow, content: &[u8]) -> Self {
        let text = std::str::from_utf8(content).ok().map(str::to_owned);
        let b64 = match text {
            Some(_) => None,
            None => Some(base64::engine::general_purpose::STANDARD.encode(content)),
        };
        Self {
            scope: v.scope.clone(),
            key: v.key.clone(),
            version: v.version,
            content: text,
            updated_at: v.created_at,
            sha256: v.blob,
            size: v.size,
            content_b64: b64,
            actor: v.actor.clone(),
            op_id: v.op_id.clone(),
        }
    }

    /// The content's exact bytes.
    pub fn bytes(&self) -> Vec<u8> {
        match (&self.content, &self.content_b64) {
            (Some(t), _) => t.clone().into_bytes(),
            (None, Some(b)) => {
                base64::engine::general_purpose::STANDARD.decode(b).unwrap_or_default()
            }
            (None, None) => Vec::new(),
        }
    }
}

/// The result of a publish: the version written, or for a replay the original one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Published {
    pub artifact: ArtifactView,
    /// `true` when this repeated an earlier identical request: nothing new was written.
    pub replayed: bool,
}

/// One version's metadata.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct VersionInfo {
    pub version: u64,
    pub sha256: Digest,
    pub size: u64,
    pub actor: String,
    pub op_id: String,
    pub updated_at: i64,
}

impl VersionInfo {
    fn of(v: ArtifactVersionRow) -> Self {
        Self {
            version: v.version,
            sha256: v.blob,
            size: v.size,
            actor: v.actor,
            op_id: v.op_id,
            updated_at: v.created_at,
        }
    }
}

/// A key's history, oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ArtifactLog {
    pub scope: String,
    pub key: String,
    pub current_version: u64,
    pub versions: Vec<VersionInfo>,
}

/// A key and its current version's metadata.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ArtifactSummary {
    pub key: String,
    pub version: u64,
    pub sha256: Digest,
    pub size: u64,
    pub actor: String,
    pub updated_at: i64,
}

/// The keys of a scope, by key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ArtifactList {
    pub scope: String,
    pub artifacts: Vec<ArtifactSummary>,
}

/// A publish as asked for.
#[derive(Debug, Clone, Copy)]
pub struct PublishRequest<'a> {
    pub key: &'a str,
    /// The version the caller read: 0 to create the key.
    pub expected_version: i64,
    pub op_id: &'a str,
    pub content: &'a [u8],
    /// The fencing token of the lease the publish is made under: refused (`stale_fence`) once
    /// a newer lease exists on the work item.
    pub fence: Option<&'a Fence>,
    /// An agent's signature over the version it writes (see [`crate::ops::keys`]); checked only
    /// when a new version is written (a replay or a rejection writes none).
    pub signing: Option<&'a crate::ops::keys::Signing>,
}

fn invalid(e: InvalidInput) -> OpError {
    match e {
        InvalidInput::ContentTooLarge => {
            OpError::new(ErrorKind::TooLarge, "too_large", e.to_string())
        }
        _ => OpError::new(ErrorKind::BadRequest, "invalid", e.to_string()),
    }
}

fn not_found() -> OpError {
    OpError::not_found("artifact not found")
        .hint("`locker artifact list` shows the keys of your scope.")
}

/// [`not_found`], naming the other scopes that hold `key` when the operator asks (an agent
/// sees its own scope only, so it is never told about others).
fn not_found_for(tx: &dyn Tx, actor: &crate::ops::Actor, key: &str) -> OpError {
    if !actor.is_operator() {
        return not_found();
    }
    let mut scopes = Vec::new();
    let _ = tx.for_each_artifact_head(&mut |h| {
        if h.key == key && h.scope != actor.scope {
            scopes.push(h.scope);
        }
        Flow::Continue(())
    });
    match scopes.as_slice() {
        [] => not_found(),
        [one] => OpError::not_found(format!(
            "artifact not found in scope `{}`; `{key}` exists in scope `{one}`",
            actor.scope
        ))
        .hint(format!("Pass `--scope {one}` to act in that scope.")),
        many => OpError::not_found(format!(
            "artifact not found in scope `{}`; `{key}` exists in scopes {}",
            actor.scope,
            many.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ")
        ))
        .hint("Pass `--scope NAME` to act in one of them."),
    }
}

/// Reads a version's content, re-hashed: bytes that do not match the version's digest are an
/// integrity error and are never returned.
fn content_of(tx: &dyn Tx, v: &ArtifactVersionRow) -> OpResult<Vec<u8>> {
    let what = || format!("version {} of `{}` (blob {})", v.version, v.key, v.blob);
    let bytes = tx
        .blob(&v.blob)?
        .ok_or_else(|| OpError::integrity(format!("the content of {} is missing", what())))?;
    if bytes.len() as u64 != v.size || Digest::of(&bytes) != v.blob {
        return Err(OpError::integrity(format!(
            "the content of {} does not match its SHA-256",
            what()
        )));
    }
    Ok(bytes)
}

/// Publishes a new version of a key against the version the caller read.
pub fn publish(ctx: &mut Ctx<'_>, req: &PublishRequest<'_>) -> OpResult<Published> {
    rules::check_key(req.key).map_err(invalid)?;
    rules::check_op_id(req.op_id).map_err(invalid)?;
    let expected = rules::check_expected(req.expected_version).map_err(invalid)?;
    rules::check_content(req.content).map_err(invalid)?;
    if let Some(f) = req.fence {
        crate::domain::work::check_work(&f.work)
            .map_err(|e| OpError::new(ErrorKind::BadRequest, "invalid", e.0))?;
        if f.token == 0 {
            return Err(OpError::new(
                ErrorKind::BadRequest,
                "invalid",
                "fencing tokens start at 1",
            ));
        }
    }
    let digest = Digest::of(req.content);
    let size = req.content.len() as u64;
    let now = ctx.now();
    let actor = ctx.actor.clone();
    let scope = actor.scope.as_str();

    let mut tx = ctx.store.write()?;
    authorize(tx.as_ref(), &actor)?;
    let current = tx.artifact_head(scope, req.key)?.unwrap_or(0);
    // The body of an `artifact.reject` entry: what was refused, and why.
    let reject_body = |reason: &str| ArtifactReject {
        key: req.key.to_owned(),
        op_id: req.op_id.to_owned(),
        reason: reason.to_owned(),
        expected_version: expected,
        current_version: current,
        sha256: digest,
        size,
        fence: None,
    };

    if let Some(receipt) = tx.receipt(&actor.name, req.op_id)? {
        let original = tx
            .artifact_version(&receipt.scope, &receipt.key, receipt.version)?
            .ok_or_else(|| {
                OpError::integrity(format!(
                    "the receipt of operation `{}` names a version that does not exist",
                    req.op_id
                ))
            })?;
        let identical = receipt.scope == scope
            && receipt.key == req.key
            && receipt.expected_version == expected
            && original.blob == digest
            && original.size == size
            && receipt.fence.as_ref() == req.fence;
        if identical {
            journal::append(
                tx.as_mut(),
                &actor,
                now,
                ArtifactReplay {
                    key: req.key.to_owned(),
                    op_id: req.op_id.to_owned(),
                    version: original.version,
                    expected_version: expected,
                    current_version: current,
                    sha256: digest,
                },
            )?;
            tx.commit()?;
            return Ok(Published {
                artifact: ArtifactView::of(&original, req.content),
                replayed: true,
            });
        }
        journal::append(tx.as_mut(), &actor, now, reject_body("operation_conflict"))?;
        tx.commit()?;
        return Err(OpError::new(
            ErrorKind::Conflict,
            "operation_conflict",
            "operation ID was already used with a different request",
        )
        .with("current_version", current)
        .hint("Use a new operation id for a different request."));
    }

    // Fencing: a publish carrying a lease fencing token older than the work item's newest
    // lease is refused with `stale_fence` (journaled as an `artifact.reject`), after the
    // receipt check (so an acknowledged publish still replays) and before the version check,
    // in this transaction (no newer lease can slip in before the write). The fence belongs to
    // the request's identity in the receipt.
    if let Some(fence) = req.fence {
        if let Err(e) =
            crate::ops::work::lease::check_fence(tx.as_mut(), &actor, now, &fence.work, fence.token)
        {
            let body = ArtifactReject { fence: Some(fence.clone()), ..reject_body(&e.code) };
            journal::append(tx.as_mut(), &actor, now, body)?;
            tx.commit()?;
            return Err(e.with("current_version", current));
        }
    }

    if current != expected {
        journal::append(tx.as_mut(), &actor, now, reject_body("version_conflict"))?;
        tx.commit()?;
        return Err(OpError::new(
            ErrorKind::Conflict,
            "version_conflict",
            "expected version does not match current version",
        )
        .with("current_version", current)
        .hint(format!(
            "Read version {current} (`locker artifact get`), reconcile, and publish with \
             `--expect {current}` and a new operation id."
        )));
    }

    let version = current + 1;
    let signed = crate::ops::keys::check(tx.as_ref(), req.signing, |repo| {
        crate::domain::sign::Statement::artifact_publish(
            &repo,
            scope,
            req.key,
            version,
            &digest,
            req.fence.map(|f| (f.work.as_str(), f.token)),
        )
    })?;
    let row = ArtifactVersionRow {
        scope: scope.to_owned(),
        key: req.key.to_owned(),
        version,
        blob: digest,
        size,
        actor: actor.name.clone(),
        op_id: req.op_id.to_owned(),
        created_at: now,
    };
    tx.put_blob(&digest, req.content, now)?;
    tx.insert_artifact_version(&row)?;
    tx.set_artifact_head(&ArtifactHeadRow {
        scope: scope.to_owned(),
        key: req.key.to_owned(),
        version,
    })?;
    tx.insert_receipt(&ReceiptRow {
        actor: actor.name.clone(),
        op_id: req.op_id.to_owned(),
        scope: scope.to_owned(),
        key: req.key.to_owned(),
        expected_version: expected,
        version,
        created_at: now,
        fence: req.fence.cloned(),
    })?;
    let event = ArtifactPublish {
        key: req.key.to_owned(),
        op_id: req.op_id.to_owned(),
        version,
        expected_version: expected,
        sha256: digest,
        size,
        fence: Some(req.fence.cloned()),
        signed,
    };
    journal::append(tx.as_mut(), &actor, now, event)?;
    tx.commit()?;
    Ok(Published { artifact: ArtifactView::of(&row, req.content), replayed: false })
}

/// Reads a key's head, or one version, with its content (re-hashed).
pub fn get(ctx: &mut Ctx<'_>, key: &str, version: Option<i64>) -> OpResult<ArtifactView> {
    rules::check_key(key).map_err(invalid)?;
    let version = version.map(rules::check_version).transpose().map_err(invalid)?;
    let actor = ctx.actor.clone();
    let tx = ctx.store.read()?;
    authorize(tx.as_ref(), &actor)?;
    let v = match version {
        Some(v) => v,
        None => match tx.artifact_head(&actor.scope, key)? {
            Some(v) => v,
            None => return Err(not_found_for(tx.as_ref(), &actor, key)),
        },
    };
    let row = tx.artifact_version(&actor.scope, key, v)?.ok_or_else(|| {
        if version.is_some() && tx.artifact_head(&actor.scope, key).ok().flatten().is_some() {
            OpError::not_found(format!("version {v} of `{key}` not found"))
                .hint(format!("`locker artifact log {key}` lists its versions."))
        } else {
            not_found()
        }
    })?;
    let content = content_of(tx.as_ref(), &row)?;
    Ok(ArtifactView::of(&row, &content))
}

/// A key's versions after `after`, oldest first, at most `limit`.
pub fn log(ctx: &mut Ctx<'_>, key: &str, after: u64, limit: u64) -> OpResult<ArtifactLog> {
    rules::check_key(key).map_err(invalid)?;
    check_limit(limit)?;
    let actor = ctx.actor.clone();
    let tx = ctx.store.read()?;
    authorize(tx.as_ref(), &actor)?;
    let current = tx.artifact_head(&actor.scope, key)?.ok_or_else(not_found)?;
    let versions = tx
        .artifact_versions(&actor.scope, key, after, limit)?
        .into_iter()
        .map(VersionInfo::of)
        .collect();
    Ok(ArtifactLog { scope: actor.scope, key: key.to_owned(), current_version: current, versions })
}

/// The keys of the actor's scope that sort after `after`, with their current versions.
pub fn list(ctx: &mut Ctx<'_>, after: Option<&str>, limit: u64) -> OpResult<ArtifactList> {
    check_limit(limit)?;
    let actor = ctx.actor.clone();
    let tx = ctx.store.read()?;
    authorize(tx.as_ref(), &actor)?;
    let q = ArtifactQuery { scope: actor.scope.clone(), after: after.map(str::to_owned), limit };
    let artifacts = tx
        .artifact_heads(&q)?
        .into_iter()
        .map(|v| ArtifactSummary {
            key: v.key,
            version: v.version,
            sha256: v.blob,
            size: v.size,
            actor: v.actor,
            updated_at: v.created_at,
        })
        .collect();
    Ok(ArtifactList { scope: actor.scope, artifacts })
}

fn check_limit(limit: u64) -> OpResult<()> {
    if limit == 0 || limit > MAX_LIST_LIMIT {
        return Err(OpError::new(
            ErrorKind::BadRequest,
            "invalid",
            format!("limit must be between 1 and {MAX_LIST_LIMIT}"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::secret::Secret;
    use crate::ops::{token, Actor, FixedClock};
    use crate::repo::Repo;

    fn request(content: &[u8]) -> PublishRequest<'_> {
        PublishRequest {
            key: "k",
            expected_version: 0,
            op_id: "op",
            content,
            fence: None,
            signing: None,
        }
    }

    #[test]
    fn a_token_revoked_after_authentication_is_refused_inside_the_transaction() {
        let dir = tempfile::tempdir().unwrap();
        let clock = FixedClock(100);
        let (_, mut repo) = crate::ops::admin::init::init(dir.path(), &clock).unwrap();
        let created = {
            let mut ctx = Ctx::new(repo.store.as_mut(), Actor::operator(), &clock);
            token::create(&mut ctx, "worker-a", "demo").unwrap()
        };
        let actor =
            crate::ops::auth::authenticate(repo.store.as_mut(), &Secret::new(created.token))
                .unwrap();
        assert_eq!((actor.name.as_str(), actor.scope.as_str()), ("worker-a", "demo"));

        // Revoked through another connection after the agent authenticated.
        let mut other = Repo::open_root(dir.path()).unwrap();
        token::revoke(&mut Ctx::new(other.store.as_mut(), Actor::operator(), &clock), "worker-a")
            .unwrap();
        let head = repo.store.read().unwrap().journal_head().unwrap();

        let mut ctx = Ctx::new(repo.store.as_mut(), actor.clone(), &clock);
        let err = publish(&mut ctx, &request(b"x")).unwrap_err();
        assert_eq!((err.kind, err.code.as_ref()), (ErrorKind::Unauthorized, "unauthorized"));
        let err = get(&mut ctx, "k", None).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Unauthorized);
        assert_eq!(repo.store.read().unwrap().journal_head().unwrap(), head, "nothing journaled");
    }

    #[test]
    fn a_forged_principal_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let clock = FixedClock(100);
        let (_, mut repo) = crate::ops::admin::init::init(dir.path(), &clock).unwrap();
        let created = {
            let mut ctx = Ctx::new(repo.store.as_mut(), Actor::operator(), &clock);
            token::create(&mut ctx, "worker-a", "demo").unwrap()
        };
        let real = crate::ops::auth::authenticate(repo.store.as_mut(), &Secret::new(created.token))
            .unwrap();
        for forged in [
            Actor { scope: "other".into(), ..real.clone() },
            Actor { name: "worker-b".into(), ..real.clone() },
            Actor { token: Some(Digest::of(b"guess")), ..real.clone() },
        ] {
            let mut ctx = Ctx::new(repo.store.as_mut(), forged, &clock);
            assert_eq!(
                publish(&mut ctx, &request(b"x")).unwrap_err().kind,
                ErrorKind::Unauthorized
            );
            assert_eq!(list(&mut ctx, None, 10).unwrap_err().kind, ErrorKind::Unauthorized);
        }
        let mut ctx = Ctx::new(repo.store.as_mut(), real, &clock);
        assert_eq!(publish(&mut ctx, &request(b"x")).unwrap().artifact.version, 1);
    }
}
