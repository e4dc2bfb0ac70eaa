//! The game record format (FORMAT.md), the header every service shares, and
//! the paper protocol.

pub mod header;
pub mod logged;

pub use header::{Header, HeaderError, RulesRef, SeatEntry, FORMAT};
pub use logged::LoggedEvent;
