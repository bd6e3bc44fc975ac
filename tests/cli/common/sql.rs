//! Tampering with a repository's store behind locker's back, whichever store it is: the
//! handful of `rusqlite::Connection` methods the tests use, run on the SQLite file as they are,
//! or translated for PostgreSQL (placeholders become literals; `CAST(x AS BLOB)`, `X'…'` and
//! `CAST(bytes AS TEXT)` become their PostgreSQL forms). Like a plain SQLite connection, which
//! does not enforce foreign keys, the PostgreSQL session does not either
//! (`session_replication_role = replica`).

use std::cell::RefCell;

use rusqlite::types::{FromSql, Value, ValueRef};
use rusqlite::ToSql;

/// A connection to a test repository's store.
pub enum Db {
    Lite(rusqlite::Connection),
    Pg(RefCell<postgres::Client>),
}

/// Parameters, as rusqlite takes them: `[]`, `[a, b]`, `[&a]`, `rusqlite::params![…]`.
pub trait Args {
    fn values(&self) -> Vec<Value>;
}

fn value_of(v: &dyn ToSql) -> Value {
    match v.to_sql() {
        Ok(rusqlite::types::ToSqlOutput::Borrowed(r)) => match r {
            ValueRef::Null => Value::Null,
            ValueRef::Integer(i) => Value::Integer(i),
            ValueRef::Real(f) => Value::Real(f),
            ValueRef::Text(t) => Value::Text(String::from_utf8_lossy(t).into_owned()),
            ValueRef::Blob(b) => Value::Blob(b.to_vec()),
        },
        Ok(rusqlite::types::ToSqlOutput::Owned(v)) => v,
        _ => Value::Null,
    }
}

impl Args for [&(dyn ToSql + Send + Sync); 0] {
    fn values(&self) -> Vec<Value> {
        Vec::new()
    }
}

impl Args for &[&dyn ToSql] {
    fn values(&self) -> Vec<Value> {
        self.iter().map(|v| value_of(*v)).collect()
    }
}

macro_rules! args_for_arrays {
    ($($n:literal)+) => {$(
        impl<T: ToSql> Args for [T; $n] {
            fn values(&self) -> Vec<Value> {
                self.iter().map(|v| value_of(v)).collect()
            }
        }
        impl<T: ToSql> Args for &[&T; $n] {
            fn values(&self) -> Vec<Value> {
                self.iter().map(|v| value_of(*v)).collect()
            }
        }
    )+};
}
args_for_arrays!(1 2 3 4 5 6 7 8);

/// One row, its columns as SQLite values.
pub struct Row(Vec<Value>);

/// A column index (only numbers: the tests never name columns).
pub trait Idx {
    fn idx(self) -> usize;
}
impl Idx for usize {
    fn idx(self) -> usize {
        self
    }
}

impl Row {
    pub fn get<I: Idx, T: FromSql>(&self, i: I) -> rusqlite::Result<T> {
        let i = i.idx();
        let v = self.0.get(i).ok_or(rusqlite::Error::InvalidColumnIndex(i))?;
        T::column_result(ValueRef::from(v))
            .map_err(|e| rusqlite::Error::FromSqlConversionFailure(i, v.data_type(), Box::new(e)))
    }
}

fn pg_err(e: impl std::error::Error + Send + Sync + 'static) -> rusqlite::Error {
    rusqlite::Error::ToSqlConversionFailure(Box::new(e))
}

fn lite_row(r: &rusqlite::Row<'_>, n: usize) -> rusqlite::Result<Row> {
    (0..n).map(|i| r.get::<_, Value>(i)).collect::<rusqlite::Result<_>>().map(Row)
}

fn pg_row(r: &postgres::Row) -> rusqlite::Result<Row> {
    use postgres::types::Type;
    let mut out = Vec::new();
    for (i, c) in r.columns().iter().enumerate() {
        let t = c.type_();
        let v = if *t == Type::INT8 {
            r.try_get::<_, Option<i64>>(i).map_err(pg_err)?.map(Value::Integer)
        } else if *t == Type::INT4 {
            r.try_get::<_, Option<i32>>(i).map_err(pg_err)?.map(|v| Value::Integer(v.into()))
        } else if *t == Type::INT2 {
            r.try_get::<_, Option<i16>>(i).map_err(pg_err)?.map(|v| Value::Integer(v.into()))
        } else if *t == Type::BOOL {
            r.try_get::<_, Option<bool>>(i).map_err(pg_err)?.map(|v| Value::Integer(v.into()))
        } else if *t == Type::FLOAT8 {
            r.try_get::<_, Option<f64>>(i).map_err(pg_err)?.map(Value::Real)
        } else if *t == Type::BYTEA {
            r.try_get::<_, Option<Vec<u8>>>(i).map_err(pg_err)?.map(Value::Blob)
        } else {
            r.try_get::<_, Option<String>>(i).map_err(pg_err)?.map(Value::Text)
        };
        out.push(v.unwrap_or(Value::Null));
    }
    Ok(Row(out))
}

