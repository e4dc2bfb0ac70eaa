//! Following the log: the one place that turns [`EventLog::feed`] (which
//! ends at its first error) and [`EventLog::read`] into endless, ordered
//! streams for readers (referee watchers, the gateway, the scoring service).
//!
//! Three followers, from the most general to the most specific:
//! - [`follow`]: the whole feed from a resumable cursor, in commit order.
//! - [`follow_games`]: every game from its first event, history read from
//!   the per-game logs, then live from the feed; per game each event once,
//!   in order, without gaps (a gap is filled from the game's log).
//! - [`Fanout::follow_game`](crate::Fanout::follow_game): one game from a
//!   sequence number, many such followers sharing one feed per process.
//!
//! All three resume by themselves when the store fails or restarts: the
//! error is yielded as an `Err` item (so the caller can log it), the stream
//! goes on and retries from its cursor after [`FollowConfig::retry_after`].
//! Only an error that retrying cannot mend (a cursor the backend does not
//! understand) ends a stream, right after it is yielded.
//!
//! ## Retention
//! Per-game logs are never trimmed. The feed is: [`RedisLog`](crate::RedisLog)
//! caps it at about `feed_maxlen` entries; [`EmbeddedLog`](crate::EmbeddedLog)
//! keeps all of it, so no cursor it issued is ever older than its retention.
//! A follower whose cursor is older than what the feed retains yields
//! [`Followed::Trimmed`] and goes on from the oldest retained entry; what it
//! missed is only in the games' logs. [`follow_games`] reads it from there
//! itself (every game is read up from where it stood), so its callers see
//! `Trimmed` only as a notice.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::stream::BoxStream;
use futures::StreamExt;

use crate::{EventLog, FeedCursor, FeedEntry, FeedStream, LogError};

/// Tuning shared by the followers.
#[derive(Debug, Clone)]
pub struct FollowConfig {
    /// Pause before re-opening the feed after the store failed.
    pub retry_after: Duration,
    /// Events asked of [`EventLog::read`] per call when catching a game up.
    pub read_batch: usize,
    /// Follow only these feed shards (and, for [`follow_games`], only their
    /// games; see [`EventLog::feed_shard_of`]); `None`: all of them.
    pub shards: Option<Vec<u16>>,
}

impl Default for FollowConfig {
    fn default() -> Self {
        FollowConfig {
            retry_after: Duration::from_millis(500),
            read_batch: 1024,
            shards: None,
        }
    }
}

impl FollowConfig {
    /// The shards to follow on `log`, if not all.
    fn only(&self, log: &dyn EventLog) -> Option<&[u16]> {
        self.shards.as_deref().filter(|_| log.feed_shards() > 1)
    }

    /// `cursor` narrowed to the followed shards.
    fn scope(&self, log: &dyn EventLog, cursor: FeedCursor) -> FeedCursor {
        match self.only(log) {
            Some(shards) => crate::position::restrict(&cursor, shards).unwrap_or(cursor),
            None => cursor,
        }
    }

    fn follows(&self, log: &dyn EventLog, game: &str) -> bool {
        self.only(log)
            .is_none_or(|shards| shards.contains(&log.feed_shard_of(game)))
    }
}

/// Where a followed event was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Live, off the feed.
    Feed,
    /// From the game's own log: history at the start, or a gap being filled.
    Log,
}

/// One event delivered by a follower.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub game: String,
    pub seq: u64,
    pub payload: Bytes,
    pub source: Source,
    /// Resuming the follower after this cursor loses nothing up to this
    /// event (events read from a game's log carry the cursor of the feed
    /// position they were read at).
    pub cursor: FeedCursor,
}

/// What a feed follower yields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Followed {
    Event(Event),
    /// Everything appended before the follower started has been yielded;
    /// what follows is live. Yielded once per follower.
    CaughtUp,
    /// The cursor was older than the feed's retention (see the module
    /// docs); the follower goes on from the oldest retained entry.
    Trimmed {
        cursor: FeedCursor,
        oldest_retained: String,
    },
    /// `follow_games` only: a feed entry whose events were already yielded
    /// from their game's log. Nothing to handle, but the follower's place
    /// moved to `cursor`: a lag gauge that moved only on events would stay
    /// behind the head until the next append.
    Passed {
        cursor: FeedCursor,
    },
}

