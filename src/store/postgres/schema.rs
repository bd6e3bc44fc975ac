//! The PostgreSQL schema: append-only migrations recorded in `locker_schema`, and [`inspect`]
//! for `locker doctor`.

use std::path::Path;

use super::conn::{connect, corrupt, Conn};
use super::MIGRATION_LOCK;
use crate::store::{Result, StoreError, StoreInfo};

/// Append-only migrations; the schema version is their count, recorded in `locker_schema`.
const MIGRATIONS: &[&str] = &[
    include_str!("migrations/0001_init.sql"),
    include_str!("migrations/0002_work_retention.sql"),
    include_str!("migrations/0003_merkle_and_keys.sql"),
];

/// The schema version this binary writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// The schema version recorded in the database (0 before the first migration).
pub(super) fn version(conn: &mut Conn) -> Result<i64> {
    let exists: bool = conn
        .query_one("SELECT to_regclass('locker_schema') IS NOT NULL", &[])?
        .try_get(0)
        .map_err(corrupt)?;
    if !exists {
        return Ok(0);
    }
    conn.query_one("SELECT COALESCE(MAX(version), 0) FROM locker_schema", &[])?
        .try_get(0)
        .map_err(corrupt)
}

/// Refuses a database that holds no repository: no schema at all, or no journal. Only `locker
/// init` (and `locker store copy` into a new database) creates a schema.
pub(super) fn require_repository(conn: &mut Conn) -> Result<()> {
    if version(conn)? == 0 {
        return Err(StoreError::Uninitialized(
            "the database has no locker schema (it is empty, or was replaced)".into(),
        ));
    }
    for t in ["journal", "journal_head"] {
        let exists: bool = conn
            .query_one(&format!("SELECT to_regclass('{t}') IS NOT NULL"), &[])?
            .try_get(0)
            .map_err(corrupt)?;
        if !exists {
            return Err(StoreError::Uninitialized(format!("the database has no `{t}` table")));
        }
    }
    Ok(())
}

/// Brings an existing repository's schema up to date; refuses a database with none.
pub(super) fn migrate_existing(conn: &mut Conn) -> Result<()> {
    if version(conn)? == 0 {
        return require_repository(conn);
    }
    migrate(conn)?;
    require_repository(conn)
}

/// Brings the schema up to date (creating it in an empty database), under the migration lock.
pub(super) fn migrate(conn: &mut Conn) -> Result<()> {
    let current = version(conn)?;
    if current > SCHEMA_VERSION {
        return Err(StoreError::SchemaTooNew { found: current, supported: SCHEMA_VERSION });
    }
    if current == SCHEMA_VERSION {
        return Ok(());
    }
    conn.batch(&format!(
        "BEGIN; SELECT pg_advisory_xact_lock({MIGRATION_LOCK}); \
         CREATE TABLE IF NOT EXISTS locker_schema (version BIGINT PRIMARY KEY, \
         applied_at BIGINT NOT NULL)"
    ))?;
    let result = (|| {
        let current = version(conn)?;
        if current > SCHEMA_VERSION {
            return Err(StoreError::SchemaTooNew { found: current, supported: SCHEMA_VERSION });
        }
        let from = usize::try_from(current).unwrap_or(0);
        for (i, m) in MIGRATIONS.iter().enumerate().skip(from) {
            conn.batch(m)?;
            let version = i as i64 + 1;
            conn.execute(
                "INSERT INTO locker_schema (version, applied_at) \
                 VALUES ($1, EXTRACT(EPOCH FROM now())::BIGINT)",
                &[&version],
            )?;
        }
        conn.batch("COMMIT")
    })();
    if result.is_err() {
        conn.quietly("ROLLBACK");
    }
    // Statements prepared before the schema changed are stale.
    conn.cache.clear();
    result
}

/// Reads the schema version and the newest journal time without migrating anything.
pub fn inspect(url: &str, password_file: Option<&Path>) -> Result<StoreInfo> {
    let mut conn = Conn::new(connect(url, password_file)?);
    let schema_version = version(&mut conn)?;
    let has_journal: bool = conn
        .query_one("SELECT to_regclass('journal') IS NOT NULL", &[])?
        .try_get(0)
        .map_err(corrupt)?;
    let newest_journal_time = if has_journal {
        conn.query_one("SELECT MAX(time) FROM journal", &[])?.try_get(0).map_err(corrupt)?
    } else {
        None
    };
    Ok(StoreInfo {
        kind: "postgres",
        schema_version,
        supported_schema: SCHEMA_VERSION,
        files: Vec::new(),
        newest_journal_time,
        sqlite: None,
    })
}
