//! The live table board of a tournament's current round (issue 37, as
//! Bridgemate's scorer control shows a hall): each seated table with its
//! game's state (not opened; opened; in play, with its phase and the time
//! of its last command; finished, with what its scoring waits for), whether
//! its judge's console is connected, and alerts. Read from what the gateway
//! already holds: the hub's folded games and the board's folded
//! tournament; nothing is stored for it but the consoles' presence.
//!
//! "Console connected" is measured here, honestly and only here: the judge
//! console, while a game is open on it, asks `/judge-console/api/presence/
//! {game}` every few seconds with the table judge's credential; a table
//! whose game had such a request within [`PRESENCE_WINDOW`] has its console
//! connected. It says the page is open on that game and reaches the
//! gateway, not that the referee is reachable from it (the console shows
//! that to its judge).
//!
//! An organiser or a chief judge of the tournament reads it (401 without a
//! credential, 403 for any other), each in his own audience's view.

use std::time::{Duration, Instant};

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::get;
use axum::{Json, Router};
use mafia_access::{Caller, Role, Scope};
use mafia_record::{GameId, TournamentId};
use mafia_tournament::tournament::GameEntry;
use mafia_tournament::Tournament;
use serde_json::{json, Value};

use crate::app::{authorize, ApiError, AppState};
use crate::presence::PRESENCE_WINDOW;
use crate::ruling::{current_round, refused, tournament_of, TokenQuery};

/// A game in play with no command for this long is flagged idle.
pub const IDLE_AFTER: Duration = Duration::from_secs(5 * 60);

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/board/{tournament}", get(board))
        .route(
            "/judge-console/api/presence/{game}",
            get(presence).post(presence),
        )
}

/// The console's heartbeat: a table judge's credential for a game the hub
/// holds and he may judge. 204; 404 for a game not opened; 403 for others.
async fn presence(
    State(state): State<AppState>,
    Path(game): Path<String>,
    Query(q): Query<TokenQuery>,
    headers: HeaderMap,
) -> Result<StatusCode, ApiError> {
    let caller = authorize(&state, q.token.as_deref(), &headers)?;
    if caller.role() != Some(Role::TableJudge) {
        return Err(refused(
            &caller,
            "a console's presence is a table judge's".into(),
        ));
    }
    let id: GameId = game
        .parse()
        .map_err(|e| ApiError::bad_request(format!("game {game:?}: {e}")))?;
    caller
        .may_judge(&id)
        .map_err(|e| ApiError::forbidden(e.to_string()))?;
    if !state.hub.has_game(&id) {
        return Err(ApiError::not_found(format!("game {id} is not opened")));
    }
    state.presence.heard(&id, Instant::now());
    Ok(StatusCode::NO_CONTENT)
}

/// An organiser or a chief judge of the whole tournament, or a chief
/// judge of some of its games (who then sees those tables only).
fn reader(
    state: &AppState,
    q: Option<&str>,
    headers: &HeaderMap,
    t: &str,
) -> Result<Caller, ApiError> {
    let caller = authorize(state, q, headers)?;
    let ok = t.parse::<TournamentId>().is_ok_and(|id| {
        caller.may_organise(&Scope::Tournament(id.clone())).is_ok() || caller.rules_in(&id)
    });
    if !ok {
        return Err(refused(
            &caller,
            format!("only the organiser or a chief judge of tournament {t} reads its table board"),
        ));
    }
    Ok(caller)
}

/// The game now current at a table of the round: its latest game not
/// annulled (a replay's follows an annulled one), else game 1.
fn game_at(
    t: &Tournament,
    stage: &mafia_record::StageId,
    round: u32,
    table: u32,
) -> Option<GameId> {
    let latest = t
        .games
        .values()
        .filter(|g| {
            g.id.stage == *stage && g.id.round == round && g.id.table == table && !g.annulled
        })
        .map(|g| g.id.clone())
        .max_by_key(|g| g.game);
    latest.or_else(|| GameId::new(t.id.clone(), stage.clone(), round, table, 1).ok())
}

/// What a finished game's scoring waits for.
fn scoring_state(entry: Option<&GameEntry>) -> &'static str {
    match entry {
        Some(e) if e.result.is_some() => match &e.inputs {
            None => "awaiting_inputs",
            Some(i) if !i.pending.is_empty() => "awaiting_approval",
            Some(_) => "scored",
        },
        // The referee's log has the end; the scoring service records it.
        _ => "awaiting_result",
    }
}

