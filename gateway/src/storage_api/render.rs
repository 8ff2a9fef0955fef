//! `GET /render/image/{public|authenticated|sign}/{bucket}/{path}`: an image object resized
//! and re-encoded by the storage service (which caches renderings), with the object's headers
//! and a 304 for a client that has it.

use super::download::object_headers;
use super::{Data, Reply, not_found, path_parts, query, token, who};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, web};
use storage::service::Reader;
use storage::signing::Scope;
use storage::transform::Transform;

pub(super) fn routes(cfg: &mut web::ServiceConfig) {
    for (path, kind) in [
        ("/render/image/public/{bucket}/{path:.+}", Kind::Public),
        (
            "/render/image/authenticated/{bucket}/{path:.+}",
            Kind::Authenticated,
        ),
        ("/render/image/sign/{bucket}/{path:.+}", Kind::Signed),
    ] {
        cfg.route(
            path,
            web::get().to(move |req: HttpRequest, state: Data| render(req, state, kind)),
        );
    }
}

#[derive(Clone, Copy)]
enum Kind {
    Public,
    Authenticated,
    Signed,
}

async fn render(req: HttpRequest, state: Data, kind: Kind) -> Reply {
    if !state.storage.renders_images() {
        return not_found(req).await;
    }
    let (bucket_id, name) = path_parts(&req)?;
    let id;
    let (reader, t) = match kind {
        Kind::Public => (Reader::Public, Transform::from_query(&query(&req))?),
        Kind::Authenticated => {
            id = who(&req, &state)?;
            (Reader::Caller(&id), Transform::from_query(&query(&req))?)
        }
        Kind::Signed => {
            let token = token(&req)?;
            let grant = state
                .storage
                .verify_token(&token, &bucket_id, &name, Scope::Download)?;
            // The token fixes the transformations; the query cannot change them.
            let t = Transform::from_token(grant.transformations.as_deref().unwrap_or(""));
            (Reader::Signed, t)
        }
    };
    let (bucket, obj) = state.storage.find_object(reader, &bucket_id, &name).await?;
    let accept = req.headers().get("accept").and_then(|v| v.to_str().ok());
    let rendering = state.storage.rendering(&obj, t, accept);
    let (mut res, fresh) = object_headers(&req, &bucket, &obj, &rendering.mime, &rendering.etag);
    res.insert_header(("Vary", "Accept"));
    if !rendering.applied.is_empty() {
        res.insert_header(("X-Transformations", rendering.applied.clone()));
    }
    if fresh {
        return Ok(res.status(StatusCode::NOT_MODIFIED).finish());
    }
    let (mime, image) = state.storage.render(&obj, rendering).await?;
    res.insert_header(("Content-Type", mime));
    Ok(res.body(image))
}
