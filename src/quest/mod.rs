//! `locker quest`: the whole story on one machine, with real processes of this binary.
//!
//! In a temporary directory (removed at the end unless `--keep`), the quest starts a
//! `locker serve`, a planner, two workers, a reaper and a verifier, each a child process of
//! its own binary ([`std::env::current_exe`]) with a scrubbed environment: `PATH=/usr/bin:/bin`,
//! `LANG=C`, `HOME=` the temporary directory, and only the `LOCKER_*` variables that child needs
//! (its own agent token, the server's URL or the repository, the clock). Nothing of the
//! caller's environment is inherited, so no token or cloud credential leaks into the story.
//!
//! **The clock.** Every child runs on the quest's clock, passed as `LOCKER_NOW`. It starts at the
//! caller's time and moves once, [`CLOCK_JUMP`] seconds, past worker A's lease
//! ([`worker::LEASE_TTL`]); every process started after that gets the later time. `locker serve`
//! reads `LOCKER_NOW` once, when it starts, so the quest restarts it on the new clock with
//! SIGTERM (a graceful stop, checked to exit 0). Nothing sleeps: the lease expires because the
//! clock says so.
//!
//! Every child is held by a handle that kills (SIGKILL) and reaps it when dropped, so an
//! error, a failed check or a panic leaves no process behind; every wait is bounded.
//!
//! The steps (SPEC §11) are run in order and stop at the first failure; each yields a [`Step`]
//! as it ends, and the run a [`Summary`].

pub mod proc;
pub mod tamper;
pub mod worker;

use std::collections::BTreeMap;
use std::os::unix::fs::{DirBuilderExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use self::proc::{child_env, Output, ServerProcess, Spec, ALLOWED_ENV};
use self::worker::{Finished, Handoff, Started, TaskPlan, WORKER_ARG};
use crate::ops::artifact::{ArtifactLog, ArtifactView, Published};
use crate::ops::log::journal::LogEntry;
use crate::ops::pad::Deposited;
use crate::ops::token::TokenCreated;
use crate::ops::verify::{PadReport, RepoReport};
use crate::ops::work::lease::{Reaped, WorkStatus};
use crate::ops::work::plan::Diff;

/// The title line.
pub const TITLE: &str = "locker quest: keep a stale worker from rewriting the present";

/// What the story puts locker through.
pub const CHALLENGE: &str =
    "Challenge: worker crash → lease expiry → stale retry → server crash → lost ack → tampering";

/// The steps, in order.
pub const STEPS: [&str; 9] = [
    "Planner deposited a sealed handoff pad and handed worker A the read ticket",
    "Worker A verified the pad, leased the task, committed its plan, saved a publish; SIGKILLed",
    "Worker A's lease expired and was reaped; worker B took over and published version 2",
    "Restarted worker A; its saved publish was refused as stale",
    "Hard-killed and restarted the server; version 2, the leases and the pad survived",
    "Retried an acknowledged publish; the original result came back, no version 3",
    "Altered one byte of a block behind locker's back; verify found it and named it",
    "The plan diff and the journal show what happened",
    "Rewrote an old journal entry: locker refused it; re-signed without its mark, a pinned verifier caught the fork",
];

/// How far the clock moves to let worker A's lease expire.
pub const CLOCK_JUMP: i64 = 60;

/// The longest any one child may take (a generous bound: each takes milliseconds).
const TIMEOUT: Duration = Duration::from_secs(30);

const SCOPE: &str = "quest";
const WORK: &str = "quest/summary";
const KEY: &str = "reports/summary.md";
const PLAN: [&str; 4] = ["fetch-inputs", "draft", "publish", "review"];
const SEED: &str = "# Summary\n\nThe planner's outline.\n";

/// How the quest runs.
#[derive(Debug, Clone)]
pub struct QuestOptions {
    /// The binary to run as server and workers (normally this one).
    pub exe: PathBuf,
    /// Keep the temporary directory.
    pub keep: bool,
    /// The time the story starts at (Unix seconds).
    pub now: i64,
    /// Where to make the temporary directory (default: the system's).
    pub temp_parent: Option<PathBuf>,
}

/// One step's outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Step {
    pub n: u32,
    pub name: String,
    pub ok: bool,
    /// What happened (for a failure: why it failed).
    pub detail: String,
    /// The step's evidence, structured (ids, versions, exit codes, counts).
    #[serde(default)]
    pub facts: Value,
}

