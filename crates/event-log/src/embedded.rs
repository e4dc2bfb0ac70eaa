//! Single-process backend on a local append-only file.
//!
//! Every write (a game created, a fence bumped, events appended) is a record
//! appended at the end of one file (`file.rs` has the format). Writes queue
//! for a group commit: one committer takes everything queued, checks each on
//! its own against the state including the earlier ones of its group, writes
//! the group's records with one `pwrite` and one `fdatasync`, then publishes
//! them to the in-memory index and answers. A commit thus touches the file's
//! tail only, whatever the number of games in it. The index (each game's
//! header, last seq, fence and payload places; the feed as (game, seq) per
//! feed seq) is rebuilt by reading the file on open; payloads are read back
//! with `pread`, neighbours together.

mod file;
mod migrate;

use std::collections::{HashMap, VecDeque};
use std::fs::{File, OpenOptions};
use std::io::{BufReader, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, RwLockReadGuard, Weak};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use bytes::Bytes;
use tokio::sync::{broadcast, oneshot};

use self::file::{Encoder, Loc, Next, Record, Scanner};
use crate::{
    ttl_millis, validate_game_id, validate_owner, Appended, EventLog, FeedCursor, FeedEntry,
    FeedStream, Lease, LogError, StoredEvent,
};

/// How many feed entries a catch-up read fetches per blocking call.
const FEED_PAGE: usize = 512;

/// A group commit stops taking queued writes once its records reach this
/// size (the rest go into the next one), which bounds a torn tail too.
const GROUP_BYTES: usize = 16 << 20;

/// The file is extended by this much zeros at a time, synced once, so that a
/// group commit writes into space the file already has and its
/// `fdatasync` flushes data only, not the file's size (on ext4 a size
/// change costs a journal commit per sync).
const ZEROED_AHEAD: u64 = 16 << 20;

/// Tuning for [`EmbeddedLog`].
#[derive(Debug, Clone)]
pub struct EmbeddedConfig {
    /// Capacity of the in-process live feed channel. A follower that falls
    /// further behind is not lost: it transparently catches up from the file.
    pub feed_buffer: usize,
}

impl Default for EmbeddedConfig {
    fn default() -> Self {
        EmbeddedConfig { feed_buffer: 4096 }
    }
}

/// [`EventLog`] on a local append-only file, for a single process (the file
/// is locked; a second open fails until every handle and feed of the first
/// is dropped).
///
/// Every write is on disk (`fdatasync`) before it returns. Writes are
/// group-committed: those arriving while a group commits share the next one
/// (and its sync), each checked on its own. Leases live in memory, because
/// only this process can write the file and so no holder outlives it; their
/// fence counters live in the file, so fences keep increasing across
/// restarts. Lease expiry uses the monotonic clock. Cheap to clone (all
/// clones share the file).
///
/// A file in the earlier redb layout is migrated on open: the new file is
/// written beside it and put in its place, the old one kept as
/// `<file>.redb-layout`.
#[derive(Clone)]
pub struct EmbeddedLog {
    inner: Arc<Inner>,
}

struct Inner {
    file: File,
    path: PathBuf,
    index: RwLock<Index>,
    leases: Mutex<HashMap<String, LiveLease>>,
    feed_tx: broadcast::Sender<(u64, FeedEntry)>,
    /// Highest committed global feed seq, so `FeedCursor::now()` can be
    /// resolved without taking the index lock.
    feed_last: AtomicU64,
    /// Writes waiting for the next group commit.
    commits: Mutex<Commits>,
    /// The file's end and the committer's buffer; only the committer takes it.
    writer: Mutex<Writer>,
}

/// What the file holds, in memory.
#[derive(Default)]
struct Index {
    ids: HashMap<Arc<str>, u32>,
    games: Vec<GameIndex>,
    /// Feed seq `n` is `feed[n - 1]`.
    feed: Vec<FeedRef>,
}

struct GameIndex {
    name: Arc<str>,
    header: Bytes,
    fence: u64,
    /// Seq `n`'s payload is at `events[n - 1]`.
    events: Vec<Loc>,
}

#[derive(Clone, Copy)]
struct FeedRef {
    game: u32,
    seq: u64,
}

impl Index {
    fn game(&self, name: &str) -> Option<&GameIndex> {
        self.ids.get(name).map(|&i| &self.games[i as usize])
    }

