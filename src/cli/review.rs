//! `locker review`.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::input::{read_payload, TicketArgs};
use super::trust::{check_bundle, with_fetch, TrustArgs};
use super::verify::render_checks;
use super::{CmdResult, CommandCtx};
use crate::api::ReadPad;
use crate::domain::bundle::{self, MAX_BUNDLE_BYTES};
use crate::ops::admin::review::{self, ReviewOptions, ReviewReport};
use crate::ops::log::pin;
use crate::ops::verify::parse_expected_head;
use crate::ops::OpError;
use crate::output::Render;

/// Review a handed-off pad against this git checkout, for CI
///
/// Checks, each reported as pass, fail or skip (a check that cannot apply is skipped, never
/// passed):
///
///   sealed         the pad is sealed
///   chain          the hash chain is intact (a bundle: its trailer, links, hashes, head and
///                  counts; a local pad: also against the journal)
///   expected_head  the recomputed head is --expect-head (skipped without it)
///   envelope       block 0 is a valid locker.handoff.v1 envelope
///   attestation    block 1 is a JSON object with task_id, from_agent, to_agent and status
///                  (a pad without one fails: nothing says the work was done)
///   identity       its task_id, from_agent and to_agent are the envelope's
///   status         its status is "completed"
///   commit         canonical_ref.commit_sha exists here (git cat-file -e SHA^{commit})
///   allowed_paths  every file changed in --range (default: the attested commit against its
///                  first parent) matches the envelope's allowed_paths; each violation named
///   rerun          with --rerun: `sh -c` verification.test_command in the checkout exits
///                  with verification.exit_code (its output goes to stderr)
///   dependencies   sha256 of the file environment.dependency_manifest (relative to the
///                  checkout; lowercase hex, optionally "sha256:"-prefixed) is
///                  environment.dependency_hash
///
/// With the log's key (--key) or a witness policy (--policy, LOCKER_POLICY or the reader's
/// config), also:
///
///   log            the log's checkpoint verifies with the key (a bundle: and proves every
///                  block recorded in the log)
///   policy         the checkpoint carries the policy's quorum of valid witness cosignatures
///                  (else it is neither accepted nor pinned, and the review fails naming the
///                  missing witnesses)
///   pin            the checkpoint is consistent with the one pinned for the log, and pinned
///
/// With --require-self-keys, also:
///
///   self_keys      every block signature comes from a key its agent registered itself (with
///                  its own token), none from a key the operator registered
///
/// allowed_paths globs are anchored at the repository root: `*` and `?` stay within one path
/// segment, `**` spans any number of segments, and a trailing `/` means everything below.
///
/// With --remote URL (or LOCKER_URL) and a ticket, PAD is read through the server's pad API
/// (a `locker serve` or an agent-locker daemon) and reviewed like a bundle.
///
/// Exit status: 0 when no check failed (with --strict, also none skipped), 1 when any failed;
/// 2 bad usage, 3 no such pad, 5 a bad ticket, 6 an unreadable or malformed bundle. Without git
/// or outside a work tree, commit and allowed_paths are skipped and say why.
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct ReviewArgs {
    /// The pad's id in the repository (or use --bundle)
    #[arg(required_unless_present = "bundle", conflicts_with = "bundle", add = super::complete::pads())]
    pub pad: Option<String>,
    /// Review this bundle file (`-` for stdin); needs no repository
    #[arg(long, value_name = "FILE")]
    pub bundle: Option<PathBuf>,
    /// Require this head (64 hex characters), obtained from the pad's writer
    #[arg(long, value_name = "HASH")]
    pub expect_head: Option<String>,
    /// The changes to check against allowed_paths (default: the attested commit against its
    /// first parent)
    #[arg(long, value_name = "A..B")]
    pub range: Option<String>,
    /// Re-run the attested test command and compare its exit code
    #[arg(long)]
    pub rerun: bool,
    /// Count skipped checks as failures
    #[arg(long)]
    pub strict: bool,
    /// Fail when a block is signed with a key the operator registered rather than its agent
    /// itself (the `self_keys` check; without it the report only says, per agent)
    #[arg(long)]
    pub require_self_keys: bool,
    /// The git checkout to review against (default: the current directory)
    #[arg(short = 'C', long, value_name = "DIR")]
    pub checkout: Option<PathBuf>,
    #[command(flatten)]
    pub ticket: TicketArgs,
    #[command(flatten)]
    pub trust: TrustArgs,
}

