//! Users and identities in `auth.users` / `auth.identities`, as GoTrue stores and shows them.

use crate::error::ErrorCode;
use crate::error::{Result, api, user_not_found};
use crate::models::{Factor, FromRow, Identity, User};
use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use tokio_postgres::types::ToSql;
use tokio_postgres::{GenericClient, Row};
use uuid::Uuid;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("Unable to validate email address: invalid format")]
pub struct InvalidEmail;

/// Trims and lower-cases an address and checks its shape (GoTrue's validateEmail).
pub fn normalize_email(email: &str) -> std::result::Result<String, InvalidEmail> {
    let e = email.trim().to_lowercase();
    let (local, domain) = e.split_once('@').ok_or(InvalidEmail)?;
    // checkmail's format, as GoTrue validates addresses.
    let local_ok = local
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || ".!#$%&'*+/=?^_`{|}~-".contains(c));
    let labels_ok = domain.split('.').all(|l| {
        !l.is_empty()
            && l.len() <= 63
            && !l.starts_with('-')
            && !l.ends_with('-')
            && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    });
    let valid = !local.is_empty()
        && local_ok
        && labels_ok
        && e.len() <= 255
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !domain.contains("..")
        && !e.contains(char::is_whitespace)
        && e.matches('@').count() == 1;
    if valid { Ok(e) } else { Err(InvalidEmail) }
}

/// The user with its identities and factors, or None when the user does not exist (or is
/// deleted): its three queries sent together.
pub async fn load(c: &impl GenericClient, id: Uuid) -> Result<Option<User>> {
    let sql = format!(
        "SELECT {} FROM auth.users u WHERE u.id = $1 AND u.deleted_at IS NULL",
        User::COLUMNS
    );
    let ids = [id];
    let by_id: [&(dyn ToSql + Sync); 1] = [&id];
    let (row, related) = tokio::try_join!(c.query_opt(&sql, &by_id), related(c, &ids))?;
    let mut users: Vec<User> = row.iter().map(User::from_row).collect();
    attach(&mut users, related);
    Ok(users.pop())
}

/// The identities and factors of some users (oldest first).
async fn related(
    c: &impl GenericClient,
    ids: &[Uuid],
) -> std::result::Result<(Vec<Row>, Vec<Row>), tokio_postgres::Error> {
    let identities = format!(
        "SELECT {} FROM auth.identities i WHERE i.user_id = ANY($1) ORDER BY i.created_at",
        Identity::COLUMNS
    );
    let factors = format!(
        "SELECT {} FROM auth.mfa_factors f WHERE f.user_id = ANY($1) ORDER BY f.created_at",
        Factor::COLUMNS
    );
    let by_ids: [&(dyn ToSql + Sync); 1] = [&ids];
    tokio::try_join!(c.query(&identities, &by_ids), c.query(&factors, &by_ids))
}

/// Gives each user its rows of [`related`].
fn attach(users: &mut [User], (identities, factors): (Vec<Row>, Vec<Row>)) {
    let of = |r: &&Row, id: Uuid| r.get::<_, Uuid>("user_id") == id;
    for user in users {
        user.identities = identities
            .iter()
            .filter(|r| of(r, user.id))
            .map(Identity::from_row)
            .collect();
        user.factors = factors
            .iter()
            .filter(|r| of(r, user.id))
            .map(Factor::from_row)
            .collect();
    }
}

/// The user object as JSON, or None when the user does not exist.
pub async fn user_json(c: &impl GenericClient, id: Uuid) -> Result<Option<Value>> {
    Ok(load(c, id).await?.map(|u| to_json(&u)))
}

/// A user as GoTrue's JSON.
pub fn to_json(user: &User) -> Value {
    serde_json::to_value(user).expect("a user serializes")
}

pub async fn require(c: &impl GenericClient, id: Uuid) -> Result<Value> {
    user_json(c, id).await?.ok_or_else(user_not_found)
}

