//! `users create`: what GoTrue's admin API does for a new, confirmed e-mail user.

use super::CommandError;
use super::{Prepare, with_database};
use gateway::config::Config;
use pg::connect;

pub async fn create(cfg: &Config, email: &str, password: &str) -> Result<(), CommandError> {
    let email = auth::users::normalize_email(email)?;
    auth::password::Policy::new(
        cfg.auth.minimum_password_length,
        &cfg.auth.password_requirements,
    )
    .check(password)?;
    let hash = auth::password::hash(password);
    with_database(cfg, Prepare::UnlessRunning, async |db| {
        let c = connect(&db.admin).await?;
        if auth::users::find_id_by_email(&c, &email).await?.is_some() {
            return Err(CommandError::Message(format!(
                "A user with this email address has already been registered: {email}"
            )));
        }
        let id =
            auth::users::insert_user(&c, Some(&email), &hash, &serde_json::json!({}), true).await?;
        println!("Created user {email} ({id}).");
        Ok(())
    })
    .await
}
