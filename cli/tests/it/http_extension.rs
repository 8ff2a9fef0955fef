//! supagate's http extension (pgsql-http 1.6, extensions/pgrx/http) in a served database:
//! requests to a local HTTP server as pgsql-http makes them, and where the database may send
//! them (pg_net's rule): this machine's addresses refused by default (on literal addresses,
//! local names and names that resolve to loopback), the project's API port excepted, the
//! settings supagate passes readable and changeable by a superuser only. Each case is a query
//! and the text of its one value, or the words of the error it raises.

use crate::support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// `(query, Ok(the text of its one value) | Err(words of the error message))`.
type Case = (String, Result<String, String>);

fn ok(query: impl Into<String>, want: impl Into<String>) -> Case {
    (query.into(), Ok(want.into()))
}

fn err(query: impl Into<String>, words: impl Into<String>) -> Case {
    (query.into(), Err(words.into()))
}

async fn check(client: &tokio_postgres::Client, cases: &[Case]) {
    support::sql::check(client, cases).await
}

/// A small HTTP/1.1 server on 127.0.0.1 answering by path; `/echo` answers what it was sent
/// (method, path, headers by lowercase name, body, and the number of the connection).
fn serve() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let connections = Arc::new(AtomicUsize::new(0));
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let n = connections.fetch_add(1, Ordering::SeqCst) + 1;
            std::thread::spawn(move || {
                let _ = answer_connection(stream, n);
            });
        }
    });
    port
}

fn answer_connection(stream: TcpStream, conn: usize) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut stream = stream;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let mut parts = line.split_whitespace();
        let method = parts.next().unwrap_or("").to_string();
        let target = parts.next().unwrap_or("").to_string();
        let mut headers = serde_json::Map::new();
        let mut length = 0;
        let mut keep = false;
        loop {
            let mut h = String::new();
            reader.read_line(&mut h)?;
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            let (name, value) = h.split_once(':').unwrap();
            let (name, value) = (name.to_ascii_lowercase(), value.trim().to_string());
            if name == "content-length" {
                length = value.parse().unwrap();
            }
            if name == "connection" && value.eq_ignore_ascii_case("keep-alive") {
                keep = true;
            }
            headers.insert(name, value.into());
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body)?;
        let (path, query) = target.split_once('?').unwrap_or((&target, ""));
        let (status, extra, content): (u16, String, Vec<u8>) = match path {
            "/echo" => (
                200,
                "Content-Type: application/json\r\n".into(),
                serde_json::json!({
                    "method": method, "path": target, "headers": headers,
                    "body": String::from_utf8_lossy(&body), "conn": conn,
                })
                .to_string()
                .into_bytes(),
            ),
            "/redirect" => (
                302,
                format!("Location: {}\r\n", query.strip_prefix("to=").unwrap_or("/")),
                Vec::new(),
            ),
            "/loop" => (302, "Location: /loop\r\n".into(), Vec::new()),
            "/headers" => (200, "X-Mixed-Case: Yes\r\n".into(), b"ok".to_vec()),
            "/latin1" => (
                200,
                "Content-Type: text/plain; charset=iso-8859-1\r\n".into(),
                b"caf\xe9".to_vec(),
            ),
            "/binary" => (
                200,
                "Content-Type: image/png\r\n".into(),
                vec![0x89, 0x50, 0x00, 0xff, 0x0a],
            ),
            "/slow" => {
                std::thread::sleep(std::time::Duration::from_millis(1500));
                (200, String::new(), b"late".to_vec())
            }
            p => match p.strip_prefix("/status/") {
                Some(code) => (code.parse().unwrap(), String::new(), Vec::new()),
                None => (404, String::new(), Vec::new()),
            },
        };
        let head = format!(
            "HTTP/1.1 {status} X\r\n{extra}Content-Length: {}\r\nConnection: {}\r\n\r\n",
            content.len(),
            if keep { "keep-alive" } else { "close" }
        );
        stream.write_all(head.as_bytes())?;
        stream.write_all(&content)?;
        if !keep {
            return Ok(());
        }
    }
}

