//! Path globs for an envelope's `allowed_paths` (and any other list of path patterns), the
//! globs users know from git, shells and ripgrep, compiled by the `globset` crate into one
//! automaton: matching takes time linear in the path, whatever the pattern.
//!
//! A pattern is matched against a whole path relative to the repository root, with `/` as the
//! separator (as `git diff --name-only` prints it). It is anchored at both ends:
//!
//! - `**` as a whole segment matches zero or more segments (`src/**` matches everything under
//!   `src/`; `**/*.md` matches every Markdown file; `a/**/b` matches `a/b` and `a/x/y/b`);
//! - `*` matches any run of characters within one segment (never a `/`);
//! - `?` matches exactly one byte other than `/` (as in git: `é` is two);
//! - `[abc]`, `[a-z]` and `[!a-z]` match one character of (or not of) a class;
//! - `{a,b}` matches either alternative (`src/{lib,main}.rs`);
//! - `\` escapes the character after it (`a\[1\].txt` is the literal name `a[1].txt`);
//! - a pattern ending in `/` means everything under that directory (`docs/` = `docs/**`);
//! - a leading `./` or `/` is ignored.
//!
//! A pattern that does not parse (an unclosed `[` or `{`, a dangling `\`) is an error that
//! names it: [`Globs::new`].

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

/// A pattern that is not a valid glob, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid pattern '{pattern}': {reason}")]
pub struct PatternError {
    /// The pattern as given.
    pub pattern: String,
    pub reason: String,
}

/// A compiled list of patterns: a path matches when any pattern matches it.
#[derive(Debug, Clone)]
pub struct Globs(GlobSet);

impl Globs {
    /// Compiles `patterns`; the first one that is not a valid glob is the error.
    pub fn new<'a>(patterns: impl IntoIterator<Item = &'a str>) -> Result<Self, PatternError> {
        let mut set = GlobSetBuilder::new();
        for pattern in patterns {
            set.add(compile(pattern)?);
        }
        set.build().map(Self).map_err(|e| PatternError {
            pattern: e.glob().unwrap_or_default().to_owned(),
            reason: e.kind().to_string(),
        })
    }

    /// Whether `path` matches any of the patterns.
    pub fn is_match(&self, path: &str) -> bool {
        self.0.is_match(path)
    }
}

/// Checks that `pattern` is a valid glob.
pub fn check(pattern: &str) -> Result<(), PatternError> {
    compile(pattern).map(drop)
}

fn compile(pattern: &str) -> Result<globset::Glob, PatternError> {
    GlobBuilder::new(&normalise(pattern))
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map_err(|e| PatternError { pattern: pattern.to_owned(), reason: e.kind().to_string() })
}

/// Whether `path` matches `pattern` (an invalid pattern matches nothing).
pub fn matches(pattern: &str, path: &str) -> bool {
    Globs::new([pattern]).is_ok_and(|g| g.is_match(path))
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

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::{check, matches, Globs};

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
        // As in git, `?` is one byte: a non-ASCII character is several.
        assert!(matches("caf??.txt", "café.txt"));
        assert!(matches("caf*.txt", "café.txt"));
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
    fn classes_and_braces_are_the_globs_users_know() {
        // See: #18 (they were literal text).
        assert!(matches("a[12].txt", "a1.txt"));
        assert!(!matches("a[12].txt", "a3.txt"));
        assert!(!matches("a[12].txt", "a[12].txt"));
        assert!(matches("v[0-9].md", "v7.md"));
        assert!(matches("v[!0-9].md", "vx.md"));
        assert!(!matches("v[!0-9].md", "v7.md"));
        assert!(!matches("a[/]b", "a/b"), "a class never matches the separator");
        assert!(matches("src/{lib,main}.rs", "src/main.rs"));
        assert!(matches("{src,tests}/**", "tests/cli/x.rs"));
        assert!(!matches("src/{lib,main}.rs", "src/mod.rs"));
        assert!(matches(r"a\[1\].txt", "a[1].txt"), "an escape makes it literal");
        assert!(matches("a.b", "a.b"));
        assert!(!matches("a.b", "axb"));
    }

    #[test]
    fn invalid_patterns_are_errors_naming_the_pattern() {
        for bad in ["src/[ab", "src/{a,b", r"src\"] {
            let e = check(bad).unwrap_err();
            assert_eq!(e.pattern, bad);
            assert!(e.to_string().starts_with(&format!("invalid pattern '{bad}': ")), "{e}");
            let e = Globs::new(["ok/**", bad]).unwrap_err();
            assert_eq!(e.pattern, bad);
        }
        assert!(!matches("src/[ab", "src/a"));
    }

    #[test]
    fn matching_time_is_linear_whatever_the_pattern() {
        // See: #18. The backtracking matcher took over 30 s on 12 `**` and a 29-deep path.
        let pattern = ["**"; 12].join("/") + "/x";
        let path = ["d"; 29].join("/") + "/y";
        let globs = Globs::new([pattern.as_str()]).unwrap();
        let start = Instant::now();
        assert!(!globs.is_match(&path));
        let deep = ["d"; 29].join("/") + "/x";
        assert!(globs.is_match(&deep));
        assert!(start.elapsed() < Duration::from_secs(1), "{:?}", start.elapsed());
    }
}
