//! One request as pgsql-http makes it with libcurl: HTTP/1.1 over TCP, or TLS (rustls, the
//! system's trust store), redirects followed (at most 5, not for HEAD), gzip and deflate
//! answers decoded, the connection closed after the answer unless keep-alive is asked for.
//! Every connection is checked against the [`Reach`] rule first. Time is bounded by the
//! connect timeout (resolution excepted: the system's resolver has its own) and the request's
//! overall timeout; the socket is waited on in slices of at most 100 ms, between which the
//! caller's `interrupt` runs (PostgreSQL's query cancel). An answer's headers and body are
//! bounded.

use crate::Error;
use crate::reach::{self, REFUSED, Reach};
use crate::url::{Host, Url};
use base64::Engine as _;
use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use std::io::{self, Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream, ToSocketAddrs as _};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// At most this many redirects are followed (pgsql-http's `CURLOPT_MAXREDIRS`).
pub const MAX_REDIRECTS: usize = 5;
/// The largest header section an answer may have.
const MAX_HEAD: usize = 256 * 1024;
/// The longest wait on the socket between two calls of `interrupt`.
const SLICE: Duration = Duration::from_millis(100);

/// Which address family names are resolved to (`CURLOPT_IPRESOLVE`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum IpResolve {
    #[default]
    Whatever,
    V4,
    V6,
}

/// A client certificate and its key, PEM or DER (`CURLOPT_SSLCERT[_BLOB]`, `CURLOPT_SSLKEY[_BLOB]`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ClientCert {
    pub cert: Vec<u8>,
    pub key: Vec<u8>,
    pub der: bool,
}

/// How requests are made (curl's options, as pgsql-http sets them).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Options {
    /// The whole request, redirects included (None: no limit).
    pub timeout: Option<Duration>,
    /// Connecting and the TLS handshake, per connection.
    pub connect_timeout: Duration,
    /// The `User-Agent` (none when empty).
    pub user_agent: String,
    /// `user:password` for basic authentication.
    pub userpwd: Option<String>,
    pub ip_resolve: IpResolve,
    /// The server's certificate is checked against the trust store.
    pub verify_peer: bool,
    /// The server's certificate must name the host.
    pub verify_host: bool,
    /// A PEM file of trusted certificates instead of the system's.
    pub ca_certs: Option<Vec<u8>>,
    pub client_cert: Option<ClientCert>,
    /// TCP keep-alive probes after this idle time.
    pub tcp_keepalive: Option<Duration>,
    /// Keep the connection open for the next request (`http.keepalive`).
    pub keepalive: bool,
    /// The largest body an answer may have, before and after decoding.
    pub max_body: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            timeout: Some(Duration::from_millis(5000)),
            connect_timeout: Duration::from_millis(1000),
            user_agent: String::new(),
            userpwd: None,
            ip_resolve: IpResolve::Whatever,
            verify_peer: true,
            verify_host: true,
            ca_certs: None,
            client_cert: None,
            tcp_keepalive: None,
            keepalive: false,
            max_body: 64 << 20,
        }
    }
}

/// A request as pgsql-http's `http_request` has it.
#[derive(Clone, Debug)]
pub struct Request {
    /// The method as written (sent uppercase when it is one curl knows, as written otherwise).
    pub method: String,
    pub url: Url,
    /// The caller's headers, in order.
    pub headers: Vec<(String, String)>,
    /// The body and its content type.
    pub body: Option<(Vec<u8>, String)>,
}

