//! One PostgreSQL connection spoken to directly with `postgres-protocol`'s messages:
//! pipelines of prepared statements that end in a single Sync, and simple queries. Opening
//! and logging in are in `stream` and `startup`.

use super::error::{PgError, ServerError};
use super::stream::{Addr, CancelTarget, Stream, attempts, open};
use crate::login::Login;
use bytes::{BufMut, Bytes, BytesMut};
use fallible_iterator::FallibleIterator;
use lru::LruCache;
use postgres_protocol::IsNull;
use postgres_protocol::message::{backend::Message, frontend};
use smallvec::SmallVec;
use std::collections::{HashSet, VecDeque};
use std::io;
use std::num::NonZeroUsize;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio_postgres::config::Host;

/// The fewest statements a connection keeps: one request's pipeline must fit.
const MIN_STATEMENTS: usize = 8;

/// One statement of a pipeline and its text parameters (types left to the server, as PostgREST
/// sends unknown-typed literals).
pub struct Step<'a> {
    pub sql: &'a str,
    pub params: &'a [&'a str],
}

/// A row in text format: one value per column (a view into the message as received, no copy),
/// None for NULL. The server sends UTF-8 (the connection's client_encoding).
pub type Row = Vec<Option<Bytes>>;

/// What was sent, in order, so that each reply (or the error that skips the rest) is matched.
pub(super) enum Sent {
    /// A Parse of a statement to keep (Some(sql)) or of an unnamed one.
    Parse(Option<String>),
    Bind,
    Execute(usize),
    Close(String),
}

pub struct Conn {
    stream: Stream,
    rbuf: BytesMut,
    pub(super) wbuf: BytesMut,
    pub cancel: CancelTarget,
    /// Prepared statements by text, least recently used first: name `s<id>`.
    statements: LruCache<String, u64>,
    next_id: u64,
    /// Statements evicted whose Close did not run (an error skipped it): closed next time.
    pending_close: Vec<String>,
    /// The schema generation the statements were prepared under, and the current one (bumped
    /// when the schema changes).
    epoch: u64,
    schema_epoch: Arc<AtomicU64>,
    /// Between sending and ReadyForQuery: a connection dropped in this state is discarded.
    pub busy: bool,
    /// Transaction status of the last ReadyForQuery: I (idle), T (in a transaction), E (failed).
    pub status: u8,
}

pub(super) fn server_error(
    body: &postgres_protocol::message::backend::ErrorResponseBody,
) -> PgError {
    let mut e = ServerError::default();
    let mut fields = body.fields();
    while let Ok(Some(f)) = fields.next() {
        let v = String::from_utf8_lossy(f.value_bytes()).into_owned();
        match f.type_() {
            b'V' => e.severity = v,
            b'S' if e.severity.is_empty() => e.severity = v,
            b'C' => e.code = v,
            b'M' => e.message = v,
            b'D' => e.detail = Some(v),
            b'H' => e.hint = Some(v),
            _ => {}
        }
    }
    PgError::Server(e)
}

pub(super) fn unexpected(m: &Message) -> PgError {
    let name = match m {
        Message::RowDescription(_) => "RowDescription",
        Message::CopyInResponse(_) | Message::CopyOutResponse(_) => "COPY",
        Message::PortalSuspended => "PortalSuspended",
        _ => "a message out of order",
    };
    PgError::Protocol(format!("unexpected {name} from the server"))
}

