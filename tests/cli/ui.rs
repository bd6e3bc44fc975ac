//! The web view (`locker serve`'s `/ui/`): every page shows what a fixture repository holds and
//! never a secret; names that are HTML are escaped; an agent sees its scope only; without a
//! credential only loopback without `--require-token` shows the operator's view; the sign-in
//! form's cookie; read-only (405), the browser guard (403, 415) and the security headers on
//! every answer. (Headless Chromium renders the same pages in `scripts/ui-check.sh`.)

use serde_json::Value;

use crate::common::server::Server;
use crate::common::{TestEnv, ENVELOPE};

const XSS_WORK: &str = "<script>alert(1)</script>";
const XSS_STEP: &str = "<b>bold step</b>";

/// What the fixture made: the ids pages must show and the secrets they must not.
struct Fixture {
    pad: String,
    agent_pad: String,
    token: String,
    secrets: Vec<String>,
}

/// `locker --json ARGS` as the agent whose token is `token`.
fn as_agent(env: &TestEnv, token: &str, args: &[&str]) -> Value {
    let out =
        env.locker().env("LOCKER_TOKEN", token).arg("--json").args(args).output().expect("runs");
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON")
}

fn s(v: &Value, field: &str) -> String {
    v[field].as_str().unwrap_or_else(|| panic!("no {field} in {v}")).to_owned()
}

/// A sealed pad with three blocks and tickets in three states; the agent `worker-a` (scope
/// `demo`) with a pad and a work item whose plan has a hole and an extra; a work item named in
/// HTML; an artifact with two versions, a replay and a refused publish.
fn fixture(env: &TestEnv) -> Fixture {
    let token =
        s(&env.json(&["token", "create", "--agent", "worker-a", "--scope", "demo"]), "token");
    let pad = env.create_pad(&[]);
    env.append(&pad, ENVELOPE);
    env.append(&pad, "second block");
    env.append(&pad, "third block");
    let unlimited =
        env.json(&["pad", "ticket", &pad.id, "--key", &pad.key, "--type", "read_unlimited"]);
    let revoked = env.json(&["pad", "ticket", &pad.id, "--key", &pad.key]);
    env.json(&["pad", "revoke-ticket", &pad.id, &s(&revoked, "ticket"), "--key", &pad.key]);
    env.json(&["pad", "read", &pad.id, "--ticket", &pad.ticket]);
    env.json(&["seal", &pad.id, "--key", &pad.key]);
    let agent_pad = as_agent(env, &token, &["pad", "create"]);

    let lease = s(&as_agent(env, &token, &["lease", "acquire", "release-notes"]), "lease_id");
    as_agent(
        env,
        &token,
        &["manifest", "commit", "release-notes", "--lease", &lease, "draft", "review", "publish"],
    );
    for step in ["draft", "publish", "hotfix"] {
        as_agent(env, &token, &["step", "release-notes", step, "--lease", &lease]);
    }
    let xss = s(&env.json(&["lease", "acquire", XSS_WORK, "--holder", "planner"]), "lease_id");
    env.json(&["manifest", "commit", XSS_WORK, "--lease", &xss, XSS_STEP]);
    env.json(&["step", XSS_WORK, XSS_STEP, "--lease", &xss]);

    env.json(&["artifact", "publish", "notes.md", "-d", "one", "--expect", "0", "--op", "op-1"]);
    env.json(&["artifact", "publish", "notes.md", "-d", "two", "--expect", "1", "--op", "op-2"]);
    env.json(&["artifact", "publish", "notes.md", "-d", "two", "--expect", "1", "--op", "op-2"]);
    env.json_err(
        &["artifact", "publish", "notes.md", "-d", "x", "--expect", "1", "--op", "op-3"],
        4,
    );
    as_agent(
        env,
        &token,
        &["artifact", "publish", "report.json", "-d", "{}", "--expect", "0", "--op", "r-1"],
    );

    let secrets = vec![
        pad.key.clone(),
        pad.ticket.clone(),
        s(&unlimited, "ticket"),
        s(&unlimited, "ticket_id"),
        s(&revoked, "ticket"),
        s(&revoked, "ticket_id"),
        s(&agent_pad, "write_key"),
        s(&agent_pad, "read_ticket"),
        token.clone(),
        lease,
        xss,
    ];
    Fixture { pad: pad.id, agent_pad: s(&agent_pad, "pad_id"), token, secrets }
}

/// `GET PATH` with ARGS; the status, the headers (lowercased names) and the body.
fn get(srv: &Server, path: &str, args: &[&str]) -> (u16, String, String) {
    let mut all = vec!["-i"];
    all.extend_from_slice(args);
    let (code, text) = srv.curl(path, &all);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    (code, head.to_ascii_lowercase(), body.to_owned())
}

