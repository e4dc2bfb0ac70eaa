//! The quality figures of any seating: generated, random or edited by hand.

use crate::error::SeatingError;
use crate::model::{Seating, SeatingInput, SEATS};
use crate::roster::Roster;
use crate::seats::{is_edge, seat_number_cap};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    pub players: usize,
    pub rounds: usize,
    /// Games per player: the fewest and the most.
    pub games_min: usize,
    pub games_max: usize,
    /// Times a player rested two rounds running (summed over players).
    pub rests_back_to_back: usize,
    /// The mean meetings per pair, which a perfect seating gives every pair.
    pub pair_meetings_ideal: f64,
    pub pair_meetings_min: usize,
    pub pair_meetings_max: usize,
    pub pair_meetings_max_minus_min: usize,
    /// Mean squared distance of each pair's meetings from the ideal.
    pub pair_meetings_variance: f64,
    pub pairs_never_met: usize,
    /// The most times any player sat in any one seat number.
    pub seat_number_max_per_player: usize,
    /// ⌈games/10⌉ + 1 for the player with the most games.
    pub seat_number_cap: usize,
    /// Players over their own cap.
    pub seat_cap_violations: usize,
    /// The most games any player spent in seats 1, 2, 9 and 10.
    pub edge_seats_max_per_player: usize,
    /// A fair share of those: 4/10 of the most games.
    pub edge_seats_expected: f64,
    /// Meetings of `avoid` pairs.
    pub avoid_meetings: usize,
    /// Meetings of `separate` pairs (0 in any accepted seating).
    pub separate_violations: usize,
    /// The most rounds one judge spent at one table.
    pub judge_same_table_max: usize,
}

/// One meeting of a `separate` pair: (round, table), 1-based, and the ids.
pub(crate) struct Violation<'a> {
    pub round: usize,
    pub table: usize,
    pub a: &'a str,
    pub b: &'a str,
}

impl Metrics {
    /// Checks the seating's shape (10 seats a table, known players, nobody
    /// twice in a round) and measures it.
    pub fn compute(input: &SeatingInput, seating: &Seating) -> Result<Metrics, SeatingError> {
        let roster = Roster::new(&input.players, &input.policies)?;
        let tables = index(&roster, seating)?;
        let n = roster.n();
        let rounds = tables.len();
        let mut games = vec![0usize; n];
        let mut meet = vec![0u32; n * n];
        let mut seat_counts = vec![[0usize; SEATS]; n];
        let mut edge = vec![0usize; n];
        let mut rested_before = vec![false; n];
        let mut rests_back_to_back = 0;
        let mut judge_at: HashMap<(&str, usize), usize> = HashMap::new();
        for (r, round) in tables.iter().enumerate() {
            let mut plays = vec![false; n];
            for (t, table) in round.iter().enumerate() {
                for (seat, &p) in table.iter().enumerate() {
                    plays[p] = true;
                    games[p] += 1;
                    seat_counts[p][seat] += 1;
                    edge[p] += usize::from(is_edge(seat));
                    for &q in &table[seat + 1..] {
                        meet[p * n + q] += 1;
                        meet[q * n + p] += 1;
                    }
                }
                if let Some(judge) = &seating.rounds[r].tables[t].judge {
                    *judge_at.entry((judge.as_str(), t)).or_default() += 1;
                }
            }
            for p in 0..n {
                rests_back_to_back += usize::from(!plays[p] && rested_before[p]);
                rested_before[p] = !plays[p];
            }
        }
        let pairs = n * n.saturating_sub(1) / 2;
        let total: usize = (0..n)
            .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
            .map(|(a, b)| meet[a * n + b] as usize)
            .sum();
        let ideal = if pairs == 0 {
            0.0
        } else {
            total as f64 / pairs as f64
        };
        let (mut lo, mut hi, mut sq, mut never) = (usize::MAX, 0usize, 0.0f64, 0usize);
        for a in 0..n {
            for b in a + 1..n {
                let m = meet[a * n + b] as usize;
                lo = lo.min(m);
                hi = hi.max(m);
                sq += (m as f64 - ideal).powi(2);
                never += usize::from(m == 0);
            }
        }
        if pairs == 0 {
            lo = 0;
        }
        let games_max = games.iter().copied().max().unwrap_or(0);
        Ok(Metrics {
            players: n,
            rounds,
            games_min: games.iter().copied().min().unwrap_or(0),
            games_max,
            rests_back_to_back,
            pair_meetings_ideal: ideal,
            pair_meetings_min: lo,
            pair_meetings_max: hi,
            pair_meetings_max_minus_min: hi - lo,
            pair_meetings_variance: if pairs == 0 { 0.0 } else { sq / pairs as f64 },
            pairs_never_met: never,
            seat_number_max_per_player: seat_counts
                .iter()
                .flat_map(|c| c.iter().copied())
                .max()
                .unwrap_or(0),
            seat_number_cap: seat_number_cap(games_max),
            seat_cap_violations: (0..n)
                .filter(|&p| {
                    seat_counts[p]
                        .iter()
                        .any(|&c| c > seat_number_cap(games[p]))
                })
                .count(),
            edge_seats_max_per_player: edge.iter().copied().max().unwrap_or(0),
            edge_seats_expected: 0.4 * games_max as f64,
            avoid_meetings: roster
                .avoid
                .iter()
                .map(|&(a, b)| meet[a * n + b] as usize)
                .sum(),
            separate_violations: roster
                .separate
                .iter()
                .map(|&(a, b)| meet[a * n + b] as usize)
                .sum(),
            judge_same_table_max: judge_at.values().copied().max().unwrap_or(0),
        })
    }

