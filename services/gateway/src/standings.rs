//! Tournament standings to people: follows the log's `tournament.<id>`
//! streams (written by the scoring service, `mafia_tournament::stored`),
//! folds each with `mafia-tournament`, and serves the table over GraphQL
//! (`standings`, `playerHistory`, the chief judge's `pendingApprovals` and
//! `openAppeals`, a `standings` subscription), a raw WebSocket channel
//! `/ws/standings/{tournament}` and HTTP exports `/export/{tournament}/…`.
//!
//! The ledger counts only finished games whose result the scoring service
//! recorded; what the public gets leaves out, besides, the extras still
//! waiting for the chief judge. Only a chief judge of the whole tournament
//! (the access model's `may_rule`) sees those in the standings; a chief
//! judge's approvals and appeals list only the games he rules on.
//!
//! Each audience reads a game's result only once its own stream has shown
//! the game's end ([`as_seen`]): the broadcast after its delay, the public
//! after its night; the judges at once.

use std::sync::Arc;
use std::time::Instant;

use async_graphql::{Context, Error, Json, Object, Result, SimpleObject, Subscription};
use axum::extract::ws::{Message, Utf8Bytes, WebSocketUpgrade};
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use bytes::Bytes;
use futures::{SinkExt, Stream, StreamExt};
use mafia_access::Scope;
use mafia_record::TournamentId;
use mafia_tournament::export;
use mafia_tournament::standings::PointsSplit;
use mafia_tournament::{PlayerId, Standings};
use serde_json::{json, Value};

use crate::app::{ApiError, AppState, FeedQuery};
use crate::auth::{caller_of, Caller};
pub use crate::board::{follow, Board, FollowError, Snapshot};
use crate::closing::{frame, send_close, GOING_AWAY};
use crate::hub::Hub;
use mafia_rules::Audience;

/// Whether the caller may see what waits for the chief judge in the
/// standings, whose sums mix every game: a chief judge of the whole
/// tournament.
fn is_chief(caller: &Caller, t: &TournamentId) -> bool {
    caller.may_rule(&Scope::Tournament(t.clone())).is_ok()
}

/// Whether the caller rules on this game (its approvals and appeals).
fn rules_on(caller: &Caller, game: &mafia_record::GameId) -> bool {
    caller.may_rule(&Scope::Game(game.clone())).is_ok()
}

/// The tournament as `caller`'s audience may see it now, and how many
/// results it leaves out: a game whose end that audience's stream has not
/// shown yet (the broadcast's delay, the public's night) counts as
/// unfinished, its result, inputs and corrections left out. The chief
/// judge and the table judges see every result at once.
pub fn as_seen(caller: &Caller, hub: &Hub, snap: &Snapshot) -> (Snapshot, usize) {
    let audience = if is_chief(caller, &snap.tournament.id) {
        Audience::Judge
    } else {
        caller.audience()
    };
    if audience == Audience::Judge {
        return (snap.clone(), 0);
    }
    let unshown: Vec<_> = snap
        .tournament
        .games
        .values()
        .filter(|g| g.result.is_some() && !hub.shown_end(&g.id, audience))
        .map(|g| g.id.clone())
        .collect();
    if unshown.is_empty() {
        return (snap.clone(), 0);
    }
    let mut t = (*snap.tournament).clone();
    for id in &unshown {
        if let Some(g) = t.games.get_mut(id) {
            g.result = None;
            g.inputs = None;
            g.winner_override = None;
            g.corrections.clear();
        }
        // The tournament's incremental ledger: the game counts no more.
        t.ledger.set(id, None);
    }
    let seen = Snapshot {
        version: snap.version,
        tournament: Arc::new(t),
    };
    (seen, unshown.len())
}

/// The standings `caller` may see.
pub fn standings_for(caller: &Caller, snap: &Snapshot) -> Standings {
    let s = mafia_tournament::standings(&snap.tournament);
    if is_chief(caller, &snap.tournament.id) {
        s
    } else {
        export::public_standings(s)
    }
}

fn parse_tournament(s: &str) -> Result<TournamentId, String> {
    s.parse::<TournamentId>()
        .map_err(|e| format!("bad tournament id {s:?}: {e}"))
}

