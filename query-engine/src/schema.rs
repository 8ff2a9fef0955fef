//! The schema cache: tables, columns, keys, foreign keys and functions of the exposed schemas.
//! The gateway runs [`INTROSPECTION_SQL`] and hands its JSON result to [`SchemaCache::from_json`].

use serde::Deserialize;
use std::collections::HashMap;

/// One statement returning the whole cache as one JSON text. `$1` is the array of exposed schemas.
/// Run with `search_path = pg_catalog` so `format_type` qualifies every user-defined type.
pub const INTROSPECTION_SQL: &str = r#"
WITH rels AS (
  SELECT c.oid, n.nspname AS schema, c.relname AS name, c.relkind::text AS kind,
         c.relrowsecurity AS rls, obj_description(c.oid, 'pg_class') AS description
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind IN ('r', 'v', 'm', 'f', 'p') AND n.nspname = ANY($1)
),
cols AS (
  SELECT a.attrelid AS oid,
         json_agg(json_build_object(
           'name', a.attname,
           'type', format_type(a.atttypid, a.atttypmod),
           'nullable', NOT a.attnotnull,
           -- As PostgREST: a domain's default, an identity column's sequence, none for a
           -- generated column, else the column default.
           'default', CASE
             WHEN t.typbasetype <> 0 AND d.adbin IS NULL THEN pg_get_expr(t.typdefaultbin, 0)
             WHEN a.attidentity = 'd' THEN
               format('nextval(%L)', pg_get_serial_sequence(a.attrelid::regclass::text, a.attname)::regclass)
             WHEN a.attgenerated = 's' THEN NULL
             ELSE pg_get_expr(d.adbin, d.adrelid)
           END,
           'generated', a.attgenerated <> '',
           'description', col_description(a.attrelid, a.attnum)
         ) ORDER BY a.attnum) AS columns
  FROM pg_attribute a
  LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
  JOIN pg_type t ON t.oid = a.atttypid
  WHERE a.attrelid IN (SELECT oid FROM rels) AND a.attnum > 0 AND NOT a.attisdropped
  GROUP BY a.attrelid
),
keys AS (
  SELECT con.conrelid AS oid, con.contype::text AS kind,
         (SELECT json_agg(a.attname ORDER BY k.ord)
            FROM unnest(con.conkey) WITH ORDINALITY k(num, ord)
            JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.num) AS columns
  FROM pg_constraint con
  WHERE con.contype IN ('p', 'u') AND con.conrelid IN (SELECT oid FROM rels)
),
fks AS (
  SELECT json_build_object(
    'name', con.conname,
    'schema', n1.nspname, 'table', c1.relname,
    'columns', (SELECT json_agg(a.attname ORDER BY k.ord)
                  FROM unnest(con.conkey) WITH ORDINALITY k(num, ord)
                  JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.num),
    'foreign_schema', n2.nspname, 'foreign_table', c2.relname,
    'foreign_columns', (SELECT json_agg(a.attname ORDER BY k.ord)
                  FROM unnest(con.confkey) WITH ORDINALITY k(num, ord)
                  JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.num)
  ) AS fk
  FROM pg_constraint con
  JOIN pg_class c1 ON c1.oid = con.conrelid JOIN pg_namespace n1 ON n1.oid = c1.relnamespace
  JOIN pg_class c2 ON c2.oid = con.confrelid JOIN pg_namespace n2 ON n2.oid = c2.relnamespace
  -- Every schema's: a view of an exposed schema can relate through a table of another.
  WHERE con.contype = 'f'
),
-- Which base column each column of an exposed view shows, as PostgREST finds view relationships:
-- the view rule's target entries that are plain columns (resorigtbl/resorigcol), resolved
-- through views of views by the cache.
view_cols AS (
  SELECT json_build_object(
    'view_schema', n.nspname, 'view', c.relname,
    'column', regexp_replace(m[1], '\\(.)', '\1', 'g'),
    'table_schema', tn.nspname, 'table', tc.relname, 'table_column', ta.attname
  ) AS vc
  FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace
  JOIN pg_rewrite r ON r.ev_class = c.oid AND r.rulename = '_RETURN'
  CROSS JOIN LATERAL regexp_matches(r.ev_action::text,
    ':resname ((?:\\.|[^ ])+) :ressortgroupref \d+ :resorigtbl (\d+) :resorigcol (\d+) :resjunk false', 'g') AS m
  JOIN pg_class tc ON tc.oid = m[2]::oid
  JOIN pg_namespace tn ON tn.oid = tc.relnamespace
  JOIN pg_attribute ta ON ta.attrelid = tc.oid AND ta.attnum = m[3]::int
  WHERE c.relkind IN ('v', 'm') AND n.nspname = ANY($1)
),
funcs AS (
  SELECT p.oid, json_build_object(
    'schema', n.nspname, 'name', p.proname,
    'args', (SELECT coalesce(json_agg(json_build_object('name', coalesce(a.name, ''), 'type', format_type(a.typ, NULL)) ORDER BY a.ord), '[]')
               FROM unnest(coalesce(p.proallargtypes, p.proargtypes::oid[]),
                           coalesce(p.proargmodes, array_fill('i'::"char", ARRAY[p.pronargs])),
                           p.proargnames) WITH ORDINALITY AS a(typ, mode, name, ord)
              WHERE a.mode IN ('i', 'b', 'v')),
    'defaults', p.pronargdefaults,
    'return_type', format_type(p.prorettype, NULL),
    'returns_set', p.proretset,
    'returns_rows', (t.typtype = 'c' OR p.prorettype = 'record'::regtype),
    'returns_void', p.prorettype = 'void'::regtype,
    -- For computed relationships and embedding on a call's rows, as PostgREST: the relation
    -- whose row type the single argument takes and the one whose rows it returns.
    'arg_table', (SELECT json_build_array(an.nspname, ac.relname) FROM pg_class ac
                    JOIN pg_namespace an ON an.oid = ac.relnamespace
                   WHERE p.pronargs = 1 AND ac.reltype = p.proargtypes[0]
                     AND ac.relkind IN ('r', 'v', 'm', 'f', 'p')),
    'return_table', (SELECT json_build_array(rn.nspname, rc.relname) FROM pg_class rc
                       JOIN pg_namespace rn ON rn.oid = rc.relnamespace
                      WHERE rc.reltype = p.prorettype AND rc.relkind IN ('r', 'v', 'm', 'f', 'p')),
    'single_row', NOT p.proretset OR p.prorows = 1,
    -- Callable as PostgREST calls functions: unnamed parameters only as the single parameter
    -- of a type a raw body can be (others are left out of the RPC schema cache, as PostgREST;
    -- they can still be computed relationships).
    'callable', (SELECT CASE count(*) WHEN 0 THEN true
                  WHEN 1 THEN bool_and(u.typ IN ('bytea'::regtype, 'json'::regtype, 'jsonb'::regtype,
                                                 'text'::regtype, 'xml'::regtype))
                  ELSE false END
           FROM unnest(coalesce(p.proallargtypes, p.proargtypes::oid[]),
                       coalesce(p.proargmodes, array_fill('i'::"char", ARRAY[p.pronargs])),
                       p.proargnames) AS u(typ, mode, name)
          WHERE u.mode IN ('i', 'b', 'v') AND coalesce(u.name, '') = ''),
    'volatility', p.provolatile::text,
    'description', obj_description(p.oid, 'pg_proc')
  ) AS f
  FROM pg_proc p
  JOIN pg_namespace n ON n.oid = p.pronamespace
  JOIN pg_type t ON t.oid = p.prorettype
  WHERE n.nspname = ANY($1) AND p.prokind = 'f' AND p.prorettype <> 'trigger'::regtype
),
-- Settings of the roles this login can switch to (ALTER ROLE anon SET statement_timeout = '3s'),
-- applied to each request's transaction as PostgREST applies them. Only settings a session may
-- change; database-specific ones sort last so they win.
role_settings AS (
  SELECT r.rolname AS role, split_part(x, '=', 1) AS key, substr(x, strpos(x, '=') + 1) AS value,
         s.setdatabase <> 0 AS specific
  FROM pg_db_role_setting s
  JOIN pg_roles r ON r.oid = s.setrole
  CROSS JOIN LATERAL unnest(s.setconfig) AS x
  WHERE s.setdatabase IN (0, (SELECT oid FROM pg_database WHERE datname = current_database()))
    AND pg_has_role(current_user, r.oid, 'MEMBER') AND r.rolname <> current_user
    AND (split_part(x, '=', 1) LIKE '%.%'
         OR EXISTS (SELECT 1 FROM pg_settings ps WHERE ps.name = split_part(x, '=', 1) AND ps.context = 'user'))
),
-- PostgREST's in-database configuration: `pgrst.*` settings of the login role itself
-- (ALTER ROLE authenticator SET pgrst.db_aggregates_enabled = 'true'); database-specific ones
-- sort last so they win.
db_config AS (
  SELECT substr(split_part(x, '=', 1), 7) AS key, substr(x, strpos(x, '=') + 1) AS value,
         s.setdatabase <> 0 AS specific
  FROM pg_db_role_setting s
  CROSS JOIN LATERAL unnest(s.setconfig) AS x
  WHERE s.setrole = (SELECT oid FROM pg_roles WHERE rolname = current_user)
    AND s.setdatabase IN (0, (SELECT oid FROM pg_database WHERE datname = current_database()))
    AND split_part(x, '=', 1) LIKE 'pgrst.%'
)
SELECT json_build_object(
  'tables', coalesce((SELECT json_agg(json_build_object(
      'schema', r.schema, 'name', r.name, 'kind', r.kind, 'rls', r.rls, 'description', r.description,
      'columns', coalesce(c.columns, '[]'),
      'primary_key', coalesce((SELECT k.columns FROM keys k WHERE k.oid = r.oid AND k.kind = 'p'), '[]'),
      'unique_keys', coalesce((SELECT json_agg(k.columns) FROM keys k WHERE k.oid = r.oid), '[]')
    )) FROM rels r LEFT JOIN cols c ON c.oid = r.oid), '[]'),
  'foreign_keys', coalesce((SELECT json_agg(fk) FROM fks), '[]'),
  'view_columns', coalesce((SELECT json_agg(vc) FROM view_cols), '[]'),
  'functions', coalesce((SELECT json_agg(f.f ORDER BY f.oid) FROM funcs f), '[]'),
  'role_settings', coalesce((SELECT json_agg(rs ORDER BY rs.specific) FROM role_settings rs), '[]'),
  'db_config', coalesce((SELECT json_agg(d ORDER BY d.specific) FROM db_config d), '[]')
)::text
"#;

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

    /// An in-database configuration value (`pgrst.<key>` on the login role).
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
