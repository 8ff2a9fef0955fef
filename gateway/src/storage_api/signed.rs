//! Signed URLs: `POST /object/sign/…` (one or many download URLs, optionally fixing image
//! transformations), `POST /object/upload/sign/…` (an upload URL, issued only if RLS would let
//! the caller write the object) and `PUT /object/upload/sign/…?token=` (the upload itself).

use super::upload::{Mode, Target, store, write_row};
use super::{Data, Reply, as_user, err, json_body, owner, path_parts, strings, token, who};
use crate::error::GatewayError;
use crate::http_util::header;
use crate::state::AppState;
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::{Value, json};
use storage::StorageError;
use storage::meta;
use storage::signing::{self, Scope};
use storage::transform::{Limits, Transform};
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

fn expires_in(b: &Value) -> Result<i64, GatewayError> {
    b["expiresIn"]
        .as_i64()
        .filter(|e| (1..=signing::MAX_EXPIRES_IN).contains(e))
        .ok_or_else(|| {
            err(StorageError::InvalidRequest(format!(
                "expiresIn must be a whole number of seconds from 1 to {} (100 years)",
                signing::MAX_EXPIRES_IN
            )))
        })
}

/// The `transform` of a sign request, as the claim storage-api puts in the token (empty for
/// none: the URL is then a plain download).
fn transformations(b: &Value) -> Result<String, GatewayError> {
    let Some(t) = b["transform"].as_object() else {
        return Ok(String::new());
    };
    let as_query = t
        .iter()
        .map(|(k, v)| {
            let v = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            (k.clone(), v)
        })
        .collect();
    let parsed = Transform::from_query(&as_query).map_err(err)?;
    Ok(parsed.to_token(&Limits::default()))
}

/// Unencoded, as storage-api returns it: storage-js applies encodeURI to the whole URL.
fn download_url(
    state: &AppState,
    bucket: &str,
    name: &str,
    secs: i64,
    transformations: &str,
) -> String {
    let token = signing::sign_download(&state.keys, bucket, name, secs, Some(transformations));
    let base = if transformations.is_empty() {
        "object"
    } else {
        "render/image"
    };
    format!("/{base}/sign/{bucket}/{name}?token={token}")
}

async fn sign_one(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let (bucket_id, name) = path_parts(&req)?;
    let id = who(&req, &state)?;
    let b = json_body(payload, &state).await?;
    let secs = expires_in(&b)?;
    let transformations = transformations(&b)?;
    as_user(&state, &id, async |c| {
        meta::object_by_name(c, &bucket_id, &name).await
    })
    .await?;
    let url = download_url(&state, &bucket_id, &name, secs, &transformations);
    Ok(HttpResponse::Ok().json(json!({ "signedURL": url })))
}

async fn sign_many(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let bucket_id = req.match_info().query("bucket").to_string();
    let id = who(&req, &state)?;
    let b = json_body(payload, &state).await?;
    let secs = expires_in(&b)?;
    let paths: Vec<String> = strings(&b["paths"]);
    let visible = as_user(&state, &id, async |c| {
        meta::visible_names(c, &bucket_id, &paths).await
    })
    .await?;
    let out: Vec<Value> = paths
        .iter()
        .map(|p| {
            if visible.contains(p) {
                json!({"error": null, "path": p, "signedURL": download_url(&state, &bucket_id, p, secs, "")})
            } else {
                json!({"error": "Either the object does not exist or you do not have access to it", "path": p, "signedURL": null})
            }
        })
        .collect();
    Ok(HttpResponse::Ok().json(out))
}

fn upsert(req: &HttpRequest) -> bool {
    header(req, "x-upsert").is_some_and(|v| v.eq_ignore_ascii_case("true"))
}

/// Issued only if the caller may write the object now (RLS, tried and rolled back): the upload
/// itself then runs as the storage admin, with the caller as owner.
async fn create_upload_url(req: HttpRequest, state: Data) -> Reply {
    let (bucket_id, name) = path_parts(&req)?;
    let id = who(&req, &state)?;
    let upsert = upsert(&req);
    let target = Target {
        bucket_id: bucket_id.clone(),
        name: name.clone(),
        mode: if upsert { Mode::Upsert } else { Mode::Create },
        writer: Some(&id),
        owner: owner(&id),
    };
    super::as_admin(&state, async |c| meta::bucket(c, &bucket_id).await).await?;
    write_row(&state, &target, "dry-run", &json!({}), true).await?;
    let sub = id.claims["sub"].as_str();
    let token = signing::sign_upload(&state.keys, &bucket_id, &name, sub, upsert);
    Ok(HttpResponse::Ok().json(json!({
        "url": format!("/object/upload/sign/{bucket_id}/{name}?token={token}"),
        "token": token,
    })))
}

async fn upload_signed(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let (bucket_id, name) = path_parts(&req)?;
    let token = token(&req)?;
    let grant =
        signing::verify(&state.keys, &token, &bucket_id, &name, Scope::Upload).map_err(err)?;
    let key = format!("{bucket_id}/{name}");
    let target = Target {
        bucket_id,
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
