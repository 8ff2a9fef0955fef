//! Who a caller is, decided once for every API: the project's keys and tokens ([`jwt`]: HS256
//! with the secret, RS256/ES256/`oct` signing keys read as JSON Web Keys in [`jwk`], the JWKS,
//! the Supabase CLI's opaque `sb_` keys), a third-party issuer's keys ([`third_party`]), new
//! signing keys ([`keygen`]), providers' ID tokens ([`id_token`]), the clock tokens are issued
//! and checked by ([`clock`]) and the hash one-time codes are kept as ([`token_hash`]).
//!
//! [`resolve`] turns a request's `apikey` and bearer token into an [`Identity`] or a
//! [`CredentialError`]; each API renders that error in its own wire shape.

pub mod clock;
mod credential;
pub mod id_token;
mod jwk;
pub mod jwt;
pub mod keygen;
pub mod third_party;

pub use credential::{CredentialError, Identity, resolve};
pub use jwk::JwkError;
pub use jwt::{ApiKeys, Claims, JwtError, JwtKeys, SigningKeysError};

use sha2::{Digest, Sha224};

/// GoTrue's token hash of an address and a one-time code: `hex(sha224(address + code))`, as
/// `auth.one_time_tokens` keeps it (`crypto.GenerateTokenHash`).
pub fn token_hash(address: &str, code: &str) -> String {
    hex::encode(Sha224::digest(format!("{address}{code}").as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_hashes_are_gotrue_s() {
        // hex(sha224("ann@example.com123456")), as GoTrue's crypto.GenerateTokenHash gives it.
        assert_eq!(
            token_hash("ann@example.com", "123456"),
            "14430f867bf6cd519848fe112e9b20dfa81c634f830777807737dc24"
        );
        assert_eq!(token_hash("a@b.co", "1").len(), 56);
        assert_ne!(token_hash("a@b.co", "1"), token_hash("a@b.co", "2"));
    }
}
