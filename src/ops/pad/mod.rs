//! Handoff pads: agent-locker 0.1.5's rules and check order, plus revocable tickets stored as
//! digests and an atomic deposit.

pub mod bundle;
pub mod integrity;
pub mod payment;

use base64::Engine as _;
use serde::{Deserialize, Serialize};

use crate::domain::chain::{self, ChainChecker};
use crate::domain::digest::Digest;
use crate::domain::envelope;
use crate::domain::event::{
    BlockRecord, PadAppend, PadCreate, PadDeposit, PadReadLease, PadSeal, PadTicket,
    PadTicketRevoke, Payment,
};
use crate::domain::limits::{
    PadLimits, MAX_BLOCK_BYTES, MAX_CONTENT_TYPE_BYTES, MAX_MAX_BLOCKS, MAX_PAD_BYTES,
    MAX_PAD_ID_BYTES, MAX_SLICE_BLOCKS, MAX_SLICE_BYTES,
};
use crate::domain::pad::{read_lease_over, PadState, StoredState, TicketType};
use crate::domain::secret::{random_id, Secret};
use crate::ops::log::journal;
use crate::ops::{Ctx, OpError, OpResult};
use crate::store::{BlockRow, Flow, PadRow, PaymentRow, TicketRow, Tx};

/// The pad readable without a ticket (seeded by `locker serve`, as the peer does).
pub const DEMO_PAD_ID: &str = "demo-pad-v1";
/// The content type of a block when none is given.
pub const DEFAULT_CONTENT_TYPE: &str = "application/json";

/// A new pad's capabilities, shown once.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PadCreated {
    pub pad_id: String,
    pub write_key: String,
    pub read_ticket: String,
    pub expires_at: i64,
    pub max_blocks: u32,
}

/// An acknowledged append.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Appended {
    pub pad_id: String,
    pub seq: u64,
    pub curr_hash: Digest,
}

/// A sealed pad.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Sealed {
    pub pad_id: String,
    pub state: PadState,
    pub sealed_at: i64,
    pub head_hash: Digest,
}

/// A newly minted read ticket, shown once.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TicketMinted {
    pub pad_id: String,
    pub ticket: String,
    #[serde(rename = "type")]
    pub ticket_type: TicketType,
    /// The ticket's public id (its SHA-256), for revoking it later.
    pub ticket_id: Digest,
}

/// A revoked ticket.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TicketRevoked {
    pub pad_id: String,
    pub ticket_id: Digest,
    pub revoked_at: i64,
    /// `true` when it had been revoked before (nothing changed).
    pub already_revoked: bool,
}

/// A pad's manifest: the peer's fields plus its limits.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct Manifest {
    pub pad_id: String,
    pub state: PadState,
    pub block_count: u64,
    pub total_bytes: u64,
    pub sealed_at: Option<i64>,
    pub head_hash: Digest,
    pub created_at: i64,
    pub expires_at: i64,
    pub max_blocks: u32,
    pub max_bytes: u64,
    /// When `locker gc` removed the pad's payloads (absent while they are there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pruned_at: Option<i64>,
}

impl Manifest {
    fn of(p: &PadRow, now: i64) -> Self {
        Self {
            pad_id: p.id.clone(),
            state: PadState::at(p.state, p.expires_at, now),
            block_count: p.block_count,
            total_bytes: p.current_bytes,
            sealed_at: p.sealed_at,
            head_hash: p.head_hash,
            created_at: p.created_at,
            expires_at: p.expires_at,
            max_blocks: p.max_blocks,
            max_bytes: p.max_bytes,
            pruned_at: p.pruned_at,
        }
    }
}

/// One block as returned by a read.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct BlockView {
    pub seq: u64,
    pub prev_hash: Digest,
    pub curr_hash: Digest,
    pub content_type: String,
    pub payload_b64: String,
    /// The payload as text when it is valid UTF-8.
    pub payload_utf8: Option<String>,
    pub created_at: i64,
}

impl BlockView {
    fn of(b: BlockRow) -> Self {
        Self {
            seq: b.seq,
            prev_hash: b.prev_hash,
            curr_hash: b.curr_hash,
            content_type: b.content_type,
            payload_b64: base64::engine::general_purpose::STANDARD.encode(&b.payload),
            payload_utf8: String::from_utf8(b.payload).ok(),
            created_at: b.created_at,
        }
    }

    /// The payload's exact bytes.
    pub fn payload(&self) -> Vec<u8> {
        base64::engine::general_purpose::STANDARD.decode(&self.payload_b64).unwrap_or_default()
    }
}

/// A slice of a pad's blocks.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct BlockSlice {
    pub pad_id: String,
    pub from: i64,
    pub to: i64,
    pub count: u64,
    pub total_blocks: u64,
    pub blocks: Vec<BlockView>,
}

/// A page of pads.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PadList {
    pub pads: Vec<Manifest>,
}

/// A sealed pad made in one step.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Deposited {
    pub pad_id: String,
    pub write_key: String,
    pub read_ticket: String,
    pub head_hash: Digest,
    pub status: PadState,
    pub block_count: u64,
    pub sealed_at: i64,
}

