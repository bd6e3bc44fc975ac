//! The load generator and runner behind `scripts/bench.sh`: every scenario of issue 9's table,
//! against locker and against agent-locker's daemon (`lockerd`) started side by side, printed
//! as one table (median, p99, ratio).
//!
//! The client is a keep-alive HTTP/1.1 client over a plain `TcpStream` (one connection per
//! simulated client, no allocation-heavy framework), so that it is not the bottleneck. Large
//! repositories are built with the library's own operations inside group commits (each block
//! still one `pad.append` journal entry), and are cached under the work directory.
//!
//! Each row carries the physics behind its rate where the bench can read them: the server's
//! CPU and bytes written per request (from `/proc/PID/stat` and `/proc/PID/io`) for the HTTP
//! appends and the handoff, and the floor the row is compared with: a minimal durable SQLite
//! commit (the appends, one per write of a handoff), a minimal program (the CLI), and for
//! `verify` every row read once and hashed as no verification can skip, over the machine's
//! cores.
//!
//! Run it through `scripts/bench.sh` (which builds it and installs the peer); `--help` lists
//! the options.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::collections::BTreeMap;
use std::io::{BufRead as _, BufReader, Write as _};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use clap::Parser;
use serde_json::{json, Value};

use locker::domain::secret::Secret;

#[path = "../tests/cli/common/http1.rs"]
mod http1;
use http1::Http;
use locker::ops::{self, Actor, SystemClock};

type Res<T> = Result<T, String>;

/// Chunks the sequential and concurrent scenarios are cut into, run alternately.
const ROUNDS: usize = 5;

/// A valid `locker.handoff.v1` envelope (block 0 of every pad).
const ENVELOPE: &str = r#"{"schema":"locker.handoff.v1","task_id":"t-1","from_agent":"a","to_agent":"b","constraints":["c1"],"artifacts":[{"name":"x"}],"budget_usd":1.25}"#;
/// Largest pad in payload bytes, and most blocks in one pad (both servers' limits).
const PAD_BYTES: usize = 262_144;
const PAD_BLOCKS: usize = 4096;

#[derive(Debug, Parser)]
#[command(about = "Benchmarks locker against agent-locker's daemon (see scripts/bench.sh)")]
struct Args {
    /// Smaller counts (for CI): checks that every scenario runs, not the targets
    #[arg(long)]
    quick: bool,
    /// The locker binary (release build)
    #[arg(long)]
    locker: PathBuf,
    /// The minimal SQLite program (examples/sqlite_commit.rs, release build)
    #[arg(long)]
    baseline: PathBuf,
    /// agent-locker's daemon (`lockerd` from lockermcp==0.1.5); without it the peer columns
    /// are empty
    #[arg(long)]
    lockerd: Option<PathBuf>,
    /// agent-locker's MCP server (`lockermcp`)
    #[arg(long)]
    lockermcp: Option<PathBuf>,
    /// Where repositories, databases and logs go
    #[arg(long)]
    work: PathBuf,
    /// Run only these scenarios (seq, concurrent, handoff, mcp, cli, verify,
    /// verify-requests, history, multi)
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    /// Rebuild the cached large repositories
    #[arg(long)]
    fresh: bool,
    /// Also write the raw figures as JSON here
    #[arg(long)]
    json_out: Option<PathBuf>,
    /// A PostgreSQL server's admin URL (`postgres://USER@HOST:PORT/DB`): the `multi` scenario
    /// runs 1, 2 and 3 `locker serve` processes on one new database there
    #[arg(long)]
    pg: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// Figures.

/// Latencies of one scenario on one side.
#[derive(Debug, Clone)]
struct Measure {
    n: usize,
    /// Seconds the whole run took (wall clock).
    secs: f64,
    median_ms: f64,
    p99_ms: f64,
}

/// Raw latencies (seconds) and the time they took, merged over interleaved chunks.
#[derive(Debug, Default)]
struct Sample {
    lat: Vec<f64>,
    secs: f64,
}

impl Sample {
    fn add(&mut self, other: Sample) {
        self.lat.extend(other.lat);
        self.secs += other.secs;
    }

    fn measure(self) -> Measure {
        Measure::of(self.lat, self.secs)
    }
}

/// Runs `locker` and `peer` alternately in `rounds` chunks, so that a shared machine's drift
/// hits both alike.
fn interleave(
    rounds: usize,
    mut locker: impl FnMut() -> Res<Sample>,
    mut peer: Option<impl FnMut() -> Res<Sample>>,
) -> Res<(Measure, Option<Measure>)> {
    let (mut l, mut p) = (Sample::default(), Sample::default());
    for _ in 0..rounds {
        l.add(locker()?);
        if let Some(f) = peer.as_mut() {
            p.add(f()?);
        }
    }
    Ok((l.measure(), peer.map(|_| p.measure())))
}

impl Measure {
    fn of(mut lat: Vec<f64>, secs: f64) -> Self {
        lat.sort_by(f64::total_cmp);
        let n = lat.len();
        let pick = |q: f64| {
            if n == 0 {
                return f64::NAN;
            }
            let rank = ((q * n as f64).ceil() as usize).clamp(1, n);
            lat[rank - 1] * 1e3
        };
        Self { n, secs, median_ms: pick(0.5), p99_ms: pick(0.99) }
    }

    fn rate(&self) -> f64 {
        self.n as f64 / self.secs
    }

    fn json(&self) -> Value {
        json!({"n": self.n, "secs": self.secs, "per_sec": self.rate(),
               "median_ms": self.median_ms, "p99_ms": self.p99_ms})
    }
}

fn thousands(v: f64) -> String {
    let s = format!("{v:.0}");
    let (sign, digits) = s.strip_prefix('-').map_or(("", s.as_str()), |d| ("-", d));
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    format!("{sign}{out}")
}

fn ms(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0} ms")
    } else if v >= 10.0 {
        format!("{v:.1} ms")
    } else {
        format!("{v:.2} ms")
    }
}

fn rate_cell(m: &Measure, unit: &str) -> String {
    format!("{}{unit}/s (median {}, p99 {})", thousands(m.rate()), ms(m.median_ms), ms(m.p99_ms))
}

fn latency_cell(m: &Measure) -> String {
    format!("median {}, p99 {} (n={})", ms(m.median_ms), ms(m.p99_ms), m.n)
}

/// One line of the table.
struct Row {
    scenario: String,
    locker: String,
    other: String,
    ratio: String,
    target: String,
    verdict: String,
}

/// Appends per second that 16 clients over one `locker serve` on PostgreSQL should reach: three
/// times the 1,900/s issue #19 measured.
const PG_ONE_SERVER_TARGET: f64 = 5_700.0;

fn verdict(met: Option<bool>, quick: bool) -> String {
    match (met, quick) {
        (_, true) => "(quick run)".into(),
        (Some(true), _) => "met".into(),
        (Some(false), _) => "MISSED".into(),
        (None, _) => "n/a".into(),
    }
}

fn not_run(scenario: &str, target: &str, why: &str) -> Row {
    Row {
        scenario: scenario.into(),
        locker: format!("not run: {why}"),
        other: String::new(),
        ratio: String::new(),
        target: target.into(),
        verdict: "not run".into(),
    }
}

/// A pad being filled over HTTP; a new one is made (outside any timing) when it is full.
struct PadCursor {
    id: String,
    auth: String,
    blocks: usize,
    bytes: usize,
}

impl PadCursor {
    fn new(c: &mut Http) -> Res<Self> {
        let created = c
            .post_json("/v1/pads", &[], &json!({"ttl_seconds": 86_400, "max_blocks": PAD_BLOCKS}))?
            .expect(201, "create")?
            .json()?;
        let id = created["pad_id"].as_str().ok_or("no pad_id")?.to_owned();
        let auth = format!("Bearer {}", created["write_key"].as_str().ok_or("no write_key")?);
        let mut pad = Self { id, auth, blocks: 0, bytes: 0 };
        pad.append(c, ENVELOPE.as_bytes(), "application/json")?;
        Ok(pad)
    }

    fn ensure_room(&mut self, c: &mut Http, len: usize) -> Res<()> {
        if self.blocks + 1 > PAD_BLOCKS || self.bytes + len > PAD_BYTES {
            *self = Self::new(c)?;
        }
        Ok(())
    }

    fn append(&mut self, c: &mut Http, payload: &[u8], ct: &str) -> Res<()> {
        let path = format!("/v1/pads/{}/append", self.id);
        c.req("POST", &path, &[("Authorization", &self.auth), ("Content-Type", ct)], payload)?
            .expect(201, "append")?;
        self.blocks += 1;
        self.bytes += payload.len();
        Ok(())
    }
}

