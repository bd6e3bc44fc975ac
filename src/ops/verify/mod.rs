//! `locker verify`: the whole repository, like `git fsck`, or one pad.
//!
//! The journal is walked once in sequence order (constant memory apart from a small record per
//! pad and ticket): every entry's link, hash, framing and index columns, and the stored head.
//! What the journal says about each pad (its last head, block count and state) and each ticket
//! is then compared with the stored pads and tickets, so a chain that was rewritten and re-hashed
//! behind locker's back is caught even though it is internally consistent.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::domain::chain::ChainChecker;
use crate::domain::digest::Digest;
use crate::domain::event::{
    kind, subject, BlockRecord, DecodeError, Event, PadAppend, PadReadLease, PadTicketRevoke,
    Payment, RepoGc,
};
use crate::domain::journal::{self, Entry};
use crate::domain::pad::{PadState, TicketType};
use crate::ops::log::journal::{for_each_entry, malformed_body};
use crate::ops::{Ctx, OpError, OpResult, Progress};
use crate::store::{
    BlobStorage, Flow, JournalQuery, JournalRow, PadRow, PaymentRow, StoreError, TicketRow, Tx,
};

/// Most problems listed in one report (the count is always exact).
pub const MAX_LISTED_PROBLEMS: usize = 100;

/// One thing found broken.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Problem {
    /// `journal`, `pad`, `ticket`, `lease`, `plan` or `step`.
    pub kind: String,
    /// What is broken: `journal`, `pad:<id>`, `ticket:<id>`, `work:<work item>`.
    pub subject: String,
    /// The journal entry or block number, where there is one.
    pub seq: Option<u64>,
    pub detail: String,
}

/// The journal part of a report.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct JournalSummary {
    pub ok: bool,
    pub entries: u64,
    pub head_seq: u64,
    pub head_hash: Digest,
}

/// The Merkle tree and signed-checkpoint part of a report.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct MerkleSummary {
    pub ok: bool,
    /// Leaves the journal has, and hashes the stored tree holds.
    pub leaves: u64,
    pub stored_hashes: u64,
    /// The recomputed root of the whole journal.
    pub root: Option<Digest>,
    /// `true` when the repository predates the tree and it was not built yet (the next write
    /// or `locker checkpoint` builds it).
    pub pending: bool,
    /// Signed checkpoints stored, the largest size among them, and whether their signatures
    /// were checked (they are when the log key is at hand).
    pub checkpoints: u64,
    pub latest_checkpoint: Option<u64>,
    pub signatures_checked: bool,
}

/// The pad part of a report.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct PadsSummary {
    pub ok: bool,
    pub checked: u64,
    pub blocks: u64,
    pub bytes: u64,
    pub broken: u64,
    /// Pads whose payloads `locker gc` removed, and their blocks: their links, lengths and
    /// hashes are checked against the journal, their payloads cannot be.
    #[serde(default)]
    pub pruned: u64,
    #[serde(default)]
    pub pruned_blocks: u64,
}

/// What the journal's `repo.gc` entries say was removed.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct GcSummary {
    /// `locker gc` runs recorded.
    pub runs: u64,
    /// The last run's time.
    pub last_at: Option<i64>,
    /// Pads pruned, and the payload bytes that went with them.
    pub pads: u64,
    pub payload_bytes: u64,
    /// Unreferenced blobs and stray blob files removed, and their bytes.
    pub blobs: u64,
    pub blob_bytes: u64,
    /// Abandoned leases whose text (and their plans' and steps') was pruned.
    #[serde(default)]
    pub leases: u64,
}

/// The lease, plan and step part of a report.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct LeasesSummary {
    pub ok: bool,
    pub leases: u64,
    pub plans: u64,
    pub steps: u64,
    /// Rows (leases, plans, steps) that differ from the journal or are missing on either side.
    pub broken: u64,
}

/// The ticket part of a report.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct TicketsSummary {
    pub ok: bool,
    pub checked: u64,
    pub broken: u64,
}

/// `locker verify` of a whole repository.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RepoReport {
    pub ok: bool,
    pub journal: JournalSummary,
    pub pads: PadsSummary,
    pub tickets: TicketsSummary,
    #[serde(default)]
    pub agents: AgentsSummary,
    #[serde(default)]
    pub blobs: BlobsSummary,
    #[serde(default)]
    pub artifacts: ArtifactsSummary,
    #[serde(default)]
    pub leases: LeasesSummary,
    /// What `locker gc` removed, by the journal.
    #[serde(default)]
    pub gc: GcSummary,
    /// Agent keys and signed writes: every signature re-verified, who signed what.
    #[serde(default)]
    pub signatures: crate::ops::keys::SignaturesSummary,
    /// The journal's Merkle tree and the signed checkpoints, recomputed from the journal.
    #[serde(default)]
    pub merkle: MerkleSummary,
    /// The verdict against the journal head the caller expects, if one was given.
    pub expected_head: Option<ExpectedHead>,
    /// The first broken item of each kind, by kind.
    pub first_broken: HashMap<String, Problem>,
    pub problem_count: u64,
    /// Up to [`MAX_LISTED_PROBLEMS`] problems, in the order found.
    pub problems: Vec<Problem>,
}

/// The verdict against a caller's expected head.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct ExpectedHead {
    pub expected: Digest,
    pub matches: bool,
}

