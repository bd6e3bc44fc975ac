//! Replaying the journal's pad, ticket and payment entries, and checking the stored pads (each
//! chain walked block by block), tickets and redeemed payments against that replay.

use std::collections::{HashMap, HashSet};

use crate::domain::digest::{Digest, Hasher};
use crate::domain::event::{
    kind, subject, BlockRecord, Event, PadAppend, PadReadLease, PadTicketRevoke, Payment, RepoGc,
};
use crate::domain::journal::Entry;
use crate::domain::pad::TicketType;
use crate::ops::log::journal::for_each_entry;
use crate::ops::verify::work::WorkReplay;
use crate::ops::{OpResult, Progress};
use crate::store::{Flow, JournalQuery, JournalRow, PadRow, PaymentRow, TicketRow, Tx};

use super::chains::{check_pad_chain, feed_hashes, feed_meta, report_chain, ChainWalk};
use super::{Findings, GcSummary, PadsSummary, TicketsSummary};

/// What the journal says a pad should look like.
#[derive(Debug, Clone)]
pub(super) struct PadRecord {
    scope: String,
    created_at: i64,
    expires_at: Option<i64>,
    max_blocks: Option<u64>,
    max_bytes: Option<u64>,
    write_key_hash: Option<Digest>,
    blocks: u64,
    bytes: u64,
    pub(super) head: Digest,
    /// A running digest of every block's sequence number, content type and time (the fields
    /// the pad's hash chain does not cover).
    meta: Hasher,
    /// A running digest of every block's sequence number, hash and length: what stands in for
    /// a pruned payload.
    hashes: Hasher,
    sealed_at: Option<i64>,
    /// When a `repo.gc` entry pruned it.
    pub(super) pruned_at: Option<i64>,
}

impl PadRecord {
    fn new(scope: &str, c: &Creation<'_>) -> Self {
        Self {
            scope: scope.to_owned(),
            created_at: c.created_at,
            expires_at: Some(c.expires_at),
            max_blocks: Some(c.max_blocks),
            max_bytes: c.max_bytes,
            write_key_hash: c.write_key_hash,
            blocks: 0,
            bytes: 0,
            head: Digest::ZERO,
            meta: Hasher::default(),
            hashes: Hasher::default(),
            sealed_at: None,
            pruned_at: None,
        }
    }

    /// Records one block the journal says was appended (`created_at`: an imported block's own
    /// time; appended and deposited ones have the entry's, `time`).
    fn block(&mut self, id: &str, b: BlockRef<'_>, time: i64) -> Option<String> {
        let seq = b.seq;
        if seq != self.blocks {
            return Some(format!("pad {id} block {seq} is recorded out of order"));
        }
        self.blocks += 1;
        self.bytes += b.bytes;
        self.head = *b.curr_hash;
        let time = b.created_at.unwrap_or(time);
        feed_meta(&mut self.meta, seq, b.content_type, time);
        feed_hashes(&mut self.hashes, seq, b.curr_hash, b.bytes);
        None
    }
}

/// One block as a `pad.append` entry, or a `pad.deposit` or `pad.import` entry's list,
/// records it.
#[derive(Clone, Copy)]
struct BlockRef<'a> {
    seq: u64,
    curr_hash: &'a Digest,
    bytes: u64,
    content_type: &'a str,
    created_at: Option<i64>,
}

impl<'a> From<&'a PadAppend> for BlockRef<'a> {
    fn from(b: &'a PadAppend) -> Self {
        Self {
            seq: b.seq,
            curr_hash: &b.curr_hash,
            bytes: b.bytes,
            content_type: &b.content_type,
            created_at: None,
        }
    }
}

impl<'a> From<&'a BlockRecord> for BlockRef<'a> {
    fn from(b: &'a BlockRecord) -> Self {
        Self {
            seq: b.seq,
            curr_hash: &b.curr_hash,
            bytes: b.bytes,
            content_type: &b.content_type,
            created_at: b.created_at,
        }
    }
}

/// The blocks an entry records for a pad: one appended, or all of a deposited or imported
/// pad's.
fn recorded_blocks(ev: &Event) -> Vec<BlockRef<'_>> {
    match ev {
        Event::PadAppend(a) => vec![a.into()],
        Event::PadDeposit(d) => d.blocks.iter().map(BlockRef::from).collect(),
        Event::PadImport(i) => i.blocks.iter().map(BlockRef::from).collect(),
        _ => Vec::new(),
    }
}

