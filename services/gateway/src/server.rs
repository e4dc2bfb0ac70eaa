//! HTTP routes: the raw WebSocket feed (FEED.md), a small JSON API, the
//! GraphQL endpoint and the embedded screens.

use std::time::Instant;

use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use bytes::Bytes;
use futures::{SinkExt, StreamExt};
use serde_json::json;

use crate::app::{authorize, game_audience, ApiError, FeedQuery};
pub use crate::app::{AppState, ServerConfig};
use crate::auth::ForGame;
use crate::closing::{frame, send_close, Closing, GOING_AWAY};
use crate::hub::{Ended, Subscription};

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

fn configure(ws: WebSocketUpgrade) -> WebSocketUpgrade {
    // Many idle connections: small buffers, eager writes, no huge frames
    // from clients (they only send pongs and the odd control message).
    ws.read_buffer_size(4 * 1024)
        .write_buffer_size(0)
        .max_write_buffer_size(1024 * 1024)
        .max_message_size(64 * 1024)
        .max_frame_size(64 * 1024)
}

async fn ws_game(
    State(state): State<AppState>,
    Path(game_id): Path<String>,
    Query(q): Query<FeedQuery>,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> Result<Response, ApiError> {
    let access = authorize(&state, q.token.as_deref(), &headers)?;
    let (game_id, audience) = game_audience(&state.hub, &access, &game_id)?;
    let sub = state.hub.subscribe(&game_id, audience, q.from)?;
    let hub = state.hub.clone();
    let config = state.config.clone();
    let closing = state.closing.clone();
    Ok(configure(ws).on_upgrade(move |socket| {
        state.closing.track(async move {
            let resub = move || hub.subscribe(&game_id, audience, None).ok();
            run(socket, sub, resub, config, closing).await;
        })
    }))
}

async fn ws_hall(
    State(state): State<AppState>,
    Query(q): Query<FeedQuery>,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> Result<Response, ApiError> {
    let access = authorize(&state, q.token.as_deref(), &headers)?;
    let (audience, games) = access.hall();
    let sub = state.hub.subscribe_hall(audience, games.clone());
    let hub = state.hub.clone();
    let config = state.config.clone();
    let closing = state.closing.clone();
    Ok(configure(ws).on_upgrade(move |socket| {
        state.closing.track(async move {
            let resub = move || Some(hub.subscribe_hall(audience, games.clone()));
            run(socket, sub, resub, config, closing).await;
        })
    }))
}

fn text(b: Bytes) -> Message {
    // The hub only encodes JSON, so this never fails; the check is a scan.
    Message::Text(Utf8Bytes::try_from(b).unwrap_or_else(|_| Utf8Bytes::from_static("{}")))
}

/// Pumps a subscription into a socket until either side ends.
async fn run<F>(
    socket: WebSocket,
    mut sub: Subscription,
    resubscribe: F,
    config: ServerConfig,
    closing: Closing,
) where
    F: Fn() -> Option<Subscription>,
{
    let (mut tx, mut rx) = socket.split();
    let send_timeout = config.send_timeout;
    macro_rules! send {
        ($msg:expr) => {
            match tokio::time::timeout(send_timeout, tx.send($msg)).await {
                Ok(Ok(())) => {}
                _ => return,
            }
        };
    }
    for b in std::mem::take(&mut sub.initial) {
        send!(text(b));
    }
    let mut ping = tokio::time::interval(config.ping_interval);
    ping.tick().await;
    let mut last_seen = Instant::now();
    let mut cutbacks = 0;
    loop {
        tokio::select! {
            _ = closing.started() => {
                send_close(&mut tx, send_timeout, frame(GOING_AWAY, "server shutting down")).await;
                return;
            }
            m = sub.recv() => match m {
                Ok(b) => send!(text(b)),
                Err(Ended::Lagged) => {
                    cutbacks += 1;
                    let next = (cutbacks <= config.max_cutbacks).then(&resubscribe).flatten();
                    let Some(mut next) = next else {
                        send_close(&mut tx, send_timeout, frame(1008, "too slow")).await;
                        return;
                    };
                    tracing::debug!(cutbacks, "slow client cut back to a snapshot");
                    for b in std::mem::take(&mut next.initial) {
                        send!(text(b));
                    }
                    sub = next;
                }
                Err(Ended::Closed) => {
                    send_close(&mut tx, send_timeout, frame(GOING_AWAY, "server closing")).await;
                    return;
                }
            },
            _ = ping.tick() => {
                if last_seen.elapsed() > config.idle_timeout {
                    send_close(&mut tx, send_timeout, frame(1000, "idle")).await;
                    return;
                }
                send!(Message::Ping(Bytes::new()));
            }
            m = rx.next() => match m {
                Some(Ok(Message::Close(_))) | None => return,
                Some(Err(e)) => {
                    if let Some(frame) = crate::closing::after_read_error(e) {
                        send_close(&mut tx, send_timeout, frame).await;
                    }
                    return;
                }
                Some(Ok(_)) => last_seen = Instant::now(),
            },
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