impl Conn {
    /// Connects to the first reachable host of `login` and logs in, with TLS as its `sslmode`
    /// says.
    pub async fn connect(
        login: &Login,
        statements: usize,
        schema_epoch: Arc<AtomicU64>,
    ) -> Result<Conn, PgError> {
        let cfg = login.config();
        let ports = cfg.get_ports();
        let limit = cfg
            .get_connect_timeout()
            .copied()
            .unwrap_or(Duration::from_secs(5));
        let mut last = None;
        for (i, host) in cfg.get_hosts().iter().enumerate() {
            let port = ports.get(i).or(ports.first()).copied().unwrap_or(5432);
            let addr = match host {
                Host::Tcp(h) => Addr::Tcp(h.clone(), port),
                Host::Unix(dir) => Addr::Unix(dir.join(format!(".s.PGSQL.{port}"))),
            };
            let unix = matches!(addr, Addr::Unix(_));
            for &tls_now in attempts(login.tls().mode, unix) {
                let stream = match open(&addr, login.tls(), tls_now, limit).await {
                    Ok(s) => s,
                    Err(e) => {
                        last = Some(e);
                        continue;
                    }
                };
                let cap = NonZeroUsize::new(statements.max(MIN_STATEMENTS)).expect("non-zero");
                let mut conn = Conn {
                    stream,
                    rbuf: BytesMut::with_capacity(16 * 1024),
                    wbuf: BytesMut::with_capacity(4 * 1024),
                    cancel: CancelTarget {
                        addr: addr.clone(),
                        process_id: 0,
                        secret_key: 0,
                    },
                    statements: LruCache::new(cap),
                    next_id: 0,
                    pending_close: Vec::new(),
                    // Nothing is prepared yet, under the schema as it is now.
                    epoch: schema_epoch.load(Ordering::Relaxed),
                    schema_epoch: schema_epoch.clone(),
                    busy: false,
                    status: b'I',
                };
                match conn.startup(cfg).await {
                    Ok(()) => return Ok(conn),
                    Err(e) => last = Some(e),
                }
            }
        }
        Err(last.unwrap_or_else(|| PgError::Io(io::Error::other("no host to connect to"))))
    }

    /// Whether the server closed the connection while it sat in the pool.
    pub fn is_closed(&self) -> bool {
        self.stream.is_closed()
    }

    pub(super) async fn flush(&mut self) -> Result<(), PgError> {
        let r = self.stream.write_all(&self.wbuf).await;
        self.wbuf.clear();
        Ok(r?)
    }

