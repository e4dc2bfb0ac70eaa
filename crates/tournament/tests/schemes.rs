//! minsk2017 §8, the default scheme of classic/ua/club, and custom schemes.

mod common;

use common::*;
use mafia_rules::{Cause, Team, When};
use mafia_tournament::facts::DepartureFact;
use mafia_tournament::scheme::{Allowed, ByRole};
use mafia_tournament::*;

fn finished(
    scheme: Scheme,
    winner: Option<Team>,
    edit: impl FnOnce(&mut GameFacts),
) -> (Cup, mafia_record::GameId) {
    let mut cup = Cup::new(scheme, 10, 5);
    let g = cup.seat_round("main", 1, &[ten(1)]).remove(0);
    let mut f = cup.facts(&g, winner);
    edit(&mut f);
    cup.record(&g, f);
    (cup, g)
}

#[test]
fn minsk2017_8_2_a_win_is_2_points_a_loss_or_draw_none() {
    let (cup, _) = finished(Scheme::minsk2017(), Some(Team::Black), |_| {});
    assert_eq!(cup.row(7).points.total, Points::c(200));
    assert_eq!(cup.row(1).points.total, Points::ZERO);
    let (cup, _) = finished(Scheme::minsk2017(), None, |_| {});
    assert_eq!(cup.row(7).points.total, Points::ZERO);
}

#[test]
fn minsk2017_8_2_5_a_removal_costs_1_point() {
    let (cup, _) = finished(Scheme::minsk2017(), Some(Team::Red), |f| removed(f, 2, 1));
    assert_eq!(cup.row(2).points.penalties, Points::c(-100));
    assert_eq!(cup.row(2).points.total, Points::c(100));
}

#[test]
fn minsk2017_8_2_5_a_fourth_foul_is_no_disqualification_and_costs_no_point() {
    // §6.5 and §7.1–§7.4 say "the 4th or a disqualifying foul": the 4th
    // foul makes him leave, but only §6.7's list disqualifies, and §8.2.5
    // costs −1 "при дисквалификации с игрового стола".
    let seat_2_fouled_out = |f: &mut GameFacts| {
        f.seats[1].fouls = 4;
        f.seats[1].fouled_out = true;
        f.seats[1].out = Some(DepartureFact {
            when: When::Day(2),
            cause: Cause::Fouls,
        });
    };
    let (cup, _) = finished(Scheme::minsk2017(), Some(Team::Red), seat_2_fouled_out);
    assert_eq!(cup.row(2).points.penalties, Points::ZERO);
    assert_eq!(cup.row(2).points.total, Points::c(200));
    // rfm §5.12.3: there the 4th foul is a disqualifying one.
    let (cup, _) = finished(Scheme::rfm(), Some(Team::Red), seat_2_fouled_out);
    assert_eq!(cup.row(2).points.penalties, Points::c(-120));
}

#[test]
fn minsk2017_8_3_1_best_move_is_0_5_for_three_and_0_25_for_two() {
    for (hits, pts) in [(3, 50), (2, 25), (1, 0)] {
        let (cup, _) = finished(Scheme::minsk2017(), Some(Team::Black), |f| {
            shot_night_1(f, 3);
            best_move(f, 3, hits);
        });
        assert_eq!(cup.row(3).points.best_move, Points::c(pts));
        assert_eq!(
            cup.row(3).points.compensation,
            Points::ZERO,
            "no Ci outside rfm"
        );
    }
}

