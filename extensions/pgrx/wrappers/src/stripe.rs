//! The Stripe wrapper, working: a scan of a foreign table lists the table's `object` from the
//! server's `api_url` (Stripe's API by default; a local stand-in in tests), `GET
//! <api_url>/<object>?limit=100`, page after page (`starting_after` the last id while
//! `has_more`), with `Authorization: Bearer <key>`, the key from the server's `api_key` or the
//! Vault secret its `api_key_id` names, as upstream reads them. Each object is a row: a column
//! takes the object's field of its name (a timestamp column from Unix seconds, any other type
//! from the field's text through the type's input function), `attrs` the whole object as jsonb.
//! Requests go through `scan::get` (the http extension's reach rule). Inserts, updates and
//! deletes are refused (supagate's wrapper reads only).

use crate::raise;
use crate::scan::{self, Cell, Column, Rows};
use pgrx::prelude::*;
use std::time::Duration;

/// The most pages one scan reads (100 objects each).
const MAX_PAGES: usize = 1000;
/// The largest answer one page may have.
const MAX_BODY: usize = 16 << 20;

/// The API key: `api_key`, or the Vault secret whose id `api_key_id` is.
fn api_key(server: &[(String, String)]) -> String {
    if let Some(key) = scan::option(server, "api_key") {
        return key.to_owned();
    }
    let Some(id) = scan::option(server, "api_key_id") else {
        raise(
            PgSqlErrorCode::ERRCODE_FDW_ERROR,
            "either api_key_id or api_key_name option is required".into(),
        )
    };
    scan::vault_secret(id)
}

/// Lists `object` from `base`, every page.
fn list(base: &str, object: &str, key: &str) -> Vec<serde_json::Value> {
    let mut rows = Vec::new();
    let mut after: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let mut text = format!(
            "{}/{}?limit=100",
            base.trim_end_matches('/'),
            http_core::urlencode(object.as_bytes()).replace("%2F", "/")
        );
        if let Some(id) = &after {
            text.push_str("&starting_after=");
            text.push_str(&http_core::urlencode(id.as_bytes()));
        }
        let answer = scan::get(
            &text,
            vec![("Authorization".into(), format!("Bearer {key}"))],
            MAX_BODY,
            Duration::from_secs(30),
        );
        if !(200..300).contains(&answer.status) {
            raise(
                PgSqlErrorCode::ERRCODE_FDW_ERROR,
                format!(
                    "request failed: HTTP status {}: {}",
                    answer.status,
                    String::from_utf8_lossy(&answer.body[..answer.body.len().min(500)])
                ),
            );
        }
        let page: serde_json::Value = serde_json::from_slice(&answer.body).unwrap_or_else(|e| {
            raise(
                PgSqlErrorCode::ERRCODE_FDW_ERROR,
                format!("invalid json response: {e}"),
            )
        });
        let data = match page.get("data") {
            Some(serde_json::Value::Array(data)) => data.clone(),
            // One object (a path such as `balance`): one row.
            _ if page.is_object() => vec![page.clone()],
            _ => Vec::new(),
        };
        let last = data
            .last()
            .and_then(|o| o.get("id"))
            .and_then(|i| i.as_str())
            .map(str::to_owned);
        rows.extend(data);
        let more = page
            .get("has_more")
            .and_then(|m| m.as_bool())
            .unwrap_or(false);
        match (more, last) {
            (true, Some(id)) => after = Some(id),
            _ => return rows,
        }
    }
    rows
}

/// The objects of a listing, one row each.
struct Objects {
    rows: Vec<serde_json::Value>,
    next: usize,
}

impl Rows for Objects {
    fn next(&mut self, columns: &[Column]) -> Option<Vec<Option<Cell>>> {
        let object = self.rows.get(self.next)?;
        self.next += 1;
        let cells = columns
            .iter()
            .map(|column| {
                if column.name == "attrs" {
                    return Some(Cell::Text(object.to_string()));
                }
                let value = object.get(&column.name).filter(|v| !v.is_null())?;
                // A timestamp column reads Unix seconds, any other their text.
                Some(match value {
                    serde_json::Value::Number(n) if n.is_i64() => {
                        Cell::UnixSeconds(n.as_i64().unwrap_or_default())
                    }
                    serde_json::Value::String(s) => Cell::Text(s.clone()),
                    other => Cell::Text(other.to_string()),
                })
            })
            .collect();
        Some(cells)
    }

    fn rewind(&mut self) {
        self.next = 0;
    }
}

/// Opens a scan of a Stripe foreign table: the whole listing of its `object`.
pub fn open(
    table: &[(String, String)],
    server: &[(String, String)],
    _columns: &[Column],
) -> Box<dyn Rows> {
    let object = scan::require(table, "object");
    let base = scan::option(server, "api_url").unwrap_or("https://api.stripe.com/v1/");
    let key = api_key(server);
    Box::new(Objects {
        rows: list(base, object, &key),
        next: 0,
    })
}
