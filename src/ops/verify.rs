//! `locker verify`: the whole repository, like `git fsck`, or one pad.
//!
//! The journal is walked once in sequence order (constant memory apart from a small record per
//! pad and ticket): every entry's link, hash, framing and index columns, and the stored head.
//! What the journal says about each pad (its last head, block count and state) and each ticket
//! is then compared with the stored pads and tickets, so a chain that was rewritten and re-hashed
//! behind locker's back is caught even though it is internally consistent.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Ctx, OpError, OpResult, Progress};
use crate::domain::chain::ChainChecker;
use crate::domain::digest::Digest;
use crate::domain::journal::{self, Entry};
use crate::domain::pad::PadState;
use crate::store::{Flow, JournalQuery, JournalRow, PadRow, Tx};

/// Most problems listed in one report (the count is always exact).
pub const MAX_LISTED_PROBLEMS: usize = 100;

/// One thing found broken.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Problem {
    /// `journal`, `pad` or `ticket`.
    pub kind: String,
    /// What is broken: `journal`, `pad:<id>`, `ticket:<id>`.
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

/// The pad part of a report.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct PadsSummary {
    pub ok: bool,
    pub checked: u64,
    pub blocks: u64,
    pub bytes: u64,
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
#[derive(Debug, Clone, Default)]
struct PadRecord {
    blocks: u64,
    head: Digest,
    sealed: bool,
}

/// What the journal says a ticket should look like.
#[derive(Debug, Clone)]
struct TicketRecord {
    pad_id: String,
    revoked: bool,
    leased: bool,
}

#[derive(Default)]
struct Replay {
    pads: HashMap<String, PadRecord>,
    tickets: HashMap<Digest, TicketRecord>,
}

fn digest_at(body: &Value, key: &str) -> Option<Digest> {
    body.get(key).and_then(Value::as_str).and_then(|s| Digest::parse(s).ok())
}

fn str_at<'a>(body: &'a Value, key: &str) -> Option<&'a str> {
    body.get(key).and_then(Value::as_str)
}

