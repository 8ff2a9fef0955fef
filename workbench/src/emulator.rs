//! What Firebase's emulators offer tests beside the APIs: the codes and links the auth API
//! sent (read from the caught mail and texts, pending while their one-time token is unused),
//! deleting every user, and emptying a set of tables.

use serde::Serialize;
use tokio_postgres::GenericClient;

#[derive(Debug, thiserror::Error)]
pub enum EmulatorError {
    #[error("{0}")]
    Database(#[from] tokio_postgres::Error),
    #[error("no table {0:?}")]
    NoTable(String),
    #[error("give 1 to 100 tables")]
    TableCount,
}

/// A code or link sent by mail or text.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Sent {
    /// `email` or `sms`.
    pub channel: String,
    pub to: String,
    /// What it was for: signup, magiclink, recovery, invite, email_change, sms, phone_change, …
    pub kind: String,
    pub code: Option<String>,
    pub link: Option<String>,
    pub sent_at: String,
    /// Its one-time token is still unused.
    pub pending: bool,
}

/// The first code of 6 to 10 digits standing alone in a message.
pub fn code_in(text: &str) -> Option<String> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .find(|w| (6..=10).contains(&w.len()) && w.bytes().all(|b| b.is_ascii_digit()))
        .map(str::to_string)
}

/// The link a message asks to follow: the first one to the auth API's `/verify`, else the
/// first `http(s)` link.
pub fn link_in(text: &str) -> Option<String> {
    let links: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '<' | '>' | '(' | ')'))
        .filter(|w| w.starts_with("http://") || w.starts_with("https://"))
        .collect();
    links
        .iter()
        .find(|l| l.contains("/verify"))
        .or(links.first())
        .map(|l| l.replace("&amp;", "&"))
}

/// The `token` parameter of a verification link.
fn link_token(link: &str) -> Option<String> {
    let query = link.split_once('?')?.1;
    query
        .split('&')
        .find_map(|p| p.strip_prefix("token="))
        .map(str::to_string)
}

/// What was sent to `to` (an e-mail address or phone number; everyone's when None), newest
/// first, at most 100.
pub async fn sent(c: &impl GenericClient, to: Option<&str>) -> Result<Vec<Sent>, EmulatorError> {
    let rows = c
        .query(
            "SELECT * FROM (
               SELECT 'email' AS channel, recipient, kind, text || ' ' || html AS body, created_at,
                      token, link
                 FROM supagate.mail WHERE $1::text IS NULL OR lower(recipient) = lower($1)
               UNION ALL
               SELECT 'sms', recipient, kind, body, created_at, NULL, NULL
                 FROM supagate.sms
                WHERE $1::text IS NULL OR ltrim(recipient, '+') = ltrim($1, '+')
             ) m WHERE channel = 'sms' OR token IS NOT NULL OR link IS NOT NULL
             ORDER BY created_at DESC LIMIT 100",
            &[&to],
        )
        .await?;
    // The unused one-time tokens, once: a code is kept hashed (hex(sha224(address || code)),
    // `pkce_` before it for PKCE), a link carries the hash itself.
    let unused: std::collections::HashSet<String> = c
        .query("SELECT token_hash FROM auth.one_time_tokens", &[])
        .await?
        .iter()
        .map(|r| {
            r.get::<_, String>(0)
                .trim_start_matches("pkce_")
                .to_string()
        })
        .collect();
    let mut out = Vec::new();
    for r in rows {
        let (channel, to, kind, body): (String, String, String, String) =
            (r.get(0), r.get(1), r.get(2), r.get(3));
        let at: chrono::DateTime<chrono::Utc> = r.get(4);
        let (token, sent_link): (Option<String>, Option<String>) = (r.get(5), r.get(6));
        let code = token.or_else(|| code_in(&body));
        let link = sent_link.or_else(|| (channel == "email").then(|| link_in(&body)).flatten());
        let address = to.trim_start_matches('+').to_lowercase();
        let mut hashes = Vec::new();
        if let Some(code) = &code {
            for a in [address.clone(), format!("+{address}")] {
                hashes.push(identity::token_hash(&a, code));
            }
        }
        if let Some(t) = link.as_deref().and_then(link_token) {
            hashes.push(t.trim_start_matches("pkce_").to_string());
        }
        let pending = hashes.iter().any(|h| unused.contains(h));
        out.push(Sent {
            channel,
            to,
            kind,
            code,
            link,
            sent_at: at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            pending,
        });
    }
    Ok(out)
}

