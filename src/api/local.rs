//! [`Locker`] on an operations context: each method is the [`crate::ops`] function that decides
//! its rule. The CLI and `locker mcp` get such a context from a [`super::Session`]; `locker
//! serve` builds one per request on a pooled store, or inside a group commit.

use super::request::*;
use super::Locker;
use crate::domain::bundle::{Bundle, LogProofs};
use crate::domain::limits::MAX_MAX_BLOCKS;
use crate::ops::artifact::audit::{self, AuditLog};
use crate::ops::artifact::{
    self, ArtifactList, ArtifactLog, ArtifactView, PublishRequest, Published,
};
use crate::ops::keys::{self, KeyList, KeyRegistered};
use crate::ops::log::journal::LogPage;
use crate::ops::log::{
    self, CheckpointOutcome, ConsistencyOutcome, InclusionOutcome, KeyOutcome, Target,
};
use crate::ops::pad::bundle;
use crate::ops::pad::{
    self, Appended, BlockSlice, Deposited, Manifest, PadCreated, PadList, Sealed, TicketMinted,
    TicketRevoked,
};
use crate::ops::verify::{self, PadReport, RepoReport};
use crate::ops::work::history::{self, History};
use crate::ops::work::lease::{
    self, Acquired, Completed, LeaseList, LeaseView, Reaped, Released, WorkStatus,
};
use crate::ops::work::plan::{self, Diff, PlanCommitted, PlanView};
use crate::ops::work::step::{self, StepView};
use crate::ops::{disclose, ActorKind, Ctx, OpError, OpResult, Progress};
use crate::store::JournalQuery;

/// The verified payment a local operation redeems: a proof that no server has checked is
/// refused (the front ends name their own flag or argument before it gets here).
fn verified(p: PadPayment<'_>) -> OpResult<Option<&crate::ops::pad::payment::Verified>> {
    match p {
        PadPayment::None => Ok(None),
        PadPayment::Verified(v) => Ok(Some(v)),
        PadPayment::Proof(_) => Err(OpError::usage(
            "a payment proof is for a remote pay-per-pad server; the local repository takes no \
             payments",
        )),
    }
}

