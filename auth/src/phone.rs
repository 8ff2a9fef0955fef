//! Phone numbers and text messages as GoTrue handles them: a number is kept as its E.164 digits
//! without `+` (spaces dropped), and a message is `[auth.sms] template` with its `{{ .Code }}`.

use crate::error::{AuthError, validation};

/// The digits GoTrue keeps of a phone number, or its E.164 error.
pub fn normalize(raw: &str) -> Result<String, AuthError> {
    let digits = raw.trim_start_matches('+').replace(' ', "");
    let e164 = (2..=15).contains(&digits.len())
        && !digits.starts_with('0')
        && digits.bytes().all(|b| b.is_ascii_digit());
    if e164 {
        Ok(digits)
    } else {
        Err(validation("Invalid phone number format (E.164 required)"))
    }
}

/// GoTrue's answer when a text would come sooner than `max_frequency` allows: `wait` is the
/// seconds still to wait (None or not positive: send).
pub fn too_soon(wait: Option<f64>) -> Result<(), AuthError> {
    match wait.filter(|w| *w > 0.0) {
        None => Ok(()),
        Some(w) => Err(crate::error::api(
            429,
            crate::error::ErrorCode::OverSmsSendRateLimit,
            format!(
                "For security purposes, you can only request this after {} seconds.",
                w.ceil() as i64
            ),
        )),
    }
}

/// The text of a message carrying `code`.
pub fn message(template: &str, code: &str) -> String {
    ["{{ .Code }}", "{{.Code}}", "{{ .Code}}", "{{.Code }}"]
        .iter()
        .fold(template.to_string(), |t, p| t.replace(p, code))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_kept_as_gotrue_keeps_them() {
        assert_eq!(normalize("+1 555 555 0100").unwrap(), "15555550100");
        assert_eq!(normalize("4915112345678").unwrap(), "4915112345678");
        for bad in [
            "",
            "+",
            "0123456",
            "+1-555-0100",
            "1234567890123456",
            "phone",
        ] {
            let e = normalize(bad).unwrap_err().to_string();
            assert_eq!(e, "Invalid phone number format (E.164 required)", "{bad}");
        }
        assert_eq!(
            message("Your code is {{ .Code }}", "123456"),
            "Your code is 123456"
        );
        assert_eq!(message("{{.Code}} is it", "42"), "42 is it");
    }
}
