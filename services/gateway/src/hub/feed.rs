//! One audience's feed of one game: the current view and snapshot, and the
//! recent deltas for resuming, each encoded once to shared bytes.
//!
//! A view is written once per event, straight from the engine's typed
//! `GameView` to canonical JSON (`crate::canonical`), and its patch is
//! read off the previous and the new encoding (`patch::diff_bytes`): no
//! `serde_json::Value` is built on the way.

use std::collections::VecDeque;
use std::sync::OnceLock;

use bytes::Bytes;
use mafia_rules::view::Shown;
use mafia_rules::{Audience, Game};
use serde_json::Value;

use super::game::{AudienceEvent, GameInfo};
use crate::canonical::Canonical;
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
    /// The engine's view in canonical JSON, as of `seq`: deltas are
    /// diffed against it, and the hall message and the snapshot splice it in.
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

fn push_u64(out: &mut Vec<u8>, n: u64) {
    use std::io::Write;
    write!(out, "{n}").expect("writing to a Vec");
}

impl Feed {
    /// `start` is the game before its deal, which the engine shows as such.
    pub(crate) fn new(audience: Audience, game_id: &str, start: &Game, w: &mut Canonical) -> Feed {
        let view = w.write(&start.view(audience)).expect("views serialize");
        Feed {
            audience,
            seq: 0,
            over: false,
            view_json: Bytes::copy_from_slice(view),
            id_json: Bytes::from(serde_json::to_vec(game_id).expect("strings serialize")),
            snapshot: OnceLock::new(),
            frames: VecDeque::new(),
        }
    }

    /// The engine's view as of `seq`, as a JSON value.
    pub(crate) fn view(&self) -> Value {
        serde_json::from_slice(&self.view_json).expect("the hub's own JSON")
    }

    /// `{"type":<kind>,"game_id":…,"info":…,"seq":…,"view":…}` from the
    /// encoded view, as serde encodes `GameFeed::Snapshot`,
    /// `HallFeed::Table` and (without a kind) `HallEntry`: `type` and
    /// `info` only when given.
    fn write(&self, kind: Option<&str>, info: Option<&GameInfo>, out: &mut Vec<u8>) {
        out.push(b'{');
        if let Some(kind) = kind {
            out.extend_from_slice(b"\"type\":\"");
            out.extend_from_slice(kind.as_bytes());
            out.extend_from_slice(b"\",");
        }
        out.extend_from_slice(b"\"game_id\":");
        out.extend_from_slice(&self.id_json);
        if let Some(info) = info {
            out.extend_from_slice(b",\"info\":");
            serde_json::to_writer(&mut *out, info).expect("game infos serialize");
        }
        out.extend_from_slice(b",\"seq\":");
        push_u64(out, self.seq);
        out.extend_from_slice(b",\"view\":");
        out.extend_from_slice(&self.view_json);
        out.push(b'}');
    }

    fn with_view(&self, kind: &str, info: Option<&GameInfo>) -> Bytes {
        let mut out = Vec::with_capacity(self.view_json.len() + self.id_json.len() + 256);
        self.write(Some(kind), info, &mut out);
        Bytes::from(out)
    }

    /// This game's entry in a hall `tables` message, appended to `out`.
    pub(crate) fn hall_entry(&self, info: &GameInfo, out: &mut Vec<u8>) {
        self.write(None, Some(info), out);
    }

    /// The hall's `table` message that brings a new game, with its info:
    /// what a `tables` message taken now would hold for it, so a hall
    /// screen that was there first learns the same.
    pub(crate) fn hall_new_game(&self, info: &GameInfo) -> Bytes {
        self.with_view("table", Some(info))
    }

    fn snapshot(&self) -> Bytes {
        self.snapshot
            .get_or_init(|| self.with_view("snapshot", None))
            .clone()
    }

