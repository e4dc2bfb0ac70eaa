//! Group commit for [`RedisLog::append`](crate::RedisLog): appends that
//! arrive while batches are at the server (two at most) go out together as
//! one call of a multi-game script, built in a reused command buffer from
//! precomputed key prefixes. The server runs the calls in the order they
//! were sent and checks each append against its game as the earlier ones
//! left it, so a second batch in flight changes no outcome. Each caller is
//! answered with its own game's outcome, only after the server
//! replied for its batch, so nothing is acknowledged before it is stored
//! (the durability contract is the server's, as before).
//!
//! On a cluster a script may touch one slot only, so a batch goes out as one
//! script call per feed shard (a shard is one slot), all sent at once; each
//! call is followed by `WAIT 1 <timeout>` on the same node connection when
//! [`BatchConfig::replica_wait`] is set.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, LazyLock};
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures::stream::{FuturesUnordered, StreamExt};
use redis::aio::ConnectionLike;
use redis::{Cmd, ErrorKind, Script, Value};
use tokio::sync::{mpsc, oneshot};

use crate::redis_conn::Conn;
use crate::redis_keys::Layout;
use crate::redis_wire::{self, Reply, Wire};
use crate::{Appended, LogError};

/// Batches at the server at once: while one runs, the next is sent, so
/// the server does not wait for the referee to hear one batch's answer
/// before it has the next. Alternating bench runs (2 cores, session 21)
/// against one: 10 tables +10-17 % commands per second, 100 and 500
/// tables 0-8 %, CPU per command the same or less.
const BATCHES_IN_FLIGHT: usize = 2;

/// Most payloads in one script call: bounds how long one call holds the
/// (single-threaded) server.
const MAX_BATCH_PAYLOADS: usize = 2048;

/// How long a shard whose replica did not answer a `WAIT` is written
/// without waiting (its primary may have lost its replica in a failover).
/// `WAIT` blocks its connection, which the node's other shards share, so
/// a probe of a primary left without a replica is rare.
const UNREPLICATED_PAUSE: Duration = Duration::from_secs(30);

/// How long a batch waits, `WAIT` after `WAIT`, for a replica that is
/// connected but behind, before it is acknowledged as durable on its
/// primary only. A replica slowed by a busy machine took longer than one
/// `WAIT`'s timeout; acknowledging then lost acked events when the primary
/// was killed next (the cluster failover test, under the full suite's load).
const REPLICA_CATCH_UP: Duration = Duration::from_secs(10);

/// KEYS: per game its shard's feed, its state and events; then the feeds
/// to trim. ARGV: the shards' feed maxlen, then per game: its feed entry
/// (`<game> <first seq> <count>`), expected_last_seq, fence, payload
/// count, payloads. A game's events are a list, seq s at index s - 1, so
/// its last seq is the list's length: a stream with ids `<seq>-0` and the
/// last seq kept in the state hash cost an `XADD` and an `HSET` per
/// event, executed and written to the append-only file (the list and its
/// length: a fifth fewer server instructions per event). The expected
/// seq is read with `tonumber`: a length is exact in a double, and an
/// expected seq past 2^53 cannot round to one. A rejected append leaves
/// nothing behind (a conflict's pushes are popped again before the script
/// ends), and games are independent: one game's refusal leaves the others
/// of the batch as they would be alone.
///
/// An append is one feed entry, one field naming it, written as the
/// client sent it; its payloads are the game's list's, and the feed's
/// reader takes them from there. Server instructions per command at 100
/// tables (callgrind): 87.5k with an entry per event, 80.9k with one per
/// append holding its payloads, 70.7k naming it in three fields formatted
/// by the script, 59.3k as now (every Lua call, conversion, field and line
/// of the append-only file counts). A feed is trimmed (`MAXLEN ~`, whole
/// stream nodes of 100 entries) only when the batch task has added a
/// node's worth since it last trimmed it: a trim per feed per batch was a
/// Lua call of a few thousand instructions that mostly found nothing to
/// drop.
///
/// Returns one text for the whole batch, each game's outcome in order,
/// comma-separated: `ok`, `fenced:<fence>`, `conflict:<last>` or
/// `unknown`. One bulk string, not an array of arrays: the client's reply
/// parser costs per value, and parsing two values per game was a tenth of
/// the referee's instructions.
static APPEND_MANY: LazyLock<Script> = LazyLock::new(|| Script::new(APPEND_MANY_LUA));

