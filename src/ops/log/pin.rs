//! A verifier's pinned state: per log origin, the newest checkpoint it verified. A newer
//! checkpoint is accepted only with a consistency proof from the pinned one (and an older one
//! only with a proof to it); anything else is a fork, reported with the evidence.
//!
//! Pins live in the user's state directory (`$XDG_STATE_HOME/locker/pins/` on Linux), one
//! file per origin named by the SHA-256 of the origin, holding the signed note verbatim.
//!
//! [`accept`] is the one rule every reader flow follows (`checkpoint --key`, `verify --proof`,
//! `verify --bundle`, `review`, remote `pad read`): a checkpoint verified with the trusted key
//! must first carry the witness policy's quorum of valid cosignatures, when the reader has a
//! policy, or it is neither accepted nor pinned (so a first use needs a quorum-cosigned
//! checkpoint too); then it is checked against, and advances, the pin.

use std::fs;
use std::io::Write as _;
use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::domain::check::Check;
use crate::domain::digest::Digest;
use crate::domain::merkle;
use crate::domain::note::{SignedCheckpoint, Verifier};
use crate::domain::proof::{self, ConsistencyProof, InclusionProof, ProofFileError};
use crate::domain::witness::Policy;
use crate::ops::log::cosign::{check_policy, PolicyReport};
use crate::ops::{OpError, OpResult};

/// The state directory of pins.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PinStore {
    pub dir: PathBuf,
}

impl PinStore {
    /// Pins under `dir` (`--state DIR`).
    pub fn new(dir: &Path) -> Self {
        Self { dir: dir.to_owned() }
    }

    /// The user's state directory for locker, if the platform has one.
    pub fn default_dir() -> Option<PathBuf> {
        let dirs = directories::ProjectDirs::from("", "", "locker")?;
        Some(dirs.state_dir().unwrap_or_else(|| dirs.data_local_dir()).to_owned())
    }

    /// The file holding the pin of `origin`.
    pub fn path(&self, origin: &str) -> PathBuf {
        self.dir.join("pins").join(Digest::of(origin.as_bytes()).to_hex())
    }

    /// The pinned note for `origin`.
    pub fn load(&self, origin: &str) -> OpResult<Option<String>> {
        let path = self.path(origin);
        match fs::read_to_string(&path) {
            Ok(s) => Ok(Some(s)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(OpError::unavailable(format!("cannot read {}: {e}", path.display()))),
        }
    }

    /// Pins `note` for `origin` (written atomically).
    pub fn save(&self, origin: &str, note: &str) -> OpResult<()> {
        let path = self.path(origin);
        let dir = path.parent().expect("a pin has a directory");
        let io = |e: std::io::Error| {
            OpError::unavailable(format!(
                "cannot write the pinned checkpoint {}: {e}",
                path.display()
            ))
        };
        fs::DirBuilder::new().recursive(true).mode(0o700).create(dir).map_err(io)?;
        let tmp = dir.join(format!(".tmp-{}", crate::domain::secret::random_id()));
        let result = (|| {
            let mut f =
                fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&tmp)?;
            f.write_all(note.as_bytes())?;
            f.sync_all()?;
            fs::rename(&tmp, &path)
        })();
        if result.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        result.map_err(io)
    }
}

/// What the pin said about a checkpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PinStatus {
    /// Nothing was pinned for this origin: this checkpoint is now (trust on first use).
    Pinned,
    /// The same checkpoint as the pinned one.
    Unchanged,
    /// Newer, proved consistent with the pinned one, and now pinned.
    Advanced,
    /// Older, proved consistent with the pinned one (which stays).
    Older,
    /// Not consistent with the pinned checkpoint: the log forked or was rewritten.
    Fork,
    /// Different size and no consistency proof could be had (no repository or server).
    Unproven,
    /// Pinning was turned off (`--no-pin`).
    Disabled,
    /// Not taken: the checkpoint (or the proof leading to it) does not verify with the key
    /// given, so the pin was neither consulted nor moved.
    Unverified,
    /// Not accepted: the checkpoint lacks the reader's witness policy's quorum of valid
    /// cosignatures, so the pin was neither consulted nor moved.
    Refused,
}

/// The pin part of a report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PinReport {
    pub status: PinStatus,
    pub state_dir: Option<String>,
    pub pinned_size: Option<u64>,
    pub pinned_root: Option<Digest>,
    pub detail: String,
}

impl PinReport {
    pub fn ok(&self) -> bool {
        !matches!(
            self.status,
            PinStatus::Fork | PinStatus::Unproven | PinStatus::Refused | PinStatus::Unverified
        )
    }

