//! `/ui/pads` (the pads the viewer may see) and `/ui/pads/{pad_id}` (one pad: its blocks'
//! hashes, the chain's verdict, its seal and its tickets' states, never a payload or a
//! credential).

use axum::extract::{Path, RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;

use super::html::{Href, Html, Nav, Tone};
use super::{page, AppState};
use crate::api::{ListPads, Locker as _, VerifyPad};
use crate::domain::pad::{PadState, TicketType};
use crate::ops::pad::{self, TicketStatus};
use crate::server::http::Query;

/// Pads a page lists.
const PAGE: usize = 100;

fn state_badge(b: &mut Html, st: PadState) {
    let tone = match st {
        PadState::Open => Tone::Plain,
        PadState::Sealed => Tone::Ok,
        PadState::Expired => Tone::Warn,
    };
    b.badge(tone, st.as_str());
}

/// `GET /ui/pads?state=&after=`.
pub async fn pads(
    State(s): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Response {
    let q = Query::parse(raw.as_deref());
    let after = q.get("after").filter(|a| !a.is_empty()).map(str::to_owned);
    let state = q.get("state").and_then(|v| match v {
        "open" => Some(PadState::Open),
        "sealed" => Some(PadState::Sealed),
        "expired" => Some(PadState::Expired),
        _ => None,
    });
    page(&s, &headers, Nav::Pads, move |ctx| {
        let list = ctx.pad_list(ListPads { state, limit: PAGE, after: after.as_deref() })?.pads;
        let mut b = Html::new();
        b.m("<p class=\"filters\">Show: <a href=\"/ui/pads\">all</a>");
        for st in ["open", "sealed", "expired"] {
            b.m(" · ").a(&Href::to("/ui/pads").q("state", st), st);
        }
        b.m("</p>");
        if list.is_empty() {
            b.m("<p class=\"muted\">No pads.</p>");
        } else {
            b.m("<div class=\"scroll\"><table><thead><tr><th>Pad</th><th>State</th>")
                .m("<th>Blocks</th><th>Bytes</th><th>Head</th><th>Created</th><th>Expires</th>")
                .m("<th>Sealed</th></tr></thead><tbody>");
            for p in &list {
                b.m("<tr><td>").a(&Href::to("/ui/pads").seg(&p.pad_id), &p.pad_id).m("</td><td>");
                state_badge(&mut b, p.state);
                b.m("</td>")
                    .td(format!("{} / {}", p.block_count, p.max_blocks))
                    .td(p.total_bytes)
                    .m("<td>")
                    .hash(&p.head_hash)
                    .m("</td><td>")
                    .time(p.created_at)
                    .m("</td><td>")
                    .time(p.expires_at)
                    .m("</td><td>")
                    .time_opt(p.sealed_at)
                    .m("</td></tr>");
            }
            b.m("</tbody></table></div>");
        }
        if let (true, Some(last)) = (list.len() == PAGE, list.last()) {
            let st = state.map(PadState::as_str);
            let next = Href::to("/ui/pads").q_opt("state", st).q("after", &last.pad_id);
            b.m("<p class=\"paging\">").a(&next, "more pads →").m("</p>");
        }
        Ok(("Pads".to_owned(), b))
    })
    .await
}

/// `GET /ui/pads/{pad_id}`.
pub async fn pad(
    State(s): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    page(&s, &headers, Nav::Pads, move |ctx| {
        // Inspecting checks the viewer may see the pad at all (its scope) before anything else.
        let p = pad::inspect(ctx, &id)?;
        let report = ctx.pad_verify(VerifyPad { pad: &id, expect_head: None })?;
        let m = &p.manifest;
        let mut b = Html::new();

        b.m("<section><h2>Chain</h2><p class=\"verdict\">").verdict(report.ok);
        b.m(" ").t(report.blocks_verified).m(" of ").t(report.block_count).m(" blocks re-hashed");
        if report.blocks_pruned > 0 {
            b.m(" (").t(report.blocks_pruned).m(" pruned by gc: hashes only)");
        }
        b.m("</p><dl>");
        b.dt("stored head").hash_full(&report.head_hash).dd_end();
        b.dt("computed head").hash_full(&report.computed_head).dd_end();
        if let Some(j) = &report.journal_head {
            b.dt("journal's head").hash_full(j).dd_end();
        }
        b.m("</dl>");
        if !report.problems.is_empty() {
            b.m("<ul class=\"problems\">");
            for pr in &report.problems {
                b.m("<li>").t(&pr.kind).m(": ").t(&pr.detail).m("</li>");
            }
            b.m("</ul>");
        }
        b.m("</section>");

        b.m("<section><h2>Pad</h2><dl>");
        b.dt("state");
        state_badge(&mut b, m.state);
        b.dd_end();
        b.pair("scope", &p.scope)
            .pair("blocks", format!("{} of {}", m.block_count, m.max_blocks))
            .pair("bytes", format!("{} of {}", m.total_bytes, m.max_bytes));
        b.dt("created").time(m.created_at).dd_end();
        b.dt("expires").time(m.expires_at).dd_end();
        b.dt("sealed");
        match m.sealed_at {
            Some(at) => {
                b.badge(Tone::Ok, "sealed").m(" at ").time(at).m(", head ").hash(&m.head_hash);
            }
            None => {
                b.m("not sealed: blocks may still be appended until it expires");
            }
        }
        b.dd_end();
        if let Some(at) = m.pruned_at {
            b.dt("pruned").time(at).dd_end();
        }
        b.m("</dl><p>")
            .a(&Href::to("/ui/journal").q("subject", &format!("pad:{}", m.pad_id)), "its journal entries")
            .m("</p></section>");

        b.m("<section><h2>Blocks</h2>");
        if p.blocks.is_empty() {
            b.m("<p class=\"muted\">No blocks.</p>");
        } else {
            b.m("<div class=\"scroll\"><table><thead><tr><th>#</th><th>Appended</th><th>Type</th>")
                .m("<th>Bytes</th><th>Previous hash</th><th>Hash</th></tr></thead><tbody>");
            for blk in &p.blocks {
                b.m("<tr>").td(blk.seq).m("<td>").time(blk.created_at).m("</td>");
                b.td(&blk.content_type).m("<td>").t(blk.bytes);
                if blk.pruned {
                    b.m(" ").badge(Tone::Warn, "pruned");
                }
                b.m("</td><td>").hash(&blk.prev_hash).m("</td><td>").hash(&blk.curr_hash);
                b.m("</td></tr>");
            }
            b.m("</tbody></table></div>");
        }
        b.m("</section>");

        b.m("<section><h2>Read tickets</h2>");
        if p.tickets.is_empty() {
            b.m("<p class=\"muted\">No tickets (the demo pad needs none).</p>");
        } else {
            b.m("<p class=\"muted\">Tickets are shown by number; neither the ticket nor its id ")
                .m("is ever shown here.</p>")
                .m("<div class=\"scroll\"><table><thead><tr><th>#</th><th>Type</th><th>State</th>")
                .m("<th>Minted</th><th>By</th><th>Read lease</th><th>Revoked</th></tr></thead><tbody>");
            for t in &p.tickets {
                let tone = match t.status {
                    TicketStatus::Active | TicketStatus::Unused => Tone::Ok,
                    TicketStatus::Reading => Tone::Plain,
                    TicketStatus::Used | TicketStatus::Missing => Tone::Warn,
                    TicketStatus::Revoked => Tone::Bad,
                };
                b.m("<tr>").td(t.number).td(match t.ticket_type {
                    TicketType::ReadOnce => "read_once",
                    TicketType::ReadUnlimited => "read_unlimited",
                });
                b.m("<td>").badge(tone, t.status.as_str()).m("</td><td>").time(t.minted_at);
                b.m("</td>").td(&t.minted_by).m("<td>");
                match (t.lease_started_at, t.lease_ends_at) {
                    (Some(from), Some(to)) => {
                        b.time(from).m(" → ").time(to);
                    }
                    _ => {
                        b.m("<span class=\"muted\">—</span>");
                    }
                }
                b.m("</td><td>").time_opt(t.revoked_at).m("</td></tr>");
            }
            b.m("</tbody></table></div>");
        }
        b.m("</section>");
        Ok((format!("Pad {}", m.pad_id), b))
    })
    .await
}
