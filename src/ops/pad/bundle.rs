//! Bundles (`locker.bundle.v1`, see [`crate::domain::bundle`]): export a pad to one
//! self-contained file, check a bundle offline, import one into a repository, and build one
//! from an agent-locker daemon's manifest and block pages.
//!
//! Who may export: reading a pad for export is a read, so it takes a read ticket exactly as
//! `locker pad read` does (a `read_once` ticket opens its read lease). The one exception is the
//! repository's operator (no `LOCKER_TOKEN`) exporting without a ticket: the operator owns the
//! `.locker/` files and can read every block from them directly, so a ticket would protect
//! nothing. A ticket the operator does pass is checked like anyone's. Agents (`LOCKER_TOKEN`)
//! always need a ticket.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::ops::log::journal;
use crate::ops::pad::tickets::{check_read_ticket, new_ticket_row};
use crate::ops::pad::{check_content_type, load};
use crate::ops::{Ctx, ErrorKind, OpError, OpResult, Progress};
use base64::Engine as _;

use crate::domain::bundle::{
    self, Block, Bundle, EntryProof, Header, LogProofs, Malformed, Parsed, Source,
};
use crate::domain::check::Check;
use crate::domain::digest::Digest;
use crate::domain::event::{BlockRecord, PadImport, PadReadLease};
use crate::domain::limits::{
    DEFAULT_MAX_BLOCKS, DEFAULT_TTL_SECONDS, MAX_BLOCK_BYTES, MAX_MAX_BLOCKS, MAX_PAD_BYTES,
    MAX_PAD_ID_BYTES,
};
use crate::domain::note::Verifier;
use crate::domain::pad::{PadState, StoredState, TicketType};
use crate::domain::secret::Secret;
use crate::ops::log::LogIdentity;
use crate::store::{BlockRow, Flow, PadRow, Tx};

/// The program name recorded in the bundles locker writes.
pub fn exporter() -> String {
    concat!("locker ", env!("CARGO_PKG_VERSION")).to_owned()
}

/// `locker verify --bundle`: every check of a bundle, in order, and the first failure.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BundleReport {
    /// No check failed.
    pub ok: bool,
    /// `trusted_head_match` (intact and the expected head matches), `internal_consistency_only`
    /// (intact, but no expected head was given: whoever wrote the file could have forged a
    /// consistent one), or `failed`.
    pub verdict: String,
    /// The file checked, as given.
    pub file: Option<String>,
    pub format: String,
    pub pad_id: String,
    /// The pad's state as the bundle's source stated it.
    pub state: String,
    pub source: Source,
    /// The block count the header states.
    pub block_count: u64,
    /// The well-formed block records present.
    pub blocks_read: u64,
    /// The payload bytes the header states.
    pub total_bytes: u64,
    /// The head the header states.
    pub head_hash: Digest,
    /// The head recomputed from the payloads.
    pub computed_head: Digest,
    pub expected_head: Option<Digest>,
    /// The file's size and SHA-256.
    pub bytes: u64,
    pub sha256: Digest,
    pub checks: Vec<Check>,
    pub first_failure: Option<Check>,
    /// With a trusted key: the bundle's checkpoint against the verifier's pinned one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pin: Option<crate::ops::log::pin::PinReport>,
    /// Evidence of a fork, when the pin found one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<crate::ops::log::pin::ForkEvidence>,
    /// The bundle's checkpoint against the reader's witness policy, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<crate::ops::log::cosign::PolicyReport>,
}

impl BundleReport {
    /// Adds how the reader took the bundle's checkpoint (`policy` and `pin` checks): a
    /// checkpoint short of the policy's quorum, a fork or an unproven one fails the bundle.
    pub fn apply_trust(&mut self, accepted: crate::ops::log::pin::Accepted) {
        self.add_checks(accepted.checks());
        self.pin = Some(accepted.pin);
        self.evidence = accepted.evidence;
        self.policy = accepted.policy;
    }

