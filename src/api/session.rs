//! A front end's session: where its operations run (a local repository, or a `locker serve`
//! at a URL) and who acts. Opening the repository and resolving who acts happen here, once,
//! for the CLI and `locker mcp` alike.

use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use super::Locker;
use crate::client::Client;
use crate::domain::secret::Secret;
use crate::ops::log::CheckpointOutcome;
use crate::ops::{auth, Clock, Ctx, Env, LogIdentity, OpError, OpResult, Settings};
use crate::repo::{Location, Opening, Repo};

/// Who acts: the agent of a token (`LOCKER_TOKEN`), else the operator in a scope (`--scope`,
/// default `default`).
#[derive(Debug, Clone, Default)]
pub struct Identity {
    pub token: Option<Secret>,
    pub scope: Option<String>,
}

/// A local repository, found at `location` and opened on first use.
pub struct Local {
    location: Location,
    identity: Identity,
    /// The clock and settings; the log's identity is set when the repository opens.
    env: Env,
    /// How the repository is opened: checked against the log key's high-water mark (refused
    /// when it lost signed entries), or for inspection.
    opening: Opening,
    repo: Option<Repo>,
    /// The log key's file when it is not the repository's own (`--log-key`, `LOCKER_LOG_KEY`).
    log_key: Option<std::path::PathBuf>,
}

impl Local {
    pub fn new(
        location: Location,
        identity: Identity,
        clock: Arc<dyn Clock>,
        settings: Settings,
    ) -> Self {
        let env = Env { clock, settings, log: None };
        Self { location, identity, env, opening: Opening::Checked, repo: None, log_key: None }
    }

    /// Opens the repository for inspection even if it lost entries the log key signed
    /// (`locker verify` reports it, `locker checkpoint --accept-rollback` accepts it): what it
    /// lost is [`Repo::rollback`]. Only before the repository is opened.
    pub fn inspecting(&mut self) {
        if self.repo.is_none() {
            self.opening = Opening::Inspect;
        }
    }

    /// Where the repository is looked for.
    pub fn location(&self) -> &Location {
        &self.location
    }

    /// Who acts.
    pub fn identity(&self) -> &Identity {
        &self.identity
    }

    /// The clock.
    pub fn clock(&self) -> &dyn Clock {
        self.env.clock.as_ref()
    }

    /// The operation settings.
    pub fn settings(&self) -> Settings {
        self.env.settings
    }

    /// The repository, found and opened on first use.
    pub fn repo(&mut self) -> OpResult<&mut Repo> {
        if self.repo.is_none() {
            let mut repo = Repo::open_with(&self.location, self.opening)?;
            let log =
                LogIdentity::new(&repo.dot, &repo.config).with_key_file(self.log_key.as_deref());
            // A command that grows the journal signs its checkpoint in the same commit (one
            // durable commit, not two); `publish` then moves the high-water mark to it.
            if self.opening == Opening::Checked && log.has_key() {
                let offset = repo.store.clock_offset();
                let seal = crate::ops::log::checkpoint::seal(
                    log.clone(),
                    Arc::clone(&self.env.clock),
                    offset,
                );
                repo.store.set_seal(Some(seal));
            }
            self.env.log = Some(log);
            self.repo = Some(repo);
        }
        Ok(self.repo.as_mut().expect("opened above"))
    }

    /// The repository's log identity (its `.locker/` and origin).
    pub fn log_identity(&mut self) -> OpResult<LogIdentity> {
        self.repo()?;
        Ok(self.env.log.clone().expect("set when the repository opened"))
    }

    /// Signs a checkpoint of the journal if it grew (what every command that wrote leads to:
    /// [`crate::ops::log::checkpoint::publish`]). Nothing when the repository was not opened, or
    /// was opened for inspection (`locker verify` changes nothing).
    pub fn publish(&mut self) -> OpResult<Option<CheckpointOutcome>> {
        if self.repo.is_none() || self.opening == Opening::Inspect {
            return Ok(None);
        }
        let log = self.log_identity()?;
        let Self { env, repo, .. } = self;
        let store = repo.as_mut().expect("opened").store.as_mut();
        let mut ctx = env.ctx(store, crate::ops::Actor::operator());
        crate::ops::log::checkpoint::publish(&mut ctx, &log)
    }

    /// An operations context on the repository, acting as [`Identity`] says. Who acts is
    /// resolved at every call, so a token revoked meanwhile stops working at once.
    pub fn ctx(&mut self) -> OpResult<Ctx<'_>> {
        self.repo()?;
        let Self { identity, env, repo, .. } = self;
        let store = repo.as_mut().expect("opened above").store.as_mut();
        let actor = auth::actor_for(store, identity.token.as_ref(), identity.scope.as_deref())?;
        Ok(env.ctx(store, actor))
    }
}

/// Where a front end's operations run.
pub enum Session {
    Local(Box<Local>),
    Remote(Client),
}

/// A [`Locker`] borrowed from a [`Session`]: use it like `&mut dyn Locker`.
pub enum Handle<'a> {
    Local(Ctx<'a>),
    Remote(&'a mut Client),
}

impl<'a> Deref for Handle<'a> {
    type Target = dyn Locker + 'a;
    fn deref(&self) -> &Self::Target {
        match self {
            Self::Local(c) => c,
            Self::Remote(r) => &**r,
        }
    }
}

impl DerefMut for Handle<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        match self {
            Self::Local(c) => c,
            Self::Remote(r) => &mut **r,
        }
    }
}

impl Session {
    /// A session on the server at `url` when one is given (`--remote`, `LOCKER_URL`), acting
    /// with the identity's token; else on the local repository at `location`.
    pub fn open(
        url: Option<&str>,
        location: Location,
        identity: Identity,
        clock: Arc<dyn Clock>,
        settings: Settings,
    ) -> OpResult<Self> {
        match url.map(str::trim).filter(|u| !u.is_empty()) {
            Some(url) => {
                Ok(Self::Remote(Client::new(url)?.with_token(identity.token).with_clock(clock)))
            }
            None => Ok(Self::Local(Box::new(Local::new(location, identity, clock, settings)))),
        }
    }

    /// Signs with the log key in `file` instead of the repository's own (`--log-key`): a secret
    /// mounted into each host of a shared database, so that every host signs as one log.
    #[must_use]
    pub fn with_log_key(mut self, file: Option<std::path::PathBuf>) -> Self {
        if let Self::Local(l) = &mut self {
            l.log_key = file;
        }
        self
    }

    /// The operations, wherever they run.
    pub fn locker(&mut self) -> OpResult<Handle<'_>> {
        Ok(match self {
            Self::Local(l) => Handle::Local(l.ctx()?),
            Self::Remote(c) => Handle::Remote(c),
        })
    }

    /// The remote server, if the session is remote.
    pub fn remote(&self) -> Option<&Client> {
        match self {
            Self::Remote(c) => Some(c),
            Self::Local(_) => None,
        }
    }

    /// The local repository, for `command`, an operation with no remote form: refused with a
    /// usage error (exit 2) naming the command when the session is remote, so that such a
    /// command never acts on a local repository while the user meant a server.
    pub fn local(&mut self, command: &str) -> OpResult<&mut Local> {
        match self {
            Self::Local(l) => Ok(l),
            Self::Remote(c) => Err(OpError::usage(format!(
                "`{command}` works on a local repository only; it has no remote form, and a \
                 server is set ({})",
                c.base_url()
            ))
            .hint("Unset `LOCKER_URL` (or drop `--remote`) and run it where the repository is, with `-R PATH` if needed.")),
        }
    }
}
