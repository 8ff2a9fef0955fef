//! `/bucket`: list, get, create, update, empty and delete buckets.

use super::{Data, Reply, body, message, who};
use actix_web::{HttpRequest, HttpResponse, web};
use storage::params::BucketListQuery;

pub(super) fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/bucket", web::get().to(list))
        .route("/bucket", web::post().to(create))
        .route("/bucket/{id}/empty", web::post().to(empty))
        .route("/bucket/{id}", web::get().to(get))
        .route("/bucket/{id}", web::put().to(update))
        .route("/bucket/{id}", web::delete().to(delete));
}

fn id(req: &HttpRequest) -> &str {
    req.match_info().query("id")
}

async fn list(req: HttpRequest, state: Data) -> Reply {
    let who = who(&req, &state)?;
    let q = web::Query::<BucketListQuery>::from_query(req.query_string())
        .map(|q| q.into_inner())
        .unwrap_or_default();
    Ok(HttpResponse::Ok().json(state.storage.list_buckets(&who, q).await?))
}

async fn get(req: HttpRequest, state: Data) -> Reply {
    let who = who(&req, &state)?;
    Ok(HttpResponse::Ok().json(state.storage.get_bucket(&who, id(&req)).await?))
}

async fn create(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let who = who(&req, &state)?;
    let b = body(payload, &state).await?;
    Ok(HttpResponse::Ok().json(state.storage.create_bucket(&who, b).await?))
}

async fn update(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let who = who(&req, &state)?;
    let b = body(payload, &state).await?;
    state.storage.update_bucket(&who, id(&req), b).await?;
    Ok(message("Successfully updated"))
}

async fn delete(req: HttpRequest, state: Data) -> Reply {
    let who = who(&req, &state)?;
    state.storage.delete_bucket(&who, id(&req)).await?;
    Ok(message("Successfully deleted"))
}

/// storage-api queues the emptying and says so; the text clients compare is kept.
async fn empty(req: HttpRequest, state: Data) -> Reply {
    let who = who(&req, &state)?;
    state.storage.empty_bucket(&who, id(&req)).await?;
    Ok(message(
        "Empty bucket has been queued. Completion may take up to an hour.",
    ))
}