/// Alerts the engine's view of a live game calls for (as the dashboard's).
fn view_alerts(view: &Value, out: &mut Vec<&'static str>) {
    let step = &view["step"];
    let kind = step["kind"].as_str().unwrap_or_default();
    let round = step["round"].as_u64().unwrap_or(0);
    if ((kind == "voting" || kind == "roll_call") && round > 1)
        || (kind == "speech" && step["tie"].as_bool() == Some(true))
    {
        out.push("tie");
    }
    if kind == "lift" {
        out.push("lift");
    }
    let removed = view["seats"].as_array().is_some_and(|seats| {
        seats.iter().any(|s| {
            matches!(
                s["departure"]["cause"].as_str(),
                Some("fouls" | "technical_fouls" | "disqualified")
            )
        })
    });
    if removed {
        out.push("removal");
    }
    if view["result"]["reason"].as_str() == Some("opposite_team_victory") {
        out.push("opposite_team_victory");
    }
}

fn table_line(
    state: &AppState,
    caller: &Caller,
    t: &Tournament,
    table: &mafia_tournament::SeatedTable,
    game: Option<GameId>,
    now: Instant,
    now_ms: i64,
) -> Value {
    let entry = game.as_ref().and_then(|g| t.games.get(g));
    let held = game
        .as_ref()
        .and_then(|g| state.hub.state(g, caller.audience()).ok());
    let mut alerts: Vec<&'static str> = Vec::new();
    let mut phase = Value::Null;
    let mut last_command_at = None;
    let status = match (&held, entry.and_then(|e| e.result.as_ref())) {
        (Some(s), _) if !s.over => {
            let before_deal = s.view["step"]["kind"].as_str() == Some("before_deal");
            if !before_deal {
                let g = game.as_ref().expect("held only with a game");
                last_command_at = state
                    .hub
                    .events(g, caller.audience(), s.seq.saturating_sub(1), 1)
                    .ok()
                    .and_then(|e| e.last().map(|e| e.at));
                phase = json!({
                    "day": s.view["when"].get("day"),
                    "night": s.view["when"].get("night"),
                    "step": s.view["step"]["kind"],
                });
                view_alerts(&s.view, &mut alerts);
                if last_command_at.is_some_and(|at| now_ms - at > IDLE_AFTER.as_millis() as i64) {
                    alerts.push("idle");
                }
            }
            if before_deal {
                "opened"
            } else {
                "in_play"
            }
        }
        (Some(s), _) => {
            view_alerts(&s.view, &mut alerts);
            "finished"
        }
        (None, Some(_)) => "finished",
        (None, None) => "not_opened",
    };
    let finished = (status == "finished").then(|| scoring_state(entry));
    if finished == Some("awaiting_approval") {
        alerts.push("awaiting_approval");
    }
    if entry.is_some_and(GameEntry::awaits_confirmation) {
        alerts.push("awaiting_confirmation");
    }
    if let Some(g) = &game {
        if t.appeals
            .values()
            .any(|a| &a.game == g && a.decided.is_none())
        {
            alerts.push("open_appeal");
        }
    }
    let heard = game
        .as_ref()
        .and_then(|g| state.presence.last_heard(g, now));
    let connected = heard.is_some_and(|d| d < PRESENCE_WINDOW);
    if matches!(status, "opened" | "in_play") && !connected {
        alerts.push("console_offline");
    }
    json!({
        "table": table.table,
        "judge": table.judge,
        "game": game,
        "status": status,
        "finished": finished,
        "phase": phase,
        "last_command_at": last_command_at,
        "console": { "connected": connected },
        "alerts": alerts,
        "result": held.as_ref().map(|s| &s.view["result"]).filter(|r| !r.is_null()),
        "protocol": game.as_ref().map(|g| format!("/api/protocol/{g}")),
    })
}

async fn board(
    State(state): State<AppState>,
    Path(tournament): Path<String>,
    Query(q): Query<TokenQuery>,
    headers: HeaderMap,
) -> Result<Json<Value>, ApiError> {
    let caller = reader(&state, q.token.as_deref(), &headers, &tournament)?;
    let snap = tournament_of(&state, &tournament)?;
    let t = &snap.tournament;
    let now = Instant::now();
    let now_ms = crate::hub::unix_ms();
    let Some((stage, round)) = current_round(t) else {
        return Ok(Json(json!({
            "tournament": t.id, "name": t.name, "version": snap.version,
            "stage": null, "round": null, "now_ms": now_ms, "tables": [],
        })));
    };
    let tables: Vec<Value> = t.rounds[&(stage.clone(), round)]
        .tables
        .values()
        .filter_map(|table| {
            let game = game_at(t, stage, round, table.table);
            if game.as_ref().is_some_and(|g| !caller.sees(g)) {
                return None;
            }
            Some(table_line(&state, &caller, t, table, game, now, now_ms))
        })
        .collect();
    Ok(Json(json!({
        "tournament": t.id,
        "name": t.name,
        "version": snap.version,
        "stage": stage,
        "round": round,
        "now_ms": now_ms,
        "tables": tables,
    })))
}
