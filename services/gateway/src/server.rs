//! HTTP routes: the raw WebSocket feed (FEED.md), a small JSON API, the
//! GraphQL endpoint and the embedded screens.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use bytes::Bytes;
use futures::{SinkExt, StreamExt};
use mafia_rules::Audience;
use serde::Deserialize;
use serde_json::json;

use crate::auth::{caller_of, AuthError, Caller, ForGame, Tokens};
use crate::closing::{frame, send_close, Closing, GOING_AWAY};
use crate::hub::{Ended, Hub, HubError, Subscription};

/// Tuning for the HTTP side.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// How often the server pings a WebSocket client.
    pub ping_interval: Duration,
    /// A client silent (no pong, no message) for this long is closed.
    pub idle_timeout: Duration,
    /// A single send that cannot complete in this time closes the connection:
    /// a client that stopped reading must not hold a task forever.
    pub send_timeout: Duration,
    /// Snapshots a lagging connection may be cut back to before it is closed.
    pub max_cutbacks: u32,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            ping_interval: Duration::from_secs(15),
            idle_timeout: Duration::from_secs(45),
            send_timeout: Duration::from_secs(10),
            max_cutbacks: 8,
        }
    }
}

/// What every handler shares.
#[derive(Clone)]
pub struct AppState {
    pub hub: Hub,
    pub tokens: Arc<Tokens>,
    pub config: ServerConfig,
    pub closing: Closing,
    /// Tournament standings, folded off the log (`crate::standings`).
    pub standings: crate::standings::Board,
}

/// The gateway's whole router.
pub fn router(state: AppState) -> Router {
    let graphql = crate::graphql::routes(state.clone());
    let standings = crate::standings::routes(state.clone());
    Router::new()
        .route("/ws/table/{game_id}", get(ws_table))
        .route("/ws/hall", get(ws_hall))
        .route("/api/tables", get(api_tables))
        .route("/api/clock", get(api_clock))
        .route("/api/table/{game_id}", get(api_table))
        .route("/healthz", get(|| async { "ok" }))
        .merge(crate::assets::routes())
        .with_state(state)
        .merge(graphql)
        .merge(standings)
}

#[derive(Debug, Deserialize)]
pub struct FeedQuery {
    pub token: Option<String>,
    pub from: Option<u64>,
}

/// The token from `?token=` or `Authorization: Bearer`.
pub fn token_of<'a>(query: Option<&'a str>, headers: &'a HeaderMap) -> Option<&'a str> {
    query.or_else(|| {
        headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::trim)
    })
}

/// An error as the HTTP status and a JSON body that says only what the
/// caller may know.
pub struct ApiError(StatusCode, String);

impl ApiError {
    pub fn bad_request(why: String) -> ApiError {
        ApiError(StatusCode::BAD_REQUEST, why)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, Json(json!({"error": self.1}))).into_response()
    }
}

impl From<AuthError> for ApiError {
    fn from(e: AuthError) -> Self {
        match e {
            AuthError::BadToken | AuthError::BadScheme => {
                ApiError(StatusCode::UNAUTHORIZED, e.to_string())
            }
            AuthError::Denied { .. } => ApiError(StatusCode::FORBIDDEN, e.to_string()),
            AuthError::Config(_) => ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
        }
    }
}

impl From<HubError> for ApiError {
    fn from(e: HubError) -> Self {
        match e {
            HubError::UnknownTable(_) => ApiError(StatusCode::NOT_FOUND, e.to_string()),
            HubError::Log(_) => ApiError(
                StatusCode::SERVICE_UNAVAILABLE,
                "event log unavailable".into(),
            ),
        }
    }
}

fn authorize(
    state: &AppState,
    query: Option<&str>,
    headers: &HeaderMap,
) -> Result<Caller, ApiError> {
    Ok(caller_of(&state.tokens, query, headers)?)
}

/// The audience `access` gets for a table, checking the table exists
/// before the token's scope so that a judge token can't probe table ids
/// any better than the public can.
fn table_audience(state: &AppState, access: &Caller, game_id: &str) -> Result<Audience, ApiError> {
    if !state.hub.has_table(game_id) {
        return Err(HubError::UnknownTable(game_id.to_owned()).into());
    }
    Ok(access.audience_of(game_id)?)
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

async fn ws_table(
    State(state): State<AppState>,
    Path(game_id): Path<String>,
    Query(q): Query<FeedQuery>,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> Result<Response, ApiError> {
    let access = authorize(&state, q.token.as_deref(), &headers)?;
    let audience = table_audience(&state, &access, &game_id)?;
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
    let (audience, tables) = access.hall();
    let sub = state.hub.subscribe_hall(audience, tables.clone());
    let hub = state.hub.clone();
    let config = state.config.clone();
    let closing = state.closing.clone();
    Ok(configure(ws).on_upgrade(move |socket| {
        state.closing.track(async move {
            let resub = move || Some(hub.subscribe_hall(audience, tables.clone()));
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

async fn api_tables(State(state): State<AppState>) -> Json<serde_json::Value> {
    Json(json!({"tables": state.hub.tables()}))
}

async fn api_table(
    State(state): State<AppState>,
    Path(game_id): Path<String>,
    Query(q): Query<FeedQuery>,
    headers: HeaderMap,
) -> Result<Json<serde_json::Value>, ApiError> {
    let access = authorize(&state, q.token.as_deref(), &headers)?;
    let audience = table_audience(&state, &access, &game_id)?;
    let s = state.hub.state(&game_id, audience)?;
    Ok(Json(
        json!({"info": s.info, "seq": s.seq, "over": s.over, "view": s.view}),
    ))
}
