//! The user an identity of a provider signs in (an OAuth provider's, an ID token's, a web3
//! wallet's): its own; else, when linking, the signed-in user's; else the user whose confirmed
//! address it verified; else a new user, after the before-user-created hook. Shared by sign-in
//! with providers (the `auth-external` crate) and web3 sign-in.

use crate::config::AuthConfig;
use crate::error::{AuthError, ErrorCode, api};
use serde_json::Value;
use uuid::Uuid;

/// The user an identity of `provider` signs in: its own; else (linking) the signed-in user's;
/// else the user whose confirmed address it verified; else a new user.
pub async fn user_of(
    c: &tokio_postgres::Client,
    cfg: &AuthConfig,
    provider: &str,
    profile: &Value,
    link: Option<Uuid>,
) -> Result<Uuid, AuthError> {
    let sub = profile["sub"].as_str().unwrap_or_default();
    let email = profile["email"].as_str().unwrap_or_default().to_lowercase();
    let owner: Option<Uuid> = c
        .query_opt(
            "UPDATE auth.identities SET identity_data = $3, last_sign_in_at = now(), updated_at = now()
             WHERE provider = $1 AND provider_id = $2 RETURNING user_id",
            &[&provider, &sub, profile],
        )
        .await?
        .map(|r| r.get(0));
    let user = match (owner, link) {
        (Some(o), Some(l)) if o != l => {
            return Err(api(
                422,
                ErrorCode::IdentityAlreadyExists,
                "Identity is already linked to another user",
            ));
        }
        (Some(o), _) => return Ok(o),
        (None, Some(l)) => l,
        (None, None) => {
            let confirmed: Option<Uuid> = c
                .query_opt(
                    "SELECT id FROM auth.users WHERE lower(email) = $1 AND email_confirmed_at IS NOT NULL
                       AND deleted_at IS NULL",
                    &[&email],
                )
                .await?
                .map(|r| r.get(0));
            match confirmed {
                Some(u) => u,
                None => {
                    if cfg.disable_signup {
                        return Err(api(
                            422,
                            ErrorCode::SignupDisabled,
                            "Signups not allowed for this instance",
                        ));
                    }
                    // GoTrue asks the before-user-created hook about a provider's new user too.
                    crate::signup::before_created(c, cfg, Some(&email), profile, Some(provider))
                        .await?;
                    c.query_one(
                        "INSERT INTO auth.users (email, email_confirmed_at, raw_app_meta_data,
                                                 raw_user_meta_data)
                         VALUES (nullif($1, ''), now(), jsonb_build_object('provider', $2::text,
                                 'providers', jsonb_build_array($2::text)), $3)
                         RETURNING id",
                        &[&email, &provider, profile],
                    )
                    .await?
                    .get(0)
                }
            }
        }
    };
    c.execute(
        "INSERT INTO auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at)
         VALUES ($1, $2, $3, $4, now())",
        &[&sub, &user, profile, &provider],
    )
    .await?;
    c.execute(
        "UPDATE auth.users SET raw_app_meta_data = coalesce(raw_app_meta_data, '{}') || jsonb_build_object(
           'providers', (SELECT jsonb_agg(DISTINCT provider) FROM auth.identities WHERE user_id = $1)),
           updated_at = now()
         WHERE id = $1",
        &[&user],
    )
    .await?;
    Ok(user)
}
