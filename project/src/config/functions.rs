//! `[functions.<slug>]` and `[edge_runtime]`: which Edge Functions are served and how, as the
//! Supabase CLI reads them.

use super::ConfigError;
use super::doc::Doc;
use super::fields;
use serde::Deserialize;
use std::collections::BTreeMap;
use toml::Value;

/// `[functions.<slug>]`; paths are relative to the `supabase/` folder.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default)]
pub struct FunctionConfig {
    #[serde(deserialize_with = "fields::flag")]
    pub enabled: bool,
    #[serde(deserialize_with = "fields::flag")]
    pub verify_jwt: bool,
    #[serde(deserialize_with = "fields::some_text")]
    pub import_map: Option<String>,
    #[serde(deserialize_with = "fields::some_text")]
    pub entrypoint: Option<String>,
    #[serde(deserialize_with = "fields::list")]
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
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default)]
pub struct EdgeRuntime {
    #[serde(deserialize_with = "fields::flag")]
    pub enabled: bool,
    #[serde(deserialize_with = "policy")]
    pub policy: Policy,
    /// `[edge_runtime.secrets]`: environment of every function (unset `env()` ones left out).
    #[serde(deserialize_with = "fields::secrets")]
    pub secrets: BTreeMap<String, String>,
}

/// `per_worker` or `oneshot`.
fn policy<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Policy, D::Error> {
    match fields::text(d)?.as_str() {
        "per_worker" => Ok(Policy::PerWorker),
        "oneshot" => Ok(Policy::Oneshot),
        other => Err(serde::de::Error::custom(format!(
            "\"{other}\" is not a policy (use per_worker or oneshot)"
        ))),
    }
}

impl Default for EdgeRuntime {
    fn default() -> Self {
        EdgeRuntime {
            enabled: true,
            policy: Policy::PerWorker,
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
        let f = doc.section(&base, &[])?;
        out.insert(slug, f);
    }
    Ok(out)
}

pub(super) fn read_edge_runtime(doc: &mut Doc) -> Result<EdgeRuntime, ConfigError> {
    doc.section(&["edge_runtime"], &[])
}

#[cfg(test)]
mod tests {
    use crate::config::{Config, EdgeRuntime, FunctionConfig, Policy};
    use std::path::Path;

    #[test]
    fn functions_and_the_edge_runtime_are_read_as_the_cli_reads_them() {
        let text = r#"
            [functions.hello]
            verify_jwt = false
            import_map = "./functions/hello/deno.json"
            static_files = ["./functions/hello/*.html"]
            [functions.off]
            enabled = false
            [edge_runtime]
            policy = "oneshot"
            [edge_runtime.secrets]
            STRIPE_KEY = "env(STRIPE)"
            UNSET = "env(NOPE)"
            PLAIN = "x"
        "#;
        let env = |n: &str| (n == "STRIPE").then(|| "sk_test".to_string());
        let c = Config::parse(Path::new("supabase/config.toml"), text, &env)
            .unwrap()
            .config;
        assert_eq!(
            c.functions["hello"],
            FunctionConfig {
                verify_jwt: false,
                import_map: Some("./functions/hello/deno.json".into()),
                static_files: vec!["./functions/hello/*.html".into()],
                ..FunctionConfig::default()
            }
        );
        assert!(!c.functions["off"].enabled);
        assert_eq!(c.edge_runtime.policy, Policy::Oneshot);
        let secrets: Vec<(&str, &str)> = c
            .edge_runtime
            .secrets
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(secrets, [("PLAIN", "x"), ("STRIPE_KEY", "sk_test")]);
        let bad = Config::parse(
            Path::new("supabase/config.toml"),
            "[edge_runtime]\npolicy = \"sometimes\"",
            &|_| None,
        );
        assert!(bad.unwrap_err().to_string().contains("is not a policy"));
        // The inspector is not there: a port other than the CLI's default is named as ignored.
        let inspector = Config::parse(
            Path::new("supabase/config.toml"),
            "[edge_runtime]\ninspector_port = 9229",
            &|_| None,
        )
        .unwrap();
        assert_eq!(inspector.ignored, ["edge_runtime.inspector_port"]);
        assert_eq!(
            Config::parse(Path::new("c.toml"), "", &|_| None)
                .unwrap()
                .config
                .edge_runtime,
            EdgeRuntime::default()
        );
    }
}
