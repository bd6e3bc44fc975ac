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
    include_str!("migrations/0004_log_signer.sql"),
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
    // Nothing kept from before the migrations is known to hold after them.
    conn.known = super::known::Known::default();
    result
}

/// Reads the schema version and the newest journal time without migrating anything.
pub fn inspect(url: &str, password_file: Option<&Path>) -> Result<StoreInfo> {
    let mut conn = connect(url, password_file)?;
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
        postgres: Some(server_info(&mut conn)?),
    })
}

/// The server's version, this connection's TLS, replication, connections and the journal
/// lock's holder.
fn server_info(conn: &mut Conn) -> Result<crate::store::PgInfo> {
    let text = |conn: &mut Conn, sql: &str| -> Result<Option<String>> {
        conn.query_one(sql, &[])?.try_get(0).map_err(corrupt)
    };
    let int = |conn: &mut Conn, sql: &str| -> Result<u64> {
        let v: i64 = conn.query_one(sql, &[])?.try_get(0).map_err(corrupt)?;
        Ok(u64::try_from(v).unwrap_or(0))
    };
    let server_version = text(conn, "SHOW server_version")?.unwrap_or_default();
    let tls = text(
        conn,
        "SELECT CASE WHEN ssl THEN version END FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
    )?;
    let in_recovery: bool =
        conn.query_one("SELECT pg_is_in_recovery()", &[])?.try_get(0).map_err(corrupt)?;
    let standbys = int(conn, "SELECT count(*) FROM pg_stat_replication")?;
    let sync_standbys = int(
        conn,
        "SELECT count(*) FROM pg_stat_replication WHERE sync_state IN ('sync', 'quorum')",
    )?;
    let connections =
        int(conn, "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'")?;
    let max_connections =
        text(conn, "SHOW max_connections")?.and_then(|v| v.parse().ok()).unwrap_or(0);
    // A bigint advisory key is (classid, objid) = (high, low) 32 bits, objsubid 1; advisory
    // locks are per database, and another database's locker on the same cluster holds its own.
    let high = (super::JOURNAL_LOCK >> 32) as u32;
    let low = (super::JOURNAL_LOCK & 0xFFFF_FFFF) as u32;
    let holder = conn.query_opt(
        "SELECT COALESCE(a.application_name, ''), \
         COALESCE(EXTRACT(EPOCH FROM now() - a.xact_start), 0)::float8 \
         FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid \
         WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1 \
         AND l.classid = $1::bigint::oid AND l.objid = $2::bigint::oid \
         AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()) \
         LIMIT 1",
        &[&i64::from(high), &i64::from(low)],
    )?;
    let lock_holder = match holder {
        Some(row) => Some((row.try_get(0).map_err(corrupt)?, row.try_get(1).map_err(corrupt)?)),
        None => None,
    };
    Ok(crate::store::PgInfo {
        server_version,
        tls,
        in_recovery,
        standbys,
        sync_standbys,
        connections,
        max_connections,
        lock_holder,
    })
}

/// A schema of its own on a user's database, for `locker store check`: created empty, and
/// dropped with everything in it when this is dropped.
pub struct ScratchSchema {
    admin: Conn,
    /// Its name (`locker_check_` and random hex).
    pub name: String,
    /// The URL whose connections use it (`search_path`), with the caller's settings kept.
    pub url: String,
}

impl ScratchSchema {
    /// Creates one on the database `url` names.
    pub fn create(url: &str, password_file: Option<&Path>) -> Result<Self> {
        let mut admin = connect(url, password_file)?;
        let mut bytes = [0u8; 6];
        getrandom::fill(&mut bytes).map_err(|e| StoreError::Io(e.to_string()))?;
        let name: String = std::iter::once("locker_check_".to_owned())
            .chain(bytes.iter().map(|b| format!("{b:02x}")))
            .collect();
        admin.batch(&format!("CREATE SCHEMA {name}"))?;
        let options = format!("options=-c%20search_path%3D{name}");
        let sep = if url.contains('?') { '&' } else { '?' };
        Ok(Self { admin, url: format!("{url}{sep}{options}"), name })
    }

    /// The values of server settings (`SHOW name`), in order.
    pub fn settings(&mut self, names: &[&str]) -> Result<Vec<String>> {
        names
            .iter()
            .map(|n| {
                let row = self.admin.query_one(&format!("SHOW {n}"), &[])?;
                row.try_get::<_, String>(0).map_err(corrupt)
            })
            .collect()
    }
}

impl ScratchSchema {
    /// Drops it now, saying whether that worked (dropping the value tries again, quietly).
    pub fn drop_now(&mut self) -> Result<()> {
        self.admin.batch(&format!("DROP SCHEMA IF EXISTS {} CASCADE", self.name))
    }
}

impl Drop for ScratchSchema {
    fn drop(&mut self) {
        self.admin.quietly(&format!("DROP SCHEMA IF EXISTS {} CASCADE", self.name));
    }
}
