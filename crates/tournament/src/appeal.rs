//! Appeals against a game (rfm §7, minsk2017 §8.6) and their audit trail.

use crate::model::{Actor, PlayerId};
use crate::points::Points;
use mafia_record::GameId;
use mafia_rules::Team;
use serde::{Deserialize, Serialize};

/// A points correction, e.g. rfm §7.1.1.4: a wrong removal's -1.2 taken back
/// is `+1.2`. Counted with the player's penalties.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Correction {
    pub player: PlayerId,
    pub points: Points,
    #[serde(default)]
    pub note: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AppealDecision {
    Rejected,
    /// rfm §7.1: the result is changed; `winner: null` makes it a draw.
    ResultChanged {
        winner: Option<Team>,
    },
    PointsCorrected {
        corrections: Vec<Correction>,
    },
    /// rfm §7.2: the game is replayed; this one no longer counts.
    Replay,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decided {
    pub decision: AppealDecision,
    pub reason: String,
    pub by: Actor,
    pub at: i64,
}

/// An appeal with who filed it, when, and how it was decided.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Appeal {
    pub id: u32,
    pub game: GameId,
    pub player: Option<PlayerId>,
    pub event_seq: Option<u32>,
    pub text: String,
    pub filed_by: Actor,
    pub filed_at: i64,
    pub decided: Option<Decided>,
}
