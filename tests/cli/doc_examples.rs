//! Every example in README.md and docs/*.md runs, in order, against the real binary, and prints
//! what the page shows: a newcomer who pastes the blocks one after the other sees the same.
//!
//! The pages use two kinds of fenced blocks:
//!
//! - ```` ```sh ```` blocks are pasted whole; every command in them must succeed.
//! - ```` ```console ```` blocks show commands (`$ …`, continued by a trailing `\` or by lines
//!   starting `> `) each followed by the output it prints, stdout and stderr together. A command
//!   ending in `# exit N` must exit with status N (otherwise 0). In the shown output a line `...`
//!   stands for any number of lines and `[..]` for any text within a line.
//!
//! A block whose info string has a second word `skip` (```` ```sh skip ````) is not run: the
//! build-and-test commands themselves and installs from the network. Any other language is prose.
//!
//! One bash process runs a whole page in a fresh directory with `HOME` inside it, so variables,
//! files and background servers carry from block to block as they would for a reader;
//! `127.0.0.1:7070` to `127.0.0.1:7079` on a page become free ports.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{bin, sqlite_only};

const TIMEOUT: Duration = Duration::from_secs(240);
const MARK: char = '\u{1e}';

#[derive(Debug)]
enum Block {
    Script { line: usize, text: String },
    Console { cmds: Vec<Cmd> },
}

#[derive(Debug)]
struct Cmd {
    line: usize,
    text: String,
    expect: Vec<String>,
    status: i32,
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The runnable blocks of a Markdown page, in order.
fn parse(page: &str) -> Vec<Block> {
    let lines: Vec<&str> = page.lines().collect();
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(info) = lines[i].trim_start().strip_prefix("```") else {
            i += 1;
            continue;
        };
        let mut words = info.split_whitespace();
        let lang = words.next().unwrap_or("");
        let skip = words.any(|w| w == "skip");
        let start = i + 1;
        let mut end = start;
        while end < lines.len() && !lines[end].trim_start().starts_with("```") {
            end += 1;
        }
        let body = &lines[start..end.min(lines.len())];
        i = end + 1;
        if skip {
            continue;
        }
        match lang {
            "sh" | "bash" | "shell" => {
                blocks.push(Block::Script { line: start + 1, text: body.join("\n") });
            }
            "console" => blocks.push(Block::Console { cmds: parse_console(body, start + 1) }),
            _ => {}
        }
    }
    blocks
}

fn parse_console(body: &[&str], first_line: usize) -> Vec<Cmd> {
    let mut cmds: Vec<Cmd> = Vec::new();
    let mut j = 0;
    while j < body.len() {
        let Some(first) = body[j].strip_prefix("$ ") else {
            match cmds.last_mut() {
                Some(cmd) => cmd.expect.push(body[j].trim_end().to_owned()),
                None => panic!(
                    "line {}: a console block must start with a `$ ` command",
                    first_line + j
                ),
            }
            j += 1;
            continue;
        };
        let line = first_line + j;
        let mut text = first.to_owned();
        j += 1;
        // A continuation line: after a trailing `\`, or shown with the shell's `> ` prompt.
        while j < body.len() && (text.ends_with('\\') || body[j].starts_with("> ")) {
            text.push('\n');
            text.push_str(body[j].strip_prefix("> ").unwrap_or(body[j]));
            j += 1;
        }
        let status =
            text.rsplit_once("# exit ").and_then(|(_, n)| n.trim().parse().ok()).unwrap_or(0);
        cmds.push(Cmd { line, text, expect: Vec::new(), status });
    }
    cmds
}