    pub fn disabled() -> Self {
        Self {
            status: PinStatus::Disabled,
            state_dir: None,
            pinned_size: None,
            pinned_root: None,
            detail: "pinning is off: a rewritten log would not be noticed".into(),
        }
    }

    /// The pin of a checkpoint that was not taken because `note` (the checkpoint presented)
    /// does not verify with `v`, or the proof leading to it failed: nothing was pinned, and the
    /// detail says why and what to do. With pinning off, [`Self::disabled`].
    pub fn not_taken(pins: Option<&PinStore>, v: &Verifier, note: &str) -> Self {
        let Some(pins) = pins else { return Self::disabled() };
        Self {
            status: PinStatus::Unverified,
            state_dir: Some(pins.dir.display().to_string()),
            pinned_size: None,
            pinned_root: None,
            detail: format!("nothing was pinned: {}", why_not_taken(v, note)),
        }
    }
}

/// Why a checkpoint `note` was not taken with the key `v`, and what to do about it.
fn why_not_taken(v: &Verifier, note: &str) -> String {
    let key = format!("{}+{}", v.name, v.id_hex());
    let proof_failed = "the proof does not verify, so the checkpoint it leads to was not taken";
    match SignedCheckpoint::parse_unverified(note) {
        Ok(c) if c.origin != v.name => format!(
            "this checkpoint is of the log `{}` and the key given ({key}) is not its key: pass \
             the key of `{}` (`locker key show` prints it in that log's repository)",
            c.origin, c.origin
        ),
        Ok(c) => match SignedCheckpoint::verify(note, v) {
            Err(crate::domain::note::NoteError::Unsigned(_)) => format!(
                "the checkpoint of `{}` is not signed by the key given ({key}): the log's key \
                 changed, or this is another key of the same name (`locker key show` prints the \
                 log's key in its repository)",
                c.origin
            ),
            Err(crate::domain::note::NoteError::BadSignature(_)) => format!(
                "the checkpoint's signature by the key given ({key}) does not verify: the \
                 checkpoint was altered or forged"
            ),
            Err(e) => format!("the checkpoint does not verify with the key given ({key}): {e}"),
            Ok(_) => proof_failed.into(),
        },
        Err(e) => format!("the checkpoint is malformed: {e}"),
    }
}

/// Evidence of a fork: both signed checkpoints and the proof that failed between them, enough
/// to convince anyone holding the log's key without trusting the log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ForkEvidence {
    /// The pinned checkpoint (signed note).
    pub pinned: String,
    /// The checkpoint presented now (signed note).
    pub presented: String,
    pub old_size: u64,
    pub new_size: u64,
    /// The consistency proof offered between them (empty when the sizes are equal).
    pub proof: Vec<Digest>,
    pub failure: String,
}

/// Fetches the consistency proof hashes between two tree sizes, from wherever the log is.
pub type Fetch<'a> = dyn FnMut(u64, u64) -> OpResult<Vec<Digest>> + 'a;

