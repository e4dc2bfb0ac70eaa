//! Single-process backend on a local `redb` file.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use bytes::Bytes;
use redb::{Database, Durability, ReadableTable, TableDefinition, WriteTransaction};
use tokio::sync::{broadcast, oneshot};

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
/// returning. Appends are group-committed: those arriving while a
/// transaction commits share the next one (and its fsync), each checked on
/// its own. Leases live in memory, because only this process can write the
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
    /// Appends waiting for the next group commit.
    commits: Mutex<Commits>,
}

/// Group commit: appends queue here while a write transaction commits; the
/// committer then takes them all into the next transaction (one fsync for
/// all), checking each one's expected seq and fence on its own.
#[derive(Default)]
struct Commits {
    queue: Vec<PendingAppend>,
    /// Whether a committer is running (it drains the queue until empty).
    running: bool,
}

type Done = oneshot::Sender<Result<Appended, LogError>>;
type Answer = (Done, Result<Appended, LogError>);

struct PendingAppend {
    game: String,
    expected_last_seq: u64,
    fence: u64,
    payloads: Vec<Bytes>,
    done: oneshot::Sender<Result<Appended, LogError>>,
}

/// An append checked and written into the open transaction, answered once
/// the transaction is committed.
struct Written {
    done: oneshot::Sender<Result<Appended, LogError>>,
    game: String,
    first_seq: u64,
    first_feed: u64,
    payloads: Vec<Bytes>,
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
                commits: Mutex::new(Commits::default()),
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

