//! `locker verify`: the whole repository, like `git fsck`, or one pad.
//!
//! The journal is walked once in sequence order (constant memory apart from a small record per
//! pad and ticket): every entry's link, hash, framing and index columns, and the stored head.
//! What the journal says about each pad (its last head, block count and state) and each ticket
//! is then compared with the stored pads and tickets, so a chain that was rewritten and re-hashed
//! behind locker's back is caught even though it is internally consistent.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Ctx, OpError, OpResult, Progress};
use crate::domain::chain::ChainChecker;
use crate::domain::digest::Digest;
use crate::domain::journal::{self, Entry};
use crate::domain::pad::PadState;
use crate::store::{BlobStorage, Flow, JournalQuery, JournalRow, PadRow, StoreError, Tx};

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

/// The pad part of a report.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct PadsSummary {
    pub ok: bool,
    pub checked: u64,
    pub blocks: u64,
    pub bytes: u64,
    pub broken: u64,
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
    work: super::ledger::WorkReplay,
    artifacts: ArtifactReplay,
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
        if let Some(problem) = self.work.apply(e) {
            return problem;
        }
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
            _ => return self.artifacts.apply(e),
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

    // 4. Agents, blobs, artifact versions, heads and receipts, against the journal.
    let (agents, blobs, artifacts) = check_artifacts(tx.as_ref(), &mut replay.artifacts, &mut f)?;
    // 4. Leases, plans and steps: every stored row as the journal recorded it.
    let mut broken = 0u64;
    let counts = super::ledger::check_store(
        tx.as_ref(),
        &replay.work,
        None,
        &mut |kind, subject, detail| {
            broken += 1;
            f.add(kind, &subject, None, detail);
        },
    )?;
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

fn u64_at(body: &Value, key: &str) -> Option<u64> {
    body.get(key).and_then(Value::as_u64)
}

impl ArtifactReplay {
    fn apply(&mut self, e: &Entry) -> Option<String> {
        let b = &e.body;
        match e.kind.as_str() {
            "token.create" => {
                let agent = str_at(b, "agent")?.to_owned();
                let rec = AgentRecord {
                    scope: str_at(b, "scope")?.to_owned(),
                    token_id: digest_at(b, "token_id")?,
                    revoked: false,
                    found: false,
                };
                if self.agents.insert(agent.clone(), rec).is_some() {
                    return Some(format!("agent {agent} is created twice"));
                }
            }
            "token.revoke" => {
                let agent = str_at(b, "agent")?;
                match self.agents.get_mut(agent) {
                    Some(rec) => rec.revoked = true,
                    None => return Some(format!("agent {agent} is revoked but never created")),
                }
            }
            "artifact.publish" => {
                let key = str_at(b, "key")?.to_owned();
                let version = u64_at(b, "version")?;
                let expected = u64_at(b, "expected_version")?;
                let op_id = str_at(b, "op_id")?.to_owned();
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
                        sha256: digest_at(b, "sha256")?,
                        size: u64_at(b, "size")?,
                        actor: e.actor.clone(),
                        op_id: op_id.clone(),
                        found: false,
                    },
                );
                let fence = match b.get("fence") {
                    None | Some(Value::Null) => None,
                    Some(f) => Some(serde_json::from_value(f.clone()).ok()?),
                };
                let receipt = ReceiptRecord {
                    scope: e.scope.clone(),
                    key,
                    expected_version: expected,
                    version,
                    fence,
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
        let subject = super::token::subject(&a.name);
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
            &super::token::subject(name),
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
