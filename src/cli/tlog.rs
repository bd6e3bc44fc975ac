//! `locker checkpoint`, `locker key show`, `locker proof …`: the journal as a transparency log.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};

use super::trust::{announce_pin, with_fetch, TrustArgs};
use super::{CmdResult, CommandCtx};
use crate::api::ProveConsistency;
use crate::domain::digest::Digest;
use crate::ops::log::pin::{self, CheckpointCheck, ProofReport};
use crate::ops::log::{
    CheckpointOutcome, ConsistencyOutcome, InclusionOutcome, KeyOutcome, Target,
};
use crate::ops::OpError;
use crate::output::Render;

/// Print the log's latest signed checkpoint
///
/// The journal is a transparency log: every entry is a leaf of an RFC 6962 Merkle tree, and
/// the repository's Ed25519 key (in `.locker/keys/log.key`, made at `init`) signs C2SP
/// checkpoints (origin, tree size, root) as signed notes. A checkpoint is signed only after a
/// consistency proof shows the tree extends the last one signed.
///
/// With --key: act as a pinned verifier. The checkpoint must verify with the key, and must
/// be proved consistent with the checkpoint pinned for its origin in the state directory
/// (the proof comes from --remote or the repository); the newer one is then pinned. A fork
/// is reported with both signed checkpoints and the failed proof, exit 1.
#[derive(Debug, Args)]
pub struct CheckpointArgs {
    #[command(flatten)]
    pub trust: TrustArgs,
    /// Ask the witness at URL to cosign the checkpoint (C2SP tlog-witness), proving it
    /// consistent with what the witness cosigned before; its cosignature is added to the
    /// stored checkpoint. Repeatable. Exit 1 when a witness does not cosign
    #[arg(long = "witness", value_name = "URL")]
    pub witnesses: Vec<String>,
    /// Accept that the repository's database lost entries the log key had signed (a backup
    /// restored on purpose): journal a `repo.rollback` entry naming the checkpoint given up,
    /// and sign the journal that ends with it, which becomes the log key's new high-water
    /// mark. Readers pinned beyond the restored size will see a fork. Local only
    #[arg(long, conflicts_with_all = ["witnesses", "key"])]
    pub accept_rollback: bool,
}

/// `locker checkpoint --accept-rollback`.
fn accept_rollback(ctx: &mut CommandCtx) -> CmdResult {
    ctx.inspect_repository()?;
    let local = ctx.local()?;
    let log = local.log_identity()?;
    let rb = local.repo()?.rollback.clone().ok_or_else(|| {
        OpError::new(
            crate::ops::ErrorKind::Conflict,
            "not_rolled_back",
            "nothing to accept: the database extends the log key's high-water mark",
        )
    })?;
    let out = crate::ops::log::rollback::accept(&mut local.ctx()?, &log, &rb)?;
    ctx.printer.status(format_args!(
        "Accepted the rollback from {} to {} entries (journal entry {}); readers pinned beyond \
         size {} will see a fork.",
        out.abandoned_size, out.restored_size, out.journal_seq, out.restored_size
    ));
    ctx.printer.emit(&out)?;
    Ok(ExitCode::SUCCESS)
}

impl Render for crate::ops::log::rollback::RollbackAccepted {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        w.write_all(self.checkpoint.note.as_bytes())
    }
}

