//! `/ui/journal`: the journal as a feed, newest first, filtered by kind, actor, scope and
//! subject, a page at a time.

use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;
use serde_json::Value;

use super::html::{Href, Html, Nav};
use super::{page, AppState};
use crate::api::Locker as _;
use crate::domain::event::kind;
use crate::ops::{disclose, OpError};
use crate::server::http::Query;
use crate::store::JournalQuery;

/// Entries a page shows unless `limit` says otherwise.
const PAGE: u64 = 50;
/// Most entries a page shows.
const MAX_PAGE: u64 = 500;

/// The kind filters offered: the families, then every kind.
const FAMILIES: &[&str] =
    &["pad.", "lease.", "manifest.", "step.", "artifact.", "token.", "key.", "repo."];

/// `GET /ui/journal?kind=&actor=&scope=&subject=&before=&limit=`.
pub async fn journal(
    State(s): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Response {
    let q = Query::parse(raw.as_deref());
    let text = |name: &str| q.get(name).map(str::trim).filter(|v| !v.is_empty()).map(str::to_owned);
    let (kind, actor, scope, subject) =
        (text("kind"), text("actor"), text("scope"), text("subject"));
    let numbers = (|| {
        let before = q.unsigned("before")?;
        let limit = q.unsigned("limit")?.unwrap_or(PAGE);
        if limit == 0 || limit > MAX_PAGE {
            return Err(OpError::bad_request(format!("limit must be between 1 and {MAX_PAGE}")));
        }
        Ok((before, limit))
    })();
    page(&s, &headers, Nav::Journal, move |ctx| {
        let (before, limit) = numbers?;
        let query = JournalQuery {
            kind: kind.clone(),
            actor: actor.clone(),
            scope: scope.clone(),
            subject: subject.clone(),
            before,
            limit,
            ..JournalQuery::default()
        };
        let entries = ctx.journal(&query)?.entries;
        let mut b = Html::new();
        filters(&mut b, [&kind, &actor, &scope, &subject]);
        if entries.is_empty() {
            b.m("<p class=\"muted\">No entries match.</p>");
        } else {
            b.m("<div class=\"scroll\"><table><thead><tr><th>#</th><th>Time</th><th>Kind</th>")
                .m("<th>Actor</th><th>Scope</th><th>Subject</th><th>Details</th><th>Hash</th>")
                .m("</tr></thead><tbody>");
            for e in &entries {
                if e.kind == disclose::REDACTED {
                    b.m("<tr class=\"redacted\">")
                        .td(e.seq)
                        .m("<td>")
                        .time(e.time)
                        .m("</td><td colspan=\"5\">an entry of another scope</td><td>")
                        .hash(&e.hash)
                        .m("</td></tr>");
                    continue;
                }
                b.m("<tr>").td(e.seq).m("<td>").time(e.time).m("</td><td class=\"nowrap\">");
                b.a(&Href::to("/ui/journal").q("kind", &e.kind), &e.kind)
                    .m("</td><td class=\"nowrap\">");
                b.a(&Href::to("/ui/journal").q("actor", &e.actor), &e.actor).m("</td>");
                b.td(&e.scope).m("<td class=\"subject\">");
                subject_link(&mut b, &e.subject, &e.scope);
                b.m("</td><td class=\"details\">").t(summary(&e.body)).m("</td><td>");
                b.hash(&e.hash).m("</td></tr>");
            }
            b.m("</tbody></table></div>");
        }
        // Paging: newest first, older pages before the oldest entry shown.
        b.m("<p class=\"paging\">");
        let here = |h: Href| {
            h.q_opt("kind", kind.as_deref())
                .q_opt("actor", actor.as_deref())
                .q_opt("scope", scope.as_deref())
                .q_opt("subject", subject.as_deref())
        };
        if before.is_some() {
            b.a(&here(Href::to("/ui/journal")), "← newest").m(" ");
        }
        match entries.last() {
            Some(last) if entries.len() as u64 == limit && last.seq > 1 => {
                let older = here(Href::to("/ui/journal")).q("before", &last.seq.to_string());
                b.a(&older, "older entries →");
            }
            _ => {
                b.m("<span class=\"muted\">the oldest entry is shown</span>");
            }
        }
        b.m("</p>");
        Ok(("Journal".to_owned(), b))
    })
    .await
}

/// The filter form, with the current values.
fn filters(b: &mut Html, [kind, actor, scope, subject]: [&Option<String>; 4]) {
    b.m("<form class=\"filters\" method=\"get\" action=\"/ui/journal\">");
    b.m("<label>Kind <select name=\"kind\"><option value=\"\">any</option>");
    for k in FAMILIES.iter().chain(kind::ALL) {
        b.m("<option value=\"").t(k).m("\"");
        if kind.as_deref() == Some(*k) {
            b.m(" selected");
        }
        b.m(">").t(k).m(if k.ends_with('.') { "*" } else { "" }).m("</option>");
    }
    b.m("</select></label>");
    for (label, name, value) in
        [("Actor", "actor", actor), ("Scope", "scope", scope), ("Subject", "subject", subject)]
    {
        b.m("<label>").t(label).m(" <input name=\"").t(name).m("\" value=\"");
        b.t(value.as_deref().unwrap_or("")).m("\"></label>");
    }
    b.m("<button type=\"submit\">Filter</button> <a href=\"/ui/journal\">clear</a></form>");
}

/// A subject, linked to its page when it has one.
pub(super) fn subject_link(b: &mut Html, subject: &str, scope: &str) {
    if let Some(pad) = subject.strip_prefix("pad:") {
        b.m("pad ").a(&Href::to("/ui/pads").seg(pad), pad);
    } else if let Some(work) = subject.strip_prefix("work:") {
        b.m("work ").a(&Href::to("/ui/work").seg(work).q("scope", scope), work);
    } else if let Some(key) = subject.strip_prefix("artifact:") {
        b.m("artifact ").a(&Href::to("/ui/artifacts").seg(key).q("scope", scope), key);
    } else {
        b.t(subject);
    }
}

/// Most characters of an entry's details shown.
const SUMMARY_CHARS: usize = 200;
/// Most characters of one value in the details (hashes are cut to their start).
const VALUE_CHARS: usize = 40;
/// Body fields the subject already names.
const IN_SUBJECT: &[&str] = &["pad_id", "work", "key"];

/// One value of an entry's body, short.
fn short(v: &Value) -> String {
    let text = match v {
        Value::String(s) => s.clone(),
        Value::Array(a) if a.iter().all(|x| !x.is_object() && !x.is_array()) => {
            let items: Vec<String> = a.iter().map(short).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Array(a) => format!("[{} items]", a.len()),
        Value::Object(m) => format!("{{{} fields}}", m.len()),
        other => other.to_string(),
    };
    if text.chars().count() > VALUE_CHARS {
        let cut: String = text.chars().take(16).collect();
        format!("{cut}…")
    } else {
        text
    }
}

/// An entry's body in one line, every credential's digest redacted whoever looks.
pub(super) fn summary(body: &Value) -> String {
    let mut body = body.clone();
    disclose::redact_secrets(&mut body);
    let mut out = String::new();
    match &body {
        Value::Object(m) => {
            for (k, v) in m {
                if v.is_null() || IN_SUBJECT.contains(&k.as_str()) {
                    continue;
                }
                if !out.is_empty() {
                    out.push_str(" · ");
                }
                out.push_str(k);
                out.push('=');
                out.push_str(&short(v));
                if out.chars().count() > SUMMARY_CHARS {
                    break;
                }
            }
        }
        Value::Null => {}
        other => out.push_str(&short(other)),
    }
    if out.chars().count() > SUMMARY_CHARS {
        out = out.chars().take(SUMMARY_CHARS).collect();
        out.push('…');
    }
    out
}
