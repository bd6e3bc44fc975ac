//! The committed man pages, completions and VERSION stay in step with the CLI and the crate.
//!
//! After changing the CLI, run `scripts/gen-docs.sh` (or these tests with `LOCKER_BLESS=1`)
//! and commit `man/`, `completions/` and `docs/json/`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::common::TestEnv;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn bless() -> bool {
    std::env::var_os("LOCKER_BLESS").is_some_and(|v| v == "1")
}

const HOW: &str = "run `scripts/gen-docs.sh` (or `LOCKER_BLESS=1 cargo test --test cli docs`) \
                   and commit man/, completions/ and docs/json/";

#[test]
fn test_docs_committed_files_equal_the_generated_ones() {
    let mut stale = Vec::new();
    for (rel, want) in locker::docs::generated_files() {
        let path = root().join(&rel);
        if std::fs::read(&path).ok().as_deref() != Some(&want[..]) {
            if bless() {
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, &want).unwrap();
            } else {
                stale.push(rel.display().to_string());
            }
        }
    }
    assert!(stale.is_empty(), "stale generated files: {stale:?}\n{HOW}");
}

#[test]
fn test_docs_no_extra_files_pile_up() {
    let want: BTreeSet<PathBuf> =
        locker::docs::generated_files().into_iter().map(|(rel, _)| rel).collect();
    let mut extra = Vec::new();
    for dir in locker::docs::DIRS {
        let Ok(entries) = std::fs::read_dir(root().join(dir)) else { continue };
        for entry in entries {
            let entry = entry.unwrap();
            let rel = Path::new(dir).join(entry.file_name());
            if !want.contains(&rel) {
                if bless() && entry.file_type().unwrap().is_file() {
                    std::fs::remove_file(entry.path()).unwrap();
                } else {
                    extra.push(rel.display().to_string());
                }
            }
        }
    }
    assert!(extra.is_empty(), "files no command generates: {extra:?}\n{HOW}");
}

#[test]
fn test_version_file_equals_the_crate_version() {
    let version = std::fs::read_to_string(root().join("VERSION")).unwrap();
    assert_eq!(
        version,
        format!("{}\n", env!("CARGO_PKG_VERSION")),
        "VERSION must mirror Cargo.toml"
    );
    // `-V` is the package version alone (`--version` adds the commit: see conventions.rs).
    let out = TestEnv::new().locker().arg("-V").output().unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), format!("locker {version}"));
    // install.sh carries the version it installs by default; release.sh stamps it again.
    let install = std::fs::read_to_string(root().join("install.sh")).unwrap();
    let stamped = format!("\nLOCKER_STAMPED_VERSION={}\n", env!("CARGO_PKG_VERSION"));
    assert!(install.contains(&stamped), "install.sh must contain `{}`", stamped.trim());
}

/// install.sh and the README download releases from the repository Cargo.toml names, as
/// scripts/release.sh stamps them; the source tree's install.sh carries no signing key.
#[test]
fn test_install_sh_downloads_from_the_repository_releases() {
    let releases = format!("{}/releases/download", env!("CARGO_PKG_REPOSITORY"));
    let install = std::fs::read_to_string(root().join("install.sh")).unwrap();
    let line = format!("\nDEFAULT_BASE_URL={releases}\n");
    assert!(install.contains(&line), "install.sh must contain `{}`", line.trim());
    let unstamped = "\nLOCKER_RELEASE_PUBLIC_KEY=''\n";
    assert!(install.contains(unstamped), "install.sh must contain `{}`", unstamped.trim());
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let url = format!("{releases}/v{}/install.sh", env!("CARGO_PKG_VERSION"));
    assert!(readme.contains(&url), "README.md must install from {url}");
}

