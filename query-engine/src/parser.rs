//! The PostgREST query grammar (select, filters, logic trees, order, columns) with nom.
//!
//! Errors carry the parameter, its text and the 1-based column where parsing stopped, and render
//! like PostgREST's `"failed to parse select parameter (id,)" (line 1, column 4)`.

use crate::ast::*;
use nom::{
    IResult, Parser,
    branch::alt,
    bytes::complete::{escaped_transform, is_not, tag, take_while1},
    character::complete::{char, digit1},
    combinator::{all_consuming, map, opt, recognize, value},
    multi::{many0, separated_list0, separated_list1},
    sequence::{delimited, pair, preceded, terminated},
};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("\"failed to parse {what} ({input})\" (line 1, column {column})")]
pub struct ParseError {
    pub what: String,
    pub input: String,
    pub column: usize,
    pub details: String,
}

type Res<'a, T> = IResult<&'a str, T>;

/// Deepest nesting of parentheses a `select` or a logic tree may have. The grammar is recursive;
/// this bound keeps any input from exhausting the stack (real requests nest a few levels).
pub const MAX_NESTING: usize = 20;

/// Refuses input whose parentheses (outside double quotes) nest deeper than [`MAX_NESTING`],
/// before the recursive grammar sees it.
fn check_nesting(what: &str, input: &str) -> Result<(), ParseError> {
    let mut depth = 0usize;
    let mut quoted = false;
    let mut escaped = false;
    for (i, c) in input.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            '(' if !quoted => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(ParseError {
                        what: what.to_string(),
                        input: input.chars().take(60).collect::<String>()
                            + if input.len() > 60 { "…" } else { "" },
                        column: input[..i].chars().count() + 1,
                        details: format!(
                            "nesting deeper than {MAX_NESTING} levels is not supported"
                        ),
                    });
                }
            }
            ')' if !quoted => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

fn fail_at(what: &str, input: &str, rest: &str, expecting: &str) -> ParseError {
    // A list stopped at a separator: the problem is what follows it.
    let rest = rest.strip_prefix(',').unwrap_or(rest);
    let offset = input.len() - rest.len();
    let details = match rest.chars().next() {
        Some(c) => format!("unexpected \"{c}\" expecting {expecting}"),
        None => format!("unexpected end of input expecting {expecting}"),
    };
    ParseError {
        what: what.to_string(),
        input: input.to_string(),
        column: input[..offset].chars().count() + 1,
        details,
    }
}

/// Runs `p` over the whole input, reporting where it stopped.
fn run<'a, T>(
    what: &str,
    expecting: &str,
    input: &'a str,
    mut p: impl Parser<&'a str, Output = T, Error = nom::error::Error<&'a str>>,
) -> Result<T, ParseError> {
    match p.parse(input) {
        Ok(("", v)) => Ok(v),
        Ok((rest, _)) => Err(fail_at(what, input, rest, expecting)),
        Err(nom::Err::Error(e) | nom::Err::Failure(e)) => {
            Err(fail_at(what, input, e.input, expecting))
        }
        Err(nom::Err::Incomplete(_)) => Err(fail_at(what, input, "", expecting)),
    }
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// An identifier: unquoted letters, digits, `_`, `$`, or a double-quoted name.
fn name(i: &str) -> Res<'_, String> {
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
        map(take_while1(is_name_char), str::to_string),
    ))
    .parse(i)
}

fn json_key(i: &str) -> Res<'_, JsonKey> {
    alt((
        map(recognize(pair(opt(char('-')), digit1)), |s: &str| {
            JsonKey::Index(s.parse().unwrap_or(0))
        }),
        map(name, JsonKey::Name),
    ))
    .parse(i)
}

fn json_step(i: &str) -> Res<'_, JsonStep> {
    alt((
        map(preceded(tag("->>"), json_key), JsonStep::DoubleArrow),
        map(preceded(tag("->"), json_key), JsonStep::Arrow),
    ))
    .parse(i)
}

pub(crate) fn field(i: &str) -> Res<'_, Field> {
    map(pair(name, many0(json_step)), |(name, json_path)| Field {
        name,
        json_path,
    })
    .parse(i)
}

fn cast(i: &str) -> Res<'_, String> {
    preceded(
        tag("::"),
        map(
            take_while1(|c: char| c.is_alphanumeric() || c == '_'),
            str::to_string,
        ),
    )
    .parse(i)
}

