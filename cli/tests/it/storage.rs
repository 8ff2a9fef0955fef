//! /storage/v1 against a real gateway: keys, limits, interrupted uploads, ranges, raw bodies.

use crate::support;
use serde_json::json;
use std::io::{Read, Write};
use support::Api;

fn png(extra: usize) -> Vec<u8> {
    // A PNG signature and header chunk are enough for content sniffing; padding sets the size.
    let mut v = vec![
        0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, b'I', b'H', b'D', b'R',
    ];
    v.extend(std::iter::repeat_n(7u8, extra));
    v
}

async fn admin(gw: &support::Gateway) -> Api<'_> {
    let id = gw
        .create_user(
            &format!("storage-admin-{}@example.com", uuid::Uuid::new_v4()),
            true,
        )
        .await;
    Api::user(gw, &id)
}

async fn put_raw(
    api: &Api<'_>,
    path: &str,
    body: Vec<u8>,
    ctype: &str,
    extra: &[(&str, &str)],
) -> support::Reply {
    let mut req = api
        .client
        .post(format!("{}/storage/v1/object/{path}", api.gw.url))
        .header("apikey", &api.gw.anon)
        .header(
            "authorization",
            format!("Bearer {}", api.token.as_deref().unwrap_or(&api.gw.anon)),
        )
        .header("content-type", ctype)
        .body(body);
    for (k, v) in extra {
        req = req.header(*k, *v);
    }
    let res = req.send().await.unwrap();
    let status = res.status().as_u16();
    let headers = res.headers().clone();
    support::Reply {
        status,
        headers,
        text: res.text().await.unwrap(),
    }
}

#[tokio::test]
async fn keys_that_escape_or_break_storage_are_refused() {
    let gw = &support::shop().await;
    let api = admin(gw).await;
    for bad in [
        "a/..%2F..%2Fetc%2Fpasswd",
        "..%2Fsecret.png",
        "a%00b.png",
        "caf%C3%A9.png",
        "a%5Cb.png",
    ] {
        let r = put_raw(
            &api,
            &format!("product-images/{bad}"),
            png(10),
            "image/png",
            &[],
        )
        .await;
        assert_eq!(r.status, 400, "{bad}: {}", r.text);
        assert_eq!(r.json()["code"], "InvalidKey", "{bad}");
    }
    // Nothing was written outside the store's own folder.
    assert!(!gw.data_dir.join("etc").exists());
    let r = Api::anon(gw)
        .get("/storage/v1/object/public/product-images/..%2F..%2Fpg%2FPG_VERSION")
        .await;
    assert_eq!(r.status, 400);
}

