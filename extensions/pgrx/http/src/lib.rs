//! supagate's http 1.6: pramsey/pgsql-http's SQL surface (`http--1.6.sql` beside this crate)
//! with the requests made by `http_core` instead of libcurl, synchronously in the backend, as
//! pgsql-http does. What pgsql-http reads from curl is kept: the connect timeout of 1 s and the
//! request timeout of 5 s (`http.timeout_msec` or `CURLOPT_TIMEOUT[_MS]` change it), up to 5
//! redirects (none for HEAD), gzip and deflate, the `Charsets` and `Connection` headers, the
//! response headers of every hop, the body converted from the charset its content type names
//! (else kept byte for byte, so `text_to_bytea(content)` gives binary bodies back), and its
//! error texts. A query cancel or `statement_timeout` interrupts a request.
//!
//! Where requests may go is pg_net's rule (`http_core::reach`), set by two settings only a
//! superuser can change, which supagate passes when it starts the cluster:
//! `http.supagate_allow_local` (off: this machine's own and link-local addresses are refused,
//! on every connection and redirect) and `http.supagate_api_port` (the project's API, reachable
//! on loopback all the same).
//!
//! `unsafe` here is PostgreSQL's C interface: composite values are taken apart and made with
//! `heap_deform_tuple`/`heap_form_tuple`, jsonb is walked with its iterator, as pgsql-http does.

use http_core::client::{self, ClientCert, IpResolve, Kept, Options, Request};
use http_core::reach::Reach;
use http_core::url::Url;
use pgrx::prelude::*;
use pgrx::{GucContext, GucFlags, GucRegistry, GucSetting, PgSqlErrorCode, PgTupleDesc};
use std::cell::RefCell;
use std::ffi::{CStr, CString};
use std::time::Duration;

pg_module_magic!();

static KEEPALIVE: GucSetting<bool> = GucSetting::<bool>::new(false);
static TIMEOUT_MSEC: GucSetting<i32> = GucSetting::<i32>::new(0);
static ALLOW_LOCAL: GucSetting<bool> = GucSetting::<bool>::new(false);
static API_PORT: GucSetting<i32> = GucSetting::<i32>::new(0);

/// The largest answer read (before and after decoding).
const MAX_BODY: usize = 64 << 20;

#[pg_guard]
pub extern "C-unwind" fn _PG_init() {
    let not_in_sample = GucFlags::from_bits_retain(pg_sys::GUC_NOT_IN_SAMPLE as i32);
    GucRegistry::define_bool_guc(
        c"http.keepalive",
        c"reuse existing connections with keepalive",
        c"",
        &KEEPALIVE,
        GucContext::Userset,
        not_in_sample,
    );
    GucRegistry::define_int_guc(
        c"http.timeout_msec",
        c"request completion timeout in milliseconds",
        c"",
        &TIMEOUT_MSEC,
        0,
        i32::MAX,
        GucContext::Userset,
        not_in_sample | GucFlags::UNIT_MS,
    );
    GucRegistry::define_bool_guc(
        c"http.supagate_allow_local",
        c"requests may reach this machine's own and link-local addresses",
        c"Set by supagate from --net-local (SUPAGATE_NET_LOCAL); only a superuser may change it.",
        &ALLOW_LOCAL,
        GucContext::Suset,
        not_in_sample,
    );
    GucRegistry::define_int_guc(
        c"http.supagate_api_port",
        c"the project's API port on loopback, reachable even when local requests are refused",
        c"Set by supagate; 0: none. Only a superuser may change it.",
        &API_PORT,
        0,
        65535,
        GucContext::Suset,
        not_in_sample,
    );
}

/// How a curl option's value is read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Long,
    Text,
}

/// Whether supagate's http honours a curl option.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Support {
    Yes,
    /// It names a file on the database server: superusers only.
    ServerFile,
    No,
}

