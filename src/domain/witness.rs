//! Witnesses: timestamped Ed25519 cosignatures (c2sp.org/tlog-cosignature, type 0x04), the
//! `add-checkpoint` request of c2sp.org/tlog-witness and the witness's decision on it, and
//! witness quorum policies (c2sp.org/tlog-policy). No I/O.
//!
//! A cosignature says "as of this time, the largest consistent tree head I have observed for
//! this origin has this root". A witness's keys are Ed25519 keys of type 0x04 in the
//! signed-note key encodings of [`super::key`] (key id `SHA-256(name ‖ "\n" ‖ 0x04 ‖ public
//! key)[:4]`); a cosignature's signature bytes are `u64be(timestamp) ‖ Ed25519 signature` over
//!
//! ```text
//! cosignature/v1
//! time <timestamp>
//! <checkpoint text, with its final newline>
//! ```

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use ed25519_dalek::{Signature, Signer as _, SigningKey, VerifyingKey};

use super::digest::Digest;
use super::key::{self, Alg, KeyError, Skey, Vkey};
use super::merkle::{self, MAX_PROOF_HASHES};
use super::note::{self, Checkpoint, Note, NoteError, Verifier};

/// The algorithm of a witness's keys: timestamped Ed25519 cosignatures.
const ALG: Alg = Alg::CosignatureV1;
/// The em dash that starts a signature line.
const DASH: &str = "\u{2014} ";
/// Most proof lines in an `add-checkpoint` request (the spec's 63).
pub const MAX_REQUEST_PROOF_LINES: usize = 63;
/// The content type of a 409 answer's body (the witness's stored size).
pub const SIZE_CONTENT_TYPE: &str = "text/x.tlog.size";

/// The message a cosignature signs.
pub fn cosigned_message(checkpoint_text: &str, time: u64) -> String {
    format!("cosignature/v1\ntime {time}\n{checkpoint_text}")
}

/// A witness's (cosigner's) public key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CosignerKey {
    pub name: String,
    pub id: [u8; 4],
    pub key: VerifyingKey,
}

impl From<Vkey> for CosignerKey {
    fn from(k: Vkey) -> Self {
        Self { name: k.name, id: k.id, key: k.key }
    }
}

/// A key ID that is not 8 hex digits is refused as one that does not match (as it always was
/// for witness keys).
fn id_mismatch(e: KeyError) -> KeyError {
    match e {
        KeyError::IdSyntax(id) => KeyError::IdMismatch(id),
        e => e,
    }
}

impl CosignerKey {
    pub fn new(name: &str, key: VerifyingKey) -> Result<Self, NoteError> {
        Vkey::new(name, ALG, key).map(Self::from).map_err(NoteError::vkey)
    }

    /// Parses `name+hexid+base64(0x04 ‖ key)`.
    pub fn parse(vkey: &str) -> Result<Self, NoteError> {
        Vkey::parse(vkey, ALG).map(Self::from).map_err(|e| NoteError::vkey(id_mismatch(e)))
    }

    /// `name+hexid+base64(0x04 ‖ key)`.
    pub fn to_vkey(&self) -> String {
        key::encode_vkey(&self.name, ALG, &self.key)
    }

    /// The time of this key's valid cosignature on `note`, if it carries one. A signature line
    /// with this key's name and id that does not verify is an error.
    pub fn verify(&self, note: &Note) -> Result<Option<u64>, NoteError> {
        let mut best = None;
        for s in note.signatures.iter().filter(|s| s.name == self.name && s.id == self.id) {
            let bad = || NoteError::BadSignature(self.name.clone());
            if s.sig.len() != 72 {
                return Err(bad());
            }
            let time = u64::from_be_bytes(s.sig[..8].try_into().map_err(|_| bad())?);
            let sig: [u8; 64] = s.sig[8..].try_into().map_err(|_| bad())?;
            let msg = cosigned_message(&note.text, time);
            self.key
                .verify_strict(msg.as_bytes(), &Signature::from_bytes(&sig))
                .map_err(|_| bad())?;
            best = best.max(Some(time));
        }
        Ok(best)
    }
}