/// `alias:` but not the `::` of a cast.
fn alias(i: &str) -> Res<'_, String> {
    let (rest, n) = name(i)?;
    if rest.starts_with(':') && !rest.starts_with("::") {
        Ok((&rest[1..], n))
    } else {
        Err(nom::Err::Error(nom::error::Error::new(
            i,
            nom::error::ErrorKind::Char,
        )))
    }
}

fn embed(i: &str) -> Res<'_, SelectItem> {
    let (i, alias) = opt(alias).parse(i)?;
    let (i, spread) = opt(tag("...")).parse(i)?;
    let (i, relation) = name(i)?;
    let (i, hints) = many0(preceded(char('!'), name)).parse(i)?;
    let (i, select) = delimited(
        char('('),
        separated_list0(char(','), select_item),
        char(')'),
    )
    .parse(i)?;
    let mut hint = None;
    let mut inner = false;
    for h in hints {
        match h.as_str() {
            "inner" => inner = true,
            "left" => inner = false,
            _ => hint = Some(h),
        }
    }
    Ok((
        i,
        SelectItem::Embed(Embed {
            alias,
            relation,
            hint,
            inner,
            spread: spread.is_some(),
            select,
        }),
    ))
}

fn aggregate_fn(i: &str) -> Res<'_, AggregateFn> {
    terminated(
        alt((
            value(AggregateFn::Sum, tag("sum")),
            value(AggregateFn::Avg, tag("avg")),
            value(AggregateFn::Count, tag("count")),
            value(AggregateFn::Max, tag("max")),
            value(AggregateFn::Min, tag("min")),
        )),
        tag("()"),
    )
    .parse(i)
}

/// `alias:count()::cast`: all rows counted (before embeds, which `count()` also looks like).
fn count_all(i: &str) -> Res<'_, SelectItem> {
    map(
        (opt(alias), preceded(tag("count()"), opt(cast))),
        |(alias, cast)| SelectItem::Column {
            field: Field::simple("*"),
            alias,
            cast: None,
            aggregate: Some(Aggregate {
                function: AggregateFn::Count,
                cast,
            }),
        },
    )
    .parse(i)
}

/// `alias:field::cast.aggregate()::cast`.
fn column(i: &str) -> Res<'_, SelectItem> {
    map(
        (
            opt(alias),
            field,
            opt(cast),
            opt(preceded(char('.'), (aggregate_fn, opt(cast)))),
        ),
        |(alias, field, cast, agg)| SelectItem::Column {
            field,
            alias,
            cast,
            aggregate: agg.map(|(function, cast)| Aggregate { function, cast }),
        },
    )
    .parse(i)
}

fn select_item(i: &str) -> Res<'_, SelectItem> {
    alt((value(SelectItem::Star, char('*')), count_all, embed, column)).parse(i)
}

pub fn parse_select(input: &str) -> Result<Vec<SelectItem>, ParseError> {
    if input.is_empty() {
        return Ok(vec![SelectItem::Star]);
    }
    check_nesting("select parameter", input)?;
    run(
        "select parameter",
        "field name (* or [a..z0..9_$])",
        input,
        all_consuming(separated_list1(char(','), select_item)),
    )
}

// ---------------------------------------------------------------- filters

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

// ---------------------------------------------------------------- order, columns

fn order_term(i: &str) -> Res<'_, OrderTerm> {
    map(
        (
            field,
            opt(preceded(
                char('.'),
                alt((
                    value(Direction::Asc, tag("asc")),
                    value(Direction::Desc, tag("desc")),
                )),
            )),
            opt(preceded(
                char('.'),
                alt((
                    value(Nulls::First, tag("nullsfirst")),
                    value(Nulls::Last, tag("nullslast")),
                )),
            )),
        ),
        |(field, direction, nulls)| OrderTerm {
            field,
            direction,
            nulls,
        },
    )
    .parse(i)
}

pub fn parse_order(input: &str) -> Result<Vec<OrderTerm>, ParseError> {
    run(
        "order",
        "field name or direction (asc, desc, nullsfirst, nullslast)",
        input,
        all_consuming(separated_list1(char(','), order_term)),
    )
}

