//! mafiaratings (szotin/mafiaratings): the game JSON its site stores and
//! exchanges (client version 1.3: ten players, each with his own
//! `nominating`, `voting`, `shooting`, checks, `warnings` with their game
//! times, `death`, `legacy`), and its 13-digit rules code.
//!
//! Rounds: round 0 is night 0 and the first day; round r ≥ 1 is night r and
//! the day after it. Our day d is the site's round d - 1, our night n its
//! round n.

pub mod export;
pub mod gametime;
pub mod import;
pub mod rules_code;

pub use export::{export, ExportError};
pub use import::{import, parse_games};
