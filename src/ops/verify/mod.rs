//! `locker verify`: the whole repository, like `git fsck`, or one pad.
//!
//! The journal is walked once in sequence order (constant memory apart from a small record per
//! pad and ticket): every entry's link, hash, framing and index columns, and the stored head.
//! What the journal says about each pad (its last head, block count and state) and each ticket
//! is then compared with the stored pads and tickets, so a chain that was rewritten and re-hashed
//! behind locker's back is caught even though it is internally consistent.
//!
//! Each capability has its replayer and checker: `pads` (pads, their tickets and payments),
//! `work` (leases, plans and steps), `artifacts` (agents, blobs and artifacts), [`signatures`]
//! (agent keys and every signed write) and `merkle` (the tree and the signed checkpoints). This
//! module walks the journal once, feeds every entry to them, and assembles the report.

mod artifacts;
mod chains;
mod entries;
mod merkle;
mod pads;
pub mod signatures;
pub(crate) mod work;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

use crate::domain::digest::Digest;
use crate::domain::event::{kind, subject, DecodeError, Event};
use crate::domain::journal::{self, Entry};
use crate::domain::pad::PadState;
use crate::ops::log::journal::{for_each_entry, malformed_body};
use crate::ops::{Ctx, OpError, OpResult, Progress};
use crate::store::{Counts, Flow, JournalHead, JournalQuery, JournalRow, Store, StoreError};

use self::entries::{decode_entry, LeafBatch, Link, Walked, LEAF_BATCH, LEAF_BATCHES};
use self::pads::PadReplay;

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

/// The high-water-mark part of a report.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct MarkSummary {
    pub ok: bool,
    /// Whether the repository has a mark (none before its first checkpoint, or when the log
    /// key is not at hand).
    pub present: bool,
    /// The mark's size and root.
    pub size: Option<u64>,
    pub root: Option<Digest>,
    /// Whether its signature was checked with the log key.
    pub signature_checked: bool,
    pub detail: String,
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
    pub signatures: signatures::SignaturesSummary,
    /// The journal's Merkle tree and the signed checkpoints, recomputed from the journal.
    #[serde(default)]
    pub merkle: MerkleSummary,
    /// The database against the log key's high-water mark (the newest checkpoint it signed
    /// here, kept beside the key): a database that lost signed entries is a problem.
    #[serde(default)]
    pub mark: MarkSummary,
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

    /// Counts `n` more problems of a kind already added, beyond what a report lists.
    fn add_unlisted(&mut self, n: u64) {
        self.count += n;
    }
}

/// The journal replayed once for every check: pads, tickets and payments; leases, plans and
/// steps; agents and artifacts.
#[derive(Default)]
struct Replay {
    pads: PadReplay,
    work: work::WorkReplay,
    artifacts: artifacts::ArtifactReplay,
}

impl Replay {
    /// Applies the event of one verified journal entry; returns a description of anything
    /// inconsistent.
    fn apply(&mut self, e: &Entry, ev: &Event) -> Option<String> {
        if let Some(problem) = self.work.apply(e, ev) {
            return problem;
        }
        if let Event::RepoGc(gc) = ev {
            return self.pads.apply_gc(e, gc, &mut self.work);
        }
        let Some(id) = ev.pad_id() else {
            return self.artifacts.apply(e, ev);
        };
        self.pads.apply(e, ev, id)
    }
}

/// Runs `read` on another connection to the store (`store`), beside the walk of the journal:
/// `None` unless that connection reads the same snapshot as the first (the same journal head
/// and row counts: every change to pads, blocks and the tree comes with a journal entry in its
/// transaction) and the read succeeds; the caller then reads it itself.
fn read_beside<T>(
    mut store: Box<dyn Store>,
    head: Option<JournalHead>,
    counts: Counts,
    read: impl FnOnce(&dyn crate::store::Tx) -> OpResult<T>,
) -> Option<T> {
    let tx = store.read().ok()?;
    if tx.journal_head().ok()? != head || tx.counts().ok()? != counts {
        return None;
    }
    read(tx.as_ref()).ok()
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
    repository_with(ctx, expect_head, progress, key, signatures::Require::default())
}

