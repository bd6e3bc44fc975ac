//! `locker witness`: a C2SP tlog-witness for the logs it is configured to follow; the log side
//! that asks witnesses to cosign is [`client`].
//!
//! A witness lives in a directory of its own (not a locker repository):
//!
//! ```text
//! witness.key   0600  PRIVATE+KEY+<name>+<id>+<base64(0x04 ‖ seed)>   its cosigning key
//! logs          0600  `log <vkey>` lines: the logs it follows (their key's name is the origin)
//! state.db      0600  SQLite: the newest checkpoint it cosigned per origin, and evidence of
//!                      refused rewrites
//! ```
//!
//! `POST /add-checkpoint` checks the request (`domain::witness`), then, in one `BEGIN
//! IMMEDIATE` transaction, compares the old size with the stored one, checks consistency, and
//! stores the new checkpoint; it commits (`synchronous=FULL`) before it answers with its
//! cosignature, so an acknowledged checkpoint survives a crash and no two requests can both
//! move the same origin forward from the same size.
//!
//! `GET /<hex SHA-256 of the origin>/checkpoint` (the spec's checkpoint monitoring endpoint)
//! serves the newest checkpoint it cosigned for a followed log, with the log's signature and
//! its own cosignature (made again from the stored time: Ed25519 is deterministic, so it is
//! the very line the log received), so that readers can compare the view they were served
//! with the witness's. One witness follows any number of logs, each on its own.
//! `locker witness show` prints the same state.

pub mod client;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http_body_util::BodyExt as _;
use rusqlite::{params, Connection, OptionalExtension as _, TransactionBehavior};
use serde::{Deserialize, Serialize};

use crate::domain::digest::Digest;
use crate::domain::note::{Note, Verifier};
use crate::domain::witness::{self as rules, AddCheckpoint, Cosigner, Refusal, Witnessed};
use crate::ops::{OpError, OpResult};

/// The witness's key file.
pub const KEY_FILE: &str = "witness.key";
/// The followed logs.
pub const LOGS_FILE: &str = "logs";
/// The state database.
pub const STATE_FILE: &str = "state.db";
/// Largest `add-checkpoint` body read.
pub const MAX_BODY_BYTES: usize = 128 * 1024;

fn io_err(path: &Path) -> impl Fn(std::io::Error) -> OpError + '_ {
    move |e| OpError::unavailable(format!("{}: {e}", path.display()))
}

fn db_err(e: rusqlite::Error) -> OpError {
    OpError::unavailable(format!("the witness state: {e}"))
}

/// A new witness: what `locker witness init` made.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WitnessInitialized {
    pub dir: PathBuf,
    pub name: String,
    /// The witness's cosigner verifier key (`name+id+base64(0x04 ‖ key)`), for policies.
    pub vkey: String,
    pub logs: Vec<String>,
}

fn write_private(path: &Path, text: &str) -> OpResult<()> {
    use std::io::Write as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(io_err(path))?;
    f.write_all(text.as_bytes()).and_then(|()| f.sync_all()).map_err(io_err(path))
}

/// Refuses two followed logs with one origin (a witness could not tell them apart).
fn check_origins(logs: &[Verifier]) -> OpResult<()> {
    let mut seen = std::collections::HashSet::new();
    match logs.iter().find(|v| !seen.insert(v.name.as_str())) {
        Some(v) => Err(OpError::new(
            crate::ops::ErrorKind::BadRequest,
            "invalid",
            format!(
                "two followed logs have the origin `{}`: a witness follows one key per log",
                v.name
            ),
        )),
        None => Ok(()),
    }
}