/// What a `pad.create`, `pad.deposit` or `pad.import` entry says about the new pad.
struct Creation<'a> {
    /// An imported pad keeps the time its bundle gave; every other pad is created at the time
    /// of its journal entry.
    created_at: i64,
    expires_at: i64,
    max_blocks: u64,
    max_bytes: Option<u64>,
    write_key_hash: Option<Digest>,
    payment: Option<&'a Payment>,
    /// A deposited or imported pad's blocks, its head and when it was sealed.
    sealed: Option<(&'a [BlockRecord], &'a Digest, i64)>,
    /// The ticket minted with it (the demo pad's deposit names none).
    ticket: Option<(Digest, Option<TicketType>)>,
    /// The demo pad (seeded by `locker serve`): readable without a ticket, and mints none.
    demo: bool,
}

impl<'a> Creation<'a> {
    fn of(e: &Entry, ev: &'a Event) -> Option<Self> {
        Some(match ev {
            Event::PadCreate(c) => Self {
                created_at: e.time,
                expires_at: c.expires_at,
                max_blocks: c.max_blocks,
                max_bytes: c.max_bytes,
                write_key_hash: c.write_key_hash,
                payment: c.payment.as_ref(),
                sealed: None,
                ticket: Some((c.ticket_id, Some(c.ticket_type))),
                demo: false,
            },
            Event::PadDeposit(d) => Self {
                created_at: e.time,
                expires_at: d.expires_at,
                max_blocks: d.max_blocks,
                max_bytes: d.max_bytes,
                write_key_hash: d.write_key_hash,
                payment: d.payment.as_ref(),
                sealed: Some((&d.blocks, &d.head_hash, e.time)),
                ticket: d.ticket_id.map(|t| (t, d.ticket_type)),
                demo: d.pad_id == crate::ops::pad::DEMO_PAD_ID && d.demo,
            },
            Event::PadImport(i) => Self {
                created_at: i.created_at,
                expires_at: i.expires_at,
                max_blocks: i.max_blocks,
                max_bytes: Some(i.max_bytes),
                write_key_hash: Some(i.write_key_hash),
                payment: None,
                sealed: Some((&i.blocks, &i.head_hash, i.sealed_at)),
                ticket: Some((i.ticket_id, Some(i.ticket_type))),
                demo: false,
            },
            _ => return None,
        })
    }
}

/// What the journal says a ticket should look like.
#[derive(Debug, Clone)]
struct TicketRecord {
    pad_id: String,
    ticket_type: Option<TicketType>,
    created_at: i64,
    lease_started_at: Option<i64>,
    revoked_at: Option<i64>,
}

/// The journal's account of pads, their tickets and the payments that paid for them, replayed
/// entry by entry.
#[derive(Default)]
pub(super) struct PadReplay {
    pads: HashMap<String, PadRecord>,
    tickets: HashMap<Digest, TicketRecord>,
    /// Redeemed payments (pay-per-pad), by transaction hash: the `pad.create` that spent each.
    payments: HashMap<String, PaymentRow>,
    pub(super) gc: GcSummary,
    /// Verifying one pad: `repo.gc` entries are applied only as far as they concern it.
    only_pad: Option<String>,
}

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| "none".to_owned(), |v| v.to_string())
}

impl PadReplay {
    /// Replaying one pad's entries: `repo.gc` entries are applied only as far as they concern
    /// it.
    pub(super) fn only(pad_id: &str) -> Self {
        Self { only_pad: Some(pad_id.to_owned()), ..Self::default() }
    }

    /// What the journal says pad `id` should look like.
    pub(super) fn record(&self, id: &str) -> Option<&PadRecord> {
        self.pads.get(id)
    }

