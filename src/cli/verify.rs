//! `locker verify`.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::input::{read_payload, TicketArgs};
use super::trust::check_bundle;
use super::{CmdResult, CommandCtx};
use crate::api::{ReadPad, VerifyPad, VerifyRepository};
use crate::domain::bundle::MAX_BUNDLE_BYTES;
use crate::domain::check::Check;
use crate::ops::pad::bundle::BundleReport;
use crate::ops::verify::{self, PadReport, RepoReport};
use crate::output::Render;

/// Check the repository's integrity, like `git fsck`, or one pad's
///
/// With no PAD: the journal chain and its head, every pad's chain against its stored head and
/// the journal's record of it, every ticket and agent token, every blob (re-hashed), every
/// artifact version, head and receipt, and every lease, plan and step against the journal.
/// With PAD: that pad's chain, accounting and
/// journal record. Exits 0 when everything is intact and 1 when anything is broken, naming the
/// first broken item of each kind. A row edited outside locker to hold what locker never
/// writes there (a column of another type, a hash that is not one) is a finding like any other,
/// naming the row and the column; so is a database file damaged below its rows. Other commands
/// refuse such a row (exit 8, `corrupt_store`) and point here.
///
/// With --bundle FILE: a bundle written by `locker pad export`, with no repository and no
/// server. Every check is reported (format, records, trailer, digest, sequence, links, hashes,
/// head, counts, envelope, expected_head) with the first failure; exit 0 intact, 1 broken, 6
/// when the file is unreadable or not a bundle. Without --expect-head the verdict is
/// `internal_consistency_only`: whoever wrote the file could have written a consistent forgery,
/// so pin the head you got from the pad's writer.
///
/// With --bundle FILE --key VKEY: also the bundle's signed checkpoint (by the log's key) and
/// the inclusion proof of every block's journal entry (verdict `trusted_log_checkpoint`), and
/// the checkpoint against the one pinned for the log (see `locker checkpoint`).
///
/// With --proof FILE --key VKEY: a proof file from `locker proof` (no repository needed);
/// the checkpoint it leads to is checked against the pinned one. A consistency proof file from
/// the pinned size advances the pin by itself, offline; otherwise the proof comes from --remote
/// or the repository here. Exit 0 verified, 1 failed or forked, 6 not a proof.
///
/// With --remote URL, PAD and a ticket: the pad is read through the server's pad API (a
/// `locker serve` or an agent-locker daemon) and checked here like a bundle.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Verify only this pad
    #[arg(conflicts_with = "bundle", add = super::complete::pads())]
    pub pad: Option<String>,
    /// Verify this bundle file (`-` for stdin) instead of a repository
    #[arg(long, value_name = "FILE")]
    pub bundle: Option<PathBuf>,
    /// Also require this head: the pad's head with PAD or --bundle, else the journal's head
    /// hash
    #[arg(long, value_name = "HASH")]
    pub expect_head: Option<String>,
    /// With --remote and PAD: read the pad with this ticket and verify it here, trusting
    /// nothing the server says (without a ticket the server verifies and reports)
    #[command(flatten)]
    pub ticket: TicketArgs,
    /// Also require every pad append, artifact publish and step to carry a good agent
    /// signature: each unsigned one is a problem (exit 1)
    #[arg(long, conflicts_with_all = ["pad", "bundle"])]
    pub require_signed: bool,
    /// Also require every signature to come from a key its agent registered itself (with its
    /// own token, `locker key register`): each one by a key the operator registered is a
    /// problem (exit 1). The report says, per agent, which keys its signatures come from
    #[arg(long, conflicts_with_all = ["pad", "bundle"])]
    pub require_self_keys: bool,
    /// Verify this proof file (from `locker proof`) with --key, with no repository
    #[arg(long, value_name = "FILE", conflicts_with_all = ["pad", "bundle"])]
    pub proof: Option<PathBuf>,
    #[command(flatten)]
    pub trust: super::trust::TrustArgs,
    /// Check this signed checkpoint (a note, as `locker checkpoint` prints it) against the
    /// witness policy alone: signed by the policy's log key and cosigned by a quorum of its
    /// witnesses. `verify --policy FILE` with nothing else to verify checks the repository's
    /// (or --remote's) latest checkpoint the same way. Exit 1 when it falls short
    #[arg(long, value_name = "FILE", conflicts_with_all = ["pad", "bundle", "proof"])]
    pub checkpoint: Option<PathBuf>,
}

