//! The schema cache: tables, columns, keys, foreign keys and functions of the exposed schemas.
//! The gateway runs [`INTROSPECTION_SQL`] and hands its JSON result to [`SchemaCache::from_json`].

use serde::Deserialize;
use std::collections::HashMap;

/// One statement returning the whole cache as one JSON text. `$1` is the array of exposed schemas.
/// Run with `search_path = pg_catalog` so `format_type` qualifies every user-defined type.
pub const INTROSPECTION_SQL: &str = include_str!("schema_introspection.sql");

#[derive(Debug, Clone, Deserialize)]
pub struct Column {
    pub name: String,
    #[serde(rename = "type")]
    pub data_type: String,
    pub nullable: bool,
    pub default: Option<String>,
    #[serde(default)]
    pub generated: bool,
    #[serde(default)]
    pub description: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Table {
    pub schema: String,
    pub name: String,
    /// pg_class.relkind: r table, v view, m materialized view, f foreign, p partitioned.
    pub kind: String,
    /// Row level security is enabled on it.
    #[serde(default)]
    pub rls: bool,
    #[serde(default)]
    pub description: Option<String>,
    pub columns: Vec<Column>,
    pub primary_key: Vec<String>,
    #[serde(default)]
    pub unique_keys: Vec<Vec<String>>,
}

impl Table {
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }

    pub fn is_view(&self) -> bool {
        self.kind == "v" || self.kind == "m"
    }
}

#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub struct ForeignKey {
    pub name: String,
    pub schema: String,
    pub table: String,
    pub columns: Vec<String>,
    pub foreign_schema: String,
    pub foreign_table: String,
    pub foreign_columns: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct FunctionArg {
    pub name: String,
    #[serde(rename = "type")]
    pub data_type: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Function {
    pub schema: String,
    pub name: String,
    pub args: Vec<FunctionArg>,
    /// How many trailing arguments have defaults.
    pub defaults: usize,
    pub return_type: String,
    pub returns_set: bool,
    /// Returns rows of a composite type (a table, OUT parameters or TABLE(...)).
    pub returns_rows: bool,
    pub returns_void: bool,
    /// The relation (schema, name) whose row is the single argument, if it is one.
    #[serde(default)]
    pub arg_table: Option<(String, String)>,
    /// The relation (schema, name) whose rows it returns, if it does.
    #[serde(default)]
    pub return_table: Option<(String, String)>,
    /// Returns one row at most (not SETOF, or declared `ROWS 1`).
    #[serde(default)]
    pub single_row: bool,
    /// Callable through `/rpc` (see the introspection query); others can only be computed
    /// relationships.
    #[serde(default = "yes")]
    pub callable: bool,
    /// i immutable, s stable, v volatile.
    pub volatility: String,
    #[serde(default)]
    pub description: Option<String>,
}

impl Function {
    /// Whether a call naming exactly `given` arguments matches this overload.
    pub fn accepts(&self, given: &[&str]) -> bool {
        let required = self.args.len() - self.defaults.min(self.args.len());
        given.iter().all(|g| self.args.iter().any(|a| a.name == *g))
            && self.args[..required]
                .iter()
                .all(|a| given.contains(&a.name.as_str()))
    }

    pub fn is_read_only(&self) -> bool {
        self.volatility != "v"
    }
}

fn yes() -> bool {
    true
}

#[derive(Debug, Deserialize)]
struct RoleSetting {
    role: String,
    key: String,
    value: String,
}

#[derive(Debug, Deserialize)]
struct DbSetting {
    key: String,
    value: String,
}

/// A view column showing a column of a relation (a table, or another view).
#[derive(Debug, Deserialize)]
struct ViewColumn {
    view_schema: String,
    view: String,
    column: String,
    table_schema: String,
    table: String,
    table_column: String,
}

/// The foreign keys views inherit, as PostgREST's view relationships: a view showing every
/// column of a foreign key's side (through views of views too) relates as that side does, under
/// the constraint's name, to the other side and to the views of the other side.
fn view_foreign_keys(fks: &[ForeignKey], view_columns: &[ViewColumn]) -> Vec<ForeignKey> {
    // (view schema, view, column) → the base column it shows, following views of views.
    let direct: HashMap<Key, Key> = view_columns
        .iter()
        .map(|v| {
            (
                (v.view_schema.as_str(), v.view.as_str(), v.column.as_str()),
                (
                    v.table_schema.as_str(),
                    v.table.as_str(),
                    v.table_column.as_str(),
                ),
            )
        })
        .collect();
    type Key<'a> = (&'a str, &'a str, &'a str);
    fn follow<'a>(direct: &HashMap<Key<'a>, Key<'a>>, mut key: Key<'a>) -> Key<'a> {
        for _ in 0..16 {
            match direct.get(&key) {
                Some(next) => key = *next,
                None => break,
            }
        }
        key
    }
    let base = |key| follow(&direct, key);
    let mut views: Vec<(&str, &str)> = view_columns
        .iter()
        .map(|v| (v.view_schema.as_str(), v.view.as_str()))
        .collect();
    views.sort();
    views.dedup();
    // The relations (the table itself, then views) showing all of `cols` of (schema, table).
    let sides =
        |schema: &str, table: &str, cols: &[String]| -> Vec<(String, String, Vec<String>)> {
            let mut out = vec![(schema.to_string(), table.to_string(), cols.to_vec())];
            for (vs, vn) in &views {
                let shown: Option<Vec<String>> = cols
                    .iter()
                    .map(|c| {
                        view_columns
                            .iter()
                            .filter(|v| v.view_schema == *vs && v.view == *vn)
                            .find(|v| base((vs, vn, &v.column)) == (schema, table, c.as_str()))
                            .map(|v| v.column.clone())
                    })
                    .collect();
                if let Some(shown) = shown {
                    out.push((vs.to_string(), vn.to_string(), shown));
                }
            }
            out
        };
    let mut out = Vec::new();
    for fk in fks {
        let from = sides(&fk.schema, &fk.table, &fk.columns);
        let to = sides(&fk.foreign_schema, &fk.foreign_table, &fk.foreign_columns);
        for (i, (s1, t1, c1)) in from.iter().enumerate() {
            for (j, (s2, t2, c2)) in to.iter().enumerate() {
                if i == 0 && j == 0 {
                    continue;
                }
                out.push(ForeignKey {
                    name: fk.name.clone(),
                    schema: s1.clone(),
                    table: t1.clone(),
                    columns: c1.clone(),
                    foreign_schema: s2.clone(),
                    foreign_table: t2.clone(),
                    foreign_columns: c2.clone(),
                });
            }
        }
    }
    out
}

