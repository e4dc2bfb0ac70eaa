//! The `mafia.v1.Referee` gRPC service.

use crate::auth::{self, Caller, Tokens};
use crate::error::RefereeError;
use crate::games::{self, Games, Outcome, Snapshot};
use crate::keys::parse_game_id;
use crate::metrics::Metrics;
use crate::reply;
use futures::StreamExt;
use mafia_event_log::{Fanout, GameFollowed, LogError};
use mafia_proto::convert::{
    audience_from_proto, command_from_json, command_from_proto, event_to_proto,
    header_from_request, state_to_proto,
};
use mafia_proto::v1::{self, judge_command::Kind, referee_server::Referee};
use mafia_record::{GameId, Refusal, Rejected};
use mafia_rules::view::events_for;
use mafia_rules::{Audience, Deal};
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use tokio::sync::{mpsc, watch};
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::Stream;
use tonic::{Request, Response, Status, Streaming};

/// Replies buffered per stream before the referee waits for the client.
const REPLY_BUFFER: usize = 64;

pub struct Shared {
    pub games: Games,
    pub tokens: Tokens,
    pub hub: Arc<Fanout>,
    pub metrics: Arc<Metrics>,
    pub shutdown: watch::Receiver<bool>,
    /// Every stream task holds a clone; shutdown waits until all are gone.
    pub alive: mpsc::Sender<()>,
    pub max_command_bytes: usize,
}

#[derive(Clone)]
pub struct RefereeService {
    pub shared: Arc<Shared>,
}

/// The next message; `None` when the client closed its side. Shutdown ends
/// the stream with UNAVAILABLE so the judge reconnects elsewhere.
async fn next_command(
    inbound: &mut Streaming<v1::JudgeCommand>,
    stop: &mut Stop,
) -> Result<Option<Option<Kind>>, Status> {
    // The command first: the stop is polled (a lock on the shutdown
    // watch) only while the judge has sent nothing, not on each of the
    // several wake-ups a command takes.
    tokio::select! {
        biased;
        m = inbound.message() => Ok(m?.map(|c| c.kind)),
        why = stop.as_mut() => Err(why),
    }
}

/// Resolves, with the status the stream ends with, when the referee
/// starts shutting down or the caller's credential is revoked. One per
/// stream, waited on by every read: a wait made afresh for each command put
/// a waiter on the shutdown watch and took it off again every time
/// (issue 15).
type Stop = Pin<Box<dyn Future<Output = Status> + Send>>;

fn stop(shutdown: &watch::Receiver<bool>, mut revoked: auth::Revocation) -> Stop {
    let mut shutdown = shutdown.clone();
    Box::pin(async move {
        tokio::select! {
            _ = crate::stopped(&mut shutdown) => shutting_down(),
            _ = &mut revoked => auth::revoked(),
        }
    })
}

type ReplyStream<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send>>;

fn shutting_down() -> Status {
    Status::unavailable("referee shutting down; reconnect and attach again")
}

/// One Judge stream, served as the response stream itself (no task and
/// no channel of its own): each reply is computed when the transport asks
/// for the next one, so a command is read only after the previous reply
/// was taken. Attach first, then Submits.
struct JudgeStream {
    shared: Arc<Shared>,
    inbound: Streaming<v1::JudgeCommand>,
    /// Not polled again once it has resolved: that ends the stream (`done`).
    stop: Stop,
    /// Until the Attach is checked.
    caller: Option<Caller>,
    /// The caller's credential, if issued at runtime: checked again before
    /// each command, since a judge who never pauses never lets the stop
    /// be polled.
    credential: Option<String>,
    /// The attached game and its `omit_state`.
    game: Option<(GameId, bool)>,
    /// Replies due before the next command is read (the attach's).
    queued: VecDeque<v1::RefereeReply>,
    /// The stream's error was sent: nothing more.
    done: bool,
    _gauge: Gauge,
    /// Shutdown waits until every stream is gone.
    _alive: mpsc::Sender<()>,
}

type JudgeItem = Result<v1::RefereeReply, Status>;

impl JudgeStream {
    /// The next reply; every way the stream ends with an error goes
    /// through here once, so the judge always learns why (a decode error
    /// is OUT_OF_RANGE, not OK). `None` when the client closed its side.
    /// Boxed: the stream's state moves in and out of every step, so it
    /// moves as a pointer.
    async fn next(mut self: Box<Self>) -> Option<(JudgeItem, Box<Self>)> {
        if let Some(r) = self.queued.pop_front() {
            return Some((Ok(r), self));
        }
        if self.done {
            return None;
        }
        match self.step().await {
            Ok(Some(r)) => Some((Ok(r), self)),
            Ok(None) => None,
            Err(status) => {
                self.done = true;
                Some((Err(status), self))
            }
        }
    }

