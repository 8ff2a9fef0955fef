//! What `gen types typescript` needs to know about the schemas, read in one statement.

use serde::Deserialize;

/// `$1`: the schemas to describe.
pub const SQL: &str = r#"
WITH rels AS (
  SELECT c.oid, n.nspname AS schema, c.relname AS name, c.relkind::text AS kind,
         (pg_relation_is_updatable(c.oid::regclass, false) & 20) = 20 AS updatable
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind IN ('r', 'p', 'f', 'v', 'm') AND n.nspname = ANY($1)
),
cols AS (
  SELECT a.attrelid AS oid, json_agg(json_build_object(
           'name', a.attname,
           'type', CASE WHEN t.typtype = 'd' THEN bt.typname ELSE t.typname END,
           'nullable', NOT a.attnotnull,
           'has_default', a.atthasdef,
           'identity', nullif(a.attidentity::text, ''),
           'generated', a.attgenerated <> '',
           'updatable', pg_column_is_updatable(a.attrelid, a.attnum, false)
         ) ORDER BY a.attnum) AS columns
  FROM pg_attribute a
  JOIN pg_type t ON t.oid = a.atttypid
  LEFT JOIN pg_type bt ON bt.oid = t.typbasetype
  WHERE a.attrelid IN (SELECT oid FROM rels) AND a.attnum > 0 AND NOT a.attisdropped
  GROUP BY a.attrelid
),
fks AS (
  SELECT json_build_object(
    'name', con.conname, 'schema', n.nspname, 'relation', c.relname,
    'columns', (SELECT json_agg(a.attname ORDER BY k.ord) FROM unnest(con.conkey) WITH ORDINALITY k(num, ord)
                JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.num),
    'one_to_one', EXISTS (
      SELECT 1 FROM pg_constraint u WHERE u.conrelid = con.conrelid AND u.contype IN ('p', 'u')
        AND (SELECT array_agg(x ORDER BY x) FROM unnest(u.conkey) x)
          = (SELECT array_agg(x ORDER BY x) FROM unnest(con.conkey) x)),
    'referenced_schema', rn.nspname, 'referenced_relation', rc.relname,
    'referenced_columns', (SELECT json_agg(a.attname ORDER BY k.ord) FROM unnest(con.confkey) WITH ORDINALITY k(num, ord)
                JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.num)
  ) AS fk
  FROM pg_constraint con
  JOIN pg_class c ON c.oid = con.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
  JOIN pg_class rc ON rc.oid = con.confrelid JOIN pg_namespace rn ON rn.oid = rc.relnamespace
  WHERE con.contype = 'f' AND n.nspname = ANY($1)
),
funcs AS (
  SELECT json_build_object(
    'schema', n.nspname, 'name', p.proname, 'returns_set', p.proretset,
    'return_type', rt.typname, 'return_schema', rtn.nspname,
    'args', (SELECT coalesce(json_agg(json_build_object(
                 'name', coalesce(a.name, ''), 'mode', a.mode,
                 'type', t.typname, 'pseudo', t.typtype = 'p',
                 'has_default', a.mode IN ('i', 'b', 'v')
                   AND a.in_pos > (SELECT count(*) FROM unnest(coalesce(p.proargmodes, array_fill('i'::"char", ARRAY[p.pronargs]))) m WHERE m IN ('i', 'b', 'v')) - p.pronargdefaults
               ) ORDER BY a.ord), '[]')
             FROM (
               SELECT x.*, count(*) FILTER (WHERE x.mode IN ('i', 'b', 'v')) OVER (ORDER BY x.ord) AS in_pos
               FROM unnest(coalesce(p.proallargtypes, p.proargtypes::oid[]),
                           coalesce(p.proargmodes, array_fill('i'::"char", ARRAY[p.pronargs]))::text[],
                           coalesce(p.proargnames, array_fill(''::text, ARRAY[coalesce(array_length(p.proallargtypes, 1), p.pronargs)])))
                    WITH ORDINALITY AS x(typ, mode, name, ord)
             ) a JOIN pg_type t ON t.oid = a.typ)
  ) AS f
  FROM pg_proc p
  JOIN pg_namespace n ON n.oid = p.pronamespace
  JOIN pg_type rt ON rt.oid = p.prorettype
  JOIN pg_namespace rtn ON rtn.oid = rt.typnamespace
  WHERE n.nspname = ANY($1) AND p.prokind = 'f' AND rt.typname NOT IN ('trigger', 'event_trigger')
),
types AS (
  SELECT json_build_object(
    'schema', n.nspname, 'name', t.typname,
    'enums', coalesce((SELECT json_agg(e.enumlabel ORDER BY e.enumsortorder) FROM pg_enum e WHERE e.enumtypid = t.oid), '[]'),
    'attributes', CASE WHEN t.typtype = 'c' AND c.relkind = 'c' THEN
        (SELECT coalesce(json_agg(json_build_object('name', a.attname, 'type', at.typname) ORDER BY a.attnum), '[]')
           FROM pg_attribute a JOIN pg_type at ON at.oid = a.atttypid
          WHERE a.attrelid = t.typrelid AND a.attnum > 0 AND NOT a.attisdropped)
      ELSE '[]' END
  ) AS ty
  FROM pg_type t
  JOIN pg_namespace n ON n.oid = t.typnamespace
  LEFT JOIN pg_class c ON c.oid = t.typrelid
  WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
    AND (t.typtype = 'e' OR (t.typtype = 'c' AND c.relkind = 'c'))
)
SELECT json_build_object(
  'relations', coalesce((SELECT json_agg(json_build_object('schema', r.schema, 'name', r.name,
      'kind', r.kind, 'updatable', r.updatable, 'columns', coalesce(c.columns, '[]')))
    FROM rels r LEFT JOIN cols c ON c.oid = r.oid), '[]'),
  'relationships', coalesce((SELECT json_agg(fk) FROM fks), '[]'),
  'functions', coalesce((SELECT json_agg(f) FROM funcs), '[]'),
  'types', coalesce((SELECT json_agg(ty) FROM types), '[]')
)::text
"#;