/// A witness's private key.
#[derive(Clone)]
pub struct Cosigner {
    pub name: String,
    key: SigningKey,
}

impl std::fmt::Debug for Cosigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cosigner").field("name", &self.name).finish_non_exhaustive()
    }
}

impl From<Skey> for Cosigner {
    fn from(k: Skey) -> Self {
        Self { name: k.name, key: k.key }
    }
}

impl Cosigner {
    pub fn from_seed(name: &str, seed: &[u8; 32]) -> Result<Self, NoteError> {
        Skey::from_seed(name, ALG, seed).map(Self::from).map_err(NoteError::skey)
    }

    pub fn generate(name: &str) -> Result<Self, NoteError> {
        Skey::generate(name, ALG).map(Self::from).map_err(NoteError::skey)
    }

    /// Parses `PRIVATE+KEY+name+hexid+base64(0x04 ‖ seed)`.
    pub fn parse(skey: &str) -> Result<Self, NoteError> {
        Skey::parse(skey, ALG).map(Self::from).map_err(|e| NoteError::skey(id_mismatch(e)))
    }

    /// `PRIVATE+KEY+name+hexid+base64(0x04 ‖ seed)`.
    pub fn to_skey(&self) -> String {
        key::encode_skey(&self.name, ALG, &self.key)
    }

    pub fn public(&self) -> CosignerKey {
        let key = self.key.verifying_key();
        CosignerKey { name: self.name.clone(), id: key::key_id(&self.name, ALG, &key), key }
    }

    /// One cosignature line (without its newline) on a checkpoint's text at `time`.
    pub fn cosign(&self, checkpoint_text: &str, time: u64) -> String {
        let sig = self.key.sign(cosigned_message(checkpoint_text, time).as_bytes());
        let mut raw = self.public().id.to_vec();
        raw.extend_from_slice(&time.to_be_bytes());
        raw.extend_from_slice(&sig.to_bytes());
        format!("{DASH}{} {}", self.name, B64.encode(raw))
    }
}

/// Adds signature lines (each without its newline) to a signed note.
pub fn add_signatures(note: &str, lines: &[String]) -> String {
    let mut s = note.to_owned();
    for l in lines {
        if !s.contains(l.as_str()) {
            s.push_str(l);
            s.push('\n');
        }
    }
    s
}

/// The lowercase hex SHA-256 of a log's origin line: its path under a witness's checkpoint
/// monitoring prefix (`GET <prefix>/<origin hash>/checkpoint`, c2sp.org/tlog-witness).
pub fn origin_hash(origin: &str) -> String {
    Digest::of(origin.as_bytes()).to_hex()
}

/// What a witness's monitoring endpoint serves for a log: the checkpoint it cosigned, with the
/// log's own signature lines (those named `log_name`) and the witness's `cosignature` line;
/// any other signature the submitted note carried is left out, as the witness vouches only for
/// its own.
pub fn monitored_note(note: &str, log_name: &str, cosignature: &str) -> String {
    let (text, sigs) = note.split_once("\n\n").unwrap_or((note, ""));
    let mut out = format!("{text}\n\n");
    let own = format!("{DASH}{log_name} ");
    for line in sigs.lines().filter(|l| l.starts_with(&own)) {
        out.push_str(line);
        out.push('\n');
    }
    out.push_str(cosignature);
    out.push('\n');
    out
}

// ---------------------------------------------------------------------------------------------
// The add-checkpoint request and the witness's decision.

/// A parsed `add-checkpoint` request body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddCheckpoint {
    pub old: u64,
    pub proof: Vec<Digest>,
    /// The signed checkpoint, as sent.
    pub note: String,
}

impl AddCheckpoint {
    /// The request body: `old N`, the proof lines, a blank line, the signed checkpoint.
    pub fn encode(&self) -> String {
        let mut s = format!("old {}\n", self.old);
        for h in &self.proof {
            s.push_str(&B64.encode(h.0));
            s.push('\n');
        }
        s.push('\n');
        s.push_str(&self.note);
        s
    }

