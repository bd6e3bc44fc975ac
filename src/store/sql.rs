//! What the SQL backends share: the column lists of every table and the mapping from a result
//! row to a row type. Each backend reads a column through [`Columns`] in its own way and with
//! its own errors, so a damaged row is reported as each backend always reported it.

use super::rows::{
    AgentKeyRow, AgentRow, ArtifactHeadRow, ArtifactVersionRow, BlockRow, CheckpointRow,
    JournalHead, JournalRow, LeaseRow, PadRow, PaymentRow, PlanRow, ReceiptRow, SignerRow, StepRow,
    TicketRow,
};
use crate::domain::digest::Digest;
use crate::domain::pad::{StoredState, TicketType};
use crate::domain::work::{Fence, LeaseState};

/// A result row's columns, by position.
pub(super) trait Columns {
    type Error;
    fn text(&self, idx: usize) -> Result<String, Self::Error>;
    fn opt_text(&self, idx: usize) -> Result<Option<String>, Self::Error>;
    fn int(&self, idx: usize) -> Result<i64, Self::Error>;
    fn opt_int(&self, idx: usize) -> Result<Option<i64>, Self::Error>;
    /// A non-negative integer.
    fn uint(&self, idx: usize) -> Result<u64, Self::Error>;
    /// An integer that fits a `u32`; `name` is the column's, for messages.
    fn u32(&self, idx: usize, name: &str) -> Result<u32, Self::Error>;
    fn bytes(&self, idx: usize) -> Result<Vec<u8>, Self::Error>;
    /// A digest stored as lowercase hex.
    fn digest(&self, idx: usize) -> Result<Digest, Self::Error>;
    /// A hash of the journal's chain or of a pad's (an entry's and its predecessor's, a
    /// block's and its predecessor's, a pad's head): its 32 bytes on SQLite (schema 13), hex
    /// on PostgreSQL.
    fn chain_hash(&self, idx: usize) -> Result<Digest, Self::Error>;
    /// The error for a text column holding a value that is not one of `what`'s.
    fn unknown(&self, idx: usize, what: &str, value: &str) -> Self::Error;
}

