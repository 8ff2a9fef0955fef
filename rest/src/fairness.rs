//! Fair shares of the database. Two rules decide when a REST request may start:
//! - one client address runs at most `per_client` requests at a time;
//! - an address that already runs one may start another only while fewer than half of all
//!   connections are busy. The other half is kept for addresses that run nothing yet.
//!
//! So a few slow or hostile addresses together cannot hold every connection: after one address
//! has taken half, it takes as many more addresses as the other half has connections, each with
//! one request running, to fill the pool. Requests past a share wait behind it, not in front of
//! other clients. Requests already running end at their role's statement timeout.
//!
//! A request runs on its worker thread's pool (a lane) while that has a connection free, else
//! on another lane's, so the shares are of the whole pool. The shares are per process: each
//! replica protects its own pool.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Notify;

pub struct ClientSlots {
    /// Most requests one address runs at once; 0 turns fair shares off.
    per_client: usize,
    /// Connections in all lanes.
    total: usize,
    state: Mutex<State>,
    /// Signalled whenever a request ends.
    freed: Notify,
}

#[derive(Default)]
struct State {
    /// Requests running per address (addresses running nothing are absent).
    by_client: HashMap<String, usize, foldhash::fast::RandomState>,
    /// Each lane seen so far: its size and the requests running on it.
    lanes: HashMap<u64, (usize, usize), foldhash::fast::RandomState>,
    busy: usize,
}

/// This thread's lane among `count`: threads take lanes in turn on first use.
pub fn thread_lane(count: usize) -> usize {
    use std::cell::Cell;
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    thread_local!(static MINE: Cell<Option<usize>> = const { Cell::new(None) });
    let n = MINE.with(|m| {
        m.get().unwrap_or_else(|| {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            m.set(Some(n));
            n
        })
    });
    n % count.max(1)
}

/// A pool requests can run on: `id` (its index) of `size` connections.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Lane {
    pub id: u64,
    pub size: usize,
}

/// A running request's share; released on drop.
pub struct Slot {
    /// The lane to run on.
    pub lane: u64,
    held: Option<(Arc<ClientSlots>, String)>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let Some((owner, client)) = self.held.take() else {
            return;
        };
        {
            let mut s = owner.state.lock().expect("slots lock");
            if let Some(n) = s.by_client.get_mut(&client) {
                *n -= 1;
                if *n == 0 {
                    s.by_client.remove(&client);
                }
            }
            if let Some((_, busy)) = s.lanes.get_mut(&self.lane) {
                *busy -= 1;
            }
            s.busy -= 1;
        }
        owner.freed.notify_waiters();
    }
}

impl ClientSlots {
    /// Shares of the connections in `lanes`.
    pub fn new(per_client: usize, lanes: Vec<Lane>) -> Arc<ClientSlots> {
        let total = lanes.iter().map(|l| l.size).sum();
        let state = State {
            lanes: lanes.iter().map(|l| (l.id, (l.size, 0))).collect(),
            ..State::default()
        };
        Arc::new(ClientSlots {
            per_client,
            total,
            state: Mutex::new(state),
            freed: Notify::new(),
        })
    }

