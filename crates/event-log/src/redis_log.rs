//! Redis backend: every check-and-write is one Lua script, so it is atomic
//! with respect to every other client of the same server.

use std::collections::VecDeque;
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use redis::aio::{ConnectionManager, ConnectionManagerConfig, MultiplexedConnection};
use redis::streams::{StreamId, StreamRangeReply, StreamReadReply};
use redis::{AsyncCommands, AsyncConnectionConfig, Script};
use tokio::sync::{mpsc, oneshot};

use crate::redis_batch::{self, AppendRequest, BatchKeys};

use crate::{
    ttl_millis, validate_game_id, validate_owner, Appended, EventLog, FeedCursor, FeedEntry,
    FeedStream, Lease, LogError, StoredEvent,
};

/// Settings for [`RedisLog`].
#[derive(Debug, Clone)]
pub struct RedisLogConfig {
    /// Prepended to every key (`{prefix}:games`, …). Tests use a unique one each.
    pub prefix: String,
    /// Approximate cap of the global feed stream (`XADD MAXLEN ~`). A
    /// follower more than this many events behind loses entries; see
    /// [`LogError::FeedTrimmed`].
    pub feed_maxlen: u64,
    /// Per-command timeout on the shared connection; `None` waits forever.
    pub response_timeout: Option<Duration>,
    /// How long one `XREAD BLOCK` of a feed waits before re-issuing.
    pub feed_block: Duration,
    /// Max feed entries fetched per `XREAD`.
    pub feed_batch: usize,
}

impl Default for RedisLogConfig {
    fn default() -> Self {
        RedisLogConfig {
            prefix: "mafia".to_owned(),
            feed_maxlen: 1_000_000,
            response_timeout: Some(Duration::from_secs(5)),
            feed_block: Duration::from_secs(5),
            feed_batch: 512,
        }
    }
}

impl RedisLogConfig {
    pub fn with_prefix(prefix: impl Into<String>) -> Self {
        RedisLogConfig {
            prefix: prefix.into(),
            ..Self::default()
        }
    }
}

/// [`EventLog`] on Redis (≥ 7.0; not Redis Cluster, since one script touches
/// a game's keys and the global feed). Cheap to clone. See the crate README
/// for the key layout.
///
/// Leases expire by server time (`PX`), so referee clocks do not matter.
/// Durability of an acknowledged append is whatever the server's persistence
/// gives (use `appendonly yes`, `appendfsync everysec` or `always`).
#[derive(Clone)]
pub struct RedisLog {
    client: redis::Client,
    conn: ConnectionManager,
    cfg: Arc<RedisLogConfig>,
    /// To the group-commit task ([`crate::redis_batch`]) that sends every
    /// append; it ends when the last clone is dropped.
    appends: mpsc::UnboundedSender<AppendRequest>,
}

impl std::fmt::Debug for RedisLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisLog")
            .field("server", &self.client.get_connection_info().addr)
            .field("prefix", &self.cfg.prefix)
            .finish_non_exhaustive()
    }
}

// -- keys --------------------------------------------------------------------

impl RedisLogConfig {
    fn games_key(&self) -> String {
        format!("{}:games", self.prefix)
    }
    fn feed_key(&self) -> String {
        format!("{}:feed", self.prefix)
    }
    fn header_key(&self, game: &str) -> String {
        format!("{}:game:{game}:header", self.prefix)
    }
    fn state_key(&self, game: &str) -> String {
        format!("{}:game:{game}:state", self.prefix)
    }
    fn events_key(&self, game: &str) -> String {
        format!("{}:game:{game}:events", self.prefix)
    }
    fn lease_key(&self, game: &str) -> String {
        format!("{}:game:{game}:lease", self.prefix)
    }
}

// -- scripts -----------------------------------------------------------------
//
// Numbers cross the Lua boundary as decimal strings and are compared as
// strings: Lua 5.1 numbers are doubles and would lose precision past 2^53.

/// KEYS: header, state, games. ARGV: game, header.
/// Returns 1 created, 0 same header already there, -1 different header.
static CREATE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
local h = redis.call('GET', KEYS[1])
if h then
  if h == ARGV[2] then return 0 end
  return -1
end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('HSET', KEYS[2], 'last_seq', '0', 'fence', '0')
redis.call('SADD', KEYS[3], ARGV[1])
return 1
"#,
    )
});

