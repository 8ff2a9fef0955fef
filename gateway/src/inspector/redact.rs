//! What the inspector shows of a request's secrets: nothing. One-time tokens, codes, passwords
//! and keys are replaced by [`REDACTED`] wherever an event would show them:
//!
//! - the URL: a query parameter whose name names a secret (`token`, `token_hash`, `code`,
//!   `access_token`, `apikey`…), and a condition on such a column inside PostgREST's logic trees
//!   (`or=(token.eq.…)`);
//! - the headers: `authorization` (its scheme kept), `cookie` (the names kept), and any header
//!   whose name names a secret (`apikey`, `x-api-key`…);
//! - the SQL parameters: one compared with a column that names a secret (`"t"."code" = $1`, a
//!   JSON key included), the values of such keys inside a JSON body or arguments, and anywhere
//!   else (an error message, `explain`'s copy of the parameters) the values found above.
//!
//! A name names a secret when one of its words (split at punctuation and camelCase) is a short
//! secret word (`code`, `key`, `otp`…) or contains a long one (`token`, `password`, `secret`…).

use crate::http_util::{form_decode, query_pairs};
use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};
use serde_json::Value;

pub const REDACTED: &str = "[redacted]";

/// Words that name a secret on their own.
const SHORT: &[&str] = &["code", "key", "otp", "jwt", "pwd", "pass", "pin", "sig"];
/// Parts of words that name a secret (`refreshtoken`, `newpassword`, `clientsecret`…).
const LONG: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "token",
    "secret",
    "apikey",
    "cookie",
    "signature",
    "credential",
    "authorization",
    "nonce",
];

/// Values shorter than this are redacted where they stand alone, never searched for inside
/// other text (a code `12` must not blank every `12`).
const MIN_SEARCHED: usize = 4;

/// Whether `name` (a query parameter, header, JSON key or column) names a secret.
pub fn sensitive(name: &str) -> bool {
    words(name)
        .iter()
        .any(|w| SHORT.contains(&w.as_str()) || LONG.iter().any(|l| w.contains(l)))
}

/// Lower-case words: split at anything not a letter or digit, and where a lower-case letter or
/// digit is followed by an upper-case one (`refreshToken`).
fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// What is escaped in a value written back into a query string.
const QUERY_VALUE: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'&')
    .add(b'+')
    .add(b'<')
    .add(b'>');

/// One request's secrets, and how to blank them.
#[derive(Debug, Default)]
pub struct Redactor {
    /// Values found under secret names, to be blanked wherever they appear.
    secrets: Vec<String>,
}

impl Redactor {
    /// The secrets of a request's query string and headers.
    pub fn of(query: &str, headers: &actix_web::http::header::HeaderMap) -> Redactor {
        let mut r = Redactor::default();
        for (k, v) in query_pairs(query) {
            if sensitive(&k) {
                r.filter_value(&v);
            } else if is_tree(&k) {
                tree(&v, &mut r.secrets);
            }
        }
        for (name, value) in headers {
            let Ok(v) = value.to_str() else { continue };
            match name.as_str() {
                "authorization" | "proxy-authorization" => {
                    let credential = v.split_once(' ').map_or(v, |(_, c)| c).trim();
                    r.add(credential);
                }
                "cookie" => {
                    // Every value is shown blanked; those named as secrets (or long enough to
                    // be a session) are searched for elsewhere too.
                    for c in v.split(';') {
                        if let Some((name, value)) = c.split_once('=')
                            && (sensitive(name) || value.trim().len() >= 16)
                        {
                            r.add(value.trim());
                        }
                    }
                }
                n if sensitive(n) => r.add(v.trim()),
                _ => {}
            }
        }
        r
    }

    fn add(&mut self, v: &str) {
        if !v.is_empty() && !self.secrets.iter().any(|s| s == v) {
            self.secrets.push(v.to_string());
        }
    }

    /// A filter's value (`eq.x`, `not.in.(a,b)`, `like.*x*`) or a plain one: the value as a
    /// whole and the operands inside it.
    fn filter_value(&mut self, v: &str) {
        self.add(v);
        for operand in operands(v) {
            self.add(&operand);
        }
    }

