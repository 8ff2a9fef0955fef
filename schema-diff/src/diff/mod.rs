//! The difference between two catalogs as SQL that turns the first into the second.
//!
//! Every object is added (only in the second), removed (only in the first), replaced (dropped
//! and created again: a view whose query changed, a function whose signature or result
//! changed, a policy, trigger, index or constraint that changed), altered in place (a column's
//! type, default or nullability, an enum's new values, privileges, comments, owners) or the
//! same. Whatever depends on something dropped or retyped is replaced too (a view on a column
//! whose type changes, a policy calling a function dropped and created again), following the
//! first database's dependencies. The statements come in three phases: drops, dependents
//! first; creations and changes, dependencies first (ties broken by kind: schemas, extensions,
//! types, sequences, tables, columns, constraints, indexes, views, functions, triggers,
//! policies, publications); then what must wait for everything else (sequences' OWNED BY, old
//! versions of replaced enums dropped).

mod acl;
mod sql;

use crate::model::*;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// One statement of a migration, with a warning for the reader when it may lose data or needs
/// a look.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    /// Without the final semicolon; empty for a warning alone.
    pub sql: String,
    pub warning: Option<String>,
}

impl Statement {
    pub fn new(sql: impl Into<String>) -> Statement {
        Statement {
            sql: sql.into(),
            warning: None,
        }
    }

    fn warned(sql: impl Into<String>, warning: impl Into<String>) -> Statement {
        Statement {
            sql: sql.into(),
            warning: Some(warning.into()),
        }
    }

    /// Whether it drops something (what the Supabase CLI lists after a diff for the user to
    /// check: a statement with `drop` in it).
    pub fn drops(&self) -> bool {
        let lower = self.sql.to_ascii_lowercase();
        lower
            .match_indices("drop")
            .any(|(i, _)| lower[i + 4..].starts_with(|c: char| c.is_whitespace()))
    }

    /// Whether it creates a function or a procedure (`pg_get_functiondef`'s text).
    fn creates_routine(&self) -> bool {
        self.sql.starts_with("CREATE OR REPLACE FUNCTION ")
            || self.sql.starts_with("CREATE OR REPLACE PROCEDURE ")
    }
}

impl fmt::Display for Statement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(w) = &self.warning {
            for (i, line) in w.lines().enumerate() {
                let prefix = if i == 0 { "-- WARNING: " } else { "-- " };
                writeln!(f, "{prefix}{line}")?;
            }
        }
        if self.sql.is_empty() {
            Ok(())
        } else {
            write!(f, "{};", self.sql)
        }
    }
}

/// The statements as a migration file. When it creates functions or procedures it starts, as
/// `pg_dump` and the Supabase CLI's diff do, by turning `check_function_bodies` off: PostgreSQL
/// records no dependency for what a `LANGUAGE sql` body names (a table, another function), so
/// the order cannot follow it, and the body is checked when it runs instead.
pub fn render(statements: &[Statement]) -> String {
    let mut out = String::new();
    if statements.iter().any(Statement::creates_routine) {
        out.push_str("SET check_function_bodies = false;\n\n");
    }
    for s in statements {
        out.push_str(&s.to_string());
        out.push_str("\n\n");
    }
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

/// The SQL that turns `from` into `to`.
pub fn diff(from: &Catalog, to: &Catalog) -> Vec<Statement> {
    Plan::new(from, to).run()
}

/// A step of a phase: an object, or a role's default privileges.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Node {
    Obj(ObjRef),
    DefaultAcl(DefaultAclKey),
}

/// Every object of a catalog (columns a child has from its parent left out).
fn refs(cat: &Catalog) -> BTreeSet<ObjRef> {
    let mut out = BTreeSet::new();
    out.extend(cat.schemas.keys().cloned().map(ObjRef::Schema));
    out.extend(cat.extensions.keys().cloned().map(ObjRef::Extension));
    out.extend(cat.types.keys().cloned().map(ObjRef::Type));
    out.extend(cat.sequences.keys().cloned().map(ObjRef::Sequence));
    for (q, t) in &cat.tables {
        out.insert(ObjRef::Table(q.clone()));
        for c in t.columns.iter().filter(|c| c.local) {
            out.insert(ObjRef::Column(q.clone(), c.name.clone()));
            if c.default.is_some() {
                out.insert(ObjRef::Default(q.clone(), c.name.clone()));
            }
        }
        for n in t.constraints.keys() {
            out.insert(ObjRef::Constraint(q.clone(), n.clone()));
        }
    }
    out.extend(cat.indexes.keys().cloned().map(ObjRef::Index));
    out.extend(cat.views.keys().cloned().map(ObjRef::View));
    out.extend(cat.functions.keys().cloned().map(ObjRef::Function));
    out.extend(
        cat.triggers
            .keys()
            .map(|(q, n)| ObjRef::Trigger(q.clone(), n.clone())),
    );
    out.extend(
        cat.policies
            .keys()
            .map(|(q, n)| ObjRef::Policy(q.clone(), n.clone())),
    );
    out.extend(cat.publications.keys().cloned().map(ObjRef::Publication));
    out
}

fn schema_of(r: &ObjRef) -> Option<&str> {
    Some(match r {
        ObjRef::Schema(_) | ObjRef::Extension(_) | ObjRef::Publication(_) => return None,
        ObjRef::Type(q) | ObjRef::Sequence(q) | ObjRef::Table(q) | ObjRef::Index(q) => &q.schema,
        ObjRef::View(q) => &q.schema,
        ObjRef::Column(q, _)
        | ObjRef::Default(q, _)
        | ObjRef::Constraint(q, _)
        | ObjRef::Trigger(q, _)
        | ObjRef::Policy(q, _) => &q.schema,
        ObjRef::Function(k) => &k.schema,
    })
}

/// Whether every label of `old` is in `new`, in the same order (so new ones can be added).
fn enum_extends(old: &[String], new: &[String]) -> bool {
    let mut it = new.iter();
    old.iter().all(|o| it.any(|n| n == o))
}

fn old_version(name: &str) -> String {
    format!("{name}__old_version_to_be_dropped")
}

struct Plan<'a> {
    from: &'a Catalog,
    to: &'a Catalog,
    removed: BTreeSet<ObjRef>,
    added: BTreeSet<ObjRef>,
    replaced: BTreeSet<ObjRef>,
    /// Columns in both whose type changes in place.
    retyped: BTreeSet<ObjRef>,
    /// Enums and domains replaced by renaming the old one away, creating the new one, moving
    /// the columns over and dropping the old one last.
    renamed_types: BTreeSet<QName>,
    drops: BTreeMap<Node, Vec<Statement>>,
    creates: BTreeMap<Node, Vec<Statement>>,
    /// OWNED BY, after every table exists.
    owned_by: Vec<Statement>,
    /// Old versions of replaced types, dropped last.
    last: Vec<Statement>,
}

