//! The clock tokens are issued and checked by: the real one, moved by an offset the workbench
//! sets (tests move time forward to see tokens and signed URLs expire).

use std::sync::atomic::{AtomicI64, Ordering};

/// Seconds added to the real clock. Zero unless a test sets it.
static CLOCK_OFFSET: AtomicI64 = AtomicI64::new(0);

/// Moves the tokens' clock by `seconds` from the real one (0: the real clock).
pub fn set_clock_offset(seconds: i64) {
    CLOCK_OFFSET.store(seconds, Ordering::Relaxed);
}

pub fn clock_offset() -> i64 {
    CLOCK_OFFSET.load(Ordering::Relaxed)
}

/// The time tokens are issued and checked at, in seconds since the epoch.
pub fn now() -> i64 {
    chrono::Utc::now().timestamp() + clock_offset()
}
