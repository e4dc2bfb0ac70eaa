//! What the hub tells about a game: its identity, its state and its
//! events as one audience sees them.

use serde_json::Value;

pub use crate::messages::GameInfo;

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
