//! `postgres_changes` filters: `column=op.value` conditions joined by commas (all must hold),
//! `not.` negating one, values quoted PostgREST-style, as realtime-js builds them — read with
//! the query engine's grammar ([`query_engine::parser::parse_filter_list`]) and evaluated here
//! on the change's record. A condition on a column the record lacks is not checked (Supabase
//! joins conditions to the record's columns).

use query_engine::ast::{CmpOp, IsValue, Operation};
use regex::{Regex, RegexBuilder};
use serde_json::{Map, Value};
use std::cmp::Ordering;

/// A filter Realtime cannot apply.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct FilterError(String);

#[derive(Debug, Clone)]
struct Condition {
    column: String,
    negate: bool,
    test: Test,
}

/// What Supabase Realtime evaluates: PostgREST's comparisons, `in`, `is` and `isdistinct`.
#[derive(Debug, Clone)]
enum Test {
    Compare(CmpOp, String),
    Pattern(Regex),
    In(Vec<String>),
    Is(IsValue),
    IsDistinct(String),
}

#[derive(Debug, Clone, Default)]
pub struct Filter {
    conditions: Vec<Condition>,
}

/// A LIKE pattern as a regular expression (`%` any run, `_` one character).
fn like_regex(pattern: &str, case_insensitive: bool) -> Result<Regex, FilterError> {
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

fn compile(re: &str, case_insensitive: bool) -> Result<Regex, FilterError> {
    RegexBuilder::new(re)
        .case_insensitive(case_insensitive)
        .size_limit(1 << 20)
        .build()
        .map_err(|e| FilterError(format!("invalid pattern: {e}")))
}

fn test(op: Operation) -> Result<Test, FilterError> {
    Ok(match op {
        Operation::Compare(op @ (CmpOp::Like | CmpOp::Ilike), v) => {
            Test::Pattern(like_regex(&v, op == CmpOp::Ilike)?)
        }
        Operation::Compare(op @ (CmpOp::Match | CmpOp::Imatch), v) => {
            Test::Pattern(compile(&v, op == CmpOp::Imatch)?)
        }
        Operation::Compare(op, v) => Test::Compare(op, v),
        Operation::In(values) => Test::In(values),
        Operation::Is(IsValue::NotNull) => {
            return Err(FilterError(
                "invalid value for is filter: must be null, true, false, or unknown".into(),
            ));
        }
        Operation::Is(v) => Test::Is(v),
        Operation::IsDistinct(v) => Test::IsDistinct(v),
        other => {
            return Err(FilterError(format!("unsupported operator in {other:?}")));
        }
    })
}

impl Filter {
    pub fn parse(s: &str) -> Result<Filter, FilterError> {
        let parsed =
            query_engine::parser::parse_filter_list(s).map_err(|e| FilterError(e.to_string()))?;
        let conditions = parsed
            .into_iter()
            .map(|f| {
                if !f.field.json_path.is_empty() {
                    return Err(FilterError(format!(
                        "JSON paths cannot be filtered on: {}",
                        f.field.name
                    )));
                }
                Ok(Condition {
                    column: f.field.name,
                    negate: f.negate,
                    test: test(f.op)?,
                })
            })
            .collect::<Result<_, _>>()?;
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
        let r = match &self.test {
            Test::Is(what) => {
                let r = match what {
                    IsValue::True => *v == Value::Bool(true),
                    IsValue::False => *v == Value::Bool(false),
                    _ => v.is_null(),
                };
                return Some(r != self.negate);
            }
            Test::IsDistinct(other) => {
                let same = if other == "null" {
                    v.is_null()
                } else {
                    compare(v, other) == Some(Ordering::Equal)
                };
                return Some(same == self.negate);
            }
            _ if v.is_null() => return None,
            Test::Compare(op, other) => {
                let o = compare(v, other)?;
                match op {
                    CmpOp::Eq => o == Ordering::Equal,
                    CmpOp::Neq => o != Ordering::Equal,
                    CmpOp::Lt => o == Ordering::Less,
                    CmpOp::Lte => o != Ordering::Greater,
                    CmpOp::Gt => o == Ordering::Greater,
                    CmpOp::Gte => o != Ordering::Less,
                    _ => return None,
                }
            }
            Test::In(values) => values
                .iter()
                .any(|f| compare(v, f) == Some(Ordering::Equal)),
            Test::Pattern(p) => p.is_match(&text(v)),
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