    /// Adds checks, failing the bundle on the first failed one.
    pub fn add_checks(&mut self, checks: Vec<Check>) {
        for c in checks {
            if c.failed() {
                if self.first_failure.is_none() {
                    self.first_failure = Some(c.clone());
                }
                self.ok = false;
                self.verdict = "failed".into();
            }
            self.checks.push(c);
        }
    }
}

/// The error for a file that is not a readable bundle (exit 6).
pub fn malformed(e: &Malformed) -> OpError {
    let err = OpError::new(ErrorKind::BadRequest, "malformed_bundle", e.to_string());
    match e {
        Malformed::UnknownFormat(_) => err.hint("A newer locker may read it; see `locker -V`."),
        Malformed::TooLarge => err,
        _ => err.hint("Pass a file written by `locker pad export`."),
    }
}

/// Parses a bundle's bytes; a file that is not a bundle is an error (exit 6).
pub fn parse(bytes: &[u8]) -> OpResult<Parsed> {
    bundle::parse(bytes).map_err(|e| malformed(&e))
}

/// Checks a parsed bundle and reports every check.
pub fn report(p: &Parsed, file: Option<&str>, expect: Option<Digest>) -> BundleReport {
    report_with_key(p, file, expect, None)
}

/// [`report`], also checking the bundle's signed checkpoint and inclusion proofs against the
/// log's verifier key when one is given (the `log` check).
pub fn report_with_key(
    p: &Parsed,
    file: Option<&str>,
    expect: Option<Digest>,
    key: Option<&Verifier>,
) -> BundleReport {
    let mut f = bundle::check(p, expect.as_ref());
    f.checks.push(bundle::log_check(p, key));
    f.checks.extend(bundle::signers_check(p));
    let first_failure = f.checks.iter().find(|c| c.failed()).cloned();
    let verdict = if first_failure.is_some() {
        "failed"
    } else if expect.is_some() {
        "trusted_head_match"
    } else if key.is_some() {
        "trusted_log_checkpoint"
    } else {
        "internal_consistency_only"
    };
    BundleReport {
        ok: first_failure.is_none(),
        verdict: verdict.into(),
        file: file.map(str::to_owned),
        format: p.header.format.clone(),
        pad_id: p.header.pad_id.clone(),
        state: p.header.state.clone(),
        source: p.header.source.clone(),
        block_count: p.header.block_count,
        blocks_read: p.blocks.len() as u64,
        total_bytes: p.header.total_bytes,
        head_hash: p.header.head_hash,
        computed_head: f.computed_head,
        expected_head: expect,
        bytes: p.file_bytes,
        sha256: p.file_sha256,
        checks: f.checks,
        first_failure,
        pin: None,
        evidence: None,
        policy: None,
    }
}

/// `locker verify --bundle`: parses and checks a bundle with no repository and no server.
pub fn verify(bytes: &[u8], file: Option<&str>, expect: Option<Digest>) -> OpResult<BundleReport> {
    Ok(report(&parse(bytes)?, file, expect))
}

/// `locker verify --bundle FILE --key VKEY`: [`verify`], and the log proofs against the key.
pub fn verify_with_key(
    bytes: &[u8],
    file: Option<&str>,
    expect: Option<Digest>,
    key: Option<&Verifier>,
) -> OpResult<BundleReport> {
    Ok(report_with_key(&parse(bytes)?, file, expect, key))
}

/// Adds the log's signed checkpoint and the inclusion proofs of the journal entries that
/// recorded the bundle's blocks (signing a checkpoint if the journal grew).
pub fn attach_log(ctx: &mut Ctx<'_>, log: &LogIdentity, b: &mut Bundle) -> OpResult<()> {
    let seqs: Vec<u64> = b.blocks.iter().map(|x| x.seq).collect();
    b.header.log = Some(log_proofs(ctx, log, &b.header.pad_id, &seqs)?);
    Ok(())
}

