//! A finished game the hub let go (its retention past), read back from the
//! log when someone asks for its protocol: the hub's memory does not grow
//! with the games played, and no protocol is lost with it.

use mafia_record::logged::happened_at;
use mafia_record::{GameId, Header, LoggedEvent};
use mafia_rules::{Audience, Game};

use super::{AudienceEvent, GameInfo, Hub, HubError};

/// A finished game's protocol: what the game is and every event.
pub type Protocol = (GameInfo, Vec<AudienceEvent>);

impl Hub {
    /// The whole history of `game_id` in the engine's numbering, every
    /// event, as [`Hub::protocol`] gives it: from memory while the hub
    /// holds the game, else from the log. `None` while the game runs for
    /// `audience`; a game read back from the log counts as finished for
    /// the public and the broadcast only once its last event is older than
    /// the broadcast's delay (by the later of the judge's and the referee's
    /// clocks), so no protocol comes early to a hub that has not yet
    /// caught up with the log.
    pub async fn protocol_or_archive(
        &self,
        game_id: &GameId,
        audience: Audience,
    ) -> Result<Option<Protocol>, HubError> {
        match self.protocol(game_id, audience) {
            Err(HubError::UnknownGame(_)) => self.protocol_from_log(game_id, audience).await,
            Ok(Some(events)) => Ok(Some((self.state(game_id, audience)?.info, events))),
            Ok(None) => Ok(None),
            Err(e) => Err(e),
        }
    }

    async fn protocol_from_log(
        &self,
        game_id: &GameId,
        audience: Audience,
    ) -> Result<Option<Protocol>, HubError> {
        let name = game_id.to_string();
        let log = &self.inner.log;
        let unknown = || HubError::UnknownGame(name.clone());
        let header = log.header(&name).await?.ok_or_else(unknown)?;
        let header: Header = serde_json::from_slice(&header).map_err(|_| unknown())?;
        let setup = header.setup().map_err(|_| unknown())?;
        let mut game = Game::replay(setup, std::iter::empty()).map_err(|_| unknown())?;
        let mut events = Vec::new();
        let mut last_at = i64::MIN;
        loop {
            let batch = log
                .read(&name, game.seq() as u64 + 1, self.inner.config.read_batch)
                .await?;
            if batch.is_empty() {
                break;
            }
            for stored in &batch {
                let logged: LoggedEvent =
                    serde_json::from_slice(&stored.payload).map_err(|_| unknown())?;
                let seen = game.fold_seen(&logged.envelope).map_err(|_| unknown())?;
                last_at = happened_at(&stored.payload, logged.envelope.at);
                events.extend(seen.for_audience(Audience::Judge));
            }
        }
        let settled =
            super::now().unix_ms - last_at >= self.inner.config.broadcast_delay.as_millis() as i64;
        let finished = match audience {
            Audience::Judge => true,
            _ => game.result().is_some() && settled,
        };
        Ok(finished.then(|| (GameInfo::new(game_id, &header), events)))
    }
}
