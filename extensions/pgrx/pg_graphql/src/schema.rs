//! The GraphQL schema reflected from a `Catalog`, as pg_graphql 1.5 names and shapes it: for each
//! table with a primary key (or a view given one by a directive) a node type, its connection and
//! edge, its filter and order types, its insert, update and delete inputs and responses, the
//! `Query` and `Mutation` roots, the scalars, enums and the introspection types. Every type is a
//! `TypeDef` kept by name; what a field or an input value stands for in the database is its
//! `FieldKind` or `InputKind`, which the planner reads.

use crate::catalog::{Catalog, Column, FunctionType, Table, TypeKind};
use std::collections::{HashMap, HashSet};

/// A type as introspection shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Scalar,
    Object,
    Interface,
    Enum,
    InputObject,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Scalar => "SCALAR",
            Kind::Object => "OBJECT",
            Kind::Interface => "INTERFACE",
            Kind::Enum => "ENUM",
            Kind::InputObject => "INPUT_OBJECT",
        }
    }
}

/// A reference to a type, with its list and non-null wrappers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeRef {
    Named(String),
    List(Box<TypeRef>),
    NonNull(Box<TypeRef>),
}

impl TypeRef {
    pub fn named(name: &str) -> TypeRef {
        TypeRef::Named(name.to_string())
    }
    pub fn non_null(self) -> TypeRef {
        TypeRef::NonNull(Box::new(self))
    }
    pub fn list(self) -> TypeRef {
        TypeRef::List(Box::new(self))
    }
    /// The named type under the wrappers.
    pub fn name(&self) -> &str {
        match self {
            TypeRef::Named(n) => n,
            TypeRef::List(t) | TypeRef::NonNull(t) => t.name(),
        }
    }
}

/// The built-in scalars; `String` keeps the length a `char(n)` or `varchar(n)` column allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    ID,
    Int,
    Float,
    String(Option<i32>),
    Boolean,
    Date,
    Time,
    Datetime,
    BigInt,
    Uuid,
    Json,
    Cursor,
    BigFloat,
    Opaque,
}

impl Scalar {
    pub const ALL: [Scalar; 14] = [
        Scalar::ID,
        Scalar::Int,
        Scalar::Float,
        Scalar::String(None),
        Scalar::Boolean,
        Scalar::Date,
        Scalar::Time,
        Scalar::Datetime,
        Scalar::BigInt,
        Scalar::Uuid,
        Scalar::Json,
        Scalar::Cursor,
        Scalar::BigFloat,
        Scalar::Opaque,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Scalar::ID => "ID",
            Scalar::Int => "Int",
            Scalar::Float => "Float",
            Scalar::String(_) => "String",
            Scalar::Boolean => "Boolean",
            Scalar::Date => "Date",
            Scalar::Time => "Time",
            Scalar::Datetime => "Datetime",
            Scalar::BigInt => "BigInt",
            Scalar::Uuid => "UUID",
            Scalar::Json => "JSON",
            Scalar::Cursor => "Cursor",
            Scalar::BigFloat => "BigFloat",
            Scalar::Opaque => "Opaque",
        }
    }

    /// How pg_graphql's messages name it (`String(Some(8))` for a `varchar(8)`).
    pub fn message_name(self) -> String {
        match self {
            Scalar::String(max) => format!("String({max:?})"),
            s => s.name().to_string(),
        }
    }

    fn description(self) -> &'static str {
        match self {
            Scalar::ID => "A globally unique identifier for a given record",
            Scalar::Int => "A scalar integer up to 32 bits",
            Scalar::Float => "A scalar floating point value up to 32 bits",
            Scalar::String(_) => "A string",
            Scalar::Boolean => "A value that is true or false",
            Scalar::BigInt => "An arbitrary size integer represented as a string",
            Scalar::Date => "A date without time information",
            Scalar::Time => "A time without date information",
            Scalar::Datetime => "A date and time",
            Scalar::Uuid => "A universally unique identifier",
            Scalar::Json => "A Javascript Object Notation value serialized as a string",
            Scalar::Cursor => {
                "An opaque string using for tracking a position in results during pagination"
            }
            Scalar::BigFloat => "A high precision floating point value represented as a string",
            Scalar::Opaque => "Any type not handled by the type system",
        }
    }

    /// The scalar a (non-array, non-enum) column type maps to.
    fn of_sql_type(oid: u32, name: &str, max_characters: Option<i32>) -> Scalar {
        match oid {
            20 => Scalar::BigInt,
            16 => Scalar::Boolean,
            1082 => Scalar::Date,
            1184 | 1114 => Scalar::Datetime,
            701 | 700 => Scalar::Float,
            23 | 21 => Scalar::Int,
            3802 | 114 => Scalar::Json,
            1083 => Scalar::Time,
            2950 => Scalar::Uuid,
            1700 => Scalar::BigFloat,
            25 => Scalar::String(None),
            18 | 1042 | 1043 => Scalar::String(max_characters),
            _ if name == "citext" => Scalar::String(None),
            _ => Scalar::Opaque,
        }
    }

    /// The operators its filter type has.
    fn filter_ops(self) -> &'static [FilterOp] {
        use FilterOp::*;
        match self {
            Scalar::ID => &[Eq],
            Scalar::Uuid => &[Eq, Neq, In, Is],
            Scalar::Boolean | Scalar::Opaque => &[Eq, Is],
            Scalar::String(_) => &[
                Eq, Neq, Lt, Lte, Gt, Gte, In, Is, StartsWith, Like, ILike, RegEx, IRegEx,
            ],
            Scalar::Int
            | Scalar::Float
            | Scalar::BigInt
            | Scalar::Date
            | Scalar::Time
            | Scalar::Datetime
            | Scalar::BigFloat => &[Eq, Neq, Lt, Lte, Gt, Gte, In, Is],
            Scalar::Json | Scalar::Cursor => &[],
        }
    }

    /// Scalars whose arrays can be filtered.
    fn list_filterable(self) -> bool {
        matches!(
            self,
            Scalar::Int
                | Scalar::Float
                | Scalar::String(_)
                | Scalar::Boolean
                | Scalar::Uuid
                | Scalar::BigInt
                | Scalar::BigFloat
                | Scalar::Time
                | Scalar::Date
                | Scalar::Datetime
        )
    }
}

/// A filter operator and the SQL it becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FilterOp {
    Eq,
    Neq,
    Lt,
    Lte,
    Gt,
    Gte,
    In,
    Is,
    StartsWith,
    Like,
    ILike,
    RegEx,
    IRegEx,
    Contains,
    ContainedBy,
    Overlaps,
}

impl FilterOp {
    pub fn name(self) -> &'static str {
        match self {
            FilterOp::Eq => "eq",
            FilterOp::Neq => "neq",
            FilterOp::Lt => "lt",
            FilterOp::Lte => "lte",
            FilterOp::Gt => "gt",
            FilterOp::Gte => "gte",
            FilterOp::In => "in",
            FilterOp::Is => "is",
            FilterOp::StartsWith => "startsWith",
            FilterOp::Like => "like",
            FilterOp::ILike => "ilike",
            FilterOp::RegEx => "regex",
            FilterOp::IRegEx => "iregex",
            FilterOp::Contains => "contains",
            FilterOp::ContainedBy => "containedBy",
            FilterOp::Overlaps => "overlaps",
        }
    }

    pub fn parse(name: &str) -> Result<FilterOp, String> {
        use FilterOp::*;
        [
            Eq,
            Neq,
            Lt,
            Lte,
            Gt,
            Gte,
            In,
            Is,
            StartsWith,
            Like,
            ILike,
            RegEx,
            IRegEx,
            Contains,
            ContainedBy,
            Overlaps,
        ]
        .into_iter()
        .find(|op| op.name() == name)
        .ok_or_else(|| "Invalid filter operation".to_string())
    }
}

