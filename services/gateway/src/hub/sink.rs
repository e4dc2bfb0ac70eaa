//! Subscribers' bounded queues. A queue that fills up is cut: the
//! subscriber learns it lagged and subscribes again for a fresh snapshot.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use bytes::Bytes;
use tokio::sync::mpsc;

/// Counters for tests, logs and the benchmark.
#[derive(Default, Debug)]
pub struct Stats {
    /// Messages queued to subscribers.
    pub deliveries: AtomicU64,
    /// Subscribers cut back because their queue was full.
    pub lagged: AtomicU64,
    /// Events folded from the log.
    pub events: AtomicU64,
    /// Shared GraphQL subscriptions: selections executed (once per event
    /// per group of subscribers with the same operation).
    pub graphql_group_executions: AtomicU64,
    /// Shared GraphQL payloads queued to subscribers.
    pub graphql_shared_deliveries: AtomicU64,
}

/// A subscriber's end of a game's feed: the catch-up messages to send first,
/// then the live queue. Dropping it unsubscribes.
pub struct Subscription {
    /// A snapshot, or the deltas after the requested sequence.
    pub initial: Vec<Bytes>,
    /// The audience sequence the subscription starts after.
    pub seq: u64,
    rx: mpsc::Receiver<Bytes>,
    lagged: Arc<AtomicBool>,
}

/// Why a live queue ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// The subscriber fell `queue_capacity` messages behind; subscribe again
    /// without `from` for a fresh snapshot.
    Lagged,
    /// The hub shut down.
    Closed,
}

impl Subscription {
    /// The next live message, or why there are no more.
    pub async fn recv(&mut self) -> Result<Bytes, Ended> {
        match self.rx.recv().await {
            Some(b) => Ok(b),
            None if self.lagged.load(Ordering::Acquire) => Err(Ended::Lagged),
            None => Err(Ended::Closed),
        }
    }

    /// A live message if one is queued, without waiting.
    pub fn try_recv(&mut self) -> Option<Bytes> {
        self.rx.try_recv().ok()
    }

    pub fn is_lagged(&self) -> bool {
        self.lagged.load(Ordering::Acquire)
    }
}

pub(crate) struct Sink {
    tx: mpsc::Sender<Bytes>,
    lagged: Arc<AtomicBool>,
    /// Hall subscribers: the games they may see (`None` = all).
    pub(crate) games: Option<Arc<crate::auth::Games>>,
}

impl Sink {
    pub(crate) fn new(
        capacity: usize,
        games: Option<Arc<crate::auth::Games>>,
        initial: Vec<Bytes>,
        seq: u64,
    ) -> (Sink, Subscription) {
        let (tx, rx) = mpsc::channel(capacity.max(1));
        let lagged = Arc::new(AtomicBool::new(false));
        (
            Sink {
                tx,
                lagged: lagged.clone(),
                games,
            },
            Subscription {
                initial,
                seq,
                rx,
                lagged,
            },
        )
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }

    /// Queues `msg`; false when the sink must be dropped (full or gone).
    pub(crate) fn offer(&self, msg: &Bytes, stats: &Stats) -> bool {
        match self.tx.try_send(msg.clone()) {
            Ok(()) => {
                stats.deliveries.fetch_add(1, Ordering::Relaxed);
                true
            }
            Err(mpsc::error::TrySendError::Full(_)) => {
                self.lagged.store(true, Ordering::Release);
                stats.lagged.fetch_add(1, Ordering::Relaxed);
                false
            }
            Err(mpsc::error::TrySendError::Closed(_)) => false,
        }
    }
}
