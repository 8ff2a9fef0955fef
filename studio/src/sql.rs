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
    /// With `role`: the user (auth.users id) whose JWT claims `auth.uid()` and RLS see (those of
    /// the token Studio signs for them, [`crate::token::user_claims`]).
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

/// The claims of the API key of `role` (`anon`, `service_role`, …), as the SQL editor runs
/// without a user (with one: [`crate::token::user_claims`]).
pub fn key_claims(role: &str, now: i64) -> Value {
    json!({"role": role, "iss": "supabase-demo", "iat": now, "exp": now + 3600})
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
    fn an_api_key_s_claims_name_its_role() {
        assert_eq!(
            key_claims("anon", 100),
            json!({"role": "anon", "iss": "supabase-demo", "iat": 100, "exp": 3700})
        );
    }
}