pub fn checkpoint(ctx: &mut CommandCtx, a: &CheckpointArgs) -> CmdResult {
    if a.accept_rollback {
        return accept_rollback(ctx);
    }
    if !a.witnesses.is_empty() {
        let local = ctx.local().map_err(|e| {
            e.hint("A server collects cosignatures itself: `locker serve --witness URL`.")
        })?;
        let log = local.log_identity()?;
        let ask = crate::witness::client::request_cosignature;
        let out = crate::ops::log::cosign::collect(&mut local.ctx()?, &log, &a.witnesses, ask)?;
        for w in &out.witnesses {
            if let Some(e) = &w.error {
                ctx.printer.status(format_args!("witness {}: {e}", w.url));
            }
        }
        ctx.printer.emit(&out)?;
        return Ok(if out.all_cosigned { ExitCode::SUCCESS } else { ExitCode::from(1) });
    }
    let cp = ctx.locker()?.checkpoint()?;
    let Some(trust) = a.trust.trust(Some(&cp.note))? else {
        ctx.printer.emit(&cp)?;
        return Ok(ExitCode::SUCCESS);
    };
    let report =
        with_fetch(ctx, &trust.key, |fetch| pin::check_checkpoint(&cp.note, &trust, fetch))?;
    ctx.printer.emit(&report)?;
    announce_pin(ctx, &report.origin, &report.pin);
    Ok(if report.ok { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

impl Render for crate::ops::log::cosign::Cosigned {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        w.write_all(self.checkpoint.note.as_bytes())
    }
}

impl Render for CheckpointOutcome {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        w.write_all(self.note.as_bytes())
    }
}

impl Render for CheckpointCheck {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        writeln!(w, "origin:  {}", self.origin)?;
        if let (Some(size), Some(root)) = (self.size, self.root) {
            writeln!(w, "tree:    {size} entries, root {root}")?;
        }
        if let Some(p) = &self.policy {
            render_quorum(w, p)?;
        }
        render_pin(w, &self.pin, self.evidence.as_ref())?;
        match (&self.failure, &self.policy) {
            (Some(f), _) => writeln!(w, "FAILED: {f}"),
            (None, Some(_)) => writeln!(
                w,
                "ok: signed by the trusted key, cosigned by the policy's quorum and consistent \
                 with the pin"
            ),
            (None, None) => {
                writeln!(w, "ok: signed by the trusted key and consistent with the pin")
            }
        }
    }
}

/// `quorum: `q` satisfied (cosigned by: A (time t); missing: B)`.
pub fn render_quorum(
    w: &mut dyn Write,
    p: &crate::ops::log::cosign::PolicyReport,
) -> io::Result<()> {
    let q = &p.quorum;
    let by: Vec<String> = q.cosigned_by.iter().map(|(n, t)| format!("{n} (time {t})")).collect();
    let none = |v: &[String]| if v.is_empty() { "none".to_owned() } else { v.join(", ") };
    writeln!(
        w,
        "quorum:  `{}` {} (cosigned by: {}; missing: {})",
        q.quorum,
        if q.satisfied { "satisfied" } else { "NOT satisfied" },
        none(&by),
        none(&q.missing)
    )
}

pub fn render_pin(
    w: &mut dyn Write,
    p: &pin::PinReport,
    evidence: Option<&pin::ForkEvidence>,
) -> io::Result<()> {
    let status = serde_json::to_value(p.status).ok();
    let status = status.as_ref().and_then(|s| s.as_str()).unwrap_or("?");
    writeln!(w, "pin:     {status}: {}", p.detail)?;
    if let Some(e) = evidence {
        writeln!(w, "evidence of a fork ({}):", e.failure)?;
        writeln!(w, "--- pinned checkpoint")?;
        w.write_all(e.pinned.as_bytes())?;
        writeln!(w, "--- presented checkpoint")?;
        w.write_all(e.presented.as_bytes())?;
        writeln!(w, "--- consistency proof {} -> {}", e.old_size, e.new_size)?;
        for h in &e.proof {
            writeln!(w, "{}", crate::domain::proof::b64(h))?;
        }
    }
    Ok(())
}

/// Show the log's key
#[derive(Debug, Subcommand)]
pub enum KeyCommand {
    /// Print the verifier key of the log's checkpoints
    ///
    /// In the signed-note format `name+keyid+base64(0x01 ‖ public key)`: give it to whoever
    /// verifies proofs and bundles (`locker verify --proof FILE --key VKEY`). The private key
    /// stays in `.locker/keys/log.key`.
    Show,
}

pub fn key(ctx: &mut CommandCtx, c: &KeyCommand) -> CmdResult {
    let KeyCommand::Show = c;
    let out = ctx.locker()?.log_key()?;
    ctx.printer.emit(&out)?;
    Ok(ExitCode::SUCCESS)
}

impl Render for KeyOutcome {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        writeln!(w, "{}", self.vkey)
    }
}

/// Prove journal entries included in, and checkpoints consistent with, the log
#[derive(Debug, Subcommand)]
pub enum ProofCommand {
    Inclusion(InclusionArgs),
    Consistency(ConsistencyArgs),
}

