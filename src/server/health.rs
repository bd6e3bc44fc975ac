//! `GET /health` (agent-locker's shape: liveness, the payment RPC node, pad counts) and
//! `GET /healthz` (questlock's: liveness only).

use axum::extract::State;
use axum::response::Response;
use serde::Serialize;
use serde_json::{json, Value};

use super::http::{self, anonymous};
use super::AppState;
use crate::ops::pad::{self, PadCounts};

/// `GET /health`'s body: the peer's shape.
#[derive(Debug, Serialize)]
struct Health {
    status: &'static str,
    version: &'static str,
    database: Value,
    rpc: Value,
    pads: PadCounts,
}

/// `GET /health` (and `HEAD`): liveness plus pad counts, in the peer's shape.
pub async fn health(State(s): State<AppState>) -> Response {
    // In txid mode `rpc.reachable` is a 2-second `eth_chainId` probe (the right chain too).
    let rpc = match s.options().payment.clone() {
        None => json!({"network": "base", "reachable": true}),
        Some(cfg) => {
            let network = cfg.network();
            let up = tokio::task::spawn_blocking(move || {
                crate::rpc::probe(&cfg, std::time::Duration::from_secs(2)).is_ok()
            })
            .await
            .unwrap_or(false);
            json!({"network": network, "reachable": up})
        }
    };
    match s.run(anonymous(), pad::counts).await {
        Ok(pads) => http::json(
            200,
            &Health {
                status: "ok",
                version: env!("CARGO_PKG_VERSION"),
                database: json!({"writable": true, "wal_mode": true}),
                rpc,
                pads,
            },
        ),
        Err(e) => {
            let mut r = http::json(
                503,
                &json!({
                    "status": "unavailable",
                    "version": env!("CARGO_PKG_VERSION"),
                    "database": {"writable": false, "wal_mode": Value::Null},
                    "rpc": {"network": "base", "reachable": Value::Null},
                    "pads": PadCounts::default(),
                }),
            );
            http::tag_error(&mut r, &e.code);
            r
        }
    }
}

/// `GET /healthz`: process liveness, with questlock's headers.
pub async fn healthz() -> Response {
    super::artifacts::qjson(200, &json!({"status": "ok"}))
}