/// [`APPEND_MANY`]'s source, for `SCRIPT LOAD` on the batch task's own
/// connection.
const APPEND_MANY_LUA: &str = r#"
local out = {}
local a, k, g = 2, 1, 0
while a <= #ARGV do
  g = g + 1
  local n = tonumber(ARGV[a + 3])
  local fence = redis.call('HGET', KEYS[k + 1], 'fence')
  if not fence then out[g] = 'unknown'
  elseif fence ~= ARGV[a + 2] then out[g] = 'fenced:' .. fence
  else
    -- Pushed first, checked after: RPUSH answers the new length, which
    -- spares an LLEN per game; a conflict (rare: a race the fence did not
    -- stop) takes them back, so the script still changes nothing then.
    -- In pieces: unpack's results go on Lua's C stack (8000 slots).
    local i, last_i, len = a + 4, a + 3 + n, 0
    while i <= last_i do
      local j = math.min(i + 999, last_i)
      len = redis.call('RPUSH', KEYS[k + 2], unpack(ARGV, i, j))
      i = j + 1
    end
    if len - n ~= tonumber(ARGV[a + 1]) then
      redis.call('RPOP', KEYS[k + 2], n)
      out[g] = 'conflict:' .. string.format('%d', len - n)
    else
      redis.call('XADD', KEYS[k], '*', 'e', ARGV[a])
      out[g] = 'ok'
    end
  end
  a = a + 4 + n
  k = k + 3
end
for t = k, #KEYS do
  redis.call('XTRIM', KEYS[t], 'MAXLEN', '~', ARGV[1])
end
return table.concat(out, ',')
"#;

/// One caller's append, waiting for its batch.
pub(crate) struct AppendRequest {
    /// The game's feed shard (its keys' slot).
    pub shard: u16,
    pub game: String,
    pub expected_last_seq: u64,
    pub fence: u64,
    pub payloads: Vec<Bytes>,
    pub reply: oneshot::Sender<Result<Appended, LogError>>,
}

/// How the batch task writes.
pub(crate) struct BatchConfig {
    pub layout: Arc<Layout>,
    /// One script call per shard (a cluster), or one for the whole batch.
    pub grouped: bool,
    /// `WAIT 1 <this>` after each call.
    pub replica_wait: Option<Duration>,
    /// `MAXLEN ~` of each shard's feed.
    pub shard_maxlen: u64,
}

/// Entries in one stream node (Redis's `stream-node-max-entries`): a
/// `MAXLEN ~` trim drops whole nodes, so trimming a feed more often than
/// once per node's worth of new entries finds nothing to drop.
const STREAM_NODE_ENTRIES: u64 = 100;

/// When each shard's feed is next trimmed.
struct Trims {
    /// Entries added to each shard since its last trim.
    added: Vec<u64>,
    every: u64,
    maxlen: String,
}

impl Trims {
    fn new(cfg: &BatchConfig) -> Trims {
        Trims {
            added: vec![0; usize::from(cfg.layout.shards())],
            every: STREAM_NODE_ENTRIES.min(cfg.shard_maxlen),
            maxlen: cfg.shard_maxlen.to_string(),
        }
    }

    /// Counts an entry of `shard`'s feed; whether to trim it now.
    fn added(&mut self, shard: u16) -> bool {
        let n = &mut self.added[usize::from(shard)];
        *n += 1;
        if *n < self.every {
            return false;
        }
        *n = 0;
        true
    }
}

