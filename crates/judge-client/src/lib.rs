//! The client side of the referee protocol: what `mafia play` and `mafia sim`
//! are made of.
//!
//! A [`JudgeSession`] sends one command at a time and waits for its
//! acknowledgement (closed loop). When the connection drops or the referee
//! restarts, it reconnects (trying each configured referee in turn), attaches
//! with the last acknowledged sequence number, learns whether its in-flight
//! command was applied, and re-sends it only if not.

pub mod ack_log;
pub mod cli;
pub mod connect;
pub mod console;
pub mod keys;
pub mod play;
pub mod screen;
pub mod session;
pub mod sim;
pub mod tui;

pub use ack_log::AckLog;
pub use connect::{ClientConfig, Referee};
pub use play::{parse_record, play, PlayReport, Record};
pub use session::{JudgeSession, Reply};
pub use sim::{simulate_game, simulate_tables, SimConfig, SimReport};

/// What can go wrong on the client side.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("bad referee address {0:?}")]
    BadUrl(String),
    #[error("no referee reachable within the retry budget: {0}")]
    Unreachable(String),
    #[error("referee: {}: {}", .0.code(), .0.message())]
    Status(Box<tonic::Status>),
    #[error("the referee broke the protocol: {0}")]
    Protocol(String),
    #[error("record line {line}: {reason}")]
    Record { line: usize, reason: String },
    #[error("record line {line} rejected: {code} ({clause}): {message}")]
    Rejected {
        line: usize,
        code: String,
        clause: String,
        message: String,
    },
    #[error("simulated table {table}: {reason}")]
    Sim { table: u32, reason: String },
}

impl From<tonic::Status> for ClientError {
    fn from(s: tonic::Status) -> Self {
        ClientError::Status(Box::new(s))
    }
}

impl ClientError {
    /// The gRPC status, when the referee answered with one.
    pub fn status(&self) -> Option<&tonic::Status> {
        match self {
            ClientError::Status(s) => Some(s),
            _ => None,
        }
    }
}
