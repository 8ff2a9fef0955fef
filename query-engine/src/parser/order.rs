//! `order` terms and lists of names (`columns`, `on_conflict`).

use super::*;
use nom::{
    Parser,
    branch::alt,
    bytes::complete::tag,
    character::complete::char,
    combinator::{all_consuming, map, opt, value},
    multi::separated_list1,
    sequence::preceded,
};

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
