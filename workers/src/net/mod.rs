//! pg_net's requests, made by supagate: the worker takes committed requests from
//! `net.http_request_queue` (each taken once, whichever gateway takes it: FOR UPDATE SKIP
//! LOCKED), makes them and records the answers in `net._http_response`, which it keeps for
//! `pg_net.ttl`. `net.http_get()` and its kin notify `supagate_net` (delivered at commit); the
//! queue is also looked at every few seconds, in case a notification was missed.

pub mod reach;
pub mod request;

use futures_util::StreamExt as _;
use pg::Login;
use pg::listen::{Event, listen};
use request::{Answer, Method, Request};
use std::time::{Duration, Instant};
use tokio_postgres::Client;

/// How often the queue is looked at without a notification.
const POLL: Duration = Duration::from_secs(5);
/// How often answers older than `pg_net.ttl` are deleted.
const SWEEP: Duration = Duration::from_secs(60);
/// Requests in flight at once.
const CONCURRENCY: usize = 64;
/// The session's name, by which `net.check_worker_is_up()` finds a worker.
const APPLICATION_NAME: &str = "pg_net worker";

#[derive(Debug, thiserror::Error)]
pub enum NetError {
    #[error("database: {0}")]
    Db(#[from] tokio_postgres::Error),
    #[error("{0}")]
    Connect(pg::ConnectError),
}

/// Makes the served database's pg_net requests for as long as the process runs, where `reach`
/// lets them go.
pub fn spawn(admin: Login, reach: reach::Reach) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let http = reach::client(
            &reach,
            concat!("pg_net/0.19.5 (supagate ", env!("CARGO_PKG_VERSION"), ")"),
        );
        let mut events = listen(admin.clone(), "supagate_net");
        let mut db: Option<Client> = None;
        let mut swept = Instant::now();
        loop {
            if db.as_ref().is_none_or(Client::is_closed) {
                db = match open(&admin).await {
                    Ok(c) => Some(c),
                    Err(e) => {
                        tracing::debug!("pg_net worker: {e}");
                        tokio::time::sleep(Duration::from_secs(1)).await;
                        continue;
                    }
                };
            }
            let Some(c) = db.as_ref() else { continue };
            match round(c, &http, &reach).await {
                Ok(Round::Full) => continue,
                Ok(Round::Done) => {}
                Err(e) => {
                    tracing::warn!("pg_net worker: {e}");
                    db = None;
                }
            }
            if swept.elapsed() >= SWEEP {
                swept = Instant::now();
                if let Some(c) = db.as_ref()
                    && let Err(e) = sweep(c).await
                {
                    tracing::debug!("pg_net worker: deleting old answers failed: {e}");
                }
            }
            match tokio::time::timeout(POLL, events.recv()).await {
                Ok(Some(Event::Connected | Event::Notification(_))) | Err(_) => {}
                Ok(None) => tokio::time::sleep(POLL).await,
            }
        }
    })
}

async fn open(admin: &Login) -> Result<Client, NetError> {
    let c = pg::connect(admin).await.map_err(NetError::Connect)?;
    c.batch_execute(&format!("SET application_name = '{APPLICATION_NAME}'"))
        .await?;
    Ok(c)
}

enum Round {
    /// As many requests as one round takes: there may be more.
    Full,
    Done,
}

/// Takes a batch of queued requests, makes them, records the answers.
async fn round(
    c: &Client,
    http: &reqwest::Client,
    reach: &reach::Reach,
) -> Result<Round, NetError> {
    let row = c
        .query_one(
            "SELECT to_regclass('net.http_request_queue') IS NOT NULL,
                    coalesce(nullif(current_setting('pg_net.batch_size', true), '')::int, 200)",
            &[],
        )
        .await?;
    if !row.get::<_, bool>(0) {
        return Ok(Round::Done);
    }
    let batch: i32 = row.get(1);
    let rows = c
        .query(
            "DELETE FROM net.http_request_queue WHERE id IN (
               SELECT id FROM net.http_request_queue ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED)
             RETURNING id, method::text, url, headers, body, timeout_milliseconds",
            &[&i64::from(batch.max(1))],
        )
        .await?;
    if rows.is_empty() {
        return Ok(Round::Done);
    }
    let taken = rows.len();
    let answers: Vec<(i64, Answer)> = futures_util::stream::iter(rows)
        .map(|r| {
            let id: i64 = r.get(0);
            let headers: Option<serde_json::Value> = r.get(3);
            let request = Request::from_row(
                id,
                r.get::<_, &str>(1),
                r.get(2),
                headers.as_ref(),
                r.get(4),
                r.get(5),
            );
            async move {
                let answer = match request {
                    Ok(req) => perform(http, reach, req).await,
                    Err(e) => Answer::failed(e.to_string()),
                };
                (id, answer)
            }
        })
        .buffer_unordered(CONCURRENCY)
        .collect()
        .await;
    record(c, &answers).await?;
    Ok(if taken >= batch.max(1) as usize {
        Round::Full
    } else {
        Round::Done
    })
}

