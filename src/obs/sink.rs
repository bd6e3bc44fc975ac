//! Where a long-running process's log lines go: a thread of their own writes them to stderr,
//! so that a stderr nobody reads costs log lines, never answers.
//!
//! A server started with its stderr on a pipe that its parent never drains (Python's
//! `subprocess.Popen(..., stderr=PIPE)`, then no read) filled the pipe's 64 KiB after about a
//! thousand access lines; the next line's `write` then blocked the runtime worker that logged
//! it, and the server stopped answering anything. Here a line that finds [`CAPACITY`] lines
//! still waiting is dropped and counted (`locker_log_lines_dropped_total`), and once lines are
//! written again a warning says how many were lost. A command's lines go straight to stderr
//! ([`super::log::init`]): it ends soon, and its lines keep their order with what it prints.
//! So do a server's when stderr is a file or a terminal ([`stderr_may_block`]): a request's
//! access line is then in the file before its answer is sent, as scripts that grep it expect.

use std::sync::mpsc::{Receiver, SyncSender, TrySendError};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use tracing_subscriber::fmt::MakeWriter;

/// Lines waiting for the writing thread at most (a quarter to one megabyte of access lines).
pub const CAPACITY: usize = 4096;

/// How long [`flush`] waits for the lines before it at most: a stderr that is not read must
/// not keep the process from ending.
const FLUSH_WAIT: Duration = Duration::from_secs(2);

enum Msg {
    Line(Vec<u8>),
    /// Answered once every line sent before it was written.
    Flush(SyncSender<()>),
}

/// The process's sink, once [`Detached::start`] made it.
static SINK: OnceLock<SyncSender<Msg>> = OnceLock::new();

thread_local! {
    /// Set on the writing thread: what it logs itself (the count of dropped lines) it writes
    /// at once, where it cannot be dropped.
    static WRITING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// A [`MakeWriter`] whose writers hand each line to the writing thread.
#[derive(Clone)]
pub struct Detached(SyncSender<Msg>);

impl Detached {
    /// Starts the writing thread (the first call only; later ones share it), or `None` if no
    /// thread can be started.
    pub fn start() -> Option<Self> {
        if let Some(tx) = SINK.get() {
            return Some(Self(tx.clone()));
        }
        let (tx, rx) = std::sync::mpsc::sync_channel(CAPACITY);
        std::thread::Builder::new()
            .name("locker-log".into())
            .spawn(move || write_lines(&rx, &mut std::io::stderr()))
            .ok()?;
        Some(Self(SINK.get_or_init(|| tx).clone()))
    }
}

/// One event's writer: tracing-subscriber writes each formatted line with one `write_all`.
pub struct Handle<'a>(&'a SyncSender<Msg>);

impl std::io::Write for Handle<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if WRITING.with(std::cell::Cell::get) {
            std::io::stderr().write_all(buf)?;
        } else if let Err(TrySendError::Full(_)) = self.0.try_send(Msg::Line(buf.to_vec())) {
            super::metrics::metrics().log_lines_dropped.inc(&[]);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for Detached {
    type Writer = Handle<'a>;

    fn make_writer(&'a self) -> Self::Writer {
        Handle(&self.0)
    }
}

/// The writing thread: writes the lines as they come (those already waiting with one `write`),
/// and after writing says how many lines were dropped since it last said so.
fn write_lines(rx: &Receiver<Msg>, out: &mut dyn std::io::Write) {
    WRITING.with(|w| w.set(true));
    let mut said = 0;
    let mut lines = Vec::new();
    while let Ok(first) = rx.recv() {
        for msg in std::iter::once(first).chain(rx.try_iter().take(CAPACITY)) {
            match msg {
                Msg::Line(line) => lines.extend_from_slice(&line),
                Msg::Flush(done) => {
                    let _ = out.write_all(&lines);
                    lines.clear();
                    let _ = out.flush();
                    let _ = done.send(());
                }
            }
        }
        let written = out.write_all(&lines).is_ok();
        lines.clear();
        let dropped = super::metrics::metrics().log_lines_dropped.total();
        if written && dropped > said {
            tracing::warn!(
                dropped = dropped - said,
                "log lines were dropped: stderr was not read fast enough"
            );
            said = dropped;
        }
    }
}

/// Whether writing to stderr can block for as long as its reader pleases: a pipe or a socket
/// (journald's), not a file, a terminal or `/dev/null`. Only then are lines worth a thread:
/// written to a file at once, a request's access line is there before its answer is sent.
pub fn stderr_may_block() -> bool {
    use rustix::fs::FileType;
    rustix::fs::fstat(std::io::stderr()).is_ok_and(|st| {
        matches!(FileType::from_raw_mode(st.st_mode), FileType::Fifo | FileType::Socket)
    })
}

/// Waits (up to two seconds) until the lines logged so far are written: what a process
/// does as it ends.
pub fn flush() {
    let Some(tx) = SINK.get() else { return };
    let deadline = Instant::now() + FLUSH_WAIT;
    let (done, written) = std::sync::mpsc::sync_channel(1);
    let mut msg = Msg::Flush(done);
    loop {
        match tx.try_send(msg) {
            Ok(()) => break,
            Err(TrySendError::Full(m)) if Instant::now() < deadline => {
                msg = m;
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(_) => return,
        }
    }
    let _ = written.recv_timeout(deadline.saturating_duration_since(Instant::now()));
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::*;

    #[test]
    fn lines_are_written_in_order_and_a_flush_waits_for_them() {
        let (tx, rx) = std::sync::mpsc::sync_channel(CAPACITY);
        let out = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = std::sync::Arc::clone(&out);
        let thread = std::thread::spawn(move || {
            struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
            impl std::io::Write for Shared {
                fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                    self.0.lock().expect("the buffer").extend_from_slice(b);
                    Ok(b.len())
                }
                fn flush(&mut self) -> std::io::Result<()> {
                    Ok(())
                }
            }
            write_lines(&rx, &mut Shared(sink));
        });
        let d = Detached(tx.clone());
        for i in 0..100 {
            writeln!(d.make_writer(), "line {i}").expect("never fails");
        }
        let (done, written) = std::sync::mpsc::sync_channel(1);
        tx.send(Msg::Flush(done)).expect("the thread runs");
        written.recv().expect("flushed");
        let text = String::from_utf8(out.lock().expect("the buffer").clone()).expect("text");
        let want: String = (0..100).map(|i| format!("line {i}\n")).collect();
        assert_eq!(text, want);
        drop((d, tx));
        thread.join().expect("the thread ends with its senders");
    }
}
