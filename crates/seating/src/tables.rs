//! Splitting one round's players into tables: simulated annealing over
//! swaps of two players at different tables, then a descent to a local
//! minimum; then an annealing over all rounds at once. The cost of a table
//! is, over each pair at it, the cost of that pair's next meeting (`grow`:
//! about the growth of its meetings squared), plus a large penalty for an
//! `avoid` pair and a prohibitive one for a `separate` pair. Minimising the
//! sum of squares with the total fixed is what evens the meetings out.

use crate::model::SEATS;
use crate::roster::{Roster, AVOID, SEPARATE};
use rand::seq::SliceRandom;
use rand::Rng;

/// One avoid meeting costs as much as many uneven pair meetings.
const AVOID_COST: i64 = 1_000;
/// Any layout with a separate pair at one table costs more than any without.
const SEPARATE_COST: i64 = 1 << 40;

/// How hard to search a round.
#[derive(Clone, Copy)]
pub(crate) struct Effort {
    pub iters_per_player: usize,
    pub t_start: f64,
    pub t_end: f64,
}

/// From nothing: greedy start, then a full annealing.
pub(crate) const FRESH: Effort = Effort {
    iters_per_player: 400,
    t_start: 2.0,
    t_end: 0.05,
};

/// Re-seating a round given all the others: starts from its layout, cooler.
pub(crate) const REFINE: Effort = Effort {
    iters_per_player: 200,
    t_start: 0.8,
    t_end: 0.05,
};

/// The annealing over all rounds at once, per seat of the whole seating.
pub(crate) const GLOBAL_ITERS_PER_SEAT: usize = 500;
pub(crate) const GLOBAL_T_START: f64 = 0.5;
pub(crate) const GLOBAL_T_END: f64 = 0.05;

/// Pair meetings so far, `meet[a * n + b]` over the whole roster.
pub(crate) struct Meetings {
    n: usize,
    meet: Vec<u16>,
}

impl Meetings {
    pub fn new(n: usize) -> Meetings {
        Meetings {
            n,
            meet: vec![0; n * n],
        }
    }

    pub fn get(&self, a: usize, b: usize) -> u16 {
        self.meet[a * self.n + b]
    }

    pub fn add(&mut self, tables: &[Vec<usize>]) {
        self.shift(tables, |m| m + 1);
    }

    pub fn remove(&mut self, tables: &[Vec<usize>]) {
        self.shift(tables, |m| m - 1);
    }

    /// One more (or fewer) meeting of `p` with everyone at `table` but the
    /// seat `skip` (his own).
    fn shift_one(&mut self, p: usize, table: &[usize], skip: usize, more: bool) {
        for (k, &x) in table.iter().enumerate() {
            if k != skip {
                let m = self.meet[p * self.n + x];
                let m = if more { m + 1 } else { m - 1 };
                self.meet[p * self.n + x] = m;
                self.meet[x * self.n + p] = m;
            }
        }
    }

    fn shift(&mut self, tables: &[Vec<usize>], f: impl Fn(u16) -> u16) {
        for table in tables {
            for (k, &a) in table.iter().enumerate() {
                for &b in &table[k + 1..] {
                    let m = f(self.meet[a * self.n + b]);
                    self.meet[a * self.n + b] = m;
                    self.meet[b * self.n + a] = m;
                }
            }
        }
    }
}

/// The current split of a round and, for each player, the cost of his
/// pairs with each table (`s[i * t + table]`), so that a swap's delta is O(1).
struct Layout<'w> {
    n: usize,
    t: usize,
    w: &'w [i64],
    table_of: Vec<usize>,
    s: Vec<i64>,
}

