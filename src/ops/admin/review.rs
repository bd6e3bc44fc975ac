//! `locker review`: checks a handed-off pad the way a reviewer would, against the git checkout
//! it runs in, and reports every check as passed, failed or skipped.
//!
//! The pad is a local one (read like `locker pad export`: a ticket, or none for the operator)
//! or a bundle file. Block 0 must be the `locker.handoff.v1` envelope and block 1 the
//! attestation, a JSON object:
//!
//! ```json
//! {"task_id": "t-1", "from_agent": "planner", "to_agent": "worker", "status": "completed",
//!  "canonical_ref": {"commit_sha": "<40 or 64 hex>"},
//!  "verification": {"test_command": "cargo test", "exit_code": 0},
//!  "environment": {"dependency_manifest": "Cargo.lock", "dependency_hash": "<sha256 hex>"}}
//! ```
//!
//! `environment.dependency_hash` is the SHA-256 of the bytes of the file
//! `environment.dependency_manifest` (a path relative to the checkout), as 64 lowercase hex
//! characters, optionally prefixed `sha256:`.
//!
//! Checks, in order: `sealed`, `chain`, `expected_head`, `envelope`, `attestation`, `identity`,
//! `status`, `commit`, `allowed_paths`, `rerun`, `dependencies`. A check that cannot apply
//! (no expected head given, no git, nothing to compare, `--rerun` not asked for) is skipped,
//! never passed. A pad without an attestation fails: CI cannot trust work nobody attested.
//!
//! `--rerun` runs the attestation's `verification.test_command` with `sh -c` in the checkout;
//! its output goes to locker's stderr, never to stdout. It runs only when the pad passed its
//! integrity checks, since the command is text the pad's writer chose.

use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::domain::bundle::{self, Block};
use crate::domain::check::{Check, Status};
use crate::domain::digest::Digest;
use crate::domain::envelope::{self, Envelope};
use crate::domain::glob::Globs;
use crate::domain::secret::Secret;
use crate::domain::{chain, check};
use crate::ops::verify::signatures::{AgentSignatures, BlockSigner};
use crate::ops::{Ctx, OpError, OpResult};

/// The largest dependency manifest re-hashed.
pub const MAX_DEPENDENCY_MANIFEST_BYTES: u64 = 64 * 1024 * 1024;

/// What to review against.
#[derive(Debug, Clone)]
pub struct ReviewOptions {
    /// The git checkout (the directory the command runs in, by default).
    pub checkout: PathBuf,
    /// `A..B` (or `A...B`): the changes to hold against `allowed_paths`; by default the attested
    /// commit against its first parent.
    pub range: Option<String>,
    /// Re-run the attested test command.
    pub rerun: bool,
    pub expect_head: Option<Digest>,
    /// Count skipped checks as failures.
    pub strict: bool,
    /// Fail a block signed with a key the operator registered (not its agent itself): the
    /// `self_keys` check.
    pub require_self_keys: bool,
}

/// `locker review`'s report.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ReviewReport {
    /// No check failed (and, with `strict`, none was skipped).
    pub ok: bool,
    pub strict: bool,
    pub pad_id: String,
    /// `repository`, `bundle` or `remote`.
    pub source: String,
    /// The bundle file, when reviewing one.
    pub file: Option<String>,
    /// The pad's state (for a bundle, as its source stated it).
    pub state: String,
    /// The head recomputed from the payloads.
    pub head_hash: Digest,
    pub checks: Vec<Check>,
    pub passed: u64,
    pub failed: u64,
    pub skipped: u64,
    pub first_failure: Option<Check>,
    /// Who signed each appended block (a local pad, or a bundle that carries its signers).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub signers: Vec<crate::ops::verify::signatures::BlockSigner>,
    /// Per signing agent: whether every signature comes from a key it registered itself.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub agents: std::collections::BTreeMap<String, AgentSignatures>,
}

