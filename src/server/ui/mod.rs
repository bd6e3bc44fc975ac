//! The web view for people: read-only, server-rendered HTML under `/ui/`.
//!
//! Every page reads through the same operations as the JSON routes ([`crate::api::Locker`] on
//! a pooled store), as whoever looks: the **operator** (every scope), or an **agent** (its own
//! scope, with [`crate::ops::disclose`]'s rules, exactly as on the JSON routes). Who looks:
//!
//! - a credential, from `Authorization: Bearer` or else the `locker_ui` cookie that
//!   `POST /ui/login` sets: the operator's UI token (`locker serve --ui-token-file`, compared in
//!   constant time) or an agent's token (`locker token create`);
//! - no credential: the operator when the server listens on loopback without
//!   `--require-token`; otherwise a 401 page that links to the sign-in form.
//!
//! No page shows a write key, a ticket, a ticket id, a token or its digest, or a lease id:
//! journal bodies go through [`crate::ops::disclose::redact_secrets`] whoever looks, and pads
//! are inspected without their credentials ([`crate::ops::pad::inspect`]). Every response
//! under `/ui` carries a strict Content-Security-Policy (the one stylesheet is
//! `/ui/style.css`; no script, no inline style), `nosniff`, `no-referrer` and `no-store`
//! ([`secure`]). Only `GET` (and `HEAD`) is served, except the sign-in form's `POST`.

mod artifacts;
mod html;
mod journal;
mod log;
mod overview;
mod pads;
mod session;
mod work;

use std::sync::Arc;

use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;

use super::AppState;
use crate::domain::secret::Secret;
use crate::ops::{self, Actor, ErrorKind, OpError, OpResult};

pub use artifacts::{artifact, artifacts};
pub use journal::journal;
pub use log::log;
pub use overview::{overview, root};
pub use pads::{pad, pads};
pub use session::{favicon, login, login_form, logout, style};
pub use work::{work, work_item};

use html::{layout, Html, Nav, Who};

/// The Content-Security-Policy of every `/ui` response.
pub const CSP: &str = "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; \
                       form-action 'self'; frame-ancestors 'none'";

/// The cookie `POST /ui/login` sets.
const COOKIE: &str = "locker_ui";

/// Whether a path belongs to the view.
pub fn is_ui(path: &str) -> bool {
    path == "/ui" || path.starts_with("/ui/")
}

