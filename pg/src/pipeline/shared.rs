//! Connections shared by many requests at once: each connection is served by one task that
//! takes the requests queued for it, writes their pipelines back to back in one write, and hands
//! each request the answers to its own pipeline (the server answers in the order of the Syncs).
//!
//! Isolation: a request's pipeline is its statements and one Sync, with no BEGIN, so it runs as
//! PostgreSQL's implicit transaction for that Sync — committed at the Sync if nothing failed,
//! rolled back at the Sync if a statement failed (the server skips the rest of that pipeline up
//! to its Sync, and nothing of the next one). Settings made with `set_config(…, true)` (role,
//! claims, the role's settings) end with that transaction, so they never reach the next
//! request's statements. A statement prepared by a pipeline still unanswered is not named by
//! the pipelines written after it (its Parse is skipped if that pipeline fails first): they
//! parse their own unnamed copy, and it becomes known only once its ParseComplete is read.
//!
//! A request whose client goes away is not cancelled: PostgreSQL's cancel request stops whatever
//! the backend runs, which may be another request's statement; it runs to its end (bounded by
//! its statement_timeout) and its answer is dropped. Requests that keep a transaction open
//! across round trips cannot share a connection and use the pool ([`super::Session`]).

use super::conn::{Conn, Row, Sent, Step};
use super::error::PgError;
use crate::login::Login;
use std::collections::{HashSet, VecDeque};
use std::io;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use tokio::sync::{mpsc, oneshot};

/// Pipelines one connection's task writes together at most.
const MAX_BATCH: usize = 64;

/// One statement of a queued pipeline, owned (it outlives the request's borrow while queued).
pub struct OwnedStep {
    pub sql: String,
    pub params: Vec<String>,
}

type Answer = Result<Vec<Option<Row>>, PgError>;

struct Job {
    steps: Vec<OwnedStep>,
    reply: oneshot::Sender<Answer>,
}

/// One shared connection: its task's queue (started on first use) and the pipelines queued or
/// running on it.
struct Lane {
    queue: OnceLock<mpsc::UnboundedSender<Job>>,
    waiting: Arc<AtomicUsize>,
}

/// A set of shared connections.
pub struct Shared {
    lanes: Vec<Lane>,
    login: Login,
    statements: usize,
    epoch: Arc<AtomicU64>,
}

impl Shared {
    /// `count` connections (at least one), opened when first used, each keeping at most
    /// `statements` prepared statements, dropped when `epoch` moves.
    pub fn new(login: Login, count: usize, statements: usize, epoch: Arc<AtomicU64>) -> Shared {
        Shared {
            lanes: (0..count.max(1))
                .map(|_| Lane {
                    queue: OnceLock::new(),
                    waiting: Arc::new(AtomicUsize::new(0)),
                })
                .collect(),
            login,
            statements,
            epoch,
        }
    }

    pub fn len(&self) -> usize {
        self.lanes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lanes.is_empty()
    }

    /// Runs `steps` as one pipeline (its implicit transaction) on a shared connection: `own`'s
    /// unless another has fewer pipelines waiting (a long statement holds up only the pipelines
    /// behind it on its connection). Returns the first row of each statement.
    pub async fn run(&self, own: usize, steps: Vec<OwnedStep>) -> Answer {
        let own = own % self.lanes.len();
        let mut pick = own;
        let mut least = self.lanes[own].waiting.load(Ordering::Relaxed);
        for (i, lane) in self.lanes.iter().enumerate() {
            let w = lane.waiting.load(Ordering::Relaxed);
            if w < least {
                (pick, least) = (i, w);
            }
        }
        let lane = &self.lanes[pick];
        let queue = lane.queue.get_or_init(|| {
            let (tx, rx) = mpsc::unbounded_channel();
            tokio::spawn(serve(
                rx,
                self.login.clone(),
                self.statements,
                self.epoch.clone(),
                lane.waiting.clone(),
            ));
            tx
        });
        let (reply, answer) = oneshot::channel();
        lane.waiting.fetch_add(1, Ordering::Relaxed);
        if queue.send(Job { steps, reply }).is_err() {
            lane.waiting.fetch_sub(1, Ordering::Relaxed);
            return Err(gone("the connection's task ended"));
        }
        answer
            .await
            .unwrap_or_else(|_| Err(gone("the connection's task ended")))
    }
}

