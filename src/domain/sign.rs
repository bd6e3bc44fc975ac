//! Agent signatures on writes: the canonical message an agent signs, its keys in the C2SP
//! signed-note formats, and Ed25519 signing and strict verification. No I/O.
//!
//! An agent signs what its write changes, so that the journal authenticates the writer and not
//! only the order of writes. The message is text, one field a line, every free-form value a JSON
//! string (so no value can forge a line), opened by a domain-separation line:
//!
//! ```text
//! locker.signed-write/v1
//! repository <repository id>
//! action pad.append | artifact.publish | step.record
//! subject <JSON strings, space-separated: pad id | scope key | scope work lease step>
//! seq <block number | new version | lease fencing token>
//! sha256 <hex SHA-256 of the payload | content | step record>
//! fence none | fence <JSON work item> <token>
//! ```
//!
//! Keys use the signed-note encodings (c2sp.org/signed-note, Go's `sumdb/note`): the verifier
//! key `<agent>+<hex key id>+<base64(0x01 ‖ public key)>` and the private key
//! `PRIVATE+KEY+<agent>+<hex key id>+<base64(0x01 ‖ seed)>`, with the key id
//! `SHA-256(agent ‖ "\n" ‖ 0x01 ‖ public key)[:4]`. Verification is `verify_strict`.

use base64::Engine as _;
use ed25519_dalek::{Signer as _, SigningKey, VerifyingKey};

use super::digest::{self, Digest};

/// The first line of every signed message.
pub const TAG: &str = "locker.signed-write/v1";
/// The signed-note signature type of an Ed25519 key.
pub const ED25519: u8 = 0x01;
/// The prefix of a private key line.
pub const PRIVATE_PREFIX: &str = "PRIVATE+KEY+";

/// What a signed write does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    PadAppend,
    ArtifactPublish,
    StepRecord,
}

impl Action {
    /// The action's name in the message (the journal kind of the write).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PadAppend => super::event::kind::PAD_APPEND,
            Self::ArtifactPublish => super::event::kind::ARTIFACT_PUBLISH,
            Self::StepRecord => super::event::kind::STEP_RECORD,
        }
    }
}

/// Everything a signature covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    /// The repository's id (its `repo.init` entry's `repository_id`).
    pub repository: String,
    pub action: Action,
    /// The pad id; the scope and key; or the scope, work item, lease id and step name.
    pub subject: Vec<String>,
    /// The block number; the version written; or the lease's fencing token.
    pub seq: u64,
    /// The SHA-256 of the payload, the content, or the step record ([`step_digest`]).
    pub digest: Digest,
    /// The work item and fencing token the write is made under, where there is one.
    pub fence: Option<(String, u64)>,
}

fn quoted(s: &str) -> String {
    serde_json::to_string(s).expect("a string always serialises")
}

impl Statement {
    /// A pad append: block `seq` of `pad_id` with this payload.
    pub fn pad_append(repository: &str, pad_id: &str, seq: u64, payload: &Digest) -> Self {
        Self {
            repository: repository.to_owned(),
            action: Action::PadAppend,
            subject: vec![pad_id.to_owned()],
            seq,
            digest: *payload,
            fence: None,
        }
    }

    /// An artifact publish: `version` of `key` in `scope` with this content.
    pub fn artifact_publish(
        repository: &str,
        scope: &str,
        key: &str,
        version: u64,
        content: &Digest,
        fence: Option<(&str, u64)>,
    ) -> Self {
        Self {
            repository: repository.to_owned(),
            action: Action::ArtifactPublish,
            subject: vec![scope.to_owned(), key.to_owned()],
            seq: version,
            digest: *content,
            fence: fence.map(|(w, t)| (w.to_owned(), t)),
        }
    }

    /// A step logged under lease `lease_id` (fencing token `fence`) of `work`.
    #[allow(clippy::too_many_arguments)]
    pub fn step_record(
        repository: &str,
        scope: &str,
        work: &str,
        lease_id: &str,
        step: &str,
        fence: u64,
        record: &Digest,
    ) -> Self {
        Self {
            repository: repository.to_owned(),
            action: Action::StepRecord,
            subject: vec![scope.to_owned(), work.to_owned(), lease_id.to_owned(), step.to_owned()],
            seq: fence,
            digest: *record,
            fence: Some((work.to_owned(), fence)),
        }
    }