/// `locker verify PAD`.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PadReport {
    pub ok: bool,
    pub pad_id: String,
    pub state: PadState,
    pub block_count: u64,
    /// Blocks verified before the first broken one (all of them when the chain is intact).
    pub blocks_verified: u64,
    /// Blocks among them whose payloads were pruned (their hashes checked against the
    /// journal instead of re-computed), and when the pad was pruned.
    #[serde(default)]
    pub blocks_pruned: u64,
    #[serde(default)]
    pub pruned_at: Option<i64>,
    /// The stored head.
    pub head_hash: Digest,
    /// The head recomputed from the payloads.
    pub computed_head: Digest,
    /// The head the journal last recorded for this pad.
    pub journal_head: Option<Digest>,
    pub expected_head: Option<ExpectedHead>,
    pub problems: Vec<Problem>,
}

#[derive(Default)]
struct Findings {
    count: u64,
    listed: Vec<Problem>,
    first: HashMap<String, Problem>,
}

impl Findings {
    fn add(&mut self, kind: &str, subject: &str, seq: Option<u64>, detail: String) {
        let p = Problem { kind: kind.into(), subject: subject.into(), seq, detail };
        self.count += 1;
        self.first.entry(kind.to_owned()).or_insert_with(|| p.clone());
        if self.listed.len() < MAX_LISTED_PROBLEMS {
            self.listed.push(p);
        }
    }
}

/// What the journal says a pad should look like.
#[derive(Debug, Clone)]
struct PadRecord {
    scope: String,
    created_at: i64,
    expires_at: Option<i64>,
    max_blocks: Option<u64>,
    max_bytes: Option<u64>,
    write_key_hash: Option<Digest>,
    blocks: u64,
    bytes: u64,
    head: Digest,
    /// A running digest of every block's sequence number, content type and time (the fields
    /// the pad's hash chain does not cover).
    meta: Digest,
    /// A running digest of every block's sequence number, hash and length: what stands in for
    /// a pruned payload.
    hashes: Digest,
    sealed_at: Option<i64>,
    /// When a `repo.gc` entry pruned it.
    pruned_at: Option<i64>,
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
            meta: Digest::ZERO,
            hashes: Digest::ZERO,
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
        self.meta = meta_link(&self.meta, seq, b.content_type, time);
        self.hashes = hashes_link(&self.hashes, seq, b.curr_hash, b.bytes);
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

/// Folds one block's hash and length into a pad's running digest of them.
fn hashes_link(prev: &Digest, seq: u64, curr_hash: &Digest, bytes: u64) -> Digest {
    Digest::of_parts(&[&prev.0, &seq.to_be_bytes(), &curr_hash.0, &bytes.to_be_bytes()])
}

/// Folds one block's unhashed fields into a pad's running metadata digest.
fn meta_link(prev: &Digest, seq: u64, content_type: &str, created_at: i64) -> Digest {
    let len = content_type.len() as u64;
    Digest::of_parts(&[
        &prev.0,
        &seq.to_be_bytes(),
        &len.to_be_bytes(),
        content_type.as_bytes(),
        &created_at.to_be_bytes(),
    ])
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

#[derive(Default)]
struct Replay {
    pads: HashMap<String, PadRecord>,
    tickets: HashMap<Digest, TicketRecord>,
    /// Redeemed payments (pay-per-pad), by transaction hash: the `pad.create` that spent each.
    payments: HashMap<String, PaymentRow>,
    work: crate::ops::work::history::WorkReplay,
    artifacts: ArtifactReplay,
    gc: GcSummary,
    /// Verifying one pad: `repo.gc` entries are applied only as far as they concern it.
    only_pad: Option<String>,
}

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| "none".to_owned(), |v| v.to_string())
}