#[test]
fn minsk2017_8_4_1_at_most_three_players_rewarded() {
    let (mut cup, g) = finished(Scheme::minsk2017(), Some(Team::Red), |_| {});
    cup.inputs(judge(), &g, &[(1, 100), (2, 50), (5, 50)])
        .unwrap();
    let e = cup
        .inputs(chief(), &g, &[(1, 10), (2, 10), (3, 10), (4, 10)])
        .unwrap_err();
    assert!(
        matches!(
            e,
            TournamentError::TooManyRewarded {
                count: 4,
                cap: 3,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("minsk2017 §8.4.1"));
}

#[test]
fn minsk2017_8_4_2_a_winner_gets_at_most_1_and_a_loser_0_5() {
    let (mut cup, g) = finished(Scheme::minsk2017(), Some(Team::Red), |_| {});
    let e = cup.inputs(judge(), &g, &[(1, 110)]).unwrap_err();
    assert!(e.to_string().contains("minsk2017 §8.4.2"), "{e}");
    let e = cup.inputs(judge(), &g, &[(5, 60)]).unwrap_err();
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
    cup.inputs(judge(), &g, &[(1, 75), (5, 45)]).unwrap();
    assert_eq!(cup.row(1).points.total, Points::c(275));
}

#[test]
fn minsk2017_8_4_4_no_extras_in_a_draw() {
    let (mut cup, g) = finished(Scheme::minsk2017(), None, |_| {});
    let e = cup.inputs(judge(), &g, &[(1, 50)]).unwrap_err();
    assert!(e.to_string().contains("minsk2017 §8.4.4"), "{e}");
}

#[test]
fn classic_ua_and_club_use_the_documented_default() {
    for id in ["classic", "ua", "club"] {
        let s = Scheme::preset(id).unwrap();
        assert!(s.source.starts_with("default"), "{id}");
        assert!(s.compensation.is_none());
        let (mut cup, g) = finished(s, Some(Team::Red), |_| {});
        assert_eq!(cup.row(1).points.total, Points::c(100));
        // No approvals in the default: +1.6 is simply not on the list.
        let e = cup.inputs(judge(), &g, &[(1, 160)]).unwrap_err();
        assert!(
            e.to_string().contains(&format!("{id} default scheme")),
            "{e}"
        );
        cup.inputs(judge(), &g, &[(1, 120)]).unwrap();
        assert!(cup.t.pending_approvals().is_empty());
    }
}

#[test]
fn a_custom_scheme_from_json_scores_by_outcome_and_role() {
    let mut s = Scheme::rfm();
    s.id = SchemeId("league".into());
    s.version = 3;
    s.base.win = ByRole {
        civilian: Points::c(100),
        sheriff: Points::c(130),
        beauty: Points::c(100),
        mafia: Points::c(120),
        don: Points::c(150),
    };
    s.base.loss.sheriff = Points::c(10);
    s.best_move.civilian[3] = Points::c(100);
    s.extras.winner = Allowed::UpTo {
        max: Points::c(70),
        step: Points::c(10),
    };
    s.extras.rewarded = None;
    s.extras.with_best_move = None;
    s.compensation = None;
    let json = serde_json::to_string_pretty(&s).unwrap();
    let loaded = Scheme::from_json(&json).unwrap();
    assert_eq!(loaded, s);
    let (mut cup, g) = finished(loaded, Some(Team::Black), |f| {
        shot_night_1(f, 1);
        best_move(f, 1, 3);
    });
    assert_eq!(cup.row(7).points.total, Points::c(150));
    assert_eq!(cup.row(5).points.total, Points::c(120));
    assert_eq!(cup.row(3).points.total, Points::c(10));
    assert_eq!(cup.row(1).points.total, Points::c(100));
    cup.inputs(judge(), &g, &[(7, 70)]).unwrap();
    assert!(cup.inputs(judge(), &g, &[(7, 80)]).is_err());
    let st = standings(&cup.t);
    assert_eq!((st.scheme.0.as_str(), st.scheme_version), ("league", 3));
}

#[test]
fn a_malformed_or_inconsistent_custom_scheme_is_refused() {
    assert!(matches!(Scheme::from_json("{"), Err(SchemeError::Json(_))));
    let mut s = Scheme::rfm();
    s.version = 0;
    let json = serde_json::to_string(&s).unwrap();
    assert!(matches!(
        Scheme::from_json(&json),
        Err(SchemeError::Invalid(_))
    ));
    let mut s = Scheme::rfm();
    s.judge_penalties[0].points = Points::c(10);
    let json = serde_json::to_string(&s).unwrap();
    assert!(matches!(
        Scheme::from_json(&json),
        Err(SchemeError::Invalid(_))
    ));
}

#[test]
fn club_a_player_who_shows_his_card_loses_the_game_for_his_team_and_2_points() {
    let s = Scheme::preset("club").unwrap();
    let (cup, _) = finished(s, Some(Team::Black), |f| {
        f.reason = "opposite_team_victory".into();
        f.opposite_team_victory = Some(mafia_rules::Seat::new(2).unwrap());
    });
    assert_eq!(cup.row(2).points.total, Points::c(-200));
    assert_eq!(cup.row(5).points.total, Points::c(100));
}