pub type FollowStream = BoxStream<'static, Result<Followed, LogError>>;

/// What a follower's step asks of the driver after queueing its items.
pub(crate) enum Flow {
    /// Step again (once the queued items are taken).
    Go,
    /// The store failed: pause this long before the next step.
    Retry(Duration),
    /// No more items after the queued ones.
    End,
}

/// A follower's state machine: each step queues the items it produced.
pub(crate) trait Step: Send + 'static {
    type Item: Send + 'static;
    fn step(
        &mut self,
        out: &mut VecDeque<Self::Item>,
    ) -> impl std::future::Future<Output = Flow> + Send;
}

/// Drives a [`Step`] as a stream: queued items first, then the pause a
/// failed step asked for, then the next step.
pub(crate) fn into_stream<S: Step>(state: S) -> BoxStream<'static, S::Item> {
    struct Driver<S: Step> {
        state: S,
        queue: VecDeque<S::Item>,
        pause: Option<Duration>,
        ended: bool,
    }
    let driver = Driver {
        state,
        queue: VecDeque::new(),
        pause: None,
        ended: false,
    };
    Box::pin(futures::stream::unfold(driver, |mut d| async move {
        loop {
            if let Some(item) = d.queue.pop_front() {
                return Some((item, d));
            }
            if d.ended {
                return None;
            }
            if let Some(pause) = d.pause.take() {
                tokio::time::sleep(pause).await;
            }
            match d.state.step(&mut d.queue).await {
                Flow::Go => {}
                Flow::Retry(pause) => d.pause = Some(pause),
                Flow::End => d.ended = true,
            }
        }
    }))
}

use crate::position::at_or_past;

/// Errors that retrying from the same cursor cannot mend.
fn is_final(e: &LogError) -> bool {
    matches!(e, LogError::InvalidArgument(_) | LogError::Corrupt(_))
}

/// Follows the whole feed after `from` (`FeedCursor::now()`: after the
/// feed's head when the follower starts), in commit order, each entry once,
/// for as long as the stream is polled. Yields [`Followed::CaughtUp`] once
/// it has reached the feed's head as it stood when the follower started.
pub fn follow(log: Arc<dyn EventLog>, from: FeedCursor, config: FollowConfig) -> FollowStream {
    let from = if from.is_now() {
        from
    } else {
        config.scope(log.as_ref(), from)
    };
    into_stream(FeedFollower {
        log,
        config,
        cursor: from,
        feed: None,
        target: None,
        caught_up: false,
    })
}

struct FeedFollower {
    log: Arc<dyn EventLog>,
    config: FollowConfig,
    cursor: FeedCursor,
    feed: Option<FeedStream>,
    /// The head when the follower started: reaching it is `CaughtUp`.
    target: Option<FeedCursor>,
    caught_up: bool,
}

type Out = VecDeque<Result<Followed, LogError>>;

impl FeedFollower {
    fn note_caught_up(&mut self, out: &mut Out) {
        if !self.caught_up
            && self
                .target
                .as_ref()
                .is_some_and(|t| at_or_past(&self.cursor, t))
        {
            self.caught_up = true;
            out.push_back(Ok(Followed::CaughtUp));
        }
    }
}

impl Step for FeedFollower {
    type Item = Result<Followed, LogError>;

