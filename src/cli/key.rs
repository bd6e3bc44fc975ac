//! `locker key …`: agent signing keys and the signing policy.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};

use super::{confirm, CmdResult, CommandCtx};
use crate::api::RegisterKey;
use crate::domain::sign::{self, PrivateKey, PublicKey, Statement};
use crate::ops::keys::{self as op, KeyGenerated, KeyList, KeyRegistered, KeyRevoked, PolicySet};
use crate::ops::OpError;
use crate::output::{rfc3339, Render};

/// Show the log's key; manage agent signing keys (Ed25519) and whether writes must be signed
#[derive(Debug, Subcommand)]
pub enum KeyCommand {
    /// Print the verifier key of the log's checkpoints
    ///
    /// In the signed-note format `name+keyid+base64(0x01 ‖ public key)`: give it to whoever
    /// verifies proofs and bundles (`locker verify --proof FILE --key VKEY`). The private key
    /// stays in `.locker/keys/log.key`.
    Show,
    New(NewArgs),
    Register(RegisterArgs),
    Generate(GenerateArgs),
    List(ListArgs),
    Revoke(RevokeArgs),
    Require(RequireArgs),
}

pub fn run(ctx: &mut CommandCtx, cmd: KeyCommand) -> CmdResult {
    match cmd {
        KeyCommand::Show => super::tlog::key(ctx, &super::tlog::KeyCommand::Show),
        KeyCommand::New(a) => new(ctx, &a),
        KeyCommand::Register(a) => register(ctx, &a),
        KeyCommand::Generate(a) => generate(ctx, &a),
        KeyCommand::List(a) => list(ctx, &a),
        KeyCommand::Revoke(a) => revoke(ctx, &a),
        KeyCommand::Require(a) => require(ctx, &a),
    }
}

/// Make an agent's Ed25519 key pair here, where the agent runs
///
/// The private key is written to FILE (mode 0600, never overwritten) and sent nowhere; the
/// verifier key is printed, for the agent to register with its own token
/// (`LOCKER_TOKEN=… locker key register --public-key VKEY`, or `POST /v1/keys`, or the MCP
/// tool `locker_key_register`) and to publish wherever its readers will look. Nothing is
/// registered and no repository is needed, except that without --agent the key is named for
/// the agent of `LOCKER_TOKEN`, asked of the repository or `--remote`.
#[derive(Debug, Args)]
pub struct NewArgs {
    /// The agent the key signs for (default: `LOCKER_TOKEN`'s agent)
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,
    /// Write the private key to FILE (mode 0600; an existing file is never overwritten)
    #[arg(short = 'o', long = "out", value_name = "FILE")]
    pub out: PathBuf,
}

/// A key pair made by `locker key new`.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct KeyMade {
    pub agent: String,
    pub key_id: String,
    /// The verifier key, to register and publish.
    pub vkey: String,
    /// Where the private key was written.
    pub private_key_file: String,
}

fn new(ctx: &mut CommandCtx, a: &NewArgs) -> CmdResult {
    let agent = match &a.agent {
        Some(name) => name.clone(),
        None if std::env::var_os("LOCKER_TOKEN").is_some() => {
            ctx.locker()?.key_list()?.agent.ok_or_else(|| {
                OpError::usage("the repository did not name LOCKER_TOKEN's agent: pass --agent")
            })?
        }
        None => {
            return Err(OpError::usage(
                "name the agent the key signs for: --agent NAME (or set LOCKER_TOKEN)",
            )
            .into())
        }
    };
    crate::domain::token::check_agent(&agent)
        .map_err(|e| OpError::new(crate::ops::ErrorKind::BadRequest, "invalid", e.to_string()))?;
    let key = PrivateKey::generate(&agent)
        .map_err(|e| OpError::new(crate::ops::ErrorKind::BadRequest, "invalid", e.to_string()))?;
    write_new_private(&a.out, &key)?;
    let public = key.public();
    let out = KeyMade {
        agent,
        key_id: public.key_id(),
        vkey: public.vkey(),
        private_key_file: a.out.display().to_string(),
    };
    ctx.printer.emit(&out)?;
    ctx.printer.status(format_args!(
        "Wrote the private key to {} (mode 0600); register the verifier key with `locker key \
         register --public-key VKEY`.",
        out.private_key_file
    ));
    Ok(ExitCode::SUCCESS)
}

impl Render for KeyMade {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        writeln!(w, "{}", self.vkey)
    }
}

/// Register an agent's verifier key: the agent its own, with its token
///
/// With `LOCKER_TOKEN` (here or against `--remote`), the agent registers the key it made with
/// `locker key new`, and the journal records that the agent itself registered it, which
/// `locker verify --require-self-keys` and `locker review --require-self-keys` hold on to.
/// Without a token the operator registers the key, and the journal says so. An agent with an
/// active key replaces it only by a rotation signed by that key: `--rotate-with OLD-KEY-FILE`
/// (the old key is revoked in the same journal entry). Prints the registration.
#[derive(Debug, Args)]
pub struct RegisterArgs {
    /// The verifier key (`<agent>+<key id>+<base64>`, as `locker key new` prints it), or a file
    /// holding it
    #[arg(long, value_name = "VKEY")]
    pub public_key: String,
    /// Rotate to the new key: sign the hand-over with the agent's current private key, in FILE
    /// (it never leaves this machine; only its signature is sent)
    #[arg(long, value_name = "FILE")]
    pub rotate_with: Option<PathBuf>,
}

