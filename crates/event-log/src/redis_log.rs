//! Redis backend: every check-and-write is one Lua script, so it is atomic
//! with respect to every other client of the same server.

use std::sync::{Arc, LazyLock};
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use redis::{AsyncCommands, Script};
use tokio::sync::{mpsc, oneshot};

use crate::redis_batch::{self, AppendRequest, BatchConfig};
use crate::redis_conn::{Conn, Target};
use crate::redis_feed;
use crate::redis_keys::Layout;
use crate::redis_wire::{self, Wire};

use crate::{
    ttl_millis, validate_game_id, validate_owner, Appended, EventLog, FeedCursor, FeedStream,
    Lease, LogError, StoredEvent,
};

/// Settings for [`RedisLog`].
#[derive(Debug, Clone)]
pub struct RedisLogConfig {
    /// Inside every key's hash tag (`{prefix:k.salt}:games`, …; see the
    /// crate README). Tests use a unique one each.
    pub prefix: String,
    /// Approximate cap of the whole feed in entries, one per append
    /// (`XTRIM MAXLEN ~`, each shard kept at its share). A follower that
    /// far behind loses entries; see
    /// [`LogError::FeedTrimmed`].
    pub feed_maxlen: u64,
    /// Shard streams the feed is split into (a game's shard is a stable
    /// hash of its id). Every client of one log must use the same number.
    pub feed_shards: u16,
    /// On a cluster, each batch of appends is acknowledged only after
    /// `WAIT 1 <this>` (one replica has it), so a failover loses no acked
    /// event while the primary has a replica; `None` skips the wait. A
    /// single server ignores it.
    pub cluster_replica_wait: Option<Duration>,
    /// Per-command timeout on the shared connection; `None` waits forever.
    pub response_timeout: Option<Duration>,
    /// How long one `XREAD BLOCK` of a feed waits before re-issuing.
    pub feed_block: Duration,
    /// Max feed entries (appends) fetched per read.
    pub feed_batch: usize,
}

impl Default for RedisLogConfig {
    fn default() -> Self {
        RedisLogConfig {
            prefix: "mafia".to_owned(),
            feed_maxlen: 1_000_000,
            feed_shards: 16,
            cluster_replica_wait: Some(Duration::from_millis(500)),
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

/// [`EventLog`] on Redis (≥ 7.0), one server or a Redis Cluster. Cheap to
/// clone. See `redis_keys.rs` (and the crate README) for the key layout: every script
/// touches one slot.
///
/// Leases expire by server time (`PX`), so referee clocks do not matter.
/// Durability of an acknowledged append is whatever the server's persistence
/// gives (use `appendonly yes`, `appendfsync everysec` or `always`); on a
/// cluster, also what [`RedisLogConfig::cluster_replica_wait`] gives.
#[derive(Clone)]
pub struct RedisLog {
    target: Target,
    conn: Conn,
    cfg: Arc<RedisLogConfig>,
    layout: Arc<Layout>,
    /// To the group-commit task ([`crate::redis_batch`]) that sends every
    /// append; it ends when the last clone is dropped.
    appends: mpsc::UnboundedSender<AppendRequest>,
}

impl std::fmt::Debug for RedisLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisLog")
            .field("server", &self.target)
            .field("prefix", &self.cfg.prefix)
            .finish_non_exhaustive()
    }
}

// -- keys --------------------------------------------------------------------

impl RedisLog {
    fn key(&self, game: &str, what: &str) -> String {
        self.layout.game_key(game, what)
    }
}

// -- scripts -----------------------------------------------------------------
//
// Numbers cross the Lua boundary as decimal strings and are compared as
// strings: Lua 5.1 numbers are doubles and would lose precision past 2^53.

/// KEYS: header, state, the shard's games. ARGV: game, header.
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
redis.call('HSET', KEYS[2], 'fence', '0')
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

fn parse_u64(s: &str, what: &str) -> Result<u64, LogError> {
    s.parse()
        .map_err(|_| LogError::Corrupt(format!("{what} is not a u64: {s:?}")))
}

fn unexpected(script: &str, reply: &[String]) -> LogError {
    LogError::Corrupt(format!("unexpected {script} script reply {reply:?}"))
}

impl RedisLog {
    /// Connects to `url` (e.g. `redis://127.0.0.1:6379/0`) with default settings.
    pub async fn connect(url: &str) -> Result<Self, LogError> {
        Self::connect_with(url, RedisLogConfig::default()).await
    }

