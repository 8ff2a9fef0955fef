//! The cryptography of supagate's pgsodium (`extensions/pgrx/pgsodium`): what pgsodium 3.1 asks
//! of libsodium, computed with well-kept Rust crates that implement the same constructions, so
//! data encrypted, hashed or signed by pgsodium elsewhere opens, verifies and compares here
//! (checked against libsodium's own output in the tests), plus pgsodium's deterministic AEAD
//! (XChaCha20-SIV: an S2V over keyed BLAKE2b, then XChaCha20 under the synthetic IV).
//!
//! Sizes are libsodium's: keys of 32 bytes, secretbox and box nonces of 24, the deterministic
//! AEAD's optional nonce of 16 and its tag of 32, Ed25519 secret keys of 64 (seed and public
//! key). Nothing here touches PostgreSQL.

#![forbid(unsafe_code)]

use base64::Engine as _;
use chacha20::cipher::{KeyIvInit as _, StreamCipher as _};
use crypto_box::aead::{Aead as _, KeyInit as _, Payload};
use hmac::Mac as _;
use sha2::Digest as _;
use subtle::ConstantTimeEq as _;

pub const KEYBYTES: usize = 32;
pub const SECRETBOX_NONCEBYTES: usize = 24;
pub const SECRETBOX_MACBYTES: usize = 16;
pub const BOX_PUBLICKEYBYTES: usize = 32;
pub const BOX_SECRETKEYBYTES: usize = 32;
pub const BOX_NONCEBYTES: usize = 24;
pub const BOX_MACBYTES: usize = 16;
pub const BOX_SEEDBYTES: usize = 32;
pub const BOX_SEALBYTES: usize = 48;
pub const SIGN_BYTES: usize = 64;
pub const SIGN_PUBLICKEYBYTES: usize = 32;
pub const SIGN_SECRETKEYBYTES: usize = 64;
pub const SIGN_SEEDBYTES: usize = 32;
pub const DET_ABYTES: usize = 32;
pub const DET_NONCEBYTES: usize = 16;
pub const AEAD_IETF_NONCEBYTES: usize = 12;
pub const AEAD_IETF_ABYTES: usize = 16;
pub const GENERICHASH_BYTES: usize = 32;
pub const GENERICHASH_KEYBYTES_MIN: usize = 16;
pub const GENERICHASH_KEYBYTES_MAX: usize = 64;
pub const KDF_BYTES_MIN: usize = 16;
pub const KDF_BYTES_MAX: usize = 64;
pub const KDF_CONTEXTBYTES: usize = 8;
pub const PWHASH_SALTBYTES: usize = 16;
pub const PWHASH_STRBYTES: usize = 128;
pub const SHORTHASH_KEYBYTES: usize = 16;
pub const HMACSHA512_BYTES: usize = 64;

/// `crypto_pwhash_OPSLIMIT_MODERATE` and `crypto_pwhash_MEMLIMIT_MODERATE` (in KiB), the
/// parameters pgsodium hashes passwords with.
const PWHASH_OPSLIMIT: u32 = 3;
const PWHASH_MEMLIMIT_KIB: u32 = 262_144;
/// The most a stored hash may ask of `crypto_pwhash_str_verify` (libsodium's largest preset,
/// `MEMLIMIT_SENSITIVE` = 1 GiB; a hash asking for more is not verified).
const PWHASH_VERIFY_MAX_KIB: u32 = 1_048_576;
const PWHASH_VERIFY_MAX_OPS: u32 = 64;

/// `randombytes_buf`: bytes from the operating system's generator.
pub fn random_bytes(n: usize) -> Vec<u8> {
    let mut b = vec![0u8; n];
    getrandom::fill(&mut b).expect("the operating system's random generator");
    b
}

