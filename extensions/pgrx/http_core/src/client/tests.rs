//! The client against small servers on 127.0.0.1 that answer canned bytes and report the
//! requests they read.

use super::*;
use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::sync::mpsc;

/// A server answering each connection with the next of `answers` (raw bytes), reporting each
/// request it read (head and body).
fn serve(answers: Vec<Vec<u8>>) -> (u16, mpsc::Receiver<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for answer in answers {
            let Ok((stream, _)) = listener.accept() else {
                return;
            };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request = String::new();
            let mut length = 0;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap();
                }
                request.push_str(&line);
                if line == "\r\n" {
                    break;
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            request.push_str(&String::from_utf8_lossy(&body));
            let _ = tx.send(request);
            let mut stream = stream;
            let _ = stream.write_all(&answer);
        }
    });
    (port, rx)
}

fn request(method: &str, url: &str) -> Request {
    Request {
        method: method.into(),
        url: Url::parse(url).unwrap(),
        headers: Vec::new(),
        body: None,
    }
}

fn local() -> Reach {
    Reach {
        local: true,
        api_port: None,
    }
}

fn run(req: &Request, options: &Options, reach: Reach) -> Result<Response, Error> {
    perform(req, options, reach, &mut None, &system_resolve, &mut || {})
}

#[test]
fn a_get_is_sent_as_curl_sends_it_and_its_answer_read_whole() {
    let (port, requests) = serve(vec![
        b"HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nX-Mixed-Case: Yes\r\nEmpty:\r\nContent-Length: 5\r\n\r\nhello"
            .to_vec(),
    ]);
    let options = Options {
        user_agent: "PostgreSQL test".into(),
        ..Options::default()
    };
    let mut req = request("get", &format!("http://127.0.0.1:{port}/a?b=c#frag"));
    req.headers = vec![
        ("X-Custom".into(), "1".into()),
        ("Accept".into(), "text/plain".into()),
    ];
    let r = run(&req, &options, local()).unwrap();
    assert_eq!(r.status, 200);
    assert_eq!(r.body, b"hello");
    assert_eq!(r.content_type.as_deref(), Some("text/plain; charset=utf-8"));
    // Names as the server wrote them, in order; a field without a value is left out.
    assert_eq!(
        r.headers,
        vec![
            (
                "Content-Type".to_string(),
                "text/plain; charset=utf-8".to_string()
            ),
            ("X-Mixed-Case".into(), "Yes".into()),
            ("Content-Length".into(), "5".into()),
        ]
    );
    let sent = requests.recv().unwrap();
    assert_eq!(
        sent,
        format!(
            "GET /a?b=c HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUser-Agent: PostgreSQL test\r\n\
             Accept-Encoding: deflate, gzip\r\nConnection: close\r\nCharsets: utf-8\r\n\
             X-Custom: 1\r\nAccept: text/plain\r\n\r\n"
        )
    );
}

#[test]
fn bodies_methods_and_credentials_are_sent() {
    let ok = b"HTTP/1.1 204 No Content\r\n\r\n".to_vec();
    let (port, requests) = serve(vec![ok.clone(), ok.clone(), ok]);
    let mut req = request("post", &format!("http://u%40x:p%3Aw@127.0.0.1:{port}/p"));
    req.body = Some((b"a=1".to_vec(), "application/x-www-form-urlencoded".into()));
    assert_eq!(run(&req, &Options::default(), local()).unwrap().status, 204);
    let sent = requests.recv().unwrap();
    assert!(sent.starts_with("POST /p HTTP/1.1\r\n"), "{sent}");
    // base64("u@x:p:w")
    assert!(
        sent.contains("Authorization: Basic dUB4OnA6dw==\r\n"),
        "{sent}"
    );
    assert!(
        sent.ends_with(
            "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 3\r\n\r\na=1"
        ),
        "{sent}"
    );
    let mut req = request("mkcol", &format!("http://127.0.0.1:{port}/dav"));
    req.headers = vec![("User-Agent".into(), "".into())];
    run(
        &req,
        &Options {
            user_agent: "removed by the caller".into(),
            userpwd: Some("a:b".into()),
            ..Options::default()
        },
        local(),
    )
    .unwrap();
    let sent = requests.recv().unwrap();
    assert!(sent.starts_with("mkcol /dav HTTP/1.1\r\n"), "{sent}");
    assert!(!sent.contains("User-Agent"), "{sent}");
    assert!(sent.contains("Authorization: Basic YTpi\r\n"), "{sent}");
    let mut req = request("GET", &format!("http://127.0.0.1:{port}/"));
    req.headers = vec![("X-Bad\r\nInjected".into(), "1".into())];
    let e = run(&req, &Options::default(), local()).unwrap_err();
    assert!(e.to_string().contains("line break"), "{e}");
}

