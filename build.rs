//! Stamps `locker --version` with the commit it was built from and that commit's date, as
//! cargo and rustc do (`locker 0.1.0 (3679e2a1c 2026-12-02)`). Outside a git checkout (a
//! packaged crate) the version is the plain package version; `LOCKER_BUILD_COMMIT` and
//! `LOCKER_BUILD_DATE` override both (release builds from an exported tree).

use std::path::PathBuf;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_owned())
}

fn main() {
    println!("cargo:rerun-if-env-changed=LOCKER_BUILD_COMMIT");
    println!("cargo:rerun-if-env-changed=LOCKER_BUILD_DATE");
    // A new commit or a checkout changes HEAD or the branch it names: build again then. Only
    // files that exist are named: cargo takes a missing one as changed at every build, which
    // rebuilt the crate each time in a repository without `packed-refs`.
    let watch = |path: PathBuf| {
        if path.exists() {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    };
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        watch(PathBuf::from(&dir).join("HEAD"));
    }
    if let (Some(common), Some(head)) =
        (git(&["rev-parse", "--git-common-dir"]), git(&["symbolic-ref", "-q", "HEAD"]))
    {
        let common = PathBuf::from(common);
        watch(common.join(head));
        watch(common.join("packed-refs"));
    }
    let commit = std::env::var("LOCKER_BUILD_COMMIT")
        .ok()
        .filter(|c| !c.is_empty())
        .or_else(|| git(&["rev-parse", "--short=9", "HEAD"]));
    let date = std::env::var("LOCKER_BUILD_DATE")
        .ok()
        .filter(|d| !d.is_empty())
        .or_else(|| git(&["log", "-1", "--format=%cs"]));
    let version = env!("CARGO_PKG_VERSION");
    let long = match (commit, date) {
        (Some(c), Some(d)) => format!("{version} ({c} {d})"),
        (Some(c), None) => format!("{version} ({c})"),
        _ => version.to_owned(),
    };
    println!("cargo:rustc-env=LOCKER_LONG_VERSION={long}");
}
