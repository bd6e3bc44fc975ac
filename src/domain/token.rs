//! Agent tokens and scopes.
//!
//! A token is `lk_` followed by 32 random bytes in URL-safe base64 (46 characters). Only its
//! SHA-256 is stored. Agent and scope names follow questlock: `^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`.

use super::secret::Secret;

/// The prefix of every agent token (it marks the string as a locker token, nothing more).
pub const TOKEN_PREFIX: &str = "lk_";
/// Longest agent or scope name.
pub const MAX_NAME_BYTES: usize = 64;
/// The actor name of the repository's operator, which no agent may take.
pub const OPERATOR: &str = "operator";
/// The scope the operator works in unless `--scope` names another.
pub const DEFAULT_SCOPE: &str = "default";

/// A name that breaks the naming rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidName {
    #[error("{0} must be 1–64 characters from A–Z, a–z, 0–9, `.`, `_` and `-`, starting with a letter or digit")]
    Pattern(&'static str),
    #[error("agent name `operator` is reserved for the repository's operator")]
    Reserved,
}

/// Whether `name` matches `^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`.
pub fn is_valid_name(name: &str) -> bool {
    let b = name.as_bytes();
    !b.is_empty()
        && b.len() <= MAX_NAME_BYTES
        && b[0].is_ascii_alphanumeric()
        && b.iter().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-'))
}

/// Checks an agent name.
pub fn check_agent(name: &str) -> Result<(), InvalidName> {
    if !is_valid_name(name) {
        return Err(InvalidName::Pattern("agent name"));
    }
    if name == OPERATOR {
        return Err(InvalidName::Reserved);
    }
    Ok(())
}

/// Checks a scope name.
pub fn check_scope(name: &str) -> Result<(), InvalidName> {
    if is_valid_name(name) {
        Ok(())
    } else {
        Err(InvalidName::Pattern("scope"))
    }
}

/// A new random token: `lk_` + 43 URL-safe base64 characters (256 bits).
pub fn generate() -> Secret {
    Secret::new(format!("{TOKEN_PREFIX}{}", Secret::generate().expose()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_questlocks_rule() {
        for ok in ["a", "worker-a", "A.b_c-9", &"x".repeat(64), "0"] {
            assert!(check_agent(ok).is_ok(), "{ok:?}");
            assert!(check_scope(ok).is_ok(), "{ok:?}");
        }
        for bad in ["", "../evil", ".hidden", "with space", "ä", &"x".repeat(65), "-a", "a/b"] {
            assert!(check_agent(bad).is_err(), "{bad:?}");
            assert!(check_scope(bad).is_err(), "{bad:?}");
        }
        assert_eq!(check_agent("operator"), Err(InvalidName::Reserved));
        assert!(check_scope("operator").is_ok());
    }

    #[test]
    fn tokens_are_distinct_prefixed_and_46_characters() {
        let a = generate();
        let b = generate();
        assert_ne!(a, b);
        assert_eq!(a.expose().len(), 46);
        assert!(a.expose().starts_with(TOKEN_PREFIX));
        assert!(a.matches(&a.digest()));
        assert!(!a.matches(&b.digest()));
    }
}
