//! Column values from their text form to JSON, as `to_jsonb(value::type)` gives them (what
//! Supabase Realtime sends): numbers and booleans as JSON, json as JSON, arrays as arrays,
//! timestamps in ISO 8601 with a `T`, everything else as the text PostgreSQL prints.

use serde_json::{Number, Value};

/// What a change needs to know of a type: its name and, for arrays, the element type.
#[derive(Debug, Clone)]
pub struct TypeInfo {
    pub name: String,
    pub elem: u32,
}

mod oid {
    pub const BOOL: u32 = 16;
    pub const INT8: u32 = 20;
    pub const INT2: u32 = 21;
    pub const INT4: u32 = 23;
    pub const OID: u32 = 26;
    pub const JSON: u32 = 114;
    pub const FLOAT4: u32 = 700;
    pub const FLOAT8: u32 = 701;
    pub const TIMESTAMP: u32 = 1114;
    pub const TIMESTAMPTZ: u32 = 1184;
    pub const NUMERIC: u32 = 1700;
    pub const JSONB: u32 = 3802;
}

fn number(text: &str) -> Value {
    if let Ok(i) = text.parse::<i64>() {
        return Value::Number(i.into());
    }
    match text.parse::<f64>().ok().and_then(Number::from_f64) {
        Some(n) => Value::Number(n),
        // NaN and the infinities: to_jsonb gives them as strings.
        None => Value::String(text.to_string()),
    }
}

/// `2024-05-01 10:00:00.5+02` → `2024-05-01T10:00:00.5+02:00`.
fn timestamp(text: &str, with_zone: bool) -> Value {
    let mut s = text.replacen(' ', "T", 1);
    if with_zone {
        // PostgreSQL prints the offset as ±HH or ±HH:MM; JSON has ±HH:MM.
        if let Some(pos) = s.rfind(['+', '-']).filter(|&p| p > 10) {
            let offset = &s[pos + 1..];
            if offset.len() == 2 {
                s.push_str(":00");
            }
        }
    }
    Value::String(s)
}

/// Converts one value. `types` resolves type OIDs (element types of arrays).
pub fn to_json(text: &str, type_oid: u32, types: &dyn Fn(u32) -> Option<TypeInfo>) -> Value {
    match type_oid {
        oid::BOOL => Value::Bool(text == "t"),
        oid::INT2 | oid::INT4 | oid::INT8 | oid::OID | oid::FLOAT4 | oid::FLOAT8 | oid::NUMERIC => {
            number(text)
        }
        oid::JSON | oid::JSONB => {
            serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_string()))
        }
        oid::TIMESTAMP => timestamp(text, false),
        oid::TIMESTAMPTZ => timestamp(text, true),
        other => match types(other) {
            Some(t) if t.elem != 0 && t.name.starts_with('_') => match parse_array(text) {
                Some(items) => array_json(&items, t.elem, types),
                None => Value::String(text.to_string()),
            },
            _ => Value::String(text.to_string()),
        },
    }
}

#[derive(Debug, PartialEq)]
enum Item {
    Null,
    Text(String),
    Nested(Vec<Item>),
}

fn array_json(items: &[Item], elem: u32, types: &dyn Fn(u32) -> Option<TypeInfo>) -> Value {
    Value::Array(
        items
            .iter()
            .map(|i| match i {
                Item::Null => Value::Null,
                Item::Text(t) => to_json(t, elem, types),
                Item::Nested(n) => array_json(n, elem, types),
            })
            .collect(),
    )
}

/// Parses PostgreSQL's array literal (`{1,2}`, `{"a b",NULL}`, `{{1,2},{3,4}}`, optionally
/// preceded by `[1:2]=` bounds).
fn parse_array(text: &str) -> Option<Vec<Item>> {
    let text = match text.find('=') {
        Some(i) if text.starts_with('[') => &text[i + 1..],
        _ => text,
    };
    let chars: Vec<char> = text.chars().collect();
    let mut at = 0;
    let items = parse_level(&chars, &mut at)?;
    (at == chars.len()).then_some(items)
}

fn parse_level(c: &[char], at: &mut usize) -> Option<Vec<Item>> {
    if c.get(*at) != Some(&'{') {
        return None;
    }
    *at += 1;
    let mut items = Vec::new();
    if c.get(*at) == Some(&'}') {
        *at += 1;
        return Some(items);
    }
    loop {
        match c.get(*at)? {
            '{' => items.push(Item::Nested(parse_level(c, at)?)),
            '"' => {
                *at += 1;
                let mut s = String::new();
                loop {
                    match c.get(*at)? {
                        '\\' => {
                            s.push(*c.get(*at + 1)?);
                            *at += 2;
                        }
                        '"' => {
                            *at += 1;
                            break;
                        }
                        ch => {
                            s.push(*ch);
                            *at += 1;
                        }
                    }
                }
                items.push(Item::Text(s));
            }
            _ => {
                let start = *at;
                while !matches!(c.get(*at)?, ',' | '}') {
                    *at += 1;
                }
                let s: String = c[start..*at].iter().collect();
                items.push(if s == "NULL" {
                    Item::Null
                } else {
                    Item::Text(s)
                });
            }
        }
        match c.get(*at)? {
            ',' => *at += 1,
            '}' => {
                *at += 1;
                return Some(items);
            }
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn types(oid: u32) -> Option<TypeInfo> {
        let (name, elem) = match oid {
            1007 => ("_int4", 23),
            1009 => ("_text", 25),
            3807 => ("_jsonb", 3802),
            2950 => ("uuid", 0),
            _ => return None,
        };
        Some(TypeInfo {
            name: name.into(),
            elem,
        })
    }

    #[test]
    fn values_become_what_to_jsonb_gives() {
        let cases = [
            ("t", 16, json!(true)),
            ("42", 20, json!(42)),
            ("2.50", 1700, json!(2.5)),
            ("NaN", 701, json!("NaN")),
            (r#"{"a": [1]}"#, 3802, json!({"a": [1]})),
            (
                "2026-11-22 11:34:10.064073",
                1114,
                json!("2026-11-22T11:34:10.064073"),
            ),
            (
                "2026-11-22 11:34:10+00",
                1184,
                json!("2026-11-22T11:34:10+00:00"),
            ),
            (
                "2026-11-22 11:34:10-05:30",
                1184,
                json!("2026-11-22T11:34:10-05:30"),
            ),
            ("{1,2,NULL}", 1007, json!([1, 2, null])),
            (
                r#"{"a b","c\"d",NULL,e}"#,
                1009,
                json!(["a b", "c\"d", null, "e"]),
            ),
            ("{{1,2},{3,4}}", 1007, json!([[1, 2], [3, 4]])),
            ("[0:1]={5,6}", 1007, json!([5, 6])),
            ("{}", 1007, json!([])),
            (r#"{"{\"x\": 1}"}"#, 3807, json!([{"x": 1}])),
            (
                "0b5c8c3e-6d7a-4c9e-9d39-7a0f4b1f2a11",
                2950,
                json!("0b5c8c3e-6d7a-4c9e-9d39-7a0f4b1f2a11"),
            ),
            ("{broken", 1007, json!("{broken")),
        ];
        for (text, oid, want) in cases {
            assert_eq!(to_json(text, oid, &types), want, "{text}");
        }
    }
}
