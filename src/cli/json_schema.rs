//! The `--json` contract: for every command, the type(s) its output serialises, and a JSON
//! Schema generated from them (`docs/json/<command>.schema.json`, written by
//! `locker util generate-docs` with the man pages; `docs/json.md` explains them).
//!
//! A command that prints a new shape under `--json` adds it here: a test fails for a visible
//! command that is in neither [`OUTPUTS`] nor [`NO_JSON`], and `tests/cli/json_schema.rs`
//! validates real outputs against the committed schemas.

use std::path::PathBuf;

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::{Map, Value};

use crate::ops::admin::backup::{BackupDone, Restored};
use crate::ops::admin::doctor::DoctorReport;
use crate::ops::admin::gc::GcOutcome;
use crate::ops::admin::init::InitOutcome;
use crate::ops::admin::review::ReviewReport;
use crate::ops::admin::store_check::CheckReport;
use crate::ops::admin::store_copy::CopyOutcome;
use crate::ops::artifact::{ArtifactList, ArtifactLog, ArtifactView};
use crate::ops::keys::{KeyGenerated, KeyList, KeyRegistered, KeyRevoked, PolicySet};
use crate::ops::log::cosign::{Cosigned, PolicyReport};
use crate::ops::log::journal::LogEntry;
use crate::ops::log::pin::{CheckpointCheck, ProofReport};
use crate::ops::log::rollback::RollbackAccepted;
use crate::ops::log::{CheckpointOutcome, ConsistencyOutcome, InclusionOutcome, KeyOutcome};
use crate::ops::pad::bundle::{BundleReport, Exported, Imported};
use crate::ops::pad::{
    Appended, BlockSlice, Deposited, Manifest, PadCreated, PadList, Sealed, TicketMinted,
    TicketRevoked,
};
use crate::ops::status::RepoStatus;
use crate::ops::token::{AgentList, TokenCreated, TokenRevoked};
use crate::ops::verify::{PadReport, RepoReport};
use crate::ops::work::history::History;
use crate::ops::work::lease::{
    Acquired, Completed, LeaseList, LeaseView, Reaped, Released, WorkStatus,
};
use crate::ops::work::plan::{Diff, PlanCommitted, PlanView};
use crate::ops::work::step::StepView;
use crate::ops::ErrorObject;
use crate::witness::{WitnessInitialized, WitnessShown};

/// Adds `T`'s schema to a generator and returns it (a `$ref` to it, for a named type).
type Shape = fn(&mut SchemaGenerator) -> Schema;

fn of<T: JsonSchema + ?Sized>(g: &mut SchemaGenerator) -> Schema {
    g.subschema_for::<T>()
}

/// What one command prints on stdout under `--json`.
pub struct JsonOutput {
    /// The command as typed after `locker` (`pad create`).
    pub command: &'static str,
    /// One JSON object per line (JSON Lines: `log`, `quest`) rather than one object.
    pub lines: bool,
    /// The types it prints, each with the options that print it (`""`: the plain command).
    /// Several when the command's options choose between reports (`verify`).
    pub shapes: &'static [(&'static str, Shape)],
}

