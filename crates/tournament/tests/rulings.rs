//! The chief judge's rulings: refusing a pending item, confirming a result
//! (rfm §7.4), deciding appeals by their documented shapes, and the audit
//! trail that keeps who, when and why.

mod common;

use common::*;
use mafia_rules::Team;
use mafia_tournament::*;

/// rfm: game 1 of table 1 won by red, its judge's +1.6 for seat 1 waiting.
fn with_pending_extra() -> (Cup, mafia_record::GameId, ApprovalItem) {
    let mut cup = Cup::new(Scheme::rfm(), 10, 5);
    let g = cup.seat_round("main", 1, &[ten(1)]).remove(0);
    let f = cup.facts(&g, Some(Team::Red));
    cup.record(&g, f);
    cup.inputs(judge(), &g, &[(1, 160), (2, 50)]).unwrap();
    let item = ApprovalItem::ExtraValue {
        seat: seat(1),
        points: Points::c(160),
    };
    (cup, g, item)
}

fn refuse(g: &mafia_record::GameId, item: &ApprovalItem, reason: &str) -> TournamentCommand {
    TournamentCommand::Refuse {
        game: g.clone(),
        item: item.clone(),
        reason: reason.into(),
    }
}

#[test]
fn a_refused_extra_does_not_count_until_the_judge_gives_the_input_anew() {
    let (mut cup, g, item) = with_pending_extra();
    let e = cup.err(chief(), refuse(&g, &item, "  "));
    assert!(e.to_string().contains("`reason`"), "{e}");
    let e = cup.err(judge(), refuse(&g, &item, "too much"));
    assert!(matches!(e, TournamentError::NotPermitted { .. }), "{e}");
    cup.ok(
        chief(),
        refuse(&g, &item, "1.6 is for the best player of the tournament"),
    );
    assert!(
        cup.t.pending_approvals().is_empty(),
        "nothing waits any more"
    );
    assert_eq!(
        cup.row(1).points.extra,
        Points::ZERO,
        "refused: no extras count"
    );
    let e = cup.err(chief(), refuse(&g, &item, "again"));
    assert!(matches!(e, TournamentError::NothingToRefuse { .. }), "{e}");
    cup.inputs(judge(), &g, &[(1, 120), (2, 50)]).unwrap();
    assert_eq!(
        cup.row(1).points.extra,
        Points::c(120),
        "the new input counts"
    );
    let audit = cup.t.audit.last().unwrap();
    assert_eq!(audit.by, Actor::ChiefJudge);
    assert_eq!(audit.game.as_ref(), Some(&g));
    assert_eq!(audit.action, AuditAction::Refused { item });
    assert_eq!(audit.reason, "1.6 is for the best player of the tournament");
    cup.assert_fold_matches();
}

#[test]
fn rfm_7_4_the_chief_judge_confirms_a_result_once_nothing_waits_for_him() {
    let (mut cup, g, item) = with_pending_extra();
    let confirm = TournamentCommand::ConfirmResult { game: g.clone() };
    let e = cup.err(chief(), confirm.clone());
    assert!(
        matches!(e, TournamentError::ConfirmWhilePending { .. }),
        "{e}"
    );
    assert!(e.to_string().contains("extra_value"), "{e}");
    cup.ok(
        chief(),
        TournamentCommand::Approve {
            game: g.clone(),
            item,
        },
    );
    cup.ok(
        judge(),
        TournamentCommand::FileAppeal {
            game: g.clone(),
            player: None,
            event_seq: None,
            text: "the vote was miscounted".into(),
        },
    );
    let e = cup.err(chief(), confirm.clone());
    assert!(e.to_string().contains("appeal 1"), "{e}");
    let decide = |decision| TournamentCommand::DecideAppeal {
        appeal: 1,
        decision,
        reason: "the video shows the count was right".into(),
    };
    cup.ok(chief(), decide(AppealDecision::Rejected));
    assert!(cup.t.games[&g].awaits_confirmation());
    let e = cup.err(Actor::Organiser, confirm.clone());
    assert!(matches!(e, TournamentError::NotPermitted { .. }), "{e}");
    cup.ok(chief(), confirm.clone());
    assert!(!cup.t.games[&g].awaits_confirmation());
    let e = cup.err(chief(), confirm.clone());
    assert!(matches!(e, TournamentError::AlreadyConfirmed(_)), "{e}");

    // A later review (rfm §7.4) that corrects points asks for the result to
    // be confirmed again.
    cup.ok(
        chief(),
        TournamentCommand::FileAppeal {
            game: g.clone(),
            player: Some(pid(2)),
            event_seq: None,
            text: "review".into(),
        },
    );
    let corrections: AppealDecision = serde_json::from_str(
        r#"{"kind":"points_corrected","corrections":[{"player":"p02","points":0.3,"note":"best speech"}]}"#,
    )
    .unwrap();
    cup.ok(
        chief(),
        TournamentCommand::DecideAppeal {
            appeal: 2,
            decision: corrections,
            reason: "review".into(),
        },
    );
    assert!(cup.t.games[&g].awaits_confirmation());
    let actions: Vec<&str> = cup
        .t
        .audit
        .iter()
        .map(|a| match a.action {
            AuditAction::Approved { .. } => "approved",
            AuditAction::AppealDecided { .. } => "appeal_decided",
            AuditAction::ResultConfirmed => "result_confirmed",
            _ => "other",
        })
        .collect();
    assert_eq!(
        actions,
        [
            "approved",
            "appeal_decided",
            "result_confirmed",
            "appeal_decided"
        ]
    );
    cup.assert_fold_matches();
}

