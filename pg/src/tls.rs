//! TLS to an external PostgreSQL server, decided as libpq decides it: `sslmode` (disable, allow,
//! prefer, require, verify-ca, verify-full), `sslrootcert` (a PEM file, or `system` for the
//! machine's trusted roots), `sslcert` and `sslkey` for a client certificate. Built on rustls.

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::{ClientConfig, WebPkiServerVerifier};
use rustls::crypto::{CryptoProvider, verify_tls12_signature, verify_tls13_signature};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, Error as TlsError, RootCertStore};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Why TLS settings could not be made, in libpq's words where libpq has them.
#[derive(Debug, thiserror::Error)]
pub enum TlsSetupError {
    #[error("invalid sslmode value: \"{0}\"")]
    SslMode(String),
    #[error(
        "weak sslmode \"{}\" may not be used with sslrootcert=system (use \"verify-full\")",
        .0.as_str()
    )]
    WeakModeWithSystemRoots(SslMode),
    #[error(
        "root certificate file \"{0}\" does not exist\nEither provide the file, use the system's \
         trusted roots with sslrootcert=system, or change sslmode to disable server certificate \
         verification."
    )]
    NoRootFile(String),
    #[error("could not read root certificate file \"{}\": {}", .0.display(), .1)]
    ReadRoots(PathBuf, rustls::pki_types::pem::Error),
    #[error("invalid root certificate in \"{}\": {}", .0.display(), .1)]
    BadRoot(PathBuf, TlsError),
    #[error("root certificate file \"{}\" holds no certificate", .0.display())]
    NoRoots(PathBuf),
    #[error("sslrootcert=system: this machine has no trusted root certificates")]
    NoSystemRoots,
    #[error(transparent)]
    Rustls(#[from] TlsError),
    #[error(transparent)]
    Verifier(#[from] rustls::client::VerifierBuilderError),
    #[error("could not read certificate file \"{}\": {}", .0.display(), .1)]
    ReadCert(PathBuf, rustls::pki_types::pem::Error),
    #[error("could not read private key file \"{}\": {}", .0.display(), .1)]
    ReadKey(PathBuf, rustls::pki_types::pem::Error),
    #[error("client certificate: {0}")]
    ClientCert(TlsError),
    #[error("a client certificate needs both sslcert and sslkey")]
    HalfClientCert,
    #[error("server name {0:?}: {1}")]
    ServerName(String, rustls::pki_types::InvalidDnsNameError),
}

/// libpq's `sslmode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SslMode {
    /// Never TLS.
    Disable,
    /// Plain first; TLS only if the server refuses a plain connection.
    Allow,
    /// TLS when the server offers it, without checking its certificate (libpq's default).
    Prefer,
    /// TLS or nothing, without checking the certificate (unless a root certificate is given).
    Require,
    /// TLS with a certificate signed by a trusted root, whatever host name it names.
    VerifyCa,
    /// TLS with a trusted certificate for the host connected to.
    VerifyFull,
}

impl SslMode {
    pub fn parse(s: &str) -> Result<SslMode, TlsSetupError> {
        Ok(match s {
            "disable" => SslMode::Disable,
            "allow" => SslMode::Allow,
            "prefer" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" => SslMode::VerifyCa,
            "verify-full" => SslMode::VerifyFull,
            other => return Err(TlsSetupError::SslMode(other.to_string())),
        })
    }

    /// Whether a connection without TLS is refused.
    pub fn requires_tls(self) -> bool {
        matches!(
            self,
            SslMode::Require | SslMode::VerifyCa | SslMode::VerifyFull
        )
    }

    pub fn as_str(self) -> &'static str {
        match self {
            SslMode::Disable => "disable",
            SslMode::Allow => "allow",
            SslMode::Prefer => "prefer",
            SslMode::Require => "require",
            SslMode::VerifyCa => "verify-ca",
            SslMode::VerifyFull => "verify-full",
        }
    }
}

/// The TLS files of a connection string (or of the PGSSL… variables).
#[derive(Debug, Clone, Default)]
pub struct TlsFiles {
    /// `sslrootcert`: a PEM file, or `system`.
    pub root_cert: Option<String>,
    pub cert: Option<PathBuf>,
    pub key: Option<PathBuf>,
}

/// How a login uses TLS: the mode and, unless it is `disable`, the rustls settings.
#[derive(Clone)]
pub struct Tls {
    pub mode: SslMode,
    pub config: Arc<ClientConfig>,
}

