//! The catalog of one database as the differ sees it: every object by name (never by oid, so
//! that two databases compare), with the SQL PostgreSQL itself prints for it (`pg_get_*def`,
//! `format_type`, `pg_get_expr`, read with an empty search_path so every name is qualified),
//! its owner, privileges and comment, and the dependencies between objects.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// A schema-qualified name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct QName {
    pub schema: String,
    pub name: String,
}

impl QName {
    pub fn new(schema: &str, name: &str) -> QName {
        QName {
            schema: schema.into(),
            name: name.into(),
        }
    }
}

impl fmt::Display for QName {
    /// `"schema"."name"`, quoted as SQL.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", ident(&self.schema), ident(&self.name))
    }
}

/// An identifier, always double-quoted (so no keyword or case can change its meaning).
pub fn ident(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

/// A string literal.
pub fn literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// A function or procedure: its name and the types of its input arguments (as
/// `pg_get_function_identity_arguments` prints them), which together name it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FnKey {
    pub schema: String,
    pub name: String,
    pub args: String,
}

impl fmt::Display for FnKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}.{}({})",
            ident(&self.schema),
            ident(&self.name),
            self.args
        )
    }
}

/// One privilege one role holds on an object (`PUBLIC` for everyone).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Grant {
    pub grantee: String,
    pub privilege: String,
    pub grantable: bool,
}

/// Every privilege held on an object, as PostgreSQL resolves it (a NULL ACL read as the
/// object kind's built-in default for its owner).
pub type Acl = BTreeSet<Grant>;

/// Kinds of objects privileges and default privileges are kept for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AclKind {
    /// Tables, views, materialized views.
    Table,
    Sequence,
    /// Functions and procedures.
    Function,
    /// Types and domains.
    Type,
    Schema,
}

impl AclKind {
    /// The letter `acldefault` and `pg_default_acl.defaclobjtype` use.
    pub fn letter(self) -> char {
        match self {
            AclKind::Table => 'r',
            AclKind::Sequence => 's',
            AclKind::Function => 'f',
            AclKind::Type => 'T',
            AclKind::Schema => 'n',
        }
    }

    pub fn from_default_acl_letter(c: char) -> Option<AclKind> {
        Some(match c {
            'r' => AclKind::Table,
            'S' => AclKind::Sequence,
            'f' => AclKind::Function,
            'T' => AclKind::Type,
            'n' => AclKind::Schema,
            _ => return None,
        })
    }

    /// The plural `ALTER DEFAULT PRIVILEGES … ON <kind>` takes.
    pub fn plural(self) -> &'static str {
        match self {
            AclKind::Table => "TABLES",
            AclKind::Sequence => "SEQUENCES",
            AclKind::Function => "FUNCTIONS",
            AclKind::Type => "TYPES",
            AclKind::Schema => "SCHEMAS",
        }
    }

    pub const ALL: [AclKind; 5] = [
        AclKind::Table,
        AclKind::Sequence,
        AclKind::Function,
        AclKind::Type,
        AclKind::Schema,
    ];
}

