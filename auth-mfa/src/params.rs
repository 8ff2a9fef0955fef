//! The bodies of `/factors`: enrolment, challenge and verification, with GoTrue's names.

use serde::Deserialize;

/// `POST /factors`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct EnrollFactorParams {
    pub factor_type: Option<String>,
    pub friendly_name: Option<String>,
    pub issuer: Option<String>,
    /// A phone factor's number.
    pub phone: Option<String>,
}

/// `POST /factors/{id}/verify`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct VerifyFactorParams {
    pub challenge_id: Option<String>,
    pub code: Option<String>,
    /// A WebAuthn factor's answer.
    pub webauthn: Option<crate::webauthn::Params>,
}

/// `POST /factors/{id}/challenge`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct ChallengeFactorParams {
    /// A phone factor's channel: `sms` (the default) or `whatsapp`.
    pub channel: Option<String>,
    /// A WebAuthn factor's relying party.
    pub webauthn: Option<crate::webauthn::Params>,
}
