//! Where and as whom to log in: tokio-postgres' settings plus the TLS settings libpq would take
//! from the same connection string (`sslmode`, `sslrootcert`, `sslcert`, `sslkey`, or the
//! `PGSSLMODE`, `PGSSLROOTCERT`, `PGSSLCERT` and `PGSSLKEY` variables), in URL
//! (`postgresql://…?sslmode=verify-full`) or keyword (`host=… sslmode=require`) form.

use crate::tls::{SslMode, Tls, TlsFiles};
use std::path::Path;
use tokio_postgres::config::SslMode as PgSslMode;
use tokio_postgres::tls::MakeTlsConnect;
use tokio_postgres::{Client, Socket};
use tokio_postgres_rustls::MakeRustlsConnect;

/// A connection's background task, for code that reads its notifications itself.
pub type Connection =
    tokio_postgres::Connection<Socket, <MakeRustlsConnect as MakeTlsConnect<Socket>>::Stream>;

#[derive(Debug, thiserror::Error)]
pub enum LoginError {
    #[error("the connection string is not valid: {0}")]
    Invalid(String),
    #[error("the connection string is not valid: {0}")]
    SslMode(crate::tls::TlsSetupError),
    #[error("TLS: {0}")]
    Tls(crate::tls::TlsSetupError),
}

/// Settings of one login (host, port, user, password, database, TLS).
#[derive(Clone, Debug)]
pub struct Login {
    pub(crate) config: tokio_postgres::Config,
    pub(crate) tls: Tls,
}

/// The parameters only libpq knows (tokio-postgres refuses them).
const TLS_KEYS: [&str; 4] = ["sslmode", "sslrootcert", "sslcert", "sslkey"];

/// Splits a keyword/value connection string into its pairs (values may be single-quoted, with
/// `\'` and `\\` escapes).
fn keyword_pairs(s: &str) -> Result<Vec<(String, String)>, LoginError> {
    let mut out = Vec::new();
    let mut chars = s.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        if chars.peek().is_none() {
            return Ok(out);
        }
        let mut key = String::new();
        while let Some(&c) = chars.peek() {
            if c == '=' || c.is_whitespace() {
                break;
            }
            key.push(c);
            chars.next();
        }
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        if chars.next() != Some('=') {
            return Err(LoginError::Invalid(format!(
                "missing \"=\" after \"{key}\""
            )));
        }
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        let mut value = String::new();
        if chars.peek() == Some(&'\'') {
            chars.next();
            loop {
                match chars.next() {
                    Some('\\') => value.extend(chars.next()),
                    Some('\'') => break,
                    Some(c) => value.push(c),
                    None => {
                        return Err(LoginError::Invalid(format!(
                            "unterminated quoted value of \"{key}\""
                        )));
                    }
                }
            }
        } else {
            while let Some(&c) = chars.peek() {
                if c.is_whitespace() {
                    break;
                }
                value.push(c);
                chars.next();
            }
        }
        out.push((key, value));
    }
}

fn quote(v: &str) -> String {
    format!("'{}'", v.replace('\\', "\\\\").replace('\'', "\\'"))
}

/// The connection string without libpq's TLS parameters, and those parameters.
fn split_tls(dsn: &str) -> Result<(String, Vec<(String, String)>), LoginError> {
    let is_url = dsn.starts_with("postgres://") || dsn.starts_with("postgresql://");
    if is_url {
        let Some((base, query)) = dsn.split_once('?') else {
            return Ok((dsn.to_string(), Vec::new()));
        };
        let (tls, rest): (Vec<_>, Vec<_>) = url::form_urlencoded::parse(query.as_bytes())
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .partition(|(k, _)| TLS_KEYS.contains(&k.as_str()));
        let rest: String = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(rest)
            .finish();
        let url = if rest.is_empty() {
            base.to_string()
        } else {
            format!("{base}?{rest}")
        };
        return Ok((url, tls));
    }
    let (tls, rest): (Vec<_>, Vec<_>) = keyword_pairs(dsn)?
        .into_iter()
        .partition(|(k, _)| TLS_KEYS.contains(&k.as_str()));
    let rest = rest
        .iter()
        .map(|(k, v)| format!("{k}={}", quote(v)))
        .collect::<Vec<_>>()
        .join(" ");
    Ok((rest, tls))
}