#[tokio::test]
async fn raw_bodies_metadata_and_ranges() {
    let gw = &support::shop().await;
    let svc = Api::service(gw);
    let r = svc
        .send(
            "POST",
            "/storage/v1/bucket",
            &[],
            Some(r#"{"id":"raw-test","public":false}"#),
        )
        .await;
    assert_eq!((r.status, r.json()), (200, json!({"name":"raw-test"})));
    let meta = base64::Engine::encode(
        &base64::engine::general_purpose::STANDARD,
        r#"{"color":"red"}"#,
    );
    let r = put_raw(
        &svc,
        "raw-test/notes/hello.txt",
        b"hello world".to_vec(),
        "text/plain",
        &[("cache-control", "max-age=60"), ("x-metadata", &meta)],
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.json()["Key"], "raw-test/notes/hello.txt");
    let info = svc
        .get("/storage/v1/object/info/raw-test/notes/hello.txt")
        .await
        .json();
    assert_eq!(
        (info["size"].clone(), info["metadata"]["color"].clone()),
        (json!(11), json!("red"))
    );
    let r = svc
        .send(
            "GET",
            "/storage/v1/object/raw-test/notes/hello.txt",
            &[("range", "bytes=6-")],
            None,
        )
        .await;
    assert_eq!(
        (r.status, r.text.as_str(), r.header("content-range")),
        (206, "world", Some("bytes 6-10/11"))
    );
    let r = svc
        .send(
            "GET",
            "/storage/v1/object/raw-test/notes/hello.txt",
            &[("range", "bytes=-3")],
            None,
        )
        .await;
    assert_eq!(r.text, "rld");
    let r = svc
        .send(
            "GET",
            "/storage/v1/object/raw-test/notes/hello.txt",
            &[("range", "bytes=50-60")],
            None,
        )
        .await;
    assert_eq!(r.status, 416);
    let r = svc
        .send(
            "HEAD",
            "/storage/v1/object/raw-test/notes/hello.txt",
            &[],
            None,
        )
        .await;
    assert_eq!(
        (
            r.status,
            r.header("content-length"),
            r.header("cache-control")
        ),
        (200, Some("11"), Some("max-age=60"))
    );
    // A private bucket is not served by the public route; anon cannot read it either.
    assert_eq!(
        Api::anon(gw)
            .get("/storage/v1/object/public/raw-test/notes/hello.txt")
            .await
            .json()["message"],
        "Bucket not found"
    );
    assert_eq!(
        Api::anon(gw)
            .get("/storage/v1/object/raw-test/notes/hello.txt")
            .await
            .json()["code"],
        "NoSuchKey"
    );
    // PUT replaces; the old bytes go.
    let r = svc
        .send(
            "PUT",
            "/storage/v1/object/raw-test/notes/hello.txt",
            &[("content-type", "text/plain")],
            Some("bye"),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(
        svc.get("/storage/v1/object/raw-test/notes/hello.txt")
            .await
            .text,
        "bye"
    );
    let versions = std::fs::read_dir(gw.data_dir.join("storage/versions"))
        .unwrap()
        .count();
    let r = svc
        .send(
            "PUT",
            "/storage/v1/object/raw-test/notes/missing.txt",
            &[("content-type", "text/plain")],
            Some("x"),
        )
        .await;
    assert_eq!(r.json()["statusCode"], "404");
    assert_eq!(
        std::fs::read_dir(gw.data_dir.join("storage/versions"))
            .unwrap()
            .count(),
        versions,
        "a refused PUT leaves no bytes"
    );
    let r = svc
        .send("POST", "/storage/v1/bucket/raw-test/empty", &[], None)
        .await;
    assert_eq!(
        r.json()["message"],
        "Empty bucket has been queued. Completion may take up to an hour."
    );
}

#[tokio::test]
async fn the_global_limit_and_bucket_limits_stop_uploads() {
    let small = support::shop_with(&["--storage-file-size-limit", "1000"]).await;
    let svc = Api::service(&small);
    small
        .sql("INSERT INTO storage.buckets (id, name, public) VALUES ('open', 'open', true)")
        .await;
    let r = put_raw(
        &svc,
        "open/big.bin",
        vec![1u8; 1500],
        "application/octet-stream",
        &[],
    )
    .await;
    assert_eq!(
        (r.status, r.json()["statusCode"].clone()),
        (400, json!("413"))
    );
    let r = put_raw(
        &svc,
        "open/ok.bin",
        vec![1u8; 900],
        "application/octet-stream",
        &[],
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let stored: Vec<_> = std::fs::read_dir(small.data_dir.join("storage/versions"))
        .unwrap()
        .collect();
    assert_eq!(stored.len(), 1, "only the accepted upload is stored");
}

#[tokio::test]
async fn an_interrupted_upload_leaves_no_row_and_no_bytes() {
    let gw = &support::shop().await;
    let svc = Api::service(gw);
    gw.sql("INSERT INTO storage.buckets (id, name) VALUES ('cut', 'cut')")
        .await;
    let addr = gw.url.trim_start_matches("http://").to_string();
    let mut s = std::net::TcpStream::connect(&addr).unwrap();
    let head = format!(
        "POST /storage/v1/object/cut/partial.bin HTTP/1.1\r\nHost: {addr}\r\napikey: {k}\r\nauthorization: Bearer {k}\r\ncontent-type: application/octet-stream\r\ncontent-length: 4000000\r\n\r\n",
        k = gw.service
    );
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(&vec![9u8; 300_000]).unwrap();
    s.flush().unwrap();
    drop(s);
    // The upload's staging file appears as soon as its bytes are received (bounded wait: a
    // gateway quicker than this loop may have removed it already), then goes once the gateway
    // has noticed the cut connection.
    let dir = gw.data_dir.join("storage/versions");
    let staged = || std::fs::read_dir(&dir).is_ok_and(|d| d.flatten().next().is_some());
    let t0 = std::time::Instant::now();
    while !staged() && t0.elapsed() < std::time::Duration::from_secs(2) {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    while staged() {
        assert!(
            t0.elapsed() < std::time::Duration::from_secs(10),
            "the cut upload's bytes stayed"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let list = svc
        .send(
            "POST",
            "/storage/v1/object/list/cut",
            &[],
            Some(r#"{"prefix":""}"#),
        )
        .await;
    assert_eq!(list.json(), json!([]));
    let dir = gw.data_dir.join("storage/versions");
    let left: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "partial bytes left behind: {left:?}");
    // The connection-level answer is not observable here; the gateway still serves requests.
    let mut probe = std::net::TcpStream::connect(&addr).unwrap();
    probe
        .write_all(
            format!("GET /health HTTP/1.1\r\nHost: {addr}\r\nconnection: close\r\n\r\n").as_bytes(),
        )
        .unwrap();
    let mut out = String::new();
    probe.read_to_string(&mut out).unwrap();
    assert!(out.starts_with("HTTP/1.1 200"));
}

#[tokio::test]
async fn storage_errors_have_storage_api_bodies() {
    let gw = &support::shop().await;
    let anon = Api::anon(gw);
    let r = anon
        .get("/storage/v1/object/public/product-images/nothing-here.png")
        .await;
    assert_eq!(
        (r.status, r.json()),
        (
            400,
            json!({"statusCode":"404","code":"NoSuchKey","error":"not_found","message":"Object not found"})
        )
    );
    let r = anon.get("/storage/v1/object/public/no-bucket/x.png").await;
    assert_eq!(r.json()["code"], "NoSuchBucket");
    let mut bad = Api::anon(gw);
    bad.token = Some("not.a.jwt".into());
    let r = bad.get("/storage/v1/bucket").await;
    assert_eq!(
        (r.status, r.json()["code"].clone()),
        (400, json!("InvalidJWT"))
    );
    let r = anon
        .send(
            "DELETE",
            "/storage/v1/object/product-images",
            &[],
            Some(r#"{"prefixes":[]}"#),
        )
        .await;
    assert_eq!(r.json()["code"], "InvalidRequest");
    let r = anon.get("/storage/v1/nope").await;
    assert_eq!(r.json()["statusCode"], "404");
    let r = Api::service(gw)
        .send(
            "POST",
            "/storage/v1/bucket",
            &[],
            Some(r#"{"id":"product-images"}"#),
        )
        .await;
    assert_eq!(r.json()["statusCode"], "409");
}
