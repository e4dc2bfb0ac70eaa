//! What the organiser and the judges ask of a tournament.

use crate::appeal::AppealDecision;
use crate::facts::GameFacts;
use crate::inputs::{ApprovalItem, JudgeInputs};
use crate::model::{Judge, JudgeId, PairRule, Place, Player, PlayerId, SeatedTable, Stage};
use crate::scheme::Scheme;
use mafia_record::{GameId, StageId, TournamentId};
use mafia_rules::RuleSetId;
use serde::{Deserialize, Serialize};

/// What a tournament is created with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TournamentSpec {
    pub id: TournamentId,
    pub name: String,
    pub rules: RuleSetId,
    #[serde(default)]
    pub rule_overrides: serde_json::Value,
    pub scheme: Scheme,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TournamentCommand {
    AddJudge {
        judge: Judge,
    },
    AddStage {
        stage: Stage,
    },
    RegisterPlayer {
        player: Player,
    },
    WithdrawPlayer {
        player: PlayerId,
    },
    /// The seating is data (from the seating generator, or by hand).
    SeatRound {
        stage: StageId,
        round: u32,
        tables: Vec<SeatedTable>,
    },
    SwapSeats {
        stage: StageId,
        round: u32,
        a: Place,
        b: Place,
    },
    AssignGame {
        game: GameId,
        #[serde(default)]
        judge: Option<JudgeId>,
    },
    RecordResult {
        game: GameId,
        facts: GameFacts,
        ended_at: i64,
    },
    SubmitJudgeInputs {
        game: GameId,
        inputs: JudgeInputs,
    },
    Approve {
        game: GameId,
        item: ApprovalItem,
    },
    FileAppeal {
        game: GameId,
        #[serde(default)]
        player: Option<PlayerId>,
        #[serde(default)]
        event_seq: Option<u32>,
        text: String,
    },
    DecideAppeal {
        appeal: u32,
        decision: AppealDecision,
        reason: String,
    },
    DrawLot {
        players: Vec<PlayerId>,
    },
    /// Replaces the tournament's pair rules (`separate`, `avoid`): the
    /// scoring service seats every round with them.
    SetPairRules {
        rules: Vec<PairRule>,
    },
    PublishStandings,
}
