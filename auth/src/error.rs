//! Errors as GoTrue reports them: an HTTP status, an `error_code` and a message.

/// GoTrue's `error_code`s (its `apierrors` package), and the few answers of its router that
/// carry a code of their own (`not_found`, `request_too_large`, `invalid_request`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    Unknown,
    UnexpectedFailure,
    ValidationFailed,
    BadJson,
    EmailExists,
    PhoneExists,
    BadJwt,
    NotAdmin,
    NoAuthorization,
    UserNotFound,
    SessionNotFound,
    SessionExpired,
    RefreshTokenNotFound,
    RefreshTokenAlreadyUsed,
    FlowStateNotFound,
    FlowStateExpired,
    SignupDisabled,
    UserBanned,
    ProviderEmailNeedsVerification,
    InviteNotFound,
    SingleIdentityNotDeletable,
    EmailConflictIdentityNotDeletable,
    IdentityAlreadyExists,
    EmailProviderDisabled,
    PhoneProviderDisabled,
    TooManyEnrolledMfaFactors,
    MfaFactorNameConflict,
    MfaFactorNotFound,
    MfaIpAddressMismatch,
    MfaChallengeExpired,
    MfaVerificationFailed,
    MfaVerificationRejected,
    InsufficientAal,
    CaptchaFailed,
    SamlProviderDisabled,
    ManualLinkingDisabled,
    SmsSendFailed,
    EmailNotConfirmed,
    PhoneNotConfirmed,
    UserAlreadyExists,
    SsoProviderNotFound,
    ProviderDisabled,
    ReauthenticationNeeded,
    SamePassword,
    ReauthenticationNotValid,
    OtpExpired,
    OtpDisabled,
    IdentityNotFound,
    OAuthClientNotFound,
    BadOauthState,
    BadOauthCallback,
    OAuthInvalidState,
    OAuthClientStateNotFound,
    OAuthClientStateExpired,
    PasskeyDisabled,
    WebauthnChallengeNotFound,
    WebauthnCredentialNotFound,
    WebauthnCredentialExists,
    WebauthnVerificationFailed,
    OAuthDynamicClientRegistrationDisabled,
    OAuthAuthorizationNotFound,
    OAuthConsentNotFound,
    WeakPassword,
    OverRequestRateLimit,
    OverEmailSendRateLimit,
    OverSmsSendRateLimit,
    BadCodeVerifier,
    AnonymousProviderDisabled,
    HookTimeout,
    HookTimeoutAfterRetry,
    HookPayloadOverSizeLimit,
    HookPayloadInvalidContentType,
    RequestTimeout,
    MfaPhoneEnrollNotEnabled,
    MfaPhoneVerifyNotEnabled,
    MfaTotpEnrollNotEnabled,
    MfaTotpVerifyNotEnabled,
    MfaWebauthnEnrollNotEnabled,
    MfaWebauthnVerifyNotEnabled,
    MfaVerifiedFactorExists,
    InvalidCredentials,
    EmailAddressNotAuthorized,
    EmailAddressInvalid,
    Web3ProviderDisabled,
    Web3UnsupportedChain,
    EmailAddressNotProvided,
    NotFound,
    RequestTooLarge,
    InvalidRequest,
}

