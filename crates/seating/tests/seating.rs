//! The seating generator against its rules: equal games, one table per
//! player per round, policies, seat spread, determinism, the swap, errors.

use mafia_seating::{
    check_separate, random_seating, seat, seat_number_cap, swap, Metrics, PairPolicy, Player,
    Seating, SeatingError, SeatingInput, SEATS,
};
use proptest::prelude::*;
use std::collections::HashMap;
use std::sync::OnceLock;

/// 100 players, 10 tables, 10 rounds, seed 7: seated once for all the tests
/// that look at it (seconds in a debug build).
fn hundred_by_ten() -> &'static (SeatingInput, Seating) {
    static SEATED: OnceLock<(SeatingInput, Seating)> = OnceLock::new();
    SEATED.get_or_init(|| {
        let inp = input(100, 10, 10);
        let s = seat(&inp, 7).unwrap();
        (inp, s)
    })
}

fn players(n: usize) -> Vec<Player> {
    (1..=n)
        .map(|i| Player::new(format!("p{i}"), format!("Player {i}")))
        .collect()
}

fn input(n: usize, tables: usize, rounds: usize) -> SeatingInput {
    SeatingInput::new(players(n), tables, rounds)
}

/// Games per player id.
fn games(seating: &Seating) -> HashMap<&str, usize> {
    let mut g = HashMap::new();
    for table in seating.rounds.iter().flat_map(|r| &r.tables) {
        for id in &table.seats {
            *g.entry(id.as_str()).or_default() += 1;
        }
    }
    g
}

/// The structural rules every seating keeps, whatever its quality.
fn assert_structure(input: &SeatingInput, seating: &Seating) {
    assert_eq!(seating.rounds.len(), input.rounds);
    for (r, round) in seating.rounds.iter().enumerate() {
        assert_eq!(round.tables.len(), input.tables, "round {}", r + 1);
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for table in &round.tables {
            assert_eq!(table.seats.len(), SEATS);
            for id in &table.seats {
                *seen.entry(id).or_default() += 1;
            }
        }
        for id in &round.resting {
            *seen.entry(id).or_default() += 1;
        }
        assert_eq!(seen.len(), input.players.len(), "round {}", r + 1);
        assert!(
            seen.values().all(|&c| c == 1),
            "round {}: a player seated twice or both seated and resting",
            r + 1
        );
    }
    let g = games(seating);
    let (lo, hi) = (
        input
            .players
            .iter()
            .map(|p| g.get(p.id.as_str()).copied().unwrap_or(0))
            .min()
            .unwrap(),
        input
            .players
            .iter()
            .map(|p| g.get(p.id.as_str()).copied().unwrap_or(0))
            .max()
            .unwrap(),
    );
    assert!(hi - lo <= 1, "games range {lo}..={hi}");
}

#[test]
fn every_player_plays_the_same_number_of_games_within_one() {
    // 140 seats over 25 players: 5.6 each, so 5 or 6.
    let inp = input(25, 2, 7);
    let s = seat(&inp, 1).unwrap();
    assert_structure(&inp, &s);
    let m = Metrics::compute(&inp, &s).unwrap();
    assert_eq!((m.games_min, m.games_max), (5, 6));
    // When it divides, exactly equal: 120 seats over 24 players.
    let inp = input(24, 2, 6);
    let m = Metrics::compute(&inp, &seat(&inp, 1).unwrap()).unwrap();
    assert_eq!((m.games_min, m.games_max), (5, 5));
}

#[test]
fn rests_are_spread_with_no_player_resting_twice_running() {
    // 5 of 25 rest each round: everyone rests 2 of 10 rounds.
    let inp = input(25, 2, 10);
    let m = Metrics::compute(&inp, &seat(&inp, 3).unwrap()).unwrap();
    assert_eq!(m.rests_back_to_back, 0);
}

#[test]
fn no_player_sits_at_two_tables_in_a_round() {
    let (inp, s) = hundred_by_ten();
    assert_structure(inp, s);
    // And the metrics refuse a seating that breaks it.
    let mut broken = s.clone();
    broken.rounds[2].tables[1].seats[4] = broken.rounds[2].tables[0].seats[0].clone();
    assert_eq!(
        Metrics::compute(inp, &broken),
        Err(SeatingError::PlayerTwiceInRound {
            player: broken.rounds[2].tables[0].seats[0].clone(),
            round: 3
        })
    );
}

