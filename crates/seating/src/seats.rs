//! Seat numbers within a table: a min-cost assignment against each
//! player's history, round by round, so that nobody keeps one seat number
//! and nobody gathers the edge seats (1, 2, 9, 10).

use crate::hungarian;
use crate::model::SEATS;

/// Seats 1, 2, 9 and 10 (0-based here): the first to speak and the last.
pub(crate) fn is_edge(seat: usize) -> bool {
    matches!(seat, 0 | 1 | 8 | 9)
}

/// The most times a player of `games` games may sit in one seat number.
pub fn seat_number_cap(games: usize) -> usize {
    games.div_ceil(SEATS) + 1
}

const SEAT_WEIGHT: i64 = 10;
const EDGE_WEIGHT: i64 = 2;
/// Over a player's cap: only if nothing else fits.
const OVER_CAP: i64 = 1 << 32;

/// Running history of seat numbers.
pub(crate) struct SeatHistory {
    counts: Vec<[u16; SEATS]>,
    edge: Vec<u16>,
    played: Vec<u16>,
}

impl SeatHistory {
    pub fn new(n: usize) -> SeatHistory {
        SeatHistory {
            counts: vec![[0; SEATS]; n],
            edge: vec![0; n],
            played: vec![0; n],
        }
    }

    fn cost(&self, p: usize, seat: usize, games: usize) -> i64 {
        let c = i64::from(self.counts[p][seat]);
        let mut cost = SEAT_WEIGHT * (2 * c + 1);
        if c as usize + 1 > seat_number_cap(games) {
            cost += OVER_CAP;
        }
        // Distance from the fair share of edge seats (4 in 10), in fifths of
        // a game: 5·edge − 2·games.
        let edge_after = i64::from(self.edge[p]) + i64::from(is_edge(seat));
        let dev = 5 * edge_after - 2 * (i64::from(self.played[p]) + 1);
        cost + EDGE_WEIGHT * dev * dev
    }

    fn sit(&mut self, p: usize, seat: usize) {
        self.counts[p][seat] += 1;
        self.edge[p] += u16::from(is_edge(seat));
        self.played[p] += 1;
    }

    fn unsit(&mut self, p: usize, seat: usize) {
        self.counts[p][seat] -= 1;
        self.edge[p] -= u16::from(is_edge(seat));
        self.played[p] -= 1;
    }

    /// Orders a table's players by seat (index 0 = seat 1) and records it.
    /// `games[p]` is the player's total over the whole seating.
    pub fn number(&mut self, table: &[usize], games: &[usize]) -> Vec<usize> {
        debug_assert_eq!(table.len(), SEATS);
        let mut cost = [0i64; SEATS * SEATS];
        for (r, &p) in table.iter().enumerate() {
            for seat in 0..SEATS {
                cost[r * SEATS + seat] = self.cost(p, seat, games[p]);
            }
        }
        let seat_of = hungarian::assign(&cost, SEATS);
        let mut seated = vec![0; SEATS];
        for (r, &p) in table.iter().enumerate() {
            seated[seat_of[r]] = p;
            self.sit(p, seat_of[r]);
        }
        seated
    }
}

/// Seat numbers for every table of every round: round by round against the
/// history so far, then each table again against all the other rounds (the
/// first rounds were numbered blind to the later ones).
pub(crate) fn number_all(
    rounds: &[Vec<Vec<usize>>],
    n: usize,
    games: &[usize],
    passes: usize,
) -> Vec<Vec<Vec<usize>>> {
    let mut history = SeatHistory::new(n);
    let mut numbered: Vec<Vec<Vec<usize>>> = rounds
        .iter()
        .map(|round| round.iter().map(|t| history.number(t, games)).collect())
        .collect();
    for _ in 0..passes {
        for table in numbered.iter_mut().flatten() {
            for (seat, &p) in table.iter().enumerate() {
                history.unsit(p, seat);
            }
            *table = history.number(table, games);
        }
    }
    numbered
}