fn unknown(id: &TournamentId) -> String {
    format!("no tournament {id}")
}

// ---- GraphQL ----------------------------------------------------------

#[derive(SimpleObject, Clone)]
pub struct Points {
    pub base: f64,
    pub extra: f64,
    pub best_move: f64,
    pub penalties: f64,
    pub compensation: f64,
    pub total: f64,
}

impl From<PointsSplit> for Points {
    fn from(p: PointsSplit) -> Self {
        Points {
            base: p.base.to_f64(),
            extra: p.extra.to_f64(),
            best_move: p.best_move.to_f64(),
            penalties: p.penalties.to_f64(),
            compensation: p.compensation.to_f64(),
            total: p.total.to_f64(),
        }
    }
}

#[derive(SimpleObject, Clone)]
pub struct ByRole {
    pub civilian: u32,
    pub sheriff: u32,
    pub beauty: u32,
    pub mafia: u32,
    pub don: u32,
}

impl From<mafia_tournament::ledger::RoleCounts> for ByRole {
    fn from(r: mafia_tournament::ledger::RoleCounts) -> Self {
        ByRole {
            civilian: r.civilian,
            sheriff: r.sheriff,
            beauty: r.beauty,
            mafia: r.mafia,
            don: r.don,
        }
    }
}

#[derive(SimpleObject, Clone)]
pub struct StandingsRow {
    pub rank: u32,
    pub player: String,
    pub nickname: String,
    pub club: Option<String>,
    pub withdrawn: bool,
    pub games: u32,
    pub wins: u32,
    pub wins_by_role: ByRole,
    pub games_by_role: ByRole,
    pub points: Points,
    /// Extras waiting for the chief judge: 0 for everyone else.
    pub extra_pending: f64,
    /// `none`, `by_lot` or `awaiting_lot`.
    pub tie: String,
}

/// A tournament's table at one version of its log.
#[derive(SimpleObject, Clone)]
pub struct StandingsTable {
    pub tournament: String,
    pub name: String,
    /// The seq of the tournament log's last event folded in; grows with
    /// every change.
    pub version: u64,
    pub scheme: String,
    pub scheme_version: u32,
    /// Scored games counted.
    pub games: u32,
    pub rows: Vec<StandingsRow>,
    /// Groups tied at every criterion that wait for the chief judge's lot.
    pub awaiting_lot: Vec<Vec<String>>,
}

