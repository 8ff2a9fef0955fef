//! E-mailed links and codes: `/otp` and `/magiclink` (sign in, or sign up, by mail),
//! `/recover`, `/resend`, `/reauthenticate`, and `/verify` — GET for links (then a redirect
//! with the session in the fragment, or a PKCE code), POST for codes and token hashes.

use super::*;
use auth::email::{self as mails, Flow};
use auth::users::{self, UserRow};
use auth::verify::{self, Type, Verified};

/// The e-mail of a request, normalised, with the provider switched on.
fn email_of(
    req: &HttpRequest,
    state: &AppState,
    body: &Value,
    missing: &str,
) -> Result<String, GatewayError> {
    if !state.auth.email_enabled {
        return Err(fail(
            req,
            api(422, "email_provider_disabled", "Email logins are disabled"),
        ));
    }
    let raw = body["email"].as_str().unwrap_or("");
    if raw.trim().is_empty() {
        return Err(fail(req, api(422, "validation_failed", missing)));
    }
    users::normalize_email(raw).map_err(|e| fail(req, auth::error::validation(e.to_string())))
}

/// `(method, challenge)` of a PKCE request, checked.
fn challenge(req: &HttpRequest, body: &Value) -> Result<Option<(String, String)>, GatewayError> {
    let method = body["code_challenge_method"].as_str();
    let challenge = body["code_challenge"].as_str();
    auth::pkce::validate(method, challenge).map_err(|e| fail(req, e))?;
    Ok(method
        .zip(challenge)
        .filter(|(_, c)| !c.is_empty())
        .map(|(m, c)| (m.to_string(), c.to_string())))
}

/// Sign-in (or sign-up) by mail, as GoTrue's magic link does it: a confirmed user gets a
/// sign-in link; a new or unconfirmed one is signed up and gets the confirmation (or, without
/// confirmations, the sign-in link).
async fn mail_sign_in(
    req: &HttpRequest,
    state: &AppState,
    body: &Value,
    create_user: bool,
) -> Reply {
    let cfg = config(state, req);
    let email = email_of(req, state, body, "Password recovery requires an email")?;
    let pkce = challenge(req, body)?;
    let redirect = redirect_to(req, &cfg, Some(body));
    let data = match body.get("data") {
        Some(d) if d.is_object() => d.clone(),
        _ => json!({}),
    };
    let password = hash_password(auth::otp::generate(33)).await;
    let flow = Flow::of(pkce.as_ref().map(|p| p.1.as_str()));
    in_tx_mail(req, state, never, async |c| {
        let existing = users::row_by_email(c, &email).await?;
        if existing.is_none() && (!create_user || cfg.disable_signup) {
            return Err(api(422, "otp_disabled", "Signups not allowed for otp"));
        }
        let user: UserRow = match existing {
            Some(u) if u.confirmed => u,
            Some(u) if !cfg.autoconfirm => {
                if let Some((m, ch)) = &pkce {
                    auth::pkce::create(c, "email", "email/signup", m, ch, Some(u.id)).await?;
                }
                let mail = mails::confirmation(c, &cfg, &u, flow, &redirect).await?;
                return Ok((json!({}), vec![mail]));
            }
            Some(u) => {
                users::confirm(c, u.id).await?;
                users::row(c, u.id).await?
            }
            None => {
                let id = auth::signup::create(c, &cfg, &email, &password, &data, cfg.autoconfirm)
                    .await?;
                let u = users::row(c, id).await?;
                if !cfg.autoconfirm {
                    if let Some((m, ch)) = &pkce {
                        auth::pkce::create(c, "email", "email/signup", m, ch, Some(id)).await?;
                    }
                    let mail = mails::confirmation(c, &cfg, &u, flow, &redirect).await?;
                    return Ok((json!({}), vec![mail]));
                }
                u
            }
        };
        if let Some((m, ch)) = &pkce {
            auth::pkce::create(c, "magiclink", "magiclink", m, ch, Some(user.id)).await?;
        }
        let mail = mails::magic_link(c, &cfg, &user, flow, &redirect).await?;
        Ok((json!({}), vec![mail]))
    })
    .await
    .map(|v| ok_json(req, v))
}

