//! A judge's session with one game: closed loop, resumable.

use crate::connect::{retryable, Backoff, Referee};
use crate::ClientError;
use mafia_proto::convert::{
    accepted_from_proto, command_to_proto, rejected_from_proto, state_from_proto, ConvertError,
};
use mafia_proto::v1::{self, judge_command, referee_reply};
use mafia_record::{Accepted, GameId, GameState, Rejected};
use mafia_rules::Command;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::Streaming;

/// The referee's answer to one command: stored, with its events and the new
/// state (absent when the ack was recovered after a reconnect, and always
/// with `ClientConfig::omit_state`: see [`JudgeSession::state`]), or refused
/// with nothing stored.
pub type Reply = Result<Accepted, Rejected>;

struct Conn {
    tx: mpsc::Sender<v1::JudgeCommand>,
    rx: Streaming<v1::RefereeReply>,
}

pub struct JudgeSession {
    referee: Referee,
    game_id: GameId,
    /// Highest client_seq the referee acknowledged to us.
    last_acked: u64,
    conn: Option<Conn>,
    state: Option<GameState>,
    reconnects: u64,
}

impl JudgeSession {
    /// Attaches to `game_id` (which must have been opened).
    pub async fn attach(referee: Referee, game_id: &GameId) -> Result<Self, ClientError> {
        let mut s = JudgeSession {
            referee,
            game_id: game_id.clone(),
            last_acked: 0,
            conn: None,
            state: None,
            reconnects: 0,
        };
        // A fresh session continues after the referee's position; it needs
        // no replays of acks it never waited for.
        s.last_acked = u64::MAX;
        let deadline = tokio::time::Instant::now() + s.referee.cfg.retry_budget;
        let mut backoff = Backoff::new();
        loop {
            let err = match s.ensure_connected(0).await {
                Ok(_) => return Ok(s),
                Err(ClientError::Status(st)) if !retryable(&st) => {
                    return Err(ClientError::Status(st))
                }
                Err(e @ ClientError::Protocol(_)) => return Err(e),
                Err(e) => e,
            };
            s.referee.rotate();
            if tokio::time::Instant::now() >= deadline {
                return Err(ClientError::Unreachable(err.to_string()));
            }
            backoff.wait().await;
        }
    }

    pub fn game_id(&self) -> &GameId {
        &self.game_id
    }

    /// The latest state the referee sent (judge's view, with the prompt).
    pub fn state(&self) -> Option<&GameState> {
        self.state.as_ref()
    }

    /// Commands the referee has accepted so far.
    pub fn last_acked(&self) -> u64 {
        self.last_acked
    }

    /// How many times the session had to reconnect.
    pub fn reconnects(&self) -> u64 {
        self.reconnects
    }

    /// Sends one command and waits for its acknowledgement, reconnecting and
    /// resuming as needed. A rejection is an `Ok(Err(Rejected))`.
    pub async fn submit(&mut self, at: i64, cmd: &Command) -> Result<Reply, ClientError> {
        let started = std::time::Instant::now();
        match self.submit_once(at, cmd).await? {
            Ok(a) => Ok(Ok(self.acknowledged(&a, started)?)),
            Err(r) => Ok(Err(r)),
        }
    }

    /// [`submit`](Self::submit) for a caller that needs only the sequence
    /// numbers of the stored events (the simulator, which checks them
    /// against its own engine's): without a state to keep or an ack log to
    /// write, the events' JSON is not decoded, which was the largest part
    /// of a simulated judge's work.
    pub async fn submit_for_seqs(
        &mut self,
        at: i64,
        cmd: &Command,
    ) -> Result<Result<Vec<u64>, Rejected>, ClientError> {
        let started = std::time::Instant::now();
        let a = match self.submit_once(at, cmd).await? {
            Ok(a) => a,
            Err(r) => return Ok(Err(r)),
        };
        if a.state.is_some() || self.referee.cfg.ack_log.is_some() {
            self.acknowledged(&a, started)?;
        }
        Ok(Ok(a.events.iter().map(|e| e.seq).collect()))
    }

    /// An ack, decoded: its state kept (a replayed ack's is older than the
    /// one Attached gave) and the ack logged.
    fn acknowledged(
        &mut self,
        a: &v1::Accepted,
        started: std::time::Instant,
    ) -> Result<Accepted, ClientError> {
        let a = accepted_from_proto(a).map_err(broken)?;
        if let (Some(s), false) = (&a.state, a.replayed) {
            self.state = Some(s.clone());
        }
        if let Some(log) = &self.referee.cfg.ack_log {
            log.record(&self.game_id, &a, started.elapsed());
        }
        Ok(a)
    }

