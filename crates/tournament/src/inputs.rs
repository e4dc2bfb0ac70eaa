//! The judges' post-game inputs (extra points, penalties, the best move's
//! confirmation) and their validation against the scheme.

use crate::error::TournamentError;
use crate::facts::{GameFacts, Outcome};
use crate::points::Points;
use crate::scheme::{CapCheck, Scheme};
use mafia_rules::{Seat, Team};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExtraPoint {
    pub seat: Seat,
    pub points: Points,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JudgePenalty {
    pub seat: Seat,
    /// The scheme's penalty code, e.g. rfm's "6.5.9".
    pub code: String,
}

/// Whether the best move in the record stands. It counts unless the judge
/// denies it (rfm §6.6.6: numbers with other words are not accepted); the
/// engine has already refused the ones the rules deny (rfm §6.6.9).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BestMoveVerdict {
    #[default]
    Confirmed,
    Denied,
}

/// One game's protocol from its judge: a submission replaces the previous one.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct JudgeInputs {
    #[serde(default)]
    pub extras: Vec<ExtraPoint>,
    #[serde(default)]
    pub penalties: Vec<JudgePenalty>,
    #[serde(default)]
    pub best_move: BestMoveVerdict,
}

/// Something in a judge's input that only the chief judge may allow. Each is
/// approved on its own (rfm: the 1.6 of a seat, the game's sum, the count).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "item", rename_all = "snake_case")]
pub enum ApprovalItem {
    /// rfm §6.4.2: +1.6 for a winner.
    ExtraValue { seat: Seat, points: Points },
    /// rfm §6.4.4: a game's extras over +3.5, up to +4.0.
    GameSum { sum: Points },
    /// rfm §6.4.6: more than 6 players rewarded, up to 8.
    Rewarded { count: u32 },
}

/// Checks `inputs` for a finished game won by `winner` and returns what needs
/// the chief judge's approval.
pub fn validate(
    scheme: &Scheme,
    facts: &GameFacts,
    winner: Option<Team>,
    inputs: &JudgeInputs,
) -> Result<BTreeSet<ApprovalItem>, TournamentError> {
    let rules = &scheme.extras;
    let outcome = |seat: Seat| Outcome::of(winner, facts.seat(seat).team());
    let mut pending = BTreeSet::new();
    let mut seen = BTreeSet::new();
    let mut sum = Points::ZERO;
    for e in &inputs.extras {
        if !seen.insert(e.seat) {
            return Err(TournamentError::TwoExtrasForOneSeat { seat: e.seat });
        }
        if !e.points.is_positive() {
            return Err(TournamentError::ExtraNotPositive {
                seat: e.seat,
                points: e.points,
            });
        }
        let o = outcome(e.seat);
        let allowed = rules.allowed(o);
        if !allowed.admits(e.points) {
            let side = match o {
                Outcome::Win => "a winner",
                Outcome::Loss => "a loser",
                Outcome::Draw => "a player in a draw",
            };
            let clause = if o == Outcome::Draw {
                rules.draw_clause.clone()
            } else {
                rules.clause.clone()
            };
            return Err(TournamentError::ExtraNotAllowed {
                seat: e.seat,
                points: e.points,
                side,
                allowed: allowed.describe(),
                clause,
            });
        }
        if rules.need_approval.contains(&e.points) {
            pending.insert(ApprovalItem::ExtraValue {
                seat: e.seat,
                points: e.points,
            });
        }
        if let (Some(cap), Some(bm)) = (&rules.with_best_move, &facts.best_move) {
            let bm_points = if bm.seat == e.seat && inputs.best_move == BestMoveVerdict::Confirmed {
                scheme.best_move.get(facts.seat(bm.seat).role, bm.hits)
            } else {
                Points::ZERO
            };
            if bm_points.is_positive() && cap.check(e.points + bm_points) == CapCheck::Over {
                return Err(TournamentError::OverPlayerCap {
                    seat: e.seat,
                    extra: e.points,
                    best_move: bm_points,
                    cap: cap.ceiling(),
                    clause: cap.clause.clone(),
                });
            }
        }
        sum += e.points;
    }
    if let Some(cap) = &rules.game_sum {
        match cap.check(sum) {
            CapCheck::Within => {}
            CapCheck::NeedsApproval => {
                pending.insert(ApprovalItem::GameSum { sum });
            }
            CapCheck::Over => {
                return Err(TournamentError::GameSumOverCap {
                    sum,
                    cap: cap.ceiling(),
                    clause: cap.clause.clone(),
                })
            }
        }
    }
    let count = inputs.extras.len() as u32;
    if let Some(cap) = &rules.rewarded {
        match cap.check(count) {
            CapCheck::Within => {}
            CapCheck::NeedsApproval => {
                pending.insert(ApprovalItem::Rewarded { count });
            }
            CapCheck::Over => {
                return Err(TournamentError::TooManyRewarded {
                    count,
                    cap: cap.ceiling(),
                    clause: cap.clause.clone(),
                })
            }
        }
    }
    for p in &inputs.penalties {
        let Some(rule) = scheme.judge_penalty(&p.code) else {
            return Err(TournamentError::UnknownPenalty {
                code: p.code.clone(),
                known: scheme
                    .judge_penalties
                    .iter()
                    .map(|r| r.code.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        };
        let team = facts.seat(p.seat).team();
        if rule.team.is_some_and(|t| t != team) {
            return Err(TournamentError::PenaltyNotForTeam {
                code: p.code.clone(),
                seat: p.seat,
                clause: rule.clause.clone(),
            });
        }
        let o = outcome(p.seat);
        if !rule.when.admits(o) {
            return Err(TournamentError::PenaltyNotForOutcome {
                code: p.code.clone(),
                seat: p.seat,
                outcome: o.as_str(),
                clause: rule.clause.clone(),
            });
        }
    }
    Ok(pending)
}
