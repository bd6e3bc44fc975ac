//! A bundle's block signers: who signed each appended block, with the key and the signature,
//! so that an offline reader (`locker verify --bundle`, `locker review --bundle`) can report
//! them and re-check every signature with no repository. No I/O.
//!
//! Each signature is checked against the verifier key the bundle states, over the statement the
//! agent signed ([`super::sign::Statement::pad_append`]: the repository id, the pad, the block
//! number and the payload's SHA-256). That the key was the agent's registered key when it
//! signed is what the repository's journal says: when the bundle carries its log proofs, the
//! proved `pad.append` entries must record exactly these signers (and with the log's key, the
//! `log` check proves those entries). Who registered each key (`registered_by`) is as the
//! bundle's source stated it.

use serde::{Deserialize, Serialize};

use super::check::Check;
use super::digest::Digest;
use super::event::Event;
use super::journal::Entry;
use super::sign::{self, PublicKey, Statement};

/// The signers a bundle carries (absent when no block is signed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Signers {
    /// The repository id every signature names.
    pub repository_id: String,
    pub blocks: Vec<BlockSignature>,
}

/// One signed block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockSignature {
    pub seq: u64,
    /// The journal entry that appended it.
    pub entry: u64,
    pub signer: String,
    pub key_id: String,
    /// The signer's verifier key (`<agent>+<key id>+<base64>`).
    pub vkey: String,
    /// Standard base64 of the 64-byte Ed25519 signature.
    pub signature: String,
    /// Who registered the key, as the source stated it: `self` or `operator`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registered_by: Option<String>,
}

/// A signature a `pad.append` journal entry records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// The journal entry.
    pub entry: u64,
    pub seq: u64,
    pub signer: String,
    pub key_id: String,
    pub signature: String,
}

/// The signatures the `pad.append` entries of `pad_id` among `entries` record.
pub fn recorded_signatures(entries: &[Entry], pad_id: &str) -> Vec<Recorded> {
    entries
        .iter()
        .filter_map(|e| match e.event().ok()? {
            Event::PadAppend(a) if a.pad_id == pad_id => {
                let s = a.signed?;
                Some(Recorded {
                    entry: e.seq,
                    seq: a.seq,
                    signer: s.signer,
                    key_id: s.key_id,
                    signature: s.signature,
                })
            }
            _ => None,
        })
        .collect()
}

/// The `signers` check: every stated signature verifies with its stated key over its block
/// (`payload_sha256` finds a block's payload digest), and, when `logged` (the signatures the
/// bundle's proved journal entries record) is given, the two accounts agree.
pub fn check(
    pad_id: &str,
    s: &Signers,
    payload_sha256: impl Fn(u64) -> Option<Digest>,
    logged: Option<&[Recorded]>,
) -> Check {
    let mut seen = Vec::new();
    for b in &s.blocks {
        let fail = |why: String| Check::fail("signers", format!("block {}: {why}", b.seq));
        let Some(digest) = payload_sha256(b.seq) else {
            return fail("the bundle has no such block".into());
        };
        let pk = match PublicKey::parse(&b.vkey) {
            Ok(pk) if pk.name == b.signer && pk.key_id() == b.key_id => pk,
            Ok(_) => {
                return fail(format!("the key stated is not key {} of {}", b.key_id, b.signer))
            }
            Err(e) => return fail(format!("the key stated: {e}")),
        };
        let st = Statement::pad_append(&s.repository_id, pad_id, b.seq, &digest);
        let good = sign::decode_signature(&b.signature)
            .is_ok_and(|sig| pk.verify(&st.message(), &sig).is_ok());
        if !good {
            return fail(format!("the signature of {} does not verify", b.signer));
        }
        if let Some(logged) = logged {
            let same = |l: &Recorded| {
                (l.seq, &l.signer, &l.key_id, &l.signature)
                    == (b.seq, &b.signer, &b.key_id, &b.signature)
            };
            if !logged.iter().any(same) {
                return fail(format!(
                    "the log's journal entry does not record this signature by {}",
                    b.signer
                ));
            }
        }
        let by = b.registered_by.as_deref().unwrap_or("?");
        seen.push(format!(
            "block {} by {} (key {}, registered by {by})",
            b.seq, b.signer, b.key_id
        ));
    }
    if let Some(logged) = logged {
        if let Some(l) = logged.iter().find(|l| !s.blocks.iter().any(|b| b.seq == l.seq)) {
            return Check::fail(
                "signers",
                format!(
                    "block {} is signed by {} in the log, but the bundle states no signer",
                    l.seq, l.signer
                ),
            );
        }
    }
    let against = if logged.is_some() { ", and as the log's journal entries record" } else { "" };
    Check::pass(
        "signers",
        format!(
            "{} signed block(s), each signature verified with its stated key{against}: {}",
            s.blocks.len(),
            super::check::summarise(&seen)
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::sign::PrivateKey;

    #[test]
    fn a_stated_signature_is_checked_against_its_key_and_the_log() {
        let k = PrivateKey::from_seed("worker", [3; 32]).unwrap();
        let payload = Digest::of(b"block one");
        let st = Statement::pad_append("repo", "pad", 1, &payload);
        let sig = sign::encode_signature(&k.sign(&st.message()));
        let b = BlockSignature {
            seq: 1,
            entry: 7,
            signer: "worker".into(),
            key_id: k.public().key_id(),
            vkey: k.public().vkey(),
            signature: sig.clone(),
            registered_by: Some("self".into()),
        };
        let s = Signers { repository_id: "repo".into(), blocks: vec![b.clone()] };
        let digest = |seq: u64| (seq == 1).then_some(payload);
        assert!(!check("pad", &s, digest, None).failed());
        let logged = vec![Recorded {
            entry: 7,
            seq: 1,
            signer: "worker".into(),
            key_id: b.key_id.clone(),
            signature: sig,
        }];
        assert!(!check("pad", &s, digest, Some(&logged)).failed());
        // Another pad, another repository, another payload: the signature does not verify.
        assert!(check("other", &s, digest, None).failed());
        let elsewhere = Signers { repository_id: "other".into(), ..s.clone() };
        assert!(check("pad", &elsewhere, digest, None).failed());
        assert!(check("pad", &s, |_| Some(Digest::of(b"x")), None).failed());
        // A signer the log does not record, or a signed block the bundle leaves out.
        let mut other = logged.clone();
        other[0].signer = "someone".into();
        assert!(check("pad", &s, digest, Some(&other)).failed());
        let none = Signers { blocks: vec![], ..s.clone() };
        assert!(check("pad", &none, digest, Some(&logged)).failed());
    }
}