/// One block to deposit.
#[derive(Debug, Clone)]
pub struct DepositBlock {
    pub payload: Vec<u8>,
    pub content_type: String,
}

/// A pad id that no pad can have (empty, too long, or with control characters) is simply not
/// found, as with the peer: the check only keeps such input away from the store.
pub(crate) fn check_pad_id(id: &str) -> OpResult<()> {
    if id.is_empty() || id.len() > MAX_PAD_ID_BYTES || id.chars().any(char::is_control) {
        return Err(pad_not_found());
    }
    Ok(())
}

fn pad_not_found() -> OpError {
    OpError::not_found("pad not found").hint("Check the pad id; `locker pad list` shows them.")
}

/// A pad whose payloads `locker gc` removed (exit 7, 410).
pub fn pruned(pad_id: &str, at: i64) -> OpError {
    OpError::new(
        crate::ops::ErrorKind::Gone,
        "pruned",
        format!("pad {pad_id} was pruned by `locker gc`: its payloads are gone"),
    )
    .with("pruned_at", at)
    .hint("Its hashes remain: `locker verify PAD` still checks its chain. Restore a backup taken before the gc to read it.")
}

pub(crate) fn check_content_type(ct: &str) -> OpResult<()> {
    if ct.is_empty() || ct.len() > MAX_CONTENT_TYPE_BYTES || ct.chars().any(char::is_control) {
        return Err(OpError::bad_request(format!(
            "content type must be 1–{MAX_CONTENT_TYPE_BYTES} bytes without control characters"
        )));
    }
    Ok(())
}

pub(crate) fn load(tx: &dyn Tx, id: &str) -> OpResult<PadRow> {
    tx.pad(id)?.ok_or_else(pad_not_found)
}

fn check_key(pad: &PadRow, key: Option<&Secret>) -> OpResult<()> {
    match key {
        Some(k) if k.matches(&pad.write_key_hash) => Ok(()),
        _ => Err(OpError::unauthorized("invalid write key")
            .hint("Pass the pad's write key with `--key`, `--key-file` or `LOCKER_WRITE_KEY`.")),
    }
}

fn check_writable(pad: &PadRow, now: i64) -> OpResult<()> {
    match PadState::at(pad.state, pad.expires_at, now) {
        PadState::Open => Ok(()),
        PadState::Sealed => Err(OpError::conflict("pad is sealed")),
        PadState::Expired => Err(OpError::gone("pad is expired")),
    }
}

pub(crate) fn new_ticket_row(pad_id: &str, ticket: &Secret, t: TicketType, now: i64) -> TicketRow {
    TicketRow {
        digest: ticket.digest(),
        pad_id: pad_id.to_owned(),
        ticket_type: t,
        created_at: now,
        lease_started_at: None,
        revoked_at: None,
    }
}

/// Creates an empty pad with its write key and a `read_once` ticket.
pub fn create(ctx: &mut Ctx<'_>, limits: PadLimits) -> OpResult<PadCreated> {
    create_paid(ctx, limits, None)
}

/// Creates a pad paid for by `payment` (pay-per-pad): the payment is redeemed (its hash spent
/// forever) in the same transaction as the pad, and the `pad.create` entry records it. A hash
/// already spent is 409 and nothing is written.
pub fn create_paid(
    ctx: &mut Ctx<'_>,
    limits: PadLimits,
    payment: Option<&crate::ops::pad::payment::Verified>,
) -> OpResult<PadCreated> {
    let now = ctx.now();
    let id = random_id();
    let key = Secret::generate();
    let ticket = Secret::generate();
    let expires_at = now + i64::from(limits.ttl_seconds);
    let pad = PadRow {
        id: id.clone(),
        scope: ctx.actor.scope.clone(),
        created_at: now,
        expires_at,
        max_blocks: limits.max_blocks,
        max_bytes: MAX_PAD_BYTES,
        block_count: 0,
        current_bytes: 0,
        state: StoredState::Open,
        write_key_hash: key.digest(),
        head_hash: Digest::ZERO,
        sealed_at: None,
        pruned_at: None,
    };
    let t = new_ticket_row(&id, &ticket, TicketType::ReadOnce, now);
    let mut tx = ctx.store.write()?;
    crate::ops::authorize(tx.as_ref(), &ctx.actor)?;
    tx.insert_pad(&pad)?;
    tx.insert_ticket(&t)?;
    let mut event = PadCreate {
        pad_id: id.clone(),
        ttl_seconds: i64::from(limits.ttl_seconds),
        max_blocks: u64::from(limits.max_blocks),
        max_bytes: Some(pad.max_bytes),
        expires_at,
        write_key_hash: Some(pad.write_key_hash),
        ticket_id: t.digest,
        ticket_type: t.ticket_type,
        payment: None,
    };
    if let Some(p) = payment {
        event.payment = Some(redeem(tx.as_mut(), p, &id, now)?);
    }
    journal::append(tx.as_mut(), &ctx.actor, now, event)?;
    tx.commit()?;
    Ok(PadCreated {
        pad_id: id,
        write_key: key.expose().to_owned(),
        read_ticket: ticket.expose().to_owned(),
        expires_at,
        max_blocks: limits.max_blocks,
    })
}