    /// The raw acknowledgement of one command (events still JSON).
    async fn submit_once(
        &mut self,
        at: i64,
        cmd: &Command,
    ) -> Result<Result<v1::Accepted, Rejected>, ClientError> {
        let cmd = command_to_proto(cmd);
        let deadline = tokio::time::Instant::now() + self.referee.cfg.retry_budget;
        let mut backoff = Backoff::new();
        loop {
            let seq = self.last_acked + 1;
            let err = match self.ensure_connected(seq).await {
                Ok(Some(recovered)) => return Ok(Ok(recovered)),
                Ok(None) => match self.exchange(seq, at, &cmd).await {
                    Ok(r) => return Ok(r),
                    Err(ClientError::Status(s)) if !retryable(&s) => {
                        return Err(ClientError::Status(s))
                    }
                    Err(e @ ClientError::Protocol(_)) => return Err(e),
                    Err(e) => e,
                },
                Err(ClientError::Status(s)) if !retryable(&s) => {
                    return Err(ClientError::Status(s))
                }
                Err(e @ ClientError::Protocol(_)) => return Err(e),
                Err(e) => e,
            };
            self.conn = None;
            self.referee.rotate();
            if tokio::time::Instant::now() >= deadline {
                return Err(ClientError::Unreachable(err.to_string()));
            }
            tracing::debug!(game = %self.game_id, error = %err, "judge stream broke; resuming");
            backoff.wait().await;
        }
    }

    async fn exchange(
        &mut self,
        seq: u64,
        at: i64,
        cmd: &v1::Command,
    ) -> Result<Result<v1::Accepted, Rejected>, ClientError> {
        let conn = self.conn.as_mut().expect("connected");
        let msg = v1::JudgeCommand {
            kind: Some(judge_command::Kind::Submit(v1::Submit {
                client_seq: seq,
                at,
                body: Some(v1::submit::Body::Command(cmd.clone())),
            })),
        };
        conn.tx
            .send(msg)
            .await
            .map_err(|_| ClientError::Unreachable("stream closed".into()))?;
        match next_reply(&mut conn.rx).await? {
            referee_reply::Kind::Accepted(a) if a.client_seq == seq => {
                self.last_acked = seq;
                Ok(Ok(a))
            }
            referee_reply::Kind::Rejected(r) if r.client_seq == seq => {
                Ok(Err(rejected_from_proto(&r).map_err(broken)?))
            }
            other => Err(ClientError::Protocol(format!(
                "expected the reply to client_seq {seq}, got {other:?}"
            ))),
        }
    }

    /// Connects and attaches if needed. Returns the ack of `in_flight` if the
    /// referee had already applied it before the connection broke.
    async fn ensure_connected(
        &mut self,
        in_flight: u64,
    ) -> Result<Option<v1::Accepted>, ClientError> {
        if self.conn.is_some() {
            return Ok(None);
        }
        let mut client = self.referee.connect().await?;
        let (tx, rx) = mpsc::channel(8);
        tx.send(v1::JudgeCommand {
            kind: Some(judge_command::Kind::Attach(v1::Attach {
                game_id: self.game_id.to_string(),
                last_acked_seq: self.last_acked,
                omit_state: self.referee.cfg.omit_state,
            })),
        })
        .await
        .map_err(|_| ClientError::Protocol("request stream closed".into()))?;
        let mut inbound = client.judge(ReceiverStream::new(rx)).await?.into_inner();
        let state = match next_reply(&mut inbound).await? {
            referee_reply::Kind::Attached(a) => state_from_proto(
                a.state
                    .as_ref()
                    .ok_or_else(|| ClientError::Protocol("Attached without state".into()))?,
            )
            .map_err(broken)?,
            other => {
                return Err(ClientError::Protocol(format!(
                    "expected Attached, got {other:?}"
                )))
            }
        };
        let server_last = state.last_client_seq;
        if self.last_acked == u64::MAX {
            self.last_acked = server_last;
        }
        let mut recovered = None;
        // The referee re-sends what we missed, oldest first.
        while self.last_acked < server_last {
            match next_reply(&mut inbound).await? {
                referee_reply::Kind::Accepted(a) if a.replayed => {
                    self.last_acked = a.client_seq;
                    if a.client_seq == in_flight {
                        recovered = Some(a);
                    }
                }
                other => {
                    return Err(ClientError::Protocol(format!(
                        "expected a replayed ack, got {other:?}"
                    )))
                }
            }
        }
        if self.conn.is_none() && self.state.is_some() {
            self.reconnects += 1;
        }
        self.state = Some(state);
        self.conn = Some(Conn { tx, rx: inbound });
        Ok(recovered)
    }
}

/// A reply that does not describe a valid engine value.
fn broken(e: ConvertError) -> ClientError {
    ClientError::Protocol(e.to_string())
}

async fn next_reply(
    rx: &mut Streaming<v1::RefereeReply>,
) -> Result<referee_reply::Kind, ClientError> {
    match rx.message().await? {
        Some(v1::RefereeReply { kind: Some(k) }) => Ok(k),
        Some(_) => Err(ClientError::Protocol("empty reply".into())),
        None => Err(ClientError::Unreachable(
            "the referee ended the stream".into(),
        )),
    }
}