#[derive(Debug, Deserialize)]
struct Raw {
    tables: Vec<Table>,
    foreign_keys: Vec<ForeignKey>,
    #[serde(default)]
    view_columns: Vec<ViewColumn>,
    functions: Vec<Function>,
    #[serde(default)]
    role_settings: Vec<RoleSetting>,
    #[serde(default)]
    db_config: Vec<DbSetting>,
}

#[derive(Debug, Default, Clone)]
pub struct SchemaCache {
    tables: HashMap<(String, String), Table>,
    pub foreign_keys: Vec<ForeignKey>,
    functions: HashMap<(String, String), Vec<Function>>,
    /// Functions taking one row of a relation and returning rows of one: computed relationships.
    computed: Vec<Function>,
    /// Role → its settings (name, value), in the order to apply them.
    role_settings: HashMap<String, Vec<(String, String)>>,
    /// The login role's `pgrst.*` settings, without the prefix (`db_tx_end` → `commit`).
    db_config: HashMap<String, String>,
}

impl SchemaCache {
    pub fn from_json(json: &str) -> Result<Self, serde_json::Error> {
        let raw: Raw = serde_json::from_str(json)?;
        let mut functions: HashMap<(String, String), Vec<Function>> = HashMap::new();
        let mut computed = Vec::new();
        for f in raw.functions {
            if f.args.len() == 1 && f.arg_table.is_some() && f.return_table.is_some() {
                computed.push(f.clone());
            }
            if !f.callable {
                continue;
            }
            functions
                .entry((f.schema.clone(), f.name.clone()))
                .or_default()
                .push(f);
        }
        let mut role_settings: HashMap<String, Vec<(String, String)>> = HashMap::new();
        for rs in raw.role_settings {
            let list = role_settings.entry(rs.role).or_default();
            // A database-specific value (later) replaces the general one.
            list.retain(|(k, _)| *k != rs.key);
            list.push((rs.key, rs.value));
        }
        Ok(SchemaCache {
            role_settings,
            db_config: raw
                .db_config
                .into_iter()
                .map(|d| (d.key, d.value))
                .collect(),
            tables: raw
                .tables
                .into_iter()
                .map(|t| ((t.schema.clone(), t.name.clone()), t))
                .collect(),
            foreign_keys: {
                let mut fks = view_foreign_keys(&raw.foreign_keys, &raw.view_columns);
                fks.splice(0..0, raw.foreign_keys);
                fks
            },
            functions,
            computed,
        })
    }

    /// Configuration from outside the database (`PGRST_*` variables: `db_tx_end` → `commit`),
    /// under the database's own `pgrst.*` settings, as PostgREST layers them.
    pub fn with_db_defaults(mut self, defaults: &[(String, String)]) -> Self {
        for (k, v) in defaults {
            self.db_config.entry(k.clone()).or_insert_with(|| v.clone());
        }
        self
    }

    /// A configuration value: in-database (`pgrst.<key>` on the login role) over the
    /// environment's.
    pub fn db_setting(&self, key: &str) -> Option<&str> {
        self.db_config.get(key).map(String::as_str)
    }

    /// Every role's settings, by role.
    pub fn all_role_settings(&self) -> &HashMap<String, Vec<(String, String)>> {
        &self.role_settings
    }

