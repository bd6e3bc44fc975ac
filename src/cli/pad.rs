//! `locker pad …`, `locker append` and `locker seal`.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};

use super::input::{read_payload, write_file_atomic, KeyArgs, SignArgs, TicketArgs};
use super::trust::TrustArgs;
use super::{CmdResult, CommandCtx};
use crate::api::{
    AppendBlock, CreatePad, ListPads, MintTicket, PadKey, PadPayment, ReadBlocks, ReadPad,
    RevokeTicket,
};
use crate::domain::bundle::{self, MAX_BUNDLE_BYTES};
use crate::domain::limits::{PadLimits, DEFAULT_MAX_BLOCKS, DEFAULT_TTL_SECONDS, MAX_BLOCK_BYTES};
use crate::domain::pad::{PadState, TicketType};
use crate::ops::pad::bundle::{self as bundle_op, Exported, Imported};
use crate::ops::pad::{
    self as op, Appended, BlockSlice, Manifest, PadCreated, PadList, Sealed, TicketMinted,
    TicketRevoked,
};
use crate::ops::verify::parse_expected_head;
use crate::ops::{NoProgress, OpError};
use crate::output::{rfc3339, Render};

/// Work with handoff pads: hash-chained blocks, sealed and read with tickets
#[derive(Debug, Subcommand)]
pub enum PadCommand {
    Create(CreateArgs),
    Append(AppendArgs),
    Seal(SealArgs),
    Ticket(TicketCmdArgs),
    RevokeTicket(RevokeArgs),
    Show(ShowArgs),
    Read(ReadArgs),
    List(ListArgs),
    Export(ExportArgs),
    Import(ImportArgs),
}

pub fn run(ctx: &mut CommandCtx, cmd: PadCommand) -> CmdResult {
    match cmd {
        PadCommand::Create(a) => create(ctx, &a),
        PadCommand::Append(a) => append(ctx, &a),
        PadCommand::Seal(a) => seal(ctx, &a),
        PadCommand::Ticket(a) => ticket(ctx, &a),
        PadCommand::RevokeTicket(a) => revoke(ctx, &a),
        PadCommand::Show(a) => show(ctx, &a),
        PadCommand::Read(a) => read(ctx, &a),
        PadCommand::List(a) => list(ctx, &a),
        PadCommand::Export(a) => export(ctx, &a),
        PadCommand::Import(a) => import(ctx, &a),
    }
}

/// Create an empty pad and print its write key and read ticket (shown once)
///
/// The write key appends, seals and mints tickets; the `read_once` ticket reads. Only their
/// SHA-256 digests are stored.
#[derive(Debug, Args)]
pub struct CreateArgs {
    /// How long until the pad expires unless sealed, from 1s to 30d (`90s`, `45m`, `12h`,
    /// `30d`, or plain seconds; default 1h)
    #[arg(long = "ttl", default_value_t = i64::from(DEFAULT_TTL_SECONDS), value_name = "DURATION", value_parser = crate::domain::time::parse_duration)]
    pub ttl: i64,
    /// Most blocks the pad may hold (1–4096)
    #[arg(long, default_value_t = i64::from(DEFAULT_MAX_BLOCKS), value_name = "N")]
    pub max_blocks: i64,
    /// With --remote: the hash of the payment a pay-per-pad server asked for (sent as
    /// `X-Payment-Proof`); without one, such a server's challenge is an error (exit 5) naming
    /// what to pay
    #[arg(long, value_name = "TX_HASH")]
    pub payment_proof: Option<String>,
}

fn create(ctx: &mut CommandCtx, a: &CreateArgs) -> CmdResult {
    let limits =
        PadLimits::new(a.ttl, a.max_blocks).map_err(|e| OpError::unprocessable(e.to_string()))?;
    let payment = a.payment_proof.as_deref().map_or(PadPayment::None, PadPayment::Proof);
    let out = ctx.locker()?.pad_create(CreatePad { limits, payment })?;
    ctx.printer.emit(&out)?;
    ctx.printer.status(format_args!(
        "Created pad {}; keep the write key and ticket: they are not shown again.",
        out.pad_id
    ));
    Ok(ExitCode::SUCCESS)
}

