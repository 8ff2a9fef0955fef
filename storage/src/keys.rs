//! Object keys, bucket names, MIME rules and sizes.

use crate::StorageError;
use serde_json::Value;

/// Characters S3 (and so Supabase Storage) accepts in keys besides ASCII letters and digits.
const KEY_EXTRA: &str = "_/!-.*'() &$@=;:+,?";

/// Checks an object key: S3-safe characters, no NUL, not absolute, no `.`/`..` segments.
pub fn validate_key(key: &str) -> Result<(), StorageError> {
    let bad = |why: &str| Err(StorageError::InvalidKey(format!("{key}: {why}")));
    if key.is_empty() {
        return bad("empty");
    }
    if key.len() > 1024 {
        return bad("longer than 1024 bytes");
    }
    if key.starts_with('/') || key.contains('\\') {
        return bad("absolute paths are not allowed");
    }
    if key
        .split('/')
        .any(|s| s == "." || s == ".." || s.is_empty())
    {
        return bad("empty, '.' and '..' path segments are not allowed");
    }
    if let Some(c) = key
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || KEY_EXTRA.contains(*c)))
    {
        return bad(&format!("the character {c:?} is not allowed"));
    }
    Ok(())
}

pub fn validate_bucket_name(name: &str) -> Result<(), StorageError> {
    let ok = !name.is_empty()
        && name.len() < 101
        && !name.contains('/')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_!-.*'() &$@=;:+,?".contains(c));
    if ok {
        Ok(())
    } else {
        Err(StorageError::InvalidBucketName)
    }
}

/// Whether `mime` is allowed by a bucket's list (`image/*` wildcards; no list allows all).
pub fn mime_allowed(mime: &str, allowed: Option<&[String]>) -> bool {
    let Some(list) = allowed.filter(|l| !l.is_empty()) else {
        return true;
    };
    let mime = mime
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    list.iter().any(|a| {
        let a = a.trim().to_ascii_lowercase();
        match a.strip_suffix("/*") {
            Some(family) => mime.split('/').next() == Some(family),
            None => a == mime || a == "*/*" || a == "*",
        }
    })
}

/// Whether `mime` is SVG (`image/svg+xml`, any parameters).
pub fn is_svg(mime: &str) -> bool {
    essence(mime) == "image/svg+xml"
}

