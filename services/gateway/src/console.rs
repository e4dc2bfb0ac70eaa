//! The table judge's web console (`/judge-console`, issue 9): the page, its
//! script, style and generated protobuf codec, all embedded in the binary,
//! and the one JSON route it needs from the gateway, the games its token may
//! judge. The console itself talks gRPC-web to the referee (which alone
//! checks and stores commands); the gateway only tells the page where the
//! referee's gRPC-web endpoint is (`ConsoleConfig`), written into the page.
//! After a game of a tournament, the page also reads what the scheme lets
//! the judge give (`/judge-console/api/inputs/{game}`, from the tournament
//! the gateway folds) and sends the judge's inputs to the scoring service,
//! which alone checks and stores them, over gRPC-web too.

use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use mafia_access::Role;
use mafia_rules::Audience;
use mafia_tournament::Outcome;
use serde_json::json;

use crate::app::{authorize, ApiError, AppState, ConsoleConfig, FeedQuery};

const PAGE: &str = include_str!("../assets/console.html");
/// Path, content type, content.
pub const CONSOLE_ASSETS: &[(&str, &str, &str)] = &[
    (
        "/assets/console.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/console.js"),
    ),
    (
        "/assets/grpc_web.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/grpc_web.js"),
    ),
    (
        "/assets/console_proto.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/console_proto.js"),
    ),
    (
        "/assets/console.css",
        "text/css; charset=utf-8",
        include_str!("../assets/console.css"),
    ),
];

/// The placeholders in `console.html` replaced by the services' URLs.
const REFEREE_SLOT: &str = "{{REFEREE_URL}}";
const SCORING_SLOT: &str = "{{SCORING_URL}}";

/// `text` safe inside a double-quoted HTML attribute.
pub fn attribute(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The page as served: the referee's and the scoring service's URLs
/// written in (attribute-escaped).
pub fn page(config: &ConsoleConfig) -> String {
    PAGE.replace(
        REFEREE_SLOT,
        &attribute(config.referee_url.as_deref().unwrap_or("")),
    )
    .replace(
        SCORING_SLOT,
        &attribute(config.scoring_url.as_deref().unwrap_or("")),
    )
}

/// Bytes of the console's first load: its page, script, codec and style.
pub fn first_load_bytes(config: &ConsoleConfig) -> usize {
    page(config).len() + CONSOLE_ASSETS.iter().map(|a| a.2.len()).sum::<usize>()
}

/// The console's page, script, codec and style: the same bytes for
/// everyone (the token in its URL is read by the page's script).
pub fn pages() -> Router<AppState> {
    crate::assets::embedded(CONSOLE_ASSETS).route("/judge-console", get(console_page))
}

/// What the console's script asks for with the judge's token.
pub fn api() -> Router<AppState> {
    Router::new()
        .route("/judge-console/api/games", get(console_games))
        .route("/judge-console/api/inputs/{game}", get(console_inputs))
}

async fn console_page(State(state): State<AppState>) -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        page(&state.console),
    )
        .into_response()
}

/// The games the caller may judge, newest last, with whether each is over,
/// and the token's scope (what the console offers to open). Only judges'
/// tokens: the others are refused (403), a bad token 401.
async fn console_games(
    State(state): State<AppState>,
    Query(q): Query<FeedQuery>,
    headers: HeaderMap,
) -> Result<Json<serde_json::Value>, ApiError> {
    let caller = judge_caller(&state, q.token.as_deref(), &headers)?;
    let games: Vec<serde_json::Value> = state
        .hub
        .games()
        .into_iter()
        .filter(|g| caller.may_judge(&g.game_id).is_ok())
        .map(|g| {
            let over = state
                .hub
                .state(&g.game_id, Audience::Judge)
                .is_ok_and(|s| s.over);
            json!({"info": g, "over": over})
        })
        .collect();
    let assigned = assigned_games(&state, &caller);
    let scope: Vec<String> = match &caller {
        mafia_access::Caller::Known(g) => g.games.iter().map(ToString::to_string).collect(),
        mafia_access::Caller::Public => Vec::new(),
    };
    Ok(Json(json!({
        "role": caller.name(),
        "holder": caller.holder(),
        "scope": scope,
        "games": games,
        "assigned": assigned,
    })))
}

