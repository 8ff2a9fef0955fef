//! Supabase Realtime: Phoenix channels with broadcast, presence and postgres_changes, as the
//! socket at `/realtime/v1` and its broadcast API serve them (the HTTP edge is the gateway's).
//!
//! Everything that several gateways on one database must agree on goes through PostgreSQL:
//! broadcasts and presence diffs travel as notifications on `supagate_realtime` (large ones
//! through a table), presences live in a table, and changes are decoded from one replication
//! slot by whichever gateway holds an advisory lock, written to a table every gateway reads.

pub mod api;
pub mod authz;
pub mod bus;
mod changes;
mod delivery;
pub mod error;
mod filters;
pub mod hub;
mod join;
mod listening;
mod messages;
mod payload;
mod pgoutput;
mod presence;
pub mod protocol;
mod session;
pub mod tokens;
mod values;

pub use error::RealtimeError;
use identity::JwtKeys;
use parking_lot::{Mutex, RwLock};
use pg::{Login, Pool};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{Notify, watch};

pub use session::{MAX_BROADCAST, MAX_SOCKETS, Session};

/// Whether database changes are being captured.
#[derive(Debug, Clone, PartialEq)]
pub enum ChangesStatus {
    Starting,
    Ready,
    /// Why not (wal_level, no slot free…), in words for the subscriber.
    Unavailable(String),
}

/// What the operator may set.
#[derive(Clone, Debug)]
pub struct RealtimeSettings {
    /// Changes of one transaction delivered one by one at most; a larger transaction reaches
    /// its tables' subscribers as one overflow message each.
    pub max_transaction_changes: usize,
    /// Longest a gateway waits after starting for change subscribers to come back before it
    /// delivers what was committed meanwhile (and before capture leaves out changes of tables
    /// no one listens to).
    pub resume_grace: Duration,
}

impl Default for RealtimeSettings {
    fn default() -> Self {
        RealtimeSettings {
            max_transaction_changes: 10_000,
            resume_grace: Duration::from_secs(10),
        }
    }
}

pub struct Realtime {
    settings: RealtimeSettings,
    /// This gateway among those sharing the database.
    pub replica: String,
    hub: hub::Hub,
    /// Owner connections for realtime's own work (authorisation probes, presences, changes).
    db: Pool,
    admin: Login,
    /// What tokens are checked with; `local_keys`: the CLI's opaque demo keys are accepted.
    keys: JwtKeys,
    local_keys: bool,
    slot: String,
    changes: RwLock<ChangesStatus>,
    /// Changes are held back after a start until reconnecting subscribers are back.
    started: Instant,
    last_changes_join: Mutex<Option<Instant>>,
    wake_delivery: Notify,
    /// A write committed through this gateway: read the slot now.
    wake_capture: Notify,
    /// The tables this gateway's row in `realtime.supagate_listening` names.
    listening: tokio::sync::Mutex<listening::Tables>,
    shutdown: watch::Sender<bool>,
}

/// Quiet time after the last change subscription that ends the grace early.
const RESUME_SETTLE: Duration = Duration::from_millis(500);

/// Runs one of realtime's background tasks until [`Realtime::shutdown`] (dropping the task's
/// handle on the service with it).
pub(crate) fn spawn_until_shutdown(
    rt: &Realtime,
    task: impl std::future::Future<Output = ()> + Send + 'static,
) {
    let mut stop = rt.shutting_down();
    tokio::spawn(async move {
        tokio::select! {
            _ = task => {}
            _ = stop.wait_for(|s| *s) => {}
        }
    });
}

impl Realtime {
    /// Starts realtime on the database `admin` logs into: notification listener, change capture
    /// (waiting briefly for the replication slot so that changes committed once the gateway is
    /// ready are not missed), delivery and housekeeping.
    pub async fn start(
        admin: Login,
        keys: JwtKeys,
        local_keys: bool,
        settings: RealtimeSettings,
    ) -> Result<Arc<Realtime>, RealtimeError> {
        let db = Pool::new(&admin, 4, Duration::from_secs(5));
        let dbname: String = {
            let c = db.get().await?;
            c.query_one("SELECT current_database()", &[]).await?.get(0)
        };
        let (shutdown, _) = watch::channel(false);
        let rt = Arc::new(Realtime {
            settings,
            replica: uuid::Uuid::new_v4().simple().to_string()[..12].to_string(),
            hub: hub::Hub::default(),
            db,
            admin,
            slot: pg::replication::slot_name(&dbname),
            keys,
            local_keys,
            changes: RwLock::new(ChangesStatus::Starting),
            started: Instant::now(),
            last_changes_join: Mutex::new(None),
            wake_delivery: Notify::new(),
            wake_capture: Notify::new(),
            listening: Default::default(),
            shutdown,
        });
        bus::spawn_listener(rt.clone());
        presence::spawn_housekeeping(rt.clone());
        // Changes recorded from now on are this gateway's to deliver.
        let cursor = delivery::last_recorded(&rt).await.unwrap_or(0);
        changes::start(rt.clone()).await;
        delivery::spawn(rt.clone(), cursor);
        let renewing = rt.clone();
        spawn_until_shutdown(&rt, async move {
            loop {
                tokio::time::sleep(listening::RENEW).await;
                if let Err(e) = listening::renew(&renewing).await {
                    tracing::warn!(
                        "realtime: the tables subscribers listen to were not saved: {e}"
                    );
                }
            }
        });
        Ok(rt)
    }

    pub fn changes_status(&self) -> ChangesStatus {
        self.changes.read().clone()
    }

    fn set_changes_status(&self, s: ChangesStatus) {
        *self.changes.write() = s;
    }

    fn note_changes_join(&self) {
        *self.last_changes_join.lock() = Some(Instant::now());
        self.wake_delivery.notify_one();
    }

    /// Whether capture may leave out the changes no one listens to: subscribers who were away
    /// while this gateway was down have had the grace after its start to come back (what the
    /// slot held for them is recorded whole meanwhile).
    fn settled(&self) -> bool {
        self.started.elapsed() >= self.settings.resume_grace
    }

    /// Whether changes may be delivered: the grace after a start is over.
    fn resumed(&self) -> bool {
        if self.started.elapsed() >= self.settings.resume_grace {
            return true;
        }
        matches!(*self.last_changes_join.lock(),
            Some(t) if t.elapsed() >= RESUME_SETTLE)
    }

    /// A write was committed through this gateway (capture reads the slot at once rather
    /// than at its next poll, when this gateway is the one capturing).
    pub fn committed(&self) {
        self.wake_capture.notify_one();
    }

    /// Sockets open on this gateway.
    pub fn sockets(&self) -> usize {
        self.hub.socket_count()
    }

    /// The channels joined on this gateway (Studio's live view).
    pub fn channels(&self) -> Vec<hub::ChannelSummary> {
        self.hub.channels()
    }

    /// Whether the gateway is going away (sockets close with "server restarting").
    pub fn shutting_down(&self) -> watch::Receiver<bool> {
        self.shutdown.subscribe()
    }

    /// Verifies a socket's `apikey` as Supabase Realtime does.
    pub fn verify(&self, token: &str) -> Result<tokens::Identity, tokens::TokenError> {
        tokens::verify(&self.keys, self.local_keys, token)
    }

    /// Closes every socket (clients reconnect, to this gateway once it is back or to another)
    /// and forgets this gateway's presences.
    pub async fn shutdown(&self) {
        let _ = self.shutdown.send(true);
        presence::forget_replica(self, &self.replica).await;
    }
}