fn payload(len: usize, i: u64) -> Vec<u8> {
    let mut p = format!("{i:012} ").into_bytes();
    p.resize(len, b'x');
    p
}

// ---------------------------------------------------------------------------------------------
// Processes.

/// A child process killed when dropped.
struct Proc {
    child: Child,
    addr: SocketAddr,
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> Res<u16> {
    let l = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    Ok(l.local_addr().map_err(|e| e.to_string())?.port())
}

fn base_env(cmd: &mut Command, home: &Path) {
    cmd.env_clear()
        .env("HOME", home)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("NO_COLOR", "1");
}

fn log_file(path: &Path) -> Res<std::fs::File> {
    std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))
}

fn wait_healthy(p: &mut Proc, what: &str) -> Res<()> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(Some(status)) = p.child.try_wait() {
            return Err(format!("{what} exited at start ({status})"));
        }
        let mut c = Http::new(p.addr);
        if let Ok(r) = c.req("GET", "/health", &[], b"") {
            if r.status == 200 {
                return Ok(());
            }
        }
        if Instant::now() > deadline {
            return Err(format!("{what} did not become healthy"));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn start_locker(a: &Args, repo: &Path, log: &Path) -> Res<Proc> {
    let port = free_port()?;
    let mut cmd = Command::new(&a.locker);
    base_env(&mut cmd, &a.work);
    cmd.arg("-R")
        .arg(repo)
        .args(["serve", "--listen", &format!("127.0.0.1:{port}")])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log_file(log)?);
    let child = cmd.spawn().map_err(|e| format!("locker serve: {e}"))?;
    let mut p = Proc { child, addr: SocketAddr::from(([127, 0, 0, 1], port)) };
    wait_healthy(&mut p, "locker serve")?;
    Ok(p)
}

fn start_lockerd(a: &Args, lockerd: &Path, db: &Path, log: &Path) -> Res<Proc> {
    let port = free_port()?;
    let mut cmd = Command::new(lockerd);
    base_env(&mut cmd, &a.work);
    cmd.env("LOCKER_MODE", "open")
        .env("LOCKER_DB_PATH", db)
        .env("LOCKER_HOST", "127.0.0.1")
        .env("LOCKER_PORT", port.to_string())
        .stdin(Stdio::null())
        .stdout(log_file(log)?)
        .stderr(log_file(&log.with_extension("err"))?);
    let child = cmd.spawn().map_err(|e| format!("lockerd: {e}"))?;
    let mut p = Proc { child, addr: SocketAddr::from(([127, 0, 0, 1], port)) };
    wait_healthy(&mut p, "lockerd")?;
    Ok(p)
}