/// Creates a witness directory with a new key, the followed logs and an empty state.
pub fn init(dir: &Path, name: &str, logs: &[String]) -> OpResult<WitnessInitialized> {
    use std::os::unix::fs::DirBuilderExt as _;
    let key = Cosigner::generate(name)
        .map_err(|e| OpError::new(crate::ops::ErrorKind::BadRequest, "invalid", e.to_string()))?;
    let mut parsed = Vec::new();
    for l in logs {
        parsed.push(parse_log_key(l)?);
    }
    check_origins(&parsed)?;
    if dir.join(KEY_FILE).exists() {
        return Err(OpError::conflict(format!("{} is already a witness", dir.display())));
    }
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir).map_err(io_err(dir))?;
    let mut text = String::from("# The logs this witness cosigns: `log <verifier key>` lines.\n");
    for v in &parsed {
        text.push_str(&format!("log {}\n", v.to_vkey()));
    }
    write_private(&dir.join(LOGS_FILE), &text)?;
    State::open(&dir.join(STATE_FILE))?;
    write_private(&dir.join(KEY_FILE), &format!("{}\n", key.to_skey()))?;
    Ok(WitnessInitialized {
        dir: dir.to_owned(),
        name: name.to_owned(),
        vkey: key.public().to_vkey(),
        logs: parsed.iter().map(Verifier::to_vkey).collect(),
    })
}

fn parse_log_key(vkey: &str) -> OpResult<Verifier> {
    Verifier::parse(vkey).map_err(|e| {
        OpError::new(crate::ops::ErrorKind::BadRequest, "invalid", format!("log key: {e}"))
    })
}

/// A witness's configuration: its key and the logs it follows.
pub struct Witness {
    pub key: Cosigner,
    pub logs: Vec<Verifier>,
    pub state: Mutex<State>,
}

impl Witness {
    /// Opens the witness in `dir`.
    pub fn open(dir: &Path) -> OpResult<Self> {
        let key_path = dir.join(KEY_FILE);
        let text = std::fs::read_to_string(&key_path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => OpError::not_found(format!(
                "{} is not a witness: it has no {KEY_FILE}",
                dir.display()
            ))
            .hint("`locker witness init DIR --name NAME --log VKEY` makes one."),
            _ => io_err(&key_path)(e),
        })?;
        let key = Cosigner::parse(&text).map_err(|e| {
            OpError::new(crate::ops::ErrorKind::BadRequest, "invalid_key", e.to_string())
        })?;
        let logs_path = dir.join(LOGS_FILE);
        let text = std::fs::read_to_string(&logs_path).map_err(io_err(&logs_path))?;
        let mut logs = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.as_slice() {
                ["log", vkey] | ["log", vkey, _] => logs.push(parse_log_key(vkey)?),
                _ => {
                    return Err(OpError::bad_request(format!(
                        "{} line {}: expected `log <verifier key>`",
                        logs_path.display(),
                        n + 1
                    )))
                }
            }
        }
        check_origins(&logs)?;
        let state = State::open(&dir.join(STATE_FILE))?;
        Ok(Self { key, logs, state: Mutex::new(state) })
    }

    /// The monitoring endpoint's answer for the log whose origin hashes to `origin_hash`: the
    /// newest checkpoint cosigned for it, with the log's signature and this witness's
    /// cosignature; `None` for a log not followed or never cosigned.
    pub fn monitored(&self, origin_hash: &str) -> OpResult<Option<String>> {
        let Some(log) = self.logs.iter().find(|v| rules::origin_hash(&v.name) == origin_hash)
        else {
            return Ok(None);
        };
        let state = self.state.lock().map_err(|_| OpError::internal("the witness state lock"))?;
        let Some(row) = state.row(&log.name)? else { return Ok(None) };
        let text = Note::parse(row.note.as_bytes())
            .map_err(|e| OpError::internal(format!("the witness state holds a bad note: {e}")))?
            .text;
        let time = u64::try_from(row.cosigned_at).unwrap_or(0).max(1);
        Ok(Some(rules::monitored_note(&row.note, &log.name, &self.key.cosign(&text, time))))
    }

    /// What `locker witness show` prints: the witness, and per followed log what it cosigned.
    pub fn show(&self, dir: &Path) -> OpResult<WitnessShown> {
        let state = self.state.lock().map_err(|_| OpError::internal("the witness state lock"))?;
        let mut logs = Vec::new();
        for v in &self.logs {
            let row = state.row(&v.name)?;
            logs.push(FollowedLog {
                origin: v.name.clone(),
                vkey: v.to_vkey(),
                monitoring_path: format!("/{}/checkpoint", rules::origin_hash(&v.name)),
                size: row.as_ref().map(|r| r.size),
                root: row.as_ref().map(|r| r.root),
                cosigned_at: row.as_ref().map(|r| r.cosigned_at),
                evidence: state.evidence(&v.name)?,
            });
        }
        Ok(WitnessShown {
            dir: dir.to_owned(),
            name: self.key.name.clone(),
            vkey: self.key.public().to_vkey(),
            logs,
        })
    }

    /// Handles one `add-checkpoint` body at `now`: the cosignature lines (each ending in a
    /// newline), or the refusal.
    pub fn add_checkpoint(&self, body: &[u8], now: i64) -> Result<String, Refusal> {
        let req = AddCheckpoint::parse(body).map_err(Refusal::BadRequest)?;
        let cp = rules::check_request(&req, |origin| self.logs.iter().find(|v| v.name == origin))?;
        let mut state = self.state.lock().map_err(|_| Refusal::BadRequest("busy".into()))?;
        state.apply(&req, &cp, now)?;
        let text =
            Note::parse(req.note.as_bytes()).map_err(|e| Refusal::BadRequest(e.to_string()))?.text;
        let time = u64::try_from(now).unwrap_or(0).max(1);
        Ok(format!("{}\n", self.key.cosign(&text, time)))
    }
}

