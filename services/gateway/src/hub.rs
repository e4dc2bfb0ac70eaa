//! The fan-out core. One [`Hub`] per process follows the event log's feed,
//! folds every game with the rules engine and keeps, per game and audience,
//! the current snapshot and the recent deltas, each encoded once to shared
//! bytes. Connections only copy `Bytes` handles into bounded queues.
//!
//! Hidden facts are filtered by the engine alone (`Game::view`,
//! `Event::for_audience`). The hub adds only what the engine cannot know:
//! the broadcast delay, and a per-audience sequence for the public so that
//! gaps in the numbering do not reveal how many hidden events happened.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use mafia_event_log::{EventLog, FeedCursor, LogError};
use mafia_record::{Header, LoggedEvent};
use mafia_rules::{Audience, Envelope, Game};
use serde::Serialize;
use serde_json::{json, Value};
use tokio::sync::mpsc;

use crate::patch;

/// The three audiences a feed is computed for, in [`Audience`] order.
pub const AUDIENCES: [Audience; 3] = [Audience::Public, Audience::Broadcast, Audience::Judge];

fn slot(a: Audience) -> usize {
    match a {
        Audience::Public => 0,
        Audience::Broadcast => 1,
        Audience::Judge => 2,
    }
}

/// Tuning for a [`Hub`].
#[derive(Clone, Debug)]
pub struct HubConfig {
    /// How long the broadcast audience lags behind the table.
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
}

