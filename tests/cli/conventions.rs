//! Conventions shell users expect: one duration syntax for every TTL and age flag, and JSON
//! errors under `--json` for usage errors too.

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