/// The options pgsql-http 1.6 lets a session set, in its order (a later one of the same
/// setting, `CURLOPT_TIMEOUT_MS` after `CURLOPT_TIMEOUT`, wins as in curl).
const CURLOPTS: &[(&str, Kind, Support)] = &[
    ("CURLOPT_CAINFO", Kind::Text, Support::ServerFile),
    ("CURLOPT_TIMEOUT", Kind::Long, Support::Yes),
    ("CURLOPT_TIMEOUT_MS", Kind::Long, Support::Yes),
    ("CURLOPT_CONNECTTIMEOUT", Kind::Long, Support::Yes),
    ("CURLOPT_CONNECTTIMEOUT_MS", Kind::Long, Support::Yes),
    ("CURLOPT_USERAGENT", Kind::Text, Support::Yes),
    ("CURLOPT_USERPWD", Kind::Text, Support::Yes),
    ("CURLOPT_IPRESOLVE", Kind::Long, Support::Yes),
    ("CURLOPT_SSLCERTTYPE", Kind::Text, Support::Yes),
    ("CURLOPT_PROXY", Kind::Text, Support::No),
    ("CURLOPT_PROXYPORT", Kind::Long, Support::No),
    ("CURLOPT_PROXYUSERNAME", Kind::Text, Support::No),
    ("CURLOPT_PROXYPASSWORD", Kind::Text, Support::No),
    ("CURLOPT_TLSAUTH_USERNAME", Kind::Text, Support::No),
    ("CURLOPT_TLSAUTH_PASSWORD", Kind::Text, Support::No),
    ("CURLOPT_TLSAUTH_TYPE", Kind::Text, Support::No),
    ("CURLOPT_DNS_SERVERS", Kind::Text, Support::No),
    ("CURLOPT_TCP_KEEPALIVE", Kind::Long, Support::Yes),
    ("CURLOPT_TCP_KEEPIDLE", Kind::Long, Support::Yes),
    ("CURLOPT_SSL_VERIFYHOST", Kind::Long, Support::Yes),
    ("CURLOPT_SSL_VERIFYPEER", Kind::Long, Support::Yes),
    ("CURLOPT_SSLCERT", Kind::Text, Support::ServerFile),
    ("CURLOPT_SSLKEY", Kind::Text, Support::ServerFile),
    ("CURLOPT_PRE_PROXY", Kind::Text, Support::No),
    ("CURLOPT_PROXY_CAINFO", Kind::Text, Support::No),
    ("CURLOPT_PROXY_TLSAUTH_USERNAME", Kind::Text, Support::No),
    ("CURLOPT_PROXY_TLSAUTH_PASSWORD", Kind::Text, Support::No),
    ("CURLOPT_PROXY_TLSAUTH_TYPE", Kind::Text, Support::No),
    ("CURLOPT_SSLKEY_BLOB", Kind::Text, Support::Yes),
    ("CURLOPT_SSLCERT_BLOB", Kind::Text, Support::Yes),
];

thread_local! {
    /// The session's curl options (values by CURLOPTS index), as pgsql-http keeps them.
    static SET: RefCell<Vec<Option<String>>> = RefCell::new(vec![None; CURLOPTS.len()]);
    /// The connection kept for the next request when `http.keepalive` is on.
    static KEPT: RefCell<Option<Kept>> = const { RefCell::new(None) };
}

/// An error with curl's words, as pgsql-http raises it.
fn curl_error(message: &str) -> ! {
    ereport!(
        ERROR,
        PgSqlErrorCode::ERRCODE_INTERNAL_ERROR,
        message.to_string()
    );
}

/// A curl option's value as an integer (pgsql-http's `strtol` check).
fn long_value(name: &str, value: &str) -> i64 {
    value
        .trim()
        .parse::<i64>()
        .unwrap_or_else(|_| error!("invalid integer provided for '{name}'"))
}

