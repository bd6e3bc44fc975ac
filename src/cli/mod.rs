//! The command line: parse → call `ops` → render → exit code.

mod artifact;
mod backup;
mod complete;
mod confirm;
mod deferred;
mod deposit;
pub mod docs;
mod doctor;
mod gc;
mod init;
mod input;
pub mod json_schema;
mod key;
mod lease;
mod log;
mod mcp;
mod pad;
mod plan;
mod quest;
mod review;
mod serve;
mod store;

pub(crate) use serve::PAYMENT_HEADING;
pub mod skill;
mod status;
mod step;
mod tlog;
mod token;
mod trust;
mod util;
mod verify;
mod witness;

use std::io;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, CommandFactory as _, FromArgMatches as _, Parser, Subcommand};

use crate::api::session::Handle;
use crate::api::{Identity, Local, Session};
use crate::client::Client;
use crate::domain::secret::Secret;
use crate::ops::{self, Clock, ErrorKind, FixedClock, OpError, SystemClock};
use crate::output::{OutputFormat, Printer};
use crate::repo::Location;

use self::deferred::Deferred;

/// The exit-code table, shown in `locker --help` and `man locker`.
pub const EXIT_CODES: &[(u8, &str)] = &[
    (0, "success; verify found everything intact; diff found no difference"),
    (1, "a clean \"no\": verify found tampering, diff found holes or extras, review found a violation, a confirmation was answered no (nothing changed)"),
    (2, "usage error"),
    (3, "not found (repository, pad, ticket, artifact, version, lease, plan)"),
    (4, "conflict (stale version, operation conflict, sealed pad, quota full, lease held, stale lease or fence)"),
    (5, "unauthorized or forbidden (bad key, ticket or token; revoked; read lease over)"),
    (6, "invalid input (bad envelope, bad JSON, over a size limit)"),
    (7, "gone (expired pad or lease)"),
    (8, "unavailable (I/O failure, busy store, internal error)"),
];

/// Environment variables read directly rather than through an option's `env` (those are
/// listed in `man locker` automatically). Add one here when you read a new variable.
pub const ENVIRONMENT: &[(&str, &str)] = &[
    (
        "LOCKER_TOKEN",
        "An agent token (from locker token create): commands act as its agent, in its scope. \
         Unset, you act as the operator. Set but empty or invalid, commands are refused.",
    ),
    (
        "LOCKER_READ_LEASE_SECONDS",
        "How long a read_once ticket keeps reading after its first read (default 600).",
    ),
    (
        "LOCKER_POLICY",
        "A reader's witness policy file (C2SP tlog-policy), as --policy: checkpoints read by \
         checkpoint, verify --proof/--bundle, review and remote pad read must carry its quorum.",
    ),
    (
        "LOCKER_CONFIG",
        "The reader's config file (default: ~/.config/locker/config.json), a JSON object whose \
         `policy` names a witness policy file (relative to the config file's directory).",
    ),
    ("LOCKER_NOW", "Pretend the time is this many Unix seconds (for tests and demos)."),
    (
        "LOCKER_DISK_SPACE",
        "Pretend the repository's file system has FREE of TOTAL bytes, given as FREE/TOTAL \
         (for tests and demos): what doctor and the server's locker_disk_* metrics report.",
    ),
    (
        "COMPLETE",
        "A shell's name (bash, zsh, fish, elvish, powershell): answer the shell's completion \
         request instead of running a command (the completion scripts set it; alone, it prints \
         the script).",
    ),
];

/// The `--help` epilogue: the exit-code table, built from [`EXIT_CODES`] and wrapped with a
/// hanging indent so that it reads as a table at any width up to 100 columns, then the JSON
/// error shape.
fn after_help() -> String {
    let mut s = String::from("Exit status:\n");
    for (code, meaning) in EXIT_CODES {
        let mut line = format!("  {code} ");
        for word in meaning.split(' ') {
            if line.len() + 1 + word.len() > 90 {
                s.push_str(&line);
                s.push('\n');
                line = String::from("    ");
            }
            line.push(' ');
            line.push_str(word);
        }
        s.push_str(&line);
        s.push('\n');
    }
    s.push_str(
        "\nWith --json, results are one JSON object on stdout and errors one JSON object\n\
         {\"error\": CODE, \"detail\": TEXT, ...} on stderr.",
    );
    s
}

