//! Levelled, structured logs on stderr with `tracing`: every line is an event with a level
//! and fields, filtered with `tracing-subscriber`'s `EnvFilter` syntax (`--log-level`,
//! `LOCKER_LOG`), written as text or as one JSON object per line (`--log-format`).
//!
//! The text format keeps a server's first line as scripts read it (`locker listening on
//! http://ADDR`): an `info` event is its message and its fields (`key=value`), other levels
//! say theirs first (`warning: …`, `debug: …`). The JSON format is one object per line:
//! `time`, `level`, `target`, `message`, then the event's fields, and `spans` when the event
//! happened inside some (`request{method=POST route=…}:write`).
//!
//! At `debug`, every span closes with an event that says how long it took (`time.busy`,
//! `time.idle`): where a slow request went.

use std::fmt::{self, Write as _};

use serde_json::{Map, Value};
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::fmt::format::{FmtSpan, Writer};
use tracing_subscriber::fmt::writer::BoxMakeWriter;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields, FormattedFields};
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt as _;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::Layer as _;

/// How log lines are written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// `message key=value …`, with the level first unless it is `info`
    #[default]
    Text,
    /// One JSON object per line
    Json,
}

/// Checks a filter (`warn`, `locker::access=warn,info`, …) without installing it.
pub fn parse_filter(filter: &str) -> Result<EnvFilter, String> {
    // A bare word is a target to `EnvFilter` (`loud` would log everything of a target named
    // `loud`, silently): here it must be a level, or a path with `::`.
    const LEVELS: &[&str] = &["off", "error", "warn", "info", "debug", "trace"];
    for d in filter.split(',').map(str::trim).filter(|d| !d.is_empty()) {
        if !d.contains(['=', '[', ':']) && !LEVELS.contains(&d.to_ascii_lowercase().as_str()) {
            return Err(format!(
                "`{d}` in the log filter `{filter}` is not a level (off, error, warn, info, \
                 debug, trace); name a target's level as TARGET=LEVEL"
            ));
        }
    }
    EnvFilter::builder()
        .with_regex(false)
        .parse(filter)
        .map_err(|e| format!("`{filter}` is not a log filter: {e}"))
}

/// The target of a server's `locker listening on http://ADDR` line: written at every level
/// (scripts and `locker quest` wait for it), even with `--log-level off`.
pub const READY: &str = "locker::ready";

/// Installs the process's logger: `filter` decides what is written, `format` how; a server
/// (`detached`) whose stderr is a pipe or a socket hands its lines to a thread of their own
/// ([`super::sink`]), and every other process writes them to stderr itself. Call once,
/// early; a second call changes nothing.
pub fn init(filter: EnvFilter, format: LogFormat, detached: bool) {
    // The MCP SDK's own events (a session began or ended, a span per message) say per request
    // what the access log says: only its warnings, unless the filter names it.
    let quiet_sdk = !filter.to_string().contains("rmcp");
    let mut filter = filter;
    for (directive, wanted) in
        [(format!("{READY}=info"), true), ("rmcp=warn".to_owned(), quiet_sdk)]
    {
        if let (true, Ok(d)) = (wanted, directive.parse()) {
            filter = filter.add_directive(d);
        }
    }
    let detached = detached && super::sink::stderr_may_block();
    let writer = match detached.then(super::sink::Detached::start).flatten() {
        Some(d) => BoxMakeWriter::new(d),
        None => BoxMakeWriter::new(std::io::stderr),
    };
    let lines = tracing_subscriber::fmt::layer()
        .with_writer(writer)
        .with_span_events(FmtSpan::CLOSE)
        .event_format(Line { format })
        .with_filter(filter);
    let registry = tracing_subscriber::registry().with(lines);
    #[cfg(feature = "otlp")]
    let registry = registry.with(super::otlp::layer());
    let _ = registry.try_init();
}

/// Sends what the process's exporters still hold (OTLP traces, with the `otlp` feature);
/// call once, as the process ends.
pub fn flush() {
    #[cfg(feature = "otlp")]
    super::otlp::shutdown();
    super::sink::flush();
}

/// The event formatter of both formats.
#[derive(Debug, Clone, Copy)]
struct Line {
    format: LogFormat,
}

