//! The seating generator and the random baseline it is measured against.

use crate::error::SeatingError;
use crate::judges::judge_for;
use crate::model::{RoundSeating, Seating, SeatingInput, TableSeating, SEATS};
use crate::rests;
use crate::roster::Roster;
use crate::seats;
use crate::tables::{self, Meetings};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Rounds re-seated in turn, each against all the others, after the first
/// round-by-round pass: the early rounds were seated blind to the later ones.
const REFINE_PASSES: usize = 2;

/// Seat numbers reassigned table by table against all the other rounds.
const SEAT_PASSES: usize = 3;

/// Extra fresh attempts at a round that could not keep its separate pairs
/// apart, before giving up.
const SEPARATE_RETRIES: usize = 8;

fn check<'a>(input: &'a SeatingInput) -> Result<Roster<'a>, SeatingError> {
    let roster = Roster::new(&input.players, &input.policies)?;
    if input.tables == 0 {
        return Err(SeatingError::NoTables);
    }
    if input.rounds == 0 {
        return Err(SeatingError::NoRounds);
    }
    let seats = input.tables * SEATS;
    if roster.n() < seats {
        return Err(SeatingError::TooFewPlayers {
            players: roster.n(),
            tables: input.tables,
            seats,
        });
    }
    for judge in &input.judges {
        if input.judges.iter().filter(|j| *j == judge).count() > 1 {
            return Err(SeatingError::DuplicateJudge(judge.clone()));
        }
    }
    Ok(roster)
}

/// Seats every round: balanced rests, tables that even out pair meetings
/// and keep policies, seat numbers spread, judges rotated. The same input
/// and seed give the same seating.
pub fn seat(input: &SeatingInput, seed: u64) -> Result<Seating, SeatingError> {
    let roster = check(input)?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = roster.n();
    let plays = rests::schedule(n, input.tables * SEATS, input.rounds, &mut rng);
    let playing: Vec<Vec<usize>> = plays
        .iter()
        .map(|on| (0..n).filter(|&p| on[p]).collect())
        .collect();
    let mut meetings = Meetings::new(n);
    let mut rounds: Vec<Vec<Vec<usize>>> = Vec::with_capacity(input.rounds);
    for players in &playing {
        let split = tables::split(
            players,
            input.tables,
            None,
            &meetings,
            &roster,
            tables::FRESH,
            &mut rng,
        );
        meetings.add(&split);
        rounds.push(split);
    }
    for _ in 0..REFINE_PASSES {
        for r in 0..rounds.len() {
            meetings.remove(&rounds[r]);
            rounds[r] = tables::split(
                &playing[r],
                input.tables,
                Some(&rounds[r]),
                &meetings,
                &roster,
                tables::REFINE,
                &mut rng,
            );
            meetings.add(&rounds[r]);
        }
    }
    tables::anneal_rounds(
        &mut rounds,
        &mut meetings,
        &roster,
        tables::GLOBAL_ITERS_PER_SEAT * input.rounds * input.tables * SEATS,
        tables::GLOBAL_T_START,
        tables::GLOBAL_T_END,
        &mut rng,
    );
    for r in 0..rounds.len() {
        let mut tries = 0;
        while let Some((a, b)) = separate_pair(&roster, &rounds[r]) {
            if tries == SEPARATE_RETRIES {
                return Err(SeatingError::SeparateImpossible {
                    a: roster.id(a).to_string(),
                    b: roster.id(b).to_string(),
                    round: r + 1,
                });
            }
            tries += 1;
            meetings.remove(&rounds[r]);
            rounds[r] = tables::split(
                &playing[r],
                input.tables,
                None,
                &meetings,
                &roster,
                tables::FRESH,
                &mut rng,
            );
            meetings.add(&rounds[r]);
        }
    }
    let games: Vec<usize> = (0..n)
        .map(|p| plays.iter().filter(|on| on[p]).count())
        .collect();
    let numbered = seats::number_all(&rounds, n, &games, SEAT_PASSES);
    Ok(build(input, &roster, &plays, &numbered))
}

/// The baseline: the same balanced rests, then tables and seat numbers by
/// lot, blind to pair meetings, seat history and policies.
pub fn random_seating(input: &SeatingInput, seed: u64) -> Result<Seating, SeatingError> {
    let roster = check(input)?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = roster.n();
    let plays = rests::schedule(n, input.tables * SEATS, input.rounds, &mut rng);
    let rounds: Vec<Vec<Vec<usize>>> = plays
        .iter()
        .map(|on| {
            let mut players: Vec<usize> = (0..n).filter(|&p| on[p]).collect();
            players.shuffle(&mut rng);
            players.chunks(SEATS).map(<[usize]>::to_vec).collect()
        })
        .collect();
    Ok(build(input, &roster, &plays, &rounds))
}

fn separate_pair(roster: &Roster, round: &[Vec<usize>]) -> Option<(usize, usize)> {
    round.iter().find_map(|table| {
        table.iter().enumerate().find_map(|(k, &a)| {
            table[k + 1..]
                .iter()
                .find(|&&b| roster.is_separate(a, b))
                .map(|&b| (a, b))
        })
    })
}

fn build(
    input: &SeatingInput,
    roster: &Roster,
    plays: &[Vec<bool>],
    rounds: &[Vec<Vec<usize>>],
) -> Seating {
    Seating {
        rounds: rounds
            .iter()
            .enumerate()
            .map(|(r, round)| RoundSeating {
                tables: round
                    .iter()
                    .enumerate()
                    .map(|(t, table)| TableSeating {
                        judge: judge_for(&input.judges, input.tables, r, t),
                        seats: table.iter().map(|&p| roster.id(p).to_string()).collect(),
                    })
                    .collect(),
                resting: (0..roster.n())
                    .filter(|&p| !plays[r][p])
                    .map(|p| roster.id(p).to_string())
                    .collect(),
            })
            .collect(),
    }
}