    /// Applies the event of one verified journal entry about pad `id`; returns a description
    /// of anything inconsistent.
    pub(super) fn apply(&mut self, e: &Entry, ev: &Event, id: &str) -> Option<String> {
        let kind = e.kind.as_str();
        if !subject::is_pad(&e.subject, id) {
            return Some(format!("a {kind} entry for pad {id} has the subject `{}`", e.subject));
        }
        if let Some(c) = Creation::of(e, ev) {
            if self.pads.contains_key(id) {
                return Some(format!("pad {id} is created twice"));
            }
            let mut rec = PadRecord::new(&e.scope, &c);
            let mut problem = None;
            if let Some(p) = c.payment {
                if let Some(detail) = self.redeem(id, p, e.time) {
                    problem.get_or_insert(detail);
                }
            }
            if let Some((blocks, head, sealed_at)) = c.sealed {
                for blk in blocks {
                    if let Some(p) = rec.block(id, blk.into(), e.time) {
                        problem.get_or_insert(p);
                    }
                }
                if *head != rec.head {
                    problem.get_or_insert(format!(
                        "pad {id} was {} with a head its blocks do not give",
                        if kind == kind::PAD_IMPORT { "imported" } else { "deposited" }
                    ));
                }
                rec.sealed_at = Some(sealed_at);
            }
            self.pads.insert(id.to_owned(), rec);
            if !c.demo {
                if let Some(p) = self.mint(id, e, c.ticket) {
                    problem.get_or_insert(p);
                }
            }
            return problem;
        }
        match ev {
            Event::PadAppend(a) => {
                let Some(rec) = self.pads.get_mut(id) else {
                    return Some(format!("pad {id} is appended to before it is created"));
                };
                if rec.pruned_at.is_some() {
                    return Some(format!("pad {id} is appended to after it was pruned"));
                }
                if rec.sealed_at.is_some() {
                    return Some(format!("pad {id} is appended to after it was sealed"));
                }
                rec.block(id, a.into(), e.time)
            }
            Event::PadSeal(seal) => {
                let Some(rec) = self.pads.get_mut(id) else {
                    return Some(format!("pad {id} is sealed before it is created"));
                };
                if rec.sealed_at.is_some() {
                    return Some(format!("pad {id} is sealed twice"));
                }
                rec.sealed_at = Some(e.time);
                if seal.head_hash != rec.head {
                    return Some(format!(
                        "pad {id} was sealed with a head its appends do not give"
                    ));
                }
                None
            }
            Event::PadTicket(t) => {
                if !self.pads.contains_key(id) {
                    return Some(format!("a ticket is minted for pad {id} before it is created"));
                }
                self.mint(id, e, Some((t.ticket_id, Some(t.ticket_type))))
            }
            Event::PadTicketRevoke(PadTicketRevoke { ticket_id: t, .. })
            | Event::PadReadLease(PadReadLease { ticket_id: t, .. }) => {
                let Some(rec) = self.tickets.get_mut(t).filter(|r| r.pad_id == id) else {
                    return Some(format!("ticket {t} of pad {id} is used before it is minted"));
                };
                let slot = if kind == kind::PAD_READ_LEASE {
                    &mut rec.lease_started_at
                } else {
                    &mut rec.revoked_at
                };
                if slot.is_some() {
                    return Some(format!("ticket {t} records a second {kind}"));
                }
                *slot = Some(e.time);
                None
            }
            _ => None,
        }
    }

    /// Records the payment a `pad.create` (or `pad.deposit`) entry redeems.
    fn redeem(&mut self, pad_id: &str, p: &Payment, time: i64) -> Option<String> {
        let hash = p.tx_hash.clone();
        if hash.is_empty() {
            return Some(format!("pad {pad_id} records a payment with no transaction"));
        }
        if self.payments.contains_key(&hash) {
            return Some(format!("payment {hash} is redeemed twice (again by pad {pad_id})"));
        }
        let row = PaymentRow {
            tx_hash: hash.clone(),
            pad_id: pad_id.to_owned(),
            payer: p.payer.clone(),
            amount_units: p.amount_units.clone(),
            token: p.token.clone(),
            recipient: p.recipient.clone(),
            chain_id: p.chain_id,
            block_number: p.block_number,
            redeemed_at: time,
        };
        self.payments.insert(hash, row);
        None
    }

