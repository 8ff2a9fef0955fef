//! config.toml sections read through serde: `Doc::section` deserializes a table into a struct
//! (`#[derive(Deserialize)]`, `#[serde(default)]`), reporting keys the struct has no field for
//! through `serde_ignored` and a bad value's key through `serde_path_to_error`; the field
//! readers below (`#[serde(deserialize_with = "...")]`) take values as `Doc`'s readers do.

use super::ConfigError;
use super::doc::{
    BadValue, Doc, collect_leaves, to_bool, to_duration, to_int, to_secret, to_size, to_string,
    to_strings,
};
use serde::de::{DeserializeOwned, Error};
use serde::{Deserialize, Deserializer};
use toml::Value;

impl Doc<'_> {
    /// The table at `path` read into `T` (its default when absent or not a table). Entries of
    /// `nested` (tables inside it) that are not tables are passed over, left unread. Every
    /// leaf a field took is marked read; keys no field took are left unread.
    pub(crate) fn section<T: DeserializeOwned + Default>(
        &mut self,
        path: &[&str],
        nested: &[&str],
    ) -> Result<T, ConfigError> {
        let Some(Value::Table(mut table)) = self.lookup(path).cloned() else {
            return Ok(T::default());
        };
        let base: Vec<String> = path.iter().map(|s| s.to_string()).collect();
        let mut unread: Vec<Vec<String>> = Vec::new();
        for dotted in nested {
            let parts: Vec<&str> = dotted.split('.').collect();
            if drop_non_table(&mut table, &parts) {
                unread.push(
                    [
                        &base[..],
                        &parts.iter().map(|p| p.to_string()).collect::<Vec<_>>(),
                    ]
                    .concat(),
                );
            }
        }
        let value = mark_datetimes(self.substitute(Value::Table(table)));
        let mut record = |p: serde_ignored::Path| unread.push([&base[..], &segments(&p)].concat());
        let read =
            serde_path_to_error::deserialize(serde_ignored::Deserializer::new(value, &mut record));
        let read: T = read.map_err(|e| {
            let mut at: Vec<String> = base.clone();
            at.extend(e.path().iter().map(|s| match s {
                serde_path_to_error::Segment::Seq { index } => index.to_string(),
                serde_path_to_error::Segment::Map { key } => key.clone(),
                serde_path_to_error::Segment::Enum { variant } => variant.clone(),
                serde_path_to_error::Segment::Unknown => "?".to_string(),
            }));
            let at: Vec<&str> = at.iter().map(String::as_str).collect();
            self.err(&at, e.inner().message())
        })?;
        let mut leaves = Vec::new();
        if let Some(v) = self.lookup(path) {
            collect_leaves(v, base.clone(), &mut leaves);
        }
        let read_leaves: Vec<Vec<String>> = leaves
            .into_iter()
            .map(|(p, _)| p)
            .filter(|p| !unread.iter().any(|u| p.starts_with(u)))
            .collect();
        self.used.extend(read_leaves);
        Ok(read)
    }
}

/// Removes the entry at `parts` when it is there and not a table.
fn drop_non_table(table: &mut toml::Table, parts: &[&str]) -> bool {
    match parts {
        [] => false,
        [last] => {
            let drop = table.get(*last).is_some_and(|v| !v.is_table());
            if drop {
                table.remove(*last);
            }
            drop
        }
        [first, rest @ ..] => match table.get_mut(*first) {
            Some(Value::Table(t)) => drop_non_table(t, rest),
            _ => false,
        },
    }
}

/// A `serde_ignored` path's names.
fn segments(p: &serde_ignored::Path) -> Vec<String> {
    match p {
        serde_ignored::Path::Root => Vec::new(),
        serde_ignored::Path::Seq { parent, index } => {
            [segments(parent), vec![index.to_string()]].concat()
        }
        serde_ignored::Path::Map { parent, key } => [segments(parent), vec![key.clone()]].concat(),
        serde_ignored::Path::Some { parent }
        | serde_ignored::Path::NewtypeStruct { parent }
        | serde_ignored::Path::NewtypeVariant { parent } => segments(parent),
    }
}

