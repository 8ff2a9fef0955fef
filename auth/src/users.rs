//! Users and identities in `auth.users` / `auth.identities`, as GoTrue stores them.

use serde_json::{Value, json};
use tokio_postgres::GenericClient;
use uuid::Uuid;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("Unable to validate email address: invalid format")]
pub struct InvalidEmail;

/// Trims and lower-cases an address and checks its shape (GoTrue's validateEmail).
pub fn normalize_email(email: &str) -> Result<String, InvalidEmail> {
    let e = email.trim().to_lowercase();
    let (local, domain) = e.split_once('@').ok_or(InvalidEmail)?;
    let valid = !local.is_empty()
        && e.len() <= 255
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !domain.contains("..")
        && !e.contains(char::is_whitespace)
        && e.matches('@').count() == 1;
    if valid { Ok(e) } else { Err(InvalidEmail) }
}

/// Inserts a user and its `email` identity. The address must already be normalised.
pub async fn insert_user(
    c: &impl GenericClient,
    email: &str,
    password_hash: &str,
    user_metadata: &Value,
    confirmed: bool,
) -> Result<Uuid, tokio_postgres::Error> {
    let app_meta = json!({"provider": "email", "providers": ["email"]});
    let row = c
        .query_one(
            "WITH u AS (
               INSERT INTO auth.users (email, encrypted_password, email_confirmed_at, raw_app_meta_data, raw_user_meta_data)
               VALUES ($1, $2, CASE WHEN $3 THEN now() END, $4, $5) RETURNING id, email, email_confirmed_at)
             INSERT INTO auth.identities (provider_id, user_id, identity_data, provider)
             SELECT u.id::text, u.id, jsonb_build_object('sub', u.id::text, 'email', u.email,
                    'email_verified', u.email_confirmed_at IS NOT NULL, 'phone_verified', false), 'email'
             FROM u RETURNING user_id",
            &[&email, &password_hash, &confirmed, &app_meta, user_metadata],
        )
        .await?;
    Ok(row.get(0))
}

pub async fn find_id_by_email(
    c: &impl GenericClient,
    email: &str,
) -> Result<Option<Uuid>, tokio_postgres::Error> {
    Ok(c.query_opt(
        "SELECT id FROM auth.users WHERE lower(email) = lower($1)",
        &[&email],
    )
    .await?
    .map(|r| r.get(0)))
}

pub async fn set_password(
    c: &impl GenericClient,
    id: Uuid,
    password_hash: &str,
) -> Result<(), tokio_postgres::Error> {
    c.execute(
        "UPDATE auth.users SET encrypted_password = $2, updated_at = now(),
                email_confirmed_at = coalesce(email_confirmed_at, now()) WHERE id = $1",
        &[&id, &password_hash],
    )
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails() {
        assert_eq!(
            normalize_email("  Ann@Example.COM ").unwrap(),
            "ann@example.com"
        );
        for bad in [
            "",
            "ann",
            "ann@",
            "@x.com",
            "ann@x",
            "a b@x.com",
            "a@@x.com",
            "a@x..com",
        ] {
            assert_eq!(normalize_email(bad), Err(InvalidEmail), "{bad}");
        }
    }
}