/// The headers every `/ui` answer carries.
fn assert_secure(path: &str, head: &str) {
    for h in [
        "content-security-policy: default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
        "x-content-type-options: nosniff",
        "cache-control: no-store",
    ] {
        assert!(head.contains(h), "{path}: no `{h}` in\n{head}");
    }
    assert!(head.contains("referrer-policy: "), "{path}: no Referrer-Policy");
}

/// `GET PATH` expecting 200 and HTML with the security headers; returns the body.
fn page(srv: &Server, path: &str, args: &[&str]) -> String {
    let (code, head, body) = get(srv, path, args);
    assert_eq!(code, 200, "{path}: {body}");
    assert!(head.contains("content-type: text/html; charset=utf-8"), "{path}: {head}");
    assert!(head.contains("referrer-policy: no-referrer"), "{path}: {head}");
    assert_secure(path, &head);
    assert!(!body.contains("<script"), "{path}: a script element");
    assert!(!body.contains("style=\""), "{path}: an inline style");
    body
}

fn has(path: &str, body: &str, expected: &[&str]) {
    for e in expected {
        assert!(body.contains(e), "{path} does not show {e:?}:\n{body}");
    }
}

#[test]
fn test_ui_every_page_shows_the_fixture_and_no_secret() {
    let env = TestEnv::init();
    let fx = fixture(&env);
    env.json(&["checkpoint"]);
    let srv = env.serve(&[]);
    let xss = "%3Cscript%3Ealert(1)%3C%2Fscript%3E";
    let pages: Vec<(String, Vec<&str>)> = vec![
        ("/ui/".into(), vec!["Overview", "entries", "sealed", "active leases", "keys"]),
        ("/ui/journal".into(), vec!["pad.create", "lease.acquire", "worker-a", "artifact.reject"]),
        ("/ui/journal?kind=artifact.&limit=2".into(), vec!["artifact.reject", "older entries"]),
        ("/ui/pads".into(), vec![&fx.pad, &fx.agent_pad, "demo-pad-v1", "sealed"]),
        (
            format!("/ui/pads/{}", fx.pad),
            vec![
                "badge ok\">ok</span>",
                "3 of 3 blocks re-hashed",
                "application/json",
                "read_once",
                "read_unlimited",
                ">reading<",
                ">active<",
                ">revoked<",
            ],
        ),
        ("/ui/work".into(), vec!["release-notes", "worker-a", "demo", "planner"]),
        (
            "/ui/work/release-notes?scope=demo".into(),
            vec!["worker-a", "1 hole, 1 extra", "review", ">hole<", "hotfix", ">extra<", "draft"],
        ),
        (format!("/ui/work/{xss}?scope=default"), vec!["planner", "clean"]),
        ("/ui/artifacts".into(), vec!["notes.md", "report.json", "Scope demo"]),
        (
            "/ui/artifacts/notes.md?scope=default".into(),
            vec![">accepted<", ">replayed<", ">version_conflict<", "op-2"],
        ),
        ("/ui/log".into(), vec!["Latest checkpoint", "tree size", "Verification", "Merkle tree"]),
        ("/ui/login".into(), vec!["<form", "name=\"token\""]),
    ];
    for (path, expected) in &pages {
        let body = if path == "/ui/login" {
            let (code, head, body) = get(&srv, path, &[]);
            assert_eq!(code, 200);
            // The form's page sends its own origin with the form (the guard checks it).
            assert!(head.contains("referrer-policy: same-origin"), "{head}");
            assert_secure(path, &head);
            body
        } else {
            page(&srv, path, &[])
        };
        has(path, &body, expected);
        for secret in &fx.secrets {
            assert!(!body.contains(secret.as_str()), "{path} shows a secret");
        }
    }
    // The stylesheet and the icon, under the same headers.
    let (code, head, css) = get(&srv, "/ui/style.css", &[]);
    assert_eq!(code, 200);
    assert!(head.contains("content-type: text/css"), "{head}");
    assert!(css.contains(".badge.ok"));
    assert_secure("/ui/style.css", &head);
    let (code, head, _) = get(&srv, "/ui/favicon.svg", &[]);
    assert_eq!(code, 200);
    assert!(head.contains("content-type: image/svg+xml"), "{head}");
    // `/ui` goes to `/ui/`.
    let (code, head, _) = get(&srv, "/ui", &[]);
    assert_eq!(code, 308);
    assert!(head.contains("location: /ui/"), "{head}");
}

