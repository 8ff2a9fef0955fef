//! The built-in mail catcher on the mail port (54324, as the Supabase CLI's Mailpit): a page
//! listing caught mail and showing each, and Mailpit's JSON API — list, read one (or
//! `latest`), search (`to:`, `from:`, `subject:`, words), delete — plus Inbucket's mailbox API
//! for tools written for older CLIs.

use actix_web::{HttpRequest, HttpResponse, web};
use deadpool_postgres::Pool;
use serde_json::{Value, json};
use uuid::Uuid;

type Reply = Result<HttpResponse, actix_web::Error>;

fn fail(e: impl std::fmt::Display) -> actix_web::Error {
    actix_web::error::ErrorServiceUnavailable(e.to_string())
}

/// A caught mail.
struct Mail {
    id: Uuid,
    message_id: String,
    sender_name: String,
    sender: String,
    to: String,
    subject: String,
    html: String,
    text: String,
    read: bool,
    created: chrono::DateTime<chrono::Utc>,
}

const COLUMNS: &str =
    "id, message_id, sender_name, sender, recipient, subject, html, text, read, created_at";

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

async fn select(
    pool: &Pool,
    clause: &str,
    params: &[String],
    start: i64,
    limit: i64,
) -> Result<(Vec<Mail>, i64, i64), actix_web::Error> {
    let c = pool.get().await.map_err(fail)?;
    let p: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = params
        .iter()
        .map(|p| p as &(dyn tokio_postgres::types::ToSql + Sync))
        .collect();
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
        .await
        .map_err(fail)?;
    let counts = c
        .query_one(
            &format!(
                "SELECT count(*), count(*) FILTER (WHERE NOT read) FROM supagate.mail WHERE {clause}"
            ),
            &p,
        )
        .await
        .map_err(fail)?;
    Ok((
        rows.iter().map(mail).collect(),
        counts.get(0),
        counts.get(1),
    ))
}

fn address(name: &str, address: &str) -> Value {
    json!({"Name": name, "Address": address})
}

fn summary(m: &Mail) -> Value {
    let snippet: String = m.text.split_whitespace().collect::<Vec<_>>().join(" ");
    json!({
        "ID": m.id, "MessageID": m.message_id, "Read": m.read,
        "From": address(&m.sender_name, &m.sender), "To": [address("", &m.to)],
        "Cc": [], "Bcc": [], "ReplyTo": [], "Subject": m.subject,
        "Created": m.created.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        "Tags": [], "Size": m.html.len() + m.text.len(), "Attachments": 0,
        "Snippet": snippet.chars().take(250).collect::<String>(),
    })
}

#[derive(serde::Deserialize)]
struct Page {
    start: Option<i64>,
    limit: Option<i64>,
    query: Option<String>,
}

async fn list(pool: web::Data<Pool>, q: web::Query<Page>) -> Reply {
    let (clause, params) = search(q.query.as_deref().unwrap_or(""));
    let start = q.start.unwrap_or(0).max(0);
    let limit = q.limit.unwrap_or(50).clamp(1, 1000);
    let (mails, total, unread) = select(&pool, &clause, &params, start, limit).await?;
    Ok(HttpResponse::Ok().json(json!({
        "total": total, "unread": unread, "count": mails.len(), "messages_count": total,
        "messages_unread": unread, "start": start, "tags": [],
        "messages": mails.iter().map(summary).collect::<Vec<_>>(),
    })))
}

/// One mail by id (or `latest`), marked read.
async fn one(pool: &Pool, id: &str) -> Result<Option<Mail>, actix_web::Error> {
    let c = pool.get().await.map_err(fail)?;
    let row = if id == "latest" {
        c.query_opt(
            &format!("UPDATE supagate.mail SET read = true WHERE id = (SELECT id FROM supagate.mail ORDER BY created_at DESC LIMIT 1) RETURNING {COLUMNS}"),
            &[],
        )
        .await
    } else {
        let Ok(id) = Uuid::parse_str(id) else {
            return Ok(None);
        };
        c.query_opt(
            &format!("UPDATE supagate.mail SET read = true WHERE id = $1 RETURNING {COLUMNS}"),
            &[&id],
        )
        .await
    }
    .map_err(fail)?;
    Ok(row.as_ref().map(mail))
}

