//! The server's publisher: requests never sign. The writer signs the checkpoint of the journal
//! a group commit grew inside that group (durable with its writes, at most one per size) when
//! one is due, at most every [`SIGN_EVERY`]; in rounds at most that often, this thread signs
//! whatever grew without one, moves the log key's high-water mark to it, then asks the
//! configured witnesses to cosign it. A reader of checkpoints
//! and proofs first waits (briefly) for a round covering every write committed before its
//! request, then is served the newest checkpoint stored.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

use crate::ops::{Actor, Env, OpResult};
use crate::store::Store;

/// Opens another store on the served repository.
pub type StoreOpener = Box<dyn Fn() -> OpResult<Box<dyn Store>> + Send + Sync>;

/// How long a reader waits for the signer before it is served what is stored.
const WAIT: Duration = Duration::from_secs(5);

/// The least time between two signing rounds (and between two checkpoints signed in group
/// commits): under a stream of writes the log signs, and moves its high-water mark (a new file,
/// synced and renamed), about 20 times a second instead of once per write. Measured on
/// 200-byte sequential appends: server CPU per append 0.82–0.94 ms signing every group,
/// 0.37–0.39 ms at this cadence. A reader waits at most this much longer for its checkpoint.
pub const SIGN_EVERY: Duration = Duration::from_millis(50);

/// The handle the writer and the readers share.
pub struct Publisher {
    /// Rounds asked for: one per group commit, and one at start.
    asked: Arc<AtomicU64>,
    /// The last round finished (its number).
    done: watch::Receiver<u64>,
    kick: std::sync::mpsc::SyncSender<()>,
    /// Whether there is a signer (a server with no log key has nothing to wait for).
    active: bool,
    /// The signer thread: it gives up the turn to sign once every handle on this is dropped.
    pub(super) thread: Arc<std::sync::Mutex<Option<std::thread::JoinHandle<()>>>>,
}

impl Publisher {
    /// Starts the signer on stores from `open`, with `env`'s log (none: nothing to sign), asking
    /// `witnesses` to cosign each new checkpoint. It signs what is committed at once.
    pub fn start(open: Arc<StoreOpener>, env: &Env, witnesses: Vec<String>) -> Self {
        let (kick, kicks) = std::sync::mpsc::sync_channel(1);
        let (done_tx, done) = watch::channel(0);
        let asked = Arc::new(AtomicU64::new(0));
        let mut env = env.clone();
        env.settings.sign_checkpoints = true;
        let thread = env
            .log
            .as_ref()
            .is_some_and(crate::ops::LogIdentity::has_key)
            .then(|| {
                let asked = Arc::clone(&asked);
                std::thread::Builder::new()
                    .name("locker-signer".into())
                    .spawn(move || signer(&kicks, &open, &env, &witnesses, &asked, &done_tx))
                    .ok()
            })
            .flatten();
        let active = thread.is_some();
        let p = Self { asked, done, kick, active, thread: Arc::new(std::sync::Mutex::new(thread)) };
        p.grew();
        p
    }

    /// The journal may have grown (a group committed): sign it.
    pub fn grew(&self) {
        self.asked.fetch_add(1, Ordering::SeqCst);
        let _ = self.kick.try_send(());
    }

    /// Waits until the signer has covered every group committed before now (at most a few
    /// seconds: then the reader gets what is stored).
    pub async fn caught_up(&self) {
        if !self.active {
            return;
        }
        let target = self.asked.load(Ordering::SeqCst);
        let mut done = self.done.clone();
        let _ = tokio::time::timeout(WAIT, done.wait_for(|d| *d >= target)).await;
    }
}

/// The longest time between two signing rounds without a kick: the server renews its turn to
/// sign (which lasts [`crate::ops::log::signer::TURN`] seconds), takes it over from a signer
/// that stopped, and signs what other processes (the CLI, other hosts) wrote.
const ROUND_EVERY: Duration = Duration::from_secs(1);

