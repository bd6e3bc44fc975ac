//! What a reader trusts a log with (`--key`, `--state`, `--no-pin`, `--policy`, and the reader's
//! config file), and taking a log's checkpoint with it in every reader flow: `checkpoint`,
//! `verify --proof`, `verify --bundle`, `review` and remote `pad read`. The rule itself is
//! `ops::log::pin::accept`; this module only gathers its inputs.
//!
//! The witness policy comes from `--policy FILE`, else `LOCKER_POLICY`, else the `policy`
//! setting of the reader's config file (`LOCKER_CONFIG`, else `~/.config/locker/config.json`):
//!
//! ```json
//! {"policy": "witnesses.policy"}
//! ```
//!
//! (a relative path is taken from the config file's directory).

use std::path::{Path, PathBuf};

use clap::Args;

use super::CommandCtx;
use crate::api::ProveConsistency;
use crate::domain::note::{SignedCheckpoint, Verifier};
use crate::domain::witness::Policy;
use crate::ops::log::pin::{self, PinStore, Trust};
use crate::ops::log::{self};
use crate::ops::pad::bundle::BundleReport;
use crate::ops::OpError;

/// The environment variable naming the reader's witness policy file.
pub const POLICY_ENV: &str = "LOCKER_POLICY";
/// The environment variable naming the reader's config file.
pub const CONFIG_ENV: &str = "LOCKER_CONFIG";

/// A trusted verifier key, where pinned checkpoints are kept, and the witness policy.
#[derive(Debug, Clone, Args)]
pub struct TrustArgs {
    /// The log's verifier key (`name+keyid+AQ…`, as `locker key show` prints it), or a file
    /// holding it
    #[arg(long = "key", env = "LOCKER_LOG_KEY", value_name = "VKEY")]
    pub key: Option<String>,
    /// Keep pinned checkpoints in DIR (default: the user's state directory, e.g.
    /// ~/.local/state/locker)
    #[arg(long, env = "LOCKER_STATE_DIR", value_name = "DIR")]
    pub state: Option<PathBuf>,
    /// Do not consult or update the pinned checkpoint (a rewritten log goes unnoticed)
    #[arg(long)]
    pub no_pin: bool,
    /// Accept a checkpoint only when it carries this witness policy's quorum of valid
    /// cosignatures (C2SP tlog-policy: `log`, `witness`, `group` and `quorum` lines), the first
    /// one too; one that does not is neither accepted nor pinned (exit 1, naming the missing
    /// witnesses). Without --key the policy's `log` key is the trusted key. Default:
    /// $LOCKER_POLICY, else `policy` in the reader's config file ($LOCKER_CONFIG, else
    /// ~/.config/locker/config.json)
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
}

impl TrustArgs {
    /// The verifier key given with --key, if any.
    pub fn verifier(&self) -> Result<Option<Verifier>, OpError> {
        let Some(k) = self.key.as_deref().map(str::trim) else { return Ok(None) };
        if Verifier::parse(k).is_err() && Path::new(k).is_file() {
            let text = std::fs::read_to_string(k)
                .map_err(|e| OpError::bad_request(format!("cannot read the key file {k}: {e}")))?;
            return log::parse_verifier(text.lines().next().unwrap_or("")).map(Some);
        }
        log::parse_verifier(k).map(Some)
    }

    /// The pin store, unless pinning is off.
    pub fn pins(&self) -> Result<Option<PinStore>, OpError> {
        if self.no_pin {
            return Ok(None);
        }
        let dir = self.state.clone().or_else(PinStore::default_dir).ok_or_else(|| {
            OpError::usage("there is no state directory for pinned checkpoints: pass --state DIR")
        })?;
        Ok(Some(PinStore::new(&dir)))
    }

    /// The reader's witness policy: --policy, else `LOCKER_POLICY`, else the config file's.
    pub fn policy(&self) -> Result<Option<Policy>, OpError> {
        let from_env = || std::env::var_os(POLICY_ENV).filter(|v| !v.is_empty()).map(PathBuf::from);
        let path = match self.policy.clone().or_else(from_env) {
            Some(p) => p,
            None => match config_policy()? {
                Some(p) => p,
                None => return Ok(None),
            },
        };
        load_policy(&path).map(Some)
    }

    /// The reader's trust for the log whose checkpoint is `note` (when known), or `None` when
    /// the reader gave neither a key nor a policy. Without --key, the policy's log key for the
    /// checkpoint's origin (or its only one) is trusted.
    pub fn trust(&self, note: Option<&str>) -> Result<Option<Trust>, OpError> {
        let policy = self.policy()?;
        let key = match (self.verifier()?, &policy) {
            (Some(k), _) => k,
            (None, None) => return Ok(None),
            (None, Some(p)) => {
                let origin = note.and_then(|n| SignedCheckpoint::parse_unverified(n).ok());
                let origin = origin.map(|c| c.origin);
                policy_log(p, origin.as_deref())?
            }
        };
        Ok(Some(Trust { key, pins: self.pins()?, policy }))
    }
}

/// The log key a policy names for `origin` (or its only one).
fn policy_log(p: &Policy, origin: Option<&str>) -> Result<Verifier, OpError> {
    let matching: Vec<&Verifier> =
        p.logs.iter().filter(|v| origin.is_none_or(|o| v.name == o)).collect();
    match (matching.as_slice(), origin) {
        ([one], _) => Ok((*one).clone()),
        ([], Some(o)) => Err(OpError::usage(format!(
            "the witness policy names no log with the origin `{o}`: pass --key VKEY"
        ))),
        ([], None) => Err(OpError::usage(
            "the witness policy names no log (`log VKEY` line): pass --key VKEY",
        )),
        _ => Err(OpError::usage("the witness policy names several logs: pass --key VKEY")),
    }
}