#[derive(Debug, Deserialize)]
pub struct Catalog {
    pub relations: Vec<Relation>,
    pub relationships: Vec<Relationship>,
    pub functions: Vec<Function>,
    pub types: Vec<Type>,
}

#[derive(Debug, Deserialize)]
pub struct Relation {
    pub schema: String,
    pub name: String,
    /// pg_class.relkind.
    pub kind: String,
    /// For views: both UPDATE and DELETE work through it.
    pub updatable: bool,
    pub columns: Vec<Column>,
}

impl Relation {
    pub fn is_view(&self) -> bool {
        self.kind == "v" || self.kind == "m"
    }
}

#[derive(Debug, Deserialize)]
pub struct Column {
    pub name: String,
    #[serde(rename = "type")]
    pub type_name: String,
    pub nullable: bool,
    pub has_default: bool,
    /// "a" (GENERATED ALWAYS AS IDENTITY) or "d" (BY DEFAULT).
    pub identity: Option<String>,
    pub generated: bool,
    pub updatable: bool,
}

#[derive(Debug, Deserialize)]
pub struct Relationship {
    pub name: String,
    pub schema: String,
    pub relation: String,
    pub columns: Vec<String>,
    pub one_to_one: bool,
    pub referenced_schema: String,
    pub referenced_relation: String,
    pub referenced_columns: Vec<String>,
}

#[derive(Debug, Deserialize)]
pub struct Function {
    pub schema: String,
    pub name: String,
    pub returns_set: bool,
    pub return_type: String,
    pub return_schema: String,
    pub args: Vec<Arg>,
}

#[derive(Debug, Deserialize)]
pub struct Arg {
    pub name: String,
    /// i in, o out, b inout, v variadic, t a column of RETURNS TABLE.
    pub mode: String,
    #[serde(rename = "type")]
    pub type_name: String,
    pub pseudo: bool,
    pub has_default: bool,
}

impl Function {
    pub fn in_args(&self) -> impl Iterator<Item = &Arg> {
        self.args
            .iter()
            .filter(|a| matches!(a.mode.as_str(), "i" | "b" | "v"))
    }
}

#[derive(Debug, Deserialize)]
pub struct Type {
    pub schema: String,
    pub name: String,
    pub enums: Vec<String>,
    pub attributes: Vec<Attribute>,
}

#[derive(Debug, Deserialize)]
pub struct Attribute {
    pub name: String,
    #[serde(rename = "type")]
    pub type_name: String,
}