fn gone(why: &str) -> PgError {
    PgError::Io(io::Error::new(io::ErrorKind::ConnectionAborted, why))
}

/// The same failure for each request of a batch (the error itself is not Clone).
fn again(e: &PgError) -> PgError {
    match e {
        PgError::Server(s) => PgError::Server(s.clone()),
        PgError::Io(e) => PgError::Io(io::Error::new(e.kind(), e.to_string())),
        PgError::Protocol(m) => PgError::Protocol(m.clone()),
        PgError::Tls(m) => PgError::Tls(m.clone()),
    }
}

/// One connection's task: takes what is queued (up to [`MAX_BATCH`]), writes it in one go,
/// answers each request as its pipeline's ReadyForQuery arrives. A connection that fails is
/// dropped (the server rolls back what it ran) and the next batch opens a new one.
async fn serve(
    mut queue: mpsc::UnboundedReceiver<Job>,
    login: Login,
    statements: usize,
    epoch: Arc<AtomicU64>,
    waiting: Arc<AtomicUsize>,
) {
    let mut conn: Option<Conn> = None;
    let mut batch: Vec<Job> = Vec::with_capacity(MAX_BATCH);
    while let Some(job) = queue.recv().await {
        batch.push(job);
        while batch.len() < MAX_BATCH {
            match queue.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        let taken = batch.len();
        // Requests whose client went away are not run.
        batch.retain(|j| !j.reply.is_closed());
        if conn.as_ref().is_none_or(Conn::is_closed) {
            conn = None;
            if !batch.is_empty() {
                match Conn::connect(&login, statements, epoch.clone()).await {
                    Ok(c) => conn = Some(c),
                    Err(e) => {
                        for j in batch.drain(..) {
                            let _ = j.reply.send(Err(again(&e)));
                        }
                    }
                }
            }
        }
        if let Some(c) = conn.as_mut()
            && !batch.is_empty()
            && let Err(e) = run_batch(c, &mut batch).await
        {
            conn = None;
            for j in batch.drain(..) {
                let _ = j.reply.send(Err(again(&e)));
            }
        }
        batch.clear();
        waiting.fetch_sub(taken, Ordering::Relaxed);
    }
}

/// Writes every job's pipeline, then reads and hands out their answers in order; the jobs
/// answered are taken out of `batch`. An error is the connection's: the jobs left get it.
async fn run_batch(c: &mut Conn, batch: &mut Vec<Job>) -> Result<(), PgError> {
    c.busy = true;
    let mut in_flight = HashSet::new();
    let mut written: VecDeque<(VecDeque<Sent>, usize)> = VecDeque::with_capacity(batch.len());
    for job in batch.iter() {
        let params: Vec<Vec<&str>> = job
            .steps
            .iter()
            .map(|s| s.params.iter().map(String::as_str).collect())
            .collect();
        let steps: Vec<Step<'_>> = job
            .steps
            .iter()
            .zip(&params)
            .map(|(s, p)| Step {
                sql: &s.sql,
                params: p,
            })
            .collect();
        written.push_back((c.write_segment(&steps, Some(&mut in_flight))?, steps.len()));
    }
    c.flush().await?;
    let mut jobs = std::mem::take(batch).into_iter();
    while let Some((sent, steps)) = written.pop_front() {
        let answer = c.read_segment(sent, steps).await;
        let job = jobs.next().expect("one job per segment");
        let answer = match answer {
            Ok(a) => a,
            Err(e) => {
                batch.extend(jobs);
                return Err(e);
            }
        };
        if c.status != b'I' {
            // Only an explicit BEGIN leaves a transaction open past a Sync, and the pipelines
            // behind it would run inside it: the connection is dropped (rolling it back) and
            // none of them is answered as done.
            batch.push(job);
            batch.extend(jobs);
            return Err(PgError::Protocol(
                "a shared connection was left inside a transaction".into(),
            ));
        }
        let _ = job.reply.send(answer);
    }
    c.busy = false;
    Ok(())
}
