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
    pub fn parse(s: &str) -> Result<SslMode, String> {
        Ok(match s {
            "disable" => SslMode::Disable,
            "allow" => SslMode::Allow,
            "prefer" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" => SslMode::VerifyCa,
            "verify-full" => SslMode::VerifyFull,
            other => return Err(format!("invalid sslmode value: \"{other}\"")),
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

fn roots_from_file(path: &Path) -> Result<RootCertStore, String> {
    let mut roots = RootCertStore::empty();
    let certs = CertificateDer::pem_file_iter(path).map_err(|e| {
        format!(
            "could not read root certificate file \"{}\": {e}",
            path.display()
        )
    })?;
    for c in certs {
        let c = c.map_err(|e| {
            format!(
                "could not read root certificate file \"{}\": {e}",
                path.display()
            )
        })?;
        roots
            .add(c)
            .map_err(|e| format!("invalid root certificate in \"{}\": {e}", path.display()))?;
    }
    if roots.is_empty() {
        return Err(format!(
            "root certificate file \"{}\" holds no certificate",
            path.display()
        ));
    }
    Ok(roots)
}

fn system_roots() -> Result<RootCertStore, String> {
    let found = rustls_native_certs::load_native_certs();
    let mut roots = RootCertStore::empty();
    for c in found.certs {
        let _ = roots.add(c);
    }
    if roots.is_empty() {
        return Err("sslrootcert=system: this machine has no trusted root certificates".into());
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
    pub fn new(mode: SslMode, files: &TlsFiles) -> Result<Tls, String> {
        let system = files.root_cert.as_deref() == Some("system");
        if system && mode != SslMode::VerifyFull {
            return Err(format!(
                "weak sslmode \"{}\" may not be used with sslrootcert=system (use \"verify-full\")",
                mode.as_str()
            ));
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
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?;
        let builder = if verifying {
            let roots = if system {
                system_roots()?
            } else {
                let path = root_file.ok_or_else(|| {
                    format!(
                        "root certificate file \"{}\" does not exist\nEither provide the file, \
                         use the system's trusted roots with sslrootcert=system, or change \
                         sslmode to disable server certificate verification.",
                        default_root_cert()
                            .map(|p| p.display().to_string())
                            .unwrap_or_else(|| "~/.postgresql/root.crt".into())
                    )
                })?;
                roots_from_file(&path)?
            };
            let webpki = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider())
                .build()
                .map_err(|e| e.to_string())?;
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
                    .map_err(|e| {
                        format!(
                            "could not read certificate file \"{}\": {e}",
                            cert.display()
                        )
                    })?;
                let key = PrivateKeyDer::from_pem_file(key).map_err(|e| {
                    format!("could not read private key file \"{}\": {e}", key.display())
                })?;
                builder
                    .with_client_auth_cert(chain, key)
                    .map_err(|e| format!("client certificate: {e}"))?
            }
            (Some(_), None) | (None, Some(_)) => {
                return Err("a client certificate needs both sslcert and sslkey".into());
            }
            (None, None) => builder.with_no_client_auth(),
        };
        Ok(Tls {
            mode,
            config: Arc::new(config),
        })
    }

    /// The name a certificate is checked against: the host name, or its address.
    pub fn server_name(host: &str) -> Result<ServerName<'static>, String> {
        ServerName::try_from(host.to_string()).map_err(|e| format!("server name {host:?}: {e}"))
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

    #[test]
    fn verification_needs_a_root_certificate() {
        let files = TlsFiles {
            root_cert: Some("/nonexistent/root.crt".into()),
            ..TlsFiles::default()
        };
        let e = Tls::new(SslMode::VerifyFull, &files).unwrap_err();
        assert!(e.contains("/nonexistent/root.crt"), "{e}");
        let system = TlsFiles {
            root_cert: Some("system".into()),
            ..TlsFiles::default()
        };
        let e = Tls::new(SslMode::Require, &system).unwrap_err();
        assert!(e.contains("verify-full"), "{e}");
        assert_eq!(
            Tls::new(SslMode::Prefer, &TlsFiles::default())
                .unwrap()
                .mode,
            SslMode::Prefer
        );
    }
}
