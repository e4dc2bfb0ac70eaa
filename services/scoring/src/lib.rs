//! `mafia-scoring`: the scoring service. Tournaments are commanded over gRPC
//! (`proto/mafia/v1/tournament.proto`), stored in the shared `EventLog` in the
//! one stored form (`mafia_tournament::stored`), and ranked by the pure
//! `mafia-tournament` crate.

// tonic::Status is the error of every gRPC handler; boxing it buys nothing.
#![allow(clippy::result_large_err)]

pub mod actor;
pub mod credentials;
pub mod csv;
pub mod export;
pub mod follower;
pub mod metrics;
pub mod office;
pub mod open_round;
pub mod roster;
pub mod seat_round;
pub mod server;
pub mod service;
pub mod store;
pub mod touches;

pub use mafia_access::Tokens;
pub use open_round::RefereeLink;
pub use server::{start, start_with, start_with_options, Running, ServeOptions};
pub use store::{Store, StoreError};
