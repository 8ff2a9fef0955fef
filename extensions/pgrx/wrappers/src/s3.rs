//! The S3 wrapper, working as upstream's (wrappers' `s3_fdw` 0.1.4) for CSV, JSON Lines and
//! Parquet files: a scan of a foreign table gets the object its `uri` names
//! (`s3://<bucket>/<key>`) with a GetObject request signed with AWS Signature Version 4
//! (`rusty-s3`'s presigned URL, made by `scan::get` under the http extension's reach rule), from
//! the server's `endpoint_url`
//! (`https://s3.<aws_region>.amazonaws.com` by default; `path_style_url 'true'` puts the bucket
//! in the path rather than the host name), with the keys of `aws_access_key_id` and
//! `aws_secret_access_key`, or of the Vault secrets `vault_access_key_id` and
//! `vault_secret_access_key` name. The object is decompressed as `compress` says (`gzip` or
//! `zlib`; upstream's `bzip2` and `xz` are refused here) and read as `format` says: `csv` (the
//! first line a header when `has_header` is `'true'`), each record a row whose fields fill the
//! columns by position, `jsonl`, each line a JSON object whose fields fill the columns by name
//! (strings as they are, other values as JSON text, `null` as NULL), or `parquet` (the `parquet`
//! crate's record reader, without Arrow; snappy-compressed pages or none), each record's fields
//! filling the columns by name (every column must be in the file, as upstream checks; dates and
//! timestamps as their UTC text). Values are read by each column's type's input function
//! (upstream wants text columns for CSV and JSON Lines; any type works here), an empty CSV
//! field is NULL in a column of a non-string type. Bounded: the object at most 64 MiB as stored
//! and 256 MiB decompressed, at most ten million rows.

use crate::raise;
use crate::scan::{self, Cell, Column, Rows};
use bytes::Bytes;
use pgrx::prelude::*;
use rusty_s3::{Bucket, Credentials, S3Action, UrlStyle};
use std::io::Read;
use std::time::Duration;

/// The largest object read, as stored.
const MAX_OBJECT: usize = 64 << 20;
/// The largest object read, decompressed.
const MAX_DECOMPRESSED: usize = 256 << 20;
/// The most rows one scan reads.
const MAX_ROWS: usize = 10_000_000;
/// How long the presigned request stays valid, and how long getting the object may take.
const REQUEST_SECONDS: u64 = 300;

/// A file format `format` names.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Format {
    Csv,
    Jsonl,
    Parquet,
}

/// A compression `compress` names.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Compression {
    None,
    Gzip,
    Zlib,
}

/// The bucket and key of `uri` (`s3://<bucket>/<key>`), or upstream's error.
fn bucket_and_key(uri: &str) -> Result<(&str, &str), String> {
    let invalid = || format!("invalid s3 uri: {uri}");
    let rest = uri.strip_prefix("s3://").ok_or_else(invalid)?;
    let (bucket, key) = rest.split_once('/').ok_or_else(invalid)?;
    if bucket.is_empty() || key.is_empty() {
        return Err(invalid());
    }
    Ok((bucket, key))
}

/// The format `format` names, or upstream's error.
fn format(text: &str) -> Result<Format, (PgSqlErrorCode, String)> {
    match text {
        "csv" => Ok(Format::Csv),
        "jsonl" => Ok(Format::Jsonl),
        "parquet" => Ok(Format::Parquet),
        other => Err((
            PgSqlErrorCode::ERRCODE_FDW_ERROR,
            format!("invalid format option: '{other}', it can only be 'csv', 'jsonl' or 'parquet'"),
        )),
    }
}

/// The compression `compress` names, or upstream's error (bzip2 and xz refused here).
fn compression(text: Option<&str>) -> Result<Compression, (PgSqlErrorCode, String)> {
    match text {
        None => Ok(Compression::None),
        Some("gzip") => Ok(Compression::Gzip),
        Some("zlib") => Ok(Compression::Zlib),
        Some(other @ ("bzip2" | "xz")) => Err((
            PgSqlErrorCode::ERRCODE_FEATURE_NOT_SUPPORTED,
            format!(
                "S3 wrapper does not decompress {other} in supagate: only the compressions \
                 'gzip' and 'zlib' are supported here"
            ),
        )),
        Some(other) => Err((
            PgSqlErrorCode::ERRCODE_FDW_ERROR,
            format!("invalid compression option: {other}"),
        )),
    }
}

