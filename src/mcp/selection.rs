//! Which tools a server offers: its toolsets and whether it is read-only. `locker mcp` takes
//! them from `--toolsets` and `--read-only`; any other front end that serves MCP builds the
//! same [`ToolSelection`] and hands it to [`super::McpServer::new`].

use std::collections::BTreeSet;
use std::fmt;

use crate::ops::{OpError, OpResult};

/// A group of tools: one module of `tools/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Toolset {
    /// Handoff pads: deposit, create, append, seal, read, list, tickets.
    Pads,
    /// Versioned artifacts: publish, get, log, list.
    Artifacts,
    /// Leases on work items, their plans and steps.
    Work,
    /// Verification, the journal, checkpoints and proofs.
    Log,
    /// The agent's own signing key.
    Admin,
}

impl Toolset {
    /// Every toolset, in the order `tools/list` shows their tools.
    pub const ALL: [Self; 5] = [Self::Pads, Self::Artifacts, Self::Work, Self::Log, Self::Admin];
    /// Their names, as `--toolsets` takes them, in the same order.
    pub const NAMES: [&'static str; 5] = ["pads", "artifacts", "work", "log", "admin"];

    /// The toolset's name.
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// The toolset named `name`, if there is one.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }
}

impl fmt::Display for Toolset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which tools a server offers: the tools of `toolsets` (every toolset by default), and of
/// those only the read-only ones when `read_only` is set. A tool not offered is neither listed
/// nor callable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolSelection {
    /// Only tools whose `readOnlyHint` is true.
    pub read_only: bool,
    /// The toolsets offered.
    pub toolsets: BTreeSet<Toolset>,
}

impl Default for ToolSelection {
    /// Every tool.
    fn default() -> Self {
        Self { read_only: false, toolsets: Toolset::ALL.into_iter().collect() }
    }
}

impl ToolSelection {
    /// The toolsets named in `names` (each may itself be a comma-separated list); an unknown
    /// name is a usage error naming the valid ones. No name at all means every toolset.
    pub fn with_toolsets<'a>(mut self, names: impl IntoIterator<Item = &'a str>) -> OpResult<Self> {
        let mut chosen = BTreeSet::new();
        for name in names.into_iter().flat_map(|n| n.split(',')).map(str::trim) {
            let set = Toolset::from_name(name).ok_or_else(|| {
                OpError::usage(format!(
                    "unknown toolset `{name}`: the toolsets are {}",
                    Toolset::NAMES.join(", ")
                ))
            })?;
            chosen.insert(set);
        }
        if !chosen.is_empty() {
            self.toolsets = chosen;
        }
        Ok(self)
    }

    /// Read-only (or not).
    #[must_use]
    pub fn read_only(mut self, read_only: bool) -> Self {
        self.read_only = read_only;
        self
    }

    /// Why a tool of `toolset` (read-only or not) is not offered, or `None` when it is.
    pub fn refusal(&self, toolset: Toolset, read_only: bool) -> Option<String> {
        if !self.toolsets.contains(&toolset) {
            let offered: Vec<&str> = self.toolsets.iter().map(|t| t.name()).collect();
            return Some(format!(
                "it is in the {toolset} toolset, and this server offers only {}",
                offered.join(", ")
            ));
        }
        if self.read_only && !read_only {
            return Some(
                "it changes the repository, and this server is read-only (it offers only the \
                 tools that change nothing)"
                    .to_owned(),
            );
        }
        None
    }

    /// The selection as its command-line flags would say it (for messages).
    pub fn describe(&self) -> String {
        let sets: Vec<&str> = self.toolsets.iter().map(|t| t.name()).collect();
        let mode = if self.read_only { ", read-only" } else { "" };
        format!("toolsets {}{mode}", sets.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_in_order() {
        for (i, t) in Toolset::ALL.into_iter().enumerate() {
            assert_eq!(t.name(), Toolset::NAMES[i]);
            assert_eq!(Toolset::from_name(t.name()), Some(t));
        }
        assert_eq!(Toolset::from_name("Pads"), None);
    }

    #[test]
    fn toolsets_parse_from_lists_and_refuse_unknown_names() {
        let all = ToolSelection::default();
        assert_eq!(all.toolsets.len(), 5);
        assert!(!all.read_only);
        let s = ToolSelection::default().with_toolsets(["pads,work", "log"]).unwrap();
        assert_eq!(
            s.toolsets.into_iter().collect::<Vec<_>>(),
            [Toolset::Pads, Toolset::Work, Toolset::Log]
        );
        assert_eq!(ToolSelection::default().with_toolsets([]).unwrap(), all);
        let e = ToolSelection::default().with_toolsets(["pads,nope"]).unwrap_err();
        assert_eq!(e.kind, crate::ops::ErrorKind::Usage);
        assert!(e.detail.contains("`nope`"), "{e}");
        assert!(e.detail.contains("pads, artifacts, work, log, admin"), "{e}");
        assert!(ToolSelection::default().with_toolsets([""]).is_err());
    }

    #[test]
    fn refusals_say_why() {
        let s = ToolSelection::default().with_toolsets(["pads"]).unwrap().read_only(true);
        assert_eq!(s.refusal(Toolset::Pads, true), None);
        assert!(s.refusal(Toolset::Pads, false).unwrap().contains("read-only"));
        assert!(s.refusal(Toolset::Work, true).unwrap().contains("work toolset"));
        assert_eq!(s.describe(), "toolsets pads, read-only");
    }
}
