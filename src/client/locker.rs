//! [`Locker`] over HTTP: each operation is the route `locker serve` answers it on, so the
//! outcome and the error are the same as the local operation's.

use serde_json::Value;

use super::{segment, Body, Client};
use crate::api::request::*;
use crate::api::wire::{DepositRequest, NativePublish, RevokeRequest};
use crate::api::Locker;
use crate::domain::bundle::{Bundle, LogProofs, Source};
use crate::domain::digest::Digest;
use crate::domain::sign::Statement;
use crate::ops::artifact::audit::AuditLog;
use crate::ops::artifact::{ArtifactList, ArtifactLog, ArtifactView, PublishRequest, Published};
use crate::ops::keys::{KeyList, KeyRegistered, SIGNATURE_HEADER, SIGNER_HEADER};
use crate::ops::log::journal::LogPage;
use crate::ops::log::{
    CheckpointOutcome, ConsistencyOutcome, InclusionOutcome, KeyOutcome, Target,
};
use crate::ops::pad::bundle;
use crate::ops::pad::{
    Appended, BlockSlice, Deposited, Manifest, PadCreated, PadList, Sealed, TicketMinted,
    TicketRevoked, DEFAULT_CONTENT_TYPE,
};
use crate::ops::verify::{PadReport, RepoReport};
use crate::ops::work::history::History;
use crate::ops::work::lease::{
    Acquired, Completed, LeaseList, LeaseView, Reaped, Released, WorkStatus,
};
use crate::ops::work::plan::{Diff, PlanCommitted, PlanView};
use crate::ops::work::step::StepView;
use crate::ops::{ErrorKind, OpError, OpResult, Progress};
use crate::store::JournalQuery;

fn pad_path(pad: &str, rest: &str) -> String {
    format!("/v1/pads/{}{rest}", segment(pad))
}

/// The payment proof a request sends; a verified payment exists only inside a server.
fn proof(p: PadPayment<'_>) -> OpResult<Option<&str>> {
    match p {
        PadPayment::None => Ok(None),
        PadPayment::Proof(hash) => Ok(Some(hash)),
        PadPayment::Verified(_) => {
            Err(OpError::internal("a verified payment cannot be sent to another server"))
        }
    }
}

impl Locker for Client {
    /// `POST /v1/pads`, with a payment proof for a pay-per-pad server.
    fn pad_create(&mut self, r: CreatePad<'_>) -> OpResult<PadCreated> {
        let body = serde_json::json!({
            "ttl_seconds": r.limits.ttl_seconds,
            "max_blocks": r.limits.max_blocks,
        });
        self.post_paid("/v1/pads", &body, proof(r.payment)?)
    }

    /// `POST /v1/pads/{id}/append`, with an agent's signature in `X-Locker-Signer` and
    /// `X-Locker-Signature`; a private key signs here, for the block the pad's manifest says
    /// comes next.
    fn pad_append(&mut self, r: AppendBlock<'_>) -> OpResult<Appended> {
        let ct = r.content_type.unwrap_or(DEFAULT_CONTENT_TYPE);
        let signed = self.sign_here(r.signing, |keys| {
            let seq = self.pad_manifest_of(r.pad)?.block_count;
            Ok(Statement::pad_append(&keys.repository_id, r.pad, seq, &Digest::of(r.payload)))
        })?;
        let extra: Vec<(&str, String)> = signed
            .map(|(signer, sig)| vec![(SIGNER_HEADER, signer), (SIGNATURE_HEADER, sig)])
            .unwrap_or_default();
        let path = pad_path(r.pad, "/append");
        let (status, bytes) =
            self.exchange_with("POST", &path, r.key, Body::Bytes(r.payload, ct), None, &extra)?;
        super::decode(status, &bytes)
    }

    /// `POST /v1/pads/{id}/seal`.
    fn pad_seal(&mut self, r: PadKey<'_>) -> OpResult<Sealed> {
        self.call("POST", &pad_path(r.pad, "/seal"), r.key, Body::None)
    }

