//! Delivery through the project's SMTP server (`[auth.email.smtp]`): implicit TLS on port 465,
//! STARTTLS required elsewhere — except for a server on this machine (a local relay or a mail
//! catcher), spoken to in plain text — and authenticated when a user is given.

use super::{MailError, Message};
use lettre::message::{Mailbox, MultiPart};
use lettre::transport::smtp::authentication::Credentials;
use lettre::{AsyncSmtpTransport, AsyncTransport, Tokio1Executor};

pub struct Smtp {
    transport: AsyncSmtpTransport<Tokio1Executor>,
}

impl Smtp {
    pub fn new(cfg: &project::config::Smtp) -> Result<Smtp, MailError> {
        let local = cfg.host == "localhost"
            || cfg
                .host
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback());
        let builder = if local {
            AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(&cfg.host)
        } else if cfg.port == 465 {
            AsyncSmtpTransport::<Tokio1Executor>::relay(&cfg.host)
                .map_err(|e| MailError::Config(e.to_string()))?
        } else {
            AsyncSmtpTransport::<Tokio1Executor>::starttls_relay(&cfg.host)
                .map_err(|e| MailError::Config(e.to_string()))?
        }
        .port(cfg.port)
        .timeout(Some(std::time::Duration::from_secs(10)));
        let builder = if cfg.user.is_empty() {
            builder
        } else {
            builder.credentials(Credentials::new(cfg.user.clone(), cfg.pass.clone()))
        };
        Ok(Smtp {
            transport: builder.build(),
        })
    }

    pub async fn send(
        &self,
        (sender_name, sender): (&str, &str),
        m: &Message,
    ) -> Result<(), MailError> {
        let from: Mailbox = format!("{sender_name} <{sender}>")
            .parse()
            .or_else(|_| sender.parse())
            .map_err(|e: lettre::address::AddressError| MailError::Address {
                what: "sender",
                address: sender.to_string(),
                reason: e.to_string(),
            })?;
        let to: Mailbox =
            m.to.parse()
                .map_err(|e: lettre::address::AddressError| MailError::Address {
                    what: "recipient",
                    address: m.to.clone(),
                    reason: e.to_string(),
                })?;
        let mut email = lettre::Message::builder().from(from).to(to);
        if let Some(r) = &m.reply_to {
            let reply: Mailbox =
                r.parse()
                    .map_err(|e: lettre::address::AddressError| MailError::Address {
                        what: "reply-to",
                        address: r.clone(),
                        reason: e.to_string(),
                    })?;
            email = email.reply_to(reply);
        }
        let email = email
            .subject(&m.subject)
            .multipart(MultiPart::alternative_plain_html(
                m.text.clone(),
                m.html.clone(),
            ))
            .map_err(|e| MailError::Smtp(e.to_string()))?;
        self.transport
            .send(email)
            .await
            .map(|_| ())
            .map_err(|e| MailError::Smtp(e.to_string()))
    }
}
