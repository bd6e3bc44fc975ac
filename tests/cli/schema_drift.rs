//! The two stores' schemas, after every migration, describe the same tables: the same columns
//! (with compatible types, nullability and defaults), primary keys, unique constraints, indexes
//! and foreign keys, except for the differences [`INTENDED`] lists and explains. A migration
//! added to one backend and not the other fails here. CHECK constraints are not compared.
//!
//! It needs a PostgreSQL server: it runs under `scripts/test-postgres.sh` (which sets
//! `LOCKER_TEST_STORE`) and says it was skipped otherwise.

use std::collections::{BTreeMap, BTreeSet};

use crate::common::{self, TestEnv};

/// Differences between the schemas that are meant, each with why. Every one must still occur:
/// a difference that goes away must leave this list too.
const INTENDED: &[(&str, &str)] = &[
    (
        "table locker_schema: only in PostgreSQL",
        "PostgreSQL records applied migrations in a table; SQLite counts them in \
         PRAGMA user_version",
    ),
    (
        "table merkle_hashes: only in PostgreSQL",
        "SQLite keeps the Merkle hashes leaf n's append stores in journal entry n + 1's row \
         (schema 10: one row written per append instead of two); PostgreSQL keeps them in a \
         table by position",
    ),
    ("column journal.merkle: only in SQLite", "see merkle_hashes"),
    (
        "table journal_head: only in PostgreSQL",
        "SQLite's journal head is its last entry (schema 10: one page fewer per append); \
         PostgreSQL keeps the head in a row",
    ),
    (
        "column blocks.id: only in SQLite",
        "SQLite keeps block seq of a pad at row id ord * 2^32 + seq (schema 12), so the table \
         is its own index by pad; PostgreSQL keys blocks by (pad_id, seq) itself",
    ),
    ("primary key of blocks: (id) in SQLite, (pad_id, seq) in PostgreSQL", "as blocks.id"),
    ("column pads.ord: only in SQLite", "the pad's number in blocks' row ids (blocks.id)"),
    ("index pads_ord on pads (ord): only in SQLite", "as pads.ord: numbers are unique"),
    (
        "column blocks.total_bytes: only in SQLite",
        "SQLite reads a pad's byte count, block count and head from its last block (schema 12: \
         an append does not rewrite the pad's row); PostgreSQL keeps them in the pad's row",
    ),
    ("column pads.block_count: only in PostgreSQL", "as blocks.total_bytes"),
    ("column pads.current_bytes: only in PostgreSQL", "as blocks.total_bytes"),
    ("column pads.head_hash: only in PostgreSQL", "as blocks.total_bytes"),
    (
        "index journal_subject on journal: Index { columns: [\"subject\", \"seq\"], unique: false, \
         partial: true } in SQLite, Index { columns: [\"subject\", \"seq\"], unique: false, \
         partial: false } in PostgreSQL",
        "SQLite's leaves pad.append entries out (schema 11): every append wrote into it, and a \
         query for a pad's appends walks the journal anyway; PostgreSQL's holds every entry",
    ),
    (
        "index journal_rare_kinds on journal (kind, seq): only in SQLite",
        "SQLite's walk of the journal for a rare kind (gc runs, signing keys) is answered from \
         it (schema 11); PostgreSQL's planner has not been measured to need it",
    ),
    (
        "column blobs.data: NOT NULL only in PostgreSQL",
        "SQLite keeps a large blob's bytes in objects/ and its data NULL; PostgreSQL keeps every \
         blob in its row",
    ),
    (
        "index payment_receipts_pad on payment_receipts (pad_id): only in PostgreSQL",
        "the same index as SQLite's idx_payment_receipts_pad, under another name",
    ),
    (
        "index idx_payment_receipts_pad on payment_receipts (pad_id): only in SQLite",
        "see payment_receipts_pad",
    ),
    (
        "index artifact_versions_blob on artifact_versions (blob): only in PostgreSQL",
        "speeds up finding unreferenced blobs on PostgreSQL; SQLite never had it, and adding it \
         there takes a migration of its own",
    ),
];