    /// Parses a request body (any error is a 400).
    pub fn parse(body: &[u8]) -> Result<Self, String> {
        if body.len() > note::MAX_NOTE_BYTES + 8 * 1024 {
            return Err("the request is too large".into());
        }
        let s = std::str::from_utf8(body).map_err(|_| "the request is not UTF-8".to_owned())?;
        let i = s.find("\n\n").ok_or("no blank line before the checkpoint")?;
        let mut lines = s[..i].split('\n');
        let old = lines
            .next()
            .and_then(|l| l.strip_prefix("old "))
            .filter(|n| !n.is_empty() && (n.len() == 1 || !n.starts_with('0')))
            .and_then(|n| n.parse::<u64>().ok())
            .ok_or("the first line is not `old N`")?;
        let mut proof = Vec::new();
        for l in lines {
            let raw = B64.decode(l).map_err(|_| "a proof line is not base64".to_owned())?;
            let raw: [u8; 32] =
                raw.try_into().map_err(|_| "a proof line is not 32 bytes".to_owned())?;
            proof.push(Digest(raw));
        }
        if proof.len() > MAX_REQUEST_PROOF_LINES.min(MAX_PROOF_HASHES) {
            return Err("too many proof lines".into());
        }
        Ok(Self { old, proof, note: s[i + 2..].to_owned() })
    }
}

/// What a witness stored for one log: the newest checkpoint it cosigned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Witnessed {
    pub size: u64,
    pub root: Digest,
}

/// A witness's refusal, with its HTTP status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// 400: malformed, or the old size is larger than the checkpoint's.
    BadRequest(String),
    /// 403: no valid signature by the log's key.
    Forbidden(String),
    /// 404: a log the witness does not follow.
    UnknownLog(String),
    /// 409: the old size is not the size the witness stored (which the body gives).
    Conflict(u64),
    /// 422: the checkpoint is not consistent with what the witness saw.
    Inconsistent(String),
}

impl Refusal {
    pub fn status(&self) -> u16 {
        match self {
            Self::BadRequest(_) => 400,
            Self::Forbidden(_) => 403,
            Self::UnknownLog(_) => 404,
            Self::Conflict(_) => 409,
            Self::Inconsistent(_) => 422,
        }
    }

    /// The response body.
    pub fn body(&self) -> String {
        match self {
            Self::Conflict(size) => format!("{size}\n"),
            Self::BadRequest(d)
            | Self::Forbidden(d)
            | Self::UnknownLog(d)
            | Self::Inconsistent(d) => {
                format!("{d}\n")
            }
        }
    }
}

/// The first checks of a request, before the witness's state is read: the note's origin must
/// be a followed log (`log_key` finds its key), signed by it, and not smaller than `old`.
pub fn check_request<'a>(
    req: &AddCheckpoint,
    log_key: impl FnOnce(&str) -> Option<&'a Verifier>,
) -> Result<Checkpoint, Refusal> {
    let parsed =
        Note::parse(req.note.as_bytes()).map_err(|e| Refusal::BadRequest(e.to_string()))?;
    let cp =
        Checkpoint::parse_text(&parsed.text).map_err(|e| Refusal::BadRequest(e.to_string()))?;
    let v = log_key(&cp.origin)
        .ok_or_else(|| Refusal::UnknownLog(format!("unknown log `{}`", cp.origin)))?;
    parsed.verify(v).map_err(|e| Refusal::Forbidden(e.to_string()))?;
    if req.old > cp.size {
        return Err(Refusal::BadRequest(format!(
            "the old size {} is larger than the checkpoint's size {}",
            req.old, cp.size
        )));
    }
    Ok(cp)
}

