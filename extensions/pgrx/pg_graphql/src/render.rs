//! The SQL of a selection: each field of `Query` or `Mutation` becomes one statement that builds
//! its whole answer as `jsonb` (nested connections and related records as correlated
//! subqueries), every value the request gives bound as a parameter (text, or a text array, cast
//! to the column's type), never written into the statement. Arguments are read and checked here,
//! with pg_graphql's messages, before anything runs.

use crate::document::{self, Fragments};
use crate::schema::{FieldKind, FilterOp, FnReturn, InputKind, Role, Schema};
use crate::value::{Val, Variables, coerce};
use base64::Engine;
use graphql_parser::query::Field as QField;
use serde_json::Value as Json;

/// A statement's parameter: text, or an array of text.
#[derive(Debug)]
pub enum Param {
    Text(Option<String>),
    TextArray(Vec<Option<String>>),
}

/// The SQL of one top-level field, with its parameters.
pub struct Statement {
    pub sql: String,
    pub params: Vec<Param>,
}

pub struct Renderer<'s, 'a> {
    pub schema: &'s Schema,
    pub fragments: &'s Fragments<'a>,
    pub vars: &'s Variables,
    params: Vec<Param>,
    blocks: usize,
}

/// `"name"`.
pub fn ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// `'text'` (as `quote_literal`: `E'…'` when it holds a backslash).
pub fn literal(text: &str) -> String {
    let quoted = text.replace('\'', "''");
    if quoted.contains('\\') {
        format!("E'{}'", quoted.replace('\\', "\\\\"))
    } else {
        format!("'{quoted}'")
    }
}

/// `jsonb_build_object(k1, v1, …)` of `(key, expression)` pairs, in chunks of 50 pairs joined
/// with `||` (the function takes at most 100 arguments).
fn object(pairs: &[(String, String)]) -> String {
    if pairs.is_empty() {
        return "pg_catalog.jsonb_build_object()".to_string();
    }
    pairs
        .chunks(50)
        .map(|chunk| {
            let args: Vec<String> = chunk
                .iter()
                .map(|(k, v)| format!("{}, {v}", literal(k)))
                .collect();
            format!("pg_catalog.jsonb_build_object({})", args.join(", "))
        })
        .collect::<Vec<_>>()
        .join(" || ")
}

/// A join between a related table's block and its parent's.
#[derive(Clone, Copy)]
struct Join<'b> {
    parent: &'b str,
    fk: usize,
    reverse: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Direction {
    AscNullsFirst,
    AscNullsLast,
    DescNullsFirst,
    DescNullsLast,
}

impl Direction {
    fn parse(s: &str) -> Result<Direction, String> {
        Ok(match s {
            "AscNullsFirst" => Direction::AscNullsFirst,
            "AscNullsLast" => Direction::AscNullsLast,
            "DescNullsFirst" => Direction::DescNullsFirst,
            "DescNullsLast" => Direction::DescNullsLast,
            _ => return Err(format!("Invalid order operation {s}")),
        })
    }
    fn reverse(self) -> Direction {
        match self {
            Direction::AscNullsFirst => Direction::DescNullsLast,
            Direction::AscNullsLast => Direction::DescNullsFirst,
            Direction::DescNullsFirst => Direction::AscNullsLast,
            Direction::DescNullsLast => Direction::AscNullsFirst,
        }
    }
    fn sql(self) -> &'static str {
        match self {
            Direction::AscNullsFirst => "asc nulls first",
            Direction::AscNullsLast => "asc nulls last",
            Direction::DescNullsFirst => "desc nulls first",
            Direction::DescNullsLast => "desc nulls last",
        }
    }
    fn is_asc(self) -> bool {
        matches!(self, Direction::AscNullsFirst | Direction::AscNullsLast)
    }
    fn nulls_first(self) -> bool {
        matches!(self, Direction::AscNullsFirst | Direction::DescNullsFirst)
    }
}

/// A filter, read from a `<Table>Filter` value.
enum Filter {
    Column {
        col: usize,
        op: FilterOp,
        value: Json,
    },
    NodeId(NodeId),
    And(Vec<Filter>),
    Or(Vec<Filter>),
    Not(Box<Filter>),
}

/// A decoded `nodeId`: `[schema, table, primary key values…]`.
pub struct NodeId {
    pub schema: String,
    pub table: String,
    pub values: Vec<Json>,
}

/// base64 as pg_graphql's cursors and node ids are written (padding optional).
fn decode_base64(s: &str) -> Option<Vec<u8>> {
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    const LENIENT: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    LENIENT.decode(s).ok()
}

pub fn parse_node_id(v: &Val) -> Result<NodeId, String> {
    let Val::Str(s) = v else {
        return Err("Invalid value passed to nodeId argument, Error 1".to_string());
    };
    let bytes =
        decode_base64(s).ok_or("Invalid value passed to nodeId argument. Error 2".to_string())?;
    let text = String::from_utf8(bytes)
        .map_err(|_| "Invalid value passed to nodeId argument. Error 3".to_string())?;
    let json: Json = serde_json::from_str(&text)
        .map_err(|_| "Invalid value passed to nodeId argument. Error 4".to_string())?;
    let Json::Array(items) = json else {
        return Err("Invalid value passed to nodeId argument. Error 10".to_string());
    };
    if items.len() < 3 {
        return Err("Invalid value passed to nodeId argument. Error 5".to_string());
    }
    let mut items = items.into_iter();
    let Some(Json::String(schema)) = items.next() else {
        return Err("Invalid value passed to nodeId argument. Error 6".to_string());
    };
    let Some(Json::String(table)) = items.next() else {
        return Err("Invalid value passed to nodeId argument. Error 7".to_string());
    };
    Ok(NodeId {
        schema,
        table,
        values: items.collect(),
    })
}

