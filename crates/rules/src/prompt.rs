//! What the judge must do next.

use crate::event::Step;
use crate::game::Game;
use crate::params::{Night0Step, NightAction};
use crate::seat::{Seat, SeatList, SeatSet};
use serde::{Deserialize, Serialize};

/// The next thing the table judge has to enter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "expect", rename_all = "snake_case")]
pub enum Expect {
    /// End the night-0 step with `next_step` when its time is up.
    Night0 {
        step: Night0Step,
    },
    /// Seat speaks (`start_speech`, nominations, `end_speech`).
    Speech {
        seat: Seat,
        tie: bool,
        nominations_only: bool,
        started: bool,
        may_nominate: bool,
        /// The speaker may withdraw his nomination now (`withdraw`).
        /// Defaulted so a prompt from a referee that predates it still
        /// reads.
        #[serde(default)]
        may_withdraw: bool,
    },
    FreeTalk,
    /// Who wants a vote today (`vote_call`).
    VoteCall {
        voters: SeatSet,
    },
    /// Hands against this nominee (`vote`).
    Vote {
        nominee: Seat,
        round: u8,
        not_yet_voted: SeatSet,
    },
    /// The voter names his candidate (`ballot`).
    Ballot {
        voter: Seat,
        candidates: SeatList,
    },
    /// Hands for "shall all of them leave?" (`lift`).
    Lift {
        seats: SeatList,
    },
    LastWords {
        seat: Seat,
        testament: bool,
    },
    BeautyPick {
        beauty: Seat,
    },
    /// These black players have yet to shoot (`shot`); before `started`
    /// the judge says "mafia, shoot" (`start_shooting`), which the first
    /// shot implies.
    Shots {
        pending: SeatSet,
        started: bool,
    },
    DonCheck {
        don: Seat,
    },
    SheriffCheck {
        sheriff: Seat,
    },
    BestMove {
        seat: Seat,
    },
    GameOver,
}

/// A prompt: what is expected and its time limit under the rule set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Prompt {
    #[serde(flatten)]
    pub expect: Expect,
    /// The time limit in seconds, when the step has one.
    pub secs: Option<u16>,
}

impl Prompt {
    fn new(expect: Expect, secs: u16) -> Prompt {
        Prompt {
            expect,
            secs: (secs > 0).then_some(secs),
        }
    }
}

impl Game {
    /// What the judge must do next, with the rule set's time limit.
    pub fn expected(&self) -> Prompt {
        self.prompt().unwrap_or(Prompt::new(Expect::GameOver, 0))
    }

    /// `None` only for a state no legal history reaches (a forged log).
    fn prompt(&self) -> Option<Prompt> {
        let c = self.core();
        let p = self.params();
        Some(match c.step {
            Step::Night0 { step, secs, .. } => Prompt::new(Expect::Night0 { step }, secs),
            Step::Speech {
                seat,
                secs,
                tie,
                nominations_only,
            } => Prompt::new(
                Expect::Speech {
                    seat,
                    tie,
                    nominations_only,
                    started: c.speech_started_at.is_some(),
                    may_nominate: crate::game::nomination_open(c, p, seat).is_ok(),
                    may_withdraw: crate::game::withdrawable(c, p, seat).is_ok(),
                },
                secs,
            ),
            Step::FreeTalk { secs } => Prompt::new(Expect::FreeTalk, secs),
            Step::VoteCall => Prompt::new(Expect::VoteCall { voters: c.living() }, 0),
            Step::Voting { round } => Prompt::new(
                Expect::Vote {
                    nominee: c.candidates.get(c.vote_pos as usize)?,
                    round,
                    not_yet_voted: c.living().difference(c.voted),
                },
                0,
            ),
            Step::RollCall { first, .. } => {
                let mut s = first;
                let mut voter = first;
                for _ in 0..10 {
                    if c.alive(s) && !c.voted.contains(s) {
                        voter = s;
                        break;
                    }
                    s = s.next();
                }
                Prompt::new(
                    Expect::Ballot {
                        voter,
                        candidates: c.candidates,
                    },
                    0,
                )
            }
            Step::Lift => Prompt::new(
                Expect::Lift {
                    seats: c.candidates.filtered(c.living()),
                },
                0,
            ),
            Step::LastWords {
                seat,
                secs,
                testament,
            } => Prompt::new(Expect::LastWords { seat, testament }, secs),
            Step::Night { action, secs } => {
                let role_seat = |r| c.seat_of(r);
                let expect = match action {
                    NightAction::BeautyPick => Expect::BeautyPick {
                        beauty: role_seat(crate::Role::Beauty)?,
                    },
                    NightAction::Shooting => Expect::Shots {
                        pending: Seat::all()
                            .filter(|s| {
                                c.alive(*s)
                                    && c.role(*s).team() == crate::Team::Black
                                    && c.picked != Some(*s)
                                    && !c.shot.contains(*s)
                            })
                            .collect(),
                        started: c.shooting_started,
                    },
                    NightAction::DonCheck => Expect::DonCheck {
                        don: role_seat(crate::Role::Don)?,
                    },
                    NightAction::SheriffCheck => Expect::SheriffCheck {
                        sheriff: role_seat(crate::Role::Sheriff)?,
                    },
                };
                Prompt::new(expect, secs)
            }
            Step::BestMove { seat, secs } => Prompt::new(Expect::BestMove { seat }, secs),
            // Nothing is asked of the judge: `Game::new` deals.
            Step::Ended | Step::BeforeDeal => Prompt::new(Expect::GameOver, 0),
        })
    }
}
