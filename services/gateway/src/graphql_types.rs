//! The GraphQL schema's object types and how each is made from the typed
//! feed messages ([`crate::messages`]). The subscription types also
//! serialize (serde) under their GraphQL field names: the shared path
//! ([`crate::shared`]) selects from that JSON.

use async_graphql::{Json, SimpleObject};
use serde_json::Value;

use crate::hub::AudienceEvent;
use crate::messages::{GameFeed, HallFeed};

/// A game, as its header describes it; `table` is the physical table it
/// is played at.
#[derive(SimpleObject, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GameInfo {
    pub game_id: String,
    pub tournament: String,
    pub stage: String,
    pub round: u32,
    pub table: u32,
    pub game: u32,
    pub judge: String,
    /// The commitment (64 hex digits) to a deal the referee drew; the seed
    /// and salt come with the game's end (`deal_revealed`).
    pub deal_commitment: Option<String>,
}

impl From<crate::hub::GameInfo> for GameInfo {
    fn from(t: crate::hub::GameInfo) -> Self {
        GameInfo {
            game_id: t.game_id.to_string(),
            tournament: t.tournament,
            stage: t.stage,
            round: t.round,
            table: t.table,
            game: t.game,
            judge: t.judge,
            deal_commitment: t.deal_commitment,
        }
    }
}

/// A game's state in the caller's audience.
#[derive(SimpleObject)]
pub struct GameState {
    pub game: GameInfo,
    /// The audience's sequence number of the last event in `view`.
    pub seq: u64,
    pub over: bool,
    /// The rules engine's GameView (see FEED.md).
    pub view: Json<Value>,
}

/// One event in the caller's audience.
#[derive(SimpleObject, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GameEvent {
    pub seq: u64,
    /// Milliseconds since the Unix epoch.
    pub at: i64,
    /// The command number; judges and broadcast only.
    pub cmd: Option<u32>,
    /// The event's `type`, e.g. `nominated`.
    pub kind: String,
    /// The whole event (FEED.md).
    pub event: Json<Value>,
}

impl From<&AudienceEvent> for GameEvent {
    fn from(e: &AudienceEvent) -> GameEvent {
        let event = serde_json::to_value(e.event).expect("events serialize");
        GameEvent {
            seq: u64::from(e.seq),
            at: e.at,
            cmd: e.cmd,
            kind: event["type"].as_str().unwrap_or_default().to_owned(),
            event: Json(event),
        }
    }
}

/// A message of a game's feed: `snapshot` (with `view`) or `delta` (with
/// `event` and `patch`, a JSON merge patch of the view).
#[derive(SimpleObject, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FeedMessage {
    pub kind: String,
    pub game_id: String,
    pub seq: u64,
    pub view: Option<Json<Value>>,
    pub event: Option<GameEvent>,
    pub patch: Option<Json<Value>>,
}

/// A message of the hall's feed of every game: `tables` (every game) or
/// `table` (one game changed), the raw hall feed's message types.
#[derive(SimpleObject, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HallMessage {
    pub kind: String,
    pub games: Vec<HallGame>,
}

/// One game in a hall message.
#[derive(SimpleObject, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HallGame {
    pub game_id: String,
    /// What the game is: on every game of `tables`, and on the `table`
    /// message that brings a game opened since; null on its later ones.
    pub info: Option<GameInfo>,
    pub seq: u64,
    pub view: Json<Value>,
}

/// A tournament's games, by round.
#[derive(SimpleObject)]
pub struct Tournament {
    pub name: String,
    pub rounds: Vec<Round>,
}

#[derive(SimpleObject)]
pub struct Round {
    pub number: u32,
    pub games: Vec<GameInfo>,
}

/// The protocol of a finished game: every event, hidden ones included.
#[derive(SimpleObject)]
pub struct Protocol {
    pub game: GameInfo,
    pub events: Vec<GameEvent>,
}

impl From<GameFeed> for FeedMessage {
    fn from(m: GameFeed) -> FeedMessage {
        match m {
            GameFeed::Snapshot { game_id, seq, view } => FeedMessage {
                kind: "snapshot".into(),
                game_id,
                seq,
                view: Some(Json(view)),
                event: None,
                patch: None,
            },
            GameFeed::Delta {
                game_id,
                seq,
                event,
                patch,
            } => FeedMessage {
                kind: "delta".into(),
                game_id,
                seq,
                view: None,
                event: Some(GameEvent::from(&event)),
                patch: Some(Json(patch)),
            },
        }
    }
}

impl From<HallFeed> for HallMessage {
    fn from(m: HallFeed) -> HallMessage {
        match m {
            HallFeed::Tables { tables } => HallMessage {
                kind: "tables".into(),
                games: tables
                    .into_iter()
                    .map(|t| HallGame {
                        game_id: t.game_id,
                        info: Some(t.info.into()),
                        seq: t.seq,
                        view: Json(t.view),
                    })
                    .collect(),
            },
            HallFeed::Table {
                game_id,
                info,
                seq,
                view,
            } => HallMessage {
                kind: "table".into(),
                games: vec![HallGame {
                    game_id,
                    info: info.map(|i| GameInfo::from(*i)),
                    seq,
                    view: Json(view),
                }],
            },
        }
    }
}