/// Raises `error`.
fn fail<T>(result: Result<T, (PgSqlErrorCode, String)>) -> T {
    result.unwrap_or_else(|(code, message)| raise(code, message))
}

/// The access key id and secret: the server's options, or the Vault secrets they name.
fn credentials(server: &[(String, String)]) -> Credentials {
    match scan::option(server, "vault_access_key_id") {
        Some(id) => {
            let secret = scan::require(server, "vault_secret_access_key");
            Credentials::new(scan::vault_secret(id), scan::vault_secret(secret))
        }
        None => Credentials::new(
            scan::require(server, "aws_access_key_id"),
            scan::require(server, "aws_secret_access_key"),
        ),
    }
}

/// The words of an S3 error answer (`<Code>` and `<Message>` of its XML).
fn s3_error(status: u16, body: &[u8]) -> String {
    let text = String::from_utf8_lossy(&body[..body.len().min(4096)]);
    let element = |name: &str| {
        let start = text.find(&format!("<{name}>"))? + name.len() + 2;
        let end = text[start..].find(&format!("</{name}>"))? + start;
        Some(text[start..end].to_owned())
    };
    match (element("Code"), element("Message")) {
        (Some(code), Some(message)) => format!("{code}: {message} (HTTP status {status})"),
        (Some(code), None) => format!("{code} (HTTP status {status})"),
        _ => format!(
            "HTTP status {status}: {}",
            text.chars().take(500).collect::<String>()
        ),
    }
}

/// `bytes` decompressed as `compression` says, at most `MAX_DECOMPRESSED` bytes.
fn decompress(bytes: Vec<u8>, compression: Compression) -> Result<Vec<u8>, String> {
    let reader: Box<dyn Read> = match compression {
        Compression::None => return Ok(bytes),
        Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(&bytes[..])),
        Compression::Zlib => Box::new(flate2::read::ZlibDecoder::new(&bytes[..])),
    };
    let mut out = Vec::new();
    reader
        .take(MAX_DECOMPRESSED as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|e| format!("read line failed: {e}"))?;
    if out.len() > MAX_DECOMPRESSED {
        return Err(format!(
            "the object is larger than supagate's S3 wrapper reads: at most {} MiB decompressed",
            MAX_DECOMPRESSED >> 20
        ));
    }
    Ok(out)
}

/// Gets the object `key` of `bucket` from the server's endpoint.
fn get_object(server: &[(String, String)], bucket: &str, key: &str) -> (Vec<u8>, bool) {
    let region = scan::option(server, "aws_region").unwrap_or("us-east-1");
    let endpoint = match scan::option(server, "endpoint_url") {
        Some(url) => url.to_owned(),
        None => format!("https://s3.{region}.amazonaws.com"),
    };
    let invalid_endpoint = |e: &dyn std::fmt::Display| -> ! {
        raise(
            PgSqlErrorCode::ERRCODE_FDW_ERROR,
            format!("invalid endpoint_url option '{endpoint}': {e}"),
        )
    };
    let parsed = url::Url::parse(&endpoint).unwrap_or_else(|e| invalid_endpoint(&e));
    let style = if scan::option(server, "path_style_url") == Some("true") {
        UrlStyle::Path
    } else {
        UrlStyle::VirtualHost
    };
    let bucket = Bucket::new(parsed, style, bucket.to_owned(), region.to_owned())
        .unwrap_or_else(|e| invalid_endpoint(&e));
    let credentials = credentials(server);
    let url = rusty_s3::actions::GetObject::new(&bucket, Some(&credentials), key)
        .sign(Duration::from_secs(REQUEST_SECONDS));
    let answer = scan::get(
        url.as_str(),
        Vec::new(),
        MAX_OBJECT,
        Duration::from_secs(REQUEST_SECONDS),
    );
    if !(200..300).contains(&answer.status) {
        raise(
            PgSqlErrorCode::ERRCODE_FDW_ERROR,
            format!("request failed: {}", s3_error(answer.status, &answer.body)),
        );
    }
    // http_core undoes a Content-Encoding the object was stored with.
    let decoded = answer.headers.iter().any(|(name, value)| {
        name.eq_ignore_ascii_case("content-encoding")
            && ["gzip", "deflate"]
                .iter()
                .any(|c| value.to_ascii_lowercase().contains(c))
    });
    (answer.body, decoded)
}

