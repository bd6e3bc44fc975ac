//! Reading SQLite result rows: the shared mappers of [`crate::store::sql`], through rusqlite's
//! column accessors and with its errors.

use rusqlite::types::{Type, ValueRef};
use rusqlite::Row;

use crate::domain::digest::Digest;
use crate::store::rows::{
    AgentKeyRow, AgentRow, ArtifactHeadRow, ArtifactVersionRow, BlobRow, BlobStorage, BlockRef,
    BlockRow, CheckpointRow, JournalHead, JournalRow, LeaseRow, PadRow, PaymentRow, PlanRow,
    ReceiptRow, SignerRow, StepRow, TicketRow,
};
use crate::store::sql::{self, Columns};
use crate::store::{objects, StoreError};

impl Columns for Row<'_> {
    type Error = rusqlite::Error;

    fn text(&self, idx: usize) -> rusqlite::Result<String> {
        self.get(idx)
    }

    fn opt_text(&self, idx: usize) -> rusqlite::Result<Option<String>> {
        self.get(idx)
    }

    fn int(&self, idx: usize) -> rusqlite::Result<i64> {
        self.get(idx)
    }

    fn opt_int(&self, idx: usize) -> rusqlite::Result<Option<i64>> {
        self.get(idx)
    }

    fn uint(&self, idx: usize) -> rusqlite::Result<u64> {
        let v: i64 = self.get(idx)?;
        u64::try_from(v)
            .map_err(|e| rusqlite::Error::FromSqlConversionFailure(idx, Type::Integer, Box::new(e)))
    }

    fn u32(&self, idx: usize, _name: &str) -> rusqlite::Result<u32> {
        self.get(idx)
    }

    fn bytes(&self, idx: usize) -> rusqlite::Result<Vec<u8>> {
        self.get(idx)
    }

    fn digest(&self, idx: usize) -> rusqlite::Result<Digest> {
        // Read in place, not copied into a `String` first.
        match self.get_ref(idx)? {
            ValueRef::Text(hex) => Digest::parse_bytes(hex).map_err(|e| {
                rusqlite::Error::FromSqlConversionFailure(idx, Type::Text, Box::new(e))
            }),
            other => Err(invalid_type(self, idx, other)),
        }
    }

    fn chain_hash(&self, idx: usize) -> rusqlite::Result<Digest> {
        let b = blob_ref(self, idx)?;
        <[u8; 32]>::try_from(b).map(Digest).map_err(|_| {
            let why = format!("{} bytes, where a hash has 32", b.len());
            rusqlite::Error::FromSqlConversionFailure(idx, Type::Blob, why.into())
        })
    }

    fn unknown(&self, idx: usize, what: &str, _value: &str) -> rusqlite::Error {
        bad_value(idx, what)
    }
}

fn bad_value(idx: usize, what: &str) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(idx, Type::Text, format!("unknown {what}").into())
}

