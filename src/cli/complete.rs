//! Dynamic shell completion, as jj and uv do it (clap_complete's `COMPLETE=SHELL locker`).
//!
//! The scripts under `completions/` (and `locker completions SHELL`) only register a function
//! that calls `locker` back on every TAB with the words typed so far; locker answers from its
//! own command definition, so subcommands and options never go stale, and completes the
//! arguments that name a pad, a work item or an artifact key from the repository: pad ids,
//! work items and artifact keys that start with what was typed. The repository is found as
//! every command finds it (`-R`/`--repo` on the line, `LOCKER_DIR`, or the current directory
//! and its parents) and opened read-only; nothing is written, and on any error (no repository,
//! a PostgreSQL store, a server with `--remote`) no value is offered.

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;
use std::process::ExitCode;

use clap_complete::engine::{ArgValueCompleter, CompletionCandidate};
use clap_complete::env::{Bash, Elvish, EnvCompleter, Fish, Powershell, Zsh};
use clap_complete::{CompleteEnv, Shell};

use crate::ops::complete::{self as op, Candidate};
use crate::ops::{Clock as _, SystemClock};
use crate::repo::Location;

/// The environment variable that turns a run into a completion request (`COMPLETE=bash`).
pub const VAR: &str = "COMPLETE";

/// Answers a completion request (`COMPLETE=SHELL locker -- WORDS…`, or `COMPLETE=SHELL locker`
/// for the registration script) and returns its exit code; `None` for an ordinary run.
pub fn try_complete() -> Option<ExitCode> {
    let cwd = std::env::current_dir().ok();
    match CompleteEnv::with_factory(super::command)
        .var(VAR)
        .try_complete(std::env::args_os(), cwd.as_deref())
    {
        Ok(true) => Some(ExitCode::SUCCESS),
        Ok(false) => None,
        Err(e) => {
            let _ = e.print();
            Some(ExitCode::from(2))
        }
    }
}

/// The registration script for `shell`, calling `locker` on the `PATH` back: what
/// `completions/` holds and `locker completions SHELL` prints.
pub fn registration(shell: Shell) -> Vec<u8> {
    let completer: &dyn EnvCompleter = match shell {
        Shell::Bash => &Bash,
        Shell::Zsh => &Zsh,
        Shell::Fish => &Fish,
        Shell::Elvish => &Elvish,
        // `Shell` is non-exhaustive; PowerShell is the one left.
        _ => &Powershell,
    };
    let mut buf = Vec::new();
    completer
        .write_registration(VAR, "locker", "locker", "locker", &mut buf)
        .expect("writing to a Vec cannot fail");
    if shell == Shell::Zsh {
        // Installed as `_locker` in a directory of `fpath`, the file is the body of the
        // autoloaded function `_locker` that compinit binds to `locker`: on that first call it
        // must also complete, not only register the completer for the next TAB.
        buf.extend_from_slice(
            b"if [ \"$funcstack[1]\" = \"_locker\" ]; then\n    \
              _clap_dynamic_completer_locker \"$@\"\nfi\n",
        );
    }
    buf
}

/// Completes a pad id.
pub fn pads() -> ArgValueCompleter {
    ArgValueCompleter::new(|current: &OsStr| {
        let line = Line::parse();
        candidates(current, &line, |store, prefix| {
            op::pad_ids(store, line.scope.as_deref(), prefix, now())
        })
    })
}

/// Completes a work item (the name leases, manifests and steps are for).
pub fn work_items() -> ArgValueCompleter {
    ArgValueCompleter::new(|current: &OsStr| {
        let line = Line::parse();
        candidates(current, &line, |store, prefix| {
            op::work_items(store, line.scope_or_default(), prefix)
        })
    })
}

/// Completes an artifact key.
pub fn artifact_keys() -> ArgValueCompleter {
    ArgValueCompleter::new(|current: &OsStr| {
        let line = Line::parse();
        candidates(current, &line, |store, prefix| {
            op::artifact_keys(store, line.scope_or_default(), prefix)
        })
    })
}

/// The time pads expire against: `LOCKER_NOW` as commands take it, else the clock.
fn now() -> i64 {
    let fixed = std::env::var("LOCKER_NOW").ok().and_then(|v| v.trim().parse().ok());
    fixed.unwrap_or_else(|| SystemClock.now())
}