    /// The figures as `(name, value)`, in a fixed order, for printing.
    pub fn figures(&self) -> Vec<(&'static str, String)> {
        let f = |x: f64| format!("{x:.3}");
        vec![
            ("games_min", self.games_min.to_string()),
            ("games_max", self.games_max.to_string()),
            ("rests_back_to_back", self.rests_back_to_back.to_string()),
            ("pair_meetings_ideal", f(self.pair_meetings_ideal)),
            ("pair_meetings_min", self.pair_meetings_min.to_string()),
            ("pair_meetings_max", self.pair_meetings_max.to_string()),
            (
                "pair_meetings_max_minus_min",
                self.pair_meetings_max_minus_min.to_string(),
            ),
            ("pair_meetings_variance", f(self.pair_meetings_variance)),
            ("pairs_never_met", self.pairs_never_met.to_string()),
            (
                "seat_number_max_per_player",
                self.seat_number_max_per_player.to_string(),
            ),
            ("seat_number_cap", self.seat_number_cap.to_string()),
            ("seat_cap_violations", self.seat_cap_violations.to_string()),
            (
                "edge_seats_max_per_player",
                self.edge_seats_max_per_player.to_string(),
            ),
            ("edge_seats_expected", f(self.edge_seats_expected)),
            ("avoid_meetings", self.avoid_meetings.to_string()),
            ("separate_violations", self.separate_violations.to_string()),
            (
                "judge_same_table_max",
                self.judge_same_table_max.to_string(),
            ),
        ]
    }
}

/// The seating as roster indices, `[round][table][seat]`, after checking
/// its shape.
pub(crate) fn index(
    roster: &Roster,
    seating: &Seating,
) -> Result<Vec<Vec<Vec<usize>>>, SeatingError> {
    let mut out = Vec::with_capacity(seating.rounds.len());
    for (r, round) in seating.rounds.iter().enumerate() {
        let mut seen = vec![false; roster.n()];
        let mut tables = Vec::with_capacity(round.tables.len());
        for (t, table) in round.tables.iter().enumerate() {
            if table.seats.len() != SEATS {
                return Err(SeatingError::TableSize {
                    round: r + 1,
                    table: t + 1,
                    seats: table.seats.len(),
                });
            }
            let mut ids = Vec::with_capacity(SEATS);
            for id in &table.seats {
                let p =
                    *roster
                        .by_id
                        .get(id.as_str())
                        .ok_or_else(|| SeatingError::UnknownPlayer {
                            id: id.clone(),
                            context: format!("table {} of round {}", t + 1, r + 1),
                        })?;
                if std::mem::replace(&mut seen[p], true) {
                    return Err(SeatingError::PlayerTwiceInRound {
                        player: id.clone(),
                        round: r + 1,
                    });
                }
                ids.push(p);
            }
            tables.push(ids);
        }
        out.push(tables);
    }
    Ok(out)
}

/// Every meeting of a separate pair, in round and table order.
pub(crate) fn separate_violations<'a>(
    roster: &Roster<'a>,
    tables: &[Vec<Vec<usize>>],
) -> Vec<Violation<'a>> {
    let mut out = Vec::new();
    for (r, round) in tables.iter().enumerate() {
        for (t, table) in round.iter().enumerate() {
            for (k, &a) in table.iter().enumerate() {
                for &b in &table[k + 1..] {
                    if roster.is_separate(a, b) {
                        // Named in roster order, whatever their seats.
                        let (a, b) = (a.min(b), a.max(b));
                        out.push(Violation {
                            round: r + 1,
                            table: t + 1,
                            a: roster.id(a),
                            b: roster.id(b),
                        });
                    }
                }
            }
        }
    }
    out
}

/// The first separate pair seated together, as an error.
pub fn check_separate(input: &SeatingInput, seating: &Seating) -> Result<(), SeatingError> {
    let roster = Roster::new(&input.players, &input.policies)?;
    let tables = index(&roster, seating)?;
    match separate_violations(&roster, &tables).first() {
        None => Ok(()),
        Some(v) => Err(SeatingError::SeparateViolated {
            a: v.a.to_string(),
            b: v.b.to_string(),
            round: v.round,
            table: v.table,
        }),
    }
}
