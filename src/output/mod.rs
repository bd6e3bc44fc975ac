//! Output: the only module that prints.
//!
//! stdout carries data only (human text, or one JSON document, or JSON Lines); status lines and
//! errors go to stderr; progress bars are drawn only on a terminal in human mode, and questions
//! asked only on one (whether to ask is the command line's decision: `cli::confirm`).
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::cell::RefCell;
use std::fmt;
use std::io::{self, IsTerminal as _, Write};

use serde::Serialize;

/// Times are printed as RFC 3339 (kept in the domain, so that operations format them the same).
pub use crate::domain::time::rfc3339;
use crate::ops::{OpError, Progress};

/// How results are printed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum OutputFormat {
    #[default]
    Human,
    Json,
}

/// A result that can be printed for people as well as serialised.
pub trait Render: Serialize {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()>;
}

/// Prints results, status lines, errors and progress according to the output policy.
#[derive(Debug, Clone)]
pub struct Printer {
    pub format: OutputFormat,
    pub quiet: bool,
}

impl Printer {
    pub fn new(format: OutputFormat, quiet: bool) -> Self {
        Self { format, quiet }
    }

    pub fn is_json(&self) -> bool {
        self.format == OutputFormat::Json
    }

    /// Prints a result on stdout: human text, or one JSON object.
    pub fn emit<R: Render>(&self, r: &R) -> io::Result<()> {
        let mut out = io::stdout().lock();
        match self.format {
            OutputFormat::Human => r.render_human(&mut out)?,
            OutputFormat::Json => {
                // `io::Error::from` keeps the kind, so a closed pipe stays a `BrokenPipe`.
                serde_json::to_writer(&mut out, r).map_err(io::Error::from)?;
                out.write_all(b"\n")?;
            }
        }
        out.flush()
    }

    /// Prints a result that only confirms what was done (`init`, `pad export -o FILE`): as
    /// [`Self::emit`], except that `-q` silences its human text (JSON is always printed).
    pub fn emit_confirmation<R: Render>(&self, r: &R) -> io::Result<()> {
        if self.quiet && self.format == OutputFormat::Human {
            return Ok(());
        }
        self.emit(r)
    }

    /// Prints one JSON Lines record on stdout.
    pub fn json_line<T: Serialize>(&self, t: &T) -> io::Result<()> {
        let mut out = io::stdout().lock();
        serde_json::to_writer(&mut out, t).map_err(io::Error::from)?;
        out.write_all(b"\n")?;
        out.flush()
    }

    /// Writes bytes to stdout as they are.
    pub fn raw(&self, bytes: &[u8]) -> io::Result<()> {
        let mut out = io::stdout().lock();
        out.write_all(bytes)?;
        out.flush()
    }