    /// The exact bytes signed.
    pub fn message(&self) -> Vec<u8> {
        let subject: Vec<String> = self.subject.iter().map(|s| quoted(s)).collect();
        let fence = match &self.fence {
            None => "none".to_owned(),
            Some((w, t)) => format!("{} {t}", quoted(w)),
        };
        format!(
            "{TAG}\nrepository {}\naction {}\nsubject {}\nseq {}\nsha256 {}\nfence {fence}\n",
            quoted(&self.repository),
            self.action.as_str(),
            subject.join(" "),
            self.seq,
            self.digest,
        )
        .into_bytes()
    }
}

/// The digest a step signature covers: the SHA-256 of the JSON array
/// `[sha256(planned), sha256(executed), gate]`, each text's digest as lowercase hex (`null`
/// where absent), so that it can be re-checked from the journal, which keeps only the texts'
/// digests.
pub fn step_digest(planned: Option<&str>, executed: Option<&str>, gate: &str) -> Digest {
    let text = |t: Option<&str>| t.map(|t| Digest::of(t.as_bytes()).to_hex());
    step_digest_of_hashes(text(planned).as_deref(), text(executed).as_deref(), gate)
}

/// [`step_digest`] from the texts' digests (lowercase hex).
pub fn step_digest_of_hashes(planned: Option<&str>, executed: Option<&str>, gate: &str) -> Digest {
    let v = serde_json::json!([planned, executed, gate]);
    Digest::of(&serde_json::to_vec(&v).expect("JSON always serialises"))
}

/// A key or signature that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignError {
    #[error("not a private key: expected PRIVATE+KEY+<agent>+<key id>+<base64 key>")]
    PrivateKeyFormat,
    #[error("not a verifier key: expected <agent>+<key id>+<base64 key>")]
    PublicKeyFormat,
    #[error("the key id {0} does not match the key")]
    KeyIdMismatch(String),
    #[error("not an Ed25519 key")]
    NotEd25519,
    #[error("a signature must be 64 bytes in standard base64")]
    SignatureFormat,
    #[error("the signature does not verify")]
    BadSignature,
}

/// The signed-note key id of an Ed25519 key named `name`.
pub fn key_id(name: &str, public: &[u8; 32]) -> [u8; 4] {
    let d = Digest::of_parts(&[name.as_bytes(), b"\n", &[ED25519], public]);
    [d.0[0], d.0[1], d.0[2], d.0[3]]
}

fn b64() -> base64::engine::GeneralPurpose {
    base64::engine::general_purpose::STANDARD
}

/// An agent's public key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicKey {
    pub name: String,
    pub key: [u8; 32],
}

impl PublicKey {
    /// The key id as 8 lowercase hex characters.
    pub fn key_id(&self) -> String {
        digest::hex(&key_id(&self.name, &self.key))
    }

    /// The verifier key in signed-note form.
    pub fn vkey(&self) -> String {
        let mut bytes = vec![ED25519];
        bytes.extend_from_slice(&self.key);
        format!("{}+{}+{}", self.name, self.key_id(), b64().encode(bytes))
    }

    /// Parses a signed-note verifier key, checking its key id.
    pub fn parse(vkey: &str) -> Result<Self, SignError> {
        let mut parts = vkey.trim().splitn(3, '+');
        let (Some(name), Some(id), Some(key)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(SignError::PublicKeyFormat);
        };
        let bytes = b64().decode(key).map_err(|_| SignError::PublicKeyFormat)?;
        let Some((&ty, key)) = bytes.split_first() else {
            return Err(SignError::PublicKeyFormat);
        };
        if ty != ED25519 {
            return Err(SignError::NotEd25519);
        }
        let key: [u8; 32] = key.try_into().map_err(|_| SignError::PublicKeyFormat)?;
        let pk = Self { name: name.to_owned(), key };
        if name.is_empty() || pk.key_id() != id {
            return Err(SignError::KeyIdMismatch(id.to_owned()));
        }
        Ok(pk)
    }

