//! `locker verify`.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::Args;

use super::{CmdResult, Ctx};
use crate::ops::verify::{self, PadReport, RepoReport};
use crate::output::Render;

/// Check the repository's integrity, like `git fsck`, or one pad's
///
/// With no PAD: the journal chain and its head, every pad's chain against its stored head and
/// the journal's record of it, every ticket and agent token, every blob (re-hashed), every
/// artifact version, head and receipt, and every lease, plan and step against the journal.
/// With PAD: that pad's chain, accounting and
/// journal record. Exits 0 when everything is intact and 1 when anything is broken, naming the
/// first broken item of each kind.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Verify only this pad
    pub pad: Option<String>,
    /// Also require this head: the pad's head with PAD, else the journal's head hash
    #[arg(long, value_name = "HASH")]
    pub expect_head: Option<String>,
}

pub fn run(ctx: &mut Ctx, a: &VerifyArgs) -> CmdResult {
    let expect = a.expect_head.as_deref().map(verify::parse_expected_head).transpose()?;
    let remote = ctx.remote()?;
    let ok = if let Some(pad) = &a.pad {
        let report = match &remote {
            Some(r) => r.verify_pad(pad, expect)?,
            None => verify::pad(&mut ctx.ops()?, pad, expect)?,
        };
        ctx.printer.emit(&report)?;
        report.ok
    } else {
        let report = match &remote {
            Some(r) => r.verify_repository(expect)?,
            None => {
                let progress = ctx.printer.progress();
                verify::repository(&mut ctx.ops()?, expect, progress.as_ref())?
            }
        };
        ctx.printer.emit(&report)?;
        report.ok
    };
    Ok(if ok { ExitCode::SUCCESS } else { ExitCode::from(1) })
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
        if let Some(at) = self.gc.last_at {
            writeln!(
                w,
                "gc:      {} run(s), last {}: pruned {} pads ({} payload bytes), removed {} \
                 blobs ({} bytes)",
                self.gc.runs,
                crate::output::rfc3339(at),
                self.gc.pads,
                self.gc.payload_bytes,
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
            writeln!(w, "first broken {kind}: {}: {}", p.subject, p.detail)?;
        }
        if self.problem_count > 0 {
            writeln!(w, "{} problem(s):", self.problem_count)?;
            for p in &self.problems {
                writeln!(w, "  {}: {}", p.subject, p.detail)?;
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
