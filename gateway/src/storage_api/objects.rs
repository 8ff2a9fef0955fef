//! Listing, deleting, moving and copying objects: `/object/list`, `/object/list-v2`,
//! `DELETE /object/…`, `/object/move`, `/object/copy`.

use super::{Data, Reply, body, bucket, message, path_parts, who};
use actix_web::{HttpRequest, HttpResponse, web};

pub(super) fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/object/list/{bucket}", web::post().to(list))
        .route("/object/list-v2/{bucket}", web::post().to(list_v2))
        .route("/object/move", web::post().to(move_object))
        .route("/object/copy", web::post().to(copy_object));
}

async fn list(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let who = who(&req, &state)?;
    let b = body(payload, &state).await?;
    let list = state.storage.list_objects(&who, bucket(&req), b).await?;
    Ok(HttpResponse::Ok().json(list))
}

async fn list_v2(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let who = who(&req, &state)?;
    let b = body(payload, &state).await?;
    let page = state.storage.list_objects_v2(&who, bucket(&req), b).await?;
    Ok(HttpResponse::Ok().json(page))
}

pub(super) async fn delete_one(req: HttpRequest, state: Data) -> Reply {
    let (bucket, name) = path_parts(&req)?;
    let who = who(&req, &state)?;
    state.storage.delete_object(&who, &bucket, &name).await?;
    Ok(message("Successfully deleted"))
}

pub(super) async fn delete_many(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let who = who(&req, &state)?;
    let b = body(payload, &state).await?;
    let gone = state.storage.delete_objects(&who, bucket(&req), b).await?;
    Ok(HttpResponse::Ok().json(gone))
}

async fn move_object(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let who = who(&req, &state)?;
    let b = body(payload, &state).await?;
    state.storage.move_object(&who, b).await?;
    Ok(message("Successfully moved"))
}

async fn copy_object(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let who = who(&req, &state)?;
    let b = body(payload, &state).await?;
    Ok(HttpResponse::Ok().json(state.storage.copy_object(&who, b).await?))
}