impl Replay {
    /// Applies one verified journal entry; returns a description of anything inconsistent.
    fn apply(&mut self, e: &Entry) -> Option<String> {
        let b = &e.body;
        let pad_id = str_at(b, "pad_id").map(str::to_owned);
        match e.kind.as_str() {
            "pad.create" | "pad.deposit" => {
                let id = pad_id?;
                if self.pads.contains_key(&id) {
                    return Some(format!("pad {id} is created twice"));
                }
                let mut rec = PadRecord::default();
                if e.kind == "pad.deposit" {
                    rec.blocks =
                        b.get("blocks").and_then(Value::as_array).map_or(0, Vec::len) as u64;
                    rec.head = digest_at(b, "head_hash").unwrap_or(Digest::ZERO);
                    rec.sealed = true;
                }
                if let Some(t) = digest_at(b, "ticket_id") {
                    self.tickets.insert(
                        t,
                        TicketRecord { pad_id: id.clone(), revoked: false, leased: false },
                    );
                }
                self.pads.insert(id, rec);
            }
            "pad.append" => {
                let id = pad_id?;
                let rec = self.pads.get_mut(&id)?;
                let seq = b.get("seq").and_then(Value::as_u64)?;
                if seq != rec.blocks {
                    return Some(format!("pad {id} block {seq} is recorded out of order"));
                }
                rec.blocks += 1;
                rec.head = digest_at(b, "curr_hash")?;
            }
            "pad.seal" => {
                let id = pad_id?;
                let rec = self.pads.get_mut(&id)?;
                rec.sealed = true;
                if digest_at(b, "head_hash") != Some(rec.head) {
                    return Some(format!(
                        "pad {id} was sealed with a head its appends do not give"
                    ));
                }
            }
            "pad.ticket" => {
                let id = pad_id?;
                let t = digest_at(b, "ticket_id")?;
                self.tickets.insert(t, TicketRecord { pad_id: id, revoked: false, leased: false });
            }
            "pad.ticket_revoke" => {
                let t = digest_at(b, "ticket_id")?;
                self.tickets.get_mut(&t)?.revoked = true;
            }
            "pad.read_lease" => {
                let t = digest_at(b, "ticket_id")?;
                self.tickets.get_mut(&t)?.leased = true;
            }
            _ => {}
        }
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

/// Walks one pad's stored chain; returns (blocks verified before the first problem, recomputed head).
fn check_pad_chain(
    tx: &dyn Tx,
    pad: &PadRow,
    f: &mut Findings,
    progress: &dyn Progress,
) -> OpResult<(u64, Digest)> {
    let subject = super::pad::subject(&pad.id);
    let mut checker = ChainChecker::new();
    let mut verified = 0u64;
    tx.for_each_block(&pad.id, &mut |b| {
        checker.block(b.seq, &b.prev_hash, &b.curr_hash, &b.payload);
        if checker.is_clean() {
            verified += 1;
        }
        progress.advance(1);
        Flow::Continue(())
    })?;
    let computed = checker.computed_head();
    for p in checker.finish(&pad.head_hash, pad.block_count, pad.current_bytes) {
        f.add("pad", &subject, p.seq(), p.to_string());
    }
    Ok((verified, computed))
}

fn compare_with_journal(pad: &PadRow, rec: Option<&PadRecord>, f: &mut Findings) {
    let subject = super::pad::subject(&pad.id);
    let Some(rec) = rec else {
        f.add("pad", &subject, None, format!("pad {} has no record in the journal", pad.id));
        return;
    };
    if rec.head != pad.head_hash || rec.blocks != pad.block_count {
        f.add(
            "pad",
            &subject,
            None,
            format!(
                "pad {} differs from the journal: stored {} blocks with head {}, journal {} blocks with head {}",
                pad.id, pad.block_count, pad.head_hash, rec.blocks, rec.head
            ),
        );
    }
    let sealed = pad.state == crate::domain::pad::StoredState::Sealed;
    if rec.sealed != sealed {
        f.add(
            "pad",
            &subject,
            None,
            format!(
                "pad {} is stored as {} but the journal says {}",
                pad.id,
                pad.state.as_str(),
                if rec.sealed { "sealed" } else { "open" }
            ),
        );
    }
}

/// Verifies the whole repository.
pub fn repository(
    ctx: &mut Ctx<'_>,
    expect_head: Option<Digest>,
    progress: &dyn Progress,
) -> OpResult<RepoReport> {
    let tx = ctx.store.read()?;
    let counts = tx.counts()?;
    progress.start("verifying", counts.journal + counts.blocks);
    let mut f = Findings::default();
    let mut replay = Replay::default();

    // 1. The journal.
    let mut expected = 1u64;
    let mut prev = Digest::ZERO;
    let mut entries = 0u64;
    tx.for_each_journal(&mut |row| {
        entries += 1;
        if let Some(e) = check_entry(&row, expected, &prev, &mut f) {
            if let Some(problem) = replay.apply(&e) {
                f.add("journal", "journal", Some(row.seq), problem);
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

    // 2. Every pad's chain, and against the journal.
    let mut pads = PadsSummary { ok: true, checked: 0, blocks: 0, bytes: 0, broken: 0 };
    let mut seen = std::collections::HashSet::new();
    let mut pad_err = None;
    tx.for_each_pad(&mut |pad| {
        let before = f.count;
        match check_pad_chain(tx.as_ref(), &pad, &mut f, progress) {
            Ok(_) => {}
            Err(e) => {
                pad_err = Some(e);
                return Flow::Break(());
            }
        }
        compare_with_journal(&pad, replay.pads.get(&pad.id), &mut f);
        pads.checked += 1;
        pads.blocks += pad.block_count;
        pads.bytes += pad.current_bytes;
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
            &super::pad::subject(id),
            None,
            format!("pad {id} is in the journal but missing from the store"),
        );
    }
    pads.ok = pads.broken == 0;

    // 3. Tickets: every stored ticket was minted through the journal, with the same state.
    let mut tickets = TicketsSummary { ok: true, checked: 0, broken: 0 };
    tx.for_each_ticket(&mut |t| {
        tickets.checked += 1;
        let subject = format!("ticket:{}", t.digest);
        let bad = match replay.tickets.get(&t.digest) {
            None => Some(format!(
                "ticket {} for pad {} has no record in the journal",
                t.digest, t.pad_id
            )),
            Some(r) if r.pad_id != t.pad_id => Some(format!(
                "ticket {} is stored for pad {} but was minted for pad {}",
                t.digest, t.pad_id, r.pad_id
            )),
            Some(r) if r.revoked != t.revoked_at.is_some() => {
                Some(format!("ticket {}'s revocation differs from the journal", t.digest))
            }
            Some(r) if r.leased != t.lease_started_at.is_some() => {
                Some(format!("ticket {}'s read lease differs from the journal", t.digest))
            }
            Some(_) => None,
        };
        if let Some(detail) = bad {
            tickets.broken += 1;
            f.add("ticket", &subject, None, detail);
        }
        Flow::Continue(())
    })?;
    tickets.ok = tickets.broken == 0;
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
        expected_head,
        first_broken: f.first,
        problem_count: f.count,
        problems: f.listed,
    })
}

/// Parses a caller-supplied expected head.
pub fn parse_expected_head(s: &str) -> OpResult<Digest> {
    Digest::parse(s)
        .map_err(|_| OpError::bad_request("the expected head must be 64 lowercase hex characters"))
}

/// Verifies one pad: its chain, its accounting, the journal's record of it, and optionally a
/// head the caller expects.
pub fn pad(ctx: &mut Ctx<'_>, pad_id: &str, expect_head: Option<Digest>) -> OpResult<PadReport> {
    let now = ctx.now();
    let tx = ctx.store.read()?;
    let pad = tx.pad(pad_id)?.ok_or_else(|| OpError::not_found("pad not found"))?;
    let mut f = Findings::default();
    let (verified, computed) = check_pad_chain(tx.as_ref(), &pad, &mut f, &super::NoProgress)?;

    // Replay this pad's journal entries (each checked against its own hash).
    let mut replay = Replay::default();
    let subject = super::pad::subject(&pad.id);
    let mut after = None;
    loop {
        let q = JournalQuery {
            subject: Some(subject.clone()),
            after,
            ascending: true,
            limit: 1000,
            ..JournalQuery::default()
        };
        let rows = tx.journal(&q)?;
        let Some(last) = rows.last() else { break };
        after = Some(last.seq);
        for row in &rows {
            if journal::link(&row.prev_hash, &row.entry) != row.hash {
                f.add(
                    "journal",
                    "journal",
                    Some(row.seq),
                    format!(
                        "entry {} has been altered: its hash does not match its bytes",
                        row.seq
                    ),
                );
                continue;
            }
            match Entry::decode(&row.entry) {
                Ok(e) if e.subject == subject => {
                    if let Some(p) = replay.apply(&e) {
                        f.add("journal", "journal", Some(row.seq), p);
                    }
                }
                _ => f.add(
                    "journal",
                    "journal",
                    Some(row.seq),
                    format!("entry {}'s bytes do not match its columns", row.seq),
                ),
            }
        }
    }
    let rec = replay.pads.get(&pad.id);
    compare_with_journal(&pad, rec, &mut f);
    let expected_head = expect_head.map(|expected| ExpectedHead {
        expected,
        matches: expected == pad.head_hash && expected == computed,
    });
    if let Some(e) = &expected_head {
        if !e.matches {
            f.add(
                "pad",
                &subject,
                None,
                format!("the pad's head {} is not the expected head {}", computed, e.expected),
            );
        }
    }
    Ok(PadReport {
        ok: f.count == 0,
        pad_id: pad.id.clone(),
        state: PadState::at(pad.state, pad.expires_at, now),
        block_count: pad.block_count,
        blocks_verified: verified,
        head_hash: pad.head_hash,
        computed_head: computed,
        journal_head: rec.map(|r| r.head),
        expected_head,
        problems: f.listed,
    })
}
