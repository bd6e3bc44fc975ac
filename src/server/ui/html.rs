//! The web view's HTML: a writer in which markup can only be a `&'static str` written in the
//! source and every value is escaped on its way in, links built from escaped and
//! percent-encoded parts, and the page layout every page shares.

use std::fmt::{self, Display, Write as _};

use crate::domain::digest::Digest;
use crate::domain::time::rfc3339;

/// Writes `s` escaped for HTML text and quoted attribute values.
fn escape_into(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

/// An escaping `fmt::Write`: formats a value straight into the page, escaped.
struct Escaping<'a>(&'a mut String);

impl fmt::Write for Escaping<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        escape_into(self.0, s);
        Ok(())
    }
}

/// What a badge says of its subject.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    /// Intact, done, cosigned.
    Ok,
    /// Broken, refused, revoked.
    Bad,
    /// Needs a look: a hole, an extra, expired.
    Warn,
    /// Neither: a state.
    Plain,
}

impl Tone {
    fn class(self) -> &'static str {
        match self {
            Self::Ok => "<span class=\"badge ok\">",
            Self::Bad => "<span class=\"badge bad\">",
            Self::Warn => "<span class=\"badge warn\">",
            Self::Plain => "<span class=\"badge\">",
        }
    }
}

/// A link target: a path of literal parts and percent-encoded segments, and a query.
#[derive(Debug, Clone)]
pub struct Href(String);

impl Href {
    /// A path written in the source (`/ui/pads`).
    pub fn to(path: &'static str) -> Self {
        Self(path.to_owned())
    }

    /// Appends `/` and one path segment, percent-encoded (a `/` in it stays in the segment).
    pub fn seg(mut self, segment: &str) -> Self {
        self.0.push('/');
        for b in segment.bytes() {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                self.0.push(char::from(b));
            } else {
                let _ = write!(self.0, "%{b:02X}");
            }
        }
        self
    }

    /// Appends a query parameter (form-encoded).
    pub fn q(mut self, name: &str, value: &str) -> Self {
        self.0.push(if self.0.contains('?') { '&' } else { '?' });
        self.0.extend(form_urlencoded::byte_serialize(name.as_bytes()));
        self.0.push('=');
        self.0.extend(form_urlencoded::byte_serialize(value.as_bytes()));
        self
    }

    /// Appends a query parameter when there is a value.
    pub fn q_opt(self, name: &str, value: Option<&str>) -> Self {
        match value {
            Some(v) if !v.is_empty() => self.q(name, v),
            _ => self,
        }
    }
}

/// A page being written.
#[derive(Debug, Default)]
pub struct Html(String);

impl Html {
    pub fn new() -> Self {
        Self(String::with_capacity(8 * 1024))
    }

    /// Markup written in the source.
    pub fn m(&mut self, markup: &'static str) -> &mut Self {
        self.0.push_str(markup);
        self
    }

    /// A value, escaped.
    pub fn t(&mut self, value: impl Display) -> &mut Self {
        let _ = write!(Escaping(&mut self.0), "{value}");
        self
    }

    /// `open`, the value escaped, `close`.
    pub fn el(
        &mut self,
        open: &'static str,
        value: impl Display,
        close: &'static str,
    ) -> &mut Self {
        self.m(open).t(value).m(close)
    }

    /// A table cell with the value escaped.
    pub fn td(&mut self, value: impl Display) -> &mut Self {
        self.el("<td>", value, "</td>")
    }

    /// A link.
    pub fn a(&mut self, href: &Href, text: impl Display) -> &mut Self {
        self.m("<a href=\"").t(&href.0).m("\">").t(text).m("</a>")
    }

    /// A badge.
    pub fn badge(&mut self, tone: Tone, text: impl Display) -> &mut Self {
        self.m(tone.class()).t(text).m("</span>")
    }

    /// An ok/broken verdict badge.
    pub fn verdict(&mut self, ok: bool) -> &mut Self {
        if ok {
            self.badge(Tone::Ok, "ok")
        } else {
            self.badge(Tone::Bad, "broken")
        }
    }

    /// A time (Unix seconds) in ISO-8601 UTC.
    pub fn time(&mut self, secs: i64) -> &mut Self {
        let iso = rfc3339(secs);
        self.m("<time datetime=\"").t(&iso).m("\">").t(&iso).m("</time>")
    }

    /// A time, or a dash.
    pub fn time_opt(&mut self, secs: Option<i64>) -> &mut Self {
        match secs {
            Some(s) => self.time(s),
            None => self.m("<span class=\"muted\">—</span>"),
        }
    }

    /// A hash, shortened, with the whole of it in its title.
    pub fn hash(&mut self, d: &Digest) -> &mut Self {
        let hex = d.to_string();
        let short: String = hex.chars().take(16).collect();
        self.m("<code class=\"hash\" title=\"").t(&hex).m("\">").t(short).m("…</code>")
    }

