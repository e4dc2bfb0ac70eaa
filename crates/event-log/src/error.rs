use std::time::Duration;

/// Everything that can go wrong with an [`EventLog`](crate::EventLog) call.
///
/// The first group of variants are *outcomes* a caller is expected to handle
/// (they mean "nothing was written"); the last group are infrastructure
/// failures after which the effect of a write is unknown (see
/// [`EventLog::append`](crate::EventLog::append)).
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    /// The game was never created with [`EventLog::create_game`](crate::EventLog::create_game).
    #[error("unknown game {0:?}")]
    UnknownGame(String),

    /// `create_game` was called for an existing game with a different header.
    #[error("game {game:?} already exists with a different header")]
    HeaderMismatch { game: String },

    /// The caller's `expected_last_seq` is not the stored last seq; nothing was written.
    #[error("append conflict: the log's last seq is {actual_last_seq}")]
    Conflict { actual_last_seq: u64 },

    /// The caller's fence is not the game's current fence (another writer took
    /// the lease, or a lease was granted since a fence-0 writer started);
    /// nothing was written.
    #[error("append fenced out: the game's current fence is {current_fence}")]
    Fenced { current_fence: u64 },

    /// Another owner holds a live lease on the game.
    #[error("lease held by {owner:?} for another {expires_in:?}")]
    LeaseHeld { owner: String, expires_in: Duration },

    /// The caller's lease expired and was taken over, or its fence is stale.
    #[error("lease lost: current fence is {current_fence}")]
    LeaseLost { current_fence: u64 },

    /// A game id, owner, TTL, batch or cursor that the log refuses to store.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),

    /// The feed cursor points at entries that were already trimmed away
    /// (Redis caps the feed stream); resume from a newer cursor and catch up
    /// per game with [`EventLog::read`](crate::EventLog::read).
    #[error(
        "feed cursor {cursor} is older than the retained feed (trimmed up to {trimmed_up_to})"
    )]
    FeedTrimmed {
        cursor: String,
        trimmed_up_to: String,
        /// Where to go on: `cursor` with the trimmed shard moved to the
        /// start of what it retains (the other shards lost nothing).
        resume: String,
    },

    /// The Redis server or connection failed.
    #[error("redis: {0}")]
    Redis(#[source] Box<redis::RedisError>),

    /// The embedded log's file failed (I/O), or is locked by another open log.
    #[error("embedded storage: {0}")]
    Storage(#[source] Box<dyn std::error::Error + Send + Sync>),

    /// A backend answered something this crate cannot interpret (corrupt data
    /// or an incompatible layout).
    #[error("corrupt or unexpected stored data: {0}")]
    Corrupt(String),

    /// The blocking worker running an embedded database call panicked or was cancelled.
    #[error("background task failed: {0}")]
    Task(String),
}

impl From<redis::RedisError> for LogError {
    fn from(e: redis::RedisError) -> Self {
        LogError::Redis(Box::new(e))
    }
}

impl From<tokio::task::JoinError> for LogError {
    fn from(e: tokio::task::JoinError) -> Self {
        LogError::Task(e.to_string())
    }
}
