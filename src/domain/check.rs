//! One named check of a report (`locker verify --bundle`, `locker review`): passed, failed, or
//! skipped because it could not apply. A skipped check is never reported as passed.

use serde::{Deserialize, Serialize};

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Pass,
    Fail,
    /// The check could not apply (nothing to check, or a tool it needs is missing).
    Skip,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pass => "pass",
            Self::Fail => "fail",
            Self::Skip => "skip",
        }
    }
}

/// One check: its name, how it came out, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Check {
    pub name: String,
    pub status: Status,
    pub detail: String,
}

impl Check {
    pub fn new(name: &str, status: Status, detail: impl Into<String>) -> Self {
        Self { name: name.to_owned(), status, detail: detail.into() }
    }
    pub fn pass(name: &str, detail: impl Into<String>) -> Self {
        Self::new(name, Status::Pass, detail)
    }
    pub fn fail(name: &str, detail: impl Into<String>) -> Self {
        Self::new(name, Status::Fail, detail)
    }
    pub fn skip(name: &str, detail: impl Into<String>) -> Self {
        Self::new(name, Status::Skip, detail)
    }
    pub fn failed(&self) -> bool {
        self.status == Status::Fail
    }
}

/// Lists problems for a check's detail: the first few, then how many more.
pub fn summarise(problems: &[String]) -> String {
    const SHOWN: usize = 3;
    let mut s = problems.iter().take(SHOWN).cloned().collect::<Vec<_>>().join("; ");
    if problems.len() > SHOWN {
        s.push_str(&format!(" (and {} more)", problems.len() - SHOWN));
    }
    s
}