pub async fn otp(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let body = json_body(&req, payload, &state).await?;
    let email = body["email"].as_str().unwrap_or("");
    let phone = body["phone"].as_str().unwrap_or("");
    if !email.is_empty() && !phone.is_empty() {
        return Err(fail(
            &req,
            auth::error::validation("Only an email address or phone number should be provided"),
        ));
    }
    if !phone.is_empty() {
        return Err(fail(
            &req,
            api(400, "phone_provider_disabled", "Unsupported phone provider"),
        ));
    }
    if email.is_empty() {
        return Err(fail(
            &req,
            auth::error::validation("One of email or phone must be set"),
        ));
    }
    let n = state.config.auth.rate_limit.sign_in_sign_ups;
    limit(&req, &state, "signin", n, WINDOW_SECS).await?;
    let create = body["create_user"].as_bool().unwrap_or(true);
    mail_sign_in(&req, &state, &body, create).await
}

pub async fn magiclink(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let body = json_body(&req, payload, &state).await?;
    let n = state.config.auth.rate_limit.sign_in_sign_ups;
    limit(&req, &state, "signin", n, WINDOW_SECS).await?;
    mail_sign_in(&req, &state, &body, true).await
}

pub async fn recover(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let body = json_body(&req, payload, &state).await?;
    let n = state.config.auth.rate_limit.sign_in_sign_ups;
    limit(&req, &state, "signin", n, WINDOW_SECS).await?;
    let cfg = config(&state, &req);
    let email = email_of(&req, &state, &body, "Password recovery requires an email")?;
    let pkce = challenge(&req, &body)?;
    let redirect = redirect_to(&req, &cfg, Some(&body));
    let flow = Flow::of(pkce.as_ref().map(|p| p.1.as_str()));
    in_tx_mail(&req, &state, never, async |c| {
        // An unknown address is not revealed.
        let Some(user) = users::row_by_email(c, &email).await? else {
            return Ok((json!({}), Vec::new()));
        };
        if let Some((m, ch)) = &pkce {
            auth::pkce::create(c, "recovery", "recovery", m, ch, Some(user.id)).await?;
        }
        let mail = mails::recovery(c, &cfg, &user, flow, &redirect).await?;
        Ok((json!({}), vec![mail]))
    })
    .await
    .map(|v| ok_json(&req, v))
}

pub async fn resend(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let body = json_body(&req, payload, &state).await?;
    let n = state.config.auth.rate_limit.sign_in_sign_ups;
    limit(&req, &state, "signin", n, WINDOW_SECS).await?;
    let cfg = config(&state, &req);
    let kind = body["type"].as_str().unwrap_or("");
    match kind {
        "signup" | "email_change" => {}
        "sms" | "phone_change" => {
            return Err(fail(
                &req,
                api(400, "phone_provider_disabled", "Phone logins are disabled"),
            ));
        }
        _ => {
            return Err(fail(
                &req,
                auth::error::validation(
                    "Missing one of these types: signup, email_change, sms, phone_change",
                ),
            ));
        }
    }
    if body["email"].as_str().unwrap_or("").is_empty() {
        return Err(fail(
            &req,
            auth::error::validation(if kind == "signup" {
                "Type provided requires an email address"
            } else {
                "Missing email address or phone number"
            }),
        ));
    }
    let email = email_of(&req, &state, &body, "Missing email address or phone number")?;
    let pkce = challenge(&req, &body)?;
    let redirect = redirect_to(&req, &cfg, Some(&body));
    let flow = Flow::of(pkce.as_ref().map(|p| p.1.as_str()));
    let kind = kind.to_string();
    in_tx_mail(&req, &state, never, async |c| {
        let Some(user) = users::row_by_email(c, &email).await? else {
            return Ok((json!({}), Vec::new()));
        };
        let mails = if kind == "signup" {
            if user.confirmed {
                return Ok((json!({}), Vec::new()));
            }
            if let Some((m, ch)) = &pkce {
                auth::pkce::create(c, "email", "email/signup", m, ch, Some(user.id)).await?;
            }
            vec![mails::confirmation(c, &cfg, &user, flow, &redirect).await?]
        } else {
            if user.email_change.is_empty() {
                return Ok((json!({}), Vec::new()));
            }
            if let Some((m, ch)) = &pkce {
                auth::pkce::create(c, "email_change", "email_change", m, ch, Some(user.id)).await?;
            }
            let new = user.email_change.clone();
            mails::email_change(c, &cfg, &user, &new, flow, &redirect).await?
        };
        Ok((json!({}), mails))
    })
    .await
    .map(|v| ok_json(&req, v))
}

