//! Strict validation of the `locker.handoff.v1` envelope (block 0 of every pad), with the
//! peer's check order and reasons.

use serde_json::{Map, Value};

use crate::domain::glob::{Globs, PatternError};

/// The schema name block 0 must carry.
pub const SCHEMA: &str = "locker.handoff.v1";

/// Why a payload is not a valid envelope; `Display` is the peer's reason text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EnvelopeError {
    #[error("payload must be JSON")]
    NotJson,
    #[error("payload must be a JSON object")]
    NotObject,
    #[error("schema must be 'locker.handoff.v1'")]
    Schema,
    #[error("missing required field '{0}'")]
    Missing(&'static str),
    #[error("field '{0}' has an invalid type/value")]
    Invalid(&'static str),
    #[error("field 'allowed_paths' has an invalid type/value (expected list[str] or null)")]
    AllowedPaths,
    /// A pattern of `allowed_paths` that is not a valid glob (locker's rule: the peer takes
    /// any string).
    #[error("field 'allowed_paths' has an {0}")]
    Pattern(#[from] crate::domain::glob::PatternError),
}

/// A validated envelope: the parsed object, with typed access to the fields locker uses.
#[derive(Debug, Clone)]
pub struct Envelope(Map<String, Value>);

impl Envelope {
    pub fn task_id(&self) -> &str {
        self.str_field("task_id")
    }
    pub fn from_agent(&self) -> &str {
        self.str_field("from_agent")
    }
    pub fn to_agent(&self) -> &str {
        self.str_field("to_agent")
    }
    /// The `allowed_paths` globs, if the envelope restricts paths.
    pub fn allowed_paths(&self) -> Option<Vec<&str>> {
        self.0
            .get("allowed_paths")?
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
    }
    /// The `allowed_paths` globs compiled (valid: [`validate`] checked them).
    pub fn allowed_globs(&self) -> Option<Result<Globs, PatternError>> {
        self.allowed_paths().map(Globs::new)
    }
    /// The whole object.
    pub fn as_map(&self) -> &Map<String, Value> {
        &self.0
    }
    fn str_field(&self, k: &str) -> &str {
        self.0.get(k).and_then(Value::as_str).unwrap_or_default()
    }
}

const REQUIRED: [&str; 6] =
    ["task_id", "from_agent", "to_agent", "constraints", "artifacts", "budget_usd"];

/// Validates `payload` as a `locker.handoff.v1` envelope.
pub fn validate(payload: &[u8]) -> Result<Envelope, EnvelopeError> {
    let text = std::str::from_utf8(payload).map_err(|_| EnvelopeError::NotJson)?;
    let value: Value = serde_json::from_str(text).map_err(|_| EnvelopeError::NotJson)?;
    let Value::Object(obj) = value else {
        return Err(EnvelopeError::NotObject);
    };
    if obj.get("schema").and_then(Value::as_str) != Some(SCHEMA) {
        return Err(EnvelopeError::Schema);
    }
    for field in REQUIRED {
        let Some(v) = obj.get(field) else {
            return Err(EnvelopeError::Missing(field));
        };
        let ok = match field {
            "task_id" | "from_agent" | "to_agent" => v.as_str().is_some_and(|s| !s.is_empty()),
            "constraints" => v.as_array().is_some_and(|a| a.iter().all(Value::is_string)),
            "artifacts" => v.as_array().is_some_and(|a| a.iter().all(Value::is_object)),
            // A number or null; JSON booleans are not numbers here.
            _ => v.is_null() || v.is_number(),
        };
        if !ok {
            return Err(EnvelopeError::Invalid(field));
        }
    }
    match obj.get("allowed_paths") {
        None | Some(Value::Null) => {}
        Some(Value::Array(a)) if a.iter().all(Value::is_string) => {
            for p in a.iter().filter_map(Value::as_str) {
                crate::domain::glob::check(p)?;
            }
        }
        Some(_) => return Err(EnvelopeError::AllowedPaths),
    }
    Ok(Envelope(obj))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Map<String, Value> {
        let v = serde_json::json!({
            "schema": "locker.handoff.v1", "task_id": "t-1", "from_agent": "a", "to_agent": "b",
            "constraints": ["c1"], "artifacts": [{"name": "x"}], "budget_usd": 1.25
        });
        v.as_object().unwrap().clone()
    }

    fn check(m: &Map<String, Value>) -> Result<Envelope, EnvelopeError> {
        validate(serde_json::to_string(m).unwrap().as_bytes())
    }

    #[test]
    fn accepts_the_reference_envelope_and_extras() {
        let mut m = base();
        assert!(check(&m).is_ok());
        m.insert("extra".into(), Value::Bool(true));
        m.insert("allowed_paths".into(), serde_json::json!(["src/**"]));
        m.insert("budget_usd".into(), Value::Null);
        let e = check(&m).unwrap();
        assert_eq!(e.allowed_paths(), Some(vec!["src/**"]));
        assert_eq!((e.task_id(), e.from_agent(), e.to_agent()), ("t-1", "a", "b"));
        m.insert("allowed_paths".into(), Value::Null);
        m.insert("constraints".into(), serde_json::json!([]));
        m.insert("artifacts".into(), serde_json::json!([]));
        m.insert("budget_usd".into(), serde_json::json!(3));
        assert!(check(&m).is_ok());
    }

    #[test]
    fn rejects_with_the_peer_reasons_in_order() {
        assert_eq!(validate(b"\xff").unwrap_err().to_string(), "payload must be JSON");
        assert_eq!(validate(b"{").unwrap_err().to_string(), "payload must be JSON");
        assert_eq!(validate(b"[]").unwrap_err().to_string(), "payload must be a JSON object");
        assert_eq!(
            validate(br#"{"schema":"x"}"#).unwrap_err().to_string(),
            "schema must be 'locker.handoff.v1'"
        );
        for f in REQUIRED {
            let mut m = base();
            m.remove(f);
            assert_eq!(check(&m).unwrap_err(), EnvelopeError::Missing(f), "{f}");
        }
        // Missing fields are reported in the peer's order.
        let mut m = base();
        m.remove("to_agent");
        m.remove("task_id");
        assert_eq!(check(&m).unwrap_err(), EnvelopeError::Missing("task_id"));
        let bad: [(&str, Value); 9] = [
            ("task_id", serde_json::json!("")),
            ("task_id", serde_json::json!(1)),
            ("from_agent", Value::Null),
            ("to_agent", serde_json::json!(["b"])),
            ("constraints", serde_json::json!([1])),
            ("constraints", serde_json::json!("c")),
            ("artifacts", serde_json::json!(["x"])),
            ("budget_usd", serde_json::json!(true)),
            ("budget_usd", serde_json::json!("1.0")),
        ];
        for (f, v) in bad {
            let mut m = base();
            m.insert(f.into(), v.clone());
            assert_eq!(
                check(&m).unwrap_err().to_string(),
                format!("field '{f}' has an invalid type/value"),
                "{f} = {v}"
            );
        }
        for v in [serde_json::json!("src"), serde_json::json!([1]), serde_json::json!({})] {
            let mut m = base();
            m.insert("allowed_paths".into(), v);
            assert_eq!(
                check(&m).unwrap_err().to_string(),
                "field 'allowed_paths' has an invalid type/value (expected list[str] or null)"
            );
        }
    }

    #[test]
    fn duplicate_keys_keep_the_last_value_as_the_peer_does() {
        let env = |dups: &str| {
            format!(
                r#"{{"schema":"locker.handoff.v1","task_id":"t","from_agent":"a","to_agent":"b","constraints":[],"artifacts":[],"budget_usd":null{dups}}}"#
            )
        };
        assert!(
            validate(env(r#","schema":"other","schema":"locker.handoff.v1""#).as_bytes()).is_ok()
        );
        assert_eq!(
            validate(env(r#","schema":"other""#).as_bytes()).unwrap_err(),
            EnvelopeError::Schema
        );
        assert_eq!(
            validate(env(r#","task_id":"""#).as_bytes()).unwrap_err(),
            EnvelopeError::Invalid("task_id")
        );
        let e = validate(env(r#","task_id":"","task_id":"second""#).as_bytes()).unwrap();
        assert_eq!(e.task_id(), "second");
    }

    #[test]
    fn non_finite_numbers_are_not_json() {
        // Python's json.loads accepts NaN and Infinity; locker keeps to strict JSON.
        for v in ["NaN", "Infinity", "-Infinity", "1e400"] {
            let mut text = serde_json::to_string(&base()).unwrap();
            text = text.replace("1.25", v);
            assert_eq!(validate(text.as_bytes()).unwrap_err(), EnvelopeError::NotJson, "{v}");
        }
        for v in ["-3", "0", "1e2", "1.7976931348623157e308", "123456789012345678901234567890"] {
            let text = serde_json::to_string(&base()).unwrap().replace("1.25", v);
            assert!(validate(text.as_bytes()).is_ok(), "{v}");
        }
    }

    #[test]
    fn empty_lists_whitespace_and_unicode() {
        let mut m = base();
        m.insert("constraints".into(), serde_json::json!([]));
        m.insert("artifacts".into(), serde_json::json!([]));
        m.insert("allowed_paths".into(), serde_json::json!([]));
        assert_eq!(check(&m).unwrap().allowed_paths(), Some(vec![]));
        // Only emptiness is refused: a blank task id is a non-empty string, as with the peer.
        m.insert("task_id".into(), serde_json::json!(" "));
        m.insert("from_agent".into(), serde_json::json!("agent-é-😀"));
        m.insert("artifacts".into(), serde_json::json!([{}, {"nested": [1, {"deep": null}]}]));
        assert!(check(&m).is_ok());
        let text = format!(" \n\t{}\r\n ", serde_json::to_string(&m).unwrap());
        assert!(validate(text.as_bytes()).is_ok(), "surrounding whitespace is JSON");
        // Escapes in keys and values are decoded before the checks.
        let escaped = serde_json::to_string(&base()).unwrap().replace(
            r#""schema":"locker.handoff.v1""#,
            r#""sch\u0065ma":"locker.handoff\u002ev1""#,
        );
        assert!(validate(escaped.as_bytes()).is_ok());
    }

    #[test]
    fn an_invalid_allowed_paths_pattern_is_an_envelope_error_naming_it() {
        // See: #18.
        let mut m = base();
        m.insert("allowed_paths".into(), serde_json::json!(["src/**", "docs/[a"]));
        let e = check(&m).unwrap_err();
        assert!(matches!(&e, EnvelopeError::Pattern(p) if p.pattern == "docs/[a"), "{e:?}");
        assert!(
            e.to_string().starts_with("field 'allowed_paths' has an invalid pattern 'docs/[a': "),
            "{e}"
        );
        m.insert("allowed_paths".into(), serde_json::json!(["src/{lib,main}.rs", "t/[ab]*"]));
        let env = check(&m).unwrap();
        let globs = env.allowed_globs().unwrap().unwrap();
        assert!(globs.is_match("src/lib.rs") && globs.is_match("t/b1") && !globs.is_match("t/c"));
    }

    #[test]
    fn malformed_payloads_are_not_json() {
        let good = serde_json::to_string(&base()).unwrap();
        let cases: [Vec<u8>; 6] = [
            Vec::new(),
            b"   ".to_vec(),
            [b"\xef\xbb\xbf".as_slice(), good.as_bytes()].concat(),
            format!("{good} trailing").into_bytes(),
            format!("{good}{good}").into_bytes(),
            format!("{}{}", "[".repeat(200), "]".repeat(200)).into_bytes(),
        ];
        for c in cases {
            assert_eq!(
                validate(&c).unwrap_err(),
                EnvelopeError::NotJson,
                "{:?}",
                String::from_utf8_lossy(&c)
            );
        }
        for (text, err) in [
            ("null", EnvelopeError::NotObject),
            ("1", EnvelopeError::NotObject),
            (r#"{"schema":"LOCKER.HANDOFF.V1"}"#, EnvelopeError::Schema),
            (r#"{"schema":null}"#, EnvelopeError::Schema),
            ("{}", EnvelopeError::Schema),
        ] {
            assert_eq!(validate(text.as_bytes()).unwrap_err(), err, "{text}");
        }
    }
}
