//! GoTrue's admin API, a sub-service of auth in a crate of its own (service_role; the HTTP edge
//! checks the role): users (list, create, read, update, delete), their factors, invitations and
//! generated links.
//!
//! [`Admin`] borrows the auth service's core ([`auth::Auth`]: its settings, its transactions as
//! the auth admin role, the mail they send, its users): the gateway's `auth_api` makes one per
//! request.

use auth::config::AuthConfig;
use auth::email::{self as mails, Flow};
use auth::error::{AuthError, ErrorCode, api, user_not_found, validation};
use auth::models::User;
use auth::params::{
    AdminUserParams, GenerateLinkParams, InviteParams, UserListQuery, object, text,
};
use auth::service::{hash_password, never};
use auth::users::{self, UserRow};
use auth::{Auth, Request};
use mail::MailJob;
use serde::Serialize;
use serde_json::{Value, json};
use uuid::Uuid;

/// A page of users, with what GoTrue's `X-Total-Count` and `Link` headers say.
pub struct UserPage {
    pub body: Value,
    pub total: i64,
    /// The `Link` header: the next page (if any) and the last.
    pub links: String,
}

/// A user id from the path (404 `user_not_found` otherwise).
pub fn user_id(raw: &str) -> Result<Uuid, AuthError> {
    Uuid::parse_str(raw).map_err(|_| user_not_found())
}

fn email(raw: &str) -> Result<String, AuthError> {
    users::normalize_email(raw).map_err(|e| validation(e.to_string()))
}

fn email_exists() -> AuthError {
    api(
        422,
        ErrorCode::EmailExists,
        "A user with this email address has already been registered",
    )
}

fn phone_exists() -> AuthError {
    api(
        422,
        ErrorCode::PhoneExists,
        "A user with this phone number has already been registered",
    )
}

/// Gives a user made with an address a phone number too.
async fn set_phone(
    c: &tokio_postgres::Client,
    id: Uuid,
    number: &str,
    confirmed: bool,
) -> Result<(), AuthError> {
    c.execute(
        "UPDATE auth.users SET phone = $2, phone_confirmed_at = CASE WHEN $3 THEN now() END
         WHERE id = $1",
        &[&id, &number, &confirmed],
    )
    .await
    .map_err(|e| match e.code() {
        Some(&tokio_postgres::error::SqlState::UNIQUE_VIOLATION) => phone_exists(),
        _ => e.into(),
    })?;
    Ok(())
}

async fn set_ban(c: &tokio_postgres::Client, id: Uuid, ban: Option<&str>) -> Result<(), AuthError> {
    if let Some(b) = ban {
        let until = if b == "none" { None } else { Some(b) };
        c.execute(
            "UPDATE auth.users SET banned_until = now() + $2::text::interval WHERE id = $1",
            &[&id, &until],
        )
        .await
        .map_err(|_| validation("invalid format for ban duration"))?;
    }
    Ok(())
}

/// GoTrue's `GenerateLinkResponse`: the user and what its generated link carries.
#[derive(Serialize)]
struct GeneratedLink<'a> {
    #[serde(flatten)]
    user: User,
    action_link: &'a str,
    email_otp: &'a str,
    hashed_token: &'a str,
    verification_type: &'a str,
    redirect_to: &'a str,
}

/// The admin API over the auth service it belongs to.
pub struct Admin<'a> {
    auth: &'a Auth,
}

impl<'a> Admin<'a> {
    pub fn new(auth: &'a Auth) -> Admin<'a> {
        Admin { auth }
    }

    fn cfg(&self) -> &'a AuthConfig {
        self.auth.config()
    }

    /// The user of an admin path (404 when there is none).
    pub async fn user_id(&self, raw: &str) -> Result<Uuid, AuthError> {
        let id = user_id(raw)?;
        self.auth
            .in_tx(never, async |c| users::require(c, id).await.map(|_| id))
            .await
    }

    /// `GET /admin/users?page=&per_page=`; `path` is the request's path (for the links).
    pub async fn list_users(&self, q: UserListQuery, path: &str) -> Result<UserPage, AuthError> {
        let num = |v: &Option<String>, default: u32| match v.as_deref().filter(|v| !v.is_empty()) {
            None => Ok(default),
            Some(v) => v
                .parse::<u32>()
                .map_err(|e| validation(format!("Bad Pagination Parameters: {e}"))),
        };
        let page = i64::from(num(&q.page, 1)?.max(1));
        let per_page = i64::from(num(&q.per_page, 50)?.clamp(1, 1000));
        let filter = q.filter.as_deref().unwrap_or_default();
        let (list, total) = self
            .auth
            .in_tx(never, async |c| {
                users::list(c, page, per_page, filter).await
            })
            .await?;
        let last = ((total + per_page - 1) / per_page).max(1);
        let mut links = vec![format!(
            "<{path}?page={last}&per_page={per_page}>; rel=\"last\""
        )];
        if page < last {
            links.insert(
                0,
                format!(
                    "<{path}?page={}&per_page={per_page}>; rel=\"next\"",
                    page + 1
                ),
            );
        }
        Ok(UserPage {
            body: json!({"users": list, "aud": "authenticated"}),
            total,
            links: links.join(", "),
        })
    }

