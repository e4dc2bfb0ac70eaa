//! Connections to one of several referees, with the bearer token attached.

use crate::ClientError;
use mafia_proto::convert::{
    audience_to_proto, event_from_proto, request_from_header, state_from_proto,
};
use mafia_proto::v1::{self, referee_client::RefereeClient};
use mafia_record::{GameId, GameState, Header, LoggedEvent};
use mafia_rules::Audience;
use std::time::Duration;
use tonic::metadata::MetadataValue;
use tonic::service::interceptor::InterceptedService;
use tonic::service::Interceptor;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint};

/// Where the referees are and how to talk to them.
#[derive(Debug, Clone)]
pub struct ClientConfig {
    /// Referee URLs (`http://127.0.0.1:50051`, or `https://` with `tls_ca`);
    /// tried in turn when one fails.
    pub referees: Vec<String>,
    pub token: String,
    /// PEM CA certificate to trust for `https://` referees.
    pub tls_ca: Option<Vec<u8>>,
    /// The name the referee's certificate must carry, when the URL is an IP.
    pub tls_domain: Option<String>,
    /// How long to keep reconnecting before giving up on a command.
    pub retry_budget: Duration,
    pub connect_timeout: Duration,
    /// Ask the referee for acks without the state (`Attach.omit_state`):
    /// `Reply::Accepted` then carries events only and
    /// [`JudgeSession::state`](crate::JudgeSession::state) is the state as
    /// of the last attach. For load generators that never read it.
    pub omit_state: bool,
    /// Where every ack received is also written (`--acks FILE`).
    pub ack_log: Option<crate::AckLog>,
}

impl ClientConfig {
    pub fn new(referees: Vec<String>, token: impl Into<String>) -> Self {
        ClientConfig {
            referees,
            token: token.into(),
            tls_ca: None,
            tls_domain: None,
            retry_budget: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(2),
            omit_state: false,
            ack_log: None,
        }
    }
}

/// A game the referee opened (or already had).
#[derive(Debug, Clone)]
pub struct Opened {
    pub game_id: GameId,
    /// Newly created, rather than found again.
    pub created: bool,
    /// The judge's state.
    pub state: GameState,
}

/// A game as stored by the referee, for one audience.
#[derive(Debug, Clone)]
pub struct StoredGame {
    pub header: Header,
    pub state: GameState,
    pub events: Vec<LoggedEvent>,
}

#[derive(Clone)]
pub struct Bearer(MetadataValue<tonic::metadata::Ascii>);

impl Interceptor for Bearer {
    fn call(&mut self, mut req: tonic::Request<()>) -> Result<tonic::Request<()>, tonic::Status> {
        req.metadata_mut().insert("authorization", self.0.clone());
        Ok(req)
    }
}

pub type Client = RefereeClient<InterceptedService<Channel, Bearer>>;

/// A handle on the referee pool.
#[derive(Clone)]
pub struct Referee {
    pub(crate) cfg: ClientConfig,
    bearer: Bearer,
    /// Index of the referee in use; moves on only when it fails, so a
    /// session stays with the referee that owns its game.
    current: usize,
    /// The connection to the current referee, made on first use and shared
    /// by every call (and every clone made after it) until a failure
    /// rotates: one TCP connection and HTTP/2 handshake, not one per call.
    channel: Option<Channel>,
}

impl Referee {
    pub fn new(cfg: ClientConfig) -> Result<Self, ClientError> {
        if cfg.referees.is_empty() {
            return Err(ClientError::BadUrl(String::new()));
        }
        let bearer = Bearer(
            format!("Bearer {}", cfg.token)
                .parse()
                .map_err(|_| ClientError::BadUrl("token is not valid metadata".into()))?,
        );
        Ok(Referee {
            cfg,
            bearer,
            current: 0,
            channel: None,
        })
    }

    /// After a failure: use the next referee in the list.
    pub fn rotate(&mut self) {
        self.current = (self.current + 1) % self.cfg.referees.len();
        self.channel = None;
    }

    /// A client of the current referee, on the connection already made to
    /// it if there is one.
    pub async fn connect(&mut self) -> Result<Client, ClientError> {
        let channel = match &self.channel {
            Some(c) => c.clone(),
            None => {
                let c = self.open_channel().await?;
                self.channel = Some(c.clone());
                c
            }
        };
        Ok(
            RefereeClient::with_interceptor(channel, self.bearer.clone())
                .max_decoding_message_size(16 * 1024 * 1024),
        )
    }

