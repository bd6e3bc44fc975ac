//! A SQLite connection as every store handle uses it: WAL mode, `synchronous=FULL`, and a busy
//! handler with jittered backoff so that concurrent writer processes neither starve nor see
//! `SQLITE_BUSY`.

use std::cell::Cell;
use std::time::{Duration, Instant};

use rusqlite::Connection;

use crate::store::{Result, StoreError};

/// Prepared statements kept per connection (the store has about a hundred distinct ones).
const STATEMENT_CACHE: usize = 128;

/// How long a writer keeps retrying a locked repository before giving up.
const BUSY_DEADLINE: Duration = Duration::from_secs(60);

thread_local! {
    static BUSY_SINCE: Cell<Option<Instant>> = const { Cell::new(None) };
    /// Set by [`begin_without_waiting`]: the busy handler gives up at once.
    static NO_WAIT: Cell<bool> = const { Cell::new(false) };
    static RNG: Cell<u64> = Cell::new(u64::from_le_bytes(crate::domain::secret::random_bytes::<8>()) | 1);
}

/// Starts the busy handler's deadline afresh: the lock it waited for is taken. A write
/// transaction that has begun ends [`begin_without_waiting`]'s effect.
pub(super) fn busy_done() {
    BUSY_SINCE.with(|c| c.set(None));
    NO_WAIT.with(|c| c.set(false));
}

/// Runs `f` with this thread's connections giving up at once, with `SQLITE_BUSY`
/// ([`StoreError::Busy`]), where a lock another connection holds would make them wait, until
/// a write transaction has begun on this thread (what follows it waits as usual) or `f`
/// returns.
pub fn begin_without_waiting<T>(f: impl FnOnce() -> T) -> T {
    struct Restore;
    impl Drop for Restore {
        fn drop(&mut self) {
            NO_WAIT.with(|c| c.set(false));
        }
    }
    NO_WAIT.with(|c| c.set(true));
    let _restore = Restore;
    f()
}

/// SQLite's busy handler: sleeps a random 25%–100% of an interval that doubles from 50 µs up
/// to 2 ms, so that waiting writers wake at different times and none is starved by the long,
/// fixed sleeps of the default handler; gives up after [`BUSY_DEADLINE`].
pub(super) fn busy_backoff(attempt: i32) -> bool {
    if NO_WAIT.with(Cell::get) {
        return false;
    }
    let now = Instant::now();
    let since = BUSY_SINCE.with(|c| {
        if attempt == 0 || c.get().is_none() {
            c.set(Some(now));
        }
        c.get().unwrap_or(now)
    });
    if now.duration_since(since) > BUSY_DEADLINE {
        BUSY_SINCE.with(|c| c.set(None));
        return false;
    }
    let cap = 50u64 << attempt.clamp(0, 5);
    let r = RNG.with(|c| {
        let mut x = c.get();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        c.set(x);
        x
    });
    let micros = cap / 4 + r % (cap - cap / 4 + 1);
    std::thread::sleep(Duration::from_micros(micros));
    true
}

/// Sets up a read-write connection: the busy handler, WAL mode and the pragmas every store
/// handle runs with.
pub(super) fn configure(conn: &mut Connection) -> Result<()> {
    conn.busy_handler(Some(busy_backoff))?;
    // One append alone runs about twenty distinct statements, more than rusqlite's default
    // cache of 16: keep every statement of the store prepared rather than re-parsing SQL.
    conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
    let mode: String = conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(StoreError::Io(format!("could not enable WAL mode (got {mode})")));
    }
    // secure_delete=FAST: text a row update or gc replaces is zeroed inside the pages
    // being written anyway (no extra I/O), so pruned text leaves no copy in free space.
    conn.execute_batch(
        "PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON; PRAGMA cache_size=-16384; \
         PRAGMA secure_delete=FAST;",
    )?;
    // After a checkpoint has reset the write-ahead log, cut it back to this size, so that
    // one burst of writes does not leave a large file behind for good.
    conn.query_row("PRAGMA journal_size_limit=67108864", [], |_| Ok(()))?;
    // Closing a connection does not fold the write-ahead log into the database (two more
    // fsyncs for every short-lived CLI process) until the log has grown long (see
    // `SqliteStore`'s `Drop`); every commit is durable in it already.
    conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)?;
    plan_once(conn)?;
    Ok(())
}

/// One plan per statement, whatever values are bound to it (SQLite's query planner stability
/// guarantee). Without it SQLite marks a statement to be planned again at every bind when a
/// bound value might change its plan, so a cached statement is parsed and planned afresh at
/// each use: the pad's query (`sqlite/pads.rs`), its id bound into the subquery that finds
/// its last block, was 14% of the server's samples under sequential appends. A query that
/// wants a partial index states the index's condition in its text (`sqlite/journal.rs`).
pub(super) fn plan_once(conn: &Connection) -> Result<()> {
    conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
    Ok(())
}