/// `VmRSS` or `VmHWM` of a process, in KiB.
fn proc_kib(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Samples a process's resident memory until dropped; `peak()` is the largest sample.
struct RssSampler {
    stop: Arc<AtomicBool>,
    peak: Arc<AtomicU64>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl RssSampler {
    fn start(pid: u32) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let peak = Arc::new(AtomicU64::new(0));
        let (s, p) = (Arc::clone(&stop), Arc::clone(&peak));
        let thread = std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                if let Some(kib) = proc_kib(pid, "VmRSS:") {
                    p.fetch_max(kib, Ordering::Relaxed);
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        Self { stop, peak, thread: Some(thread) }
    }

    fn finish(mut self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        self.peak.load(Ordering::Relaxed)
    }
}

fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

/// A process's CPU time (user + system, seconds) and the bytes it has caused to be written to
/// storage (`write_bytes` of `/proc/PID/io`), read before and after each measured chunk.
fn proc_usage(pid: u32) -> Option<(f64, u64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    let io = std::fs::read_to_string(format!("/proc/{pid}/io")).ok()?;
    let written = io.lines().find_map(|l| l.strip_prefix("write_bytes: "))?.trim().parse().ok()?;
    // The kernel's clock ticks are 100 per second on Linux (USER_HZ).
    Some((ticks as f64 / 100.0, written))
}

/// What a server spent on the requests of a scenario: CPU seconds and bytes written, over the
/// requests made, summed over the measured chunks.
#[derive(Debug, Default)]
struct Physics {
    cpu_secs: f64,
    written: u64,
    requests: usize,
}

impl Physics {
    /// Runs `f` (a measured chunk) and adds what the server `pid` spent on it.
    fn around(&mut self, pid: u32, f: impl FnOnce() -> Res<Sample>) -> Res<Sample> {
        let before = proc_usage(pid);
        let sample = f()?;
        if let (Some((c0, w0)), Some((c1, w1))) = (before, proc_usage(pid)) {
            self.add(c1 - c0, w1.saturating_sub(w0), sample.lat.len());
        }
        Ok(sample)
    }

    fn add(&mut self, cpu_secs: f64, written: u64, requests: usize) {
        self.cpu_secs += cpu_secs;
        self.written += written;
        self.requests += requests;
    }

    /// What a server spent between two readings of its usage, over `requests` requests.
    fn between(before: Option<(f64, u64)>, after: Option<(f64, u64)>, requests: usize) -> Self {
        match (before, after) {
            (Some((c0, w0)), Some((c1, w1))) => {
                Self { cpu_secs: c1 - c0, written: w1.saturating_sub(w0), requests }
            }
            _ => Self::default(),
        }
    }

    fn cpu_ms_per_request(&self) -> f64 {
        self.cpu_secs * 1e3 / self.requests.max(1) as f64
    }

    fn bytes_per_request(&self) -> f64 {
        self.written as f64 / self.requests.max(1) as f64
    }

    fn json(&self) -> Value {
        json!({"cpu_ms_per_request": self.cpu_ms_per_request(),
               "bytes_per_request": self.bytes_per_request(), "requests": self.requests})
    }

    /// CPU and bytes per request, a request being `what` ("append", "handoff").
    fn cell(&self, what: &str) -> String {
        format!(
            "CPU {:.3} ms, {:.1} KB written per {what}",
            self.cpu_ms_per_request(),
            self.bytes_per_request() / 1000.0
        )
    }
}

/// What a group of processes spent during a measured chunk: the `locker serve` processes, and
/// the PostgreSQL server's (every backend and background process `pg_stat_activity` lists, so
/// all but the postmaster), with how busy the machine's CPUs were.
#[derive(Debug, Default)]
struct PgPhysics {
    locker: Physics,
    postgres: Physics,
    /// PostgreSQL's processes whose usage could not be read (another user's, unprivileged).
    unreadable: usize,
    /// CPU seconds the whole machine spent busy, and that it had (wall time × CPUs).
    busy_secs: f64,
    had_secs: f64,
    /// The busiest PostgreSQL process (the writer's backend, when one serialises the writes):
    /// its CPU seconds over the chunks' wall time, at most.
    busiest: f64,
}

/// CPU seconds and bytes written of each of `pids` that can be read.
fn usages(pids: &[u32]) -> BTreeMap<u32, (f64, u64)> {
    pids.iter().filter_map(|&p| proc_usage(p).map(|u| (p, u))).collect()
}

/// What the processes of `after` spent since `before` (one not read before counts from its
/// start: a backend that began during the chunk), and the most CPU one of them spent.
fn spent(before: &BTreeMap<u32, (f64, u64)>, after: &BTreeMap<u32, (f64, u64)>) -> (f64, u64, f64) {
    after.iter().fold((0.0, 0, 0.0), |(cpu, written, most), (pid, &(c1, w1))| {
        let (c0, w0) = before.get(pid).copied().unwrap_or((0.0, 0));
        let c = (c1 - c0).max(0.0);
        (cpu + c, written + w1.saturating_sub(w0), most.max(c))
    })
}

/// The machine's busy and total CPU seconds so far (`/proc/stat`: all but idle and iowait).
fn machine_cpu() -> Option<(f64, f64)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let ticks: Vec<f64> =
        line.split_whitespace().skip(1).filter_map(|t| t.parse::<f64>().ok()).collect();
    let total: f64 = ticks.iter().take(8).sum();
    let idle = ticks.get(3)? + ticks.get(4)?;
    Some(((total - idle) / 100.0, total / 100.0))
}

impl PgPhysics {
    /// Runs `f` (a measured chunk) and adds what `lockers` and the PostgreSQL server behind
    /// `admin` spent on it.
    fn around(
        &mut self,
        lockers: &[u32],
        admin: &mut postgres::Client,
        f: impl FnOnce() -> Res<Sample>,
    ) -> Res<Sample> {
        let pg_pids = |admin: &mut postgres::Client| -> Res<Vec<u32>> {
            let rows = admin
                .query("SELECT pid FROM pg_stat_activity", &[])
                .map_err(|e| format!("pg_stat_activity: {e}"))?;
            Ok(rows.iter().filter_map(|r| u32::try_from(r.get::<_, i32>(0)).ok()).collect())
        };
        let (l0, p0, m0) = (usages(lockers), usages(&pg_pids(admin)?), machine_cpu());
        let start = Instant::now();
        let sample = f()?;
        let wall = start.elapsed().as_secs_f64();
        let pids = pg_pids(admin)?;
        let (l1, p1, m1) = (usages(lockers), usages(&pids), machine_cpu());
        let (lc, lw, _) = spent(&l0, &l1);
        let (pc, pw, most) = spent(&p0, &p1);
        self.busiest = self.busiest.max(most / wall.max(1e-9));
        let n = sample.lat.len();
        self.locker.add(lc, lw, n);
        self.postgres.add(pc, pw, n);
        self.unreadable = self.unreadable.max(pids.len().saturating_sub(p1.len()));
        if let (Some((b0, t0)), Some((b1, t1))) = (m0, m1) {
            self.busy_secs += b1 - b0;
            self.had_secs += t1 - t0;
        }
        Ok(sample)
    }

    fn json(&self) -> Value {
        json!({"locker": self.locker.json(), "postgres": self.postgres.json(),
               "postgres_unreadable_processes": self.unreadable,
               "postgres_busiest_process": self.busiest,
               "machine_busy": self.busy_secs / self.had_secs.max(1e-9)})
    }

    /// CPU per append of locker and of PostgreSQL, PostgreSQL's bytes written per append, and
    /// how busy the machine was.
    fn cell(&self) -> String {
        let pg = if self.unreadable > 0 && self.postgres.cpu_secs == 0.0 {
            "PostgreSQL's processes not readable".to_owned()
        } else {
            format!(
                "PostgreSQL CPU {:.3} ms, {:.1} KB written (its busiest process {:.0}% of a CPU)",
                self.postgres.cpu_ms_per_request(),
                self.postgres.bytes_per_request() / 1000.0,
                100.0 * self.busiest
            )
        };
        format!(
            "per append: locker CPU {:.3} ms, {pg}; the CPUs {:.0}% busy",
            self.locker.cpu_ms_per_request(),
            100.0 * self.busy_secs / self.had_secs.max(1e-9)
        )
    }
}

// ---------------------------------------------------------------------------------------------
// HTTP scenarios.

const APPEND_BYTES: usize = 200;

/// Sequential appends over one keep-alive connection.
fn http_sequential(addr: SocketAddr, n: usize) -> Res<Sample> {
    let mut c = Http::new(addr);
    let mut pad = PadCursor::new(&mut c)?;
    for i in 0..20 {
        pad.ensure_room(&mut c, APPEND_BYTES)?;
        pad.append(&mut c, &payload(APPEND_BYTES, i), "application/octet-stream")?;
    }
    let mut lat = Vec::with_capacity(n);
    for i in 0..n {
        pad.ensure_room(&mut c, APPEND_BYTES)?;
        let p = payload(APPEND_BYTES, i as u64);
        let t = Instant::now();
        pad.append(&mut c, &p, "application/octet-stream")?;
        lat.push(t.elapsed().as_secs_f64());
    }
    let secs: f64 = lat.iter().sum();
    Ok(Sample { lat, secs })
}

/// `clients` clients, each on its own connection and its own pad, appending at once.
/// Returns the figures and the server's peak resident memory during the run.
fn http_concurrent(
    addr: SocketAddr,
    pid: u32,
    clients: usize,
    per: usize,
    peak: &AtomicU64,
) -> Res<Sample> {
    let barrier = Arc::new(Barrier::new(clients + 1));
    let mut handles = Vec::new();
    for _ in 0..clients {
        let b = Arc::clone(&barrier);
        handles.push(std::thread::spawn(move || -> Res<Vec<f64>> {
            let mut c = Http::new(addr);
            let setup = (|| {
                let mut pad = PadCursor::new(&mut c)?;
                for i in 0..5 {
                    pad.append(&mut c, &payload(APPEND_BYTES, i), "application/octet-stream")?;
                }
                Ok::<_, String>(pad)
            })();
            b.wait();
            let mut pad = setup?;
            let mut lat = Vec::with_capacity(per);
            for i in 0..per {
                pad.ensure_room(&mut c, APPEND_BYTES)?;
                let p = payload(APPEND_BYTES, i as u64);
                let t = Instant::now();
                pad.append(&mut c, &p, "application/octet-stream")?;
                lat.push(t.elapsed().as_secs_f64());
            }
            Ok(lat)
        }));
    }
    let sampler = RssSampler::start(pid);
    barrier.wait();
    let start = Instant::now();
    let mut all = Vec::new();
    let mut first_err = None;
    for h in handles {
        match h.join().map_err(|_| "a client panicked".to_owned()).and_then(|r| r) {
            Ok(l) => all.extend(l),
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    peak.fetch_max(sampler.finish().max(proc_kib(pid, "VmHWM:").unwrap_or(0)), Ordering::Relaxed);
    if let Some(e) = first_err {
        return Err(e);
    }
    Ok(Sample { lat: all, secs })
}

/// `clients` clients spread over `addrs` (client i on server i mod n), each on its own pad,
/// appending at once.
fn http_spread(addrs: &[SocketAddr], clients: usize, per: usize) -> Res<Sample> {
    let barrier = Arc::new(Barrier::new(clients + 1));
    let mut handles = Vec::new();
    for i in 0..clients {
        let (b, addr) = (Arc::clone(&barrier), addrs[i % addrs.len()]);
        handles.push(std::thread::spawn(move || -> Res<Vec<f64>> {
            let mut c = Http::new(addr);
            let setup = PadCursor::new(&mut c);
            b.wait();
            let mut pad = setup?;
            let mut lat = Vec::with_capacity(per);
            for i in 0..per {
                pad.ensure_room(&mut c, APPEND_BYTES)?;
                let p = payload(APPEND_BYTES, i as u64);
                let t = Instant::now();
                pad.append(&mut c, &p, "application/octet-stream")?;
                lat.push(t.elapsed().as_secs_f64());
            }
            Ok(lat)
        }));
    }
    barrier.wait();
    let start = Instant::now();
    let mut all = Vec::new();
    let mut first_err = None;
    for h in handles {
        match h.join().map_err(|_| "a client panicked".to_owned()).and_then(|r| r) {
            Ok(l) => all.extend(l),
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    if let Some(e) = first_err {
        return Err(e);
    }
    Ok(Sample { lat: all, secs })
}

/// The `multi` scenario: for 1, 2 and 3 servers, a new database on `admin`'s server, that
/// many `locker serve` processes on it, and `clients` clients spread over them.
fn pg_multi(
    a: &Args,
    admin: &str,
    clients: usize,
    per: usize,
) -> Res<Vec<(usize, Measure, PgPhysics)>> {
    let (scheme, rest) = admin.split_once("://").ok_or("--pg is not a URL")?;
    let host = rest.split('/').next().unwrap_or(rest);
    let psql = |sql: &str| -> Res<()> {
        let mut c = postgres::Client::connect(admin, postgres::NoTls)
            .map_err(|e| format!("PostgreSQL at {admin}: {e}"))?;
        c.batch_execute(sql).map_err(|e| format!("{sql}: {e}"))
    };
    let mut out = Vec::new();
    for servers in 1..=3 {
        let db = format!("locker_bench_{servers}");
        psql(&format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"))?;
        psql(&format!("CREATE DATABASE {db}"))?;
        let url = format!("{scheme}://{host}/{db}");
        let repo = a.work.join(format!("pg-repo-{servers}"));
        fresh_dir(&repo)?;
        let mut init = Command::new(&a.locker);
        base_env(&mut init, &a.work);
        let o = init
            .arg("-R")
            .arg(&repo)
            .args(["init", "--store", &url])
            .output()
            .map_err(|e| e.to_string())?;
        if !o.status.success() {
            return Err(format!("locker init --store: {}", String::from_utf8_lossy(&o.stderr)));
        }
        let procs = (0..servers)
            .map(|i| start_locker(a, &repo, &a.work.join(format!("pg-serve-{servers}-{i}.log"))))
            .collect::<Res<Vec<_>>>()?;
        let addrs: Vec<SocketAddr> = procs.iter().map(|p| p.addr).collect();
        let pids: Vec<u32> = procs.iter().map(|p| p.child.id()).collect();
        let mut watch = postgres::Client::connect(admin, postgres::NoTls)
            .map_err(|e| format!("PostgreSQL at {admin}: {e}"))?;
        eprintln!("bench: {clients} clients over {servers} server(s) on one PostgreSQL database");
        let mut sample = Sample::default();
        let mut physics = PgPhysics::default();
        for _ in 0..ROUNDS {
            let round = || http_spread(&addrs, clients, per / ROUNDS);
            sample.add(physics.around(&pids, &mut watch, round)?);
        }
        out.push((servers, sample.measure(), physics));
        drop(procs);
        let _ = psql(&format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"));
    }
    Ok(out)
}

/// The writes of one handoff, each a durable commit: create, envelope, artifact, seal, and the
/// first read, which starts the read ticket's lease (a `pad.read_lease` entry).
const HANDOFF_WRITES: usize = 5;

/// One full handoff per round: create, envelope, artifact, seal, read everything.
fn http_handoff(c: &mut Http, rounds: usize) -> Res<Sample> {
    let artifact = payload(1024, 1);
    let once = |c: &mut Http| -> Res<()> {
        let created = c
            .post_json("/v1/pads", &[], &json!({"ttl_seconds": 3600, "max_blocks": 8}))?
            .expect(201, "create")?
            .json()?;
        let id = created["pad_id"].as_str().ok_or("no pad_id")?;
        let auth = format!("Bearer {}", created["write_key"].as_str().ok_or("no write_key")?);
        let read = format!("Bearer {}", created["read_ticket"].as_str().ok_or("no ticket")?);
        let append = format!("/v1/pads/{id}/append");
        c.req(
            "POST",
            &append,
            &[("Authorization", &auth), ("Content-Type", "application/json")],
            ENVELOPE.as_bytes(),
        )?
        .expect(201, "append envelope")?;
        c.req(
            "POST",
            &append,
            &[("Authorization", &auth), ("Content-Type", "text/plain")],
            &artifact,
        )?
        .expect(201, "append artifact")?;
        c.req("POST", &format!("/v1/pads/{id}/seal"), &[("Authorization", &auth)], b"")?
            .expect(200, "seal")?;
        let slice = c
            .req(
                "GET",
                &format!("/v1/pads/{id}/blocks?from=0&to=1"),
                &[("Authorization", &read)],
                b"",
            )?
            .expect(200, "read")?
            .json()?;
        if slice["count"] != 2 {
            return Err(format!("read returned {}", slice["count"]));
        }
        Ok(())
    };
    let mut lat = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let t = Instant::now();
        once(c)?;
        lat.push(t.elapsed().as_secs_f64());
    }
    let secs = lat.iter().sum();
    Ok(Sample { lat, secs })
}

// ---------------------------------------------------------------------------------------------
// MCP.

struct Mcp {
    child: Child,
    stdin: std::process::ChildStdin,
    lines: std::sync::mpsc::Receiver<String>,
    next_id: u64,
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Mcp {
    fn start(mut cmd: Command) -> Res<Self> {
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped());
        let mut child = cmd.spawn().map_err(|e| format!("MCP server: {e}"))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut m = Self { child, stdin, lines: rx, next_id: 1 };
        m.call(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "locker-bench", "version": "1"}}),
        )?;
        m.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
        Ok(m)
    }

    fn send(&mut self, v: &Value) -> Res<()> {
        let mut line = v.to_string();
        line.push('\n');
        self.stdin.write_all(line.as_bytes()).map_err(|e| format!("MCP stdin: {e}"))?;
        self.stdin.flush().map_err(|e| format!("MCP stdin: {e}"))
    }

    fn call(&mut self, method: &str, params: Value) -> Res<Value> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(60))
                .map_err(|_| format!("no answer to {method}"))?;
            let Ok(v) = serde_json::from_str::<Value>(&line) else { continue };
            if v.get("id") == Some(&json!(id)) {
                if let Some(e) = v.get("error") {
                    return Err(format!("{method}: {e}"));
                }
                return Ok(v["result"].clone());
            }
        }
    }

    /// Calls a tool; returns its structured result (or the JSON in its text content).
    fn tool(&mut self, name: &str, args: Value) -> Res<Value> {
        let r = self.call("tools/call", json!({"name": name, "arguments": args}))?;
        if r["isError"] == true {
            return Err(format!("{name} failed: {r}"));
        }
        let out = match r.get("structuredContent") {
            Some(v) if v.is_object() => v.clone(),
            _ => {
                let text = r["content"][0]["text"].as_str().ok_or(format!("{name}: {r}"))?;
                serde_json::from_str(text).map_err(|e| format!("{name}: {e}: {text}"))?
            }
        };
        if out.get("error").is_some_and(|e| !e.is_null()) {
            return Err(format!("{name} failed: {out}"));
        }
        Ok(out)
    }
}

