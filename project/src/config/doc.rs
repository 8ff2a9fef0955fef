//! Typed values read out of a config.toml document, with `env(NAME)` substitution; every leaf
//! read is remembered, so that what nobody read can be reported.

use super::ConfigError;
use crate::size::parse_size;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use toml::Value;

/// Reads typed values out of the document, remembering which leaves were used.
pub(crate) struct Doc<'a> {
    pub(crate) file: &'a Path,
    pub(crate) root: toml::Table,
    pub(crate) used: BTreeSet<Vec<String>>,
    pub(crate) env: &'a dyn Fn(&str) -> Option<String>,
    /// Leaves a `SUPABASE_<PATH>` variable set, with the variable's name.
    pub(crate) overridden: BTreeMap<Vec<String>, String>,
}

/// Why a value cannot be read as its key wants it (the reason [`Doc::err`] and serde's field
/// readers give, with the key, in [`ConfigError::Value`]).
#[derive(Debug, thiserror::Error)]
pub(crate) enum BadValue {
    #[error("expected true or false, got {0}")]
    NotBool(Value),
    #[error("expected a whole number from {min} to {max}, got {got}")]
    NotInt { min: i64, max: i64, got: Value },
    /// A whole number in range, too large for the field's type.
    #[error("{0} is out of range")]
    OutOfRange(i64),
    #[error("expected a string, got {0}")]
    NotString(Value),
    #[error("expected a list of strings, got {0}")]
    NotStrings(Value),
    #[error("\"{0}\" is not a duration (write it like \"1s\" or \"5m\")")]
    BadDuration(String),
    #[error("expected a duration like \"1s\", got {0}")]
    NotDuration(Value),
    #[error("\"{0}\" is not a size (write it like \"50MiB\", \"5MB\" or \"500KB\")")]
    BadSize(String),
    #[error("expected a size like \"50MiB\", got {0}")]
    NotSize(Value),
}

fn key_of(path: &[&str]) -> String {
    path.join(".")
}

impl Doc<'_> {
    /// A bad value's error; one that came from `env(NAME)` says so, or that NAME is not set.
    pub(crate) fn err(&self, path: &[&str], reason: impl Into<String>) -> ConfigError {
        let mut reason = reason.into();
        let owned: Vec<String> = path.iter().map(|s| s.to_string()).collect();
        if let Some(var) = self.overridden.get(&owned) {
            reason.push_str(&format!(" (from the environment variable {var})"));
        } else if let Some(Value::String(raw)) = self.lookup(path)
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

    pub(crate) fn substitute(&self, v: Value) -> Value {
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

    /// The value at `path` read by `read`, or None when absent; a bad value's error names it.
    fn read<T>(
        &mut self,
        path: &[&str],
        read: impl FnOnce(Value) -> Result<T, BadValue>,
    ) -> Result<Option<T>, ConfigError> {
        self.take(path)
            .map(read)
            .transpose()
            .map_err(|reason| self.err(path, reason.to_string()))
    }

    pub(crate) fn bool(&mut self, path: &[&str], default: bool) -> Result<bool, ConfigError> {
        Ok(self.read(path, to_bool)?.unwrap_or(default))
    }
}

/// `true`/`false`, or a string Go's strconv.ParseBool reads (environment variables are strings).
pub(crate) fn to_bool(v: Value) -> Result<bool, BadValue> {
    match v {
        Value::Boolean(b) => Ok(b),
        Value::String(s) if parse_bool(&s).is_some() => Ok(parse_bool(&s) == Some(true)),
        other => Err(BadValue::NotBool(other)),
    }
}

/// A whole number from `min` to `max` (a string of one too).
pub(crate) fn to_int(v: Value, min: i64, max: i64) -> Result<i64, BadValue> {
    let i = match &v {
        Value::Integer(i) => Some(*i),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    };
    i.filter(|i| (min..=max).contains(i))
        .ok_or(BadValue::NotInt { min, max, got: v })
}

pub(crate) fn to_string(v: Value) -> Result<String, BadValue> {
    match v {
        Value::String(s) => Ok(s),
        other => Err(BadValue::NotString(other)),
    }
}

/// A secret: empty when its `env(NAME)` is unset.
pub(crate) fn to_secret(v: Value) -> Result<String, BadValue> {
    let s = to_string(v)?;
    Ok(if env_reference(&s).is_some() {
        String::new()
    } else {
        s
    })
}

/// A list of strings; a string is a comma-separated list, as the CLI's decoder splits it (how a
/// `SUPABASE_API_SCHEMAS=public,api` variable gives a list).
pub(crate) fn to_strings(v: Value) -> Result<Vec<String>, BadValue> {
    match v {
        Value::String(s) => Ok(s
            .split(',')
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty())
            .collect()),
        Value::Array(items) => items
            .into_iter()
            .map(|v| match v {
                Value::String(s) => Ok(s),
                other => Err(BadValue::NotStrings(other)),
            })
            .collect(),
        other => Err(BadValue::NotStrings(other)),
    }
}

/// A duration in whole seconds: a number, or "1s", "5m", "1h30m", "500ms".
pub(crate) fn to_duration(v: Value) -> Result<u64, BadValue> {
    match v {
        Value::Integer(i) if i >= 0 => Ok(i as u64),
        Value::String(s) => parse_duration(&s).ok_or(BadValue::BadDuration(s)),
        other => Err(BadValue::NotDuration(other)),
    }
}

