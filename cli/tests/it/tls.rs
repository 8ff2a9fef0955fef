//! An external PostgreSQL over TLS: a server started with `ssl=on` and a certificate of a test
//! CA, whose pg_hba.conf accepts TCP connections only over TLS. supagate starts on it (migrations,
//! REST's pipelined connections, auth, LISTEN) with `sslmode=require`, and with `verify-full`
//! given the CA (and `verify-ca` whatever name the certificate has); it refuses a server whose
//! certificate the given CA did not sign, or (verify-full) names another host.

use crate::support;
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use support::table::{self, get, post};

/// A CA's certificate (PEM) and a server certificate for `names` signed by it (PEM, key PEM).
fn certificates(ca_name: &str, names: &[&str]) -> (String, String, String) {
    let ca_key = KeyPair::generate().unwrap();
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name.push(DnType::CommonName, ca_name);
    let ca_cert = ca.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca, ca_key);
    let key = KeyPair::generate().unwrap();
    let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
    let mut server = CertificateParams::new(names).unwrap();
    server
        .distinguished_name
        .push(DnType::CommonName, "supagate test server");
    let cert = server.signed_by(&key, &issuer).unwrap();
    (ca_cert.pem(), cert.pem(), key.serialize_pem())
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// A PostgreSQL cluster of this test's own that speaks TCP only over TLS.
struct TlsServer {
    pg: pg::embedded::EmbeddedPg,
    port: u16,
    ca: PathBuf,
}

impl Drop for TlsServer {
    fn drop(&mut self) {
        let _guard = pg::embedded::StopGuard(&self.pg);
    }
}

async fn tls_server(dir: &Path) -> TlsServer {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    let (ca, cert, key) = certificates("supagate test CA", &["localhost"]);
    let port = free_port();
    let bin = pg::embedded::find_binaries(None, None, None).expect("PostgreSQL's server programs");
    let files = dir.join("tls");
    std::fs::create_dir_all(&files).unwrap();
    let (cert_file, key_file, ca_file) = (
        files.join("server.crt"),
        files.join("server.key"),
        dir.join("ca.crt"),
    );
    std::fs::write(&cert_file, cert).unwrap();
    std::fs::write(&key_file, key).unwrap();
    std::fs::write(&ca_file, ca).unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&key_file, std::fs::Permissions::from_mode(0o600)).unwrap();
        // PostgreSQL (run as `postgres` when we are root) must be able to read them.
        std::fs::set_permissions(&files, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    if is_root() {
        let ok = Command::new("chown")
            .args(["-R", "postgres:"])
            .arg(&files)
            .status()
            .unwrap();
        assert!(ok.success());
    }
    let settings = format!(
        "ssl=on ssl_cert_file={} ssl_key_file={}",
        cert_file.display(),
        key_file.display()
    );
    let pg = pg::embedded::EmbeddedPg::new(bin, dir, port, &settings);
    pg.ensure_initialized().await.unwrap();
    // TCP only over TLS; the unix socket for this test's own checks.
    std::fs::write(
        dir.join("pg/pg_hba.conf"),
        "local all all trust\nhostssl all all 127.0.0.1/32 scram-sha-256\n",
    )
    .unwrap();
    pg.start().await.unwrap();
    TlsServer {
        pg,
        port,
        ca: ca_file,
    }
}

fn project() -> PathBuf {
    support::scratch_project(&[
        ("supabase/config.toml", "project_id = \"tls\"\n"),
        (
            "supabase/migrations/20250101000000_tls.sql",
            "CREATE FUNCTION public.tls() RETURNS boolean LANGUAGE sql SECURITY DEFINER AS \
             $$ SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid() $$;\n\
             GRANT EXECUTE ON FUNCTION public.tls() TO anon;",
        ),
    ])
}

fn url(server: &TlsServer, host: &str, params: &str) -> String {
    format!(
        "postgresql://postgres:postgres@{host}:{}/postgres?{params}",
        server.port
    )
}