    /// Verifies `signature` over `message` (strictly: small-order keys and non-canonical
    /// signatures are refused).
    pub fn verify(&self, message: &[u8], signature: &[u8; 64]) -> Result<(), SignError> {
        let vk = VerifyingKey::from_bytes(&self.key).map_err(|_| SignError::NotEd25519)?;
        let sig = ed25519_dalek::Signature::from_bytes(signature);
        vk.verify_strict(message, &sig).map_err(|_| SignError::BadSignature)
    }
}

/// An agent's private key (its `Debug` never shows the seed).
#[derive(Clone)]
pub struct PrivateKey {
    pub name: String,
    seed: [u8; 32],
}

impl std::fmt::Debug for PrivateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PrivateKey({}, ***)", self.name)
    }
}

impl PrivateKey {
    /// A key for `name` from a 32-byte seed.
    pub fn from_seed(name: &str, seed: [u8; 32]) -> Self {
        Self { name: name.to_owned(), seed }
    }

    /// A new random key for `name`.
    pub fn generate(name: &str) -> Self {
        Self::from_seed(name, super::secret::random_bytes::<32>())
    }

    pub fn public(&self) -> PublicKey {
        let key = SigningKey::from_bytes(&self.seed).verifying_key().to_bytes();
        PublicKey { name: self.name.clone(), key }
    }

    /// The private key in Go's signed-note form (`PRIVATE+KEY+…`).
    pub fn skey(&self) -> String {
        let mut bytes = vec![ED25519];
        bytes.extend_from_slice(&self.seed);
        format!("{PRIVATE_PREFIX}{}+{}+{}", self.name, self.public().key_id(), b64().encode(bytes))
    }

    /// Parses a private key line, checking its key id.
    pub fn parse(skey: &str) -> Result<Self, SignError> {
        let rest = skey.trim().strip_prefix(PRIVATE_PREFIX).ok_or(SignError::PrivateKeyFormat)?;
        let mut parts = rest.splitn(3, '+');
        let (Some(name), Some(id), Some(key)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(SignError::PrivateKeyFormat);
        };
        let bytes = b64().decode(key).map_err(|_| SignError::PrivateKeyFormat)?;
        let Some((&ty, seed)) = bytes.split_first() else {
            return Err(SignError::PrivateKeyFormat);
        };
        if ty != ED25519 {
            return Err(SignError::NotEd25519);
        }
        let seed: [u8; 32] = seed.try_into().map_err(|_| SignError::PrivateKeyFormat)?;
        let k = Self::from_seed(name, seed);
        if name.is_empty() || k.public().key_id() != id {
            return Err(SignError::KeyIdMismatch(id.to_owned()));
        }
        Ok(k)
    }

    /// Signs `message`.
    pub fn sign(&self, message: &[u8]) -> [u8; 64] {
        SigningKey::from_bytes(&self.seed).sign(message).to_bytes()
    }
}

/// A signature in standard base64.
pub fn encode_signature(sig: &[u8; 64]) -> String {
    b64().encode(sig)
}

