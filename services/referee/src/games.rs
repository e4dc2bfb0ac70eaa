//! The games this referee owns: each one loaded from the event log under a
//! lease, advanced by judges' commands, and appended to the log (with the
//! lease's fence) before any reply goes out.

use crate::error::RefereeError;
use crate::metrics::Metrics;
use crate::sealed;
use bytes::Bytes;
use futures::StreamExt;
use mafia_event_log::{EventLog, LogError};
use mafia_record::logged::{command_digest, sent_digest};
use mafia_record::{Accepted, GameId, GameState, Header, LoggedEvent, Refusal, Rejected};
use mafia_rules::view::events_for;
use mafia_rules::{Audience, Command, Deal, Drawn, Event, Game, Sealed, Step};
use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tokio::sync::Mutex as AsyncMutex;

/// Events read from the log per call while loading a game.
const READ_PAGE: usize = 1024;

/// How far ahead of the referee's clock a judge's `at` may be. Generous on
/// purpose: a laptop whose clock is off by its time zone's hours is still
/// judged (and told nothing wrong), and so is a simulator that plays a
/// whole game (at most about two hours of the game's time) at once; a time
/// days or ages ahead (`i64::MAX`), which would hold the broadcast's copy
/// of the game back as long, is refused.
pub const AHEAD_TOLERANCE_MS: i64 = 12 * 60 * 60 * 1000;

pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// One game as this referee holds it.
pub struct Slot {
    pub game_id: GameId,
    pub key: String,
    pub header: Arc<Header>,
    game: Game,
    events: Vec<LoggedEvent>,
    /// `acks[k - 1]` = the range of `events` produced by client_seq `k`.
    acks: Vec<Range<u32>>,
    /// `sent[k - 1]` = the digest of client_seq `k`'s command as sent
    /// (`command_digest`); 0 where the log kept none (written before it).
    sent: Vec<u64>,
    /// A drawn deal's secret, revealed by the command that ends the game.
    sealed: Option<Sealed>,
    fence: u64,
    last_used: Instant,
}

impl Slot {
    pub fn last_client_seq(&self) -> u64 {
        self.acks.len() as u64
    }

    pub fn is_over(&self) -> bool {
        self.game.is_over()
    }

    pub fn state(&self, audience: Audience) -> GameState {
        state_of(&self.game_id, &self.game, self.last_client_seq(), audience)
    }

    fn events_of(&self, client_seq: u64) -> &[LoggedEvent] {
        let r = self.acks[(client_seq - 1) as usize].clone();
        &self.events[r.start as usize..r.end as usize]
    }

    fn record(&mut self, logged: LoggedEvent, sent: Option<u64>) {
        if let Some(k) = logged.client_seq {
            // Client seqs are contiguous from 1; tolerate holes from other
            // writers by giving the missing seqs no events.
            let at = self.events.len() as u32;
            while (self.acks.len() as u64) < k {
                self.acks.push(at..at);
                self.sent.push(0);
            }
            if let (Some(d), Some(slot)) = (sent, self.sent.get_mut((k - 1) as usize)) {
                *slot = d;
            }
            if let Some(r) = self.acks.get_mut((k - 1) as usize) {
                if r.start == r.end {
                    *r = at..at;
                }
                r.end = at + 1;
            }
        }
        self.events.push(logged);
    }

    /// The `Accepted` reply for an already applied client_seq; `state` is
    /// built only when `with_state` (and the reply is not a replay).
    pub fn ack_again(
        &self,
        client_seq: u64,
        duplicate: bool,
        replayed: bool,
        with_state: bool,
    ) -> Accepted {
        Accepted {
            client_seq,
            events: self.events_of(client_seq).to_vec(),
            state: (with_state && !replayed).then(|| self.state(Audience::Judge)),
            duplicate,
            replayed,
        }
    }

    /// All events as `audience` sees them.
    pub fn events_for(&self, audience: Audience) -> Vec<LoggedEvent> {
        filtered(&self.events, audience, self.game.is_over())
    }
}