    pub(super) async fn read(&mut self) -> Result<Message, PgError> {
        loop {
            if let Some(m) = Message::parse(&mut self.rbuf)? {
                return Ok(m);
            }
            if self.stream.read_buf(&mut self.rbuf).await? == 0 {
                return Err(PgError::Io(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the server closed the connection",
                )));
            }
        }
    }

    /// Forgets every prepared statement (the schema changed): the next pipeline starts with
    /// `DEALLOCATE ALL`.
    fn forget_statements(&mut self) {
        self.statements.clear();
        self.pending_close.clear();
    }

    /// Sends `steps` as one pipeline ending in one Sync and returns the first row of each. Each
    /// statement is prepared once per connection (at most the cache size, least recently used
    /// ones closed). An error skips the rest, as the server does; a transaction it leaves failed
    /// is rolled back before the error is returned.
    pub async fn pipeline(&mut self, steps: &[Step<'_>]) -> Result<Vec<Option<Row>>, PgError> {
        self.busy = true;
        let sent = self.write_segment(steps, None)?;
        self.flush().await?;
        // An error out of the protocol leaves the connection busy: it is discarded.
        let answer = self.read_segment(sent, steps.len()).await?;
        if answer.is_err() && self.status == b'E' {
            self.simple("ROLLBACK").await?;
        }
        self.busy = false;
        answer
    }

    /// Writes `steps` and a Sync into the write buffer (not sent yet) and says what was written.
    /// `in_flight`, for segments written back to back before any is answered: the statements
    /// whose Parse an earlier segment sent. A segment never names one of those (that Parse is
    /// skipped if its segment fails first): it parses its own unnamed copy; the statements this
    /// segment parses are added.
    pub(super) fn write_segment(
        &mut self,
        steps: &[Step<'_>],
        mut in_flight: Option<&mut HashSet<String>>,
    ) -> Result<VecDeque<Sent>, PgError> {
        let mut sent: VecDeque<Sent> = VecDeque::with_capacity(steps.len() * 3 + 3);
        let epoch = self.schema_epoch.load(Ordering::Relaxed);
        if epoch != self.epoch {
            self.forget_statements();
            self.epoch = epoch;
            self.extended("", "DEALLOCATE ALL", &[], &mut sent, None)?;
        }
        for name in std::mem::take(&mut self.pending_close) {
            frontend::close(b'S', &name, &mut self.wbuf)?;
            sent.push_back(Sent::Close(name));
        }
        // Touch the statements this pipeline uses first, so that none of them is evicted by
        // another one prepared in the same pipeline.
        let known: SmallVec<[Option<u64>; 8]> = steps
            .iter()
            .map(|s| self.statements.get(s.sql).copied())
            .collect();
        // Every step names a prepared statement, `s<id>`: written into one buffer.
        let mut name = String::with_capacity(21);
        for (i, step) in steps.iter().enumerate() {
            if in_flight.as_deref().is_some_and(|f| f.contains(step.sql)) {
                self.extended("", step.sql, step.params, &mut sent, Some(i))?;
                continue;
            }
            // A statement missing at first may have been prepared by an earlier step.
            let id = known[i].or_else(|| self.statements.get(step.sql).copied());
            match id {
                Some(id) => statement_name(&mut name, id),
                None => {
                    let id = self.next_id;
                    self.next_id += 1;
                    statement_name(&mut name, id);
                    frontend::parse(&name, step.sql, std::iter::empty(), &mut self.wbuf)?;
                    sent.push_back(Sent::Parse(Some(step.sql.to_string())));
                    if let Some(f) = in_flight.as_deref_mut() {
                        f.insert(step.sql.to_string());
                    }
                    if let Some((_, old)) = self.statements.push(step.sql.to_string(), id) {
                        let mut old_name = String::new();
                        statement_name(&mut old_name, old);
                        frontend::close(b'S', &old_name, &mut self.wbuf)?;
                        sent.push_back(Sent::Close(old_name));
                    }
                }
            }
            self.extended(&name, "", step.params, &mut sent, Some(i))?;
        }
        frontend::sync(&mut self.wbuf);
        Ok(sent)
    }

    /// Reads the answers to one segment (`sent`, of `steps` statements) up to its
    /// ReadyForQuery: the first row of each statement, or the server's error (the rest of the
    /// segment skipped: statements it did not parse are forgotten, closes it did not run are
    /// retried). The outer error means the connection is unusable.
    pub(super) async fn read_segment(
        &mut self,
        mut sent: VecDeque<Sent>,
        steps: usize,
    ) -> Result<Result<Vec<Option<Row>>, PgError>, PgError> {
        let mut rows: Vec<Option<Row>> = vec![None; steps];
        let mut failure: Option<PgError> = None;
        loop {
            let m = self.read().await?;
            match m {
                Message::ParameterStatus(_)
                | Message::NoticeResponse(_)
                | Message::NotificationResponse(_) => continue,
                Message::ReadyForQuery(r) => {
                    self.status = r.status();
                    break;
                }
                Message::ErrorResponse(e) => {
                    failure.get_or_insert(server_error(&e));
                    // The failed message and everything after it is skipped up to the Sync:
                    // statements not parsed are not kept, closes not run are retried.
                    for s in sent.drain(..) {
                        match s {
                            Sent::Parse(Some(sql)) => {
                                self.statements.pop(&sql);
                            }
                            Sent::Close(name) => self.pending_close.push(name),
                            _ => {}
                        }
                    }
                    continue;
                }
                _ => {}
            }
            if failure.is_some() {
                continue;
            }
            match (sent.front(), &m) {
                (Some(Sent::Parse(_)), Message::ParseComplete)
                | (Some(Sent::Bind), Message::BindComplete)
                | (Some(Sent::Close(_)), Message::CloseComplete)
                | (
                    Some(Sent::Execute(_)),
                    Message::CommandComplete(_) | Message::EmptyQueryResponse,
                ) => {
                    sent.pop_front();
                }
                (Some(Sent::Execute(i)), Message::DataRow(body)) => {
                    let i = *i;
                    if i < rows.len() && rows[i].is_none() {
                        let buf = body.buffer_bytes();
                        let mut ranges = body.ranges();
                        let mut row = Vec::with_capacity(ranges.size_hint().0);
                        while let Some(r) = ranges.next()? {
                            row.push(r.map(|r| buf.slice(r)));
                        }
                        rows[i] = Some(row);
                    }
                }
                _ => return Err(unexpected(&m)),
            }
        }
        Ok(match failure {
            Some(e) => Err(e),
            None => Ok(rows),
        })
    }

    /// Bind and Execute of a prepared statement (`name`), or Parse, Bind and Execute of an
    /// unnamed one (`sql`); `step` is where its row goes.
    fn extended(
        &mut self,
        name: &str,
        sql: &str,
        params: &[&str],
        sent: &mut VecDeque<Sent>,
        step: Option<usize>,
    ) -> Result<(), PgError> {
        if name.is_empty() {
            frontend::parse("", sql, std::iter::empty(), &mut self.wbuf)?;
            sent.push_back(Sent::Parse(None));
        }
        let formats: &[i16] = if params.is_empty() { &[] } else { &[0] };
        frontend::bind(
            "",
            name,
            formats.iter().copied(),
            params.iter(),
            |p, buf: &mut BytesMut| {
                buf.put_slice(p.as_bytes());
                Ok(IsNull::No)
            },
            [0i16],
            &mut self.wbuf,
        )
        .map_err(|e| match e {
            frontend::BindError::Conversion(e) => PgError::Protocol(e.to_string()),
            frontend::BindError::Serialization(e) => PgError::Io(e),
        })?;
        sent.push_back(Sent::Bind);
        frontend::execute("", 0, &mut self.wbuf)?;
        sent.push_back(Sent::Execute(step.unwrap_or(usize::MAX)));
        Ok(())
    }

    /// Runs `sql` with the simple query protocol (COMMIT, ROLLBACK).
    pub async fn simple(&mut self, sql: &str) -> Result<(), PgError> {
        self.busy = true;
        frontend::query(sql, &mut self.wbuf)?;
        self.flush().await?;
        let mut failure = None;
        loop {
            match self.read().await? {
                Message::ErrorResponse(e) => {
                    failure.get_or_insert(server_error(&e));
                }
                Message::ReadyForQuery(r) => {
                    self.status = r.status();
                    break;
                }
                _ => {}
            }
        }
        self.busy = false;
        failure.map_or(Ok(()), Err)
    }
}

/// What a script run with the simple query protocol said: each statement's command tag
/// (`SELECT 1`, `INSERT 0 1`) and notice in order, and the error that ended it.
#[derive(Debug, Default)]
pub struct Said {
    pub tags: Vec<String>,
    pub notices: Vec<Notice>,
    pub error: Option<Notice>,
    /// The script asked to copy data in or out, which a script cannot do here.
    pub copy: bool,
}

/// An error or notice with the `CONTEXT` it happened in (the function and statement).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Notice {
    pub severity: String,
    pub message: String,
    pub detail: Option<String>,
    pub hint: Option<String>,
    pub context: Option<String>,
}