impl<'w> Layout<'w> {
    fn new(w: &'w [i64], n: usize, t: usize, table_of: Vec<usize>) -> Layout<'w> {
        let mut s = vec![0i64; n * t];
        for i in 0..n {
            for x in 0..n {
                if x != i {
                    s[i * t + table_of[x]] += w[i * n + x];
                }
            }
        }
        Layout {
            n,
            t,
            w,
            table_of,
            s,
        }
    }

    fn cost(&self) -> i64 {
        (0..self.n)
            .map(|i| self.s[i * self.t + self.table_of[i]])
            .sum::<i64>()
            / 2
    }

    fn delta(&self, i: usize, j: usize) -> i64 {
        let (a, b) = (self.table_of[i], self.table_of[j]);
        let (n, t, w, s) = (self.n, self.t, self.w, &self.s);
        s[i * t + b] - w[i * n + j] - s[i * t + a] + s[j * t + a] - w[j * n + i] - s[j * t + b]
    }

    fn apply(&mut self, i: usize, j: usize) {
        let (a, b) = (self.table_of[i], self.table_of[j]);
        let (n, t) = (self.n, self.t);
        for x in 0..n {
            let moved = self.w[x * n + i] - self.w[x * n + j];
            self.s[x * t + a] -= moved;
            self.s[x * t + b] += moved;
        }
        self.table_of[i] = b;
        self.table_of[j] = a;
    }
}

/// Splits `playing` (roster indices, exactly `tables * SEATS` of them) into
/// tables. `start` (the round's current tables) is improved instead of
/// building a greedy start.
pub(crate) fn split(
    playing: &[usize],
    tables: usize,
    start: Option<&[Vec<usize>]>,
    meetings: &Meetings,
    roster: &Roster,
    effort: Effort,
    rng: &mut impl Rng,
) -> Vec<Vec<usize>> {
    let n = playing.len();
    debug_assert_eq!(n, tables * SEATS);
    if tables == 1 {
        return vec![playing.to_vec()];
    }
    let np = roster.n();
    let mut w = vec![0i64; n * n];
    for a in 0..n {
        for b in 0..n {
            if a != b {
                let (ga, gb) = (playing[a], playing[b]);
                let bits = roster.pairs[ga * np + gb];
                w[a * n + b] = grow(meetings.get(ga, gb))
                    + if bits & SEPARATE != 0 {
                        SEPARATE_COST
                    } else if bits & AVOID != 0 {
                        AVOID_COST
                    } else {
                        0
                    };
            }
        }
    }
    let table_of = match start {
        Some(start) => {
            let mut local = vec![usize::MAX; np];
            for (i, &g) in playing.iter().enumerate() {
                local[g] = i;
            }
            let mut table_of = vec![0; n];
            for (t, table) in start.iter().enumerate() {
                for &g in table {
                    table_of[local[g]] = t;
                }
            }
            table_of
        }
        None => greedy(&w, n, tables, playing, roster, rng),
    };
    let mut layout = Layout::new(&w, n, tables, table_of);
    anneal(&mut layout, effort, rng);
    descend(&mut layout);
    let mut out = vec![Vec::with_capacity(SEATS); tables];
    for (i, &t) in layout.table_of.iter().enumerate() {
        out[t].push(playing[i]);
    }
    out
}

/// Players with the most separate partners first (they are the hardest to
/// place), each to the open table where his pairs cost least.
fn greedy(
    w: &[i64],
    n: usize,
    tables: usize,
    playing: &[usize],
    roster: &Roster,
    rng: &mut impl Rng,
) -> Vec<usize> {
    let degree: Vec<usize> = playing
        .iter()
        .map(|&a| {
            playing
                .iter()
                .filter(|&&b| roster.is_separate(a, b))
                .count()
        })
        .collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(rng);
    order.sort_by_key(|&i| std::cmp::Reverse(degree[i]));
    let mut table_order: Vec<usize> = (0..tables).collect();
    table_order.shuffle(rng);
    let mut members: Vec<Vec<usize>> = vec![Vec::with_capacity(SEATS); tables];
    let mut table_of = vec![0; n];
    for i in order {
        let t = table_order
            .iter()
            .copied()
            .filter(|&t| members[t].len() < SEATS)
            .min_by_key(|&t| members[t].iter().map(|&x| w[i * n + x]).sum::<i64>())
            .expect("there are exactly enough seats");
        members[t].push(i);
        table_of[i] = t;
    }
    table_of
}

fn anneal(layout: &mut Layout, effort: Effort, rng: &mut impl Rng) {
    let n = layout.n;
    let iters = effort.iters_per_player * n;
    if iters == 0 {
        return;
    }
    let cool = (effort.t_end / effort.t_start).powf(1.0 / iters as f64);
    let mut temp = effort.t_start;
    let mut cost = layout.cost();
    let mut best = cost;
    let mut best_tables = layout.table_of.clone();
    for _ in 0..iters {
        temp *= cool;
        let i = rng.gen_range(0..n);
        let j = loop {
            let j = rng.gen_range(0..n);
            if layout.table_of[j] != layout.table_of[i] {
                break j;
            }
        };
        let d = layout.delta(i, j);
        if d <= 0 || rng.gen::<f64>() < (-(d as f64) / temp).exp() {
            layout.apply(i, j);
            cost += d;
            if cost < best {
                best = cost;
                best_tables.copy_from_slice(&layout.table_of);
            }
        }
    }
    if best < cost {
        *layout = Layout::new(layout.w, n, layout.t, best_tables);
    }
}

fn descend(layout: &mut Layout) {
    loop {
        let mut improved = false;
        for i in 0..layout.n {
            for j in i + 1..layout.n {
                if layout.table_of[i] != layout.table_of[j] && layout.delta(i, j) < 0 {
                    layout.apply(i, j);
                    improved = true;
                }
            }
        }
        if !improved {
            return;
        }
    }
}

/// The cost of a pair's meeting number m + 1, given m before it. Squares
/// (1, 3, 5, …) alone even out the variance; making the third and later
/// meetings much dearer also keeps the maximum down (on 100 players × 10
/// rounds: max−min 2 instead of 3 for a variance 0.33 → 0.34).
pub(crate) fn grow(m: u16) -> i64 {
    match m {
        0 => 1,
        1 => 3,
        2 => 12,
        m => 40 * i64::from(m - 2),
    }
}

/// The extra cost of a pair's meetings beyond evenness: its policy.
fn penalty(roster: &Roster, a: usize, b: usize) -> i64 {
    let bits = roster.pairs[a * roster.n() + b];
    if bits & SEPARATE != 0 {
        SEPARATE_COST
    } else if bits & AVOID != 0 {
        AVOID_COST
    } else {
        0
    }
}

/// Annealing over every round at once: a move swaps two players at
/// different tables of one round, and its cost is the change in the sum over
/// all pairs of meetings squared (plus policy penalties), read from the
/// whole seating's meetings. This sees what seating round by round cannot:
/// a pair that meets in round 2 because of round 9.
pub(crate) fn anneal_rounds(
    rounds: &mut [Vec<Vec<usize>>],
    meetings: &mut Meetings,
    roster: &Roster,
    iters: usize,
    t_start: f64,
    t_end: f64,
    rng: &mut impl Rng,
) {
    let tables = rounds.first().map_or(0, Vec::len);
    if tables < 2 || iters == 0 {
        return;
    }
    let cool = (t_end / t_start).powf(1.0 / iters as f64);
    let mut temp = t_start;
    // Marginal cost of one more (sign 1) or one fewer (sign -1) meeting.
    let step = |m: &Meetings, a: usize, b: usize, more: bool| -> i64 {
        let m = m.get(a, b);
        let pen = penalty(roster, a, b);
        if more {
            grow(m) + pen
        } else {
            -grow(m - 1) - pen
        }
    };
    for _ in 0..iters {
        temp *= cool;
        let r = rng.gen_range(0..rounds.len());
        let ta = rng.gen_range(0..tables);
        let tb = (ta + rng.gen_range(1..tables)) % tables;
        let (ka, kb) = (rng.gen_range(0..SEATS), rng.gen_range(0..SEATS));
        let round = &rounds[r];
        let (i, j) = (round[ta][ka], round[tb][kb]);
        let mut d = 0i64;
        for (k, &x) in round[ta].iter().enumerate() {
            if k != ka {
                d += step(meetings, i, x, false) + step(meetings, j, x, true);
            }
        }
        for (k, &x) in round[tb].iter().enumerate() {
            if k != kb {
                d += step(meetings, j, x, false) + step(meetings, i, x, true);
            }
        }
        if d <= 0 || rng.gen::<f64>() < (-(d as f64) / temp).exp() {
            #[cfg(test)]
            let before = total_cost(meetings, roster);
            let round = &mut rounds[r];
            meetings.shift_one(i, &round[ta], ka, false);
            meetings.shift_one(j, &round[tb], kb, false);
            round[ta][ka] = j;
            round[tb][kb] = i;
            meetings.shift_one(j, &round[ta], ka, true);
            meetings.shift_one(i, &round[tb], kb, true);
            #[cfg(test)]
            assert_eq!(total_cost(meetings, roster) - before, d);
        }
    }
}

#[cfg(test)]
fn total_cost(m: &Meetings, roster: &Roster) -> i64 {
    let n = roster.n();
    let mut c = 0;
    for a in 0..n {
        for b in a + 1..n {
            let k = m.get(a, b);
            c += (0..k).map(grow).sum::<i64>() + i64::from(k) * penalty(roster, a, b);
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Player;
    use rand::SeedableRng;

    #[test]
    fn global_annealing_deltas_match_the_recomputed_cost() {
        let players: Vec<Player> = (0..30).map(|i| Player::new(format!("p{i}"), "x")).collect();
        let policies = vec![crate::model::PairPolicy::avoid("p1", "p2")];
        let roster = Roster::new(&players, &policies).unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let mut rounds: Vec<Vec<Vec<usize>>> = (0..4)
            .map(|_| {
                let mut p: Vec<usize> = (0..30).collect();
                p.shuffle(&mut rng);
                p.chunks(10).map(<[usize]>::to_vec).collect()
            })
            .collect();
        let mut m = Meetings::new(30);
        for r in &rounds {
            m.add(r);
        }
        anneal_rounds(&mut rounds, &mut m, &roster, 5000, 2.0, 0.05, &mut rng);
    }
}
