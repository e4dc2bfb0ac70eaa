//! What scoring needs to know about a finished game, taken from the rules
//! engine once so that the tournament log is self-contained: replaying it
//! never needs the game's own log.

use crate::model::PlayerId;
use mafia_rules::event::Event;
use mafia_rules::{Cause, Envelope, Game, Role, Seat, SeatList, Team, When, SEATS};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DepartureFact {
    pub when: When,
    pub cause: Cause,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatFact {
    pub seat: Seat,
    pub player: PlayerId,
    pub role: Role,
    #[serde(default)]
    pub out: Option<DepartureFact>,
    #[serde(default)]
    pub fouls: u8,
    #[serde(default)]
    pub small_penalties: u8,
    #[serde(default)]
    pub big_penalties: u8,
    #[serde(default)]
    pub yellow_cards: u8,
    /// Disqualified, at the table or in his own last words (where his
    /// departure stays a vote or a shot).
    #[serde(default, skip_serializing_if = "is_false")]
    pub disqualified: bool,
    /// His fouls (ua: technical fouls) reached the count that removes a
    /// player, at the table or in his own last words.
    #[serde(default, skip_serializing_if = "is_false")]
    pub fouled_out: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl SeatFact {
    pub fn team(&self) -> Team {
        self.role.team()
    }

    /// Removed: the 4th foul, a disqualification, ua's 2nd technical foul,
    /// at the table or in his own last words, which ends them and leaves
    /// him his vote or shot as departure; the penalty is the same (rfm
    /// §5.12, §5.15, minsk2017 §8.2.5).
    pub fn removed(&self) -> bool {
        self.disqualified || self.fouled_out || self.out.is_some_and(|d| d.cause.is_removal())
    }

    /// Removed by fouls and not disqualified (a log written before the
    /// flags says so by the departure's cause alone).
    pub fn only_fouled_out(&self) -> bool {
        !self.disqualified
            && (self.fouled_out
                || self
                    .out
                    .is_some_and(|d| matches!(d.cause, Cause::Fouls | Cause::TechnicalFouls)))
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BestMoveFact {
    pub seat: Seat,
    pub named: SeatList,
    pub hits: u8,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameFacts {
    /// Ten seats, in seat order.
    pub seats: Vec<SeatFact>,
    /// `None` for a draw.
    pub winner: Option<Team>,
    /// The engine's end reason ("black_parity", "all_out", …).
    pub reason: String,
    /// Shot on night 1, the first night after the mafia's agreement (rfm's
    /// "second game night"): the player Ci compensates.
    #[serde(default)]
    pub first_killed: Option<Seat>,
    #[serde(default)]
    pub best_move: Option<BestMoveFact>,
    /// The seat whose act gave the opposite team the victory (ППК).
    #[serde(default)]
    pub opposite_team_victory: Option<Seat>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FactsError {
    #[error("the game is not over")]
    Unfinished,
    #[error("the game has {0} players, not 10")]
    Players(usize),
}

impl GameFacts {
    /// The facts of a finished game. `events` are the game's envelopes; only
    /// the opposite-team-victory seat is read from them (the state keeps no
    /// trace of who gave it).
    pub fn from_game(game: &Game, events: &[Envelope]) -> Result<GameFacts, FactsError> {
        let outcome = game.result().ok_or(FactsError::Unfinished)?;
        let players = &game.setup().players;
        if players.len() != SEATS {
            return Err(FactsError::Players(players.len()));
        }
        let c = game.core();
        let seats = Seat::all()
            .map(|s| {
                let st = &c.seats[s.index()];
                SeatFact {
                    seat: s,
                    player: PlayerId::new(players[s.index()].player_id.clone()),
                    role: c.role(s),
                    out: st.out.map(|d| DepartureFact {
                        when: d.when,
                        cause: d.cause,
                    }),
                    fouls: st.fouls,
                    small_penalties: st.small_penalties,
                    big_penalties: st.big_penalties,
                    yellow_cards: st.yellow_cards,
                    disqualified: st.disqualified,
                    fouled_out: game.fouled_out(s),
                }
            })
            .collect();
        let opposite_team_victory = events.iter().rev().find_map(|e| match e.event {
            Event::OppositeTeamVictory { seat } => Some(seat),
            _ => None,
        });
        Ok(GameFacts {
            seats,
            winner: outcome.winner,
            reason: mafia_rules::summary::reason_name(outcome.reason).to_owned(),
            first_killed: c.first_killed,
            best_move: c.best_move.map(|b| BestMoveFact {
                seat: b.seat,
                named: b.named,
                hits: b.hits,
            }),
            opposite_team_victory,
        })
    }

    pub fn seat(&self, s: Seat) -> &SeatFact {
        &self.seats[s.index()]
    }

    /// Win, loss or draw for a team.
    pub fn outcome_for(&self, team: Team) -> Outcome {
        Outcome::of(self.winner, team)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Win,
    Loss,
    Draw,
}

impl Outcome {
    /// What a game won by `winner` (`None`: a draw) is for `team`.
    pub fn of(winner: Option<Team>, team: Team) -> Outcome {
        match winner {
            None => Outcome::Draw,
            Some(w) if w == team => Outcome::Win,
            Some(_) => Outcome::Loss,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Win => "win",
            Outcome::Loss => "loss",
            Outcome::Draw => "draw",
        }
    }
}