fn register(ctx: &mut CommandCtx, a: &RegisterArgs) -> CmdResult {
    let given = a.public_key.trim();
    let vkey = if PublicKey::parse(given).is_err() && std::path::Path::new(given).is_file() {
        let text = std::fs::read_to_string(given)
            .map_err(|e| OpError::bad_request(format!("cannot read {given}: {e}")))?;
        text.lines().next().unwrap_or("").trim().to_owned()
    } else {
        given.to_owned()
    };
    let signature = match &a.rotate_with {
        None => None,
        Some(file) => {
            let text = std::fs::read_to_string(file).map_err(|e| {
                OpError::bad_request(format!("cannot read {}: {e}", file.display()))
            })?;
            let old = op::parse_private_key(&text)?;
            let new = PublicKey::parse(&vkey).map_err(|e| {
                OpError::new(crate::ops::ErrorKind::BadRequest, "invalid_key", e.to_string())
            })?;
            if old.name != new.name {
                return Err(OpError::usage(format!(
                    "--rotate-with holds a key of agent {}, not of agent {}",
                    old.name, new.name
                ))
                .into());
            }
            let repository = ctx.locker()?.key_list()?.repository_id;
            let st = Statement::key_rotation(
                &repository,
                &new.name,
                &old.public().key_id(),
                &new.vkey(),
            );
            Some(sign::encode_signature(&old.sign(&st.message())))
        }
    };
    let out = ctx.locker()?.key_register(RegisterKey {
        public_key: &vkey,
        rotation_signature: signature.as_deref(),
    })?;
    ctx.printer.emit(&out)?;
    Ok(ExitCode::SUCCESS)
}

impl Render for KeyRegistered {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        write!(
            w,
            "registered key {} of agent {} (by {})",
            self.key_id,
            self.agent,
            if self.registered_by == "self" { "the agent itself" } else { "the operator" }
        )?;
        match &self.rotated {
            Some(old) => writeln!(w, "; it replaces key {old}, now revoked"),
            None => writeln!(w),
        }
    }
}

/// Create an Ed25519 key pair for an agent and register its public key (the operator's way)
///
/// Made on the operator's side, so the journal records the operator as having registered it:
/// `verify --require-self-keys` refuses its signatures. An agent that should own its key makes
/// it with `locker key new` and registers it itself with `locker key register`.
///
/// The public key is registered with the repository (one `key.register` journal entry); the
/// private key is for the agent alone: written to `--out FILE` (mode 0600, never overwritten),
/// or else printed once on stdout. The agent then signs its appends, publishes and steps with
/// `--sign-key FILE` or `LOCKER_SIGN_KEY`. Keys use the signed-note formats
/// (`PRIVATE+KEY+<agent>+<id>+…` and `<agent>+<id>+…`). An agent has one active key at a
/// time: revoke it to make a new one.
#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// The agent's name: 1–64 characters from A–Z, a–z, 0–9, `.`, `_`, `-`
    #[arg(long, value_name = "NAME")]
    pub agent: String,
    /// Write the private key to FILE (mode 0600) instead of printing it
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

fn write_new_private(path: &std::path::Path, key: &PrivateKey) -> Result<(), OpError> {
    use std::os::unix::fs::OpenOptionsExt as _;
    let fail = |e: std::io::Error| {
        OpError::unavailable(format!("cannot write the private key to {}: {e}", path.display()))
    };
    let mut f =
        std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(path).map_err(
            |e| {
                if e.kind() == std::io::ErrorKind::AlreadyExists {
                    OpError::conflict(format!(
                        "{} already exists; it is not overwritten",
                        path.display()
                    ))
                } else {
                    fail(e)
                }
            },
        )?;
    f.write_all(format!("{}\n", key.skey()).as_bytes()).and_then(|()| f.sync_all()).map_err(fail)
}

fn generate(ctx: &mut CommandCtx, a: &GenerateArgs) -> CmdResult {
    crate::domain::token::check_agent(&a.agent)
        .map_err(|e| OpError::new(crate::ops::ErrorKind::BadRequest, "invalid", e.to_string()))?;
    // Registering has no remote form: refused before any file is written.
    let local = ctx.local()?;
    let key = PrivateKey::generate(&a.agent)
        .map_err(|e| OpError::new(crate::ops::ErrorKind::BadRequest, "invalid", e.to_string()))?;
    // The private key is safely on disk before its public half is registered; if registering
    // fails, the file goes.
    if let Some(path) = &a.out {
        write_new_private(path, &key)?;
    }
    let registered = local.ctx().and_then(|mut c| op::register(&mut c, &key));
    let mut out = match registered {
        Ok(out) => out,
        Err(e) => {
            if let Some(path) = &a.out {
                let _ = std::fs::remove_file(path);
            }
            return Err(e.into());
        }
    };
    match &a.out {
        Some(path) => out.private_key_file = Some(path.display().to_string()),
        None => out.private_key = Some(key.skey()),
    }
    ctx.printer.emit(&out)?;
    ctx.printer.status(format_args!(
        "Registered key {} for agent {}{}",
        out.key_id,
        out.agent,
        if a.out.is_some() { "." } else { "; keep the private key: it is not shown again." }
    ));
    Ok(ExitCode::SUCCESS)
}