#[pg_extern]
fn http_set_curlopt(curlopt: Option<&str>, value: Option<&str>) -> bool {
    let (Some(curlopt), Some(value)) = (curlopt, value) else {
        return false;
    };
    let Some(i) = CURLOPTS
        .iter()
        .position(|(n, _, _)| n.eq_ignore_ascii_case(curlopt))
    else {
        error!("curl option '{curlopt}' is not available for run-time configuration");
    };
    let (name, kind, support) = CURLOPTS[i];
    match support {
        Support::Yes => {}
        Support::ServerFile => {
            // SAFETY: a plain catalog check of the current user.
            if !unsafe { pg_sys::superuser() } {
                error!(
                    "curl option '{name}' names a file on the database server: only a superuser \
                     may set it (use CURLOPT_SSLCERT_BLOB and CURLOPT_SSLKEY_BLOB for client \
                     certificates)"
                );
            }
        }
        Support::No => error!(
            "curl option '{name}' is not supported by supagate's http extension (requests are \
             made directly, without a proxy, DNS servers of their own or TLS-SRP)"
        ),
    }
    if kind == Kind::Long {
        let v = long_value(name, value);
        let valid = match name {
            "CURLOPT_IPRESOLVE" => (0..=2).contains(&v),
            "CURLOPT_SSL_VERIFYHOST" => (0..=2).contains(&v),
            _ => v >= 0 && v <= i64::from(i32::MAX),
        };
        if !valid {
            curl_error("A libcurl function was given a bad argument");
        }
    }
    if name == "CURLOPT_SSLCERTTYPE"
        && !["PEM", "DER"].contains(&value.to_ascii_uppercase().as_str())
    {
        curl_error("A libcurl function was given a bad argument");
    }
    SET.with(|s| s.borrow_mut()[i] = Some(value.to_string()));
    true
}

#[pg_extern]
fn http_reset_curlopt() -> bool {
    SET.with(|s| s.borrow_mut().iter_mut().for_each(|v| *v = None));
    KEPT.with(|k| k.borrow_mut().take());
    true
}

#[pg_extern]
fn http_list_curlopt() -> TableIterator<'static, (name!(curlopt, String), name!(value, String))> {
    let rows: Vec<(String, String)> = SET.with(|s| {
        s.borrow()
            .iter()
            .enumerate()
            .filter_map(|(i, v)| v.as_ref().map(|v| (CURLOPTS[i].0.to_string(), v.clone())))
            .collect()
    });
    TableIterator::new(rows)
}

/// A file named by a curl option, read as the server.
fn server_file(name: &str, path: &str) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| {
        curl_error(&format!(
            "error reading the file {path:?} named by {name}: {e}"
        ))
    })
}

/// The request options from the session's curl options and settings.
fn options() -> Options {
    let set = SET.with(|s| s.borrow().clone());
    let get = |name: &str| {
        CURLOPTS
            .iter()
            .position(|(n, _, _)| *n == name)
            .and_then(|i| set[i].clone())
    };
    let mut o = Options {
        user_agent: pg_sys::PG_VERSION_STR.to_string_lossy().into_owned(),
        max_body: MAX_BODY,
        keepalive: KEEPALIVE.get(),
        ..Options::default()
    };
    for (i, (name, kind, _)) in CURLOPTS.iter().enumerate() {
        let Some(value) = &set[i] else { continue };
        let long = || {
            if *kind == Kind::Long {
                long_value(name, value)
            } else {
                0
            }
        };
        let ms = |v: i64| Duration::from_millis(v as u64);
        match *name {
            "CURLOPT_TIMEOUT" => o.timeout = (long() > 0).then(|| ms(long() * 1000)),
            "CURLOPT_TIMEOUT_MS" => o.timeout = (long() > 0).then(|| ms(long())),
            // 0: curl's default connect timeout, 300 s.
            "CURLOPT_CONNECTTIMEOUT" => {
                o.connect_timeout = if long() > 0 {
                    ms(long() * 1000)
                } else {
                    ms(300_000)
                }
            }
            "CURLOPT_CONNECTTIMEOUT_MS" => {
                o.connect_timeout = if long() > 0 { ms(long()) } else { ms(300_000) }
            }
            "CURLOPT_USERAGENT" => o.user_agent = value.clone(),
            "CURLOPT_USERPWD" => o.userpwd = Some(value.clone()),
            "CURLOPT_IPRESOLVE" => {
                o.ip_resolve = match long() {
                    1 => IpResolve::V4,
                    2 => IpResolve::V6,
                    _ => IpResolve::Whatever,
                }
            }
            "CURLOPT_SSL_VERIFYHOST" => o.verify_host = long() != 0,
            "CURLOPT_SSL_VERIFYPEER" => o.verify_peer = long() != 0,
            "CURLOPT_CAINFO" => o.ca_certs = Some(server_file(name, value)),
            "CURLOPT_TCP_KEEPALIVE" if long() != 0 => {
                let idle = get("CURLOPT_TCP_KEEPIDLE")
                    .map(|v| long_value("CURLOPT_TCP_KEEPIDLE", &v))
                    .filter(|v| *v > 0)
                    .unwrap_or(60);
                o.tcp_keepalive = Some(ms(idle * 1000));
            }
            _ => {}
        }
    }
    let der = get("CURLOPT_SSLCERTTYPE").is_some_and(|t| t.eq_ignore_ascii_case("DER"));
    let cert = get("CURLOPT_SSLCERT_BLOB")
        .map(String::into_bytes)
        .or_else(|| get("CURLOPT_SSLCERT").map(|p| server_file("CURLOPT_SSLCERT", &p)));
    let key = get("CURLOPT_SSLKEY_BLOB")
        .map(String::into_bytes)
        .or_else(|| get("CURLOPT_SSLKEY").map(|p| server_file("CURLOPT_SSLKEY", &p)));
    if let Some(cert) = cert {
        let key = key.unwrap_or_else(|| cert.clone());
        o.client_cert = Some(ClientCert { cert, key, der });
    }
    let timeout_msec = TIMEOUT_MSEC.get();
    if timeout_msec > 0 {
        o.timeout = Some(Duration::from_millis(timeout_msec as u64));
    }
    o
}

