//! Sign-in with a Web3 wallet (`POST /token?grant_type=web3`, auth-js `signInWithWeb3`), checked
//! offline as GoTrue checks it: the message is a Sign-In with Ethereum (EIP-4361) or Sign-In with
//! Solana text, read line by line with GoTrue's rules and texts (`siwe: …`, `siws: …`); an
//! Ethereum signature is the wallet's `personal_sign` (EIP-191: Keccak-256 of the prefixed
//! message, secp256k1 public key recovery, the address the last 20 bytes of the key's Keccak-256);
//! a Solana signature is ed25519 by the base58 address's key over the message itself, or over the
//! off-chain message envelope a Ledger signs. The URI, domain and times are then checked against
//! the project's redirect rules and the clock ([`check`]).

use chrono::{DateTime, Duration, Utc};
use regex::Regex;
use sha3::{Digest, Keccak256};
use std::fmt;
use std::sync::LazyLock;
use url::Url;

/// How long after (or before) its `Issued At` a message is taken: GoTrue's
/// `maximum_validity_duration` default.
pub const MAX_VALIDITY: Duration = Duration::minutes(10);

/// The chains GoTrue signs in with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chain {
    Ethereum,
    Solana,
}

impl Chain {
    /// The `chain` of the request body.
    pub fn from_name(name: &str) -> Option<Chain> {
        match name {
            "ethereum" => Some(Chain::Ethereum),
            "solana" => Some(Chain::Solana),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Chain::Ethereum => "ethereum",
            Chain::Solana => "solana",
        }
    }

    /// The chain as GoTrue's texts name it.
    pub fn title(self) -> &'static str {
        match self {
            Chain::Ethereum => "Ethereum",
            Chain::Solana => "Solana",
        }
    }

    /// The prefix of the parser's errors.
    fn prefix(self) -> &'static str {
        match self {
            Chain::Ethereum => "siwe",
            Chain::Solana => "siws",
        }
    }
}

/// A message that is not a valid SIWE/SIWS message: `Display` is GoTrue's text.
#[derive(Debug, PartialEq, Eq)]
pub struct ParseError {
    pub chain: Chain,
    pub fault: Fault,
}

/// What is wrong with a message.
#[derive(Debug, PartialEq, Eq)]
pub enum Fault {
    TooShort,
    Header,
    Domain,
    Address,
    ThirdLineNotEmpty,
    Uri,
    IssuedAt,
    ExpirationTime,
    NotBefore,
    MissingUri,
    MissingIssuedAt,
    IssuedAfterExpiration,
    NotBeforeAfterExpiration,
    ChainId,
    /// A line that is not `Key: value` (its index among the lines).
    UnparsableLine(usize),
    /// A `Version` other than 1 (the value given).
    Version(String),
    /// A resource that is not a URI (its position among the resources).
    Resource(usize),
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.chain.prefix())?;
        match &self.fault {
            Fault::TooShort => f.write_str("message needs at least 6 lines"),
            Fault::Header => write!(
                f,
                "message first line does not end in \"{}\"",
                header_suffix(self.chain)
            ),
            Fault::Domain => f.write_str("domain in first line of message is not valid"),
            Fault::Address => match self.chain {
                Chain::Ethereum => f.write_str("wallet address is not a valid Ethereum address"),
                Chain::Solana => f.write_str("wallet address is not in base58 format"),
            },
            Fault::ThirdLineNotEmpty => f.write_str("third line must be empty"),
            Fault::Uri => f.write_str("URI is not valid"),
            Fault::IssuedAt => f.write_str("Issued At is not a valid ISO8601 timestamp"),
            Fault::ExpirationTime => {
                f.write_str("Expiration Time is not a valid ISO8601 timestamp")
            }
            Fault::NotBefore => f.write_str("Not Before is not a valid ISO8601 timestamp"),
            Fault::MissingUri => f.write_str("URI is not specified"),
            Fault::MissingIssuedAt => f.write_str("Issued At is not specified"),
            Fault::IssuedAfterExpiration => f.write_str("Issued At is after Expiration Time"),
            Fault::NotBeforeAfterExpiration => f.write_str("Not Before is after Expiration Time"),
            Fault::ChainId => f.write_str("Chain ID is not valid"),
            Fault::UnparsableLine(i) => write!(f, "encountered unparsable line at index {i}"),
            Fault::Version(got) => write!(
                f,
                "Version value is not supported, expected 1 got {}",
                serde_json::Value::from(got.as_str())
            ),
            Fault::Resource(i) => write!(f, "Resource at position {i} has invalid URI"),
        }
    }
}

