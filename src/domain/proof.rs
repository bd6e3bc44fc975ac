//! Offline proof files: an inclusion proof in the C2SP tlog-proof layout
//! (c2sp.org/tlog-proof@v1), carrying the journal entry's exact bytes as its `extra` data so it
//! can be checked alone, and a consistency proof between two signed checkpoints in the same
//! spirit.
//!
//! ```text
//! c2sp.org/tlog-proof@v1            locker/tlog-consistency@v1
//! extra <base64 entry bytes>        old <old size>
//! index <leaf index>                <base64 proof hash>…
//! <base64 proof hash>…
//!                                   <old signed checkpoint>
//! <signed checkpoint>
//!                                   <new signed checkpoint>
//! ```

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;

use super::digest::Digest;
use super::event::{BlockRecord, Event};
use super::journal::Entry;
use super::merkle::{self, ProofError, MAX_PROOF_HASHES};
use super::note::{Checkpoint, NoteError, SignedCheckpoint, Verifier};

/// The first line of an inclusion proof file.
pub const INCLUSION_HEADER: &str = "c2sp.org/tlog-proof@v1";
/// The first line of a consistency proof file.
pub const CONSISTENCY_HEADER: &str = "locker/tlog-consistency@v1";
/// Largest proof file accepted.
pub const MAX_PROOF_FILE_BYTES: usize = 1024 * 1024;

/// Why a proof file was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProofFileError {
    #[error("malformed proof file: {0}")]
    Malformed(String),
    #[error("the checkpoint: {0}")]
    Checkpoint(#[from] NoteError),
    #[error("the proof: {0}")]
    Proof(#[from] ProofError),
    #[error("the entry: {0}")]
    Entry(String),
}

fn malformed(why: impl Into<String>) -> ProofFileError {
    ProofFileError::Malformed(why.into())
}

/// One proof hash in base64.
pub fn b64(d: &Digest) -> String {
    B64.encode(d.0)
}

fn parse_hash(line: &str) -> Result<Digest, ProofFileError> {
    let raw = B64.decode(line).map_err(|_| malformed("a proof hash is not base64"))?;
    let raw: [u8; 32] = raw.try_into().map_err(|_| malformed("a proof hash is not 32 bytes"))?;
    Ok(Digest(raw))
}

/// Splits a file's text into its header block and the rest (after the first blank line).
fn split_head(bytes: &[u8]) -> Result<(&str, &str), ProofFileError> {
    if bytes.len() > MAX_PROOF_FILE_BYTES {
        return Err(malformed("too large"));
    }
    let s = std::str::from_utf8(bytes).map_err(|_| malformed("not UTF-8"))?;
    let i = s.find("\n\n").ok_or_else(|| malformed("no blank line before the checkpoint"))?;
    Ok((&s[..i], &s[i + 2..]))
}

/// An inclusion proof of one journal entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InclusionProof {
    /// The leaf index: the entry's sequence number minus one.
    pub index: u64,
    /// The entry's exact stored bytes.
    pub entry: Vec<u8>,
    pub hashes: Vec<Digest>,
    /// The signed checkpoint the proof leads to.
    pub checkpoint: String,
}

/// What a verified inclusion proof proves.
#[derive(Debug, Clone, PartialEq)]
pub struct VerifiedInclusion {
    pub checkpoint: SignedCheckpoint,
    pub entry: Entry,
    pub leaf_hash: Digest,
}

impl InclusionProof {
    pub fn encode(&self) -> String {
        let mut s = format!(
            "{INCLUSION_HEADER}\nextra {}\nindex {}\n",
            B64.encode(&self.entry),
            self.index
        );
        for h in &self.hashes {
            s.push_str(&b64(h));
            s.push('\n');
        }
        s.push('\n');
        s.push_str(&self.checkpoint);
        s
    }

