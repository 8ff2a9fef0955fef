//! The mail apps queue with `supagate.send_mail()` (sql/0008_outbox.sql): sent after their
//! transaction commits, by whichever gateway takes it first.

use super::{MailError, Mailer, Message};
use pg::Login;
use pg::listen::{Event, listen};
use std::sync::Arc;
use std::time::Duration;

/// How often the queue is looked at without a notification (retries, missed notifications).
const SWEEP: Duration = Duration::from_secs(15);
/// Mails taken per transaction.
const BATCH: i64 = 20;

/// Sends queued mail for as long as the process runs.
pub fn spawn(mailer: Arc<Mailer>, admin: Login) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut events = listen(admin, "supagate_outbox");
        loop {
            loop {
                match drain(&mailer).await {
                    Ok(n) if n == BATCH as usize => continue,
                    Ok(_) => break,
                    Err(e) => {
                        tracing::warn!("sending queued mail failed: {e}");
                        break;
                    }
                }
            }
            match tokio::time::timeout(SWEEP, events.recv()).await {
                Ok(Some(Event::Connected | Event::Notification(_))) | Err(_) => {}
                Ok(None) => tokio::time::sleep(SWEEP).await,
            }
        }
    })
}

/// Takes up to [`BATCH`] due mails, sends each, and records the outcome; returns how many it took.
async fn drain(mailer: &Mailer) -> Result<usize, MailError> {
    let mut c = mailer.db.get().await?;
    let tx = c.transaction().await?;
    let rows = tx
        .query(
            "SELECT id, recipient, subject, body, attempts, from_name, from_address, reply_to
             FROM supagate.outbox
             WHERE attempts < 8 AND next_attempt_at <= clock_timestamp()
             ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED",
            &[&BATCH],
        )
        .await?;
    for row in &rows {
        let id: i64 = row.get(0);
        let body: String = row.get(3);
        let m = Message {
            kind: "app",
            to: row.get(1),
            subject: row.get(2),
            html: html_of(&body),
            text: body,
            token: None,
            link: None,
            from: match (
                row.get::<_, Option<String>>(5),
                row.get::<_, Option<String>>(6),
            ) {
                (None, None) => None,
                (name, address) => Some((name.unwrap_or_default(), address.unwrap_or_default())),
            },
            reply_to: row.get(7),
        };
        match mailer.send(&m).await {
            Ok(()) => {
                tx.execute("DELETE FROM supagate.outbox WHERE id = $1", &[&id])
                    .await?;
            }
            Err(e) => {
                let attempts: i32 = row.get(4);
                tracing::warn!(to = %m.to, attempt = attempts + 1, "queued mail not sent: {e}");
                tx.execute(
                    "UPDATE supagate.outbox SET attempts = attempts + 1, last_error = $2,
                       next_attempt_at = clock_timestamp() + make_interval(secs => least(3600, 30 * 2 ^ attempts))
                     WHERE id = $1",
                    &[&id, &e.to_string()],
                )
                .await?;
            }
        }
    }
    tx.commit().await?;
    Ok(rows.len())
}

/// Plain text as HTML: escaped, paragraphs kept.
fn html_of(text: &str) -> String {
    let escaped = crate::escape_html(text);
    format!("<div style=\"font-family:sans-serif;white-space:pre-wrap\">{escaped}</div>")
}

#[cfg(test)]
mod tests {
    #[test]
    fn text_bodies_are_escaped_for_the_html_part() {
        assert_eq!(
            super::html_of("<b>Hi</b> & \"you\" 'all'"),
            "<div style=\"font-family:sans-serif;white-space:pre-wrap\">&lt;b&gt;Hi&lt;/b&gt; &amp; &#34;you&#34; &#39;all&#39;</div>"
        );
    }
}