/// The candidates `find` reads from the repository of `line`; none on any error.
fn candidates(
    current: &OsStr,
    line: &Line,
    find: impl FnOnce(&mut dyn crate::store::Store, &str) -> crate::ops::OpResult<Vec<Candidate>>,
) -> Vec<CompletionCandidate> {
    let Some(prefix) = current.to_str() else { return Vec::new() };
    if line.remote {
        return Vec::new();
    }
    let found = line
        .location()
        .and_then(|loc| op::open(&loc).ok())
        .and_then(|mut store| find(store.as_mut(), prefix).ok());
    found
        .unwrap_or_default()
        .into_iter()
        .map(|c| CompletionCandidate::new(c.value).help(Some(c.help.into())))
        .collect()
}

/// What the words being completed say about where to look: `-R`/`--repo`, `--scope`, and
/// whether `--remote` (or `LOCKER_URL`) sends the command to a server.
#[derive(Debug, Default, PartialEq, Eq)]
struct Line {
    repo: Option<PathBuf>,
    scope: Option<String>,
    remote: bool,
}

impl Line {
    /// From this process's arguments: `locker -- locker WORDS…` (the words after the first
    /// `--`, the program's name first).
    fn parse() -> Self {
        let args: Vec<OsString> = std::env::args_os().collect();
        let words = args.iter().skip_while(|a| *a != "--").skip(2);
        let mut line = Self::of(words.map(|w| w.to_string_lossy().into_owned()));
        line.remote |= std::env::var_os("LOCKER_URL").is_some_and(|u| !u.is_empty());
        line
    }

    fn of(words: impl Iterator<Item = String>) -> Self {
        let mut line = Self::default();
        let mut words = words.peekable();
        while let Some(w) = words.next() {
            if w == "--" {
                break;
            }
            let (name, inline) = match w.split_once('=') {
                Some((n, v)) if n.starts_with("--") => (n.to_owned(), Some(v.to_owned())),
                _ => (w.clone(), None),
            };
            let mut value = |inline: Option<String>| inline.or_else(|| words.next());
            match name.as_str() {
                "-R" | "--repo" => line.repo = value(inline).map(PathBuf::from),
                "--scope" => line.scope = value(inline),
                "--remote" => line.remote = true,
                n if n.starts_with("-R") && n.len() > 2 => line.repo = Some(PathBuf::from(&n[2..])),
                _ => {}
            }
        }
        line
    }

    fn scope_or_default(&self) -> &str {
        self.scope.as_deref().unwrap_or(crate::domain::token::DEFAULT_SCOPE)
    }

    /// Where the repository is: `-R`, else `LOCKER_DIR`, else the current directory's.
    fn location(&self) -> Option<Location> {
        let dir = std::env::var_os("LOCKER_DIR").filter(|d| !d.is_empty()).map(PathBuf::from);
        match self.repo.clone().or(dir) {
            Some(p) => Some(Location::Exact(p)),
            None => std::env::current_dir().ok().map(Location::Search),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(words: &[&str]) -> Line {
        Line::of(words.iter().map(|w| (*w).to_owned()))
    }

    #[test]
    fn the_line_names_the_repository_and_scope() {
        assert_eq!(line(&["pad", "show", ""]), Line::default());
        let l = line(&["-R", "/r", "--scope", "s", "lease", "show"]);
        assert_eq!((l.repo, l.scope), (Some(PathBuf::from("/r")), Some("s".to_owned())));
        let l = line(&["--repo=/r", "--scope=s", "artifact", "get"]);
        assert_eq!((l.repo, l.scope), (Some(PathBuf::from("/r")), Some("s".to_owned())));
        assert_eq!(line(&["-R/x", "pad"]).repo, Some(PathBuf::from("/x")));
        assert!(line(&["--remote", "http://127.0.0.1:1", "pad", "show"]).remote);
        assert_eq!(line(&["--", "-R", "/r"]).repo, None);
        assert_eq!(line(&["pad", "show"]).scope_or_default(), "default");
    }

    #[test]
    fn registrations_call_locker_back() {
        for shell in super::super::docs::SHELLS {
            let script = String::from_utf8(registration(shell)).unwrap();
            assert!(script.contains("COMPLETE"), "{shell}: {script}");
            assert!(script.contains("locker"), "{shell}");
        }
        let zsh = String::from_utf8(registration(Shell::Zsh)).unwrap();
        assert!(zsh.starts_with("#compdef locker\n"), "{zsh}");
        assert!(zsh.ends_with("_clap_dynamic_completer_locker \"$@\"\nfi\n"), "{zsh}");
    }
}