    /// The path and query string with the secret parameters' values blanked.
    pub fn url(&self, full: &str) -> String {
        let Some((path, query)) = full.split_once('?') else {
            return full.to_string();
        };
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| {
                let Some((k, v)) = pair.split_once('=') else {
                    return pair.to_string();
                };
                let key = form_decode(k);
                if sensitive(&key) {
                    format!("{k}={REDACTED}")
                } else if is_tree(&key) {
                    let mut found = Vec::new();
                    let redacted = tree(&form_decode(v), &mut found);
                    if found.is_empty() {
                        pair.to_string()
                    } else {
                        format!("{k}={}", utf8_percent_encode(&redacted, QUERY_VALUE))
                    }
                } else {
                    pair.to_string()
                }
            })
            .collect();
        format!("{path}?{}", pairs.join("&"))
    }

    /// The request headers as an object (lower-case names, each name's values joined by `, `),
    /// secrets blanked.
    pub fn headers(&self, headers: &actix_web::http::header::HeaderMap) -> Value {
        let mut out = serde_json::Map::new();
        for (name, value) in headers {
            let n = name.as_str();
            let shown = match n {
                "authorization" | "proxy-authorization" => {
                    let v = String::from_utf8_lossy(value.as_bytes());
                    match v.trim().split_once(' ') {
                        Some((scheme, _)) => format!("{scheme} {REDACTED}"),
                        None => REDACTED.to_string(),
                    }
                }
                "cookie" => String::from_utf8_lossy(value.as_bytes())
                    .split(';')
                    .map(|c| match c.split_once('=') {
                        Some((name, _)) => format!("{}={REDACTED}", name.trim()),
                        None => c.trim().to_string(),
                    })
                    .collect::<Vec<_>>()
                    .join("; "),
                _ if sensitive(n) => REDACTED.to_string(),
                "referer" => {
                    let v = String::from_utf8_lossy(value.as_bytes());
                    let query = v.split_once('?').map_or("", |(_, q)| q);
                    let query = query.split_once('#').map_or(query, |(q, _)| q);
                    self.text(&Redactor::of(query, &Default::default()).url(&v))
                }
                _ => self.text(&String::from_utf8_lossy(value.as_bytes())),
            };
            match out.get_mut(n) {
                Some(Value::String(s)) => {
                    s.push_str(", ");
                    s.push_str(&shown);
                }
                _ => {
                    out.insert(n.to_string(), Value::String(shown));
                }
            }
        }
        Value::Object(out)
    }

    /// A statement's parameters as the inspector shows them. Secrets found in JSON parameters
    /// are kept, so that text shown after (an error message) is blanked of them too.
    pub fn params(&mut self, sql: &str, params: &[impl AsRef<str>]) -> Vec<String> {
        let secret_columns = compared_with_secrets(sql, params);
        let mut out: Vec<Option<String>> = params
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let p = p.as_ref();
                if secret_columns.contains(&i) {
                    self.filter_value(p);
                    return Some(REDACTED.to_string());
                }
                let t = p.trim_start();
                if (t.starts_with('{') || t.starts_with('['))
                    && let Ok(mut v) = serde_json::from_str::<Value>(p)
                {
                    let mut found = Vec::new();
                    if json(&mut v, &mut found) {
                        for f in found {
                            self.add(&f);
                        }
                        return Some(v.to_string());
                    }
                }
                None
            })
            .collect();
        for (i, p) in params.iter().enumerate() {
            if out[i].is_none() {
                out[i] = Some(self.text(p.as_ref()));
            }
        }
        out.into_iter().map(Option::unwrap_or_default).collect()
    }

    /// Text with every known secret blanked: a whole value that is one, and those long enough
    /// to search for inside it.
    pub fn text(&self, s: &str) -> String {
        if self.secrets.iter().any(|x| x == s) {
            return REDACTED.to_string();
        }
        let mut out = s.to_string();
        let mut long: Vec<&String> = self
            .secrets
            .iter()
            .filter(|x| x.len() >= MIN_SEARCHED)
            .collect();
        // The longest first: a secret that contains another is blanked whole.
        long.sort_by_key(|x| std::cmp::Reverse(x.len()));
        for x in long {
            if out.contains(x.as_str()) {
                out = out.replace(x.as_str(), REDACTED);
            }
        }
        out
    }
}

/// Whether a query parameter is a PostgREST logic tree (`or`, `and`, `not.or`, `items.or`…).
fn is_tree(key: &str) -> bool {
    let last = key.rsplit('.').next().unwrap_or(key);
    last == "or" || last == "and"
}

