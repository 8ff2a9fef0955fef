//! The catcher's other doors, as Inbucket and Mailpit have them (`[inbucket] smtp_port`,
//! `pop3_port`): an SMTP server that catches whatever an app sends it (one caught mail per
//! recipient, so each lands in its mailbox), and a POP3 server that hands a mailbox's caught
//! mail to a mail client (any password; USER names the mailbox, the address's local part).

use crate::catcher::{Catcher, Mail, Received};
use base64::Engine;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

/// Longest line read (RFC 5321 allows 512 for a command and 1000 for a mail line; apps write
/// longer ones).
const MAX_LINE: usize = 64 << 10;
/// Largest message taken over SMTP (announced in EHLO's SIZE).
const MAX_MESSAGE: usize = 10 << 20;
/// Most recipients of one message.
const MAX_RECIPIENTS: usize = 100;
/// A client silent this long is disconnected.
const IDLE: Duration = Duration::from_secs(300);

/// Reads one line (without its CRLF); None at the end, or past [`MAX_LINE`] or [`IDLE`].
async fn line<R: AsyncBufReadExt + Unpin>(r: &mut R, buf: &mut Vec<u8>) -> Option<String> {
    buf.clear();
    let read = tokio::time::timeout(IDLE, async {
        let mut limited = tokio::io::AsyncReadExt::take(&mut *r, MAX_LINE as u64);
        limited.read_until(b'\n', buf).await
    })
    .await;
    match read {
        Ok(Ok(n)) if n > 0 && buf.ends_with(b"\n") => {
            let s = String::from_utf8_lossy(buf);
            Some(s.trim_end_matches(['\r', '\n']).to_string())
        }
        _ => None,
    }
}

async fn say<W: AsyncWrite + Unpin>(w: &mut W, text: &str) -> std::io::Result<()> {
    w.write_all(text.as_bytes()).await?;
    w.write_all(b"\r\n").await
}

/// Serves SMTP on `listener` until the task is dropped.
pub async fn serve_smtp(catcher: Catcher, listener: TcpListener) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let catcher = catcher.clone();
        tokio::spawn(async move {
            if let Err(e) = smtp_session(&catcher, stream).await {
                tracing::debug!("smtp session: {e}");
            }
        });
    }
}

/// The address inside `FROM:<a@b> SIZE=…` or `TO:<a@b>`.
fn path_of(arg: &str) -> Option<String> {
    let (_, rest) = arg.split_once(':')?;
    let rest = rest.trim();
    let addr = match rest.strip_prefix('<') {
        Some(r) => r.split_once('>')?.0,
        None => rest.split_whitespace().next().unwrap_or(""),
    };
    Some(addr.trim().to_string())
}

