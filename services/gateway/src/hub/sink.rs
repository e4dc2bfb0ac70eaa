//! Subscribers' bounded queues. A queue that fills up is cut: the
//! subscriber learns it lagged and subscribes again for a fresh snapshot.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use bytes::Bytes;
use tokio::sync::mpsc;

use crate::ws::{frame, Conn};

/// Counters for tests, logs and the benchmark.
#[derive(Default, Debug)]
pub struct Stats {
    /// Messages queued to subscribers.
    pub deliveries: AtomicU64,
    /// Offers that queued them: one write each to a direct connection
    /// (the messages waiting at once go out together).
    pub offers: AtomicU64,
    /// Subscribers cut back because their queue was full.
    pub lagged: AtomicU64,
    /// Events folded from the log.
    pub events: AtomicU64,
    /// Shared GraphQL subscriptions: selections executed (once per event
    /// per group of subscribers with the same operation).
    pub graphql_group_executions: AtomicU64,
    /// Shared GraphQL payloads queued to subscribers.
    pub graphql_shared_deliveries: AtomicU64,
    /// Time spent folding events and encoding their messages (ns).
    pub fold_ns: AtomicU64,
    /// Time spent offering messages to subscribers, writes included (ns).
    pub fanout_ns: AtomicU64,
}

impl Stats {
    pub(crate) fn took(&self, counter: &AtomicU64, since: std::time::Instant) {
        counter.fetch_add(since.elapsed().as_nanos() as u64, Ordering::Relaxed);
    }
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

enum Target {
    /// A queue its owner drains (GraphQL groups, standings, tests).
    Queue {
        tx: mpsc::Sender<Bytes>,
        lagged: Arc<AtomicBool>,
    },
    /// A raw-feed WebSocket, written to from the fan-out. Weak: a
    /// finished game gets no event that would drop a departed client's
    /// sink, and its socket must not wait for one; the connection's task
    /// holds it, and it goes with the task.
    Direct(Weak<Conn>),
}

pub(crate) struct Sink {
    target: Target,
    /// Hall subscribers: the games they may see (`None` = all).
    pub(crate) games: Option<Arc<crate::auth::Games>>,
}

/// Messages on their way to a route's subscribers, in order: their JSON,
/// and their WebSocket frames, encoded at most once for all of them into
/// one buffer, which a connection takes in one write.
pub(crate) struct Outgoing<'a> {
    msgs: &'a [Bytes],
    frames: Option<Bytes>,
}

impl<'a> Outgoing<'a> {
    pub(crate) fn new(msgs: &'a [Bytes]) -> Self {
        Outgoing { msgs, frames: None }
    }

    fn frames(&mut self) -> &Bytes {
        let msgs = self.msgs;
        self.frames.get_or_insert_with(|| frame::texts(msgs))
    }
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
                target: Target::Queue {
                    tx,
                    lagged: lagged.clone(),
                },
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

    /// A WebSocket connection, sent its catch-up at once.
    pub(crate) fn direct(
        conn: Arc<Conn>,
        games: Option<Arc<crate::auth::Games>>,
        initial: &[Bytes],
    ) -> Sink {
        conn.rejoin();
        for msg in initial {
            conn.reply(&frame::text(msg));
        }
        Sink {
            target: Target::Direct(Arc::downgrade(&conn)),
            games,
        }
    }

    fn direct_conn(&self) -> Option<Arc<Conn>> {
        match &self.target {
            Target::Direct(conn) => conn.upgrade(),
            Target::Queue { .. } => None,
        }
    }

    pub(crate) fn is_closed(&self) -> bool {
        match &self.target {
            Target::Queue { tx, .. } => tx.is_closed(),
            Target::Direct(conn) => conn.upgrade().is_none_or(|c| c.is_closed()),
        }
    }

    /// The hub is closing: a direct connection is told (a queue learns it
    /// when its sender drops).
    pub(crate) fn end(&self) {
        if let Some(conn) = self.direct_conn() {
            conn.end();
        }
    }

    /// Sends or queues `msg`; false when the sink must be dropped (full,
    /// lagged or gone). `capacity` bounds a direct connection's backlog.
    pub(crate) fn offer(&self, msg: &mut Outgoing<'_>, capacity: usize, stats: &Stats) -> bool {
        match &self.target {
            Target::Queue { tx, lagged } => {
                for m in msg.msgs {
                    match tx.try_send(m.clone()) {
                        Ok(()) => {}
                        Err(mpsc::error::TrySendError::Full(_)) => {
                            lagged.store(true, Ordering::Release);
                            stats.lagged.fetch_add(1, Ordering::Relaxed);
                            return false;
                        }
                        Err(mpsc::error::TrySendError::Closed(_)) => return false,
                    }
                }
            }
            Target::Direct(conn) => {
                let Some(conn) = conn.upgrade() else {
                    return false;
                };
                if !conn.send(msg.frames(), capacity) {
                    if conn.status().lagged {
                        stats.lagged.fetch_add(1, Ordering::Relaxed);
                    }
                    return false;
                }
            }
        }
        let n = msg.msgs.len() as u64;
        stats.deliveries.fetch_add(n, Ordering::Relaxed);
        stats.offers.fetch_add(1, Ordering::Relaxed);
        true
    }
}
