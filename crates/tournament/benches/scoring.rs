//! Scoring bench: a tournament of 200 players, 20 rounds of 20 tables (400
//! games from seeded simulated rfm games, with judge inputs), then
//!
//! - `recompute_ms@400games`: the whole tournament folded from its log and
//!   its standings ranked, from nothing;
//! - `incremental_update_us`: one more game recorded (validated, applied)
//!   and the standings ranked again.
//!
//! Prints `name: value unit` lines. Medians over repeated runs.

use mafia_record::{GameId, StageId, TournamentId};
use mafia_rules::{RuleSetId, Team};
use mafia_tournament::*;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use std::time::Instant;

const PLAYERS: usize = 200;
const ROUNDS: u32 = 20;
const TABLES: u32 = 20;
const T0: i64 = 1_780_000_000_000;

struct Built {
    t: Tournament,
    log: Vec<TournamentEvent>,
    now: i64,
}

impl Built {
    fn run(&mut self, actor: &Actor, cmd: TournamentCommand) {
        self.now += 1000;
        let evs = self
            .t
            .command(&cmd, actor, self.now)
            .unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
        for e in &evs {
            self.t.apply(e);
        }
        self.log.extend(evs);
    }
}

fn pid(n: usize) -> PlayerId {
    PlayerId::new(format!("p{n:03}"))
}

fn facts_for(sim: &mafia_rules::sim::SimulatedGame, table: &SeatedTable) -> GameFacts {
    let mut f = GameFacts::from_game(&sim.game, &sim.events).expect("a finished game");
    for s in &mut f.seats {
        s.player = table.player_at(s.seat).clone();
    }
    f
}

/// A judge's ordinary protocol: +0.5 and +0.3 to two winners, +0.2 to a loser.
fn inputs_for(f: &GameFacts) -> JudgeInputs {
    let Some(w) = f.winner else {
        return JudgeInputs::default();
    };
    let winners: Vec<_> = f.seats.iter().filter(|s| s.team() == w).collect();
    let loser = f.seats.iter().find(|s| s.team() != w);
    let mut extras = vec![ExtraPoint {
        seat: winners[0].seat,
        points: Points::c(50),
    }];
    // rfm §6.4.8 caps extra + best move at 1.2; 0.3 keeps every case under.
    if winners.len() > 1 {
        extras.push(ExtraPoint {
            seat: winners[1].seat,
            points: Points::c(30),
        });
    }
    if let Some(l) = loser {
        extras.push(ExtraPoint {
            seat: l.seat,
            points: Points::c(20),
        });
    }
    JudgeInputs {
        extras,
        ..JudgeInputs::default()
    }
}

