//! Listing, deleting, moving and copying objects: `/object/list`, `/object/list-v2`,
//! `DELETE /object/…`, `/object/move`, `/object/copy`.

use super::{
    Data, Reply, as_admin, as_user, err, json_body, message, owner, path_parts, strings, who,
};
use crate::error::GatewayError;
use crate::state::AppState;
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::{Value, json};
use storage::listing::{self, ListOptions, ListV2, SortColumn};
use storage::meta::{self, Object};
use storage::{StorageError, keys, upload};
use uuid::Uuid;

/// Bulk deletes are capped like storage-api's.
const MAX_DELETE: usize = 1000;

pub(super) fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/object/list/{bucket}", web::post().to(list))
        .route("/object/list-v2/{bucket}", web::post().to(list_v2))
        .route("/object/move", web::post().to(move_object))
        .route("/object/copy", web::post().to(copy_object));
}

async fn list(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let bucket_id = req.match_info().query("bucket").to_string();
    let id = who(&req, &state)?;
    let b = json_body(payload, &state).await?;
    let opts = ListOptions {
        prefix: b["prefix"].as_str().unwrap_or("").to_string(),
        search: b["search"].as_str().unwrap_or("").to_string(),
        limit: b["limit"].as_i64().unwrap_or(100).clamp(1, 1000),
        offset: b["offset"].as_i64().unwrap_or(0).max(0),
        sort_column: b["sortBy"]["column"].as_str().unwrap_or("name").to_string(),
        sort_desc: b["sortBy"]["order"]
            .as_str()
            .is_some_and(|o| o.eq_ignore_ascii_case("desc")),
    };
    as_admin(&state, async |c| meta::bucket(c, &bucket_id).await).await?;
    let list = as_user(&state, &id, async |c| {
        listing::list(c, &bucket_id, &opts).await
    })
    .await?;
    Ok(HttpResponse::Ok().json(list))
}

fn invalid(name: &str, message: &str) -> GatewayError {
    err(StorageError::InvalidParameter {
        name: name.into(),
        message: Some(message.into()),
    })
}

/// The body checks storage-api's schema makes.
fn list_v2_options(b: &Value) -> Result<ListV2, GatewayError> {
    let text = |k: &str| match &b[k] {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(s.clone())),
        _ => Err(invalid(k, &format!("body/{k} must be string"))),
    };
    let limit = match &b["limit"] {
        Value::Null => 1000,
        v => v
            .as_i64()
            .filter(|n| *n >= 1)
            .ok_or_else(|| invalid("limit", "body/limit must be >= 1"))?,
    };
    let delimiter = match &b["with_delimiter"] {
        Value::Null => false,
        v => v
            .as_bool()
            .ok_or_else(|| invalid("with_delimiter", "body/with_delimiter must be boolean"))?,
    };
    let (sort, desc) = match &b["sortBy"] {
        Value::Null => (None, None),
        s => {
            let column = match s["column"].as_str() {
                Some("name") => SortColumn::Name,
                Some("created_at") => SortColumn::CreatedAt,
                Some("updated_at") => SortColumn::UpdatedAt,
                _ => {
                    return Err(invalid(
                        "sortBy",
                        "body/sortBy/column must be equal to one of the allowed values",
                    ));
                }
            };
            let desc = match s["order"].as_str() {
                None => None,
                Some("asc") => Some(false),
                Some("desc") => Some(true),
                Some(_) => {
                    return Err(invalid(
                        "sortBy",
                        "body/sortBy/order must be equal to one of the allowed values",
                    ));
                }
            };
            (Some(column), desc)
        }
    };
    Ok(ListV2 {
        prefix: text("prefix")?.unwrap_or_default(),
        delimiter,
        limit,
        sort,
        desc,
        cursor: text("cursor")?.filter(|c| !c.is_empty()),
    })
}

async fn list_v2(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let bucket_id = req.match_info().query("bucket").to_string();
    let id = who(&req, &state)?;
    let opts = list_v2_options(&json_body(payload, &state).await?)?;
    as_admin(&state, async |c| meta::bucket(c, &bucket_id).await).await?;
    let page = as_user(&state, &id, async |c| {
        listing::list_v2(c, &bucket_id, &opts).await
    })
    .await?;
    Ok(HttpResponse::Ok().json(page))
}

