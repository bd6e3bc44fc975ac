//! Collecting witnesses' cosignatures on the log's checkpoint (`locker checkpoint --witness`,
//! `locker serve --witness`).
//!
//! Each witness is asked with the C2SP tlog-witness protocol by the [`Ask`] the front end passes
//! (over HTTP: `crate::witness::client::request_cosignature`); the cosignature lines it returns are added to the stored checkpoint's note, so that
//! `locker checkpoint`, proof files and bundles carry them, and `locker verify --policy` can
//! count them against a quorum. A line that would not make a well-formed note is dropped.

use serde::{Deserialize, Serialize};

use crate::domain::digest::Digest;
use crate::domain::note::Note;
use crate::domain::witness::{add_signatures, WitnessAnswer};
use crate::ops::log::{self, CheckpointOutcome, LogIdentity};
use crate::ops::{Ctx, OpResult};

/// Asks the witness at a URL to cosign a signed checkpoint note of a size, given a way to prove
/// consistency from an older size; returns what it answered.
pub type Ask = fn(&str, &str, u64, &mut dyn FnMut(u64) -> OpResult<Vec<Digest>>) -> WitnessAnswer;

/// The checkpoint with the cosignatures gathered, and what each witness answered.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct Cosigned {
    #[serde(flatten)]
    pub checkpoint: CheckpointOutcome,
    pub witnesses: Vec<WitnessAnswer>,
    /// Whether every witness cosigned.
    pub all_cosigned: bool,
}

/// Signs the latest checkpoint (if needed) and asks every witness in `urls` to cosign it with
/// `ask`.
pub fn collect(
    ctx: &mut Ctx<'_>,
    log: &LogIdentity,
    urls: &[String],
    ask: Ask,
) -> OpResult<Cosigned> {
    let mut cp = log::checkpoint(ctx, log)?;
    let size = cp.size;
    let mut witnesses = Vec::new();
    let mut note = cp.note.clone();
    for url in urls {
        let mut answer =
            ask(url, &cp.note, size, &mut |old| log::consistency_hashes(ctx, old, size));
        let with = add_signatures(&note, &answer.cosignatures);
        if Note::parse(with.as_bytes()).is_ok() {
            note = with;
        } else {
            answer.error = Some("the witness answered with malformed cosignature lines".into());
            answer.cosignatures.clear();
        }
        witnesses.push(answer);
    }
    if note != cp.note {
        // Merged with what is stored now, so that concurrent collections lose nothing.
        let lines: Vec<String> = note[cp.note.len()..].lines().map(str::to_owned).collect();
        let mut tx = ctx.store.write()?;
        let stored = tx.checkpoint_at(size)?.map_or(cp.note.clone(), |c| c.note);
        let merged = add_signatures(&stored, &lines);
        tx.set_checkpoint_note(size, &merged)?;
        tx.commit()?;
        cp.note = merged;
    }
    let all_cosigned = witnesses.iter().all(|w| !w.cosignatures.is_empty());
    Ok(Cosigned { checkpoint: cp, witnesses, all_cosigned })
}

/// A checkpoint checked against a witness policy (`locker verify --policy`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct PolicyReport {
    pub ok: bool,
    pub origin: String,
    pub size: u64,
    pub root: crate::domain::digest::Digest,
    /// The log signature: `verified` by the policy's log key for this origin, `unchecked` when
    /// the policy names no log, or why it failed.
    pub log_signature: String,
    pub quorum: crate::domain::witness::QuorumReport,
    /// The first reason the checkpoint falls short, if it does.
    pub failure: Option<String>,
}

/// Checks a signed checkpoint `note` against `policy`: the log's signature (when the policy
/// names the log) and the witness quorum.
pub fn check_policy(policy: &crate::domain::witness::Policy, note: &str) -> OpResult<PolicyReport> {
    use crate::domain::note::Checkpoint;
    let bad = |e: String| crate::ops::OpError::bad_request(format!("the checkpoint: {e}"));
    let parsed = Note::parse(note.as_bytes()).map_err(|e| bad(e.to_string()))?;
    let cp = Checkpoint::parse_text(&parsed.text).map_err(|e| bad(e.to_string()))?;
    let mut failure = None;
    let log_signature = if policy.logs.is_empty() {
        "unchecked".to_owned()
    } else {
        match policy.logs.iter().find(|v| v.name == cp.origin) {
            None => {
                let why = format!("the policy names no log with the origin `{}`", cp.origin);
                failure.get_or_insert(why.clone());
                why
            }
            Some(v) => match parsed.verify(v) {
                Ok(()) => "verified".to_owned(),
                Err(e) => {
                    failure.get_or_insert(format!("the log signature: {e}"));
                    e.to_string()
                }
            },
        }
    };
    let quorum = match policy.evaluate(note) {
        Ok(q) => q,
        Err(e) => {
            failure.get_or_insert(e.clone());
            crate::domain::witness::QuorumReport {
                satisfied: false,
                quorum: policy.quorum.clone().unwrap_or_else(|| "none".into()),
                cosigned_by: vec![],
                missing: vec![],
            }
        }
    };
    if !quorum.satisfied {
        failure.get_or_insert(format!(
            "the quorum `{}` is not satisfied (cosigned by {}; missing {})",
            quorum.quorum,
            if quorum.cosigned_by.is_empty() {
                "no witness".to_owned()
            } else {
                quorum.cosigned_by.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(", ")
            },
            quorum.missing.join(", ")
        ));
    }
    Ok(PolicyReport {
        ok: failure.is_none(),
        origin: cp.origin,
        size: cp.size,
        root: cp.root,
        log_signature,
        quorum,
        failure,
    })
}
