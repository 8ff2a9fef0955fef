//! Typed values read out of a config.toml document, with `env(NAME)` substitution; every leaf
//! read is remembered, so that what nobody read can be reported.

use super::ConfigError;
use crate::size::parse_size;
use std::collections::BTreeSet;
use std::path::Path;
use toml::Value;

/// Reads typed values out of the document, remembering which leaves were used.
pub(crate) struct Doc<'a> {
    pub(crate) file: &'a Path,
    pub(crate) root: toml::Table,
    pub(crate) used: BTreeSet<Vec<String>>,
    pub(crate) env: &'a dyn Fn(&str) -> Option<String>,
}

fn key_of(path: &[&str]) -> String {
    path.join(".")
}

impl Doc<'_> {
    /// A bad value's error; one that came from `env(NAME)` says so, or that NAME is not set.
    pub(crate) fn err(&self, path: &[&str], reason: impl Into<String>) -> ConfigError {
        let mut reason = reason.into();
        if let Some(Value::String(raw)) = self.lookup(path)
            && let Some(name) = env_reference(raw)
        {
            match (self.env)(name) {
                Some(_) => reason.push_str(&format!(" (from the environment variable {name})")),
                None => reason.push_str(&format!(" (the environment variable {name} is not set)")),
            }
        }
        ConfigError::Value {
            file: self.file.to_path_buf(),
            key: key_of(path),
            reason,
        }
    }

    pub(crate) fn lookup(&self, path: &[&str]) -> Option<&Value> {
        let (last, parents) = path.split_last()?;
        let mut table = &self.root;
        for p in parents {
            table = table.get(*p)?.as_table()?;
        }
        table.get(*last)
    }

    /// The value at `path` with `env(NAME)` replaced, marking it (and everything under it) used.
    pub(crate) fn take(&mut self, path: &[&str]) -> Option<Value> {
        let value = self.lookup(path)?.clone();
        let mut leaves = Vec::new();
        collect_leaves(
            &value,
            path.iter().map(|s| s.to_string()).collect(),
            &mut leaves,
        );
        self.used.extend(leaves.into_iter().map(|(p, _)| p));
        Some(self.substitute(value))
    }

    fn substitute(&self, v: Value) -> Value {
        match v {
            Value::String(s) => match env_reference(&s).and_then(|name| (self.env)(name)) {
                Some(value) => Value::String(value),
                None => Value::String(s),
            },
            Value::Array(a) => Value::Array(a.into_iter().map(|v| self.substitute(v)).collect()),
            Value::Table(t) => Value::Table(
                t.into_iter()
                    .map(|(k, v)| (k, self.substitute(v)))
                    .collect(),
            ),
            other => other,
        }
    }

    pub(crate) fn bool(&mut self, path: &[&str], default: bool) -> Result<bool, ConfigError> {
        match self.take(path) {
            None => Ok(default),
            Some(Value::Boolean(b)) => Ok(b),
            Some(Value::String(s)) if s == "true" || s == "false" => Ok(s == "true"),
            Some(other) => Err(self.err(path, format!("expected true or false, got {other}"))),
        }
    }

    pub(crate) fn int(
        &mut self,
        path: &[&str],
        default: i64,
        min: i64,
        max: i64,
    ) -> Result<i64, ConfigError> {
        let v = match self.take(path) {
            None => return Ok(default),
            Some(Value::Integer(i)) => Some(i),
            Some(Value::String(s)) => s.trim().parse().ok(),
            Some(_) => None,
        };
        match v {
            Some(i) if (min..=max).contains(&i) => Ok(i),
            _ => {
                let got = self.take(path).map(|v| v.to_string()).unwrap_or_default();
                Err(self.err(
                    path,
                    format!("expected a whole number from {min} to {max}, got {got}"),
                ))
            }
        }
    }

    pub(crate) fn string(&mut self, path: &[&str], default: &str) -> Result<String, ConfigError> {
        match self.take(path) {
            None => Ok(default.to_string()),
            Some(Value::String(s)) => Ok(s),
            Some(other) => Err(self.err(path, format!("expected a string, got {other}"))),
        }
    }

    /// A secret (a token, key or password): empty when absent or when its `env(NAME)` is unset,
    /// which is what "no real credentials" means in local development.
    pub(crate) fn secret(&mut self, path: &[&str]) -> Result<String, ConfigError> {
        let s = self.string(path, "")?;
        Ok(if env_reference(&s).is_some() {
            String::new()
        } else {
            s
        })
    }

    pub(crate) fn strings(
        &mut self,
        path: &[&str],
        default: &[String],
    ) -> Result<Vec<String>, ConfigError> {
        match self.take(path) {
            None => Ok(default.to_vec()),
            Some(Value::Array(items)) => items
                .into_iter()
                .map(|v| match v {
                    Value::String(s) => Ok(s),
                    other => {
                        Err(self.err(path, format!("expected a list of strings, got {other}")))
                    }
                })
                .collect(),
            Some(other) => Err(self.err(path, format!("expected a list of strings, got {other}"))),
        }
    }

    /// A table of named strings, such as `[db.vault]` or `[edge_runtime.secrets]`, with
    /// `env(NAME)` substituted; entries whose variable is unset are left out, as the CLI leaves
    /// them out.
    pub(crate) fn secrets(
        &mut self,
        path: &[&str],
    ) -> Result<std::collections::BTreeMap<String, String>, ConfigError> {
        let mut out = std::collections::BTreeMap::new();
        match self.take(path) {
            None => {}
            Some(Value::Table(t)) => {
                for (name, v) in t {
                    match v {
                        Value::String(s) if env_reference(&s).is_some() => {}
                        Value::String(s) => {
                            out.insert(name, s);
                        }
                        other => {
                            let mut at = path.to_vec();
                            at.push(&name);
                            return Err(self.err(&at, format!("expected a string, got {other}")));
                        }
                    }
                }
            }
            Some(other) => return Err(self.err(path, format!("expected a table, got {other}"))),
        }
        Ok(out)
    }

    /// A duration written as Go writes them ("1s", "5m", "1h30m", "500ms"), in whole seconds.
    pub(crate) fn duration(&mut self, path: &[&str], default: u64) -> Result<u64, ConfigError> {
        match self.take(path) {
            None => Ok(default),
            Some(Value::Integer(i)) if i >= 0 => Ok(i as u64),
            Some(Value::String(s)) => parse_duration(&s).ok_or_else(|| {
                self.err(
                    path,
                    format!("\"{s}\" is not a duration (write it like \"1s\" or \"5m\")"),
                )
            }),
            Some(other) => Err(self.err(
                path,
                format!("expected a duration like \"1s\", got {other}"),
            )),
        }
    }

    pub(crate) fn size(&mut self, path: &[&str]) -> Result<Option<u64>, ConfigError> {
        match self.take(path) {
            None => Ok(None),
            Some(Value::Integer(i)) if i >= 0 => Ok(Some(i as u64)),
            Some(Value::String(s)) => parse_size(&s).map(Some).ok_or_else(|| {
                self.err(
                    path,
                    format!(
                        "\"{s}\" is not a size (write it like \"50MiB\", \"5MB\" or \"500KB\")"
                    ),
                )
            }),
            Some(other) => {
                Err(self.err(path, format!("expected a size like \"50MiB\", got {other}")))
            }
        }
    }
}

