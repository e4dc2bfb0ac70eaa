//! HTTP routes: the raw WebSocket feed (FEED.md), a small JSON API, the
//! GraphQL endpoint and the embedded screens.

use std::sync::Arc;
use std::time::Instant;

use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use bytes::Bytes;
use serde_json::json;

use crate::app::{authorize, game_audience, ApiError, FeedQuery};
pub use crate::app::{AppState, ServerConfig};
use crate::auth::ForGame;
use crate::closing::{Closing, GOING_AWAY};
use crate::ws::frame::{self as ws_frame};
use crate::ws::{conn::Pumped, Conn, Decoder, Incoming, Upgrade};

/// The gateway's whole router. `/ws/table/…`, `/api/table/…` and
/// `/api/tables` are the old names of the game routes, kept for the OBS
/// sources and clients that still use them (FEED.md).
pub fn router(state: AppState) -> Router {
    let graphql = crate::graphql::routes(state.clone());
    let standings = crate::standings::routes(state.clone());
    Router::new()
        .route("/ws/game/{game_id}", get(ws_game))
        .route("/ws/table/{game_id}", get(ws_game))
        .route("/ws/hall", get(ws_hall))
        .route("/api/games", get(api_games))
        .route("/api/tables", get(api_tables))
        .route("/api/clock", get(api_clock))
        .route("/api/game/{game_id}", get(api_game))
        .route("/api/table/{game_id}", get(api_game))
        .route("/healthz", get(|| async { "ok" }))
        .merge(crate::assets::routes())
        .merge(crate::console::routes())
        .with_state(state)
        .merge(graphql)
        .merge(standings)
}

/// The largest message a client may send on the raw feed (it only sends
/// pongs and the odd control message); more is closed with 1009.
const MAX_CLIENT_MESSAGE: usize = 64 * 1024;

async fn ws_game(
    State(state): State<AppState>,
    Path(game_id): Path<String>,
    Query(q): Query<FeedQuery>,
    headers: HeaderMap,
    ws: Upgrade,
) -> Result<Response, ApiError> {
    let access = authorize(&state, q.token.as_deref(), &headers)?;
    let (game_id, audience) = game_audience(&state.hub, &access, &game_id)?;
    let hub = state.hub.clone();
    let config = state.config.clone();
    let closing = state.closing.clone();
    let from = q.from;
    Ok(ws.on_upgrade(None, move |socket, early| {
        state.closing.track(async move {
            let conn = Arc::new(Conn::new(socket));
            if hub.subscribe_conn(&game_id, audience, from, &conn).is_err() {
                return;
            }
            let rejoin = |c: &Arc<Conn>| hub.subscribe_conn(&game_id, audience, None, c).is_ok();
            run(conn, early, rejoin, config, closing).await;
        })
    }))
}

async fn ws_hall(
    State(state): State<AppState>,
    Query(q): Query<FeedQuery>,
    headers: HeaderMap,
    ws: Upgrade,
) -> Result<Response, ApiError> {
    let access = authorize(&state, q.token.as_deref(), &headers)?;
    let (audience, games) = access.hall();
    let hub = state.hub.clone();
    let config = state.config.clone();
    let closing = state.closing.clone();
    Ok(ws.on_upgrade(None, move |socket, early| {
        state.closing.track(async move {
            let conn = Arc::new(Conn::new(socket));
            hub.subscribe_hall_conn(audience, games.clone(), &conn);
            let rejoin = |c: &Arc<Conn>| {
                hub.subscribe_hall_conn(audience, games.clone(), c);
                true
            };
            run(conn, early, rejoin, config, closing).await;
        })
    }))
}