/// The operands of a filter value: what follows its operator (`eq.`, `not.like.`, `fts(en).`),
/// a list's items (`in.(a,"b,c")`), without `*` wildcards.
fn operands(v: &str) -> Vec<String> {
    let mut rest = v.strip_prefix("not.").unwrap_or(v);
    match rest.split_once('.') {
        Some((op, value))
            if !op.is_empty()
                && op
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"()_-".contains(&b)) =>
        {
            rest = value
        }
        _ => return vec![v.to_string()],
    }
    let inner = rest
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .or_else(|| rest.strip_prefix('{').and_then(|r| r.strip_suffix('}')));
    let items: Vec<&str> = match inner {
        Some(list) => split_list(list),
        None => vec![rest],
    };
    items
        .into_iter()
        .map(|i| i.trim().trim_matches('"').trim_matches('*').to_string())
        .filter(|i| !i.is_empty())
        .chain(std::iter::once(rest.to_string()))
        .collect()
}

/// A list's items at commas outside double quotes.
fn split_list(list: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut start, mut quoted) = (0, false);
    for (i, b) in list.bytes().enumerate() {
        match b {
            b'"' => quoted = !quoted,
            b',' if !quoted => {
                items.push(&list[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&list[start..]);
    items
}

/// A logic tree (`(token.eq.x,or(code.in.(a,b),note.eq.y))`) with the conditions on secret
/// columns blanked after their operator; their values go to `found`.
fn tree(v: &str, found: &mut Vec<String>) -> String {
    let b = v.as_bytes();
    let mut out = String::with_capacity(v.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'(' | b')' | b',' => {
                out.push(b[i] as char);
                i += 1;
                continue;
            }
            _ => {}
        }
        // A term: up to the next `,` or `)` outside quotes and a value's own parentheses.
        let (mut depth, mut quoted, mut end) = (0usize, false, i);
        let mut group = None;
        while end < b.len() {
            match b[end] {
                b'"' => quoted = !quoted,
                b'(' if !quoted => {
                    let head = &v[i..end];
                    if depth == 0 && matches!(head, "or" | "and" | "not.or" | "not.and") {
                        group = Some(end);
                        break;
                    }
                    depth += 1;
                }
                b')' if !quoted && depth == 0 => break,
                b')' if !quoted => depth -= 1,
                b',' if !quoted && depth == 0 => break,
                _ => {}
            }
            end += 1;
        }
        if let Some(open) = group {
            out.push_str(&v[i..open]);
            i = open;
            continue;
        }
        let term = &v[i..end];
        out.push_str(&redact_condition(term, found));
        i = end;
    }
    out
}

/// `field.op.value` (or `field.not.op.value`) with the value blanked when the field names a
/// secret.
fn redact_condition(term: &str, found: &mut Vec<String>) -> String {
    let Some((field, rest)) = term.split_once('.') else {
        return term.to_string();
    };
    if !sensitive(field) {
        return term.to_string();
    }
    let (not, rest) = match rest.strip_prefix("not.") {
        Some(r) => ("not.", r),
        None => ("", rest),
    };
    let Some((op, value)) = rest.split_once('.') else {
        return term.to_string();
    };
    found.push(value.to_string());
    found.extend(operands(&format!("{op}.{value}")));
    format!("{field}.{not}{op}.{REDACTED}")
}

/// Blanks the values of secret keys in a JSON value (their contents go to `found`); whether it
/// blanked any.
fn json(v: &mut Value, found: &mut Vec<String>) -> bool {
    match v {
        Value::Object(map) => {
            let mut any = false;
            for (k, item) in map.iter_mut() {
                if sensitive(k) && !item.is_null() {
                    leaves(item, found);
                    *item = Value::String(REDACTED.into());
                    any = true;
                } else {
                    any |= json(item, found);
                }
            }
            any
        }
        Value::Array(items) => items.iter_mut().fold(false, |a, i| json(i, found) | a),
        _ => false,
    }
}

fn leaves(v: &Value, found: &mut Vec<String>) {
    match v {
        Value::String(s) => found.push(s.clone()),
        Value::Number(n) => found.push(n.to_string()),
        Value::Array(items) => items.iter().for_each(|i| leaves(i, found)),
        Value::Object(map) => map.values().for_each(|i| leaves(i, found)),
        Value::Bool(_) | Value::Null => {}
    }
}

/// The parameters (0-based) a statement compares with a column, or a JSON key, that names a
/// secret: `"t"."code" = $1`, `"t"."token" = ANY($2)`, `"t"."data"->>$3::text = $4` (where `$3`
/// is `token`), `"t"."code" @@ to_tsquery($5::regconfig, $6)`.
fn compared_with_secrets(sql: &str, params: &[impl AsRef<str>]) -> Vec<usize> {
    let b = sql.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\'' {
            // A literal: skipped whole ('' inside is two quotes in a row: the loop sees both).
            i += 1;
            while i < b.len() && b[i] != b'\'' {
                i += 1;
            }
            i += 1;
            continue;
        }
        if b[i] == b'$' && i + 1 < b.len() && b[i + 1].is_ascii_digit() {
            let start = i;
            let mut j = i + 1;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            // `$n::type` after a field's arrow is a JSON key, and `$n::regconfig` a text search
            // language: neither is a compared value.
            let key = sql[..start].ends_with("->") || sql[..start].ends_with("->>");
            let language = sql[j..].starts_with("::regconfig");
            if let Ok(n) = sql[i + 1..j].parse::<usize>()
                && n >= 1
                && !key
                && !language
                && field_before(sql, start, params)
            {
                out.push(n - 1);
            }
            i = j;
            continue;
        }
        i += 1;
    }
    out
}

/// Whether the field compared with the parameter at byte `at` names a secret.
fn field_before(sql: &str, at: usize, params: &[impl AsRef<str>]) -> bool {
    const SKIPPED: &[&str] = &[
        "ANY", "ALL", "IS", "DISTINCT", "FROM", "LIKE", "ILIKE", "NOT", "SIMILAR", "TO",
    ];
    let b = sql.as_bytes();
    let mut end = at;
    loop {
        while end > 0 && b[end - 1].is_ascii_whitespace() {
            end -= 1;
        }
        if end == 0 {
            return false;
        }
        let c = b[end - 1];
        if c == b'(' {
            end -= 1;
        } else if c == b',' {
            // An earlier argument of the same call (`to_tsquery($5::regconfig, $6)`).
            match sql[..end - 1].rfind('(') {
                Some(open) => end = open,
                None => return false,
            }
        } else if b"=<>!~*@&|^#-+/%".contains(&c) {
            end -= 1;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let mut start = end;
            while start > 0 && (b[start - 1].is_ascii_alphanumeric() || b[start - 1] == b'_') {
                start -= 1;
            }
            let word = &sql[start..end];
            if sql[..start].ends_with("::") {
                // A cast ends the field (`"t"."code"::text`, `->>$3::text`).
                return field_names(sql, end, params).iter().any(|n| sensitive(n));
            }
            if SKIPPED.contains(&word) || word.ends_with("tsquery") {
                end = start;
            } else {
                return false;
            }
        } else if c == b'"' {
            return field_names(sql, end, params).iter().any(|n| sensitive(n));
        } else {
            return false;
        }
    }
}

/// The names of the field ending at byte `end` (a quoted column, then its JSON path's keys):
/// `"t"."data"->>$3::text` is `data` and the value of `$3`.
fn field_names(sql: &str, end: usize, params: &[impl AsRef<str>]) -> Vec<String> {
    let mut names = Vec::new();
    let mut end = end;
    loop {
        let b = sql.as_bytes();
        if end > 0 && b[end - 1] == b'"' {
            let Some(open) = sql[..end - 1].rfind('"') else {
                return names;
            };
            names.push(sql[open + 1..end - 1].to_string());
            // Only the column: the alias before it (`"t".`) is not a field.
            return names;
        }
        // A cast (`"t"."code"::text`), or a JSON key as a parameter (`…->>$3::text`).
        let text = &sql[..end];
        let Some(cast) = text.rfind("::") else {
            return names;
        };
        if !text[cast + 2..]
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_')
        {
            return names;
        }
        if text[..cast].ends_with('"') {
            end = cast;
            continue;
        }
        let digits = text[..cast]
            .bytes()
            .rev()
            .take_while(u8::is_ascii_digit)
            .count();
        let dollar = cast - digits;
        if digits == 0 || dollar == 0 || &text[dollar - 1..dollar] != "$" {
            return names;
        }
        let dollar = dollar - 1;
        let Ok(n) = text[dollar + 1..cast].parse::<usize>() else {
            return names;
        };
        if let Some(p) = n.checked_sub(1).and_then(|k| params.get(k)) {
            names.push(p.as_ref().to_string());
        }
        let before = &text[..dollar];
        end = match before
            .strip_suffix("->>")
            .or_else(|| before.strip_suffix("->"))
        {
            Some(b) => b.len(),
            None => return names,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::http::header::{HeaderMap, HeaderName, HeaderValue};

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(
                HeaderName::from_bytes(k.as_bytes()).unwrap(),
                HeaderValue::from_str(v).unwrap(),
            );
        }
        h
    }

    #[test]
    fn names_that_name_secrets() {
        let cases = [
            ("token", true),
            ("token_hash", true),
            ("access_token", true),
            ("refreshToken", true),
            ("apikey", true),
            ("apiKey", true),
            ("x-api-key", true),
            ("code", true),
            ("code_verifier", true),
            ("p_code", true),
            ("password", true),
            ("new_password", true),
            ("encrypted_password", true),
            ("client_secret", true),
            ("X-Amz-Signature", true),
            ("otp", true),
            ("nonce", true),
            ("data->>token", true),
            ("items.token", true),
            ("postcode", false),
            ("keyword", false),
            ("type", false),
            ("redirect_to", false),
            ("select", false),
            ("note", false),
            ("email", false),
            ("id", false),
            ("x-client-info", false),
        ];
        for (name, want) in cases {
            assert_eq!(sensitive(name), want, "{name}");
        }
    }

    #[test]
    fn urls_lose_their_secret_values() {
        let cases = [
            (
                "/auth/v1/verify?token=abc123&type=signup&redirect_to=http%3A%2F%2Fx",
                "/auth/v1/verify?token=[redacted]&type=signup&redirect_to=http%3A%2F%2Fx",
            ),
            (
                "/auth/v1/verify?token_hash=h4sh&type=email",
                "/auth/v1/verify?token_hash=[redacted]&type=email",
            ),
            (
                "/auth/v1/callback?code=c0de&state=s",
                "/auth/v1/callback?code=[redacted]&state=s",
            ),
            (
                "/auth/v1/token?grant_type=refresh_token&refresh_token=r3fresh",
                "/auth/v1/token?grant_type=refresh_token&refresh_token=[redacted]",
            ),
            (
                "/realtime/v1/websocket?apikey=eyJ.x.y&vsn=1.0.0",
                "/realtime/v1/websocket?apikey=[redacted]&vsn=1.0.0",
            ),
            (
                "/storage/v1/object/sign/b/f.png?token=eyJ",
                "/storage/v1/object/sign/b/f.png?token=[redacted]",
            ),
            (
                "/rest/v1/t?access%5Ftoken=eq.x&select=id",
                "/rest/v1/t?access%5Ftoken=[redacted]&select=id",
            ),
            (
                "/rest/v1/t?or=(token.eq.s3cret,note.eq.seen)",
                "/rest/v1/t?or=(token.eq.[redacted],note.eq.seen)",
            ),
            (
                "/rest/v1/t?items.or=(code.not.in.(a,b),and(note.eq.n,password.like.*pw*))",
                "/rest/v1/t?items.or=(code.not.in.[redacted],and(note.eq.n,password.like.[redacted]))",
            ),
            (
                "/rest/v1/t?or=(note.eq.seen)",
                "/rest/v1/t?or=(note.eq.seen)",
            ),
            ("/rest/v1/t?select=id&flag", "/rest/v1/t?select=id&flag"),
            ("/rest/v1/t", "/rest/v1/t"),
        ];
        for (url, want) in cases {
            let query = url.split_once('?').map_or("", |(_, q)| q);
            let r = Redactor::of(query, &HeaderMap::new());
            assert_eq!(r.url(url), want, "{url}");
        }
    }

    #[test]
    fn headers_lose_credentials_and_keep_their_shape() {
        let h = headers(&[
            ("authorization", "Bearer eyJhbGc.payload.sig"),
            ("apikey", "sb_publishable_abc"),
            ("cookie", "sb-access-token=tok1; theme=dark"),
            ("x-custom-token", "t0k"),
            ("x-note", "visible"),
            ("accept", "a"),
            ("accept", "b"),
        ]);
        let r = Redactor::of("", &h);
        assert_eq!(
            r.headers(&h),
            serde_json::json!({
                "authorization": "Bearer [redacted]",
                "apikey": "[redacted]",
                "cookie": "sb-access-token=[redacted]; theme=[redacted]",
                "x-custom-token": "[redacted]",
                "x-note": "visible",
                "accept": "a, b",
            })
        );
        // The credentials are known secrets: text that repeats one is blanked.
        assert_eq!(
            r.text("token eyJhbGc.payload.sig used"),
            "token [redacted] used"
        );
    }

    #[test]
    fn parameters_lose_secrets_by_column_key_and_value() {
        let p = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        // (query string, SQL, parameters, shown)
        let cases: Vec<(&str, &str, Vec<String>, Vec<&str>)> = vec![
            (
                "token=eq.s3cret&note=eq.seen",
                r#"SELECT 1 FROM "public"."t" AS "t" WHERE "t"."token" = $1 AND "t"."note" = $2 LIMIT $3"#,
                p(&["s3cret", "seen", "10"]),
                vec!["[redacted]", "seen", "10"],
            ),
            (
                "code=in.(a1,b2)",
                r#"WHERE "t"."code" = ANY($1) AND "t"."id" IS DISTINCT FROM $2"#,
                p(&["{\"a1\",\"b2\"}", "7"]),
                vec!["[redacted]", "7"],
            ),
            (
                "",
                r#"WHERE "t"."data"->>$1::text = $2 AND "t"."data"->>$3::text = $4"#,
                p(&["token", "tok-value", "kind", "visible"]),
                vec!["token", "[redacted]", "kind", "visible"],
            ),
            (
                "",
                r#"WHERE "t"."secret_words" @@ to_tsquery($1::regconfig, $2) AND "t"."body" @@ plainto_tsquery($3)"#,
                p(&["english", "hidden", "shown"]),
                vec!["english", "[redacted]", "shown"],
            ),
            (
                "",
                r#"INSERT INTO "public"."t" SELECT * FROM json_to_recordset($1::json) AS pgrst_body("token" text)"#,
                p(&[r#"[{"token":"tok-1","note":"n1","nested":{"password":"pw-22"}}]"#]),
                vec![r#"[{"token":"[redacted]","note":"n1","nested":{"password":"[redacted]"}}]"#],
            ),
            (
                "p_code=c0d3x",
                r#"SELECT "public"."f"(p_code := pgrst_args."p_code") FROM json_to_record($1::json) AS pgrst_args("p_code" text)"#,
                p(&[r#"{"p_code":"c0d3x"}"#]),
                vec![r#"{"p_code":"[redacted]"}"#],
            ),
            (
                "token=eq.s3cret",
                "SELECT supagate.explain($1::text, $2::text)",
                p(&[r#"SELECT 1 WHERE "t"."token" = $1"#, r#"["s3cret"]"#]),
                vec![r#"SELECT 1 WHERE "t"."token" = $1"#, r#"["[redacted]"]"#],
            ),
            (
                "",
                r#"WHERE "t"."a" = $1 AND "t"."code"::text = $2 AND "t"."b"::text = $3"#,
                p(&["1", "c-2", "3"]),
                vec!["1", "[redacted]", "3"],
            ),
            (
                "",
                r#"SELECT 'a "token" = $1' , "t"."id" = $1"#,
                p(&["5"]),
                vec!["5"],
            ),
        ];
        for (query, sql, params, want) in cases {
            let mut r = Redactor::of(query, &HeaderMap::new());
            assert_eq!(r.params(sql, &params), want, "{sql}");
        }
    }

    #[test]
    fn an_error_message_loses_the_secrets_found_anywhere() {
        let mut r = Redactor::of("token=eq.not-a-uuid", &HeaderMap::new());
        assert_eq!(
            r.text(r#"invalid input syntax for type uuid: "not-a-uuid""#),
            r#"invalid input syntax for type uuid: "[redacted]""#
        );
        r.params(
            "SELECT * FROM json_to_recordset($1::json)",
            &[r#"[{"password":"hunter22"}]"#.to_string()],
        );
        assert_eq!(
            r.text("value too long: hunter22"),
            "value too long: [redacted]"
        );
        // Short values are blanked where they stand alone, not inside other text.
        let r = Redactor::of("code=12", &HeaderMap::new());
        assert_eq!(r.text("12"), "[redacted]");
        assert_eq!(r.text("row 12 of 120"), "row 12 of 120");
    }
}
