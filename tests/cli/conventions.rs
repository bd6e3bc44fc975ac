//! Conventions shell users expect: one duration syntax for every TTL and age flag, JSON
//! errors under `--json` for usage errors too, and `locker status`.

use serde_json::Value;

use crate::common::TestEnv;

#[test]
fn test_every_ttl_flag_takes_the_duration_syntax_gc_takes() {
    let env = TestEnv::init();
    let now = env.now;
    // A pad for five minutes, a lease for two hours, a deposit for one day: the same syntax
    // `gc --pads-older-than 30d` takes.
    let pad = env.json(&["pad", "create", "--ttl", "5m"]);
    assert_eq!(pad["expires_at"], now + 300, "{pad}");
    let lease = env.json(&["lease", "acquire", "job", "--ttl", "2h"]);
    assert_eq!(lease["ttl"], 7200);
    assert_eq!(lease["expires_at"], now + 7200);
    // Plain seconds still work, as before units existed.
    let plain = env.json(&["pad", "create", "--ttl", "90"]);
    assert_eq!(plain["expires_at"], now + 90);
    let gc = env.json(&["gc", "--dry-run", "--pads-older-than", "30d"]);
    assert!(gc.is_object(), "{gc}");
}

#[test]
fn test_a_bad_duration_is_a_usage_error_naming_the_units_and_changes_nothing() {
    let env = TestEnv::init();
    let before = env.snapshot();
    for (args, bad) in [
        (&["pad", "create", "--ttl", "5x"][..], "5x"),
        (&["lease", "acquire", "job", "--ttl", "1.5h"][..], "1.5h"),
        (&["gc", "--dry-run", "--pads-older-than=-1d"][..], "-1d"),
    ] {
        let e = env.json_err(args, 2);
        assert_eq!(e["error"], "usage", "{e}");
        let detail = e["detail"].as_str().unwrap();
        assert!(detail.contains(bad), "{detail}");
        assert!(detail.contains("90s, 45m, 12h, 30d or 2w"), "{detail}");
    }
    // A duration in range of the syntax but not of the operation is the operation's refusal.
    let e = env.json_err(&["pad", "create", "--ttl", "31d"], 6);
    assert!(e["detail"].as_str().unwrap().contains("2592000"), "{e}");
    assert_eq!(env.snapshot(), before, "a refused command changed the repository");
}

