//! Man pages, shell completions and the JSON Schemas of `--json` outputs, rendered from the CLI
//! definition and the output types so they never drift.
//!
//! `locker util generate-docs` (wrapped by `scripts/gen-docs.sh`) writes them into `man/`,
//! `completions/` and `docs/json/`; a test compares the committed files with
//! [`generated_files`]. The output depends only on the CLI definition, the output types and the
//! crate version: no date, no environment, no terminal width.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use clap_complete::{Generator as _, Shell};

/// The directories the generated files live in, relative to the repository root.
pub const DIRS: [&str; 3] = ["man", "completions", super::json_schema::DIR];

/// The shells `locker completions` supports, in the order their files are generated.
pub const SHELLS: [Shell; 5] =
    [Shell::Bash, Shell::Zsh, Shell::Fish, Shell::Elvish, Shell::PowerShell];

/// Every generated file: its path relative to the repository root, and its bytes.
pub fn generated_files() -> Vec<(PathBuf, Vec<u8>)> {
    // The man pages name the package version only: the commit would change them every commit.
    let mut cmd = crate::cli::command().long_version(None::<&str>).disable_help_subcommand(true);
    cmd.build();
    let mut files = Vec::new();
    walk(&cmd, &[], &root_sections(&cmd), &mut files);
    for shell in SHELLS {
        files.push((
            PathBuf::from("completions").join(shell.file_name("locker")),
            completion(shell),
        ));
    }
    files.extend(super::json_schema::generated_files());
    files
}

/// The completion script for `shell`, exactly as committed under `completions/`: it registers
/// locker's dynamic completion (see `cli::complete`).
pub fn completion(shell: Shell) -> Vec<u8> {
    super::complete::registration(shell)
}

/// Whether `name` (a file name inside `dir`) is one of the files generate-docs owns, so that
/// stale ones can be removed without touching anything else a directory may hold.
fn is_ours(dir: &str, name: &str) -> bool {
    match dir {
        "man" => name.starts_with("locker") && name.ends_with(".1"),
        super::json_schema::DIR => name.ends_with(".schema.json"),
        _ => name.starts_with("locker.") || name.starts_with("_locker"),
    }
}

const OK: &str = "writing to a Vec cannot fail";

/// Renders `cmd`'s page and its visible subcommands' pages; `parents` are the page names
/// above it (`locker`, `locker-pad`, …), for SEE ALSO.
fn walk(cmd: &clap::Command, parents: &[String], root: &str, files: &mut Vec<(PathBuf, Vec<u8>)>) {
    let page = cmd.get_display_name().unwrap_or_else(|| cmd.get_name()).to_owned();
    let man = clap_mangen::Man::new(cmd.clone())
        .title(page.to_uppercase())
        .source(concat!("locker ", env!("CARGO_PKG_VERSION")))
        .manual("Locker Manual");
    let mut buf = Vec::new();
    man.render_title(&mut buf).expect(OK);
    man.render_name_section(&mut buf).expect(OK);
    man.render_synopsis_section(&mut buf).expect(OK);
    man.render_description_section(&mut buf).expect(OK);
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(&mut buf).expect(OK);
    }
    if cmd.get_subcommands().any(|s| !s.is_hide_set()) {
        man.render_subcommands_section(&mut buf).expect(OK);
    }
    if parents.is_empty() {
        buf.extend_from_slice(root.as_bytes());
        man.render_version_section(&mut buf).expect(OK);
    } else {
        let mut see = String::from(".SH \"SEE ALSO\"\n");
        let refs: Vec<String> = parents.iter().map(|p| format!("\\fB{}\\fR(1)", esc(p))).collect();
        let _ = writeln!(see, "{}", refs.join(", "));
        buf.extend_from_slice(see.as_bytes());
    }
    files.push((PathBuf::from("man").join(man.get_filename()), ascii_roff(&buf)));

    let mut below = parents.to_vec();
    below.push(page);
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        walk(sub, &below, root, files);
    }
}