impl ReviewReport {
    /// Adds checks made outside the review (the reader's trust in the log: `log`, `policy`,
    /// `pin`), and counts them like its own.
    pub fn add_checks(&mut self, checks: Vec<Check>) {
        self.checks.extend(checks);
        let count = |s: Status| self.checks.iter().filter(|c| c.status == s).count() as u64;
        (self.passed, self.failed, self.skipped) =
            (count(Status::Pass), count(Status::Fail), count(Status::Skip));
        self.first_failure = self
            .checks
            .iter()
            .find(|c| c.failed() || (self.strict && c.status == Status::Skip))
            .cloned();
        self.ok = self.first_failure.is_none();
    }
}

/// Checks `A..B` / `A...B` for `--range` (two revisions, neither starting with `-`).
pub fn parse_range(range: &str) -> OpResult<()> {
    let (a, b) = range
        .split_once("...")
        .or_else(|| range.split_once(".."))
        .ok_or_else(|| OpError::usage(format!("--range must be A..B, got `{range}`")))?;
    let bad = |r: &str| r.is_empty() || r.starts_with('-') || r.chars().any(char::is_whitespace);
    if bad(a) || bad(b) {
        return Err(OpError::usage(format!(
            "--range must be A..B with two revisions, got `{range}`"
        )));
    }
    Ok(())
}

/// Reviews a local pad (read with `ticket`, or none for the operator).
pub fn pad(
    ctx: &mut Ctx<'_>,
    pad_id: &str,
    ticket: Option<&Secret>,
    opts: &ReviewOptions,
) -> OpResult<ReviewReport> {
    let snapshot = crate::ops::pad::bundle::export(ctx, pad_id, ticket, &crate::ops::NoProgress)?;
    let verified = crate::ops::verify::pad(ctx, pad_id, None)?;
    let chain_check = if verified.ok {
        Check::pass(
            "chain",
            format!(
                "{} block(s) verified against the stored head and the journal",
                verified.blocks_verified
            ),
        )
    } else {
        let problems: Vec<String> = verified.problems.iter().map(|p| p.detail.clone()).collect();
        Check::fail("chain", check::summarise(&problems))
    };
    let (signers, sig_problems) = {
        let tx = ctx.store.read()?;
        crate::ops::verify::signatures::pad_signers(tx.as_ref(), pad_id)?
    };
    let h = &snapshot.header;
    let mut report = review(
        &h.pad_id.clone(),
        "repository",
        None,
        &h.state.clone(),
        chain_check,
        &snapshot.blocks,
        opts,
    );
    // The `signatures` check applies only to a pad with a signed block (or a broken one).
    let signed: Vec<String> = signers
        .iter()
        .filter_map(|s| s.signer.as_ref().map(|who| format!("block {} by {who}", s.seq)))
        .collect();
    if !sig_problems.is_empty() {
        report.add_checks(vec![Check::fail("signatures", check::summarise(&sig_problems))]);
    } else if !signed.is_empty() {
        let unsigned = signers.len() - signed.len();
        report.add_checks(vec![Check::pass(
                "signatures",
                format!(
                    "{} signed block(s) verified against the registered agent keys ({}); {unsigned} unsigned",
                    signed.len(),
                check::summarise(&signed)
            ),
        )]);
    }
    add_signers(&mut report, signers, opts);
    Ok(report)
}