pub fn filtered(events: &[LoggedEvent], audience: Audience, over: bool) -> Vec<LoggedEvent> {
    events
        .iter()
        .filter_map(|e| {
            let shown = events_for(audience, std::slice::from_ref(&e.envelope), over);
            shown.into_iter().next().map(|envelope| LoggedEvent {
                client_seq: e.client_seq,
                envelope,
            })
        })
        .collect()
}

pub fn state_of(
    game_id: &GameId,
    game: &Game,
    last_client_seq: u64,
    audience: Audience,
) -> GameState {
    GameState {
        game_id: game_id.clone(),
        seq: u64::from(game.seq()),
        last_client_seq,
        over: game.is_over(),
        // The judge's view holds the prompt (`Game::expected`).
        view: game.view(audience),
    }
}

/// Whether an event marks the end of a game (everything is public after it).
pub fn is_final(e: &Event) -> bool {
    matches!(e, Event::StepStarted { step: Step::Ended })
}

/// Which event is the last of a game's history: its end, or for a drawn
/// deal the reveal stored right after it. Whether the deal is drawn is read
/// from the stored header once, when first needed.
#[derive(Default)]
pub struct Ending {
    drawn: Option<bool>,
}

impl Ending {
    pub async fn is_last(&mut self, log: &dyn EventLog, key: &str, e: &Event) -> bool {
        match e {
            Event::DealRevealed(_) => true,
            e if is_final(e) => {
                if self.drawn.is_none() {
                    let header = log.header(key).await.ok().flatten();
                    self.drawn = Some(header.is_some_and(|h| {
                        serde_json::from_slice::<Header>(&h)
                            .is_ok_and(|h| matches!(h.deal, Deal::Drawn(_)))
                    }));
                }
                self.drawn == Some(false)
            }
            _ => false,
        }
    }
}

/// The outcome of one submitted command.
pub enum Outcome {
    /// With each event's JSON when it was just encoded for the log
    /// (`event_json[i]` is `accepted.events[i]`'s), so the reply does not
    /// encode it again; empty for an ack of an earlier command.
    Accepted {
        accepted: Accepted,
        event_json: Vec<String>,
    },
    Rejected(Rejected),
    /// The client skipped sequence numbers: a client bug, ends the stream.
    Gap {
        expected: u64,
        got: u64,
    },
    /// A different command under a client_seq already accepted: ends the
    /// stream (the judge attaches again and learns where the game is).
    Conflict {
        client_seq: u64,
    },
}

/// The metrics' name of a conflicting resend.
pub const CONFLICTING_RESEND: &str = "conflicting_resend";

type Entry = Arc<AsyncMutex<Option<Slot>>>;

/// A game as one audience may read it, with its header.
pub struct Snapshot {
    pub header: Arc<Header>,
    pub state: GameState,
    pub events: Vec<LoggedEvent>,
}

/// The registry of loaded games.
pub struct Games {
    log: Arc<dyn EventLog>,
    owner: String,
    lease_ttl: Duration,
    metrics: Arc<Metrics>,
    /// Looked up on every command. Keyed by judges' game ids, so seeded
    /// (foldhash's per-map seed) rather than a fixed hash.
    slots: Mutex<HashMap<GameId, Entry, foldhash::fast::RandomState>>,
}

impl Games {
    pub fn new(
        log: Arc<dyn EventLog>,
        owner: String,
        lease_ttl: Duration,
        metrics: Arc<Metrics>,
    ) -> Games {
        Games {
            log,
            owner,
            lease_ttl,
            metrics,
            slots: Mutex::new(HashMap::default()),
        }
    }

    pub fn log(&self) -> &Arc<dyn EventLog> {
        &self.log
    }

    pub fn owner(&self) -> &str {
        &self.owner
    }

    fn entry(&self, game_id: &GameId) -> Entry {
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        // Looked up first: the key is copied only for a new entry.
        if let Some(e) = slots.get(game_id) {
            return e.clone();
        }
        slots.entry(game_id.clone()).or_default().clone()
    }