fn reach() -> Reach {
    let port = API_PORT.get();
    Reach {
        local: ALLOW_LOCAL.get(),
        api_port: (port > 0).then_some(port as u16),
    }
}

/// The bytes of a text (or any varlena) datum.
///
/// # Safety
/// `d` must be a non-null varlena datum.
unsafe fn varlena_bytes(d: pg_sys::Datum) -> Vec<u8> {
    unsafe {
        let v = pg_sys::pg_detoast_datum_packed(d.cast_mut_ptr());
        let len = pgrx::varlena::varsize_any_exhdr(v);
        let data = pgrx::varlena::vardata_any(v) as *const u8;
        std::slice::from_raw_parts(data, len).to_vec()
    }
}

/// A composite datum's fields (None for NULL).
///
/// # Safety
/// `d` must be a non-null composite datum.
unsafe fn fields(d: pg_sys::Datum) -> Vec<Option<pg_sys::Datum>> {
    unsafe {
        let rec = pg_sys::pg_detoast_datum(d.cast_mut_ptr()) as pg_sys::HeapTupleHeader;
        let typid = (*rec).t_choice.t_datum.datum_typeid;
        let typmod = (*rec).t_choice.t_datum.datum_typmod;
        let desc = PgTupleDesc::from_pg(pg_sys::lookup_rowtype_tupdesc(typid, typmod));
        let n = desc.len();
        let mut tuple = pg_sys::HeapTupleData {
            t_len: (*rec).t_choice.t_datum.datum_len_ as u32,
            t_self: pg_sys::ItemPointerData::default(),
            t_tableOid: pg_sys::InvalidOid,
            t_data: rec,
        };
        let mut values = vec![pg_sys::Datum::from(0usize); n];
        let mut nulls = vec![false; n];
        pg_sys::heap_deform_tuple(
            &mut tuple,
            desc.as_ptr(),
            values.as_mut_ptr(),
            nulls.as_mut_ptr(),
        );
        values
            .into_iter()
            .zip(nulls)
            .map(|(v, null)| (!null).then_some(v))
            .collect()
    }
}

