//! `GET /health` (agent-locker's shape: liveness, the database, pad counts, plus what is true
//! of this server: the journal's size, head and key id, and the payment RPC node only when
//! payments are on) and `GET /healthz` (questlock's: liveness only). Neither waits for a slot:
//! they are answered when every slot is busy.

use axum::extract::State;
use axum::response::Response;
use serde::Serialize;
use serde_json::{json, Value};

use super::http;
use super::AppState;
use crate::ops::pad::PadCounts;
use crate::ops::status::{self, JournalStatus};

/// `GET /health`'s body: the peer's fields (`rpc` only when payments are on), then locker's.
#[derive(Debug, Serialize)]
struct Health {
    status: &'static str,
    version: &'static str,
    database: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    rpc: Option<Value>,
    pads: PadCounts,
    journal: JournalStatus,
}

/// `GET /health` (and `HEAD`): liveness, the store and the journal.
pub async fn health(State(s): State<AppState>) -> Response {
    // In txid mode `rpc.reachable` is a 2-second `eth_chainId` probe (the right chain too).
    let rpc = match s.options().payment.clone() {
        None => None,
        Some(cfg) => {
            let network = cfg.network();
            let up = tokio::task::spawn_blocking(move || {
                crate::rpc::probe(&cfg, std::time::Duration::from_secs(2)).is_ok()
            })
            .await
            .unwrap_or(false);
            Some(json!({"network": network, "reachable": up}))
        }
    };
    match s.health_read(status::status).await {
        Ok(st) => http::json(
            200,
            &Health {
                status: "ok",
                version: env!("CARGO_PKG_VERSION"),
                database: json!({
                    "backend": st.backend,
                    "writable": s.writer_alive(),
                    "wal_mode": st.wal_mode,
                }),
                rpc,
                pads: st.pads,
                journal: st.journal,
            },
        ),
        Err(e) => {
            let mut body = json!({
                "status": "unavailable",
                "version": env!("CARGO_PKG_VERSION"),
                "database": {"writable": false, "wal_mode": Value::Null},
                "pads": PadCounts::default(),
            });
            if let Some(rpc) = rpc {
                body["rpc"] = rpc;
            }
            let mut r = http::json(503, &body);
            http::tag_error(&mut r, &e.code);
            r
        }
    }
}

/// `GET /healthz`: process liveness, with questlock's headers.
pub async fn healthz() -> Response {
    super::artifacts::qjson(200, &json!({"status": "ok"}))
}
