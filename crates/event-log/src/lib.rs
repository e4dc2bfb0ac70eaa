//! Durable per-game event log for the referee service.
//!
//! Each game has an opaque *header* (its setup), and an append-only list of
//! opaque payloads (serialized engine events) numbered `1, 2, 3, …` with no
//! gaps. Writers are coordinated by *leases* carrying a per-game *fencing
//! token*: an append must present the game's current fence, so a writer that
//! lost its lease (GC pause, partition, …) can never write after a takeover.
//! Every appended event also goes to a global *feed* that followers (gateway,
//! scoring) tail with a resumable cursor (on Redis the feed is split into
//! shard streams, a game's events all in its shard's, so per game the feed
//! keeps commit order). Readers do not use the feed
//! directly but one of the followers ([`follow`], [`follow_games`],
//! [`Fanout::follow_game`]), which catch up from the games' logs, fill gaps
//! and resume by themselves after the store fails.
//!
//! Two backends implement [`EventLog`] with identical semantics (checked by a
//! shared conformance suite, see the `testing` feature):
//! - [`RedisLog`]: the production backend, shared by several referee
//!   processes, on one Redis server or a Redis Cluster.
//! - [`EmbeddedLog`]: a single-process backend on a local append-only file
//!   (group commit: one write and one `fdatasync` for all appends waiting).
//!
//! ## Fences
//! Each game has a fence counter, starting at 0 when the game is created and
//! incremented every time a lease is *newly* granted (renewals keep it). It is
//! stored with the game, so it never goes back, also across restarts.
//! [`EventLog::append`] succeeds only if the caller's `fence` equals the
//! current counter. Consequently `fence = 0` works only for games on which
//! no lease was ever granted (handy for tools and single-writer tests); once
//! any lease was granted, writers must hold the newest one. Appends do not
//! look at lease *expiry*: an expired lease's holder may keep appending until
//! someone else acquires the lease, which is safe because the takeover bumps
//! the fence first.

mod embedded;
mod error;
mod fanout;
mod follow;
mod lag;
mod position;
mod redis_batch;
mod redis_conn;
mod redis_feed;
mod redis_keys;
mod redis_log;
mod redis_wire;

#[cfg(feature = "testing")]
pub mod conformance;
#[cfg(feature = "testing")]
pub mod testing;

use std::fmt;
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use futures::stream::BoxStream;

pub use embedded::{EmbeddedConfig, EmbeddedLog};
pub use error::LogError;
pub use fanout::{Fanout, FanoutConfig, GameFollowed, GameStream};
pub use follow::{follow, follow_games, Event, FollowConfig, FollowStream, Followed, Source};
pub use lag::FollowerLag;
pub use redis_conn::CLUSTER_SCHEME;
pub use redis_log::{RedisLog, RedisLogConfig};

/// Longest accepted game id, in bytes.
pub const MAX_GAME_ID_LEN: usize = 128;

/// Sequence numbers assigned by a successful [`EventLog::append`] (inclusive range).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Appended {
    pub first_seq: u64,
    pub last_seq: u64,
}

/// One event of one game as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEvent {
    pub seq: u64,
    pub payload: Bytes,
}

/// A granted (or renewed) lease on a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    pub owner: String,
    /// Fencing token to pass to [`EventLog::append`] and the lease calls.
    pub fence: u64,
    /// Time left at the moment the lease was granted; renew well before it runs out.
    pub expires_in: Duration,
}

/// One appended event, as seen on the global feed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedEntry {
    pub game: String,
    pub seq: u64,
    pub payload: Bytes,
}

/// Position in the global feed. The string form is opaque and specific to
/// the backend that produced it (one stream id per feed shard for
/// [`RedisLog`], `k:ms-n,…`; a decimal counter for [`EmbeddedLog`]), so
/// persist it with [`as_str`] and restore it with [`FeedCursor::from`] only
/// against the same backend (and, on Redis, the same shard count). A
/// cursor that names some shards only follows those.
///
/// Two special values work everywhere: [`FeedCursor::beginning`] (`"0"`,
/// everything still retained) and [`FeedCursor::now`] (`"$"` or `""`: only
/// entries appended after the feed started, which is when `feed()` is called
/// on [`EmbeddedLog`] but when the stream is first polled on [`RedisLog`];
/// use `feed(log.feed_head().await?)` when the exact starting point matters).
///
/// [`as_str`]: FeedCursor::as_str
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FeedCursor(String);

impl FeedCursor {
    pub const BEGINNING: &'static str = "0";
    pub const NOW: &'static str = "$";

    pub fn beginning() -> Self {
        FeedCursor(Self::BEGINNING.to_owned())
    }