/// The elements of an array datum (None for NULL elements).
///
/// # Safety
/// `d` must be a non-null array datum of a composite type.
unsafe fn array_elements(d: pg_sys::Datum) -> Vec<Option<pg_sys::Datum>> {
    unsafe {
        let arr = pg_sys::pg_detoast_datum(d.cast_mut_ptr()) as *mut pg_sys::ArrayType;
        let elem = (*arr).elemtype;
        let (mut len, mut byval, mut align) = (0i16, false, 0 as std::ffi::c_char);
        pg_sys::get_typlenbyvalalign(elem, &mut len, &mut byval, &mut align);
        let mut values: *mut pg_sys::Datum = std::ptr::null_mut();
        let mut nulls: *mut bool = std::ptr::null_mut();
        let mut n = 0;
        pg_sys::deconstruct_array(
            arr,
            elem,
            len.into(),
            byval,
            align,
            &mut values,
            &mut nulls,
            &mut n,
        );
        (0..n as usize)
            .map(|i| (!*nulls.add(i)).then(|| *values.add(i)))
            .collect()
    }
}

/// pgsql-http's request headers: NULL elements and fields skipped, `Content-Type` (and an
/// empty name) refused with a notice, a NULL value sent empty.
///
/// # Safety
/// `d` must be a non-null `http_header[]` datum.
unsafe fn request_headers(d: pg_sys::Datum) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for element in unsafe { array_elements(d) }.into_iter().flatten() {
        let f = unsafe { fields(element) };
        let Some(Some(field)) = f.first() else {
            continue;
        };
        let field = String::from_utf8_lossy(&unsafe { varlena_bytes(*field) }).into_owned();
        if field.is_empty()
            || field
                .get(..12)
                .is_some_and(|p| p.eq_ignore_ascii_case("Content-Type"))
        {
            notice!("'Content-Type' is not supported as an optional header");
            continue;
        }
        let value = match f.get(1) {
            Some(Some(v)) => String::from_utf8_lossy(&unsafe { varlena_bytes(*v) }).into_owned(),
            _ => String::new(),
        };
        out.push((field, value));
    }
    out
}

/// The PostgreSQL encoding a content type's `charset=` names, as pgsql-http finds it.
fn content_charset(content_type: &str) -> Option<i32> {
    let charset = content_type.split(';').skip(1).find_map(|p| {
        let p = p.trim().to_ascii_lowercase();
        p.strip_prefix("charset=")
            .map(|c| c.trim_matches('"').to_string())
    })?;
    let c = CString::new(charset).ok()?;
    // SAFETY: a NUL-terminated name. (PostgreSQL 17 names the function pg_char_to_encoding_private,
    // the old name a macro for it.)
    #[cfg(not(any(feature = "pg17", feature = "pg18")))]
    let encoding = unsafe { pg_sys::pg_char_to_encoding(c.as_ptr()) };
    #[cfg(any(feature = "pg17", feature = "pg18"))]
    let encoding = unsafe { pg_sys::pg_char_to_encoding_private(c.as_ptr()) };
    (encoding >= 0).then_some(encoding)
}

/// The body as server text: converted from the charset its content type names (checked as
/// PostgreSQL checks text in that encoding), else the bytes as they came.
fn content_datum(body: &[u8], content_type: Option<&str>) -> pg_sys::Datum {
    // SAFETY: pointers and lengths of `body`, which outlives the calls; the results are
    // palloc'd by PostgreSQL.
    unsafe {
        if let Some(encoding) = content_type.and_then(content_charset) {
            let converted = pg_sys::pg_any_to_server(
                body.as_ptr() as *const std::ffi::c_char,
                body.len() as i32,
                encoding,
            );
            let len = if converted as *const u8 == body.as_ptr() {
                body.iter().position(|b| *b == 0).unwrap_or(body.len())
            } else {
                CStr::from_ptr(converted).to_bytes().len()
            };
            return pg_sys::Datum::from(pg_sys::cstring_to_text_with_len(converted, len as i32));
        }
        pg_sys::Datum::from(pg_sys::cstring_to_text_with_len(
            body.as_ptr() as *const std::ffi::c_char,
            body.len() as i32,
        ))
    }
}

fn text_datum(s: &str) -> pg_sys::Datum {
    // SAFETY: a pointer and length of `s`; the text is palloc'd.
    unsafe {
        pg_sys::Datum::from(pg_sys::cstring_to_text_with_len(
            s.as_ptr() as *const std::ffi::c_char,
            s.len() as i32,
        ))
    }
}

