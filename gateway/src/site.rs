//! Serves the built site: files from the site directory, `index.html` for every other page path
//! (the SPA fallback) with the API URL and anon key injected, long caching for hashed assets.

use crate::state::AppState;
use actix_files::NamedFile;
use actix_web::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use actix_web::{HttpRequest, HttpResponse, web};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

/// A path under the site directory, or None when it tries to leave it.
fn safe_join(root: &Path, url_path: &str) -> Option<PathBuf> {
    let decoded = percent_encoding::percent_decode_str(url_path)
        .decode_utf8()
        .ok()?;
    let mut out = root.to_path_buf();
    for c in Path::new(decoded.trim_start_matches('/')).components() {
        match c {
            Component::Normal(p) => out.push(p),
            Component::CurDir => {}
            _ => return None,
        }
    }
    Some(out)
}

/// The runtime configuration the site reads before creating its supabase client.
fn inject(html: &str, state: &AppState) -> String {
    let cfg = serde_json::json!({ "url": state.public_url, "anonKey": state.api_keys.anon });
    let script = format!("<script>window.__SUPAGATE__={cfg}</script>");
    match html.find("</head>") {
        Some(i) => format!("{}{}{}", &html[..i], script, &html[i..]),
        None => format!("{script}{html}"),
    }
}

fn index(state: &AppState, site_dir: &Path) -> Option<String> {
    if let Some(cached) = state.index_html.read().expect("index lock").clone() {
        return Some(cached);
    }
    let html = std::fs::read_to_string(site_dir.join("index.html")).ok()?;
    let page = inject(&html, state);
    *state.index_html.write().expect("index lock") = Some(page.clone());
    Some(page)
}

pub async fn serve(req: HttpRequest, state: web::Data<Arc<AppState>>) -> HttpResponse {
    if req.method() != actix_web::http::Method::GET && req.method() != actix_web::http::Method::HEAD
    {
        return HttpResponse::MethodNotAllowed()
            .insert_header(("Allow", "GET, HEAD"))
            .finish();
    }
    let Some(site_dir) = state.config.site_dir.as_deref() else {
        // What the Supabase CLI's API gateway answers outside its routes.
        return HttpResponse::NotFound()
            .content_type("application/json; charset=utf-8")
            .body(r#"{"message":"no Route matched with those values"}"#);
    };
    let path = req.path();
    if let Some(file) = safe_join(site_dir, path).filter(|p| p.is_file())
        && !path.ends_with("index.html")
        && let Ok(named) = NamedFile::open(&file)
    {
        let mut res = named.into_response(&req);
        let cache = if path.starts_with("/assets/") {
            "public, max-age=31536000, immutable"
        } else {
            "public, max-age=3600"
        };
        res.headers_mut()
            .insert(CACHE_CONTROL, cache.parse().expect("static header"));
        return res;
    }
    let last = path.rsplit('/').next().unwrap_or("");
    let looks_like_file = last.contains('.') && !last.ends_with(".html");
    if looks_like_file || path.starts_with("/assets/") {
        return HttpResponse::NotFound()
            .content_type("text/plain; charset=utf-8")
            .body("Not found");
    }
    match index(&state, site_dir) {
        Some(html) => HttpResponse::Ok()
            .insert_header((CONTENT_TYPE, "text/html; charset=utf-8"))
            .insert_header((CACHE_CONTROL, "no-cache"))
            .body(html),
        None => HttpResponse::ServiceUnavailable()
            .content_type("text/plain; charset=utf-8")
            .body(format!(
                "The site is not built: {} has no index.html. Build it (for the shop: \
                 ./scripts/start) or point --site-dir at a built site.",
                site_dir.display()
            )),
    }
}

#[cfg(test)]
mod tests {
    use super::safe_join;
    use std::path::Path;

    #[test]
    fn paths_stay_inside_the_site() {
        let root = Path::new("/site");
        assert_eq!(
            safe_join(root, "/assets/a.js").unwrap(),
            Path::new("/site/assets/a.js")
        );
        assert!(safe_join(root, "/../etc/passwd").is_none());
        assert!(safe_join(root, "/assets/%2e%2e/%2e%2e/etc/passwd").is_none());
    }
}
