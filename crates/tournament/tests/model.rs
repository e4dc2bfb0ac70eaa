//! The tournament's structure, its permissions and its bad input.

mod common;

use common::*;
use mafia_record::{GameId, TournamentId};
use mafia_rules::{RuleSetId, Team};
use mafia_tournament::*;

fn register(n: usize) -> TournamentCommand {
    TournamentCommand::RegisterPlayer {
        player: Player {
            id: pid(n),
            nickname: format!("Again {n}"),
            club: Some("Club".into()),
            photo_url: None,
        },
    }
}

fn seating(tables: &[Vec<usize>]) -> TournamentCommand {
    TournamentCommand::SeatRound {
        stage: stage_id("main"),
        round: 1,
        tables: tables
            .iter()
            .enumerate()
            .map(|(i, ps)| SeatedTable {
                table: i as u32 + 1,
                seats: ps.iter().map(|n| pid(*n)).collect(),
                judge: None,
            })
            .collect(),
    }
}

#[test]
fn a_player_registered_twice_is_refused() {
    let mut cup = Cup::new(Scheme::rfm(), 10, 3);
    let e = cup.err(Actor::Organiser, register(3));
    assert_eq!(e, TournamentError::PlayerAlreadyRegistered(pid(3)));
    assert_eq!(e.to_string(), "player p03 is already registered");
}

#[test]
fn only_the_organiser_registers_and_creates() {
    let mut cup = Cup::new(Scheme::rfm(), 10, 3);
    let e = cup.err(chief(), register(11));
    assert!(matches!(e, TournamentError::NotPermitted { .. }), "{e}");
    let spec = TournamentSpec {
        id: TournamentId::new("x").unwrap(),
        name: "X".into(),
        rules: RuleSetId::Rfm,
        rule_overrides: serde_json::Value::Null,
        scheme: Scheme::rfm(),
    };
    assert!(Tournament::create(spec, &chief(), T0).is_err());
}

#[test]
fn a_player_at_two_tables_in_one_round_is_refused() {
    let mut cup = Cup::new(Scheme::rfm(), 20, 3);
    let mut second = ten(11);
    second[4] = 3;
    let e = cup.err(Actor::Organiser, seating(&[ten(1), second]));
    assert_eq!(
        e,
        TournamentError::PlayerAtTwoTables {
            player: pid(3),
            round: 1,
            first: 1,
            second: 2
        }
    );
    assert!(e.to_string().contains("a player plays one table a round"));
}

#[test]
fn a_seating_with_an_unknown_or_withdrawn_player_or_a_short_table_is_refused() {
    let mut cup = Cup::new(Scheme::rfm(), 20, 3);
    let mut t = ten(1);
    t[0] = 99;
    assert_eq!(
        cup.err(Actor::Organiser, seating(&[t])),
        TournamentError::UnknownPlayer(pid(99))
    );
    assert!(matches!(
        cup.err(Actor::Organiser, seating(&[(1..10).collect()])),
        TournamentError::TableNotFull { seats: 9, .. }
    ));
    cup.ok(
        Actor::Organiser,
        TournamentCommand::WithdrawPlayer { player: pid(4) },
    );
    assert_eq!(
        cup.err(Actor::Organiser, seating(&[ten(1)])),
        TournamentError::PlayerWithdrawn(pid(4))
    );
    assert!(matches!(
        cup.err(Actor::Organiser, seating(&[ten(11), ten(11)])),
        TournamentError::PlayerAtTwoTables { .. }
    ));
    let bad_round = TournamentCommand::SeatRound {
        stage: stage_id("main"),
        round: 4,
        tables: vec![],
    };
    assert!(matches!(
        cup.err(Actor::Organiser, bad_round),
        TournamentError::RoundOutOfRange { rounds: 3, .. }
    ));
}

#[test]
fn a_round_with_games_assigned_is_not_seated_again() {
    let mut cup = Cup::new(Scheme::rfm(), 10, 3);
    cup.seat_round("main", 1, &[ten(1)]);
    assert!(matches!(
        cup.err(Actor::Organiser, seating(&[ten(1)])),
        TournamentError::RoundAlreadyUnderway { .. }
    ));
}