/// The answer: the last response's status and content type, the headers of every response
/// on the way (as curl hands them to pgsql-http), and the last response's body.
#[derive(Clone, Debug, Default)]
pub struct Response {
    pub status: u16,
    pub content_type: Option<String>,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

/// The connection kept between requests when keep-alive is on (one per session).
pub struct Kept {
    key: ConnKey,
    conn: Conn,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct ConnKey {
    https: bool,
    host: Host,
    port: u16,
    reach: Reach,
    options: Options,
}

/// Resolves a name to its addresses (the system's resolver; tests give their own).
pub type Resolve<'a> = &'a dyn Fn(&str) -> io::Result<Vec<IpAddr>>;

/// The system's resolver.
pub fn system_resolve(name: &str) -> io::Result<Vec<IpAddr>> {
    Ok((name, 0).to_socket_addrs()?.map(|a| a.ip()).collect())
}

/// Makes `request`, following redirects, and reads the answer.
pub fn perform(
    request: &Request,
    options: &Options,
    reach: Reach,
    kept: &mut Option<Kept>,
    resolve: Resolve<'_>,
    interrupt: &mut dyn FnMut(),
) -> Result<Response, Error> {
    validate_headers(&request.headers)?;
    let start = Instant::now();
    let mut clock = Clock {
        start,
        deadline: options.timeout.map(|t| start + t),
        interrupt,
        received: 0,
    };
    let head_only = request.method.eq_ignore_ascii_case("HEAD");
    let mut url = request.url.clone();
    let mut method = wire_method(&request.method);
    let mut body = request.body.clone();
    let mut first_host = Some((url.host.clone(), url.port));
    let mut headers = Vec::new();
    let mut redirects = 0;
    loop {
        // The caller's Authorization, and basic credentials, go to the first host only.
        let same_host = first_host.as_ref() == Some(&(url.host.clone(), url.port));
        let answer = exchange(
            &Exchange {
                url: &url,
                method: &method,
                user_headers: &request.headers,
                body: body.as_ref(),
                credentials: same_host,
                head_only,
            },
            options,
            reach,
            kept,
            resolve,
            &mut clock,
        )?;
        headers.extend(answer.headers.iter().cloned());
        let location = answer
            .headers
            .iter()
            .rev()
            .find(|(n, _)| n.eq_ignore_ascii_case("location"))
            .map(|(_, v)| v.clone());
        match location {
            Some(location)
                if !head_only && matches!(answer.status, 301 | 302 | 303 | 307 | 308) =>
            {
                if redirects == MAX_REDIRECTS {
                    return Err(Error::new(format!(
                        "Maximum ({MAX_REDIRECTS}) redirects followed"
                    )));
                }
                redirects += 1;
                let next = url.join(&location)?;
                if matches!(answer.status, 301..=303) {
                    body = None;
                    if method == "POST" {
                        method = "GET".into();
                    }
                }
                if first_host.as_ref() != Some(&(next.host.clone(), next.port)) {
                    first_host = None;
                }
                url = next;
            }
            _ => {
                let content_type = answer
                    .headers
                    .iter()
                    .rev()
                    .find(|(n, _)| n.eq_ignore_ascii_case("content-type"))
                    .map(|(_, v)| v.clone());
                return Ok(Response {
                    status: answer.status,
                    content_type,
                    headers,
                    body: answer.body,
                });
            }
        }
    }
}

/// curl sends the methods it knows uppercase and any other as written.
fn wire_method(method: &str) -> String {
    let upper = method.to_ascii_uppercase();
    if ["GET", "POST", "PUT", "DELETE", "HEAD", "PATCH"].contains(&upper.as_str()) {
        upper
    } else {
        method.to_string()
    }
}

fn validate_headers(headers: &[(String, String)]) -> Result<(), Error> {
    for (name, value) in headers {
        if name.contains(['\r', '\n', ':']) || value.contains(['\r', '\n']) {
            return Err(Error::new(format!(
                "the request header {name:?} has a line break or a colon in its name, or a line \
                 break in its value"
            )));
        }
    }
    Ok(())
}

/// The overall deadline, the caller's interruption check and what has been received.
struct Clock<'a> {
    start: Instant,
    deadline: Option<Instant>,
    interrupt: &'a mut dyn FnMut(),
    received: usize,
}

impl Clock<'_> {
    fn elapsed_ms(&self) -> u128 {
        self.start.elapsed().as_millis()
    }

    fn timed_out(&self) -> Error {
        Error::new(format!(
            "Operation timed out after {} milliseconds with {} bytes received",
            self.elapsed_ms(),
            self.received
        ))
    }
}

struct Exchange<'a> {
    url: &'a Url,
    method: &'a str,
    user_headers: &'a [(String, String)],
    body: Option<&'a (Vec<u8>, String)>,
    credentials: bool,
    head_only: bool,
}

struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