/// Parses a base64 signature.
pub fn decode_signature(s: &str) -> Result<[u8; 64], SignError> {
    let bytes = b64().decode(s.trim()).map_err(|_| SignError::SignatureFormat)?;
    bytes.try_into().map_err(|_| SignError::SignatureFormat)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> PrivateKey {
        PrivateKey::from_seed("worker-a", [7; 32])
    }

    fn statement() -> Statement {
        Statement::pad_append("0123abcd", "pad-1", 3, &Digest::of(b"payload"))
    }

    #[test]
    fn the_message_is_line_framed_and_domain_separated() {
        let m = String::from_utf8(statement().message()).unwrap();
        assert_eq!(
            m,
            format!(
                "locker.signed-write/v1\nrepository \"0123abcd\"\naction pad.append\n\
                 subject \"pad-1\"\nseq 3\nsha256 {}\nfence none\n",
                Digest::of(b"payload")
            )
        );
        let a = Statement::artifact_publish("r", "s", "k\nseq 9", 2, &Digest::ZERO, Some(("w", 4)));
        let m = String::from_utf8(a.message()).unwrap();
        assert!(m.contains("subject \"s\" \"k\\nseq 9\"\nseq 2\n"), "{m}");
        assert!(m.ends_with("fence \"w\" 4\n"), "{m}");
        // Every field changes the message.
        let base = statement().message();
        let mut variants = vec![
            Statement { repository: "other".into(), ..statement() },
            Statement { action: Action::ArtifactPublish, ..statement() },
            Statement { subject: vec!["pad-2".into()], ..statement() },
            Statement { seq: 4, ..statement() },
            Statement { digest: Digest::of(b"other"), ..statement() },
            Statement { fence: Some(("w".into(), 1)), ..statement() },
        ];
        variants.push(Statement::step_record("0123abcd", "s", "w", "l", "st", 3, &Digest::ZERO));
        for v in variants {
            assert_ne!(v.message(), base, "{v:?}");
        }
    }

    #[test]
    fn sign_and_verify_and_a_flipped_byte_fails() {
        let k = key();
        let msg = statement().message();
        let sig = k.sign(&msg);
        let pk = k.public();
        pk.verify(&msg, &sig).unwrap();
        for i in [0, 31, 63] {
            let mut bad = sig;
            bad[i] ^= 1;
            assert_eq!(pk.verify(&msg, &bad), Err(SignError::BadSignature));
        }
        for i in [0, msg.len() / 2, msg.len() - 1] {
            let mut bad = msg.clone();
            bad[i] ^= 1;
            assert_eq!(pk.verify(&bad, &sig), Err(SignError::BadSignature));
        }
        let other = PrivateKey::from_seed("worker-a", [8; 32]).public();
        assert_eq!(other.verify(&msg, &sig), Err(SignError::BadSignature));
        assert_eq!(decode_signature(&encode_signature(&sig)).unwrap(), sig);
        assert_eq!(decode_signature("AAAA"), Err(SignError::SignatureFormat));
        assert_eq!(decode_signature("not base64!"), Err(SignError::SignatureFormat));
    }

    #[test]
    fn keys_round_trip_in_signed_note_form() {
        let k = key();
        let pk = k.public();
        let vkey = pk.vkey();
        assert!(vkey.starts_with(&format!("worker-a+{}+A", pk.key_id())), "{vkey}");
        assert_eq!(PublicKey::parse(&vkey).unwrap(), pk);
        let skey = k.skey();
        assert!(skey.starts_with("PRIVATE+KEY+worker-a+"), "{skey}");
        let back = PrivateKey::parse(&format!("{skey}\n")).unwrap();
        assert_eq!(back.public(), pk);
        assert!(!format!("{k:?}").contains(&skey[30..]));
        // A wrong key id, type or shape is refused.
        let wrong_id = vkey.replacen(&pk.key_id(), "00000000", 1);
        assert!(matches!(PublicKey::parse(&wrong_id), Err(SignError::KeyIdMismatch(_))));
        assert!(PublicKey::parse("worker-a+00").is_err());
        assert!(PrivateKey::parse(&vkey).is_err());
        let renamed = skey.replacen("worker-a", "worker-b", 1);
        assert!(matches!(PrivateKey::parse(&renamed), Err(SignError::KeyIdMismatch(_))));
    }

    #[test]
    fn the_go_signed_note_vector_gives_its_key_id() {
        // c2sp.org/signed-note / Go sumdb/note: PeterNeumann's key (id c74f20a3).
        let skey = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";
        let vkey = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";
        let k = PrivateKey::parse(skey).unwrap();
        assert_eq!(k.public().vkey(), vkey);
        assert_eq!(k.skey(), skey);
        let text = "If you think cryptography is the answer to your problem,\n\
                    then you don't know what your problem is.\n";
        let line = "x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=";
        let raw = b64().decode(line).unwrap();
        let sig: [u8; 64] = raw[4..].try_into().unwrap();
        assert_eq!(&raw[..4], &key_id("PeterNeumann", &k.public().key));
        k.public().verify(text.as_bytes(), &sig).unwrap();
        assert_eq!(k.sign(text.as_bytes()), sig);
    }

    #[test]
    fn step_digests_cover_each_field() {
        let d = step_digest(Some("p"), None, "agent");
        let p = Digest::of(b"p").to_hex();
        assert_eq!(d, Digest::of(format!(r#"["{p}",null,"agent"]"#).as_bytes()));
        assert_eq!(d, step_digest_of_hashes(Some(&p), None, "agent"));
        assert_ne!(d, step_digest(None, Some("p"), "agent"));
        assert_ne!(d, step_digest(Some("p"), None, "human"));
    }
}
