//! SHA-256 digests, shown as 64 lowercase hex characters.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use sha2::{Digest as _, Sha256};

/// A SHA-256 digest.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Digest(pub [u8; 32]);

/// A SHA-256 computed over parts fed one at a time (for streams too long to hold).
#[derive(Clone, Default)]
pub struct Hasher(Sha256);

impl Hasher {
    pub fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    pub fn finish(self) -> Digest {
        Digest(self.0.finalize().into())
    }

    /// The digest of what was fed so far; feeding may go on.
    pub fn digest(&self) -> Digest {
        self.clone().finish()
    }
}

impl fmt::Debug for Hasher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Hasher({}…)", &self.digest().to_hex()[..12])
    }
}

/// A string that is not 64 lowercase hex characters.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected 64 lowercase hex characters")]
pub struct InvalidDigest;

impl Digest {
    /// The all-zero digest: the `prev_hash` of block 0 and the head of an empty pad.
    pub const ZERO: Self = Self([0; 32]);

    /// The SHA-256 of `bytes`.
    pub fn of(bytes: &[u8]) -> Self {
        Self(Sha256::digest(bytes).into())
    }

    /// The SHA-256 of several parts, hashed as their concatenation.
    pub fn of_parts(parts: &[&[u8]]) -> Self {
        let mut h = Sha256::new();
        for p in parts {
            h.update(p);
        }
        Self(h.finalize().into())
    }

    /// Lowercase hex.
    pub fn to_hex(&self) -> String {
        hex(&self.0)
    }

    /// Writes the lowercase hex into `out` (64 bytes), without allocating.
    pub fn write_hex(&self, out: &mut [u8; 64]) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        for (i, b) in self.0.iter().enumerate() {
            out[2 * i] = HEX[usize::from(b >> 4)];
            out[2 * i + 1] = HEX[usize::from(b & 0xf)];
        }
    }

    /// Parses exactly 64 lowercase hex characters.
    pub fn parse(s: &str) -> Result<Self, InvalidDigest> {
        Self::parse_bytes(s.as_bytes())
    }

    /// [`Self::parse`] of text given as bytes (a database column read without copying it).
    pub fn parse_bytes(b: &[u8]) -> Result<Self, InvalidDigest> {
        let Ok(b) = <&[u8; 64]>::try_from(b) else { return Err(InvalidDigest) };
        // A table lookup per character and one check at the end: `locker verify` parses
        // millions of stored digests.
        let mut out = [0u8; 32];
        let mut bad = 0u8;
        for (o, pair) in out.iter_mut().zip(b.chunks_exact(2)) {
            let (hi, lo) = (NIBBLE[usize::from(pair[0])], NIBBLE[usize::from(pair[1])]);
            bad |= hi | lo;
            *o = (hi << 4) | (lo & 0x0f);
        }
        if bad & 0xf0 != 0 {
            return Err(InvalidDigest);
        }
        Ok(Self(out))
    }
}

/// Each byte's value as a lowercase hex digit, or 0xff when it is not one.
const NIBBLE: [u8; 256] = {
    let mut t = [0xffu8; 256];
    let mut c = 0;
    while c < 10 {
        t[b'0' as usize + c] = c as u8;
        c += 1;
    }
    let mut c = 0;
    while c < 6 {
        t[b'a' as usize + c] = 10 + c as u8;
        c += 1;
    }
    t
};

/// Lowercase hex of any bytes.
pub fn hex(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(char::from(HEX[usize::from(b >> 4)]));
        s.push(char::from(HEX[usize::from(b & 0xf)]));
    }
    s
}

impl Default for Digest {
    fn default() -> Self {
        Self::ZERO
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl fmt::Debug for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Digest({}…)", &self.to_hex()[..12])
    }
}

impl Serialize for Digest {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_hex())
    }
}

impl<'de> Deserialize<'de> for Digest {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // Parsed from the text as the deserializer holds it, without copying it into a
        // `String` first (`locker verify` decodes a digest or two in millions of entries).
        struct Hex;
        impl serde::de::Visitor<'_> for Hex {
            type Value = Digest;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("64 lowercase hex characters")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Digest, E> {
                Digest::parse(s).map_err(E::custom)
            }
        }
        d.deserialize_str(Hex)
    }
}

impl schemars::JsonSchema for Digest {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Digest".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": "^[0-9a-f]{64}$",
            "description": "A SHA-256 digest: 64 lowercase hex characters"
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_answer_and_round_trip() {
        let d = Digest::of(b"abc");
        assert_eq!(d.to_hex(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert_eq!(Digest::parse(&d.to_hex()), Ok(d));
        let mut buf = [0u8; 64];
        d.write_hex(&mut buf);
        assert_eq!(&buf[..], d.to_hex().as_bytes());
        assert_eq!(Digest::ZERO.to_hex(), "0".repeat(64));
    }

    #[test]
    fn parse_rejects_bad_input() {
        assert!(Digest::parse("").is_err());
        assert!(Digest::parse(&"A".repeat(64)).is_err());
        assert!(Digest::parse(&"0".repeat(63)).is_err());
        assert!(Digest::parse(&"g".repeat(64)).is_err());
    }

    #[test]
    fn parse_takes_exactly_lowercase_hex_at_every_position() {
        let base = Digest::of(b"position").to_hex().into_bytes();
        for pos in [0, 1, 31, 62, 63] {
            for c in 0..=255u8 {
                let mut s = base.clone();
                s[pos] = c;
                let digit = match c {
                    b'0'..=b'9' => Some(c - b'0'),
                    b'a'..=b'f' => Some(c - b'a' + 10),
                    _ => None,
                };
                let parsed = Digest::parse_bytes(&s);
                match digit {
                    None => assert_eq!(parsed, Err(InvalidDigest), "byte {c} at {pos}"),
                    Some(v) => {
                        let d = parsed.unwrap();
                        let byte = d.0[pos / 2];
                        let got = if pos % 2 == 0 { byte >> 4 } else { byte & 0x0f };
                        assert_eq!(got, v, "byte {c} at {pos}");
                        assert_eq!(d.to_hex().as_bytes(), &s[..]);
                    }
                }
            }
        }
    }
}