fn object_json(o: &Object) -> Value {
    json!({"id": o.id, "name": o.name, "bucket_id": o.bucket_id, "version": o.version, "metadata": o.metadata,
           "created_at": o.created_at, "updated_at": o.updated_at})
}

pub(super) async fn delete_one(req: HttpRequest, state: Data) -> Reply {
    let (bucket_id, name) = path_parts(&req)?;
    let id = who(&req, &state)?;
    let names = vec![name];
    let gone = as_user(&state, &id, async |c| {
        meta::delete_objects(c, &bucket_id, &names).await
    })
    .await?;
    if gone.is_empty() {
        return Err(err(StorageError::NoSuchKey));
    }
    upload::delete_versions(state.store.as_ref(), gone.into_iter().map(|o| o.version)).await;
    Ok(message("Successfully deleted"))
}

pub(super) async fn delete_many(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let bucket_id = req.match_info().query("bucket").to_string();
    let id = who(&req, &state)?;
    let b = json_body(payload, &state).await?;
    let names: Vec<String> = strings(&b["prefixes"]);
    if names.is_empty() || names.len() > MAX_DELETE {
        return Err(err(StorageError::InvalidRequest(format!(
            "prefixes must list between 1 and {MAX_DELETE} objects"
        ))));
    }
    let gone = as_user(&state, &id, async |c| {
        meta::delete_objects(c, &bucket_id, &names).await
    })
    .await?;
    let body: Vec<Value> = gone.iter().map(object_json).collect();
    upload::delete_versions(state.store.as_ref(), gone.into_iter().map(|o| o.version)).await;
    Ok(HttpResponse::Ok().json(body))
}

struct MoveArgs {
    bucket: String,
    from: String,
    to_bucket: String,
    to: String,
}

async fn move_args(payload: web::Payload, state: &AppState) -> Result<MoveArgs, GatewayError> {
    let b = json_body(payload, state).await?;
    let s = |k: &str| b[k].as_str().map(str::to_string);
    let (Some(bucket), Some(from), Some(to)) = (s("bucketId"), s("sourceKey"), s("destinationKey"))
    else {
        return Err(err(StorageError::InvalidRequest(
            "bucketId, sourceKey and destinationKey are required".into(),
        )));
    };
    keys::validate_key(&from).map_err(err)?;
    keys::validate_key(&to).map_err(err)?;
    let to_bucket = s("destinationBucket").unwrap_or_else(|| bucket.clone());
    Ok(MoveArgs {
        bucket,
        from,
        to_bucket,
        to,
    })
}

async fn move_object(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let id = who(&req, &state)?;
    let a = move_args(payload, &state).await?;
    as_user(&state, &id, async |c| {
        meta::move_object(c, &a.bucket, &a.from, &a.to_bucket, &a.to).await
    })
    .await?;
    Ok(message("Successfully moved"))
}

async fn copy_object(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let id = who(&req, &state)?;
    let a = move_args(payload, &state).await?;
    let source = as_user(&state, &id, async |c| {
        meta::object_by_name(c, &a.bucket, &a.from).await
    })
    .await?;
    let version = Uuid::new_v4().to_string();
    state
        .store
        .copy(
            &keys::version_path(&source.version),
            &keys::version_path(&version),
        )
        .await
        .map_err(|e| err(e.into()))?;
    let result = as_user(&state, &id, async |c| {
        meta::write_object_row(
            c,
            &a.to_bucket,
            &a.to,
            owner(&id),
            &version,
            &source.metadata,
            false,
        )
        .await
    })
    .await;
    match result {
        Ok((object_id, _)) => Ok(HttpResponse::Ok()
            .json(json!({"Id": object_id, "Key": format!("{}/{}", a.to_bucket, a.to)}))),
        Err(e) => {
            upload::delete_versions(state.store.as_ref(), [version]).await;
            Err(e)
        }
    }
}
