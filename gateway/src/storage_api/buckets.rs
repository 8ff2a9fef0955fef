//! `/bucket`: list, get, create, update, empty and delete buckets (under RLS on
//! `storage.buckets`), with storage-api's bodies and texts.

use super::{Data, Reply, as_user, err, json_body, message, owner, query, who};
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::{Value, json};
use storage::meta::{self, BucketListOptions};
use storage::{StorageError, keys, upload};

pub(super) fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/bucket", web::get().to(list))
        .route("/bucket", web::post().to(create))
        .route("/bucket/{id}/empty", web::post().to(empty))
        .route("/bucket/{id}", web::get().to(get))
        .route("/bucket/{id}", web::put().to(update))
        .route("/bucket/{id}", web::delete().to(delete));
}

fn number(
    q: &std::collections::HashMap<String, String>,
    k: &str,
) -> Result<Option<i64>, crate::error::GatewayError> {
    q.get(k)
        .map(|v| {
            v.parse::<i64>().ok().filter(|n| *n >= 0).ok_or_else(|| {
                err(StorageError::InvalidParameter {
                    name: k.into(),
                    message: Some(format!("querystring/{k} must be integer >= 0")),
                })
            })
        })
        .transpose()
}

async fn list(req: HttpRequest, state: Data) -> Reply {
    let id = who(&req, &state)?;
    let q = query(&req);
    let opts = BucketListOptions {
        limit: number(&q, "limit")?,
        offset: number(&q, "offset")?,
        sort_column: q.get("sortColumn").cloned(),
        desc: q
            .get("sortOrder")
            .is_some_and(|o| o.eq_ignore_ascii_case("desc")),
        search: q.get("search").filter(|s| !s.is_empty()).cloned(),
    };
    let list = as_user(&state, &id, async |c| meta::list_buckets(c, &opts).await).await?;
    Ok(HttpResponse::Ok().json(list))
}

async fn get(req: HttpRequest, state: Data) -> Reply {
    let id = who(&req, &state)?;
    let bucket = req.match_info().query("id").to_string();
    let b = as_user(&state, &id, async |c| meta::get_bucket(c, &bucket).await).await?;
    Ok(HttpResponse::Ok().json(b))
}

fn mime_list(v: &Value) -> Result<Option<Vec<String>>, crate::error::GatewayError> {
    match v {
        Value::Null => Ok(None),
        Value::Array(a) => Ok(Some(
            a.iter()
                .filter_map(|m| m.as_str().map(str::to_string))
                .collect(),
        )),
        _ => Err(err(StorageError::InvalidRequest(
            "allowed_mime_types must be an array".into(),
        ))),
    }
}

async fn create(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let id = who(&req, &state)?;
    let b = json_body(payload, &state).await?;
    let name = b["id"]
        .as_str()
        .or(b["name"].as_str())
        .unwrap_or("")
        .to_string();
    keys::validate_bucket_name(&name).map_err(err)?;
    let size = keys::parse_size(&b["file_size_limit"]).map_err(err)?;
    let mimes = mime_list(&b["allowed_mime_types"])?;
    let public = b["public"].as_bool().unwrap_or(false);
    as_user(&state, &id, async |c| {
        meta::create_bucket(c, &name, public, size, mimes, owner(&id)).await
    })
    .await?;
    Ok(HttpResponse::Ok().json(json!({ "name": name })))
}

async fn update(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let id = who(&req, &state)?;
    let bucket = req.match_info().query("id").to_string();
    let b = json_body(payload, &state).await?;
    let size = if b.get("file_size_limit").is_some() {
        Some(keys::parse_size(&b["file_size_limit"]).map_err(err)?)
    } else {
        None
    };
    let mimes = if b.get("allowed_mime_types").is_some() {
        Some(mime_list(&b["allowed_mime_types"])?)
    } else {
        None
    };
    let public = b["public"].as_bool();
    as_user(&state, &id, async |c| {
        meta::update_bucket(c, &bucket, public, size, mimes).await
    })
    .await?;
    Ok(message("Successfully updated"))
}

async fn delete(req: HttpRequest, state: Data) -> Reply {
    let id = who(&req, &state)?;
    let bucket = req.match_info().query("id").to_string();
    as_user(&state, &id, async |c| meta::delete_bucket(c, &bucket).await).await?;
    Ok(message("Successfully deleted"))
}

/// storage-api queues the emptying; here it is done before the answer, which keeps the
/// text clients compare.
async fn empty(req: HttpRequest, state: Data) -> Reply {
    let id = who(&req, &state)?;
    let bucket = req.match_info().query("id").to_string();
    let gone = as_user(&state, &id, async |c| {
        meta::bucket(c, &bucket).await?;
        meta::delete_all(c, &bucket).await
    })
    .await?;
    upload::delete_versions(state.store.as_ref(), gone.into_iter().map(|o| o.version)).await;
    Ok(message(
        "Empty bucket has been queued. Completion may take up to an hour.",
    ))
}