#[test]
fn test_ui_names_that_are_html_are_escaped() {
    let env = TestEnv::init();
    fixture(&env);
    let srv = env.serve(&[]);
    let item = "/ui/work/%3Cscript%3Ealert(1)%3C%2Fscript%3E?scope=default";
    for path in [item, "/ui/work", "/ui/journal"] {
        let body = page(&srv, path, &[]);
        assert!(body.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{path}:\n{body}");
        assert!(!body.contains(XSS_WORK), "{path} shows the name unescaped");
    }
    let body = page(&srv, item, &[]);
    assert!(body.contains("&lt;b&gt;bold step&lt;/b&gt;"), "{body}");
    assert!(!body.contains(XSS_STEP));
    // Links to it are percent-encoded.
    let list = page(&srv, "/ui/work", &[]);
    assert!(
        list.contains("href=\"/ui/work/%3Cscript%3Ealert%281%29%3C%2Fscript%3E?scope=default\"")
    );
    // A value in the journal's filter form is escaped as an attribute.
    let body = page(&srv, "/ui/journal?actor=%22%3E%3Cscript%3E", &[]);
    assert!(body.contains("value=\"&quot;&gt;&lt;script&gt;\""), "{body}");
}

#[test]
fn test_ui_an_agent_sees_its_scope_only() {
    let env = TestEnv::init();
    let fx = fixture(&env);
    let srv = env.serve(&[]);
    let bearer = format!("Authorization: Bearer {}", fx.token);
    let auth = ["-H", bearer.as_str()];
    let body = page(&srv, "/ui/", &auth);
    has("/ui/ as the agent", &body, &["agent worker-a · scope demo"]);
    let pads = page(&srv, "/ui/pads", &auth);
    assert!(pads.contains(&fx.agent_pad) && !pads.contains(&fx.pad), "{pads}");
    let (code, _, body) = get(&srv, &format!("/ui/pads/{}", fx.pad), &auth);
    assert_eq!(code, 404, "another scope's pad is not found: {body}");
    page(&srv, &format!("/ui/pads/{}", fx.agent_pad), &auth);
    let work = page(&srv, "/ui/work", &auth);
    assert!(work.contains("release-notes") && !work.contains("alert(1)"), "{work}");
    // Asking for another scope stays in its own.
    let (code, _, _) =
        get(&srv, "/ui/work/%3Cscript%3Ealert(1)%3C%2Fscript%3E?scope=default", &auth);
    assert_eq!(code, 404);
    let arts = page(&srv, "/ui/artifacts?scope=default", &auth);
    assert!(arts.contains("report.json") && !arts.contains("notes.md"), "{arts}");
    let journal = page(&srv, "/ui/journal", &auth);
    assert!(journal.contains("an entry of another scope") && !journal.contains("notes.md"));
    // The verification's verdicts, not what another scope's problems would name.
    page(&srv, "/ui/log", &auth);
    // A token that is no agent's: 401 with the way to sign in.
    let (code, head, body) = get(&srv, "/ui/", &["-H", "Authorization: Bearer lk_nobody"]);
    assert_eq!(code, 401);
    assert!(body.contains("href=\"/ui/login\""), "{body}");
    assert_secure("/ui/ (401)", &head);
}

#[test]
fn test_ui_needs_a_token_with_require_token_and_signs_in_with_a_cookie() {
    let env = TestEnv::init();
    let fx = fixture(&env);
    let ui_token = "operator-ui-token-0123456789";
    let file = env.file("ui-token", format!("{ui_token}\n").as_bytes());
    let srv = env.serve(&["--require-token", "--ui-token-file", &file]);
    // No credential: 401, linking to the form.
    for path in ["/ui/", "/ui/journal", "/ui/log", &format!("/ui/pads/{}", fx.pad)] {
        let (code, head, body) = get(&srv, path, &[]);
        assert_eq!(code, 401, "{path}");
        assert!(body.contains("href=\"/ui/login\""), "{path}: {body}");
        assert_secure(path, &head);
    }
    // The form and the two static files need none.
    for path in ["/ui/login", "/ui/style.css", "/ui/favicon.svg", "/ui/logout"] {
        assert_eq!(get(&srv, path, &[]).0, 200, "{path}");
    }
    // The operator's token as a bearer: every scope.
    let op = format!("Authorization: Bearer {ui_token}");
    let pads = page(&srv, "/ui/pads", &["-H", &op]);
    assert!(pads.contains(&fx.pad) && pads.contains(&fx.agent_pad), "{pads}");
    // Signing in: a form post, from the view's own origin.
    let origin = format!("Origin: {}", srv.url());
    let form = "Content-Type: application/x-www-form-urlencoded";
    let login = |token: &str| {
        let data = format!("token={}", token.replace('+', "%2B"));
        get(&srv, "/ui/login", &["-X", "POST", "-H", form, "-H", &origin, "--data-raw", &data])
    };
    let (code, head, _) = login(ui_token);
    assert_eq!(code, 303, "{head}");
    assert!(head.contains("location: /ui/"), "{head}");
    let cookie_line = head.lines().find(|l| l.starts_with("set-cookie: ")).expect("a cookie");
    for attr in ["locker_ui=", "httponly", "samesite=strict", "path=/ui"] {
        assert!(cookie_line.contains(attr), "{cookie_line}");
    }
    let cookie = format!("Cookie: locker_ui={ui_token}");
    let body = page(&srv, "/ui/artifacts", &["-H", &cookie]);
    assert!(body.contains("notes.md") && body.contains("report.json") && body.contains("sign out"));
    // An agent's token signs in to its scope.
    let (code, _, _) = login(&fx.token);
    assert_eq!(code, 303);
    let agent = format!("Cookie: locker_ui={}", fx.token);
    let body = page(&srv, "/ui/pads", &["-H", &agent]);
    assert!(body.contains(&fx.agent_pad) && !body.contains(&fx.pad));
    // A wrong token: the form again, 401; none: 400.
    let (code, _, body) = login("not-a-token-at-all");
    assert_eq!(code, 401);
    assert!(body.contains("neither the UI token nor an agent"), "{body}");
    assert!(!body.contains("not-a-token-at-all"), "the token is not echoed");
    assert_eq!(login("").0, 400);
    // A stale cookie: 401, and the cookie is cleared.
    let (code, head, _) = get(&srv, "/ui/", &["-H", "Cookie: locker_ui=stale-token"]);
    assert_eq!(code, 401);
    assert!(head.contains("set-cookie: locker_ui=; path=/ui"), "{head}");
    // Signing out clears it.
    let (code, head, _) = get(&srv, "/ui/logout", &["-H", &cookie]);
    assert_eq!(code, 200);
    assert!(head.contains("max-age=0"), "{head}");
}

#[test]
fn test_ui_is_read_only_and_behind_the_browser_guard() {
    let env = TestEnv::init();
    fixture(&env);
    let srv = env.serve(&[]);
    // Only GET (and HEAD): 405, as a page.
    for (method, path) in
        [("POST", "/ui/"), ("PUT", "/ui/pads"), ("DELETE", "/ui/journal"), ("POST", "/ui/logout")]
    {
        let (code, head, body) = get(&srv, path, &["-X", method, "-H", "Content-Length: 0"]);
        assert_eq!(code, 405, "{method} {path}: {body}");
        assert!(head.contains("content-type: text/html"), "{head}");
        assert!(head.contains("allow: "), "{method} {path}: {head}");
        assert_secure(path, &head);
    }
    assert_eq!(get(&srv, "/ui/", &["-I"]).0, 200, "HEAD");
    // A page of another origin: refused, reads and the sign-in alike.
    let evil = "Origin: https://evil.example";
    let (code, head, _) = get(&srv, "/ui/", &["-H", evil]);
    assert_eq!(code, 403);
    assert_secure("/ui/ (403)", &head);
    let form = "Content-Type: application/x-www-form-urlencoded";
    let post = |origin: &str, ct: &str| {
        get(&srv, "/ui/login", &["-X", "POST", "-H", ct, "-H", origin, "--data-raw", "token=x"]).0
    };
    assert_eq!(post(evil, form), 403);
    assert_eq!(post("Origin: null", form), 403);
    let other_port = format!("Origin: http://127.0.0.1:{}", srv.addr.port() + 1);
    assert_eq!(post(&other_port, form), 403);
    // The view's own origin gets through (and the token is checked: 401).
    assert_eq!(post(&format!("Origin: {}", srv.url()), form), 401);
    // Only a form, and only there.
    assert_eq!(post(&format!("Origin: {}", srv.url()), "Content-Type: text/plain"), 415);
    let (code, _) = srv.curl("/lease", &["-X", "POST", "-H", form, "-d", "work_ref=x"]);
    assert_eq!(code, 415, "the JSON routes still take no form");
    // An unknown page: 404 as a page.
    let (code, head, body) = get(&srv, "/ui/nothing/here", &[]);
    assert_eq!(code, 404);
    assert!(head.contains("content-type: text/html") && body.contains("Not found"));
    // A malformed query: 400 as a page.
    let (code, _, _) = get(&srv, "/ui/journal?before=-1", &[]);
    assert_eq!(code, 400);
}

#[test]
fn test_ui_token_file_is_checked_at_start() {
    let env = TestEnv::init();
    let short = env.file("short", b"tiny\n");
    let e = env.json_err(&["serve", "--listen", "127.0.0.1:0", "--ui-token-file", &short], 2);
    assert!(e["detail"].as_str().unwrap().contains("at least 16 characters"), "{e}");
    let e = env.json_err(&["serve", "--listen", "127.0.0.1:0", "--ui-token-file", "missing"], 2);
    assert!(e["detail"].as_str().unwrap().contains("cannot read the UI token file"), "{e}");
}
