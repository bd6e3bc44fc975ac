//! The tool table: name, description, input and output schemas, annotations, and a handler
//! that calls the operations interface. One module per toolset ([`Toolset`]): [`pads`]
//! (agent-locker's six tools keep their names, inputs and defaults, so prompts written for its
//! `lockermcp` keep working), [`artifacts`], [`work`], [`log`] and [`admin`].

mod admin;
mod artifacts;
mod log;
mod pads;
mod work;

use std::sync::Arc;

use rmcp::handler::server::tool::{schema_for_input, schema_for_output};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use super::selection::Toolset;
use super::Call;
use crate::ops::{ErrorKind, OpError, OpResult};

type Handler = Box<dyn Fn(&Call<'_>, JsonObject) -> OpResult<Value> + Send + Sync>;

// The bounds the input schemas declare (`minimum`, `maximum`, `maxLength`, `pattern`) are the
// operations' own, named by their constants; a client need not honour them: the operation
// checks its input again and answers with its own error. A byte limit is declared as that many
// characters (a character is at least one byte), so a schema never refuses what the operation
// takes.

/// A SHA-256 as every head and digest is written: 64 lowercase hex characters.
const HEX64: &str = "^[0-9a-f]{64}$";
/// A lease id: 32 lowercase hex characters.
const LEASE_ID: &str = "^[0-9a-f]{32}$";
/// A pay-per-pad transaction hash (surrounding blanks are ignored).
const TX_HASH: &str = r"^\s*0x[0-9a-fA-F]{64}\s*$";
/// A fencing token, `WORK:TOKEN` with a positive integer token.
const FENCE: &str = r"^.+:\+?0*[1-9][0-9]*$";
/// A gate: who resolved a step.
const GATE: &str = "^[a-z0-9_-]+$";

/// One tool: its toolset, its MCP definition and its handler.
pub struct ToolDef {
    pub toolset: Toolset,
    pub tool: Tool,
    pub call: Handler,
}

impl ToolDef {
    /// Whether the tool changes nothing (its `readOnlyHint`): what `--read-only` offers.
    pub fn read_only(&self) -> bool {
        self.tool.annotations.as_ref().and_then(|a| a.read_only_hint) == Some(true)
    }
}

/// A tool as its toolset's module defines it.
struct Def {
    tool: Tool,
    call: Handler,
}

/// What a tool does to the repository: its MCP annotations (`openWorldHint` is always false:
/// locker touches nothing but its own repository).
///
/// Read-only means the call changes nothing the caller asked about: no pad, block, ticket,
/// artifact, lease, plan, step or key. What the repository does on any access does not count:
/// an expired lease is recorded as abandoned when its work item is next touched, the log signs a
/// checkpoint once its journal has grown, and a `read_once` ticket's read lease opens at its
/// first read (that is what reading with such a ticket means). Each is said in the tool's
/// description.
#[derive(Clone, Copy)]
enum Effect {
    /// Changes nothing.
    ReadOnly,
    /// Adds state; a repeat adds again (another pad, block, ticket or heartbeat).
    Adds,
    /// Adds state at most once: a repeat with the same arguments changes nothing (it is replayed
    /// or refused).
    AddsOnce,
    /// May end state that exists (a rotation revokes the current key); a repeat with the same
    /// arguments changes nothing.
    ReplacesOnce,
}

fn annotations(title: &str, effect: Effect) -> ToolAnnotations {
    let (read_only, destructive, idempotent) = match effect {
        Effect::ReadOnly => (true, false, true),
        Effect::Adds => (false, false, false),
        Effect::AddsOnce => (false, false, true),
        Effect::ReplacesOnce => (false, true, true),
    };
    ToolAnnotations::with_title(title)
        .read_only(read_only)
        .destructive(destructive)
        .idempotent(idempotent)
        .open_world(false)
}

/// Makes a generated schema portable: drops schemars' non-standard numeric `format`s
/// (`uint64`, …) that validators warn about, and spells a nullable `"type": [T, "null"]` as
/// `"anyOf": [{"type": T}, {"type": "null"}]`, which single-type schema dialects accept.
fn clean(schema: &Arc<JsonObject>) -> Arc<JsonObject> {
    fn walk(v: &mut Value) {
        match v {
            Value::Object(m) => {
                if let Some(Value::Array(types)) = m.get("type").cloned() {
                    if !m.contains_key("anyOf") {
                        m.remove("type");
                        let branches = types.into_iter().map(|t| serde_json::json!({"type": t}));
                        m.insert("anyOf".into(), Value::Array(branches.collect()));
                    }
                }
                m.values_mut().for_each(walk);
            }
            Value::Array(a) => a.iter_mut().for_each(walk),
            _ => {}
        }
    }
    let mut v = Value::Object(schema.as_ref().clone());
    crate::output::drop_numeric_formats(&mut v);
    walk(&mut v);
    match v {
        Value::Object(m) => Arc::new(m),
        _ => schema.clone(),
    }
}

fn def<I, O>(
    name: &'static str,
    title: &str,
    effect: Effect,
    description: &str,
    handler: fn(&Call<'_>, I) -> OpResult<O>,
) -> Def
where
    I: DeserializeOwned + JsonSchema + 'static,
    O: Serialize + JsonSchema + 'static,
{
    let input = schema_for_input::<I>()
        .unwrap_or_else(|e| panic!("the input schema of {name} is not an object schema: {e}"));
    let tool = Tool::new(name, description.to_owned(), clean(&input))
        .with_title(title)
        .with_raw_output_schema(clean(&schema_for_output::<O>()))
        .with_annotations(annotations(title, effect));
    let call: Handler = Box::new(move |call, args| {
        let input: I = serde_json::from_value(Value::Object(args)).map_err(|e| {
            OpError::new(
                ErrorKind::BadRequest,
                "invalid_arguments",
                format!("invalid arguments for {name}: {e}"),
            )
            .hint(format!("See the input schema of {name} in tools/list."))
        })?;
        let out = handler(call, input)?;
        serde_json::to_value(out)
            .map_err(|e| OpError::internal(format!("cannot serialise the result: {e}")))
    });
    Def { tool, call }
}

/// Every tool with its toolset, in the order `tools/list` shows them (made once: a served
/// `/mcp` makes a server per request).
pub fn all() -> &'static [ToolDef] {
    static ALL: std::sync::OnceLock<Vec<ToolDef>> = std::sync::OnceLock::new();
    ALL.get_or_init(make)
}

fn make() -> Vec<ToolDef> {
    Toolset::ALL
        .into_iter()
        .flat_map(|toolset| {
            let defs = match toolset {
                Toolset::Pads => pads::tools(),
                Toolset::Artifacts => artifacts::tools(),
                Toolset::Work => work::tools(),
                Toolset::Log => log::tools(),
                Toolset::Admin => admin::tools(),
            };
            defs.into_iter().map(move |d| ToolDef { toolset, tool: d.tool, call: d.call })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tools_have_valid_names_object_schemas_and_honest_hints() {
        let tools = all();
        let mut names: Vec<&str> = tools.iter().map(|t| t.tool.name.as_ref()).collect();
        for six in [
            "locker_deposit",
            "locker_create",
            "locker_append",
            "locker_seal",
            "locker_manifest",
            "locker_read_blocks",
        ] {
            assert!(names.contains(&six), "{six}");
        }
        for t in tools {
            let name = t.tool.name.as_ref();
            assert!(
                name.len() <= 128
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c))
            );
            assert_eq!(t.tool.input_schema.get("type"), Some(&Value::from("object")), "{name}");
            let out = t.tool.output_schema.as_ref().expect("every tool has an output schema");
            assert_eq!(out.get("type"), Some(&Value::from("object")), "{name}");
            let text = serde_json::to_string(out.as_ref()).unwrap();
            assert!(!text.contains("uint64"), "{name}: {text}");
            assert!(t.tool.description.as_ref().is_some_and(|d| d.len() > 80), "{name}");
        }
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), tools.len(), "tool names are unique");
    }

    /// Every tool's toolset and annotations, decided per tool from what its operation does:
    /// (name, toolset, readOnlyHint, destructiveHint, idempotentHint).
    const ANNOTATIONS: &[(&str, Toolset, bool, bool, bool)] = &[
        ("locker_deposit", Toolset::Pads, false, false, false),
        ("locker_create", Toolset::Pads, false, false, false),
        ("locker_append", Toolset::Pads, false, false, false),
        // Sealing again is refused (pad is sealed) and changes nothing.
        ("locker_seal", Toolset::Pads, false, false, true),
        ("locker_manifest", Toolset::Pads, true, false, true),
        ("locker_read_blocks", Toolset::Pads, true, false, true),
        ("locker_pad_list", Toolset::Pads, true, false, true),
        ("locker_mint_ticket", Toolset::Pads, false, false, false),
        ("locker_artifact_publish", Toolset::Artifacts, false, false, true),
        ("locker_artifact_get", Toolset::Artifacts, true, false, true),
        ("locker_artifact_log", Toolset::Artifacts, true, false, true),
        ("locker_artifact_list", Toolset::Artifacts, true, false, true),
        ("locker_lease_acquire", Toolset::Work, false, false, true),
        ("locker_lease_heartbeat", Toolset::Work, false, false, false),
        ("locker_lease_complete", Toolset::Work, false, false, true),
        ("locker_lease_release", Toolset::Work, false, false, true),
        ("locker_lease_show", Toolset::Work, true, false, true),
        ("locker_lease_list", Toolset::Work, true, false, true),
        ("locker_lease_history", Toolset::Work, true, false, true),
        ("locker_plan_commit", Toolset::Work, false, false, true),
        ("locker_plan_show", Toolset::Work, true, false, true),
        ("locker_step", Toolset::Work, false, false, true),
        ("locker_plan_diff", Toolset::Work, true, false, true),
        ("locker_verify_pad", Toolset::Log, true, false, true),
        ("locker_verify", Toolset::Log, true, false, true),
        ("locker_verify_bundle", Toolset::Log, true, false, true),
        ("locker_log", Toolset::Log, true, false, true),
        ("locker_checkpoint", Toolset::Log, true, false, true),
        ("locker_proof_inclusion", Toolset::Log, true, false, true),
        ("locker_proof_consistency", Toolset::Log, true, false, true),
        ("locker_verify_proof", Toolset::Log, true, false, true),
        // A rotation revokes the agent's current key; the same key again is refused.
        ("locker_key_register", Toolset::Admin, false, true, true),
    ];

    #[test]
    fn every_tool_has_its_toolset_and_every_annotation() {
        let tools = all();
        let got: Vec<(&str, Toolset, bool, bool, bool)> = tools
            .iter()
            .map(|t| {
                let name = t.tool.name.as_ref();
                let a = t.tool.annotations.as_ref().expect("annotations");
                assert_eq!(a.open_world_hint, Some(false), "{name}");
                assert_eq!(a.title.as_deref(), t.tool.title.as_deref(), "{name}");
                let hint = |h: Option<bool>, what: &str| {
                    h.unwrap_or_else(|| panic!("{name} has no {what}"))
                };
                (
                    name,
                    t.toolset,
                    hint(a.read_only_hint, "readOnlyHint"),
                    hint(a.destructive_hint, "destructiveHint"),
                    hint(a.idempotent_hint, "idempotentHint"),
                )
            })
            .collect();
        assert_eq!(got, ANNOTATIONS);
        // Tools come in toolset order, each module's together.
        assert!(got.windows(2).all(|w| w[0].1 <= w[1].1));
        assert!(
            tools
                .iter()
                .all(|t| t.read_only()
                    == t.tool.annotations.as_ref().unwrap().read_only_hint.unwrap())
        );
    }

    #[test]
    fn peer_defaults_are_in_the_input_schemas() {
        let tools = all();
        let schema = |n: &str| {
            let t = tools.iter().find(|t| t.tool.name == n).unwrap();
            Value::Object(t.tool.input_schema.as_ref().clone())
        };
        let rb = schema("locker_read_blocks");
        assert_eq!(rb["properties"]["from_block"]["default"], 0);
        assert_eq!(rb["properties"]["to_block"]["default"], 0);
        assert_eq!(rb["required"], serde_json::json!(["pad_id", "ticket"]));
        let ap = schema("locker_append");
        assert_eq!(ap["properties"]["content_type"]["default"], "application/json");
        let dp = schema("locker_deposit");
        assert_eq!(dp["properties"]["ttl_seconds"]["default"], 3600);
        assert_eq!(dp["required"], serde_json::json!(["envelope", "artifacts"]));
    }
}
