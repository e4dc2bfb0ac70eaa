//! Tournaments folded off the log: the scoring service writes each
//! tournament as a `tournament.<id>` stream (`mafia_tournament::stored`);
//! [`follow`] folds them with `mafia-tournament` into a [`Board`] that
//! GraphQL, the raw channel and the exports read.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use futures::StreamExt;
use mafia_event_log::{follow_games, EventLog, FollowConfig, Followed, FollowerLag};
use mafia_record::TournamentId;
use mafia_tournament::stored;
use mafia_tournament::Tournament;
use tokio::sync::watch;

/// A tournament as folded up to `version` (the seq of its stream's last
/// event applied).
#[derive(Clone, Debug)]
pub struct Snapshot {
    pub version: u64,
    pub tournament: Arc<Tournament>,
}

type Slot = watch::Sender<Option<Snapshot>>;

/// Every followed tournament's latest fold, each behind a watch channel so a
/// subscriber always gets the newest table and never a backlog.
#[derive(Clone, Default)]
pub struct Board {
    slots: Arc<Mutex<HashMap<TournamentId, Slot>>>,
    /// How far [`follow`] is behind the feed (`crate::metrics`).
    pub lag: Arc<FollowerLag>,
}

impl Board {
    fn slot(&self, id: &TournamentId) -> Slot {
        self.slots
            .lock()
            .expect("board lock")
            .entry(id.clone())
            .or_insert_with(|| watch::channel(None).0)
            .clone()
    }

    /// The tournament's latest fold, if its stream has been seen and the
    /// tournament not removed.
    pub fn get(&self, id: &TournamentId) -> Option<Snapshot> {
        self.slots
            .lock()
            .expect("board lock")
            .get(id)
            .and_then(|s| s.borrow().clone())
            .filter(|s| s.tournament.removed.is_none())
    }

    /// The latest fold now and each newer one; works before the
    /// tournament's stream exists. A tournament not yet written is kept
    /// only while someone watches it (the [`Watch`] forgets it when
    /// dropped), and at most [`MAX_AWAITED`] of them at once: any id is
    /// client input.
    pub fn watch(&self, id: &TournamentId) -> Result<Watch, TooManyAwaited> {
        let mut slots = self.slots.lock().expect("board lock");
        if !slots.contains_key(id)
            && slots.values().filter(|s| s.borrow().is_none()).count() >= MAX_AWAITED
        {
            return Err(TooManyAwaited);
        }
        let rx = slots
            .entry(id.clone())
            .or_insert_with(|| watch::channel(None).0)
            .subscribe();
        Ok(Watch {
            rx: Some(rx),
            board: self.clone(),
            id: id.clone(),
        })
    }

    /// Forgets `id` when nothing was ever published for it and nobody
    /// watches it.
    fn forget_unwatched(&self, id: &TournamentId) {
        let mut slots = self.slots.lock().expect("board lock");
        if slots
            .get(id)
            .is_some_and(|s| s.borrow().is_none() && s.receiver_count() == 0)
        {
            slots.remove(id);
        }
    }

    /// Tournaments held now, written or awaited (for tests and metrics).
    pub fn held(&self) -> usize {
        self.slots.lock().expect("board lock").len()
    }

    /// Every tournament seen and not removed, by id.
    pub fn tournaments(&self) -> Vec<TournamentId> {
        let slots = self.slots.lock().expect("board lock");
        let mut ids: Vec<TournamentId> = slots
            .iter()
            .filter(|(_, s)| {
                s.borrow()
                    .as_ref()
                    .is_some_and(|s| s.tournament.removed.is_none())
            })
            .map(|(id, _)| id.clone())
            .collect();
        ids.sort();
        ids
    }

    pub(crate) fn publish(&self, id: &TournamentId, snap: Snapshot) {
        self.slot(id).send_replace(Some(snap));
    }
}

/// Tournaments not yet written that may be awaited at once.
pub const MAX_AWAITED: usize = 1024;

/// Too many tournaments not yet written are awaited.
#[derive(Debug, thiserror::Error)]
#[error("too many tournaments awaited at once; try again later")]
pub struct TooManyAwaited;

