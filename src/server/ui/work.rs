//! `/ui/work` (who holds which work item, per scope) and `/ui/work/{work}` (one work item: its
//! lease, its plan against the steps taken, and its history with the integrity verdict).

use std::collections::BTreeMap;

use axum::extract::{Path, RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;
use serde_json::Value;

use super::html::{Href, Html, Nav, Tone};
use super::journal::summary;
use super::{in_scope, page, AppState};
use crate::api::{ListLeases, Locker as _};
use crate::domain::event::kind;
use crate::domain::token::DEFAULT_SCOPE;
use crate::domain::work::LeaseState;
use crate::ops::work::lease::LeaseView;
use crate::ops::{disclose, ErrorKind};
use crate::server::http::Query;

fn state_badge(b: &mut Html, st: LeaseState) {
    let tone = match st {
        LeaseState::Active => Tone::Plain,
        LeaseState::Completed => Tone::Ok,
        LeaseState::Released => Tone::Plain,
        LeaseState::Abandoned => Tone::Warn,
    };
    b.badge(tone, st.as_str());
}

fn parse_state(v: Option<&str>) -> Option<LeaseState> {
    match v? {
        "active" => Some(LeaseState::Active),
        "completed" => Some(LeaseState::Completed),
        "released" => Some(LeaseState::Released),
        "abandoned" => Some(LeaseState::Abandoned),
        _ => None,
    }
}

/// `GET /ui/work?scope=&state=`: each work item's newest lease.
pub async fn work(
    State(s): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Response {
    let q = Query::parse(raw.as_deref());
    let only = q.get("scope").filter(|v| !v.is_empty()).map(str::to_owned);
    let state = parse_state(q.get("state"));
    let r = page(&s, &headers, Nav::Work, move |ctx| {
        let scopes = match &only {
            Some(sc) if ctx.actor.is_operator() => vec![sc.clone()],
            _ => disclose::scopes(ctx)?,
        };
        let mut b = Html::new();
        b.m("<p class=\"filters\">Show: ")
            .a(&Href::to("/ui/work").q_opt("scope", only.as_deref()), "all");
        for st in ["active", "completed", "released", "abandoned"] {
            b.m(" · ").a(&Href::to("/ui/work").q_opt("scope", only.as_deref()).q("state", st), st);
        }
        if only.is_some() {
            b.m(" · ").a(&Href::to("/ui/work"), "every scope");
        }
        b.m("</p>");
        let mut rows: Vec<LeaseView> = Vec::new();
        for scope in &scopes {
            let list = in_scope(ctx, scope).lease_list(ListLeases {
                limit: crate::ops::work::lease::MAX_LIST_LIMIT,
                ..ListLeases::default()
            })?;
            // Each work item's newest lease (the highest fence).
            let mut newest: BTreeMap<String, LeaseView> = BTreeMap::new();
            for l in list.leases {
                match newest.get(&l.work) {
                    Some(n) if n.fence >= l.fence => {}
                    _ => {
                        newest.insert(l.work.clone(), l);
                    }
                }
            }
            rows.extend(newest.into_values().filter(|l| state.is_none_or(|st| l.state == st)));
        }
        if rows.is_empty() {
            b.m("<p class=\"muted\">No work items.</p>");
        } else {
            b.m("<div class=\"scroll\"><table><thead><tr><th>Work item</th><th>Scope</th>")
                .m("<th>Holder</th><th>State</th><th>Fence</th><th>Expires / ended</th>")
                .m("<th>Heartbeats</th></tr></thead><tbody>");
            for l in &rows {
                b.m("<tr><td>")
                    .a(&Href::to("/ui/work").seg(&l.work).q("scope", &l.scope), &l.work)
                    .m("</td>")
                    .td(&l.scope)
                    .td(&l.holder)
                    .m("<td>");
                state_badge(&mut b, l.state);
                b.m("</td>").td(l.fence).m("<td>");
                match l.ended_at {
                    Some(at) => b.time(at),
                    None => b.time(l.expires_at),
                };
                b.m("</td>").td(l.heartbeats).m("</tr>");
            }
            b.m("</tbody></table></div>");
        }
        Ok(("Work".to_owned(), b))
    })
    .await;
    s.journal_may_have_grown();
    r
}

/// `GET /ui/work/{work}?scope=`: one work item.
pub async fn work_item(
    State(s): State<AppState>,
    Path(work): Path<String>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Response {
    let q = Query::parse(raw.as_deref());
    let scope = q.get("scope").filter(|v| !v.is_empty()).unwrap_or(DEFAULT_SCOPE).to_owned();
    let r = page(&s, &headers, Nav::Work, move |ctx| {
        let ctx = in_scope(ctx, &scope);
        let status = ctx.lease_show(&work)?;
        let diff = match ctx.plan_diff(&work) {
            Ok(d) => Some(d),
            Err(e) if e.kind == ErrorKind::NotFound => None,
            Err(e) => return Err(e),
        };
        let history = ctx.work_history(&work)?;
        let l = &status.lease;
        let mut b = Html::new();

        b.m("<section><h2>Lease</h2><dl>");
        b.pair("scope", &l.scope).pair("holder", &l.holder);
        b.dt("state");
        state_badge(&mut b, l.state);
        b.dd_end();
        b.pair("fence", l.fence).pair("attempts", status.attempts);
        b.dt("acquired").time(l.acquired_at).dd_end();
        match l.ended_at {
            Some(at) => {
                b.dt("ended").time(at).dd_end();
            }
            None => {
                b.dt("expires").time(l.expires_at);
                b.m(" (TTL ").t(l.ttl).m(" s, renewed by heartbeats)").dd_end();
            }
        }
        b.dt("heartbeats").t(l.heartbeats);
        if let Some(at) = l.last_heartbeat_at {
            b.m(", last ").time(at);
        }
        b.dd_end();
        if let Some(d) = &l.heartbeat_details {
            b.pair("last heartbeat's details", d);
        }
        if let Some(r) = &l.result {
            b.pair("result", r);
        }
        b.m("</dl></section>");

        plan_section(&mut b, diff.as_ref(), &history.entries);

        b.m("<section><h2>History</h2><p class=\"verdict\">integrity ").verdict(history.ok);
        b.m(" ")
            .t(history.entries.len())
            .m(" journal entries, each checked against its hash and the store</p>");
        if !history.problems.is_empty() {
            b.m("<ul class=\"problems\">");
            for p in &history.problems {
                b.m("<li>");
                if let Some(seq) = p.seq {
                    b.m("entry ").t(seq).m(": ");
                }
                b.t(&p.detail).m("</li>");
            }
            b.m("</ul>");
        }
        b.m("<div class=\"scroll\"><table><thead><tr><th>#</th><th>Time</th><th>Kind</th>")
            .m("<th>Actor</th><th>Check</th><th>Details</th></tr></thead><tbody>");
        for e in &history.entries {
            b.m("<tr>").td(e.seq).m("<td>").time(e.time).m("</td>").td(&e.kind).td(&e.actor);
            b.m("<td>").verdict(e.ok).m("</td><td class=\"details\">").t(summary(&e.body));
            b.m("</td></tr>");
        }
        b.m("</tbody></table></div></section>");
        Ok((format!("Work item {work}"), b))
    })
    .await;
    s.journal_may_have_grown();
    r
}

/// The plan against the steps taken under the newest lease.
fn plan_section(
    b: &mut Html,
    diff: Option<&crate::ops::work::plan::Diff>,
    entries: &[crate::ops::work::history::HistoryEntry],
) {
    b.m("<section><h2>Plan and steps</h2>");
    let Some(d) = diff else {
        b.m("<p class=\"muted\">No plan or steps.</p></section>");
        return;
    };
    b.m("<p class=\"verdict\">");
    if !d.has_plan {
        b.badge(Tone::Plain, "no plan");
    } else if d.clean {
        b.badge(Tone::Ok, "clean");
    } else {
        let (h, e) = (d.holes.len(), d.extras.len());
        let (hs, es) = (if h == 1 { "" } else { "s" }, if e == 1 { "" } else { "s" });
        b.badge(Tone::Warn, format!("{h} hole{hs}, {e} extra{es}"));
    }
    if let Some(v) = d.plan_version {
        b.m(" plan version ").t(v);
    }
    b.m(" · steps of the lease with fence ").t(d.fence).m("</p>");
    if d.plan_pruned {
        b.m("<p class=\"muted\">The plan's steps were pruned by <code>locker gc</code>.</p>");
    }
    // The steps recorded under the newest lease, from the journal.
    let taken: Vec<(&str, i64, &str)> = entries
        .iter()
        .filter(|e| e.kind == kind::STEP_RECORD)
        .filter(|e| e.body.get("fence").and_then(Value::as_u64) == Some(d.fence))
        .filter_map(|e| Some((e.body.get("step")?.as_str()?, e.time, e.actor.as_str())))
        .collect();
    let when = |b: &mut Html, step: &str| match taken.iter().find(|(s, ..)| *s == step) {
        Some((_, at, by)) => {
            b.m("<td>").time(*at).m("</td>").td(*by);
        }
        None => {
            b.m("<td><span class=\"muted\">—</span></td><td></td>");
        }
    };
    b.m("<div class=\"scroll\"><table><thead><tr><th>Step</th><th>Planned</th><th>Executed</th>")
        .m("<th>Recorded</th><th>By</th></tr></thead><tbody>");
    for step in &d.planned {
        let hole = d.holes.contains(step);
        b.m("<tr>").td(step).m("<td>yes</td><td>");
        if hole {
            b.badge(Tone::Warn, "hole");
        } else {
            b.badge(Tone::Ok, "done");
        }
        b.m("</td>");
        when(b, step);
        b.m("</tr>");
    }
    for step in &d.extras {
        b.m("<tr>").td(step).m("<td>no</td><td>").badge(Tone::Warn, "extra").m("</td>");
        when(b, step);
        b.m("</tr>");
    }
    b.m("</tbody></table></div>");
    if !d.earlier_lease_steps.is_empty() {
        b.m("<p class=\"muted\">Taken only under earlier leases (they do not count): ");
        for (i, s) in d.earlier_lease_steps.iter().enumerate() {
            if i > 0 {
                b.m(", ");
            }
            b.el("<code>", s, "</code>");
        }
        b.m("</p>");
    }
    b.m("</section>");
}