impl Replay {
    /// Applies the event of one verified journal entry; returns a description of anything
    /// inconsistent.
    fn apply(&mut self, e: &Entry, ev: &Event) -> Option<String> {
        if let Some(problem) = self.work.apply(e, ev) {
            return problem;
        }
        if let Event::RepoGc(gc) = ev {
            return self.apply_gc(e, gc);
        }
        let Some(id) = ev.pad_id() else {
            return self.artifacts.apply(e, ev);
        };
        let kind = e.kind.as_str();
        if e.subject != subject::pad(id) {
            return Some(format!("a {kind} entry for pad {id} has the subject `{}`", e.subject));
        }
        let id = id.to_owned();
        if let Some(c) = Creation::of(e, ev) {
            if self.pads.contains_key(&id) {
                return Some(format!("pad {id} is created twice"));
            }
            let mut rec = PadRecord::new(&e.scope, &c);
            let mut problem = None;
            if let Some(p) = c.payment {
                if let Some(detail) = self.redeem(&id, p, e.time) {
                    problem.get_or_insert(detail);
                }
            }
            if let Some((blocks, head, sealed_at)) = c.sealed {
                for blk in blocks {
                    if let Some(p) = rec.block(&id, blk.into(), e.time) {
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
            self.pads.insert(id.clone(), rec);
            if !c.demo {
                if let Some(p) = self.mint(&id, e, c.ticket) {
                    problem.get_or_insert(p);
                }
            }
            return problem;
        }
        match ev {
            Event::PadAppend(a) => {
                let Some(rec) = self.pads.get_mut(&id) else {
                    return Some(format!("pad {id} is appended to before it is created"));
                };
                if rec.pruned_at.is_some() {
                    return Some(format!("pad {id} is appended to after it was pruned"));
                }
                if rec.sealed_at.is_some() {
                    return Some(format!("pad {id} is appended to after it was sealed"));
                }
                rec.block(&id, a.into(), e.time)
            }
            Event::PadSeal(seal) => {
                let Some(rec) = self.pads.get_mut(&id) else {
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
                if !self.pads.contains_key(&id) {
                    return Some(format!("a ticket is minted for pad {id} before it is created"));
                }
                self.mint(&id, e, Some((t.ticket_id, Some(t.ticket_type))))
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
    fn apply_gc(&mut self, e: &Entry, gc: &RepoGc) -> Option<String> {
        let mut problem = None;
        if self.only_pad.is_none() {
            let (leases, p) = self.work.apply_gc(e, gc, None);
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

/// Checks one journal row against its predecessor; returns the decoded entry when its bytes
/// are intact.
fn check_entry(
    row: &JournalRow,
    expected_seq: u64,
    prev: &Digest,
    f: &mut Findings,
) -> Option<Entry> {
    let seq = Some(row.seq);
    if row.seq != expected_seq {
        f.add(
            "journal",
            "journal",
            seq,
            format!("entry {expected_seq} is missing: the next stored entry is {}", row.seq),
        );
    }
    if row.prev_hash != *prev {
        f.add(
            "journal",
            "journal",
            seq,
            format!("entry {} does not link to the entry before it", row.seq),
        );
    }
    if journal::link(&row.prev_hash, &row.entry) != row.hash {
        f.add(
            "journal",
            "journal",
            seq,
            format!("entry {} has been altered: its hash does not match its bytes", row.seq),
        );
        return None;
    }
    let Ok(e) = Entry::decode(&row.entry) else {
        f.add("journal", "journal", seq, format!("entry {} is not a valid journal entry", row.seq));
        return None;
    };
    let mismatched = [
        ("seq", e.seq != row.seq),
        ("time", e.time != row.time),
        ("kind", e.kind != row.kind),
        ("actor", e.actor != row.actor),
        ("scope", e.scope != row.scope),
        ("subject", e.subject != row.subject),
    ];
    for (col, bad) in mismatched {
        if bad {
            f.add(
                "journal",
                "journal",
                seq,
                format!("entry {}'s `{col}` column differs from its hashed bytes", row.seq),
            );
        }
    }
    Some(e)
}

/// What walking one pad's stored blocks found.
struct ChainWalk {
    /// Blocks verified before the first problem (all of them when the chain is intact).
    verified: u64,
    /// The head recomputed from the payloads.
    computed: Digest,
    /// The running digest of the blocks' unhashed fields (see [`meta_link`]).
    meta: Digest,
    /// The running digest of the blocks' hashes and lengths (see [`hashes_link`]).
    hashes: Digest,
    /// Blocks whose payloads were pruned.
    pruned: u64,
}

/// Walks one pad's stored chain, recording every problem. `pruned_by_gc` says whether the
/// journal records the pad as pruned: only then may its blocks lack their payloads.
fn check_pad_chain(
    tx: &dyn Tx,
    pad: &PadRow,
    pruned_by_gc: bool,
    f: &mut Findings,
    progress: &dyn Progress,
) -> OpResult<ChainWalk> {
    let subject = subject::pad(&pad.id);
    let mut checker = ChainChecker::new();
    let mut verified = 0u64;
    let mut meta = Digest::ZERO;
    let mut hashes = Digest::ZERO;
    let mut unjournaled = Vec::new();
    tx.for_each_block(&pad.id, &mut |b| {
        let bytes = match b.pruned_bytes {
            Some(n) => {
                if !pruned_by_gc {
                    unjournaled.push(b.seq);
                }
                checker.pruned_block(b.seq, &b.prev_hash, &b.curr_hash, n);
                n
            }
            None => {
                checker.block(b.seq, &b.prev_hash, &b.curr_hash, &b.payload);
                b.payload.len() as u64
            }
        };
        if checker.is_clean() {
            verified += 1;
        }
        meta = meta_link(&meta, b.seq, &b.content_type, b.created_at);
        hashes = hashes_link(&hashes, b.seq, &b.curr_hash, bytes);
        progress.advance(1);
        Flow::Continue(())
    })?;
    let computed = checker.computed_head();
    let pruned = checker.pruned();
    for seq in unjournaled {
        f.add(
            "pad",
            &subject,
            Some(seq),
            format!(
                "pad {} block {seq}'s payload is marked pruned, but the journal records no gc \
                 of this pad",
                pad.id
            ),
        );
    }
    for p in checker.finish(&pad.head_hash, pad.block_count, pad.current_bytes) {
        f.add("pad", &subject, p.seq(), format!("pad {}: {p}", pad.id));
    }
    Ok(ChainWalk { verified, computed, meta, hashes, pruned })
}

/// Calls `f` with every journal entry about one pad, oldest first, each checked against its
/// own hash (`Err` with a description when it is not intact).
fn for_each_pad_entry(
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
fn compare_with_journal(
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
    // A pruned block's hash cannot be recomputed: it must be the one the journal recorded.
    if (walk.pruned > 0 || rec.pruned_at.is_some()) && walk.hashes != rec.hashes {
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
    if walk.meta != rec.meta {
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
fn check_tickets(
    tx: &dyn Tx,
    replay: &Replay,
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
fn check_payments(tx: &dyn Tx, replay: &Replay, f: &mut Findings) -> OpResult<()> {
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

/// Verifies the whole repository.
pub fn repository(
    ctx: &mut Ctx<'_>,
    expect_head: Option<Digest>,
    progress: &dyn Progress,
) -> OpResult<RepoReport> {
    repository_with_key(ctx, expect_head, progress, None)
}

/// [`repository`], also checking every stored checkpoint's signature with the log's key.
pub fn repository_with_key(
    ctx: &mut Ctx<'_>,
    expect_head: Option<Digest>,
    progress: &dyn Progress,
    key: Option<&crate::domain::note::Verifier>,
) -> OpResult<RepoReport> {
    repository_with(ctx, expect_head, progress, key, false)
}

/// [`repository_with_key`], where `require_signed` makes every unsigned pad append, artifact
/// publish and step a problem (`locker verify --require-signed`).
pub fn repository_with(
    ctx: &mut Ctx<'_>,
    expect_head: Option<Digest>,
    progress: &dyn Progress,
    key: Option<&crate::domain::note::Verifier>,
    require_signed: bool,
) -> OpResult<RepoReport> {
    let tx = ctx.store.read()?;
    let counts = tx.counts()?;
    progress.start("verifying", counts.journal + counts.blocks);
    let mut f = Findings::default();
    let mut replay = Replay::default();
    let mut signatures = crate::ops::keys::Replay::default();
    signatures.require_all = require_signed;

    // 1. The journal.
    let mut expected = 1u64;
    let mut prev = Digest::ZERO;
    let mut entries = 0u64;
    let mut leaves = Vec::with_capacity(usize::try_from(counts.journal).unwrap_or(0));
    tx.for_each_journal(&mut |row| {
        entries += 1;
        leaves.push(crate::domain::merkle::leaf_hash(&row.entry));
        if let Some(e) = check_entry(&row, expected, &prev, &mut f) {
            match e.event() {
                Ok(ev) => {
                    if let Some(problem) = replay.apply(&e, &ev) {
                        f.add("journal", "journal", Some(row.seq), problem);
                    }
                    for problem in signatures.apply(&e, &ev).1 {
                        signatures.summary.broken += 1;
                        f.add("signature", &e.subject, Some(row.seq), problem);
                    }
                }
                Err(DecodeError::Malformed { .. }) => {
                    f.add("journal", "journal", Some(row.seq), malformed_body(&e));
                }
                Err(DecodeError::UnknownKind(_)) => {}
            }
        }
        prev = row.hash;
        expected = row.seq + 1;
        progress.advance(1);
        Flow::Continue(())
    })?;
    let last_seq = expected - 1;
    match tx.journal_head()? {
        Some(h) if h.seq == last_seq && h.hash == prev => {}
        Some(h) => f.add(
            "journal",
            "journal",
            Some(h.seq),
            format!(
                "the journal head names entry {} ({}), but the journal ends at entry {last_seq} ({prev})",
                h.seq, h.hash
            ),
        ),
        None if entries == 0 => f.add("journal", "journal", None, "the journal is empty".into()),
        None => f.add("journal", "journal", None, "the journal head is missing".into()),
    }
    let journal_ok = !f.first.contains_key("journal");
    let merkle = check_merkle(tx.as_ref(), &leaves, key, &mut f)?;
    drop(leaves);

    // 2. Every pad's chain, and against the journal.
    let mut pads = PadsSummary { ok: true, ..PadsSummary::default() };
    let mut seen = HashSet::new();
    let mut pad_err = None;
    tx.for_each_pad(&mut |pad| {
        let before = f.count;
        let rec = replay.pads.get(&pad.id);
        let pruned_by_gc = rec.is_some_and(|r| r.pruned_at.is_some());
        let checked =
            check_pad_chain(tx.as_ref(), &pad, pruned_by_gc, &mut f, progress).and_then(|walk| {
                compare_with_journal(tx.as_ref(), &pad, rec, &walk, &mut f)?;
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

    // 3. Tickets: every stored ticket was minted through the journal, with the same state.
    let tickets = check_tickets(tx.as_ref(), &replay, None, &mut f)?;
    check_payments(tx.as_ref(), &replay, &mut f)?;

    // 4. Agents, blobs, artifact versions, heads and receipts, against the journal.
    let (agents, blobs, artifacts) = check_artifacts(tx.as_ref(), &mut replay.artifacts, &mut f)?;
    // 4. Leases, plans and steps: every stored row as the journal recorded it.
    let mut broken = 0u64;
    let counts = crate::ops::work::history::check_store(
        tx.as_ref(),
        &replay.work,
        None,
        &mut |kind, subject, detail| {
            broken += 1;
            f.add(kind, &subject, None, detail);
        },
    )?;
    let mut key_problems = 0u64;
    signatures.check_store(tx.as_ref(), &mut |kind, subject, detail| {
        key_problems += 1;
        f.add(kind, &subject, None, detail);
    })?;
    signatures.summary.broken += key_problems;
    signatures.summary.required = require_signed;
    let leases = LeasesSummary {
        ok: broken == 0,
        leases: counts.leases,
        plans: counts.plans,
        steps: counts.steps,
        broken,
    };
    progress.finish();
    let expected_head =
        expect_head.map(|expected| ExpectedHead { expected, matches: expected == prev });
    if let Some(e) = expected_head.as_ref().filter(|e| !e.matches) {
        f.add(
            "journal",
            "journal",
            Some(last_seq),
            format!("the journal head {prev} is not the expected head {}", e.expected),
        );
    }

    Ok(RepoReport {
        ok: f.count == 0,
        journal: JournalSummary { ok: journal_ok, entries, head_seq: last_seq, head_hash: prev },
        pads,
        tickets,
        agents,
        blobs,
        artifacts,
        leases,
        gc: replay.gc,
        signatures: crate::ops::keys::SignaturesSummary {
            ok: signatures.summary.broken == 0,
            ..signatures.summary
        },
        merkle,
        expected_head,
        first_broken: f.first,
        problem_count: f.count,
        problems: f.listed,
    })
}

/// Recomputes the journal's Merkle tree from its leaves and compares every stored hash and
/// every signed checkpoint with it.
fn check_merkle(
    tx: &dyn Tx,
    leaves: &[Digest],
    key: Option<&crate::domain::note::Verifier>,
    f: &mut Findings,
) -> OpResult<MerkleSummary> {
    use crate::domain::merkle::{stored_count, Frontier};
    use crate::domain::note::SignedCheckpoint;
    let before = f.count;
    let n = leaves.len() as u64;
    let count = tx.merkle_count()?;
    let mut checkpoints = Vec::new();
    tx.for_each_checkpoint(&mut |c| {
        checkpoints.push(c);
        Flow::Continue(())
    })?;
    let mut s = MerkleSummary {
        leaves: n,
        stored_hashes: count,
        checkpoints: checkpoints.len() as u64,
        latest_checkpoint: checkpoints.last().map(|c| c.size),
        signatures_checked: key.is_some(),
        ..MerkleSummary::default()
    };
    // The roots at the checkpoints' sizes and at the end, recomputed.
    let mut roots = HashMap::new();
    let mut fr = Frontier::default();
    let wanted: HashSet<u64> = checkpoints.iter().map(|c| c.size).collect();
    if wanted.contains(&0) {
        roots.insert(0, fr.root());
    }
    for leaf in leaves {
        fr.push(*leaf);
        if wanted.contains(&fr.size) {
            roots.insert(fr.size, fr.root());
        }
    }
    s.root = Some(fr.root());
    if count == 0 && checkpoints.is_empty() && n > 0 {
        s.pending = true;
    } else {
        let expected = stored_count(n);
        if count != expected {
            f.add(
                "merkle",
                "merkle",
                None,
                format!(
                    "the Merkle tree holds {count} hashes, but a journal of {n} entries needs \
                     {expected}"
                ),
            );
        }
        // Stream the stored hashes against the recomputed ones, in stored order.
        let mut fr = Frontier::default();
        let mut queue = std::collections::VecDeque::new();
        let mut next_leaf = leaves.iter();
        let mut pos = 0u64;
        tx.for_each_merkle_hash(&mut |idx, stored| {
            if queue.is_empty() {
                if let Some(leaf) = next_leaf.next() {
                    let index = fr.size;
                    for (level, h) in fr.push(*leaf).into_iter().enumerate() {
                        queue.push_back((level, index >> level, h));
                    }
                }
            }
            let Some((level, node, want)) = queue.pop_front() else { return Flow::Break(()) };
            if idx != pos || stored != want {
                let what = if level == 0 {
                    format!("the leaf hash of journal entry {}", node + 1)
                } else {
                    format!(
                        "the level-{level} hash over entries {}..={}",
                        (node << level) + 1,
                        (node + 1) << level
                    )
                };
                f.add(
                    "merkle",
                    "merkle",
                    (level == 0).then_some(node + 1),
                    format!(
                        "{what} (stored at position {idx}) is {stored}, but the journal gives \
                         {want}"
                    ),
                );
                return Flow::Break(());
            }
            pos += 1;
            Flow::Continue(())
        })?;
    }
    for c in &checkpoints {
        let subject = format!("checkpoint:{}", c.size);
        let claimed = match SignedCheckpoint::parse_unverified(&c.note) {
            Ok(claimed) => claimed,
            Err(e) => {
                f.add("checkpoint", &subject, None, format!("its note is malformed: {e}"));
                continue;
            }
        };
        if claimed.size != c.size || claimed.root != c.root {
            f.add(
                "checkpoint",
                &subject,
                None,
                format!(
                    "its note says size {} and root {}, its row size {} and root {}",
                    claimed.size, claimed.root, c.size, c.root
                ),
            );
        }
        if let Some(k) = key {
            if let Err(e) = SignedCheckpoint::verify(&c.note, k) {
                f.add("checkpoint", &subject, None, format!("its signature: {e}"));
            }
        }
        match roots.get(&c.size) {
            None => f.add(
                "checkpoint",
                &subject,
                None,
                format!("it was signed for {} entries, but the journal has {n}", c.size),
            ),
            Some(root) if *root != claimed.root => f.add(
                "checkpoint",
                &subject,
                None,
                format!(
                    "it signed root {} for {} entries, but the journal gives {root}: the journal \
                     was rewritten after it was signed",
                    claimed.root, c.size
                ),
            ),
            Some(_) => {}
        }
    }
    s.ok = f.count == before;
    Ok(s)
}

/// Parses a caller-supplied expected head.
pub fn parse_expected_head(s: &str) -> OpResult<Digest> {
    Digest::parse(s)
        .map_err(|_| OpError::bad_request("the expected head must be 64 lowercase hex characters"))
}

/// Verifies one pad: its chain, its accounting, the journal's record of it and of its tickets,
/// and optionally a head the caller expects.
pub fn pad(ctx: &mut Ctx<'_>, pad_id: &str, expect_head: Option<Digest>) -> OpResult<PadReport> {
    let now = ctx.now();
    let tx = ctx.store.read()?;
    let pad = tx.pad(pad_id)?.ok_or_else(|| OpError::not_found("pad not found"))?;
    let mut f = Findings::default();

    // Replay this pad's journal entries, then the gc runs that pruned it (each checked against
    // its own hash).
    let mut replay = Replay { only_pad: Some(pad.id.clone()), ..Replay::default() };
    let mut apply = |row: &JournalRow, e: Result<Entry, String>| match e {
        Ok(e) => match e.event() {
            Ok(ev) => {
                if let Some(p) = replay.apply(&e, &ev) {
                    f.add("journal", "journal", Some(row.seq), p);
                }
            }
            Err(DecodeError::Malformed { .. }) => {
                f.add("journal", "journal", Some(row.seq), malformed_body(&e));
            }
            Err(DecodeError::UnknownKind(_)) => {}
        },
        Err(p) => f.add("journal", "journal", Some(row.seq), p),
    };
    for_each_pad_entry(tx.as_ref(), &pad.id, &mut apply)?;
    let gc_runs = JournalQuery { kind: Some(kind::REPO_GC.into()), ..JournalQuery::default() };
    for_each_entry(tx.as_ref(), &gc_runs, &mut apply)?;
    let rec = replay.pads.get(&pad.id);
    let pruned_by_gc = rec.is_some_and(|r| r.pruned_at.is_some());
    let walk = check_pad_chain(tx.as_ref(), &pad, pruned_by_gc, &mut f, &crate::ops::NoProgress)?;
    compare_with_journal(tx.as_ref(), &pad, rec, &walk, &mut f)?;
    check_tickets(tx.as_ref(), &replay, Some(&pad.id), &mut f)?;
    let subject = subject::pad(&pad.id);
    let expected_head = expect_head.map(|expected| ExpectedHead {
        expected,
        matches: expected == pad.head_hash && expected == walk.computed,
    });
    if let Some(e) = &expected_head {
        if !e.matches {
            f.add(
                "pad",
                &subject,
                None,
                format!("the pad's head {} is not the expected head {}", walk.computed, e.expected),
            );
        }
    }
    Ok(PadReport {
        ok: f.count == 0,
        pad_id: pad.id.clone(),
        state: PadState::at(pad.state, pad.expires_at, now),
        block_count: pad.block_count,
        blocks_verified: walk.verified,
        blocks_pruned: walk.pruned,
        pruned_at: pad.pruned_at,
        head_hash: pad.head_hash,
        computed_head: walk.computed,
        journal_head: rec.map(|r| r.head),
        expected_head,
        problems: f.listed,
    })
}

// ---------------------------------------------------------------------------------------------
// Agents, blobs and artifacts (journal kinds `token.*` and `artifact.*`).

/// The agent part of a report.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct AgentsSummary {
    pub ok: bool,
    pub checked: u64,
    pub broken: u64,
}

/// The blob part of a report.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct BlobsSummary {
    pub ok: bool,
    pub checked: u64,
    pub inline: u64,
    pub files: u64,
    pub bytes: u64,
    pub broken: u64,
}

/// The artifact part of a report (versions, heads and receipts).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct ArtifactsSummary {
    pub ok: bool,
    pub keys: u64,
    pub versions: u64,
    pub receipts: u64,
    pub broken: u64,
}

/// What the journal says one artifact version is.
#[derive(Debug, Clone)]
struct VersionRecord {
    sha256: Digest,
    size: u64,
    actor: String,
    op_id: String,
    found: bool,
}

/// What the journal says about one key: its versions in order.
#[derive(Debug, Clone, Default)]
struct KeyRecord {
    versions: BTreeMap<u64, VersionRecord>,
    head_found: bool,
}

impl KeyRecord {
    fn head(&self) -> u64 {
        self.versions.keys().next_back().copied().unwrap_or(0)
    }
}

/// What the journal says one receipt is.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ReceiptRecord {
    scope: String,
    key: String,
    expected_version: u64,
    version: u64,
    fence: Option<crate::domain::work::Fence>,
    found: bool,
}

/// What the journal says one agent is.
#[derive(Debug, Clone)]
struct AgentRecord {
    scope: String,
    token_id: Digest,
    revoked: bool,
    found: bool,
}

/// The journal's account of agents and artifacts, replayed entry by entry.
#[derive(Default)]
struct ArtifactReplay {
    /// By (scope, key).
    keys: BTreeMap<(String, String), KeyRecord>,
    /// By (actor, operation id).
    receipts: BTreeMap<(String, String), ReceiptRecord>,
    agents: BTreeMap<String, AgentRecord>,
}

fn artifact_subject(scope: &str, key: &str) -> String {
    format!("artifact:{scope}:{key}")
}

impl ArtifactReplay {
    fn apply(&mut self, e: &Entry, ev: &Event) -> Option<String> {
        match ev {
            Event::TokenCreate(b) => {
                let agent = b.agent.clone();
                let rec = AgentRecord {
                    scope: b.scope.clone(),
                    token_id: b.token_id,
                    revoked: false,
                    found: false,
                };
                if self.agents.insert(agent.clone(), rec).is_some() {
                    return Some(format!("agent {agent} is created twice"));
                }
            }
            Event::TokenRevoke(b) => {
                let agent = &b.agent;
                match self.agents.get_mut(agent) {
                    Some(rec) => rec.revoked = true,
                    None => return Some(format!("agent {agent} is revoked but never created")),
                }
            }
            Event::ArtifactPublish(b) => {
                let key = b.key.clone();
                let (version, expected) = (b.version, b.expected_version);
                let op_id = b.op_id.clone();
                let rec = self.keys.entry((e.scope.clone(), key.clone())).or_default();
                let head = rec.head();
                if expected != head || version != head + 1 {
                    return Some(format!(
                        "version {version} of {} is recorded out of order (after version {head})",
                        artifact_subject(&e.scope, &key)
                    ));
                }
                rec.versions.insert(
                    version,
                    VersionRecord {
                        sha256: b.sha256,
                        size: b.size,
                        actor: e.actor.clone(),
                        op_id: op_id.clone(),
                        found: false,
                    },
                );
                let receipt = ReceiptRecord {
                    scope: e.scope.clone(),
                    key,
                    expected_version: expected,
                    version,
                    fence: b.fence().cloned(),
                    found: false,
                };
                if self.receipts.insert((e.actor.clone(), op_id.clone()), receipt).is_some() {
                    return Some(format!("operation `{op_id}` of {} is accepted twice", e.actor));
                }
            }
            _ => {}
        }
        None
    }
}

/// Checks stored agents, blobs, artifact versions, heads and receipts against each other and
/// against the journal's account of them. Every blob is read and re-hashed.
fn check_artifacts(
    tx: &dyn Tx,
    replay: &mut ArtifactReplay,
    f: &mut Findings,
) -> OpResult<(AgentsSummary, BlobsSummary, ArtifactsSummary)> {
    // Agents.
    let mut agents = AgentsSummary { ok: true, ..AgentsSummary::default() };
    tx.for_each_agent(&mut |a| {
        agents.checked += 1;
        let subject = subject::agent(&a.name);
        let bad = match replay.agents.get_mut(&a.name) {
            None => Some(format!("agent {} has no record in the journal", a.name)),
            Some(r) => {
                r.found = true;
                if r.scope != a.scope {
                    Some(format!(
                        "agent {} is stored in scope {} but was created in scope {}",
                        a.name, a.scope, r.scope
                    ))
                } else if r.token_id != a.token_hash {
                    Some(format!(
                        "agent {}'s token digest differs from the one the journal recorded",
                        a.name
                    ))
                } else if r.revoked != a.revoked_at.is_some() {
                    Some(format!("agent {}'s revocation differs from the journal", a.name))
                } else {
                    None
                }
            }
        };
        if let Some(detail) = bad {
            agents.broken += 1;
            f.add("token", &subject, None, detail);
        }
        Flow::Continue(())
    })?;
    for (name, _) in replay.agents.iter().filter(|(_, r)| !r.found) {
        agents.broken += 1;
        f.add(
            "token",
            &subject::agent(name),
            None,
            format!("agent {name} is in the journal but missing from the store"),
        );
    }
    agents.ok = agents.broken == 0;

    // Blobs: every one read back and re-hashed.
    let mut blobs = BlobsSummary { ok: true, ..BlobsSummary::default() };
    let mut stored_blobs = HashSet::new();
    let mut fatal = None;
    tx.for_each_blob(&mut |row| {
        blobs.checked += 1;
        blobs.bytes += row.size;
        match row.storage {
            BlobStorage::Inline => blobs.inline += 1,
            BlobStorage::File => blobs.files += 1,
        }
        stored_blobs.insert(row.digest);
        let subject = format!("blob:{}", row.digest);
        let bad = match tx.blob(&row.digest) {
            Ok(Some(bytes))
                if bytes.len() as u64 == row.size && Digest::of(&bytes) == row.digest =>
            {
                None
            }
            Ok(Some(_)) => Some(format!(
                "blob {} ({}) has been altered: its bytes do not match its SHA-256",
                row.digest, row.location
            )),
            Ok(None) => None,
            Err(StoreError::BlobMissing { .. }) => {
                Some(format!("blob {} is missing: {} does not exist", row.digest, row.location))
            }
            Err(StoreError::Io(e)) => {
                Some(format!("blob {} ({}) cannot be read: {e}", row.digest, row.location))
            }
            Err(e) => {
                fatal = Some(e);
                return Flow::Break(());
            }
        };
        if let Some(detail) = bad {
            blobs.broken += 1;
            f.add("blob", &subject, None, detail);
        }
        Flow::Continue(())
    })?;
    if let Some(e) = fatal {
        return Err(e.into());
    }
    blobs.ok = blobs.broken == 0;

    // Artifact versions.
    let mut artifacts = ArtifactsSummary { ok: true, ..ArtifactsSummary::default() };
    let mut keys_seen = HashSet::new();
    tx.for_each_artifact_version(&mut |v| {
        artifacts.versions += 1;
        keys_seen.insert((v.scope.clone(), v.key.clone()));
        let subject = artifact_subject(&v.scope, &v.key);
        let rec = replay
            .keys
            .get_mut(&(v.scope.clone(), v.key.clone()))
            .and_then(|k| k.versions.get_mut(&v.version));
        let bad = match rec {
            None => {
                Some(format!("version {} of {subject} has no record in the journal", v.version))
            }
            Some(r) => {
                r.found = true;
                if r.sha256 != v.blob || r.size != v.size {
                    Some(format!(
                        "version {} of {subject} has been altered: it names content {} ({} bytes), \
                         the journal {} ({} bytes)",
                        v.version, v.blob, v.size, r.sha256, r.size
                    ))
                } else if r.actor != v.actor || r.op_id != v.op_id {
                    Some(format!(
                        "version {} of {subject} names a publisher the journal does not",
                        v.version
                    ))
                } else if !stored_blobs.contains(&v.blob) {
                    Some(format!(
                        "version {} of {subject} names blob {}, which is not stored",
                        v.version, v.blob
                    ))
                } else {
                    None
                }
            }
        };
        if let Some(detail) = bad {
            artifacts.broken += 1;
            f.add("artifact", &subject, Some(v.version), detail);
        }
        Flow::Continue(())
    })?;
    for ((scope, key), k) in &replay.keys {
        for (version, _) in k.versions.iter().filter(|(_, r)| !r.found) {
            artifacts.broken += 1;
            let subject = artifact_subject(scope, key);
            f.add(
                "artifact",
                &subject,
                Some(*version),
                format!(
                    "version {version} of {subject} is in the journal but missing from the store"
                ),
            );
        }
    }

    // Heads.
    tx.for_each_artifact_head(&mut |h| {
        let subject = artifact_subject(&h.scope, &h.key);
        let bad = match replay.keys.get_mut(&(h.scope.clone(), h.key.clone())) {
            None => Some(format!("{subject} has a head but no record in the journal")),
            Some(k) => {
                k.head_found = true;
                (k.head() != h.version).then(|| {
                    format!(
                        "the head of {subject} is version {}, but the journal's last version is {}",
                        h.version,
                        k.head()
                    )
                })
            }
        };
        if let Some(detail) = bad {
            artifacts.broken += 1;
            f.add("artifact", &subject, Some(h.version), detail);
        }
        Flow::Continue(())
    })?;
    for ((scope, key), _) in replay.keys.iter().filter(|(_, k)| !k.head_found) {
        artifacts.broken += 1;
        let subject = artifact_subject(scope, key);
        f.add("artifact", &subject, None, format!("{subject} is in the journal but has no head"));
    }
    artifacts.keys = keys_seen.len() as u64;

    // Receipts: what a retry would replay.
    tx.for_each_receipt(&mut |r| {
        artifacts.receipts += 1;
        let subject = format!("receipt:{}:{}", r.actor, r.op_id);
        let bad = match replay.receipts.get_mut(&(r.actor.clone(), r.op_id.clone())) {
            None => Some(format!(
                "the receipt of operation `{}` by {} has no record in the journal",
                r.op_id, r.actor
            )),
            Some(rec) => {
                rec.found = true;
                let same = rec.scope == r.scope
                    && rec.key == r.key
                    && rec.expected_version == r.expected_version
                    && rec.version == r.version;
                let fence = |f: &Option<crate::domain::work::Fence>| {
                    f.as_ref().map_or_else(|| "no fence".to_owned(), |f| format!("fence {f}"))
                };
                if !same {
                    Some(format!(
                        "the receipt of operation `{}` by {} differs from the journal: stored \
                         {} version {}, journal {} version {}",
                        r.op_id,
                        r.actor,
                        artifact_subject(&r.scope, &r.key),
                        r.version,
                        artifact_subject(&rec.scope, &rec.key),
                        rec.version
                    ))
                } else if rec.fence != r.fence {
                    Some(format!(
                        "the receipt of operation `{}` by {} differs from the journal: stored \
                         {}, journal {}",
                        r.op_id,
                        r.actor,
                        fence(&r.fence),
                        fence(&rec.fence)
                    ))
                } else {
                    None
                }
            }
        };
        if let Some(detail) = bad {
            artifacts.broken += 1;
            f.add("receipt", &subject, None, detail);
        }
        Flow::Continue(())
    })?;
    for ((actor, op_id), _) in replay.receipts.iter().filter(|(_, r)| !r.found) {
        artifacts.broken += 1;
        f.add(
            "receipt",
            &format!("receipt:{actor}:{op_id}"),
            None,
            format!(
                "the receipt of operation `{op_id}` by {actor} is in the journal but missing \
                 from the store (a retry would publish again)"
            ),
        );
    }
    artifacts.ok = artifacts.broken == 0;
    Ok((agents, blobs, artifacts))
}
