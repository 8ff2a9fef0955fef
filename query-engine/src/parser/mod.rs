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
    combinator::{map, opt, recognize, value},
    multi::many0,
    sequence::{delimited, pair, preceded},
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
/// before the recursive grammar sees it. Returns how many are left open at the end.
fn check_nesting(what: &str, input: &str) -> Result<usize, ParseError> {
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
    Ok(depth)
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

mod filter;
mod order;
mod select;
#[cfg(test)]
mod tests;

pub use filter::{parse_field, parse_filter, parse_filter_list, parse_logic_tree};
pub use order::{parse_name_list, parse_order};
pub use select::parse_select;
