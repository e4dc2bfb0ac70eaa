//! `make bench` figures for the engine, one line each as `name: value unit`.
//! Single-threaded, over simulated games of every rule set.

use mafia_rules::sim::{simulate, SimulatedGame};
use mafia_rules::{Game, RuleSetId};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use std::time::{Duration, Instant};

const GAMES_PER_RULE_SET: usize = 400;

fn corpus() -> Vec<SimulatedGame> {
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    RuleSetId::ALL
        .iter()
        .flat_map(|id| {
            (0..GAMES_PER_RULE_SET)
                .map(|i| simulate(*id, &mut rng, i as i64))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Runs `f` repeatedly for at least `min`, returns (iterations, elapsed).
fn timed(min: Duration, mut f: impl FnMut()) -> (u64, Duration) {
    let start = Instant::now();
    let mut n = 0;
    while start.elapsed() < min {
        f();
        n += 1;
    }
    (n, start.elapsed())
}

fn main() {
    // `cargo bench` passes --bench; nothing else is accepted.
    let games = corpus();
    let events: usize = games.iter().map(|g| g.events.len()).sum();
    let commands: usize = games.iter().map(|g| g.commands.len()).sum();

    let (n, t) = timed(Duration::from_secs(3), || {
        for g in &games {
            black_box(Game::replay(g.setup.clone(), &g.events).unwrap());
        }
    });
    let replay = (n as f64 * events as f64) / t.as_secs_f64();

    // expected + apply, timed per game and divided by its commands; median over games.
    let mut per_cmd = Vec::with_capacity(games.len() * 5);
    for _ in 0..5 {
        for g in &games {
            let (mut game, _) = Game::new(g.setup.clone(), 0);
            let start = Instant::now();
            for (at, cmd) in &g.commands {
                black_box(game.expected());
                black_box(game.apply(cmd, *at).unwrap());
            }
            per_cmd.push(start.elapsed().as_nanos() as f64 / g.commands.len() as f64);
        }
    }
    per_cmd.sort_by(|a, b| a.total_cmp(b));
    let apply_ns = per_cmd[per_cmd.len() / 2];

    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut i = 0usize;
    let (n, t) = timed(Duration::from_secs(3), || {
        let id = RuleSetId::ALL[i % RuleSetId::ALL.len()];
        i += 1;
        black_box(simulate(id, &mut rng, 0));
    });
    let sim = n as f64 / t.as_secs_f64();

    println!("corpus_games: {} games", games.len());
    println!("corpus_events: {events} events");
    println!("corpus_commands: {commands} commands");
    println!("replay_events_per_sec: {replay:.0} events/s");
    println!("apply_ns: {apply_ns:.0} ns");
    println!("simulate_games_per_sec: {sim:.0} games/s");
}
