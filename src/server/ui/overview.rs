//! `/ui/`: the overview (counts, the latest checkpoint, the newest verification) and `/ui`,
//! which goes there.

use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;

use super::html::{Href, Html, Nav, Tone};
use super::{in_scope, page, verified_cache, AppState};
use crate::api::{ListArtifacts, ListLeases, ListPads, Locker as _};
use crate::domain::pad::PadState;
use crate::domain::work::LeaseState;
use crate::ops::{disclose, OpResult};
use crate::store::JournalQuery;

/// `GET /ui`: to `/ui/`.
pub async fn root() -> Response {
    let mut r = Response::new(axum::body::Body::empty());
    *r.status_mut() = StatusCode::PERMANENT_REDIRECT;
    r.headers_mut().insert(header::LOCATION, HeaderValue::from_static("/ui/"));
    r
}

/// `GET /ui/`: the overview.
pub async fn overview(State(s): State<AppState>, headers: HeaderMap) -> Response {
    s.caught_up().await;
    let ui = verified_cache(&s);
    let r = page(&s, &headers, Nav::Overview, move |ctx| {
        let mut b = Html::new();
        b.m("<div class=\"cards\">");

        // The journal.
        let newest = ctx.journal(&JournalQuery { limit: 1, ..JournalQuery::default() })?;
        b.m("<section class=\"card\"><h2><a href=\"/ui/journal\">Journal</a></h2>");
        match newest.entries.first() {
            Some(e) => {
                b.m("<p class=\"big\">").t(e.seq).m("</p><p>entries; head ").hash(&e.hash);
                b.m("</p>");
            }
            None => {
                b.m("<p class=\"big\">0</p><p>entries</p>");
            }
        }
        b.m("</section>");

        // Pads.
        let pads = ctx.pad_list(ListPads { limit: 100_000, ..ListPads::default() })?.pads;
        let count = |st: PadState| pads.iter().filter(|p| p.state == st).count();
        b.m("<section class=\"card\"><h2><a href=\"/ui/pads\">Pads</a></h2><p class=\"big\">")
            .t(pads.len())
            .m("</p><p>")
            .t(count(PadState::Open))
            .m(" open · ")
            .t(count(PadState::Sealed))
            .m(" sealed · ")
            .t(count(PadState::Expired))
            .m(" expired</p></section>");

        // Work and artifacts, over the scopes the viewer may see.
        let scopes = disclose::scopes(ctx)?;
        let (mut active, mut keys) = (0usize, 0usize);
        for scope in &scopes {
            let c = in_scope(ctx, scope);
            active += c
                .lease_list(ListLeases {
                    state: Some(LeaseState::Active),
                    ..ListLeases::default()
                })?
                .leases
                .len();
            keys += c.artifact_list(ListArtifacts::default())?.artifacts.len();
        }
        b.m("<section class=\"card\"><h2><a href=\"/ui/work\">Work</a></h2><p class=\"big\">")
            .t(active)
            .m("</p><p>active leases in ")
            .t(scopes.len())
            .m(if scopes.len() == 1 { " scope" } else { " scopes" })
            .m("</p></section>");
        b.m("<section class=\"card\"><h2><a href=\"/ui/artifacts\">Artifacts</a></h2>")
            .m("<p class=\"big\">")
            .t(keys)
            .m("</p><p>keys</p></section>");

        // The log.
        b.m("<section class=\"card\"><h2><a href=\"/ui/log\">Log</a></h2>");
        checkpoint_card(ctx, &mut b);
        let verified = ui.lock().ok().and_then(|v| v.as_ref().map(|(_, at, r)| (*at, r.ok)));
        match verified {
            Some((at, ok)) => {
                b.m("<p>verify ").verdict(ok).m(" at ").time(at).m("</p>");
            }
            None => {
                b.m("<p><a href=\"/ui/log\">run verify</a></p>");
            }
        }
        b.m("</section></div>");

        b.m("<h2>Scopes</h2><ul class=\"inline\">");
        for scope in &scopes {
            b.m("<li>")
                .a(&Href::to("/ui/work").q("scope", scope), scope)
                .m(" (")
                .a(&Href::to("/ui/artifacts").q("scope", scope), "artifacts")
                .m(")</li>");
        }
        b.m("</ul>");
        Ok(("Overview".to_owned(), b))
    })
    .await;
    s.journal_may_have_grown();
    r
}

/// The latest checkpoint's size, time and cosigners (or why there is none).
fn checkpoint_card(ctx: &mut crate::ops::Ctx<'_>, b: &mut Html) {
    let cp: OpResult<_> = ctx.checkpoint();
    match cp {
        Ok(cp) => {
            let witnesses = super::log::signatures(&cp).into_iter().filter(|s| !s.log).count();
            b.m("<p class=\"big\">")
                .t(cp.size)
                .m("</p><p>entries in the latest checkpoint, signed ");
            b.time(cp.signed_at).m("; ");
            if witnesses == 0 {
                b.badge(Tone::Plain, "no cosignatures");
            } else {
                b.badge(Tone::Ok, format!("{witnesses} cosigned"));
            }
            b.m("</p>");
        }
        Err(e) => {
            b.m("<p>no checkpoint: ").t(&e.detail).m("</p>");
        }
    }
}