    async fn open_channel(&self) -> Result<Channel, ClientError> {
        let url = self.cfg.referees[self.current % self.cfg.referees.len()].clone();
        let mut ep = Endpoint::from_shared(url.clone())
            .map_err(|_| ClientError::BadUrl(url.clone()))?
            .connect_timeout(self.cfg.connect_timeout)
            .tcp_nodelay(true);
        if let Some(ca) = &self.cfg.tls_ca {
            let mut tls = ClientTlsConfig::new().ca_certificate(Certificate::from_pem(ca));
            if let Some(d) = &self.cfg.tls_domain {
                tls = tls.domain_name(d.clone());
            }
            ep = ep
                .tls_config(tls)
                .map_err(|e| ClientError::Unreachable(e.to_string()))?;
        }
        ep.connect()
            .await
            .map_err(|e| ClientError::Unreachable(format!("{url}: {e}")))
    }

    /// Runs `call` against the referees until it succeeds, fails for good, or
    /// the retry budget is spent. Only "try again" statuses are retried.
    pub async fn with_retry<T, F, Fut>(&mut self, mut call: F) -> Result<T, ClientError>
    where
        F: FnMut(Client) -> Fut,
        Fut: std::future::Future<Output = Result<T, tonic::Status>>,
    {
        let deadline = tokio::time::Instant::now() + self.cfg.retry_budget;
        let mut backoff = Backoff::new();
        loop {
            let err = match self.connect().await {
                Ok(c) => match call(c).await {
                    Ok(v) => return Ok(v),
                    Err(s) if retryable(&s) => s.to_string(),
                    Err(s) => return Err(s.into()),
                },
                Err(e) => e.to_string(),
            };
            if tokio::time::Instant::now() >= deadline {
                return Err(ClientError::Unreachable(err));
            }
            tracing::debug!(error = %err, "referee call failed; retrying");
            self.rotate();
            backoff.wait().await;
        }
    }

    /// Opens (or finds again: OpenGame is idempotent) the game `header`
    /// describes, retrying as [`Referee::with_retry`] does. `at` stamps the
    /// deal (ms since the epoch; 0 = the referee's clock).
    pub async fn open_game(&mut self, header: &Header, at: i64) -> Result<Opened, ClientError> {
        let req = request_from_header(header, at);
        let r = self
            .with_retry(|mut c| {
                let req = req.clone();
                async move { c.open_game(req).await.map(|r| r.into_inner()) }
            })
            .await?;
        let state = r
            .state
            .as_ref()
            .ok_or_else(|| ClientError::Protocol("OpenGame without state".into()))?;
        Ok(Opened {
            game_id: r.game_id.parse().map_err(|e| {
                ClientError::Protocol(format!("OpenGame returned a bad game id: {e}"))
            })?,
            created: r.created,
            state: state_from_proto(state).map_err(|e| ClientError::Protocol(e.to_string()))?,
        })
    }

    /// A game's header, state and events as `audience` sees them, retrying
    /// as [`Referee::with_retry`] does.
    pub async fn game(
        &mut self,
        game_id: &GameId,
        audience: Audience,
    ) -> Result<StoredGame, ClientError> {
        let req = v1::GetGameRequest {
            game_id: game_id.to_string(),
            audience: audience_to_proto(audience) as i32,
        };
        let r = self
            .with_retry(|mut c| {
                let req = req.clone();
                async move { c.get_game(req).await.map(|r| r.into_inner()) }
            })
            .await?;
        let broken = |e: String| ClientError::Protocol(format!("GetGame: {e}"));
        let state = r.state.as_ref().ok_or_else(|| broken("no state".into()))?;
        Ok(StoredGame {
            header: serde_json::from_str(&r.header_json).map_err(|e| broken(e.to_string()))?,
            state: state_from_proto(state).map_err(|e| broken(e.to_string()))?,
            events: r
                .events
                .iter()
                .map(event_from_proto)
                .collect::<Result<_, _>>()
                .map_err(|e| broken(e.to_string()))?,
        })
    }

    pub fn config(&self) -> &ClientConfig {
        &self.cfg
    }
}

/// Statuses after which the same call may succeed elsewhere or later.
pub fn retryable(s: &tonic::Status) -> bool {
    use tonic::Code::*;
    matches!(
        s.code(),
        Unavailable | Unknown | Cancelled | Aborted | DeadlineExceeded | Internal
    )
}

pub(crate) struct Backoff(Duration);

impl Backoff {
    pub(crate) fn new() -> Self {
        Backoff(Duration::from_millis(50))
    }
    pub(crate) async fn wait(&mut self) {
        tokio::time::sleep(self.0).await;
        self.0 = (self.0 * 2).min(Duration::from_millis(500));
    }
}