fn exchange(
    x: &Exchange<'_>,
    options: &Options,
    reach: Reach,
    kept: &mut Option<Kept>,
    resolve: Resolve<'_>,
    clock: &mut Clock<'_>,
) -> Result<Answer, Error> {
    let key = ConnKey {
        https: x.url.https,
        host: x.url.host.clone(),
        port: x.url.port,
        reach,
        options: options.clone(),
    };
    let head = request_head(x, options);
    // A kept connection the server may have closed meanwhile: tried once, then a new one.
    let reused = match kept.take() {
        Some(k) if options.keepalive && k.key == key => Some(k.conn),
        _ => None,
    };
    if let Some(mut conn) = reused {
        match send_and_read(&mut conn, &head, x, options, clock) {
            Ok((answer, reusable)) => {
                if reusable && options.keepalive {
                    *kept = Some(Kept { key, conn });
                }
                return Ok(answer);
            }
            Err(Failure::Stale) => {}
            Err(Failure::Other(e)) => return Err(e),
        }
    }
    let mut conn = connect(x.url, options, reach, resolve, clock)?;
    match send_and_read(&mut conn, &head, x, options, clock) {
        Ok((answer, reusable)) => {
            if reusable && options.keepalive {
                *kept = Some(Kept { key, conn });
            }
            Ok(answer)
        }
        Err(Failure::Stale) => Err(Error::new("Empty reply from server")),
        Err(Failure::Other(e)) => Err(e),
    }
}

/// The request line and headers, as curl writes them for pgsql-http.
fn request_head(x: &Exchange<'_>, options: &Options) -> Vec<u8> {
    let mut list: Vec<(String, String)> = vec![
        (
            "Connection".into(),
            if options.keepalive {
                "Keep-Alive"
            } else {
                "close"
            }
            .into(),
        ),
        ("Charsets".into(), "utf-8".into()),
    ];
    let caller_auth = x
        .user_headers
        .iter()
        .any(|(n, _)| n.eq_ignore_ascii_case("authorization"));
    for (n, v) in x.user_headers {
        if n.eq_ignore_ascii_case("authorization") && !x.credentials {
            continue;
        }
        list.push((n.clone(), v.clone()));
    }
    if let Some((_, content_type)) = x.body {
        list.push(("Content-Type".into(), content_type.clone()));
    }
    let mut builtin: Vec<(String, String)> = vec![("Host".into(), x.url.host_header())];
    if x.credentials && !caller_auth {
        let userinfo = x
            .url
            .userinfo
            .as_deref()
            .map(percent_decode)
            .or_else(|| options.userpwd.clone());
        if let Some(up) = userinfo {
            let up = if up.contains(':') {
                up
            } else {
                format!("{up}:")
            };
            builtin.push((
                "Authorization".into(),
                format!(
                    "Basic {}",
                    base64::engine::general_purpose::STANDARD.encode(up)
                ),
            ));
        }
    }
    if !options.user_agent.is_empty() {
        builtin.push(("User-Agent".into(), options.user_agent.clone()));
    }
    builtin.push(("Accept".into(), "*/*".into()));
    builtin.push(("Accept-Encoding".into(), "deflate, gzip".into()));
    // A caller's header replaces curl's own of that name; one with no value removes it.
    builtin.retain(|(n, _)| !list.iter().any(|(m, _)| m.eq_ignore_ascii_case(n)));
    let mut out = format!("{} {} HTTP/1.1\r\n", x.method, x.url.target);
    for (n, v) in builtin.iter().chain(list.iter()) {
        if n.eq_ignore_ascii_case("content-length") || v.trim().is_empty() {
            continue;
        }
        out.push_str(&format!("{n}: {v}\r\n"));
    }
    if let Some((bytes, _)) = x.body {
        out.push_str(&format!("Content-Length: {}\r\n", bytes.len()));
    }
    out.push_str("\r\n");
    let mut bytes = out.into_bytes();
    if let Some((body, _)) = x.body {
        bytes.extend_from_slice(body);
    }
    bytes
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2]))
        {
            out.push(h * 16 + l);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// Why an exchange on a connection failed.
enum Failure {
    /// A kept connection the server had closed: nothing was answered.
    Stale,
    Other(Error),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::Other(e)
    }
}