/// Runs until every sender is gone: takes whatever appends are waiting,
/// sends them as one script call per group, answers each.
pub(crate) async fn run(
    conn: Conn,
    cfg: BatchConfig,
    mut rx: mpsc::UnboundedReceiver<AppendRequest>,
) {
    let mut groups: BTreeMap<u16, Vec<AppendRequest>> = BTreeMap::new();
    // Shards whose primary had no replica answer in time: until when their
    // appends skip the wait (it would only add its timeout to each).
    let mut unreplicated: BTreeMap<u16, Instant> = BTreeMap::new();
    // Script calls built in buffers kept from earlier batches: after the
    // first few batches no call grows (reallocates and copies) its buffer.
    let mut spare: Vec<Cmd> = Vec::new();
    let mut scratch = String::new();
    let mut trims = Trims::new(&cfg);
    let group = |r: &AppendRequest| if cfg.grouped { r.shard } else { 0 };
    let mut in_flight = FuturesUnordered::new();
    let mut open = true;
    while open || !in_flight.is_empty() {
        let first = tokio::select! {
            done = in_flight.next(), if !in_flight.is_empty() => {
                let done: Vec<(u16, Option<bool>, Cmd, Instant)> = done.unwrap_or_default();
                for (shard, replicated, cmd, sent) in done {
                    spare.push(cmd);
                    if replicated == Some(true) {
                        unreplicated.remove(&shard);
                    } else if replicated == Some(false) {
                        tracing::warn!(
                            shard,
                            "appends acknowledged with no replica connected, or none caught up in \
                             {REPLICA_CATCH_UP:?}: durable on the primary only; not waiting on this \
                             shard for {UNREPLICATED_PAUSE:?}"
                        );
                        unreplicated.insert(shard, sent + UNREPLICATED_PAUSE);
                    }
                }
                continue;
            }
            r = rx.recv(), if open && in_flight.len() < BATCHES_IN_FLIGHT => match r {
                Some(r) => r,
                None => {
                    open = false;
                    continue;
                }
            },
        };
        let mut payloads = first.payloads.len();
        groups.entry(group(&first)).or_default().push(first);
        while payloads < MAX_BATCH_PAYLOADS {
            match rx.try_recv() {
                Ok(r) => {
                    payloads += r.payloads.len();
                    groups.entry(group(&r)).or_default().push(r);
                }
                Err(_) => break,
            }
        }
        let now = Instant::now();
        let calls: Vec<_> = std::mem::take(&mut groups)
            .into_iter()
            .map(|(shard, mut batch)| {
                let mut cmd = spare.pop().unwrap_or_default();
                script_call(&cfg, &batch, &mut trims, &mut cmd, &mut scratch);
                let mut conn = conn.clone();
                let wait = cfg
                    .replica_wait
                    .filter(|_| unreplicated.get(&shard).is_none_or(|until| *until <= now))
                    .map(|timeout| ReplicaWait {
                        timeout,
                        node_key: cfg.layout.feed_key(shard),
                    });
                async move {
                    let (replies, replicated) = send(&mut conn, &cmd, wait.as_ref()).await;
                    answer(&mut batch, replies);
                    (shard, replicated, cmd, now)
                }
            })
            .collect();
        in_flight.push(futures::future::join_all(calls));
    }
}

/// A call on the wire whose reply has not come yet.
enum Sent {
    /// `SCRIPT LOAD` of [`APPEND_MANY`], after a `NOSCRIPT`.
    Load,
    Call {
        batch: Vec<AppendRequest>,
        request: Vec<u8>,
        sent: tokio::time::Instant,
        /// Sent again after the script was loaded: a second `NOSCRIPT`
        /// is an error.
        again: bool,
    },
}

