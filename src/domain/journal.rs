//! The repository journal: one hash chain over every state change.
//!
//! An entry is stored as the exact bytes that were hashed: a JSON object with the fields in a
//! fixed order (`v`, `seq`, `time`, `kind`, `actor`, `scope`, `subject`, `body`). JSON's own
//! quoting makes the framing unambiguous. The chain hash is
//!
//! ```text
//! hash = SHA-256("locker-journal-v1\0" ‖ prev_hash (32 bytes) ‖ u64be(len(entry)) ‖ entry)
//! ```
//!
//! with 32 zero bytes as the `prev_hash` of entry 1.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

use super::digest::Digest;
use super::event::{DecodeError, Event};

/// Domain-separation tag of the journal hash.
pub const TAG: &[u8] = b"locker-journal-v1\0";
/// The entry format version.
pub const VERSION: u32 = 1;

/// One journal entry's content, in its hashed field order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub v: u32,
    pub seq: u64,
    pub time: i64,
    pub kind: String,
    pub actor: String,
    pub scope: String,
    pub subject: String,
    pub body: Value,
}

impl Entry {
    /// The exact bytes that are stored and hashed.
    pub fn encode(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("a journal entry always serialises")
    }

    /// Parses stored bytes back into an entry.
    pub fn decode(bytes: &[u8]) -> Result<Self, serde_json::Error> {
        serde_json::from_slice(bytes)
    }

    /// The entry's body decoded by its kind.
    pub fn event(&self) -> Result<Event, DecodeError> {
        Event::decode(&self.kind, &self.body)
    }
}

/// The chain hash of an entry whose bytes are `entry` and whose predecessor's hash is `prev`.
pub fn link(prev: &Digest, entry: &[u8]) -> Digest {
    let len = (entry.len() as u64).to_be_bytes();
    Digest::of_parts(&[TAG, &prev.0, &len, entry])
}

/// An [`Entry`] as stored, read without building its body: the text fields borrowed from the
/// bytes (unless JSON escapes had to be undone) and the body as its JSON text, decoded straight
/// into its kind's type by [`EntryText::event`]. For walks over the whole journal, like
/// `locker verify`'s, which decode millions of entries.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntryText<'a> {
    pub v: u32,
    pub seq: u64,
    pub time: i64,
    #[serde(borrow)]
    pub kind: Cow<'a, str>,
    #[serde(borrow)]
    pub actor: Cow<'a, str>,
    #[serde(borrow)]
    pub scope: Cow<'a, str>,
    #[serde(borrow)]
    pub subject: Cow<'a, str>,
    #[serde(borrow)]
    pub body: &'a RawValue,
}

