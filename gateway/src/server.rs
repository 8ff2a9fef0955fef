//! The HTTP application: CORS, the four APIs, health and the site.

use crate::state::AppState;
use actix_cors::Cors;
use actix_web::{App, HttpResponse, HttpServer, middleware, web};
use std::sync::Arc;

/// Headers supabase-js must be able to read from another origin.
const EXPOSED: [&str; 19] = [
    "content-range",
    "content-location",
    "content-profile",
    "content-type",
    "location",
    "range-unit",
    "preference-applied",
    "x-supabase-api-version",
    "x-total-count",
    "link",
    "etag",
    "last-modified",
    "content-disposition",
    // tus (resumable uploads), for tus-js-client in a browser.
    "upload-offset",
    "upload-length",
    "upload-expires",
    "tus-resumable",
    "tus-version",
    "tus-extension",
];

fn cors() -> Cors {
    Cors::default()
        .allow_any_origin()
        .allow_any_header()
        .allowed_methods(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
        .expose_headers(EXPOSED)
        .max_age(86_400)
}

async fn health(state: web::Data<Arc<AppState>>) -> HttpResponse {
    let db_ok = state.rest.database_ok().await;
    let body = serde_json::json!({"status": if db_ok { "ok" } else { "degraded" }, "database": db_ok, "version": env!("CARGO_PKG_VERSION")});
    if db_ok {
        HttpResponse::Ok().json(body)
    } else {
        HttpResponse::ServiceUnavailable().json(body)
    }
}

/// Binds the API's address with actix's backlog (2048, where the standard library's is 128):
/// connections past the connection budget wait there instead of being refused.
pub fn listen(host: &str, port: u16) -> std::io::Result<std::net::TcpListener> {
    use std::net::ToSocketAddrs;
    let addr = (host, port)
        .to_socket_addrs()?
        .next()
        .ok_or_else(|| std::io::Error::other(format!("{host} names no address")))?;
    let socket = socket2::Socket::new(
        socket2::Domain::for_address(addr),
        socket2::Type::STREAM,
        Some(socket2::Protocol::TCP),
    )?;
    socket.set_reuse_address(true)?;
    socket.bind(&addr.into())?;
    socket.listen(2048)?;
    Ok(socket.into())
}

/// Serves the API on `listener` (bound first, so that the URLs supagate builds can name its port).
pub fn serve(
    state: Arc<AppState>,
    branches: Option<Arc<crate::branches::Branches>>,
    listener: std::net::TcpListener,
) -> std::io::Result<actix_web::dev::Server> {
    let data = web::Data::new(state.clone());
    // Without API_EXTERNAL_URL the site calls the origin it was loaded from.
    let site = web::Data::new(state.config.site_dir.as_deref().map(|d| {
        Arc::new(crate::site::Site::load(
            d,
            (state.config.api_external_url.as_deref(), &state.api_url),
            &state.keys.api_keys().anon,
        ))
    }));
    let branches = web::Data::new(branches);
    let workers = state.config.workers.max(1);
    let (rest, auth, storage, realtime) = (
        state.config.rest_enabled,
        state.config.auth_enabled,
        state.config.storage_enabled,
        state.realtime.is_some(),
    );
    let log_requests = state.config.log_requests;
    let hsts = state.api_url.starts_with("https://");
    let server = HttpServer::new(move || {
        App::new()
            .app_data(data.clone())
            .app_data(site.clone())
            .app_data(branches.clone())
            .wrap(cors())
            .wrap(middleware::from_fn(move |req, next| {
                crate::guard::guard(req, next, log_requests, hsts)
            }))
            .route("/health", web::get().to(health))
            // An API config.toml switches off is not there, as with the Supabase CLI.
            .configure(|c| {
                if rest {
                    // A scope, not `/rest/v1/{tail:.*}`: a prefix costs nothing to match where
                    // the pattern ran a regex per request.
                    c.service(
                        web::scope("/rest/v1").default_service(web::to(crate::rest_api::handle)),
                    );
                    // GraphQL is served by the REST service, as Supabase's is by PostgREST.
                    c.route("/graphql/v1", web::to(crate::rest_api::graphql));
                }
                if auth {
                    crate::auth_api::routes(c);
                }
                if storage {
                    crate::storage_api::routes(c);
                }
                if realtime {
                    crate::realtime_api::routes(c);
                }
                crate::functions_api::routes(c);
                crate::workbench_api::routes(c);
            })
            .service(
                web::scope("")
                    .wrap(middleware::Compress::default())
                    .default_service(web::to(crate::site::serve)),
            )
    })
    .workers(workers)
    .max_connections((state.config.connection_budget / workers).max(8))
    // A client has this long to send its request head, and to go away after the response.
    .client_request_timeout(std::time::Duration::from_secs(10))
    .client_disconnect_timeout(std::time::Duration::from_secs(5))
    // A client that closes its side mid-request is gone: its request is dropped, which cancels
    // its statement on the server (pipeline::Session, db::Tx), instead of running on for nobody.
    .h1_allow_half_closed(false)
    // Open sockets are closed by realtime's own shutdown; nothing else waits this long.
    .shutdown_timeout(5)
    .disable_signals();
    let server = match &state.config.api_tls {
        Some(pem) => server.listen_rustls_0_23(listener, tls_config(pem)?)?,
        None => server.listen(listener)?,
    };
    Ok(server.run())
}

/// The API's TLS settings (`[api.tls]`) from its PEM certificate chain and key.
pub fn tls_config(pem: &crate::config::TlsPem) -> std::io::Result<rustls::ServerConfig> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let bad = |what: &str, e: &dyn std::fmt::Display| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("[api.tls] {what}: {e}"),
        )
    };
    let certs = CertificateDer::pem_slice_iter(&pem.cert)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| bad("certificate", &e))?;
    if certs.is_empty() {
        return Err(bad("certificate", &"no CERTIFICATE block in the file"));
    }
    let key = PrivateKeyDer::from_pem_slice(&pem.key).map_err(|e| bad("key", &e))?;
    rustls::ServerConfig::builder_with_provider(std::sync::Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| bad("protocols", &e))?
    .with_no_client_auth()
    .with_single_cert(certs, key)
    .map_err(|e| bad("certificate and key", &e))
}
