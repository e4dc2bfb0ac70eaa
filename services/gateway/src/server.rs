//! HTTP routes: the raw WebSocket feed (FEED.md), a small JSON API, the
//! GraphQL endpoint and the embedded screens.

use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use bytes::Bytes;
use serde_json::json;

use mafia_record::{GameId, TournamentId};
use mafia_rules::Audience;

use crate::app::{authorize, game_audience, ApiError, FeedQuery};
pub use crate::app::{AppState, ServerConfig};
use crate::auth::{Caller, ForGame, Games, Revocation, REVOKED_CLOSE, REVOKED_REASON};
use crate::closing::{Closing, GOING_AWAY};
use crate::hub::Hub;
use crate::ws::frame::{self as ws_frame};
use crate::ws::upgrade::Upgrading;
use crate::ws::{conn::Pumped, Conn, Decoder, Incoming, Keepalive, Upgrade};

/// The gateway's whole router. `/ws/table/…`, `/api/table/…` and
/// `/api/tables` are the old names of the game routes, kept for the OBS
/// sources and clients that still use them (FEED.md).
///
/// Every route that serves data meets one credential rule
/// (`auth::refuse_bad_credentials`); the embedded pages do not: they are
/// the same bytes for everyone, and the token in their URL is their
/// script's, which meets the rule on every request it makes (the judge
/// console shows "Unknown token" on its own form).
pub fn router(state: AppState) -> Router {
    let graphql = crate::graphql::routes(state.clone());
    let standings = crate::standings::routes(state.clone());
    let tokens = state.tokens.clone();
    let pages = crate::assets::routes()
        .merge(crate::console::pages())
        .merge(crate::office::pages())
        .merge(crate::ruling::pages())
        .with_state(state.clone());
    let mut router = Router::new();
    if state.config.autobahn_echo {
        router = router.route("/ws/autobahn-echo", get(ws_autobahn_echo));
    }
    router
        .route("/ws/game/{game_id}", get(ws_game))
        .route("/ws/table/{game_id}", get(ws_game))
        .route("/ws/hall", get(ws_hall))
        .route("/api/games", get(api_games))
        .route("/api/tables", get(api_tables))
        .route("/api/clock", get(api_clock))
        .route("/api/game/{game_id}", get(api_game))
        .route("/api/table/{game_id}", get(api_game))
        .route("/healthz", get(|| async { "ok" }))
        .merge(crate::console::api())
        .merge(crate::office::api())
        .merge(crate::ruling::routes())
        .merge(crate::table_board::routes())
        .with_state(state)
        .merge(graphql)
        .merge(standings)
        .layer(axum::middleware::from_fn_with_state(
            tokens,
            crate::auth::refuse_bad_credentials,
        ))
        .merge(pages)
        .layer(axum::middleware::from_fn(
            crate::ws::upgrade::refuse_bad_handshakes,
        ))
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
    let feed = FeedTask::new(&state, &access, Follow::Game(game_id, audience));
    let (response, upgrading) = ws.accept(None);
    tokio::spawn(state.closing.track(feed.run(upgrading, q.from)));
    Ok(response)
}

/// `ws::echo`, for the Autobahn fuzzing client's conformance runs only.
async fn ws_autobahn_echo(State(state): State<AppState>, ws: Upgrade) -> Response {
    let (response, upgrading) = ws.accept(None);
    let echo = crate::ws::echo::run(upgrading, state.closing.clone(), state.config.send_timeout);
    tokio::spawn(state.closing.track(echo));
    response
}

async fn ws_hall(
    State(state): State<AppState>,
    Query(q): Query<FeedQuery>,
    headers: HeaderMap,
    ws: Upgrade,
) -> Result<Response, ApiError> {
    let access = authorize(&state, q.token.as_deref(), &headers)?;
    let (audience, mut games) = access.hall();
    if let Some(t) = q.tournament.as_deref() {
        let t: TournamentId = t
            .parse()
            .map_err(|_| ApiError::bad_request("not a tournament id".into()))?;
        games = Some(Games::of_tournament(games, t));
    }
    let feed = FeedTask::new(&state, &access, Follow::Hall(audience, games));
    let (response, upgrading) = ws.accept(None);
    tokio::spawn(state.closing.track(feed.run(upgrading, None)));
    Ok(response)
}

/// What a feed connection follows; a lagged one follows it again from a
/// snapshot.
enum Follow {
    Game(GameId, Audience),
    Hall(Audience, Option<Arc<Games>>),
}

/// One feed connection's task and all it keeps: moved in once, so that an
/// idle connection's task holds nothing twice.
struct FeedTask {
    hub: Hub,
    follow: Follow,
    keepalive: Keepalive,
    closing: Closing,
    /// Its credential's revocation, which closes it.
    revoked: Revocation,
    send_timeout: std::time::Duration,
    max_cutbacks: u32,
}

