//! Single-process backend on a local `redb` file.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use bytes::Bytes;
use redb::{Database, Durability, ReadableTable, TableDefinition, WriteTransaction};
use tokio::sync::broadcast;

use crate::{
    ttl_millis, validate_game_id, validate_owner, Appended, EventLog, FeedCursor, FeedEntry,
    FeedStream, Lease, LogError, StoredEvent,
};

/// game -> header.
const HEADERS: TableDefinition<&str, &[u8]> = TableDefinition::new("headers");
/// game -> (last_seq, fence).
const GAMES: TableDefinition<&str, (u64, u64)> = TableDefinition::new("games");
/// (game, seq) -> payload.
const EVENTS: TableDefinition<(&str, u64), &[u8]> = TableDefinition::new("events");
/// global feed seq -> (game, seq); payloads are looked up in EVENTS rather
/// than stored twice.
const FEED: TableDefinition<u64, (&str, u64)> = TableDefinition::new("feed");

/// How many feed entries a catch-up read fetches per blocking call.
const FEED_PAGE: usize = 512;

/// Tuning for [`EmbeddedLog`].
#[derive(Debug, Clone)]
pub struct EmbeddedConfig {
    /// Capacity of the in-process live feed channel. A follower that falls
    /// further behind is not lost: it transparently catches up from the file.
    pub feed_buffer: usize,
    /// redb page cache size.
    pub cache_size_bytes: usize,
}

impl Default for EmbeddedConfig {
    fn default() -> Self {
        EmbeddedConfig {
            feed_buffer: 4096,
            cache_size_bytes: 64 * 1024 * 1024,
        }
    }
}

/// [`EventLog`] on a local `redb` database file, for a single process (redb
/// locks the file; a second open fails until every handle and feed of the
/// first is dropped).
///
/// Every write commits with [`Durability::Immediate`] (fsync) before
/// returning. Leases live in memory, because only this process can write the
/// file and so no holder outlives it; their fence counters live in the file,
/// so fences keep increasing across restarts. Lease expiry uses the monotonic
/// clock. Cheap to clone (all clones share the database).
#[derive(Clone)]
pub struct EmbeddedLog {
    inner: Arc<Inner>,
}

struct Inner {
    db: Database,
    path: PathBuf,
    leases: Mutex<HashMap<String, LiveLease>>,
    feed_tx: broadcast::Sender<(u64, FeedEntry)>,
    /// Highest committed global feed seq, so `FeedCursor::now()` can be
    /// resolved without touching the file.
    feed_last: AtomicU64,
}

struct LiveLease {
    owner: String,
    fence: u64,
    expires_at: Instant,
}

impl std::fmt::Debug for EmbeddedLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbeddedLog")
            .field("path", &self.inner.path)
            .finish_non_exhaustive()
    }
}

impl EmbeddedLog {
    /// Opens (creating if needed) the database file at `path`.
    pub async fn open(path: impl AsRef<Path>) -> Result<Self, LogError> {
        Self::open_with(path, EmbeddedConfig::default()).await
    }

    pub async fn open_with(
        path: impl AsRef<Path>,
        config: EmbeddedConfig,
    ) -> Result<Self, LogError> {
        let path = path.as_ref().to_path_buf();
        tokio::task::spawn_blocking(move || Self::open_blocking(path, config)).await?
    }

    fn open_blocking(path: PathBuf, config: EmbeddedConfig) -> Result<Self, LogError> {
        if config.feed_buffer == 0 {
            return Err(LogError::InvalidArgument(
                "feed_buffer must be at least 1".into(),
            ));
        }
        let db = Database::builder()
            .set_cache_size(config.cache_size_bytes)
            // The v3 format lets a later move to redb 3.x open these files as they are.
            .create_with_file_format_v3(true)
            .create(&path)?;
        let txn = begin_write(&db)?;
        // Creating every table up front lets readers open them without
        // special-casing a fresh file.
        txn.open_table(HEADERS)?;
        txn.open_table(GAMES)?;
        txn.open_table(EVENTS)?;
        let feed_last = {
            let feed = txn.open_table(FEED)?;
            let last = feed.last()?.map(|(k, _)| k.value()).unwrap_or(0);
            last
        };
        txn.commit()?;
        let (feed_tx, _) = broadcast::channel(config.feed_buffer);
        tracing::info!(path = %path.display(), feed_last, "opened embedded event log");
        Ok(EmbeddedLog {
            inner: Arc::new(Inner {
                db,
                path,
                leases: Mutex::new(HashMap::new()),
                feed_tx,
                feed_last: AtomicU64::new(feed_last),
            }),
        })
    }

