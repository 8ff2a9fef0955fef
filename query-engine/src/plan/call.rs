//! Call plans: which overload a call means (as PostgREST's findProc), how its arguments are
//! passed, and how its rows are read.

use super::read::{attach_query, page, select_tree};
use super::tree::{CallArgs, CallPlan};
use super::{EngineConfig, Input};
use crate::error::ApiError;
use crate::error::Pgrst;
use crate::request::*;
use crate::schema::{Function, SchemaCache};
use serde_json::Value;

/// How a function's arguments arrive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Content {
    /// GET/HEAD: the query string.
    Query,
    /// POST with a JSON body (named arguments, or the body for one unnamed json/jsonb one).
    Json,
    /// POST with a raw body for one unnamed parameter of this type.
    Raw(&'static str),
}

/// Picks the overload a call means, as PostgREST's findProc: the overloads whose parameters
/// the given keys match; failing those, one taking a single unnamed parameter of the body's
/// type; more than one candidate is ambiguous (300 PGRST203), none is PGRST202.
fn resolve_function<'f>(
    overloads: &[&'f Function],
    schema: &str,
    name: &str,
    given: &[&str],
    content: Content,
) -> Result<&'f Function, ApiError> {
    let matching: Vec<&Function> = overloads
        .iter()
        .copied()
        .filter(|f| {
            if f.args.is_empty() {
                given.is_empty() && !matches!(content, Content::Raw(_))
            } else {
                f.accepts(given)
            }
        })
        .collect();
    let single_unnamed: Vec<&Function> = overloads
        .iter()
        .copied()
        .filter(|f| {
            f.args.len() == 1
                && f.args[0].name.is_empty()
                && match content {
                    Content::Json => matches!(f.args[0].data_type.as_str(), "json" | "jsonb"),
                    Content::Raw(t) => f.args[0].data_type == t,
                    Content::Query => false,
                }
        })
        .collect();
    let ambiguous = |fs: &[&Function]| {
        // Listed as PostgREST orders overloads: fewer parameters first, then by the
        // parameters' names and types.
        let mut fs = fs.to_vec();
        fs.sort_by_key(|f| {
            (
                f.args.len(),
                f.args
                    .iter()
                    .map(|a| (a.name.clone(), a.data_type.clone()))
                    .collect::<Vec<_>>(),
            )
        });
        let list: Vec<String> = fs
            .iter()
            .map(|f| {
                let params = f
                    .args
                    .iter()
                    .map(|a| format!("{} => {}", a.name, a.data_type))
                    .collect::<Vec<_>>()
                    .join(", ");
                format!("{}.{}({params})", f.schema, f.name)
            })
            .collect();
        let list = list.join(", ");
        ApiError::pgrst(Pgrst::AmbiguousFunction,
            format!("Could not choose the best candidate function between: {list}"),
        )
        .hint("Try renaming the parameters or the function itself in the database so function overloading can be resolved")
    };
    match (matching.as_slice(), single_unnamed.as_slice()) {
        ([f], _) | ([], [f]) => Ok(f),
        ([], []) => Err(no_function(schema, name, given, content)),
        ([], many) | (many, _) => Err(ambiguous(many)),
    }
}

/// PGRST202 with PostgREST's message and details.
fn no_function(schema: &str, name: &str, given: &[&str], content: Content) -> ApiError {
    let func = format!("{schema}.{name}");
    let keys = given.join(", ");
    let with_params = if given.is_empty() {
        " without parameters".to_string()
    } else if given.len() > 1 {
        format!(" with parameters {keys}")
    } else {
        format!(" with parameter {keys}")
    };
    // With a raw body PostgREST names no parameters; otherwise the keys, or "without".
    let named = if given.is_empty() {
        " without parameters".to_string()
    } else {
        format!("({keys})")
    };
    let (named, searched) = match content {
        Content::Raw(t) => (
            String::new(),
            format!(" with a single unnamed {t} parameter"),
        ),
        Content::Json => (
            named,
            format!("{with_params} or with a single unnamed json/jsonb parameter"),
        ),
        Content::Query => (named, with_params),
    };
    let message = format!("Could not find the function {func}{named} in the schema cache");
    ApiError::pgrst(Pgrst::FunctionNotFound, message).details(format!(
        "Searched for the function {func}{searched}, but no matches were found in the schema cache."
    ))
}

