//! Studio's Logs: the inspector's history of requests (listed with filters, one request's whole
//! event) and the last lines of the embedded PostgreSQL's log.

use super::Shared;
use crate::inspector::history::Filter;
use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;
use serde_json::json;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// Lines of PostgreSQL's log returned unless asked, and at most.
const PG_LINES: usize = 200;
const MAX_PG_LINES: usize = 2000;
/// Bytes read from the end of PostgreSQL's log at most.
const PG_TAIL_BYTES: u64 = 512 * 1024;
/// A log line kept at most (bytes).
const MAX_LINE: usize = 4096;

fn invalid(message: impl Into<String>) -> HttpResponse {
    HttpResponse::BadRequest().json(json!({"message": message.into(), "code": "invalid"}))
}

/// The requests kept, newest first, with the filters of the query string.
async fn requests(s: web::Data<Shared>, req: HttpRequest) -> HttpResponse {
    let filter = match Filter::parse(&crate::http_util::query_pairs(req.query_string())) {
        Ok(f) => f,
        Err(e) => return invalid(e.to_string()),
    };
    let history = &s.state.inspector.history;
    let kept: serde_json::Map<String, serde_json::Value> = history
        .kept()
        .into_iter()
        .map(|(service, n)| (service.name().to_string(), n.into()))
        .collect();
    HttpResponse::Ok().json(json!({
        "per_service": history.per_service(),
        "kept": kept,
        "requests": history.list(&filter),
    }))
}

/// One request's whole event, by its `seq`.
async fn request(s: web::Data<Shared>, seq: web::Path<String>) -> HttpResponse {
    let Ok(seq) = seq.parse::<u64>() else {
        return invalid(format!("\"{seq}\" is not a request's seq"));
    };
    match s.state.inspector.history.get(seq) {
        Some(detail) => HttpResponse::Ok()
            .content_type("application/json")
            .body(detail.to_string()),
        None => HttpResponse::NotFound().json(json!({
            "message": format!("the request {seq} is not kept (any more)"),
            "code": "not_found",
        })),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PgQuery {
    lines: Option<usize>,
}

/// The last lines of the embedded PostgreSQL's log (none with an external database).
async fn postgres(s: web::Data<Shared>, q: web::Query<PgQuery>) -> HttpResponse {
    let n = q.lines.unwrap_or(PG_LINES);
    if !(1..=MAX_PG_LINES).contains(&n) {
        return invalid(format!("lines is a number from 1 to {MAX_PG_LINES}"));
    }
    let cfg = &s.state.config;
    if !cfg.embedded() {
        return HttpResponse::Ok().json(json!({
            "available": false,
            "reason": "the database is not supagate's own (--db-url): its log is its server's",
            "lines": [],
        }));
    }
    let file = pg::embedded::server_log(&cfg.data_dir);
    let read = web::block(move || tail(&file, PG_TAIL_BYTES)).await;
    match read {
        Ok(Ok(bytes)) => HttpResponse::Ok().json(json!({
            "available": true,
            "lines": last_lines(&bytes.0, bytes.1, n),
        })),
        Ok(Err(e)) if e.kind() == std::io::ErrorKind::NotFound => HttpResponse::Ok().json(json!({
            "available": false,
            "reason": "PostgreSQL has written no log yet",
            "lines": [],
        })),
        Ok(Err(e)) => HttpResponse::ServiceUnavailable().json(json!({
            "message": format!("PostgreSQL's log cannot be read: {e}"),
            "code": "unavailable",
        })),
        Err(e) => HttpResponse::ServiceUnavailable()
            .json(json!({"message": e.to_string(), "code": "unavailable"})),
    }
}

/// The last `max` bytes of a file, and whether they start inside it (past its first byte).
fn tail(path: &Path, max: u64) -> std::io::Result<(Vec<u8>, bool)> {
    let mut f = std::fs::File::open(path)?;
    let len = f.metadata()?.len();
    let start = len.saturating_sub(max);
    f.seek(SeekFrom::Start(start))?;
    let mut out = Vec::with_capacity((len - start) as usize);
    f.take(max).read_to_end(&mut out)?;
    Ok((out, start > 0))
}

/// The last `n` lines of a file's end (`cut`: its first line may be a part of one, left out),
/// each at most [`MAX_LINE`] bytes.
fn last_lines(bytes: &[u8], cut: bool, n: usize) -> Vec<String> {
    let text = String::from_utf8_lossy(bytes);
    let mut lines: Vec<&str> = text.lines().collect();
    if cut && !lines.is_empty() {
        lines.remove(0);
    }
    let from = lines.len().saturating_sub(n);
    lines[from..]
        .iter()
        .map(|l| {
            if l.len() <= MAX_LINE {
                return l.to_string();
            }
            let mut end = MAX_LINE;
            while !l.is_char_boundary(end) {
                end -= 1;
            }
            format!("{}…", &l[..end])
        })
        .collect()
}

pub fn routes(c: &mut web::ServiceConfig) {
    c.route("/logs/requests", web::get().to(requests))
        .route("/logs/requests/{seq}", web::get().to(request))
        .route("/logs/postgres", web::get().to(postgres));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_s_last_lines_are_whole_and_bounded() {
        let cases: &[(&str, bool, usize, &[&str])] = &[
            ("a\nb\nc\n", false, 2, &["b", "c"]),
            ("a\nb\nc", false, 10, &["a", "b", "c"]),
            ("rt of a\nb\nc\n", true, 10, &["b", "c"]),
            ("", false, 5, &[]),
            ("partial", true, 5, &[]),
        ];
        for (text, cut, n, want) in cases {
            assert_eq!(last_lines(text.as_bytes(), *cut, *n), *want, "{text:?}");
        }
        let long = "é".repeat(MAX_LINE);
        let got = last_lines(long.as_bytes(), false, 1);
        assert!(got[0].len() <= MAX_LINE + "…".len());
        assert!(got[0].ends_with('…'));
    }

    #[test]
    fn a_file_s_tail_is_its_last_bytes() {
        let dir = std::env::temp_dir().join(format!("supagate-tail-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("server.log");
        std::fs::write(&file, "first line\nsecond line\n").unwrap();
        assert_eq!(
            tail(&file, 1024).unwrap(),
            (b"first line\nsecond line\n".to_vec(), false)
        );
        let (bytes, cut) = tail(&file, 15).unwrap();
        assert!(cut);
        assert_eq!(last_lines(&bytes, cut, 10), ["second line"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
