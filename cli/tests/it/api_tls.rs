//! `[api.tls]` and `[api] external_url`: the API over HTTPS with a certificate the project names
//! (a client that trusts its CA gets answers, one that does not is refused, plain HTTP gets
//! nothing), with a certificate of the project's own when it names none (kept across
//! restarts), and the external URL the project gives as its API_URL.

use crate::support;
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};

/// A CA's certificate and a server certificate for 127.0.0.1 and localhost it signed (PEM, key PEM).
fn certificates() -> (String, String, String) {
    let ca_key = KeyPair::generate().unwrap();
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name
        .push(DnType::CommonName, "api test CA");
    let ca_cert = ca.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca, ca_key);
    let key = KeyPair::generate().unwrap();
    let server = CertificateParams::new(vec!["127.0.0.1".into(), "localhost".into()]).unwrap();
    let cert = server.signed_by(&key, &issuer).unwrap();
    (ca_cert.pem(), cert.pem(), key.serialize_pem())
}

fn client_trusting(pem: &str) -> reqwest::Client {
    reqwest::Client::builder()
        .add_root_certificate(reqwest::Certificate::from_pem(pem.as_bytes()).unwrap())
        .build()
        .unwrap()
}

async fn rest_status(client: &reqwest::Client, gw: &support::Gateway) -> Result<u16, String> {
    client
        .get(format!("{}/rest/v1/", gw.url))
        .header("apikey", &gw.anon)
        .send()
        .await
        .map(|r| r.status().as_u16())
        .map_err(|e| format!("{e:?}"))
}

#[tokio::test]
async fn https_with_the_certificate_the_project_names() {
    let (ca, cert, key) = certificates();
    let dir = support::scratch_project(&[
        (
            "supabase/config.toml",
            "[api.tls]\nenabled = true\ncert_path = \"certs/api.crt\"\nkey_path = \"certs/api.key\"\n",
        ),
        ("supabase/certs/api.crt", &cert),
        ("supabase/certs/api.key", &key),
    ]);
    let gw = support::start_project(&dir, &[]);
    assert!(gw.url.starts_with("https://127.0.0.1:"), "{}", gw.url);
    assert_eq!(rest_status(&client_trusting(&ca), &gw).await, Ok(200));
    // A client that does not trust the CA is refused; plain HTTP gets no answer.
    let untrusted = rest_status(&reqwest::Client::new(), &gw).await;
    assert!(untrusted.is_err(), "{untrusted:?}");
    let plain = reqwest::Client::new()
        .get(gw.url.replace("https://", "http://"))
        .send()
        .await;
    assert!(plain.is_err() || plain.unwrap().status().as_u16() >= 400);
}

#[tokio::test]
async fn https_with_a_certificate_of_the_project_s_own() {
    let dir = support::scratch_project(&[("supabase/config.toml", "[api.tls]\nenabled = true\n")]);
    let gw = support::start_project(&dir, &[]);
    assert!(gw.url.starts_with("https://"), "{}", gw.url);
    let made = gw.data_dir.join("api-tls/cert.pem");
    let pem = std::fs::read_to_string(&made).unwrap();
    assert_eq!(rest_status(&client_trusting(&pem), &gw).await, Ok(200));
    // Kept: the next start serves the same certificate.
    let data_dir = gw.data_dir.clone();
    gw.stop();
    let gw = support::start_on(&dir, &data_dir, &[]);
    assert_eq!(std::fs::read_to_string(&made).unwrap(), pem);
    assert_eq!(rest_status(&client_trusting(&pem), &gw).await, Ok(200));
}

#[test]
fn the_external_url_is_the_api_url_and_a_half_pair_is_refused() {
    let dir = support::scratch_project(&[(
        "supabase/config.toml",
        "[api]\nexternal_url = \"https://shop.example.test\"\n",
    )]);
    let gw = support::start_project(&dir, &[]);
    assert_eq!(gw.status["API_URL"], "https://shop.example.test");
    assert_eq!(gw.status["REST_URL"], "https://shop.example.test/rest/v1");
    gw.stop();
    let dir = support::scratch_project(&[(
        "supabase/config.toml",
        "[api.tls]\nenabled = true\ncert_path = \"api.crt\"\n",
    )]);
    let out = support::run_cli(&dir, &support::scratch_dir("half-tls"), &["start"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("api.tls") && err.contains("go together"),
        "{err}"
    );
}