/// EXIT STATUS, ENVIRONMENT, FILES and EXAMPLES, for `locker.1` only.
fn root_sections(cmd: &clap::Command) -> String {
    let mut s = String::new();
    s.push_str(".SH \"EXIT STATUS\"\n");
    s.push_str("Every command uses the same exit codes:\n");
    for (code, meaning) in crate::cli::EXIT_CODES {
        let _ = write!(s, ".TP\n\\fB{code}\\fR\n{}\n", esc(meaning));
    }
    s.push_str(
        ".PP\nWith \\fB\\-\\-json\\fR, errors are one JSON object on stderr: \
         \\fB{\"error\": CODE, \"detail\": TEXT, ...}\\fR.\n",
    );

    s.push_str(".SH ENVIRONMENT\n");
    for (name, text) in environment(cmd) {
        let _ = write!(s, ".TP\n\\fB{}\\fR\n{}\n", esc(&name), esc(&text));
    }

    let dot = ".locker";
    s.push_str(".SH FILES\n");
    for (path, text) in [
        (
            format!("{dot}/"),
            "The repository, found in the current directory or its parents (or given by \
             -R/LOCKER_DIR); created 0700."
                .to_owned(),
        ),
        (
            format!("{dot}/{}", crate::repo::CONFIG_FILE),
            "The repository's format, id, creation time and store.".to_owned(),
        ),
        (
            format!("{dot}/{}", crate::repo::DB_FILE),
            "The SQLite database (WAL mode): the journal and all state (pads, artifacts, \
             leases, plans, steps, tokens)."
                .to_owned(),
        ),
        (
            format!("{dot}/{}/", crate::repo::OBJECTS_DIR),
            "Content-addressed blobs too large to keep in the database.".to_owned(),
        ),
    ] {
        let _ = write!(s, ".TP\n\\fI{}\\fR\n{}\n", esc(&path), esc(&text));
    }

    s.push_str(".SH EXAMPLES\n");
    for (what, lines) in EXAMPLES {
        let _ = writeln!(s, ".PP\n{}\n.PP\n.RS 4\n.nf", esc(what));
        for line in *lines {
            let _ = writeln!(s, "{}", esc(line));
        }
        s.push_str(".fi\n.RE\n");
    }
    s
}

const EXAMPLES: &[(&str, &[&str])] = &[
    (
        "Create a repository, a pad, fill it, seal it and read it back:",
        &[
            "locker init",
            "locker pad create --json > pad.json",
            "PAD=$(jq -r .pad_id pad.json)",
            "export LOCKER_WRITE_KEY=$(jq -r .write_key pad.json)",
            "locker append \"$PAD\" envelope.json",
            "locker seal \"$PAD\"",
            "locker pad read \"$PAD\" --ticket \"$(jq -r .read_ticket pad.json)\"",
        ],
    ),
    (
        "Create, fill and seal a pad in one atomic step:",
        &["locker deposit --envelope envelope.json --artifact plan.md --artifact result.json"],
    ),
    (
        "Check the whole repository, like git fsck (exit 1 names what was altered):",
        &["locker verify"],
    ),
    (
        "Install bash completions for the current user:",
        &["locker completions bash > ~/.local/share/bash-completion/completions/locker"],
    ),
];

/// The environment variables locker reads: every visible option's `env`, then the ones read
/// directly ([`crate::cli::ENVIRONMENT`]).
fn environment(cmd: &clap::Command) -> Vec<(String, String)> {
    fn collect(cmd: &clap::Command, out: &mut Vec<(String, String)>) {
        for arg in cmd.get_arguments().filter(|a| !a.is_hide_set() && !a.is_hide_env_set()) {
            let Some(env) = arg.get_env() else { continue };
            let name = env.to_string_lossy().into_owned();
            if out.iter().any(|(n, _)| *n == name) {
                continue;
            }
            let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
            let flag = arg.get_long().map_or_else(String::new, |l| format!(" (like --{l})"));
            out.push((name, format!("{}{flag}.", help.trim_end_matches('.'))));
        }
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            collect(sub, out);
        }
    }
    let mut out = Vec::new();
    collect(cmd, &mut out);
    for (name, text) in crate::cli::ENVIRONMENT {
        if !out.iter().any(|(n, _)| n == name) {
            out.push(((*name).to_owned(), (*text).to_owned()));
        }
    }
    out
}

