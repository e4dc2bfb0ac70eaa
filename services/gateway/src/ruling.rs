//! What the chief judge rules on, as JSON for his pages (`assets/ruling.js`
//! on the dashboard and in the office): each pending approval with the
//! clause it concerns and its game's context, every appeal with its filed
//! text and game, the games whose result waits for his confirmation, the
//! standings' ties with the criterion that settled each, the current
//! round's seating (for swaps), and the audit trail of who ruled what,
//! when and why, read from the tournament's stream. Also a game's state at
//! the moment an appeal disputes, replayed from the log as `mafia state`
//! shows it. The gateway only reads: every decision goes to the scoring
//! service's `Command` RPC, which alone checks and stores it.
//!
//! Only a chief judge of the tournament reads these (401 without a
//! credential, 403 for any other), and of its games only those he rules
//! on (`Caller::may_rule`).

use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use axum::routing::get;
use axum::{Json, Router};
use mafia_access::{Caller, Scope};
use mafia_record::{GameId, Header, LoggedEvent, TournamentId};
use mafia_rules::{Audience, Envelope, Game};
use mafia_tournament::tournament::GameEntry;
use mafia_tournament::{stored, ApprovalItem, Tournament};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::app::{authorize, ApiError, AppState};
use crate::board::Snapshot;

/// The chief judge's dashboard (its scoring service's gRPC-web URL written
/// in, as the console's) and the modules the dashboard and the office
/// share, the same bytes for everyone.
pub const RULING_ASSETS: &[(&str, &str, &str)] = &[
    (
        "/assets/ruling.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/ruling.js"),
    ),
    (
        "/assets/office_board.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/office_board.js"),
    ),
];

const DASHBOARD: &str = include_str!("../assets/judge.html");

/// The dashboard as served: the scoring service's URL in its meta tag.
pub fn dashboard(config: &crate::app::ConsoleConfig) -> String {
    DASHBOARD.replace(
        "{{SCORING_URL}}",
        &crate::console::attribute(config.scoring_url.as_deref().unwrap_or("")),
    )
}

pub fn pages() -> Router<AppState> {
    crate::assets::embedded(RULING_ASSETS).route(
        "/judge",
        get(|State(state): State<AppState>| async move {
            use axum::http::header;
            use axum::response::IntoResponse;
            (
                [
                    (header::CONTENT_TYPE, "text/html; charset=utf-8"),
                    (header::CACHE_CONTROL, "no-cache"),
                ],
                [(
                    header::CONTENT_SECURITY_POLICY,
                    state.pages.content_security_policy(),
                )],
                dashboard(&state.console),
            )
                .into_response()
        }),
    )
}

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/ruling/{tournament}", get(ruling))
        .route("/api/ruling/{tournament}/state/{game}", get(state_at))
        .route("/api/protocol/{game}", get(protocol))
}

/// Audit entries one answer holds at most, newest kept.
pub const MAX_AUDIT: usize = 500;