    /// The game's header as stored. A loaded game keeps its own
    /// (`Slot::header`); nothing else is cached, so memory does not grow
    /// with the games a referee has ever seen.
    async fn stored_header(&self, game_id: &GameId) -> Result<Arc<Header>, RefereeError> {
        let key = game_id.to_string();
        let bytes = self
            .log
            .header(&key)
            .await?
            .ok_or_else(|| RefereeError::UnknownGame(game_id.clone()))?;
        let header: Header = serde_json::from_slice(&bytes).map_err(|e| RefereeError::Corrupt {
            game: game_id.clone(),
            reason: format!("header: {e}"),
        })?;
        Ok(Arc::new(header))
    }

    /// The drawn deal a request's `drawn` asks for: the game's secret (kept
    /// under [`sealed::key`], drawn now if the game has none yet) and the
    /// commitment the header is to carry (the request's own, if it names
    /// one, so that a different one is a different header).
    async fn drawn_deal(&self, game_id: &GameId, asked: &Drawn) -> Result<Drawn, RefereeError> {
        if asked.seed.is_some() || asked.salt.is_some() {
            return Err(RefereeError::BadHeader(
                "a drawn deal's seed and salt are the referee's to reveal, never sent to it".into(),
            ));
        }
        let secret = match sealed::stored(self.log.as_ref(), game_id).await? {
            Some(s) => s,
            None if asked.commitment.is_some() => {
                return Err(RefereeError::BadHeader(format!(
                    "game {game_id} is not open: a drawn deal's commitment is the referee's to make (send none)"
                )))
            }
            None => sealed::draw(self.log.as_ref(), game_id).await?,
        };
        Ok(Drawn {
            commitment: Some(asked.commitment.unwrap_or(secret.commitment())),
            seed: None,
            salt: None,
        })
    }

    /// Creates the game in the log (idempotently) and loads it here.
    /// Returns whether it was newly created, and its state in `audience`
    /// (the caller's: not every caller that may open a game may judge it).
    /// For an audience other than the judges' a header that differs from
    /// the stored one only in its deal opens the stored game: refusing it
    /// would confirm the cards of the header that is not refused.
    /// `game_id` is the header's own, derived once at the edge.
    pub async fn open(
        &self,
        mut header: Header,
        game_id: &GameId,
        at: i64,
        audience: Audience,
    ) -> Result<(bool, GameState, Deal), RefereeError> {
        header
            .setup()
            .map_err(|e| RefereeError::BadHeader(e.to_string()))?;
        let now = now_ms();
        if at > now.saturating_add(AHEAD_TOLERANCE_MS) {
            return Err(RefereeError::BadHeader(format!(
                "at {at} ms is more than {} h ahead of the referee's clock ({now} ms)",
                AHEAD_TOLERANCE_MS / 3_600_000
            )));
        }
        if let Deal::Drawn(asked) = &header.deal {
            header.deal = Deal::Drawn(self.drawn_deal(game_id, asked).await?);
        }
        let game_id = game_id.clone();
        let key = game_id.to_string();
        let bytes = serde_json::to_vec(&header).expect("headers serialize");
        let (created, header) = match self.log.create_game(&key, &bytes).await {
            Ok(c) => (c, Arc::new(header)),
            Err(LogError::HeaderMismatch { .. }) => {
                let stored = self.stored_header(&game_id).await?;
                // Whether the cards were guessed right is for the judges:
                // anyone else learns only whether what he may know agrees.
                let mut known = header;
                known.deal = stored.deal.clone();
                if audience == Audience::Judge || known != *stored {
                    return Err(RefereeError::HeaderMismatch(game_id));
                }
                (false, stored)
            }
            Err(e) => return Err(e.into()),
        };
        let entry = self.entry(&game_id);
        let mut guard = entry.lock().await;
        // The log now holds this very header (a different one is refused
        // above): no need to read it back.
        let slot = self
            .ensure_loaded(&mut guard, &game_id, Some(header), at)
            .await?;
        Ok((created, slot.state(audience), slot.header.deal.clone()))
    }