/// Checks `presented` (already verified with `v`) against the pin for its origin, advancing
/// the pin when a consistency proof from `fetch` shows it extends the pinned one.
pub fn check(
    pins: Option<&PinStore>,
    v: &Verifier,
    presented: &SignedCheckpoint,
    fetch: Option<&mut Fetch<'_>>,
) -> OpResult<(PinReport, Option<ForkEvidence>)> {
    let Some(pins) = pins else { return Ok((PinReport::disabled(), None)) };
    let origin = &presented.checkpoint.origin;
    let state_dir = Some(pins.dir.display().to_string());
    let Some(note) = pins.load(origin)? else {
        pins.save(origin, &presented.note)?;
        return Ok((
            PinReport {
                status: PinStatus::Pinned,
                state_dir,
                pinned_size: Some(presented.checkpoint.size),
                pinned_root: Some(presented.checkpoint.root),
                detail: format!(
                    "first checkpoint seen for {origin}: pinned (size {})",
                    presented.checkpoint.size
                ),
            },
            None,
        ));
    };
    let pinned = SignedCheckpoint::verify(&note, v).map_err(|e| {
        OpError::new(
            crate::ops::ErrorKind::Conflict,
            "pin_mismatch",
            format!("the checkpoint pinned for {origin} does not verify with this key: {e}"),
        )
        .hint("The log's key changed, or the key given is not the one pinned before.")
    })?;
    let (p, c) = (&pinned.checkpoint, &presented.checkpoint);
    let mut report = PinReport {
        status: PinStatus::Unchanged,
        state_dir,
        pinned_size: Some(p.size),
        pinned_root: Some(p.root),
        detail: String::new(),
    };
    let fork = |proof: Vec<Digest>, failure: String| ForkEvidence {
        pinned: pinned.note.clone(),
        presented: presented.note.clone(),
        old_size: p.size.min(c.size),
        new_size: p.size.max(c.size),
        proof,
        failure,
    };
    if p.size == c.size {
        if p.root == c.root {
            report.detail = format!("the pinned checkpoint (size {})", p.size);
            return Ok((report, None));
        }
        report.status = PinStatus::Fork;
        report.detail = format!(
            "FORK: the log signed two different trees of size {}: pinned root {}, presented root {}",
            p.size, p.root, c.root
        );
        let failure = "same size, different roots".to_owned();
        return Ok((report, Some(fork(Vec::new(), failure))));
    }
    let (old, new) = if p.size < c.size { (p, c) } else { (c, p) };
    let Some(fetch) = fetch else {
        report.status = PinStatus::Unproven;
        report.detail = format!(
            "pinned size {} differs from size {} and no consistency proof is at hand: run inside \
             the repository or pass --remote (or --no-pin)",
            p.size, c.size
        );
        return Ok((report, None));
    };
    let proof = match fetch(old.size, new.size) {
        Ok(proof) => proof,
        Err(e) => {
            report.status = PinStatus::Fork;
            report.detail = format!(
                "FORK: the log gives no consistency proof from size {} to {}: {}",
                old.size, new.size, e.detail
            );
            return Ok((report, Some(fork(Vec::new(), e.detail))));
        }
    };
    if let Err(e) = merkle::verify_consistency(old.size, new.size, &old.root, &new.root, &proof) {
        report.status = PinStatus::Fork;
        report.detail = format!(
            "FORK: the checkpoint of size {} is not consistent with the one of size {}: {e}",
            new.size, old.size
        );
        return Ok((report, Some(fork(proof, e.to_string()))));
    }
    if c.size > p.size {
        pins.save(origin, &presented.note)?;
        report.status = PinStatus::Advanced;
        report.pinned_size = Some(c.size);
        report.pinned_root = Some(c.root);
        report.detail =
            format!("proved consistent with the pinned size {}; pinned size {}", p.size, c.size);
    } else {
        report.status = PinStatus::Older;
        report.detail =
            format!("older than the pinned size {}, and proved consistent with it", p.size);
    }
    Ok((report, None))
}

/// What a reader trusts a log's checkpoints with: the log's verifier key, its pinned
/// checkpoints (none with `--no-pin`) and, optionally, a witness policy.
#[derive(Debug, Clone)]
pub struct Trust {
    pub key: Verifier,
    pub pins: Option<PinStore>,
    pub policy: Option<Policy>,
}

impl Trust {
    /// The key alone: no pin, no policy.
    pub fn key_only(key: Verifier) -> Self {
        Self { key, pins: None, policy: None }
    }
}

/// How a reader took a checkpoint (see [`accept`]).
#[derive(Debug, Clone)]
pub struct Accepted {
    pub pin: PinReport,
    pub evidence: Option<ForkEvidence>,
    /// The checkpoint against the reader's witness policy, when there is one.
    pub policy: Option<PolicyReport>,
}

impl Accepted {
    /// Accepted: the policy's quorum (if any) is there and the pin holds.
    pub fn ok(&self) -> bool {
        self.pin.ok() && self.policy.as_ref().is_none_or(|p| p.ok)
    }

    /// Why it was not accepted.
    pub fn failure(&self) -> Option<String> {
        (!self.ok()).then(|| self.pin.detail.clone())
    }

    /// The verdict as checks: `policy` (with a policy), then `pin`.
    pub fn checks(&self) -> Vec<Check> {
        trust_checks(&self.pin, self.policy.as_ref())
    }
}

/// A reader's verdict on a checkpoint as checks: `policy` (with a policy), then `pin` (skipped
/// when the policy refused the checkpoint, since the pin was not consulted).
fn trust_checks(pin: &PinReport, policy: Option<&PolicyReport>) -> Vec<Check> {
    let mut checks = Vec::new();
    if let Some(p) = policy {
        checks.push(match &p.failure {
            None => Check::pass("policy", policy_summary(p)),
            Some(f) => Check::fail("policy", f.clone()),
        });
    }
    checks.push(match (pin.ok(), pin.status) {
        (_, PinStatus::Refused | PinStatus::Unverified) => Check::skip("pin", pin.detail.clone()),
        (true, _) => Check::pass("pin", pin.detail.clone()),
        (false, _) => Check::fail("pin", pin.detail.clone()),
    });
    checks
}

