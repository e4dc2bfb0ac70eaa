//! Each scored game's points per seat, and per-player accumulators kept up
//! to date as games change, so that one more game costs ten accumulator
//! updates and the standings only re-rank.

use crate::appeal::Correction;
use crate::facts::{GameFacts, Outcome};
use crate::inputs::{BestMoveVerdict, JudgeInputs};
use crate::model::PlayerId;
use crate::points::{Coefficient, Points};
use crate::scheme::Scheme;
use mafia_record::{GameId, StageId};
use mafia_rules::{Cause, Role, Seat, Team};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One player's points from one game, the stage coefficient applied.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatLine {
    pub player: PlayerId,
    pub seat: Seat,
    pub role: Role,
    pub outcome: Outcome,
    pub base: Points,
    pub extra: Points,
    /// Extras waiting for the chief judge's approval (not in `extra`).
    pub extra_pending: Points,
    pub best_move: Points,
    /// Record penalties, the judge's penalties and appeal corrections.
    pub penalties: Points,
    /// Hits of his counted best move, if he made one.
    pub best_move_hits: Option<u8>,
    /// Shot on night 1.
    pub first_night_killed: bool,
}

impl SeatLine {
    /// Red or Sheriff shot on night 1: what Ci (rfm §6.8) compensates.
    pub fn compensable(&self) -> bool {
        self.first_night_killed && self.role.team() == Team::Red
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameLine {
    pub stage: StageId,
    pub seats: Vec<SeatLine>,
}

/// Everything that decides a game's points.
pub struct GameScoring<'a> {
    pub scheme: &'a Scheme,
    pub stage: &'a StageId,
    pub coefficient: Coefficient,
    pub facts: &'a GameFacts,
    pub winner: Option<Team>,
    pub inputs: Option<&'a JudgeInputs>,
    /// The inputs' extras count (nothing is waiting for approval).
    pub approved: bool,
    pub corrections: &'a [Correction],
}

impl GameScoring<'_> {
    pub fn line(&self) -> GameLine {
        let s = self.scheme;
        let f = self.facts;
        let k = self.coefficient;
        let rp = &s.record_penalties;
        let last_when = f
            .seats
            .iter()
            .filter_map(|x| x.out.map(|d| d.when))
            .max_by_key(|w| when_order(*w));
        let all_out = f.reason == "all_out";
        let bm_counts = self
            .inputs
            .is_none_or(|i| i.best_move == BestMoveVerdict::Confirmed);
        let seats = f
            .seats
            .iter()
            .map(|x| {
                let outcome = Outcome::of(self.winner, x.team());
                let base = s.base.get(outcome, x.role);
                let (mut extra, mut extra_pending) = (Points::ZERO, Points::ZERO);
                let mut penalties = Points::ZERO;
                if let Some(inp) = self.inputs {
                    for e in inp.extras.iter().filter(|e| e.seat == x.seat) {
                        if self.approved {
                            extra += e.points;
                        } else {
                            extra_pending += e.points;
                        }
                    }
                    for p in inp.penalties.iter().filter(|p| p.seat == x.seat) {
                        if let Some(r) = s.judge_penalty(&p.code) {
                            penalties += r.points;
                        }
                    }
                }
                let pen = |p: &Option<crate::scheme::Penalty>, n: u8| {
                    p.as_ref()
                        .map_or(Points::ZERO, |p| p.points.times(n as i64))
                };
                penalties += pen(&rp.small, x.small_penalties);
                penalties += pen(&rp.big, x.big_penalties);
                penalties += pen(&rp.yellow_card, x.yellow_cards);
                if f.opposite_team_victory == Some(x.seat) && rp.opposite_team_victory.is_some() {
                    penalties += pen(&rp.opposite_team_victory, 1);
                } else if x.only_fouled_out() && rp.fouled_out.is_some() {
                    penalties += pen(&rp.fouled_out, 1);
                } else if x.removed() {
                    penalties += pen(&rp.removal, 1);
                }
                if all_out
                    && x.out
                        .is_some_and(|d| Some(d.when) == last_when && d.cause != Cause::Shot)
                {
                    penalties += pen(&rp.all_out, 1);
                }
                let (best_move, best_move_hits) = match &f.best_move {
                    Some(b) if b.seat == x.seat && bm_counts => {
                        (s.best_move.get(x.role, b.hits), Some(b.hits))
                    }
                    _ => (Points::ZERO, None),
                };
                let corrections: Points = self
                    .corrections
                    .iter()
                    .filter(|c| c.player == x.player)
                    .map(|c| c.points)
                    .sum();
                SeatLine {
                    player: x.player.clone(),
                    seat: x.seat,
                    role: x.role,
                    outcome,
                    base: base.scaled(k),
                    extra: extra.scaled(k),
                    extra_pending: extra_pending.scaled(k),
                    best_move: best_move.scaled(k),
                    // Corrections are final figures from the chief judge.
                    penalties: penalties.scaled(k) + corrections,
                    best_move_hits,
                    first_night_killed: f.first_killed == Some(x.seat),
                }
            })
            .collect();
        GameLine {
            stage: self.stage.clone(),
            seats,
        }
    }
}

fn when_order(w: mafia_rules::When) -> u16 {
    match w {
        mafia_rules::When::Night(n) => n as u16 * 2,
        mafia_rules::When::Day(n) => n as u16 * 2 - 1,
    }
}

/// Wins, games etc. by role.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoleCounts {
    pub civilian: u32,
    pub sheriff: u32,
    pub beauty: u32,
    pub mafia: u32,
    pub don: u32,
}