/// Durable, tamper-evident coordination state for agent fleets
///
/// locker keeps handoff pads (hash-chained, sealable blocks with read tickets) and a journal
/// of every change in a git-like `.locker/` repository, and verifies all of it like `git fsck`.
#[derive(Debug, Parser)]
#[command(
    name = "locker",
    version,
    after_help = after_help(),
    max_term_width = 100
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: deferred::Named<Command>,
}

/// Options every command takes.
#[derive(Debug, Clone, Args)]
pub struct GlobalArgs {
    /// Use the repository in PATH (the directory holding `.locker/`) instead of searching
    /// the current directory and its parents
    #[arg(
        short = 'R',
        long = "repo",
        global = true,
        help_heading = "Global options",
        env = "LOCKER_DIR",
        value_name = "PATH"
    )]
    pub repo: Option<PathBuf>,
    /// Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on
    /// stderr
    #[arg(long, global = true, help_heading = "Global options")]
    pub json: bool,
    /// Print no status lines, only data
    #[arg(short, long, global = true, help_heading = "Global options")]
    pub quiet: bool,
    /// Run commands (pads, artifacts, leases, plans, steps, the log, verify) against the
    /// `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)
    #[arg(
        long,
        global = true,
        help_heading = "Global options",
        env = "LOCKER_URL",
        value_name = "URL"
    )]
    pub remote: Option<String>,
    /// Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the
    /// token's scope is the only one allowed
    #[arg(long, global = true, help_heading = "Global options", value_name = "NAME")]
    pub scope: Option<String>,
    /// Log more on stderr: -v info, -vv debug (each span's time too), -vvv trace
    #[arg(short = 'v', long, global = true, action = clap::ArgAction::Count, help_heading = "Global options")]
    pub verbose: u8,
    /// Which log events go to stderr, as tracing's EnvFilter spells it (`warn`, `debug`,
    /// `locker::access=warn,info`); default `info` for `serve` and `witness serve`, `warn`
    /// otherwise (raised by -v)
    #[arg(
        long,
        global = true,
        help_heading = "Global options",
        env = "LOCKER_LOG",
        value_name = "FILTER"
    )]
    pub log_level: Option<String>,
    /// How log lines are written on stderr
    #[arg(
        long,
        global = true,
        help_heading = "Global options",
        env = "LOCKER_LOG_FORMAT",
        value_enum,
        default_value_t,
        value_name = "FORMAT"
    )]
    pub log_format: crate::obs::log::LogFormat,
    /// The log's signing key, read from this file instead of `.locker/keys/log.key` (a secret
    /// mounted on every host of a shared PostgreSQL repository, so that they sign as one log)
    #[arg(
        long,
        global = true,
        help_heading = "Global options",
        env = "LOCKER_LOG_KEY",
        value_name = "FILE"
    )]
    pub log_key: Option<PathBuf>,
}

