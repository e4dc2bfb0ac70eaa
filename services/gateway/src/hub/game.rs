//! What the hub tells about a game: its identity, its state and its
//! events as one audience sees them.

use mafia_record::{GameId, Header};
use serde::Serialize;
use serde_json::Value;

/// What a game is, from its header: safe for every audience. `table` is
/// the physical table the game is played at.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GameInfo {
    pub game_id: GameId,
    pub tournament: String,
    pub stage: String,
    pub round: u32,
    pub table: u32,
    pub game: u32,
    pub judge: String,
}

impl GameInfo {
    pub(crate) fn new(game_id: &GameId, h: &Header) -> Self {
        GameInfo {
            game_id: game_id.clone(),
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
pub struct GameState {
    pub info: GameInfo,
    /// The audience's sequence number of the last event in `view`.
    pub seq: u64,
    /// The engine's `GameView` for the audience as JSON.
    pub view: Value,
    pub over: bool,
}

/// One event as an audience sees it, numbered in that audience's sequence:
/// the engine's form, forwarded as it is (no `cmd` for the public).
pub type AudienceEvent = mafia_rules::view::Shown;