impl std::fmt::Debug for Tls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tls({})", self.mode.as_str())
    }
}

fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// libpq's default root certificate file.
fn default_root_cert() -> Option<PathBuf> {
    std::env::var_os("HOME").map(|h| Path::new(&h).join(".postgresql/root.crt"))
}

fn roots_from_file(path: &Path) -> Result<RootCertStore, TlsSetupError> {
    let mut roots = RootCertStore::empty();
    let unreadable = |e| TlsSetupError::ReadRoots(path.to_path_buf(), e);
    for c in CertificateDer::pem_file_iter(path).map_err(unreadable)? {
        roots
            .add(c.map_err(unreadable)?)
            .map_err(|e| TlsSetupError::BadRoot(path.to_path_buf(), e))?;
    }
    if roots.is_empty() {
        return Err(TlsSetupError::NoRoots(path.to_path_buf()));
    }
    Ok(roots)
}

fn system_roots() -> Result<RootCertStore, TlsSetupError> {
    let found = rustls_native_certs::load_native_certs();
    let mut roots = RootCertStore::empty();
    for c in found.certs {
        let _ = roots.add(c);
    }
    if roots.is_empty() {
        return Err(TlsSetupError::NoSystemRoots);
    }
    Ok(roots)
}

impl Tls {
    /// No TLS (unix sockets, `sslmode=disable`).
    pub fn disabled() -> Tls {
        Tls {
            mode: SslMode::Disable,
            config: Arc::new(unverified_config()),
        }
    }

    /// The settings libpq would use for `mode` and `files`.
    pub fn new(mode: SslMode, files: &TlsFiles) -> Result<Tls, TlsSetupError> {
        let system = files.root_cert.as_deref() == Some("system");
        if system && mode != SslMode::VerifyFull {
            return Err(TlsSetupError::WeakModeWithSystemRoots(mode));
        }
        // An explicit root file, or libpq's default one if it exists.
        let root_file: Option<PathBuf> = match files.root_cert.as_deref() {
            Some("system") | None => None,
            Some(p) => Some(PathBuf::from(p)),
        }
        .or_else(|| default_root_cert().filter(|p| p.is_file()));
        // As libpq: with a root certificate, `require` verifies the chain like `verify-ca`.
        let mode = if mode == SslMode::Require && root_file.is_some() {
            SslMode::VerifyCa
        } else {
            mode
        };
        let verifying = matches!(mode, SslMode::VerifyCa | SslMode::VerifyFull);
        let builder = ClientConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()?;
        let builder = if verifying {
            let roots = if system {
                system_roots()?
            } else {
                let path = root_file.ok_or_else(|| {
                    TlsSetupError::NoRootFile(
                        default_root_cert()
                            .map(|p| p.display().to_string())
                            .unwrap_or_else(|| "~/.postgresql/root.crt".into()),
                    )
                })?;
                roots_from_file(&path)?
            };
            let webpki =
                WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider()).build()?;
            let verifier: Arc<dyn ServerCertVerifier> = if mode == SslMode::VerifyFull {
                webpki
            } else {
                Arc::new(AnyName(webpki))
            };
            builder
                .dangerous()
                .with_custom_certificate_verifier(verifier)
        } else {
            builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(Unverified(provider())))
        };
        let config = match (&files.cert, &files.key) {
            (Some(cert), Some(key)) => {
                let chain = CertificateDer::pem_file_iter(cert)
                    .and_then(|i| i.collect::<Result<Vec<_>, _>>())
                    .map_err(|e| TlsSetupError::ReadCert(cert.clone(), e))?;
                let key = PrivateKeyDer::from_pem_file(key)
                    .map_err(|e| TlsSetupError::ReadKey(key.clone(), e))?;
                builder
                    .with_client_auth_cert(chain, key)
                    .map_err(TlsSetupError::ClientCert)?
            }
            (Some(_), None) | (None, Some(_)) => {
                return Err(TlsSetupError::HalfClientCert);
            }
            (None, None) => builder.with_no_client_auth(),
        };
        Ok(Tls {
            mode,
            config: Arc::new(config),
        })
    }

    /// The name a certificate is checked against: the host name, or its address.
    pub fn server_name(host: &str) -> Result<ServerName<'static>, TlsSetupError> {
        ServerName::try_from(host.to_string())
            .map_err(|e| TlsSetupError::ServerName(host.to_string(), e))
    }
}