const fn obj(command: &'static str, shapes: &'static [(&'static str, Shape)]) -> JsonOutput {
    JsonOutput { command, lines: false, shapes }
}

/// Every command with a `--json` output, in the order of `locker --help`.
pub const OUTPUTS: &[JsonOutput] = &[
    obj("init", &[("", of::<InitOutcome>)]),
    obj("status", &[("", of::<RepoStatus>)]),
    obj("pad create", &[("", of::<PadCreated>)]),
    obj("pad append", &[("", of::<Appended>)]),
    obj("pad seal", &[("", of::<Sealed>)]),
    obj("pad ticket", &[("", of::<TicketMinted>)]),
    obj("pad revoke-ticket", &[("", of::<TicketRevoked>)]),
    obj("pad show", &[("", of::<Manifest>)]),
    obj(
        "pad read",
        &[
            ("the blocks read", of::<BlockSlice>),
            (
                "with --remote and --key or --policy, when the blocks read are not the ones the \
                 server's log proves (exit 1)",
                of::<BundleReport>,
            ),
        ],
    ),
    obj("pad list", &[("", of::<PadList>)]),
    obj("pad export", &[("with -o FILE (without it, --json is refused)", of::<Exported>)]),
    obj("pad import", &[("", of::<Imported>)]),
    obj("append", &[("", of::<Appended>)]),
    obj("seal", &[("", of::<Sealed>)]),
    obj("deposit", &[("", of::<Deposited>)]),
    obj("artifact publish", &[("", of::<super::artifact::PublishOutput>)]),
    obj("artifact get", &[("", of::<ArtifactView>)]),
    obj("artifact log", &[("", of::<ArtifactLog>)]),
    obj("artifact list", &[("", of::<ArtifactList>)]),
    obj("token create", &[("", of::<TokenCreated>)]),
    obj("token revoke", &[("", of::<TokenRevoked>)]),
    obj("token list", &[("", of::<AgentList>)]),
    obj("key show", &[("", of::<KeyOutcome>)]),
    obj("key new", &[("", of::<super::key::KeyMade>)]),
    obj("key register", &[("", of::<KeyRegistered>)]),
    obj("key generate", &[("", of::<KeyGenerated>)]),
    obj("key list", &[("", of::<KeyList>)]),
    obj("key revoke", &[("", of::<KeyRevoked>)]),
    obj("key require", &[("", of::<PolicySet>)]),
    obj("lease acquire", &[("", of::<Acquired>)]),
    obj("lease heartbeat", &[("", of::<LeaseView>)]),
    obj("lease complete", &[("", of::<Completed>)]),
    obj("lease release", &[("", of::<Released>)]),
    obj("lease show", &[("", of::<WorkStatus>)]),
    obj("lease list", &[("", of::<LeaseList>)]),
    obj("lease reap", &[("", of::<Reaped>)]),
    obj("lease history", &[("", of::<History>)]),
    obj("manifest commit", &[("", of::<PlanCommitted>)]),
    obj("manifest show", &[("", of::<PlanView>)]),
    obj("manifest diff", &[("", of::<Diff>)]),
    obj("step", &[("", of::<StepView>)]),
    JsonOutput { command: "log", lines: true, shapes: &[("", of::<LogEntry>)] },
    obj(
        "verify",
        &[
            ("the repository (no PAD)", of::<RepoReport>),
            ("with PAD", of::<PadReport>),
            ("with --bundle FILE, or --remote URL, PAD and a ticket", of::<BundleReport>),
            ("with --proof FILE", of::<ProofReport>),
            ("with --checkpoint FILE, or --policy FILE alone", of::<PolicyReport>),
        ],
    ),
    obj(
        "checkpoint",
        &[
            ("the latest signed checkpoint", of::<CheckpointOutcome>),
            ("with --key VKEY or a witness policy", of::<CheckpointCheck>),
            ("with --witness URL", of::<Cosigned>),
            ("with --accept-rollback", of::<RollbackAccepted>),
        ],
    ),
    obj("proof inclusion", &[("", of::<InclusionOutcome>)]),
    obj("proof consistency", &[("", of::<ConsistencyOutcome>)]),
    obj("backup", &[("", of::<BackupDone>)]),
    obj("restore", &[("", of::<Restored>)]),
    obj("gc", &[("", of::<GcOutcome>)]),
    obj("store copy", &[("", of::<CopyOutcome>)]),
    obj("store check", &[("", of::<CheckReport>)]),
    obj("doctor", &[("", of::<DoctorReport>)]),
    obj("review", &[("", of::<ReviewReport>)]),
    JsonOutput {
        command: "quest",
        lines: true,
        shapes: &[("", of::<crate::quest::Record<'static>>)],
    },
    obj("witness init", &[("", of::<WitnessInitialized>)]),
    obj("witness show", &[("", of::<WitnessShown>)]),
];

/// The visible commands that print no JSON document, and what they print instead.
pub const NO_JSON: &[(&str, &str)] = &[
    ("mcp", "speaks MCP (JSON-RPC) on stdin and stdout"),
    ("serve", "serves HTTP; its access log is JSON Lines on stderr"),
    ("witness serve", "serves the witness's HTTP API"),
    ("skill", "prints SKILL.md"),
    ("completions", "prints a shell completion script"),
];

/// The schema file of the error object every command prints on stderr under `--json`.
pub const ERROR_FILE: &str = "error.schema.json";

/// The directory the schemas are written to, relative to the repository root.
pub const DIR: &str = "docs/json";

/// The schema file name of `command` (`pad create` → `pad-create.schema.json`).
pub fn file_name(command: &str) -> String {
    format!("{}.schema.json", command.replace(' ', "-"))
}

/// Every schema file: its path relative to the repository root, and its bytes.
pub fn generated_files() -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<(PathBuf, Vec<u8>)> = OUTPUTS
        .iter()
        .map(|o| (PathBuf::from(DIR).join(file_name(o.command)), render(&output_schema(o))))
        .collect();
    files.push((PathBuf::from(DIR).join(ERROR_FILE), render(&error_schema())));
    files
}

fn render(v: &Value) -> Vec<u8> {
    let mut out = serde_json::to_vec_pretty(v).expect("a JSON value always serialises");
    out.push(b'\n');
    out
}

fn generator() -> SchemaGenerator {
    SchemaSettings::draft2020_12().for_serialize().into_generator()
}

/// The schema of what `o.command` prints (one line of it, for JSON Lines).
pub fn output_schema(o: &JsonOutput) -> Value {
    let what = if o.lines {
        format!(
            "What `locker {} --json` prints on stdout: JSON Lines, one object per line, each \
             matching this schema.",
            o.command
        )
    } else {
        format!("What `locker {} --json` prints on stdout: one JSON object.", o.command)
    };
    let mut g = generator();
    let shapes: Vec<(&str, Schema)> = o.shapes.iter().map(|(when, f)| (*when, f(&mut g))).collect();
    document(&format!("locker {} --json", o.command), &what, shapes, g)
}

/// The schema of the error object on stderr.
pub fn error_schema() -> Value {
    let mut g = generator();
    let shape = g.subschema_for::<ErrorObject<'static>>();
    let what = "What every command prints on stderr under `--json` when it fails (exit 2 to 8): \
                one JSON object on one line.";
    document("locker --json: the error object on stderr", what, vec![("", shape)], g)
}

/// A root schema: `title`, `description`, then the one shape inlined or the alternatives as
/// `anyOf` (each described by the options that print it), and the definitions they use.
fn document(title: &str, what: &str, shapes: Vec<(&str, Schema)>, mut g: SchemaGenerator) -> Value {
    let mut defs = g.take_definitions(true);
    let mut root = Map::new();
    if let Some(meta) = &g.settings().meta_schema {
        root.insert("$schema".into(), Value::String(meta.to_string()));
    }
    root.insert("title".into(), Value::String(title.to_owned()));
    let mut description = what.to_owned();
    if let [(when, shape)] = shapes.as_slice() {
        let inlined = inline(shape, &mut defs);
        if let Some(doc) = inlined.get("description").and_then(Value::as_str) {
            description = format!("{description}\n\n{doc}");
        }
        if !when.is_empty() {
            description = format!("{description}\n\nPrinted {when}.");
        }
        root.insert("description".into(), Value::String(description));
        for (k, v) in inlined {
            if !matches!(k.as_str(), "title" | "description") {
                root.insert(k, v);
            }
        }
    } else {
        root.insert("description".into(), Value::String(description));
        let any = shapes.iter().map(|(when, shape)| {
            let mut m = Map::new();
            m.insert("description".into(), Value::String(format!("Printed {when}.")));
            if let Some(obj) = shape.as_object() {
                m.extend(obj.clone());
            }
            Value::Object(m)
        });
        root.insert("anyOf".into(), Value::Array(any.collect()));
    }
    if !defs.is_empty() {
        root.insert("$defs".into(), Value::Object(defs));
    }
    let mut root = Value::Object(root);
    crate::output::drop_numeric_formats(&mut root);
    root
}

/// The object schema of `shape`: a `$ref` to a definition nothing else refers to is replaced by
/// the definition itself (so a command's own fields are at the top of its file).
fn inline(shape: &Schema, defs: &mut Map<String, Value>) -> Map<String, Value> {
    let own = shape.as_object().cloned().unwrap_or_default();
    let Some(name) =
        own.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/$defs/"))
    else {
        return own;
    };
    let name = name.to_owned();
    let target = format!("\"#/$defs/{name}\"");
    if own.len() != 1 || serde_json::to_string(defs).unwrap_or_default().contains(&target) {
        return own;
    }
    match defs.remove(&name) {
        Some(Value::Object(def)) => def,
        Some(other) => {
            defs.insert(name, other);
            own
        }
        None => own,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every visible leaf command, as typed after `locker`.
    fn leaves(cmd: &clap::Command, prefix: &str, out: &mut Vec<String>) {
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set() && s.get_name() != "help") {
            let path = format!("{prefix}{}", sub.get_name());
            if sub.has_subcommands() {
                leaves(sub, &format!("{path} "), out);
            } else {
                out.push(path);
            }
        }
    }

    #[test]
    fn every_command_has_a_json_shape_or_says_why_not() {
        let mut all = Vec::new();
        leaves(&crate::cli::command(), "", &mut all);
        let known = |c: &str| {
            OUTPUTS.iter().any(|o| o.command == c) || NO_JSON.iter().any(|(n, _)| *n == c)
        };
        let missing: Vec<&String> = all.iter().filter(|c| !known(c)).collect();
        assert!(missing.is_empty(), "commands with no --json schema: {missing:?}");
        for o in OUTPUTS.iter().map(|o| o.command).chain(NO_JSON.iter().map(|(n, _)| *n)) {
            assert!(all.iter().any(|c| c == o), "`{o}` is not a command");
        }
        let mut names: Vec<String> = OUTPUTS.iter().map(|o| file_name(o.command)).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), OUTPUTS.len());
    }

    #[test]
    fn schemas_are_objects_with_no_dangling_refs() {
        for (path, bytes) in generated_files() {
            let v: Value = serde_json::from_slice(&bytes).unwrap();
            let text = String::from_utf8(bytes).unwrap();
            assert!(v.get("title").is_some(), "{}", path.display());
            let defs = v.get("$defs").and_then(Value::as_object).cloned().unwrap_or_default();
            for (i, _) in text.match_indices("\"#/$defs/") {
                let rest = &text[i + 9..];
                let name = &rest[..rest.find('"').unwrap()];
                assert!(defs.contains_key(name), "{}: dangling {name}", path.display());
            }
            assert!(!text.contains("\"uint"), "{}", path.display());
        }
    }

    #[test]
    fn the_error_schema_names_the_error_fields() {
        let v = error_schema();
        assert_eq!(v["required"], serde_json::json!(["error", "detail"]));
        assert_eq!(v["properties"]["hints"]["type"], "array");
    }
}
