use mafia_event_log::LogError;
use mafia_record::{GameId, GameIdError};
use tonic::Status;

/// Why a referee call failed; each maps to one gRPC status.
#[derive(Debug, thiserror::Error)]
pub enum RefereeError {
    #[error("unknown game {0}")]
    UnknownGame(GameId),
    /// The id is not repeated: it may be huge or hostile.
    #[error("bad game id: {0}")]
    BadGameId(#[from] GameIdError),
    #[error("invalid game header: {0}")]
    BadHeader(String),
    #[error("game {0} already exists with a different header")]
    HeaderMismatch(GameId),
    #[error("game {game} is owned by referee {owner} for another {ms} ms; reconnect and retry")]
    OwnedElsewhere {
        game: GameId,
        owner: String,
        ms: u128,
    },
    #[error("this referee lost game {0} to another one; reconnect and attach again")]
    LeaseLost(GameId),
    #[error("event log unavailable: {0}")]
    Log(#[source] LogError),
    #[error("stored history of {game} is unreadable: {reason}")]
    Corrupt { game: GameId, reason: String },
    /// A held tournament's log does not fold.
    #[error("{0}")]
    Tournament(String),
    /// The operating system's random source failed: no deal can be drawn.
    #[error("no random seed can be drawn: {0}")]
    Random(String),
}

impl From<LogError> for RefereeError {
    fn from(e: LogError) -> Self {
        RefereeError::Log(e)
    }
}

impl From<RefereeError> for Status {
    fn from(e: RefereeError) -> Status {
        let msg = e.to_string();
        match e {
            RefereeError::UnknownGame(_) => Status::not_found(msg),
            RefereeError::BadGameId(_) | RefereeError::BadHeader(_) => {
                Status::invalid_argument(msg)
            }
            RefereeError::HeaderMismatch(_) => Status::already_exists(msg),
            RefereeError::OwnedElsewhere { .. }
            | RefereeError::LeaseLost(_)
            | RefereeError::Log(_) => Status::unavailable(msg),
            RefereeError::Corrupt { .. } => Status::data_loss(msg),
            RefereeError::Random(_) | RefereeError::Tournament(_) => Status::internal(msg),
        }
    }
}
