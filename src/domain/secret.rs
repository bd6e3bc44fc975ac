//! Secrets (write keys, read tickets, tokens): random, shown once, stored only as SHA-256,
//! compared in constant time.

use std::fmt;

use base64::Engine as _;
use subtle::ConstantTimeEq as _;

use super::digest::Digest;

/// A secret value; its `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// 32 random bytes as URL-safe base64 without padding (43 characters), like the peer's
    /// `secrets.token_urlsafe(32)`.
    pub fn generate() -> Self {
        Self(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(random_bytes::<32>()))
    }

    pub fn new(s: impl Into<String>) -> Self {
        Self(s.into())
    }

    /// The secret itself, for showing it once.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// The SHA-256 of the secret's UTF-8 bytes: what is stored.
    pub fn digest(&self) -> Digest {
        Digest::of(self.0.as_bytes())
    }

    /// Whether this secret's digest equals `stored`, in constant time.
    pub fn matches(&self, stored: &Digest) -> bool {
        bool::from(self.digest().0.ct_eq(&stored.0))
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// `N` bytes from the operating system's random source.
pub fn random_bytes<const N: usize>() -> [u8; N] {
    let mut b = [0u8; N];
    getrandom::fill(&mut b).expect("the operating system's random source is available");
    b
}

/// A new random id: 32 lowercase hex characters (like the peer's `uuid4().hex` pad ids).
pub fn random_id() -> String {
    super::digest::hex(&random_bytes::<16>())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_secrets_are_distinct_and_shaped_like_the_peers() {
        let a = Secret::generate();
        let b = Secret::generate();
        assert_ne!(a, b);
        assert_eq!(a.expose().len(), 43);
        assert!(a.expose().bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'));
        assert_eq!(format!("{a:?}"), "Secret(***)");
        assert!(a.matches(&a.digest()));
        assert!(!b.matches(&a.digest()));
        assert_eq!(random_id().len(), 32);
    }
}