fn literal(v: &Value) -> String {
    match v {
        Value::Null => "NULL".into(),
        Value::Integer(i) => i.to_string(),
        Value::Real(f) => f.to_string(),
        Value::Text(s) => format!("'{}'", s.replace('\'', "''")),
        Value::Blob(b) => {
            let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
            format!("'\\x{hex}'::BYTEA")
        }
    }
}

/// The index of the parenthesis closing the one at `open`.
fn closing(s: &[u8], open: usize) -> Option<usize> {
    let (mut depth, mut i, mut quoted) = (0i32, open, false);
    while i < s.len() {
        match s[i] {
            b'\'' => quoted = !quoted,
            b'(' if !quoted => depth += 1,
            b')' if !quoted => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Rewrites `CAST(x AS BLOB)` and `CAST(x AS TEXT)`, innermost first (the last `CAST(` of a
/// statement has no other inside it); other casts stay.
fn casts(sql: &str) -> String {
    let mut s = sql.to_owned();
    while let Some(at) = s.to_ascii_uppercase().rfind("CAST(") {
        let open = at + 4;
        let Some(close) = closing(s.as_bytes(), open) else { break };
        let inner = s[open + 1..close].to_owned();
        let iu = inner.to_ascii_uppercase();
        let head = &inner[..inner.len().saturating_sub(8)];
        let replaced = if iu.ends_with(" AS BLOB") {
            format!("convert_to({head}, 'UTF8')")
        } else if iu.ends_with(" AS TEXT") {
            format!("convert_from({head}, 'UTF8')")
        } else {
            format!("\u{1}({inner})")
        };
        s = format!("{}{replaced}{}", &s[..at], &s[close + 1..]);
    }
    s.replace('\u{1}', "CAST")
}

/// Unwraps every call `name(x)` to `x` (innermost first): SQLite's forms of the chain hashes,
/// which PostgreSQL keeps as hex text (`unhex(?1)` writes one, `lower(hex(col))` reads one).
fn unwrap_calls(sql: &str, name: &str) -> String {
    let mut s = sql.to_owned();
    let call = format!("{}(", name.to_ascii_uppercase());
    // `lower(hex(x))` is one call here: its two closing parentheses go together.
    let nested = name.matches('(').count();
    while let Some(at) = s.to_ascii_uppercase().rfind(&call) {
        let open = at + call.len() - 1;
        let Some(close) = closing(s.as_bytes(), open) else { break };
        let end = close + 1 + nested;
        assert_eq!(&s[close + 1..end], &")".repeat(nested), "{sql}");
        s = format!("{}{}{}", &s[..at], &s[open + 1..close], &s[end..]);
    }
    s
}

/// Translates a statement of the tests' SQLite dialect for PostgreSQL.
pub fn to_pg(sql: &str, args: &[Value]) -> String {
    // Placeholders: `?N` or `?` (in order), outside string literals.
    let mut out = String::new();
    let (mut quoted, mut next) = (false, 0usize);
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                quoted = !quoted;
                out.push(c);
            }
            '?' if !quoted => {
                let mut digits = String::new();
                while let Some(d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                    digits.push(*d);
                    chars.next();
                }
                let i = if digits.is_empty() {
                    next += 1;
                    next
                } else {
                    digits.parse().unwrap()
                };
                out.push_str(&literal(&args[i - 1]));
            }
            _ => out.push(c),
        }
    }
    // X'hex' blob literals.
    let re_blob = |s: &str| -> String {
        let mut r = String::new();
        let mut rest = s;
        while let Some(p) = rest.find("X'") {
            let before = &rest[..p];
            let prev_ok = before.chars().last().is_none_or(|c| !c.is_ascii_alphanumeric());
            let after = &rest[p + 2..];
            match after.find('\'') {
                Some(end) if prev_ok && after[..end].chars().all(|c| c.is_ascii_hexdigit()) => {
                    r.push_str(before);
                    r.push_str(&format!("'\\x{}'::BYTEA", &after[..end]));
                    rest = &after[end + 1..];
                }
                _ => {
                    r.push_str(&rest[..p + 2]);
                    rest = after;
                }
            }
        }
        r.push_str(rest);
        r
    };
    let out = re_blob(&out);
    let out = casts(&out);
    let out = unwrap_calls(&unwrap_calls(&out, "lower(hex"), "unhex");
    // PRAGMA foreign_keys: the session enforces none anyway.
    out.split(';')
        .filter(|st| !st.trim().to_ascii_uppercase().starts_with("PRAGMA FOREIGN_KEYS"))
        .collect::<Vec<_>>()
        .join(";")
}

impl Db {
    /// The SQLite connection itself (for a test that needs more than these methods).
    pub fn lite(&self) -> &rusqlite::Connection {
        match self {
            Self::Lite(c) => c,
            Self::Pg(_) => panic!("a SQLite-only test ran on PostgreSQL"),
        }
    }

    /// Connects to a PostgreSQL test database.
    pub fn pg(url: &str) -> Self {
        let mut c = postgres::Client::connect(url, postgres::NoTls).expect("connects");
        c.batch_execute("SET session_replication_role = replica").expect("a superuser session");
        Self::Pg(RefCell::new(c))
    }

    /// Deletes the journal's stored Merkle hashes beyond its first `keep` leaves (all of them
    /// with 0), as a repository made before the tree, or an older copy of it, would lack them:
    /// the `merkle_hashes` rows on PostgreSQL, the journal rows' `merkle` column on SQLite.
    pub fn drop_merkle_after(&self, keep: u64) {
        let keep_i = i64::try_from(keep).unwrap();
        match self {
            Self::Lite(c) => {
                c.execute("UPDATE journal SET merkle = NULL WHERE seq > ?1", [keep_i]).unwrap();
            }
            Self::Pg(_) => {
                let from = locker::domain::merkle::stored_count(keep);
                self.execute("DELETE FROM merkle_hashes WHERE idx >= ?1", [from as i64]).unwrap();
            }
        }
    }

    /// Deletes the whole stored Merkle tree ([`Db::drop_merkle_after`] 0).
    pub fn drop_merkle(&self) {
        self.drop_merkle_after(0);
    }

    /// Whether the store keeps the journal head in a row of its own (PostgreSQL's
    /// `journal_head`; SQLite's head is its last entry since schema 10).
    pub fn keeps_head_row(&self) -> bool {
        matches!(self, Self::Pg(_))
    }

    /// Moves the journal head record to the journal's last entry, as a tamperer who deleted
    /// entries at the end would: PostgreSQL keeps the head in a row of its own; SQLite's head is
    /// its last entry (schema 10), so there is nothing to move.
    pub fn move_head_to_last(&self) {
        if let Self::Pg(_) = self {
            self.execute_batch(
                "UPDATE journal_head SET seq = j.seq, hash = j.hash FROM \
                 (SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1) j WHERE id = 1",
            )
            .unwrap();
        }
    }

    /// A hash of the journal's chain or of a pad's (`prev_hash`, `hash`, `curr_hash`) as the
    /// store keeps it: on SQLite its 32 bytes (schema 13) when `hex` is 64 lowercase hex
    /// characters, on PostgreSQL the hex; any other text as it is (a tamperer's garbage).
    fn chain_hash(&self, hex: &str) -> Value {
        match (self, locker::domain::digest::Digest::parse(hex)) {
            (Self::Lite(_), Ok(d)) => Value::Blob(d.0.to_vec()),
            _ => Value::Text(hex.to_owned()),
        }
    }

    /// Whether the store keeps a pad's block count, byte count and head in the pad's row
    /// (PostgreSQL). SQLite reads them from the pad's last block since schema 12: its
    /// `seq + 1`, its `total_bytes` and its `curr_hash`.
    pub fn keeps_pad_heads(&self) -> bool {
        matches!(self, Self::Pg(_))
    }

    /// Rewrites a pad's recorded byte count and head, as a tamperer covering a change to its
    /// blocks would: the pad's row on PostgreSQL, its last block's `total_bytes` and
    /// `curr_hash` on SQLite (see [`Db::keeps_pad_heads`]).
    pub fn set_pad_accounting(&self, pad: &str, bytes: Option<i64>, head: Option<&str>) {
        let (table, bytes_col, head_col, key) = if self.keeps_pad_heads() {
            ("pads", "current_bytes", "head_hash", "id = ?1")
        } else {
            (
                "blocks",
                "total_bytes",
                "curr_hash",
                "pad_id = ?1 AND seq = (SELECT MAX(seq) FROM blocks WHERE pad_id = ?1)",
            )
        };
        let sql = format!(
            "UPDATE {table} SET {bytes_col} = COALESCE(?2, {bytes_col}), \
             {head_col} = COALESCE(?3, {head_col}) WHERE {key}"
        );
        let head = head.map(|h| self.chain_hash(h));
        let n = self.execute(&sql, rusqlite::params![pad, bytes, head]).unwrap();
        assert_eq!(n, 1, "pad {pad} has no record to rewrite");
    }

    /// Overwrites the Merkle hash stored at position `idx` (in Go tlog's stored-hash order).
    pub fn set_merkle_hash(&self, idx: u64, hash: [u8; 32]) {
        match self {
            Self::Lite(c) => {
                let (leaf, offset) = locker::domain::merkle::leaf_for_position(idx);
                let seq = i64::try_from(leaf + 1).unwrap();
                let mut blob: Vec<u8> = c
                    .query_row("SELECT merkle FROM journal WHERE seq = ?1", [seq], |r| r.get(0))
                    .unwrap();
                let at = usize::try_from(offset).unwrap() * 32;
                blob[at..at + 32].copy_from_slice(&hash);
                c.execute(
                    "UPDATE journal SET merkle = ?2 WHERE seq = ?1",
                    rusqlite::params![seq, blob],
                )
                .unwrap();
            }
            Self::Pg(_) => {
                let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
                let n = self
                    .execute(
                        "UPDATE merkle_hashes SET hash = ?1 WHERE idx = ?2",
                        rusqlite::params![hex, idx as i64],
                    )
                    .unwrap();
                assert_eq!(n, 1, "no Merkle hash at {idx}");
            }
        }
    }

    pub fn execute<A: Args>(&self, sql: &str, args: A) -> rusqlite::Result<usize> {
        match self {
            Self::Lite(c) => c.execute(sql, rusqlite::params_from_iter(args.values())),
            Self::Pg(c) => {
                let sql = to_pg(sql, &args.values());
                let n = c.borrow_mut().execute(sql.as_str(), &[]).map_err(pg_err)?;
                Ok(usize::try_from(n).unwrap_or(usize::MAX))
            }
        }
    }

    pub fn execute_batch(&self, sql: &str) -> rusqlite::Result<()> {
        match self {
            Self::Lite(c) => c.execute_batch(sql),
            Self::Pg(c) => c.borrow_mut().batch_execute(&to_pg(sql, &[])).map_err(pg_err),
        }
    }

    fn rows<A: Args>(&self, sql: &str, args: A) -> rusqlite::Result<Vec<Row>> {
        match self {
            Self::Lite(c) => {
                let mut stmt = c.prepare(sql)?;
                let n = stmt.column_count();
                let rows =
                    stmt.query_map(rusqlite::params_from_iter(args.values()), |r| lite_row(r, n))?;
                rows.collect()
            }
            Self::Pg(c) => {
                let sql = to_pg(sql, &args.values());
                let rows = c.borrow_mut().query(sql.as_str(), &[]).map_err(pg_err)?;
                rows.iter().map(pg_row).collect()
            }
        }
    }

    pub fn query_row<A: Args, T, F: FnOnce(&Row) -> rusqlite::Result<T>>(
        &self,
        sql: &str,
        args: A,
        f: F,
    ) -> rusqlite::Result<T> {
        let rows = self.rows(sql, args)?;
        let first = rows.into_iter().next().ok_or(rusqlite::Error::QueryReturnedNoRows)?;
        f(&first)
    }

    pub fn prepare(&self, sql: &str) -> rusqlite::Result<Stmt<'_>> {
        Ok(Stmt { db: self, sql: sql.to_owned() })
    }
}