/// KEYS: state, lease. ARGV: owner, ttl_ms. The lease value is "fence:owner".
static ACQUIRE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
if redis.call('EXISTS', KEYS[1]) == 0 then return {'unknown'} end
local cur = redis.call('GET', KEYS[2])
if cur then
  local sep = string.find(cur, ':', 1, true)
  local f, o = string.sub(cur, 1, sep - 1), string.sub(cur, sep + 1)
  if o ~= ARGV[1] then
    return {'held', o, string.format('%d', redis.call('PTTL', KEYS[2]))}
  end
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
  return {'ok', f}
end
local f = string.format('%d', redis.call('HINCRBY', KEYS[1], 'fence', 1))
redis.call('SET', KEYS[2], f .. ':' .. ARGV[1], 'PX', ARGV[2])
return {'ok', f}
"#,
    )
});

/// KEYS: state, lease. ARGV: owner, fence, ttl_ms.
static RENEW: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
local fence = redis.call('HGET', KEYS[1], 'fence')
if not fence then return {'unknown'} end
local cur = redis.call('GET', KEYS[2])
if cur then
  if cur == ARGV[2] .. ':' .. ARGV[1] then
    redis.call('PEXPIRE', KEYS[2], ARGV[3])
    return {'ok'}
  end
  local sep = string.find(cur, ':', 1, true)
  return {'lost', string.sub(cur, 1, sep - 1)}
end
if fence ~= ARGV[2] then return {'lost', fence} end
redis.call('SET', KEYS[2], ARGV[2] .. ':' .. ARGV[1], 'PX', ARGV[3])
return {'ok'}
"#,
    )
});

/// KEYS: state, lease. ARGV: owner, fence.
static RELEASE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
if redis.call('EXISTS', KEYS[1]) == 0 then return {'unknown'} end
if redis.call('GET', KEYS[2]) == ARGV[2] .. ':' .. ARGV[1] then
  redis.call('DEL', KEYS[2])
  return {'released'}
end
return {'ok'}
"#,
    )
});

/// KEYS: feed. ARGV: cursor, count. The feed entries after `cursor`, or
/// `{'trimmed', first}` when entries after it may have been trimmed away
/// (MAXLEN ~ drops the oldest; XREAD alone would skip them in silence).
/// Cursor "0-0" is "every retained entry" and is never trimmed. Ids are
/// compared as (length, text) pairs of their decimal halves.
static FEED_READ: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
if redis.call('EXISTS', KEYS[1]) == 0 then return {'ok', {}} end
local function half(id, i)
  local sep = string.find(id, '-', 1, true)
  if i == 1 then return string.sub(id, 1, sep - 1) end
  return string.sub(id, sep + 1)
end
local function lt(a, b)
  if #a ~= #b then return #a < #b end
  return a < b
end
local function id_lt(a, b)
  local am, bm = half(a, 1), half(b, 1)
  if am ~= bm then return lt(am, bm) end
  return lt(half(a, 2), half(b, 2))
end
if ARGV[1] ~= '0-0' then
  local info = redis.call('XINFO', 'STREAM', KEYS[1])
  local added, len, first
  for i = 1, #info, 2 do
    local k = info[i]
    if k == 'entries-added' then added = info[i + 1]
    elseif k == 'length' then len = info[i + 1]
    elseif k == 'first-entry' then first = info[i + 1] end
  end
  -- Conservative: a cursor equal to the newest trimmed id also lands here,
  -- although nothing after it was lost.
  if added and len and added > len and first and first[1] and id_lt(ARGV[1], first[1]) then
    return {'trimmed', first[1]}
  end
end
return {'ok', redis.call('XRANGE', KEYS[1], '(' .. ARGV[1], '+', 'COUNT', ARGV[2])}
"#,
    )
});

fn parse_u64(s: &str, what: &str) -> Result<u64, LogError> {
    s.parse()
        .map_err(|_| LogError::Corrupt(format!("{what} is not a u64: {s:?}")))
}

fn unexpected(script: &str, reply: &[String]) -> LogError {
    LogError::Corrupt(format!("unexpected {script} script reply {reply:?}"))
}

/// Stream id "ms-seq" as a comparable pair.
fn parse_stream_id(id: &str) -> Option<(u64, u64)> {
    match id.split_once('-') {
        Some((ms, seq)) => Some((ms.parse().ok()?, seq.parse().ok()?)),
        None => Some((id.parse().ok()?, 0)),
    }
}

impl RedisLog {
    /// Connects to `url` (e.g. `redis://127.0.0.1:6379/0`) with default settings.
    pub async fn connect(url: &str) -> Result<Self, LogError> {
        Self::connect_with(url, RedisLogConfig::default()).await
    }

