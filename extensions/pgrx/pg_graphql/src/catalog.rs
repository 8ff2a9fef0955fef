//! What the caller can see of the database, read in one query as the caller (so grants decide
//! what is reflected): the schemas of the search path, their tables, views, materialized views
//! and foreign tables with columns, indexes and privileges, the foreign keys between them and
//! the enums, with each object's `@graphql(...)` comment directive.

use indexmap::IndexMap;
use serde::Deserialize;

/// The key a reflected schema is kept under: the role, the effective search path and the
/// version the DDL event triggers move on.
pub const CONFIG_SQL: &str = "select pg_catalog.jsonb_build_array(current_user::text, \
     pg_catalog.current_schemas(false)::text, graphql.get_schema_version())";

/// One JSON document describing everything `Catalog` holds.
pub const CATALOG_SQL: &str = r#"
with sp(oid, pos) as (
    select n.oid, s.pos
    from pg_catalog.unnest(pg_catalog.current_schemas(false)) with ordinality s(name, pos)
    join pg_catalog.pg_namespace n on n.nspname = s.name
    where pg_catalog.has_schema_privilege(n.oid, 'USAGE')
),
rel as (
    select c.oid, c.relnamespace, c.relname, c.relkind, c.relrowsecurity, c.reltype
    from pg_catalog.pg_class c
    join sp on sp.oid = c.relnamespace
    where c.relkind in ('r', 'v', 'm', 'f')
),
d_schema as (
    select sp.oid, sp.pos, graphql.comment_directive(pg_catalog.obj_description(sp.oid, 'pg_namespace')) d
    from sp
),
d_table as (
    select rel.oid, graphql.comment_directive(pg_catalog.obj_description(rel.oid, 'pg_class')) d
    from rel
),
fn as (
    select p.*, n.nspname
    from pg_catalog.pg_proc p
    join sp on sp.oid = p.pronamespace
    join pg_catalog.pg_namespace n on n.oid = p.pronamespace
    where p.prokind = 'f'
),
fn_type(oid, info) as (
    select t.oid, pg_catalog.jsonb_build_object(
        'oid', t.oid::int8,
        'name', t.typname,
        'format', pg_catalog.format_type(t.oid, null),
        'kind', case
            when t.typtype = 'e' then 'enum'
            when t.typtype = 'p' then 'pseudo'
            when t.typcategory = 'A' then 'array'
            when t.typtype = 'c' and r.relkind = 'c' then 'composite'
            when t.typtype = 'c' then 'table'
            else 'other' end,
        'relid', nullif(t.typrelid, 0)::int8,
        'elem', case when t.typcategory = 'A' then pg_catalog.jsonb_build_object(
            'oid', e.oid::int8,
            'kind', case
                when e.typtype = 'e' then 'enum'
                when e.typtype = 'p' then 'pseudo'
                when e.typcategory = 'A' then 'array'
                when e.typtype = 'c' then 'composite'
                else 'other' end,
            'name', e.typname,
            'usable', pg_catalog.has_type_privilege(e.oid, 'USAGE')) end
    )
    from pg_catalog.pg_type t
    left join pg_catalog.pg_class r on r.oid = t.typrelid
    left join pg_catalog.pg_type e on e.oid = t.typelem
    where t.oid in (select x from fn, pg_catalog.unnest(fn.proargtypes::oid[] || fn.prorettype) x)
)
select pg_catalog.jsonb_build_object(
    'schemas', coalesce((
        select pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
            'oid', n.oid::int8,
            'directive', pg_catalog.jsonb_build_object(
                'inflect_names', coalesce((ds.d -> 'inflect_names') = pg_catalog.to_jsonb(true), false),
                'max_rows', coalesce((ds.d ->> 'max_rows')::int, 30)
            )
        ) order by ds.pos)
        from d_schema ds join pg_catalog.pg_namespace n on n.oid = ds.oid
    ), '[]'),
    'tables', coalesce((
        select pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
            'oid', rel.oid::int8,
            'schema_oid', rel.relnamespace::int8,
            'schema', n.nspname,
            'name', rel.relname,
            'rls', rel.relrowsecurity,
            'reltype', rel.reltype::int8,
            'directive', pg_catalog.jsonb_build_object(
                'name', dt.d ->> 'name',
                'description', dt.d -> 'description',
                'total_count', coalesce((dt.d -> 'totalCount' ->> 'enabled') = 'true', false),
                'primary_key_columns', dt.d -> 'primary_key_columns',
                'foreign_keys', dt.d -> 'foreign_keys'
            ),
            'select', pg_catalog.has_table_privilege(rel.oid, 'SELECT'),
            'delete', pg_catalog.has_table_privilege(rel.oid, 'DELETE'),
            'columns', coalesce((
                select pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
                    'name', a.attname,
                    'type_oid', a.atttypid::int8,
                    'type_name', pg_catalog.format_type(a.atttypid, a.atttypmod),
                    'type_mod', a.atttypmod,
                    'not_null', a.attnotnull,
                    'is_serial', a.attidentity <> '' or exists (
                        select 1 from pg_catalog.pg_depend dep
                        join pg_catalog.pg_class s on s.oid = dep.objid and s.relkind = 'S'
                        where dep.classid = 'pg_catalog.pg_class'::pg_catalog.regclass
                          and dep.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass
                          and dep.refobjid = rel.oid and dep.refobjsubid = a.attnum
                          and dep.deptype in ('a', 'i')),
                    'is_generated', a.attgenerated <> '',
                    'directive', (
                        select pg_catalog.jsonb_build_object('name', cd ->> 'name', 'description', cd -> 'description')
                        from graphql.comment_directive(pg_catalog.col_description(rel.oid, a.attnum)) cd
                    ),
                    'select', pg_catalog.has_column_privilege(rel.oid, a.attnum, 'SELECT'),
                    'insert', pg_catalog.has_column_privilege(rel.oid, a.attnum, 'INSERT'),
                    'update', pg_catalog.has_column_privilege(rel.oid, a.attnum, 'UPDATE'),
                    'type', pg_catalog.jsonb_build_object(
                        'kind', case
                            when t.typtype = 'e' then 'enum'
                            when t.typcategory = 'A' then 'array'
                            when t.typtype = 'c' then 'composite'
                            else 'other' end,
                        'name', t.typname,
                        'elem', (
                            select pg_catalog.jsonb_build_object(
                                'oid', e.oid::int8,
                                'kind', case
                                    when e.typtype = 'e' then 'enum'
                                    when e.typcategory = 'A' then 'array'
                                    when e.typtype = 'c' then 'composite'
                                    else 'other' end,
                                'name', e.typname,
                                'usable', pg_catalog.has_type_privilege(e.oid, 'USAGE'))
                            from pg_catalog.pg_type e
                            where t.typcategory = 'A' and e.oid = t.typelem
                        )
                    )
                ) order by a.attnum)
                from pg_catalog.pg_attribute a
                join pg_catalog.pg_type t on t.oid = a.atttypid
                where a.attrelid = rel.oid and a.attnum > 0 and not a.attisdropped
            ), '[]'),
            'indexes', coalesce((
                select pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
                    'columns', coalesce((
                        select pg_catalog.array_agg(a.attname order by k.ord)
                        from pg_catalog.unnest(i.indkey) with ordinality k(attnum, ord)
                        join pg_catalog.pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum
                    ), '{}'),
                    'unique', i.indisunique and i.indpred is null,
                    'primary', i.indisprimary
                ) order by i.indexrelid)
                from pg_catalog.pg_index i
                where i.indrelid = rel.oid
            ), '[]')
        ) order by rel.oid)
        from rel
        join pg_catalog.pg_namespace n on n.oid = rel.relnamespace
        join d_table dt on dt.oid = rel.oid
    ), '[]'),
    'foreign_keys', coalesce((
        select pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
            'local', k.conrelid::int8,
            'local_columns', (
                select pg_catalog.array_agg(a.attname order by c.ord)
                from pg_catalog.unnest(k.conkey) with ordinality c(attnum, ord)
                join pg_catalog.pg_attribute a on a.attrelid = k.conrelid and a.attnum = c.attnum
            ),
            'referenced', k.confrelid::int8,
            'referenced_columns', (
                select pg_catalog.array_agg(a.attname order by c.ord)
                from pg_catalog.unnest(k.confkey) with ordinality c(attnum, ord)
                join pg_catalog.pg_attribute a on a.attrelid = k.confrelid and a.attnum = c.attnum
            ),
            'directive', (
                select pg_catalog.jsonb_build_object('local_name', fd ->> 'local_name', 'foreign_name', fd ->> 'foreign_name')
                from graphql.comment_directive(pg_catalog.obj_description(k.oid, 'pg_constraint')) fd
            )
        ) order by k.oid)
        from pg_catalog.pg_constraint k
        where k.contype = 'f'
          and k.conrelid in (select oid from rel)
          and k.confrelid in (select oid from rel)
    ), '[]'),
    'functions', coalesce((
        select pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
            'name', fn.proname,
            'schema_oid', fn.pronamespace::int8,
            'schema', fn.nspname,
            'volatility', fn.provolatile::text,
            'args', coalesce((
                select pg_catalog.jsonb_agg(ft.info order by a.ord)
                from pg_catalog.unnest(fn.proargtypes::oid[]) with ordinality a(oid, ord)
                join fn_type ft on ft.oid = a.oid
            ), '[]'),
            'arg_names', case
                when fn.proargmodes is null then coalesce(fn.proargnames, '{}')
                else coalesce((
                    select pg_catalog.array_agg(coalesce(fn.proargnames[i], '') order by i)
                    from pg_catalog.generate_subscripts(fn.proargmodes, 1) i
                    where fn.proargmodes[i] in ('i', 'b', 'v')
                ), '{}') end,
            'arg_defaults', pg_catalog.pg_get_expr(fn.proargdefaults, 0),
            'num_default_args', fn.pronargdefaults,
            'ret', (select ft.info from fn_type ft where ft.oid = fn.prorettype),
            'is_set_of', fn.proretset and fn.prorows <> 1,
            'directive', (
                select pg_catalog.jsonb_build_object('name', fd ->> 'name', 'description', fd ->> 'description')
                from graphql.comment_directive(pg_catalog.obj_description(fn.oid, 'pg_proc')) fd
            ),
            'executable', pg_catalog.has_function_privilege(fn.oid, 'EXECUTE')
        ) order by fn.oid)
        from fn
    ), '[]'),
    'enums', coalesce((
        select pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
            'oid', t.oid::int8,
            'schema_oid', t.typnamespace::int8,
            'name', t.typname,
            'usable', pg_catalog.has_type_privilege(t.oid, 'USAGE'),
            'directive', (
                select pg_catalog.jsonb_build_object('name', ed ->> 'name', 'mappings', ed -> 'mappings')
                from graphql.comment_directive(pg_catalog.obj_description(t.oid, 'pg_type')) ed
            ),
            'values', coalesce((
                select pg_catalog.jsonb_agg(e.enumlabel order by e.enumsortorder)
                from pg_catalog.pg_enum e where e.enumtypid = t.oid
            ), '[]')
        ) order by t.oid)
        from pg_catalog.pg_type t
        join sp on sp.oid = t.typnamespace
        where t.typtype = 'e'
    ), '[]')
)
"#;