/// [`repository_with_key`], where `require.signed` makes every unsigned pad append, artifact
/// publish and step a problem (`locker verify --require-signed`), and `require.self_keys` every
/// signature by a key the operator registered (`--require-self-keys`).
///
/// A store that cannot be read because its files are damaged (SQLite: "database disk image is
/// malformed") is itself a finding: the report says so (`ok: false`, one `store` problem)
/// rather than failing as unavailable.
pub fn repository_with(
    ctx: &mut Ctx<'_>,
    expect_head: Option<Digest>,
    progress: &dyn Progress,
    key: Option<&crate::domain::note::Verifier>,
    require: signatures::Require,
) -> OpResult<RepoReport> {
    match walk(ctx, expect_head, progress, key, require) {
        Err(e) if e.code == crate::ops::CORRUPT_STORE => Ok(corrupt_store(&e.detail)),
        other => other,
    }
}

/// The report on a store whose files are damaged.
pub fn corrupt_store(detail: &str) -> RepoReport {
    let mut f = Findings::default();
    f.add("store", "database", None, format!("the store is damaged: {detail}"));
    RepoReport {
        ok: false,
        journal: JournalSummary { ok: false, entries: 0, head_seq: 0, head_hash: Digest::ZERO },
        pads: PadsSummary { ok: false, ..PadsSummary::default() },
        tickets: TicketsSummary { ok: false, checked: 0, broken: 0 },
        agents: AgentsSummary::default(),
        blobs: BlobsSummary::default(),
        artifacts: ArtifactsSummary::default(),
        leases: LeasesSummary { ok: false, ..LeasesSummary::default() },
        gc: GcSummary::default(),
        signatures: signatures::SignaturesSummary::default(),
        merkle: MerkleSummary::default(),
        mark: MarkSummary::default(),
        expected_head: None,
        first_broken: f.first,
        problem_count: f.count,
        problems: f.listed,
    }
}

