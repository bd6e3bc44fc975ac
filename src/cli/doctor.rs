//! `locker doctor`.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::Args;

use super::{CmdResult, CommandCtx};
use crate::ops::admin::doctor::{self as op, DoctorReport, Input, Severity};
use crate::output::Render;

/// Check the repository and its surroundings, and say what to do about each finding
///
/// Checks, without changing anything: that the repository is found and its config readable;
/// that `.locker/` holds no symbolic links and nothing open to the group or others (0700
/// directories, 0600 files) and belongs to this user; leftovers of interrupted commands; the
/// schema version against this binary's; the write-ahead log's size (overdue checkpoints);
/// free disk space; that the clock is not behind the journal's newest entry; that
/// `LOCKER_TOKEN`, if set, is a known, unrevoked token; and, with `--remote` or `LOCKER_URL`,
/// that the server answers `GET /health`.
///
/// Each finding is `ok`, `warn`, `problem` or `skipped`, with what to do about it. Exits 0
/// when no finding is a problem and 1 otherwise.
#[derive(Debug, Args)]
pub struct DoctorArgs {}

pub fn run(ctx: &mut CommandCtx, _a: &DoctorArgs) -> CmdResult {
    let location = ctx.location()?;
    let remote =
        ctx.global.remote.as_deref().map(str::trim).filter(|u| !u.is_empty()).map(str::to_owned);
    let input = Input {
        location,
        now: ctx.now(),
        clock_pinned: std::env::var_os("LOCKER_NOW").is_some(),
        token: ctx.identity().token.as_ref(),
        remote: remote.is_some(),
        log_key: ctx.global.log_key.as_deref(),
    };
    let mut report = op::run(&input);
    if let Some(url) = remote {
        match ctx.remote().and_then(|c| {
            let c = c.ok_or_else(|| crate::ops::OpError::usage("no server URL"))?;
            let h = c.health()?;
            Ok((c.base_url().to_owned(), h, c.metrics()))
        }) {
            Ok((base, h, metrics)) => {
                let status = h.get("status").and_then(|v| v.as_str()).unwrap_or("?");
                let version = h.get("version").and_then(|v| v.as_str()).unwrap_or("?");
                if status == "ok" {
                    report.push(
                        "server",
                        Severity::Ok,
                        format!("{base} answers: status ok, locker {version}"),
                        None,
                    );
                } else {
                    report.push(
                        "server",
                        Severity::Problem,
                        format!("{base} answers, but its status is `{status}`"),
                        Some("Check the server's log; `locker doctor` on its host checks its repository.".into()),
                    );
                }
                match metrics {
                    Ok(text) => {
                        for (severity, detail, fix) in crate::ops::admin::scrape::findings(&text) {
                            report.push("metrics", severity, detail, fix);
                        }
                    }
                    Err(e) if e.kind == crate::ops::ErrorKind::Unauthorized => report.push(
                        "metrics",
                        Severity::Skipped,
                        "the server's /metrics needs an agent's token".into(),
                        Some("Set LOCKER_TOKEN to an agent's token to check them.".into()),
                    ),
                    Err(e) => report.push(
                        "metrics",
                        Severity::Skipped,
                        format!("no metrics from {base}: {}", e.detail),
                        None,
                    ),
                }
            }
            Err(e) => report.push(
                "server",
                Severity::Problem,
                format!("{url}: {}", e.detail),
                Some(
                    "Start `locker serve` there (or check the URL in --remote / LOCKER_URL, \
                     and any firewall in between)."
                        .into(),
                ),
            ),
        }
    }
    ctx.printer.emit(&report)?;
    Ok(if report.ok { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

impl Render for DoctorReport {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        for f in &self.findings {
            let mark = match f.status {
                Severity::Ok => "ok",
                Severity::Warn => "WARN",
                Severity::Problem => "PROBLEM",
                Severity::Skipped => "skipped",
            };
            writeln!(w, "{mark:<8} {:<11}{}", f.check, f.detail)?;
            if let Some(fix) = &f.fix {
                writeln!(w, "{:<19} fix: {fix}", "")?;
            }
        }
        writeln!(
            w,
            "{}",
            if self.ok {
                format!("no problems ({} warning(s))", self.warnings)
            } else {
                format!("{} problem(s), {} warning(s)", self.problems, self.warnings)
            }
        )
    }
}