impl Render for PadCreated {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        writeln!(w, "pad_id:      {}", self.pad_id)?;
        writeln!(w, "write_key:   {}", self.write_key)?;
        writeln!(w, "read_ticket: {}", self.read_ticket)?;
        writeln!(w, "expires_at:  {}", rfc3339(self.expires_at))
    }
}

/// Append one block to a pad
///
/// The payload comes from FILE, `-` (stdin), `--data`, or stdin when it is not a terminal.
/// Block 0 must be a `locker.handoff.v1` envelope; later blocks are free-form (64 KiB each,
/// 256 KiB per pad).
#[derive(Debug, Args)]
pub struct AppendArgs {
    /// The pad's id
    #[arg(add = super::complete::pads())]
    pub pad: String,
    /// Read the payload from FILE (`-` for stdin)
    #[arg(value_name = "FILE", conflicts_with = "data")]
    pub file: Option<PathBuf>,
    /// Use TEXT as the payload
    #[arg(short, long, value_name = "TEXT", allow_hyphen_values = true)]
    pub data: Option<String>,
    /// The block's content type
    #[arg(long, default_value = op::DEFAULT_CONTENT_TYPE, value_name = "TYPE")]
    pub content_type: String,
    #[command(flatten)]
    pub key: KeyArgs,
    #[command(flatten)]
    pub sign: SignArgs,
}

pub fn append(ctx: &mut CommandCtx, a: &AppendArgs) -> CmdResult {
    let key = a.key.secret()?;
    let signing = a.sign.signing()?;
    let payload = match &a.data {
        Some(d) => d.clone().into_bytes(),
        None => read_payload(a.file.as_deref(), MAX_BLOCK_BYTES)?,
    };
    let out = ctx.locker()?.pad_append(AppendBlock {
        pad: &a.pad,
        key: key.as_ref(),
        payload: &payload,
        content_type: Some(&a.content_type),
        signing: signing.as_ref(),
    })?;
    ctx.printer.emit(&out)?;
    Ok(ExitCode::SUCCESS)
}

impl Render for Appended {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        writeln!(w, "{} {} {}", self.pad_id, self.seq, self.curr_hash)
    }
}

/// Seal a pad: no more appends; the stored chain is re-checked first
#[derive(Debug, Args)]
pub struct SealArgs {
    /// The pad's id
    #[arg(add = super::complete::pads())]
    pub pad: String,
    #[command(flatten)]
    pub key: KeyArgs,
}

pub fn seal(ctx: &mut CommandCtx, a: &SealArgs) -> CmdResult {
    let key = a.key.secret()?;
    let out = ctx.locker()?.pad_seal(PadKey { pad: &a.pad, key: key.as_ref() })?;
    ctx.printer.emit(&out)?;
    ctx.printer.status(format_args!("Sealed pad {} at head {}", out.pad_id, out.head_hash));
    Ok(ExitCode::SUCCESS)
}

impl Render for Sealed {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        writeln!(w, "{}", self.head_hash)
    }
}

/// Mint a read ticket for a pad (shown once)
#[derive(Debug, Args)]
pub struct TicketCmdArgs {
    /// The pad's id
    #[arg(add = super::complete::pads())]
    pub pad: String,
    /// `read_once` opens a read lease at its first read; `read_unlimited` reads until revoked
    #[arg(long = "type", default_value = "read_unlimited", value_parser = ["read_once", "read_unlimited"])]
    pub ticket_type: String,
    #[command(flatten)]
    pub key: KeyArgs,
}

fn ticket(ctx: &mut CommandCtx, a: &TicketCmdArgs) -> CmdResult {
    let key = a.key.secret()?;
    let t = TicketType::parse(&a.ticket_type)
        .ok_or_else(|| OpError::unprocessable("type must be 'read_once' or 'read_unlimited'"))?;
    let out =
        ctx.locker()?.ticket_mint(MintTicket { pad: &a.pad, key: key.as_ref(), ticket_type: t })?;
    ctx.printer.emit(&out)?;
    ctx.printer.status(format_args!("Ticket id (for revoking it): {}", out.ticket_id));
    Ok(ExitCode::SUCCESS)
}

impl Render for TicketMinted {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        writeln!(w, "{}", self.ticket)
    }
}