/// A name other than `localhost` that this machine resolves to loopback (its host name in
/// /etc/hosts, as Debian writes it, or one of the usual aliases).
fn name_resolving_to_loopback() -> String {
    let hostname = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    [
        hostname.trim(),
        "localhost.localdomain",
        "ip6-localhost",
        "ip6-loopback",
    ]
    .into_iter()
    .filter(|n| !n.is_empty() && !n.ends_with("localhost"))
    .find(|n| {
        (*n, 80)
            .to_socket_addrs()
            .map(|mut a| a.next().is_some() && a.all(|a| a.ip().is_loopback()))
            .unwrap_or(false)
    })
    .map(str::to_string)
    .expect("this machine resolves no name but localhost to loopback: the test needs one")
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

const REFUSED: &str =
    "supagate refuses requests from the database to this machine's own and link-local addresses";

#[tokio::test]
async fn http_makes_requests_as_pgsql_http_and_keeps_to_the_database_s_reach() {
    let dir = support::scratch_project(&[(
        "supabase/migrations/20240101000000_http.sql",
        "create extension if not exists http with schema extensions;",
    )]);
    let api = free_port();
    let gw = support::start_project(&dir, &["--port", &api.to_string()]);
    let server = serve();
    let url = |path: &str| format!("http://127.0.0.1:{server}{path}");
    let loopback_name = name_resolving_to_loopback();
    let db = gw.session_on(&gw.dbname).await;
    db.simple_query("set search_path = public, extensions")
        .await
        .unwrap();

    // What supagate set, and the default rule: this machine is refused.
    let refused = vec![
        ok("show http.supagate_allow_local", "off"),
        ok("show http.supagate_api_port", api.to_string()),
        err(
            format!("select status from http_get('{}')", url("/echo")),
            REFUSED,
        ),
        err(
            format!("select status from http_get('http://localhost:{server}/echo')"),
            REFUSED,
        ),
        err(
            format!("select status from http_get('http://{loopback_name}:{server}/echo')"),
            REFUSED,
        ),
        err(
            format!("select status from http_get('http://2130706433:{server}/echo')"),
            REFUSED,
        ),
        err(
            "select status from http_get('http://169.254.169.254/latest/meta-data/')",
            REFUSED,
        ),
        err(
            format!("select status from http_get('http://[::1]:{server}/')"),
            REFUSED,
        ),
        // The project's API is reachable, but not its workbench paths.
        ok(
            format!("select status from http_get('http://127.0.0.1:{api}/auth/v1/health')"),
            "200",
        ),
        err(
            format!("select status from http_get('http://127.0.0.1:{api}/_supagate/v1/branches')"),
            REFUSED,
        ),
        // Only a superuser changes the rule.
        ok("set role anon", ""),
        err(
            "set http.supagate_allow_local = on",
            "permission denied to set parameter \"http.supagate_allow_local\"",
        ),
        err(
            "set http.supagate_api_port = 1",
            "permission denied to set parameter \"http.supagate_api_port\"",
        ),
        err(
            format!("select status from http_get('{}')", url("/echo")),
            REFUSED,
        ),
        ok("reset role", ""),
    ];
    check(&db, &refused).await;

    // A session whose library is not loaded yet: the setting made before it loads is dropped.
    let fresh = gw.session_on(&gw.dbname).await;
    check(
        &fresh,
        &[
            ok("set role anon", ""),
            ok("set http.supagate_allow_local = on", ""),
            err(
                format!("select status from extensions.http_get('{}')", url("/echo")),
                REFUSED,
            ),
            ok("show http.supagate_allow_local", "off"),
        ],
    )
    .await;

    let echo = url("/echo");
    let allowed = vec![
        ok("set http.supagate_allow_local = on", ""),
        ok(format!("select status from http_get('{}')", url("/status/202")), "202"),
        // GET, as curl sends it for pgsql-http.
        ok(
            format!(
                "select concat_ws(' | ', status, content_type, c->>'method', c->>'path',
                   c->'headers'->>'charsets', c->'headers'->>'connection', c->'headers'->>'accept',
                   c->'headers'->>'accept-encoding', c->'headers'->>'user-agent' like 'PostgreSQL 1%')
                 from http_get('{echo}?a=1') r, lateral (select r.content::json c) x"
            ),
            "200 | application/json | GET | /echo?a=1 | utf-8 | close | */* | deflate, gzip | t",
        ),
        ok(
            format!(
                "select content::json->>'path' from http_get('{echo}', '{{\"this\": \"that\", \"a\": 1.50, \"n\": null, \"x\": {{\"y\": 1}}}}')"
            ),
            "/echo?a=1.5&n=&this=that",
        ),
        // A GET with a body, POST, PUT, PATCH, DELETE with and without a body, another method.
        ok(
            format!(
                "select concat_ws(' | ', c->>'method', c->'headers'->>'content-type', c->>'body')
                 from http(('GET', '{echo}', NULL, 'application/json', '{{\"search\": \"toto\"}}')) r,
                 lateral (select r.content::json c) x"
            ),
            "GET | application/json | {\"search\": \"toto\"}",
        ),
        ok(
            format!(
                "select concat_ws(' | ', c->>'method', c->'headers'->>'content-type', c->>'body', c->'headers'->>'content-length')
                 from http_post('{echo}', 'payload', 'text/plain') r, lateral (select r.content::json c) x"
            ),
            "POST | text/plain | payload | 7",
        ),
        ok(
            format!(
                "select concat_ws(' | ', c->>'method', c->'headers'->>'content-type', c->>'body')
                 from http_post('{echo}', jsonb_build_object('this', 'that & more')) r, lateral (select r.content::json c) x"
            ),
            "POST | application/x-www-form-urlencoded | this=that+%26+more",
        ),
        ok(
            format!(
                "select concat_ws(' | ', c->>'method', c->>'body')
                 from http_put('{echo}', 'put body', 'text/plain') r, lateral (select r.content::json c) x"
            ),
            "PUT | put body",
        ),
        ok(
            format!(
                "select concat_ws(' | ', c->>'method', c->>'body')
                 from http_patch('{echo}', '{{\"this\":\"that\"}}', 'application/json') r, lateral (select r.content::json c) x"
            ),
            "PATCH | {\"this\":\"that\"}",
        ),
        ok(
            format!("select content::json->>'method' from http_delete('{echo}')"),
            "DELETE",
        ),
        ok(
            format!(
                "select (content::json->>'method') || ' ' || (content::json->>'body') from http_delete('{echo}', 'gone', 'text/plain')"
            ),
            "DELETE gone",
        ),
        ok(
            format!("select content::json->>'method' from http(('MKCOL', '{echo}', NULL, NULL, NULL))"),
            "MKCOL",
        ),
        ok(
            format!("select status || ' ' || (content is null) from http_head('{echo}')"),
            "200 true",
        ),
        // Request headers: Content-Type is refused there (with a notice), the others sent.
        ok(
            format!(
                "select concat_ws(' | ', c->'headers'->>'x-test', c->'headers'->>'content-type', c->'headers'->>'x-null')
                 from http(('GET', '{echo}', array[http_header('X-Test', 'one'), http_header('Content-Type', 'x/y'), http_header('X-Null', NULL)], NULL, NULL)) r,
                 lateral (select r.content::json c) x"
            ),
            "one",
        ),
        // Response headers keep their names' case; the content type's charset converts.
        ok(
            format!(
                "select value from unnest((http_get('{}')).headers) where field = 'X-Mixed-Case'",
                url("/headers")
            ),
            "Yes",
        ),
        ok(
            format!("select content_type || ' ' || content from http_get('{}')", url("/latin1")),
            "text/plain; charset=iso-8859-1 café",
        ),
        // Binary bodies come back byte for byte through text_to_bytea.
        ok(
            format!(
                "select encode(text_to_bytea(content), 'hex') from http_get('{}')",
                url("/binary")
            ),
            "895000ff0a",
        ),
        // Redirects: followed (relative), at most 5; not for HEAD.
        ok(
            format!(
                "select status from http_get('{}')",
                url("/redirect?to=/status/201")
            ),
            "201",
        ),
        ok(
            format!(
                "select count(*) from unnest((http_get('{}')).headers) where field = 'Location'",
                url("/redirect?to=/status/204")
            ),
            "1",
        ),
        err(
            format!("select status from http_get('{}')", url("/loop")),
            "Maximum (5) redirects followed",
        ),
        ok(
            format!("select status from http_head('{}')", url("/redirect?to=/status/201")),
            "302",
        ),
        // Timeouts: http.timeout_msec, the curl options, and a statement timeout cancelling.
        ok("set http.timeout_msec = 200", ""),
        err(
            format!("select status from http_get('{}')", url("/slow")),
            "Operation timed out after",
        ),
        ok("reset http.timeout_msec", ""),
        ok("select http_set_curlopt('CURLOPT_TIMEOUT_MS', '200')", "t"),
        ok("select http_set_curlopt('curlopt_useragent', 'my-agent/1')", "t"),
        ok(
            "select string_agg(curlopt || '=' || value, ', ') from http_list_curlopt()",
            "CURLOPT_TIMEOUT_MS=200, CURLOPT_USERAGENT=my-agent/1",
        ),
        err(
            format!("select status from http_get('{}')", url("/slow")),
            "Operation timed out after",
        ),
        ok(
            format!("select content::json->'headers'->>'user-agent' from http_get('{echo}')"),
            "my-agent/1",
        ),
        ok("select http_reset_curlopt()", "t"),
        ok("select count(*) from http_list_curlopt()", "0"),
        ok("set http.timeout_msec = 10000", ""),
        ok("set statement_timeout = 200", ""),
        err(
            format!("select status from http_get('{}')", url("/slow")),
            "canceling statement due to statement timeout",
        ),
        ok("reset statement_timeout", ""),
        ok("reset http.timeout_msec", ""),
        ok("select http_set_curlopt('CURLOPT_USERPWD', 'user:pw')", "t"),
        ok(
            format!("select content::json->'headers'->>'authorization' from http_get('{echo}')"),
            "Basic dXNlcjpwdw==",
        ),
        ok("select http_reset_curlopt()", "t"),
        // The curl options pgsql-http lists, and those supagate does not bring.
        err(
            "select http_set_curlopt('CURLOPT_NOPE', '1')",
            "curl option 'CURLOPT_NOPE' is not available for run-time configuration",
        ),
        err(
            "select http_set_curlopt('CURLOPT_TIMEOUT', 'abc')",
            "invalid integer provided for 'CURLOPT_TIMEOUT'",
        ),
        err(
            "select http_set_curlopt('CURLOPT_PROXY', 'http://127.0.0.1:3128')",
            "curl option 'CURLOPT_PROXY' is not supported by supagate's http extension",
        ),
        ok("select http_set_curlopt(NULL, '1')", "f"),
        // Keep-alive: the second request on the first one's connection.
        ok("set http.keepalive = on", ""),
        ok(
            format!(
                "select (select content::json->>'conn' from http_get('{echo}')) = (select content::json->>'conn' from http_get('{echo}'))"
            ),
            "t",
        ),
        ok("reset http.keepalive", ""),
        // Requests pgsql-http refuses, and failures in curl's words.
        err(
            "select status from http(('GET', NULL, NULL, NULL, NULL))",
            "http_request.uri is NULL",
        ),
        err(
            format!("select status from http((NULL, '{echo}', NULL, NULL, NULL))"),
            "http_request.method is NULL",
        ),
        err(
            format!("select status from http(('POST', '{echo}', NULL, NULL, NULL))"),
            "http_request.content is NULL",
        ),
        err(
            format!("select status from http(('POST', '{echo}', NULL, NULL, 'x'))"),
            "http_request.content_type is NULL",
        ),
        err("select status from http(NULL)", "An http_request must be provided"),
        err(
            "select status from http_get('ftp://example.com/')",
            "Protocol \"ftp\" not supported or disabled in libcurl",
        ),
        err(
            format!("select status from http_get('http://127.0.0.1:{}/')", free_port()),
            "Couldn't connect to server",
        ),
        err(
            "select status from http_get('http://nonexistent.invalid/')",
            "Could not resolve host: nonexistent.invalid",
        ),
        // anon calls it, under the superuser's setting of this session.
        ok("set role anon", ""),
        ok(format!("select status from http_get('{}')", url("/status/203")), "203"),
        ok("reset role", ""),
        ok("reset http.supagate_allow_local", ""),
        err(format!("select status from http_get('{echo}')"), REFUSED),
    ];
    check(&db, &allowed).await;

    let helpers = vec![
        ok(
            "select urlencode('my special string''s & things?')",
            "my+special+string%27s+%26+things%3F",
        ),
        ok("select urlencode('\\x41ff2000'::bytea)", "A%FF+"),
        ok(
            "select urlencode('{\"b\": 1.50, \"a\": true, \"nested\": {\"x\": 1}, \"\": 5, \"n\": null, \"s\": \"x y\", \"f\": false}'::jsonb)",
            "a=true&b=1.5&f=false&n=&s=x+y",
        ),
        ok("select urlencode('{}'::jsonb) is null", "t"),
        err(
            "select urlencode('[1]'::jsonb)",
            "cannot call urlencode_jsonb on a non-object",
        ),
        ok("select bytea_to_text('\\x68656c6c6f'::bytea)", "hello"),
        ok("select text_to_bytea('hello')", "\\x68656c6c6f"),
        ok("select http_header('a', 'b')", "(a,b)"),
        ok("select ('x', 'text/plain')::http_header", "(x,text/plain)"),
        err("select 'nope'::content_type", "violates check constraint"),
        // The catalogue: pgsql-http 1.6's functions and types.
        ok(
            "select string_agg(format('%s:%s:%s', p.oid::regprocedure, p.prorettype::regtype, l.lanname), ', ' order by p.oid::regprocedure::text)
               from pg_proc p join pg_language l on l.oid = p.prolang join pg_depend d on d.objid = p.oid and d.classid = 'pg_proc'::regclass
               join pg_extension e on e.oid = d.refobjid and e.extname = 'http'",
            "bytea_to_text(bytea):text:c, http(http_request):http_response:c, \
             http_delete(character varying):http_response:sql, \
             http_delete(character varying,character varying,character varying):http_response:sql, \
             http_get(character varying):http_response:sql, http_get(character varying,jsonb):http_response:sql, \
             http_head(character varying):http_response:sql, http_header(character varying,character varying):http_header:sql, \
             http_list_curlopt():record:c, \
             http_patch(character varying,character varying,character varying):http_response:sql, \
             http_post(character varying,character varying,character varying):http_response:sql, \
             http_post(character varying,jsonb):http_response:sql, \
             http_put(character varying,character varying,character varying):http_response:sql, \
             http_reset_curlopt():boolean:c, http_set_curlopt(character varying,character varying):boolean:c, \
             text_to_bytea(text):bytea:c, urlencode(bytea):text:c, urlencode(character varying):text:c, urlencode(jsonb):text:c",
        ),
        ok(
            "select extversion || ' ' || extnamespace::regnamespace from pg_extension where extname = 'http'",
            "1.6 extensions",
        ),
    ];
    check(&db, &helpers).await;
}
