//! What the hub tells about a table: its identity, its state and its
//! events as one audience sees them.

use mafia_record::Header;
use serde::Serialize;
use serde_json::Value;

/// What a table is, from its header: safe for every audience.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TableInfo {
    pub game_id: String,
    pub tournament: String,
    pub stage: String,
    pub round: u32,
    pub table: u32,
    pub game: u32,
    pub judge: String,
}

impl TableInfo {
    pub(crate) fn new(game_id: &str, h: &Header) -> Self {
        TableInfo {
            game_id: game_id.to_owned(),
            tournament: h.tournament.clone(),
            stage: h.stage.clone(),
            round: h.round,
            table: h.table,
            game: h.game,
            judge: h.judge.clone(),
        }
    }
}

/// One game as an audience sees it right now.
#[derive(Clone, Debug)]
pub struct TableState {
    pub info: TableInfo,
    /// The audience's sequence number of the last event in `view`.
    pub seq: u64,
    /// The engine's `GameView` for the audience as JSON.
    pub view: Value,
    pub over: bool,
}

/// One event as an audience sees it, numbered in that audience's sequence:
/// the engine's form, forwarded as it is (no `cmd` for the public).
pub type AudienceEvent = mafia_rules::view::Shown;