impl Default for HubConfig {
    fn default() -> Self {
        HubConfig {
            broadcast_delay: Duration::from_secs(60),
            queue_capacity: 64,
            history: 4096,
            read_batch: 1024,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum HubError {
    #[error("unknown table {0:?}")]
    UnknownTable(String),
    #[error("event log: {0}")]
    Log(#[from] LogError),
}

/// What a table is, from its header: safe for every audience.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TableInfo {
    pub game_id: String,
    pub tournament: String,
    pub stage: String,
    pub round: u32,
    pub table: u32,
    pub game: u32,
    pub judge: String,
}

impl TableInfo {
    fn new(game_id: &str, h: &Header) -> Self {
        TableInfo {
            game_id: game_id.to_owned(),
            tournament: h.tournament.clone(),
            stage: h.stage.clone(),
            round: h.round,
            table: h.table,
            game: h.game,
            judge: h.judge.clone(),
        }
    }
}

/// One game as an audience sees it right now.
#[derive(Clone, Debug)]
pub struct TableState {
    pub info: TableInfo,
    /// The audience's sequence number of the last event in `view`.
    pub seq: u64,
    /// The engine's `GameView` as JSON, `seq` set to the audience's.
    pub view: Value,
    pub over: bool,
}

/// One event as an audience sees it, numbered in that audience's sequence.
#[derive(Clone, Debug, Serialize)]
pub struct AudienceEvent {
    pub seq: u64,
    pub at: i64,
    /// The accepted command's number; not given to the public, since the
    /// count of commands would betray hidden night actions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cmd: Option<u32>,
    pub event: mafia_rules::Event,
}

/// A subscriber's end of a table feed: the catch-up messages to send first,
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

struct Sink {
    tx: mpsc::Sender<Bytes>,
    lagged: Arc<AtomicBool>,
    /// Hall subscribers: the tables they may see (`None` = all).
    tables: Option<Arc<crate::auth::Games>>,
}

impl Sink {
    fn new(capacity: usize, tables: Option<Arc<crate::auth::Games>>) -> (Sink, Subscription) {
        let (tx, rx) = mpsc::channel(capacity.max(1));
        let lagged = Arc::new(AtomicBool::new(false));
        (
            Sink {
                tx,
                lagged: lagged.clone(),
                tables,
            },
            Subscription {
                initial: Vec::new(),
                seq: 0,
                rx,
                lagged,
            },
        )
    }

    /// Queues `msg`; false when the sink must be dropped (full or gone).
    fn offer(&self, msg: &Bytes, stats: &Stats) -> bool {
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

fn offer_all(sinks: &mut Vec<Sink>, msg: &Bytes, stats: &Stats) {
    sinks.retain(|s| s.offer(msg, stats));
}

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

struct Frame {
    seq: u64,
    bytes: Bytes,
    event: AudienceEvent,
}

/// One audience's feed of one game.
struct Feed {
    audience: Audience,
    seq: u64,
    over: bool,
    view: Value,
    snapshot: Bytes,
    frames: VecDeque<Frame>,
    sinks: Vec<Sink>,
}

impl Feed {
    /// `start` is the game as it stands right after its deal: the engine
    /// shows a game with no events yet as ended, roles and all, so the
    /// table's first snapshot is rendered from the dealt game instead.
    fn new(audience: Audience, game_id: &str, start: &Game) -> Feed {
        let mut feed = Feed {
            audience,
            seq: 0,
            over: false,
            view: Value::Null,
            snapshot: Bytes::new(),
            frames: VecDeque::new(),
            sinks: Vec::new(),
        };
        feed.view = feed.render(start);
        feed.snapshot = feed.encode_snapshot(game_id);
        feed
    }

    fn render(&self, game: &Game) -> Value {
        let mut v = serde_json::to_value(game.view(self.audience)).expect("views serialize");
        // The engine numbers every event; the public must not count hidden ones.
        v["seq"] = json!(self.seq);
        v
    }

    fn encode_snapshot(&self, game_id: &str) -> Bytes {
        encode(&json!({
            "type": "snapshot",
            "game_id": game_id,
            "seq": self.seq,
            "view": self.view,
        }))
    }

    /// Folds the event into the feed if this audience may see it; returns
    /// the hall message to publish when something was sent.
    fn push(
        &mut self,
        game_id: &str,
        env: &Envelope,
        game: &Game,
        history: usize,
        stats: &Stats,
    ) -> Option<Bytes> {
        // Once the game has a result the whole history may be shown (as in
        // `view::events_for`). Not `is_over()`: a game that has folded only
        // its deal is still at the engine's initial `Step::Ended`.
        let over = game.result().is_some();
        let event = if over {
            Some(env.event)
        } else {
            env.event.for_audience(self.audience)
        }?;
        self.over = over;
        self.seq += 1;
        let view = self.render(game);
        let patch = patch::diff(&self.view, &view).unwrap_or_else(|| json!({}));
        self.view = view;
        let event = AudienceEvent {
            seq: self.seq,
            at: env.at,
            cmd: (self.audience != Audience::Public).then_some(env.cmd),
            event,
        };
        let bytes = encode(&json!({
            "type": "delta",
            "game_id": game_id,
            "seq": self.seq,
            "event": event,
            "patch": patch,
        }));
        self.snapshot = self.encode_snapshot(game_id);
        offer_all(&mut self.sinks, &bytes, stats);
        self.frames.push_back(Frame {
            seq: self.seq,
            bytes,
            event,
        });
        while self.frames.len() > history {
            self.frames.pop_front();
        }
        Some(encode(&json!({
            "type": "table",
            "game_id": game_id,
            "seq": self.seq,
            "view": self.view,
        })))
    }

    /// Catch-up for a subscriber that has everything up to `from`.
    fn catch_up(&self, from: Option<u64>) -> Vec<Bytes> {
        // `from = 0` is a client with nothing: deltas need a view to patch.
        if let Some(from) = from.filter(|&f| f > 0) {
            if from == self.seq {
                return Vec::new();
            }
            let oldest = self.frames.front().map_or(self.seq + 1, |f| f.seq);
            if from < self.seq && from + 1 >= oldest {
                return self
                    .frames
                    .iter()
                    .filter(|f| f.seq > from)
                    .map(|f| f.bytes.clone())
                    .collect();
            }
        }
        vec![self.snapshot.clone()]
    }
}

fn encode(v: &Value) -> Bytes {
    Bytes::from(serde_json::to_vec(v).expect("JSON values serialize"))
}

struct GameState {
    live: Game,
    delayed: Game,
    /// Events not yet released to the broadcast, with their release time.
    pending: VecDeque<(Instant, Envelope)>,
    feeds: [Feed; 3],
}

struct GameEntry {
    id: String,
    info: TableInfo,
    state: Mutex<GameState>,
}

struct Inner {
    log: Arc<dyn EventLog>,
    config: HubConfig,
    games: RwLock<HashMap<String, Arc<GameEntry>>>,
    hall: Mutex<[Vec<Sink>; 3]>,
    stats: Stats,
    closed: AtomicBool,
}

/// The fan-out hub. Cheap to clone.
#[derive(Clone)]
pub struct Hub {
    inner: Arc<Inner>,
}

impl Hub {
    /// Loads every game in the log, then follows the feed in a background
    /// task (which ends when the hub is dropped or [`Hub::close`]d).
    pub async fn start(log: Arc<dyn EventLog>, config: HubConfig) -> Result<Hub, HubError> {
        let hub = Hub {
            inner: Arc::new(Inner {
                log: log.clone(),
                config,
                games: RwLock::new(HashMap::new()),
                hall: Mutex::new([Vec::new(), Vec::new(), Vec::new()]),
                stats: Stats::default(),
                closed: AtomicBool::new(false),
            }),
        };
        // The head first: whatever is appended while we load arrives on the
        // feed and is deduplicated by sequence.
        let cursor = log.feed_head().await?;
        for game in log.list_games().await? {
            if let Err(e) = hub.catch_up(&game, None).await {
                tracing::warn!(game, error = %e, "could not load game");
            }
        }
        tokio::spawn(follow(Arc::downgrade(&hub.inner), cursor));
        Ok(hub)
    }

    /// Stops following the log and closes every subscription.
    pub fn close(&self) {
        self.inner.closed.store(true, Ordering::Release);
        let games: Vec<_> = self
            .inner
            .games
            .read()
            .expect("lock")
            .values()
            .cloned()
            .collect();
        for g in games {
            let mut st = g.state.lock().expect("lock");
            st.feeds.iter_mut().for_each(|f| f.sinks.clear());
        }
        self.inner
            .hall
            .lock()
            .expect("lock")
            .iter_mut()
            .for_each(Vec::clear);
    }

    pub fn config(&self) -> &HubConfig {
        &self.inner.config
    }

    pub fn stats(&self) -> &Stats {
        &self.inner.stats
    }

    /// Every known table, sorted by game id.
    pub fn tables(&self) -> Vec<TableInfo> {
        let mut v: Vec<_> = self
            .inner
            .games
            .read()
            .expect("lock")
            .values()
            .map(|g| g.info.clone())
            .collect();
        v.sort_by(|a, b| a.game_id.cmp(&b.game_id));
        v
    }

    pub fn has_table(&self, game_id: &str) -> bool {
        self.inner.games.read().expect("lock").contains_key(game_id)
    }

    fn entry(&self, game_id: &str) -> Result<Arc<GameEntry>, HubError> {
        self.inner
            .games
            .read()
            .expect("lock")
            .get(game_id)
            .cloned()
            .ok_or_else(|| HubError::UnknownTable(game_id.to_owned()))
    }

    /// A table's current state for `audience`.
    pub fn state(&self, game_id: &str, audience: Audience) -> Result<TableState, HubError> {
        let g = self.entry(game_id)?;
        let st = g.state.lock().expect("lock");
        let f = &st.feeds[slot(audience)];
        Ok(TableState {
            info: g.info.clone(),
            seq: f.seq,
            view: f.view.clone(),
            over: f.over,
        })
    }

    /// Up to `max` retained events with an audience sequence above `after`.
    pub fn events(
        &self,
        game_id: &str,
        audience: Audience,
        after: u64,
        max: usize,
    ) -> Result<Vec<AudienceEvent>, HubError> {
        let g = self.entry(game_id)?;
        let st = g.state.lock().expect("lock");
        Ok(st.feeds[slot(audience)]
            .frames
            .iter()
            .filter(|f| f.seq > after)
            .take(max)
            .map(|f| f.event.clone())
            .collect())
    }

    /// The whole history of a finished game (engine numbering, every event),
    /// or `None` while the game is still running for `audience` (judges
    /// may always read it; the broadcast only once its delayed game ended).
    pub fn protocol(
        &self,
        game_id: &str,
        audience: Audience,
    ) -> Result<Option<Vec<AudienceEvent>>, HubError> {
        let g = self.entry(game_id)?;
        let st = g.state.lock().expect("lock");
        let finished = match audience {
            Audience::Judge => true,
            Audience::Public => st.live.result().is_some(),
            Audience::Broadcast => st.delayed.result().is_some(),
        };
        Ok(finished.then(|| {
            st.feeds[slot(Audience::Judge)]
                .frames
                .iter()
                .map(|f| f.event.clone())
                .collect()
        }))
    }

    /// Subscribers registered on one table's feed, counting departed ones
    /// not yet pruned (they are pruned on each event and subscription).
    pub fn subscriber_count(&self, game_id: &str, audience: Audience) -> usize {
        self.entry(game_id).map_or(0, |g| {
            g.state.lock().expect("lock").feeds[slot(audience)]
                .sinks
                .len()
        })
    }

    /// Follows one table. With `from`, a client that has every message up
    /// to that sequence gets only the deltas after it (when still retained;
    /// otherwise a snapshot). Without, it gets a snapshot first.
    pub fn subscribe(
        &self,
        game_id: &str,
        audience: Audience,
        from: Option<u64>,
    ) -> Result<Subscription, HubError> {
        let g = self.entry(game_id)?;
        let mut st = g.state.lock().expect("lock");
        let feed = &mut st.feeds[slot(audience)];
        let (sink, mut sub) = Sink::new(self.inner.config.queue_capacity, None);
        // Catch-up and registration under one lock: no gap, no duplicate.
        sub.initial = feed.catch_up(from);
        sub.seq = feed.seq;
        // Departed subscribers are otherwise dropped only when the next
        // event is offered, which a finished game never gets.
        feed.sinks.retain(|s| !s.tx.is_closed());
        feed.sinks.push(sink);
        Ok(sub)
    }

    /// What [`Hub::subscribe`] would send first (and the sequence it
    /// starts after), without subscribing.
    pub fn initial(
        &self,
        game_id: &str,
        audience: Audience,
        from: Option<u64>,
    ) -> Result<(Vec<Bytes>, u64), HubError> {
        let g = self.entry(game_id)?;
        let st = g.state.lock().expect("lock");
        let feed = &st.feeds[slot(audience)];
        Ok((feed.catch_up(from), feed.seq))
    }

    /// The `tables` message of the hall feed: every table (or only
    /// `tables`) as `audience` sees it now.
    pub fn hall_snapshot(
        &self,
        audience: Audience,
        tables: Option<&Arc<crate::auth::Games>>,
    ) -> Bytes {
        let all = self
            .tables()
            .into_iter()
            .filter(|t| tables.is_none_or(|s| s.contains(&t.game_id)))
            .filter_map(|t| self.state(&t.game_id, audience).ok())
            .map(|s| json!({"game_id": s.info.game_id, "info": s.info, "seq": s.seq, "view": s.view}))
            .collect::<Vec<_>>();
        encode(&json!({"type": "tables", "tables": all}))
    }

    /// Follows every table (or only `tables`): first a `tables` message
    /// with each table's state, then a `table` message on each change.
    pub fn subscribe_hall(
        &self,
        audience: Audience,
        tables: Option<Arc<crate::auth::Games>>,
    ) -> Subscription {
        let (sink, mut sub) = Sink::new(self.inner.config.queue_capacity, tables.clone());
        // Registered before the snapshot is taken: a change in between is
        // sent twice rather than lost, and clients keep the higher seq.
        {
            let mut hall = self.inner.hall.lock().expect("lock");
            hall[slot(audience)].retain(|s| !s.tx.is_closed());
            hall[slot(audience)].push(sink);
        }
        sub.initial = vec![self.hall_snapshot(audience, tables.as_ref())];
        sub
    }

    /// Brings `game` up to date from the log (all of it when new).
    async fn catch_up(&self, game: &str, live_from: Option<u64>) -> Result<(), HubError> {
        let inner = &self.inner;
        let entry = {
            let existing = inner.games.read().expect("lock").get(game).cloned();
            match existing {
                Some(e) => e,
                None => {
                    let Some(raw) = inner.log.header(game).await? else {
                        return Err(HubError::UnknownTable(game.to_owned()));
                    };
                    let header: Header = match serde_json::from_slice(&raw) {
                        Ok(h) => h,
                        Err(e) => {
                            tracing::warn!(game, error = %e, "unreadable header; table skipped");
                            return Ok(());
                        }
                    };
                    let setup = match header.setup() {
                        Ok(s) => s,
                        Err(e) => {
                            tracing::warn!(game, error = %e, "invalid header; table skipped");
                            return Ok(());
                        }
                    };
                    let fresh = Game::replay(setup.clone(), std::iter::empty()).expect("no events");
                    let (dealt, _) = Game::new(setup, 0);
                    let feeds = AUDIENCES.map(|a| Feed::new(a, game, &dealt));
                    let e = Arc::new(GameEntry {
                        id: game.to_owned(),
                        info: TableInfo::new(game, &header),
                        state: Mutex::new(GameState {
                            live: fresh.clone(),
                            delayed: fresh,
                            pending: VecDeque::new(),
                            feeds,
                        }),
                    });
                    inner
                        .games
                        .write()
                        .expect("lock")
                        .entry(game.to_owned())
                        .or_insert(e)
                        .clone()
                }
            }
        };
        loop {
            let from = entry.state.lock().expect("lock").live.seq() as u64 + 1;
            let batch = inner.log.read(game, from, inner.config.read_batch).await?;
            if batch.is_empty() {
                return Ok(());
            }
            for ev in batch {
                // Events from before we followed the feed are dated by the
                // judge's clock; live ones by their arrival.
                let live = live_from.is_some_and(|s| ev.seq >= s);
                self.ingest(&entry, ev.seq, &ev.payload, live);
            }
        }
    }

    /// Folds one stored event, publishes it live, schedules its broadcast.
    fn ingest(&self, entry: &Arc<GameEntry>, seq: u64, payload: &[u8], live: bool) {
        let inner = &self.inner;
        let logged: LoggedEvent = match serde_json::from_slice(payload) {
            Ok(l) => l,
            Err(e) => {
                tracing::warn!(game = entry.id, seq, error = %e, "unreadable event");
                return;
            }
        };
        let env = logged.envelope;
        let due;
        {
            let mut st = entry.state.lock().expect("lock");
            if env.seq as u64 <= st.live.seq() as u64 {
                return;
            }
            if let Err(e) = st.live.fold(&env) {
                tracing::warn!(game = entry.id, seq, error = %e, "event does not fit");
                return;
            }
            inner.stats.events.fetch_add(1, Ordering::Relaxed);
            let st = &mut *st;
            for a in [Audience::Public, Audience::Judge] {
                let f = &mut st.feeds[slot(a)];
                if let Some(hall) = f.push(
                    &entry.id,
                    &env,
                    &st.live,
                    inner.config.history,
                    &inner.stats,
                ) {
                    self.publish_hall(a, &entry.id, &hall);
                }
            }
            let delay = inner.config.broadcast_delay;
            due = if live {
                Instant::now() + delay
            } else {
                let now_ms = SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map_or(0, |d| d.as_millis() as i64);
                let age = Duration::from_millis(now_ms.saturating_sub(env.at).max(0) as u64);
                Instant::now() + delay.saturating_sub(age)
            };
            st.pending.push_back((due, env));
        }
        self.release(entry);
        if due > Instant::now() {
            let weak = Arc::downgrade(&self.inner);
            let entry = entry.clone();
            tokio::spawn(async move {
                tokio::time::sleep_until(due.into()).await;
                if let Some(inner) = weak.upgrade() {
                    Hub { inner }.release(&entry);
                }
            });
        }
    }

    /// Releases the broadcast events whose delay is over, in order.
    fn release(&self, entry: &GameEntry) {
        let inner = &self.inner;
        let now = Instant::now();
        let mut st = entry.state.lock().expect("lock");
        let st = &mut *st;
        while st.pending.front().is_some_and(|(due, _)| *due <= now) {
            let (_, env) = st.pending.pop_front().expect("checked");
            if st.delayed.fold(&env).is_err() {
                continue;
            }
            let f = &mut st.feeds[slot(Audience::Broadcast)];
            if let Some(hall) = f.push(
                &entry.id,
                &env,
                &st.delayed,
                inner.config.history,
                &inner.stats,
            ) {
                self.publish_hall(Audience::Broadcast, &entry.id, &hall);
            }
        }
    }

    fn publish_hall(&self, audience: Audience, game_id: &str, msg: &Bytes) {
        let mut hall = self.inner.hall.lock().expect("lock");
        let stats = &self.inner.stats;
        hall[slot(audience)].retain(|s| {
            if s.tables.as_ref().is_some_and(|t| !t.contains(game_id)) {
                return !s.tx.is_closed();
            }
            s.offer(msg, stats)
        });
    }
}

/// Follows the feed until the hub is gone; resumes after errors.
async fn follow(hub: Weak<Inner>, mut cursor: FeedCursor) {
    use futures::StreamExt;
    loop {
        let Some(inner) = hub.upgrade() else { return };
        if inner.closed.load(Ordering::Acquire) {
            return;
        }
        let mut feed = inner.log.feed(cursor.clone());
        drop(inner);
        while let Some(item) = feed.next().await {
            let Some(inner) = hub.upgrade() else { return };
            if inner.closed.load(Ordering::Acquire) {
                return;
            }
            let hub = Hub { inner };
            match item {
                Ok((next, entry)) => {
                    let known = hub
                        .inner
                        .games
                        .read()
                        .expect("lock")
                        .get(&entry.game)
                        .cloned();
                    let in_order = match &known {
                        Some(g) => {
                            let last = g.state.lock().expect("lock").live.seq() as u64;
                            if entry.seq <= last {
                                cursor = next;
                                continue;
                            }
                            entry.seq == last + 1
                        }
                        None => false,
                    };
                    match (known, in_order) {
                        (Some(g), true) => hub.ingest(&g, entry.seq, &entry.payload, true),
                        _ => {
                            // A new game, or a gap: read what we miss from the log.
                            if let Err(e) = hub.catch_up(&entry.game, Some(entry.seq)).await {
                                tracing::warn!(game = entry.game, error = %e, "catch-up failed");
                            }
                        }
                    }
                    cursor = next;
                }
                Err(e) => {
                    tracing::warn!(error = %e, "event feed failed; resuming");
                    break;
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}
