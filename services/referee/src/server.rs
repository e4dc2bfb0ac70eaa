//! Starting and stopping a referee: the gRPC server (with health and
//! reflection), the lease renewer, the feed fan-out and the metrics endpoint.

use crate::auth::Tokens;
use crate::games::Games;
use crate::metrics::Metrics;
use crate::service::{RefereeService, Shared};
use mafia_event_log::{EventLog, Fanout, FanoutConfig};
use mafia_proto::v1::referee_server::RefereeServer;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tonic::service::Routes;

/// How a referee runs. `Default` suits tests: no tokens, no TLS, no metrics.
#[derive(Debug, Clone)]
pub struct RefereeOptions {
    /// This referee's name in leases; unique per process.
    pub owner: String,
    /// Lease time to live: how long a crashed referee blocks its games.
    pub lease_ttl: Duration,
    /// Games without commands for this long are unloaded (lease released).
    pub idle_unload: Duration,
    /// Who may call (`mafia-access`); none = every call UNAUTHENTICATED.
    pub tokens: Tokens,
    /// Largest accepted gRPC message, in bytes.
    pub max_message_bytes: usize,
    /// Largest accepted `command_json`, in bytes.
    pub max_command_bytes: usize,
    /// PEM certificate chain and private key, to serve over TLS.
    pub tls: Option<(Vec<u8>, Vec<u8>)>,
    /// Origins whose pages may call the referee over gRPC-web (the judge
    /// console on the gateway, e.g. `http://127.0.0.1:8080`); `*` for any.
    /// gRPC-web itself is always served; without an origin here a browser
    /// refuses the cross-origin call.
    pub web_origins: Vec<String>,
    /// The connections' HTTP/2 keepalive and header timeout (TLS
    /// handshake, first request head, each next HTTP/1 head).
    pub connections: mafia_proto::serve::Connections,
}

impl Default for RefereeOptions {
    fn default() -> Self {
        RefereeOptions {
            owner: default_owner(),
            lease_ttl: Duration::from_secs(3),
            idle_unload: Duration::from_secs(600),
            tokens: Tokens::default(),
            max_message_bytes: 64 * 1024,
            max_command_bytes: 4 * 1024,
            tls: None,
            web_origins: Vec::new(),
            connections: mafia_proto::serve::Connections::default(),
        }
    }
}