fn parse_cursor(s: &str) -> Result<Vec<Json>, String> {
    let bytes = decode_base64(s).ok_or("Failed to decode cursor, error 1")?;
    let text = String::from_utf8(bytes).map_err(|_| "Failed to decode cursor, error 2")?;
    match serde_json::from_str(&text).map_err(|_| "Failed to decode cursor, error 3")? {
        Json::Array(items) => Ok(items),
        _ => Err("Failed to decode cursor, error 4".to_string()),
    }
}

/// `Input contains extra keys [...]` for arguments the field does not take.
fn restrict(q: &QField<'_, String>, allowed: &[&str]) -> Result<(), String> {
    let extra: Vec<&str> = q
        .arguments
        .iter()
        .map(|(n, _)| n.as_str())
        .filter(|n| !allowed.contains(n))
        .collect();
    if extra.is_empty() {
        Ok(())
    } else {
        Err(format!("Input contains extra keys {extra:?}"))
    }
}

fn unsigned(v: Val, name: &str) -> Result<Option<u64>, String> {
    match v {
        Val::Absent | Val::Null => Ok(None),
        Val::Int(n) if n < 0 => Err(format!("`{name}` must be an unsigned integer")),
        Val::Int(n) => Ok(Some(n as u64)),
        _ => Err(format!("Internal Error: failed to parse validated {name}")),
    }
}

/// The text of a scalar JSON value, as a parameter.
fn text_of(v: &Json, in_array: bool) -> Result<Option<String>, String> {
    Ok(match v {
        Json::Null => None,
        Json::Bool(b) => Some(b.to_string()),
        Json::Number(n) => Some(n.to_string()),
        Json::String(s) => Some(s.clone()),
        Json::Array(_) => return Err("Unexpected array in input value array".to_string()),
        Json::Object(_) if in_array => {
            return Err("Unexpected object in input value array".to_string());
        }
        Json::Object(_) => return Err("Unexpected object in input value".to_string()),
    })
}

/// Output casts pg_graphql applies to a column's value: 64-bit integers and numerics as text
/// (JSON numbers would lose digits), JSON as its text.
fn output_cast(type_oid: u32) -> &'static str {
    match type_oid {
        20 | 1700 => "::text",
        114 | 3802 => " #>> '{}'",
        1016 | 199 | 3807 | 1231 => "::text[]",
        _ => "",
    }
}

impl<'s, 'a> Renderer<'s, 'a> {
    pub fn new(schema: &'s Schema, fragments: &'s Fragments<'a>, vars: &'s Variables) -> Self {
        Renderer {
            schema,
            fragments,
            vars,
            params: vec![],
            blocks: 0,
        }
    }

    /// The statement rendered so far: `select <expression>`.
    pub fn finish(self, expression: String) -> Statement {
        Statement {
            sql: format!("select {expression}"),
            params: self.params,
        }
    }

    pub fn finish_statement(self, sql: String) -> Statement {
        Statement {
            sql,
            params: self.params,
        }
    }

    fn block(&mut self) -> String {
        self.blocks += 1;
        format!("b{}", self.blocks)
    }

    /// `($n::type)`, `v` bound as parameter n.
    fn param(&mut self, v: &Json, cast: &str) -> Result<String, String> {
        let p = match v {
            Json::Array(items) => Param::TextArray(
                items
                    .iter()
                    .map(|i| text_of(i, true))
                    .collect::<Result<_, _>>()?,
            ),
            other => Param::Text(text_of(other, false)?),
        };
        self.params.push(p);
        Ok(format!("(${}::{cast})", self.params.len()))
    }

    /// The coerced value of argument `name` of `def` as the query gives it.
    fn arg(
        &self,
        def: &crate::schema::Field,
        q: &QField<'_, String>,
        name: &str,
    ) -> Result<Val, String> {
        let iv = def
            .arg(name)
            .ok_or_else(|| format!("Internal error 1: {name}"))?;
        let raw = match q.arguments.iter().find(|(n, _)| n == name) {
            Some((_, v)) => Val::from_ast(v, self.vars)?,
            None => Val::Absent,
        };
        coerce(self.schema, &iv.ty, &raw, None)
    }