pub fn run(ctx: &mut CommandCtx, a: &ReviewArgs) -> CmdResult {
    let expect_head = a.expect_head.as_deref().map(parse_expected_head).transpose()?;
    if let Some(r) = &a.range {
        review::parse_range(r)?;
    }
    let checkout = match &a.checkout {
        Some(d) => d.clone(),
        None => std::env::current_dir()
            .map_err(|e| OpError::unavailable(format!("cannot read the current directory: {e}")))?,
    };
    if !checkout.is_dir() {
        return Err(OpError::usage(format!("{} is not a directory", checkout.display())).into());
    }
    let opts = ReviewOptions {
        checkout,
        range: a.range.clone(),
        rerun: a.rerun,
        expect_head,
        strict: a.strict,
        require_self_keys: a.require_self_keys,
    };
    // The reader's trust in the log, when it has any: `log`, `policy` and `pin` checks.
    let trusting = a.trust.key.is_some() || a.trust.policy()?.is_some();
    let report = match (&a.bundle, &a.pad) {
        (Some(file), _) => {
            let bytes = read_payload(Some(file), MAX_BUNDLE_BYTES)?;
            let mut report =
                review::bundle(&bytes, "bundle", Some(&file.display().to_string()), &opts)?;
            if trusting {
                report.add_checks(log_checks(ctx, &bytes, &a.trust)?);
            }
            report
        }
        (None, Some(pad)) => {
            let ticket = a.ticket.secret()?;
            match ctx.remote()?.map(|r| r.base_url().to_owned()) {
                Some(url) => {
                    let progress = ctx.printer.progress();
                    let b = ctx
                        .locker()?
                        .pad_export(ReadPad { pad, ticket: ticket.as_ref() }, &*progress)?;
                    drop(progress);
                    let bytes = bundle::encode(&b);
                    let mut report = review::bundle(&bytes, "remote", Some(&url), &opts)?;
                    if trusting {
                        report.add_checks(log_checks(ctx, &bytes, &a.trust)?);
                    }
                    report
                }
                None => {
                    let mut report =
                        review::pad(&mut ctx.local()?.ctx()?, pad, ticket.as_ref(), &opts)?;
                    if trusting {
                        let cp = ctx.locker()?.checkpoint()?;
                        let trust = a.trust.trust(Some(&cp.note))?.ok_or_else(|| {
                            OpError::internal("a key or a policy was given, yet no trust")
                        })?;
                        let c = with_fetch(ctx, &trust.key, |fetch| {
                            pin::check_checkpoint(&cp.note, &trust, fetch)
                        })?;
                        report.add_checks(c.checks());
                    }
                    report
                }
            }
        }
        (None, None) => return Err(OpError::usage("pass a PAD or --bundle FILE").into()),
    };
    ctx.printer.emit(&report)?;
    Ok(if report.ok { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// A bundle's `log`, `policy` and `pin` checks, as `verify --bundle` makes them.
fn log_checks(
    ctx: &mut CommandCtx,
    bytes: &[u8],
    trust: &TrustArgs,
) -> Result<Vec<crate::domain::check::Check>, OpError> {
    let r = check_bundle(ctx, bytes, None, None, trust)?;
    let ours = ["log", "policy", "pin"];
    Ok(r.checks.into_iter().filter(|c| ours.contains(&c.name.as_str())).collect())
}

impl Render for ReviewReport {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        match &self.file {
            Some(f) => writeln!(w, "review of pad {} ({} {f})", self.pad_id, self.source)?,
            None => writeln!(w, "review of pad {} (repository)", self.pad_id)?,
        }
        writeln!(w, "head: {}", self.head_hash)?;
        render_checks(w, &self.checks)?;
        for (agent, a) in &self.agents {
            let whose = super::verify::whose_keys(a);
            writeln!(w, "signer {agent}: {} block(s), {whose}", a.signed)?;
        }
        let tally =
            format!("{} passed, {} failed, {} skipped", self.passed, self.failed, self.skipped);
        match &self.first_failure {
            None => writeln!(w, "PASS ({tally})"),
            Some(c) if c.failed() => writeln!(w, "FAIL ({tally}): {}: {}", c.name, c.detail),
            Some(c) => {
                writeln!(w, "FAIL ({tally}; --strict): {} was skipped: {}", c.name, c.detail)
            }
        }
    }
}