/// Revoke a read ticket: it then reads nothing (revoking twice changes nothing)
#[derive(Debug, Args)]
pub struct RevokeArgs {
    /// The pad's id
    #[arg(add = super::complete::pads())]
    pub pad: String,
    /// The ticket, or its ticket id (the 64-hex SHA-256 printed when it was minted)
    #[arg(allow_hyphen_values = true)]
    pub ticket: String,
    #[command(flatten)]
    pub key: KeyArgs,
}

fn revoke(ctx: &mut CommandCtx, a: &RevokeArgs) -> CmdResult {
    let key = a.key.secret()?;
    let out = ctx.locker()?.ticket_revoke(RevokeTicket {
        pad: &a.pad,
        key: key.as_ref(),
        ticket: &a.ticket,
    })?;
    ctx.printer.emit(&out)?;
    Ok(ExitCode::SUCCESS)
}

impl Render for TicketRevoked {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        let how = if self.already_revoked { "was already revoked" } else { "revoked" };
        writeln!(w, "ticket {} {how}", self.ticket_id)
    }
}

/// Show a pad's manifest: state, block count, bytes, head and times
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The pad's id
    #[arg(add = super::complete::pads())]
    pub pad: String,
}

fn show(ctx: &mut CommandCtx, a: &ShowArgs) -> CmdResult {
    let out = ctx.locker()?.pad_manifest(&a.pad)?;
    ctx.printer.emit(&out)?;
    Ok(ExitCode::SUCCESS)
}

impl Render for Manifest {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        writeln!(w, "pad_id:      {}", self.pad_id)?;
        writeln!(w, "state:       {}", self.state.as_str())?;
        writeln!(w, "blocks:      {} of {}", self.block_count, self.max_blocks)?;
        writeln!(w, "bytes:       {} of {}", self.total_bytes, self.max_bytes)?;
        writeln!(w, "head_hash:   {}", self.head_hash)?;
        writeln!(w, "created_at:  {}", rfc3339(self.created_at))?;
        writeln!(w, "expires_at:  {}", rfc3339(self.expires_at))?;
        if let Some(s) = self.sealed_at {
            writeln!(w, "sealed_at:   {}", rfc3339(s))?;
        }
        Ok(())
    }
}

/// Read blocks FROM..=TO of a pad with a read ticket
///
/// A slice holds at most 256 blocks and 64 KiB of payload. The first successful read with a
/// `read_once` ticket opens its read lease (600 s, or `LOCKER_READ_LEASE_SECONDS`).
///
/// With --remote and the log's key (--key) or a witness policy (--policy, LOCKER_POLICY or the
/// reader's config): the blocks read must be the ones the server's log proves recorded, under
/// a checkpoint signed by the key, carrying the policy's quorum of witness cosignatures and
/// consistent with the one pinned (as `locker verify --remote PAD` checks them); otherwise no
/// payload is printed and the report says why (exit 1).
#[derive(Debug, Args)]
pub struct ReadArgs {
    /// The pad's id
    #[arg(add = super::complete::pads())]
    pub pad: String,
    /// First block to read
    #[arg(long, allow_negative_numbers = true, value_name = "SEQ")]
    pub from: Option<i64>,
    /// Last block to read (inclusive; default: the last block)
    #[arg(long, allow_negative_numbers = true, value_name = "SEQ")]
    pub to: Option<i64>,
    /// Write the payloads' exact bytes to stdout, one after another (not with --json)
    #[arg(long)]
    pub raw: bool,
    #[command(flatten)]
    pub ticket: TicketArgs,
    #[command(flatten)]
    pub trust: TrustArgs,
}

