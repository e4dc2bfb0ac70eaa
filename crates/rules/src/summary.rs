//! The outcome of a game in the shape `mafia replay` prints.

use crate::event::{EndReason, Outcome};
use crate::game::Game;
use crate::role::Team;
use crate::seat::{Seat, SeatList};
use crate::state::When;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DepartureSummary {
    pub seat: Seat,
    /// "day N" or "night N".
    pub when: String,
    pub cause: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BestMoveSummary {
    pub seat: Seat,
    pub named: SeatList,
    pub hits: u8,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    pub result: GameResult,
    pub reason: Option<EndReason>,
    pub departures: Vec<DepartureSummary>,
    /// Fouls by seat number, seats with none left out.
    pub fouls: BTreeMap<String, u8>,
    pub best_move: Option<BestMoveSummary>,
    /// Seats disqualified in their own last words: their departure (vote,
    /// shot) stands, the disqualification counts in scoring.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disqualified_in_last_words: Vec<Seat>,
    /// Seats given a foul, a penalty or a removal after the result was
    /// fixed: the result stands (classic §6.9, rfm §5.15, ua §1.9).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sanctioned_after_result: Vec<Seat>,
}

/// How a game came out, as reports name it ("red", "black", "draw",
/// "unfinished" in JSON).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameResult {
    Red,
    Black,
    Draw,
    Unfinished,
}

impl GameResult {
    pub const ALL: [GameResult; 4] = [
        GameResult::Red,
        GameResult::Black,
        GameResult::Draw,
        GameResult::Unfinished,
    ];

    pub fn of(outcome: Option<Outcome>) -> GameResult {
        match outcome {
            None => GameResult::Unfinished,
            Some(Outcome { winner: None, .. }) => GameResult::Draw,
            Some(Outcome {
                winner: Some(Team::Red),
                ..
            }) => GameResult::Red,
            Some(Outcome {
                winner: Some(Team::Black),
                ..
            }) => GameResult::Black,
        }
    }

    /// The name serde writes.
    pub const fn as_str(self) -> &'static str {
        match self {
            GameResult::Red => "red",
            GameResult::Black => "black",
            GameResult::Draw => "draw",
            GameResult::Unfinished => "unfinished",
        }
    }
}

impl std::fmt::Display for GameResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

pub fn reason_name(reason: EndReason) -> &'static str {
    match reason {
        EndReason::AllBlackOut => "all_black_out",
        EndReason::BlackParity => "black_parity",
        EndReason::NoDepartures => "no_departures",
        EndReason::AllOut => "all_out",
        EndReason::OppositeTeamVictory => "opposite_team_victory",
        EndReason::NightsWithoutKill => "nights_without_kill",
    }
}

fn order(w: When) -> u16 {
    match w {
        When::Night(n) => n as u16 * 2,
        When::Day(n) => n as u16 * 2 - 1,
    }
}

impl Game {
    pub fn summary(&self) -> Summary {
        let c = self.core();
        let mut departures: Vec<_> = Seat::all()
            .filter_map(|s| c.seats[s.index()].out.map(|d| (s, d)))
            .collect();
        departures.sort_by_key(|(s, d)| (order(d.when), *s));
        Summary {
            result: GameResult::of(c.result),
            reason: c.result.map(|o| o.reason),
            departures: departures
                .into_iter()
                .map(|(seat, d)| DepartureSummary {
                    seat,
                    when: d.when.to_string(),
                    cause: d.cause.as_str().to_string(),
                })
                .collect(),
            fouls: Seat::all()
                .filter(|s| c.seats[s.index()].fouls > 0)
                .map(|s| (s.to_string(), c.seats[s.index()].fouls))
                .collect(),
            best_move: c.best_move.map(|b| BestMoveSummary {
                seat: b.seat,
                named: b.named,
                hits: b.hits,
            }),
            disqualified_in_last_words: Seat::all()
                .filter(|s| {
                    let st = c.seats[s.index()];
                    st.disqualified && st.out.is_some_and(|d| !d.cause.is_removal())
                })
                .collect(),
            sanctioned_after_result: c.sanctioned_after_result.iter().collect(),
        }
    }
}