/// Ten teams of three, every pair inside a team separate.
fn teams_of_three(n: usize) -> Vec<PairPolicy> {
    (0..n / 3)
        .flat_map(|t| {
            let id = move |k: usize| format!("p{}", 3 * t + k + 1);
            [(0, 1), (0, 2), (1, 2)]
                .into_iter()
                .map(move |(a, b)| PairPolicy::separate(id(a), id(b)))
        })
        .collect()
}

#[test]
fn separate_pairs_never_meet() {
    for (n, tables) in [(30, 3), (35, 3), (40, 4)] {
        let inp = SeatingInput {
            policies: teams_of_three(n),
            ..input(n, tables, 6)
        };
        let s = seat(&inp, 11).unwrap();
        assert_structure(&inp, &s);
        assert_eq!(check_separate(&inp, &s), Ok(()));
        assert_eq!(Metrics::compute(&inp, &s).unwrap().separate_violations, 0);
    }
}

#[test]
fn a_separate_policy_that_cannot_be_honoured_is_an_error() {
    let inp = SeatingInput {
        policies: vec![PairPolicy::separate("p3", "p7")],
        ..input(10, 1, 2)
    };
    let err = seat(&inp, 0).unwrap_err();
    assert_eq!(
        err,
        SeatingError::SeparateImpossible {
            a: "p3".into(),
            b: "p7".into(),
            round: 1
        }
    );
    assert!(err.to_string().contains("`p3` and `p7` must be kept apart"));
}

#[test]
fn avoid_pairs_meet_no_more_often_than_at_random() {
    let policies: Vec<PairPolicy> = (1..=10)
        .map(|i| PairPolicy::avoid(format!("p{i}"), format!("p{}", i + 10)))
        .collect();
    let inp = SeatingInput {
        policies,
        ..input(20, 2, 6)
    };
    let ours = Metrics::compute(&inp, &seat(&inp, 2).unwrap()).unwrap();
    let random = Metrics::compute(&inp, &random_seating(&inp, 2).unwrap()).unwrap();
    assert!(ours.avoid_meetings <= random.avoid_meetings);
    // Ten avoid pairs over 2 tables: each can be split every round.
    assert_eq!(ours.avoid_meetings, 0);
}

fn assert_beats_random(inp: &SeatingInput, ours: &Seating, seed: u64) {
    let ours = Metrics::compute(inp, ours).unwrap();
    let random = Metrics::compute(inp, &random_seating(inp, seed).unwrap()).unwrap();
    assert!(
        ours.pair_meetings_variance < random.pair_meetings_variance,
        "variance {} vs random {}",
        ours.pair_meetings_variance,
        random.pair_meetings_variance
    );
    assert!(ours.pair_meetings_max_minus_min <= random.pair_meetings_max_minus_min);
    assert!(ours.seat_number_max_per_player <= random.seat_number_max_per_player);
    assert!(ours.edge_seats_max_per_player <= random.edge_seats_max_per_player);
    assert_eq!(ours.seat_cap_violations, 0);
}

#[test]
fn metrics_beat_the_random_baseline_on_100_players_10_rounds() {
    let (inp, s) = hundred_by_ten();
    assert_beats_random(inp, s, 7);
    let ours = Metrics::compute(inp, s).unwrap();
    // Random seating gives ~0.83 and a spread of 5; we hold 2.
    assert!(ours.pair_meetings_variance < 0.4, "{ours:?}");
    assert!(ours.pair_meetings_max_minus_min <= 2, "{ours:?}");
    // Ten games each: every seat number once, four edge seats each.
    assert_eq!(ours.seat_number_max_per_player, 1, "{ours:?}");
    assert_eq!(ours.edge_seats_max_per_player, 4, "{ours:?}");
}

#[test]
fn metrics_beat_the_random_baseline_on_20_players_2_tables_3_rounds() {
    let inp = input(20, 2, 3);
    let s = seat(&inp, 7).unwrap();
    assert_beats_random(&inp, &s, 7);
    let ours = Metrics::compute(&inp, &s).unwrap();
    // 3 games: nobody twice in a seat number, at most 2 edge seats.
    assert_eq!(ours.seat_number_max_per_player, 1);
    assert!(ours.edge_seats_max_per_player <= 2);
}