    /// Waits up to `wait` for a share for `client`, whose own lane is `own`; None when it did
    /// not come (the caller answers as it would to a pool timeout).
    pub async fn acquire(
        self: &Arc<Self>,
        client: &str,
        own: Lane,
        wait: Duration,
    ) -> Option<Slot> {
        if self.per_client == 0 {
            return Some(Slot {
                lane: own.id,
                held: None,
            });
        }
        // Nearly always a share is free: no clock read and no waiter registered.
        if let Some(slot) = self.try_start(client, own) {
            return Some(slot);
        }
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let freed = self.freed.notified();
            tokio::pin!(freed);
            // Registered before the check, so a release between the check and the wait wakes it.
            freed.as_mut().enable();
            if let Some(slot) = self.try_start(client, own) {
                return Some(slot);
            }
            tokio::time::timeout_at(deadline, freed).await.ok()?;
        }
    }

    fn try_start(self: &Arc<Self>, client: &str, own: Lane) -> Option<Slot> {
        let mut s = self.state.lock().expect("slots lock");
        let mine = s.by_client.get(client).copied().unwrap_or(0);
        if mine >= self.per_client || (mine > 0 && s.busy >= self.total / 2) {
            return None;
        }
        let own_busy = s.lanes.entry(own.id).or_insert((own.size, 0)).1;
        // The own lane while it has a connection free, else the least busy lane that has one,
        // else the own lane's queue.
        let lane = if own_busy < own.size {
            own.id
        } else {
            s.lanes
                .iter()
                .filter(|(_, (size, busy))| busy < size)
                .min_by_key(|(_, (_, busy))| *busy)
                .map_or(own.id, |(id, _)| *id)
        };
        match s.by_client.get_mut(client) {
            Some(n) => *n += 1,
            None => {
                s.by_client.insert(client.to_string(), 1);
            }
        }
        s.lanes.get_mut(&lane).expect("lane seen").1 += 1;
        s.busy += 1;
        Some(Slot {
            lane,
            held: Some((self.clone(), client.to_string())),
        })
    }

    #[cfg(test)]
    fn tracked(&self) -> (usize, usize) {
        let s = self.state.lock().unwrap();
        (s.by_client.len(), s.busy)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WAIT: Duration = Duration::from_millis(50);
    const LANE: Lane = Lane { id: 1, size: 10 };

    #[tokio::test]
    async fn one_address_cannot_take_every_slot() {
        let slots = ClientSlots::new(2, vec![LANE]);
        let a1 = slots.acquire("a", LANE, WAIT).await.unwrap();
        let _a2 = slots.acquire("a", LANE, WAIT).await.unwrap();
        assert!(
            slots.acquire("a", LANE, WAIT).await.is_none(),
            "a third from a waits"
        );
        let b = slots.acquire("b", LANE, WAIT).await;
        assert!(b.is_some(), "another address is not held up");
        drop(a1);
        assert!(slots.acquire("a", LANE, WAIT).await.is_some());
        drop(b);
        assert_eq!(
            slots.tracked(),
            (1, 1),
            "addresses with nothing running are forgotten"
        );
        let off = ClientSlots::new(0, vec![LANE]);
        let _many: Vec<_> =
            futures_util::future::join_all((0..10).map(|_| off.acquire("a", LANE, WAIT))).await;
    }

    /// Four addresses each asking for all they may, the first before the others arrive, leave
    /// room for newcomers.
    #[tokio::test]
    async fn several_addresses_together_leave_room_for_newcomers() {
        let slots = ClientSlots::new(5, vec![LANE]);
        let mut held = Vec::new();
        for who in ["a", "b", "c", "d"] {
            while let Some(s) = slots.acquire(who, LANE, WAIT).await {
                held.push(s);
            }
        }
        assert_eq!(held.len(), 8, "a takes half, the others one each");
        let s = &slots;
        let newcomers =
            (0..2).map(|i| async move { s.acquire(&format!("n{i}"), LANE, WAIT).await });
        let got = futures_util::future::join_all(newcomers).await;
        assert!(got.iter().all(Option::is_some), "the rest is theirs");
    }

    #[tokio::test]
    async fn a_full_lane_borrows_from_another() {
        let (a, b) = (Lane { id: 0, size: 2 }, Lane { id: 1, size: 2 });
        let slots = ClientSlots::new(1, vec![a, b]);
        let mut held = Vec::new();
        for who in ["v", "w", "x", "y", "z"] {
            held.push(slots.acquire(who, a, WAIT).await.unwrap());
        }
        let lanes: Vec<u64> = held.iter().map(|s| s.lane).collect();
        assert_eq!(
            lanes,
            [0, 0, 1, 1, 0],
            "a lane no request came through yet is borrowed too; all full: the own lane's queue"
        );
    }

    #[tokio::test]
    async fn a_waiting_request_starts_when_a_slot_frees() {
        let slots = ClientSlots::new(1, vec![LANE]);
        let first = slots.acquire("a", LANE, WAIT).await.unwrap();
        let waiter = {
            let slots = slots.clone();
            tokio::spawn(async move {
                slots
                    .acquire("a", LANE, Duration::from_secs(10))
                    .await
                    .is_some()
            })
        };
        tokio::task::yield_now().await;
        drop(first);
        assert!(waiter.await.unwrap());
    }
}
