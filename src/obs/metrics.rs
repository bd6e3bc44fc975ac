//! The server's metrics, in Prometheus' text exposition format (version 0.0.4).
//!
//! Counters and histograms are kept here as the process runs ([`metrics`] is the one
//! registry); gauges of the repository's state (journal, pads, leases, checkpoints, disk) are
//! read from the store when `GET /metrics` is scraped and written with [`Exposition::gauge`].
//! Names follow Prometheus' conventions: the `locker_` prefix, base units (`_seconds`,
//! `_bytes`), `_total` on counters, and help text on every family.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

/// Seconds: the buckets of every latency histogram (0.5 ms to 10 s).
const LATENCY: &[f64] =
    &[0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0];

/// Requests per group commit.
const GROUP_SIZE: &[f64] = &[1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0];

/// The map key of a label-value tuple.
fn key(values: &[&str]) -> Vec<String> {
    values.iter().map(|v| (*v).to_owned()).collect()
}

/// A family of counters, one per label-value tuple.
#[derive(Debug)]
pub struct Counters {
    name: &'static str,
    help: &'static str,
    labels: &'static [&'static str],
    values: Mutex<BTreeMap<Vec<String>, u64>>,
}

impl Counters {
    const fn new(name: &'static str, help: &'static str, labels: &'static [&'static str]) -> Self {
        Self { name, help, labels, values: Mutex::new(BTreeMap::new()) }
    }

    /// Adds `n` to the counter of `values` (one per label, in order).
    pub fn add(&self, values: &[&str], n: u64) {
        debug_assert_eq!(values.len(), self.labels.len(), "{}", self.name);
        if let Ok(mut m) = self.values.lock() {
            *m.entry(key(values)).or_insert(0) += n;
        }
    }

    pub fn inc(&self, values: &[&str]) {
        self.add(values, 1);
    }

    /// The sum of every counter of the family.
    pub fn total(&self) -> u64 {
        self.values.lock().map_or(0, |m| m.values().sum())
    }

    fn write(&self, out: &mut Exposition) {
        out.header(self.name, self.help, "counter");
        let values = self.values.lock().map(|m| m.clone()).unwrap_or_default();
        if values.is_empty() && self.labels.is_empty() {
            out.sample(self.name, &[], &[], 0.0);
        }
        for (key, n) in values {
            out.sample(self.name, self.labels, &key, n as f64);
        }
    }
}

/// One histogram's state.
#[derive(Debug, Clone)]
struct Buckets {
    /// Observations at or below each bound (not cumulative here; summed when written).
    counts: Vec<u64>,
    sum: f64,
    count: u64,
}

/// A family of histograms, one per label-value tuple.
#[derive(Debug)]
pub struct Histograms {
    name: &'static str,
    help: &'static str,
    labels: &'static [&'static str],
    bounds: &'static [f64],
    values: Mutex<BTreeMap<Vec<String>, Buckets>>,
}

impl Histograms {
    const fn new(
        name: &'static str,
        help: &'static str,
        labels: &'static [&'static str],
        bounds: &'static [f64],
    ) -> Self {
        Self { name, help, labels, bounds, values: Mutex::new(BTreeMap::new()) }
    }

    /// Records one observation of `v` under `values`.
    pub fn observe(&self, values: &[&str], v: f64) {
        debug_assert_eq!(values.len(), self.labels.len(), "{}", self.name);
        let Ok(mut m) = self.values.lock() else { return };
        let b = m.entry(key(values)).or_insert_with(|| Buckets {
            counts: vec![0; self.bounds.len()],
            sum: 0.0,
            count: 0,
        });
        if let Some(i) = self.bounds.iter().position(|bound| v <= *bound) {
            b.counts[i] += 1;
        }
        b.sum += v;
        b.count += 1;
    }

    fn write(&self, out: &mut Exposition) {
        out.header(self.name, self.help, "histogram");
        let mut values = self.values.lock().map(|m| m.clone()).unwrap_or_default();
        if values.is_empty() && self.labels.is_empty() {
            values.insert(
                Vec::new(),
                Buckets { counts: vec![0; self.bounds.len()], sum: 0.0, count: 0 },
            );
        }
        let bucket = format!("{}_bucket", self.name);
        let mut labels: Vec<&str> = self.labels.to_vec();
        labels.push("le");
        for (key, b) in values {
            let mut cumulative = 0;
            for (bound, n) in self.bounds.iter().zip(&b.counts) {
                cumulative += n;
                let mut k = key.clone();
                k.push(format_value(*bound));
                out.sample(&bucket, &labels, &k, cumulative as f64);
            }
            let mut k = key.clone();
            k.push("+Inf".to_owned());
            out.sample(&bucket, &labels, &k, b.count as f64);
            out.sample(&format!("{}_sum", self.name), self.labels, &key, b.sum);
            out.sample(&format!("{}_count", self.name), self.labels, &key, b.count as f64);
        }
    }
}

