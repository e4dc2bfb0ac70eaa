//! How a tournament's log sits in an `EventLog`, shared by the scoring
//! service (which writes it) and the gateway (which follows it): one stream
//! per tournament named `tournament.<id>`, whose header is the `created`
//! event and whose events (seq 1, 2, …) are every later event, each as the
//! same serde JSON the crate's types define.
//!
//! The stream name has two dot-separated parts, so it never parses as a
//! `GameId` (five parts): a follower of every stream tells the two apart by
//! shape, and a tournament named `tournament` cannot collide with a game.

use crate::error::TournamentError;
use crate::event::TournamentEvent;
use crate::tournament::Tournament;
use mafia_record::TournamentId;

pub const STREAM_PREFIX: &str = "tournament.";

/// The log stream that holds a tournament.
pub fn stream_of(id: &TournamentId) -> String {
    format!("{STREAM_PREFIX}{id}")
}

/// The tournament a stream holds, if it is a tournament stream.
pub fn tournament_of_stream(stream: &str) -> Option<TournamentId> {
    stream.strip_prefix(STREAM_PREFIX)?.parse().ok()
}

pub fn encode(event: &TournamentEvent) -> Vec<u8> {
    serde_json::to_vec(event).expect("tournament events always serialise")
}

pub fn decode(bytes: &[u8]) -> Result<TournamentEvent, serde_json::Error> {
    serde_json::from_slice(bytes)
}

/// Rebuilds a tournament from its stored header and events, in seq order.
pub fn fold_stored<'a>(
    header: &[u8],
    events: impl IntoIterator<Item = &'a [u8]>,
) -> Result<Tournament, StoredError> {
    let created = decode(header).map_err(|e| StoredError::Decode { seq: 0, error: e })?;
    let mut t = Tournament::from_created(&created)?;
    for (i, bytes) in events.into_iter().enumerate() {
        let event = decode(bytes).map_err(|e| StoredError::Decode {
            seq: i as u64 + 1,
            error: e,
        })?;
        if matches!(event, TournamentEvent::Created { .. }) {
            return Err(StoredError::Tournament(TournamentError::AlreadyCreated));
        }
        t.apply(&event);
    }
    Ok(t)
}

/// A tournament's log as a JSON-lines file (`mafia export --tournament-log`):
/// the header's line, then one line per event, as `encode` writes them.
pub fn to_lines(log: &[TournamentEvent]) -> String {
    let mut out = String::new();
    for e in log {
        out.push_str(&serde_json::to_string(e).expect("tournament events always serialise"));
        out.push('\n');
    }
    out
}

/// Folds a JSON-lines log ([`to_lines`]); blank lines are skipped, and an
/// error names the event (seq 0 is the header's line).
pub fn fold_lines(text: &str) -> Result<Tournament, StoredError> {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header = lines.next().ok_or(StoredError::Empty)?;
    let rest: Vec<&str> = lines.collect();
    fold_stored(header.as_bytes(), rest.iter().map(|l| l.as_bytes()))
}

#[derive(Debug, thiserror::Error)]
pub enum StoredError {
    #[error("the tournament log is empty: it must start with the `created` event")]
    Empty,
    #[error("tournament log event {seq} does not decode: {error}")]
    Decode {
        seq: u64,
        #[source]
        error: serde_json::Error,
    },
    #[error(transparent)]
    Tournament(#[from] TournamentError),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tournament_stream_is_named_after_its_id_and_never_parses_as_a_game() {
        let id: TournamentId = "cup-2026".parse().unwrap();
        let stream = stream_of(&id);
        assert_eq!(stream, "tournament.cup-2026");
        assert_eq!(tournament_of_stream(&stream), Some(id));
        assert!(stream.parse::<mafia_record::GameId>().is_err());
        assert_eq!(tournament_of_stream("cup.final.r1.t1.g1"), None);
    }
}
