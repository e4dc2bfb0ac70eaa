//! Game ids (`Header::game_id`, e.g. `cup.r1.t3.g1`) are the event log's
//! keys as they are, so the gateway and scoring find a game's history under
//! the id they already know. Anything else is refused up front, before it
//! reaches the log.

use crate::error::RefereeError;

/// The event-log key of a game id: the id itself, once checked.
pub fn log_key(game_id: &str) -> Result<String, RefereeError> {
    let ok = !game_id.is_empty()
        && game_id.len() <= mafia_event_log::MAX_GAME_ID_LEN
        && game_id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    if ok {
        Ok(game_id.to_owned())
    } else {
        Err(RefereeError::BadGameId(game_id.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_game_id_is_its_own_key() {
        assert_eq!(log_key("cup.r1.t3.g1").unwrap(), "cup.r1.t3.g1");
    }

    #[test]
    fn an_empty_huge_or_slashed_game_id_is_refused() {
        assert!(log_key("").is_err());
        assert!(log_key(&"a".repeat(200)).is_err());
        assert!(log_key("cup/r1").is_err());
    }
}
