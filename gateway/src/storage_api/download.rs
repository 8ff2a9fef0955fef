//! Reading objects: `GET`/`HEAD /object/{public|authenticated|sign}/{bucket}/{path}` (and the
//! bare `/object/{bucket}/{path}`), and `GET /object/info/…`. Ranges and `Content-Disposition`
//! use actix's header types.

use super::{Data, Reply, path_parts, query, token, who};
use crate::state::AppState;
use actix_web::http::header::{CONTENT_DISPOSITION, Range};
use actix_web::http::{Method, StatusCode};
use actix_web::{HttpRequest, HttpResponse, HttpResponseBuilder, web};
use std::str::FromStr;
use storage::keys;
use storage::meta::{Bucket, Object};
use storage::service::Reader;
use storage::signing::Scope;

pub(super) fn routes(cfg: &mut web::ServiceConfig) {
    for (path, handler) in [
        ("/object/public/{bucket}/{path:.+}", Kind::Public),
        (
            "/object/authenticated/{bucket}/{path:.+}",
            Kind::Authenticated,
        ),
        ("/object/sign/{bucket}/{path:.+}", Kind::Signed),
    ] {
        let h = move |req: HttpRequest, state: Data| download(req, state, handler);
        cfg.route(path, web::get().to(h))
            .route(path, web::head().to(h));
    }
    cfg.route(
        "/object/info/public/{bucket}/{path:.+}",
        web::get().to(info_public),
    )
    .route(
        "/object/info/authenticated/{bucket}/{path:.+}",
        web::get().to(info_authenticated),
    )
    .route(
        "/object/info/{bucket}/{path:.+}",
        web::get().to(info_authenticated),
    );
}

#[derive(Clone, Copy)]
enum Kind {
    Public,
    Authenticated,
    Signed,
}

/// `GET`/`HEAD /object/{bucket}/{path}` (storage-js `exists()` sends the HEAD).
pub(super) async fn authenticated(req: HttpRequest, state: Data) -> Reply {
    download(req, state, Kind::Authenticated).await
}

async fn download(req: HttpRequest, state: Data, kind: Kind) -> Reply {
    let (bucket_id, name) = path_parts(&req)?;
    let id;
    let reader = match kind {
        Kind::Public => Reader::Public,
        Kind::Authenticated => {
            id = who(&req, &state)?;
            Reader::Caller(&id)
        }
        Kind::Signed => {
            let token = token(&req)?;
            state
                .storage
                .verify_token(&token, &bucket_id, &name, Scope::Download)?;
            Reader::Signed
        }
    };
    let (bucket, obj) = state.storage.find_object(reader, &bucket_id, &name).await?;
    serve(&req, &state, &bucket, &obj).await
}

pub(super) fn http_date(t: chrono::DateTime<chrono::Utc>) -> String {
    actix_web::http::header::HttpDate::from(std::time::SystemTime::from(t)).to_string()
}

/// What `encodeURIComponent` leaves as it is.
const URI_COMPONENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'!')
    .remove(b'~')
    .remove(b'*')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')');

/// `Content-Disposition: attachment` as storage-api writes it: the file name URI-encoded in both
/// `filename` and `filename*` (nothing a header could be broken with survives the encoding), or
/// a bare `attachment;` for `?download` without a name.
fn attachment(name: Option<&str>) -> (actix_web::http::header::HeaderName, String) {
    let value = match name {
        None => "attachment;".to_string(),
        Some(name) => {
            let encoded = percent_encoding::utf8_percent_encode(name, URI_COMPONENT);
            format!("attachment; filename={encoded}; filename*=UTF-8''{encoded}")
        }
    };
    (CONTENT_DISPOSITION, value)
}