#[test]
fn test_usage_errors_under_json_are_one_json_object_on_stderr_with_exit_2() {
    let env = TestEnv::init();
    // The newcomer's case: a required argument missing.
    let e = env.json_err(&["artifact", "publish", "notes.md", "--data", "x", "--op", "y"], 2);
    assert_eq!(e["error"], "usage");
    assert_eq!(e["detail"], "the following required arguments were not provided: --expect <N>");
    let hints: Vec<&str> =
        e["hints"].as_array().unwrap().iter().map(|h| h.as_str().unwrap()).collect();
    assert!(hints[0].starts_with("Usage: locker artifact publish --expect <N>"), "{hints:?}");
    // An unknown command and an unknown flag, with --json before or after the command.
    let e = env.json_err(&["no-such-command"], 2);
    assert_eq!(e["error"], "usage");
    assert!(e["detail"].as_str().unwrap().contains("no-such-command"), "{e}");
    let out = env.locker().args(["pad", "list", "--no-such-flag", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let e: Value = serde_json::from_slice(&out.stderr).expect("one JSON object on stderr");
    assert!(e["detail"].as_str().unwrap().contains("--no-such-flag"), "{e}");
}

#[test]
fn test_without_json_usage_errors_stay_clap_text_and_help_is_not_an_error() {
    let env = TestEnv::init();
    let out = env.locker().args(["pad", "create", "--ttl", "5x"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8(out.stderr).unwrap();
    assert!(text.starts_with("error: invalid value '5x' for '--ttl <DURATION>'"), "{text}");
    // `--help` under --json is still help, on stdout, exit 0.
    let out = env.locker().args(["--json", "pad", "create", "--help"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8(out.stdout).unwrap().contains("--ttl <DURATION>"));
    // After `--`, `--json` is an argument, not the flag: clap's text.
    let out = env.locker().args(["artifact", "get", "--", "--json"]).output().unwrap();
    assert_ne!(out.status.code(), Some(0));
}

#[test]
fn test_status_shows_the_journal_checkpoint_pads_leases_and_signing_at_a_glance() {
    let mut env = TestEnv::init();
    let empty = env.json(&["status"]);
    assert_eq!(empty["pads"]["total"], 0);
    assert_eq!(empty["leases"]["active"], 0);
    assert_eq!(empty["signing"]["required"], false);
    let backend = empty["backend"].as_str().unwrap().to_owned();
    assert!(["sqlite", "postgres"].contains(&backend.as_str()), "{empty}");

    env.create_pad(&[]);
    let sealed = env.pad_with_envelope(&[]);
    env.json(&["seal", &sealed.id, "--key", &sealed.key]);
    env.json(&["lease", "acquire", "job-a", "--ttl", "10m"]);
    env.json(&["lease", "acquire", "job-b", "--ttl", "1m"]);
    env.json(&["checkpoint"]);
    env.json(&["lease", "acquire", "job-c", "--ttl", "1h"]);
    // The newest checkpoint (a later write may or may not have been signed on its own).
    let signed = env.json(&["checkpoint"]);
    env.now += 120;

    let before = env.snapshot();
    let s = env.json(&["status"]);
    assert_eq!(env.snapshot(), before, "status changed the repository");
    assert_eq!(s["pads"]["open"], 1, "{s}");
    assert_eq!(s["pads"]["sealed"], 1, "{s}");
    assert_eq!(s["pads"]["total"], 2, "{s}");
    // job-b's lease is past its expiry; nothing has reaped it yet.
    assert_eq!(s["leases"]["active"], 2, "{s}");
    assert_eq!(s["leases"]["expired"], 1, "{s}");
    let entries = s["journal"]["entries"].as_u64().unwrap();
    let log = env.json(&["log", "-n", "1"]);
    assert_eq!(s["journal"]["head_hash"], log["hash"], "{s} {log}");
    assert_eq!(s["checkpoint"]["size"], signed["size"], "{s}");
    assert_eq!(s["checkpoint"]["age_seconds"], 120, "{s}");
    let signed_size = signed["size"].as_u64().unwrap();
    assert_eq!(s["checkpoint"]["unsigned_entries"], entries - signed_size, "{s}");

    let out = env.locker().arg("status").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("pads:        1 open, 1 sealed (2 in all)"), "{text}");
    assert!(text.contains("leases:      2 active, 1 past expiry"), "{text}");
    assert!(text.contains(&format!("checkpoint:  size {signed_size},")), "{text}");
    assert!(text.contains("(2m ago)"), "{text}");
    assert!(text.contains(&format!("store:       {backend}")), "{text}");
}

#[test]
fn test_completions_offer_no_internal_command_and_help_groups_the_global_options() {
    let env = TestEnv::new();
    for shell in ["bash", "zsh", "fish"] {
        // The script registers locker's dynamic completion: it calls `locker` back.
        let out = env.locker().args(["completions", shell]).output().unwrap();
        assert!(out.status.success());
        let script = String::from_utf8(out.stdout).unwrap();
        assert!(
            script.contains(&format!("COMPLETE=\"{shell}\""))
                || script.contains(&format!("COMPLETE={shell}")),
            "{shell}: {script}"
        );
        // Which then offers the commands users type, and not the internal `util`.
        let words = ["--", "locker", ""];
        let out = env
            .locker()
            .env("COMPLETE", shell)
            .env("_CLAP_COMPLETE_INDEX", "1")
            .args(words)
            .output()
            .unwrap();
        assert!(out.status.success(), "{shell}: {}", String::from_utf8_lossy(&out.stderr));
        let offered = String::from_utf8(out.stdout).unwrap();
        let names: Vec<&str> = offered.split(['\n', '\u{b}', '\t', ':']).map(str::trim).collect();
        assert!(names.contains(&"status"), "{shell}: no `status` in {offered:?}");
        assert!(!names.contains(&"util"), "{shell} completes the internal `util`");
        assert!(!offered.contains("generate-docs"), "{shell} completes the internal `util`");
    }
    let out = env.locker().args(["pad", "create", "--help"]).output().unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    let (own, global) = help.split_once("Global options:").expect("a Global options heading");
    assert!(own.contains("--ttl <DURATION>"), "{help}");
    assert!(!own.contains("--repo <PATH>"), "global options mixed into the command's: {help}");
    assert!(global.contains("--repo <PATH>") && global.contains("--json"), "{help}");
}

#[test]
fn test_version_names_the_commit_and_its_date_and_v_stays_short() {
    let env = TestEnv::new();
    let out = env.locker().arg("--version").output().unwrap();
    assert!(out.status.success());
    let long = String::from_utf8(out.stdout).unwrap();
    let version = env!("CARGO_PKG_VERSION");
    let rest = long.trim().strip_prefix(&format!("locker {version}")).expect("the package version");
    // Built from a git checkout (as this suite is): `(<commit> <YYYY-MM-DD>)`.
    let inner = rest.trim().strip_prefix('(').and_then(|r| r.strip_suffix(')')).expect(&long);
    let (commit, date) = inner.split_once(' ').expect(&long);
    assert!(commit.len() >= 7 && commit.chars().all(|c| c.is_ascii_hexdigit()), "{long}");
    assert!(date.len() == 10 && date.as_bytes()[4] == b'-' && date.as_bytes()[7] == b'-', "{long}");
    let out = env.locker().arg("-V").output().unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap().trim(), format!("locker {version}"));
}

/// `build.rs` links the binary with packed relative relocations (`DT_RELR`) where a probe
/// says the toolchain and C library support them: the binary the suite runs has them exactly
/// then (under `CI`, whose machines have glibc 2.36 and binutils 2.40, always), and starts.
#[test]
fn test_binary_has_packed_relative_relocations_when_the_build_probed_them() {
    let bin = env!("CARGO_BIN_EXE_locker");
    if !cfg!(target_os = "linux") {
        return;
    }
    let out = std::process::Command::new("readelf")
        .args(["-d", bin])
        .output()
        .expect("readelf (binutils, which links the binary) runs");
    assert!(out.status.success(), "{out:?}");
    let dynamic = String::from_utf8_lossy(&out.stdout);
    let probed = env!("LOCKER_BUILD_RELR") == "1";
    assert_eq!(dynamic.contains("(RELR)"), probed, "probe said {probed}:\n{dynamic}");
    if cfg!(all(target_os = "linux", target_env = "gnu")) && std::env::var_os("CI").is_some() {
        assert!(probed, "CI's machines (glibc 2.36, binutils 2.40) support DT_RELR");
    }
    assert!(TestEnv::new().locker().arg("-V").output().unwrap().status.success());
}

/// `build.rs` hands lld `scripts/startup-order.txt` (the functions the CLI runs, laid out
/// first) where rustc links with its own lld: under `CI` (x86_64 Linux, glibc, rustc 1.90 or
/// later, no other linker) it always does, and the file names functions, one a line.
#[test]
fn test_binary_is_linked_with_the_startup_order_where_lld_links_it() {
    let ordered = env!("LOCKER_BUILD_ORDERED") == "1";
    let x86_gnu = cfg!(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu"));
    if std::env::var_os("CI").is_some() && x86_gnu {
        assert!(ordered, "build.rs did not pass scripts/startup-order.txt to the linker");
    }
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/startup-order.txt");
    let text = std::fs::read_to_string(&file).unwrap();
    let names: Vec<&str> =
        text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()).collect();
    assert!(names.len() > 500, "{} names", names.len());
    assert!(names.iter().all(|n| !n.contains(char::is_whitespace)), "a line is not a name");
    // The CLI's own path is in it: the parse, the store's open and an append.
    for part in ["cli4main", "sqlite3_open_v2", "append"] {
        assert!(names.iter().any(|n| n.contains(part)), "no function named like {part}");
    }
    assert!(TestEnv::new().locker().arg("-V").output().unwrap().status.success());
}

/// `.cargo/config.toml` compiles the bundled SQLite with two of SQLite's recommended options
/// (no memory statistics, so no global mutex around each allocation; no shared cache) for every
/// build in this repository. The binary does not report SQLite's options, so this checks the
/// suite's own SQLite, which the same file configures. The file's third option,
/// `HAVE_FDATASYNC`, is not among those SQLite reports.
#[test]
fn test_bundled_sqlite_is_compiled_with_the_repositorys_options() {
    let conn = rusqlite::Connection::open_in_memory().unwrap();
    let mut stmt = conn.prepare("SELECT compile_options FROM pragma_compile_options").unwrap();
    let options: Vec<String> =
        stmt.query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap();
    for want in ["DEFAULT_MEMSTATUS=0", "OMIT_SHARED_CACHE"] {
        assert!(options.iter().any(|o| o == want), "{want} is not in {options:?}");
    }
}

#[test]
fn test_quiet_silences_init_and_pad_export_confirmations_but_never_json() {
    let env = TestEnv::new();
    let out = env.locker().args(["-q", "init"]).output().unwrap();
    assert!(out.status.success());
    assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{out:?}");
    assert!(env.path().join(".locker").is_dir());
    let pad = env.pad_with_envelope(&[]);
    env.json(&["seal", &pad.id, "--key", &pad.key]);
    let file = env.path().join("pad.bundle");
    let file = file.to_str().unwrap();
    let out = env.locker().args(["-q", "pad", "export", &pad.id, "-o", file]).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{out:?}");
    assert!(std::fs::metadata(file).unwrap().len() > 0);
    // Without -q the confirmation is shown; with --json the result is printed even with -q.
    let v = env.json(&["-q", "pad", "export", &pad.id, "-o", file]);
    assert_eq!(v["pad_id"], pad.id.as_str());
}

/// The first hint of a JSON error.
fn hint(e: &Value) -> &str {
    e["hints"][0].as_str().unwrap_or_else(|| panic!("no hint: {e}"))
}

#[test]
fn test_pad_errors_say_what_to_do_next() {
    let env = TestEnv::init();
    let sealed = env.pad_with_envelope(&[]);
    env.json(&["seal", &sealed.id, "--key", &sealed.key]);
    let e = env.fails(
        &["append", &sealed.id, "--key", &sealed.key, "--data", "x"],
        4,
        "conflict",
        "pad is sealed",
    );
    assert!(hint(&e).contains("locker pad create"), "{e}");

    let short = env.create_pad(&["--ttl", "1m"]);
    let e = env.json_err_at(
        env.now + 61,
        &["append", &short.id, "--key", &short.key, "--data", "x"],
        7,
    );
    assert_eq!(e["detail"], "pad is expired");
    assert!(hint(&e).contains("default 1h") && hint(&e).contains("--ttl 30d"), "{e}");
    assert!(hint(&e).contains("sealed pads do not expire"), "{e}");

    let e = env.fails(
        &["pad", "read", &sealed.id, "--ticket", &sealed.key],
        5,
        "unauthorized",
        "invalid read ticket",
    );
    assert!(
        hint(&e).contains("not its write key") && hint(&e).contains("locker pad ticket"),
        "{e}"
    );
}

#[test]
fn test_artifact_not_found_names_the_scope_that_has_the_key() {
    let env = TestEnv::init();
    env.json(&[
        "--scope", "team-a", "artifact", "publish", "notes.md", "--data", "x", "--expect", "0",
        "--op", "o1",
    ]);
    let e = env.fails(
        &["artifact", "get", "notes.md"],
        3,
        "not_found",
        "artifact not found in scope `default`; `notes.md` exists in scope `team-a`",
    );
    assert_eq!(hint(&e), "Pass `--scope team-a` to act in that scope.");
    // A key in no scope at all: the plain message.
    let e = env.fails(&["artifact", "get", "nowhere.md"], 3, "not_found", "artifact not found");
    assert!(hint(&e).contains("locker artifact list"), "{e}");
    // An agent is never told about other scopes.
    let token = env.json(&["--scope", "default", "token", "create", "--agent", "w"])["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let out = env
        .locker()
        .env("LOCKER_TOKEN", &token)
        .args(["--json", "artifact", "get", "notes.md"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let e: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(e["detail"], "artifact not found", "{e}");
    assert!(!e.to_string().contains("team-a"), "{e}");
}

#[test]
fn test_verify_names_a_broken_pad_once_per_line() {
    if crate::common::sqlite_only("tampers with the SQLite file directly") {
        return;
    }
    let env = TestEnv::init();
    let pad = env.pad_with_envelope(&[]);
    env.append(&pad, "hello");
    env.sql()
        .execute_batch("UPDATE blocks SET payload = CAST('HELLO' AS BLOB) WHERE seq = 1")
        .unwrap();
    let out = env.locker().arg("verify").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    let line = text.lines().find(|l| l.starts_with("first broken pad:")).expect(&text);
    assert_eq!(line.matches(&pad.id).count(), 1, "{line}");
    assert!(line.contains(&format!("pad:{}: block 1 curr_hash", pad.id)), "{line}");
}