/// Sends the request and reads the answer; whether the connection may be used again.
fn send_and_read(
    conn: &mut Conn,
    head: &[u8],
    x: &Exchange<'_>,
    options: &Options,
    clock: &mut Clock<'_>,
) -> Result<(Answer, bool), Failure> {
    let mut sent = 0;
    while sent < head.len() {
        match wait(conn, clock, None, |c| c.write(&head[sent..])) {
            Ok(0) => return Err(Failure::Stale),
            Ok(n) => sent += n,
            Err(Waited::Io(_)) if sent == 0 => return Err(Failure::Stale),
            Err(e) => {
                return Err(e
                    .into_error(clock, "Failed sending data to the peer")
                    .into());
            }
        }
    }
    wait(conn, clock, None, |c| c.flush())
        .map_err(|e| e.into_error(clock, "Failed sending data to the peer"))?;
    let mut reader = Reader {
        conn,
        buf: Vec::new(),
        pos: 0,
        eof: false,
    };
    let mut headers = Vec::new();
    let (status, version, fields) = loop {
        let (status, version, fields) = match reader.read_head(clock) {
            Ok(h) => h,
            Err(Failure::Stale) if reader.buf.is_empty() => return Err(Failure::Stale),
            Err(Failure::Stale) => {
                return Err(Failure::Other(Error::new("Weird server reply")));
            }
            Err(e) => return Err(e),
        };
        headers.extend(fields.iter().cloned());
        // Interim answers (100 Continue, 103 Early Hints): their headers are kept, as curl's.
        if (100..200).contains(&status) && status != 101 {
            continue;
        }
        break (status, version, fields);
    };
    let field = |name: &str| {
        fields
            .iter()
            .rev()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    };
    let connection = field("connection").unwrap_or("").to_ascii_lowercase();
    let mut reusable = if version == 0 {
        connection.contains("keep-alive")
    } else {
        !connection.contains("close")
    };
    let chunked = field("transfer-encoding")
        .map(|t| {
            t.rsplit(',')
                .next()
                .is_some_and(|last| last.trim().eq_ignore_ascii_case("chunked"))
        })
        .unwrap_or(false);
    let raw = if x.head_only || status == 204 || status == 304 {
        Vec::new()
    } else if chunked {
        let (body, trailers) = reader.read_chunked(options.max_body, clock)?;
        headers.extend(trailers);
        body
    } else if let Some(length) = field("content-length") {
        let length: u64 = length
            .trim()
            .parse()
            .map_err(|_| Error::new(format!("Invalid Content-Length: {length}")))?;
        if length > options.max_body as u64 {
            return Err(too_large(options.max_body).into());
        }
        reader.read_exact_body(length as usize, clock)?
    } else {
        reusable = false;
        reader.read_to_end(options.max_body, clock)?
    };
    let body = decode(field("content-encoding"), raw, options.max_body)?;
    Ok((
        Answer {
            status,
            headers,
            body,
        },
        reusable,
    ))
}

fn too_large(max: usize) -> Error {
    Error::new(format!(
        "Exceeded the maximum allowed file size ({max}): supagate's http reads answers of at \
         most {} MiB",
        max >> 20
    ))
}

/// The body as the server meant it: gzip and deflate undone, as curl does for pgsql-http.
fn decode(encoding: Option<&str>, raw: Vec<u8>, max: usize) -> Result<Vec<u8>, Error> {
    let encoding = encoding.unwrap_or("").trim().to_ascii_lowercase();
    if raw.is_empty() || encoding.is_empty() || encoding == "identity" {
        return Ok(raw);
    }
    let read_all = |mut r: Box<dyn Read + '_>| -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        (&mut r).take(max as u64 + 1).read_to_end(&mut out)?;
        Ok(out)
    };
    let out = match encoding.as_str() {
        "gzip" | "x-gzip" => read_all(Box::new(flate2::read::MultiGzDecoder::new(&raw[..]))),
        "deflate" => read_all(Box::new(flate2::read::ZlibDecoder::new(&raw[..])))
            .or_else(|_| read_all(Box::new(flate2::read::DeflateDecoder::new(&raw[..])))),
        _ => {
            return Err(Error::new(
                "Unrecognized content encoding type. libcurl understands deflate, gzip content \
                 encodings.",
            ));
        }
    }
    .map_err(|e| Error::new(format!("Error while processing content unencoding: {e}")))?;
    if out.len() > max {
        return Err(too_large(max));
    }
    Ok(out)
}