/// Everything reflected, as `CATALOG_SQL` answers it.
#[derive(Debug, Deserialize)]
pub struct Catalog {
    pub schemas: Vec<Schema>,
    pub tables: Vec<Table>,
    pub foreign_keys: Vec<ForeignKey>,
    pub functions: Vec<Function>,
    pub enums: Vec<Enum>,
}

#[derive(Debug, Deserialize)]
pub struct Schema {
    pub oid: u32,
    pub directive: SchemaDirective,
}

/// `comment on schema … is '@graphql({"inflect_names": true, "max_rows": 100})'`.
#[derive(Debug, Deserialize)]
pub struct SchemaDirective {
    pub inflect_names: bool,
    /// Checked to be positive by `Catalog::parse`.
    pub max_rows: i64,
}

#[derive(Debug, Deserialize)]
pub struct Table {
    pub oid: u32,
    pub schema_oid: u32,
    pub schema: String,
    pub name: String,
    pub rls: bool,
    pub reltype: u32,
    pub directive: TableDirective,
    pub select: bool,
    pub delete: bool,
    pub columns: Vec<Column>,
    pub indexes: Vec<Index>,
}

/// A table's (or view's) `@graphql(...)`: its type's name and description, `totalCount`, and
/// for views a primary key and foreign keys of their own.
#[derive(Debug, Deserialize)]
pub struct TableDirective {
    pub name: Option<String>,
    pub description: Option<String>,
    pub total_count: bool,
    pub primary_key_columns: Option<Vec<String>>,
    pub foreign_keys: Option<Vec<DirectiveForeignKey>>,
}