    pub fn parse(bytes: &[u8]) -> Result<Self, ProofFileError> {
        let (head, checkpoint) = split_head(bytes)?;
        let mut lines = head.split('\n');
        if lines.next() != Some(INCLUSION_HEADER) {
            return Err(malformed(format!("the first line is not `{INCLUSION_HEADER}`")));
        }
        let mut line = lines.next().ok_or_else(|| malformed("no index line"))?;
        let mut entry = None;
        if let Some(extra) = line.strip_prefix("extra ") {
            entry = Some(B64.decode(extra).map_err(|_| malformed("the extra data is not base64"))?);
            line = lines.next().ok_or_else(|| malformed("no index line"))?;
        }
        let index = line
            .strip_prefix("index ")
            .and_then(|n| n.parse::<u64>().ok())
            .ok_or_else(|| malformed("no `index N` line"))?;
        let hashes = lines.map(parse_hash).collect::<Result<Vec<_>, _>>()?;
        if hashes.len() > MAX_PROOF_HASHES {
            return Err(malformed("too many proof hashes"));
        }
        let entry = entry.ok_or_else(|| {
            malformed("no `extra` line: locker's proofs carry the entry's bytes there")
        })?;
        Ok(Self { index, entry, hashes, checkpoint: checkpoint.to_owned() })
    }

    /// Checks the checkpoint's signature by `v`, the entry's bytes and sequence, and the proof.
    pub fn verify(&self, v: &Verifier) -> Result<VerifiedInclusion, ProofFileError> {
        let checkpoint = SignedCheckpoint::verify(&self.checkpoint, v)?;
        let entry = Entry::decode(&self.entry).map_err(|e| {
            ProofFileError::Entry(format!("its bytes are not a journal entry: {e}"))
        })?;
        if entry.seq != self.index + 1 {
            return Err(ProofFileError::Entry(format!(
                "it is entry {} but the proof is for leaf {} (entry {})",
                entry.seq,
                self.index,
                self.index + 1
            )));
        }
        let leaf_hash = merkle::leaf_hash(&self.entry);
        let c = &checkpoint.checkpoint;
        merkle::verify_inclusion(&leaf_hash, self.index, c.size, &self.hashes, &c.root)?;
        Ok(VerifiedInclusion { checkpoint, entry, leaf_hash })
    }
}

/// A consistency proof between two signed checkpoints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsistencyProof {
    pub old: String,
    pub new: String,
    pub hashes: Vec<Digest>,
}

/// Splits `rest` into signed notes: each is text lines, a blank line, signature lines.
fn split_notes(rest: &str) -> Result<Vec<String>, ProofFileError> {
    let mut notes = Vec::new();
    let mut current = String::new();
    let mut in_sigs = false;
    for line in rest.split_inclusive('\n') {
        if line == "\n" {
            if in_sigs {
                notes.push(std::mem::take(&mut current));
                in_sigs = false;
            } else {
                current.push_str(line);
                in_sigs = true;
            }
            continue;
        }
        current.push_str(line);
    }
    if !current.is_empty() {
        notes.push(current);
    }
    Ok(notes)
}

impl ConsistencyProof {
    /// The old and new checkpoints as they claim to be, unverified.
    pub fn claimed(&self) -> Result<(Checkpoint, Checkpoint), ProofFileError> {
        Ok((
            SignedCheckpoint::parse_unverified(&self.old)?,
            SignedCheckpoint::parse_unverified(&self.new)?,
        ))
    }

    pub fn encode(&self) -> String {
        let old = SignedCheckpoint::parse_unverified(&self.old).map_or(0, |c| c.size);
        let mut s = format!("{CONSISTENCY_HEADER}\nold {old}\n");
        for h in &self.hashes {
            s.push_str(&b64(h));
            s.push('\n');
        }
        s.push('\n');
        s.push_str(&self.old);
        s.push('\n');
        s.push_str(&self.new);
        s
    }

    pub fn parse(bytes: &[u8]) -> Result<Self, ProofFileError> {
        let (head, rest) = split_head(bytes)?;
        let mut lines = head.split('\n');
        if lines.next() != Some(CONSISTENCY_HEADER) {
            return Err(malformed(format!("the first line is not `{CONSISTENCY_HEADER}`")));
        }
        let old_size = lines
            .next()
            .and_then(|l| l.strip_prefix("old "))
            .and_then(|n| n.parse::<u64>().ok())
            .ok_or_else(|| malformed("no `old N` line"))?;
        let hashes = lines.map(parse_hash).collect::<Result<Vec<_>, _>>()?;
        if hashes.len() > MAX_PROOF_HASHES {
            return Err(malformed("too many proof hashes"));
        }
        let notes = split_notes(rest)?;
        let [old, new]: [String; 2] =
            notes.try_into().map_err(|_| malformed("expected exactly two signed checkpoints"))?;
        let p = Self { old, new, hashes };
        if p.claimed()?.0.size != old_size {
            return Err(malformed("the `old` size is not the old checkpoint's size"));
        }
        Ok(p)
    }

