//! Confirmation before a command changes what cannot be changed back (`gc`, `token revoke`,
//! `key revoke`, `key require`, and `restore` over a repository): the one place that decides
//! whether to go on.
//!
//! - `--yes` (`-y`) goes on without a question.
//! - On a terminal (stdin and stderr both), the command says what will happen and asks; the
//!   default is no. A no changes nothing and exits 1, a clean "no" ([`CliError::Declined`]).
//! - Anywhere else (a script, a pipe, CI) there is no one to ask: the command refuses (exit 2,
//!   `confirmation_required`, with the hint to pass `--yes`) and changes nothing.
//!
//! Questions are asked only here, never by `locker serve` or `locker mcp`: their callers
//! decide for themselves.

use std::io::IsTerminal as _;

use super::{CliError, CommandCtx};
use crate::ops::{ErrorKind, OpError};

/// How a command that needs confirmation gets it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Consent {
    /// `--yes`: go on.
    Given,
    /// stdin and stderr are a terminal: ask there.
    Ask,
    /// No `--yes`, and no terminal to ask on.
    Missing,
}

/// How the go-ahead comes: `--yes`, a question on the terminal, or not at all.
pub fn consent(yes: bool) -> Consent {
    if yes {
        Consent::Given
    } else if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() {
        Consent::Ask
    } else {
        Consent::Missing
    }
}

/// Goes on with `--yes`; on a terminal says `what` will happen and asks (a no is
/// [`CliError::Declined`]); elsewhere refuses ([`missing`]).
pub fn confirm(ctx: &CommandCtx, what: &str, yes: bool) -> Result<(), CliError> {
    match consent(yes) {
        Consent::Given => Ok(()),
        Consent::Ask => ask(ctx, what),
        Consent::Missing => Err(missing(ctx).into()),
    }
}

/// Says `what` will happen and asks on the terminal: `Ok` for a yes, [`CliError::Declined`] for
/// a no. Only for [`Consent::Ask`].
pub fn ask(ctx: &CommandCtx, what: &str) -> Result<(), CliError> {
    match ctx.printer.ask(what) {
        Ok(true) => Ok(()),
        Ok(false) => Err(CliError::Declined),
        Err(e) => Err(OpError::unavailable(format!(
            "cannot read the answer from the terminal ({e}): nothing was changed"
        ))
        .into()),
    }
}

/// The refusal when there is no `--yes` and no terminal to ask on (exit 2).
pub fn missing(ctx: &CommandCtx) -> OpError {
    OpError::new(
        ErrorKind::Usage,
        "confirmation_required",
        format!(
            "`locker {}` asks for confirmation, and there is no terminal to ask on: nothing was \
             changed",
            ctx.command
        ),
    )
    .hint("Pass --yes to confirm without a terminal.")
}

/// Refuses, before any question, what the operation would refuse anyway: a server instead of
/// the local repository (exit 2), no repository (exit 3), or someone other than the operator
/// (exit 5, `only the repository's operator can {what}`, as the operation says it).
pub fn operator_only(ctx: &mut CommandCtx, what: &str) -> Result<(), OpError> {
    let c = ctx.local()?.ctx()?;
    crate::ops::auth::operator_only(&c.actor, what)
}
