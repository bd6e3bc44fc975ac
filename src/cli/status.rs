//! `locker status`.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::Args;

use super::{CmdResult, CommandCtx};
use crate::ops::status::{self as op, RepoStatus};
use crate::output::{rfc3339, Render};

/// Show the repository at a glance: journal, checkpoint, pads, leases, signing, store
///
/// The journal's size and head; the newest signed checkpoint, how old it is and how many
/// entries are newer than it; open and sealed pads; active leases (and those past their expiry,
/// which the next lease operation reaps); whether writes must be signed and how many agents
/// have keys; and the store's backend. Reads only; every scope (the operator's view). `locker
/// verify` checks the repository; `locker doctor` checks its surroundings.
#[derive(Debug, Args)]
pub struct StatusArgs {}

pub fn run(ctx: &mut CommandCtx, _a: &StatusArgs) -> CmdResult {
    let out = op::repository(&mut ctx.local()?.ctx()?)?;
    ctx.printer.emit(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// "5s", "3m", "2h", "4d": how long ago, roughly.
fn ago(secs: i64) -> String {
    match secs {
        s if s < 120 => format!("{s}s"),
        s if s < 2 * 3600 => format!("{}m", s / 60),
        s if s < 2 * 86_400 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86_400),
    }
}

impl Render for RepoStatus {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        let head = &self.journal.head_hash;
        writeln!(w, "journal:     {} entries, head {}…", self.journal.entries, &head[..12])?;
        match &self.checkpoint {
            Some(c) => {
                let behind = match c.unsigned_entries {
                    0 => "covers the whole journal".to_owned(),
                    1 => "1 newer entry not yet signed".to_owned(),
                    n => format!("{n} newer entries not yet signed"),
                };
                writeln!(
                    w,
                    "checkpoint:  size {}, signed {} ({} ago); {behind}",
                    c.size,
                    rfc3339(c.signed_at),
                    ago(c.age_seconds)
                )?;
            }
            None => writeln!(w, "checkpoint:  none signed yet (`locker checkpoint` signs one)")?,
        }
        writeln!(
            w,
            "pads:        {} open, {} sealed ({} in all)",
            self.pads.open, self.pads.sealed, self.pads.total
        )?;
        let expired = match self.leases.expired {
            0 => String::new(),
            n => format!(", {n} past expiry (reaped by the next lease operation)"),
        };
        writeln!(w, "leases:      {} active{expired}", self.leases.active)?;
        let required = if self.signing.required { "required" } else { "optional" };
        writeln!(
            w,
            "signing:     signatures {required}; {} agent(s) with keys",
            self.signing.agents_with_keys
        )?;
        writeln!(w, "store:       {}", self.backend)
    }
}
