//! supagate's pg_jsonschema 0.3.3: JSON Schema validation of `json` and `jsonb` values, with the
//! SQL surface of supabase/pg_jsonschema (`pg_jsonschema--0.3.3.sql` beside this crate) and the
//! `jsonschema` crate underneath, at the version Supabase's image builds it with, so validation
//! results and messages are the ones projects see there.
//!
//! Each function is immutable, strict and parallel safe. A schema that is not valid JSON Schema
//! makes `json_matches_schema` and `jsonb_matches_schema` fail with an error (as upstream's
//! do), `jsonschema_is_valid` answer false with a notice naming where, and
//! `jsonschema_validation_errors` answer the schema's error as its one element.

use pgrx::prelude::*;
use pgrx::{Json, JsonB};
use serde_json::Value;

pg_module_magic!();

/// The validator of `schema`, or the reason it is not a valid JSON Schema.
fn validator(schema: &Value) -> Result<jsonschema::Validator, String> {
    jsonschema::validator_for(schema).map_err(|e| e.to_string())
}

/// Whether `instance` is valid against `schema`; an invalid schema is an error.
fn matches(schema: &Value, instance: &Value) -> bool {
    match validator(schema) {
        Ok(v) => v.is_valid(instance),
        Err(e) => error!("Invalid schema: {e}"),
    }
}

#[pg_extern(immutable, strict, parallel_safe)]
fn json_matches_schema(schema: Json, instance: Json) -> bool {
    matches(&schema.0, &instance.0)
}

#[pg_extern(immutable, strict, parallel_safe)]
fn jsonb_matches_schema(schema: Json, instance: JsonB) -> bool {
    matches(&schema.0, &instance.0)
}

#[pg_extern(immutable, strict, parallel_safe)]
fn jsonschema_is_valid(schema: Json) -> bool {
    match jsonschema::meta::validate(&schema.0) {
        Ok(()) => true,
        Err(e) => {
            notice!("Invalid JSON schema at path: {}", e.instance_path());
            false
        }
    }
}

#[pg_extern(immutable, strict, parallel_safe)]
fn jsonschema_validation_errors(schema: Json, instance: Json) -> Vec<String> {
    match validator(&schema.0) {
        Ok(v) => v.iter_errors(&instance.0).map(|e| e.to_string()).collect(),
        Err(e) => vec![e],
    }
}
