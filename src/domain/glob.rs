//! Path globs for an envelope's `allowed_paths`.
//!
//! A pattern is matched against a whole path relative to the repository root, with `/` as the
//! separator (as `git diff --name-only` prints it). It is anchored at both ends:
//!
//! - `**` as a whole segment matches zero or more segments (`src/**` matches everything under
//!   `src/`; `**/*.md` matches every Markdown file; `a/**/b` matches `a/b` and `a/x/y/b`);
//! - `*` matches any run of characters within one segment (never a `/`);
//! - `?` matches exactly one character other than `/`;
//! - every other character matches itself (no character classes, no escapes);
//! - a pattern ending in `/` means everything under that directory (`docs/` = `docs/**`);
//! - a leading `./` or `/` is ignored.

/// Whether `path` matches `pattern` (see the module documentation).
pub fn matches(pattern: &str, path: &str) -> bool {
    let pattern = normalise(pattern);
    let pat: Vec<&str> = pattern.split('/').collect();
    let segs: Vec<&str> = path.split('/').collect();
    match_segments(&pat, &segs)
}

/// Whether `path` matches any of `patterns`.
pub fn matches_any<'a>(patterns: impl IntoIterator<Item = &'a str>, path: &str) -> bool {
    patterns.into_iter().any(|p| matches(p, path))
}

fn normalise(pattern: &str) -> String {
    let mut p = pattern;
    while let Some(rest) = p.strip_prefix("./") {
        p = rest;
    }
    let p = p.trim_start_matches('/');
    if p.ends_with('/') {
        format!("{p}**")
    } else {
        p.to_owned()
    }
}

fn match_segments(pat: &[&str], segs: &[&str]) -> bool {
    match pat.split_first() {
        None => segs.is_empty(),
        Some((&"**", rest)) => {
            // Zero or more whole segments.
            (0..=segs.len()).any(|skip| match_segments(rest, &segs[skip..]))
        }
        Some((p, rest)) => match segs.split_first() {
            Some((s, srest)) => {
                match_segment(p.as_bytes(), s.as_bytes()) && match_segments(rest, srest)
            }
            None => false,
        },
    }
}

/// Matches one segment with `*` and `?` (iterative, with backtracking to the last `*`).
fn match_segment(p: &[u8], s: &[u8]) -> bool {
    let (mut pi, mut si) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        if pi < p.len() && p[pi] == b'*' {
            star = Some((pi, si));
            pi += 1;
        } else if pi < p.len() && (p[pi] == s[si] || (p[pi] == b'?' && is_char_start(s[si]))) {
            if p[pi] == b'?' {
                // `?` is one character: skip the continuation bytes of a UTF-8 sequence.
                si += 1;
                while si < s.len() && !is_char_start(s[si]) {
                    si += 1;
                }
            } else {
                si += 1;
            }
            pi += 1;
        } else if let Some((sp, ss)) = star {
            pi = sp + 1;
            si = ss + 1;
            while si < s.len() && !is_char_start(s[si]) {
                si += 1;
            }
            star = Some((sp, si));
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == b'*' {
        pi += 1;
    }
    pi == p.len()
}

fn is_char_start(b: u8) -> bool {
    b & 0xC0 != 0x80
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn literal_paths_are_anchored() {
        assert!(matches("src/main.rs", "src/main.rs"));
        assert!(!matches("src/main.rs", "src/main.rsx"));
        assert!(!matches("main.rs", "src/main.rs"));
        assert!(!matches("src", "src/main.rs"));
    }

    #[test]
    fn star_stays_within_a_segment() {
        assert!(matches("src/*.rs", "src/lib.rs"));
        assert!(matches("src/*", "src/lib.rs"));
        assert!(!matches("src/*", "src/a/lib.rs"));
        assert!(matches("*.md", "README.md"));
        assert!(!matches("*.md", "docs/README.md"));
        assert!(matches("src/*_test.rs", "src/_test.rs"));
        assert!(matches("a*b*c", "aXXbYYc"));
        assert!(!matches("a*b*c", "aXXbYY"));
        assert!(matches("*", "x"));
    }

    #[test]
    fn question_mark_is_one_character() {
        assert!(matches("v?.txt", "v1.txt"));
        assert!(!matches("v?.txt", "v10.txt"));
        assert!(!matches("a?b", "a/b"));
        assert!(matches("caf?.txt", "café.txt"));
    }

    #[test]
    fn double_star_spans_segments() {
        assert!(matches("src/**", "src/a/b/c.rs"));
        assert!(matches("src/**", "src/c.rs"));
        assert!(!matches("src/**", "srcx/c.rs"));
        assert!(!matches("src/**", "tests/c.rs"));
        assert!(matches("**/*.md", "README.md"));
        assert!(matches("**/*.md", "docs/a/b.md"));
        assert!(!matches("**/*.md", "docs/a/b.rs"));
        assert!(matches("a/**/b", "a/b"));
        assert!(matches("a/**/b", "a/x/y/b"));
        assert!(!matches("a/**/b", "a/x/y/c"));
        assert!(matches("**", "anything/at/all"));
    }

    #[test]
    fn trailing_slash_and_leading_dot() {
        assert!(matches("docs/", "docs/guide/x.md"));
        assert!(!matches("docs/", "docsx/a"));
        assert!(matches("./src/*.rs", "src/a.rs"));
        assert!(matches("/src/*.rs", "src/a.rs"));
    }

    #[test]
    fn other_characters_are_literal() {
        assert!(matches("a[1].txt", "a[1].txt"));
        assert!(!matches("a[1].txt", "a1.txt"));
        assert!(matches("a.b", "a.b"));
        assert!(!matches("a.b", "axb"));
    }
}