impl GlobalArgs {
    /// The log filter: `--log-level` (or `LOCKER_LOG`) as given, else `info` for the servers
    /// (`command` is `serve` or `witness serve`) and `warn` for every other command, raised
    /// one level per `-v`.
    fn log_filter(&self, command: &str) -> Result<tracing_subscriber::EnvFilter, OpError> {
        let given = self.log_level.as_deref().map(str::trim).filter(|l| !l.is_empty());
        let filter = match given {
            Some(f) => f.to_owned(),
            None => {
                const LEVELS: [&str; 5] = ["error", "warn", "info", "debug", "trace"];
                let base = if matches!(command, "serve" | "witness serve") { 2 } else { 1 };
                LEVELS[(base + usize::from(self.verbose)).min(LEVELS.len() - 1)].to_owned()
            }
        };
        crate::obs::log::parse_filter(&filter).map_err(|e| {
            OpError::usage(e).hint(
                "Examples: `--log-level warn`, `--log-level debug`, \
                 `LOCKER_LOG=locker::access=warn,info`.",
            )
        })
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    Init(Deferred<init::InitArgs>),
    Status(Deferred<status::StatusArgs>),
    #[command(subcommand)]
    Pad(Deferred<pad::PadCommand>),
    /// Append one block to a pad (same as `locker pad append`)
    Append(Deferred<pad::AppendArgs>),
    /// Seal a pad (same as `locker pad seal`)
    Seal(Deferred<pad::SealArgs>),
    Deposit(Deferred<deposit::DepositArgs>),
    #[command(subcommand)]
    Artifact(Deferred<artifact::ArtifactCommand>),
    #[command(subcommand)]
    Token(Deferred<token::TokenCommand>),
    #[command(subcommand)]
    Key(Deferred<key::KeyCommand>),
    #[command(subcommand)]
    Lease(Deferred<lease::LeaseCommand>),
    #[command(subcommand)]
    #[command(name = "manifest")]
    Plan(Deferred<plan::PlanCommand>),
    Step(Deferred<step::StepArgs>),
    // Built at once: its own `--scope` (a filter) stands for the global one, which a deferred
    // command would get too (`deferred.rs`).
    Log(log::LogArgs),
    Verify(Deferred<verify::VerifyArgs>),
    Checkpoint(Deferred<tlog::CheckpointArgs>),
    #[command(subcommand)]
    Proof(Deferred<tlog::ProofCommand>),
    Backup(Deferred<backup::BackupArgs>),
    Restore(Deferred<backup::RestoreArgs>),
    Gc(Deferred<gc::GcArgs>),
    #[command(subcommand)]
    Store(Deferred<store::StoreCommand>),
    Doctor(Deferred<doctor::DoctorArgs>),
    Review(Deferred<review::ReviewArgs>),
    Mcp(Deferred<mcp::McpArgs>),
    Skill(Deferred<skill::SkillArgs>),
    Serve(Deferred<serve::ServeArgs>),
    Quest(Deferred<quest::QuestArgs>),
    #[command(subcommand)]
    Witness(Deferred<witness::WitnessCommand>),
    Completions(Deferred<util::CompletionsArgs>),
    #[command(subcommand, hide = true)]
    Util(Deferred<util::UtilCommand>),
}

/// What a command needs: output, the clock, and where its operations run (a local repository
/// or a server), opened on first use.
pub struct CommandCtx {
    pub global: GlobalArgs,
    pub printer: Printer,
    /// The command as typed, without its arguments (`token list`), for messages.
    pub command: String,
    clock: Arc<dyn Clock>,
    settings: ops::Settings,
    /// Who acts: `LOCKER_TOKEN`'s agent, else the operator in `--scope`.
    identity: Identity,
    session: Option<Session>,
}

impl CommandCtx {
    fn new(global: GlobalArgs, command: String) -> Result<Self, OpError> {
        let format = if global.json { OutputFormat::Json } else { OutputFormat::Human };
        let printer = Printer::new(format, global.quiet);
        let clock: Arc<dyn Clock> = match std::env::var("LOCKER_NOW") {
            Ok(v) => Arc::new(FixedClock(v.trim().parse().map_err(|_| {
                OpError::usage(format!("LOCKER_NOW must be integer Unix seconds, got `{v}`"))
            })?)),
            Err(_) => Arc::new(SystemClock),
        };
        crate::obs::process::pretended_disk()
            .map_err(|e| OpError::usage(e).hint("Unset it outside tests and demos."))?;
        let mut settings = ops::Settings::default();
        if let Ok(v) = std::env::var("LOCKER_READ_LEASE_SECONDS") {
            settings.read_lease_seconds =
                v.trim().parse().ok().filter(|s| *s > 0).ok_or_else(|| {
                    OpError::usage(format!(
                        "LOCKER_READ_LEASE_SECONDS must be a positive integer, got `{v}`"
                    ))
                })?;
        }
        // A set but empty or garbled `LOCKER_TOKEN` is refused rather than ignored, so that a
        // script whose token went missing never runs with the operator's rights.
        let token = std::env::var_os("LOCKER_TOKEN")
            .map(|t| Secret::new(t.to_string_lossy().trim().to_owned()));
        let identity = Identity { token, scope: global.scope.clone() };
        Ok(Self { global, printer, command, clock, settings, identity, session: None })
    }

    /// The current time.
    pub fn now(&self) -> i64 {
        self.clock.now()
    }

    pub fn clock(&self) -> &dyn Clock {
        self.clock.as_ref()
    }

    /// The clock, shared (for the server's threads).
    pub fn shared_clock(&self) -> Arc<dyn Clock> {
        Arc::clone(&self.clock)
    }

