//! Managing the shop's administrators (a `public.user_roles` row with role `admin`).

use auth::{password, users};
use tokio_postgres::Client;

#[derive(Debug, thiserror::Error)]
pub enum AdminError {
    #[error("{0}")]
    Invalid(String),
    #[error("no user with the e-mail {0}; create one with `supagate admin create EMAIL PASSWORD`")]
    NoSuchUser(String),
    #[error("database error: {0}")]
    Db(#[from] tokio_postgres::Error),
}

/// Creates the user (or sets the password of an existing one) and grants the admin role.
pub async fn create(c: &mut Client, email: &str, pw: &str) -> Result<(), AdminError> {
    let email = users::normalize_email(email).map_err(|e| AdminError::Invalid(e.to_string()))?;
    password::check_rules(pw, 6).map_err(|e| AdminError::Invalid(e.to_string()))?;
    let hash = password::hash(pw);
    let tx = c.transaction().await?;
    let id = match users::find_id_by_email(&tx, &email).await? {
        Some(id) => {
            users::set_password(&tx, id, &hash).await?;
            id
        }
        None => users::insert_user(&tx, &email, &hash, &serde_json::json!({}), true).await?,
    };
    tx.execute(
        "INSERT INTO public.user_roles (user_id, role) VALUES ($1, 'admin') ON CONFLICT DO NOTHING",
        &[&id],
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

pub async fn grant(c: &Client, email: &str) -> Result<(), AdminError> {
    let id = users::find_id_by_email(c, email)
        .await?
        .ok_or_else(|| AdminError::NoSuchUser(email.into()))?;
    c.execute(
        "INSERT INTO public.user_roles (user_id, role) VALUES ($1, 'admin') ON CONFLICT DO NOTHING",
        &[&id],
    )
    .await?;
    Ok(())
}

pub async fn revoke(c: &Client, email: &str) -> Result<bool, AdminError> {
    let id = users::find_id_by_email(c, email)
        .await?
        .ok_or_else(|| AdminError::NoSuchUser(email.into()))?;
    Ok(c.execute(
        "DELETE FROM public.user_roles WHERE user_id = $1 AND role = 'admin'",
        &[&id],
    )
    .await?
        > 0)
}

pub async fn list(c: &Client) -> Result<Vec<(String, String)>, AdminError> {
    Ok(c.query(
        "SELECT u.email, to_char(r.created_at, 'YYYY-MM-DD') FROM public.user_roles r
         JOIN auth.users u ON u.id = r.user_id WHERE r.role = 'admin' ORDER BY u.email",
        &[],
    )
    .await?
    .iter()
    .map(|r| (r.get(0), r.get(1)))
    .collect())
}