/// `quorum `q` satisfied: cosigned by A (time t), B (time u)`.
pub fn policy_summary(p: &PolicyReport) -> String {
    let by: Vec<String> =
        p.quorum.cosigned_by.iter().map(|(n, t)| format!("{n} (time {t})")).collect();
    format!(
        "the witness policy's quorum `{}` is satisfied: cosigned by {}",
        p.quorum.quorum,
        if by.is_empty() { "no witness (none required)".to_owned() } else { by.join(", ") }
    )
}

/// The one rule by which a reader takes a checkpoint `presented` (already verified with
/// `trust.key`): with a witness policy, it must carry the policy's quorum of valid
/// cosignatures, or it is neither accepted nor pinned (first use included: a lone operator
/// cannot feed a new reader a private history); then [`check`] holds it against the pin and
/// advances the pin.
pub fn accept(
    trust: &Trust,
    presented: &SignedCheckpoint,
    fetch: Option<&mut Fetch<'_>>,
) -> OpResult<Accepted> {
    let policy = trust.policy.as_ref().map(|p| check_policy(p, &presented.note)).transpose()?;
    if let Some(failure) = policy.as_ref().and_then(|p| p.failure.clone()) {
        let pin = PinReport {
            status: PinStatus::Refused,
            state_dir: trust.pins.as_ref().map(|p| p.dir.display().to_string()),
            pinned_size: None,
            pinned_root: None,
            detail: format!(
                "the checkpoint of size {} was neither accepted nor pinned: {failure}",
                presented.checkpoint.size
            ),
        };
        return Ok(Accepted { pin, evidence: None, policy });
    }
    let (pin, evidence) = check(trust.pins.as_ref(), &trust.key, presented, fetch)?;
    Ok(Accepted { pin, evidence, policy })
}

/// A journal entry a proof proves, as it decodes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ProvedEntry {
    pub seq: u64,
    pub time: i64,
    pub kind: String,
    pub actor: String,
    pub scope: String,
    pub subject: String,
    #[schemars(schema_with = "crate::ops::log::journal::body_schema")]
    pub body: serde_json::Value,
    pub leaf_hash: Digest,
}

/// `locker verify --proof FILE --key VKEY`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ProofReport {
    pub ok: bool,
    /// `inclusion` or `consistency`.
    pub proof_kind: String,
    pub origin: String,
    pub key_id: String,
    /// The checkpoint the proof leads to (the newer one of a consistency proof).
    pub size: Option<u64>,
    pub root: Option<Digest>,
    /// A consistency proof's older checkpoint.
    pub old_size: Option<u64>,
    pub old_root: Option<Digest>,
    /// The entry an inclusion proof proves.
    pub entry: Option<ProvedEntry>,
    /// Why the proof failed.
    pub failure: Option<String>,
    pub pin: PinReport,
    pub evidence: Option<ForkEvidence>,
    /// The checkpoint against the reader's witness policy, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<PolicyReport>,
}

