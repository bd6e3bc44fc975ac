//! The C2SP signed-note key encodings (c2sp.org/signed-note, Go's `sumdb/note`): the one codec
//! of every key locker reads or writes — the log's key ([`super::note`]), agent keys
//! ([`super::sign`]) and witness keys ([`super::witness`]).
//!
//! ```text
//! verifier key   <name>+<hex key ID>+<base64(alg ‖ public key)>
//! signing key    PRIVATE+KEY+<name>+<hex key ID>+<base64(alg ‖ seed)>
//! key ID         SHA-256(name ‖ "\n" ‖ alg ‖ public key)[:4]
//! ```
//!
//! Every key is an Ed25519 key; its algorithm byte ([`Alg`]) says what it signs. Whoever reads
//! a key names the algorithm it expects, and a key is read the same strict way for every use,
//! in this order: the shape, base64, the algorithm byte, 32 bytes, a valid Ed25519 point
//! (verifier keys), a valid name ([`valid_name`]), and a key ID of 8 hex digits that is the
//! lowercase hex of the computed one. Leading and trailing whitespace is ignored.

use std::fmt;

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use ed25519_dalek::{SigningKey, VerifyingKey};

use super::digest::{hex, Digest};

/// The prefix of a signing key.
pub const PRIVATE_PREFIX: &str = "PRIVATE+KEY+";
/// The longest key name, in bytes.
pub const MAX_NAME_BYTES: usize = 256;

/// The signature type of a key: the byte before the key in its encoding and its key ID.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Alg {
    /// 0x01: Ed25519 signatures (signed notes and checkpoints, agents' signed writes).
    Ed25519,
    /// 0x04: timestamped Ed25519 cosignatures (c2sp.org/tlog-cosignature).
    CosignatureV1,
}

impl Alg {
    /// The algorithm byte.
    pub const fn byte(self) -> u8 {
        match self {
            Self::Ed25519 => 0x01,
            Self::CosignatureV1 => 0x04,
        }
    }
}

/// Why a key was refused. Its message is the one the log's key and witness keys give.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyError {
    /// A signing key without `PRIVATE+KEY+`.
    NoPrefix,
    /// Not three `+`-separated fields (after `PRIVATE+KEY+` for a signing key).
    Shape {
        private: bool,
    },
    NotBase64,
    /// Nothing after base64 decoding, not even the algorithm byte.
    Empty,
    /// Another algorithm byte than the one expected.
    WrongAlg {
        expected: Alg,
    },
    /// A public key or seed of another length than 32 bytes.
    Length {
        private: bool,
    },
    /// A public key that is not an Ed25519 point.
    NotAPoint,
    /// A name [`valid_name`] refuses.
    BadName(String),
    /// A key ID (as given) that is not 8 hex digits.
    IdSyntax(String),
    /// A key ID (as given) other than the lowercase hex of the computed one.
    IdMismatch(String),
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let private = |p: bool, yes: &'static str, no: &'static str| if p { yes } else { no };
        f.write_str(match self {
            Self::NoPrefix => "no PRIVATE+KEY+",
            Self::Shape { private: p } => {
                private(*p, "expected PRIVATE+KEY+name+keyid+key", "expected name+keyid+key")
            }
            Self::NotBase64 => "the key is not base64",
            Self::Empty => "the key is empty",
            Self::WrongAlg { expected: Alg::Ed25519 } => "not an Ed25519 key (type 0x01)",
            Self::WrongAlg { expected: Alg::CosignatureV1 } => "not a cosignature key (type 0x04)",
            Self::Length { private: p } => {
                private(*p, "an Ed25519 seed has 32 bytes", "an Ed25519 key has 32 bytes")
            }
            Self::NotAPoint => "not a valid Ed25519 point",
            Self::BadName(name) => {
                return write!(f, "malformed key name `{name}` (non-empty, no spaces, no `+`)")
            }
            Self::IdSyntax(_) => "the key ID is not 8 hex digits",
            Self::IdMismatch(_) => "the key ID does not match the name and key",
        })
    }
}

impl std::error::Error for KeyError {}

/// Whether `name` is a valid key name (also a valid checkpoint origin): non-empty, at most
/// [`MAX_NAME_BYTES`], no `+`, no whitespace or control characters.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME_BYTES
        && !name.contains('+')
        && !name.chars().any(|c| c.is_whitespace() || c.is_control())
}

fn check_name(name: &str) -> Result<(), KeyError> {
    if valid_name(name) {
        Ok(())
    } else {
        Err(KeyError::BadName(name.to_owned()))
    }
}

