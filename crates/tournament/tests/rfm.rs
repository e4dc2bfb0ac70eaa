//! rfm §6 (000_90dbcc835839dac8.txt), clause by clause.

mod common;

use common::*;
use mafia_rules::{Cause, Team, When};
use mafia_tournament::facts::DepartureFact;
use mafia_tournament::*;

fn cup() -> (Cup, mafia_record::GameId) {
    let mut cup = Cup::new(Scheme::rfm(), 10, 10);
    let g = cup.seat_round("main", 1, &[ten(1)]).remove(0);
    (cup, g)
}

fn finished(winner: Option<Team>) -> (Cup, mafia_record::GameId) {
    let (mut cup, g) = cup();
    let f = cup.facts(&g, winner);
    cup.record(&g, f);
    (cup, g)
}

#[test]
fn rfm_6_3_every_winner_gets_one_point_and_losers_none() {
    let (cup, _) = finished(Some(Team::Red));
    for n in [1, 2, 3, 4, 6, 8, 10] {
        assert_eq!(cup.row(n).points.base, Points::c(100), "p{n}");
        assert_eq!(cup.row(n).wins, 1);
    }
    for n in [5, 7, 9] {
        assert_eq!(cup.row(n).points.total, Points::ZERO, "p{n}");
    }
    assert_eq!(cup.row(3).wins_by_role.sheriff, 1);
    cup.assert_fold_matches();
}

#[test]
fn rfm_6_4_2_an_extra_of_1_1_or_0_35_is_not_in_the_winners_list() {
    let (mut cup, g) = finished(Some(Team::Red));
    for bad in [110, 35] {
        let e = cup.inputs(judge(), &g, &[(1, bad)]).unwrap_err();
        assert!(
            matches!(
                e,
                TournamentError::ExtraNotAllowed {
                    side: "a winner",
                    ..
                }
            ),
            "{e}"
        );
        assert!(e.to_string().contains("rfm §6.4.2"), "{e}");
    }
    cup.inputs(judge(), &g, &[(1, 120), (2, 30)]).unwrap();
    assert_eq!(cup.row(1).points.extra, Points::c(120));
}

#[test]
fn rfm_6_4_3_a_loser_gets_0_2_to_0_8_only() {
    let (mut cup, g) = finished(Some(Team::Red));
    let e = cup.inputs(judge(), &g, &[(5, 90)]).unwrap_err();
    assert!(
        matches!(
            e,
            TournamentError::ExtraNotAllowed {
                side: "a loser",
                ..
            }
        ),
        "{e}"
    );
    let e = cup.inputs(judge(), &g, &[(5, 10)]).unwrap_err();
    assert!(e.to_string().contains("§6.4.3"), "{e}");
    cup.inputs(judge(), &g, &[(5, 20), (7, 80)]).unwrap();
    assert_eq!(cup.row(7).points.total, Points::c(80));
}

#[test]
fn rfm_6_4_2_a_winners_extra_of_1_6_needs_the_chief_judges_approval() {
    let (mut cup, g) = finished(Some(Team::Red));
    let evs = cup.inputs(judge(), &g, &[(3, 160)]).unwrap();
    let item = ApprovalItem::ExtraValue {
        seat: seat(3),
        points: Points::c(160),
    };
    assert!(
        matches!(&evs[0], TournamentEvent::JudgeInputsRecorded { pending, .. } if pending == &vec![item.clone()])
    );
    // Pending: shown apart, not counted.
    assert_eq!(cup.row(3).points.extra, Points::ZERO);
    assert_eq!(cup.row(3).extra_pending, Points::c(160));
    assert_eq!(cup.t.pending_approvals(), vec![(g.clone(), item.clone())]);
    let approve = TournamentCommand::Approve {
        game: g.clone(),
        item: item.clone(),
    };
    for who in [judge(), Actor::Organiser] {
        let e = cup.err(who, approve.clone());
        assert!(
            matches!(
                e,
                TournamentError::NotPermitted {
                    who: "the chief judge",
                    ..
                }
            ),
            "{e}"
        );
    }
    cup.ok(chief(), approve.clone());
    assert_eq!(cup.row(3).points.extra, Points::c(160));
    assert_eq!(cup.row(3).points.total, Points::c(260));
    assert!(matches!(
        cup.err(chief(), approve),
        TournamentError::NothingToApprove { .. }
    ));
    cup.assert_fold_matches();
}