#[test]
fn same_seed_gives_the_same_seating() {
    let inp = SeatingInput {
        judges: vec!["j1".into(), "j2".into(), "j3".into()],
        policies: teams_of_three(30),
        ..input(33, 3, 5)
    };
    assert_eq!(seat(&inp, 42).unwrap(), seat(&inp, 42).unwrap());
    assert_ne!(seat(&inp, 42).unwrap(), seat(&inp, 43).unwrap());
    assert_eq!(
        random_seating(&inp, 9).unwrap(),
        random_seating(&inp, 9).unwrap()
    );
}

#[test]
fn seat_number_cap_holds() {
    for (n, tables, rounds) in [(10, 1, 10), (10, 1, 23), (20, 2, 15), (35, 3, 12)] {
        let inp = input(n, tables, rounds);
        let s = seat(&inp, 4).unwrap();
        let m = Metrics::compute(&inp, &s).unwrap();
        assert_eq!(m.seat_cap_violations, 0, "{n}x{rounds}: {m:?}");
        assert!(m.seat_number_max_per_player <= seat_number_cap(m.games_max));
    }
    let (inp, s) = hundred_by_ten();
    assert_eq!(Metrics::compute(inp, s).unwrap().seat_cap_violations, 0);
}

#[test]
fn edge_seats_are_not_concentrated_on_anyone() {
    let (inp, s) = hundred_by_ten();
    let m = Metrics::compute(inp, s).unwrap();
    assert!(
        (m.edge_seats_max_per_player as f64) <= m.edge_seats_expected + 1.0,
        "{m:?}"
    );
}

#[test]
fn judges_rotate_across_the_tables() {
    let judges: Vec<String> = (1..=3).map(|j| format!("j{j}")).collect();
    let inp = SeatingInput {
        judges: judges.clone(),
        ..input(30, 3, 3)
    };
    let s = seat(&inp, 0).unwrap();
    for j in &judges {
        let tables: Vec<usize> = s
            .rounds
            .iter()
            .map(|r| {
                r.tables
                    .iter()
                    .position(|t| t.judge.as_ref() == Some(j))
                    .unwrap()
            })
            .collect();
        let mut sorted = tables.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, vec![0, 1, 2], "{j} sat at tables {tables:?}");
    }
    assert_eq!(Metrics::compute(&inp, &s).unwrap().judge_same_table_max, 1);
}

#[test]
fn swap_rechecks_the_metrics() {
    let inp = input(20, 2, 3);
    let mut s = seat(&inp, 1).unwrap();
    let a = s.rounds[1].tables[0].seats[2].clone();
    let b = s.rounds[1].tables[1].seats[6].clone();
    let m = swap(&inp, &mut s, 2, (1, 3), (2, 7)).unwrap();
    assert_eq!(s.rounds[1].tables[0].seats[2], b);
    assert_eq!(s.rounds[1].tables[1].seats[6], a);
    assert_eq!(m, Metrics::compute(&inp, &s).unwrap());
}

#[test]
fn swap_that_seats_a_separate_pair_together_is_refused() {
    let inp = SeatingInput {
        policies: vec![PairPolicy::separate("p1", "p2")],
        ..input(20, 2, 2)
    };
    let mut s = seat(&inp, 1).unwrap();
    let at = |s: &Seating, id: &str| {
        s.rounds[0]
            .tables
            .iter()
            .enumerate()
            .find_map(|(t, tab)| {
                tab.seats
                    .iter()
                    .position(|x| x == id)
                    .map(|k| (t + 1, k + 1))
            })
            .unwrap()
    };
    let (t1, _) = at(&s, "p1");
    let (t2, k2) = at(&s, "p2");
    assert_ne!(t1, t2);
    // Swap p2 with someone at p1's table.
    let other = if at(&s, "p1").1 == 1 { 2 } else { 1 };
    let before = s.clone();
    let err = swap(&inp, &mut s, 1, (t1, other), (t2, k2)).unwrap_err();
    assert!(
        matches!(err, SeatingError::SeparateViolated { round: 1, .. }),
        "{err}"
    );
    assert_eq!(s, before, "a refused swap leaves the seating as it was");
}