/// A `u64` as the signed 64-bit integer both backends store (saturating).
pub(super) fn sql_i64(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

pub(super) const PAD_COLS: &str = "id, scope, created_at, expires_at, max_blocks, max_bytes, \
     block_count, current_bytes, state, write_key_hash, head_hash, sealed_at, pruned_at";

pub(super) fn pad_row<R: Columns>(r: &R) -> Result<PadRow, R::Error> {
    let state = r.text(8)?;
    Ok(PadRow {
        id: r.text(0)?,
        scope: r.text(1)?,
        created_at: r.int(2)?,
        expires_at: r.int(3)?,
        max_blocks: r.u32(4, "max_blocks")?,
        max_bytes: r.uint(5)?,
        block_count: r.uint(6)?,
        current_bytes: r.uint(7)?,
        state: StoredState::parse(&state).ok_or_else(|| r.unknown(8, "pad state", &state))?,
        write_key_hash: r.digest(9)?,
        head_hash: r.chain_hash(10)?,
        sealed_at: r.opt_int(11)?,
        pruned_at: r.opt_int(12)?,
    })
}

/// [`BLOCK_COLS`] as a literal, for SQL put together with `concat!`.
macro_rules! block_cols {
    () => {
        "pad_id, seq, prev_hash, curr_hash, content_type, payload, created_at, pruned_bytes"
    };
}
pub(super) use block_cols;

pub(super) const BLOCK_COLS: &str = block_cols!();

pub(super) fn block_row<R: Columns>(r: &R) -> Result<BlockRow, R::Error> {
    Ok(BlockRow {
        pad_id: r.text(0)?,
        seq: r.uint(1)?,
        prev_hash: r.chain_hash(2)?,
        curr_hash: r.chain_hash(3)?,
        content_type: r.text(4)?,
        payload: r.bytes(5)?,
        created_at: r.int(6)?,
        pruned_bytes: r.opt_int(7)?.map(|n| u64::try_from(n).unwrap_or(u64::MAX)),
    })
}

pub(super) const TICKET_COLS: &str =
    "digest, pad_id, type, created_at, lease_started_at, revoked_at";

pub(super) fn ticket_row<R: Columns>(r: &R) -> Result<TicketRow, R::Error> {
    let t = r.text(2)?;
    Ok(TicketRow {
        digest: r.digest(0)?,
        pad_id: r.text(1)?,
        ticket_type: TicketType::parse(&t).ok_or_else(|| r.unknown(2, "ticket type", &t))?,
        created_at: r.int(3)?,
        lease_started_at: r.opt_int(4)?,
        revoked_at: r.opt_int(5)?,
    })
}

pub(super) const JOURNAL_COLS: &str =
    "seq, prev_hash, hash, entry, time, kind, actor, scope, subject";

pub(super) fn journal_row<R: Columns>(r: &R) -> Result<JournalRow, R::Error> {
    Ok(JournalRow {
        seq: r.uint(0)?,
        prev_hash: r.chain_hash(1)?,
        hash: r.chain_hash(2)?,
        entry: r.bytes(3)?,
        time: r.int(4)?,
        kind: r.text(5)?,
        actor: r.text(6)?,
        scope: r.text(7)?,
        subject: r.text(8)?,
    })
}

/// `seq, hash` of the journal's head row.
pub(super) fn journal_head_row<R: Columns>(r: &R) -> Result<JournalHead, R::Error> {
    Ok(JournalHead { seq: r.uint(0)?, hash: r.chain_hash(1)? })
}

/// `idx, hash` of a Merkle hash row.
pub(super) fn merkle_row<R: Columns>(r: &R) -> Result<(u64, Digest), R::Error> {
    Ok((r.uint(0)?, r.digest(1)?))
}

pub(super) const CHECKPOINT_COLS: &str = "size, root, note, signed_at";

pub(super) fn checkpoint_row<R: Columns>(r: &R) -> Result<CheckpointRow, R::Error> {
    Ok(CheckpointRow {
        size: r.uint(0)?,
        root: r.digest(1)?,
        note: r.text(2)?,
        signed_at: r.int(3)?,
    })
}

pub(super) const SIGNER_COLS: &str = "holder, fence, expires_at, vkey";

pub(super) fn signer_row<R: Columns>(r: &R) -> Result<SignerRow, R::Error> {
    Ok(SignerRow { holder: r.text(0)?, fence: r.uint(1)?, expires_at: r.int(2)?, vkey: r.text(3)? })
}

pub(super) const AGENT_COLS: &str = "name, scope, token_hash, created_at, revoked_at";

pub(super) fn agent_row<R: Columns>(r: &R) -> Result<AgentRow, R::Error> {
    Ok(AgentRow {
        name: r.text(0)?,
        scope: r.text(1)?,
        token_hash: r.digest(2)?,
        created_at: r.int(3)?,
        revoked_at: r.opt_int(4)?,
    })
}

pub(super) const AGENT_KEY_COLS: &str = "agent, key_id, vkey, created_at, revoked_at";

pub(super) fn agent_key_row<R: Columns>(r: &R) -> Result<AgentKeyRow, R::Error> {
    Ok(AgentKeyRow {
        agent: r.text(0)?,
        key_id: r.text(1)?,
        vkey: r.text(2)?,
        created_at: r.int(3)?,
        revoked_at: r.opt_int(4)?,
    })
}

/// `name, value` of a repository setting.
pub(super) fn setting_row<R: Columns>(r: &R) -> Result<(String, String), R::Error> {
    Ok((r.text(0)?, r.text(1)?))
}

/// `digest, size, storage, created_at`: each backend maps `storage` itself.
pub(super) const BLOB_COLS: &str = "digest, size, storage, created_at";

pub(super) const VERSION_COLS: &str = "scope, key, version, blob, size, actor, op_id, created_at";

pub(super) fn version_row<R: Columns>(r: &R) -> Result<ArtifactVersionRow, R::Error> {
    Ok(ArtifactVersionRow {
        scope: r.text(0)?,
        key: r.text(1)?,
        version: r.uint(2)?,
        blob: r.digest(3)?,
        size: r.uint(4)?,
        actor: r.text(5)?,
        op_id: r.text(6)?,
        created_at: r.int(7)?,
    })
}

/// `scope, key, version` of an artifact head.
pub(super) fn head_row<R: Columns>(r: &R) -> Result<ArtifactHeadRow, R::Error> {
    Ok(ArtifactHeadRow { scope: r.text(0)?, key: r.text(1)?, version: r.uint(2)? })
}

pub(super) const RECEIPT_COLS: &str =
    "actor, op_id, scope, key, expected_version, version, created_at, fence_work, fence_token";

pub(super) fn receipt_row<R: Columns>(r: &R) -> Result<ReceiptRow, R::Error> {
    Ok(ReceiptRow {
        actor: r.text(0)?,
        op_id: r.text(1)?,
        scope: r.text(2)?,
        key: r.text(3)?,
        expected_version: r.uint(4)?,
        version: r.uint(5)?,
        created_at: r.int(6)?,
        // A damaged half-fence reads as an impossible one (empty work or token 0), which
        // `verify` then reports instead of failing to read the row.
        fence: match (r.opt_text(7)?, r.opt_int(8)?) {
            (None, None) => None,
            (work, token) => Some(Fence {
                work: work.unwrap_or_default(),
                token: token.and_then(|t| u64::try_from(t).ok()).unwrap_or(0),
            }),
        },
    })
}

pub(super) const PAYMENT_COLS: &str = "tx_hash, pad_id, payer, amount_units, token, recipient, \
     chain_id, block_number, redeemed_at";

pub(super) fn payment_row<R: Columns>(r: &R) -> Result<PaymentRow, R::Error> {
    Ok(PaymentRow {
        tx_hash: r.text(0)?,
        pad_id: r.text(1)?,
        payer: r.text(2)?,
        amount_units: r.text(3)?,
        token: r.text(4)?,
        recipient: r.text(5)?,
        chain_id: r.uint(6)?,
        block_number: r.uint(7)?,
        redeemed_at: r.int(8)?,
    })
}

pub(super) const LEASE_COLS: &str = "id, scope, work, fence, holder, state, ttl, acquired_at, \
     expires_at, heartbeats, heartbeat_at, details, ended_at, result, pruned_at";

pub(super) fn lease_row<R: Columns>(r: &R) -> Result<LeaseRow, R::Error> {
    let state = r.text(5)?;
    Ok(LeaseRow {
        id: r.text(0)?,
        scope: r.text(1)?,
        work: r.text(2)?,
        fence: r.uint(3)?,
        holder: r.text(4)?,
        state: LeaseState::parse(&state).ok_or_else(|| r.unknown(5, "lease state", &state))?,
        ttl: r.int(6)?,
        acquired_at: r.int(7)?,
        expires_at: r.int(8)?,
        heartbeats: r.uint(9)?,
        heartbeat_at: r.opt_int(10)?,
        details: r.opt_text(11)?,
        ended_at: r.opt_int(12)?,
        result: r.opt_text(13)?,
        pruned_at: r.opt_int(14)?,
    })
}

pub(super) const PLAN_COLS: &str = "scope, work, version, lease_id, steps, committed_at, pruned_at";

pub(super) fn plan_row<R: Columns>(r: &R) -> Result<PlanRow, R::Error> {
    Ok(PlanRow {
        scope: r.text(0)?,
        work: r.text(1)?,
        version: r.uint(2)?,
        lease_id: r.text(3)?,
        steps_json: r.text(4)?,
        committed_at: r.int(5)?,
        pruned_at: r.opt_int(6)?,
    })
}

pub(super) const STEP_COLS: &str =
    "scope, work, lease_id, step, planned, executed, gate, recorded_at, pruned_at";

pub(super) fn step_row<R: Columns>(r: &R) -> Result<StepRow, R::Error> {
    Ok(StepRow {
        scope: r.text(0)?,
        work: r.text(1)?,
        lease_id: r.text(2)?,
        step: r.text(3)?,
        planned: r.opt_text(4)?,
        executed: r.opt_text(5)?,
        gate: r.text(6)?,
        recorded_at: r.int(7)?,
        pruned_at: r.opt_int(8)?,
    })
}

/// `v.digest, v.size, …`: a column list with every column qualified by a table alias.
pub(super) fn qualified(cols: &str, alias: &str) -> String {
    cols.split(", ").map(|c| format!("{alias}.{c}")).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_lists_qualify() {
        assert_eq!(qualified("a, b", "v"), "v.a, v.b");
        assert_eq!(qualified(BLOB_COLS, "b"), "b.digest, b.size, b.storage, b.created_at");
    }
}
