//! One task pings every WebSocket connection (raw feed and GraphQL) that
//! has been silent for an interval, and closes the silent and the stuck
//! ones, in place of a timer in each connection's task: an idle connection
//! then holds no timer, and its task's future is smaller by the timer and
//! its ticks (issue 15: memory per idle connection).
//!
//! Connections sit in [`BUCKETS`] buckets; each tick, `ping_interval /
//! BUCKETS` apart, visits one, so every connection is visited once per
//! `ping_interval` and the pings of many connections are spread over the
//! interval instead of leaving in one burst.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

use super::conn::{Conn, Overdue};
use super::frame;

const BUCKETS: usize = 16;

/// How a connection is kept: pinged, and closed when silent or stuck.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    pub ping_interval: Duration,
    /// No message from the client (a pong counts) for this long: closed
    /// with 1000 "idle".
    pub idle_timeout: Duration,
    /// Frames waiting and none written for this long: the client stopped
    /// reading, and the connection is dropped without a goodbye.
    pub send_timeout: Duration,
}

/// The shared keeper; clones share its connections and its task.
#[derive(Clone)]
pub struct Keepalive {
    inner: Arc<Inner>,
}

struct Inner {
    timing: Timing,
    buckets: [Mutex<Vec<Weak<Conn>>>; BUCKETS],
    next: AtomicUsize,
    started: OnceLock<()>,
}

impl Keepalive {
    pub fn new(timing: Timing) -> Keepalive {
        Keepalive {
            inner: Arc::new(Inner {
                timing,
                buckets: std::array::from_fn(|_| Mutex::new(Vec::new())),
                next: AtomicUsize::new(0),
                started: OnceLock::new(),
            }),
        }
    }

    /// Keeps `conn` from now on, until it closes. Must be called inside a
    /// tokio runtime: the first call starts the keeper's task there.
    pub fn keep(&self, conn: &Arc<Conn>) {
        self.inner.started.get_or_init(|| {
            tokio::spawn(run(Arc::downgrade(&self.inner), self.inner.timing));
        });
        let i = self.inner.next.fetch_add(1, Ordering::Relaxed) % BUCKETS;
        self.inner.buckets[i]
            .lock()
            .expect("keepalive bucket")
            .push(Arc::downgrade(conn));
    }
}

/// Ends when every [`Keepalive`] handle is gone.
async fn run(inner: Weak<Inner>, timing: Timing) {
    let tick = timing.ping_interval / BUCKETS as u32;
    let mut ticks = tokio::time::interval(tick.max(Duration::from_millis(1)));
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let ping = frame::ping();
    // A client silent for a whole interval, less the tick, is pinged: one
    // that answers at once is then pinged every interval, the first time
    // about an interval after it connected.
    let ping_after = timing.ping_interval.saturating_sub(tick);
    for bucket in (0..BUCKETS).cycle() {
        ticks.tick().await;
        let Some(inner) = inner.upgrade() else {
            return;
        };
        let now = Instant::now();
        // Taken out of the lock, so the sends do not hold up `keep`.
        let conns = std::mem::take(&mut *inner.buckets[bucket].lock().expect("keepalive bucket"));
        let mut kept = Vec::with_capacity(conns.len());
        for weak in conns {
            let Some(conn) = weak.upgrade() else {
                continue;
            };
            match conn.overdue(now, ping_after, timing.idle_timeout, timing.send_timeout) {
                Overdue::Closed => continue,
                Overdue::Stuck => {
                    conn.close();
                    continue;
                }
                Overdue::Idle => {
                    conn.mark_idle();
                    continue;
                }
                Overdue::Ping => {
                    conn.reply(&ping);
                }
                Overdue::No => {}
            }
            kept.push(weak);
        }
        inner.buckets[bucket]
            .lock()
            .expect("keepalive bucket")
            .append(&mut kept);
    }
}
