//! Mail: GoTrue's templates ([`template`]) or the project's `[auth.email.template.*]`,
//! rendered and sent through `[auth.email.smtp]` when configured, or caught by the built-in
//! catcher (PostgreSQL table `supagate.mail`, read by [`catcher`] as the Supabase CLI's Mailpit
//! shows it); and the mail apps queue from SQL ([`outbox`]).

pub mod catcher;
pub mod outbox;
pub mod receive;
mod smtp;
pub mod template;

use pg::{Login, Pool};
use project::Project;
use std::collections::HashMap;
use std::time::Duration;
pub use template::{Kind, MailJob, TemplateError, escape_html, render};

#[derive(Debug, thiserror::Error)]
pub enum MailError {
    #[error("auth.email template {name}: {reason}")]
    Template { name: &'static str, reason: String },
    #[error("auth.email.smtp: {0}")]
    Config(String),
    #[error("{what} address {address:?}: {reason}")]
    Address {
        what: &'static str,
        address: String,
        reason: String,
    },
    #[error("SMTP delivery failed: {0}")]
    Smtp(String),
    #[error(transparent)]
    Render(#[from] TemplateError),
    #[error(transparent)]
    Pool(#[from] pg::DbError),
    #[error("database error: {0}")]
    Db(#[from] tokio_postgres::Error),
}

/// Subjects and bodies, the project's where it has its own.
pub struct Templates {
    custom: HashMap<&'static str, (Option<String>, Option<String>)>,
    /// Notifications the project switched on.
    notifications: Vec<&'static str>,
}

const KINDS: [Kind; 11] = [
    Kind::Invite,
    Kind::Confirmation,
    Kind::Recovery,
    Kind::MagicLink,
    Kind::EmailChange,
    Kind::Reauthentication,
    Kind::PasswordChanged,
    Kind::EmailChanged,
    Kind::IdentityUnlinked,
    Kind::FactorEnrolled,
    Kind::FactorUnenrolled,
];

impl Templates {
    /// Reads the project's template files (relative to the project folder, as the CLI reads
    /// them); a missing or broken one stops start with its name.
    pub fn load(project: &Project) -> Result<Templates, MailError> {
        let email = &project.config.auth.email;
        let mut custom = HashMap::new();
        let mut notifications = Vec::new();
        for kind in KINDS {
            let name = kind.config_name();
            let t = email
                .templates
                .get(name)
                .or_else(|| email.notifications.get(name));
            if kind.is_notification() && email.notifications.contains_key(name) {
                notifications.push(name);
            }
            let Some(t) = t else { continue };
            let body = match &t.content_path {
                Some(p) => {
                    let file = project.root.join(p);
                    Some(
                        std::fs::read_to_string(&file).map_err(|e| MailError::Template {
                            name,
                            reason: format!("cannot read {}: {e}", file.display()),
                        })?,
                    )
                }
                None => None,
            };
            let vars = serde_json::Map::new();
            for (what, text) in [("subject", &t.subject), ("content", &body)] {
                if let Some(text) = text {
                    render(text, &vars, true).map_err(|e| MailError::Template {
                        name,
                        reason: format!("{what}: {e}"),
                    })?;
                }
            }
            custom.insert(name, (t.subject.clone(), body));
        }
        Ok(Templates {
            custom,
            notifications,
        })
    }

    pub fn notification_enabled(&self, kind: Kind) -> bool {
        self.notifications.contains(&kind.config_name())
    }

    fn subject_and_body(&self, kind: Kind) -> (String, String) {
        let (s, b) = self
            .custom
            .get(kind.config_name())
            .cloned()
            .unwrap_or((None, None));
        (
            s.unwrap_or_else(|| kind.default_subject().to_string()),
            b.unwrap_or_else(|| kind.default_body().to_string()),
        )
    }
}

/// A rendered mail.
pub struct Message {
    /// What it is, as the catcher lists it: an auth template's name, or `app`.
    pub kind: &'static str,
    pub to: String,
    pub subject: String,
    pub html: String,
    pub text: String,
    /// An auth mail's code and link (`{{ .Token }}`, `{{ .ConfirmationURL }}`), kept with the
    /// caught mail for tests.
    pub token: Option<String>,
    pub link: Option<String>,
    /// The sender an app named (display name, address), instead of the configured one.
    pub from: Option<(String, String)>,
    /// Where replies go.
    pub reply_to: Option<String>,
}

/// The text version of an HTML body: tags dropped, entities decoded, blank lines squeezed.
pub(crate) fn text_of(html: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    let decoded = out
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&#34;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&");
    decoded
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

pub struct Mailer {
    templates: Templates,
    /// Owner connections to the project database (the catcher's table).
    db: Pool,
    smtp: Option<smtp::Smtp>,
    sender: String,
    sender_name: String,
}

impl Mailer {
    /// The project's mail settings; `admin` logs into the database the catcher keeps mail in.
    pub fn new(project: &Project, admin: &Login) -> Result<Mailer, MailError> {
        let templates = Templates::load(project)?;
        let cfg = &project.config;
        let (smtp, sender, sender_name) = match &cfg.auth.email.smtp {
            Some(s) => (
                Some(smtp::Smtp::new(s)?),
                s.admin_email.clone(),
                s.sender_name.clone(),
            ),
            None => (
                None,
                cfg.inbucket.admin_email.clone(),
                cfg.inbucket.sender_name.clone(),
            ),
        };
        Ok(Mailer {
            templates,
            db: Pool::new(admin, 4, Duration::from_secs(5)),
            smtp,
            sender,
            sender_name,
        })
    }

    /// The caught mail, for the catcher's page and API.
    pub fn catcher(&self) -> catcher::Catcher {
        catcher::Catcher::new(self.db.clone())
    }

    /// Whether mail is caught here rather than sent through an SMTP server.
    pub fn catches(&self) -> bool {
        self.smtp.is_none()
    }

    pub fn render(&self, job: &MailJob) -> Result<Message, MailError> {
        let (subject, body) = self.templates.subject_and_body(job.kind);
        let html = render(&body, &job.vars, true)?;
        Ok(Message {
            kind: job.kind.config_name(),
            to: job.to.clone(),
            subject: render(&subject, &job.vars, false)?,
            text: text_of(&html),
            html,
            token: Some(job.var("Token"))
                .filter(|t| !t.is_empty())
                .map(str::to_string),
            link: Some(job.var("ConfirmationURL"))
                .filter(|t| !t.is_empty())
                .map(str::to_string),
            from: None,
            reply_to: None,
        })
    }

    /// Sends (or catches) the mails of a flow that committed.
    pub async fn deliver(&self, jobs: &[MailJob]) -> Result<(), MailError> {
        for job in jobs {
            if job.kind.is_notification() && !self.templates.notification_enabled(job.kind) {
                continue;
            }
            self.send(&self.render(job)?).await?;
        }
        Ok(())
    }

    /// Sends one mail through SMTP, or catches it when no SMTP server is configured.
    pub async fn send(&self, m: &Message) -> Result<(), MailError> {
        match &self.smtp {
            Some(s) => s.send(self.from(m), m).await?,
            None => self.catch(m).await?,
        }
        tracing::info!(kind = m.kind, to = %m.to, "mail sent");
        Ok(())
    }

    /// The sender of `m`: the one its app named, else the configured one (an app naming only
    /// a display name keeps the configured address).
    fn from<'a>(&'a self, m: &'a Message) -> (&'a str, &'a str) {
        match &m.from {
            Some((name, address)) if !address.is_empty() => (name, address),
            Some((name, _)) => (name, &self.sender),
            None => (&self.sender_name, &self.sender),
        }
    }

    async fn catch(&self, m: &Message) -> Result<(), MailError> {
        let c = self.db.get().await?;
        let (sender_name, sender) = self.from(m);
        let message_id = format!("{}@supagate", uuid::Uuid::new_v4().simple());
        c.execute(
            "WITH new AS (INSERT INTO supagate.mail (message_id, sender_name, sender, recipient, subject,
                                                     html, text, kind, token, link, reply_to)
                          VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id)
             DELETE FROM supagate.mail WHERE id IN (
               SELECT id FROM supagate.mail ORDER BY created_at DESC OFFSET 1000)",
            &[
                &message_id,
                &sender_name,
                &sender,
                &m.to,
                &m.subject,
                &m.html,
                &m.text,
                &m.kind,
                &m.token,
                &m.link,
                &m.reply_to,
            ],
        )
        .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_versions_drop_markup() {
        assert_eq!(
            text_of("<h2>Confirm</h2>\n\n<p>Follow <a href=\"x\">this &amp; that</a></p>"),
            "Confirm\nFollow this & that"
        );
    }
}