/// A caught e-mail.
#[derive(Debug, Clone, Serialize)]
pub struct Mail {
    pub to: String,
    pub from: Sender,
    /// Where replies go (empty: to the sender).
    pub reply_to: Vec<String>,
    pub subject: String,
    pub text: String,
    pub kind: String,
    pub sent_at: String,
}

/// A mail's sender.
#[derive(Debug, Clone, Serialize)]
pub struct Sender {
    pub name: String,
    pub address: String,
}

/// The mail caught for `to` (everyone's when None), newest first, at most 100.
pub async fn mail(c: &impl GenericClient, to: Option<&str>) -> Result<Vec<Mail>, EmulatorError> {
    let rows = c
        .query(
            "SELECT recipient, subject, text, kind, created_at, sender_name, sender, reply_to \
             FROM supagate.mail \
             WHERE $1::text IS NULL OR lower(recipient) = lower($1) \
             ORDER BY created_at DESC LIMIT 100",
            &[&to],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|r| Mail {
            to: r.get(0),
            from: Sender {
                name: r.get(5),
                address: r.get(6),
            },
            reply_to: r.get::<_, Option<String>>(7).into_iter().collect(),
            subject: r.get(1),
            text: r.get(2),
            kind: r.get(3),
            sent_at: r
                .get::<_, chrono::DateTime<chrono::Utc>>(4)
                .to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        })
        .collect())
}

/// Deletes every user (with their sessions, identities and factors). Returns how many.
pub async fn delete_users(c: &impl GenericClient) -> Result<u64, EmulatorError> {
    Ok(c.execute("DELETE FROM auth.users", &[]).await?)
}

/// Empties `tables` (`schema.table`, or a table of `public`) at once, identities restarted;
/// `cascade` also empties the tables that reference them.
pub async fn truncate(
    c: &impl GenericClient,
    tables: &[String],
    cascade: bool,
) -> Result<(), EmulatorError> {
    if tables.is_empty() || tables.len() > 100 {
        return Err(EmulatorError::TableCount);
    }
    let mut names = Vec::new();
    for t in tables {
        let (schema, table) = t.split_once('.').unwrap_or(("public", t));
        let found = c
            .query_opt(
                "SELECT format('%I.%I', n.nspname, c.relname) FROM pg_class c \
                 JOIN pg_namespace n ON n.oid = c.relnamespace \
                 WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind IN ('r', 'p')",
                &[&schema, &table],
            )
            .await?
            .ok_or_else(|| EmulatorError::NoTable(t.clone()))?;
        names.push(found.get::<_, String>(0));
    }
    c.batch_execute(&format!(
        "TRUNCATE {} RESTART IDENTITY{}",
        names.join(", "),
        if cascade { " CASCADE" } else { "" }
    ))
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_links_in_messages() {
        // (message, code, link)
        let cases: &[(&str, Option<&str>, Option<&str>)] = &[
            ("Your code is 123456", Some("123456"), None),
            ("Code: 0012345678.", Some("0012345678"), None),
            ("Order 12345 and code 654321", Some("654321"), None),
            (
                "<a href=\"http://127.0.0.1:54321/auth/v1/verify?token=abc&amp;type=signup&amp;redirect_to=http://x\">Confirm</a> or enter 111222",
                Some("111222"),
                Some(
                    "http://127.0.0.1:54321/auth/v1/verify?token=abc&type=signup&redirect_to=http://x",
                ),
            ),
            (
                "See https://example.com/help",
                None,
                Some("https://example.com/help"),
            ),
            ("nothing here", None, None),
        ];
        for (text, code, link) in cases {
            assert_eq!(code_in(text).as_deref(), *code, "{text}");
            assert_eq!(link_in(text).as_deref(), *link, "{text}");
        }
        assert_eq!(
            link_token("http://h/auth/v1/verify?type=signup&token=pkce_abc").as_deref(),
            Some("pkce_abc")
        );
    }
}
