//! Work items, leases, plans and steps: names, limits, lease states and the plan diff.
//!
//! A work item is a name in a scope. Leases on it are exclusive and numbered by a fencing
//! token (1, 2, 3… per work item, never reused); a plan is a versioned list of unique step
//! names; a step is a record of what was planned and executed under one lease.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

/// Longest work item name, in bytes.
pub const MAX_WORK_BYTES: usize = 256;
/// Longest holder name, in bytes.
pub const MAX_HOLDER_BYTES: usize = 128;
/// Longest step name, in bytes.
pub const MAX_STEP_BYTES: usize = 256;
/// Longest gate name, in bytes.
pub const MAX_GATE_BYTES: usize = 64;
/// Longest free text (planned, executed, heartbeat details, result), in bytes.
pub const MAX_TEXT_BYTES: usize = 16_384;
/// Most steps in one plan.
pub const MAX_PLAN_STEPS: usize = 4096;
/// Largest plan file, in bytes.
pub const MAX_PLAN_FILE_BYTES: usize = 1_048_576;
/// Seconds a lease lasts when `--ttl` is not given.
pub const DEFAULT_LEASE_TTL: i64 = 300;
/// Longest lease TTL (30 days).
pub const MAX_LEASE_TTL: i64 = 2_592_000;
/// The gate of a step when none is given.
pub const DEFAULT_GATE: &str = "agent";

/// A name that breaks the rules, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Invalid(pub String);

fn check_name(what: &str, s: &str, max: usize) -> Result<(), Invalid> {
    if s.is_empty() || s.len() > max || s.chars().any(char::is_control) {
        return Err(Invalid(format!("{what} must be 1–{max} bytes without control characters")));
    }
    Ok(())
}

/// A work item name: 1–256 bytes, no control characters.
pub fn check_work(s: &str) -> Result<(), Invalid> {
    check_name("the work item name", s, MAX_WORK_BYTES)
}

/// A holder name: 1–128 bytes, no control characters.
pub fn check_holder(s: &str) -> Result<(), Invalid> {
    check_name("the holder name", s, MAX_HOLDER_BYTES)
}

/// A step name: 1–256 bytes, no control characters.
pub fn check_step(s: &str) -> Result<(), Invalid> {
    check_name("a step name", s, MAX_STEP_BYTES)
}

/// A gate (who resolved a step: `agent`, `human`, `ci`…): 1–64 bytes of lowercase ASCII
/// letters, digits, `-` and `_`.
pub fn check_gate(s: &str) -> Result<(), Invalid> {
    let ok = !s.is_empty()
        && s.len() <= MAX_GATE_BYTES
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_');
    if ok {
        Ok(())
    } else {
        Err(Invalid(format!(
            "the gate must be 1–{MAX_GATE_BYTES} characters of a–z, 0–9, `-` and `_` (e.g. agent, human)"
        )))
    }
}

/// Free text: at most 16 KiB. Control characters other than newline and tab are refused.
pub fn check_text(what: &str, s: &str) -> Result<(), Invalid> {
    if s.len() > MAX_TEXT_BYTES || s.chars().any(|c| c.is_control() && c != '\n' && c != '\t') {
        return Err(Invalid(format!(
            "{what} must be at most {MAX_TEXT_BYTES} bytes without control characters other than newline and tab"
        )));
    }
    Ok(())
}

/// A lease TTL in seconds: 1 to 30 days.
pub fn check_ttl(ttl: i64) -> Result<(), Invalid> {
    if (1..=MAX_LEASE_TTL).contains(&ttl) {
        Ok(())
    } else {
        Err(Invalid(format!(
            "the lease TTL must be between 1 and {MAX_LEASE_TTL} seconds, got {ttl}"
        )))
    }
}

/// Checks a plan: 1–4096 unique step names, each a valid step name. Duplicates are named.
pub fn check_plan(steps: &[String]) -> Result<(), Invalid> {
    if steps.is_empty() {
        return Err(Invalid("a plan needs at least one step".into()));
    }
    if steps.len() > MAX_PLAN_STEPS {
        return Err(Invalid(format!("a plan has at most {MAX_PLAN_STEPS} steps")));
    }
    for s in steps {
        check_step(s)?;
    }
    let dups = duplicates(steps);
    if !dups.is_empty() {
        return Err(Invalid(format!(
            "a plan's steps must be unique; repeated: {}",
            dups.join(", ")
        )));
    }
    Ok(())
}

/// The names that occur more than once, each once, in order of their first repetition.
pub fn duplicates(steps: &[String]) -> Vec<String> {
    let mut seen = BTreeSet::new();
    let mut dups: Vec<String> = Vec::new();
    for s in steps {
        if !seen.insert(s.as_str()) && !dups.contains(s) {
            dups.push(s.clone());
        }
    }
    dups
}

/// Parses a plan file: a JSON array of strings.
pub fn parse_plan_json(bytes: &[u8]) -> Result<Vec<String>, Invalid> {
    let v: serde_json::Value = serde_json::from_slice(bytes)
        .map_err(|e| Invalid(format!("the plan is not valid JSON: {e}")))?;
    let arr = v
        .as_array()
        .ok_or_else(|| Invalid("the plan must be a JSON array of step names".into()))?;
    arr.iter()
        .enumerate()
        .map(|(i, s)| {
            s.as_str()
                .map(str::to_owned)
                .ok_or_else(|| Invalid(format!("the plan's item {i} is not a string (got {s})")))
        })
        .collect()
}