    /// Applies a `repo.gc` entry: the pads it pruned must exist, be sealed or expired, and
    /// not have been pruned before; what it says their blocks were must be what they were.
    /// Verifying the whole repository, the abandoned leases it pruned are applied to `work`.
    pub(super) fn apply_gc(
        &mut self,
        e: &Entry,
        gc: &RepoGc,
        work: &mut WorkReplay,
    ) -> Option<String> {
        let mut problem = None;
        if self.only_pad.is_none() {
            let (leases, p) = work.apply_gc(e, gc, None);
            self.gc.leases += leases;
            problem = p;
        }
        if self.only_pad.is_none() {
            self.gc.runs += 1;
            self.gc.last_at = Some(e.time);
            let sizes =
                gc.blobs.iter().map(|b| b.size).chain(gc.stray_files.iter().map(|f| f.bytes));
            for size in sizes {
                self.gc.blobs += 1;
                self.gc.blob_bytes += size;
            }
        }
        for p in &gc.pads {
            let (id, blocks, bytes) = (p.pad_id.as_str(), p.blocks, p.bytes);
            if self.only_pad.as_deref().is_some_and(|only| only != id) {
                continue;
            }
            if self.only_pad.is_none() {
                self.gc.pads += 1;
                self.gc.payload_bytes += bytes;
            }
            let Some(rec) = self.pads.get_mut(id) else {
                problem.get_or_insert(format!("pad {id} is pruned before it is created"));
                continue;
            };
            let detail = if rec.pruned_at.is_some() {
                Some(format!("pad {id} is pruned twice"))
            } else if rec.sealed_at.is_none() && rec.expires_at.is_none_or(|x| x > e.time) {
                Some(format!("pad {id} was pruned while it was open"))
            } else if rec.blocks != blocks || rec.bytes != bytes {
                Some(format!(
                    "pad {id} was pruned as {blocks} blocks of {bytes} bytes, but it had {} \
                     blocks of {} bytes",
                    rec.blocks, rec.bytes
                ))
            } else {
                None
            };
            rec.pruned_at = Some(e.time);
            if let Some(d) = detail {
                problem.get_or_insert(d);
            }
        }
        problem
    }

    /// Records the ticket a `pad.create`, `pad.deposit`, `pad.import` or `pad.ticket` entry
    /// mints.
    fn mint(
        &mut self,
        pad_id: &str,
        e: &Entry,
        ticket: Option<(Digest, Option<TicketType>)>,
    ) -> Option<String> {
        let Some((t, ticket_type)) = ticket else {
            return Some(format!("a {} entry for pad {pad_id} names no ticket", e.kind));
        };
        if self.tickets.contains_key(&t) {
            return Some(format!("ticket {t} is minted twice"));
        }
        let rec = TicketRecord {
            pad_id: pad_id.to_owned(),
            ticket_type,
            created_at: e.time,
            lease_started_at: None,
            revoked_at: None,
        };
        self.tickets.insert(t, rec);
        None
    }
}

/// Calls `f` with every journal entry about one pad, oldest first, each checked against its
/// own hash (`Err` with a description when it is not intact).
pub(super) fn for_each_pad_entry(
    tx: &dyn Tx,
    pad_id: &str,
    f: &mut dyn FnMut(&JournalRow, Result<Entry, String>),
) -> OpResult<()> {
    let base = JournalQuery { subject: Some(subject::pad(pad_id)), ..JournalQuery::default() };
    for_each_entry(tx, &base, f)
}

/// Names the first block whose content type or time differs from what the journal recorded.
fn locate_meta_mismatch(tx: &dyn Tx, pad: &PadRow) -> OpResult<Option<(u64, String)>> {
    let mut want: HashMap<u64, (String, i64)> = HashMap::new();
    for_each_pad_entry(tx, &pad.id, &mut |_, e| {
        let Ok(e) = e else { return };
        let Ok(ev) = e.event() else { return };
        for blk in recorded_blocks(&ev) {
            let time = blk.created_at.unwrap_or(e.time);
            want.insert(blk.seq, (blk.content_type.to_owned(), time));
        }
    })?;
    let mut found = None;
    tx.for_each_block(&pad.id, &mut |b| {
        let Some((ct, time)) = want.get(&b.seq) else { return Flow::Continue(()) };
        let detail = if *ct != b.content_type {
            format!("content type `{}` but the journal says `{ct}`", b.content_type)
        } else if *time != b.created_at {
            format!("created_at {} but the journal says {time}", b.created_at)
        } else {
            return Flow::Continue(());
        };
        found = Some((b.seq, format!("pad {} block {} has the {detail}", pad.id, b.seq)));
        Flow::Break(())
    })?;
    Ok(found)
}