/// The outcome of the whole quest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Summary {
    pub ok: bool,
    pub passed: u32,
    pub failed: u32,
    pub steps: u32,
    pub elapsed_ms: u64,
    /// The temporary directory (gone unless `kept`).
    pub dir: PathBuf,
    pub kept: bool,
}

/// One JSON Lines record of `locker quest --json`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(tag = "type", content = "data", rename_all = "snake_case")]
pub enum Record<'a> {
    Step(&'a Step),
    Summary(&'a Summary),
}

/// Runs the quest; `on_step` gets each step as it ends.
pub fn run(opts: &QuestOptions, on_step: &mut dyn FnMut(&Step)) -> Summary {
    let start = Instant::now();
    let parent = opts.temp_parent.clone().unwrap_or_else(std::env::temp_dir);
    let mut summary = Summary {
        ok: false,
        passed: 0,
        failed: 0,
        steps: STEPS.len() as u32,
        elapsed_ms: 0,
        dir: parent.clone(),
        kept: false,
    };
    let dir = tempfile::Builder::new()
        .prefix("locker-quest-")
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir_in(&parent);
    let dir = match dir {
        Ok(d) => d,
        Err(e) => {
            on_step(&failure(1, format!("cannot create a directory in {}: {e}", parent.display())));
            summary.failed = 1;
            return summary;
        }
    };
    summary.dir = dir.path().to_owned();
    {
        let mut quest = Quest::new(opts, dir.path());
        for n in 1..=STEPS.len() as u32 {
            let step = match quest.step(n) {
                Ok((detail, facts)) => Step {
                    n,
                    name: STEPS[n as usize - 1].to_owned(),
                    ok: true,
                    detail: shorten_hashes(&detail),
                    facts,
                },
                Err(why) => failure(n, shorten_hashes(&why)),
            };
            on_step(&step);
            if !step.ok {
                summary.failed = 1;
                break;
            }
            summary.passed += 1;
        }
        // Dropping the quest kills and reaps whatever still runs (the server).
    }
    summary.ok = summary.failed == 0 && summary.passed == summary.steps;
    if opts.keep {
        let _ = dir.keep();
        summary.kept = true;
    } else if let Err(e) = dir.close() {
        // Nothing runs any more; a directory that cannot be removed is only reported.
        summary.ok = false;
        on_step(&Step {
            n: summary.passed + 1,
            name: "Remove the temporary directory".into(),
            ok: false,
            detail: format!("cannot remove {}: {e}", summary.dir.display()),
            facts: Value::Null,
        });
        summary.failed += 1;
    }
    summary.elapsed_ms = u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
    summary
}

fn failure(n: u32, why: String) -> Step {
    Step {
        n,
        name: STEPS.get(n as usize - 1).copied().unwrap_or("Quest").to_owned(),
        ok: false,
        detail: why,
        facts: Value::Null,
    }
}

type StepResult = Result<(String, Value), String>;

/// The agents' tokens.
#[derive(Default)]
struct Tokens {
    planner: String,
    a: String,
    b: String,
}

/// The story's state: the directories, the clock, the server and what each step learned.
struct Quest<'o> {
    opts: &'o QuestOptions,
    root: PathBuf,
    repo: PathBuf,
    now: i64,
    server: Option<ServerProcess>,
    tokens: Tokens,
    deposited: Option<Deposited>,
    started: Option<Started>,
    finished: Option<Finished>,
}

/// Parses a child's JSON stdout.
fn parse<T: DeserializeOwned>(what: &str, bytes: &[u8]) -> Result<T, String> {
    serde_json::from_slice(bytes).map_err(|e| {
        format!("{what} printed something unexpected ({e}): {}", String::from_utf8_lossy(bytes))
    })
}

fn expect_code(what: &str, out: &Output, code: i32) -> Result<(), String> {
    if out.code == Some(code) {
        return Ok(());
    }
    let how =
        out.code.map_or_else(|| "was killed by a signal".to_owned(), |c| format!("exited {c}"));
    Err(format!("{what} {how}, not {code}: {}", out.error_text()))
}

fn ok_json<T: DeserializeOwned>(what: &str, out: &Output) -> Result<T, String> {
    expect_code(what, out, 0)?;
    parse(what, &out.stdout)
}

