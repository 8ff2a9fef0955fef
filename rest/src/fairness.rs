//! Fair shares of the database. Three rules decide when and where a REST request may start:
//! - one client address runs at most `per_client` requests at a time;
//! - an address that already runs one may start another only while fewer than half of all
//!   connections are busy. The other half is kept for addresses that run nothing yet;
//! - an address that runs nothing, arriving when every connection of the pool is busy, runs on
//!   the reserve: a few connections beyond the pool that no address already running something
//!   ever gets.
//!
//! So a few slow or hostile addresses together cannot hold every connection: after one address
//! has taken half, it takes as many more addresses as the other half has connections, each with
//! one request running, to fill the pool, and then as many again as the reserve has connections
//! before a newcomer waits for one of theirs to end (with the pool's ten and a reserve of five:
//! ten addresses leave a newcomer a connection at once). Requests past a share wait behind it,
//! not in front of other clients. Requests already running end at their role's statement
//! timeout.
//!
//! A request runs on its worker thread's pool (a lane) while that has a connection free, else
//! on another lane's, so the shares are of the whole pool. The shares are per process: each
//! replica protects its own pool.

use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;

pub struct ClientSlots {
    /// Most requests one address runs at once; 0 turns fair shares off.
    per_client: usize,
    /// Connections in all lanes.
    total: usize,
    /// Connections of the reserve.
    reserve: usize,
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
    /// Requests running in the lanes.
    busy: usize,
    /// Requests running on the reserve.
    reserved: usize,
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

/// Where a request runs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Place {
    /// The pool of this lane id.
    Lane(u64),
    /// The reserve.
    Reserve,
}

/// A running request's share; released on drop.
pub struct Slot {
    pub place: Place,
    held: Option<(Arc<ClientSlots>, String)>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let Some((owner, client)) = self.held.take() else {
            return;
        };
        {
            let mut s = owner.state.lock();
            if let Some(n) = s.by_client.get_mut(&client) {
                *n -= 1;
                if *n == 0 {
                    s.by_client.remove(&client);
                }
            }
            match self.place {
                Place::Lane(lane) => {
                    if let Some((_, busy)) = s.lanes.get_mut(&lane) {
                        *busy -= 1;
                    }
                    s.busy -= 1;
                }
                Place::Reserve => s.reserved -= 1,
            }
        }
        owner.freed.notify_waiters();
    }
}

impl ClientSlots {
    /// Shares of the connections in `lanes`, and `reserve` connections for newcomers.
    pub fn new(per_client: usize, lanes: Vec<Lane>, reserve: usize) -> Arc<ClientSlots> {
        let total = lanes.iter().map(|l| l.size).sum();
        let state = State {
            lanes: lanes.iter().map(|l| (l.id, (l.size, 0))).collect(),
            ..State::default()
        };
        Arc::new(ClientSlots {
            per_client,
            total,
            reserve,
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
                place: Place::Lane(own.id),
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
        let mut s = self.state.lock();
        let mine = s.by_client.get(client).copied().unwrap_or(0);
        if mine >= self.per_client || (mine > 0 && s.busy >= self.total / 2) {
            return None;
        }
        let own_busy = s.lanes.entry(own.id).or_insert((own.size, 0)).1;
        // The own lane while it has a connection free, else the least busy lane that has one,
        // else (for an address running nothing) the reserve while it has one free, else the
        // own lane's queue.
        let free = if own_busy < own.size {
            Some(own.id)
        } else {
            s.lanes
                .iter()
                .filter(|(_, (size, busy))| busy < size)
                .min_by_key(|(_, (_, busy))| *busy)
                .map(|(id, _)| *id)
        };
        let place = match free {
            Some(lane) => Place::Lane(lane),
            None if mine == 0 && s.reserved < self.reserve => Place::Reserve,
            None => Place::Lane(own.id),
        };
        match s.by_client.get_mut(client) {
            Some(n) => *n += 1,
            None => {
                s.by_client.insert(client.to_string(), 1);
            }
        }
        match place {
            Place::Lane(lane) => {
                s.lanes.get_mut(&lane).expect("lane seen").1 += 1;
                s.busy += 1;
            }
            Place::Reserve => s.reserved += 1,
        }
        Some(Slot {
            place,
            held: Some((self.clone(), client.to_string())),
        })
    }

    #[cfg(test)]
    fn tracked(&self) -> (usize, usize, usize) {
        let s = self.state.lock();
        (s.by_client.len(), s.busy, s.reserved)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WAIT: Duration = Duration::from_millis(50);
    const LANE: Lane = Lane { id: 1, size: 10 };

    #[tokio::test]
    async fn one_address_cannot_take_every_slot() {
        let slots = ClientSlots::new(2, vec![LANE], 0);
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
            (1, 1, 0),
            "addresses with nothing running are forgotten"
        );
        let off = ClientSlots::new(0, vec![LANE], 0);
        let _many: Vec<_> =
            futures_util::future::join_all((0..10).map(|_| off.acquire("a", LANE, WAIT))).await;
    }

    /// Four addresses each asking for all they may, the first before the others arrive, leave
    /// room for newcomers.
    #[tokio::test]
    async fn several_addresses_together_leave_room_for_newcomers() {
        let slots = ClientSlots::new(5, vec![LANE], 0);
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
        let slots = ClientSlots::new(1, vec![a, b], 0);
        let mut held = Vec::new();
        for who in ["v", "w", "x", "y", "z"] {
            held.push(slots.acquire(who, a, WAIT).await.unwrap());
        }
        let lanes: Vec<Place> = held.iter().map(|s| s.place).collect();
        assert_eq!(
            lanes,
            [0, 0, 1, 1, 0].map(Place::Lane),
            "a lane no request came through yet is borrowed too; all full: the own lane's queue"
        );
    }

    /// As many addresses as the pool has connections, each running one request: a newcomer
    /// starts at once on the reserve, which an address already running something never gets;
    /// with the reserve full too, newcomers queue on their own lane as before.
    #[tokio::test]
    async fn the_reserve_is_for_addresses_running_nothing() {
        let slots = ClientSlots::new(5, vec![LANE], 2);
        let mut held = Vec::new();
        for i in 0..10 {
            held.push(slots.acquire(&format!("a{i}"), LANE, WAIT).await.unwrap());
        }
        assert!(held.iter().all(|s| s.place == Place::Lane(1)));
        assert!(
            slots.acquire("a0", LANE, WAIT).await.is_none(),
            "a second request of a0 waits"
        );
        let newcomer = slots.acquire("n0", LANE, WAIT).await.unwrap();
        assert_eq!(newcomer.place, Place::Reserve);
        assert!(slots.acquire("n0", LANE, WAIT).await.is_none());
        let second = slots.acquire("n1", LANE, WAIT).await.unwrap();
        assert_eq!(second.place, Place::Reserve);
        let third = slots.acquire("n2", LANE, WAIT).await.unwrap();
        assert_eq!(third.place, Place::Lane(1), "the reserve is full");
        assert_eq!(slots.tracked(), (13, 11, 2));
        drop((newcomer, second, third));
        drop(held.pop());
        let back = slots.acquire("n3", LANE, WAIT).await.unwrap();
        assert_eq!(back.place, Place::Lane(1), "the pool first");
        assert_eq!(slots.tracked(), (10, 10, 0));
    }

    #[tokio::test]
    async fn a_waiting_request_starts_when_a_slot_frees() {
        let slots = ClientSlots::new(1, vec![LANE], 0);
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