/// `locker_deposit` then `locker_read_blocks` of the deposited pad, verified against its head.
fn mcp_rounds(m: &mut Mcp, rounds: usize) -> Res<Sample> {
    let envelope: Value = serde_json::from_str(ENVELOPE).expect("valid JSON");
    let once = |m: &mut Mcp| -> Res<()> {
        let d = m.tool(
            "locker_deposit",
            json!({"envelope": envelope, "artifacts": ["the first artifact", {"result": [1, 2, 3]}],
                   "ttl_seconds": 3600}),
        )?;
        let pad = d["pad_id"].as_str().ok_or(format!("deposit: {d}"))?;
        let ticket = d["read_ticket"].as_str().ok_or(format!("deposit: {d}"))?;
        let head = d["head_hash"].as_str().ok_or(format!("deposit: {d}"))?;
        let r = m.tool(
            "locker_read_blocks",
            json!({"pad_id": pad, "ticket": ticket, "from_block": 0, "to_block": 2,
                   "expected_head_hash": head}),
        )?;
        if r["count"] != 3 {
            return Err(format!("read_blocks: {r}"));
        }
        Ok(())
    };
    let mut lat = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let t = Instant::now();
        once(m)?;
        lat.push(t.elapsed().as_secs_f64());
    }
    let secs = lat.iter().sum();
    Ok(Sample { lat, secs })
}

// ---------------------------------------------------------------------------------------------
// Repositories built with the library.