#[test]
fn a_judge_input_for_a_game_not_finished_is_refused() {
    let mut cup = Cup::new(Scheme::rfm(), 10, 3);
    let g = cup.seat_round("main", 1, &[ten(1)]).remove(0);
    let e = cup.inputs(judge(), &g, &[(1, 30)]).unwrap_err();
    assert_eq!(e, TournamentError::GameNotFinished(g.clone()));
    let e = cup.err(
        chief(),
        TournamentCommand::Approve {
            game: g.clone(),
            item: ApprovalItem::Rewarded { count: 7 },
        },
    );
    assert_eq!(e, TournamentError::GameNotFinished(g));
}

#[test]
fn a_table_judge_acts_only_on_his_own_games() {
    let mut cup = Cup::new(Scheme::rfm(), 10, 3);
    cup.ok(
        Actor::Organiser,
        TournamentCommand::AddJudge {
            judge: Judge {
                id: JudgeId::new("j2"),
                name: "Two".into(),
            },
        },
    );
    let g = cup.seat_round("main", 1, &[ten(1)]).remove(0);
    let f = cup.facts(&g, Some(Team::Red));
    let other = Actor::TableJudge(JudgeId::new("j2"));
    cup.record(&g, f);
    assert!(matches!(
        cup.inputs(other, &g, &[(1, 30)]),
        Err(TournamentError::JudgeNotBound { .. })
    ));
    assert!(matches!(
        cup.inputs(Actor::Organiser, &g, &[(1, 30)]),
        Err(TournamentError::NotPermitted { .. })
    ));
}

#[test]
fn recording_a_result_twice_is_idempotent() {
    let mut cup = Cup::new(Scheme::rfm(), 10, 3);
    let g = cup.seat_round("main", 1, &[ten(1)]).remove(0);
    let f = cup.facts(&g, Some(Team::Red));
    let cmd = TournamentCommand::RecordResult {
        game: g.clone(),
        facts: f.clone(),
        ended_at: T0 + 5 * MIN,
    };
    assert_eq!(cup.ok(Actor::RefereeLog, cmd.clone()).len(), 1);
    let before = standings(&cup.t);
    for _ in 0..3 {
        assert!(cup.ok(Actor::RefereeLog, cmd.clone()).is_empty());
    }
    assert_eq!(standings(&cup.t), before);
    assert_eq!(cup.row(1).games, 1);
    let mut other = f;
    other.winner = Some(Team::Black);
    let e = cup.err(
        Actor::RefereeLog,
        TournamentCommand::RecordResult {
            game: g.clone(),
            facts: other,
            ended_at: T0 + 5 * MIN,
        },
    );
    assert_eq!(e, TournamentError::ResultAlreadyRecorded(g));
}

/// Results are taken from the referee's log only: the organiser, the chief
/// judge and even the game's own table judge are refused, for a game not
/// played and for one already scored; the recorded result then changes only
/// by the chief judge's appeal decision, which is kept with its reason.
#[test]
fn a_result_comes_only_from_the_referee_log_and_changes_only_by_appeal() {
    let mut cup = Cup::new(Scheme::rfm(), 10, 3);
    let g = cup.seat_round("main", 1, &[ten(1)]).remove(0);
    let forged = cup.facts(&g, Some(Team::Red));
    let record = |facts: &GameFacts| TournamentCommand::RecordResult {
        game: g.clone(),
        facts: facts.clone(),
        ended_at: T0,
    };
    for person in [Actor::Organiser, Actor::ChiefJudge, judge()] {
        let e = cup.err(person.clone(), record(&forged));
        assert!(
            matches!(e, TournamentError::NotPermitted { .. })
                && e.to_string().contains("referee's log"),
            "{person}: {e}"
        );
    }
    assert!(cup.t.games[&g].result.is_none(), "nothing recorded");
    let real = cup.facts(&g, Some(Team::Black));
    cup.ok(Actor::RefereeLog, record(&real));
    let mut other = real.clone();
    other.winner = Some(Team::Red);
    assert!(matches!(
        cup.err(Actor::ChiefJudge, record(&other)),
        TournamentError::NotPermitted { .. }
    ));
    assert_eq!(
        cup.err(Actor::RefereeLog, record(&other)),
        TournamentError::ResultAlreadyRecorded(g.clone())
    );
    assert_eq!(cup.t.games[&g].winner(), Some(Some(Team::Black)));
    cup.ok(
        Actor::ChiefJudge,
        TournamentCommand::FileAppeal {
            game: g.clone(),
            player: None,
            event_seq: None,
            text: "the vote was miscounted".into(),
        },
    );
    cup.ok(
        Actor::ChiefJudge,
        TournamentCommand::DecideAppeal {
            appeal: 1,
            decision: AppealDecision::ResultChanged {
                winner: Some(Team::Red),
            },
            reason: "the recount".into(),
        },
    );
    assert_eq!(cup.t.games[&g].winner(), Some(Some(Team::Red)));
    let decided = cup.t.appeals[&1].decided.as_ref().unwrap();
    assert_eq!(decided.by, Actor::ChiefJudge);
    assert_eq!(decided.reason, "the recount");
    assert_eq!(
        cup.t.games[&g].result.as_ref().unwrap().facts,
        real,
        "the log's facts stay as they were; the appeal overrides the winner"
    );
    cup.assert_fold_matches();
}

