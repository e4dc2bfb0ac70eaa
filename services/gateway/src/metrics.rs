//! Prometheus metrics, kept by hand like the referee's and the scoring
//! service's, on a listener of their own (`--metrics-listen`) so the
//! public port that spectators reach does not expose them. Everything is
//! read at scrape time from what the hub, the standings board and the
//! connection tracker already keep: nothing is added to the fan-out's path.

use std::fmt::Write;
use std::sync::atomic::Ordering;

use axum::routing::get;
use axum::Router;
use mafia_event_log::{EventLog, FollowerLag};
use mafia_rules::Audience;

use crate::app::AppState;

/// The Prometheus text exposition format.
pub async fn render(state: &AppState) -> String {
    let hub = &state.hub;
    let stats = hub.stats();
    let mut s = String::with_capacity(2048);
    let _ = writeln!(
        s,
        "# HELP mafia_gateway_subscribers Live subscriber queues (raw feed and GraphQL), by route and audience.\n\
         # TYPE mafia_gateway_subscribers gauge"
    );
    for (audience, games, hall) in hub.subscribers() {
        let a = match audience {
            Audience::Public => "public",
            Audience::Broadcast => "broadcast",
            Audience::Judge => "judge",
        };
        let _ = writeln!(
            s,
            "mafia_gateway_subscribers{{route=\"game\",audience=\"{a}\"}} {games}"
        );
        let _ = writeln!(
            s,
            "mafia_gateway_subscribers{{route=\"hall\",audience=\"{a}\"}} {hall}"
        );
    }
    let _ = writeln!(
        s,
        "# HELP mafia_gateway_websockets Open WebSocket connections (raw feed, hall, GraphQL, standings).\n\
         # TYPE mafia_gateway_websockets gauge\nmafia_gateway_websockets {}",
        state.closing.open()
    );
    let _ = writeln!(
        s,
        "# HELP mafia_gateway_games Games the hub follows.\n\
         # TYPE mafia_gateway_games gauge\nmafia_gateway_games {}",
        hub.games().len()
    );
    let counters = [
        (
            "mafia_gateway_events_total",
            "Events folded from the log.",
            &stats.events,
        ),
        (
            "mafia_gateway_deliveries_total",
            "Messages queued to subscribers.",
            &stats.deliveries,
        ),
        (
            "mafia_gateway_cutbacks_total",
            "Subscribers cut back to a fresh snapshot because their queue was full.",
            &stats.lagged,
        ),
        (
            "mafia_gateway_graphql_group_executions_total",
            "Shared GraphQL selections executed (once per event per group).",
            &stats.graphql_group_executions,
        ),
        (
            "mafia_gateway_graphql_shared_deliveries_total",
            "Shared GraphQL payloads queued to subscribers.",
            &stats.graphql_shared_deliveries,
        ),
    ];
    for (name, help, value) in counters {
        let _ = writeln!(
            s,
            "# HELP {name} {help}\n# TYPE {name} counter\n{name} {}",
            value.load(Ordering::Relaxed)
        );
    }
    let sockets = &state.sockets;
    let _ = writeln!(
        s,
        "# HELP mafia_gateway_websocket_queued_bytes Bytes waiting to be written to WebSocket clients (with a per-frame overhead).\n\
         # TYPE mafia_gateway_websocket_queued_bytes gauge\nmafia_gateway_websocket_queued_bytes {}\n\
         # HELP mafia_gateway_websocket_over_budget_total WebSockets closed with 1008 for going over their send budget.\n\
         # TYPE mafia_gateway_websocket_over_budget_total counter\nmafia_gateway_websocket_over_budget_total {}\n\
         # HELP mafia_gateway_refused_connections_total Connections answered 503 for the per-address cap.\n\
         # TYPE mafia_gateway_refused_connections_total counter\nmafia_gateway_refused_connections_total {}",
        sockets.queued_bytes(),
        sockets.over_budget(),
        sockets.refused()
    );
    let _ = writeln!(
        s,
        "# HELP mafia_gateway_follower_lag_seconds How far each follower of the log is behind the feed's head.\n\
         # TYPE mafia_gateway_follower_lag_seconds gauge"
    );
    let (hub_lag, log) = hub.lag();
    lag_line(&mut s, "hub", hub_lag, log).await;
    lag_line(&mut s, "standings", &state.standings.lag, log).await;
    s
}

/// One follower's lag; left out (and logged) while the store cannot say
/// where its head is, rather than reported as 0.
async fn lag_line(s: &mut String, follower: &str, lag: &FollowerLag, log: &dyn EventLog) {
    match lag.seconds(log).await {
        Ok(secs) => {
            let _ = writeln!(
                s,
                "mafia_gateway_follower_lag_seconds{{follower=\"{follower}\"}} {secs}"
            );
        }
        Err(e) => tracing::warn!(follower, error = %e, "follower lag unknown"),
    }
}

/// `GET /metrics`.
pub fn routes(state: AppState) -> Router {
    Router::new()
        .route(
            "/metrics",
            get(
                |axum::extract::State(state): axum::extract::State<AppState>| async move {
                    (
                        [("content-type", "text/plain; version=0.0.4")],
                        render(&state).await,
                    )
                },
            ),
        )
        .with_state(state)
}

/// Serves `/metrics` on `listener` until `shutdown` resolves.
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: AppState,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, routes(state))
        .with_graceful_shutdown(shutdown)
        .await
}
