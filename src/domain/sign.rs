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
//! action pad.append | artifact.publish | step.record | key.register
//! subject <JSON strings, space-separated: pad id | scope key | scope work lease step
//!          | agent old-key-id>
//! seq <block number | new version | lease fencing token | 0>
//! sha256 <hex SHA-256 of the payload | content | step record | new verifier key>
//! fence none | fence <JSON work item> <token>
//! ```
//!
//! A key rotation (`key.register` with the old key's id) is signed by the agent's current key:
//! only whoever holds it can hand the agent's name over to a new key.
//!
//! Keys are Ed25519 keys (type 0x01) in the signed-note encodings of [`super::key`]: the
//! verifier key `<agent>+<hex key id>+<base64(0x01 ‖ public key)>` and the private key
//! `PRIVATE+KEY+<agent>+<hex key id>+<base64(0x01 ‖ seed)>`, with the key id
//! `SHA-256(agent ‖ "\n" ‖ 0x01 ‖ public key)[:4]`. Verification is `verify_strict`.

use base64::Engine as _;
use ed25519_dalek::{Signer as _, SigningKey, VerifyingKey};

use super::digest::{self, Digest};
use super::key::{self, Alg, KeyError, Skey, Vkey, PRIVATE_PREFIX};

/// The first line of every signed message.
pub const TAG: &str = "locker.signed-write/v1";
/// The algorithm of an agent's key.
const ALG: Alg = Alg::Ed25519;

/// What a signed write does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    PadAppend,
    ArtifactPublish,
    StepRecord,
    /// A key rotation: the agent's current key names its successor.
    KeyRotation,
}

impl Action {
    /// The action's name in the message (the journal kind of the write).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PadAppend => super::event::kind::PAD_APPEND,
            Self::ArtifactPublish => super::event::kind::ARTIFACT_PUBLISH,
            Self::StepRecord => super::event::kind::STEP_RECORD,
            Self::KeyRotation => super::event::kind::KEY_REGISTER,
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

    /// A key rotation: `agent`'s key `old_key_id` hands over to the verifier key `new_vkey`
    /// (signed by the old key).
    pub fn key_rotation(repository: &str, agent: &str, old_key_id: &str, new_vkey: &str) -> Self {
        Self {
            repository: repository.to_owned(),
            action: Action::KeyRotation,
            subject: vec![agent.to_owned(), old_key_id.to_owned()],
            seq: 0,
            digest: Digest::of(new_vkey.as_bytes()),
            fence: None,
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
    #[error("malformed key name `{0}` (non-empty, no spaces, no `+`)")]
    BadName(String),
    #[error("a signature must be 64 bytes in standard base64")]
    SignatureFormat,
    #[error("the signature does not verify")]
    BadSignature,
}

impl SignError {
    /// A key the codec refused (`text` as given), with the messages agent keys always gave.
    fn key(e: KeyError, text: &str, private: bool) -> Self {
        match e {
            KeyError::NoPrefix
            | KeyError::Shape { .. }
            | KeyError::NotBase64
            | KeyError::Empty
            | KeyError::Length { .. } => {
                if private {
                    Self::PrivateKeyFormat
                } else {
                    Self::PublicKeyFormat
                }
            }
            KeyError::WrongAlg { .. } | KeyError::NotAPoint => Self::NotEd25519,
            KeyError::IdSyntax(id) | KeyError::IdMismatch(id) => Self::KeyIdMismatch(id),
            // An empty name was refused as a key id that does not match: `+<id>+…`.
            KeyError::BadName(name) if name.is_empty() => {
                let text = text.trim();
                let fields = text.strip_prefix(PRIVATE_PREFIX).unwrap_or(text);
                Self::KeyIdMismatch(fields.split('+').nth(1).unwrap_or_default().to_owned())
            }
            KeyError::BadName(name) => Self::BadName(name),
        }
    }
}

/// An agent's public key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicKey {
    pub name: String,
    pub key: VerifyingKey,
}

impl PublicKey {
    /// The key id as 8 lowercase hex characters.
    pub fn key_id(&self) -> String {
        digest::hex(&key::key_id(&self.name, ALG, &self.key))
    }

    /// The verifier key in signed-note form.
    pub fn vkey(&self) -> String {
        key::encode_vkey(&self.name, ALG, &self.key)
    }

    /// Parses a signed-note verifier key, checking its name, point and key id.
    pub fn parse(vkey: &str) -> Result<Self, SignError> {
        let k = Vkey::parse(vkey, ALG).map_err(|e| SignError::key(e, vkey, false))?;
        Ok(Self { name: k.name, key: k.key })
    }

    /// Verifies `signature` over `message` (strictly: small-order keys and non-canonical
    /// signatures are refused).
    pub fn verify(&self, message: &[u8], signature: &[u8; 64]) -> Result<(), SignError> {
        let sig = ed25519_dalek::Signature::from_bytes(signature);
        self.key.verify_strict(message, &sig).map_err(|_| SignError::BadSignature)
    }
}

/// An agent's private key (its `Debug` never shows the seed).
#[derive(Clone)]
pub struct PrivateKey {
    pub name: String,
    key: SigningKey,
}

impl std::fmt::Debug for PrivateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PrivateKey({}, ***)", self.name)
    }
}