/// Default privileges: for objects `role` creates, in `schema` (or anywhere: None), of `kind`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DefaultAclKey {
    pub role: String,
    pub schema: Option<String>,
    pub kind: AclKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schema {
    pub owner: String,
    pub acl: Acl,
    pub comment: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extension {
    pub schema: String,
    pub version: String,
    /// Its control file fixes its schema (pg_graphql's `graphql`, made by CREATE EXTENSION
    /// when missing): it is created without WITH SCHEMA.
    pub fixed_schema: bool,
}

/// A column of a composite type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attribute {
    pub name: String,
    pub type_name: String,
    pub collation: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Domain {
    pub base: String,
    pub collation: Option<String>,
    pub default: Option<String>,
    pub not_null: bool,
    /// Constraint name → its definition (`CHECK (…)`).
    pub constraints: BTreeMap<String, String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypeKind {
    /// The labels in order.
    Enum(Vec<String>),
    Composite(Vec<Attribute>),
    Domain(Domain),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeDef {
    pub kind: TypeKind,
    pub owner: String,
    pub acl: Acl,
    pub comment: Option<String>,
}

/// A sequence's parameters (also an identity column's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeqOptions {
    /// `smallint`, `integer` or `bigint`.
    pub data_type: String,
    pub start: i64,
    pub increment: i64,
    pub min: i64,
    pub max: i64,
    pub cache: i64,
    pub cycle: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sequence {
    pub options: SeqOptions,
    /// `OWNED BY` this table's column.
    pub owned_by: Option<(QName, String)>,
    pub owner: String,
    pub acl: Acl,
    pub comment: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// `ALWAYS` (else `BY DEFAULT`).
    pub always: bool,
    pub options: SeqOptions,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    pub name: String,
    pub type_name: String,
    /// Only when it differs from the type's.
    pub collation: Option<String>,
    pub not_null: bool,
    pub default: Option<String>,
    pub identity: Option<Identity>,
    /// `GENERATED ALWAYS AS (<expr>) STORED`.
    pub generated: Option<String>,
    /// False for a column a partition or child table has from its parent only.
    pub local: bool,
    pub comment: Option<String>,
    /// Column privileges (none unless granted on the column).
    pub acl: Acl,
}

/// A table constraint: primary key, unique, check, foreign key or exclusion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Constraint {
    /// `p`, `u`, `c`, `f` or `x`.
    pub kind: char,
    /// As `pg_get_constraintdef` prints it.
    pub definition: String,
    pub comment: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    pub columns: Vec<Column>,
    pub constraints: BTreeMap<String, Constraint>,
    pub unlogged: bool,
    /// `PARTITION BY …` of a partitioned table.
    pub partition_key: Option<String>,
    /// The parent and the bound of a partition.
    pub partition_of: Option<(QName, String)>,
    /// Parents of a table that inherits (not a partition).
    pub inherits: Vec<QName>,
    pub rls: bool,
    pub force_rls: bool,
    /// `d` (default), `n` (nothing), `f` (full) or `i` with the index.
    pub replica_identity: (char, Option<String>),
    /// Storage parameters, `name=value`.
    pub options: Vec<String>,
    pub owner: String,
    pub acl: Acl,
    pub comment: Option<String>,
}

impl Table {
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct View {
    pub materialized: bool,
    /// The query, as `pg_get_viewdef` prints it.
    pub definition: String,
    /// `security_invoker=true`, `check_option=local`, …
    pub options: Vec<String>,
    /// Column name → comment.
    pub column_comments: BTreeMap<String, String>,
    pub owner: String,
    pub acl: Acl,
    pub comment: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Index {
    /// The table or materialized view it is on.
    pub table: QName,
    /// `CREATE [UNIQUE] INDEX …` as `pg_get_indexdef` prints it.
    pub definition: String,
    pub comment: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function {
    /// `f` function, `p` procedure, `w` window function.
    pub kind: char,
    /// `CREATE OR REPLACE FUNCTION …` as `pg_get_functiondef` prints it.
    pub definition: String,
    /// The arguments with names and defaults (`pg_get_function_arguments`).
    pub arguments: String,
    /// The result type (`pg_get_function_result`).
    pub result: Option<String>,
    pub owner: String,
    pub acl: Acl,
    pub comment: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trigger {
    /// `CREATE TRIGGER …` as `pg_get_triggerdef` prints it.
    pub definition: String,
    /// `O` (enabled), `D` (disabled), `R` (replica), `A` (always).
    pub enabled: char,
    pub comment: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    pub permissive: bool,
    /// `ALL`, `SELECT`, `INSERT`, `UPDATE` or `DELETE`.
    pub command: String,
    /// Role names, sorted; `PUBLIC` for everyone.
    pub roles: Vec<String>,
    pub using: Option<String>,
    pub check: Option<String>,
    pub comment: Option<String>,
}

/// A table in a publication, with its column list and row filter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublishedTable {
    pub columns: Option<Vec<String>>,
    pub filter: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Publication {
    pub all_tables: bool,
    /// The operations published: `insert`, `update`, `delete`, `truncate`.
    pub publish: Vec<String>,
    pub via_root: bool,
    pub tables: BTreeMap<QName, PublishedTable>,
    /// `FOR TABLES IN SCHEMA`.
    pub schemas: BTreeSet<String>,
    pub comment: Option<String>,
}

/// An object that can be depended on or depend on others.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ObjRef {
    Schema(String),
    Extension(String),
    Type(QName),
    Sequence(QName),
    Table(QName),
    Column(QName, String),
    /// A column's default (or generation) expression.
    Default(QName, String),
    Constraint(QName, String),
    Index(QName),
    View(QName),
    Function(FnKey),
    Trigger(QName, String),
    Policy(QName, String),
    Publication(String),
}

/// What one database holds, within the scope it was read with.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Catalog {
    /// The role the catalog was read as: the role a migration made from it runs as, which
    /// creates (and so first owns) new objects.
    pub user: String,
    /// The privileges an object of each kind gets when `user` creates it and no default
    /// privileges apply (`acldefault`).
    pub builtin_acls: BTreeMap<AclKind, Acl>,
    pub schemas: BTreeMap<String, Schema>,
    pub extensions: BTreeMap<String, Extension>,
    pub types: BTreeMap<QName, TypeDef>,
    pub sequences: BTreeMap<QName, Sequence>,
    pub tables: BTreeMap<QName, Table>,
    pub views: BTreeMap<QName, View>,
    pub indexes: BTreeMap<QName, Index>,
    pub functions: BTreeMap<FnKey, Function>,
    /// Keyed by table and name; tables of managed schemas included (their triggers are the
    /// app's).
    pub triggers: BTreeMap<(QName, String), Trigger>,
    pub policies: BTreeMap<(QName, String), Policy>,
    /// Explicit entries of `pg_default_acl`.
    pub default_acls: BTreeMap<DefaultAclKey, Acl>,
    pub publications: BTreeMap<String, Publication>,
    /// `(dependent, referenced)`: the first needs the second to exist.
    pub deps: BTreeSet<(ObjRef, ObjRef)>,
}

impl Catalog {
    /// Whether the object exists in this catalog.
    pub fn has(&self, r: &ObjRef) -> bool {
        match r {
            ObjRef::Schema(s) => self.schemas.contains_key(s),
            ObjRef::Extension(e) => self.extensions.contains_key(e),
            ObjRef::Type(q) => self.types.contains_key(q),
            ObjRef::Sequence(q) => self.sequences.contains_key(q),
            ObjRef::Table(q) => self.tables.contains_key(q),
            ObjRef::Column(q, c) => self.tables.get(q).is_some_and(|t| t.column(c).is_some()),
            ObjRef::Default(q, c) => self
                .tables
                .get(q)
                .and_then(|t| t.column(c))
                .is_some_and(|c| c.default.is_some()),
            ObjRef::Constraint(q, n) => self
                .tables
                .get(q)
                .is_some_and(|t| t.constraints.contains_key(n)),
            ObjRef::Index(q) => self.indexes.contains_key(q),
            ObjRef::View(q) => self.views.contains_key(q),
            ObjRef::Function(k) => self.functions.contains_key(k),
            ObjRef::Trigger(q, n) => self.triggers.contains_key(&(q.clone(), n.clone())),
            ObjRef::Policy(q, n) => self.policies.contains_key(&(q.clone(), n.clone())),
            ObjRef::Publication(p) => self.publications.contains_key(p),
        }
    }

    /// The relation (table or view) a name refers to.
    pub fn relation(&self, q: &QName) -> Option<ObjRef> {
        if self.tables.contains_key(q) {
            Some(ObjRef::Table(q.clone()))
        } else if self.views.contains_key(q) {
            Some(ObjRef::View(q.clone()))
        } else {
            None
        }
    }

    /// The object that `r` belongs to and is dropped with (a column's table, an owned
    /// sequence's table, a trigger's relation, …).
    pub fn parent(&self, r: &ObjRef) -> Option<ObjRef> {
        match r {
            ObjRef::Column(q, _) | ObjRef::Constraint(q, _) => Some(ObjRef::Table(q.clone())),
            ObjRef::Default(q, c) => Some(ObjRef::Column(q.clone(), c.clone())),
            ObjRef::Trigger(q, _) | ObjRef::Policy(q, _) => self.relation(q),
            ObjRef::Index(q) => self.indexes.get(q).and_then(|i| self.relation(&i.table)),
            ObjRef::Sequence(q) => self
                .sequences
                .get(q)
                .and_then(|s| s.owned_by.as_ref())
                .map(|(t, c)| ObjRef::Column(t.clone(), c.clone())),
            _ => None,
        }
    }
}