/// What a type stands for, for the planner and input coercion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Scalar(Scalar),
    /// A reflected enum: its index in the catalog's enums.
    Enum(usize),
    FilterIs,
    OrderByDirection,
    Query,
    Mutation,
    NodeInterface,
    PageInfo,
    Node(usize),
    Edge(usize),
    Connection(usize),
    Filter(usize),
    OrderBy(usize),
    InsertInput(usize),
    UpdateInput(usize),
    InsertResponse(usize),
    UpdateResponse(usize),
    DeleteResponse(usize),
    /// `<Scalar>Filter`, `<Scalar>ListFilter`, `<Enum>Filter`.
    ValueFilter,
    /// `__Schema`, `__Type`, …
    Meta,
}

#[derive(Clone, Debug)]
pub struct TypeDef {
    pub name: String,
    pub kind: Kind,
    pub description: Option<String>,
    pub fields: Option<Vec<Field>>,
    pub input_fields: Option<Vec<InputValue>>,
    pub enum_values: Option<Vec<EnumValue>>,
    pub interfaces: Option<Vec<String>>,
    pub possible_types: Option<Vec<String>>,
    pub role: Role,
}

impl TypeDef {
    fn new(name: impl Into<String>, kind: Kind, role: Role) -> TypeDef {
        TypeDef {
            name: name.into(),
            kind,
            description: None,
            fields: None,
            input_fields: None,
            enum_values: None,
            interfaces: None,
            possible_types: None,
            role,
        }
    }

    /// The field named `name` (the last, when two columns inflect to one name).
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.as_ref()?.iter().rfind(|f| f.name == name)
    }

    /// The input field named `name` (the last, as for fields).
    pub fn input_field(&self, name: &str) -> Option<&InputValue> {
        self.input_fields.as_ref()?.iter().rfind(|f| f.name == name)
    }
}

/// What a field of an object type reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldKind {
    Plain,
    /// A column of the node's table (its index).
    Column(usize),
    NodeId,
    /// A foreign key (its index in `Schema::foreign_keys`), read from the referencing table
    /// (`reverse: false`) or from the referenced one.
    Relation {
        fk: usize,
        reverse: bool,
    },
    Collection(usize),
    NodeEntry,
    TypeEntry,
    SchemaEntry,
    Insert(usize),
    Update(usize),
    Delete(usize),
    /// A function (its index in the catalog's functions): a field of `Query` or `Mutation`, or a
    /// computed field of the node type whose row it takes.
    Function(usize),
}

#[derive(Clone, Debug)]
pub struct Field {
    pub name: String,
    pub description: Option<String>,
    pub args: Vec<InputValue>,
    pub ty: TypeRef,
    pub kind: FieldKind,
}

impl Field {
    fn new(name: impl Into<String>, ty: TypeRef) -> Field {
        Field {
            name: name.into(),
            description: None,
            args: vec![],
            ty,
            kind: FieldKind::Plain,
        }
    }
    fn describe(mut self, d: &str) -> Field {
        self.description = Some(d.to_string());
        self
    }
    fn kind(mut self, k: FieldKind) -> Field {
        self.kind = k;
        self
    }
    fn args(mut self, args: Vec<InputValue>) -> Field {
        self.args = args;
        self
    }
    pub fn arg(&self, name: &str) -> Option<&InputValue> {
        self.args.iter().find(|a| a.name == name)
    }
}

/// What an input value (an argument or an input object's field) stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputKind {
    Plain,
    Column(usize),
    NodeId,
}

#[derive(Clone, Debug)]
pub struct InputValue {
    pub name: String,
    pub description: Option<String>,
    pub ty: TypeRef,
    pub default_value: Option<String>,
    pub kind: InputKind,
}

impl InputValue {
    fn new(name: impl Into<String>, ty: TypeRef) -> InputValue {
        InputValue {
            name: name.into(),
            description: None,
            ty,
            default_value: None,
            kind: InputKind::Plain,
        }
    }
    fn describe(mut self, d: &str) -> InputValue {
        self.description = Some(d.to_string());
        self
    }
    fn kind(mut self, k: InputKind) -> InputValue {
        self.kind = k;
        self
    }
    fn default(mut self, v: &str) -> InputValue {
        self.default_value = Some(v.to_string());
        self
    }
}

#[derive(Clone, Debug)]
pub struct EnumValue {
    pub name: String,
    pub description: Option<String>,
}

impl EnumValue {
    fn new(name: &str, description: Option<&str>) -> EnumValue {
        EnumValue {
            name: name.to_string(),
            description: description.map(str::to_string),
        }
    }
}

/// A relationship between two reflected tables: a foreign key, or one a view's directive
/// declares.
#[derive(Clone, Debug)]
pub struct ForeignKey {
    pub local: usize,
    pub local_columns: Vec<usize>,
    pub referenced: usize,
    pub referenced_columns: Vec<usize>,
    pub local_name: Option<String>,
    pub foreign_name: Option<String>,
}

/// What a function's result is, for the planner: a scalar or list (with its type, for the casts
/// of big numbers and JSON), a record of a table, or a connection of its records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FnReturn {
    Scalar(u32),
    Node(usize),
    Connection(usize),
}

/// A function's argument: its GraphQL name, its SQL name and the type its value is cast to.
#[derive(Clone, Debug)]
pub struct FnArg {
    pub graphql: String,
    pub sql: String,
    pub cast: String,
    pub input: InputValue,
}

#[derive(Clone, Debug)]
pub struct FunctionInfo {
    pub field_name: String,
    pub args: Vec<FnArg>,
    pub ret: Option<(TypeRef, FnReturn)>,
    /// A field of `Query` or `Mutation`.
    pub entry: bool,
    /// The table whose row it takes (a computed field).
    pub computed_for: Option<usize>,
}

/// A default argument value as introspection shows it (`None` inside: a default it does not
/// show, the argument optional all the same).
fn graphql_default(expression: &str, oid: u32) -> Option<String> {
    let e = expression.trim();
    if e.starts_with("NULL::") {
        return None;
    }
    match oid {
        21 | 23 => e.parse::<i32>().ok().map(|i| i.to_string()),
        16 => e.parse::<bool>().ok().map(|b| b.to_string()),
        700 | 701 => e.parse::<f64>().ok().map(|f| f.to_string()),
        25 => e
            .strip_suffix("::text")
            .map(|t| format!("\"{}\"", t.trim_matches(',').trim_matches('\''))),
        _ => None,
    }
}

/// What the schema knows of each table beyond the catalog.
#[derive(Clone, Debug)]
pub struct TableInfo {
    /// The type's name: `Account`.
    pub type_name: String,
    /// Its primary key's columns (indices), real or from a directive.
    pub primary_key: Option<Vec<usize>>,
    pub selectable: bool,
    pub insertable: bool,
    pub updatable: bool,
    pub deletable: bool,
    pub max_rows: u64,
    /// Its columns' GraphQL types (`None`: not reflected) and field names.
    pub column_types: Vec<Option<(TypeRef, Scalar)>>,
    pub column_names: Vec<String>,
}

/// The whole reflected schema.
#[derive(Debug)]
pub struct Schema {
    pub catalog: Catalog,
    /// What the schema makes of each of the catalog's functions.
    pub functions: Vec<FunctionInfo>,
    pub tables: Vec<TableInfo>,
    pub foreign_keys: Vec<ForeignKey>,
    /// Enum type names by catalog index; the GraphQL name of each value by SQL label.
    pub enum_names: Vec<String>,
    pub types: Vec<TypeDef>,
    by_name: HashMap<String, usize>,
    /// Node types of tables that are not reflected (no primary key) but whose rows a computed
    /// field returns: usable in a selection, absent from introspection.
    hidden: Vec<(usize, TypeDef)>,
}

