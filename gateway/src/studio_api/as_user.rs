//! Calling the API as one of the project's users from Studio: Studio's server signs a
//! short-lived access token for the user (`studio::token`, the claims the SQL editor and the
//! policies' preview run with as that user) with the project's signing key. Only
//! Studio's browser gets it (behind Studio's secret, as every `/api` call).

use super::Shared;
use actix_web::{HttpResponse, web};
use serde_json::json;

/// A user id's longest text (a UUID is 36).
const MAX_ID: usize = 64;

async fn token(s: web::Data<Shared>, id: web::Path<String>) -> HttpResponse {
    if id.is_empty() || id.len() > MAX_ID {
        return HttpResponse::BadRequest().json(json!({
            "message": format!("a user's id is 1 to {MAX_ID} characters"),
            "code": "invalid",
        }));
    }
    let claims = match s.studio.user_claims(&id).await {
        Ok(c) => c,
        Err(e) => {
            return HttpResponse::build(
                actix_web::http::StatusCode::from_u16(e.status())
                    .unwrap_or(actix_web::http::StatusCode::INTERNAL_SERVER_ERROR),
            )
            .json(e.body());
        }
    };
    HttpResponse::Ok().json(json!({
        "access_token": s.state.keys.sign(&claims),
        "expires_at": claims["exp"],
        "claims": claims,
    }))
}

pub fn routes(c: &mut web::ServiceConfig) {
    c.route("/users/{id}/token", web::post().to(token));
}