/// `locker witness show`: the witness and what it cosigned for each log it follows.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WitnessShown {
    pub dir: PathBuf,
    pub name: String,
    /// The witness's cosigner verifier key, for `witness` lines of a policy.
    pub vkey: String,
    pub logs: Vec<FollowedLog>,
}

/// A log a witness follows, and the newest checkpoint it cosigned for it.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FollowedLog {
    pub origin: String,
    /// The log's verifier key.
    pub vkey: String,
    /// Where the monitoring endpoint serves its newest cosigned checkpoint.
    pub monitoring_path: String,
    /// The newest checkpoint cosigned (absent before the first).
    pub size: Option<u64>,
    pub root: Option<Digest>,
    /// When it was cosigned (the cosignature's time).
    pub cosigned_at: Option<i64>,
    /// Validly signed checkpoints refused as inconsistent, kept as evidence.
    pub evidence: u64,
}

/// One stored checkpoint.
struct Row {
    size: u64,
    root: Digest,
    note: String,
    cosigned_at: i64,
}

/// The witness's durable state.
pub struct State {
    conn: Connection,
}

impl State {
    /// Opens (or creates) the state database.
    pub fn open(path: &Path) -> OpResult<Self> {
        let conn = Connection::open(path).map_err(db_err)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600));
        }
        conn.busy_timeout(Duration::from_secs(10)).map_err(db_err)?;
        conn.pragma_update(None, "journal_mode", "WAL").map_err(db_err)?;
        conn.pragma_update(None, "synchronous", "FULL").map_err(db_err)?;
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS witnessed (
                 origin     TEXT PRIMARY KEY,
                 size       INTEGER NOT NULL,
                 root       TEXT NOT NULL,
                 note       TEXT NOT NULL,
                 updated_at INTEGER NOT NULL
             );
             CREATE TABLE IF NOT EXISTS evidence (
                 id          INTEGER PRIMARY KEY,
                 origin      TEXT NOT NULL,
                 received_at INTEGER NOT NULL,
                 stored_note TEXT,
                 request     TEXT NOT NULL,
                 reason      TEXT NOT NULL
             );",
        )
        .map_err(db_err)?;
        Ok(Self { conn })
    }

    /// The stored checkpoint of `origin`.
    pub fn get(&self, origin: &str) -> OpResult<Option<(Witnessed, String)>> {
        self.conn
            .query_row("SELECT size, root, note FROM witnessed WHERE origin = ?1", [origin], |r| {
                Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?))
            })
            .optional()
            .map_err(db_err)?
            .map(|(size, root, note)| {
                let root = Digest::parse(&root)
                    .map_err(|_| OpError::internal("the witness state holds a malformed root"))?;
                Ok((Witnessed { size: u64::try_from(size).unwrap_or(0), root }, note))
            })
            .transpose()
    }

    fn row(&self, origin: &str) -> OpResult<Option<Row>> {
        let sql = "SELECT size, root, note, updated_at FROM witnessed WHERE origin = ?1";
        self.conn
            .query_row(sql, [origin], |r| {
                Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get(2)?, r.get(3)?))
            })
            .optional()
            .map_err(db_err)?
            .map(|(size, root, note, cosigned_at)| {
                let root = Digest::parse(&root)
                    .map_err(|_| OpError::internal("the witness state holds a malformed root"))?;
                Ok(Row { size: u64::try_from(size).unwrap_or(0), root, note, cosigned_at })
            })
            .transpose()
    }

    /// Decides a checked request against the stored state and stores the outcome, atomically:
    /// the new checkpoint when it is consistent (committed before this returns), or evidence
    /// of a validly signed but inconsistent one.
    fn apply(
        &mut self,
        req: &AddCheckpoint,
        cp: &crate::domain::note::Checkpoint,
        now: i64,
    ) -> Result<(), Refusal> {
        let fail = |e: rusqlite::Error| Refusal::BadRequest(format!("the witness state: {e}"));
        let tx =
            self.conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(fail)?;
        let stored: Option<(i64, String, String)> = tx
            .query_row(
                "SELECT size, root, note FROM witnessed WHERE origin = ?1",
                [&cp.origin],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()
            .map_err(fail)?;
        let witnessed = match &stored {
            None => None,
            Some((size, root, _)) => Some(Witnessed {
                size: u64::try_from(*size).unwrap_or(0),
                root: Digest::parse(root)
                    .map_err(|_| Refusal::BadRequest("the witness state is damaged".into()))?,
            }),
        };
        match rules::decide(req, cp, witnessed.as_ref()) {
            Ok(()) => {
                tx.execute(
                    "INSERT INTO witnessed (origin, size, root, note, updated_at)
                     VALUES (?1, ?2, ?3, ?4, ?5)
                     ON CONFLICT (origin) DO UPDATE SET size = excluded.size,
                         root = excluded.root, note = excluded.note,
                         updated_at = excluded.updated_at",
                    params![
                        cp.origin,
                        i64::try_from(cp.size).unwrap_or(i64::MAX),
                        cp.root.to_hex(),
                        req.note,
                        now
                    ],
                )
                .map_err(fail)?;
                tx.commit().map_err(fail)?;
                Ok(())
            }
            Err(r) => {
                if let Refusal::Inconsistent(reason) = &r {
                    // A validly signed checkpoint the witness refuses: keep it as evidence.
                    tx.execute(
                        "INSERT INTO evidence (origin, received_at, stored_note, request, reason)
                         VALUES (?1, ?2, ?3, ?4, ?5)",
                        params![
                            cp.origin,
                            now,
                            stored.as_ref().map(|s| s.2.clone()),
                            req.encode(),
                            reason
                        ],
                    )
                    .map_err(fail)?;
                    tx.commit().map_err(fail)?;
                }
                Err(r)
            }
        }
    }

    /// Refused rewrites kept as evidence, for an origin.
    pub fn evidence(&self, origin: &str) -> OpResult<u64> {
        let n: i64 = self
            .conn
            .query_row("SELECT COUNT(*) FROM evidence WHERE origin = ?1", [origin], |r| r.get(0))
            .map_err(db_err)?;
        Ok(u64::try_from(n).unwrap_or(0))
    }
}

