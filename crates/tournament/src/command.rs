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

/// A tournament's dates, ISO 8601 calendar dates ("2026-05-01"), each
/// optional; `ends_on` is not before `starts_on`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dates {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub starts_on: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ends_on: Option<String>,
}

/// What `CreateTournament` reads: the spec and, beside its fields, the
/// optional dates (`{"id":…,"name":…,…,"starts_on":"2026-05-01"}`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NewTournament {
    #[serde(flatten)]
    pub spec: TournamentSpec,
    #[serde(flatten)]
    pub dates: Dates,
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
    /// A registered player's nickname, club or photo changed; the id stays.
    UpdatePlayer {
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
    /// The chief judge refuses a pending item: the judge's input stops
    /// waiting on him and its extras count only once the table judge (or
    /// the chief judge) gives the game's input anew.
    Refuse {
        game: GameId,
        item: ApprovalItem,
        reason: String,
    },
    /// The chief judge confirms a finished game's result (rfm §7.4): no
    /// approval pending and no appeal open on it.
    ConfirmResult {
        game: GameId,
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
    /// Sets (or clears, with `null`) the tournament's dates.
    SetDates {
        #[serde(default)]
        starts_on: Option<String>,
        #[serde(default)]
        ends_on: Option<String>,
    },
    /// Kept, out of the default list (organiser).
    Archive,
    Unarchive,
    /// Removes a tournament no game of which was opened (organiser): it
    /// leaves every read; its log stays.
    Remove,
}