/// The decision against the stored state (call it atomically with storing its outcome):
/// `Ok` means cosign and store `cp`.
pub fn decide(
    req: &AddCheckpoint,
    cp: &Checkpoint,
    stored: Option<&Witnessed>,
) -> Result<(), Refusal> {
    let stored_size = stored.map_or(0, |s| s.size);
    if req.old != stored_size {
        return Err(Refusal::Conflict(stored_size));
    }
    if cp.size == 0 && cp.root != merkle::EMPTY_ROOT {
        return Err(Refusal::Inconsistent("a size-0 checkpoint must have the empty root".into()));
    }
    if req.old == 0 {
        if !req.proof.is_empty() {
            return Err(Refusal::Inconsistent("a proof from size 0 must be empty".into()));
        }
        return Ok(());
    }
    let old_root = stored.map_or(merkle::EMPTY_ROOT, |s| s.root);
    if cp.size == req.old {
        if cp.root != old_root {
            return Err(Refusal::Inconsistent(
                "same size as the stored checkpoint but a different root".into(),
            ));
        }
        if !req.proof.is_empty() {
            return Err(Refusal::Inconsistent("a proof between equal sizes must be empty".into()));
        }
        return Ok(());
    }
    merkle::verify_consistency(req.old, cp.size, &old_root, &cp.root, &req.proof).map_err(|e| {
        Refusal::Inconsistent(format!(
            "the checkpoint of size {} is not consistent with the size {} this witness cosigned: {e}",
            cp.size, req.old
        ))
    })
}

// ---------------------------------------------------------------------------------------------
// Policies (c2sp.org/tlog-policy).

/// A witness quorum policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    /// The log keys the policy names (`log <vkey> [url]`).
    pub logs: Vec<Verifier>,
    /// The witnesses by name (`witness NAME <vkey> [url]`), with their URLs.
    pub witnesses: Vec<(String, CosignerKey, Option<String>)>,
    /// Groups by name: their threshold and members (witness or group names).
    pub groups: Vec<(String, usize, Vec<String>)>,
    /// The name of the witness or group that must be satisfied; `None` for `quorum none`.
    pub quorum: Option<String>,
}

/// How a checkpoint fared against a policy.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct QuorumReport {
    pub satisfied: bool,
    /// The quorum's name (`none` when the policy requires none).
    pub quorum: String,
    /// Witnesses whose valid cosignature the checkpoint carries, with its time.
    pub cosigned_by: Vec<(String, u64)>,
    /// Witnesses named by the policy with no valid cosignature.
    pub missing: Vec<String>,
}

impl Policy {
    /// Parses a policy file.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut p =
            Self { logs: Vec::new(), witnesses: Vec::new(), groups: Vec::new(), quorum: None };
        let mut names = std::collections::HashSet::new();
        let mut quorum_seen = false;
        for (n, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let at = |why: String| format!("line {}: {why}", n + 1);
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.as_slice() {
                ["log", vkey] | ["log", vkey, _] => {
                    p.logs.push(Verifier::parse(vkey).map_err(|e| at(e.to_string()))?);
                }
                ["witness", name, vkey] | ["witness", name, vkey, _] => {
                    if !names.insert((*name).to_owned()) {
                        return Err(at(format!("`{name}` is defined twice")));
                    }
                    let k = CosignerKey::parse(vkey).map_err(|e| at(e.to_string()))?;
                    p.witnesses.push((
                        (*name).to_owned(),
                        k,
                        words.get(3).map(|u| (*u).to_owned()),
                    ));
                }
                ["group", name, threshold, members @ ..] if !members.is_empty() => {
                    for m in members {
                        if !names.contains(*m) {
                            return Err(at(format!("`{m}` is not defined on an earlier line")));
                        }
                    }
                    let k = match *threshold {
                        "all" => members.len(),
                        "any" => 1,
                        t => t.parse::<usize>().map_err(|_| {
                            at(format!("the threshold `{t}` is not a number, `all` or `any`"))
                        })?,
                    };
                    if k == 0 || k > members.len() {
                        return Err(at(format!("threshold {k} of {} members", members.len())));
                    }
                    if !names.insert((*name).to_owned()) {
                        return Err(at(format!("`{name}` is defined twice")));
                    }
                    p.groups.push((
                        (*name).to_owned(),
                        k,
                        members.iter().map(|m| (*m).to_owned()).collect(),
                    ));
                }
                ["quorum", name] => {
                    if quorum_seen {
                        return Err(at("a second quorum line".into()));
                    }
                    quorum_seen = true;
                    if *name != "none" {
                        if !names.contains(*name) {
                            return Err(at(format!("`{name}` is not defined on an earlier line")));
                        }
                        p.quorum = Some((*name).to_owned());
                    }
                }
                _ => return Err(at(format!("unrecognised line `{line}`"))),
            }
        }
        if !quorum_seen {
            return Err("the policy has no `quorum` line".into());
        }
        Ok(p)
    }

    /// Checks a signed checkpoint's cosignatures against the quorum (its log signature is the
    /// caller's business). A cosignature by a known witness that does not verify is an error.
    pub fn evaluate(&self, note_text: &str) -> Result<QuorumReport, String> {
        let parsed = Note::parse(note_text.as_bytes()).map_err(|e| e.to_string())?;
        let mut ok = std::collections::HashMap::new();
        let mut cosigned_by = Vec::new();
        let mut missing = Vec::new();
        for (name, key, _) in &self.witnesses {
            match key.verify(&parsed).map_err(|e| format!("witness {name}: {e}"))? {
                Some(t) => {
                    ok.insert(name.clone(), true);
                    cosigned_by.push((name.clone(), t));
                }
                None => missing.push(name.clone()),
            }
        }
        for (name, k, members) in &self.groups {
            let n = members.iter().filter(|m| ok.get(*m).copied().unwrap_or(false)).count();
            ok.insert(name.clone(), n >= *k);
        }
        let (satisfied, quorum) = match &self.quorum {
            None => (true, "none".to_owned()),
            Some(q) => (ok.get(q).copied().unwrap_or(false), q.clone()),
        };
        Ok(QuorumReport { satisfied, quorum, cosigned_by, missing })
    }
}