impl From<Skey> for PrivateKey {
    fn from(k: Skey) -> Self {
        Self { name: k.name, key: k.key }
    }
}

impl PrivateKey {
    /// A key for `name` from a 32-byte seed.
    pub fn from_seed(name: &str, seed: [u8; 32]) -> Result<Self, SignError> {
        // A name is all that can be refused here.
        Skey::from_seed(name, ALG, &seed)
            .map(Self::from)
            .map_err(|_| SignError::BadName(name.to_owned()))
    }

    /// A new random key for `name`.
    pub fn generate(name: &str) -> Result<Self, SignError> {
        Self::from_seed(name, super::secret::random_bytes::<32>())
    }

    pub fn public(&self) -> PublicKey {
        PublicKey { name: self.name.clone(), key: self.key.verifying_key() }
    }

    /// The private key in Go's signed-note form (`PRIVATE+KEY+…`).
    pub fn skey(&self) -> String {
        key::encode_skey(&self.name, ALG, &self.key)
    }

    /// Parses a private key line, checking its name and key id.
    pub fn parse(skey: &str) -> Result<Self, SignError> {
        Skey::parse(skey, ALG).map(Self::from).map_err(|e| SignError::key(e, skey, true))
    }

    /// Signs `message`.
    pub fn sign(&self, message: &[u8]) -> [u8; 64] {
        self.key.sign(message).to_bytes()
    }
}

fn b64() -> base64::engine::GeneralPurpose {
    base64::engine::general_purpose::STANDARD
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
        PrivateKey::from_seed("worker-a", [7; 32]).unwrap()
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
        let other = PrivateKey::from_seed("worker-a", [8; 32]).unwrap().public();
        assert_eq!(other.verify(&msg, &sig), Err(SignError::BadSignature));
        assert_eq!(decode_signature(&encode_signature(&sig)).unwrap(), sig);
        assert_eq!(decode_signature("AAAA"), Err(SignError::SignatureFormat));
        assert_eq!(decode_signature("not base64!"), Err(SignError::SignatureFormat));
    }

    #[test]
    fn private_keys_never_show_in_debug() {
        let k = key();
        let skey = k.skey();
        assert!(skey.starts_with("PRIVATE+KEY+worker-a+"), "{skey}");
        assert!(!format!("{k:?}").contains(&skey[30..]));
        assert_eq!(PrivateKey::parse(&format!("{skey}\n")).unwrap().public(), k.public());
    }

    #[test]
    fn agent_keys_are_checked_like_the_log_key_point_and_name() {
        let b64 = |alg: u8, key: &[u8]| b64().encode([&[alg], key].concat());
        let id = |name: &str, key: &[u8]| {
            digest::hex(&Digest::of_parts(&[name.as_bytes(), b"\n", &[ALG.byte()], key]).0[..4])
        };
        // 32 bytes that are not an Ed25519 point: refused when read, not when first used.
        let off =
            (0u8..=255).map(|b| [b; 32]).find(|k| VerifyingKey::from_bytes(k).is_err()).unwrap();
        let vkey = format!("worker-a+{}+{}", id("worker-a", &off), b64(1, &off));
        assert_eq!(PublicKey::parse(&vkey), Err(SignError::NotEd25519));
        // A name that is not a key name (whitespace, control characters, over 256 bytes).
        let k = key();
        let pk = k.public().key.to_bytes();
        for name in ["worker a", "worker\ta", "worker\u{7}", &"w".repeat(257)] {
            let vkey = format!("{name}+{}+{}", id(name, &pk), b64(1, &pk));
            assert_eq!(PublicKey::parse(&vkey), Err(SignError::BadName(name.into())));
            let seed = k.skey().rsplit('+').next().unwrap().to_owned();
            let skey = format!("PRIVATE+KEY+{name}+{}+{seed}", id(name, &pk));
            assert_eq!(PrivateKey::parse(&skey).unwrap_err(), SignError::BadName(name.into()));
            assert_eq!(
                PrivateKey::from_seed(name, [7; 32]).unwrap_err(),
                SignError::BadName(name.into())
            );
        }
        // An empty name is still refused as a key id that does not match, as it always was.
        let vkey = format!("+{}+{}", id("", &pk), b64(1, &pk));
        assert_eq!(PublicKey::parse(&vkey), Err(SignError::KeyIdMismatch(id("", &pk))));
    }

    #[test]
    fn the_go_signed_note_vector_signs_and_verifies() {
        // c2sp.org/signed-note / Go sumdb/note: PeterNeumann's key (its encodings: domain::key).
        let skey = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";
        let k = PrivateKey::parse(skey).unwrap();
        let text = "If you think cryptography is the answer to your problem,\n\
                    then you don't know what your problem is.\n";
        let line = "x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=";
        let raw = b64().decode(line).unwrap();
        let sig: [u8; 64] = raw[4..].try_into().unwrap();
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
