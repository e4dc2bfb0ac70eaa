//! Fans the event log's global feed out to `WatchGame` streams in this
//! process. The feed is the bus: on Redis a stream every referee sees, so a
//! watcher here also sees games another referee owns. The feed is followed
//! only while someone watches, so a referee without watchers spends nothing
//! on it.

use futures::StreamExt;
use mafia_event_log::{EventLog, FeedCursor, LogError};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{broadcast, watch, Notify};

/// A stored event as it came off the feed: its seq and raw payload.
pub type FeedItem = Arc<(u64, bytes::Bytes)>;

/// Per-game channel depth; a watcher that falls further behind catches up
/// from the log.
const PER_GAME_BUFFER: usize = 256;

/// How often channels nobody listens to are dropped (and the feed paused
/// when none are left).
const PRUNE_EVERY: Duration = Duration::from_secs(5);

pub struct FeedHub {
    senders: Mutex<HashMap<String, broadcast::Sender<FeedItem>>>,
    wake: Notify,
    /// True while the feed is being followed from a cursor taken after the
    /// newest subscription, so live events cannot slip past a watcher.
    running: watch::Sender<bool>,
}

impl Default for FeedHub {
    fn default() -> Self {
        FeedHub {
            senders: Mutex::new(HashMap::new()),
            wake: Notify::new(),
            running: watch::Sender::new(false),
        }
    }
}

impl FeedHub {
    /// Subscribes to a game's live events. Call [`FeedHub::live`] before
    /// reading the log, so that everything after that read arrives here.
    pub fn subscribe(&self, key: &str) -> broadcast::Receiver<FeedItem> {
        let rx = self
            .senders
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(key.to_owned())
            .or_insert_with(|| broadcast::channel(PER_GAME_BUFFER).0)
            .subscribe();
        self.wake.notify_one();
        rx
    }

    /// Resolves once the feed is being followed.
    pub async fn live(&self) {
        let mut rx = self.running.subscribe();
        let _ = rx.wait_for(|v| *v).await;
    }

    fn dispatch(&self, game: &str, item: FeedItem) {
        let senders = self.senders.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(tx) = senders.get(game) {
            let _ = tx.send(item);
        }
    }

    /// Drops channels without receivers. Returns whether any are left; when
    /// none are, marks the feed stopped under the same lock a subscriber
    /// takes, so a new subscriber always wakes the follower again.
    fn prune(&self) -> bool {
        let mut senders = self.senders.lock().unwrap_or_else(|e| e.into_inner());
        senders.retain(|_, tx| tx.receiver_count() > 0);
        if senders.is_empty() {
            self.running.send_replace(false);
            false
        } else {
            true
        }
    }

    /// Follows the feed while anyone watches, until shutdown.
    pub async fn run(self: Arc<Self>, log: Arc<dyn EventLog>, mut shutdown: watch::Receiver<bool>) {
        loop {
            // Idle until someone subscribes.
            while !self.prune() {
                tokio::select! {
                    _ = crate::stopped(&mut shutdown) => return,
                    _ = self.wake.notified() => {}
                }
            }
            let mut cursor = match log.feed_head().await {
                Ok(c) => c,
                Err(e) => {
                    tracing::warn!(error = %e, "feed head unavailable; retrying");
                    tokio::select! {
                        _ = crate::stopped(&mut shutdown) => return,
                        _ = tokio::time::sleep(Duration::from_millis(500)) => continue,
                    }
                }
            };
            self.running.send_replace(true);
            let mut prune = tokio::time::interval(PRUNE_EVERY);
            prune.tick().await;
            'follow: loop {
                let mut feed = log.feed(cursor.clone());
                loop {
                    tokio::select! {
                        _ = crate::stopped(&mut shutdown) => return,
                        _ = prune.tick() => {
                            if !self.prune() {
                                break 'follow;
                            }
                        }
                        item = feed.next() => match item {
                            Some(Ok((c, entry))) => {
                                cursor = c;
                                self.dispatch(&entry.game, Arc::new((entry.seq, entry.payload)));
                            }
                            Some(Err(LogError::FeedTrimmed { .. })) => {
                                // Watchers notice the gap and read the log.
                                cursor = log.feed_head().await.unwrap_or_else(|_| FeedCursor::now());
                                break;
                            }
                            Some(Err(e)) => {
                                tracing::warn!(error = %e, "feed failed; resuming");
                                break;
                            }
                            None => break,
                        }
                    }
                }
                drop(feed);
                tokio::select! {
                    _ = crate::stopped(&mut shutdown) => return,
                    _ = tokio::time::sleep(Duration::from_millis(200)) => {}
                }
            }
        }
    }
}