fn fresh_dir(path: &Path) -> Res<()> {
    if path.exists() {
        std::fs::remove_dir_all(path).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    std::fs::create_dir_all(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// A repository with `blocks` blocks of 1 KiB (block 0 of each pad is the envelope), every
/// one appended by `ops::pad::append` (one journal entry each), 16 pads per group commit.
/// Cached: built again only when missing, incomplete or `fresh`.
fn build_repo(dir: &Path, blocks: u64, fresh: bool) -> Res<()> {
    let marker = dir.join(".bench-complete");
    if !fresh && std::fs::read_to_string(&marker).ok().as_deref() == Some(&blocks.to_string()) {
        return Ok(());
    }
    fresh_dir(dir)?;
    let clock = SystemClock;
    let (_, mut repo) = ops::admin::init::init(dir, &clock).map_err(|e| e.to_string())?;
    let per_pad: u64 = 256;
    let limits = locker::domain::limits::PadLimits::new(30 * 86_400, 4096).expect("valid limits");
    let started = Instant::now();
    let mut done = 0u64;
    let mut last_report = 0u64;
    let mut i = 0u64;
    while done < blocks {
        let mut group = repo.store.group().map_err(|e| e.to_string())?;
        {
            let mut ctx = ops::Ctx::new(group.store(), Actor::operator(), &clock);
            for _ in 0..16 {
                if done >= blocks {
                    break;
                }
                let created = ops::pad::create(&mut ctx, limits).map_err(|e| e.to_string())?;
                let key = Secret::new(created.write_key.clone());
                let n = per_pad.min(blocks - done);
                for seq in 0..n {
                    let p = if seq == 0 { ENVELOPE.as_bytes().to_vec() } else { payload(1024, i) };
                    i += 1;
                    ops::pad::append(&mut ctx, &created.pad_id, Some(&key), &p, None)
                        .map_err(|e| e.to_string())?;
                }
                done += n;
            }
        }
        group.commit().map_err(|e| e.to_string())?;
        if done - last_report >= blocks / 10 && blocks >= 100_000 {
            last_report = done;
            eprintln!(
                "bench:   {} of {} blocks ({:.0} s)",
                thousands(done as f64),
                thousands(blocks as f64),
                started.elapsed().as_secs_f64()
            );
        }
    }
    drop(repo);
    std::fs::write(&marker, blocks.to_string()).map_err(|e| e.to_string())
}

/// A repository written the way agents write it: `locker serve` on a new repository and
/// `clients` clients appending 1 KiB blocks, one request each, until there are `blocks`
/// blocks (one `pad.append` journal entry and one durable commit per block). The server is
/// returned still running, its write-ahead log as a busy server leaves it.
fn build_by_requests(a: &Args, dir: &Path, blocks: usize, clients: usize) -> Res<Proc> {
    fresh_dir(dir)?;
    let mut init = Command::new(&a.locker);
    base_env(&mut init, &a.work);
    let out = init.arg("-R").arg(dir).arg("init").output().map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!("locker init: {}", String::from_utf8_lossy(&out.stderr)));
    }
    let server = start_locker(a, dir, &a.work.join("requests-serve.log"))?;
    let per = blocks.div_ceil(clients);
    let handles: Vec<_> = (0..clients)
        .map(|k| {
            let addr = server.addr;
            let n = per.min(blocks.saturating_sub(k * per));
            std::thread::spawn(move || -> Res<()> {
                let mut c = Http::new(addr);
                // A new pad's block 0 is the envelope: it counts as one of the blocks.
                let mut pad = PadCursor::new(&mut c)?;
                let mut done = 1;
                while done < n {
                    if pad.blocks + 1 > PAD_BLOCKS || pad.bytes + 1024 > PAD_BYTES {
                        pad = PadCursor::new(&mut c)?;
                        done += 1;
                        continue;
                    }
                    pad.append(&mut c, &payload(1024, done as u64), "application/octet-stream")?;
                    done += 1;
                }
                Ok(())
            })
        })
        .collect();
    for h in handles {
        h.join().map_err(|_| "a client panicked".to_owned())??;
    }
    Ok(server)
}

/// `locker verify` of a repository: seconds, blocks verified, peak resident memory (KiB).
fn run_verify(a: &Args, dir: &Path) -> Res<(f64, u64, u64)> {
    let time = Path::new("/usr/bin/time");
    let mut cmd = if time.exists() {
        let mut c = Command::new(time);
        c.arg("-v").arg(&a.locker);
        c
    } else {
        Command::new(&a.locker)
    };
    base_env(&mut cmd, &a.work);
    cmd.arg("-R").arg(dir).args(["--json", "-q", "verify"]);
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let t = Instant::now();
    let child = cmd.spawn().map_err(|e| format!("locker verify: {e}"))?;
    let pid = child.id();
    let sampler = RssSampler::start(pid);
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    let secs = t.elapsed().as_secs_f64();
    let sampled = sampler.finish();
    let report: Value = serde_json::from_slice(&out.stdout).map_err(|e| {
        format!("verify printed no report ({e}): {}", String::from_utf8_lossy(&out.stderr))
    })?;
    if !out.status.success() || report["ok"] != true {
        return Err(format!("verify failed: {report}"));
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let rss = stderr
        .lines()
        .find_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes):"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(sampled);
    Ok((secs, report["pads"]["blocks"].as_u64().unwrap_or(0), rss))
}

/// The floor of `locker verify` on a repository in this storage layout: every block and
/// journal row read once (plain SQLite scans in row order, as verify reads them) and the
/// SHA-256 no verification can skip, each payload once (its chain hash), each entry twice (its
/// chain hash and its Merkle leaf) and each node of the Merkle tree above the leaves (65 bytes,
/// one fewer than the entries). Timed on one thread; verify has the machine's cores,
/// so the floor's wall time is this divided by them. Seconds on one thread, and bytes hashed.
fn verify_floor(dir: &Path) -> Res<(f64, u64)> {
    use sha2::Digest as _;
    let db = dir.join(".locker").join("locker.db");
    let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY;
    let conn = rusqlite::Connection::open_with_flags(&db, flags)
        .map_err(|e| format!("{}: {e}", db.display()))?;
    // Bytes hashed, and a byte of every hash folded in (so that none is optimised away).
    let (mut hashed, mut folded) = (0u64, 0u8);
    let mut hash = |bytes: &[u8]| {
        folded ^= sha2::Sha256::digest(bytes)[0];
        hashed += bytes.len() as u64;
    };
    // Rows of one scan, each hashed `times` times; their count.
    let scan = |sql: &str, times: usize, hash: &mut dyn FnMut(&[u8])| -> rusqlite::Result<u64> {
        let mut stmt = conn.prepare(sql)?;
        let mut rows = stmt.query([])?;
        let mut n = 0;
        while let Some(r) = rows.next()? {
            let bytes = r.get_ref(0)?.as_bytes()?;
            (0..times).for_each(|_| hash(bytes));
            n += 1;
        }
        Ok(n)
    };
    let t = Instant::now();
    let entries = scan("SELECT payload FROM blocks ORDER BY id", 1, &mut hash)
        .and_then(|_| scan("SELECT entry FROM journal ORDER BY seq", 2, &mut hash))
        .map_err(|e| format!("the verify floor: {e}"))?;
    let node = [1u8; 65];
    (1..entries).for_each(|_| hash(&node));
    let secs = t.elapsed().as_secs_f64();
    std::hint::black_box(folded);
    Ok((secs, hashed))
}

/// The machine's cores, as the floors divide work over them.
fn cores() -> f64 {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get) as f64
}

/// The floor cell of a verify row: [`verify_floor`] over the machine's cores, as blocks/s.
fn verify_floor_cell(floor: (f64, u64), blocks: u64, cores: f64) -> String {
    let (secs, hashed) = floor;
    format!(
        "floor, every row read once and hashed as no verification can skip ({:.0} MB: each \
         payload once, each entry twice, the tree's nodes) on {cores:.0} cores: {} blocks/s \
         ({:.2} s)",
        hashed as f64 / 1e6,
        thousands(blocks as f64 * cores / secs),
        secs / cores
    )
}

/// [`run_verify`] three times: the median time (a run takes a fifth of a second, where one
/// scheduling hiccup of a shared machine moves a single run by a tenth), the largest RSS.
fn median_verify(a: &Args, dir: &Path) -> Res<(f64, u64, u64)> {
    let mut runs = (0..3).map(|_| run_verify(a, dir)).collect::<Res<Vec<_>>>()?;
    let rss = runs.iter().map(|r| r.2).max().unwrap_or(0);
    runs.sort_by(|x, y| x.0.total_cmp(&y.0));
    let (secs, blocks, _) = runs[1];
    Ok((secs, blocks, rss))
}

/// A pad in a local repository, appended to through the library.
struct LocalPad {
    id: String,
    key: Secret,
    blocks: usize,
    bytes: usize,
}

fn local_pad(ctx: &mut ops::Ctx<'_>) -> Res<LocalPad> {
    let limits = locker::domain::limits::PadLimits::new(86_400, 4096).expect("valid limits");
    let created = ops::pad::create(ctx, limits).map_err(|e| e.to_string())?;
    let key = Secret::new(created.write_key.clone());
    ops::pad::append(ctx, &created.pad_id, Some(&key), ENVELOPE.as_bytes(), None)
        .map_err(|e| e.to_string())?;
    Ok(LocalPad { id: created.pad_id, key, blocks: 1, bytes: ENVELOPE.len() })
}

/// Durable appends through the library to a small and a large repository, interleaved in
/// rounds so that drift on a shared machine hits both alike.
fn append_latency(small: &Path, large: &Path, n: usize) -> Res<(Measure, Measure)> {
    let clock = SystemClock;
    let mut repos = Vec::new();
    for dir in [small, large] {
        let mut repo = locker::repo::Repo::open_root(dir).map_err(|e| e.to_string())?;
        let pad = {
            let mut ctx = ops::Ctx::new(repo.store.as_mut(), Actor::operator(), &clock);
            local_pad(&mut ctx)?
        };
        repos.push((repo, pad, Vec::with_capacity(n)));
    }
    // One append to each in turn: a shared disk's bursts hit both alike.
    let chunk = 1;
    let mut i = 0u64;
    while repos[0].2.len() < n {
        for (repo, pad, lat) in &mut repos {
            let mut ctx = ops::Ctx::new(repo.store.as_mut(), Actor::operator(), &clock);
            for _ in 0..chunk.min(n - lat.len()) {
                if pad.blocks + 1 > PAD_BLOCKS || pad.bytes + APPEND_BYTES > PAD_BYTES {
                    *pad = local_pad(&mut ctx)?;
                }
                i += 1;
                let p = payload(APPEND_BYTES, i);
                let t = Instant::now();
                ops::pad::append(&mut ctx, &pad.id, Some(&pad.key), &p, None)
                    .map_err(|e| e.to_string())?;
                lat.push(t.elapsed().as_secs_f64());
                pad.blocks += 1;
                pad.bytes += APPEND_BYTES;
            }
        }
    }
    let mut out = repos.into_iter().map(|(_, _, lat)| {
        let busy = lat.iter().sum();
        Measure::of(lat, busy)
    });
    let s = out.next().expect("two repositories");
    let l = out.next().expect("two repositories");
    Ok((s, l))
}

fn journal_entries(dir: &Path) -> Res<u64> {
    let mut repo = locker::repo::Repo::open_root(dir).map_err(|e| e.to_string())?;
    let tx = repo.store.read().map_err(|e| e.to_string())?;
    Ok(tx.journal_head().map_err(|e| e.to_string())?.map_or(0, |h| h.seq))
}