/// Names the first block whose hash or length differs from what the journal recorded.
fn locate_hash_mismatch(tx: &dyn Tx, pad: &PadRow) -> OpResult<Option<(u64, String)>> {
    let mut want: HashMap<u64, (Option<Digest>, Option<u64>)> = HashMap::new();
    for_each_pad_entry(tx, &pad.id, &mut |_, e| {
        let Ok(e) = e else { return };
        // Imported blocks are not consulted here (as before the typed events).
        let Ok(ev @ (Event::PadAppend(_) | Event::PadDeposit(_))) = e.event() else { return };
        for blk in recorded_blocks(&ev) {
            want.insert(blk.seq, (Some(*blk.curr_hash), Some(blk.bytes)));
        }
    })?;
    let mut found = None;
    tx.for_each_block(&pad.id, &mut |b| {
        let Some((curr, bytes)) = want.get(&b.seq) else { return Flow::Continue(()) };
        let len = b.pruned_bytes.unwrap_or(b.payload.len() as u64);
        let detail = if *curr != Some(b.curr_hash) {
            format!("hash {} but the journal says {}", b.curr_hash, opt(*curr))
        } else if *bytes != Some(len) {
            format!("length {len} but the journal says {}", opt(*bytes))
        } else {
            return Flow::Continue(());
        };
        found = Some((b.seq, format!("pad {} block {} has the {detail}", pad.id, b.seq)));
        Flow::Break(())
    })?;
    Ok(found)
}

/// Compares a stored pad with the journal's record of it, field by field.
pub(super) fn compare_with_journal(
    tx: &dyn Tx,
    pad: &PadRow,
    rec: Option<&PadRecord>,
    walk: &ChainWalk,
    f: &mut Findings,
) -> OpResult<()> {
    let subject = subject::pad(&pad.id);
    let Some(rec) = rec else {
        f.add("pad", &subject, None, format!("pad {} has no record in the journal", pad.id));
        return Ok(());
    };
    let mut differ = |field: &str, stored: String, journal: String| {
        f.add(
            "pad",
            &subject,
            None,
            format!("pad {}'s {field} is {stored} but the journal says {journal}", pad.id),
        );
    };
    if pad.block_count != rec.blocks {
        differ("block_count", pad.block_count.to_string(), rec.blocks.to_string());
    }
    if pad.current_bytes != rec.bytes {
        differ("current_bytes", pad.current_bytes.to_string(), rec.bytes.to_string());
    }
    if pad.head_hash != rec.head {
        differ("head_hash", pad.head_hash.to_string(), rec.head.to_string());
    }
    let journal_state = if rec.sealed_at.is_some() { "sealed" } else { "open" };
    if pad.state.as_str() != journal_state {
        differ("state", pad.state.as_str().to_owned(), journal_state.to_owned());
    }
    if pad.sealed_at != rec.sealed_at {
        differ("sealed_at", opt(pad.sealed_at), opt(rec.sealed_at));
    }
    if pad.pruned_at != rec.pruned_at {
        differ("pruned_at", opt(pad.pruned_at), opt(rec.pruned_at));
    }
    if pad.scope != rec.scope {
        differ("scope", format!("`{}`", pad.scope), format!("`{}`", rec.scope));
    }
    if pad.created_at != rec.created_at {
        differ("created_at", pad.created_at.to_string(), rec.created_at.to_string());
    }
    if rec.expires_at.is_some_and(|x| x != pad.expires_at) {
        differ("expires_at", pad.expires_at.to_string(), opt(rec.expires_at));
    }
    if rec.max_blocks.is_some_and(|x| x != u64::from(pad.max_blocks)) {
        differ("max_blocks", pad.max_blocks.to_string(), opt(rec.max_blocks));
    }
    let max_bytes = rec.max_bytes.unwrap_or(crate::domain::limits::MAX_PAD_BYTES);
    if pad.max_bytes != max_bytes {
        differ("max_bytes", pad.max_bytes.to_string(), max_bytes.to_string());
    }
    if let Some(h) = rec.write_key_hash.filter(|h| *h != pad.write_key_hash) {
        differ("write_key_hash", pad.write_key_hash.to_string(), h.to_string());
    }
    if walk.unreadable {
        // The walk stopped at a block it could not read (reported with the chain): what
        // follows compares the whole chain, and would only read that block again.
        return Ok(());
    }
    // A pruned block's hash cannot be recomputed: it must be the one the journal recorded.
    if (walk.pruned > 0 || rec.pruned_at.is_some()) && walk.hashes != rec.hashes.digest() {
        match locate_hash_mismatch(tx, pad)? {
            Some((seq, detail)) => f.add("pad", &subject, Some(seq), detail),
            None if pad.block_count == rec.blocks => f.add(
                "pad",
                &subject,
                None,
                format!("pad {}'s block hashes or lengths differ from the journal", pad.id),
            ),
            None => {}
        }
    }
    if walk.meta != rec.meta.digest() {
        match locate_meta_mismatch(tx, pad)? {
            Some((seq, detail)) => f.add("pad", &subject, Some(seq), detail),
            None if pad.block_count == rec.blocks => f.add(
                "pad",
                &subject,
                None,
                format!("pad {}'s block content types or times differ from the journal", pad.id),
            ),
            // Missing or extra blocks are reported above.
            None => {}
        }
    }
    Ok(())
}

