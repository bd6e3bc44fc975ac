//! What an operation runs with: who acts ([`Actor`]), the time ([`Clock`]), the settings, and
//! the operations context itself ([`Ctx`], built from an [`Env`]); and how a long operation
//! reports progress.

use serde::Serialize;

use super::log::identity::LogIdentity;
use super::{OpError, OpResult};
use crate::domain::digest::Digest;
use crate::store::Store;

/// Who is acting: the repository's operator, or an agent holding a token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Actor {
    /// `operator`, or the agent's name.
    pub name: String,
    /// The scope the actor works in.
    pub scope: String,
    /// The SHA-256 of the agent's token, re-checked by [`super::authorize`] inside every write
    /// transaction; `None` for the operator.
    #[serde(skip)]
    pub token: Option<Digest>,
    /// Operator, agent, or an unauthenticated HTTP caller.
    #[serde(skip)]
    pub kind: ActorKind,
}

/// Who an [`Actor`] is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ActorKind {
    /// The repository's operator: the local CLI without `LOCKER_TOKEN`.
    #[default]
    Operator,
    /// An agent authenticated by its token.
    Agent,
    /// An HTTP caller without a token, on the routes that need none (pads work by their own
    /// capabilities; agentstate's lease API trusts whoever knows a lease id unless the server
    /// requires tokens). Never the operator.
    Anonymous,
}

impl Actor {
    /// The local operator in the `default` scope.
    pub fn operator() -> Self {
        Self::operator_in(crate::domain::token::DEFAULT_SCOPE)
    }

    /// The local operator in `scope` (`--scope`).
    pub fn operator_in(scope: &str) -> Self {
        Self {
            name: crate::domain::token::OPERATOR.into(),
            scope: scope.into(),
            token: None,
            kind: ActorKind::Operator,
        }
    }

    /// An unauthenticated HTTP caller, named `anonymous`, in the `default` scope.
    pub fn anonymous() -> Self {
        Self {
            name: "anonymous".into(),
            scope: crate::domain::token::DEFAULT_SCOPE.into(),
            token: None,
            kind: ActorKind::Anonymous,
        }
    }

    /// An agent authenticated by the token whose digest is `token`.
    pub fn agent(name: &str, scope: &str, token: Digest) -> Self {
        Self { name: name.into(), scope: scope.into(), token: Some(token), kind: ActorKind::Agent }
    }

    /// Whether this is the repository's operator (not an agent, not an anonymous caller).
    pub fn is_operator(&self) -> bool {
        self.kind == ActorKind::Operator
    }

    /// Whether this actor may name a lease holder other than itself and use any holder's
    /// lease: the operator, and an anonymous caller of agentstate's lease API (whose trust
    /// model is knowledge of the lease id; `locker serve --require-token` removes it).
    pub fn speaks_for_any_holder(&self) -> bool {
        matches!(self.kind, ActorKind::Operator | ActorKind::Anonymous)
    }
}

/// The source of the current time, in integer Unix seconds.
pub trait Clock: Send + Sync {
    fn now(&self) -> i64;
    /// Whether operations read the store's clock through this one (see [`Ctx::now`]): the
    /// system clock does; a clock fixed on purpose (`LOCKER_NOW`, tests) does not.
    fn follows_the_store(&self) -> bool {
        false
    }
}

/// The system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> i64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
    }

    fn follows_the_store(&self) -> bool {
        true
    }
}

/// A clock stopped at one instant (`LOCKER_NOW`, tests).
#[derive(Debug, Clone, Copy)]
pub struct FixedClock(pub i64);

impl Clock for FixedClock {
    fn now(&self) -> i64 {
        self.0
    }
}

/// The time `clock` gives, read against a store whose clock is `store_offset` seconds ahead
/// of this host's ([`crate::store::Store::clock_offset`]): [`Ctx::now`]'s rule, for code that
/// holds a clock and a transaction but no context.
pub fn now_at(clock: &dyn Clock, store_offset: i64) -> i64 {
    let now = clock.now();
    if clock.follows_the_store() {
        now.saturating_add(store_offset)
    } else {
        now
    }
}

/// Settings that operations read.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// Seconds a `read_once` ticket stays usable after its first read.
    pub read_lease_seconds: i64,
    /// Whether asking for a checkpoint or a proof may sign a new checkpoint (the CLI and `locker
    /// mcp`, which hold the key and act for its owner). `locker serve` answers its readers with
    /// checkpoints already stored and signs only when the journal grows, in its signer.
    pub sign_checkpoints: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            read_lease_seconds: i64::from(crate::domain::limits::DEFAULT_READ_LEASE_SECONDS),
            sign_checkpoints: true,
        }
    }
}

/// What every operation needs: the store, who acts, the time, and the log's identity.
pub struct Ctx<'a> {
    pub store: &'a mut dyn Store,
    pub actor: Actor,
    pub clock: &'a dyn Clock,
    pub settings: Settings,
    /// The log's key and origin, for checkpoints and proofs: the repository's, or none (a
    /// server on a database with no `.locker/` keeps no transparency log).
    pub log: Option<&'a LogIdentity>,
}

impl<'a> Ctx<'a> {
    pub fn new(store: &'a mut dyn Store, actor: Actor, clock: &'a dyn Clock) -> Self {
        Self { store, actor, clock, settings: Settings::default(), log: None }
    }

    /// The time: the store's clock where it keeps one (PostgreSQL: the database server's, so
    /// that every host journals in one clock and expiries mean the same everywhere), else this
    /// host's; a clock fixed on purpose (`LOCKER_NOW`) is used as it is.
    pub fn now(&self) -> i64 {
        now_at(self.clock, self.store.clock_offset())
    }

    /// The log's identity, or the error every log operation gives without one.
    pub fn log(&self) -> OpResult<&'a LogIdentity> {
        self.log.ok_or_else(|| OpError::not_found("this server keeps no transparency log"))
    }
}

/// What operations share besides the store and who acts: the clock, the settings and the
/// log's identity. A front end keeps one and builds an operations context from it for each
/// operation ([`Env::ctx`]).
#[derive(Clone)]
pub struct Env {
    pub clock: std::sync::Arc<dyn Clock>,
    pub settings: Settings,
    /// The repository's log identity; none for a server on a database with no `.locker/`.
    pub log: Option<LogIdentity>,
}

impl Env {
    /// An operations context on `store`, acting as `actor`.
    pub fn ctx<'a>(&'a self, store: &'a mut dyn Store, actor: Actor) -> Ctx<'a> {
        Ctx {
            store,
            actor,
            clock: self.clock.as_ref(),
            settings: self.settings,
            log: self.log.as_ref(),
        }
    }
}

/// Progress of a long operation; the output layer draws it (or not), operations only report.
///
/// An operation may go through several phases: each [`Progress::start`] begins the next one
/// from zero, and [`Progress::finish`] ends the last.
pub trait Progress {
    /// Starts a phase: `what` it does (`verifying`), how many `unit`s it counts (`entries`,
    /// `blocks`, `blobs`), or `total` 0 for a phase whose length is not known beforehand.
    fn start(&self, _what: &str, _total: u64, _unit: &str) {}
    /// `n` more units of the current phase are done.
    fn advance(&self, _n: u64) {}
    /// The operation is over (successfully or not).
    fn finish(&self) {}
}

/// Progress that is not shown.
pub struct NoProgress;
impl Progress for NoProgress {}
