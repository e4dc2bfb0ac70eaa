//! Starting and stopping the service on a listener (port 0 in tests).

use crate::follower::Progress;
use crate::service::ScoringService;
use crate::store::Store;
use mafia_access::Tokens;
use mafia_event_log::EventLog;
use mafia_proto::serve::{serve, Connections};
use mafia_proto::v1::scoring_server::ScoringServer;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tonic::service::Routes;

pub struct Running {
    pub addr: SocketAddr,
    pub store: Arc<Store>,
    /// The credentials issued at runtime (what the three credential calls
    /// use).
    pub credentials: Arc<crate::credentials::Credentials>,
    stop: Option<oneshot::Sender<()>>,
    stop_follower: Option<oneshot::Sender<()>>,
    task: JoinHandle<()>,
    follower: JoinHandle<()>,
    progress: tokio::sync::watch::Receiver<Progress>,
    metrics_stop: tokio::sync::watch::Sender<bool>,
    background: Vec<JoinHandle<()>>,
}

/// The service without a referee link (OpenRound refused).
pub async fn start(
    listener: tokio::net::TcpListener,
    log: Arc<dyn EventLog>,
    tokens: Tokens,
) -> std::io::Result<Running> {
    start_with(listener, log, tokens, None).await
}

pub async fn start_with(
    listener: tokio::net::TcpListener,
    log: Arc<dyn EventLog>,
    tokens: Tokens,
    referee: Option<crate::RefereeLink>,
) -> std::io::Result<Running> {
    let opts = ServeOptions {
        referee,
        ..ServeOptions::default()
    };
    start_with_options(listener, log, tokens, opts).await
}

/// What the service needs beyond its log and tokens.
#[derive(Clone, Debug, Default)]
pub struct ServeOptions {
    /// Where OpenRound opens games; `None`: OpenRound is refused.
    pub referee: Option<crate::RefereeLink>,
    /// Origins whose pages may call the service over gRPC-web (the judge
    /// console sends post-game inputs), e.g. `http://10.0.0.2:8080`, or `*`.
    pub web_origins: Vec<String>,
    /// The connections' HTTP/2 keepalive and header timeout (tests shorten
    /// them).
    pub connections: Connections,
}

pub async fn start_with_options(
    listener: tokio::net::TcpListener,
    log: Arc<dyn EventLog>,
    tokens: Tokens,
    opts: ServeOptions,
) -> std::io::Result<Running> {
    let ServeOptions {
        referee,
        web_origins,
        connections,
    } = opts;
    let cors = mafia_proto::web::cors(&web_origins)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
    let addr = listener.local_addr()?;
    let store = Arc::new(Store::new(log.clone()));
    let credentials = Arc::new(crate::credentials::Credentials::new(log.clone()));
    let metrics_stop = tokio::sync::watch::channel(false).0;
    // The credentials issued at runtime, honoured as this and every other
    // service's followers read them.
    let mut stop_access = metrics_stop.subscribe();
    let access = tokio::spawn(mafia_access::follow::run(tokens.clone(), log, async move {
        let _ = stop_access.wait_for(|s| *s).await;
    }));
    let svc = ScoringService {
        store: store.clone(),
        tokens,
        referee,
        credentials: credentials.clone(),
    };
    let (stop, stopped) = oneshot::channel::<()>();
    // The standard gRPC health service: what load balancers and Kubernetes'
    // grpc probes ask (deploy/).
    let (health, health_service) = tonic_health::server::health_reporter();
    health.set_serving::<ScoringServer<ScoringService>>().await;
    let routes = Routes::new(health_service).add_service(ScoringServer::new(svc));
    let task = tokio::spawn(serve(listener, routes, cors, connections, None, async {
        let _ = stopped.await;
    }));
    let (stop_follower, follower_stopped) = oneshot::channel::<()>();
    let (progress_tx, progress) = tokio::sync::watch::channel(Progress::default());
    let follower = tokio::spawn(crate::follower::run(store.clone(), progress_tx, async {
        let _ = follower_stopped.await;
    }));
    tracing::info!(%addr, "scoring service listening");
    Ok(Running {
        addr,
        store,
        credentials,
        stop: Some(stop),
        stop_follower: Some(stop_follower),
        task,
        follower,
        progress,
        metrics_stop,
        background: vec![access],
    })
}

impl Running {
    /// Serves Prometheus `/metrics` on `listener` until shutdown.
    pub fn serve_metrics(&mut self, listener: tokio::net::TcpListener) {
        let store = self.store.clone();
        let mut stop = self.metrics_stop.subscribe();
        let app = axum::Router::new().route(
            "/metrics",
            axum::routing::get(move || {
                let store = store.clone();
                async move {
                    (
                        [("content-type", "text/plain; version=0.0.4")],
                        store.metrics.render_with_lag(&**store.log()).await,
                    )
                }
            }),
        );
        self.background.push(tokio::spawn(async move {
            let r = axum::serve(listener, app)
                .with_graceful_shutdown(async move {
                    let _ = stop.wait_for(|s| *s).await;
                })
                .await;
            if let Err(e) = r {
                tracing::warn!(error = %e, "metrics server failed");
            }
        }));
    }

    /// Waits until the game follower's progress satisfies `done`.
    pub async fn follower_reached(&self, done: impl FnMut(&Progress) -> bool) -> Progress {
        *self
            .progress
            .clone()
            .wait_for(done)
            .await
            .expect("the follower runs until shutdown")
    }

    /// Stops accepting calls and waits for the ones in flight.
    pub async fn shutdown(mut self) {
        if let Some(s) = self.stop_follower.take() {
            let _ = s.send(());
        }
        let _ = (&mut self.follower).await;
        let _ = self.metrics_stop.send(true);
        for t in self.background.drain(..) {
            let _ = t.await;
        }
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Err(e) = (&mut self.task).await {
            tracing::warn!(error = %e, "scoring server task failed");
        }
    }
}
