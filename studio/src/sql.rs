//! The SQL editor: what it asks (SQL, optionally as a role and a user, optionally rolled back)
//! and what it gets (each statement's columns and rows as text, bounded), and where an error is.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Longest SQL text the editor sends.
pub const MAX_QUERY_BYTES: usize = 1 << 20;
/// Rows kept of one result (the rest are counted).
pub const MAX_ROWS: usize = 1000;
/// Result sets kept (the last ones).
pub const MAX_RESULTS: usize = 20;
/// Longest a statement runs.
pub const STATEMENT_TIMEOUT: &str = "60s";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SqlRequest {
    pub query: String,
    /// Run as this role (`anon`, `authenticated`, …): `SET LOCAL ROLE` in a transaction.
    pub role: Option<String>,
    /// With `role`: the user (auth.users id) whose JWT claims `auth.uid()` and RLS see.
    pub user_id: Option<String>,
    /// Roll the transaction back at the end (EXPLAIN ANALYZE of a write, a try).
    #[serde(default)]
    pub rollback: bool,
}

#[derive(Debug, Serialize, PartialEq, Default)]
pub struct ResultSet {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Option<String>>>,
    /// Rows returned (all of them, not only those kept) or affected.
    pub row_count: u64,
    pub truncated: bool,
}

#[derive(Debug, Serialize)]
pub struct SqlAnswer {
    pub results: Vec<ResultSet>,
    /// Statements run.
    pub statements: usize,
    pub ms: f64,
    /// The role and claims the statements ran with.
    pub role: String,
    pub claims: Option<Value>,
}

/// Line and column (from 1) of a 1-based character position, as PostgreSQL reports them.
pub fn line_and_column(query: &str, position: usize) -> (usize, usize) {
    let (mut line, mut column) = (1, 1);
    for ch in query.chars().take(position.saturating_sub(1)) {
        if ch == '\n' {
            line += 1;
            column = 1;
        } else {
            column += 1;
        }
    }
    (line, column)
}

/// What a signed-in user's access token says, as GoTrue writes it, from their auth.users row
/// (`user` holds id, email, phone, app_metadata, user_metadata, is_anonymous); `anon` and
/// `service_role` without a user get the claims of their API key.
pub fn claims(role: &str, user: Option<&Value>, now: i64) -> Value {
    match user {
        Some(u) => json!({
            "aud": "authenticated", "role": role, "sub": u["id"],
            "email": u["email"].as_str().unwrap_or_default(),
            "phone": u["phone"].as_str().unwrap_or_default(),
            "app_metadata": u["app_metadata"], "user_metadata": u["user_metadata"],
            "is_anonymous": u["is_anonymous"].as_bool().unwrap_or(false),
            "aal": "aal1", "session_id": Value::Null,
            "iat": now, "exp": now + 3600,
        }),
        None => json!({"role": role, "iss": "supabase-demo", "iat": now, "exp": now + 3600}),
    }
}

/// Adds one message of the simple query protocol's answer to the result sets.
pub fn collect(sets: &mut Vec<ResultSet>, statements: &mut usize, open: &mut bool, msg: Message) {
    match msg {
        Message::Columns(columns) => {
            sets.push(ResultSet {
                columns,
                ..Default::default()
            });
            *open = true;
        }
        Message::Row(values) => {
            if let Some(set) = sets.last_mut().filter(|_| *open) {
                set.row_count += 1;
                if set.rows.len() < MAX_ROWS {
                    set.rows.push(values);
                } else {
                    set.truncated = true;
                }
            }
        }
        Message::Done(n) => {
            *statements += 1;
            if *open {
                *open = false;
            } else {
                sets.push(ResultSet {
                    row_count: n,
                    ..Default::default()
                });
            }
        }
    }
    if sets.len() > MAX_RESULTS && !*open {
        sets.remove(0);
    }
}

/// The simple query protocol's messages, as the edge reads them.
pub enum Message {
    Columns(Vec<String>),
    Row(Vec<Option<String>>),
    Done(u64),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_line_and_column_of_an_error() {
        let q = "select 1;\nselect nope\n  from x";
        let cases = [
            (1, (1, 1)),
            (9, (1, 9)),
            (11, (2, 1)),
            (18, (2, 8)),
            (25, (3, 3)),
        ];
        for (pos, expected) in cases {
            assert_eq!(line_and_column(q, pos), expected, "{pos}");
        }
        assert_eq!(line_and_column("é\nx", 3), (2, 1));
    }

    #[test]
    fn collects_result_sets_bounded() {
        let (mut sets, mut n, mut open) = (vec![], 0, false);
        collect(&mut sets, &mut n, &mut open, Message::Done(3));
        collect(
            &mut sets,
            &mut n,
            &mut open,
            Message::Columns(vec!["a".into()]),
        );
        for i in 0..(MAX_ROWS + 2) {
            collect(
                &mut sets,
                &mut n,
                &mut open,
                Message::Row(vec![Some(i.to_string())]),
            );
        }
        collect(
            &mut sets,
            &mut n,
            &mut open,
            Message::Done((MAX_ROWS + 2) as u64),
        );
        assert_eq!(n, 2);
        assert_eq!(
            sets[0],
            ResultSet {
                row_count: 3,
                ..Default::default()
            }
        );
        assert_eq!(sets[1].rows.len(), MAX_ROWS);
        assert_eq!(sets[1].row_count, (MAX_ROWS + 2) as u64);
        assert!(sets[1].truncated);
        for _ in 0..MAX_RESULTS {
            collect(&mut sets, &mut n, &mut open, Message::Done(0));
        }
        assert_eq!(sets.len(), MAX_RESULTS);
        assert!(sets.iter().all(|s| s.columns.is_empty()));
    }

    #[test]
    fn claims_of_a_user_are_an_access_token_s() {
        let u = json!({"id": "u1", "email": "a@b.c", "phone": null, "app_metadata": {"provider": "email"},
                       "user_metadata": {}, "is_anonymous": false});
        let c = claims("authenticated", Some(&u), 100);
        assert_eq!(c["sub"], "u1");
        assert_eq!(c["aud"], "authenticated");
        assert_eq!(c["phone"], "");
        assert_eq!(c["exp"], 3700);
        assert_eq!(claims("anon", None, 0)["role"], "anon");
    }
}
