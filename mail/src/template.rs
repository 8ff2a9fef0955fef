//! The mails GoTrue sends: their kinds, default subjects and bodies (GoTrue's own), and the
//! subset of Go's templates that Supabase mail templates use — `{{ .Field }}` and
//! `{{ .Data.key }}` (HTML-escaped), `{{ if … }}`/`{{ else }}`/`{{ end }}` with a field or
//! `eq`/`ne` of a field and a string.

use serde_json::{Map, Value};

/// A template that cannot be rendered, and why.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct TemplateError(String);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Invite,
    Confirmation,
    Recovery,
    MagicLink,
    EmailChange,
    Reauthentication,
    PasswordChanged,
    EmailChanged,
    IdentityUnlinked,
    FactorEnrolled,
    FactorUnenrolled,
}

impl Kind {
    /// The name under `[auth.email.template]` / `[auth.email.notification]`.
    pub fn config_name(self) -> &'static str {
        match self {
            Kind::Invite => "invite",
            Kind::Confirmation => "confirmation",
            Kind::Recovery => "recovery",
            Kind::MagicLink => "magic_link",
            Kind::EmailChange => "email_change",
            Kind::Reauthentication => "reauthentication",
            Kind::PasswordChanged => "password_changed",
            Kind::EmailChanged => "email_changed",
            Kind::IdentityUnlinked => "identity_unlinked",
            Kind::FactorEnrolled => "mfa_factor_enrolled",
            Kind::FactorUnenrolled => "mfa_factor_unenrolled",
        }
    }

    /// Whether this is an account-change notification (off unless configured).
    pub fn is_notification(self) -> bool {
        matches!(
            self,
            Kind::PasswordChanged
                | Kind::EmailChanged
                | Kind::IdentityUnlinked
                | Kind::FactorEnrolled
                | Kind::FactorUnenrolled
        )
    }

    /// `email_action_type` as the send-email hook receives it.
    pub fn action_type(self) -> &'static str {
        match self {
            Kind::Invite => "invite",
            Kind::Confirmation => "signup",
            Kind::Recovery => "recovery",
            Kind::MagicLink => "magiclink",
            Kind::EmailChange => "email_change",
            Kind::Reauthentication => "reauthentication",
            other => other.config_name(),
        }
    }

    pub fn default_subject(self) -> &'static str {
        match self {
            Kind::Invite => "You've been invited",
            Kind::Confirmation => "Confirm your email address",
            Kind::Recovery => "Reset your password",
            Kind::MagicLink => "Your sign-in link",
            Kind::EmailChange => "Confirm your new email address",
            Kind::Reauthentication => "{{ .Token }} is your verification code",
            Kind::PasswordChanged => "Your password was changed",
            Kind::EmailChanged => "Your email address was changed",
            Kind::IdentityUnlinked => "A sign-in method was removed from your account",
            Kind::FactorEnrolled => "A new verification method was added to your account",
            Kind::FactorUnenrolled => "A verification method was removed from your account",
        }
    }

    pub fn default_body(self) -> &'static str {
        match self {
            Kind::Invite => {
                "<h2>You've been invited</h2>\n\n<p>You've been invited to create an account. Follow the link below to accept.</p>\n<p><a href=\"{{ .ConfirmationURL }}\">Accept invitation</a></p>"
            }
            Kind::Confirmation => {
                "<h2>Confirm your email address</h2>\n\n<p>Follow the link below to confirm this email address and finish signing up.</p>\n<p><a href=\"{{ .ConfirmationURL }}\">Confirm email address</a></p>\n"
            }
            Kind::Recovery => {
                "<h2>Reset your password</h2>\n\n<p>We received a request to reset your password. Follow the link below to choose a new one.</p>\n<p><a href=\"{{ .ConfirmationURL }}\">Reset password</a></p>\n<p>If you didn't request this, you can safely ignore this email.</p>"
            }
            Kind::MagicLink => {
                "<h2>Your sign-in link</h2>\n\n<p>Follow the link below to sign in. This link expires shortly and can only be used once.</p>\n<p><a href=\"{{ .ConfirmationURL }}\">Sign in</a></p>"
            }
            Kind::EmailChange => {
                "<h2>Confirm your new email address</h2>\n\n<p>Follow the link below to confirm {{ .NewEmail }} as your new email address.</p>\n<p><a href=\"{{ .ConfirmationURL }}\">Confirm new email address</a></p>\n<p>If you didn't request this change, you can safely ignore this email.</p>"
            }
            Kind::Reauthentication => {
                "<h2>Your verification code</h2>\n\n<p>Use the code below to verify your identity. It expires shortly.</p>\n<p>{{ .Token }}</p>"
            }
            Kind::PasswordChanged => {
                "<h2>Your password was changed</h2>\n\n<p>The password for your account was recently changed.</p>\n<p>If you didn't make this change, reset your password and contact support immediately.</p>\n"
            }
            Kind::EmailChanged => {
                "<h2>Your email address was changed</h2>\n\n<p>The email address for your account was changed from {{ .OldEmail }} to {{ .Email }}.</p>\n<p>If you didn't make this change, contact support immediately.</p>\n"
            }
            Kind::IdentityUnlinked => {
                "<h2>A sign-in method was removed</h2>\n\n<p>Your {{ .Provider }} account was removed as a sign-in method for {{ .Email }}.</p>\n<p>If you didn't make this change, contact support immediately.</p>\n"
            }
            Kind::FactorEnrolled => {
                "<h2>A new verification method was added</h2>\n\n<p>Sign-in verification method {{ .FactorType }} was added to your account.</p>\n<p>If you didn't make this change, contact support immediately.</p>\n"
            }
            Kind::FactorUnenrolled => {
                "<h2>A verification method was removed</h2>\n\n<p>Sign-in verification method {{ .FactorType }} was removed from your account.</p>\n<p>If you didn't make this change, contact support immediately.</p>\n"
            }
        }
    }
}