    pub async fn create_user(&self, p: AdminUserParams) -> Result<Value, AuthError> {
        let cfg = self.cfg();
        let number = match text(&p.phone) {
            "" => None,
            n => Some(auth::phone::normalize(n)?),
        };
        if number.is_some() && text(&p.email).is_empty() {
            return self.create_phone_user(p, number.unwrap_or_default()).await;
        }
        let address = email(text(&p.email))?;
        let hash = match p.password.as_deref() {
            Some(pw) => {
                auth::signup::check_password(pw, cfg)?;
                hash_password(pw.to_string()).await
            }
            None => String::new(),
        };
        let confirm = p.email_confirm.unwrap_or(false);
        let meta = object(&p.user_metadata).unwrap_or(json!({}));
        let app_meta = object(&p.app_metadata);
        self.auth
            .in_tx(never, async |c| {
                if users::find_id_by_email(c, &address).await?.is_some() {
                    return Err(email_exists());
                }
                let id = auth::signup::create(c, cfg, &address, &hash, &meta, confirm).await?;
                if let Some(n) = &number {
                    set_phone(c, id, n, p.phone_confirm.unwrap_or(false)).await?;
                }
                set_ban(c, id, p.ban_duration.as_deref()).await?;
                users::update(c, id, None, None, None, app_meta.as_ref()).await
            })
            .await
    }

    /// `POST /admin/users` with a phone number and no address.
    async fn create_phone_user(
        &self,
        p: AdminUserParams,
        number: String,
    ) -> Result<Value, AuthError> {
        let hash = match p.password.as_deref() {
            Some(pw) => {
                auth::signup::check_password(pw, self.cfg())?;
                hash_password(pw.to_string()).await
            }
            None => String::new(),
        };
        let meta = object(&p.user_metadata).unwrap_or(json!({}));
        let app_meta = object(&p.app_metadata);
        let confirmed = p.phone_confirm.unwrap_or(false);
        self.auth.in_tx(never, async |c| {
            let taken: bool = c
                .query_one(
                    "SELECT EXISTS (SELECT 1 FROM auth.users WHERE phone = $1 AND deleted_at IS NULL)",
                    &[&number],
                )
                .await?
                .get(0);
            if taken {
                return Err(phone_exists());
            }
            let id = users::insert_phone_user(c, &number, &hash, &meta, confirmed).await?;
            set_ban(c, id, p.ban_duration.as_deref()).await?;
            users::update(c, id, None, None, None, app_meta.as_ref()).await
        })
        .await
    }

    pub async fn get_user(&self, id: &str) -> Result<Value, AuthError> {
        Ok(users::to_json(&self.admin_user(id).await?))
    }

    /// The user `id` names (GoTrue's 404 when there is none).
    async fn admin_user(&self, id: &str) -> Result<User, AuthError> {
        let id = user_id(id)?;
        self.auth
            .in_tx(never, async |c| {
                users::load(c, id).await?.ok_or_else(user_not_found)
            })
            .await
    }

    pub async fn update_user_admin(
        &self,
        id: &str,
        p: AdminUserParams,
    ) -> Result<Value, AuthError> {
        let id = user_id(id)?;
        let cfg = self.cfg();
        let address = p.email.as_deref().map(email).transpose()?;
        let hash = match p.password.as_deref() {
            Some(pw) => {
                auth::signup::check_password(pw, cfg)?;
                Some(hash_password(pw.to_string()).await)
            }
            None => None,
        };
        let meta = object(&p.user_metadata);
        let app_meta = object(&p.app_metadata);
        let confirm = p.email_confirm == Some(true);
        self.auth
            .in_tx(never, async |c| {
                users::require(c, id).await?;
                if confirm {
                    users::confirm(c, id).await?;
                }
                set_ban(c, id, p.ban_duration.as_deref()).await?;
                users::update(
                    c,
                    id,
                    address.as_deref(),
                    hash.as_deref(),
                    meta.as_ref(),
                    app_meta.as_ref(),
                )
                .await
            })
            .await
    }

    pub async fn delete_user(&self, id: &str) -> Result<(), AuthError> {
        let id = user_id(id)?;
        let deleted = self
            .auth
            .in_tx(never, async |c| users::delete(c, id).await)
            .await?;
        if deleted {
            Ok(())
        } else {
            Err(user_not_found())
        }
    }

    pub async fn list_factors(&self, id: &str) -> Result<Value, AuthError> {
        let user = self.admin_user(id).await?;
        Ok(serde_json::to_value(user.factors).expect("factors serialize"))
    }

    pub async fn delete_factor(&self, id: &str, factor: &str) -> Result<Value, AuthError> {
        let id = user_id(id)?;
        let factor = auth_mfa::factor_id(factor)?;
        self.auth
            .in_tx(never, async |c| {
                auth_mfa::unenroll(c, id, factor, true).await
            })
            .await?;
        Ok(json!({ "id": factor }))
    }

