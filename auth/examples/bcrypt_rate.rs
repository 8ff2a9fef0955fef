//! Bare bcrypt (cost 10) verifications per second on N threads: the ceiling of password grants.
//! `cargo run --release -p auth --example bcrypt_rate -- <threads> <seconds>`

use std::time::{Duration, Instant};

fn main() {
    let mut args = std::env::args().skip(1);
    let threads: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(2);
    let secs: f64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(3.0);
    let hash = auth::password::hash("bloom-admin-123");
    let until = Instant::now() + Duration::from_secs_f64(secs);
    let counts: Vec<usize> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                let hash = hash.clone();
                s.spawn(move || {
                    let mut n = 0;
                    while Instant::now() < until {
                        assert!(auth::password::verify("bloom-admin-123", &hash));
                        n += 1;
                    }
                    n
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("worker"))
            .collect()
    });
    let total: usize = counts.iter().sum();
    println!("{:.1}", total as f64 / secs);
}
