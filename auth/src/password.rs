//! Password rules and hashing as GoTrue applies them.

/// bcrypt's input limit; GoTrue refuses longer passwords instead of silently truncating.
pub const MAX_PASSWORD_BYTES: usize = 72;
/// GoTrue's cost (Go's bcrypt default), so hashes move between Supabase and here unchanged.
pub const BCRYPT_COST: u32 = 10;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PasswordError {
    /// GoTrue's weak_password: every failed rule's message, and its reason codes.
    #[error("{message}")]
    Weak {
        message: String,
        reasons: Vec<&'static str>,
    },
    #[error("Password cannot be longer than 72 characters")]
    TooLong,
}

/// What a password must be: `[auth] minimum_password_length` and `password_requirements`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    pub min_length: usize,
    /// Character sets of which the password needs one character each (GoTrue's
    /// PASSWORD_REQUIRED_CHARACTERS).
    pub required: Vec<&'static str>,
}

const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LETTERS: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const DIGITS: &str = "0123456789";
const SYMBOLS: &str = "!@#$%^&*()_+-=[]{};'\\:\"|<>?,./`~";

impl Policy {
    /// The policy of config.toml's `password_requirements` ("" = length only).
    pub fn new(min_length: usize, requirements: &str) -> Policy {
        let required = match requirements {
            "letters_digits" => vec![LETTERS, DIGITS],
            "lower_upper_letters_digits" => vec![LOWER, UPPER, DIGITS],
            "lower_upper_letters_digits_symbols" => vec![LOWER, UPPER, DIGITS, SYMBOLS],
            _ => Vec::new(),
        };
        Policy {
            min_length,
            required,
        }
    }

    pub fn check(&self, password: &str) -> Result<(), PasswordError> {
        if password.len() > MAX_PASSWORD_BYTES {
            return Err(PasswordError::TooLong);
        }
        let mut messages = Vec::new();
        let mut reasons = Vec::new();
        if password.chars().count() < self.min_length {
            reasons.push("length");
            messages.push(format!(
                "Password should be at least {} characters.",
                self.min_length
            ));
        }
        if self
            .required
            .iter()
            .any(|set| !password.chars().any(|c| set.contains(c)))
        {
            reasons.push("characters");
            messages.push(format!(
                "Password should contain at least one character of each: {}.",
                self.required.join(", ")
            ));
        }
        if reasons.is_empty() {
            Ok(())
        } else {
            Err(PasswordError::Weak {
                message: messages.join(" "),
                reasons,
            })
        }
    }
}

/// Length rules only (GoTrue's default policy with this minimum).
pub fn check_rules(password: &str, min_len: usize) -> Result<(), PasswordError> {
    Policy::new(min_len, "").check(password)
}

pub fn hash(password: &str) -> String {
    bcrypt::hash(password, BCRYPT_COST).expect("bcrypt hashing of a checked password")
}

/// Verifies against a stored hash. Unknown hash formats never verify, and neither does a
/// password longer than bcrypt reads (GoTrue's rule; bcrypt would compare only its first 72
/// bytes, so such a password could never have been set).
pub fn verify(password: &str, stored: &str) -> bool {
    password.len() <= MAX_PASSWORD_BYTES && bcrypt::verify(password, stored).unwrap_or(false)
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
        let weak = |m: &str, r: &[&'static str]| PasswordError::Weak {
            message: m.into(),
            reasons: r.to_vec(),
        };
        assert_eq!(
            check_rules("12345", 6),
            Err(weak(
                "Password should be at least 6 characters.",
                &["length"]
            ))
        );
        assert!(check_rules("123456", 6).is_ok());
        assert_eq!(check_rules(&"a".repeat(73), 6), Err(PasswordError::TooLong));
        let p = Policy::new(8, "lower_upper_letters_digits");
        assert!(p.check("Abcdefg1").is_ok());
        assert_eq!(
            p.check("abc"),
            Err(weak(
                "Password should be at least 8 characters. Password should contain at least one \
                 character of each: abcdefghijklmnopqrstuvwxyz, ABCDEFGHIJKLMNOPQRSTUVWXYZ, 0123456789.",
                &["length", "characters"]
            ))
        );
        assert!(Policy::new(6, "letters_digits").check("abcdef1").is_ok());
        assert!(
            Policy::new(6, "lower_upper_letters_digits_symbols")
                .check("Abcdef1")
                .is_err()
        );
        assert!(
            Policy::new(6, "lower_upper_letters_digits_symbols")
                .check("Abcde:1")
                .is_ok()
        );
    }

    #[test]
    fn hashes_verify_and_supabase_hashes_are_accepted() {
        let h = hash("secret123");
        assert!(h.starts_with("$2b$10$") || h.starts_with("$2y$10$"));
        assert!(verify("secret123", &h));
        assert!(!verify("secret124", &h));
        assert!(!verify("x", "not-a-hash"));
        let long = "p".repeat(72);
        let h72 = hash(&long);
        assert!(verify(&long, &h72));
        assert!(
            !verify(&format!("{long}extra"), &h72),
            "73+ bytes never verify"
        );
        // A $2a$ hash as GoTrue (Go's bcrypt) writes it.
        let go_style = h.replacen("$2b$", "$2a$", 1);
        assert!(verify("secret123", &go_style));
    }
}