/// What one witness answered.
#[derive(
    Debug, Clone, serde::Serialize, serde::Deserialize, PartialEq, Eq, schemars::JsonSchema,
)]
pub struct WitnessAnswer {
    pub url: String,
    /// The cosignature lines it returned (empty when it refused).
    pub cosignatures: Vec<String>,
    /// Its final HTTP status (0 when it could not be reached).
    pub status: u16,
    /// Why it refused, if it did.
    pub error: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::merkle::MemTree;
    use crate::domain::note::Signer;

    fn log() -> (Signer, MemTree) {
        (Signer::from_seed("example.com/log", &[1; 32]).unwrap(), MemTree::default())
    }

    fn checkpoint(signer: &Signer, tree: &mut MemTree, size: u64) -> (Checkpoint, String) {
        let root = merkle::root(tree, size).unwrap();
        let cp = Checkpoint { origin: signer.name.clone(), size, root };
        let note = signer.sign(&cp.to_text());
        (cp, note)
    }

    #[test]
    fn cosign_and_verify() {
        // The keys' encodings: domain::key's tests.
        let w = Cosigner::from_seed("witness.example/w1", &[9; 32]).unwrap();
        let (s, mut t) = log();
        for i in 0..3u8 {
            t.push(merkle::leaf_hash(&[i]));
        }
        let (_, note) = checkpoint(&s, &mut t, 3);
        let cosigned =
            add_signatures(&note, &[w.cosign(&Note::parse(note.as_bytes()).unwrap().text, 1234)]);
        let parsed = Note::parse(cosigned.as_bytes()).unwrap();
        assert_eq!(w.public().verify(&parsed).unwrap(), Some(1234));
        // key id (4) ‖ u64be time (8) ‖ signature (64), as tlog-cosignature lays it out.
        let sig = parsed.signatures.iter().find(|x| x.name == w.name).unwrap();
        assert_eq!((sig.id, sig.sig.len()), (w.public().id, 72));
        assert_eq!(&sig.sig[..8], &1234u64.to_be_bytes());
        // The log's own signature still verifies alongside it.
        parsed.verify(&s.verifier()).unwrap();
        // A flipped byte in the cosignature fails.
        let line = cosigned.lines().last().unwrap().to_owned();
        let (name, b64) = line.strip_prefix(DASH).unwrap().split_once(' ').unwrap();
        let mut raw = B64.decode(b64).unwrap();
        raw[40] ^= 1;
        let forged = cosigned.replace(&line, &format!("{DASH}{name} {}", B64.encode(raw)));
        assert!(w.public().verify(&Note::parse(forged.as_bytes()).unwrap()).is_err());
        // Another witness's key finds no cosignature.
        let other = Cosigner::from_seed("witness.example/w2", &[8; 32]).unwrap();
        assert_eq!(other.public().verify(&parsed).unwrap(), None);
    }