    async fn step(&mut self, out: &mut Out) -> Flow {
        let Some(feed) = self.feed.as_mut() else {
            if self.target.is_none() || self.cursor.is_now() {
                match self.log.feed_head().await {
                    Ok(head) => {
                        let head = self.config.scope(self.log.as_ref(), head);
                        // Pinned, so a resume after an error cannot skip
                        // what was appended in between.
                        if self.cursor.is_now() {
                            self.cursor = head.clone();
                        }
                        self.target.get_or_insert(head);
                    }
                    Err(e) => {
                        out.push_back(Err(e));
                        return Flow::Retry(self.config.retry_after);
                    }
                }
            }
            self.note_caught_up(out);
            self.feed = Some(self.log.feed(self.cursor.clone()));
            return Flow::Go;
        };
        match feed.next().await {
            Some(Ok((cursor, entry))) => {
                self.cursor = cursor.clone();
                let FeedEntry { game, seq, payload } = entry;
                out.push_back(Ok(Followed::Event(Event {
                    game,
                    seq,
                    payload,
                    source: Source::Feed,
                    cursor,
                })));
                self.note_caught_up(out);
                Flow::Go
            }
            Some(Err(LogError::FeedTrimmed {
                cursor,
                trimmed_up_to,
                resume,
            })) => {
                self.feed = None;
                // The trimmed shard from every entry it still retains.
                self.cursor = FeedCursor::from(resume);
                out.push_back(Ok(Followed::Trimmed {
                    cursor: FeedCursor::from(cursor),
                    oldest_retained: trimmed_up_to,
                }));
                Flow::Go
            }
            Some(Err(e)) => {
                self.feed = None;
                let flow = if is_final(&e) {
                    Flow::End
                } else {
                    tracing::warn!(error = %e, cursor = %self.cursor, "feed failed; resuming");
                    Flow::Retry(self.config.retry_after)
                };
                out.push_back(Err(e));
                flow
            }
            // The log was shut down.
            None => Flow::End,
        }
    }
}

/// Reads `game`'s events from `from` up to `upto` (inclusive; `None`: to the
/// current end), page by page.
pub(crate) async fn read_range(
    log: &dyn EventLog,
    game: &str,
    from: u64,
    upto: Option<u64>,
    batch: usize,
) -> Result<Vec<crate::StoredEvent>, LogError> {
    let mut out = Vec::new();
    let mut next = from.max(1);
    loop {
        if upto.is_some_and(|u| next > u) {
            return Ok(out);
        }
        let page = log.read(game, next, batch.max(1)).await?;
        let n = page.len();
        for e in page {
            if upto.is_some_and(|u| e.seq > u) {
                return Ok(out);
            }
            next = e.seq + 1;
            out.push(e);
        }
        if n < batch.max(1) {
            return Ok(out);
        }
    }
}

/// Where a game's follower stands: the next seq it must deliver.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Next(pub u64);

/// What to do with a live event for a game that stands at [`Next`].
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Offer {
    /// Already delivered.
    Skip,
    /// The next one: deliver it.
    Take,
    /// Events `from..seq` were missed: read them from the log first.
    Gap { from: u64 },
}

impl Next {
    pub(crate) fn offer(self, seq: u64) -> Offer {
        match seq.cmp(&self.0) {
            std::cmp::Ordering::Less => Offer::Skip,
            std::cmp::Ordering::Equal => Offer::Take,
            std::cmp::Ordering::Greater => Offer::Gap { from: self.0 },
        }
    }
}

/// Follows every game: each game's history from its log (games in id
/// order), then [`Followed::CaughtUp`], then live events off the feed. Per
/// game, every event is yielded once, in seq order, without gaps, whatever
/// the feed does: a gap, a trimmed feed or a store restart is made good
/// from the games' logs.
pub fn follow_games(log: Arc<dyn EventLog>, config: FollowConfig) -> FollowStream {
    into_stream(GamesFollower {
        log,
        config,
        feed: None,
        next: HashMap::new(),
        pending_games: VecDeque::new(),
        head: None,
        history_done: false,
    })
}

struct GamesFollower {
    log: Arc<dyn EventLog>,
    config: FollowConfig,
    /// Opened after the history, from the head taken before it was read.
    feed: Option<FollowStream>,
    next: HashMap<String, u64>,
    /// Games still to read up from their logs (at the start, after a trim).
    pending_games: VecDeque<String>,
    head: Option<FeedCursor>,
    history_done: bool,
}

impl Step for GamesFollower {
    type Item = Result<Followed, LogError>;

