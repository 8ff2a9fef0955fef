//! `[auth.sms]`: sign-up and sign-in with a phone number, codes sent by text message through
//! `[auth.sms.twilio]`, `twilio_verify`, `messagebird`, `textlocal` or `vonage` (or caught locally
//! when that provider has no secret, in local development), and the numbers with fixed test codes.

use super::ConfigError;
use super::doc::Doc;
use super::fields;
use serde::Deserialize;
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
    /// `[auth.sms.twilio]` when enabled: texts go through Twilio's API.
    pub twilio: Option<Twilio>,
    /// `[auth.sms.twilio_verify]` when enabled (and Twilio is not): Twilio Verify sends its own
    /// code and checks it.
    pub twilio_verify: Option<Twilio>,
    /// Another provider when enabled (and neither Twilio is): `[auth.sms.messagebird]`,
    /// `[auth.sms.textlocal]` or `[auth.sms.vonage]`, in the order GoTrue's CLI picks one.
    pub other: Option<OtherProvider>,
}

/// The SMS providers beside Twilio, with their config.toml keys.
#[derive(Debug, Clone, PartialEq)]
pub enum OtherProvider {
    /// `originator`, `access_key`.
    Messagebird {
        originator: String,
        access_key: String,
    },
    /// `sender`, `api_key`.
    Textlocal { sender: String, api_key: String },
    /// `from`, `api_key`, `api_secret`.
    Vonage {
        from: String,
        api_key: String,
        api_secret: String,
    },
}

/// `[auth.sms.twilio]`.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(default)]
pub struct Twilio {
    #[serde(deserialize_with = "fields::text")]
    pub account_sid: String,
    /// The sender (`From`): a messaging service SID or a number.
    #[serde(deserialize_with = "fields::text")]
    pub message_service_sid: String,
    #[serde(deserialize_with = "fields::secret")]
    pub auth_token: String,
}

/// `[auth.sms]`'s own keys (the numbers with test codes and the providers are read apart).
#[derive(Deserialize)]
#[serde(default)]
struct Keys {
    #[serde(deserialize_with = "fields::flag")]
    enable_signup: bool,
    #[serde(deserialize_with = "fields::flag")]
    enable_confirmations: bool,
    #[serde(deserialize_with = "fields::text")]
    template: String,
    #[serde(deserialize_with = "fields::duration")]
    max_frequency: u64,
}

impl Default for Keys {
    fn default() -> Self {
        let d = Sms::default();
        Keys {
            enable_signup: d.enable_signup,
            enable_confirmations: d.enable_confirmations,
            template: d.template,
            max_frequency: d.max_frequency,
        }
    }
}

impl Sms {
    /// The enabled provider, as GoTrue's CLI picks one (twilio, twilio_verify, messagebird,
    /// textlocal, vonage), and whether its secret (token or key) is given.
    pub fn provider(&self) -> Option<(&'static str, bool)> {
        let twilio = |t: &Twilio| !t.auth_token.is_empty();
        if let Some(t) = &self.twilio {
            return Some(("twilio", twilio(t)));
        }
        if let Some(t) = &self.twilio_verify {
            return Some(("twilio_verify", twilio(t)));
        }
        Some(match self.other.as_ref()? {
            OtherProvider::Messagebird { access_key, .. } => {
                ("messagebird", !access_key.is_empty())
            }
            OtherProvider::Textlocal { api_key, .. } => ("textlocal", !api_key.is_empty()),
            OtherProvider::Vonage { api_secret, .. } => ("vonage", !api_secret.is_empty()),
        })
    }
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
            twilio_verify: None,
            other: None,
        }
    }
}

pub(super) fn read(doc: &mut Doc) -> Result<Sms, ConfigError> {
    let k: Keys = doc.section(&["auth", "sms"], &[])?;
    Ok(Sms {
        enable_signup: k.enable_signup,
        enable_confirmations: k.enable_confirmations,
        template: k.template,
        max_frequency: k.max_frequency,
        test_otp: doc
            .secrets(&["auth", "sms", "test_otp"])?
            .into_iter()
            .map(|(number, code)| (number.trim_start_matches('+').to_string(), code))
            .collect(),
        other: other(doc)?,
        twilio: twilio(doc, "twilio")?,
        twilio_verify: twilio(doc, "twilio_verify")?,
    })
}

/// `[auth.sms.messagebird]`'s keys.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Messagebird {
    #[serde(deserialize_with = "fields::text")]
    originator: String,
    #[serde(deserialize_with = "fields::secret")]
    access_key: String,
}

/// `[auth.sms.textlocal]`'s keys.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Textlocal {
    #[serde(deserialize_with = "fields::text")]
    sender: String,
    #[serde(deserialize_with = "fields::secret")]
    api_key: String,
}

/// `[auth.sms.vonage]`'s keys.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Vonage {
    #[serde(deserialize_with = "fields::text")]
    from: String,
    #[serde(deserialize_with = "fields::text")]
    api_key: String,
    #[serde(deserialize_with = "fields::secret")]
    api_secret: String,
}

/// The first of messagebird, textlocal and vonage that is enabled.
fn other(doc: &mut Doc) -> Result<Option<OtherProvider>, ConfigError> {
    let on = |doc: &mut Doc, p: &'static str| doc.bool(&["auth", "sms", p, "enabled"], false);
    if on(doc, "messagebird")? {
        let m: Messagebird = doc.section(&["auth", "sms", "messagebird"], &[])?;
        return Ok(Some(OtherProvider::Messagebird {
            originator: m.originator,
            access_key: m.access_key,
        }));
    }
    if on(doc, "textlocal")? {
        let t: Textlocal = doc.section(&["auth", "sms", "textlocal"], &[])?;
        return Ok(Some(OtherProvider::Textlocal {
            sender: t.sender,
            api_key: t.api_key,
        }));
    }
    if on(doc, "vonage")? {
        let v: Vonage = doc.section(&["auth", "sms", "vonage"], &[])?;
        return Ok(Some(OtherProvider::Vonage {
            from: v.from,
            api_key: v.api_key,
            api_secret: v.api_secret,
        }));
    }
    Ok(None)
}

/// `[auth.sms.twilio]` or `[auth.sms.twilio_verify]` (the same keys) when enabled.
fn twilio(doc: &mut Doc, table: &'static str) -> Result<Option<Twilio>, ConfigError> {
    if !doc.bool(&["auth", "sms", table, "enabled"], false)? {
        return Ok(None);
    }
    doc.section(&["auth", "sms", table], &[]).map(Some)
}