/// Escapes text for a roff line: backslashes, hyphens (so options copy-paste as ASCII), and
/// a leading control character.
fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    if text.starts_with(['.', '\'']) {
        out.push_str("\\&");
    }
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\e"),
            '-' => out.push_str("\\-"),
            c => out.push(c),
        }
    }
    out
}

/// Spells every non-ASCII character as a roff `\[uXXXX]` escape, so pages render the same
/// whatever the formatter's input encoding.
fn ascii_roff(page: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(page);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let _ = write!(out, "\\[u{:04X}]", u32::from(c));
        }
    }
    out.into_bytes()
}

/// Writes every generated file under `root` (only those whose bytes changed) and removes
/// stale ones that generate-docs once wrote; returns the paths written or removed.
pub fn write_all(root: &Path) -> std::io::Result<Vec<PathBuf>> {
    let files = generated_files();
    let mut changed = Vec::new();
    for dir in DIRS {
        let d = root.join(dir);
        std::fs::create_dir_all(&d)?;
        for entry in std::fs::read_dir(&d)? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let rel = Path::new(dir).join(&name);
            if entry.file_type()?.is_file()
                && is_ours(dir, &name)
                && !files.iter().any(|(p, _)| *p == rel)
            {
                std::fs::remove_file(entry.path())?;
                changed.push(rel);
            }
        }
    }
    for (rel, bytes) in files {
        let path = root.join(&rel);
        if std::fs::read(&path).ok().as_deref() != Some(&bytes[..]) {
            std::fs::write(&path, &bytes)?;
            changed.push(rel);
        }
    }
    Ok(changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generation_is_deterministic_and_paths_are_unique() {
        let a = generated_files();
        assert_eq!(a, generated_files());
        let mut paths: Vec<_> = a.iter().map(|(p, _)| p.clone()).collect();
        paths.sort();
        paths.dedup();
        assert_eq!(paths.len(), a.len());
        for (p, _) in &a {
            let dir = p.parent().and_then(Path::to_str).unwrap_or_default();
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            assert!(is_ours(dir, name), "{}", p.display());
        }
    }

    #[test]
    fn the_root_page_has_the_extra_sections_and_no_date() {
        let files = generated_files();
        let page = |name: &str| {
            let (_, b) = files.iter().find(|(p, _)| p == &Path::new("man").join(name)).unwrap();
            String::from_utf8(b.clone()).unwrap()
        };
        let root = page("locker.1");
        for section in [".SH \"EXIT STATUS\"", ".SH ENVIRONMENT", ".SH FILES", ".SH EXAMPLES"] {
            assert!(root.contains(section), "{section}");
        }
        assert!(root.contains("\\fBLOCKER_DIR\\fR"));
        assert!(root.contains("\\fBLOCKER_WRITE_KEY\\fR"));
        assert!(root.contains("\\fBLOCKER_NOW\\fR"));
        assert!(root.starts_with(".ie \\n(.g .ds Aq \\(aq\n.el .ds Aq '\n.TH LOCKER 1  \"locker "));
        let create = page("locker-pad-create.1");
        assert!(!create.contains("EXIT STATUS"));
        assert!(create.contains(".SH \"SEE ALSO\"\n\\fBlocker\\fR(1), \\fBlocker\\-pad\\fR(1)\n"));
        assert!(!files.iter().any(|(p, _)| p.to_string_lossy().contains("util")));
    }

    #[test]
    fn escaping() {
        assert_eq!(esc(".x -y \\z"), "\\&.x \\-y \\ez");
        assert_eq!(esc("'q"), "\\&'q");
        assert_eq!(ascii_roff("1\u{2013}2 \u{2026}".as_bytes()), b"1\\[u2013]2 \\[u2026]");
    }
}