/// `env(NAME)` → NAME.
pub(crate) fn env_reference(s: &str) -> Option<&str> {
    let name = s.trim().strip_prefix("env(")?.strip_suffix(')')?.trim();
    (!name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .then_some(name)
}

pub(crate) fn collect_leaves<'v>(
    v: &'v Value,
    path: Vec<String>,
    out: &mut Vec<(Vec<String>, &'v Value)>,
) {
    match v {
        Value::Table(t) => {
            for (k, v) in t {
                let mut p = path.clone();
                p.push(k.clone());
                collect_leaves(v, p, out);
            }
        }
        other => out.push((path, other)),
    }
}

pub(crate) fn matches(pattern: &str, path: &[String]) -> bool {
    let parts: Vec<&str> = pattern.split('.').collect();
    parts.len() == path.len() && parts.iter().zip(path).all(|(p, s)| *p == "*" || p == s)
}

pub(crate) fn starts_with(prefix: &str, path: &[String]) -> bool {
    let parts: Vec<&str> = prefix.split('.').collect();
    parts.len() <= path.len() && parts.iter().zip(path).all(|(p, s)| p == s)
}

/// "1h30m", "5m", "1s", "250ms" → seconds (rounded up).
pub(crate) fn parse_duration(s: &str) -> Option<u64> {
    let s = s.trim();
    if s.is_empty() {
        return None;
    }
    let mut millis: u64 = 0;
    let mut rest = s;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let n: u64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let unit = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let factor = match &rest[..unit] {
            "h" => 3_600_000,
            "m" => 60_000,
            "s" => 1000,
            "ms" => 1,
            _ => return None,
        };
        millis = millis.checked_add(n.checked_mul(factor)?)?;
        rest = &rest[unit..];
    }
    Some(millis.div_ceil(1000))
}
