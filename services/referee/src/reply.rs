//! The referee's answers as protocol messages: the only place the game
//! store's domain types (`mafia_record::reply`) meet `mafia.v1`.

use mafia_proto::convert::{
    accepted_to_proto, accepted_to_proto_encoded, rejected_to_proto, state_to_proto,
};
use mafia_proto::v1::{self, referee_reply::Kind};
use mafia_record::{Accepted, GameState, Rejected};

pub fn attached(state: &GameState) -> v1::RefereeReply {
    reply(Kind::Attached(v1::Attached {
        state: Some(state_to_proto(state)),
    }))
}

pub fn accepted(a: &Accepted) -> v1::RefereeReply {
    reply(Kind::Accepted(accepted_to_proto(a)))
}

/// As [`accepted`], with the events' JSON already encoded (see
/// `games::Outcome::Accepted`); encodes them itself if it has none.
pub fn accepted_encoded(a: &Accepted, event_json: Vec<String>) -> v1::RefereeReply {
    if event_json.len() != a.events.len() {
        return accepted(a);
    }
    reply(Kind::Accepted(accepted_to_proto_encoded(a, event_json)))
}

pub fn rejected(r: &Rejected) -> v1::RefereeReply {
    reply(Kind::Rejected(rejected_to_proto(r)))
}

fn reply(kind: Kind) -> v1::RefereeReply {
    v1::RefereeReply { kind: Some(kind) }
}