#[test]
fn swap_naming_a_seat_that_does_not_exist_is_an_error() {
    let inp = input(20, 2, 2);
    let mut s = seat(&inp, 1).unwrap();
    let err = swap(&inp, &mut s, 1, (1, 11), (2, 1)).unwrap_err();
    assert_eq!(
        err,
        SeatingError::NoSuchSeat {
            round: 1,
            table: 1,
            seat: 11,
            tables: 2
        }
    );
    assert!(err.to_string().contains("round 1 has no table 1 seat 11"));
    assert!(matches!(
        swap(&inp, &mut s, 1, (3, 1), (2, 1)),
        Err(SeatingError::NoSuchSeat { table: 3, .. })
    ));
    assert!(matches!(
        swap(&inp, &mut s, 3, (1, 1), (2, 1)),
        Err(SeatingError::NoSuchRound {
            round: 3,
            rounds: 2
        })
    ));
}

#[test]
fn a_player_listed_twice_is_an_error() {
    let mut inp = input(20, 2, 2);
    inp.players[7].id = "p3".into();
    let err = seat(&inp, 0).unwrap_err();
    assert_eq!(err, SeatingError::DuplicatePlayer("p3".into()));
    assert_eq!(err.to_string(), "player `p3` is listed twice");
}

#[test]
fn too_few_players_for_the_tables_is_an_error() {
    let err = seat(&input(19, 2, 2), 0).unwrap_err();
    assert_eq!(
        err.to_string(),
        "19 players are too few for 2 tables of 10 (at least 20 needed)"
    );
    assert_eq!(seat(&input(20, 0, 2), 0), Err(SeatingError::NoTables));
    assert_eq!(seat(&input(20, 2, 0), 0), Err(SeatingError::NoRounds));
}

#[test]
fn a_policy_naming_an_unknown_player_is_an_error() {
    let inp = SeatingInput {
        policies: vec![PairPolicy::avoid("p1", "ghost")],
        ..input(10, 1, 1)
    };
    assert_eq!(
        seat(&inp, 0).unwrap_err().to_string(),
        "an avoid policy names `ghost`, who is not among the players"
    );
}

#[test]
fn metrics_work_on_a_hand_made_seating() {
    let inp = input(10, 1, 2);
    let ids: Vec<String> = (1..=10).map(|i| format!("p{i}")).collect();
    let mut reversed = ids.clone();
    reversed.reverse();
    let s = Seating {
        rounds: vec![
            mafia_seating::RoundSeating {
                tables: vec![mafia_seating::TableSeating {
                    judge: None,
                    seats: ids,
                }],
                resting: vec![],
            },
            mafia_seating::RoundSeating {
                tables: vec![mafia_seating::TableSeating {
                    judge: None,
                    seats: reversed,
                }],
                resting: vec![],
            },
        ],
    };
    let m = Metrics::compute(&inp, &s).unwrap();
    assert_eq!((m.pair_meetings_min, m.pair_meetings_max), (2, 2));
    assert_eq!(m.pair_meetings_variance, 0.0);
    assert_eq!(m.seat_number_max_per_player, 1);
    // p1 and p2 sit in 1 and 2, then 10 and 9: all edge seats.
    assert_eq!(m.edge_seats_max_per_player, 2);
    // The seating also round-trips through JSON, as the CLI prints it.
    let json = serde_json::to_string(&s).unwrap();
    assert_eq!(serde_json::from_str::<Seating>(&json).unwrap(), s);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn any_players_tables_and_rounds_give_a_well_formed_seating(
        tables in 1usize..=4,
        extra in 0usize..=15,
        rounds in 1usize..=5,
        seed in any::<u64>(),
    ) {
        let inp = input(tables * SEATS + extra, tables, rounds);
        let s = seat(&inp, seed).unwrap();
        assert_structure(&inp, &s);
        let m = Metrics::compute(&inp, &s).unwrap();
        prop_assert_eq!(m.seat_cap_violations, 0);
        prop_assert_eq!(m.separate_violations, 0);
        prop_assert_eq!(seat(&inp, seed).unwrap(), s);
    }
}