/// The key ID of the key named `name` with algorithm `alg` and public key `public`.
pub fn key_id(name: &str, alg: Alg, public: &VerifyingKey) -> [u8; 4] {
    let d = Digest::of_parts(&[name.as_bytes(), b"\n", &[alg.byte()], public.as_bytes()]);
    [d.0[0], d.0[1], d.0[2], d.0[3]]
}

/// `name+<hex key ID>+<base64(alg ‖ public key)>`.
pub fn encode_vkey(name: &str, alg: Alg, public: &VerifyingKey) -> String {
    encode(name, &key_id(name, alg, public), alg, public.as_bytes())
}

/// `PRIVATE+KEY+name+<hex key ID>+<base64(alg ‖ seed)>`.
pub fn encode_skey(name: &str, alg: Alg, key: &SigningKey) -> String {
    let id = key_id(name, alg, &key.verifying_key());
    format!("{PRIVATE_PREFIX}{}", encode(name, &id, alg, key.as_bytes()))
}

fn encode(name: &str, id: &[u8; 4], alg: Alg, key: &[u8; 32]) -> String {
    let mut raw = Vec::with_capacity(33);
    raw.push(alg.byte());
    raw.extend_from_slice(key);
    format!("{name}+{}+{}", hex(id), B64.encode(raw))
}

/// The fields of `name+id+base64(alg ‖ 32 bytes)`, checked up to the 32 bytes.
fn decode(text: &str, alg: Alg, private: bool) -> Result<(&str, &str, [u8; 32]), KeyError> {
    let mut parts = text.splitn(3, '+');
    let (Some(name), Some(id), Some(key)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(KeyError::Shape { private });
    };
    let raw = B64.decode(key).map_err(|_| KeyError::NotBase64)?;
    let (&found, key) = raw.split_first().ok_or(KeyError::Empty)?;
    if found != alg.byte() {
        return Err(KeyError::WrongAlg { expected: alg });
    }
    let key: [u8; 32] = key.try_into().map_err(|_| KeyError::Length { private })?;
    Ok((name, id, key))
}

/// Checks the name, then the given key ID against the computed one.
fn check_name_and_id(name: &str, given: &str, id: &[u8; 4]) -> Result<(), KeyError> {
    check_name(name)?;
    if given.len() != 8 || !given.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(KeyError::IdSyntax(given.to_owned()));
    }
    if given != hex(id) {
        return Err(KeyError::IdMismatch(given.to_owned()));
    }
    Ok(())
}

/// A verifier (public) key: made by [`Vkey::new`] or [`Vkey::parse`], so its name is valid and
/// its key ID its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vkey {
    pub name: String,
    pub alg: Alg,
    pub id: [u8; 4],
    pub key: VerifyingKey,
}

impl Vkey {
    /// The key `key` named `name`, for `alg`.
    pub fn new(name: &str, alg: Alg, key: VerifyingKey) -> Result<Self, KeyError> {
        check_name(name)?;
        Ok(Self { name: name.to_owned(), alg, id: key_id(name, alg, &key), key })
    }

    /// Parses `name+<hex key ID>+<base64(alg ‖ public key)>` for algorithm `alg`.
    pub fn parse(text: &str, alg: Alg) -> Result<Self, KeyError> {
        let (name, given, key) = decode(text.trim(), alg, false)?;
        let key = VerifyingKey::from_bytes(&key).map_err(|_| KeyError::NotAPoint)?;
        let id = key_id(name, alg, &key);
        check_name_and_id(name, given, &id)?;
        Ok(Self { name: name.to_owned(), alg, id, key })
    }

    /// `name+<hex key ID>+<base64(alg ‖ public key)>`.
    pub fn encode(&self) -> String {
        encode_vkey(&self.name, self.alg, &self.key)
    }
}

/// A signing (private) key: made by [`Skey::from_seed`] or [`Skey::parse`], so its name is
/// valid. Its `Debug` never shows the seed.
#[derive(Clone)]
pub struct Skey {
    pub name: String,
    pub alg: Alg,
    pub key: SigningKey,
}

impl fmt::Debug for Skey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Skey")
            .field("name", &self.name)
            .field("alg", &self.alg)
            .finish_non_exhaustive()
    }
}