impl std::error::Error for ParseError {}

/// A parsed SIWE/SIWS message.
#[derive(Debug, Clone)]
pub struct Message {
    pub chain: Chain,
    pub domain: String,
    /// As written (an Ethereum address keeps its EIP-55 capitals, as GoTrue's identity does).
    pub address: String,
    pub statement: Option<String>,
    pub uri: Url,
    pub chain_id: Option<String>,
    pub nonce: Option<String>,
    pub issued_at: DateTime<Utc>,
    pub expiration_time: Option<DateTime<Utc>>,
    pub not_before: Option<DateTime<Utc>>,
    pub request_id: Option<String>,
    pub resources: Vec<Url>,
}

fn header_suffix(chain: Chain) -> &'static str {
    match chain {
        Chain::Ethereum => " wants you to sign in with your Ethereum account:",
        Chain::Solana => " wants you to sign in with your Solana account:",
    }
}

fn pattern(p: &str) -> Regex {
    Regex::new(p).expect("a constant pattern")
}

static DOMAIN: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"^(localhost|(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]{2,})(?::\d{1,5})?$",
    )
});
static ETHEREUM_ADDRESS: LazyLock<Regex> = LazyLock::new(|| pattern("^0x[a-fA-F0-9]{40}$"));
static SOLANA_ADDRESS: LazyLock<Regex> = LazyLock::new(|| pattern("^[a-zA-Z0-9]{32,44}$"));
static SOLANA_NETWORK: LazyLock<Regex> =
    LazyLock::new(|| pattern("^solana:(main|dev|test|local)net$"));

