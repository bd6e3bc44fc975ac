//! The quest's workers: `locker __quest-worker ROLE`, started only by `locker quest` (the
//! argument is recognised before the command line is parsed, so it appears in no help, man
//! page or completion).
//!
//! A worker talks only to the server (`LOCKER_URL`), as the agent of `LOCKER_TOKEN`, and keeps
//! its private state in its working directory, like a real agent's scratch space:
//! - `a`: reads `handoff.json` (pad, expected head, read ticket), verifies the pad through the
//!   server and again end to end from the blocks it reads, leases the task, commits the plan
//!   from the pad, logs a step, reads the artifact and saves the publish it intends to
//!   `pending.json` (mode 0600). The caller then prints `READY` and blocks;
//! - `b WORK KEY`: leases the work item, follows its committed plan, saves its publish, publishes
//!   it under its fencing token, logs its steps and completes the lease;
//! - `resume`: sends the publish saved in `pending.json`, exactly as saved.

use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::api::{
    AcquireLease, CommitPlan, CompleteLease, GetArtifact, Locker as _, ReadBlocks, RecordStep,
    ShowPlan, VerifyPad,
};
use crate::client::Client;
use crate::domain::chain;
use crate::domain::digest::Digest;
use crate::domain::envelope;
use crate::domain::secret::Secret;
use crate::domain::work::Fence;
use crate::ops::artifact::{PublishRequest, Published};
use crate::ops::work::plan::Diff;
use crate::ops::work::step::StepInput;
use crate::ops::{ErrorKind, OpError, OpResult};

/// The argument that makes the binary a quest worker.
pub const WORKER_ARG: &str = "__quest-worker";

/// What the planner hands worker A.
pub const HANDOFF_FILE: &str = "handoff.json";

/// The publish a worker intends, saved before it is sent.
pub const PENDING_FILE: &str = "pending.json";

/// Seconds a worker's lease lasts (the quest moves its clock past it).
pub const LEASE_TTL: i64 = 30;

/// The handoff: which pad, the head it must have, and the read ticket (a secret).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Handoff {
    pub pad_id: String,
    pub head_hash: Digest,
    pub ticket: String,
}

/// The pad's block 1: what to do.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TaskPlan {
    pub work: String,
    pub key: String,
    pub steps: Vec<String>,
}

/// A publish as a worker saves it before sending it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingPublish {
    pub key: String,
    pub expected_version: i64,
    pub op_id: String,
    pub content: String,
    pub fence: Fence,
}

/// What worker A did before it blocked.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Started {
    pub pad_id: String,
    pub blocks: u64,
    /// The head recomputed from the blocks read (equal to the expected one).
    pub head_hash: Digest,
    pub work: String,
    pub key: String,
    pub lease_id: String,
    pub fence: u64,
    pub plan_version: u64,
    pub plan: Vec<String>,
    pub steps_logged: Vec<String>,
    /// The artifact version the saved publish is based on.
    pub read_version: u64,
    pub pending: PendingPublish,
    /// The names (never the values) of the worker's environment variables.
    pub environment: Vec<String>,
}

/// What worker B did.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Finished {
    pub lease_id: String,
    pub fence: u64,
    pub reacquired: bool,
    pub plan: Vec<String>,
    pub steps_logged: Vec<String>,
    pub read_version: u64,
    pub published: Published,
    pub state: String,
    pub diff: Diff,
}

/// A worker's connection: the server (acting with the worker's token), its scratch directory.
struct Env {
    client: Client,
    dir: PathBuf,
}

