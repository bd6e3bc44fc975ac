//! The verification and journal tools, and the journal as a transparency log (checkpoints and
//! proofs), with the offline verifiers of bundles and proofs.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{def, Def, Effect, HEX64};
use crate::api::{ProveConsistency, VerifyPad, VerifyRepository};
use crate::domain::bundle::MAX_BUNDLE_BYTES;
use crate::domain::limits::MAX_PAD_ID_BYTES;
use crate::domain::proof::MAX_PROOF_FILE_BYTES;
use crate::mcp::Call;
use crate::ops::log;
use crate::ops::log::journal::{LogPage, MAX_LOG_LIMIT};
use crate::ops::verify::{self, PadReport, RepoReport};
use crate::ops::{NoProgress, OpError, OpResult};
use crate::store::JournalQuery;

/// This toolset's tools, in the order `tools/list` shows them.
pub(super) fn tools() -> Vec<Def> {
    vec![
        def("locker_verify_pad", "Verify one pad", Effect::ReadOnly, VERIFY_PAD, verify_pad),
        def("locker_verify", "Verify the repository", Effect::ReadOnly, VERIFY, verify_repo),
        def(
            "locker_verify_bundle",
            "Verify a pad bundle offline",
            Effect::ReadOnly,
            VERIFY_BUNDLE,
            verify_bundle,
        ),
        def("locker_log", "Read the journal", Effect::ReadOnly, LOG, log),
        def(
            "locker_checkpoint",
            "The log's signed checkpoint",
            Effect::ReadOnly,
            CHECKPOINT,
            checkpoint,
        ),
        def(
            "locker_proof_inclusion",
            "Prove an entry or pad block in the log",
            Effect::ReadOnly,
            PROOF_INCLUSION,
            proof_inclusion,
        ),
        def(
            "locker_proof_consistency",
            "Prove two checkpoints consistent",
            Effect::ReadOnly,
            PROOF_CONSISTENCY,
            proof_consistency,
        ),
        def(
            "locker_verify_proof",
            "Verify a log proof offline",
            Effect::ReadOnly,
            VERIFY_PROOF,
            verify_proof,
        ),
    ]
}

// ---------------------------------------------------------------------------------------------
// Verification and the journal.

const VERIFY_PAD: &str = "Verify one pad in the repository: its chain re-hashed from the payloads, its accounting, and the journal's record of it, and optionally a \
head you expect. Needs no ticket and returns no payloads. ok is false (with the problems \
listed) when anything is broken; that is an answer, not an error.";

/// `locker_verify_pad`'s arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct VerifyPadIn {
    /// The pad's id
    #[schemars(length(min = 1, max = MAX_PAD_ID_BYTES))]
    pad_id: String,
    /// Also require this head (64 lowercase hex)
    #[serde(default)]
    #[schemars(pattern(HEX64))]
    expected_head_hash: Option<String>,
}

fn verify_pad(call: &Call<'_>, a: VerifyPadIn) -> OpResult<PadReport> {
    let expect = a.expected_head_hash.as_deref().map(verify::parse_expected_head).transpose()?;
    call.run(|l| l.pad_verify(VerifyPad { pad: &a.pad_id, expect_head: expect }))
}

const VERIFY: &str = "Verify the whole repository (like git fsck): the journal's hash chain and head, every pad's chain against its head and the journal, every ticket. ok is \
false when anything is broken, with the first broken item of each kind named in first_broken. \
Pass expected_head_hash (a journal head hash you recorded earlier) to also detect a rewritten \
journal.";

const VERIFY_BUNDLE: &str = "Verify a handed-off pad bundle (the locker.bundle.v1 text of a pad's \
export, as a locker server's GET /v1/pads/{id}/export writes it) offline: the format, the \
trailer's SHA-256 (truncation), every block's link and hash, the head, the counts, block 0's \
envelope, and the head you expect. Needs no repository or server and returns no \
payloads. verdict is trusted_head_match only when the chain is intact AND matches \
expected_head_hash; internal_consistency_only means intact but unanchored (whoever wrote the file \
could have forged a consistent one); failed names the first failed check. A text that is not a \
bundle at all is an error.";

