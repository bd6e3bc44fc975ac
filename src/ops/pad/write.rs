//! Writing pads: creating one (paid for or not), appending a block (signed or not), sealing
//! it, and depositing a sealed pad in one transaction.

use crate::domain::chain::{self, ChainChecker};
use crate::domain::digest::Digest;
use crate::domain::envelope;
use crate::domain::event::{PadAppend, PadCreate, PadDeposit, PadSeal, Payment};
use crate::domain::limits::{PadLimits, MAX_BLOCK_BYTES, MAX_MAX_BLOCKS, MAX_PAD_BYTES};
use crate::domain::pad::{PadState, StoredState, TicketType};
use crate::domain::secret::{random_id, Secret};
use crate::ops::log::journal;
use crate::ops::pad::tickets::new_ticket_row;
use crate::ops::{Ctx, OpError, OpResult};
use crate::store::{BlockRow, Flow, PadRow, PaymentRow, Tx};

use super::{
    block_record, check_content_type, check_key, check_pad_id, check_writable, load, Appended,
    DepositBlock, Deposited, PadCreated, Sealed, DEFAULT_CONTENT_TYPE,
};

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
    let block = BlockRow {
        pad_id: pad.id.clone(),
        seq,
        prev_hash: pad.head_hash,
        curr_hash: curr,
        content_type: content_type.to_owned(),
        payload: payload.to_vec(),
        created_at: now,
        pruned_bytes: None,
    };
    pad.block_count += 1;
    pad.current_bytes += payload.len() as u64;
    pad.head_hash = curr;
    tx.append_block(&block, &pad)?;
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

/// Appends of random sizes, with the right key or not, to pads of random `max_blocks`: each is
/// accepted or refused exactly as the limits say, in the peer's check order, and the stored
/// counts are the sums of what was accepted.
#[cfg(test)]
mod proptests {
    use proptest::prelude::*;

    use super::*;
    use crate::ops::pad::manifest;
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
