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
pub mod closing;
pub mod console;
pub mod demo;
pub mod graphql;
pub mod graphql_types;
pub mod hub;
pub mod messages;
pub mod metrics;
pub mod patch;
pub mod server;
pub mod shared;
pub mod standings;

pub use app::{AppState, ConsoleConfig, ServerConfig};
pub use auth::{AuthError, Caller, ForGame, Games, Tokens};
pub use hub::{GameInfo, GameState, Hub, HubConfig, HubError, Subscription};
pub use server::router;

use std::net::SocketAddr;
use std::sync::Arc;

/// Serves `state` on `listener` until `shutdown` resolves.
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: AppState,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let closing = state.closing.clone();
    let app = router(state);
    // Small frames to many clients: Nagle would hold each one back.
    let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::warn!(error = %e, "could not set TCP_NODELAY");
        }
    });
    let served = axum::serve(
        listener,
        app.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown({
        let closing = closing.clone();
        async move {
            shutdown.await;
            // Upgraded sockets outlive axum's graceful shutdown: close them
            // ourselves, with 1001, before the listener goes away.
            closing.close_all(SHUTDOWN_GRACE).await;
        }
    })
    .await;
    closing.close_all(SHUTDOWN_GRACE).await;
    served
}

/// How long shutdown waits for WebSocket close frames to go out.
const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// Builds the shared state from a hub and tokens with default tuning.
pub fn app_state(hub: Hub, tokens: Tokens, config: ServerConfig) -> AppState {
    AppState {
        hub,
        tokens: Arc::new(tokens),
        config,
        closing: closing::Closing::default(),
        standings: board::Board::default(),
        console: ConsoleConfig::default(),
    }
}