/// [`run`] for a single server on the batch task's own connection
/// ([`redis_wire`]): each batch's call is written as soon as it is formed
/// (two at the server at most, as in [`run`]), and the replies, which come
/// in the order of the calls, are read on this task.
pub(crate) async fn run_on_wire(
    mut wire: Wire,
    cfg: BatchConfig,
    mut rx: mpsc::UnboundedReceiver<AppendRequest>,
) {
    let timeout = wire.timeout();
    let mut sent: VecDeque<Sent> = VecDeque::new();
    let mut spare: Vec<Vec<u8>> = Vec::new();
    let mut scratch = String::new();
    let mut trims = Trims::new(&cfg);
    let mut open = true;
    while open || !sent.is_empty() {
        let oldest = sent.iter().find_map(|s| match s {
            Sent::Call { sent, .. } => Some(*sent),
            Sent::Load => None,
        });
        let deadline = timeout.zip(oldest).map(|(t, at)| at + t);
        tokio::select! {
            reply = reply_by(&mut wire, deadline), if !sent.is_empty() => {
                let Some(first) = sent.pop_front() else { continue };
                match (first, reply) {
                    (Sent::Load, Ok(Reply::Error(e))) => {
                        tracing::warn!(error = %e, "loading the append script failed");
                    }
                    (Sent::Load, Ok(_)) => {}
                    (
                        Sent::Call { batch, request, again: false, .. },
                        Ok(Reply::Error(e)),
                    ) if e.starts_with("NOSCRIPT") => {
                        // Nothing ran: load the script, send the call again.
                        let mut load = Vec::new();
                        redis_wire::command(&mut load, &[b"SCRIPT", b"LOAD", APPEND_MANY_LUA.as_bytes()]);
                        load.extend_from_slice(&request);
                        let call = Sent::Call {
                            batch,
                            request,
                            sent: tokio::time::Instant::now(),
                            again: true,
                        };
                        sent.push_back(Sent::Load);
                        sent.push_back(call);
                        // A failed send has closed the wire itself.
                        if let Err(e) = wire.send(&load).await {
                            fail_all(&mut sent, &mut spare, &e);
                        }
                    }
                    (Sent::Call { mut batch, request, .. }, Ok(reply)) => {
                        let replies = match reply {
                            Reply::Text(t) => Ok(Value::BulkString(t)),
                            Reply::Error(e) => Err(LogError::Redis(Box::new(
                                redis::RedisError::from((ErrorKind::ResponseError, "append script failed", e)),
                            ))),
                            // Not the script's: `answer` says so.
                            Reply::Integer(i) => Ok(Value::Int(i)),
                            Reply::Nil => Ok(Value::Nil),
                        };
                        answer(&mut batch, replies);
                        spare.push(request);
                    }
                    (first, Err(e)) => {
                        sent.push_front(first);
                        fail_all(&mut sent, &mut spare, &e);
                        wire.close();
                    }
                }
            }
            r = rx.recv(), if open && sent.len() < BATCHES_IN_FLIGHT => {
                let Some(first) = r else {
                    open = false;
                    continue;
                };
                let mut payloads = first.payloads.len();
                let mut batch = vec![first];
                while payloads < MAX_BATCH_PAYLOADS {
                    match rx.try_recv() {
                        Ok(r) => {
                            payloads += r.payloads.len();
                            batch.push(r);
                        }
                        Err(_) => break,
                    }
                }
                let mut request = spare.pop().unwrap_or_default();
                script_call(&cfg, &batch, &mut trims, &mut request, &mut scratch);
                match wire.send(&request).await {
                    Ok(()) => sent.push_back(Sent::Call {
                        batch,
                        request,
                        sent: tokio::time::Instant::now(),
                        again: false,
                    }),
                    Err(e) => {
                        answer(&mut batch, Err(e));
                        spare.push(request);
                        let e = redis_wire::failed("connection lost");
                        fail_all(&mut sent, &mut spare, &e);
                    }
                }
            }
        }
    }
}

/// The next reply, or an error once `deadline` has passed.
async fn reply_by(
    wire: &mut Wire,
    deadline: Option<tokio::time::Instant>,
) -> Result<Reply, LogError> {
    match deadline {
        Some(d) => tokio::time::timeout_at(d, wire.reply())
            .await
            .unwrap_or_else(|_| Err(redis_wire::failed("no reply in time"))),
        None => wire.reply().await,
    }
}

