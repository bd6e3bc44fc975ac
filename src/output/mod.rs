//! Output: the only module that prints.
//!
//! stdout carries data only (human text, or one JSON document, or JSON Lines); status lines and
//! errors go to stderr; progress bars are drawn only on a terminal in human mode.
#![allow(clippy::print_stdout, clippy::print_stderr)]

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

    /// A progress reporter: a bar on a terminal in human mode, nothing otherwise.
    pub fn progress(&self) -> Box<dyn Progress> {
        if self.format == OutputFormat::Human && !self.quiet && io::stderr().is_terminal() {
            Box::new(Bar(indicatif::ProgressBar::hidden()))
        } else {
            Box::new(crate::ops::NoProgress)
        }
    }
}

/// Writes one line to stderr whatever the output format (server banners and notices).
pub fn log_line(line: &str) {
    let mut err = io::stderr().lock();
    let _ = writeln!(err, "{line}");
    let _ = err.flush();
}

/// Writes one JSON object as a line on stderr (the server's access log).
pub fn log_json<T: Serialize>(record: &T) {
    if let Ok(mut line) = serde_json::to_vec(record) {
        line.push(b'\n');
        let mut err = io::stderr().lock();
        let _ = err.write_all(&line);
        let _ = err.flush();
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
}

struct Bar(indicatif::ProgressBar);

impl Progress for Bar {
    fn start(&self, what: &str, total: u64) {
        self.0.set_length(total);
        self.0.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{msg} {bar:40} {pos}/{len} ({per_sec}, eta {eta})",
        ) {
            self.0.set_style(style);
        }
        self.0.set_message(what.to_owned());
    }
    fn advance(&self, n: u64) {
        self.0.inc(n);
    }
    fn finish(&self) {
        self.0.finish_and_clear();
    }
}
