//! Connection pools: tokio-postgres pools (auth, storage, realtime, mail, housekeeping), a pool
//! per HTTP worker thread so that a request and its connection live on one thread, and the
//! per-role settings every API transaction applies.

use crate::error::DbError;
use crate::login::Login;
use deadpool_postgres::{Manager, ManagerConfig, Object, RecyclingMethod, Runtime, Timeouts};
use parking_lot::RwLock;
use std::any::Any;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio_postgres_rustls::MakeRustlsConnect;

/// A pool of tokio-postgres connections of one login.
#[derive(Clone)]
pub struct Pool {
    inner: deadpool_postgres::Pool,
    tls: MakeRustlsConnect,
}

impl Pool {
    /// At most `size` connections; a caller waits at most `wait` for one.
    pub fn new(login: &Login, size: usize, wait: Duration) -> Pool {
        let tls = MakeRustlsConnect::new((*login.tls().config).clone());
        let mgr = Manager::from_config(
            login.config().clone(),
            tls.clone(),
            ManagerConfig {
                // A connection the server closed (restart, db reset) is noticed by its
                // connection task and never handed out again.
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let inner = deadpool_postgres::Pool::builder(mgr)
            .max_size(size)
            .runtime(Runtime::Tokio1)
            .timeouts(Timeouts {
                wait: Some(wait),
                create: Some(Duration::from_secs(5)),
                recycle: None,
            })
            .build()
            .expect("pool configuration is valid");
        Pool { inner, tls }
    }

    pub async fn get(&self) -> Result<Object, DbError> {
        Ok(self.inner.get().await?)
    }

    /// Forgets every connection's prepared statements (their plans may name dropped objects).
    pub fn clear_statement_caches(&self) {
        self.inner.manager().statement_caches.clear();
    }

    pub(crate) fn tls(&self) -> MakeRustlsConnect {
        self.tls.clone()
    }
}

thread_local! {
    static THREAD_POOLS: RefCell<HashMap<u64, Box<dyn Any>>> = RefCell::new(HashMap::new());
}

/// One pool per thread, made on first use from `make`, each with a share of the connections:
/// with one per HTTP worker, a request and the connection serving it stay on the same thread
/// (no cross-thread wake-ups on the hot path).
pub struct PerThread<P> {
    id: u64,
    make: Box<dyn Fn() -> P + Send + Sync>,
}

impl<P: Clone + 'static> PerThread<P> {
    pub fn new(make: impl Fn() -> P + Send + Sync + 'static) -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        PerThread {
            id: NEXT.fetch_add(1, Ordering::Relaxed),
            make: Box::new(make),
        }
    }

    /// This thread's pool.
    pub fn get(&self) -> P {
        THREAD_POOLS.with(|pools| {
            let mut pools = pools.borrow_mut();
            let slot = pools
                .entry(self.id)
                .or_insert_with(|| Box::new((self.make)()));
            slot.downcast_ref::<P>().expect("one type per id").clone()
        })
    }
}

/// A thread's share of `total` connections among `threads`.
pub fn share(total: usize, threads: usize) -> usize {
    total.div_ceil(threads.max(1)).max(1)
}

/// The settings of each role (`ALTER ROLE … SET`, read with the schema cache), applied to
/// every transaction run as that role, as PostgREST applies them, with a default statement
/// timeout for roles that have none.
/// `name = value` settings by role.
pub type SettingsByRole = HashMap<String, Vec<(String, String)>>;

/// Settings of one role, ready to apply (the default statement timeout included).
pub type Settings = Arc<Vec<(String, String)>>;

#[derive(Clone)]
pub struct RoleSettings {
    /// Each role's settings as applied, and those of a role with none.
    by_role: Arc<RwLock<(HashMap<String, Settings>, Settings)>>,
    /// `statement_timeout` for roles without one, as its setting's text (`8000ms`).
    default_statement_timeout: String,
}

impl RoleSettings {
    pub fn new(default_statement_timeout_ms: u64) -> Self {
        let settings = RoleSettings {
            by_role: Arc::default(),
            default_statement_timeout: format!("{default_statement_timeout_ms}ms"),
        };
        settings.set(HashMap::new());
        settings
    }

    /// What the database says now (after each schema cache load).
    pub fn set(&self, by_role: SettingsByRole) {
        let applied = |mut settings: Vec<(String, String)>| {
            if !settings.iter().any(|(k, _)| k == "statement_timeout") {
                settings.push((
                    "statement_timeout".into(),
                    self.default_statement_timeout.clone(),
                ));
            }
            Arc::new(settings)
        };
        let none = applied(Vec::new());
        let by_role = by_role
            .into_iter()
            .map(|(role, s)| (role, applied(s)))
            .collect();
        *self.by_role.write() = (by_role, none);
    }

    /// The settings to apply for `role` (shared: made once per schema cache load).
    pub fn of(&self, role: &str) -> Settings {
        let by_role = self.by_role.read();
        by_role.0.get(role).unwrap_or(&by_role.1).clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_thread_has_its_own_pool() {
        let n = Arc::new(AtomicU64::new(0));
        let counter = n.clone();
        let pools = Arc::new(PerThread::new(move || {
            counter.fetch_add(1, Ordering::Relaxed)
        }));
        assert_eq!(pools.get(), pools.get());
        let other = pools.clone();
        let there = std::thread::spawn(move || other.get()).join().unwrap();
        assert_ne!(there, pools.get());
        assert_eq!(n.load(Ordering::Relaxed), 2, "one pool made per thread");
        assert_eq!((share(10, 4), share(1, 4), share(3, 0)), (3, 1, 3));
    }

    #[test]
    fn roles_without_a_timeout_get_the_default() {
        let s = RoleSettings::new(8000);
        s.set(HashMap::from([(
            "anon".to_string(),
            vec![("statement_timeout".to_string(), "3s".to_string())],
        )]));
        assert_eq!(*s.of("anon"), [("statement_timeout".into(), "3s".into())]);
        assert_eq!(
            *s.of("authenticated"),
            [("statement_timeout".into(), "8000ms".into())]
        );
    }
}
