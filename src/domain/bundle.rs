//! The `locker.bundle.v1` file: one pad, self-contained, checkable with no repository and no
//! server.
//!
//! A bundle is JSON Lines (UTF-8, each line ending in `\n`):
//!
//! 1. a header: `{"format":"locker.bundle.v1","type":"header","pad_id",…,"head_hash","source"}`,
//!    the pad's manifest as its source stated it;
//! 2. one line per block, in order:
//!    `{"type":"block","seq","prev_hash","curr_hash","content_type","created_at","payload_b64"}`,
//!    the payload's exact bytes in standard base64;
//! 3. a trailer: `{"type":"trailer","block_count","total_bytes","head_hash","sha256"}`, where
//!    `sha256` is the SHA-256 (lowercase hex) of every byte of the file before the trailer line.
//!
//! Nothing may follow the trailer's newline. A file cut anywhere lacks its trailer, and an edit
//! anywhere before the trailer changes the SHA-256; the hash chain (`curr_hash =
//! sha256(prev_hash_hex ‖ payload)`) then says which block changed. Neither the trailer nor the
//! chain is a signature: whoever edits a bundle can recompute both, so only a head obtained
//! independently (`--expect-head`) proves the content is the one its writer sealed.

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::chain::{self, ChainChecker, ChainProblem};
use super::check::{summarise, Check};
use super::digest::Digest;
use super::envelope;

/// The format name in a bundle's header.
pub const FORMAT: &str = "locker.bundle.v1";
/// The largest bundle file read (a full pad of 4096 blocks is well under it).
pub const MAX_BUNDLE_BYTES: usize = 8 * 1024 * 1024;

/// Where a bundle came from (the journal records it with a `pad.import`).
pub use super::event::pad::Source;

/// A bundle's first line: the pad's manifest as its source stated it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    pub format: String,
    #[serde(rename = "type", default = "header_type")]
    pub record: String,
    pub pad_id: String,
    /// `open`, `sealed` or `expired`, as the source said (not covered by the chain).
    pub state: String,
    pub block_count: u64,
    pub total_bytes: u64,
    pub head_hash: Digest,
    #[serde(default)]
    pub created_at: Option<i64>,
    #[serde(default)]
    pub expires_at: Option<i64>,
    #[serde(default)]
    pub sealed_at: Option<i64>,
    #[serde(default)]
    pub max_blocks: Option<u32>,
    #[serde(default)]
    pub max_bytes: Option<u64>,
    pub source: Source,
    /// The log's signed checkpoint and the inclusion proofs of the journal entries that
    /// recorded the blocks (absent in bundles written before signed checkpoints, or by a peer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log: Option<LogProofs>,
    /// Who signed each signed block, with the key and signature (absent when no block is
    /// signed, and in bundles written before they carried signers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signers: Option<super::bundle_signers::Signers>,
}

/// A bundle's transparency-log evidence: checked against the log's verifier key, it proves
/// every block was recorded in the log the key signs (C2SP tlog-proof, one per entry).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogProofs {
    /// The signed checkpoint (a C2SP signed note).
    pub checkpoint: String,
    pub entries: Vec<EntryProof>,
}

/// One journal entry's inclusion proof.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryProof {
    /// The leaf index (the entry's sequence number minus one).
    pub index: u64,
    /// The entry's exact stored bytes, base64.
    pub entry_b64: String,
    /// The proof hashes, base64, leaf sibling first.
    pub hashes: Vec<String>,
}