    /// Path of the database file.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    async fn blocking<T, F>(&self, f: F) -> Result<T, LogError>
    where
        T: Send + 'static,
        F: FnOnce(&Inner) -> Result<T, LogError> + Send + 'static,
    {
        let inner = Arc::clone(&self.inner);
        tokio::task::spawn_blocking(move || f(&inner)).await?
    }
}

fn begin_write(db: &Database) -> Result<WriteTransaction, LogError> {
    let mut txn = db.begin_write()?;
    txn.set_durability(Durability::Immediate);
    Ok(txn)
}

impl Inner {
    /// (last_seq, fence) of a game, read inside `txn`.
    fn game_state_in(txn: &WriteTransaction, game: &str) -> Result<(u64, u64), LogError> {
        let games = txn.open_table(GAMES)?;
        let state = games.get(game)?.map(|g| g.value());
        state.ok_or_else(|| LogError::UnknownGame(game.to_owned()))
    }

    fn game_state(&self, game: &str) -> Result<(u64, u64), LogError> {
        let txn = self.db.begin_read()?;
        let games = txn.open_table(GAMES)?;
        let state = games.get(game)?.map(|g| g.value());
        state.ok_or_else(|| LogError::UnknownGame(game.to_owned()))
    }

    fn lock_leases(&self) -> std::sync::MutexGuard<'_, HashMap<String, LiveLease>> {
        // A panic while holding the lock cannot leave the map half-updated
        // (every update is a single insert/remove), so poisoning is ignorable.
        self.leases.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Durably bumps the game's fence and returns the new value.
    fn bump_fence(&self, game: &str) -> Result<u64, LogError> {
        let txn = begin_write(&self.db)?;
        let (last, fence) = Self::game_state_in(&txn, game)?;
        let fence = fence + 1;
        txn.open_table(GAMES)?.insert(game, (last, fence))?;
        txn.commit()?;
        Ok(fence)
    }

    fn feed_after(&self, after: u64, limit: usize) -> Result<Vec<(u64, FeedEntry)>, LogError> {
        let txn = self.db.begin_read()?;
        let feed = txn.open_table(FEED)?;
        let events = txn.open_table(EVENTS)?;
        let mut out = Vec::new();
        for row in feed.range(after.saturating_add(1)..)?.take(limit) {
            let (k, v) = row?;
            let (game, seq) = v.value();
            let payload = events.get((game, seq))?.ok_or_else(|| {
                LogError::Corrupt(format!(
                    "feed entry {} points at missing {game}/{seq}",
                    k.value()
                ))
            })?;
            out.push((
                k.value(),
                FeedEntry {
                    game: game.to_owned(),
                    seq,
                    payload: Bytes::copy_from_slice(payload.value()),
                },
            ));
        }
        Ok(out)
    }
}

#[async_trait]
impl EventLog for EmbeddedLog {
    async fn create_game(&self, game: &str, header: &[u8]) -> Result<bool, LogError> {
        validate_game_id(game)?;
        let game = game.to_owned();
        let header = header.to_vec();
        self.blocking(move |inner| {
            let txn = begin_write(&inner.db)?;
            {
                let mut headers = txn.open_table(HEADERS)?;
                let existing = headers.get(game.as_str())?.map(|h| h.value() == header);
                match existing {
                    Some(true) => return Ok(false),
                    Some(false) => return Err(LogError::HeaderMismatch { game }),
                    None => {}
                }
                headers.insert(game.as_str(), header.as_slice())?;
                txn.open_table(GAMES)?.insert(game.as_str(), (0, 0))?;
            }
            txn.commit()?;
            tracing::debug!(%game, "created game");
            Ok(true)
        })
        .await
    }

    async fn header(&self, game: &str) -> Result<Option<Bytes>, LogError> {
        validate_game_id(game)?;
        let game = game.to_owned();
        self.blocking(move |inner| {
            let txn = inner.db.begin_read()?;
            let headers = txn.open_table(HEADERS)?;
            let header = headers
                .get(game.as_str())?
                .map(|h| Bytes::copy_from_slice(h.value()));
            Ok(header)
        })
        .await
    }

    async fn list_games(&self) -> Result<Vec<String>, LogError> {
        self.blocking(|inner| {
            let txn = inner.db.begin_read()?;
            let games = txn.open_table(GAMES)?;
            let mut out = Vec::new();
            for row in games.iter()? {
                out.push(row?.0.value().to_owned());
            }
            Ok(out)
        })
        .await
    }