/// Spends a verified payment for pad `pad_id` inside the pad's write transaction; returns what
/// the entry records of it (409 if the hash is already spent, even under a race).
fn redeem(
    tx: &mut dyn Tx,
    p: &crate::ops::pad::payment::Verified,
    pad_id: &str,
    now: i64,
) -> OpResult<Payment> {
    if tx.payment(&p.tx_hash)?.is_some() {
        return Err(crate::ops::pad::payment::already_redeemed());
    }
    let row = PaymentRow {
        tx_hash: p.tx_hash.clone(),
        pad_id: pad_id.to_owned(),
        payer: p.payer.clone(),
        amount_units: p.amount_units.clone(),
        token: p.token.clone(),
        recipient: p.recipient.clone(),
        chain_id: p.chain_id,
        block_number: p.block_number,
        redeemed_at: now,
    };
    tx.insert_payment(&row).map_err(|e| match e {
        crate::store::StoreError::Duplicate(_) => crate::ops::pad::payment::already_redeemed(),
        e => e.into(),
    })?;
    Ok(Payment {
        tx_hash: row.tx_hash,
        payer: row.payer,
        amount_units: row.amount_units,
        token: row.token,
        recipient: row.recipient,
        chain_id: row.chain_id,
        block_number: row.block_number,
    })
}

/// Checks a block's size (or the size a request announces for it) against
/// [`MAX_BLOCK_BYTES`]: the first check of an append, before the pad is looked up.
pub fn check_block_size(len: u64) -> OpResult<()> {
    if len > MAX_BLOCK_BYTES as u64 {
        return Err(OpError::too_large(format!("payload exceeds {MAX_BLOCK_BYTES} bytes")));
    }
    Ok(())
}

/// Appends one block, in the peer's check order: size, pad, key, state, empty, quotas,
/// envelope.
pub fn append(
    ctx: &mut Ctx<'_>,
    pad_id: &str,
    key: Option<&Secret>,
    payload: &[u8],
    content_type: Option<&str>,
) -> OpResult<Appended> {
    append_signed(ctx, pad_id, key, payload, content_type, None)
}

/// [`append`] with an agent's signature over the block (checked after the peer's checks, see
/// [`crate::ops::keys::check`]); the `pad.append` entry then records the payload's SHA-256 and the
/// signature.
pub fn append_signed(
    ctx: &mut Ctx<'_>,
    pad_id: &str,
    key: Option<&Secret>,
    payload: &[u8],
    content_type: Option<&str>,
    signing: Option<&crate::ops::keys::Signing>,
) -> OpResult<Appended> {
    check_block_size(payload.len() as u64)?;
    check_pad_id(pad_id)?;
    let content_type = content_type.unwrap_or(DEFAULT_CONTENT_TYPE);
    let now = ctx.now();
    let mut tx = ctx.store.write()?;
    crate::ops::authorize(tx.as_ref(), &ctx.actor)?;
    let mut pad = load(tx.as_ref(), pad_id)?;
    check_key(&pad, key)?;
    check_writable(&pad, now)?;
    if payload.is_empty() {
        return Err(OpError::bad_request("empty payload"));
    }
    check_content_type(content_type)?;
    if pad.block_count >= u64::from(pad.max_blocks) {
        return Err(OpError::conflict("block quota exceeded")
            .with("max_blocks", pad.max_blocks)
            .hint(
            "Seal this pad and continue in a new one, or create pads with a larger `--max-blocks`.",
        ));
    }
    if pad.current_bytes + payload.len() as u64 > pad.max_bytes {
        return Err(OpError::conflict("byte quota exceeded").with("max_bytes", pad.max_bytes));
    }
    if pad.block_count == 0 {
        envelope::validate(payload).map_err(|e| {
            OpError::bad_request(format!("block 0 invalid envelope: {e}")).hint(
                "Block 0 must be a `locker.handoff.v1` envelope: schema, task_id, from_agent, \
                 to_agent, constraints, artifacts, budget_usd.",
            )
        })?;
    }
    let seq = pad.block_count;
    let payload_digest = Digest::of(payload);
    let signed = crate::ops::keys::check(tx.as_ref(), signing, |repo| {
        crate::domain::sign::Statement::pad_append(&repo, &pad.id, seq, &payload_digest)
    })?;
    let curr = chain::link(&pad.head_hash, payload);
    tx.insert_block(&BlockRow {
        pad_id: pad.id.clone(),
        seq,
        prev_hash: pad.head_hash,
        curr_hash: curr,
        content_type: content_type.to_owned(),
        payload: payload.to_vec(),
        created_at: now,
        pruned_bytes: None,
    })?;
    pad.block_count += 1;
    pad.current_bytes += payload.len() as u64;
    pad.head_hash = curr;
    tx.update_pad(&pad)?;
    let event = PadAppend {
        pad_id: pad.id.clone(),
        seq,
        curr_hash: curr,
        bytes: payload.len() as u64,
        content_type: content_type.to_owned(),
        sha256: signed.is_some().then_some(payload_digest),
        signed,
    };
    journal::append(tx.as_mut(), &ctx.actor, now, event)?;
    tx.commit()?;
    Ok(Appended { pad_id: pad.id, seq, curr_hash: curr })
}