/// Adds who signed each block, as the bundle's log proofs record it, with each signer's key from
/// `keys` (the repository's registered keys: `locker key list`, `GET /v1/keys`).
pub fn attach_signers(b: &mut Bundle, keys: &crate::ops::keys::KeyList) {
    bundle::attach_signers(b, &keys.repository_id, |agent, key_id| {
        let k = keys.keys.iter().find(|k| k.agent == agent && k.key_id == key_id)?;
        Some((k.vkey.clone(), k.registered_by.clone()))
    });
}

/// The log's signed checkpoint and the inclusion proofs of the entries that recorded blocks
/// `seqs` of a pad (`GET /v1/pads/{id}/log-proofs`).
pub fn log_proofs(
    ctx: &mut Ctx<'_>,
    log: &LogIdentity,
    pad_id: &str,
    seqs: &[u64],
) -> OpResult<LogProofs> {
    crate::ops::pad::check_pad_id(pad_id)?;
    let now = ctx.now();
    let sign = ctx.settings.sign_checkpoints;
    let mut tx = if sign { ctx.store.write()? } else { ctx.store.read()? };
    let (cp, proofs) = crate::ops::log::prove_blocks(tx.as_mut(), log, pad_id, seqs, sign, now)?;
    tx.commit()?;
    crate::ops::log::checkpoint::cover(log, &cp)?;
    let b64 = &base64::engine::general_purpose::STANDARD;
    Ok(LogProofs {
        checkpoint: cp.note,
        entries: proofs
            .into_iter()
            .map(|p| EntryProof {
                index: p.index,
                entry_b64: b64.encode(&p.entry),
                hashes: p.hashes.iter().map(crate::domain::proof::b64).collect(),
            })
            .collect(),
    })
}

/// What `locker pad export -o FILE` wrote.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Exported {
    pub pad_id: String,
    pub state: String,
    pub block_count: u64,
    pub total_bytes: u64,
    pub head_hash: Digest,
    /// Where the bundle was written.
    pub file: String,
    /// The bundle file's size and SHA-256.
    pub bytes: u64,
    pub sha256: Digest,
}

impl Exported {
    /// The summary of a bundle written to `file`.
    pub fn of(b: &Bundle, encoded: &[u8], file: &str) -> Self {
        Self {
            pad_id: b.header.pad_id.clone(),
            state: b.header.state.clone(),
            block_count: b.header.block_count,
            total_bytes: b.header.total_bytes,
            head_hash: b.header.head_hash,
            file: file.to_owned(),
            bytes: encoded.len() as u64,
            sha256: Digest::of(encoded),
        }
    }
}

/// Reads a pad as it is stored (its stored hashes, even if they are wrong: the bundle's checks
/// then say so).
fn snapshot(tx: &dyn Tx, pad: &PadRow, now: i64, progress: &dyn Progress) -> OpResult<Bundle> {
    // A pruned pad has no payloads left to put in a bundle.
    if let Some(at) = pad.pruned_at {
        return Err(crate::ops::pad::pruned(&pad.id, at));
    }
    let mut blocks = Vec::with_capacity(usize::try_from(pad.block_count).unwrap_or(0).min(4096));
    if pad.block_count > 0 {
        progress.start("exporting", pad.block_count, "blocks");
    }
    tx.for_each_block(&pad.id, &mut |b| {
        progress.advance(1);
        blocks.push(Block {
            seq: b.seq,
            prev_hash: b.prev_hash,
            curr_hash: b.curr_hash,
            content_type: b.content_type,
            created_at: Some(b.created_at),
            payload: b.payload,
        });
        Flow::Continue(())
    })?;
    Ok(Bundle {
        header: Header {
            format: bundle::FORMAT.into(),
            record: "header".into(),
            pad_id: pad.id.clone(),
            state: PadState::at(pad.state, pad.expires_at, now).as_str().into(),
            block_count: pad.block_count,
            total_bytes: pad.current_bytes,
            head_hash: pad.head_hash,
            created_at: Some(pad.created_at),
            expires_at: Some(pad.expires_at),
            sealed_at: pad.sealed_at,
            max_blocks: Some(pad.max_blocks),
            max_bytes: Some(pad.max_bytes),
            source: Source {
                kind: "locker".into(),
                url: None,
                exported_at: now,
                exporter: exporter(),
            },
            log: None,
            signers: None,
        },
        blocks,
    })
}