    fn create(&mut self, name: Arc<str>, header: Bytes) {
        let id = self.games.len() as u32;
        self.ids.insert(Arc::clone(&name), id);
        self.games.push(GameIndex {
            name,
            header,
            fence: 0,
            events: Vec::new(),
        });
    }

    /// Adds events whose places are `locs`, as seqs after the game's last and
    /// feed seqs after the feed's last.
    fn push_events(&mut self, game: u32, locs: &[Loc]) {
        let g = &mut self.games[game as usize];
        let first = g.events.len() as u64 + 1;
        g.events.extend_from_slice(locs);
        self.feed
            .extend((first..).take(locs.len()).map(|seq| FeedRef { game, seq }));
    }
}

struct Writer {
    /// Where the next group's records go.
    end: u64,
    /// The file's length: zeros from `end` to here.
    zeroed_to: u64,
    buf: Vec<u8>,
    /// Set after a failed write or sync: what the file holds past `end` is
    /// unknown, and after a failed `fsync` the kernel may have dropped pages
    /// it still reports as written, so nothing more is written until the
    /// file is opened again (which reads back what really is there).
    failed: Option<String>,
}

/// Group commit: writes queue here while a group commits; the committer then
/// takes them all into the next group (one sync for all), checking each on
/// its own.
#[derive(Default)]
struct Commits {
    queue: Vec<Op>,
    /// Whether a committer is running (it drains the queue until empty).
    running: bool,
}

enum Op {
    Create {
        game: String,
        header: Bytes,
        done: oneshot::Sender<Result<bool, LogError>>,
    },
    /// Granting a lease bumps the fence in the file, so it is a write; a
    /// renewal by the holder is decided in the same place, in order.
    Acquire {
        game: String,
        owner: String,
        ttl: Duration,
        done: oneshot::Sender<Result<Lease, LogError>>,
    },
    Append {
        game: String,
        expected_last_seq: u64,
        fence: u64,
        payloads: Vec<Bytes>,
        done: oneshot::Sender<Result<Appended, LogError>>,
    },
}

impl Op {
    fn fail(self, e: LogError) {
        match self {
            Op::Create { done, .. } => drop(done.send(Err(e))),
            Op::Acquire { done, .. } => drop(done.send(Err(e))),
            Op::Append { done, .. } => drop(done.send(Err(e))),
        }
    }

    fn size(&self) -> usize {
        match self {
            Op::Create { header, .. } => header.len() + 160,
            Op::Acquire { .. } => 160,
            Op::Append { payloads, .. } => {
                payloads.iter().map(|p| p.len() + 4).sum::<usize>() + 160
            }
        }
    }
}

/// One op's answer, sent once its group is committed.
enum Answer {
    Created(
        oneshot::Sender<Result<bool, LogError>>,
        Result<bool, LogError>,
    ),
    Lease(
        oneshot::Sender<Result<Lease, LogError>>,
        Result<Lease, LogError>,
    ),
    Appended(
        oneshot::Sender<Result<Appended, LogError>>,
        Result<Appended, LogError>,
    ),
}

impl Answer {
    fn send(self) {
        match self {
            Answer::Created(d, r) => drop(d.send(r)),
            Answer::Lease(d, r) => drop(d.send(r)),
            Answer::Appended(d, r) => drop(d.send(r)),
        }
    }

    fn into_failed(self, e: LogError) -> Answer {
        match self {
            Answer::Created(d, _) => Answer::Created(d, Err(e)),
            Answer::Lease(d, _) => Answer::Lease(d, Err(e)),
            Answer::Appended(d, _) => Answer::Appended(d, Err(e)),
        }
    }
}

/// A group's effect on the index, applied once it is on disk.
enum Step {
    Create {
        name: Arc<str>,
        header: Bytes,
    },
    Fence {
        name: Arc<str>,
        fence: u64,
    },
    Events {
        name: Arc<str>,
        first_seq: u64,
        first_feed: u64,
        /// Range of the group's `locs`.
        locs: std::ops::Range<usize>,
        payloads: Vec<Bytes>,
    },
}

/// A game as the group sees it: the committed state plus the group's earlier
/// writes.
struct Pending {
    name: Arc<str>,
    header: Bytes,
    last_seq: u64,
    fence: u64,
}

struct LiveLease {
    owner: String,
    fence: u64,
    expires_at: Instant,
}