/// Prove a journal entry (or the entry that recorded a pad block) included in the log
///
/// Prints a C2SP tlog-proof file: the entry's exact bytes (as its `extra` data), its leaf
/// index, the inclusion proof and the log's latest signed checkpoint. Anyone holding the
/// verifier key checks it with `locker verify --proof FILE --key VKEY`, with no repository.
#[derive(Debug, Args)]
pub struct InclusionArgs {
    /// The journal entry's sequence number
    #[arg(required_unless_present = "pad", conflicts_with = "pad")]
    pub seq: Option<u64>,
    /// Prove the entry that recorded a block of this pad
    #[arg(long, value_name = "PAD", requires = "block", add = super::complete::pads())]
    pub pad: Option<String>,
    /// The block's sequence number in the pad (0 is the envelope)
    #[arg(long, value_name = "SEQ", requires = "pad")]
    pub block: Option<u64>,
    /// Write the proof file to FILE instead of stdout
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Prove the log's checkpoint at OLD entries consistent with the one at NEW
///
/// Prints a proof file holding both signed checkpoints and the RFC 6962 consistency proof
/// between them (`locker/tlog-consistency@v1`); NEW defaults to the whole journal.
#[derive(Debug, Args)]
pub struct ConsistencyArgs {
    /// The older tree size
    pub old: u64,
    /// The newer tree size (default: the whole journal)
    pub new: Option<u64>,
    /// Write the proof file to FILE instead of stdout
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

fn write_proof(ctx: &CommandCtx, out: Option<&Path>, text: &str) -> Result<bool, OpError> {
    let Some(path) = out else { return Ok(false) };
    std::fs::write(path, text)
        .map_err(|e| OpError::unavailable(format!("cannot write {}: {e}", path.display())))?;
    ctx.printer.status(format_args!("wrote {}", path.display()));
    Ok(true)
}

pub fn proof(ctx: &mut CommandCtx, c: &ProofCommand) -> CmdResult {
    match c {
        ProofCommand::Inclusion(a) => {
            let target = match (&a.pad, a.block, a.seq) {
                (Some(pad), Some(block), _) => Target::Block { pad_id: pad.clone(), seq: block },
                (_, _, Some(seq)) => Target::Entry(seq),
                _ => return Err(OpError::usage("give SEQ, or --pad PAD --block SEQ").into()),
            };
            let out = ctx.locker()?.prove_inclusion(&target)?;
            if !write_proof(ctx, a.output.as_deref(), &out.proof)? || ctx.printer.is_json() {
                ctx.printer.emit(&out)?;
            }
        }
        ProofCommand::Consistency(a) => {
            let out =
                ctx.locker()?.prove_consistency(ProveConsistency { old: a.old, new: a.new })?;
            if !write_proof(ctx, a.output.as_deref(), &out.proof)? || ctx.printer.is_json() {
                ctx.printer.emit(&out)?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

impl Render for InclusionOutcome {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        w.write_all(self.proof.as_bytes())
    }
}

impl Render for ConsistencyOutcome {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        w.write_all(self.proof.as_bytes())
    }
}

/// `locker verify --proof FILE`.
pub fn verify_proof(
    ctx: &mut CommandCtx,
    bytes: &[u8],
    trust: &TrustArgs,
) -> Result<bool, super::CliError> {
    let trust = trust.trust(None)?.ok_or_else(|| {
        OpError::usage(
            "--proof needs --key VKEY (the log's verifier key, `locker key show`) or a witness \
             policy naming the log",
        )
    })?;
    let report = with_fetch(ctx, &trust.key, |fetch| pin::verify_proof(bytes, &trust, fetch))?;
    ctx.printer.emit(&report)?;
    announce_pin(ctx, &report.origin, &report.pin);
    Ok(report.ok)
}

fn short(d: &Digest) -> String {
    d.to_hex()
}

impl Render for ProofReport {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        writeln!(w, "proof:   {} (log {}, key {})", self.proof_kind, self.origin, self.key_id)?;
        if let (Some(size), Some(root)) = (self.old_size, self.old_root) {
            writeln!(w, "old:     {size} entries, root {}", short(&root))?;
        }
        if let (Some(size), Some(root)) = (self.size, self.root) {
            writeln!(w, "tree:    {size} entries, root {}", short(&root))?;
        }
        if let Some(e) = &self.entry {
            writeln!(
                w,
                "entry:   {} {} {} by {} ({})",
                e.seq,
                e.kind,
                e.subject,
                e.actor,
                crate::output::rfc3339(e.time)
            )?;
        }
        if let Some(p) = &self.policy {
            render_quorum(w, p)?;
        }
        if self.size.is_some() || self.pin.status == pin::PinStatus::Unverified {
            render_pin(w, &self.pin, self.evidence.as_ref())?;
        }
        match &self.failure {
            Some(f) => writeln!(w, "FAILED: {f}"),
            None => writeln!(w, "ok: the proof verifies with the trusted key"),
        }
    }
}
