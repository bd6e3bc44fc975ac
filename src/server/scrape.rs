//! `GET /metrics`: the server's counters and histograms ([`crate::obs::metrics`]), the
//! repository's gauges read from the store at each scrape, the file system's free space and
//! the process's own metrics, in Prometheus' text format.
//!
//! Like `/health`, a scrape takes no slot and no share of its peer: it is answered when every
//! slot is busy. With `--require-token` it needs an agent's bearer token (any agent: the
//! figures are counts, never names); a `--metrics-listen` address serves it without one.

use axum::body::Body;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;

use super::{caller, http, AppState};
use crate::obs::metrics::{metrics, Exposition};
use crate::obs::process;
use crate::ops::{self, ErrorKind};

/// `GET /metrics` on the main address.
pub async fn scrape(State(s): State<AppState>, headers: HeaderMap) -> Response {
    let token = match caller::caller(&s, &headers) {
        Ok(t) => t,
        Err(e) => return http::error_response(&e),
    };
    exposition(&s, token).await
}

/// `GET /metrics` on the `--metrics-listen` address: no token.
pub async fn scrape_open(State(s): State<AppState>) -> Response {
    exposition(&s, None).await
}

async fn exposition(s: &AppState, token: Option<crate::domain::secret::Secret>) -> Response {
    let read = s
        .health_read(move |ctx| {
            if let Some(t) = token {
                ctx.actor = ops::auth::authenticate(&mut *ctx.store, &t)?;
            }
            ops::status::gauges(ctx)
        })
        .await;
    let gauges = match read {
        Ok(g) => Some(g),
        Err(e) if e.kind == ErrorKind::Unauthorized => return http::error_response(&e),
        Err(_) => None,
    };
    let mut out = Exposition::default();
    metrics().write(&mut out);
    out.gauge(
        "locker_store_up",
        "Whether the last scrape could read the store (1) or not (0).",
        if gauges.is_some() { 1.0 } else { 0.0 },
    );
    if let Some(g) = gauges {
        let now = s.now();
        let st = &g.status;
        out.gauge(
            "locker_journal_entries",
            "Entries in the repository's journal.",
            st.journal.entries as f64,
        );
        if let Some(t) = g.head_time {
            out.gauge(
                "locker_journal_head_age_seconds",
                "Seconds since the newest journal entry was written.",
                (now - t).max(0) as f64,
            );
        }
        out.gauges(
            "locker_pads",
            "Pads by state.",
            "state",
            &[
                ("open", st.pads.open as f64),
                ("sealed", st.pads.sealed as f64),
                ("expired", g.expired_pads as f64),
            ],
        );
        out.gauges(
            "locker_leases",
            "Leases by state: active, expired (past their expiry, not yet reaped), abandoned \
             (reaped).",
            "state",
            &[
                ("active", st.leases.active as f64),
                ("expired", st.leases.expired as f64),
                ("abandoned", st.leases.abandoned as f64),
            ],
        );
        if let Some(c) = &st.checkpoint {
            out.gauge(
                "locker_checkpoint_tree_size",
                "Journal entries the newest signed checkpoint covers.",
                c.size as f64,
            );
            out.gauge(
                "locker_checkpoint_age_seconds",
                "Seconds since the newest checkpoint was signed.",
                c.age_seconds as f64,
            );
        }
    }
    if let Some(d) = s.options().data_dir.as_deref().and_then(|p| process::disk(p).ok()) {
        out.gauge(
            "locker_disk_free_bytes",
            "Bytes free (to an unprivileged user) on the file system holding the repository.",
            d.free as f64,
        );
        out.gauge(
            "locker_disk_size_bytes",
            "Size in bytes of the file system holding the repository.",
            d.total as f64,
        );
    }
    process::write(&mut out);
    let mut r = Response::new(Body::from(out.into_string()));
    *r.status_mut() = StatusCode::OK;
    r.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(Exposition::CONTENT_TYPE));
    r
}