impl LiveLease {
    /// A lease granted (or granted back) at `now`, and what its holder is
    /// told.
    fn grant(owner: String, fence: u64, now: Instant, ttl: Duration) -> (Self, Lease) {
        let mut live = LiveLease {
            owner,
            fence,
            expires_at: now,
        };
        let lease = live.hold(now, ttl);
        (live, lease)
    }

    /// Runs the lease `ttl` from `now`. Every grant and renewal goes through
    /// here, so the expiry kept and the `expires_in` the holder is told are
    /// one `ttl` and cannot drift.
    fn hold(&mut self, now: Instant, ttl: Duration) -> Lease {
        self.expires_at = now + ttl;
        Lease {
            owner: self.owner.clone(),
            fence: self.fence,
            expires_in: ttl,
        }
    }
}

impl std::fmt::Debug for EmbeddedLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbeddedLog")
            .field("path", &self.inner.path)
            .finish_non_exhaustive()
    }
}

fn io_error(path: &Path, what: &str, e: std::io::Error) -> LogError {
    LogError::Storage(format!("{what} {}: {e}", path.display()).into())
}

impl EmbeddedLog {
    /// Opens (creating if needed) the log file at `path`.
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
        let mut file = open_locked(&path)?;
        let mut magic = [0u8; file::FILE_HEADER_LEN as usize];
        let n = file
            .read(&mut magic)
            .map_err(|e| io_error(&path, "reading", e))?;
        if n >= file::REDB_MAGIC.len() && magic.starts_with(file::REDB_MAGIC) {
            // redb takes the file's lock itself.
            drop(file);
            migrate::from_redb(&path)?;
            file = open_locked(&path)?;
        } else if n == 0 {
            file.write_all(&file::file_header())
                .and_then(|()| file.sync_all())
                .map_err(|e| io_error(&path, "writing", e))?;
            sync_dir(&path)?;
        }
        let (index, end) = load(&file, &path)?;
        let feed_last = index.feed.len() as u64;
        let (feed_tx, _) = broadcast::channel(config.feed_buffer);
        tracing::info!(
            path = %path.display(),
            games = index.games.len(),
            feed_last,
            bytes = end,
            "opened embedded event log"
        );
        Ok(EmbeddedLog {
            inner: Arc::new(Inner {
                file,
                path,
                index: RwLock::new(index),
                leases: Mutex::new(HashMap::new()),
                feed_tx,
                feed_last: AtomicU64::new(feed_last),
                commits: Mutex::new(Commits::default()),
                writer: Mutex::new(Writer {
                    end,
                    zeroed_to: end,
                    buf: Vec::new(),
                    failed: None,
                }),
            }),
        })
    }

    /// Path of the log file.
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

    /// Queues `op` for the next group commit, starting a committer if none runs.
    fn submit(&self, op: Op) {
        let start = {
            let mut commits = self.inner.lock_commits();
            commits.queue.push(op);
            !std::mem::replace(&mut commits.running, true)
        };
        if start {
            let inner = Arc::clone(&self.inner);
            tokio::task::spawn_blocking(move || Inner::commit_loop(inner));
        }
    }
}

/// Opens `path` for reading and appending, creating it, and takes its
/// exclusive lock.
fn open_locked(path: &Path) -> Result<File, LogError> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|e| io_error(path, "opening", e))?;
    use std::os::fd::AsRawFd;
    // SAFETY: flock on a descriptor `file` owns for the whole call; the lock
    // goes with the descriptor when `file` is closed.
    let locked = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if locked == 0 {
        return Ok(file);
    }
    match std::io::Error::last_os_error() {
        e if e.kind() == std::io::ErrorKind::WouldBlock => Err(LogError::Storage(
            format!(
                "{} is open in another EmbeddedLog (of this or another process)",
                path.display()
            )
            .into(),
        )),
        e => Err(io_error(path, "locking", e)),
    }
}

/// Makes a file's creation or renaming durable.
fn sync_dir(path: &Path) -> Result<(), LogError> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| io_error(dir, "syncing the directory", e))
}