/// Reads a whole pad for export (see the module documentation for who may); `progress` hears
/// of its blocks.
pub fn export(
    ctx: &mut Ctx<'_>,
    pad_id: &str,
    ticket: Option<&Secret>,
    progress: &dyn Progress,
) -> OpResult<Bundle> {
    crate::ops::pad::check_pad_id(pad_id)?;
    let now = ctx.now();
    let lease = ctx.settings.read_lease_seconds;
    let needs_ticket = !(ctx.actor.is_operator() && ticket.is_none());
    {
        let tx = ctx.store.read()?;
        let pad = load(tx.as_ref(), pad_id)?;
        let opens = if needs_ticket {
            check_read_ticket(tx.as_ref(), &pad, ticket, lease, now)?
        } else {
            None
        };
        if opens.is_none() || pad.block_count == 0 {
            return snapshot(tx.as_ref(), &pad, now, progress);
        }
    }
    // The first read with a `read_once` ticket opens its lease: decide again under the lock.
    let mut tx = ctx.store.write()?;
    crate::ops::authorize(tx.as_ref(), &ctx.actor)?;
    let pad = load(tx.as_ref(), pad_id)?;
    let opens = check_read_ticket(tx.as_ref(), &pad, ticket, lease, now)?;
    let bundle = snapshot(tx.as_ref(), &pad, now, progress)?;
    if let Some(mut row) = opens.filter(|_| pad.block_count > 0) {
        row.lease_started_at = Some(now);
        tx.update_ticket(&row)?;
        journal::append(
            tx.as_mut(),
            &ctx.actor,
            now,
            PadReadLease { pad_id: pad.id.clone(), ticket_id: row.digest, lease_seconds: lease },
        )?;
        tx.commit()?;
    }
    Ok(bundle)
}

/// A manifest in agent-locker's shape (`GET /v1/pads/{id}/manifest`); locker's own manifest
/// has these fields too, plus the limits.
#[derive(Debug, Deserialize)]
struct PeerManifest {
    pad_id: String,
    state: String,
    block_count: u64,
    total_bytes: u64,
    #[serde(default)]
    sealed_at: Option<i64>,
    head_hash: Digest,
    #[serde(default)]
    created_at: Option<i64>,
    #[serde(default)]
    expires_at: Option<i64>,
    #[serde(default)]
    max_blocks: Option<u32>,
    #[serde(default)]
    max_bytes: Option<u64>,
}

/// One page of `GET /v1/pads/{id}/blocks`.
#[derive(Debug, Deserialize)]
struct PeerPage {
    pad_id: String,
    blocks: Vec<PeerBlock>,
}

#[derive(Debug, Deserialize)]
struct PeerBlock {
    seq: u64,
    prev_hash: Digest,
    curr_hash: Digest,
    content_type: String,
    payload_b64: String,
    #[serde(default)]
    created_at: Option<i64>,
}

