//! The raw feed's messages (FEED.md) as typed structs: what the hub
//! encodes, what GraphQL's resolvers and the shared subscriptions read
//! back, and what FEED.md's examples are checked against
//! (`tests/feed_doc.rs`).

use mafia_record::{GameId, Header};
use mafia_rules::view::Shown;
use mafia_rules::Deal;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What a game is, from its header: safe for every audience. `table` is
/// the physical table the game is played at.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameInfo {
    pub game_id: GameId,
    pub tournament: String,
    pub stage: String,
    pub round: u32,
    pub table: u32,
    pub game: u32,
    pub judge: String,
    /// A deal the referee drew: its commitment, published from the opening
    /// so anyone can check the seed revealed at the end (FORMAT.md,
    /// "Checking a deal"). Absent for cards and caller-chosen seeds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deal_commitment: Option<String>,
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
            deal_commitment: match &h.deal {
                Deal::Drawn(d) => d.commitment.map(|c| c.to_string()),
                Deal::Cards(_) | Deal::Seed(_) => None,
            },
        }
    }
}

/// A message of one game's feed (`/ws/game/{id}`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum GameFeed {
    /// The whole view: first, and after a cut-back.
    Snapshot {
        game_id: String,
        seq: u64,
        /// The engine's `GameView` for the audience.
        view: Value,
    },
    /// One event and the merge patch it made to the view.
    Delta {
        game_id: String,
        seq: u64,
        event: Shown,
        /// RFC 7386 merge patch from the previous view to this one.
        patch: Value,
    },
}

/// A message of the hall's feed (`/ws/hall`). Its names (`tables`,
/// `table`) are the feed's first ones, kept for the screens that read them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum HallFeed {
    /// Every game the caller may see.
    Tables { tables: Vec<HallEntry> },
    /// One game changed: its whole view.
    Table {
        game_id: String,
        /// What the game is, on the message that brings a game the hall
        /// learns of after its `tables` (seq 0, the game before its deal);
        /// absent on the game's later messages.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        info: Option<Box<GameInfo>>,
        seq: u64,
        view: Value,
    },
}

/// One game in a hall `tables` message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HallEntry {
    pub game_id: String,
    pub info: GameInfo,
    pub seq: u64,
    pub view: Value,
}

impl GameFeed {
    pub fn seq(&self) -> u64 {
        match self {
            GameFeed::Snapshot { seq, .. } | GameFeed::Delta { seq, .. } => *seq,
        }
    }
}

/// A message encoded once, to the bytes every subscriber shares.
pub fn encode<T: Serialize>(m: &T) -> bytes::Bytes {
    bytes::Bytes::from(serde_json::to_vec(m).expect("feed messages serialize"))
}