/// Adds who signed the blocks: per agent, which keys its signatures come from, and with
/// `require_self_keys` the `self_keys` check.
pub(crate) fn add_signers(
    report: &mut ReviewReport,
    signers: Vec<BlockSigner>,
    opts: &ReviewOptions,
) {
    let mut agents = std::collections::BTreeMap::<String, AgentSignatures>::new();
    let mut operators = Vec::new();
    for s in &signers {
        let Some(who) = &s.signer else { continue };
        let by = s.registered_by.as_deref().unwrap_or("operator");
        agents.entry(who.clone()).or_default().count(by);
        if by != "self" {
            operators.push(format!(
                "block {} by {who} with key {}",
                s.seq,
                s.key_id.as_deref().unwrap_or("?")
            ));
        }
    }
    if opts.require_self_keys {
        report.add_checks(vec![if agents.is_empty() {
            Check::skip("self_keys", "no block is signed")
        } else if operators.is_empty() {
            let names: Vec<&str> = agents.keys().map(String::as_str).collect();
            Check::pass(
                "self_keys",
                format!(
                    "every signature comes from a key its agent registered itself ({})",
                    names.join(", ")
                ),
            )
        } else {
            Check::fail(
                "self_keys",
                format!(
                    "signed with keys the operator registered, not the agents: {}",
                    check::summarise(&operators)
                ),
            )
        }]);
    }
    report.signers = signers;
    report.agents = agents;
}

/// Reviews a bundle's bytes (no repository needed): a file, or a pad fetched from a server
/// (`source` is `bundle` or `remote`).
pub fn bundle(
    bytes: &[u8],
    source: &str,
    file: Option<&str>,
    opts: &ReviewOptions,
) -> OpResult<ReviewReport> {
    let parsed = crate::ops::pad::bundle::parse(bytes)?;
    let f = bundle::check(&parsed, None);
    let integrity =
        ["records", "trailer", "digest", "sequence", "links", "hashes", "head", "counts"];
    let chain_check = match f.checks.iter().find(|c| c.failed() && integrity.contains(&&*c.name)) {
        None => Check::pass(
            "chain",
            format!(
                "{} block(s) verified: the trailer, every link and hash, the head and the counts",
                parsed.blocks.len()
            ),
        ),
        Some(c) => Check::fail("chain", format!("`{}`: {}", c.name, c.detail)),
    };
    let mut report = review(
        &parsed.header.pad_id,
        source,
        file,
        &parsed.header.state,
        chain_check,
        &parsed.blocks,
        opts,
    );
    // The signers the bundle carries: every signature re-checked with its stated key (and
    // against the log's entries when it carries them), then reported as for a local pad.
    if let Some(c) = bundle::signers_check(&parsed) {
        report.add_checks(vec![Check { name: "signatures".into(), ..c }]);
    }
    let signers = parsed.header.signers.as_ref().map_or_else(Vec::new, |s| {
        s.blocks
            .iter()
            .map(|b| BlockSigner {
                seq: b.seq,
                entry: b.entry,
                signer: Some(b.signer.clone()),
                key_id: Some(b.key_id.clone()),
                registered_by: b.registered_by.clone(),
                signature: Some(b.signature.clone()),
            })
            .collect()
    });
    add_signers(&mut report, signers, opts);
    Ok(report)
}

/// The attestation's fields, as far as they are present.
struct Attestation(Map<String, Value>);

impl Attestation {
    fn str_at(&self, path: &[&str]) -> Option<&str> {
        self.at(path).and_then(Value::as_str)
    }
    fn at(&self, path: &[&str]) -> Option<&Value> {
        let (first, rest) = path.split_first()?;
        rest.iter().try_fold(self.0.get(*first)?, |v, k| v.get(*k))
    }
}

