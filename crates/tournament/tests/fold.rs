//! Any sequence of commands, valid or not: the tournament built step by step
//! equals the fold of its log, the incremental ledger equals one computed
//! from scratch, and every event survives a JSON round trip.

mod common;

use common::*;
use mafia_record::GameId;
use mafia_rules::RuleSetId;
use mafia_tournament::*;
use proptest::prelude::*;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use std::sync::OnceLock;

/// Facts of simulated rfm games, their players renamed at recording.
fn templates() -> &'static Vec<GameFacts> {
    static T: OnceLock<Vec<GameFacts>> = OnceLock::new();
    T.get_or_init(|| {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2026);
        (0..12)
            .map(|_| {
                let g = mafia_rules::sim::simulate(RuleSetId::Rfm, &mut rng, T0);
                GameFacts::from_game(&g.game, &g.events).unwrap()
            })
            .collect()
    })
}

const EXTRA_VALUES: [i64; 8] = [20, 30, 80, 100, 110, 120, 160, 35];

fn actor(n: u16) -> Actor {
    match n % 5 {
        0 => Actor::Organiser,
        1 | 2 => Actor::ChiefJudge,
        3 => Actor::TableJudge(JudgeId::new("j1")),
        _ => Actor::TableJudge(JudgeId::new("j9")),
    }
}

