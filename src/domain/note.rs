//! C2SP signed notes (c2sp.org/signed-note@v1.0.0) with Ed25519 keys, and the checkpoints
//! they carry (c2sp.org/tlog-checkpoint@v1.0.0).
//!
//! ```text
//! <text, ending in a newline>
//!
//! — <key name> <base64(4-byte key ID ‖ signature)>
//! ```
//!
//! The log's key is an Ed25519 key (type 0x01) in the signed-note key encodings of
//! [`super::key`].

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use ed25519_dalek::{Signature, Signer as _, SigningKey, VerifyingKey};

use super::digest::{hex, Digest};
use super::key::{self, valid_name, Alg, KeyError, Skey, Vkey};

/// The algorithm of the log's key.
const ALG: Alg = Alg::Ed25519;
/// The em dash that starts a signature line.
const DASH: &str = "\u{2014} ";
/// Largest note accepted (text plus signatures).
pub const MAX_NOTE_BYTES: usize = 64 * 1024;
/// Most signature lines accepted on one note (the spec asks verifiers to accept at least 16).
pub const MAX_SIGNATURES: usize = 100;

/// Why a key, note or checkpoint was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoteError {
    #[error("malformed verifier key: {0}")]
    BadVerifierKey(String),
    #[error("malformed signing key: {0}")]
    BadSigningKey(String),
    #[error("malformed key name `{0}` (non-empty, no spaces, no `+`)")]
    BadName(String),
    #[error("malformed note: {0}")]
    Malformed(String),
    #[error("the note has no signature by {0}")]
    Unsigned(String),
    #[error("the signature by {0} does not verify")]
    BadSignature(String),
    #[error("malformed checkpoint: {0}")]
    BadCheckpoint(String),
}

impl NoteError {
    /// A verifier key the codec refused.
    pub fn vkey(e: KeyError) -> Self {
        match e {
            KeyError::BadName(name) => Self::BadName(name),
            e => Self::BadVerifierKey(e.to_string()),
        }
    }

    /// A signing key the codec refused.
    pub fn skey(e: KeyError) -> Self {
        match e {
            KeyError::BadName(name) => Self::BadName(name),
            e => Self::BadSigningKey(e.to_string()),
        }
    }
}

/// An Ed25519 verifier key with its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verifier {
    pub name: String,
    pub id: [u8; 4],
    pub key: VerifyingKey,
}

impl From<Vkey> for Verifier {
    fn from(k: Vkey) -> Self {
        Self { name: k.name, id: k.id, key: k.key }
    }
}

impl Verifier {
    pub fn new(name: &str, key: VerifyingKey) -> Result<Self, NoteError> {
        Vkey::new(name, ALG, key).map(Self::from).map_err(NoteError::vkey)
    }

    /// Parses `name+hexid+base64(0x01 ‖ key)`.
    pub fn parse(vkey: &str) -> Result<Self, NoteError> {
        Vkey::parse(vkey, ALG).map(Self::from).map_err(NoteError::vkey)
    }

    /// `name+hexid+base64(0x01 ‖ key)`.
    pub fn to_vkey(&self) -> String {
        key::encode_vkey(&self.name, ALG, &self.key)
    }

    /// The key ID in hex.
    pub fn id_hex(&self) -> String {
        hex(&self.id)
    }
}

/// An Ed25519 signing key with its name.
#[derive(Clone)]
pub struct Signer {
    pub name: String,
    key: SigningKey,
}

impl std::fmt::Debug for Signer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Signer").field("name", &self.name).finish_non_exhaustive()
    }
}

impl From<Skey> for Signer {
    fn from(k: Skey) -> Self {
        Self { name: k.name, key: k.key }
    }
}

impl Signer {
    /// A key from its 32-byte seed.
    pub fn from_seed(name: &str, seed: &[u8; 32]) -> Result<Self, NoteError> {
        Skey::from_seed(name, ALG, seed).map(Self::from).map_err(NoteError::skey)
    }

    /// A new random key.
    pub fn generate(name: &str) -> Result<Self, NoteError> {
        Skey::generate(name, ALG).map(Self::from).map_err(NoteError::skey)
    }

    /// The same key under another name (the key ID changes with it).
    pub fn renamed(&self, name: &str) -> Result<Self, NoteError> {
        Self::from_seed(name, &self.key.to_bytes())
    }

    /// Parses `PRIVATE+KEY+name+hexid+base64(0x01 ‖ seed)`.
    pub fn parse(skey: &str) -> Result<Self, NoteError> {
        Skey::parse(skey, ALG).map(Self::from).map_err(NoteError::skey)
    }

    /// `PRIVATE+KEY+name+hexid+base64(0x01 ‖ seed)`.
    pub fn to_skey(&self) -> String {
        key::encode_skey(&self.name, ALG, &self.key)
    }

