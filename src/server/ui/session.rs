//! Signing in and out of the view (a cookie holding the token), and its two static files.
//!
//! `POST /ui/login` is the one write the view takes: a form (`application/x-www-form-urlencoded`,
//! which the browser guard admits on this path only) whose `Origin` must be the server's own
//! or an allowed one (the guard checks it before this handler runs). The form page itself is
//! served with `Referrer-Policy: same-origin` instead of `no-referrer`: under `no-referrer` a
//! browser sends `Origin: null` with the form, which the guard cannot tell from another site's.

use axum::body::Body;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;

use super::html::{layout, Html, Nav, Who};
use super::{credential, html, is_ui_token, open, AppState, COOKIE};
use crate::domain::secret::Secret;
use crate::ops::ErrorKind;

/// The longest sign-in body read.
const MAX_FORM_BYTES: usize = 4096;

/// The stylesheet.
const STYLE: &str = include_str!("style.css");

/// The icon.
const FAVICON: &str = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 16 16\">\
<rect x=\"2\" y=\"7\" width=\"12\" height=\"8\" rx=\"1.5\" fill=\"#1f5fa8\"/>\
<path d=\"M5 7V5a3 3 0 0 1 6 0v2\" fill=\"none\" stroke=\"#1f5fa8\" stroke-width=\"2\"/></svg>";

/// `GET /ui/style.css`.
pub async fn style() -> Response {
    file("text/css; charset=utf-8", STYLE)
}

/// `GET /ui/favicon.svg`.
pub async fn favicon() -> Response {
    file("image/svg+xml", FAVICON)
}

fn file(content_type: &'static str, body: &'static str) -> Response {
    let mut r = Response::new(Body::from(body));
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    r
}

/// The cookie that holds a token (the view's paths only, never sent by another site's page,
/// never readable by a script).
fn set_cookie(token: &Secret) -> Option<HeaderValue> {
    let value: String = form_urlencoded::byte_serialize(token.expose().as_bytes()).collect();
    HeaderValue::from_str(&format!("{COOKIE}={value}; Path=/ui; HttpOnly; SameSite=Strict")).ok()
}

/// The header that removes the cookie.
pub(super) fn clear_cookie() -> HeaderValue {
    HeaderValue::from_static("locker_ui=; Path=/ui; HttpOnly; SameSite=Strict; Max-Age=0")
}

/// The sign-in page, with `problem` above the form.
fn form_page(s: &AppState, status: u16, problem: Option<&str>) -> Response {
    let mut b = Html::new();
    if let Some(p) = problem {
        b.el("<p class=\"error\">", p, "</p>");
    }
    if open(s) {
        b.m("<p>This server listens on loopback without <code>--require-token</code>: without a ")
            .m("token you see the operator's view. Sign in with an agent's token to see what that ")
            .m("agent sees.</p>");
    }
    b.m("<form class=\"login\" method=\"post\" action=\"/ui/login\">")
        .m("<label for=\"token\">Token</label>")
        .m("<input id=\"token\" name=\"token\" type=\"password\" autocomplete=\"current-password\" ")
        .m("required maxlength=\"1024\">")
        .m("<button type=\"submit\">Sign in</button></form>")
        .m("<p class=\"muted\">The operator's UI token (the file given to ")
        .m("<code>locker serve --ui-token-file</code>) shows every scope; an agent's token ")
        .m("(<code>locker token create</code>) shows that agent's scope. The token is kept in an ")
        .m("HttpOnly cookie for <code>/ui</code> only; sign out removes it.</p>");
    let mut r = html(status, layout("Sign in", Nav::None, &Who::default(), &b));
    r.headers_mut().insert(header::REFERRER_POLICY, HeaderValue::from_static("same-origin"));
    r
}

/// `GET /ui/login`: the sign-in form.
pub async fn login_form(State(s): State<AppState>) -> Response {
    form_page(&s, 200, None)
}

/// `POST /ui/login` (`token=…`): checks the token, sets the cookie and goes to the overview
/// (303); a token that is none of the operator's or an agent's gets the form again (401).
pub async fn login(State(s): State<AppState>, headers: HeaderMap, body: Body) -> Response {
    let limit = s.options().body_timeout;
    let read = super::super::http::read_body(&headers, body, MAX_FORM_BYTES, limit).await;
    let Ok(raw) = read else {
        return form_page(&s, 400, Some("the form did not arrive whole"));
    };
    let token = form_urlencoded::parse(&raw)
        .filter(|(k, _)| k == "token")
        .map(|(_, v)| v.trim().to_owned())
        .last()
        .unwrap_or_default();
    if token.is_empty() || token.len() > 1024 || token.chars().any(char::is_control) {
        return form_page(&s, 400, Some("give a token"));
    }
    let token = Secret::new(token);
    if !is_ui_token(&s, &token) {
        // An agent's token, checked the way every agent read checks it.
        let checked = s.run_as_token(token.clone(), |ctx| Ok(ctx.actor.clone())).await;
        match checked {
            Ok(_) => {}
            Err(e) if e.kind == ErrorKind::Unauthorized => {
                return form_page(
                    &s,
                    401,
                    Some("that token is neither the UI token nor an agent's"),
                )
            }
            Err(e) => return super::error_page(&Who::default(), &e),
        }
    }
    let Some(cookie) = set_cookie(&token) else {
        return form_page(&s, 400, Some("that token cannot be kept in a cookie"));
    };
    let mut r = Response::new(Body::empty());
    *r.status_mut() = StatusCode::SEE_OTHER;
    r.headers_mut().insert(header::LOCATION, HeaderValue::from_static("/ui/"));
    r.headers_mut().insert(header::SET_COOKIE, cookie);
    r
}

/// `GET /ui/logout`: removes the cookie.
pub async fn logout(headers: HeaderMap) -> Response {
    let had = credential(&headers).is_some_and(|(_, cookie)| cookie);
    let mut b = Html::new();
    if had {
        b.m("<p>You are signed out: the cookie is removed.</p>");
    } else {
        b.m("<p>There was no sign-in cookie to remove.</p>");
    }
    b.m("<p><a class=\"button\" href=\"/ui/login\">Sign in</a></p>");
    let mut r = html(200, layout("Signed out", Nav::None, &Who::default(), &b));
    r.headers_mut().insert(header::SET_COOKIE, clear_cookie());
    r
}