fn unverified_config() -> ClientConfig {
    ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .expect("ring supports the default protocol versions")
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(Unverified(provider())))
        .with_no_client_auth()
}

/// `prefer` and `require`: encrypted, but any certificate is accepted (libpq does the same).
/// The handshake's signatures are still checked.
#[derive(Debug)]
struct Unverified(Arc<CryptoProvider>);

impl ServerCertVerifier for Unverified {
    fn verify_server_cert(
        &self,
        _: &CertificateDer<'_>,
        _: &[CertificateDer<'_>],
        _: &ServerName<'_>,
        _: &[u8],
        _: UnixTime,
    ) -> Result<ServerCertVerified, TlsError> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, TlsError> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, TlsError> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// `verify-ca`: the chain must lead to a trusted root; the name in the certificate is not
/// compared with the host.
#[derive(Debug)]
struct AnyName(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for AnyName {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, TlsError> {
        match self
            .0
            .verify_server_cert(end_entity, intermediates, name, ocsp, now)
        {
            Err(TlsError::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, TlsError> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, TlsError> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_read_as_libpq_reads_them() {
        for m in [
            "disable",
            "allow",
            "prefer",
            "require",
            "verify-ca",
            "verify-full",
        ] {
            assert_eq!(SslMode::parse(m).unwrap().as_str(), m);
        }
        assert!(SslMode::parse("on").is_err());
        assert!(SslMode::VerifyCa.requires_tls() && !SslMode::Prefer.requires_tls());
    }

    /// The errors' texts, as they were written before they were variants.
    #[test]
    fn errors_read_as_libpq_words_them() {
        let dir = std::env::temp_dir().join(format!("pg-tls-errors-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let empty = dir.join("empty.crt");
        std::fs::write(&empty, "no certificate here\n").unwrap();
        let cases: Vec<(TlsSetupError, String)> = vec![
            (
                SslMode::parse("on").unwrap_err(),
                "invalid sslmode value: \"on\"".into(),
            ),
            (
                Tls::new(
                    SslMode::Require,
                    &TlsFiles {
                        root_cert: Some("system".into()),
                        ..TlsFiles::default()
                    },
                )
                .unwrap_err(),
                "weak sslmode \"require\" may not be used with sslrootcert=system (use \"verify-full\")"
                    .into(),
            ),
            (
                Tls::new(
                    SslMode::VerifyCa,
                    &TlsFiles {
                        root_cert: Some(empty.display().to_string()),
                        ..TlsFiles::default()
                    },
                )
                .unwrap_err(),
                format!("root certificate file \"{}\" holds no certificate", empty.display()),
            ),
            (
                Tls::new(
                    SslMode::Prefer,
                    &TlsFiles {
                        cert: Some(empty.clone()),
                        ..TlsFiles::default()
                    },
                )
                .unwrap_err(),
                "a client certificate needs both sslcert and sslkey".into(),
            ),
            (
                TlsSetupError::NoRootFile("/home/x/.postgresql/root.crt".into()),
                "root certificate file \"/home/x/.postgresql/root.crt\" does not exist\nEither \
                 provide the file, use the system's trusted roots with sslrootcert=system, or \
                 change sslmode to disable server certificate verification."
                    .into(),
            ),
            (
                TlsSetupError::NoSystemRoots,
                "sslrootcert=system: this machine has no trusted root certificates".into(),
            ),
            (
                Tls::server_name("bad host").unwrap_err(),
                "server name \"bad host\": invalid dns name".into(),
            ),
        ];
        for (e, want) in cases {
            assert_eq!(e.to_string(), want);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn verification_needs_a_root_certificate() {
        let files = TlsFiles {
            root_cert: Some("/nonexistent/root.crt".into()),
            ..TlsFiles::default()
        };
        let e = Tls::new(SslMode::VerifyFull, &files)
            .unwrap_err()
            .to_string();
        assert!(e.contains("/nonexistent/root.crt"), "{e}");
        let system = TlsFiles {
            root_cert: Some("system".into()),
            ..TlsFiles::default()
        };
        let e = Tls::new(SslMode::Require, &system).unwrap_err().to_string();
        assert!(e.contains("verify-full"), "{e}");
        assert_eq!(
            Tls::new(SslMode::Prefer, &TlsFiles::default())
                .unwrap()
                .mode,
            SslMode::Prefer
        );
    }
}
