//! E-mailed one-time codes as GoTrue keeps them: a numeric code is mailed, and the user row
//! (and `auth.one_time_tokens`) keeps `hex(sha224(address + code))`, prefixed `pkce_` when the
//! flow exchanges a code for the session. The hash travels in links as `token`.

use crate::error::Result;
use rand::Rng;
use tokio_postgres::GenericClient;
use uuid::Uuid;

/// Which token of the user row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    Confirmation,
    Recovery,
    EmailChangeNew,
    EmailChangeCurrent,
    Reauthentication,
    PhoneChange,
}

impl Slot {
    pub(crate) fn column(self) -> &'static str {
        match self {
            Slot::Confirmation => "confirmation_token",
            Slot::Recovery => "recovery_token",
            Slot::EmailChangeNew => "email_change_token_new",
            Slot::EmailChangeCurrent => "email_change_token_current",
            Slot::Reauthentication => "reauthentication_token",
            Slot::PhoneChange => "phone_change_token",
        }
    }

    pub(crate) fn sent_at(self) -> &'static str {
        match self {
            Slot::Confirmation => "confirmation_sent_at",
            Slot::Recovery => "recovery_sent_at",
            Slot::EmailChangeNew | Slot::EmailChangeCurrent => "email_change_sent_at",
            Slot::Reauthentication => "reauthentication_sent_at",
            Slot::PhoneChange => "phone_change_sent_at",
        }
    }

    fn token_type(self) -> &'static str {
        match self {
            Slot::Confirmation => "confirmation_token",
            Slot::Recovery => "recovery_token",
            Slot::EmailChangeNew => "email_change_token_new",
            Slot::EmailChangeCurrent => "email_change_token_current",
            Slot::Reauthentication => "reauthentication_token",
            Slot::PhoneChange => "phone_change_token",
        }
    }
}

/// A code of `len` digits.
pub fn generate(len: usize) -> String {
    let mut rng = rand::rng();
    (0..len)
        .map(|_| char::from(b'0' + rng.random_range(0..10u8)))
        .collect()
}

/// GoTrue's token hash of an address and a code (identity's: the workbench reads it too).
pub use identity::token_hash as hash;

/// Stores a token (its sent time now) on the user row and in `auth.one_time_tokens`.
pub async fn store(
    c: &impl GenericClient,
    user_id: Uuid,
    slot: Slot,
    token: &str,
    relates_to: &str,
) -> Result<()> {
    c.execute(
        &format!(
            "UPDATE auth.users SET {} = $2, {} = now(), updated_at = now() WHERE id = $1",
            slot.column(),
            slot.sent_at()
        ),
        &[&user_id, &token],
    )
    .await?;
    c.execute(
        "INSERT INTO auth.one_time_tokens (id, user_id, token_type, token_hash, relates_to)
         VALUES (gen_random_uuid(), $1, $2::text::auth.one_time_token_type, $3, $4)
         ON CONFLICT (user_id, token_type) DO UPDATE
           SET token_hash = excluded.token_hash, relates_to = excluded.relates_to, updated_at = now()",
        &[&user_id, &slot.token_type(), &token, &relates_to],
    )
    .await?;
    Ok(())
}

/// Forgets a token once used.
pub async fn clear(c: &impl GenericClient, user_id: Uuid, slot: Slot) -> Result<()> {
    c.execute(
        &format!("UPDATE auth.users SET {} = '' WHERE id = $1", slot.column()),
        &[&user_id],
    )
    .await?;
    c.execute(
        "DELETE FROM auth.one_time_tokens WHERE user_id = $1 AND token_type = $2::text::auth.one_time_token_type",
        &[&user_id, &slot.token_type()],
    )
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_numeric() {
        let c = generate(6);
        assert!(c.len() == 6 && c.bytes().all(|b| b.is_ascii_digit()));
    }
}
