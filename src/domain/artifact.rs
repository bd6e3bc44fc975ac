//! Versioned artifacts: the input rules of questlock v0.1, with its exact messages, so that its
//! clients see the same answers.
//!
//! A key is a relative logical path: 1–512 bytes of UTF-8, `/`-separated, with no backslash,
//! no control character, and no empty, `.`, `..` or blank component. An operation id is 1–128
//! bytes of nonblank UTF-8 without control characters. Content is at most 1 MiB of any bytes.

/// Largest artifact content, in bytes (exactly 1 MiB is accepted).
pub const MAX_CONTENT_BYTES: usize = 1 << 20;
/// Longest key, in bytes.
pub const MAX_KEY_BYTES: usize = 512;
/// Longest operation id, in bytes.
pub const MAX_OP_ID_BYTES: usize = 128;
/// Largest expected version (so that the next version still fits in an `i64`).
pub const MAX_EXPECTED_VERSION: u64 = i64::MAX as u64 - 1;

/// An input that breaks a rule; its `Display` is questlock's message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum InvalidInput {
    #[error("key must contain 1–512 bytes of valid UTF-8 without backslashes")]
    KeyLength,
    #[error("key must not contain control characters")]
    KeyControl,
    #[error("key must be a relative logical path without empty, dot, or parent components")]
    KeyComponent,
    #[error("operation ID must contain 1–128 bytes of valid, nonblank UTF-8")]
    OpIdLength,
    #[error("operation ID must not contain control characters")]
    OpIdControl,
    #[error("expected version must be between 0 and 9223372036854775806")]
    ExpectedVersion,
    #[error("version must be between 1 and 9223372036854775807")]
    Version,
    #[error("content exceeds the 1 MiB limit")]
    ContentTooLarge,
}

/// Checks a key (questlock's order: length and backslash, control characters, components).
pub fn check_key(key: &str) -> Result<(), InvalidInput> {
    if key.is_empty() || key.len() > MAX_KEY_BYTES || key.contains('\\') {
        return Err(InvalidInput::KeyLength);
    }
    if key.chars().any(char::is_control) {
        return Err(InvalidInput::KeyControl);
    }
    if key.split('/').any(|c| c.is_empty() || c == "." || c == ".." || c.trim().is_empty()) {
        return Err(InvalidInput::KeyComponent);
    }
    Ok(())
}

/// Checks an operation id.
pub fn check_op_id(op: &str) -> Result<(), InvalidInput> {
    if op.is_empty() || op.len() > MAX_OP_ID_BYTES || op.trim().is_empty() {
        return Err(InvalidInput::OpIdLength);
    }
    if op.chars().any(char::is_control) {
        return Err(InvalidInput::OpIdControl);
    }
    Ok(())
}

/// Checks an expected version (0 means "must not exist yet").
pub fn check_expected(v: i64) -> Result<u64, InvalidInput> {
    u64::try_from(v)
        .ok()
        .filter(|v| *v <= MAX_EXPECTED_VERSION)
        .ok_or(InvalidInput::ExpectedVersion)
}

/// Checks a version number asked for by a read.
pub fn check_version(v: i64) -> Result<u64, InvalidInput> {
    u64::try_from(v).ok().filter(|v| *v >= 1).ok_or(InvalidInput::Version)
}

/// Checks the content's size.
pub fn check_content(content: &[u8]) -> Result<(), InvalidInput> {
    if content.len() > MAX_CONTENT_BYTES {
        return Err(InvalidInput::ContentTooLarge);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questlocks_bad_keys_are_rejected_with_its_messages() {
        let cases: &[(&str, InvalidInput)] = &[
            ("", InvalidInput::KeyLength),
            ("/absolute", InvalidInput::KeyComponent),
            ("a/", InvalidInput::KeyComponent),
            ("a//b", InvalidInput::KeyComponent),
            (".", InvalidInput::KeyComponent),
            ("..", InvalidInput::KeyComponent),
            ("a/../b", InvalidInput::KeyComponent),
            ("a/./b", InvalidInput::KeyComponent),
            ("a\\b", InvalidInput::KeyLength),
            ("a\nb", InvalidInput::KeyControl),
            ("\0", InvalidInput::KeyControl),
            ("a/ /b", InvalidInput::KeyComponent),
            ("a/\u{3000}/b", InvalidInput::KeyComponent),
            ("a\u{85}b", InvalidInput::KeyControl),
        ];
        for (key, want) in cases {
            assert_eq!(check_key(key), Err(*want), "{key:?}");
        }
        assert_eq!(check_key(&"a".repeat(513)), Err(InvalidInput::KeyLength));
        assert_eq!(check_key(&"a".repeat(512)), Ok(()));
        for ok in ["notes", "unicode/λ", "a/b/c.txt", "..a", "a.", " a", "a b/c"] {
            assert_eq!(check_key(ok), Ok(()), "{ok:?}");
        }
        assert_eq!(
            InvalidInput::KeyComponent.to_string(),
            "key must be a relative logical path without empty, dot, or parent components"
        );
    }

    #[test]
    fn op_ids_versions_and_content_at_their_edges() {
        for bad in ["", " ", "\t ", &"a".repeat(129)] {
            assert_eq!(check_op_id(bad), Err(InvalidInput::OpIdLength), "{bad:?}");
        }
        assert_eq!(check_op_id("a\nb"), Err(InvalidInput::OpIdControl));
        assert_eq!(check_op_id("a\u{7f}"), Err(InvalidInput::OpIdControl));
        assert_eq!(check_op_id(&"a".repeat(128)), Ok(()));
        assert_eq!(check_op_id(" x "), Ok(()));

        assert_eq!(check_expected(0), Ok(0));
        assert_eq!(check_expected(i64::MAX - 1), Ok(MAX_EXPECTED_VERSION));
        assert_eq!(check_expected(-1), Err(InvalidInput::ExpectedVersion));
        assert_eq!(check_expected(i64::MAX), Err(InvalidInput::ExpectedVersion));
        assert_eq!(check_version(0), Err(InvalidInput::Version));
        assert_eq!(check_version(1), Ok(1));

        assert_eq!(check_content(&vec![0; MAX_CONTENT_BYTES]), Ok(()));
        assert_eq!(
            check_content(&vec![0; MAX_CONTENT_BYTES + 1]),
            Err(InvalidInput::ContentTooLarge)
        );
        assert_eq!(check_content(b""), Ok(()));
    }
}