    /// Publishes what the engine shows this audience of one event (`None`:
    /// nothing), with the engine's numbering and its view of `game`, which
    /// has just folded the event.
    pub(crate) fn push(
        &mut self,
        shown: Option<Shown>,
        game: &Game,
        history: usize,
        w: &mut Canonical,
    ) -> Option<Pushed> {
        let event = shown?;
        self.over = game.result().is_some();
        self.seq = event.seq as u64;
        let view = w.write(&game.view(self.audience)).expect("views serialize");
        // `GameFeed::Delta` as serde encodes it, the patch spliced in.
        let mut delta = Vec::with_capacity(512);
        delta.extend_from_slice(b"{\"type\":\"delta\",\"game_id\":");
        delta.extend_from_slice(&self.id_json);
        delta.extend_from_slice(b",\"seq\":");
        push_u64(&mut delta, self.seq);
        delta.extend_from_slice(b",\"event\":");
        serde_json::to_writer(&mut delta, &event).expect("events serialize");
        delta.extend_from_slice(b",\"patch\":");
        patch::diff_bytes(&self.view_json, view, &mut delta);
        delta.push(b'}');
        let delta = Bytes::from(delta);
        if *view != *self.view_json {
            self.view_json = Bytes::copy_from_slice(view);
        }
        self.snapshot = OnceLock::new();
        self.frames.push_back(Frame {
            seq: self.seq,
            bytes: delta.clone(),
            event,
        });
        while self.frames.len() > history {
            self.frames.pop_front();
        }
        let hall = self.with_view("table", None);
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
    use crate::messages::{encode, GameFeed, HallEntry, HallFeed};
    use mafia_rules::sim::simulate;
    use mafia_rules::RuleSetId;
    use rand::SeedableRng;

    const AUDIENCES: [Audience; 3] = [Audience::Public, Audience::Broadcast, Audience::Judge];

    /// The game's info, and its setup.
    fn opened(sim: &mafia_rules::sim::SimulatedGame) -> (GameInfo, mafia_rules::Setup) {
        let game_id: mafia_record::GameId = "cup.main.r1.t1.g1".parse().unwrap();
        let header = crate::demo::header(sim, &game_id);
        (GameInfo::new(&game_id, &header), header.setup().unwrap())
    }

    fn stripped(mut v: Value) -> Value {
        patch::strip_nulls(&mut v);
        v
    }

    /// Plays a simulated game into a feed per audience and checks every
    /// message against the `Value` path the hub used to take: the same
    /// bytes, and a patch that turns the client's copy into the new view.
    fn check_game(rules: RuleSetId, seed: u64) -> Result<(), proptest::test_runner::TestCaseError> {
        use proptest::prop_assert_eq;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let sim = simulate(rules, &mut rng, 1_700_000_000_000);
        // Quotes in the id: the spliced messages must escape it as serde does.
        let id = "cup.main.r1.t1.g\"1";
        let (info, setup) = opened(&sim);
        let mut game = Game::replay(setup, std::iter::empty()).unwrap();
        let mut w = Canonical::default();
        let mut feeds = AUDIENCES.map(|a| Feed::new(a, id, &game, &mut w));
        let mut views = AUDIENCES.map(|a| serde_json::to_value(game.view(a)).unwrap());
        let mut clients = views.clone();
        for (a, f) in AUDIENCES.iter().zip(&feeds) {
            let view = serde_json::to_value(game.view(*a)).unwrap();
            prop_assert_eq!(f.view(), view.clone());
            let new_game = encode(&HallFeed::Table {
                game_id: id.to_owned(),
                info: Some(Box::new(info.clone())),
                seq: 0,
                view: view.clone(),
            });
            prop_assert_eq!(f.hall_new_game(&info), new_game);
            let mut entry = Vec::new();
            f.hall_entry(&info, &mut entry);
            let tables = encode(&HallFeed::Tables {
                tables: vec![HallEntry {
                    game_id: id.to_owned(),
                    info: info.clone(),
                    seq: 0,
                    view,
                }],
            });
            prop_assert_eq!(
                [&b"{\"type\":\"tables\",\"tables\":["[..], &entry, b"]}"].concat(),
                tables.to_vec()
            );
        }
        for env in &sim.events {
            let seen = game.fold_seen(env).unwrap();
            for (i, a) in AUDIENCES.into_iter().enumerate() {
                let shown = seen.for_audience(a);
                let Some(p) = feeds[i].push(shown, &game, 8, &mut w) else {
                    prop_assert_eq!(shown, None);
                    continue;
                };
                let event = shown.unwrap();
                let new = serde_json::to_value(game.view(a)).unwrap();
                let patch = patch::diff(&views[i], &new).unwrap_or_else(|| serde_json::json!({}));
                let delta = encode(&GameFeed::Delta {
                    game_id: id.to_owned(),
                    seq: event.seq as u64,
                    event,
                    patch: patch.clone(),
                });
                prop_assert_eq!(
                    std::str::from_utf8(&p.delta).unwrap(),
                    std::str::from_utf8(&delta).unwrap()
                );
                let hall = encode(&HallFeed::Table {
                    game_id: id.to_owned(),
                    info: None,
                    seq: event.seq as u64,
                    view: new.clone(),
                });
                prop_assert_eq!(&p.hall, &hall);
                let snapshot = encode(&GameFeed::Snapshot {
                    game_id: id.to_owned(),
                    seq: event.seq as u64,
                    view: new.clone(),
                });
                prop_assert_eq!(feeds[i].catch_up(None), vec![snapshot]);
                // What a client does with the delta.
                let sent: Value = serde_json::from_slice(&p.delta).unwrap();
                patch::apply(&mut clients[i], &sent["patch"]);
                prop_assert_eq!(stripped(clients[i].clone()), stripped(new.clone()));
                views[i] = new;
            }
        }
        Ok(())
    }

    #[test]
    fn every_message_of_a_game_is_what_the_value_path_encoded_for_every_rule_set_and_audience() {
        for (i, rules) in RuleSetId::ALL.into_iter().enumerate() {
            check_game(rules, i as u64).unwrap();
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 48, ..Default::default() })]

        /// Applying each delta's patch to the previous view gives the new
        /// view, and the bytes are the ones the `Value` path gave.
        #[test]
        fn patches_turn_each_view_into_the_next_in_simulated_games(
            rules in proptest::sample::select(RuleSetId::ALL.to_vec()),
            seed in proptest::prelude::any::<u64>(),
        ) {
            check_game(rules, seed)?;
        }
    }
}
