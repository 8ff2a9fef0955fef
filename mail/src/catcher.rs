//! The caught mail (`supagate.mail`), as the catcher's page, Mailpit's API and Inbucket's API
//! read it: searched (`to:`, `from:`, `subject:`, words), opened (and marked read), deleted;
//! and the caught text messages (`supagate.sms`), listed by number and deleted.

use super::MailError;
use pg::Pool;
use tokio_postgres::types::ToSql;
use uuid::Uuid;

/// A caught mail.
pub struct Mail {
    pub id: Uuid,
    pub message_id: String,
    pub sender_name: String,
    pub sender: String,
    pub to: String,
    pub subject: String,
    pub html: String,
    pub text: String,
    pub read: bool,
    pub created: chrono::DateTime<chrono::Utc>,
    /// Where replies go, when the sender said.
    pub reply_to: Option<String>,
}

/// A mail an app sent to the catcher over SMTP, as read from its message.
pub struct Received {
    /// Its own Message-ID, when it has one.
    pub message_id: Option<String>,
    pub sender_name: String,
    pub sender: String,
    pub subject: String,
    pub html: String,
    pub text: String,
    pub reply_to: Option<String>,
}

/// A caught text message.
pub struct Text {
    pub id: Uuid,
    /// The number, as the auth API keeps it (E.164 digits without `+`).
    pub to: String,
    pub body: String,
    /// What it was sent for: `confirmation`, `otp`, `sms`, `phone_change`.
    pub kind: String,
    /// `sms` or `whatsapp`.
    pub channel: String,
    pub created: chrono::DateTime<chrono::Utc>,
}

/// A page of a search: the mails, how many match, how many of those are unread.
pub struct Found {
    pub mails: Vec<Mail>,
    pub total: i64,
    pub unread: i64,
}

const COLUMNS: &str = "id, message_id, sender_name, sender, recipient, subject, html, text, read, created_at, reply_to";

fn mail(r: &tokio_postgres::Row) -> Mail {
    Mail {
        id: r.get(0),
        message_id: r.get(1),
        sender_name: r.get(2),
        sender: r.get(3),
        to: r.get(4),
        subject: r.get(5),
        html: r.get(6),
        text: r.get(7),
        read: r.get(8),
        created: r.get(9),
        reply_to: r.get(10),
    }
}

/// A Mailpit search (`to:ann@example.com subject:confirm words`) as a WHERE clause and its
/// parameters.
fn search(query: &str) -> (String, Vec<String>) {
    let mut conds = Vec::new();
    let mut params = Vec::new();
    for term in query.split_whitespace() {
        let (field, value) = match term.split_once(':') {
            Some((f @ ("to" | "from" | "subject"), v)) => (f, v.trim_matches('"')),
            _ => ("text", term.trim_matches('"')),
        };
        params.push(format!(
            "%{}%",
            value.replace('%', "\\%").replace('_', "\\_")
        ));
        let n = params.len();
        conds.push(match field {
            "to" => format!("recipient ILIKE ${n}"),
            "from" => format!("(sender ILIKE ${n} OR sender_name ILIKE ${n})"),
            "subject" => format!("subject ILIKE ${n}"),
            _ => format!("(subject ILIKE ${n} OR text ILIKE ${n})"),
        });
    }
    let clause = if conds.is_empty() {
        "true".to_string()
    } else {
        conds.join(" AND ")
    };
    (clause, params)
}

fn refs(params: &[String]) -> Vec<&(dyn ToSql + Sync)> {
    params.iter().map(|p| p as &(dyn ToSql + Sync)).collect()
}

/// The catcher's view of the project database.
#[derive(Clone)]
pub struct Catcher {
    db: Pool,
}

impl Catcher {
    pub fn new(db: Pool) -> Self {
        Catcher { db }
    }

    /// Mails matching a Mailpit search, newest first, from `start`, at most `limit`.
    pub async fn find(&self, query: &str, start: i64, limit: i64) -> Result<Found, MailError> {
        let (clause, params) = search(query);
        let c = self.db.get().await?;
        let p = refs(&params);
        let n = params.len();
        let rows = c
            .query(
                &format!(
                    "SELECT {COLUMNS} FROM supagate.mail WHERE {clause} ORDER BY created_at DESC
                     OFFSET ${} LIMIT ${}",
                    n + 1,
                    n + 2
                ),
                &[&p[..], &[&start as _, &limit as _]].concat(),
            )
            .await?;
        let counts = c
            .query_one(
                &format!(
                    "SELECT count(*), count(*) FILTER (WHERE NOT read) FROM supagate.mail WHERE {clause}"
                ),
                &p,
            )
            .await?;
        Ok(Found {
            mails: rows.iter().map(mail).collect(),
            total: counts.get(0),
            unread: counts.get(1),
        })
    }

