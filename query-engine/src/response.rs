//! Turns the main statement's one result row into status, headers and body, as PostgREST does.

use crate::error::Pgrst;
use bytes::Bytes;

use crate::error::ApiError;
use crate::plan::{Kind, Outcome};
use crate::request::{MediaType, Resolution, Return};
use serde_json::Value;

/// The row every main statement returns.
#[derive(Debug, Clone, Default)]
pub struct ResultRow {
    pub total: Option<i64>,
    pub page_total: i64,
    pub body: Option<Bytes>,
    pub response_headers: Option<String>,
    pub response_status: Option<String>,
    pub location: Option<String>,
    /// Rows an upsert inserted rather than updated.
    pub inserted: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    /// None: no body at all (204, HEAD, return=minimal).
    pub body: Option<Bytes>,
    /// False when the transaction must be rolled back (Prefer: tx=rollback).
    pub commit: bool,
}

fn range_header(lower: u64, page: i64, total: Option<i64>) -> String {
    // Written without the formatting machinery: every read answers with one.
    let mut buf = itoa::Buffer::new();
    let mut s = String::with_capacity(24);
    if page <= 0 {
        s.push('*');
    } else {
        s.push_str(buf.format(lower));
        s.push('-');
        s.push_str(buf.format(lower + page as u64 - 1));
    }
    s.push('/');
    match total {
        Some(t) => s.push_str(buf.format(t)),
        None => s.push('*'),
    }
    s
}