/// Reads the whole file into an index; drops a torn tail (a group commit a
/// crash interrupted, never acknowledged). Returns the index and the file's
/// valid end.
fn load(file: &File, path: &Path) -> Result<(Index, u64), LogError> {
    let corrupt = |what: String| LogError::Corrupt(format!("{}: {what}", path.display()));
    let mut reader = BufReader::with_capacity(1 << 20, file);
    reader
        .seek(SeekFrom::Start(0))
        .map_err(|e| io_error(path, "reading", e))?;
    let mut header = [0u8; file::FILE_HEADER_LEN as usize];
    reader
        .read_exact(&mut header)
        .map_err(|e| io_error(path, "reading the header of", e))?;
    if &header[..8] != file::MAGIC {
        return Err(corrupt(
            "not an event log file (neither this layout nor the earlier redb one); \
             move it away or pass another path"
                .into(),
        ));
    }
    let version = u32::from_le_bytes(header[8..12].try_into().expect("4 bytes"));
    if version != file::VERSION {
        return Err(corrupt(format!(
            "log format version {version}, this build reads {}",
            file::VERSION
        )));
    }
    let mut index = Index::default();
    let mut scanner = Scanner::new(reader);
    loop {
        let at = scanner.offset;
        let record = match scanner.next().map_err(|e| io_error(path, "reading", e))? {
            Next::End => break,
            Next::Torn(why) => {
                // A crash tears at most the last group, which is no longer
                // than GROUP_BYTES: data further on was written (and
                // acknowledged) after the damaged record, so this is damage
                // in the middle, and cutting it off would lose acked events.
                if let Some(beyond) = written_beyond(file, at + GROUP_BYTES as u64)
                    .map_err(|e| io_error(path, "reading", e))?
                {
                    return Err(corrupt(format!(
                        "a damaged record at byte {at} ({why}), with data written after it \
                         (at byte {beyond}): the file is damaged in its middle, not torn by \
                         a crash; nothing was cut off. Restore it from a backup"
                    )));
                }
                tracing::warn!(
                    path = %path.display(),
                    offset = at,
                    why,
                    "dropping the torn tail of the event log (a commit interrupted by a crash, never acknowledged)"
                );
                break;
            }
            Next::Record(r) => r,
        };
        match record {
            Record::Create { game, header } => {
                if index.ids.contains_key(game) {
                    return Err(corrupt(format!("game {game} created twice (at {at})")));
                }
                index.create(Arc::from(game), Bytes::copy_from_slice(header));
            }
            Record::Fence { game, fence } => {
                let id = *index
                    .ids
                    .get(game)
                    .ok_or_else(|| corrupt(format!("fence of unknown game {game} (at {at})")))?;
                let g = &mut index.games[id as usize];
                if fence <= g.fence {
                    return Err(corrupt(format!("fence of {game} goes back (at {at})")));
                }
                g.fence = fence;
            }
            Record::Events {
                game,
                first_seq,
                first_feed,
                locs,
            } => {
                let id = *index
                    .ids
                    .get(game)
                    .ok_or_else(|| corrupt(format!("events of unknown game {game} (at {at})")))?;
                let expected_seq = index.games[id as usize].events.len() as u64 + 1;
                let expected_feed = index.feed.len() as u64 + 1;
                if (first_seq, first_feed) != (expected_seq, expected_feed) {
                    return Err(corrupt(format!(
                        "events of {game} at {at} start at seq {first_seq}, feed {first_feed}; \
                         expected {expected_seq}, {expected_feed}"
                    )));
                }
                index.push_events(id, &locs);
            }
        }
    }
    // Past the records: zeros made ahead, and maybe what a crash left of a
    // group never acknowledged (parts of it may even be whole records, behind
    // a part that did not reach the disk). Cut off, so that no later scan can
    // read them after records written over the start of that space.
    let end = scanner.offset;
    let len = file
        .metadata()
        .map_err(|e| io_error(path, "reading", e))?
        .len();
    if len > end {
        file.set_len(end)
            .and_then(|()| file.sync_all())
            .map_err(|e| io_error(path, "truncating", e))?;
    }
    Ok((index, end))
}

/// The first non-zero byte of `file` from `from` on, if any.
fn written_beyond(file: &File, from: u64) -> std::io::Result<Option<u64>> {
    let mut buf = vec![0u8; 1 << 20];
    let mut at = from;
    loop {
        let n = file.read_at(&mut buf, at)?;
        if n == 0 {
            return Ok(None);
        }
        if let Some(i) = buf[..n].iter().position(|&b| b != 0) {
            return Ok(Some(at + i as u64));
        }
        at += n as u64;
    }
}

