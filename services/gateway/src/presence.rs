//! When each game's judge console was last heard from: the table board's
//! "console connected" (`table_board.rs`), kept apart so the shared state
//! (`app.rs`) holds it without depending on the routes that read it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mafia_record::GameId;

/// A console heard from within this long is connected.
pub const PRESENCE_WINDOW: Duration = Duration::from_secs(15);

/// Games whose consoles' presence is kept at once: any game id is client
/// input, but only a game the hub holds is recorded, and stale entries go
/// first.
pub const MAX_PRESENCE: usize = 4096;

/// When each game's judge console was last heard from.
#[derive(Clone, Default)]
pub struct Presence {
    seen: Arc<Mutex<HashMap<GameId, Instant>>>,
}

impl Presence {
    /// Records a heartbeat for `game` now (at most [`MAX_PRESENCE`] games,
    /// the stale ones dropped first).
    pub fn heard(&self, game: &GameId, now: Instant) {
        let mut seen = self.seen.lock().expect("presence lock");
        if !seen.contains_key(game) && seen.len() >= MAX_PRESENCE {
            seen.retain(|_, at| now.saturating_duration_since(*at) < PRESENCE_WINDOW);
            if seen.len() >= MAX_PRESENCE {
                return;
            }
        }
        seen.insert(game.clone(), now);
    }

    /// How long ago `game`'s console was last heard from, if ever.
    pub fn last_heard(&self, game: &GameId, now: Instant) -> Option<Duration> {
        let seen = self.seen.lock().expect("presence lock");
        seen.get(game).map(|at| now.saturating_duration_since(*at))
    }
}
