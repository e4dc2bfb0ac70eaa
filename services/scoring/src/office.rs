//! The tournament office's reads and checks (issue 37): summaries, the
//! list of tournaments, the detail an organiser or chief judge works from
//! (with the audit trail), the players CSV preview and the seating plan.
//! The gRPC handlers in `service.rs` only call in here.

use crate::csv::{self, Sheet};
use crate::roster;
use crate::store::{Store, StoreError};
use mafia_access::{Caller, Scope};
use mafia_proto::v1::{
    ListTournamentsReply, PlayersCsvPreview, PlayersCsvRow, RegisterPlayersCsvRequest, SeatingPlan,
    TournamentSummary,
};
use mafia_tournament::{Actor, Player, Tournament};
use serde_json::json;
use tonic::Status;

/// The tournament's summary; `detail` adds the office's view.
pub fn summary(t: &Tournament, detail: bool) -> TournamentSummary {
    TournamentSummary {
        id: t.id.to_string(),
        name: t.name.clone(),
        rules: serde_json::to_value(t.rules)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
        scheme: format!("{}@{}", t.scheme.id, t.scheme.version),
        version: t.version,
        players: t.players.len() as u32,
        games: t.games.len() as u32,
        scored_games: t.games.values().filter(|g| g.result.is_some()).count() as u32,
        archived: t.archived.is_some(),
        starts_on: t.dates.starts_on.clone().unwrap_or_default(),
        ends_on: t.dates.ends_on.clone().unwrap_or_default(),
        created_at_ms: t.created_at,
        detail_json: if detail {
            detail_json(t).to_string()
        } else {
            String::new()
        },
    }
}

/// Whether `caller` sees the office's view of `t`: an organiser or a chief
/// judge whose grant covers the whole tournament (it holds every game's
/// pending extras and every appeal's text).
pub fn sees_detail(caller: &Caller, t: &Tournament) -> bool {
    let whole = Scope::Tournament(t.id.clone());
    caller.may_organise(&whole).is_ok() || caller.may_rule(&whole).is_ok()
}

/// The office's view of a tournament as JSON (its shape is in
/// services/scoring/README.md, "GetTournament").
pub fn detail_json(t: &Tournament) -> serde_json::Value {
    let players: Vec<_> = t
        .players
        .values()
        .map(|r| {
            json!({
                "player": r.player,
                "registered_at": r.registered_at,
                "withdrawn_at": r.withdrawn_at,
            })
        })
        .collect();
    let rounds: Vec<_> = t
        .rounds
        .iter()
        .map(|((stage, round), r)| {
            json!({
                "stage": stage,
                "round": round,
                "seated_at": r.seated_at,
                "tables": r.tables.values().collect::<Vec<_>>(),
            })
        })
        .collect();
    let games: Vec<_> = t.games.values().map(game_json).collect();
    json!({
        "dates": t.dates,
        "archived_at": t.archived,
        "stages": t.stages,
        "judges": t.judges.values().collect::<Vec<_>>(),
        "players": players,
        "pair_rules": t.pair_rules,
        "rounds": rounds,
        "games": games,
        "appeals": t.appeals.values().collect::<Vec<_>>(),
        "audit": t.audit,
    })
}

fn game_json(g: &mafia_tournament::tournament::GameEntry) -> serde_json::Value {
    let state = match (&g.result, g.annulled) {
        (_, true) => "annulled",
        (None, false) => "opened",
        (Some(_), false) if g.confirmed.is_some() => "confirmed",
        (Some(_), false) => "finished",
    };
    let inputs = g.inputs.as_ref();
    json!({
        "game": g.id,
        "judge": g.judge,
        "assigned_at": g.assigned_at,
        "state": state,
        "ended_at": g.result.as_ref().map(|r| r.ended_at),
        "winner": g.winner(),
        "confirmed_at": g.confirmed,
        "inputs_given": inputs.is_some(),
        "pending": inputs.map(|i| i.pending.iter().collect::<Vec<_>>()).unwrap_or_default(),
        "refused": inputs.map(|i| i.refused.iter().collect::<Vec<_>>()).unwrap_or_default(),
    })
}