impl EntryProof {
    /// The tlog-proof this is, with `checkpoint`.
    pub fn to_proof(&self, checkpoint: &str) -> Result<super::proof::InclusionProof, String> {
        let b64 = &base64::engine::general_purpose::STANDARD;
        let entry = b64.decode(&self.entry_b64).map_err(|_| "entry_b64 is not base64")?;
        let hashes = self
            .hashes
            .iter()
            .map(|h| {
                let raw = b64.decode(h).map_err(|_| "a proof hash is not base64")?;
                raw.try_into().map(Digest).map_err(|_| "a proof hash is not 32 bytes")
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(super::proof::InclusionProof {
            index: self.index,
            entry,
            hashes,
            checkpoint: checkpoint.to_owned(),
        })
    }
}

/// The journal entries a bundle's log proofs carry, as far as they decode.
fn logged_entries(log: &LogProofs) -> Vec<super::journal::Entry> {
    let b64 = &base64::engine::general_purpose::STANDARD;
    log.entries
        .iter()
        .filter_map(|e| b64.decode(&e.entry_b64).ok())
        .filter_map(|bytes| super::journal::Entry::decode(&bytes).ok())
        .collect()
}

/// Adds who signed each block, as the bundle's log proofs record it, with each signer's key
/// from `key` (agent, key id → verifier key, who registered it). Nothing is added when no block
/// is signed or the bundle carries no log proofs.
pub fn attach_signers(
    b: &mut Bundle,
    repository_id: &str,
    key: impl Fn(&str, &str) -> Option<(String, Option<String>)>,
) {
    let Some(log) = &b.header.log else { return };
    let recorded =
        super::bundle_signers::recorded_signatures(&logged_entries(log), &b.header.pad_id);
    let blocks: Vec<super::bundle_signers::BlockSignature> = recorded
        .into_iter()
        .filter_map(|r| {
            let (vkey, registered_by) = key(&r.signer, &r.key_id)?;
            Some(super::bundle_signers::BlockSignature {
                seq: r.seq,
                entry: r.entry,
                signer: r.signer,
                key_id: r.key_id,
                vkey,
                signature: r.signature,
                registered_by,
            })
        })
        .collect();
    if !blocks.is_empty() {
        let repository_id = repository_id.to_owned();
        b.header.signers = Some(super::bundle_signers::Signers { repository_id, blocks });
    }
}

/// The `signers` check of a bundle that carries its signers (see [`super::bundle_signers`]):
/// `None` when it carries none.
pub fn signers_check(p: &Parsed) -> Option<Check> {
    let s = p.header.signers.as_ref()?;
    let digest = |seq: u64| p.blocks.iter().find(|b| b.seq == seq).map(|b| Digest::of(&b.payload));
    let logged = p.header.log.as_ref().map(|log| {
        super::bundle_signers::recorded_signatures(&logged_entries(log), &p.header.pad_id)
    });
    Some(super::bundle_signers::check(&p.header.pad_id, s, digest, logged.as_deref()))
}

/// Checks a bundle's log evidence: with `key`, the checkpoint's signature and that every block
/// is recorded, with the same hash, by a proved journal entry of this pad; without one, only
/// that the proofs lead to the checkpoint they carry (which anyone could have made).
pub fn log_check(p: &Parsed, key: Option<&super::note::Verifier>) -> Check {
    let Some(log) = &p.header.log else {
        return match key {
            Some(_) => Check::fail(
                "log",
                "the bundle carries no signed checkpoint or inclusion proofs to check against \
                 the key (written by an older locker or a peer)",
            ),
            None => Check::skip("log", "the bundle carries no transparency-log proofs"),
        };
    };
    let claimed = match super::note::SignedCheckpoint::parse_unverified(&log.checkpoint) {
        Ok(c) => c,
        Err(e) => return Check::fail("log", format!("the bundle's checkpoint: {e}")),
    };
    let subject = format!("pad:{}", p.header.pad_id);
    let mut recorded: std::collections::HashMap<u64, Digest> = std::collections::HashMap::new();
    for (i, ep) in log.entries.iter().enumerate() {
        let proof = match ep.to_proof(&log.checkpoint) {
            Ok(pr) => pr,
            Err(e) => return Check::fail("log", format!("inclusion proof {i}: {e}")),
        };
        let entry = match key {
            Some(k) => match proof.verify(k) {
                Ok(v) => v.entry,
                Err(e) => return Check::fail("log", format!("inclusion proof {i}: {e}")),
            },
            None => {
                let leaf = super::merkle::leaf_hash(&proof.entry);
                let ok = super::merkle::verify_inclusion(
                    &leaf,
                    proof.index,
                    claimed.size,
                    &proof.hashes,
                    &claimed.root,
                );
                match (ok, super::journal::Entry::decode(&proof.entry)) {
                    (Ok(()), Ok(e)) => e,
                    (Err(e), _) => return Check::fail("log", format!("inclusion proof {i}: {e}")),
                    (_, Err(e)) => return Check::fail("log", format!("inclusion proof {i}: {e}")),
                }
            }
        };
        if entry.subject != subject {
            return Check::fail(
                "log",
                format!("inclusion proof {i} is for `{}`, not {subject}", entry.subject),
            );
        }
        for b in &p.blocks {
            if let Some(h) = super::proof::recorded_block(&entry, b.seq) {
                recorded.insert(b.seq, h);
            }
        }
    }
    for b in &p.blocks {
        match recorded.get(&b.seq) {
            None => {
                return Check::fail(
                    "log",
                    format!("no proved journal entry records block {}", b.seq),
                )
            }
            Some(h) if *h != b.curr_hash => {
                return Check::fail(
                    "log",
                    format!(
                        "block {}'s curr_hash is {}, but the log recorded {h}",
                        b.seq, b.curr_hash
                    ),
                )
            }
            Some(_) => {}
        }
    }
    let what = format!(
        "{} block(s) recorded by {} journal entr{} included in checkpoint {} (size {}, root {})",
        p.blocks.len(),
        log.entries.len(),
        if log.entries.len() == 1 { "y" } else { "ies" },
        claimed.origin,
        claimed.size,
        claimed.root
    );
    match key {
        Some(k) => Check::pass("log", format!("{what}, signed by key {}", k.id_hex())),
        None => Check::skip(
            "log",
            format!("{what}; the key was NOT checked: pass --key VKEY (`locker key show`)"),
        ),
    }
}

fn header_type() -> String {
    "header".into()
}

/// One block of a bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    pub seq: u64,
    pub prev_hash: Digest,
    pub curr_hash: Digest,
    pub content_type: String,
    pub created_at: Option<i64>,
    pub payload: Vec<u8>,
}

#[derive(Debug, Serialize, Deserialize)]
struct BlockLine {
    #[serde(rename = "type")]
    record: String,
    seq: u64,
    prev_hash: Digest,
    curr_hash: Digest,
    content_type: String,
    #[serde(default)]
    created_at: Option<i64>,
    payload_b64: String,
}

/// A bundle's last line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trailer {
    #[serde(rename = "type")]
    pub record: String,
    pub block_count: u64,
    pub total_bytes: u64,
    pub head_hash: Digest,
    /// SHA-256 of every byte before the trailer line.
    pub sha256: Digest,
}