fn build(sims: &[mafia_rules::sim::SimulatedGame]) -> (Built, GameId, GameFacts) {
    let organiser = Actor::Organiser;
    let tid = TournamentId::new("bench").unwrap();
    let stage = StageId::new("main").unwrap();
    let created = Tournament::create(
        TournamentSpec {
            id: tid.clone(),
            name: "Bench".into(),
            rules: RuleSetId::Rfm,
            rule_overrides: serde_json::Value::Null,
            scheme: Scheme::rfm(),
        },
        &organiser,
        T0,
    )
    .unwrap();
    let mut b = Built {
        t: Tournament::from_created(&created).unwrap(),
        log: vec![created],
        now: T0,
    };
    b.run(
        &organiser,
        TournamentCommand::AddJudge {
            judge: Judge {
                id: JudgeId::new("j1"),
                name: "J".into(),
            },
        },
    );
    b.run(
        &organiser,
        TournamentCommand::AddStage {
            stage: Stage {
                id: stage.clone(),
                name: "Qualifying".into(),
                // One round more for the incremental game.
                rounds: ROUNDS + 1,
                tables: TABLES,
                coefficient: Coefficient::ONE,
            },
        },
    );
    for n in 1..=PLAYERS {
        b.run(
            &organiser,
            TournamentCommand::RegisterPlayer {
                player: Player {
                    id: pid(n),
                    nickname: format!("Player {n}"),
                    club: None,
                    photo_url: None,
                },
            },
        );
    }
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut players: Vec<PlayerId> = (1..=PLAYERS).map(pid).collect();
    let mut sim = sims.iter();
    let judge = Actor::TableJudge(JudgeId::new("j1"));
    let mut seat = |b: &mut Built, round: u32, tables: u32| -> Vec<SeatedTable> {
        players.shuffle(&mut rng);
        let tables: Vec<SeatedTable> = (0..tables)
            .map(|t| SeatedTable {
                table: t + 1,
                seats: players[t as usize * 10..t as usize * 10 + 10].to_vec(),
                judge: Some(JudgeId::new("j1")),
            })
            .collect();
        b.run(
            &organiser,
            TournamentCommand::SeatRound {
                stage: stage.clone(),
                round,
                tables: tables.clone(),
            },
        );
        tables
    };
    for round in 1..=ROUNDS {
        let tables = seat(&mut b, round, TABLES);
        for t in &tables {
            let game = GameId::new(tid.clone(), stage.clone(), round, t.table, 1).unwrap();
            b.run(
                &organiser,
                TournamentCommand::AssignGame {
                    game: game.clone(),
                    judge: None,
                },
            );
            let f = facts_for(sim.next().unwrap(), t);
            let inputs = inputs_for(&f);
            b.run(
                &Actor::RefereeLog,
                TournamentCommand::RecordResult {
                    game: game.clone(),
                    facts: f,
                    ended_at: b.now,
                },
            );
            if !inputs.extras.is_empty() {
                b.run(
                    &judge,
                    TournamentCommand::SubmitJudgeInputs { game, inputs },
                );
            }
        }
    }
    let tables = seat(&mut b, ROUNDS + 1, 1);
    let extra = GameId::new(tid, stage, ROUNDS + 1, 1, 1).unwrap();
    b.run(
        &organiser,
        TournamentCommand::AssignGame {
            game: extra.clone(),
            judge: None,
        },
    );
    let f = facts_for(sim.next().unwrap(), &tables[0]);
    (b, extra, f)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    let sims: Vec<_> = (0..=ROUNDS * TABLES)
        .map(|i| mafia_rules::sim::simulate(RuleSetId::Rfm, &mut rng, T0 + i as i64 * 3_600_000))
        .collect();
    let (built, extra_game, extra_facts) = build(&sims);
    let games = built.t.ledger.lines.len();
    assert_eq!(games, (ROUNDS * TABLES) as usize);
    let decided = sims
        .iter()
        .filter(|s| s.game.result().is_some_and(|o| o.winner == Some(Team::Red)))
        .count();
    println!("games: {games}");
    println!("players: {PLAYERS}");
    println!("log_events: {}", built.log.len());
    println!("red_wins_in_sample: {decided}");

    // Full recompute: fold the whole log and rank.
    let mut runs = Vec::new();
    for _ in 0..30 {
        let start = Instant::now();
        let t = Tournament::fold(&built.log).unwrap();
        let s = standings(&t);
        black_box(&s);
        runs.push(start.elapsed().as_secs_f64() * 1e3);
    }
    let folded = Tournament::fold(&built.log).unwrap();
    assert_eq!(folded, built.t);
    println!("recompute_ms@400games: {:.3} ms", median(runs));

    // Scoring only: every game's line and the accumulators from scratch, then rank.
    let mut runs = Vec::new();
    for _ in 0..30 {
        let start = Instant::now();
        let ledger = built.t.recompute_ledger();
        black_box(&ledger);
        let s = standings(&built.t);
        black_box(&s);
        runs.push(start.elapsed().as_secs_f64() * 1e3);
    }
    println!("rescore_all_ms@400games: {:.3} ms", median(runs));

    let mut runs = Vec::new();
    for _ in 0..100 {
        let start = Instant::now();
        black_box(standings(&built.t));
        runs.push(start.elapsed().as_secs_f64() * 1e6);
    }
    println!("rank_us@200players: {:.1} µs", median(runs));

    // One more game: validate, apply, rank. The clones are made untimed.
    let cmd = TournamentCommand::RecordResult {
        game: extra_game,
        facts: extra_facts,
        ended_at: built.now,
    };
    let mut copies: Vec<Tournament> = (0..100).map(|_| built.t.clone()).collect();
    let mut runs = Vec::new();
    for t in &mut copies {
        let start = Instant::now();
        let evs = t
            .command(&cmd, &Actor::RefereeLog, built.now + 1000)
            .unwrap();
        for e in &evs {
            t.apply(e);
        }
        let s = standings(t);
        black_box(&s);
        runs.push(start.elapsed().as_secs_f64() * 1e6);
    }
    assert_eq!(copies[0].ledger.lines.len(), games + 1);
    assert_eq!(copies[0].ledger, copies[0].recompute_ledger());
    println!("incremental_update_us: {:.1} µs", median(runs));

    // Determinism: the same log gives the same bytes.
    let a = serde_json::to_string(&standings(&built.t)).unwrap();
    let b = serde_json::to_string(&standings(&folded)).unwrap();
    assert_eq!(a, b);
    println!("standings_json_bytes: {}", a.len());
}