/// A connection, plain or TLS.
enum Conn {
    Plain(TcpStream),
    Tls(Box<rustls::StreamOwned<rustls::ClientConnection, TcpStream>>),
}

impl Conn {
    fn socket(&self) -> &TcpStream {
        match self {
            Conn::Plain(s) => s,
            Conn::Tls(s) => &s.sock,
        }
    }
}

impl Read for Conn {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Conn::Plain(s) => s.read(buf),
            Conn::Tls(s) => s.read(buf),
        }
    }
}

impl Write for Conn {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Conn::Plain(s) => s.write(buf),
            Conn::Tls(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Conn::Plain(s) => s.flush(),
            Conn::Tls(s) => s.flush(),
        }
    }
}

/// Why a wait on the socket ended without a result.
enum Waited {
    TimedOut,
    Io(io::Error),
}

impl Waited {
    fn into_error(self, clock: &Clock<'_>, what: &str) -> Error {
        match self {
            Waited::TimedOut => clock.timed_out(),
            Waited::Io(e) => match tls_error(&e) {
                Some(t) => t,
                None => Error::new(format!("{what}: {e}")),
            },
        }
    }
}

/// Runs a socket operation in slices of at most [`SLICE`], calling `interrupt` between them,
/// until it succeeds, fails, or `limit` (else the overall deadline) passes.
fn wait<T>(
    conn: &mut Conn,
    clock: &mut Clock<'_>,
    limit: Option<Instant>,
    mut op: impl FnMut(&mut Conn) -> io::Result<T>,
) -> Result<T, Waited> {
    loop {
        let end = match (limit, clock.deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let slice = match end {
            Some(end) => {
                let left = end.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(Waited::TimedOut);
                }
                left.min(SLICE)
            }
            None => SLICE,
        };
        let socket = conn.socket();
        socket.set_read_timeout(Some(slice)).map_err(Waited::Io)?;
        socket.set_write_timeout(Some(slice)).map_err(Waited::Io)?;
        match op(conn) {
            Ok(v) => return Ok(v),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock
                        | io::ErrorKind::TimedOut
                        | io::ErrorKind::Interrupted
                ) =>
            {
                (clock.interrupt)();
            }
            Err(e) => return Err(Waited::Io(e)),
        }
    }
}

/// A rustls failure inside an I/O error, in curl's words.
fn tls_error(e: &io::Error) -> Option<Error> {
    let inner = e.get_ref()?.downcast_ref::<rustls::Error>()?;
    Some(match inner {
        rustls::Error::InvalidCertificate(c) => {
            Error::new(format!("SSL certificate problem: {c:?}"))
        }
        other => Error::new(format!("TLS connect error: {other}")),
    })
}

/// Header fields, in order.
type Fields = Vec<(String, String)>;

/// The answer's bytes as they come, read into a buffer.
struct Reader<'c> {
    conn: &'c mut Conn,
    buf: Vec<u8>,
    pos: usize,
    eof: bool,
}

