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
    let relr = pack_relative_relocs();
    if relr {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
    // For the test that checks the binary has them when the probe said it could.
    println!("cargo:rustc-env=LOCKER_BUILD_RELR={}", u8::from(relr));
    let ordered = startup_order();
    if let Some(file) = &ordered {
        println!("cargo:rustc-link-arg-bins=-Wl,--symbol-ordering-file={}", file.display());
        println!("cargo:rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
    }
    println!("cargo:rustc-env=LOCKER_BUILD_ORDERED={}", u8::from(ordered.is_some()));
}

/// The file that lays out the functions the CLI runs first in the binary's code
/// (`scripts/startup-order.txt`, written by `scripts/startup-order.sh`, which says why), when the
/// binary is linked by rustc's own lld, which reads it: x86_64 Linux with glibc, rustc 1.90 or
/// later (which links with lld there), and no linker chosen instead (`RUSTC_LINKER`, a
/// `-C linker…` or `-fuse-ld` in the flags). Other linkers do not know the option, so there the
/// binary is linked as before; `LOCKER_NO_ORDER` turns it off.
fn startup_order() -> Option<PathBuf> {
    let var = |k: &str| std::env::var(k).unwrap_or_default();
    println!("cargo:rerun-if-env-changed=LOCKER_NO_ORDER");
    let file = PathBuf::from(var("CARGO_MANIFEST_DIR")).join("scripts/startup-order.txt");
    println!("cargo:rerun-if-changed={}", file.display());
    let flags = var("CARGO_ENCODED_RUSTFLAGS");
    if !var("LOCKER_NO_ORDER").is_empty()
        || var("TARGET") != "x86_64-unknown-linux-gnu"
        || std::env::var_os("RUSTC_LINKER").is_some()
        || flags.contains("linker")
        || flags.contains("fuse-ld")
        || !file.is_file()
    {
        return None;
    }
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let out = Command::new(rustc).arg("--version").output().ok()?;
    // `rustc 1.95.0 (59807616e 2026-04-14)`
    let text = String::from_utf8(out.stdout).ok()?;
    let version = text.split_whitespace().nth(1)?;
    let mut parts = version.split(['.', '-']).map(|p| p.parse::<u32>().ok());
    let (major, minor) = (parts.next()??, parts.next()??);
    ((major, minor) >= (1, 90)).then_some(file)
}

/// Whether to link the binary with packed relative relocations (`DT_RELR`): a position-
/// independent binary this size carries about 30,000 of them, 700 KB that the dynamic loader
/// reads and applies at every start, a sixth of a CLI append's time (docs/performance.md); packed,
/// they take 6 KB. Only on Linux with glibc, built for the machine it runs on, and only when a
/// probe program linked the same way (dynamically, or statically for a `crt-static` build) with
/// the flag by the C compiler driver (`RUSTC_LINKER` when one is configured, else `cc` and its
/// default linker) builds without a warning and runs: the linker must know the flag (binutils
/// 2.38, lld 15, mold) and the C library apply it (glibc 2.36). rustc links with its own lld on
/// x86-64 Linux, which knows it: the probe can only say no where the binary could have had them.
fn pack_relative_relocs() -> bool {
    let var = |k: &str| std::env::var(k).unwrap_or_default();
    println!("cargo:rerun-if-env-changed=LOCKER_NO_RELR");
    if !var("LOCKER_NO_RELR").is_empty()
        || var("CARGO_CFG_TARGET_OS") != "linux"
        || var("CARGO_CFG_TARGET_ENV") != "gnu"
        || var("TARGET") != var("HOST")
    {
        return false;
    }
    // A static build (`-C target-feature=+crt-static`, the release archive): the binary applies
    // its relocations itself, with the C library's start-up code linked into it from this
    // machine, so only this machine's C library and linker need to know the format.
    let static_crt = var("CARGO_CFG_TARGET_FEATURE").split(',').any(|f| f == "crt-static");
    let Some(out) = std::env::var_os("OUT_DIR").map(PathBuf::from) else { return false };
    let (src, exe) = (out.join("relr-probe.c"), out.join("relr-probe"));
    if std::fs::write(&src, "int main(void) { return 0; }\n").is_err() {
        return false;
    }
    let linker = std::env::var_os("RUSTC_LINKER").unwrap_or_else(|| "cc".into());
    let linked = Command::new(linker)
        .args(if static_crt { ["-fPIE", "-static-pie"] } else { ["-fPIE", "-pie"] })
        .args(["-Wl,-z,pack-relative-relocs", "-Wl,--fatal-warnings", "-o"])
        .arg(&exe)
        .arg(&src)
        .output()
        .is_ok_and(|o| o.status.success() && o.stderr.is_empty());
    linked && Command::new(&exe).status().is_ok_and(|s| s.success())
}