#[derive(Debug, Deserialize)]
pub struct DirectiveForeignKey {
    pub local_name: Option<String>,
    pub local_columns: Vec<String>,
    pub foreign_name: Option<String>,
    pub foreign_schema: String,
    pub foreign_table: String,
    pub foreign_columns: Vec<String>,
}

#[derive(Debug, Deserialize)]
pub struct Column {
    pub name: String,
    pub type_oid: u32,
    /// `format_type` with the modifier (`character(2)`): what values are cast to.
    pub type_name: String,
    pub type_mod: i32,
    pub not_null: bool,
    pub is_serial: bool,
    pub is_generated: bool,
    pub directive: NameDirective,
    pub select: bool,
    pub insert: bool,
    pub update: bool,
    #[serde(rename = "type")]
    pub ty: ColumnType,
}

impl Column {
    /// The length `char(n)` and `varchar(n)` allow.
    pub fn max_characters(&self) -> Option<i32> {
        (self.type_mod != -1 && matches!(self.type_oid, 18 | 1042 | 1043))
            .then(|| self.type_mod - 4)
    }
}

/// A column's (or a foreign key's end's) `name` and `description`.
#[derive(Debug, Deserialize)]
pub struct NameDirective {
    pub name: Option<String>,
    pub description: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct ColumnType {
    pub kind: TypeKind,
    pub name: String,
    pub elem: Option<ElementType>,
}

#[derive(Debug, Deserialize)]
pub struct ElementType {
    pub oid: u32,
    pub kind: TypeKind,
    pub name: String,
    pub usable: bool,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum TypeKind {
    Enum,
    Array,
    Composite,
    /// The row type of a table, view or foreign table (functions' arguments and results only).
    Table,
    /// `void`, `record`, `anyelement`, … (functions' arguments and results only).
    Pseudo,
    Other,
}

/// A function of a schema on the search path: a field of `Query` (immutable or stable) or
/// `Mutation` (volatile), or of a node type when its one argument is a table's row.
#[derive(Debug, Deserialize)]
pub struct Function {
    pub name: String,
    pub schema_oid: u32,
    pub schema: String,
    /// `i`, `s` or `v`.
    pub volatility: String,
    pub args: Vec<FunctionType>,
    /// The names of its (input) arguments, `""` for one without a name.
    pub arg_names: Vec<String>,
    /// The defaults of its last `num_default_args` arguments, as `pg_get_expr` writes them.
    pub arg_defaults: Option<String>,
    pub num_default_args: usize,
    pub ret: FunctionType,
    /// Returns a set (and not `rows 1`).
    pub is_set_of: bool,
    pub directive: FunctionDirective,
    pub executable: bool,
}

#[derive(Debug, Deserialize)]
pub struct FunctionDirective {
    pub name: Option<String>,
    pub description: Option<String>,
}

/// The type of a function's argument or result.
#[derive(Debug, Deserialize)]
pub struct FunctionType {
    pub oid: u32,
    pub name: String,
    /// `format_type`: what an argument's value is cast to.
    pub format: String,
    pub kind: TypeKind,
    /// The table (or composite type) of a row type.
    pub relid: Option<u32>,
    pub elem: Option<ElementType>,
}

#[derive(Debug, Deserialize)]
pub struct Index {
    pub columns: Vec<String>,
    pub unique: bool,
    pub primary: bool,
}

#[derive(Debug, Deserialize)]
pub struct ForeignKey {
    pub local: u32,
    pub local_columns: Vec<String>,
    pub referenced: u32,
    pub referenced_columns: Vec<String>,
    pub directive: ForeignKeyDirective,
}

#[derive(Debug, Deserialize)]
pub struct ForeignKeyDirective {
    pub local_name: Option<String>,
    pub foreign_name: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct Enum {
    pub oid: u32,
    pub schema_oid: u32,
    pub name: String,
    pub usable: bool,
    pub directive: EnumDirective,
    pub values: Vec<String>,
}

/// `comment on type … is '@graphql({"name": "…", "mappings": {"sql-value": "GRAPHQL_VALUE"}})'`.
#[derive(Debug, Deserialize)]
pub struct EnumDirective {
    pub name: Option<String>,
    pub mappings: Option<IndexMap<String, String>>,
}

impl Catalog {
    /// The catalog from `CATALOG_SQL`'s answer; a directive of the wrong shape is named.
    pub fn parse(json: serde_json::Value) -> Result<Catalog, String> {
        let fail = |e: &dyn std::fmt::Display| {
            format!("Error while loading schema, check comment directives. {e}")
        };
        let catalog: Catalog = serde_json::from_value(json).map_err(|e| fail(&e))?;
        // Worded as serde words it for an unsigned integer (which pg_graphql reads it as).
        if let Some(s) = catalog.schemas.iter().find(|s| s.directive.max_rows < 0) {
            let n = s.directive.max_rows;
            return Err(fail(&format!("invalid value: integer `{n}`, expected u64")));
        }
        Ok(catalog)
    }
}