/// Starts supagate on the server and expects it to fail, with stderr.
fn fails_to_start(workdir: &Path, database_url: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_supagate"))
        .arg("--workdir")
        .arg(workdir)
        .arg("--data-dir")
        .arg(workdir.join("data"))
        .args([
            "--port",
            "0",
            "--mail-port",
            "0",
            "--studio-port",
            "0",
            "start",
            "-o",
            "json",
        ])
        .env("DATABASE_URL", database_url)
        .env("RUST_LOG", "error")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success(), "it started");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[tokio::test]
async fn an_external_server_over_tls() {
    let dir = support::scratch_dir("tls");
    let server = tls_server(&dir).await;
    let workdir = project();

    // sslmode=require: encrypted, whatever the certificate. Every connection supagate opens is
    // TLS (plain TCP is refused by the server): migrations, REST's pipelined connections, auth.
    let gw = support::start_project_env(
        &workdir,
        &[],
        &[(
            "DATABASE_URL",
            &url(&server, "127.0.0.1", "sslmode=require"),
        )],
    );
    table::run(
        &gw,
        vec![
            post("/rest/v1/rpc/tls", "{}")
                .says("REST's connection is encrypted")
                .status(200)
                .text("true"),
            post(
                "/auth/v1/signup",
                r#"{"email":"tls@example.com","password":"secret123"}"#,
            )
            .header("x-supabase-api-version", "2024-01-01")
            .says("auth works over TLS")
            .status(200),
            get("/rest/v1/")
                .says("the schema cache was loaded over TLS")
                .status(200),
        ],
    )
    .await;
    drop(gw);

    // verify-full with the CA: the certificate names localhost.
    let ca = server.ca.display().to_string();
    let gw = support::start_project_env(
        &workdir,
        &[],
        &[(
            "DATABASE_URL",
            &url(
                &server,
                "localhost",
                &format!("sslmode=verify-full&sslrootcert={ca}"),
            ),
        )],
    );
    table::run(
        &gw,
        vec![
            post("/rest/v1/rpc/tls", "{}")
                .says("verify-full with the server's CA")
                .status(200)
                .json(json!(true)),
        ],
    )
    .await;
    drop(gw);

    // Another CA: the server's certificate is refused.
    let (other_ca, _, _) = certificates("another CA", &["localhost"]);
    let other = dir.join("other-ca.crt");
    std::fs::write(&other, other_ca).unwrap();
    let err = fails_to_start(
        &workdir,
        &url(
            &server,
            "localhost",
            &format!("sslmode=verify-full&sslrootcert={}", other.display()),
        ),
    );
    assert!(err.contains("UnknownIssuer"), "{err}");
    // verify-full checks the name: the certificate names localhost, not 127.0.0.1.
    let err = fails_to_start(
        &workdir,
        &url(
            &server,
            "127.0.0.1",
            &format!("sslmode=verify-full&sslrootcert={ca}"),
        ),
    );
    assert!(err.contains("certificate"), "{err}");
    // verify-ca does not: the chain is the CA's, whatever the name.
    let gw = support::start_project_env(
        &workdir,
        &[],
        &[(
            "DATABASE_URL",
            &url(
                &server,
                "127.0.0.1",
                &format!("sslmode=verify-ca&sslrootcert={ca}"),
            ),
        )],
    );
    table::run(
        &gw,
        vec![
            post("/rest/v1/rpc/tls", "{}")
                .says("verify-ca whatever the name")
                .status(200)
                .json(json!(true)),
        ],
    )
    .await;
    drop(gw);
    // Without TLS the server refuses the connection.
    let err = fails_to_start(&workdir, &url(&server, "127.0.0.1", "sslmode=disable"));
    assert!(
        err.contains("no encryption") || err.contains("pg_hba.conf"),
        "{err}"
    );
}