/// The headers every answer about an object carries, and whether the client's copy is current
/// (`If-None-Match`). HTML, SVG and XML would run script with the API's origin when opened:
/// they are sandboxed, and download unless the bucket lists the type among its allowed types.
pub(super) fn object_headers(
    req: &HttpRequest,
    bucket: &Bucket,
    obj: &Object,
    content_type: &str,
    etag: &str,
) -> (HttpResponseBuilder, bool) {
    let mut res = HttpResponse::Ok();
    res.insert_header(("Content-Type", content_type))
        .insert_header(("Cache-Control", obj.cache_control()))
        .insert_header(("ETag", etag))
        .insert_header(("Last-Modified", http_date(obj.updated_at)));
    let fresh = req
        .headers()
        .get("if-none-match")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag || t.trim() == "*"));
    let mut forced = false;
    if keys::runs_in_browser(content_type) {
        let essence = content_type.split(';').next().unwrap_or("").trim();
        let listed = bucket
            .allowed_mime_types
            .as_deref()
            .is_some_and(|types| types.iter().any(|t| t.eq_ignore_ascii_case(essence)));
        res.insert_header((
            "Content-Security-Policy",
            "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox",
        ));
        forced = !listed;
    }
    match query(req).remove("download") {
        Some(name) if !name.is_empty() => {
            res.insert_header(attachment(Some(&name)));
        }
        // Active content is downloaded under its own name.
        _ if forced => {
            res.insert_header(attachment(Some(
                obj.name.rsplit('/').next().unwrap_or("download"),
            )));
        }
        Some(_) => {
            res.insert_header(attachment(None));
        }
        None => {}
    }
    (res, fresh)
}

async fn serve(req: &HttpRequest, state: &AppState, bucket: &Bucket, obj: &Object) -> Reply {
    let (mut res, fresh) = object_headers(req, bucket, obj, obj.mimetype(), obj.etag());
    res.insert_header(("Accept-Ranges", "bytes"));
    if fresh {
        return Ok(res.status(StatusCode::NOT_MODIFIED).finish());
    }
    let size = obj.size().max(0) as u64;
    let mut range = None;
    if let Some(h) = req.headers().get("range").and_then(|v| v.to_str().ok()) {
        // One range is served; several, or one beyond the end, is not satisfiable.
        let one = match Range::from_str(h) {
            Ok(Range::Bytes(specs)) if specs.len() == 1 => specs[0].to_satisfiable_range(size),
            _ => None,
        };
        match one {
            Some(r) => range = Some(r),
            None if size > 0 => {
                return Ok(HttpResponse::RangeNotSatisfiable()
                    .insert_header(("Content-Range", format!("bytes */{size}")))
                    .finish());
            }
            None => {}
        }
    }
    if let Some((s, e)) = range {
        res.status(StatusCode::PARTIAL_CONTENT)
            .insert_header(("Content-Range", format!("bytes {s}-{e}/{size}")));
    }
    let len = range.map_or(size, |(s, e)| e - s + 1);
    if req.method() == Method::HEAD {
        // A sized body that is never read: actix reports its length and sends no bytes for HEAD.
        let nothing = futures_util::stream::empty::<Result<bytes::Bytes, std::io::Error>>();
        return Ok(res.body(actix_web::body::SizedStream::new(len, nothing)));
    }
    let bytes = state.storage.read(obj, range).await?;
    res.no_chunking(len);
    Ok(res.streaming(bytes))
}

/// The object's info as JSON, with the headers storage-api's info renderer sets.
fn info(obj: &Object) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header(("ETag", obj.etag()))
        .insert_header(("Last-Modified", http_date(obj.updated_at)))
        .insert_header(("Cache-Control", obj.cache_control()))
        .json(obj.info())
}

async fn info_public(req: HttpRequest, state: Data) -> Reply {
    let (bucket_id, name) = path_parts(&req)?;
    let (_, obj) = state
        .storage
        .find_object(Reader::Public, &bucket_id, &name)
        .await?;
    Ok(info(&obj))
}

async fn info_authenticated(req: HttpRequest, state: Data) -> Reply {
    let (bucket_id, name) = path_parts(&req)?;
    let id = who(&req, &state)?;
    let (_, obj) = state
        .storage
        .find_object(Reader::Caller(&id), &bucket_id, &name)
        .await?;
    Ok(info(&obj))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attachments_are_named_as_storage_api_names_them() {
        for (name, header) in [
            (
                Some("custom_name.svg"),
                "attachment; filename=custom_name.svg; filename*=UTF-8''custom_name.svg",
            ),
            (
                Some("fleur d’été.png"),
                "attachment; filename=fleur%20d%E2%80%99%C3%A9t%C3%A9.png; \
                 filename*=UTF-8''fleur%20d%E2%80%99%C3%A9t%C3%A9.png",
            ),
            // Nothing that could end the header or add a parameter survives.
            (
                Some("a\r\nSet-Cookie: x=1\";.html"),
                "attachment; filename=a%0D%0ASet-Cookie%3A%20x%3D1%22%3B.html; \
                 filename*=UTF-8''a%0D%0ASet-Cookie%3A%20x%3D1%22%3B.html",
            ),
            (None, "attachment;"),
        ] {
            assert_eq!(attachment(name).1, header);
        }
    }
}
