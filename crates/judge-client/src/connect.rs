//! Connections to one of several referees, with the bearer token attached.

use crate::ClientError;
use mafia_proto::v1::referee_client::RefereeClient;
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
        }
    }
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
        })
    }

    /// After a failure: use the next referee in the list.
    pub fn rotate(&mut self) {
        self.current = (self.current + 1) % self.cfg.referees.len();
    }

    /// Connects to the current referee.
    pub async fn connect(&mut self) -> Result<Client, ClientError> {
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
        let channel = ep
            .connect()
            .await
            .map_err(|e| ClientError::Unreachable(format!("{url}: {e}")))?;
        Ok(
            RefereeClient::with_interceptor(channel, self.bearer.clone())
                .max_decoding_message_size(16 * 1024 * 1024),
        )
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

    /// Opens (or finds again: OpenGame is idempotent) the game `req`
    /// describes, retrying as [`Referee::with_retry`] does.
    pub async fn open_game(
        &mut self,
        req: mafia_proto::v1::OpenGameRequest,
    ) -> Result<mafia_proto::v1::OpenGameResponse, ClientError> {
        self.with_retry(|mut c| {
            let req = req.clone();
            async move { c.open_game(req).await.map(|r| r.into_inner()) }
        })
        .await
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