/// A page of users (newest first) and the total, in two queries; `filter` (GoTrue's `?filter=`) keeps those whose e-mail
/// contains it (LIKE, case as given) or whose `full_name` contains it (ILIKE).
pub async fn list(
    c: &impl GenericClient,
    page: i64,
    per_page: i64,
    filter: &str,
) -> Result<(Vec<User>, i64)> {
    // GoTrue's pattern is `%filter%` with the filter's own wildcards left as they are.
    let pattern = format!("%{filter}%");
    // The filter and its pattern are parameters `$n` and `$n+1`.
    let kept = |n: usize| {
        format!(
            "deleted_at IS NULL AND (${n} = '' OR email LIKE ${m} \
             OR raw_user_meta_data->>'full_name' ILIKE ${m})",
            m = n + 1
        )
    };
    let total: i64 = c
        .query_one(
            &format!("SELECT count(*) FROM auth.users WHERE {}", kept(1)),
            &[&filter, &pattern],
        )
        .await?
        .get(0);
    let rows = c
        .query(
            &format!(
                "SELECT {columns} FROM auth.users u WHERE {kept}
                 ORDER BY u.created_at DESC, u.id LIMIT $1 OFFSET $2",
                columns = User::COLUMNS,
                kept = kept(3)
            ),
            &[&per_page, &((page - 1) * per_page), &filter, &pattern],
        )
        .await?;
    let mut users: Vec<User> = rows.iter().map(User::from_row).collect();
    let ids: Vec<Uuid> = users.iter().map(|u| u.id).collect();
    attach(&mut users, related(c, &ids).await?);
    Ok((users, total))
}

/// What the flows read of a user.
#[derive(Debug, Clone)]
pub struct UserRow {
    pub id: Uuid,
    pub email: String,
    pub has_password: bool,
    pub confirmed: bool,
    pub invited: bool,
    pub banned: bool,
    pub is_anonymous: bool,
    pub confirmation_sent_at: Option<DateTime<Utc>>,
    pub recovery_sent_at: Option<DateTime<Utc>>,
    pub email_change_sent_at: Option<DateTime<Utc>>,
    pub reauthentication_sent_at: Option<DateTime<Utc>>,
    pub email_change: String,
    pub email_change_token_new: String,
    pub email_change_token_current: String,
    pub email_change_confirm_status: i16,
    pub confirmation_token: String,
    pub recovery_token: String,
    pub reauthentication_token: String,
    pub user_metadata: Value,
}

const ROW: &str = "SELECT id, coalesce(email, ''), coalesce(encrypted_password, '') <> '',
    email_confirmed_at IS NOT NULL, invited_at IS NOT NULL, coalesce(banned_until > now(), false),
    is_anonymous, confirmation_sent_at, recovery_sent_at, email_change_sent_at, reauthentication_sent_at,
    coalesce(email_change, ''), coalesce(email_change_token_new, ''), coalesce(email_change_token_current, ''),
    coalesce(email_change_confirm_status, 0)::int2, coalesce(confirmation_token, ''), coalesce(recovery_token, ''),
    coalesce(reauthentication_token, ''), coalesce(raw_user_meta_data, '{}')
  FROM auth.users";

fn user_row(r: &tokio_postgres::Row) -> UserRow {
    UserRow {
        id: r.get(0),
        email: r.get(1),
        has_password: r.get(2),
        confirmed: r.get(3),
        invited: r.get(4),
        banned: r.get(5),
        is_anonymous: r.get(6),
        confirmation_sent_at: r.get(7),
        recovery_sent_at: r.get(8),
        email_change_sent_at: r.get(9),
        reauthentication_sent_at: r.get(10),
        email_change: r.get(11),
        email_change_token_new: r.get(12),
        email_change_token_current: r.get(13),
        email_change_confirm_status: r.get(14),
        confirmation_token: r.get(15),
        recovery_token: r.get(16),
        reauthentication_token: r.get(17),
        user_metadata: r.get(18),
    }
}