async fn smtp_session(catcher: &Catcher, stream: TcpStream) -> std::io::Result<()> {
    let (r, mut w) = stream.into_split();
    let mut r = BufReader::new(r);
    let mut buf = Vec::new();
    say(&mut w, "220 supagate ESMTP mail catcher").await?;
    let mut from: Option<String> = None;
    let mut to: Vec<String> = Vec::new();
    while let Some(cmd) = line(&mut r, &mut buf).await {
        let (verb, arg) = cmd.split_once(' ').unwrap_or((&cmd, ""));
        match verb.to_ascii_uppercase().as_str() {
            "EHLO" => {
                say(
                    &mut w,
                    &format!(
                        "250-supagate\r\n250-SIZE {MAX_MESSAGE}\r\n250-8BITMIME\r\n250-AUTH PLAIN LOGIN\r\n250 SMTPUTF8"
                    ),
                )
                .await?
            }
            "HELO" => say(&mut w, "250 supagate").await?,
            // Any credentials: the catcher is a local stand-in for a provider.
            "AUTH" => {
                let mut parts = arg.split_whitespace();
                match (
                    parts.next().map(str::to_ascii_uppercase).as_deref(),
                    parts.next(),
                ) {
                    (Some("PLAIN"), Some(_)) => {}
                    (Some("PLAIN"), None) => {
                        say(&mut w, "334 ").await?;
                        line(&mut r, &mut buf).await;
                    }
                    (Some("LOGIN"), first) => {
                        if first.is_none() {
                            say(&mut w, "334 VXNlcm5hbWU6").await?;
                            line(&mut r, &mut buf).await;
                        }
                        say(&mut w, "334 UGFzc3dvcmQ6").await?;
                        line(&mut r, &mut buf).await;
                    }
                    _ => {
                        say(&mut w, "504 5.5.4 unrecognized authentication type").await?;
                        continue;
                    }
                }
                say(&mut w, "235 2.7.0 authentication successful").await?
            }
            "MAIL" => match path_of(arg) {
                Some(a) => {
                    from = Some(a);
                    to.clear();
                    say(&mut w, "250 2.1.0 OK").await?
                }
                None => say(&mut w, "501 5.5.4 syntax: MAIL FROM:<address>").await?,
            },
            "RCPT" => match (path_of(arg), &from) {
                (_, None) => say(&mut w, "503 5.5.1 MAIL first").await?,
                (Some(a), _) if a.contains('@') && to.len() < MAX_RECIPIENTS => {
                    to.push(a);
                    say(&mut w, "250 2.1.5 OK").await?
                }
                (Some(_), _) if to.len() >= MAX_RECIPIENTS => {
                    say(&mut w, "452 4.5.3 too many recipients").await?
                }
                _ => say(&mut w, "501 5.1.3 syntax: RCPT TO:<address>").await?,
            },
            "DATA" => {
                if to.is_empty() {
                    say(&mut w, "503 5.5.1 RCPT first").await?;
                    continue;
                }
                say(&mut w, "354 end data with <CR><LF>.<CR><LF>").await?;
                let mut message = Vec::new();
                let mut too_large = false;
                loop {
                    let Some(l) = line(&mut r, &mut buf).await else {
                        return Ok(());
                    };
                    if l == "." {
                        break;
                    }
                    // Dot-stuffing undone.
                    let l = l.strip_prefix('.').unwrap_or(&l);
                    if message.len() + l.len() + 2 > MAX_MESSAGE {
                        too_large = true;
                    } else {
                        message.extend_from_slice(l.as_bytes());
                        message.extend_from_slice(b"\r\n");
                    }
                }
                if too_large {
                    say(&mut w, "552 5.3.4 message too large").await?;
                } else {
                    let parsed = parse(&message);
                    let mut stored = Ok(());
                    for rcpt in &to {
                        stored = stored.and(catcher.store(&parsed, rcpt).await);
                    }
                    match stored {
                        Ok(()) => {
                            tracing::info!(to = %to.join(", "), "mail caught over SMTP");
                            say(&mut w, "250 2.0.0 OK: queued").await?
                        }
                        Err(e) => {
                            tracing::warn!("cannot keep a mail caught over SMTP: {e}");
                            say(&mut w, "451 4.3.0 cannot store the message").await?
                        }
                    }
                }
                from = None;
                to.clear();
            }
            "RSET" => {
                from = None;
                to.clear();
                say(&mut w, "250 2.0.0 OK").await?
            }
            "NOOP" => say(&mut w, "250 2.0.0 OK").await?,
            "VRFY" => say(&mut w, "252 2.1.5 cannot verify, will accept").await?,
            "QUIT" => {
                say(&mut w, "221 2.0.0 bye").await?;
                return Ok(());
            }
            _ => say(&mut w, "502 5.5.2 command not recognized").await?,
        }
    }
    Ok(())
}