    /// Loads the game under a lease unless this referee holds it already
    /// (with its `header` when the caller knows it is the stored one).
    async fn ensure_loaded<'a>(
        &self,
        guard: &'a mut Option<Slot>,
        game_id: &GameId,
        header: Option<Arc<Header>>,
        at: i64,
    ) -> Result<&'a mut Slot, RefereeError> {
        if guard.is_none() {
            *guard = Some(self.load(game_id, header, at).await?);
            self.metrics.open_games(1);
        }
        let slot = guard.as_mut().expect("just loaded");
        slot.last_used = Instant::now();
        Ok(slot)
    }

    async fn load(
        &self,
        game_id: &GameId,
        header: Option<Arc<Header>>,
        at: i64,
    ) -> Result<Slot, RefereeError> {
        let header = match header {
            Some(h) => h,
            None => self.stored_header(game_id).await?,
        };
        let key = game_id.to_string();
        let setup = header.setup().map_err(|e| RefereeError::Corrupt {
            game: game_id.clone(),
            reason: format!("stored header: {e}"),
        })?;
        let lease = match self
            .log
            .acquire_lease(&key, &self.owner, self.lease_ttl)
            .await
        {
            Ok(l) => l,
            Err(LogError::LeaseHeld { owner, expires_in }) => {
                return Err(RefereeError::OwnedElsewhere {
                    game: game_id.clone(),
                    owner,
                    ms: expires_in.as_millis(),
                })
            }
            Err(e) => return Err(e.into()),
        };
        let sealed = match &header.deal {
            Deal::Drawn(_) => Some(
                sealed::stored(self.log.as_ref(), game_id)
                    .await?
                    .ok_or_else(|| RefereeError::Corrupt {
                        game: game_id.clone(),
                        reason: "its drawn deal's secret is missing".into(),
                    })?,
            ),
            _ => None,
        };
        let events = read_from_with(
            self.log.as_ref(),
            game_id,
            &key,
            1,
            usize::MAX,
            |g, seq, p| Ok((decode(g, seq, p)?, sent_digest(p))),
        )
        .await?;
        let mut slot = Slot {
            game_id: game_id.clone(),
            key: key.clone(),
            header: header.clone(),
            game: Game::replay(setup.clone(), events.iter().map(|e| &e.0.envelope)).map_err(
                |e| RefereeError::Corrupt {
                    game: game_id.clone(),
                    reason: e.to_string(),
                },
            )?,
            // Grown as the game goes (`mafia simulate`'s games: 120 events
            // at the median, 204 at most): 256 reserved up front were most
            // of an open game's memory.
            events: Vec::with_capacity(events.len()),
            acks: Vec::new(),
            sent: Vec::new(),
            sealed,
            fence: lease.fence,
            last_used: Instant::now(),
        };
        for (e, sent) in events {
            slot.record(e, sent);
        }
        if slot.events.is_empty() {
            // A new game (or one whose opening was cut short between
            // create and append): deal and open night 0.
            let now = now_ms();
            let at = if at == 0 { now } else { at };
            let (game, opening) = match &slot.sealed {
                Some(secret) => {
                    let roles =
                        setup
                            .roles_drawn_with(secret)
                            .map_err(|e| RefereeError::Corrupt {
                                game: game_id.clone(),
                                reason: format!("drawn deal: {e}"),
                            })?;
                    Game::deal(setup, roles, at)
                }
                None => Game::new(setup, at),
            };
            let logged: Vec<LoggedEvent> = opening
                .into_iter()
                .map(|envelope| LoggedEvent {
                    client_seq: None,
                    envelope,
                })
                .collect();
            self.append(&key, 0, slot.fence, &logged, now).await?;
            slot.game = game;
            for e in logged {
                slot.record(e, None);
            }
        }
        tracing::info!(
            game = %game_id,
            tournament = %header.tournament,
            table = header.table,
            fence = slot.fence,
            events = slot.events.len(),
            "game loaded"
        );
        Ok(slot)
    }

    async fn append(
        &self,
        key: &str,
        expected_last: u64,
        fence: u64,
        events: &[LoggedEvent],
        accepted_at: i64,
    ) -> Result<(), LogError> {
        let payloads: Vec<Bytes> = events
            .iter()
            .map(|e| Bytes::from(e.encode_accepted(Some(accepted_at)).json))
            .collect();
        self.append_payloads(key, expected_last, fence, &payloads)
            .await
    }

    async fn append_payloads(
        &self,
        key: &str,
        expected_last: u64,
        fence: u64,
        payloads: &[Bytes],
    ) -> Result<(), LogError> {
        let t = Instant::now();
        let r = self.log.append(key, expected_last, fence, payloads).await;
        self.metrics.append_latency(t.elapsed());
        r.map(|_| ())
    }

    /// Attaches a judge: the current state, then the accepted replies after
    /// `last_acked`, oldest first. With `omit_state` the acks carry no state.
    pub async fn attach(
        &self,
        game_id: &GameId,
        last_acked: u64,
        omit_state: bool,
    ) -> Result<(GameState, Vec<Accepted>), RefereeError> {
        let entry = self.entry(game_id);
        let mut guard = entry.lock().await;
        let slot = self.ensure_loaded(&mut guard, game_id, None, 0).await?;
        let missed = (last_acked.saturating_add(1)..=slot.last_client_seq())
            .map(|k| slot.ack_again(k, false, true, !omit_state))
            .collect();
        Ok((slot.state(Audience::Judge), missed))
    }

    /// Applies one command: stored before the reply is built. With
    /// `omit_state` the ack carries no state.
    pub async fn submit(
        &self,
        game_id: &GameId,
        client_seq: u64,
        at: i64,
        cmd: &Command,
        omit_state: bool,
    ) -> Result<Outcome, RefereeError> {
        let entry = self.entry(game_id);
        let mut guard = entry.lock().await;
        let slot = self.ensure_loaded(&mut guard, game_id, None, 0).await?;
        let last = slot.last_client_seq();
        let sent = command_digest(at, cmd);
        if client_seq <= last {
            let stored = slot.sent[(client_seq - 1) as usize];
            if stored != 0 && stored != sent {
                self.metrics.rejected(CONFLICTING_RESEND);
                return Ok(Outcome::Conflict { client_seq });
            }
            self.metrics.duplicate();
            return Ok(Outcome::Accepted {
                accepted: slot.ack_again(client_seq, true, false, !omit_state),
                event_json: Vec::new(),
            });
        }
        if client_seq != last + 1 {
            return Ok(Outcome::Gap {
                expected: last + 1,
                got: client_seq,
            });
        }
        let now = now_ms();
        let last_at = slot.events.last().map_or(i64::MIN, |e| e.envelope.at);
        // 0 is "the referee's clock", never earlier than the game's time.
        let at = if at == 0 { now.max(last_at) } else { at };
        let time_refusal = if at < last_at {
            Some(Refusal::time_backwards(at, last_at))
        } else if at > now.saturating_add(AHEAD_TOLERANCE_MS) {
            Some(Refusal::time_ahead(at, now, AHEAD_TOLERANCE_MS))
        } else {
            None
        };
        if let Some(refusal) = time_refusal {
            self.metrics.rejected(refusal.code());
            return Ok(Outcome::Rejected(Rejected {
                client_seq,
                refusal,
            }));
        }
        let expected = u64::from(slot.game.seq());
        // Applied in place: a refused command changes nothing (the engine's
        // contract), and a failed append drops the game below, so the next
        // call reloads it as stored.
        let mut envelopes = match slot.game.apply(cmd, at) {
            Ok(e) => e,
            Err(v) => {
                self.metrics.rejected(v.code.as_str());
                return Ok(Outcome::Rejected(Rejected {
                    client_seq,
                    refusal: Refusal::Rule(v),
                }));
            }
        };
        if let (true, Some(secret)) = (slot.game.is_over(), slot.sealed) {
            // Stored with the game's last events, in the same append: a
            // game is never over without its deal revealed.
            match slot.game.reveal_deal(&secret, at) {
                Ok(env) => envelopes.push(env),
                Err(e) => tracing::error!(game = %game_id, error = %e, "drawn deal not revealed"),
            }
        }
        // Stored with the events, not kept with them here (see
        // `mafia_record::logged::accepted_at`).
        let accepted_at = Some(now);
        let logged: Vec<LoggedEvent> = envelopes
            .into_iter()
            .map(|envelope| LoggedEvent {
                client_seq: Some(client_seq),
                envelope,
            })
            .collect();
        // Each event encoded once: the stored payload, and its event's JSON
        // for the reply.
        let mut event_json = Vec::with_capacity(logged.len());
        let payloads: Vec<Bytes> = logged
            .iter()
            .map(|e| {
                let enc = e.encode_stamped(accepted_at, Some(sent));
                event_json.push(enc.event_json().to_owned());
                Bytes::from(enc.json)
            })
            .collect();
        if logged.is_empty() {
            // The engine emits at least one event per accepted command; if it
            // ever did not, nothing could record the client_seq durably.
            tracing::warn!(game = %game_id, client_seq, "accepted command produced no events");
        } else {
            if let Err(e) = self
                .append_payloads(&slot.key, expected, slot.fence, &payloads)
                .await
            {
                tracing::warn!(game = %game_id, error = %e, "append failed; dropping the game");
                // Whatever happened, the stored history is the truth: reload
                // it (under a fresh lease) on the next call.
                *guard = None;
                self.metrics.open_games(-1);
                return Err(match e {
                    LogError::Fenced { .. }
                    | LogError::LeaseLost { .. }
                    | LogError::Conflict { .. } => RefereeError::LeaseLost(game_id.clone()),
                    other => RefereeError::Log(other),
                });
            }
        }
        let at_idx = slot.events.len() as u32;
        for e in logged {
            slot.record(e, Some(sent));
        }
        if slot.acks.len() as u64 != client_seq {
            slot.acks.push(at_idx..at_idx);
            slot.sent.push(sent);
        }
        self.metrics.accepted();
        let reply = slot.ack_again(client_seq, false, false, !omit_state);
        if slot.is_over() {
            // Finished games need no owner: free the lease and the memory;
            // a late re-send reloads it from the log.
            let (key, fence) = (slot.key.clone(), slot.fence);
            *guard = None;
            self.metrics.open_games(-1);
            self.forget_slot(game_id);
            if let Err(e) = self.log.release_lease(&key, &self.owner, fence).await {
                tracing::debug!(game = %game_id, error = %e, "lease release failed");
            }
        }
        Ok(Outcome::Accepted {
            accepted: reply,
            event_json,
        })
    }

    fn forget_slot(&self, game_id: &GameId) {
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        // Only when nobody else is waiting on it (the map holds one Arc and
        // the caller's guard another).
        if slots
            .get(game_id)
            .is_some_and(|e| Arc::strong_count(e) <= 2)
        {
            slots.remove(game_id);
        }
    }

    /// The game for reading: this referee's copy if it owns it, else a
    /// read-only replay of the log (no lease).
    pub async fn read(
        &self,
        game_id: &GameId,
        audience: Audience,
    ) -> Result<Snapshot, RefereeError> {
        let existing = self
            .slots
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(game_id)
            .cloned();
        if let Some(entry) = existing {
            let guard = entry.lock().await;
            if let Some(slot) = guard.as_ref() {
                return Ok(Snapshot {
                    header: slot.header.clone(),
                    state: slot.state(audience),
                    events: slot.events_for(audience),
                });
            }
        }
        let header = self.stored_header(game_id).await?;
        let key = game_id.to_string();
        let events = read_all(self.log.as_ref(), game_id, &key).await?;
        let setup = header.setup().map_err(|e| RefereeError::Corrupt {
            game: game_id.clone(),
            reason: format!("stored header: {e}"),
        })?;
        let game = Game::replay(setup, events.iter().map(|e| &e.envelope)).map_err(|e| {
            RefereeError::Corrupt {
                game: game_id.clone(),
                reason: e.to_string(),
            }
        })?;
        let last_client_seq = events
            .iter()
            .filter_map(|e| e.client_seq)
            .max()
            .unwrap_or(0);
        Ok(Snapshot {
            state: state_of(game_id, &game, last_client_seq, audience),
            events: filtered(&events, audience, game.is_over()),
            header,
        })
    }

    /// Renews every held lease; drops games whose lease was lost, and those
    /// idle for longer than `idle` (releasing their lease). The game's lock
    /// is not held during the renewal call, so commands never wait on it.
    pub async fn renew_leases(&self, idle: Duration) {
        let entries: Vec<(GameId, Entry)> = self
            .slots
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        // Concurrently, so a referee with thousands of games still renews
        // each one well within its TTL.
        futures::stream::iter(entries)
            .for_each_concurrent(64, |(game_id, entry)| self.renew_one(game_id, entry, idle))
            .await;
    }

    async fn renew_one(&self, game_id: GameId, entry: Entry, idle: Duration) {
        let (key, fence) = {
            let mut guard = entry.lock().await;
            let Some(slot) = guard.as_ref() else { return };
            let (key, fence) = (slot.key.clone(), slot.fence);
            if slot.last_used.elapsed() > idle {
                *guard = None;
                self.metrics.open_games(-1);
                drop(guard);
                // Its entry too, or the map grows with every game a judge
                // left unfinished.
                self.forget_slot(&game_id);
                let _ = self.log.release_lease(&key, &self.owner, fence).await;
                tracing::debug!(game = %game_id, "idle game unloaded");
                return;
            }
            (key, fence)
        };
        match self
            .log
            .renew_lease(&key, &self.owner, fence, self.lease_ttl)
            .await
        {
            Ok(_) => {}
            Err(LogError::LeaseLost { .. }) => {
                tracing::warn!(game = %game_id, "lease lost to another referee");
                let mut guard = entry.lock().await;
                if guard.as_ref().is_some_and(|s| s.fence == fence) {
                    *guard = None;
                    self.metrics.open_games(-1);
                }
            }
            Err(e) => tracing::warn!(game = %game_id, error = %e, "lease renewal failed"),
        }
    }

    /// Releases every lease, so another referee can take over at once.
    pub async fn release_all(&self) {
        let entries: Vec<Entry> = self
            .slots
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .drain()
            .map(|(_, v)| v)
            .collect();
        for entry in entries {
            let mut guard = entry.lock().await;
            if let Some(slot) = guard.take() {
                self.metrics.open_games(-1);
                let _ = self
                    .log
                    .release_lease(&slot.key, &self.owner, slot.fence)
                    .await;
            }
        }
    }
}

