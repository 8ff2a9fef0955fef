//! Signed URLs: JWTs (the project secret) naming one object, an expiry and a scope, as
//! storage-api signs them. A download token may carry image transformations; an upload token
//! carries the owner and whether it may overwrite. A token of one scope never passes for the
//! other.

use crate::StorageError;
use identity::jwt::{JwtError, JwtKeys};
use serde_json::{Value, json};

/// The longest a signed URL may live: 100 years, far from any overflow of `exp`.
pub const MAX_EXPIRES_IN: i64 = 100 * 365 * 24 * 3600;
/// How long a signed upload URL lives (storage-api's `UPLOAD_SIGNED_URL_EXPIRATION_TIME`).
pub const UPLOAD_EXPIRES_IN: i64 = 2 * 3600;

const DOWNLOAD: &str = "download";
const UPLOAD: &str = "upload";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Download,
    Upload,
}

/// What a verified token allows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Grant {
    /// Image transformations a render token fixes (`width:100,height:100,resize:cover`).
    pub transformations: Option<String>,
    /// The owner an upload token writes the object as.
    pub owner: Option<String>,
    pub upsert: bool,
    /// Expiry, seconds since the epoch.
    pub exp: i64,
}

fn sign(keys: &JwtKeys, mut claims: Value, expires_in: i64) -> String {
    let now = identity::clock::now();
    claims["iat"] = json!(now);
    claims["exp"] = json!(now.saturating_add(expires_in.clamp(1, MAX_EXPIRES_IN)));
    keys.sign(&claims)
}

/// A download token for `bucket/name`, optionally fixing image transformations.
pub fn sign_download(
    keys: &JwtKeys,
    bucket: &str,
    name: &str,
    expires_in: i64,
    transformations: Option<&str>,
) -> String {
    let mut claims = json!({ "url": format!("{bucket}/{name}"), "scope": DOWNLOAD });
    if let Some(t) = transformations.filter(|t| !t.is_empty()) {
        claims["transformations"] = json!(t);
    }
    sign(keys, claims, expires_in)
}

/// An upload token for `bucket/name`, written as `owner`, overwriting only when `upsert`.
pub fn sign_upload(
    keys: &JwtKeys,
    bucket: &str,
    name: &str,
    owner: Option<&str>,
    upsert: bool,
) -> String {
    let claims = json!({
        "owner": owner, "url": format!("{bucket}/{name}"), "upsert": upsert, "scope": UPLOAD,
    });
    sign(keys, claims, UPLOAD_EXPIRES_IN)
}

/// Checks signature, expiry, scope and that the token names exactly this object; the errors
/// are storage-api's.
pub fn verify(
    keys: &JwtKeys,
    token: &str,
    bucket: &str,
    name: &str,
    scope: Scope,
) -> Result<Grant, StorageError> {
    let claims = keys.verify(token).map_err(|e| {
        StorageError::InvalidJwt(
            match e {
                JwtError::Parts(_) => "Invalid Compact JWS",
                JwtError::Expired => "\"exp\" claim timestamp check failed",
                JwtError::NotYetValid => "\"nbf\" claim timestamp check failed",
                _ => "signature verification failed",
            }
            .into(),
        )
    })?;
    let declared = claims["scope"].as_str();
    // Tokens signed before scopes existed: an upload token is the one with `upsert`.
    let is_upload =
        declared == Some(UPLOAD) || (declared.is_none() && claims.get("upsert").is_some());
    let is_download =
        declared == Some(DOWNLOAD) || (declared.is_none() && claims.get("upsert").is_none());
    let fits = match scope {
        Scope::Upload => is_upload,
        Scope::Download => is_download,
    };
    if !fits {
        let what = if scope == Scope::Upload {
            UPLOAD
        } else {
            DOWNLOAD
        };
        return Err(StorageError::InvalidSignature(format!(
            "Token is not scoped for {what}"
        )));
    }
    if claims["url"].as_str() != Some(&format!("{bucket}/{name}")) {
        return Err(StorageError::InvalidSignature("Invalid signature".into()));
    }
    let exp = claims["exp"]
        .as_i64()
        .ok_or(StorageError::ExpiredSignature)?;
    if exp < identity::clock::now() {
        return Err(StorageError::ExpiredSignature);
    }
    Ok(Grant {
        transformations: claims["transformations"].as_str().map(str::to_string),
        owner: claims["owner"].as_str().map(str::to_string),
        upsert: claims["upsert"].as_bool().unwrap_or(false),
        exp,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys() -> JwtKeys {
        JwtKeys::new(identity::jwt::DEMO_JWT_SECRET)
    }

    #[test]
    fn download_tokens_name_one_object_and_expire() {
        let k = keys();
        let t = sign_download(&k, "b", "a/x.png", 60, None);
        assert_eq!(
            verify(&k, &t, "b", "a/x.png", Scope::Download)
                .unwrap()
                .transformations,
            None
        );
        let e = verify(&k, &t, "b", "a/y.png", Scope::Download).unwrap_err();
        assert_eq!(e.to_string(), "Invalid signature");
        let now = chrono::Utc::now().timestamp();
        let old = k.sign(&json!({ "url": "b/a/x.png", "iat": now - 200, "exp": now - 120 }));
        let e = verify(&k, &old, "b", "a/x.png", Scope::Download).unwrap_err();
        assert_eq!(e.to_string(), "\"exp\" claim timestamp check failed");
        // No expiry can wrap around into the past.
        let far = sign_download(&k, "b", "a/x.png", i64::MAX, None);
        assert!(verify(&k, &far, "b", "a/x.png", Scope::Download).is_ok());
        let e = verify(&k, "nope", "b", "a/x.png", Scope::Download).unwrap_err();
        assert_eq!(e.to_string(), "Invalid Compact JWS");
    }

    #[test]
    fn transformations_travel_in_the_token() {
        let k = keys();
        let t = sign_download(
            &k,
            "b",
            "x.jpg",
            60,
            Some("height:100,width:100,resize:cover"),
        );
        let g = verify(&k, &t, "b", "x.jpg", Scope::Download).unwrap();
        assert_eq!(
            g.transformations.as_deref(),
            Some("height:100,width:100,resize:cover")
        );
    }

    #[test]
    fn scopes_do_not_mix() {
        let k = keys();
        let up = sign_upload(&k, "b", "x.png", Some("u1"), true);
        let g = verify(&k, &up, "b", "x.png", Scope::Upload).unwrap();
        assert_eq!((g.owner.as_deref(), g.upsert), (Some("u1"), true));
        let e = verify(&k, &up, "b", "x.png", Scope::Download).unwrap_err();
        assert_eq!(e.to_string(), "Token is not scoped for download");
        let down = sign_download(&k, "b", "x.png", 60, None);
        let e = verify(&k, &down, "b", "x.png", Scope::Upload).unwrap_err();
        assert_eq!(e.to_string(), "Token is not scoped for upload");
        // A legacy token without a scope: with `upsert` it uploads, without it downloads.
        let now = chrono::Utc::now().timestamp();
        let legacy = k.sign(&json!({"url": "b/x.png", "upsert": false, "exp": now + 60}));
        assert!(verify(&k, &legacy, "b", "x.png", Scope::Upload).is_ok());
        assert!(verify(&k, &legacy, "b", "x.png", Scope::Download).is_err());
    }
}