#[test]
fn chunked_and_compressed_answers_are_decoded() {
    use flate2::write::GzEncoder;
    let mut gz = GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(b"compressed body").unwrap();
    let gz = gz.finish().unwrap();
    let mut gzip_answer = format!(
        "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: {}\r\n\r\n",
        gz.len()
    )
    .into_bytes();
    gzip_answer.extend_from_slice(&gz);
    let (port, _r) = serve(vec![
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n"
            .to_vec(),
        gzip_answer,
        b"HTTP/1.0 200 OK\r\n\r\nuntil the end".to_vec(),
    ]);
    let url = format!("http://127.0.0.1:{port}/");
    let r = run(&request("GET", &url), &Options::default(), local()).unwrap();
    assert_eq!(r.body, b"hello world");
    assert_eq!(
        r.headers.last().unwrap(),
        &("X-Trailer".to_string(), "t".to_string())
    );
    let r = run(&request("GET", &url), &Options::default(), local()).unwrap();
    assert_eq!(r.body, b"compressed body");
    let r = run(&request("GET", &url), &Options::default(), local()).unwrap();
    assert_eq!(r.body, b"until the end");
}

#[test]
fn redirects_are_followed_five_times_and_post_becomes_get() {
    let (port, requests) = serve(vec![
        b"HTTP/1.1 302 Found\r\nLocation: /next\r\nContent-Length: 0\r\n\r\n".to_vec(),
        b"HTTP/1.1 307 Temporary Redirect\r\nLocation: last?x=1\r\nContent-Length: 0\r\n\r\n"
            .to_vec(),
        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".to_vec(),
    ]);
    let mut req = request("POST", &format!("http://127.0.0.1:{port}/start"));
    req.body = Some((b"x".to_vec(), "text/plain".into()));
    let r = run(&req, &Options::default(), local()).unwrap();
    assert_eq!((r.status, r.body.as_slice()), (200, &b"ok"[..]));
    // Every response's headers, as curl hands them over.
    assert_eq!(r.headers.iter().filter(|(n, _)| n == "Location").count(), 2);
    assert!(requests.recv().unwrap().starts_with("POST /start "));
    assert!(requests.recv().unwrap().starts_with("GET /next "));
    assert!(requests.recv().unwrap().starts_with("GET /last?x=1 "));

    let again = b"HTTP/1.1 301 Moved\r\nLocation: /again\r\nContent-Length: 0\r\n\r\n".to_vec();
    let (port, _r) = serve(vec![again; 6]);
    let e = run(
        &request("GET", &format!("http://127.0.0.1:{port}/")),
        &Options::default(),
        local(),
    )
    .unwrap_err();
    assert_eq!(e.to_string(), "Maximum (5) redirects followed");

    // HEAD does not follow.
    let (port, _r) = serve(vec![
        b"HTTP/1.1 302 Found\r\nLocation: /x\r\nContent-Length: 10\r\n\r\n".to_vec(),
    ]);
    let r = run(
        &request("HEAD", &format!("http://127.0.0.1:{port}/")),
        &Options::default(),
        local(),
    )
    .unwrap();
    assert_eq!((r.status, r.body.len()), (302, 0));
}

#[test]
fn this_machine_is_refused_unless_allowed_on_addresses_names_and_redirects() {
    let refuse = Reach {
        local: false,
        api_port: None,
    };
    let (port, _r) = serve(vec![
        b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".to_vec(),
    ]);
    for url in [
        format!("http://127.0.0.1:{port}/"),
        format!("http://localhost:{port}/"),
        format!("http://[::ffff:127.0.0.1]:{port}/"),
        format!("http://0.0.0.0:{port}/"),
        format!("http://127.1:{port}/"),
        format!("http://2130706433:{port}/"),
    ] {
        let e = run(&request("GET", &url), &Options::default(), refuse).unwrap_err();
        assert_eq!(e.to_string(), REFUSED, "{url}");
    }
    // A name that looks external but resolves to loopback.
    let to_loopback = |_: &str| Ok(vec!["127.0.0.1".parse().unwrap()]);
    let e = perform(
        &request("GET", &format!("http://looks-external.example:{port}/")),
        &Options::default(),
        refuse,
        &mut None,
        &to_loopback,
        &mut || {},
    )
    .unwrap_err();
    assert_eq!(e.to_string(), REFUSED);
    // The project's API port is reachable.
    let api = Reach {
        local: false,
        api_port: Some(port),
    };
    let r = run(
        &request("GET", &format!("http://127.0.0.1:{port}/rest/v1/")),
        &Options::default(),
        api,
    )
    .unwrap();
    assert_eq!(r.status, 200);
    // A redirect from an allowed server to this machine is refused.
    let (allowed, _r) = serve(vec![
        format!(
            "HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:{port}/\r\nContent-Length: 0\r\n\r\n"
        )
        .into_bytes(),
    ]);
    let api = Reach {
        local: false,
        api_port: Some(allowed),
    };
    let e = run(
        &request("GET", &format!("http://127.0.0.1:{allowed}/x")),
        &Options::default(),
        api,
    )
    .unwrap_err();
    assert_eq!(e.to_string(), REFUSED);
}