/// A header's value (unfolded), by name.
fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// Headers and body of a message or a MIME part.
fn split(raw: &[u8]) -> (Vec<(String, String)>, &[u8]) {
    let (head, body) = match raw.windows(4).position(|w| w == b"\r\n\r\n") {
        Some(i) => (&raw[..i], &raw[i + 4..]),
        None => match raw.windows(2).position(|w| w == b"\n\n") {
            Some(i) => (&raw[..i], &raw[i + 2..]),
            None => (raw, &[][..]),
        },
    };
    let mut headers: Vec<(String, String)> = Vec::new();
    for l in String::from_utf8_lossy(head).lines() {
        if l.starts_with([' ', '\t']) {
            if let Some(last) = headers.last_mut() {
                last.1.push(' ');
                last.1.push_str(l.trim());
            }
        } else if let Some((n, v)) = l.split_once(':') {
            headers.push((n.trim().to_string(), v.trim().to_string()));
        }
    }
    (headers, body)
}

/// A parameter of a header value (`boundary`, `charset`).
fn param(value: &str, name: &str) -> Option<String> {
    value.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case(name)
            .then(|| v.trim().trim_matches('"').to_string())
    })
}

fn quoted_printable(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len());
    let mut i = 0;
    while i < body.len() {
        match body[i] {
            b'=' if body.get(i + 1..i + 3) == Some(b"\r\n") => i += 3,
            b'=' if body.get(i + 1) == Some(&b'\n') => i += 2,
            b'=' => match body
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                Some(b) => {
                    out.push(b);
                    i += 3;
                }
                None => {
                    out.push(b'=');
                    i += 1;
                }
            },
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}

/// A body as its Content-Transfer-Encoding says.
fn decoded(headers: &[(String, String)], body: &[u8]) -> String {
    let encoding = header(headers, "content-transfer-encoding")
        .unwrap_or("")
        .to_ascii_lowercase();
    let bytes = match encoding.as_str() {
        "base64" => {
            let clean: Vec<u8> = body
                .iter()
                .copied()
                .filter(|b| !b.is_ascii_whitespace())
                .collect();
            base64::engine::general_purpose::STANDARD
                .decode(clean)
                .unwrap_or_default()
        }
        "quoted-printable" => quoted_printable(body),
        _ => body.to_vec(),
    };
    // Lines as the catcher keeps every body's: ending in LF.
    String::from_utf8_lossy(&bytes)
        .replace("\r\n", "\n")
        .trim_end()
        .to_string()
}

/// RFC 2047 encoded words (`=?UTF-8?B?…?=`, `=?UTF-8?Q?…?=`) in a header value.
fn words(value: &str) -> String {
    let mut out = String::new();
    let mut rest = value;
    while let Some(start) = rest.find("=?") {
        let decoded_word = rest[start + 2..].splitn(3, '?').collect::<Vec<_>>();
        let (Some(enc), Some(tail)) = (decoded_word.get(1), decoded_word.get(2)) else {
            break;
        };
        let Some(end) = tail.find("?=") else { break };
        let text = &tail[..end];
        let bytes = match enc.to_ascii_uppercase().as_str() {
            "B" => base64::engine::general_purpose::STANDARD.decode(text).ok(),
            "Q" => Some(quoted_printable(text.replace('_', " ").as_bytes())),
            _ => None,
        };
        let Some(bytes) = bytes else { break };
        // Whitespace between two encoded words is not part of the text.
        let before = &rest[..start];
        if !(out.ends_with('\u{0}') && before.trim().is_empty()) {
            out.push_str(before);
        }
        out.push_str(&String::from_utf8_lossy(&bytes));
        out.push('\u{0}');
        let consumed = start + 2 + decoded_word[0].len() + enc.len() + 2 + end + 2;
        rest = &rest[consumed..];
    }
    out.push_str(rest);
    out.replace('\u{0}', "")
}

/// `Name <a@b>` or `a@b`: (name, address).
fn mailbox(value: &str) -> (String, String) {
    let value = words(value);
    match value.rsplit_once('<') {
        Some((name, addr)) => (
            name.trim().trim_matches('"').to_string(),
            addr.trim_end_matches('>').trim().to_string(),
        ),
        None => (String::new(), value.trim().to_string()),
    }
}