    #[test]
    fn the_witness_accepts_growth_and_refuses_a_rewrite() {
        let (s, mut t) = log();
        let v = s.verifier();
        let find = |o: &str| (o == v.name).then_some(&v);
        for i in 0..5u8 {
            t.push(merkle::leaf_hash(&[i]));
        }
        let (cp5, note5) = checkpoint(&s, &mut t, 5);
        let first = AddCheckpoint { old: 0, proof: vec![], note: note5.clone() };
        assert_eq!(AddCheckpoint::parse(first.encode().as_bytes()).unwrap(), first);
        let cp = check_request(&first, find).unwrap();
        assert_eq!(cp, cp5);
        decide(&first, &cp, None).unwrap();
        let stored = Witnessed { size: 5, root: cp5.root };
        // A stale old size gets the stored size.
        assert_eq!(decide(&first, &cp, Some(&stored)), Err(Refusal::Conflict(5)));
        // Honest growth with a proof.
        for i in 5..9u8 {
            t.push(merkle::leaf_hash(&[i]));
        }
        let (cp9, note9) = checkpoint(&s, &mut t, 9);
        let proof = merkle::consistency_proof(&mut t, 5, 9).unwrap();
        let grow = AddCheckpoint { old: 5, proof: proof.clone(), note: note9 };
        assert_eq!(AddCheckpoint::parse(grow.encode().as_bytes()).unwrap(), grow);
        decide(&grow, &check_request(&grow, find).unwrap(), Some(&stored)).unwrap();
        // A rewritten log: leaf 2 changed, re-signed at size 9; no proof from the stored 5 fits.
        let mut forged = MemTree::default();
        for i in 0..9u8 {
            forged.push(merkle::leaf_hash(&[if i == 2 { 99 } else { i }]));
        }
        let (fcp, fnote) = checkpoint(&s, &mut forged, 9);
        assert_ne!(fcp.root, cp9.root);
        let fproof = merkle::consistency_proof(&mut forged, 5, 9).unwrap();
        let rewrite = AddCheckpoint { old: 5, proof: fproof, note: fnote.clone() };
        let cp = check_request(&rewrite, find).unwrap();
        assert!(matches!(decide(&rewrite, &cp, Some(&stored)), Err(Refusal::Inconsistent(_))));
        // Nor does the honest proof.
        let rewrite = AddCheckpoint { old: 5, proof, note: fnote };
        assert_eq!(decide(&rewrite, &cp, Some(&stored)).unwrap_err().status(), 422);
        // Same size, other root: 422; old > size: 400; an unknown log: 404; a bad signature: 403.
        let same = AddCheckpoint { old: 5, proof: vec![], note: checkpoint(&s, &mut forged, 5).1 };
        assert_eq!(
            decide(&same, &check_request(&same, find).unwrap(), Some(&stored))
                .unwrap_err()
                .status(),
            422
        );
        let back = AddCheckpoint { old: 9, proof: vec![], note: note5.clone() };
        assert_eq!(check_request(&back, find).unwrap_err().status(), 400);
        let other = Signer::from_seed("other.example/log", &[2; 32]).unwrap();
        let elsewhere = Checkpoint { origin: other.name.clone(), ..cp5.clone() };
        let unknown =
            AddCheckpoint { old: 0, proof: vec![], note: other.sign(&elsewhere.to_text()) };
        assert_eq!(check_request(&unknown, find).unwrap_err().status(), 404);
        let impostor = Signer::from_seed("example.com/log", &[3; 32]).unwrap();
        let bad = AddCheckpoint { old: 0, proof: vec![], note: impostor.sign(&cp5.to_text()) };
        assert_eq!(check_request(&bad, find).unwrap_err().status(), 403);
        // A non-empty proof from 0: 422.
        let p = AddCheckpoint { old: 0, proof: vec![Digest::ZERO], note: note5 };
        assert_eq!(decide(&p, &cp5, None).unwrap_err().status(), 422);
        // Malformed bodies.
        for body in ["", "old x\n\n", "old 01\n\nx", "old 1\nnot-base64!\n\nx"] {
            assert!(AddCheckpoint::parse(body.as_bytes()).is_err(), "{body:?}");
        }
    }

