//! Why a command was refused. Each message names the rule it enforces.

use crate::points::Points;
use mafia_record::{GameId, StageId};
use mafia_rules::Seat;

use crate::model::{JudgeId, PlayerId};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TournamentError {
    #[error("{actor} may not {action}: only {who} may")]
    NotPermitted {
        actor: String,
        action: &'static str,
        who: &'static str,
    },
    #[error("table judge {judge} is not the judge of game {game}")]
    JudgeNotBound { judge: JudgeId, game: GameId },

    #[error("a tournament log starts with its creation event")]
    NotCreatedFirst,
    #[error("the tournament is already created")]
    AlreadyCreated,
    #[error("the scoring scheme is refused: {0}")]
    BadScheme(String),
    #[error("the tournament's name is empty")]
    EmptyName,

    #[error("player {0} is already registered")]
    PlayerAlreadyRegistered(PlayerId),
    #[error("player {0} is not registered")]
    UnknownPlayer(PlayerId),
    #[error("player {0} has withdrawn")]
    PlayerWithdrawn(PlayerId),
    #[error("a player's id and nickname may not be empty")]
    EmptyPlayer,
    #[error("judge {0} is already registered")]
    JudgeAlreadyRegistered(JudgeId),
    #[error("judge {0} is not registered")]
    UnknownJudge(JudgeId),
    #[error("stage {0} already exists")]
    StageAlreadyExists(StageId),
    #[error("stage {0} does not exist")]
    UnknownStage(StageId),
    #[error("a stage has at least one round and one table")]
    EmptyStage,

    #[error("stage {stage} has rounds 1–{rounds}; there is no round {round}")]
    RoundOutOfRange {
        stage: StageId,
        round: u32,
        rounds: u32,
    },
    #[error("stage {stage} has tables 1–{tables}; there is no table {table}")]
    TableOutOfRange {
        stage: StageId,
        table: u32,
        tables: u32,
    },
    #[error("table {0} is seated twice in the round")]
    TableTwice(u32),
    #[error("a round seats at least one table")]
    NoTables,
    #[error("table {table} has {seats} seats; a table seats 10")]
    TableNotFull { table: u32, seats: usize },
    #[error("player {player} is seated at tables {first} and {second} in round {round}: a player plays one table a round")]
    PlayerAtTwoTables {
        player: PlayerId,
        round: u32,
        first: u32,
        second: u32,
    },
    #[error("player {player} is seated twice at table {table}")]
    PlayerTwiceAtTable { player: PlayerId, table: u32 },
    #[error("round {round} of {stage} has games assigned; it cannot be seated again")]
    RoundAlreadyUnderway { stage: StageId, round: u32 },
    #[error("round {round} of {stage} is not seated")]
    RoundNotSeated { stage: StageId, round: u32 },
    #[error("table {table} is not seated in round {round} of {stage}")]
    TableNotSeated {
        stage: StageId,
        round: u32,
        table: u32,
    },
    #[error(
        "table {table}'s game {game} is already assigned (and opened on the referee with this \
         seating); its seats cannot be swapped"
    )]
    SwapAfterAssigned { table: u32, game: GameId },
    #[error("a seat cannot be swapped with itself")]
    SwapSamePlace,

    #[error("game {0} belongs to another tournament")]
    OtherTournament(GameId),
    #[error("game {0} is already assigned")]
    GameAlreadyAssigned(GameId),
    #[error("game {0} is not assigned")]
    UnknownGame(GameId),
    #[error("the record of game {game} is malformed: {why}")]
    BadFacts { game: GameId, why: String },
    #[error("seat {seat} of game {game} is {record} in the record but {seating} in the seating")]
    SeatingMismatch {
        game: GameId,
        seat: Seat,
        record: PlayerId,
        seating: PlayerId,
    },
    #[error("game {0} already has a different result; a result changes only by an appeal (rfm §7.1, minsk2017 §8.6)")]
    ResultAlreadyRecorded(GameId),
    #[error("game {0} is not finished: no judge input, appeal or approval before its result")]
    GameNotFinished(GameId),
    #[error("a pair rule pairs {0} with himself")]
    PairWithItself(PlayerId),
    #[error("the swap would seat {a} and {b} at table {table}, a pair the tournament keeps apart (separate)")]
    SeparatePairTogether {
        a: PlayerId,
        b: PlayerId,
        table: u32,
    },
    #[error("{a} and {b} sit at table {table}, a pair the tournament keeps apart (separate)")]
    SeparatePairSeated {
        a: PlayerId,
        b: PlayerId,
        table: u32,
    },
    #[error("game {0} was annulled for a replay")]
    GameAnnulled(GameId),
    #[error("game {game} is a second game at its table: a table plays one game a round, and another only when an appeal annulled its game {previous} for a replay (rfm §7.2)")]
    NoReplayDue { game: GameId, previous: u32 },

    #[error("seat {seat}: +{points} is not an extra point {side} may get ({clause}: {allowed})")]
    ExtraNotAllowed {
        seat: Seat,
        points: Points,
        side: &'static str,
        allowed: String,
        clause: String,
    },
    #[error(
        "seat {seat}: an extra point must be positive ({points}); penalties are given as penalties"
    )]
    ExtraNotPositive { seat: Seat, points: Points },
    #[error("seat {seat} has two extra points in one input")]
    TwoExtrasForOneSeat { seat: Seat },
    #[error("the game's extra points sum to +{sum}, over the cap of +{cap} ({clause})")]
    GameSumOverCap {
        sum: Points,
        cap: Points,
        clause: String,
    },
    #[error("{count} players rewarded, over the cap of {cap} ({clause})")]
    TooManyRewarded {
        count: u32,
        cap: u32,
        clause: String,
    },
    #[error("seat {seat}: extra +{extra} with best move +{best_move} is over the player's cap of +{cap} ({clause})")]
    OverPlayerCap {
        seat: Seat,
        extra: Points,
        best_move: Points,
        cap: Points,
        clause: String,
    },
    #[error("no penalty {code:?} in this scheme (known: {known})")]
    UnknownPenalty { code: String, known: String },
    #[error("seat {seat}: penalty {code} is for a player of the other team ({clause})")]
    PenaltyNotForTeam {
        code: String,
        seat: Seat,
        clause: String,
    },
    #[error("seat {seat}: penalty {code} is not given in a {outcome} ({clause})")]
    PenaltyNotForOutcome {
        code: String,
        seat: Seat,
        outcome: &'static str,
        clause: String,
    },
    #[error("game {game} has nothing pending like that to approve")]
    NothingToApprove { game: GameId },

    #[error("an appeal against game {game} is {late_by_s} s late: the window is {minutes} minutes after the game's end ({clause})")]
    AppealTooLate {
        game: GameId,
        minutes: u32,
        late_by_s: i64,
        clause: String,
    },
    #[error("appeal {0} does not exist")]
    UnknownAppeal(u32),
    #[error(
        "appeal {0} is already decided; the decision is final (rfm §7.3.10, minsk2017 §8.6.4)"
    )]
    AppealAlreadyDecided(u32),
    #[error("the `reason` is empty: a decision needs a reason, kept in the audit trail")]
    EmptyReason,
    #[error("game {game} has no such item pending to refuse")]
    NothingToRefuse { game: GameId },
    #[error("game {0}'s result is already confirmed")]
    AlreadyConfirmed(GameId),
    #[error("game {game}'s result cannot be confirmed while {what} waits for the chief judge")]
    ConfirmWhilePending { game: GameId, what: String },
    #[error("{field} {value:?} is not an ISO date (YYYY-MM-DD, e.g. 2026-05-01)")]
    BadDate { field: &'static str, value: String },
    #[error("the tournament ends ({ends}) before it starts ({starts})")]
    DatesReversed { starts: String, ends: String },
    #[error("game {0} has been opened on the referee: a tournament with an opened or played game cannot be removed (archive it instead)")]
    GameOpened(GameId),
    #[error("the tournament has been removed")]
    Removed,
    #[error("player {player} did not play game {game}")]
    PlayerNotInGame { player: PlayerId, game: GameId },

    #[error("a lot is drawn between two or more distinct players")]
    LotNeedsTwo,
    #[error("players {a} and {b} are not tied at every tie-break; no lot between them")]
    LotPlayersNotTied { a: PlayerId, b: PlayerId },
}
