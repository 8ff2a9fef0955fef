//! `select`: columns, aliases, casts, JSON paths, aggregates and embedded resources.

use super::*;
use nom::{
    Parser,
    branch::alt,
    bytes::complete::{tag, take_while1},
    character::complete::char,
    combinator::{all_consuming, map, opt, value},
    multi::{many0, separated_list0, separated_list1},
    sequence::{delimited, preceded, terminated},
};

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