#[test]
fn rfm_6_4_2_the_chief_judges_own_1_6_needs_no_further_approval() {
    let (mut cup, g) = finished(Some(Team::Red));
    cup.inputs(chief(), &g, &[(3, 160)]).unwrap();
    assert_eq!(cup.row(3).points.extra, Points::c(160));
}

#[test]
fn rfm_6_4_4_a_games_extras_over_3_5_need_approval_and_over_4_0_are_refused() {
    let (mut cup, g) = finished(Some(Team::Red));
    // 1.0 + 1.0 + 1.0 + 0.5 = 3.5: within.
    cup.inputs(judge(), &g, &[(1, 100), (2, 100), (3, 100), (4, 50)])
        .unwrap();
    assert!(cup.t.pending_approvals().is_empty());
    // 3.8: waits for the chief judge.
    cup.inputs(judge(), &g, &[(1, 100), (2, 100), (3, 100), (4, 80)])
        .unwrap();
    let item = ApprovalItem::GameSum {
        sum: Points::c(380),
    };
    assert_eq!(cup.t.pending_approvals(), vec![(g.clone(), item.clone())]);
    assert_eq!(cup.row(1).points.extra, Points::ZERO);
    cup.ok(
        chief(),
        TournamentCommand::Approve {
            game: g.clone(),
            item,
        },
    );
    assert_eq!(cup.row(1).points.extra, Points::c(100));
    // 4.2: never, approval or not.
    let e = cup
        .inputs(chief(), &g, &[(1, 100), (2, 100), (3, 100), (4, 120)])
        .unwrap_err();
    assert!(matches!(e, TournamentError::GameSumOverCap { .. }), "{e}");
    assert!(e.to_string().contains("rfm §6.4.4"), "{e}");
}

#[test]
fn rfm_6_4_4_best_move_and_penalties_are_outside_the_games_cap() {
    let (mut cup, g) = cup();
    let mut f = cup.facts(&g, Some(Team::Red));
    shot_night_1(&mut f, 1);
    best_move(&mut f, 1, 2);
    cup.record(&g, f);
    // 0.6 + 1.0 + 1.0 + 0.9 = 3.5 with the 0.55 best move beside it.
    cup.inputs(judge(), &g, &[(1, 60), (2, 100), (3, 100), (4, 90)])
        .unwrap();
    assert!(cup.t.pending_approvals().is_empty());
}