    pub fn now() -> Self {
        FeedCursor(Self::NOW.to_owned())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn is_now(&self) -> bool {
        self.0 == Self::NOW || self.0.is_empty()
    }
}

impl From<String> for FeedCursor {
    fn from(s: String) -> Self {
        FeedCursor(s)
    }
}

impl From<&str> for FeedCursor {
    fn from(s: &str) -> Self {
        FeedCursor(s.to_owned())
    }
}

impl fmt::Display for FeedCursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Items of [`EventLog::feed`]: each entry with the cursor to resume *after* it.
pub type FeedStream = BoxStream<'static, Result<(FeedCursor, FeedEntry), LogError>>;

/// The durable event log. All methods are safe to call concurrently; the
/// trait is object safe (`Arc<dyn EventLog>`).
///
/// Error contract: `UnknownGame`, `HeaderMismatch`, `Conflict`, `Fenced`,
/// `LeaseHeld`, `LeaseLost` and `InvalidArgument` mean the call changed
/// nothing. Infrastructure errors (`Redis`, `Storage`, `Task`) from a write
/// leave its outcome unknown: re-read [`EventLog::last_seq`] before retrying.
#[async_trait]
pub trait EventLog: Send + Sync + 'static {
    /// Creates `game` with its opaque `header` (the setup). Returns `Ok(true)`
    /// if it was created, `Ok(false)` if it already existed with the same
    /// header (so retries are harmless), and `Err(HeaderMismatch)` if it
    /// exists with a different header.
    ///
    /// Game ids are 1..=[`MAX_GAME_ID_LEN`] bytes of `[A-Za-z0-9_.-]`, which
    /// keeps them safe inside Redis key names.
    async fn create_game(&self, game: &str, header: &[u8]) -> Result<bool, LogError>;

    /// The header given at creation, or `None` for an unknown game.
    async fn header(&self, game: &str) -> Result<Option<Bytes>, LogError>;

    /// All created games, sorted.
    async fn list_games(&self) -> Result<Vec<String>, LogError>;

    /// Appends `payloads` (non-empty) as seqs `expected_last_seq + 1 ..`,
    /// atomically and durably, iff the stored last seq equals
    /// `expected_last_seq` and `fence` equals the game's current fence (see
    /// the crate docs: 0 before any lease was granted). On mismatch nothing is
    /// written and the error says why: `Fenced { current_fence }` takes
    /// precedence over `Conflict { actual_last_seq }`.
    ///
    /// "Durable" means committed with an fsync for [`EmbeddedLog`], and as
    /// durable as the server's persistence settings for [`RedisLog`].
    async fn append(
        &self,
        game: &str,
        expected_last_seq: u64,
        fence: u64,
        payloads: &[Bytes],
    ) -> Result<Appended, LogError>;

    /// Seq of the newest event, 0 if the game has none.
    async fn last_seq(&self, game: &str) -> Result<u64, LogError>;

    /// Up to `max` events with `seq >= from_seq`, in order (`from_seq` 0 reads
    /// from the start). Empty past the end.
    async fn read(
        &self,
        game: &str,
        from_seq: u64,
        max: usize,
    ) -> Result<Vec<StoredEvent>, LogError>;

    /// Grants `owner` the lease for `ttl` (≥ 1 ms) if no live lease exists,
    /// with a new fence (previous fence + 1). If `owner` already holds the
    /// live lease this is a renewal: the expiry is reset and the fence kept.
    /// If someone else holds it: `Err(LeaseHeld { owner, expires_in })`.
    async fn acquire_lease(
        &self,
        game: &str,
        owner: &str,
        ttl: Duration,
    ) -> Result<Lease, LogError>;

    /// Extends the lease `(owner, fence)` to `ttl` from now. Also succeeds if
    /// it expired but nobody acquired it since (the fence is still current).
    /// Otherwise `Err(LeaseLost { current_fence })`.
    async fn renew_lease(
        &self,
        game: &str,
        owner: &str,
        fence: u64,
        ttl: Duration,
    ) -> Result<Lease, LogError>;

    /// Drops the lease if `(owner, fence)` holds it, so another owner need not
    /// wait for expiry. Idempotent: releasing a lease one no longer holds is
    /// `Ok(())` and never affects the current holder.
    async fn release_lease(&self, game: &str, owner: &str, fence: u64) -> Result<(), LogError>;

    /// Cursor of the current end of the feed: `feed(feed_head().await?)`
    /// yields exactly the entries appended after this call returned.
    async fn feed_head(&self) -> Result<FeedCursor, LogError>;

    /// Live feed of every event appended to any game (of the shards `from`
    /// names; all for a bare cursor), starting after `from`, each exactly
    /// once. Per game, seqs arrive strictly increasing without gaps, in
    /// commit order; across games of different shards the order is not
    /// defined (one shard is in commit order). Each item carries the cursor to
    /// resume after it. The stream is endless; it ends after yielding its
    /// first error (resume with the last cursor you processed) or when the
    /// log is shut down.
    fn feed(&self, from: FeedCursor) -> FeedStream;

    /// How many shards the feed is split into (1: not split).
    fn feed_shards(&self) -> u16 {
        1
    }

    /// The feed shard `game`'s events go to.
    fn feed_shard_of(&self, _game: &str) -> u16 {
        0
    }
}

pub(crate) fn validate_game_id(game: &str) -> Result<(), LogError> {
    let ok = !game.is_empty()
        && game.len() <= MAX_GAME_ID_LEN
        && game
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    if ok {
        Ok(())
    } else {
        Err(LogError::InvalidArgument(format!(
            "game id {game:?} must be 1..={MAX_GAME_ID_LEN} bytes of [A-Za-z0-9_.-]"
        )))
    }
}

pub(crate) fn validate_owner(owner: &str) -> Result<(), LogError> {
    if owner.is_empty() {
        Err(LogError::InvalidArgument(
            "lease owner must not be empty".into(),
        ))
    } else {
        Ok(())
    }
}

/// Lease TTLs are kept in whole milliseconds (Redis PX granularity).
pub(crate) fn ttl_millis(ttl: Duration) -> Result<u64, LogError> {
    let ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX);
    if ms == 0 {
        Err(LogError::InvalidArgument(
            "lease ttl must be at least 1 ms".into(),
        ))
    } else {
        Ok(ms)
    }
}
