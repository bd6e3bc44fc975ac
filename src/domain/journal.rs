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
use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, Visitor};
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
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
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

/// An [`Entry`] as stored, read without building its body as JSON: the text fields borrowed
/// from the bytes (unless JSON escapes had to be undone) and the body decoded straight into its
/// kind's type, in the same pass (the kind comes before the body in every stored entry). For
/// walks over the whole journal, like `locker verify`'s, which decode millions of entries.
#[derive(Debug)]
pub struct EntryText<'a> {
    pub v: u32,
    pub seq: u64,
    pub time: i64,
    pub kind: Cow<'a, str>,
    pub actor: Cow<'a, str>,
    pub scope: Cow<'a, str>,
    pub subject: Cow<'a, str>,
    /// The body decoded by the entry's kind: what [`Entry::event`] gives.
    pub event: Result<Event, DecodeError>,
}

impl<'a> EntryText<'a> {
    /// Parses stored bytes; refuses what [`Entry::decode`] refuses.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, serde_json::Error> {
        // Whatever the one pass cannot read (a body not of its kind's shape, or an entry that
        // is no entry) is read again in two steps, which tell the entry's errors from the
        // body's exactly as `Entry::decode` and `Entry::event` do.
        Self::one_pass(bytes).or_else(|_| Self::two_steps(bytes))
    }

    /// The entry and its body in one pass of the bytes; an error for any body its kind's type
    /// refuses.
    fn one_pass(bytes: &'a [u8]) -> Result<Self, serde_json::Error> {
        // Bytes checked as UTF-8 once, in one sweep, are read as text, whose strings serde_json
        // then need not check one by one (a fifth of the reading, `locker verify`'s profile);
        // other bytes are refused as they always were.
        match std::str::from_utf8(bytes) {
            Ok(text) => Self::one_pass_of(serde_json::Deserializer::from_str(text)),
            Err(_) => Self::one_pass_of(serde_json::Deserializer::from_slice(bytes)),
        }
    }

    fn one_pass_of<R: serde_json::de::Read<'a>>(
        mut de: serde_json::Deserializer<R>,
    ) -> Result<Self, serde_json::Error> {
        let t = serde::Deserializer::deserialize_map(&mut de, OnePass)?;
        de.end()?;
        Ok(t)
    }

    /// The entry with its body as text, then the body decoded by the entry's kind.
    fn two_steps(bytes: &'a [u8]) -> Result<Self, serde_json::Error> {
        let t: TwoSteps<'a> = serde_json::from_slice(bytes)?;
        Ok(Self {
            event: Event::decode_json(&t.kind, t.body.get()),
            v: t.v,
            seq: t.seq,
            time: t.time,
            kind: t.kind,
            actor: t.actor,
            scope: t.scope,
            subject: t.subject,
        })
    }
}

/// The entry with its body as JSON text: [`EntryText::two_steps`]' reading.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TwoSteps<'a> {
    v: u32,
    seq: u64,
    time: i64,
    #[serde(borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow)]
    actor: Cow<'a, str>,
    #[serde(borrow)]
    scope: Cow<'a, str>,
    #[serde(borrow)]
    subject: Cow<'a, str>,
    #[serde(borrow)]
    body: &'a RawValue,
}

/// Text borrowed from the input where it has no escapes.
#[derive(Deserialize)]
struct Text<'a>(#[serde(borrow)] Cow<'a, str>);

/// An entry's field names, in their hashed order; any other name is refused.
#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "lowercase")]
enum Field {
    V,
    Seq,
    Time,
    Kind,
    Actor,
    Scope,
    Subject,
    Body,
}

/// A body decoded by the kind read before it.
struct BodyOf<'k>(&'k str);

impl<'de> DeserializeSeed<'de> for BodyOf<'_> {
    type Value = Option<Event>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Option<Event>, D::Error> {
        Event::deserialize_kind(self.0, d)
    }
}

/// Reads an entry's fields in one pass: [`EntryText::one_pass`]' reading. It refuses
/// unknown, missing and repeated fields, as the derived reading does.
struct OnePass;