/// Every counter and histogram the server keeps.
#[derive(Debug)]
pub struct Metrics {
    /// HTTP requests answered.
    pub http_requests: Counters,
    /// How long HTTP requests took to answer.
    pub http_duration: Histograms,
    /// Requests and connections refused before they reached an operation.
    pub admission_refusals: Counters,
    /// Group commits made by the writer.
    pub commit_groups: Counters,
    pub commit_group_size: Histograms,
    pub commit_duration: Histograms,
    /// Groups undone by a write sent ahead and run again (PostgreSQL).
    pub commit_group_reruns: Counters,
    /// Failed operations whose cause was the store or the server itself.
    pub store_errors: Counters,
    /// Database connections replaced after they were lost (PostgreSQL).
    pub store_reconnects: Counters,
    pub cosignatures: Counters,
    pub cosignature_failures: Counters,
    /// Log lines a server dropped because its stderr was not read ([`super::sink`]).
    pub log_lines_dropped: Counters,
    in_flight: std::sync::atomic::AtomicI64,
}

impl Metrics {
    const fn new() -> Self {
        Self {
            http_requests: Counters::new(
                "locker_http_requests_total",
                "HTTP requests answered, by method, route template and status.",
                &["method", "route", "status"],
            ),
            http_duration: Histograms::new(
                "locker_http_request_duration_seconds",
                "Time from a request's arrival to its answer, by method and route template.",
                &["method", "route"],
                LATENCY,
            ),
            admission_refusals: Counters::new(
                "locker_http_admission_refusals_total",
                "Requests and connections refused before any operation ran, by reason.",
                &["reason"],
            ),
            commit_groups: Counters::new(
                "locker_commit_groups_total",
                "Group commits made by the writer (each one durable commit).",
                &[],
            ),
            commit_group_size: Histograms::new(
                "locker_commit_group_size",
                "Write requests applied in one group commit.",
                &[],
                GROUP_SIZE,
            ),
            commit_duration: Histograms::new(
                "locker_commit_duration_seconds",
                "Time a group commit took to become durable (the commit and its fsync).",
                &[],
                LATENCY,
            ),
            commit_group_reruns: Counters::new(
                "locker_commit_group_reruns_total",
                "Group commits undone by a write sent ahead that failed, and run again waiting \
                 for each write (PostgreSQL).",
                &[],
            ),
            store_errors: Counters::new(
                "locker_store_errors_total",
                "Operations that failed because of the store or the server (not the caller), \
                 by kind.",
                &["kind"],
            ),
            store_reconnects: Counters::new(
                "locker_store_reconnects_total",
                "Database connections replaced after they were lost (a restart or failover of \
                 PostgreSQL).",
                &[],
            ),
            cosignatures: Counters::new(
                "locker_witness_cosignatures_total",
                "Checkpoint cosignatures received from each witness.",
                &["witness"],
            ),
            cosignature_failures: Counters::new(
                "locker_witness_cosignature_failures_total",
                "Checkpoint cosignature requests a witness refused or did not answer.",
                &["witness"],
            ),
            log_lines_dropped: Counters::new(
                "locker_log_lines_dropped_total",
                "Log lines dropped because stderr was not read fast enough (its reader stopped \
                 or fell behind).",
                &[],
            ),
            in_flight: std::sync::atomic::AtomicI64::new(0),
        }
    }

    /// One more request in flight, until the guard is dropped.
    pub fn request_started(&'static self) -> InFlight {
        self.in_flight.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        InFlight(self)
    }

    /// Records a group commit of `size` requests that took `took` to commit.
    pub fn group_committed(&self, size: usize, took: Duration) {
        self.commit_groups.inc(&[]);
        self.commit_group_size.observe(&[], size as f64);
        self.commit_duration.observe(&[], took.as_secs_f64());
    }

    /// Writes every family this registry keeps.
    pub fn write(&self, out: &mut Exposition) {
        out.header(
            "locker_build_info",
            "The version of locker answering (the value is always 1).",
            "gauge",
        );
        out.sample("locker_build_info", &["version"], &[env!("CARGO_PKG_VERSION").into()], 1.0);
        self.http_requests.write(out);
        self.http_duration.write(out);
        out.gauge(
            "locker_http_requests_in_flight",
            "HTTP requests being answered now.",
            self.in_flight.load(std::sync::atomic::Ordering::Relaxed) as f64,
        );
        self.admission_refusals.write(out);
        self.commit_groups.write(out);
        self.commit_group_size.write(out);
        self.commit_duration.write(out);
        self.commit_group_reruns.write(out);
        self.store_errors.write(out);
        self.store_reconnects.write(out);
        self.cosignatures.write(out);
        self.cosignature_failures.write(out);
        self.log_lines_dropped.write(out);
    }
}