pub fn run(ctx: &mut CommandCtx, a: &VerifyArgs) -> CmdResult {
    let expect = a.expect_head.as_deref().map(verify::parse_expected_head).transpose()?;
    let remote = ctx.remote()?.is_some();
    let remote_pad = remote && a.pad.is_some() && a.ticket.secret()?.is_some();
    // `--policy` alone (nothing else to verify) or `--checkpoint`: the policy check by itself.
    // A policy from the environment or the config never turns `locker verify` into it.
    if a.pad.is_some() && !remote_pad && a.trust.policy.is_some() {
        return Err(crate::ops::OpError::usage(
            "--policy checks a log's checkpoint: with PAD it needs --remote URL and a ticket \
             (the pad is then checked against the server's log)",
        )
        .into());
    }
    let policy_only = a.checkpoint.is_some()
        || (a.trust.policy.is_some() && a.proof.is_none() && a.bundle.is_none() && a.pad.is_none());
    let ok = if policy_only {
        let policy = a.trust.policy()?.ok_or_else(|| {
            crate::ops::OpError::usage(
                "--checkpoint needs a witness policy: --policy FILE (or LOCKER_POLICY)",
            )
        })?;
        let note = match &a.checkpoint {
            Some(file) => {
                let bytes = read_payload(Some(file), crate::domain::note::MAX_NOTE_BYTES)?;
                String::from_utf8(bytes)
                    .map_err(|_| crate::ops::OpError::bad_request("the checkpoint is not UTF-8"))?
            }
            None => ctx.locker()?.checkpoint()?.note,
        };
        let report = crate::ops::log::cosign::check_policy(&policy, &note)?;
        ctx.printer.emit(&report)?;
        report.ok
    } else if let Some(file) = &a.proof {
        let bytes = read_payload(Some(file), crate::domain::proof::MAX_PROOF_FILE_BYTES)?;
        super::tlog::verify_proof(ctx, &bytes, &a.trust)?
    } else if let Some(file) = &a.bundle {
        let bytes = read_payload(Some(file), MAX_BUNDLE_BYTES)?;
        let name = file.display().to_string();
        let report = check_bundle(ctx, &bytes, Some(&name), expect, &a.trust)?;
        ctx.printer.emit(&report)?;
        report.ok
    } else if let (Some(pad), true, Some(ticket)) = (&a.pad, remote, a.ticket.secret()?) {
        let progress = ctx.printer.progress();
        let b = ctx.locker()?.pad_export(ReadPad { pad, ticket: Some(&ticket) }, &*progress)?;
        drop(progress);
        let bytes = crate::domain::bundle::encode(&b);
        let report = check_bundle(ctx, &bytes, None, expect, &a.trust)?;
        ctx.printer.emit(&report)?;
        report.ok
    } else if let Some(pad) = &a.pad {
        let report = ctx.locker()?.pad_verify(VerifyPad { pad, expect_head: expect })?;
        ctx.printer.emit(&report)?;
        report.ok
    } else {
        let progress = ctx.printer.progress();
        let r = VerifyRepository {
            expect_head: expect,
            require_signed: a.require_signed,
            require_self_keys: a.require_self_keys,
        };
        // A repository whose database lost entries the log key signed is verified anyway, and
        // reported broken; a store too damaged to open is a finding too, as when it breaks
        // mid-walk.
        ctx.inspect_repository()?;
        let report = match ctx.locker().and_then(|mut l| l.verify(r, progress.as_ref())) {
            Ok(report) => report,
            Err(e) if e.code == crate::ops::CORRUPT_STORE => {
                crate::ops::verify::corrupt_store(&e.detail)
            }
            Err(e) if matches!(e.code.as_ref(), "rolled_back" | "empty_store") => {
                RepoReport::unreadable("rollback", e.detail)
            }
            Err(e) => return Err(e.into()),
        };
        ctx.printer.emit(&report)?;
        report.ok
    };
    Ok(if ok { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

impl Render for crate::ops::log::cosign::PolicyReport {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        writeln!(w, "checkpoint: {} at size {}, root {}", self.origin, self.size, self.root)?;
        writeln!(w, "log signature: {}", self.log_signature)?;
        super::tlog::render_quorum(w, self)?;
        match &self.failure {
            Some(f) => writeln!(w, "FAILED: {f}"),
            None => writeln!(w, "ok"),
        }
    }
}

impl Render for RepoReport {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        let mark = |ok: bool| if ok { "ok" } else { "BROKEN" };
        writeln!(
            w,
            "journal: {} ({} entries, head {} at entry {})",
            mark(self.journal.ok),
            self.journal.entries,
            self.journal.head_hash,
            self.journal.head_seq
        )?;
        let pruned = if self.pads.pruned > 0 {
            format!(", {} pruned ({} blocks)", self.pads.pruned, self.pads.pruned_blocks)
        } else {
            String::new()
        };
        writeln!(
            w,
            "pads:    {} ({} pads, {} blocks, {} bytes{pruned}, {} broken)",
            mark(self.pads.ok),
            self.pads.checked,
            self.pads.blocks,
            self.pads.bytes,
            self.pads.broken
        )?;
        writeln!(
            w,
            "tickets: {} ({} tickets, {} broken)",
            mark(self.tickets.ok),
            self.tickets.checked,
            self.tickets.broken
        )?;
        writeln!(
            w,
            "agents:  {} ({} agents, {} broken)",
            mark(self.agents.ok),
            self.agents.checked,
            self.agents.broken
        )?;
        writeln!(
            w,
            "blobs:   {} ({} blobs, {} inline, {} files, {} bytes, {} broken)",
            mark(self.blobs.ok),
            self.blobs.checked,
            self.blobs.inline,
            self.blobs.files,
            self.blobs.bytes,
            self.blobs.broken
        )?;
        writeln!(
            w,
            "artifacts: {} ({} keys, {} versions, {} receipts, {} broken)",
            mark(self.artifacts.ok),
            self.artifacts.keys,
            self.artifacts.versions,
            self.artifacts.receipts,
            self.artifacts.broken
        )?;
        writeln!(
            w,
            "leases:  {} ({} leases, {} plans, {} steps, {} broken)",
            mark(self.leases.ok),
            self.leases.leases,
            self.leases.plans,
            self.leases.steps,
            self.leases.broken
        )?;
        let sig = &self.signatures;
        let mut signers: Vec<String> =
            sig.by_signer.iter().map(|(who, n)| format!("{who} {n}")).collect();
        if signers.is_empty() {
            signers.push("none".into());
        }
        writeln!(
            w,
            "signatures: {} ({} keys, {} signed, {} unsigned{}; signed by: {}; {} broken)",
            mark(sig.ok),
            sig.keys,
            sig.signed,
            sig.unsigned,
            if sig.required { ", all required" } else { "" },
            signers.join(", "),
            sig.broken
        )?;
        for (agent, a) in &sig.agents {
            let whose = whose_keys(a);
            writeln!(w, "  signer {agent}: {} signature(s), {whose}", a.signed)?;
        }
        let m = &self.merkle;
        if m.pending {
            writeln!(w, "merkle:  not built yet (built on the next write or `locker checkpoint`)")?;
        } else {
            let root = m.root.map(|r| r.to_hex()).unwrap_or_default();
            writeln!(
                w,
                "merkle:  {} ({} leaves, root {root}, {} signed checkpoint(s){})",
                mark(m.ok),
                m.leaves,
                m.checkpoints,
                if m.signatures_checked { ", signatures checked" } else { "" }
            )?;
        }
        if self.mark.present {
            writeln!(w, "mark:    {} ({})", mark(self.mark.ok), self.mark.detail)?;
        }
        if let Some(at) = self.gc.last_at {
            writeln!(
                w,
                "gc:      {} run(s), last {}: pruned {} pads ({} payload bytes) and {} \
                 abandoned leases, removed {} blobs ({} bytes)",
                self.gc.runs,
                crate::output::rfc3339(at),
                self.gc.pads,
                self.gc.payload_bytes,
                self.gc.leases,
                self.gc.blobs,
                self.gc.blob_bytes
            )?;
        }
        if let Some(e) = &self.expected_head {
            writeln!(
                w,
                "expected head {}: {}",
                e.expected,
                if e.matches { "matches" } else { "DOES NOT MATCH" }
            )?;
        }
        let mut kinds: Vec<_> = self.first_broken.iter().collect();
        kinds.sort_by(|a, b| a.0.cmp(b.0));
        for (kind, p) in kinds {
            writeln!(w, "first broken {kind}: {}", shown(p))?;
        }
        if self.problem_count > 0 {
            writeln!(w, "{} problem(s):", self.problem_count)?;
            for p in &self.problems {
                writeln!(w, "  {}", shown(p))?;
            }
        }
        writeln!(w, "{}", if self.ok { "intact" } else { "BROKEN" })
    }
}

impl Render for PadReport {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        writeln!(w, "pad:      {} ({})", self.pad_id, self.state.as_str())?;
        writeln!(w, "blocks:   {} verified of {}", self.blocks_verified, self.block_count)?;
        if let Some(at) = self.pruned_at {
            writeln!(
                w,
                "pruned:   {} blocks' payloads removed by gc at {} (hashes checked against the \
                 journal)",
                self.blocks_pruned,
                crate::output::rfc3339(at)
            )?;
        }
        writeln!(w, "head:     {}", self.head_hash)?;
        if let Some(e) = &self.expected_head {
            writeln!(
                w,
                "expected: {} ({})",
                e.expected,
                if e.matches { "matches" } else { "DOES NOT MATCH" }
            )?;
        }
        for p in &self.problems {
            writeln!(w, "problem:  {}", p.detail)?;
        }
        writeln!(w, "{}", if self.ok { "intact" } else { "BROKEN" })
    }
}