fn read(ctx: &mut CommandCtx, a: &ReadArgs) -> CmdResult {
    // `conflicts_with` does not see the global `--json`, so the check is made here.
    if a.raw && ctx.printer.is_json() {
        return Err(OpError::usage("--raw and --json cannot be used together").into());
    }
    let remote = ctx.remote()?.is_some();
    if !remote && a.trust.policy.is_some() {
        return Err(OpError::usage(
            "--policy on `pad read` checks what a server serves: it needs --remote URL",
        )
        .into());
    }
    let ticket = a.ticket.secret()?;
    let out = ctx.locker()?.pad_read(ReadBlocks {
        pad: &a.pad,
        ticket: ticket.as_ref(),
        from: a.from,
        to: a.to,
    })?;
    if remote {
        if let Some(report) = check_read(ctx, a, &out, ticket.as_ref())? {
            if !report.ok {
                if a.raw {
                    let why = report.first_failure.as_ref().map(|c| c.detail.as_str());
                    ctx.printer.status(format_args!(
                        "Error: the blocks read are not accepted: {}",
                        why.unwrap_or("?")
                    ));
                } else {
                    ctx.printer.emit(&report)?;
                }
                return Ok(ExitCode::from(1));
            }
            let pin = report.pin.as_ref().map_or("", |p| p.detail.as_str());
            ctx.printer.status(format_args!(
                "{} block(s) proved in the log ({}); pin: {pin}",
                out.count,
                report.policy.as_ref().map_or_else(
                    || "no witness policy".to_owned(),
                    crate::ops::log::pin::policy_summary
                )
            ));
        }
    }
    if a.raw {
        for b in &out.blocks {
            ctx.printer.raw(&b.payload())?;
        }
    } else {
        ctx.printer.emit(&out)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// With the reader's key or policy, a remote read is checked: the pad as the server's log
/// proves it (its bundle, checked as `verify --bundle` does, checkpoint taken as the reader
/// takes any) must hold exactly the blocks read. `None` without a key or policy.
fn check_read(
    ctx: &mut CommandCtx,
    a: &ReadArgs,
    out: &BlockSlice,
    ticket: Option<&crate::domain::secret::Secret>,
) -> Result<Option<bundle_op::BundleReport>, OpError> {
    if a.trust.key.is_none() && a.trust.policy()?.is_none() {
        return Ok(None);
    }
    let b = ctx.locker()?.pad_export(ReadPad { pad: &a.pad, ticket }, &NoProgress)?;
    let bytes = bundle::encode(&b);
    let mut report = super::trust::check_bundle(ctx, &bytes, None, None, &a.trust)?;
    let differs = out.blocks.iter().find(|r| {
        let proved = usize::try_from(r.seq).ok().and_then(|i| b.blocks.get(i));
        !proved.is_some_and(|p| p.curr_hash == r.curr_hash && p.payload == r.payload())
    });
    if let Some(r) = differs {
        report.add_checks(vec![crate::domain::check::Check::fail(
            "read",
            format!("block {} as read is not the block the log proves", r.seq),
        )]);
    }
    Ok(Some(report))
}

impl Render for BlockSlice {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        for b in &self.blocks {
            writeln!(
                w,
                "--- block {} {} {} ({} bytes)",
                b.seq,
                b.curr_hash,
                b.content_type,
                b.payload().len()
            )?;
            match &b.payload_utf8 {
                Some(t) => {
                    w.write_all(t.as_bytes())?;
                    if !t.ends_with('\n') {
                        writeln!(w)?;
                    }
                }
                None => writeln!(w, "<binary payload; use --raw or --json>")?,
            }
        }
        writeln!(
            w,
            "--- {} of {} blocks (from {} to {})",
            self.count, self.total_blocks, self.from, self.to
        )
    }
}

/// List pads with their state, blocks and head
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Only pads in this state
    #[arg(long, value_parser = ["open", "sealed", "expired"])]
    pub state: Option<String>,
    /// Most pads to list
    #[arg(long, default_value_t = 1000)]
    pub limit: usize,
    /// Only pads whose id sorts after ID: pass the last `pad_id` of one page to get the next
    #[arg(long, value_name = "ID")]
    pub after: Option<String>,
}

fn list(ctx: &mut CommandCtx, a: &ListArgs) -> CmdResult {
    let state = a.state.as_deref().map(|s| match s {
        "open" => PadState::Open,
        "sealed" => PadState::Sealed,
        _ => PadState::Expired,
    });
    let out =
        ctx.locker()?.pad_list(ListPads { state, limit: a.limit, after: a.after.as_deref() })?;
    ctx.printer.emit(&out)?;
    Ok(ExitCode::SUCCESS)
}

impl Render for PadList {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        for p in &self.pads {
            writeln!(
                w,
                "{}  {:<7}  {:>4} blocks  {}",
                p.pad_id,
                p.state.as_str(),
                p.block_count,
                p.head_hash
            )?;
        }
        Ok(())
    }
}