/// An event's fields, in the order they were recorded.
#[derive(Debug, Default)]
struct Fields {
    message: String,
    pairs: Vec<(&'static str, Value)>,
}

impl Fields {
    fn push(&mut self, field: &Field, v: Value) {
        if field.name() == "message" {
            self.message = match v {
                Value::String(s) => s,
                other => other.to_string(),
            };
        } else {
            self.pairs.push((field.name(), v));
        }
    }
}

impl Visit for Fields {
    fn record_f64(&mut self, field: &Field, value: f64) {
        self.push(field, serde_json::Number::from_f64(value).map_or(Value::Null, Value::Number));
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.push(field, value.into());
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.push(field, value.into());
    }
    fn record_bool(&mut self, field: &Field, value: bool) {
        self.push(field, value.into());
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.push(field, value.into());
    }
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.push(field, format!("{value:?}").into());
    }
}

/// A value as the text format writes it: bare when that cannot be misread, quoted otherwise.
fn text_value(v: &Value) -> String {
    match v {
        Value::String(s)
            if !s.is_empty()
                && !s.contains(|c: char| c.is_whitespace() || c == '"' || c == '=') =>
        {
            s.clone()
        }
        Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    }
}

/// The current time as RFC 3339 with milliseconds.
fn now_rfc3339() -> String {
    let now =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let secs = crate::domain::time::rfc3339(i64::try_from(now.as_secs()).unwrap_or(i64::MAX));
    let base = secs.strip_suffix('Z').unwrap_or(&secs);
    format!("{base}.{:03}Z", now.subsec_millis())
}

fn level_name(level: Level) -> &'static str {
    match level {
        Level::ERROR => "error",
        Level::WARN => "warn",
        Level::INFO => "info",
        Level::DEBUG => "debug",
        Level::TRACE => "trace",
    }
}

impl<S, N> FormatEvent<S, N> for Line
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut w: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        let mut fields = Fields::default();
        event.record(&mut fields);
        let mut spans = String::new();
        if let Some(scope) = ctx.event_scope() {
            for span in scope.from_root() {
                if !spans.is_empty() {
                    spans.push(':');
                }
                spans.push_str(span.name());
                let ext = span.extensions();
                if let Some(f) = ext.get::<FormattedFields<N>>().filter(|f| !f.is_empty()) {
                    let _ = write!(spans, "{{{f}}}");
                }
            }
        }
        let level = *event.metadata().level();
        match self.format {
            LogFormat::Json => {
                let mut obj = Map::new();
                obj.insert("time".into(), now_rfc3339().into());
                obj.insert("level".into(), level_name(level).into());
                obj.insert("target".into(), event.metadata().target().into());
                obj.insert("message".into(), fields.message.into());
                for (k, v) in fields.pairs {
                    obj.insert(k.into(), v);
                }
                if !spans.is_empty() {
                    obj.insert("spans".into(), spans.into());
                }
                writeln!(w, "{}", Value::Object(obj))
            }
            LogFormat::Text => {
                let mut line = String::new();
                if level != Level::INFO {
                    let name = if level == Level::WARN { "warning" } else { level_name(level) };
                    let _ = write!(line, "{name}: ");
                }
                line.push_str(&fields.message);
                // An access line's message is `METHOD ROUTE STATUS` already.
                let access = event.metadata().target() == "locker::access";
                for (k, v) in &fields.pairs {
                    if access && matches!(*k, "method" | "route" | "status") {
                        continue;
                    }
                    let _ = write!(line, " {k}={}", text_value(v));
                }
                if !spans.is_empty() {
                    let _ = write!(line, " in {spans}");
                }
                writeln!(w, "{}", line.trim_start())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_values_are_quoted_only_when_they_must_be() {
        assert_eq!(text_value(&"/v1/pads/{pad_id}".into()), "/v1/pads/{pad_id}");
        assert_eq!(text_value(&"two words".into()), "\"two words\"");
        assert_eq!(text_value(&"".into()), "\"\"");
        assert_eq!(text_value(&"a=b".into()), "\"a=b\"");
        assert_eq!(text_value(&12.into()), "12");
    }

    #[test]
    fn filters_are_checked() {
        assert!(parse_filter("warn").is_ok());
        assert!(parse_filter("locker::access=warn,debug").is_ok());
        let e = parse_filter("loud").unwrap_err();
        assert!(e.contains("`loud`"), "{e}");
        assert!(parse_filter("locker=loud").is_err());
    }

    #[test]
    fn times_have_milliseconds() {
        let t = now_rfc3339();
        assert_eq!(t.len(), "2026-12-02T08:00:00.000Z".len(), "{t}");
        assert!(t.ends_with('Z'));
    }
}
