//! Tie-breaks, level by level: rfm §6.7.1, minsk2017 §8.5. Each case sets
//! two players' sums equal down to the level it checks.

mod common;

use common::*;
use mafia_rules::Team;
use mafia_tournament::ledger::PlayerAcc;
use mafia_tournament::*;
use std::collections::BTreeMap;

fn base() -> PlayerAcc {
    PlayerAcc {
        games: 4,
        wins: 2,
        base: Points::c(200),
        extra: Points::c(60),
        best_move: Points::c(55),
        penalties: Points::c(-20),
        first_night_deaths: 1,
        best_move_doubles: 1,
        extras: BTreeMap::from([(Points::c(30), 2)]),
        ..PlayerAcc::default()
    }
}

/// Ranks of p01 (`a`) and p02 (`b`), with p03..p10 far behind.
fn ranks(scheme: Scheme, a: PlayerAcc, b: PlayerAcc) -> (StandingRow, StandingRow) {
    let mut cup = Cup::new(scheme, 10, 3);
    cup.t.ledger.players.insert(pid(1), a);
    cup.t.ledger.players.insert(pid(2), b);
    (cup.row(1), cup.row(2))
}

fn assert_a_first(scheme: Scheme, a: PlayerAcc, b: PlayerAcc) {
    let (ra, rb) = ranks(scheme.clone(), a.clone(), b.clone());
    assert_eq!(ra.points.total, rb.points.total, "the totals must tie");
    assert_eq!((ra.rank, rb.rank), (1, 2));
    assert_eq!((ra.tie, rb.tie), (Tie::None, Tie::None));
    // And the other way round, whatever the ids say.
    let (rb, ra) = ranks(scheme, b, a);
    assert_eq!((ra.rank, rb.rank), (1, 2));
}

#[test]
fn rfm_6_7_1_the_total_comes_first() {
    let mut a = base();
    a.base += Points::c(100);
    a.wins += 1;
    let (ra, rb) = ranks(Scheme::rfm(), a, base());
    assert_eq!((ra.rank, rb.rank), (1, 2));
}

#[test]
fn rfm_6_7_1_1_then_more_extra_points_with_penalties() {
    let mut a = base();
    a.extra += Points::c(20);
    a.best_move -= Points::c(20);
    assert_a_first(Scheme::rfm(), a, base());
}

#[test]
fn rfm_6_7_1_2_then_fewer_games() {
    let mut a = base();
    a.games = 3;
    assert_a_first(Scheme::rfm(), a, base());
}

#[test]
fn rfm_6_7_1_3_then_more_wins() {
    let mut a = base();
    a.wins = 3;
    assert_a_first(Scheme::rfm(), a, base());
}

#[test]
fn rfm_6_7_1_4_then_more_first_night_deaths() {
    let mut a = base();
    a.first_night_deaths = 2;
    assert_a_first(Scheme::rfm(), a, base());
}

#[test]
fn rfm_6_7_1_5_then_more_best_move_triples_then_doubles() {
    let mut a = base();
    a.best_move_triples = 1;
    a.best_move_doubles = 0;
    assert_a_first(Scheme::rfm(), a, base());
    let mut a = base();
    a.best_move_doubles = 2;
    assert_a_first(Scheme::rfm(), a, base());
}

#[test]
fn rfm_6_7_1_6_then_the_highest_single_game_extra() {
    let mut a = base();
    a.extras = BTreeMap::from([(Points::c(60), 1)]);
    assert_a_first(Scheme::rfm(), a, base());
}

