//! `cargo bench -p mafia-seating --bench seating`: time to seat, and the
//! quality of our seating beside a random one, as `name: value unit` lines.

use mafia_seating::{random_seating, seat, Metrics, PairPolicy, Player, SeatingInput};
use std::time::Instant;

const SEED: u64 = 7;

fn input(players: usize, rounds: usize) -> SeatingInput {
    let players = (1..=players)
        .map(|i| Player::new(format!("p{i}"), format!("Player {i}")))
        .collect();
    SeatingInput::new(players, 10, rounds)
}

fn input_tables(players: usize, tables: usize, rounds: usize) -> SeatingInput {
    SeatingInput {
        tables,
        ..input(players, rounds)
    }
}

/// 107 players (7 rest each round) in teams of three kept apart, and ten
/// avoid pairs across teams: the rests and the policies at work.
fn with_rests_and_policies() -> SeatingInput {
    let mut policies = Vec::new();
    for t in 0..35 {
        let id = |k: usize| format!("p{}", 3 * t + k + 1);
        for (a, b) in [(0, 1), (0, 2), (1, 2)] {
            policies.push(PairPolicy::separate(id(a), id(b)));
        }
    }
    for i in 1..=10 {
        policies.push(PairPolicy::avoid(format!("p{i}"), format!("p{}", 100 - i)));
    }
    SeatingInput {
        policies,
        judges: (1..=12).map(|j| format!("j{j}")).collect(),
        ..input_tables(107, 10, 10)
    }
}

/// The best of a few runs, in milliseconds: the machine is shared.
fn time_ms(input: &SeatingInput, runs: usize) -> f64 {
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(seat(input, SEED).expect("the bench input seats"));
            start.elapsed().as_secs_f64() * 1e3
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let small = input_tables(100, 10, 10);
    let large = input_tables(200, 20, 20);
    println!("seat_ms@100x10: {:.1} ms", time_ms(&small, 5));
    println!("seat_ms@200x20: {:.1} ms", time_ms(&large, 3));
    let policies = with_rests_and_policies();
    println!(
        "seat_ms@107x10_rests_policies: {:.1} ms",
        time_ms(&policies, 3)
    );
    for (label, inp) in [
        ("", &small),
        ("@200x20", &large),
        ("@107x10_rests_policies", &policies),
    ] {
        let ours = Metrics::compute(inp, &seat(inp, SEED).unwrap()).unwrap();
        let random = Metrics::compute(inp, &random_seating(inp, SEED).unwrap()).unwrap();
        for (name, m) in [("ours", &ours), ("random", &random)] {
            for (figure, value) in m.figures() {
                println!("{figure}{label}.{name}: {value}");
            }
        }
    }
}