impl Skey {
    /// The key with this 32-byte seed named `name`, for `alg`.
    pub fn from_seed(name: &str, alg: Alg, seed: &[u8; 32]) -> Result<Self, KeyError> {
        check_name(name)?;
        Ok(Self { name: name.to_owned(), alg, key: SigningKey::from_bytes(seed) })
    }

    /// A new random key named `name`, for `alg`.
    pub fn generate(name: &str, alg: Alg) -> Result<Self, KeyError> {
        Self::from_seed(name, alg, &super::secret::random_bytes::<32>())
    }

    /// Parses `PRIVATE+KEY+name+<hex key ID>+<base64(alg ‖ seed)>` for algorithm `alg`.
    pub fn parse(text: &str, alg: Alg) -> Result<Self, KeyError> {
        let rest = text.trim().strip_prefix(PRIVATE_PREFIX).ok_or(KeyError::NoPrefix)?;
        let (name, given, seed) = decode(rest, alg, true)?;
        let key = SigningKey::from_bytes(&seed);
        check_name_and_id(name, given, &key_id(name, alg, &key.verifying_key()))?;
        Ok(Self { name: name.to_owned(), alg, key })
    }

    /// `PRIVATE+KEY+name+<hex key ID>+<base64(alg ‖ seed)>`.
    pub fn encode(&self) -> String {
        encode_skey(&self.name, self.alg, &self.key)
    }

