//! Signed URLs: one or many download URLs (optionally fixing image transformations), and
//! upload URLs, issued only if RLS would let the caller write the object.

use super::upload::{Mode, Target};
use super::{Caller, Storage};
use crate::StorageError;
use crate::meta;
use crate::params::{SignManyParams, SignParams, strings};
use crate::signing;
use crate::transform::{Limits, Transform};
use serde_json::{Value, json};

/// `expiresIn` as storage-api's schema reads it (types coerced): a whole number, also written as
/// `10.0` or as a string (`"10"`, which supabase-py sends).
fn expires_in(v: &Option<Value>) -> Result<i64, StorageError> {
    v.as_ref()
        .and_then(|v| match v {
            Value::String(s) => s.trim().parse::<i64>().ok(),
            Value::Number(n) => n
                .as_i64()
                .or_else(|| n.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64)),
            _ => None,
        })
        .filter(|e| (1..=signing::MAX_EXPIRES_IN).contains(e))
        .ok_or_else(|| {
            StorageError::InvalidRequest(format!(
                "expiresIn must be a whole number of seconds from 1 to {} (100 years)",
                signing::MAX_EXPIRES_IN
            ))
        })
}

/// The `transform` of a sign request, as the claim storage-api puts in the token (empty for
/// none: the URL is then a plain download).
fn transformations(v: &Option<Value>) -> Result<String, StorageError> {
    let Some(t) = v.as_ref().and_then(Value::as_object) else {
        return Ok(String::new());
    };
    let as_query = t
        .iter()
        .map(|(k, v)| {
            let v = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            (k.clone(), v)
        })
        .collect();
    let parsed = Transform::from_query(&as_query)?;
    Ok(parsed.to_token(&Limits::default()))
}

impl Storage {
    /// Unencoded, as storage-api returns it: storage-js applies encodeURI to the whole URL.
    fn download_url(&self, bucket: &str, name: &str, secs: i64, transformations: &str) -> String {
        let token = signing::sign_download(&self.keys, bucket, name, secs, Some(transformations));
        let base = if transformations.is_empty() {
            "object"
        } else {
            "render/image"
        };
        format!("/{base}/sign/{bucket}/{name}?token={token}")
    }

    /// `{signedURL}` for an object the caller can see.
    pub async fn sign(
        &self,
        who: &Caller,
        bucket: &str,
        name: &str,
        b: SignParams,
    ) -> Result<Value, StorageError> {
        let secs = expires_in(&b.expires_in)?;
        let transformations = transformations(&b.transform)?;
        self.as_user(who, async |c| meta::object_by_name(c, bucket, name).await)
            .await?;
        let url = self.download_url(bucket, name, secs, &transformations);
        Ok(json!({ "signedURL": url }))
    }

    /// One entry per path: its URL, or why there is none.
    pub async fn sign_many(
        &self,
        who: &Caller,
        bucket: &str,
        b: SignManyParams,
    ) -> Result<Value, StorageError> {
        let secs = expires_in(&b.expires_in)?;
        let paths = strings(&b.paths);
        let visible = self
            .as_user(who, async |c| meta::visible_names(c, bucket, &paths).await)
            .await?;
        Ok(paths
            .iter()
            .map(|p| {
                if visible.contains(p) {
                    json!({"error": null, "path": p, "signedURL": self.download_url(bucket, p, secs, "")})
                } else {
                    json!({"error": "Either the object does not exist or you do not have access to it", "path": p, "signedURL": null})
                }
            })
            .collect())
    }

    /// An upload URL, issued only if the caller may write the object now (RLS, tried and
    /// rolled back): the upload itself then runs as the storage admin, the caller its owner.
    pub async fn upload_url(
        &self,
        who: &Caller,
        bucket: &str,
        name: &str,
        upsert: bool,
    ) -> Result<Value, StorageError> {
        let target = Target {
            bucket_id: bucket.to_string(),
            name: name.to_string(),
            mode: if upsert { Mode::Upsert } else { Mode::Create },
            writer: Some(who),
            owner: who.owner(),
        };
        self.bucket(bucket).await?;
        self.write_row(&target, "dry-run", &json!({}), true).await?;
        let sub = who.claims["sub"].as_str();
        let token = signing::sign_upload(&self.keys, bucket, name, sub, upsert);
        Ok(json!({
            "url": format!("/object/upload/sign/{bucket}/{name}?token={token}"),
            "token": token,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expires_in_is_read_as_storage_api_coerces_it() {
        for (given, read) in [
            (json!(60), Some(60)),
            (json!("60"), Some(60)),
            (json!(60.0), Some(60)),
            (json!(" 60 "), Some(60)),
            (json!("60.5"), None),
            (json!(60.5), None),
            (json!(0), None),
            (json!("soon"), None),
            (json!(true), None),
        ] {
            assert_eq!(expires_in(&Some(given.clone())).ok(), read, "{given}");
        }
        assert!(expires_in(&None).is_err());
    }
}
