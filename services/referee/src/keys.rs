//! Game ids arrive as text from the wire; they become [`GameId`]s here,
//! before anything else sees them. A game's event-log key is its id's text,
//! so the gateway and scoring find a game's history under the id they
//! already know.

use crate::error::RefereeError;
use mafia_record::GameId;

/// The game named by a request, or INVALID_ARGUMENT with a short message
/// that does not repeat the id (it may be 60 KB of garbage).
pub fn parse_game_id(text: &str) -> Result<GameId, RefereeError> {
    Ok(text.parse::<GameId>()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_id_is_its_own_key() {
        let id = parse_game_id("cup.main.r1.t3.g1").unwrap();
        assert_eq!(id.to_string(), "cup.main.r1.t3.g1");
    }

    #[test]
    fn an_empty_huge_or_slashed_game_id_is_refused_without_being_repeated() {
        for bad in [
            String::new(),
            "a".repeat(60_000),
            "cup/r1".into(),
            "cup.r1.t3.g1".into(),
        ] {
            let e = parse_game_id(&bad).unwrap_err();
            let status = tonic::Status::from(e);
            assert_eq!(status.code(), tonic::Code::InvalidArgument);
            assert!(status.message().len() < 120, "{}", status.message());
        }
    }
}