    /// The matching verifier key.
    pub fn public(&self) -> Vkey {
        let key = self.key.verifying_key();
        Vkey { name: self.name.clone(), alg: self.alg, id: key_id(&self.name, self.alg, &key), key }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{note, sign, witness};

    const SEED: [u8; 32] = [7; 32];
    const ALGS: [Alg; 2] = [Alg::Ed25519, Alg::CosignatureV1];

    // -----------------------------------------------------------------------------------------
    // The codec.

    #[test]
    fn go_and_c2sp_known_answer_keys() {
        // Go's sumdb/note test key (c2sp.org/signed-note's example).
        let vkey = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";
        let skey = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";
        let v = Vkey::parse(vkey, Alg::Ed25519).unwrap();
        assert_eq!(
            (v.name.as_str(), v.alg, hex(&v.id)),
            ("PeterNeumann", Alg::Ed25519, "c74f20a3".into())
        );
        assert_eq!(key_id("PeterNeumann", Alg::Ed25519, &v.key), v.id);
        assert_eq!(v.encode(), vkey);
        assert_eq!(encode_vkey(&v.name, v.alg, &v.key), vkey);
        let s = Skey::parse(skey, Alg::Ed25519).unwrap();
        assert_eq!(s.encode(), skey);
        assert_eq!(s.public(), v);
        assert_eq!(Vkey::new("PeterNeumann", Alg::Ed25519, v.key).unwrap(), v);
        let c = Vkey::parse(
            "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k",
            Alg::Ed25519,
        )
        .unwrap();
        assert_eq!((c.name.as_str(), c.id), ("example.com/foo", [0x53, 0x0d, 0x90, 0x3a]));
        // A cosignature key's id covers its algorithm byte 0x04.
        let w = Vkey::new("PeterNeumann", Alg::CosignatureV1, v.key).unwrap();
        assert_eq!(hex(&w.id), id("PeterNeumann", 0x04, v.key.as_bytes()));
        assert_ne!(w.id, v.id);
    }

    #[test]
    fn keys_round_trip_for_each_algorithm() {
        for alg in ALGS {
            let other = if alg == Alg::Ed25519 { Alg::CosignatureV1 } else { Alg::Ed25519 };
            let s = Skey::from_seed("worker-a", alg, &SEED).unwrap();
            let v = s.public();
            let (skey, vkey) = (s.encode(), v.encode());
            assert!(skey.starts_with(&format!("PRIVATE+KEY+worker-a+{}+", hex(&v.id))), "{skey}");
            assert!(vkey.starts_with(&format!("worker-a+{}+", hex(&v.id))), "{vkey}");
            let raw = B64.decode(vkey.rsplit('+').next().unwrap()).unwrap();
            assert_eq!((raw[0], &raw[1..]), (alg.byte(), v.key.as_bytes().as_slice()));
            assert_eq!(hex(&v.id), id("worker-a", alg.byte(), v.key.as_bytes()));
            // Surrounding whitespace (a key file's newline) is ignored.
            assert_eq!(Vkey::parse(&format!("{vkey}\n"), alg).unwrap(), v);
            let back = Skey::parse(&format!(" {skey}\n"), alg).unwrap();
            assert_eq!((back.encode(), back.public()), (skey.clone(), v.clone()));
            assert_eq!(Skey::generate("worker-a", alg).unwrap().alg, alg);
            // The seed never shows.
            let seed_b64 = skey.rsplit('+').next().unwrap();
            assert!(!format!("{s:?}").contains(&seed_b64[4..]), "{s:?}");
            // One form is not the other; one algorithm is not the other.
            assert_eq!(Skey::parse(&vkey, alg).unwrap_err(), KeyError::NoPrefix);
            assert_eq!(Vkey::parse(&skey, alg).unwrap_err(), KeyError::NotBase64);
            assert_eq!(
                Vkey::parse(&vkey, other).unwrap_err(),
                KeyError::WrongAlg { expected: other }
            );
            assert_eq!(
                Skey::parse(&skey, other).unwrap_err(),
                KeyError::WrongAlg { expected: other }
            );
            // A wrong key id, or another name under the same id.
            let wrong = vkey.replacen(&hex(&v.id), "00000000", 1);
            assert_eq!(Vkey::parse(&wrong, alg), Err(KeyError::IdMismatch("00000000".into())));
            let renamed = skey.replacen("worker-a", "worker-b", 1);
            assert_eq!(Skey::parse(&renamed, alg).err(), Some(KeyError::IdMismatch(hex(&v.id))));
        }
    }

    #[test]
    fn malformed_keys_are_refused_for_what_is_wrong() {
        let alg = Alg::Ed25519;
        assert_eq!(Vkey::parse("a+b", alg), Err(KeyError::Shape { private: false }));
        assert_eq!(Vkey::parse("worker-a+00", alg), Err(KeyError::Shape { private: false }));
        assert_eq!(
            Skey::parse("PRIVATE+KEY+a+b", alg).unwrap_err(),
            KeyError::Shape { private: true }
        );
        let pk = public();
        assert_eq!(Vkey::parse(&format!("n+{}+", id("n", 1, &[])), alg), Err(KeyError::Empty));
        let short = enc("n", &id("n", 1, &pk[..31]), 1, &pk[..31]);
        assert_eq!(Vkey::parse(&short, alg), Err(KeyError::Length { private: false }));
        let bad = not_a_point();
        let off = enc("n", &id("n", 1, &bad), 1, &bad);
        assert_eq!(Vkey::parse(&off, alg), Err(KeyError::NotAPoint));
        assert_eq!(
            Vkey::parse(&enc("n", "0123456g", 1, &pk), alg),
            Err(KeyError::IdSyntax("0123456g".into()))
        );
        // The key id is the lowercase hex of the computed one: upper case does not match.
        let name = (0..)
            .map(|i| format!("n{i}"))
            .find(|n| id(n, 1, &pk) != id(n, 1, &pk).to_uppercase())
            .unwrap();
        let upper = id(&name, 1, &pk).to_uppercase();
        assert_eq!(Vkey::parse(&enc(&name, &upper, 1, &pk), alg), Err(KeyError::IdMismatch(upper)));
    }

    #[test]
    fn names_are_checked_for_every_key() {
        let key = Skey::from_seed("n", Alg::Ed25519, &SEED).unwrap().key.verifying_key();
        let longest = "a".repeat(MAX_NAME_BYTES);
        for good in ["PeterNeumann", "example.com/log", "worker-a", "é", longest.as_str()] {
            assert!(valid_name(good), "{good:?}");
            for alg in ALGS {
                Skey::from_seed(good, alg, &SEED).unwrap();
                Vkey::new(good, alg, key).unwrap();
            }
        }
        let too_long = "a".repeat(MAX_NAME_BYTES + 1);
        for bad in ["", "a b", "a\tb", "a\nb", "a\u{7}b", "a\u{a0}b", "a+b", too_long.as_str()] {
            assert!(!valid_name(bad), "{bad:?}");
            let refused = Some(KeyError::BadName(bad.to_owned()));
            for alg in ALGS {
                assert_eq!(Skey::from_seed(bad, alg, &SEED).err(), refused);
                assert_eq!(Vkey::new(bad, alg, key).err(), refused);
            }
        }
        assert_eq!(
            KeyError::BadName("a b".into()).to_string(),
            "malformed key name `a b` (non-empty, no spaces, no `+`)"
        );
    }

    // -----------------------------------------------------------------------------------------
    // The three uses: one key, each caller's messages.

    #[test]
    fn one_key_serves_as_log_key_and_agent_key_and_not_as_witness_key() {
        let seed = [9; 32];
        let log = note::Signer::from_seed("worker-a", &seed).unwrap();
        let agent = sign::PrivateKey::from_seed("worker-a", seed).unwrap();
        assert_eq!(log.to_skey(), agent.skey());
        assert_eq!(log.verifier().to_vkey(), agent.public().vkey());
        assert_eq!(log.verifier().id_hex(), agent.public().key_id());
        // Each parses what the other wrote, and signs what the other verifies.
        let as_agent = sign::PrivateKey::parse(&log.to_skey()).unwrap();
        assert_eq!(as_agent.public(), sign::PublicKey::parse(&log.verifier().to_vkey()).unwrap());
        let as_log = note::Verifier::parse(&agent.public().vkey()).unwrap();
        assert_eq!(as_log, log.verifier());
        assert_eq!(note::Signer::parse(&agent.skey()).unwrap().verifier(), as_log);
        let text = "a\n";
        note::Note::parse(log.sign(text).as_bytes()).unwrap().verify(&as_log).unwrap();
        let sig = log.signature_line(text);
        let raw = B64.decode(sig.rsplit(' ').next().unwrap()).unwrap();
        let sig: [u8; 64] = raw[4..].try_into().unwrap();
        assert_eq!(agent.sign(text.as_bytes()), sig);
        as_agent.public().verify(text.as_bytes(), &sig).unwrap();
        // Any valid key name will do for the domain (agent names are narrowed by `check_agent`).
        let origin = note::Signer::from_seed("example.com/log", &seed).unwrap();
        assert_eq!(sign::PrivateKey::parse(&origin.to_skey()).unwrap().name, "example.com/log");
        // The same seed as a witness key: its own id, and refused as the others (and back).
        let w = witness::Cosigner::from_seed("worker-a", &seed).unwrap();
        assert_eq!(
            w.to_skey(),
            Skey::from_seed("worker-a", Alg::CosignatureV1, &seed).unwrap().encode()
        );
        assert_eq!(w.public().key, log.verifier().key);
        assert_ne!(w.public().id, log.verifier().id);
        let (wv, ws) = (w.public().to_vkey(), w.to_skey());
        let not_01 = "not an Ed25519 key (type 0x01)".to_owned();
        assert_eq!(
            note::Verifier::parse(&wv),
            Err(note::NoteError::BadVerifierKey(not_01.clone()))
        );
        assert_eq!(note::Signer::parse(&ws).unwrap_err(), note::NoteError::BadSigningKey(not_01));
        assert_eq!(sign::PublicKey::parse(&wv), Err(sign::SignError::NotEd25519));
        assert_eq!(sign::PrivateKey::parse(&ws).unwrap_err(), sign::SignError::NotEd25519);
        let not_04 = "not a cosignature key (type 0x04)".to_owned();
        assert_eq!(
            witness::CosignerKey::parse(&agent.public().vkey()),
            Err(note::NoteError::BadVerifierKey(not_04.clone()))
        );
        assert_eq!(
            witness::Cosigner::parse(&agent.skey()).unwrap_err(),
            note::NoteError::BadSigningKey(not_04)
        );
        assert_eq!(witness::Cosigner::parse(&ws).unwrap().public(), w.public());
        assert_eq!(witness::CosignerKey::parse(&wv).unwrap(), w.public());
    }

    #[test]
    fn every_use_refuses_a_new_key_with_a_bad_name() {
        let bad = note::NoteError::BadName("bad name".into());
        assert_eq!(note::Signer::from_seed("bad name", &SEED).unwrap_err(), bad);
        assert_eq!(note::Signer::generate("bad name").unwrap_err(), bad);
        assert_eq!(witness::Cosigner::from_seed("bad name", &SEED).unwrap_err(), bad);
        assert_eq!(witness::Cosigner::generate("bad name").unwrap_err(), bad);
        let key = note::Signer::from_seed("n", &SEED).unwrap().verifier().key;
        assert_eq!(note::Verifier::new("bad name", key), Err(bad.clone()));
        assert_eq!(witness::CosignerKey::new("bad name", key), Err(bad));
        let bad = sign::SignError::BadName("bad name".into());
        assert_eq!(sign::PrivateKey::from_seed("bad name", SEED).unwrap_err(), bad);
        assert_eq!(sign::PrivateKey::generate("bad name").unwrap_err(), bad);
        assert_eq!(
            sign::PrivateKey::from_seed("", SEED).unwrap_err(),
            sign::SignError::BadName("".into())
        );
    }

    fn public() -> [u8; 32] {
        ed25519_dalek::SigningKey::from_bytes(&SEED).verifying_key().to_bytes()
    }

    /// 32 bytes that are not the encoding of an Ed25519 point.
    fn not_a_point() -> [u8; 32] {
        (0u8..=255)
            .map(|b| {
                let mut k = [0u8; 32];
                k[0] = b;
                k
            })
            .find(|k| ed25519_dalek::VerifyingKey::from_bytes(k).is_err())
            .unwrap()
    }

    fn id(name: &str, alg: u8, key: &[u8]) -> String {
        hex(&Digest::of_parts(&[name.as_bytes(), b"\n", &[alg], key]).0[..4])
    }

    fn enc(name: &str, id: &str, alg: u8, key: &[u8]) -> String {
        let mut raw = vec![alg];
        raw.extend_from_slice(key);
        format!("{name}+{id}+{}", B64.encode(raw))
    }

    /// Labelled keys, each with at most one fault, for algorithm byte `alg` (`other` is the
    /// other one). `key` is what the encoding carries (the public key, or the seed of a signing
    /// key); key IDs are of the public key. The IDs are computed here, not by the codec.
    fn cases(alg: u8, other: u8, key: &[u8; 32], private: bool) -> Vec<(&'static str, String)> {
        let public = if private { public() } else { *key };
        let good = |name: &str| enc(name, &id(name, alg, &public), alg, key);
        let long = "a".repeat(257);
        let upper_name = (0..)
            .map(|i| format!("n{i}"))
            .find(|n| id(n, alg, &public).chars().any(|c| c.is_ascii_alphabetic()))
            .unwrap();
        let mut v = vec![
            ("good", good("example.com/n")),
            ("whitespace", format!("  {}\n", good("example.com/n"))),
            ("shape", "a+b".to_owned()),
            ("id not hex", enc("n", "zzzzzzzz", alg, key)),
            ("id short", enc("n", "abc", alg, key)),
            ("id upper", enc(&upper_name, &id(&upper_name, alg, &public).to_uppercase(), alg, key)),
            ("id mismatch", enc("n", "00000000", alg, key)),
            ("not base64", format!("n+{}+!!!!", id("n", alg, &public))),
            ("empty key", format!("n+{}+", id("n", alg, &[]))),
            ("other alg", enc("n", &id("n", other, &public), other, key)),
            ("31 bytes", enc("n", &id("n", alg, &key[..31]), alg, &key[..31])),
            ("space in name", good("n m")),
            ("tab in name", good("n\tm")),
            ("empty name", good("")),
            ("257-byte name", good(&long)),
        ];
        if !private {
            let bad = not_a_point();
            v.push(("not a point", enc("n", &id("n", alg, &bad), alg, &bad)));
        }
        if private {
            v = v
                .into_iter()
                .map(|(l, s)| match l {
                    "whitespace" => (l, format!("  PRIVATE+KEY+{}", s.trim_start())),
                    _ => (l, format!("PRIVATE+KEY+{s}")),
                })
                .collect();
            v.push(("no prefix", good("n")));
        }
        v
    }

    fn show<E: std::fmt::Display>(r: Result<String, E>) -> String {
        match r {
            Ok(s) => format!("ok {s}"),
            Err(e) => format!("err {e}"),
        }
    }

    /// What each caller's parser makes of every case: `ok` or its error message.
    fn table() -> String {
        let pk = public();
        let mut out = String::new();
        let mut run =
            |what: &str, alg: u8, other: u8, key: [u8; 32], parse: &dyn Fn(&str) -> String| {
                let private = what.ends_with("skey");
                for (label, input) in cases(alg, other, &key, private) {
                    let got = parse(&input);
                    // A good key writes back as given (whitespace aside).
                    if let (Some(back), "good" | "whitespace") = (got.strip_prefix("ok "), label) {
                        assert_eq!(back, input.trim(), "{what} {label}");
                    }
                    let got = if got.starts_with("ok ") { "ok".to_owned() } else { got };
                    let got = got.replace(&"a".repeat(257), "<257 x a>");
                    out.push_str(&format!("{what} | {label} | {got}\n"));
                }
            };
        run("log vkey", 1, 4, pk, &|s| show(note::Verifier::parse(s).map(|v| v.to_vkey())));
        run("log skey", 1, 4, SEED, &|s| show(note::Signer::parse(s).map(|v| v.to_skey())));
        run("witness vkey", 4, 1, pk, &|s| {
            show(witness::CosignerKey::parse(s).map(|v| v.to_vkey()))
        });
        run("witness skey", 4, 1, SEED, &|s| {
            show(witness::Cosigner::parse(s).map(|v| v.to_skey()))
        });
        run("agent vkey", 1, 4, pk, &|s| show(sign::PublicKey::parse(s).map(|v| v.vkey())));
        run("agent skey", 1, 4, SEED, &|s| show(sign::PrivateKey::parse(s).map(|v| v.skey())));
        out
    }

    /// Each case, for each of the three uses: what is accepted, and each caller's message.
    #[test]
    fn each_caller_accepts_and_refuses_keys_with_its_messages() {
        let got = table();
        for (g, w) in got.lines().zip(EXPECTED.lines()) {
            assert_eq!(g, w);
        }
        assert_eq!(got.lines().count(), EXPECTED.lines().count());
    }

    const EXPECTED: &str = "\
log vkey | good | ok\n\
log vkey | whitespace | ok\n\
log vkey | shape | err malformed verifier key: expected name+keyid+key\n\
log vkey | id not hex | err malformed verifier key: the key ID is not 8 hex digits\n\
log vkey | id short | err malformed verifier key: the key ID is not 8 hex digits\n\
log vkey | id upper | err malformed verifier key: the key ID does not match the name and key\n\
log vkey | id mismatch | err malformed verifier key: the key ID does not match the name and key\n\
log vkey | not base64 | err malformed verifier key: the key is not base64\n\
log vkey | empty key | err malformed verifier key: the key is empty\n\
log vkey | other alg | err malformed verifier key: not an Ed25519 key (type 0x01)\n\
log vkey | 31 bytes | err malformed verifier key: an Ed25519 key has 32 bytes\n\
log vkey | space in name | err malformed key name `n m` (non-empty, no spaces, no `+`)\n\
log vkey | tab in name | err malformed key name `n\tm` (non-empty, no spaces, no `+`)\n\
log vkey | empty name | err malformed key name `` (non-empty, no spaces, no `+`)\n\
log vkey | 257-byte name | err malformed key name `<257 x a>` (non-empty, no spaces, no `+`)\n\
log vkey | not a point | err malformed verifier key: not a valid Ed25519 point\n\
log skey | good | ok\n\
log skey | whitespace | ok\n\
log skey | shape | err malformed signing key: expected PRIVATE+KEY+name+keyid+key\n\
log skey | id not hex | err malformed signing key: the key ID is not 8 hex digits\n\
log skey | id short | err malformed signing key: the key ID is not 8 hex digits\n\
log skey | id upper | err malformed signing key: the key ID does not match the name and key\n\
log skey | id mismatch | err malformed signing key: the key ID does not match the name and key\n\
log skey | not base64 | err malformed signing key: the key is not base64\n\
log skey | empty key | err malformed signing key: the key is empty\n\
log skey | other alg | err malformed signing key: not an Ed25519 key (type 0x01)\n\
log skey | 31 bytes | err malformed signing key: an Ed25519 seed has 32 bytes\n\
log skey | space in name | err malformed key name `n m` (non-empty, no spaces, no `+`)\n\
log skey | tab in name | err malformed key name `n\tm` (non-empty, no spaces, no `+`)\n\
log skey | empty name | err malformed key name `` (non-empty, no spaces, no `+`)\n\
log skey | 257-byte name | err malformed key name `<257 x a>` (non-empty, no spaces, no `+`)\n\
log skey | no prefix | err malformed signing key: no PRIVATE+KEY+\n\
witness vkey | good | ok\n\
witness vkey | whitespace | ok\n\
witness vkey | shape | err malformed verifier key: expected name+keyid+key\n\
witness vkey | id not hex | err malformed verifier key: the key ID does not match the name and key\n\
witness vkey | id short | err malformed verifier key: the key ID does not match the name and key\n\
witness vkey | id upper | err malformed verifier key: the key ID does not match the name and key\n\
witness vkey | id mismatch | err malformed verifier key: the key ID does not match the name and key\n\
witness vkey | not base64 | err malformed verifier key: the key is not base64\n\
witness vkey | empty key | err malformed verifier key: the key is empty\n\
witness vkey | other alg | err malformed verifier key: not a cosignature key (type 0x04)\n\
witness vkey | 31 bytes | err malformed verifier key: an Ed25519 key has 32 bytes\n\
witness vkey | space in name | err malformed key name `n m` (non-empty, no spaces, no `+`)\n\
witness vkey | tab in name | err malformed key name `n\tm` (non-empty, no spaces, no `+`)\n\
witness vkey | empty name | err malformed key name `` (non-empty, no spaces, no `+`)\n\
witness vkey | 257-byte name | err malformed key name `<257 x a>` (non-empty, no spaces, no `+`)\n\
witness vkey | not a point | err malformed verifier key: not a valid Ed25519 point\n\
witness skey | good | ok\n\
witness skey | whitespace | ok\n\
witness skey | shape | err malformed signing key: expected PRIVATE+KEY+name+keyid+key\n\
witness skey | id not hex | err malformed signing key: the key ID does not match the name and key\n\
witness skey | id short | err malformed signing key: the key ID does not match the name and key\n\
witness skey | id upper | err malformed signing key: the key ID does not match the name and key\n\
witness skey | id mismatch | err malformed signing key: the key ID does not match the name and key\n\
witness skey | not base64 | err malformed signing key: the key is not base64\n\
witness skey | empty key | err malformed signing key: the key is empty\n\
witness skey | other alg | err malformed signing key: not a cosignature key (type 0x04)\n\
witness skey | 31 bytes | err malformed signing key: an Ed25519 seed has 32 bytes\n\
witness skey | space in name | err malformed key name `n m` (non-empty, no spaces, no `+`)\n\
witness skey | tab in name | err malformed key name `n\tm` (non-empty, no spaces, no `+`)\n\
witness skey | empty name | err malformed key name `` (non-empty, no spaces, no `+`)\n\
witness skey | 257-byte name | err malformed key name `<257 x a>` (non-empty, no spaces, no `+`)\n\
witness skey | no prefix | err malformed signing key: no PRIVATE+KEY+\n\
agent vkey | good | ok\n\
agent vkey | whitespace | ok\n\
agent vkey | shape | err not a verifier key: expected <agent>+<key id>+<base64 key>\n\
agent vkey | id not hex | err the key id zzzzzzzz does not match the key\n\
agent vkey | id short | err the key id abc does not match the key\n\
agent vkey | id upper | err the key id 163993EA does not match the key\n\
agent vkey | id mismatch | err the key id 00000000 does not match the key\n\
agent vkey | not base64 | err not a verifier key: expected <agent>+<key id>+<base64 key>\n\
agent vkey | empty key | err not a verifier key: expected <agent>+<key id>+<base64 key>\n\
agent vkey | other alg | err not an Ed25519 key\n\
agent vkey | 31 bytes | err not a verifier key: expected <agent>+<key id>+<base64 key>\n\
agent vkey | space in name | err malformed key name `n m` (non-empty, no spaces, no `+`)\n\
agent vkey | tab in name | err malformed key name `n\tm` (non-empty, no spaces, no `+`)\n\
agent vkey | empty name | err the key id 03d2d605 does not match the key\n\
agent vkey | 257-byte name | err malformed key name `<257 x a>` (non-empty, no spaces, no `+`)\n\
agent vkey | not a point | err not an Ed25519 key\n\
agent skey | good | ok\n\
agent skey | whitespace | ok\n\
agent skey | shape | err not a private key: expected PRIVATE+KEY+<agent>+<key id>+<base64 key>\n\
agent skey | id not hex | err the key id zzzzzzzz does not match the key\n\
agent skey | id short | err the key id abc does not match the key\n\
agent skey | id upper | err the key id 163993EA does not match the key\n\
agent skey | id mismatch | err the key id 00000000 does not match the key\n\
agent skey | not base64 | err not a private key: expected PRIVATE+KEY+<agent>+<key id>+<base64 key>\n\
agent skey | empty key | err not a private key: expected PRIVATE+KEY+<agent>+<key id>+<base64 key>\n\
agent skey | other alg | err not an Ed25519 key\n\
agent skey | 31 bytes | err not a private key: expected PRIVATE+KEY+<agent>+<key id>+<base64 key>\n\
agent skey | space in name | err malformed key name `n m` (non-empty, no spaces, no `+`)\n\
agent skey | tab in name | err malformed key name `n\tm` (non-empty, no spaces, no `+`)\n\
agent skey | empty name | err the key id 03d2d605 does not match the key\n\
agent skey | 257-byte name | err malformed key name `<257 x a>` (non-empty, no spaces, no `+`)\n\
agent skey | no prefix | err not a private key: expected PRIVATE+KEY+<agent>+<key id>+<base64 key>\n";
}
