//! `__schema` and `__type`: the schema's types, fields, arguments, enum values and directives
//! as introspection's objects, answered from the reflected schema without a query. `__typename`
//! of these objects is what pg_graphql answers: the name of the type, field, argument or value
//! described (`__Directive` for a directive, `__schema` for the schema).

use crate::document::{self, Fragments};
use crate::schema::{DIRECTIVES, EnumValue, Field, InputValue, Schema, TypeDef, TypeRef};
use crate::value::Variables;
use graphql_parser::query::Field as QField;
use serde_json::{Map, Value as Json};

pub struct Introspector<'s, 'a> {
    pub schema: &'s Schema,
    pub fragments: &'s Fragments<'a>,
    pub vars: &'s Variables,
}

fn opt(s: &Option<String>) -> Json {
    s.as_ref().map_or(Json::Null, |s| Json::String(s.clone()))
}

impl<'s, 'a> Introspector<'s, 'a> {
    fn fields(
        &self,
        q: &QField<'a, String>,
        type_name: &str,
    ) -> Result<Vec<QField<'a, String>>, String> {
        document::fields(&q.selection_set, self.fragments, type_name, self.vars)
    }

    /// `__schema { … }`.
    pub fn schema(&self, q: &QField<'a, String>) -> Result<Json, String> {
        let mut out = Map::new();
        for sel in self.fields(q, "__Schema")? {
            let value = match sel.name.as_str() {
                "types" => Json::Array(
                    self.schema
                        .types
                        .iter()
                        .map(|t| self.named(t, &sel))
                        .collect::<Result<_, _>>()?,
                ),
                "queryType" => self.named(self.schema.query(), &sel)?,
                "mutationType" => match self.schema.mutation() {
                    Some(m) => self.named(m, &sel)?,
                    None => Json::Null,
                },
                "subscriptionType" | "description" => Json::Null,
                "directives" => Json::Array(
                    DIRECTIVES
                        .iter()
                        .map(|d| self.directive(d, &sel))
                        .collect::<Result<_, _>>()?,
                ),
                // As pg_graphql answers it: the entry field's name.
                "__typename" => Json::String("__schema".to_string()),
                other => return Err(format!("unknown field in __Schema: {other}")),
            };
            out.insert(document::key(&sel).to_string(), value);
        }
        Ok(Json::Object(out))
    }

    /// `__type(name: …) { … }`: null for a name the schema does not have.
    pub fn type_by_name(&self, q: &QField<'a, String>, name: &str) -> Result<Json, String> {
        match self.schema.get(name) {
            Some(t) => self.named(t, q),
            None => Ok(Json::Null),
        }
    }

    fn named(&self, t: &TypeDef, q: &QField<'a, String>) -> Result<Json, String> {
        self.type_ref(&TypeRef::named(&t.name), Some(t), q)
    }

    fn type_ref(
        &self,
        ty: &TypeRef,
        def: Option<&TypeDef>,
        q: &QField<'a, String>,
    ) -> Result<Json, String> {
        let def = match (ty, def) {
            (TypeRef::Named(n), None) => self.schema.get(n),
            (_, d) => d,
        };
        let meta = self.schema.get("__Type").expect("the schema has __Type");
        let mut out = Map::new();
        for sel in self.fields(q, "__Type")? {
            if sel.name != "__typename" && meta.field(&sel.name).is_none() {
                return Err(format!("unknown field on __Type: {}", sel.name));
            }
            let named = match ty {
                TypeRef::Named(_) => def,
                _ => None,
            };
            let value = match sel.name.as_str() {
                "kind" => Json::String(
                    match ty {
                        TypeRef::List(_) => "LIST",
                        TypeRef::NonNull(_) => "NON_NULL",
                        TypeRef::Named(_) => def.map_or("SCALAR", |d| d.kind.as_str()),
                    }
                    .to_string(),
                ),
                "name" => match ty {
                    TypeRef::Named(n) => Json::String(n.clone()),
                    _ => Json::Null,
                },
                "description" => named.map_or(Json::Null, |d| opt(&d.description)),
                "fields" => match named.and_then(|d| d.fields.as_ref()) {
                    Some(fields) => Json::Array(
                        fields
                            .iter()
                            .filter(|f| f.name != "__type" && f.name != "__schema")
                            .map(|f| self.field(f, &sel))
                            .collect::<Result<_, _>>()?,
                    ),
                    None => Json::Null,
                },
                "inputFields" => match named.and_then(|d| d.input_fields.as_ref()) {
                    Some(ivs) => Json::Array(
                        ivs.iter()
                            .map(|iv| self.input_value(iv, &sel))
                            .collect::<Result<_, _>>()?,
                    ),
                    None => Json::Null,
                },
                "interfaces" => Json::Array(
                    named
                        .and_then(|d| d.interfaces.as_ref())
                        .into_iter()
                        .flatten()
                        .map(|i| self.type_ref(&TypeRef::named(i), None, &sel))
                        .collect::<Result<_, _>>()?,
                ),
                "possibleTypes" => match named.and_then(|d| d.possible_types.as_ref()) {
                    Some(types) => Json::Array(
                        types
                            .iter()
                            .map(|p| self.type_ref(&TypeRef::named(p), None, &sel))
                            .collect::<Result<_, _>>()?,
                    ),
                    None => Json::Null,
                },
                "enumValues" => match named.and_then(|d| d.enum_values.as_ref()) {
                    Some(values) => Json::Array(
                        values
                            .iter()
                            .map(|v| self.enum_value(v, &sel))
                            .collect::<Result<_, _>>()?,
                    ),
                    None => Json::Null,
                },
                "ofType" => match ty {
                    TypeRef::List(inner) | TypeRef::NonNull(inner) => {
                        self.type_ref(inner, None, &sel)?
                    }
                    TypeRef::Named(_) => Json::Null,
                },
                "specifiedByURL" => Json::Null,
                // As pg_graphql answers it: the described type's name.
                "__typename" => match ty {
                    TypeRef::Named(n) => Json::String(n.clone()),
                    _ => Json::Null,
                },
                other => return Err(format!("unexpected field {other} type on __Type")),
            };
            out.insert(document::key(&sel).to_string(), value);
        }
        Ok(Json::Object(out))
    }

    fn field(&self, f: &Field, q: &QField<'a, String>) -> Result<Json, String> {
        let mut out = Map::new();
        for sel in self.fields(q, "__Field")? {
            let value = match sel.name.as_str() {
                "name" => Json::String(f.name.clone()),
                "description" => opt(&f.description),
                "args" => Json::Array(
                    f.args
                        .iter()
                        .map(|a| self.input_value(a, &sel))
                        .collect::<Result<_, _>>()?,
                ),
                "type" => self.type_ref(&f.ty, None, &sel)?,
                "isDeprecated" => Json::Bool(false),
                "deprecationReason" => Json::Null,
                "__typename" => Json::String(f.name.clone()),
                other => return Err(format!("unknown field in __Field {other}")),
            };
            out.insert(document::key(&sel).to_string(), value);
        }
        Ok(Json::Object(out))
    }

    fn input_value(&self, iv: &InputValue, q: &QField<'a, String>) -> Result<Json, String> {
        let mut out = Map::new();
        for sel in self.fields(q, "__InputValue")? {
            let value = match sel.name.as_str() {
                "name" => Json::String(iv.name.clone()),
                "description" => opt(&iv.description),
                "type" => self.type_ref(&iv.ty, None, &sel)?,
                "defaultValue" => opt(&iv.default_value),
                "isDeprecated" => Json::Bool(false),
                "deprecationReason" => Json::Null,
                "__typename" => Json::String(iv.name.clone()),
                other => return Err(format!("unknown field in __InputValue: {other}")),
            };
            out.insert(document::key(&sel).to_string(), value);
        }
        Ok(Json::Object(out))
    }

    fn enum_value(&self, v: &EnumValue, q: &QField<'a, String>) -> Result<Json, String> {
        let mut out = Map::new();
        for sel in self.fields(q, "__EnumValue")? {
            let value = match sel.name.as_str() {
                "name" => Json::String(v.name.clone()),
                "description" => opt(&v.description),
                "isDeprecated" => Json::Bool(false),
                "deprecationReason" => Json::Null,
                "__typename" => Json::String(v.name.clone()),
                other => return Err(format!("unknown field in __EnumValue: {other}")),
            };
            out.insert(document::key(&sel).to_string(), value);
        }
        Ok(Json::Object(out))
    }

    fn directive(
        &self,
        d: &crate::schema::Directive,
        q: &QField<'a, String>,
    ) -> Result<Json, String> {
        let mut out = Map::new();
        for sel in self.fields(q, "__Directive")? {
            let value = match sel.name.as_str() {
                "name" => Json::String(d.name.to_string()),
                "description" => Json::String(d.description.to_string()),
                "locations" => serde_json::json!(["FIELD", "FRAGMENT_SPREAD", "INLINE_FRAGMENT"]),
                "args" => {
                    let arg = InputValue {
                        name: "if".to_string(),
                        description: Some(d.arg_description.to_string()),
                        ty: TypeRef::named("Boolean").non_null(),
                        default_value: None,
                        kind: crate::schema::InputKind::Plain,
                    };
                    Json::Array(vec![self.input_value(&arg, &sel)?])
                }
                "isRepeatable" => Json::Bool(false),
                "__typename" => Json::String("__Directive".to_string()),
                other => return Err(format!("unknown field {other} in __Directive")),
            };
            out.insert(document::key(&sel).to_string(), value);
        }
        Ok(Json::Object(out))
    }
}
