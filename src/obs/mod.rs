//! Observability: levelled, structured logs ([`log`], written by a thread of their own in a
//! server: [`sink`]), the server's Prometheus metrics
//! ([`metrics`]) and the process's own ([`process`]); with the `otlp` feature, traces
//! exported over OTLP (`otlp`).
//!
//! Nothing here knows the store or the operations: the server and the writer record into
//! [`metrics::metrics`], and `GET /metrics` adds the repository's gauges it reads at scrape
//! time.

pub mod log;
pub mod metrics;
#[cfg(feature = "otlp")]
pub mod otlp;
pub mod process;
pub mod sink;