impl Reader<'_> {
    /// Reads more; false at the end of the stream.
    fn fill(&mut self, clock: &mut Clock<'_>) -> Result<bool, Failure> {
        if self.eof {
            return Ok(false);
        }
        if self.pos > 0 && self.pos == self.buf.len() {
            self.buf.clear();
            self.pos = 0;
        }
        let mut chunk = [0u8; 16384];
        match wait(self.conn, clock, None, |c| c.read(&mut chunk)) {
            Ok(0) => {
                self.eof = true;
                Ok(false)
            }
            Ok(n) => {
                clock.received += n;
                self.buf.extend_from_slice(&chunk[..n]);
                Ok(true)
            }
            // A TLS peer that closes without close_notify: the end, as curl takes it.
            Err(Waited::Io(e)) if e.kind() == io::ErrorKind::UnexpectedEof => {
                self.eof = true;
                Ok(false)
            }
            Err(Waited::Io(e)) if e.kind() == io::ErrorKind::ConnectionReset => {
                if clock.received == 0 {
                    Err(Failure::Stale)
                } else {
                    Err(Error::new(format!("Recv failure: {e}")).into())
                }
            }
            Err(e) => Err(e.into_error(clock, "Recv failure").into()),
        }
    }

    /// One response's status line and headers: (status, minor version, fields in order).
    fn read_head(&mut self, clock: &mut Clock<'_>) -> Result<(u16, u8, Fields), Failure> {
        loop {
            let mut slots = vec![httparse::EMPTY_HEADER; 512];
            let mut parsed = httparse::Response::new(&mut slots);
            match parsed.parse(&self.buf[self.pos..]) {
                Ok(httparse::Status::Complete(n)) => {
                    let status = parsed.code.unwrap_or(0);
                    let version = parsed.version.unwrap_or(1);
                    let fields = parsed
                        .headers
                        .iter()
                        .filter(|h| !h.value.iter().all(|b| b.is_ascii_whitespace()))
                        .map(|h| {
                            (
                                h.name.to_string(),
                                String::from_utf8_lossy(h.value).into_owned(),
                            )
                        })
                        .collect();
                    self.pos += n;
                    return Ok((status, version, fields));
                }
                Ok(httparse::Status::Partial) => {
                    if self.buf.len() - self.pos > MAX_HEAD {
                        return Err(Error::new("Too large response headers").into());
                    }
                    if !self.fill(clock)? {
                        return Err(if self.buf.len() == self.pos && clock.received == 0 {
                            Failure::Stale
                        } else {
                            Failure::Other(Error::new(if self.buf.is_empty() {
                                "Empty reply from server"
                            } else {
                                "Weird server reply"
                            }))
                        });
                    }
                }
                Err(httparse::Error::TooManyHeaders) => {
                    return Err(Error::new("Too large response headers").into());
                }
                Err(_) => return Err(Error::new("Weird server reply").into()),
            }
        }
    }

    fn read_exact_body(
        &mut self,
        length: usize,
        clock: &mut Clock<'_>,
    ) -> Result<Vec<u8>, Failure> {
        while self.buf.len() - self.pos < length {
            if !self.fill(clock)? {
                return Err(Error::new(format!(
                    "transfer closed with {} bytes remaining to read",
                    length - (self.buf.len() - self.pos)
                ))
                .into());
            }
        }
        let body = self.buf[self.pos..self.pos + length].to_vec();
        self.pos += length;
        Ok(body)
    }

    fn read_to_end(&mut self, max: usize, clock: &mut Clock<'_>) -> Result<Vec<u8>, Failure> {
        loop {
            if self.buf.len() - self.pos > max {
                return Err(too_large(max).into());
            }
            if !self.fill(clock)? {
                break;
            }
        }
        let body = self.buf[self.pos..].to_vec();
        self.pos = self.buf.len();
        Ok(body)
    }

    fn read_line(&mut self, clock: &mut Clock<'_>) -> Result<String, Failure> {
        loop {
            if let Some(i) = self.buf[self.pos..].iter().position(|b| *b == b'\n') {
                let line = String::from_utf8_lossy(&self.buf[self.pos..self.pos + i])
                    .trim_end_matches('\r')
                    .to_string();
                self.pos += i + 1;
                return Ok(line);
            }
            if self.buf.len() - self.pos > MAX_HEAD {
                return Err(Error::new("chunk header too long").into());
            }
            if !self.fill(clock)? {
                return Err(
                    Error::new("transfer closed with outstanding read data remaining").into(),
                );
            }
        }
    }

    /// A chunked body, and the trailer fields after it.
    fn read_chunked(
        &mut self,
        max: usize,
        clock: &mut Clock<'_>,
    ) -> Result<(Vec<u8>, Fields), Failure> {
        let mut body = Vec::new();
        loop {
            let line = self.read_line(clock)?;
            let size_text = line.split(';').next().unwrap_or("").trim();
            let size = usize::from_str_radix(size_text, 16).map_err(|_| {
                Error::new("Illegal or missing hexadecimal sequence in chunked-encoding")
            })?;
            if size == 0 {
                break;
            }
            if body.len() + size > max {
                return Err(too_large(max).into());
            }
            let chunk = self.read_exact_body(size, clock)?;
            body.extend_from_slice(&chunk);
            if !self.read_line(clock)?.is_empty() {
                return Err(Error::new("Malformed encoding found in chunked-encoding").into());
            }
        }
        let mut trailers = Vec::new();
        loop {
            let line = self.read_line(clock)?;
            if line.is_empty() {
                break;
            }
            if let Some((n, v)) = line.split_once(':')
                && !n.is_empty()
                && !n.contains([' ', '\t'])
                && !v.trim().is_empty()
            {
                trailers.push((n.to_string(), v.trim_start().to_string()));
            }
        }
        Ok((body, trailers))
    }
}