/// A pad to write as a bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bundle {
    pub header: Header,
    pub blocks: Vec<Block>,
}

/// Writes a bundle: header, blocks, then the trailer over the bytes written before it.
pub fn encode(b: &Bundle) -> Vec<u8> {
    let mut out = Vec::new();
    let mut header = b.header.clone();
    header.format = FORMAT.into();
    header.record = header_type();
    line(&mut out, &header);
    let mut total = 0u64;
    for blk in &b.blocks {
        total += blk.payload.len() as u64;
        let l = BlockLine {
            record: "block".into(),
            seq: blk.seq,
            prev_hash: blk.prev_hash,
            curr_hash: blk.curr_hash,
            content_type: blk.content_type.clone(),
            created_at: blk.created_at,
            payload_b64: base64::engine::general_purpose::STANDARD.encode(&blk.payload),
        };
        line(&mut out, &l);
    }
    let trailer = Trailer {
        record: "trailer".into(),
        block_count: b.blocks.len() as u64,
        total_bytes: total,
        head_hash: b.blocks.last().map_or(Digest::ZERO, |x| x.curr_hash),
        sha256: Digest::of(&out),
    };
    line(&mut out, &trailer);
    out
}

fn line<T: Serialize>(out: &mut Vec<u8>, v: &T) {
    serde_json::to_writer(&mut *out, v).expect("bundle records serialise to JSON");
    out.push(b'\n');
}

/// A file that is not a bundle this version can read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Malformed {
    #[error("the file is empty")]
    Empty,
    #[error("the file is larger than the {MAX_BUNDLE_BYTES}-byte bundle limit")]
    TooLarge,
    #[error("the first line is not a JSON object: this is not a locker bundle")]
    NotJson,
    #[error(
        "the file ends inside its first line: a bundle truncated in its header, or not a bundle"
    )]
    TruncatedHeader,
    #[error("the first line names no `format`: this is not a locker bundle")]
    NotBundle,
    #[error("unsupported bundle format `{0}` (this locker reads `{FORMAT}`)")]
    UnknownFormat(String),
    #[error("the bundle header is malformed: {0}")]
    BadHeader(String),
}