    pub async fn connect_with(url: &str, cfg: RedisLogConfig) -> Result<Self, LogError> {
        if cfg.prefix.is_empty() {
            return Err(LogError::InvalidArgument(
                "redis key prefix must not be empty".into(),
            ));
        }
        if cfg.feed_maxlen == 0 || cfg.feed_batch == 0 {
            return Err(LogError::InvalidArgument(
                "feed_maxlen and feed_batch must be at least 1".into(),
            ));
        }
        let client = redis::Client::open(url)?;
        let mut mcfg = ConnectionManagerConfig::new();
        if let Some(t) = cfg.response_timeout {
            mcfg = mcfg.set_response_timeout(t).set_connection_timeout(t);
        }
        let conn = ConnectionManager::new_with_config(client.clone(), mcfg).await?;
        tracing::info!(prefix = %cfg.prefix, "connected redis event log");
        let (appends, rx) = mpsc::unbounded_channel();
        let keys = BatchKeys {
            feed: cfg.feed_key(),
            game_prefix: format!("{}:game:", cfg.prefix),
            feed_maxlen: cfg.feed_maxlen.to_string(),
        };
        tokio::spawn(redis_batch::run(conn.clone(), keys, rx));
        Ok(RedisLog {
            client,
            conn,
            cfg: Arc::new(cfg),
            appends,
        })
    }

    pub fn config(&self) -> &RedisLogConfig {
        &self.cfg
    }

    async fn run(&self, inv: redis::ScriptInvocation<'_>) -> Result<Vec<String>, LogError> {
        let mut conn = self.conn.clone();
        Ok(inv.invoke_async(&mut conn).await?)
    }
}

#[async_trait]
impl EventLog for RedisLog {
    async fn create_game(&self, game: &str, header: &[u8]) -> Result<bool, LogError> {
        validate_game_id(game)?;
        let mut conn = self.conn.clone();
        let created: i64 = CREATE
            .key(self.cfg.header_key(game))
            .key(self.cfg.state_key(game))
            .key(self.cfg.games_key())
            .arg(game)
            .arg(header)
            .invoke_async(&mut conn)
            .await?;
        match created {
            1 => {
                tracing::debug!(%game, "created game");
                Ok(true)
            }
            0 => Ok(false),
            _ => Err(LogError::HeaderMismatch {
                game: game.to_owned(),
            }),
        }
    }

    async fn header(&self, game: &str) -> Result<Option<Bytes>, LogError> {
        validate_game_id(game)?;
        let mut conn = self.conn.clone();
        let header: Option<Vec<u8>> = conn.get(self.cfg.header_key(game)).await?;
        Ok(header.map(Bytes::from))
    }

    async fn list_games(&self) -> Result<Vec<String>, LogError> {
        let mut conn = self.conn.clone();
        let mut games: Vec<String> = conn.smembers(self.cfg.games_key()).await?;
        games.sort();
        Ok(games)
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
        let (reply, answer) = oneshot::channel();
        self.appends
            .send(AppendRequest {
                game: game.to_owned(),
                expected_last_seq,
                fence,
                payloads: payloads.to_vec(),
                reply,
            })
            .map_err(|_| LogError::Task("the redis append task has stopped".into()))?;
        answer
            .await
            .map_err(|_| LogError::Task("the redis append task has stopped".into()))?
    }

    async fn last_seq(&self, game: &str) -> Result<u64, LogError> {
        validate_game_id(game)?;
        let mut conn = self.conn.clone();
        let last: Option<String> = conn.hget(self.cfg.state_key(game), "last_seq").await?;
        match last {
            Some(l) => parse_u64(&l, "last_seq"),
            None => Err(LogError::UnknownGame(game.to_owned())),
        }
    }

    async fn read(
        &self,
        game: &str,
        from_seq: u64,
        max: usize,
    ) -> Result<Vec<StoredEvent>, LogError> {
        validate_game_id(game)?;
        let mut conn = self.conn.clone();
        // Redis parses COUNT as a signed 64-bit integer.
        let count = max.min(i64::MAX as usize);
        let (exists, range): (bool, StreamRangeReply) = redis::pipe()
            .exists(self.cfg.state_key(game))
            .cmd("XRANGE")
            .arg(self.cfg.events_key(game))
            .arg(format!("{}-0", from_seq.max(1)))
            .arg("+")
            .arg("COUNT")
            .arg(count.max(1))
            .query_async(&mut conn)
            .await?;
        if !exists {
            return Err(LogError::UnknownGame(game.to_owned()));
        }
        if max == 0 {
            return Ok(Vec::new());
        }
        range
            .ids
            .iter()
            .map(|e| {
                let seq = parse_stream_id(&e.id)
                    .map(|(ms, _)| ms)
                    .ok_or_else(|| LogError::Corrupt(format!("bad event id {:?}", e.id)))?;
                Ok(StoredEvent {
                    seq,
                    payload: field_bytes(e, "p")?,
                })
            })
            .collect()
    }