/// Opens a connection for `url`: its addresses (each checked against `reach`), the first that
/// answers within the connect timeout, then TLS for https.
fn connect(
    url: &Url,
    options: &Options,
    reach: Reach,
    resolve: Resolve<'_>,
    clock: &mut Clock<'_>,
) -> Result<Conn, Error> {
    let connect_deadline = {
        let d = Instant::now() + options.connect_timeout;
        clock.deadline.map_or(d, |o| o.min(d))
    };
    let addresses: Vec<IpAddr> = match &url.host {
        Host::V4(a) => vec![IpAddr::V4(*a)],
        Host::V6(a) => vec![IpAddr::V6(*a)],
        Host::Name(n) if reach::is_local_name(n) => reach::local_name_addresses(),
        Host::Name(n) => {
            resolve(n).map_err(|_| Error::new(format!("Could not resolve host: {n}")))?
        }
    };
    let addresses: Vec<IpAddr> = addresses
        .into_iter()
        .filter(|a| match options.ip_resolve {
            IpResolve::Whatever => true,
            IpResolve::V4 => a.is_ipv4(),
            IpResolve::V6 => a.is_ipv6(),
        })
        .collect();
    if addresses.is_empty() {
        return Err(Error::new(format!("Could not resolve host: {}", url.host)));
    }
    let permitted: Vec<IpAddr> = addresses
        .into_iter()
        .filter(|a| reach.permits(url.port, url.path(), *a))
        .collect();
    if permitted.is_empty() {
        return Err(Error::new(REFUSED));
    }
    let mut timed_out = false;
    let mut stream = None;
    for ip in permitted {
        (clock.interrupt)();
        let left = connect_deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            timed_out = true;
            break;
        }
        match TcpStream::connect_timeout(&SocketAddr::new(ip, url.port), left) {
            Ok(s) => {
                stream = Some(s);
                break;
            }
            Err(e) if e.kind() == io::ErrorKind::TimedOut => timed_out = true,
            Err(_) => {}
        }
    }
    let Some(stream) = stream else {
        return Err(if timed_out {
            Error::new(format!(
                "Connection timed out after {} milliseconds",
                clock.elapsed_ms()
            ))
        } else {
            Error::new(format!(
                "Failed to connect to {} port {} after {} ms: Couldn't connect to server",
                url.host,
                url.port,
                clock.elapsed_ms()
            ))
        });
    };
    let _ = stream.set_nodelay(true);
    if let Some(idle) = options.tcp_keepalive {
        let keepalive = socket2::TcpKeepalive::new()
            .with_time(idle)
            .with_interval(idle);
        let _ = socket2::SockRef::from(&stream).set_tcp_keepalive(&keepalive);
    }
    if !url.https {
        return Ok(Conn::Plain(stream));
    }
    let config = tls_config(options)?;
    let name = match &url.host {
        Host::Name(n) => ServerName::try_from(n.clone())
            .map_err(|_| Error::new(format!("Could not resolve host: {n}")))?,
        Host::V4(a) => ServerName::IpAddress(IpAddr::V4(*a).into()),
        Host::V6(a) => ServerName::IpAddress(IpAddr::V6(*a).into()),
    };
    let tls = rustls::ClientConnection::new(config, name)
        .map_err(|e| Error::new(format!("TLS connect error: {e}")))?;
    let mut conn = Conn::Tls(Box::new(rustls::StreamOwned::new(tls, stream)));
    loop {
        let Conn::Tls(s) = &mut conn else {
            unreachable!("a TLS connection")
        };
        if !s.conn.is_handshaking() {
            break;
        }
        match wait(&mut conn, clock, Some(connect_deadline), |c| match c {
            Conn::Tls(s) => s.conn.complete_io(&mut s.sock).map(|_| ()),
            Conn::Plain(_) => Ok(()),
        }) {
            Ok(()) => {}
            Err(Waited::TimedOut) => {
                return Err(Error::new(format!(
                    "SSL connection timeout after {} milliseconds",
                    clock.elapsed_ms()
                )));
            }
            Err(Waited::Io(e)) => {
                return Err(
                    tls_error(&e).unwrap_or_else(|| Error::new(format!("TLS connect error: {e}")))
                );
            }
        }
    }
    Ok(conn)
}