/// A size in bytes: a number, or "50MiB", "5MB", "500KB".
pub(crate) fn to_size(v: Value) -> Result<u64, BadValue> {
    match v {
        Value::Integer(i) if i >= 0 => Ok(i as u64),
        Value::String(s) => parse_size(&s).ok_or(BadValue::BadSize(s)),
        other => Err(BadValue::NotSize(other)),
    }
}

/// `1`, `t`, `true`, `0`, `f`, `false` in the cases Go's strconv.ParseBool accepts.
fn parse_bool(s: &str) -> Option<bool> {
    match s.trim() {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

/// The variable that overrides a key, as the CLI's viper binds it: `SUPABASE_` and the path
/// joined by `_`, upper-cased (`auth.site_url` → `SUPABASE_AUTH_SITE_URL`).
pub(crate) fn override_var(path: &[String]) -> String {
    format!("SUPABASE_{}", path.join("_").to_uppercase())
}

/// Sets, in `root`, every key a `SUPABASE_<PATH>` variable gives a value: the keys of the CLI's
/// config structs (`patterns`, `*` standing for the names the document has there) and every
/// leaf the document has. Paths under `skip` (a remote block's keys, which the CLI sets above
/// the environment) and the `remotes` blocks are left alone. Returns the leaves set, with
/// their variables.
///
/// A step on the document before the serde model reads it, not a part of the model: the keys
/// a variable can set are the CLI's, not supagate's (a variable for a key supagate does not
/// implement sets it, so that it is reported as ignored), as the CLI's viper sets them before
/// decoding.
pub(crate) fn apply_env_overrides(
    root: &mut toml::Table,
    patterns: &[&str],
    env: &dyn Fn(&str) -> Option<String>,
    skip: &BTreeSet<Vec<String>>,
) -> BTreeMap<Vec<String>, String> {
    let mut candidates: BTreeSet<Vec<String>> = BTreeSet::new();
    let whole = Value::Table(root.clone());
    for pattern in patterns {
        let parts: Vec<&str> = pattern.split('.').collect();
        expand(&whole, &parts, Vec::new(), &mut candidates);
    }
    let mut leaves = Vec::new();
    for (k, v) in root.iter() {
        collect_leaves(v, vec![k.clone()], &mut leaves);
    }
    candidates.extend(leaves.into_iter().map(|(p, _)| p));
    let mut out = BTreeMap::new();
    for path in candidates {
        if path.first().is_some_and(|p| p == "remotes") || skip.contains(&path) {
            continue;
        }
        let var = override_var(&path);
        let Some(value) = env(&var) else { continue };
        if set_leaf(root, &path, Value::String(value)) {
            out.insert(path, var);
        }
    }
    out
}

/// The paths `parts` names in `at`, `*` taking each name present there.
fn expand(at: &Value, parts: &[&str], path: Vec<String>, out: &mut BTreeSet<Vec<String>>) {
    let Some((first, rest)) = parts.split_first() else {
        out.insert(path);
        return;
    };
    let names: Vec<String> = if *first == "*" {
        match at {
            Value::Table(t) => t.keys().cloned().collect(),
            _ => return,
        }
    } else {
        vec![first.to_string()]
    };
    for name in names {
        let next = match at {
            Value::Table(t) => t
                .get(&name)
                .cloned()
                .unwrap_or(Value::Table(Default::default())),
            _ => Value::Table(Default::default()),
        };
        let mut p = path.clone();
        p.push(name);
        expand(&next, rest, p, out);
    }
}

/// Puts `value` at `path`, making the tables on the way; false when a value that is not a
/// table is in the way, or the leaf is a table.
fn set_leaf(root: &mut toml::Table, path: &[String], value: Value) -> bool {
    let Some((last, parents)) = path.split_last() else {
        return false;
    };
    let mut table = root;
    for p in parents {
        let entry = table
            .entry(p.clone())
            .or_insert_with(|| Value::Table(Default::default()));
        match entry {
            Value::Table(t) => table = t,
            _ => return false,
        }
    }
    if matches!(table.get(last), Some(Value::Table(_))) {
        return false;
    }
    table.insert(last.clone(), value);
    true
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_values_say_what_was_expected() {
        let s = |t: &str| Value::String(t.into());
        let said = |e: BadValue| e.to_string();
        assert_eq!(
            said(to_bool(s("maybe")).unwrap_err()),
            "expected true or false, got \"maybe\""
        );
        assert_eq!(
            said(to_int(Value::Integer(7), 0, 5).unwrap_err()),
            "expected a whole number from 0 to 5, got 7"
        );
        assert_eq!(
            said(to_string(Value::Integer(1)).unwrap_err()),
            "expected a string, got 1"
        );
        assert_eq!(
            said(to_strings(Value::Array(vec![Value::Integer(1)])).unwrap_err()),
            "expected a list of strings, got 1"
        );
        assert_eq!(
            said(to_duration(s("soon")).unwrap_err()),
            "\"soon\" is not a duration (write it like \"1s\" or \"5m\")"
        );
        assert_eq!(
            said(to_duration(Value::Boolean(true)).unwrap_err()),
            "expected a duration like \"1s\", got true"
        );
        assert_eq!(
            said(to_size(s("big")).unwrap_err()),
            "\"big\" is not a size (write it like \"50MiB\", \"5MB\" or \"500KB\")"
        );
        assert_eq!(
            said(to_size(Value::Float(1.5)).unwrap_err()),
            "expected a size like \"50MiB\", got 1.5"
        );
        assert_eq!(said(BadValue::OutOfRange(70000)), "70000 is out of range");
    }
}