/// The text and HTML bodies of a part (multiparts walked, at most a few levels deep).
fn bodies(headers: &[(String, String)], body: &[u8], depth: usize, out: &mut (String, String)) {
    let ctype = header(headers, "content-type").unwrap_or("text/plain");
    let lower = ctype.to_ascii_lowercase();
    if lower.starts_with("multipart/") && depth < 5 {
        let Some(boundary) = param(ctype, "boundary") else {
            return;
        };
        let marker = format!("--{boundary}");
        let text = String::from_utf8_lossy(body);
        for part in text.split(&marker).skip(1) {
            if part.starts_with("--") {
                break;
            }
            let part = part.trim_start_matches(['\r', '\n']);
            let (h, b) = split(part.as_bytes());
            bodies(&h, b, depth + 1, out);
        }
    } else if lower.starts_with("text/html") && out.1.is_empty() {
        out.1 = decoded(headers, body);
    } else if lower.starts_with("text/") && out.0.is_empty() {
        out.0 = decoded(headers, body);
    }
}

/// A message as the catcher keeps it.
pub fn parse(raw: &[u8]) -> Received {
    let (headers, body) = split(raw);
    let mut texts = (String::new(), String::new());
    bodies(&headers, body, 0, &mut texts);
    let (text, html) = texts;
    let (sender_name, sender) = mailbox(header(&headers, "from").unwrap_or(""));
    Received {
        message_id: header(&headers, "message-id")
            .map(|m| m.trim_matches(['<', '>', ' ']).to_string())
            .filter(|m| !m.is_empty() && m.len() <= 255),
        sender_name,
        sender,
        subject: words(header(&headers, "subject").unwrap_or("")),
        text: if text.is_empty() {
            crate::text_of(&html)
        } else {
            text
        },
        html,
        reply_to: header(&headers, "reply-to").map(|r| mailbox(r).1),
    }
}

/// Serves POP3 on `listener` until the task is dropped.
pub async fn serve_pop3(catcher: Catcher, listener: TcpListener) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let catcher = catcher.clone();
        tokio::spawn(async move {
            if let Err(e) = pop3_session(&catcher, stream).await {
                tracing::debug!("pop3 session: {e}");
            }
        });
    }
}

/// A caught mail as an RFC 5322 message (CRLF lines; bodies in base64, so no line needs
/// dot-stuffing).
pub fn message_of(m: &Mail) -> String {
    let b64 = |s: &str| {
        let e = base64::engine::general_purpose::STANDARD.encode(s.as_bytes());
        e.as_bytes()
            .chunks(76)
            .map(|c| String::from_utf8_lossy(c).into_owned())
            .collect::<Vec<_>>()
            .join("\r\n")
    };
    let word = |s: &str| {
        if s.is_ascii() && !s.contains(['\r', '\n']) {
            s.to_string()
        } else {
            format!(
                "=?UTF-8?B?{}?=",
                base64::engine::general_purpose::STANDARD.encode(s.as_bytes())
            )
        }
    };
    let boundary = format!("supagate-{}", m.id.simple());
    let mut out = String::new();
    out.push_str(&format!("Message-ID: <{}>\r\n", m.message_id));
    out.push_str(&format!("Date: {}\r\n", m.created.to_rfc2822()));
    out.push_str(&format!(
        "From: \"{}\" <{}>\r\n",
        word(&m.sender_name).replace('"', ""),
        m.sender
    ));
    out.push_str(&format!("To: <{}>\r\n", m.to));
    if let Some(r) = &m.reply_to {
        out.push_str(&format!("Reply-To: <{r}>\r\n"));
    }
    out.push_str(&format!("Subject: {}\r\n", word(&m.subject)));
    out.push_str("MIME-Version: 1.0\r\n");
    out.push_str(&format!(
        "Content-Type: multipart/alternative; boundary=\"{boundary}\"\r\n\r\n"
    ));
    for (kind, body) in [("plain", &m.text), ("html", &m.html)] {
        if body.is_empty() && kind == "html" {
            continue;
        }
        out.push_str(&format!(
            "--{boundary}\r\nContent-Type: text/{kind}; charset=utf-8\r\n\
             Content-Transfer-Encoding: base64\r\n\r\n{}\r\n",
            b64(body)
        ));
    }
    out.push_str(&format!("--{boundary}--\r\n"));
    out
}