/// Opens a scan of an S3 foreign table: the object, read.
pub fn open(
    table: &[(String, String)],
    server: &[(String, String)],
    columns: &[Column],
) -> Box<dyn Rows> {
    let uri = scan::require(table, "uri");
    let (bucket, key) =
        bucket_and_key(uri).unwrap_or_else(|e| raise(PgSqlErrorCode::ERRCODE_FDW_ERROR, e));
    let format = fail(format(scan::require(table, "format")));
    let compression = fail(compression(scan::option(table, "compress")));
    let has_header = scan::option(table, "has_header") == Some("true");
    let (bytes, decoded) = get_object(server, bucket, key);
    let compression = if decoded {
        Compression::None
    } else {
        compression
    };
    let data = Bytes::from(
        decompress(bytes, compression)
            .unwrap_or_else(|e| raise(PgSqlErrorCode::ERRCODE_FDW_ERROR, e)),
    );
    match format {
        Format::Csv => Box::new(CsvRows::new(data, has_header)),
        Format::Jsonl => Box::new(JsonlRows {
            data,
            at: 0,
            line: 0,
            rows: 0,
        }),
        Format::Parquet => Box::new(ParquetRows::new(data, columns)),
    }
}

/// Raises the error of a scan that read more than `MAX_ROWS` rows.
fn too_many_rows() -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_PROGRAM_LIMIT_EXCEEDED,
        format!("the object has more rows than supagate's S3 wrapper reads ({MAX_ROWS})"),
    )
}

/// The records of a CSV object.
struct CsvRows {
    data: Bytes,
    has_header: bool,
    reader: csv::Reader<std::io::Cursor<Bytes>>,
    record: csv::StringRecord,
    rows: usize,
}

impl CsvRows {
    fn new(data: Bytes, has_header: bool) -> Self {
        CsvRows {
            reader: Self::reader(&data, has_header),
            data,
            has_header,
            record: csv::StringRecord::new(),
            rows: 0,
        }
    }

    fn reader(data: &Bytes, has_header: bool) -> csv::Reader<std::io::Cursor<Bytes>> {
        csv::ReaderBuilder::new()
            .has_headers(has_header)
            .from_reader(std::io::Cursor::new(data.clone()))
    }
}

impl Rows for CsvRows {
    fn next(&mut self, columns: &[Column]) -> Option<Vec<Option<Cell>>> {
        match self.reader.read_record(&mut self.record) {
            Ok(true) => {}
            Ok(false) => return None,
            Err(e) => raise(
                PgSqlErrorCode::ERRCODE_FDW_ERROR,
                format!("read csv record failed: {e}"),
            ),
        }
        self.rows += 1;
        if self.rows > MAX_ROWS {
            too_many_rows();
        }
        let cells = columns
            .iter()
            .map(|column| {
                let field = self.record.get(column.position)?;
                if field.is_empty() && !column.is_string() {
                    return None;
                }
                Some(Cell::Text(field.to_owned()))
            })
            .collect();
        Some(cells)
    }

    fn rewind(&mut self) {
        self.reader = Self::reader(&self.data, self.has_header);
        self.rows = 0;
    }
}

/// The lines of a JSON Lines object.
struct JsonlRows {
    data: Bytes,
    /// Where the next line starts.
    at: usize,
    /// The number of the line last read, from 1.
    line: usize,
    rows: usize,
}