/// Answers every call still owed a reply with `e` (outcome unknown).
fn fail_all(sent: &mut VecDeque<Sent>, spare: &mut Vec<Vec<u8>>, e: &LogError) {
    // `answer` names the batch; the cause is said once.
    let cause = match e {
        LogError::Redis(r) => r.detail().map_or_else(|| r.to_string(), str::to_owned),
        other => other.to_string(),
    };
    for s in sent.drain(..) {
        if let Sent::Call {
            mut batch, request, ..
        } = s
        {
            answer(&mut batch, Err(redis_wire::failed(cause.clone())));
            spare.push(request);
        }
    }
}

/// Where a script call's arguments are written: a client library command,
/// or RESP for the batch task's own connection.
trait Args {
    /// Starts a call of `n` arguments (after clearing what was there).
    fn begin(&mut self, n: usize);
    fn arg(&mut self, arg: &[u8]);
}

impl Args for Cmd {
    fn begin(&mut self, _n: usize) {
        self.clear();
    }
    fn arg(&mut self, arg: &[u8]) {
        Cmd::arg(self, arg);
    }
}

impl Args for Vec<u8> {
    fn begin(&mut self, n: usize) {
        self.clear();
        redis_wire::array(self, n);
    }
    fn arg(&mut self, arg: &[u8]) {
        redis_wire::bulk(self, arg);
    }
}

/// The `EVALSHA` of [`APPEND_MANY`] for `batch`, written into `out`
/// (cleared first); `scratch` holds each key and number while it is copied
/// in, so neither allocates once they have grown to a batch's size.
fn script_call(
    cfg: &BatchConfig,
    batch: &[AppendRequest],
    trims: &mut Trims,
    out: &mut impl Args,
    scratch: &mut String,
) {
    let mut trimmed: Vec<u16> = batch
        .iter()
        .map(|r| r.shard)
        .filter(|&k| trims.added(k))
        .collect();
    trimmed.sort_unstable();
    trimmed.dedup();
    let keys = 3 * batch.len() + trimmed.len();
    let args: usize = batch.iter().map(|r| 4 + r.payloads.len()).sum();
    out.begin(3 + keys + 1 + args);
    out.arg(b"EVALSHA");
    out.arg(APPEND_MANY.get_hash().as_bytes());
    scratch.clear();
    push_decimal(scratch, keys as u64);
    out.arg(scratch.as_bytes());
    for r in batch {
        scratch.clear();
        cfg.layout.write_feed_key(scratch, r.shard);
        out.arg(scratch.as_bytes());
        for what in ["state", "events"] {
            scratch.clear();
            cfg.layout.write_game_key(scratch, r.shard, &r.game, what);
            out.arg(scratch.as_bytes());
        }
    }
    for &shard in &trimmed {
        scratch.clear();
        cfg.layout.write_feed_key(scratch, shard);
        out.arg(scratch.as_bytes());
    }
    out.arg(trims.maxlen.as_bytes());
    for r in batch {
        let n = r.payloads.len() as u64;
        // Decimal strings: the script compares numbers as text (Lua
        // numbers are doubles) and writes the entry as it comes.
        scratch.clear();
        scratch.push_str(&r.game);
        scratch.push(' ');
        push_decimal(scratch, r.expected_last_seq.wrapping_add(1));
        scratch.push(' ');
        push_decimal(scratch, n);
        out.arg(scratch.as_bytes());
        for n in [r.expected_last_seq, r.fence, n] {
            scratch.clear();
            push_decimal(scratch, n);
            out.arg(scratch.as_bytes());
        }
        for p in &r.payloads {
            out.arg(p.as_ref());
        }
    }
}

/// `n` in decimal, without `fmt`'s machinery.
fn push_decimal(out: &mut String, n: u64) {
    out.push_str(itoa::Buffer::new().format(n));
}