impl Inner {
    fn lock_leases(&self) -> MutexGuard<'_, HashMap<String, LiveLease>> {
        // A panic while holding the lock cannot leave the map half-updated
        // (every update is a single insert/remove), so poisoning is ignorable.
        self.leases.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn lock_commits(&self) -> MutexGuard<'_, Commits> {
        // Updates are a push or a take: poisoning is ignorable.
        self.commits.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn read_index(&self) -> RwLockReadGuard<'_, Index> {
        // The committer updates the index only with plain pushes after its
        // checks, so a panic cannot leave it inconsistent.
        self.index.read().unwrap_or_else(|p| p.into_inner())
    }

    /// (last_seq, fence) of a committed game.
    fn game_state(&self, game: &str) -> Result<(u64, u64), LogError> {
        let index = self.read_index();
        let g = index
            .game(game)
            .ok_or_else(|| LogError::UnknownGame(game.to_owned()))?;
        Ok((g.events.len() as u64, g.fence))
    }

    /// Commits queued writes, group after group, until the queue is empty.
    /// Runs on a blocking thread; at most one runs at a time. The last
    /// group's callers are answered only after this thread let go of the
    /// file, so a caller that drops the log can reopen the file at once.
    fn commit_loop(inner: Arc<Inner>) {
        let mut inner = Some(inner);
        while let Some(me) = inner.as_ref() {
            let group = {
                let mut commits = me.lock_commits();
                if commits.queue.is_empty() {
                    commits.running = false;
                    return;
                }
                take_group(&mut commits.queue)
            };
            let answers =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| me.commit_group(group)));
            let more = {
                let mut commits = me.lock_commits();
                if answers.is_err() {
                    // The group's callers got an error as their senders were
                    // dropped; fail the queued ones too rather than retry.
                    for op in commits.queue.drain(..) {
                        op.fail(LogError::Task("the group commit panicked".into()));
                    }
                }
                let more = answers.is_ok() && !commits.queue.is_empty();
                commits.running = more;
                more
            };
            if !more {
                inner = None;
            }
            for answer in answers.unwrap_or_default() {
                answer.send();
            }
        }
    }

    /// One group commit: each op is checked (creation: the header; lease:
    /// a live holder; append: fence, then expected seq) against the state
    /// including the earlier ops of the group, refused ones write nothing.
    /// The group's records are written and synced at once, then added to
    /// the index and the feed. A storage failure fails the whole group.
    fn commit_group(&self, group: Vec<Op>) -> Vec<Answer> {
        let mut writer = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        let writer = &mut *writer;
        if let Some(why) = &writer.failed {
            let e = || LogError::Storage(why.clone().into());
            return group
                .into_iter()
                .map(|op| match op {
                    Op::Create { done, .. } => Answer::Created(done, Err(e())),
                    Op::Acquire { done, .. } => Answer::Lease(done, Err(e())),
                    Op::Append { done, .. } => Answer::Appended(done, Err(e())),
                })
                .collect();
        }
        // Held over the sync when the group grants leases, so a renewal or
        // release sees a grant either not at all or complete.
        let mut leases = group
            .iter()
            .any(|op| matches!(op, Op::Acquire { .. }))
            .then(|| self.lock_leases());
        let mut granted: Vec<(Arc<str>, LiveLease)> = Vec::new();
        let mut answers = Vec::with_capacity(group.len());
        let mut steps = Vec::with_capacity(group.len());
        let mut locs = Vec::new();
        writer.buf.clear();
        let mut enc = Encoder {
            buf: &mut writer.buf,
            base: writer.end,
        };
        {
            let index = self.read_index();
            let mut pending: HashMap<Arc<str>, Pending> = HashMap::new();
            let mut next_feed = index.feed.len() as u64 + 1;
            // The group's view of a game, taken from the index on first use.
            fn view<'p>(
                pending: &'p mut HashMap<Arc<str>, Pending>,
                index: &Index,
                game: &str,
            ) -> Option<&'p mut Pending> {
                if !pending.contains_key(game) {
                    let g = index.game(game)?;
                    pending.insert(
                        Arc::clone(&g.name),
                        Pending {
                            name: Arc::clone(&g.name),
                            header: g.header.clone(),
                            last_seq: g.events.len() as u64,
                            fence: g.fence,
                        },
                    );
                }
                pending.get_mut(game)
            }
            for op in group {
                match op {
                    Op::Create { game, header, done } => {
                        let result = match view(&mut pending, &index, &game) {
                            Some(p) if p.header == header => Ok(false),
                            Some(_) => Err(LogError::HeaderMismatch { game }),
                            None => enc.create(&game, &header).map(|()| {
                                let name: Arc<str> = Arc::from(game);
                                pending.insert(
                                    Arc::clone(&name),
                                    Pending {
                                        name: Arc::clone(&name),
                                        header: header.clone(),
                                        last_seq: 0,
                                        fence: 0,
                                    },
                                );
                                steps.push(Step::Create { name, header });
                                true
                            }),
                        };
                        answers.push(Answer::Created(done, result));
                    }
                    Op::Acquire {
                        game,
                        owner,
                        ttl,
                        done,
                    } => {
                        let leases = leases.as_mut().expect("locked for a group with grants");
                        let now = Instant::now();
                        let result = match view(&mut pending, &index, &game) {
                            None => Err(LogError::UnknownGame(game)),
                            Some(p) => {
                                acquire(leases, &mut granted, p, owner, ttl, now, |p, fence| {
                                    let r = enc.fence(&p.name, fence);
                                    if r.is_ok() {
                                        steps.push(Step::Fence {
                                            name: Arc::clone(&p.name),
                                            fence,
                                        });
                                    }
                                    r
                                })
                            }
                        };
                        answers.push(Answer::Lease(done, result));
                    }
                    Op::Append {
                        game,
                        expected_last_seq,
                        fence,
                        payloads,
                        done,
                    } => {
                        let result = match view(&mut pending, &index, &game) {
                            None => Err(LogError::UnknownGame(game)),
                            Some(p) if p.fence != fence => Err(LogError::Fenced {
                                current_fence: p.fence,
                            }),
                            Some(p) if p.last_seq != expected_last_seq => Err(LogError::Conflict {
                                actual_last_seq: p.last_seq,
                            }),
                            Some(p) => {
                                let first_seq = p.last_seq + 1;
                                let from = locs.len();
                                enc.events(&p.name, first_seq, next_feed, &payloads, &mut locs)
                                    .map(|()| {
                                        let n = payloads.len() as u64;
                                        p.last_seq += n;
                                        steps.push(Step::Events {
                                            name: Arc::clone(&p.name),
                                            first_seq,
                                            first_feed: next_feed,
                                            locs: from..locs.len(),
                                            payloads,
                                        });
                                        next_feed += n;
                                        Appended {
                                            first_seq,
                                            last_seq: first_seq + n - 1,
                                        }
                                    })
                            }
                        };
                        answers.push(Answer::Appended(done, result));
                    }
                }
            }
        }
        if !writer.buf.is_empty() {
            let group_end = writer.end + writer.buf.len() as u64;
            let written = self
                .zero_ahead(&mut writer.zeroed_to, group_end)
                .and_then(|()| self.file.write_all_at(&writer.buf, writer.end))
                .and_then(|()| self.file.sync_data());
            if let Err(e) = written {
                let why = format!("writing {}: {e}", self.path.display());
                tracing::error!(path = %self.path.display(), error = %e, "event log write failed; no more writes until it is opened again");
                writer.failed = Some(why.clone());
                return answers
                    .into_iter()
                    .map(|a| a.into_failed(LogError::Storage(why.clone().into())))
                    .collect();
            }
            writer.end += writer.buf.len() as u64;
            if writer.buf.capacity() > GROUP_BYTES {
                writer.buf = Vec::new();
            }
        }
        self.publish(steps, &locs);
        if let Some(leases) = leases.as_mut() {
            for (game, lease) in granted {
                tracing::info!(%game, owner = %lease.owner, fence = lease.fence, "lease granted");
                leases.insert(game.to_string(), lease);
            }
        }
        answers
    }

    /// Makes sure the file has zeros up to `to` at least, extending it by
    /// [`ZEROED_AHEAD`] steps.
    fn zero_ahead(&self, zeroed_to: &mut u64, to: u64) -> std::io::Result<()> {
        if to <= *zeroed_to {
            return Ok(());
        }
        let target = to.div_ceil(ZEROED_AHEAD) * ZEROED_AHEAD;
        let zeros = vec![0u8; 1 << 20];
        let mut at = *zeroed_to;
        while at < target {
            let n = (target - at).min(zeros.len() as u64);
            self.file.write_all_at(&zeros[..n as usize], at)?;
            at += n;
        }
        self.file.sync_all()?;
        *zeroed_to = target;
        Ok(())
    }

    /// Adds a committed group to the index, then to the live feed.
    fn publish(&self, steps: Vec<Step>, locs: &[Loc]) {
        if steps.is_empty() {
            return;
        }
        let mut last_feed = None;
        {
            let mut index = self.index.write().unwrap_or_else(|p| p.into_inner());
            for step in &steps {
                match step {
                    Step::Create { name, header } => {
                        index.create(Arc::clone(name), header.clone());
                    }
                    Step::Fence { name, fence } => {
                        let id = index.ids[&**name];
                        index.games[id as usize].fence = *fence;
                    }
                    Step::Events {
                        name,
                        first_feed,
                        locs: range,
                        ..
                    } => {
                        let id = index.ids[&**name];
                        index.push_events(id, &locs[range.clone()]);
                        last_feed = Some(*first_feed + range.len() as u64 - 1);
                    }
                }
            }
        }
        let Some(last_feed) = last_feed else { return };
        self.feed_last.store(last_feed, Ordering::SeqCst);
        let live = self.feed_tx.receiver_count() > 0;
        for step in steps {
            if let Step::Events {
                name,
                first_seq,
                first_feed,
                payloads,
                ..
            } = step
            {
                tracing::debug!(
                    game = %name,
                    first_seq,
                    last_seq = first_seq + payloads.len() as u64 - 1,
                    "appended"
                );
                if !live {
                    continue;
                }
                let game = name.to_string();
                for ((feed, seq), payload) in (first_feed..).zip(first_seq..).zip(payloads) {
                    // No receivers is fine: followers catch up from the file.
                    let _ = self.feed_tx.send((
                        feed,
                        FeedEntry {
                            game: game.clone(),
                            seq,
                            payload,
                        },
                    ));
                }
            }
        }
    }

    fn read_events(
        &self,
        game: &str,
        from_seq: u64,
        max: usize,
    ) -> Result<Vec<StoredEvent>, LogError> {
        let (first, locs) = {
            let index = self.read_index();
            let g = index
                .game(game)
                .ok_or_else(|| LogError::UnknownGame(game.to_owned()))?;
            let first = from_seq.max(1);
            let from = usize::try_from(first - 1)
                .unwrap_or(usize::MAX)
                .min(g.events.len());
            let to = from.saturating_add(max).min(g.events.len());
            (first, g.events[from..to].to_vec())
        };
        let payloads = file::read_payloads(&self.file, &locs)
            .map_err(|e| io_error(&self.path, "reading", e))?;
        Ok((first..)
            .zip(payloads)
            .map(|(seq, payload)| StoredEvent { seq, payload })
            .collect())
    }

    fn feed_after(&self, after: u64, limit: usize) -> Result<Vec<(u64, FeedEntry)>, LogError> {
        let (names, locs) = {
            let index = self.read_index();
            let from = usize::try_from(after)
                .unwrap_or(usize::MAX)
                .min(index.feed.len());
            let to = from.saturating_add(limit).min(index.feed.len());
            let refs = &index.feed[from..to];
            let mut names = Vec::with_capacity(refs.len());
            let mut locs = Vec::with_capacity(refs.len());
            for r in refs {
                let g = &index.games[r.game as usize];
                names.push((Arc::clone(&g.name), r.seq));
                locs.push(g.events[r.seq as usize - 1]);
            }
            (names, locs)
        };
        let payloads = file::read_payloads(&self.file, &locs)
            .map_err(|e| io_error(&self.path, "reading", e))?;
        Ok((after + 1..)
            .zip(names.into_iter().zip(payloads))
            .map(|(feed, ((game, seq), payload))| {
                (
                    feed,
                    FeedEntry {
                        game: game.to_string(),
                        seq,
                        payload,
                    },
                )
            })
            .collect())
    }
}