#[test]
fn a_result_whose_players_are_not_the_seated_ones_is_refused() {
    let mut cup = Cup::new(Scheme::rfm(), 11, 3);
    let g = cup.seat_round("main", 1, &[ten(1)]).remove(0);
    let mut f = cup.facts(&g, Some(Team::Red));
    f.seats[6].player = pid(11);
    let e = cup.err(
        Actor::RefereeLog,
        TournamentCommand::RecordResult {
            game: g.clone(),
            facts: f,
            ended_at: T0,
        },
    );
    assert!(matches!(e, TournamentError::SeatingMismatch { .. }), "{e}");
}

#[test]
fn a_game_of_another_tournament_or_an_unseated_table_is_not_assigned() {
    let mut cup = Cup::new(Scheme::rfm(), 10, 3);
    cup.seat_round("main", 1, &[ten(1)]);
    let other: GameId = "other.main.r1.t1.g2".parse().unwrap();
    assert!(matches!(
        cup.err(
            Actor::Organiser,
            TournamentCommand::AssignGame {
                game: other,
                judge: None
            }
        ),
        TournamentError::OtherTournament(_)
    ));
    let unseated: GameId = "cup.main.r1.t2.g1".parse().unwrap();
    assert!(matches!(
        cup.err(
            Actor::Organiser,
            TournamentCommand::AssignGame {
                game: unseated,
                judge: None
            }
        ),
        TournamentError::TableNotSeated { .. }
    ));
    let twice: GameId = "cup.main.r1.t1.g1".parse().unwrap();
    assert!(matches!(
        cup.err(
            Actor::Organiser,
            TournamentCommand::AssignGame {
                game: twice,
                judge: None
            }
        ),
        TournamentError::GameAlreadyAssigned(_)
    ));
}

#[test]
fn the_chief_judge_swaps_two_seats_until_the_tables_games_are_opened() {
    let mut cup = Cup::new(Scheme::rfm(), 20, 3);
    cup.seat_round_unassigned("main", 1, &[ten(1), ten(11)]);
    let swap = TournamentCommand::SwapSeats {
        stage: stage_id("main"),
        round: 1,
        a: Place {
            table: 1,
            seat: seat(1),
        },
        b: Place {
            table: 2,
            seat: seat(10),
        },
    };
    assert!(matches!(
        cup.err(Actor::Organiser, swap.clone()),
        TournamentError::NotPermitted {
            who: "the chief judge",
            ..
        }
    ));
    cup.ok(chief(), swap.clone());
    let games = [cup.assign("main", 1, 1), cup.assign("main", 1, 2)];
    let t1 = cup.t.table_of(&games[0]).unwrap();
    assert_eq!(t1.player_at(seat(1)), &pid(20));
    assert_eq!(
        cup.t.table_of(&games[1]).unwrap().player_at(seat(10)),
        &pid(1)
    );
    let f = cup.facts(&games[0], Some(Team::Red));
    assert_eq!(f.seats[0].player, pid(20));
    // Opened on the referee with this seating: a swap now would make the
    // game's result disagree with its table.
    assert!(matches!(
        cup.err(chief(), swap.clone()),
        TournamentError::SwapAfterAssigned { table: 1, .. }
    ));
    cup.record(&games[0], f);
    assert!(matches!(
        cup.err(chief(), swap),
        TournamentError::SwapAfterAssigned { table: 1, .. }
    ));
    cup.assert_fold_matches();
}