/// Re-checks a pad's stored chain; `Err` lists the problems.
fn check_chain(tx: &dyn Tx, pad: &PadRow) -> OpResult<Result<(), Vec<String>>> {
    let mut checker = ChainChecker::new();
    tx.for_each_block(&pad.id, &mut |b| {
        match b.pruned_bytes {
            Some(n) => checker.pruned_block(b.seq, &b.prev_hash, &b.curr_hash, n),
            None => checker.block(b.seq, &b.prev_hash, &b.curr_hash, &b.payload),
        }
        Flow::Continue(())
    })?;
    let problems = checker.finish(&pad.head_hash, pad.block_count, pad.current_bytes);
    Ok(if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.iter().map(ToString::to_string).collect())
    })
}

/// Seals a pad after re-checking its stored chain.
pub fn seal(ctx: &mut Ctx<'_>, pad_id: &str, key: Option<&Secret>) -> OpResult<Sealed> {
    check_pad_id(pad_id)?;
    let now = ctx.now();
    let mut tx = ctx.store.write()?;
    crate::ops::authorize(tx.as_ref(), &ctx.actor)?;
    let mut pad = load(tx.as_ref(), pad_id)?;
    check_key(&pad, key)?;
    check_writable(&pad, now)?;
    if let Err(problems) = check_chain(tx.as_ref(), &pad)? {
        let first: Vec<&str> = problems.iter().take(3).map(String::as_str).collect();
        return Err(OpError::new(
            crate::ops::ErrorKind::Conflict,
            "inconsistent_pad",
            format!(
                "refusing to seal: the stored chain is not consistent ({} problem(s): {})",
                problems.len(),
                first.join("; ")
            ),
        )
        .hint("Run `locker verify` to see every problem in the repository."));
    }
    pad.state = StoredState::Sealed;
    pad.sealed_at = Some(now);
    tx.update_pad(&pad)?;
    journal::append(
        tx.as_mut(),
        &ctx.actor,
        now,
        PadSeal {
            pad_id: pad.id.clone(),
            head_hash: pad.head_hash,
            block_count: pad.block_count,
            total_bytes: pad.current_bytes,
        },
    )?;
    tx.commit()?;
    Ok(Sealed { pad_id: pad.id, state: PadState::Sealed, sealed_at: now, head_hash: pad.head_hash })
}

/// Mints a read ticket (works on open, sealed and expired pads, as with the peer).
pub fn mint_ticket(
    ctx: &mut Ctx<'_>,
    pad_id: &str,
    key: Option<&Secret>,
    ticket_type: TicketType,
) -> OpResult<TicketMinted> {
    check_pad_id(pad_id)?;
    let now = ctx.now();
    let mut tx = ctx.store.write()?;
    crate::ops::authorize(tx.as_ref(), &ctx.actor)?;
    let pad = load(tx.as_ref(), pad_id)?;
    check_key(&pad, key)?;
    let ticket = Secret::generate();
    let row = new_ticket_row(&pad.id, &ticket, ticket_type, now);
    tx.insert_ticket(&row)?;
    journal::append(
        tx.as_mut(),
        &ctx.actor,
        now,
        PadTicket { pad_id: pad.id.clone(), ticket_id: row.digest, ticket_type },
    )?;
    tx.commit()?;
    Ok(TicketMinted {
        pad_id: pad.id,
        ticket: ticket.expose().to_owned(),
        ticket_type,
        ticket_id: row.digest,
    })
}

/// The digest a ticket reference names: a ticket id (64 hex) or the ticket itself.
fn ticket_digest(reference: &str) -> Digest {
    Digest::parse(reference).unwrap_or_else(|_| Secret::new(reference).digest())
}

/// Revokes a read ticket; revoking it again changes nothing.
pub fn revoke_ticket(
    ctx: &mut Ctx<'_>,
    pad_id: &str,
    key: Option<&Secret>,
    ticket: &str,
) -> OpResult<TicketRevoked> {
    check_pad_id(pad_id)?;
    let now = ctx.now();
    let mut tx = ctx.store.write()?;
    crate::ops::authorize(tx.as_ref(), &ctx.actor)?;
    let pad = load(tx.as_ref(), pad_id)?;
    check_key(&pad, key)?;
    let mut row = match tx.ticket(&ticket_digest(ticket))? {
        Some(t) if t.pad_id == pad.id => t,
        _ => return Err(OpError::not_found("ticket not found for this pad")),
    };
    if let Some(at) = row.revoked_at {
        return Ok(TicketRevoked {
            pad_id: pad.id,
            ticket_id: row.digest,
            revoked_at: at,
            already_revoked: true,
        });
    }
    row.revoked_at = Some(now);
    tx.update_ticket(&row)?;
    journal::append(
        tx.as_mut(),
        &ctx.actor,
        now,
        PadTicketRevoke { pad_id: pad.id.clone(), ticket_id: row.digest },
    )?;
    tx.commit()?;
    Ok(TicketRevoked {
        pad_id: pad.id,
        ticket_id: row.digest,
        revoked_at: now,
        already_revoked: false,
    })
}

