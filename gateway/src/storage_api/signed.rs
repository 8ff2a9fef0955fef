//! Signed URLs: `POST /object/sign/…` (one or many download URLs), `POST
//! /object/upload/sign/…` (an upload URL) and `PUT /object/upload/sign/…?token=` (the upload).

use super::upload::store;
use super::{Data, Reply, body, bucket, path_parts, token, upsert, who};
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::json;
use storage::service::{Mode, Target};
use storage::signing::Scope;
use uuid::Uuid;

pub(super) fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/object/sign/{bucket}", web::post().to(sign_many))
        .route("/object/sign/{bucket}/{path:.+}", web::post().to(sign_one))
        .route(
            "/object/upload/sign/{bucket}/{path:.+}",
            web::post().to(create_upload_url),
        )
        .route(
            "/object/upload/sign/{bucket}/{path:.+}",
            web::put().to(upload_signed),
        );
}

async fn sign_one(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let (bucket, name) = path_parts(&req)?;
    let who = who(&req, &state)?;
    let b = body(payload, &state).await?;
    Ok(HttpResponse::Ok().json(state.storage.sign(&who, &bucket, &name, b).await?))
}

async fn sign_many(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let who = who(&req, &state)?;
    let b = body(payload, &state).await?;
    Ok(HttpResponse::Ok().json(state.storage.sign_many(&who, bucket(&req), b).await?))
}

async fn create_upload_url(req: HttpRequest, state: Data) -> Reply {
    let (bucket, name) = path_parts(&req)?;
    let who = who(&req, &state)?;
    let url = state
        .storage
        .upload_url(&who, &bucket, &name, upsert(&req))
        .await?;
    Ok(HttpResponse::Ok().json(url))
}

async fn upload_signed(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let (bucket, name) = path_parts(&req)?;
    let token = token(&req)?;
    let grant = state
        .storage
        .verify_token(&token, &bucket, &name, Scope::Upload)?;
    let key = format!("{bucket}/{name}");
    let target = Target {
        bucket_id: bucket,
        name,
        mode: if grant.upsert {
            Mode::Upsert
        } else {
            Mode::Create
        },
        writer: None,
        owner: grant.owner.as_deref().and_then(|o| Uuid::parse_str(o).ok()),
    };
    store(&req, payload, &state, target).await?;
    Ok(HttpResponse::Ok().json(json!({ "Key": key })))
}