pub async fn reauthenticate(req: HttpRequest, state: Data) -> Reply {
    let who = caller(&req, &state)?;
    let cfg = config(&state, &req);
    in_tx_mail(&req, &state, never, async |c| {
        auth::sessions::check(c, who.id, who.session).await?;
        let user = users::row(c, who.id).await?;
        if user.email.is_empty() {
            return Err(auth::error::validation(
                "Reauthentication requires the user to have an email or a phone number",
            ));
        }
        if !user.confirmed {
            return Err(api(
                422,
                "email_not_confirmed",
                "Please verify your email first.",
            ));
        }
        let mail = mails::reauthentication(c, &cfg, &user).await?;
        Ok((json!({}), vec![mail]))
    })
    .await
    .map(|v| ok_json(&req, v))
}

/// Completes a verification: a session (or a PKCE auth code), or the first half of an e-mail
/// change.
enum Done {
    Session(Value, Type),
    Code(String),
    OneOfTwo,
}

async fn finish(
    c: &tokio_postgres::Client,
    cfg: &AuthConfig,
    found: (UserRow, Type, String),
    ua: Option<&str>,
    ip: Option<&str>,
    link: bool,
) -> Result<Done, AuthError> {
    let (user, kind, token) = found;
    match verify::complete(c, cfg, &user, kind, &token).await? {
        Verified::OneOfTwo => Ok(Done::OneOfTwo),
        Verified::Session {
            user_id,
            kind,
            pkce,
        } if pkce && link => Ok(Done::Code(
            auth::pkce::issue_code(c, user_id, kind.flow_method()).await?,
        )),
        Verified::Session { user_id, kind, .. } => Ok(Done::Session(
            auth::sessions::start(c, cfg, user_id, "otp", ua, ip).await?,
            kind,
        )),
    }
}

const ONE_OF_TWO: &str =
    "Confirmation link accepted. Please proceed to confirm link sent to the other email";

fn encode(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

fn see_other(to: &str) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header(("Location", to))
        .insert_header(("Cache-Control", "no-store"))
        .finish()
}

/// `GET /verify?token=…&type=…&redirect_to=…`: the link in a mail.
pub async fn verify_get(req: HttpRequest, state: Data) -> Reply {
    let n = state.config.auth.rate_limit.token_verifications;
    limit(&req, &state, "verify", n, WINDOW_SECS).await?;
    let cfg = config(&state, &req);
    let redirect = redirect_to(&req, &cfg, None);
    let token = query(&req, "token").unwrap_or_default();
    let kind = query(&req, "type").unwrap_or_default();
    if kind.is_empty() {
        return Err(fail(
            &req,
            auth::error::validation("Verify requires a verification type"),
        ));
    }
    if token.is_empty() {
        return Err(fail(
            &req,
            auth::error::validation("Verify requires a token or a token hash"),
        ));
    }
    let pkce = token.starts_with("pkce_");
    let kind = Type::parse(&kind).map_err(|e| fail(&req, e))?;
    let ua = user_agent(&req);
    let addr = req.peer_addr().map(|a| a.ip().to_string());
    let done = in_tx(&req, &state, never, async |c| {
        let found = verify::by_link(c, &cfg, kind, &token).await?;
        finish(c, &cfg, found, ua.as_deref(), addr.as_deref(), true).await
    })
    .await;
    let (base, fragment) = redirect.split_once('#').unwrap_or((&redirect, ""));
    let _ = fragment;
    let join = |q: &str| {
        if base.contains('?') {
            format!("{base}&{q}")
        } else {
            format!("{base}?{q}")
        }
    };
    Ok(match done {
        Ok(Done::Session(s, kind)) => see_other(&format!(
            "{base}#access_token={}&expires_at={}&expires_in={}&refresh_token={}&sb=&token_type=bearer&type={}",
            encode(s["access_token"].as_str().unwrap_or("")),
            s["expires_at"],
            s["expires_in"],
            encode(s["refresh_token"].as_str().unwrap_or("")),
            kind.as_str()
        )),
        Ok(Done::Code(code)) => see_other(&join(&format!("code={}", encode(&code)))),
        Ok(Done::OneOfTwo) => {
            let to = if pkce {
                join(&format!("message={}", encode(ONE_OF_TWO)))
            } else {
                base.to_string()
            };
            see_other(&format!("{to}#message={}&sb=", encode(ONE_OF_TWO)))
        }
        // Errors go back to the app too, in the fragment (and the query for PKCE).
        Err(e) => {
            let (status, code, message) = match &e {
                GatewayError::Auth {
                    status,
                    code,
                    message,
                    ..
                } => (*status, code.clone(), message.clone()),
                other => {
                    return Err(GatewayError::Auth {
                        status: 500,
                        code: "unexpected_failure".into(),
                        message: other.to_string(),
                        legacy: legacy(&req),
                        reasons: Vec::new(),
                    });
                }
            };
            let error = match status {
                400 => "invalid_request",
                401 => "unauthorized_client",
                403 => "access_denied",
                500 => "server_error",
                503 => "temporarily_unavailable",
                _ => "",
            };
            let mut q = String::new();
            if !error.is_empty() {
                q.push_str(&format!("error={error}&"));
            }
            q.push_str(&format!(
                "error_code={}&error_description={}",
                encode(&code),
                encode(&message)
            ));
            let to = if pkce { join(&q) } else { base.to_string() };
            see_other(&format!("{to}#{q}&sb="))
        }
    })
}

