//! Fair shares of the database: one client address may run at most a few REST requests at a
//! time, so a handful of slow or hostile requests from one place cannot hold every pooled
//! connection while everyone else waits. Requests past the share queue behind their own
//! address's earlier ones, not in front of other clients.
//!
//! The shares are per process: each replica protects its own pool.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

pub struct ClientSlots {
    /// Most requests one address runs at once; 0 turns the limit off.
    per_client: usize,
    slots: Mutex<HashMap<String, Arc<Semaphore>>>,
}

/// A running request's share; released on drop.
pub struct Slot {
    _permit: Option<OwnedSemaphorePermit>,
    cleanup: Option<(Arc<Semaphore>, String)>,
    owner: Option<Arc<ClientSlots>>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self._permit.take();
        if let (Some((sem, client)), Some(owner)) = (self.cleanup.take(), self.owner.take()) {
            let mut slots = owner.slots.lock().expect("slots lock");
            // Forget an address nobody from it is waiting on (the map holds the other handle).
            if Arc::strong_count(&sem) == 2 && sem.available_permits() == owner.per_client {
                slots.remove(&client);
            }
        }
    }
}

impl ClientSlots {
    pub fn new(per_client: usize) -> Arc<ClientSlots> {
        Arc::new(ClientSlots {
            per_client,
            slots: Mutex::new(HashMap::new()),
        })
    }

    /// Waits up to `wait` for a share for `client`; None when it did not come (the caller
    /// answers as it would to a pool timeout).
    pub async fn acquire(self: &Arc<Self>, client: &str, wait: Duration) -> Option<Slot> {
        if self.per_client == 0 {
            return Some(Slot {
                _permit: None,
                cleanup: None,
                owner: None,
            });
        }
        let sem = self
            .slots
            .lock()
            .expect("slots lock")
            .entry(client.to_string())
            .or_insert_with(|| Arc::new(Semaphore::new(self.per_client)))
            .clone();
        let permit = tokio::time::timeout(wait, sem.clone().acquire_owned())
            .await
            .ok()?
            .ok()?;
        Some(Slot {
            _permit: Some(permit),
            cleanup: Some((sem, client.to_string())),
            owner: Some(self.clone()),
        })
    }

    #[cfg(test)]
    fn tracked(&self) -> usize {
        self.slots.lock().unwrap().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn one_address_cannot_take_every_slot() {
        let slots = ClientSlots::new(2);
        let wait = Duration::from_millis(50);
        let a1 = slots.acquire("a", wait).await.unwrap();
        let _a2 = slots.acquire("a", wait).await.unwrap();
        assert!(
            slots.acquire("a", wait).await.is_none(),
            "a third from a waits"
        );
        let b = slots.acquire("b", wait).await;
        assert!(b.is_some(), "another address is not held up");
        drop(a1);
        assert!(slots.acquire("a", wait).await.is_some());
        drop(b);
        assert_eq!(
            slots.tracked(),
            1,
            "addresses with nothing running are forgotten"
        );
        let off = ClientSlots::new(0);
        let _many: Vec<_> =
            futures_util::future::join_all((0..10).map(|_| off.acquire("a", wait))).await;
    }
}
