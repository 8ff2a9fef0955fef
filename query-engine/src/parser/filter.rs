//! Filters (`op.value` with PostgREST's operators), logic trees (`and=(…)`, `or=(…)`) and
//! Realtime's comma-joined filter lists.

use super::*;
use nom::{
    Parser,
    branch::alt,
    bytes::complete::{escaped_transform, is_not, tag, take_while1},
    character::complete::char,
    combinator::{all_consuming, map, opt, value},
    multi::{separated_list0, separated_list1},
    sequence::{delimited, pair, preceded, terminated},
};

fn cmp_op(i: &str) -> Res<'_, CmpOp> {
    alt((
        value(CmpOp::Eq, tag("eq")),
        value(CmpOp::Neq, tag("neq")),
        value(CmpOp::Gte, tag("gte")),
        value(CmpOp::Gt, tag("gt")),
        value(CmpOp::Lte, tag("lte")),
        value(CmpOp::Lt, tag("lt")),
        value(CmpOp::Like, tag("like")),
        value(CmpOp::Ilike, tag("ilike")),
        value(CmpOp::Match, tag("match")),
        value(CmpOp::Imatch, tag("imatch")),
    ))
    .parse(i)
}

fn set_op(i: &str) -> Res<'_, SetOp> {
    alt((
        value(SetOp::Contains, tag("cs")),
        value(SetOp::ContainedIn, tag("cd")),
        value(SetOp::Overlaps, tag("ov")),
        value(SetOp::StrictlyLeft, tag("sl")),
        value(SetOp::StrictlyRight, tag("sr")),
        value(SetOp::NotExtendRight, tag("nxr")),
        value(SetOp::NotExtendLeft, tag("nxl")),
        value(SetOp::Adjacent, tag("adj")),
    ))
    .parse(i)
}

fn fts_kind(i: &str) -> Res<'_, FtsKind> {
    alt((
        value(FtsKind::Plain, tag("plfts")),
        value(FtsKind::Phrase, tag("phfts")),
        value(FtsKind::Websearch, tag("wfts")),
        value(FtsKind::Fts, tag("fts")),
    ))
    .parse(i)
}

/// One element of a `(a,"b,c")` or `{a,b}` list.
fn list_element(i: &str) -> Res<'_, String> {
    alt((
        map(
            delimited(
                char('"'),
                opt(escaped_transform(
                    is_not("\"\\"),
                    '\\',
                    alt((value("\"", char('"')), value("\\", char('\\')))),
                )),
                char('"'),
            ),
            |s: Option<String>| s.unwrap_or_default(),
        ),
        map(opt(is_not(",)}")), |s: Option<&str>| {
            s.unwrap_or("").to_string()
        }),
    ))
    .parse(i)
}

fn paren_list(i: &str) -> Res<'_, Vec<String>> {
    map(
        delimited(
            char('('),
            separated_list0(char(','), list_element),
            char(')'),
        ),
        drop_single_empty,
    )
    .parse(i)
}

fn brace_list(i: &str) -> Res<'_, Vec<String>> {
    map(
        delimited(
            char('{'),
            separated_list0(char(','), list_element),
            char('}'),
        ),
        drop_single_empty,
    )
    .parse(i)
}

/// `in.()` is the empty list, not a list of one empty string.
fn drop_single_empty(v: Vec<String>) -> Vec<String> {
    if v.len() == 1 && v[0].is_empty() {
        vec![]
    } else {
        v
    }
}

/// The part after `op.`: in a query parameter it runs to the end; inside a logic tree it stops
/// at `,` or `)` unless double-quoted or bracketed.
fn scalar_value(in_tree: bool) -> impl Fn(&str) -> Res<'_, String> {
    move |i: &str| {
        if !in_tree {
            return Ok(("", i.to_string()));
        }
        if i.starts_with('"') {
            return map(
                delimited(
                    char('"'),
                    opt(escaped_transform(
                        is_not("\"\\"),
                        '\\',
                        alt((value("\"", char('"')), value("\\", char('\\')))),
                    )),
                    char('"'),
                ),
                |s: Option<String>| s.unwrap_or_default(),
            )
            .parse(i);
        }
        // Brackets (ranges, arrays, json) may hold commas.
        let mut depth = 0i32;
        let mut end = i.len();
        for (idx, c) in i.char_indices() {
            match c {
                '(' | '{' | '[' => depth += 1,
                ')' | '}' | ']' if depth > 0 => depth -= 1,
                ',' | ')' if depth == 0 => {
                    end = idx;
                    break;
                }
                _ => {}
            }
        }
        Ok((&i[end..], i[..end].to_string()))
    }
}

fn is_value(i: &str) -> Res<'_, IsValue> {
    alt((
        value(IsValue::NotNull, tag("not_null")),
        value(IsValue::Null, tag("null")),
        value(IsValue::True, tag("true")),
        value(IsValue::False, tag("false")),
        value(IsValue::Unknown, tag("unknown")),
    ))
    .parse(i)
}