/// `locker_verify_bundle`'s arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct VerifyBundleIn {
    /// The bundle file's whole text (JSON Lines: header, one line per block, trailer; at most
    /// 8 MiB)
    #[schemars(length(max = MAX_BUNDLE_BYTES))]
    bundle: String,
    /// The head you expect (64 lowercase hex), e.g. the head_hash the depositor handed you
    #[serde(default)]
    #[schemars(pattern(HEX64))]
    expected_head_hash: Option<String>,
    /// The log's verifier key (name+keyid+AQ…; locker_checkpoint returns it as key): also
    /// check the bundle's signed checkpoint and every block's inclusion proof against it
    #[serde(default)]
    key: Option<String>,
}

fn verify_bundle(
    _call: &Call<'_>,
    a: VerifyBundleIn,
) -> OpResult<crate::ops::pad::bundle::BundleReport> {
    let expect = a.expected_head_hash.as_deref().map(verify::parse_expected_head).transpose()?;
    let key = a.key.as_deref().map(log::parse_verifier).transpose()?;
    crate::ops::pad::bundle::verify_with_key(a.bundle.as_bytes(), None, expect, key.as_ref())
}

// ---------------------------------------------------------------------------------------------
// The journal as a transparency log.

const CHECKPOINT: &str = "The journal is a transparency log (an RFC 6962 Merkle tree over its entries). Returns the latest C2SP checkpoint (origin, size, root) as a signed note, signing one if the journal grew, with the log's verifier key. A checkpoint is only signed when consistent with the last one signed.";

/// `locker_checkpoint`'s arguments (none).
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct CheckpointIn {}

fn checkpoint(call: &Call<'_>, _a: CheckpointIn) -> OpResult<log::CheckpointOutcome> {
    call.run(|l| l.checkpoint())
}

const PROOF_INCLUSION: &str = "Prove a journal entry (by seq) or the entry that recorded a pad block (pad_id and block) included in the log's latest signed checkpoint. proof is a C2SP tlog-proof file carrying the entry's bytes, checkable by anyone with the verifier key (locker_verify_proof).";

/// `locker_proof_inclusion`'s arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ProofInclusionIn {
    /// The journal entry's sequence number
    #[serde(default)]
    seq: Option<u64>,
    /// A pad's id (with block)
    #[serde(default)]
    #[schemars(length(min = 1, max = MAX_PAD_ID_BYTES))]
    pad_id: Option<String>,
    /// The block's sequence number in the pad (with pad_id)
    #[serde(default)]
    block: Option<u64>,
}

fn proof_inclusion(call: &Call<'_>, a: ProofInclusionIn) -> OpResult<log::InclusionOutcome> {
    let target = match (a.seq, a.pad_id, a.block) {
        (Some(seq), None, None) => log::Target::Entry(seq),
        (None, Some(pad_id), Some(seq)) => log::Target::Block { pad_id, seq },
        _ => return Err(OpError::bad_request("give either seq, or pad_id and block")),
    };
    call.run(|l| l.prove_inclusion(&target))
}

const PROOF_CONSISTENCY: &str = "Prove the log's checkpoint at old entries consistent with the one at new (default: the whole journal): both signed checkpoints and the RFC 6962 consistency proof, as a proof file.";

/// `locker_proof_consistency`'s arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ProofConsistencyIn {
    /// The older tree size
    old: u64,
    /// The newer tree size (default: the whole journal)
    #[serde(default)]
    new: Option<u64>,
}

fn proof_consistency(call: &Call<'_>, a: ProofConsistencyIn) -> OpResult<log::ConsistencyOutcome> {
    call.run(|l| l.prove_consistency(ProveConsistency { old: a.old, new: a.new }))
}

