//! The one place where errors become HTTP responses, in the body shape of the API that failed:
//! PostgREST `{code,message,details,hint}`, GoTrue `{code,error_code,msg,message}` or Storage
//! `{statusCode,code,error,message}` or Realtime `{message}` (with `errors` for invalid input).

use actix_web::{HttpResponse, ResponseError, http::StatusCode};
use query_engine::{ApiError, Pgrst};
use serde_json::json;

#[derive(Debug, thiserror::Error)]
pub enum GatewayError {
    #[error("{0}")]
    Rest(ApiError),
    /// `legacy`: the client sent no X-Supabase-Api-Version, so the body is GoTrue's old shape.
    #[error("{message}")]
    Auth {
        status: u16,
        code: auth::ErrorCode,
        message: String,
        legacy: bool,
        /// For weak_password: GoTrue's `weak_password.reasons`.
        reasons: Vec<&'static str>,
    },
    /// GoTrue's OAuth errors (a web3 grant refused: `invalid_grant`): `{error,
    /// error_description}` in any API version, as GoTrue sends them.
    #[error("{error}: {description}")]
    AuthOAuth {
        status: u16,
        error: &'static str,
        description: String,
    },
    #[error("{0}")]
    Storage(storage::StorageError),
    #[error("{message}")]
    Realtime {
        status: u16,
        message: String,
        /// Which fields were invalid (422).
        errors: Option<serde_json::Value>,
    },
}

impl GatewayError {
    /// An auth error in the body shape the client asked for.
    pub fn from_auth(e: auth::AuthError, legacy: bool) -> Self {
        if let auth::AuthError::OAuth {
            status,
            error,
            description,
        } = e
        {
            return GatewayError::AuthOAuth {
                status,
                error,
                description,
            };
        }
        let (status, code, message) = e.parts();
        let reasons = match e {
            auth::AuthError::WeakPassword { reasons, .. } => reasons,
            _ => Vec::new(),
        };
        GatewayError::Auth {
            status,
            code,
            message,
            legacy,
            reasons,
        }
    }
}

impl From<storage::StorageError> for GatewayError {
    /// Logged here: failures of the server, and database errors with what PostgreSQL said.
    fn from(e: storage::StorageError) -> Self {
        if let storage::StorageError::Db(db) = &e {
            let detail = db.as_db_error().map(|d| d.message().to_string());
            tracing::error!("storage: {e}: {}", detail.unwrap_or_default());
        } else if e.parts().0 >= 500 {
            tracing::error!("storage: {e}");
        }
        GatewayError::Storage(e)
    }
}

impl From<ApiError> for GatewayError {
    fn from(e: ApiError) -> Self {
        GatewayError::Rest(e)
    }
}

impl ResponseError for GatewayError {
    fn status_code(&self) -> StatusCode {
        let s = match self {
            GatewayError::Rest(e) => e.status,
            GatewayError::Auth { status, .. } | GatewayError::AuthOAuth { status, .. } => *status,
            // storage-api answers 400 for every client error and keeps the real one in the body.
            GatewayError::Storage(e) => {
                let status = e.parts().0;
                if status >= 500 { status } else { 400 }
            }
            GatewayError::Realtime { status, .. } => *status,
        };
        StatusCode::from_u16(s).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
    }

    fn error_response(&self) -> HttpResponse {
        let mut r = HttpResponse::build(self.status_code());
        if self.status_code() == StatusCode::SERVICE_UNAVAILABLE {
            // The database is restarting or unreachable: clients (postgrest-js retries 503s)
            // come back in a moment.
            r.insert_header(("Retry-After", "1"));
        }
        match self {
            GatewayError::Rest(e) => {
                r.insert_header(("Proxy-Status", format!("PostgREST; error={}", e.code)));
                if e.status == 401 {
                    r.insert_header(("WWW-Authenticate", www_authenticate(e)));
                }
                r.content_type("application/json; charset=utf-8")
                    .body(e.body())
            }
            GatewayError::Auth {
                status,
                code,
                message,
                legacy,
                reasons,
            } => {
                r.insert_header(("x-sb-error-code", code.as_str()));
                let mut body = if *legacy {
                    json!({"code": status, "error_code": code.as_str(), "msg": message})
                } else {
                    r.insert_header(("X-Supabase-Api-Version", "2024-01-01"));
                    json!({"code": code.as_str(), "message": message})
                };
                if *code == auth::ErrorCode::WeakPassword {
                    body["weak_password"] = json!({ "reasons": reasons });
                }
                r.content_type("application/json").body(body.to_string())
            }
            GatewayError::AuthOAuth {
                error, description, ..
            } => r
                .content_type("application/json")
                .body(json!({"error": error, "error_description": description}).to_string()),
            GatewayError::Storage(e) => {
                let (status, code, error) = e.parts();
                r.content_type("application/json; charset=utf-8").body(
                    json!({"statusCode": status.to_string(), "code": code, "error": error,
                           "message": e.message()})
                    .to_string(),
                )
            }
            GatewayError::Realtime {
                message, errors, ..
            } => {
                let mut body = json!({ "message": message });
                if let Some(e) = errors {
                    body["errors"] = e.clone();
                }
                r.content_type("application/json").body(body.to_string())
            }
        }
    }
}

fn www_authenticate(e: &ApiError) -> String {
    if e.code == Pgrst::InvalidJwt.code() || e.code == Pgrst::JwtClaims.code() {
        format!(
            "Bearer error=\"invalid_token\", error_description=\"{}\"",
            e.message.replace('"', "'")
        )
    } else {
        "Bearer".to_string()
    }
}
