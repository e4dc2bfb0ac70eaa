//! The fan-out. One [`Hub`] per process follows every game of the event
//! log, folds it with the rules engine and keeps, per game and audience,
//! the current snapshot and the recent deltas, each encoded once to shared
//! bytes. Connections only copy `Bytes` handles into bounded queues.
//!
//! Split as a sans-IO core and a shell: [`HubCore`] (`core.rs`) holds all
//! the state and takes each input with its time; this module is the tokio
//! shell around it: it follows the log ([`mafia_event_log::follow_games`]),
//! reads the clock, keeps the subscribers' queues (`sink.rs`), and has one
//! timer, set to the core's next deadline, for all delayed events.
//!
//! Hidden facts are filtered, and each audience's events numbered, by the
//! engine alone (`Game::fold_seen`, `Game::view`): the hub forwards what
//! it is given and adds only what the engine cannot know, the broadcast
//! delay.

mod core;
mod feed;
mod from_log;
mod game;
mod sink;

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use futures::{FutureExt, StreamExt};
use mafia_event_log::{
    follow_games, Event, EventLog, FollowConfig, FollowStream, Followed, FollowerLag, LogError,
    Source,
};
use mafia_record::GameId;
use mafia_rules::Audience;
use tokio::sync::watch;

use crate::ws::Conn;

use self::core::slot;
pub use self::core::{
    Arrival, CoreConfig, CoreError, HubCore, Now, Route, Transmit, AUDIENCES, MAX_HALL_TABLES,
};
pub use self::game::{AudienceEvent, GameInfo, GameState};
pub use self::sink::{Ended, Stats, Subscription};
use self::sink::{Outgoing, Sink};

/// The most events folded under one lock and delivered together: what the
/// follower has ready at once (a command's events, a burst), bounded so
/// that new subscribers and the timer are not held off for long.
const BATCH: usize = 64;

/// Tuning for a [`Hub`].
#[derive(Clone, Debug)]
pub struct HubConfig {
    /// How long the broadcast audience lags behind the live game.
    pub broadcast_delay: Duration,
    /// Messages a subscriber may have queued before it is cut back to a
    /// fresh snapshot. Small, because the messages are shared handles and
    /// a healthy client drains them at once.
    pub queue_capacity: usize,
    /// Deltas kept per game and audience for resuming; older resumes get a
    /// snapshot instead.
    pub history: usize,
    /// Events read from the log per call when loading a game.
    pub read_batch: usize,
    /// How long a finished game stays in memory after the broadcast saw
    /// its end; then its feeds and subscriptions go (its protocol stays
    /// in the log).
    pub retention: Duration,
}

