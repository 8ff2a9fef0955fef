//! The byte stream under a pipelined connection: TCP (with TLS as `sslmode` asks, negotiated
//! with PostgreSQL's SSLRequest) or a unix socket, and where to send a cancel request.

use super::error::PgError;
use crate::tls::{SslMode, Tls};
use bytes::BytesMut;
use postgres_protocol::message::frontend;
use std::io;
use std::path::PathBuf;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpStream, UnixStream};
use tokio_rustls::client::TlsStream;

pub(super) enum Stream {
    Tcp(TcpStream),
    Unix(UnixStream),
    Tls(Box<TlsStream<TcpStream>>),
}

/// Where a connection goes.
#[derive(Clone, Debug)]
pub(super) enum Addr {
    Tcp(String, u16),
    Unix(PathBuf),
}

impl Stream {
    pub(super) async fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Stream::Tcp(s) => s.write_all(buf).await,
            Stream::Unix(s) => s.write_all(buf).await,
            Stream::Tls(s) => {
                s.write_all(buf).await?;
                s.flush().await
            }
        }
    }

    pub(super) async fn read_buf(&mut self, buf: &mut BytesMut) -> io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.read_buf(buf).await,
            Stream::Unix(s) => s.read_buf(buf).await,
            Stream::Tls(s) => s.read_buf(buf).await,
        }
    }

    /// Whether the server has closed the connection or said something unasked (a FATAL before
    /// closing it): either way the connection is no longer usable. Under TLS only a closed
    /// socket counts (unasked bytes may be a session ticket).
    pub(super) fn is_closed(&self) -> bool {
        let mut probe = [0u8; 1];
        let r = match self {
            Stream::Tcp(s) => s.try_read(&mut probe),
            Stream::Unix(s) => s.try_read(&mut probe),
            Stream::Tls(s) => {
                let mut buf = ReadBuf::new(&mut probe);
                let mut cx = Context::from_waker(std::task::Waker::noop());
                return match s.get_ref().0.poll_peek(&mut cx, &mut buf) {
                    Poll::Pending => false,
                    Poll::Ready(Ok(n)) => n == 0,
                    Poll::Ready(Err(_)) => true,
                };
            }
        };
        !matches!(r, Err(e) if e.kind() == io::ErrorKind::WouldBlock)
    }
}

async fn open_plain(addr: &Addr) -> io::Result<Stream> {
    Ok(match addr {
        Addr::Tcp(h, p) => {
            let s = TcpStream::connect((h.as_str(), *p)).await?;
            s.set_nodelay(true)?;
            Stream::Tcp(s)
        }
        Addr::Unix(path) => Stream::Unix(UnixStream::connect(path).await?),
    })
}

/// Asks for TLS on a fresh TCP connection; `Ok(Err(tcp))` when the server has none.
async fn start_tls(
    mut tcp: TcpStream,
    host: &str,
    tls: &Tls,
) -> Result<Result<Stream, TcpStream>, PgError> {
    let mut buf = BytesMut::new();
    frontend::ssl_request(&mut buf);
    tcp.write_all(&buf).await?;
    let mut answer = [0u8; 1];
    tcp.read_exact(&mut answer).await?;
    if answer[0] != b'S' {
        return Ok(Err(tcp));
    }
    let name = Tls::server_name(host).map_err(|e| PgError::Tls(e.to_string()))?;
    let connector = tokio_rustls::TlsConnector::from(tls.config.clone());
    let stream = connector
        .connect(name, tcp)
        .await
        .map_err(|e| PgError::Tls(e.to_string()))?;
    Ok(Ok(Stream::Tls(Box::new(stream))))
}

/// Opens `addr`, asking for TLS first when `tls_now` (one attempt of those [`attempts`] lists),
/// within `limit`.
pub(super) async fn open(
    addr: &Addr,
    tls: &Tls,
    tls_now: bool,
    limit: Duration,
) -> Result<Stream, PgError> {
    let opened = tokio::time::timeout(limit, async {
        let (Addr::Tcp(host, port), true) = (addr, tls_now) else {
            return Ok(open_plain(addr).await?);
        };
        let tcp = TcpStream::connect((host.as_str(), *port)).await?;
        tcp.set_nodelay(true)?;
        match start_tls(tcp, host, tls).await? {
            Ok(s) => Ok(s),
            Err(_) if tls.mode.requires_tls() => Err(PgError::Tls(
                "server does not support SSL, but SSL was required".into(),
            )),
            // `prefer`: the server has no TLS; the connection goes on in plain text.
            Err(tcp) => Ok(Stream::Tcp(tcp)),
        }
    })
    .await;
    opened.unwrap_or_else(|_| {
        Err(PgError::Io(io::Error::new(
            io::ErrorKind::TimedOut,
            "connect timed out",
        )))
    })
}

/// The attempts `sslmode` makes: TLS first or only, or (allow) plain first.
pub(super) fn attempts(mode: SslMode, unix: bool) -> &'static [bool] {
    match mode {
        _ if unix => &[false],
        SslMode::Disable => &[false],
        SslMode::Allow => &[false, true],
        _ => &[true],
    }
}

/// Where to send a cancel request for this connection's running statement.
#[derive(Clone, Debug)]
pub struct CancelTarget {
    pub(super) addr: Addr,
    pub(super) process_id: i32,
    pub(super) secret_key: i32,
}

impl CancelTarget {
    /// Asks the server to cancel what this connection is running (best effort; the request
    /// needs no authentication and goes in plain text, as libpq sends it).
    pub async fn cancel(self) {
        let mut buf = BytesMut::new();
        frontend::cancel_request(self.process_id, self.secret_key, &mut buf);
        let sent = async {
            let mut s = open_plain(&self.addr).await?;
            s.write_all(&buf).await
        };
        let _ = tokio::time::timeout(Duration::from_secs(5), sent).await;
    }
}