// ---------------------------------------------------------------------------------------------
// One CLI process against the minimal SQLite program.

/// The floor of a durable append: a minimal program committing 200-byte rows one transaction
/// at a time on one SQLite connection (WAL, `synchronous=FULL`), per commit.
struct Floor {
    cpu_ms: f64,
    wall_ms: f64,
    bytes: f64,
}

impl Floor {
    fn json(&self) -> Value {
        json!({"cpu_ms_per_commit": self.cpu_ms, "wall_ms_per_commit": self.wall_ms,
               "bytes_per_commit": self.bytes})
    }
}

fn commit_floor(a: &Args, commits: usize) -> Res<Floor> {
    let dir = a.work.join("floor");
    fresh_dir(&dir)?;
    let db = dir.join("floor.db");
    let out = Command::new(&a.baseline)
        .arg(&db)
        .args(["--loop", &commits.max(1).to_string()])
        .output()
        .map_err(|e| format!("{}: {e}", a.baseline.display()))?;
    if !out.status.success() {
        return Err(format!("the commit floor failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    let v: Value = serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())?;
    let f = |k: &str| v[k].as_f64().unwrap_or(f64::NAN);
    Ok(Floor { cpu_ms: f("cpu_ms"), wall_ms: f("wall_ms"), bytes: f("bytes") })
}

fn cli_vs_baseline(a: &Args, runs: usize) -> Res<(Measure, Measure)> {
    let dir = a.work.join("cli-repo");
    fresh_dir(&dir)?;
    let locker = |args: &[&str]| -> Res<Value> {
        let mut cmd = Command::new(&a.locker);
        base_env(&mut cmd, &a.work);
        let out =
            cmd.arg("-R").arg(&dir).arg("--json").args(args).output().map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(format!("locker {args:?}: {}", String::from_utf8_lossy(&out.stderr)));
        }
        serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())
    };
    locker(&["init"])?;
    let pad = locker(&["pad", "create", "--max-blocks", "4096", "--ttl", "86400"])?;
    let id = pad["pad_id"].as_str().ok_or("no pad_id")?.to_owned();
    let key = pad["write_key"].as_str().ok_or("no key")?.to_owned();
    locker(&["append", &id, "--key", &key, "--data", ENVELOPE])?;

    let db = a.work.join("baseline.db");
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
    }
    {
        let conn = rusqlite::Connection::open(&db).map_err(|e| e.to_string())?;
        conn.execute_batch(
            "PRAGMA journal_mode=WAL; CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB NOT NULL);",
        )
        .map_err(|e| e.to_string())?;
    }
    let data = String::from_utf8(payload(APPEND_BYTES, 0)).expect("ASCII");
    let run_locker = || -> Res<f64> {
        let mut cmd = Command::new(&a.locker);
        base_env(&mut cmd, &a.work);
        cmd.env("LOCKER_WRITE_KEY", &key)
            .arg("-R")
            .arg(&dir)
            .args(["append", &id, "--data", &data])
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let t = Instant::now();
        let out = cmd.output().map_err(|e| e.to_string())?;
        let secs = t.elapsed().as_secs_f64();
        if !out.status.success() {
            return Err(format!("locker append: {}", String::from_utf8_lossy(&out.stderr)));
        }
        Ok(secs)
    };
    let run_baseline = || -> Res<f64> {
        let mut cmd = Command::new(&a.baseline);
        base_env(&mut cmd, &a.work);
        cmd.arg(&db).stdout(Stdio::null()).stderr(Stdio::piped());
        let t = Instant::now();
        let out = cmd.output().map_err(|e| e.to_string())?;
        let secs = t.elapsed().as_secs_f64();
        if !out.status.success() {
            return Err("the SQLite baseline failed".into());
        }
        Ok(secs)
    };
    for _ in 0..3 {
        run_locker()?;
        run_baseline()?;
    }
    let (mut l, mut b) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        l.push(run_locker()?);
        b.push(run_baseline()?);
    }
    let (ls, bs) = (l.iter().sum(), b.iter().sum());
    Ok((Measure::of(l, ls), Measure::of(b, bs)))
}

// ---------------------------------------------------------------------------------------------

struct Counts {
    seq: usize,
    clients: usize,
    per_client: usize,
    handoffs: usize,
    mcp: usize,
    cli: usize,
    verify_blocks: u64,
    /// Blocks of the repository written one request per block.
    request_blocks: usize,
    history_appends: usize,
}

