//! Errors as GoTrue reports them: an HTTP status, an `error_code` and a message.

#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    #[error("{message}")]
    Api {
        status: u16,
        code: &'static str,
        message: String,
    },
    /// 422 weak_password, with GoTrue's `weak_password.reasons`.
    #[error("{message}")]
    WeakPassword {
        message: String,
        reasons: Vec<&'static str>,
    },
    #[error("database error: {0}")]
    Db(#[from] tokio_postgres::Error),
}

pub fn api(status: u16, code: &'static str, message: impl Into<String>) -> AuthError {
    AuthError::Api {
        status,
        code,
        message: message.into(),
    }
}

pub fn invalid_credentials() -> AuthError {
    api(400, "invalid_credentials", "Invalid login credentials")
}

pub fn validation(message: impl Into<String>) -> AuthError {
    api(400, "validation_failed", message)
}

pub fn user_not_found() -> AuthError {
    api(404, "user_not_found", "User not found")
}

pub fn otp_expired() -> AuthError {
    api(403, "otp_expired", "Token has expired or is invalid")
}

pub fn link_expired() -> AuthError {
    api(403, "otp_expired", "Email link is invalid or has expired")
}

/// Too soon after the last mail of this kind to this user.
pub fn too_frequent(seconds_left: i64) -> AuthError {
    api(
        429,
        "over_email_send_rate_limit",
        format!(
            "For security purposes, you can only request this after {} seconds.",
            seconds_left.max(1)
        ),
    )
}

pub type Result<T> = std::result::Result<T, AuthError>;