    /// `url` is `redis://…` for one server or
    /// `redis+cluster://host1:port1,host2:port2,…` for a cluster.
    pub async fn connect_with(url: &str, cfg: RedisLogConfig) -> Result<Self, LogError> {
        if cfg.feed_maxlen == 0 || cfg.feed_batch == 0 {
            return Err(LogError::InvalidArgument(
                "feed_maxlen and feed_batch must be at least 1".into(),
            ));
        }
        let layout = Arc::new(Layout::new(&cfg.prefix, cfg.feed_shards)?);
        let target = Target::open(url, cfg.response_timeout)?;
        let conn = target.connect(cfg.response_timeout).await?;
        tracing::info!(prefix = %cfg.prefix, target = ?target, shards = cfg.feed_shards, "connected redis event log");
        let replica_wait = match cfg.cluster_replica_wait {
            Some(wait) if target.is_cluster() => {
                // A cluster made without replicas would only add the
                // timeout to every append.
                let nodes: String = redis::cmd("CLUSTER")
                    .arg("NODES")
                    .query_async(&mut conn.clone())
                    .await?;
                let replicas = nodes.lines().filter(|l| l.contains("slave")).count();
                if replicas == 0 {
                    tracing::warn!("the cluster has no replicas: appends do not WAIT for one");
                }
                (replicas > 0).then_some(wait)
            }
            _ => None,
        };
        let (appends, rx) = mpsc::unbounded_channel();
        let batch = BatchConfig {
            layout: layout.clone(),
            grouped: target.is_cluster(),
            replica_wait,
            shard_maxlen: (cfg.feed_maxlen / u64::from(cfg.feed_shards)).max(1),
        };
        match target.single().filter(|info| redis_wire::supports(info)) {
            Some(info) => {
                let wire = Wire::new(info.clone(), cfg.response_timeout);
                tokio::spawn(redis_batch::run_on_wire(wire, batch, rx));
            }
            None => {
                tokio::spawn(redis_batch::run(conn.clone(), batch, rx));
            }
        }
        Ok(RedisLog {
            target,
            conn,
            cfg: Arc::new(cfg),
            layout,
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
            .key(self.key(game, "header"))
            .key(self.key(game, "state"))
            .key(self.layout.games_key(self.layout.shard_of(game)))
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
        let header: Option<Vec<u8>> = conn.get(self.key(game, "header")).await?;
        Ok(header.map(Bytes::from))
    }

    async fn list_games(&self) -> Result<Vec<String>, LogError> {
        let shards = (0..self.layout.shards()).map(|k| {
            let mut conn = self.conn.clone();
            let key = self.layout.games_key(k);
            async move { conn.smembers::<_, Vec<String>>(key).await }
        });
        let mut games: Vec<String> = futures::future::try_join_all(shards)
            .await?
            .into_iter()
            .flatten()
            .collect();
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
                shard: self.layout.shard_of(game),
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
        // One slot (the game's keys share a hash tag), so one pipeline on a
        // cluster too; a game's keys are never deleted, so the two reads
        // need no script to agree.
        let (exists, last): (bool, u64) = redis::pipe()
            .exists(self.key(game, "state"))
            .llen(self.key(game, "events"))
            .query_async(&mut conn)
            .await?;
        if exists {
            Ok(last)
        } else {
            Err(LogError::UnknownGame(game.to_owned()))
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
        // Seq s is the list's element s - 1; Redis parses indexes as signed
        // 64-bit integers. Nothing to read is the empty range 1..=0, so an
        // unknown game is still told.
        let first = from_seq.max(1) - 1;
        let (start, stop) = if max == 0 || first > i64::MAX as u64 {
            (1, 0)
        } else {
            (
                first,
                first.saturating_add(max as u64 - 1).min(i64::MAX as u64),
            )
        };
        let (exists, payloads): (bool, Vec<Vec<u8>>) = redis::pipe()
            .exists(self.key(game, "state"))
            .lrange(self.key(game, "events"), start as isize, stop as isize)
            .query_async(&mut conn)
            .await?;
        if !exists {
            return Err(LogError::UnknownGame(game.to_owned()));
        }
        Ok(payloads
            .into_iter()
            .zip(start + 1..)
            .map(|(payload, seq)| StoredEvent {
                seq,
                payload: Bytes::from(payload),
            })
            .collect())
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
        inv.key(self.key(game, "state"))
            .key(self.key(game, "lease"))
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
        inv.key(self.key(game, "state"))
            .key(self.key(game, "lease"))
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
        inv.key(self.key(game, "state"))
            .key(self.key(game, "lease"))
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
        let all: Vec<u16> = (0..self.layout.shards()).collect();
        redis_feed::heads(&self.conn, &self.layout, &all).await
    }

    fn feed(&self, from: FeedCursor) -> FeedStream {
        redis_feed::open(
            self.target.clone(),
            self.conn.clone(),
            self.layout.clone(),
            self.cfg.clone(),
            from,
        )
    }

    fn feed_shards(&self) -> u16 {
        self.layout.shards()
    }

    fn feed_shard_of(&self, game: &str) -> u16 {
        self.layout.shard_of(game)
    }
}