/// Takes queued ops for one group, up to about [`GROUP_BYTES`] (at least one).
fn take_group(queue: &mut Vec<Op>) -> Vec<Op> {
    let mut size = 0;
    let n = queue
        .iter()
        .take_while(|op| {
            let fits = size == 0 || size + op.size() <= GROUP_BYTES;
            size += op.size();
            fits
        })
        .count();
    if n == queue.len() {
        std::mem::take(queue)
    } else {
        queue.drain(..n).collect()
    }
}

/// Decides a lease request within a group: a live lease of another owner
/// (also one granted earlier in the group) refuses it, the live holder's
/// request renews it, otherwise `bump` writes the next fence and the lease
/// is granted once the group is committed.
fn acquire(
    leases: &mut HashMap<String, LiveLease>,
    granted: &mut Vec<(Arc<str>, LiveLease)>,
    game: &mut Pending,
    owner: String,
    ttl: Duration,
    now: Instant,
    bump: impl FnOnce(&Pending, u64) -> Result<(), LogError>,
) -> Result<Lease, LogError> {
    let live = granted
        .iter_mut()
        .rev()
        .find(|(g, _)| *g == game.name)
        .map(|(_, l)| l)
        .or_else(|| leases.get_mut(&*game.name))
        .filter(|l| l.expires_at > now);
    if let Some(l) = live {
        if l.owner != owner {
            return Err(LogError::LeaseHeld {
                owner: l.owner.clone(),
                expires_in: l.expires_at - now,
            });
        }
        return Ok(l.hold(now, ttl));
    }
    let fence = game.fence + 1;
    bump(game, fence)?;
    game.fence = fence;
    let (live, lease) = LiveLease::grant(owner, fence, now, ttl);
    granted.push((Arc::clone(&game.name), live));
    Ok(lease)
}