/// A statement to run later ([`Db::prepare`]).
pub struct Stmt<'a> {
    db: &'a Db,
    sql: String,
}

impl Stmt<'_> {
    pub fn query_map<A: Args, T, F: FnMut(&Row) -> rusqlite::Result<T>>(
        &mut self,
        args: A,
        mut f: F,
    ) -> rusqlite::Result<std::vec::IntoIter<rusqlite::Result<T>>> {
        let rows = self.db.rows(&self.sql, args)?;
        Ok(rows.iter().map(&mut f).collect::<Vec<_>>().into_iter())
    }
}

#[test]
fn test_sql_translation_for_postgres() {
    let v = [Value::Integer(3), Value::Text("a'b".into()), Value::Blob(vec![1, 2])];
    assert_eq!(
        to_pg("UPDATE t SET a = CAST(?2 AS BLOB), b = ?3 WHERE seq = ?1", &v),
        "UPDATE t SET a = convert_to('a''b', 'UTF8'), b = '\\x0102'::BYTEA WHERE seq = 3"
    );
    assert_eq!(
        to_pg("UPDATE j SET entry = CAST(replace(CAST(entry AS TEXT), 'x', 'y') AS BLOB)", &[]),
        "UPDATE j SET entry = convert_to(replace(convert_from(entry, 'UTF8'), 'x', 'y'), 'UTF8')"
    );
    assert_eq!(
        to_pg("UPDATE b SET p = X'00', q = X''", &[]),
        "UPDATE b SET p = '\\x00'::BYTEA, q = '\\x'::BYTEA"
    );
    assert_eq!(to_pg("PRAGMA foreign_keys = OFF; DELETE FROM x", &[]), " DELETE FROM x");
}