/// Keeps a feed's connection: flushes what the fan-out could not write at
/// once, answers the client's pings and close, pings it, and catches it up
/// with a snapshot when it lagged. The fan-out itself writes the messages.
async fn run<F>(conn: Arc<Conn>, early: Bytes, rejoin: F, config: ServerConfig, closing: Closing)
where
    F: Fn(&Arc<Conn>) -> bool,
{
    let mut decoder = Decoder::new(MAX_CLIENT_MESSAGE);
    let mut incoming = Vec::new();
    // The bytes hyper read past the request.
    if let Err(v) = decoder.feed(&early, &mut incoming) {
        conn.finish(ws_frame::close(v.code, v.why), config.send_timeout)
            .await;
        return;
    }
    drop(early);
    let mut ping = tokio::time::interval(config.ping_interval);
    ping.tick().await;
    let mut last_seen = Instant::now();
    // When the backlog last moved (or was last empty).
    let mut last_written = Instant::now();
    let mut cutbacks = 0;
    loop {
        for m in incoming.drain(..) {
            last_seen = Instant::now();
            match m {
                Incoming::Ping(p) => {
                    conn.send(&ws_frame::pong(&p), usize::MAX);
                }
                Incoming::Close(code) => {
                    let code = code.map_or(1000, |(c, _)| c);
                    conn.finish(ws_frame::close(code, ""), config.send_timeout)
                        .await;
                    return;
                }
                _ => {}
            }
        }
        let status = conn.status();
        if status.closed {
            return;
        }
        if status.ended {
            conn.finish(
                ws_frame::close(GOING_AWAY, "server closing"),
                config.send_timeout,
            )
            .await;
            return;
        }
        if status.lagged {
            cutbacks += 1;
            if cutbacks > config.max_cutbacks || !rejoin(&conn) {
                conn.finish(ws_frame::close(1008, "too slow"), config.send_timeout)
                    .await;
                return;
            }
            tracing::debug!(cutbacks, "slow client cut back to a snapshot");
            continue;
        }
        if !status.backlog {
            last_written = Instant::now();
        }
        tokio::select! {
            _ = closing.started() => {
                conn.finish(ws_frame::close(GOING_AWAY, "server shutting down"), config.send_timeout)
                    .await;
                return;
            }
            _ = conn.changed() => {}
            p = conn.pump(status.backlog, &mut decoder, &mut incoming, config.send_timeout) => match p {
                Pumped::Over => return,
                Pumped::Wrote => last_written = Instant::now(),
                Pumped::Read => {}
            },
            _ = ping.tick() => {
                if status.backlog && last_written.elapsed() > config.send_timeout {
                    // Not reading at all: nothing more can be sent to it.
                    conn.close();
                    return;
                }
                if last_seen.elapsed() > config.idle_timeout {
                    conn.finish(ws_frame::close(1000, "idle"), config.send_timeout)
                        .await;
                    return;
                }
                conn.send(&ws_frame::ping(), usize::MAX);
            }
        }
    }
}

/// The gateway's wall clock, for screens to count timers against the
/// server's time rather than the viewer's.
async fn api_clock() -> Response {
    let server_ms = crate::hub::unix_ms();
    (
        [(header::CACHE_CONTROL, "no-store")],
        Json(json!({ "server_ms": server_ms })),
    )
        .into_response()
}

async fn api_games(State(state): State<AppState>) -> Json<serde_json::Value> {
    Json(json!({"games": state.hub.games()}))
}

/// The old `/api/tables`: the same list under its old key.
async fn api_tables(State(state): State<AppState>) -> Json<serde_json::Value> {
    Json(json!({"tables": state.hub.games()}))
}

async fn api_game(
    State(state): State<AppState>,
    Path(game_id): Path<String>,
    Query(q): Query<FeedQuery>,
    headers: HeaderMap,
) -> Result<Json<serde_json::Value>, ApiError> {
    let access = authorize(&state, q.token.as_deref(), &headers)?;
    let (game_id, audience) = game_audience(&state.hub, &access, &game_id)?;
    let s = state.hub.state(&game_id, audience)?;
    Ok(Json(
        json!({"info": s.info, "seq": s.seq, "over": s.over, "view": s.view}),
    ))
}
