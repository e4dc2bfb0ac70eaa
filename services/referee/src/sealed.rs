//! A drawn deal's secret (`mafia_rules::Sealed`): drawn here from the
//! operating system's random source when the game opens, and kept in the
//! event log under a key of its own, beside the game (`deal.<game id>`), as
//! that key's header. Nothing but the referee reads it: it is no game (the
//! services that follow the log skip names that are not game ids), no call
//! names it, and the game's own header carries only the commitment. The
//! referee that ends the game reveals it (`Game::reveal_deal`).

use crate::error::RefereeError;
use mafia_event_log::{EventLog, LogError};
use mafia_record::GameId;
use mafia_rules::Sealed;

/// The log key of `game`'s secret.
pub fn key(game: &GameId) -> String {
    format!("deal.{game}")
}

/// The secret of `game`, if it has one.
pub async fn stored(log: &dyn EventLog, game: &GameId) -> Result<Option<Sealed>, RefereeError> {
    let Some(bytes) = log.header(&key(game)).await? else {
        return Ok(None);
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| RefereeError::Corrupt {
            game: game.clone(),
            reason: format!("drawn deal's secret: {e}"),
        })
}

/// Draws a secret for `game` and keeps it; if another call kept one
/// first, that one (so two openings of one game agree on its deal).
pub async fn draw(log: &dyn EventLog, game: &GameId) -> Result<Sealed, RefereeError> {
    let mut random = [0u8; 16];
    getrandom::getrandom(&mut random).map_err(|e| RefereeError::Random(e.to_string()))?;
    let drawn = Sealed::from_random(random);
    let bytes = serde_json::to_vec(&drawn).expect("a secret serializes");
    match log.create_game(&key(game), &bytes).await {
        Ok(_) => Ok(drawn),
        Err(LogError::HeaderMismatch { .. }) => {
            stored(log, game)
                .await?
                .ok_or_else(|| RefereeError::Corrupt {
                    game: game.clone(),
                    reason: "drawn deal's secret vanished".into(),
                })
        }
        Err(e) => Err(e.into()),
    }
}
