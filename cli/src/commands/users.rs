//! `users create`: what GoTrue's admin API does for a new, confirmed e-mail user.

use super::{Prepare, with_database};
use gateway::config::Config;
use pg::connect;

pub async fn create(cfg: &Config, email: &str, password: &str) -> Result<(), String> {
    let email = auth::users::normalize_email(email).map_err(|e| e.to_string())?;
    auth::password::Policy::new(
        cfg.auth.minimum_password_length,
        &cfg.auth.password_requirements,
    )
    .check(password)
    .map_err(|e| e.to_string())?;
    let hash = auth::password::hash(password);
    with_database(cfg, Prepare::UnlessRunning, async |db| {
        let c = connect(&db.admin).await.map_err(|e| e.to_string())?;
        if auth::users::find_id_by_email(&c, &email)
            .await
            .map_err(|e| e.to_string())?
            .is_some()
        {
            return Err(format!(
                "A user with this email address has already been registered: {email}"
            ));
        }
        let id = auth::users::insert_user(&c, Some(&email), &hash, &serde_json::json!({}), true)
            .await
            .map_err(|e| e.to_string())?;
        println!("Created user {email} ({id}).");
        Ok(())
    })
    .await
}