    async fn append(
        &self,
        game: &str,
        expected_last_seq: u64,
        fence: u64,
        payloads: &[Bytes],
    ) -> Result<Appended, LogError> {
        validate_game_id(game)?;
        if payloads.is_empty() {
            return Err(LogError::InvalidArgument("empty append batch".into()));
        }
        let game = game.to_owned();
        let payloads = payloads.to_vec();
        self.blocking(move |inner| {
            let txn = begin_write(&inner.db)?;
            let (last, current_fence) = Inner::game_state_in(&txn, &game)?;
            if current_fence != fence {
                txn.abort()?;
                return Err(LogError::Fenced { current_fence });
            }
            if last != expected_last_seq {
                txn.abort()?;
                return Err(LogError::Conflict {
                    actual_last_seq: last,
                });
            }
            let first_feed;
            {
                let mut events = txn.open_table(EVENTS)?;
                let mut feed = txn.open_table(FEED)?;
                first_feed = feed.last()?.map(|(k, _)| k.value()).unwrap_or(0) + 1;
                for (i, payload) in (0u64..).zip(&payloads) {
                    let seq = last + 1 + i;
                    events.insert((game.as_str(), seq), payload.as_ref())?;
                    feed.insert(first_feed + i, (game.as_str(), seq))?;
                }
                let new_last = last + payloads.len() as u64;
                txn.open_table(GAMES)?
                    .insert(game.as_str(), (new_last, current_fence))?;
            }
            txn.commit()?;

            let n = payloads.len() as u64;
            inner
                .feed_last
                .fetch_max(first_feed + n - 1, Ordering::SeqCst);
            for (i, payload) in (0u64..).zip(payloads) {
                // No receivers is fine: followers catch up from the file.
                let _ = inner.feed_tx.send((
                    first_feed + i,
                    FeedEntry {
                        game: game.clone(),
                        seq: last + 1 + i,
                        payload,
                    },
                ));
            }
            tracing::debug!(%game, first_seq = last + 1, last_seq = last + n, "appended");
            Ok(Appended {
                first_seq: last + 1,
                last_seq: last + n,
            })
        })
        .await
    }

    async fn last_seq(&self, game: &str) -> Result<u64, LogError> {
        validate_game_id(game)?;
        let game = game.to_owned();
        self.blocking(move |inner| Ok(inner.game_state(&game)?.0))
            .await
    }

    async fn read(
        &self,
        game: &str,
        from_seq: u64,
        max: usize,
    ) -> Result<Vec<StoredEvent>, LogError> {
        validate_game_id(game)?;
        let game = game.to_owned();
        self.blocking(move |inner| {
            let txn = inner.db.begin_read()?;
            let games = txn.open_table(GAMES)?;
            if games.get(game.as_str())?.is_none() {
                return Err(LogError::UnknownGame(game));
            }
            let events = txn.open_table(EVENTS)?;
            let from = (game.as_str(), from_seq.max(1));
            let to = (game.as_str(), u64::MAX);
            let mut out = Vec::new();
            for row in events.range(from..=to)?.take(max) {
                let (k, v) = row?;
                out.push(StoredEvent {
                    seq: k.value().1,
                    payload: Bytes::copy_from_slice(v.value()),
                });
            }
            Ok(out)
        })
        .await
    }

    async fn acquire_lease(
        &self,
        game: &str,
        owner: &str,
        ttl: Duration,
    ) -> Result<Lease, LogError> {
        validate_game_id(game)?;
        validate_owner(owner)?;
        let ttl = Duration::from_millis(ttl_millis(ttl)?);
        let game = game.to_owned();
        let owner = owner.to_owned();
        self.blocking(move |inner| {
            // Held across the fence bump so two acquirers cannot both see "free".
            let mut leases = inner.lock_leases();
            let now = Instant::now();
            if let Some(l) = leases.get_mut(&game).filter(|l| l.expires_at > now) {
                if l.owner != owner {
                    return Err(LogError::LeaseHeld {
                        owner: l.owner.clone(),
                        expires_in: l.expires_at - now,
                    });
                }
                l.expires_at = now + ttl;
                return Ok(Lease {
                    owner,
                    fence: l.fence,
                    expires_in: ttl,
                });
            }
            let fence = inner.bump_fence(&game)?;
            leases.insert(
                game.clone(),
                LiveLease {
                    owner: owner.clone(),
                    fence,
                    expires_at: now + ttl,
                },
            );
            tracing::info!(%game, %owner, fence, "lease granted");
            Ok(Lease {
                owner,
                fence,
                expires_in: ttl,
            })
        })
        .await
    }

