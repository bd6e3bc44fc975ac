//! `locker store check URL`: the conformance checks a team runs against its own PostgreSQL
//! before moving to it, in a throwaway schema of that database (`locker_check_…`, dropped
//! afterwards, whatever happened): the schema's migrations, a repository made and verified,
//! a hash chain appended and verified, concurrent writers on separate connections that never
//! fork a chain or fail as busy, one compare-and-swap winner among racers, and the server
//! settings durability depends on.

use std::sync::Barrier;

use serde::Serialize;

use crate::domain::limits::PadLimits;
use crate::domain::secret::Secret;
use crate::ops::artifact::PublishRequest;
use crate::ops::{Actor, Clock, Ctx, NoProgress, OpError, OpResult};
use crate::repo::Repo;
use crate::store::postgres::ScratchSchema;
use crate::store::StoreUrl;

/// Writers racing in the concurrency checks.
const WRITERS: usize = 4;
/// Appends per writer.
const APPENDS: usize = 10;

/// One check's verdict.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Check {
    /// `schema`, `repository`, `chain`, `concurrency`, `compare-and-swap`, `durability`,
    /// `cleanup`.
    pub name: String,
    /// `ok`, `warn` or `fail`.
    pub status: String,
    pub detail: String,
}

/// `locker store check`'s report.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct CheckReport {
    /// Every check passed (warnings allowed).
    pub ok: bool,
    /// The database checked (any password redacted).
    pub database: String,
    /// The throwaway schema the checks ran in (dropped afterwards).
    pub schema: String,
    pub checks: Vec<Check>,
}

fn push(checks: &mut Vec<Check>, name: &str, result: Result<String, String>) -> bool {
    let ok = result.is_ok();
    let (status, detail) = match result {
        Ok(d) => ("ok", d),
        Err(d) => ("fail", d),
    };
    checks.push(Check { name: name.into(), status: status.into(), detail });
    ok
}

fn text(e: &OpError) -> String {
    e.detail.clone()
}

/// Runs the checks against the database `url` names.
pub fn run(url: &StoreUrl, clock: &dyn Clock) -> OpResult<CheckReport> {
    if !url.is_postgres() {
        return Err(OpError::usage("`locker store check` takes a postgres:// URL"));
    }
    let mut scratch =
        ScratchSchema::create(&url.url, url.password_file.as_deref()).map_err(OpError::from)?;
    let database = crate::store::postgres::redact(&url.url);
    let schema = scratch.name.clone();
    let mut checks = Vec::new();
    let inner = StoreUrl { url: scratch.url.clone(), password_file: url.password_file.clone() };
    let dir = tempfile::tempdir()
        .map_err(|e| OpError::unavailable(format!("cannot make a temporary directory: {e}")))?;

    // The repository: the migrations, then `init`.
    let made = crate::ops::admin::init::init_with(dir.path(), clock, Some(&inner));
    let repo_ok = push(
        &mut checks,
        "repository",
        made.as_ref()
            .map(|_| {
                format!(
                    "schema version {} made, a repository created",
                    crate::store::postgres::SCHEMA_VERSION
                )
            })
            .map_err(text),
    );
    if let (true, Ok((_, mut repo))) = (repo_ok, made) {
        // (`repo`'s connection is closed at the end of this block.)
        let chain = chain(&mut repo, clock);
        push(&mut checks, "chain", chain.as_ref().map(|(d, _, _)| d.clone()).map_err(text));
        if let Ok((_, pad, key)) = chain {
            push(&mut checks, "concurrency", concurrency(dir.path(), &inner, &pad, &key, clock));
            push(&mut checks, "compare-and-swap", compare_and_swap(dir.path(), &inner, clock));
            push(&mut checks, "verify", verify(&mut repo, clock));
        }
    }
    checks.push(durability(&mut scratch));
    // The repository's connections first, then the schema and everything in it.
    drop(dir);
    push(
        &mut checks,
        "cleanup",
        scratch
            .drop_now()
            .map(|()| format!("the schema {schema} and everything in it were dropped"))
            .map_err(|e| format!("the schema {schema} could not be dropped: {e}; drop it by hand")),
    );
    let ok = checks.iter().all(|c| c.status != "fail");
    Ok(CheckReport { ok, database, schema, checks })
}

/// A handoff envelope (what a pad's blocks hold) for task `task`.
fn envelope(task: &str) -> String {
    serde_json::json!({
        "schema": "locker.handoff.v1",
        "task_id": task,
        "from_agent": "locker-store-check",
        "to_agent": "locker-store-check",
        "constraints": [],
        "artifacts": [],
        "budget_usd": null,
    })
    .to_string()
}

/// Appends a handoff envelope for `task` to `pad`; its sequence number.
fn append(ctx: &mut Ctx<'_>, pad: &str, key: &Secret, task: &str) -> OpResult<u64> {
    let payload = envelope(task);
    let ct = Some("application/json");
    crate::ops::pad::append_signed(ctx, pad, Some(key), payload.as_bytes(), ct, None).map(|a| a.seq)
}

