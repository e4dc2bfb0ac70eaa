//! A source game as facts the engine can be driven by: who sat where with
//! which card, each day's nominations and votes, each night's shots and
//! checks, sanctions and when they were given. Every fact keeps the path in
//! the source it came from ([`Origin`]).

use mafia_record::TournamentId;
use mafia_rules::params::{Night0Step, NightAction};
use mafia_rules::{Player, Role, RuleSet, Seat, SeatSet, Team};
use std::collections::BTreeMap;

/// Where in the source a fact came from: a JSON path
/// (`games[1].players[4].voting[2]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin(pub String);

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<String> for Origin {
    fn from(s: String) -> Origin {
        Origin(s)
    }
}

/// When a sanction was given, as precisely as the source says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Moment {
    Night0,
    /// A step of night 0 (`DonSign` also means the rfm joint sign, and so
    /// does `SheriffSign`); any step of night 0 when the rule set has none
    /// of that kind.
    Night0Step {
        step: Night0Step,
    },
    /// During `seat`'s speech of `day`.
    Speech {
        day: u8,
        seat: Seat,
    },
    /// During `seat`'s speech before a re-vote.
    /// (After the tie of vote round `round`, 0 first, when the source says.)
    TieSpeech {
        day: u8,
        seat: Seat,
        round: Option<u8>,
    },
    /// During the votes of `day` (rounds, roll call, vote call): round
    /// `round` (0 first) when the source says, while the hands against
    /// `nominee` are being counted when it says that too.
    Voting {
        day: u8,
        round: Option<u8>,
        nominee: Option<Seat>,
    },
    Lift {
        day: u8,
    },
    /// During `seat`'s last words on `day` (a morning's or after a vote).
    LastWords {
        day: u8,
        seat: Seat,
    },
    /// Some time during night `n` (n ≥ 1).
    Night {
        night: u8,
    },
    /// During one step of night `n` (n ≥ 1).
    NightStep {
        night: u8,
        action: NightAction,
    },
    /// The end of night `n`: the best move, or else the morning after.
    NightEnd {
        night: u8,
    },
    /// Some time on `day`: the first step of it the replay reaches.
    Day {
        day: u8,
    },
    /// The source only knows the round: night `r` (night 0 for 0) or the
    /// day after it, whichever the replay reaches first.
    Round {
        round: u8,
    },
    /// After the result.
    End,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SanctionKind {
    Foul,
    TechnicalFoul,
    Disqualify,
    OppositeTeamVictory,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sanction {
    pub seat: Seat,
    pub kind: SanctionKind,
    pub at: Moment,
    pub origin: Origin,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DayFacts {
    /// By nominator: whom he nominated.
    pub nominations: BTreeMap<Seat, (Seat, Origin)>,
    /// Vote rounds (0 first; re-votes after ties): by voter, his nominee
    /// (`None`: no candidate / abstained).
    pub rounds: Vec<BTreeMap<Seat, (Option<Seat>, Origin)>>,
    /// The lift: who raised a hand for all of them leaving.
    pub lift: Option<(SeatSet, Origin)>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NightFacts {
    /// By shooter: his target (`None`: no shot / a miss).
    pub shots: BTreeMap<Seat, (Option<Seat>, Origin)>,
    pub don_check: Option<(Seat, Origin)>,
    pub sheriff_check: Option<(Seat, Origin)>,
}

/// How a player left, as the source states it: checked against the
/// replay, never fed to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Left {
    /// Voted out (or lifted) on `day`.
    Day(u8),
    /// Shot in night `n`.
    Night(u8),
    /// Removed (fouls, technical fouls, disqualification) on either side of
    /// round `r`.
    Removed(u8),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Script {
    pub rules: RuleSet,
    pub players: Vec<Player>,
    pub roles: [Role; 10],
    pub origin_roles: Origin,
    /// The first command's time (ms); the last one's when known.
    pub start_ms: i64,
    pub end_ms: Option<i64>,
    pub tournament: String,
    pub tournament_id: Option<TournamentId>,
    pub round: u32,
    pub table: u32,
    pub game: u32,
    pub judge: String,
    pub days: BTreeMap<u8, DayFacts>,
    pub nights: BTreeMap<u8, NightFacts>,
    pub sanctions: Vec<Sanction>,
    /// The best move the source states: the replay must have it.
    pub best_move: Option<(Seat, Vec<Seat>, Origin)>,
    /// Seats players named in their last words (Polemica's guesses): the
    /// best move if the rules give that player one, otherwise not carried.
    pub guesses: Vec<(Seat, Vec<Seat>, Origin)>,
    pub departures: Vec<(Seat, Left, Origin)>,
    /// `Some(None)`: a draw; `None`: the source does not say (unfinished).
    pub winner: Option<Option<Team>>,
    pub origin_winner: Origin,
}

impl Script {
    /// The last phase the source has any fact about, as a sortable key:
    /// night n is 2n, day d is 2d - 1.
    pub fn last_phase(&self) -> u16 {
        let day = |d: u8| 2 * d as u16 - 1;
        let night = |n: u8| 2 * n as u16;
        let mut last = 0u16;
        for (d, f) in &self.days {
            if !f.nominations.is_empty() || !f.rounds.is_empty() || f.lift.is_some() {
                last = last.max(day(*d));
            }
        }
        for (n, f) in &self.nights {
            if !f.shots.is_empty() || f.don_check.is_some() || f.sheriff_check.is_some() {
                last = last.max(night(*n));
            }
        }
        for s in &self.sanctions {
            let k = match s.at {
                Moment::Night0 | Moment::Night0Step { .. } | Moment::End => 0,
                Moment::Speech { day: d, .. }
                | Moment::TieSpeech { day: d, .. }
                | Moment::Voting { day: d, .. }
                | Moment::Lift { day: d }
                | Moment::LastWords { day: d, .. }
                | Moment::Day { day: d } => day(d.max(1)),
                Moment::Night { night: n }
                | Moment::NightStep { night: n, .. }
                | Moment::NightEnd { night: n } => night(n),
                Moment::Round { round: r } => night(r),
            };
            last = last.max(k);
        }
        for (_, l, _) in &self.departures {
            let k = match *l {
                Left::Day(d) => day(d.max(1)),
                Left::Night(n) => night(n),
                Left::Removed(r) => night(r),
            };
            last = last.max(k);
        }
        last
    }
}
