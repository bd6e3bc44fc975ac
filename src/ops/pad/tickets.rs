//! Read tickets: minting and revoking them (with the pad's write key), and checking one a read
//! presents. A ticket is stored as its SHA-256 only.

use crate::domain::digest::Digest;
use crate::domain::event::{PadTicket, PadTicketRevoke};
use crate::domain::pad::{read_lease_over, TicketType};
use crate::domain::secret::Secret;
use crate::ops::log::journal;
use crate::ops::pad::demo::DEMO_PAD_ID;
use crate::ops::{Ctx, OpError, OpResult};
use crate::store::{PadRow, TicketRow, Tx};

use super::{check_key, check_pad_id, load, TicketMinted, TicketRevoked};

pub(super) fn new_ticket_row(pad_id: &str, ticket: &Secret, t: TicketType, now: i64) -> TicketRow {
    TicketRow {
        digest: ticket.digest(),
        pad_id: pad_id.to_owned(),
        ticket_type: t,
        created_at: now,
        lease_started_at: None,
        revoked_at: None,
    }
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

/// Checks a read ticket for `pad` in the peer's order (missing, invalid or revoked, lease
/// over); the demo pad needs none. Returns the `read_once` ticket whose lease a successful,
/// non-empty read opens.
pub(super) fn check_read_ticket(
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
    let row =
        match tx.ticket(&ticket.digest())? {
            Some(t) if t.pad_id == pad.id && t.revoked_at.is_none() => t,
            _ => return Err(OpError::unauthorized("invalid read ticket").hint(
                "Pass this pad's read ticket (not its write key): it is shown once, when the pad \
                 is created or when its writer mints one with `locker pad ticket`, and stops \
                 working when revoked.",
            )),
        };
    if row.ticket_type == TicketType::ReadOnce {
        if read_lease_over(row.lease_started_at, lease_seconds, now) {
            return Err(OpError::forbidden("read ticket lease expired").hint(format!(
                "A read_once ticket reads for {} after its first read \
                 (LOCKER_READ_LEASE_SECONDS), then never again. Ask the pad's writer for a new \
                 ticket (`locker pad ticket`).",
                crate::domain::time::human_duration(lease_seconds)
            )));
        }
        if row.lease_started_at.is_none() {
            return Ok(Some(row));
        }
    }
    Ok(None)
}