fn walk(
    ctx: &mut Ctx<'_>,
    expect_head: Option<Digest>,
    progress: &dyn Progress,
    key: Option<&crate::domain::note::Verifier>,
    require: signatures::Require,
) -> OpResult<RepoReport> {
    let require_signed = require.signed;
    // The mark is read before the database (which only grows).
    let high = match ctx.log.and_then(|l| l.mark.as_deref()) {
        Some(home) => crate::repo::mark::load(home)?,
        None => None,
    };
    // The pads' chains are walked, and the stored tree read, on connections of their own
    // while this one reads the journal, when the store offers them; a store that keeps the
    // tree in the journal's rows gives it with the journal instead.
    let chains_reader = ctx.store.parallel_reader();
    let tree_reader =
        if ctx.store.journal_holds_tree() { None } else { ctx.store.parallel_reader() };
    let tx = ctx.store.read()?;
    let counts = tx.counts()?;
    let head_at_start = tx.journal_head()?;
    progress.start("verifying", counts.journal + counts.blocks, "entries");
    let mut f = Findings::default();
    let mut replay = Replay::default();
    let new_signatures = || {
        let mut signatures = signatures::Replay::default();
        signatures.require_all = require_signed;
        signatures.require_self = require.self_keys;
        signatures
    };
    let mut signatures = new_signatures();

    // 1. The journal; beside it, every pad's chain, the stored tree (`read_beside`) and the
    // checkpoints' signatures.
    let mut expected = 1u64;
    let mut prev = Digest::ZERO;
    let mut entries = 0u64;
    let (tree, checkpoints) = merkle::TreeWalk::start(tx.as_ref(), high.as_ref())?;
    let blocks_walked = AtomicU64::new(0);
    let mut blocks_shown = 0u64;
    let mut show_blocks = || {
        let n = blocks_walked.load(Ordering::Relaxed);
        progress.advance(n - blocks_shown);
        blocks_shown = n;
    };
    let (walked, stored_tree, checkpoint_signatures, tree, journal) = std::thread::scope(|scope| {
        let chains = chains_reader.map(|store| {
            let walked = &blocks_walked;
            scope.spawn(move || {
                read_beside(store, head_at_start, counts, |tx| chains::walk_chains(tx, walked))
            })
        });
        let stored_tree = tree_reader.map(|store| {
            scope.spawn(move || read_beside(store, head_at_start, counts, merkle::StoredTree::read))
        });
        let checkpoint_signatures = key.map(|key| {
            let checkpoints = &checkpoints;
            scope.spawn(move || merkle::check_signatures(checkpoints, key))
        });
        // The tree is recomputed on a thread of its own, from the entries this walk has read,
        // handed over in batches.
        let (leaves, batches) = std::sync::mpsc::sync_channel::<LeafBatch>(LEAF_BATCHES);
        let (spent, emptied) = std::sync::mpsc::channel::<LeafBatch>();
        let tree = scope.spawn(move || {
            let mut tree = tree;
            // Whether an entry's bytes do not match its row's hash.
            let mut altered = false;
            for mut batch in batches {
                for (entry, (prev, hash)) in batch.entries() {
                    altered |= journal::link(prev, entry) != *hash;
                    tree.push(entry);
                }
                for (seq, hashes) in batch.held() {
                    tree.push_held(seq, hashes);
                }
                batch.clear();
                // The walk may have ended: then nobody wants it back.
                let _ = spent.send(batch);
            }
            (tree, altered)
        });
        let mut batch = LeafBatch::with_capacity();
        let mut walked = Walked::new(&mut f, &mut replay, &mut signatures);
        let mut journal = tx.for_each_journal_with_tree(&mut |row, held| {
            entries += 1;
            decode_entry(row, expected, &prev, Link::CheckedBeside, &mut walked);
            prev = row.hash;
            expected = row.seq + 1;
            batch.push(row, held);
            if batch.len() == LEAF_BATCH {
                let next = emptied.try_recv().unwrap_or_else(|_| LeafBatch::with_capacity());
                if leaves.send(std::mem::replace(&mut batch, next)).is_err() {
                    return Flow::Break(());
                }
            }
            progress.advance(1);
            if entries.is_multiple_of(4096) {
                show_blocks();
            }
            Flow::Continue(())
        });
        if journal.is_ok() && leaves.send(batch).is_err() {
            journal = Err(StoreError::Io("the Merkle tree's thread stopped".into()));
        }
        drop(leaves);
        let (mut tree, altered) = match tree.join() {
            Ok(tree) => tree,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        let checkpoint_signatures =
            checkpoint_signatures.map_or_else(Vec::new, |s| match s.join() {
                Ok(s) => s,
                Err(panic) => std::panic::resume_unwind(panic),
            });
        // What failed beside, or saw another snapshot, is read again below, here.
        let walked = chains.and_then(|w| w.join().ok().flatten()).unwrap_or_default();
        let stored_tree = match journal {
            // The hashes came with the entries, from the journal's own snapshot.
            Ok(true) => Some(tree.take_held()),
            _ => stored_tree.and_then(|w| w.join().ok().flatten()),
        };
        (walked, stored_tree, checkpoint_signatures, tree, (journal, altered))
    });
    let (journal, altered) = journal;
    journal?;
    if altered {
        // An entry's bytes do not match its hash, and the walk above has replayed it: what
        // it found is dropped, and the journal walked again, each entry's hash checked
        // before it is decoded. (An intact journal is walked once.)
        (f, replay, signatures) = (Findings::default(), Replay::default(), new_signatures());
        (expected, prev, entries) = (1, Digest::ZERO, 0);
        let mut walked = Walked::new(&mut f, &mut replay, &mut signatures);
        tx.for_each_journal_with_tree(&mut |row, _| {
            entries += 1;
            decode_entry(row, expected, &prev, Link::Check, &mut walked);
            prev = row.hash;
            expected = row.seq + 1;
            Flow::Continue(())
        })?;
    }
    show_blocks();
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
    // Without a key no signature was checked: none is named wrong.
    let checkpoints: Vec<_> = checkpoints
        .into_iter()
        .zip(checkpoint_signatures.into_iter().chain(std::iter::repeat(None)))
        .collect();
    let (merkle, mark) = merkle::check_merkle(
        tx.as_ref(),
        tree,
        &checkpoints,
        stored_tree,
        key,
        high.as_ref(),
        &mut f,
    )?;

    // 2. Every pad's chain, and against the journal.
    let pads = pads::check_pads(tx.as_ref(), &replay.pads, walked, &mut f, progress)?;

    // 3. Tickets: every stored ticket was minted through the journal, with the same state.
    let tickets = pads::check_tickets(tx.as_ref(), &replay.pads, None, &mut f)?;
    pads::check_payments(tx.as_ref(), &replay.pads, &mut f)?;

    // 4. Agents, blobs, artifact versions, heads and receipts, against the journal.
    let (agents, blobs, artifacts) =
        artifacts::check_artifacts(tx.as_ref(), &mut replay.artifacts, &mut f)?;
    // 5. Leases, plans and steps: every stored row as the journal recorded it.
    let mut broken = 0u64;
    let counts =
        work::check_store(tx.as_ref(), &replay.work, None, &mut |kind, subject, detail| {
            broken += 1;
            f.add(kind, &subject, None, detail);
        })?;
    let mut key_problems = 0u64;
    signatures.check_store(tx.as_ref(), &mut |kind, subject, detail| {
        key_problems += 1;
        f.add(kind, &subject, None, detail);
    })?;
    signatures.summary.broken += key_problems;
    signatures.summary.required = require_signed;
    signatures.summary.self_keys_required = require.self_keys;
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
        gc: replay.pads.gc,
        signatures: signatures::SignaturesSummary {
            ok: signatures.summary.broken == 0,
            ..signatures.summary
        },
        merkle,
        mark,
        expected_head,
        first_broken: f.first,
        problem_count: f.count,
        problems: f.listed,
    })
}

