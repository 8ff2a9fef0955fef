//! The answers the Supabase CLI's functions router gives for what is not the function's own
//! response: unknown functions, rejected tokens, workers that failed.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum FunctionsError {
    /// No function by that name (text, as the router answers).
    #[error("Function not found")]
    NotFound,
    /// `verify_jwt` and no usable token: the router's `{"msg": …}`.
    #[error("{0}")]
    Unauthorized(String),
    #[error("Worker failed to boot (please check logs)")]
    BootError,
    #[error("Function exited due to an error (please check logs)")]
    WorkerError,
    #[error("Worker failed to respond due to a resource limit (please check logs)")]
    WorkerLimit,
}

impl FunctionsError {
    pub fn status(&self) -> u16 {
        match self {
            FunctionsError::NotFound => 404,
            FunctionsError::Unauthorized(_) => 401,
            FunctionsError::BootError => 503,
            FunctionsError::WorkerError => 500,
            FunctionsError::WorkerLimit => 546,
        }
    }

    /// The body and its content type.
    pub fn body(&self) -> (&'static str, String) {
        let code = match self {
            FunctionsError::NotFound => return ("text/plain", self.to_string()),
            FunctionsError::Unauthorized(msg) => {
                return (
                    "application/json",
                    serde_json::json!({ "msg": msg }).to_string(),
                );
            }
            FunctionsError::BootError => "BOOT_ERROR",
            FunctionsError::WorkerError => "WORKER_ERROR",
            FunctionsError::WorkerLimit => "WORKER_LIMIT",
        };
        (
            "application/json",
            serde_json::json!({ "code": code, "message": self.to_string() }).to_string(),
        )
    }
}

/// The token the router checks for a `verify_jwt` function, from the `Authorization` header
/// as the CLI's gateway forwards it: None and the answer when there is none to check.
pub fn bearer(authorization: Option<&str>) -> Result<&str, FunctionsError> {
    let h = authorization.ok_or_else(|| {
        FunctionsError::Unauthorized("Error: Missing authorization header".into())
    })?;
    match h.split_once(' ') {
        Some(("Bearer", token)) => Ok(token),
        _ => Err(FunctionsError::Unauthorized(
            "Error: Auth header is not 'Bearer {token}'".into(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_the_routers() {
        let table = [
            (FunctionsError::NotFound, 404, "Function not found"),
            (
                FunctionsError::BootError,
                503,
                r#"{"code":"BOOT_ERROR","message":"Worker failed to boot (please check logs)"}"#,
            ),
            (
                FunctionsError::WorkerError,
                500,
                r#"{"code":"WORKER_ERROR","message":"Function exited due to an error (please check logs)"}"#,
            ),
            (
                FunctionsError::WorkerLimit,
                546,
                r#"{"code":"WORKER_LIMIT","message":"Worker failed to respond due to a resource limit (please check logs)"}"#,
            ),
            (
                FunctionsError::Unauthorized("Invalid JWT".into()),
                401,
                r#"{"msg":"Invalid JWT"}"#,
            ),
        ];
        for (e, status, body) in table {
            assert_eq!((e.status(), e.body().1.as_str()), (status, body));
        }
        assert_eq!(bearer(Some("Bearer abc")).unwrap(), "abc");
        assert_eq!(
            bearer(None).unwrap_err().body().1,
            r#"{"msg":"Error: Missing authorization header"}"#
        );
        assert_eq!(
            bearer(Some("abc")).unwrap_err().body().1,
            r#"{"msg":"Error: Auth header is not 'Bearer {token}'"}"#
        );
    }
}