/// `columns=a,b` and `on_conflict=a,b`.
pub fn parse_name_list(what: &str, input: &str) -> Result<Vec<String>, ParseError> {
    run(
        what,
        "column name",
        input,
        all_consuming(separated_list1(char(','), name)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_is_bounded_before_the_grammar_recurses() {
        let deep = |n: usize| format!("{}id.is.null{}", "or(".repeat(n), ")".repeat(n));
        assert!(
            parse_logic_tree(Logic::Or, false, &format!("({})", deep(MAX_NESTING - 1))).is_ok()
        );
        let e = parse_logic_tree(Logic::Or, false, &format!("({})", deep(2500))).unwrap_err();
        // The 21st parenthesis: the leading one, then 19 more "or(" and the "(" of the 20th.
        assert_eq!(e.column, 1 + 19 * 3 + 3);
        assert!(
            e.details.contains("nesting deeper than 20 levels"),
            "{}",
            e.details
        );
        assert!(e.input.len() < 80);
        let embeds = format!("{}id{}", "categories(".repeat(5000), ")".repeat(5000));
        let e = parse_select(&embeds).unwrap_err();
        assert_eq!(e.what, "select parameter");
        // Parentheses inside quoted values do not count.
        let quoted = format!("(name.eq.\"{}\")", "(".repeat(100));
        assert!(parse_logic_tree(Logic::Or, false, &quoted).is_ok());
    }

    fn col(n: &str) -> SelectItem {
        SelectItem::Column {
            field: Field::simple(n),
            alias: None,
            cast: None,
            aggregate: None,
        }
    }

    #[test]
    fn select_columns_aliases_casts_and_json() {
        assert_eq!(parse_select("*").unwrap(), vec![SelectItem::Star]);
        assert_eq!(
            parse_select("id,name").unwrap(),
            vec![col("id"), col("name")]
        );
        assert_eq!(
            parse_select("price:base_price::text").unwrap(),
            vec![SelectItem::Column {
                field: Field::simple("base_price"),
                alias: Some("price".into()),
                cast: Some("text".into()),
                aggregate: None,
            }]
        );
        let s = parse_select("data->a->>b,x:data->0").unwrap();
        assert_eq!(
            s[0],
            SelectItem::Column {
                field: Field {
                    name: "data".into(),
                    json_path: vec![
                        JsonStep::Arrow(JsonKey::Name("a".into())),
                        JsonStep::DoubleArrow(JsonKey::Name("b".into()))
                    ]
                },
                alias: None,
                cast: None,
                aggregate: None,
            }
        );
        assert!(
            matches!(&s[1], SelectItem::Column { field, .. } if field.json_path == vec![JsonStep::Arrow(JsonKey::Index(0))])
        );
        assert_eq!(parse_select("\"my col\"").unwrap(), vec![col("my col")]);
    }

    #[test]
    fn select_embeds() {
        let s = parse_select(
            "*,category:categories!products_category_id_fkey!inner(id,name),product_categories()",
        )
        .unwrap();
        assert_eq!(s.len(), 3);
        match &s[1] {
            SelectItem::Embed(e) => {
                assert_eq!(e.alias.as_deref(), Some("category"));
                assert_eq!(e.relation, "categories");
                assert_eq!(e.hint.as_deref(), Some("products_category_id_fkey"));
                assert!(e.inner);
                assert_eq!(e.select, vec![col("id"), col("name")]);
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(&s[2], SelectItem::Embed(e) if e.select.is_empty()));
        let nested = parse_select("id,products(id,categories(slug))").unwrap();
        assert!(
            matches!(&nested[1], SelectItem::Embed(e) if matches!(&e.select[1], SelectItem::Embed(_)))
        );
    }

    #[test]
    fn select_errors_point_at_the_problem() {
        let e = parse_select("id,").unwrap_err();
        assert_eq!(e.column, 4);
        assert_eq!(
            e.to_string(),
            "\"failed to parse select parameter (id,)\" (line 1, column 4)"
        );
        assert_eq!(
            e.details,
            "unexpected end of input expecting field name (* or [a..z0..9_$])"
        );
        let e = parse_select("id,name)").unwrap_err();
        assert_eq!(e.column, 8);
        assert!(e.details.contains("unexpected \")\""));
        assert!(parse_select("categories(id").is_err());
    }

    #[test]
    fn filters() {
        let f = parse_filter("id", "eq.5").unwrap();
        assert_eq!(f.op, Operation::Compare(CmpOp::Eq, "5".into()));
        let f = parse_filter("name", "ilike.%foo bar, (baz)%").unwrap();
        assert_eq!(
            f.op,
            Operation::Compare(CmpOp::Ilike, "%foo bar, (baz)%".into())
        );
        let f = parse_filter("c", "not.is.null").unwrap();
        assert!(f.negate);
        assert_eq!(f.op, Operation::Is(IsValue::Null));
        let f = parse_filter("id", "in.(x,\"y,z\",3)").unwrap();
        assert_eq!(
            f.op,
            Operation::In(vec!["x".into(), "y,z".into(), "3".into()])
        );
        assert_eq!(
            parse_filter("id", "in.()").unwrap().op,
            Operation::In(vec![])
        );
        let f = parse_filter("name", "like(any).{a*,b*}").unwrap();
        assert_eq!(
            f.op,
            Operation::Quantified(CmpOp::Like, Quantifier::Any, vec!["a*".into(), "b*".into()])
        );
        let f = parse_filter("tags", "cs.{a,b}").unwrap();
        assert_eq!(f.op, Operation::Set(SetOp::Contains, "{a,b}".into()));
        let f = parse_filter("doc", "fts(english).cat & dog").unwrap();
        assert_eq!(
            f.op,
            Operation::Fts {
                kind: FtsKind::Fts,
                language: Some("english".into()),
                query: "cat & dog".into()
            }
        );
        assert_eq!(
            parse_filter("doc", "wfts.cat").unwrap().op,
            Operation::Fts {
                kind: FtsKind::Websearch,
                language: None,
                query: "cat".into()
            }
        );
        assert_eq!(
            parse_filter("n", "gte.3").unwrap().op,
            Operation::Compare(CmpOp::Gte, "3".into())
        );
        assert_eq!(
            parse_filter("n", "isdistinct.3").unwrap().op,
            Operation::IsDistinct("3".into())
        );
        assert_eq!(
            parse_filter("r", "adj.[1,2)").unwrap().op,
            Operation::Set(SetOp::Adjacent, "[1,2)".into())
        );
        assert_eq!(
            parse_filter("r", "nxl.[1,2)").unwrap().op,
            Operation::Set(SetOp::NotExtendLeft, "[1,2)".into())
        );
        let f = parse_filter("data->>a", "eq.1").unwrap();
        assert_eq!(f.field.json_path.len(), 1);
    }

    #[test]
    fn filter_errors() {
        let e = parse_filter("id", "noop.0").unwrap_err();
        assert_eq!(
            e.to_string(),
            "\"failed to parse filter (noop.0)\" (line 1, column 1)"
        );
        assert!(e.details.starts_with("unexpected \"n\" expecting operator"));
        assert!(parse_filter("id", "is.maybe").is_err());
        assert!(parse_filter("id", "in.(1,2").is_err());
        assert!(parse_filter("id", "eq").is_err());
    }

    #[test]
    fn logic_trees() {
        let t = parse_logic_tree(Logic::Or, false, "(a.eq.1,b.gt.2)").unwrap();
        let Condition::Tree {
            logic, children, ..
        } = t
        else {
            panic!()
        };
        assert_eq!(logic, Logic::Or);
        assert_eq!(children.len(), 2);
        let t = parse_logic_tree(
            Logic::And,
            false,
            "(name.eq.\"a,b)\",id.in.(1,2),not.or(c.is.null,d.like.*x*),r.cs.{1,2})",
        )
        .unwrap();
        let Condition::Tree { children, .. } = t else {
            panic!()
        };
        assert_eq!(children.len(), 4);
        assert!(
            matches!(&children[0], Condition::Filter(f) if f.op == Operation::Compare(CmpOp::Eq, "a,b)".into()))
        );
        assert!(
            matches!(&children[2], Condition::Tree { logic: Logic::Or, negate: true, children } if children.len() == 2)
        );
        assert!(
            matches!(&children[3], Condition::Filter(f) if f.op == Operation::Set(SetOp::Contains, "{1,2}".into()))
        );
        let e = parse_logic_tree(Logic::Or, false, "(a.eq.1,").unwrap_err();
        assert_eq!(e.column, 9);
        assert!(parse_logic_tree(Logic::Or, false, "a.eq.1").is_err());
    }

    #[test]
    fn order_terms() {
        let o = parse_order("order_by.desc.nullsfirst,name.asc,id").unwrap();
        assert_eq!(o.len(), 3);
        assert_eq!(o[0].direction, Some(Direction::Desc));
        assert_eq!(o[0].nulls, Some(Nulls::First));
        assert_eq!(o[2].direction, None);
        assert!(parse_order("name.sideways").is_err());
        assert_eq!(
            parse_name_list("columns", "\"a\",\"b\"").unwrap(),
            vec!["a", "b"]
        );
    }
}
