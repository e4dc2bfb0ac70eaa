//! One feed per process, fanned out to followers of single games. On Redis
//! a feed is a connection blocked on the global stream, so many watchers of
//! games share one [`follow`] instead of opening one each. The feed is
//! followed only while someone follows a game.

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use futures::stream::BoxStream;
use futures::StreamExt;
use tokio::sync::{broadcast, watch, Notify};

use crate::follow::{
    follow, into_stream, read_range, Flow, FollowConfig, Followed, Next, Offer, Step,
};
use crate::{EventLog, LogError, StoredEvent};

/// Tuning for a [`Fanout`].
#[derive(Debug, Clone)]
pub struct FanoutConfig {
    /// Live events queued per game; a follower further behind re-reads the
    /// game's log (and yields [`GameFollowed::Lagged`]).
    pub per_game_buffer: usize,
    /// How often games nobody follows are dropped (and the feed paused when
    /// none are left).
    pub prune_every: Duration,
    pub follow: FollowConfig,
}

impl Default for FanoutConfig {
    fn default() -> Self {
        FanoutConfig {
            per_game_buffer: 256,
            prune_every: Duration::from_secs(5),
            follow: FollowConfig::default(),
        }
    }
}

/// What the fan-out sends a game's followers.
#[derive(Debug, Clone)]
enum Live {
    Event(u64, Bytes),
    /// The feed lost entries (trimmed): re-read the log.
    Resync,
}

/// What a follower of one game yields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GameFollowed {
    /// The next event, in seq order, each once.
    Event(StoredEvent),
    /// The game's log has been read to its end; what follows is live.
    /// Yielded once.
    CaughtUp,
    /// The follower fell behind the live channel; it re-reads the game's log
    /// (the events that follow still have no gap).
    Lagged,
}

pub type GameStream = BoxStream<'static, Result<GameFollowed, LogError>>;

pub struct Fanout {
    log: Arc<dyn EventLog>,
    config: FanoutConfig,
    senders: Mutex<HashMap<String, broadcast::Sender<Live>>>,
    wake: Notify,
    /// True while the feed is followed from a cursor taken after the newest
    /// subscription, so live events cannot slip past a follower.
    running: watch::Sender<bool>,
}

impl Fanout {
    pub fn new(log: Arc<dyn EventLog>, config: FanoutConfig) -> Arc<Fanout> {
        Arc::new(Fanout {
            log,
            config,
            senders: Mutex::new(HashMap::new()),
            wake: Notify::new(),
            running: watch::Sender::new(false),
        })
    }

    fn senders(&self) -> std::sync::MutexGuard<'_, HashMap<String, broadcast::Sender<Live>>> {
        self.senders.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn subscribe(&self, game: &str) -> broadcast::Receiver<Live> {
        let buffer = self.config.per_game_buffer.max(1);
        let rx = self
            .senders()
            .entry(game.to_owned())
            .or_insert_with(|| broadcast::channel(buffer).0)
            .subscribe();
        self.wake.notify_one();
        rx
    }

    fn dispatch(&self, game: &str, item: Live) {
        if let Some(tx) = self.senders().get(game) {
            let _ = tx.send(item);
        }
    }

    fn resync_all(&self) {
        for tx in self.senders().values() {
            let _ = tx.send(Live::Resync);
        }
    }

    /// Drops games without followers. Returns whether any are left; when
    /// none are, marks the feed stopped under the same lock a subscriber
    /// takes, so a new subscriber always wakes the loop again.
    fn prune(&self) -> bool {
        let mut senders = self.senders();
        senders.retain(|_, tx| tx.receiver_count() > 0);
        if senders.is_empty() {
            self.running.send_replace(false);
            false
        } else {
            true
        }
    }