/// A mail a flow wants sent (after its transaction commits).
#[derive(Debug, Clone, PartialEq)]
pub struct MailJob {
    pub kind: Kind,
    pub to: String,
    pub user_id: uuid::Uuid,
    /// The template's fields: ConfirmationURL, Token, TokenHash, Email, NewEmail, SiteURL,
    /// RedirectTo, Data, …
    pub vars: Map<String, Value>,
}

impl MailJob {
    pub fn var(&self, name: &str) -> &str {
        self.vars.get(name).and_then(Value::as_str).unwrap_or("")
    }
}

fn lookup<'a>(vars: &'a Map<String, Value>, path: &str) -> Option<&'a Value> {
    let mut parts = path.trim_start_matches('.').split('.');
    let mut v = vars.get(parts.next()?)?;
    for p in parts {
        v = v.get(p)?;
    }
    Some(v)
}

fn text(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// Text made safe inside HTML, in elements and quoted attributes alike, as Go's html/template
/// writes it (GoTrue's mail templates; `&#34;` and `&#39;` for the quotes). Every HTML page
/// supagate writes escapes with this one.
pub fn escape_html(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&#34;")
        .replace('\'', "&#39;")
}

fn truthy(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) | Some(Value::Bool(false)) => false,
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Object(o)) => !o.is_empty(),
        Some(Value::Array(a)) => !a.is_empty(),
        _ => true,
    }
}

fn condition(expr: &str, vars: &Map<String, Value>) -> Result<bool, TemplateError> {
    let words: Vec<&str> = expr.split_whitespace().collect();
    match words.as_slice() {
        [field] if field.starts_with('.') => Ok(truthy(lookup(vars, field))),
        [op @ ("eq" | "ne"), field, lit] if field.starts_with('.') => {
            let lit = lit.trim_matches('"');
            let equal = text(lookup(vars, field)) == lit;
            Ok(if *op == "eq" { equal } else { !equal })
        }
        _ => Err(TemplateError(format!(
            "unsupported condition {{{{ if {expr} }}}}"
        ))),
    }
}

/// Renders a template; `escape_html` for bodies (subjects are plain text).
pub fn render(
    template: &str,
    vars: &Map<String, Value>,
    escape_html: bool,
) -> Result<String, TemplateError> {
    let fail = |m: &str| TemplateError(m.to_string());
    let mut out = String::new();
    // Each open `if`: whether its branch is being written.
    let mut stack: Vec<(bool, bool)> = Vec::new();
    let writing = |stack: &[(bool, bool)]| stack.iter().all(|(on, _)| *on);
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        if writing(&stack) {
            out.push_str(&rest[..start]);
        }
        let after = &rest[start + 2..];
        let end = after
            .find("}}")
            .ok_or_else(|| fail("a {{ is never closed"))?;
        let action = after[..end]
            .trim()
            .trim_start_matches('-')
            .trim_end_matches('-')
            .trim();
        rest = &after[end + 2..];
        if let Some(expr) = action.strip_prefix("if ") {
            let on = writing(&stack) && condition(expr, vars)?;
            stack.push((on, on));
        } else if action == "else" {
            let outer = stack.len() > 1 && writing(&stack[..stack.len() - 1]) || stack.len() == 1;
            let top = stack
                .last_mut()
                .ok_or_else(|| fail("{{ else }} without {{ if }}"))?;
            top.0 = outer && !top.1;
        } else if action == "end" {
            stack
                .pop()
                .ok_or_else(|| fail("{{ end }} without {{ if }}"))?;
        } else if action.starts_with('.') {
            if writing(&stack) {
                let v = text(lookup(vars, action));
                out.push_str(&if escape_html {
                    self::escape_html(&v)
                } else {
                    v
                });
            }
        } else {
            return Err(TemplateError(format!(
                "unsupported template action {{{{ {action} }}}}"
            )));
        }
    }
    if !stack.is_empty() {
        return Err(fail("an {{ if }} is never ended"));
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn renders_fields_data_and_conditions() {
        let vars = json!({"ConfirmationURL": "http://x/verify?token=a&type=signup", "Token": "123456",
                          "Data": {"name": "Ann <3"}, "Email": "ann@example.com"});
        let vars = vars.as_object().unwrap();
        let body = render(Kind::Confirmation.default_body(), vars, true).unwrap();
        assert!(body.contains("href=\"http://x/verify?token=a&amp;type=signup\""));
        assert_eq!(
            render(Kind::Reauthentication.default_subject(), vars, false).unwrap(),
            "123456 is your verification code"
        );
        let t = "Hi {{ .Data.name }}{{ if eq .Email \"ann@example.com\" }}, Ann{{ else }}, stranger{{ end }}{{ if .Missing }}!{{ end }}.";
        assert_eq!(render(t, vars, true).unwrap(), "Hi Ann &lt;3, Ann.");
        assert!(render("{{ .A ", vars, true).is_err());
        assert!(render("{{ if .A }}x", vars, true).is_err());
        assert!(render("{{ range .A }}", vars, true).is_err());
    }
}
