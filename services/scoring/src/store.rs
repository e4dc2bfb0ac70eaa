//! Tournaments held in memory, each folded once from its log and kept in
//! step with it: a command is validated against the cached state, appended
//! at the seq the cache was folded to (the log refuses it if another writer
//! got there first), and only then applied. A command runs in a task of its
//! own, so a caller that goes away mid-append (a dropped gRPC request)
//! cannot leave an appended command unapplied; and it is decided on the
//! blocking pool, so a long one holds no async worker.

use bytes::Bytes;
use mafia_event_log::{EventLog, LogError};
use mafia_record::TournamentId;
use mafia_tournament::stored::{self, StoredError};
use mafia_tournament::{
    Actor, Dates, Tournament, TournamentError, TournamentEvent, TournamentSpec,
};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use tokio::sync::Mutex;

const READ_BATCH: usize = 1024;
/// How often a command is revalidated after another writer appended first.
const CONFLICT_RETRIES: usize = 5;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("no tournament {0}")]
    NotFound(TournamentId),
    #[error("tournament {0} already exists")]
    AlreadyExists(TournamentId),
    #[error("{0}")]
    Refused(#[from] TournamentError),
    #[error("players CSV line {line}: {error}")]
    CsvLine { line: usize, error: TournamentError },
    /// A row refused against the tournament (a player already registered).
    #[error("players CSV line {line}: {why}")]
    CsvRow { line: usize, why: String },
    #[error("the tournament log kept changing under the command; try again")]
    Contended,
    #[error("the service is stopping; try again")]
    Stopped,
    #[error(transparent)]
    Log(#[from] LogError),
    #[error(transparent)]
    Stored(#[from] StoredError),
}

pub struct Held {
    pub tournament: Tournament,
    /// The log's seq the tournament is folded to.
    pub last_seq: u64,
}

pub struct Store {
    log: Arc<dyn EventLog>,
    pub metrics: crate::metrics::Metrics,
    held: Mutex<HashMap<TournamentId, Arc<Mutex<Held>>>>,
    /// Tournaments removed (`TournamentEvent::Removed`): held like the
    /// others, answered as not found. Apart from `held` so that telling
    /// needs no tournament's lock.
    removed: std::sync::Mutex<HashSet<TournamentId>>,
}

impl Store {
    pub fn new(log: Arc<dyn EventLog>) -> Store {
        Store {
            log,
            metrics: Default::default(),
            held: Mutex::new(HashMap::new()),
            removed: Default::default(),
        }
    }

    pub fn log(&self) -> &Arc<dyn EventLog> {
        &self.log
    }

    pub async fn create(
        &self,
        spec: TournamentSpec,
        actor: &Actor,
        now_ms: i64,
    ) -> Result<Tournament, StoreError> {
        self.create_dated(spec, Dates::default(), actor, now_ms)
            .await
    }

    pub async fn create_dated(
        &self,
        spec: TournamentSpec,
        dates: Dates,
        actor: &Actor,
        now_ms: i64,
    ) -> Result<Tournament, StoreError> {
        let id = spec.id.clone();
        let created = Tournament::create_dated(spec, dates, actor, now_ms)?;
        let t = Tournament::from_created(&created)?;
        let stream = stored::stream_of(&id);
        match self
            .log
            .create_game(&stream, &stored::encode(&created))
            .await
        {
            Ok(true) => {}
            Ok(false) | Err(LogError::HeaderMismatch { .. }) => {
                return Err(StoreError::AlreadyExists(id))
            }
            Err(e) => return Err(e.into()),
        }
        self.held.lock().await.insert(
            id,
            Arc::new(Mutex::new(Held {
                tournament: t.clone(),
                last_seq: 0,
            })),
        );
        Ok(t)
    }

    /// The tournament, folded from the log on first use; a removed one is
    /// not found.
    pub async fn get(&self, id: &TournamentId) -> Result<Arc<Mutex<Held>>, StoreError> {
        let h = self.get_any(id).await?;
        if self.is_removed(id) {
            return Err(StoreError::NotFound(id.clone()));
        }
        Ok(h)
    }

    pub fn is_removed(&self, id: &TournamentId) -> bool {
        self.removed.lock().expect("removed set").contains(id)
    }

    fn note_removed(&self, t: &Tournament) {
        if t.removed.is_some() {
            self.removed
                .lock()
                .expect("removed set")
                .insert(t.id.clone());
        }
    }

    /// The tournament, removed or not.
    async fn get_any(&self, id: &TournamentId) -> Result<Arc<Mutex<Held>>, StoreError> {
        let mut held = self.held.lock().await;
        if let Some(h) = held.get(id) {
            return Ok(h.clone());
        }
        let stream = stored::stream_of(id);
        let header = self
            .log
            .header(&stream)
            .await?
            .ok_or_else(|| StoreError::NotFound(id.clone()))?;
        let events = self.read_from(&stream, 1).await?;
        let last_seq = events.len() as u64;
        let t = stored::fold_stored(&header, events.iter().map(|b| b.as_ref()))?;
        self.note_removed(&t);
        let h = Arc::new(Mutex::new(Held {
            tournament: t,
            last_seq,
        }));
        held.insert(id.clone(), h.clone());
        Ok(h)
    }

    /// Validates with `decide` and stores what it returns; a refusal stores
    /// nothing. Returns the events stored and the tournament after them.
    /// Runs to its end in a task of its own whether or not the caller
    /// still waits: what was appended is applied.
    pub async fn command<F>(
        self: &Arc<Self>,
        id: &TournamentId,
        decide: F,
    ) -> Result<(Vec<TournamentEvent>, u64), StoreError>
    where
        F: Fn(&Tournament) -> Result<Vec<TournamentEvent>, StoreError> + Send + Sync + 'static,
    {
        let (store, id) = (self.clone(), id.clone());
        let task = tokio::spawn(async move { store.command_here(&id, Arc::new(decide)).await });
        match task.await {
            Ok(r) => r,
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Err(_) => Err(StoreError::Stopped),
        }
    }

    async fn command_here<F>(
        &self,
        id: &TournamentId,
        decide: Arc<F>,
    ) -> Result<(Vec<TournamentEvent>, u64), StoreError>
    where
        F: Fn(&Tournament) -> Result<Vec<TournamentEvent>, StoreError> + Send + Sync + 'static,
    {
        let mut h = self.get(id).await?.lock_owned().await;
        let stream = stored::stream_of(id);
        for _ in 0..CONFLICT_RETRIES {
            // Off the async workers: a command may be long (a players CSV).
            let decide = decide.clone();
            let (held, events) = tokio::task::spawn_blocking(move || {
                let events = decide(&h.tournament);
                (h, events)
            })
            .await
            .map_err(|e| match e.try_into_panic() {
                Ok(p) => std::panic::resume_unwind(p),
                Err(_) => StoreError::Stopped,
            })?;
            h = held;
            let events = events?;
            if events.is_empty() {
                return Ok((events, h.tournament.version));
            }
            let payloads: Vec<Bytes> = events
                .iter()
                .map(|e| Bytes::from(stored::encode(e)))
                .collect();
            match self.log.append(&stream, h.last_seq, 0, &payloads).await {
                Ok(appended) => {
                    for e in &events {
                        h.tournament.apply(e);
                    }
                    self.note_removed(&h.tournament);
                    h.last_seq = appended.last_seq;
                    self.metrics.stored(events.len());
                    return Ok((events, h.tournament.version));
                }
                Err(LogError::Conflict { .. }) => {
                    // Another writer appended: catch up, then decide again.
                    let newer = self.read_from(&stream, h.last_seq + 1).await?;
                    for (i, bytes) in newer.iter().enumerate() {
                        let e = stored::decode(bytes).map_err(|error| StoredError::Decode {
                            seq: h.last_seq + 1 + i as u64,
                            error,
                        })?;
                        h.tournament.apply(&e);
                    }
                    h.last_seq += newer.len() as u64;
                    self.note_removed(&h.tournament);
                    if self.is_removed(id) {
                        return Err(StoreError::NotFound(id.clone()));
                    }
                }
                Err(e) => {
                    // The outcome is unknown: refold from the log next time.
                    drop(h);
                    self.held.lock().await.remove(id);
                    return Err(e.into());
                }
            }
        }
        Err(StoreError::Contended)
    }

    /// Every tournament stored in the log, removed ones included.
    pub async fn list(&self) -> Result<Vec<TournamentId>, StoreError> {
        Ok(self
            .log
            .list_games()
            .await?
            .iter()
            .filter_map(|s| stored::tournament_of_stream(s))
            .collect())
    }

    async fn read_from(&self, stream: &str, from: u64) -> Result<Vec<Bytes>, StoreError> {
        let mut out = Vec::new();
        let mut next = from;
        loop {
            let batch = self.log.read(stream, next, READ_BATCH).await?;
            let Some(last) = batch.last() else { break };
            next = last.seq + 1;
            let full = batch.len() == READ_BATCH;
            out.extend(batch.into_iter().map(|e| e.payload));
            if !full {
                break;
            }
        }
        Ok(out)
    }
}
