//! The header of a game: who plays where, under which rules, with which deal.
//! The first line of a record, the payload of the referee's `OpenGame`, and
//! the header stored with each game's event log.

use crate::game_id::{slugify, GameId, GameIdError, StageId, TournamentId};
use crate::game_id::{MAX_STAGE_ID_LEN, MAX_TOURNAMENT_ID_LEN};
use mafia_rules::{Deal, Player, RuleSet, RuleSetId, Seat, Setup, SetupError};
use serde::{Deserialize, Serialize};

/// The record format's name and version, written in every header.
pub const FORMAT: &str = "mafia-arena/1";

/// A rule set as written in a header: a preset id and the parameters that
/// differ from it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RulesRef {
    pub id: RuleSetId,
    #[serde(default = "empty_object", skip_serializing_if = "is_empty_object")]
    pub overrides: serde_json::Value,
}

fn empty_object() -> serde_json::Value {
    serde_json::Value::Object(Default::default())
}

fn is_empty_object(v: &serde_json::Value) -> bool {
    v.as_object().is_some_and(|o| o.is_empty())
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeatEntry {
    pub seat: Seat,
    pub player_id: String,
    pub nickname: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Header {
    pub format: String,
    pub rules: RulesRef,
    /// The tournament's id, part of the game's id. Records written before
    /// ids existed have none: theirs is derived from the name
    /// ([`Header::game_id`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tournament_id: Option<TournamentId>,
    /// The tournament's name, for people.
    pub tournament: String,
    #[serde(default)]
    pub stage: String,
    pub round: u32,
    pub table: u32,
    pub game: u32,
    #[serde(default)]
    pub judge: String,
    pub seats: Vec<SeatEntry>,
    pub deal: Deal,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HeaderError {
    #[error("unsupported record format {0:?}, expected {FORMAT:?}")]
    Format(String),
    #[error("{0}")]
    Rules(#[from] mafia_rules::params::BadOverrides),
    #[error("seats must be listed 1 to 10 in order; entry {index} is seat {seat}")]
    SeatOrder { index: usize, seat: u8 },
    #[error("{0}")]
    Setup(#[from] SetupError),
    #[error("game id: {0}")]
    GameId(#[from] GameIdError),
}

impl Header {
    /// The header of `setup`'s game `id`; the tournament's name is its id
    /// and the judge is left empty.
    pub fn for_setup(setup: &Setup, id: &GameId) -> Header {
        Header {
            format: FORMAT.to_string(),
            rules: RulesRef {
                id: setup.rules.id,
                overrides: setup.rules.overrides(),
            },
            tournament_id: Some(id.tournament.clone()),
            tournament: id.tournament.to_string(),
            stage: id.stage.to_string(),
            round: id.round,
            table: id.table,
            game: id.game,
            judge: String::new(),
            seats: setup
                .players
                .iter()
                .enumerate()
                .map(|(i, p)| SeatEntry {
                    seat: Seat::from_index(i),
                    player_id: p.player_id.clone(),
                    nickname: p.nickname.clone(),
                })
                .collect(),
            deal: setup.deal.clone(),
        }
    }

    /// The header of a simulated game: the preset of `rules`, the default
    /// players (`sim::default_players`), cards dealt from `seed`.
    pub fn simulated(rules: mafia_rules::RuleSetId, id: &GameId, seed: u64) -> Header {
        let setup = Setup::new(
            RuleSet::preset(rules),
            mafia_rules::sim::default_players(),
            Deal::Seed(seed),
        )
        .expect("every preset is playable");
        Header::for_setup(&setup, id)
    }

    /// The game's id: `<tournament id>.<stage>.r<round>.t<table>.g<game>`.
    ///
    /// A header without a `tournament_id` (written before ids existed) gets
    /// one derived from its name: lowercased ASCII letters and digits, runs
    /// of anything else as one `-` (`"Minsk Open"` → `minsk-open`); a name
    /// with no ASCII letter or digit becomes `tournament`. An empty stage is
    /// `main`; a stage that is not already an id is derived the same way.
    pub fn game_id(&self) -> Result<GameId, HeaderError> {
        let tournament = match &self.tournament_id {
            Some(id) => id.clone(),
            None => TournamentId::new(legacy_slug(
                &self.tournament,
                MAX_TOURNAMENT_ID_LEN,
                "tournament",
            ))?,
        };
        let stage = if self.stage.is_empty() {
            StageId::main()
        } else {
            match self.stage.parse::<StageId>() {
                Ok(s) => s,
                Err(_) => StageId::new(legacy_slug(
                    &self.stage,
                    MAX_STAGE_ID_LEN,
                    crate::game_id::DEFAULT_STAGE,
                ))?,
            }
        };
        Ok(GameId::new(
            tournament, stage, self.round, self.table, self.game,
        )?)
    }

    /// The rule set, with overrides applied.
    pub fn rule_set(&self) -> Result<RuleSet, HeaderError> {
        Ok(RuleSet::with_overrides(
            self.rules.id,
            &self.rules.overrides,
        )?)
    }

    /// The validated engine setup this header describes.
    pub fn setup(&self) -> Result<Setup, HeaderError> {
        if self.format != FORMAT {
            return Err(HeaderError::Format(self.format.clone()));
        }
        self.game_id()?;
        for (i, s) in self.seats.iter().enumerate() {
            if s.seat.index() != i {
                return Err(HeaderError::SeatOrder {
                    index: i,
                    seat: s.seat.number(),
                });
            }
        }
        let players = self
            .seats
            .iter()
            .map(|s| Player {
                player_id: s.player_id.clone(),
                nickname: s.nickname.clone(),
            })
            .collect();
        Ok(Setup::new(self.rule_set()?, players, self.deal.clone())?)
    }
}

/// `slugify` with runs of `-` collapsed and trimmed, or `fallback` when
/// nothing is left.
fn legacy_slug(text: &str, max: usize, fallback: &str) -> String {
    let raw = slugify(text, usize::MAX);
    let mut out = String::new();
    for part in raw.split('-').filter(|p| !p.is_empty()) {
        if !out.is_empty() {
            out.push('-');
        }
        out.push_str(part);
    }
    out.truncate(max);
    let out = out.trim_end_matches('-').to_owned();
    if out.is_empty() {
        fallback.to_owned()
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(tournament: &str, stage: &str) -> Header {
        let id: GameId = "x.main.r2.t3.g4".parse().unwrap();
        let mut h = Header::simulated(RuleSetId::Rfm, &id, 1);
        h.tournament_id = None;
        h.tournament = tournament.into();
        h.stage = stage.into();
        h
    }

    #[test]
    fn a_header_with_a_tournament_id_names_its_game_by_it() {
        let id: GameId = "cup-2026.final.r1.t3.g1".parse().unwrap();
        let h = Header::simulated(RuleSetId::Rfm, &id, 1);
        assert_eq!(h.game_id().unwrap(), id);
        let json = serde_json::to_string(&h).unwrap();
        let back: Header = serde_json::from_str(&json).unwrap();
        assert_eq!(back.game_id().unwrap(), id);
    }

    #[test]
    fn a_legacy_header_derives_its_id_from_the_name_and_stage() {
        let id = |t, s| header(t, s).game_id().unwrap().to_string();
        assert_eq!(id("Minsk Open", "final"), "minsk-open.final.r2.t3.g4");
        assert_eq!(id("Minsk Open", ""), "minsk-open.main.r2.t3.g4");
        assert_eq!(id("Кубок Cup 2026!", "Финал"), "cup-2026.main.r2.t3.g4");
        assert_eq!(id("Кубок", "Semi Final"), "tournament.semi-final.r2.t3.g4");
    }

    #[test]
    fn a_header_whose_round_is_zero_has_no_game_id_and_no_setup() {
        let mut h = header("cup", "");
        h.round = 0;
        assert!(matches!(h.game_id(), Err(HeaderError::GameId(_))));
        assert!(h.setup().is_err());
    }
}