    async fn step(&mut self) -> Result<Option<v1::RefereeReply>, Status> {
        let Some((game_id, omit_state)) = &self.game else {
            return self.attach().await;
        };
        let submit = match next_command(&mut self.inbound, &mut self.stop).await? {
            Some(Some(Kind::Submit(s))) => s,
            Some(_) => {
                return Err(Status::failed_precondition(
                    "only Submit may follow Attach on a Judge stream",
                ))
            }
            None => return Ok(None),
        };
        if let Some(id) = &self.credential {
            if !self.shared.tokens.is_live(id) {
                return Err(auth::revoked());
            }
        }
        self.shared
            .handle_submit(game_id, submit, *omit_state)
            .await
            .map(Some)
    }

    async fn attach(&mut self) -> Result<Option<v1::RefereeReply>, Status> {
        let attach = match next_command(&mut self.inbound, &mut self.stop).await? {
            Some(Some(Kind::Attach(a))) => a,
            Some(_) => {
                return Err(Status::failed_precondition(
                    "the first message of a Judge stream must be Attach",
                ))
            }
            None => return Ok(None),
        };
        let omit_state = attach.omit_state;
        let game_id = parse_game_id(&attach.game_id)?;
        let caller = self.caller.take().expect("attach runs once");
        caller.may_judge(&game_id).map_err(auth::status)?;
        let (state, missed) = self
            .shared
            .games
            .attach(&game_id, attach.last_acked_seq, omit_state)
            .await?;
        self.queued.extend(missed.iter().map(reply::accepted));
        self.game = Some((game_id, omit_state));
        Ok(Some(reply::attached(&state)))
    }
}

impl Shared {
    fn authenticate(&self, meta: &tonic::metadata::MetadataMap) -> Result<Caller, Status> {
        auth::authenticate(&self.tokens, meta)
    }

    /// Whether the scoring service holds the game's tournament (its
    /// stream exists in the log).
    /// The tournament the scoring service holds for `game_id`, if any.
    async fn held_tournament(
        &self,
        game_id: &GameId,
    ) -> Result<Option<mafia_tournament::Tournament>, Status> {
        Ok(crate::seated::tournament_of(&**self.games.log(), game_id).await?)
    }

    async fn handle_submit(
        &self,
        game_id: &GameId,
        s: v1::Submit,
        omit_state: bool,
    ) -> Result<v1::RefereeReply, Status> {
        if s.client_seq == 0 {
            return Err(Status::invalid_argument("client_seq starts at 1"));
        }
        let parsed = match &s.body {
            Some(v1::submit::Body::CommandJson(json)) if json.len() > self.max_command_bytes => {
                Err("the command is too large".to_owned())
            }
            Some(v1::submit::Body::CommandJson(json)) => {
                command_from_json(json).map_err(|e| e.to_string())
            }
            Some(v1::submit::Body::Command(c)) => command_from_proto(c).map_err(|e| e.to_string()),
            None => Err("the submit has no command".to_owned()),
        };
        let cmd = match parsed {
            Ok(c) => c,
            Err(why) => {
                let refusal = Refusal::malformed(&why);
                self.metrics.rejected(refusal.code());
                return Ok(reply::rejected(&Rejected {
                    client_seq: s.client_seq,
                    refusal,
                }));
            }
        };
        match self
            .games
            .submit(game_id, s.client_seq, s.at, &cmd, omit_state)
            .await?
        {
            Outcome::Accepted {
                accepted,
                event_json,
            } => Ok(reply::accepted_encoded(&accepted, event_json)),
            Outcome::Rejected(r) => Ok(reply::rejected(&r)),
            Outcome::Gap { expected, got } => Err(Status::failed_precondition(format!(
                "sequence gap: expected client_seq {expected}, got {got}"
            ))),
            Outcome::Conflict { client_seq } => Err(Status::already_exists(format!(
                "conflicting resend: client_seq {client_seq} was accepted for a different command (or time); nothing was stored: attach again and continue after the game's last_client_seq"
            ))),
        }
    }

