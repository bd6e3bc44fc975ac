//! The SQLite schema: append-only migrations, counted with `PRAGMA user_version`.

use rusqlite::{Connection, TransactionBehavior};

use crate::store::{Result, StoreError};

/// One migration: SQL, then (for a migration that moves data) a step in code, both inside the
/// migration's transaction.
struct Migration {
    sql: &'static str,
    data: Option<fn(&Connection) -> Result<()>>,
}

const fn sql(sql: &'static str) -> Migration {
    Migration { sql, data: None }
}

/// Append-only migrations; the schema version is their count (`PRAGMA user_version`).
const MIGRATIONS: &[Migration] = &[
    sql(include_str!("migrations/0001_init.sql")),
    sql(include_str!("migrations/0002_artifacts.sql")),
    sql(include_str!("migrations/0003_leases.sql")),
    sql(include_str!("migrations/0004_payments.sql")),
    sql(include_str!("migrations/0005_retention.sql")),
    sql(include_str!("migrations/0006_work_retention.sql")),
    sql(include_str!("migrations/0007_merkle.sql")),
    sql(include_str!("migrations/0008_agent_keys.sql")),
    sql(include_str!("migrations/0009_log_signer.sql")),
    Migration {
        sql: include_str!("migrations/0010_merkle_in_journal.sql"),
        data: Some(append_layout),
    },
    sql(include_str!("migrations/0011_subject_index_without_appends.sql")),
    Migration {
        sql: include_str!("migrations/0012_blocks_by_pad.sql"),
        data: Some(super::pads::move_blocks_by_pad),
    },
    Migration {
        sql: include_str!("migrations/0013_binary_hashes.sql"),
        data: Some(super::hashes::store_hashes_as_bytes),
    },
];

/// Migration 10's data step: the Merkle hashes into the journal rows, and no head row.
fn append_layout(conn: &Connection) -> Result<()> {
    super::merkle::move_into_journal(conn)?;
    super::journal::drop_head_row(conn)
}

/// The schema version this binary writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// The schema version recorded in the database.
pub(super) fn version(conn: &Connection) -> Result<i64> {
    // Cached: opening a store asks up to three times (before and after configuring it, and
    // in the migration's check), and each prepare is a parse.
    Ok(conn.prepare_cached("PRAGMA user_version")?.query_row([], |r| r.get(0))?)
}

/// The tables a repository cannot be without: a database lacking one was not made by `locker
/// init`, or lost them (a truncated file, a lost write-ahead log).
const CORE_TABLES: &[&str] = &["journal"];

/// Refuses a database that holds no repository: no schema at all (an empty or truncated file,
/// or one whose write-ahead log was lost before anything reached it), or one missing a core
/// table. Only `locker init` creates a schema ([`migrate_new`]).
pub(super) fn require_repository(conn: &Connection) -> Result<()> {
    if version(conn)? == 0 {
        return Err(StoreError::Uninitialized(
            "the database is empty: it has no schema (a truncated file, or one whose \
             write-ahead log was lost)"
                .into(),
        ));
    }
    for t in CORE_TABLES {
        let n: i64 = conn.query_row(
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
            [t],
            |r| r.get(0),
        )?;
        if n == 0 {
            return Err(StoreError::Uninitialized(format!("the database has no `{t}` table")));
        }
    }
    Ok(())
}

/// Creates the schema of a new, empty database (`locker init` only).
pub(super) fn migrate_new(conn: &mut Connection) -> Result<()> {
    migrate(conn, true)
}

/// Brings the schema of an existing repository's database up to date, in one transaction;
/// refuses a newer one, and a database with no schema at all.
pub(super) fn migrate_existing(conn: &mut Connection) -> Result<()> {
    migrate(conn, false)?;
    require_repository(conn)
}

/// Brings the schema up to date, in one transaction; refuses a newer one, and (unless `new`)
/// creating one from nothing.
fn migrate(conn: &mut Connection, new: bool) -> Result<()> {
    let current = version(conn)?;
    if current == 0 && !new {
        return require_repository(conn);
    }
    if current > SCHEMA_VERSION {
        return Err(StoreError::SchemaTooNew { found: current, supported: SCHEMA_VERSION });
    }
    if current == SCHEMA_VERSION {
        return Ok(());
    }
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let current = version(&tx)?;
    if current == 0 && !new {
        return require_repository(&tx);
    }
    if current > SCHEMA_VERSION {
        return Err(StoreError::SchemaTooNew { found: current, supported: SCHEMA_VERSION });
    }
    let from = usize::try_from(current).unwrap_or(0);
    for m in &MIGRATIONS[from..] {
        apply(&tx, m)?;
    }
    tx.execute_batch(&format!("PRAGMA user_version = {SCHEMA_VERSION}"))?;
    tx.commit()?;
    Ok(())
}

/// Runs one migration: its SQL, then its data step.
fn apply(conn: &Connection, m: &Migration) -> Result<()> {
    conn.execute_batch(m.sql)?;
    match m.data {
        Some(data) => data(conn),
        None => Ok(()),
    }
}

/// Creates the schema up to version `version` only (tests of a migration's data step).
#[cfg(test)]
pub(super) fn create_at(conn: &Connection, version: usize) -> Result<()> {
    for m in &MIGRATIONS[..version] {
        apply(conn, m)?;
    }
    conn.execute_batch(&format!("PRAGMA user_version = {version}"))?;
    Ok(())
}

/// Runs migration `version` (numbered from 1) alone, as [`migrate`] does.
#[cfg(test)]
pub(super) fn run_one(conn: &Connection, version: usize) -> Result<()> {
    apply(conn, &MIGRATIONS[version - 1])
}