/// Verifies a proof file with nothing but the log's verifier key (and the reader's pin and
/// policy, if any: see [`accept`]).
pub fn verify_proof(
    bytes: &[u8],
    trust: &Trust,
    fetch: Option<&mut Fetch<'_>>,
) -> OpResult<ProofReport> {
    let v = &trust.key;
    let pins = trust.pins.as_ref();
    let bad = |e: ProofFileError| {
        OpError::new(crate::ops::ErrorKind::BadRequest, "bad_proof", e.to_string())
            .hint("`locker proof inclusion` and `locker proof consistency` write proof files.")
    };
    let mut report = ProofReport {
        ok: false,
        proof_kind: String::new(),
        origin: v.name.clone(),
        key_id: v.id_hex(),
        size: None,
        root: None,
        old_size: None,
        old_root: None,
        entry: None,
        failure: None,
        pin: PinReport::disabled(),
        evidence: None,
        policy: None,
    };
    // A consistency proof file carries the proof between its two checkpoints: a verifier
    // pinned at the older one needs nothing else to advance (offline).
    let mut carried: Option<(u64, u64, Vec<Digest>)> = None;
    // The checkpoint the file presents, to say why it was not taken if it is not.
    let presented: String;
    let verified = match proof::kind_of(bytes) {
        Some("inclusion") => {
            report.proof_kind = "inclusion".into();
            let p = InclusionProof::parse(bytes).map_err(bad)?;
            presented = p.checkpoint.clone();
            p.verify(v).map(|ok| {
                let e = ok.entry;
                report.entry = Some(ProvedEntry {
                    seq: e.seq,
                    time: e.time,
                    kind: e.kind,
                    actor: e.actor,
                    scope: e.scope,
                    subject: e.subject,
                    body: e.body,
                    leaf_hash: ok.leaf_hash,
                });
                ok.checkpoint
            })
        }
        Some(_) => {
            report.proof_kind = "consistency".into();
            let p = ConsistencyProof::parse(bytes).map_err(bad)?;
            presented = match SignedCheckpoint::verify(&p.old, v) {
                Ok(_) => p.new.clone(),
                Err(_) => p.old.clone(),
            };
            p.verify(v).map(|(old, new)| {
                report.old_size = Some(old.checkpoint.size);
                report.old_root = Some(old.checkpoint.root);
                carried = Some((old.checkpoint.size, new.checkpoint.size, p.hashes.clone()));
                new
            })
        }
        None => {
            return Err(bad(ProofFileError::Malformed(format!(
                "the first line is neither `{}` nor `{}`",
                proof::INCLUSION_HEADER,
                proof::CONSISTENCY_HEADER
            ))))
        }
    };
    let checkpoint = match verified {
        Ok(c) => c,
        Err(e) => {
            report.failure = Some(e.to_string());
            report.pin = PinReport::not_taken(pins, v, &presented);
            return Ok(report);
        }
    };
    report.size = Some(checkpoint.checkpoint.size);
    report.root = Some(checkpoint.checkpoint.root);
    let pinned_size = pins
        .and_then(|p| p.load(&checkpoint.checkpoint.origin).ok().flatten())
        .and_then(|note| SignedCheckpoint::verify(&note, v).ok())
        .map(|c| c.checkpoint.size);
    let hashes = carried.as_ref().map(|(_, _, hashes)| hashes.clone()).unwrap_or_default();
    let mut from_file = move |_old: u64, _new: u64| Ok(hashes.clone());
    let fetch: Option<&mut Fetch<'_>> = match &carried {
        // check() asks for the proof from the pinned size to the file's newer checkpoint and
        // verifies it against the pinned root, so a pin on another tree is still a fork.
        Some((old, _, _)) if pinned_size == Some(*old) => Some(&mut from_file),
        _ => fetch,
    };
    let accepted = accept(trust, &checkpoint, fetch)?;
    report.ok = accepted.ok();
    report.failure = accepted.failure();
    report.pin = accepted.pin;
    report.evidence = accepted.evidence;
    report.policy = accepted.policy;
    Ok(report)
}

/// `locker checkpoint --key VKEY`: a pinned verifier's view of a log's latest checkpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CheckpointCheck {
    pub ok: bool,
    pub origin: String,
    pub size: Option<u64>,
    pub root: Option<Digest>,
    /// The signed note presented.
    pub note: String,
    pub failure: Option<String>,
    pub pin: PinReport,
    pub evidence: Option<ForkEvidence>,
    /// The checkpoint against the reader's witness policy, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<PolicyReport>,
}

impl CheckpointCheck {
    /// The verdict as checks: `log` (the trusted key's signature), `policy` and `pin`.
    pub fn checks(&self) -> Vec<Check> {
        let Some(size) = self.size else {
            let why = self.failure.clone().unwrap_or_default();
            return vec![Check::fail("log", why)];
        };
        let mut checks = vec![Check::pass(
            "log",
            format!("checkpoint {} of size {size} signed by the trusted key", self.origin),
        )];
        checks.extend(trust_checks(&self.pin, self.policy.as_ref()));
        checks
    }
}

/// Verifies a log's checkpoint with the trusted key, and takes it as [`accept`] says.
pub fn check_checkpoint(
    note: &str,
    trust: &Trust,
    fetch: Option<&mut Fetch<'_>>,
) -> OpResult<CheckpointCheck> {
    let v = &trust.key;
    let mut out = CheckpointCheck {
        ok: false,
        origin: v.name.clone(),
        size: None,
        root: None,
        note: note.to_owned(),
        failure: None,
        pin: PinReport::disabled(),
        evidence: None,
        policy: None,
    };
    let signed = match SignedCheckpoint::verify(note, v) {
        Ok(s) => s,
        Err(e) => {
            out.failure = Some(format!("the checkpoint does not verify with the key: {e}"));
            out.pin = PinReport::not_taken(trust.pins.as_ref(), v, note);
            return Ok(out);
        }
    };
    out.size = Some(signed.checkpoint.size);
    out.root = Some(signed.checkpoint.root);
    let accepted = accept(trust, &signed, fetch)?;
    out.ok = accepted.ok();
    out.failure = accepted.failure();
    out.pin = accepted.pin;
    out.evidence = accepted.evidence;
    out.policy = accepted.policy;
    Ok(out)
}
