//! How long nights last, really and for the public, by the number of
//! hidden commands they took: `cargo run -p mafia-rules --example
//! public_night -- [games per rule set] [speed]`. `speed` divides the
//! simulated judge's think times as `mafia sim --speed` does (default 10).
//! The public's lengths must not differ between the rows.

use std::collections::BTreeMap;

use mafia_rules::sim::simulate;
use mafia_rules::{Envelope, Event, Game, RuleSetId};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

#[derive(Default)]
struct Row {
    nights: u32,
    real_ms: i64,
    public_ms: i64,
    public_min: Option<i64>,
    public_max: i64,
}

fn main() {
    let mut args = std::env::args().skip(1);
    let games: u64 = args.next().map_or(200, |a| a.parse().expect("games"));
    let speed: f64 = args.next().map_or(10.0, |a| a.parse().expect("speed"));
    for rules in RuleSetId::ALL {
        let mut rows: BTreeMap<usize, Row> = BTreeMap::new();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for _ in 0..games {
            let sim = simulate(rules, &mut rng, 0);
            // The same game at `speed`: every time scaled from the start.
            let events: Vec<Envelope> = sim
                .events
                .iter()
                .map(|e| Envelope {
                    at: (e.at as f64 / speed) as i64,
                    ..*e
                })
                .collect();
            let mut game = Game::replay(sim.setup.clone(), std::iter::empty()).expect("empty");
            // (real start, public start, commands seen)
            let mut night: Option<(i64, i64, u32, Vec<u32>)> = None;
            for e in &events {
                let seen = game.fold_seen(e).expect("a simulated game replays");
                match (e.event, &mut night) {
                    (Event::NightStarted { night: n, .. }, _) if n > 0 => {
                        let public = seen.public.expect("public").at;
                        night = Some((e.at, public, e.cmd, Vec::new()));
                    }
                    (Event::DayStarted { .. } | Event::GameEnded { .. }, Some(n)) => {
                        let (start, public_start, _, mut cmds) = n.clone();
                        cmds.push(e.cmd);
                        cmds.dedup();
                        let public = seen.public.expect("public").at - public_start;
                        let row = rows.entry(cmds.len()).or_default();
                        row.nights += 1;
                        row.real_ms += e.at - start;
                        row.public_ms += public;
                        row.public_min = Some(row.public_min.map_or(public, |m| m.min(public)));
                        row.public_max = row.public_max.max(public);
                        night = None;
                    }
                    (_, Some((_, _, first, cmds)))
                        if e.cmd != *first && cmds.last() != Some(&e.cmd) =>
                    {
                        cmds.push(e.cmd);
                    }
                    _ => {}
                }
            }
        }
        println!(
            "{rules:?} (public night {} s, speed {speed}):",
            mafia_rules::Params::preset(rules).public_night_secs
        );
        println!("  commands  nights  real mean s  public mean s  public min..max s");
        for (cmds, r) in &rows {
            let n = r.nights as f64;
            println!(
                "  {cmds:>8}  {:>6}  {:>11.1}  {:>13.1}  {:>6.1}..{:.1}",
                r.nights,
                r.real_ms as f64 / n / 1000.0,
                r.public_ms as f64 / n / 1000.0,
                r.public_min.unwrap_or(0) as f64 / 1000.0,
                r.public_max as f64 / 1000.0,
            );
        }
    }
}