/// Marks a datetime passed through serde (which makes it a string) so that a field reader sees
/// it as the document has it.
const DATETIME: &str = "\u{0}supagate-datetime\u{0}";

fn mark_datetimes(v: Value) -> Value {
    match v {
        Value::Datetime(d) => Value::String(format!("{DATETIME}{d}")),
        Value::Array(a) => Value::Array(a.into_iter().map(mark_datetimes).collect()),
        Value::Table(t) => {
            Value::Table(t.into_iter().map(|(k, v)| (k, mark_datetimes(v))).collect())
        }
        other => other,
    }
}

fn restore_datetimes(v: Value) -> Value {
    match v {
        Value::String(s) => match s.strip_prefix(DATETIME).and_then(|d| d.parse().ok()) {
            Some(d) => Value::Datetime(d),
            None => Value::String(s),
        },
        Value::Array(a) => Value::Array(a.into_iter().map(restore_datetimes).collect()),
        Value::Table(t) => Value::Table(
            t.into_iter()
                .map(|(k, v)| (k, restore_datetimes(v)))
                .collect(),
        ),
        other => other,
    }
}

fn with<'de, D: Deserializer<'de>, T>(
    d: D,
    read: impl FnOnce(Value) -> Result<T, BadValue>,
) -> Result<T, D::Error> {
    read(restore_datetimes(Value::deserialize(d)?)).map_err(D::Error::custom)
}

/// `true`/`false` (or a string Go's strconv.ParseBool reads).
pub(crate) fn flag<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    with(d, to_bool)
}

/// A whole number from `MIN` to `MAX`.
pub(crate) fn int<'de, const MIN: i64, const MAX: i64, T: TryFrom<i64>, D: Deserializer<'de>>(
    d: D,
) -> Result<T, D::Error> {
    with(d, |v| {
        let i = to_int(v, MIN, MAX)?;
        T::try_from(i).map_err(|_| BadValue::OutOfRange(i))
    })
}

/// `true`/`false` when given.
pub(crate) fn given_flag<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    with(d, to_bool).map(Some)
}

/// A whole number from `MIN` to `MAX`, when given.
pub(crate) fn some_int<
    'de,
    const MIN: i64,
    const MAX: i64,
    T: TryFrom<i64>,
    D: Deserializer<'de>,
>(
    d: D,
) -> Result<Option<T>, D::Error> {
    int::<MIN, MAX, T, D>(d).map(Some)
}

pub(crate) fn text<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    with(d, to_string)
}

/// A string, kept as given (empty too) when given.
pub(crate) fn given_text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    with(d, to_string).map(Some)
}

/// A secret (a token, key or password): empty when its `env(NAME)` is unset.
pub(crate) fn secret<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    with(d, to_secret)
}

/// A string when given; an empty one is none.
pub(crate) fn some_text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    with(d, |v| {
        to_string(v).map(|s| Some(s).filter(|s| !s.is_empty()))
    })
}

/// A list of strings (a string is a comma-separated list).
pub(crate) fn list<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    with(d, to_strings)
}

/// A list of strings when given.
pub(crate) fn given_list<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    with(d, to_strings).map(Some)
}

/// A duration in whole seconds.
pub(crate) fn duration<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    with(d, to_duration)
}

/// A duration in whole seconds, when given.
pub(crate) fn given_duration<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    with(d, to_duration).map(Some)
}

/// A size in bytes.
pub(crate) fn size<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    with(d, to_size)
}

/// A table whose `enabled` switches a feature, on by default.
#[derive(Deserialize)]
#[serde(default)]
pub(crate) struct SwitchedOn {
    #[serde(deserialize_with = "flag")]
    pub(crate) enabled: bool,
}

impl Default for SwitchedOn {
    fn default() -> Self {
        SwitchedOn { enabled: true }
    }
}