#[test]
fn a_log_must_start_with_its_creation() {
    let cup = Cup::new(Scheme::rfm(), 10, 3);
    assert_eq!(
        Tournament::fold(&cup.log[1..]).unwrap_err(),
        TournamentError::NotCreatedFirst
    );
    assert_eq!(
        Tournament::fold(std::iter::empty()).unwrap_err(),
        TournamentError::NotCreatedFirst
    );
    let mut twice = cup.log.clone();
    twice.push(cup.log[0].clone());
    assert_eq!(
        Tournament::fold(&twice).unwrap_err(),
        TournamentError::AlreadyCreated
    );
}

#[test]
fn the_standings_are_byte_identical_for_the_same_log() {
    let mut cup = Cup::new(Scheme::rfm(), 20, 3);
    for r in 1..=3 {
        let gs = cup.seat_round("main", r, &[ten(1), ten(11)]);
        for (i, g) in gs.iter().enumerate() {
            let w = if (r as usize + i) & 1 == 0 {
                Team::Red
            } else {
                Team::Black
            };
            let mut f = cup.facts(g, Some(w));
            shot_night_1(&mut f, 1 + (r as u8 % 3));
            cup.record(g, f);
        }
    }
    let a = serde_json::to_string(&standings(&cup.t)).unwrap();
    let folded = Tournament::fold(&cup.log).unwrap();
    let b = serde_json::to_string(&standings(&folded)).unwrap();
    assert_eq!(a, b);
    let log_json: Vec<String> = cup
        .log
        .iter()
        .map(|e| serde_json::to_string(e).unwrap())
        .collect();
    let back: Vec<TournamentEvent> = log_json
        .iter()
        .map(|j| serde_json::from_str(j).unwrap())
        .collect();
    let c = serde_json::to_string(&standings(&Tournament::fold(&back).unwrap())).unwrap();
    assert_eq!(a, c);
}

#[test]
fn a_simulated_games_facts_are_recorded_from_the_engine() {
    use rand::SeedableRng;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let mut cup = Cup::new(Scheme::rfm(), 10, 3);
    let g = cup.seat_round("main", 1, &[ten(1)]).remove(0);
    let sim = mafia_rules::sim::simulate(RuleSetId::Rfm, &mut rng, T0);
    let mut f = GameFacts::from_game(&sim.game, &sim.events).unwrap();
    for (i, s) in f.seats.iter_mut().enumerate() {
        s.player = pid(i + 1);
    }
    let ended = sim.events.last().unwrap().at;
    cup.ok(
        Actor::RefereeLog,
        TournamentCommand::RecordResult {
            game: g,
            facts: f.clone(),
            ended_at: ended,
        },
    );
    assert_eq!(standings(&cup.t).games, 1);
    let total: Points = standings(&cup.t).rows.iter().map(|r| r.points.base).sum();
    let winners = f
        .winner
        .map_or(0, |w| f.seats.iter().filter(|s| s.team() == w).count());
    assert_eq!(total, Points::c(100).times(winners as i64));
}

#[test]
fn the_player_history_lists_each_scored_game() {
    let mut cup = Cup::new(Scheme::rfm(), 10, 3);
    for r in 1..=2 {
        let g = cup.seat_round("main", r, &[ten(1)]).remove(0);
        let f = cup.facts(&g, Some(Team::Red));
        cup.record(&g, f);
    }
    let h = history(&cup.t, &pid(3));
    assert_eq!(h.len(), 2);
    assert_eq!(h[0].role, mafia_rules::Role::Sheriff);
    assert_eq!(h[0].outcome, Outcome::Win);
    assert_eq!(h[1].points.total, Points::c(100));
    assert!(history(&cup.t, &pid(99)).is_empty());
}