    /// The matching verifier key.
    pub fn verifier(&self) -> Verifier {
        let key = self.key.verifying_key();
        Verifier { name: self.name.clone(), id: key::key_id(&self.name, ALG, &key), key }
    }

    /// One signature line (without its newline) over `text`.
    pub fn signature_line(&self, text: &str) -> String {
        let sig = self.key.sign(text.as_bytes());
        let mut raw = self.verifier().id.to_vec();
        raw.extend_from_slice(&sig.to_bytes());
        format!("{DASH}{} {}", self.name, B64.encode(raw))
    }

    /// `text` (ending in a newline) as a signed note.
    pub fn sign(&self, text: &str) -> String {
        format!("{text}\n{}\n", self.signature_line(text))
    }
}

/// One signature line of a note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoteSignature {
    pub name: String,
    pub id: [u8; 4],
    /// The signature bytes after the key ID.
    pub sig: Vec<u8>,
}

/// A parsed (not yet verified) signed note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// The signed text, ending in a newline.
    pub text: String,
    pub signatures: Vec<NoteSignature>,
}

impl Note {
    /// Parses a signed note: the text is everything up to the last blank line.
    pub fn parse(bytes: &[u8]) -> Result<Self, NoteError> {
        let bad = |why: &str| NoteError::Malformed(why.to_owned());
        if bytes.len() > MAX_NOTE_BYTES {
            return Err(bad("too large"));
        }
        let s = std::str::from_utf8(bytes).map_err(|_| bad("not UTF-8"))?;
        if s.chars().any(|c| c.is_control() && c != '\n') {
            return Err(bad("control characters other than newline"));
        }
        if !s.ends_with('\n') {
            return Err(bad("it does not end in a newline"));
        }
        let split = s.rfind("\n\n").ok_or_else(|| bad("no blank line before the signatures"))?;
        let text = &s[..=split];
        let mut signatures = Vec::new();
        for line in s[split + 2..].lines() {
            let rest = line.strip_prefix(DASH).ok_or_else(|| bad("a malformed signature line"))?;
            let (name, b64) = rest.split_once(' ').ok_or_else(|| bad("a malformed signature"))?;
            if !valid_name(name) {
                return Err(bad("a signature line with a bad key name"));
            }
            let raw = B64.decode(b64).map_err(|_| bad("a signature is not base64"))?;
            if raw.len() < 5 {
                return Err(bad("a signature is too short"));
            }
            signatures.push(NoteSignature {
                name: name.to_owned(),
                id: [raw[0], raw[1], raw[2], raw[3]],
                sig: raw[4..].to_vec(),
            });
        }
        if signatures.is_empty() {
            return Err(bad("no signatures"));
        }
        if signatures.len() > MAX_SIGNATURES {
            return Err(bad("too many signatures"));
        }
        Ok(Self { text: text.to_owned(), signatures })
    }

    /// Checks the signature by `v`: it must be present and verify (strictly). Signatures by
    /// other keys are ignored.
    pub fn verify(&self, v: &Verifier) -> Result<(), NoteError> {
        let mut found = false;
        for s in self.signatures.iter().filter(|s| s.name == v.name && s.id == v.id) {
            found = true;
            let sig: [u8; 64] =
                s.sig.as_slice().try_into().map_err(|_| NoteError::BadSignature(v.name.clone()))?;
            v.key
                .verify_strict(self.text.as_bytes(), &Signature::from_bytes(&sig))
                .map_err(|_| NoteError::BadSignature(v.name.clone()))?;
        }
        if found {
            Ok(())
        } else {
            Err(NoteError::Unsigned(v.name.clone()))
        }
    }
}

/// A checkpoint: a log's origin, tree size and root hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpoint {
    pub origin: String,
    pub size: u64,
    pub root: Digest,
}

impl Checkpoint {
    /// The note text: three lines.
    pub fn to_text(&self) -> String {
        format!("{}\n{}\n{}\n", self.origin, self.size, B64.encode(self.root.0))
    }

    /// Parses a checkpoint's note text (extension lines are ignored).
    pub fn parse_text(text: &str) -> Result<Self, NoteError> {
        let bad = |why: &str| NoteError::BadCheckpoint(why.to_owned());
        let mut lines = text.split('\n');
        let origin = lines.next().unwrap_or_default();
        if !valid_name(origin) {
            return Err(bad("the origin line is not a valid name"));
        }
        let size = lines.next().ok_or_else(|| bad("no size line"))?;
        if size.is_empty() || (size.len() > 1 && size.starts_with('0')) {
            return Err(bad("the size is not a decimal number without leading zeros"));
        }
        let size: u64 = size.parse().map_err(|_| bad("the size is not a decimal number"))?;
        let root = lines.next().ok_or_else(|| bad("no root hash line"))?;
        let root = B64.decode(root).map_err(|_| bad("the root hash is not base64"))?;
        let root: [u8; 32] = root.try_into().map_err(|_| bad("the root hash is not 32 bytes"))?;
        Ok(Self { origin: origin.to_owned(), size, root: Digest(root) })
    }
}