    /// Writes text to stdout through a closure (for streamed human output).
    pub fn with_stdout(&self, f: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<()> {
        let mut out = io::stdout().lock();
        f(&mut out)?;
        out.flush()
    }

    /// A status line on stderr, unless quiet or in JSON mode.
    pub fn status(&self, msg: fmt::Arguments<'_>) {
        if !self.quiet && self.format == OutputFormat::Human {
            let _ = writeln!(io::stderr().lock(), "{msg}");
        }
    }

    /// An error on stderr: `Error: …` and hints, or one flat JSON object.
    pub fn error(&self, e: &OpError) {
        let mut err = io::stderr().lock();
        match self.format {
            OutputFormat::Json => {
                let _ = writeln!(err, "{}", e.to_json());
            }
            OutputFormat::Human => {
                let _ = writeln!(err, "Error: {}", capitalise(&e.detail));
                for h in &e.hints {
                    let _ = writeln!(err, "Hint: {h}");
                }
            }
        }
    }

    /// A progress reporter: a bar on a terminal in human mode, nothing otherwise. The bar is
    /// cleared once the operation finishes, or when the reporter is dropped.
    pub fn progress(&self) -> Box<dyn Progress> {
        if self.format == OutputFormat::Human && !self.quiet && io::stderr().is_terminal() {
            Box::new(Bar(RefCell::new(None)))
        } else {
            Box::new(crate::ops::NoProgress)
        }
    }

    /// Says what is about to happen, then asks on the terminal (stderr, the answer read from
    /// the keyboard) whether to go on: `y` or `yes` goes on, Enter, `n` or `no` does not.
    /// Only call it when stdin and stderr are terminals.
    pub fn ask(&self, what: &str) -> io::Result<bool> {
        {
            let mut err = io::stderr().lock();
            writeln!(err, "{what}")?;
            err.flush()?;
        }
        let reply = dialoguer::Input::<String>::new()
            .with_prompt("Go on? [y/N]")
            .allow_empty(true)
            .validate_with(|s: &String| match answer(s) {
                Some(_) => Ok(()),
                None => Err("answer y (yes) or n (no)"),
            })
            .interact()
            .map_err(io::Error::from)?;
        Ok(answer(&reply).unwrap_or(false))
    }

    /// Says that a question was answered no: one line on stderr (unless quiet), or with `--json`
    /// one JSON object `{"error": "declined", "detail": …}` there.
    pub fn declined(&self) {
        let mut err = io::stderr().lock();
        match self.format {
            OutputFormat::Json => {
                let e = OpError::new(
                    crate::ops::ErrorKind::Usage,
                    "declined",
                    "the question was answered no: nothing was changed",
                );
                let _ = writeln!(err, "{}", e.to_json());
            }
            OutputFormat::Human if !self.quiet => {
                let _ = writeln!(err, "Nothing was changed.");
            }
            OutputFormat::Human => {}
        }
    }
}

/// A yes (`Some(true)`), a no (`Some(false)`, also an empty answer) or neither.
fn answer(s: &str) -> Option<bool> {
    match s.trim().to_ascii_lowercase().as_str() {
        "y" | "yes" => Some(true),
        "" | "n" | "no" => Some(false),
        _ => None,
    }
}

/// Drops schemars' non-standard numeric `format`s (`uint64`, `double`, …) throughout a
/// generated JSON Schema: strict validators refuse them, and `minimum: 0` still says a number
/// is unsigned. For the schemas of `docs/json/` and of the MCP tools alike.
pub fn drop_numeric_formats(v: &mut serde_json::Value) {
    use serde_json::Value;
    match v {
        Value::Object(m) => {
            let numeric = m.get("format").and_then(Value::as_str).is_some_and(|f| {
                ["int", "uint", "float", "double"].iter().any(|p| f.starts_with(p))
            });
            if numeric {
                m.remove("format");
            }
            m.values_mut().for_each(drop_numeric_formats);
        }
        Value::Array(a) => a.iter_mut().for_each(drop_numeric_formats),
        _ => {}
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
}

/// A progress bar on stderr: `verifying ████░░░░ 12,034/200,000 entries 8.1k/s eta 20s`, or
/// for a phase of unknown length a spinner with the time it has taken. Each phase is a bar of
/// its own, drawn whole from its first frame; the one before is cleared. (indicatif itself
/// leaves a dumb terminal, `TERM` unset or `dumb`, without a bar.)
struct Bar(RefCell<Option<indicatif::ProgressBar>>);

/// The bar of a phase that counts units: `{unit}` and `{rate}` are [`Bar`]'s own keys.
const BAR_TEMPLATE: &str = "{msg} {bar:30} {human_pos}/{human_len} {unit} {rate} eta {eta}";
/// A phase of unknown length.
const SPINNER_TEMPLATE: &str = "{spinner} {msg} ({elapsed})";

impl Progress for Bar {
    fn start(&self, what: &str, total: u64, unit: &str) {
        self.finish();
        let unit = unit.to_owned();
        let template = if total == 0 { SPINNER_TEMPLATE } else { BAR_TEMPLATE };
        let style = indicatif::ProgressStyle::with_template(template)
            .expect("the templates are valid")
            .with_key("unit", move |_: &indicatif::ProgressState, w: &mut dyn fmt::Write| {
                let _ = w.write_str(&unit);
            })
            .with_key("rate", |s: &indicatif::ProgressState, w: &mut dyn fmt::Write| {
                let _ = w.write_str(&rate(s.per_sec()));
            });
        let bar = indicatif::ProgressBar::with_draw_target(
            (total > 0).then_some(total),
            indicatif::ProgressDrawTarget::stderr(),
        )
        .with_style(style)
        .with_message(what.to_owned())
        .with_finish(indicatif::ProgressFinish::AndClear);
        // The first frame at once, even if the phase ends before the spinner's first tick.
        bar.tick();
        if total == 0 {
            bar.enable_steady_tick(std::time::Duration::from_millis(100));
        }
        *self.0.borrow_mut() = Some(bar);
    }
    fn advance(&self, n: u64) {
        if let Some(bar) = self.0.borrow().as_ref() {
            bar.inc(n);
        }
    }
    fn finish(&self) {
        if let Some(bar) = self.0.borrow_mut().take() {
            bar.finish_and_clear();
        }
    }
}

/// A rate for people: whole units below a thousand a second, then thousands or millions with
/// at most one decimal (`870/s`, `8.1k/s`, `81k/s`, `1.2M/s`).
fn rate(per_sec: f64) -> String {
    let r = if per_sec.is_finite() { per_sec.max(0.0) } else { 0.0 };
    if r < 999.5 {
        format!("{r:.0}/s")
    } else if r < 9_950.0 {
        format!("{:.1}k/s", r / 1e3)
    } else if r < 999_500.0 {
        format!("{:.0}k/s", r / 1e3)
    } else if r < 9_950_000.0 {
        format!("{:.1}M/s", r / 1e6)
    } else {
        format!("{:.0}M/s", r / 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_are_rounded_with_one_unit() {
        for (r, want) in [
            (0.0, "0/s"),
            (f64::NAN, "0/s"),
            (f64::INFINITY, "0/s"),
            (0.4, "0/s"),
            (12.345_678, "12/s"),
            (999.4, "999/s"),
            (999.6, "1.0k/s"),
            (8_123.456, "8.1k/s"),
            (9_960.0, "10k/s"),
            (81_234.5, "81k/s"),
            (999_600.0, "1.0M/s"),
            (1_234_567.0, "1.2M/s"),
            (12_345_678.0, "12M/s"),
        ] {
            assert_eq!(rate(r), want, "{r}");
        }
    }

    #[test]
    fn answers() {
        for yes in ["y", "Y", "yes", " YES "] {
            assert_eq!(answer(yes), Some(true), "{yes}");
        }
        for no in ["", "n", "No", "  "] {
            assert_eq!(answer(no), Some(false), "{no:?}");
        }
        for neither in ["maybe", "yy", "ja"] {
            assert_eq!(answer(neither), None, "{neither}");
        }
    }

    #[test]
    fn the_templates_parse() {
        for t in [BAR_TEMPLATE, SPINNER_TEMPLATE] {
            assert!(indicatif::ProgressStyle::with_template(t).is_ok(), "{t}");
        }
    }
}