fn review(
    pad_id: &str,
    source: &str,
    file: Option<&str>,
    state: &str,
    chain_check: Check,
    blocks: &[Block],
    opts: &ReviewOptions,
) -> ReviewReport {
    let mut checks = Vec::new();
    checks.push(if state == "sealed" {
        Check::pass(
            "sealed",
            if source == "repository" {
                "the pad is sealed"
            } else {
                "the pad is sealed, as its source states (the hash chain does not cover the state)"
            },
        )
    } else {
        Check::fail(
            "sealed",
            format!("the pad is {state}, not sealed: its writer could still change it"),
        )
    });
    let intact = !chain_check.failed();
    checks.push(chain_check);
    let head = chain::head(blocks.iter().map(|b| b.payload.as_slice()));
    let head_check = bundle::expected_head_check(opts.expect_head.as_ref(), &head);
    let trusted = intact && !head_check.failed();
    checks.push(head_check);

    let env_check = bundle::envelope_check(blocks.first());
    let env: Option<Envelope> = match (&env_check.status, blocks.first()) {
        (Status::Pass, Some(b)) => envelope::validate(&b.payload).ok(),
        _ => None,
    };
    checks.push(env_check);

    let (att_check, att) = attestation(blocks.get(1));
    checks.push(att_check);
    checks.push(identity(env.as_ref(), att.as_ref()));
    checks.push(match &att {
        None => Check::skip("status", "no attestation"),
        Some(a) => match a.str_at(&["status"]) {
            Some("completed") => Check::pass("status", "the attestation's status is `completed`"),
            Some(s) => {
                Check::fail("status", format!("the attestation's status is `{s}`, not `completed`"))
            }
            None => Check::fail("status", "the attestation has no `status`"),
        },
    });

    let git = Git::probe(&opts.checkout);
    let (commit_check, commit) = commit(&git, att.as_ref());
    checks.push(commit_check);
    checks.push(allowed_paths(&git, env.as_ref(), commit.as_deref(), opts.range.as_deref()));
    checks.push(rerun(opts, att.as_ref(), trusted));
    checks.push(dependencies(&opts.checkout, att.as_ref()));

    let count = |s: Status| checks.iter().filter(|c| c.status == s).count() as u64;
    let (passed, failed, skipped) = (count(Status::Pass), count(Status::Fail), count(Status::Skip));
    let first_failure =
        checks.iter().find(|c| c.failed() || (opts.strict && c.status == Status::Skip)).cloned();
    ReviewReport {
        ok: first_failure.is_none(),
        strict: opts.strict,
        pad_id: pad_id.to_owned(),
        source: source.to_owned(),
        file: file.map(str::to_owned),
        state: state.to_owned(),
        head_hash: head,
        checks,
        passed,
        failed,
        skipped,
        first_failure,
        signers: Vec::new(),
        agents: std::collections::BTreeMap::new(),
    }
}

/// Block 1 is an attestation: a JSON object with `task_id`, `from_agent`, `to_agent` and
/// `status` strings.
fn attestation(block1: Option<&Block>) -> (Check, Option<Attestation>) {
    let Some(b) = block1 else {
        return (
            Check::fail(
                "attestation",
                "the pad has no block 1: without an attestation nothing says the work was done",
            ),
            None,
        );
    };
    let Ok(Value::Object(obj)) = serde_json::from_slice::<Value>(&b.payload) else {
        return (Check::fail("attestation", "block 1 is not a JSON object"), None);
    };
    let missing: Vec<&str> = ["task_id", "from_agent", "to_agent", "status"]
        .into_iter()
        .filter(|k| !obj.get(*k).is_some_and(Value::is_string))
        .collect();
    if !missing.is_empty() {
        return (
            Check::fail(
                "attestation",
                format!("block 1 is not an attestation: no string `{}`", missing.join("`, `")),
            ),
            None,
        );
    }
    let a = Attestation(obj);
    let detail = format!(
        "block 1 attests task {} ({} → {}), status `{}`",
        a.str_at(&["task_id"]).unwrap_or_default(),
        a.str_at(&["from_agent"]).unwrap_or_default(),
        a.str_at(&["to_agent"]).unwrap_or_default(),
        a.str_at(&["status"]).unwrap_or_default()
    );
    (Check::pass("attestation", detail), Some(a))
}

