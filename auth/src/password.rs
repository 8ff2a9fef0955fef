//! Password rules and hashing as GoTrue applies them.

/// bcrypt's input limit; GoTrue refuses longer passwords instead of silently truncating.
pub const MAX_PASSWORD_BYTES: usize = 72;
/// GoTrue's cost (Go's bcrypt default), so hashes move between Supabase and here unchanged.
pub const BCRYPT_COST: u32 = 10;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PasswordError {
    #[error("Password should be at least {0} characters.")]
    TooShort(usize),
    #[error("Password cannot be longer than 72 characters")]
    TooLong,
}

pub fn check_rules(password: &str, min_len: usize) -> Result<(), PasswordError> {
    if password.chars().count() < min_len {
        return Err(PasswordError::TooShort(min_len));
    }
    if password.len() > MAX_PASSWORD_BYTES {
        return Err(PasswordError::TooLong);
    }
    Ok(())
}

pub fn hash(password: &str) -> String {
    bcrypt::hash(password, BCRYPT_COST).expect("bcrypt hashing of a checked password")
}

/// Verifies against a stored hash. Unknown hash formats never verify.
pub fn verify(password: &str, stored: &str) -> bool {
    bcrypt::verify(password, stored).unwrap_or(false)
}

/// A hash of a random password, verified against when the e-mail is unknown so that an unknown
/// address and a wrong password take the same time.
pub fn dummy_hash() -> &'static str {
    static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DUMMY.get_or_init(|| hash(&uuid::Uuid::new_v4().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules() {
        assert_eq!(check_rules("12345", 6), Err(PasswordError::TooShort(6)));
        assert!(check_rules("123456", 6).is_ok());
        assert_eq!(check_rules(&"a".repeat(73), 6), Err(PasswordError::TooLong));
        assert_eq!(
            PasswordError::TooShort(6).to_string(),
            "Password should be at least 6 characters."
        );
    }

    #[test]
    fn hashes_verify_and_supabase_hashes_are_accepted() {
        let h = hash("secret123");
        assert!(h.starts_with("$2b$10$") || h.starts_with("$2y$10$"));
        assert!(verify("secret123", &h));
        assert!(!verify("secret124", &h));
        assert!(!verify("x", "not-a-hash"));
        // A $2a$ hash as GoTrue (Go's bcrypt) writes it.
        let go_style = h.replacen("$2b$", "$2a$", 1);
        assert!(verify("secret123", &go_style));
    }
}