/// A bundle as read: what parsed, and what did not.
#[derive(Debug, Clone)]
pub struct Parsed {
    pub header: Header,
    /// Every well-formed block record, in file order.
    pub blocks: Vec<Block>,
    pub trailer: Option<Trailer>,
    /// The SHA-256 of the bytes before the trailer line (when there is a trailer).
    pub digest_before_trailer: Option<Digest>,
    /// Lines that are not well-formed records (`line N: …`).
    pub record_problems: Vec<String>,
    /// Why the file does not end with its trailer, if it does not.
    pub trailer_problem: Option<String>,
    /// The SHA-256 of the whole file.
    pub file_sha256: Digest,
    pub file_bytes: u64,
}

/// Reads a bundle. Only a file that cannot be identified as a `locker.bundle.v1` bundle is an
/// error; everything wrong after a valid header is recorded for [`check`] to report.
pub fn parse(bytes: &[u8]) -> Result<Parsed, Malformed> {
    if bytes.is_empty() {
        return Err(Malformed::Empty);
    }
    if bytes.len() > MAX_BUNDLE_BYTES {
        return Err(Malformed::TooLarge);
    }
    let header_end = bytes.iter().position(|b| *b == b'\n');
    let first = &bytes[..header_end.unwrap_or(bytes.len())];
    let value: Value = serde_json::from_slice(first).map_err(|e| {
        if header_end.is_none() && e.classify() == serde_json::error::Category::Eof {
            Malformed::TruncatedHeader
        } else {
            Malformed::NotJson
        }
    })?;
    let Value::Object(obj) = &value else {
        return Err(Malformed::NotJson);
    };
    match obj.get("format") {
        None => return Err(Malformed::NotBundle),
        Some(Value::String(f)) if f == FORMAT => {}
        Some(Value::String(f)) => return Err(Malformed::UnknownFormat(f.clone())),
        Some(_) => return Err(Malformed::NotBundle),
    }
    let header: Header =
        serde_json::from_value(value).map_err(|e| Malformed::BadHeader(e.to_string()))?;
    if header.record != "header" {
        return Err(Malformed::BadHeader(format!(
            "the first record's type is `{}`, not `header`",
            header.record
        )));
    }
    let mut p = Parsed {
        header,
        blocks: Vec::new(),
        trailer: None,
        digest_before_trailer: None,
        record_problems: Vec::new(),
        trailer_problem: None,
        file_sha256: Digest::of(bytes),
        file_bytes: bytes.len() as u64,
    };
    let Some(header_end) = header_end else {
        p.trailer_problem = Some("the bundle is truncated: it ends inside its header line".into());
        return Ok(p);
    };
    let mut pos = header_end + 1;
    let mut line_no = 1usize;
    let mut after_trailer = 0usize;
    while pos < bytes.len() {
        line_no += 1;
        let Some(len) = bytes[pos..].iter().position(|b| *b == b'\n') else {
            p.trailer_problem = Some(if p.trailer.is_some() {
                format!("line {line_no} follows the trailer without a final newline")
            } else {
                format!(
                    "the bundle is truncated: line {line_no} is cut off and there is no trailer \
                     ({} block records read)",
                    p.blocks.len()
                )
            });
            return Ok(p);
        };
        let text = &bytes[pos..pos + len];
        if p.trailer.is_some() {
            after_trailer += 1;
        } else {
            record(&mut p, text, line_no, &bytes[..pos]);
        }
        pos += len + 1;
    }
    if after_trailer > 0 {
        p.trailer_problem = Some(format!("{after_trailer} line(s) follow the trailer"));
    } else if p.trailer.is_none() {
        p.trailer_problem = Some(format!(
            "the bundle is truncated: it has no trailer ({} block records read)",
            p.blocks.len()
        ));
    }
    Ok(p)
}

/// Parses one line after the header.
fn record(p: &mut Parsed, text: &[u8], line_no: usize, before: &[u8]) {
    let bad =
        |p: &mut Parsed, why: String| p.record_problems.push(format!("line {line_no}: {why}"));
    let value: Value = match serde_json::from_slice(text) {
        Ok(v) => v,
        Err(_) => return bad(p, "not JSON".into()),
    };
    match value.get("type").and_then(Value::as_str) {
        Some("block") => match serde_json::from_value::<BlockLine>(value) {
            Ok(l) => match base64::engine::general_purpose::STANDARD.decode(&l.payload_b64) {
                Ok(payload) => p.blocks.push(Block {
                    seq: l.seq,
                    prev_hash: l.prev_hash,
                    curr_hash: l.curr_hash,
                    content_type: l.content_type,
                    created_at: l.created_at,
                    payload,
                }),
                Err(_) => bad(p, format!("block {}'s payload_b64 is not base64", l.seq)),
            },
            Err(e) => bad(p, format!("malformed block record: {e}")),
        },
        Some("trailer") => match serde_json::from_value::<Trailer>(value) {
            Ok(t) => {
                p.trailer = Some(t);
                p.digest_before_trailer = Some(Digest::of(before));
            }
            Err(e) => bad(p, format!("malformed trailer: {e}")),
        },
        Some(other) => bad(p, format!("unexpected record type `{other}`")),
        None => bad(p, "a record with no `type`".into()),
    }
}

