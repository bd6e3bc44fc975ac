//! `locker quest`, and the quest's worker processes (`locker __quest-worker ROLE`, run only by
//! the quest and recognised before clap, so it is in no help, man page or completion).

use std::ffi::OsString;
use std::io::{self, Write};
use std::process::ExitCode;

use clap::Args;

use super::{CmdResult, CommandCtx};
use crate::ops::OpError;
use crate::output::{OutputFormat, Printer, Render};
use crate::quest::{self, worker, Record, Step, Summary, CHALLENGE, TITLE};

/// Run the demo story with real processes: crashes, a stale retry, tampering, each checked
///
/// Plays the whole story on this machine, in a temporary directory, with real processes of
/// this binary, each started with a minimal environment (nothing inherited: no tokens, no
/// cloud credentials): a planner deposits a sealed handoff pad and hands worker A the read
/// ticket; worker A verifies it, leases the task, commits its plan, saves the publish it
/// intends and is killed with SIGKILL; its lease expires and is reaped, and worker B takes
/// over with a higher fencing token and publishes version 2; worker A restarts and its stale
/// publish is refused; the server is killed with SIGKILL and restarted, and everything
/// survives; a retried publish returns its original result; a byte changed in the database
/// behind locker's back is found by `locker verify`; the plan diff and the journal tell the
/// story.
///
/// Time is simulated: every process gets the quest's clock in `LOCKER_NOW`, moved forward
/// once to expire worker A's lease (the server, which reads it at start, is restarted
/// gracefully on the new clock), so nothing sleeps and the quest takes seconds.
///
/// Prints one `PASS` line per step (or a `FAIL` line saying why, and stops), then a summary;
/// with `--json`, one JSON Lines record per step (`{"type":"step","data":{...}}`) and a final
/// `{"type":"summary",...}`. Exits 0 only when every step passed, 1 otherwise. The temporary
/// directory is removed at the end unless `--keep`.
#[derive(Debug, Args)]
pub struct QuestArgs {
    /// Keep the temporary directory (the repository, the workers' files) and print its path
    #[arg(long)]
    pub keep: bool,
}

pub fn run(ctx: &mut CommandCtx, a: &QuestArgs) -> CmdResult {
    let exe = std::env::current_exe()
        .map_err(|e| OpError::unavailable(format!("cannot find locker's own binary: {e}")))?;
    let opts = quest::QuestOptions { exe, keep: a.keep, now: ctx.now(), temp_parent: None };
    let printer = ctx.printer.clone();
    let json = printer.is_json();
    if !json {
        printer.with_stdout(|w| writeln!(w, "{TITLE}\n{CHALLENGE}\n"))?;
    }
    let mut output_error: Option<io::Error> = None;
    let summary = quest::run(&opts, &mut |step| {
        let written =
            if json { printer.json_line(&Record::Step(step)) } else { printer.emit(step) };
        if let Err(e) = written {
            output_error.get_or_insert(e);
        }
    });
    if let Some(e) = output_error {
        return Err(e.into());
    }
    if json {
        printer.json_line(&Record::Summary(&summary))?;
    } else {
        printer.emit(&summary)?;
    }
    Ok(if summary.ok { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// Appends `text` to `out` wrapped at `width` columns, each line after `indent`.
fn wrap(out: &mut String, text: &str, indent: &str, width: usize) {
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty()
            && indent.len() + line.chars().count() + 1 + word.chars().count() > width
        {
            out.push_str(indent);
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push_str(indent);
        out.push_str(&line);
        out.push('\n');
    }
}

impl Render for Step {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        if self.ok {
            let mut s = format!("PASS  {}\n", self.name);
            wrap(&mut s, &self.detail, "      ", 96);
            w.write_all(s.as_bytes())
        } else {
            writeln!(w, "FAIL  {}: {}", self.name, self.detail)
        }
    }
}

impl Render for Summary {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        let secs = self.elapsed_ms as f64 / 1000.0;
        let dir = if self.kept {
            format!("Kept the temporary directory: {}", self.dir.display())
        } else {
            "Temporary directory removed.".to_owned()
        };
        if self.ok {
            writeln!(w, "\nQUEST CLEARED: all {} steps passed in {secs:.1} s. {dir}", self.steps)
        } else {
            writeln!(
                w,
                "\nQUEST FAILED: {} of {} steps passed ({secs:.1} s). {dir}",
                self.passed, self.steps
            )
        }
    }
}

/// `locker __quest-worker ROLE …`: one of the quest's workers (see [`crate::quest::worker`]).
/// Results go to stdout as one JSON line; errors to stderr as locker's JSON error, with the
/// usual exit code.
pub fn worker_main(args: &[OsString]) -> ExitCode {
    let printer = Printer::new(OutputFormat::Json, false);
    let args: Vec<String> = args.iter().map(|a| a.to_string_lossy().into_owned()).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let io = |e: io::Error| OpError::unavailable(format!("cannot write output: {e}"));
    let result = match args.as_slice() {
        ["a"] => worker::start().and_then(|s| {
            printer.json_line(&s).map_err(io)?;
            printer.raw(b"READY\n").map_err(io)?;
            worker::block();
            Ok(())
        }),
        ["b", work, key] => {
            worker::finish(work, key).and_then(|f| printer.json_line(&f).map_err(io))
        }
        ["resume"] => worker::resume().and_then(|p| printer.json_line(&p).map_err(io)),
        _ => Err(OpError::usage(format!(
            "`{}` is run only by `locker quest` (roles: a, b WORK KEY, resume)",
            worker::WORKER_ARG
        ))),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            printer.error(&e);
            ExitCode::from(e.kind.exit_code())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn details_wrap_under_the_pass_line() {
        let mut s = String::new();
        wrap(&mut s, &"word ".repeat(40), "      ", 40);
        assert!(s.lines().all(|l| l.len() <= 40 && l.starts_with("      word")), "{s}");
        assert_eq!(s.split_whitespace().count(), 40);
    }

    #[test]
    fn a_failed_step_is_one_fail_line_saying_why() {
        let step = Step {
            n: 4,
            name: "Restarted worker A".into(),
            ok: false,
            detail: "it exited 0, not 4".into(),
            facts: serde_json::Value::Null,
        };
        let mut out = Vec::new();
        step.render_human(&mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "FAIL  Restarted worker A: it exited 0, not 4\n"
        );
    }
}