impl Default for HubConfig {
    fn default() -> Self {
        HubConfig {
            broadcast_delay: Duration::from_secs(60),
            queue_capacity: 64,
            history: 4096,
            read_batch: 1024,
            retention: Duration::from_secs(3600),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum HubError {
    #[error("unknown game {0:?}")]
    UnknownGame(String),
    #[error("event log: {0}")]
    Log(#[from] LogError),
}

/// The core and the queues it sends to, under one lock: a subscriber's
/// catch-up and its registration happen between two inputs, so it misses
/// nothing and gets nothing twice.
struct State {
    core: HubCore,
    games: HashMap<GameId, [Vec<Sink>; 3]>,
    hall: [Vec<Sink>; 3],
    /// Every stream name of the log seen so far, parsed once: `None` for
    /// streams that are not games (e.g. the scoring service's
    /// `tournament.<id>` logs), which the hub skips.
    streams: HashMap<String, Option<Arc<GameId>>>,
}

impl State {
    /// Offers each message to its route's subscribers. A route's messages
    /// go out together, framed once for all the WebSocket connections
    /// among them and written to each in one go.
    fn deliver(&mut self, out: &mut Vec<Transmit>, hub: &Inner) {
        let (capacity, stats) = (hub.config.queue_capacity, &hub.stats);
        let started = std::time::Instant::now();
        let mut routes: Vec<(Route, Vec<Bytes>)> = Vec::new();
        for t in out.drain(..) {
            match routes.iter_mut().find(|(r, _)| *r == t.route) {
                Some((_, msgs)) => msgs.push(t.msg),
                None => routes.push((t.route, vec![t.msg])),
            }
        }
        for (route, msgs) in routes {
            let mut msg = Outgoing::new(&msgs);
            match route {
                Route::Game { game, audience } => {
                    if let Some(sinks) = self.games.get_mut(&*game) {
                        sinks[slot(audience)].retain(|s| s.offer(&mut msg, capacity, stats));
                    }
                }
                Route::Hall { game, audience } => {
                    self.hall[slot(audience)].retain(|s| {
                        if s.games.as_ref().is_some_and(|only| !only.contains(&game)) {
                            return !s.is_closed();
                        }
                        s.offer(&mut msg, capacity, stats)
                    });
                }
            }
        }
        stats.took(&stats.fanout_ns, started);
        self.forget_left();
    }

    /// Ends the subscriptions of the games that left the core's memory and
    /// forgets their streams' names.
    fn forget_left(&mut self) {
        for id in self.core.take_left() {
            if let Some(sinks) = self.games.remove(&*id) {
                sinks.iter().flatten().for_each(Sink::end);
            }
            self.streams.remove(&id.to_string());
        }
    }
}

struct Inner {
    log: Arc<dyn EventLog>,
    config: HubConfig,
    state: Mutex<State>,
    stats: Stats,
    closed: watch::Sender<bool>,
    /// Bumped after every input the core handled, so callers can wait for
    /// the hub to reach a state instead of polling it.
    progress: watch::Sender<u64>,
    /// The core's count of ends shown to a held audience
    /// ([`HubCore::ends`]): what the standings re-read on.
    ends: watch::Sender<u64>,
    /// How far the follower is behind the feed (`crate::metrics`).
    lag: FollowerLag,
}

/// The fan-out hub. Cheap to clone.
#[derive(Clone)]
pub struct Hub {
    inner: Arc<Inner>,
}

/// The clock, read by the shell only.
fn now() -> Now {
    Now {
        // tokio's clock, so that tests can pause and advance it.
        at: tokio::time::Instant::now().into_std(),
        unix_ms: unix_ms(),
    }
}

/// The wall clock in ms since the epoch: what judges stamp on commands,
/// so what screens count timers against (`GET /api/clock`).
pub fn unix_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

impl Hub {
    /// Loads every game in the log, then follows the log in a background
    /// task (which ends when the hub is dropped or [`Hub::close`]d).
    pub async fn start(log: Arc<dyn EventLog>, config: HubConfig) -> Result<Hub, HubError> {
        let hub = Hub {
            inner: Arc::new(Inner {
                log: log.clone(),
                state: Mutex::new(State {
                    core: HubCore::new(CoreConfig {
                        broadcast_delay: config.broadcast_delay,
                        history: config.history,
                        retention: config.retention,
                    }),
                    games: HashMap::new(),
                    hall: Default::default(),
                    streams: HashMap::new(),
                }),
                config,
                stats: Stats::default(),
                closed: watch::Sender::new(false),
                progress: watch::Sender::new(0),
                ends: watch::Sender::new(0),
                lag: FollowerLag::default(),
            }),
        };
        let mut follower = follow_games(
            log,
            FollowConfig {
                read_batch: hub.inner.config.read_batch,
                ..FollowConfig::default()
            },
        );
        // The history first, so that a started hub knows every game.
        loop {
            match follower.next().await {
                Some(Ok(Followed::CaughtUp)) => break,
                Some(Ok(Followed::Event(e))) => hub.handle_events(vec![e]).await,
                Some(Ok(Followed::Trimmed { .. })) => {}
                Some(Ok(Followed::Passed { cursor })) => hub.inner.lag.advanced(&cursor),
                Some(Err(e)) => return Err(e.into()),
                None => break,
            }
        }
        let closed = hub.inner.closed.subscribe();
        tokio::spawn(run(Arc::downgrade(&hub.inner), follower, closed));
        Ok(hub)
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.inner.state.lock().expect("hub lock")
    }

    fn progressed(&self) {
        let ends = self.lock().core.ends();
        self.inner
            .ends
            .send_if_modified(|n| std::mem::replace(n, ends) != ends);
        self.inner.progress.send_modify(|n| *n += 1);
    }

    /// Whether `audience`'s stream of `game` has shown its end, so what it
    /// reads besides (standings, exports) may include the game's result.
    /// A game the hub does not hold counts as shown: a started hub has
    /// read the whole log, so that is a finished game it let go.
    pub fn shown_end(&self, game: &GameId, audience: Audience) -> bool {
        self.lock().core.shown_end(game, audience).unwrap_or(true)
    }

    /// Changes each time a held audience is shown a game's end.
    pub fn watch_ends(&self) -> watch::Receiver<u64> {
        self.inner.ends.subscribe()
    }

    /// Feeds followed events to the core (loading a new game's header
    /// first) and delivers what they made, folding and delivering under
    /// one lock: a subscriber's catch-up comes before or after all of them.
    async fn handle_events(&self, batch: Vec<Event>) {
        let mut ready = Vec::with_capacity(batch.len());
        // The new games' hall messages, delivered ahead of their events.
        let mut out = Vec::new();
        for e in batch {
            self.inner.lag.advanced(&e.cursor);
            let Some(id) = self.stream(&e.game) else {
                continue;
            };
            if !self.lock().core.knows(&id) {
                let Some(header) = self.header(&e.game).await else {
                    continue;
                };
                if let Err(err) = self.lock().core.add_game(&id, &header, &mut out) {
                    tracing::warn!(game = e.game, error = %err, "game skipped");
                }
            }
            ready.push((id, e));
        }
        {
            let mut st = self.lock();
            let started = std::time::Instant::now();
            let now = now();
            for (id, e) in &ready {
                let arrival = match e.source {
                    Source::Feed => Arrival::Live,
                    Source::Log => Arrival::Logged,
                };
                match st
                    .core
                    .handle_event(id, e.seq, &e.payload, arrival, now, &mut out)
                {
                    Ok(true) => {
                        self.inner.stats.events.fetch_add(1, Ordering::Relaxed);
                    }
                    Ok(false) => {}
                    Err(err) => tracing::warn!(game = e.game, error = %err, "event skipped"),
                }
            }
            self.inner.stats.took(&self.inner.stats.fold_ns, started);
            st.deliver(&mut out, &self.inner);
        }
        self.progressed();
    }

    /// The game a stream of the log holds, parsed the first time the
    /// stream is seen; `None` for a stream that is not a game.
    fn stream(&self, name: &str) -> Option<Arc<GameId>> {
        let mut st = self.lock();
        if let Some(known) = st.streams.get(name) {
            return known.clone();
        }
        let parsed = match name.parse::<GameId>() {
            Ok(id) => Some(Arc::new(id)),
            Err(e) => {
                tracing::debug!(stream = name, error = %e, "not a game; skipped");
                None
            }
        };
        st.streams.insert(name.to_owned(), parsed.clone());
        parsed
    }

    /// A game's header, retried while the store fails (the follower has
    /// moved past the event, so giving up would lose the game).
    async fn header(&self, game: &str) -> Option<Bytes> {
        let mut closed = self.inner.closed.subscribe();
        loop {
            match self.inner.log.header(game).await {
                Ok(Some(h)) => return Some(h),
                Ok(None) => {
                    tracing::warn!(game, "event of a game without a header");
                    return None;
                }
                Err(e) => {
                    tracing::warn!(game, error = %e, "header unavailable; retrying");
                    let stopped = async {
                        let _ = closed.wait_for(|c| *c).await;
                    };
                    tokio::select! {
                        _ = stopped => return None,
                        _ = tokio::time::sleep(FollowConfig::default().retry_after) => {}
                    }
                }
            }
        }
    }

    fn handle_timeout(&self) {
        let mut out = Vec::new();
        {
            let mut st = self.lock();
            let started = std::time::Instant::now();
            st.core.handle_timeout(now().at, &mut out);
            self.inner.stats.took(&self.inner.stats.fold_ns, started);
            st.deliver(&mut out, &self.inner);
        }
        self.progressed();
    }

    /// Resolves once `done` holds, checking after every input the hub
    /// handles (or at once if it holds already).
    pub async fn wait_until(&self, mut done: impl FnMut(&Hub) -> bool) {
        let mut progress = self.inner.progress.subscribe();
        while !done(self) {
            if progress.changed().await.is_err() {
                return;
            }
        }
    }

    /// Stops following the log and closes every subscription.
    pub fn close(&self) {
        self.inner.closed.send_replace(true);
        let mut st = self.lock();
        let st = &mut *st;
        for sinks in st.games.values_mut().flatten().chain(st.hall.iter_mut()) {
            sinks.iter().for_each(Sink::end);
            sinks.clear();
        }
    }

    pub fn config(&self) -> &HubConfig {
        &self.inner.config
    }

    pub fn stats(&self) -> &Stats {
        &self.inner.stats
    }

    /// How far the hub's follower is behind the feed, and the log it follows.
    pub fn lag(&self) -> (&FollowerLag, &dyn EventLog) {
        (&self.inner.lag, &*self.inner.log)
    }

    /// Live subscriber queues (raw feed and GraphQL alike) per audience:
    /// on single games, and on the hall.
    pub fn subscribers(&self) -> [(Audience, usize, usize); 3] {
        let st = self.lock();
        let live = |sinks: &Vec<Sink>| sinks.iter().filter(|s| !s.is_closed()).count();
        AUDIENCES.map(|a| {
            let games = st.games.values().map(|s| live(&s[slot(a)])).sum();
            (a, games, live(&st.hall[slot(a)]))
        })
    }

    /// Every known game, sorted by the text of its id.
    pub fn games(&self) -> Vec<GameInfo> {
        self.lock().core.games()
    }

    pub fn has_game(&self, game_id: &GameId) -> bool {
        self.lock().core.has_game(game_id)
    }

    fn unknown(game_id: &GameId) -> HubError {
        HubError::UnknownGame(game_id.to_string())
    }

    /// A game's current state for `audience`.
    pub fn state(&self, game_id: &GameId, audience: Audience) -> Result<GameState, HubError> {
        self.lock()
            .core
            .state(game_id, audience)
            .ok_or_else(|| Self::unknown(game_id))
    }

    /// Up to `max` retained events with an audience sequence above `after`.
    pub fn events(
        &self,
        game_id: &GameId,
        audience: Audience,
        after: u64,
        max: usize,
    ) -> Result<Vec<AudienceEvent>, HubError> {
        self.lock()
            .core
            .events(game_id, audience, after, max)
            .ok_or_else(|| Self::unknown(game_id))
    }

    /// The whole history of a finished game (engine numbering, every event),
    /// or `None` while the game is still running for `audience` (judges
    /// may always read it; the broadcast only once its delayed game ended).
    pub fn protocol(
        &self,
        game_id: &GameId,
        audience: Audience,
    ) -> Result<Option<Vec<AudienceEvent>>, HubError> {
        self.lock()
            .core
            .protocol(game_id, audience)
            .ok_or_else(|| Self::unknown(game_id))
    }

    /// Subscribers registered on one game's feed, counting departed ones
    /// not yet pruned (they are pruned on each event and subscription).
    pub fn subscriber_count(&self, game_id: &GameId, audience: Audience) -> usize {
        self.lock()
            .games
            .get(game_id)
            .map_or(0, |s| s[slot(audience)].len())
    }

    /// Follows one game. With `from`, a client that has every message up
    /// to that sequence gets only the deltas after it (when still retained;
    /// otherwise a snapshot). Without, it gets a snapshot first.
    pub fn subscribe(
        &self,
        game_id: &GameId,
        audience: Audience,
        from: Option<u64>,
    ) -> Result<Subscription, HubError> {
        let mut st = self.lock();
        let (initial, seq) = st
            .core
            .catch_up(game_id, audience, from)
            .ok_or_else(|| Self::unknown(game_id))?;
        let (sink, sub) = Sink::new(self.inner.config.queue_capacity, None, initial, seq);
        let sinks = &mut st.games.entry(game_id.clone()).or_default()[slot(audience)];
        // Departed subscribers are otherwise dropped only when the next
        // event is offered, which a finished game never gets.
        sinks.retain(|s| !s.is_closed());
        sinks.push(sink);
        Ok(sub)
    }

    /// [`Hub::subscribe`] for a raw-feed WebSocket: the catch-up is
    /// framed onto the connection at once, and every later message is
    /// written to it by the fan-out. Called again after the connection
    /// lagged, without `from`, for a fresh snapshot.
    pub fn subscribe_conn(
        &self,
        game_id: &GameId,
        audience: Audience,
        from: Option<u64>,
        conn: &Arc<Conn>,
    ) -> Result<(), HubError> {
        let mut st = self.lock();
        let (initial, _) = st
            .core
            .catch_up(game_id, audience, from)
            .ok_or_else(|| Self::unknown(game_id))?;
        let sink = Sink::direct(conn.clone(), None, &initial);
        let sinks = &mut st.games.entry(game_id.clone()).or_default()[slot(audience)];
        sinks.retain(|s| !s.is_closed());
        sinks.push(sink);
        Ok(())
    }

    /// [`Hub::subscribe_hall`] for a raw-feed WebSocket.
    pub fn subscribe_hall_conn(
        &self,
        audience: Audience,
        games: Option<Arc<crate::auth::Games>>,
        conn: &Arc<Conn>,
    ) {
        let mut st = self.lock();
        let snapshot = st
            .core
            .hall_snapshot(audience, |id| games.as_ref().is_none_or(|s| s.contains(id)));
        let sink = Sink::direct(conn.clone(), games, &[snapshot]);
        let hall = &mut st.hall[slot(audience)];
        hall.retain(|s| !s.is_closed());
        hall.push(sink);
    }

    /// What [`Hub::subscribe`] would send first (and the sequence it
    /// starts after), without subscribing.
    pub fn initial(
        &self,
        game_id: &GameId,
        audience: Audience,
        from: Option<u64>,
    ) -> Result<(Vec<Bytes>, u64), HubError> {
        self.lock()
            .core
            .catch_up(game_id, audience, from)
            .ok_or_else(|| Self::unknown(game_id))
    }

    /// The `tables` message of the hall feed: every game (or only
    /// `games`) as `audience` sees it now.
    pub fn hall_snapshot(
        &self,
        audience: Audience,
        games: Option<&Arc<crate::auth::Games>>,
    ) -> Bytes {
        self.lock()
            .core
            .hall_snapshot(audience, |id| games.is_none_or(|s| s.contains(id)))
    }

    /// Follows every game (or only `games`): first a `tables` message
    /// with each game's state, then a `table` message on each change, and
    /// one with its info when a game opens (the hall feed's message
    /// names, kept for its existing clients).
    pub fn subscribe_hall(
        &self,
        audience: Audience,
        games: Option<Arc<crate::auth::Games>>,
    ) -> Subscription {
        let mut st = self.lock();
        let snapshot = st
            .core
            .hall_snapshot(audience, |id| games.as_ref().is_none_or(|s| s.contains(id)));
        let (sink, sub) = Sink::new(self.inner.config.queue_capacity, games, vec![snapshot], 0);
        let hall = &mut st.hall[slot(audience)];
        hall.retain(|s| !s.is_closed());
        hall.push(sink);
        sub
    }
}

/// Follows the log and wakes the core at its deadlines until the hub is
/// closed or dropped.
async fn run(hub: Weak<Inner>, mut follower: FollowStream, mut closed: watch::Receiver<bool>) {
    loop {
        let deadline = {
            let Some(inner) = hub.upgrade() else { return };
            let next = inner.state.lock().expect("hub lock").core.poll_timeout();
            next
        };
        let timer = async {
            match deadline {
                Some(d) => tokio::time::sleep_until(tokio::time::Instant::from_std(d)).await,
                None => std::future::pending().await,
            }
        };
        let stopped = async {
            let _ = closed.wait_for(|c| *c).await;
        };
        tokio::select! {
            _ = stopped => return,
            _ = timer => {
                let Some(inner) = hub.upgrade() else { return };
                Hub { inner }.handle_timeout();
            }
            item = follower.next() => {
                let Some(inner) = hub.upgrade() else { return };
                let hub = Hub { inner };
                let mut batch = Vec::new();
                let mut item = item;
                loop {
                    match item {
                        Some(Ok(Followed::Event(e))) => batch.push(e),
                        Some(Ok(Followed::CaughtUp)) => {}
                        Some(Ok(Followed::Passed { cursor })) => {
                            // After the events before it, or their cursors
                            // would set the gauge back.
                            hub.handle_events(std::mem::take(&mut batch)).await;
                            hub.inner.lag.advanced(&cursor);
                        }
                        Some(Ok(Followed::Trimmed { cursor, .. })) => {
                            tracing::warn!(%cursor, "feed trimmed past the hub; reading the games' logs");
                        }
                        // The follower resumes by itself.
                        Some(Err(e)) => tracing::warn!(error = %e, "event log interrupted"),
                        None => {
                            hub.handle_events(batch).await;
                            return;
                        }
                    }
                    if batch.len() >= BATCH {
                        break;
                    }
                    // What the follower has ready already goes with it, so
                    // a subscriber gets a command's events in one write.
                    match follower.next().now_or_never() {
                        Some(next) => item = next,
                        None => break,
                    }
                }
                if !batch.is_empty() {
                    hub.handle_events(batch).await;
                }
            }
        }
    }
}