/// Shortens every run of 32 or more hex digits (ids, digests) to its first 12 and `…`, so
/// that details stay readable; the facts keep them whole.
fn shorten_hashes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut run = String::new();
    let flush = |run: &mut String, out: &mut String| {
        if run.len() >= 32 {
            out.push_str(&run[..12]);
            out.push('…');
        } else {
            out.push_str(run);
        }
        run.clear();
    };
    for c in text.chars() {
        if c.is_ascii_hexdigit() {
            run.push(c);
        } else {
            flush(&mut run, &mut out);
            out.push(c);
        }
    }
    flush(&mut run, &mut out);
    out
}

fn short(h: &impl std::fmt::Display) -> String {
    shorten_hashes(&h.to_string())
}

fn check(ok: bool, why: impl FnOnce() -> String) -> Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(why())
    }
}

/// The names of a running process's environment variables (Linux: `/proc/PID/environ`).
fn environment_of(pid: u32) -> Option<Vec<String>> {
    let bytes = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    let mut names: Vec<String> = bytes
        .split(|b| *b == 0)
        .filter(|kv| !kv.is_empty())
        .map(|kv| {
            let name = kv.split(|b| *b == b'=').next().unwrap_or_default();
            String::from_utf8_lossy(name).into_owned()
        })
        .collect();
    names.sort();
    Some(names)
}

/// Refuses an environment with anything but the allowed variables (names starting with `__`
/// are set by some systems' loaders, not inherited).
fn check_environment(who: &str, names: &[String]) -> Result<(), String> {
    let foreign: Vec<&String> = names
        .iter()
        .filter(|n| !ALLOWED_ENV.contains(&n.as_str()) && !n.starts_with("__"))
        .collect();
    check(foreign.is_empty(), || format!("{who} inherited environment variables: {foreign:?}"))
}

impl<'o> Quest<'o> {
    fn new(opts: &'o QuestOptions, root: &Path) -> Self {
        Self {
            opts,
            root: root.to_owned(),
            repo: root.join("repo"),
            now: opts.now,
            server: None,
            tokens: Tokens::default(),
            deposited: None,
            started: None,
            finished: None,
        }
    }

    fn step(&mut self, n: u32) -> StepResult {
        match n {
            1 => self.deposit(),
            2 => self.worker_a(),
            3 => self.take_over(),
            4 => self.stale_retry(),
            5 => self.server_crash(),
            6 => self.replay(),
            7 => self.tamper(),
            8 => self.report(),
            9 => self.rewrite(),
            _ => Err(format!("there is no step {n}")),
        }
    }