/// `randombytes_random`.
pub fn random_u32() -> u32 {
    let b = random_bytes(4);
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

/// `randombytes_uniform`: uniform in `0..upper` (0 when `upper` < 2), by rejection as libsodium.
pub fn random_uniform(upper: u32) -> u32 {
    if upper < 2 {
        return 0;
    }
    let min = upper.wrapping_neg() % upper;
    loop {
        let r = random_u32();
        if r >= min {
            return r % upper;
        }
    }
}

/// `randombytes_buf_deterministic`: ChaCha20 (IETF) keystream under the seed and the nonce
/// `LibsodiumDRG`.
pub fn random_deterministic(n: usize, seed: &[u8; 32]) -> Vec<u8> {
    let mut out = vec![0u8; n];
    let mut c = chacha20::ChaCha20::new(seed.into(), b"LibsodiumDRG".into());
    c.apply_keystream(&mut out);
    out
}

/// Keyed BLAKE2b of the concatenation of `parts`, `len` bytes long.
fn blake2b(key: &[u8], len: usize, parts: &[&[u8]]) -> Vec<u8> {
    let mut st = blake2b_simd::Params::new()
        .hash_length(len)
        .key(key)
        .to_state();
    for p in parts {
        st.update(p);
    }
    st.finalize().as_bytes().to_vec()
}

/// `crypto_generichash`: BLAKE2b, 32 bytes, with a key of 16 to 64 bytes or none.
pub fn generichash(message: &[u8], key: Option<&[u8]>) -> Vec<u8> {
    blake2b(key.unwrap_or(&[]), GENERICHASH_BYTES, &[message])
}

/// `crypto_kdf_derive_from_key` (BLAKE2b): the subkey `id` of `key` in an 8-byte context, 16 to
/// 64 bytes long. `None` for a size or context out of range.
pub fn kdf_derive(len: usize, id: u64, context: &[u8], key: &[u8; 32]) -> Option<Vec<u8>> {
    if !(KDF_BYTES_MIN..=KDF_BYTES_MAX).contains(&len) || context.len() != KDF_CONTEXTBYTES {
        return None;
    }
    let mut salt = [0u8; 16];
    salt[..8].copy_from_slice(&id.to_le_bytes());
    let mut personal = [0u8; 16];
    personal[..8].copy_from_slice(context);
    Some(
        blake2b_simd::Params::new()
            .hash_length(len)
            .key(key)
            .salt(&salt)
            .personal(&personal)
            .hash(b"")
            .as_bytes()
            .to_vec(),
    )
}

/// `crypto_secretbox_easy`: XSalsa20-Poly1305, the tag before the ciphertext.
pub fn secretbox(message: &[u8], nonce: &[u8; 24], key: &[u8; 32]) -> Vec<u8> {
    crypto_secretbox::XSalsa20Poly1305::new(key.into())
        .encrypt(nonce.into(), message)
        .expect("XSalsa20-Poly1305 encrypts any message")
}

/// `crypto_secretbox_open_easy`; None when the box does not open.
pub fn secretbox_open(boxed: &[u8], nonce: &[u8; 24], key: &[u8; 32]) -> Option<Vec<u8>> {
    crypto_secretbox::XSalsa20Poly1305::new(key.into())
        .decrypt(nonce.into(), boxed)
        .ok()
}

/// `crypto_box_keypair`: a random X25519 secret key and its public key.
pub fn box_keypair() -> ([u8; 32], [u8; 32]) {
    let mut sk = [0u8; 32];
    sk.copy_from_slice(&random_bytes(32));
    (box_public(&sk), sk)
}

/// `crypto_box_seed_keypair`: the secret key is the first half of SHA-512(seed).
pub fn box_seed_keypair(seed: &[u8; 32]) -> ([u8; 32], [u8; 32]) {
    let mut sk = [0u8; 32];
    sk.copy_from_slice(&sha2::Sha512::digest(seed)[..32]);
    (box_public(&sk), sk)
}

/// The X25519 public key of a secret key (`crypto_scalarmult_base`).
pub fn box_public(sk: &[u8; 32]) -> [u8; 32] {
    *crypto_box::SecretKey::from(*sk).public_key().as_bytes()
}

fn salsa_box(pk: &[u8; 32], sk: &[u8; 32]) -> crypto_box::SalsaBox {
    crypto_box::SalsaBox::new(
        &crypto_box::PublicKey::from(*pk),
        &crypto_box::SecretKey::from(*sk),
    )
}

/// `crypto_box_easy`: X25519, then XSalsa20-Poly1305 under the shared key.
pub fn box_seal_to(message: &[u8], nonce: &[u8; 24], pk: &[u8; 32], sk: &[u8; 32]) -> Vec<u8> {
    salsa_box(pk, sk)
        .encrypt(nonce.into(), message)
        .expect("XSalsa20-Poly1305 encrypts any message")
}

/// `crypto_box_open_easy`; None when the box does not open.
pub fn box_open(boxed: &[u8], nonce: &[u8; 24], pk: &[u8; 32], sk: &[u8; 32]) -> Option<Vec<u8>> {
    salsa_box(pk, sk).decrypt(nonce.into(), boxed).ok()
}

/// `crypto_box_seal`: an anonymous box to `pk` (an ephemeral key pair, the nonce from
/// BLAKE2b of both public keys).
pub fn sealed_box(message: &[u8], pk: &[u8; 32]) -> Vec<u8> {
    crypto_box::PublicKey::from(*pk)
        .seal(&mut crypto_box::aead::OsRng, message)
        .expect("a sealed box")
}

/// `crypto_box_seal_open`.
pub fn sealed_box_open(boxed: &[u8], sk: &[u8; 32]) -> Option<Vec<u8>> {
    crypto_box::SecretKey::from(*sk).unseal(boxed).ok()
}

/// `crypto_sign_keypair`: (public key, secret key = seed and public key).
pub fn sign_keypair() -> ([u8; 32], [u8; 64]) {
    let mut seed = [0u8; 32];
    seed.copy_from_slice(&random_bytes(32));
    sign_seed_keypair(&seed)
}

/// `crypto_sign_seed_keypair`.
pub fn sign_seed_keypair(seed: &[u8; 32]) -> ([u8; 32], [u8; 64]) {
    let key = ed25519_dalek::SigningKey::from_bytes(seed);
    (key.verifying_key().to_bytes(), key.to_keypair_bytes())
}

fn signing_key(sk: &[u8; 64]) -> Option<ed25519_dalek::SigningKey> {
    ed25519_dalek::SigningKey::from_keypair_bytes(sk).ok()
}

/// `crypto_sign_detached`; None for a secret key whose public half is not its seed's.
pub fn sign_detached(message: &[u8], sk: &[u8; 64]) -> Option<[u8; 64]> {
    use ed25519_dalek::Signer as _;
    Some(signing_key(sk)?.sign(message).to_bytes())
}

/// `crypto_sign`: the signature, then the message.
pub fn sign(message: &[u8], sk: &[u8; 64]) -> Option<Vec<u8>> {
    let sig = sign_detached(message, sk)?;
    Some([&sig[..], message].concat())
}

/// `crypto_sign_verify_detached`, as strict as libsodium (canonical S, no small-order keys).
pub fn verify_detached(sig: &[u8], message: &[u8], pk: &[u8; 32]) -> bool {
    let Ok(sig) = ed25519_dalek::Signature::from_slice(sig) else {
        return false;
    };
    let Ok(key) = ed25519_dalek::VerifyingKey::from_bytes(pk) else {
        return false;
    };
    key.verify_strict(message, &sig).is_ok()
}

/// `crypto_sign_open`: the message of a signed message, None when the signature is not good.
pub fn sign_open(signed: &[u8], pk: &[u8; 32]) -> Option<Vec<u8>> {
    if signed.len() < SIGN_BYTES {
        return None;
    }
    let (sig, message) = signed.split_at(SIGN_BYTES);
    verify_detached(sig, message, pk).then(|| message.to_vec())
}

/// `crypto_pwhash` as pgsodium calls it: Argon2id 1.3, 32 bytes, the moderate limits
/// (3 passes, 256 MiB).
pub fn pwhash(password: &[u8], salt: &[u8; 16]) -> Vec<u8> {
    let mut out = vec![0u8; 32];
    argon2_moderate()
        .hash_password_into(password, salt, &mut out)
        .expect("Argon2id with a 16-byte salt");
    out
}

fn argon2_moderate() -> argon2::Argon2<'static> {
    argon2::Argon2::new(
        argon2::Algorithm::Argon2id,
        argon2::Version::V0x13,
        argon2::Params::new(PWHASH_MEMLIMIT_KIB, PWHASH_OPSLIMIT, 1, Some(32))
            .expect("libsodium's moderate parameters"),
    )
}

