//! One audience's feed of one game: the current view and snapshot, and the
//! recent deltas for resuming, each encoded once to shared bytes.

use std::collections::VecDeque;

use bytes::Bytes;
use mafia_rules::view::Shown;
use mafia_rules::{Audience, Game};
use serde_json::{json, Value};

use crate::messages::{encode, GameFeed, HallFeed};

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
    snapshot: Bytes,
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
            snapshot: Bytes::new(),
            frames: VecDeque::new(),
        };
        feed.view = feed.render(start);
        feed.snapshot = feed.encode_snapshot(game_id);
        feed
    }

    fn render(&self, game: &Game) -> Value {
        serde_json::to_value(game.view(self.audience)).expect("views serialize")
    }

    fn encode_snapshot(&self, game_id: &str) -> Bytes {
        encode(&GameFeed::Snapshot {
            game_id: game_id.to_owned(),
            seq: self.seq,
            view: self.view.clone(),
        })
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
        let delta = encode(&GameFeed::Delta {
            game_id: game_id.to_owned(),
            seq: self.seq,
            event,
            patch,
        });
        self.snapshot = self.encode_snapshot(game_id);
        self.frames.push_back(Frame {
            seq: self.seq,
            bytes: delta.clone(),
            event,
        });
        while self.frames.len() > history {
            self.frames.pop_front();
        }
        let hall = encode(&HallFeed::Table {
            game_id: game_id.to_owned(),
            seq: self.seq,
            view: self.view.clone(),
        });
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
        vec![self.snapshot.clone()]
    }

    /// Retained events with an audience sequence above `after`.
    pub(crate) fn events(&self, after: u64) -> impl Iterator<Item = &AudienceEvent> {
        self.frames
            .iter()
            .filter(move |f| f.seq > after)
            .map(|f| &f.event)
    }
}
