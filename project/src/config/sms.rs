//! `[auth.sms]`: sign-up and sign-in with a phone number, codes sent by text message through
//! `[auth.sms.twilio]` or caught locally, and the numbers with fixed test codes.

use super::ConfigError;
use super::doc::Doc;
use std::collections::BTreeMap;

/// `[auth.sms]`: sign-up and sign-in with a phone number, codes sent by text message.
#[derive(Debug, Clone, PartialEq)]
pub struct Sms {
    pub enable_signup: bool,
    pub enable_confirmations: bool,
    /// The message, with `{{ .Code }}`.
    pub template: String,
    /// Seconds between two messages to one number.
    pub max_frequency: u64,
    /// Numbers (digits, as stored) whose code is always this one, and to which nothing is sent.
    pub test_otp: BTreeMap<String, String>,
    /// `[auth.sms.twilio]` when enabled: texts go through Twilio's API (None: the catcher).
    pub twilio: Option<Twilio>,
}

/// `[auth.sms.twilio]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Twilio {
    pub account_sid: String,
    /// The sender (`From`): a messaging service SID or a number.
    pub message_service_sid: String,
    pub auth_token: String,
}

impl Default for Sms {
    fn default() -> Self {
        Sms {
            enable_signup: false,
            enable_confirmations: false,
            template: "Your code is {{ .Code }}".into(),
            max_frequency: 5,
            test_otp: BTreeMap::new(),
            twilio: None,
        }
    }
}

pub(super) fn read(doc: &mut Doc) -> Result<Sms, ConfigError> {
    let s = |k: &'static str| ["auth", "sms", k];
    let d = Sms::default();
    Ok(Sms {
        enable_signup: doc.bool(&s("enable_signup"), false)?,
        enable_confirmations: doc.bool(&s("enable_confirmations"), false)?,
        template: doc.string(&s("template"), &d.template)?,
        max_frequency: doc.duration(&s("max_frequency"), d.max_frequency)?,
        test_otp: doc
            .secrets(&s("test_otp"))?
            .into_iter()
            .map(|(number, code)| (number.trim_start_matches('+').to_string(), code))
            .collect(),
        twilio: match doc.bool(&["auth", "sms", "twilio", "enabled"], false)? {
            false => None,
            true => {
                let t = |k: &'static str| ["auth", "sms", "twilio", k];
                Some(Twilio {
                    account_sid: doc.string(&t("account_sid"), "")?,
                    message_service_sid: doc.string(&t("message_service_sid"), "")?,
                    auth_token: doc.string(&t("auth_token"), "")?,
                })
            }
        },
    })
}
