//! Serves a built site (`--site-dir`): files from the site directory, the rules of its own
//! `_redirects` file (rewrites, redirects, a real 404 for paths the app does not know, rewrites
//! to this gateway's Edge Functions), else `index.html` for every other page path (the SPA
//! fallback), long caching for hashed assets, and the headers the site's own `_headers` file
//! sets (its Content-Security-Policy, framing rules). Its `_exists` file names the pages that
//! show one row (`/product/:id`): they answer 404 when `anon` cannot read that row.
//!
//! The site reads the API URL and anon key from `/__supagate/config.js`, a same-origin script
//! the index page loads first, so one build works behind any gateway and a strict CSP needs no
//! inline script. `%SITE_URL%` in the index page becomes the gateway's external URL (for the
//! absolute addresses of Open Graph tags and structured data).

mod exists;
mod files;
mod headers;
mod redirects;

use actix_web::http::StatusCode;
use actix_web::http::header::{CACHE_CONTROL, CONTENT_TYPE, HeaderName, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, web};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

pub const CONFIG_SCRIPT: &str = "/__supagate/config.js";

/// A site loaded at start.
pub struct Site {
    dir: PathBuf,
    /// index.html with the config script added; None when the site is not built.
    index: Option<String>,
    rules: Vec<headers::Rule>,
    redirects: Vec<redirects::Rule>,
    exists: Vec<exists::Rule>,
    config_js: String,
}

impl Site {
    /// `public_url`: the API URL the site is told (None: its own origin); `site_url`: the
    /// gateway's external URL, from configuration.
    pub fn load(dir: &Path, (public_url, site_url): (Option<&str>, &str), anon_key: &str) -> Site {
        let index = std::fs::read_to_string(dir.join("index.html"))
            .ok()
            .map(|html| html.replace("%SITE_URL%", site_url.trim_end_matches('/')))
            .map(|html| {
                let tag = format!("<script src=\"{CONFIG_SCRIPT}\"></script>");
                match html.find("</head>") {
                    Some(i) => format!("{}{tag}{}", &html[..i], &html[i..]),
                    None => format!("{tag}{html}"),
                }
            });
        let rules = control_file(dir, "_headers", headers::parse);
        let redirects = control_file(dir, "_redirects", redirects::parse);
        let exists = control_file(dir, "_exists", exists::parse);
        let cfg = serde_json::json!({ "url": public_url, "anonKey": anon_key });
        Site {
            dir: dir.to_path_buf(),
            index,
            rules,
            redirects,
            exists,
            config_js: format!("window.__SUPAGATE__={cfg};\n"),
        }
    }

    fn with_headers(&self, path: &str, mut res: HttpResponse) -> HttpResponse {
        for (k, v) in headers::for_path(&self.rules, path) {
            if let (Ok(k), Ok(v)) = (
                HeaderName::from_bytes(k.as_bytes()),
                HeaderValue::from_str(v),
            ) {
                res.headers_mut().insert(k, v);
            }
        }
        res
    }
}

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

fn not_found() -> HttpResponse {
    HttpResponse::NotFound()
        .content_type("text/plain; charset=utf-8")
        .body("Not found")
}

/// The rules of one of the site's control files (none without it); what is not a rule is
/// logged.
fn control_file<R>(dir: &Path, name: &str, parse: fn(&str) -> (Vec<R>, Vec<String>)) -> Vec<R> {
    let Ok(text) = std::fs::read_to_string(dir.join(name)) else {
        return Vec::new();
    };
    let (rules, notes) = parse(&text);
    for n in notes {
        tracing::warn!("{}/{name} {n}", dir.display());
    }
    rules
}

/// The site's own control files, never served.
const CONTROL_FILES: [&str; 3] = ["_headers", "_redirects", "_exists"];

impl Site {
    /// The index page with `status`, or the site's note that it is not built.
    fn index_page(&self, status: StatusCode) -> HttpResponse {
        match &self.index {
            Some(html) => HttpResponse::build(status)
                .insert_header((CONTENT_TYPE, "text/html; charset=utf-8"))
                .insert_header((CACHE_CONTROL, "no-cache"))
                .body(html.clone()),
            None => HttpResponse::ServiceUnavailable()
                .content_type("text/plain; charset=utf-8")
                .body(format!(
                    "The site is not built: {} has no index.html. Build it (for the shop: \
                     ./scripts/start) or point --site-dir at a built site.",
                    self.dir.display()
                )),
        }
    }

    /// The site file at `path` (None when there is none to serve).
    fn file(&self, path: &str) -> Option<PathBuf> {
        let last = path.rsplit('/').next().unwrap_or("");
        safe_join(&self.dir, path)
            .filter(|p| p.is_file())
            .filter(|_| !path.ends_with("index.html") && !CONTROL_FILES.contains(&last))
    }

    /// A file of the site with its caching and headers.
    fn serve_file(&self, req: &HttpRequest, path: &str, file: &Path) -> Option<HttpResponse> {
        let mut res = files::respond(req, file)?;
        let cache = if path.starts_with("/assets/") {
            "public, max-age=31536000, immutable"
        } else {
            "public, max-age=3600"
        };
        res.headers_mut()
            .insert(CACHE_CONTROL, cache.parse().expect("static header"));
        Some(self.with_headers(path, res))
    }
}