/// A problem as one line, `subject: detail`, without saying the subject twice when the detail
/// already starts with it (`pad:ID: pad ID: block 1 …` is shown as `pad:ID: block 1 …`).
fn shown(p: &crate::ops::verify::Problem) -> String {
    let spoken = p.subject.replacen(':', " ", 1);
    let detail = p.detail.strip_prefix(&format!("{spoken}: ")).unwrap_or(&p.detail);
    format!("{}: {detail}", p.subject)
}

/// Whose keys made an agent's signatures, as `verify` and `review` print it.
pub fn whose_keys(a: &crate::ops::verify::signatures::AgentSignatures) -> String {
    if a.self_keys_only {
        "every one by a key it registered itself".to_owned()
    } else {
        format!(
            "{} by keys the OPERATOR registered, {} by its own",
            a.by_operator_registered_keys, a.by_self_registered_keys
        )
    }
}

/// Writes checks as an aligned table: `  pass  name  detail`.
pub fn render_checks(w: &mut dyn Write, checks: &[Check]) -> io::Result<()> {
    let width = checks.iter().map(|c| c.name.len()).max().unwrap_or(0);
    for c in checks {
        writeln!(w, "  {:<4}  {:<width$}  {}", c.status.as_str(), c.name, c.detail)?;
    }
    Ok(())
}

