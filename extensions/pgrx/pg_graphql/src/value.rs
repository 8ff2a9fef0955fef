//! Input values: a document's literals and the request's variables read into one form that
//! tells an absent value from a null one, then checked and coerced against the type of the
//! argument or input field they are given to, with pg_graphql's messages.

use crate::schema::{InputKind, Kind, Role, Scalar, Schema, TypeRef};
use graphql_parser::query::{Value, VariableDefinition};
use indexmap::IndexMap;

#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    Absent,
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    List(Vec<Val>),
    Obj(IndexMap<String, Val>),
}

/// The variables of a request and the defaults its operation declares, with how many fields
/// the request's selections have expanded to so far (fragments may repeat one another: see
/// `document::fields`).
pub struct Variables {
    pub values: serde_json::Map<String, serde_json::Value>,
    pub defaults: Vec<(String, Val)>,
    pub expanded: std::cell::Cell<usize>,
}

impl Variables {
    pub fn new(
        values: serde_json::Map<String, serde_json::Value>,
        definitions: &[VariableDefinition<'_, String>],
    ) -> Result<Variables, String> {
        let mut vars = Variables {
            values,
            defaults: vec![],
            expanded: std::cell::Cell::new(0),
        };
        for d in definitions {
            if let Some(default) = &d.default_value {
                let v = Val::from_ast(default, &vars)?;
                vars.defaults.push((d.name.clone(), v));
            }
        }
        Ok(vars)
    }
}

impl Val {
    /// A document's value, its variables replaced by the request's (or their defaults).
    pub fn from_ast(v: &Value<'_, String>, vars: &Variables) -> Result<Val, String> {
        Ok(match v {
            Value::Null => Val::Null,
            Value::Boolean(b) => Val::Bool(*b),
            Value::Int(n) => Val::Int(n.as_i64().ok_or("Invalid Int input")?),
            Value::Float(f) => Val::Float(*f),
            Value::String(s) => Val::Str(s.clone()),
            Value::Enum(s) => Val::Str(s.clone()),
            Value::List(items) => Val::List(
                items
                    .iter()
                    .map(|i| Val::from_ast(i, vars))
                    .collect::<Result<_, _>>()?,
            ),
            Value::Object(fields) => Val::Obj(
                fields
                    .iter()
                    .map(|(k, v)| Ok((k.clone(), Val::from_ast(v, vars)?)))
                    .collect::<Result<_, String>>()?,
            ),
            Value::Variable(name) => match vars.values.get(name) {
                Some(json) => Val::from_json(json)?,
                None => vars
                    .defaults
                    .iter()
                    .find(|(n, _)| n == name)
                    .map_or(Val::Absent, |(_, v)| v.clone()),
            },
        })
    }

    pub fn from_json(v: &serde_json::Value) -> Result<Val, String> {
        use serde_json::Value as J;
        Ok(match v {
            J::Null => Val::Null,
            J::Bool(b) => Val::Bool(*b),
            J::String(s) => Val::Str(s.clone()),
            J::Number(n) => match n.as_i64() {
                Some(i) => Val::Int(i),
                None => Val::Float(n.as_f64().ok_or("Failed to handle numeric user input")?),
            },
            J::Array(items) => {
                Val::List(items.iter().map(Val::from_json).collect::<Result<_, _>>()?)
            }
            J::Object(m) => Val::Obj(
                m.iter()
                    .map(|(k, v)| Ok((k.clone(), Val::from_json(v)?)))
                    .collect::<Result<_, String>>()?,
            ),
        })
    }

    /// The JSON of a coerced value (an absent value has none).
    pub fn to_json(&self) -> Result<serde_json::Value, String> {
        use serde_json::Value as J;
        Ok(match self {
            Val::Absent => {
                return Err("Encounterd `Absent` value while transforming between GraphQL intermediate object notation and JSON".to_string());
            }
            Val::Null => J::Null,
            Val::Bool(b) => J::Bool(*b),
            Val::Int(i) => J::from(*i),
            Val::Float(f) => J::from(*f),
            Val::Str(s) => J::String(s.clone()),
            Val::List(items) => J::Array(items.iter().map(Val::to_json).collect::<Result<_, _>>()?),
            Val::Obj(m) => J::Object(
                m.iter()
                    .map(|(k, v)| Ok((k.clone(), v.to_json()?)))
                    .collect::<Result<_, String>>()?,
            ),
        })
    }