/// `crypto_pwhash_str` as pgsodium returns it: the `$argon2id$v=19$m=262144,t=3,p=1$…`
/// string, zero-padded to `crypto_pwhash_STRBYTES` (128) bytes.
pub fn pwhash_str(password: &[u8]) -> Vec<u8> {
    use argon2::PasswordHasher as _;
    let salt_bytes = random_bytes(PWHASH_SALTBYTES);
    let salt =
        argon2::password_hash::SaltString::encode_b64(&salt_bytes).expect("a 16-byte salt encodes");
    let hash = argon2_moderate()
        .hash_password(password, &salt)
        .expect("Argon2id hashes any password")
        .to_string();
    let mut out = hash.into_bytes();
    out.resize(PWHASH_STRBYTES, 0);
    out
}

/// `crypto_pwhash_str_verify`: the stored string (up to its first NUL) against a password;
/// false for a string that is not an Argon2 hash or asks for more than 1 GiB or 64 passes.
pub fn pwhash_str_verify(stored: &[u8], password: &[u8]) -> bool {
    use argon2::PasswordVerifier as _;
    let end = stored.iter().position(|b| *b == 0).unwrap_or(stored.len());
    let Ok(text) = std::str::from_utf8(&stored[..end]) else {
        return false;
    };
    let Ok(parsed) = argon2::PasswordHash::new(text) else {
        return false;
    };
    if !matches!(parsed.algorithm.as_str(), "argon2id" | "argon2i") {
        return false;
    }
    let Ok(params) = argon2::Params::try_from(&parsed) else {
        return false;
    };
    if params.m_cost() > PWHASH_VERIFY_MAX_KIB || params.t_cost() > PWHASH_VERIFY_MAX_OPS {
        return false;
    }
    argon2::Argon2::default()
        .verify_password(password, &parsed)
        .is_ok()
}

