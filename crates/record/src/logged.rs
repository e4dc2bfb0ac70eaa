//! The payload of one stored event in the referee's log and on the bus.

use mafia_rules::Envelope;
use serde::{Deserialize, Serialize};

/// One event as the referee stores and publishes it: the engine's envelope
/// and the judge client's sequence number of the command that produced it
/// (so a re-sent command is recognised and acknowledged again, never
/// applied twice). Serialized as one JSON object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoggedEvent {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_seq: Option<u64>,
    #[serde(flatten)]
    pub envelope: Envelope,
}