    /// `POST /invite`: a user is made (if new) and mailed an invitation.
    pub async fn invite(&self, r: &Request, p: InviteParams) -> Result<Value, AuthError> {
        let cfg = self.cfg();
        let address = email(text(&p.email))?;
        let data = object(&p.data).unwrap_or(json!({}));
        let redirect = self.auth.redirect_to(cfg, r, p.redirect_to.as_deref());
        self.auth
            .in_tx_mail(never, async |c| {
                let row = match users::row_by_email(c, &address).await? {
                    Some(u) if u.confirmed => return Err(email_exists()),
                    Some(u) => u,
                    None => {
                        let id = auth::signup::create(c, cfg, &address, "", &data, false).await?;
                        users::row(c, id).await?
                    }
                };
                let mail = mails::invite(c, cfg, &row, &redirect).await?;
                Ok((users::require(c, row.id).await?, vec![mail]))
            })
            .await
    }

    /// `POST /admin/generate_link`: the link (and code) a mail would carry, without the mail.
    pub async fn generate_link(
        &self,
        r: &Request,
        p: GenerateLinkParams,
    ) -> Result<Value, AuthError> {
        let cfg = self.cfg();
        let kind = text(&p.kind);
        let address = email(text(&p.email))?;
        let new_email = p.new_email.as_deref().map(email).transpose()?;
        let data = object(&p.data).unwrap_or(json!({}));
        let password = match p.password.as_deref() {
            Some(pw) => hash_password(pw.to_string()).await,
            None => hash_password(auth::otp::generate(33)).await,
        };
        let redirect = self.auth.redirect_to(cfg, r, p.redirect_to.as_deref());
        self.auth
            .in_tx(never, async |c| {
                let existing = users::row_by_email(c, &address).await?;
                let (kind, row) = match (kind, existing) {
                    ("magiclink" | "signup", None) => {
                        let id =
                            auth::signup::create(c, cfg, &address, &password, &data, false).await?;
                        ("signup", users::row(c, id).await?)
                    }
                    ("invite", None) => {
                        let id = auth::signup::create(c, cfg, &address, "", &data, false).await?;
                        ("invite", users::row(c, id).await?)
                    }
                    ("invite" | "signup", Some(u)) if u.confirmed => return Err(email_exists()),
                    (k @ ("magiclink" | "signup" | "invite" | "recovery"), Some(u)) => (k, u),
                    ("recovery" | "email_change_current" | "email_change_new", None) => {
                        return Err(api(
                            404,
                            ErrorCode::UserNotFound,
                            "User with this email not found",
                        ));
                    }
                    ("email_change_current" | "email_change_new", Some(u)) => ("email_change", u),
                    _ => return Err(validation("Invalid email action link type requested")),
                };
                let want_current = text(&p.kind) == "email_change_current";
                let job = link_mail(
                    c,
                    cfg,
                    kind,
                    &row,
                    new_email.as_deref(),
                    &redirect,
                    want_current,
                )
                .await?;
                let user = users::load(c, row.id).await?.ok_or_else(user_not_found)?;
                // GoTrue answers with the type asked for (`email_change_current`), save a magic
                // link that signs a new user up.
                let asked = if kind == "email_change" {
                    text(&p.kind)
                } else {
                    kind
                };
                let link = GeneratedLink {
                    user,
                    action_link: job.var("ConfirmationURL"),
                    email_otp: job.var("Token"),
                    hashed_token: job.var("TokenHash"),
                    verification_type: asked,
                    redirect_to: &redirect,
                };
                Ok(serde_json::to_value(link).expect("a generated link serializes"))
            })
            .await
    }
}

/// The mail `kind` would send `row`, made without sending it (nor the frequency check).
async fn link_mail(
    c: &tokio_postgres::Client,
    cfg: &AuthConfig,
    kind: &str,
    row: &UserRow,
    new_email: Option<&str>,
    redirect: &str,
    want_current: bool,
) -> Result<MailJob, AuthError> {
    let reset = |column: &'static str| async move {
        c.execute(
            &format!("UPDATE auth.users SET {column} = NULL WHERE id = $1"),
            &[&row.id],
        )
        .await?;
        users::row(c, row.id).await
    };
    Ok(match kind {
        "invite" => mails::invite(c, cfg, row, redirect).await?,
        "signup" => {
            let row = reset("confirmation_sent_at").await?;
            mails::confirmation(c, cfg, &row, Flow::Implicit, redirect).await?
        }
        "magiclink" => {
            let row = reset("recovery_sent_at").await?;
            mails::magic_link(c, cfg, &row, Flow::Implicit, redirect).await?
        }
        "recovery" => {
            let row = reset("recovery_sent_at").await?;
            mails::recovery(c, cfg, &row, Flow::Implicit, redirect).await?
        }
        _ => {
            let new = new_email.ok_or_else(|| {
                validation("The new_email address is required for email change links")
            })?;
            let row = reset("email_change_sent_at").await?;
            let jobs = mails::email_change(c, cfg, &row, new, Flow::Implicit, redirect).await?;
            jobs.into_iter()
                .find(|j| (j.to == row.email) == want_current)
                .ok_or_else(|| validation("No current address to confirm"))?
        }
    })
}