// ---------------------------------------------------------------------------------------------
// Serving.

type Resp = hyper::Response<http_body_util::Full<axum::body::Bytes>>;

fn text(status: u16, content_type: &str, body: String) -> Resp {
    let mut r = hyper::Response::new(http_body_util::Full::new(axum::body::Bytes::from(body)));
    *r.status_mut() = hyper::StatusCode::from_u16(status).unwrap_or(hyper::StatusCode::OK);
    if let Ok(v) = hyper::header::HeaderValue::from_str(content_type) {
        r.headers_mut().insert(hyper::header::CONTENT_TYPE, v);
    }
    r
}

async fn handle(
    w: Arc<Witness>,
    clock: Arc<dyn crate::ops::Clock>,
    req: hyper::Request<hyper::body::Incoming>,
) -> Result<Resp, std::convert::Infallible> {
    let path = req.uri().path().to_owned();
    let method = req.method().clone();
    let resp = match (method.as_str(), path.as_str()) {
        ("POST", "/add-checkpoint") => {
            let limited = http_body_util::Limited::new(req.into_body(), MAX_BODY_BYTES);
            match tokio::time::timeout(Duration::from_secs(30), limited.collect()).await {
                Ok(Ok(body)) => {
                    let body = body.to_bytes();
                    let now = clock.now();
                    let w = Arc::clone(&w);
                    let answer =
                        tokio::task::spawn_blocking(move || w.add_checkpoint(&body, now)).await;
                    match answer {
                        Ok(Ok(lines)) => text(200, "text/plain; charset=utf-8", lines),
                        Ok(Err(Refusal::Conflict(size))) => {
                            text(409, rules::SIZE_CONTENT_TYPE, format!("{size}\n"))
                        }
                        Ok(Err(r)) => text(r.status(), "text/plain; charset=utf-8", r.body()),
                        Err(_) => text(500, "text/plain; charset=utf-8", "internal error\n".into()),
                    }
                }
                Ok(Err(_)) => text(413, "text/plain; charset=utf-8", "body too large\n".into()),
                Err(_) => text(408, "text/plain; charset=utf-8", "request timeout\n".into()),
            }
        }
        ("GET", "/health") => text(200, "text/plain; charset=utf-8", "ok\n".into()),
        ("GET", p) if monitoring_path(p).is_some() => {
            let hash = monitoring_path(p).unwrap_or_default().to_owned();
            let w = Arc::clone(&w);
            match tokio::task::spawn_blocking(move || w.monitored(&hash)).await {
                Ok(Ok(Some(note))) => text(200, "text/plain; charset=utf-8", note),
                Ok(Ok(None)) => text(
                    404,
                    "text/plain; charset=utf-8",
                    "no checkpoint cosigned for this log\n".into(),
                ),
                _ => text(500, "text/plain; charset=utf-8", "internal error\n".into()),
            }
        }
        (_, "/add-checkpoint") => text(405, "text/plain; charset=utf-8", "use POST\n".into()),
        _ => text(404, "text/plain; charset=utf-8", "not found\n".into()),
    };
    let status = resp.status().as_u16();
    tracing::info!(target: "locker::access", method = method.as_str(), status, "{method} {path} {status}");
    Ok(resp)
}