fn env() -> OpResult<Env> {
    let url = std::env::var("LOCKER_URL")
        .map_err(|_| OpError::usage("a quest worker needs LOCKER_URL (the server)"))?;
    let token = std::env::var("LOCKER_TOKEN")
        .map_err(|_| OpError::usage("a quest worker needs LOCKER_TOKEN (its agent token)"))?;
    let dir = std::env::current_dir()
        .map_err(|e| OpError::unavailable(format!("cannot read the current directory: {e}")))?;
    Ok(Env { client: Client::new(&url)?.with_token(Some(Secret::new(token))), dir })
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> OpResult<T> {
    let bytes = std::fs::read(path)
        .map_err(|e| OpError::unavailable(format!("cannot read {}: {e}", path.display())))?;
    serde_json::from_slice(&bytes).map_err(|e| {
        OpError::bad_request(format!("{} is not what a worker saves: {e}", path.display()))
    })
}

/// Writes `value` as JSON to `path`, mode 0600, durably: a temporary file, fsync, rename.
pub fn save_private<T: Serialize>(path: &Path, value: &T) -> OpResult<()> {
    let io =
        |e: std::io::Error| OpError::unavailable(format!("cannot save {}: {e}", path.display()));
    let tmp = path.with_extension("tmp");
    let bytes = serde_json::to_vec_pretty(value).map_err(|e| OpError::internal(e.to_string()))?;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&tmp)
        .map_err(io)?;
    f.write_all(&bytes).map_err(io)?;
    f.sync_all().map_err(io)?;
    std::fs::rename(&tmp, path).map_err(io)
}

fn broken(detail: String) -> OpError {
    OpError::new(ErrorKind::Conflict, "handoff_broken", detail)
}

