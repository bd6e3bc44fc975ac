//! What `locker doctor --remote` makes of a server's `GET /metrics`: the findings an alert in
//! `deploy/prometheus/alerts.yml` would raise, read from one scrape.

use std::collections::BTreeMap;

use super::doctor::{Severity, DISK_PROBLEM_PERCENT, DISK_WARN_PERCENT};

/// One finding: how bad, what, and what to do.
pub type Finding = (Severity, String, Option<String>);

/// The samples of a text exposition: `name` → (labels as written, value).
fn samples(text: &str) -> BTreeMap<String, Vec<(String, f64)>> {
    let mut out: BTreeMap<String, Vec<(String, f64)>> = BTreeMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let Some((series, value)) = line.rsplit_once(' ') else { continue };
        let Ok(v) = value.parse::<f64>() else { continue };
        let (name, labels) = match series.split_once('{') {
            Some((n, l)) => (n, l.trim_end_matches('}')),
            None => (series, ""),
        };
        out.entry(name.to_owned()).or_default().push((labels.to_owned(), v));
    }
    out
}

/// The value of a label in a sample's label text (`kind="busy",x="y"`).
fn label<'a>(labels: &'a str, name: &str) -> Option<&'a str> {
    labels.split(',').find_map(|kv| kv.strip_prefix(name)?.strip_prefix("=\"")?.strip_suffix('"'))
}

