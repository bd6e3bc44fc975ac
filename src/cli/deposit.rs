//! `locker deposit`.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::input::read_payload;
use super::{CmdResult, CommandCtx};
use crate::api::{Deposit, PadPayment};
use crate::domain::limits::{DEFAULT_TTL_SECONDS, MAX_BLOCK_BYTES};
use crate::ops::pad::{DepositBlock, Deposited};
use crate::ops::OpError;
use crate::output::Render;

/// Create, fill and seal a pad in one atomic step
///
/// Block 0 is the envelope; each `--artifact` becomes one more block (JSON files as
/// `application/json`, other UTF-8 as `text/plain`, anything else as
/// `application/octet-stream`). Either the sealed pad exists afterwards or nothing does.
#[derive(Debug, Args)]
pub struct DepositArgs {
    /// The `locker.handoff.v1` envelope (`-` for stdin)
    #[arg(long, value_name = "FILE")]
    pub envelope: PathBuf,
    /// A file to add as one block after the envelope (repeatable, in order)
    #[arg(long = "artifact", value_name = "FILE")]
    pub artifacts: Vec<PathBuf>,
    /// The pad's TTL, from 1s to 30d (`90s`, `45m`, `12h`, `30d`, or plain seconds), kept for
    /// compatibility: a deposited pad is sealed at once, and sealed pads do not expire
    #[arg(long = "ttl", default_value_t = i64::from(DEFAULT_TTL_SECONDS), value_name = "DURATION", value_parser = crate::domain::time::parse_duration)]
    pub ttl: i64,
    /// With --remote: the hash of the payment a pay-per-pad server asked for (sent as
    /// `X-Payment-Proof`); without one, such a server's challenge is an error (exit 5) naming
    /// what to pay
    #[arg(long, value_name = "TX_HASH")]
    pub payment_proof: Option<String>,
}

fn content_type_of(bytes: &[u8]) -> &'static str {
    if serde_json::from_slice::<serde_json::Value>(bytes).is_ok() {
        "application/json"
    } else if std::str::from_utf8(bytes).is_ok() {
        "text/plain"
    } else {
        "application/octet-stream"
    }
}

pub fn run(ctx: &mut CommandCtx, a: &DepositArgs) -> CmdResult {
    let envelope = read_payload(Some(&a.envelope), MAX_BLOCK_BYTES)?;
    let mut blocks = Vec::with_capacity(a.artifacts.len());
    for path in &a.artifacts {
        if path.as_os_str() == "-" {
            return Err(OpError::usage("artifacts must be files, not `-`").into());
        }
        let payload = read_payload(Some(path), MAX_BLOCK_BYTES)?;
        let content_type = content_type_of(&payload).to_owned();
        blocks.push(DepositBlock { payload, content_type });
    }
    let out = ctx.locker()?.deposit(Deposit {
        envelope: &envelope,
        artifacts: &blocks,
        ttl_seconds: a.ttl,
        payment: a.payment_proof.as_deref().map_or(PadPayment::None, PadPayment::Proof),
    })?;
    ctx.printer.emit(&out)?;
    ctx.printer.status(format_args!(
        "Deposited sealed pad {} with {} blocks; keep the write key and ticket.",
        out.pad_id, out.block_count
    ));
    Ok(ExitCode::SUCCESS)
}

impl Render for Deposited {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        writeln!(w, "pad_id:      {}", self.pad_id)?;
        writeln!(w, "write_key:   {}", self.write_key)?;
        writeln!(w, "read_ticket: {}", self.read_ticket)?;
        writeln!(w, "head_hash:   {}", self.head_hash)
    }
}
