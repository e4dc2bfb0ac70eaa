//! The sports Mafia rules engine.
//!
//! A pure, deterministic state machine: no I/O, no clock, no global RNG. Time
//! and randomness are inputs (`at` on every command, a seed for dealing and
//! simulation). A [`Game`] applies a judge's [`Command`] and returns the
//! [`Event`]s it produced, or a [`Violation`] naming the rule and clause and
//! leaving the game untouched. Folding the events rebuilds the same game.
//! [`view`] computes what each [`Audience`] may see; nothing outside this
//! crate filters hidden facts.

mod clauses;
pub mod command;
pub mod drawn;
pub mod event;
pub mod game;
pub mod params;
pub mod prompt;
pub mod role;
pub mod seat;
pub mod setup;
pub mod sim;
pub mod state;
pub mod summary;
pub mod view;
pub mod violation;

pub use command::{Command, PenaltyKind};
pub use drawn::{Commitment, Salt, Sealed};
pub use event::{Audience, Cause, EndReason, Envelope, Event, Outcome, Step};
pub use game::{Game, ReplayError, RevealError};
pub use params::{Params, RuleSet, RuleSetId};
pub use prompt::{Expect, Prompt};
pub use role::{Role, Team};
pub use seat::{Seat, SeatList, SeatSet, SEATS};
pub use setup::{Deal, Drawn, Player, Setup, SetupError};
pub use state::When;
pub use violation::{Code, Topic, Violation};
