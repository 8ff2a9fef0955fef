//! `/rest/v1` (and `/graphql/v1`, PostgREST's `/rpc/graphql` as Supabase routes it): the HTTP
//! side of the REST service — who is asking, the headers PostgREST reads, the body (bounded in
//! size and time) — and its answer written back.

use crate::error::GatewayError;
use crate::http_util::{BodyError, client_ip, header, headers_json, query_pairs, read_body};
use crate::request_auth::identify;
use actix_web::{HttpMessage, HttpRequest, HttpResponse, web};
use query_engine::ApiError;
use query_engine::Pgrst;
use query_engine::request::Method;

pub async fn handle(
    req: HttpRequest,
    payload: web::Payload,
    state: crate::branches::State,
) -> Result<HttpResponse, GatewayError> {
    // What follows `/rest/v1` (the scope's prefix: a plain prefix, no pattern to match).
    let path = req.match_info().unprocessed().trim_start_matches('/');
    serve(&req, payload, state, path, None).await
}

/// `/graphql/v1` as Supabase's gateway routes it: PostgREST's `/rpc/graphql` with
/// `Content-Profile: graphql_public` unless the request names a profile, so a GraphQL request is
/// a call of `graphql_public.graphql` with REST's identity, role, claims, schemas and RLS.
pub async fn graphql(
    req: HttpRequest,
    payload: web::Payload,
    state: crate::branches::State,
) -> Result<HttpResponse, GatewayError> {
    serve(&req, payload, state, "rpc/graphql", Some("graphql_public")).await
}

/// A REST request for `path` (what follows `/rest/v1/`); `profile` is the Content-Profile a
/// request without one gets.
async fn serve(
    req: &HttpRequest,
    payload: web::Payload,
    state: crate::branches::State,
    path: &str,
    profile: Option<&str>,
) -> Result<HttpResponse, GatewayError> {
    let Some(method) = Method::parse(req.method().as_str()) else {
        return Err(ApiError::pgrst(
            Pgrst::UnsupportedMethod,
            format!("Unsupported HTTP method: {}", req.method()),
        )
        .into());
    };
    let identity = if path.trim_end_matches('/').is_empty() {
        None
    } else {
        Some(identify(req, &state.keys, state.local_keys())?)
    };
    let limit = state.config.max_body_bytes;
    let body = if method.is_read() || identity.is_none() {
        bytes::Bytes::new()
    } else {
        read_body(payload, limit).await.map_err(|e| match e {
            BodyError::TooLarge => ApiError::pgrst(
                Pgrst::BodyTooLarge,
                format!("Request body is larger than {limit} bytes"),
            ),
            BodyError::TimedOut => {
                ApiError::pgrst(Pgrst::Connection, "The request body did not arrive in time")
                    .with_status(408)
            }
            BodyError::Broken => {
                ApiError::pgrst(Pgrst::InvalidBody, "The request body could not be read")
            }
        })?
    };
    let query = query_pairs(req.query_string());
    let client = client_ip(
        req,
        state.config.rate_limit_ip_header.as_deref(),
        state.config.trusted_proxy_hops,
    );
    let (role, claims) = identity
        .as_ref()
        .map_or(("", ""), |i| (i.role(), i.claims.text.as_str()));
    let recorded = crate::state::recording(req).is_some();
    // What RLS did is a query of its own: only while someone follows the inspector (whoever
    // starts following during this request sees it from the next one).
    let mut tracing = rest::inspect::Tracing {
        for_rls: recorded && crate::state::watched(req),
        trace: None,
    };
    // Boxed: the REST service's future is kilobytes, and actix moves the handler's future
    // (memcpy) into boxes of its own; a pointer to it moves cheaply.
    let r = Box::pin(
        state.rest.handle_traced(
            rest::RestRequest {
                method,
                method_name: req.method().as_str(),
                path,
                query: &query,
                accept: header(req, actix_web::http::header::ACCEPT),
                prefer: req
                    .headers()
                    .get_all(crate::http_util::PREFER)
                    .filter_map(|v| v.to_str().ok())
                    .collect(),
                range: header(req, actix_web::http::header::RANGE),
                accept_profile: header(req, crate::http_util::ACCEPT_PROFILE),
                content_profile: header(req, crate::http_util::CONTENT_PROFILE).or(profile),
                content_type: header(req, actix_web::http::header::CONTENT_TYPE),
                body: &body,
                role,
                claims,
                client: &client,
                request_path: req.path(),
                headers_json: headers_json(req, &client),
                // The configured address, never the request's Host.
                host: &state.api_host,
            },
            recorded.then_some(&mut tracing),
        ),
    )
    .await;
    if let Some(t) = tracing.trace {
        let rls = state
            .rest
            .rls_outcome(&state.admin, &t, r.as_ref().err())
            .await;
        // Kept as it ran; the inspector blanks its secrets when it shows it.
        let error = r
            .as_ref()
            .err()
            .map(|e| (e.code.as_str(), e.message.as_str()));
        req.extensions_mut()
            .insert(crate::inspector::RestPart::of(t, error, rls));
    }
    let r = r?;
    if r.wrote
        && let Some(rt) = &state.realtime
    {
        // What this request committed reaches change subscribers without waiting for a poll.
        rt.committed();
    }
    let mut out =
        HttpResponse::build(actix_web::http::StatusCode::from_u16(r.status).unwrap_or_default());
    for (k, v) in &r.headers {
        // The two every read answers with, by constant (a name given as text is parsed).
        use actix_web::http::header::{CONTENT_RANGE, CONTENT_TYPE};
        match k.as_str() {
            "Content-Type" => out.insert_header((CONTENT_TYPE, v.as_str())),
            "Content-Range" => out.insert_header((CONTENT_RANGE, v.as_str())),
            _ => out.insert_header((k.as_str(), v.as_str())),
        };
    }
    Ok(match r.body {
        Some(b) => out.body(b),
        None => out.finish(),
    })
}
