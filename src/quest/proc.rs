//! The quest's child processes: every one is its own binary, started with a scrubbed
//! environment, bounded in time, and killed and reaped when its handle is dropped, so no exit
//! path (an error, a failed check, a panic) leaves a process running.

use std::ffi::OsString;
use std::io::{BufRead as _, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The `PATH` every child gets.
pub const CHILD_PATH: &str = "/usr/bin:/bin";

/// The environment variables a child may see: these and nothing inherited.
pub const ALLOWED_ENV: [&str; 7] =
    ["PATH", "LANG", "HOME", "LOCKER_DIR", "LOCKER_NOW", "LOCKER_TOKEN", "LOCKER_URL"];

/// The server's banner, followed by its address.
const BANNER: &str = "locker listening on http://";

/// How much of a server's log is kept for error messages.
const MAX_LOG_BYTES: usize = 64 * 1024;

/// The whole environment of a child: `PATH=/usr/bin:/bin`, `LANG=C`, `HOME=home`,
/// `LOCKER_NOW=now`, then `extra` (which must name only [`ALLOWED_ENV`] variables).
pub fn child_env(home: &Path, now: i64, extra: &[(&str, String)]) -> Vec<(String, OsString)> {
    let mut env = vec![
        ("PATH".to_owned(), OsString::from(CHILD_PATH)),
        ("LANG".to_owned(), OsString::from("C")),
        ("HOME".to_owned(), home.as_os_str().to_owned()),
        ("LOCKER_NOW".to_owned(), OsString::from(now.to_string())),
    ];
    for (k, v) in extra {
        debug_assert!(ALLOWED_ENV.contains(k), "{k} is not an allowed child variable");
        env.retain(|(name, _)| name != k);
        env.push(((*k).to_owned(), OsString::from(v)));
    }
    env
}

/// What a child is: its binary, arguments, environment and working directory.
#[derive(Debug, Clone)]
pub struct Spec {
    pub exe: PathBuf,
    pub args: Vec<String>,
    pub env: Vec<(String, OsString)>,
    pub cwd: PathBuf,
}

impl Spec {
    /// The command, with the environment cleared first: nothing of the quest's own
    /// environment (tokens, cloud credentials) reaches the child.
    fn command(&self) -> Command {
        let mut cmd = Command::new(&self.exe);
        cmd.env_clear().envs(self.env.iter().map(|(k, v)| (k, v))).args(&self.args);
        cmd.current_dir(&self.cwd);
        cmd
    }

    /// A short description for error messages: `locker ARGS…`.
    pub fn describe(&self) -> String {
        let mut s = String::from("locker");
        for a in &self.args {
            s.push(' ');
            s.push_str(a);
        }
        s
    }
}

/// A running child, killed (SIGKILL) and reaped when dropped.
pub struct Proc {
    child: Option<Child>,
}

impl Proc {
    fn new(child: Child) -> Self {
        Self { child: Some(child) }
    }

    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Sends SIGKILL and reaps the child; returns how it ended.
    pub fn kill(&mut self) -> Option<ExitStatus> {
        let mut child = self.child.take()?;
        let _ = child.kill();
        child.wait().ok()
    }

    /// Waits up to `limit` for the child to exit (polling, so nothing blocks for long);
    /// kills it when the time is up.
    pub fn wait_timeout(&mut self, limit: Duration) -> Result<ExitStatus, String> {
        let start = Instant::now();
        let mut pause = Duration::from_millis(1);
        loop {
            let Some(child) = self.child.as_mut() else {
                return Err("the process was already reaped".into());
            };
            match child.try_wait() {
                Ok(Some(status)) => {
                    self.child = None;
                    return Ok(status);
                }
                Ok(None) => {}
                Err(e) => return Err(format!("cannot wait for the process: {e}")),
            }
            if start.elapsed() > limit {
                self.kill();
                return Err(format!(
                    "it did not finish within {} s and was killed",
                    limit.as_secs()
                ));
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(10));
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Reads a pipe to its end on a thread.
fn drain(mut r: impl std::io::Read + Send + 'static) -> JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = r.read_to_end(&mut buf);
        buf
    })
}

/// What a finished child left.
#[derive(Debug)]
pub struct Output {
    /// The exit code (`None` when a signal ended it).
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

impl Output {
    /// The error line the child printed (its `detail` when it is locker's JSON error).
    pub fn error_text(&self) -> String {
        let text = String::from_utf8_lossy(&self.stderr);
        let last = text.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
        match serde_json::from_str::<serde_json::Value>(last) {
            Ok(v) => match (v["error"].as_str(), v["detail"].as_str()) {
                (Some(code), Some(detail)) => format!("{code}: {detail}"),
                _ => last.to_owned(),
            },
            Err(_) => last.to_owned(),
        }
    }
}

/// Runs a child to its end (stdin closed), at most `limit`.
pub fn run(spec: &Spec, limit: Duration) -> Result<Output, String> {
    let mut child = spec
        .command()
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start `{}`: {e}", spec.describe()))?;
    let out = child.stdout.take().map(drain);
    let err = child.stderr.take().map(drain);
    let mut proc = Proc::new(child);
    let status = proc.wait_timeout(limit).map_err(|e| format!("`{}`: {e}", spec.describe()))?;
    let join = |h: Option<JoinHandle<Vec<u8>>>| h.and_then(|h| h.join().ok()).unwrap_or_default();
    Ok(Output { code: status.code(), stdout: join(out), stderr: join(err) })
}

/// A running `locker serve`.
pub struct ServerProcess {
    proc: Proc,
    /// The server's stdin, never written: when this process dies (even by SIGKILL) it closes,
    /// and the server (`--exit-with-stdin`) stops instead of living on as an orphan.
    _lifeline: Option<ChildStdin>,
    pub addr: SocketAddr,
    log: Arc<Mutex<String>>,
    reader: Option<JoinHandle<()>>,
}

impl ServerProcess {
    /// Starts `locker serve --listen 127.0.0.1:0` and waits for its banner.
    pub fn start(spec: &Spec, limit: Duration) -> Result<Self, String> {
        let mut child = spec
            .command()
            .arg("--exit-with-stdin")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start `{}`: {e}", spec.describe()))?;
        let lifeline = child.stdin.take();
        let stderr = child.stderr.take().ok_or("the server's stderr is not piped")?;
        let proc = Proc::new(child);
        let log = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = mpsc::channel();
        let sink = Arc::clone(&log);
        let reader = std::thread::spawn(move || {
            let mut lines = BufReader::new(stderr);
            let mut line = String::new();
            let mut tx = Some(tx);
            while lines.read_line(&mut line).unwrap_or(0) > 0 {
                if let Some(rest) = line.trim().strip_prefix(BANNER) {
                    if let Some(t) = tx.take() {
                        let _ = t.send(rest.to_owned());
                    }
                }
                if let Ok(mut l) = sink.lock() {
                    if l.len() < MAX_LOG_BYTES {
                        l.push_str(&line);
                    }
                }
                line.clear();
            }
        });
        let mut server = Self {
            proc,
            _lifeline: lifeline,
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            log,
            reader: Some(reader),
        };
        match rx.recv_timeout(limit) {
            Ok(a) => {
                server.addr =
                    a.parse().map_err(|_| format!("the server announced an odd address: {a}"))?;
                Ok(server)
            }
            Err(_) => {
                server.proc.kill();
                if let Some(r) = server.reader.take() {
                    let _ = r.join();
                }
                Err(format!("`locker serve` did not start: {}", server.last_log_line()))
            }
        }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn pid(&self) -> Option<u32> {
        self.proc.pid()
    }

    /// The server's last log line (for error messages).
    pub fn last_log_line(&self) -> String {
        let log = self.log.lock().map(|l| l.clone()).unwrap_or_default();
        log.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("(no output)").to_owned()
    }

    /// SIGKILL: the server gets no chance to clean up.
    pub fn kill(mut self) -> Option<ExitStatus> {
        let status = self.proc.kill();
        if let Some(r) = self.reader.take() {
            let _ = r.join();
        }
        status
    }

    /// SIGTERM (through `kill`, as std has no other signal), then waits for a clean exit.
    pub fn stop(mut self, limit: Duration) -> Result<ExitStatus, String> {
        let pid = self.proc.pid().ok_or("the server is not running")?;
        signal(pid, "TERM")?;
        let status = self.proc.wait_timeout(limit)?;
        if let Some(r) = self.reader.take() {
            let _ = r.join();
        }
        Ok(status)
    }
}

/// Sends signal `name` to `pid` with the `kill` command.
fn signal(pid: u32, name: &str) -> Result<(), String> {
    let status = Command::new("kill")
        .env_clear()
        .env("PATH", CHILD_PATH)
        .args([format!("-{name}"), pid.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| format!("cannot run `kill -{name}`: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`kill -{name} {pid}` failed"))
    }
}

/// A worker that prints lines and then blocks on stdin until it is killed.
pub struct Worker {
    proc: Proc,
    /// Held open so the worker blocks; dropping it (EOF) lets an orphaned worker end.
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Option<JoinHandle<Vec<u8>>>,
}

impl Worker {
    pub fn start(spec: &Spec) -> Result<Self, String> {
        let mut child = spec
            .command()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start `{}`: {e}", spec.describe()))?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().ok_or("the worker's stdout is not piped")?;
        let stderr = child.stderr.take().map(drain);
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(Self { proc: Proc::new(child), stdin, lines, stderr })
    }

    pub fn pid(&self) -> Option<u32> {
        self.proc.pid()
    }

    /// The lines printed before `READY`, once it appears within `limit`.
    pub fn wait_ready(&mut self, limit: Duration) -> Result<Vec<String>, String> {
        let deadline = Instant::now() + limit;
        let mut before = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) if l.trim() == "READY" => return Ok(before),
                Ok(l) => before.push(l),
                Err(RecvTimeoutError::Timeout) => {
                    self.proc.kill();
                    return Err(format!("no READY within {} s", limit.as_secs()));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    // It exited: say why.
                    let status = self.proc.wait_timeout(Duration::from_secs(5)).ok();
                    let err = self.stderr.take().and_then(|h| h.join().ok()).unwrap_or_default();
                    let out = Output {
                        code: status.and_then(|s| s.code()),
                        stdout: Vec::new(),
                        stderr: err,
                    };
                    return Err(format!(
                        "it exited with {} before READY: {}",
                        out.code.map_or("a signal".to_owned(), |c| format!("code {c}")),
                        out.error_text()
                    ));
                }
            }
        }
    }

    /// SIGKILL, then reap. (Its stdin closes only afterwards: closed first, it would let the
    /// worker end by itself before the signal lands.)
    pub fn kill(mut self) -> Option<ExitStatus> {
        let status = self.proc.kill();
        drop(self.stdin.take());
        status
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_environment_holds_only_what_is_given() {
        let env = child_env(
            Path::new("/tmp/q"),
            42,
            &[("LOCKER_TOKEN", "t".into()), ("LOCKER_NOW", "43".into())],
        );
        let names: Vec<&str> = env.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, ["PATH", "LANG", "HOME", "LOCKER_TOKEN", "LOCKER_NOW"]);
        assert!(names.iter().all(|n| ALLOWED_ENV.contains(n)));
        let get = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone()).unwrap();
        assert_eq!(get("PATH"), CHILD_PATH);
        assert_eq!(get("HOME"), "/tmp/q");
        assert_eq!(get("LOCKER_NOW"), "43");
    }

    #[test]
    fn a_child_does_not_inherit_the_parents_environment() {
        // `sh -c env` prints what the child sees; the test process's own environment (which
        // has at least PATH and usually much more) must not show through.
        let spec = Spec {
            exe: PathBuf::from("/bin/sh"),
            args: vec!["-c".into(), "env".into()],
            env: child_env(Path::new("/"), 1, &[]),
            cwd: PathBuf::from("/"),
        };
        let out = run(&spec, Duration::from_secs(20)).unwrap();
        assert_eq!(out.code, Some(0));
        let text = String::from_utf8(out.stdout).unwrap();
        let mut names: Vec<&str> =
            text.lines().filter_map(|l| l.split_once('=').map(|(k, _)| k)).collect();
        names.retain(|n| !matches!(*n, "PWD" | "SHLVL" | "_" | "OLDPWD"));
        names.sort_unstable();
        assert_eq!(names, ["HOME", "LANG", "LOCKER_NOW", "PATH"], "{text}");
    }

    #[test]
    fn a_child_that_overruns_is_killed() {
        let spec = Spec {
            exe: PathBuf::from("/bin/sh"),
            args: vec!["-c".into(), "exec sleep 30".into()],
            env: child_env(Path::new("/"), 1, &[]),
            cwd: PathBuf::from("/"),
        };
        let start = Instant::now();
        let err = run(&spec, Duration::from_millis(200)).unwrap_err();
        assert!(err.contains("was killed"), "{err}");
        assert!(start.elapsed() < Duration::from_secs(10));
    }
}
