//! A game of a tournament the scoring service holds opens only as that
//! tournament assigned it, with the players its round seated at that table
//! in seat order: a judge's credential cannot open games the tournament
//! never planned (each would cost every hall screen and the log), and a
//! game whose header disagrees with the round is refused before it is
//! played, naming what differs, instead of never being scored.

use mafia_event_log::EventLog;
use mafia_record::{GameId, Header};
use mafia_tournament::{stored, Tournament};

use crate::error::RefereeError;

/// Events read per call while folding a tournament's log.
const READ_BATCH: usize = 1024;

/// The tournament `game` belongs to, folded from its log, or `None` when
/// the scoring service does not hold it.
pub async fn tournament_of(
    log: &dyn EventLog,
    game: &GameId,
) -> Result<Option<Tournament>, RefereeError> {
    let stream = stored::stream_of(&game.tournament);
    let Some(header) = log.header(&stream).await? else {
        return Ok(None);
    };
    let mut events = Vec::new();
    loop {
        let batch = log
            .read(&stream, events.len() as u64 + 1, READ_BATCH)
            .await?;
        if batch.is_empty() {
            break;
        }
        events.extend(batch.into_iter().map(|e| e.payload));
    }
    stored::fold_stored(&header, events.iter().map(|b| &b[..]))
        .map(Some)
        .map_err(|e| RefereeError::Tournament(format!("tournament {}: {e}", game.tournament)))
}

/// Why `header` may not open `game` in `t`, if it may not.
pub fn disagreement(t: &Tournament, game: &GameId, header: &Header) -> Option<String> {
    let assigned = t.games.get(game).filter(|g| !g.annulled);
    if assigned.is_none() {
        return Some(format!(
            "game {game} is not assigned in tournament {}: its games open as the scoring service assigns them (OpenRound)",
            game.tournament
        ));
    }
    let Some(table) = t.table_of(game) else {
        return Some(format!(
            "round {} of stage {} seats no table {}",
            game.round, game.stage, game.table
        ));
    };
    let seated: Vec<&str> = table.seats.iter().map(|p| p.as_str()).collect();
    if header.rules.id != t.rules {
        return Some(format!(
            "the header's rules are {}, tournament {}'s {}",
            header.rules.id, game.tournament, t.rules
        ));
    }
    let given: Vec<&str> = header.seats.iter().map(|p| p.player_id.as_str()).collect();
    if seated.len() != given.len() {
        return Some(format!(
            "the round seats {} players at table {}, the header {}",
            seated.len(),
            game.table,
            given.len()
        ));
    }
    let differ: Vec<String> = seated
        .iter()
        .zip(&given)
        .enumerate()
        .filter(|(_, (s, g))| s != g)
        .map(|(i, (s, g))| format!("seat {}: the round seats {s}, the header {g}", i + 1))
        .collect();
    (!differ.is_empty()).then(|| {
        format!(
            "the header disagrees with round {} of stage {} at table {}: {}",
            game.round,
            game.stage,
            game.table,
            differ.join("; ")
        )
    })
}
