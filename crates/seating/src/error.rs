use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SeatingError {
    #[error("player `{0}` is listed twice")]
    DuplicatePlayer(String),
    #[error("a player has an empty id")]
    EmptyPlayerId,
    #[error("judge `{0}` is listed twice")]
    DuplicateJudge(String),
    #[error("a seating needs at least one table")]
    NoTables,
    #[error("a seating needs at least one round")]
    NoRounds,
    #[error(
        "{players} players are too few for {tables} table{s} of 10 (at least {seats} needed)",
        s = if *.tables == 1 { "" } else { "s" }
    )]
    TooFewPlayers {
        players: usize,
        tables: usize,
        seats: usize,
    },
    #[error("{context} names `{id}`, who is not among the players")]
    UnknownPlayer { id: String, context: String },
    #[error("a pair policy names `{0}` twice")]
    PolicyWithSelf(String),
    #[error(
        "`{a}` and `{b}` must be kept apart (separate policy) but could not be in round {round}"
    )]
    SeparateImpossible { a: String, b: String, round: usize },
    #[error("`{a}` and `{b}` must be kept apart (separate policy) but sit together at table {table} of round {round}")]
    SeparateViolated {
        a: String,
        b: String,
        round: usize,
        table: usize,
    },
    #[error("round {round} has no table {table} seat {seat} (tables 1..={tables}, seats 1..=10)")]
    NoSuchSeat {
        round: usize,
        table: usize,
        seat: usize,
        tables: usize,
    },
    #[error("there is no round {round} (rounds 1..={rounds})")]
    NoSuchRound { round: usize, rounds: usize },
    #[error("player `{player}` is seated twice in round {round}")]
    PlayerTwiceInRound { player: String, round: usize },
    #[error("table {table} of round {round} has {seats} seats, not 10")]
    TableSize {
        round: usize,
        table: usize,
        seats: usize,
    },
}
