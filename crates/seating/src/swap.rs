//! The chief judge's swap of two seats in a round, rechecked.

use crate::error::SeatingError;
use crate::metrics::{check_separate, Metrics};
use crate::model::{Seating, SeatingInput, SEATS};

/// Swaps the players at `a` and `b` (each `(table, seat)`, 1-based) in
/// `round` (1-based) and returns the seating's new metrics. A swap that seats
/// a separate pair together, or names a seat that does not exist, is
/// refused and leaves the seating as it was.
pub fn swap(
    input: &SeatingInput,
    seating: &mut Seating,
    round: usize,
    a: (usize, usize),
    b: (usize, usize),
) -> Result<Metrics, SeatingError> {
    let rounds = seating.rounds.len();
    if round == 0 || round > rounds {
        return Err(SeatingError::NoSuchRound { round, rounds });
    }
    let tables = seating.rounds[round - 1].tables.len();
    for &(table, seat) in &[a, b] {
        let exists = (1..=tables).contains(&table)
            && (1..=SEATS).contains(&seat)
            && seat <= seating.rounds[round - 1].tables[table - 1].seats.len();
        if !exists {
            return Err(SeatingError::NoSuchSeat {
                round,
                table,
                seat,
                tables,
            });
        }
    }
    let before = seating.clone();
    let r = &mut seating.rounds[round - 1];
    let pa = std::mem::take(&mut r.tables[a.0 - 1].seats[a.1 - 1]);
    let pb = std::mem::replace(&mut r.tables[b.0 - 1].seats[b.1 - 1], pa);
    r.tables[a.0 - 1].seats[a.1 - 1] = pb;
    let checked = check_separate(input, seating).and_then(|()| Metrics::compute(input, seating));
    if checked.is_err() {
        *seating = before;
    }
    checked
}
