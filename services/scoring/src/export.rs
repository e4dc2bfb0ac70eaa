//! `Export`: a tournament's files (`mafia_tournament::export`) over gRPC,
//! the same bytes as `mafia export` and the gateway's `/export/`.

use mafia_access::{Caller, Scope};
use mafia_proto::v1::{ExportKind, ExportReply, ExportRequest};
use mafia_record::StageId;
use mafia_tournament::{export, standings, HistoryLine, Points, Standings, Tournament};
use tonic::Status;

/// What `caller` may see of the standings: only a chief judge of the whole
/// tournament sees the extras still waiting for approval (a player's sum
/// mixes every game's).
pub fn standings_for(caller: &Caller, t: &Tournament) -> Standings {
    let s = standings(t);
    if caller.may_rule(&Scope::Tournament(t.id.clone())).is_ok() {
        s
    } else {
        export::public_standings(s)
    }
}

/// A player's games, the extras waiting for approval shown only on the
/// games `caller` rules on.
pub fn history_for(caller: &Caller, mut lines: Vec<HistoryLine>) -> Vec<HistoryLine> {
    for l in &mut lines {
        if caller.may_rule(&Scope::Game(l.game.clone())).is_err() {
            l.extra_pending = Points::ZERO;
        }
    }
    lines
}

#[allow(clippy::result_large_err)] // tonic's Status is the handler's answer
pub fn export_file(
    caller: &Caller,
    t: &Tournament,
    req: &ExportRequest,
) -> Result<ExportReply, Status> {
    let chief = caller.may_rule(&Scope::Tournament(t.id.clone())).is_ok();
    let points = || {
        let g = export::game_points(t);
        if chief {
            g
        } else {
            export::public_game_points(g)
        }
    };
    const CSV: &str = "text/csv; charset=utf-8";
    const JSON: &str = "application/json";
    let (content, content_type, name) = match req.kind() {
        ExportKind::Unspecified => {
            return Err(Status::invalid_argument(
                "export kind: standings or games as csv or json, or seating_html",
            ))
        }
        ExportKind::StandingsCsv => (
            export::standings_csv(&standings_for(caller, t)),
            CSV,
            "standings.csv".to_string(),
        ),
        ExportKind::StandingsJson => (
            export::standings_json(&standings_for(caller, t)),
            JSON,
            "standings.json".to_string(),
        ),
        ExportKind::GamesCsv => (export::games_csv(&points()), CSV, "games.csv".to_string()),
        ExportKind::GamesJson => (
            export::games_json(&points()),
            JSON,
            "games.json".to_string(),
        ),
        ExportKind::SeatingHtml => {
            let stage = match req.stage.as_str() {
                "" => None,
                s => Some(
                    StageId::new(s)
                        .map_err(|e| Status::invalid_argument(format!("stage {s:?}: {e}")))?,
                ),
            };
            let html = export::seating_html(t, stage.as_ref(), req.round)
                .map_err(|e| Status::failed_precondition(e.to_string()))?;
            (
                html,
                "text/html; charset=utf-8",
                format!("seating-r{}.html", req.round),
            )
        }
    };
    Ok(ExportReply {
        version: t.version,
        content_type: content_type.into(),
        file_name: format!("{}-{name}", t.id),
        content: content.into_bytes(),
    })
}
