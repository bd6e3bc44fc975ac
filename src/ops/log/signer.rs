//! One signer at a time: the turn to sign the log's checkpoints, held in the store.
//!
//! Several hosts may write one repository (several `locker serve` and CLI hosts on one
//! PostgreSQL database). Checkpoints are signed under one origin, with one key, by one signer at
//! a time: a signer is a host's key with its high-water mark (a station: every process on one
//! host using one `.locker/keys/` is the same signer, which its shared mark keeps consistent).
//! A process signs only inside a write transaction in which its station holds the turn (the
//! store's single `log_signer` row). `locker serve` keeps the turn, renewing it every round of
//! its signer, for [`TURN`] seconds at a time; a command takes it only for the transaction it
//! signs in, and leaves signing to another station's server that holds it. Each change of
//! station numbers a new turn (the fence), so a station whose turn lapsed cannot sign again
//! without taking a new one. The row also records the log's verifier key: a host without the
//! key serves the stored checkpoints and checks them with it, and a host with another key is
//! refused instead of signing a rival log under the same origin.

use std::sync::OnceLock;

pub use super::identity::{is_not_signer, not_signer, recorded};
use crate::domain::note::Signer;
use crate::ops::{Ctx, ErrorKind, LogIdentity, OpError, OpResult};
use crate::store::{SignerRow, Tx};

/// How long a server's turn lasts without renewal (seconds): another host takes over at most
/// this long after the signer died without releasing it (at once on the same host, where a
/// dead process is seen).
pub const TURN: i64 = 30;

/// This process, as a holder of the turn for the station whose mark is in `mark`:
/// `host/pid/station`, where the station is a hash of the mark's directory (a host without a
/// mark, which never signs, is a station of its own).
pub fn holder(mark: Option<&std::path::Path>) -> String {
    static HOST: OnceLock<String> = OnceLock::new();
    let host = HOST.get_or_init(host);
    let station = match mark.map(|m| m.canonicalize().unwrap_or_else(|_| m.to_owned())) {
        Some(m) => crate::domain::digest::Digest::of(m.as_os_str().as_encoded_bytes()).to_hex(),
        None => crate::domain::secret::random_id(),
    };
    format!("{host}/{}/{}", std::process::id(), &station[..12])
}

/// The station part of a holder (`host` and `station`, without the process).
fn station(holder: &str) -> (&str, &str) {
    let mut parts = holder.split('/');
    let host = parts.next().unwrap_or_default();
    (host, parts.nth(1).unwrap_or_default())
}

fn host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_owned())
        .ok()
        .filter(|h| !h.is_empty() && !h.contains('/'))
        .unwrap_or_else(|| "localhost".into())
}

/// Whether the turn's holder may still be signing: its turn has not lapsed and, when it runs on
/// this host, its process is alive.
fn live(row: &SignerRow, now: i64) -> bool {
    if row.expires_at <= now {
        return false;
    }
    let mut parts = row.holder.split('/');
    match (parts.next(), parts.next().and_then(|p| p.parse::<u32>().ok())) {
        (Some(h), Some(pid)) if h == host() && pid != std::process::id() => {
            std::path::Path::new(&format!("/proc/{pid}")).exists()
        }
        _ => true,
    }
}