fn tie_name(t: mafia_tournament::Tie) -> String {
    serde_json::to_value(t)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

fn table(caller: &Caller, snap: &Snapshot) -> StandingsTable {
    let s = standings_for(caller, snap);
    StandingsTable {
        tournament: s.tournament.to_string(),
        name: snap.tournament.name.clone(),
        version: snap.version,
        scheme: s.scheme.to_string(),
        scheme_version: s.scheme_version,
        games: s.games,
        rows: s
            .rows
            .into_iter()
            .map(|r| StandingsRow {
                rank: r.rank,
                player: r.player.to_string(),
                nickname: r.nickname,
                club: r.club,
                withdrawn: r.withdrawn,
                games: r.games,
                wins: r.wins,
                wins_by_role: r.wins_by_role.into(),
                games_by_role: r.games_by_role.into(),
                points: r.points.into(),
                extra_pending: r.extra_pending.to_f64(),
                tie: tie_name(r.tie),
            })
            .collect(),
        awaiting_lot: s
            .awaiting_lot
            .into_iter()
            .map(|g| g.into_iter().map(|p| p.to_string()).collect())
            .collect(),
    }
}

/// One scored game of a player.
#[derive(SimpleObject)]
pub struct HistoryGame {
    pub game: String,
    pub stage: String,
    pub seat: u8,
    pub role: String,
    /// `win`, `loss` or `draw`.
    pub outcome: String,
    pub points: Points,
    pub extra_pending: f64,
    pub best_move_hits: Option<u8>,
    pub first_night_killed: bool,
}

/// An item waiting for the chief judge's approval.
#[derive(SimpleObject)]
pub struct PendingApproval {
    pub game: String,
    /// `extra_value`, `game_sum` or `rewarded`.
    pub kind: String,
    /// The item as the scoring service's `Approve` takes it.
    pub item: Json<Value>,
}

/// An appeal (rfm §7, minsk2017 §8.6): who filed it, when, and, once the
/// chief judge ruled, his decision.
#[derive(SimpleObject)]
pub struct Appeal {
    pub id: u32,
    pub game: String,
    pub player: Option<String>,
    pub event_seq: Option<u32>,
    pub text: String,
    pub filed_by: String,
    /// Milliseconds since the Unix epoch.
    pub filed_at: i64,
    /// `None` while the appeal waits for the chief judge.
    pub decided: Option<AppealRuling>,
}

/// The chief judge's decision on an appeal.
#[derive(SimpleObject)]
pub struct AppealRuling {
    /// `rejected`, `result_changed`, `points_corrected` or `replay`.
    pub kind: String,
    /// The decision as the scoring service's `DecideAppeal` takes it
    /// (`mafia_tournament::AppealDecision`: the new winner, the corrections).
    pub decision: Json<Value>,
    pub reason: String,
    pub by: String,
    /// Milliseconds since the Unix epoch.
    pub at: i64,
}

impl From<&mafia_tournament::Appeal> for Appeal {
    fn from(a: &mafia_tournament::Appeal) -> Appeal {
        Appeal {
            id: a.id,
            game: a.game.to_string(),
            player: a.player.as_ref().map(|p| p.to_string()),
            event_seq: a.event_seq,
            text: a.text.clone(),
            filed_by: a.filed_by.to_string(),
            filed_at: a.filed_at,
            decided: a.decided.as_ref().map(|d| {
                let decision = serde_json::to_value(&d.decision).unwrap_or_default();
                AppealRuling {
                    kind: decision["kind"].as_str().unwrap_or_default().to_owned(),
                    decision: Json(decision),
                    reason: d.reason.clone(),
                    by: d.by.to_string(),
                    at: d.at,
                }
            }),
        }
    }
}

fn caller<'a>(ctx: &'a Context<'_>) -> &'a Caller {
    static PUBLIC: Caller = Caller::Public;
    ctx.data_opt::<Caller>().unwrap_or(&PUBLIC)
}

fn board<'a>(ctx: &'a Context<'_>) -> Result<&'a Board> {
    ctx.data::<Board>()
}

fn snapshot(ctx: &Context<'_>, tournament: &str) -> Result<Snapshot> {
    let id = parse_tournament(tournament).map_err(Error::new)?;
    board(ctx)?.get(&id).ok_or_else(|| Error::new(unknown(&id)))
}

/// The tournament as the caller's audience sees it now ([`as_seen`]).
fn seen_snapshot(ctx: &Context<'_>, tournament: &str) -> Result<Snapshot> {
    let snap = snapshot(ctx, tournament)?;
    Ok(as_seen(caller(ctx), ctx.data::<Hub>()?, &snap).0)
}

/// For a chief judge of the tournament only, who then reads only the games
/// he rules on (`rules_on`).
fn chief_snapshot(ctx: &Context<'_>, tournament: &str) -> Result<Snapshot> {
    let id = parse_tournament(tournament).map_err(Error::new)?;
    if !caller(ctx).rules_in(&id) {
        return Err(Error::new(format!(
            "this token may not rule on any game of {id}: only a chief judge reads its games' approvals and appeals"
        )));
    }
    snapshot(ctx, tournament)
}

fn role_name(r: mafia_rules::Role) -> String {
    serde_json::to_value(r)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

#[derive(Default)]
pub struct StandingsQuery;

#[Object]
impl StandingsQuery {
    /// A tournament's standings: rank, player, games, wins by role and the
    /// points split as its scheme defines it. Counts finished, scored games
    /// only; extras waiting for approval show for the chief judge alone.
    async fn standings(&self, ctx: &Context<'_>, tournament: String) -> Result<StandingsTable> {
        Ok(table(caller(ctx), &seen_snapshot(ctx, &tournament)?))
    }

    /// A player's scored games in the tournament, in game-id order.
    async fn player_history(
        &self,
        ctx: &Context<'_>,
        tournament: String,
        player: String,
    ) -> Result<Vec<HistoryGame>> {
        let snap = seen_snapshot(ctx, &tournament)?;
        let t = &snap.tournament;
        let p = PlayerId::new(&player);
        if !t.players.contains_key(&p) {
            return Err(Error::new(format!("no player {player} in {}", t.id)));
        }
        let who = caller(ctx);
        Ok(mafia_tournament::history(t, &p)
            .into_iter()
            .map(|h| HistoryGame {
                game: h.game.to_string(),
                stage: h.stage.to_string(),
                seat: h.seat.number(),
                role: role_name(h.role),
                outcome: h.outcome.as_str().to_owned(),
                points: h.points.into(),
                extra_pending: if rules_on(who, &h.game) {
                    h.extra_pending.to_f64()
                } else {
                    0.0
                },
                best_move_hits: h.best_move_hits,
                first_night_killed: h.first_night_killed,
            })
            .collect())
    }

    /// What waits for the chief judge's approval; the chief judge only.
    async fn pending_approvals(
        &self,
        ctx: &Context<'_>,
        tournament: String,
    ) -> Result<Vec<PendingApproval>> {
        let snap = chief_snapshot(ctx, &tournament)?;
        Ok(snap
            .tournament
            .pending_approvals()
            .into_iter()
            .filter(|(g, _)| rules_on(caller(ctx), g))
            .map(|(g, item)| {
                let v = serde_json::to_value(&item).unwrap_or_default();
                PendingApproval {
                    game: g.to_string(),
                    kind: v["item"].as_str().unwrap_or_default().to_owned(),
                    item: Json(v),
                }
            })
            .collect())
    }

    /// Appeals not yet decided; the chief judge only.
    async fn open_appeals(&self, ctx: &Context<'_>, tournament: String) -> Result<Vec<Appeal>> {
        let snap = chief_snapshot(ctx, &tournament)?;
        Ok(snap
            .tournament
            .open_appeals()
            .into_iter()
            .filter(|a| rules_on(caller(ctx), &a.game))
            .map(Appeal::from)
            .collect())
    }

    /// Finished games whose result the chief judge has not confirmed yet
    /// (`confirm_result`, rfm §7.4), in game-id order: the dashboard's
    /// "awaiting confirmation"; the chief judge only.
    async fn awaiting_confirmation(
        &self,
        ctx: &Context<'_>,
        tournament: String,
    ) -> Result<Vec<String>> {
        let snap = chief_snapshot(ctx, &tournament)?;
        Ok(snap
            .tournament
            .games
            .values()
            .filter(|g| g.awaits_confirmation() && rules_on(caller(ctx), &g.id))
            .map(|g| g.id.to_string())
            .collect())
    }

    /// Every appeal in the order filed, decided ones with their ruling: the
    /// tournament's audit trail of appeals; the chief judge only.
    async fn appeals(&self, ctx: &Context<'_>, tournament: String) -> Result<Vec<Appeal>> {
        let snap = chief_snapshot(ctx, &tournament)?;
        Ok(snap
            .tournament
            .appeals
            .values()
            .filter(|a| rules_on(caller(ctx), &a.game))
            .map(Appeal::from)
            .collect())
    }
}

/// The tournament as `who` sees it ([`as_seen`]), starting with the fold
/// there is, then again after each newer fold and each end a held stream
/// shows that changes it.
fn snapshots(rx: crate::board::Watch, hub: Hub, who: Caller) -> impl Stream<Item = Snapshot> {
    let ends = hub.watch_ends();
    let state = (rx, ends, None::<(u64, usize)>, true);
    futures::stream::unfold(state, move |(mut rx, mut ends, last, first)| {
        let (hub, who) = (hub.clone(), who.clone());
        async move {
            let mut first = first;
            loop {
                if !first {
                    tokio::select! {
                        r = rx.changed() => r.ok()?,
                        r = ends.changed() => r.ok()?,
                    }
                }
                first = false;
                ends.borrow_and_update();
                // A removed tournament is as one never written.
                let fold = rx.borrow_and_update().clone();
                let Some(snap) = fold.filter(|s| s.tournament.removed.is_none()) else {
                    continue;
                };
                let (seen, hidden) = as_seen(&who, &hub, &snap);
                let key = (snap.version, hidden);
                if last != Some(key) {
                    return Some((seen, (rx, ends, Some(key), false)));
                }
            }
        }
    })
}

#[derive(Default)]
pub struct StandingsSubscription;

#[Subscription]
impl StandingsSubscription {
    /// The tournament's table now (once its log exists) and a new one, with
    /// a higher `version`, after each change.
    async fn standings(
        &self,
        ctx: &Context<'_>,
        tournament: String,
    ) -> Result<impl Stream<Item = StandingsTable>> {
        let id = parse_tournament(&tournament).map_err(Error::new)?;
        let rx = board(ctx)?
            .watch(&id)
            .map_err(|e| Error::new(e.to_string()))?;
        let who = caller(ctx).clone();
        let hub = ctx.data::<Hub>()?.clone();
        Ok(snapshots(rx, hub, who.clone()).map(move |s| table(&who, &s)))
    }
}

// ---- WebSocket channel and HTTP exports ------------------------------

/// `/ws/standings/{tournament}`, `/export/{tournament}/…`, `/api/standings`.
pub fn routes(state: AppState) -> Router {
    Router::new()
        .route("/ws/standings/{tournament}", get(ws_standings))
        .route("/api/standings", get(api_tournaments))
        .route("/api/players/{tournament}", get(api_players))
        .route("/export/{tournament}/{file}", get(export_file))
        .route("/export/{tournament}/seating/{file}", get(export_seating))
        .with_state(state)
}

/// A refused HTTP request: the status and a JSON `{"error": …}` body.
enum Refusal {
    NotFound(String),
    Api(ApiError),
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        match self {
            Refusal::NotFound(why) => {
                (StatusCode::NOT_FOUND, axum::Json(json!({ "error": why }))).into_response()
            }
            Refusal::Api(e) => e.into_response(),
        }
    }
}

fn not_found(why: String) -> Refusal {
    Refusal::NotFound(why)
}

fn bad_request(why: String) -> Refusal {
    Refusal::Api(ApiError::bad_request(why))
}

fn auth(e: mafia_access::AuthError) -> Refusal {
    Refusal::Api(ApiError::from(e))
}

fn snap_of(state: &AppState, tournament: &str) -> Result<Snapshot, Refusal> {
    let id = parse_tournament(tournament).map_err(bad_request)?;
    state
        .standings
        .get(&id)
        .ok_or_else(|| not_found(unknown(&id)))
}

/// The channel's message: the whole table, like the GraphQL subscription's.
pub fn message(caller: &Caller, snap: &Snapshot) -> Bytes {
    let s = standings_for(caller, snap);
    Bytes::from(
        json!({
            "type": "standings",
            "tournament": s.tournament,
            "name": snap.tournament.name,
            "version": snap.version,
            "standings": s,
        })
        .to_string(),
    )
}

async fn api_tournaments(State(state): State<AppState>) -> axum::Json<Value> {
    let list: Vec<Value> = state
        .standings
        .tournaments()
        .into_iter()
        .filter_map(|id| state.standings.get(&id))
        .map(|s| json!({"tournament": s.tournament.id, "name": s.tournament.name, "version": s.version}))
        .collect();
    axum::Json(json!({ "tournaments": list }))
}

/// The tournament's registered players, for the screens' nicknames and
/// photos: `{"players": [{id, nickname, club, photo_url}…]}` (public: the
/// organiser's own listing), a photo only where the pages may load it
/// from (`PagesConfig::allows_photo`).
async fn api_players(
    State(state): State<AppState>,
    Path(tournament): Path<String>,
) -> Result<axum::Json<Value>, Refusal> {
    let snap = snap_of(&state, &tournament)?;
    let players: Vec<mafia_tournament::Player> = snap
        .tournament
        .players
        .values()
        .map(|r| {
            let mut p = r.player.clone();
            p.photo_url = p.photo_url.filter(|u| state.pages.allows_photo(u));
            p
        })
        .collect();
    Ok(axum::Json(json!({ "players": players })))
}

async fn ws_standings(
    State(state): State<AppState>,
    Path(tournament): Path<String>,
    Query(q): Query<FeedQuery>,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> Result<Response, Refusal> {
    let who = caller_of(&state.tokens, q.token.as_deref(), &headers).map_err(auth)?;
    let id = parse_tournament(&tournament).map_err(bad_request)?;
    let rx = state
        .standings
        .watch(&id)
        .map_err(|e| Refusal::Api(ApiError::unavailable(e.to_string())))?;
    let config = state.config.clone();
    let hub = state.hub.clone();
    let closing = state.closing.clone();
    let mut revoked = state.tokens.until_revoked(&who);
    Ok(ws
        .max_message_size(64 * 1024)
        .on_upgrade(move |socket| {
            state.closing.track(async move {
                let (mut tx, mut rx_ws) = socket.split();
                let send_timeout = config.send_timeout;
                let mut tables = Box::pin(snapshots(rx, hub, who.clone()));
                let mut ping = tokio::time::interval(config.ping_interval);
                ping.tick().await;
                let mut last_seen = Instant::now();
                macro_rules! send {
                    ($m:expr) => {
                        match tokio::time::timeout(send_timeout, tx.send($m)).await {
                            Ok(Ok(())) => {}
                            _ => return,
                        }
                    };
                }
                loop {
                    tokio::select! {
                        _ = closing.started() => {
                            send_close(&mut tx, send_timeout, frame(GOING_AWAY, "server shutting down")).await;
                            return;
                        }
                        _ = &mut revoked => {
                            send_close(&mut tx, send_timeout, frame(crate::auth::REVOKED_CLOSE, crate::auth::REVOKED_REASON)).await;
                            return;
                        }
                        s = tables.next() => match s {
                            Some(s) => {
                                let b = message(&who, &s);
                                send!(Message::Text(Utf8Bytes::try_from(b).unwrap_or_else(|_| Utf8Bytes::from_static("{}"))));
                            }
                            None => return,
                        },
                        _ = ping.tick() => {
                            if last_seen.elapsed() > config.idle_timeout {
                                send_close(&mut tx, send_timeout, frame(1000, "idle")).await;
                                return;
                            }
                            send!(Message::Ping(Bytes::new()));
                        }
                        m = rx_ws.next() => match m {
                            Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return,
                            Some(Ok(_)) => last_seen = Instant::now(),
                        },
                    }
                }
            })
        }))
}

fn file_response(content_type: &'static str, body: String) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "no-store"),
        ],
        body,
    )
        .into_response()
}