impl FeedTask {
    fn new(state: &AppState, caller: &Caller, follow: Follow) -> FeedTask {
        FeedTask {
            hub: state.hub.clone(),
            follow,
            keepalive: state.keepalive.clone(),
            closing: state.closing.clone(),
            revoked: state.tokens.until_revoked(caller),
            send_timeout: state.config.send_timeout,
            max_cutbacks: state.config.max_cutbacks,
        }
    }

    /// Subscribes `conn`; false when its game is gone.
    fn subscribe(&self, conn: &Arc<Conn>, from: Option<u64>) -> bool {
        match &self.follow {
            Follow::Game(game_id, audience) => self
                .hub
                .subscribe_conn(game_id, *audience, from, conn)
                .is_ok(),
            Follow::Hall(audience, games) => {
                self.hub.subscribe_hall_conn(*audience, games.clone(), conn);
                true
            }
        }
    }

    /// Keeps a feed's connection until it ends, with the close frame
    /// [`FeedTask::serve`] gives, if any.
    async fn run(mut self, upgrading: Upgrading, from: Option<u64>) {
        let Some((socket, early, lease)) = upgrading.socket().await else {
            return;
        };
        let conn = Arc::new(Conn::new(socket, lease));
        if !self.subscribe(&conn, from) {
            return;
        }
        let mut revoked = std::mem::replace(&mut self.revoked, Revocation::never());
        if let Some(goodbye) = self.serve(&conn, early, &mut revoked).await {
            conn.finish(goodbye, self.send_timeout).await;
        }
    }

    /// Flushes what the fan-out could not write at once, answers the
    /// client's pings and close, and catches it up with a snapshot when it
    /// lagged. The fan-out writes the messages; the keepalive pings the
    /// client and closes it when silent or stuck. Returns the close frame
    /// to end with; the only await is the one `select!`, so the future
    /// keeps one set of locals (issue 15: memory per idle connection).
    async fn serve(
        &self,
        conn: &Arc<Conn>,
        early: Bytes,
        revoked: &mut Revocation,
    ) -> Option<Bytes> {
        let mut decoder = Decoder::new(MAX_CLIENT_MESSAGE);
        let mut incoming = Vec::new();
        // The bytes hyper read past the request.
        if let Err(v) = decoder.feed(&early, &mut incoming) {
            return Some(ws_frame::close(v.code, v.why));
        }
        drop(early);
        self.keepalive.keep(conn);
        let mut cutbacks = 0;
        loop {
            if !incoming.is_empty() {
                conn.seen();
            }
            for m in incoming.drain(..) {
                match m {
                    Incoming::Ping(p) => {
                        conn.reply(&ws_frame::pong(&p));
                    }
                    Incoming::Close(code) => {
                        return Some(ws_frame::close(code.map_or(1000, |(c, _)| c), ""));
                    }
                    _ => {}
                }
            }
            let status = conn.status();
            if status.closed {
                return None;
            }
            if status.ended {
                return Some(ws_frame::close(GOING_AWAY, "server closing"));
            }
            if status.idle {
                return Some(ws_frame::close(1000, "idle"));
            }
            if status.over_budget {
                return Some(crate::ws::conn::over_budget());
            }
            if status.lagged {
                cutbacks += 1;
                if cutbacks > self.max_cutbacks || !self.subscribe(conn, None) {
                    return Some(ws_frame::close(1008, "too slow"));
                }
                tracing::debug!(cutbacks, "slow client cut back to a snapshot");
                continue;
            }
            tokio::select! {
                _ = self.closing.started() => {
                    return Some(ws_frame::close(GOING_AWAY, "server shutting down"));
                }
                _ = &mut *revoked => {
                    return Some(ws_frame::close(REVOKED_CLOSE, REVOKED_REASON));
                }
                _ = conn.changed() => {}
                p = conn.pump(status.backlog, &mut decoder, &mut incoming) => match p {
                    Pumped::Over => return None,
                    Pumped::Refused(goodbye) => return Some(goodbye),
                    Pumped::Wrote | Pumped::Read => {}
                },
            }
        }
    }
}

/// The gateway's wall clock, for screens to count timers against the
/// server's time rather than the viewer's, and how far behind it the
/// caller's feeds run (`delay_ms`: the broadcast's delay for a broadcast
/// token, else 0): a delayed screen counts its timers and shows its news
/// on the delayed clock.
async fn api_clock(
    State(state): State<AppState>,
    Query(q): Query<FeedQuery>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let access = authorize(&state, q.token.as_deref(), &headers)?;
    let delay_ms = match access.hall().0 {
        Audience::Broadcast => state.hub.config().broadcast_delay.as_millis() as u64,
        _ => 0,
    };
    let server_ms = crate::hub::unix_ms();
    Ok((
        [(header::CACHE_CONTROL, "no-store")],
        Json(json!({ "server_ms": server_ms, "delay_ms": delay_ms })),
    )
        .into_response())
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
