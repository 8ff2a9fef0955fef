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
        Err(StorageError::InvalidRequest(format!(
            "Bucket name invalid: {name}"
        )))
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

/// Does the content agree with its declared type? Formats with a known signature must carry it,
/// so a renamed executable is not stored as an image.
pub fn content_matches(declared: &str, head: &[u8]) -> bool {
    let declared = declared
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let sniffed = infer::get(head).map(|t| t.mime_type());
    let needs_signature = matches!(
        declared.as_str(),
        "image/png"
            | "image/jpeg"
            | "image/jpg"
            | "image/webp"
            | "image/gif"
            | "image/avif"
            | "application/pdf"
            | "application/zip"
    );
    match sniffed {
        Some(s) => {
            let same = s == declared || (declared == "image/jpg" && s == "image/jpeg");
            // A known binary format under another type is refused; unknown declared types
            // (text/plain, application/octet-stream) accept anything.
            same || (!needs_signature && !is_executable(s) && !declared.starts_with("image/"))
        }
        None => !needs_signature,
    }
}

fn is_executable(mime: &str) -> bool {
    matches!(
        mime,
        "application/x-executable"
            | "application/x-msdownload"
            | "application/x-mach-binary"
            | "application/vnd.microsoft.portable-executable"
            | "application/x-elf"
    )
}

/// `file_size_limit` as storage-js sends it: a number of bytes or a string like "5MB".
pub fn parse_size(v: &Value) -> Result<Option<i64>, StorageError> {
    let bad = || StorageError::InvalidRequest(format!("invalid file_size_limit: {v}"));
    match v {
        Value::Null => Ok(None),
        Value::Number(n) => n.as_i64().filter(|n| *n > 0).map(Some).ok_or_else(bad),
        Value::String(s) => {
            let s = s.trim().to_ascii_uppercase();
            let digits: String = s
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '.')
                .collect();
            let unit = s[digits.len()..].trim();
            let n: f64 = digits.parse().map_err(|_| bad())?;
            let mult = match unit {
                "" | "B" => 1.0,
                "KB" | "K" => 1024.0,
                "MB" | "M" => 1024.0 * 1024.0,
                "GB" | "G" => 1024.0 * 1024.0 * 1024.0,
                _ => return Err(bad()),
            };
            let bytes = (n * mult) as i64;
            if bytes > 0 {
                Ok(Some(bytes))
            } else {
                Err(bad())
            }
        }
        _ => Err(bad()),
    }
}

/// Where the bytes of one version of an object live. Versions are unique, so renaming or moving
/// an object never moves bytes, and a new upload never overwrites bytes a row points at.
/// Types a browser renders as a document that can run script when the object is opened
/// directly: served from the API's origin, they would run with it.
pub fn runs_in_browser(mime: &str) -> bool {
    let essence = mime
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    matches!(
        essence.as_str(),
        "text/html" | "application/xhtml+xml" | "image/svg+xml" | "text/xml" | "application/xml"
    ) || essence.ends_with("+xml") && essence != "application/atom+xml"
}

/// A `Content-Disposition: attachment` value for a file name from the client: control
/// characters (header injection), quotes and backslashes dropped from the plain `filename`, the
/// exact name in RFC 5987's `filename*`.
pub fn attachment(name: &str) -> String {
    let plain: String = name
        .chars()
        .filter(|c| !c.is_control() && *c != '"' && *c != '\\')
        .map(|c| if c.is_ascii() { c } else { '_' })
        .collect();
    let clean: String = name.chars().filter(|c| !c.is_control()).collect();
    let encoded = percent_encoding::utf8_percent_encode(&clean, percent_encoding::NON_ALPHANUMERIC);
    format!("attachment; filename=\"{plain}\"; filename*=UTF-8''{encoded}")
}

pub fn version_path(version: &str) -> object_store::path::Path {
    object_store::path::Path::from(format!("versions/{version}"))
}

#[cfg(test)]
mod header_tests {
    use super::*;

    #[test]
    fn attachments_cannot_inject_headers() {
        let v = attachment("a\r\nSet-Cookie: x=1\".html");
        assert!(!v.contains('\r') && !v.contains('\n'), "{v}");
        assert!(
            v.starts_with("attachment; filename=\"aSet-Cookie: x=1.html\"; filename*=UTF-8''a")
        );
        assert!(
            attachment("fleur d’été.png")
                .contains("filename*=UTF-8''fleur%20d%E2%80%99%C3%A9t%C3%A9%2Epng")
        );
    }

    #[test]
    fn document_types_are_recognised() {
        for m in [
            "text/html",
            "TEXT/HTML; charset=utf-8",
            "image/svg+xml",
            "application/xml",
            "application/rss+xml",
        ] {
            assert!(runs_in_browser(m), "{m}");
        }
        for m in [
            "image/png",
            "application/pdf",
            "text/plain",
            "application/json",
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
    fn content_sniffing() {
        let png = [0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13];
        let mut elf = [0u8; 64];
        elf[..4].copy_from_slice(&[0x7f, b'E', b'L', b'F']);
        let exe = [b'M', b'Z', 0x90, 0, 3, 0, 0, 0, 4, 0, 0, 0, 0xff, 0xff];
        assert!(content_matches("image/png", &png));
        assert!(!content_matches("image/png", &elf));
        assert!(!content_matches("image/jpeg", &exe));
        assert!(!content_matches("image/png", b"just some text"));
        assert!(content_matches("text/plain", b"just some text"));
        assert!(!content_matches("text/plain", &elf));
        assert!(content_matches("application/octet-stream", b"\x00\x01"));
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size(&json!(5242880)).unwrap(), Some(5242880));
        assert_eq!(parse_size(&json!("5MB")).unwrap(), Some(5 * 1024 * 1024));
        assert_eq!(parse_size(&json!("100 kb")).unwrap(), Some(102400));
        assert_eq!(parse_size(&json!(null)).unwrap(), None);
        assert!(parse_size(&json!("lots")).is_err());
        assert!(parse_size(&json!(-1)).is_err());
    }
}