#[unsafe(no_mangle)]
#[doc(hidden)]
pub extern "C" fn pg_finfo_http_request() -> &'static pg_sys::Pg_finfo_record {
    const V1: pg_sys::Pg_finfo_record = pg_sys::Pg_finfo_record { api_version: 1 };
    &V1
}

/// `http(http_request) returns http_response`.
///
/// # Safety
/// Called by PostgreSQL through the fmgr interface with one `http_request` argument.
#[pg_guard]
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn http_request(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    unsafe {
        let arg = (*fcinfo).args.as_slice(1)[0];
        if arg.isnull {
            error!("An http_request must be provided");
        }
        let f = fields(arg.value);
        let text = |i: usize| f.get(i).copied().flatten().map(|d| varlena_bytes(d));
        let Some(uri) = text(1) else {
            error!("http_request.uri is NULL")
        };
        let Some(method) = text(0) else {
            error!("http_request.method is NULL")
        };
        let method = String::from_utf8_lossy(&method).into_owned();
        let uri = String::from_utf8_lossy(&uri).into_owned();
        let headers = match f.get(2).copied().flatten() {
            Some(d) => request_headers(d),
            None => Vec::new(),
        };
        let upper = method.to_ascii_uppercase();
        let body = match text(4) {
            Some(content) => {
                let Some(content_type) = text(3) else {
                    error!("http_request.content_type is NULL")
                };
                if upper == "HEAD" {
                    error!("illegal HTTP method");
                }
                Some((content, String::from_utf8_lossy(&content_type).into_owned()))
            }
            None if upper == "PUT" || upper == "POST" => error!("http_request.content is NULL"),
            None => None,
        };
        let url = Url::parse(&uri).unwrap_or_else(|e| curl_error(&e.to_string()));
        let request = Request {
            method,
            url,
            headers,
            body,
        };
        let options = options();
        let reach = reach();
        let mut kept = KEPT.with(|k| k.borrow_mut().take());
        let result = client::perform(
            &request,
            &options,
            reach,
            &mut kept,
            &client::system_resolve,
            &mut || {
                pgrx::check_for_interrupts!();
            },
        );
        KEPT.with(|k| *k.borrow_mut() = kept);
        let response = result.unwrap_or_else(|e| curl_error(&e.to_string()));

        let mut desc: pg_sys::TupleDesc = std::ptr::null_mut();
        if pg_sys::get_call_result_type(fcinfo, std::ptr::null_mut(), &mut desc)
            != pg_sys::TypeFuncClass::TYPEFUNC_COMPOSITE
        {
            ereport!(
                ERROR,
                PgSqlErrorCode::ERRCODE_FEATURE_NOT_SUPPORTED,
                "http_request called with incompatible return type"
            );
        }
        let desc = pg_sys::BlessTupleDesc(desc);
        let header_type = {
            let d = PgTupleDesc::from_pg_unchecked(desc);
            let array_type = d.get(2).map(|a| a.atttypid).unwrap_or(pg_sys::InvalidOid);
            pg_sys::get_element_type(array_type)
        };
        let header_desc = PgTupleDesc::from_pg(pg_sys::lookup_rowtype_tupdesc(header_type, -1));
        let mut elements: Vec<pg_sys::Datum> = response
            .headers
            .iter()
            .map(|(name, value)| {
                let mut values = [text_datum(name), text_datum(value)];
                let mut nulls = [false, false];
                let t = pg_sys::heap_form_tuple(
                    header_desc.as_ptr(),
                    values.as_mut_ptr(),
                    nulls.as_mut_ptr(),
                );
                pg_sys::HeapTupleHeaderGetDatum((*t).t_data)
            })
            .collect();
        let (mut len, mut byval, mut align) = (0i16, false, 0 as std::ffi::c_char);
        pg_sys::get_typlenbyvalalign(header_type, &mut len, &mut byval, &mut align);
        let headers = pg_sys::construct_array(
            elements.as_mut_ptr(),
            elements.len() as i32,
            header_type,
            len.into(),
            byval,
            align,
        );
        let mut values = [
            pg_sys::Datum::from(i32::from(response.status)),
            response
                .content_type
                .as_deref()
                .map(text_datum)
                .unwrap_or(pg_sys::Datum::from(0usize)),
            pg_sys::Datum::from(headers),
            if response.body.is_empty() {
                pg_sys::Datum::from(0usize)
            } else {
                content_datum(&response.body, response.content_type.as_deref())
            },
        ];
        let mut nulls = [
            false,
            response.content_type.is_none(),
            false,
            response.body.is_empty(),
        ];
        let tuple = pg_sys::heap_form_tuple(desc, values.as_mut_ptr(), nulls.as_mut_ptr());
        pg_sys::HeapTupleHeaderGetDatum((*tuple).t_data)
    }
}