    async fn renew_lease(
        &self,
        game: &str,
        owner: &str,
        fence: u64,
        ttl: Duration,
    ) -> Result<Lease, LogError> {
        validate_game_id(game)?;
        validate_owner(owner)?;
        let ttl = Duration::from_millis(ttl_millis(ttl)?);
        let game = game.to_owned();
        let owner = owner.to_owned();
        self.blocking(move |inner| {
            let mut leases = inner.lock_leases();
            let now = Instant::now();
            match leases.get_mut(&game) {
                Some(l) if l.owner == owner && l.fence == fence => {
                    l.expires_at = now + ttl;
                    return Ok(Lease {
                        owner,
                        fence,
                        expires_in: ttl,
                    });
                }
                Some(l) if l.expires_at > now => {
                    return Err(LogError::LeaseLost {
                        current_fence: l.fence,
                    });
                }
                _ => {}
            }
            // No live lease: the caller may have it back iff no newer fence was
            // granted meanwhile (also covers a process restart).
            let (_, current_fence) = inner.game_state(&game)?;
            if current_fence != fence {
                return Err(LogError::LeaseLost { current_fence });
            }
            leases.insert(
                game.clone(),
                LiveLease {
                    owner: owner.clone(),
                    fence,
                    expires_at: now + ttl,
                },
            );
            Ok(Lease {
                owner,
                fence,
                expires_in: ttl,
            })
        })
        .await
    }

    async fn release_lease(&self, game: &str, owner: &str, fence: u64) -> Result<(), LogError> {
        validate_game_id(game)?;
        let game = game.to_owned();
        let owner = owner.to_owned();
        self.blocking(move |inner| {
            inner.game_state(&game)?;
            let mut leases = inner.lock_leases();
            if leases
                .get(&game)
                .is_some_and(|l| l.owner == owner && l.fence == fence)
            {
                leases.remove(&game);
                tracing::info!(%game, %owner, fence, "lease released");
            }
            Ok(())
        })
        .await
    }

    async fn feed_head(&self) -> Result<FeedCursor, LogError> {
        Ok(FeedCursor::from(
            self.inner.feed_last.load(Ordering::SeqCst).to_string(),
        ))
    }

    fn feed(&self, from: FeedCursor) -> FeedStream {
        // Subscribe before resolving the start so nothing committed after this
        // call can slip between the catch-up read and the live channel.
        let rx = self.inner.feed_tx.subscribe();
        let start = if from.is_now() {
            Ok(self.inner.feed_last.load(Ordering::SeqCst))
        } else {
            from.as_str().parse::<u64>().map_err(|_| {
                LogError::InvalidArgument(format!("not an embedded feed cursor: {from}"))
            })
        };
        let state = FeedState {
            db: Arc::downgrade(&self.inner),
            rx,
            last: 0,
            buf: VecDeque::new(),
            pending_error: None,
            need_catch_up: true,
            done: false,
        };
        let state = match start {
            Ok(last) => FeedState { last, ..state },
            Err(e) => FeedState {
                pending_error: Some(e),
                ..state
            },
        };
        Box::pin(futures::stream::unfold(state, FeedState::next))
    }
}

struct FeedState {
    /// Weak so that a forgotten follower does not keep the database open.
    db: Weak<Inner>,
    rx: broadcast::Receiver<(u64, FeedEntry)>,
    /// Global feed seq of the last entry handed out (or the start position).
    last: u64,
    buf: VecDeque<(u64, FeedEntry)>,
    pending_error: Option<LogError>,
    /// Whether the file may hold entries after `last` that the channel will
    /// not deliver (at the start, and after a lag or gap).
    need_catch_up: bool,
    done: bool,
}

type FeedItem = Result<(FeedCursor, FeedEntry), LogError>;

impl FeedState {
    async fn next(mut self) -> Option<(FeedItem, Self)> {
        if self.done {
            return None;
        }
        if let Some(e) = self.pending_error.take() {
            self.done = true;
            return Some((Err(e), self));
        }
        loop {
            if let Some((seq, entry)) = self.buf.pop_front() {
                self.last = seq;
                return Some((Ok((FeedCursor::from(seq.to_string()), entry)), self));
            }
            if self.need_catch_up {
                let inner = self.db.upgrade()?;
                let after = self.last;
                let page =
                    tokio::task::spawn_blocking(move || inner.feed_after(after, FEED_PAGE)).await;
                match page.map_err(LogError::from).and_then(|r| r) {
                    Err(e) => {
                        self.done = true;
                        return Some((Err(e), self));
                    }
                    Ok(page) if !page.is_empty() => {
                        self.buf.extend(page);
                        continue;
                    }
                    Ok(_) => self.need_catch_up = false,
                }
            }
            // Caught up: everything newer was committed after `rx` subscribed,
            // so it arrives on the channel unless we lag.
            match self.rx.recv().await {
                Ok((seq, _)) if seq <= self.last => {}
                Ok((seq, entry)) if seq == self.last + 1 => self.buf.push_back((seq, entry)),
                // A gap (concurrent commits sent out of order) or a lag: the
                // file has everything, re-read it from our position.
                Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => self.need_catch_up = true,
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }
}
