//! Phone numbers and text messages as GoTrue handles them: a number is kept as its E.164 digits
//! without `+` (spaces dropped), a message is `[auth.sms] template` with its `{{ .Code }}`, and
//! it goes by text or WhatsApp (`channel`).

use crate::config::AuthConfig;
use crate::error::{AuthError, validation};

/// GoTrue's answer to a channel it cannot send on.
const INVALID_CHANNEL: &str = "Invalid channel, supported values are 'sms' or 'whatsapp'. \
     'whatsapp' is only supported if Twilio or Twilio Verify is used as the provider.";

/// How a code reaches a number: `channel` of `/otp`, `/signup`, `PUT /user` and phone MFA
/// challenges (`sms` when absent).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Channel {
    #[default]
    Sms,
    Whatsapp,
}

impl Channel {
    /// The channel asked for, as GoTrue's `IsValidMessageChannel` allows it: `sms`; `whatsapp`
    /// with Twilio or Twilio Verify; anything with the send-SMS hook (which is not told).
    pub fn parse(given: Option<&str>, cfg: &AuthConfig) -> Result<Channel, AuthError> {
        let hook = cfg.hooks.send_sms.is_some();
        match given.unwrap_or("sms") {
            "sms" => Ok(Channel::Sms),
            "whatsapp" if hook || cfg.sms.twilio.is_some() || cfg.sms.twilio_verify.is_some() => {
                Ok(Channel::Whatsapp)
            }
            _ if hook => Ok(Channel::Sms),
            _ => Err(validation(INVALID_CHANNEL)),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Sms => "sms",
            Channel::Whatsapp => "whatsapp",
        }
    }
}

/// A message to send: to whom, what, why (`confirmation`, `otp`, `phone_change`, `mfa`), and on
/// which channel.
#[derive(Debug, Clone, Copy)]
pub struct Text<'a> {
    pub number: &'a str,
    pub body: &'a str,
    pub kind: &'a str,
    pub channel: Channel,
}

/// The digits GoTrue keeps of a phone number, or its E.164 error.
pub fn normalize(raw: &str) -> Result<String, AuthError> {
    let digits = raw.trim_start_matches('+').replace(' ', "");
    let e164 = (2..=15).contains(&digits.len())
        && !digits.starts_with('0')
        && digits.bytes().all(|b| b.is_ascii_digit());
    if e164 {
        Ok(digits)
    } else {
        Err(validation("Invalid phone number format (E.164 required)"))
    }
}

/// GoTrue's answer when a text would come sooner than `max_frequency` allows: `wait` is the
/// seconds still to wait (None or not positive: send).
pub fn too_soon(wait: Option<f64>) -> Result<(), AuthError> {
    match wait.filter(|w| *w > 0.0) {
        None => Ok(()),
        Some(w) => Err(crate::error::api(
            429,
            crate::error::ErrorCode::OverSmsSendRateLimit,
            format!(
                "For security purposes, you can only request this after {} seconds.",
                w.ceil() as i64
            ),
        )),
    }
}

/// The text of a message carrying `code`.
pub fn message(template: &str, code: &str) -> String {
    ["{{ .Code }}", "{{.Code}}", "{{ .Code}}", "{{.Code }}"]
        .iter()
        .fold(template.to_string(), |t, p| t.replace(p, code))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_kept_as_gotrue_keeps_them() {
        assert_eq!(normalize("+1 555 555 0100").unwrap(), "15555550100");
        assert_eq!(normalize("4915112345678").unwrap(), "4915112345678");
        for bad in [
            "",
            "+",
            "0123456",
            "+1-555-0100",
            "1234567890123456",
            "phone",
        ] {
            let e = normalize(bad).unwrap_err().to_string();
            assert_eq!(e, "Invalid phone number format (E.164 required)", "{bad}");
        }
        assert_eq!(
            message("Your code is {{ .Code }}", "123456"),
            "Your code is 123456"
        );
        assert_eq!(message("{{.Code}} is it", "42"), "42 is it");
    }

    /// `sms` always; `whatsapp` with Twilio or Twilio Verify; anything with the send-SMS hook.
    #[test]
    fn channels_as_gotrue_allows_them() {
        let mut cfg = crate::test_config(&[]);
        let ok = |cfg: &AuthConfig, c: Option<&str>| Channel::parse(c, cfg).ok();
        assert_eq!(ok(&cfg, None), Some(Channel::Sms));
        assert_eq!(ok(&cfg, Some("sms")), Some(Channel::Sms));
        let e = Channel::parse(Some("whatsapp"), &cfg)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("Invalid channel, supported values are 'sms' or 'whatsapp'."));
        assert_eq!(ok(&cfg, Some("fax")), None);
        cfg.sms.twilio_verify = Some(project::config::Twilio {
            account_sid: "AC1".into(),
            message_service_sid: "VA1".into(),
            auth_token: String::new(),
        });
        assert_eq!(ok(&cfg, Some("whatsapp")), Some(Channel::Whatsapp));
        assert_eq!(ok(&cfg, Some("fax")), None);
        cfg.sms.twilio_verify = None;
        cfg.hooks.send_sms = Some(crate::config::HookFn::Postgres {
            schema: "public".into(),
            function: "send_sms".into(),
        });
        assert_eq!(ok(&cfg, Some("whatsapp")), Some(Channel::Whatsapp));
        assert_eq!(ok(&cfg, Some("fax")), Some(Channel::Sms));
    }
}