    pub fn is_absent_or_null(&self) -> bool {
        matches!(self, Val::Absent | Val::Null)
    }
}

/// `value` checked against `ty` and coerced to it: a single value given for a list becomes a
/// list of one, an enum's GraphQL value becomes its SQL value. `max` is the length a
/// `varchar(n)` column allows its strings (given to the filters and inputs of that column).
pub fn coerce(schema: &Schema, ty: &TypeRef, value: &Val, max: Option<i32>) -> Result<Val, String> {
    match ty {
        TypeRef::NonNull(inner) => {
            let out = coerce(schema, inner, value, max)?;
            if out.is_absent_or_null() {
                return Err("Invalid input for NonNull type".to_string());
            }
            Ok(out)
        }
        TypeRef::List(inner) => match value {
            Val::Absent | Val::Null => Ok(value.clone()),
            Val::List(items) => Ok(Val::List(
                items
                    .iter()
                    .map(|i| coerce(schema, inner, i, max))
                    .collect::<Result<_, _>>()?,
            )),
            single => Ok(Val::List(vec![coerce(schema, inner, single, max)?])),
        },
        TypeRef::Named(name) => {
            let Some(def) = schema.get(name) else {
                return Err(format!("Invalid Type used as input argument {name}"));
            };
            match def.role {
                Role::Scalar(s) => coerce_scalar(
                    match s {
                        Scalar::String(_) => Scalar::String(max),
                        s => s,
                    },
                    value,
                ),
                Role::Enum(e) => match value {
                    Val::Absent | Val::Null => Ok(value.clone()),
                    Val::Str(s) if has_enum_value(def.enum_values.as_deref(), s) => {
                        Ok(Val::Str(schema.enum_sql_value(e, s)))
                    }
                    _ => Err(format!("Invalid input for {name} type")),
                },
                Role::FilterIs | Role::OrderByDirection => match value {
                    Val::Absent | Val::Null => Ok(value.clone()),
                    Val::Str(s) if has_enum_value(def.enum_values.as_deref(), s) => {
                        Ok(value.clone())
                    }
                    _ => Err(format!("Invalid input for {name} type")),
                },
                _ if def.kind == Kind::InputObject => coerce_object(schema, name, value, max),
                _ => Err(format!("Invalid Type used as input argument {name}")),
            }
        }
    }
}

fn has_enum_value(values: Option<&[crate::schema::EnumValue]>, s: &str) -> bool {
    values.is_some_and(|vs| vs.iter().any(|v| v.name == s))
}

fn coerce_scalar(scalar: Scalar, value: &Val) -> Result<Val, String> {
    let ok = match (scalar, value) {
        (_, Val::Absent | Val::Null) | (Scalar::Opaque, _) => true,
        (Scalar::String(Some(max)), Val::Str(s)) => {
            if s.len() as i64 > i64::from(max) {
                return Err(format!(
                    "Invalid input for String type. Maximum character length {max}"
                ));
            }
            true
        }
        (
            Scalar::String(None)
            | Scalar::Date
            | Scalar::Time
            | Scalar::Datetime
            | Scalar::Uuid
            | Scalar::Json
            | Scalar::Cursor
            | Scalar::ID,
            Val::Str(_),
        ) => true,
        (Scalar::Int, Val::Int(_)) => true,
        (Scalar::Float, Val::Int(_) | Val::Float(_)) => true,
        (Scalar::Boolean, Val::Bool(_)) => true,
        (Scalar::BigInt, Val::Str(_) | Val::Int(_) | Val::Float(_)) => true,
        (Scalar::BigFloat, Val::Str(_)) => true,
        (Scalar::BigFloat, _) => {
            return Err("Invalid input for BigFloat type. String required".to_string());
        }
        _ => false,
    };
    if ok {
        Ok(value.clone())
    } else {
        Err(format!("Invalid input for {} type", scalar.message_name()))
    }
}

/// An input object: no key it does not have, each field checked against its type.
fn coerce_object(
    schema: &Schema,
    name: &str,
    value: &Val,
    max: Option<i32>,
) -> Result<Val, String> {
    let def = schema
        .get(name)
        .expect("coerce_object is given a known type");
    let fields = def.input_fields.as_deref().unwrap_or_default();
    match value {
        Val::Absent | Val::Null => Ok(value.clone()),
        Val::Obj(given) => {
            let extra: Vec<&String> = given
                .keys()
                .filter(|k| !fields.iter().any(|f| &f.name == *k))
                .collect();
            if !extra.is_empty() {
                return Err(format!(
                    "Input for type {name} contains extra keys {extra:?}"
                ));
            }
            let table = match def.role {
                Role::Filter(t)
                | Role::OrderBy(t)
                | Role::InsertInput(t)
                | Role::UpdateInput(t) => Some(t),
                _ => None,
            };
            let mut out = IndexMap::new();
            for f in fields {
                let field_max = match (f.kind, table) {
                    (InputKind::Column(c), Some(t)) => schema.column(t, c).max_characters(),
                    _ => max,
                };
                match given.get(&f.name) {
                    None => {
                        coerce(schema, &f.ty, &Val::Null, field_max)?;
                    }
                    Some(v) => {
                        out.insert(f.name.clone(), coerce(schema, &f.ty, v, field_max)?);
                    }
                }
            }
            // In the order the request wrote them.
            let mut ordered = IndexMap::new();
            for k in given.keys() {
                if let Some(v) = out.swap_remove(k) {
                    ordered.insert(k.clone(), v);
                }
            }
            Ok(Val::Obj(ordered))
        }
        _ => Err(format!("Invalid input for {name} type")),
    }
}
