//! `/rest/v1`: PostgREST-compatible table, view and function access.

use crate::db::{self, RequestContext};
use crate::error::{GatewayError, rest_db_error};
use crate::http_util::{BodyError, client_ip, header, headers_json, query_pairs, read_body};
use crate::request_auth::identify;
use crate::state::AppState;
use actix_web::{HttpRequest, HttpResponse, web};
use query_engine::request::{Method, Resource, parse_prefer};
use query_engine::response::{self, ResultRow};
use query_engine::{ApiError, Input};
use std::sync::Arc;

pub async fn handle(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<Arc<AppState>>,
) -> Result<HttpResponse, GatewayError> {
    let path = req
        .match_info()
        .query("tail")
        .trim_end_matches('/')
        .to_string();
    let Some(method) = Method::parse(req.method().as_str()) else {
        return Err(ApiError::new(
            405,
            "PGRST117",
            format!("Unsupported HTTP method: {}", req.method()),
        )
        .into());
    };
    if path.is_empty() {
        return crate::openapi::root(&req, &state, method);
    }
    let resource = match path.strip_prefix("rpc/") {
        Some(f) => Resource::Rpc(f.to_string()),
        None if path.contains('/') => {
            return Err(ApiError::new(
                404,
                "PGRST125",
                format!("Invalid path specified in request URL: /{path}"),
            )
            .into());
        }
        None => Resource::Table(path.clone()),
    };
    let identity = identify(&req, &state.keys, state.local_keys())?;
    let body = if method.is_read() {
        bytes::Bytes::new()
    } else {
        read_body(payload, state.config.max_body_bytes)
            .await
            .map_err(|e| match e {
                BodyError::TooLarge => ApiError::new(
                    413,
                    "PGRST413",
                    format!(
                        "Request body is larger than {} bytes",
                        state.config.max_body_bytes
                    ),
                ),
                BodyError::TimedOut => {
                    ApiError::new(408, "PGRST000", "The request body did not arrive in time")
                }
                BodyError::Broken => {
                    ApiError::new(400, "PGRST102", "The request body could not be read")
                }
            })?
    };
    let query = query_pairs(req.query_string());
    let prefer = parse_prefer(
        req.headers()
            .get_all("prefer")
            .filter_map(|v| v.to_str().ok()),
    );
    let profile = if method.is_read() {
        header(&req, "accept-profile")
    } else {
        header(&req, "content-profile")
    };
    let input = Input {
        method,
        resource,
        query: &query,
        accept: header(&req, "accept"),
        prefer,
        range: if method.is_read() {
            header(&req, "range")
        } else {
            None
        },
        profile,
        content_type: header(&req, "content-type"),
        body: &body,
    };
    let schema = state.schema();
    let plan = query_engine::plan(&input, &schema, &state.engine)?;
    let client = client_ip(
        &req,
        state.config.rate_limit_ip_header.as_deref(),
        state.config.trusted_proxy_hops,
    );
    let ctx = RequestContext {
        role: identity.role.clone(),
        claims: identity.claims.to_string(),
        method: req.method().to_string(),
        path: req.path().to_string(),
        headers: headers_json(&req, &client),
        search_path: state.config.search_path(&plan.outcome.schema),
        settings: {
            let mut settings = state.role_settings(&identity.role);
            // Prefer: timezone=…, set for the transaction as PostgREST sets it.
            if let Some(tz) = &plan.outcome.prefer.timezone {
                settings.push(("timezone".into(), tz.clone()));
            }
            settings
        },
        pre_request: schema.db_setting("db_pre_request").map(quote_function),
    };
    // Only a singular response (PGRST116), max-affected (PGRST124) or a PUT whose body does not
    // match its URL (PGRST115) can still turn a write into a rollback; everything else is
    // decided now, so the transaction ends in the same pipeline.
    let decided_later = plan.outcome.media.is_singular()
        || plan.outcome.prefer.affected_limit().is_some()
        || plan.outcome.kind == query_engine::plan::Kind::Put;
    let end = if decided_later && !plan.read_only {
        None
    } else {
        Some(!plan.outcome.prefer.tx_rollback)
    };
    let _share = state
        .client_slots
        .acquire(
            &client,
            std::time::Duration::from_secs(state.config.db_pool_timeout),
        )
        .await
        .ok_or_else(|| rest_db_error(db::DbError::PoolTimeout, identity.is_anon()))?;
    let (row, tx) = db::run_statement(
        &state.rest_pool(),
        &ctx,
        &plan.statement.sql,
        &plan.statement.params,
        plan.read_only,
        end,
    )
    .await
    .map_err(|e| rest_db_error(e, identity.is_anon()))?;
    let result = result_row(row).map_err(|e| rest_db_error(e, identity.is_anon()))?;
    let built = response::build(&plan.outcome, result);
    if let Some(tx) = tx {
        let commit = built.as_ref().map(|r| r.commit).unwrap_or(false);
        tx.finish(commit)
            .await
            .map_err(|e| rest_db_error(e.into(), identity.is_anon()))?;
    }
    let r = built?;
    if !plan.read_only
        && let Some(rt) = &state.realtime
    {
        // What this request committed reaches change subscribers without waiting for a poll.
        rt.committed();
    }
    let mut out =
        HttpResponse::build(actix_web::http::StatusCode::from_u16(r.status).unwrap_or_default());
    for (k, v) in &r.headers {
        out.insert_header((k.as_str(), v.as_str()));
    }
    Ok(match r.body {
        Some(b) if method != Method::Head => out.body(b),
        _ => out.finish(),
    })
}

/// A function name from `pgrst.db_pre_request` (`check_request` or `api.check_request`), quoted.
fn quote_function(name: &str) -> String {
    name.split('.')
        .map(|part| crate::config::quote_ident(part.trim().trim_matches('"')))
        .collect::<Vec<_>>()
        .join(".")
}

/// The main statement's row (total, page total, body, headers, status, location, inserted), in
/// text. The body goes to the client as received, without a copy.
fn result_row(mut row: crate::pipeline::Row) -> Result<ResultRow, db::DbError> {
    if row.len() < 7 {
        return Err(db::DbError::Unavailable(format!(
            "the statement returned {} columns, not 7",
            row.len()
        )));
    }
    let text = |v: Option<bytes::Bytes>| -> Result<Option<String>, db::DbError> {
        v.map(|b| {
            String::from_utf8(b.to_vec())
                .map_err(|_| db::DbError::Unavailable("a value is not UTF-8".into()))
        })
        .transpose()
    };
    let int = |v: Option<bytes::Bytes>| -> Result<Option<i64>, db::DbError> {
        text(v)?
            .map(|t| {
                t.parse()
                    .map_err(|_| db::DbError::Unavailable(format!("not a count: {t}")))
            })
            .transpose()
    };
    let mut take = |i: usize| row[i].take();
    Ok(ResultRow {
        total: int(take(0))?,
        page_total: int(take(1))?.unwrap_or(0),
        body: take(2),
        response_headers: text(take(3))?,
        response_status: text(take(4))?,
        location: text(take(5))?,
        inserted: int(take(6))?,
    })
}
