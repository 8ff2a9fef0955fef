//! `/storage/v1`: Supabase Storage-compatible buckets and objects.

use crate::error::GatewayError;
use actix_web::{HttpRequest, HttpResponse, web};

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(web::scope("/storage/v1").default_service(web::to(not_found)));
}

async fn not_found(req: HttpRequest) -> Result<HttpResponse, GatewayError> {
    Err(GatewayError::storage(
        404,
        "NotFound",
        "not_found",
        format!("Route {} {} not found", req.method(), req.path()),
    ))
}