/// An RFC 3339 time; Go's zero time counts as none.
fn timestamp(value: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(value)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

fn is_zero(t: &DateTime<Utc>) -> bool {
    *t == DateTime::<Utc>::from_naive_utc_and_offset(
        chrono::NaiveDate::from_ymd_opt(1, 1, 1)
            .and_then(|d| d.and_hms_opt(0, 0, 0))
            .unwrap_or_default(),
        Utc,
    )
}

fn valid_chain_id(chain: Chain, value: &str) -> bool {
    match chain {
        // EIP-155: a positive integer.
        Chain::Ethereum => value.parse::<i64>().is_ok_and(|n| n > 0),
        Chain::Solana => value.is_empty() || SOLANA_NETWORK.is_match(value),
    }
}

/// Reads `raw` as GoTrue reads a SIWE (Ethereum) or SIWS (Solana) message.
pub fn parse(chain: Chain, raw: &str) -> Result<Message, ParseError> {
    let fail = |fault| ParseError { chain, fault };
    let lines: Vec<&str> = raw.split('\n').collect();
    if lines.len() < 6 {
        return Err(fail(Fault::TooShort));
    }
    let domain = lines[0]
        .strip_suffix(header_suffix(chain))
        .ok_or(fail(Fault::Header))?
        .trim();
    if !DOMAIN.is_match(domain) {
        return Err(fail(Fault::Domain));
    }
    let address = lines[1].trim();
    let address_ok = match chain {
        Chain::Ethereum => ETHEREUM_ADDRESS.is_match(address),
        Chain::Solana => SOLANA_ADDRESS.is_match(address),
    };
    if !address_ok {
        return Err(fail(Fault::Address));
    }
    if !lines[2].is_empty() {
        return Err(fail(Fault::ThirdLineNotEmpty));
    }
    let (statement, start) = if !lines[3].is_empty() && lines[4].is_empty() {
        (Some(lines[3].to_string()), 5)
    } else {
        (None, 3)
    };
    let mut uri = None;
    let mut version = String::new();
    let mut chain_id = None;
    let mut nonce = None;
    let mut issued_at = None;
    let mut expiration_time = None;
    let mut not_before = None;
    let mut request_id = None;
    let mut resources = Vec::new();
    let mut in_resources = false;
    for (i, line) in lines.iter().enumerate().skip(start) {
        let line = line.trim();
        if in_resources {
            if let Some(resource) = line.strip_prefix("- ") {
                let url = Url::parse(resource.trim())
                    .map_err(|_| fail(Fault::Resource(resources.len())))?;
                resources.push(url);
                continue;
            }
            in_resources = false;
        }
        if line == "Resources:" {
            in_resources = true;
            continue;
        }
        if line.is_empty() {
            continue;
        }
        let (key, value) = line.split_once(':').ok_or(fail(Fault::UnparsableLine(i)))?;
        let value = value.trim();
        match key {
            "URI" => uri = Some(Url::parse(value).map_err(|_| fail(Fault::Uri))?),
            "Version" => version = value.to_string(),
            "Chain ID" => {
                if !valid_chain_id(chain, value) {
                    return Err(fail(Fault::ChainId));
                }
                chain_id = Some(value.to_string());
            }
            "Nonce" => nonce = Some(value.to_string()),
            "Issued At" => {
                let t = timestamp(value).ok_or(fail(Fault::IssuedAt))?;
                if is_zero(&t) {
                    return Err(fail(Fault::MissingIssuedAt));
                }
                issued_at = Some(t);
            }
            "Expiration Time" => {
                expiration_time = Some(timestamp(value).ok_or(fail(Fault::ExpirationTime))?)
            }
            "Not Before" => not_before = Some(timestamp(value).ok_or(fail(Fault::NotBefore))?),
            "Request ID" => request_id = Some(value.to_string()),
            _ => {}
        }
    }
    if version != "1" {
        return Err(fail(Fault::Version(version)));
    }
    let issued_at = issued_at.ok_or(fail(Fault::MissingIssuedAt))?;
    let uri = uri.ok_or(fail(Fault::MissingUri))?;
    let expiration_time = expiration_time.filter(|t| !is_zero(t));
    let not_before = not_before.filter(|t| !is_zero(t));
    if let Some(exp) = expiration_time {
        if issued_at > exp {
            return Err(fail(Fault::IssuedAfterExpiration));
        }
        if not_before.is_some_and(|nb| nb > exp) {
            return Err(fail(Fault::NotBeforeAfterExpiration));
        }
    }
    Ok(Message {
        chain,
        domain: domain.to_string(),
        address: address.to_string(),
        statement,
        uri,
        chain_id,
        nonce,
        issued_at,
        expiration_time,
        not_before,
        request_id,
        resources,
    })
}

/// The Ethereum address (20 bytes) whose key made `signature` (`r ‖ s ‖ v`, `v` 0/1 or 27/28)
/// over `message` with `personal_sign`; None when no key can be recovered.
pub fn ethereum_signer(message: &[u8], signature: &[u8; 65]) -> Option<[u8; 20]> {
    use k256::ecdsa::{RecoveryId, Signature, VerifyingKey};
    let mut prefixed = format!("\x19Ethereum Signed Message:\n{}", message.len()).into_bytes();
    prefixed.extend_from_slice(message);
    let hash = Keccak256::digest(&prefixed);
    let v = signature[64];
    let v = if v >= 27 { v - 27 } else { v };
    let mut recovery = RecoveryId::from_byte(v)?;
    let mut sig = Signature::from_slice(&signature[..64]).ok()?;
    // A high-S signature is the same signature mirrored: recover from its low-S twin.
    if let Some(low) = sig.normalize_s() {
        sig = low;
        recovery = RecoveryId::new(!recovery.is_y_odd(), recovery.is_x_reduced());
    }
    let key = VerifyingKey::recover_from_prehash(&hash, &sig, recovery).ok()?;
    let point = key.to_encoded_point(false);
    let digest = Keccak256::digest(&point.as_bytes()[1..]);
    let mut address = [0u8; 20];
    address.copy_from_slice(&digest[12..]);
    Some(address)
}

/// Whether `signature` (hex, `0x` first, 65 bytes) was made by the message's address.
pub fn ethereum_verify(message: &Message, raw: &str, signature: &str) -> bool {
    let Some(bytes) = signature
        .strip_prefix("0x")
        .and_then(|h| hex::decode(h).ok())
        .and_then(|b| <[u8; 65]>::try_from(b).ok())
    else {
        return false;
    };
    ethereum_signer(raw.as_bytes(), &bytes).is_some_and(|a| {
        message
            .address
            .strip_prefix("0x")
            .is_some_and(|m| m.eq_ignore_ascii_case(&hex::encode(a)))
    })
}

/// Whether `signature` (64 bytes) is the message address's ed25519 signature of the message, or
/// of the off-chain message envelope a Ledger signs (a 16-byte prefix, version 0, the domain in
/// 32 bytes, ASCII format, one signer and its key, the length in 2 bytes little-endian).
pub fn solana_verify(message: &Message, raw: &str, signature: &[u8]) -> bool {
    use ed25519_dalek::{Signature, Verifier, VerifyingKey};
    let Some(key) = bs58::decode(&message.address)
        .into_vec()
        .ok()
        .and_then(|k| <[u8; 32]>::try_from(k).ok())
    else {
        return false;
    };
    let (Ok(public), Ok(sig)) = (
        VerifyingKey::from_bytes(&key),
        Signature::from_slice(signature),
    ) else {
        return false;
    };
    let raw = raw.as_bytes();
    if public.verify(raw, &sig).is_ok() {
        return true;
    }
    let Ok(len) = u16::try_from(raw.len()) else {
        return false;
    };
    let mut envelope = Vec::with_capacity(85 + raw.len());
    envelope.push(0xff);
    envelope.extend_from_slice(b"solana offchain");
    envelope.push(0);
    let mut domain = [0u8; 32];
    let d = message.domain.as_bytes();
    let n = d.len().min(32);
    domain[..n].copy_from_slice(&d[..n]);
    envelope.extend_from_slice(&domain);
    envelope.push(0);
    envelope.push(1);
    envelope.extend_from_slice(&key);
    envelope.extend_from_slice(&len.to_le_bytes());
    envelope.extend_from_slice(raw);
    public.verify(&envelope, &sig).is_ok()
}

/// The Solana signature of the request: 64 bytes as base64 (standard or URL alphabet, with or
/// without padding: 86 or 88 characters).
pub fn solana_signature(text: &str) -> Result<Vec<u8>, &'static str> {
    use base64::Engine;
    if text.len() != 86 && text.len() != 88 {
        return Err("signature must be 64 bytes encoded as base64 with or without padding");
    }
    let url = text
        .trim_end_matches('=')
        .replace('+', "-")
        .replace('/', "_");
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(url)
        .map_err(|_| "signature does not contain valid base64 characters")
}