/// A lease's fencing token on a work item, as carried by a write made under the lease
/// (`--fence WORK:TOKEN`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Fence {
    pub work: String,
    pub token: u64,
}

impl std::fmt::Display for Fence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.work, self.token)
    }
}

/// The stored state of a lease. A lease is live while it is `active` and `now < expires_at`;
/// an active lease past its expiry is turned into `abandoned` by the next access.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    PartialOrd,
    Ord,
    Hash,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum LeaseState {
    Active,
    Completed,
    Released,
    Abandoned,
}

impl LeaseState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Active => "active",
            Self::Completed => "completed",
            Self::Released => "released",
            Self::Abandoned => "abandoned",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "active" => Some(Self::Active),
            "completed" => Some(Self::Completed),
            "released" => Some(Self::Released),
            "abandoned" => Some(Self::Abandoned),
            _ => None,
        }
    }
}

/// Whether a lease that expires at `expires_at` has expired at `now` (expiry is exclusive:
/// at `expires_at` itself the lease is over).
pub fn expired(expires_at: i64, now: i64) -> bool {
    expires_at <= now
}

/// A plan compared with the steps logged.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PlanDiff {
    /// Planned steps never logged, in plan order.
    pub holes: Vec<String>,
    /// Logged steps that are not planned, sorted by their bytes.
    pub extras: Vec<String>,
}

/// Compares `plan` with the step names in `logged` (order and repeats in `logged` do not
/// matter).
pub fn diff(plan: &[String], logged: &[String]) -> PlanDiff {
    let logged: BTreeSet<&str> = logged.iter().map(String::as_str).collect();
    let planned: BTreeSet<&str> = plan.iter().map(String::as_str).collect();
    PlanDiff {
        holes: plan.iter().filter(|s| !logged.contains(s.as_str())).cloned().collect(),
        extras: logged.difference(&planned).map(|s| (*s).to_owned()).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn names_at_and_past_their_edges() {
        assert!(check_work("job-42").is_ok());
        assert!(check_work(&"w".repeat(256)).is_ok());
        assert!(check_work(&"w".repeat(257)).is_err());
        assert!(check_work("").is_err());
        assert!(check_work("a\nb").is_err());
        assert!(check_work("a\u{7f}b").is_err());
        assert!(check_work("ünï:code/1").is_ok());
        assert!(check_step("pay|vendorA").is_ok());
        assert!(check_gate("agent").is_ok());
        assert!(check_gate("human-2").is_ok());
        assert!(check_gate("Human").is_err());
        assert!(check_gate("").is_err());
        assert!(check_text("x", "line\n\tmore").is_ok());
        assert!(check_text("x", "bell\u{7}").is_err());
        assert!(check_text("x", &"a".repeat(MAX_TEXT_BYTES + 1)).is_err());
        assert!(check_ttl(1).is_ok());
        assert!(check_ttl(MAX_LEASE_TTL).is_ok());
        assert!(check_ttl(0).is_err());
        assert!(check_ttl(-100).is_err());
        assert!(check_ttl(MAX_LEASE_TTL + 1).is_err());
    }

    #[test]
    fn plans_must_be_unique_and_non_empty() {
        assert!(check_plan(&v(&["a", "b"])).is_ok());
        assert!(check_plan(&[]).is_err());
        assert!(check_plan(&v(&["a", ""])).is_err());
        let e = check_plan(&v(&["a", "b", "b", "a", "b"])).unwrap_err();
        assert!(e.0.ends_with("repeated: b, a"), "{e}");
        assert_eq!(parse_plan_json(br#"["a","b"]"#).unwrap(), v(&["a", "b"]));
        assert!(parse_plan_json(br#"[{"id":"a"},7]"#).is_err());
        assert!(parse_plan_json(br#"{"steps":[]}"#).is_err());
        assert!(parse_plan_json(b"not json").is_err());
    }

    #[test]
    fn diff_is_deterministic() {
        let d = diff(&v(&["a", "b", "c"]), &v(&["x", "c", "a", "a", "B"]));
        assert_eq!(d.holes, v(&["b"]));
        assert_eq!(d.extras, v(&["B", "x"]));
        let d = diff(&v(&["c", "b", "a"]), &[]);
        assert_eq!(d.holes, v(&["c", "b", "a"]));
        assert!(d.extras.is_empty());
        assert_eq!(diff(&[], &[]), PlanDiff::default());
    }

    #[test]
    fn lease_states_round_trip_and_expiry_is_exclusive() {
        for s in
            [LeaseState::Active, LeaseState::Completed, LeaseState::Released, LeaseState::Abandoned]
        {
            assert_eq!(LeaseState::parse(s.as_str()), Some(s));
        }
        assert_eq!(LeaseState::parse("done"), None);
        assert!(!expired(100, 99));
        assert!(expired(100, 100));
    }
}
