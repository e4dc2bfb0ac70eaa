//! Tournament seating: for P players, T tables of 10 and R rounds, who
//! plays at which table in which seat, who rests and who judges, so that
//! every player plays as often as the others (±1), pairs meet as evenly as
//! possible, seat numbers are spread, and pair policies hold. Pure: the only
//! randomness is the caller's seed.

mod error;
mod generate;
mod hungarian;
mod judges;
mod metrics;
mod model;
mod rests;
mod roster;
mod seats;
mod swap;
mod tables;

pub use error::SeatingError;
pub use generate::{random_seating, seat};
pub use metrics::{check_separate, Metrics};
pub use model::{
    PairPolicy, Player, PolicyKind, RoundSeating, Seating, SeatingInput, TableSeating, SEATS,
};
pub use seats::seat_number_cap;
pub use swap::swap;
