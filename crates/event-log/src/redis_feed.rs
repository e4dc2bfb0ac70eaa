//! Reading [`RedisLog`](crate::RedisLog)'s feed: its shard streams, merged
//! into one [`FeedStream`] whose cursor holds one stream id per shard.
//!
//! The shards are read in *groups*, on demand: on one server a single
//! group reads every shard (one script call, one blocking `XREAD` over all
//! of them); on a cluster each shard is a group of its own, since a script
//! or an `XREAD` may name keys of one slot only. A group waits for news on
//! a connection of its own (a blocked `XREAD` holds it); reading is on the
//! shared one. Per shard the order is the commit order,
//! so per game it is too (a game lives in one shard); across shards, the
//! entries of one read are merged by stream id.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, LazyLock};

use bytes::Bytes;
use futures::future::BoxFuture;
use futures::stream::{FuturesUnordered, StreamExt};
use redis::streams::{StreamRangeReply, StreamReadReply};
use redis::{Script, Value};

use crate::position::{parse_pos, pos_text, Position};
use crate::redis_conn::{Conn, Target};
use crate::redis_keys::Layout;
use crate::{FeedCursor, FeedEntry, FeedStream, LogError, RedisLogConfig};

/// KEYS: shard feeds. ARGV: count, a cursor per key, the games' keys'
/// text before the game id per key, and their text after it (the events
/// list's). Per key, the entries after its cursor (from its own entry on,
/// for a cursor inside one) (`{'ok', entries}`), each an append's entry
/// (one field, `e`: `<game> <first seq> <count>`) with the append's
/// payloads read from its game's list as a third element (an entry
/// written before entries named their appends holds its payloads as `p`
/// fields and gets none), or `{'trimmed', first}`
/// when entries after it may have been trimmed away (MAXLEN ~ drops the
/// oldest; XREAD alone would skip them in silence). Cursor "0-0" is "every
/// retained entry" and is never trimmed.
///
/// The range starts at the cursor itself: while the cursor's own entry is
/// still there, nothing after it was trimmed (the oldest go first), and
/// that entry is dropped from the answer. Only a cursor whose entry is gone
/// (or never was one) pays for `XINFO STREAM`, whose answer carries the
/// first and last entries whole: asking it of every shard on every read
/// cost the server more than the appends it followed. Ids are compared as
/// (length, text) pairs of their decimal halves.
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
local count = tonumber(ARGV[1])
local after = ARGV[2 + 2 * #KEYS]
local function with_events(got, k)
  local before = ARGV[1 + #KEYS + k]
  for _, e in ipairs(got) do
    local f = e[2]
    if f[1] == 'e' then
      local g, s, n = string.match(f[2], '^(%S+) (%d+) (%d+)$')
      if g then
        s = tonumber(s)
        e[3] = redis.call('LRANGE', before .. g .. after, s - 1, s + tonumber(n) - 2)
      end
    end
  end
  return got
end
local out = {}
for k = 1, #KEYS do
  local key, cursor = KEYS[k], ARGV[k + 1]
  -- 'ms-n.c': part of entry ms-n was yielded; the entry is read again.
  local dot = string.find(cursor, '.', 1, true)
  if dot then cursor = string.sub(cursor, 1, dot - 1) end
  if cursor == '0-0' then
    out[k] = {'ok', with_events(redis.call('XRANGE', key, '-', '+', 'COUNT', count), k)}
  else
    local got = redis.call('XRANGE', key, cursor, '+', 'COUNT', count + 1)
    if got[1] and got[1][1] == cursor then
      if dot then
        if #got > count then table.remove(got) end
      else
        table.remove(got, 1)
      end
      out[k] = {'ok', with_events(got, k)}
    else
      local trimmed
      if redis.call('EXISTS', key) == 1 then
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
        if #got > count then table.remove(got) end
        out[k] = {'ok', with_events(got, k)}
      end
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
pub(crate) async fn heads(
    conn: &Conn,
    layout: &Layout,
    shards: &[u16],
) -> Result<FeedCursor, LogError> {
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

struct Feed {
    target: Target,
    conn: Conn,
    layout: Arc<Layout>,
    cfg: Arc<RedisLogConfig>,
    /// The requested start, until resolved on first poll.
    from: Option<FeedCursor>,
    /// Where each followed shard stands (as yielded).
    pos: BTreeMap<u16, String>,
    groups: Vec<Group>,
    /// Read, not yet yielded.
    buf: VecDeque<(u16, String, FeedEntry)>,
    /// The groups' blocked `XREAD`s, each ending when its group has news
    /// (or its block ran out).
    wakes: FuturesUnordered<BoxFuture<'static, Woken>>,
    done: bool,
    /// The games' events keys after the game id (the same in every shard).
    events_after: String,
}

/// Shards read together: one script call, one blocking `XREAD`.
struct Group {
    shards: Vec<u16>,
    keys: Vec<String>,
    /// Per shard, its games' events keys up to the game id.
    events_before: Vec<String>,
    /// Where the group has read up to (ahead of `pos` by `buf`).
    ids: Vec<String>,
    /// Its own connection, for the blocking `XREAD`.
    blocking: Option<Conn>,
    waiting: bool,
    /// Per shard: read it next time (its `XREAD` said it has news, or its
    /// last read was a whole batch). The others are not read: with one
    /// event per wakeup, a read of every shard cost the server a dozen
    /// times the one that has it.
    stale: Vec<bool>,
}

type FeedItem = Result<(FeedCursor, FeedEntry), LogError>;

/// A group's `XREAD` returned: the group, and its keys that have news.
type Woken = (usize, Result<Vec<String>, LogError>);

pub(crate) fn open(
    target: Target,
    conn: Conn,
    layout: Arc<Layout>,
    cfg: Arc<RedisLogConfig>,
    from: FeedCursor,
) -> FeedStream {
    let events_after = layout.game_key_around(0, "events").1;
    let feed = Feed {
        target,
        conn,
        layout,
        cfg,
        from: Some(from),
        pos: BTreeMap::new(),
        groups: Vec::new(),
        buf: VecDeque::new(),
        wakes: FuturesUnordered::new(),
        done: false,
        events_after,
    };
    Box::pin(futures::stream::unfold(feed, Feed::next))
}

impl Feed {
    async fn next(mut self) -> Option<(FeedItem, Self)> {
        if self.done {
            return None;
        }
        match self.step().await {
            Ok(item) => Some((Ok(item), self)),
            Err(e) => {
                self.done = true;
                Some((Err(e), self))
            }
        }
    }

    async fn step(&mut self) -> Result<(FeedCursor, FeedEntry), LogError> {
        if let Some(from) = self.from.take() {
            self.pos = resolve(&self.conn, &self.layout, &from).await?;
            self.make_groups();
        }
        loop {
            if let Some((k, id, entry)) = self.buf.pop_front() {
                self.pos.insert(k, id);
                return Ok((cursor_of(&self.pos), entry));
            }
            // Read first while some shard is stale (nothing read yet, or
            // its last read was a whole batch); else wait first: a blocked
            // `XREAD` returns at once when news came since, and a read that
            // finds nothing costs the server a script call.
            if !self.groups.iter().any(|g| g.stale.contains(&true)) {
                self.wait().await?;
            }
            self.read().await?;
        }
    }
}

/// The caller's cursor as a concrete id per shard.
async fn resolve(
    conn: &Conn,
    layout: &Layout,
    from: &FeedCursor,
) -> Result<BTreeMap<u16, String>, LogError> {
    let n = layout.shards();
    // "$" cannot be used across repeated XREADs (entries added between
    // two calls would be skipped), so pin it to the current newest ids.
    let from = if from.is_now() {
        let all: Vec<u16> = (0..n).collect();
        heads(conn, layout, &all).await?
    } else {
        from.clone()
    };
    let bad = || LogError::InvalidArgument(format!("not a redis feed cursor: {from}"));
    match Position::parse(&from).ok_or_else(bad)? {
        Position::All(p) => Ok((0..n).map(|k| (k, pos_text(p))).collect()),
        Position::Shards(v) if !v.is_empty() && v.iter().all(|(k, _)| *k < n) => {
            Ok(v.into_iter().map(|(k, p)| (k, pos_text(p))).collect())
        }
        Position::Shards(_) => Err(bad()),
    }
}

impl Feed {
    fn make_groups(&mut self) {
        let shards: Vec<(u16, String)> = self.pos.iter().map(|(k, id)| (*k, id.clone())).collect();
        let sets: Vec<Vec<(u16, String)>> = if self.target.is_cluster() {
            shards.into_iter().map(|s| vec![s]).collect()
        } else {
            vec![shards]
        };
        self.groups = sets
            .into_iter()
            .map(|set| Group {
                keys: set.iter().map(|(k, _)| self.layout.feed_key(*k)).collect(),
                events_before: set
                    .iter()
                    .map(|(k, _)| self.layout.game_key_around(*k, "events").0)
                    .collect(),
                shards: set.iter().map(|(k, _)| *k).collect(),
                stale: vec![true; set.len()],
                ids: set.into_iter().map(|(_, id)| id).collect(),
                blocking: None,
                waiting: false,
            })
            .collect();
    }

    /// Reads the stale shards of every group once, on the shared
    /// connection: each group's by [`FEED_READ`], which first checks that
    /// nothing after the cursors was trimmed.
    async fn read(&mut self) -> Result<(), LogError> {
        let reads = self.groups.iter().enumerate().filter_map(|(gi, g)| {
            let read: Vec<usize> = (0..g.keys.len()).filter(|&i| g.stale[i]).collect();
            if read.is_empty() {
                return None;
            }
            let mut conn = self.conn.clone();
            let mut inv = FEED_READ.prepare_invoke();
            for &i in &read {
                inv.key(&g.keys[i]);
            }
            inv.arg(self.cfg.feed_batch);
            for &i in &read {
                inv.arg(&g.ids[i]);
            }
            for &i in &read {
                inv.arg(&g.events_before[i]);
            }
            inv.arg(&self.events_after);
            Some(async move {
                let replies = inv.invoke_async::<Vec<(String, Value)>>(&mut conn).await?;
                Ok::<_, LogError>((gi, read, replies))
            })
        });
        let replies = futures::future::try_join_all(reads).await?;
        let mut batch = Vec::new();
        for (gi, read, replies) in replies {
            let g = &mut self.groups[gi];
            if replies.len() != read.len() {
                return Err(LogError::Corrupt(format!(
                    "feed read answered {} shards of {}",
                    replies.len(),
                    read.len()
                )));
            }
            for (i, (status, body)) in read.into_iter().zip(replies) {
                let k = g.shards[i];
                match status.as_str() {
                    "ok" => {}
                    "trimmed" => {
                        let cursor = cursor_of(&self.pos).as_str().to_owned();
                        self.pos.insert(k, "0-0".to_owned());
                        return Err(LogError::FeedTrimmed {
                            cursor,
                            trimmed_up_to: redis::from_redis_value(&body)?,
                            resume: cursor_of(&self.pos).as_str().to_owned(),
                        });
                    }
                    _ => return Err(LogError::Corrupt(format!("feed read said {status:?}"))),
                }
                let entries = entries(body)?;
                g.stale[i] = entries.len() >= self.cfg.feed_batch.max(1);
                // A cursor inside an entry: that entry comes again, its
                // first `c` events already yielded.
                let (cursor_id, mut skip) = match g.ids[i].split_once('.') {
                    Some((id, c)) => (id.to_owned(), c.parse().unwrap_or(usize::MAX)),
                    None => (String::new(), 0),
                };
                if entries.is_empty() && !cursor_id.is_empty() {
                    g.ids[i] = cursor_id.clone();
                }
                for e in entries {
                    let at = parse_pos(&e.id);
                    let from = if e.id == cursor_id {
                        std::mem::take(&mut skip)
                    } else {
                        0
                    };
                    let n = e.payloads.len();
                    for (j, payload) in e.payloads.into_iter().enumerate().skip(from) {
                        let pos = if j + 1 == n {
                            e.id.clone()
                        } else {
                            format!("{}.{}", e.id, j + 1)
                        };
                        let entry = FeedEntry {
                            game: e.game.clone(),
                            seq: e.first_seq + j as u64,
                            payload,
                        };
                        batch.push((at, k, pos, entry));
                    }
                    g.ids[i] = e.id;
                }
            }
        }
        // Stable: within a shard the order stays the stream's.
        batch.sort_by_key(|(at, ..)| *at);
        self.buf
            .extend(batch.into_iter().map(|(_, k, id, entry)| (k, id, entry)));
        Ok(())
    }

    /// Blocks until some group has news: each group not already waiting
    /// sends an `XREAD BLOCK` on its own connection (a blocked one holds
    /// it); the others' go on waiting for the next call.
    async fn wait(&mut self) -> Result<(), LogError> {
        let block = self.cfg.feed_block;
        for (i, g) in self.groups.iter_mut().enumerate() {
            if g.waiting {
                continue;
            }
            let mut conn = match g.blocking.clone() {
                Some(c) => c,
                None => {
                    let c = self.target.blocking(block).await?;
                    g.blocking = Some(c.clone());
                    c
                }
            };
            let mut cmd = redis::cmd("XREAD");
            cmd.arg("COUNT")
                .arg(1)
                .arg("BLOCK")
                .arg(block.as_millis().max(1) as u64)
                .arg("STREAMS")
                .arg(&g.keys)
                .arg(&g.ids);
            g.waiting = true;
            self.wakes.push(Box::pin(async move {
                let r: Result<Option<StreamReadReply>, _> = cmd.query_async(&mut conn).await;
                let keys = r.map(|r| {
                    r.map_or_else(Vec::new, |r| r.keys.into_iter().map(|k| k.key).collect())
                });
                (i, keys.map_err(LogError::from))
            }));
        }
        match self.wakes.next().await {
            Some((i, result)) => {
                let g = &mut self.groups[i];
                g.waiting = false;
                for key in result? {
                    if let Some(at) = g.keys.iter().position(|k| *k == key) {
                        g.stale[at] = true;
                    }
                }
                Ok(())
            }
            None => Ok(()),
        }
    }
}

/// One feed entry: one append's events of one game.
struct RawEntry {
    id: String,
    game: String,
    first_seq: u64,
    payloads: Vec<Bytes>,
}

/// [`FEED_READ`]'s entries for one shard, read from the reply itself (not
/// the client's stream reply type, which copies every field into a map):
/// each `[id, fields, payloads]`, the payloads those of the `n` events the
/// entry names; or, from before entries named their appends, `[id,
/// fields]` with a `p` field per event.
fn entries(body: Value) -> Result<Vec<RawEntry>, LogError> {
    let corrupt = |what: &str| LogError::Corrupt(format!("feed read: {what}"));
    let Value::Array(items) = body else {
        return Err(corrupt("not a list of entries"));
    };
    items
        .into_iter()
        .map(|item| {
            let Value::Array(parts) = item else {
                return Err(corrupt("an entry is not a list"));
            };
            let mut parts = parts.into_iter();
            let (Some(id), Some(Value::Array(fields))) = (parts.next(), parts.next()) else {
                return Err(corrupt("an entry is not an id and its fields"));
            };
            let id: String = redis::from_redis_value(&id)?;
            let (mut game, mut first_seq, mut count, mut payloads) = (None, None, None, Vec::new());
            let mut fields = fields.into_iter();
            let lacks = |f: &str| LogError::Corrupt(format!("feed entry {id} lacks {f}"));
            while let (Some(name), Some(value)) = (fields.next(), fields.next()) {
                match (name, value) {
                    (Value::BulkString(n), v) if n == b"e" => {
                        let text = redis::from_redis_value::<String>(&v)?;
                        let mut parts = text.split(' ');
                        let (Some(g), Some(s), Some(c), None) =
                            (parts.next(), parts.next(), parts.next(), parts.next())
                        else {
                            return Err(lacks("its game, first seq and count"));
                        };
                        game = Some(g.to_owned());
                        first_seq = s.parse().ok();
                        count = Some(c.parse().map_err(|_| lacks("a count"))?);
                    }
                    (Value::BulkString(n), v) if n == b"g" => {
                        game = Some(redis::from_redis_value::<String>(&v)?);
                    }
                    (Value::BulkString(n), v) if n == b"s" => {
                        first_seq = Some(redis::from_redis_value::<u64>(&v)?);
                    }
                    (Value::BulkString(n), Value::BulkString(p)) if n == b"p" => {
                        payloads.push(Bytes::from(p));
                    }
                    _ => {}
                }
            }
            if let Some(n) = count {
                let Some(Value::Array(listed)) = parts.next() else {
                    return Err(lacks("its events"));
                };
                payloads = listed
                    .into_iter()
                    .map(|p| match p {
                        Value::BulkString(p) => Ok(Bytes::from(p)),
                        _ => Err(corrupt("an event is not a string")),
                    })
                    .collect::<Result<_, _>>()?;
                if payloads.len() != n {
                    return Err(LogError::Corrupt(format!(
                        "feed entry {id} names {n} events, its game's log holds {}",
                        payloads.len()
                    )));
                }
            }
            let game = game.ok_or_else(|| lacks("g"))?;
            let first_seq = first_seq.ok_or_else(|| lacks("s"))?;
            if payloads.is_empty() {
                return Err(lacks("events"));
            }
            Ok(RawEntry {
                id,
                game,
                first_seq,
                payloads,
            })
        })
        .collect()
}
