//! The main statement's row (total, page total, body, headers, status, location, inserted), in
//! text. The body goes to the client as received, without a copy.

use pg::DbError;
use pg::pipeline::Row;
use query_engine::response::ResultRow;

pub fn result_row(mut row: Row) -> Result<ResultRow, DbError> {
    if row.len() < 7 {
        return Err(DbError::Unavailable(format!(
            "the statement returned {} columns, not 7",
            row.len()
        )));
    }
    let text = |v: Option<bytes::Bytes>| -> Result<Option<String>, DbError> {
        v.map(|b| {
            String::from_utf8(b.to_vec())
                .map_err(|_| DbError::Unavailable("a value is not UTF-8".into()))
        })
        .transpose()
    };
    let int = |v: Option<bytes::Bytes>| -> Result<Option<i64>, DbError> {
        text(v)?
            .map(|t| {
                t.parse()
                    .map_err(|_| DbError::Unavailable(format!("not a count: {t}")))
            })
            .transpose()
    };
    let mut take = |i: usize| row[i].take();
    Ok(ResultRow {
        total: int(take(0))?,
        page_total: int(take(1))?.unwrap_or(0),
        body: take(2),
        response_headers: text(take(3))?,
        response_status: text(take(4))?,
        location: text(take(5))?,
        inserted: int(take(6))?,
    })
}