async fn message(pool: web::Data<Pool>, id: web::Path<String>) -> Reply {
    let Some(m) = one(&pool, &id).await? else {
        return Ok(HttpResponse::NotFound().body("message not found"));
    };
    let mut v = summary(&m);
    v["Date"] = v["Created"].clone();
    v["ReturnPath"] = json!(m.sender);
    v["Text"] = json!(m.text);
    v["HTML"] = json!(m.html);
    v["Inline"] = json!([]);
    v["Attachments"] = json!([]);
    Ok(HttpResponse::Ok().json(v))
}

async fn delete(pool: web::Data<Pool>, req: HttpRequest, body: web::Bytes) -> Reply {
    let ids: Vec<Uuid> = serde_json::from_slice::<Value>(&body)
        .ok()
        .and_then(|v| v.get("IDs").cloned())
        .and_then(|v| serde_json::from_value(v).ok())
        .unwrap_or_default();
    let c = pool.get().await.map_err(fail)?;
    let query = web::Query::<Page>::from_query(req.query_string())
        .ok()
        .and_then(|q| q.query.clone());
    match (ids.is_empty(), query) {
        (false, _) => {
            c.execute("DELETE FROM supagate.mail WHERE id = ANY($1)", &[&ids])
                .await
        }
        (true, Some(q)) => {
            let (clause, params) = search(&q);
            let p: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = params
                .iter()
                .map(|p| p as &(dyn tokio_postgres::types::ToSql + Sync))
                .collect();
            c.execute(&format!("DELETE FROM supagate.mail WHERE {clause}"), &p)
                .await
        }
        (true, None) => c.execute("DELETE FROM supagate.mail", &[]).await,
    }
    .map_err(fail)?;
    Ok(HttpResponse::Ok().content_type("text/plain").body("ok"))
}

/// Inbucket: the mails of one mailbox (the local part of the address).
async fn mailbox(pool: web::Data<Pool>, name: web::Path<String>) -> Reply {
    let c = pool.get().await.map_err(fail)?;
    let rows = c
        .query(
            &format!("SELECT {COLUMNS} FROM supagate.mail WHERE lower(split_part(recipient, '@', 1)) = lower($1) ORDER BY created_at"),
            &[&name.as_str()],
        )
        .await
        .map_err(fail)?;
    let list: Vec<Value> = rows
        .iter()
        .map(mail)
        .map(|m| {
            json!({"mailbox": name.as_str(), "id": m.id, "from": format!("{} <{}>", m.sender_name, m.sender),
                   "to": [format!("<{}>", m.to)], "subject": m.subject, "date": m.created.to_rfc3339(),
                   "posix-millis": m.created.timestamp_millis(), "size": m.html.len(), "seen": m.read})
        })
        .collect();
    Ok(HttpResponse::Ok().json(list))
}

async fn mailbox_message(pool: web::Data<Pool>, path: web::Path<(String, String)>) -> Reply {
    let (name, id) = path.into_inner();
    let Some(m) = one(&pool, &id).await? else {
        return Ok(HttpResponse::NotFound().body("message not found"));
    };
    Ok(HttpResponse::Ok().json(json!({
        "mailbox": name, "id": m.id, "from": format!("{} <{}>", m.sender_name, m.sender),
        "to": [format!("<{}>", m.to)], "subject": m.subject, "date": m.created.to_rfc3339(),
        "posix-millis": m.created.timestamp_millis(), "size": m.html.len(), "seen": true,
        "header": {"Subject": [m.subject], "To": [m.to]},
        "body": {"text": m.text, "html": m.html}, "attachments": [],
    })))
}