impl Locker for Ctx<'_> {
    fn pad_create(&mut self, r: CreatePad<'_>) -> OpResult<PadCreated> {
        pad::create_paid(self, r.limits, verified(r.payment)?)
    }

    fn pad_append(&mut self, r: AppendBlock<'_>) -> OpResult<Appended> {
        pad::append_signed(self, r.pad, r.key, r.payload, r.content_type, r.signing)
    }

    fn pad_seal(&mut self, r: PadKey<'_>) -> OpResult<Sealed> {
        pad::seal(self, r.pad, r.key)
    }

    fn ticket_mint(&mut self, r: MintTicket<'_>) -> OpResult<TicketMinted> {
        pad::mint_ticket(self, r.pad, r.key, r.ticket_type)
    }

    fn ticket_revoke(&mut self, r: RevokeTicket<'_>) -> OpResult<TicketRevoked> {
        pad::revoke_ticket(self, r.pad, r.key, r.ticket)
    }

    fn pad_manifest(&mut self, id: &str) -> OpResult<Manifest> {
        pad::manifest(self, id)
    }

    fn pad_read(&mut self, r: ReadBlocks<'_>) -> OpResult<BlockSlice> {
        pad::read(self, r.pad, r.ticket, r.from, r.to)
    }

    fn pad_list(&mut self, r: ListPads<'_>) -> OpResult<PadList> {
        pad::list(self, r.state, r.limit, r.after)
    }

    fn pad_export(&mut self, r: ReadPad<'_>, progress: &dyn Progress) -> OpResult<Bundle> {
        let mut b = bundle::export(self, r.pad, r.ticket, progress)?;
        if let Some(log) = self.log {
            bundle::attach_log(self, log, &mut b)?;
            bundle::attach_signers(&mut b, &keys::list(self)?);
        }
        Ok(b)
    }

    fn deposit(&mut self, r: Deposit<'_>) -> OpResult<Deposited> {
        pad::deposit_paid(self, r.envelope, r.artifacts, r.ttl_seconds, verified(r.payment)?)
    }

    fn pad_verify(&mut self, r: VerifyPad<'_>) -> OpResult<PadReport> {
        verify::pad(self, r.pad, r.expect_head)
    }

    fn pad_log_proofs(&mut self, r: PadLogProofs<'_>) -> OpResult<LogProofs> {
        let log = self.log()?;
        let n = match r.blocks {
            Some(n) => n,
            None => pad::manifest(self, r.pad)?.block_count,
        };
        let seqs: Vec<u64> = (0..n.min(u64::from(MAX_MAX_BLOCKS))).collect();
        bundle::log_proofs(self, log, r.pad, &seqs)
    }

    fn artifact_publish(&mut self, r: PublishRequest<'_>) -> OpResult<Published> {
        artifact::publish(self, &r)
    }

    fn artifact_get(&mut self, r: GetArtifact<'_>) -> OpResult<ArtifactView> {
        artifact::get(self, r.key, r.version)
    }

    fn artifact_log(&mut self, r: ArtifactHistory<'_>) -> OpResult<ArtifactLog> {
        artifact::log(self, r.key, r.after, r.limit)
    }

    fn artifact_list(&mut self, r: ListArtifacts<'_>) -> OpResult<ArtifactList> {
        artifact::list(self, r.after, r.limit)
    }

    fn artifact_audit(&mut self, limit: u64) -> OpResult<AuditLog> {
        audit::audit(self, limit)
    }

    fn lease_acquire(&mut self, r: AcquireLease<'_>) -> OpResult<Acquired> {
        lease::acquire(self, r.work, r.ttl, r.holder, r.reopen)
    }

    fn lease_heartbeat(&mut self, r: Heartbeat<'_>) -> OpResult<LeaseView> {
        lease::heartbeat(self, r.work, r.lease, r.details)
    }

    fn lease_complete(&mut self, r: CompleteLease<'_>) -> OpResult<Completed> {
        lease::complete(self, r.work, r.lease, r.result)
    }

    fn lease_release(&mut self, r: LeaseRef<'_>) -> OpResult<Released> {
        lease::release(self, r.work, r.lease)
    }

    fn lease_show(&mut self, work: &str) -> OpResult<WorkStatus> {
        let status = lease::show(self, work)?;
        Ok(disclose::work_status(&self.actor, status))
    }

    fn lease_list(&mut self, r: ListLeases) -> OpResult<LeaseList> {
        let list = lease::list(self, r.state, r.limit)?;
        Ok(disclose::leases(&self.actor, list))
    }

    fn lease_reap(&mut self) -> OpResult<Reaped> {
        lease::reap(self)
    }

    fn work_history(&mut self, work: &str) -> OpResult<History> {
        let mut h = history::history(self, work)?;
        if self.actor.kind == ActorKind::Anonymous {
            h.entries.iter_mut().for_each(|e| disclose::redact_secrets(&mut e.body));
        }
        Ok(h)
    }

    fn plan_commit(&mut self, r: CommitPlan<'_>) -> OpResult<PlanCommitted> {
        plan::commit(self, r.work, r.lease, r.steps.to_vec())
    }

    fn plan_show(&mut self, r: ShowPlan<'_>) -> OpResult<PlanView> {
        plan::show(self, r.work, r.version)
    }

    fn plan_diff(&mut self, work: &str) -> OpResult<Diff> {
        plan::diff(self, work)
    }

    fn step_record(&mut self, r: RecordStep<'_>) -> OpResult<StepView> {
        step::record(self, r.work, r.lease, &r.step)
    }

    fn key_list(&mut self) -> OpResult<KeyList> {
        keys::list(self)
    }

    fn key_register(&mut self, r: RegisterKey<'_>) -> OpResult<KeyRegistered> {
        keys::register_key(self, r.public_key, r.rotation_signature)
    }

    fn journal(&mut self, q: &JournalQuery) -> OpResult<LogPage> {
        disclose::journal(self, q)
    }

    fn verify(&mut self, r: VerifyRepository, progress: &dyn Progress) -> OpResult<RepoReport> {
        // The key as it is: verifying never makes one (a repository from before signed
        // checkpoints has none, and its tree is built on its next write).
        let key = self.log.and_then(|l| l.verifier().ok().flatten());
        let require = verify::signatures::Require {
            signed: r.require_signed,
            self_keys: r.require_self_keys,
        };
        let report = verify::repository_with(self, r.expect_head, progress, key.as_ref(), require)?;
        Ok(disclose::report(&self.actor, report))
    }

    fn checkpoint(&mut self) -> OpResult<CheckpointOutcome> {
        let log = self.log()?;
        log::checkpoint(self, log)
    }

    fn log_key(&mut self) -> OpResult<KeyOutcome> {
        let log = self.log()?;
        log::key(self, log)
    }

    fn prove_inclusion(&mut self, target: &Target) -> OpResult<InclusionOutcome> {
        let log = self.log()?;
        log::prove_inclusion(self, log, target)
    }

    fn prove_consistency(&mut self, r: ProveConsistency) -> OpResult<ConsistencyOutcome> {
        let log = self.log()?;
        log::prove_consistency(self, log, r.old, r.new)
    }
}
