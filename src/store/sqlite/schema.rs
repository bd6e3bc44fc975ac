//! The SQLite schema: append-only migrations, counted with `PRAGMA user_version`.

use rusqlite::{Connection, TransactionBehavior};

use crate::store::{Result, StoreError};

/// Append-only migrations; the schema version is their count (`PRAGMA user_version`).
const MIGRATIONS: &[&str] = &[
    include_str!("migrations/0001_init.sql"),
    include_str!("migrations/0002_artifacts.sql"),
    include_str!("migrations/0003_leases.sql"),
    include_str!("migrations/0004_payments.sql"),
    include_str!("migrations/0005_retention.sql"),
    include_str!("migrations/0006_work_retention.sql"),
    include_str!("migrations/0007_merkle.sql"),
    include_str!("migrations/0008_agent_keys.sql"),
];

/// The schema version this binary writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// The schema version recorded in the database.
pub(super) fn version(conn: &Connection) -> Result<i64> {
    Ok(conn.query_row("PRAGMA user_version", [], |r| r.get(0))?)
}

/// Brings the schema up to date, in one transaction; refuses a newer one.
pub(super) fn migrate(conn: &mut Connection) -> Result<()> {
    let current = version(conn)?;
    if current > SCHEMA_VERSION {
        return Err(StoreError::SchemaTooNew { found: current, supported: SCHEMA_VERSION });
    }
    if current == SCHEMA_VERSION {
        return Ok(());
    }
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let current = version(&tx)?;
    if current > SCHEMA_VERSION {
        return Err(StoreError::SchemaTooNew { found: current, supported: SCHEMA_VERSION });
    }
    let from = usize::try_from(current).unwrap_or(0);
    for m in &MIGRATIONS[from..] {
        tx.execute_batch(m)?;
    }
    tx.execute_batch(&format!("PRAGMA user_version = {SCHEMA_VERSION}"))?;
    tx.commit()?;
    Ok(())
}