    fn dir(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    fn spec(&self, args: &[&str], cwd: &Path, extra: &[(&str, String)]) -> Spec {
        Spec {
            exe: self.opts.exe.clone(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            env: child_env(&self.root, self.now, extra),
            cwd: cwd.to_owned(),
        }
    }

    /// A local command on the repository, as its operator.
    fn local(&self, args: &[&str]) -> Result<Output, String> {
        let extra = [("LOCKER_DIR", self.repo.display().to_string())];
        proc::run(&self.spec(args, &self.root, &extra), TIMEOUT)
    }

    fn url(&self) -> Result<String, String> {
        self.server
            .as_ref()
            .map(ServerProcess::url)
            .ok_or_else(|| "the server is not running".into())
    }

    /// A command against the server, as the agent of `token` (if any), run in `cwd`.
    fn remote(&self, token: Option<&str>, args: &[&str], cwd: &Path) -> Result<Output, String> {
        let url = self.url()?;
        let mut all = vec!["--remote", url.as_str()];
        all.extend_from_slice(args);
        let extra: Vec<(&str, String)> =
            token.map(|t| ("LOCKER_TOKEN", t.to_owned())).into_iter().collect();
        proc::run(&self.spec(&all, cwd, &extra), TIMEOUT)
    }

    /// A worker process (`locker __quest-worker ARGS…`) in `dir`, as the agent of `token`.
    fn worker_spec(&self, args: &[&str], dir: &str, token: &str) -> Result<Spec, String> {
        let mut all = vec![WORKER_ARG];
        all.extend_from_slice(args);
        let extra = [("LOCKER_URL", self.url()?), ("LOCKER_TOKEN", token.to_owned())];
        Ok(self.spec(&all, &self.dir(dir), &extra))
    }

    fn start_server(&mut self) -> Result<(), String> {
        let extra = [("LOCKER_DIR", self.repo.display().to_string())];
        let spec = self.spec(&["serve", "--listen", "127.0.0.1:0"], &self.root, &extra);
        self.server = Some(ServerProcess::start(&spec, TIMEOUT)?);
        Ok(())
    }

    fn deposited(&self) -> Result<&Deposited, String> {
        self.deposited.as_ref().ok_or_else(|| "no pad was deposited".into())
    }

    fn started(&self) -> Result<&Started, String> {
        self.started.as_ref().ok_or_else(|| "worker A never started".into())
    }

    fn finished(&self) -> Result<&Finished, String> {
        self.finished.as_ref().ok_or_else(|| "worker B never finished".into())
    }

    /// Step 1: a repository, three agents and a server; the planner deposits the handoff pad
    /// and seeds the artifact; worker A gets the ticket.
    fn deposit(&mut self) -> StepResult {
        for d in ["repo", "planner", "worker-a", "worker-b"] {
            std::fs::DirBuilder::new()
                .mode(0o700)
                .create(self.dir(d))
                .map_err(|e| format!("cannot create {}: {e}", self.dir(d).display()))?;
        }
        let repo = self.repo.display().to_string();
        expect_code("locker init", &self.local(&["--json", "init", &repo])?, 0)?;
        let mut created = Vec::new();
        for agent in ["planner", "worker-a", "worker-b"] {
            let out =
                self.local(&["--json", "--scope", SCOPE, "token", "create", "--agent", agent])?;
            let t: TokenCreated = ok_json("locker token create", &out)?;
            created.push(t.token);
        }
        let [planner, a, b]: [String; 3] =
            created.try_into().map_err(|_| "three tokens were not created".to_owned())?;
        self.tokens = Tokens { planner, a, b };
        self.start_server()?;

        let planner = self.dir("planner");
        let envelope = json!({
            "schema": crate::domain::envelope::SCHEMA,
            "task_id": WORK,
            "from_agent": "planner",
            "to_agent": "worker-a",
            "constraints": ["publish only under a live lease", "never overwrite a newer version"],
            "artifacts": [{"key": KEY}],
            "budget_usd": null,
        });
        let plan = TaskPlan {
            work: WORK.into(),
            key: KEY.into(),
            steps: PLAN.iter().map(|s| (*s).to_owned()).collect(),
        };
        for (name, bytes) in [
            ("envelope.json", serde_json::to_vec_pretty(&envelope)),
            ("plan.json", serde_json::to_vec_pretty(&plan)),
        ] {
            let bytes = bytes.map_err(|e| e.to_string())?;
            std::fs::write(planner.join(name), bytes)
                .map_err(|e| format!("cannot write {name}: {e}"))?;
        }
        let out = self.remote(
            None,
            &["--json", "deposit", "--envelope", "envelope.json", "--artifact", "plan.json"],
            &planner,
        )?;
        let d: Deposited = ok_json("the planner's `locker deposit`", &out)?;
        check(d.status == crate::domain::pad::PadState::Sealed && d.block_count == 2, || {
            format!("the deposited pad is {} with {} blocks", d.status.as_str(), d.block_count)
        })?;
        let seed = [
            "--json",
            "artifact",
            "publish",
            KEY,
            "--data",
            SEED,
            "--expect",
            "0",
            "--op",
            "planner/seed",
        ];
        let out = self.remote(Some(&self.tokens.planner), &seed, &planner)?;
        let p: Published = ok_json("the planner's `locker artifact publish`", &out)?;
        check(p.artifact.version == 1, || {
            format!("the seed became version {}", p.artifact.version)
        })?;

        // The hand-off: the ticket goes into worker A's private directory, never on a command
        // line.
        let handoff = Handoff {
            pad_id: d.pad_id.clone(),
            head_hash: d.head_hash,
            ticket: d.read_ticket.clone(),
        };
        worker::save_private(&self.dir("worker-a").join(worker::HANDOFF_FILE), &handoff)
            .map_err(|e| e.detail)?;
        let detail = format!(
            "pad {} sealed with {} blocks (envelope, plan), head {}; {KEY} v1 seeded; \
             ticket in worker-a/{} (mode 0600); server at {}",
            short(&d.pad_id),
            d.block_count,
            short(&d.head_hash),
            worker::HANDOFF_FILE,
            self.url()?
        );
        let facts = json!({
            "pad_id": d.pad_id,
            "head_hash": d.head_hash,
            "blocks": d.block_count,
            "seed_version": p.artifact.version,
            "server": self.url()?,
            "server_environment": self.server.as_ref().and_then(ServerProcess::pid).and_then(environment_of),
        });
        if let Some(names) = facts["server_environment"].as_array() {
            let names: Vec<String> =
                names.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect();
            check_environment("the server", &names)?;
        }
        self.deposited = Some(d);
        Ok((detail, facts))
    }

    /// Step 2: worker A works until it is about to publish, says READY, and is SIGKILLed.
    fn worker_a(&mut self) -> StepResult {
        let spec = self.worker_spec(&["a"], "worker-a", &self.tokens.a)?;
        let mut w = proc::Worker::start(&spec)?;
        let lines = w.wait_ready(TIMEOUT).map_err(|e| format!("worker A: {e}"))?;
        let own_env = w.pid().and_then(environment_of);
        let status = w.kill();
        let report = lines.last().ok_or("worker A said READY without a report")?;
        let s: Started = parse("worker A", report.as_bytes())?;
        check_environment("worker A", &s.environment)?;
        if let Some(names) = &own_env {
            check_environment("worker A", names)?;
        }
        let d = self.deposited()?;
        check(s.pad_id == d.pad_id && s.head_hash == d.head_hash, || {
            format!("worker A verified pad {} at {}, not the deposited one", s.pad_id, s.head_hash)
        })?;
        check(s.fence == 1 && s.read_version == 1 && s.plan == PLAN, || {
            format!(
                "worker A got fence {}, read version {}, plan {:?}",
                s.fence, s.read_version, s.plan
            )
        })?;
        let pending = self.dir("worker-a").join(worker::PENDING_FILE);
        let mode = file_mode(&pending)?;
        check(mode == 0o600, || format!("worker A's saved publish has mode {mode:o}, not 600"))?;
        let signal = status.and_then(|st| std::os::unix::process::ExitStatusExt::signal(&st));
        check(signal == Some(9), || format!("worker A was not SIGKILLed: {status:?}"))?;
        let detail = format!(
            "verified pad {} through the server and end to end ({} blocks); leased {} with \
             fencing token {} (ttl {} s); committed plan v{} ({}); logged {}; saved its publish \
             of {} against v{} to worker-a/{} (mode 0600); READY, then SIGKILL",
            short(&s.pad_id),
            s.blocks,
            s.work,
            s.fence,
            worker::LEASE_TTL,
            s.plan_version,
            s.plan.join(", "),
            s.steps_logged.join(", "),
            s.pending.key,
            s.read_version,
            worker::PENDING_FILE,
        );
        let facts = json!({
            "lease_id": s.lease_id,
            "fence": s.fence,
            "plan_version": s.plan_version,
            "plan": s.plan,
            "read_version": s.read_version,
            "pending": s.pending,
            "environment": s.environment,
            "killed_by_signal": signal,
        });
        self.started = Some(s);
        Ok((detail, facts))
    }

    /// Step 3: the clock moves past A's lease; the reaper abandons it; worker B does the work.
    fn take_over(&mut self) -> StepResult {
        let a_lease = self.started()?.lease_id.clone();
        self.now += CLOCK_JUMP;
        // `locker serve` reads LOCKER_NOW once, at start: restart it on the new clock.
        let old = self.server.take().ok_or("the server is not running")?;
        let status = old.stop(TIMEOUT).map_err(|e| format!("stopping the server: {e}"))?;
        check(status.success(), || {
            format!("the server did not stop cleanly on SIGTERM: {status}")
        })?;
        self.start_server()?;

        let r: Reaped = ok_json("`locker lease reap`", &self.local(&["--json", "lease", "reap"])?)?;
        let reaped = r.abandoned.iter().find(|l| l.lease_id == a_lease);
        check(reaped.is_some_and(|l| l.fence == 1 && l.holder == "worker-a"), || {
            format!("the reaper did not abandon worker A's lease: {:?}", r.abandoned)
        })?;

        let spec = self.worker_spec(&["b", WORK, KEY], "worker-b", &self.tokens.b)?;
        let f: Finished = ok_json("worker B", &proc::run(&spec, TIMEOUT)?)?;
        check(f.fence == 2 && !f.reacquired, || format!("worker B got fencing token {}", f.fence))?;
        check(f.published.artifact.version == 2 && !f.published.replayed, || {
            format!("worker B's publish made version {}", f.published.artifact.version)
        })?;
        check(f.state == "completed", || format!("worker B's lease ended {}", f.state))?;
        let detail = format!(
            "clock +{CLOCK_JUMP} s (server restarted on it); `locker lease reap` abandoned worker \
             A's lease (fencing token 1); worker B leased {WORK} with fencing token {}, logged \
             {}; published {KEY} v{}; completed its lease",
            f.fence,
            f.steps_logged.join(", "),
            f.published.artifact.version,
        );
        let facts = json!({
            "clock": self.now,
            "abandoned": r.abandoned.iter().map(|l| json!({"lease_id": l.lease_id, "fence": l.fence, "holder": l.holder})).collect::<Vec<_>>(),
            "fence": f.fence,
            "version": f.published.artifact.version,
            "steps_logged": f.steps_logged,
            "state": f.state,
        });
        self.finished = Some(f);
        Ok((detail, facts))
    }

    /// Step 4: worker A restarts and sends its saved publish: refused.
    fn stale_retry(&mut self) -> StepResult {
        let spec = self.worker_spec(&["resume"], "worker-a", &self.tokens.a)?;
        let out = proc::run(&spec, TIMEOUT)?;
        expect_code("worker A's retry", &out, 4)?;
        let err: Value = parse("worker A's retry", last_line(&out.stderr))?;
        let code = err["error"].as_str().unwrap_or_default();
        check(matches!(code, "stale_fence" | "version_conflict"), || {
            format!("worker A's retry failed with {code}, not a stale write")
        })?;
        check(err["current_version"] == 2, || {
            format!("the refusal names version {}", err["current_version"])
        })?;
        let detail = format!(
            "exit 4, {code}: {}; {KEY} stays at v{}",
            err["detail"].as_str().unwrap_or_default(),
            err["current_version"]
        );
        Ok((detail, json!({"exit_code": 4, "error": err})))
    }

    /// Step 5: SIGKILL the server, start another on the same repository, check everything.
    fn server_crash(&mut self) -> StepResult {
        let old = self.server.take().ok_or("the server is not running")?;
        let status = old.kill();
        let signal = status.and_then(|st| std::os::unix::process::ExitStatusExt::signal(&st));
        check(signal == Some(9), || format!("the server was not SIGKILLed: {status:?}"))?;
        self.start_server()?;
        let (f, d) = (self.finished()?, self.deposited()?);
        let b = Some(self.tokens.b.as_str());
        let root = &self.root;
        let v: ArtifactView =
            ok_json("artifact get", &self.remote(b, &["--json", "artifact", "get", KEY], root)?)?;
        check(v == f.published.artifact, || format!("{KEY} after the restart is v{}", v.version))?;
        let w: WorkStatus =
            ok_json("lease show", &self.remote(b, &["--json", "lease", "show", WORK], root)?)?;
        check(
            w.attempts == 2
                && w.lease.fence == 2
                && w.lease.holder == "worker-b"
                && w.lease.state.as_str() == "completed",
            || format!("{WORK} after the restart: {w:?}"),
        )?;
        let head = d.head_hash.to_string();
        let args = ["--json", "verify", d.pad_id.as_str(), "--expect-head", head.as_str()];
        let p: PadReport = ok_json("verify", &self.remote(None, &args, root)?)?;
        check(p.ok && p.expected_head.as_ref().is_some_and(|e| e.matches), || {
            format!("pad {} after the restart: {:?}", d.pad_id, p.problems)
        })?;
        let detail = format!(
            "SIGKILL (signal 9); restarted on the same repository at {}; {KEY} v{} \
             (sha256 {}) by {}; {WORK}: {} leases, the newest (fencing token {}) {}; pad {} \
             verifies at head {}",
            self.url()?,
            v.version,
            short(&v.sha256),
            v.actor,
            w.attempts,
            w.lease.fence,
            w.lease.state.as_str(),
            short(&p.pad_id),
            short(&p.head_hash),
        );
        let facts = json!({
            "killed_by_signal": signal,
            "server": self.url()?,
            "version": v.version,
            "leases": w.attempts,
            "lease_state": w.lease.state.as_str(),
            "pad_ok": p.ok,
        });
        Ok((detail, facts))
    }

    /// Step 6: worker B, not knowing its publish was acknowledged, sends it again.
    fn replay(&mut self) -> StepResult {
        let spec = self.worker_spec(&["resume"], "worker-b", &self.tokens.b)?;
        let p: Published = ok_json("worker B's retry", &proc::run(&spec, TIMEOUT)?)?;
        let f = self.finished()?;
        check(p.replayed && p.artifact == f.published.artifact, || {
            format!("the retry gave replayed={} version {}", p.replayed, p.artifact.version)
        })?;
        let b = Some(self.tokens.b.as_str());
        let out = self.remote(b, &["--json", "artifact", "log", KEY], &self.root)?;
        let log: ArtifactLog = ok_json("artifact log", &out)?;
        check(log.current_version == 2 && log.versions.len() == 2, || {
            format!("{KEY} has {} versions, head {}", log.versions.len(), log.current_version)
        })?;
        let detail = format!(
            "operation {}: replayed: true, version {} exactly as first acknowledged; {KEY} \
             still has {} versions",
            p.artifact.op_id,
            p.artifact.version,
            log.versions.len()
        );
        let facts = json!({"replayed": p.replayed, "version": p.artifact.version, "versions": log.versions.len()});
        Ok((detail, facts))
    }

    /// Step 7: verify is clean; one byte changes in the database; verify finds it.
    fn tamper(&mut self) -> StepResult {
        let before = self.local(&["--json", "verify"])?;
        let clean: RepoReport = ok_json("verify (before)", &before)?;
        check(clean.ok, || {
            format!("verify found problems before any tampering: {:?}", clean.problems)
        })?;
        let pad = self.deposited()?.pad_id.clone();
        let db = self.repo.join(crate::repo::DOT_LOCKER).join(crate::repo::DB_FILE);
        let t = tamper::flip_payload_byte(&db, &pad, 1)?;
        let after = self.local(&["--json", "verify"])?;
        expect_code("verify (after)", &after, 1)?;
        let r: RepoReport = parse("verify (after)", &after.stdout)?;
        let subject = format!("pad:{pad}");
        let found = r.problems.iter().find(|p| p.subject == subject && p.seq == Some(1));
        let found = found
            .ok_or_else(|| format!("verify did not name block 1 of pad {pad}: {:?}", r.problems))?;
        let detail = format!(
            "verify exited 0 before; changed byte {} of block 1 of pad {} ('{}' → '{}') with \
             plain SQLite; verify exited 1 naming {}: {}",
            t.offset,
            short(&pad),
            t.before,
            t.after,
            short(&subject),
            found.detail.strip_prefix(&format!("pad {pad}: ")).unwrap_or(&found.detail)
        );
        let facts = json!({
            "exit_before": 0,
            "exit_after": 1,
            "offset": t.offset,
            "problem": found,
            "problem_count": r.problem_count,
        });
        Ok((detail, facts))
    }

    /// Step 9: a verifier pins the log's signed checkpoint; the operator rewrites an old journal
    /// entry with plain SQLite and recomputes every hash: locker refuses the database (it does not
    /// extend the log key's high-water mark). The operator, who owns the files, deletes the mark
    /// too and has locker re-sign the head with the repository's own key; the pinned verifier
    /// reports the fork with both checkpoints.
    fn rewrite(&mut self) -> StepResult {
        use crate::ops::log::pin::{CheckpointCheck, PinStatus};
        use crate::ops::log::{CheckpointOutcome, KeyOutcome};
        let key: KeyOutcome = ok_json("key show", &self.local(&["--json", "key", "show"])?)?;
        let state = self.dir("verifier-state").display().to_string();
        let verify =
            ["--json", "checkpoint", "--key", key.vkey.as_str(), "--state", state.as_str()];
        let pinned: CheckpointCheck = ok_json("checkpoint --key (pin)", &self.local(&verify)?)?;
        check(pinned.ok && pinned.pin.status == PinStatus::Pinned, || {
            format!("the verifier did not pin the checkpoint: {}", pinned.pin.detail)
        })?;
        let db = self.repo.join(crate::repo::DOT_LOCKER).join(crate::repo::DB_FILE);
        let r = tamper::rewrite_journal(&db, 2)?;
        let refused = self.local(&["--json", "checkpoint"])?;
        expect_code("checkpoint (the rewritten database)", &refused, 6)?;
        tamper::forget_mark(&self.repo)?;
        let resigned: CheckpointOutcome =
            ok_json("checkpoint (re-sign)", &self.local(&["--json", "checkpoint"])?)?;
        let after = self.local(&verify)?;
        expect_code("checkpoint --key (after the rewrite)", &after, 1)?;
        let caught: CheckpointCheck = parse("checkpoint --key (after the rewrite)", &after.stdout)?;
        let ev = caught
            .evidence
            .as_ref()
            .ok_or_else(|| format!("the verifier reported no evidence: {}", caught.pin.detail))?;
        check(
            caught.pin.status == PinStatus::Fork
                && ev.pinned == pinned.note
                && ev.presented == resigned.note,
            || format!("the verifier did not report the fork: {}", caught.pin.detail),
        )?;
        let detail = format!(
            "a verifier pinned checkpoint {} (key {}); the operator rewrote journal entry {} \
             with plain SQLite and recomputed all {} chain hashes: locker refused the database \
             (exit 6, it does not extend the log key's high-water mark); with the mark deleted \
             too, locker rebuilt the tree and re-signed (root {}); the pinned verifier exited 1 \
             with both signed checkpoints as evidence: {}",
            pinned.size.unwrap_or(0),
            key.key_id,
            r.seq,
            r.entries,
            resigned.root,
            caught.pin.detail
        );
        let facts = json!({
            "pinned": pinned.note,
            "presented": resigned.note,
            "status": caught.pin.status,
            "exit": 1,
        });
        Ok((detail, facts))
    }

    /// Step 8: the plan diff and the journal.
    fn report(&mut self) -> StepResult {
        let b = Some(self.tokens.b.as_str());
        let out = self.remote(b, &["--json", "manifest", "diff", WORK], &self.root)?;
        expect_code("manifest diff", &out, 1)?;
        let d: Diff = parse("manifest diff", &out.stdout)?;
        check(d.holes == ["review"] && d.extras.is_empty() && d.fence == 2, || {
            format!("the diff shows holes {:?}, extras {:?}", d.holes, d.extras)
        })?;
        let out = self.local(&["--json", "log", "--limit", "10000"])?;
        expect_code("log", &out, 0)?;
        let mut kinds: BTreeMap<String, u64> = BTreeMap::new();
        let mut reasons = Vec::new();
        let mut entries = 0u64;
        for line in out.stdout.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            let e: LogEntry = parse("log", line)?;
            if e.kind == "artifact.reject" {
                reasons.push(e.body["reason"].as_str().unwrap_or_default().to_owned());
            }
            *kinds.entry(e.kind).or_default() += 1;
            entries += 1;
        }
        let count = |k: &str| kinds.get(k).copied().unwrap_or(0);
        let (accepted, rejected, replayed, abandoned) = (
            count("artifact.publish"),
            count("artifact.reject"),
            count("artifact.replay"),
            count("lease.abandon"),
        );
        check((accepted, rejected, replayed, abandoned) == (2, 1, 1, 1), || {
            format!(
                "the journal has {accepted} accepted, {rejected} rejected, {replayed} replayed \
                 publishes and {abandoned} abandoned leases"
            )
        })?;
        let detail = format!(
            "plan v{} ({} steps) against lease {} (fencing token {}): hole: {}, no extras \
             (exit 1); journal of {entries} entries: {accepted} accepted, {rejected} rejected \
             ({}), {replayed} replayed publish, {abandoned} lease abandoned",
            d.plan_version.unwrap_or(0),
            d.planned.len(),
            short(&d.lease_id),
            d.fence,
            d.holes.join(", "),
            reasons.join(", "),
        );
        let facts = json!({
            "holes": d.holes,
            "extras": d.extras,
            "journal_entries": entries,
            "accepted": accepted,
            "rejected": rejected,
            "replayed": replayed,
            "abandoned": abandoned,
            "kinds": kinds,
        });
        Ok((detail, facts))
    }
}

fn last_line(bytes: &[u8]) -> &[u8] {
    bytes
        .split(|b| *b == b'\n')
        .rev()
        .find(|l| !l.iter().all(u8::is_ascii_whitespace))
        .unwrap_or_default()
}

fn file_mode(path: &Path) -> Result<u32, String> {
    std::fs::metadata(path)
        .map(|m| m.permissions().mode() & 0o777)
        .map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_hex_runs_are_shortened_in_details() {
        let h = "fd4a5b8169dc0175943d7815877fe8c8fecb7cf97e6de36bc2bddd75a0a52913";
        assert_eq!(shorten_hashes(&format!("head {h}; v2")), "head fd4a5b8169dc…; v2");
        assert_eq!(shorten_hashes(&format!("pad:{}", &h[..32])), "pad:fd4a5b8169dc…");
        assert_eq!(shorten_hashes("deadbeef v2 cafe"), "deadbeef v2 cafe");
    }
}