/// The names of this process's environment variables, sorted.
fn environment_names() -> Vec<String> {
    let mut names: Vec<String> =
        std::env::vars_os().map(|(k, _)| k.to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

/// Worker A, up to the point where it would publish.
pub fn start() -> OpResult<Started> {
    let Env { mut client, dir } = env()?;
    let h: Handoff = read_json(&dir.join(HANDOFF_FILE))?;

    // The server's verdict first, against the head the planner announced…
    let report = client.pad_verify(VerifyPad { pad: &h.pad_id, expect_head: Some(h.head_hash) })?;
    if !report.ok || !report.expected_head.as_ref().is_some_and(|e| e.matches) {
        return Err(broken(format!(
            "pad {} does not verify against head {}",
            h.pad_id, h.head_hash
        )));
    }
    // …then end to end: the chain recomputed from the exact bytes read with the ticket.
    let ticket = Secret::new(h.ticket);
    let slice = client.pad_read(ReadBlocks {
        pad: &h.pad_id,
        ticket: Some(&ticket),
        from: None,
        to: None,
    })?;
    let payloads: Vec<Vec<u8>> = slice.blocks.iter().map(|b| b.payload()).collect();
    let head = chain::head(payloads.iter().map(Vec::as_slice));
    if head != h.head_hash || slice.total_blocks != payloads.len() as u64 || payloads.len() < 2 {
        return Err(broken(format!(
            "the blocks read from pad {} hash to {head}, not {}",
            h.pad_id, h.head_hash
        )));
    }
    let env = envelope::validate(&payloads[0])
        .map_err(|e| broken(format!("block 0 is not a handoff envelope: {e}")))?;
    let plan: TaskPlan = serde_json::from_slice(&payloads[1])
        .map_err(|e| broken(format!("block 1 is not a task plan: {e}")))?;
    if env.task_id() != plan.work {
        return Err(broken(format!(
            "the envelope's task {} is not the plan's work item {}",
            env.task_id(),
            plan.work
        )));
    }

    let acquire = AcquireLease { work: &plan.work, ttl: LEASE_TTL, ..AcquireLease::default() };
    let lease = client.lease_acquire(acquire)?.lease;
    let committed = client.plan_commit(CommitPlan {
        work: &plan.work,
        lease: &lease.lease_id,
        steps: &plan.steps,
    })?;
    let current = client.artifact_get(GetArtifact { key: &plan.key, version: None })?;
    let executed =
        format!("verified pad {} at head {head}; read {} v{}", h.pad_id, plan.key, current.version);
    let step = StepInput {
        step: "fetch-inputs",
        planned: Some("read the handoff and the current summary"),
        executed: Some(&executed),
        gate: None,
        signing: None,
    };
    client.step_record(RecordStep { work: &plan.work, lease: &lease.lease_id, step })?;

    let pending = PendingPublish {
        key: plan.key.clone(),
        expected_version: i64::try_from(current.version).unwrap_or(i64::MAX),
        op_id: "worker-a/summary".into(),
        content: format!(
            "# Summary\n\nWorker A's summary, based on version {}.\n",
            current.version
        ),
        fence: Fence { work: plan.work.clone(), token: lease.fence },
    };
    save_private(&dir.join(PENDING_FILE), &pending)?;
    Ok(Started {
        pad_id: h.pad_id,
        blocks: payloads.len() as u64,
        head_hash: head,
        work: plan.work,
        key: plan.key,
        lease_id: lease.lease_id,
        fence: lease.fence,
        plan_version: committed.plan.version,
        plan: committed.plan.steps,
        steps_logged: vec!["fetch-inputs".into()],
        read_version: current.version,
        pending,
        environment: environment_names(),
    })
}

fn publish(client: &mut Client, p: &PendingPublish) -> OpResult<Published> {
    let req = PublishRequest {
        key: &p.key,
        expected_version: p.expected_version,
        op_id: &p.op_id,
        content: p.content.as_bytes(),
        fence: Some(&p.fence),
        signing: None,
    };
    client.artifact_publish(req)
}

/// Worker B: the whole task, from lease to completion.
pub fn finish(work: &str, key: &str) -> OpResult<Finished> {
    let Env { mut client, dir } = env()?;
    let acquired =
        client.lease_acquire(AcquireLease { work, ttl: LEASE_TTL, ..AcquireLease::default() })?;
    let lease = acquired.lease;
    let plan = client.plan_show(ShowPlan { work, version: None })?;
    let current = client.artifact_get(GetArtifact { key, version: None })?;
    let mut logged = Vec::new();
    let mut log = |client: &mut Client, step: &str, executed: String| -> OpResult<()> {
        let input =
            StepInput { step, planned: None, executed: Some(&executed), gate: None, signing: None };
        client.step_record(RecordStep { work, lease: &lease.lease_id, step: input })?;
        logged.push(step.to_owned());
        Ok(())
    };
    log(&mut client, "fetch-inputs", format!("read {key} v{}", current.version))?;
    log(&mut client, "draft", format!("drafted a new summary from v{}", current.version))?;

    let pending = PendingPublish {
        key: key.to_owned(),
        expected_version: i64::try_from(current.version).unwrap_or(i64::MAX),
        op_id: "worker-b/summary".into(),
        content: format!(
            "# Summary\n\nWorker B's summary, based on version {}.\n",
            current.version
        ),
        fence: Fence { work: work.to_owned(), token: lease.fence },
    };
    save_private(&dir.join(PENDING_FILE), &pending)?;
    let published = publish(&mut client, &pending)?;
    log(&mut client, "publish", format!("published {key} v{}", published.artifact.version))?;
    let result = format!("published {key} v{}", published.artifact.version);
    let done = client.lease_complete(CompleteLease {
        work,
        lease: &lease.lease_id,
        result: Some(&result),
    })?;
    Ok(Finished {
        lease_id: lease.lease_id,
        fence: lease.fence,
        reacquired: acquired.reacquired,
        plan: plan.steps,
        steps_logged: logged,
        read_version: current.version,
        published,
        state: done.lease.state.as_str().to_owned(),
        diff: done.diff,
    })
}

/// Sends the publish saved in `pending.json`, exactly as saved.
pub fn resume() -> OpResult<Published> {
    let Env { mut client, dir } = env()?;
    let pending: PendingPublish = read_json(&dir.join(PENDING_FILE))?;
    publish(&mut client, &pending)
}

/// Blocks until stdin ends (the quest kills the worker first; if the quest itself dies, the
/// pipe closes and the worker ends too).
pub fn block() {
    let mut sink = Vec::new();
    let _ = std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut sink);
}
