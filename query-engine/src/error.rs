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

/// PostgREST's error codes (its "Error codes" reference), each with the HTTP status it answers
/// with; the message (and details, hint) say what went wrong in the request at hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pgrst {
    /// PGRST000: The database cannot be reached (supagate also answers a body that did not arrive in time with it, as 408).
    Connection,
    /// PGRST001: The database connection failed while in use.
    ConnectionLost,
    /// PGRST003: No connection of the pool was free in time.
    PoolTimeout,
    /// PGRST100: The query string, a filter or `select` does not parse.
    Parse,
    /// PGRST101: A function called with a method it does not take.
    InvalidRpcMethod,
    /// PGRST102: The body is not valid JSON, or not the JSON the request needs.
    InvalidBody,
    /// PGRST103: A range (or offset) that cannot be satisfied.
    InvalidRange,
    /// PGRST105: A PUT that is not an upsert of one row by its primary key.
    InvalidPut,
    /// PGRST106: A schema that is not exposed.
    SchemaNotExposed,
    /// PGRST107: No media type the client accepts is available.
    NotAcceptable,
    /// PGRST108: A filter, order or limit on a relation that is not embedded.
    FilterNotEmbedded,
    /// PGRST114: A PUT with limit or offset.
    PutWithLimit,
    /// PGRST115: A PUT whose body's primary key differs from the filter's.
    PutKeyMismatch,
    /// PGRST116: A singular response (`vnd.pgrst.object`) with other than one row.
    Singular,
    /// PGRST117: An HTTP method PostgREST does not take.
    UnsupportedMethod,
    /// PGRST122: Preferences that `handling=strict` refuses.
    InvalidPreferences,
    /// PGRST123: Aggregate functions while they are disabled.
    AggregatesDisabled,
    /// PGRST124: More rows affected than `max-affected` allows.
    MaxAffected,
    /// PGRST125: A path that names nothing.
    InvalidPath,
    /// PGRST128: A function call that affected more rows than `max-affected` allows.
    MaxAffectedRpc,
    /// PGRST200: An embedding with no relationship between the tables.
    NoRelationship,
    /// PGRST201: An embedding that more than one relationship could mean.
    AmbiguousRelationship,
    /// PGRST202: A function not in the schema cache.
    FunctionNotFound,
    /// PGRST203: A call that more than one overload of a function could mean.
    AmbiguousFunction,
    /// PGRST204: A column not in the schema cache.
    ColumnNotFound,
    /// PGRST205: A table not in the schema cache.
    TableNotFound,
    /// PGRST301: A JWT that cannot be decoded or whose signature is wrong.
    InvalidJwt,
    /// PGRST303: A JWT whose claims are refused (expired, wrong audience, …).
    JwtClaims,
    /// PGRST413: A body larger than supagate takes (supagate's own code).
    BodyTooLarge,
}

impl Pgrst {
    /// The code, as the body's `code`.
    pub fn code(self) -> &'static str {
        match self {
            Pgrst::Connection => "PGRST000",
            Pgrst::ConnectionLost => "PGRST001",
            Pgrst::PoolTimeout => "PGRST003",
            Pgrst::Parse => "PGRST100",
            Pgrst::InvalidRpcMethod => "PGRST101",
            Pgrst::InvalidBody => "PGRST102",
            Pgrst::InvalidRange => "PGRST103",
            Pgrst::InvalidPut => "PGRST105",
            Pgrst::SchemaNotExposed => "PGRST106",
            Pgrst::NotAcceptable => "PGRST107",
            Pgrst::FilterNotEmbedded => "PGRST108",
            Pgrst::PutWithLimit => "PGRST114",
            Pgrst::PutKeyMismatch => "PGRST115",
            Pgrst::Singular => "PGRST116",
            Pgrst::UnsupportedMethod => "PGRST117",
            Pgrst::InvalidPreferences => "PGRST122",
            Pgrst::AggregatesDisabled => "PGRST123",
            Pgrst::MaxAffected => "PGRST124",
            Pgrst::InvalidPath => "PGRST125",
            Pgrst::MaxAffectedRpc => "PGRST128",
            Pgrst::NoRelationship => "PGRST200",
            Pgrst::AmbiguousRelationship => "PGRST201",
            Pgrst::FunctionNotFound => "PGRST202",
            Pgrst::AmbiguousFunction => "PGRST203",
            Pgrst::ColumnNotFound => "PGRST204",
            Pgrst::TableNotFound => "PGRST205",
            Pgrst::InvalidJwt => "PGRST301",
            Pgrst::JwtClaims => "PGRST303",
            Pgrst::BodyTooLarge => "PGRST413",
        }
    }

    /// The HTTP status PostgREST answers it with.
    pub fn status(self) -> u16 {
        match self {
            Pgrst::Connection => 503,
            Pgrst::ConnectionLost => 503,
            Pgrst::PoolTimeout => 504,
            Pgrst::Parse => 400,
            Pgrst::InvalidRpcMethod => 405,
            Pgrst::InvalidBody => 400,
            Pgrst::InvalidRange => 416,
            Pgrst::InvalidPut => 405,
            Pgrst::SchemaNotExposed => 406,
            Pgrst::NotAcceptable => 406,
            Pgrst::FilterNotEmbedded => 400,
            Pgrst::PutWithLimit => 400,
            Pgrst::PutKeyMismatch => 400,
            Pgrst::Singular => 406,
            Pgrst::UnsupportedMethod => 405,
            Pgrst::InvalidPreferences => 400,
            Pgrst::AggregatesDisabled => 400,
            Pgrst::MaxAffected => 400,
            Pgrst::InvalidPath => 404,
            Pgrst::MaxAffectedRpc => 400,
            Pgrst::NoRelationship => 400,
            Pgrst::AmbiguousRelationship => 300,
            Pgrst::FunctionNotFound => 404,
            Pgrst::AmbiguousFunction => 300,
            Pgrst::ColumnNotFound => 400,
            Pgrst::TableNotFound => 404,
            Pgrst::InvalidJwt => 401,
            Pgrst::JwtClaims => 401,
            Pgrst::BodyTooLarge => 413,
        }
    }
}

impl ApiError {
    /// The error `code` stands for, with its status.
    pub fn pgrst(code: Pgrst, message: impl Into<String>) -> Self {
        ApiError::new(code.status(), code.code(), message)
    }

    /// The same error answered with another status than its code's usual one.
    pub fn with_status(mut self, status: u16) -> Self {
        self.status = status;
        self
    }

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
        ApiError::pgrst(Pgrst::Parse, e.to_string()).details(e.details)
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
        let e = ApiError::pgrst(
            Pgrst::TableNotFound,
            "Could not find the table 'public.x' in the schema cache",
        );
        assert_eq!(
            e.body(),
            r#"{"code":"PGRST205","message":"Could not find the table 'public.x' in the schema cache","details":null,"hint":null}"#
        );
    }
}