/// A request in flight (see [`Metrics::request_started`]).
#[derive(Debug)]
pub struct InFlight(&'static Metrics);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
    }
}

/// The process's registry.
pub fn metrics() -> &'static Metrics {
    static METRICS: OnceLock<Metrics> = OnceLock::new();
    METRICS.get_or_init(Metrics::new)
}

/// The text of a scrape, being written.
#[derive(Debug, Default)]
pub struct Exposition {
    text: String,
}

impl Exposition {
    /// The content type of the text this writes.
    pub const CONTENT_TYPE: &'static str = "text/plain; version=0.0.4; charset=utf-8";

    pub fn into_string(self) -> String {
        self.text
    }

    /// `# HELP` and `# TYPE` of a family.
    pub fn header(&mut self, name: &str, help: &str, kind: &str) {
        let help = help.replace('\\', "\\\\").replace('\n', "\\n");
        let _ = writeln!(self.text, "# HELP {name} {help}\n# TYPE {name} {kind}");
    }

    /// One sample line.
    pub fn sample(&mut self, name: &str, labels: &[&str], values: &[String], v: f64) {
        self.text.push_str(name);
        if !labels.is_empty() {
            self.text.push('{');
            for (i, (l, value)) in labels.iter().zip(values).enumerate() {
                if i > 0 {
                    self.text.push(',');
                }
                let escaped = value.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n");
                let _ = write!(self.text, "{l}=\"{escaped}\"");
            }
            self.text.push('}');
        }
        let _ = writeln!(self.text, " {}", format_value(v));
    }

    /// A gauge family with one unlabelled sample.
    pub fn gauge(&mut self, name: &str, help: &str, v: f64) {
        self.header(name, help, "gauge");
        self.sample(name, &[], &[], v);
    }

    /// A gauge family with one label and a sample per value of it.
    pub fn gauges(&mut self, name: &str, help: &str, label: &str, samples: &[(&str, f64)]) {
        self.header(name, help, "gauge");
        for (value, v) in samples {
            self.sample(name, &[label], &[(*value).to_owned()], *v);
        }
    }

    /// A counter family with one unlabelled sample (for counts kept elsewhere, such as the
    /// process's CPU time).
    pub fn counter(&mut self, name: &str, help: &str, v: f64) {
        self.header(name, help, "counter");
        self.sample(name, &[], &[], v);
    }
}

/// A sample value as the format spells it.
fn format_value(v: f64) -> String {
    if v.is_infinite() {
        return if v > 0.0 { "+Inf".into() } else { "-Inf".into() };
    }
    if v.is_nan() {
        return "NaN".into();
    }
    if v.fract() == 0.0 && v.abs() < 1e15 {
        return format!("{}", v as i64);
    }
    format!("{v}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_and_histograms_write_the_text_format() {
        let c = Counters::new("t_requests_total", "Requests.", &["route", "status"]);
        c.inc(&["/a", "200"]);
        c.add(&["/a", "200"], 2);
        c.inc(&["/b\"x", "500"]);
        let h = Histograms::new("t_seconds", "Time.", &["route"], &[0.1, 1.0]);
        h.observe(&["/a"], 0.05);
        h.observe(&["/a"], 0.5);
        h.observe(&["/a"], 7.0);
        let mut out = Exposition::default();
        c.write(&mut out);
        h.write(&mut out);
        let text = out.into_string();
        assert_eq!(
            text,
            "# HELP t_requests_total Requests.\n# TYPE t_requests_total counter\n\
             t_requests_total{route=\"/a\",status=\"200\"} 3\n\
             t_requests_total{route=\"/b\\\"x\",status=\"500\"} 1\n\
             # HELP t_seconds Time.\n# TYPE t_seconds histogram\n\
             t_seconds_bucket{route=\"/a\",le=\"0.1\"} 1\n\
             t_seconds_bucket{route=\"/a\",le=\"1\"} 2\n\
             t_seconds_bucket{route=\"/a\",le=\"+Inf\"} 3\n\
             t_seconds_sum{route=\"/a\"} 7.55\n\
             t_seconds_count{route=\"/a\"} 3\n"
        );
    }

    #[test]
    fn an_unlabelled_family_is_written_before_anything_is_counted() {
        let mut out = Exposition::default();
        Counters::new("t_total", "T.", &[]).write(&mut out);
        Histograms::new("t_size", "S.", &[], &[1.0]).write(&mut out);
        let text = out.into_string();
        assert!(text.contains("\nt_total 0\n"), "{text}");
        assert!(text.contains("t_size_bucket{le=\"+Inf\"} 0\nt_size_sum 0\nt_size_count 0\n"));
    }
}