/// The attestation's `task_id`, `from_agent` and `to_agent` are the envelope's.
fn identity(env: Option<&Envelope>, att: Option<&Attestation>) -> Check {
    let (Some(env), Some(att)) = (env, att) else {
        return Check::skip(
            "identity",
            if att.is_none() { "no attestation" } else { "no valid envelope to compare with" },
        );
    };
    let pairs = [
        ("task_id", env.task_id()),
        ("from_agent", env.from_agent()),
        ("to_agent", env.to_agent()),
    ];
    let differ: Vec<String> = pairs
        .iter()
        .filter(|(k, want)| att.str_at(&[k]) != Some(*want))
        .map(|(k, want)| {
            format!(
                "{k}: the attestation says `{}`, the envelope `{want}`",
                att.str_at(&[k]).unwrap_or_default()
            )
        })
        .collect();
    if differ.is_empty() {
        Check::pass("identity", "task_id, from_agent and to_agent agree with the envelope")
    } else {
        Check::fail("identity", differ.join("; "))
    }
}

/// Git in the checkout, or why it cannot be used.
struct Git {
    dir: PathBuf,
    unavailable: Option<String>,
}

impl Git {
    fn probe(dir: &Path) -> Self {
        let mut g = Self { dir: dir.to_owned(), unavailable: None };
        match g.run(&["rev-parse", "--is-inside-work-tree"]) {
            Ok(out) if out.trim() == "true" => {}
            Ok(_) => g.unavailable = Some(format!("{} is not a git work tree", dir.display())),
            Err(e) => g.unavailable = Some(e),
        }
        g
    }

    /// Runs git in the checkout; `Err` holds why it failed (its stderr).
    fn run(&self, args: &[&str]) -> Result<String, String> {
        let out = Command::new("git")
            .arg("-C")
            .arg(&self.dir)
            .args(["-c", "core.quotepath=off"])
            .args(args)
            .stdin(Stdio::null())
            .env("GIT_TERMINAL_PROMPT", "0")
            .output()
            .map_err(|e| {
                if e.kind() == std::io::ErrorKind::NotFound {
                    "git is not installed (not found on PATH)".to_owned()
                } else {
                    format!("cannot run git: {e}")
                }
            })?;
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
        } else {
            let err = String::from_utf8_lossy(&out.stderr).trim().to_owned();
            Err(if err.is_empty() { format!("git {} failed", args.join(" ")) } else { err })
        }
    }
}

