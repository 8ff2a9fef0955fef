//! `/auth/v1`: GoTrue-compatible authentication.

use crate::error::GatewayError;
use actix_web::{HttpRequest, HttpResponse, web};

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope("/auth/v1")
            .route("/health", web::get().to(health))
            .default_service(web::to(not_found)),
    );
}

async fn health() -> HttpResponse {
    HttpResponse::Ok().json(serde_json::json!({
        "version": env!("CARGO_PKG_VERSION"), "name": "GoTrue", "description": "supagate auth (GoTrue-compatible)"
    }))
}

async fn not_found(req: HttpRequest) -> Result<HttpResponse, GatewayError> {
    Err(GatewayError::auth(404, "not_found", format!("Unhandled request: {} {}", req.method(), req.path())))
}