/// PGRST202's hint, as PostgREST's: a function of a similar name when none has this one (score
/// at least 0.75), else the overload whose parameters are closest to the given keys.
fn no_function_hint(
    cache: &SchemaCache,
    schema: &str,
    name: &str,
    given: &[&str],
    overloads: &[Function],
) -> Option<String> {
    let list = |names: Vec<&str>| {
        let mut names = names;
        names.sort();
        format!("({})", names.join(", "))
    };
    let found = if overloads.is_empty() {
        crate::fuzzy::best(cache.function_names(schema), name, 0.75)?.to_string()
    } else {
        let params: Vec<String> = overloads
            .iter()
            .map(|f| list(f.args.iter().map(|a| a.name.as_str()).collect()))
            .collect();
        let best = crate::fuzzy::best(
            params.iter().map(String::as_str),
            &list(given.to_vec()),
            0.33,
        )?;
        format!("{name}{best}")
    };
    Some(format!(
        "Perhaps you meant to call the function {schema}.{found}"
    ))
}

pub(super) fn plan<'c>(
    cache: &'c SchemaCache,
    cfg: &EngineConfig,
    schema: &str,
    name: &str,
    input: &Input,
    media: MediaType,
) -> Result<CallPlan<'c>, ApiError> {
    let overloads = cache.functions(schema, name);
    let q = parse_query(input.query, input.method.is_read())?;
    let post = !input.method.is_read();
    // A POST's body type: JSON (the default), or a raw body for one unnamed parameter.
    let content = if post {
        match input
            .content_type
            .map(|c| {
                c.split(';')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_ascii_lowercase()
            })
            .as_deref()
        {
            Some("text/plain") => Content::Raw("text"),
            Some("text/xml") => Content::Raw("xml"),
            Some("application/octet-stream") => Content::Raw("bytea"),
            _ => Content::Json,
        }
    } else {
        Content::Query
    };
    let mut whole_body: Option<Value> = None;
    let args: serde_json::Map<String, Value> = match content {
        Content::Query => q
            .rpc_args
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect(),
        Content::Raw(_) => serde_json::Map::new(),
        Content::Json if input.body.iter().all(u8::is_ascii_whitespace) => serde_json::Map::new(),
        Content::Json => match serde_json::from_slice::<Value>(input.body) {
            Ok(Value::Object(m)) => {
                whole_body = Some(Value::Object(m.clone()));
                m
            }
            Ok(other) => {
                whole_body = Some(other);
                serde_json::Map::new()
            }
            Err(_) => return Err(ApiError::pgrst(Pgrst::InvalidBody, "Empty or invalid json")),
        },
    };
    let given: Vec<&str> = args.keys().map(String::as_str).collect();
    let candidates: Vec<&Function> = overloads.iter().collect();
    let func = resolve_function(&candidates, schema, name, &given, content).map_err(|e| {
        match no_function_hint(cache, schema, name, &given, overloads) {
            // With a raw body PostgREST gives no hint.
            Some(h)
                if e.code == Pgrst::FunctionNotFound.code()
                    && !matches!(content, Content::Raw(_)) =>
            {
                e.hint(h)
            }
            _ => e,
        }
    })?;
    let unnamed = func.args.len() == 1 && func.args[0].name.is_empty() && !given.contains(&"");
    if whole_body.is_some() && !unnamed && !matches!(whole_body, Some(Value::Object(_))) {
        return Err(ApiError::pgrst(Pgrst::InvalidBody, "Empty or invalid json"));
    }
    if input.prefer.affected_limit().is_some() && !func.returns_set {
        return Err(ApiError::pgrst(
            Pgrst::MaxAffectedRpc,
            "Function must return SETOF or TABLE when max-affected preference is used with handling=strict",
        ));
    }
    let args = if unnamed {
        // The whole body is the argument: JSON as sent, raw text, or bytes.
        CallArgs::Whole(match content {
            Content::Raw("bytea") => format!("\\x{}", hex::encode(input.body)),
            _ => std::str::from_utf8(input.body)
                .map_err(|_| ApiError::pgrst(Pgrst::InvalidBody, "The body is not valid UTF-8"))?
                .to_string(),
        })
    } else if args.is_empty() {
        CallArgs::None
    } else {
        CallArgs::Named(args)
    };
    // Rows are read like a table: select (with embeds when the function returns a table's
    // rows), filters, order and page; a scalar result is returned as it is.
    let rows = if func.returns_rows {
        let table = func
            .return_table
            .as_ref()
            .and_then(|(s, t)| cache.table(s, t));
        let mut root = select_tree(cache, table, "pgrst_call".into(), &q.select)?;
        attach_query(&mut root, &q)?;
        page(
            &mut root,
            input.range,
            cfg.max_rows(cache).filter(|_| func.returns_set),
        );
        Some(root)
    } else {
        None
    };
    Ok(CallPlan {
        func,
        args,
        rows,
        count: input.prefer.count.is_some(),
        media,
        head: input.method == Method::Head,
    })
}