/// Takes (or renews) the turn for this process inside the write transaction `tx`, and returns
/// the key to sign with; [`not_signer`] when another live process holds the turn, or this one
/// holds no key. A server ([`LogIdentity::keeps_turn`]) keeps the turn for [`TURN`] seconds; a
/// command holds it only for this transaction.
pub fn take(tx: &mut dyn Tx, log: &LogIdentity, now: i64) -> OpResult<Signer> {
    let row = tx.log_signer()?;
    let Some(signer) = log.signing_key(row.as_ref())? else {
        return Err(not_signer(row.as_ref()));
    };
    let me = holder(log.mark.as_deref());
    let vkey = signer.verifier().to_vkey();
    if let Some(r) = &row {
        if key_part(&r.vkey) != key_part(&vkey) {
            return Err(OpError::new(
                ErrorKind::Conflict,
                "wrong_log_key",
                format!(
                    "this host's log key ({vkey}) is not the log's key ({}): signing with it \
                     would make a second log under the same origin",
                    r.vkey
                ),
            )
            .hint(
                "Give every signing host the log's key (`--log-key FILE` or LOCKER_LOG_KEY), or \
                 remove this host's .locker/keys/log.key so that it serves the stored \
                 checkpoints.",
            ));
        }
        let same = station(&r.holder) == station(&me);
        if !same && live(r, now) {
            return Err(not_signer(Some(r)));
        }
        // A command signs in its station's turn as it stands, and leaves it so, when this
        // station's server holds it, or when its time has run out (a command's lapses as it
        // commits; a server's when it stops): writing it again would change only the process
        // it names and a time already past, and put one more page into the commit of every
        // CLI write. Only a turn left unexpired by a dead server is taken over below.
        if same && !log.keeps_turn && r.vkey == vkey && (r.expires_at <= now || live(r, now)) {
            return Ok(signer);
        }
    }
    let fence = match &row {
        Some(r) if station(&r.holder) == station(&me) => r.fence,
        Some(r) => r.fence + 1,
        None => 1,
    };
    let expires_at = if log.keeps_turn { now.saturating_add(TURN) } else { now };
    // A server renews only when half its turn is gone: one row write every TURN / 2 seconds.
    let fresh = row.as_ref().is_some_and(|r| {
        r.holder == me
            && log.keeps_turn
            && r.expires_at >= now.saturating_add(TURN / 2)
            && r.vkey == vkey
    });
    if !fresh {
        tx.set_log_signer(&SignerRow { holder: me, fence, expires_at, vkey })?;
    }
    Ok(signer)
}

/// The public key of a verifier key, without its name (the origin, which may be renamed) or the
/// key id derived from both.
fn key_part(vkey: &str) -> &str {
    vkey.rsplit('+').next().unwrap_or(vkey)
}

/// Takes or renews the turn for a server (`log` keeps it) between checkpoints, so that it
/// holds the turn while it runs even when nothing grows: `false` while another station holds
/// it. Reads first, and writes only when the turn is not this server's or half of it is gone.
pub fn hold(ctx: &mut Ctx<'_>, log: &LogIdentity) -> OpResult<bool> {
    if !log.has_key() {
        return Ok(false);
    }
    let now = ctx.now();
    let me = holder(log.mark.as_deref());
    if let Some(r) = ctx.store.read()?.log_signer()? {
        if r.holder == me && r.expires_at >= now.saturating_add(TURN / 2) {
            return Ok(true);
        }
    }
    let mut tx = ctx.store.write()?;
    match take(tx.as_mut(), log, now) {
        Ok(_) => {
            tx.commit()?;
            Ok(true)
        }
        Err(e) if is_not_signer(&e) => Ok(false),
        Err(e) => Err(e),
    }
}

/// Ends this process's turn (a server stopping): another host may sign at once.
pub fn release(tx: &mut dyn Tx, log: &LogIdentity) -> OpResult<()> {
    if let Some(mut r) = tx.log_signer()? {
        if r.holder == holder(log.mark.as_deref()) {
            r.expires_at = 0;
            tx.set_log_signer(&r)?;
        }
    }
    Ok(())
}

/// Whose turn it is, for `locker doctor` and `/health`.
#[derive(
    Debug, Clone, serde::Serialize, serde::Deserialize, PartialEq, Eq, schemars::JsonSchema,
)]
pub struct SignerTurn {
    /// The process holding (or last holding) the turn: `host/pid/station`.
    pub holder: String,
    /// The turn's number: one more at each change of holder.
    pub fence: u64,
    /// When the turn ends unless renewed (seconds since the epoch).
    pub expires_at: i64,
    /// Whether the holder may still be signing.
    pub live: bool,
    /// Whether this host's station (its key and mark) holds it.
    pub mine: bool,
}

/// Whose turn it is (none before the first checkpoint was signed), seen from `log`'s station.
pub fn turn(tx: &dyn Tx, log: &LogIdentity, now: i64) -> OpResult<Option<SignerTurn>> {
    let me = holder(log.mark.as_deref());
    Ok(tx.log_signer()?.map(|r| SignerTurn {
        live: live(&r, now),
        mine: station(&r.holder) == station(&me),
        holder: r.holder,
        fence: r.fence,
        expires_at: r.expires_at,
    }))
}
