//! The referee: the only writer of game history.
//!
//! Table judges stream commands over gRPC ([`mafia_proto::v1`]); the referee
//! applies them with the rules engine, appends the resulting events to the
//! [`EventLog`](mafia_event_log::EventLog) under a lease's fencing token, and
//! only then acknowledges. The log's feed is the bus others read from.

// tonic's handlers speak `Result<_, Status>`; boxing it only to convert
// back at every boundary would add noise, not speed.
#![allow(clippy::result_large_err)]

pub mod auth;
pub mod error;
pub mod games;
pub mod keys;
pub mod metrics;
mod reply;
pub mod sealed;
pub mod seated;
pub mod server;
mod service;

pub use auth::Tokens;
pub use error::RefereeError;
pub use server::{RefereeOptions, RunningReferee};

/// Resolves once `shutdown` is (or becomes) true; never holds the watch
/// lock across an await, so it can sit in `select!`s of spawned tasks.
pub(crate) async fn stopped(shutdown: &mut tokio::sync::watch::Receiver<bool>) {
    let _ = shutdown.wait_for(|v| *v).await;
}