/// The system's trust store, read once per session.
fn system_roots() -> Arc<rustls::RootCertStore> {
    static ROOTS: OnceLock<Arc<rustls::RootCertStore>> = OnceLock::new();
    ROOTS
        .get_or_init(|| {
            let mut roots = rustls::RootCertStore::empty();
            let found = rustls_native_certs::load_native_certs();
            roots.add_parsable_certificates(found.certs);
            Arc::new(roots)
        })
        .clone()
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

fn tls_config(options: &Options) -> Result<Arc<rustls::ClientConfig>, Error> {
    let roots = match &options.ca_certs {
        None => system_roots(),
        Some(pem) => {
            let mut roots = rustls::RootCertStore::empty();
            for cert in CertificateDer::pem_slice_iter(pem) {
                let cert = cert.map_err(|_| Error::new("error setting certificate file"))?;
                roots
                    .add(cert)
                    .map_err(|_| Error::new("error setting certificate file"))?;
            }
            Arc::new(roots)
        }
    };
    let builder = rustls::ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::new(format!("TLS connect error: {e}")))?;
    let verifier = rustls::client::WebPkiServerVerifier::builder_with_provider(roots, provider())
        .build()
        .map_err(|e| Error::new(format!("TLS connect error: {e}")))?;
    let builder = if options.verify_peer && options.verify_host {
        builder.with_webpki_verifier(verifier)
    } else {
        builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(Lenient {
                inner: verifier,
                verify_peer: options.verify_peer,
            }))
    };
    let mut config = match &options.client_cert {
        None => builder.with_no_client_auth(),
        Some(c) => {
            let (chain, key) = if c.der {
                (
                    vec![CertificateDer::from(c.cert.clone())],
                    PrivateKeyDer::try_from(c.key.clone())
                        .map_err(|_| Error::new("unable to set private key file"))?,
                )
            } else {
                let chain = CertificateDer::pem_slice_iter(&c.cert)
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|_| Error::new("could not load PEM client certificate"))?;
                let key = PrivateKeyDer::from_pem_slice(&c.key)
                    .map_err(|_| Error::new("unable to set private key file"))?;
                (chain, key)
            };
            if chain.is_empty() {
                return Err(Error::new("could not load PEM client certificate"));
            }
            builder
                .with_client_auth_cert(chain, key)
                .map_err(|e| Error::new(format!("unable to use client certificate: {e}")))?
        }
    };
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// `CURLOPT_SSL_VERIFYPEER 0` (any certificate) or `CURLOPT_SSL_VERIFYHOST 0` (a trusted
/// certificate for any name). Handshake signatures are still checked.
#[derive(Debug)]
struct Lenient {
    inner: Arc<rustls::client::WebPkiServerVerifier>,
    verify_peer: bool,
}

impl rustls::client::danger::ServerCertVerifier for Lenient {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: rustls::pki_types::UnixTime,
    ) -> Result<rustls::client::danger::ServerCertVerified, rustls::Error> {
        if !self.verify_peer {
            return Ok(rustls::client::danger::ServerCertVerified::assertion());
        }
        match self.inner.verify_server_cert(
            end_entity,
            intermediates,
            server_name,
            ocsp_response,
            now,
        ) {
            Err(rustls::Error::InvalidCertificate(
                rustls::CertificateError::NotValidForName
                | rustls::CertificateError::NotValidForNameContext { .. },
            )) => Ok(rustls::client::danger::ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.inner.supported_verify_schemes()
    }
}

#[cfg(test)]
mod tests;
