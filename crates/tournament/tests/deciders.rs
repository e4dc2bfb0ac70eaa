//! What ranked each row below the one above (`standings::deciders`): the
//! total, the scheme's tie-break at its level, the chief judge's lot, or a
//! rank still shared; what the office and the dashboard name for each tie.

mod common;

use common::*;
use mafia_rules::Team;
use mafia_tournament::ledger::PlayerAcc;
use mafia_tournament::standings::{deciders, Decider};
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

/// What ranked p02 (`b`) below p01 (`a`).
fn decider(a: PlayerAcc, b: PlayerAcc) -> Decider {
    let mut cup = Cup::new(Scheme::rfm(), 10, 3);
    cup.t.ledger.players.insert(pid(1), a);
    cup.t.ledger.players.insert(pid(2), b);
    let s = standings(&cup.t);
    let d = deciders(&cup.t, &s);
    assert_eq!(d.len(), s.rows.len());
    assert_eq!(d[0], Decider::Total, "the first row");
    assert_eq!((&s.rows[0].player, &s.rows[1].player), (&pid(1), &pid(2)));
    d[1]
}

#[test]
fn a_lower_total_is_decided_by_the_total() {
    let mut a = base();
    a.base += Points::c(100);
    assert_eq!(decider(a, base()), Decider::Total);
}

#[test]
fn each_tie_names_the_first_tie_break_that_differs_with_its_level() {
    let mut a = base();
    a.extra += Points::c(20);
    a.best_move -= Points::c(20);
    assert_eq!(
        decider(a, base()),
        Decider::TieBreak {
            level: 1,
            tie_break: TieBreak::ExtraAndPenalties
        }
    );
    let mut a = base();
    a.games = 3;
    assert_eq!(
        decider(a, base()),
        Decider::TieBreak {
            level: 2,
            tie_break: TieBreak::FewerGames
        }
    );
    // Level 5 spans two figures (triples, then doubles): still level 5,
    // and the one after it is level 6.
    let mut a = base();
    a.best_move_doubles = 2;
    assert_eq!(
        decider(a, base()),
        Decider::TieBreak {
            level: 5,
            tie_break: TieBreak::MoreBestMoveTriplesThenDoubles
        }
    );
    let mut a = base();
    a.extras = BTreeMap::from([(Points::c(60), 1)]);
    assert_eq!(
        decider(a, base()),
        Decider::TieBreak {
            level: 6,
            tie_break: TieBreak::HighestSingleExtra
        }
    );
}

#[test]
fn a_tie_at_every_level_is_shared_until_a_lot_orders_it() {
    let mut cup = Cup::new(Scheme::rfm(), 10, 3);
    let g = cup.seat_round("main", 1, &[ten(1)]).remove(0);
    let f = cup.facts(&g, Some(Team::Red));
    cup.record(&g, f);
    let s = standings(&cup.t);
    let d = deciders(&cup.t, &s);
    // Seven reds tied, then three blacks tied.
    assert_eq!(d[0], Decider::Total);
    assert!(d[1..7].iter().all(|x| *x == Decider::Shared), "{d:?}");
    assert_eq!(d[7], Decider::Total);
    let tied: Vec<PlayerId> = s.awaiting_lot[0].clone();
    cup.ok(chief(), TournamentCommand::DrawLot { players: tied });
    let s = standings(&cup.t);
    let d = deciders(&cup.t, &s);
    assert!(d[1..7].iter().all(|x| *x == Decider::Lot), "{d:?}");
    assert_eq!(
        serde_json::to_value(d[1]).unwrap(),
        serde_json::json!({"by": "lot"})
    );
    assert_eq!(
        serde_json::to_value(Decider::TieBreak {
            level: 2,
            tie_break: TieBreak::FewerGames
        })
        .unwrap(),
        serde_json::json!({"by": "tie_break", "level": 2, "tie_break": "fewer_games"})
    );
}