async fn perform(http: &reqwest::Client, reach: &reach::Reach, req: Request) -> Answer {
    match reqwest::Url::parse(&req.url) {
        Ok(url) if !reach::allows(reach, &url) => return Answer::failed(reach::REFUSED),
        Ok(_) => {}
        Err(_) => return Answer::failed("URL using bad/illegal format or missing URL"),
    }
    let method = match req.method {
        Method::Get => reqwest::Method::GET,
        Method::Post => reqwest::Method::POST,
        Method::Delete => reqwest::Method::DELETE,
    };
    let mut builder = http.request(method, &req.url).timeout(req.timeout);
    for (k, v) in &req.headers {
        builder = builder.header(k, v);
    }
    if let Some(body) = req.body {
        builder = builder.body(body);
    }
    let response = match builder.send().await {
        Ok(r) => r,
        Err(e) => return error_answer(&e, req.timeout),
    };
    let status = response.status().as_u16();
    let headers: Vec<(String, String)> = response
        .headers()
        .iter()
        .map(|(k, v)| {
            (
                k.to_string(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect();
    let mut body = Vec::new();
    let mut response = response;
    loop {
        match response.chunk().await {
            Ok(Some(b)) if body.len() + b.len() <= request::MAX_BODY => body.extend_from_slice(&b),
            Ok(Some(_)) => {
                return Answer::failed(format!(
                    "the response body is larger than {} bytes",
                    request::MAX_BODY
                ));
            }
            Ok(None) => break,
            Err(e) => return error_answer(&e, req.timeout),
        }
    }
    Answer::response(status, &headers, &body)
}

fn error_answer(e: &reqwest::Error, timeout: Duration) -> Answer {
    if e.is_timeout() {
        return Answer::timed_out(timeout);
    }
    if e.is_builder() {
        return Answer::failed("URL using bad/illegal format or missing URL");
    }
    if reach::refused(e) {
        return Answer::failed(reach::REFUSED);
    }
    let text = format!("{e:?}").to_ascii_lowercase();
    Answer::failed(request::failure(
        e.is_connect(),
        text.contains("dns") || text.contains("resolve"),
        e.is_redirect(),
    ))
}

async fn record(c: &Client, answers: &[(i64, Answer)]) -> Result<(), NetError> {
    let ids: Vec<i64> = answers.iter().map(|(id, _)| *id).collect();
    let status: Vec<Option<i32>> = answers.iter().map(|(_, a)| a.status_code).collect();
    let content: Vec<Option<&str>> = answers.iter().map(|(_, a)| a.content.as_deref()).collect();
    let headers: Vec<Option<&serde_json::Value>> =
        answers.iter().map(|(_, a)| a.headers.as_ref()).collect();
    let content_type: Vec<Option<&str>> = answers
        .iter()
        .map(|(_, a)| a.content_type.as_deref())
        .collect();
    let timed_out: Vec<bool> = answers.iter().map(|(_, a)| a.timed_out).collect();
    let error: Vec<Option<&str>> = answers
        .iter()
        .map(|(_, a)| a.error_msg.as_deref())
        .collect();
    c.execute(
        "INSERT INTO net._http_response
           (id, status_code, content, headers, content_type, timed_out, error_msg)
         SELECT * FROM unnest($1::bigint[], $2::int[], $3::text[], $4::jsonb[], $5::text[],
                              $6::bool[], $7::text[])",
        &[
            &ids,
            &status,
            &content,
            &headers,
            &content_type,
            &timed_out,
            &error,
        ],
    )
    .await?;
    Ok(())
}

/// Deletes answers older than `pg_net.ttl` (6 hours unless set).
async fn sweep(c: &Client) -> Result<(), NetError> {
    c.execute(
        "DELETE FROM net._http_response
         WHERE to_regclass('net._http_response') IS NOT NULL
           AND created < now() - coalesce(nullif(current_setting('pg_net.ttl', true), ''), '6 hours')::interval",
        &[],
    )
    .await?;
    Ok(())
}
