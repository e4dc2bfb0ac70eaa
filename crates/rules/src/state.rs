//! The game's data and how each event changes it. `fold` is the only place
//! state is written: `Game::apply` emits events and folds them, replay folds
//! stored ones, so both reach the same state by construction.

use crate::event::{Cause, Event, Outcome, Step};
use crate::params::Params;
use crate::role::{Role, Team};
use crate::seat::{Seat, SeatList, SeatSet, SEATS};
use crate::setup::Roles;
use serde::{Deserialize, Serialize};

/// When something happened: day N or night N.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum When {
    Day(u8),
    Night(u8),
}

impl std::fmt::Display for When {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            When::Day(n) => write!(f, "day {n}"),
            When::Night(n) => write!(f, "night {n}"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Departure {
    pub cause: Cause,
    pub when: When,
}

/// A third foul's effect on the speech of `day`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mute {
    pub day: u8,
    /// Given after his speech of the day: rfm's 10-second nomination slot.
    pub carried: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatState {
    pub out: Option<Departure>,
    pub fouls: u8,
    pub technical_fouls: u8,
    pub small_penalties: u8,
    pub big_penalties: u8,
    pub yellow_cards: u8,
    pub mute: Option<Mute>,
    /// Disqualified: removed from the table, or while leaving, in his own
    /// last words.
    #[serde(default)]
    pub disqualified: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BestMove {
    pub seat: Seat,
    pub named: SeatList,
    pub hits: u8,
}

/// Everything the rules need to know about a game in progress. `Copy`, so an
/// undo checkpoint is a plain copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Core {
    pub roles: Roles,
    pub seats: [SeatState; SEATS],
    pub step: Step,
    pub step_started_at: i64,
    pub speech_started_at: Option<i64>,
    pub day: u8,
    pub night: u8,
    pub opener: Option<Seat>,
    /// Seats whose turn of today has come (spoken, skipped or in progress).
    pub spoken: SeatSet,
    pub tie_spoken: SeatSet,
    pub nominees: SeatList,
    /// By nominator: the seat he nominated today.
    pub nomination_of: [Option<Seat>; SEATS],
    pub candidates: SeatList,
    pub round: u8,
    pub vote_pos: u8,
    pub tally: [u8; SEATS],
    pub voted: SeatSet,
    /// Today's vote has reached its result (or was skipped).
    pub vote_done: bool,
    pub vote_cancelled: bool,
    pub cancel_next: u8,
    pub free_talk_done: bool,
    pub words_due: SeatList,
    pub rollcall_start: Seat,
    pub shot: SeatSet,
    /// The shooting count of this night has begun ("mafia, shoot", or
    /// implied by the first shot).
    pub shooting_started: bool,
    pub shot_target: [Option<Seat>; SEATS],
    /// Black players who shot at a second seat tonight: a miss.
    pub shot_twice: SeatSet,
    pub picked: Option<Seat>,
    /// The Beauty's pick and the day he must stay silent.
    pub silenced: Option<(Seat, u8)>,
    /// Tonight's kill.
    pub kill: Option<Seat>,
    /// Players removed tonight; their vote cancellations are settled in the morning.
    pub removed_tonight: SeatSet,
    /// Players removed tonight before the shooting began (ua §5.6).
    pub removed_before_shooting: SeatSet,
    pub first_killed: Option<Seat>,
    pub best_move: Option<BestMove>,
    pub best_move_night: bool,
    pub day1_vote_outs: u8,
    pub early_outs: u8,
    /// Phases in a row, from a night, with nobody leaving.
    pub quiet: u8,
    pub departed: bool,
    pub nights_without_kill: u8,
    pub result: Option<Outcome>,
    /// Seats given a foul, a penalty or a removal after the result was
    /// fixed: the result stands, the sanction counts in scoring.
    pub sanctioned_after_result: SeatSet,
}

impl Core {
    pub fn new(roles: Roles) -> Core {
        Core {
            roles,
            seats: [SeatState::default(); SEATS],
            step: Step::BeforeDeal,
            step_started_at: 0,
            speech_started_at: None,
            day: 0,
            night: 0,
            opener: None,
            spoken: SeatSet::EMPTY,
            tie_spoken: SeatSet::EMPTY,
            nominees: SeatList::EMPTY,
            nomination_of: [None; SEATS],
            candidates: SeatList::EMPTY,
            round: 0,
            vote_pos: 0,
            tally: [0; SEATS],
            voted: SeatSet::EMPTY,
            vote_done: false,
            vote_cancelled: false,
            cancel_next: 0,
            free_talk_done: false,
            words_due: SeatList::EMPTY,
            rollcall_start: Seat::from_index(0),
            shot: SeatSet::EMPTY,
            shooting_started: false,
            shot_target: [None; SEATS],
            shot_twice: SeatSet::EMPTY,
            picked: None,
            silenced: None,
            kill: None,
            removed_tonight: SeatSet::EMPTY,
            removed_before_shooting: SeatSet::EMPTY,
            first_killed: None,
            best_move: None,
            best_move_night: false,
            day1_vote_outs: 0,
            early_outs: 0,
            quiet: 0,
            departed: false,
            nights_without_kill: 0,
            result: None,
            sanctioned_after_result: SeatSet::EMPTY,
        }
    }

    pub fn role(&self, s: Seat) -> Role {
        self.roles[s.index()]
    }
    pub fn alive(&self, s: Seat) -> bool {
        self.seats[s.index()].out.is_none()
    }
    pub fn living(&self) -> SeatSet {
        Seat::all().filter(|s| self.alive(*s)).collect()
    }
    pub fn seat_of(&self, role: Role) -> Option<Seat> {
        Seat::all().find(|s| self.role(*s) == role)
    }
    pub fn is_night(&self) -> bool {
        self.step.is_night()
    }
    pub fn when(&self) -> When {
        if self.is_night() {
            When::Night(self.night)
        } else {
            When::Day(self.day)
        }
    }
    /// Living red and black players.
    pub fn counts(&self) -> (usize, usize) {
        let mut red = 0;
        let mut black = 0;
        for s in Seat::all().filter(|s| self.alive(*s)) {
            match self.role(s).team() {
                Team::Red => red += 1,
                Team::Black => black += 1,
            }
        }
        (red, black)
    }

    pub(crate) fn fold(&mut self, event: &Event, at: i64, params: &Params) {
        if self.result.is_some() {
            if let Event::Fouled { seat, .. }
            | Event::TechnicalFouled { seat, .. }
            | Event::Penalized { seat, .. }
            | Event::YellowCarded { seat }
            | Event::Left { seat, .. }
            | Event::Disqualified { seat } = *event
            {
                self.sanctioned_after_result.insert(seat);
            }
        }
        match *event {
            Event::Dealt { roles } => self.roles = roles,
            // Checked against the deal when made (`Game::reveal_deal`).
            Event::DealRevealed(_) => {}
            Event::StepStarted { step } => {
                self.step = step;
                self.step_started_at = at;
                self.speech_started_at = None;
                match step {
                    Step::Speech { seat, tie, .. } => {
                        if tie {
                            self.tie_spoken.insert(seat);
                        } else {
                            self.spoken.insert(seat);
                        }
                    }
                    Step::Voting { round } | Step::RollCall { round, .. } => {
                        if let Step::RollCall { round: 0, first } = step {
                            self.rollcall_start = first.next();
                        }
                        self.round = round;
                        self.vote_pos = 0;
                        self.tally = [0; SEATS];
                        self.voted = SeatSet::EMPTY;
                    }
                    Step::FreeTalk { .. } => self.free_talk_done = true,
                    Step::LastWords {
                        seat,
                        testament: false,
                        ..
                    } => self.words_due.remove(seat),
                    _ => {}
                }
            }
            Event::DayStarted {
                day, opener, quiet, ..
            } => {
                if day > 1 {
                    self.nights_without_kill = if self.kill.is_some() {
                        0
                    } else {
                        self.nights_without_kill.saturating_add(1)
                    };
                }
                self.day = day;
                self.opener = Some(opener);
                self.spoken = SeatSet::EMPTY;
                self.tie_spoken = SeatSet::EMPTY;
                self.nominees = SeatList::EMPTY;
                self.nomination_of = [None; SEATS];
                self.candidates = SeatList::EMPTY;
                self.vote_done = false;
                self.vote_cancelled = false;
                self.free_talk_done = false;
                self.quiet = quiet;
                self.departed = false;
            }
            Event::NightStarted { night, quiet } => {
                self.night = night;
                self.kill = None;
                self.removed_tonight = SeatSet::EMPTY;
                self.removed_before_shooting = SeatSet::EMPTY;
                self.picked = None;
                self.shot = SeatSet::EMPTY;
                self.shooting_started = false;
                self.shot_target = [None; SEATS];
                self.shot_twice = SeatSet::EMPTY;
                self.quiet = quiet;
                self.departed = false;
            }
            Event::SpeechStarted { .. } => self.speech_started_at = Some(at),
            Event::SpeechEnded { .. } => {}
            Event::TurnSkipped { seat } => {
                self.spoken.insert(seat);
            }
            Event::Nominated { by, target } => {
                self.nominees.push(target);
                self.nomination_of[by.index()] = Some(target);
            }
            Event::Withdrawn { by, target } => {
                self.nominees.remove(target);
                self.nomination_of[by.index()] = None;
            }
            Event::Fouled { seat, fouls } => self.seats[seat.index()].fouls = fouls,
            Event::Muted { seat, day, carried } => {
                self.seats[seat.index()].mute = Some(Mute { day, carried })
            }
            Event::TechnicalFouled { seat, count } => {
                self.seats[seat.index()].technical_fouls = count
            }
            Event::Penalized { seat, kind } => {
                let s = &mut self.seats[seat.index()];
                match kind {
                    crate::command::PenaltyKind::Small => s.small_penalties += 1,
                    crate::command::PenaltyKind::Big => s.big_penalties += 1,
                }
            }
            Event::YellowCarded { seat } => self.seats[seat.index()].yellow_cards += 1,
            Event::Disqualified { seat } => self.seats[seat.index()].disqualified = true,
            Event::Left { seat, cause } => {
                let when = self.when();
                self.seats[seat.index()].out = Some(Departure { cause, when });
                if cause == Cause::Disqualified {
                    self.seats[seat.index()].disqualified = true;
                }
                let d = params.draw;
                if !cause.is_removal()
                    || (d.removal_breaks_streak
                        && (!self.is_night() || d.night_removal_breaks_streak))
                {
                    self.departed = true;
                }
                self.nights_without_kill = 0;
                if cause.is_removal() && self.is_night() {
                    self.removed_tonight.insert(seat);
                    if !self.shooting_started {
                        self.removed_before_shooting.insert(seat);
                    }
                }
                match cause {
                    Cause::Vote | Cause::Lift => {
                        self.vote_done = true;
                        self.words_due.push(seat);
                        if self.day == 1 {
                            self.day1_vote_outs += 1;
                        }
                    }
                    Cause::Shot => {
                        self.kill = Some(seat);
                        self.words_due.push(seat);
                    }
                    _ => {}
                }
                // Up to the end of night 1 (ua §5.12), the night's kill aside.
                if cause != Cause::Shot && self.day <= 1 {
                    self.early_outs += 1;
                }
            }
            Event::VotesCancelled { today, next_days } => {
                self.vote_cancelled = today;
                self.cancel_next = next_days;
            }
            Event::VoteSkipped { .. } => self.vote_done = true,
            Event::VoteCalled { .. } => {}
            Event::Candidates { seats } => self.candidates = seats,
            Event::VotesCast { nominee, hands, .. } => {
                self.tally[nominee.index()] += hands.len() as u8;
                self.voted = self.voted.union(hands);
                self.vote_pos += 1;
            }
            Event::BallotCast { voter, target } => {
                self.voted.insert(voter);
                if let Some(t) = target {
                    self.tally[t.index()] += 1;
                }
            }
            Event::Tie { seats } => {
                self.candidates = seats;
                self.tie_spoken = SeatSet::EMPTY;
            }
            Event::LiftDenied { .. } | Event::LiftVoted { .. } => self.vote_done = true,
            Event::ShootingStarted => self.shooting_started = true,
            Event::ShotFired { by, target } => {
                self.shooting_started = true;
                if self.shot.contains(by) {
                    self.shot_twice.insert(by);
                } else {
                    self.shot.insert(by);
                    self.shot_target[by.index()] = target;
                }
            }
            Event::NightResult { killed } => {
                // A removed player shot too ("removed and killed") is news
                // of the morning, though he left by removal.
                self.kill = killed;
                if self.night == 1 {
                    self.first_killed = killed;
                }
            }
            Event::DonChecked { .. } | Event::SheriffChecked { .. } => {}
            Event::BeautyPicked { target } => {
                self.picked = target;
                self.silenced = target.map(|t| (t, self.day + 1));
            }
            Event::BestMoveMade {
                seat,
                named,
                hits,
                at_night,
            } => {
                self.best_move = Some(BestMove { seat, named, hits });
                self.best_move_night = at_night;
            }
            Event::BestMoveAnnounced { .. } => {}
            Event::OppositeTeamVictory { .. } => {}
            Event::GameEnded { outcome } => self.result = Some(outcome),
            Event::RolesRevealed { .. } => {}
            Event::Undone { .. } => unreachable!("Game::fold handles undo"),
        }
    }
}
