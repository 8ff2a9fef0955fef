//! SQL cases as tables, for the extensions' tests: each row is a query and the text of the one
//! value it answers (`NULL` for null), or words of the error message it raises. A table runs in
//! order on one session (rows may build on each other) and stops at the first row that fails,
//! saying what it wanted and what it got.

/// The first value of the last row a query returns (`NULL` for null, empty without a row), or
/// its error message.
pub async fn value(client: &tokio_postgres::Client, query: &str) -> Result<String, String> {
    match client.simple_query(query).await {
        Ok(messages) => Ok(messages
            .iter()
            .rev()
            .find_map(|m| match m {
                tokio_postgres::SimpleQueryMessage::Row(r) => {
                    Some(r.get(0).unwrap_or("NULL").to_string())
                }
                _ => None,
            })
            .unwrap_or_default()),
        Err(e) => Err(e
            .as_db_error()
            .map(|d| d.message().to_string())
            .unwrap_or_else(|| e.to_string())),
    }
}

/// Runs `(query, Ok(value) | Err(words of the error))` rows in order.
pub async fn check<Q: AsRef<str>, W: AsRef<str>>(
    client: &tokio_postgres::Client,
    cases: &[(Q, Result<W, W>)],
) {
    for (query, want) in cases {
        let query = query.as_ref();
        let got = value(client, query).await;
        let ok = match (want, &got) {
            (Ok(w), Ok(g)) => w.as_ref() == g,
            (Err(w), Err(g)) => g.contains(w.as_ref()),
            _ => false,
        };
        let want = want.as_ref().map(AsRef::as_ref).map_err(AsRef::as_ref);
        assert!(ok, "{query}\n  want {want:?}\n  got  {got:?}");
    }
}
