//! The floor `scripts/bench.sh` compares one `locker append` process with: a minimal Rust
//! program that opens an SQLite database (WAL, `synchronous=FULL`, as locker's store does),
//! commits one row and exits.
//!
//! Usage: `sqlite_commit DB` (the table `t` must exist; the bench creates it).

fn main() -> std::process::ExitCode {
    let Some(path) = std::env::args_os().nth(1) else {
        return std::process::ExitCode::from(2);
    };
    let run = || -> rusqlite::Result<()> {
        let mut conn = rusqlite::Connection::open(path)?;
        conn.execute_batch("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;")?;
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        tx.execute("INSERT INTO t (v) VALUES (?1)", [&[7u8; 200][..]])?;
        tx.commit()
    };
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(_) => std::process::ExitCode::from(8),
    }
}