/// `referee-{pid}-{nanos}`: distinct for every process start.
pub fn default_owner() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!("referee-{}-{nanos}", std::process::id())
}

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("tls: {0}")]
    Tls(#[from] mafia_proto::serve::TlsError),
    #[error("reflection: {0}")]
    Reflection(#[from] tonic_reflection::server::Error),
    #[error("io: {0}")]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    WebOrigin(#[from] mafia_proto::web::BadOrigin),
}

/// A running referee. Call [`RunningReferee::shutdown`] to stop it cleanly.
pub struct RunningReferee {
    pub addr: SocketAddr,
    pub metrics: Arc<Metrics>,
    shutdown: watch::Sender<bool>,
    server: JoinHandle<()>,
    background: Vec<JoinHandle<()>>,
    shared: Arc<Shared>,
    tasks_done: mpsc::Receiver<()>,
}

/// Serves the referee on `listener` over `log`.
pub async fn start(
    listener: TcpListener,
    log: Arc<dyn EventLog>,
    opts: RefereeOptions,
) -> Result<RunningReferee, ServeError> {
    let addr = listener.local_addr()?;
    let metrics = Arc::new(Metrics::default());
    let (shutdown_tx, shutdown_rx) = watch::channel(false);
    let (alive_tx, tasks_done) = mpsc::channel(1);
    // One feed for every WatchGame stream of this process, followed only
    // while someone watches.
    let hub = Fanout::new(log.clone(), FanoutConfig::default());
    let shared = Arc::new(Shared {
        games: Games::new(
            log.clone(),
            opts.owner.clone(),
            opts.lease_ttl,
            metrics.clone(),
        ),
        tokens: opts.tokens.clone(),
        hub: hub.clone(),
        metrics: metrics.clone(),
        shutdown: shutdown_rx.clone(),
        alive: alive_tx,
        max_command_bytes: opts.max_command_bytes,
    });
    if shared.tokens.is_empty() {
        tracing::warn!(
            "no tokens configured: every call is UNAUTHENTICATED until credentials are issued"
        );
    }

    let mut background = Vec::new();
    {
        let mut stop = shutdown_rx.clone();
        background.push(tokio::spawn(
            hub.clone()
                .run(async move { crate::stopped(&mut stop).await }),
        ));
    }
    {
        // Credentials issued and revoked at runtime, on the same fan-out.
        let (tokens, log, hub) = (opts.tokens.clone(), log.clone(), hub.clone());
        let mut stop = shutdown_rx.clone();
        background.push(tokio::spawn(async move {
            tokio::select! {
                _ = crate::stopped(&mut stop) => {}
                _ = mafia_access::follow::run_on(tokens, log, &hub) => {}
            }
        }));
    }
    {
        let shared = shared.clone();
        let mut stop = shutdown_rx.clone();
        let every = opts.lease_ttl / 3;
        let idle = opts.idle_unload;
        background.push(tokio::spawn(async move {
            loop {
                tokio::select! {
                    _ = crate::stopped(&mut stop) => return,
                    _ = tokio::time::sleep(every) => shared.games.renew_leases(idle).await,
                }
            }
        }));
    }

    let (health, health_service) = tonic_health::server::health_reporter();
    health.set_serving::<RefereeServer<RefereeService>>().await;
    // Both reflection versions: older grpcurl and tools only speak v1alpha.
    let reflection = || {
        tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(mafia_proto::v1::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
    };
    let reflection_v1 = reflection().build_v1()?;
    let reflection_v1alpha = reflection().build_v1alpha()?;
    let referee = RefereeServer::new(RefereeService {
        shared: shared.clone(),
    })
    .max_decoding_message_size(opts.max_message_bytes)
    .max_encoding_message_size(opts.max_message_bytes.max(1024 * 1024));

    let cors = mafia_proto::web::cors(&opts.web_origins)?;
    let tls = match &opts.tls {
        Some((cert, key)) => Some(mafia_proto::serve::Tls::from_pem(cert, key)?),
        None => None,
    };
    let connections = opts.connections;
    let routes = Routes::new(health_service)
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .add_service(referee);
    let mut stop = shutdown_rx.clone();
    let server = tokio::spawn(async move {
        let signal = async move {
            crate::stopped(&mut stop).await;
            health
                .set_not_serving::<RefereeServer<RefereeService>>()
                .await;
        };
        mafia_proto::serve::serve(listener, routes, cors, connections, tls, signal).await
    });
    tracing::info!(%addr, owner = %opts.owner, tls = opts.tls.is_some(), "referee listening");
    Ok(RunningReferee {
        addr,
        metrics,
        shutdown: shutdown_tx,
        server,
        background,
        shared,
        tasks_done,
    })
}

impl RunningReferee {
    /// Serves Prometheus text on `listener` (`GET /metrics`) until shutdown.
    pub fn serve_metrics(&mut self, listener: TcpListener) {
        let metrics = self.metrics.clone();
        let mut stop = self.shutdown.subscribe();
        let app = axum::Router::new().route(
            "/metrics",
            axum::routing::get(move || {
                let metrics = metrics.clone();
                async move {
                    (
                        [("content-type", "text/plain; version=0.0.4")],
                        metrics.render(),
                    )
                }
            }),
        );
        self.background.push(tokio::spawn(async move {
            let r = axum::serve(listener, app)
                .with_graceful_shutdown(async move {
                    crate::stopped(&mut stop).await;
                })
                .await;
            if let Err(e) = r {
                tracing::warn!(error = %e, "metrics server failed");
            }
        }));
    }

    /// Stops accepting, tells open streams to reconnect elsewhere (UNAVAILABLE),
    /// lets in-flight appends finish, releases every lease and waits for all
    /// tasks, so the event log's files and connections are free afterwards.
    pub async fn shutdown(self) {
        let RunningReferee {
            shutdown,
            server,
            background,
            shared,
            mut tasks_done,
            ..
        } = self;
        let _ = shutdown.send(true);
        if let Err(e) = server.await {
            tracing::warn!(error = %e, "server task failed");
        }
        for b in background {
            let _ = b.await;
        }
        shared.games.release_all().await;
        drop(shared);
        // Returns None once every stream task has dropped its sender.
        let _ = tasks_done.recv().await;
        tracing::info!("referee stopped");
    }
}