/// The bash program that runs a page: markers around every step so the output can be split.
fn program(blocks: &[Block], ports: &[u16]) -> String {
    let sub = |s: &str| {
        let mut s = s.to_owned();
        for (n, port) in ports.iter().enumerate() {
            s = s.replace(&format!("127.0.0.1:707{n}"), &format!("127.0.0.1:{port}"));
        }
        s
    };
    let mut p = String::from("set +e\n");
    let mut step = 0;
    for b in blocks {
        match b {
            Block::Script { text, .. } => {
                p += &format!("printf '\\036B {step}\\n'\nset -e\n{}\nset +e\n", sub(text));
                p += &format!("printf '\\036E {step} 0\\n'\n");
                step += 1;
            }
            Block::Console { cmds } => {
                for c in cmds {
                    p += &format!("printf '\\036B {step}\\n'\n{}\n", sub(&c.text));
                    p += &format!(
                        "__locker_status=$?; printf '\\036E {step} %d\\n' \"$__locker_status\"\n"
                    );
                    step += 1;
                }
            }
        }
    }
    p += "kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; exit 0\n";
    p
}

/// Whether `actual` lines match `expect` lines, where `...` is any run of lines and `[..]` any
/// text within a line.
fn lines_match(expect: &[String], actual: &[&str]) -> bool {
    match expect.split_first() {
        None => actual.is_empty(),
        Some((e, rest)) if e == "..." => {
            (0..=actual.len()).any(|k| lines_match(rest, &actual[k..]))
        }
        Some((e, rest)) => actual
            .split_first()
            .is_some_and(|(a, more)| line_matches(e, a) && lines_match(rest, more)),
    }
}

fn line_matches(expect: &str, actual: &str) -> bool {
    let parts: Vec<&str> = expect.split("[..]").collect();
    if parts.len() == 1 {
        return expect == actual;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !actual.starts_with(first) || !actual[first.len()..].ends_with(last) {
        return false;
    }
    let mut rest = &actual[first.len()..actual.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(k) => rest = &rest[k + part.len()..],
            None => return false,
        }
    }
    true
}

fn trimmed(s: &str) -> Vec<&str> {
    let mut v: Vec<&str> = s.lines().map(str::trim_end).collect();
    while v.last() == Some(&"") {
        v.pop();
    }
    while v.first() == Some(&"") {
        v.remove(0);
    }
    v
}

/// Ten free ports for the page's `127.0.0.1:7070` to `:7079` (held together while chosen, so
/// they differ).
fn free_ports() -> Vec<u16> {
    let held: Vec<_> =
        (0..10).map(|_| std::net::TcpListener::bind("127.0.0.1:0").unwrap()).collect();
    held.iter().map(|l| l.local_addr().unwrap().port()).collect()
}

/// Runs a page's program; returns everything it printed.
fn run(program: &str, dir: &Path) -> String {
    let bin_dir = bin().parent().unwrap().to_path_buf();
    let path = std::env::join_paths(
        std::iter::once(bin_dir).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let home = dir.join("home");
    let work = dir.join("work");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&work).unwrap();
    let (mut reader, writer) = std::io::pipe().unwrap();
    let mut child = {
        use std::os::unix::process::CommandExt as _;
        Command::new("bash")
            .arg("-c")
            .arg(program)
            .env_clear()
            .env("HOME", &home)
            .env("PATH", path)
            .env("NO_COLOR", "1")
            .env("TERM", "dumb")
            .env("LANG", "C.UTF-8")
            // A page shows `doctor` on a disk with room to spare, whatever this machine's is.
            .env("LOCKER_DISK_SPACE", crate::common::DISK_SPACE)
            .current_dir(&work)
            .stdin(Stdio::null())
            .stdout(writer.try_clone().unwrap())
            .stderr(writer)
            .process_group(0)
            .spawn()
            .expect("bash runs")
    };
    let pid = child.id();
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = reader.read_to_string(&mut s);
        s
    });
    let started = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if started.elapsed() > TIMEOUT {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    // Whatever the page left running in the background goes too (its group is the bash's pid).
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pid}")])
        .stderr(Stdio::null())
        .status();
    let _ = child.wait();
    out.join().unwrap()
}