/// Builds the response, or the error that makes the gateway roll back (PGRST116, PGRST103).
pub fn build(o: &Outcome, row: ResultRow) -> Result<Response, ApiError> {
    let representation = o.return_ == Return::Representation;
    // As PostgREST: a singular request that reads, calls or changes other than exactly one row
    // fails and rolls back, whatever `return=` asked for (a write is never wider than asked).
    let wants_single = o.media.is_singular();
    if wants_single && row.page_total != 1 && !matches!(o.kind, Kind::Call { void: true }) {
        return Err(ApiError::pgrst(
            Pgrst::Singular,
            "Cannot coerce the result to a single JSON object",
        )
        .details(format!("The result contains {} rows", row.page_total)));
    }
    // max-affected (with handling=strict): an update, delete or call touching more rows fails
    // and rolls back.
    if let Some(limit) = o.prefer.affected_limit()
        && matches!(o.kind, Kind::Update | Kind::Delete | Kind::Call { .. })
        && row.page_total > limit
    {
        return Err(ApiError::pgrst(
            Pgrst::MaxAffected,
            "Query result exceeds max-affected preference constraint",
        )
        .details(format!("The query affects {} rows", row.page_total)));
    }
    if let MediaType::Plan(_) = o.media {
        return Ok(Response {
            status: 200,
            headers: vec![("Content-Type".into(), o.media.content_type())],
            body: row.body,
            commit: !o.prefer.tx_rollback,
        });
    }
    let mut headers: Vec<(String, String)> = Vec::new();
    let counting = o.prefer.count.is_some();
    let total = if counting { row.total } else { None };
    let (mut status, body) = match o.kind {
        Kind::Read | Kind::Call { void: false } => {
            if let Some(t) = total
                && o.offset > 0
                && o.offset as i64 > t
            {
                return Err(ApiError::pgrst(
                    Pgrst::InvalidRange,
                    "Requested range not satisfiable",
                )
                .details(format!(
                    "An offset of {} was requested, but there are only {} rows.",
                    o.offset, t
                )));
            }
            headers.push((
                "Content-Range".into(),
                range_header(o.offset, row.page_total, total),
            ));
            let partial = total.is_some_and(|t| row.page_total < t);
            (
                if partial { 206 } else { 200 },
                if o.head { None } else { row.body },
            )
        }
        Kind::Call { void: true } => (204, None),
        // As PostgREST: a write's count is the rows it wrote; an insert or delete gives no
        // range, an update gives 0-(n-1).
        Kind::Insert | Kind::Delete => {
            let written = counting.then_some(row.page_total);
            headers.push(("Content-Range".into(), range_header(0, 0, written)));
            if let Some(l) = &row.location {
                headers.push(("Location".into(), l.clone()));
            }
            match o.kind {
                Kind::Delete if representation => (200, row.body),
                Kind::Delete => (204, None),
                // An upsert that only updated rows answers 200.
                _ if row.inserted.is_some_and(|n| n <= 0)
                    && o.prefer.resolution == Some(Resolution::MergeDuplicates) =>
                {
                    (200, representation.then_some(row.body).flatten())
                }
                _ => (201, representation.then_some(row.body).flatten()),
            }
        }
        // PUT: the one row named by the URL, inserted (201) or replaced (200); a body whose key
        // differs from the URL's wrote nothing (PGRST115, rolled back).
        Kind::Put => {
            if row.page_total != 1 {
                return Err(ApiError::pgrst(
                    Pgrst::PutKeyMismatch,
                    "Payload values do not match URL in primary key column(s)",
                ));
            }
            match (representation, row.inserted.is_some_and(|n| n > 0)) {
                (true, true) => (201, row.body),
                (true, false) => (200, row.body),
                (false, _) => (204, None),
            }
        }
        Kind::Update => {
            let written = counting.then_some(row.page_total);
            headers.push((
                "Content-Range".into(),
                range_header(0, row.page_total, written),
            ));
            if representation {
                (200, row.body)
            } else {
                (204, None)
            }
        }
    };
    if body.is_some() || matches!(o.kind, Kind::Read | Kind::Call { .. }) && status != 204 {
        headers.push(("Content-Type".into(), o.media.content_type()));
    }
    if o.echo_profile {
        headers.push(("Content-Profile".into(), o.schema.clone()));
    }
    if !o.prefer.applied.is_empty() {
        headers.push(("Preference-Applied".into(), o.prefer.applied.join(", ")));
    }
    // Headers and status set from SQL with set_config('response.headers'/'response.status').
    if let Some(h) = row.response_headers.as_deref()
        && let Ok(Value::Array(items)) = serde_json::from_str::<Value>(h)
    {
        for item in items {
            if let Value::Object(m) = item {
                for (k, v) in m {
                    let v = v
                        .as_str()
                        .map(str::to_string)
                        .unwrap_or_else(|| v.to_string());
                    headers.retain(|(hk, _)| !hk.eq_ignore_ascii_case(&k));
                    headers.push((k, v));
                }
            }
        }
    }
    if let Some(s) = row
        .response_status
        .as_deref()
        .and_then(|s| s.trim().parse::<u16>().ok())
    {
        status = s;
    }
    Ok(Response {
        status,
        headers,
        body,
        commit: !o.prefer.tx_rollback,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::{Count, MediaType, Preferences};

    fn outcome(kind: Kind) -> Outcome {
        Outcome {
            kind,
            head: false,
            media: MediaType::Json,
            return_: Return::Minimal,
            offset: 0,
            schema: "public".into(),
            echo_profile: true,
            prefer: Preferences::default(),
        }
    }

    fn row(page: i64, total: Option<i64>, body: &str) -> ResultRow {
        ResultRow {
            total,
            page_total: page,
            body: Some(Bytes::copy_from_slice(body.as_bytes())),
            ..Default::default()
        }
    }

    fn header<'a>(r: &'a Response, name: &str) -> Option<&'a str> {
        r.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    #[test]
    fn reads_and_content_range() {
        let r = build(&outcome(Kind::Read), row(5, None, "[]")).unwrap();
        assert_eq!(
            (r.status, header(&r, "Content-Range")),
            (200, Some("0-4/*"))
        );
        assert_eq!(header(&r, "Content-Profile"), Some("public"));
        let r = build(&outcome(Kind::Read), row(0, None, "[]")).unwrap();
        assert_eq!(header(&r, "Content-Range"), Some("*/*"));
        let mut o = outcome(Kind::Read);
        o.prefer.count = Some(Count::Exact);
        let r = build(&o, row(10, Some(42), "[]")).unwrap();
        assert_eq!(
            (r.status, header(&r, "Content-Range")),
            (206, Some("0-9/42"))
        );
        let r = build(&o, row(0, Some(0), "[]")).unwrap();
        assert_eq!((r.status, header(&r, "Content-Range")), (200, Some("*/0")));
        o.offset = 50;
        assert_eq!(build(&o, row(0, Some(42), "[]")).unwrap_err().status, 416);
    }

    #[test]
    fn singular_needs_exactly_one_row() {
        let mut o = outcome(Kind::Read);
        o.media = MediaType::SingularJson;
        let e = build(&o, row(2, None, "{}")).unwrap_err();
        assert_eq!((e.status, e.code.as_str()), (406, "PGRST116"));
        assert_eq!(
            e.details_text().as_deref(),
            Some("The result contains 2 rows")
        );
        assert_eq!(
            build(&o, row(1, None, "{\"a\":1}"))
                .unwrap()
                .body
                .as_deref(),
            Some(&b"{\"a\":1}"[..])
        );
        let mut ins = outcome(Kind::Insert);
        ins.media = MediaType::SingularJson;
        ins.return_ = Return::Representation;
        assert!(build(&ins, row(2, None, "[]")).is_err());
        // return=minimal changes nothing: two rows updated is still not one.
        let mut upd = outcome(Kind::Update);
        upd.media = MediaType::SingularJson;
        assert_eq!(build(&upd, row(2, None, "")).unwrap_err().code, "PGRST116");
        assert_eq!(build(&upd, row(1, None, "")).unwrap().status, 204);
    }

    #[test]
    fn writes() {
        let r = build(&outcome(Kind::Insert), row(1, None, "")).unwrap();
        assert_eq!(
            (r.status, r.body.clone(), header(&r, "Content-Range")),
            (201, None, Some("*/*"))
        );
        let r = build(&outcome(Kind::Update), row(3, None, "")).unwrap();
        assert_eq!(
            (r.status, header(&r, "Content-Range")),
            (204, Some("0-2/*"))
        );
        let mut o = outcome(Kind::Delete);
        o.return_ = Return::Representation;
        let r = build(&o, row(1, None, "[{\"id\":1}]")).unwrap();
        assert_eq!(
            (r.status, r.body.as_deref()),
            (200, Some(&b"[{\"id\":1}]"[..]))
        );
        assert_eq!(
            build(&outcome(Kind::Call { void: true }), row(1, None, ""))
                .unwrap()
                .status,
            204
        );
    }

    #[test]
    fn guc_headers_and_status() {
        let mut rr = row(1, None, "[]");
        rr.response_headers = Some(r#"[{"X-Custom":"yes"},{"Content-Range":"9"}]"#.into());
        rr.response_status = Some("202".into());
        let r = build(&outcome(Kind::Read), rr).unwrap();
        assert_eq!(r.status, 202);
        assert_eq!(header(&r, "X-Custom"), Some("yes"));
        assert_eq!(header(&r, "Content-Range"), Some("9"));
    }
}