/// Builds a bundle from a pad's manifest and its block pages as agent-locker's HTTP API (or
/// `locker serve`, which speaks it) returns them. Nothing is verified here: the bundle records
/// what the server said, and its checks decide whether that is consistent.
pub fn from_peer(manifest: &Value, pages: &[Value], source: Source) -> OpResult<Bundle> {
    use base64::Engine as _;
    let m: PeerManifest = serde_json::from_value(manifest.clone()).map_err(|e| {
        OpError::unprocessable(format!("the pad's manifest is not in agent-locker's shape: {e}"))
    })?;
    let mut blocks = Vec::new();
    for page in pages {
        let page: PeerPage = serde_json::from_value(page.clone()).map_err(|e| {
            OpError::unprocessable(format!("a block page is not in agent-locker's shape: {e}"))
        })?;
        if page.pad_id != m.pad_id {
            return Err(OpError::unprocessable(format!(
                "a block page is for pad {}, not {}",
                page.pad_id, m.pad_id
            )));
        }
        for b in page.blocks {
            let payload =
                base64::engine::general_purpose::STANDARD.decode(&b.payload_b64).map_err(|_| {
                    OpError::unprocessable(format!("block {}'s payload_b64 is not base64", b.seq))
                })?;
            blocks.push(Block {
                seq: b.seq,
                prev_hash: b.prev_hash,
                curr_hash: b.curr_hash,
                content_type: b.content_type,
                created_at: b.created_at,
                payload,
            });
        }
    }
    Ok(Bundle {
        header: Header {
            format: bundle::FORMAT.into(),
            record: "header".into(),
            pad_id: m.pad_id,
            state: m.state,
            block_count: m.block_count,
            total_bytes: m.total_bytes,
            head_hash: m.head_hash,
            created_at: m.created_at,
            expires_at: m.expires_at,
            sealed_at: m.sealed_at,
            max_blocks: m.max_blocks,
            max_bytes: m.max_bytes,
            source,
            log: None,
            signers: None,
        },
        blocks,
    })
}

/// A bundle imported as a sealed pad, with new capabilities (shown once).
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Imported {
    pub pad_id: String,
    /// A new write key: the bundle carries none (it mints and revokes tickets; the pad is
    /// sealed).
    pub write_key: String,
    /// A new `read_once` ticket.
    pub read_ticket: String,
    pub state: PadState,
    pub block_count: u64,
    pub total_bytes: u64,
    pub head_hash: Digest,
    /// The imported file's SHA-256.
    pub bundle_sha256: Digest,
    pub source: Source,
}