/// A column as both stores can describe it.
#[derive(Debug, PartialEq, Eq)]
struct Column {
    /// `integer`, `text` or `bytes`.
    ty: &'static str,
    not_null: bool,
    default: Option<String>,
}

#[derive(Debug, PartialEq, Eq)]
struct Index {
    columns: Vec<String>,
    unique: bool,
    partial: bool,
}

#[derive(Debug, Default)]
struct Table {
    columns: BTreeMap<String, Column>,
    primary_key: Vec<String>,
    /// Unique constraints other than the primary key.
    uniques: BTreeSet<Vec<String>>,
    /// Indexes made with CREATE INDEX, by name.
    indexes: BTreeMap<String, Index>,
    /// (columns, referenced table, referenced columns).
    foreign_keys: BTreeSet<(Vec<String>, String, Vec<String>)>,
}

type Schema = BTreeMap<String, Table>;

/// A column type, as the two stores' types correspond.
fn type_class(declared: &str) -> &'static str {
    match declared.to_ascii_lowercase().as_str() {
        "integer" | "bigint" => "integer",
        "text" => "text",
        "blob" | "bytea" => "bytes",
        other => panic!("no correspondence for the column type `{other}`: add it here"),
    }
}

fn sqlite_schema(db: &std::path::Path) -> Schema {
    let conn =
        rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .expect("the database opens");
    let strings = |sql: &str| -> Vec<String> {
        let mut stmt = conn.prepare(sql).unwrap();
        stmt.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
    };
    let mut schema = Schema::new();
    let tables = strings(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' \
         ORDER BY name",
    );
    for name in tables {
        let mut t = Table::default();
        let mut pk: Vec<(i64, String)> = Vec::new();
        let mut stmt = conn.prepare(&format!("PRAGMA table_info(\"{name}\")")).unwrap();
        let cols = stmt
            .query_map([], |r| {
                let col: String = r.get(1)?;
                let ty: String = r.get(2)?;
                let not_null: bool = r.get(3)?;
                let default: Option<String> = r.get(4)?;
                let pk: i64 = r.get(5)?;
                Ok((col, ty, not_null, default, pk))
            })
            .unwrap();
        for c in cols {
            let (col, ty, not_null, default, key) = c.unwrap();
            if key > 0 {
                pk.push((key, col.clone()));
            }
            // SQLite lets a primary key column other than an INTEGER one hold NULL (a documented
            // legacy quirk); locker never stores one, and NOT NULL, as PostgreSQL implies it,
            // is what the schema means.
            let not_null = not_null || key > 0;
            t.columns.insert(col, Column { ty: type_class(&ty), not_null, default });
        }
        pk.sort();
        t.primary_key = pk.into_iter().map(|(_, c)| c).collect();
        let mut stmt = conn.prepare(&format!("PRAGMA index_list(\"{name}\")")).unwrap();
        let indexes: Vec<(String, bool, String, bool)> = stmt
            .query_map([], |r| Ok((r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        for (index, unique, origin, partial) in indexes {
            let mut stmt = conn.prepare(&format!("PRAGMA index_info(\"{index}\")")).unwrap();
            let mut cols: Vec<(i64, String)> = stmt
                .query_map([], |r| Ok((r.get(0)?, r.get(2)?)))
                .unwrap()
                .map(Result::unwrap)
                .collect();
            cols.sort();
            let columns: Vec<String> = cols.into_iter().map(|(_, c)| c).collect();
            match origin.as_str() {
                // The primary key's own index: `primary_key` already says it.
                "pk" => {}
                "u" => {
                    t.uniques.insert(columns);
                }
                _ => {
                    t.indexes.insert(index, Index { columns, unique, partial });
                }
            }
        }
        let mut stmt = conn.prepare(&format!("PRAGMA foreign_key_list(\"{name}\")")).unwrap();
        let refs: Vec<(i64, i64, String, String, String)> = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let mut fks: BTreeMap<i64, (Vec<String>, String, Vec<String>)> = BTreeMap::new();
        for (id, _seq, parent, from, to) in refs {
            let fk = fks.entry(id).or_insert_with(|| (Vec::new(), parent, Vec::new()));
            fk.0.push(from);
            fk.2.push(to);
        }
        t.foreign_keys = fks.into_values().collect();
        schema.insert(name, t);
    }
    schema
}

fn pg_schema(url: &str) -> Schema {
    let mut c = postgres::Client::connect(url, postgres::NoTls).expect("PostgreSQL answers");
    let mut schema = Schema::new();
    for r in c
        .query(
            "SELECT table_name::TEXT FROM information_schema.tables \
             WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
            &[],
        )
        .unwrap()
    {
        schema.insert(r.get(0), Table::default());
    }
    for r in c
        .query(
            "SELECT table_name::TEXT, column_name::TEXT, data_type::TEXT, is_nullable::TEXT, \
             column_default::TEXT FROM information_schema.columns \
             WHERE table_schema = current_schema()",
            &[],
        )
        .unwrap()
    {
        let table: String = r.get(0);
        let ty: String = r.get(2);
        let nullable: String = r.get(3);
        let column = Column { ty: type_class(&ty), not_null: nullable == "NO", default: r.get(4) };
        schema.get_mut(&table).expect("a column of a table").columns.insert(r.get(1), column);
    }
    // Every index with its columns in order; `constraint` is `p` (primary key) or `u` (unique)
    // when it backs a constraint.
    for r in c
        .query(
            "SELECT t.relname::TEXT, i.relname::TEXT, ix.indisunique, ix.indpred IS NOT NULL, \
             ARRAY(SELECT a.attname::TEXT FROM unnest(ix.indkey) WITH ORDINALITY AS k(num, ord) \
                   JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.num \
                   ORDER BY k.ord), \
             (SELECT con.contype::TEXT FROM pg_constraint con \
              WHERE con.conindid = ix.indexrelid AND con.contype IN ('p', 'u')) \
             FROM pg_index ix JOIN pg_class t ON t.oid = ix.indrelid \
             JOIN pg_class i ON i.oid = ix.indexrelid \
             WHERE t.relnamespace = \
             (SELECT oid FROM pg_namespace WHERE nspname = current_schema())",
            &[],
        )
        .unwrap()
    {
        let table: String = r.get(0);
        let t = schema.get_mut(&table).expect("an index of a table");
        let columns: Vec<String> = r.get(4);
        match r.get::<_, Option<String>>(5).as_deref() {
            Some("p") => t.primary_key = columns,
            Some(_) => {
                t.uniques.insert(columns);
            }
            None => {
                let index = Index { columns, unique: r.get(2), partial: r.get(3) };
                t.indexes.insert(r.get(1), index);
            }
        }
    }
    for r in c
        .query(
            "SELECT t.relname::TEXT, p.relname::TEXT, \
             ARRAY(SELECT a.attname::TEXT FROM unnest(con.conkey) WITH ORDINALITY AS k(num, ord) \
                   JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.num \
                   ORDER BY k.ord), \
             ARRAY(SELECT a.attname::TEXT FROM unnest(con.confkey) WITH ORDINALITY AS k(num, ord) \
                   JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.num \
                   ORDER BY k.ord) \
             FROM pg_constraint con JOIN pg_class t ON t.oid = con.conrelid \
             JOIN pg_class p ON p.oid = con.confrelid \
             WHERE con.contype = 'f' AND t.relnamespace = \
             (SELECT oid FROM pg_namespace WHERE nspname = current_schema())",
            &[],
        )
        .unwrap()
    {
        let table: String = r.get(0);
        let t = schema.get_mut(&table).expect("a foreign key of a table");
        t.foreign_keys.insert((r.get(2), r.get(1), r.get(3)));
    }
    schema
}

const LITE: &str = "SQLite";
const PG: &str = "PostgreSQL";

/// Every difference between the two schemas, one line each.
fn differences(lite: &Schema, pg: &Schema) -> Vec<String> {
    let mut out = Vec::new();
    let only = |a: bool| if a { LITE } else { PG };
    for name in lite.keys().chain(pg.keys()).collect::<BTreeSet<_>>() {
        let (Some(l), Some(p)) = (lite.get(name), pg.get(name)) else {
            out.push(format!("table {name}: only in {}", only(lite.contains_key(name))));
            continue;
        };
        for col in l.columns.keys().chain(p.columns.keys()).collect::<BTreeSet<_>>() {
            let (Some(a), Some(b)) = (l.columns.get(col), p.columns.get(col)) else {
                out.push(format!(
                    "column {name}.{col}: only in {}",
                    only(l.columns.contains_key(col))
                ));
                continue;
            };
            if a.ty != b.ty {
                out.push(format!("column {name}.{col}: {} in {LITE}, {} in {PG}", a.ty, b.ty));
            }
            if a.not_null != b.not_null {
                out.push(format!("column {name}.{col}: NOT NULL only in {}", only(a.not_null)));
            }
            if a.default != b.default {
                out.push(format!(
                    "column {name}.{col}: default {:?} in {LITE}, {:?} in {PG}",
                    a.default, b.default
                ));
            }
        }
        if l.primary_key != p.primary_key {
            out.push(format!(
                "primary key of {name}: ({}) in {LITE}, ({}) in {PG}",
                l.primary_key.join(", "),
                p.primary_key.join(", ")
            ));
        }
        for u in l.uniques.symmetric_difference(&p.uniques) {
            out.push(format!(
                "unique ({}) on {name}: only in {}",
                u.join(", "),
                only(l.uniques.contains(u))
            ));
        }
        for index in l.indexes.keys().chain(p.indexes.keys()).collect::<BTreeSet<_>>() {
            match (l.indexes.get(index), p.indexes.get(index)) {
                (Some(a), Some(b)) if a != b => {
                    out.push(format!("index {index} on {name}: {a:?} in {LITE}, {b:?} in {PG}"));
                }
                (Some(_), Some(_)) => {}
                (a, b) => {
                    let i = a.or(b).expect("on one side at least");
                    out.push(format!(
                        "index {index} on {name} ({}): only in {}",
                        i.columns.join(", "),
                        only(a.is_some())
                    ));
                }
            }
        }
        for fk in l.foreign_keys.symmetric_difference(&p.foreign_keys) {
            out.push(format!(
                "foreign key {name} ({}) -> {} ({}): only in {}",
                fk.0.join(", "),
                fk.1,
                fk.2.join(", "),
                only(l.foreign_keys.contains(fk))
            ));
        }
    }
    out
}

#[test]
#[allow(clippy::print_stderr)]
fn test_store_schemas_agree_after_every_migration() {
    if !common::on_postgres() {
        eprintln!(
            "skipped: the schema drift test needs LOCKER_TEST_STORE (scripts/test-postgres.sh)"
        );
        return;
    }
    // A SQLite repository: `locker init` without `--store`, whatever the suite runs on.
    let lite_env = TestEnv::new();
    lite_env.locker().arg("init").assert().success();
    let lite = sqlite_schema(&lite_env.db_path());
    let pg_env = TestEnv::init();
    let pg = pg_schema(pg_env.pg.as_deref().expect("a PostgreSQL repository"));
    assert!(lite.contains_key("journal") && pg.contains_key("journal"), "schemas were read");

    let found = differences(&lite, &pg);
    let unexpected: Vec<&String> =
        found.iter().filter(|d| !INTENDED.iter().any(|(i, _)| i == d)).collect();
    assert!(
        unexpected.is_empty(),
        "the SQLite and PostgreSQL schemas drifted apart (or add an intended difference to \
         INTENDED, with why):\n{}",
        unexpected.iter().map(|d| format!("  {d}")).collect::<Vec<_>>().join("\n")
    );
    let gone: Vec<&str> =
        INTENDED.iter().map(|(i, _)| *i).filter(|i| !found.iter().any(|d| d == i)).collect();
    assert!(gone.is_empty(), "intended differences that no longer occur: {gone:?}");
}
