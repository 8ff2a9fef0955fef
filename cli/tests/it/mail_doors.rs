//! `[inbucket] smtp_port` and `pop3_port`: an app sends mail to the catcher over SMTP (with
//! lettre, as apps do), the catcher's API shows it, and a mail client fetches and deletes it
//! over POP3 (USER, PASS, STAT, LIST, UIDL, RETR, DELE, QUIT).

use crate::support;
use lettre::message::MultiPart;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;

/// A port nothing listens on now.
pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A POP3 conversation: each command and its reply (multi-line replies up to their ".").
struct Pop3 {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Pop3 {
    fn connect(port: u16) -> Pop3 {
        let writer = TcpStream::connect(("127.0.0.1", port)).unwrap();
        let mut p = Pop3 {
            reader: BufReader::new(writer.try_clone().unwrap()),
            writer,
        };
        assert!(p.line().starts_with("+OK"));
        p
    }

    fn line(&mut self) -> String {
        let mut l = String::new();
        self.reader.read_line(&mut l).unwrap();
        l.trim_end_matches(['\r', '\n']).to_string()
    }

    fn say(&mut self, cmd: &str) -> String {
        write!(self.writer, "{cmd}\r\n").unwrap();
        self.line()
    }

    /// A multi-line reply's lines (dot-stuffing undone), after its status line.
    fn lines(&mut self, cmd: &str) -> (String, Vec<String>) {
        let status = self.say(cmd);
        assert!(status.starts_with("+OK"), "{cmd}: {status}");
        let mut out = Vec::new();
        loop {
            let l = self.line();
            if l == "." {
                break;
            }
            out.push(l.strip_prefix('.').map(str::to_string).unwrap_or(l));
        }
        (status, out)
    }
}

#[tokio::test]
async fn mail_sent_over_smtp_is_caught_and_served_over_pop3() {
    let (smtp, pop3) = (free_port(), free_port());
    let dir = support::scratch_project(&[(
        "supabase/config.toml",
        &format!("[inbucket]\nsmtp_port = {smtp}\npop3_port = {pop3}\n"),
    )]);
    let gw = support::start_project(&dir, &[]);

    let mail = Message::builder()
        .from("Flower Shop <orders@shop.test>".parse().unwrap())
        .to("Ann <ann@example.com>".parse().unwrap())
        .to("bob@example.com".parse().unwrap())
        .subject("Your bouquet — order 42")
        .multipart(MultiPart::alternative_plain_html(
            "Thank you, Ann.\n.A line starting with a dot".to_string(),
            "<p>Thank you, <b>Ann</b>.</p>".to_string(),
        ))
        .unwrap();
    let transport = AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous("127.0.0.1")
        .port(smtp)
        .build();
    transport.send(mail).await.unwrap();

    // The catcher's API shows it, once per recipient.
    let caught = gw.caught_mail().await;
    let to: Vec<&str> = caught.iter().map(|(to, _)| to.as_str()).collect();
    assert_eq!(to, ["ann@example.com", "bob@example.com"], "{caught:?}");
    assert!(
        caught[0].1.contains("<p>Thank you, <b>Ann</b>.</p>"),
        "{caught:?}"
    );
    assert!(
        caught[0].1.contains(".A line starting with a dot"),
        "{caught:?}"
    );
    let listed: serde_json::Value =
        reqwest::get(format!("{}/api/v1/messages", gw.status["MAILPIT_URL"]))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
    assert_eq!(
        listed["messages"][0]["Subject"], "Your bouquet — order 42",
        "{listed}"
    );

    // Ann's mailbox over POP3.
    let ann = tokio::task::spawn_blocking(move || {
        let mut p = Pop3::connect(pop3);
        assert!(p.say("STAT").starts_with("-ERR"));
        assert!(p.say("USER ann@example.com").starts_with("+OK"));
        assert!(p.say("PASS anything").starts_with("+OK"));
        let stat = p.say("STAT");
        let (_, list) = p.lines("LIST");
        let (_, uidl) = p.lines("UIDL");
        let (retr_status, message) = p.lines("RETR 1");
        assert!(p.say("RETR 2").starts_with("-ERR"));
        assert!(p.say("DELE 1").starts_with("+OK"));
        assert!(p.say("RETR 1").starts_with("-ERR"), "deleted");
        assert_eq!(p.say("STAT"), "+OK 0 0");
        assert!(p.say("QUIT").starts_with("+OK"));
        (stat, list, uidl, retr_status, message)
    })
    .await
    .unwrap();
    let (stat, list, uidl, retr_status, message) = ann;
    let size: usize = message.iter().map(|l| l.len() + 2).sum();
    assert_eq!(stat, format!("+OK 1 {size}"));
    assert_eq!(list, [format!("1 {size}")]);
    assert_eq!(uidl.len(), 1);
    assert_eq!(retr_status, format!("+OK {size} octets"));
    let text = message.join("\r\n");
    assert!(
        text.contains("From: \"Flower Shop\" <orders@shop.test>"),
        "{text}"
    );
    assert!(text.contains("To: <ann@example.com>"), "{text}");
    assert!(text.contains("Subject: =?UTF-8?B?"), "{text}");
    // The parts decode to what was sent.
    let parsed = mail::receive::parse(format!("{text}\r\n").as_bytes());
    assert_eq!(parsed.subject, "Your bouquet — order 42");
    assert_eq!(parsed.text, "Thank you, Ann.\n.A line starting with a dot");
    assert_eq!(parsed.html, "<p>Thank you, <b>Ann</b>.</p>");

    // Deleted at QUIT: only Bob's copy is left.
    let left = gw.caught_mail().await;
    assert_eq!(left.len(), 1);
    assert_eq!(left[0].0, "bob@example.com");
}