impl<'a> Plan<'a> {
    fn new(from: &'a Catalog, to: &'a Catalog) -> Plan<'a> {
        Plan {
            from,
            to,
            removed: BTreeSet::new(),
            added: BTreeSet::new(),
            replaced: BTreeSet::new(),
            retyped: BTreeSet::new(),
            renamed_types: BTreeSet::new(),
            drops: BTreeMap::new(),
            creates: BTreeMap::new(),
            owned_by: Vec::new(),
            last: Vec::new(),
        }
    }

    fn run(mut self) -> Vec<Statement> {
        let (a, b) = (refs(self.from), refs(self.to));
        self.removed = a.difference(&b).cloned().collect();
        self.added = b.difference(&a).cloned().collect();
        for r in a.intersection(&b) {
            self.classify(r);
        }
        self.propagate();
        for r in self
            .removed
            .iter()
            .chain(&self.replaced)
            .cloned()
            .collect::<Vec<_>>()
        {
            if self.drop_root(&r) == r {
                let statements = self.drop_sql(&r);
                self.drops
                    .entry(Node::Obj(r))
                    .or_default()
                    .extend(statements);
            }
        }
        for r in self
            .added
            .iter()
            .chain(&self.replaced)
            .cloned()
            .collect::<Vec<_>>()
        {
            if self.create_root(&r) == r {
                let statements = self.create_sql(&r);
                self.push_create(Node::Obj(r), statements);
            }
        }
        for r in a.intersection(&b) {
            if !self.replaced.contains(r) {
                let statements = self.alter_sql(r);
                self.push_create(Node::Obj(r.clone()), statements);
            }
        }
        for (key, statement) in acl::default_privileges(self.from, self.to) {
            // A schema's default privileges go with it when it is dropped.
            if let Some(s) = &key.schema
                && self.removed.contains(&ObjRef::Schema(s.clone()))
            {
                continue;
            }
            self.push_create(Node::DefaultAcl(key), vec![statement]);
        }
        let mut out = Vec::new();
        for n in self.drop_order() {
            out.extend(self.drops.remove(&n).unwrap_or_default());
        }
        for n in self.create_order() {
            out.extend(self.creates.remove(&n).unwrap_or_default());
        }
        out.append(&mut self.owned_by);
        out.append(&mut self.last);
        out
    }

    fn push_create(&mut self, node: Node, statements: Vec<Statement>) {
        if !statements.is_empty() {
            self.creates.entry(node).or_default().extend(statements);
        }
    }

    /// Decides whether an object in both is replaced or retyped.
    fn classify(&mut self, r: &ObjRef) {
        let (f, t) = (self.from, self.to);
        let replace = match r {
            ObjRef::Type(q) => match (&f.types[q].kind, &t.types[q].kind) {
                (TypeKind::Enum(a), TypeKind::Enum(b)) => {
                    let renamed = !enum_extends(a, b);
                    if renamed {
                        self.renamed_types.insert(q.clone());
                    }
                    renamed
                }
                (TypeKind::Domain(a), TypeKind::Domain(b)) => {
                    let renamed = a.base != b.base || a.collation != b.collation;
                    if renamed {
                        self.renamed_types.insert(q.clone());
                    }
                    renamed
                }
                (TypeKind::Composite(_), TypeKind::Composite(_)) => false,
                _ => true,
            },
            ObjRef::Column(q, c) => {
                let (a, b) = (column(f, q, c), column(t, q, c));
                if a.generated != b.generated {
                    true
                } else {
                    if a.type_name != b.type_name || a.collation != b.collation {
                        self.retyped.insert(r.clone());
                    }
                    false
                }
            }
            ObjRef::Constraint(q, n) => {
                let (a, b) = (&f.tables[q].constraints[n], &t.tables[q].constraints[n]);
                a.kind != b.kind || a.definition != b.definition
            }
            ObjRef::Index(q) => {
                let (a, b) = (&f.indexes[q], &t.indexes[q]);
                a.table != b.table || a.definition != b.definition
            }
            ObjRef::View(q) => {
                let (a, b) = (&f.views[q], &t.views[q]);
                a.materialized != b.materialized || a.definition != b.definition
            }
            ObjRef::Function(k) => {
                let (a, b) = (&f.functions[k], &t.functions[k]);
                a.kind != b.kind || a.result != b.result || a.arguments != b.arguments
            }
            ObjRef::Trigger(q, n) => {
                let key = (q.clone(), n.clone());
                f.triggers[&key].definition != t.triggers[&key].definition
            }
            ObjRef::Policy(q, n) => {
                let key = (q.clone(), n.clone());
                let (a, b) = (&f.policies[&key], &t.policies[&key]);
                (&a.permissive, &a.command, &a.roles, &a.using, &a.check)
                    != (&b.permissive, &b.command, &b.roles, &b.using, &b.check)
            }
            ObjRef::Publication(p) => f.publications[p].all_tables != t.publications[p].all_tables,
            _ => false,
        };
        if replace {
            self.replaced.insert(r.clone());
        }
    }

    /// Replaces what depends on what is dropped, replaced or retyped (in the first database),
    /// and moves the columns of replaced enums and domains to the new type.
    fn propagate(&mut self) {
        let mut dependents: BTreeMap<&ObjRef, Vec<&ObjRef>> = BTreeMap::new();
        for (d, r) in &self.from.deps {
            dependents.entry(r).or_default().push(d);
        }
        let mut children: BTreeMap<ObjRef, Vec<ObjRef>> = BTreeMap::new();
        for r in refs(self.from) {
            if let Some(p) = self.from.parent(&r) {
                children.entry(p).or_default().push(r);
            }
        }
        let mut work: Vec<ObjRef> = self
            .removed
            .iter()
            .chain(&self.replaced)
            .chain(&self.retyped)
            .cloned()
            .collect();
        while let Some(x) = work.pop() {
            let next: Vec<ObjRef> = dependents
                .get(&x)
                .into_iter()
                .flatten()
                .map(|d| (*d).clone())
                .chain(children.get(&x).into_iter().flatten().cloned())
                .collect();
            for y in next {
                if self.removed.contains(&y) || !self.to.has(&y) {
                    continue;
                }
                let next = match &y {
                    ObjRef::View(_)
                    | ObjRef::Index(_)
                    | ObjRef::Constraint(..)
                    | ObjRef::Trigger(..)
                    | ObjRef::Policy(..)
                    | ObjRef::Function(_)
                    | ObjRef::Default(..) => self.replaced.insert(y.clone()),
                    ObjRef::Column(..) => {
                        matches!(&x, ObjRef::Type(q) if self.renamed_types.contains(q))
                            && !self.replaced.contains(&y)
                            && self.retyped.insert(y.clone())
                    }
                    _ => false,
                };
                if next {
                    work.push(y);
                }
            }
        }
    }

    fn dropped(&self, r: &ObjRef) -> bool {
        self.removed.contains(r) || self.replaced.contains(r)
    }

    fn created(&self, r: &ObjRef) -> bool {
        self.added.contains(r) || self.replaced.contains(r)
    }

    /// The topmost object dropped that `r` goes with (itself when its parents stay). A
    /// foreign key to another table dropped too is dropped on its own first (two tables may
    /// reference each other).
    fn drop_root(&self, r: &ObjRef) -> ObjRef {
        if let ObjRef::Constraint(q, n) = r
            && Self::is_foreign_key(self.from, q, n)
            && self.from.deps.iter().any(|(d, x)| {
                d == r && matches!(self.table_of(x), Some(t) if t != *q && self.dropped(&ObjRef::Table(t.clone())))
            })
        {
            return r.clone();
        }
        let mut top = r.clone();
        let mut cur = r.clone();
        while let Some(p) = self.from.parent(&cur) {
            if self.dropped(&p) {
                top = p.clone();
            }
            cur = p;
        }
        top
    }

    /// The table an object belongs to (a constraint's, a column's).
    fn table_of(&self, r: &ObjRef) -> Option<QName> {
        match r {
            ObjRef::Table(q) | ObjRef::Column(q, _) | ObjRef::Constraint(q, _) => Some(q.clone()),
            ObjRef::Index(q) => self.from.indexes.get(q).map(|i| i.table.clone()),
            _ => None,
        }
    }

    /// A default given as SET DEFAULT after its column exists (it calls a function this
    /// migration creates, which may itself need the table).
    fn separate_default(&self, q: &QName, c: &str) -> bool {
        let d = ObjRef::Default(q.clone(), c.to_string());
        if !self.created(&d) {
            return false;
        }
        let column = ObjRef::Column(q.clone(), c.to_string());
        if !self.created(&column) {
            return true;
        }
        self.to
            .deps
            .range((d.clone(), ObjRef::Schema(String::new()))..)
            .take_while(|(a, _)| *a == d)
            .any(|(_, b)| matches!(b, ObjRef::Function(_)) && self.created(b))
    }

    /// The object whose creation creates `r` too (a new table's columns and their defaults).
    fn create_root(&self, r: &ObjRef) -> ObjRef {
        match r {
            ObjRef::Column(q, _) if self.created(&ObjRef::Table(q.clone())) => {
                ObjRef::Table(q.clone())
            }
            ObjRef::Default(q, c) if !self.separate_default(q, c) => {
                let column = ObjRef::Column(q.clone(), c.clone());
                if self.created(&column) {
                    self.create_root(&column)
                } else {
                    r.clone()
                }
            }
            _ => r.clone(),
        }
    }

    fn drop_order(&self) -> Vec<Node> {
        let nodes: BTreeSet<Node> = self.drops.keys().cloned().collect();
        let mut edges = BTreeSet::new();
        for (d, r) in &self.from.deps {
            if self.dropped(d) && self.dropped(r) {
                let (a, b) = (Node::Obj(self.drop_root(d)), Node::Obj(self.drop_root(r)));
                if a != b && nodes.contains(&a) && nodes.contains(&b) {
                    edges.insert((a, b));
                }
            }
        }
        for n in &nodes {
            let Node::Obj(r) = n else { continue };
            if let Some(s) = schema_of(r) {
                let schema = Node::Obj(ObjRef::Schema(s.to_string()));
                if nodes.contains(&schema) && schema != *n {
                    edges.insert((n.clone(), schema));
                }
            }
            // A part dropped on its own goes before what it is part of.
            let mut cur = r.clone();
            while let Some(p) = self.from.parent(&cur) {
                let parent = Node::Obj(p.clone());
                if nodes.contains(&parent) {
                    edges.insert((n.clone(), parent));
                }
                cur = p;
            }
        }
        order(nodes, edges, |n| self.drop_rank(n))
    }

    fn create_order(&self) -> Vec<Node> {
        let nodes: BTreeSet<Node> = self.creates.keys().cloned().collect();
        let mut edges = BTreeSet::new();
        let mut edge = |first: Node, then: Node| {
            if first != then && nodes.contains(&first) && nodes.contains(&then) {
                edges.insert((first, then));
            }
        };
        for (d, r) in &self.to.deps {
            edge(
                Node::Obj(self.create_root(r)),
                Node::Obj(self.create_root(d)),
            );
        }
        for n in &nodes {
            match n {
                Node::Obj(r) => {
                    if matches!(
                        r,
                        ObjRef::Column(..)
                            | ObjRef::Default(..)
                            | ObjRef::Constraint(..)
                            | ObjRef::Index(_)
                            | ObjRef::Trigger(..)
                            | ObjRef::Policy(..)
                    ) {
                        let mut cur = r.clone();
                        while let Some(p) = self.to.parent(&cur) {
                            edge(Node::Obj(self.create_root(&p)), n.clone());
                            cur = p;
                        }
                    }
                    if let Some(s) = schema_of(r) {
                        edge(Node::Obj(ObjRef::Schema(s.to_string())), n.clone());
                    }
                    if let ObjRef::Table(q) = r {
                        let t = &self.to.tables[q];
                        let parents = t.partition_of.iter().map(|(p, _)| p).chain(&t.inherits);
                        for p in parents {
                            edge(Node::Obj(ObjRef::Table(p.clone())), n.clone());
                        }
                        if let Some(i) = &t.replica_identity.1 {
                            let index = QName::new(&q.schema, i);
                            edge(Node::Obj(ObjRef::Index(index)), n.clone());
                            edge(
                                Node::Obj(ObjRef::Constraint(q.clone(), i.clone())),
                                n.clone(),
                            );
                        }
                    }
                    if let ObjRef::Publication(p) = r {
                        for t in self.to.publications[p].tables.keys() {
                            edge(Node::Obj(ObjRef::Table(t.clone())), n.clone());
                        }
                    }
                }
                Node::DefaultAcl(key) => {
                    if let Some(s) = &key.schema {
                        edge(Node::Obj(ObjRef::Schema(s.clone())), n.clone());
                    }
                    // Objects the migration's role creates get these privileges: they are
                    // set first.
                    if key.role == self.to.user {
                        for m in &nodes {
                            let Node::Obj(r) = m else { continue };
                            let kind = match r {
                                ObjRef::Table(_) | ObjRef::View(_) => AclKind::Table,
                                ObjRef::Sequence(_) => AclKind::Sequence,
                                ObjRef::Function(_) => AclKind::Function,
                                ObjRef::Type(_) => AclKind::Type,
                                ObjRef::Schema(_) => AclKind::Schema,
                                _ => continue,
                            };
                            if kind == key.kind
                                && (key.schema.is_none() || key.schema.as_deref() == schema_of(r))
                                && self.created(r)
                            {
                                edge(n.clone(), m.clone());
                            }
                        }
                    }
                }
            }
        }
        order(nodes, edges, |n| self.create_rank(n))
    }

    fn is_foreign_key(cat: &Catalog, q: &QName, n: &str) -> bool {
        cat.tables
            .get(q)
            .and_then(|t| t.constraints.get(n))
            .is_some_and(|c| c.kind == 'f')
    }

    fn create_rank(&self, n: &Node) -> u8 {
        match n {
            Node::DefaultAcl(_) => 2,
            Node::Obj(r) => match r {
                ObjRef::Schema(_) => 0,
                ObjRef::Extension(_) => 1,
                ObjRef::Type(_) => 3,
                ObjRef::Sequence(_) => 4,
                ObjRef::Table(_) => 5,
                ObjRef::Column(..) => 6,
                ObjRef::Default(..) => 7,
                ObjRef::Constraint(q, c) if Self::is_foreign_key(self.to, q, c) => 10,
                ObjRef::Constraint(..) => 8,
                ObjRef::Index(_) => 9,
                ObjRef::View(_) => 11,
                ObjRef::Function(_) => 12,
                ObjRef::Trigger(..) => 13,
                ObjRef::Policy(..) => 14,
                ObjRef::Publication(_) => 15,
            },
        }
    }

    fn drop_rank(&self, n: &Node) -> u8 {
        match n {
            Node::DefaultAcl(_) => 13,
            Node::Obj(r) => match r {
                ObjRef::Publication(_) => 0,
                ObjRef::Policy(..) => 1,
                ObjRef::Trigger(..) => 2,
                ObjRef::View(_) => 3,
                ObjRef::Constraint(q, c) if Self::is_foreign_key(self.from, q, c) => 4,
                ObjRef::Index(_) => 5,
                ObjRef::Constraint(..) => 6,
                ObjRef::Default(..) => 7,
                ObjRef::Function(_) => 8,
                ObjRef::Column(..) => 9,
                ObjRef::Table(_) => 10,
                ObjRef::Sequence(_) => 11,
                ObjRef::Type(_) => 12,
                ObjRef::Extension(_) => 14,
                ObjRef::Schema(_) => 15,
            },
        }
    }

    /// How `r` (in the first database) is dropped.
    fn drop_sql(&mut self, r: &ObjRef) -> Vec<Statement> {
        let f = self.from;
        let one = |s: String| vec![Statement::new(s)];
        match r {
            ObjRef::Schema(s) => one(format!("DROP SCHEMA {}", ident(s))),
            ObjRef::Extension(e) => one(format!("DROP EXTENSION {}", ident(e))),
            ObjRef::Type(q) => {
                let kind = sql::type_kind(&f.types[q]);
                if self.renamed_types.contains(q) {
                    let old = QName::new(&q.schema, &old_version(&q.name));
                    self.last.push(Statement::new(format!("DROP {kind} {old}")));
                    one(format!(
                        "ALTER {kind} {q} RENAME TO {}",
                        ident(&old_version(&q.name))
                    ))
                } else {
                    one(format!("DROP {kind} {q}"))
                }
            }
            ObjRef::Sequence(q) => one(format!("DROP SEQUENCE {q}")),
            ObjRef::Table(q) => {
                let sql = format!("DROP TABLE {q}");
                match self.renamed_table(q) {
                    Some(w) => vec![Statement::warned(sql, w)],
                    None => one(sql),
                }
            }
            ObjRef::Column(q, c) => {
                let sql = format!("ALTER TABLE {q} DROP COLUMN {}", ident(c));
                match self.renamed_column(q, c) {
                    Some(w) if !self.replaced.contains(r) => vec![Statement::warned(sql, w)],
                    _ => one(sql),
                }
            }
            ObjRef::Default(q, c) => one(format!(
                "ALTER TABLE {q} ALTER COLUMN {} DROP DEFAULT",
                ident(c)
            )),
            ObjRef::Constraint(q, n) => {
                one(format!("ALTER TABLE {q} DROP CONSTRAINT {}", ident(n)))
            }
            ObjRef::Index(q) => one(format!("DROP INDEX {q}")),
            ObjRef::View(q) => one(format!("DROP {} {q}", sql::view_kind(&f.views[q]))),
            ObjRef::Function(k) => one(format!("DROP {} {k}", sql::function_kind(&f.functions[k]))),
            ObjRef::Trigger(q, n) => one(format!("DROP TRIGGER {} ON {q}", ident(n))),
            ObjRef::Policy(q, n) => one(format!("DROP POLICY {} ON {q}", ident(n))),
            ObjRef::Publication(p) => one(format!("DROP PUBLICATION {}", ident(p))),
        }
    }

    /// A warning when a dropped column looks like a column renamed (another is added).
    fn renamed_column(&self, q: &QName, c: &str) -> Option<String> {
        let old = column(self.from, q, c);
        let new = self.to.tables.get(q)?;
        let added: Vec<&Column> = new
            .columns
            .iter()
            .filter(|n| n.local && self.from.tables[q].column(&n.name).is_none())
            .collect();
        let candidate = added
            .iter()
            .find(|n| n.type_name == old.type_name)
            .or(added.first())?;
        Some(format!(
            "column {} of {q} is dropped and column {} is added: if this is a rename, write\n\
             ALTER TABLE {q} RENAME COLUMN {} TO {};\n\
             instead, or the data in {} is lost.",
            ident(c),
            ident(&candidate.name),
            ident(c),
            ident(&candidate.name),
            ident(c)
        ))
    }

    /// A warning when a dropped table looks like a table renamed (one with the same columns is
    /// added in its schema).
    fn renamed_table(&self, q: &QName) -> Option<String> {
        let shape = |t: &Table| -> Vec<(String, String)> {
            t.columns
                .iter()
                .map(|c| (c.name.clone(), c.type_name.clone()))
                .collect()
        };
        let old = shape(&self.from.tables[q]);
        let (new, _) = self.to.tables.iter().find(|(n, t)| {
            n.schema == q.schema && !self.from.tables.contains_key(*n) && shape(t) == old
        })?;
        Some(format!(
            "table {q} is dropped and table {new} with the same columns is created: if this is \
             a rename, write\nALTER TABLE {q} RENAME TO {};\ninstead, or the data in {q} is lost.",
            ident(&new.name)
        ))
    }

    fn grants(&self, kind: AclKind, on: &str, from: &Acl, to: &Acl) -> Vec<Statement> {
        acl::statements(self.to, kind, on, from, to)
    }

    /// Privileges from one owner to another in place: ALTER … OWNER TO hands the old owner's
    /// privileges to the new one by itself.
    fn regrants(
        &self,
        kind: AclKind,
        on: &str,
        (from, old_owner): (&Acl, &str),
        (to, new_owner): (&Acl, &str),
    ) -> Vec<Statement> {
        let from = acl::hand_over(from, old_owner, new_owner);
        acl::statements(self.to, kind, on, &from, to)
    }

    /// How `r` (in the second database) is created, with its owner, privileges and comments.
    fn create_sql(&mut self, r: &ObjRef) -> Vec<Statement> {
        let t = self.to;
        let user = t.user.as_str();
        let mut out: Vec<Statement> = Vec::new();
        match r {
            ObjRef::Schema(s) => {
                let x = &t.schemas[s];
                let on = format!("SCHEMA {}", ident(s));
                out.push(Statement::new(format!("CREATE SCHEMA {}", ident(s))));
                out.extend(sql::owner(&on, user, &x.owner));
                let initial = acl::initial(t, AclKind::Schema, None, &x.owner);
                out.extend(self.grants(AclKind::Schema, &on, &initial, &x.acl));
                out.extend(sql::comment(&on, None, x.comment.as_ref()));
            }
            ObjRef::Extension(e) => {
                let x = &t.extensions[e];
                out.push(Statement::new(if x.fixed_schema {
                    format!("CREATE EXTENSION IF NOT EXISTS {}", ident(e))
                } else {
                    format!(
                        "CREATE EXTENSION IF NOT EXISTS {} WITH SCHEMA {}",
                        ident(e),
                        ident(&x.schema)
                    )
                }));
            }
            ObjRef::Type(q) => {
                let x = &t.types[q];
                let on = format!("{} {q}", sql::type_kind(x));
                out.push(Statement::new(sql::create_type(q, &x.kind)));
                out.extend(sql::owner(&on, user, &x.owner));
                let initial = acl::initial(t, AclKind::Type, Some(&q.schema), &x.owner);
                out.extend(self.grants(AclKind::Type, &on, &initial, &x.acl));
                out.extend(sql::comment(&on, None, x.comment.as_ref()));
            }
            ObjRef::Sequence(q) => {
                let x = &t.sequences[q];
                let on = format!("SEQUENCE {q}");
                out.push(Statement::new(sql::create_sequence(q, x)));
                out.extend(sql::owner(&on, user, &x.owner));
                let initial = acl::initial(t, AclKind::Sequence, Some(&q.schema), &x.owner);
                out.extend(self.grants(AclKind::Sequence, &on, &initial, &x.acl));
                out.extend(sql::comment(&on, None, x.comment.as_ref()));
                if let Some((table, col)) = &x.owned_by {
                    self.owned_by.push(Statement::new(format!(
                        "ALTER SEQUENCE {q} OWNED BY {table}.{}",
                        ident(col)
                    )));
                }
            }
            ObjRef::Table(q) => {
                let x = &t.tables[q];
                let on = format!("TABLE {q}");
                out.push(Statement::new(sql::create_table(q, x, |c| {
                    !self.separate_default(q, c)
                })));
                out.extend(sql::owner(&on, user, &x.owner));
                out.extend(table_flags(q, None, x));
                let initial = acl::initial(t, AclKind::Table, Some(&q.schema), &x.owner);
                out.extend(self.grants(AclKind::Table, &on, &initial, &x.acl));
                out.extend(sql::comment(&on, None, x.comment.as_ref()));
                for c in x.columns.iter().filter(|c| c.local) {
                    out.extend(sql::comment(
                        &format!("COLUMN {q}.{}", ident(&c.name)),
                        None,
                        c.comment.as_ref(),
                    ));
                    out.extend(acl::column_statements(q, &c.name, &Acl::new(), &c.acl));
                }
            }
            ObjRef::Column(q, c) => {
                let x = column(t, q, c);
                out.push(Statement::new(format!(
                    "ALTER TABLE {q} ADD COLUMN {}",
                    sql::column_definition(x, !self.separate_default(q, c))
                )));
                out.extend(sql::comment(
                    &format!("COLUMN {q}.{}", ident(c)),
                    None,
                    x.comment.as_ref(),
                ));
                out.extend(acl::column_statements(q, c, &Acl::new(), &x.acl));
            }
            ObjRef::Default(q, c) => {
                let x = column(t, q, c);
                out.push(Statement::new(format!(
                    "ALTER TABLE {q} ALTER COLUMN {} SET DEFAULT {}",
                    ident(c),
                    x.default.as_deref().unwrap_or("NULL")
                )));
            }
            ObjRef::Constraint(q, n) => {
                let x = &t.tables[q].constraints[n];
                out.push(Statement::new(format!(
                    "ALTER TABLE {q} ADD CONSTRAINT {} {}",
                    ident(n),
                    x.definition
                )));
                out.extend(sql::comment(
                    &format!("CONSTRAINT {} ON {q}", ident(n)),
                    None,
                    x.comment.as_ref(),
                ));
            }
            ObjRef::Index(q) => {
                let x = &t.indexes[q];
                out.push(Statement::new(x.definition.clone()));
                out.extend(sql::comment(
                    &format!("INDEX {q}"),
                    None,
                    x.comment.as_ref(),
                ));
            }
            ObjRef::View(q) => {
                let x = &t.views[q];
                let on = format!("{} {q}", sql::view_kind(x));
                out.push(Statement::new(sql::create_view(q, x)));
                out.extend(sql::owner(&on, user, &x.owner));
                let initial = acl::initial(t, AclKind::Table, Some(&q.schema), &x.owner);
                out.extend(self.grants(AclKind::Table, &format!("TABLE {q}"), &initial, &x.acl));
                out.extend(sql::comment(&on, None, x.comment.as_ref()));
                for (c, comment) in &x.column_comments {
                    out.extend(sql::comment(
                        &format!("COLUMN {q}.{}", ident(c)),
                        None,
                        Some(comment),
                    ));
                }
            }
            ObjRef::Function(k) => {
                let x = &t.functions[k];
                let on = format!("{} {k}", sql::function_kind(x));
                out.push(Statement::new(x.definition.clone()));
                out.extend(sql::owner(&on, user, &x.owner));
                let initial = acl::initial(t, AclKind::Function, Some(&k.schema), &x.owner);
                out.extend(self.grants(AclKind::Function, &on, &initial, &x.acl));
                out.extend(sql::comment(&on, None, x.comment.as_ref()));
            }
            ObjRef::Trigger(q, n) => {
                let x = &t.triggers[&(q.clone(), n.clone())];
                out.push(Statement::new(x.definition.clone()));
                if x.enabled != 'O' {
                    out.push(Statement::new(sql::trigger_state(q, n, x.enabled)));
                }
                out.extend(sql::comment(
                    &format!("TRIGGER {} ON {q}", ident(n)),
                    None,
                    x.comment.as_ref(),
                ));
            }
            ObjRef::Policy(q, n) => {
                let x = &t.policies[&(q.clone(), n.clone())];
                out.push(Statement::new(sql::create_policy(q, n, x)));
                out.extend(sql::comment(
                    &format!("POLICY {} ON {q}", ident(n)),
                    None,
                    x.comment.as_ref(),
                ));
            }
            ObjRef::Publication(p) => {
                let x = &t.publications[p];
                out.push(Statement::new(sql::create_publication(p, x)));
                for (table, pt) in &x.tables {
                    out.push(Statement::new(sql::publish_table(p, table, pt)));
                }
                for s in &x.schemas {
                    out.push(Statement::new(format!(
                        "ALTER PUBLICATION {} ADD TABLES IN SCHEMA {}",
                        ident(p),
                        ident(s)
                    )));
                }
                out.extend(sql::comment(
                    &format!("PUBLICATION {}", ident(p)),
                    None,
                    x.comment.as_ref(),
                ));
            }
        }
        out
    }

    /// How `r`, in both databases and not replaced, changes in place.
    fn alter_sql(&mut self, r: &ObjRef) -> Vec<Statement> {
        let (f, t) = (self.from, self.to);
        let mut out: Vec<Statement> = Vec::new();
        match r {
            ObjRef::Schema(s) => {
                let (a, b) = (&f.schemas[s], &t.schemas[s]);
                let on = format!("SCHEMA {}", ident(s));
                out.extend(sql::owner(&on, &a.owner, &b.owner));
                out.extend(self.regrants(
                    AclKind::Schema,
                    &on,
                    (&a.acl, &a.owner),
                    (&b.acl, &b.owner),
                ));
                out.extend(sql::comment(&on, a.comment.as_ref(), b.comment.as_ref()));
            }
            ObjRef::Extension(e) => {
                let (a, b) = (&f.extensions[e], &t.extensions[e]);
                if a.schema != b.schema {
                    out.push(Statement::new(format!(
                        "ALTER EXTENSION {} SET SCHEMA {}",
                        ident(e),
                        ident(&b.schema)
                    )));
                }
            }
            ObjRef::Type(q) => {
                let (a, b) = (&f.types[q], &t.types[q]);
                let on = format!("{} {q}", sql::type_kind(b));
                out.extend(type_changes(q, &a.kind, &b.kind));
                out.extend(sql::owner(&on, &a.owner, &b.owner));
                out.extend(self.regrants(
                    AclKind::Type,
                    &on,
                    (&a.acl, &a.owner),
                    (&b.acl, &b.owner),
                ));
                out.extend(sql::comment(&on, a.comment.as_ref(), b.comment.as_ref()));
            }
            ObjRef::Sequence(q) => {
                let (a, b) = (&f.sequences[q], &t.sequences[q]);
                let on = format!("SEQUENCE {q}");
                let changes = sql::seq_changes(&a.options, &b.options, true);
                if !changes.is_empty() {
                    out.push(Statement::new(format!(
                        "ALTER SEQUENCE {q} {}",
                        changes.join(" ")
                    )));
                }
                if a.owned_by != b.owned_by {
                    self.owned_by.push(Statement::new(match &b.owned_by {
                        Some((table, col)) => {
                            format!("ALTER SEQUENCE {q} OWNED BY {table}.{}", ident(col))
                        }
                        None => format!("ALTER SEQUENCE {q} OWNED BY NONE"),
                    }));
                }
                out.extend(sql::owner(&on, &a.owner, &b.owner));
                out.extend(self.regrants(
                    AclKind::Sequence,
                    &on,
                    (&a.acl, &a.owner),
                    (&b.acl, &b.owner),
                ));
                out.extend(sql::comment(&on, a.comment.as_ref(), b.comment.as_ref()));
            }
            ObjRef::Table(q) => {
                let (a, b) = (&f.tables[q], &t.tables[q]);
                let on = format!("TABLE {q}");
                if a.partition_key != b.partition_key
                    || a.partition_of != b.partition_of
                    || a.inherits != b.inherits
                {
                    out.push(Statement::warned(
                        "",
                        format!(
                            "the partitioning or inheritance of {q} changed; PostgreSQL cannot \
                             change it in place: write this part of the migration by hand."
                        ),
                    ));
                }
                if a.unlogged != b.unlogged {
                    let to = if b.unlogged { "UNLOGGED" } else { "LOGGED" };
                    out.push(Statement::new(format!("ALTER TABLE {q} SET {to}")));
                }
                out.extend(options_changes(
                    &format!("TABLE {q}"),
                    &a.options,
                    &b.options,
                ));
                out.extend(sql::owner(&on, &a.owner, &b.owner));
                out.extend(table_flags(q, Some(a), b));
                out.extend(self.regrants(
                    AclKind::Table,
                    &on,
                    (&a.acl, &a.owner),
                    (&b.acl, &b.owner),
                ));
                out.extend(sql::comment(&on, a.comment.as_ref(), b.comment.as_ref()));
            }
            ObjRef::Column(q, c) => {
                let (a, b) = (column(f, q, c), column(t, q, c));
                let col = ident(c);
                if self.retyped.contains(r) {
                    let collate = b
                        .collation
                        .as_ref()
                        .map(|x| format!(" COLLATE {x}"))
                        .unwrap_or_default();
                    let using = match self.renamed_type_of(r) {
                        Some(TypeKind::Enum(_)) if b.type_name.ends_with("[]") => {
                            format!("{col}::text[]::{}", b.type_name)
                        }
                        Some(TypeKind::Enum(_)) => format!("{col}::text::{}", b.type_name),
                        _ => format!("{col}::{}", b.type_name),
                    };
                    out.push(Statement::new(format!(
                        "ALTER TABLE {q} ALTER COLUMN {col} SET DATA TYPE {}{collate} USING {using}",
                        b.type_name
                    )));
                }
                if a.not_null != b.not_null && b.identity.is_none() {
                    let set = if b.not_null { "SET" } else { "DROP" };
                    out.push(Statement::new(format!(
                        "ALTER TABLE {q} ALTER COLUMN {col} {set} NOT NULL"
                    )));
                }
                match (&a.identity, &b.identity) {
                    (None, Some(i)) => {
                        if !a.not_null {
                            out.push(Statement::new(format!(
                                "ALTER TABLE {q} ALTER COLUMN {col} SET NOT NULL"
                            )));
                        }
                        out.push(Statement::new(format!(
                            "ALTER TABLE {q} ALTER COLUMN {col} ADD {}",
                            sql::identity_clause(&b.type_name, i)
                        )));
                    }
                    (Some(_), None) => {
                        out.push(Statement::new(format!(
                            "ALTER TABLE {q} ALTER COLUMN {col} DROP IDENTITY"
                        )));
                        if !b.not_null {
                            out.push(Statement::new(format!(
                                "ALTER TABLE {q} ALTER COLUMN {col} DROP NOT NULL"
                            )));
                        }
                    }
                    (Some(x), Some(y)) => {
                        let mut changes = Vec::new();
                        if x.always != y.always {
                            changes.push(
                                if y.always {
                                    "SET GENERATED ALWAYS"
                                } else {
                                    "SET GENERATED BY DEFAULT"
                                }
                                .to_string(),
                            );
                        }
                        changes.extend(
                            sql::seq_changes(&x.options, &y.options, false)
                                .into_iter()
                                .map(|c| match c.as_str() {
                                    "CYCLE" | "NO CYCLE" => format!("SET {c}"),
                                    _ if c.starts_with("START WITH") => {
                                        format!("SET {}", c.replacen("START WITH", "START", 1))
                                    }
                                    _ => format!("SET {c}"),
                                }),
                        );
                        if !changes.is_empty() {
                            out.push(Statement::new(format!(
                                "ALTER TABLE {q} ALTER COLUMN {col} {}",
                                changes.join(" ")
                            )));
                        }
                    }
                    (None, None) => {}
                }
                out.extend(sql::comment(
                    &format!("COLUMN {q}.{col}"),
                    a.comment.as_ref(),
                    b.comment.as_ref(),
                ));
                out.extend(acl::column_statements(q, c, &a.acl, &b.acl));
            }
            ObjRef::Default(q, c) => {
                let (a, b) = (column(f, q, c), column(t, q, c));
                if a.default != b.default {
                    out.push(Statement::new(format!(
                        "ALTER TABLE {q} ALTER COLUMN {} SET DEFAULT {}",
                        ident(c),
                        b.default.as_deref().unwrap_or("NULL")
                    )));
                }
            }
            ObjRef::Constraint(q, n) => {
                let (a, b) = (&f.tables[q].constraints[n], &t.tables[q].constraints[n]);
                out.extend(sql::comment(
                    &format!("CONSTRAINT {} ON {q}", ident(n)),
                    a.comment.as_ref(),
                    b.comment.as_ref(),
                ));
            }
            ObjRef::Index(q) => {
                let (a, b) = (&f.indexes[q], &t.indexes[q]);
                out.extend(sql::comment(
                    &format!("INDEX {q}"),
                    a.comment.as_ref(),
                    b.comment.as_ref(),
                ));
            }
            ObjRef::View(q) => {
                let (a, b) = (&f.views[q], &t.views[q]);
                let kind = sql::view_kind(b);
                let on = format!("{kind} {q}");
                out.extend(options_changes(&on, &a.options, &b.options));
                out.extend(sql::owner(&on, &a.owner, &b.owner));
                out.extend(self.regrants(
                    AclKind::Table,
                    &format!("TABLE {q}"),
                    (&a.acl, &a.owner),
                    (&b.acl, &b.owner),
                ));
                out.extend(sql::comment(&on, a.comment.as_ref(), b.comment.as_ref()));
                let columns: BTreeSet<&String> = a
                    .column_comments
                    .keys()
                    .chain(b.column_comments.keys())
                    .collect();
                for c in columns {
                    out.extend(sql::comment(
                        &format!("COLUMN {q}.{}", ident(c)),
                        a.column_comments.get(c),
                        b.column_comments.get(c),
                    ));
                }
            }
            ObjRef::Function(k) => {
                let (a, b) = (&f.functions[k], &t.functions[k]);
                let on = format!("{} {k}", sql::function_kind(b));
                if a.definition != b.definition {
                    out.push(Statement::new(b.definition.clone()));
                }
                out.extend(sql::owner(&on, &a.owner, &b.owner));
                out.extend(self.regrants(
                    AclKind::Function,
                    &on,
                    (&a.acl, &a.owner),
                    (&b.acl, &b.owner),
                ));
                out.extend(sql::comment(&on, a.comment.as_ref(), b.comment.as_ref()));
            }
            ObjRef::Trigger(q, n) => {
                let key = (q.clone(), n.clone());
                let (a, b) = (&f.triggers[&key], &t.triggers[&key]);
                if a.enabled != b.enabled {
                    out.push(Statement::new(sql::trigger_state(q, n, b.enabled)));
                }
                out.extend(sql::comment(
                    &format!("TRIGGER {} ON {q}", ident(n)),
                    a.comment.as_ref(),
                    b.comment.as_ref(),
                ));
            }
            ObjRef::Policy(q, n) => {
                let key = (q.clone(), n.clone());
                let (a, b) = (&f.policies[&key], &t.policies[&key]);
                out.extend(sql::comment(
                    &format!("POLICY {} ON {q}", ident(n)),
                    a.comment.as_ref(),
                    b.comment.as_ref(),
                ));
            }
            ObjRef::Publication(p) => {
                let (a, b) = (&f.publications[p], &t.publications[p]);
                if a.publish != b.publish || a.via_root != b.via_root {
                    out.push(Statement::new(sql::set_publication_options(p, b)));
                }
                for (table, pt) in &a.tables {
                    let gone = !b.tables.contains_key(table) || b.tables.get(table) != Some(pt);
                    // A table dropped leaves its publications by itself.
                    if gone && t.tables.contains_key(table) {
                        out.push(Statement::new(format!(
                            "ALTER PUBLICATION {} DROP TABLE {table}",
                            ident(p)
                        )));
                    }
                }
                for (table, pt) in &b.tables {
                    if a.tables.get(table) != Some(pt) {
                        out.push(Statement::new(sql::publish_table(p, table, pt)));
                    }
                }
                for s in a.schemas.difference(&b.schemas) {
                    out.push(Statement::new(format!(
                        "ALTER PUBLICATION {} DROP TABLES IN SCHEMA {}",
                        ident(p),
                        ident(s)
                    )));
                }
                for s in b.schemas.difference(&a.schemas) {
                    out.push(Statement::new(format!(
                        "ALTER PUBLICATION {} ADD TABLES IN SCHEMA {}",
                        ident(p),
                        ident(s)
                    )));
                }
                out.extend(sql::comment(
                    &format!("PUBLICATION {}", ident(p)),
                    a.comment.as_ref(),
                    b.comment.as_ref(),
                ));
            }
        }
        out
    }

    /// The kind of the replaced enum or domain a retyped column is of.
    fn renamed_type_of(&self, column: &ObjRef) -> Option<&TypeKind> {
        self.from
            .deps
            .range((column.clone(), ObjRef::Schema(String::new()))..)
            .take_while(|(a, _)| a == column)
            .find_map(|(_, b)| match b {
                ObjRef::Type(q) if self.renamed_types.contains(q) => {
                    self.to.types.get(q).map(|t| &t.kind)
                }
                _ => None,
            })
    }
}