impl<'a> EntryText<'a> {
    /// Parses stored bytes; refuses what [`Entry::decode`] refuses.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, serde_json::Error> {
        serde_json::from_slice(bytes)
    }

    /// The body decoded by the entry's kind: what [`Entry::event`] gives.
    pub fn event(&self) -> Result<Event, DecodeError> {
        Event::decode_json(&self.kind, self.body.get())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(seq: u64, subject: &str) -> Entry {
        Entry {
            v: VERSION,
            seq,
            time: 1_800_000_000,
            kind: "pad.append".into(),
            actor: "operator".into(),
            scope: "default".into(),
            subject: subject.into(),
            body: serde_json::json!({"seq": 0}),
        }
    }

    #[test]
    fn encoding_is_stable_and_round_trips() {
        let e = entry(1, "pad:x");
        let bytes = e.encode();
        assert_eq!(
            std::str::from_utf8(&bytes).unwrap(),
            r#"{"v":1,"seq":1,"time":1800000000,"kind":"pad.append","actor":"operator","scope":"default","subject":"pad:x","body":{"seq":0}}"#
        );
        assert_eq!(Entry::decode(&bytes).unwrap(), e);
        assert!(Entry::decode(br#"{"v":1}"#).is_err());
    }

    #[test]
    fn entry_text_reads_what_decode_reads() {
        let mut e = entry(7, "pad:p");
        e.kind = "pad.seal".into();
        e.body = serde_json::json!({
            "pad_id": "p", "head_hash": "ab".repeat(32), "block_count": 2, "total_bytes": 7
        });
        let bytes = e.encode();
        let t = EntryText::parse(&bytes).unwrap();
        assert_eq!(t.event().unwrap(), e.event().unwrap());
        assert_eq!((t.v, t.seq, t.time), (e.v, e.seq, e.time));
        assert_eq!(
            [&*t.kind, &*t.actor, &*t.scope, &*t.subject],
            ["pad.seal", "operator", "default", "pad:p"]
        );
        assert!(matches!(t.subject, Cow::Borrowed(_)));
        // Escaped text is unescaped.
        e.subject = "pad:\"q\"\u{e9}".into();
        let bytes = e.encode();
        assert_eq!(EntryText::parse(&bytes).unwrap().subject, e.subject);
        // A body of the wrong shape is the event's error, not the entry's.
        e.body = serde_json::json!({"pad_id": "p"});
        let bytes = e.encode();
        assert!(matches!(
            EntryText::parse(&bytes).unwrap().event(),
            Err(DecodeError::Malformed { .. })
        ));
        // What `decode` refuses, `parse` refuses: unknown, missing or repeated fields.
        let refused: [&[u8]; 4] = [
            br#"{"v":1}"#,
            br#"{"v":1,"seq":1,"time":1,"kind":"k","actor":"a","scope":"s","subject":"x","body":{},"extra":1}"#,
            br#"{"v":1,"seq":1,"time":1,"kind":"k","kind":"k","actor":"a","scope":"s","subject":"x","body":{}}"#,
            b"not json",
        ];
        for bytes in refused {
            assert!(EntryText::parse(bytes).is_err(), "{}", String::from_utf8_lossy(bytes));
            assert!(Entry::decode(bytes).is_err(), "{}", String::from_utf8_lossy(bytes));
        }
    }

    #[test]
    fn link_covers_every_field_and_the_predecessor() {
        let a = entry(1, "pad:x").encode();
        let h = link(&Digest::ZERO, &a);
        // Independently: the preimage spelled out.
        let mut pre = TAG.to_vec();
        pre.extend_from_slice(&[0; 32]);
        pre.extend_from_slice(&(a.len() as u64).to_be_bytes());
        pre.extend_from_slice(&a);
        assert_eq!(h, Digest::of(&pre));
        assert_ne!(h, link(&Digest::ZERO, &entry(1, "pad:y").encode()));
        assert_ne!(h, link(&Digest::of(b"other"), &a));
    }
}

#[cfg(test)]
mod proptests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;

    proptest! {
        /// Whatever the strings and body, an entry decodes back to itself, and its hash changes
        /// with any change to its bytes or to its predecessor.
        #[test]
        fn entries_round_trip_and_every_byte_is_hashed(
            seq in any::<u64>(),
            time in any::<i64>(),
            kind in ".{0,20}",
            actor in ".{0,20}",
            subject in ".{0,40}",
            text in ".{0,60}",
            n in any::<i64>(),
            byte in any::<prop::sample::Index>(),
            flip in 1u8..=255,
        ) {
            let e = Entry {
                v: VERSION,
                seq,
                time,
                kind,
                actor,
                scope: "default".into(),
                subject,
                body: json!({"text": text, "n": n, "list": [text, null, true]}),
            };
            let bytes = e.encode();
            prop_assert_eq!(Entry::decode(&bytes).expect("decodes"), e);
            let prev = Digest::of(b"prev");
            let h = link(&prev, &bytes);
            let mut changed = bytes.clone();
            changed[byte.index(bytes.len())] ^= flip;
            prop_assert_ne!(link(&prev, &changed), h);
            prop_assert_ne!(link(&Digest::ZERO, &bytes), h);
        }
    }
}
