//! Listing a bucket: `list` (one folder level, as storage-api's `storage.search()`) and
//! `list_v2` (a flat or delimited listing with a continuation cursor, as `/object/list-v2`).
//! Both run on the caller's connection, so RLS decides which objects they see.

use crate::StorageError;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};
use tokio_postgres::GenericClient;

#[derive(Debug, Clone, Default)]
pub struct ListOptions {
    pub prefix: String,
    pub search: String,
    pub limit: i64,
    pub offset: i64,
    pub sort_column: String,
    pub sort_desc: bool,
}

/// One "folder" level of a bucket, as `storage.search()` lists it: files with their metadata and
/// sub-folders as entries with a null id.
pub async fn list(
    c: &impl GenericClient,
    bucket: &str,
    o: &ListOptions,
) -> Result<Value, StorageError> {
    let mut prefix = o.prefix.trim_start_matches('/').to_string();
    if !prefix.is_empty() && !prefix.ends_with('/') {
        prefix.push('/');
    }
    let sort = match o.sort_column.as_str() {
        "updated_at" | "created_at" | "last_accessed_at" => o.sort_column.as_str(),
        _ => "name",
    };
    let dir = if o.sort_desc { "DESC" } else { "ASC" };
    let sql = format!(
        "WITH level AS (
           SELECT split_part(substr(name, length($2) + 1), '/', 1) AS entry,
                  strpos(substr(name, length($2) + 1), '/') > 0 AS is_folder,
                  id, created_at, updated_at, last_accessed_at, metadata
           FROM storage.objects
           WHERE bucket_id = $1 AND starts_with(name, $2)
         ), entries AS (
           SELECT entry AS name,
                  CASE WHEN bool_or(is_folder) THEN NULL ELSE (array_agg(id))[1] END AS id,
                  CASE WHEN bool_or(is_folder) THEN NULL ELSE max(updated_at) END AS updated_at,
                  CASE WHEN bool_or(is_folder) THEN NULL ELSE max(created_at) END AS created_at,
                  CASE WHEN bool_or(is_folder) THEN NULL ELSE max(last_accessed_at) END AS last_accessed_at,
                  CASE WHEN bool_or(is_folder) THEN NULL ELSE (array_agg(metadata))[1] END AS metadata
           FROM level WHERE entry <> '' AND ($3 = '' OR entry ILIKE '%' || $3 || '%')
           GROUP BY entry
         )
         SELECT coalesce(json_agg(e ORDER BY e.{sort} {dir} NULLS LAST, e.name), '[]')::text
         FROM (SELECT * FROM entries ORDER BY {sort} {dir} NULLS LAST, name LIMIT $4 OFFSET $5) e"
    );
    let row = c
        .query_one(&sql, &[&bucket, &prefix, &o.search, &o.limit, &o.offset])
        .await?;
    Ok(serde_json::from_str(&row.get::<_, String>(0)).unwrap_or(json!([])))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortColumn {
    #[default]
    Name,
    CreatedAt,
    UpdatedAt,
}

impl SortColumn {
    fn parse(s: &str) -> Option<Self> {
        match s {
            "name" => Some(SortColumn::Name),
            "created_at" => Some(SortColumn::CreatedAt),
            "updated_at" => Some(SortColumn::UpdatedAt),
            _ => None,
        }
    }
    fn as_str(self) -> &'static str {
        match self {
            SortColumn::Name => "name",
            SortColumn::CreatedAt => "created_at",
            SortColumn::UpdatedAt => "updated_at",
        }
    }
}

/// A `list-v2` request.
#[derive(Debug, Clone, Default)]
pub struct ListV2 {
    pub prefix: String,
    /// Group everything below the next `/` into one folder entry.
    pub delimiter: bool,
    /// 1..=1000 (storage-api's cap).
    pub limit: i64,
    pub sort: Option<SortColumn>,
    pub desc: Option<bool>,
    pub cursor: Option<String>,
}

/// Where a page starts: storage-api's continuation token, base64 of `l:<last name>`,
/// `o:<order>`, `c:<column>`, `a:<last column value>` lines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Cursor {
    after: String,
    order: Option<String>,
    column: Option<String>,
    column_after: Option<String>,
}

impl Cursor {
    fn decode(token: &str) -> Result<Cursor, StorageError> {
        let bad = || StorageError::InvalidParameter {
            name: "continuation token".into(),
            message: None,
        };
        let text =
            String::from_utf8(STANDARD.decode(token).map_err(|_| bad())?).map_err(|_| bad())?;
        let mut c = Cursor::default();
        for line in text.split('\n') {
            let (k, v) = line.split_once(':').ok_or_else(bad)?;
            let v = v.to_string();
            match k {
                "l" => c.after = v,
                "o" => c.order = Some(v),
                "c" => c.column = Some(v),
                "a" => c.column_after = Some(v),
                _ => return Err(bad()),
            }
        }
        Ok(c)
    }

    fn encode(&self) -> String {
        let mut lines = vec![format!("l:{}", self.after)];
        for (k, v) in [
            ("o", &self.order),
            ("c", &self.column),
            ("a", &self.column_after),
        ] {
            if let Some(v) = v {
                lines.push(format!("{k}:{v}"));
            }
        }
        STANDARD.encode(lines.join("\n"))
    }
}