/// A row `sql` returned that a mapper could not read (`e`), as the store's error: which table,
/// the row's first columns when they name it (a pad's id and a block's number, an entry's
/// number), and what the column at fault holds. Any other error is mapped as usual.
pub(super) fn unreadable(sql: &str, row: &Row<'_>, e: rusqlite::Error) -> StoreError {
    use rusqlite::Error as E;
    let stmt = row.as_ref();
    let name = |idx: usize| stmt.column_name(idx).unwrap_or("?");
    let (at, what) = match &e {
        E::InvalidColumnType(idx, col, ty) => (
            *idx,
            format!(
                "its `{col}` column holds {}, which locker never writes there",
                with_article(*ty)
            ),
        ),
        E::FromSqlConversionFailure(idx, ty, why) => {
            (*idx, format!("its `{}` column holds {}: {why}", name(*idx), with_article(*ty)))
        }
        E::IntegralValueOutOfRange(idx, n) => {
            (*idx, format!("its `{}` column holds {n}, out of range", name(*idx)))
        }
        E::Utf8Error(idx, _) => (*idx, format!("its `{}` column is not UTF-8 text", name(*idx))),
        _ => return super::error::map_err(e),
    };
    // The first column when it is a number or a short text (an id, a digest), and the second
    // when it is a number (a block's within its pad).
    let named: Vec<String> = (0..stmt.column_count().min(2))
        .filter(|&i| i != at)
        .filter_map(|i| match row.get_ref(i).ok()? {
            ValueRef::Integer(n) => Some(format!("{} {n}", name(i))),
            ValueRef::Text(t) if i == 0 && t.len() <= 64 => {
                std::str::from_utf8(t).ok().map(|t| format!("{} {t}", name(i)))
            }
            _ => None,
        })
        .collect();
    let table = table_of(sql);
    let row = if named.is_empty() {
        format!("a row of `{table}`")
    } else {
        format!("the `{table}` row with {}", named.join(" and "))
    };
    StoreError::Unreadable(format!("{row}: {what}"))
}

/// The table a query reads its rows from: the first `FROM name` outside parentheses (a
/// subquery's or a common table's is not the row's table), for messages.
fn table_of(sql: &str) -> &str {
    let mut depth = 0i32;
    for (i, c) in sql.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ' ' if depth == 0 && sql[i..].starts_with(" FROM ") => {
                let rest = sql[i + 6..].trim_start();
                let end = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                return &rest[..end];
            }
            _ => {}
        }
    }
    "?"
}

/// A storage class with its article, as a message says it.
fn with_article(ty: Type) -> &'static str {
    match ty {
        Type::Null => "NULL",
        Type::Integer => "an integer",
        Type::Real => "a real number",
        Type::Text => "text",
        Type::Blob => "a blob",
    }
}

// rusqlite takes mappers for every row lifetime: these pin the shared ones to `Row<'_>`.

pub(super) fn pad_row(r: &Row<'_>) -> rusqlite::Result<PadRow> {
    sql::pad_row(r)
}

pub(super) fn block_row(r: &Row<'_>) -> rusqlite::Result<BlockRow> {
    sql::block_row(r)
}

/// A block lent out of its row: what [`block_row`] reads, with the text and the payload
/// borrowed.
pub(super) fn block_ref<'r>(r: &'r Row<'_>) -> rusqlite::Result<BlockRef<'r>> {
    Ok(BlockRef {
        pad_id: text_ref(r, 0)?,
        seq: r.uint(1)?,
        prev_hash: r.chain_hash(2)?,
        curr_hash: r.chain_hash(3)?,
        content_type: text_ref(r, 4)?,
        payload: blob_ref(r, 5)?,
        created_at: r.int(6)?,
        pruned_bytes: r.opt_int(7)?.map(|n| u64::try_from(n).unwrap_or(u64::MAX)),
    })
}

pub(super) fn ticket_row(r: &Row<'_>) -> rusqlite::Result<TicketRow> {
    sql::ticket_row(r)
}

pub(super) fn journal_row(r: &Row<'_>) -> rusqlite::Result<JournalRow> {
    sql::journal_row(r)
}

/// [`journal_row`] into `out`, whose text and bytes keep their buffers (a walk of the whole
/// journal fills one row again and again); refuses what `journal_row` refuses, as it does.
pub(super) fn fill_journal_row(r: &Row<'_>, out: &mut JournalRow) -> rusqlite::Result<()> {
    out.seq = r.uint(0)?;
    out.prev_hash = r.chain_hash(1)?;
    out.hash = r.chain_hash(2)?;
    out.entry.clear();
    out.entry.extend_from_slice(blob_ref(r, 3)?);
    out.time = r.int(4)?;
    for (idx, text) in
        [(5, &mut out.kind), (6, &mut out.actor), (7, &mut out.scope), (8, &mut out.subject)]
    {
        text.clear();
        text.push_str(text_ref(r, idx)?);
    }
    Ok(())
}