    async fn step(&mut self, out: &mut Out) -> Flow {
        let retry = Flow::Retry(self.config.retry_after);
        let Some(head) = self.head.clone() else {
            // The head before the games are listed: whatever is appended
            // while their history is read arrives on the feed too, and is
            // skipped by seq.
            let listed = async {
                let head = self.log.feed_head().await?;
                let games = self.log.list_games().await?;
                let games = games
                    .into_iter()
                    .filter(|g| self.config.follows(self.log.as_ref(), g));
                Ok::<_, LogError>((head, games.collect::<Vec<_>>()))
            };
            return match listed.await {
                Ok((head, games)) => {
                    self.head = Some(head);
                    self.pending_games = games.into();
                    Flow::Go
                }
                Err(e) => {
                    out.push_back(Err(e));
                    retry
                }
            };
        };
        if let Some(game) = self.pending_games.front().cloned() {
            if let Err(e) = self.read_up(out, &game, None).await {
                out.push_back(Err(e));
                return retry;
            }
            self.pending_games.pop_front();
            return Flow::Go;
        }
        if !self.history_done {
            self.history_done = true;
            self.feed = Some(follow(self.log.clone(), head, self.config.clone()));
            out.push_back(Ok(Followed::CaughtUp));
            return Flow::Go;
        }
        let feed = self.feed.as_mut().expect("opened with the history");
        let Some(item) = feed.next().await else {
            return Flow::End;
        };
        match item {
            Ok(Followed::Event(e)) => {
                let (game, seq) = (e.game.clone(), e.seq);
                match Next(self.next.get(&game).copied().unwrap_or(1)).offer(seq) {
                    Offer::Skip => out.push_back(Ok(Followed::Passed { cursor: e.cursor })),
                    Offer::Take => {
                        self.next.insert(game, seq + 1);
                        out.push_back(Ok(Followed::Event(e)));
                    }
                    Offer::Gap { .. } => match self.read_up(out, &game, Some(seq - 1)).await {
                        Ok(()) if self.next.get(&game) == Some(&seq) => {
                            self.next.insert(game, seq + 1);
                            out.push_back(Ok(Followed::Event(e)));
                        }
                        // The log ends before the feed's event: read the
                        // game up again later.
                        Ok(()) => self.pending_games.push_back(game),
                        Err(err) => {
                            out.push_back(Err(err));
                            self.pending_games.push_back(game);
                            return retry;
                        }
                    },
                }
            }
            // Ours was yielded after the history; a feed never passes.
            Ok(Followed::CaughtUp | Followed::Passed { .. }) => {}
            Ok(trimmed @ Followed::Trimmed { .. }) => {
                out.push_back(Ok(trimmed));
                match self.log.list_games().await {
                    Ok(games) => {
                        self.pending_games = games
                            .into_iter()
                            .filter(|g| self.config.follows(self.log.as_ref(), g))
                            .collect()
                    }
                    Err(e) => {
                        out.push_back(Err(e));
                        // Read every game up once the store answers.
                        self.head = None;
                        return retry;
                    }
                }
            }
            Err(e) => out.push_back(Err(e)),
        }
        Flow::Go
    }
}

impl GamesFollower {
    /// Queues `game`'s events from where it stands up to `upto`, as read
    /// from its log.
    async fn read_up(
        &mut self,
        out: &mut Out,
        game: &str,
        upto: Option<u64>,
    ) -> Result<(), LogError> {
        let from = self.next.get(game).copied().unwrap_or(1);
        let events =
            read_range(self.log.as_ref(), game, from, upto, self.config.read_batch).await?;
        let cursor = self.head.clone().unwrap_or_else(FeedCursor::beginning);
        for e in events {
            self.next.insert(game.to_owned(), e.seq + 1);
            out.push_back(Ok(Followed::Event(Event {
                game: game.to_owned(),
                seq: e.seq,
                payload: e.payload,
                source: Source::Log,
                cursor: cursor.clone(),
            })));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_live_event_is_skipped_taken_or_opens_a_gap() {
        assert_eq!(Next(5).offer(4), Offer::Skip);
        assert_eq!(Next(5).offer(5), Offer::Take);
        assert_eq!(Next(5).offer(9), Offer::Gap { from: 5 });
    }
}
