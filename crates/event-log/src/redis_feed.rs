//! Reading [`RedisLog`](crate::RedisLog)'s feed: its shard streams, merged
//! into one [`FeedStream`] whose cursor holds one stream id per shard.
//!
//! The shards are read in *groups*, each by a task with a connection of its
//! own (a blocked `XREAD` holds it): on one server a single group reads
//! every shard (one script call, one `XREAD` over all of them); on a
//! cluster each shard is a group of its own, since a script or an `XREAD`
//! may name keys of one slot only. Per shard the order is the commit order,
//! so per game it is too (a game lives in one shard); across shards, the
//! entries of one read are merged by stream id.

use std::collections::BTreeMap;
use std::sync::{Arc, LazyLock};

use redis::streams::StreamRangeReply;
use redis::{Script, Value};
use tokio::sync::mpsc;

use crate::position::Position;
use crate::redis_conn::{Conn, Target};
use crate::redis_keys::Layout;
use crate::redis_log::field_bytes;
use crate::{FeedCursor, FeedEntry, FeedStream, LogError, RedisLogConfig};

/// KEYS: shard feeds. ARGV: count, then a cursor per key. Per key, the
/// entries after its cursor (`{'ok', entries}`), or `{'trimmed', first}`
/// when entries after it may have been trimmed away (MAXLEN ~ drops the
/// oldest; XREAD alone would skip them in silence). Cursor "0-0" is "every
/// retained entry" and is never trimmed. Ids are compared as (length, text)
/// pairs of their decimal halves.
static FEED_READ: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
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
local out = {}
for k = 1, #KEYS do
  local key, cursor = KEYS[k], ARGV[k + 1]
  if redis.call('EXISTS', key) == 0 then
    out[k] = {'ok', {}}
  else
    local trimmed
    if cursor ~= '0-0' then
      local info = redis.call('XINFO', 'STREAM', key)
      local added, len, first
      for i = 1, #info, 2 do
        local f = info[i]
        if f == 'entries-added' then added = info[i + 1]
        elseif f == 'length' then len = info[i + 1]
        elseif f == 'first-entry' then first = info[i + 1] end
      end
      -- Conservative: a cursor equal to the newest trimmed id also lands
      -- here, although nothing after it was lost.
      if added and len and added > len and first and first[1] and id_lt(cursor, first[1]) then
        trimmed = first[1]
      end
    end
    if trimmed then
      out[k] = {'trimmed', trimmed}
    else
      out[k] = {'ok', redis.call('XRANGE', key, '(' .. cursor, '+', 'COUNT', ARGV[1])}
    end
  end
end
return out
"#,
    )
});

/// Id of the newest entry of `feed_key`, "0-0" for an empty shard.
async fn head_id(mut conn: Conn, feed_key: String) -> Result<String, LogError> {
    let last: StreamRangeReply = redis::cmd("XREVRANGE")
        .arg(&feed_key)
        .arg("+")
        .arg("-")
        .arg("COUNT")
        .arg(1)
        .query_async(&mut conn)
        .await?;
    Ok(last
        .ids
        .into_iter()
        .next()
        .map(|e| e.id)
        .unwrap_or_else(|| "0-0".to_owned()))
}

/// The cursor of the current end of `shards`.
pub(crate) async fn heads(conn: &Conn, layout: &Layout, shards: &[u16]) -> Result<FeedCursor, LogError> {
    let ids = futures::future::try_join_all(
        shards
            .iter()
            .map(|&k| head_id(conn.clone(), layout.feed_key(k))),
    )
    .await?;
    Ok(cursor_of(&shards.iter().copied().zip(ids).collect()))
}

fn cursor_of(pos: &BTreeMap<u16, String>) -> FeedCursor {
    let parts: Vec<String> = pos.iter().map(|(k, id)| format!("{k}:{id}")).collect();
    FeedCursor::from(parts.join(","))
}

/// What a group's task tells the merged stream.
enum GroupItem {
    Entry(u16, String, FeedEntry),
    Trimmed(u16, String),
    Failed(LogError),
}

struct Feed {
    target: Target,
    conn: Conn,
    layout: Arc<Layout>,
    cfg: Arc<RedisLogConfig>,
    /// The requested start, until resolved on first poll.
    from: Option<FeedCursor>,
    /// Where each followed shard stands.
    pos: BTreeMap<u16, String>,
    rx: Option<mpsc::Receiver<GroupItem>>,
    /// The groups' tasks, stopped with the stream.
    tasks: Vec<AbortOnDrop>,
    done: bool,
}

struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

type FeedItem = Result<(FeedCursor, FeedEntry), LogError>;

pub(crate) fn open(
    target: Target,
    conn: Conn,
    layout: Arc<Layout>,
    cfg: Arc<RedisLogConfig>,
    from: FeedCursor,
) -> FeedStream {
    let feed = Feed {
        target,
        conn,
        layout,
        cfg,
        from: Some(from),
        pos: BTreeMap::new(),
        rx: None,
        tasks: Vec::new(),
        done: false,
    };
    Box::pin(futures::stream::unfold(feed, Feed::next))
}

impl Feed {
    async fn next(mut self) -> Option<(FeedItem, Self)> {
        if self.done {
            return None;
        }
        match self.step().await {
            Ok(Some(item)) => Some((Ok(item), self)),
            Ok(None) => None,
            Err(e) => {
                self.done = true;
                self.tasks.clear();
                Some((Err(e), self))
            }
        }
    }