impl RoleCounts {
    fn slot(&mut self, r: Role) -> &mut u32 {
        match r {
            Role::Civilian => &mut self.civilian,
            Role::Sheriff => &mut self.sheriff,
            Role::Beauty => &mut self.beauty,
            Role::Mafia => &mut self.mafia,
            Role::Don => &mut self.don,
        }
    }
}

/// rfm §6.8's counts over one distance (a stage).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CiCounts {
    pub games: u32,
    /// Compensable night-1 deaths in games red lost or drew.
    pub lost: u32,
    /// … in games red won.
    pub won: u32,
}

impl CiCounts {
    /// i: night-1 deaths as red or Sheriff.
    pub fn deaths(&self) -> u32 {
        self.lost + self.won
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlayerAcc {
    pub games: u32,
    pub wins: u32,
    pub wins_by_role: RoleCounts,
    pub games_by_role: RoleCounts,
    pub base: Points,
    pub extra: Points,
    pub extra_pending: Points,
    pub best_move: Points,
    pub penalties: Points,
    pub first_night_deaths: u32,
    pub best_move_triples: u32,
    pub best_move_doubles: u32,
    /// Multiset of single-game extras, for the highest (rfm §6.7.1.6).
    pub extras: BTreeMap<Points, u32>,
    pub ci: BTreeMap<StageId, CiCounts>,
}

impl PlayerAcc {
    pub fn highest_extra(&self) -> Points {
        self.extras
            .keys()
            .next_back()
            .copied()
            .unwrap_or(Points::ZERO)
    }

    pub fn wins_as_don_or_sheriff(&self) -> u32 {
        self.wins_by_role.don + self.wins_by_role.sheriff
    }

    fn add(&mut self, stage: &StageId, l: &SeatLine, sign: i32) {
        let d = |n: &mut u32| *n = n.checked_add_signed(sign).expect("accumulator underflow");
        let p = |acc: &mut Points, v: Points| {
            if sign > 0 {
                *acc += v
            } else {
                *acc -= v
            }
        };
        d(&mut self.games);
        d(self.games_by_role.slot(l.role));
        if l.outcome == Outcome::Win {
            d(&mut self.wins);
            d(self.wins_by_role.slot(l.role));
        }
        p(&mut self.base, l.base);
        p(&mut self.extra, l.extra);
        p(&mut self.extra_pending, l.extra_pending);
        p(&mut self.best_move, l.best_move);
        p(&mut self.penalties, l.penalties);
        if l.first_night_killed {
            d(&mut self.first_night_deaths);
        }
        match l.best_move_hits {
            Some(3) => d(&mut self.best_move_triples),
            Some(2) => d(&mut self.best_move_doubles),
            _ => {}
        }
        if l.extra.is_positive() {
            let n = self.extras.entry(l.extra).or_default();
            d(n);
            if *n == 0 {
                self.extras.remove(&l.extra);
            }
        }
        if !self.ci.contains_key(stage) {
            self.ci.insert(stage.clone(), CiCounts::default());
        }
        let ci = self.ci.get_mut(stage).expect("just inserted");
        d(&mut ci.games);
        if l.compensable() {
            if l.outcome == Outcome::Win {
                d(&mut ci.won);
            } else {
                d(&mut ci.lost);
            }
        }
        if ci.games == 0 {
            self.ci.remove(stage);
        }
    }
}

/// Scored games and the per-player sums over them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ledger {
    pub lines: BTreeMap<GameId, GameLine>,
    pub players: BTreeMap<PlayerId, PlayerAcc>,
}

impl Ledger {
    /// Replaces a game's line (`None`: the game no longer counts).
    pub fn set(&mut self, game: &GameId, line: Option<GameLine>) {
        if let Some(old) = self.lines.remove(game) {
            for l in &old.seats {
                let acc = self.acc(&l.player);
                acc.add(&old.stage, l, -1);
                if acc.games == 0 {
                    self.players.remove(&l.player);
                }
            }
        }
        if let Some(new) = line {
            for l in &new.seats {
                self.acc(&l.player).add(&new.stage, l, 1);
            }
            self.lines.insert(game.clone(), new);
        }
    }

    fn acc(&mut self, p: &PlayerId) -> &mut PlayerAcc {
        // Looked up before inserting: most players have an entry, and an
        // entry() would clone the id every time.
        if !self.players.contains_key(p) {
            self.players.insert(p.clone(), PlayerAcc::default());
        }
        self.players.get_mut(p).expect("just inserted")
    }
}

/// Ci for one distance (rfm §6.8): `(Cil, Ciw)` per compensated shot.
pub fn ci_per_shot(c: &crate::scheme::Compensation, counts: &CiCounts) -> (Points, Points) {
    let i = counts.deaths() as i64;
    if i == 0 {
        return (Points::ZERO, Points::ZERO);
    }
    // B: 40 % of his games, rounded half up.
    let b = (counts.games as i64 * c.games_percent as i64 + 50) / 100;
    if b == 0 {
        // i·0.5/B is unbounded: each value is its cap.
        return (c.lost_cap, c.won_cap);
    }
    // Each from the exact fraction, rounded once: Ciw from a rounded Cil
    // would round twice (1/3: 0.0834 instead of 0.0833).
    let lost = c.factor.ratio(i, b).min(c.lost_cap);
    let won = c
        .factor
        .ratio(i * c.won_factor_percent as i64, b * 100)
        .min(c.won_cap);
    (lost, won)
}

/// A player's compensation over all distances.
pub fn compensation(scheme: &Scheme, acc: &PlayerAcc) -> Points {
    let Some(c) = &scheme.compensation else {
        return Points::ZERO;
    };
    acc.ci
        .values()
        .map(|counts| {
            let (l, w) = ci_per_shot(c, counts);
            l.times(counts.lost as i64) + w.times(counts.won as i64)
        })
        .sum()
}
