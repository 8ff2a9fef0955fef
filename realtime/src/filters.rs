//! `postgres_changes` filters: `column=op.value` conditions joined by commas (all must hold),
//! `not.` negating one, values quoted PostgREST-style, as realtime-js builds them. Evaluated on
//! the change's record; a condition on a column the record lacks is not checked (Supabase joins
//! conditions to the record's columns).

use regex::{Regex, RegexBuilder};
use serde_json::{Map, Value};
use std::cmp::Ordering;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    Eq,
    Neq,
    Lt,
    Lte,
    Gt,
    Gte,
    In,
    Like,
    Ilike,
    Match,
    Imatch,
    Is,
    IsDistinct,
}

#[derive(Debug, Clone)]
struct Condition {
    column: String,
    op: Op,
    negate: bool,
    values: Vec<String>,
    pattern: Option<Regex>,
}

#[derive(Debug, Clone, Default)]
pub struct Filter {
    conditions: Vec<Condition>,
}

/// Splits on `sep` outside double quotes and parentheses.
fn split_outside(s: &str, sep: char) -> Result<Vec<String>, String> {
    let (mut parts, mut cur, mut depth, mut quoted, mut escaped) =
        (Vec::new(), String::new(), 0i32, false, false);
    for c in s.chars() {
        if escaped {
            cur.push(c);
            escaped = false;
            continue;
        }
        match c {
            '\\' if quoted => {
                cur.push(c);
                escaped = true;
            }
            '"' => {
                quoted = !quoted;
                cur.push(c);
            }
            '(' if !quoted => {
                depth += 1;
                cur.push(c);
            }
            ')' if !quoted => {
                depth -= 1;
                if depth < 0 {
                    return Err("unbalanced parentheses".into());
                }
                cur.push(c);
            }
            c if c == sep && !quoted && depth == 0 => parts.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    if quoted || depth != 0 {
        return Err("unbalanced quotes or parentheses".into());
    }
    parts.push(cur);
    Ok(parts)
}

/// A value, unquoted: `"a,b"` → `a,b`, with `\"` and `\\` unescaped.
fn unquote(v: &str) -> String {
    let Some(inner) = v.strip_prefix('"').and_then(|v| v.strip_suffix('"')) else {
        return v.to_string();
    };
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// A LIKE pattern as a regular expression (`%` any run, `_` one character).
fn like_regex(pattern: &str, case_insensitive: bool) -> Result<Regex, String> {
    let mut re = String::from("^");
    for c in pattern.chars() {
        match c {
            '%' => re.push_str("(?s:.*)"),
            '_' => re.push_str("(?s:.)"),
            c => re.push_str(&regex::escape(&c.to_string())),
        }
    }
    re.push('$');
    compile(&re, case_insensitive)
}

fn compile(re: &str, case_insensitive: bool) -> Result<Regex, String> {
    RegexBuilder::new(re)
        .case_insensitive(case_insensitive)
        .size_limit(1 << 20)
        .build()
        .map_err(|e| format!("invalid pattern: {e}"))
}

impl Filter {
    pub fn parse(s: &str) -> Result<Filter, String> {
        let mut conditions = Vec::new();
        if s.trim().is_empty() {
            return Ok(Filter { conditions });
        }
        for part in split_outside(s, ',')? {
            let (column, rest) = part
                .split_once('=')
                .ok_or_else(|| format!("\"{part}\" is not column=operator.value"))?;
            let column = column.trim();
            if column.is_empty() {
                return Err(format!("\"{part}\" names no column"));
            }
            let (negate, rest) = match rest.strip_prefix("not.") {
                Some(r) => (true, r),
                None => (false, rest),
            };
            let (op, value) = rest
                .split_once('.')
                .ok_or_else(|| format!("\"{part}\" is not column=operator.value"))?;
            let op = match op {
                "eq" => Op::Eq,
                "neq" => Op::Neq,
                "lt" => Op::Lt,
                "lte" => Op::Lte,
                "gt" => Op::Gt,
                "gte" => Op::Gte,
                "in" => Op::In,
                "like" => Op::Like,
                "ilike" => Op::Ilike,
                "match" => Op::Match,
                "imatch" => Op::Imatch,
                "is" => Op::Is,
                "isdistinct" => Op::IsDistinct,
                other => return Err(format!("unsupported operator \"{other}\"")),
            };
            let values = if op == Op::In {
                let list = value
                    .strip_prefix('(')
                    .and_then(|v| v.strip_suffix(')'))
                    .ok_or_else(|| format!("in needs a list: \"{value}\""))?;
                split_outside(list, ',')?
                    .iter()
                    .map(|v| unquote(v.trim()))
                    .collect()
            } else {
                vec![unquote(value)]
            };
            if op == Op::Is && !["null", "true", "false", "unknown"].contains(&values[0].as_str()) {
                return Err(
                    "invalid value for is filter: must be null, true, false, or unknown".into(),
                );
            }
            let pattern = match op {
                Op::Like | Op::Ilike => Some(like_regex(&values[0], op == Op::Ilike)?),
                Op::Match | Op::Imatch => Some(compile(&values[0], op == Op::Imatch)?),
                _ => None,
            };
            conditions.push(Condition {
                column: column.to_string(),
                op,
                negate,
                values,
                pattern,
            });
        }
        Ok(Filter { conditions })
    }

    pub fn columns(&self) -> impl Iterator<Item = &str> {
        self.conditions.iter().map(|c| c.column.as_str())
    }

    /// Whether `record` passes every condition on a column it has.
    pub fn matches(&self, record: &Map<String, Value>) -> bool {
        self.conditions.iter().all(|c| match record.get(&c.column) {
            None => true,
            Some(v) => c.holds(v) == Some(true),
        })
    }
}

/// The value as text, as PostgreSQL would print it for comparisons.
fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn compare(v: &Value, filter: &str) -> Option<Ordering> {
    match v {
        Value::Null => None,
        Value::Number(n) => {
            let a = n.as_f64()?;
            let b: f64 = filter.trim().parse().ok()?;
            a.partial_cmp(&b)
        }
        Value::Bool(a) => {
            let b = match filter.to_ascii_lowercase().as_str() {
                "t" | "true" | "yes" | "on" | "1" => true,
                "f" | "false" | "no" | "off" | "0" => false,
                _ => return None,
            };
            Some(a.cmp(&b))
        }
        Value::String(s) => Some(s.as_str().cmp(filter)),
        Value::Array(_) | Value::Object(_) => {
            let b: Value = serde_json::from_str(filter).ok()?;
            (*v == b)
                .then_some(Ordering::Equal)
                .or(Some(Ordering::Less))
        }
    }
}

impl Condition {
    /// SQL's three-valued answer: None when the comparison is NULL.
    fn holds(&self, v: &Value) -> Option<bool> {
        let first = &self.values[0];
        let r = match self.op {
            Op::Is => {
                let r = match first.as_str() {
                    "null" => v.is_null(),
                    "true" => *v == Value::Bool(true),
                    "false" => *v == Value::Bool(false),
                    _ => v.is_null(),
                };
                return Some(r != self.negate);
            }
            Op::IsDistinct => {
                let same = if first == "null" {
                    v.is_null()
                } else {
                    compare(v, first) == Some(Ordering::Equal)
                };
                return Some(same == self.negate);
            }
            _ if v.is_null() => return None,
            Op::Eq => compare(v, first)? == Ordering::Equal,
            Op::Neq => compare(v, first)? != Ordering::Equal,
            Op::Lt => compare(v, first)? == Ordering::Less,
            Op::Lte => compare(v, first)? != Ordering::Greater,
            Op::Gt => compare(v, first)? == Ordering::Greater,
            Op::Gte => compare(v, first)? != Ordering::Less,
            Op::In => self
                .values
                .iter()
                .any(|f| compare(v, f) == Some(Ordering::Equal)),
            Op::Like | Op::Ilike | Op::Match | Op::Imatch => {
                self.pattern.as_ref().is_some_and(|p| p.is_match(&text(v)))
            }
        };
        Some(r != self.negate)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rec(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn comparisons_follow_the_column_type() {
        let r = rec(json!({"id": 10, "name": "Rose", "done": false, "price": 2.5, "note": null}));
        let yes = [
            "id=eq.10",
            "id=gt.9",
            "id=lte.10",
            "id=neq.3",
            "id=in.(1,10,20)",
            "name=eq.Rose",
            "name=like.R%",
            "name=ilike.%OS%",
            "name=match.^R.s",
            "done=eq.false",
            "price=lt.3",
            "note=is.null",
            "id=not.in.(1,2)",
            "id=gt.0,id=lt.100",
            "missing=eq.1",
            "note=isdistinct.x",
            "name=not.isdistinct.Rose",
        ];
        for f in yes {
            assert!(Filter::parse(f).unwrap().matches(&r), "{f}");
        }
        let no = [
            "id=eq.11",
            "id=gt.10",
            "name=like.r%",
            "note=eq.x",
            "note=neq.x",
            "id=gt.0,id=lt.5",
            "done=is.true",
            "id=eq.ten",
        ];
        for f in no {
            assert!(!Filter::parse(f).unwrap().matches(&r), "{f}");
        }
    }

    #[test]
    fn quoted_values_keep_reserved_characters() {
        let r = rec(json!({"name": "a,b", "q": "say \"hi\""}));
        assert!(Filter::parse(r#"name=eq."a,b""#).unwrap().matches(&r));
        assert!(Filter::parse(r#"name=in.("a,b",c)"#).unwrap().matches(&r));
        assert!(Filter::parse(r#"q=eq."say \"hi\"""#).unwrap().matches(&r));
    }

    #[test]
    fn bad_filters_are_refused() {
        for f in [
            "id",
            "id=eq",
            "id=near.1",
            "=eq.1",
            "id=in.1",
            "id=is.maybe",
            "a=eq.(1",
        ] {
            assert!(Filter::parse(f).is_err(), "{f}");
        }
        assert!(Filter::parse("").unwrap().matches(&Map::new()));
    }
}
