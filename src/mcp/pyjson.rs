//! The bytes Python's `json.dumps(value)` writes with its defaults (`ensure_ascii=True`,
//! separators `", "` and `": "`, keys in their given order).
//!
//! agent-locker's MCP tools turn an object or array payload into block bytes this way, so a
//! prompt or client written for them gets the same bytes, and therefore the same heads, from
//! locker's tools.

use std::fmt::Write as _;

use serde_json::Value;

/// `json.dumps(value)` with Python's default settings.
pub fn dumps(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value);
    out
}

fn write_value(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                let _ = write!(out, "{i}");
            } else if let Some(u) = n.as_u64() {
                let _ = write!(out, "{u}");
            } else if let Some(f) = n.as_f64() {
                out.push_str(&float_repr(f));
            } else {
                out.push_str(&n.to_string());
            }
        }
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_value(out, v);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_string(out, k);
                out.push_str(": ");
                write_value(out, v);
            }
            out.push('}');
        }
    }
}

/// A string as `json.dumps` writes it with `ensure_ascii=True`: printable ASCII as is,
/// the usual short escapes, everything else as `\uXXXX` (lowercase hex, surrogate pairs).
fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            ' '..='~' => out.push(c),
            _ => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{u:04x}");
                }
            }
        }
    }
    out.push('"');
}

/// Python's `repr(float)`: the shortest digits that round-trip, in fixed notation when the
/// decimal exponent is in -4..16, else as `d.ddde+XX`; integral values keep a `.0`.
fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "Infinity".into() } else { "-Infinity".into() };
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0.0".into() } else { "0.0".into() };
    }
    // Rust's `{:e}` gives the shortest round-trip digits: `-1.2345e-7`.
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').expect("`{:e}` always writes an exponent");
    let exp: i32 = exp.parse().expect("`{:e}` writes an integer exponent");
    let (sign, mantissa) = mantissa.strip_prefix('-').map_or(("", mantissa), |m| ("-", m));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let n = i32::try_from(digits.len()).unwrap_or(i32::MAX);
    // value = 0.DIGITS × 10^decpt
    let decpt = exp + 1;
    let mut out = String::from(sign);
    if decpt > -4 && decpt <= 16 {
        if decpt <= 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', usize::try_from(-decpt).unwrap_or(0)));
            out.push_str(&digits);
        } else if decpt >= n {
            out.push_str(&digits);
            out.extend(std::iter::repeat_n('0', usize::try_from(decpt - n).unwrap_or(0)));
            out.push_str(".0");
        } else {
            let (int, frac) = digits.split_at(usize::try_from(decpt).unwrap_or(0));
            out.push_str(int);
            out.push('.');
            out.push_str(frac);
        }
    } else {
        let (first, rest) = digits.split_at(1);
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        let e = decpt - 1;
        let _ = write!(out, "e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn py(json_text: &str) -> String {
        dumps(&serde_json::from_str(json_text).unwrap())
    }

    #[test]
    fn separators_order_and_nesting() {
        // What Python 3.11 prints for json.dumps(json.loads(text)).
        assert_eq!(
            py(
                r#"{"schema":"locker.handoff.v1","task_id":"t-1","constraints":["c1","c2"],"artifacts":[{"name":"x"}],"budget_usd":1.25,"allowed_paths":null,"n":[],"o":{}}"#
            ),
            r#"{"schema": "locker.handoff.v1", "task_id": "t-1", "constraints": ["c1", "c2"], "artifacts": [{"name": "x"}], "budget_usd": 1.25, "allowed_paths": null, "n": [], "o": {}}"#
        );
        assert_eq!(
            py(r#"[true, false, null, 0, -7, 18446744073709551615]"#),
            "[true, false, null, 0, -7, 18446744073709551615]"
        );
        assert_eq!(py(r#"{"a":1,"b":2,"a":3}"#), r#"{"a": 3, "b": 2}"#);
    }

    #[test]
    fn strings_are_ascii_escaped_like_python() {
        assert_eq!(dumps(&json!("é ☃ 😀")), r#""\u00e9 \u2603 \ud83d\ude00""#);
        assert_eq!(
            dumps(&json!("q\"b\\n\n\r\t\u{8}\u{c}\u{1}\u{7f}/")),
            r#""q\"b\\n\n\r\t\b\f\u0001\u007f/""#
        );
    }

    #[test]
    fn floats_follow_python_repr() {
        let cases = [
            (1.0, "1.0"),
            (1.25, "1.25"),
            (-0.5, "-0.5"),
            (100.0, "100.0"),
            (0.1, "0.1"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (1.2345e16, "1.2345e+16"),
            (123456789.125, "123456789.125"),
            (1e100, "1e+100"),
            (2.5e-300, "2.5e-300"),
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (std::f64::consts::PI, "3.141592653589793"),
        ];
        for (f, want) in cases {
            assert_eq!(float_repr(f), want, "{f}");
        }
        assert_eq!(py("[1e2, 2.50, 1E-5]"), "[100.0, 2.5, 1e-05]");
    }
}
