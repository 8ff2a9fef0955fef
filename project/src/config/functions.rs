//! `[functions.<slug>]` and `[edge_runtime]`: which Edge Functions are served and how, as the
//! Supabase CLI reads them.

use super::ConfigError;
use super::doc::{Doc, env_reference};
use std::collections::BTreeMap;
use toml::Value;

/// `[functions.<slug>]`; paths are relative to the `supabase/` folder.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionConfig {
    pub enabled: bool,
    pub verify_jwt: bool,
    pub import_map: Option<String>,
    pub entrypoint: Option<String>,
    pub static_files: Vec<String>,
}

impl Default for FunctionConfig {
    fn default() -> Self {
        FunctionConfig {
            enabled: true,
            verify_jwt: true,
            import_map: None,
            entrypoint: None,
            static_files: Vec::new(),
        }
    }
}

/// How long a function's process lives: for many requests, or for one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    PerWorker,
    Oneshot,
}

/// `[edge_runtime]`.
#[derive(Debug, Clone, PartialEq)]
pub struct EdgeRuntime {
    pub enabled: bool,
    pub policy: Policy,
    pub inspector_port: u16,
    /// `[edge_runtime.secrets]`: environment of every function (unset `env()` ones left out).
    pub secrets: BTreeMap<String, String>,
}

impl Default for EdgeRuntime {
    fn default() -> Self {
        EdgeRuntime {
            enabled: true,
            policy: Policy::PerWorker,
            inspector_port: 8083,
            secrets: BTreeMap::new(),
        }
    }
}

pub(super) fn read_functions(
    doc: &mut Doc,
) -> Result<BTreeMap<String, FunctionConfig>, ConfigError> {
    let slugs: Vec<String> = match doc.lookup(&["functions"]) {
        None => return Ok(BTreeMap::new()),
        Some(Value::Table(t)) => t.keys().cloned().collect(),
        Some(other) => {
            return Err(doc.err(
                &["functions"],
                format!("expected [functions.NAME] tables, got {other}"),
            ));
        }
    };
    let mut out = BTreeMap::new();
    for slug in slugs {
        let base = ["functions", slug.as_str()];
        if !matches!(doc.lookup(&base), Some(Value::Table(_))) {
            return Err(doc.err(&base, "expected a table of function settings"));
        }
        let d = FunctionConfig::default();
        let opt = |doc: &mut Doc, key: &str| -> Result<Option<String>, ConfigError> {
            let path = [base[0], base[1], key];
            Ok(doc
                .lookup(&path)
                .is_some()
                .then(|| doc.string(&path, ""))
                .transpose()?
                .filter(|s| !s.is_empty()))
        };
        let f = FunctionConfig {
            enabled: doc.bool(&[base[0], base[1], "enabled"], d.enabled)?,
            verify_jwt: doc.bool(&[base[0], base[1], "verify_jwt"], d.verify_jwt)?,
            import_map: opt(doc, "import_map")?,
            entrypoint: opt(doc, "entrypoint")?,
            static_files: doc.strings(&[base[0], base[1], "static_files"], &[])?,
        };
        out.insert(slug, f);
    }
    Ok(out)
}

pub(super) fn read_edge_runtime(doc: &mut Doc) -> Result<EdgeRuntime, ConfigError> {
    let d = EdgeRuntime::default();
    let policy = match doc
        .string(&["edge_runtime", "policy"], "per_worker")?
        .as_str()
    {
        "per_worker" => Policy::PerWorker,
        "oneshot" => Policy::Oneshot,
        other => {
            return Err(doc.err(
                &["edge_runtime", "policy"],
                format!("\"{other}\" is not a policy (use per_worker or oneshot)"),
            ));
        }
    };
    let raw_secrets = doc.lookup(&["edge_runtime", "secrets"]).cloned();
    let mut secrets = BTreeMap::new();
    match raw_secrets {
        None => {}
        Some(Value::Table(t)) => {
            let resolved = doc.take(&["edge_runtime", "secrets"]);
            let Some(Value::Table(resolved)) = resolved else {
                unreachable!("a table stays a table")
            };
            for (name, raw) in t {
                match (raw, resolved.get(&name)) {
                    // An env() whose variable is unset is left out, as the CLI leaves it out.
                    (Value::String(_), Some(Value::String(v))) if env_reference(v).is_some() => {}
                    (Value::String(_), Some(Value::String(v))) => {
                        secrets.insert(name, v.clone());
                    }
                    (other, _) => {
                        return Err(doc.err(
                            &["edge_runtime", "secrets", &name],
                            format!("expected a string, got {other}"),
                        ));
                    }
                }
            }
        }
        Some(other) => {
            return Err(doc.err(
                &["edge_runtime", "secrets"],
                format!("expected a table, got {other}"),
            ));
        }
    }
    Ok(EdgeRuntime {
        enabled: doc.bool(&["edge_runtime", "enabled"], d.enabled)?,
        policy,
        inspector_port: doc.int(&["edge_runtime", "inspector_port"], 8083, 1, 65535)? as u16,
        secrets,
    })
}