    /// `POST /v1/pads/{id}/tickets`.
    fn ticket_mint(&mut self, r: MintTicket<'_>) -> OpResult<TicketMinted> {
        let body = serde_json::json!({ "type": r.ticket_type });
        self.post_json(&pad_path(r.pad, "/tickets"), r.key, &body)
    }

    /// `POST /v1/pads/{id}/tickets/revoke`.
    fn ticket_revoke(&mut self, r: RevokeTicket<'_>) -> OpResult<TicketRevoked> {
        let body = RevokeRequest { ticket: r.ticket.to_owned() };
        self.post_json(&pad_path(r.pad, "/tickets/revoke"), r.key, &body)
    }

    /// `GET /v1/pads/{id}/manifest`.
    fn pad_manifest(&mut self, pad: &str) -> OpResult<Manifest> {
        self.pad_manifest_of(pad)
    }

    /// `GET /v1/pads/{id}/blocks` with the ticket in the `Authorization` header (never in the
    /// URL).
    fn pad_read(&mut self, r: ReadBlocks<'_>) -> OpResult<BlockSlice> {
        let mut q = form_urlencoded::Serializer::new(String::new());
        if let Some(f) = r.from {
            q.append_pair("from", &f.to_string());
        }
        if let Some(t) = r.to {
            q.append_pair("to", &t.to_string());
        }
        let q = q.finish();
        let path = pad_path(r.pad, "/blocks") + if q.is_empty() { "" } else { "?" } + &q;
        self.call("GET", &path, r.ticket, Body::None)
    }

    /// `GET /v1/pads?state=&limit=&after=`.
    fn pad_list(&mut self, r: ListPads<'_>) -> OpResult<PadList> {
        let mut q = form_urlencoded::Serializer::new(String::new());
        if let Some(s) = r.state {
            q.append_pair("state", s.as_str());
        }
        q.append_pair("limit", &r.limit.to_string());
        if let Some(a) = r.after {
            q.append_pair("after", a);
        }
        self.call("GET", &format!("/v1/pads?{}", q.finish()), self.token.as_ref(), Body::None)
    }

