//! Who sits out each round when there are more players than seats.

use rand::Rng;

/// `plays[r][p]`: whether player `p` is seated in round `r`. Each round the
/// players with the most games so far rest (among them, who rested longest
/// ago, then by lot), which keeps every player's games within one of each
/// other's and spreads the rests out.
pub(crate) fn schedule(
    players: usize,
    seats: usize,
    rounds: usize,
    rng: &mut impl Rng,
) -> Vec<Vec<bool>> {
    let resting = players - seats;
    let mut games = vec![0usize; players];
    // Rounds since the last rest, counting "never" as the longest.
    let mut last_rest: Vec<Option<usize>> = vec![None; players];
    let mut out = Vec::with_capacity(rounds);
    for r in 0..rounds {
        let mut plays = vec![true; players];
        if resting > 0 {
            let mut order: Vec<(usize, u64)> = (0..players).map(|p| (p, rng.gen())).collect();
            order.sort_by(|&(a, ka), &(b, kb)| {
                games[b]
                    .cmp(&games[a])
                    .then(last_rest[a].cmp(&last_rest[b]))
                    .then(ka.cmp(&kb))
            });
            for &(p, _) in &order[..resting] {
                plays[p] = false;
                last_rest[p] = Some(r);
            }
        }
        for (p, &on) in plays.iter().enumerate() {
            games[p] += usize::from(on);
        }
        out.push(plays);
    }
    out
}
