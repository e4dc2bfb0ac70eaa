//! Standings: ranking the accumulators by the scheme's tie-breaks, down to a
//! lot the chief judge has drawn. Deterministic: every collection is ordered,
//! every figure fixed point, so the same log gives the same JSON byte for byte.

use crate::error::TournamentError;
use crate::facts::Outcome;
use crate::ledger::{ci_per_shot, compensation, PlayerAcc, RoleCounts};
use crate::model::PlayerId;
use crate::points::Points;
use crate::scheme::{SchemeId, TieBreak};
use crate::tournament::Tournament;
use mafia_record::{GameId, StageId, TournamentId};
use mafia_rules::{Role, Seat};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PointsSplit {
    pub base: Points,
    pub extra: Points,
    pub best_move: Points,
    pub penalties: Points,
    pub compensation: Points,
    pub total: Points,
}

/// How a row's rank was settled against equal players.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tie {
    /// Nobody has the same figures.
    None,
    /// Tied at every criterion; the chief judge's recorded lot orders them.
    ByLot,
    /// Tied at every criterion and no lot drawn yet: they share the rank.
    AwaitingLot,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StandingRow {
    pub rank: u32,
    pub player: PlayerId,
    pub nickname: String,
    pub club: Option<String>,
    pub withdrawn: bool,
    pub games: u32,
    pub wins: u32,
    pub wins_by_role: RoleCounts,
    pub games_by_role: RoleCounts,
    pub points: PointsSplit,
    /// Extras given but waiting for the chief judge's approval.
    pub extra_pending: Points,
    pub first_night_deaths: u32,
    pub best_move_triples: u32,
    pub best_move_doubles: u32,
    pub highest_extra: Points,
    pub tie: Tie,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Standings {
    pub tournament: TournamentId,
    pub scheme: SchemeId,
    pub scheme_version: u32,
    pub games: u32,
    pub rows: Vec<StandingRow>,
    /// Groups tied at every criterion that wait for a lot, best rank first.
    pub awaiting_lot: Vec<Vec<PlayerId>>,
}

fn split(t: &Tournament, acc: &PlayerAcc) -> PointsSplit {
    let comp = compensation(&t.scheme, acc);
    PointsSplit {
        base: acc.base,
        extra: acc.extra,
        best_move: acc.best_move,
        penalties: acc.penalties,
        compensation: comp,
        total: acc.base + acc.extra + acc.best_move + acc.penalties + comp,
    }
}

/// Smaller is better, criterion by criterion.
fn key(t: &Tournament, acc: &PlayerAcc, p: &PointsSplit) -> Vec<i64> {
    let mut k = vec![-p.total.raw()];
    for tb in &t.scheme.tie_breaks {
        match tb {
            TieBreak::ExtraAndPenalties => k.push(-(acc.extra + acc.penalties).raw()),
            TieBreak::ExtraPenaltiesAndBestMove => {
                k.push(-(acc.extra + acc.penalties + acc.best_move).raw())
            }
            TieBreak::FewerGames => k.push(acc.games as i64),
            TieBreak::MoreWins => k.push(-(acc.wins as i64)),
            TieBreak::MoreWinsAsDonOrSheriff => k.push(-(acc.wins_as_don_or_sheriff() as i64)),
            TieBreak::MoreFirstNightDeaths => k.push(-(acc.first_night_deaths as i64)),
            TieBreak::MoreBestMoveTriplesThenDoubles => {
                k.push(-(acc.best_move_triples as i64));
                k.push(-(acc.best_move_doubles as i64));
            }
            TieBreak::HighestSingleExtra => k.push(-acc.highest_extra().raw()),
        }
    }
    k
}

fn empty() -> PlayerAcc {
    PlayerAcc::default()
}

/// The standings of every registered player.
pub fn standings(t: &Tournament) -> Standings {
    let none = empty();
    let mut rows: Vec<(Vec<i64>, StandingRow)> = t
        .players
        .values()
        .map(|r| {
            let acc = t.ledger.players.get(&r.player.id).unwrap_or(&none);
            let points = split(t, acc);
            let k = key(t, acc, &points);
            (
                k,
                StandingRow {
                    rank: 0,
                    player: r.player.id.clone(),
                    nickname: r.player.nickname.clone(),
                    club: r.player.club.clone(),
                    withdrawn: r.withdrawn_at.is_some(),
                    games: acc.games,
                    wins: acc.wins,
                    wins_by_role: acc.wins_by_role,
                    games_by_role: acc.games_by_role,
                    points,
                    extra_pending: acc.extra_pending,
                    first_night_deaths: acc.first_night_deaths,
                    best_move_triples: acc.best_move_triples,
                    best_move_doubles: acc.best_move_doubles,
                    highest_extra: acc.highest_extra(),
                    tie: Tie::None,
                },
            )
        })
        .collect();
    rows.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.player.cmp(&b.1.player)));
    let mut awaiting = Vec::new();
    let mut i = 0;
    while i < rows.len() {
        let mut j = i + 1;
        while j < rows.len() && rows[j].0 == rows[i].0 {
            j += 1;
        }
        let group = &mut rows[i..j];
        if group.len() == 1 {
            group[0].1.rank = i as u32 + 1;
        } else if let Some(order) = lot_order(t, group.iter().map(|r| &r.1.player)) {
            group.sort_by_key(|r| order(&r.1.player));
            for (n, r) in group.iter_mut().enumerate() {
                r.1.rank = (i + n) as u32 + 1;
                r.1.tie = Tie::ByLot;
            }
        } else {
            // Players who have not played are equal by nothing they did.
            let played = group.iter().any(|r| r.1.games > 0);
            for r in group.iter_mut() {
                r.1.rank = i as u32 + 1;
                if played {
                    r.1.tie = Tie::AwaitingLot;
                }
            }
            if played {
                awaiting.push(group.iter().map(|r| r.1.player.clone()).collect());
            }
        }
        i = j;
    }
    Standings {
        tournament: t.id.clone(),
        scheme: t.scheme.id.clone(),
        scheme_version: t.scheme.version,
        games: t.ledger.lines.len() as u32,
        rows: rows.into_iter().map(|r| r.1).collect(),
        awaiting_lot: awaiting,
    }
}

