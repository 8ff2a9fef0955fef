//! WebAuthn, the relying party's side, for passkeys: the creation and request options a browser
//! (or supabase-js) passes to the authenticator, and the checks of what comes back — the client
//! data (ceremony type, the challenge we issued, an allowed origin), the authenticator data (our
//! RP id's hash, the user-present flag, a signature counter that moves forward), the credential's
//! P-256 key (COSE, ES256) and, at sign-in, its signature. Attestation is not asked for
//! (`attestation: "none"`), so an attestation statement is not verified, as GoTrue's defaults.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ciborium::value::Value as Cbor;
use p256::ecdsa::signature::Verifier;
use p256::ecdsa::{DerSignature, VerifyingKey};
use serde::Deserialize;
use sha2::{Digest, Sha256};

const FLAG_USER_PRESENT: u8 = 0x01;
const FLAG_ATTESTED_DATA: u8 = 0x40;
/// COSE algorithm ES256 (ECDSA with P-256 and SHA-256).
pub const ES256: i64 = -7;

/// Why a ceremony's answer is refused (GoTrue: `webauthn_verification_failed`).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{0}")]
pub struct Refused(pub &'static str);

/// base64url (padding allowed), as WebAuthn JSON carries bytes.
pub fn decode(s: &str) -> Result<Vec<u8>, Refused> {
    URL_SAFE_NO_PAD
        .decode(s.trim_end_matches('='))
        .map_err(|_| Refused("malformed base64url"))
}

pub fn encode(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// A new random challenge.
pub fn challenge() -> String {
    encode(&rand::random::<[u8; 32]>())
}

/// The `response` of a `PublicKeyCredential` as supabase-js serialises it.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct CredentialResponse {
    #[serde(rename = "clientDataJSON")]
    pub client_data_json: String,
    pub attestation_object: Option<String>,
    pub authenticator_data: Option<String>,
    pub signature: Option<String>,
    pub user_handle: Option<String>,
    pub transports: Option<Vec<String>>,
}

/// A `PublicKeyCredential` as JSON (`RegistrationResponseJSON`, `AuthenticationResponseJSON`).
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Credential {
    pub id: String,
    pub raw_id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub response: CredentialResponse,
}

/// What the relying party expects of a ceremony.
pub struct Expected<'a> {
    pub rp_id: &'a str,
    pub origins: &'a [String],
    pub challenge: &'a str,
}

#[derive(Deserialize)]
struct ClientData {
    #[serde(rename = "type")]
    kind: String,
    challenge: String,
    origin: String,
}

fn client_data(raw: &[u8], kind: &str, e: &Expected) -> Result<(), Refused> {
    let cd: ClientData =
        serde_json::from_slice(raw).map_err(|_| Refused("malformed client data"))?;
    if cd.kind != kind {
        return Err(Refused("wrong ceremony type"));
    }
    if cd.challenge != e.challenge {
        return Err(Refused("challenge mismatch"));
    }
    if !e.origins.iter().any(|o| o == &cd.origin) {
        return Err(Refused("origin not allowed"));
    }
    Ok(())
}

/// The parsed authenticator data.
struct AuthData {
    flags: u8,
    sign_count: u32,
    /// With attested credential data: the AAGUID, the credential id, the COSE key.
    attested: Option<([u8; 16], Vec<u8>, Cbor)>,
}

fn auth_data(raw: &[u8], rp_id: &str) -> Result<AuthData, Refused> {
    if raw.len() < 37 {
        return Err(Refused("authenticator data too short"));
    }
    if raw[..32] != Sha256::digest(rp_id.as_bytes())[..] {
        return Err(Refused("RP id hash mismatch"));
    }
    let flags = raw[32];
    if flags & FLAG_USER_PRESENT == 0 {
        return Err(Refused("user not present"));
    }
    let sign_count = u32::from_be_bytes([raw[33], raw[34], raw[35], raw[36]]);
    let attested = if flags & FLAG_ATTESTED_DATA != 0 {
        let rest = &raw[37..];
        if rest.len() < 18 {
            return Err(Refused("attested credential data too short"));
        }
        let aaguid: [u8; 16] = rest[..16].try_into().expect("16 bytes");
        let len = usize::from(u16::from_be_bytes([rest[16], rest[17]]));
        let id = rest
            .get(18..18 + len)
            .ok_or(Refused("credential id too short"))?
            .to_vec();
        let key: Cbor = ciborium::de::from_reader(&rest[18 + len..])
            .map_err(|_| Refused("malformed credential public key"))?;
        Some((aaguid, id, key))
    } else {
        None
    };
    Ok(AuthData {
        flags,
        sign_count,
        attested,
    })
}

fn cbor_int(v: &Cbor) -> Option<i128> {
    v.as_integer().map(i128::from)
}

