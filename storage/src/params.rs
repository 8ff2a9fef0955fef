//! The bodies storage-api reads, with its names. Fields whose bad values storage-api's schema
//! reports in words of its own (`body/limit must be >= 1`) are kept as JSON and checked by the
//! service, which answers with those words.

use crate::StorageError;
use serde::Deserialize;
use serde_json::Value;

/// `POST /bucket`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct CreateBucket {
    pub id: Option<String>,
    pub name: Option<String>,
    pub public: Option<bool>,
    /// A number of bytes or a size such as `"5MB"`.
    pub file_size_limit: Option<Value>,
    pub allowed_mime_types: Option<Value>,
}

/// `PUT /bucket/{id}`: a field left out keeps its value, `null` clears a limit.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct UpdateBucket {
    pub public: Option<bool>,
    #[serde(deserialize_with = "present")]
    pub file_size_limit: Option<Value>,
    #[serde(deserialize_with = "present")]
    pub allowed_mime_types: Option<Value>,
}

/// A field that is present (even as `null`) is `Some`.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// `GET /bucket`'s query, as text (the service checks the numbers as storage-api's schema does).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct BucketListQuery {
    pub limit: Option<String>,
    pub offset: Option<String>,
    #[serde(rename = "sortColumn")]
    pub sort_column: Option<String>,
    #[serde(rename = "sortOrder")]
    pub sort_order: Option<String>,
    pub search: Option<String>,
}

/// `sortBy` of a listing.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct SortBy {
    pub column: Option<String>,
    pub order: Option<String>,
}

/// `POST /object/list/{bucket}` (storage-js `list()`).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct SearchParams {
    pub prefix: Option<String>,
    pub search: Option<String>,
    pub limit: Option<i64>,
    pub offset: Option<i64>,
    #[serde(rename = "sortBy")]
    pub sort_by: Option<SortBy>,
}

/// `POST /object/list-v2/{bucket}`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct ListV2Params {
    pub prefix: Option<Value>,
    pub cursor: Option<Value>,
    pub limit: Option<Value>,
    pub with_delimiter: Option<Value>,
    #[serde(rename = "sortBy")]
    pub sort_by: Option<Value>,
}

/// `DELETE /object/{bucket}`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct DeleteObjects {
    pub prefixes: Option<Value>,
}

/// `POST /object/move` and `/object/copy`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct MoveParams {
    #[serde(rename = "bucketId")]
    pub bucket_id: Option<String>,
    #[serde(rename = "sourceKey")]
    pub source_key: Option<String>,
    #[serde(rename = "destinationKey")]
    pub destination_key: Option<String>,
    #[serde(rename = "destinationBucket")]
    pub destination_bucket: Option<String>,
}

/// `POST /object/sign/{bucket}/{path}`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct SignParams {
    #[serde(rename = "expiresIn")]
    pub expires_in: Option<Value>,
    pub transform: Option<Value>,
}

/// `POST /object/sign/{bucket}`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct SignManyParams {
    #[serde(rename = "expiresIn")]
    pub expires_in: Option<Value>,
    pub paths: Option<Value>,
}

/// A JSON body as `T`: an empty body is all defaults; one that is not JSON of that shape is
/// an invalid request.
pub fn read<T: serde::de::DeserializeOwned + Default>(body: &[u8]) -> Result<T, StorageError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(T::default());
    }
    serde_json::from_slice(body)
        .map_err(|e| StorageError::InvalidRequest(format!("invalid JSON body: {e}")))
}

/// The strings of a JSON array field (`paths`, `prefixes`); anything else counts as none.
pub fn strings(v: &Option<Value>) -> Vec<String> {
    v.as_ref()
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bodies_read_with_storage_api_names() {
        let u: UpdateBucket =
            serde_json::from_value(json!({"public": true, "file_size_limit": null})).unwrap();
        assert_eq!(u.public, Some(true));
        assert_eq!(u.file_size_limit, Some(Value::Null), "null is a value");
        assert!(u.allowed_mime_types.is_none(), "missing is none");
        let m: MoveParams = serde_json::from_value(
            json!({"bucketId": "b", "sourceKey": "a", "destinationKey": "c"}),
        )
        .unwrap();
        assert_eq!(m.destination_key.as_deref(), Some("c"));
        let d: DeleteObjects = read(br#"{"prefixes": ["a", 1, "b"]}"#).unwrap();
        assert_eq!(strings(&d.prefixes), ["a", "b"]);
        assert!(read::<SearchParams>(b"{nope").is_err());
        assert!(read::<SearchParams>(b" ").unwrap().prefix.is_none());
    }
}