    /// Follows the feed while anyone follows a game, until `shutdown`
    /// resolves or the log shuts down.
    pub async fn run(self: Arc<Self>, shutdown: impl Future<Output = ()>) {
        tokio::pin!(shutdown);
        loop {
            while !self.prune() {
                tokio::select! {
                    _ = &mut shutdown => return,
                    _ = self.wake.notified() => {}
                }
            }
            let head = loop {
                match self.log.feed_head().await {
                    Ok(c) => break c,
                    Err(e) => {
                        tracing::warn!(error = %e, "feed head unavailable; retrying");
                        tokio::select! {
                            _ = &mut shutdown => return,
                            _ = tokio::time::sleep(self.config.follow.retry_after) => {}
                        }
                    }
                }
            };
            let mut feed = follow(self.log.clone(), head, self.config.follow.clone());
            self.running.send_replace(true);
            let mut prune = tokio::time::interval(self.config.prune_every);
            prune.tick().await;
            loop {
                tokio::select! {
                    _ = &mut shutdown => return,
                    _ = prune.tick() => {
                        if !self.prune() {
                            break;
                        }
                    }
                    item = feed.next() => match item {
                        Some(Ok(Followed::Event(e))) => self.dispatch(&e.game, Live::Event(e.seq, e.payload)),
                        Some(Ok(Followed::CaughtUp | Followed::Passed { .. })) => {}
                        Some(Ok(Followed::Trimmed { .. })) => self.resync_all(),
                        // The follower resumes by itself.
                        Some(Err(e)) => tracing::warn!(error = %e, "feed interrupted"),
                        None => return,
                    }
                }
            }
        }
    }

    /// Follows `game` from `from_seq` (0 or 1: from its first event): its
    /// log up to the end, [`GameFollowed::CaughtUp`], then live events, each
    /// once and in order. Needs [`Fanout::run`] running.
    pub fn follow_game(self: &Arc<Self>, game: &str, from_seq: u64) -> GameStream {
        // Subscribed before the log is read, so nothing falls between the two.
        let rx = self.subscribe(game);
        let state = GameFollower {
            fanout: self.clone(),
            game: game.to_owned(),
            rx,
            next: Next(from_seq.max(1)),
            live: false,
            read: true,
            caught_up: false,
        };
        into_stream(state)
    }
}

struct GameFollower {
    fanout: Arc<Fanout>,
    game: String,
    rx: broadcast::Receiver<Live>,
    next: Next,
    /// Whether the feed was seen running since subscribing.
    live: bool,
    /// Whether the log must be read before the live channel.
    read: bool,
    caught_up: bool,
}

impl Step for GameFollower {
    type Item = Result<GameFollowed, LogError>;

    async fn step(&mut self, out: &mut VecDeque<Self::Item>) -> Flow {
        if !self.live {
            let mut running = self.fanout.running.subscribe();
            let _ = running.wait_for(|v| *v).await;
            self.live = true;
        }
        let config = &self.fanout.config.follow;
        if self.read {
            let log = self.fanout.log.as_ref();
            return match read_range(log, &self.game, self.next.0, None, config.read_batch).await {
                Ok(events) => {
                    self.read = false;
                    for e in events {
                        self.next = Next(e.seq + 1);
                        out.push_back(Ok(GameFollowed::Event(e)));
                    }
                    if !self.caught_up {
                        self.caught_up = true;
                        out.push_back(Ok(GameFollowed::CaughtUp));
                    }
                    Flow::Go
                }
                Err(e) => {
                    out.push_back(Err(e));
                    Flow::Retry(config.retry_after)
                }
            };
        }
        match self.rx.recv().await {
            Ok(Live::Event(seq, payload)) => match self.next.offer(seq) {
                Offer::Skip => {}
                Offer::Take => {
                    self.next = Next(seq + 1);
                    out.push_back(Ok(GameFollowed::Event(StoredEvent { seq, payload })));
                }
                Offer::Gap { .. } => self.read = true,
            },
            Ok(Live::Resync) => self.read = true,
            Err(broadcast::error::RecvError::Lagged(_)) => {
                self.read = true;
                out.push_back(Ok(GameFollowed::Lagged));
            }
            Err(broadcast::error::RecvError::Closed) => return Flow::End,
        }
        Flow::Go
    }
}