#[test]
fn time_and_size_are_bounded_and_interruption_is_asked_for_while_waiting() {
    // A server that accepts and never answers.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let hold = std::thread::spawn(move || {
        let (s, _) = listener.accept().unwrap();
        std::thread::sleep(Duration::from_millis(600));
        drop(s);
    });
    let options = Options {
        timeout: Some(Duration::from_millis(300)),
        ..Options::default()
    };
    let mut asked = 0;
    let t0 = Instant::now();
    let e = perform(
        &request("GET", &format!("http://127.0.0.1:{port}/")),
        &options,
        local(),
        &mut None,
        &system_resolve,
        &mut || asked += 1,
    )
    .unwrap_err();
    assert!(
        e.to_string().starts_with("Operation timed out after")
            && e.to_string().ends_with("with 0 bytes received"),
        "{e}"
    );
    assert!(
        t0.elapsed() < Duration::from_millis(550),
        "{:?}",
        t0.elapsed()
    );
    assert!(asked >= 2, "{asked}");
    hold.join().unwrap();

    let (port, _r) = serve(vec![
        b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n".to_vec(),
        [b"HTTP/1.1 200 OK\r\n\r\n".to_vec(), vec![b'x'; 200]].concat(),
    ]);
    let small = Options {
        max_body: 50,
        ..Options::default()
    };
    let url = format!("http://127.0.0.1:{port}/");
    for _ in 0..2 {
        let e = run(&request("GET", &url), &small, local()).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("Exceeded the maximum allowed file size (50)"),
            "{e}"
        );
    }

    // Nothing listens: curl's words.
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let e = run(
        &request("GET", &format!("http://127.0.0.1:{port}/")),
        &Options::default(),
        local(),
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .starts_with(&format!("Failed to connect to 127.0.0.1 port {port} after")),
        "{e}"
    );
    let e = run(
        &request("GET", "http://no-such-host.invalid/"),
        &Options::default(),
        local(),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "Could not resolve host: no-such-host.invalid"
    );
}

#[test]
fn a_kept_connection_serves_the_next_request() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut stream = stream;
        for i in 0..2 {
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                if line == "\r\n" {
                    break;
                }
            }
            stream
                .write_all(format!("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n{i}").as_bytes())
                .unwrap();
        }
    });
    let options = Options {
        keepalive: true,
        ..Options::default()
    };
    let mut kept = None;
    let url = format!("http://127.0.0.1:{port}/");
    for want in [b"0", b"1"] {
        let r = perform(
            &request("GET", &url),
            &options,
            local(),
            &mut kept,
            &system_resolve,
            &mut || {},
        )
        .unwrap();
        assert_eq!(r.body, want);
    }
    assert!(kept.is_some());
    server.join().unwrap();
}

#[test]
fn tls_is_checked_against_the_trust_given_and_relaxed_only_when_asked() {
    let made = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
    let cert_pem = made.cert.pem().into_bytes();
    let server_config = Arc::new(
        rustls::ServerConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(
                vec![made.cert.der().clone()],
                PrivateKeyDer::Pkcs8(made.signing_key.serialize_der().into()),
            )
            .unwrap(),
    );
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let conn = rustls::ServerConnection::new(server_config.clone()).unwrap();
            let mut tls = rustls::StreamOwned::new(conn, stream);
            let mut reader = BufReader::new(&mut tls);
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 0) {
                if line.ends_with("\r\n\r\n") || line == "\r\n" {
                    break;
                }
                line.clear();
            }
            let _ = tls.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecret");
            let _ = tls.flush();
        }
    });
    let by_name = format!("https://localhost:{port}/");
    let by_address = format!("https://127.0.0.1:{port}/");
    let trusted = Options {
        ca_certs: Some(cert_pem),
        ..Options::default()
    };
    // (url, options, the body or the error's first words)
    let cases: Vec<(&str, Options, Result<&str, &str>)> = vec![
        (&by_name, Options::default(), Err("SSL certificate problem")),
        (&by_name, trusted.clone(), Ok("secret")),
        (&by_address, trusted.clone(), Err("SSL certificate problem")),
        (
            &by_address,
            Options {
                verify_host: false,
                ..trusted
            },
            Ok("secret"),
        ),
        (
            &by_name,
            Options {
                verify_peer: false,
                ..Options::default()
            },
            Ok("secret"),
        ),
    ];
    for (url, options, want) in cases {
        let got = run(&request("GET", url), &options, local());
        match (want, &got) {
            (Ok(body), Ok(r)) if r.body == body.as_bytes() => {}
            (Err(words), Err(e)) if e.to_string().starts_with(words) => {}
            _ => panic!("{url} {options:?}: want {want:?}, got {got:?}"),
        }
    }
}