impl Rows for JsonlRows {
    fn next(&mut self, columns: &[Column]) -> Option<Vec<Option<Cell>>> {
        let object = loop {
            if self.at >= self.data.len() {
                return None;
            }
            let rest = &self.data[self.at..];
            let end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
            let line = rest[..end].trim_ascii();
            self.at += end + 1;
            self.line += 1;
            if line.is_empty() {
                continue;
            }
            let value: serde_json::Value = serde_json::from_slice(line).unwrap_or_else(|e| {
                raise(
                    PgSqlErrorCode::ERRCODE_FDW_ERROR,
                    format!("parse JSON response failed: {e} (line {})", self.line),
                )
            });
            match value {
                serde_json::Value::Object(object) => break object,
                _ => raise(
                    PgSqlErrorCode::ERRCODE_FDW_ERROR,
                    format!(
                        "read jsonl record failed: line {} is not a JSON object",
                        self.line
                    ),
                ),
            }
        };
        self.rows += 1;
        if self.rows > MAX_ROWS {
            too_many_rows();
        }
        let cells = columns
            .iter()
            .map(|column| match object.get(&column.name)? {
                serde_json::Value::Null => None,
                serde_json::Value::String(s) => Some(Cell::Text(s.clone())),
                other => Some(Cell::Text(other.to_string())),
            })
            .collect();
        Some(cells)
    }

    fn rewind(&mut self) {
        self.at = 0;
        self.line = 0;
        self.rows = 0;
    }
}

/// The records of a Parquet object.
struct ParquetRows {
    data: Bytes,
    records: parquet::record::reader::RowIter<'static>,
    rows: usize,
}

/// Raises upstream's error for a Parquet object that cannot be read.
fn parquet_failed(e: parquet::errors::ParquetError) -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_FDW_ERROR,
        format!("read parquet failed: {e}"),
    )
}

impl ParquetRows {
    fn new(data: Bytes, columns: &[Column]) -> Self {
        let records = Self::records(&data);
        // Every column of the table must be one of the file's, as upstream requires.
        let file = parquet::file::reader::SerializedFileReader::new(data.clone())
            .unwrap_or_else(|e| parquet_failed(e));
        let schema = parquet::file::reader::FileReader::metadata(&file)
            .file_metadata()
            .schema_descr();
        let names: Vec<&str> = schema
            .root_schema()
            .get_fields()
            .iter()
            .map(|f| f.name())
            .collect();
        if let Some(missing) = columns.iter().find(|c| !names.contains(&c.name.as_str())) {
            raise(
                PgSqlErrorCode::ERRCODE_FDW_ERROR,
                format!("column {} not found in parquet file", missing.name),
            );
        }
        ParquetRows {
            data,
            records,
            rows: 0,
        }
    }

    fn records(data: &Bytes) -> parquet::record::reader::RowIter<'static> {
        let file = parquet::file::reader::SerializedFileReader::new(data.clone())
            .unwrap_or_else(|e| parquet_failed(e));
        parquet::record::reader::RowIter::from_file_into(Box::new(file))
    }
}

/// The text of a Parquet value PostgreSQL's input functions read (`None` for null).
fn parquet_text(field: &parquet::record::Field) -> Option<String> {
    use parquet::record::Field;
    match field {
        Field::Null => None,
        Field::Str(s) => Some(s.clone()),
        Field::Bytes(b) => Some(format!(
            "\\x{}",
            b.data()
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        )),
        // Numbers, dates, times and timestamps (UTC, with their offset), lists and groups.
        other => Some(other.to_string()),
    }
}

impl Rows for ParquetRows {
    fn next(&mut self, columns: &[Column]) -> Option<Vec<Option<Cell>>> {
        let record = match self.records.next()? {
            Ok(record) => record,
            Err(e) => parquet_failed(e),
        };
        self.rows += 1;
        if self.rows > MAX_ROWS {
            too_many_rows();
        }
        let cells = columns
            .iter()
            .map(|column| {
                record
                    .get_column_iter()
                    .find(|(name, _)| **name == column.name)
                    .and_then(|(_, field)| parquet_text(field))
                    .map(Cell::Text)
            })
            .collect();
        Some(cells)
    }

    fn rewind(&mut self) {
        self.records = Self::records(&self.data);
        self.rows = 0;
    }
}