/// Verifies a bundle fully, then stores it as a sealed pad under its own pad id (a pad with
/// that id already here is a conflict). Journaled as `pad.import`. `progress` hears of the
/// blocks as they are stored.
pub fn import(
    ctx: &mut Ctx<'_>,
    bytes: &[u8],
    expect: Option<Digest>,
    progress: &dyn Progress,
) -> OpResult<Imported> {
    let parsed = parse(bytes)?;
    let rep = report(&parsed, None, expect);
    if let Some(c) = &rep.first_failure {
        return Err(OpError::new(
            ErrorKind::Unprocessable,
            "broken_bundle",
            format!("the bundle failed its `{}` check: {}", c.name, c.detail),
        )
        .with("check", c.name.clone())
        .hint("Run `locker verify --bundle FILE` to see every check."));
    }
    let h = &parsed.header;
    if h.state != "sealed" {
        return Err(OpError::new(
            ErrorKind::Unprocessable,
            "not_sealed",
            format!("the bundle's pad is {}; only sealed pads can be imported", h.state),
        )
        .hint("Seal the pad at its source, then export it again."));
    }
    let id = &h.pad_id;
    if id.is_empty() || id.len() > MAX_PAD_ID_BYTES || id.chars().any(char::is_control) {
        return Err(OpError::bad_request(format!(
            "the bundle's pad id must be 1–{MAX_PAD_ID_BYTES} bytes without control characters"
        )));
    }
    let n = parsed.blocks.len();
    if n > MAX_MAX_BLOCKS as usize {
        return Err(OpError::too_large(format!(
            "a pad holds at most {MAX_MAX_BLOCKS} blocks; the bundle has {n}"
        )));
    }
    for b in &parsed.blocks {
        if b.payload.len() > MAX_BLOCK_BYTES {
            return Err(OpError::too_large(format!(
                "block {}: payload exceeds {MAX_BLOCK_BYTES} bytes",
                b.seq
            )));
        }
        if b.payload.is_empty() {
            return Err(OpError::bad_request(format!("block {}: empty payload", b.seq)));
        }
        check_content_type(&b.content_type)?;
    }
    if rep.total_bytes > MAX_PAD_BYTES {
        return Err(OpError::too_large(format!(
            "the bundle's {} payload bytes exceed the pad limit of {MAX_PAD_BYTES}",
            rep.total_bytes
        )));
    }

    let now = ctx.now();
    let created_at = h.created_at.unwrap_or(now);
    let expires_at =
        h.expires_at.unwrap_or_else(|| created_at.saturating_add(i64::from(DEFAULT_TTL_SECONDS)));
    let sealed_at = h.sealed_at.unwrap_or(now);
    let max_blocks =
        h.max_blocks.unwrap_or(DEFAULT_MAX_BLOCKS).max(n as u32).clamp(1, MAX_MAX_BLOCKS);
    let key = Secret::generate();
    let ticket = Secret::generate();
    let rows: Vec<BlockRow> = parsed
        .blocks
        .iter()
        .map(|b| BlockRow {
            pad_id: id.clone(),
            seq: b.seq,
            prev_hash: b.prev_hash,
            curr_hash: b.curr_hash,
            content_type: b.content_type.clone(),
            payload: b.payload.clone(),
            created_at: b.created_at.unwrap_or(created_at),
            pruned_bytes: None,
        })
        .collect();
    let pad = PadRow {
        id: id.clone(),
        scope: ctx.actor.scope.clone(),
        created_at,
        expires_at,
        max_blocks,
        max_bytes: MAX_PAD_BYTES,
        block_count: n as u64,
        current_bytes: rep.total_bytes,
        state: StoredState::Sealed,
        write_key_hash: key.digest(),
        head_hash: rep.computed_head,
        sealed_at: Some(sealed_at),
        pruned_at: None,
    };
    let t = new_ticket_row(id, &ticket, TicketType::ReadOnce, now);

    let mut tx = ctx.store.write()?;
    crate::ops::authorize(tx.as_ref(), &ctx.actor)?;
    if tx.pad(id)?.is_some() {
        return Err(OpError::conflict(format!("pad {id} already exists"))
            .with("pad_id", id.clone())
            .hint("It was imported before, or the id is taken; `locker verify PAD` checks it."));
    }
    tx.insert_pad(&pad)?;
    progress.start("importing", rows.len() as u64, "blocks");
    for b in &rows {
        tx.insert_block(b)?;
        progress.advance(1);
    }
    tx.insert_ticket(&t)?;
    let blocks = rows
        .iter()
        .map(|b| BlockRecord {
            seq: b.seq,
            curr_hash: b.curr_hash,
            bytes: b.payload.len() as u64,
            content_type: b.content_type.clone(),
            created_at: Some(b.created_at),
        })
        .collect();
    journal::append(
        tx.as_mut(),
        &ctx.actor,
        now,
        PadImport {
            pad_id: id.clone(),
            created_at,
            expires_at,
            sealed_at,
            max_blocks: u64::from(max_blocks),
            max_bytes: pad.max_bytes,
            write_key_hash: pad.write_key_hash,
            ticket_id: t.digest,
            ticket_type: t.ticket_type,
            blocks,
            head_hash: pad.head_hash,
            total_bytes: pad.current_bytes,
            bundle_sha256: parsed.file_sha256,
            source: h.source.clone(),
        },
    )?;
    tx.commit()?;
    progress.finish();
    Ok(Imported {
        pad_id: id.clone(),
        write_key: key.expose().to_owned(),
        read_ticket: ticket.expose().to_owned(),
        state: PadState::Sealed,
        block_count: n as u64,
        total_bytes: pad.current_bytes,
        head_hash: pad.head_hash,
        bundle_sha256: parsed.file_sha256,
        source: h.source.clone(),
    })
}

#[cfg(test)]
mod tests {
    use base64::Engine as _;
    use serde_json::json;

    use super::*;
    use crate::domain::chain;