#[test]
fn rfm_6_4_6_seven_rewarded_need_approval_and_nine_are_refused() {
    let (mut cup, g) = finished(Some(Team::Red));
    let six: Vec<(u8, i64)> = (1..=6).map(|s| (s, 30)).collect();
    cup.inputs(judge(), &g, &six).unwrap();
    assert!(cup.t.pending_approvals().is_empty());
    let seven: Vec<(u8, i64)> = (1..=7).map(|s| (s, 30)).collect();
    cup.inputs(judge(), &g, &seven).unwrap();
    assert_eq!(
        cup.t.pending_approvals(),
        vec![(g.clone(), ApprovalItem::Rewarded { count: 7 })]
    );
    let nine: Vec<(u8, i64)> = (1..=9).map(|s| (s, 30)).collect();
    let e = cup.inputs(chief(), &g, &nine).unwrap_err();
    assert!(
        matches!(
            e,
            TournamentError::TooManyRewarded {
                count: 9,
                cap: 8,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("rfm §6.4.6"));
}

#[test]
fn rfm_6_4_6_each_approval_is_given_for_its_own_item() {
    let (mut cup, g) = finished(Some(Team::Red));
    let mut ex: Vec<(u8, i64)> = (1..=6).map(|s| (s, 30)).collect();
    ex.push((7, 20));
    ex[0] = (1, 160);
    cup.inputs(judge(), &g, &ex).unwrap();
    assert_eq!(cup.t.pending_approvals().len(), 2);
    cup.ok(
        chief(),
        TournamentCommand::Approve {
            game: g.clone(),
            item: ApprovalItem::Rewarded { count: 7 },
        },
    );
    assert_eq!(cup.row(1).points.extra, Points::ZERO, "the 1.6 still waits");
    cup.ok(
        chief(),
        TournamentCommand::Approve {
            game: g.clone(),
            item: ApprovalItem::ExtraValue {
                seat: seat(1),
                points: Points::c(160),
            },
        },
    );
    assert_eq!(cup.row(1).points.extra, Points::c(160));
}

#[test]
fn rfm_6_4_8_best_move_and_extra_together_are_at_most_1_2() {
    let (mut cup, g) = cup();
    let mut f = cup.facts(&g, Some(Team::Red));
    shot_night_1(&mut f, 1);
    best_move(&mut f, 1, 3);
    cup.record(&g, f);
    // 0.8 + 0.5 = 1.3 > 1.2.
    let e = cup.inputs(judge(), &g, &[(1, 50)]).unwrap_err();
    assert!(matches!(e, TournamentError::OverPlayerCap { .. }), "{e}");
    assert!(e.to_string().contains("rfm §6.4.8"));
    cup.inputs(judge(), &g, &[(1, 40)]).unwrap();
    assert_eq!(
        cup.row(1).points.extra + cup.row(1).points.best_move,
        Points::c(120)
    );
}

#[test]
fn rfm_6_6_2_to_6_6_5_best_move_points_by_role_and_hits() {
    for (s, hits, points) in [
        (1u8, 3u8, 80),
        (1, 2, 55),
        (3, 3, 70),
        (3, 2, 45),
        (1, 1, 0),
    ] {
        let (mut cup, g) = cup();
        let mut f = cup.facts(&g, Some(Team::Black));
        shot_night_1(&mut f, s);
        best_move(&mut f, s, hits);
        cup.record(&g, f);
        let r = cup.row(s as usize);
        assert_eq!(
            r.points.best_move,
            Points::c(points),
            "seat {s}, {hits} hits"
        );
        assert_eq!(r.first_night_deaths, 1);
    }
}

#[test]
fn rfm_6_6_6_a_best_move_the_judge_denies_gives_nothing() {
    let (mut cup, g) = cup();
    let mut f = cup.facts(&g, Some(Team::Black));
    shot_night_1(&mut f, 1);
    best_move(&mut f, 1, 3);
    cup.record(&g, f);
    assert_eq!(cup.row(1).points.best_move, Points::c(80));
    cup.ok(
        judge(),
        TournamentCommand::SubmitJudgeInputs {
            game: g.clone(),
            inputs: JudgeInputs {
                best_move: BestMoveVerdict::Denied,
                ..JudgeInputs::default()
            },
        },
    );
    assert_eq!(cup.row(1).points.best_move, Points::ZERO);
    assert_eq!(cup.row(1).best_move_triples, 0);
}

#[test]
fn rfm_6_4_9_a_finals_points_are_multiplied_by_1_3() {
    let k = Coefficient::thousandths(1300);
    let mut cup = Cup::with_stages(Scheme::rfm(), 10, &[("final", 10, k)]);
    let g = cup.seat_round("final", 1, &[ten(1)]).remove(0);
    let mut f = cup.facts(&g, Some(Team::Red));
    shot_night_1(&mut f, 1);
    best_move(&mut f, 1, 2);
    f.seats[4].small_penalties = 1;
    cup.record(&g, f);
    cup.inputs(judge(), &g, &[(2, 100)]).unwrap();
    assert_eq!(cup.row(2).points.total, Points::c(260), "(1 + 1) × 1.3");
    assert_eq!(
        cup.row(1).points.best_move,
        Points::units(7150),
        "0.55 × 1.3"
    );
    assert_eq!(cup.row(5).points.penalties, Points::c(-26), "-0.2 × 1.3");
}

#[test]
fn rfm_4_7_1_a_draw_gives_no_points_and_no_extras_but_keeps_penalties_and_best_move() {
    let (mut cup, g) = cup();
    let mut f = cup.facts(&g, None);
    shot_night_1(&mut f, 1);
    best_move(&mut f, 1, 2);
    f.seats[5].big_penalties = 1;
    cup.record(&g, f);
    let e = cup.inputs(judge(), &g, &[(2, 30)]).unwrap_err();
    assert!(
        matches!(
            e,
            TournamentError::ExtraNotAllowed {
                side: "a player in a draw",
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("rfm §4.7.1"), "{e}");
    assert_eq!(cup.row(2).points.total, Points::ZERO);
    assert_eq!(cup.row(1).points.best_move, Points::c(55));
    assert_eq!(cup.row(6).points.penalties, Points::c(-50));
    assert!(
        cup.row(1).points.compensation.is_positive(),
        "Ci stays in a draw"
    );
}

#[test]
fn rfm_5_10_5_11_6_5_3_record_penalties_small_big_removal_and_yellow_card() {
    let (mut cup, g) = cup();
    let mut f = cup.facts(&g, Some(Team::Red));
    f.seats[0].small_penalties = 2;
    f.seats[1].big_penalties = 1;
    f.seats[2].yellow_cards = 1;
    removed(&mut f, 4, 1);
    f.seats[4].fouls = 4;
    f.seats[4].out = Some(DepartureFact {
        when: When::Day(2),
        cause: Cause::Fouls,
    });
    cup.record(&g, f);
    assert_eq!(cup.row(1).points.penalties, Points::c(-40));
    assert_eq!(cup.row(2).points.penalties, Points::c(-50));
    assert_eq!(cup.row(3).points.penalties, Points::c(-120));
    assert_eq!(
        cup.row(4).points.penalties,
        Points::c(-120),
        "§5.12 disqualified"
    );
    assert_eq!(
        cup.row(5).points.penalties,
        Points::c(-120),
        "§5.12.3 the 4th foul"
    );
    assert_eq!(cup.row(4).points.total, Points::c(-20), "the win stays");
}

#[test]
fn rfm_5_13_6_5_4_the_opposite_team_victory_costs_1_6_and_the_game() {
    let (mut cup, g) = cup();
    let mut f = cup.facts(&g, Some(Team::Black));
    f.reason = "opposite_team_victory".into();
    f.opposite_team_victory = Some(seat(2));
    cup.record(&g, f);
    assert_eq!(cup.row(2).points.total, Points::c(-160));
    assert_eq!(cup.row(5).points.total, Points::c(100));
}

#[test]
fn rfm_5_22_everyone_leaving_at_once_is_a_draw_and_costs_them_1_2() {
    let (mut cup, g) = cup();
    let mut f = cup.facts(&g, None);
    f.reason = "all_out".into();
    shot_night_1(&mut f, 1);
    for s in 2..=10 {
        f.seats[s - 1].out = Some(DepartureFact {
            when: When::Day(2),
            cause: Cause::Lift,
        });
    }
    cup.record(&g, f);
    assert_eq!(cup.row(2).points.penalties, Points::c(-120));
    assert_eq!(cup.row(1).points.penalties, Points::ZERO, "left before");
}

#[test]
fn rfm_6_5_9_a_deciding_destructive_act_is_penalised_only_in_a_loss_or_draw() {
    let (mut cup, g) = finished(Some(Team::Red));
    let pen = |s: u8, code: &str| JudgeInputs {
        penalties: vec![JudgePenalty {
            seat: seat(s),
            code: code.into(),
        }],
        ..JudgeInputs::default()
    };
    let e = cup.err(
        judge(),
        TournamentCommand::SubmitJudgeInputs {
            game: g.clone(),
            inputs: pen(1, "6.5.9"),
        },
    );
    assert!(
        matches!(
            e,
            TournamentError::PenaltyNotForOutcome { outcome: "win", .. }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("rfm §6.5.9"));
    cup.ok(
        judge(),
        TournamentCommand::SubmitJudgeInputs {
            game: g.clone(),
            inputs: pen(5, "6.5.9"),
        },
    );
    assert_eq!(cup.row(5).points.penalties, Points::c(-120));
    let e = cup.err(
        judge(),
        TournamentCommand::SubmitJudgeInputs {
            game: g.clone(),
            inputs: pen(5, "9.9.9"),
        },
    );
    assert!(matches!(e, TournamentError::UnknownPenalty { .. }), "{e}");
}

#[test]
fn rfm_6_5_11_1_a_wrong_testament_is_penalised_whatever_the_result() {
    let (mut cup, g) = finished(Some(Team::Red));
    cup.ok(
        judge(),
        TournamentCommand::SubmitJudgeInputs {
            game: g.clone(),
            inputs: JudgeInputs {
                penalties: vec![JudgePenalty {
                    seat: seat(1),
                    code: "6.5.11.1".into(),
                }],
                ..JudgeInputs::default()
            },
        },
    );
    assert_eq!(cup.row(1).points.total, Points::c(60));
}

/// Plays `games` games at one table of ten, seat 1 (p01) shot on night 1
/// in the games listed, red winning the games in `red_wins`.
fn ci_cup(games: u32, shot_in: &[u32], red_wins: &[u32]) -> Cup {
    let mut cup = Cup::new(Scheme::rfm(), 10, games);
    for r in 1..=games {
        let g = cup.seat_round("main", r, &[ten(1)]).remove(0);
        let winner = if red_wins.contains(&r) {
            Team::Red
        } else {
            Team::Black
        };
        let mut f = cup.facts(&g, Some(winner));
        if shot_in.contains(&r) {
            shot_night_1(&mut f, 1);
        }
        cup.record(&g, f);
    }
    cup
}

#[test]
fn rfm_6_8_ci_is_i_times_0_5_over_b_in_a_lost_game_and_half_that_in_a_won_one() {
    // 10 games: B = 40 % of 10 = 4; shot twice on night 1: i = 2, Ci = 0.25.
    let cup = ci_cup(10, &[1, 2], &[2]);
    let h = history(&cup.t, &pid(1));
    assert_eq!(h[0].points.compensation, Points::c(25), "Cil, red lost");
    assert_eq!(
        h[1].points.compensation,
        Points::units(1250),
        "Ciw = Cil × 0.5"
    );
    assert_eq!(h[2].points.compensation, Points::ZERO, "not shot");
    assert_eq!(cup.row(1).points.compensation, Points::units(3750));
    assert_eq!(cup.row(1).points.total, Points::units(13750), "a win + Ci");
}

#[test]
fn rfm_6_8_cil_is_at_most_0_5_and_ciw_at_most_0_4_per_shot() {
    // 5 games: B = round(2.0) = 2; i = 3: Ci = 0.75 → Cil 0.5, Ciw 0.375.
    let cup = ci_cup(5, &[1, 2, 3], &[3]);
    let h = history(&cup.t, &pid(1));
    assert_eq!(h[0].points.compensation, Points::c(50));
    assert_eq!(h[2].points.compensation, Points::units(3750));
    // 4 games: B = round(1.6) = 2; i = 4: Ci = 1.0 → Ciw capped at 0.4.
    let cup = ci_cup(4, &[1, 2, 3, 4], &[1]);
    let h = history(&cup.t, &pid(1));
    assert_eq!(h[0].points.compensation, Points::c(40));
    assert_eq!(h[1].points.compensation, Points::c(50));
}

#[test]
fn rfm_6_8_ci_is_only_for_a_red_player_or_the_sheriff() {
    let mut cup = Cup::new(Scheme::rfm(), 10, 5);
    let g = cup.seat_round("main", 1, &[ten(1)]).remove(0);
    let mut f = cup.facts(&g, Some(Team::Red));
    shot_night_1(&mut f, 5);
    cup.record(&g, f);
    assert_eq!(cup.row(5).points.compensation, Points::ZERO);
    assert_eq!(cup.row(5).first_night_deaths, 1, "§6.7.1.4 counts any role");
}

#[test]
fn rfm_6_8_the_distance_is_the_stage() {
    let mut cup = Cup::with_stages(
        Scheme::rfm(),
        10,
        &[
            ("main", 5, Coefficient::ONE),
            ("final", 5, Coefficient::thousandths(1300)),
        ],
    );
    for r in 1..=5 {
        let g = cup.seat_round("main", r, &[ten(1)]).remove(0);
        let f = cup.facts(&g, Some(Team::Black));
        cup.record(&g, f);
    }
    let g = cup.seat_round("final", 1, &[ten(1)]).remove(0);
    let mut f = cup.facts(&g, Some(Team::Black));
    shot_night_1(&mut f, 1);
    cup.record(&g, f);
    // In the final: 1 game, B = round(0.4) = 0, so the cap: 0.5 (not scaled: §6.4.9 does not list Ci).
    assert_eq!(cup.row(1).points.compensation, Points::c(50));
}

/// The judge's post-game penalties of rfm §6.5.8–§6.5.13 as one seat's
/// input: the error when refused, else the seat's penalties.
fn penalise(winner: Option<Team>, s: u8, codes: &[&str]) -> Result<Points, TournamentError> {
    let (mut cup, g) = finished(winner);
    let inputs = JudgeInputs {
        penalties: codes
            .iter()
            .map(|code| JudgePenalty {
                seat: seat(s),
                code: (*code).into(),
            })
            .collect(),
        ..JudgeInputs::default()
    };
    let cmd = TournamentCommand::SubmitJudgeInputs { game: g, inputs };
    let before = cup.t.clone();
    match cup.run(judge(), cmd) {
        Ok(_) => Ok(cup.row(s as usize).points.penalties),
        Err(e) => {
            assert_eq!(cup.t, before, "a refused input changed the state");
            Err(e)
        }
    }
}

fn refused_for(r: Result<Points, TournamentError>, outcome: &str, clause: &str) {
    match r {
        Err(e @ TournamentError::PenaltyNotForOutcome { .. }) => {
            assert!(e.to_string().contains(outcome), "{e}");
            assert!(e.to_string().contains(clause), "{e}");
        }
        other => panic!("expected a refusal in a {outcome}, got {other:?}"),
    }
}

// Seat 5 is black: red winning is his loss; seat 1 is red.
const LOSER: u8 = 5;
const WINNER: u8 = 1;

#[test]
fn rfm_6_5_8_a_destructive_act_in_a_loss_costs_0_2_0_4_or_0_7() {
    for (code, c) in [("6.5.8-0.2", -20), ("6.5.8-0.4", -40), ("6.5.8-0.7", -70)] {
        assert_eq!(
            penalise(Some(Team::Red), LOSER, &[code]).unwrap(),
            Points::c(c)
        );
        refused_for(
            penalise(Some(Team::Red), WINNER, &[code]),
            "win",
            "rfm §6.5.8",
        );
        // "сыгравшие роль в поражении команды": a draw is not a loss.
        refused_for(penalise(None, LOSER, &[code]), "draw", "rfm §6.5.8");
    }
    let e = penalise(Some(Team::Red), LOSER, &["6.5.8-0.5"]).unwrap_err();
    assert!(matches!(e, TournamentError::UnknownPenalty { .. }), "{e}");
}

#[test]
fn rfm_6_5_10_a_significant_destructive_act_costs_0_7_in_a_loss_or_a_draw() {
    assert_eq!(
        penalise(Some(Team::Red), LOSER, &["6.5.10"]).unwrap(),
        Points::c(-70)
    );
    assert_eq!(penalise(None, WINNER, &["6.5.10"]).unwrap(), Points::c(-70));
    refused_for(
        penalise(Some(Team::Red), WINNER, &["6.5.10"]),
        "win",
        "rfm §6.5.10",
    );
}

#[test]
fn rfm_6_5_11_the_listed_acts_cost_0_4_only_in_a_loss() {
    assert_eq!(
        penalise(Some(Team::Black), WINNER, &["6.5.11"]).unwrap(),
        Points::c(-40)
    );
    refused_for(penalise(None, WINNER, &["6.5.11"]), "draw", "rfm §6.5.11");
    refused_for(
        penalise(Some(Team::Red), WINNER, &["6.5.11"]),
        "win",
        "rfm §6.5.11",
    );
}

#[test]
fn rfm_6_5_11_1_to_3_are_for_a_player_of_the_red_team_only() {
    for code in ["6.5.11", "6.5.11.1"] {
        let e = penalise(Some(Team::Red), LOSER, &[code]).unwrap_err();
        assert!(
            matches!(e, TournamentError::PenaltyNotForTeam { .. }),
            "{code}: {e}"
        );
        assert!(e.to_string().contains("rfm §6.5.11"), "{e}");
    }
}

#[test]
fn rfm_6_5_2_penalties_for_different_acts_add_up() {
    assert_eq!(
        penalise(Some(Team::Red), LOSER, &["6.5.9", "6.5.10", "6.5.8-0.2"]).unwrap(),
        Points::c(-120 - 70 - 20)
    );
}

/// A penalty code given to a winner, a loser and a player in a draw.
fn costs_whatever_the_result(code: &str, points: Points) {
    for (winner, s) in [
        (Some(Team::Red), WINNER),
        (Some(Team::Red), LOSER),
        (None, 1),
    ] {
        assert_eq!(
            penalise(winner, s, &[code]).unwrap(),
            points,
            "{code}: {winner:?} seat {s}"
        );
    }
}

#[test]
fn rfm_6_5_12_missing_a_round_costs_1_2_whatever_the_result() {
    costs_whatever_the_result("6.5.12", Points::c(-120));
}

#[test]
fn rfm_6_5_13_each_started_eleven_minutes_late_costs_0_6() {
    assert_eq!(
        penalise(Some(Team::Red), WINNER, &["6.5.13"]).unwrap(),
        Points::c(-60)
    );
    // 22 minutes late: two eleven-minute spans, each −0.6.
    assert_eq!(
        penalise(None, LOSER, &["6.5.13", "6.5.13"]).unwrap(),
        Points::c(-120)
    );
}

#[test]
fn rfm_6_8_ciw_is_rounded_once_from_i_times_0_5_over_b_times_0_5() {
    // 7 games: B = round(2.8) = 3; i = 1: Ciw = 0.5 / 3 × 0.5 = 0.08333…,
    // 0.0833 to the unit, not Cil's rounded 0.1667 halved again (0.0834).
    let cup = ci_cup(7, &[1], &[1]);
    let h = history(&cup.t, &pid(1));
    assert_eq!(h[0].points.compensation, Points::units(833));
    assert_eq!(cup.row(1).points.compensation, Points::units(833));
}

#[test]
fn rfm_6_8_with_b_0_ciw_is_its_cap_of_0_4() {
    // 1 game: B = round(0.4) = 0, so i·0.5/B·0.5 is unbounded and the cap
    // of 0.4 per shot is what it gives, as Cil gives its cap of 0.5.
    let cup = ci_cup(1, &[1], &[1]);
    assert_eq!(cup.row(1).points.compensation, Points::c(40));
    let cup = ci_cup(1, &[1], &[]);
    assert_eq!(cup.row(1).points.compensation, Points::c(50));
}

#[test]
fn rfm_5_16_an_opposite_team_victory_found_after_the_game_costs_1_6() {
    // §5.16: a §5.13 violation known only after the game is penalised in
    // the standings and the game stands; §5.13 puts it at −1.6.
    costs_whatever_the_result("5.13", Points::c(-160));
}

/// The engine's record of a game whose winner is decided and whose final
/// last words are running: seat 6 (at the table) and then seat 4, the shot
/// player speaking, are disqualified (rules crate, scenario
/// `classic_6_9_rfm_5_15_ua_1_9_discipline_in_the_final_last_words_keeps_the_result`).
fn disqualified_after_the_result(record: &str, scheme: Scheme) -> Cup {
    let rec = mafia_record::Record::parse(record).unwrap();
    let r = rec.replay();
    assert!(r.violation.is_none(), "{:?}", r.violation);
    let mut f = GameFacts::from_game(&r.game, &r.events).unwrap();
    for (i, s) in f.seats.iter_mut().enumerate() {
        s.player = pid(i + 1);
    }
    let mut cup = Cup::new(scheme, 10, 3);
    let g = cup.seat_round("main", 1, &[ten(1)]).remove(0);
    cup.record(&g, f);
    cup
}

#[test]
fn rfm_5_12_5_15_a_player_disqualified_in_his_own_last_words_gets_the_removal_penalty() {
    let cup = disqualified_after_the_result(
        include_str!("../../../tests/records/scenarios/classic_6_9_rfm_5_15_ua_1_9_discipline_in_the_final_last_words_keeps_the_result.jsonl"),
        Scheme::rfm(),
    );
    assert_eq!(cup.row(6).points.penalties, Points::c(-120), "at the table");
    assert_eq!(
        cup.row(4).points.penalties,
        Points::c(-120),
        "in his last words: his departure stays a shot, the disqualification costs −1.2"
    );
}

#[test]
fn minsk2017_8_2_5_a_player_disqualified_in_his_own_last_words_loses_1_point() {
    let cup = disqualified_after_the_result(
        include_str!("../../../tests/records/scenarios/classic_6_9_rfm_5_15_ua_1_9_discipline_in_the_final_last_words_keeps_the_result-2.jsonl"),
        Scheme::minsk2017(),
    );
    assert_eq!(cup.row(6).points.penalties, Points::c(-100));
    assert_eq!(cup.row(4).points.penalties, Points::c(-100));
}

#[test]
fn rfm_5_12_3_a_fourth_foul_in_his_own_last_words_gets_the_removal_penalty() {
    // The classic game of the same scenario (classic punishes fouls after
    // the result), its speaker fouled out of his words instead.
    let text = include_str!("../../../tests/records/scenarios/classic_6_9_rfm_5_15_ua_1_9_discipline_in_the_final_last_words_keeps_the_result-1.jsonl");
    let (head, last) = text.trim_end().rsplit_once('\n').unwrap();
    assert!(last.contains(r#""disqualify","seat":4"#), "{last}");
    let fouls: String = (0..4)
        .map(|i| {
            format!(
                "\n{{\"at\":{},\"cmd\":{{\"type\":\"foul\",\"seat\":4}}}}",
                61_000 + i * 1000
            )
        })
        .collect();
    let cup = disqualified_after_the_result(&format!("{head}{fouls}\n"), Scheme::rfm());
    assert_eq!(cup.row(4).points.penalties, Points::c(-120));
}