fn column<'c>(cat: &'c Catalog, q: &QName, c: &str) -> &'c Column {
    cat.tables[q].column(c).expect("a column the catalog lists")
}

/// Row level security, forced or not, and the replica identity, from `a` (None: a new table)
/// to `b`.
fn table_flags(q: &QName, a: Option<&Table>, b: &Table) -> Vec<Statement> {
    let mut out = Vec::new();
    let (rls, force, identity) = match a {
        Some(a) => (a.rls, a.force_rls, a.replica_identity.clone()),
        None => (false, false, ('d', None)),
    };
    if rls != b.rls {
        let on = if b.rls { "ENABLE" } else { "DISABLE" };
        out.push(Statement::new(format!(
            "ALTER TABLE {q} {on} ROW LEVEL SECURITY"
        )));
    }
    if force != b.force_rls {
        let on = if b.force_rls { "FORCE" } else { "NO FORCE" };
        out.push(Statement::new(format!(
            "ALTER TABLE {q} {on} ROW LEVEL SECURITY"
        )));
    }
    if identity != b.replica_identity {
        let to = match &b.replica_identity {
            ('n', _) => "NOTHING".to_string(),
            ('f', _) => "FULL".to_string(),
            ('i', Some(index)) => format!("USING INDEX {}", ident(index)),
            _ => "DEFAULT".to_string(),
        };
        out.push(Statement::new(format!(
            "ALTER TABLE {q} REPLICA IDENTITY {to}"
        )));
    }
    out
}