impl RepoReport {
    /// The report on a repository whose database could not be read at all (emptied, or lost
    /// entries the log key signed before it could be opened): one problem, nothing intact.
    pub fn unreadable(kind: &str, detail: String) -> Self {
        let problem =
            Problem { kind: kind.to_owned(), subject: "journal".into(), seq: None, detail };
        Self {
            ok: false,
            journal: JournalSummary { ok: false, entries: 0, head_seq: 0, head_hash: Digest::ZERO },
            pads: PadsSummary::default(),
            tickets: TicketsSummary { ok: false, checked: 0, broken: 0 },
            agents: AgentsSummary::default(),
            blobs: BlobsSummary::default(),
            artifacts: ArtifactsSummary::default(),
            leases: LeasesSummary::default(),
            gc: GcSummary::default(),
            signatures: signatures::SignaturesSummary::default(),
            merkle: MerkleSummary::default(),
            mark: MarkSummary {
                ok: false,
                present: true,
                detail: problem.detail.clone(),
                ..MarkSummary::default()
            },
            expected_head: None,
            first_broken: HashMap::from([(kind.to_owned(), problem.clone())]),
            problem_count: 1,
            problems: vec![problem],
        }
    }
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
    let mut replay = Replay { pads: PadReplay::only(&pad.id), ..Replay::default() };
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
    pads::for_each_pad_entry(tx.as_ref(), &pad.id, &mut apply)?;
    let gc_runs = JournalQuery { kind: Some(kind::REPO_GC.into()), ..JournalQuery::default() };
    for_each_entry(tx.as_ref(), &gc_runs, &mut apply)?;
    let rec = replay.pads.record(&pad.id);
    let pruned_by_gc = rec.is_some_and(|r| r.pruned_at.is_some());
    let walk =
        chains::check_pad_chain(tx.as_ref(), &pad, pruned_by_gc, &mut f, &crate::ops::NoProgress)?;
    pads::compare_with_journal(tx.as_ref(), &pad, rec, &walk, &mut f)?;
    pads::check_tickets(tx.as_ref(), &replay.pads, Some(&pad.id), &mut f)?;
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

#[cfg(test)]
mod tests;
