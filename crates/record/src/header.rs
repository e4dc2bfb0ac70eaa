//! The header of a game: who plays where, under which rules, with which deal.
//! The first line of a record, the payload of the referee's `OpenGame`, and
//! the header stored with each game's event log.

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
}

impl Header {
    /// The header of `setup`'s game, with the given place in a tournament;
    /// stage and judge are left empty.
    pub fn for_setup(
        setup: &Setup,
        tournament: impl Into<String>,
        round: u32,
        table: u32,
        game: u32,
    ) -> Header {
        Header {
            format: FORMAT.to_string(),
            rules: RulesRef {
                id: setup.rules.id,
                overrides: setup.rules.overrides(),
            },
            tournament: tournament.into(),
            stage: String::new(),
            round,
            table,
            game,
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
    pub fn simulated(
        rules: mafia_rules::RuleSetId,
        tournament: impl Into<String>,
        round: u32,
        table: u32,
        game: u32,
        seed: u64,
    ) -> Header {
        let setup = Setup::new(
            RuleSet::preset(rules),
            mafia_rules::sim::default_players(),
            Deal::Seed(seed),
        )
        .expect("every preset is playable");
        Header::for_setup(&setup, tournament, round, table, game)
    }

    /// A stable id for the game, `<tournament>.r<round>.t<table>.g<game>`,
    /// made only of `[A-Za-z0-9_.-]` so it is safe in storage keys and URLs:
    /// other characters of the tournament name become `-`.
    pub fn game_id(&self) -> String {
        let slug: String = self
            .tournament
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        format!("{slug}.r{}.t{}.g{}", self.round, self.table, self.game)
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