/// The user (locked for the rest of the transaction) with this id.
pub async fn row(c: &impl GenericClient, id: Uuid) -> Result<UserRow> {
    c.query_opt(
        &format!("{ROW} WHERE id = $1 AND deleted_at IS NULL FOR UPDATE"),
        &[&id],
    )
    .await?
    .map(|r| user_row(&r))
    .ok_or_else(user_not_found)
}

/// The user (locked) with this normalised address.
pub async fn row_by_email(c: &impl GenericClient, email: &str) -> Result<Option<UserRow>> {
    Ok(c.query_opt(
        &format!("{ROW} WHERE lower(email) = lower($1) AND deleted_at IS NULL FOR UPDATE"),
        &[&email],
    )
    .await?
    .map(|r| user_row(&r)))
}

/// The user holding a token (by column), locked.
pub async fn row_by_token(
    c: &impl GenericClient,
    columns: &[&str],
    token: &str,
) -> Result<Option<UserRow>> {
    let cond: Vec<String> = columns.iter().map(|c| format!("{c} = $1")).collect();
    Ok(c.query_opt(
        &format!(
            "{ROW} WHERE ({}) AND deleted_at IS NULL FOR UPDATE",
            cond.join(" OR ")
        ),
        &[&token],
    )
    .await?
    .map(|r| user_row(&r)))
}

/// Inserts a user and (for an address) its `email` identity. The address must already be
/// normalised; None makes an anonymous user.
pub async fn insert_user(
    c: &impl GenericClient,
    email: Option<&str>,
    password_hash: &str,
    user_metadata: &Value,
    confirmed: bool,
) -> std::result::Result<Uuid, tokio_postgres::Error> {
    let anonymous = email.is_none();
    let app_meta = if anonymous {
        json!({})
    } else {
        json!({"provider": "email", "providers": ["email"]})
    };
    let id: Uuid = c
        .query_one(
            "INSERT INTO auth.users (email, encrypted_password, email_confirmed_at, raw_app_meta_data,
                                     raw_user_meta_data, is_anonymous)
             VALUES ($1, $2, CASE WHEN $3 THEN now() END, $4, $5, $6) RETURNING id",
            &[
                &email,
                &password_hash,
                &confirmed,
                &app_meta,
                user_metadata,
                &anonymous,
            ],
        )
        .await?
        .get(0);
    if let Some(email) = email {
        c.execute(
            "INSERT INTO auth.identities (provider_id, user_id, identity_data, provider)
             VALUES ($1::uuid::text, $1, $4::jsonb || jsonb_build_object('sub', $1::uuid::text,
                     'email', $2::text, 'email_verified', $3::bool, 'phone_verified', false), 'email')",
            &[&id, &email, &confirmed, user_metadata],
        )
        .await?;
    }
    Ok(id)
}

pub async fn find_id_by_email(
    c: &impl GenericClient,
    email: &str,
) -> std::result::Result<Option<Uuid>, tokio_postgres::Error> {
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
) -> std::result::Result<(), tokio_postgres::Error> {
    c.execute(
        "UPDATE auth.users SET encrypted_password = $2, updated_at = now(),
                email_confirmed_at = coalesce(email_confirmed_at, now()) WHERE id = $1",
        &[&id, &password_hash],
    )
    .await?;
    Ok(())
}

/// Confirms the address: `email_confirmed_at` set, identities marked verified.
pub async fn confirm(c: &impl GenericClient, id: Uuid) -> Result<()> {
    c.execute(
        "UPDATE auth.users SET email_confirmed_at = coalesce(email_confirmed_at, now()),
                confirmation_token = '', updated_at = now() WHERE id = $1",
        &[&id],
    )
    .await?;
    c.execute(
        "UPDATE auth.identities SET identity_data = identity_data || '{\"email_verified\": true}',
                updated_at = now()
         WHERE user_id = $1 AND provider = 'email'",
        &[&id],
    )
    .await?;
    Ok(())
}

