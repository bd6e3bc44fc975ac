//! `/ui/artifacts` (each scope's keys) and `/ui/artifacts/{key}` (a key's versions and the
//! receipts of every publish tried on it: accepted, replayed or refused).

use axum::extract::{Path, RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;

use super::html::{Href, Html, Nav, Tone};
use super::{in_scope, page, AppState};
use crate::api::{ArtifactHistory, ListArtifacts, Locker as _};
use crate::domain::token::DEFAULT_SCOPE;
use crate::ops::artifact::audit::MAX_AUDIT_LIMIT;
use crate::ops::disclose;
use crate::server::http::Query;

/// `GET /ui/artifacts?scope=`.
pub async fn artifacts(
    State(s): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Response {
    let q = Query::parse(raw.as_deref());
    let only = q.get("scope").filter(|v| !v.is_empty()).map(str::to_owned);
    page(&s, &headers, Nav::Artifacts, move |ctx| {
        let scopes = match &only {
            Some(sc) if ctx.actor.is_operator() => vec![sc.clone()],
            _ => disclose::scopes(ctx)?,
        };
        let mut b = Html::new();
        if only.is_some() {
            b.m("<p class=\"filters\">").a(&Href::to("/ui/artifacts"), "every scope").m("</p>");
        }
        let mut any = false;
        for scope in &scopes {
            let list = in_scope(ctx, scope).artifact_list(ListArtifacts {
                limit: crate::ops::artifact::MAX_LIST_LIMIT,
                ..ListArtifacts::default()
            })?;
            if list.artifacts.is_empty() {
                continue;
            }
            any = true;
            b.m("<h2>Scope ").t(&list.scope).m("</h2>");
            b.m("<div class=\"scroll\"><table><thead><tr><th>Key</th><th>Version</th>")
                .m("<th>Bytes</th><th>SHA-256</th><th>By</th><th>Updated</th></tr></thead><tbody>");
            for a in &list.artifacts {
                b.m("<tr><td>")
                    .a(&Href::to("/ui/artifacts").seg(&a.key).q("scope", &list.scope), &a.key)
                    .m("</td>")
                    .td(a.version)
                    .td(a.size)
                    .m("<td>")
                    .hash(&a.sha256)
                    .m("</td>")
                    .td(&a.actor)
                    .m("<td>")
                    .time(a.updated_at)
                    .m("</td></tr>");
            }
            b.m("</tbody></table></div>");
        }
        if !any {
            b.m("<p class=\"muted\">No artifacts.</p>");
        }
        Ok(("Artifacts".to_owned(), b))
    })
    .await
}

/// `GET /ui/artifacts/{key}?scope=`.
pub async fn artifact(
    State(s): State<AppState>,
    Path(key): Path<String>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Response {
    let q = Query::parse(raw.as_deref());
    let scope = q.get("scope").filter(|v| !v.is_empty()).unwrap_or(DEFAULT_SCOPE).to_owned();
    page(&s, &headers, Nav::Artifacts, move |ctx| {
        let ctx = in_scope(ctx, &scope);
        let log = ctx.artifact_log(ArtifactHistory { key: &key, ..ArtifactHistory::default() })?;
        let audit = ctx.artifact_audit(MAX_AUDIT_LIMIT)?;
        let mut b = Html::new();
        b.m("<dl>")
            .pair("scope", &log.scope)
            .pair("current version", log.current_version)
            .m("</dl>");

        b.m("<section><h2>Versions</h2><div class=\"scroll\"><table><thead><tr><th>Version</th>")
            .m("<th>Bytes</th><th>SHA-256</th><th>By</th><th>Operation</th><th>Published</th>")
            .m("</tr></thead><tbody>");
        for v in log.versions.iter().rev() {
            b.m("<tr>").td(v.version).td(v.size).m("<td>").hash(&v.sha256).m("</td>");
            b.td(&v.actor).el("<td><code>", &v.op_id, "</code></td>").m("<td>");
            b.time(v.updated_at).m("</td></tr>");
        }
        b.m("</tbody></table></div></section>");

        let receipts: Vec<_> = audit.entries.iter().filter(|e| e.key == log.key).collect();
        b.m("<section><h2>Receipts</h2>");
        if receipts.is_empty() {
            b.m("<p class=\"muted\">No publish outcomes among the scope's newest ")
                .t(MAX_AUDIT_LIMIT)
                .m(".</p>");
        } else {
            b.m("<p class=\"muted\">Every publish tried on this key, newest first: a retry with ")
                .m("the same operation id is replayed, a stale expected version refused.</p>")
                .m("<div class=\"scroll\"><table><thead><tr><th>#</th><th>Outcome</th>")
                .m("<th>Expected</th><th>Current</th><th>Agent</th><th>Operation</th><th>Time</th>")
                .m("</tr></thead><tbody>");
            for e in receipts {
                let tone = match e.outcome.as_str() {
                    "accepted" => Tone::Ok,
                    "replayed" => Tone::Plain,
                    _ => Tone::Bad,
                };
                b.m("<tr>").td(e.id).m("<td>").badge(tone, &e.outcome).m("</td>");
                b.td(e.expected_version).td(e.current_version).td(&e.agent_id);
                b.el("<td><code>", &e.operation_id, "</code></td>").m("<td>");
                b.time(e.created_at).m("</td></tr>");
            }
            b.m("</tbody></table></div>");
        }
        b.m("</section>");
        Ok((format!("Artifact {}", log.key), b))
    })
    .await
}
