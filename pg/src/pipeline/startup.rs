//! Logging in on a pipelined connection: the startup message, then password authentication
//! as the server asks for it (cleartext, MD5, SCRAM-SHA-256), up to ReadyForQuery.

use super::conn::{Conn, server_error, unexpected};
use super::error::PgError;
use fallible_iterator::FallibleIterator;
use postgres_protocol::authentication::{md5_hash, sasl};
use postgres_protocol::message::{backend::Message, frontend};

impl Conn {
    pub(super) async fn startup(&mut self, cfg: &tokio_postgres::Config) -> Result<(), PgError> {
        let user = cfg
            .get_user()
            .ok_or_else(|| PgError::Protocol("no user configured".into()))?;
        let mut params = vec![("user", user), ("client_encoding", "UTF8")];
        params.push(("database", cfg.get_dbname().unwrap_or(user)));
        params.push((
            "application_name",
            cfg.get_application_name().unwrap_or("supagate"),
        ));
        if let Some(o) = cfg.get_options() {
            params.push(("options", o));
        }
        frontend::startup_message(params, &mut self.wbuf)?;
        self.flush().await?;
        let password = cfg.get_password().unwrap_or_default().to_vec();
        let mut scram: Option<sasl::ScramSha256> = None;
        loop {
            match self.read().await? {
                Message::AuthenticationOk
                | Message::ParameterStatus(_)
                | Message::NoticeResponse(_) => {}
                Message::AuthenticationCleartextPassword => {
                    frontend::password_message(&password, &mut self.wbuf)?;
                    self.flush().await?;
                }
                Message::AuthenticationMd5Password(b) => {
                    let hash = md5_hash(user.as_bytes(), &password, b.salt());
                    frontend::password_message(hash.as_bytes(), &mut self.wbuf)?;
                    self.flush().await?;
                }
                Message::AuthenticationSasl(b) => {
                    let mut mechanisms = b.mechanisms();
                    let mut scram_offered = false;
                    while let Some(m) = mechanisms.next()? {
                        scram_offered |= m == sasl::SCRAM_SHA_256;
                    }
                    if !scram_offered {
                        return Err(PgError::Protocol(
                            "the server offers no SASL mechanism supagate speaks".into(),
                        ));
                    }
                    let s = sasl::ScramSha256::new(&password, sasl::ChannelBinding::unsupported());
                    frontend::sasl_initial_response(
                        sasl::SCRAM_SHA_256,
                        s.message(),
                        &mut self.wbuf,
                    )?;
                    scram = Some(s);
                    self.flush().await?;
                }
                Message::AuthenticationSaslContinue(b) => {
                    let s = scram
                        .as_mut()
                        .ok_or_else(|| PgError::Protocol("SASL out of order".into()))?;
                    s.update(b.data())?;
                    frontend::sasl_response(s.message(), &mut self.wbuf)?;
                    self.flush().await?;
                }
                Message::AuthenticationSaslFinal(b) => {
                    let s = scram
                        .as_mut()
                        .ok_or_else(|| PgError::Protocol("SASL out of order".into()))?;
                    s.finish(b.data())?;
                }
                Message::BackendKeyData(k) => {
                    self.cancel.process_id = k.process_id();
                    self.cancel.secret_key = k.secret_key();
                }
                Message::ErrorResponse(e) => return Err(server_error(&e)),
                Message::ReadyForQuery(r) => {
                    self.status = r.status();
                    return Ok(());
                }
                other => return Err(unexpected(&other)),
            }
        }
    }
}
