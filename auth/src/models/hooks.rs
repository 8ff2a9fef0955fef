//! What the auth hooks are given (GoTrue's `hooks` package): each hook's input as a struct,
//! written by serde as GoTrue writes it (fields in GoTrue's order). The user of the send-email
//! and send-SMS hooks is the user object as GET /user shows it.

use serde::Serialize;
use serde_json::Value;
use uuid::Uuid;

/// `metadata` of a hook's input: a fresh id, the time of the call and the hook's name.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Metadata {
    pub uuid: Uuid,
    /// RFC 3339.
    pub time: String,
    pub name: &'static str,
}

impl Metadata {
    /// The metadata of a call made now.
    pub fn now(name: &'static str) -> Metadata {
        Metadata {
            uuid: Uuid::new_v4(),
            time: chrono::Utc::now().to_rfc3339(),
            name,
        }
    }
}

/// The custom access token hook's input: the claims it may change.
#[derive(Debug, Clone, Serialize)]
pub struct CustomAccessTokenInput<'a> {
    pub metadata: Metadata,
    pub user_id: Uuid,
    pub claims: &'a Value,
    pub authentication_method: &'a str,
}

/// The user the before-user-created hook is shown: the one about to be made, not yet stored.
#[derive(Debug, Clone, Serialize)]
pub struct NewUser<'a> {
    pub id: Uuid,
    /// Always `authenticated`.
    pub aud: &'static str,
    /// Empty: no role yet.
    pub role: &'static str,
    pub email: &'a str,
    /// Empty: phone sign-ups do not run the hook.
    pub phone: &'static str,
    pub app_metadata: Value,
    pub user_metadata: &'a Value,
    /// None yet.
    pub identities: [Value; 0],
    pub created_at: &'a str,
    pub updated_at: &'a str,
    pub is_anonymous: bool,
}

/// The before-user-created hook's input.
#[derive(Debug, Clone, Serialize)]
pub struct BeforeUserCreatedInput<'a> {
    pub metadata: Metadata,
    pub user: &'a NewUser<'a>,
}

/// The mail the send-email hook sends instead of GoTrue (`email_data`).
#[derive(Debug, Clone, Serialize)]
pub struct EmailData<'a> {
    pub token: &'a str,
    pub token_hash: &'a str,
    pub redirect_to: &'a str,
    pub email_action_type: &'a str,
    pub site_url: &'a str,
    /// Empty: a change of address sends one mail per address.
    pub token_new: &'static str,
    pub token_hash_new: &'static str,
}

/// The send-email hook's input.
#[derive(Debug, Clone, Serialize)]
pub struct SendEmailInput<'a> {
    pub metadata: Metadata,
    pub user: &'a Value,
    pub email_data: EmailData<'a>,
}

/// The text the send-SMS hook delivers itself.
#[derive(Debug, Clone, Serialize)]
pub struct Sms<'a> {
    pub otp: &'a str,
}

/// The send-SMS hook's input.
#[derive(Debug, Clone, Serialize)]
pub struct SendSmsInput<'a> {
    pub metadata: Metadata,
    pub user: &'a Value,
    pub sms: Sms<'a>,
}

/// The MFA verification attempt hook's input (GoTrue sends no metadata with it).
#[derive(Debug, Clone, Serialize)]
pub struct MfaVerificationAttemptInput<'a> {
    pub user_id: Uuid,
    pub factor_id: Uuid,
    pub factor_type: &'a str,
    pub valid: bool,
}