/// Column `idx`'s text, borrowed from the row; refused as reading it into a `String` refuses
/// it (another storage class is named, text that is not UTF-8 is a conversion failure).
fn text_ref<'r>(r: &'r Row<'_>, idx: usize) -> rusqlite::Result<&'r str> {
    match r.get_ref(idx)? {
        ValueRef::Text(t) => std::str::from_utf8(t)
            .map_err(|e| rusqlite::Error::FromSqlConversionFailure(idx, Type::Text, Box::new(e))),
        other => Err(invalid_type(r, idx, other)),
    }
}

/// Column `idx`'s bytes, borrowed from the row; another storage class is named.
fn blob_ref<'r>(r: &'r Row<'_>, idx: usize) -> rusqlite::Result<&'r [u8]> {
    match r.get_ref(idx)? {
        ValueRef::Blob(b) => Ok(b),
        other => Err(invalid_type(r, idx, other)),
    }
}

/// What rusqlite says of column `idx` holding a value of another type than the one read.
fn invalid_type(r: &Row<'_>, idx: usize, v: ValueRef<'_>) -> rusqlite::Error {
    let name = r.as_ref().column_name(idx).unwrap_or("?").to_owned();
    rusqlite::Error::InvalidColumnType(idx, name, v.data_type())
}

pub(super) fn journal_head_row(r: &Row<'_>) -> rusqlite::Result<JournalHead> {
    sql::journal_head_row(r)
}

pub(super) fn checkpoint_row(r: &Row<'_>) -> rusqlite::Result<CheckpointRow> {
    sql::checkpoint_row(r)
}

pub(super) fn signer_row(r: &Row<'_>) -> rusqlite::Result<SignerRow> {
    sql::signer_row(r)
}

pub(super) fn agent_row(r: &Row<'_>) -> rusqlite::Result<AgentRow> {
    sql::agent_row(r)
}

pub(super) fn agent_key_row(r: &Row<'_>) -> rusqlite::Result<AgentKeyRow> {
    sql::agent_key_row(r)
}

pub(super) fn setting_row(r: &Row<'_>) -> rusqlite::Result<(String, String)> {
    sql::setting_row(r)
}

pub(super) fn version_row(r: &Row<'_>) -> rusqlite::Result<ArtifactVersionRow> {
    sql::version_row(r)
}

pub(super) fn head_row(r: &Row<'_>) -> rusqlite::Result<ArtifactHeadRow> {
    sql::head_row(r)
}

pub(super) fn receipt_row(r: &Row<'_>) -> rusqlite::Result<ReceiptRow> {
    sql::receipt_row(r)
}

pub(super) fn payment_row(r: &Row<'_>) -> rusqlite::Result<PaymentRow> {
    sql::payment_row(r)
}

pub(super) fn lease_row(r: &Row<'_>) -> rusqlite::Result<LeaseRow> {
    sql::lease_row(r)
}

pub(super) fn plan_row(r: &Row<'_>) -> rusqlite::Result<PlanRow> {
    sql::plan_row(r)
}

pub(super) fn step_row(r: &Row<'_>) -> rusqlite::Result<StepRow> {
    sql::step_row(r)
}

/// A blob row ([`sql::BLOB_COLS`]): inline in the database, or a file in `objects/`.
pub(super) fn blob_row(r: &Row<'_>) -> rusqlite::Result<BlobRow> {
    let digest = r.digest(0)?;
    let storage: String = r.get(2)?;
    let (storage, location) = match storage.as_str() {
        "inline" => (BlobStorage::Inline, "inline".to_owned()),
        "file" => (BlobStorage::File, objects::display(&digest)),
        _ => return Err(bad_value(2, "blob storage")),
    };
    Ok(BlobRow { digest, size: r.uint(1)?, storage, location, created_at: r.get(3)? })
}