#[pg_extern(immutable, strict)]
fn urlencode(string: &[u8]) -> String {
    http_core::urlencode(string)
}

#[unsafe(no_mangle)]
#[doc(hidden)]
pub extern "C" fn pg_finfo_urlencode_jsonb() -> &'static pg_sys::Pg_finfo_record {
    const V1: pg_sys::Pg_finfo_record = pg_sys::Pg_finfo_record { api_version: 1 };
    &V1
}

/// `urlencode(jsonb)`: the top-level object's scalar members as `key=value&…`, in jsonb's
/// order, numbers as `numeric_normalize` writes them, null as empty, nested values skipped,
/// empty keys skipped; NULL when nothing is left.
///
/// # Safety
/// Called by PostgreSQL through the fmgr interface with one non-null jsonb argument (STRICT).
#[pg_guard]
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn urlencode_jsonb(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    unsafe {
        let arg = (*fcinfo).args.as_slice(1)[0];
        let jb = pg_sys::pg_detoast_datum(arg.value.cast_mut_ptr()) as *mut pg_sys::Jsonb;
        if (*jb).root.header & pg_sys::JB_FOBJECT == 0 {
            ereport!(
                ERROR,
                PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
                "cannot call urlencode_jsonb on a non-object"
            );
        }
        let mut it = pg_sys::JsonbIteratorInit(&mut (*jb).root);
        let mut v: pg_sys::JsonbValue = std::mem::zeroed();
        let mut out = String::new();
        let mut skip_nested = false;
        loop {
            let token = pg_sys::JsonbIteratorNext(&mut it, &mut v, skip_nested);
            skip_nested = true;
            if token == pg_sys::JsonbIteratorToken::WJB_DONE {
                break;
            }
            if token != pg_sys::JsonbIteratorToken::WJB_KEY || v.val.string.len == 0 {
                continue;
            }
            let key = std::slice::from_raw_parts(
                v.val.string.val as *const u8,
                v.val.string.len as usize,
            )
            .to_vec();
            pg_sys::JsonbIteratorNext(&mut it, &mut v, true);
            let value: Vec<u8> = match v.type_ {
                pg_sys::jbvType::jbvString => std::slice::from_raw_parts(
                    v.val.string.val as *const u8,
                    v.val.string.len as usize,
                )
                .to_vec(),
                pg_sys::jbvType::jbvNumeric => {
                    CStr::from_ptr(pg_sys::numeric_normalize(v.val.numeric))
                        .to_bytes()
                        .to_vec()
                }
                pg_sys::jbvType::jbvBool => {
                    if v.val.boolean {
                        b"true".to_vec()
                    } else {
                        b"false".to_vec()
                    }
                }
                pg_sys::jbvType::jbvNull => Vec::new(),
                _ => continue,
            };
            if !out.is_empty() {
                out.push('&');
            }
            out.push_str(&http_core::urlencode(&key));
            out.push('=');
            out.push_str(&http_core::urlencode(&value));
        }
        if out.is_empty() {
            (*fcinfo).isnull = true;
            return pg_sys::Datum::from(0usize);
        }
        text_datum(&out)
    }
}

#[pg_extern(immutable, strict)]
fn text_to_bytea(data: &[u8]) -> Vec<u8> {
    data.to_vec()
}

/// The bytes as text, unchecked, as pgsql-http's `bytea_to_text` (its inverse is
/// `text_to_bytea`): the SQL declares it `RETURNS TEXT`; a bytea and a text are the same varlena.
#[pg_extern(immutable, strict)]
fn bytea_to_text(data: &[u8]) -> Vec<u8> {
    data.to_vec()
}