/// Doubling in GF(2^256) as pgsodium's S2V does it (the polynomial's low bits 0x0425).
fn dbl256(d: &mut [u8; 32]) {
    let orig = *d;
    let mut t = [0u8; 32];
    for i in 0..32 {
        t[i] = orig[i] << 1;
    }
    for i in (1..32).rev() {
        t[i - 1] |= orig[i] >> 7;
    }
    let mask = (orig[0] >> 7).wrapping_neg();
    t[30] ^= 0x04 & mask;
    t[31] ^= 0x25 & mask;
    *d = t;
}

fn xor_into(d: &mut [u8], h: &[u8]) {
    for (a, b) in d.iter_mut().zip(h) {
        *a ^= b;
    }
}

/// pgsodium's S2V: the synthetic IV of a message, its associated data and nonce under `ka`.
fn s2v(message: &[u8], ad: &[u8], nonce: Option<&[u8; 16]>, ka: &[u8]) -> [u8; 32] {
    let mut d = [0u8; 32];
    d.copy_from_slice(&blake2b(ka, 32, &[&[0u8; DET_ABYTES]]));
    if !ad.is_empty() {
        dbl256(&mut d);
        xor_into(&mut d, &blake2b(ka, DET_ABYTES, &[ad]));
    }
    if let Some(n) = nonce {
        dbl256(&mut d);
        xor_into(&mut d, &blake2b(ka, DET_ABYTES, &[n]));
    }
    let mut st = blake2b_simd::Params::new()
        .hash_length(DET_ABYTES)
        .key(ka)
        .to_state();
    if message.len() >= DET_ABYTES {
        let (head, tail) = message.split_at(message.len() - DET_ABYTES);
        st.update(head);
        xor_into(&mut d, tail);
    } else {
        dbl256(&mut d);
        xor_into(&mut d, message);
        d[message.len()] ^= 0x80;
    }
    st.update(&d);
    let mut iv = [0u8; 32];
    iv.copy_from_slice(st.finalize().as_bytes());
    iv
}

fn det_subkeys(key: &[u8; 32]) -> Vec<u8> {
    blake2b(key, 64, &[])
}

fn xchacha20(data: &mut [u8], iv: &[u8; 32], ke: &[u8]) {
    let mut nonce = [0u8; 24];
    nonce.copy_from_slice(&iv[..24]);
    let mut key = [0u8; 32];
    key.copy_from_slice(ke);
    chacha20::XChaCha20::new(&key.into(), &nonce.into()).apply_keystream(data);
}