impl Render for KeyGenerated {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        match (&self.private_key, &self.private_key_file) {
            (Some(k), _) => writeln!(w, "{k}"),
            (None, Some(f)) => writeln!(w, "{} (private key in {f})", self.vkey),
            (None, None) => writeln!(w, "{}", self.vkey),
        }
    }
}

/// List the registered agent keys, the repository id and the signing policy
#[derive(Debug, Args)]
pub struct ListArgs {}

fn list(ctx: &mut CommandCtx, _a: &ListArgs) -> CmdResult {
    let out = ctx.locker()?.key_list()?;
    ctx.printer.emit(&out)?;
    Ok(ExitCode::SUCCESS)
}

impl Render for KeyList {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        writeln!(w, "repository {}", self.repository_id)?;
        writeln!(
            w,
            "signed appends {}",
            if self.require_signed_appends { "required" } else { "optional" }
        )?;
        for k in &self.keys {
            write!(
                w,
                "{:<24} {} {:<8} registered by {:<8} created {}",
                k.agent,
                k.key_id,
                k.state,
                k.registered_by.as_deref().unwrap_or("?"),
                rfc3339(k.created_at)
            )?;
            match k.revoked_at {
                Some(at) => writeln!(w, ", revoked {}", rfc3339(at))?,
                None => writeln!(w)?,
            }
        }
        Ok(())
    }
}

/// Revoke an agent's signing key (revoking twice changes nothing)
///
/// Signatures by the key are refused from then on; what it signed before stays verified. On a
/// terminal you are asked first (the default is no: exit 1, nothing changed); elsewhere
/// `--yes` is required (exit 2 without it).
#[derive(Debug, Args)]
pub struct RevokeArgs {
    /// The agent's name
    #[arg(long, value_name = "NAME")]
    pub agent: String,
    /// Revoke without asking (required when stdin or stderr is not a terminal)
    #[arg(short, long)]
    pub yes: bool,
}

fn revoke(ctx: &mut CommandCtx, a: &RevokeArgs) -> CmdResult {
    confirm::operator_only(ctx, "revoke signing keys")?;
    confirm::confirm(
        ctx,
        &format!(
            "Agent {}'s signing keys are revoked for good: signatures by them are refused from \
             now on (what they signed before stays verified).",
            a.agent
        ),
        a.yes,
    )?;
    let out = op::revoke(&mut ctx.local()?.ctx()?, &a.agent)?;
    ctx.printer.emit(&out)?;
    Ok(ExitCode::SUCCESS)
}

impl Render for KeyRevoked {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        if self.already_revoked {
            writeln!(w, "agent {}'s signing key was already revoked", self.agent)
        } else {
            writeln!(w, "revoked signing key {} of agent {}", self.key_ids.join(", "), self.agent)
        }
    }
}

/// Require signed appends, publishes and steps (or, with `--off`, stop requiring them)
///
/// While on, a pad append, artifact publish or step without a good signature by a registered,
/// unrevoked agent key is refused (exit 5, `signature_required`) and changes nothing. The
/// setting is journaled (`repo.setting`). On a terminal you are asked first (the default is no:
/// exit 1, nothing changed); elsewhere `--yes` is required (exit 2 without it).
#[derive(Debug, Args)]
pub struct RequireArgs {
    /// Stop requiring signatures
    #[arg(long)]
    pub off: bool,
    /// Change the policy without asking (required when stdin or stderr is not a terminal)
    #[arg(short, long)]
    pub yes: bool,
}

fn require(ctx: &mut CommandCtx, a: &RequireArgs) -> CmdResult {
    confirm::operator_only(ctx, "change the signing policy")?;
    let what = if a.off {
        "Signatures stop being required: pad appends, artifact publishes and steps without \
         one are accepted again (journaled as repo.setting)."
    } else {
        "Signatures become required: from now on every pad append, artifact publish and step \
         without a good signature by a registered, unrevoked agent key is refused (journaled \
         as repo.setting)."
    };
    confirm::confirm(ctx, what, a.yes)?;
    let out = op::set_required(&mut ctx.local()?.ctx()?, !a.off)?;
    ctx.printer.emit(&out)?;
    Ok(ExitCode::SUCCESS)
}

impl Render for PolicySet {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        let state = if self.require_signed_appends { "required" } else { "optional" };
        if self.changed {
            writeln!(w, "signed appends are now {state}")
        } else {
            writeln!(w, "signed appends were already {state}")
        }
    }
}