    /// The operation settings (read lease and the like).
    pub fn settings(&self) -> ops::Settings {
        self.settings
    }

    /// Who acts.
    pub fn identity(&self) -> &Identity {
        &self.identity
    }

    /// Where the repository is looked for: `-R`/`LOCKER_DIR`, else the current directory and
    /// its parents.
    pub fn location(&self) -> Result<Location, OpError> {
        Ok(match &self.global.repo {
            Some(p) => Location::Exact(p.clone()),
            None => Location::Search(std::env::current_dir().map_err(|e| {
                OpError::unavailable(format!("cannot read the current directory: {e}"))
            })?),
        })
    }

    /// Where operations run: the server of `--remote`/`LOCKER_URL`, else the repository.
    fn session(&mut self) -> Result<&mut Session, OpError> {
        if self.session.is_none() {
            let session = Session::open(
                self.global.remote.as_deref(),
                self.location()?,
                self.identity.clone(),
                Arc::clone(&self.clock),
                self.settings,
            )?
            .with_log_key(self.global.log_key.clone());
            self.session = Some(session);
        }
        Ok(self.session.as_mut().expect("opened above"))
    }

    /// The session itself, for a command that keeps it (`locker mcp`).
    pub fn take_session(&mut self) -> Result<Session, OpError> {
        self.session()?;
        Ok(self.session.take().expect("opened above"))
    }

    /// The operations, on the server or the local repository.
    pub fn locker(&mut self) -> Result<Handle<'_>, OpError> {
        self.session()?.locker()
    }

    /// The local repository, for a command with no remote form: refused (exit 2, naming the
    /// command) when a server is set.
    pub fn local(&mut self) -> Result<&mut Local, OpError> {
        let command = format!("locker {}", self.command);
        self.session()?.local(&command)
    }

    /// The server of `--remote`/`LOCKER_URL`, if one is set.
    pub fn remote(&mut self) -> Result<Option<&Client>, OpError> {
        Ok(self.session()?.remote())
    }

    /// Opens the local repository (when the command uses one) for inspection: even if its
    /// database lost entries the log key signed, which the command then reports (`verify`)
    /// or accepts (`checkpoint --accept-rollback`).
    pub fn inspect_repository(&mut self) -> Result<(), OpError> {
        if let Session::Local(l) = self.session()? {
            l.inspecting();
        }
        Ok(())
    }

    /// After the command: signs a checkpoint if the local repository's journal grew, so that
    /// the log key's high-water mark follows every write. A failure is reported, never fatal:
    /// the command's own work is done and durable, and the next command signs again.
    fn publish(&mut self) {
        let Some(Session::Local(l)) = self.session.as_mut() else { return };
        if let Err(e) = l.publish() {
            self.printer.status(format_args!(
                "warning: the journal grew but no checkpoint was signed: {}",
                e.detail
            ));
        }
    }
}

/// A command's failure: an operation error, an I/O error writing output, or a question
/// answered no.
#[derive(Debug)]
pub enum CliError {
    Op(OpError),
    Output(io::Error),
    /// The user answered no when asked to confirm (`confirm`): nothing was changed (exit 1).
    Declined,
}

impl From<OpError> for CliError {
    fn from(e: OpError) -> Self {
        Self::Op(e)
    }
}

impl From<io::Error> for CliError {
    fn from(e: io::Error) -> Self {
        Self::Output(e)
    }
}

/// What a command returns: the exit code of a successful run (0, or 1 for a clean "no"; a
/// confirmation answered no is [`CliError::Declined`], exit 1 too).
pub type CmdResult = Result<ExitCode, CliError>;

/// `locker --version`'s text after the name ([`main`]).
static LONG_VERSION: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();