async fn answer<T>(rx: oneshot::Receiver<Result<T, LogError>>) -> Result<T, LogError> {
    rx.await
        .map_err(|_| LogError::Task("the group commit stopped before this write".into()))?
}

#[async_trait]
impl EventLog for EmbeddedLog {
    async fn create_game(&self, game: &str, header: &[u8]) -> Result<bool, LogError> {
        validate_game_id(game)?;
        let (done, rx) = oneshot::channel();
        self.submit(Op::Create {
            game: game.to_owned(),
            header: Bytes::copy_from_slice(header),
            done,
        });
        let created = answer(rx).await?;
        if created {
            tracing::debug!(%game, "created game");
        }
        Ok(created)
    }

    async fn header(&self, game: &str) -> Result<Option<Bytes>, LogError> {
        validate_game_id(game)?;
        Ok(self.inner.read_index().game(game).map(|g| g.header.clone()))
    }

    async fn list_games(&self) -> Result<Vec<String>, LogError> {
        let mut out: Vec<String> = {
            let index = self.inner.read_index();
            index.games.iter().map(|g| g.name.to_string()).collect()
        };
        out.sort_unstable();
        Ok(out)
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
        let (done, rx) = oneshot::channel();
        self.submit(Op::Append {
            game: game.to_owned(),
            expected_last_seq,
            fence,
            payloads: payloads.to_vec(),
            done,
        });
        answer(rx).await
    }

