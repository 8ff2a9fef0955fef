//! Storage errors with storage-api's codes; the gateway renders them as
//! `{statusCode, code, error, message}`.

#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    #[error("Bucket not found")]
    NoSuchBucket,
    #[error("Object not found")]
    NoSuchKey,
    #[error("Upload not found")]
    NoSuchUpload,
    #[error("The resource already exists")]
    Duplicate,
    #[error("{0}")]
    AccessDenied(String),
    #[error("The object exceeded the maximum allowed size")]
    TooLarge,
    #[error("mime type {0} is not supported")]
    InvalidMimeType(String),
    /// Content a browser would run, or an executable, declared as an inert type.
    #[error(
        "mime type {0} is not supported: the content would run in a browser or is an executable"
    )]
    ActiveContent(String),
    #[error("Invalid key: {0}")]
    InvalidKey(String),
    #[error("Bucket name invalid")]
    InvalidBucketName,
    #[error("{0}")]
    InvalidRequest(String),
    /// A parameter with a bad value: `Invalid Parameter {0}` unless a message is given.
    #[error("{}", .message.clone().unwrap_or_else(|| format!("Invalid Parameter {}", .name)))]
    InvalidParameter {
        name: String,
        message: Option<String>,
    },
    #[error("Missing Required Parameter {0}")]
    MissingParameter(String),
    #[error("Invalid file size format, hint: use 20GB / 20MB / 30KB / 3B")]
    InvalidFileSizeLimit,
    #[error("{0}")]
    InvalidJwt(String),
    #[error("{0}")]
    InvalidSignature(String),
    #[error("The provided token has expired.")]
    ExpiredSignature,
    #[error("invalid range provided")]
    InvalidRange,
    /// An image that cannot be transformed (status, message as storage-api words them).
    #[error("{1}")]
    ImageProcessing(u16, String),
    #[error("The bucket you tried to delete is not empty")]
    BucketNotEmpty,
    #[error("The resource already exists")]
    BucketExists,
    #[error("database error: {0}")]
    Db(tokio_postgres::Error),
    /// The database is down or restarting: come back shortly.
    #[error("The database is not available; try again shortly")]
    Unavailable,
    /// A failure the client can do nothing about (logged where it happened).
    #[error("Internal Server Error")]
    Internal,
    /// No route has this method and path.
    #[error("Route {0} not found")]
    NoRoute(String),
    /// A tus protocol error: its status and message, answered as text.
    #[error("{1}")]
    Tus(u16, String),
    #[error("storage backend error: {0}")]
    Backend(#[from] object_store::Error),
}

impl StorageError {
    /// (logical status, code, short error) as storage-api reports them: the short error is the
    /// code itself unless storage-api names one.
    pub fn parts(&self) -> (u16, &'static str, &'static str) {
        match self {
            StorageError::NoSuchBucket => (404, "NoSuchBucket", "Bucket not found"),
            StorageError::NoSuchKey => (404, "NoSuchKey", "not_found"),
            StorageError::NoSuchUpload => (404, "NoSuchUpload", "NoSuchUpload"),
            StorageError::Duplicate => (409, "KeyAlreadyExists", "Duplicate"),
            StorageError::AccessDenied(_) => (403, "AccessDenied", "Unauthorized"),
            StorageError::TooLarge => (413, "EntityTooLarge", "Payload too large"),
            StorageError::InvalidMimeType(_) | StorageError::ActiveContent(_) => {
                (415, "InvalidMimeType", "invalid_mime_type")
            }
            StorageError::InvalidKey(_) => (400, "InvalidKey", "InvalidKey"),
            StorageError::InvalidBucketName => (400, "InvalidBucketName", "Invalid Input"),
            StorageError::InvalidRequest(_) | StorageError::InvalidFileSizeLimit => {
                (400, "InvalidRequest", "InvalidRequest")
            }
            StorageError::InvalidParameter { .. } => (400, "InvalidParameter", "InvalidParameter"),
            StorageError::MissingParameter(_) => (400, "MissingParameter", "MissingParameter"),
            StorageError::InvalidJwt(_) => (400, "InvalidJWT", "InvalidJWT"),
            StorageError::InvalidSignature(_) => (400, "InvalidSignature", "InvalidSignature"),
            StorageError::ExpiredSignature => (400, "ExpiredToken", "ExpiredToken"),
            StorageError::InvalidRange => (400, "InvalidRange", "invalid_range"),
            StorageError::ImageProcessing(s, _) if *s >= 500 => {
                (*s, "InternalError", "InternalError")
            }
            StorageError::ImageProcessing(s, _) => (*s, "InvalidRequest", "InvalidRequest"),
            StorageError::BucketNotEmpty => (409, "ResourceNotEmpty", "ResourceNotEmpty"),
            StorageError::BucketExists => (409, "BucketAlreadyExists", "Duplicate"),
            StorageError::Db(_) | StorageError::Internal => {
                (500, "DatabaseError", "Internal Server Error")
            }
            StorageError::Unavailable => (503, "DatabaseError", "Service Unavailable"),
            StorageError::NoRoute(_) => (404, "NotFound", "not_found"),
            StorageError::Tus(s, _) => (*s, "TusError", "TusError"),
            StorageError::Backend(_) => (500, "InternalError", "Internal Server Error"),
        }
    }
}

impl StorageError {
    /// The message clients see: failures inside the server are not described to them.
    pub fn message(&self) -> String {
        match self {
            StorageError::Db(_) | StorageError::Backend(_) => "Internal Server Error".into(),
            other => other.to_string(),
        }
    }
}

/// storage-api's words for PostgreSQL's 42501: a row-level security refusal is named without
/// its table ("new row violates row-level security policy"), other refusals keep their message.
fn access_denied(message: Option<&str>) -> String {
    match message {
        Some(m) if m.contains("row-level security") => {
            "new row violates row-level security policy".into()
        }
        Some(m) => m.to_string(),
        None => "Access denied".into(),
    }
}

impl From<tokio_postgres::Error> for StorageError {
    fn from(e: tokio_postgres::Error) -> Self {
        use tokio_postgres::error::SqlState;
        match e.code() {
            Some(c) if *c == SqlState::INSUFFICIENT_PRIVILEGE => {
                StorageError::AccessDenied(access_denied(e.as_db_error().map(|d| d.message())))
            }
            Some(c) if *c == SqlState::UNIQUE_VIOLATION => StorageError::Duplicate,
            Some(c) if *c == SqlState::FOREIGN_KEY_VIOLATION => StorageError::NoSuchBucket,
            _ => StorageError::Db(e),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn access_refusals_in_storage_apis_words() {
        // (PostgreSQL's message, storage-api's)
        let cases = [
            (
                Some("new row violates row-level security policy for table \"objects\""),
                "new row violates row-level security policy",
            ),
            (
                Some("permission denied for table objects"),
                "permission denied for table objects",
            ),
            (None, "Access denied"),
        ];
        for (pg, want) in cases {
            assert_eq!(super::access_denied(pg), want);
        }
    }
}