impl<'de> Visitor<'de> for OnePass {
    type Value = EntryText<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a journal entry")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<EntryText<'de>, A::Error> {
        fn once<T, E: de::Error>(slot: &mut Option<T>, name: &'static str, v: T) -> Result<(), E> {
            match slot.replace(v) {
                None => Ok(()),
                Some(_) => Err(E::duplicate_field(name)),
            }
        }
        let (mut v, mut seq, mut time) = (None, None, None);
        let (mut kind, mut actor, mut scope, mut subject) = (None, None, None, None);
        // The body: decoded when the kind came first (always, in entries locker wrote); else
        // its text, decoded at the end.
        let mut body: Option<Result<Option<Event>, &'de RawValue>> = None;
        while let Some(field) = map.next_key::<Field>()? {
            match field {
                Field::V => once(&mut v, "v", map.next_value::<u32>()?)?,
                Field::Seq => once(&mut seq, "seq", map.next_value::<u64>()?)?,
                Field::Time => once(&mut time, "time", map.next_value::<i64>()?)?,
                Field::Kind => once(&mut kind, "kind", map.next_value::<Text<'de>>()?.0)?,
                Field::Actor => once(&mut actor, "actor", map.next_value::<Text<'de>>()?.0)?,
                Field::Scope => once(&mut scope, "scope", map.next_value::<Text<'de>>()?.0)?,
                Field::Subject => {
                    once(&mut subject, "subject", map.next_value::<Text<'de>>()?.0)?;
                }
                Field::Body => {
                    let value = match &kind {
                        Some(kind) => Ok(map.next_value_seed(BodyOf(kind))?),
                        None => Err(map.next_value::<&'de RawValue>()?),
                    };
                    once(&mut body, "body", value)?;
                }
            }
        }
        let kind = kind.ok_or_else(|| de::Error::missing_field("kind"))?;
        let event = match body.ok_or_else(|| de::Error::missing_field("body"))? {
            Ok(Some(event)) => Ok(event),
            Ok(None) => Err(DecodeError::UnknownKind(kind.clone().into_owned())),
            Err(text) => Event::decode_json(&kind, text.get()),
        };
        Ok(EntryText {
            v: v.ok_or_else(|| de::Error::missing_field("v"))?,
            seq: seq.ok_or_else(|| de::Error::missing_field("seq"))?,
            time: time.ok_or_else(|| de::Error::missing_field("time"))?,
            kind,
            actor: actor.ok_or_else(|| de::Error::missing_field("actor"))?,
            scope: scope.ok_or_else(|| de::Error::missing_field("scope"))?,
            subject: subject.ok_or_else(|| de::Error::missing_field("subject"))?,
            event,
        })
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

    /// The same reading as [`Entry::decode`] then [`Entry::event`], field for field.
    fn assert_reads_as_decode(t: &EntryText<'_>, bytes: &[u8]) {
        let e = Entry::decode(bytes).unwrap();
        assert_eq!((t.v, t.seq, t.time), (e.v, e.seq, e.time));
        assert_eq!(
            [&*t.kind, &*t.actor, &*t.scope, &*t.subject],
            [&e.kind, &e.actor, &e.scope, &e.subject].map(String::as_str)
        );
        match (&t.event, e.event()) {
            (Ok(a), Ok(b)) => assert_eq!(a, &b),
            (Err(DecodeError::UnknownKind(a)), Err(DecodeError::UnknownKind(b))) => {
                assert_eq!(a, &b);
            }
            // The error's text differs: one has the position in the entry's text.
            (
                Err(DecodeError::Malformed { kind: a, .. }),
                Err(DecodeError::Malformed { kind: b, .. }),
            ) => {
                assert_eq!(a, &b);
            }
            (a, b) => panic!("{a:?} against {b:?}"),
        }
    }

    #[test]
    fn entry_text_reads_what_decode_reads() {
        let mut e = entry(7, "pad:p");
        e.kind = "pad.seal".into();
        e.body = serde_json::json!({
            "pad_id": "p", "head_hash": "ab".repeat(32), "block_count": 2, "total_bytes": 7
        });
        let bytes = e.encode();
        let t = EntryText::one_pass(&bytes).unwrap();
        assert_reads_as_decode(&t, &bytes);
        assert_eq!(
            [&*t.kind, &*t.actor, &*t.scope, &*t.subject],
            ["pad.seal", "operator", "default", "pad:p"]
        );
        assert!(matches!(t.subject, Cow::Borrowed(_)));
        // Escaped text is unescaped.
        e.subject = "pad:\"q\"\u{e9}".into();
        let bytes = e.encode();
        assert_eq!(EntryText::one_pass(&bytes).unwrap().subject, e.subject);
        // A body before its kind (no entry locker writes has one) reads the same.
        let reordered = br#"{"body":{"pad_id":"p","head_hash":"abababababababababababababababababababababababababababababababab","block_count":2,"total_bytes":7},"v":1,"seq":7,"time":1,"kind":"pad.seal","actor":"a","scope":"s","subject":"pad:p"}"#;
        let t = EntryText::one_pass(reordered).unwrap();
        assert_reads_as_decode(&t, reordered);
        assert!(matches!(t.event, Ok(Event::PadSeal(_))));
        // A kind this version does not know: its body is skipped, and the event says so.
        e.kind = "pad.future".into();
        let bytes = e.encode();
        let t = EntryText::one_pass(&bytes).unwrap();
        assert_reads_as_decode(&t, &bytes);
        assert!(matches!(t.event, Err(DecodeError::UnknownKind(ref k)) if k == "pad.future"));
        // A body of the wrong shape is the event's error, not the entry's: the one pass
        // refuses it, and the second reading tells which it is.
        e.kind = "pad.seal".into();
        e.body = serde_json::json!({"pad_id": "p"});
        let bytes = e.encode();
        assert!(EntryText::one_pass(&bytes).is_err());
        let t = EntryText::parse(&bytes).unwrap();
        assert_reads_as_decode(&t, &bytes);
        assert!(matches!(t.event, Err(DecodeError::Malformed { .. })));
        // What `decode` refuses, `parse` refuses: unknown, missing or repeated fields.
        let refused: [&[u8]; 7] = [
            br#"{"v":1}"#,
            // Not UTF-8 (read as bytes, not text): a string holding a byte no text has.
            b"{\"v\":1,\"seq\":1,\"time\":1,\"kind\":\"k\",\"actor\":\"\xff\",\"scope\":\"s\",\"subject\":\"x\",\"body\":{}}",
            br#"{"v":1,"seq":1,"time":1,"kind":"k","actor":"a","scope":"s","subject":"x","body":{},"extra":1}"#,
            br#"{"v":1,"seq":1,"time":1,"kind":"k","kind":"k","actor":"a","scope":"s","subject":"x","body":{}}"#,
            br#"{"v":1,"seq":1,"time":1,"kind":"k","actor":"a","scope":"s","subject":"x","body":{},"body":{}}"#,
            br#"{"v":1,"seq":1,"time":1,"kind":"k","actor":"a","scope":"s","subject":"x","body":{}} x"#,
            b"not json",
        ];
        for bytes in refused {
            assert!(EntryText::parse(bytes).is_err(), "{}", String::from_utf8_lossy(bytes));
            assert!(Entry::decode(bytes).is_err(), "{}", String::from_utf8_lossy(bytes));
        }
    }

    /// Every entry of the golden fixture, which holds every kind and shape locker writes, is
    /// read in one pass, as the two readings read it.
    #[test]
    fn entry_text_reads_the_golden_journal_in_one_pass() {
        let golden = include_bytes!("../../tests/fixtures/golden/journal.jsonl");
        let mut n = 0;
        for line in golden.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            let text = String::from_utf8_lossy(line);
            let t = EntryText::one_pass(line).unwrap_or_else(|e| panic!("{e}: {text}"));
            assert!(t.event.is_ok(), "{text}");
            assert_reads_as_decode(&t, line);
            assert_reads_as_decode(&EntryText::two_steps(line).unwrap(), line);
            n += 1;
        }
        assert!(n > 50, "{n} entries");
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
