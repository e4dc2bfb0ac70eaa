//! The tournament model and its scoring, pure: no I/O, no clock (every
//! command takes the time, unix ms, as an input), no randomness (a tie is
//! settled by a lot the chief judge records, never by a random pick).
//!
//! A [`Tournament`] is an event log: [`Tournament::command`] validates a
//! [`TournamentCommand`] given by an [`Actor`] and returns the
//! [`TournamentEvent`]s it produces; [`Tournament::apply`] folds one in and
//! [`Tournament::fold`] rebuilds the tournament from its log. Points come
//! from a versioned [`Scheme`] stored in the log; [`standings`] ranks the
//! players by the scheme's tie-breaks.

pub mod appeal;
pub mod audit;
pub mod command;
pub mod dates;
pub mod error;
pub mod event;
pub mod export;
pub mod facts;
pub mod inputs;
pub mod ledger;
pub mod model;
pub mod points;
pub mod scheme;
pub mod standings;
pub mod stored;
pub mod tournament;

pub use appeal::{Appeal, AppealDecision, Correction};
pub use audit::{AuditAction, AuditEntry};
pub use command::{Dates, NewTournament, TournamentCommand, TournamentSpec};
pub use error::TournamentError;
pub use event::TournamentEvent;
pub use facts::{GameFacts, Outcome, SeatFact};
pub use inputs::{ApprovalItem, BestMoveVerdict, ExtraPoint, JudgeInputs, JudgePenalty};
pub use model::{
    Actor, Judge, JudgeId, PairKind, PairRule, Place, Player, PlayerId, SeatedTable, Stage,
};
pub use points::{Coefficient, Points};
pub use scheme::{Scheme, SchemeError, SchemeId, TieBreak};
pub use standings::{history, standings, HistoryLine, StandingRow, Standings, Tie};
pub use tournament::Tournament;