/// A checkpoint and its note, checked against a verifier key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedCheckpoint {
    pub checkpoint: Checkpoint,
    /// The whole signed note, as given.
    pub note: String,
}

impl SignedCheckpoint {
    /// Parses `note` and verifies it against `v`, whose name must be the origin.
    pub fn verify(note: &str, v: &Verifier) -> Result<Self, NoteError> {
        let parsed = Note::parse(note.as_bytes())?;
        let checkpoint = Checkpoint::parse_text(&parsed.text)?;
        if checkpoint.origin != v.name {
            return Err(NoteError::BadCheckpoint(format!(
                "its origin `{}` is not the key's name `{}`",
                checkpoint.origin, v.name
            )));
        }
        parsed.verify(v)?;
        Ok(Self { checkpoint, note: note.to_owned() })
    }

    /// Parses `note` without verifying any signature (to show what a bad note claims).
    pub fn parse_unverified(note: &str) -> Result<Checkpoint, NoteError> {
        Checkpoint::parse_text(&Note::parse(note.as_bytes())?.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_sumdb_known_answer_note() {
        let vkey = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";
        let skey = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";
        let text = "If you think cryptography is the answer to your problem,\n\
                    then you don't know what your problem is.\n";
        let line = "\u{2014} PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=";
        // The keys themselves: domain::key's tests.
        let v = Verifier::parse(vkey).unwrap();
        let s = Signer::parse(skey).unwrap();
        assert_eq!(s.verifier(), v);
        // Ed25519 is deterministic: the same line.
        assert_eq!(s.signature_line(text), line);
        let note = format!("{text}\n{line}\n");
        Note::parse(note.as_bytes()).unwrap().verify(&v).unwrap();
        // One flipped character in the text fails.
        let bad = note.replacen("cryptography", "cryptographY", 1);
        assert_eq!(
            Note::parse(bad.as_bytes()).unwrap().verify(&v),
            Err(NoteError::BadSignature("PeterNeumann".into()))
        );
    }

    #[test]
    fn c2sp_known_answer_note() {
        let v = Verifier::parse(
            "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k",
        )
        .unwrap();
        let note = "This is an example message.\n\n\u{2014} example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n";
        Note::parse(note.as_bytes()).unwrap().verify(&v).unwrap();
        let other = Signer::generate("example.com/foo").unwrap().verifier();
        assert_eq!(
            Note::parse(note.as_bytes()).unwrap().verify(&other),
            Err(NoteError::Unsigned("example.com/foo".into()))
        );
    }

    #[test]
    fn checkpoints_sign_parse_and_refuse_forgeries() {
        let s = Signer::generate("locker/abc").unwrap();
        let c = Checkpoint { origin: "locker/abc".into(), size: 7, root: Digest::of(b"r") };
        let note = s.sign(&c.to_text());
        let sc = SignedCheckpoint::verify(&note, &s.verifier()).unwrap();
        assert_eq!(sc.checkpoint, c);
        // Another key under the same name: unsigned by the trusted key.
        let forger = Signer::generate("locker/abc").unwrap();
        assert!(SignedCheckpoint::verify(&forger.sign(&c.to_text()), &s.verifier()).is_err());
        // A changed size with the old signature.
        let forged = note.replacen("\n7\n", "\n8\n", 1);
        assert!(SignedCheckpoint::verify(&forged, &s.verifier()).is_err());
        assert!(Checkpoint::parse_text("o\n07\nAAAA\n").is_err());
        assert!(Checkpoint::parse_text("o\n1\n").is_err());
    }

    #[test]
    fn a_key_id_in_upper_case_is_refused_as_agent_and_witness_keys_always_refused_it() {
        let vkey = "PeterNeumann+C74F20A3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";
        let skey = "PRIVATE+KEY+PeterNeumann+C74F20A3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";
        let why = "the key ID does not match the name and key".to_owned();
        assert_eq!(Verifier::parse(vkey), Err(NoteError::BadVerifierKey(why.clone())));
        assert_eq!(Signer::parse(skey).unwrap_err(), NoteError::BadSigningKey(why));
        Verifier::parse(&vkey.replacen("C74F20A3", "c74f20a3", 1)).unwrap();
        Signer::parse(&skey.replacen("C74F20A3", "c74f20a3", 1)).unwrap();
    }
}
