//! The bodies and queries the auth API reads, with GoTrue's names: a field that is missing or
//! null takes GoTrue's default; a field of the wrong JSON type is a `bad_json` error.

use crate::error::{AuthError, ErrorCode, api};
use serde::Deserialize;
use serde_json::Value;

/// `code_challenge_method` and `code_challenge` of a request that starts a PKCE flow.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(default)]
pub struct Pkce {
    pub code_challenge_method: Option<String>,
    pub code_challenge: Option<String>,
}

/// `POST /signup`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct SignupParams {
    pub email: Option<String>,
    pub phone: Option<String>,
    pub password: Option<String>,
    /// The user's metadata (anything but an object counts as none).
    pub data: Option<Value>,
    pub redirect_to: Option<String>,
    /// `sms` (the default) or `whatsapp`, for a phone number.
    pub channel: Option<String>,
    #[serde(flatten)]
    pub pkce: Pkce,
}

/// `POST /token?grant_type=password`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct PasswordGrantParams {
    pub email: Option<String>,
    pub phone: Option<String>,
    pub password: Option<String>,
}

/// `POST /token?grant_type=refresh_token`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct RefreshTokenGrantParams {
    pub refresh_token: Option<String>,
}

/// `POST /token?grant_type=pkce`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct PkceGrantParams {
    pub auth_code: Option<String>,
    pub code_verifier: Option<String>,
}

/// `POST /token?grant_type=id_token`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct IdTokenGrantParams {
    pub id_token: Option<String>,
    pub provider: Option<String>,
    /// The nonce the app sent the provider (the token carries its SHA-256).
    pub nonce: Option<String>,
    pub access_token: Option<String>,
    pub client_id: Option<String>,
    pub issuer: Option<String>,
}

/// `POST /token?grant_type=web3`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Web3GrantParams {
    /// `ethereum` or `solana`.
    pub chain: Option<String>,
    /// The SIWE or SIWS message the wallet signed.
    pub message: Option<String>,
    /// Hex (`0x…`, 65 bytes) for Ethereum, base64 (64 bytes) for Solana.
    pub signature: Option<String>,
}

/// `POST /otp`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct OtpParams {
    pub email: Option<String>,
    pub phone: Option<String>,
    /// GoTrue's default: sign the address up when it is new.
    pub create_user: Option<bool>,
    pub data: Option<Value>,
    pub redirect_to: Option<String>,
    /// `sms` (the default) or `whatsapp`, for a phone number.
    pub channel: Option<String>,
    #[serde(flatten)]
    pub pkce: Pkce,
}

/// `POST /magiclink` and `POST /recover`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct EmailParams {
    pub email: Option<String>,
    pub data: Option<Value>,
    pub redirect_to: Option<String>,
    #[serde(flatten)]
    pub pkce: Pkce,
}

/// `POST /resend`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct ResendParams {
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub redirect_to: Option<String>,
    #[serde(flatten)]
    pub pkce: Pkce,
}

/// `POST /verify`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct VerifyParams {
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub token: Option<String>,
    pub token_hash: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub redirect_to: Option<String>,
}

/// `PUT /user`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct UserUpdateParams {
    pub email: Option<String>,
    pub password: Option<String>,
    pub nonce: Option<String>,
    pub data: Option<Value>,
    pub app_metadata: Option<Value>,
    pub phone: Option<String>,
    pub redirect_to: Option<String>,
    /// `sms` (the default) or `whatsapp`, for a phone number.
    pub channel: Option<String>,
    #[serde(flatten)]
    pub pkce: Pkce,
}

/// `POST /admin/users` and `PUT /admin/users/{id}`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct AdminUserParams {
    pub email: Option<String>,
    pub phone: Option<String>,
    pub password: Option<String>,
    pub email_confirm: Option<bool>,
    pub phone_confirm: Option<bool>,
    pub user_metadata: Option<Value>,
    pub app_metadata: Option<Value>,
    pub ban_duration: Option<String>,
}

/// `POST /invite`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct InviteParams {
    pub email: Option<String>,
    pub data: Option<Value>,
    pub redirect_to: Option<String>,
}

/// `POST /admin/generate_link`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct GenerateLinkParams {
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub email: Option<String>,
    pub new_email: Option<String>,
    pub password: Option<String>,
    pub data: Option<Value>,
    pub redirect_to: Option<String>,
}

/// `GET /verify`: the query of a mailed link.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct VerifyLinkQuery {
    pub token: Option<String>,
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub redirect_to: Option<String>,
}

/// `GET /admin/users`: paging, as text (GoTrue parses the numbers itself).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct UserListQuery {
    pub page: Option<String>,
    pub per_page: Option<String>,
    /// Part of an e-mail address or of `full_name` in the user's metadata.
    pub filter: Option<String>,
}

/// A JSON body as `T`: an empty body is all defaults; a body that is not JSON, or has a field
/// of the wrong type, is GoTrue's `bad_json`.
pub fn read<T: serde::de::DeserializeOwned + Default>(body: &[u8]) -> Result<T, AuthError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(T::default());
    }
    serde_json::from_slice(body).map_err(|e| {
        api(
            400,
            ErrorCode::BadJson,
            format!("Could not parse request body as JSON: {e}"),
        )
    })
}

/// An object-valued field (`data`, `user_metadata`, `app_metadata`); anything else is none.
pub fn object(v: &Option<Value>) -> Option<Value> {
    v.as_ref().filter(|v| v.is_object()).cloned()
}

/// A string field, empty when missing.
pub fn text(v: &Option<String>) -> &str {
    v.as_deref().unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bodies_read_with_gotrue_names_and_defaults() {
        let p: SignupParams = serde_json::from_value(json!({
            "email": "a@example.com", "password": "pw", "data": {"x": 1},
            "code_challenge": "c", "code_challenge_method": "s256", "unknown": true
        }))
        .unwrap();
        assert_eq!(text(&p.email), "a@example.com");
        assert_eq!(p.pkce.code_challenge_method.as_deref(), Some("s256"));
        assert_eq!(object(&p.data), Some(json!({"x": 1})));
        let p: OtpParams = serde_json::from_value(json!({"email": null})).unwrap();
        assert!(p.email.is_none() && p.create_user.is_none());
        let p: ResendParams = serde_json::from_value(json!({"type": "signup"})).unwrap();
        assert_eq!(p.kind.as_deref(), Some("signup"));
        assert!(serde_json::from_value::<PasswordGrantParams>(json!({"email": 5})).is_err());
        assert_eq!(object(&Some(json!("text"))), None);
    }
}

/// `/callback`: what the provider sends back (in the query, or Apple's form POST).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct CallbackParams {
    pub code: String,
    pub state: String,
    /// The provider's refusal (`access_denied`, …) and its words.
    pub error: String,
    pub error_description: String,
    /// Apple's user (its name), posted the first time only.
    pub user: Option<String>,
}
