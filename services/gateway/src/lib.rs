//! The gateway: serves live games from the referee's event log to hall
//! screens, OBS overlays, spectators and judges, over a raw WebSocket feed
//! (FEED.md) and GraphQL, with the screens embedded in the binary.
//!
//! What each audience may see is decided by the rules engine's views; the
//! gateway adds the broadcast delay and the fan-out (see [`hub`]).

pub mod app;
pub mod assets;
pub mod auth;
pub mod board;
pub mod canonical;
pub mod closing;
pub mod console;
pub mod demo;
pub mod graphql;
pub mod graphql_types;
pub mod hub;
pub mod limits;
pub mod messages;
pub mod metrics;
pub mod office;
pub mod patch;
pub mod ruling;
pub mod server;
pub mod shared;
pub mod standings;
pub mod table_board;
pub mod ws;

pub use app::{AppState, ConsoleConfig, ServerConfig};
pub use auth::{AuthError, Caller, ForGame, Games, Tokens};
pub use hub::{GameInfo, GameState, Hub, HubConfig, HubError, Subscription};
pub use server::router;

use std::sync::Arc;

/// Serves `state` on `listener` until `shutdown` resolves.
///
/// HTTP/1 with upgrades, served by hyper on the plain `TcpStream`, so the
/// feeds' upgraded sockets can be taken back as `TcpStream`s and written
/// to straight from the fan-out ([`ws`]).
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: AppState,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    use hyper_util::rt::TokioIo;
    use hyper_util::service::TowerToHyperService;

    let closing = state.closing.clone();
    let header_timeout = state.config.header_timeout;
    let body_timeout = state.config.body_timeout;
    let sockets = state.sockets.clone();
    let app = router(state);
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let http = tokio_util::task::TaskTracker::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (tcp, peer) = tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of descriptors or the like: wait instead of spinning.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        // Small frames to many clients: Nagle would hold each one back.
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::warn!(error = %e, "could not set TCP_NODELAY");
        }
        let Some(lease) = sockets.admit(peer.ip()) else {
            http.spawn(limits::refuse(tcp, header_timeout));
            continue;
        };
        // Every request carries the lease (an upgraded socket keeps it) and
        // reads its body within one deadline.
        let service = TowerToHyperService::new(tower::ServiceExt::map_request(
            app.clone(),
            move |request: hyper::Request<hyper::body::Incoming>| {
                let mut request = limits::body_deadline(request, body_timeout);
                request.extensions_mut().insert(lease.clone());
                request
            },
        ));
        let mut stopped = stopped.clone();
        http.spawn(async move {
            // hyper keeps no header timeout without a timer: a client that
            // never finished a request would hold its connection forever.
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(header_timeout)
                .serve_connection(TokioIo::new(tcp), service)
                .with_upgrades();
            let mut conn = std::pin::pin!(conn);
            tokio::select! {
                r = conn.as_mut() => {
                    if let Err(e) = r {
                        tracing::trace!(error = %e, "connection ended");
                    }
                    return;
                }
                _ = stopped.wait_for(|s| *s) => conn.as_mut().graceful_shutdown(),
            }
            let _ = conn.await;
        });
    }
    drop(listener);
    // Upgraded sockets outlive the HTTP connections: close them ourselves,
    // with 1001.
    closing.close_all(SHUTDOWN_GRACE).await;
    let _ = stop.send(true);
    http.close();
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, http.wait()).await;
    Ok(())
}

/// How long shutdown waits for WebSocket close frames to go out.
const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// Builds the shared state from a hub and tokens with default tuning.
pub fn app_state(hub: Hub, tokens: Tokens, config: ServerConfig) -> AppState {
    AppState {
        hub,
        tokens: Arc::new(tokens),
        keepalive: ws::Keepalive::new(config.keepalive()),
        sockets: limits::Sockets::new(config.max_connections_per_address, config.send_budget),
        config,
        closing: closing::Closing::default(),
        standings: board::Board::default(),
        console: ConsoleConfig::default(),
        pages: app::PagesConfig::default(),
        presence: table_board::Presence::default(),
    }
}