    #[test]
    fn the_monitored_note_keeps_the_log_signature_and_adds_the_cosignature() {
        let (s, mut t) = log();
        t.push(merkle::leaf_hash(b"x"));
        let (_, note) = checkpoint(&s, &mut t, 1);
        let text = Note::parse(note.as_bytes()).unwrap().text;
        let other = Cosigner::from_seed("other.example", &[7; 32]).unwrap();
        let submitted = add_signatures(&note, &[other.cosign(&text, 5)]);
        let w = Cosigner::from_seed("w.example", &[9; 32]).unwrap();
        let line = w.cosign(&text, 42);
        let served = monitored_note(&submitted, &s.name, &line);
        let parsed = Note::parse(served.as_bytes()).unwrap();
        parsed.verify(&s.verifier()).unwrap();
        assert_eq!(w.public().verify(&parsed).unwrap(), Some(42));
        assert_eq!(other.public().verify(&parsed).unwrap(), None, "only its own cosignature");
        assert_eq!(origin_hash("a"), Digest::of(b"a").to_hex());
    }

    #[test]
    fn policies_parse_and_count_a_quorum() {
        let (s, mut t) = log();
        t.push(merkle::leaf_hash(b"x"));
        let (_, note) = checkpoint(&s, &mut t, 1);
        let text = Note::parse(note.as_bytes()).unwrap().text;
        let ws: Vec<Cosigner> = (1..=3u8)
            .map(|i| Cosigner::from_seed(&format!("w{i}.example"), &[i; 32]).unwrap())
            .collect();
        let policy = format!(
            "# two of three\nlog {}\nwitness A {} https://a.example\nwitness B {}\nwitness C {}\n\
             group abc 2 A B C\nquorum abc\n",
            s.verifier().to_vkey(),
            ws[0].public().to_vkey(),
            ws[1].public().to_vkey(),
            ws[2].public().to_vkey()
        );
        let p = Policy::parse(&policy).unwrap();
        assert_eq!(p.logs.len(), 1);
        let one = add_signatures(&note, &[ws[0].cosign(&text, 10)]);
        let r = p.evaluate(&one).unwrap();
        assert!(!r.satisfied);
        assert_eq!(r.missing, vec!["B".to_owned(), "C".to_owned()]);
        let two = add_signatures(&one, &[ws[2].cosign(&text, 11)]);
        let r = p.evaluate(&two).unwrap();
        assert!(r.satisfied, "{r:?}");
        assert_eq!(r.cosigned_by, vec![("A".to_owned(), 10), ("C".to_owned(), 11)]);
        // all / any / none, and errors.
        let all = policy.replace("group abc 2 A B C", "group abc all A B C");
        assert!(!Policy::parse(&all).unwrap().evaluate(&two).unwrap().satisfied);
        let any = policy.replace("group abc 2 A B C", "group abc any A B C");
        assert!(Policy::parse(&any).unwrap().evaluate(&one).unwrap().satisfied);
        let none = policy.replace("quorum abc", "quorum none");
        assert!(Policy::parse(&none).unwrap().evaluate(&note).unwrap().satisfied);
        for bad in [
            policy.replace("quorum abc\n", ""),
            policy.replace("group abc 2 A B C", "group abc 4 A B C"),
            policy.replace("group abc 2 A B C", "group abc 2 A B D"),
            policy.replace("quorum abc", "quorum zzz"),
            format!("{policy}bogus line\n"),
        ] {
            assert!(Policy::parse(&bad).is_err(), "{bad}");
        }
    }
}