/// Every `LOCKER_*` variable the source reads directly is documented in `man locker`.
#[test]
fn test_docs_man_page_lists_every_environment_variable() {
    fn scan(dir: &Path, found: &mut BTreeSet<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                scan(&path, found);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                for pat in ["env::var(\"", "env::var_os(\"", "env = \""] {
                    for (i, _) in text.match_indices(pat) {
                        let rest = &text[i + pat.len()..];
                        let name = &rest[..rest.find('"').unwrap()];
                        if name.starts_with("LOCKER_") {
                            found.insert(name.to_owned());
                        }
                    }
                }
            }
        }
    }
    let mut found = BTreeSet::new();
    scan(&root().join("src"), &mut found);
    assert!(found.contains("LOCKER_NOW"), "the scan finds variables: {found:?}");
    let page = std::fs::read_to_string(root().join("man/locker.1")).unwrap();
    let env = &page[page.find(".SH ENVIRONMENT").unwrap()..page.find(".SH FILES").unwrap()];
    let missing: Vec<_> = found.iter().filter(|n| !env.contains(&format!("\\fB{n}\\fR"))).collect();
    assert!(
        missing.is_empty(),
        "variables missing from ENVIRONMENT in man/locker.1: {missing:?}; add them to \
         locker::cli::ENVIRONMENT and {HOW}"
    );
    let reference = std::fs::read_to_string(root().join("docs/reference.md")).unwrap();
    let missing: Vec<_> =
        found.iter().filter(|n| !reference.contains(&format!("| `{n}` |"))).collect();
    assert!(missing.is_empty(), "variables missing from docs/reference.md: {missing:?}");
}

#[test]
fn test_help_shows_the_exit_code_table() {
    let out = TestEnv::new().locker().arg("--help").output().unwrap();
    assert!(out.status.success());
    let help = String::from_utf8(out.stdout).unwrap();
    let table = &help[help.find("Exit status:").expect("an exit status section")..];
    // Long meanings wrap onto indented continuation lines.
    let flat = table.split_whitespace().collect::<Vec<_>>().join(" ");
    for (code, meaning) in locker::cli::EXIT_CODES {
        assert!(flat.contains(&format!(" {code} {meaning}")), "code {code} missing:\n{table}");
        assert!(table.contains(&format!("\n  {code}  ")), "code {code} does not start a row");
    }
}

#[test]
fn test_completions_print_the_committed_scripts() {
    let env = TestEnv::new();
    for (shell, file) in [
        ("bash", "locker.bash"),
        ("zsh", "_locker"),
        ("fish", "locker.fish"),
        ("elvish", "locker.elv"),
        ("powershell", "_locker.ps1"),
    ] {
        let out = env.locker().args(["completions", shell]).output().unwrap();
        assert!(out.status.success(), "{shell}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(out.stderr.is_empty(), "{shell}");
        let committed = std::fs::read(root().join("completions").join(file)).unwrap();
        assert!(out.stdout == committed, "`locker completions {shell}` differs from {file}\n{HOW}");
    }
}

#[test]
fn test_completions_unknown_shell_is_a_usage_error() {
    let out = TestEnv::new().locker().args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
}

#[test]
fn test_util_generate_docs_writes_the_same_files_and_removes_stale_pages() {
    let env = TestEnv::new();
    let out_dir = env.path().join("out");
    std::fs::create_dir_all(out_dir.join("man")).unwrap();
    std::fs::write(out_dir.join("man/locker-renamed.1"), b"old").unwrap();
    std::fs::write(out_dir.join("man/unrelated.txt"), b"keep").unwrap();
    let out_arg = out_dir.to_str().unwrap();
    env.locker().args(["util", "generate-docs", "--out-dir", out_arg]).assert().success();
    for (rel, want) in locker::docs::generated_files() {
        assert_eq!(std::fs::read(out_dir.join(&rel)).unwrap(), want, "{}", rel.display());
    }
    assert!(!out_dir.join("man/locker-renamed.1").exists());
    assert_eq!(std::fs::read(out_dir.join("man/unrelated.txt")).unwrap(), b"keep");
    // A second run changes nothing.
    let again =
        env.locker().args(["util", "generate-docs", "--out-dir", out_arg]).output().unwrap();
    assert!(again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("0 generated files changed"));
}
