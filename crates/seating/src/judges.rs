//! Table judges rotated round by round, so that each judge moves on and,
//! over enough rounds, sees every table.

/// The judge of a table (0-based round and table). With J judges and T
/// tables, slot `(table + round) mod max(J, T)` is judge number that slot
/// when there is one: each judge steps one table per round, and when J > T
/// the J − T judges without a table take turns resting.
pub(crate) fn judge_for(
    judges: &[String],
    tables: usize,
    round: usize,
    table: usize,
) -> Option<String> {
    if judges.is_empty() {
        return None;
    }
    let slots = judges.len().max(tables);
    judges.get((table + round) % slots).cloned()
}