    async fn run_watch(
        self: Arc<Self>,
        game_id: GameId,
        key: String,
        audience: Audience,
        from_seq: u64,
        mut revoked: auth::Revocation,
        tx: mpsc::Sender<Result<v1::WatchGameEvent, Status>>,
    ) {
        let mut shutdown = self.shutdown.clone();
        let log = self.games.log();
        let mut ending = games::Ending::default();
        // Starting past the end of a finished game: nothing will ever come.
        if let Ok(last) = log.last_seq(&key).await {
            if last > 0 && from_seq > last {
                if let Ok(tail) = games::read_from(log.as_ref(), &game_id, &key, last, 1).await {
                    for e in &tail {
                        if ending.is_last(log.as_ref(), &key, &e.envelope.event).await {
                            return;
                        }
                    }
                }
            }
        }
        let mut follow = self.hub.follow_game(&key, from_seq);
        // Until the log is read up, a game that already ended shows its
        // whole history to every audience.
        let mut over = false;
        let mut caught_up = false;
        let mut history: Vec<mafia_record::LoggedEvent> = Vec::new();
        loop {
            let item = tokio::select! {
                _ = crate::stopped(&mut shutdown) => { let _ = tx.send(Err(shutting_down())).await; return; }
                _ = &mut revoked => { let _ = tx.send(Err(auth::revoked())).await; return; }
                _ = tx.closed() => return,
                item = follow.next() => item,
            };
            let event = match item {
                Some(Ok(GameFollowed::Event(e))) => e,
                Some(Ok(GameFollowed::CaughtUp)) => {
                    caught_up = true;
                    for e in std::mem::take(&mut history) {
                        let last = ending.is_last(log.as_ref(), &key, &e.envelope.event).await;
                        match send_watched(&tx, &e, audience, over, last).await {
                            Sent::Ok => {}
                            Sent::Final | Sent::Closed => return,
                        }
                    }
                    continue;
                }
                // Re-read from the log by the follower; nothing is missed.
                Some(Ok(GameFollowed::Lagged)) => continue,
                // The follower retries the store by itself.
                Some(Err(e @ (LogError::Redis(_) | LogError::Storage(_) | LogError::Task(_)))) => {
                    tracing::warn!(game = %game_id, error = %e, "watch interrupted; resuming");
                    continue;
                }
                Some(Err(e)) => {
                    let _ = tx.send(Err(RefereeError::from(e).into())).await;
                    return;
                }
                None => {
                    let _ = tx.send(Err(shutting_down())).await;
                    return;
                }
            };
            let e = match games::decode(&game_id, event.seq, &event.payload) {
                Ok(e) => e,
                Err(e) => {
                    let _ = tx.send(Err(e.into())).await;
                    return;
                }
            };
            if caught_up {
                let last = ending.is_last(log.as_ref(), &key, &e.envelope.event).await;
                match send_watched(&tx, &e, audience, false, last).await {
                    Sent::Ok => {}
                    Sent::Final | Sent::Closed => return,
                }
            } else {
                over |= games::is_final(&e.envelope.event);
                history.push(e);
            }
        }
    }
}

enum Sent {
    Ok,
    Final,
    Closed,
}

async fn send_watched(
    tx: &mpsc::Sender<Result<v1::WatchGameEvent, Status>>,
    e: &mafia_record::LoggedEvent,
    audience: Audience,
    over: bool,
    last: bool,
) -> Sent {
    let shown = events_for(audience, std::slice::from_ref(&e.envelope), over);
    if let Some(env) = shown.first() {
        let msg = v1::WatchGameEvent {
            event: Some(event_to_proto(env, e.client_seq)),
            game_over: last,
        };
        if tx.send(Ok(msg)).await.is_err() {
            return Sent::Closed;
        }
    }
    if last {
        Sent::Final
    } else {
        Sent::Ok
    }
}

struct Gauge(Arc<Metrics>);

impl Drop for Gauge {
    fn drop(&mut self) {
        self.0.judges(-1);
    }
}

fn audience(a: i32) -> Audience {
    v1::Audience::try_from(a)
        .ok()
        .and_then(audience_from_proto)
        .unwrap_or(Audience::Judge)
}

