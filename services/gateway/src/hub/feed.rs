//! One audience's feed of one game: the current view and snapshot, and the
//! recent deltas for resuming, each encoded once to shared bytes.

use std::collections::VecDeque;
use std::sync::OnceLock;

use bytes::Bytes;
use mafia_rules::view::Shown;
use mafia_rules::{Audience, Game};
use serde_json::{json, Value};

use crate::messages::{encode, GameFeed};

use super::game::AudienceEvent;
use crate::patch;

struct Frame {
    seq: u64,
    bytes: Bytes,
    event: AudienceEvent,
}

pub(crate) struct Feed {
    audience: Audience,
    pub(crate) seq: u64,
    pub(crate) over: bool,
    pub(crate) view: Value,
    /// `view` encoded, once per event: the hall message and the snapshot
    /// splice it in.
    view_json: Bytes,
    /// The game id as a JSON string.
    id_json: Bytes,
    /// The `snapshot` message, encoded when first asked for after a change.
    snapshot: OnceLock<Bytes>,
    frames: VecDeque<Frame>,
}

/// What one event made a feed publish.
pub(crate) struct Pushed {
    /// The `delta` message for the game's subscribers.
    pub(crate) delta: Bytes,
    /// The `table` message for the hall.
    pub(crate) hall: Bytes,
}

impl Feed {
    /// `start` is the game before its deal, which the engine shows as such.
    pub(crate) fn new(audience: Audience, game_id: &str, start: &Game) -> Feed {
        let mut feed = Feed {
            audience,
            seq: 0,
            over: false,
            view: Value::Null,
            view_json: Bytes::new(),
            id_json: Bytes::from(serde_json::to_vec(game_id).expect("strings serialize")),
            snapshot: OnceLock::new(),
            frames: VecDeque::new(),
        };
        feed.view = feed.render(start);
        feed.view_json = Bytes::from(serde_json::to_vec(&feed.view).expect("views serialize"));
        feed
    }

    fn render(&self, game: &Game) -> Value {
        serde_json::to_value(game.view(self.audience)).expect("views serialize")
    }

    /// `{"type":<kind>,"game_id":…,"seq":…,"view":…}`, as serde encodes
    /// `GameFeed::Snapshot` and `HallFeed::Table`, from the encoded view.
    fn with_view(&self, kind: &str) -> Bytes {
        let mut out = Vec::with_capacity(self.view_json.len() + self.id_json.len() + 64);
        out.extend_from_slice(b"{\"type\":\"");
        out.extend_from_slice(kind.as_bytes());
        out.extend_from_slice(b"\",\"game_id\":");
        out.extend_from_slice(&self.id_json);
        out.extend_from_slice(b",\"seq\":");
        out.extend_from_slice(self.seq.to_string().as_bytes());
        out.extend_from_slice(b",\"view\":");
        out.extend_from_slice(&self.view_json);
        out.push(b'}');
        Bytes::from(out)
    }

    fn snapshot(&self) -> Bytes {
        self.snapshot
            .get_or_init(|| self.with_view("snapshot"))
            .clone()
    }

    /// Publishes what the engine shows this audience of one event (`None`:
    /// nothing), with the engine's numbering and its view of `game`, which
    /// has just folded the event.
    pub(crate) fn push(
        &mut self,
        game_id: &str,
        shown: Option<Shown>,
        game: &Game,
        history: usize,
    ) -> Option<Pushed> {
        let event = shown?;
        self.over = game.result().is_some();
        self.seq = event.seq as u64;
        let view = self.render(game);
        let patch = patch::diff(&self.view, &view).unwrap_or_else(|| json!({}));
        self.view = view;
        self.view_json = Bytes::from(serde_json::to_vec(&self.view).expect("views serialize"));
        self.snapshot = OnceLock::new();
        let delta = encode(&GameFeed::Delta {
            game_id: game_id.to_owned(),
            seq: self.seq,
            event,
            patch,
        });
        self.frames.push_back(Frame {
            seq: self.seq,
            bytes: delta.clone(),
            event,
        });
        while self.frames.len() > history {
            self.frames.pop_front();
        }
        let hall = self.with_view("table");
        Some(Pushed { delta, hall })
    }

    /// Catch-up for a subscriber that has everything up to `from`.
    pub(crate) fn catch_up(&self, from: Option<u64>) -> Vec<Bytes> {
        // `from = 0` is a client with nothing: deltas need a view to patch.
        if let Some(from) = from.filter(|&f| f > 0) {
            if from == self.seq {
                return Vec::new();
            }
            let oldest = self.frames.front().map_or(self.seq + 1, |f| f.seq);
            if from < self.seq && from + 1 >= oldest {
                return self
                    .frames
                    .iter()
                    .filter(|f| f.seq > from)
                    .map(|f| f.bytes.clone())
                    .collect();
            }
        }
        vec![self.snapshot()]
    }

    /// Retained events with an audience sequence above `after`.
    pub(crate) fn events(&self, after: u64) -> impl Iterator<Item = &AudienceEvent> {
        self.frames
            .iter()
            .filter(move |f| f.seq > after)
            .map(|f| &f.event)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::HallFeed;
    use mafia_rules::sim::simulate;
    use rand::SeedableRng;

    #[test]
    fn the_spliced_snapshot_and_hall_messages_are_what_serde_encodes() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let sim = simulate(mafia_rules::RuleSetId::Club, &mut rng, 0);
        let id = "cup.main.r1.t1.g\"1";
        let setup = mafia_gateway_setup(&sim);
        let mut game = Game::replay(setup, std::iter::empty()).unwrap();
        let mut feed = Feed::new(Audience::Judge, id, &game);
        for env in &sim.events[..40] {
            let seen = game.fold_seen(env).unwrap();
            let Some(p) = feed.push(id, seen.for_audience(Audience::Judge), &game, 8) else {
                continue;
            };
            let hall = encode(&HallFeed::Table {
                game_id: id.to_owned(),
                seq: feed.seq,
                view: feed.view.clone(),
            });
            assert_eq!(p.hall, hall);
            let snapshot = encode(&GameFeed::Snapshot {
                game_id: id.to_owned(),
                seq: feed.seq,
                view: feed.view.clone(),
            });
            assert_eq!(feed.catch_up(None), vec![snapshot]);
        }
    }

    fn mafia_gateway_setup(sim: &mafia_rules::sim::SimulatedGame) -> mafia_rules::Setup {
        let game_id: mafia_record::GameId = "cup.main.r1.t1.g1".parse().unwrap();
        crate::demo::header(sim, &game_id).setup().unwrap()
    }
}