impl ErrorCode {
    /// The code on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::Unknown => "unknown",
            ErrorCode::UnexpectedFailure => "unexpected_failure",
            ErrorCode::ValidationFailed => "validation_failed",
            ErrorCode::BadJson => "bad_json",
            ErrorCode::EmailExists => "email_exists",
            ErrorCode::PhoneExists => "phone_exists",
            ErrorCode::BadJwt => "bad_jwt",
            ErrorCode::NotAdmin => "not_admin",
            ErrorCode::NoAuthorization => "no_authorization",
            ErrorCode::UserNotFound => "user_not_found",
            ErrorCode::SessionNotFound => "session_not_found",
            ErrorCode::SessionExpired => "session_expired",
            ErrorCode::RefreshTokenNotFound => "refresh_token_not_found",
            ErrorCode::RefreshTokenAlreadyUsed => "refresh_token_already_used",
            ErrorCode::FlowStateNotFound => "flow_state_not_found",
            ErrorCode::FlowStateExpired => "flow_state_expired",
            ErrorCode::SignupDisabled => "signup_disabled",
            ErrorCode::UserBanned => "user_banned",
            ErrorCode::ProviderEmailNeedsVerification => "provider_email_needs_verification",
            ErrorCode::InviteNotFound => "invite_not_found",
            ErrorCode::SingleIdentityNotDeletable => "single_identity_not_deletable",
            ErrorCode::EmailConflictIdentityNotDeletable => "email_conflict_identity_not_deletable",
            ErrorCode::IdentityAlreadyExists => "identity_already_exists",
            ErrorCode::EmailProviderDisabled => "email_provider_disabled",
            ErrorCode::PhoneProviderDisabled => "phone_provider_disabled",
            ErrorCode::TooManyEnrolledMfaFactors => "too_many_enrolled_mfa_factors",
            ErrorCode::MfaFactorNameConflict => "mfa_factor_name_conflict",
            ErrorCode::MfaFactorNotFound => "mfa_factor_not_found",
            ErrorCode::MfaIpAddressMismatch => "mfa_ip_address_mismatch",
            ErrorCode::MfaChallengeExpired => "mfa_challenge_expired",
            ErrorCode::MfaVerificationFailed => "mfa_verification_failed",
            ErrorCode::MfaVerificationRejected => "mfa_verification_rejected",
            ErrorCode::InsufficientAal => "insufficient_aal",
            ErrorCode::CaptchaFailed => "captcha_failed",
            ErrorCode::SamlProviderDisabled => "saml_provider_disabled",
            ErrorCode::ManualLinkingDisabled => "manual_linking_disabled",
            ErrorCode::SmsSendFailed => "sms_send_failed",
            ErrorCode::EmailNotConfirmed => "email_not_confirmed",
            ErrorCode::PhoneNotConfirmed => "phone_not_confirmed",
            ErrorCode::UserAlreadyExists => "user_already_exists",
            ErrorCode::SsoProviderNotFound => "sso_provider_not_found",
            ErrorCode::ProviderDisabled => "provider_disabled",
            ErrorCode::ReauthenticationNeeded => "reauthentication_needed",
            ErrorCode::SamePassword => "same_password",
            ErrorCode::ReauthenticationNotValid => "reauthentication_not_valid",
            ErrorCode::OtpExpired => "otp_expired",
            ErrorCode::OtpDisabled => "otp_disabled",
            ErrorCode::IdentityNotFound => "identity_not_found",
            ErrorCode::OAuthClientNotFound => "oauth_client_not_found",
            ErrorCode::BadOauthState => "bad_oauth_state",
            ErrorCode::BadOauthCallback => "bad_oauth_callback",
            ErrorCode::OAuthInvalidState => "oauth_invalid_state",
            ErrorCode::OAuthClientStateNotFound => "oauth_client_state_not_found",
            ErrorCode::OAuthClientStateExpired => "oauth_client_state_expired",
            ErrorCode::PasskeyDisabled => "passkey_disabled",
            ErrorCode::WebauthnChallengeNotFound => "webauthn_challenge_not_found",
            ErrorCode::WebauthnCredentialNotFound => "webauthn_credential_not_found",
            ErrorCode::WebauthnCredentialExists => "webauthn_credential_exists",
            ErrorCode::WebauthnVerificationFailed => "webauthn_verification_failed",
            ErrorCode::OAuthDynamicClientRegistrationDisabled => {
                "oauth_dynamic_client_registration_disabled"
            }
            ErrorCode::OAuthAuthorizationNotFound => "oauth_authorization_not_found",
            ErrorCode::OAuthConsentNotFound => "oauth_consent_not_found",
            ErrorCode::WeakPassword => "weak_password",
            ErrorCode::OverRequestRateLimit => "over_request_rate_limit",
            ErrorCode::OverEmailSendRateLimit => "over_email_send_rate_limit",
            ErrorCode::OverSmsSendRateLimit => "over_sms_send_rate_limit",
            ErrorCode::BadCodeVerifier => "bad_code_verifier",
            ErrorCode::AnonymousProviderDisabled => "anonymous_provider_disabled",
            ErrorCode::HookTimeout => "hook_timeout",
            ErrorCode::HookTimeoutAfterRetry => "hook_timeout_after_retry",
            ErrorCode::HookPayloadOverSizeLimit => "hook_payload_over_size_limit",
            ErrorCode::HookPayloadInvalidContentType => "hook_payload_invalid_content_type",
            ErrorCode::RequestTimeout => "request_timeout",
            ErrorCode::MfaPhoneEnrollNotEnabled => "mfa_phone_enroll_not_enabled",
            ErrorCode::MfaPhoneVerifyNotEnabled => "mfa_phone_verify_not_enabled",
            ErrorCode::MfaTotpEnrollNotEnabled => "mfa_totp_enroll_not_enabled",
            ErrorCode::MfaTotpVerifyNotEnabled => "mfa_totp_verify_not_enabled",
            ErrorCode::MfaWebauthnEnrollNotEnabled => "mfa_webauthn_enroll_not_enabled",
            ErrorCode::MfaWebauthnVerifyNotEnabled => "mfa_webauthn_verify_not_enabled",
            ErrorCode::MfaVerifiedFactorExists => "mfa_verified_factor_exists",
            ErrorCode::InvalidCredentials => "invalid_credentials",
            ErrorCode::EmailAddressNotAuthorized => "email_address_not_authorized",
            ErrorCode::EmailAddressInvalid => "email_address_invalid",
            ErrorCode::Web3ProviderDisabled => "web3_provider_disabled",
            ErrorCode::Web3UnsupportedChain => "web3_unsupported_chain",
            ErrorCode::EmailAddressNotProvided => "email_address_not_provided",
            ErrorCode::NotFound => "not_found",
            ErrorCode::RequestTooLarge => "request_too_large",
            ErrorCode::InvalidRequest => "invalid_request",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    #[error("{message}")]
    Api {
        status: u16,
        code: ErrorCode,
        message: String,
    },
    /// 422 weak_password, with GoTrue's `weak_password.reasons`.
    #[error("{message}")]
    WeakPassword {
        message: String,
        reasons: Vec<&'static str>,
    },
    /// An RFC 6749 error of the OAuth 2.1 server's token endpoint: `{"error",
    /// "error_description"}`.
    #[error("{error}: {description}")]
    OAuth {
        status: u16,
        error: &'static str,
        description: String,
    },
    #[error("database error: {0}")]
    Db(#[from] tokio_postgres::Error),
}

impl AuthError {
    /// The status, code and message GoTrue answers with (a database failure is logged and
    /// answered as an unexpected failure).
    pub fn parts(&self) -> (u16, ErrorCode, String) {
        match self {
            AuthError::Api {
                status,
                code,
                message,
            } => (*status, *code, message.clone()),
            AuthError::WeakPassword { message, .. } => {
                (422, ErrorCode::WeakPassword, message.clone())
            }
            AuthError::OAuth {
                status,
                description,
                ..
            } => (*status, ErrorCode::InvalidRequest, description.clone()),
            AuthError::Db(e) => {
                tracing::error!(
                    "auth database error: {}",
                    pg::migrate::describe_db_error(e, None)
                );
                (
                    500,
                    ErrorCode::UnexpectedFailure,
                    "Internal Server Error".into(),
                )
            }
        }
    }
}

pub fn api(status: u16, code: ErrorCode, message: impl Into<String>) -> AuthError {
    AuthError::Api {
        status,
        code,
        message: message.into(),
    }
}

/// An error of the OAuth 2.1 token endpoint (400, or 401 for `invalid_client`).
pub fn oauth(error: &'static str, description: impl Into<String>) -> AuthError {
    AuthError::OAuth {
        status: if error == "invalid_client" { 401 } else { 400 },
        error,
        description: description.into(),
    }
}

pub fn invalid_credentials() -> AuthError {
    api(
        400,
        ErrorCode::InvalidCredentials,
        "Invalid login credentials",
    )
}

pub fn validation(message: impl Into<String>) -> AuthError {
    api(400, ErrorCode::ValidationFailed, message)
}

pub fn user_not_found() -> AuthError {
    api(404, ErrorCode::UserNotFound, "User not found")
}

pub fn otp_expired() -> AuthError {
    api(
        403,
        ErrorCode::OtpExpired,
        "Token has expired or is invalid",
    )
}

pub fn link_expired() -> AuthError {
    api(
        403,
        ErrorCode::OtpExpired,
        "Email link is invalid or has expired",
    )
}

/// Too soon after the last mail of this kind to this user.
pub fn too_frequent(seconds_left: i64) -> AuthError {
    api(
        429,
        ErrorCode::OverEmailSendRateLimit,
        format!(
            "For security purposes, you can only request this after {} seconds.",
            seconds_left.max(1)
        ),
    )
}

pub type Result<T> = std::result::Result<T, AuthError>;