#[tonic::async_trait]
impl Referee for RefereeService {
    async fn open_game(
        &self,
        request: Request<v1::OpenGameRequest>,
    ) -> Result<Response<v1::OpenGameResponse>, Status> {
        let caller = self.shared.authenticate(request.metadata())?;
        let req = request.into_inner();
        let header =
            header_from_request(&req).map_err(|e| Status::invalid_argument(e.to_string()))?;
        let game_id = header
            .game_id()
            .map_err(|e| Status::invalid_argument(e.to_string()))?;
        caller.may_open(&game_id).map_err(auth::status)?;
        if *self.shared.shutdown.borrow() {
            return Err(shutting_down());
        }
        let tournament = self.shared.held_tournament(&game_id).await?;
        let held = tournament.is_some();
        caller.may_open_in(&game_id, held).map_err(auth::status)?;
        if let Some(why) = tournament
            .as_ref()
            .and_then(|t| crate::seated::disagreement(t, &game_id, &header))
        {
            return Err(Status::failed_precondition(why));
        }
        if held && matches!(header.deal, Deal::Seed(_)) {
            return Err(Status::invalid_argument(format!(
                "tournament {} deals its digital games from seeds the referee draws: send a drawn deal, not a seed",
                game_id.tournament
            )));
        }
        // An organiser opens games it may not judge: it is shown what the
        // public sees, since the referee has no broadcast delay to give it.
        let shown = match caller.may_judge(&game_id) {
            Ok(()) => Audience::Judge,
            Err(_) => Audience::Public,
        };
        let (created, state, deal) = self
            .shared
            .games
            .open(header, &game_id, req.at, shown)
            .await?;
        tracing::info!(game = %game_id, created, "game opened");
        let deal_commitment = match deal {
            Deal::Drawn(d) => d.commitment.map(|c| c.to_string()).unwrap_or_default(),
            _ => String::new(),
        };
        Ok(Response::new(v1::OpenGameResponse {
            game_id: game_id.to_string(),
            created,
            state: Some(state_to_proto(&state)),
            deal_commitment,
        }))
    }

    type JudgeStream = ReplyStream<v1::RefereeReply>;

    async fn judge(
        &self,
        request: Request<Streaming<v1::JudgeCommand>>,
    ) -> Result<Response<Self::JudgeStream>, Status> {
        let caller = self.shared.authenticate(request.metadata())?;
        if *self.shared.shutdown.borrow() {
            return Err(shutting_down());
        }
        self.shared.metrics.judges(1);
        let stream = Box::new(JudgeStream {
            shared: self.shared.clone(),
            inbound: request.into_inner(),
            stop: stop(
                &self.shared.shutdown,
                self.shared.tokens.until_revoked(&caller),
            ),
            credential: caller.credential().map(str::to_owned),
            caller: Some(caller),
            game: None,
            queued: VecDeque::new(),
            done: false,
            _gauge: Gauge(self.shared.metrics.clone()),
            _alive: self.shared.alive.clone(),
        });
        Ok(Response::new(Box::pin(futures::stream::unfold(
            stream,
            JudgeStream::next,
        ))))
    }

    async fn get_game(
        &self,
        request: Request<v1::GetGameRequest>,
    ) -> Result<Response<v1::GetGameResponse>, Status> {
        let caller = self.shared.authenticate(request.metadata())?;
        let req = request.into_inner();
        let game_id = parse_game_id(&req.game_id)?;
        caller.may_judge(&game_id).map_err(auth::status)?;
        let Snapshot {
            header,
            state,
            events,
        } = self
            .shared
            .games
            .read(&game_id, audience(req.audience))
            .await?;
        Ok(Response::new(v1::GetGameResponse {
            state: Some(state_to_proto(&state)),
            events: events
                .iter()
                .map(|e| event_to_proto(&e.envelope, e.client_seq))
                .collect(),
            header_json: serde_json::to_string(header.as_ref()).unwrap_or_default(),
        }))
    }

    type WatchGameStream = ReplyStream<v1::WatchGameEvent>;

    async fn watch_game(
        &self,
        request: Request<v1::WatchGameRequest>,
    ) -> Result<Response<Self::WatchGameStream>, Status> {
        let caller = self.shared.authenticate(request.metadata())?;
        let req = request.into_inner();
        let game_id = parse_game_id(&req.game_id)?;
        caller.may_judge(&game_id).map_err(auth::status)?;
        let key = game_id.to_string();
        let (tx, rx) = mpsc::channel(REPLY_BUFFER);
        let shared = self.shared.clone();
        let alive = self.shared.alive.clone();
        let aud = audience(req.audience);
        let revoked = self.shared.tokens.until_revoked(&caller);
        tokio::spawn(async move {
            shared
                .run_watch(game_id, key, aud, req.from_seq, revoked, tx)
                .await;
            drop(alive);
        });
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
    }
}
