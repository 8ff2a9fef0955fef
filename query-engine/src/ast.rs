//! The parsed form of a PostgREST request's query string.

/// A column reference with an optional JSON path: `data->a->>b`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Field {
    pub name: String,
    pub json_path: Vec<JsonStep>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum JsonStep {
    /// `->key`: stays JSON.
    Arrow(JsonKey),
    /// `->>key`: becomes text.
    DoubleArrow(JsonKey),
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum JsonKey {
    Name(String),
    Index(i64),
}

impl Field {
    pub fn simple(name: &str) -> Self {
        Field {
            name: name.to_string(),
            json_path: vec![],
        }
    }

    /// The key PostgREST gives a selected JSON path: its last key.
    pub fn output_name(&self) -> String {
        match self.json_path.last() {
            None => self.name.clone(),
            Some(JsonStep::Arrow(k) | JsonStep::DoubleArrow(k)) => match k {
                JsonKey::Name(n) => n.clone(),
                JsonKey::Index(i) => i.to_string(),
            },
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum SelectItem {
    /// `*`
    Star,
    /// `alias:field::cast.aggregate()::cast`; `count()` is the field `*` counted.
    Column {
        field: Field,
        alias: Option<String>,
        cast: Option<String>,
        aggregate: Option<Aggregate>,
    },
    /// `alias:relation!hint!inner(select)`
    Embed(Embed),
}

/// An aggregate function over a selected column (PostgREST's `db-aggregates-enabled`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AggregateFn {
    Sum,
    Avg,
    Count,
    Max,
    Min,
}

impl AggregateFn {
    pub fn name(self) -> &'static str {
        match self {
            AggregateFn::Sum => "sum",
            AggregateFn::Avg => "avg",
            AggregateFn::Count => "count",
            AggregateFn::Max => "max",
            AggregateFn::Min => "min",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Aggregate {
    pub function: AggregateFn,
    /// A cast of the aggregated value (`amount.sum()::int`).
    pub cast: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Embed {
    pub alias: Option<String>,
    pub relation: String,
    pub hint: Option<String>,
    pub inner: bool,
    /// `...relation(cols)`: the embedded columns become the parent's own.
    pub spread: bool,
    pub select: Vec<SelectItem>,
}

impl Embed {
    /// The name filters and orders address this embed by, and its output key.
    pub fn label(&self) -> &str {
        self.alias.as_deref().unwrap_or(&self.relation)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Neq,
    Gt,
    Gte,
    Lt,
    Lte,
    Like,
    Ilike,
    Match,
    Imatch,
}

impl CmpOp {
    pub fn sql(self) -> &'static str {
        match self {
            CmpOp::Eq => "=",
            CmpOp::Neq => "<>",
            CmpOp::Gt => ">",
            CmpOp::Gte => ">=",
            CmpOp::Lt => "<",
            CmpOp::Lte => "<=",
            CmpOp::Like => "LIKE",
            CmpOp::Ilike => "ILIKE",
            CmpOp::Match => "~",
            CmpOp::Imatch => "~*",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Quantifier {
    Any,
    All,
}

impl Quantifier {
    pub fn sql(self) -> &'static str {
        match self {
            Quantifier::Any => "ANY",
            Quantifier::All => "ALL",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IsValue {
    Null,
    NotNull,
    True,
    False,
    Unknown,
}

impl IsValue {
    /// What follows `IS`.
    pub fn sql(self) -> &'static str {
        match self {
            IsValue::Null => "NULL",
            IsValue::NotNull => "NOT NULL",
            IsValue::True => "TRUE",
            IsValue::False => "FALSE",
            IsValue::Unknown => "UNKNOWN",
        }
    }
}

/// Operators whose right side is one value of the column's (array/range/json) type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SetOp {
    Contains,
    ContainedIn,
    Overlaps,
    StrictlyLeft,
    StrictlyRight,
    NotExtendRight,
    NotExtendLeft,
    Adjacent,
}

impl SetOp {
    pub fn sql(self) -> &'static str {
        match self {
            SetOp::Contains => "@>",
            SetOp::ContainedIn => "<@",
            SetOp::Overlaps => "&&",
            SetOp::StrictlyLeft => "<<",
            SetOp::StrictlyRight => ">>",
            SetOp::NotExtendRight => "&<",
            SetOp::NotExtendLeft => "&>",
            SetOp::Adjacent => "-|-",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FtsKind {
    Fts,
    Plain,
    Phrase,
    Websearch,
}

impl FtsKind {
    pub fn function(self) -> &'static str {
        match self {
            FtsKind::Fts => "to_tsquery",
            FtsKind::Plain => "plainto_tsquery",
            FtsKind::Phrase => "phraseto_tsquery",
            FtsKind::Websearch => "websearch_to_tsquery",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Operation {
    Compare(CmpOp, String),
    Quantified(CmpOp, Quantifier, Vec<String>),
    Is(IsValue),
    IsDistinct(String),
    In(Vec<String>),
    Set(SetOp, String),
    Fts {
        kind: FtsKind,
        language: Option<String>,
        query: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Filter {
    pub field: Field,
    pub negate: bool,
    pub op: Operation,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Logic {
    And,
    Or,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Condition {
    Filter(Filter),
    Tree {
        logic: Logic,
        negate: bool,
        children: Vec<Condition>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    Asc,
    Desc,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Nulls {
    First,
    Last,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct OrderTerm {
    pub field: Field,
    pub direction: Option<Direction>,
    pub nulls: Option<Nulls>,
}