    fn fields(
        &self,
        q: &QField<'a, String>,
        type_name: &str,
    ) -> Result<Vec<QField<'a, String>>, String> {
        document::fields(&q.selection_set, self.fragments, type_name, self.vars)
    }

    fn columns_of(&self, t: usize) -> String {
        self.schema
            .table(t)
            .columns
            .iter()
            .filter(|c| c.select)
            .map(|c| ident(&c.name))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn from(&self, t: usize) -> String {
        let table = self.schema.table(t);
        format!("{}.{}", ident(&table.schema), ident(&table.name))
    }

    /// `b.local = parent.referenced and …` for a block of the table `join` reaches.
    fn join(&self, block: &str, join: Option<Join>) -> String {
        let Some(j) = join else {
            return "true".to_string();
        };
        let fk = &self.schema.foreign_keys[j.fk];
        let (mine, my_table, theirs, their_table) = if j.reverse {
            (
                &fk.local_columns,
                fk.local,
                &fk.referenced_columns,
                fk.referenced,
            )
        } else {
            (
                &fk.referenced_columns,
                fk.referenced,
                &fk.local_columns,
                fk.local,
            )
        };
        let mut parts = vec!["true".to_string()];
        for (&m, &p) in mine.iter().zip(theirs) {
            parts.push(format!(
                "{block}.{} = {}.{}",
                ident(&self.schema.column(my_table, m).name),
                j.parent,
                ident(&self.schema.column(their_table, p).name)
            ));
        }
        parts.join(" and ")
    }

    fn primary_key(&self, t: usize) -> &'s [usize] {
        self.schema.tables[t]
            .primary_key
            .as_deref()
            .unwrap_or_default()
    }

    fn pk_tuple(&self, t: usize, block: &str) -> String {
        let cols: Vec<String> = self
            .primary_key(t)
            .iter()
            .map(|&c| format!("{block}.{}", ident(&self.schema.column(t, c).name)))
            .collect();
        format!("({})", cols.join(", "))
    }

    fn node_id_expr(&self, t: usize, block: &str) -> String {
        let table = self.schema.table(t);
        let cols: Vec<String> = self
            .primary_key(t)
            .iter()
            .map(|&c| format!("{block}.{}", ident(&self.schema.column(t, c).name)))
            .collect();
        format!(
            "pg_catalog.translate(pg_catalog.encode(pg_catalog.convert_to(pg_catalog.jsonb_build_array({}, {}, {})::text, 'utf-8'), 'base64'), E'\\n', '')",
            literal(&table.schema),
            literal(&table.name),
            cols.join(", ")
        )
    }

    fn cursor_expr(&self, t: usize, block: &str, order: &[(usize, Direction)]) -> String {
        let cols: Vec<String> = order
            .iter()
            .map(|(c, _)| {
                format!(
                    "pg_catalog.to_jsonb({block}.{})",
                    ident(&self.schema.column(t, *c).name)
                )
            })
            .collect();
        format!(
            "pg_catalog.translate(pg_catalog.encode(pg_catalog.convert_to(pg_catalog.jsonb_build_array({})::text, 'utf-8'), 'base64'), E'\\n', '')",
            cols.join(", ")
        )
    }

    fn order_sql(&self, t: usize, block: &str, order: &[(usize, Direction)]) -> String {
        order
            .iter()
            .map(|(c, d)| {
                format!(
                    "{block}.{} {}",
                    ident(&self.schema.column(t, *c).name),
                    d.sql()
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The value a column shows: enums through their mappings, big numbers and JSON as text.
    fn column_expr(&self, t: usize, c: usize, block: &str) -> String {
        let col = self.schema.column(t, c);
        let expr = format!("{block}.{}", ident(&col.name));
        if let Some(e) = self
            .schema
            .catalog
            .enums
            .iter()
            .position(|e| e.oid == col.type_oid)
            && let Some(mappings) = &self.schema.catalog.enums[e].directive.mappings
        {
            let cases: Vec<String> = mappings
                .iter()
                .map(|(sql, gql)| format!("when {expr} = {} then {}", literal(sql), literal(gql)))
                .collect();
            if !cases.is_empty() {
                return format!("case {} else {expr}::text end", cases.join(" "));
            }
        }
        format!("{expr}{}", output_cast(col.type_oid))
    }

    // ---- filters ------------------------------------------------------------------------

    fn read_filter(
        &self,
        def: &crate::schema::Field,
        q: &QField<'_, String>,
        t: usize,
    ) -> Result<Vec<Filter>, String> {
        let v = self.arg(def, q, "filter")?;
        self.filters(&v, t)
    }

    fn filters(&self, v: &Val, t: usize) -> Result<Vec<Filter>, String> {
        let type_name = format!("{}Filter", self.schema.tables[t].type_name);
        let def = self
            .schema
            .get(&type_name)
            .ok_or("Could not locate Filter Entity type")?;
        let entries = match v {
            Val::Absent | Val::Null => return Ok(vec![]),
            Val::Obj(entries) => entries,
            _ => return Err("Filter re-validation error".to_string()),
        };
        let mut out = vec![];
        for (k, ops) in entries {
            let iv = def
                .input_field(k)
                .ok_or("Filter re-validation error in filter_iv")?;
            match ops {
                Val::Absent | Val::Null => continue,
                Val::Obj(_) if k == "not" && iv.kind == InputKind::Plain => {
                    let inner = self.filters(ops, t)?;
                    if !inner.is_empty() {
                        out.push(Filter::Not(Box::new(Filter::And(inner))));
                    }
                }
                Val::Obj(op_values) => {
                    for (op_name, value) in op_values {
                        let op = FilterOp::parse(op_name)?;
                        if *value == Val::Absent {
                            continue;
                        }
                        out.push(match iv.kind {
                            InputKind::Column(col) => Filter::Column {
                                col,
                                op,
                                value: value.to_json()?,
                            },
                            InputKind::NodeId => Filter::NodeId(parse_node_id(value)?),
                            InputKind::Plain => {
                                return Err(
                                    "Filter type error, attempted filter on non-column".to_string()
                                );
                            }
                        });
                    }
                }
                Val::List(items) if (k == "and" || k == "or") && iv.kind == InputKind::Plain => {
                    if items.is_empty() {
                        continue;
                    }
                    let mut parts = vec![];
                    for item in items {
                        let inner = self.filters(item, t)?;
                        if !inner.is_empty() {
                            parts.push(Filter::And(inner));
                        }
                    }
                    out.push(if k == "and" {
                        Filter::And(parts)
                    } else {
                        Filter::Or(parts)
                    });
                }
                _ => return Err("Filter re-validation errror op_to_value map".to_string()),
            }
        }
        Ok(out)
    }

    fn where_sql(&mut self, filters: &[Filter], t: usize, block: &str) -> Result<String, String> {
        let mut parts = vec!["true".to_string()];
        for f in filters {
            parts.push(self.filter_sql(f, t, block)?);
        }
        Ok(parts.join(" and "))
    }

    fn filter_sql(&mut self, f: &Filter, t: usize, block: &str) -> Result<String, String> {
        Ok(match f {
            Filter::Column { col, op, value } => {
                let column = self.schema.column(t, *col);
                let expr = format!("{block}.{}", ident(&column.name));
                if *op == FilterOp::Is {
                    return match value {
                        Json::String(s) if s == "NULL" => Ok(format!("{expr} is null")),
                        Json::String(s) if s == "NOT_NULL" => Ok(format!("{expr} is not null")),
                        Json::String(_) => Err("Error transpiling Is filter value".to_string()),
                        _ => Err("Error transpiling Is filter value type".to_string()),
                    };
                }
                let cast = match op {
                    FilterOp::In
                    | FilterOp::Contains
                    | FilterOp::ContainedBy
                    | FilterOp::Overlaps => {
                        format!("{}[]", column.type_name)
                    }
                    _ => column.type_name.clone(),
                };
                let value = self.param(value, &cast)?;
                let sql_op = match op {
                    FilterOp::Eq => "=",
                    FilterOp::Neq => "<>",
                    FilterOp::Lt => "<",
                    FilterOp::Lte => "<=",
                    FilterOp::Gt => ">",
                    FilterOp::Gte => ">=",
                    FilterOp::In => "= any",
                    FilterOp::StartsWith => "^@",
                    FilterOp::Like => "like",
                    FilterOp::ILike => "ilike",
                    FilterOp::RegEx => "~",
                    FilterOp::IRegEx => "~*",
                    FilterOp::Contains => "@>",
                    FilterOp::ContainedBy => "<@",
                    FilterOp::Overlaps => "&&",
                    FilterOp::Is => unreachable!("handled above"),
                };
                format!("{expr} {sql_op} {value}")
            }
            Filter::NodeId(id) => self.node_id_condition(id, t, block)?,
            Filter::And(parts) | Filter::Or(parts) => {
                if parts.is_empty() {
                    return Ok("true".to_string());
                }
                let sep = if matches!(f, Filter::And(_)) {
                    " and "
                } else {
                    " or "
                };
                let sqls = parts
                    .iter()
                    .map(|p| self.filter_sql(p, t, block))
                    .collect::<Result<Vec<_>, _>>()?;
                format!("({})", sqls.join(sep))
            }
            Filter::Not(inner) => format!("not({})", self.filter_sql(inner, t, block)?),
        })
    }

    fn node_id_condition(&mut self, id: &NodeId, t: usize, block: &str) -> Result<String, String> {
        let table = self.schema.table(t);
        if (id.schema.as_str(), id.table.as_str()) != (table.schema.as_str(), table.name.as_str()) {
            return Err("nodeId belongs to a different collection".to_string());
        }
        let mut parts = vec![];
        for (&c, v) in self.primary_key(t).iter().zip(&id.values) {
            let col = self.schema.column(t, c);
            let name = ident(&col.name);
            let cast = col.type_name.clone();
            parts.push(format!("{block}.{name} = {}", self.param(v, &cast)?));
        }
        if parts.is_empty() {
            parts.push("false".to_string());
        }
        Ok(parts.join(" and "))
    }

    // ---- order and pagination ---------------------------------------------------------------

    fn read_order(
        &self,
        def: &crate::schema::Field,
        q: &QField<'_, String>,
        t: usize,
    ) -> Result<Vec<(usize, Direction)>, String> {
        let v = self.arg(def, q, "orderBy")?;
        let type_name = format!("{}OrderBy", self.schema.tables[t].type_name);
        let order_type = self
            .schema
            .get(&type_name)
            .ok_or("Could not locate OrderBy Entity type")?;
        let mut out = vec![];
        match v {
            Val::Absent | Val::Null => {}
            Val::List(items) => {
                for item in items {
                    match item {
                        Val::Absent | Val::Null => continue,
                        Val::Obj(entries) => {
                            for (k, d) in entries {
                                let dir = match d {
                                    Val::Absent | Val::Null => continue,
                                    Val::Str(s) => Direction::parse(&s)?,
                                    _ => return Err("Order re-validation error 6".to_string()),
                                };
                                match order_type.input_field(&k).map(|iv| iv.kind) {
                                    Some(InputKind::Column(c)) => out.push((c, dir)),
                                    Some(_) => {
                                        return Err("Order re-validation error 4".to_string());
                                    }
                                    None => return Err("Order re-validation error 3".to_string()),
                                }
                            }
                        }
                        _ => return Err("OrderBy re-validation errror 1".to_string()),
                    }
                }
            }
            _ => return Err("OrderBy re-validation errror".to_string()),
        }
        let pk = self.schema.tables[t]
            .primary_key
            .as_ref()
            .ok_or("Found table with no primary key")?;
        out.extend(pk.iter().map(|&c| (c, Direction::AscNullsLast)));
        Ok(out)
    }

    fn read_cursor(
        &self,
        def: &crate::schema::Field,
        q: &QField<'_, String>,
        name: &str,
    ) -> Result<Option<Vec<Json>>, String> {
        match self.arg(def, q, name)? {
            Val::Absent | Val::Null => Ok(None),
            Val::Str(s) => Ok(Some(parse_cursor(&s)?)),
            _ => Err("Cursor re-validation errror".to_string()),
        }
    }

    /// Rows strictly after `cursor` in `order`.
    fn after_cursor(
        &mut self,
        t: usize,
        block: &str,
        order: &[(usize, Direction)],
        cursor: &[Json],
    ) -> Result<String, String> {
        let Some((value, rest_cursor)) = cursor.split_first() else {
            return Ok("false".to_string());
        };
        let Some(((c, dir), rest_order)) = order.split_first() else {
            return Err("orderBy clause incompatible with pagination cursor".to_string());
        };
        let col = self.schema.column(t, *c);
        let expr = format!("{block}.{}", ident(&col.name));
        let cast = col.type_name.clone();
        let v = self.param(value, &cast)?;
        let rest = self.after_cursor(t, block, rest_order, rest_cursor)?;
        let op = if dir.is_asc() { ">" } else { "<" };
        let (nulls_after, nulls_first) = (!dir.nulls_first(), dir.nulls_first());
        Ok(format!(
            "(({expr} {op} {v}) or ({expr} is null and {v} is not null and {nulls_after}) \
             or ({expr} is not null and {v} is null and {nulls_first}) \
             or (({expr} = {v} or ({expr} is null and {v} is null)) and {rest}))"
        ))
    }

    // ---- connections --------------------------------------------------------------------------

    /// A connection of table `t` (related to a parent row through `join`, or of the rows a
    /// function call `source` returns, whose own arguments are `extra_allowed`): a `jsonb`
    /// expression.
    fn connection(
        &mut self,
        def: &crate::schema::Field,
        q: &QField<'a, String>,
        t: usize,
        join: Option<Join>,
        source: Option<&str>,
        extra_allowed: &[&str],
    ) -> Result<String, String> {
        let mut allowed = vec![
            "first", "last", "before", "after", "offset", "filter", "orderBy",
        ];
        allowed.extend_from_slice(extra_allowed);
        restrict(q, &allowed)?;
        let first = unsigned(self.arg(def, q, "first")?, "first")?;
        let last = unsigned(self.arg(def, q, "last")?, "last")?;
        let offset = unsigned(self.arg(def, q, "offset")?, "offset")?;
        let max_rows = self.schema.tables[t].max_rows;
        let before = self.read_cursor(def, q, "before")?;
        let after = self.read_cursor(def, q, "after")?;
        if first.is_some() && last.is_some() {
            return Err("only one of \"first\" and \"last\" may be provided".to_string());
        } else if before.is_some() && after.is_some() {
            return Err("only one of \"before\" and \"after\" may be provided".to_string());
        } else if first.is_some() && before.is_some() {
            return Err("\"first\" may only be used with \"after\"".to_string());
        } else if last.is_some() && after.is_some() {
            return Err("\"last\" may only be used with \"before\"".to_string());
        } else if offset.is_some() && (last.is_some() || before.is_some()) {
            return Err("\"offset\" may only be used with \"first\" and \"after\"".to_string());
        }
        let filters = self.read_filter(def, q, t)?;
        let order = self.read_order(def, q, t)?;
        let reverse = last.is_some() || before.is_some();
        let records_order: Vec<(usize, Direction)> = if reverse {
            order.iter().map(|(c, d)| (*c, d.reverse())).collect()
        } else {
            order.clone()
        };

        let b = self.block();
        let type_name = self.schema.tables[t].type_name.clone();
        let connection_type = format!("{type_name}Connection");
        let conn_def = self
            .schema
            .get(&connection_type)
            .ok_or("Encountered type without name in connection builder")?;

        let mut pairs = vec![];
        let (mut wants_next, mut wants_prev, mut wants_total) = (false, false, false);
        for sel in self.fields(q, &connection_type)? {
            let alias = document::key(&sel).to_string();
            let field_type = match sel.name.as_str() {
                "__typename" => {
                    pairs.push((alias, literal(&connection_type)));
                    continue;
                }
                name => conn_def
                    .field(name)
                    .ok_or("unknown field in connection")?
                    .ty
                    .name()
                    .to_string(),
            };
            match (sel.name.as_str(), field_type.as_str()) {
                ("edges", _) => {
                    let edge_type = format!("{type_name}Edge");
                    let mut edge_pairs = vec![];
                    for e in self.fields(&sel, &edge_type)? {
                        let ealias = document::key(&e).to_string();
                        match e.name.as_str() {
                            "cursor" => edge_pairs.push((ealias, self.cursor_expr(t, &b, &order))),
                            "node" => {
                                let node = self.node_object(&e, t, &b, &[])?;
                                edge_pairs.push((ealias, node));
                            }
                            "__typename" => edge_pairs.push((ealias, literal(&edge_type))),
                            _ => return Err("unknown field in edge".to_string()),
                        }
                    }
                    pairs.push((
                        alias,
                        format!(
                            "coalesce(pg_catalog.jsonb_agg({} order by {}), pg_catalog.jsonb_build_array())",
                            object(&edge_pairs),
                            self.order_sql(t, &b, &order)
                        ),
                    ));
                }
                ("pageInfo", _) => {
                    let mut page_pairs = vec![];
                    for p in self.fields(&sel, "PageInfo")? {
                        let palias = document::key(&p).to_string();
                        let expr = match p.name.as_str() {
                            "startCursor" | "endCursor" => {
                                let dir_order: Vec<(usize, Direction)> = if p.name == "startCursor"
                                {
                                    order.clone()
                                } else {
                                    order.iter().map(|(c, d)| (*c, d.reverse())).collect()
                                };
                                format!(
                                    "(pg_catalog.array_agg({} order by {}))[1]",
                                    self.cursor_expr(t, &b, &order),
                                    self.order_sql(t, &b, &dir_order)
                                )
                            }
                            "hasNextPage" => {
                                wants_next = true;
                                "coalesce(bool_and(__has_next_page.v), false)".to_string()
                            }
                            "hasPreviousPage" => {
                                wants_prev = true;
                                "coalesce(bool_and(__has_previous_page.v), false)".to_string()
                            }
                            "__typename" => literal("PageInfo"),
                            _ => return Err("unknown field in pageInfo".to_string()),
                        };
                        page_pairs.push((palias, expr));
                    }
                    pairs.push((alias, object(&page_pairs)));
                }
                ("totalCount", _) => {
                    wants_total = true;
                    pairs.push((alias, "coalesce(min(__total_count.c), 0)".to_string()));
                }
                _ => return Err("unexpected field type on connection".to_string()),
            }
        }

        let from = source.map_or_else(|| self.from(t), str::to_string);
        let join_sql = self.join(&b, join);
        let where_sql = self.where_sql(&filters, t, &b)?;
        let pagination = match before.as_ref().or(after.as_ref()) {
            Some(cursor) => self.after_cursor(t, &b, &records_order, cursor)?,
            None => "true".to_string(),
        };
        let limit = first.or(last).unwrap_or(max_rows).min(max_rows);
        let offset = offset.unwrap_or(0);
        let order_records = self.order_sql(t, &b, &records_order);
        let columns = self.columns_of(t);

        let plus_one = format!(
            "select count(*) > {limit} from (select 1 from {from} as {b} where {join_sql} and {where_sql} and {pagination} order by {order_records} limit {limit} + 1 offset {offset}) __p"
        );
        let minus_one = format!(
            "select coalesce(bool_and(not (__f.k = any(__seen.s))), false) \
             from (select {pk_b} from {from} as {b} where {join_sql} and {where_sql} order by {order_records} limit 1) __f(k) \
             left join (select pg_catalog.array_agg({pk_r}) from __records) __seen(s) on true",
            pk_b = self.pk_tuple(t, &b),
            pk_r = self.pk_tuple(t, "__records"),
        );
        let (mut next_sql, mut prev_sql) = if reverse {
            (minus_one, plus_one)
        } else {
            (plus_one, minus_one)
        };
        if !wants_next {
            next_sql = "select null::bool".to_string();
        }
        if !wants_prev {
            prev_sql = "select null::bool".to_string();
        }
        Ok(format!(
            "(with __records as (select {columns} from {from} as {b} where {join_sql} and {where_sql} and {pagination} order by {order_records} limit {limit} offset {offset}), \
             __total_count(c) as (select count(*) from {from} as {b} where {wants_total} and {join_sql} and {where_sql}), \
             __has_next_page(v) as ({next_sql}), \
             __has_previous_page(v) as ({prev_sql}) \
             select {obj} from __records as {b}, __total_count, __has_next_page, __has_previous_page)",
            obj = object(&pairs),
        ))
    }

    /// The `jsonb` object of a row of table `t` (aliased `block`) for the node selection `q`,
    /// which may have the arguments `allowed` (a function's) besides `nodeId`.
    fn node_object(
        &mut self,
        q: &QField<'a, String>,
        t: usize,
        block: &str,
        allowed: &[&str],
    ) -> Result<String, String> {
        let mut names = vec!["nodeId"];
        names.extend_from_slice(allowed);
        restrict(q, &names)?;
        let type_name = self.schema.tables[t].type_name.clone();
        let node_def = self
            .schema
            .node_type(t)
            .ok_or("Encountered type without name in node builder")?;
        let mut pairs = vec![];
        for sel in self.fields(q, &type_name)? {
            let alias = document::key(&sel).to_string();
            if sel.name == "__typename" {
                pairs.push((alias, literal(&type_name)));
                continue;
            }
            let f = node_def
                .field(&sel.name)
                .ok_or_else(|| format!("Unknown field '{}' on type '{}'", sel.name, type_name))?;
            let expr = match f.kind {
                FieldKind::Column(c) => self.column_expr(t, c, block),
                FieldKind::NodeId => self.node_id_expr(t, block),
                FieldKind::Relation { fk, reverse } => {
                    let other = if reverse {
                        self.schema.foreign_keys[fk].local
                    } else {
                        self.schema.foreign_keys[fk].referenced
                    };
                    let join = Join {
                        parent: block,
                        fk,
                        reverse,
                    };
                    if matches!(
                        self.schema.get(f.ty.name()).map(|d| d.role),
                        Some(Role::Connection(_))
                    ) {
                        let f = f.clone();
                        self.connection(&f, &sel, other, Some(join), None, &[])?
                    } else {
                        let b = self.block();
                        let obj = self.node_object(&sel, other, &b, &[])?;
                        format!(
                            "(select {obj} from {} as {b} where {})",
                            self.from(other),
                            self.join(&b, Some(join))
                        )
                    }
                }
                FieldKind::Function(i) => {
                    let f = f.clone();
                    let table = self.schema.table(t);
                    let call = format!(
                        "{}({block}::{}.{})",
                        self.function_name(i),
                        ident(&table.schema),
                        ident(&table.name)
                    );
                    self.function_result(&f, &sel, i, &call, &[])?
                }
                _ => return Err(format!("unexpected field type on node {}", f.name)),
            };
            pairs.push((alias, expr));
        }
        Ok(object(&pairs))
    }

    fn function_name(&self, i: usize) -> String {
        let f = &self.schema.catalog.functions[i];
        format!("{}.{}", ident(&f.schema), ident(&f.name))
    }

    /// What a function `call` returns for the selection `q`: a `jsonb` expression.
    fn function_result(
        &mut self,
        def: &crate::schema::Field,
        q: &QField<'a, String>,
        i: usize,
        call: &str,
        allowed: &[&str],
    ) -> Result<String, String> {
        let (_, ret) = self.schema.functions[i]
            .ret
            .clone()
            .ok_or("invalid return type from function")?;
        Ok(match ret {
            FnReturn::Scalar(oid) => {
                restrict(q, allowed)?;
                format!("pg_catalog.to_jsonb({call}{})", output_cast(oid))
            }
            FnReturn::Node(t) => {
                let b = self.block();
                let obj = self.node_object(q, t, &b, allowed)?;
                format!("(select {obj} from {call} as {b} where not ({b} is null))")
            }
            FnReturn::Connection(t) => self.connection(def, q, t, None, Some(call), allowed)?,
        })
    }

    /// A function of `Query` or `Mutation` called with the arguments the query gives it: the
    /// statement.
    pub fn function(
        &mut self,
        def: &crate::schema::Field,
        q: &QField<'a, String>,
        i: usize,
    ) -> Result<String, String> {
        let info = &self.schema.functions[i];
        let mut args = vec![];
        for a in &info.args {
            let v = self.arg(def, q, &a.graphql)?;
            if v != Val::Absent {
                let value = self.param(&v.to_json()?, &a.cast)?;
                args.push(format!("{} => {value}", ident(&a.sql)));
            }
        }
        let call = format!("{}({})", self.function_name(i), args.join(", "));
        let allowed: Vec<&str> = def.args.iter().map(|a| a.name.as_str()).collect();
        let expr = self.function_result(def, q, i, &call, &allowed)?;
        Ok(format!("select coalesce({expr}, null::jsonb)"))
    }

    // ---- entry points -----------------------------------------------------------------------

    /// `xCollection(...)` of `Query`.
    pub fn collection(
        &mut self,
        def: &crate::schema::Field,
        q: &QField<'a, String>,
        t: usize,
    ) -> Result<String, String> {
        self.connection(def, q, t, None, None, &[])
    }

    /// `node(nodeId: ...)` of `Query`.
    pub fn node(
        &mut self,
        def: &crate::schema::Field,
        q: &QField<'a, String>,
    ) -> Result<String, String> {
        restrict(q, &["nodeId"])?;
        let id = parse_node_id(&self.arg(def, q, "nodeId")?)?;
        let t = (0..self.schema.tables.len())
            .find(|&t| {
                let table = self.schema.table(t);
                self.schema.tables[t].selectable
                    && table.schema == id.schema
                    && table.name == id.table
            })
            .ok_or("Collection referenced by nodeId did not match any known collection")?;
        let b = self.block();
        let obj = self.node_object(q, t, &b, &[])?;
        let condition = self.node_id_condition(&id, t, &b)?;
        Ok(format!(
            "(select {obj} from {} as {b} where {condition})",
            self.from(t)
        ))
    }

    /// The selection of an insert, update or delete response, over the affected rows `b`.
    fn response(
        &mut self,
        q: &QField<'a, String>,
        t: usize,
        b: &str,
        type_name: &str,
        what: &str,
    ) -> Result<String, String> {
        let mut pairs = vec![];
        for sel in self.fields(q, type_name)? {
            let alias = document::key(&sel).to_string();
            let expr = match sel.name.as_str() {
                "affectedCount" => "count(*)".to_string(),
                "records" => format!(
                    "coalesce(pg_catalog.jsonb_agg({}), pg_catalog.jsonb_build_array())",
                    self.node_object(&sel, t, b, &[])?
                ),
                "__typename" => literal(type_name),
                _ => return Err(format!("unknown field in {what}")),
            };
            pairs.push((alias, expr));
        }
        Ok(object(&pairs))
    }

    pub fn insert(
        &mut self,
        def: &crate::schema::Field,
        q: &QField<'a, String>,
        t: usize,
    ) -> Result<String, String> {
        restrict(q, &["objects"])?;
        let objects = self.arg(def, q, "objects")?;
        let info = &self.schema.tables[t];
        let input = self
            .schema
            .get(&format!("{}InsertInput", info.type_name))
            .ok_or("Could not locate Insert Entity type")?;
        let mut rows: Vec<Vec<(usize, Option<Json>)>> = vec![];
        match objects {
            Val::Absent | Val::Null => {}
            Val::List(items) => {
                for item in items {
                    match item {
                        Val::Absent | Val::Null => continue,
                        Val::Obj(fields) => {
                            let mut row = vec![];
                            for (k, v) in fields {
                                match input.input_field(&k).map(|iv| iv.kind) {
                                    Some(InputKind::Column(c)) => row.push((
                                        c,
                                        if v == Val::Absent {
                                            None
                                        } else {
                                            Some(v.to_json()?)
                                        },
                                    )),
                                    Some(_) => {
                                        return Err("Insert re-validation error 4".to_string());
                                    }
                                    None => return Err("Insert re-validation error 3".to_string()),
                                }
                            }
                            rows.push(row);
                        }
                        _ => return Err("Insert re-validation errror 1".to_string()),
                    }
                }
            }
            _ => return Err("Insert re-validation errror".to_string()),
        }
        if rows.is_empty() {
            return Err("At least one record must be provided to objects".to_string());
        }
        // The columns any row names, in the table's order; a row that leaves one out gets its
        // default.
        let table = self.schema.table(t);
        let mut cols: Vec<usize> = (0..table.columns.len())
            .filter(|c| rows.iter().any(|r| r.iter().any(|(rc, _)| rc == c)))
            .collect();
        if cols.is_empty() {
            let first_input = input
                .input_fields
                .as_deref()
                .unwrap_or_default()
                .iter()
                .find_map(|iv| match iv.kind {
                    InputKind::Column(c) => Some(c),
                    _ => None,
                })
                .ok_or("At least one record must be provided to objects")?;
            cols.push(first_input);
        }
        let mut values = vec![];
        for row in &rows {
            let mut cells = vec![];
            for &c in &cols {
                cells.push(match row.iter().find(|(rc, _)| *rc == c) {
                    Some((_, Some(v))) => {
                        let cast = self.schema.column(t, c).type_name.clone();
                        self.param(v, &cast)?
                    }
                    _ => "default".to_string(),
                });
            }
            values.push(format!("({})", cells.join(", ")));
        }
        let b = self.block();
        let response_type = format!("{}InsertResponse", info.type_name);
        let obj = self.response(q, t, &b, &response_type, "insert")?;
        let col_list: Vec<String> = cols
            .iter()
            .map(|&c| ident(&self.schema.column(t, c).name))
            .collect();
        Ok(format!(
            "with affected as (insert into {}({}) values {} returning {}) select {obj} from affected as {b}",
            self.from(t),
            col_list.join(", "),
            values.join(", "),
            self.columns_of(t)
        ))
    }

    fn at_most(&self, def: &crate::schema::Field, q: &QField<'_, String>) -> i64 {
        match self.arg(def, q, "atMost") {
            Ok(Val::Int(n)) => n,
            _ => 1,
        }
    }

    /// The statement around an update's or delete's `impacted` rows, refusing more than
    /// `at_most` of them.
    fn guarded(&self, change: String, obj: &str, b: &str, at_most: i64, what: &str) -> String {
        format!(
            "with impacted as ({change}), \
             total(c) as (select count(*) from impacted), \
             req(res) as (select {obj} from impacted as {b} limit 1), \
             wrapper(res) as (select case when total.c > {at_most} then graphql.exception({})::jsonb else req.res end from total left join req on true limit 1) \
             select res from wrapper",
            literal(&format!("{what} impacts too many records"))
        )
    }

    pub fn update(
        &mut self,
        def: &crate::schema::Field,
        q: &QField<'a, String>,
        t: usize,
    ) -> Result<String, String> {
        restrict(q, &["set", "filter", "atMost"])?;
        let set = self.arg(def, q, "set")?;
        let info = &self.schema.tables[t];
        let input = self
            .schema
            .get(&format!("{}UpdateInput", info.type_name))
            .ok_or("Could not locate update entity type")?;
        let mut assignments: Vec<(usize, Json)> = vec![];
        match set {
            Val::Absent | Val::Null => {}
            Val::Obj(fields) => {
                for (k, v) in fields {
                    if v == Val::Absent {
                        continue;
                    }
                    match input.input_field(&k).map(|iv| iv.kind) {
                        Some(InputKind::Column(c)) => assignments.push((c, v.to_json()?)),
                        Some(_) => return Err("Update re-validation error 4".to_string()),
                        None => return Err("Update re-validation error 3".to_string()),
                    }
                }
            }
            _ => return Err("Update re-validation errror".to_string()),
        }
        if assignments.is_empty() {
            return Err("At least one mapping must be provided to set argument".to_string());
        }
        let filters = self.read_filter(def, q, t)?;
        let at_most = self.at_most(def, q);
        let b = self.block();
        let response_type = format!("{}UpdateResponse", info.type_name);
        let obj = self.response(q, t, &b, &response_type, "update")?;
        let mut set_sql = vec![];
        for (c, v) in &assignments {
            let col = self.schema.column(t, *c);
            let (name, cast) = (ident(&col.name), col.type_name.clone());
            set_sql.push(format!("{name} = {}", self.param(v, &cast)?));
        }
        let where_sql = self.where_sql(&filters, t, &b)?;
        let change = format!(
            "update {} as {b} set {} where {where_sql} returning {}",
            self.from(t),
            set_sql.join(", "),
            self.columns_of(t)
        );
        Ok(self.guarded(change, &obj, &b, at_most, "update"))
    }

    pub fn delete(
        &mut self,
        def: &crate::schema::Field,
        q: &QField<'a, String>,
        t: usize,
    ) -> Result<String, String> {
        restrict(q, &["filter", "atMost"])?;
        let filters = self.read_filter(def, q, t)?;
        let at_most = self.at_most(def, q);
        let b = self.block();
        let response_type = format!("{}DeleteResponse", self.schema.tables[t].type_name);
        let obj = self.response(q, t, &b, &response_type, "delete")?;
        let where_sql = self.where_sql(&filters, t, &b)?;
        let change = format!(
            "delete from {} as {b} where {where_sql} returning {}",
            self.from(t),
            self.columns_of(t)
        );
        Ok(self.guarded(change, &obj, &b, at_most, "delete"))
    }
}