/// The script's reply, and whether a replica had it in time (`None`: not
/// asked, or the call failed).
async fn send(
    conn: &mut Conn,
    cmd: &Cmd,
    wait: Option<&ReplicaWait>,
) -> (Result<Value, LogError>, Option<bool>) {
    let reply = match call(conn, cmd, wait).await {
        // The server does not know the script yet (first call, restart,
        // failover, SCRIPT FLUSH): nothing ran; load it and send again.
        Err(e) if e.kind() == ErrorKind::NoScriptError => {
            match APPEND_MANY.load_async(conn).await {
                Ok(_) => call(conn, cmd, wait).await,
                Err(e) => Err(e),
            }
        }
        other => other,
    };
    match reply {
        Ok((v, replicated)) => (Ok(v), replicated),
        Err(e) => (Err(e.into()), None),
    }
}

/// `WAIT 1` after a batch's script call on a cluster.
struct ReplicaWait {
    /// Each `WAIT`'s timeout.
    timeout: Duration,
    /// A key of the batch's slot: it routes the follow-up `WAIT`s to the
    /// script's node, on the same connection, where `WAIT` covers every
    /// write sent before it.
    node_key: String,
}

impl ReplicaWait {
    /// A pipeline that goes to the script's node: a keyless command added
    /// to it (`INFO`, `WAIT`) runs there.
    fn on_node(&self) -> redis::Pipeline {
        let mut pipe = redis::pipe();
        pipe.cmd("EXISTS").arg(&self.node_key).ignore();
        pipe
    }
}

/// One script call, and the replica wait after it on the same connection
/// (a pipeline goes to one node: the script's). A `WAIT` that times out
/// while the node still has a replica connected is sent again, up to
/// [`REPLICA_CATCH_UP`]: only a primary left without a replica, or one
/// that stays behind that long, acknowledges what its replica lacks.
async fn call(
    conn: &mut Conn,
    cmd: &Cmd,
    wait: Option<&ReplicaWait>,
) -> redis::RedisResult<(Value, Option<bool>)> {
    let Some(wait) = wait else {
        let reply = conn.req_packed_command(cmd).await?;
        return Ok((reply.extract_error()?, None));
    };
    let millis = wait.timeout.as_millis().max(1) as u64;
    let mut pipe = redis::pipe();
    pipe.add_command(cmd.clone()).cmd("WAIT").arg(1).arg(millis);
    let (reply, replicas): (Value, i64) = pipe.query_async(conn).await?;
    if replicas >= 1 {
        return Ok((reply, Some(true)));
    }
    let started = Instant::now();
    loop {
        let (info,): (String,) = wait
            .on_node()
            .cmd("INFO")
            .arg("replication")
            .query_async(conn)
            .await?;
        if connected_replicas(&info) == 0 || started.elapsed() >= REPLICA_CATCH_UP {
            return Ok((reply, Some(false)));
        }
        let (replicas,): (i64,) = wait
            .on_node()
            .cmd("WAIT")
            .arg(1)
            .arg(millis)
            .query_async(conn)
            .await?;
        if replicas >= 1 {
            return Ok((reply, Some(true)));
        }
    }
}