const VERIFY_PROOF: &str = "Verify a proof file (from locker_proof_inclusion or locker_proof_consistency) with nothing but the log's verifier key, offline: the checkpoint's signature and the Merkle proof. ok is false with failure when it does not verify. No checkpoint pinned earlier is consulted; with policy, the checkpoint must also carry the policy's quorum of witness cosignatures.";

/// `locker_verify_proof`'s arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct VerifyProofIn {
    /// The proof file's whole text (at most 1 MiB)
    #[schemars(length(max = MAX_PROOF_FILE_BYTES))]
    proof: String,
    /// The log's verifier key (name+keyid+AQ…)
    key: String,
    /// A witness policy's text (C2SP tlog-policy): the proof's checkpoint must carry its
    /// quorum of valid cosignatures
    #[serde(default)]
    policy: Option<String>,
}

fn verify_proof(_call: &Call<'_>, a: VerifyProofIn) -> OpResult<crate::ops::log::pin::ProofReport> {
    let key = log::parse_verifier(&a.key)?;
    let policy = a
        .policy
        .as_deref()
        .map(crate::domain::witness::Policy::parse)
        .transpose()
        .map_err(|e| crate::ops::OpError::bad_request(format!("the witness policy: {e}")))?;
    let trust = crate::ops::log::pin::Trust { key, pins: None, policy };
    crate::ops::log::pin::verify_proof(a.proof.as_bytes(), &trust, None)
}

/// `locker_verify`'s arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct VerifyIn {
    /// The journal head hash you expect (64 lowercase hex)
    #[serde(default)]
    #[schemars(pattern(HEX64))]
    expected_head_hash: Option<String>,
}

fn verify_repo(call: &Call<'_>, a: VerifyIn) -> OpResult<RepoReport> {
    let expect = a.expected_head_hash.as_deref().map(verify::parse_expected_head).transpose()?;
    call.run(|l| {
        let r = VerifyRepository { expect_head: expect, ..VerifyRepository::default() };
        l.verify(r, &NoProgress)
    })
}

const LOG: &str = "Read the journal, newest first (like `git log`): every change to the \
repository is one hash-chained entry with its time, kind (pad.create, pad.append, pad.seal, …), \
actor, subject (pad:<id>) and body. Filter by kind (a family when it ends with a dot: pad.), \
subject or actor; page with before/after sequence numbers.";

/// `locker_log`'s arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct LogIn {
    /// Only entries of this kind (pad.append), or of this family when it ends with a dot (pad.)
    #[serde(default)]
    kind: Option<String>,
    /// Only entries about this subject (`pad:ID`, `repo`)
    #[serde(default)]
    subject: Option<String>,
    /// Only entries by this actor (operator, or an agent's name)
    #[serde(default)]
    actor: Option<String>,
    /// Only entries in this scope
    #[serde(default)]
    scope: Option<String>,
    /// Most entries to return (1–10000)
    #[serde(default = "default_log_limit")]
    #[schemars(range(min = 1, max = MAX_LOG_LIMIT))]
    limit: u64,
    /// Only entries after this sequence number
    #[serde(default)]
    after: Option<u64>,
    /// Only entries before this sequence number
    #[serde(default)]
    before: Option<u64>,
    /// Only entries written at or after this time (Unix seconds)
    #[serde(default)]
    since: Option<i64>,
    /// Only entries written before this time (Unix seconds)
    #[serde(default)]
    until: Option<i64>,
    /// Oldest first
    #[serde(default)]
    reverse: bool,
}

fn default_log_limit() -> u64 {
    50
}

fn log(call: &Call<'_>, a: LogIn) -> OpResult<LogPage> {
    let q = JournalQuery {
        kind: a.kind,
        subject: a.subject,
        actor: a.actor,
        scope: a.scope,
        after: a.after,
        before: a.before,
        since: a.since,
        until: a.until,
        ascending: a.reverse,
        limit: a.limit,
        skip_appends: false,
    };
    call.run(|l| l.journal(&q))
}