/// A pad's manifest (no credential needed, as with the peer).
pub fn manifest(ctx: &mut Ctx<'_>, pad_id: &str) -> OpResult<Manifest> {
    check_pad_id(pad_id)?;
    let now = ctx.now();
    let tx = ctx.store.read()?;
    let pad = load(tx.as_ref(), pad_id)?;
    Ok(Manifest::of(&pad, now))
}

/// Lists pads, optionally only those in `state`.
pub fn list(ctx: &mut Ctx<'_>, state: Option<PadState>, limit: usize) -> OpResult<PadList> {
    let now = ctx.now();
    let mut pads = Vec::new();
    if limit == 0 {
        return Ok(PadList { pads });
    }
    let tx = ctx.store.read()?;
    tx.for_each_pad(&mut |p| {
        let m = Manifest::of(&p, now);
        if state.is_none_or(|s| s == m.state) {
            pads.push(m);
        }
        if pads.len() >= limit {
            Flow::Break(())
        } else {
            Flow::Continue(())
        }
    })?;
    Ok(PadList { pads })
}

/// What a read decided, before any lease is recorded.
struct ReadPlan {
    slice: BlockSlice,
    /// A `read_once` ticket whose lease this read opens.
    open_lease: Option<TicketRow>,
}

/// Checks a read ticket for `pad` in the peer's order (missing, invalid or revoked, lease
/// over); the demo pad needs none. Returns the `read_once` ticket whose lease a successful,
/// non-empty read opens.
pub(crate) fn check_read_ticket(
    tx: &dyn Tx,
    pad: &PadRow,
    ticket: Option<&Secret>,
    lease_seconds: i64,
    now: i64,
) -> OpResult<Option<TicketRow>> {
    if pad.id == DEMO_PAD_ID {
        return Ok(None);
    }
    let Some(ticket) = ticket else {
        return Err(OpError::unauthorized("missing read ticket")
            .hint("Pass a read ticket with `--ticket`, `--ticket-file` or `LOCKER_TICKET`."));
    };
    let row = match tx.ticket(&ticket.digest())? {
        Some(t) if t.pad_id == pad.id && t.revoked_at.is_none() => t,
        _ => return Err(OpError::unauthorized("invalid read ticket")),
    };
    if row.ticket_type == TicketType::ReadOnce {
        if read_lease_over(row.lease_started_at, lease_seconds, now) {
            return Err(OpError::forbidden("read ticket lease expired")
                .hint("Ask the pad's writer for a new ticket (`locker pad ticket`)."));
        }
        if row.lease_started_at.is_none() {
            return Ok(Some(row));
        }
    }
    Ok(None)
}

fn plan_read(
    tx: &dyn Tx,
    pad_id: &str,
    ticket: Option<&Secret>,
    from: Option<i64>,
    to: Option<i64>,
    lease_seconds: i64,
    now: i64,
) -> OpResult<ReadPlan> {
    let pad = load(tx, pad_id)?;
    let open_lease = check_read_ticket(tx, &pad, ticket, lease_seconds, now)?;
    if let Some(at) = pad.pruned_at {
        return Err(pruned(&pad.id, at));
    }
    let total = pad.block_count;
    let start = from.unwrap_or(0);
    let empty = |f: i64| BlockSlice {
        pad_id: pad.id.clone(),
        from: f,
        to: f,
        count: 0,
        total_blocks: total,
        blocks: Vec::new(),
    };
    if total == 0 {
        return Ok(ReadPlan { slice: empty(start), open_lease: None });
    }
    if start < 0 || to.is_some_and(|t| t < start) {
        return Err(OpError::unprocessable("invalid from/to range"));
    }
    let start_u = u64::try_from(start).unwrap_or(u64::MAX);
    if start_u >= total {
        return Ok(ReadPlan { slice: empty(start), open_lease: None });
    }
    let end = to.map_or(total - 1, |t| u64::try_from(t).unwrap_or(u64::MAX).min(total - 1));
    if end - start_u + 1 > MAX_SLICE_BLOCKS {
        return Err(OpError::too_large(format!(
            "slice exceeds {MAX_SLICE_BLOCKS} blocks; narrow from/to"
        )));
    }
    if tx.blocks_bytes(&pad.id, start_u, end)? > MAX_SLICE_BYTES {
        return Err(OpError::too_large(format!(
            "slice payload exceeds {MAX_SLICE_BYTES} bytes; narrow from/to"
        )));
    }
    let blocks: Vec<BlockView> =
        tx.blocks(&pad.id, start_u, end)?.into_iter().map(BlockView::of).collect();
    let slice = BlockSlice {
        pad_id: pad.id.clone(),
        from: start,
        to: i64::try_from(end).unwrap_or(i64::MAX),
        count: blocks.len() as u64,
        total_blocks: total,
        blocks,
    };
    Ok(ReadPlan { slice, open_lease })
}