/// The tournament games assigned to the caller (a table judge: the games
/// bound to him, as his token names him, within his scope; the chief
/// judge: every game in his scope), in game order, with whether the
/// referee has opened each (the organiser opens a round's games) and
/// whether its result is recorded.
fn assigned_games(state: &AppState, caller: &mafia_access::Caller) -> Vec<serde_json::Value> {
    let chief = matches!(caller.role(), Some(Role::ChiefJudge));
    let mut out = Vec::new();
    for id in state.standings.tournaments() {
        let Some(snap) = state.standings.get(&id) else {
            continue;
        };
        let t = &snap.tournament;
        for (game, entry) in &t.games {
            let his = chief
                || entry
                    .judge
                    .as_ref()
                    .is_some_and(|j| Some(j.as_str()) == caller.holder());
            if !his || entry.annulled || caller.may_judge(game).is_err() {
                continue;
            }
            out.push(json!({
                "game_id": game,
                "tournament": t.name,
                "table": game.table,
                "judge": entry.judge,
                "opened": state.hub.has_game(game),
                "scored": entry.result.is_some(),
            }));
        }
    }
    out
}

/// A judge's token (table or chief); others 403, a bad token 401.
fn judge_caller(
    state: &AppState,
    token: Option<&str>,
    headers: &HeaderMap,
) -> Result<mafia_access::Caller, ApiError> {
    let caller = authorize(state, token, headers)?;
    if !matches!(caller.role(), Some(Role::ChiefJudge | Role::TableJudge)) {
        return Err(ApiError::forbidden(
            "the judge console takes a table judge's or the chief judge's token".into(),
        ));
    }
    Ok(caller)
}

/// What the judge of a finished tournament game may give after it: for
/// each seat its player, team and result, and the extra points and penalty
/// codes the scheme allows it (decided by `mafia-tournament`, not the page);
/// whether the record has a best move to confirm; and what is stored so far: the form the console shows once the
/// game is over. 404 for a game of no tournament the gateway follows, and
/// 409 while its result is not recorded yet (the scoring service records it
/// when the game ends; the console asks again).
async fn console_inputs(
    State(state): State<AppState>,
    Path(game): Path<String>,
    Query(q): Query<FeedQuery>,
    headers: HeaderMap,
) -> Result<Json<serde_json::Value>, ApiError> {
    let caller = judge_caller(&state, q.token.as_deref(), &headers)?;
    let id: mafia_record::GameId = game
        .parse()
        .map_err(|e| ApiError::bad_request(format!("game {game:?}: {e}")))?;
    caller
        .may_judge(&id)
        .map_err(|e| ApiError::forbidden(e.to_string()))?;
    let snap = state
        .standings
        .get(&id.tournament)
        .ok_or_else(|| ApiError::not_found(format!("no tournament {}", id.tournament)))?;
    let t = &snap.tournament;
    let entry = t.games.get(&id).ok_or_else(|| {
        ApiError::not_found(format!("game {id} is not assigned in {}", id.tournament))
    })?;
    let recorded = entry
        .result
        .as_ref()
        .ok_or_else(|| ApiError::conflict(format!("the result of {id} is not recorded yet")))?;
    let winner = entry.winner().flatten();
    let seats: Vec<serde_json::Value> = recorded
        .facts
        .seats
        .iter()
        .map(|s| {
            let nickname = t
                .players
                .get(&s.player)
                .map_or_else(|| s.player.to_string(), |r| r.player.nickname.clone());
            // An appeal's changed result is the one inputs are for; what
            // the scheme allows each seat is the tournament crate's to say.
            let outcome = Outcome::of(winner, s.team());
            let penalties: Vec<_> = t
                .scheme
                .judge_penalties
                .iter()
                .filter(|p| p.applies(s.team(), outcome))
                .collect();
            json!({
                "seat": s.seat,
                "player": s.player,
                "nickname": nickname,
                "team": s.team(),
                "outcome": outcome,
                "extras": t.scheme.extras.allowed(outcome),
                "penalties": penalties,
            })
        })
        .collect();
    let inputs = entry.inputs.as_ref();
    Ok(Json(json!({
        "game": id,
        "tournament": t.name,
        "version": snap.version,
        "judge": entry.judge,
        "winner": winner,
        "annulled": entry.annulled,
        "best_move": recorded.facts.best_move.is_some(),
        "seats": seats,
        "inputs": inputs.map(|i| &i.inputs),
        "pending": inputs.map(|i| &i.pending),
    })))
}