impl Login {
    /// Reads a connection string as libpq does, TLS included.
    pub fn parse(dsn: &str) -> Result<Login, LoginError> {
        let (rest, tls) = split_tls(dsn)?;
        let config: tokio_postgres::Config = rest
            .parse()
            .map_err(|e: tokio_postgres::Error| LoginError::Invalid(e.to_string()))?;
        let given = |key: &str, var: &str| {
            tls.iter()
                .rev()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.clone())
                .or_else(|| std::env::var(var).ok())
                .filter(|v| !v.is_empty())
        };
        let mode = match given("sslmode", "PGSSLMODE") {
            Some(m) => SslMode::parse(&m).map_err(LoginError::SslMode)?,
            None => SslMode::Prefer,
        };
        let files = TlsFiles {
            root_cert: given("sslrootcert", "PGSSLROOTCERT"),
            cert: given("sslcert", "PGSSLCERT").map(Into::into),
            key: given("sslkey", "PGSSLKEY").map(Into::into),
        };
        // As libpq, sslmode does not apply to unix sockets.
        let unix_only = config
            .get_hosts()
            .iter()
            .all(|h| !matches!(h, tokio_postgres::config::Host::Tcp(_)));
        let tls = if mode == SslMode::Disable || unix_only {
            Tls::disabled()
        } else {
            Tls::new(mode, &files).map_err(LoginError::Tls)?
        };
        let mut login = Login { config, tls };
        login.apply_mode();
        Ok(login)
    }

    /// A login over the unix socket in `dir` (the embedded cluster): no TLS.
    pub fn unix(dir: &Path, port: u16, user: &str, dbname: &str) -> Login {
        let mut config = tokio_postgres::Config::new();
        config.host_path(dir).port(port).user(user).dbname(dbname);
        let mut login = Login {
            config,
            tls: Tls::disabled(),
        };
        login.apply_mode();
        login
    }

    /// tokio-postgres' own mode: it knows disable, prefer and require; verification is ours.
    fn apply_mode(&mut self) {
        self.config.ssl_mode(match self.tls.mode {
            SslMode::Disable | SslMode::Allow => PgSslMode::Disable,
            SslMode::Prefer => PgSslMode::Prefer,
            SslMode::Require | SslMode::VerifyCa | SslMode::VerifyFull => PgSslMode::Require,
        });
    }

    pub fn user(&self) -> &str {
        self.config.get_user().unwrap_or("postgres")
    }

    pub fn password(&self) -> Option<String> {
        self.config
            .get_password()
            .map(|p| String::from_utf8_lossy(p).into_owned())
    }

    pub fn dbname(&self) -> &str {
        self.config.get_dbname().unwrap_or_else(|| self.user())
    }

    pub fn ssl_mode(&self) -> SslMode {
        self.tls.mode
    }

    /// The same login as another user.
    pub fn with_user(&self, user: &str) -> Login {
        let mut l = self.clone();
        l.config.user(user);
        l
    }

    pub fn with_password(&self, password: &str) -> Login {
        let mut l = self.clone();
        l.config.password(password);
        l
    }

    /// The same login on another database of the server.
    pub fn with_dbname(&self, dbname: &str) -> Login {
        let mut l = self.clone();
        l.config.dbname(dbname);
        l
    }

    /// The same login with a setting every session it opens starts with (`-c name=value` in the
    /// startup options, after those it had). None when the value cannot be given so: empty,
    /// longer than 1000 bytes, or with whitespace, a backslash or a control character (the
    /// options' own syntax).
    pub fn with_setting(&self, name: &str, value: &str) -> Option<Login> {
        let plain = |s: &str| {
            !s.is_empty()
                && s.len() <= 1000
                && !s
                    .chars()
                    .any(|c| c.is_whitespace() || c.is_control() || c == '\\')
        };
        if !plain(name) || !plain(value) || name.contains('=') {
            return None;
        }
        let mut l = self.clone();
        let option = format!("-c {name}={value}");
        let options = match self.config.get_options() {
            Some(o) if !o.trim().is_empty() => format!("{o} {option}"),
            _ => option,
        };
        l.config.options(&options);
        Some(l)
    }

    pub fn with_application_name(&self, name: &str) -> Login {
        let mut l = self.clone();
        l.config.application_name(name);
        l
    }

    fn connector(&self) -> MakeRustlsConnect {
        MakeRustlsConnect::new((*self.tls.config).clone())
    }

    /// Opens a connection and hands its background task to the caller (to read notifications).
    pub async fn connect_raw(&self) -> Result<(Client, Connection), tokio_postgres::Error> {
        match self.config.connect(self.connector()).await {
            // `allow`: plain first, TLS when the server wants it.
            Err(_) if self.tls.mode == SslMode::Allow => {
                let mut c = self.config.clone();
                c.ssl_mode(PgSslMode::Require);
                c.connect(self.connector()).await
            }
            other => other,
        }
    }

    /// Opens a connection whose background task runs until the connection ends.
    pub async fn connect(&self) -> Result<Client, tokio_postgres::Error> {
        let (client, conn) = self.connect_raw().await?;
        tokio::spawn(async move {
            if let Err(e) = conn.await {
                tracing::debug!("connection closed: {e}");
            }
        });
        Ok(client)
    }

    pub(crate) fn config(&self) -> &tokio_postgres::Config {
        &self.config
    }

    pub(crate) fn tls(&self) -> &Tls {
        &self.tls
    }
}