/// What [`check`] found, besides the checks themselves.
#[derive(Debug, Clone)]
pub struct Findings {
    pub checks: Vec<Check>,
    /// The head recomputed from the payloads in file order (64 zeros when there are none).
    pub computed_head: Digest,
    pub total_bytes: u64,
}

/// Runs every check on a parsed bundle, in a fixed order: `format`, `records`, `trailer`,
/// `digest`, `sequence`, `links`, `hashes`, `head`, `counts`, `envelope`, `expected_head`.
pub fn check(p: &Parsed, expect: Option<&Digest>) -> Findings {
    let h = &p.header;
    let mut checks = Vec::new();
    checks.push(Check::pass(
        "format",
        format!("{FORMAT}: pad {} from {} ({})", h.pad_id, h.source.kind, h.source.exporter),
    ));
    checks.push(if p.record_problems.is_empty() {
        Check::pass("records", format!("{} block record(s), all well-formed", p.blocks.len()))
    } else {
        Check::fail("records", summarise(&p.record_problems))
    });
    checks.push(match &p.trailer_problem {
        None => Check::pass("trailer", "present, last, and nothing follows it"),
        Some(why) => Check::fail("trailer", why.clone()),
    });
    checks.push(match (&p.trailer, &p.digest_before_trailer) {
        (Some(t), Some(d)) if t.sha256 == *d => {
            Check::pass("digest", format!("the bytes before the trailer hash to {d}"))
        }
        (Some(t), Some(d)) => Check::fail(
            "digest",
            format!(
                "the bytes before the trailer hash to {d}, but the trailer records {}: the \
                 bundle was edited or corrupted",
                t.sha256
            ),
        ),
        _ => Check::skip("digest", "no trailer to check the bytes against"),
    });

    // The chain, against the header's claims.
    let mut chk = ChainChecker::new();
    let mut total = 0u64;
    for b in &p.blocks {
        chk.block(b.seq, &b.prev_hash, &b.curr_hash, &b.payload);
        total += b.payload.len() as u64;
    }
    let n = p.blocks.len() as u64;
    let computed_head = chain::head(p.blocks.iter().map(|b| b.payload.as_slice()));
    let problems = chk.finish(&h.head_hash, h.block_count, h.total_bytes);
    let mut seq_p = Vec::new();
    let mut link_p = Vec::new();
    let mut hash_p = Vec::new();
    let mut head_p = Vec::new();
    let mut count_p = Vec::new();
    for pr in &problems {
        let s = pr.to_string();
        match pr {
            ChainProblem::Sequence { .. } => seq_p.push(s),
            ChainProblem::PrevLink { .. } => link_p.push(s),
            ChainProblem::Hash { .. } => hash_p.push(s),
            ChainProblem::Head { .. } => head_p.push(format!("the header's {s}")),
            ChainProblem::Count { .. } | ChainProblem::Bytes { .. } => {
                count_p.push(format!("the header's {s}"));
            }
        }
    }
    if head_p.is_empty() && h.head_hash != computed_head {
        head_p.push(format!(
            "the header's head_hash {} is not the head {computed_head} recomputed from the payloads",
            h.head_hash
        ));
    }
    if let Some(t) = &p.trailer {
        if t.head_hash != computed_head {
            head_p.push(format!(
                "the trailer's head_hash {} is not the head {computed_head} recomputed from the \
                 payloads",
                t.head_hash
            ));
        }
        if t.block_count != n {
            count_p.push(format!(
                "the trailer's block count {} does not match the {n} blocks present",
                t.block_count
            ));
        }
        if t.total_bytes != total {
            count_p.push(format!(
                "the trailer's byte count {} does not match the {total} payload bytes present",
                t.total_bytes
            ));
        }
    }
    let chain_check = |name: &str, problems: &[String], ok: String| {
        if problems.is_empty() {
            Check::pass(name, ok)
        } else {
            Check::fail(name, summarise(problems))
        }
    };
    checks.push(chain_check(
        "sequence",
        &seq_p,
        if n == 0 { "no blocks".into() } else { format!("blocks 0 to {} in order", n - 1) },
    ));
    checks.push(chain_check(
        "links",
        &link_p,
        "every prev_hash is its predecessor's curr_hash (block 0's is 64 zeros)".into(),
    ));
    checks.push(chain_check(
        "hashes",
        &hash_p,
        format!("{n} block(s) re-hashed: curr_hash = sha256(prev_hash ‖ payload)"),
    ));
    checks.push(chain_check("head", &head_p, format!("head {computed_head} recomputed")));
    checks.push(chain_check(
        "counts",
        &count_p,
        format!("{n} block(s), {total} byte(s), as the header and trailer say"),
    ));
    checks.push(envelope_check(p.blocks.first()));
    checks.push(expected_head_check(expect, &computed_head));
    Findings { checks, computed_head, total_bytes: total }
}