/// Events of a tournament's stream read per call while building the audit.
const READ_BATCH: usize = 1000;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenQuery {
    pub token: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StateQuery {
    pub token: Option<String>,
    /// The disputed event's sequence number in the game's log.
    pub seq: u32,
}

/// 401 for a caller with no credential, 403 for one whose credential is not
/// enough: the statuses every route of the chief judge's and the
/// organiser's pages answer with.
pub fn refused(caller: &Caller, why: String) -> ApiError {
    if caller.role().is_none() {
        ApiError::unauthorized(why)
    } else {
        ApiError::forbidden(why)
    }
}

/// The tournament named in the URL, as the board holds it.
pub fn tournament_of(state: &AppState, text: &str) -> Result<Snapshot, ApiError> {
    let id: TournamentId = text
        .parse()
        .map_err(|e| ApiError::bad_request(format!("bad tournament id {text:?}: {e}")))?;
    state
        .standings
        .get(&id)
        .ok_or_else(|| ApiError::not_found(format!("no tournament {id}")))
}

/// A chief judge of some game of `t`, else refused.
fn chief(
    state: &AppState,
    q: Option<&str>,
    headers: &HeaderMap,
    t: &str,
) -> Result<Caller, ApiError> {
    let caller = authorize(state, q, headers)?;
    let ok = t
        .parse::<TournamentId>()
        .is_ok_and(|id| caller.rules_in(&id));
    if !ok {
        return Err(refused(
            &caller,
            format!("only a chief judge of tournament {t} reads what waits for his ruling"),
        ));
    }
    Ok(caller)
}

fn rules_on(caller: &Caller, game: &GameId) -> bool {
    caller.may_rule(&Scope::Game(game.clone())).is_ok()
}

/// The rulebook's clause an approval item concerns, as the tournament's
/// scheme cites it (rfm §6.4.2, §6.4.4, §6.4.6 for rfm's).
pub fn clause(t: &Tournament, item: &ApprovalItem) -> String {
    let extras = &t.scheme.extras;
    match item {
        ApprovalItem::ExtraValue { .. } => extras.need_approval_clause.clone(),
        ApprovalItem::GameSum { .. } => extras
            .game_sum
            .as_ref()
            .map(|c| c.clause.clone())
            .unwrap_or_default(),
        ApprovalItem::Rewarded { .. } => extras
            .rewarded
            .as_ref()
            .map(|c| c.clause.clone())
            .unwrap_or_default(),
    }
}

fn nickname(t: &Tournament, player: &mafia_tournament::PlayerId) -> String {
    t.players
        .get(player)
        .map_or_else(|| player.to_string(), |r| r.player.nickname.clone())
}

/// A game as the chief judge needs it beside an item or an appeal: where
/// and by whom it was judged, its result (an appeal's change included),
/// each seat's player, role and departure, and the judge's inputs.
pub fn game_context(state: &AppState, t: &Tournament, entry: &GameEntry) -> Value {
    let id = &entry.id;
    let seats: Vec<Value> = entry
        .result
        .as_ref()
        .map(|r| {
            r.facts
                .seats
                .iter()
                .map(|s| {
                    json!({
                        "seat": s.seat,
                        "player": s.player,
                        "nickname": nickname(t, &s.player),
                        "role": s.role,
                        "out": s.out,
                        "fouls": s.fouls,
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    let inputs = entry.inputs.as_ref().map(|i| {
        json!({
            "inputs": i.inputs,
            "pending": i.pending,
            "approved": i.approved.iter().map(|(item, at)| json!({"item": item, "at": at})).collect::<Vec<_>>(),
            "by": i.by,
            "at": i.at,
        })
    });
    json!({
        "game": id,
        "tournament_name": t.name,
        "stage": id.stage,
        "round": id.round,
        "table": id.table,
        "game_no": id.game,
        "judge": entry.judge,
        "opened": state.hub.has_game(id),
        "scored": entry.result.is_some(),
        "ended_at": entry.result.as_ref().map(|r| r.ended_at),
        "winner": entry.winner(),
        "winner_changed": entry.winner_override.is_some(),
        "annulled": entry.annulled,
        "corrections": entry.corrections,
        "seats": seats,
        "inputs": inputs,
        "protocol": format!("/api/protocol/{id}"),
    })
}

/// The latest seated round (stages in the order added, rounds by number):
/// the round the day is at.
pub fn current_round(t: &Tournament) -> Option<(&mafia_record::StageId, u32)> {
    t.stages.iter().rev().find_map(|s| {
        t.rounds
            .keys()
            .filter(|(st, _)| st == &s.id)
            .map(|(_, r)| *r)
            .max()
            .map(|r| (&s.id, r))
    })
}

/// The tables a seat swap may still touch: of the latest seated round
/// (stages in the order added, rounds by number) that has some, those
/// with no game assigned yet (a game's header holds its seating once it is
/// opened, and the tournament refuses a swap there). `null` when none.
fn seating(t: &Tournament) -> Value {
    let assigned = |stage: &mafia_record::StageId, round: u32, table: u32| {
        t.games
            .keys()
            .any(|g| &g.stage == stage && g.round == round && g.table == table)
    };
    let open = t.stages.iter().rev().find_map(|s| {
        t.rounds
            .iter()
            .filter(|((st, _), _)| st == &s.id)
            .rev()
            .find_map(|((stage, round), r)| {
                let free: Vec<_> = r
                    .tables
                    .values()
                    .filter(|table| !assigned(stage, *round, table.table))
                    .collect();
                (!free.is_empty()).then_some((stage, *round, free))
            })
    });
    let Some((stage, round, free)) = open else {
        return Value::Null;
    };
    let tables: Vec<Value> = free
        .into_iter()
        .map(|table| {
            let seats: Vec<Value> = table
                .seats
                .iter()
                .enumerate()
                .map(|(i, p)| json!({"seat": i + 1, "player": p, "nickname": nickname(t, p)}))
                .collect();
            json!({"table": table.table, "judge": table.judge, "seats": seats})
        })
        .collect();
    json!({"stage": stage, "round": round, "tables": tables})
}

/// The standings as the chief judge sees them, each row with the
/// criterion that ranked it below the row above when their totals are
/// equal (`mafia_tournament::standings::deciders`), and the groups
/// waiting for a lot.
fn standings(t: &Tournament) -> Value {
    let s = mafia_tournament::standings(t);
    let deciders = mafia_tournament::standings::deciders(t, &s);
    let rows: Vec<Value> = s
        .rows
        .iter()
        .zip(deciders)
        .map(|(r, d)| {
            json!({
                "rank": r.rank,
                "player": r.player,
                "nickname": r.nickname,
                "games": r.games,
                "total": r.points.total,
                "tie": r.tie,
                "decided_by": d,
            })
        })
        .collect();
    json!({"rows": rows, "awaiting_lot": s.awaiting_lot, "tie_breaks": t.scheme.tie_breaks})
}

/// Every ruling-related event of the tournament's stream (anything some
/// person did to its games: inputs, approvals, refusals, appeals, swaps,
/// lots, confirmations), with who, when and why, newest last, at most
/// [`MAX_AUDIT`]; the set-up (players, stages, seating, assignments) and
/// the results the referee's log gives are left out.
async fn audit(state: &AppState, caller: &Caller, t: &Tournament) -> Result<Vec<Value>, ApiError> {
    const SETUP: &[&str] = &[
        "created",
        "judge_added",
        "stage_added",
        "player_registered",
        "player_withdrawn",
        "round_seated",
        "game_assigned",
        "game_result_recorded",
        "pair_rules_set",
        "standings_published",
    ];
    let hub = state.hub.clone();
    let (_, log) = hub.lag();
    let stream = stored::stream_of(&t.id);
    let mut out = std::collections::VecDeque::new();
    let mut next = 1;
    loop {
        let batch = log
            .read(&stream, next, READ_BATCH)
            .await
            .map_err(|_| ApiError::unavailable("event log unavailable".into()))?;
        let Some(last) = batch.last() else { break };
        next = last.seq + 1;
        for e in &batch {
            let Ok(mut v) = serde_json::from_slice::<Value>(&e.payload) else {
                continue;
            };
            let kind = v["type"].as_str().unwrap_or_default();
            if SETUP.contains(&kind) {
                continue;
            }
            // A game-bound entry only for a chief judge who rules on it.
            let game = v["game"]
                .as_str()
                .and_then(|g| g.parse::<GameId>().ok())
                .or_else(|| {
                    v["appeal"]
                        .as_u64()
                        .and_then(|a| t.appeals.get(&(a as u32)))
                        .map(|a| a.game.clone())
                });
            if game.as_ref().is_some_and(|g| !rules_on(caller, g)) {
                continue;
            }
            v["seq"] = json!(e.seq);
            if let Some(g) = game {
                v["game"] = json!(g);
            }
            out.push_back(v);
            if out.len() > MAX_AUDIT {
                out.pop_front();
            }
        }
        if batch.len() < READ_BATCH {
            break;
        }
    }
    Ok(out.into())
}

/// The games whose result waits for the chief judge's confirmation
/// (rfm §7.4): scored and not yet confirmed.
fn confirmations(state: &AppState, caller: &Caller, t: &Tournament) -> Vec<Value> {
    t.games
        .values()
        .filter(|g| g.awaits_confirmation() && rules_on(caller, &g.id))
        .map(|g| game_context(state, t, g))
        .collect()
}

async fn ruling(
    State(state): State<AppState>,
    Path(tournament): Path<String>,
    Query(q): Query<TokenQuery>,
    headers: HeaderMap,
) -> Result<Json<Value>, ApiError> {
    let caller = chief(&state, q.token.as_deref(), &headers, &tournament)?;
    let snap = tournament_of(&state, &tournament)?;
    let t = &snap.tournament;
    let approvals: Vec<Value> = t
        .pending_approvals()
        .into_iter()
        .filter(|(g, _)| rules_on(&caller, g))
        .map(|(g, item)| {
            let v = serde_json::to_value(&item).unwrap_or_default();
            json!({
                "game": g,
                "kind": v["item"],
                "item": v,
                "clause": clause(t, &item),
                "context": t.games.get(&g).map(|e| game_context(&state, t, e)),
            })
        })
        .collect();
    let appeals: Vec<Value> = t
        .appeals
        .values()
        .filter(|a| rules_on(&caller, &a.game))
        .map(|a| {
            json!({
                "id": a.id,
                "game": a.game,
                "player": a.player,
                "nickname": a.player.as_ref().map(|p| nickname(t, p)),
                "event_seq": a.event_seq,
                "text": a.text,
                "filed_by": a.filed_by,
                "filed_at": a.filed_at,
                "decided": a.decided.as_ref().map(|d| json!({
                    "kind": serde_json::to_value(&d.decision).ok().and_then(|v| v["kind"].as_str().map(str::to_owned)),
                    "decision": d.decision,
                    "reason": d.reason,
                    "by": d.by,
                    "at": d.at,
                })),
                "context": t.games.get(&a.game).map(|e| game_context(&state, t, e)),
            })
        })
        .collect();
    let whole = caller.may_rule(&Scope::Tournament(t.id.clone())).is_ok();
    Ok(Json(json!({
        "tournament": t.id,
        "name": t.name,
        "version": snap.version,
        "scheme": t.scheme.id,
        "approvals": approvals,
        "appeals": appeals,
        "confirmations": confirmations(&state, &caller, t),
        "seating": if whole { seating(t) } else { Value::Null },
        "standings": if whole { standings(t) } else { Value::Null },
        "audit": audit(&state, &caller, t).await?,
    })))
}

/// The game's state just before and just after the event at `seq`, as the
/// judges' view shows it (`mafia state`), replayed from the game's log; a
/// chief judge who rules on the game only.
async fn state_at(
    State(state): State<AppState>,
    Path((tournament, game)): Path<(String, String)>,
    Query(q): Query<StateQuery>,
    headers: HeaderMap,
) -> Result<Json<Value>, ApiError> {
    let caller = chief(&state, q.token.as_deref(), &headers, &tournament)?;
    let id: GameId = game
        .parse()
        .map_err(|e| ApiError::bad_request(format!("game {game:?}: {e}")))?;
    if id.tournament.as_str() != tournament {
        return Err(ApiError::bad_request(format!(
            "game {id} is not of tournament {tournament}"
        )));
    }
    if !rules_on(&caller, &id) {
        return Err(ApiError::forbidden(format!(
            "this token does not rule on game {id}"
        )));
    }
    if q.seq == 0 {
        return Err(ApiError::bad_request("seq counts events from 1".into()));
    }
    let (setup, events) = game_log(&state, &id, Some(q.seq as usize)).await?;
    let setup = setup
        .setup()
        .map_err(|e| ApiError::conflict(format!("game {id}: {e}")))?;
    let Some((disputed, before)) = events.split_last() else {
        return Err(ApiError::not_found(format!("game {id} has no events yet")));
    };
    if disputed.seq != q.seq {
        return Err(ApiError::not_found(format!(
            "game {id} has {} events, not {}",
            events.len(),
            q.seq
        )));
    }
    let replayed = |events: &[Envelope]| {
        Game::replay(setup.clone(), events)
            .map(|g| g.view(Audience::Judge))
            .map_err(|e| ApiError::conflict(format!("game {id} does not replay: {e}")))
    };
    Ok(Json(json!({
        "game": id,
        "seq": q.seq,
        "event": disputed,
        "before": replayed(before)?,
        "after": replayed(&events)?,
    })))
}

/// A game's header and its first `max` events (all when `None`), from the
/// log: a game that left the hub's memory is still there.
async fn game_log(
    state: &AppState,
    id: &GameId,
    max: Option<usize>,
) -> Result<(Header, Vec<Envelope>), ApiError> {
    let hub = state.hub.clone();
    let (_, log) = hub.lag();
    let unavailable = |_| ApiError::unavailable("event log unavailable".into());
    let text = id.to_string();
    let header = log
        .header(&text)
        .await
        .map_err(unavailable)?
        .ok_or_else(|| ApiError::not_found(format!("game {id} is not in the log")))?;
    let header = serde_json::from_slice::<Header>(&header)
        .map_err(|e| ApiError::conflict(format!("game {id}: its header cannot be read: {e}")))?;
    let mut events = Vec::new();
    let want = max.unwrap_or(usize::MAX);
    while events.len() < want {
        let batch = log
            .read(
                &text,
                events.len() as u64 + 1,
                (want - events.len()).min(READ_BATCH),
            )
            .await
            .map_err(unavailable)?;
        if batch.is_empty() {
            break;
        }
        for e in &batch {
            let logged = serde_json::from_slice::<LoggedEvent>(&e.payload).map_err(|e| {
                ApiError::conflict(format!("game {id}: an event cannot be read: {e}"))
            })?;
            events.push(logged.envelope);
        }
    }
    Ok((header, events))
}

/// A game's paper protocol (minsk2017 §9) as HTML: for a chief judge who
/// rules on it at any time, for the organiser once it is over (before, its
/// hidden facts are the judges' alone).
async fn protocol(
    State(state): State<AppState>,
    Path(game): Path<String>,
    Query(q): Query<TokenQuery>,
    headers: HeaderMap,
) -> Result<axum::response::Response, ApiError> {
    use axum::response::IntoResponse;
    let caller = authorize(&state, q.token.as_deref(), &headers)?;
    let id: GameId = game
        .parse()
        .map_err(|e| ApiError::bad_request(format!("game {game:?}: {e}")))?;
    let chief = rules_on(&caller, &id);
    if !chief && caller.may_organise(&Scope::Game(id.clone())).is_err() {
        return Err(refused(
            &caller,
            format!("only a chief judge or the organiser of game {id} reads its protocol"),
        ));
    }
    let (header, events) = game_log(&state, &id, None).await?;
    let setup = header
        .setup()
        .map_err(|e| ApiError::conflict(format!("game {id}: {e}")))?;
    let game = Game::replay(setup, &events)
        .map_err(|e| ApiError::conflict(format!("game {id} does not replay: {e}")))?;
    if !chief && game.result().is_none() {
        return Err(ApiError::forbidden(format!(
            "game {id} is not over: its protocol is the judges' until then"
        )));
    }
    let html = mafia_record::protocol::Protocol::new(&header, &game, &events).to_html();
    Ok((
        [(axum::http::header::CONTENT_TYPE, "text/html; charset=utf-8")],
        html,
    )
        .into_response())
}
