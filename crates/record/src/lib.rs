//! The game record format (FORMAT.md), the header every service shares, and
//! the paper protocol.

pub mod game_id;
pub mod header;
pub mod logged;
pub mod protocol;
pub mod record;
pub mod reply;
pub mod report;

pub use game_id::{GameId, GameIdError, StageId, TournamentId};
pub use header::{Header, HeaderError, RulesRef, SeatEntry, FORMAT};
pub use logged::{Encoded, LoggedEvent};
pub use protocol::Protocol;
pub use record::{
    parse, replay, write, CommandLine, LineViolation, Record, RecordError, RecordErrorKind,
    ReplayOutcome,
};
pub use reply::{Accepted, GameState, Refusal, Rejected, TimeCode};
pub use report::{Problem, ReplayReport};