async fn purge_mailbox(pool: web::Data<Pool>, name: web::Path<String>) -> Reply {
    let c = pool.get().await.map_err(fail)?;
    c.execute(
        "DELETE FROM supagate.mail WHERE lower(split_part(recipient, '@', 1)) = lower($1)",
        &[&name.as_str()],
    )
    .await
    .map_err(fail)?;
    Ok(HttpResponse::Ok().body("OK"))
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn page(title: &str, body: &str) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .insert_header((
            "Content-Security-Policy",
            "default-src 'none'; style-src 'unsafe-inline'; img-src * data:; frame-src 'self'",
        ))
        .body(format!(
            "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{} · supagate mail</title>\
             <style>body{{font:15px system-ui,sans-serif;margin:2rem;color:#222}}table{{border-collapse:collapse;width:100%}}\
             td,th{{padding:.4rem .6rem;border-bottom:1px solid #ddd;text-align:left}}tr.unread td{{font-weight:600}}\
             a{{color:#8a1c4a}}iframe{{width:100%;height:60vh;border:1px solid #ccc}}pre{{white-space:pre-wrap}}</style>\
             </head><body>{body}</body></html>",
            escape(title)
        ))
}

async fn index(pool: web::Data<Pool>, q: web::Query<Page>) -> Reply {
    let (clause, params) = search(q.query.as_deref().unwrap_or(""));
    let (mails, total, _) = select(&pool, &clause, &params, 0, 200).await?;
    let rows: String = mails
        .iter()
        .map(|m| {
            format!(
                "<tr class=\"{}\"><td>{}</td><td><a href=\"/view/{}\">{}</a></td><td>{}</td></tr>",
                if m.read { "" } else { "unread" },
                escape(&m.to),
                m.id,
                escape(&m.subject),
                m.created.format("%Y-%m-%d %H:%M:%S UTC")
            )
        })
        .collect();
    Ok(page(
        "Inbox",
        &format!(
            "<h1>Caught mail</h1><p>{total} message(s) sent by the auth API. \
             <form method=\"get\"><input name=\"query\" placeholder=\"to:ann@example.com\" value=\"{}\"> \
             <button>Search</button></form></p>\
             <table><thead><tr><th>To</th><th>Subject</th><th>Received</th></tr></thead><tbody>{rows}</tbody></table>",
            escape(q.query.as_deref().unwrap_or(""))
        ),
    ))
}

async fn view(pool: web::Data<Pool>, id: web::Path<String>) -> Reply {
    let Some(m) = one(&pool, &id).await? else {
        return Ok(HttpResponse::NotFound().body("message not found"));
    };
    Ok(page(
        &m.subject,
        &format!(
            "<p><a href=\"/\">← All mail</a></p><h1>{}</h1><p>From {} &lt;{}&gt; to {} · {}</p>\
             <h2>HTML</h2><iframe sandbox srcdoc=\"{}\" title=\"HTML body\"></iframe><h2>Text</h2><pre>{}</pre>",
            escape(&m.subject),
            escape(&m.sender_name),
            escape(&m.sender),
            escape(&m.to),
            m.created.format("%Y-%m-%d %H:%M:%S UTC"),
            escape(&m.html),
            escape(&m.text)
        ),
    ))
}

/// Serves the catcher on `host:port`; returns the server and the port it got.
pub fn bind(pool: Pool, host: &str, port: u16) -> std::io::Result<(actix_web::dev::Server, u16)> {
    let data = web::Data::new(pool);
    let server = actix_web::HttpServer::new(move || {
        actix_web::App::new()
            .app_data(data.clone())
            .wrap(actix_cors::Cors::permissive())
            .route("/", web::get().to(index))
            .route("/view/{id}", web::get().to(view))
            .route("/livez", web::get().to(|| async { "ok" }))
            .route("/readyz", web::get().to(|| async { "ok" }))
            .route("/api/v1/messages", web::get().to(list))
            .route("/api/v1/messages", web::delete().to(delete))
            .route("/api/v1/search", web::get().to(list))
            .route("/api/v1/search", web::delete().to(delete))
            .route("/api/v1/message/{id}", web::get().to(message))
            .route("/api/v1/mailbox/{name}", web::get().to(mailbox))
            .route("/api/v1/mailbox/{name}", web::delete().to(purge_mailbox))
            .route(
                "/api/v1/mailbox/{name}/{id}",
                web::get().to(mailbox_message),
            )
    })
    .workers(1)
    .disable_signals()
    .bind((host, port))?;
    let port = server.addrs().first().map(|a| a.port()).unwrap_or(port);
    Ok((server.run(), port))
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