    async fn acquire_lease(
        &self,
        game: &str,
        owner: &str,
        ttl: Duration,
    ) -> Result<Lease, LogError> {
        validate_game_id(game)?;
        validate_owner(owner)?;
        let ttl_ms = ttl_millis(ttl)?;
        let mut inv = ACQUIRE.prepare_invoke();
        inv.key(self.cfg.state_key(game))
            .key(self.cfg.lease_key(game))
            .arg(owner)
            .arg(ttl_ms.to_string());
        let reply = self.run(inv).await?;
        match reply.as_slice() {
            [s, f] if s == "ok" => {
                let fence = parse_u64(f, "fence")?;
                tracing::debug!(%game, %owner, fence, "lease acquired");
                Ok(Lease {
                    owner: owner.to_owned(),
                    fence,
                    expires_in: Duration::from_millis(ttl_ms),
                })
            }
            [s, o, pttl] if s == "held" => Err(LogError::LeaseHeld {
                owner: o.clone(),
                expires_in: Duration::from_millis(pttl.parse::<i64>().unwrap_or(0).max(0) as u64),
            }),
            [s] if s == "unknown" => Err(LogError::UnknownGame(game.to_owned())),
            other => Err(unexpected("acquire", other)),
        }
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
        let ttl_ms = ttl_millis(ttl)?;
        let mut inv = RENEW.prepare_invoke();
        inv.key(self.cfg.state_key(game))
            .key(self.cfg.lease_key(game))
            .arg(owner)
            .arg(fence.to_string())
            .arg(ttl_ms.to_string());
        let reply = self.run(inv).await?;
        match reply.as_slice() {
            [s] if s == "ok" => Ok(Lease {
                owner: owner.to_owned(),
                fence,
                expires_in: Duration::from_millis(ttl_ms),
            }),
            [s, f] if s == "lost" => Err(LogError::LeaseLost {
                current_fence: parse_u64(f, "fence")?,
            }),
            [s] if s == "unknown" => Err(LogError::UnknownGame(game.to_owned())),
            other => Err(unexpected("renew", other)),
        }
    }

    async fn release_lease(&self, game: &str, owner: &str, fence: u64) -> Result<(), LogError> {
        validate_game_id(game)?;
        let mut inv = RELEASE.prepare_invoke();
        inv.key(self.cfg.state_key(game))
            .key(self.cfg.lease_key(game))
            .arg(owner)
            .arg(fence.to_string());
        let reply = self.run(inv).await?;
        match reply.as_slice() {
            [s] if s == "released" => {
                tracing::debug!(%game, %owner, fence, "lease released");
                Ok(())
            }
            [s] if s == "ok" => Ok(()),
            [s] if s == "unknown" => Err(LogError::UnknownGame(game.to_owned())),
            other => Err(unexpected("release", other)),
        }
    }

    async fn feed_head(&self) -> Result<FeedCursor, LogError> {
        let mut conn = self.conn.clone();
        head_id(&mut conn, &self.cfg.feed_key())
            .await
            .map(FeedCursor::from)
    }

    fn feed(&self, from: FeedCursor) -> FeedStream {
        let state = RedisFeed {
            client: self.client.clone(),
            cfg: Arc::clone(&self.cfg),
            conn: None,
            from: Some(from),
            cursor: String::new(),
            buf: VecDeque::new(),
            done: false,
        };
        Box::pin(futures::stream::unfold(state, RedisFeed::next))
    }
}

fn field_bytes(e: &StreamId, field: &str) -> Result<Bytes, LogError> {
    e.get::<Vec<u8>>(field)
        .map(Bytes::from)
        .ok_or_else(|| LogError::Corrupt(format!("stream entry {} lacks field {field}", e.id)))
}