impl Notice {
    fn read(mut fields: postgres_protocol::message::backend::ErrorFields<'_>) -> Notice {
        let mut e = Notice::default();
        while let Ok(Some(f)) = fields.next() {
            let v = String::from_utf8_lossy(f.value_bytes()).into_owned();
            match f.type_() {
                b'V' => e.severity = v,
                b'S' if e.severity.is_empty() => e.severity = v,
                b'M' => e.message = v,
                b'D' => e.detail = Some(v),
                b'H' => e.hint = Some(v),
                b'W' => e.context = Some(v),
                _ => {}
            }
        }
        e
    }
}

impl Conn {
    /// The server process's id.
    pub fn backend_pid(&self) -> i32 {
        self.cancel.process_id
    }

    /// Runs `sql` (one statement or several, in one implicit transaction unless they say
    /// otherwise) with the simple query protocol and says what the server answered. COPY is
    /// refused (a COPY FROM STDIN fails; the rows of a COPY TO STDOUT are dropped).
    pub async fn script(&mut self, sql: &str) -> Result<Said, PgError> {
        self.busy = true;
        frontend::query(sql, &mut self.wbuf)?;
        self.flush().await?;
        let mut said = Said::default();
        loop {
            match self.read().await? {
                Message::CommandComplete(c) => {
                    said.tags.push(c.tag().unwrap_or_default().to_string());
                }
                Message::ErrorResponse(e) => {
                    let e = Notice::read(e.fields());
                    said.error.get_or_insert(e);
                }
                Message::NoticeResponse(n) => said.notices.push(Notice::read(n.fields())),
                Message::CopyInResponse(_) => {
                    said.copy = true;
                    frontend::copy_fail("COPY not supported", &mut self.wbuf)?;
                    self.flush().await?;
                }
                Message::CopyOutResponse(_) => said.copy = true,
                Message::ReadyForQuery(r) => {
                    self.status = r.status();
                    break;
                }
                _ => {}
            }
        }
        self.busy = false;
        Ok(said)
    }
}

/// A prepared statement's name on the server: `s<id>`.
/// Writes a prepared statement's name, `s<id>`, into `name`.
fn statement_name(name: &mut String, id: u64) {
    name.clear();
    name.push('s');
    name.push_str(itoa::Buffer::new().format(id));
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_statement_is_named_by_its_number() {
        let mut name = "left from before".to_string();
        for (id, want) in [(0, "s0"), (7, "s7"), (1234, "s1234")] {
            super::statement_name(&mut name, id);
            assert_eq!(name, want);
        }
        super::statement_name(&mut name, u64::MAX);
        assert_eq!(name, format!("s{}", u64::MAX));
    }
}