    /// Fetches a whole pad as a bundle through the pad API (agent-locker's daemon or
    /// `locker serve`): the manifest, then every block in pages of at most 256, halving a page
    /// the server refuses as too large (its 64 KiB slice limit). Nothing is verified here: the
    /// bundle records what the server said, and its checks decide (`locker verify --bundle`).
    fn pad_export(&mut self, r: ReadPad<'_>, progress: &dyn Progress) -> OpResult<Bundle> {
        use crate::domain::limits::MAX_SLICE_BLOCKS;
        let manifest: Value = self.call("GET", &pad_path(r.pad, "/manifest"), None, Body::None)?;
        let total = manifest
            .get("block_count")
            .and_then(Value::as_u64)
            .ok_or_else(|| OpError::unavailable("the server's manifest has no block_count"))?;
        let mut pages = Vec::new();
        if total > 0 {
            progress.start("fetching", total, "blocks");
        }
        let (mut from, mut size) = (0u64, MAX_SLICE_BLOCKS);
        while from < total {
            let to = (from + size - 1).min(total - 1);
            let path = format!("{}?from={from}&to={to}", pad_path(r.pad, "/blocks"));
            let page: Value = match self.call("GET", &path, r.ticket, Body::None) {
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
            progress.advance(got);
            from += got;
        }
        // locker's manifest states its limits; agent-locker's does not.
        let kind = if manifest.get("max_blocks").is_some() { "locker" } else { "agent-locker" };
        let source = Source {
            kind: kind.into(),
            url: Some(self.base.clone()),
            exported_at: self.clock.now(),
            exporter: bundle::exporter(),
        };
        let mut b = bundle::from_peer(&manifest, &pages, source).map_err(|e| {
            OpError::unavailable(format!("the server's answer is not a pad: {}", e.detail))
        })?;
        // A locker server also proves the blocks in its log; a peer has no log.
        if kind == "locker" {
            let blocks = Some(b.blocks.len() as u64);
            b.header.log = self.pad_log_proofs(PadLogProofs { pad: r.pad, blocks }).ok();
            // Who signed the blocks, as those proofs record it, with the signers' keys.
            if let Ok(keys) = self.key_list() {
                bundle::attach_signers(&mut b, &keys);
            }
        }
        Ok(b)
    }

    /// `POST /v1/deposit`.
    fn deposit(&mut self, r: Deposit<'_>) -> OpResult<Deposited> {
        let req = DepositRequest::new(r.envelope, r.artifacts, r.ttl_seconds);
        self.post_paid("/v1/deposit", &req, proof(r.payment)?)
    }

    /// `GET /v1/pads/{id}/verify?expect_head=`.
    fn pad_verify(&mut self, r: VerifyPad<'_>) -> OpResult<PadReport> {
        let mut path = pad_path(r.pad, "/verify");
        if let Some(h) = r.expect_head {
            path.push_str(&format!("?expect_head={h}"));
        }
        self.call("GET", &path, None, Body::None)
    }

    /// `GET /v1/pads/{id}/log-proofs?blocks=N`.
    fn pad_log_proofs(&mut self, r: PadLogProofs<'_>) -> OpResult<LogProofs> {
        let mut path = pad_path(r.pad, "/log-proofs");
        if let Some(n) = r.blocks {
            path.push_str(&format!("?blocks={n}"));
        }
        self.call("GET", &path, None, Body::None)
    }

    /// `POST /v1/artifact?format=locker`.
    fn artifact_publish(&mut self, r: PublishRequest<'_>) -> OpResult<Published> {
        let fence = r.fence.map(ToString::to_string);
        let mut body = NativePublish::new(r.key, r.expected_version, r.op_id, r.content, fence);
        let version = u64::try_from(r.expected_version).unwrap_or(0).saturating_add(1);
        if let Some((signer, sig)) = self.sign_here(r.signing, |keys| {
            Ok(Statement::artifact_publish(
                &keys.repository_id,
                &keys.scope,
                r.key,
                version,
                &Digest::of(r.content),
                r.fence.map(|f| (f.work.as_str(), f.token)),
            ))
        })? {
            body.signer = Some(signer);
            body.signature = Some(sig);
        }
        self.post_json("/v1/artifact?format=locker", self.token.as_ref(), &body)
    }

    /// `GET /v1/artifact?format=locker&key=K[&version=V]`.
    fn artifact_get(&mut self, r: GetArtifact<'_>) -> OpResult<ArtifactView> {
        let mut q = form_urlencoded::Serializer::new(String::new());
        q.append_pair("format", "locker").append_pair("key", r.key);
        if let Some(v) = r.version {
            q.append_pair("version", &v.to_string());
        }
        self.call("GET", &format!("/v1/artifact?{}", q.finish()), self.token.as_ref(), Body::None)
    }

    /// `GET /v1/artifact/log?key=K&after=&limit=`.
    fn artifact_log(&mut self, r: ArtifactHistory<'_>) -> OpResult<ArtifactLog> {
        let mut q = form_urlencoded::Serializer::new(String::new());
        q.append_pair("key", r.key)
            .append_pair("after", &r.after.to_string())
            .append_pair("limit", &r.limit.to_string());
        let path = format!("/v1/artifact/log?{}", q.finish());
        self.call("GET", &path, self.token.as_ref(), Body::None)
    }

    /// `GET /v1/artifacts?format=locker&after=&limit=`.
    fn artifact_list(&mut self, r: ListArtifacts<'_>) -> OpResult<ArtifactList> {
        let mut q = form_urlencoded::Serializer::new(String::new());
        q.append_pair("format", "locker").append_pair("limit", &r.limit.to_string());
        if let Some(a) = r.after {
            q.append_pair("after", a);
        }
        self.call("GET", &format!("/v1/artifacts?{}", q.finish()), self.token.as_ref(), Body::None)
    }

    /// `GET /v1/audit?format=locker&limit=N`.
    fn artifact_audit(&mut self, limit: u64) -> OpResult<AuditLog> {
        let path = format!("/v1/audit?format=locker&limit={limit}");
        self.call("GET", &path, self.token.as_ref(), Body::None)
    }

    /// `POST /lease`.
    fn lease_acquire(&mut self, r: AcquireLease<'_>) -> OpResult<Acquired> {
        let body = serde_json::json!({
            "work_ref": r.work, "ttl": r.ttl, "holder": r.holder, "reopen": r.reopen,
        });
        self.post_json("/lease", self.token.as_ref(), &body)
    }

    /// `POST /heartbeat`.
    fn lease_heartbeat(&mut self, r: Heartbeat<'_>) -> OpResult<LeaseView> {
        let body = serde_json::json!({"work_ref": r.work, "lease": r.lease, "details": r.details});
        self.post_json("/heartbeat", self.token.as_ref(), &body)
    }

    /// `POST /complete`.
    fn lease_complete(&mut self, r: CompleteLease<'_>) -> OpResult<Completed> {
        let body = serde_json::json!({"work_ref": r.work, "lease": r.lease, "result": r.result});
        self.post_json("/complete", self.token.as_ref(), &body)
    }

    /// `POST /v1/lease/release`.
    fn lease_release(&mut self, r: LeaseRef<'_>) -> OpResult<Released> {
        let body = serde_json::json!({"work_ref": r.work, "lease": r.lease});
        self.post_json("/v1/lease/release", self.token.as_ref(), &body)
    }

    /// `GET /v1/lease?work=W`.
    fn lease_show(&mut self, work: &str) -> OpResult<WorkStatus> {
        self.work_status(work)
    }

    /// `GET /v1/leases?state=&limit=`.
    fn lease_list(&mut self, r: ListLeases) -> OpResult<LeaseList> {
        let mut q = form_urlencoded::Serializer::new(String::new());
        if let Some(s) = r.state {
            if let Some(name) =
                serde_json::to_value(s).ok().and_then(|v| v.as_str().map(str::to_owned))
            {
                q.append_pair("state", &name);
            }
        }
        q.append_pair("limit", &r.limit.to_string());
        self.call("GET", &format!("/v1/leases?{}", q.finish()), self.token.as_ref(), Body::None)
    }

    /// `POST /v1/leases/reap`.
    fn lease_reap(&mut self) -> OpResult<Reaped> {
        self.call("POST", "/v1/leases/reap", self.token.as_ref(), Body::None)
    }

    /// `GET /ledger?work=W`.
    fn work_history(&mut self, work: &str) -> OpResult<History> {
        let path = Self::work_query("/ledger", work, &[]);
        self.call("GET", &path, self.token.as_ref(), Body::None)
    }

    /// `POST /manifest`.
    fn plan_commit(&mut self, r: CommitPlan<'_>) -> OpResult<PlanCommitted> {
        let body = serde_json::json!({"work_ref": r.work, "lease": r.lease, "steps": r.steps});
        self.post_json("/manifest", self.token.as_ref(), &body)
    }

    /// `GET /v1/manifest?work=W[&version=V]`.
    fn plan_show(&mut self, r: ShowPlan<'_>) -> OpResult<PlanView> {
        let extra: Vec<(&str, String)> =
            r.version.map(|v| ("version", v.to_string())).into_iter().collect();
        let path = Self::work_query("/v1/manifest", r.work, &extra);
        self.call("GET", &path, self.token.as_ref(), Body::None)
    }

    /// `GET /v1/manifest/diff?work=W`.
    fn plan_diff(&mut self, work: &str) -> OpResult<Diff> {
        let path = Self::work_query("/v1/manifest/diff", work, &[]);
        self.call("GET", &path, self.token.as_ref(), Body::None)
    }

    /// `POST /event`.
    fn step_record(&mut self, r: RecordStep<'_>) -> OpResult<StepView> {
        let s = &r.step;
        let mut body = serde_json::json!({
            "work_ref": r.work, "lease": r.lease, "step": s.step, "planned": s.planned,
            "executed": s.executed, "gate": s.gate,
        });
        let gate = s.gate.unwrap_or(crate::domain::work::DEFAULT_GATE);
        if let Some((signer, sig)) = self.sign_here(s.signing, |keys| {
            let fence = self.work_status(r.work)?.lease.fence;
            Ok(Statement::step_record(
                &keys.repository_id,
                &keys.scope,
                r.work,
                r.lease,
                s.step,
                fence,
                &crate::domain::sign::step_digest(s.planned, s.executed, gate),
            ))
        })? {
            body["signer"] = signer.into();
            body["signature"] = sig.into();
        }
        self.post_json("/event", self.token.as_ref(), &body)
    }

    /// `GET /v1/keys`: the registered agent keys, the repository id and the signing policy.
    fn key_list(&mut self) -> OpResult<KeyList> {
        self.call("GET", "/v1/keys", self.token.as_ref(), Body::None)
    }

    /// `POST /v1/keys` with the agent's token.
    fn key_register(&mut self, r: RegisterKey<'_>) -> OpResult<KeyRegistered> {
        let body = crate::api::wire::RegisterKeyRequest {
            public_key: r.public_key.to_owned(),
            rotation_signature: r.rotation_signature.map(str::to_owned),
        };
        self.post_json("/v1/keys", self.token.as_ref(), &body)
    }

    /// `GET /v1/journal`.
    fn journal(&mut self, q: &JournalQuery) -> OpResult<LogPage> {
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
        put("since", q.since.map(|v| v.to_string()));
        put("until", q.until.map(|v| v.to_string()));
        put("limit", Some(q.limit.to_string()));
        if q.ascending {
            put("reverse", Some("1".into()));
        }
        self.call("GET", &format!("/v1/journal?{}", s.finish()), self.token.as_ref(), Body::None)
    }

    /// `GET /v1/verify?expect_head=&require_signed=1&require_self_keys=1` (the server shows no
    /// progress).
    fn verify(&mut self, r: VerifyRepository, _progress: &dyn Progress) -> OpResult<RepoReport> {
        let mut q = form_urlencoded::Serializer::new(String::new());
        if let Some(h) = r.expect_head {
            q.append_pair("expect_head", &h.to_string());
        }
        if r.require_signed {
            q.append_pair("require_signed", "1");
        }
        if r.require_self_keys {
            q.append_pair("require_self_keys", "1");
        }
        let q = q.finish();
        let path = if q.is_empty() { "/v1/verify".to_owned() } else { format!("/v1/verify?{q}") };
        self.call("GET", &path, self.token.as_ref(), Body::None)
    }

    /// `GET /v1/checkpoint`: the log's latest signed checkpoint.
    fn checkpoint(&mut self) -> OpResult<CheckpointOutcome> {
        self.call("GET", "/v1/checkpoint", None, Body::None)
    }

    /// `GET /v1/key`: the log's verifier key.
    fn log_key(&mut self) -> OpResult<KeyOutcome> {
        self.call("GET", "/v1/key", None, Body::None)
    }

    /// `GET /v1/proof/inclusion?seq=` or `?pad=&block=`.
    fn prove_inclusion(&mut self, target: &Target) -> OpResult<InclusionOutcome> {
        let mut q = form_urlencoded::Serializer::new(String::new());
        match target {
            Target::Entry(seq) => q.append_pair("seq", &seq.to_string()),
            Target::Block { pad_id, seq } => {
                q.append_pair("pad", pad_id).append_pair("block", &seq.to_string())
            }
        };
        self.call("GET", &format!("/v1/proof/inclusion?{}", q.finish()), None, Body::None)
    }

    /// `GET /v1/proof/consistency?old=&new=`.
    fn prove_consistency(&mut self, r: ProveConsistency) -> OpResult<ConsistencyOutcome> {
        let mut path = format!("/v1/proof/consistency?old={}", r.old);
        if let Some(n) = r.new {
            path.push_str(&format!("&new={n}"));
        }
        self.call("GET", &path, None, Body::None)
    }
}

impl Client {
    /// `GET /v1/pads/{id}/manifest`, for the pad operations that need it first.
    fn pad_manifest_of(&self, pad: &str) -> OpResult<Manifest> {
        self.call("GET", &pad_path(pad, "/manifest"), None, Body::None)
    }

    /// `GET /v1/lease?work=W`.
    fn work_status(&self, work: &str) -> OpResult<WorkStatus> {
        let path = Self::work_query("/v1/lease", work, &[]);
        self.call("GET", &path, self.token.as_ref(), Body::None)
    }
}