/// Every stored event of a game, decoded.
pub async fn read_all(
    log: &dyn EventLog,
    game_id: &GameId,
    key: &str,
) -> Result<Vec<LoggedEvent>, RefereeError> {
    read_from(log, game_id, key, 1, usize::MAX).await
}

/// Up to `max` stored events from `from_seq`, decoded.
pub async fn read_from(
    log: &dyn EventLog,
    game_id: &GameId,
    key: &str,
    from_seq: u64,
    max: usize,
) -> Result<Vec<LoggedEvent>, RefereeError> {
    read_from_with(log, game_id, key, from_seq, max, decode).await
}

/// [`read_from`], each stored event read by `decode` (game, seq, payload).
async fn read_from_with<T>(
    log: &dyn EventLog,
    game_id: &GameId,
    key: &str,
    from_seq: u64,
    max: usize,
    decode: impl Fn(&GameId, u64, &[u8]) -> Result<T, RefereeError>,
) -> Result<Vec<T>, RefereeError> {
    let mut out = Vec::new();
    let mut next = from_seq.max(1);
    while out.len() < max {
        let page = log.read(key, next, READ_PAGE.min(max - out.len())).await?;
        let n = page.len();
        for e in page {
            out.push(decode(game_id, e.seq, &e.payload)?);
            next = e.seq + 1;
        }
        if n < READ_PAGE {
            break;
        }
    }
    Ok(out)
}

pub fn decode(game_id: &GameId, seq: u64, payload: &[u8]) -> Result<LoggedEvent, RefereeError> {
    serde_json::from_slice(payload).map_err(|err| RefereeError::Corrupt {
        game: game_id.clone(),
        reason: format!("event {seq}: {err}"),
    })
}
