//! OpenTelemetry trace export over OTLP/HTTP (cargo feature `otlp`, off by default).
//!
//! When `OTEL_EXPORTER_OTLP_ENDPOINT` is set (e.g. `http://127.0.0.1:4318`), every span of
//! locker's own code at `debug` and above (requests, reads, writes) is exported to
//! `ENDPOINT/v1/traces` in batches, as service `locker`, whatever `--log-level` says about
//! the log. The other `OTEL_EXPORTER_OTLP_*` variables (headers, timeout) work as the
//! OpenTelemetry SDK reads them. [`shutdown`] sends what is left when the process ends.

use std::sync::OnceLock;

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing::Subscriber;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::Layer;

static PROVIDER: OnceLock<SdkTracerProvider> = OnceLock::new();

/// The exporting layer, if `OTEL_EXPORTER_OTLP_ENDPOINT` is set and the exporter can be made.
pub fn layer<S>() -> Option<impl Layer<S>>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    std::env::var("OTEL_EXPORTER_OTLP_ENDPOINT").ok().filter(|e| !e.trim().is_empty())?;
    let exporter = match opentelemetry_otlp::SpanExporter::builder().with_http().build() {
        Ok(e) => e,
        Err(e) => {
            // The subscriber is not installed yet: this is the one place that says it directly.
            let line = format!("warning: OTLP trace export is off: {e}\n");
            let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
            return None;
        }
    };
    let resource = opentelemetry_sdk::Resource::builder().with_service_name("locker").build();
    let provider =
        SdkTracerProvider::builder().with_batch_exporter(exporter).with_resource(resource).build();
    let tracer = provider.tracer("locker");
    let _ = PROVIDER.set(provider);
    let spans = Targets::new().with_target("locker", tracing::Level::DEBUG);
    Some(tracing_opentelemetry::layer().with_tracer(tracer).with_filter(spans))
}

/// Exports the spans not yet sent, and stops the exporter.
pub fn shutdown() {
    if let Some(p) = PROVIDER.get() {
        let _ = p.shutdown();
    }
}