    /// Checks both checkpoints' signatures by `v` and the proof between them.
    pub fn verify(
        &self,
        v: &Verifier,
    ) -> Result<(SignedCheckpoint, SignedCheckpoint), ProofFileError> {
        let old = SignedCheckpoint::verify(&self.old, v)?;
        let new = SignedCheckpoint::verify(&self.new, v)?;
        let (o, n) = (&old.checkpoint, &new.checkpoint);
        merkle::verify_consistency(o.size, n.size, &o.root, &n.root, &self.hashes)?;
        Ok((old, new))
    }
}

/// The hash a journal entry records for block `seq` of its pad, if it recorded that block
/// (`pad.append` records one block, `pad.deposit` and `pad.import` all of a pad's blocks).
pub fn recorded_block(e: &Entry, seq: u64) -> Option<Digest> {
    let hash_of = |b: &BlockRecord| (b.seq == seq).then_some(b.curr_hash);
    match e.event().ok()? {
        Event::PadAppend(a) => (a.seq == seq).then_some(a.curr_hash),
        Event::PadDeposit(d) => d.blocks.iter().find_map(hash_of),
        Event::PadImport(i) => i.blocks.iter().find_map(hash_of),
        _ => None,
    }
}

/// What kind of proof file `bytes` is, by its first line.
pub fn kind_of(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(INCLUSION_HEADER.as_bytes()) {
        Some("inclusion")
    } else if bytes.starts_with(CONSISTENCY_HEADER.as_bytes()) {
        Some("consistency")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::journal::VERSION;
    use crate::domain::merkle::{consistency_proof, inclusion_proof, root, MemTree};
    use crate::domain::note::Signer;

    fn entry(seq: u64) -> Vec<u8> {
        Entry {
            v: VERSION,
            seq,
            time: 1_800_000_000,
            kind: "pad.append".into(),
            actor: "operator".into(),
            scope: "default".into(),
            subject: format!("pad:{seq}"),
            body: serde_json::json!({"seq": seq}),
        }
        .encode()
    }

    #[test]
    fn proof_files_round_trip_verify_and_any_flipped_byte_fails() {
        let s = Signer::generate("locker/test").unwrap();
        let v = s.verifier();
        let mut t = MemTree::default();
        for seq in 1..=13 {
            t.push(merkle::leaf_hash(&entry(seq)));
        }
        let cp = |t: &mut MemTree, n: u64| {
            let c = Checkpoint { origin: "locker/test".into(), size: n, root: root(t, n).unwrap() };
            s.sign(&c.to_text())
        };
        let p = InclusionProof {
            index: 4,
            entry: entry(5),
            hashes: inclusion_proof(&mut t, 4, 13).unwrap(),
            checkpoint: cp(&mut t, 13),
        };
        let text = p.encode();
        let back = InclusionProof::parse(text.as_bytes()).unwrap();
        assert_eq!(back, p);
        assert_eq!(back.verify(&v).unwrap().entry.seq, 5);
        for i in 0..text.len() {
            let mut b = text.clone().into_bytes();
            b[i] ^= 0x01;
            let ok = InclusionProof::parse(&b).and_then(|p| p.verify(&v)).is_ok();
            assert!(!ok, "flipping byte {i} of the inclusion proof still verified");
        }
        let c = ConsistencyProof {
            old: cp(&mut t, 6),
            new: cp(&mut t, 13),
            hashes: consistency_proof(&mut t, 6, 13).unwrap(),
        };
        let text = c.encode();
        let back = ConsistencyProof::parse(text.as_bytes()).unwrap();
        assert_eq!(back, c);
        back.verify(&v).unwrap();
        for i in 0..text.len() {
            let mut b = text.clone().into_bytes();
            b[i] ^= 0x01;
            let ok = ConsistencyProof::parse(&b).and_then(|p| p.verify(&v)).is_ok();
            assert!(!ok, "flipping byte {i} of the consistency proof still verified");
        }
        assert_eq!(kind_of(text.as_bytes()), Some("consistency"));
    }
}