fn is_commit_id(s: &str) -> bool {
    (4..=64).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// `canonical_ref.commit_sha` exists in the checkout's repository; returns its full id.
fn commit(git: &Git, att: Option<&Attestation>) -> (Check, Option<String>) {
    let Some(att) = att else { return (Check::skip("commit", "no attestation"), None) };
    let Some(sha) = att.str_at(&["canonical_ref", "commit_sha"]) else {
        return (Check::fail("commit", "the attestation names no canonical_ref.commit_sha"), None);
    };
    if !is_commit_id(sha) {
        return (
            Check::fail("commit", format!("canonical_ref.commit_sha `{sha}` is not a commit id")),
            None,
        );
    }
    if let Some(why) = &git.unavailable {
        return (Check::skip("commit", format!("cannot look for commit {sha}: {why}")), None);
    }
    let spec = format!("{sha}^{{commit}}");
    if git.run(&["cat-file", "-e", &spec]).is_err() {
        return (Check::fail("commit", format!("commit {sha} is not in this repository")), None);
    }
    match git.run(&["rev-parse", "--verify", "--quiet", &spec]) {
        Ok(full) => {
            let full = full.trim().to_owned();
            (Check::pass("commit", format!("commit {full} exists")), Some(full))
        }
        Err(e) => (Check::fail("commit", format!("commit {sha}: {e}")), None),
    }
}

/// Every file changed in the range matches one of the envelope's `allowed_paths`.
fn allowed_paths(
    git: &Git,
    env: Option<&Envelope>,
    commit: Option<&str>,
    range: Option<&str>,
) -> Check {
    const NAME: &str = "allowed_paths";
    let Some(env) = env else { return Check::skip(NAME, "no valid envelope") };
    let Some(globs) = env.allowed_paths() else {
        return Check::skip(NAME, "the envelope does not restrict paths (no allowed_paths)");
    };
    if let Some(why) = &git.unavailable {
        return Check::skip(NAME, format!("cannot list the changed files: {why}"));
    }
    let (label, listed) = match (range, commit) {
        (Some(r), _) => (r.to_owned(), git.run(&["diff", "--name-only", "-z", "--no-renames", r])),
        (None, Some(c)) => {
            let short = &c[..c.len().min(12)];
            // The commit object names its parents even in a shallow clone, where the parent
            // itself may be missing: diffing against nothing would list every file.
            let object = match git.run(&["cat-file", "commit", c]) {
                Ok(o) => o,
                Err(e) => return Check::fail(NAME, format!("cannot read commit {c}: {e}")),
            };
            let first_parent = object
                .lines()
                .take_while(|l| !l.is_empty())
                .find_map(|l| l.strip_prefix("parent "))
                .map(str::to_owned);
            if let Some(parent) = first_parent {
                let spec = format!("{parent}^{{commit}}");
                if git.run(&["cat-file", "-e", &spec]).is_err() {
                    return Check::fail(
                        NAME,
                        format!(
                            "the parent {parent} of commit {short} is not in this clone (a \
                             shallow checkout?): fetch more history (actions/checkout \
                             `fetch-depth: 0`) or pass --range"
                        ),
                    );
                }
                (
                    format!("{short}^1..{short}"),
                    git.run(&["diff", "--name-only", "-z", "--no-renames", &parent, c]),
                )
            } else {
                (
                    format!("{short} (a root commit)"),
                    git.run(&[
                        "diff-tree",
                        "--root",
                        "-r",
                        "--no-commit-id",
                        "--name-only",
                        "-z",
                        "--no-renames",
                        c,
                    ]),
                )
            }
        }
        (None, None) => {
            return Check::skip(NAME, "no attested commit to diff and no --range given");
        }
    };
    let listed = match listed {
        Ok(l) => l,
        Err(e) => return Check::fail(NAME, format!("cannot diff {label}: {e}")),
    };
    let matcher = match Globs::new(globs.iter().copied()) {
        Ok(m) => m,
        Err(e) => return Check::fail(NAME, format!("the envelope's allowed_paths has an {e}")),
    };
    let files: Vec<&str> = listed.split('\0').filter(|f| !f.is_empty()).collect();
    let outside: Vec<&str> = files.iter().copied().filter(|f| !matcher.is_match(f)).collect();
    if outside.is_empty() {
        Check::pass(
            NAME,
            format!("all {} file(s) changed in {label} match allowed_paths", files.len()),
        )
    } else {
        Check::fail(
            NAME,
            format!(
                "{} of {} file(s) changed in {label} are outside allowed_paths [{}]: {}",
                outside.len(),
                files.len(),
                globs.join(", "),
                outside.join(", ")
            ),
        )
    }
}

/// Re-runs `verification.test_command` and compares its exit code with
/// `verification.exit_code`.
fn rerun(opts: &ReviewOptions, att: Option<&Attestation>, trusted: bool) -> Check {
    const NAME: &str = "rerun";
    if !opts.rerun {
        return Check::skip(NAME, "not requested (--rerun)");
    }
    let Some(att) = att else { return Check::skip(NAME, "no attestation") };
    let Some(cmd) = att.str_at(&["verification", "test_command"]) else {
        return Check::fail(NAME, "the attestation names no verification.test_command");
    };
    let Some(want) = att.at(&["verification", "exit_code"]).and_then(Value::as_i64) else {
        return Check::fail(NAME, "the attestation records no integer verification.exit_code");
    };
    if !trusted {
        return Check::skip(NAME, "not run: the pad failed its integrity checks");
    }
    let status = Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .current_dir(&opts.checkout)
        .stdin(Stdio::null())
        .stdout(Stdio::from(std::io::stderr()))
        .stderr(Stdio::from(std::io::stderr()))
        .status();
    match status {
        Err(e) => Check::fail(NAME, format!("cannot run `sh -c {cmd}`: {e}")),
        Ok(s) => match s.code() {
            Some(code) if i64::from(code) == want => {
                Check::pass(NAME, format!("`{cmd}` exited {code}, as attested"))
            }
            Some(code) => {
                Check::fail(NAME, format!("`{cmd}` exited {code}, but the attestation says {want}"))
            }
            None => Check::fail(NAME, format!("`{cmd}` was killed by a signal")),
        },
    }
}

/// Re-hashes `environment.dependency_manifest` and compares with
/// `environment.dependency_hash`.
fn dependencies(checkout: &Path, att: Option<&Attestation>) -> Check {
    const NAME: &str = "dependencies";
    let Some(att) = att else { return Check::skip(NAME, "no attestation") };
    let hash = att.at(&["environment", "dependency_hash"]);
    let manifest = att.at(&["environment", "dependency_manifest"]);
    let (hash, manifest) = match (hash, manifest) {
        (None | Some(Value::Null), None | Some(Value::Null)) => {
            return Check::skip(NAME, "the attestation records no environment.dependency_hash");
        }
        (Some(Value::String(h)), Some(Value::String(m))) => (h, m),
        (_, None | Some(Value::Null)) => {
            return Check::fail(
                NAME,
                "the attestation records a dependency_hash but no dependency_manifest to re-hash",
            );
        }
        (None | Some(Value::Null), _) => {
            return Check::fail(
                NAME,
                "the attestation names a dependency_manifest but records no dependency_hash",
            );
        }
        _ => return Check::fail(NAME, "dependency_hash and dependency_manifest must be strings"),
    };
    let rel = Path::new(manifest);
    if manifest.is_empty() || !rel.components().all(|c| matches!(c, Component::Normal(_))) {
        return Check::fail(
            NAME,
            format!("dependency_manifest `{manifest}` must be a relative path inside the checkout"),
        );
    }
    let want = hash.strip_prefix("sha256:").unwrap_or(hash).to_ascii_lowercase();
    let path = checkout.join(rel);
    let bytes = match read_bounded(&path) {
        Ok(b) => b,
        Err(e) => return Check::fail(NAME, format!("cannot read {manifest}: {e}")),
    };
    let got = Digest::of(&bytes).to_hex();
    if got == want {
        Check::pass(NAME, format!("sha256({manifest}) = {got}, as attested"))
    } else {
        Check::fail(NAME, format!("sha256({manifest}) = {got}, but the attestation says {hash}"))
    }
}

fn read_bounded(path: &Path) -> Result<Vec<u8>, String> {
    use std::io::Read as _;
    let f = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut buf = Vec::new();
    f.take(MAX_DEPENDENCY_MANIFEST_BYTES + 1).read_to_end(&mut buf).map_err(|e| e.to_string())?;
    if buf.len() as u64 > MAX_DEPENDENCY_MANIFEST_BYTES {
        return Err(format!("larger than {MAX_DEPENDENCY_MANIFEST_BYTES} bytes"));
    }
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        assert!(parse_range("main..HEAD").is_ok());
        assert!(parse_range("a...b").is_ok());
        assert!(parse_range("HEAD~1..HEAD").is_ok());
        for bad in ["main", "..b", "a..", "-x..b", "a..--output=x", "a b..c"] {
            assert!(parse_range(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn commit_ids() {
        assert!(is_commit_id("abcd"));
        assert!(is_commit_id(&"a".repeat(40)));
        assert!(!is_commit_id("abc"));
        assert!(!is_commit_id("HEAD"));
        assert!(!is_commit_id("--all"));
    }
}