/// `connected_slaves` of an `INFO replication` answer (0 if absent).
fn connected_replicas(info: &str) -> u64 {
    info.lines()
        .find_map(|l| l.strip_prefix("connected_slaves:"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0)
}

/// Hands each caller its game's reply (or the batch's error: its outcome is
/// then unknown, as for any failed write).
fn answer(batch: &mut Vec<AppendRequest>, replies: Result<Value, LogError>) {
    match replies {
        Ok(v) if text(&v).is_some_and(|t| t.split(|&b| b == b',').count() == batch.len()) => {
            let items = text(&v).unwrap_or_default().split(|&b| b == b',');
            for (r, item) in batch.drain(..).zip(items) {
                let out = outcome(&r, item);
                let _ = r.reply.send(out);
            }
        }
        Ok(other) => {
            let why = format!("unexpected append script reply {other:?}");
            for r in batch.drain(..) {
                let _ = r.reply.send(Err(LogError::Corrupt(why.clone())));
            }
        }
        Err(e) => {
            for r in batch.drain(..) {
                let _ = r.reply.send(Err(copy_error(&e)));
            }
        }
    }
}

/// The batch's failure for each of its callers; an infrastructure error
/// stays one (the write's outcome is unknown).
fn copy_error(e: &LogError) -> LogError {
    match e {
        LogError::Redis(r) => LogError::Redis(Box::new(redis::RedisError::from((
            r.kind(),
            "batched append failed",
            r.to_string(),
        )))),
        other => LogError::Corrupt(other.to_string()),
    }
}

fn text(v: &Value) -> Option<&[u8]> {
    match v {
        Value::BulkString(b) => Some(b),
        Value::SimpleString(s) => Some(s.as_bytes()),
        _ => None,
    }
}

fn number(v: &[u8], what: &str) -> Result<u64, LogError> {
    std::str::from_utf8(v)
        .ok()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| {
            LogError::Corrupt(format!(
                "{what} is not a u64: {:?}",
                String::from_utf8_lossy(v)
            ))
        })
}

/// One game's outcome in [`APPEND_MANY`]'s reply (`kind` or `kind:number`).
fn outcome(r: &AppendRequest, item: &[u8]) -> Result<Appended, LogError> {
    let (kind, arg) = match item.iter().position(|&b| b == b':') {
        Some(i) => (&item[..i], Some(&item[i + 1..])),
        None => (item, None),
    };
    match (kind, arg) {
        (b"ok", None) => {
            let first_seq = r.expected_last_seq + 1;
            let last_seq = r.expected_last_seq + r.payloads.len() as u64;
            tracing::debug!(game = %r.game, first_seq, last_seq, "appended");
            Ok(Appended {
                first_seq,
                last_seq,
            })
        }
        (b"fenced", Some(f)) => Err(LogError::Fenced {
            current_fence: number(f, "fence")?,
        }),
        (b"conflict", Some(l)) => Err(LogError::Conflict {
            actual_last_seq: number(l, "last_seq")?,
        }),
        (b"unknown", None) => Err(LogError::UnknownGame(r.game.clone())),
        _ => Err(LogError::Corrupt(format!(
            "unexpected append script reply {:?}",
            String::from_utf8_lossy(item)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connected_replicas_are_read_off_info_replication() {
        let info = "# Replication\r\nrole:master\r\nconnected_slaves:2\r\n\
                    slave0:ip=127.0.0.1,port=7001,state=online,offset=1,lag=0\r\n";
        assert_eq!(connected_replicas(info), 2);
        assert_eq!(connected_replicas("# Replication\r\nrole:master\r\n"), 0);
    }

    fn trims(shard_maxlen: u64) -> Trims {
        Trims::new(&BatchConfig {
            layout: Arc::new(Layout::new("p", 2).unwrap()),
            grouped: false,
            replica_wait: None,
            shard_maxlen,
        })
    }

    #[test]
    fn a_feed_is_trimmed_once_per_stream_node_of_new_entries() {
        let mut t = trims(62_500);
        assert!((0..99).all(|_| !t.added(0)));
        assert!(!t.added(1), "shards count apart");
        assert!(t.added(0), "the 100th entry since the last trim");
        assert!(!t.added(0));
        assert_eq!(t.maxlen, "62500");
        // A feed kept shorter than a node is trimmed as often as it holds.
        let mut short = trims(3);
        assert_eq!(
            (0..6).map(|_| short.added(1)).collect::<Vec<_>>(),
            [false, false, true, false, false, true]
        );
    }

    #[test]
    fn numbers_are_written_in_decimal() {
        for n in [0, 7, 10, 1_700_000_000_123, u64::MAX] {
            let mut out = String::from("x");
            push_decimal(&mut out, n);
            assert_eq!(out, format!("x{n}"));
        }
    }
}
