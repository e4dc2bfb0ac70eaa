//! Orderly shutdown of the WebSocket connections: on Ctrl-C every socket
//! (raw feed, hall, GraphQL) is closed with 1001 "going away" (FEED.md)
//! before the process exits, instead of being dropped mid-stream.

use std::future::Future;
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes};
use futures::{Sink, SinkExt};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// The close code every connection gets when the gateway shuts down.
pub const GOING_AWAY: u16 = 1001;

/// Shared by every handler: the signal to close, and the connections still
/// open, so shutdown can wait for their close frames to go out.
#[derive(Clone, Default)]
pub struct Closing {
    signal: CancellationToken,
    open: TaskTracker,
}

impl Closing {
    /// Runs one connection's task, counted until it ends.
    pub fn track<F>(&self, connection: F) -> impl Future<Output = ()> + Send + 'static
    where
        F: Future<Output = ()> + Send + 'static,
    {
        self.open.track_future(connection)
    }

    /// WebSocket connections open now.
    pub fn open(&self) -> usize {
        self.open.len()
    }

    /// Resolves when the gateway starts shutting down.
    pub async fn started(&self) {
        self.signal.cancelled().await
    }

    /// Tells every connection to close, then waits (at most `grace`) for them.
    pub async fn close_all(&self, grace: Duration) {
        self.signal.cancel();
        self.open.close();
        if tokio::time::timeout(grace, self.open.wait()).await.is_err() {
            tracing::warn!(
                open = self.open.len(),
                "connections still open after the shutdown grace period"
            );
        }
    }
}

/// The close code for a client frame or message over the size limit.
pub const TOO_BIG: u16 = 1009;

/// A close frame with a fixed reason.
pub fn frame(code: u16, reason: &'static str) -> CloseFrame {
    CloseFrame {
        code,
        reason: Utf8Bytes::from_static(reason),
    }
}

/// Sends `frame` as the connection's last message, giving up after
/// `within`: a client that stopped reading must not hold the task.
pub async fn send_close<S>(tx: &mut S, within: Duration, frame: CloseFrame)
where
    S: Sink<Message> + Unpin,
{
    let _ = tokio::time::timeout(within, tx.send(Message::Close(Some(frame)))).await;
}

/// The close frame a failed read deserves: 1009 when the client sent more
/// than the limit (RFC 6455 §7.4.1), none when the connection is just gone.
pub fn after_read_error(e: axum::Error) -> Option<CloseFrame> {
    use tokio_tungstenite::tungstenite::Error;
    match e.into_inner().downcast_ref::<Error>() {
        Some(Error::Capacity(_)) => Some(frame(TOO_BIG, "message too big")),
        _ => None,
    }
}
