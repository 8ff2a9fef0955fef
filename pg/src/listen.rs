//! `LISTEN` on a channel for as long as the process runs: reconnects with back-off and says so,
//! since notifications sent while disconnected are lost and the listener must catch up.

use crate::login::Login;
use futures_util::StreamExt;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_postgres::AsyncMessage;

pub enum Event {
    /// Listening (again): anything may have happened meanwhile.
    Connected,
    Notification(String),
}

/// Listens on `channel` in the background; events arrive on the returned queue.
pub fn listen(login: Login, channel: &'static str) -> mpsc::Receiver<Event> {
    let (tx, rx) = mpsc::channel(4096);
    tokio::spawn(async move {
        let mut backoff = Duration::from_millis(250);
        while !tx.is_closed() {
            match login.connect_raw().await {
                Ok((client, mut conn)) => {
                    backoff = Duration::from_millis(250);
                    let (ntx, mut nrx) = mpsc::unbounded_channel();
                    let pump = tokio::spawn(async move {
                        let mut stream =
                            futures_util::stream::poll_fn(move |cx| conn.poll_message(cx));
                        while let Some(Ok(msg)) = stream.next().await {
                            if let AsyncMessage::Notification(n) = msg {
                                let _ = ntx.send(n.payload().to_string());
                            }
                        }
                    });
                    if client
                        .batch_execute(&format!("LISTEN {channel}"))
                        .await
                        .is_ok()
                        && tx.send(Event::Connected).await.is_ok()
                    {
                        while let Some(payload) = nrx.recv().await {
                            if tx.send(Event::Notification(payload)).await.is_err() {
                                break;
                            }
                        }
                    }
                    pump.abort();
                    if !tx.is_closed() {
                        tracing::warn!("listener on {channel} disconnected; reconnecting");
                    }
                }
                Err(e) => tracing::warn!("listener on {channel} cannot connect: {e}"),
            }
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(Duration::from_secs(5));
        }
    });
    rx
}