/// A COSE EC2 P-256 ES256 key as its SEC1 uncompressed point.
fn cose_p256(key: &Cbor) -> Result<Vec<u8>, Refused> {
    let map = key.as_map().ok_or(Refused("credential key is not a map"))?;
    let get = |k: i128| {
        map.iter()
            .find(|(key, _)| cbor_int(key) == Some(k))
            .map(|(_, v)| v)
    };
    let (kty, alg, crv) = (
        get(1).and_then(cbor_int),
        get(3).and_then(cbor_int),
        get(-1).and_then(cbor_int),
    );
    if (kty, alg, crv) != (Some(2), Some(i128::from(ES256)), Some(1)) {
        return Err(Refused("only ES256 P-256 credentials are supported"));
    }
    let coord = |k| get(k).and_then(Cbor::as_bytes).filter(|b| b.len() == 32);
    let (x, y) = (
        coord(-2).ok_or(Refused("bad x"))?,
        coord(-3).ok_or(Refused("bad y"))?,
    );
    let point = [&[0x04][..], x, y].concat();
    VerifyingKey::from_sec1_bytes(&point).map_err(|_| Refused("not a P-256 point"))?;
    Ok(point)
}

/// A registered credential, ready to store.
#[derive(Debug)]
pub struct Registered {
    pub credential_id: Vec<u8>,
    /// SEC1 uncompressed P-256 point.
    pub public_key: Vec<u8>,
    pub sign_count: u32,
    pub aaguid: [u8; 16],
    pub transports: Vec<String>,
}

/// Checks a registration (`navigator.credentials.create()`'s answer).
pub fn verify_registration(c: &Credential, e: &Expected) -> Result<Registered, Refused> {
    if c.kind != "public-key" {
        return Err(Refused("not a public-key credential"));
    }
    client_data(&decode(&c.response.client_data_json)?, "webauthn.create", e)?;
    let att = decode(c.response.attestation_object.as_deref().unwrap_or(""))?;
    let att: Cbor =
        ciborium::de::from_reader(&att[..]).map_err(|_| Refused("malformed attestation"))?;
    let field = |name: &str| {
        att.as_map().and_then(|m| {
            m.iter()
                .find(|(k, _)| k.as_text() == Some(name))
                .map(|(_, v)| v)
        })
    };
    let data = field("authData")
        .and_then(Cbor::as_bytes)
        .ok_or(Refused("no authenticator data"))?;
    let parsed = auth_data(data, e.rp_id)?;
    let (aaguid, id, key) = parsed
        .attested
        .ok_or(Refused("no attested credential data"))?;
    if decode(&c.raw_id)? != id {
        return Err(Refused("credential id mismatch"));
    }
    Ok(Registered {
        credential_id: id,
        public_key: cose_p256(&key)?,
        sign_count: parsed.sign_count,
        aaguid,
        transports: c.response.transports.clone().unwrap_or_default(),
    })
}

/// The credential id an assertion names (to find its stored key).
pub fn assertion_id(c: &Credential) -> Result<Vec<u8>, Refused> {
    decode(if c.raw_id.is_empty() {
        &c.id
    } else {
        &c.raw_id
    })
}

/// Checks an assertion (`navigator.credentials.get()`'s answer) against the stored key and
/// counter: the new counter.
pub fn verify_assertion(
    c: &Credential,
    e: &Expected,
    public_key: &[u8],
    stored_count: u32,
) -> Result<u32, Refused> {
    let cd = decode(&c.response.client_data_json)?;
    client_data(&cd, "webauthn.get", e)?;
    let data = decode(c.response.authenticator_data.as_deref().unwrap_or(""))?;
    let parsed = auth_data(&data, e.rp_id)?;
    let sig = decode(c.response.signature.as_deref().unwrap_or(""))?;
    let key = VerifyingKey::from_sec1_bytes(public_key).map_err(|_| Refused("stored key"))?;
    let sig = DerSignature::try_from(&sig[..]).map_err(|_| Refused("malformed signature"))?;
    let signed = [&data[..], &Sha256::digest(&cd)[..]].concat();
    key.verify(&signed, &sig)
        .map_err(|_| Refused("signature mismatch"))?;
    // A counter that does not move forward is a cloned authenticator (both 0: no counter).
    if (parsed.sign_count != 0 || stored_count != 0) && parsed.sign_count <= stored_count {
        return Err(Refused("signature counter did not increase"));
    }
    let _ = parsed.flags;
    Ok(parsed.sign_count)
}

#[cfg(test)]
mod tests {
    use super::*;
    use p256::ecdsa::{SigningKey, signature::Signer};

    /// A software authenticator: what a browser would answer, made with a key of our own.
    struct Authenticator {
        key: SigningKey,
        id: Vec<u8>,
        count: u32,
    }

    fn cbor(v: &Cbor) -> Vec<u8> {
        let mut out = Vec::new();
        ciborium::ser::into_writer(v, &mut out).unwrap();
        out
    }

    impl Authenticator {
        fn new() -> Self {
            Authenticator {
                key: SigningKey::from_slice(&rand::random::<[u8; 32]>()).unwrap(),
                id: vec![7; 32],
                count: 0,
            }
        }