/// The site: registered as its own app data (`Option<Arc<Site>>`), so that this module needs
/// nothing else of the gateway's state but the Edge Functions its rules may rewrite to.
pub async fn serve(
    req: HttpRequest,
    payload: web::Payload,
    site: web::Data<Option<Arc<Site>>>,
    state: crate::branches::State,
) -> HttpResponse {
    if req.method() != actix_web::http::Method::GET && req.method() != actix_web::http::Method::HEAD
    {
        return HttpResponse::MethodNotAllowed()
            .insert_header(("Allow", "GET, HEAD"))
            .finish();
    }
    let Some(site) = site.as_ref().as_ref() else {
        // What the Supabase CLI's API gateway answers outside its routes.
        return HttpResponse::NotFound()
            .content_type("application/json; charset=utf-8")
            .body(r#"{"message":"no Route matched with those values"}"#);
    };
    let path = req.path();
    if path == CONFIG_SCRIPT {
        return HttpResponse::Ok()
            .insert_header((CONTENT_TYPE, "text/javascript; charset=utf-8"))
            .insert_header((CACHE_CONTROL, "no-cache"))
            .body(site.config_js.clone());
    }
    let file = site.file(path);
    match redirects::resolve(&site.redirects, path, file.is_some()) {
        Some(redirects::Outcome::Redirect { location, status }) => {
            return HttpResponse::build(StatusCode::from_u16(status).expect("a redirect status"))
                .insert_header(("Location", location))
                .finish();
        }
        Some(redirects::Outcome::Serve {
            path: target,
            status,
        }) => {
            let status = StatusCode::from_u16(status).expect("a status of the rules");
            if let Some(tail) = target.strip_prefix("/functions/v1/") {
                return crate::functions_api::invoke(&req, payload, &state, tail).await;
            }
            if let Some(f) = site.file(&target)
                && let Some(mut res) = site.serve_file(&req, &target, &f)
            {
                *res.status_mut() = status;
                return res;
            }
            return site.with_headers(path, site.page(&req, &state, path, status).await);
        }
        None => {}
    }
    if let Some(f) = &file
        && let Some(res) = site.serve_file(&req, path, f)
    {
        return res;
    }
    let last = path.rsplit('/').next().unwrap_or("");
    let looks_like_file = last.contains('.') && !last.ends_with(".html");
    if looks_like_file || path.starts_with("/assets/") || CONTROL_FILES.contains(&last) {
        return not_found();
    }
    site.with_headers(path, site.page(&req, &state, path, StatusCode::OK).await)
}

impl Site {
    /// The index page for a page path: with 404 in place of 200 when an `_exists` rule names
    /// a row `anon` cannot read.
    async fn page(
        &self,
        req: &HttpRequest,
        state: &crate::branches::State,
        path: &str,
        status: StatusCode,
    ) -> HttpResponse {
        if status != StatusCode::OK || self.index.is_none() {
            return self.index_page(status);
        }
        let missing = match exists::check(&self.exists, path) {
            None => false,
            Some(exists::Check::Missing) => true,
            Some(exists::Check::Read { path: table, query }) => {
                read_finds_nothing(req, state, &table, &query).await
            }
        };
        self.index_page(if missing {
            StatusCode::NOT_FOUND
        } else {
            status
        })
    }
}

/// Whether `anon` reads no row at `table` with `query` (an error that is no answer — the
/// database away, a table anon may not read — is logged and counts as found: the page is
/// served as without the rule).
async fn read_finds_nothing(
    req: &HttpRequest,
    state: &crate::branches::State,
    table: &str,
    query: &[(String, String)],
) -> bool {
    let client = crate::http_util::client_ip(
        req,
        state.config.rate_limit_ip_header.as_deref(),
        state.config.trusted_proxy_hops,
    );
    let anon = identity::Identity::anon();
    let read = state
        .rest
        .handle(rest::RestRequest {
            method: query_engine::request::Method::Get,
            method_name: "GET",
            path: table,
            query,
            accept: Some("application/json"),
            prefer: Vec::new(),
            range: None,
            accept_profile: None,
            content_profile: None,
            content_type: None,
            body: &[],
            role: anon.role(),
            claims: &anon.claims.text,
            client: &client,
            request_path: req.path(),
            headers_json: crate::http_util::headers_json(req, &client),
            host: &state.api_host,
        })
        .await;
    match read {
        Ok(r) if r.status == 200 => r
            .body
            .as_deref()
            .and_then(|b| serde_json::from_slice::<Vec<serde_json::Value>>(b).ok())
            .is_some_and(|rows| rows.is_empty()),
        Ok(r) => {
            tracing::warn!(
                "_exists: reading {table} for {} answered {}",
                req.path(),
                r.status
            );
            false
        }
        Err(e) if exists::names_no_row(&e.code) => true,
        Err(e) => {
            tracing::warn!(
                "_exists: reading {table} for {} failed: {} {}",
                req.path(),
                e.code,
                e.message
            );
            false
        }
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