/// Reads blocks `from..=to` with a read ticket, in the peer's check order. The first
/// successful, non-empty read with a `read_once` ticket opens its read lease.
pub fn read(
    ctx: &mut Ctx<'_>,
    pad_id: &str,
    ticket: Option<&Secret>,
    from: Option<i64>,
    to: Option<i64>,
) -> OpResult<BlockSlice> {
    check_pad_id(pad_id)?;
    let now = ctx.now();
    let lease = ctx.settings.read_lease_seconds;
    let plan = {
        let tx = ctx.store.read()?;
        plan_read(tx.as_ref(), pad_id, ticket, from, to, lease, now)?
    };
    if plan.open_lease.is_none() {
        return Ok(plan.slice);
    }
    // Opening the lease is a write: decide again under the write lock.
    let mut tx = ctx.store.write()?;
    crate::ops::authorize(tx.as_ref(), &ctx.actor)?;
    let plan = plan_read(tx.as_ref(), pad_id, ticket, from, to, lease, now)?;
    if let Some(mut row) = plan.open_lease {
        row.lease_started_at = Some(now);
        tx.update_ticket(&row)?;
        journal::append(
            tx.as_mut(),
            &ctx.actor,
            now,
            PadReadLease { pad_id: pad_id.to_owned(), ticket_id: row.digest, lease_seconds: lease },
        )?;
        tx.commit()?;
    }
    Ok(plan.slice)
}

/// Creates a pad, appends the envelope and the artifacts, and seals it, in one transaction:
/// either the sealed pad exists or nothing does.
pub fn deposit(
    ctx: &mut Ctx<'_>,
    envelope_bytes: &[u8],
    artifacts: &[DepositBlock],
    ttl_seconds: i64,
) -> OpResult<Deposited> {
    deposit_paid(ctx, envelope_bytes, artifacts, ttl_seconds, None)
}

/// [`deposit`], paid for by `payment` (pay-per-pad): the payment is redeemed in the same
/// transaction and recorded in the `pad.deposit` entry.
pub fn deposit_paid(
    ctx: &mut Ctx<'_>,
    envelope_bytes: &[u8],
    artifacts: &[DepositBlock],
    ttl_seconds: i64,
    payment: Option<&crate::ops::pad::payment::Verified>,
) -> OpResult<Deposited> {
    let n = artifacts.len() + 1;
    if n > MAX_MAX_BLOCKS as usize {
        return Err(OpError::too_large(format!(
            "a pad holds at most {MAX_MAX_BLOCKS} blocks; got {n}"
        )));
    }
    let max_blocks = i64::try_from(n.max(2)).unwrap_or(i64::MAX);
    let limits = PadLimits::new(ttl_seconds, max_blocks)
        .map_err(|e| OpError::unprocessable(e.to_string()))?;
    let mut blocks: Vec<(&[u8], &str)> = Vec::with_capacity(n);
    blocks.push((envelope_bytes, DEFAULT_CONTENT_TYPE));
    blocks.extend(artifacts.iter().map(|a| (a.payload.as_slice(), a.content_type.as_str())));
    let mut total = 0u64;
    for (i, (payload, ct)) in blocks.iter().enumerate() {
        if payload.len() > MAX_BLOCK_BYTES {
            return Err(OpError::too_large(format!(
                "block {i}: payload exceeds {MAX_BLOCK_BYTES} bytes"
            )));
        }
        if payload.is_empty() {
            return Err(OpError::bad_request(format!("block {i}: empty payload")));
        }
        check_content_type(ct)?;
        total += payload.len() as u64;
    }
    if total > MAX_PAD_BYTES {
        return Err(OpError::too_large(format!(
            "the deposit's {total} bytes exceed the pad limit of {MAX_PAD_BYTES}"
        )));
    }
    envelope::validate(envelope_bytes)
        .map_err(|e| OpError::bad_request(format!("block 0 invalid envelope: {e}")))?;

    let now = ctx.now();
    let id = random_id();
    let key = Secret::generate();
    let ticket = Secret::generate();
    let mut rows = Vec::with_capacity(n);
    let mut prev = Digest::ZERO;
    for (seq, (payload, ct)) in blocks.iter().enumerate() {
        let curr = chain::link(&prev, payload);
        rows.push(BlockRow {
            pad_id: id.clone(),
            seq: seq as u64,
            prev_hash: prev,
            curr_hash: curr,
            content_type: (*ct).to_owned(),
            payload: payload.to_vec(),
            created_at: now,
            pruned_bytes: None,
        });
        prev = curr;
    }
    let pad = PadRow {
        id: id.clone(),
        scope: ctx.actor.scope.clone(),
        created_at: now,
        expires_at: now + i64::from(limits.ttl_seconds),
        max_blocks: limits.max_blocks,
        max_bytes: MAX_PAD_BYTES,
        block_count: n as u64,
        current_bytes: total,
        state: StoredState::Sealed,
        write_key_hash: key.digest(),
        head_hash: prev,
        sealed_at: Some(now),
        pruned_at: None,
    };
    let t = new_ticket_row(&id, &ticket, TicketType::ReadOnce, now);
    let mut tx = ctx.store.write()?;
    crate::ops::authorize(tx.as_ref(), &ctx.actor)?;
    if crate::ops::keys::required(tx.as_ref())? {
        return Err(OpError::new(
            crate::ops::ErrorKind::Forbidden,
            "signature_required",
            "this repository requires signed appends, and a deposit's blocks cannot be signed",
        )
        .hint("Create the pad (`locker pad create`), append each block with `--sign-key`, then seal it."));
    }
    tx.insert_pad(&pad)?;
    for b in &rows {
        tx.insert_block(b)?;
    }
    tx.insert_ticket(&t)?;
    let mut event = PadDeposit {
        pad_id: id.clone(),
        demo: false,
        ttl_seconds: i64::from(limits.ttl_seconds),
        max_blocks: u64::from(limits.max_blocks),
        max_bytes: Some(pad.max_bytes),
        expires_at: pad.expires_at,
        write_key_hash: Some(pad.write_key_hash),
        ticket_id: Some(t.digest),
        ticket_type: Some(t.ticket_type),
        blocks: rows.iter().map(block_record).collect(),
        head_hash: prev,
        total_bytes: total,
        payment: None,
    };
    if let Some(p) = payment {
        event.payment = Some(redeem(tx.as_mut(), p, &id, now)?);
    }
    journal::append(tx.as_mut(), &ctx.actor, now, event)?;
    tx.commit()?;
    Ok(Deposited {
        pad_id: id,
        write_key: key.expose().to_owned(),
        read_ticket: ticket.expose().to_owned(),
        head_hash: prev,
        status: PadState::Sealed,
        block_count: n as u64,
        sealed_at: now,
    })
}