        fn client_data(kind: &str, challenge: &str, origin: &str) -> Vec<u8> {
            serde_json::json!({"type": kind, "challenge": challenge, "origin": origin})
                .to_string()
                .into_bytes()
        }

        fn create(&self, rp_id: &str, challenge: &str, origin: &str) -> Credential {
            let point = self.key.verifying_key().to_encoded_point(false);
            let cose = Cbor::Map(vec![
                (Cbor::from(1), Cbor::from(2)),
                (Cbor::from(3), Cbor::from(-7)),
                (Cbor::from(-1), Cbor::from(1)),
                (Cbor::from(-2), Cbor::Bytes(point.x().unwrap().to_vec())),
                (Cbor::from(-3), Cbor::Bytes(point.y().unwrap().to_vec())),
            ]);
            let mut data = Sha256::digest(rp_id.as_bytes()).to_vec();
            data.push(0x45);
            data.extend([0, 0, 0, 0]);
            data.extend([0; 16]);
            data.extend((self.id.len() as u16).to_be_bytes());
            data.extend(&self.id);
            data.extend(cbor(&cose));
            let att = Cbor::Map(vec![
                (Cbor::from("fmt"), Cbor::from("none")),
                (Cbor::from("attStmt"), Cbor::Map(vec![])),
                (Cbor::from("authData"), Cbor::Bytes(data)),
            ]);
            Credential {
                id: encode(&self.id),
                raw_id: encode(&self.id),
                kind: "public-key".into(),
                response: CredentialResponse {
                    client_data_json: encode(&Self::client_data(
                        "webauthn.create",
                        challenge,
                        origin,
                    )),
                    attestation_object: Some(encode(&cbor(&att))),
                    ..Default::default()
                },
            }
        }

        fn get(&mut self, rp_id: &str, challenge: &str, origin: &str) -> Credential {
            self.count += 1;
            let mut data = Sha256::digest(rp_id.as_bytes()).to_vec();
            data.push(0x05);
            data.extend(self.count.to_be_bytes());
            let cd = Self::client_data("webauthn.get", challenge, origin);
            let signed = [&data[..], &Sha256::digest(&cd)[..]].concat();
            let sig: p256::ecdsa::Signature = self.key.sign(&signed);
            Credential {
                id: encode(&self.id),
                raw_id: encode(&self.id),
                kind: "public-key".into(),
                response: CredentialResponse {
                    client_data_json: encode(&cd),
                    authenticator_data: Some(encode(&data)),
                    signature: Some(encode(sig.to_der().as_bytes())),
                    ..Default::default()
                },
            }
        }
    }

    #[test]
    fn a_registration_and_sign_ins_are_checked() {
        let origins = vec!["http://localhost:5173".to_string()];
        let e = |challenge| Expected {
            rp_id: "localhost",
            origins: &origins,
            challenge,
        };
        let mut a = Authenticator::new();
        let reg = a.create("localhost", "c1", "http://localhost:5173");
        let stored = verify_registration(&reg, &e("c1")).unwrap();
        assert_eq!(stored.credential_id, a.id);
        assert_eq!(
            verify_registration(&reg, &e("c2")).unwrap_err(),
            Refused("challenge mismatch")
        );
        let elsewhere = a.create("evil.example", "c1", "http://localhost:5173");
        assert_eq!(
            verify_registration(&elsewhere, &e("c1")).unwrap_err(),
            Refused("RP id hash mismatch")
        );
        let foreign = a.create("localhost", "c1", "https://evil.example");
        assert_eq!(
            verify_registration(&foreign, &e("c1")).unwrap_err(),
            Refused("origin not allowed")
        );

        let sign_in = a.get("localhost", "c3", "http://localhost:5173");
        assert_eq!(assertion_id(&sign_in).unwrap(), a.id);
        let count = verify_assertion(&sign_in, &e("c3"), &stored.public_key, 0).unwrap();
        assert_eq!(count, 1);
        // Replayed (the counter did not move), or signed by another key.
        assert_eq!(
            verify_assertion(&sign_in, &e("c3"), &stored.public_key, count).unwrap_err(),
            Refused("signature counter did not increase")
        );
        let other = Authenticator::new().create("localhost", "c1", "http://localhost:5173");
        let other_key = verify_registration(&other, &e("c1")).unwrap().public_key;
        let next = a.get("localhost", "c4", "http://localhost:5173");
        assert_eq!(
            verify_assertion(&next, &e("c4"), &other_key, 0).unwrap_err(),
            Refused("signature mismatch")
        );
        let wrong_kind = a.create("localhost", "c5", "http://localhost:5173");
        let mut as_get = wrong_kind;
        as_get.response.authenticator_data = Some(String::new());
        assert_eq!(
            verify_assertion(&as_get, &e("c5"), &stored.public_key, 0).unwrap_err(),
            Refused("wrong ceremony type")
        );
    }
}