/// `{hasNext, nextCursor?, folders, objects}` as storage-api answers `list-v2`.
pub async fn list_v2(
    c: &impl GenericClient,
    bucket: &str,
    o: &ListV2,
) -> Result<Value, StorageError> {
    let cursor = o.cursor.as_deref().map(Cursor::decode).transpose()?;
    // A cursor carries the order it was made with; it wins over the body's.
    let order = cursor
        .as_ref()
        .and_then(|c| c.order.clone())
        .or_else(|| o.desc.map(|d| if d { "desc" } else { "asc" }.to_string()));
    let desc = order.as_deref() == Some("desc");
    let column_name = cursor
        .as_ref()
        .and_then(|c| c.column.clone())
        .or_else(|| o.sort.map(|s| s.as_str().to_string()));
    let column = column_name
        .as_deref()
        .and_then(SortColumn::parse)
        .unwrap_or_default();
    let limit = o.limit.clamp(1, 1000);
    let dir = if desc { "DESC" } else { "ASC" };
    let op = if desc { "<" } else { ">" };
    let after = cursor.as_ref().map(|c| c.after.clone()).unwrap_or_default();
    let column_after = cursor
        .as_ref()
        .and_then(|c| c.column_after.clone())
        .unwrap_or_default();
    let (page_filter, order_by) = match column {
        SortColumn::Name => (
            format!("($3 = '' OR name COLLATE \"C\" {op} $3)"),
            format!("name COLLATE \"C\" {dir}"),
        ),
        other => {
            let col = other.as_str();
            (
                format!(
                    "($3 = '' OR ROW(date_trunc('milliseconds', {col}), name COLLATE \"C\") {op} \
                     ROW(coalesce(nullif($6, '')::timestamptz, 'epoch'::timestamptz), $3))"
                ),
                format!(
                    "coalesce(date_trunc('milliseconds', {col}), 'epoch'::timestamptz) {dir}, name COLLATE \"C\" {dir}"
                ),
            )
        }
    };
    // Entries below the next `/` after the prefix collapse into one folder, dated by the
    // oldest object in it (as storage-api's search_by_timestamp dates them).
    let sql = format!(
        "WITH raw AS (
           SELECT name, id, updated_at, created_at, last_accessed_at, metadata,
                  CASE WHEN $4 AND strpos(substr(name, length($2) + 1), '/') > 0
                       THEN $2 || substr(substr(name, length($2) + 1), 1, strpos(substr(name, length($2) + 1), '/'))
                  END AS folder
           FROM storage.objects WHERE bucket_id = $1 AND starts_with(name, $2)
         ), entries AS (
           SELECT folder AS name, NULL::uuid AS id, min(created_at) AS updated_at,
                  min(created_at) AS created_at, NULL::timestamptz AS last_accessed_at,
                  NULL::jsonb AS metadata
           FROM raw WHERE folder IS NOT NULL GROUP BY folder
           UNION ALL
           SELECT name, id, updated_at, created_at, last_accessed_at, metadata
           FROM raw WHERE folder IS NULL
         )
         SELECT name, id, updated_at, created_at, last_accessed_at, metadata,
                to_char(date_trunc('milliseconds', {col}) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')
         FROM entries WHERE {page_filter} ORDER BY {order_by} LIMIT $5",
        col = if column == SortColumn::Name { "created_at" } else { column.as_str() },
    );
    let fetch = limit + 1;
    let mut params: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> =
        vec![&bucket, &o.prefix, &after, &o.delimiter, &fetch];
    if column != SortColumn::Name {
        params.push(&column_after);
    }
    let rows = c.query(&sql, &params).await?;
    let has_next = rows.len() as i64 > limit;
    let levels = if o.prefix.is_empty() {
        1
    } else {
        o.prefix.split('/').count()
    };
    let key = |name: &str| name.split('/').nth(levels - 1).unwrap_or("").to_string();
    let mut folders = Vec::new();
    let mut objects = Vec::new();
    for r in rows.iter().take(limit as usize) {
        let name: String = r.get(0);
        let id: Option<uuid::Uuid> = r.get(1);
        match id {
            None => folders.push(json!({ "key": key(&name), "name": name })),
            Some(id) => {
                let mut obj = json!({
                    "id": id, "name": name,
                    "updated_at": r.get::<_, Option<chrono::DateTime<chrono::Utc>>>(2),
                    "created_at": r.get::<_, Option<chrono::DateTime<chrono::Utc>>>(3),
                    "last_accessed_at": r.get::<_, Option<chrono::DateTime<chrono::Utc>>>(4),
                    "metadata": r.get::<_, Option<Value>>(5),
                });
                if o.delimiter {
                    obj["key"] = json!(key(&name));
                }
                objects.push(obj);
            }
        }
    }
    let mut out = json!({ "hasNext": has_next, "folders": folders, "objects": objects });
    if has_next && let Some(last) = rows.get(limit as usize - 1) {
        let next = Cursor {
            after: last.get(0),
            order,
            column: column_name.clone(),
            column_after: (column != SortColumn::Name)
                .then(|| last.get::<_, Option<String>>(6))
                .flatten(),
        };
        out["nextCursor"] = json!(next.encode());
        out["nextCursorKey"] = json!(next.after);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_as_storage_api_writes_them() {
        let c = Cursor {
            after: "testpath/file-1.jpgbb".into(),
            order: Some("desc".into()),
            column: Some("created_at".into()),
            column_after: Some("2026-11-22T16:00:00.123Z".into()),
        };
        let token = c.encode();
        assert_eq!(
            String::from_utf8(STANDARD.decode(&token).unwrap()).unwrap(),
            "l:testpath/file-1.jpgbb\no:desc\nc:created_at\na:2026-11-22T16:00:00.123Z"
        );
        assert_eq!(Cursor::decode(&token).unwrap(), c);
        let e = Cursor::decode(&STANDARD.encode("x:1")).unwrap_err();
        assert_eq!(e.to_string(), "Invalid Parameter continuation token");
        assert!(Cursor::decode("%%%").is_err());
    }
}