/// Runs the command line and returns the process's exit code.
///
/// `long_version` is what `locker --version` prints after the name: the version and the commit
/// the binary was built from (`0.1.0 (3679e2a1c 2026-12-02)`, which `build.rs` stamps). The
/// binary passes it in, so that the library's code is the same from one commit to the next,
/// and with it the names of the functions `scripts/startup-order.txt` lays out first (a
/// constant that changes renames those of its whole codegen unit).
pub fn main(long_version: &'static str) -> ExitCode {
    let _ = LONG_VERSION.set(long_version);
    // `COMPLETE=bash locker -- …`: a shell asking for completions (see `complete`).
    if let Some(code) = complete::try_complete() {
        return code;
    }
    // The quest's workers are this binary too; they are not part of the command line users see.
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == crate::quest::worker::WORKER_ARG) {
        return quest::worker_main(&args[2..]);
    }
    let (cli, command) = match parse(&args) {
        Ok(p) => p,
        Err(e) => return usage_error(&e, &args),
    };
    let json = cli.global.json;
    match cli.global.log_filter(&command) {
        // A server's lines are written by a thread of their own: a stderr nobody reads must
        // not stop its answers (obs::sink).
        Ok(f) => crate::obs::log::init(
            f,
            cli.global.log_format,
            matches!(command.as_str(), "serve" | "witness serve" | "mcp"),
        ),
        Err(e) => {
            Printer::new(if json { OutputFormat::Json } else { OutputFormat::Human }, false)
                .error(&e);
            return ExitCode::from(e.kind.exit_code());
        }
    }
    let mut ctx = match CommandCtx::new(cli.global.clone(), command) {
        Ok(c) => c,
        Err(e) => {
            Printer::new(if json { OutputFormat::Json } else { OutputFormat::Human }, false)
                .error(&e);
            return ExitCode::from(e.kind.exit_code());
        }
    };
    let result = run(&mut ctx, cli.command.0);
    ctx.publish();
    crate::obs::log::flush();
    match result {
        Ok(code) => code,
        Err(CliError::Op(e)) => {
            ctx.printer.error(&e);
            ExitCode::from(e.kind.exit_code())
        }
        Err(CliError::Declined) => {
            ctx.printer.declined();
            ExitCode::from(1)
        }
        // A reader that went away (`locker log | head`) is not an error.
        Err(CliError::Output(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(CliError::Output(e)) => {
            ctx.printer.error(&OpError::unavailable(format!("cannot write output: {e}")));
            ExitCode::from(ErrorKind::Unavailable.exit_code())
        }
    }
}

/// A command line clap refused (or `--help`/`--version`, which are not errors). Under `--json`
/// a refusal is one JSON object on stderr, `{"error":"usage","detail",…}`, exit 2, like every
/// other error; else clap's own text.
fn usage_error(e: &clap::Error, args: &[std::ffi::OsString]) -> ExitCode {
    use clap::error::ErrorKind as Kind;
    let shown = matches!(e.kind(), Kind::DisplayHelp | Kind::DisplayVersion)
        || e.kind() == Kind::DisplayHelpOnMissingArgumentOrSubcommand;
    // `--json` anywhere before a `--` that ends the options.
    let json = args.iter().skip(1).take_while(|a| *a != "--").any(|a| a == "--json");
    if shown || !json {
        let _ = e.print();
        return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
    }
    let text = e.render().to_string();
    // The first paragraph, on one line: the message and what it lists (missing arguments).
    let detail = text
        .lines()
        .map(str::trim)
        .skip_while(|l| l.is_empty())
        .take_while(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let detail = detail.strip_prefix("error: ").unwrap_or(&detail).to_owned();
    let usage = text.lines().map(str::trim).find_map(|l| l.strip_prefix("Usage: "));
    let mut err = OpError::usage(detail);
    if let Some(u) = usage {
        err = err.hint(format!("Usage: {u}"));
    }
    err = err.hint("`locker help <command>` shows every argument of a command.");
    Printer::new(OutputFormat::Json, false).error(&err);
    ExitCode::from(ErrorKind::Usage.exit_code())
}

/// Parses a command line: with a tree that builds only the command it names
/// ([`deferred::lazily`]), and again with the whole tree when that refuses it or is asked
/// for help or the version, so that what clap prints is what the whole tree prints.
fn parse(args: &[std::ffi::OsString]) -> Result<(Cli, String), clap::Error> {
    let with = |cmd: clap::Command| {
        cmd.try_get_matches_from(args)
            .and_then(|m| Cli::from_arg_matches(&m).map(|cli| (cli, command_path(&m))))
    };
    let version = LONG_VERSION.get().copied().unwrap_or(env!("CARGO_PKG_VERSION"));
    with(deferred::lazily(Cli::command, args).long_version(version))
        .or_else(|_| with(Cli::command().long_version(version)))
}

/// The subcommands a command line named, joined by spaces (`token list`).
fn command_path(m: &clap::ArgMatches) -> String {
    let mut names = Vec::new();
    let mut m = m;
    while let Some((name, sub)) = m.subcommand() {
        names.push(name.to_owned());
        m = sub;
    }
    names.join(" ")
}

fn run(ctx: &mut CommandCtx, command: Command) -> CmdResult {
    match command {
        Command::Init(Deferred(a)) => init::run(ctx, &a),
        Command::Pad(Deferred(c)) => pad::run(ctx, c),
        Command::Append(Deferred(a)) => pad::append(ctx, &a),
        Command::Seal(Deferred(a)) => pad::seal(ctx, &a),
        Command::Deposit(Deferred(a)) => deposit::run(ctx, &a),
        Command::Artifact(Deferred(c)) => artifact::run(ctx, c),
        Command::Token(Deferred(c)) => token::run(ctx, c),
        Command::Key(Deferred(c)) => key::run(ctx, c),
        Command::Lease(Deferred(c)) => lease::run(ctx, c),
        Command::Plan(Deferred(c)) => plan::run(ctx, c),
        Command::Step(Deferred(a)) => step::run(ctx, &a),
        Command::Log(a) => log::run(ctx, &a),
        Command::Verify(Deferred(a)) => verify::run(ctx, &a),
        Command::Checkpoint(Deferred(a)) => tlog::checkpoint(ctx, &a),
        Command::Proof(Deferred(c)) => tlog::proof(ctx, &c),
        Command::Backup(Deferred(a)) => backup::backup(ctx, &a),
        Command::Restore(Deferred(a)) => backup::restore(ctx, &a),
        Command::Gc(Deferred(a)) => gc::run(ctx, &a),
        Command::Store(Deferred(c)) => store::run(ctx, c),
        Command::Doctor(Deferred(a)) => doctor::run(ctx, &a),
        Command::Status(Deferred(a)) => status::run(ctx, &a),
        Command::Review(Deferred(a)) => review::run(ctx, &a),
        Command::Mcp(Deferred(a)) => mcp::run(ctx, &a),
        Command::Skill(Deferred(a)) => skill::run(ctx, &a),
        Command::Serve(Deferred(a)) => serve::run(ctx, &a),
        Command::Quest(Deferred(a)) => quest::run(ctx, &a),
        Command::Witness(Deferred(c)) => witness::run(ctx, c),
        Command::Completions(Deferred(a)) => util::completions(ctx, &a),
        Command::Util(Deferred(c)) => util::run(ctx, c),
    }
}

/// The clap command tree (for docs and completions).
pub fn command() -> clap::Command {
    Cli::command()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verify_cli() {
        Cli::command().debug_assert();
    }

    /// Every command path of the whole tree, `["pad", "create"]`.
    fn command_paths(cmd: &clap::Command, prefix: &[String], out: &mut Vec<Vec<String>>) {
        for sc in cmd.get_subcommands() {
            let mut path = prefix.to_vec();
            path.push(sc.get_name().to_owned());
            out.push(path.clone());
            command_paths(sc, &path, out);
        }
    }

    fn parse_with(cmd: clap::Command, args: &[&str]) -> Result<String, clap::error::ErrorKind> {
        let args = std::iter::once("locker").chain(args.iter().copied());
        cmd.try_get_matches_from(args)
            .and_then(|m| Cli::from_arg_matches(&m))
            .map(|cli| format!("{cli:?}"))
            .map_err(|e| e.kind())
    }

    #[test]
    fn the_lazy_tree_builds_only_the_command_it_parses() {
        let has_listen = |cmd: &clap::Command| cmd.get_arguments().any(|a| a.get_id() == "listen");
        let mut lazy = deferred::lazily(Cli::command, &["--json", "serve"]);
        // Of the commands, only the one the line names.
        let names: Vec<&str> = lazy.get_subcommands().map(clap::Command::get_name).collect();
        assert_eq!(names, ["serve"]);
        assert!(!has_listen(lazy.find_subcommand("serve").unwrap()));
        assert!(has_listen(Cli::command().find_subcommand("serve").unwrap()));
        // Deferred only inside `lazily`: every other caller gets the whole tree.
        assert!(has_listen(Cli::command().find_subcommand("serve").unwrap()));
        lazy.build();
        assert!(has_listen(lazy.find_subcommand("serve").unwrap()));
    }

    #[test]
    fn the_lazy_tree_parses_every_command_line_as_the_whole_tree_does() {
        let lines: &[&[&str]] = &[
            &["init"],
            &["--json", "status"],
            &["-R", "/tmp/x", "append", "p1", "--key", "k", "--data", "hi"],
            &["append", "p1", "--data", "hi", "--json", "-q"],
            &["pad", "create", "--max-blocks", "16", "--ttl", "60"],
            &["pad", "append", "p1", "-", "--key", "k"],
            &["pad", "read", "p1", "--ticket", "t"],
            &["seal", "p1", "--key", "k"],
            &["artifact", "publish", "a", "--expect", "0", "--op", "o1", "--data", "x"],
            &["manifest", "show", "w1"],
            &["lease", "acquire", "w1", "--ttl", "30"],
            &["log", "-n", "3"],
            &["verify", "--json"],
            &["checkpoint"],
            &["serve", "--listen", "127.0.0.1:0", "--mcp-toolsets", "pads,log"],
            &["mcp", "--read-only"],
            &["completions", "bash"],
            // A value that is another command's name keeps that command too, harmlessly.
            &["append", "p1", "--data", "log"],
            &["-R", "status", "status"],
            // Refused, or help: the same kind of error from both.
            &["util", "--help"],
            &[],
            &["bogus"],
            &["apend", "p1", "--data", "log"],
            &["pad"],
            &["pad", "bogus"],
            &["append"],
            &["pad", "create", "--max-blocks", "many"],
            &["serve", "--listen"],
            &["verify", "--bogus"],
            &["-V"],
            &["help", "pad", "seal"],
        ];
        // The first 19 parse, the lazy tree alone as the whole one does; the rest are refused
        // (or are help), which `parse` parses again whole (the lazy tree may refuse them
        // otherwise: with no command named, `bogus` is an unknown argument, not an unknown
        // command).
        for (i, args) in lines.iter().enumerate() {
            let whole = parse_with(Cli::command(), args);
            assert_eq!(whole.is_ok(), i < 19, "{args:?}: {whole:?}");
            if whole.is_ok() {
                let lazy = parse_with(deferred::lazily(Cli::command, args), args);
                assert_eq!(lazy, whole, "{args:?}");
            }
            let line: Vec<std::ffi::OsString> =
                std::iter::once("locker").chain(args.iter().copied()).map(Into::into).collect();
            let parsed = parse(&line).map(|(cli, _)| format!("{cli:?}")).map_err(|e| e.kind());
            assert_eq!(parsed, whole, "{args:?}");
        }
        let mut paths = Vec::new();
        command_paths(&Cli::command(), &[], &mut paths);
        assert!(paths.len() > 60, "{}", paths.len());
        for path in &paths {
            let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
            args.push("--help");
            let line: Vec<std::ffi::OsString> =
                std::iter::once("locker").chain(args.iter().copied()).map(Into::into).collect();
            let parsed = parse(&line).map(|(cli, _)| format!("{cli:?}")).map_err(|e| e.kind());
            assert_eq!(parsed, parse_with(Cli::command(), &args), "{args:?}");
        }
    }

    #[test]
    fn exit_code_table_matches_the_kinds() {
        let codes: Vec<u8> = EXIT_CODES.iter().map(|(c, _)| *c).collect();
        assert_eq!(codes, (0..=8).collect::<Vec<u8>>());
        let help = after_help();
        let flat = help.split_whitespace().collect::<Vec<_>>().join(" ");
        for (code, text) in EXIT_CODES {
            assert!(flat.contains(&format!(" {code} {text}")), "{code} {text}");
        }
        assert!(help.lines().all(|l| l.len() <= 90), "{help}");
        assert_eq!(ErrorKind::NotFound.exit_code(), 3);
        assert_eq!(ErrorKind::Conflict.exit_code(), 4);
        assert_eq!(ErrorKind::Unauthorized.exit_code(), 5);
        assert_eq!(ErrorKind::Forbidden.exit_code(), 5);
        assert_eq!(ErrorKind::BadRequest.exit_code(), 6);
        assert_eq!(ErrorKind::TooLarge.exit_code(), 6);
        assert_eq!(ErrorKind::Gone.exit_code(), 7);
        assert_eq!(ErrorKind::Unavailable.exit_code(), 8);
    }
}
