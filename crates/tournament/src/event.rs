//! Tournament events: the facts a tournament's log is made of. Folding them
//! rebuilds the tournament; `Tournament::command` is the only producer.

use crate::appeal::AppealDecision;
use crate::facts::GameFacts;
use crate::inputs::{ApprovalItem, JudgeInputs};
use crate::model::{Actor, Judge, JudgeId, PairRule, Place, Player, PlayerId, SeatedTable, Stage};
use crate::scheme::Scheme;
use mafia_record::{GameId, StageId, TournamentId};
use mafia_rules::RuleSetId;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TournamentEvent {
    Created {
        id: TournamentId,
        name: String,
        rules: RuleSetId,
        /// Overrides of the rule set's parameters, as `RuleSet::with_overrides` takes them.
        #[serde(default)]
        rule_overrides: serde_json::Value,
        /// The whole scheme, so the log scores as it did when written. Boxed:
        /// it is much larger than any other event.
        scheme: Box<Scheme>,
        /// Absent in logs written before tournaments had dates.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        starts_on: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ends_on: Option<String>,
        at: i64,
    },
    JudgeAdded {
        judge: Judge,
        at: i64,
    },
    StageAdded {
        stage: Stage,
        at: i64,
    },
    PlayerRegistered {
        player: Player,
        at: i64,
    },
    PlayerWithdrawn {
        player: PlayerId,
        at: i64,
    },
    PlayerUpdated {
        player: Player,
        at: i64,
    },
    RoundSeated {
        stage: StageId,
        round: u32,
        tables: Vec<SeatedTable>,
        by: Actor,
        at: i64,
    },
    SeatsSwapped {
        stage: StageId,
        round: u32,
        a: Place,
        b: Place,
        by: Actor,
        at: i64,
    },
    GameAssigned {
        game: GameId,
        #[serde(default)]
        judge: Option<JudgeId>,
        at: i64,
    },
    GameResultRecorded {
        game: GameId,
        facts: GameFacts,
        /// The game's end, from its record: the appeal window runs from here.
        ended_at: i64,
        at: i64,
    },
    JudgeInputsRecorded {
        game: GameId,
        inputs: JudgeInputs,
        /// What waits for the chief judge; the extras count once it is empty.
        #[serde(default)]
        pending: Vec<ApprovalItem>,
        by: Actor,
        at: i64,
    },
    ApprovalGiven {
        game: GameId,
        item: ApprovalItem,
        by: Actor,
        at: i64,
    },
    ApprovalRefused {
        game: GameId,
        item: ApprovalItem,
        reason: String,
        by: Actor,
        at: i64,
    },
    ResultConfirmed {
        game: GameId,
        by: Actor,
        at: i64,
    },
    DatesSet {
        #[serde(default)]
        starts_on: Option<String>,
        #[serde(default)]
        ends_on: Option<String>,
        by: Actor,
        at: i64,
    },
    Archived {
        by: Actor,
        at: i64,
    },
    Unarchived {
        by: Actor,
        at: i64,
    },
    /// The tournament leaves every read; its log stays.
    Removed {
        by: Actor,
        at: i64,
    },
    AppealFiled {
        appeal: u32,
        game: GameId,
        #[serde(default)]
        player: Option<PlayerId>,
        /// The game event appealed against, by its sequence number.
        #[serde(default)]
        event_seq: Option<u32>,
        text: String,
        by: Actor,
        at: i64,
    },
    AppealDecided {
        appeal: u32,
        decision: AppealDecision,
        reason: String,
        by: Actor,
        at: i64,
    },
    /// The chief judge's lot among tied players, best first (rfm §6.7.1.7,
    /// minsk2017 §8.5.5). Never drawn by the system.
    LotDrawn {
        players: Vec<PlayerId>,
        by: Actor,
        at: i64,
    },
    PairRulesSet {
        rules: Vec<PairRule>,
        by: Actor,
        at: i64,
    },
    StandingsPublished {
        games: u32,
        by: Actor,
        at: i64,
    },
}

impl TournamentEvent {
    pub fn at(&self) -> i64 {
        match self {
            TournamentEvent::Created { at, .. }
            | TournamentEvent::JudgeAdded { at, .. }
            | TournamentEvent::StageAdded { at, .. }
            | TournamentEvent::PlayerRegistered { at, .. }
            | TournamentEvent::PlayerWithdrawn { at, .. }
            | TournamentEvent::PlayerUpdated { at, .. }
            | TournamentEvent::RoundSeated { at, .. }
            | TournamentEvent::SeatsSwapped { at, .. }
            | TournamentEvent::GameAssigned { at, .. }
            | TournamentEvent::GameResultRecorded { at, .. }
            | TournamentEvent::JudgeInputsRecorded { at, .. }
            | TournamentEvent::ApprovalGiven { at, .. }
            | TournamentEvent::ApprovalRefused { at, .. }
            | TournamentEvent::ResultConfirmed { at, .. }
            | TournamentEvent::DatesSet { at, .. }
            | TournamentEvent::Archived { at, .. }
            | TournamentEvent::Unarchived { at, .. }
            | TournamentEvent::Removed { at, .. }
            | TournamentEvent::AppealFiled { at, .. }
            | TournamentEvent::AppealDecided { at, .. }
            | TournamentEvent::LotDrawn { at, .. }
            | TournamentEvent::PairRulesSet { at, .. }
            | TournamentEvent::StandingsPublished { at, .. } => *at,
        }
    }
}