fn command(cup: &Cup, op: u8, a: u8, b: u8, c: u16) -> (Actor, TournamentCommand) {
    let games: Vec<GameId> = cup.t.games.keys().cloned().collect();
    let game = |i: u8| games.get(i as usize % games.len().max(1)).cloned();
    let round = a as u32 % 8 + 1;
    let fallback = (Actor::Organiser, TournamentCommand::PublishStandings);
    // Weighted towards the scoring commands; withdrawals rare.
    const OPS: [u8; 20] = [0, 0, 1, 2, 2, 3, 4, 4, 5, 5, 5, 6, 6, 6, 7, 7, 8, 9, 10, 11];
    let cmd = match OPS[op as usize % OPS.len()] {
        0 => TournamentCommand::RegisterPlayer {
            player: Player {
                id: pid(a as usize % 30 + 1),
                nickname: format!("N{a}"),
                club: None,
                photo_url: None,
            },
        },
        1 => TournamentCommand::WithdrawPlayer {
            player: pid(a as usize % 30 + 1),
        },
        2 => {
            let mut active: Vec<PlayerId> = cup
                .t
                .players
                .values()
                .filter(|r| r.withdrawn_at.is_none() || matches!(b % 7, 0))
                .map(|r| r.player.id.clone())
                .collect();
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(c as u64);
            active.shuffle(&mut rng);
            let tables = (active.len() / 10).clamp(1, 2);
            TournamentCommand::SeatRound {
                stage: stage_id("main"),
                round,
                tables: (0..tables)
                    .map(|t| SeatedTable {
                        table: t as u32 + 1,
                        seats: active.iter().skip(t * 10).take(10).cloned().collect(),
                        judge: Some(JudgeId::new("j1")),
                    })
                    .collect(),
            }
        }
        3 => TournamentCommand::SwapSeats {
            stage: stage_id("main"),
            round,
            a: Place {
                table: b as u32 % 2 + 1,
                seat: seat(b % 10 + 1),
            },
            b: Place {
                table: (c % 2) as u32 + 1,
                seat: seat((c % 10) as u8 + 1),
            },
        },
        4 => TournamentCommand::AssignGame {
            game: GameId::new(
                cup.t.id.clone(),
                stage_id("main"),
                round,
                b as u32 % 2 + 1,
                (c % 2) as u32 + 1,
            )
            .unwrap(),
            judge: None,
        },
        5 => {
            let Some(g) = game(a) else { return fallback };
            let mut f = templates()[b as usize % templates().len()].clone();
            if let Some(t) = cup.t.table_of(&g) {
                for s in &mut f.seats {
                    s.player = t.player_at(s.seat).clone();
                }
            }
            // Results come from the referee's log; now and then a person
            // tries, and is refused.
            let by = if c % 7 == 3 {
                actor(c)
            } else {
                Actor::RefereeLog
            };
            return (
                by,
                TournamentCommand::RecordResult {
                    game: g,
                    facts: f,
                    ended_at: cup.now - (c as i64 % 3) * 1000,
                },
            );
        }
        6 => {
            let Some(g) = game(a) else { return fallback };
            let n = (c % 8) as usize;
            TournamentCommand::SubmitJudgeInputs {
                game: g,
                inputs: JudgeInputs {
                    extras: (0..n)
                        .map(|i| ExtraPoint {
                            seat: seat(((b as usize + i * 3) % 10) as u8 + 1),
                            points: Points::c(EXTRA_VALUES[(b as usize + i) % 8]),
                        })
                        .collect(),
                    penalties: if matches!(c % 5, 0) {
                        vec![JudgePenalty {
                            seat: seat(b % 10 + 1),
                            code: ["6.5.9", "6.5.11.1", "5.10"][c as usize % 3].into(),
                        }]
                    } else {
                        vec![]
                    },
                    best_move: if matches!(c % 7, 0) {
                        BestMoveVerdict::Denied
                    } else {
                        BestMoveVerdict::Confirmed
                    },
                },
            }
        }
        7 => {
            let pending = cup.t.pending_approvals();
            let Some((g, item)) = pending.get(a as usize % pending.len().max(1)).cloned() else {
                return fallback;
            };
            TournamentCommand::Approve { game: g, item }
        }
        8 => {
            let latest = cup
                .t
                .games
                .values()
                .filter_map(|g| g.result.as_ref().map(|r| (r.recorded_at, g.id.clone())))
                .max();
            let Some(g) = (if matches!(a % 3, 0) {
                game(a)
            } else {
                latest.map(|l| l.1)
            }) else {
                return fallback;
            };
            TournamentCommand::FileAppeal {
                game: g,
                player: None,
                event_seq: None,
                text: "appeal".into(),
            }
        }
        9 => TournamentCommand::DecideAppeal {
            appeal: cup
                .t
                .open_appeals()
                .first()
                .map_or(a as u32 % 4 + 1, |ap| ap.id),
            decision: match b % 4 {
                0 => AppealDecision::Rejected,
                1 => AppealDecision::ResultChanged {
                    winner: [
                        None,
                        Some(mafia_rules::Team::Red),
                        Some(mafia_rules::Team::Black),
                    ][c as usize % 3],
                },
                2 => AppealDecision::PointsCorrected {
                    corrections: cup
                        .t
                        .appeals
                        .values()
                        .find(|ap| ap.decided.is_none())
                        .and_then(|ap| cup.t.games[&ap.game].result.as_ref())
                        .map(|r| {
                            vec![Correction {
                                player: r.facts.seats[c as usize % 10].player.clone(),
                                points: Points::c(120),
                                note: String::new(),
                            }]
                        })
                        .unwrap_or_default(),
                },
                _ => AppealDecision::Replay,
            },
            reason: "video".into(),
        },
        10 => {
            let s = standings(&cup.t);
            let players = s
                .awaiting_lot
                .first()
                .cloned()
                .unwrap_or_else(|| vec![pid(1), pid(2)]);
            TournamentCommand::DrawLot { players }
        }
        _ => TournamentCommand::PublishStandings,
    };
    (actor(c), cmd)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn folding_the_log_gives_the_state_built_step_by_step(
        ops in proptest::collection::vec((any::<u8>(), any::<u8>(), any::<u8>(), any::<u16>()), 1..160)
    ) {
        let mut cup = Cup::new(Scheme::rfm(), 14, 8);
        for (op, a, b, c) in ops {
            let (who, cmd) = command(&cup, op, a, b, c);
            cup.now += (c as i64 % 90) * 1000;
            let before = cup.t.clone();
            match cup.t.command(&cmd, &who, cup.now) {
                Ok(evs) => {
                    for e in &evs {
                        let json = serde_json::to_string(e).unwrap();
                        let back: TournamentEvent = serde_json::from_str(&json).unwrap();
                        prop_assert_eq!(&back, e, "{}", json);
                        cup.t.apply(e);
                    }
                    cup.log.extend(evs);
                }
                Err(_) => prop_assert_eq!(&cup.t, &before),
            }
        }
        let folded = Tournament::fold(&cup.log).unwrap();
        prop_assert_eq!(&folded, &cup.t);
        prop_assert_eq!(&cup.t.recompute_ledger(), &cup.t.ledger);
        prop_assert_eq!(
            serde_json::to_string(&standings(&folded)).unwrap(),
            serde_json::to_string(&standings(&cup.t)).unwrap()
        );
    }
}

#[test]
fn a_long_random_tournament_folds_to_the_same_state() {
    let mut cup = Cup::new(Scheme::rfm(), 20, 8);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
    use rand::Rng;
    let mut accepted = 0;
    for _ in 0..3000 {
        let (op, a, b, c) = (rng.gen(), rng.gen(), rng.gen(), rng.gen());
        let (who, cmd) = command(&cup, op, a, b, c);
        cup.now += (c as i64 % 90) * 1000;
        if cup.run(who, cmd).is_ok() {
            accepted += 1;
        }
    }
    assert!(accepted > 300, "{accepted}");
    let mut kinds = std::collections::BTreeMap::new();
    for e in &cup.log {
        let v = serde_json::to_value(e).unwrap();
        *kinds
            .entry(v["type"].as_str().unwrap().to_owned())
            .or_insert(0) += 1;
    }
    assert!(kinds.len() >= 14, "few kinds of event: {kinds:?}");
    assert!(!cup.t.ledger.lines.is_empty());
    assert_eq!(Tournament::fold(&cup.log).unwrap(), cup.t);
    assert_eq!(cup.t.recompute_ledger(), cup.t.ledger);
}