/// `[not.]op[(mod)].value`
fn operation(in_tree: bool) -> impl Fn(&str) -> Res<'_, (bool, Operation)> {
    move |i: &str| {
        let (i, negate) = map(opt(tag("not.")), |n| n.is_some()).parse(i)?;
        let (i, op) = alt((
            map(preceded(tag("is."), is_value), Operation::Is),
            map(
                preceded(tag("isdistinct."), scalar_value(in_tree)),
                Operation::IsDistinct,
            ),
            map(preceded(tag("in."), paren_list), Operation::In),
            map(
                (
                    fts_kind,
                    opt(delimited(
                        char('('),
                        map(
                            take_while1(|c: char| c.is_alphanumeric() || c == '_'),
                            str::to_string,
                        ),
                        char(')'),
                    )),
                    preceded(char('.'), scalar_value(in_tree)),
                ),
                |(kind, language, query)| Operation::Fts {
                    kind,
                    language,
                    query,
                },
            ),
            map(
                (
                    cmp_op,
                    delimited(
                        char('('),
                        alt((
                            value(Quantifier::Any, tag("any")),
                            value(Quantifier::All, tag("all")),
                        )),
                        char(')'),
                    ),
                    preceded(char('.'), alt((brace_list, paren_list))),
                ),
                |(op, q, list)| Operation::Quantified(op, q, list),
            ),
            map(
                pair(terminated(set_op, char('.')), scalar_value(in_tree)),
                |(op, v)| Operation::Set(op, v),
            ),
            map(
                pair(terminated(cmp_op, char('.')), scalar_value(in_tree)),
                |(op, v)| Operation::Compare(op, v),
            ),
        ))
        .parse(i)?;
        Ok((i, (negate, op)))
    }
}

/// Parses a filter's value side: `eq.5`, `not.in.(1,2)`, `fts(english).cat`.
pub fn parse_filter(field_text: &str, value_text: &str) -> Result<Filter, ParseError> {
    let (negate, op) = run(
        "filter",
        "operator (eq, gt, ...)",
        value_text,
        all_consuming(operation(false)),
    )
    .map_err(|mut e| {
        e.input = value_text.to_string();
        e
    })?;
    let field = parse_field(field_text)?;
    Ok(Filter { field, negate, op })
}

pub fn parse_field(text: &str) -> Result<Field, ParseError> {
    run("field", "field name", text, all_consuming(field))
}

/// A list of conditions as Supabase Realtime's `postgres_changes` filters write them:
/// `column=op.value` joined by commas, each value read as inside a logic tree (double-quoted
/// when it holds `,` or `)`). The operators and values are PostgREST's; which ones a consumer
/// evaluates is its own business.
pub fn parse_filter_list(input: &str) -> Result<Vec<Filter>, ParseError> {
    const WHAT: &str = "filter";
    if input.trim().is_empty() {
        return Ok(Vec::new());
    }
    if check_nesting(WHAT, input)? > 0 {
        return Err(fail_at(WHAT, input, "", "\")\""));
    }
    let condition = |i| {
        let (i, f) = terminated(field, char('=')).parse(i)?;
        let (i, (negate, op)) = operation(true)(i)?;
        Ok((
            i,
            Filter {
                field: f,
                negate,
                op,
            },
        ))
    };
    run(
        WHAT,
        "column=operator.value",
        input,
        separated_list1(char(','), condition),
    )
}

// ---------------------------------------------------------------- logic trees

fn tree_condition(i: &str) -> Res<'_, Condition> {
    alt((
        map(
            (
                map(opt(tag("not.")), |n| n.is_some()),
                alt((value(Logic::And, tag("and")), value(Logic::Or, tag("or")))),
                tree_children,
            ),
            |(negate, logic, children)| Condition::Tree {
                logic,
                negate,
                children,
            },
        ),
        map(
            pair(terminated(field, char('.')), operation(true)),
            |(field, (negate, op))| Condition::Filter(Filter { field, negate, op }),
        ),
    ))
    .parse(i)
}

fn tree_children(i: &str) -> Res<'_, Vec<Condition>> {
    delimited(
        char('('),
        separated_list1(char(','), tree_condition),
        char(')'),
    )
    .parse(i)
}

/// `or=(a.eq.1,and(b.gt.2,c.is.null))` given the key's logic (and negation) and the value.
pub fn parse_logic_tree(logic: Logic, negate: bool, input: &str) -> Result<Condition, ParseError> {
    check_nesting("logic tree", input)?;
    let children = run(
        "logic tree",
        "logic operator (and, or) or a filter",
        input,
        all_consuming(tree_children),
    )?;
    Ok(Condition::Tree {
        logic,
        negate,
        children,
    })
}