    /// One mail by id (or `latest`), marked read.
    pub async fn open(&self, id: &str) -> Result<Option<Mail>, MailError> {
        let c = self.db.get().await?;
        let row = if id == "latest" {
            c.query_opt(
                &format!("UPDATE supagate.mail SET read = true WHERE id = (SELECT id FROM supagate.mail ORDER BY created_at DESC LIMIT 1) RETURNING {COLUMNS}"),
                &[],
            )
            .await?
        } else {
            let Ok(id) = Uuid::parse_str(id) else {
                return Ok(None);
            };
            c.query_opt(
                &format!("UPDATE supagate.mail SET read = true WHERE id = $1 RETURNING {COLUMNS}"),
                &[&id],
            )
            .await?
        };
        Ok(row.as_ref().map(mail))
    }

    /// Deletes these mails, or those matching a search, or (neither) all.
    pub async fn delete(&self, ids: &[Uuid], query: Option<&str>) -> Result<(), MailError> {
        let c = self.db.get().await?;
        match (ids.is_empty(), query) {
            (false, _) => {
                c.execute("DELETE FROM supagate.mail WHERE id = ANY($1)", &[&ids])
                    .await?
            }
            (true, Some(q)) => {
                let (clause, params) = search(q);
                c.execute(
                    &format!("DELETE FROM supagate.mail WHERE {clause}"),
                    &refs(&params),
                )
                .await?
            }
            (true, None) => c.execute("DELETE FROM supagate.mail", &[]).await?,
        };
        Ok(())
    }

    /// Keeps a mail received over SMTP for one recipient (the newest 1000 kept, as all caught
    /// mail).
    pub async fn store(&self, m: &Received, to: &str) -> Result<(), MailError> {
        let c = self.db.get().await?;
        let message_id = m
            .message_id
            .clone()
            .unwrap_or_else(|| format!("{}@supagate", Uuid::new_v4().simple()));
        c.execute(
            "WITH new AS (INSERT INTO supagate.mail (message_id, sender_name, sender, recipient, subject,
                                                     html, text, kind, reply_to)
                          VALUES ($1, $2, $3, $4, $5, $6, $7, 'smtp', $8) RETURNING id)
             DELETE FROM supagate.mail WHERE id IN (
               SELECT id FROM supagate.mail ORDER BY created_at DESC OFFSET 1000)",
            &[
                &message_id,
                &m.sender_name,
                &m.sender,
                &to,
                &m.subject,
                &m.html,
                &m.text,
                &m.reply_to,
            ],
        )
        .await?;
        Ok(())
    }

    /// Inbucket: the mails of one mailbox (the local part of the address), oldest first.
    pub async fn mailbox(&self, name: &str) -> Result<Vec<Mail>, MailError> {
        let c = self.db.get().await?;
        let rows = c
            .query(
                &format!("SELECT {COLUMNS} FROM supagate.mail WHERE lower(split_part(recipient, '@', 1)) = lower($1) ORDER BY created_at"),
                &[&name],
            )
            .await?;
        Ok(rows.iter().map(mail).collect())
    }

    /// Text messages, newest first, to one number (with or without `+`) or to all, at most
    /// `limit`.
    pub async fn texts(&self, to: Option<&str>, limit: i64) -> Result<Vec<Text>, MailError> {
        let c = self.db.get().await?;
        let to = to.map(|t| t.trim().trim_start_matches('+').replace(' ', ""));
        let rows = c
            .query(
                "SELECT id, recipient, body, kind, created_at, channel FROM supagate.sms
                 WHERE $1::text IS NULL OR recipient = $1 ORDER BY created_at DESC LIMIT $2",
                &[&to, &limit],
            )
            .await?;
        Ok(rows
            .iter()
            .map(|r| Text {
                id: r.get(0),
                to: r.get(1),
                body: r.get(2),
                kind: r.get(3),
                channel: r.get(5),
                created: r.get(4),
            })
            .collect())
    }

    /// Deletes the text messages to one number, or all.
    pub async fn delete_texts(&self, to: Option<&str>) -> Result<(), MailError> {
        let c = self.db.get().await?;
        let to = to.map(|t| t.trim().trim_start_matches('+').replace(' ', ""));
        c.execute(
            "DELETE FROM supagate.sms WHERE $1::text IS NULL OR recipient = $1",
            &[&to],
        )
        .await?;
        Ok(())
    }

    pub async fn purge_mailbox(&self, name: &str) -> Result<(), MailError> {
        let c = self.db.get().await?;
        c.execute(
            "DELETE FROM supagate.mail WHERE lower(split_part(recipient, '@', 1)) = lower($1)",
            &[&name],
        )
        .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn searches_become_conditions() {
        let (clause, params) = search("to:ann@example.com subject:\"Confirm\" hello");
        assert_eq!(
            clause,
            "recipient ILIKE $1 AND subject ILIKE $2 AND (subject ILIKE $3 OR text ILIKE $3)"
        );
        assert_eq!(params, ["%ann@example.com%", "%Confirm%", "%hello%"]);
        assert_eq!(search("").0, "true");
    }
}