/// The security headers of every `/ui` response (a handler may have chosen its own
/// `Referrer-Policy`: the sign-in form does).
pub fn secure(resp: &mut Response) {
    let h = resp.headers_mut();
    h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.entry(header::REFERRER_POLICY).or_insert(HeaderValue::from_static("no-referrer"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
}

/// Who looks at a page.
#[derive(Clone)]
enum Viewer {
    /// Everything, in every scope.
    Operator { cookie: bool },
    /// An agent's token: its scope only.
    Agent { token: Secret, cookie: bool },
}

impl Viewer {
    fn cookie(&self) -> bool {
        match self {
            Self::Operator { cookie } | Self::Agent { cookie, .. } => *cookie,
        }
    }
}

/// The credential a request carries: the bearer token, else the cookie (and whether it was the
/// cookie).
fn credential(headers: &HeaderMap) -> Option<(Secret, bool)> {
    if let Some(t) = super::http::bearer_token(headers) {
        return Some((t, false));
    }
    for value in headers.get_all(header::COOKIE) {
        let Ok(text) = value.to_str() else { continue };
        for pair in text.split(';') {
            if let Some((name, v)) = pair.trim().split_once('=') {
                if name == COOKIE && !v.is_empty() {
                    let decoded: String = form_urlencoded::parse(format!("v={v}").as_bytes())
                        .next()
                        .map(|(_, v)| v.into_owned())
                        .unwrap_or_default();
                    return Some((Secret::new(decoded), true));
                }
            }
        }
    }
    None
}

/// Whether `s` is the operator's UI token (in constant time).
fn is_ui_token(s: &AppState, candidate: &Secret) -> bool {
    s.options().ui_token.as_ref().is_some_and(|t| candidate.matches(&t.digest()))
}

/// Whether the server shows the operator's view to a request without a credential.
fn open(s: &AppState) -> bool {
    s.options().listen.is_some_and(|ip| ip.is_loopback()) && !s.options().require_token
}

/// Who looks, or the 401 page.
fn viewer(s: &AppState, headers: &HeaderMap) -> Result<Viewer, Response> {
    match credential(headers) {
        Some((c, cookie)) if is_ui_token(s, &c) => Ok(Viewer::Operator { cookie }),
        Some((token, cookie)) => Ok(Viewer::Agent { token, cookie }),
        None if open(s) => Ok(Viewer::Operator { cookie: false }),
        None => Err(unauthorized(false, "this view needs a token")),
    }
}

/// Runs a read as the viewer: the operator (who may move to any scope, see [`in_scope`]), or
/// the agent whose token it is.
async fn run_as<T, F>(s: &AppState, v: &Viewer, f: F) -> OpResult<T>
where
    T: Send + 'static,
    F: FnOnce(&mut ops::Ctx<'_>) -> OpResult<T> + Send + 'static,
{
    match v {
        Viewer::Operator { .. } => s.run(Actor::operator(), f).await,
        Viewer::Agent { token, .. } => s.run_as_token(token.clone(), f).await,
    }
}

/// Moves the operator to `scope` for the next operations; anyone else stays in its own.
fn in_scope<'c, 'a>(ctx: &'c mut ops::Ctx<'a>, scope: &str) -> &'c mut ops::Ctx<'a> {
    if ctx.actor.is_operator() && ctx.actor.scope != scope {
        ctx.actor = Actor::operator_in(scope);
    }
    ctx
}

/// How the header names the viewer.
fn who(v: &Viewer, actor: Option<&Actor>) -> Who {
    let label = match (v, actor) {
        (Viewer::Operator { .. }, _) => "operator".to_owned(),
        (Viewer::Agent { .. }, Some(a)) => format!("agent {} · scope {}", a.name, a.scope),
        (Viewer::Agent { .. }, None) => "agent".to_owned(),
    };
    Who { label: Some(label), cookie: v.cookie() }
}

/// A page's title and body.
type Rendered = (String, Html);

/// Renders a page in section `nav`: `f` reads (as the viewer) and writes the body.
async fn page<F>(s: &AppState, headers: &HeaderMap, nav: Nav, f: F) -> Response
where
    F: FnOnce(&mut ops::Ctx<'_>) -> OpResult<Rendered> + Send + 'static,
{
    let v = match viewer(s, headers) {
        Ok(v) => v,
        Err(r) => return r,
    };
    let result = run_as(s, &v, move |ctx| {
        let me = ctx.actor.clone();
        let out = f(ctx)?;
        Ok((out, me))
    })
    .await;
    match result {
        Ok(((title, body), me)) => html(200, layout(&title, nav, &who(&v, Some(&me)), &body)),
        Err(e) => failed(&v, &e),
    }
}

/// The page of a read that failed for `v`: 401 (and the stale cookie cleared), or the error.
fn failed(v: &Viewer, e: &OpError) -> Response {
    if e.kind == ErrorKind::Unauthorized {
        unauthorized(v.cookie(), &e.detail)
    } else {
        error_page(&who(v, None), e)
    }
}

/// Checks that the request may see pages at all (an agent's token is checked too), before a
/// page starts work that is not its own read (the verification).
async fn admitted(s: &AppState, headers: &HeaderMap) -> Result<(), Response> {
    let v = viewer(s, headers)?;
    run_as(s, &v, |_| Ok(())).await.map_err(|e| failed(&v, &e))
}

/// An HTML response.
fn html(status: u16, body: String) -> Response {
    let mut r = Response::new(axum::body::Body::from(body));
    *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    r.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
    r
}

/// The page of a failed operation, with its status.
fn error_page(who: &Who, e: &OpError) -> Response {
    let status = e.kind.http_status();
    let mut b = Html::new();
    if e.kind == ErrorKind::Internal {
        b.m("<p>The server failed to read this page; its log says why.</p>");
    } else {
        b.el("<p class=\"error\">", &e.detail, "</p>");
        if !e.hints.is_empty() {
            b.m("<ul class=\"hints\">");
            for hint in &e.hints {
                b.el("<li>", hint, "</li>");
            }
            b.m("</ul>");
        }
    }
    b.m("<p><a href=\"/ui/\">Back to the overview</a></p>");
    let title = match e.kind {
        ErrorKind::NotFound => "Not found".to_owned(),
        _ => format!("Error {status}"),
    };
    let mut r = html(status, layout(&title, Nav::None, who, &b));
    super::http::tag_error(&mut r, &e.code);
    r
}

/// The 401 page; a stale cookie is cleared.
fn unauthorized(clear_cookie: bool, detail: &str) -> Response {
    let mut b = Html::new();
    b.el("<p class=\"error\">", detail, "</p>")
        .m("<p>Sign in with the operator's UI token (<code>locker serve --ui-token-file</code>) ")
        .m("or an agent's token (<code>locker token create</code>), or send it as ")
        .m("<code>Authorization: Bearer TOKEN</code>.</p>")
        .m("<p><a class=\"button\" href=\"/ui/login\">Sign in</a></p>");
    let mut r = html(401, layout("Sign-in needed", Nav::None, &Who::default(), &b));
    if clear_cookie {
        r.headers_mut().insert(header::SET_COOKIE, session::clear_cookie());
    }
    super::http::tag_error(&mut r, "unauthorized");
    r
}

/// The view's 404 for a path under `/ui` that is no page.
pub fn not_found() -> Response {
    let e = OpError::not_found("there is no such page").hint("Start from the overview.");
    error_page(&Who::default(), &e)
}

/// The view's 405: only `GET` (and `HEAD`) is served.
pub fn method_not_allowed() -> Response {
    let e = OpError::new(
        ErrorKind::MethodNotAllowed,
        "method_not_allowed",
        "this view is read-only: only GET is served",
    );
    error_page(&Who::default(), &e)
}

/// The newest verification, shared by the view's pages.
fn verified_cache(s: &AppState) -> Arc<super::state::Verified> {
    Arc::clone(&s.0.verified)
}