/// Runs every example of `page` and fails with each difference, by line of the page.
fn check_page(page: &str) {
    if sqlite_only("the pages' examples run on the default store") {
        return;
    }
    let text = std::fs::read_to_string(root().join(page)).unwrap();
    let failures = differences(page, &text);
    assert!(
        failures.is_empty(),
        "{} example(s) of {page} differ from what the binary does:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// Runs a page's examples; one message per example that did not do what the page shows.
fn differences(page: &str, text: &str) -> Vec<String> {
    let blocks = parse(text);
    let ports = free_ports();
    let dir = tempfile::tempdir().unwrap();
    let output = run(&program(&blocks, &ports), dir.path());

    // Split the output at the markers: `B n` opens step n, `E n status` closes it.
    let mut got: Vec<(String, Option<i32>)> = Vec::new();
    for chunk in output.split(MARK).skip(1) {
        let (head, body) = chunk.split_once('\n').unwrap_or((chunk, ""));
        let mut words = head.split_whitespace();
        match (words.next(), words.next(), words.next()) {
            (Some("B"), Some(_), None) => got.push((body.to_owned(), None)),
            (Some("E"), Some(_), Some(status)) => {
                if let Some(last) = got.last_mut() {
                    last.1 = status.parse().ok();
                }
            }
            _ => panic!("{page}: unexpected marker {head:?}"),
        }
    }
    let steps = blocks.iter().flat_map(|b| match b {
        Block::Script { line, text } => vec![(*line, text.as_str(), 0, None)],
        Block::Console { cmds } => {
            cmds.iter().map(|c| (c.line, c.text.as_str(), c.status, Some(&c.expect))).collect()
        }
    });
    let mut failures = Vec::new();
    for (n, (line, cmd, want_status, expect)) in steps.enumerate() {
        let Some((out, status)) = got.get(n) else {
            failures
                .push(format!("{page}:{line}: never ran: the page stopped or timed out before it"));
            break;
        };
        let mut out = out.clone();
        for (n, port) in ports.iter().enumerate() {
            out = out.replace(&format!("127.0.0.1:{port}"), &format!("127.0.0.1:707{n}"));
        }
        let Some(status) = status else {
            failures.push(format!("{page}:{line}: `{cmd}` failed and stopped the page:\n{out}"));
            continue;
        };
        if *status != want_status {
            failures.push(format!(
                "{page}:{line}: `{cmd}` exited {status}, the page says {want_status}:\n{out}"
            ));
            continue;
        }
        if let Some(expect) = expect {
            let expect = trim_lines(expect.clone());
            if !lines_match(&expect, &trimmed(&out)) {
                failures.push(format!(
                    "{page}:{line}: `{cmd}` printed\n---\n{}\n---\nbut the page shows\n---\n{}\n---",
                    out.trim_end(),
                    expect.join("\n")
                ));
            }
        }
    }
    failures
}

fn trim_lines(mut v: Vec<String>) -> Vec<String> {
    while v.last().is_some_and(String::is_empty) {
        v.pop();
    }
    while v.first().is_some_and(String::is_empty) {
        v.remove(0);
    }
    v
}

#[test]
fn test_examples_readme() {
    check_page("README.md");
}

#[test]
fn test_examples_docs_ci_review() {
    check_page("docs/ci-review.md");
}

#[test]
fn test_examples_docs_http() {
    check_page("docs/http.md");
}

#[test]
fn test_examples_docs_json() {
    check_page("docs/json.md");
}

#[test]
fn test_examples_docs_leases() {
    check_page("docs/leases.md");
}

#[test]
fn test_examples_docs_mcp() {
    check_page("docs/mcp.md");
}

#[test]
fn test_examples_docs_observability() {
    check_page("docs/observability.md");
}

#[test]
fn test_examples_docs_operations() {
    check_page("docs/operations.md");
}

#[test]
fn test_examples_docs_payments() {
    check_page("docs/payments.md");
}

#[test]
fn test_examples_docs_postgres() {
    check_page("docs/postgres.md");
}

#[test]
fn test_examples_docs_performance() {
    check_page("docs/performance.md");
}

#[test]
fn test_examples_docs_reference() {
    check_page("docs/reference.md");
}

#[test]
fn test_examples_docs_trust() {
    check_page("docs/trust.md");
}

#[test]
fn test_examples_docs_ui() {
    check_page("docs/ui.md");
}

/// README.md and every page under docs/ have a test above.
#[test]
fn test_examples_every_page_is_run() {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .map(|p| p.strip_prefix(root()).unwrap().to_path_buf())
        .collect();
    pages.push(PathBuf::from("README.md"));
    let me = std::fs::read_to_string(root().join("tests/cli/doc_examples.rs")).unwrap();
    for p in pages {
        let call = format!("check_page(\"{}\")", p.display());
        assert!(me.contains(&call), "no test runs the examples of {}: add one", p.display());
    }
}

/// Every relative link in README.md and docs/ names a file that exists.
#[test]
fn test_examples_links_resolve() {
    let mut pages = vec![root().join("README.md")];
    pages.extend(
        std::fs::read_dir(root().join("docs"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "md")),
    );
    let mut broken = Vec::new();
    for page in pages {
        let text = std::fs::read_to_string(&page).unwrap();
        for (i, _) in text.match_indices("](") {
            let rest = &text[i + 2..];
            let target = &rest[..rest.find(')').unwrap_or(0)];
            let file = target.split('#').next().unwrap();
            if file.is_empty() || file.contains("://") || file.starts_with("mailto:") {
                continue;
            }
            if !page.parent().unwrap().join(file).exists() {
                broken.push(format!("{}: {target}", page.strip_prefix(root()).unwrap().display()));
            }
        }
    }
    assert!(broken.is_empty(), "links to files that do not exist: {broken:#?}");
}

/// The harness itself: wildcards, exit codes, a failing `sh` block and a differing output are
/// each caught.
#[test]
fn test_examples_harness_catches_differences() {
    assert!(line_matches("pad [..] sealed at [..]", "pad abc sealed at 12:00"));
    assert!(!line_matches("pad [..] sealed", "pad abc open"));
    let e = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    assert!(lines_match(&e(&["a", "...", "z"]), &["a", "b", "c", "z"]));
    assert!(lines_match(&e(&["a", "...", "z"]), &["a", "z"]));
    assert!(!lines_match(&e(&["a", "z"]), &["a", "b", "z"]));

    let page =
        "```console\n$ echo hi\nhi\n$ false # exit 1\n$ printf 'x\\ny\\n' \\\n  | wc -l\n2\n```\n\
                ```sh\nexport GREETING=hello\n```\n```console\n$ echo $GREETING\nhello\n```\n\
                ```sh skip\nexit 3\n```\n```text\n$ not run\n```\n";
    let blocks = parse(page);
    assert_eq!(blocks.len(), 3);
    let dir = tempfile::tempdir().unwrap();
    let out = run(&program(&blocks, &[1]), dir.path());
    assert_eq!(out.matches("\u{1e}E").count(), 5, "{out}");
    assert!(!out.contains("\u{1e}E 1 0"), "false must exit 1: {out}");
    assert!(out.contains("\u{1e}E 1 1"), "{out}");
    assert!(differences("ok.md", page).is_empty(), "{:?}", differences("ok.md", page));

    // A differing output, a wrong exit status and a failing `sh` block are each reported.
    let wrong = "```console\n$ echo hi\nho\n$ true # exit 2\n```\n```sh\nfalse\necho after\n```\n\
                 ```console\n$ echo never\nnever\n```\n";
    let found = differences("wrong.md", wrong);
    assert_eq!(found.len(), 4, "{found:#?}");
    assert!(found[0].starts_with("wrong.md:2: `echo hi` printed"), "{}", found[0]);
    assert!(found[1].contains("exited 0, the page says 2"), "{}", found[1]);
    assert!(found[2].contains("`false\necho after` failed and stopped the page"), "{}", found[2]);
    assert!(found[3].contains("never ran"), "{}", found[3]);
}
