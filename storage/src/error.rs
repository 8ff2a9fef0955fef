//! Storage errors with storage-api's codes; the gateway renders them as
//! `{statusCode, code, error, message}`.

#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    #[error("Bucket not found")]
    NoSuchBucket,
    #[error("Object not found")]
    NoSuchKey,
    #[error("The resource already exists")]
    Duplicate,
    #[error("{0}")]
    AccessDenied(String),
    #[error("The object exceeded the maximum allowed size")]
    TooLarge,
    #[error("mime type {0} is not supported")]
    InvalidMimeType(String),
    #[error("Invalid key: {0}")]
    InvalidKey(String),
    #[error("{0}")]
    InvalidRequest(String),
    #[error("{0}")]
    InvalidJwt(String),
    #[error("The bucket you tried to delete is not empty")]
    BucketNotEmpty,
    #[error("The bucket already exists")]
    BucketExists,
    #[error("database error: {0}")]
    Db(tokio_postgres::Error),
    #[error("storage backend error: {0}")]
    Backend(#[from] object_store::Error),
}

impl StorageError {
    /// (logical status, code, short error) as storage-api reports them.
    pub fn parts(&self) -> (u16, &'static str, &'static str) {
        match self {
            StorageError::NoSuchBucket => (404, "NoSuchBucket", "Bucket not found"),
            StorageError::NoSuchKey => (404, "NoSuchKey", "not_found"),
            StorageError::Duplicate => (409, "KeyAlreadyExists", "Duplicate"),
            StorageError::AccessDenied(_) => (403, "AccessDenied", "Unauthorized"),
            StorageError::TooLarge => (413, "EntityTooLarge", "Payload too large"),
            StorageError::InvalidMimeType(_) => (415, "InvalidMimeType", "invalid_mime_type"),
            StorageError::InvalidKey(_) => (400, "InvalidKey", "Invalid Input"),
            StorageError::InvalidRequest(_) => (400, "InvalidRequest", "Invalid Input"),
            StorageError::InvalidJwt(_) => (403, "InvalidJWT", "Unauthorized"),
            StorageError::BucketNotEmpty => (409, "InvalidRequest", "Bucket not empty"),
            StorageError::BucketExists => (409, "BucketAlreadyExists", "Duplicate"),
            StorageError::Db(_) => (500, "DatabaseError", "Internal Server Error"),
            StorageError::Backend(_) => (500, "InternalError", "Internal Server Error"),
        }
    }
}

impl From<tokio_postgres::Error> for StorageError {
    fn from(e: tokio_postgres::Error) -> Self {
        use tokio_postgres::error::SqlState;
        match e.code() {
            Some(c) if *c == SqlState::INSUFFICIENT_PRIVILEGE => StorageError::AccessDenied(
                e.as_db_error()
                    .map(|d| d.message().to_string())
                    .unwrap_or_else(|| "Access denied".into()),
            ),
            Some(c) if *c == SqlState::UNIQUE_VIOLATION => StorageError::Duplicate,
            Some(c) if *c == SqlState::FOREIGN_KEY_VIOLATION => StorageError::NoSuchBucket,
            _ => StorageError::Db(e),
        }
    }
}