    fn lock_commits(&self) -> std::sync::MutexGuard<'_, Commits> {
        // Updates are a push or a take: poisoning is ignorable.
        self.commits.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Commits queued appends, batch after batch, until the queue is empty.
    /// Runs on a blocking thread; at most one runs at a time. The last
    /// batch's callers are answered only after this thread let go of the
    /// database, so a caller that drops the log can reopen the file at once.
    fn commit_loop(inner: Arc<Inner>) {
        let mut inner = Some(inner);
        while let Some(me) = inner.as_ref() {
            let batch = {
                let mut commits = me.lock_commits();
                if commits.queue.is_empty() {
                    commits.running = false;
                    return;
                }
                std::mem::take(&mut commits.queue)
            };
            let answers =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| me.commit_batch(batch)));
            let more = {
                let mut commits = me.lock_commits();
                if answers.is_err() {
                    // The batch's callers got an error as their senders were
                    // dropped; fail the queued ones too rather than retry.
                    commits.queue.clear();
                }
                let more = answers.is_ok() && !commits.queue.is_empty();
                commits.running = more;
                more
            };
            if !more {
                inner = None;
            }
            for (done, result) in answers.unwrap_or_default() {
                let _ = done.send(result);
            }
        }
    }

    /// One write transaction for `batch`: each append is checked (fence,
    /// then expected seq) against the state including the earlier appends
    /// of the batch; refused ones get their error and write nothing. The
    /// others are answered after the commit (fsync). A storage failure fails
    /// the whole batch.
    fn commit_batch(&self, batch: Vec<PendingAppend>) -> Vec<Answer> {
        let mut refused = Vec::new();
        let mut written = Vec::with_capacity(batch.len());
        let outcome = self.write_batch(batch, &mut refused, &mut written);
        let mut answers: Vec<Answer> = refused
            .into_iter()
            .map(|(done, e)| (done, Err(e)))
            .collect();
        match outcome {
            Ok(()) => {
                if let Some(w) = written.last() {
                    let last_feed = w.first_feed + w.payloads.len() as u64 - 1;
                    self.feed_last.fetch_max(last_feed, Ordering::SeqCst);
                }
                for w in written {
                    let n = w.payloads.len() as u64;
                    let appended = Appended {
                        first_seq: w.first_seq,
                        last_seq: w.first_seq + n - 1,
                    };
                    for (i, payload) in (0u64..).zip(w.payloads) {
                        // No receivers is fine: followers catch up from the file.
                        let _ = self.feed_tx.send((
                            w.first_feed + i,
                            FeedEntry {
                                game: w.game.clone(),
                                seq: w.first_seq + i,
                                payload,
                            },
                        ));
                    }
                    tracing::debug!(
                        game = %w.game,
                        first_seq = appended.first_seq,
                        last_seq = appended.last_seq,
                        "appended"
                    );
                    answers.push((w.done, Ok(appended)));
                }
            }
            Err(e) => {
                let message = e.to_string();
                let mut first = Some(e);
                for w in written {
                    let err = first.take().unwrap_or_else(|| {
                        LogError::Storage(Box::new(redb::Error::Io(std::io::Error::other(
                            message.clone(),
                        ))))
                    });
                    answers.push((w.done, Err(err)));
                }
            }
        }
        answers
    }

    fn write_batch(
        &self,
        batch: Vec<PendingAppend>,
        refused: &mut Vec<(Done, LogError)>,
        written: &mut Vec<Written>,
    ) -> Result<(), LogError> {
        // Until the transaction commits, every append of the batch counts as
        // written: on a storage error all of them fail.
        let txn = match begin_write(&self.db) {
            Ok(t) => t,
            Err(e) => {
                written.extend(batch.into_iter().map(|p| Written {
                    done: p.done,
                    game: p.game,
                    first_seq: 0,
                    first_feed: 0,
                    payloads: Vec::new(),
                }));
                return Err(e);
            }
        };
        let mut pending = batch.into_iter();
        let result = (|| {
            let mut games = txn.open_table(GAMES)?;
            let mut events = txn.open_table(EVENTS)?;
            let mut feed = txn.open_table(FEED)?;
            let mut next_feed = feed.last()?.map(|(k, _)| k.value()).unwrap_or(0) + 1;
            for p in pending.by_ref() {
                let state = games.get(p.game.as_str())?.map(|g| g.value());
                let (last, current_fence) = match state {
                    None => {
                        refused.push((p.done, LogError::UnknownGame(p.game)));
                        continue;
                    }
                    Some(s) => s,
                };
                if current_fence != p.fence {
                    refused.push((p.done, LogError::Fenced { current_fence }));
                    continue;
                }
                if last != p.expected_last_seq {
                    refused.push((
                        p.done,
                        LogError::Conflict {
                            actual_last_seq: last,
                        },
                    ));
                    continue;
                }
                let first_feed = next_feed;
                // Counted as written before the inserts, so a failure
                // below still answers this caller.
                written.push(Written {
                    done: p.done,
                    game: p.game,
                    first_seq: last + 1,
                    first_feed,
                    payloads: p.payloads,
                });
                let w = written.last().expect("just pushed");
                for (i, payload) in (0u64..).zip(&w.payloads) {
                    events.insert((w.game.as_str(), last + 1 + i), payload.as_ref())?;
                    feed.insert(first_feed + i, (w.game.as_str(), last + 1 + i))?;
                }
                let n = w.payloads.len() as u64;
                next_feed += n;
                games.insert(w.game.as_str(), (last + n, current_fence))?;
            }
            Ok::<(), LogError>(())
        })();
        if let Err(e) = result {
            // Those not reached yet fail too: the transaction is dropped.
            written.extend(pending.map(|p| Written {
                done: p.done,
                game: p.game,
                first_seq: 0,
                first_feed: 0,
                payloads: Vec::new(),
            }));
            return Err(e);
        }
        txn.commit()?;
        Ok(())
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
        let (done, result) = oneshot::channel();
        let start = {
            let mut commits = self.inner.lock_commits();
            commits.queue.push(PendingAppend {
                game: game.to_owned(),
                expected_last_seq,
                fence,
                payloads: payloads.to_vec(),
                done,
            });
            !std::mem::replace(&mut commits.running, true)
        };
        if start {
            let inner = Arc::clone(&self.inner);
            tokio::task::spawn_blocking(move || Inner::commit_loop(inner));
        }
        result
            .await
            .map_err(|_| LogError::Task("the group commit stopped before this append".into()))?
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
