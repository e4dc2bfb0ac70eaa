//! Scores finished games off the log's feed. `follow_games` yields every
//! game's history from the beginning and then the live feed, so a restarted
//! service catches up on its own. Delivery is at least once; the tournament
//! crate turns the same result recorded again into no event, so a game seen
//! twice counts once.

use crate::service::now_ms;
use crate::store::{Store, StoreError};
use futures::StreamExt;
use mafia_event_log::{follow_games, EventLog, FollowConfig, Followed};
use mafia_record::{GameId, Header, LoggedEvent};
use mafia_rules::{Envelope, Event, Game, Step};
use mafia_tournament::{Actor, GameFacts, TournamentCommand};
use std::sync::Arc;
use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum ScoreError {
    #[error("game {game}: {why}")]
    Corrupt { game: GameId, why: String },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Log(#[from] mafia_event_log::LogError),
}

/// Retries of a game end whose scoring failed on the store: 0.1 s doubling
/// up to 12.8 s, about 25 s in all, longer than a Redis restart.
const RETRY_FIRST: Duration = Duration::from_millis(100);
const RETRY_LAST: Duration = Duration::from_millis(12_800);

impl ScoreError {
    /// A failure of the store itself, not of the game: worth retrying.
    fn is_transient(&self) -> bool {
        matches!(
            self,
            ScoreError::Log(_) | ScoreError::Store(StoreError::Log(_) | StoreError::Contended)
        )
    }
}

/// How far the follower got, for health checks and for tests to wait on
/// instead of sleeping.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// Every game ended before the follower started has been handled.
    pub caught_up: bool,
    /// Game ends handled (scored, already scored, or not a tournament's).
    pub ends_seen: u64,
}

/// Follows the log until `stop` resolves.
pub async fn run(
    store: Arc<Store>,
    progress: tokio::sync::watch::Sender<Progress>,
    stop: impl std::future::Future<Output = ()>,
) {
    let mut feed = follow_games(store.log().clone(), FollowConfig::default());
    tokio::pin!(stop);
    loop {
        let item = tokio::select! {
            _ = &mut stop => return,
            item = feed.next() => item,
        };
        let event = match item {
            None => return,
            Some(Err(e)) => {
                tracing::warn!(error = %e, "game feed failed; the follower retries");
                continue;
            }
            Some(Ok(Followed::Event(e))) => {
                store.metrics.lag.advanced(&e.cursor);
                e
            }
            Some(Ok(Followed::CaughtUp)) => {
                tracing::info!("game follower caught up");
                progress.send_modify(|p| p.caught_up = true);
                continue;
            }
            Some(Ok(Followed::Trimmed { .. })) => continue,
            Some(Ok(Followed::Passed { cursor })) => {
                store.metrics.lag.advanced(&cursor);
                continue;
            }
        };
        // Tournament streams share the log; only games end.
        let Ok(game) = event.game.parse::<GameId>() else {
            continue;
        };
        let Ok(logged) = serde_json::from_slice::<LoggedEvent>(&event.payload) else {
            continue;
        };
        // Over, not just decided: the final last words come after the
        // result, and their sanctions count (rfm §5.15).
        if !matches!(
            logged.envelope.event,
            Event::StepStarted { step: Step::Ended }
        ) {
            continue;
        }
        // A store failure (Redis restarting, say) is retried: the feed
        // delivers this game's end once, so dropping it here would leave
        // the game unscored until the service restarts.
        let mut backoff = RETRY_FIRST;
        loop {
            match score(&store, &game).await {
                Ok(true) => tracing::info!(%game, "game scored"),
                Ok(false) => {}
                Err(e) if e.is_transient() && backoff <= RETRY_LAST => {
                    tracing::warn!(%game, error = %e, "game not scored yet; retrying");
                    tokio::select! {
                        _ = &mut stop => return,
                        _ = tokio::time::sleep(backoff) => {}
                    }
                    backoff *= 2;
                    continue;
                }
                Err(e) => tracing::warn!(%game, error = %e, "game not scored"),
            }
            break;
        }
        store.metrics.game_end();
        progress.send_modify(|p| p.ends_seen += 1);
    }
}

/// Records a finished game's result in its tournament, if the game is over
/// (its final last words ended too) and is assigned there; `ended_at` is
/// when its result was reached. Returns whether a new result was stored.
/// Called on every game end the feed delivers and after every assignment:
/// a game that ended before it was assigned is counted once it is.
pub async fn score(store: &Arc<Store>, game: &GameId) -> Result<bool, ScoreError> {
    let held = match store.get(&game.tournament).await {
        Ok(h) => h,
        Err(StoreError::NotFound(_)) => return Ok(false),
        Err(e) => return Err(e.into()),
    };
    if !held.lock().await.tournament.games.contains_key(game) {
        return Ok(false);
    }
    let corrupt = |why: String| ScoreError::Corrupt {
        game: game.clone(),
        why,
    };
    let key = game.to_string();
    let Some(header) = store.log().header(&key).await? else {
        // Assigned but not opened yet.
        return Ok(false);
    };
    let header: Header =
        serde_json::from_slice(&header).map_err(|e| corrupt(format!("header: {e}")))?;
    let setup = header
        .setup()
        .map_err(|e| corrupt(format!("header: {e}")))?;
    let envelopes = read_envelopes(store.log().as_ref(), &key)
        .await?
        .map_err(corrupt)?;
    let Some(ended_at) = envelopes
        .iter()
        .rev()
        .find(|e| matches!(e.event, Event::GameEnded { .. }))
        .map(|e| e.at)
    else {
        return Ok(false);
    };
    let g = Game::replay(setup, envelopes.iter()).map_err(|e| corrupt(e.to_string()))?;
    if !g.is_over() {
        // Its final last words are running; it is scored when they end.
        return Ok(false);
    }
    let facts = GameFacts::from_game(&g, &envelopes).map_err(|e| corrupt(e.to_string()))?;
    Ok(record(store, game, facts, ended_at).await?)
}

/// Records `facts` as `game`'s result, as the referee's log: the one way a
/// result enters a tournament (no gRPC call reaches it; `score` calls it
/// with what the game's events say, and tests at the store's level with
/// facts of their own). Returns whether a new result was stored.
pub async fn record(
    store: &Arc<Store>,
    game: &GameId,
    facts: GameFacts,
    ended_at: i64,
) -> Result<bool, StoreError> {
    let cmd = TournamentCommand::RecordResult {
        game: game.clone(),
        facts,
        ended_at,
    };
    let now = now_ms();
    let (events, _) = store
        .command(&game.tournament, move |t| {
            Ok(t.command(&cmd, &Actor::RefereeLog, now)?)
        })
        .await?;
    if !events.is_empty() {
        store.metrics.game_scored();
    }
    Ok(!events.is_empty())
}

async fn read_envelopes(
    log: &dyn EventLog,
    key: &str,
) -> Result<Result<Vec<Envelope>, String>, mafia_event_log::LogError> {
    let mut out = Vec::new();
    let mut next = 1;
    loop {
        let batch = log.read(key, next, 1024).await?;
        let Some(last) = batch.last() else { break };
        next = last.seq + 1;
        for e in &batch {
            match serde_json::from_slice::<LoggedEvent>(&e.payload) {
                Ok(l) => out.push(l.envelope),
                Err(err) => return Ok(Err(format!("event {}: {err}", e.seq))),
            }
        }
    }
    Ok(Ok(out))
}