fn essence(mime: &str) -> String {
    mime.split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// May content starting with `head` be stored under its declared type? The declared type is
/// authoritative, as for storage-api (a JPEG declared `image/png` is kept as `image/png`), but
/// content a browser would run is refused under an inert type: markup (HTML, SVG, XML) that a
/// browser would render as a document, and executables. Declared honestly (`text/html`,
/// `image/svg+xml`, `application/octet-stream`, an executable type) it is stored and then served
/// as a download or sandboxed (see [`runs_in_browser`]). `text/plain` keeps markup too: it is
/// what supabase-py declares for every upload that names no type, and browsers never sniff it
/// into a document (WHATWG MIME sniffing only tells text from binary there, and every answer
/// carries `nosniff`).
pub fn content_allowed(declared: &str, head: &[u8]) -> bool {
    let declared = essence(declared);
    if runs_in_browser(&declared) || declared == "application/octet-stream" {
        return true;
    }
    if declared == "text/plain" {
        return !infer::get(head).is_some_and(|t| is_executable(t.mime_type()));
    }
    if let Some(sniffed) = infer::get(head).map(|t| t.mime_type())
        && is_executable(sniffed)
    {
        return is_executable(&declared);
    }
    !looks_like_markup(head)
}

fn is_executable(mime: &str) -> bool {
    matches!(
        mime,
        "application/x-executable"
            | "application/x-msdownload"
            | "application/x-mach-binary"
            | "application/vnd.microsoft.portable-executable"
            | "application/x-elf"
            | "application/x-sharedlib"
    )
}

/// The markup a browser sniffs as a document (WHATWG MIME sniffing's HTML patterns, plus XML
/// and SVG roots), after an optional BOM and whitespace.
fn looks_like_markup(head: &[u8]) -> bool {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let start = head
        .iter()
        .position(|b| !b" \t\n\r\x0c".contains(b))
        .unwrap_or(head.len());
    let text = &head[start..];
    const TAGS: [&[u8]; 20] = [
        b"<!doctype html",
        b"<html",
        b"<head",
        b"<script",
        b"<iframe",
        b"<h1",
        b"<div",
        b"<font",
        b"<table",
        b"<a",
        b"<style",
        b"<title",
        b"<b",
        b"<body",
        b"<br",
        b"<p",
        b"<!--",
        b"<svg",
        b"<?xml",
        b"<object",
    ];
    TAGS.iter().any(|tag| {
        text.len() > tag.len()
            && text[..tag.len()].eq_ignore_ascii_case(tag)
            && (tag.ends_with(b"--")
                || tag.ends_with(b"xml")
                || matches!(text[tag.len()], b' ' | b'>' | b'\t' | b'\n' | b'\r' | b'/'))
    })
}

/// `file_size_limit` as storage-js sends it: a number of bytes, or a string like "20MB" read as
/// storage-api reads it (decimal units: 20MB is 20,000,000 bytes; three significant digits).
pub fn parse_size(v: &Value) -> Result<Option<i64>, StorageError> {
    match v {
        Value::Null => Ok(None),
        Value::Number(n) => n
            .as_i64()
            .filter(|n| *n > 0)
            .map(Some)
            .ok_or(StorageError::InvalidFileSizeLimit),
        Value::String(s) => parse_size_text(s).map(Some),
        _ => Err(StorageError::InvalidFileSizeLimit),
    }
}

fn parse_size_text(s: &str) -> Result<i64, StorageError> {
    let bad = || StorageError::InvalidFileSizeLimit;
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .ok_or_else(bad)?;
    let (number, unit) = s.split_at(split);
    let well_formed = number
        .split_once('.')
        .map_or(!number.is_empty(), |(whole, frac)| {
            !whole.is_empty() && !frac.is_empty() && !frac.contains('.')
        });
    if !well_formed {
        return Err(bad());
    }
    let mult = match unit.to_ascii_lowercase().as_str() {
        "gb" => 1e9,
        "mb" => 1e6,
        "kb" => 1e3,
        "b" => 1.0,
        _ => return Err(bad()),
    };
    let value: f64 = number.parse().map_err(|_| bad())?;
    // toPrecision(3), as storage-api rounds the number before applying the unit.
    let rounded: f64 = format!("{:.2e}", value).parse().map_err(|_| bad())?;
    let bytes = (rounded * mult).round();
    if bytes >= 1.0 && bytes < i64::MAX as f64 {
        Ok(bytes as i64)
    } else {
        Err(bad())
    }
}

/// Where the bytes of one version of an object live. Versions are unique, so renaming or moving
/// an object never moves bytes, and a new upload never overwrites bytes a row points at.
/// Types a browser may render as a document that can run script when the object is opened
/// directly (served from the API's origin, it would run with it): every type but those known to
/// be passive. A deny-list always misses one (XSLT, PDF forms in some viewers, a new `+xml`),
/// so what is not known to be inert is treated as active.
pub fn runs_in_browser(mime: &str) -> bool {
    let essence = mime
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let Some((kind, sub)) = essence.split_once('/') else {
        return true;
    };
    let passive = match kind {
        "image" => sub != "svg+xml" && !sub.ends_with("+xml"),
        "audio" | "video" | "font" => true,
        "text" => matches!(
            sub,
            "plain" | "csv" | "tab-separated-values" | "markdown" | "calendar" | "vcard"
        ),
        "application" => {
            matches!(
                sub,
                "json"
                    | "pdf"
                    | "octet-stream"
                    | "zip"
                    | "gzip"
                    | "x-gzip"
                    | "x-tar"
                    | "x-7z-compressed"
                    | "x-bzip2"
                    | "zstd"
                    | "msword"
                    | "rtf"
                    | "epub+zip"
                    | "wasm"
                    | "x-protobuf"
                    | "x-ndjson"
                    | "geo+json"
                    | "vnd.apache.parquet"
                    | "x-sqlite3"
            ) || sub.ends_with("+json")
                || sub.starts_with("vnd.openxmlformats-officedocument.")
                || sub.starts_with("vnd.ms-")
                || sub.starts_with("vnd.oasis.opendocument.")
        }
        _ => false,
    };
    !passive
}

pub fn version_path(version: &str) -> object_store::path::Path {
    object_store::path::Path::from(format!("versions/{version}"))
}

/// Where the cached image renderings of one version live (deleted with the version).
pub fn render_prefix(version: &str) -> object_store::path::Path {
    object_store::path::Path::from(format!("renders/{version}"))
}

#[cfg(test)]
mod header_tests {
    use super::*;

    #[test]
    fn document_types_are_recognised() {
        for m in [
            "text/html",
            "TEXT/HTML; charset=utf-8",
            "image/svg+xml",
            "application/xml",
            "application/rss+xml",
            "application/atom+xml",
            "text/xsl",
            "application/xslt+xml",
            "text/xml-external-parsed-entity",
            "multipart/x-mixed-replace",
            "application/x-shockwave-flash",
            "text/javascript",
            "application/vnd.unknown",
            "nonsense",
            "",
        ] {
            assert!(runs_in_browser(m), "{m}");
        }
        for m in [
            "image/png",
            "IMAGE/JPEG; q=1",
            "application/pdf",
            "text/plain; charset=utf-8",
            "application/json",
            "application/vnd.api+json",
            "video/mp4",
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        ] {
            assert!(!runs_in_browser(m), "{m}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys() {
        for good in [
            "a.png",
            "products/123/photo 1.png",
            "a/b/c(1)!.jpg",
            "x+y=z;@$&'.txt",
        ] {
            assert!(validate_key(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a/../b",
            "a/./b",
            "a//b",
            "a\0b",
            "a\\b",
            "naïve.png",
            "a#b",
            "a%2e",
        ] {
            assert!(validate_key(bad).is_err(), "{bad:?}");
        }
        assert!(validate_bucket_name("product-images").is_ok());
        assert!(validate_bucket_name("a/b").is_err());
        assert!(validate_bucket_name("").is_err());
    }

    #[test]
    fn mime_rules() {
        let allowed = vec!["image/png".to_string(), "image/webp".to_string()];
        assert!(mime_allowed("image/png", Some(&allowed)));
        assert!(!mime_allowed("image/gif", Some(&allowed)));
        let family = vec!["image/*".to_string()];
        assert!(mime_allowed("image/gif", Some(&family)));
        assert!(!mime_allowed("text/html", Some(&family)));
        assert!(mime_allowed("anything/else", None));
    }

    #[test]
    fn the_declared_type_is_kept_unless_the_content_would_run() {
        let png = [0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13];
        let jpeg = [0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10, b'J', b'F', b'I', b'F', 0];
        let mut elf = [0u8; 64];
        elf[..4].copy_from_slice(&[0x7f, b'E', b'L', b'F']);
        let exe = [b'M', b'Z', 0x90, 0, 3, 0, 0, 0, 4, 0, 0, 0, 0xff, 0xff];
        assert!(content_allowed("image/png", &png));
        // storage-api keeps a JPEG declared as PNG, and text declared as an image.
        assert!(content_allowed("image/png", &jpeg));
        assert!(content_allowed("image/png", b"just some text"));
        assert!(content_allowed("text/plain", b"just some text"));
        assert!(!content_allowed("image/png", &elf));
        assert!(!content_allowed("image/jpeg", &exe));
        assert!(!content_allowed("text/plain", &elf));
        assert!(content_allowed("application/octet-stream", &exe));
        assert!(content_allowed("application/octet-stream", b"\x00\x01"));
        for page in [
            &b"<!DOCTYPE html><p>hi"[..],
            b"\xEF\xBB\xBF  <html>",
            b"\n<script>alert(1)</script>",
            b"<svg xmlns='http://www.w3.org/2000/svg' onload='alert(1)'/>",
            b"<?xml version='1.0'?><svg/>",
        ] {
            assert!(!content_allowed("image/png", page), "{page:?}");
            assert!(!content_allowed("text/csv", page), "{page:?}");
            // Shown as text, never as a document (storage-py's default type).
            assert!(
                content_allowed("text/plain; charset=utf-8", page),
                "{page:?}"
            );
            assert!(content_allowed("text/html", page), "{page:?}");
            assert!(content_allowed("image/svg+xml", page), "{page:?}");
        }
        // Text that merely contains a tag later on, or a word starting like one, is inert.
        assert!(content_allowed("text/plain", b"a < b and <html> later"));
        assert!(content_allowed("text/plain", b"<about the shop>"));
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size(&json!(5242880)).unwrap(), Some(5242880));
        // Decimal units, as storage-api: '20mb' is 20,000,000 bytes.
        assert_eq!(parse_size(&json!("20mb")).unwrap(), Some(20_000_000));
        assert_eq!(parse_size(&json!("5MB")).unwrap(), Some(5_000_000));
        assert_eq!(parse_size(&json!("1.5GB")).unwrap(), Some(1_500_000_000));
        assert_eq!(parse_size(&json!("1kb")).unwrap(), Some(1000));
        assert_eq!(parse_size(&json!("3B")).unwrap(), Some(3));
        // Three significant digits: 1.2345MB is 1,230,000 bytes.
        assert_eq!(parse_size(&json!("1.2345MB")).unwrap(), Some(1_230_000));
        assert_eq!(parse_size(&json!(null)).unwrap(), None);
        for bad in ["lots", "100 kb", "5", "MB", ".5MB", "1.MB", "5TB", "1..2MB"] {
            let e = parse_size(&json!(bad)).unwrap_err();
            assert_eq!(
                e.to_string(),
                "Invalid file size format, hint: use 20GB / 20MB / 30KB / 3B"
            );
        }
        assert!(parse_size(&json!(-1)).is_err());
    }
}