/// Block 0 is a valid `locker.handoff.v1` envelope.
pub fn envelope_check(block0: Option<&Block>) -> Check {
    match block0 {
        Some(b) if b.seq == 0 => match envelope::validate(&b.payload) {
            Ok(e) => Check::pass(
                "envelope",
                format!(
                    "block 0 is a valid {} envelope: task {}, {} → {}",
                    envelope::SCHEMA,
                    e.task_id(),
                    e.from_agent(),
                    e.to_agent()
                ),
            ),
            Err(e) => Check::fail("envelope", format!("block 0 is not a valid envelope: {e}")),
        },
        Some(_) => Check::fail("envelope", "the bundle has no block 0"),
        None => Check::skip("envelope", "the pad has no blocks"),
    }
}

/// The recomputed head is the one the caller expects.
pub fn expected_head_check(expect: Option<&Digest>, computed: &Digest) -> Check {
    match expect {
        None => Check::skip("expected_head", "no expected head given (--expect-head)"),
        Some(e) if e == computed => {
            Check::pass("expected_head", format!("the recomputed head is the expected {e}"))
        }
        Some(e) => Check::fail(
            "expected_head",
            format!("the recomputed head {computed} is not the expected head {e}"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(payloads: &[&[u8]]) -> Bundle {
        let mut prev = Digest::ZERO;
        let mut blocks = Vec::new();
        for (i, p) in payloads.iter().enumerate() {
            let curr = chain::link(&prev, p);
            blocks.push(Block {
                seq: i as u64,
                prev_hash: prev,
                curr_hash: curr,
                content_type: "text/plain".into(),
                created_at: Some(7),
                payload: p.to_vec(),
            });
            prev = curr;
        }
        Bundle {
            header: Header {
                format: FORMAT.into(),
                record: "header".into(),
                pad_id: "p1".into(),
                state: "sealed".into(),
                block_count: payloads.len() as u64,
                total_bytes: payloads.iter().map(|p| p.len() as u64).sum(),
                head_hash: prev,
                created_at: Some(1),
                expires_at: Some(2),
                sealed_at: Some(3),
                max_blocks: Some(32),
                max_bytes: None,
                source: Source {
                    kind: "locker".into(),
                    url: None,
                    exported_at: 9,
                    exporter: "locker test".into(),
                },
                log: None,
                signers: None,
            },
            blocks,
        }
    }

    const ENV: &[u8] = br#"{"schema":"locker.handoff.v1","task_id":"t-1","from_agent":"a","to_agent":"b","constraints":["c1"],"artifacts":[{"name":"x"}],"budget_usd":1.25}"#;

    fn failing(f: &Findings) -> Vec<&str> {
        f.checks.iter().filter(|c| c.failed()).map(|c| c.name.as_str()).collect()
    }

    #[test]
    fn a_written_bundle_reads_back_intact() {
        let b = sample(&[ENV, b"second", &[0xff, 0x00]]);
        let bytes = encode(&b);
        assert!(bytes.ends_with(b"\n"));
        let p = parse(&bytes).unwrap();
        assert_eq!(p.header, b.header);
        assert_eq!(p.blocks, b.blocks);
        let f = check(&p, Some(&b.header.head_hash));
        assert!(failing(&f).is_empty(), "{:?}", f.checks);
        assert_eq!(f.computed_head, b.header.head_hash);
        let names: Vec<&str> = f.checks.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "format",
                "records",
                "trailer",
                "digest",
                "sequence",
                "links",
                "hashes",
                "head",
                "counts",
                "envelope",
                "expected_head"
            ]
        );
    }

    #[test]
    fn an_empty_pad_is_a_valid_bundle() {
        let b = sample(&[]);
        let p = parse(&encode(&b)).unwrap();
        let f = check(&p, None);
        assert!(failing(&f).is_empty(), "{:?}", f.checks);
        let env = f.checks.iter().find(|c| c.name == "envelope").unwrap();
        assert_eq!(env.status, super::super::check::Status::Skip);
    }

    #[test]
    fn every_cut_is_detected() {
        let bytes = encode(&sample(&[ENV, b"second"]));
        for cut in 1..bytes.len() {
            match parse(&bytes[..cut]) {
                Err(_) => assert!(cut < bytes.iter().position(|b| *b == b'\n').unwrap() + 1),
                Ok(p) => {
                    let f = check(&p, None);
                    assert!(failing(&f).contains(&"trailer"), "cut at {cut}: {:?}", f.checks);
                }
            }
        }
    }

    #[test]
    fn an_edited_payload_fails_digest_and_hashes() {
        let b = sample(&[ENV, b"second"]);
        let text = String::from_utf8(encode(&b)).unwrap();
        let enc = base64::engine::general_purpose::STANDARD.encode(b"second");
        let forged = base64::engine::general_purpose::STANDARD.encode(b"SECOND");
        let edited = text.replace(&enc, &forged);
        let f = check(&parse(edited.as_bytes()).unwrap(), None);
        assert_eq!(failing(&f), ["digest", "hashes", "head"]);
        let hashes = f.checks.iter().find(|c| c.name == "hashes").unwrap();
        assert!(hashes.detail.starts_with("block 1 "), "{}", hashes.detail);
    }

    #[test]
    fn a_consistent_forgery_is_caught_only_by_the_expected_head() {
        let good = sample(&[ENV, b"second"]);
        let forged = sample(&[ENV, b"forged"]);
        let p = parse(&encode(&forged)).unwrap();
        assert!(failing(&check(&p, None)).is_empty());
        assert_eq!(failing(&check(&p, Some(&good.header.head_hash))), ["expected_head"]);
    }

    #[test]
    fn malformed_files() {
        assert_eq!(parse(b"").unwrap_err(), Malformed::Empty);
        assert_eq!(parse(b"hello\n").unwrap_err(), Malformed::NotJson);
        assert_eq!(parse(b"{\"format\":\"locker.bun").unwrap_err(), Malformed::TruncatedHeader);
        assert_eq!(parse(b"[1]\n").unwrap_err(), Malformed::NotJson);
        assert_eq!(parse(b"{\"a\":1}\n").unwrap_err(), Malformed::NotBundle);
        assert!(matches!(
            parse(b"{\"format\":\"locker.bundle.v9\"}\n").unwrap_err(),
            Malformed::UnknownFormat(_)
        ));
        assert!(matches!(
            parse(b"{\"format\":\"locker.bundle.v1\"}\n").unwrap_err(),
            Malformed::BadHeader(_)
        ));
    }

    #[test]
    fn junk_lines_and_lines_after_the_trailer() {
        let b = sample(&[ENV]);
        let mut bytes = encode(&b);
        bytes.extend_from_slice(b"{\"type\":\"block\"}\n");
        let f = check(&parse(&bytes).unwrap(), None);
        assert_eq!(failing(&f), ["trailer"]);

        let text = String::from_utf8(encode(&b)).unwrap();
        let mut lines: Vec<&str> = text.lines().collect();
        lines.insert(1, "not json");
        let joined = lines.join("\n") + "\n";
        let f = check(&parse(joined.as_bytes()).unwrap(), None);
        assert!(failing(&f).starts_with(&["records", "digest"]), "{:?}", f.checks);
    }

    #[test]
    fn a_bad_envelope_fails_its_check() {
        let b = sample(&[b"not an envelope"]);
        let f = check(&parse(&encode(&b)).unwrap(), None);
        assert_eq!(failing(&f), ["envelope"]);
    }
}