/// One subscriber's view of a tournament's folds; dropping it forgets a
/// tournament that was never written and nobody else awaits.
pub struct Watch {
    rx: Option<watch::Receiver<Option<Snapshot>>>,
    board: Board,
    id: TournamentId,
}

impl std::ops::Deref for Watch {
    type Target = watch::Receiver<Option<Snapshot>>;
    fn deref(&self) -> &Self::Target {
        self.rx.as_ref().expect("taken only in drop")
    }
}

impl std::ops::DerefMut for Watch {
    fn deref_mut(&mut self) -> &mut Self::Target {
        self.rx.as_mut().expect("taken only in drop")
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        drop(self.rx.take());
        self.board.forget_unwatched(&self.id);
    }
}

#[derive(Debug, thiserror::Error)]
pub enum FollowError {
    #[error("tournament stream {stream}: {why}")]
    Corrupt { stream: String, why: String },
    #[error(transparent)]
    Log(#[from] mafia_event_log::LogError),
}

/// A tournament being folded off the feed.
struct Folding {
    tournament: Tournament,
    last_seq: u64,
    dirty: bool,
}

/// Follows the log's tournament streams into `board` until `stop`
/// resolves: every tournament's history first, then live. Events arrive in
/// batches; the board is published once per tournament per batch, so a
/// catch-up over a long log does not publish (or clone) each step.
pub async fn follow(
    board: Board,
    log: Arc<dyn EventLog>,
    stop: impl std::future::Future<Output = ()>,
) {
    let mut feed = follow_games(log.clone(), FollowConfig::default()).ready_chunks(256);
    let mut folding: HashMap<String, Folding> = HashMap::new();
    tokio::pin!(stop);
    loop {
        let batch = tokio::select! {
            _ = &mut stop => return,
            b = feed.next() => match b {
                Some(b) => b,
                None => return,
            },
        };
        for item in batch {
            let e = match item {
                Ok(Followed::Event(e)) => {
                    board.lag.advanced(&e.cursor);
                    e
                }
                Ok(Followed::CaughtUp) => {
                    tracing::info!(tournaments = folding.len(), "standings caught up");
                    continue;
                }
                Ok(Followed::Trimmed { .. }) => continue,
                Ok(Followed::Passed { cursor }) => {
                    board.lag.advanced(&cursor);
                    continue;
                }
                Err(e) => {
                    tracing::warn!(error = %e, "tournament feed failed; the follower retries");
                    continue;
                }
            };
            if stored::tournament_of_stream(&e.game).is_none() {
                continue;
            }
            if let Err(err) = step(&log, &mut folding, &e.game, e.seq, &e.payload).await {
                tracing::warn!(error = %err, "tournament event not applied");
            }
        }
        for (stream, f) in folding.iter_mut().filter(|(_, f)| f.dirty) {
            f.dirty = false;
            if let Some(id) = stored::tournament_of_stream(stream) {
                board.publish(
                    &id,
                    Snapshot {
                        version: f.last_seq,
                        tournament: Arc::new(f.tournament.clone()),
                    },
                );
            }
        }
    }
}

async fn step(
    log: &Arc<dyn EventLog>,
    folding: &mut HashMap<String, Folding>,
    stream: &str,
    seq: u64,
    payload: &[u8],
) -> Result<(), FollowError> {
    let corrupt = |why: String| FollowError::Corrupt {
        stream: stream.to_owned(),
        why,
    };
    if !folding.contains_key(stream) {
        let header = log
            .header(stream)
            .await?
            .ok_or_else(|| corrupt("no header".into()))?;
        let t =
            stored::fold_stored(&header, std::iter::empty()).map_err(|e| corrupt(e.to_string()))?;
        folding.insert(
            stream.to_owned(),
            Folding {
                tournament: t,
                last_seq: 0,
                // A tournament with no events yet is shown too.
                dirty: true,
            },
        );
    }
    let f = folding.get_mut(stream).expect("inserted above");
    // The follower delivers each event once, in order; a repeat is ignored.
    if seq <= f.last_seq {
        return Ok(());
    }
    let event = stored::decode(payload).map_err(|e| corrupt(format!("event {seq}: {e}")))?;
    f.tournament.apply(&event);
    f.last_seq = seq;
    f.dirty = true;
    Ok(())
}