/// Updates e-mail, password hash and/or metadata (merged, as GoTrue merges `data`).
pub async fn update(
    c: &impl GenericClient,
    id: Uuid,
    email: Option<&str>,
    password_hash: Option<&str>,
    data: Option<&Value>,
    app_data: Option<&Value>,
) -> Result<Value> {
    let result = c
        .execute(
            "UPDATE auth.users SET
               email = coalesce($2, email),
               encrypted_password = coalesce($3, encrypted_password),
               raw_user_meta_data = CASE WHEN $4::jsonb IS NULL THEN raw_user_meta_data ELSE raw_user_meta_data || $4::jsonb END,
               raw_app_meta_data = CASE WHEN $5::jsonb IS NULL THEN raw_app_meta_data ELSE raw_app_meta_data || $5::jsonb END,
               updated_at = now()
             WHERE id = $1",
            &[&id, &email, &password_hash, &data, &app_data],
        )
        .await;
    match result {
        Err(e) if e.code() == Some(&tokio_postgres::error::SqlState::UNIQUE_VIOLATION) => {
            return Err(api(
                422,
                ErrorCode::EmailExists,
                "A user with this email address has already been registered",
            ));
        }
        Err(e) => return Err(e.into()),
        Ok(_) => {}
    }
    if let Some(e) = email {
        set_identity_email(c, id, e).await?;
    }
    require(c, id).await
}

/// The `email` identity follows the address (made if the user had none: an anonymous user
/// given an address).
pub async fn set_identity_email(c: &impl GenericClient, id: Uuid, email: &str) -> Result<()> {
    c.execute(
        "INSERT INTO auth.identities (provider_id, user_id, identity_data, provider)
         VALUES ($1::uuid::text, $1, jsonb_build_object('sub', $1::uuid::text, 'email', $2::text,
                 'email_verified', true, 'phone_verified', false), 'email')
         ON CONFLICT (provider_id, provider) DO UPDATE
           SET identity_data = auth.identities.identity_data || jsonb_build_object('email', $2::text, 'email_verified', true),
               updated_at = now()",
        &[&id, &email],
    )
    .await?;
    c.execute(
        "UPDATE auth.users SET raw_app_meta_data = coalesce(raw_app_meta_data, '{}') || jsonb_build_object(
            'provider', coalesce(raw_app_meta_data ->> 'provider', 'email'),
            'providers', (SELECT jsonb_agg(DISTINCT provider) FROM auth.identities WHERE user_id = $1))
         WHERE id = $1",
        &[&id],
    )
    .await?;
    Ok(())
}

pub async fn delete(c: &impl GenericClient, id: Uuid) -> Result<bool> {
    Ok(c.execute("DELETE FROM auth.users WHERE id = $1", &[&id])
        .await?
        > 0)
}

/// A new user known by a number, with its `phone` identity.
pub async fn insert_phone_user(
    c: &impl GenericClient,
    number: &str,
    password_hash: &str,
    data: &Value,
    confirmed: bool,
) -> Result<Uuid> {
    let id: Uuid = c
        .query_one(
            "INSERT INTO auth.users (phone, encrypted_password, phone_confirmed_at, raw_app_meta_data,
                                     raw_user_meta_data)
             VALUES ($1, $2, CASE WHEN $3 THEN now() END,
                     '{\"provider\": \"phone\", \"providers\": [\"phone\"]}', $4) RETURNING id",
            &[&number, &password_hash, &confirmed, data],
        )
        .await?
        .get(0);
    c.execute(
        "INSERT INTO auth.identities (provider_id, user_id, identity_data, provider)
         VALUES ($1::uuid::text, $1, $4::jsonb || jsonb_build_object('sub', $1::uuid::text,
                 'phone', $2::text, 'email_verified', false, 'phone_verified', $3::bool), 'phone')",
        &[&id, &number, &confirmed, data],
    )
    .await?;
    Ok(id)
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
            "xx:;x@x.x",
            "a@-x.com",
        ] {
            assert_eq!(normalize_email(bad), Err(InvalidEmail), "{bad}");
        }
    }
}