/// The origin hash of a monitoring path `/<64 lowercase hex>/checkpoint`.
fn monitoring_path(path: &str) -> Option<&str> {
    let hash = path.strip_prefix('/')?.strip_suffix("/checkpoint")?;
    let hex = |c: char| c.is_ascii_digit() || ('a'..='f').contains(&c);
    (hash.len() == 64 && hash.chars().all(hex)).then_some(hash)
}

/// Serves `w` on `listener` until `shutdown` resolves.
pub async fn run(
    listener: std::net::TcpListener,
    w: Arc<Witness>,
    clock: Arc<dyn crate::ops::Clock>,
    shutdown: impl std::future::Future<Output = ()>,
) -> std::io::Result<()> {
    listener.set_nonblocking(true)?;
    let listener = tokio::net::TcpListener::from_std(listener)?;
    tracing::info!(target: crate::obs::log::READY, "locker listening on http://{}", listener.local_addr()?);
    tracing::info!("locker witness {} is ready", w.key.name);
    tokio::pin!(shutdown);
    loop {
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let (w, clock) = (Arc::clone(&w), Arc::clone(&clock));
        let svc = hyper::service::service_fn(move |req| handle(w.clone(), clock.clone(), req));
        let conn = hyper::server::conn::http1::Builder::new()
            .timer(hyper_util::rt::TokioTimer::new())
            .header_read_timeout(Duration::from_secs(10))
            .serve_connection(hyper_util::rt::TokioIo::new(stream), svc);
        tokio::spawn(async move {
            let _ = tokio::time::timeout(Duration::from_secs(60), conn).await;
        });
    }
    tracing::info!("locker witness stopped");
    Ok(())
}