    /// A hash in full.
    pub fn hash_full(&mut self, d: &Digest) -> &mut Self {
        self.el("<code class=\"hash full\">", d, "</code>")
    }

    /// A term and its description in a `<dl>`.
    pub fn dt(&mut self, term: &'static str) -> &mut Self {
        self.m("<dt>").m(term).m("</dt><dd>")
    }

    /// Ends a description started with [`Self::dt`].
    pub fn dd_end(&mut self) -> &mut Self {
        self.m("</dd>")
    }

    /// A term with a plain value.
    pub fn pair(&mut self, term: &'static str, value: impl Display) -> &mut Self {
        self.dt(term).t(value).dd_end()
    }

    /// Appends another piece of HTML.
    pub fn push(&mut self, other: &Html) -> &mut Self {
        self.0.push_str(&other.0);
        self
    }

    pub fn into_string(self) -> String {
        self.0
    }

    #[cfg(test)]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The sections of the view, for the navigation bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nav {
    Overview,
    Journal,
    Pads,
    Work,
    Artifacts,
    Log,
    /// A page in no section (sign-in, errors).
    None,
}

const SECTIONS: &[(Nav, &str, &str)] = &[
    (Nav::Overview, "/ui/", "Overview"),
    (Nav::Journal, "/ui/journal", "Journal"),
    (Nav::Pads, "/ui/pads", "Pads"),
    (Nav::Work, "/ui/work", "Work"),
    (Nav::Artifacts, "/ui/artifacts", "Artifacts"),
    (Nav::Log, "/ui/log", "Log"),
];

/// Who is looking, as the header shows it.
#[derive(Debug, Clone, Default)]
pub struct Who {
    /// `operator`, or the agent's name and scope; `None` when nobody is signed in.
    pub label: Option<String>,
    /// Signed in with the cookie (a sign-out link is offered).
    pub cookie: bool,
}

/// A whole page: the layout around `body`.
pub fn layout(title: &str, nav: Nav, who: &Who, body: &Html) -> String {
    let mut h = Html::new();
    h.m("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
        .m("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
        .m("<title>")
        .t(title)
        .m(" · locker</title>")
        .m("<link rel=\"stylesheet\" href=\"/ui/style.css\">")
        .m("<link rel=\"icon\" href=\"/ui/favicon.svg\" type=\"image/svg+xml\">")
        .m("</head><body><header><nav><a class=\"brand\" href=\"/ui/\">locker</a><ul>");
    for (section, href, name) in SECTIONS {
        h.m("<li><a href=\"").t(href).m("\"");
        if *section == nav {
            h.m(" aria-current=\"page\"");
        }
        h.m(">").t(name).m("</a></li>");
    }
    h.m("</ul><span class=\"who\">");
    match &who.label {
        Some(label) => {
            h.t(label);
            if who.cookie {
                h.m(" · <a href=\"/ui/logout\">sign out</a>");
            }
        }
        None => {
            h.m("<a href=\"/ui/login\">sign in</a>");
        }
    }
    h.m("</span></nav></header><main>");
    h.el("<h1>", title, "</h1>");
    h.push(body);
    h.m("</main><footer>locker ")
        .t(env!("CARGO_PKG_VERSION"))
        .m(" · read-only view · times in UTC</footer></body></html>\n");
    h.into_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_escaped_and_markup_is_not() {
        let mut h = Html::new();
        h.m("<p>").t("<script>alert('x')</script> & \"q\"").m("</p>");
        assert_eq!(
            h.as_str(),
            "<p>&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;</p>"
        );
    }

    #[test]
    fn links_encode_segments_and_queries_then_escape() {
        let href = Href::to("/ui/work").seg("a/b <c>\"").q("scope", "x&y=z");
        assert_eq!(href.0, "/ui/work/a%2Fb%20%3Cc%3E%22?scope=x%26y%3Dz");
        let mut h = Html::new();
        h.a(&href, "<w>");
        assert_eq!(
            h.as_str(),
            "<a href=\"/ui/work/a%2Fb%20%3Cc%3E%22?scope=x%26y%3Dz\">&lt;w&gt;</a>"
        );
    }

    #[test]
    fn the_layout_escapes_the_title_and_the_viewer() {
        let who = Who { label: Some("agent <b>".into()), cookie: true };
        let page = layout("pad <x>", Nav::Pads, &who, &Html::new());
        assert!(page.contains("<title>pad &lt;x&gt; · locker</title>"), "{page}");
        assert!(page.contains("agent &lt;b&gt;"));
        assert!(page.contains("href=\"/ui/pads\" aria-current=\"page\""));
        assert!(!page.contains("style="), "no inline style: the CSP forbids it");
    }
}