/// The password verification attempt hook's input (GoTrue sends no metadata with it).
#[derive(Debug, Clone, Serialize)]
pub struct PasswordVerificationAttemptInput {
    pub user_id: Uuid,
    pub valid: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Each input as the `json!` builder it replaced wrote it: equal values, and the same text
    /// (the fields in the same order, as an HTTP hook's signed body has them).
    #[test]
    fn inputs_are_written_as_the_builders_wrote_them() {
        let id = Uuid::from_u128(0x1234);
        let factor = Uuid::from_u128(0x5678);
        let time = "2026-11-28T17:00:00+00:00";
        let meta = |name| Metadata {
            uuid: Uuid::from_u128(9),
            time: time.into(),
            name,
        };
        let meta_json =
            |name: &str| json!({"uuid": Uuid::from_u128(9), "time": time, "name": name});
        let claims = json!({"sub": id, "aal": "aal1"});
        let data = json!({"plan": "pro"});
        let user = json!({"id": id, "email": "a@example.com"});
        let new_user = |provider: Option<&str>| NewUser {
            id,
            aud: "authenticated",
            role: "",
            email: "a@example.com",
            phone: "",
            app_metadata: match provider {
                Some(p) => json!({"provider": p, "providers": [p]}),
                None => json!({}),
            },
            user_metadata: &data,
            identities: [],
            created_at: time,
            updated_at: time,
            is_anonymous: provider.is_none(),
        };
        let new_user_json = |provider: Option<&str>| {
            json!({
                "id": id, "aud": "authenticated", "role": "", "email": "a@example.com",
                "phone": "", "app_metadata": match provider {
                    Some(p) => json!({"provider": p, "providers": [p]}),
                    None => json!({}),
                },
                "user_metadata": data, "identities": [], "created_at": time, "updated_at": time,
                "is_anonymous": provider.is_none(),
            })
        };
        let (email_user, anonymous) = (new_user(Some("email")), new_user(None));
        let cases: Vec<(&str, Value, Value)> = vec![
            (
                "custom access token",
                serde_json::to_value(CustomAccessTokenInput {
                    metadata: meta("custom-access-token"),
                    user_id: id,
                    claims: &claims,
                    authentication_method: "password",
                })
                .unwrap(),
                json!({"metadata": meta_json("custom-access-token"), "user_id": id,
                       "claims": claims, "authentication_method": "password"}),
            ),
            (
                "before user created, e-mail",
                serde_json::to_value(BeforeUserCreatedInput {
                    metadata: meta("before-user-created"),
                    user: &email_user,
                })
                .unwrap(),
                json!({"metadata": meta_json("before-user-created"), "user": new_user_json(Some("email"))}),
            ),
            (
                "before user created, anonymous",
                serde_json::to_value(BeforeUserCreatedInput {
                    metadata: meta("before-user-created"),
                    user: &anonymous,
                })
                .unwrap(),
                json!({"metadata": meta_json("before-user-created"), "user": new_user_json(None)}),
            ),
            (
                "send email",
                serde_json::to_value(SendEmailInput {
                    metadata: meta("send-email"),
                    user: &user,
                    email_data: EmailData {
                        token: "123456",
                        token_hash: "abc",
                        redirect_to: "http://localhost:3000",
                        email_action_type: "signup",
                        site_url: "http://127.0.0.1:3000",
                        token_new: "",
                        token_hash_new: "",
                    },
                })
                .unwrap(),
                json!({"metadata": meta_json("send-email"), "user": user, "email_data": {
                    "token": "123456",
                    "token_hash": "abc",
                    "redirect_to": "http://localhost:3000",
                    "email_action_type": "signup",
                    "site_url": "http://127.0.0.1:3000",
                    "token_new": "",
                    "token_hash_new": "",
                }}),
            ),
            (
                "send sms",
                serde_json::to_value(SendSmsInput {
                    metadata: meta("send-sms"),
                    user: &user,
                    sms: Sms { otp: "654321" },
                })
                .unwrap(),
                json!({"metadata": meta_json("send-sms"), "user": user, "sms": {"otp": "654321"}}),
            ),
            (
                "mfa verification attempt",
                serde_json::to_value(MfaVerificationAttemptInput {
                    user_id: id,
                    factor_id: factor,
                    factor_type: "totp",
                    valid: false,
                })
                .unwrap(),
                json!({"user_id": id, "factor_id": factor, "factor_type": "totp", "valid": false}),
            ),
            (
                "password verification attempt",
                serde_json::to_value(PasswordVerificationAttemptInput {
                    user_id: id,
                    valid: true,
                })
                .unwrap(),
                json!({"user_id": id, "valid": true}),
            ),
        ];
        for (name, typed, built) in cases {
            assert_eq!(typed, built, "{name}");
            assert_eq!(typed.to_string(), built.to_string(), "{name}: field order");
        }
    }
}