/// The findings of one scrape.
pub fn findings(text: &str) -> Vec<Finding> {
    let s = samples(text);
    let one = |name: &str| s.get(name).and_then(|v| v.first()).map(|(_, v)| *v);
    let sum = |name: &str| s.get(name).map_or(0.0, |v| v.iter().map(|(_, v)| v).sum::<f64>());
    let mut out = Vec::new();
    if one("locker_store_up") == Some(0.0) {
        out.push((
            Severity::Problem,
            "the server cannot read its store".into(),
            Some("Check the database (or the disk) behind the server, and its log.".into()),
        ));
    }
    for (labels, n) in s.get("locker_store_errors_total").into_iter().flatten() {
        let kind = label(labels, "kind").unwrap_or("?");
        if *n > 0.0 {
            let bad = matches!(kind, "corrupt" | "storage");
            out.push((
                if bad { Severity::Problem } else { Severity::Warn },
                format!("{n} `{kind}` store error(s) since the server started"),
                Some(if kind == "corrupt" {
                    "Run `locker verify` on the server's repository; restore a backup if it fails."
                        .into()
                } else {
                    "Check the server's log (`warn` events) and the disk or database.".into()
                }),
            ));
        }
    }
    for (labels, n) in s.get("locker_witness_cosignature_failures_total").into_iter().flatten() {
        if *n > 0.0 {
            let w = label(labels, "witness").unwrap_or("?");
            out.push((
                Severity::Warn,
                format!("the witness {w} refused or missed {n} cosignature(s)"),
                Some("Check the server's log for the witness's answer: a refusal can mean the log was rolled back.".into()),
            ));
        }
    }
    if let (Some(size), Some(entries), Some(age)) = (
        one("locker_checkpoint_tree_size"),
        one("locker_journal_entries"),
        one("locker_checkpoint_age_seconds"),
    ) {
        if size < entries && age > 600.0 {
            out.push((
                Severity::Warn,
                format!(
                    "the newest checkpoint covers {size} of {entries} entries and is {age:.0} s old"
                ),
                Some("Check the server's log for `no checkpoint was signed`.".into()),
            ));
        }
    }
    if let (Some(free), Some(size)) = (one("locker_disk_free_bytes"), one("locker_disk_size_bytes"))
    {
        let percent = 100.0 * free / size;
        if size > 0.0 && percent < DISK_WARN_PERCENT as f64 {
            out.push((
                if percent < DISK_PROBLEM_PERCENT as f64 {
                    Severity::Problem
                } else {
                    Severity::Warn
                },
                format!("the server's disk is {percent:.0}% free"),
                Some(
                    "Free space on the repository's file system (`locker gc` prunes expired pads)."
                        .into(),
                ),
            ));
        }
    }
    let requests = sum("locker_http_requests_total");
    let failed: f64 = s
        .get("locker_http_requests_total")
        .into_iter()
        .flatten()
        .filter(|(l, _)| label(l, "status").is_some_and(|st| st.starts_with('5')))
        .map(|(_, v)| v)
        .sum();
    if requests >= 20.0 && failed / requests > 0.05 {
        out.push((
            Severity::Warn,
            format!("{failed} of {requests} requests failed on the server's side (5xx)"),
            Some("Check the server's log for `warn` access events.".into()),
        ));
    }
    if out.is_empty() {
        out.push((
            Severity::Ok,
            format!(
                "server metrics: {requests} requests, {} group commits, journal {} entries, \
                 checkpoint at {}",
                one("locker_commit_groups_total").unwrap_or(0.0),
                one("locker_journal_entries").unwrap_or(0.0),
                one("locker_checkpoint_tree_size").map_or("none".to_owned(), |v| v.to_string())
            ),
            None,
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEALTHY: &str = "# TYPE locker_store_up gauge\nlocker_store_up 1\n\
        locker_http_requests_total{method=\"GET\",route=\"/health\",status=\"200\"} 40\n\
        locker_store_errors_total{kind=\"busy\"} 0\n\
        locker_journal_entries 12\nlocker_checkpoint_tree_size 12\n\
        locker_checkpoint_age_seconds 5000\nlocker_commit_groups_total 9\n\
        locker_disk_free_bytes 50\nlocker_disk_size_bytes 100\n";

    #[test]
    fn a_healthy_scrape_is_one_ok_line() {
        let f = findings(HEALTHY);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].0, Severity::Ok);
        assert!(f[0].1.contains("40 requests") && f[0].1.contains("checkpoint at 12"), "{f:?}");
    }

    #[test]
    fn a_disk_is_low_under_five_percent_and_a_problem_under_three() {
        let disk = |free: u64, size: u64| {
            findings(&format!("locker_disk_free_bytes {free}\nlocker_disk_size_bytes {size}\n"))
        };
        // A large disk a tenth free (24 of 252 GB) is not low.
        assert_eq!(disk(24_000, 252_000)[0].0, Severity::Ok);
        assert_eq!(disk(5, 100)[0].0, Severity::Ok);
        let low = disk(4, 100);
        assert_eq!((low[0].0, low[0].1.as_str()), (Severity::Warn, "the server's disk is 4% free"));
        assert_eq!(disk(2, 100)[0].0, Severity::Problem);
    }

    #[test]
    fn what_an_alert_would_raise_is_reported() {
        let text = "locker_store_up 0\n\
            locker_store_errors_total{kind=\"corrupt\"} 2\nlocker_store_errors_total{kind=\"busy\"} 1\n\
            locker_witness_cosignature_failures_total{witness=\"http://w:1/\"} 3\n\
            locker_journal_entries 20\nlocker_checkpoint_tree_size 12\n\
            locker_checkpoint_age_seconds 900\n\
            locker_disk_free_bytes 2\nlocker_disk_size_bytes 100\n\
            locker_http_requests_total{method=\"GET\",route=\"/v1/pads\",status=\"503\"} 10\n\
            locker_http_requests_total{method=\"GET\",route=\"/v1/pads\",status=\"200\"} 30\n";
        let f = findings(text);
        let says = |s: &str, sev: Severity| f.iter().any(|(v, d, _)| *v == sev && d.contains(s));
        assert!(says("cannot read its store", Severity::Problem), "{f:?}");
        assert!(says("`corrupt` store error", Severity::Problem), "{f:?}");
        assert!(says("`busy` store error", Severity::Warn), "{f:?}");
        assert!(says("http://w:1/ refused or missed 3", Severity::Warn), "{f:?}");
        assert!(says("covers 12 of 20 entries", Severity::Warn), "{f:?}");
        assert!(says("disk is 2% free", Severity::Problem), "{f:?}");
        assert!(says("10 of 40 requests failed", Severity::Warn), "{f:?}");
    }
}
