//! The built-in mail catcher on the mail port (54324, as the Supabase CLI's Mailpit): a page
//! listing caught mail and showing each, and Mailpit's JSON API — list, read one (or
//! `latest`), search (`to:`, `from:`, `subject:`, words), delete — plus Inbucket's mailbox API
//! for tools written for older CLIs; and the caught text messages (`/api/v1/sms?phone=`, newest
//! first, and DELETE), listed on the page too.

use actix_web::{HttpRequest, HttpResponse, web};
use mail::catcher::{Catcher, Mail, Text};
use serde_json::{Value, json};
use uuid::Uuid;

type Reply = Result<HttpResponse, actix_web::Error>;

fn fail(e: impl std::fmt::Display) -> actix_web::Error {
    actix_web::error::ErrorServiceUnavailable(e.to_string())
}

fn address(name: &str, address: &str) -> Value {
    json!({"Name": name, "Address": address})
}

/// A mail as Mailpit lists it (Studio shows the same).
pub(crate) fn summary(m: &Mail) -> Value {
    let snippet: String = m.text.split_whitespace().collect::<Vec<_>>().join(" ");
    json!({
        "ID": m.id, "MessageID": m.message_id, "Read": m.read,
        "From": address(&m.sender_name, &m.sender), "To": [address("", &m.to)],
        "Cc": [], "Bcc": [],
        "ReplyTo": m.reply_to.iter().map(|r| address("", r)).collect::<Vec<_>>(), "Subject": m.subject,
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

async fn list(catcher: web::Data<Catcher>, q: web::Query<Page>) -> Reply {
    let start = q.start.unwrap_or(0).max(0);
    let limit = q.limit.unwrap_or(50).clamp(1, 1000);
    let found = catcher
        .find(q.query.as_deref().unwrap_or(""), start, limit)
        .await
        .map_err(fail)?;
    let (mails, total, unread) = (found.mails, found.total, found.unread);
    Ok(HttpResponse::Ok().json(json!({
        "total": total, "unread": unread, "count": mails.len(), "messages_count": total,
        "messages_unread": unread, "start": start, "tags": [],
        "messages": mails.iter().map(summary).collect::<Vec<_>>(),
    })))
}

#[derive(serde::Deserialize)]
struct TextQuery {
    phone: Option<String>,
    limit: Option<i64>,
}

/// A caught text message (the catcher's API and Studio).
pub(crate) fn text_json(t: &Text) -> Value {
    json!({
        "id": t.id, "to": t.to, "body": t.body, "kind": t.kind, "channel": t.channel,
        "created": t.created.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
    })
}

async fn texts(catcher: web::Data<Catcher>, q: web::Query<TextQuery>) -> Reply {
    let limit = q.limit.unwrap_or(50).clamp(1, 1000);
    let found = catcher
        .texts(q.phone.as_deref(), limit)
        .await
        .map_err(fail)?;
    Ok(HttpResponse::Ok().json(found.iter().map(text_json).collect::<Vec<_>>()))
}

async fn delete_texts(catcher: web::Data<Catcher>, q: web::Query<TextQuery>) -> Reply {
    catcher
        .delete_texts(q.phone.as_deref())
        .await
        .map_err(fail)?;
    Ok(HttpResponse::Ok().body("ok"))
}

async fn message(catcher: web::Data<Catcher>, id: web::Path<String>) -> Reply {
    let Some(m) = catcher.open(&id).await.map_err(fail)? else {
        return Ok(HttpResponse::NotFound().body("message not found"));
    };
    Ok(HttpResponse::Ok().json(whole(&m)))
}

/// A mail as Mailpit shows one: its summary with the bodies.
pub(crate) fn whole(m: &Mail) -> Value {
    let mut v = summary(m);
    v["Date"] = v["Created"].clone();
    v["ReturnPath"] = json!(m.sender);
    v["Text"] = json!(m.text);
    v["HTML"] = json!(m.html);
    v["Inline"] = json!([]);
    v["Attachments"] = json!([]);
    v
}

async fn delete(catcher: web::Data<Catcher>, req: HttpRequest, body: web::Bytes) -> Reply {
    let ids: Vec<Uuid> = serde_json::from_slice::<Value>(&body)
        .ok()
        .and_then(|v| v.get("IDs").cloned())
        .and_then(|v| serde_json::from_value(v).ok())
        .unwrap_or_default();
    let query = web::Query::<Page>::from_query(req.query_string())
        .ok()
        .and_then(|q| q.query.clone());
    catcher.delete(&ids, query.as_deref()).await.map_err(fail)?;
    Ok(HttpResponse::Ok().content_type("text/plain").body("ok"))
}

/// Inbucket: the mails of one mailbox (the local part of the address).
async fn mailbox(catcher: web::Data<Catcher>, name: web::Path<String>) -> Reply {
    let list: Vec<Value> = catcher
        .mailbox(&name)
        .await
        .map_err(fail)?
        .into_iter()
        .map(|m| {
            json!({"mailbox": name.as_str(), "id": m.id, "from": format!("{} <{}>", m.sender_name, m.sender),
                   "to": [format!("<{}>", m.to)], "subject": m.subject, "date": m.created.to_rfc3339(),
                   "posix-millis": m.created.timestamp_millis(), "size": m.html.len(), "seen": m.read})
        })
        .collect();
    Ok(HttpResponse::Ok().json(list))
}

async fn mailbox_message(catcher: web::Data<Catcher>, path: web::Path<(String, String)>) -> Reply {
    let (name, id) = path.into_inner();
    let Some(m) = catcher.open(&id).await.map_err(fail)? else {
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

async fn purge_mailbox(catcher: web::Data<Catcher>, name: web::Path<String>) -> Reply {
    catcher.purge_mailbox(&name).await.map_err(fail)?;
    Ok(HttpResponse::Ok().body("OK"))
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
            mail::escape_html(title)
        ))
}

async fn index(catcher: web::Data<Catcher>, q: web::Query<Page>) -> Reply {
    let found = catcher
        .find(q.query.as_deref().unwrap_or(""), 0, 200)
        .await
        .map_err(fail)?;
    let (mails, total) = (found.mails, found.total);
    let texts: String = catcher
        .texts(None, 50)
        .await
        .map_err(fail)?
        .iter()
        .map(|t| {
            format!(
                "<tr><td>+{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                mail::escape_html(&t.to),
                if t.channel == "whatsapp" {
                    "WhatsApp"
                } else {
                    "SMS"
                },
                mail::escape_html(&t.body),
                t.created.format("%Y-%m-%d %H:%M:%S UTC")
            )
        })
        .collect();
    let rows: String = mails
        .iter()
        .map(|m| {
            format!(
                "<tr class=\"{}\"><td>{}</td><td><a href=\"/view/{}\">{}</a></td><td>{}</td></tr>",
                if m.read { "" } else { "unread" },
                mail::escape_html(&m.to),
                m.id,
                mail::escape_html(&m.subject),
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
             <table><thead><tr><th>To</th><th>Subject</th><th>Received</th></tr></thead><tbody>{rows}</tbody></table>\
             <h2>Text messages</h2><p>The newest 50 codes the auth API sent by text or WhatsApp (JSON: \
             <a href=\"/api/v1/sms\">/api/v1/sms?phone=</a>).</p>\
             <table><thead><tr><th>To</th><th>By</th><th>Message</th><th>Sent</th></tr></thead><tbody>{texts}</tbody></table>",
            mail::escape_html(q.query.as_deref().unwrap_or(""))
        ),
    ))
}

async fn view(catcher: web::Data<Catcher>, id: web::Path<String>) -> Reply {
    let Some(m) = catcher.open(&id).await.map_err(fail)? else {
        return Ok(HttpResponse::NotFound().body("message not found"));
    };
    Ok(page(
        &m.subject,
        &format!(
            "<p><a href=\"/\">← All mail</a></p><h1>{}</h1><p>From {} &lt;{}&gt; to {} · {}</p>\
             <h2>HTML</h2><iframe sandbox srcdoc=\"{}\" title=\"HTML body\"></iframe><h2>Text</h2><pre>{}</pre>",
            mail::escape_html(&m.subject),
            mail::escape_html(&m.sender_name),
            mail::escape_html(&m.sender),
            mail::escape_html(&m.to),
            m.created.format("%Y-%m-%d %H:%M:%S UTC"),
            mail::escape_html(&m.html),
            mail::escape_html(&m.text)
        ),
    ))
}

/// The address the catcher was asked to listen on: the one name besides loopback's that a
/// request's Host may give.
struct AllowedHost(String);

/// DNS rebinding: a page on evil.example whose name now resolves to 127.0.0.1 is same-origin
/// with itself, not with the catcher; its requests carry `Host: evil.example` and are refused.
async fn check_host(
    req: actix_web::dev::ServiceRequest,
    next: actix_web::middleware::Next<impl actix_web::body::MessageBody + 'static>,
) -> Result<
    actix_web::dev::ServiceResponse<actix_web::body::EitherBody<impl actix_web::body::MessageBody>>,
    actix_web::Error,
> {
    let configured = req
        .app_data::<web::Data<AllowedHost>>()
        .map(|a| a.0.clone())
        .unwrap_or_default();
    let host = req
        .headers()
        .get(actix_web::http::header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or_default();
    if crate::http_util::host_allowed(host, &configured) {
        return Ok(next.call(req).await?.map_into_left_body());
    }
    let refused = HttpResponse::Forbidden()
        .content_type("text/plain; charset=utf-8")
        .body("this Host is not the mail catcher's: use http://127.0.0.1 or http://localhost\n");
    Ok(req.into_response(refused).map_into_right_body())
}

/// Serves the catcher on `listener` (bound by the caller); `host` is the address it was bound to,
/// the one Host besides loopback names that its requests may carry.
pub fn serve(
    catcher: Catcher,
    host: &str,
    listener: std::net::TcpListener,
) -> std::io::Result<actix_web::dev::Server> {
    let data = web::Data::new(catcher);
    let allowed = web::Data::new(AllowedHost(host.to_string()));
    let server = actix_web::HttpServer::new(move || {
        // No CORS: another site open in the developer's browser cannot read sign-in links.
        actix_web::App::new()
            .app_data(data.clone())
            .app_data(allowed.clone())
            .wrap(actix_web::middleware::from_fn(check_host))
            .route("/", web::get().to(index))
            .route("/view/{id}", web::get().to(view))
            .route("/livez", web::get().to(|| async { "ok" }))
            .route("/readyz", web::get().to(|| async { "ok" }))
            .route("/api/v1/messages", web::get().to(list))
            .route("/api/v1/messages", web::delete().to(delete))
            .route("/api/v1/search", web::get().to(list))
            .route("/api/v1/search", web::delete().to(delete))
            .route("/api/v1/message/{id}", web::get().to(message))
            .route("/api/v1/sms", web::get().to(texts))
            .route("/api/v1/sms", web::delete().to(delete_texts))
            .route("/api/v1/mailbox/{name}", web::get().to(mailbox))
            .route("/api/v1/mailbox/{name}", web::delete().to(purge_mailbox))
            .route(
                "/api/v1/mailbox/{name}/{id}",
                web::get().to(mailbox_message),
            )
    })
    .workers(1)
    .disable_signals()
    .listen(listener)?;
    Ok(server.run())
}

#[cfg(test)]
mod tests {
    use crate::http_util::host_allowed;

    #[test]
    fn only_loopback_names_and_the_configured_address_pass() {
        let cases = [
            ("127.0.0.1:54324", "127.0.0.1", true),
            ("localhost:54324", "127.0.0.1", true),
            ("LOCALHOST", "127.0.0.1", true),
            ("app.localhost:54324", "127.0.0.1", true),
            ("[::1]:54324", "127.0.0.1", true),
            ("127.0.0.2", "127.0.0.1", true),
            ("evil.example:54324", "127.0.0.1", false),
            ("evil.example", "127.0.0.1", false),
            ("localhost.evil.example", "127.0.0.1", false),
            ("", "127.0.0.1", false),
            ("10.0.0.5:54324", "10.0.0.5", true),
            ("10.0.0.6:54324", "10.0.0.5", true),
            ("mail.lan:54324", "mail.lan", true),
            ("other.lan:54324", "mail.lan", false),
        ];
        for (host, configured, ok) in cases {
            assert_eq!(
                host_allowed(host, configured),
                ok,
                "{host} with {configured}"
            );
        }
    }
}