/// Compares a stored ticket with the journal's record of it.
fn compare_ticket(t: &TicketRow, rec: Option<&TicketRecord>) -> Option<String> {
    let id = t.digest;
    let Some(r) = rec else {
        return Some(format!("ticket {id} for pad {} has no record in the journal", t.pad_id));
    };
    if r.pad_id != t.pad_id {
        return Some(format!(
            "ticket {id} is stored for pad {} but was minted for pad {}",
            t.pad_id, r.pad_id
        ));
    }
    let differ = |field: &str, stored: String, journal: String| {
        Some(format!("ticket {id}'s {field} is {stored} but the journal says {journal}"))
    };
    if r.ticket_type.is_some_and(|x| x != t.ticket_type) {
        return differ(
            "type",
            t.ticket_type.as_str().to_owned(),
            opt(r.ticket_type.map(TicketType::as_str)),
        );
    }
    if r.created_at != t.created_at {
        return differ("created_at", t.created_at.to_string(), r.created_at.to_string());
    }
    if r.revoked_at != t.revoked_at {
        return differ("revoked_at", opt(t.revoked_at), opt(r.revoked_at));
    }
    if r.lease_started_at != t.lease_started_at {
        return differ("lease_started_at", opt(t.lease_started_at), opt(r.lease_started_at));
    }
    None
}

/// Checks the stored tickets (all of them, or one pad's) against the journal: each one was
/// minted through the journal and is in the state the journal gives, and none is missing.
pub(super) fn check_tickets(
    tx: &dyn Tx,
    replay: &PadReplay,
    only_pad: Option<&str>,
    f: &mut Findings,
) -> OpResult<TicketsSummary> {
    let mut s = TicketsSummary { ok: true, checked: 0, broken: 0 };
    let mut seen = HashSet::new();
    tx.for_each_ticket(&mut |t| {
        if only_pad.is_some_and(|p| p != t.pad_id) {
            return Flow::Continue(());
        }
        s.checked += 1;
        seen.insert(t.digest);
        if let Some(detail) = compare_ticket(&t, replay.tickets.get(&t.digest)) {
            s.broken += 1;
            f.add("ticket", &format!("ticket:{}", t.digest), None, detail);
        }
        Flow::Continue(())
    })?;
    let mut missing: Vec<(&Digest, &TicketRecord)> = replay
        .tickets
        .iter()
        .filter(|(d, r)| !seen.contains(*d) && only_pad.is_none_or(|p| p == r.pad_id))
        .collect();
    missing.sort_by_key(|(d, _)| **d);
    for (d, r) in missing {
        s.broken += 1;
        f.add(
            "ticket",
            &format!("ticket:{d}"),
            None,
            format!("ticket {d} of pad {} is in the journal but missing from the store", r.pad_id),
        );
    }
    s.ok = s.broken == 0;
    Ok(s)
}