impl Render for BundleReport {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        if let Some(f) = &self.file {
            writeln!(w, "bundle:  {f} ({} bytes, sha256 {})", self.bytes, self.sha256)?;
        }
        writeln!(
            w,
            "pad:     {} ({}, from {} via {})",
            self.pad_id, self.state, self.source.kind, self.source.exporter
        )?;
        writeln!(
            w,
            "blocks:  {} read of {} stated, {} bytes stated",
            self.blocks_read, self.block_count, self.total_bytes
        )?;
        writeln!(w, "head:    {} (recomputed)", self.computed_head)?;
        render_checks(w, &self.checks)?;
        if let Some(e) = &self.evidence {
            writeln!(w, "evidence of a fork ({}):", e.failure)?;
            writeln!(w, "--- pinned checkpoint")?;
            w.write_all(e.pinned.as_bytes())?;
            writeln!(w, "--- presented checkpoint")?;
            w.write_all(e.presented.as_bytes())?;
        }
        match (&self.first_failure, self.expected_head) {
            (Some(c), _) => writeln!(w, "BROKEN: {}: {}", c.name, c.detail),
            (None, Some(_)) => writeln!(w, "intact: the head is the expected one"),
            (None, None) if self.verdict == "trusted_log_checkpoint" => writeln!(
                w,
                "intact: every block is in the log whose checkpoint the trusted key signed"
            ),
            (None, None) => writeln!(
                w,
                "intact (internally consistent only: pass --expect-head to pin the head)"
            ),
        }
    }
}