async fn export_file(
    State(state): State<AppState>,
    Path((tournament, file)): Path<(String, String)>,
    Query(q): Query<FeedQuery>,
    headers: HeaderMap,
) -> Result<Response, Refusal> {
    let who = caller_of(&state.tokens, q.token.as_deref(), &headers).map_err(auth)?;
    let (snap, _) = as_seen(&who, &state.hub, &snap_of(&state, &tournament)?);
    let chief = is_chief(&who, &snap.tournament.id);
    let games = || {
        let g = export::game_points(&snap.tournament);
        if chief {
            g
        } else {
            export::public_game_points(g)
        }
    };
    const CSV: &str = "text/csv; charset=utf-8";
    const JSON: &str = "application/json";
    Ok(match file.as_str() {
        "standings.csv" => file_response(CSV, export::standings_csv(&standings_for(&who, &snap))),
        "standings.json" => file_response(JSON, export::standings_json(&standings_for(&who, &snap))),
        "games.csv" => file_response(CSV, export::games_csv(&games())),
        "games.json" => file_response(JSON, export::games_json(&games())),
        _ => {
            return Err(not_found(format!(
                "no export {file}: standings.csv, standings.json, games.csv, games.json or seating/N.html"
            )))
        }
    })
}

async fn export_seating(
    State(state): State<AppState>,
    Path((tournament, file)): Path<(String, String)>,
) -> Result<Response, Refusal> {
    let snap = snap_of(&state, &tournament)?;
    let round: u32 = file
        .strip_suffix(".html")
        .and_then(|r| r.parse().ok())
        .ok_or_else(|| not_found(format!("no seating sheet {file}: ask for seating/N.html")))?;
    let html = export::seating_html(&snap.tournament, None, round)
        .map_err(|e| not_found(e.to_string()))?;
    Ok(file_response("text/html; charset=utf-8", html))
}