/// Every tournament the store holds but the removed ones, newest first;
/// archived ones only when asked.
pub async fn list(store: &Store, include_archived: bool) -> Result<ListTournamentsReply, Status> {
    let mut out = Vec::new();
    for id in store.list().await.map_err(crate::service::status)? {
        let h = match store.get(&id).await {
            Ok(h) => h,
            Err(StoreError::NotFound(_)) => continue,
            Err(e) => return Err(crate::service::status(e)),
        };
        let h = h.lock().await;
        if h.tournament.archived.is_some() && !include_archived {
            continue;
        }
        out.push(summary(&h.tournament, false));
    }
    out.sort_by(|a, b| {
        b.created_at_ms
            .cmp(&a.created_at_ms)
            .then_with(|| a.id.cmp(&b.id))
    });
    Ok(ListTournamentsReply { tournaments: out })
}

/// The players file of a request (`csv`, else `csv_bytes`), read off the
/// async workers; a file that cannot be read at all is INVALID_ARGUMENT.
pub async fn read_sheet(req: &RegisterPlayersCsvRequest) -> Result<Sheet, Status> {
    let (text, bytes) = (req.csv.clone(), req.csv_bytes.clone());
    tokio::task::spawn_blocking(move || {
        if text.is_empty() {
            csv::read_bytes(&bytes)
        } else {
            csv::read_text(&text)
        }
    })
    .await
    .map_err(|e| Status::internal(format!("players CSV: {e}")))?
    .map_err(|e| Status::invalid_argument(e.to_string()))
}

/// What registering the file would give, line by line; stores nothing.
pub fn preview(t: &Tournament, sheet: &Sheet, actor: &Actor) -> PlayersCsvPreview {
    let rows: Vec<PlayersCsvRow> = roster::resolve(t, sheet, actor)
        .into_iter()
        .map(|r| {
            let (error, error_ru) = r
                .row
                .problem
                .as_ref()
                .map(|p| (p.en(), p.ru()))
                .unwrap_or_default();
            PlayersCsvRow {
                line: r.row.line as u32,
                id: if r.row.nickname.is_empty() && r.id_made {
                    String::new()
                } else {
                    r.id
                },
                nickname: r.row.nickname,
                club: r.row.club.unwrap_or_default(),
                photo_url: r.row.photo_url.unwrap_or_default(),
                id_made: r.id_made,
                error,
                error_ru,
            }
        })
        .collect();
    PlayersCsvPreview {
        encoding: sheet.encoding.into(),
        separator: sheet.separator.to_string(),
        errors: rows.iter().filter(|r| !r.error.is_empty()).count() as u32,
        rows,
    }
}

/// The players to register, every row fine; else the first refused row.
pub fn players(
    t: &Tournament,
    sheet: &Sheet,
    actor: &Actor,
) -> Result<Vec<(usize, Player)>, StoreError> {
    let rows = roster::resolve(t, sheet, actor);
    if let Some(r) = rows.iter().find(|r| r.row.problem.is_some()) {
        let why = r.row.problem.as_ref().map(|p| p.en()).unwrap_or_default();
        return Err(StoreError::CsvRow {
            line: r.row.line,
            why,
        });
    }
    Ok(rows.iter().map(|r| (r.row.line, r.player())).collect())
}

fn to_json(v: serde_json::Result<String>) -> Result<String, Status> {
    v.map_err(|e| Status::internal(e.to_string()))
}

/// A seating plan on the wire: metrics that cannot be computed (the
/// proposal is not a seating) are empty strings.
pub fn seating_plan(plan: crate::seat_round::Plan) -> Result<SeatingPlan, Status> {
    let optional = |m: &Option<mafia_seating::Metrics>| match m {
        Some(m) => to_json(serde_json::to_string(m)),
        None => Ok(String::new()),
    };
    Ok(SeatingPlan {
        tables_json: to_json(serde_json::to_string(&plan.tables))?,
        metrics_json: optional(&plan.metrics)?,
        random_metrics_json: optional(&plan.random)?,
        problems: plan.problems,
        problems_ru: plan.problems_ru,
    })
}
