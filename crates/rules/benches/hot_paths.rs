//! Criterion benches of the engine's hot paths: apply and fold.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use mafia_rules::sim::simulate;
use mafia_rules::{Game, RuleSetId};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;

fn hot_paths(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for id in RuleSetId::ALL {
        let g = simulate(id, &mut rng, 0);
        let mut group = c.benchmark_group(id.as_str());
        group.throughput(Throughput::Elements(g.commands.len() as u64));
        group.bench_function("apply_game", |b| {
            b.iter(|| {
                let (mut game, _) = Game::new(g.setup.clone(), 0);
                for (at, cmd) in &g.commands {
                    black_box(game.apply(cmd, *at).unwrap());
                }
            })
        });
        group.throughput(Throughput::Elements(g.events.len() as u64));
        group.bench_function("replay_game", |b| {
            b.iter(|| black_box(Game::replay(g.setup.clone(), &g.events).unwrap()))
        });
        group.finish();
    }
}

criterion_group!(benches, hot_paths);
criterion_main!(benches);