/// The position each player of a tied group has in the latest lot that holds
/// them all.
fn lot_order<'a>(
    t: &Tournament,
    group: impl Iterator<Item = &'a PlayerId> + Clone,
) -> Option<impl Fn(&PlayerId) -> usize + '_> {
    let lot = t
        .lots
        .iter()
        .rev()
        .find(|l| group.clone().all(|p| l.players.contains(p)))?;
    Some(move |p: &PlayerId| {
        lot.players
            .iter()
            .position(|q| q == p)
            .unwrap_or(usize::MAX)
    })
}

/// Refuses a lot between players who are not tied at every criterion.
pub(crate) fn check_tied(t: &Tournament, players: &[PlayerId]) -> Result<(), TournamentError> {
    let none = empty();
    let k = |p: &PlayerId| {
        let acc = t.ledger.players.get(p).unwrap_or(&none);
        key(t, acc, &split(t, acc))
    };
    let first = k(&players[0]);
    for p in &players[1..] {
        if k(p) != first {
            return Err(TournamentError::LotPlayersNotTied {
                a: players[0].clone(),
                b: p.clone(),
            });
        }
    }
    Ok(())
}

/// What ranked a row below the row above it: a lower total, or, for equal
/// totals, the first of the scheme's tie-breaks that differs (its `level`
/// counts from 1 in the scheme's order), else the chief judge's lot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum Decider {
    /// The first row, or a lower total than the row above.
    Total,
    TieBreak {
        level: u32,
        tie_break: TieBreak,
    },
    /// Equal at every criterion; the recorded lot ordered them.
    Lot,
    /// Equal at every criterion and no lot drawn: they share the rank.
    Shared,
}

/// For each row of `s` (the standings of `t`), in order, what ranked it
/// below the row above ([`Decider`]): each tie's deciding level named.
pub fn deciders(t: &Tournament, s: &Standings) -> Vec<Decider> {
    let none = empty();
    let keys: Vec<Vec<i64>> = s
        .rows
        .iter()
        .map(|r| {
            let acc = t.ledger.players.get(&r.player).unwrap_or(&none);
            key(t, acc, &split(t, acc))
        })
        .collect();
    // Which tie-break each place of a key holds (`key`'s layout).
    let mut owner: Vec<Option<(u32, TieBreak)>> = vec![None];
    for (n, tb) in t.scheme.tie_breaks.iter().enumerate() {
        let width = match tb {
            TieBreak::MoreBestMoveTriplesThenDoubles => 2,
            _ => 1,
        };
        owner.extend(std::iter::repeat_n(Some((n as u32 + 1, *tb)), width));
    }
    s.rows
        .iter()
        .enumerate()
        .map(|(i, row)| {
            if i == 0 {
                return Decider::Total;
            }
            let differs = keys[i - 1].iter().zip(&keys[i]).position(|(a, b)| a != b);
            match differs.map(|j| owner.get(j).copied().flatten()) {
                Some(Some((level, tie_break))) => Decider::TieBreak { level, tie_break },
                Some(None) => Decider::Total,
                None if row.tie == Tie::ByLot => Decider::Lot,
                None => Decider::Shared,
            }
        })
        .collect()
}

/// One game in a player's history.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryLine {
    pub game: GameId,
    pub stage: StageId,
    pub seat: Seat,
    pub role: Role,
    pub outcome: Outcome,
    pub points: PointsSplit,
    pub extra_pending: Points,
    pub best_move_hits: Option<u8>,
    pub first_night_killed: bool,
}

/// A player's scored games, in game-id order.
pub fn history(t: &Tournament, player: &PlayerId) -> Vec<HistoryLine> {
    let Some(acc) = t.ledger.players.get(player) else {
        return vec![];
    };
    // A scan of the lines: a query, not on the scoring path, so no per-player index.
    t.ledger
        .lines
        .iter()
        .filter_map(|(g, line)| {
            let l = line.seats.iter().find(|l| &l.player == player)?;
            let comp = match (&t.scheme.compensation, acc.ci.get(&line.stage)) {
                (Some(c), Some(counts)) if l.compensable() => {
                    let (lost, won) = ci_per_shot(c, counts);
                    if l.outcome == Outcome::Win {
                        won
                    } else {
                        lost
                    }
                }
                _ => Points::ZERO,
            };
            Some(HistoryLine {
                game: g.clone(),
                stage: line.stage.clone(),
                seat: l.seat,
                role: l.role,
                outcome: l.outcome,
                points: PointsSplit {
                    base: l.base,
                    extra: l.extra,
                    best_move: l.best_move,
                    penalties: l.penalties,
                    compensation: comp,
                    total: l.base + l.extra + l.best_move + l.penalties + comp,
                },
                extra_pending: l.extra_pending,
                best_move_hits: l.best_move_hits,
                first_night_killed: l.first_night_killed,
            })
        })
        .collect()
}
