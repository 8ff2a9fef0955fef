//! WebAuthn MFA factors, as GoTrue runs them: enrolled unverified; the first challenge asks the
//! authenticator to create a credential (verifying it verifies the factor), later ones to sign
//! with it; a signature raises the session to aal2. The relying party is the one the client
//! names (`webauthn.rpId`, `rpOrigins`), as GoTrue accepts it, else `[auth.webauthn]`; a factor
//! keeps the RP id it was created for and answers for no other.

use auth::config::AuthConfig;
use auth::error::{ErrorCode, Result, api};
use serde::Deserialize;
use serde_json::{Value, json};
use uuid::Uuid;
use webauthn_rp::{self as webauthn, Credential, Expected};

/// The `webauthn` object of a challenge or verification.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Params {
    #[serde(alias = "rpId")]
    pub rp_id: Option<String>,
    #[serde(alias = "rpOrigins")]
    pub rp_origins: Option<Vec<String>>,
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub credential_response: Option<Credential>,
}

fn refused(why: impl std::fmt::Display) -> auth::error::AuthError {
    api(
        422,
        ErrorCode::MfaVerificationFailed,
        format!("WebAuthn verification failed: {why}"),
    )
}

/// The relying party of a ceremony: the client's, else the project's.
fn rp(cfg: &AuthConfig, p: &Params) -> (String, Vec<String>) {
    let id = p
        .rp_id
        .clone()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| cfg.webauthn.rp_id.clone());
    let origins = p
        .rp_origins
        .clone()
        .filter(|o| !o.is_empty())
        .unwrap_or_else(|| cfg.webauthn.rp_origins.clone());
    (id, origins)
}

/// A challenge of a WebAuthn factor (`verified`: sign with its credential, else create one):
/// the `webauthn` object of the answer and what the challenge row keeps.
pub fn challenge(
    cfg: &AuthConfig,
    user: (Uuid, &str),
    credential: Option<&Value>,
    p: &Params,
) -> (Value, Value) {
    let (rp_id, origins) = rp(cfg, p);
    let challenge = webauthn::challenge();
    let session = json!({"challenge": challenge, "rp_id": rp_id, "rp_origins": origins});
    let public_key = match credential {
        Some(cred) => json!({
            "challenge": challenge, "timeout": 300_000, "rpId": rp_id, "userVerification": "preferred",
            "allowCredentials": [{"type": "public-key", "id": cred["credential_id"]}],
        }),
        None => json!({
            "challenge": challenge,
            "rp": {"id": rp_id, "name": cfg.webauthn.rp_display_name},
            "user": {"id": webauthn::encode(user.0.as_bytes()), "name": user.1, "displayName": user.1},
            "pubKeyCredParams": [{"type": "public-key", "alg": webauthn::ES256}],
            "timeout": 300_000,
            "authenticatorSelection": {"userVerification": "preferred"},
            "attestation": "none",
        }),
    };
    let kind = if credential.is_some() {
        "request"
    } else {
        "create"
    };
    (
        json!({"type": kind, "credential_options": {"publicKey": public_key}}),
        session,
    )
}

/// Checks the answer to a challenge whose row kept `session`: the factor's credential as it is
/// to be stored (new, or with its counter moved on).
pub fn verify(session: &Value, credential: Option<&Value>, p: &Params) -> Result<Value> {
    let response = p
        .credential_response
        .as_ref()
        .ok_or_else(|| refused("credential_response is required"))?;
    let text = |v: &Value, k: &str| v[k].as_str().unwrap_or_default().to_string();
    let challenge = text(session, "challenge");
    let rp_id = text(session, "rp_id");
    let origins: Vec<String> = session["rp_origins"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|o| o.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    let expected = Expected {
        rp_id: &rp_id,
        origins: &origins,
        challenge: &challenge,
    };
    match credential {
        None => {
            let r = webauthn::verify_registration(response, &expected).map_err(refused)?;
            Ok(json!({
                "credential_id": webauthn::encode(&r.credential_id),
                "public_key": webauthn::encode(&r.public_key),
                "sign_count": r.sign_count,
                "rp_id": rp_id,
                "aaguid": Uuid::from_bytes(r.aaguid),
            }))
        }
        Some(stored) => {
            if text(stored, "rp_id") != rp_id {
                return Err(refused("the factor belongs to another relying party"));
            }
            let id = webauthn::assertion_id(response).map_err(refused)?;
            if webauthn::encode(&id) != text(stored, "credential_id") {
                return Err(refused("unknown credential"));
            }
            let key =
                webauthn::decode(&text(stored, "public_key")).map_err(|_| refused("stored key"))?;
            let count = stored["sign_count"].as_u64().unwrap_or(0) as u32;
            let count =
                webauthn::verify_assertion(response, &expected, &key, count).map_err(refused)?;
            let mut updated = stored.clone();
            updated["sign_count"] = json!(count);
            Ok(updated)
        }
    }
}