/// Write a pad to one self-contained bundle file (`locker.bundle.v1`)
///
/// The bundle holds the pad's manifest, every block's exact bytes with its hashes, and a
/// trailer with the block count, the byte count, the head and a SHA-256 of everything before
/// it, so that a cut or edited file is detected. Check it anywhere with
/// `locker verify --bundle FILE`, review it with `locker review --bundle FILE`, and bring it
/// into another repository with `locker pad import FILE`.
///
/// Exporting reads every block, so it takes a read ticket like `locker pad read` (a
/// `read_once` ticket opens its read lease). The repository's operator (no `LOCKER_TOKEN`)
/// may export without one: the operator can read the `.locker/` files directly anyway.
/// With --remote (or LOCKER_URL) the pad is fetched with the ticket through the pad API of a
/// `locker serve` or of an agent-locker daemon, which then bundles what the server said.
/// Bundle files are written with mode 0600, since they hold the pad's payloads.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The pad's id
    #[arg(add = super::complete::pads())]
    pub pad: String,
    /// Write the bundle to FILE, atomically (default: stdout)
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub ticket: TicketArgs,
}

fn export(ctx: &mut CommandCtx, a: &ExportArgs) -> CmdResult {
    let to_stdout = a.output.as_deref().is_none_or(|p| p == std::path::Path::new("-"));
    if to_stdout && ctx.printer.is_json() {
        return Err(OpError::usage(
            "with --json, pass -o FILE: the bundle itself would be written to stdout",
        )
        .into());
    }
    let ticket = a.ticket.secret()?;
    let progress = ctx.printer.progress();
    let b =
        ctx.locker()?.pad_export(ReadPad { pad: &a.pad, ticket: ticket.as_ref() }, &*progress)?;
    drop(progress);
    let bytes = bundle::encode(&b);
    match a.output.as_deref().filter(|_| !to_stdout) {
        None => {
            ctx.printer.raw(&bytes)?;
            ctx.printer.status(format_args!(
                "Exported pad {} ({} blocks, head {})",
                b.header.pad_id, b.header.block_count, b.header.head_hash
            ));
        }
        Some(path) => {
            write_file_atomic(path, &bytes)?;
            ctx.printer.emit_confirmation(&Exported::of(
                &b,
                &bytes,
                &path.display().to_string(),
            ))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

impl Render for Exported {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        writeln!(
            w,
            "wrote pad {} ({}, {} blocks, {} bytes, head {}) to {} ({} bytes, sha256 {})",
            self.pad_id,
            self.state,
            self.block_count,
            self.total_bytes,
            self.head_hash,
            self.file,
            self.bytes,
            self.sha256
        )
    }
}

/// Verify a bundle file and store it as a sealed pad (new write key and ticket, shown once)
///
/// Every check of `locker verify --bundle` must pass, the bundle's pad must be sealed, and no
/// pad with its id may exist here (that is a conflict). The pad keeps its id, blocks, times and
/// head; the journal records the import with the bundle's SHA-256.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The bundle file (`-` for stdin)
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Also require this head (64 hex characters), obtained independently of the file
    #[arg(long, value_name = "HASH")]
    pub expect_head: Option<String>,
}

fn import(ctx: &mut CommandCtx, a: &ImportArgs) -> CmdResult {
    let expect = a.expect_head.as_deref().map(parse_expected_head).transpose()?;
    let progress = ctx.printer.progress();
    let local = ctx.local()?;
    let bytes = read_payload(Some(&a.file), MAX_BUNDLE_BYTES)?;
    let out = bundle_op::import(&mut local.ctx()?, &bytes, expect, &*progress)?;
    drop(progress);
    ctx.printer.emit(&out)?;
    ctx.printer.status(format_args!(
        "Imported sealed pad {} ({} blocks); keep the write key and ticket: they are not shown \
         again.",
        out.pad_id, out.block_count
    ));
    Ok(ExitCode::SUCCESS)
}

impl Render for Imported {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        writeln!(w, "pad_id:      {}", self.pad_id)?;
        writeln!(w, "write_key:   {}", self.write_key)?;
        writeln!(w, "read_ticket: {}", self.read_ticket)?;
        writeln!(w, "head_hash:   {}", self.head_hash)
    }
}
