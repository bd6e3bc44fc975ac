//! The tool table: name, description, input and output schemas, annotations, and a handler
//! that calls the operations interface. One module per toolset: [`pads`] (agent-locker's six
//! tools keep their names, inputs and defaults, so prompts written for its `lockermcp` keep
//! working), [`artifacts`], [`work`] and [`log`].

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

use super::McpServer;
use crate::ops::{ErrorKind, OpError, OpResult};

type Handler = Box<dyn Fn(&McpServer, JsonObject) -> OpResult<Value> + Send + Sync>;

/// One tool: its MCP definition and its handler.
pub struct ToolDef {
    pub tool: Tool,
    pub call: Handler,
}

/// What a tool does to the repository (MCP annotations; `openWorldHint` is always false:
/// locker touches nothing but its own repository).
#[derive(Clone, Copy)]
enum Effect {
    /// Changes nothing.
    ReadOnly,
    /// Adds state; calling it twice adds twice (or fails the second time).
    Additive,
    /// Adds state at most once: a repeat has no further effect.
    AdditiveIdempotent,
}

fn annotations(title: &str, effect: Effect) -> ToolAnnotations {
    let (read_only, idempotent) = match effect {
        Effect::ReadOnly => (true, true),
        Effect::Additive => (false, false),
        Effect::AdditiveIdempotent => (false, true),
    };
    ToolAnnotations::with_title(title)
        .read_only(read_only)
        .destructive(false)
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
    handler: fn(&McpServer, I) -> OpResult<O>,
) -> ToolDef
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
    let call: Handler = Box::new(move |server, args| {
        let input: I = serde_json::from_value(Value::Object(args)).map_err(|e| {
            OpError::new(
                ErrorKind::BadRequest,
                "invalid_arguments",
                format!("invalid arguments for {name}: {e}"),
            )
            .hint(format!("See the input schema of {name} in tools/list."))
        })?;
        let out = handler(server, input)?;
        serde_json::to_value(out)
            .map_err(|e| OpError::internal(format!("cannot serialise the result: {e}")))
    });
    ToolDef { tool, call }
}

/// Every tool, in the order `tools/list` shows them.
pub fn all() -> Vec<ToolDef> {
    let mut tools = pads::tools();
    tools.extend(artifacts::tools());
    tools.extend(work::tools());
    tools.extend(log::tools());
    tools
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
        for t in &tools {
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
            let a = t.tool.annotations.as_ref().expect("annotations");
            assert_eq!(a.open_world_hint, Some(false));
            assert_eq!(a.destructive_hint, Some(false));
            assert!(t.tool.description.as_ref().is_some_and(|d| d.len() > 80), "{name}");
        }
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), tools.len(), "tool names are unique");
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