pub fn is_valid_name(name: &str) -> bool {
    name.starts_with(|c: char| c == '_' || c.is_ascii_alphabetic())
        && name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// `account_holder` → `AccountHolder` when inflecting; the name as it is otherwise.
fn base_name(name: &str, inflect: bool) -> String {
    if !inflect {
        return name.to_string();
    }
    let mut out = String::with_capacity(name.len());
    let mut prev_alnum = false;
    for c in name.chars() {
        if prev_alnum {
            out.push(c);
        } else {
            out.extend(c.to_uppercase());
        }
        prev_alnum = c.is_alphanumeric();
    }
    out.replace('_', "")
}

pub fn lowercase_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

impl Schema {
    pub fn get(&self, name: &str) -> Option<&TypeDef> {
        self.by_name.get(name).map(|&i| &self.types[i])
    }

    pub fn query(&self) -> &TypeDef {
        self.get("Query").expect("the schema has a Query type")
    }

    pub fn mutation(&self) -> Option<&TypeDef> {
        self.get("Mutation")
    }

    pub fn table(&self, t: usize) -> &Table {
        &self.catalog.tables[t]
    }

    pub fn column(&self, t: usize, c: usize) -> &Column {
        &self.catalog.tables[t].columns[c]
    }

    fn inflect(&self, schema_oid: u32) -> bool {
        self.catalog
            .schemas
            .iter()
            .find(|s| s.oid == schema_oid)
            .is_some_and(|s| s.directive.inflect_names)
    }

    /// The schema of `catalog`, for its role.
    pub fn build(catalog: Catalog) -> Schema {
        let mut schema = Schema {
            catalog,
            functions: vec![],
            tables: vec![],
            foreign_keys: vec![],
            enum_names: vec![],
            types: vec![],
            by_name: HashMap::new(),
            hidden: vec![],
        };
        schema.enum_names = schema
            .catalog
            .enums
            .iter()
            .map(|e| {
                e.directive
                    .name
                    .clone()
                    .unwrap_or_else(|| base_name(&e.name, schema.inflect(e.schema_oid)))
            })
            .collect();
        schema.tables = (0..schema.catalog.tables.len())
            .map(|t| schema.table_info(t))
            .collect();
        schema.foreign_keys = schema.foreign_keys_of_catalog();
        schema.functions = (0..schema.catalog.functions.len())
            .map(|f| schema.function_info(f))
            .collect();
        let types = schema.make_types();
        for t in types {
            schema
                .by_name
                .entry(t.name.clone())
                .or_insert(schema.types.len());
            schema.types.push(t);
        }
        let mut hidden: Vec<usize> = schema
            .functions
            .iter()
            .filter(|f| f.computed_for.is_some())
            .filter_map(|f| match f.ret {
                Some((_, FnReturn::Node(t))) if !schema.tables[t].selectable => Some(t),
                _ => None,
            })
            .collect();
        hidden.sort_unstable();
        hidden.dedup();
        for t in hidden {
            let mut node = TypeDef::new(
                schema.tables[t].type_name.clone(),
                Kind::Object,
                Role::Node(t),
            );
            node.fields = Some(schema.node_fields(t));
            schema.hidden.push((t, node));
        }
        schema
    }

    /// The node type of table `t` (reflected, or one a computed field needs).
    pub fn node_type(&self, t: usize) -> Option<&TypeDef> {
        match self.get(&self.tables[t].type_name) {
            Some(def) if def.role == Role::Node(t) => Some(def),
            _ => self
                .hidden
                .iter()
                .find(|(h, _)| *h == t)
                .map(|(_, def)| def),
        }
    }

    fn table_info(&self, t: usize) -> TableInfo {
        let table = &self.catalog.tables[t];
        let inflect = self.inflect(table.schema_oid);
        let type_name = table
            .directive
            .name
            .clone()
            .unwrap_or_else(|| base_name(&table.name, inflect));
        let position = |name: &String| table.columns.iter().position(|c| &c.name == name);
        let primary_key = match table.indexes.iter().find(|i| i.primary) {
            Some(pk) => pk.columns.iter().map(position).collect::<Option<Vec<_>>>(),
            None => table
                .directive
                .primary_key_columns
                .as_ref()
                .and_then(|cols| cols.iter().map(position).collect::<Option<Vec<_>>>()),
        };
        let column_types: Vec<_> = table.columns.iter().map(|c| self.column_type(c)).collect();
        let column_names = table
            .columns
            .iter()
            .map(|c| {
                c.directive.name.clone().unwrap_or_else(|| {
                    let base = base_name(&c.name, inflect);
                    if inflect {
                        lowercase_first(&base)
                    } else {
                        base
                    }
                })
            })
            .collect();
        let selectable = is_valid_name(&type_name)
            && primary_key.is_some()
            && table.columns.iter().any(|c| c.select);
        let max_rows = self
            .catalog
            .schemas
            .iter()
            .find(|s| s.oid == table.schema_oid)
            .map_or(30, |s| s.directive.max_rows.unsigned_abs());
        TableInfo {
            insertable: selectable && table.columns.iter().any(|c| c.insert),
            updatable: selectable && table.columns.iter().any(|c| c.update),
            deletable: selectable && table.delete,
            type_name,
            primary_key,
            selectable,
            max_rows,
            column_types,
            column_names,
        }
    }

    /// A column's GraphQL type (without non-null) and the scalar under it; `None` for the
    /// types pg_graphql leaves out (composites, arrays of them, arrays of types the role cannot
    /// use).
    fn column_type(&self, c: &Column) -> Option<(TypeRef, Scalar)> {
        match c.ty.kind {
            TypeKind::Other | TypeKind::Pseudo => {
                let s = Scalar::of_sql_type(c.type_oid, &c.ty.name, c.max_characters());
                Some((TypeRef::named(s.name()), s))
            }
            TypeKind::Enum => Some(self.enum_type(c.type_oid)),
            TypeKind::Composite | TypeKind::Table => None,
            TypeKind::Array => {
                let elem = c.ty.elem.as_ref()?;
                if !elem.usable {
                    return None;
                }
                let (inner, s) = match elem.kind {
                    TypeKind::Other | TypeKind::Pseudo => {
                        let s = Scalar::of_sql_type(elem.oid, &elem.name, None);
                        (TypeRef::named(s.name()), s)
                    }
                    TypeKind::Enum => self.enum_type(elem.oid),
                    TypeKind::Array | TypeKind::Composite | TypeKind::Table => return None,
                };
                Some((inner.list(), s))
            }
        }
    }

    fn enum_type(&self, oid: u32) -> (TypeRef, Scalar) {
        match self.catalog.enums.iter().position(|e| e.oid == oid) {
            Some(e) => (TypeRef::named(&self.enum_names[e]), Scalar::Opaque),
            None => (TypeRef::named("Opaque"), Scalar::Opaque),
        }
    }

    /// The real foreign keys and those of directives, both of whose ends are reflected with
    /// selectable columns.
    fn foreign_keys_of_catalog(&self) -> Vec<ForeignKey> {
        let tables = &self.catalog.tables;
        let by_oid = |oid: u32| tables.iter().position(|t| t.oid == oid);
        let cols = |t: usize, names: &[String]| -> Option<Vec<usize>> {
            names
                .iter()
                .map(|n| tables[t].columns.iter().position(|c| &c.name == n))
                .collect()
        };
        let mut out = vec![];
        for fk in &self.catalog.foreign_keys {
            let (Some(l), Some(r)) = (by_oid(fk.local), by_oid(fk.referenced)) else {
                continue;
            };
            let (Some(lc), Some(rc)) =
                (cols(l, &fk.local_columns), cols(r, &fk.referenced_columns))
            else {
                continue;
            };
            out.push(ForeignKey {
                local: l,
                local_columns: lc,
                referenced: r,
                referenced_columns: rc,
                local_name: fk.directive.local_name.clone(),
                foreign_name: fk.directive.foreign_name.clone(),
            });
        }
        for (l, table) in tables.iter().enumerate() {
            for dfk in table.directive.foreign_keys.iter().flatten() {
                let Some(r) = tables
                    .iter()
                    .position(|t| t.schema == dfk.foreign_schema && t.name == dfk.foreign_table)
                else {
                    continue;
                };
                let (Some(lc), Some(rc)) =
                    (cols(l, &dfk.local_columns), cols(r, &dfk.foreign_columns))
                else {
                    continue;
                };
                out.push(ForeignKey {
                    local: l,
                    local_columns: lc,
                    referenced: r,
                    referenced_columns: rc,
                    local_name: dfk.local_name.clone(),
                    foreign_name: dfk.foreign_name.clone(),
                });
            }
        }
        out.retain(|fk| {
            fk.local_columns
                .iter()
                .all(|&c| tables[fk.local].columns[c].select)
                && fk
                    .referenced_columns
                    .iter()
                    .all(|&c| tables[fk.referenced].columns[c].select)
        });
        out
    }

    /// Whether the referencing columns of `fk` are unique in their table (a one-to-one).
    pub fn locally_unique(&self, fk: &ForeignKey) -> bool {
        let table = &self.catalog.tables[fk.local];
        let fk_cols: HashSet<&String> = fk
            .local_columns
            .iter()
            .map(|&c| &table.columns[c].name)
            .collect();
        table
            .indexes
            .iter()
            .filter(|i| i.unique)
            .any(|i| i.columns.iter().all(|c| fk_cols.contains(c)))
    }

    /// The name of the field `fk` makes on the referencing table (`reverse: false`) or on the
    /// referenced one.
    fn relation_field_name(&self, fk: &ForeignKey, reverse: bool) -> String {
        let (other, name_override, unique, columns) = if reverse {
            (
                fk.local,
                &fk.local_name,
                self.locally_unique(fk),
                fk.referenced_columns
                    .iter()
                    .map(|&c| &self.catalog.tables[fk.referenced].columns[c].name)
                    .collect::<Vec<_>>(),
            )
        } else {
            (
                fk.referenced,
                &fk.foreign_name,
                true,
                fk.local_columns
                    .iter()
                    .map(|&c| &self.catalog.tables[fk.local].columns[c].name)
                    .collect::<Vec<_>>(),
            )
        };
        if let Some(name) = name_override {
            return name.clone();
        }
        let table = &self.catalog.tables[other];
        let inflect = self.inflect(table.schema_oid);
        let as_field = lowercase_first(&self.tables[other].type_name);
        if !unique {
            return format!("{as_field}Collection");
        }
        match columns.as_slice() {
            [column] => {
                let suffix = if inflect { "_id" } else { "Id" };
                match column.strip_suffix(suffix) {
                    Some(stripped) => lowercase_first(&base_name(stripped, inflect)),
                    None => as_field,
                }
            }
            _ => as_field,
        }
    }

    fn connection_args(&self, t: usize) -> Vec<InputValue> {
        let name = &self.tables[t].type_name;
        vec![
            InputValue::new("first", TypeRef::named("Int"))
                .describe("Query the first `n` records in the collection"),
            InputValue::new("last", TypeRef::named("Int"))
                .describe("Query the last `n` records in the collection"),
            InputValue::new("before", TypeRef::named("Cursor"))
                .describe("Query values in the collection before the provided cursor"),
            InputValue::new("after", TypeRef::named("Cursor"))
                .describe("Query values in the collection after the provided cursor"),
            InputValue::new("offset", TypeRef::named("Int")).describe(
                "Skip n values from the after cursor. Alternative to cursor pagination. Backward pagination not supported.",
            ),
            InputValue::new("filter", TypeRef::named(&format!("{name}Filter")))
                .describe("Filters to apply to the results set when querying from the collection"),
            InputValue::new(
                "orderBy",
                TypeRef::named(&format!("{name}OrderBy")).non_null().list(),
            )
            .describe("Sort order to apply to the collection"),
        ]
    }

    /// Every type of the schema.
    fn make_types(&self) -> Vec<TypeDef> {
        let mut types = meta_types();
        types.push(page_info());
        for s in Scalar::ALL {
            let mut t = TypeDef::new(s.name(), Kind::Scalar, Role::Scalar(s));
            t.description = Some(s.description().to_string());
            types.push(t);
        }
        let mut filter_is = TypeDef::new("FilterIs", Kind::Enum, Role::FilterIs);
        filter_is.enum_values = Some(vec![
            EnumValue::new("NULL", None),
            EnumValue::new("NOT_NULL", None),
        ]);
        types.push(filter_is);
        let mut direction = TypeDef::new("OrderByDirection", Kind::Enum, Role::OrderByDirection);
        direction.description = Some("Defines a per-field sorting order".to_string());
        direction.enum_values = Some(vec![
            EnumValue::new("AscNullsFirst", Some("Ascending order, nulls first")),
            EnumValue::new("AscNullsLast", Some("Ascending order, nulls last")),
            EnumValue::new("DescNullsFirst", Some("Descending order, nulls first")),
            EnumValue::new("DescNullsLast", Some("Descending order, nulls last")),
        ]);
        types.push(direction);
        for s in [
            Scalar::ID,
            Scalar::Int,
            Scalar::Float,
            Scalar::String(None),
            Scalar::Boolean,
            Scalar::Date,
            Scalar::Time,
            Scalar::Datetime,
            Scalar::BigInt,
            Scalar::Uuid,
            Scalar::BigFloat,
            Scalar::Opaque,
        ] {
            types.push(scalar_filter(
                s.name(),
                s.filter_ops(),
                &TypeRef::named(s.name()),
            ));
        }
        for s in [
            Scalar::Int,
            Scalar::Float,
            Scalar::String(None),
            Scalar::Boolean,
            Scalar::Date,
            Scalar::Time,
            Scalar::Datetime,
            Scalar::BigInt,
            Scalar::Uuid,
            Scalar::BigFloat,
        ] {
            types.push(list_filter(&TypeRef::named(s.name())));
        }
        types.push(self.query_type());
        let mut node = TypeDef::new("Node", Kind::Interface, Role::NodeInterface);
        node.fields = Some(vec![
            Field::new("nodeId", TypeRef::named("ID").non_null())
                .describe("Retrieves a record by `ID`"),
        ]);
        let mut possible: Vec<String> = (0..self.tables.len())
            .filter(|&t| self.tables[t].selectable)
            .map(|t| self.tables[t].type_name.clone())
            .collect();
        possible.sort();
        node.possible_types = Some(possible);
        types.push(node);
        let mutation = self.mutation_type();
        if mutation.fields.as_ref().is_some_and(|f| !f.is_empty()) {
            types.push(mutation);
        }
        for t in (0..self.tables.len()).filter(|&t| self.tables[t].selectable) {
            self.table_types(t, &mut types);
        }
        for (e, en) in self.catalog.enums.iter().enumerate() {
            if !en.usable {
                continue;
            }
            let name = &self.enum_names[e];
            let mut t = TypeDef::new(name.clone(), Kind::Enum, Role::Enum(e));
            t.enum_values = Some(
                en.values
                    .iter()
                    .map(|v| EnumValue::new(&self.enum_value_name(e, v), None))
                    .collect(),
            );
            types.push(t);
            let mut f = TypeDef::new(
                format!("{name}Filter"),
                Kind::InputObject,
                Role::ValueFilter,
            );
            f.description = Some(format!(
                "Boolean expression comparing fields on type \"{name}\""
            ));
            let ty = TypeRef::named(name);
            let mut inputs = vec![
                InputValue::new("eq", ty.clone()),
                InputValue::new("in", ty.clone().non_null().list()),
                InputValue::new("is", TypeRef::named("FilterIs")),
                InputValue::new("neq", ty),
            ];
            inputs.sort_by(|a, b| a.name.cmp(&b.name));
            f.input_fields = Some(inputs);
            types.push(f);
        }
        types.sort_by(|a, b| a.name.cmp(&b.name));
        types
    }

    /// The GraphQL name of an enum's SQL value (its mapping, if any).
    pub fn enum_value_name(&self, e: usize, sql: &str) -> String {
        self.catalog.enums[e]
            .directive
            .mappings
            .as_ref()
            .and_then(|m| m.get(sql))
            .cloned()
            .unwrap_or_else(|| sql.to_string())
    }

    /// The SQL value of an enum's GraphQL value.
    pub fn enum_sql_value(&self, e: usize, graphql: &str) -> String {
        self.catalog.enums[e]
            .directive
            .mappings
            .as_ref()
            .and_then(|m| {
                m.iter()
                    .find(|(_, v)| *v == graphql)
                    .map(|(k, _)| k.clone())
            })
            .unwrap_or_else(|| graphql.to_string())
    }

    fn query_type(&self) -> TypeDef {
        let mut q = TypeDef::new("Query", Kind::Object, Role::Query);
        q.description = Some("The root type for querying data".to_string());
        let mut fields = vec![
            Field::new("node", TypeRef::named("Node"))
                .describe("Retrieve a record by its `ID`")
                .kind(FieldKind::NodeEntry)
                .args(vec![
                    InputValue::new("nodeId", TypeRef::named("ID").non_null())
                        .describe("The record's `ID`"),
                ]),
        ];
        for t in (0..self.tables.len()).filter(|&t| self.tables[t].selectable) {
            let name = &self.tables[t].type_name;
            fields.push(
                Field::new(
                    format!("{}Collection", lowercase_first(name)),
                    TypeRef::named(&format!("{name}Connection")),
                )
                .describe(&format!("A pagable collection of type `{name}`"))
                .kind(FieldKind::Collection(t))
                .args(self.connection_args(t)),
            );
        }
        let taken: HashSet<String> = fields.iter().map(|f| f.name.clone()).collect();
        fields.extend(
            self.entry_functions(false)
                .into_iter()
                .filter(|f| !taken.contains(&f.name)),
        );
        fields.push(
            Field::new("__type", TypeRef::named("__Type"))
                .kind(FieldKind::TypeEntry)
                .args(vec![InputValue::new("name", TypeRef::named("String"))]),
        );
        fields.push(
            Field::new("__schema", TypeRef::named("__Schema").non_null())
                .kind(FieldKind::SchemaEntry),
        );
        fields.sort_by(|a, b| a.name.cmp(&b.name));
        q.fields = Some(fields);
        q
    }

    fn mutation_type(&self) -> TypeDef {
        let mut m = TypeDef::new("Mutation", Kind::Object, Role::Mutation);
        m.description = Some("The root type for creating and mutating data".to_string());
        let mut fields = vec![];
        for (t, info) in self.tables.iter().enumerate() {
            let name = &info.type_name;
            let filter = || {
                InputValue::new("filter", TypeRef::named(&format!("{name}Filter")))
                    .describe("Restricts the mutation's impact to records matching the criteria")
            };
            let at_most = || {
                InputValue::new("atMost", TypeRef::named("Int").non_null())
                    .describe(
                        "The maximum number of records in the collection permitted to be affected",
                    )
                    .default("1")
            };
            if info.insertable {
                fields.push(
                    Field::new(
                        format!("insertInto{name}Collection"),
                        TypeRef::named(&format!("{name}InsertResponse")),
                    )
                    .describe(&format!(
                        "Adds one or more `{name}` records to the collection"
                    ))
                    .kind(FieldKind::Insert(t))
                    .args(vec![InputValue::new(
                        "objects",
                        TypeRef::named(&format!("{name}InsertInput"))
                            .non_null()
                            .list()
                            .non_null(),
                    )]),
                );
            }
            if info.updatable {
                fields.push(
                    Field::new(
                        format!("update{name}Collection"),
                        TypeRef::named(&format!("{name}UpdateResponse")).non_null(),
                    )
                    .describe(&format!(
                        "Updates zero or more records in the `{name}` collection"
                    ))
                    .kind(FieldKind::Update(t))
                    .args(vec![
                        InputValue::new(
                            "set",
                            TypeRef::named(&format!("{name}UpdateInput")).non_null(),
                        )
                        .describe(
                            "Fields that are set will be updated for all records matching the `filter`",
                        ),
                        filter(),
                        at_most(),
                    ]),
                );
            }
            if info.deletable {
                fields.push(
                    Field::new(
                        format!("deleteFrom{name}Collection"),
                        TypeRef::named(&format!("{name}DeleteResponse")).non_null(),
                    )
                    .describe(&format!(
                        "Deletes zero or more records from the `{name}` collection"
                    ))
                    .kind(FieldKind::Delete(t))
                    .args(vec![filter(), at_most()]),
                );
            }
        }
        let taken: HashSet<String> = fields.iter().map(|f| f.name.clone()).collect();
        fields.extend(
            self.entry_functions(true)
                .into_iter()
                .filter(|f| !taken.contains(&f.name)),
        );
        fields.sort_by(|a, b| a.name.cmp(&b.name));
        m.fields = Some(fields);
        m
    }

    /// A node type, its edge and connection, filter and order types, and the mutation types the
    /// role's privileges allow.
    fn table_types(&self, t: usize, types: &mut Vec<TypeDef>) {
        let info = &self.tables[t];
        let table = &self.catalog.tables[t];
        let name = info.type_name.clone();

        let mut node = TypeDef::new(name.clone(), Kind::Object, Role::Node(t));
        node.description = table.directive.description.clone();
        node.interfaces = Some(vec!["Node".to_string()]);
        node.fields = Some(self.node_fields(t));
        types.push(node);

        let mut edge = TypeDef::new(format!("{name}Edge"), Kind::Object, Role::Edge(t));
        edge.fields = Some(vec![
            Field::new("cursor", TypeRef::named("String").non_null()),
            Field::new("node", TypeRef::named(&name).non_null()),
        ]);
        types.push(edge);

        let mut conn = TypeDef::new(
            format!("{name}Connection"),
            Kind::Object,
            Role::Connection(t),
        );
        let mut conn_fields = vec![
            Field::new(
                "edges",
                TypeRef::named(&format!("{name}Edge"))
                    .non_null()
                    .list()
                    .non_null(),
            ),
            Field::new("pageInfo", TypeRef::named("PageInfo").non_null()),
        ];
        if table.directive.total_count {
            conn_fields.push(
                Field::new("totalCount", TypeRef::named("Int").non_null())
                    .describe("The total number of records matching the `filter` criteria"),
            );
        }
        conn.fields = Some(conn_fields);
        types.push(conn);

        types.push(self.filter_type(t));

        let mut order = TypeDef::new(
            format!("{name}OrderBy"),
            Kind::InputObject,
            Role::OrderBy(t),
        );
        order.input_fields = Some(
            table
                .columns
                .iter()
                .enumerate()
                .filter(|(_, c)| {
                    c.select
                        && c.ty.kind != TypeKind::Array
                        && c.ty.kind != TypeKind::Composite
                        && !matches!(c.type_name.as_str(), "json" | "jsonb")
                })
                .map(|(c, _)| {
                    InputValue::new(
                        info.column_names[c].clone(),
                        TypeRef::named("OrderByDirection"),
                    )
                    .kind(InputKind::Column(c))
                })
                .filter(|iv| is_valid_name(&iv.name))
                .collect(),
        );
        types.push(order);

        let records = || {
            vec![
                Field::new("affectedCount", TypeRef::named("Int").non_null())
                    .describe("Count of the records impacted by the mutation"),
                Field::new(
                    "records",
                    TypeRef::named(&name).non_null().list().non_null(),
                )
                .describe("Array of records impacted by the mutation"),
            ]
        };
        let mutable_inputs = |allowed: fn(&Column) -> bool| -> Vec<InputValue> {
            table
                .columns
                .iter()
                .enumerate()
                .filter(|(_, c)| allowed(c) && !c.is_generated && !c.is_serial)
                .filter_map(|(c, _)| {
                    let (ty, _) = info.column_types[c].clone()?;
                    Some(
                        InputValue::new(info.column_names[c].clone(), ty)
                            .kind(InputKind::Column(c)),
                    )
                })
                .collect()
        };
        if info.insertable {
            let mut input = TypeDef::new(
                format!("{name}InsertInput"),
                Kind::InputObject,
                Role::InsertInput(t),
            );
            input.input_fields = Some(mutable_inputs(|c| c.insert));
            types.push(input);
            let mut resp = TypeDef::new(
                format!("{name}InsertResponse"),
                Kind::Object,
                Role::InsertResponse(t),
            );
            resp.fields = Some(records());
            types.push(resp);
        }
        if info.updatable {
            let mut input = TypeDef::new(
                format!("{name}UpdateInput"),
                Kind::InputObject,
                Role::UpdateInput(t),
            );
            input.input_fields = Some(mutable_inputs(|c| c.update));
            types.push(input);
            let mut resp = TypeDef::new(
                format!("{name}UpdateResponse"),
                Kind::Object,
                Role::UpdateResponse(t),
            );
            resp.fields = Some(records());
            types.push(resp);
        }
        if info.deletable {
            let mut resp = TypeDef::new(
                format!("{name}DeleteResponse"),
                Kind::Object,
                Role::DeleteResponse(t),
            );
            resp.fields = Some(records());
            types.push(resp);
        }
    }

    fn node_fields(&self, t: usize) -> Vec<Field> {
        let info = &self.tables[t];
        let table = &self.catalog.tables[t];
        let mut fields = vec![];
        if info.primary_key.is_some() {
            fields.push(
                Field::new("nodeId", TypeRef::named("ID").non_null())
                    .describe("Globally Unique Record Identifier")
                    .kind(FieldKind::NodeId),
            );
        }
        for (c, col) in table.columns.iter().enumerate() {
            if !col.select {
                continue;
            }
            let Some((ty, _)) = info.column_types[c].clone() else {
                continue;
            };
            let name = &info.column_names[c];
            if !is_valid_name(name) {
                continue;
            }
            let mut f = Field::new(name.clone(), if col.not_null { ty.non_null() } else { ty })
                .kind(FieldKind::Column(c));
            f.description = col.directive.description.clone();
            fields.push(f);
        }
        for (i, fk) in self.foreign_keys.iter().enumerate() {
            if fk.local != t || !self.tables[fk.referenced].selectable {
                continue;
            }
            let ty = TypeRef::named(&self.tables[fk.referenced].type_name);
            let required = fk.local_columns.iter().any(|&c| table.columns[c].not_null)
                && !self.catalog.tables[fk.referenced].rls;
            fields.push(
                Field::new(
                    self.relation_field_name(fk, false),
                    if required { ty.non_null() } else { ty },
                )
                .kind(FieldKind::Relation {
                    fk: i,
                    reverse: false,
                }),
            );
        }
        for (i, fk) in self.foreign_keys.iter().enumerate() {
            if fk.referenced != t || !self.tables[fk.local].selectable {
                continue;
            }
            let other = &self.tables[fk.local].type_name;
            let name = self.relation_field_name(fk, true);
            let kind = FieldKind::Relation {
                fk: i,
                reverse: true,
            };
            fields.push(if self.locally_unique(fk) {
                Field::new(name, TypeRef::named(other)).kind(kind)
            } else {
                Field::new(name, TypeRef::named(&format!("{other}Connection")))
                    .kind(kind)
                    .args(self.connection_args(fk.local))
            });
        }
        // Computed fields: functions taking the table's row, when the role may read the whole row.
        if table.select {
            for (i, info) in self.functions.iter().enumerate() {
                let Some((ty, ret)) = &info.ret else { continue };
                if info.computed_for != Some(t) || !is_valid_name(&info.field_name) {
                    continue;
                }
                let mut f =
                    Field::new(info.field_name.clone(), ty.clone()).kind(FieldKind::Function(i));
                f.description = self.catalog.functions[i].directive.description.clone();
                if let FnReturn::Connection(other) = ret {
                    f.args = self.connection_args(*other);
                }
                fields.push(f);
            }
        }
        fields
    }

    /// The functions that are fields of `Query` (`mutation: false`: immutable and stable ones) or
    /// of `Mutation` (volatile ones).
    fn entry_functions(&self, mutation: bool) -> Vec<Field> {
        let mut out = vec![];
        for (i, info) in self.functions.iter().enumerate() {
            let function = &self.catalog.functions[i];
            if !info.entry || (function.volatility == "v") != mutation {
                continue;
            }
            let Some((ty, ret)) = &info.ret else { continue };
            let mut args: Vec<InputValue> = info.args.iter().map(|a| a.input.clone()).collect();
            if let FnReturn::Connection(t) = ret {
                let connection = self.connection_args(*t);
                if args
                    .iter()
                    .any(|a| connection.iter().any(|c| c.name == a.name))
                {
                    continue;
                }
                args.extend(connection);
            }
            let mut f = Field::new(info.field_name.clone(), ty.clone())
                .kind(FieldKind::Function(i))
                .args(args);
            f.description = function.directive.description.clone();
            if is_valid_name(&f.name) {
                out.push(f);
            }
        }
        out
    }

    /// The field a function makes (its name, arguments and result), where it may be one.
    fn function_info(&self, i: usize) -> FunctionInfo {
        let f = &self.catalog.functions[i];
        let inflect = self.inflect(f.schema_oid);
        let field_name = f.directive.name.clone().unwrap_or_else(|| {
            lowercase_first(&base_name(
                f.name.strip_prefix('_').unwrap_or(&f.name),
                inflect,
            ))
        });
        let computed_for = match f.args.as_slice() {
            [arg] if f.executable => self
                .catalog
                .tables
                .iter()
                .position(|t| t.reltype == arg.oid),
            _ => None,
        };
        let ret = self.function_return(&f.ret, f.is_set_of, computed_for.is_some());
        // Default values as pg_graphql reads them: the expressions pg_get_expr lists, split at
        // commas, for the last arguments (none when that does not come out even).
        let n = f.args.len();
        let mut defaults: Vec<Option<Option<String>>> = vec![None; n];
        if let Some(list) = &f.arg_defaults
            && f.num_default_args > 0
            && f.num_default_args <= n
        {
            let parts: Vec<&str> = list.split(',').collect();
            if parts.len() == f.num_default_args {
                for (k, part) in parts.iter().enumerate() {
                    let a = n - f.num_default_args + k;
                    defaults[a] = Some(graphql_default(part, f.args[a].oid));
                }
            }
        }
        let supported_arg = |t: &FunctionType| match t.kind {
            TypeKind::Other | TypeKind::Pseudo => true,
            TypeKind::Array => t.elem.as_ref().is_some_and(|e| e.kind == TypeKind::Other),
            _ => false,
        };
        let named = f.arg_names.len() >= n && f.arg_names[..n].iter().all(|a| !a.is_empty());
        let overloaded = self
            .catalog
            .functions
            .iter()
            .filter(|g| g.name == f.name)
            .count()
            > 1;
        let ret_supported = f.ret.kind != TypeKind::Enum
            && !matches!(f.ret.name.as_str(), "record" | "trigger" | "event_trigger")
            && (f.ret.kind != TypeKind::Array
                || f.ret
                    .elem
                    .as_ref()
                    .is_some_and(|e| e.kind == TypeKind::Other));
        let entry = ret.is_some()
            && ret_supported
            && f.args.iter().all(supported_arg)
            && !overloaded
            && named
            && f.executable
            && !matches!(
                f.schema.as_str(),
                "graphql" | "graphql_public" | "auth" | "extensions"
            );
        let args = if named {
            f.args
                .iter()
                .enumerate()
                .filter_map(|(a, t)| {
                    let (ty, _) = self.function_return(t, false, false)?;
                    let sql = f.arg_names[a].clone();
                    let graphql = lowercase_first(&base_name(&sql, inflect));
                    let mut input = InputValue::new(
                        graphql.clone(),
                        if defaults[a].is_some() {
                            ty
                        } else {
                            ty.non_null()
                        },
                    );
                    input.default_value = defaults[a].clone().flatten();
                    // A char(n) argument is given as text (char alone is char(1)).
                    let cast = if t.format == "character" {
                        "text".to_string()
                    } else {
                        t.format.clone()
                    };
                    Some(FnArg {
                        graphql,
                        sql,
                        cast,
                        input,
                    })
                })
                .collect()
        } else {
            vec![]
        };
        FunctionInfo {
            field_name,
            args,
            ret,
            entry,
            computed_for: computed_for.filter(|_| f.args.len() == 1),
        }
    }

    /// The GraphQL type of a function's argument or result (`set_of`: a connection of a table's
    /// rows), and what the planner makes of it.
    /// `any_table`: a row of a table that is not reflected itself (no primary key) will do, as it
    /// does for pg_graphql's computed fields.
    fn function_return(
        &self,
        t: &FunctionType,
        set_of: bool,
        any_table: bool,
    ) -> Option<(TypeRef, FnReturn)> {
        if set_of && t.kind != TypeKind::Table {
            return None;
        }
        match t.kind {
            TypeKind::Table => {
                let table = self
                    .catalog
                    .tables
                    .iter()
                    .position(|x| Some(x.oid) == t.relid)?;
                let info = &self.tables[table];
                if !info.selectable && (!any_table || set_of) {
                    return None;
                }
                Some(if set_of {
                    (
                        TypeRef::named(&format!("{}Connection", info.type_name)),
                        FnReturn::Connection(table),
                    )
                } else {
                    (TypeRef::named(&info.type_name), FnReturn::Node(table))
                })
            }
            TypeKind::Other | TypeKind::Pseudo => {
                let s = Scalar::of_sql_type(t.oid, &t.name, None);
                Some((TypeRef::named(s.name()), FnReturn::Scalar(t.oid)))
            }
            TypeKind::Enum => Some((self.enum_type(t.oid).0, FnReturn::Scalar(t.oid))),
            TypeKind::Array => {
                let e = t.elem.as_ref()?;
                if !e.usable {
                    return None;
                }
                let inner = match e.kind {
                    TypeKind::Other | TypeKind::Pseudo => {
                        TypeRef::named(Scalar::of_sql_type(e.oid, &e.name, None).name())
                    }
                    TypeKind::Enum => self.enum_type(e.oid).0,
                    _ => return None,
                };
                Some((inner.list(), FnReturn::Scalar(t.oid)))
            }
            TypeKind::Composite => None,
        }
    }

    fn filter_type(&self, t: usize) -> TypeDef {
        let info = &self.tables[t];
        let table = &self.catalog.tables[t];
        let name = &info.type_name;
        let mut inputs = vec![];
        for (c, col) in table.columns.iter().enumerate() {
            if !col.select || matches!(col.type_name.as_str(), "json" | "jsonb") {
                continue;
            }
            let Some((ty, scalar)) = &info.column_types[c] else {
                continue;
            };
            let filter = match ty {
                TypeRef::Named(n) => format!("{n}Filter"),
                TypeRef::List(inner)
                    if scalar.list_filterable() && self.get_scalar(inner.name()) =>
                {
                    format!("{}ListFilter", inner.name())
                }
                _ => continue,
            };
            let column_name = &info.column_names[c];
            if !is_valid_name(column_name) {
                continue;
            }
            inputs.push(
                InputValue::new(column_name.clone(), TypeRef::named(&filter))
                    .kind(InputKind::Column(c)),
            );
        }
        let taken = |n: &str| inputs.iter().any(|iv| iv.name == n);
        let (and_taken, or_taken, not_taken) = (taken("and"), taken("or"), taken("not"));
        inputs.push(InputValue::new("nodeId", TypeRef::named("IDFilter")).kind(InputKind::NodeId));
        let own = TypeRef::named(&format!("{name}Filter"));
        if !and_taken {
            inputs.push(
                InputValue::new("and", own.clone().non_null().list()).describe(
                    "Returns true only if all its inner filters are true, otherwise returns false",
                ),
            );
        }
        if !or_taken {
            inputs.push(InputValue::new("or", own.clone().non_null().list()).describe(
                "Returns true if at least one of its inner filters is true, otherwise returns false",
            ));
        }
        if !not_taken {
            inputs.push(InputValue::new("not", own).describe("Negates a filter"));
        }
        let mut f = TypeDef::new(format!("{name}Filter"), Kind::InputObject, Role::Filter(t));
        f.input_fields = Some(inputs);
        f
    }

    /// Whether `name` is a built-in scalar (an array of an enum is not list-filterable).
    fn get_scalar(&self, name: &str) -> bool {
        Scalar::ALL.iter().any(|s| s.name() == name)
    }
}

fn scalar_filter(name: &str, ops: &[FilterOp], ty: &TypeRef) -> TypeDef {
    let mut f = TypeDef::new(
        format!("{name}Filter"),
        Kind::InputObject,
        Role::ValueFilter,
    );
    f.description = Some(format!(
        "Boolean expression comparing fields on type \"{name}\""
    ));
    let mut inputs: Vec<InputValue> = ops
        .iter()
        .map(|op| match op {
            FilterOp::In => InputValue::new("in", ty.clone().non_null().list()),
            FilterOp::Is => InputValue::new("is", TypeRef::named("FilterIs")),
            op => InputValue::new(op.name(), ty.clone()),
        })
        .collect();
    inputs.sort_by(|a, b| a.name.cmp(&b.name));
    f.input_fields = Some(inputs);
    f
}

fn list_filter(elem: &TypeRef) -> TypeDef {
    let name = format!("{}List", elem.name());
    let mut f = TypeDef::new(
        format!("{name}Filter"),
        Kind::InputObject,
        Role::ValueFilter,
    );
    f.description = Some(format!(
        "Boolean expression comparing fields on type \"{name}\""
    ));
    let list = elem.clone().non_null().list();
    let mut inputs = vec![
        InputValue::new("contains", list.clone()),
        InputValue::new("containedBy", list.clone()),
        InputValue::new("eq", list.clone()),
        InputValue::new("overlaps", list),
        InputValue::new("is", TypeRef::named("FilterIs")),
    ];
    inputs.sort_by(|a, b| a.name.cmp(&b.name));
    f.input_fields = Some(inputs);
    f
}

fn page_info() -> TypeDef {
    let mut p = TypeDef::new("PageInfo", Kind::Object, Role::PageInfo);
    p.fields = Some(vec![
        Field::new("endCursor", TypeRef::named("String")),
        Field::new("hasNextPage", TypeRef::named("Boolean").non_null()),
        Field::new("hasPreviousPage", TypeRef::named("Boolean").non_null()),
        Field::new("startCursor", TypeRef::named("String")),
    ]);
    p
}

/// The introspection types (`__Schema`, `__Type`, …), with the descriptions pg_graphql gives them.
fn meta_types() -> Vec<TypeDef> {
    let string = || TypeRef::named("String");
    let boolean_nn = || TypeRef::named("Boolean").non_null();
    let include_deprecated =
        || vec![InputValue::new("includeDeprecated", TypeRef::named("Boolean")).default("false")];
    let sorted = |mut fields: Vec<Field>| {
        fields.sort_by(|a, b| a.name.cmp(&b.name));
        Some(fields)
    };
    let mut out = vec![];

    let mut kind = TypeDef::new("__TypeKind", Kind::Enum, Role::Meta);
    kind.description =
        Some("An enum describing what kind of type a given `__Type` is.".to_string());
    kind.enum_values = Some(
        [
            "SCALAR",
            "OBJECT",
            "INTERFACE",
            "UNION",
            "ENUM",
            "INPUT_OBJECT",
            "LIST",
            "NON_NULL",
        ]
        .iter()
        .map(|v| EnumValue::new(v, None))
        .collect(),
    );
    out.push(kind);

    let mut loc = TypeDef::new("__DirectiveLocation", Kind::Enum, Role::Meta);
    loc.description = Some("A Directive can be adjacent to many parts of the GraphQL language, a __DirectiveLocation describes one such possible adjacencies.".to_string());
    loc.enum_values = Some(
        [
            ("QUERY", "a query operation"),
            ("MUTATION", "a mutation operation"),
            ("SUBSCRIPTION", "a subscription operation"),
            ("FIELD", "a field"),
            ("FRAGMENT_DEFINITION", "a fragment definition"),
            ("FRAGMENT_SPREAD", "a fragment spread"),
            ("INLINE_FRAGMENT", "an inline fragment"),
            ("VARIABLE_DEFINITION", "a variable definition"),
            ("SCHEMA", "a schema definition"),
            ("SCALAR", "a scalar definition"),
            ("OBJECT", "an object type definition"),
            ("FIELD_DEFINITION", "a field definition"),
            ("ARGUMENT_DEFINITION", "an argument definition"),
            ("INTERFACE", "an interface definition"),
            ("UNION", "a union definition"),
            ("ENUM", "an enum definition"),
            ("ENUM_VALUE", "an enum value definition"),
            ("INPUT_OBJECT", "an input object type definition"),
            ("INPUT_FIELD_DEFINITION", "an input object field definition"),
        ]
        .iter()
        .map(|(v, d)| EnumValue {
            name: v.to_string(),
            description: Some(format!("Location adjacent to {d}.")),
        })
        .collect(),
    );
    out.push(loc);

    let mut schema = TypeDef::new("__Schema", Kind::Object, Role::Meta);
    schema.description = Some("A GraphQL Schema defines the capabilities of a GraphQL server. It exposes all available types and directives on the server, as well as the entry points for query, mutation, and subscription operations.".to_string());
    schema.fields = sorted(vec![
        Field::new("types", TypeRef::named("__Type").non_null().list().non_null())
            .describe("A list of all types supported by this server."),
        Field::new("queryType", TypeRef::named("__Type").non_null())
            .describe("The type that query operations will be rooted at."),
        Field::new("mutationType", TypeRef::named("__Type")).describe(
            "If this server supports mutation, the type that mutation operations will be rooted at.",
        ),
        Field::new("subscriptionType", TypeRef::named("__Type")).describe(
            "If this server support subscription, the type that subscription operations will be rooted at.",
        ),
        Field::new("directives", TypeRef::named("__Directive").non_null().list().non_null())
            .args(include_deprecated())
            .describe("A list of all directives supported by this server."),
        Field::new("description", string()),
    ]);
    out.push(schema);

    let mut iv = TypeDef::new("__InputValue", Kind::Object, Role::Meta);
    iv.description = Some("Arguments provided to Fields or Directives and the input fields of an InputObject are represented as Input Values which describe their type and optionally a default value.".to_string());
    iv.fields = sorted(vec![
        Field::new("name", string().non_null()),
        Field::new("description", string()),
        Field::new("type", TypeRef::named("__Type").non_null()),
        Field::new("defaultValue", string()).describe(
            "A GraphQL-formatted string representing the default value for this input value.",
        ),
        Field::new("isDeprecated", boolean_nn()),
        Field::new("deprecationReason", string()),
    ]);
    out.push(iv);

    let mut ty = TypeDef::new("__Type", Kind::Object, Role::Meta);
    ty.description = Some("The fundamental unit of any GraphQL Schema is the type. There are many kinds of types in GraphQL as represented by the `__TypeKind` enum.\\n\\nDepending on the kind of a type, certain fields describe information about that type. Scalar types provide no information beyond a name, description and optional `specifiedByURL`, while Enum types provide their values. Object and Interface types provide the fields they describe. Abstract types, Union and Interface, provide the Object types possible at runtime. List and NonNull types compose other types ".to_string());
    let list_of = |n: &str| TypeRef::named(n).non_null().list();
    ty.fields = sorted(vec![
        Field::new("name", string()),
        Field::new("description", string()),
        Field::new("kind", TypeRef::named("__TypeKind").non_null()),
        Field::new("inputFields", list_of("__InputValue")).args(include_deprecated()),
        Field::new("interfaces", list_of("__Type")),
        Field::new("possibleTypes", list_of("__Type")),
        Field::new("enumValues", list_of("__EnumValue")).args(include_deprecated()),
        Field::new("fields", list_of("__Field")).args(include_deprecated()),
        Field::new("ofType", TypeRef::named("__Type")),
        Field::new("specifiedByURL", string()),
    ]);
    out.push(ty);

    let mut field = TypeDef::new("__Field", Kind::Object, Role::Meta);
    field.description = Some("Object and Interface types are described by a list of Fields, each of which has a name, potentially a list of arguments, and a return type.".to_string());
    field.fields = sorted(vec![
        Field::new("name", string().non_null()),
        Field::new("description", string()),
        Field::new(
            "args",
            TypeRef::named("__InputValue").non_null().list().non_null(),
        )
        .args(include_deprecated()),
        Field::new("type", TypeRef::named("__Type").non_null()),
        Field::new("isDeprecated", boolean_nn()),
        Field::new("deprecationReason", string()),
    ]);
    out.push(field);

    let mut ev = TypeDef::new("__EnumValue", Kind::Object, Role::Meta);
    ev.description = Some("One possible value for a given Enum. Enum values are unique values, not a placeholder for a string or numeric value. However an Enum value is returned in a JSON response as a string.".to_string());
    ev.fields = sorted(vec![
        Field::new("name", string().non_null()),
        Field::new("description", string()),
        Field::new("isDeprecated", boolean_nn()),
        Field::new("deprecationReason", string()),
    ]);
    out.push(ev);

    let mut dir = TypeDef::new("__Directive", Kind::Object, Role::Meta);
    dir.description = Some("A Directive provides a way to describe alternate runtime execution and type validation behavior in a GraphQL document.\\n\\nIn some cases, you need to provide options to alter GraphQL execution behavior in ways field arguments will not suffice, such as conditionally including or skipping a field. Directives provide this by describing additional information to the executor.".to_string());
    dir.fields = sorted(vec![
        Field::new("name", string().non_null()),
        Field::new("description", string()),
        Field::new("isRepeatable", boolean_nn()),
        Field::new(
            "locations",
            TypeRef::named("__DirectiveLocation")
                .non_null()
                .list()
                .non_null(),
        ),
        Field::new(
            "args",
            TypeRef::named("__InputValue").non_null().list().non_null(),
        )
        .args(include_deprecated()),
    ]);
    out.push(dir);
    out
}

/// `@include` and `@skip`, the directives the schema lists.
pub struct Directive {
    pub name: &'static str,
    pub description: &'static str,
    pub arg_description: &'static str,
}

pub const DIRECTIVES: [Directive; 2] = [
    Directive {
        name: "include",
        description: "This field or fragment will be included only when the `if` argument is true.",
        arg_description: "Included when true",
    },
    Directive {
        name: "skip",
        description: "This field or fragment will be skipped when the `if` argument is true.",
        arg_description: "Skipped when true",
    },
];