#[test]
fn appeal_decisions_read_in_their_documented_shapes_and_nothing_else() {
    let read = |json: &str| serde_json::from_str::<AppealDecision>(json);
    assert_eq!(
        read(r#"{"kind":"rejected"}"#).unwrap(),
        AppealDecision::Rejected
    );
    assert_eq!(read(r#""rejected""#).unwrap(), AppealDecision::Rejected);
    assert_eq!(read(r#""replay""#).unwrap(), AppealDecision::Replay);
    assert_eq!(
        read(r#"{"kind":"result_changed","winner":null}"#).unwrap(),
        AppealDecision::ResultChanged { winner: None }
    );
    assert_eq!(
        read(r#"{"kind":"result_changed","winner":"black"}"#).unwrap(),
        AppealDecision::ResultChanged {
            winner: Some(Team::Black)
        }
    );
    for bad in [
        r#""accepted""#,
        r#"{"kind":"rejected","why":"x"}"#,
        r#"{"kind":"points_corrected","corrections":[{"player":"p1","points":1,"extra":2}]}"#,
    ] {
        let e = read(bad).unwrap_err().to_string();
        assert!(e.contains(r#"{"kind":"replay"}"#), "{bad}: {e}");
    }
    // Written as before: the log's bytes do not change.
    assert_eq!(
        serde_json::to_string(&AppealDecision::Replay).unwrap(),
        r#"{"kind":"replay"}"#
    );
}

#[test]
fn a_tournament_without_dates_writes_and_reads_as_before() {
    let spec = TournamentSpec {
        id: "cup".parse().unwrap(),
        name: "Cup".into(),
        rules: mafia_rules::RuleSetId::Rfm,
        rule_overrides: serde_json::Value::Null,
        scheme: Scheme::rfm(),
    };
    let created = Tournament::create(spec.clone(), &Actor::Organiser, T0).unwrap();
    let json = serde_json::to_string(&created).unwrap();
    assert!(!json.contains("starts_on"), "no dates, no keys");
    let dated = Tournament::create_dated(
        spec,
        Dates {
            starts_on: Some("2026-05-01".into()),
            ends_on: None,
        },
        &Actor::Organiser,
        T0,
    )
    .unwrap();
    let t = Tournament::fold([&dated]).unwrap();
    assert_eq!(t.dates.starts_on.as_deref(), Some("2026-05-01"));
    let old = Tournament::fold([&serde_json::from_str(&json).unwrap()]).unwrap();
    assert_eq!(old.dates, Dates::default());
}

#[test]
fn the_organiser_edits_a_player_but_not_his_id_and_nobody_else_does() {
    let mut cup = Cup::new(Scheme::rfm(), 10, 5);
    let edit = |nickname: &str| TournamentCommand::UpdatePlayer {
        player: Player {
            id: pid(3),
            nickname: nickname.into(),
            club: Some("Клуб".into()),
            photo_url: None,
        },
    };
    cup.ok(Actor::Organiser, edit("Александра-Константинопольская"));
    assert_eq!(
        cup.t.players[&pid(3)].player.nickname,
        "Александра-Константинопольская"
    );
    assert!(matches!(
        cup.err(chief(), edit("X")),
        TournamentError::NotPermitted { .. }
    ));
    assert!(matches!(
        cup.err(Actor::Organiser, edit(" ")),
        TournamentError::EmptyPlayer
    ));
    let stranger = TournamentCommand::UpdatePlayer {
        player: Player {
            id: pid(99),
            nickname: "Nobody".into(),
            club: None,
            photo_url: None,
        },
    };
    assert!(matches!(
        cup.err(Actor::Organiser, stranger),
        TournamentError::UnknownPlayer(_)
    ));
    cup.assert_fold_matches();
}
