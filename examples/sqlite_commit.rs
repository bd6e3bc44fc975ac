//! The floors `scripts/bench.sh` compares locker with: a minimal Rust program that opens an
//! SQLite database (WAL, `synchronous=FULL`, as locker's store does) and commits 200-byte rows.
//!
//! Usage:
//!   `sqlite_commit DB`            commit one row and exit (the floor of one `locker append`
//!                                 process; the table `t` must exist: the bench creates it)
//!   `sqlite_commit DB --loop N`   create the table, commit N rows one transaction at a time on
//!                                 one connection, and print one JSON object: the CPU time
//!                                 (`cpu_ms`), the wall time (`wall_ms`) and the bytes written
//!                                 to storage (`bytes`) per commit (the floor of one durable
//!                                 append in a running server)

#![allow(clippy::print_stdout)]

use std::time::Instant;

fn commit(conn: &mut rusqlite::Connection) -> rusqlite::Result<()> {
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    tx.execute("INSERT INTO t (v) VALUES (?1)", [&[7u8; 200][..]])?;
    tx.commit()
}

/// This process's CPU seconds and bytes written to storage so far.
fn usage() -> (f64, u64) {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> =
        stat.rsplit_once(')').map(|(_, r)| r.split_whitespace().collect()).unwrap_or_default();
    let tick = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok()).unwrap_or(0);
    let io = std::fs::read_to_string("/proc/self/io").unwrap_or_default();
    let written = io
        .lines()
        .find_map(|l| l.strip_prefix("write_bytes: "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    ((tick(11) + tick(12)) as f64 / 100.0, written)
}

fn main() -> std::process::ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let Some(path) = args.get(1) else {
        return std::process::ExitCode::from(2);
    };
    let commits = match (args.get(2).and_then(|a| a.to_str()), args.get(3)) {
        (None, _) => None,
        (Some("--loop"), Some(n)) => match n.to_str().and_then(|n| n.parse::<u64>().ok()) {
            Some(n) if n > 0 => Some(n),
            _ => return std::process::ExitCode::from(2),
        },
        _ => return std::process::ExitCode::from(2),
    };
    let run = || -> rusqlite::Result<()> {
        let mut conn = rusqlite::Connection::open(path)?;
        conn.execute_batch("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;")?;
        let Some(n) = commits else { return commit(&mut conn) };
        conn.execute_batch("CREATE TABLE IF NOT EXISTS t (v BLOB)")?;
        commit(&mut conn)?;
        let (cpu0, w0) = usage();
        let start = Instant::now();
        for _ in 0..n {
            commit(&mut conn)?;
        }
        let wall = start.elapsed().as_secs_f64();
        let (cpu1, w1) = usage();
        let per = n as f64;
        let out = serde_json::json!({
            "commits": n,
            "cpu_ms": (cpu1 - cpu0) * 1e3 / per,
            "wall_ms": wall * 1e3 / per,
            "bytes": w1.saturating_sub(w0) as f64 / per,
        });
        println!("{out}");
        Ok(())
    };
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(_) => std::process::ExitCode::from(8),
    }
}