/// How a deposit's entry records one of its blocks (its time is the entry's).
fn block_record(b: &BlockRow) -> BlockRecord {
    BlockRecord {
        seq: b.seq,
        curr_hash: b.curr_hash,
        bytes: b.payload.len() as u64,
        content_type: b.content_type.clone(),
        created_at: None,
    }
}

/// The demo pad's published write key.
pub const DEMO_WRITE_KEY: &str = "demo-write-key";

/// The demo pad's blocks, byte for byte the peer's, so that its head is the peer's too
/// (`5f77fb57…512b`): the envelope as Python's `json.dumps` writes it, then two lines of text.
pub const DEMO_BLOCKS: [(&str, &str); 3] = [
    (
        r#"{"schema": "locker.handoff.v1", "task_id": "demo-pad-v1", "from_agent": "lockerd-demo", "to_agent": "you", "constraints": ["read-only demo", "illustrates hash-chain integrity"], "artifacts": [{"name": "demo-payload.txt", "size": 45}], "budget_usd": 0.0}"#,
        "application/json",
    ),
    ("Permanent read-only demo handoff pad.\n", "text/plain"),
    ("Read it freely: GET /v1/pads/demo-pad-v1/blocks\n", "text/plain"),
];

/// Seconds until the demo pad would expire (100 years; it is sealed, so it never does).
pub const DEMO_TTL_SECONDS: i64 = 100 * 365 * 24 * 3600;

/// What seeding the demo pad did.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DemoSeeded {
    pub pad_id: String,
    /// `false` when the pad already existed (nothing changed).
    pub created: bool,
    pub head_hash: Digest,
}

/// Creates the sealed, read-only demo pad `demo-pad-v1` if it is missing, as the peer's
/// daemon does at start. It is readable without a ticket and its write key is published.
pub fn seed_demo(ctx: &mut Ctx<'_>) -> OpResult<DemoSeeded> {
    let now = ctx.now();
    let mut tx = ctx.store.write()?;
    if let Some(p) = tx.pad(DEMO_PAD_ID)? {
        return Ok(DemoSeeded { pad_id: p.id, created: false, head_hash: p.head_hash });
    }
    let mut prev = Digest::ZERO;
    let mut rows = Vec::with_capacity(DEMO_BLOCKS.len());
    let mut total = 0u64;
    for (seq, (payload, ct)) in DEMO_BLOCKS.iter().enumerate() {
        let curr = chain::link(&prev, payload.as_bytes());
        rows.push(BlockRow {
            pad_id: DEMO_PAD_ID.to_owned(),
            seq: seq as u64,
            prev_hash: prev,
            curr_hash: curr,
            content_type: (*ct).to_owned(),
            payload: payload.as_bytes().to_vec(),
            created_at: now,
            pruned_bytes: None,
        });
        total += payload.len() as u64;
        prev = curr;
    }
    let max_blocks = crate::domain::limits::DEFAULT_MAX_BLOCKS;
    let pad = PadRow {
        id: DEMO_PAD_ID.to_owned(),
        scope: ctx.actor.scope.clone(),
        created_at: now,
        expires_at: now.saturating_add(DEMO_TTL_SECONDS),
        max_blocks,
        max_bytes: MAX_PAD_BYTES,
        block_count: rows.len() as u64,
        current_bytes: total,
        state: StoredState::Sealed,
        write_key_hash: Secret::new(DEMO_WRITE_KEY).digest(),
        head_hash: prev,
        sealed_at: Some(now),
        pruned_at: None,
    };
    tx.insert_pad(&pad)?;
    for b in &rows {
        tx.insert_block(b)?;
    }
    journal::append(
        tx.as_mut(),
        &ctx.actor,
        now,
        PadDeposit {
            pad_id: DEMO_PAD_ID.to_owned(),
            demo: true,
            ttl_seconds: DEMO_TTL_SECONDS,
            max_blocks: u64::from(max_blocks),
            max_bytes: None,
            expires_at: pad.expires_at,
            write_key_hash: None,
            ticket_id: None,
            ticket_type: None,
            blocks: rows.iter().map(block_record).collect(),
            head_hash: prev,
            total_bytes: total,
            payment: None,
        },
    )?;
    tx.commit()?;
    Ok(DemoSeeded { pad_id: DEMO_PAD_ID.to_owned(), created: true, head_hash: prev })
}