/// `POST /verify`: `{type, token, email}` (an e-mailed code) or `{type, token_hash}`.
pub async fn verify_post(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let n = state.config.auth.rate_limit.token_verifications;
    limit(&req, &state, "verify", n, WINDOW_SECS).await?;
    let body = json_body(&req, payload, &state).await?;
    let cfg = config(&state, &req);
    let s = |k: &str| body[k].as_str().unwrap_or("").to_string();
    let (kind, token, hash, email, phone) = (
        s("type"),
        s("token"),
        s("token_hash"),
        s("email"),
        s("phone"),
    );
    if kind.is_empty() {
        return Err(fail(
            &req,
            auth::error::validation("Verify requires a verification type"),
        ));
    }
    if token.is_empty() == hash.is_empty() {
        return Err(fail(
            &req,
            auth::error::validation("Verify requires either a token or a token hash"),
        ));
    }
    if matches!(kind.as_str(), "sms" | "phone_change") || (!phone.is_empty() && email.is_empty()) {
        // No user has a phone number here: a well-formed one matches nobody.
        let digits = phone.trim_start_matches('+').replace(' ', "");
        let e164 = digits.len() > 1
            && digits.len() <= 15
            && !digits.starts_with('0')
            && digits.bytes().all(|b| b.is_ascii_digit());
        return Err(fail(
            &req,
            if e164 {
                auth::error::otp_expired()
            } else {
                auth::error::validation("Invalid phone number format (E.164 required)")
            },
        ));
    }
    let kind = Type::parse(&kind).map_err(|e| fail(&req, e))?;
    if !hash.is_empty() && (!email.is_empty() || !phone.is_empty() || !s("redirect_to").is_empty())
    {
        return Err(fail(
            &req,
            auth::error::validation("Only the token_hash and type should be provided"),
        ));
    }
    let email = if token.is_empty() {
        None
    } else if email.is_empty() || !phone.is_empty() {
        return Err(fail(
            &req,
            auth::error::validation(
                "Only an email address or phone number should be provided on verify",
            ),
        ));
    } else {
        Some(
            users::normalize_email(&email)
                .map_err(|_| fail(&req, api(422, "validation_failed", "Invalid email format")))?,
        )
    };
    let ua = user_agent(&req);
    let addr = req.peer_addr().map(|a| a.ip().to_string());
    let done = in_tx(&req, &state, never, async |c| {
        let found = match &email {
            Some(e) => verify::by_code(c, &cfg, kind, e, &token).await?,
            None => verify::by_link(c, &cfg, kind, &hash).await?,
        };
        finish(c, &cfg, found, ua.as_deref(), addr.as_deref(), false).await
    })
    .await?;
    Ok(match done {
        Done::Session(s, _) => ok_json(&req, s),
        Done::OneOfTwo => ok_json(&req, json!({"msg": ONE_OF_TWO, "code": "200"})),
        Done::Code(_) => unreachable!("codes are issued for links only"),
    })
}