/// pgsodium's `crypto_aead_det_xchacha20_encrypt`: the ciphertext, then the 32-byte SIV.
pub fn det_encrypt(message: &[u8], ad: &[u8], nonce: Option<&[u8; 16]>, key: &[u8; 32]) -> Vec<u8> {
    let sub = det_subkeys(key);
    let iv = s2v(message, ad, nonce, &sub[..32]);
    let mut out = message.to_vec();
    xchacha20(&mut out, &iv, &sub[32..]);
    out.extend_from_slice(&iv);
    out
}

/// pgsodium's `crypto_aead_det_xchacha20_decrypt`; None when the SIV does not match.
pub fn det_decrypt(
    ciphertext: &[u8],
    ad: &[u8],
    nonce: Option<&[u8; 16]>,
    key: &[u8; 32],
) -> Option<Vec<u8>> {
    if ciphertext.len() < DET_ABYTES {
        return None;
    }
    let (c, mac) = ciphertext.split_at(ciphertext.len() - DET_ABYTES);
    let mut iv = [0u8; 32];
    iv.copy_from_slice(mac);
    let sub = det_subkeys(key);
    let mut message = c.to_vec();
    xchacha20(&mut message, &iv, &sub[32..]);
    let computed = s2v(&message, ad, nonce, &sub[..32]);
    bool::from(computed.ct_eq(&iv)).then_some(message)
}

/// `crypto_aead_chacha20poly1305_ietf_encrypt`: the ciphertext, then the 16-byte tag.
pub fn aead_ietf_encrypt(message: &[u8], ad: &[u8], nonce: &[u8; 12], key: &[u8; 32]) -> Vec<u8> {
    chacha20poly1305::ChaCha20Poly1305::new(key.into())
        .encrypt(
            nonce.into(),
            Payload {
                msg: message,
                aad: ad,
            },
        )
        .expect("ChaCha20-Poly1305 encrypts any message")
}

/// `crypto_aead_chacha20poly1305_ietf_decrypt`.
pub fn aead_ietf_decrypt(
    ciphertext: &[u8],
    ad: &[u8],
    nonce: &[u8; 12],
    key: &[u8; 32],
) -> Option<Vec<u8>> {
    chacha20poly1305::ChaCha20Poly1305::new(key.into())
        .decrypt(
            nonce.into(),
            Payload {
                msg: ciphertext,
                aad: ad,
            },
        )
        .ok()
}

/// `crypto_auth` (HMAC-SHA-512-256): HMAC-SHA-512 truncated to 32 bytes.
pub fn auth(message: &[u8], key: &[u8]) -> Vec<u8> {
    hmac_sha512(message, key)[..32].to_vec()
}

/// `crypto_auth_hmacsha256`.
pub fn hmac_sha256(message: &[u8], key: &[u8]) -> Vec<u8> {
    let mut m =
        <hmac::Hmac<sha2::Sha256> as hmac::Mac>::new_from_slice(key).expect("HMAC takes any key");
    m.update(message);
    m.finalize().into_bytes().to_vec()
}

/// `crypto_auth_hmacsha512`.
pub fn hmac_sha512(message: &[u8], key: &[u8]) -> Vec<u8> {
    let mut m =
        <hmac::Hmac<sha2::Sha512> as hmac::Mac>::new_from_slice(key).expect("HMAC takes any key");
    m.update(message);
    m.finalize().into_bytes().to_vec()
}

/// Whether two MACs are equal, in constant time (the `*_verify` functions).
pub fn mac_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && bool::from(a.ct_eq(b))
}

pub fn sha256(message: &[u8]) -> Vec<u8> {
    sha2::Sha256::digest(message).to_vec()
}

pub fn sha512(message: &[u8]) -> Vec<u8> {
    sha2::Sha512::digest(message).to_vec()
}

/// `crypto_shorthash` (SipHash-2-4), 8 bytes, little-endian.
pub fn shorthash(message: &[u8], key: &[u8; 16]) -> Vec<u8> {
    use std::hash::Hasher as _;
    let mut h = siphasher::sip::SipHasher24::new_with_key(key);
    h.write(message);
    h.finish().to_le_bytes().to_vec()
}

/// `sodium_bin2base64` with the URL-safe alphabet and no padding (pgsodium's variant).
pub fn bin2base64(bin: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bin)
}

/// `sodium_base642bin`, same variant; None for text that is not.
pub fn base642bin(text: &[u8]) -> Option<Vec<u8>> {
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(text)
        .ok()
}

#[cfg(test)]
mod tests;