    async fn step(&mut self) -> Result<Option<(FeedCursor, FeedEntry)>, LogError> {
        if let Some(from) = self.from.take() {
            self.pos = self.resolve(&from).await?;
            self.start_groups();
        }
        let Some(rx) = self.rx.as_mut() else {
            return Ok(None);
        };
        match rx.recv().await {
            Some(GroupItem::Entry(k, id, entry)) => {
                self.pos.insert(k, id);
                Ok(Some((cursor_of(&self.pos), entry)))
            }
            Some(GroupItem::Trimmed(k, first)) => {
                let cursor = cursor_of(&self.pos).as_str().to_owned();
                self.pos.insert(k, "0-0".to_owned());
                Err(LogError::FeedTrimmed {
                    cursor,
                    trimmed_up_to: first,
                    resume: cursor_of(&self.pos).as_str().to_owned(),
                })
            }
            Some(GroupItem::Failed(e)) => Err(e),
            None => Ok(None),
        }
    }

    /// The caller's cursor as a concrete id per shard.
    async fn resolve(&self, from: &FeedCursor) -> Result<BTreeMap<u16, String>, LogError> {
        let n = self.layout.shards();
        // "$" cannot be used across repeated XREADs (entries added between
        // two calls would be skipped), so pin it to the current newest ids.
        if from.is_now() {
            let all: Vec<u16> = (0..n).collect();
            let head = heads(&self.conn, &self.layout, &all).await?;
            return Box::pin(self.resolve(&head)).await;
        }
        let bad = || LogError::InvalidArgument(format!("not a redis feed cursor: {from}"));
        match Position::parse(from).ok_or_else(bad)? {
            Position::All((a, b)) => Ok((0..n).map(|k| (k, format!("{a}-{b}"))).collect()),
            Position::Shards(v) if !v.is_empty() && v.iter().all(|(k, _)| *k < n) => {
                Ok(v.into_iter().map(|(k, (a, b))| (k, format!("{a}-{b}"))).collect())
            }
            Position::Shards(_) => Err(bad()),
        }
    }

    fn start_groups(&mut self) {
        let groups: Vec<Vec<(u16, String)>> = if self.target.is_cluster() {
            self.pos.iter().map(|(k, id)| vec![(*k, id.clone())]).collect()
        } else {
            vec![self.pos.iter().map(|(k, id)| (*k, id.clone())).collect()]
        };
        let (tx, rx) = mpsc::channel(self.cfg.feed_batch.max(1));
        for group in groups {
            let reader = GroupReader {
                target: self.target.clone(),
                cfg: self.cfg.clone(),
                keys: group.iter().map(|(k, _)| self.layout.feed_key(*k)).collect(),
                shards: group.iter().map(|(k, _)| *k).collect(),
                ids: group.into_iter().map(|(_, id)| id).collect(),
                tx: tx.clone(),
            };
            self.tasks.push(AbortOnDrop(tokio::spawn(reader.run())));
        }
        self.rx = Some(rx);
    }
}

/// One group of shards, read by one task on its own connection.
struct GroupReader {
    target: Target,
    cfg: Arc<RedisLogConfig>,
    keys: Vec<String>,
    shards: Vec<u16>,
    ids: Vec<String>,
    tx: mpsc::Sender<GroupItem>,
}

impl GroupReader {
    async fn run(mut self) {
        if let Err(e) = self.read_all().await {
            let _ = self.tx.send(GroupItem::Failed(e)).await;
        }
    }

    /// Until the stream is dropped or the store fails: each batch is read
    /// by [`FEED_READ`], which first checks that nothing after the cursors
    /// was trimmed; the blocking XREAD only waits for the next entry.
    async fn read_all(&mut self) -> Result<(), LogError> {
        let mut conn = self.target.blocking(self.cfg.feed_block).await?;
        loop {
            let mut inv = FEED_READ.prepare_invoke();
            for key in &self.keys {
                inv.key(key);
            }
            inv.arg(self.cfg.feed_batch);
            for id in &self.ids {
                inv.arg(id);
            }
            let replies: Vec<(String, Value)> = inv.invoke_async(&mut conn).await?;
            let mut batch = Vec::new();
            for (i, (status, body)) in replies.into_iter().enumerate() {
                match status.as_str() {
                    "ok" => {}
                    "trimmed" => {
                        let first: String = redis::from_redis_value(&body)?;
                        let _ = self.tx.send(GroupItem::Trimmed(self.shards[i], first)).await;
                        return Ok(());
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
                    let at = crate::position::parse_pos(&e.id);
                    batch.push((at, i, e.id, FeedEntry { game, seq, payload }));
                }
            }
            if batch.is_empty() {
                let _: Value = redis::cmd("XREAD")
                    .arg("COUNT")
                    .arg(1)
                    .arg("BLOCK")
                    .arg(self.cfg.feed_block.as_millis().max(1) as u64)
                    .arg("STREAMS")
                    .arg(&self.keys)
                    .arg(&self.ids)
                    .query_async(&mut conn)
                    .await?;
                continue;
            }
            // Stable: within a shard the order stays the stream's.
            batch.sort_by_key(|(at, ..)| *at);
            for (_, i, id, entry) in batch {
                self.ids[i].clone_from(&id);
                if self.tx.send(GroupItem::Entry(self.shards[i], id, entry)).await.is_err() {
                    return Ok(());
                }
            }
        }
    }
}