/// A signed message refused after its signature checked out: GoTrue's `invalid_grant` texts.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("Signed {0} message is using URI which does not use HTTPS")]
    NotHttps(&'static str),
    #[error(
        "Signed {0} message is using URI which is not allowed on this server, message was signed for another app"
    )]
    UriNotAllowed(&'static str),
    #[error(
        "Signed {0} message is using a Domain that does not match the one in URI which is not allowed on this server"
    )]
    DomainMismatch(&'static str),
    #[error("Signed {0} message becomes valid in the future")]
    NotYetValid(&'static str),
    #[error("Signed {0} message is expired")]
    Expired(&'static str),
    #[error("{0} message was issued too long ago")]
    IssuedTooLongAgo(&'static str),
    #[error("{0} message was issued too far in the future")]
    IssuedInFuture(&'static str),
}

/// The checks after the signature: the URI is HTTPS (or localhost) and an allowed redirect, the
/// domain is the URI's host (and allowed) unless on localhost, and `now` falls in the message's
/// `Not Before`/`Expiration Time` and within [`MAX_VALIDITY`] of its `Issued At`.
pub fn check(
    m: &Message,
    now: DateTime<Utc>,
    allowed: impl Fn(&str) -> bool,
) -> Result<(), Refusal> {
    let title = m.chain.title();
    let hostname = m.uri.host_str().unwrap_or("");
    if m.uri.scheme() != "https" && hostname != "localhost" {
        return Err(Refusal::NotHttps(title));
    }
    if !allowed(m.uri.as_str()) {
        return Err(Refusal::UriNotAllowed(title));
    }
    let host = match m.uri.port() {
        Some(p) => format!("{hostname}:{p}"),
        None => hostname.to_string(),
    };
    if hostname != "localhost" && (host != m.domain || !allowed(&format!("https://{}/", m.domain)))
    {
        return Err(Refusal::DomainMismatch(title));
    }
    if m.not_before.is_some_and(|nb| now < nb) {
        return Err(Refusal::NotYetValid(title));
    }
    // GoTrue looks at the expiry of an Ethereum message only when it also has a Not Before.
    let expiry_counts = m.chain == Chain::Solana || m.not_before.is_some();
    if expiry_counts && m.expiration_time.is_some_and(|e| now > e) {
        return Err(Refusal::Expired(title));
    }
    if now > m.issued_at + MAX_VALIDITY {
        return Err(Refusal::IssuedTooLongAgo(title));
    }
    if now < m.issued_at - MAX_VALIDITY {
        return Err(Refusal::IssuedInFuture(title));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const ETH: &str = "example.com wants you to sign in with your Ethereum account:\n\
        0x196a28d05bA75C8dC35B0F6e71DD622D1aC82b7E\n\nSign in to Example App\n\n\
        URI: https://example.com\nVersion: 1\nChain ID: 1\nNonce: 12345678\n\
        Issued At: 2025-01-01T00:00:00.000Z";
    const ETH_SIG: &str = "0xee337880f195524c156b8cc5f425ffcedb9d94638a91fa41ba72e26d93f04c9d1c7bca7020071c34ef7527ed6389ee24b59de79deab4e9e8251e6ca1e195a56a1b";
    const SOL: &str = "supabase.com wants you to sign in with your Solana account:\n\
        2EZEiBdw47VHT6SpZSW9VnuSvBe7DxuYHBTxj19gxvv8\n\nStatement\n\nURI: https://supabase.com/\n\
        Version: 1\nIssued At: 2025-03-29T00:00:00Z\nExpiration Time: 2025-03-29T00:10:00Z\n\
        Not Before: 2025-03-29T00:00:00Z";
    const SOL_SIG: &str =
        "aiKn+PAoB1OoXxS8H34HrB456YD4sKAVjeTjsxgkaQy3bkdV51WBTmUUE9lBU9kuXr0hTLI+1aTn5TFRbIF8CA==";
    /// Signed by a Ledger (the off-chain message envelope).
    const SOL_LEDGER: &str = "supabase.com wants you to sign in with your Solana account:\n\
        EqzxWVyBpLD34SV9w1FFpPPvbfrfAXdiDVg1cyHTR1Rv\n\nI confirm ownership of this wallet\n\n\
        Version: 1\nURI: https://supabase.com/\nIssued At: 2025-07-29T22:29:52.235Z";
    const SOL_LEDGER_SIG: &str =
        "9slc0BBJw16TzWYs4/op8na3vt9E0CKt0FL5pqhzTDxvqF/txpbdo+ULDCeSzrDE/uJWmpMQw+hF0rkDj4Q0Bw==";

    fn at(s: &str) -> DateTime<Utc> {
        timestamp(s).unwrap()
    }

    #[test]
    fn messages_parse_with_every_field() {
        let m = parse(Chain::Ethereum, ETH).unwrap();
        assert_eq!(m.domain, "example.com");
        assert_eq!(m.address, "0x196a28d05bA75C8dC35B0F6e71DD622D1aC82b7E");
        assert_eq!(m.statement.as_deref(), Some("Sign in to Example App"));
        assert_eq!(m.uri.as_str(), "https://example.com/");
        assert_eq!(m.chain_id.as_deref(), Some("1"));
        assert_eq!(m.nonce.as_deref(), Some("12345678"));
        assert_eq!(m.issued_at, at("2025-01-01T00:00:00Z"));
        let m = parse(Chain::Solana, SOL).unwrap();
        assert_eq!(m.address, "2EZEiBdw47VHT6SpZSW9VnuSvBe7DxuYHBTxj19gxvv8");
        assert_eq!(m.expiration_time, Some(at("2025-03-29T00:10:00Z")));
        assert_eq!(m.not_before, Some(at("2025-03-29T00:00:00Z")));
        let with_resources = "localhost:5173 wants you to sign in with your Ethereum account:\n\
            0x196a28d05bA75C8dC35B0F6e71DD622D1aC82b7E\n\nURI: http://localhost:5173/\n\
            Version: 1\nIssued At: 2025-01-01T00:00:00Z\nRequest ID: r-1\nResources:\n\
            - https://a.example/1\n- ipfs://b\n";
        let m = parse(Chain::Ethereum, with_resources).unwrap();
        assert_eq!(m.statement, None);
        assert_eq!(m.domain, "localhost:5173");
        assert_eq!(m.request_id.as_deref(), Some("r-1"));
        assert_eq!(m.resources.len(), 2);
    }

    #[test]
    fn each_invalid_field_has_gotrue_s_text() {
        let a = "0x742d35Cc6635C0532925a3b8D53d6e8b3f56ddF1";
        let head = format!("domain.com wants you to sign in with your Ethereum account:\n{a}\n");
        let ok_tail = "URI: https://domain.com\nVersion: 1\nIssued At: 2025-01-01T00:00:00Z";
        let cases: Vec<(String, &str)> = vec![
            ("a\nb\nc".into(), "siwe: message needs at least 6 lines"),
            (
                format!("domain.com wants you to sign in:\n{a}\n\n\n\n"),
                "siwe: message first line does not end in \" wants you to sign in with your Ethereum account:\"",
            ),
            (
                format!(
                    "-bad- wants you to sign in with your Ethereum account:\n{a}\n\n{ok_tail}\n\n"
                ),
                "siwe: domain in first line of message is not valid",
            ),
            (
                format!(
                    "domain.com wants you to sign in with your Ethereum account:\n0x12\n\n{ok_tail}\n\n"
                ),
                "siwe: wallet address is not a valid Ethereum address",
            ),
            (
                format!("{head}URI: https://google.com\n\n\n"),
                "siwe: third line must be empty",
            ),
            (
                format!("{head}\nStatement\n\nNot Parsable\n"),
                "siwe: encountered unparsable line at index 5",
            ),
            (
                format!(
                    "{head}\nStatement\n\nVersion: 1\nURI: ***\nIssued At: 2025-01-01T00:00:00Z"
                ),
                "siwe: URI is not valid",
            ),
            (
                format!(
                    "{head}\nStatement\n\nVersion: 1\nURI: https://google.com\nIssued At: not-a-timestamp"
                ),
                "siwe: Issued At is not a valid ISO8601 timestamp",
            ),
            (
                format!("{head}\nStatement\n\n{ok_tail}\nExpiration Time: not-a-timestamp"),
                "siwe: Expiration Time is not a valid ISO8601 timestamp",
            ),
            (
                format!("{head}\nStatement\n\n{ok_tail}\nNot Before: not-a-timestamp"),
                "siwe: Not Before is not a valid ISO8601 timestamp",
            ),
            (
                format!(
                    "{head}\nStatement\n\nVersion: 2\nIssued At: 2025-01-01T00:00:00Z\nURI: https://google.com\n"
                ),
                "siwe: Version value is not supported, expected 1 got \"2\"",
            ),
            (
                format!("{head}\nStatement\n\nVersion: 1\nIssued At: 2025-01-01T00:00:00Z\n\n"),
                "siwe: URI is not specified",
            ),
            (
                format!(
                    "{head}\nStatement\n\nVersion: 1\nURI: https://domain.com\nResources:\n- https://google.com\n"
                ),
                "siwe: Issued At is not specified",
            ),
            (
                format!(
                    "{head}\nStatement\n\nVersion: 1\nURI: https://domain.com\nIssued At: 2025-01-02T00:00:00Z\nExpiration Time: 2025-01-01T00:00:00Z\n"
                ),
                "siwe: Issued At is after Expiration Time",
            ),
            (
                format!(
                    "{head}\nStatement\n\n{ok_tail}\nExpiration Time: 2025-01-02T00:00:00Z\nNot Before: 2025-01-03T00:00:00Z\n"
                ),
                "siwe: Not Before is after Expiration Time",
            ),
            (
                format!(
                    "{head}\nStatement\n\n{ok_tail}\nResources:\n- https://google.com\n- ***\n"
                ),
                "siwe: Resource at position 1 has invalid URI",
            ),
            (
                format!("{head}\n{ok_tail}\nChain ID: random:mainnet"),
                "siwe: Chain ID is not valid",
            ),
            (
                format!("{head}\n{ok_tail}\nChain ID: 0"),
                "siwe: Chain ID is not valid",
            ),
        ];
        for (message, text) in cases {
            let got = parse(Chain::Ethereum, &message).map(|_| ()).unwrap_err();
            assert_eq!(got.to_string(), text, "{message:?}");
        }
        // Solana: its own address rule and networks.
        let sol = |addr: &str, extra: &str| {
            format!(
                "d.com wants you to sign in with your Solana account:\n{addr}\n\n\
                 URI: https://d.com\nVersion: 1\nIssued At: 2025-01-01T00:00:00Z{extra}"
            )
        };
        let good = "2EZEiBdw47VHT6SpZSW9VnuSvBe7DxuYHBTxj19gxvv8";
        let cases = [
            (
                sol("0x_not_base58", ""),
                Some("siws: wallet address is not in base58 format"),
            ),
            (
                sol(good, "\nChain ID: 1"),
                Some("siws: Chain ID is not valid"),
            ),
            (sol(good, "\nChain ID: solana:mainnet"), None),
            (sol(good, "\nChain ID: "), None),
        ];
        for (message, text) in cases {
            assert_eq!(
                parse(Chain::Solana, &message).err().map(|e| e.to_string()),
                text.map(str::to_string),
                "{message:?}"
            );
        }
    }

    #[test]
    fn signatures_verify_against_known_vectors() {
        // EIP-191 `personal_sign` (web3.js's documented example key).
        let sig = hex::decode("b91467e570a6466aa9e9876cbcd013baba02900b8979d43fe208a4a4f339f5fd6007e74cd82e037b800186422fc2da167c747ef045e5d18a5f5d4300f8e1a0291c").unwrap();
        let signer = ethereum_signer(b"Some data", &sig.try_into().unwrap()).unwrap();
        assert_eq!(
            hex::encode(signer),
            "2c7536e3605d9c16a7a3d7b1898e529396a65c23"
        );
        let m = parse(Chain::Ethereum, ETH).unwrap();
        assert!(ethereum_verify(&m, ETH, ETH_SIG));
        let mut other = ETH.to_string();
        other.push(' ');
        assert!(!ethereum_verify(&m, &other, ETH_SIG));
        for bad in [
            &ETH_SIG[2..],
            "0xdeadbeef",
            &format!("0x{}", "z".repeat(130)),
            &format!("0x{}", "0".repeat(130)),
        ] {
            assert!(!ethereum_verify(&m, ETH, bad), "{bad}");
        }

        let m = parse(Chain::Solana, SOL).unwrap();
        let sig = solana_signature(SOL_SIG).unwrap();
        assert!(solana_verify(&m, SOL, &sig));
        assert!(!solana_verify(
            &m,
            &SOL.replace("Statement", "Statemenu"),
            &sig
        ));
        // The same bytes in base64url without padding, as auth-js sends them.
        let unpadded = SOL_SIG
            .trim_end_matches('=')
            .replace('+', "-")
            .replace('/', "_");
        assert_eq!(solana_signature(&unpadded).unwrap(), sig);
        assert!(solana_signature("short").is_err());
        assert!(solana_signature(&"*".repeat(86)).is_err());
        let m = parse(Chain::Solana, SOL_LEDGER).unwrap();
        assert!(solana_verify(
            &m,
            SOL_LEDGER,
            &solana_signature(SOL_LEDGER_SIG).unwrap()
        ));
    }

    #[test]
    fn uri_domain_and_times_are_checked() {
        let msg = |uri: &str, domain: &str, extra: &str| {
            let text = format!(
                "{domain} wants you to sign in with your Solana account:\n\
                 2EZEiBdw47VHT6SpZSW9VnuSvBe7DxuYHBTxj19gxvv8\n\nURI: {uri}\nVersion: 1\n\
                 Issued At: 2025-03-29T00:00:00Z{extra}"
            );
            parse(Chain::Solana, &text).unwrap()
        };
        let allowed = |u: &str| u.starts_with("https://app.example") || u.contains("localhost");
        let now = at("2025-03-29T00:05:00Z");
        let cases = [
            (msg("https://app.example/", "app.example", ""), now, None),
            (
                msg("http://localhost:3000/", "localhost:3000", ""),
                now,
                None,
            ),
            (
                msg("http://app.example/", "app.example", ""),
                now,
                Some(Refusal::NotHttps("Solana")),
            ),
            (
                msg("https://other.example/", "other.example", ""),
                now,
                Some(Refusal::UriNotAllowed("Solana")),
            ),
            (
                msg("https://app.example/", "evil.example", ""),
                now,
                Some(Refusal::DomainMismatch("Solana")),
            ),
            (
                msg(
                    "https://app.example/",
                    "app.example",
                    "\nNot Before: 2025-03-29T00:06:00Z",
                ),
                now,
                Some(Refusal::NotYetValid("Solana")),
            ),
            (
                msg(
                    "https://app.example/",
                    "app.example",
                    "\nExpiration Time: 2025-03-29T00:01:00Z",
                ),
                now,
                Some(Refusal::Expired("Solana")),
            ),
            (
                msg("https://app.example/", "app.example", ""),
                at("2025-03-29T00:10:01Z"),
                Some(Refusal::IssuedTooLongAgo("Solana")),
            ),
            (
                msg("https://app.example/", "app.example", ""),
                at("2025-03-28T23:49:59Z"),
                Some(Refusal::IssuedInFuture("Solana")),
            ),
        ];
        for (m, now, refusal) in cases {
            assert_eq!(check(&m, now, allowed).err(), refusal, "{m:?}");
        }
        assert_eq!(
            Refusal::IssuedTooLongAgo("Ethereum").to_string(),
            "Ethereum message was issued too long ago"
        );
    }
}