/// `ALTER … SET (…)` and `RESET (…)` for storage parameters and view options.
fn options_changes(on: &str, a: &[String], b: &[String]) -> Vec<Statement> {
    let name = |o: &String| o.split('=').next().unwrap_or(o).to_string();
    let mut out = Vec::new();
    let reset: Vec<String> = a
        .iter()
        .map(name)
        .filter(|n| !b.iter().any(|o| name(o) == *n))
        .collect();
    if !reset.is_empty() {
        out.push(Statement::new(format!(
            "ALTER {on} RESET ({})",
            reset.join(", ")
        )));
    }
    let set: Vec<String> = b.iter().filter(|o| !a.contains(o)).cloned().collect();
    if !set.is_empty() {
        out.push(Statement::new(format!(
            "ALTER {on} SET ({})",
            set.join(", ")
        )));
    }
    out
}

/// In-place changes of an enum (labels added), a composite type (attributes) or a domain.
fn type_changes(q: &QName, a: &TypeKind, b: &TypeKind) -> Vec<Statement> {
    let mut out = Vec::new();
    match (a, b) {
        (TypeKind::Enum(old), TypeKind::Enum(new)) => {
            for (i, label) in new.iter().enumerate() {
                if old.contains(label) {
                    continue;
                }
                let place = match i.checked_sub(1).map(|p| &new[p]) {
                    Some(prev) => format!("AFTER {}", literal(prev)),
                    None => match new.iter().find(|l| old.contains(l)) {
                        Some(next) => format!("BEFORE {}", literal(next)),
                        None => String::new(),
                    },
                };
                out.push(Statement::new(
                    format!("ALTER TYPE {q} ADD VALUE {} {place}", literal(label))
                        .trim_end()
                        .to_string(),
                ));
            }
        }
        (TypeKind::Composite(old), TypeKind::Composite(new)) => {
            for o in old {
                if !new.iter().any(|n| n.name == o.name) {
                    out.push(Statement::new(format!(
                        "ALTER TYPE {q} DROP ATTRIBUTE {}",
                        ident(&o.name)
                    )));
                }
            }
            for n in new {
                match old.iter().find(|o| o.name == n.name) {
                    None => out.push(Statement::new(format!(
                        "ALTER TYPE {q} ADD ATTRIBUTE {}",
                        sql::attribute(n)
                    ))),
                    Some(o) if o != n => {
                        let collate = n
                            .collation
                            .as_ref()
                            .map(|c| format!(" COLLATE {c}"))
                            .unwrap_or_default();
                        out.push(Statement::new(format!(
                            "ALTER TYPE {q} ALTER ATTRIBUTE {} SET DATA TYPE {}{collate}",
                            ident(&n.name),
                            n.type_name
                        )));
                    }
                    Some(_) => {}
                }
            }
        }
        (TypeKind::Domain(old), TypeKind::Domain(new)) => {
            if old.default != new.default {
                out.push(Statement::new(match &new.default {
                    Some(d) => format!("ALTER DOMAIN {q} SET DEFAULT {d}"),
                    None => format!("ALTER DOMAIN {q} DROP DEFAULT"),
                }));
            }
            if old.not_null != new.not_null {
                let set = if new.not_null { "SET" } else { "DROP" };
                out.push(Statement::new(format!("ALTER DOMAIN {q} {set} NOT NULL")));
            }
            for (name, def) in &old.constraints {
                if new.constraints.get(name) != Some(def) {
                    out.push(Statement::new(format!(
                        "ALTER DOMAIN {q} DROP CONSTRAINT {}",
                        ident(name)
                    )));
                }
            }
            for (name, def) in &new.constraints {
                if old.constraints.get(name) != Some(def) {
                    out.push(Statement::new(format!(
                        "ALTER DOMAIN {q} ADD CONSTRAINT {} {def}",
                        ident(name)
                    )));
                }
            }
        }
        _ => {}
    }
    out
}