/// A POP3 session's mailbox: each mail with its message text, and whether DELE marked it.
type Maildrop = (Vec<(Mail, String)>, Vec<bool>);

async fn pop3_session(catcher: &Catcher, stream: TcpStream) -> std::io::Result<()> {
    let (r, mut w) = stream.into_split();
    let mut r = BufReader::new(r);
    let mut buf = Vec::new();
    say(&mut w, "+OK supagate POP3 mail catcher ready").await?;
    let mut user: Option<String> = None;
    // After PASS: the mailbox's messages and which are marked deleted.
    let mut drop: Option<Maildrop> = None;
    while let Some(cmd) = line(&mut r, &mut buf).await {
        let mut parts = cmd.split_whitespace();
        let verb = parts.next().unwrap_or("").to_ascii_uppercase();
        let args: Vec<&str> = parts.collect();
        let number = |i: usize, drop: &Maildrop| {
            args.get(i)
                .and_then(|a| a.parse::<usize>().ok())
                .filter(|n| *n >= 1 && *n <= drop.0.len() && !drop.1[n - 1])
        };
        match (verb.as_str(), &mut drop) {
            ("CAPA", _) => say(&mut w, "+OK\r\nUSER\r\nUIDL\r\nTOP\r\n.").await?,
            ("QUIT", Some((msgs, deleted))) => {
                let ids: Vec<uuid::Uuid> = msgs
                    .iter()
                    .zip(deleted.iter())
                    .filter(|(_, d)| **d)
                    .map(|((m, _), _)| m.id)
                    .collect();
                if !ids.is_empty() && catcher.delete(&ids, None).await.is_err() {
                    say(&mut w, "-ERR some deleted messages not removed").await?;
                    return Ok(());
                }
                say(&mut w, "+OK bye").await?;
                return Ok(());
            }
            ("QUIT", None) => {
                say(&mut w, "+OK bye").await?;
                return Ok(());
            }
            ("USER", None) => match args.first() {
                Some(u) => {
                    // The mailbox: the address's local part, as Inbucket names mailboxes.
                    user = Some(u.split('@').next().unwrap_or(u).to_string());
                    say(&mut w, "+OK send PASS").await?
                }
                None => say(&mut w, "-ERR USER needs a mailbox name").await?,
            },
            ("PASS", None) => match &user {
                Some(u) => match catcher.mailbox(u).await {
                    Ok(mails) => {
                        let msgs: Vec<(Mail, String)> = mails
                            .into_iter()
                            .map(|m| {
                                let text = message_of(&m);
                                (m, text)
                            })
                            .collect();
                        let n = msgs.len();
                        drop = Some((msgs, vec![false; n]));
                        say(&mut w, &format!("+OK {n} messages")).await?
                    }
                    Err(e) => say(&mut w, &format!("-ERR cannot open the mailbox: {e}")).await?,
                },
                None => say(&mut w, "-ERR USER first").await?,
            },
            ("STAT", Some(d)) => {
                let (n, size) =
                    d.0.iter()
                        .zip(&d.1)
                        .filter(|(_, del)| !**del)
                        .fold((0, 0), |(n, s), ((_, t), _)| (n + 1, s + t.len()));
                say(&mut w, &format!("+OK {n} {size}")).await?
            }
            ("LIST" | "UIDL", Some(d)) => {
                let item = |i: usize, (m, t): &(Mail, String)| {
                    if verb == "LIST" {
                        format!("{} {}", i + 1, t.len())
                    } else {
                        format!("{} {}", i + 1, m.id.simple())
                    }
                };
                if args.is_empty() {
                    let mut out = String::from("+OK\r\n");
                    for (i, msg) in d.0.iter().enumerate().filter(|(i, _)| !d.1[*i]) {
                        out.push_str(&item(i, msg));
                        out.push_str("\r\n");
                    }
                    out.push('.');
                    say(&mut w, &out).await?
                } else {
                    match number(0, d) {
                        Some(n) => {
                            say(&mut w, &format!("+OK {}", item(n - 1, &d.0[n - 1]))).await?
                        }
                        None => say(&mut w, "-ERR no such message").await?,
                    }
                }
            }
            ("RETR" | "TOP", Some(d)) => match number(0, d) {
                Some(n) => {
                    let text = &d.0[n - 1].1;
                    let text = if verb == "TOP" {
                        let lines: usize = args.get(1).and_then(|l| l.parse().ok()).unwrap_or(0);
                        let (head, body) = text.split_once("\r\n\r\n").unwrap_or((text, ""));
                        let body: Vec<&str> = body.split("\r\n").take(lines).collect();
                        format!("{head}\r\n\r\n{}", body.join("\r\n"))
                    } else {
                        text.clone()
                    };
                    let mut out = format!("+OK {} octets\r\n", text.len());
                    for l in text.trim_end_matches("\r\n").split("\r\n") {
                        if l.starts_with('.') {
                            out.push('.');
                        }
                        out.push_str(l);
                        out.push_str("\r\n");
                    }
                    out.push('.');
                    say(&mut w, &out).await?
                }
                None => say(&mut w, "-ERR no such message").await?,
            },
            ("DELE", Some(d)) => match number(0, d) {
                Some(n) => {
                    d.1[n - 1] = true;
                    say(&mut w, &format!("+OK message {n} deleted")).await?
                }
                None => say(&mut w, "-ERR no such message").await?,
            },
            ("RSET", Some(d)) => {
                d.1.iter_mut().for_each(|x| *x = false);
                say(&mut w, "+OK").await?
            }
            ("NOOP", Some(_)) => say(&mut w, "+OK").await?,
            (_, None) => say(&mut w, "-ERR USER and PASS first").await?,
            _ => say(&mut w, "-ERR command not recognized").await?,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_read_as_mail_clients_write_them() {
        let raw = b"From: =?UTF-8?B?w4Nubg==?= <ann@shop.test>\r\n\
            To: bob@example.com\r\n\
            Subject: =?UTF-8?Q?Caf=C3=A9?= order\r\n\
            Message-ID: <abc@shop.test>\r\n\
            Content-Type: multipart/alternative; boundary=\"b1\"\r\n\r\n\
            --b1\r\nContent-Type: text/plain; charset=utf-8\r\n\
            Content-Transfer-Encoding: quoted-printable\r\n\r\nHello =\r\nthere =E2=9C=93\r\n\
            --b1\r\nContent-Type: text/html\r\nContent-Transfer-Encoding: base64\r\n\r\n\
            PHA+SGk8L3A+\r\n--b1--\r\n";
        let r = parse(raw);
        assert_eq!(
            (r.sender_name.as_str(), r.sender.as_str()),
            ("Ãnn", "ann@shop.test")
        );
        assert_eq!(r.subject, "Café order");
        assert_eq!(r.text, "Hello there ✓");
        assert_eq!(r.html, "<p>Hi</p>");
        assert_eq!(r.message_id.as_deref(), Some("abc@shop.test"));
        // A plain one: text only, dot-stuffing already undone by the session.
        let r = parse(b"From: a@b.c\r\nSubject: hi\r\n\r\nline\r\n");
        assert_eq!((r.text.as_str(), r.html.as_str()), ("line", ""));
        assert_eq!(path_of("FROM:<a@b.c> SIZE=10"), Some("a@b.c".into()));
        assert_eq!(path_of("TO: x@y.z"), Some("x@y.z".into()));
    }
}
