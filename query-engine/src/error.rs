//! PostgREST's error body `{code, message, details, hint}` and HTTP status rules.

use serde::Serialize;
use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{code}: {message}")]
pub struct ApiError {
    #[serde(skip)]
    pub status: u16,
    pub code: String,
    pub message: String,
    /// Text, or JSON where PostgREST gives JSON (PGRST201's candidate relationships); boxed to
    /// keep errors small.
    pub details: Option<Box<Value>>,
    pub hint: Option<String>,
}

impl ApiError {
    pub fn new(status: u16, code: &str, message: impl Into<String>) -> Self {
        ApiError {
            status,
            code: code.into(),
            message: message.into(),
            details: None,
            hint: None,
        }
    }

    pub fn details(mut self, d: impl Into<String>) -> Self {
        self.details = Some(Box::new(Value::String(d.into())));
        self
    }

    pub fn details_json(mut self, d: Value) -> Self {
        self.details = Some(Box::new(d));
        self
    }

    /// The details as text (JSON details as their JSON text).
    pub fn details_text(&self) -> Option<String> {
        self.details.as_deref().map(|d| match d {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
    }

    pub fn hint(mut self, h: impl Into<String>) -> Self {
        self.hint = Some(h.into());
        self
    }

    pub fn body(&self) -> String {
        serde_json::to_string(self).expect("error body serializes")
    }
}

impl From<crate::parser::ParseError> for ApiError {
    fn from(e: crate::parser::ParseError) -> Self {
        ApiError::new(400, "PGRST100", e.to_string()).details(e.details)
    }
}

/// HTTP status for a PostgreSQL error, as PostgREST's `mapSQLtoHTTP`.
pub fn status_for_sqlstate(code: &str, message: &str, is_anon: bool) -> u16 {
    let class = &code[..2.min(code.len())];
    match code {
        "23503" | "23505" => 409,
        "25006" => 405,
        "21000" if message.ends_with("requires a WHERE clause") => 400,
        "21000" => 500,
        "22023" if message.starts_with("role \"") && message.ends_with("does not exist") => 401,
        "42883" if message.starts_with("function xmlagg(") => 406,
        "42883" => 404,
        "42P01" => 404,
        "42P17" => 500,
        "42501" => {
            if is_anon {
                401
            } else {
                403
            }
        }
        // PostgREST answers 500 for 57P03 (the server is starting) and 57P02; both mean "come
        // back in a moment", so they are 503s here, like 57P01.
        "57P01" | "57P02" | "57P03" => 503,
        "P0001" => 400,
        "53400" => 500,
        _ => match class {
            "08" => 503,
            "09" => 500,
            "0L" | "0P" => 403,
            "25" => 500,
            "28" => 403,
            "2D" | "38" | "39" | "3B" | "40" => 500,
            "53" => 503,
            "54" | "55" | "57" | "58" | "F0" | "HV" | "P0" | "XX" => 500,
            "PT" => code[2..]
                .parse()
                .ok()
                .filter(|s| (100..600).contains(s))
                .unwrap_or(500),
            _ => 400,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlstate_mapping() {
        assert_eq!(status_for_sqlstate("23505", "duplicate key", false), 409);
        assert_eq!(status_for_sqlstate("23503", "fk", false), 409);
        assert_eq!(
            status_for_sqlstate("22P02", "invalid input syntax for type uuid", false),
            400
        );
        assert_eq!(
            status_for_sqlstate("42703", "column x does not exist", false),
            400
        );
        assert_eq!(status_for_sqlstate("42501", "permission denied", true), 401);
        assert_eq!(
            status_for_sqlstate("42501", "permission denied", false),
            403
        );
        assert_eq!(status_for_sqlstate("25006", "read-only", false), 405);
        assert_eq!(status_for_sqlstate("42P01", "no table", false), 404);
        assert_eq!(status_for_sqlstate("PT418", "teapot", false), 418);
        assert_eq!(
            status_for_sqlstate(
                "57014",
                "canceling statement due to statement timeout",
                false
            ),
            500
        );
        assert_eq!(status_for_sqlstate("08006", "conn", false), 503);
        assert_eq!(status_for_sqlstate("P0001", "raise", false), 400);
    }

    #[test]
    fn body_has_all_four_keys() {
        let e = ApiError::new(
            404,
            "PGRST205",
            "Could not find the table 'public.x' in the schema cache",
        );
        assert_eq!(
            e.body(),
            r#"{"code":"PGRST205","message":"Could not find the table 'public.x' in the schema cache","details":null,"hint":null}"#
        );
    }
}
