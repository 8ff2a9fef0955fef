//! The HTTP-level parts of a request (method, query pairs, Prefer, Accept, Range, profiles) read
//! into a typed [`ApiRequest`].

use crate::ast::*;
use crate::error::ApiError;
use crate::error::Pgrst;
use crate::parser;

mod media;
pub use media::{Explain, MediaType, negotiate};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    Get,
    Head,
    Post,
    Put,
    Patch,
    Delete,
}

impl Method {
    pub fn parse(m: &str) -> Option<Method> {
        [
            Method::Get,
            Method::Head,
            Method::Post,
            Method::Put,
            Method::Patch,
            Method::Delete,
        ]
        .into_iter()
        .find(|x| x.name() == m)
    }

    pub fn name(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Head => "HEAD",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Patch => "PATCH",
            Method::Delete => "DELETE",
        }
    }

    pub fn is_read(self) -> bool {
        matches!(self, Method::Get | Method::Head)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resource {
    Table(String),
    Rpc(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Return {
    Minimal,
    HeadersOnly,
    Representation,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Count {
    Exact,
    Planned,
    Estimated,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Resolution {
    MergeDuplicates,
    IgnoreDuplicates,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Preferences {
    pub return_: Option<Return>,
    pub count: Option<Count>,
    pub resolution: Option<Resolution>,
    pub missing_default: bool,
    /// `tx=rollback` (honoured only where db-tx-end allows overriding).
    pub tx_rollback: bool,
    /// `tx=commit`.
    pub tx_commit: bool,
    /// `handling=strict`: unknown preferences are an error and `max-affected` is enforced.
    pub strict: bool,
    /// `max-affected=N`, honoured with `handling=strict`.
    pub max_affected: Option<i64>,
    /// `timezone=…`: the transaction's TimeZone (PostgreSQL refuses an unknown one).
    pub timezone: Option<String>,
    /// Tokens PostgREST does not know (PGRST122 with `handling=strict`).
    pub invalid: Vec<String>,
    /// The preferences honoured, echoed in `Preference-Applied`, in PostgREST's order.
    pub applied: Vec<String>,
}

impl Preferences {
    /// PGRST122 when `handling=strict` meets a preference PostgREST does not know.
    pub fn check_strict(&self) -> Result<(), ApiError> {
        if self.strict && !self.invalid.is_empty() {
            return Err(ApiError::pgrst(
                Pgrst::InvalidPreferences,
                "Invalid preferences given with handling=strict",
            )
            .details(format!("Invalid preferences: {}", self.invalid.join(", "))));
        }
        Ok(())
    }

    /// The `max-affected` limit in force (only with `handling=strict`, as PostgREST).
    pub fn affected_limit(&self) -> Option<i64> {
        self.max_affected.filter(|_| self.strict)
    }
}

/// Parses one or several `Prefer` headers (tokens joined by commas, as supabase-js sends them)
/// as PostgREST does: for each kind of preference the first known token counts.
pub fn parse_prefer<'a>(headers: impl IntoIterator<Item = &'a str>) -> Preferences {
    let tokens: Vec<&str> = headers
        .into_iter()
        .flat_map(|h| h.split(','))
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .collect();
    // Each kind of preference with the tokens PostgREST accepts for it.
    const KINDS: [&[&str]; 6] = [
        &[
            "resolution=merge-duplicates",
            "resolution=ignore-duplicates",
        ],
        &["missing=default", "missing=null"],
        &[
            "return=representation",
            "return=minimal",
            "return=headers-only",
        ],
        &["count=exact", "count=planned", "count=estimated"],
        &["tx=commit", "tx=rollback"],
        &["handling=strict", "handling=lenient"],
    ];
    let [resolution, missing, return_, count, tx, handling] = KINDS.map(|options| {
        tokens
            .iter()
            .find_map(|t| options.iter().find(|o| **o == *t).copied())
    });
    let max_affected = tokens
        .iter()
        .find_map(|t| t.strip_prefix("max-affected="))
        .and_then(|n| n.parse::<i64>().ok());
    let timezone = tokens
        .iter()
        .find_map(|t| t.strip_prefix("timezone="))
        .map(str::to_string);
    let strict = handling == Some("handling=strict");
    let mut applied: Vec<String> = [resolution, missing, return_, count, tx, handling]
        .into_iter()
        .flatten()
        .map(str::to_string)
        .collect();
    if let Some(tz) = &timezone {
        applied.push(format!("timezone={tz}"));
    }
    if strict && let Some(n) = max_affected {
        applied.push(format!("max-affected={n}"));
    }
    Preferences {
        return_: return_.map(|r| match r {
            "return=representation" => Return::Representation,
            "return=headers-only" => Return::HeadersOnly,
            _ => Return::Minimal,
        }),
        count: count.map(|c| match c {
            "count=exact" => Count::Exact,
            "count=planned" => Count::Planned,
            _ => Count::Estimated,
        }),
        resolution: resolution.map(|r| {
            if r == "resolution=merge-duplicates" {
                Resolution::MergeDuplicates
            } else {
                Resolution::IgnoreDuplicates
            }
        }),
        missing_default: missing == Some("missing=default"),
        tx_rollback: tx == Some("tx=rollback"),
        tx_commit: tx == Some("tx=commit"),
        strict,
        max_affected,
        timezone,
        invalid: tokens
            .iter()
            .filter(|t| {
                !KINDS.iter().any(|k| k.contains(t))
                    && !t.starts_with("timezone=")
                    && !t.starts_with("max-affected=")
            })
            .map(|t| t.to_string())
            .collect(),
        applied,
    }
}

/// `Range: 0-9` → (offset, limit).
pub fn parse_range(range: &str) -> Option<(u64, Option<u64>)> {
    let spec = range.trim().strip_prefix("items=").unwrap_or(range.trim());
    let (a, b) = spec.split_once('-')?;
    let from: u64 = a.trim().parse().ok()?;
    let b = b.trim();
    if b.is_empty() {
        return Some((from, None));
    }
    let to: u64 = b.parse().ok()?;
    // `0-18446744073709551615` asks for everything: no limit rather than an overflow.
    (to >= from).then(|| (from, (to - from).checked_add(1)))
}

/// A filter, order or limit applies to the resource at this embed path ([] is the root).
pub type EmbedPath = Vec<String>;

#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct QueryParams {
    pub select: Vec<SelectItem>,
    pub conditions: Vec<(EmbedPath, Condition)>,
    pub order: Vec<(EmbedPath, Vec<OrderTerm>)>,
    pub limit: Vec<(EmbedPath, u64)>,
    pub offset: Vec<(EmbedPath, u64)>,
    pub columns: Option<Vec<String>>,
    pub on_conflict: Option<Vec<String>>,
    /// Parameters taken as function arguments (GET /rpc/fn?a=1).
    pub rpc_args: Vec<(String, String)>,
}

fn parse_u64(what: &str, v: &str) -> Result<u64, ApiError> {
    v.trim().parse().map_err(|_| {
        ApiError::pgrst(
            Pgrst::Parse,
            format!("\"failed to parse {what} parameter ({v})\" (line 1, column 1)"),
        )
        .details(format!(
            "unexpected \"{}\" expecting digit",
            v.chars().next().unwrap_or(' ')
        ))
    })
}

/// Sorts the query pairs into select, filters, logic trees, order, limits and the rest.
/// With `rpc_args` (GET /rpc), a parameter whose value is no filter (`q=rose`, not
/// `price=lt.5`) is a function argument, as PostgREST tells them apart.
pub fn parse_query(pairs: &[(String, String)], rpc_args: bool) -> Result<QueryParams, ApiError> {
    let mut q = QueryParams {
        select: vec![SelectItem::Star],
        ..Default::default()
    };
    for (key, value) in pairs {
        match key.as_str() {
            "select" => q.select = parser::parse_select(value)?,
            "columns" => q.columns = Some(parser::parse_name_list("columns parameter", value)?),
            "on_conflict" => {
                q.on_conflict = Some(parser::parse_name_list("on_conflict parameter", value)?)
            }
            _ => {
                // A key like `data->a.b` has no embed path; only plain names form one.
                let (path, last): (Vec<String>, String) = match key.rsplit_once('.') {
                    None => (vec![], key.clone()),
                    Some((head, _)) if head.contains("->") => (vec![], key.clone()),
                    Some((head, last)) => (
                        head.split('.').map(str::to_string).collect(),
                        last.to_string(),
                    ),
                };
                match last.as_str() {
                    "order" => q.order.push((path, parser::parse_order(value)?)),
                    "limit" => q.limit.push((path, parse_u64("limit", value)?)),
                    "offset" => q.offset.push((path, parse_u64("offset", value)?)),
                    "or" | "and" | "not.or" | "not.and" => {
                        q.conditions.push((path, logic_param(&last, value)?));
                    }
                    _ => {
                        // `not.or=(...)` arrives as path [..,"not"] + "or".
                        if (last == "or" || last == "and")
                            && path.last().is_some_and(|p| p == "not")
                        {
                            let mut path = path;
                            path.pop();
                            q.conditions
                                .push((path, logic_param(&format!("not.{last}"), value)?));
                        } else {
                            match parser::parse_filter(&last, value) {
                                Ok(f) => q.conditions.push((path, Condition::Filter(f))),
                                Err(_) if rpc_args => q.rpc_args.push((key.clone(), value.clone())),
                                Err(e) => return Err(e.into()),
                            }
                        }
                    }
                }
            }
        }
    }
    Ok(q)
}

fn logic_param(key: &str, value: &str) -> Result<Condition, ApiError> {
    let (negate, logic) = match key {
        "or" => (false, Logic::Or),
        "and" => (false, Logic::And),
        "not.or" => (true, Logic::Or),
        _ => (true, Logic::And),
    };
    Ok(parser::parse_logic_tree(logic, negate, value)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefer_tokens_joined_by_commas() {
        let p = parse_prefer([
            "resolution=ignore-duplicates, return=representation",
            "count=exact",
        ]);
        assert_eq!(p.resolution, Some(Resolution::IgnoreDuplicates));
        assert_eq!(p.return_, Some(Return::Representation));
        assert_eq!(p.count, Some(Count::Exact));
        assert_eq!(
            p.applied,
            vec![
                "resolution=ignore-duplicates",
                "return=representation",
                "count=exact"
            ]
        );
        assert!(parse_prefer(["tx=rollback, bogus=1"]).tx_rollback);
    }

    #[test]
    fn prefer_as_postgrest_reads_it() {
        // The first token of a kind counts; Preference-Applied follows PostgREST's order.
        let p = parse_prefer([
            "count=exact, return=minimal, return=representation, resolution=merge-duplicates",
        ]);
        assert_eq!(p.return_, Some(Return::Minimal));
        assert_eq!(
            p.applied,
            vec![
                "resolution=merge-duplicates",
                "return=minimal",
                "count=exact"
            ]
        );
        // Unknown tokens only matter with handling=strict, which also enables max-affected.
        let lenient = parse_prefer(["max-affected=5, anything, timezone=UTC"]);
        assert_eq!(lenient.invalid, vec!["anything"]);
        assert!(lenient.check_strict().is_ok());
        assert_eq!(lenient.affected_limit(), None);
        let strict = parse_prefer(["handling=strict, max-affected=5, anything, other=1"]);
        assert_eq!(strict.affected_limit(), Some(5));
        assert_eq!(strict.applied, vec!["handling=strict", "max-affected=5"]);
        let e = strict.check_strict().unwrap_err();
        assert_eq!(
            (e.status, e.code.as_str(), e.message.as_str()),
            (
                400,
                "PGRST122",
                "Invalid preferences given with handling=strict"
            )
        );
        assert_eq!(
            e.details_text().as_deref(),
            Some("Invalid preferences: anything, other=1")
        );
        assert!(
            parse_prefer(["handling=strict, max-affected=2"])
                .check_strict()
                .is_ok()
        );
    }

    #[test]
    fn accept_negotiation() {
        assert_eq!(negotiate(None, false).unwrap(), MediaType::Json);
        assert_eq!(negotiate(Some("*/*"), false).unwrap(), MediaType::Json);
        assert_eq!(
            negotiate(Some("application/vnd.pgrst.object+json"), false).unwrap(),
            MediaType::SingularJson
        );
        assert_eq!(negotiate(Some("text/csv"), false).unwrap(), MediaType::Csv);
        assert_eq!(
            negotiate(
                Some("application/vnd.pgrst.array+json;nulls=stripped"),
                false
            )
            .unwrap(),
            MediaType::JsonStripped
        );
        assert_eq!(
            negotiate(
                Some("Application/Vnd.Pgrst.Object+JSON; nulls=stripped"),
                false
            )
            .unwrap(),
            MediaType::SingularJsonStripped
        );
        assert_eq!(
            negotiate(Some("application/vnd.pgrst.array+json"), false).unwrap(),
            MediaType::Json
        );
        assert_eq!(
            negotiate(Some("application/geo+json"), false).unwrap(),
            MediaType::GeoJson
        );
        assert_eq!(
            negotiate(Some("image/png, application/json;q=0.5"), false).unwrap(),
            MediaType::Json
        );
        assert_eq!(
            negotiate(Some("image/png"), false).unwrap_err().code,
            "PGRST107"
        );
    }

    #[test]
    fn ranges() {
        assert_eq!(parse_range("0-9"), Some((0, Some(10))));
        assert_eq!(parse_range("items=5-"), Some((5, None)));
        assert_eq!(parse_range("0-18446744073709551615"), Some((0, None)));
        assert_eq!(parse_range("0-18446744073709551616"), None);
        assert_eq!(parse_range("9-0"), None);
    }

    #[test]
    fn query_sorting() {
        let pairs: Vec<(String, String)> = [
            ("select", "id,categories(name)"),
            ("is_available", "eq.true"),
            ("categories.name", "eq.Roses"),
            ("or", "(a.eq.1,b.eq.2)"),
            ("categories.order", "name.desc"),
            ("limit", "5"),
            ("categories.limit", "2"),
            ("columns", "\"a\",\"b\""),
        ]
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
        let q = parse_query(&pairs, false).unwrap();
        assert_eq!(q.conditions.len(), 3);
        assert_eq!(q.conditions[1].0, vec!["categories"]);
        assert_eq!(q.order[0].0, vec!["categories"]);
        assert_eq!(
            q.limit,
            vec![(vec![], 5), (vec!["categories".to_string()], 2)]
        );
        assert_eq!(q.columns, Some(vec!["a".into(), "b".into()]));
        let bad = parse_query(&[("limit".into(), "ten".into())], false).unwrap_err();
        assert_eq!(bad.code, "PGRST100");
    }
}