/// Reads and parses a witness policy file (exit 6 when unreadable or malformed).
pub fn load_policy(path: &Path) -> Result<Policy, OpError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        OpError::bad_request(format!("cannot read the witness policy {}: {e}", path.display()))
    })?;
    Policy::parse(&text).map_err(|e| {
        OpError::bad_request(format!("the witness policy {}: {e}", path.display()))
            .hint("A policy has `log VKEY`, `witness NAME VKEY`, `group NAME K MEMBERS…` and `quorum NAME` lines (C2SP tlog-policy).")
    })
}

/// The reader's config file: `LOCKER_CONFIG`, else `config.json` in the user's config
/// directory.
pub fn config_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(CONFIG_ENV).filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let dirs = directories::ProjectDirs::from("", "", "locker")?;
    Some(dirs.config_dir().join("config.json"))
}

/// The `policy` setting of the reader's config file, resolved against its directory.
fn config_policy() -> Result<Option<PathBuf>, OpError> {
    let Some(path) = config_path() else { return Ok(None) };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(OpError::bad_request(format!("cannot read {}: {e}", path.display()))),
    };
    let bad = |why: &str| {
        OpError::bad_request(format!("the config file {}: {why}", path.display()))
            .hint("It is a JSON object, e.g. {\"policy\": \"witnesses.policy\"}.")
    };
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| bad(&e.to_string()))?;
    let obj = v.as_object().ok_or_else(|| bad("not a JSON object"))?;
    match obj.get("policy") {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(serde_json::Value::String(p)) => {
            let p = PathBuf::from(p);
            let dir = path.parent().unwrap_or(Path::new("."));
            Ok(Some(if p.is_absolute() { p } else { dir.join(p) }))
        }
        Some(_) => Err(bad("`policy` is not a string (a path)")),
    }
}

/// Runs `f` with a way to fetch consistency proofs of log `v`: from `--remote`, else from the
/// repository here when it is that log, else none.
pub fn with_fetch<T>(
    ctx: &mut CommandCtx,
    v: &Verifier,
    f: impl FnOnce(Option<&mut pin::Fetch<'_>>) -> Result<T, OpError>,
) -> Result<T, OpError> {
    if ctx.remote()?.is_some() {
        let mut remote = ctx.locker()?;
        let mut fetch = |old: u64, new: u64| {
            remote.prove_consistency(ProveConsistency { old, new: Some(new) }).map(|c| c.hashes)
        };
        return f(Some(&mut fetch));
    }
    let local = ctx.local()?;
    let same_log = local.log_identity().ok().is_some_and(|l| l.origin == v.name);
    if same_log {
        if let Ok(mut octx) = local.ctx() {
            let mut fetch = |old: u64, new: u64| log::consistency_hashes(&mut octx, old, new);
            return f(Some(&mut fetch));
        }
    }
    f(None)
}

/// The bundle `bytes`, checked: its blocks, its log proofs against the reader's key (when the
/// reader has one), and its checkpoint taken as the reader takes any (`pin::accept`).
pub fn check_bundle(
    ctx: &mut CommandCtx,
    bytes: &[u8],
    file: Option<&str>,
    expect: Option<crate::domain::digest::Digest>,
    trust: &TrustArgs,
) -> Result<BundleReport, OpError> {
    use crate::ops::pad::bundle;
    let parsed = bundle::parse(bytes)?;
    let note = parsed.header.log.as_ref().map(|l| l.checkpoint.clone());
    let Some(trust) = trust.trust(note.as_deref())? else {
        return Ok(bundle::report(&parsed, file, expect));
    };
    let mut report = bundle::report_with_key(&parsed, file, expect, Some(&trust.key));
    // A bundle that failed a check (its `log` check says why its checkpoint does not verify)
    // has nothing a reader should take, or pin.
    let signed = note.as_deref().and_then(|n| SignedCheckpoint::verify(n, &trust.key).ok());
    if let (true, Some(signed)) = (report.ok, signed) {
        let accepted = with_fetch(ctx, &trust.key, |fetch| pin::accept(&trust, &signed, fetch))?;
        announce_pin(ctx, &signed.checkpoint.origin, &accepted.pin);
        report.apply_trust(accepted);
    }
    Ok(report)
}

/// Says where pinning happened, when it did: one status line on stderr (none with `--json` or
/// `-q`) when a reader pinned a log's checkpoint for the first time or advanced its pin, naming
/// the pin's file, so that state written under the user's state directory is never a surprise.
pub fn announce_pin(ctx: &CommandCtx, origin: &str, report: &pin::PinReport) {
    let (Some(dir), Some(size)) = (&report.state_dir, report.pinned_size) else { return };
    let file = PinStore::new(Path::new(dir)).path(origin);
    match report.status {
        pin::PinStatus::Pinned => ctx.printer.status(format_args!(
            "Pinned the checkpoint of {origin} (size {size}) in {}: from now on its checkpoints \
             must be proved consistent with it (--no-pin does not pin; --state DIR or \
             LOCKER_STATE_DIR keeps pins elsewhere).",
            file.display()
        )),
        pin::PinStatus::Advanced => ctx.printer.status(format_args!(
            "Advanced the pin of {origin} to size {size} in {}.",
            file.display()
        )),
        _ => {}
    }
}