fn main() -> std::process::ExitCode {
    let a = Args::parse();
    match run(&a) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn wanted(a: &Args, name: &str) -> bool {
    a.only.is_empty() || a.only.iter().any(|o| o == name)
}

#[allow(clippy::too_many_lines)]
fn run(a: &Args) -> Res<()> {
    std::fs::create_dir_all(&a.work).map_err(|e| e.to_string())?;
    let n = if a.quick {
        Counts {
            seq: 300,
            clients: 16,
            per_client: 40,
            handoffs: 30,
            mcp: 5,
            cli: 20,
            verify_blocks: 20_000,
            request_blocks: 6_000,
            history_appends: 100,
        }
    } else {
        Counts {
            seq: 3000,
            clients: 16,
            per_client: 400,
            handoffs: 200,
            mcp: 30,
            cli: 100,
            verify_blocks: 1_000_000,
            request_blocks: 60_000,
            history_appends: 500,
        }
    };
    let mut rows: Vec<Row> = Vec::new();
    let mut raw = BTreeMap::<String, Value>::new();
    let quick = a.quick;
    let peer_missing = "the peer is not installed";

    let needs_servers = ["seq", "concurrent", "handoff", "mcp"].iter().any(|s| wanted(a, s));
    let mut servers = None;
    if needs_servers {
        let repo = a.work.join("serve-repo");
        fresh_dir(&repo)?;
        let mut init = Command::new(&a.locker);
        base_env(&mut init, &a.work);
        let out = init.arg("-R").arg(&repo).arg("init").output().map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(format!("locker init: {}", String::from_utf8_lossy(&out.stderr)));
        }
        eprintln!("bench: starting locker serve");
        let locker = start_locker(a, &repo, &a.work.join("locker-serve.log"))?;
        let peer = match &a.lockerd {
            Some(d) => {
                let pdir = a.work.join("peer");
                fresh_dir(&pdir)?;
                eprintln!("bench: starting lockerd");
                Some(start_lockerd(a, d, &pdir.join("locker.db"), &a.work.join("lockerd.log"))?)
            }
            None => None,
        };
        servers = Some((locker, peer, repo));
    }

    if let Some((locker, peer, _)) = &servers {
        if wanted(a, "seq") {
            eprintln!("bench: sequential appends over one connection");
            let chunk = n.seq / ROUNDS;
            let (mut lphys, mut pphys) = (Physics::default(), Physics::default());
            let lpid = locker.child.id();
            let (l, p) = {
                let lphys = &mut lphys;
                let pphys = &mut pphys;
                interleave(
                    ROUNDS,
                    || lphys.around(lpid, || http_sequential(locker.addr, chunk)),
                    peer.as_ref().map(|p| {
                        let ppid = p.child.id();
                        move || pphys.around(ppid, || http_sequential(p.addr, chunk))
                    }),
                )?
            };
            let floor = commit_floor(a, n.seq)?;
            let ratio = p.as_ref().map(|p| l.rate() / p.rate());
            raw.insert(
                "seq".into(),
                json!({"locker": l.json(), "peer": p.as_ref().map(Measure::json), "ratio": ratio,
                       "locker_physics": lphys.json(),
                       "peer_physics": p.as_ref().map(|_| pphys.json()),
                       "floor": floor.json()}),
            );
            rows.push(Row {
                scenario: "HTTP, one keep-alive client, sequential appends (200 B)".into(),
                locker: format!("{}; {}", rate_cell(&l, ""), lphys.cell("append")),
                other: p.as_ref().map_or(peer_missing.into(), |p| {
                    format!("peer: {}; {}", rate_cell(p, ""), pphys.cell("append"))
                }),
                ratio: ratio.map_or(String::new(), |r| format!("{r:.1}×")),
                target: "≥ 5×".into(),
                verdict: verdict(ratio.map(|r| r >= 5.0), quick),
            });
            let cpu = lphys.cpu_ms_per_request();
            rows.push(Row {
                scenario: "server CPU per sequential 200 B append".into(),
                locker: format!("{cpu:.3} ms"),
                other: format!(
                    "floor, one minimal durable SQLite commit of 200 B: {:.3} ms CPU, {:.3} ms wall{}",
                    floor.cpu_ms,
                    floor.wall_ms,
                    p.as_ref().map_or(String::new(), |_| format!(
                        "; peer: {:.3} ms",
                        pphys.cpu_ms_per_request()
                    ))
                ),
                ratio: format!("{:.1}× the floor", cpu / floor.cpu_ms.max(1e-9)),
                target: "≤ 0.15 ms".into(),
                verdict: verdict(Some(cpu <= 0.15), quick),
            });
            let kb = lphys.bytes_per_request() / 1000.0;
            rows.push(Row {
                scenario: "bytes written per 200 B append".into(),
                locker: format!("{kb:.1} KB"),
                other: format!(
                    "floor, one minimal durable SQLite commit of 200 B: {:.1} KB{}",
                    floor.bytes / 1000.0,
                    p.as_ref().map_or(String::new(), |_| format!(
                        "; peer: {:.1} KB",
                        pphys.bytes_per_request() / 1000.0
                    ))
                ),
                ratio: format!("{:.1}× the floor", kb * 1000.0 / floor.bytes.max(1.0)),
                target: "≤ 12 KB".into(),
                verdict: verdict(Some(kb <= 12.0), quick),
            });
        }
        if wanted(a, "concurrent") {
            eprintln!("bench: {} concurrent clients appending", n.clients);
            let per = n.per_client / ROUNDS;
            let (lpeak, ppeak) = (AtomicU64::new(0), AtomicU64::new(0));
            let (mut lphys, mut pphys) = (Physics::default(), Physics::default());
            let lpid = locker.child.id();
            let (l, p) = {
                let lphys = &mut lphys;
                let pphys = &mut pphys;
                interleave(
                    ROUNDS,
                    || {
                        lphys.around(lpid, || {
                            http_concurrent(locker.addr, lpid, n.clients, per, &lpeak)
                        })
                    },
                    peer.as_ref().map(|p| {
                        let ppeak = &ppeak;
                        let ppid = p.child.id();
                        move || {
                            pphys.around(ppid, || {
                                http_concurrent(p.addr, ppid, n.clients, per, ppeak)
                            })
                        }
                    }),
                )?
            };
            let lrss = lpeak.load(Ordering::Relaxed);
            let p = p.map(|p| (p, ppeak.load(Ordering::Relaxed)));
            let ratio = p.as_ref().map(|(p, _)| l.rate() / p.rate());
            raw.insert(
                "concurrent".into(),
                json!({"locker": l.json(), "locker_rss_kib": lrss,
                       "peer": p.as_ref().map(|(p, _)| p.json()),
                       "peer_rss_kib": p.as_ref().map(|(_, r)| r), "ratio": ratio,
                       "locker_physics": lphys.json(),
                       "peer_physics": p.as_ref().map(|_| pphys.json())}),
            );
            rows.push(Row {
                scenario: format!("HTTP, {} concurrent clients, appends (200 B)", n.clients),
                locker: format!("{}; {}", rate_cell(&l, ""), lphys.cell("append")),
                other: p.as_ref().map_or(peer_missing.into(), |(p, _)| {
                    format!("peer: {}; {}", rate_cell(p, ""), pphys.cell("append"))
                }),
                ratio: ratio.map_or(String::new(), |r| format!("{r:.1}×")),
                target: "≥ 20×".into(),
                verdict: verdict(ratio.map(|r| r >= 20.0), quick),
            });
            rows.push(Row {
                scenario: format!(
                    "`locker serve` resident memory under the {}-client load",
                    n.clients
                ),
                locker: format!("peak {}", mib(lrss)),
                other: p.as_ref().map_or(String::new(), |(_, r)| format!("peer: peak {}", mib(*r))),
                ratio: String::new(),
                target: "≤ 64 MiB".into(),
                verdict: verdict(Some(lrss <= 64 * 1024), quick),
            });
        }
        if wanted(a, "handoff") {
            eprintln!("bench: full handoffs over HTTP");
            let mut lc = Http::new(locker.addr);
            let mut pc = peer.as_ref().map(|p| Http::new(p.addr));
            // Warm-up, then one round each in turn.
            http_handoff(&mut lc, 5)?;
            if let Some(c) = pc.as_mut() {
                http_handoff(c, 5)?;
            }
            // A handoff costs a server about a millisecond of CPU, and `/proc` counts it in
            // ticks of 10 ms: each server's use is read once around the whole interleaved run
            // (the other server's rounds cost it nothing).
            let lpid = locker.child.id();
            let ppid = peer.as_ref().map(|p| p.child.id());
            let before = (proc_usage(lpid), ppid.and_then(proc_usage));
            let (l, p) = interleave(
                n.handoffs,
                || http_handoff(&mut lc, 1),
                pc.as_mut().map(|c| move || http_handoff(c, 1)),
            )?;
            let lphys = Physics::between(before.0, proc_usage(lpid), n.handoffs);
            let pphys = Physics::between(before.1, ppid.and_then(proc_usage), n.handoffs);
            // Its floor: the durable commits a handoff cannot do without, one per write
            // (create, two appends, seal, the read's lease), each as a minimal program makes it.
            let floor = commit_floor(a, n.handoffs * HANDOFF_WRITES)?;
            let floor_ms = floor.wall_ms * HANDOFF_WRITES as f64;
            let ratio = p.as_ref().map(|p| l.median_ms / p.median_ms);
            raw.insert(
                "handoff".into(),
                json!({"locker": l.json(), "peer": p.as_ref().map(Measure::json), "ratio": ratio,
                       "locker_physics": lphys.json(),
                       "peer_physics": p.as_ref().map(|_| pphys.json()),
                       "floor": floor.json(), "floor_ms": floor_ms}),
            );
            rows.push(Row {
                scenario:
                    "one full handoff over HTTP (create, envelope, 1 KiB artifact, seal, read all)"
                        .into(),
                locker: format!("{}; {}", latency_cell(&l), lphys.cell("handoff")),
                other: format!(
                    "{}; floor, {HANDOFF_WRITES} minimal durable SQLite commits: {} wall",
                    p.as_ref().map_or(peer_missing.into(), |p| format!(
                        "peer: {}; {}",
                        latency_cell(p),
                        pphys.cell("handoff")
                    )),
                    ms(floor_ms)
                ),
                ratio: ratio.map_or(String::new(), |r| format!("{r:.3}× (1/{:.1})", 1.0 / r)),
                target: "≤ 0.2× (1/5)".into(),
                verdict: verdict(ratio.map(|r| r <= 0.2), quick),
            });
        }
        if wanted(a, "mcp") {
            let scenario = "`locker_deposit` + `locker_read_blocks` through MCP (stdio)";
            let target = "≤ 0.05× (1/20)";
            let mut help = Command::new(&a.locker);
            base_env(&mut help, &a.work);
            let has_mcp = help
                .args(["mcp", "--help"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            if !has_mcp {
                rows.push(not_run(scenario, target, "locker mcp missing"));
            } else {
                eprintln!("bench: deposits and reads through MCP");
                let mcp_repo = a.work.join("mcp-repo");
                fresh_dir(&mcp_repo)?;
                let mut init = Command::new(&a.locker);
                base_env(&mut init, &a.work);
                init.arg("-R").arg(&mcp_repo).arg("init").output().map_err(|e| e.to_string())?;
                let mut cmd = Command::new(&a.locker);
                base_env(&mut cmd, &a.work);
                cmd.arg("-R")
                    .arg(&mcp_repo)
                    .arg("mcp")
                    .stderr(log_file(&a.work.join("locker-mcp.log"))?);
                let mut lm = Mcp::start(cmd)?;
                let mut pm = match (&a.lockermcp, peer) {
                    (Some(bin), Some(peer)) => {
                        let mut cmd = Command::new(bin);
                        base_env(&mut cmd, &a.work);
                        cmd.env("LOCKER_URL", format!("http://{}", peer.addr))
                            .stderr(log_file(&a.work.join("lockermcp.log"))?);
                        Some(Mcp::start(cmd)?)
                    }
                    _ => None,
                };
                mcp_rounds(&mut lm, 2)?;
                if let Some(m) = pm.as_mut() {
                    mcp_rounds(m, 2)?;
                }
                let (l, p) = interleave(
                    n.mcp,
                    || mcp_rounds(&mut lm, 1),
                    pm.as_mut().map(|m| move || mcp_rounds(m, 1)),
                )?;
                let ratio = p.as_ref().map(|p| l.median_ms / p.median_ms);
                raw.insert(
                    "mcp".into(),
                    json!({"locker": l.json(), "peer": p.as_ref().map(Measure::json), "ratio": ratio}),
                );
                rows.push(Row {
                    scenario: scenario.into(),
                    locker: latency_cell(&l),
                    other: p
                        .as_ref()
                        .map_or(peer_missing.into(), |p| format!("peer: {}", latency_cell(p))),
                    ratio: ratio.map_or(String::new(), |r| format!("{r:.3}× (1/{:.0})", 1.0 / r)),
                    target: target.into(),
                    verdict: verdict(ratio.map(|r| r <= 0.05), quick),
                });
            }
        }
    }
    drop(servers);

    if let (true, Some(admin)) = (wanted(a, "multi"), a.pg.as_deref()) {
        let figures = pg_multi(a, admin, n.clients, n.per_client)?;
        let one = figures.first().map_or(1.0, |(_, m, _)| m.rate());
        let mut json_rows = Vec::new();
        for (servers, m, physics) in &figures {
            let ratio = m.rate() / one;
            // #19's targets: three times the one-server rate the issue measured (1.9k/s), and
            // more with three servers than with one.
            let (target, met) = match servers {
                1 => (
                    format!("≥ {PG_ONE_SERVER_TARGET:.0}/s"),
                    Some(m.rate() >= PG_ONE_SERVER_TARGET),
                ),
                3 => ("> 1 server".to_owned(), Some(ratio > 1.0)),
                _ => ("—".to_owned(), None),
            };
            json_rows.push(json!({"servers": servers, "figures": m.json(), "vs_one": ratio,
                                  "physics": physics.json()}));
            rows.push(Row {
                scenario: format!(
                    "PostgreSQL store, {} clients appending over {servers} `locker serve` process(es)",
                    n.clients
                ),
                locker: format!("{}; {}", rate_cell(m, ""), physics.cell()),
                other: "(1 server is the baseline)".into(),
                ratio: format!("{ratio:.2}× of 1 server"),
                target,
                verdict: match met {
                    None => "(measured)".into(),
                    met => verdict(met, quick),
                },
            });
        }
        raw.insert("multi".into(), json!(json_rows));
    }

    if wanted(a, "cli") {
        eprintln!("bench: one CLI append per process against the minimal SQLite program");
        let (l, b) = cli_vs_baseline(a, n.cli)?;
        let ratio = l.median_ms / b.median_ms;
        raw.insert("cli".into(), json!({"locker": l.json(), "baseline": b.json(), "ratio": ratio}));
        rows.push(Row {
            scenario: "one CLI append as its own process (spawn, open, append, durable commit)"
                .into(),
            locker: latency_cell(&l),
            other: format!("minimal Rust + SQLite commit: {}", latency_cell(&b)),
            ratio: format!("{ratio:.2}×"),
            target: "≤ 1.3×".into(),
            verdict: verdict(Some(ratio <= 1.3), quick),
        });
    }

    let small = a.work.join("repo-1k");
    let large = a.work.join(format!("repo-{}", n.verify_blocks));
    if wanted(a, "verify") || wanted(a, "history") {
        eprintln!("bench: building a repository of 1,000 blocks (cached)");
        build_repo(&small, 1000, a.fresh)?;
        eprintln!(
            "bench: building a repository of {} blocks of 1 KiB (cached; takes a while)",
            thousands(n.verify_blocks as f64)
        );
        build_repo(&large, n.verify_blocks, a.fresh)?;
    }
    if wanted(a, "verify") {
        // A tenth of the size too: memory is flat when the peak barely moves between them.
        let mid = a.work.join(format!("repo-{}", n.verify_blocks / 10));
        eprintln!("bench: building a repository of a tenth of that size (cached)");
        build_repo(&mid, n.verify_blocks / 10, a.fresh)?;
        eprintln!("bench: locker verify (once to warm the page cache, then measured)");
        run_verify(a, &large)?;
        let (ss, sb, srss) = run_verify(a, &small)?;
        let (ms, mb, mrss) = run_verify(a, &mid)?;
        let (secs, blocks, rss) = run_verify(a, &large)?;
        let floor = verify_floor(&large)?;
        let cores = cores();
        let rate = blocks as f64 / secs;
        let flat = rss as f64 <= mrss as f64 * 1.25 + 4096.0;
        raw.insert(
            "verify".into(),
            json!({"blocks": blocks, "secs": secs, "blocks_per_sec": rate, "peak_rss_kib": rss,
                   "mid": {"blocks": mb, "secs": ms, "peak_rss_kib": mrss},
                   "small": {"blocks": sb, "secs": ss, "peak_rss_kib": srss},
                   "floor": {"secs_one_thread": floor.0, "bytes_hashed": floor.1,
                             "cores": cores}}),
        );
        rows.push(Row {
            scenario: format!("`locker verify` of {} blocks of 1 KiB", thousands(blocks as f64)),
            locker: format!("{} blocks/s ({secs:.2} s), peak RSS {}", thousands(rate), mib(rss),),
            other: format!(
                "peak RSS at {} blocks: {}; at {}: {}; {}",
                thousands(mb as f64),
                mib(mrss),
                thousands(sb as f64),
                mib(srss),
                verify_floor_cell(floor, blocks, cores)
            ),
            ratio: format!(
                "RSS {:.2}× the tenth; time {:.1}× the floor",
                rss as f64 / mrss.max(1) as f64,
                secs * cores / floor.0
            ),
            target: "≥ 300,000 blocks/s, memory flat".into(),
            verdict: verdict(Some(rate >= 300_000.0 && flat), quick),
        });
    }
    if wanted(a, "verify-requests") {
        let dir = a.work.join("repo-requests");
        eprintln!(
            "bench: {} blocks of 1 KiB appended one request each over HTTP (8 clients)",
            thousands(n.request_blocks as f64)
        );
        let server = build_by_requests(a, &dir, n.request_blocks, 8)?;
        eprintln!("bench: locker verify beside the running server (once to warm, then 3 runs)");
        run_verify(a, &dir)?;
        let (secs, blocks, rss) = median_verify(a, &dir)?;
        let entries = journal_entries(&dir)?;
        drop(server);
        eprintln!("bench: locker verify after the server was killed");
        run_verify(a, &dir)?;
        let (ksecs, kblocks, _) = median_verify(a, &dir)?;
        let floor = verify_floor(&dir)?;
        let cores = cores();
        let rate = blocks as f64 / secs;
        let krate = kblocks as f64 / ksecs;
        raw.insert(
            "verify_requests".into(),
            json!({"blocks": blocks, "journal_entries": entries, "secs": secs,
                   "blocks_per_sec": rate, "peak_rss_kib": rss,
                   "after_kill": {"secs": ksecs, "blocks_per_sec": krate},
                   "floor": {"secs_one_thread": floor.0, "bytes_hashed": floor.1,
                             "cores": cores}}),
        );
        rows.push(Row {
            scenario: format!(
                "`locker verify` of {} blocks of 1 KiB appended one request each ({} journal \
                 entries), beside the running server",
                thousands(blocks as f64),
                thousands(entries as f64)
            ),
            locker: format!("{} blocks/s ({secs:.2} s), peak RSS {}", thousands(rate), mib(rss)),
            other: format!(
                "after the server was killed: {} blocks/s; {}",
                thousands(krate),
                verify_floor_cell(floor, blocks, cores)
            ),
            ratio: format!("time {:.1}× the floor", secs.max(ksecs) * cores / floor.0),
            target: "≥ 300,000 blocks/s".into(),
            verdict: verdict(Some(rate.min(krate) >= 300_000.0), quick),
        });
    }
    if wanted(a, "history") {
        eprintln!("bench: append latency in a small and a large repository");
        let (es, el) = (journal_entries(&small)?, journal_entries(&large)?);
        let (s, l) = append_latency(&small, &large, n.history_appends)?;
        let ratio = l.median_ms / s.median_ms;
        raw.insert(
            "history".into(),
            json!({"small_entries": es, "large_entries": el, "small": s.json(),
                   "large": l.json(), "ratio": ratio}),
        );
        rows.push(Row {
            scenario: format!(
                "durable append latency at {} journal entries vs at {}",
                thousands(el as f64),
                thousands(es as f64)
            ),
            locker: format!("large: {}", latency_cell(&l)),
            other: format!("small: {}", latency_cell(&s)),
            ratio: format!("{ratio:.2}×"),
            target: "≤ 1.2×".into(),
            verdict: verdict(Some(ratio <= 1.2), quick),
        });
    }

    println!("| scenario | locker | peer or baseline | ratio | target | verdict |");
    println!("|---|---|---|---|---|---|");
    for r in &rows {
        println!(
            "| {} | {} | {} | {} | {} | {} |",
            r.scenario, r.locker, r.other, r.ratio, r.target, r.verdict
        );
    }
    if let Some(path) = &a.json_out {
        let doc = json!({"quick": quick, "results": raw});
        std::fs::write(path, serde_json::to_vec_pretty(&doc).expect("JSON"))
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}