#[test]
fn rfm_6_7_1_7_then_a_lot_drawn_by_the_chief_judge_never_a_random_pick() {
    let mut cup = Cup::new(Scheme::rfm(), 10, 3);
    let g = cup.seat_round("main", 1, &[ten(1)]).remove(0);
    let f = cup.facts(&g, Some(Team::Red));
    cup.record(&g, f);
    // The seven reds with a win each (rfm has no criterion by role), then
    // the three blacks with nothing.
    let s = standings(&cup.t);
    let tied = vec![pid(1), pid(2), pid(3), pid(4), pid(6), pid(8), pid(10)];
    assert_eq!(
        s.awaiting_lot,
        vec![tied.clone(), vec![pid(5), pid(7), pid(9)]]
    );
    for p in &tied {
        let r = cup.row(p.as_str()[1..].parse().unwrap());
        assert_eq!((r.rank, r.tie), (1, Tie::AwaitingLot), "{p}");
    }
    let lot = |players: Vec<PlayerId>| TournamentCommand::DrawLot { players };
    assert!(matches!(
        cup.err(judge(), lot(vec![pid(2), pid(1)])),
        TournamentError::NotPermitted { .. }
    ));
    assert!(matches!(
        cup.err(chief(), lot(vec![pid(1), pid(5)])),
        TournamentError::LotPlayersNotTied { .. }
    ));
    assert_eq!(
        cup.err(chief(), lot(vec![pid(1), pid(1)])),
        TournamentError::LotNeedsTwo
    );
    let mut order = tied.clone();
    order.reverse();
    cup.ok(chief(), lot(order.clone()));
    let s = standings(&cup.t);
    let top: Vec<_> = s.rows.iter().take(7).map(|r| r.player.clone()).collect();
    assert_eq!(top, order);
    assert!(s.rows.iter().take(7).all(|r| r.tie == Tie::ByLot));
    assert_eq!(s.rows[0].rank, 1);
    assert_eq!(s.rows[6].rank, 7);
    assert!(s.awaiting_lot.len() == 1, "the three blacks still wait");
    cup.assert_fold_matches();
}

#[test]
fn a_lot_stops_mattering_once_a_game_separates_the_players() {
    let mut cup = Cup::new(Scheme::rfm(), 10, 3);
    let g = cup.seat_round("main", 1, &[ten(1)]).remove(0);
    let f = cup.facts(&g, Some(Team::Black));
    cup.record(&g, f);
    cup.ok(
        chief(),
        TournamentCommand::DrawLot {
            players: vec![pid(9), pid(7), pid(5)],
        },
    );
    assert_eq!(standings(&cup.t).rows[0].player, pid(9));
    cup.inputs(judge(), &g, &[(5, 30)]).unwrap();
    let s = standings(&cup.t);
    assert_eq!(s.rows[0].player, pid(5));
    assert_eq!(s.rows[0].tie, Tie::None);
    assert_eq!(
        (s.rows[1].player.clone(), s.rows[1].tie),
        (pid(9), Tie::ByLot)
    );
}

#[test]
fn minsk2017_8_5_1_extras_count_with_removal_and_best_move() {
    let mut a = base();
    a.base = Points::c(400);
    a.extra = Points::c(50);
    a.best_move = Points::c(50);
    a.penalties = Points::ZERO;
    let mut b = a.clone();
    b.base = Points::c(500);
    b.extra = Points::ZERO;
    b.best_move = Points::ZERO;
    b.penalties = Points::ZERO;
    b.extras.clear();
    // Equal totals; a's 0.5 + 0.5 of extra and best move beat b's nothing
    // even though rfm's extra-and-penalties alone would also favour a.
    assert_a_first(Scheme::minsk2017(), a, b);
}

#[test]
fn minsk2017_8_5_2_then_more_wins() {
    let mut a = base();
    a.wins = 3;
    assert_a_first(Scheme::minsk2017(), a, base());
}

#[test]
fn minsk2017_8_5_3_then_more_wins_as_don_or_sheriff() {
    let mut a = base();
    a.wins_by_role.don = 1;
    let mut b = base();
    b.wins_by_role.civilian = 1;
    assert_a_first(Scheme::minsk2017(), a, b);
}

#[test]
fn minsk2017_8_5_4_then_more_first_night_deaths() {
    let mut a = base();
    a.first_night_deaths = 3;
    assert_a_first(Scheme::minsk2017(), a, base());
}

#[test]
fn minsk2017_8_5_fewer_games_is_no_criterion_and_the_tie_waits_for_a_lot() {
    let mut a = base();
    a.games = 1;
    let (ra, rb) = ranks(Scheme::minsk2017(), a, base());
    assert_eq!((ra.rank, rb.rank), (1, 1));
    assert_eq!((ra.tie, rb.tie), (Tie::AwaitingLot, Tie::AwaitingLot));
}
