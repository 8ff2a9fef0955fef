//! The typed plan tree: what a request reads, writes or calls, resolved against the schema cache
//! but not yet SQL. The planner (`plan`) builds it; the renderer (`render`) turns it into one
//! statement. Like PostgREST's ReadPlan / MutatePlan / CallPlan.

use crate::ast::{Condition, OrderTerm, SelectItem};
use crate::request::{Count, MediaType, Resolution, Return};
use crate::schema::{ForeignKey, Function, Table};
use serde_json::{Map, Value};

/// How an embedded resource relates to its parent.
#[derive(Debug)]
pub enum Rel<'c> {
    /// The parent holds the foreign key (or the child's key is unique): one object or null.
    ToOne {
        fk: &'c ForeignKey,
        parent_holds_fk: bool,
    },
    /// The child holds the foreign key: an array.
    ToMany { fk: &'c ForeignKey },
    ManyToMany {
        junction: &'c Table,
        to_parent: &'c ForeignKey,
        to_child: &'c ForeignKey,
    },
    /// A computed relationship: a function taking the parent's row and returning rows of the
    /// child (one when it is not SETOF or declared `ROWS 1`).
    Computed { func: &'c Function, to_one: bool },
}

impl Rel<'_> {
    pub fn is_to_one(&self) -> bool {
        matches!(self, Rel::ToOne { .. } | Rel::Computed { to_one: true, .. })
    }
}

/// An embedded resource of a read.
#[derive(Debug)]
pub struct Child<'c> {
    pub label: String,
    pub rel: Rel<'c>,
    pub inner: bool,
    /// `rel()` with an empty select: joins (for filtering with !inner) but adds no key.
    pub hidden: bool,
    /// `...rel(cols)`: the child's columns become the parent's own.
    pub spread: bool,
    pub node: Node<'c>,
}

/// One level of a read: a relation, its selected columns and embedded children, and the
/// filters, order and page that apply to it.
#[derive(Debug)]
pub struct Node<'c> {
    /// The relation read (for relationships and column checks); none for a function's rows
    /// of a type that is no table.
    pub table: Option<&'c Table>,
    pub alias: String,
    pub columns: Vec<SelectItem>,
    pub children: Vec<Child<'c>>,
    pub conditions: Vec<Condition>,
    pub order: Vec<OrderTerm>,
    pub limit: Option<u64>,
    pub offset: Option<u64>,
}

impl Node<'_> {
    /// Whether this level computes aggregates (its own, or those a to-one spread lifts into it).
    pub fn aggregates(&self) -> bool {
        self.columns.iter().any(|c| {
            matches!(
                c,
                SelectItem::Column {
                    aggregate: Some(_),
                    ..
                }
            )
        }) || self
            .children
            .iter()
            .any(|c| c.spread && c.rel.is_to_one() && c.node.aggregates())
    }

    /// Whether any level of the tree uses an aggregate function.
    pub fn uses_aggregates(&self) -> bool {
        self.columns.iter().any(|c| {
            matches!(
                c,
                SelectItem::Column {
                    aggregate: Some(_),
                    ..
                }
            )
        }) || self.children.iter().any(|c| c.node.uses_aggregates())
    }
}

/// GET/HEAD on a table or view.
#[derive(Debug)]
pub struct ReadPlan<'c> {
    pub table: &'c Table,
    pub root: Node<'c>,
    pub count: Option<Count>,
    /// db-max-rows (an `estimated` count is exact up to it).
    pub max_rows: Option<u64>,
    pub media: MediaType,
    pub head: bool,
}

/// What an upsert does with a row whose key exists.
#[derive(Debug)]
pub struct Conflict {
    pub resolution: Resolution,
    pub keys: Vec<String>,
}

#[derive(Debug)]
pub enum Write {
    Insert {
        /// The body's rows as one JSON array text (a parameter).
        rows: String,
        columns: Vec<String>,
        /// `missing=default`: a key absent from a row takes the column default.
        missing_default: bool,
        conflict: Option<Conflict>,
        /// PUT: the primary key filters the body's row must match (else nothing is written).
        put: Vec<Condition>,
    },
    Update {
        rows: String,
        columns: Vec<String>,
        conditions: Vec<Condition>,
    },
    Delete {
        conditions: Vec<Condition>,
    },
}

/// POST/PATCH/DELETE on a table.
#[derive(Debug)]
pub struct MutatePlan<'c> {
    pub table: &'c Table,
    pub write: Write,
    pub return_: Return,
    /// The representation (`return=representation`), shaped by `select=` like a read of the
    /// written rows.
    pub representation: Option<Node<'c>>,
    /// A Location header for `return=headers-only` inserts.
    pub location: bool,
    pub media: MediaType,
}

/// How a function receives its arguments.
#[derive(Debug)]
pub enum CallArgs {
    None,
    /// Named arguments (a key `""` is a single unnamed parameter given positionally).
    Named(Map<String, Value>),
    /// The whole body is the single unnamed parameter, as text of its type.
    Whole(String),
}

/// A function call (`/rpc/name`).
#[derive(Debug)]
pub struct CallPlan<'c> {
    pub func: &'c Function,
    pub args: CallArgs,
    /// For functions returning rows: how they are read (filters, order, page, embeds).
    pub rows: Option<Node<'c>>,
    pub count: bool,
    pub media: MediaType,
    pub head: bool,
}

#[derive(Debug)]
pub enum ActionPlan<'c> {
    Read(ReadPlan<'c>),
    Mutate(MutatePlan<'c>),
    Call(CallPlan<'c>),
}