/// Pad counts by state, for health reports.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct PadCounts {
    pub total: u64,
    /// Open and not expired (the peer's `unsealed`).
    pub unsealed: u64,
    pub sealed: u64,
}

/// Counts the pads by their state now.
pub fn counts(ctx: &mut Ctx<'_>) -> OpResult<PadCounts> {
    let now = ctx.now();
    let tx = ctx.store.read()?;
    let mut c = PadCounts::default();
    tx.for_each_pad(&mut |p| {
        c.total += 1;
        match PadState::at(p.state, p.expires_at, now) {
            PadState::Open => c.unsealed += 1,
            PadState::Sealed => c.sealed += 1,
            PadState::Expired => {}
        }
        Flow::Continue(())
    })?;
    Ok(c)
}

/// Appends of random sizes, with the right key or not, to pads of random `max_blocks`: each is
/// accepted or refused exactly as the limits say, in the peer's check order, and the stored
/// counts are the sums of what was accepted.
#[cfg(test)]
mod proptests {
    use proptest::prelude::*;

    use super::*;
    use crate::ops::{verify, Actor, FixedClock, NoProgress};

    const ENVELOPE: &[u8] = br#"{"schema":"locker.handoff.v1","task_id":"t","from_agent":"a","to_agent":"b","constraints":[],"artifacts":[],"budget_usd":null}"#;

    fn size() -> impl Strategy<Value = usize> {
        prop_oneof![
            6 => 1usize..400,
            1 => Just(0usize),
            2 => 60_000usize..=MAX_BLOCK_BYTES,
            1 => (MAX_BLOCK_BYTES + 1)..MAX_BLOCK_BYTES + 100,
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(crate::ops::proptest_cases(32)))]
        #[test]
        fn appends_respect_every_limit(
            max_blocks in 1u32..8,
            appends in prop::collection::vec((size(), prop::bool::weighted(0.9)), 1..14),
        ) {
            let dir = crate::ops::test_dir();
            let clock = FixedClock(1_000);
            let (_, mut repo) = crate::ops::admin::init::init(dir.path(), &clock).unwrap();
            let mut ctx = Ctx::new(repo.store.as_mut(), Actor::operator(), &clock);
            let limits = PadLimits::new(3600, i64::from(max_blocks)).unwrap();
            let p = create(&mut ctx, limits).unwrap();
            let key = Secret::new(p.write_key.clone());
            let wrong = Secret::new("wrong");
            append(&mut ctx, &p.pad_id, Some(&key), ENVELOPE, None).unwrap();
            let (mut blocks, mut bytes) = (1u64, ENVELOPE.len() as u64);
            for (n, (len, good)) in appends.iter().enumerate() {
                let payload = vec![b'a' + (n % 26) as u8; *len];
                let k = if *good { &key } else { &wrong };
                let got = append(&mut ctx, &p.pad_id, Some(k), &payload, None);
                let want: Result<u64, &str> = if *len > MAX_BLOCK_BYTES {
                    Err("payload_too_large")
                } else if !good {
                    Err("unauthorized")
                } else if *len == 0 {
                    Err("bad_request")
                } else if blocks >= u64::from(max_blocks) || bytes + *len as u64 > MAX_PAD_BYTES {
                    Err("conflict")
                } else {
                    Ok(blocks)
                };
                prop_assert_eq!(
                    got.as_ref().map(|a| a.seq).map_err(|e| e.code.as_ref()),
                    want,
                    "append {} of {} bytes", n, len
                );
                if want.is_ok() {
                    blocks += 1;
                    bytes += *len as u64;
                }
            }
            let m = manifest(&mut ctx, &p.pad_id).unwrap();
            prop_assert_eq!((m.block_count, m.total_bytes), (blocks, bytes));
            prop_assert!(m.block_count <= u64::from(max_blocks) && m.total_bytes <= MAX_PAD_BYTES);
            let report = verify::repository(&mut ctx, None, &NoProgress).unwrap();
            prop_assert!(report.ok, "{:?}", report.problems);
        }
    }
}