/// One pad, a chain of appends: what it says, the pad and its key.
fn chain(repo: &mut Repo, clock: &dyn Clock) -> OpResult<(String, String, Secret)> {
    let mut ctx = Ctx::new(repo.store.as_mut(), Actor::operator(), clock);
    let limits = PadLimits::new(3600, 256).map_err(|e| OpError::internal(e.to_string()))?;
    let pad = crate::ops::pad::create_paid(&mut ctx, limits, None)?;
    let key = Secret::new(pad.write_key.clone());
    let mut seq = 0;
    for i in 0..APPENDS {
        seq = append(&mut ctx, &pad.pad_id, &key, &format!("check-{i}"))?;
    }
    Ok((format!("{APPENDS} appends to one pad, the last at seq {seq}"), pad.pad_id, key))
}

/// Runs `f` on [`WRITERS`] threads at once (released together), each on a connection of its
/// own to the repository in `root`; every thread's result, or the first failure.
fn race<T: Send>(
    root: &std::path::Path,
    url: &StoreUrl,
    clock: &dyn Clock,
    f: impl Fn(usize, &mut Ctx<'_>) -> Result<T, String> + Sync,
) -> Result<Vec<T>, String> {
    let clock = crate::ops::FixedClock(clock.now());
    let start = Barrier::new(WRITERS);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..WRITERS)
            .map(|w| {
                let (start, clock, f) = (&start, &clock, &f);
                s.spawn(move || {
                    let opened = Repo::open_store(root, url).map_err(|e| e.to_string());
                    start.wait();
                    let mut repo = opened?;
                    f(w, &mut Ctx::new(repo.store.as_mut(), Actor::operator(), clock))
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().map_err(|_| "a thread panicked".to_owned())?).collect()
    })
}

/// Writers on connections of their own append to one pad at once: none fails, none forks.
fn concurrency(
    root: &std::path::Path,
    url: &StoreUrl,
    pad: &str,
    key: &Secret,
    clock: &dyn Clock,
) -> Result<String, String> {
    let seqs = race(root, url, clock, |w, ctx| {
        (0..APPENDS)
            .map(|i| {
                append(ctx, pad, key, &format!("check-{w}-{i}"))
                    .map_err(|e| format!("writer {w}: {} ({})", e.detail, e.code))
            })
            .collect::<Result<Vec<u64>, String>>()
    })?;
    let mut seqs: Vec<u64> = seqs.into_iter().flatten().collect();
    seqs.sort_unstable();
    let n = seqs.len();
    seqs.dedup();
    if seqs.len() != n {
        return Err(format!("two writers were given the same sequence number ({n} appends)"));
    }
    Ok(format!(
        "{WRITERS} writers on their own connections appended {n} blocks at once, each its own seq"
    ))
}

/// Racers publish the same new artifact: exactly one wins, the others are told of the
/// version conflict.
fn compare_and_swap(
    root: &std::path::Path,
    url: &StoreUrl,
    clock: &dyn Clock,
) -> Result<String, String> {
    let won = race(root, url, clock, |w, ctx| {
        let (content, op_id) = (format!("racer {w}"), format!("check-racer-{w}"));
        let req = PublishRequest {
            key: "locker-store-check",
            expected_version: 0,
            op_id: &op_id,
            content: content.as_bytes(),
            fence: None,
            signing: None,
        };
        match crate::ops::artifact::publish(ctx, &req) {
            Ok(_) => Ok(true),
            Err(e) if e.code == "version_conflict" => Ok(false),
            Err(e) => Err(format!("racer {w}: {} ({})", e.detail, e.code)),
        }
    })?;
    let winners = won.iter().filter(|w| **w).count();
    if winners == 1 {
        Ok(format!("{WRITERS} racers published version 1 of one artifact: one won"))
    } else {
        Err(format!("{winners} of {WRITERS} racers won one compare-and-swap"))
    }
}

/// Everything written above verifies.
fn verify(repo: &mut Repo, clock: &dyn Clock) -> Result<String, String> {
    let mut ctx = Ctx::new(repo.store.as_mut(), Actor::operator(), clock);
    let r = crate::ops::verify::repository(&mut ctx, None, &NoProgress).map_err(|e| text(&e))?;
    if r.ok {
        Ok(format!("the repository verifies ({} journal entries)", r.journal.entries))
    } else {
        Err(format!(
            "{} problem(s), the first: {:?}",
            r.problem_count,
            r.problems.first().map(|p| &p.detail)
        ))
    }
}

/// The settings an acknowledged write's durability depends on.
fn durability(scratch: &mut ScratchSchema) -> Check {
    let names = ["server_version", "fsync", "synchronous_commit", "full_page_writes"];
    let values = match scratch.settings(&names) {
        Ok(v) => v,
        Err(e) => {
            return Check {
                name: "durability".into(),
                status: "fail".into(),
                detail: format!("cannot read the server's settings: {e}"),
            }
        }
    };
    let (version, fsync, sync, fpw) = (&values[0], &values[1], &values[2], &values[3]);
    let summary = format!(
        "PostgreSQL {version}: fsync={fsync}, synchronous_commit={sync}, full_page_writes={fpw}"
    );
    let (status, detail) = if fsync != "on" || fpw != "on" {
        ("fail", format!("{summary}: a crash can lose or corrupt acknowledged writes"))
    } else if matches!(sync.as_str(), "off" | "local") {
        ("warn", format!("{summary}: a crash (or failover) can lose the last acknowledged writes"))
    } else {
        ("ok", summary)
    };
    Check { name: "durability".into(), status: status.into(), detail }
}
