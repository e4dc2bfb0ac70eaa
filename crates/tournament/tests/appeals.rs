//! Appeals: rfm §7, minsk2017 §8.6.

mod common;

use common::*;
use mafia_rules::Team;
use mafia_tournament::*;

fn played(scheme: Scheme) -> (Cup, mafia_record::GameId) {
    let mut cup = Cup::new(scheme, 10, 5);
    let g = cup.seat_round("main", 1, &[ten(1)]).remove(0);
    let mut f = cup.facts(&g, Some(Team::Black));
    removed(&mut f, 2, 1);
    cup.record(&g, f);
    (cup, g)
}

fn file(cup: &mut Cup, g: &mafia_record::GameId) -> Result<Vec<TournamentEvent>, TournamentError> {
    cup.run(
        judge(),
        TournamentCommand::FileAppeal {
            game: g.clone(),
            player: Some(pid(2)),
            event_seq: Some(41),
            text: "the 4th foul was never given".into(),
        },
    )
}

fn decide(decision: AppealDecision) -> TournamentCommand {
    TournamentCommand::DecideAppeal {
        appeal: 1,
        decision,
        reason: "video of the table".into(),
    }
}

#[test]
fn rfm_7_3_6_an_appeal_is_filed_within_10_minutes_of_the_games_end() {
    let (mut cup, g) = played(Scheme::rfm());
    let ended = cup.t.games[&g].result.as_ref().unwrap().ended_at;
    cup.now = ended + 10 * MIN - 1000 - 1;
    file(&mut cup, &g).unwrap();
    cup.now = ended + 10 * MIN;
    let e = file(&mut cup, &g).unwrap_err();
    assert!(
        matches!(
            e,
            TournamentError::AppealTooLate {
                late_by_s: 1,
                minutes: 10,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("rfm §7.3.6"), "{e}");
}

#[test]
fn minsk2017_8_6_1_a_protest_after_10_minutes_is_refused() {
    let (mut cup, g) = played(Scheme::minsk2017());
    cup.now += 11 * MIN;
    let e = file(&mut cup, &g).unwrap_err();
    assert!(e.to_string().contains("minsk2017 §8.6.1"), "{e}");
}

#[test]
fn an_appeal_against_a_game_not_finished_is_refused() {
    let mut cup = Cup::new(Scheme::rfm(), 10, 5);
    let g = cup.seat_round("main", 1, &[ten(1)]).remove(0);
    assert!(matches!(
        file(&mut cup, &g),
        Err(TournamentError::GameNotFinished(_))
    ));
}

#[test]
fn rfm_7_3_3_only_the_chief_judge_decides_an_appeal_and_only_once() {
    let (mut cup, g) = played(Scheme::rfm());
    file(&mut cup, &g).unwrap();
    for who in [judge(), Actor::Organiser] {
        let e = cup.err(who, decide(AppealDecision::Rejected));
        assert!(matches!(e, TournamentError::NotPermitted { .. }), "{e}");
    }
    let e = cup.err(
        chief(),
        TournamentCommand::DecideAppeal {
            appeal: 1,
            decision: AppealDecision::Rejected,
            reason: " ".into(),
        },
    );
    assert_eq!(e, TournamentError::EmptyReason);
    cup.ok(chief(), decide(AppealDecision::Rejected));
    let e = cup.err(chief(), decide(AppealDecision::Replay));
    assert_eq!(e, TournamentError::AppealAlreadyDecided(1));
    assert!(
        cup.err(
            chief(),
            TournamentCommand::DecideAppeal {
                appeal: 9,
                decision: AppealDecision::Rejected,
                reason: "x".into(),
            }
        ) == TournamentError::UnknownAppeal(9)
    );
}

#[test]
fn rfm_7_1_a_changed_result_and_the_standings_follow() {
    let (mut cup, g) = played(Scheme::rfm());
    cup.inputs(judge(), &g, &[(5, 50), (1, 30)]).unwrap();
    assert_eq!(cup.row(5).points.total, Points::c(150));
    assert_eq!(cup.row(1).rank, 4, "behind the three winning blacks");
    file(&mut cup, &g).unwrap();
    cup.ok(
        chief(),
        decide(AppealDecision::ResultChanged {
            winner: Some(Team::Red),
        }),
    );
    assert_eq!(cup.row(5).points.base, Points::ZERO);
    assert_eq!(cup.row(5).wins, 0);
    // The extras were given for the black win: the new result voids them
    // (rfm §6.4.2-§6.4.3: what a winner and a loser may get differ) until
    // the judge gives them for the red win.
    assert_eq!(
        cup.row(5).points.extra,
        Points::ZERO,
        "the black's +0.5 is void"
    );
    assert_eq!(cup.row(1).points.total, Points::c(100));
    assert!(cup.t.games[&g].inputs.is_none());
    cup.inputs(judge(), &g, &[(1, 30)]).unwrap();
    let s = standings(&cup.t);
    assert_eq!(cup.row(1).points.total, Points::c(130));
    assert_eq!(s.rows[0].player, pid(1), "the red with +0.3 now leads");
    // The audit trail: who filed, who decided, when and why.
    let a = &cup.t.appeals[&1];
    assert_eq!(a.filed_by, judge());
    assert_eq!(a.event_seq, Some(41));
    let d = a.decided.as_ref().unwrap();
    assert_eq!(d.by, chief());
    assert_eq!(d.reason, "video of the table");
    assert!(d.at > a.filed_at);
    cup.assert_fold_matches();
}

#[test]
fn a_result_decided_again_as_it_stood_keeps_the_judges_inputs() {
    let (mut cup, g) = played(Scheme::rfm());
    cup.inputs(judge(), &g, &[(5, 50)]).unwrap();
    file(&mut cup, &g).unwrap();
    cup.ok(
        chief(),
        decide(AppealDecision::ResultChanged {
            winner: Some(Team::Black),
        }),
    );
    assert_eq!(cup.row(5).points.extra, Points::c(50));
    cup.assert_fold_matches();
}

#[test]
fn a_game_changed_to_a_draw_keeps_no_extras_given_for_a_win() {
    let (mut cup, g) = played(Scheme::rfm());
    cup.inputs(judge(), &g, &[(5, 50)]).unwrap();
    file(&mut cup, &g).unwrap();
    cup.ok(
        chief(),
        decide(AppealDecision::ResultChanged { winner: None }),
    );
    assert_eq!(cup.row(5).points.extra, Points::ZERO);
    assert_eq!(cup.row(5).wins, 0);
    cup.assert_fold_matches();
}

#[test]
fn rfm_7_1_1_4_a_wrong_removal_has_its_1_2_taken_back() {
    let (mut cup, g) = played(Scheme::rfm());
    assert_eq!(cup.row(2).points.penalties, Points::c(-120));
    file(&mut cup, &g).unwrap();
    cup.ok(
        chief(),
        decide(AppealDecision::PointsCorrected {
            corrections: vec![Correction {
                player: pid(2),
                points: Points::c(120),
                note: "§7.1.1.4".into(),
            }],
        }),
    );
    assert_eq!(cup.row(2).points.penalties, Points::ZERO);
    assert_eq!(
        cup.row(2).points.total,
        Points::ZERO,
        "the loss stands: no replay"
    );
}

#[test]
fn a_correction_for_a_player_not_in_the_game_is_refused() {
    let mut cup = Cup::new(Scheme::rfm(), 20, 5);
    let g = cup.seat_round("main", 1, &[ten(1), ten(11)]).remove(0);
    let f = cup.facts(&g, Some(Team::Red));
    cup.record(&g, f);
    file(&mut cup, &g).unwrap();
    let e = cup.err(
        chief(),
        decide(AppealDecision::PointsCorrected {
            corrections: vec![Correction {
                player: pid(15),
                points: Points::c(50),
                note: String::new(),
            }],
        }),
    );
    assert!(matches!(e, TournamentError::PlayerNotInGame { .. }), "{e}");
}

#[test]
fn rfm_7_2_a_replayed_game_no_longer_counts() {
    let (mut cup, g) = played(Scheme::rfm());
    file(&mut cup, &g).unwrap();
    cup.ok(chief(), decide(AppealDecision::Replay));
    assert_eq!(cup.row(5).games, 0);
    assert_eq!(standings(&cup.t).games, 0);
    let e = cup.inputs(judge(), &g, &[(5, 50)]).unwrap_err();
    assert!(matches!(e, TournamentError::GameAnnulled(_)));
    // The replay is the table's next game.
    let g2 = mafia_record::GameId::new(g.tournament.clone(), g.stage.clone(), 1, 1, 2).unwrap();
    cup.ok(
        Actor::Organiser,
        TournamentCommand::AssignGame {
            game: g2.clone(),
            judge: None,
        },
    );
    let f = cup.facts(&g2, Some(Team::Red));
    cup.record(&g2, f);
    assert_eq!(cup.row(1).games, 1);
    cup.assert_fold_matches();
}

#[test]
fn rfm_7_4_the_chief_judge_reviews_a_result_without_an_appeal_after_the_window() {
    let (mut cup, g) = played(Scheme::rfm());
    cup.now += 60 * MIN;
    let late = TournamentCommand::FileAppeal {
        game: g.clone(),
        player: None,
        event_seq: None,
        text: "§7.4: the Sheriff's check was shown wrong (§7.1.2.1)".into(),
    };
    for who in [judge(), Actor::Organiser] {
        let e = cup.err(who, late.clone());
        assert!(matches!(e, TournamentError::AppealTooLate { .. }), "{e}");
    }
    cup.ok(chief(), late);
    cup.ok(
        chief(),
        decide(AppealDecision::ResultChanged {
            winner: Some(Team::Red),
        }),
    );
    assert_eq!(cup.row(1).points.base, Points::c(100));
    cup.assert_fold_matches();
}

#[test]
fn minsk2017_8_6_1_the_chief_judges_own_protest_keeps_the_10_minutes() {
    let (mut cup, g) = played(Scheme::minsk2017());
    cup.now += 11 * MIN;
    let e = cup.err(
        chief(),
        TournamentCommand::FileAppeal {
            game: g,
            player: None,
            event_seq: None,
            text: "late".into(),
        },
    );
    assert!(e.to_string().contains("minsk2017 §8.6.1"), "{e}");
}
