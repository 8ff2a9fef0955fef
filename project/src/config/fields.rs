//! config.toml sections read through serde: `Doc::section` deserializes a table into a struct
//! (`#[derive(Deserialize)]`, `#[serde(default)]`), reporting keys the struct has no field for
//! through `serde_ignored` and a bad value's key through `serde_path_to_error`; the field
//! readers below (`#[serde(deserialize_with = "...")]`) take values as `Doc`'s readers do.
//! Tables of named entries (`[db.vault]`, `[db.settings]`, …) go through [`table_of`], which
//! reads each entry by its name, so that a bad entry's error names its key.

use super::ConfigError;
use super::doc::env_reference;
use super::doc::{
    BadValue, Doc, collect_leaves, to_bool, to_duration, to_int, to_secret, to_size, to_string,
    to_strings,
};
use serde::de::{DeserializeOwned, DeserializeSeed, Error, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use std::collections::BTreeMap;
use std::marker::PhantomData;
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
        let Some(Value::Table(mut table)) = self.value_at(path) else {
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
        let whole = self.value_at(path);
        let mut leaves = Vec::new();
        if let Some(v) = &whole {
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

impl Doc<'_> {
    /// The value at `path`; the whole document at `[]`.
    fn value_at(&self, path: &[&str]) -> Option<Value> {
        if path.is_empty() {
            return Some(Value::Table(self.root.clone()));
        }
        self.lookup(path).cloned()
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

/// A value as the document has it.
pub(crate) fn value<'de, D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
    with(d, Ok)
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

/// A table whose `enabled` switches a feature, off by default.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(crate) struct SwitchedOff {
    #[serde(deserialize_with = "flag")]
    pub(crate) enabled: bool,
}

/// An entry of a table of named entries, read knowing its name.
pub(crate) trait Entry: Sized {
    fn read<'de, D: Deserializer<'de>>(name: &str, d: D) -> Result<Self, D::Error>;
}

/// Reads one entry by its name (the seed through which serde keeps the entry's key in an
/// error's path).
struct EntrySeed<'n, E> {
    name: &'n str,
    entry: PhantomData<E>,
}

impl<'de, E: Entry> DeserializeSeed<'de> for EntrySeed<'_, E> {
    type Value = E;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<E, D::Error> {
        E::read(self.name, d)
    }
}

/// A table's entries in the document's order, each read by `E`; anything else than a table is
/// "expected a table, got …".
pub(crate) fn table_of<'de, E: Entry, D: Deserializer<'de>>(
    d: D,
) -> Result<Vec<(String, E)>, D::Error> {
    struct Table<E>(PhantomData<E>);

    /// The error for a value that is not a table, showing it as the document has it.
    fn not_table<Er: Error>(v: Value) -> Er {
        Er::custom(format!("expected a table, got {}", restore_datetimes(v)))
    }

    impl<'de, E: Entry> Visitor<'de> for Table<E> {
        type Value = Vec<(String, E)>;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a table")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out = Vec::new();
            while let Some(name) = map.next_key::<String>()? {
                let entry = map.next_value_seed(EntrySeed {
                    name: &name,
                    entry: PhantomData,
                })?;
                out.push((name, entry));
            }
            Ok(out)
        }

        fn visit_bool<Er: Error>(self, v: bool) -> Result<Self::Value, Er> {
            Err(not_table(Value::Boolean(v)))
        }

        fn visit_i64<Er: Error>(self, v: i64) -> Result<Self::Value, Er> {
            Err(not_table(Value::Integer(v)))
        }

        fn visit_u64<Er: Error>(self, v: u64) -> Result<Self::Value, Er> {
            Err(not_table(
                i64::try_from(v).map_or(Value::Float(v as f64), Value::Integer),
            ))
        }

        fn visit_f64<Er: Error>(self, v: f64) -> Result<Self::Value, Er> {
            Err(not_table(Value::Float(v)))
        }

        fn visit_str<Er: Error>(self, v: &str) -> Result<Self::Value, Er> {
            Err(not_table(Value::String(v.to_string())))
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut items = Vec::new();
            while let Some(v) = seq.next_element::<Value>()? {
                items.push(v);
            }
            Err(not_table(Value::Array(items)))
        }
    }

    d.deserialize_any(Table(PhantomData))
}

/// A string entry of a table of secrets: none when its `env(NAME)` is unset (left out, as the
/// CLI leaves it out).
struct SecretEntry(Option<String>);

impl Entry for SecretEntry {
    fn read<'de, D: Deserializer<'de>>(_: &str, d: D) -> Result<Self, D::Error> {
        with(d, to_string).map(|s| SecretEntry(env_reference(&s).is_none().then_some(s)))
    }
}

/// A table of named strings, such as `[db.vault]` or `[edge_runtime.secrets]`, with
/// `env(NAME)` substituted; entries whose variable is unset are left out.
pub(crate) fn secrets<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<BTreeMap<String, String>, D::Error> {
    Ok(table_of::<SecretEntry, D>(d)?
        .into_iter()
        .filter_map(|(name, SecretEntry(s))| Some((name, s?)))
        .collect())
}