/// A topological order of `nodes` (`edges`: (first, then)), ties broken by `rank` and then
/// by name; a cycle is broken at its lowest-ranked node.
fn order(
    nodes: BTreeSet<Node>,
    edges: BTreeSet<(Node, Node)>,
    rank: impl Fn(&Node) -> u8,
) -> Vec<Node> {
    let mut waiting: BTreeMap<&Node, usize> = nodes.iter().map(|n| (n, 0)).collect();
    let mut next: BTreeMap<&Node, Vec<&Node>> = BTreeMap::new();
    for (a, b) in &edges {
        *waiting.get_mut(b).expect("an edge between nodes") += 1;
        next.entry(a).or_default().push(b);
    }
    let mut ready: BTreeSet<(u8, &Node)> = waiting
        .iter()
        .filter(|(_, w)| **w == 0)
        .map(|(n, _)| (rank(n), *n))
        .collect();
    let mut done: BTreeSet<&Node> = BTreeSet::new();
    let mut out = Vec::new();
    while done.len() < nodes.len() {
        let (_, n) = match ready.pop_first() {
            Some(x) => x,
            // A cycle: the lowest-ranked node still waiting goes first.
            None => waiting
                .iter()
                .filter(|(n, _)| !done.contains(*n))
                .map(|(n, _)| (rank(n), *n))
                .min()
                .expect("a node left"),
        };
        if !done.insert(n) {
            continue;
        }
        out.push(n.clone());
        for m in next.get(n).into_iter().flatten() {
            let w = waiting.get_mut(m).expect("a node");
            *w = w.saturating_sub(1);
            if *w == 0 && !done.contains(m) {
                ready.insert((rank(m), *m));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