    /// The settings of an impersonated role (`ALTER ROLE … SET`), to apply per request.
    pub fn role_settings(&self, role: &str) -> &[(String, String)] {
        self.role_settings
            .get(role)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    pub fn table(&self, schema: &str, name: &str) -> Option<&Table> {
        self.tables.get(&(schema.to_string(), name.to_string()))
    }

    pub fn tables(&self) -> impl Iterator<Item = &Table> {
        self.tables.values()
    }

    pub fn functions(&self, schema: &str, name: &str) -> &[Function] {
        self.functions
            .get(&(schema.to_string(), name.to_string()))
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// Computed relationships: functions taking a relation's row and returning a relation's rows.
    pub fn computed_relationships(&self) -> &[Function] {
        &self.computed
    }

    pub fn all_functions(&self) -> impl Iterator<Item = &Function> {
        self.functions.values().flatten()
    }

    /// The table name closest to `name` in `schema`, for PGRST205's hint (as PostgREST: a
    /// fuzzy score of at least 0.75).
    pub fn closest_table(&self, schema: &str, name: &str) -> Option<&str> {
        crate::fuzzy::best(
            self.tables
                .values()
                .filter(|t| t.schema == schema)
                .map(|t| t.name.as_str()),
            name,
            0.75,
        )
    }

    /// Names of the functions `/rpc` can call in `schema`.
    pub fn function_names(&self, schema: &str) -> impl Iterator<Item = &str> {
        self.functions
            .keys()
            .filter(move |(s, _)| s == schema)
            .map(|(_, n)| n.as_str())
    }

    pub fn table_count(&self) -> usize {
        self.tables.len()
    }
}

#[cfg(test)]
pub(crate) mod fixture {
    use super::*;

    /// The shop's schema as the introspection query returns it.
    pub fn shop() -> SchemaCache {
        shop_with(serde_json::json!([]))
    }

    /// The shop's schema with in-database configuration (`[{"key": …, "value": …}]`).
    pub fn shop_with(db_config: serde_json::Value) -> SchemaCache {
        let col = |n: &str, t: &str, nullable: bool, default: Option<&str>| serde_json::json!({"name": n, "type": t, "nullable": nullable, "default": default});
        let json = serde_json::json!({
          "tables": [
            {"schema":"public","name":"categories","kind":"r","primary_key":["id"],"columns":[
              col("id","uuid",false,Some("gen_random_uuid()")), col("name","text",false,None),
              col("slug","text",false,None), col("order_by","integer",false,Some("0")),
              col("is_available","boolean",false,Some("true")), col("parent_id","uuid",true,None)]},
            {"schema":"public","name":"products","kind":"r","primary_key":["id"],"columns":[
              col("id","uuid",false,Some("gen_random_uuid()")), col("name","text",false,None),
              col("sku","text",true,None), col("base_price","numeric(10,2)",false,Some("0")),
              col("category_id","uuid",true,None), col("is_available","boolean",false,Some("true")),
              col("data","jsonb",true,None), col("tags","text[]",true,None)]},
            {"schema":"public","name":"product_categories","kind":"r","primary_key":["product_id","category_id"],"columns":[
              col("product_id","uuid",false,None), col("category_id","uuid",false,None)]}
          ],
          "foreign_keys": [
            {"name":"products_category_id_fkey","schema":"public","table":"products","columns":["category_id"],
             "foreign_schema":"public","foreign_table":"categories","foreign_columns":["id"]},
            {"name":"categories_parent_id_fkey","schema":"public","table":"categories","columns":["parent_id"],
             "foreign_schema":"public","foreign_table":"categories","foreign_columns":["id"]},
            {"name":"product_categories_product_id_fkey","schema":"public","table":"product_categories","columns":["product_id"],
             "foreign_schema":"public","foreign_table":"products","foreign_columns":["id"]},
            {"name":"product_categories_category_id_fkey","schema":"public","table":"product_categories","columns":["category_id"],
             "foreign_schema":"public","foreign_table":"categories","foreign_columns":["id"]}
          ],
          "functions": [
            {"schema":"public","name":"add","args":[{"name":"a","type":"integer"},{"name":"b","type":"integer"}],
             "defaults":1,"return_type":"integer","returns_set":false,"returns_rows":false,"returns_void":false,"volatility":"i"},
            {"schema":"public","name":"search_products","args":[{"name":"q","type":"text"}],
             "defaults":0,"return_type":"products","returns_set":true,"returns_rows":true,"returns_void":false,"volatility":"s",
             "return_table":["public","products"]},
            {"schema":"public","name":"related","args":[{"name":"","type":"public.products"}],
             "defaults":0,"return_type":"products","returns_set":true,"returns_rows":true,"returns_void":false,"volatility":"s",
             "arg_table":["public","products"],"return_table":["public","products"],"single_row":false,"callable":false}
          ],
          "db_config": db_config
        });
        SchemaCache::from_json(&json.to_string()).unwrap()
    }
}