/// Id of the newest feed entry, "0-0" for an empty feed.
async fn head_id<C: redis::aio::ConnectionLike + Send>(
    conn: &mut C,
    feed_key: &str,
) -> Result<String, LogError> {
    let last: StreamRangeReply = redis::cmd("XREVRANGE")
        .arg(feed_key)
        .arg("+")
        .arg("-")
        .arg("COUNT")
        .arg(1)
        .query_async(conn)
        .await?;
    Ok(last
        .ids
        .into_iter()
        .next()
        .map(|e| e.id)
        .unwrap_or_else(|| "0-0".to_owned()))
}

struct RedisFeed {
    client: redis::Client,
    cfg: Arc<RedisLogConfig>,
    /// Own connection: a blocking XREAD would stall every other command
    /// multiplexed on the shared one.
    conn: Option<MultiplexedConnection>,
    /// The requested start, until resolved into `cursor` on first poll.
    from: Option<FeedCursor>,
    cursor: String,
    buf: VecDeque<(String, FeedEntry)>,
    done: bool,
}

type FeedItem = Result<(FeedCursor, FeedEntry), LogError>;

impl RedisFeed {
    async fn next(mut self) -> Option<(FeedItem, Self)> {
        if self.done {
            return None;
        }
        match self.fill().await {
            Ok(()) => {
                let (id, entry) = self.buf.pop_front()?;
                self.cursor.clone_from(&id);
                Some((Ok((FeedCursor::from(id), entry)), self))
            }
            Err(e) => {
                self.done = true;
                Some((Err(e), self))
            }
        }
    }

    /// Makes `buf` non-empty, blocking on the server as long as needed.
    /// Each batch is read by a script that first checks nothing after the
    /// cursor was trimmed; the blocking XREAD only waits for the next entry.
    async fn fill(&mut self) -> Result<(), LogError> {
        let feed_key = self.cfg.feed_key();
        if self.conn.is_none() {
            let conn = self
                .client
                .get_multiplexed_async_connection_with_config(&AsyncConnectionConfig::new())
                .await?;
            self.conn = Some(conn);
        }
        let Some(conn) = self.conn.as_mut() else {
            unreachable!("connection was just set");
        };
        if let Some(from) = self.from.take() {
            self.cursor = resolve_start(conn, &feed_key, &from).await?;
        }
        while self.buf.is_empty() {
            let (status, body): (String, redis::Value) = FEED_READ
                .key(&feed_key)
                .arg(&self.cursor)
                .arg(self.cfg.feed_batch)
                .invoke_async(conn)
                .await?;
            match status.as_str() {
                "ok" => {}
                "trimmed" => {
                    return Err(LogError::FeedTrimmed {
                        cursor: self.cursor.clone(),
                        trimmed_up_to: redis::from_redis_value(&body)?,
                    })
                }
                _ => return Err(LogError::Corrupt(format!("feed read said {status:?}"))),
            }
            let range: StreamRangeReply = redis::from_redis_value(&body)?;
            for e in range.ids {
                let game: String = e
                    .get("g")
                    .ok_or_else(|| LogError::Corrupt(format!("feed entry {} lacks g", e.id)))?;
                let seq: u64 = e
                    .get("s")
                    .ok_or_else(|| LogError::Corrupt(format!("feed entry {} lacks s", e.id)))?;
                let payload = field_bytes(&e, "p")?;
                self.buf.push_back((e.id, FeedEntry { game, seq, payload }));
            }
            if !self.buf.is_empty() {
                break;
            }
            let _: Option<StreamReadReply> = redis::cmd("XREAD")
                .arg("COUNT")
                .arg(1)
                .arg("BLOCK")
                .arg(self.cfg.feed_block.as_millis().max(1) as u64)
                .arg("STREAMS")
                .arg(&feed_key)
                .arg(&self.cursor)
                .query_async(conn)
                .await?;
        }
        Ok(())
    }
}

/// Turns the caller's cursor into a concrete stream id; whether entries
/// after it were trimmed is checked by every read ([`FEED_READ`]).
async fn resolve_start(
    conn: &mut MultiplexedConnection,
    feed_key: &str,
    from: &FeedCursor,
) -> Result<String, LogError> {
    // "$" cannot be used across repeated XREADs (entries added between two
    // calls would be skipped), so pin it to the current newest id.
    if from.is_now() {
        return head_id(conn, feed_key).await;
    }
    let Some(pos) = parse_stream_id(from.as_str()) else {
        return Err(LogError::InvalidArgument(format!(
            "not a redis feed cursor: {from}"
        )));
    };
    Ok(format!("{}-{}", pos.0, pos.1))
}