/// The signer thread: one round per kick (kicks coalesce) and at least every [`ROUND_EVERY`],
/// until the server stops; then it gives up its turn to sign.
fn signer(
    kicks: &std::sync::mpsc::Receiver<()>,
    open: &StoreOpener,
    env: &Env,
    witnesses: &[String],
    asked: &AtomicU64,
    done: &watch::Sender<u64>,
) {
    let mut store: Option<Box<dyn Store>> = None;
    // The newest checkpoint every witness cosigned (a smaller one is asked again next round).
    let mut cosigned = 0u64;
    while !matches!(
        kicks.recv_timeout(ROUND_EVERY),
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected)
    ) {
        let started = std::time::Instant::now();
        let target = asked.load(Ordering::SeqCst);
        if store.is_none() {
            store = open().ok();
        }
        if let (Some(s), Some(log)) = (store.as_mut(), env.log.as_ref()) {
            let mut ctx = env.ctx(s.as_mut(), Actor::operator());
            let round = crate::ops::log::signer::hold(&mut ctx, log)
                .and_then(|_| crate::ops::log::checkpoint::publish(&mut ctx, log))
                .and_then(|_| {
                    let newest = ctx.store.read()?.latest_checkpoint()?.map_or(0, |c| c.size);
                    if witnesses.is_empty() || newest <= cosigned {
                        return Ok(());
                    }
                    let ask = crate::witness::client::request_cosignature;
                    let c = crate::ops::log::cosign::collect(&mut ctx, log, witnesses, ask)?;
                    let m = crate::obs::metrics::metrics();
                    for a in &c.witnesses {
                        let name = witness_label(&a.url);
                        if a.cosignatures.is_empty() {
                            m.cosignature_failures.inc(&[&name]);
                            tracing::warn!(
                                witness = name.as_str(),
                                status = a.status,
                                "a witness did not cosign checkpoint {}: {}",
                                c.checkpoint.size,
                                a.error.as_deref().unwrap_or("no cosignature")
                            );
                        } else {
                            m.cosignatures.inc(&[&name]);
                        }
                    }
                    if c.all_cosigned {
                        cosigned = c.checkpoint.size;
                    }
                    Ok(())
                });
            if let Err(e) = round {
                tracing::warn!("the journal grew but no checkpoint was signed: {}", e.detail);
                if e.kind == crate::ops::ErrorKind::Unavailable {
                    store = None;
                }
            }
        }
        done.send_replace(target);
        // Kicks that come meanwhile coalesce into the next round.
        std::thread::sleep(SIGN_EVERY.saturating_sub(started.elapsed()));
    }
    // Stopping: another host (or a command) may sign at once instead of after the turn lapses.
    if let (Some(s), Some(log)) = (store.as_mut(), env.log.as_ref()) {
        let released = s.write().map_err(crate::ops::OpError::from).and_then(|mut tx| {
            crate::ops::log::signer::release(tx.as_mut(), log)?;
            Ok(tx.commit()?)
        });
        if let Err(e) = released {
            tracing::warn!("could not give up the turn to sign checkpoints: {}", e.detail);
        }
    }
}

/// A witness's URL as metrics and logs name it: without credentials or a query.
pub(super) fn witness_label(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let rest = rest.split(['?', '#']).next().unwrap_or_default();
    let (authority, path) = rest.find('/').map_or((rest, ""), |i| rest.split_at(i));
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    if scheme.is_empty() {
        format!("{host}{path}")
    } else {
        format!("{scheme}://{host}{path}")
    }
}

#[cfg(test)]
mod label_tests {
    use super::witness_label;

    #[test]
    fn a_witness_label_carries_no_credentials() {
        assert_eq!(witness_label("http://127.0.0.1:9/"), "http://127.0.0.1:9/");
        assert_eq!(witness_label("https://u:secret@w.example/x?key=k"), "https://w.example/x");
        assert_eq!(witness_label("w.example"), "w.example");
    }
}