    fn source() -> Source {
        Source { kind: "agent-locker".into(), url: None, exported_at: 1, exporter: exporter() }
    }

    /// agent-locker's demo pad in its daemon's exact shapes: the manifest of
    /// `GET /v1/pads/demo-pad-v1/manifest` and one page of `GET …/blocks` (with the peer's
    /// `payload_utf8` copy and `from`/`to`/`count`/`total_blocks`).
    fn demo() -> (Value, Value) {
        let mut prev = Digest::ZERO;
        let mut blocks = Vec::new();
        for (seq, (payload, ct)) in crate::ops::pad::DEMO_BLOCKS.iter().enumerate() {
            let curr = chain::link(&prev, payload.as_bytes());
            blocks.push(json!({
                "seq": seq, "prev_hash": prev, "curr_hash": curr, "content_type": ct,
                "payload_b64": base64::engine::general_purpose::STANDARD.encode(payload),
                "payload_utf8": payload, "created_at": 1_795_937_335
            }));
            prev = curr;
        }
        let total: usize = crate::ops::pad::DEMO_BLOCKS.iter().map(|(p, _)| p.len()).sum();
        let manifest = json!({
            "pad_id": "demo-pad-v1", "state": "sealed", "block_count": 3, "total_bytes": total,
            "sealed_at": 1_795_937_335, "head_hash": prev, "created_at": 1_795_937_335,
            "expires_at": 4_949_537_335_i64
        });
        let page = json!({
            "pad_id": "demo-pad-v1", "from": 0, "to": 2, "count": 3, "total_blocks": 3,
            "blocks": blocks
        });
        (manifest, page)
    }

    #[test]
    fn a_peer_pad_verifies_with_the_peers_own_head() {
        let (manifest, page) = demo();
        let b = from_peer(&manifest, &[page], source()).unwrap();
        let bytes = bundle::encode(&b);
        let head =
            Digest::parse("5f77fb573937fa35d50e36ad944a8bd500343bf808d2035b7c4c29a3de5b512b")
                .unwrap();
        let r = verify(&bytes, None, Some(head)).unwrap();
        assert!(r.ok, "{:?}", r.checks);
        assert_eq!(r.verdict, "trusted_head_match");
        assert_eq!(r.source.kind, "agent-locker");
        assert_eq!(r.block_count, 3);
        // The peer's manifest has no limits; the bundle leaves them out.
        assert_eq!(b.header.max_blocks, None);
    }

    #[test]
    fn a_peer_lying_about_a_block_is_caught() {
        let (manifest, mut page) = demo();
        page["blocks"][1]["payload_b64"] =
            base64::engine::general_purpose::STANDARD.encode("Permanent read-write pad.\n").into();
        let b = from_peer(&manifest, &[page], source()).unwrap();
        let r = verify(&bundle::encode(&b), None, None).unwrap();
        assert!(!r.ok);
        assert_eq!(r.first_failure.unwrap().name, "hashes");
    }

    #[test]
    fn pages_concatenate_and_shapes_are_checked() {
        let (manifest, page) = demo();
        let blocks = page["blocks"].as_array().unwrap().clone();
        let p1 = json!({"pad_id": "demo-pad-v1", "blocks": blocks[..2]});
        let p2 = json!({"pad_id": "demo-pad-v1", "blocks": blocks[2..]});
        let b = from_peer(&manifest, &[p1, p2], source()).unwrap();
        assert_eq!(b.blocks.len(), 3);
        assert!(verify(&bundle::encode(&b), None, None).unwrap().ok);

        let other = json!({"pad_id": "other", "blocks": []});
        assert!(from_peer(&manifest, &[other], source()).is_err());
        let mut bad = manifest.clone();
        bad["head_hash"] = "not hex".into();
        assert!(from_peer(&bad, &[], source()).is_err());
        let mut bad_page = page;
        bad_page["blocks"][0]["payload_b64"] = "***".into();
        assert!(from_peer(&manifest, &[bad_page], source()).is_err());
    }
}