    async fn last_seq(&self, game: &str) -> Result<u64, LogError> {
        validate_game_id(game)?;
        Ok(self.inner.game_state(game)?.0)
    }

    async fn read(
        &self,
        game: &str,
        from_seq: u64,
        max: usize,
    ) -> Result<Vec<StoredEvent>, LogError> {
        validate_game_id(game)?;
        let game = game.to_owned();
        self.blocking(move |inner| inner.read_events(&game, from_seq, max))
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
        let (done, rx) = oneshot::channel();
        self.submit(Op::Acquire {
            game: game.to_owned(),
            owner: owner.to_owned(),
            ttl,
            done,
        });
        answer(rx).await
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
        // Blocking: a group commit granting leases holds the lease map over
        // its sync.
        self.blocking(move |inner| {
            let mut leases = inner.lock_leases();
            let now = Instant::now();
            match leases.get_mut(&game) {
                Some(l) if l.owner == owner && l.fence == fence => {
                    return Ok(l.hold(now, ttl));
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
            let (live, lease) = LiveLease::grant(owner, fence, now, ttl);
            leases.insert(game, live);
            Ok(lease)
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
    /// Weak so that a forgotten follower does not keep the file open.
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
                // A gap or a lag: the file has everything, re-read it from
                // our position.
                Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => self.need_catch_up = true,
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }
}