/// An error with the errors that caused it ("error performing TLS handshake: invalid peer
/// certificate: UnknownIssuer").
pub fn describe(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let more = c.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        cause = c.source();
    }
    text
}

/// Why [`connect`] got no connection.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// No session: the error with its causes ([`describe`]).
    #[error("cannot connect to PostgreSQL: {}", describe(.0))]
    Connect(tokio_postgres::Error),
    /// The session refused its settings.
    #[error("cannot configure the connection: {0}")]
    Configure(tokio_postgres::Error),
}

/// A connection for administrative work (migrations, commands, housekeeping), quiet about
/// notices such as migrations' "already exists, skipping".
pub async fn connect(login: &Login) -> Result<Client, ConnectError> {
    let client = login.connect().await.map_err(ConnectError::Connect)?;
    client
        .batch_execute("SET client_min_messages = warning")
        .await
        .map_err(ConnectError::Configure)?;
    Ok(client)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tls_parameters_are_taken_out_of_urls_and_keywords() {
        let (rest, tls) = split_tls(
            "postgresql://u:p@db.example.com:6543/app?sslmode=verify-full&sslrootcert=%2Fetc%2Fca.pem&application_name=x",
        )
        .unwrap();
        assert_eq!(
            rest,
            "postgresql://u:p@db.example.com:6543/app?application_name=x"
        );
        assert_eq!(
            tls,
            [
                ("sslmode".to_string(), "verify-full".to_string()),
                ("sslrootcert".to_string(), "/etc/ca.pem".to_string())
            ]
        );
        let (rest, tls) =
            split_tls("host=db port=5432 password='it\\'s x' sslmode=require").unwrap();
        assert_eq!(tls, [("sslmode".to_string(), "require".to_string())]);
        let parsed: tokio_postgres::Config = rest.parse().unwrap();
        assert_eq!(parsed.get_password(), Some("it's x".as_bytes()));
    }

    #[test]
    fn logins_keep_their_mode() {
        let l = Login::parse("postgresql://u@127.0.0.1/app?sslmode=require").unwrap();
        assert_eq!(l.ssl_mode(), SslMode::Require);
        assert_eq!((l.user(), l.dbname()), ("u", "app"));
        let l = Login::parse("postgresql://u@127.0.0.1/app?sslmode=disable").unwrap();
        assert_eq!(l.ssl_mode(), SslMode::Disable);
        assert!(Login::parse("postgresql://u@h/app?sslmode=sometimes").is_err());
        let api = l.with_user("authenticator").with_password("pw");
        assert_eq!(
            (api.user(), api.password().as_deref()),
            ("authenticator", Some("pw"))
        );
    }

    /// `connect`'s errors read as the texts it returned before it had a type.
    #[tokio::test]
    async fn connect_errors_keep_their_texts() {
        let bad = || {
            "port=notanumber"
                .parse::<tokio_postgres::Config>()
                .unwrap_err()
        };
        // (the error, the text the String error had)
        let cases = [
            (
                ConnectError::Connect(bad()),
                format!("cannot connect to PostgreSQL: {}", describe(&bad())),
            ),
            (
                ConnectError::Configure(bad()),
                format!("cannot configure the connection: {}", bad()),
            ),
        ];
        for (e, text) in cases {
            assert_eq!(e.to_string(), text);
        }
        // Nothing listens on port 1: the cause (refused) is named after the driver's words.
        let closed = Login::parse("postgresql://u@127.0.0.1:1/db?sslmode=disable").unwrap();
        match connect(&closed).await {
            Err(ConnectError::Connect(cause)) => {
                let before = format!("cannot connect to PostgreSQL: {}", describe(&cause));
                let text = ConnectError::Connect(cause).to_string();
                assert_eq!(text, before);
                assert!(
                    text.starts_with("cannot connect to PostgreSQL: error connecting to server: "),
                    "{text}"
                );
            }
            other => panic!("expected a refused connection, got {:?}", other.map(|_| ())),
        }
    }
}