/// Checks the redeemed payments against the journal: every stored one was redeemed by a
/// `pad.create` entry, exactly as recorded, and none is missing (a missing row would let a
/// spent transaction pay again).
pub(super) fn check_payments(tx: &dyn Tx, replay: &PadReplay, f: &mut Findings) -> OpResult<()> {
    let mut seen = HashSet::new();
    tx.for_each_payment(&mut |row| {
        let subject = format!("payment:{}", row.tx_hash);
        match replay.payments.get(&row.tx_hash) {
            None => f.add(
                "payment",
                &subject,
                None,
                format!("payment {} is in the store but no pad.create redeemed it", row.tx_hash),
            ),
            Some(rec) if *rec != row => f.add(
                "payment",
                &subject,
                None,
                format!(
                    "payment {} differs from its journal entry (pad {} in the store, {} in the journal)",
                    row.tx_hash, row.pad_id, rec.pad_id
                ),
            ),
            Some(_) => {}
        }
        seen.insert(row.tx_hash);
        Flow::Continue(())
    })?;
    let mut missing: Vec<&PaymentRow> =
        replay.payments.values().filter(|r| !seen.contains(&r.tx_hash)).collect();
    missing.sort_by(|a, b| a.tx_hash.cmp(&b.tx_hash));
    for r in missing {
        f.add(
            "payment",
            &format!("payment:{}", r.tx_hash),
            None,
            format!(
                "payment {} redeemed by pad {} is in the journal but missing from the store",
                r.tx_hash, r.pad_id
            ),
        );
    }
    Ok(())
}

/// Walks every stored pad's chain and compares it with the journal's record of it; a pad the
/// journal records but the store lacks is broken too.
///
/// `walked` holds the chains [`super::chains::walk_chains`] already walked at the same
/// snapshot (on another connection); a pad not among them is walked here.
pub(super) fn check_pads(
    tx: &dyn Tx,
    replay: &PadReplay,
    mut walked: HashMap<String, ChainWalk>,
    f: &mut Findings,
    progress: &dyn Progress,
) -> OpResult<PadsSummary> {
    let mut pads = PadsSummary { ok: true, ..PadsSummary::default() };
    let mut seen = HashSet::new();
    let mut pad_err = None;
    tx.for_each_pad(&mut |pad| {
        let before = f.count;
        let rec = replay.pads.get(&pad.id);
        let pruned_by_gc = rec.is_some_and(|r| r.pruned_at.is_some());
        let walk = match walked.remove(&pad.id) {
            Some(walk) => {
                report_chain(&pad, pruned_by_gc, &walk, f);
                Ok(walk)
            }
            None => check_pad_chain(tx, &pad, pruned_by_gc, f, progress),
        };
        let checked = walk.and_then(|walk| {
            compare_with_journal(tx, &pad, rec, &walk, f)?;
            Ok(walk)
        });
        let walk = match checked {
            Ok(walk) => walk,
            Err(e) => {
                pad_err = Some(e);
                return Flow::Break(());
            }
        };
        pads.checked += 1;
        pads.blocks += pad.block_count;
        pads.bytes += pad.current_bytes;
        if pad.pruned_at.is_some() || walk.pruned > 0 {
            pads.pruned += 1;
            pads.pruned_blocks += walk.pruned;
        }
        if f.count > before {
            pads.broken += 1;
        }
        seen.insert(pad.id);
        Flow::Continue(())
    })?;
    if let Some(e) = pad_err {
        return Err(e);
    }
    let mut missing: Vec<&String> = replay.pads.keys().filter(|id| !seen.contains(*id)).collect();
    missing.sort();
    for id in missing {
        pads.broken += 1;
        f.add(
            "pad",
            &subject::pad(id),
            None,
            format!("pad {id} is in the journal but missing from the store"),
        );
    }
    pads.ok = pads.broken == 0;
    Ok(pads)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::event::PadAppend;

    fn append(subject: &str) -> (Entry, Event) {
        let ev = Event::from(PadAppend {
            pad_id: "p".into(),
            seq: 0,
            curr_hash: Digest::of(b"block"),
            bytes: 5,
            content_type: "text/plain".into(),
            sha256: None,
            signed: None,
        });
        let e = Entry {
            v: 1,
            seq: 2,
            time: 1,
            kind: ev.kind().into(),
            actor: "operator".into(),
            scope: "default".into(),
            subject: subject.into(),
            body: serde_json::Value::Null,
        };
        (e, ev)
    }

    #[test]
    fn an_entry_must_name_its_pad_as_its_subject() {
        let mut replay = PadReplay::default();
        for subject in ["pad:q", "pad:", "pad:pp", "p", "agent:p", "pad:p "] {
            let (e, ev) = append(subject);
            let problem = replay.apply(&e, &ev, "p").expect("a problem");
            assert!(problem.contains("has the subject"), "{subject}: {problem}");
        }
        let (e, ev) = append("pad:p");
        assert_eq!(
            replay.apply(&e, &ev, "p").as_deref(),
            Some("pad p is appended to before it is created")
        );
    }
}
