//! `[auth.sms]`: sign-up and sign-in with a phone number, codes sent by text message through
//! `[auth.sms.twilio]`, `twilio_verify`, `messagebird`, `textlocal` or `vonage` (or caught locally
//! when that provider has no secret, in local development), and the numbers with fixed test codes.

use super::ConfigError;
use super::doc::Doc;
use super::fields;
use serde::Deserialize;
use std::collections::BTreeMap;

/// `[auth.sms]`: sign-up and sign-in with a phone number, codes sent by text message (the
/// providers are read apart).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default)]
pub struct Sms {
    #[serde(deserialize_with = "fields::flag")]
    pub enable_signup: bool,
    #[serde(deserialize_with = "fields::flag")]
    pub enable_confirmations: bool,
    /// The message, with `{{ .Code }}`.
    #[serde(deserialize_with = "fields::text")]
    pub template: String,
    /// Seconds between two messages to one number.
    #[serde(deserialize_with = "fields::duration")]
    pub max_frequency: u64,
    /// Numbers (digits, as stored) whose code is always this one, and to which nothing is sent
    /// (those whose `env()` variable is unset are left out).
    #[serde(deserialize_with = "test_otp")]
    pub test_otp: BTreeMap<String, String>,
    /// `[auth.sms.twilio]` when enabled: texts go through Twilio's API.
    #[serde(skip)]
    pub twilio: Option<Twilio>,
    /// `[auth.sms.twilio_verify]` when enabled (and Twilio is not): Twilio Verify sends its own
    /// code and checks it.
    #[serde(skip)]
    pub twilio_verify: Option<Twilio>,
    /// Another provider when enabled (and neither Twilio is): `[auth.sms.messagebird]`,
    /// `[auth.sms.textlocal]` or `[auth.sms.vonage]`, in the order GoTrue's CLI picks one.
    #[serde(skip)]
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
    let mut sms: Sms = doc.section(&["auth", "sms"], &[])?;
    sms.other = other(doc)?;
    sms.twilio = twilio(doc, "twilio")?;
    sms.twilio_verify = twilio(doc, "twilio_verify")?;
    Ok(sms)
}

/// `[auth.sms.test_otp]`: the numbers without their `+`, and their codes.
fn test_otp<'de, D: serde::Deserializer<'de>>(d: D) -> Result<BTreeMap<String, String>, D::Error> {
    Ok(fields::secrets(d)?
        .into_iter()
        .map(|(number, code)| (number.trim_start_matches('+').to_string(), code))
        .collect())
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
