//! Seat numbers within a table: a min-cost assignment against each
//! player's history, round by round, so that nobody keeps one seat number
//! and nobody gathers the edge seats (1, 2, 9, 10).

use crate::hungarian;
use crate::model::SEATS;
use std::collections::HashMap;

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

/// A first seat numbering in which nobody sits in one seat number more than
/// ⌈games/10⌉ times: a proper edge colouring, with the 10 seat numbers as
/// colours, of the bipartite graph between tables (of a round) and players
/// (each split into one node per 10 of his games). A bipartite graph whose
/// degrees are at most 10 has one (König), found edge by edge by flipping an
/// alternating path when the two ends have no free colour in common.
fn colour(rounds: &[Vec<Vec<usize>>], n: usize) -> Vec<Vec<Vec<usize>>> {
    const NONE: usize = usize::MAX;
    let tables: usize = rounds.iter().map(Vec::len).sum();
    // Edges: (table node, player-copy node, player).
    let mut edges: Vec<(usize, usize)> = Vec::with_capacity(tables * SEATS);
    let mut games_so_far = vec![0usize; n];
    let mut copy_node: HashMap<(usize, usize), usize> = HashMap::new();
    let mut next_node = tables;
    let mut table_node = 0;
    for round in rounds {
        for table in round {
            for &p in table {
                let copy = games_so_far[p] / SEATS;
                games_so_far[p] += 1;
                let node = *copy_node.entry((p, copy)).or_insert_with(|| {
                    next_node += 1;
                    next_node - 1
                });
                edges.push((table_node, node));
            }
            table_node += 1;
        }
    }
    let mut at = vec![[NONE; SEATS]; next_node];
    let mut colour_of = vec![NONE; edges.len()];
    let free = |at: &[[usize; SEATS]], v: usize| at[v].iter().position(|&e| e == NONE);
    for e in 0..edges.len() {
        let (u, v) = edges[e];
        let a = free(&at, u).expect("a table has 10 seats for its 10 players");
        if at[v][a] != NONE {
            let b = free(&at, v).expect("a player node has at most 10 games");
            // The a/b path from v never reaches u in a bipartite graph;
            // swapping its colours frees a at v.
            let mut path = Vec::new();
            let (mut node, mut c) = (v, a);
            while at[node][c] != NONE {
                let f = at[node][c];
                path.push(f);
                let (x, y) = edges[f];
                node = if x == node { y } else { x };
                c = if c == a { b } else { a };
            }
            for &f in &path {
                let (x, y) = edges[f];
                at[x][colour_of[f]] = NONE;
                at[y][colour_of[f]] = NONE;
            }
            for &f in &path {
                let (x, y) = edges[f];
                colour_of[f] = if colour_of[f] == a { b } else { a };
                at[x][colour_of[f]] = f;
                at[y][colour_of[f]] = f;
            }
        }
        colour_of[e] = a;
        at[u][a] = e;
        at[v][a] = e;
    }
    let mut e = 0;
    rounds
        .iter()
        .map(|round| {
            round
                .iter()
                .map(|table| {
                    let mut seated = vec![NONE; SEATS];
                    for &p in table {
                        seated[colour_of[e]] = p;
                        e += 1;
                    }
                    seated
                })
                .collect()
        })
        .collect()
}

/// Seat numbers for every table of every round: a colouring that keeps
/// everyone's seat numbers within ⌈games/10⌉ each, then each table renumbered
/// in turn by a min-cost assignment against all the other rounds, which also
/// evens out the edge seats.
pub(crate) fn number_all(
    rounds: &[Vec<Vec<usize>>],
    n: usize,
    games: &[usize],
    passes: usize,
) -> Vec<Vec<Vec<usize>>> {
    let mut numbered = colour(rounds, n);
    let mut history = SeatHistory::new(n);
    for table in numbered.iter().flatten() {
        for (seat, &p) in table.iter().enumerate() {
            history.sit(p, seat);
        }
    }
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
