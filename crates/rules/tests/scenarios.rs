//! Scenarios named after the clause they check (`000 §4.4.13` → `rfm_4_4_13_…`).
//! Each row of the "Where they differ" tables in RULESETS.md has at least one.

mod common;
use common::*;
use mafia_rules::event::{LiftDenial, NoVote};
use mafia_rules::params::Night0Step;
use mafia_rules::*;
use RuleSetId::*;

// ---- the common core -------------------------------------------------------

#[test]
fn classic_3_3_2_day_one_opens_with_seat_one_and_later_days_rotate_skipping_the_dead() {
    let mut t = table(Classic);
    t.play_night0();
    assert!(matches!(t.prompt(), Expect::Speech { seat, .. } if seat == s(1)));
    t.speeches(&[]);
    t.night(Some(2)); // seat 2 killed: day 2 would open with 2, so 3 opens
    t.words();
    assert!(matches!(t.prompt(), Expect::Speech { seat, .. } if seat == s(3)));
}

#[test]
fn classic_3_4_10_a_single_nominee_on_day_one_is_not_voted() {
    let mut t = table(Classic);
    t.play_night0();
    t.speeches(&[(1, 8)]);
    assert!(t.saw(|e| matches!(
        e,
        Event::VoteSkipped {
            reason: NoVote::SingleNomineeDay1
        }
    )));
    assert!(t.alive(8));
}

#[test]
fn classic_3_4_10_a_single_nominee_on_day_two_leaves_with_every_vote() {
    let mut t = table(Classic);
    t.play_night0();
    t.quiet_round();
    t.speeches(&[(2, 8)]);
    assert!(!t.alive(8));
    assert!(t.saw(
        |e| matches!(e, Event::VotesCast { automatic: true, hands, .. } if hands.len() == 10)
    ));
}

#[test]
fn classic_3_4_8_players_who_do_not_vote_go_to_the_last_nominee() {
    let mut t = table(Classic);
    t.play_night0();
    t.speeches(&[(1, 8), (2, 9)]);
    let ev = t.vote(8, &[1, 2, 3]);
    assert!(ev.iter().any(|e| matches!(e, Event::VotesCast { nominee, automatic: true, hands } if *nominee == s(9) && hands.len() == 7)));
    assert!(!t.alive(9));
}

#[test]
fn classic_3_4_12_a_tie_gives_30_second_speeches_then_a_revote_then_the_lift() {
    let mut t = table(Classic);
    t.play_night0();
    t.speeches(&[(1, 8), (2, 9)]);
    t.vote(8, &[1, 2, 3, 4, 5]);
    assert!(t.saw(|e| matches!(e, Event::Tie { .. })));
    assert!(matches!(t.prompt(), Expect::Speech { seat, tie: true, .. } if seat == s(8)));
    assert_eq!(t.secs(), Some(30));
    t.tie_speeches();
    t.vote(8, &[1, 2, 3, 4, 5]);
    assert!(matches!(t.prompt(), Expect::Lift { .. }));
    t.ok(Command::Lift {
        hands: set(&[1, 2, 3, 4, 5, 6]),
    });
    assert!(!t.alive(8) && !t.alive(9));
}

#[test]
fn classic_3_4_12_half_or_fewer_for_the_lift_keeps_everyone() {
    let mut t = table(Classic);
    t.play_night0();
    t.speeches(&[(1, 8), (2, 9)]);
    t.vote(8, &[1, 2, 3, 4, 5]);
    t.tie_speeches();
    t.vote(8, &[1, 2, 3, 4, 5]);
    t.ok(Command::Lift {
        hands: set(&[1, 2, 3, 4, 5]),
    });
    assert!(t.alive(8) && t.alive(9));
    assert!(matches!(t.prompt(), Expect::Shots { .. }));
}

#[test]
fn classic_3_4_12_a_tie_among_fewer_nominees_is_spoken_and_revoted_again() {
    let mut t = table(Classic);
    t.play_night0();
    t.speeches(&[(1, 8), (2, 9), (3, 10)]);
    t.vote(8, &[1, 2, 3]);
    t.vote(9, &[4, 5, 6]);
    // 3 / 3 / 4: seat 10 leaves? No: 10 gets 7,8,9,10 = 4 and leaves.
    assert!(!t.alive(10));
    let mut t = table(Classic);
    t.play_night0();
    t.speeches(&[(1, 8), (2, 9), (3, 10)]);
    t.vote(8, &[1, 2, 3, 4]);
    t.vote(9, &[5, 6, 7, 10]);
    // 4 / 4 / 2: a tie between 8 and 9 only.
    t.tie_speeches();
    assert!(matches!(t.prompt(), Expect::Vote { nominee, round: 1, .. } if nominee == s(8)));
}

#[test]
fn classic_3_5_5_a_kill_needs_every_black_shot_on_one_seat() {
    let mut t = table(Classic);
    t.play_night0();
    t.speeches(&[]);
    t.ok(Command::Shot {
        by: s(8),
        target: Some(s(1)),
    });
    t.ok(Command::Shot {
        by: s(9),
        target: Some(s(1)),
    });
    t.ok(Command::Shot {
        by: s(10),
        target: Some(s(2)),
    });
    assert!(t.saw(|e| matches!(e, Event::NightResult { killed: None })));
    t.night(None);
    assert!(t.alive(1) && t.alive(2));
}

#[test]
fn classic_1_4_red_wins_when_every_black_is_out_and_last_words_still_follow() {
    let mut t = table(Classic);
    t.play_night0();
    t.speeches(&[(1, 8), (2, 9)]);
    t.vote(8, &[1, 2, 3, 4, 5, 6]);
    t.words();
    t.night(Some(1));
    t.words();
    t.speeches(&[(2, 9), (3, 10)]);
    t.vote(9, &[2, 3, 4, 5, 6]);
    t.words();
    t.night(Some(2));
    t.words();
    t.speeches(&[(3, 10)]);
    assert_eq!(t.outcome().unwrap().winner, Some(Team::Red));
    assert!(matches!(t.prompt(), Expect::LastWords { seat, .. } if seat == s(10)));
    let v = t.err(Command::StartSpeech { seat: s(3) });
    assert_eq!(v.code, Code::GameOver);
    t.words();
    assert!(t.g.is_over());
}

#[test]
fn classic_1_4_black_wins_when_black_equals_red() {
    let mut t = table(Classic);
    t.play_night0();
    for victim in [1, 2, 3, 4] {
        t.speeches(&[]);
        t.night(Some(victim));
        t.words();
    }
    // 10 - 4 kills = 3 red + 3 black after night 4.
    assert_eq!(t.outcome().unwrap().winner, Some(Team::Black));
}

#[test]
fn classic_3_5_4_a_sheriff_killed_tonight_still_makes_his_check() {
    let mut t = table(Classic);
    t.play_night0();
    t.speeches(&[]);
    for by in [8, 9, 10] {
        t.ok(Command::Shot {
            by: s(by),
            target: Some(s(7)),
        });
    }
    t.ok(Command::DonCheck { target: Some(s(7)) });
    assert!(t.saw(|e| matches!(e, Event::DonChecked { sheriff: true, .. })));
    assert!(matches!(t.prompt(), Expect::SheriffCheck { sheriff } if sheriff == s(7)));
    t.ok(Command::SheriffCheck {
        target: Some(s(10)),
    });
    assert!(t.saw(|e| matches!(e, Event::SheriffChecked { black: true, .. })));
}

#[test]
fn classic_5_5_the_fourth_foul_removes_at_once_without_last_words() {
    let mut t = table(Classic);
    t.play_night0();
    for _ in 0..4 {
        t.ok(Command::Foul { seat: s(5) });
    }
    assert!(!t.alive(5));
    assert!(t.saw(|e| matches!(
        e,
        Event::Left {
            cause: Cause::Fouls,
            ..
        }
    )));
    assert!(!matches!(t.prompt(), Expect::LastWords { .. }));
}

#[test]
fn classic_6_7_three_nights_in_a_row_without_a_departure_is_a_draw() {
    let mut t = table(Classic);
    t.play_night0();
    t.quiet_round();
    t.quiet_round();
    t.speeches(&[]);
    t.night(None);
    assert_eq!(
        t.outcome().map(|o| (o.winner, o.reason)),
        Some((None, EndReason::NoDepartures))
    );
}

// ---- night 0 ------------------------------------------------------------

#[test]
fn night_0_steps_follow_each_rule_set() {
    let steps = |id| {
        Params::preset(id)
            .night0
            .iter()
            .map(|t| (t.step, t.secs))
            .collect::<Vec<_>>()
    };
    use Night0Step::*;
    assert_eq!(
        steps(Rfm),
        vec![(Meeting, 60), (SheriffAndDonSign, 10), (FreeSeating, 60)]
    );
    assert_eq!(steps(Classic), vec![(Meeting, 60), (SheriffSign, 20)]);
    assert_eq!(steps(Minsk2017)[0], (DonSign, 10));
    assert_eq!(
        steps(Ua),
        vec![(Meeting, 60), (SheriffSign, 10), (FreeSeating, 20)]
    );
    assert_eq!(steps(Club)[0].0, BeautySign);
    let mut t = table(Rfm);
    assert_eq!(t.prompt(), Expect::Night0 { step: Meeting });
    assert_eq!(t.secs(), Some(60));
    t.ok(Command::NextStep);
    t.ok(Command::NextStep);
    assert_eq!(t.prompt(), Expect::Night0 { step: FreeSeating });
}

#[test]
fn rfm_4_2_3_checks_take_15_seconds_and_classic_3_2_2_ten() {
    for (id, secs) in [(Rfm, 15), (Classic, 10), (Ua, 10)] {
        let mut t = table(id);
        t.play_night0();
        t.speeches(&[]);
        for by in [8, 9, 10] {
            t.ok(Command::Shot {
                by: s(by),
                target: None,
            });
        }
        assert!(matches!(t.prompt(), Expect::DonCheck { .. }));
        assert_eq!(t.secs(), Some(secs), "{id}");
    }
}

// ---- speech and fouls --------------------------------------------------

#[test]
fn classic_5_4_a_third_foul_costs_the_next_speech_but_not_the_nomination() {
    let mut t = table(Classic);
    t.play_night0();
    for _ in 0..3 {
        t.ok(Command::Foul { seat: s(3) });
    }
    t.speeches_until(3);
    assert!(
        matches!(t.prompt(), Expect::Speech { seat, nominations_only: true, .. } if seat == s(3))
    );
    assert_eq!(t.secs(), None);
    t.ok(Command::Nominate {
        by: s(3),
        target: s(8),
    });
}

#[test]
fn rfm_5_5_a_third_foul_after_his_speech_leaves_10_seconds_for_nominations_next_day() {
    let mut t = table(Rfm);
    t.play_night0();
    t.speeches_until(4);
    for _ in 0..3 {
        t.ok(Command::Foul { seat: s(3) });
    }
    t.speeches(&[]);
    t.night(None);
    t.speeches_until(3);
    assert!(matches!(
        t.prompt(),
        Expect::Speech {
            nominations_only: true,
            ..
        }
    ));
    assert_eq!(t.secs(), Some(10));
}

#[test]
fn minsk2017_6_4_a_third_foul_shortens_the_next_speech_to_30_seconds() {
    let mut t = table(Minsk2017);
    t.play_night0();
    for _ in 0..3 {
        t.ok(Command::Foul { seat: s(2) });
    }
    t.speeches_until(2);
    assert!(matches!(
        t.prompt(),
        Expect::Speech {
            nominations_only: false,
            ..
        }
    ));
    assert_eq!(t.secs(), Some(30));
}

#[test]
fn club_a_third_foul_during_his_speech_ends_it_at_once() {
    let mut t = table(Club);
    t.play_night0();
    t.ok(Command::Foul { seat: s(1) });
    t.ok(Command::Foul { seat: s(1) });
    t.ok(Command::StartSpeech { seat: s(1) });
    t.ok(Command::Foul { seat: s(1) });
    assert!(matches!(t.prompt(), Expect::Speech { seat, .. } if seat == s(2)));
}

#[test]
fn ua_7_the_second_technical_foul_removes_and_other_rule_sets_have_none() {
    let mut t = table(Ua);
    t.play_night0();
    t.ok(Command::TechnicalFoul { seat: s(4) });
    assert!(t.alive(4));
    t.ok(Command::TechnicalFoul { seat: s(4) });
    assert!(!t.alive(4));
    assert!(t.saw(|e| matches!(
        e,
        Event::Left {
            cause: Cause::TechnicalFouls,
            ..
        }
    )));
    let mut t = table(Classic);
    t.play_night0();
    assert_eq!(
        t.err(Command::TechnicalFoul { seat: s(4) }).code,
        Code::NotInRuleSet
    );
}

#[test]
fn rfm_5_10_small_and_big_penalties_are_recorded_only_in_rfm() {
    let mut t = table(Rfm);
    t.play_night0();
    t.ok(Command::Penalty {
        seat: s(2),
        kind: PenaltyKind::Small,
    });
    t.ok(Command::Penalty {
        seat: s(2),
        kind: PenaltyKind::Big,
    });
    let v = t.g.view(Audience::Public);
    assert_eq!(
        (v.seats[1].small_penalties, v.seats[1].big_penalties),
        (1, 1)
    );
    // ua's in-game sanctions are fouls (§6), technical fouls (§7), removal
    // (§8) and ППК (§9); §7.1, cited before, defines the technical foul only.
    let mut t = table(Ua);
    t.play_night0();
    let v = t.err(Command::Penalty {
        seat: s(2),
        kind: PenaltyKind::Small,
    });
    assert_eq!((v.code, v.clause.as_str()), (Code::NotInRuleSet, "003 §6"));
}

#[test]
fn minsk2017_4_4_3_a_nomination_may_be_withdrawn_but_rfm_4_4_2_forbids_it() {
    let mut t = table(Minsk2017);
    t.play_night0();
    t.ok(Command::Nominate {
        by: s(1),
        target: s(8),
    });
    t.ok(Command::Withdraw { by: s(1) });
    t.ok(Command::Nominate {
        by: s(1),
        target: s(9),
    });
    assert_eq!(t.g.core().nominees, list(&[9]));
    let mut t = table(Rfm);
    t.play_night0();
    t.ok(Command::Nominate {
        by: s(1),
        target: s(8),
    });
    let v = t.err(Command::Withdraw { by: s(1) });
    assert_eq!(
        (v.code, v.clause.as_str()),
        (Code::WithdrawalForbidden, "000 §4.4.2")
    );
}

#[test]
fn minsk2017_4_4_3_a_nomination_is_not_withdrawn_in_a_tie_speech() {
    // Seat 8 nominated seat 9 in his own minute; tied with 9, he speaks
    // again after the voting began: too late to withdraw.
    let mut t = table(Minsk2017);
    t.play_night0();
    t.speeches(&[(1, 8), (8, 9)]);
    t.vote(8, &[1, 2, 3, 4, 5]);
    assert!(matches!(t.prompt(), Expect::Speech { seat, tie: true, .. } if seat == s(8)));
    let v = t.err(Command::Withdraw { by: s(8) });
    assert_eq!(v.code, Code::WrongPhase);
    assert_eq!(t.g.core().candidates, list(&[8, 9]));
}

#[test]
fn ua_4_2_naming_a_seat_already_nominated_does_not_use_the_nomination() {
    let mut t = table(Ua);
    t.play_night0();
    t.ok(Command::Nominate {
        by: s(1),
        target: s(8),
    });
    t.ok(Command::EndSpeech {
        seat: s(1),
        timeout: false,
    });
    let v = t.err(Command::Nominate {
        by: s(2),
        target: s(8),
    });
    assert_eq!(
        (v.code, v.clause.as_str()),
        (Code::AlreadyNominated, "003 §4.2")
    );
    t.ok(Command::Nominate {
        by: s(2),
        target: s(9),
    });
}

#[test]
fn classic_3_4_1_one_nomination_per_player_per_day_in_his_own_speech() {
    let mut t = table(Classic);
    t.play_night0();
    t.ok(Command::Nominate {
        by: s(1),
        target: s(8),
    });
    assert_eq!(
        t.err(Command::Nominate {
            by: s(1),
            target: s(9)
        })
        .code,
        Code::NominationUsed
    );
    assert_eq!(
        t.err(Command::Nominate {
            by: s(2),
            target: s(9)
        })
        .code,
        Code::NotYourTurn
    );
}

// ---- voting and the lift -----------------------------------------------

fn to_lift(t: &mut Table, noms: &[(u8, u8)], first: u8, hands: &[u8]) {
    t.play_night0();
    t.speeches(noms);
    t.vote(first, hands);
    t.tie_speeches();
    t.vote(first, hands);
}

#[test]
fn rfm_4_4_18_never_a_lift_of_five_at_ten() {
    let mut t = table(Rfm);
    t.play_night0();
    t.speeches(&[(1, 1), (2, 2), (3, 3), (4, 4), (5, 5)]);
    t.vote(1, &[1, 2]);
    t.vote(2, &[3, 4]);
    t.vote(3, &[5, 6]);
    t.vote(4, &[7, 8]);
    t.tie_speeches();
    t.vote(1, &[1, 2]);
    t.vote(2, &[3, 4]);
    t.vote(3, &[5, 6]);
    t.vote(4, &[7, 8]);
    assert!(t.saw(|e| matches!(
        e,
        Event::LiftDenied {
            reason: LiftDenial::Banned,
            ..
        }
    )));
    assert!(matches!(t.prompt(), Expect::Shots { .. }));
}

/// Day 2 at nine players: everyone nominated, one vote each, twice.
fn nine_tied_twice(id: RuleSetId) -> Table {
    let mut t = table(id);
    t.play_night0();
    t.speeches(&[]);
    t.night(Some(1));
    t.words();
    t.speeches(&[
        (2, 2),
        (3, 3),
        (4, 4),
        (5, 5),
        (6, 6),
        (7, 7),
        (8, 8),
        (9, 9),
        (10, 10),
    ]);
    for n in 2..=9u8 {
        t.vote(n, &[n]);
    }
    t.tie_speeches();
    for n in 2..=9u8 {
        t.vote(n, &[n]);
    }
    t
}

#[test]
fn ua_4_26_never_more_than_half_and_minsk2017_7_9_all_lifted_is_a_draw() {
    // Day 2 with 9 players: a tie of all 9 nominees.
    let mut t = nine_tied_twice(Minsk2017);
    assert!(matches!(t.prompt(), Expect::Lift { .. }));
    t.ok(Command::Lift {
        hands: set(&[2, 3, 4, 5, 6, 7, 8, 9, 10]),
    });
    assert_eq!(
        t.outcome().map(|o| (o.winner, o.reason)),
        Some((None, EndReason::AllOut))
    );

    let t = nine_tied_twice(Ua);
    assert!(t.saw(|e| matches!(
        e,
        Event::LiftDenied {
            reason: LiftDenial::AllPlayers | LiftDenial::MoreThanHalf,
            ..
        }
    )));
}

#[test]
fn classic_6_8_never_a_lift_of_every_player_at_the_table() {
    let t = nine_tied_twice(Classic);
    assert!(t.saw(|e| matches!(
        e,
        Event::LiftDenied {
            reason: LiftDenial::AllPlayers,
            ..
        }
    )));
}

#[test]
fn minsk2017_7_7_several_out_after_a_revote_have_30_seconds_each() {
    let mut t = table(Minsk2017);
    to_lift(&mut t, &[(1, 8), (2, 9)], 8, &[1, 2, 3, 4, 5]);
    t.ok(Command::Lift {
        hands: set(&[1, 2, 3, 4, 5, 6]),
    });
    assert!(matches!(t.prompt(), Expect::LastWords { .. }));
    assert_eq!(t.secs(), Some(30));
    let mut t = table(Classic);
    to_lift(&mut t, &[(1, 8), (2, 9)], 8, &[1, 2, 3, 4, 5]);
    t.ok(Command::Lift {
        hands: set(&[1, 2, 3, 4, 5, 6]),
    });
    assert_eq!(t.secs(), Some(60));
}

#[test]
fn rfm_4_4_15_a_20_second_testament_follows_last_words() {
    let mut t = table(Rfm);
    t.play_night0();
    t.speeches(&[(1, 8), (2, 9)]);
    t.vote(8, &[1, 2, 3, 4, 5, 6]);
    let seat = s(8);
    t.ok(Command::EndLastWords { seat });
    assert_eq!(
        t.prompt(),
        Expect::LastWords {
            seat,
            testament: true
        }
    );
    assert_eq!(t.secs(), Some(20));
}

#[test]
fn club_a_vote_is_held_only_when_half_want_it_and_is_a_roll_call() {
    let mut t = table(Club);
    t.play_night0();
    t.speeches(&[]);
    assert!(matches!(t.prompt(), Expect::VoteCall { .. }));
    t.ok(Command::VoteCall {
        yes: set(&[1, 2, 3, 4]),
    });
    assert!(t.saw(|e| matches!(
        e,
        Event::VoteSkipped {
            reason: NoVote::NotWanted
        }
    )));
    let mut t = table(Club);
    t.play_night0();
    t.speeches(&[]);
    t.ok(Command::VoteCall {
        yes: set(&[1, 2, 3, 4, 5]),
    });
    assert!(matches!(t.prompt(), Expect::Ballot { voter, .. } if voter == s(1)));
    assert_eq!(
        t.err(Command::Ballot {
            voter: s(2),
            target: Some(s(8))
        })
        .code,
        Code::NotYourTurn
    );
    for v in 1..=10 {
        let target = if v <= 6 { Some(s(8)) } else { Some(s(1)) };
        t.ok(Command::Ballot {
            voter: s(v),
            target,
        });
    }
    assert!(!t.alive(8));
    assert_eq!(
        t.err(Command::Nominate {
            by: s(1),
            target: s(2)
        })
        .code,
        Code::NotInRuleSet
    );
}

// ---- removal against the vote ----------------------------------------

#[test]
fn a_removal_before_the_result_cancels_the_days_vote_rfm_4_4_16_classic_6_1_minsk_7_1_ua_4_20() {
    for id in [Rfm, Classic, Minsk2017, Ua] {
        let mut t = table(id);
        t.play_night0();
        t.speeches(&[(1, 8), (2, 9)]);
        t.ok(Command::Disqualify { seat: s(3) });
        // Disqualified during voting: no further vote.
        assert!(
            t.saw(|e| matches!(e, Event::VotesCancelled { today: true, .. })),
            "{id}"
        );
        assert!(matches!(t.prompt(), Expect::Shots { .. }), "{id}");
        assert!(t.alive(8) && t.alive(9));
    }
}

#[test]
fn a_removal_after_the_result_cancels_the_next_vote_except_in_rfm_5_7() {
    for (id, cancelled) in [(Rfm, false), (Classic, true), (Minsk2017, true), (Ua, true)] {
        let mut t = table(id);
        t.play_night0();
        t.speeches(&[(1, 8), (2, 9)]);
        t.vote(8, &[1, 2, 3, 4, 5, 6]);
        // Seat 8 is out; during his last words seat 3 is disqualified.
        t.ok(Command::Disqualify { seat: s(3) });
        t.words();
        t.night(None);
        t.speeches(&[(4, 9)]);
        let skipped = t.saw(|e| {
            matches!(
                e,
                Event::VoteSkipped {
                    reason: NoVote::Cancelled
                }
            )
        });
        assert_eq!(skipped, cancelled, "{id}");
        assert_eq!(t.alive(9), cancelled, "{id}");
    }
}

#[test]
fn a_removal_at_night_cancels_the_next_vote_in_minsk_7_2_and_ua_but_not_rfm_5_7() {
    for (id, cancelled) in [(Rfm, false), (Minsk2017, true), (Ua, true), (Classic, true)] {
        let mut t = table(id);
        t.play_night0();
        t.speeches(&[]);
        t.ok(Command::Disqualify { seat: s(3) });
        t.night(None);
        t.speeches(&[(1, 9)]);
        let skipped = t.saw(|e| {
            matches!(
                e,
                Event::VoteSkipped {
                    reason: NoVote::Cancelled
                }
            )
        });
        assert_eq!(skipped, cancelled, "{id}");
    }
}

#[test]
fn ua_4_21_a_second_removal_in_the_same_round_cancels_the_next_vote_too() {
    let mut t = table(Ua);
    t.play_night0();
    t.ok(Command::Disqualify { seat: s(3) });
    t.ok(Command::Disqualify { seat: s(4) });
    t.speeches(&[(1, 8)]);
    t.night(None);
    t.speeches(&[(1, 8)]);
    assert_eq!(
        t.events
            .iter()
            .filter(|e| matches!(
                e.event,
                Event::VoteSkipped {
                    reason: NoVote::Cancelled
                }
            ))
            .count(),
        2
    );
}

// ---- best move ----------------------------------------------------------

#[test]
fn classic_3_5_9_the_first_killed_names_three_seats_at_night() {
    let mut t = table(Classic);
    t.play_night0();
    t.speeches(&[]);
    t.night_with(Some(1), &[8, 9, 2]);
    let bm = t.g.core().best_move.unwrap();
    assert_eq!((bm.seat, bm.hits), (s(1), 2));
    assert!(t.saw(|e| matches!(
        e,
        Event::DayStarted {
            best_move: Some(_),
            ..
        }
    )));
    assert_eq!(
        t.err(Command::BestMove {
            seat: s(1),
            named: list(&[8])
        })
        .code,
        Code::WrongPhase
    );
}

#[test]
fn rfm_6_6_9_two_out_by_the_day_one_vote_deny_the_best_move() {
    let mut t = table(Rfm);
    to_lift(&mut t, &[(1, 2), (2, 3)], 2, &[1, 4, 5, 6, 7]);
    t.ok(Command::Lift {
        hands: set(&[1, 4, 5, 6, 7, 8]),
    });
    t.words();
    t.night(Some(1));
    assert!(t.g.core().best_move.is_none());
    assert!(!t.saw(|e| matches!(
        e,
        Event::StepStarted {
            step: Step::BestMove { .. }
        }
    )));
}

#[test]
fn ua_5_12_removals_before_the_kill_count_against_the_best_move() {
    let mut t = table(Ua);
    t.play_night0();
    t.ok(Command::Disqualify { seat: s(2) });
    t.ok(Command::Disqualify { seat: s(3) });
    t.speeches(&[]);
    t.night(Some(1));
    assert!(!t.saw(|e| matches!(
        e,
        Event::StepStarted {
            step: Step::BestMove { .. }
        }
    )));
    let mut t = table(Classic);
    t.play_night0();
    t.ok(Command::Disqualify { seat: s(2) });
    t.ok(Command::Disqualify { seat: s(3) });
    t.speeches(&[]);
    t.night(Some(1));
    assert!(t.saw(|e| matches!(
        e,
        Event::StepStarted {
            step: Step::BestMove { .. }
        }
    )));
}

#[test]
fn minsk2017_8_3_the_best_move_is_made_during_the_last_words() {
    let mut t = table(Minsk2017);
    t.play_night0();
    t.speeches(&[]);
    t.night(Some(1));
    assert!(matches!(t.prompt(), Expect::LastWords { seat, .. } if seat == s(1)));
    let ev = t.ok(Command::BestMove {
        seat: s(1),
        named: list(&[8, 9, 10]),
    });
    assert!(matches!(ev[0], Event::BestMoveMade { hits: 3, .. }));
    let public = ev[0].for_audience(Audience::Public).unwrap();
    assert!(matches!(public, Event::BestMoveAnnounced { .. }));
}

// ---- draws and endings ---------------------------------------------------

#[test]
fn rfm_4_7_1_nobody_leaving_over_n_d_n_d_n_is_a_draw() {
    let mut t = table(Rfm);
    t.play_night0();
    t.speeches(&[]);
    t.night(None);
    t.speeches(&[]);
    assert!(t.outcome().is_none());
    t.night(None);
    t.speeches(&[]);
    t.night(None);
    assert_eq!(t.outcome().map(|o| o.reason), Some(EndReason::NoDepartures));
}

#[test]
fn minsk2017_7_8_the_draw_comes_after_the_third_quiet_day() {
    let mut t = table(Minsk2017);
    t.play_night0();
    t.quiet_round();
    t.quiet_round();
    t.speeches(&[]);
    t.night(None);
    assert!(t.outcome().is_none());
    t.speeches(&[]);
    assert_eq!(t.outcome().map(|o| o.reason), Some(EndReason::NoDepartures));
}

#[test]
fn ua_1_8_a_removal_breaks_the_quiet_streak() {
    let mut t = table(Ua);
    t.play_night0();
    t.quiet_round();
    t.speeches(&[]);
    t.ok(Command::Disqualify { seat: s(2) });
    t.night(None);
    t.quiet_round();
    assert!(t.outcome().is_none());
}

#[test]
fn club_four_players_and_three_nights_without_a_kill_is_a_red_win() {
    let mut t = table(Club);
    t.play_night0();
    // Remove reds until 4 remain: 3 black + 1 red would be black parity, so
    // remove one black too.
    for seat in [8, 9, 1, 2, 3, 4] {
        t.ok(Command::Disqualify { seat: s(seat) });
    }
    assert!(t.outcome().is_none());
    for _ in 0..3 {
        t.speeches(&[]);
        if let Expect::FreeTalk = t.prompt() {
            t.ok(Command::NextStep);
        }
        if let Expect::VoteCall { .. } = t.prompt() {
            t.ok(Command::VoteCall {
                yes: SeatSet::EMPTY,
            });
        }
        t.night(None);
    }
    assert_eq!(
        t.outcome().map(|o| (o.winner, o.reason)),
        Some((Some(Team::Red), EndReason::NightsWithoutKill))
    );
}

#[test]
fn an_opposite_team_victory_ends_the_game_at_once() {
    let mut t = table(Rfm);
    t.play_night0();
    t.ok(Command::OppositeTeamVictory { seat: s(9) });
    assert_eq!(t.outcome().map(|o| o.winner), Some(Some(Team::Red)));
    assert!(t.g.is_over());
    assert_eq!(t.err(Command::NextStep).code, Code::GameOver);
}

#[test]
fn club_the_beauty_protects_and_silences_her_pick() {
    let mut t = table(Club);
    t.play_night0();
    t.speeches(&[]);
    t.ok(Command::VoteCall {
        yes: SeatSet::EMPTY,
    });
    t.ok(Command::BeautyPick { target: Some(s(2)) });
    assert!(matches!(t.prompt(), Expect::SheriffCheck { .. }));
    t.ok(Command::SheriffCheck {
        target: Some(s(10)),
    });
    assert!(t.saw(|e| matches!(e, Event::SheriffChecked { black: true, .. })));
    for by in [8, 9, 10] {
        t.ok(Command::Shot {
            by: s(by),
            target: Some(s(2)),
        });
    }
    assert!(t.saw(|e| matches!(e, Event::NightResult { killed: None })));
    t.night(None);
    assert!(t.alive(2));
    // Day 2 is free talk in club; the silence shows on the turn list at small tables.
    assert!(matches!(t.prompt(), Expect::FreeTalk));
}

// ---- corrections and bad input --------------------------------------------

#[test]
fn rfm_7_1_2_the_judge_can_undo_commands_of_the_current_phase_only() {
    let mut t = table(Rfm);
    t.play_night0();
    t.ok(Command::Nominate {
        by: s(1),
        target: s(8),
    });
    t.ok(Command::Foul { seat: s(4) });
    t.ok(Command::Undo);
    assert_eq!(t.g.core().seats[3].fouls, 0);
    t.ok(Command::Undo);
    assert!(t.g.core().nominees.is_empty());
    // What opened day 1 belongs to night 0, another phase.
    assert_eq!(t.err(Command::Undo).code, Code::NothingToUndo);
    let replayed = Game::replay(t.g.setup().clone(), &t.events).unwrap();
    assert_eq!(replayed, t.g);
}

#[test]
fn the_publics_copy_of_an_undo_names_no_command_number() {
    let mut t = table(Rfm);
    t.play_night0();
    t.ok(Command::Nominate {
        by: s(1),
        target: s(8),
    });
    t.ok(Command::Undo);
    let undone = t.events.last().unwrap().event;
    assert!(matches!(undone, Event::Undone { cmd, public: true } if cmd > 0));
    // Command numbers count the hidden night commands (issue 8).
    assert_eq!(
        undone.for_audience(mafia_rules::Audience::Public),
        Some(Event::Undone {
            cmd: 0,
            public: true
        })
    );
    assert_eq!(
        undone.for_audience(mafia_rules::Audience::Judge),
        Some(undone)
    );
}

#[test]
fn bad_commands_name_the_rule_and_change_nothing() {
    let mut t = table(Classic);
    assert_eq!(
        t.err(Command::EndSpeech {
            seat: s(1),
            timeout: false
        })
        .code,
        Code::WrongPhase
    );
    t.play_night0();
    assert_eq!(
        t.err(Command::Shot {
            by: s(8),
            target: Some(s(1))
        })
        .code,
        Code::WrongPhase
    );
    t.speeches(&[(1, 8), (2, 9)]);
    assert_eq!(
        t.err(Command::Vote {
            nominee: s(9),
            hands: set(&[1])
        })
        .code,
        Code::LastNomineeAutomatic
    );
    t.ok(Command::Disqualify { seat: s(3) });
    let mut t = table(Classic);
    t.play_night0();
    t.ok(Command::Disqualify { seat: s(3) });
    t.speeches(&[(1, 8), (2, 9)]);
    t.night(None);
    t.speeches(&[(2, 9), (4, 8)]);
    let v = t.err(Command::Vote {
        nominee: s(9),
        hands: set(&[3]),
    });
    assert_eq!((v.code, v.clause.as_str()), (Code::VoterOut, "001 §2.1"));
    t.vote(9, &[1, 2]);
    t.words();
    assert!(matches!(t.prompt(), Expect::Shots { .. }));
    t.ok(Command::Shot {
        by: s(9),
        target: Some(s(1)),
    });
    let v = t.err(Command::Shot {
        by: s(9),
        target: Some(s(1)),
    });
    assert_eq!(v.code, Code::AlreadyShot);
    assert!(!v.message_ru.is_empty());
    assert_eq!(
        t.err(Command::Shot {
            by: s(1),
            target: Some(s(2))
        })
        .code,
        Code::NotAShooter
    );
}

#[test]
fn removed_then_shot_is_removed_and_killed_in_classic_6_1_but_a_miss_in_ua_5_6() {
    for (id, killed, vote_held) in [
        (Classic, true, true),
        (Minsk2017, true, true),
        (Ua, false, false),
    ] {
        let mut t = table(id);
        t.play_night0();
        t.speeches(&[]);
        t.ok(Command::Disqualify { seat: s(3) });
        t.night(Some(3));
        let announced =
            t.saw(|e| matches!(e, Event::DayStarted { killed: Some(k), .. } if *k == s(3)));
        assert_eq!(announced, killed, "{id}");
        assert!(
            !matches!(t.prompt(), Expect::LastWords { .. }),
            "{id}: a removed player has no last words"
        );
        t.speeches(&[(2, 9)]);
        assert_eq!(!t.alive(9), vote_held, "{id}");
    }
}

#[test]
fn rfm_and_ua_a_muted_player_is_silent_in_a_tie_speech_classic_6_5_lets_him_speak() {
    for (id, secs) in [
        (Rfm, None),
        (Ua, None),
        (Classic, Some(30)),
        (Minsk2017, Some(30)),
    ] {
        let mut t = table(id);
        t.play_night0();
        for _ in 0..3 {
            t.ok(Command::Foul { seat: s(8) });
        }
        // 8's third foul came before his speech: today's speech is the muted one.
        t.speeches(&[(1, 8), (2, 9)]);
        t.vote(8, &[1, 2, 3, 4, 5]);
        assert!(
            matches!(t.prompt(), Expect::Speech { seat, tie: true, .. } if seat == s(8)),
            "{id}"
        );
        assert_eq!(t.secs(), secs, "{id}");
    }
}

#[test]
fn club_a_removal_does_not_cancel_the_vote() {
    let mut t = table(Club);
    t.play_night0();
    t.ok(Command::Disqualify { seat: s(3) });
    t.speeches(&[]);
    assert!(matches!(t.prompt(), Expect::VoteCall { .. }));
}

#[test]
fn ua_3_12_a_third_foul_before_his_speech_costs_this_round_during_it_the_next() {
    let mut t = table(Ua);
    t.play_night0();
    for _ in 0..3 {
        t.ok(Command::Foul { seat: s(2) });
    }
    t.speeches_until(2);
    assert!(matches!(
        t.prompt(),
        Expect::Speech {
            nominations_only: true,
            ..
        }
    ));
    t.ok(Command::StartSpeech { seat: s(2) });
    t.ok(Command::EndSpeech {
        seat: s(2),
        timeout: false,
    });
    // Seat 3: third foul during his own speech → his next round is lost.
    t.ok(Command::Foul { seat: s(3) });
    t.ok(Command::Foul { seat: s(3) });
    t.ok(Command::StartSpeech { seat: s(3) });
    t.ok(Command::Foul { seat: s(3) });
    assert!(
        matches!(t.prompt(), Expect::Speech { seat, nominations_only: false, .. } if seat == s(3))
    );
    t.speeches(&[]);
    t.night(None);
    t.speeches_until(3);
    assert!(
        matches!(t.prompt(), Expect::Speech { seat, nominations_only: true, .. } if seat == s(3))
    );
}

#[test]
fn classic_6_6_a_muted_player_speaks_30_seconds_at_four_players() {
    let mut t = table(Classic);
    t.play_night0();
    t.speeches(&[(1, 8), (2, 9)]);
    t.vote(8, &[1, 2, 3, 4, 5, 6]);
    t.words();
    t.night(Some(1));
    t.words();
    t.speeches(&[(2, 9), (3, 4)]);
    t.vote(9, &[2, 3, 4, 5, 6, 7]);
    t.words();
    t.night(Some(2));
    t.words();
    t.speeches(&[(3, 3), (4, 10)]);
    t.vote(3, &[3, 4, 5, 6, 7]);
    t.words();
    for _ in 0..3 {
        t.ok(Command::Foul { seat: s(5) });
    }
    t.night(Some(4));
    t.words();
    // 5, 6, 7 (red) and 10 (black): four players, seat 5 is muted.
    assert_eq!(t.g.core().living().len(), 4);
    t.speeches_until(5);
    assert!(matches!(
        t.prompt(),
        Expect::Speech {
            nominations_only: false,
            ..
        }
    ));
    assert_eq!(t.secs(), Some(30));
}

#[test]
fn rfm_4_4_13_4_at_three_players_there_is_no_lift() {
    let mut t = table(Rfm);
    t.play_night0();
    for seat in [8, 9, 1, 2, 3, 4, 5] {
        t.ok(Command::Disqualify { seat: s(seat) });
    }
    assert!(t.outcome().is_none());
    t.speeches(&[]);
    t.night(None);
    t.speeches(&[(6, 6), (7, 7), (10, 10)]);
    t.vote(6, &[6]);
    t.vote(7, &[7]);
    t.tie_speeches();
    t.vote(6, &[6]);
    t.vote(7, &[7]);
    assert!(t.saw(|e| matches!(
        e,
        Event::LiftDenied {
            reason: LiftDenial::TooFewPlayers,
            ..
        }
    )));
}

#[test]
fn ua_4_23_on_day_one_a_tie_of_three_is_not_lifted() {
    let rules = RuleSet::with_overrides(
        Ua,
        &serde_json::json!({"removal": {"at_night_cancels_next": false}}),
    )
    .unwrap();
    let mut t = table_with(rules, "KKKKKKSMMD");
    t.ok(Command::Disqualify { seat: s(4) });
    t.play_night0();
    t.speeches(&[(1, 1), (2, 2), (3, 3)]);
    t.vote(1, &[1, 5, 6]);
    t.vote(2, &[2, 7, 8]);
    t.tie_speeches();
    t.vote(1, &[1, 5, 6]);
    t.vote(2, &[2, 7, 8]);
    assert!(t.saw(|e| matches!(
        e,
        Event::LiftDenied {
            reason: LiftDenial::Day1Limit,
            ..
        }
    )));
}

#[test]
fn minsk2017_7_3_a_removal_during_a_tie_ends_the_voting() {
    let mut t = table(Minsk2017);
    t.play_night0();
    t.speeches(&[(1, 8), (2, 9)]);
    t.vote(8, &[1, 2, 3, 4, 5]);
    t.ok(Command::Disqualify { seat: s(3) });
    t.tie_speeches();
    assert!(t.saw(|e| matches!(
        e,
        Event::VoteSkipped {
            reason: NoVote::Cancelled
        }
    )));
    assert!(t.alive(8) && t.alive(9));
    assert!(matches!(t.prompt(), Expect::Shots { .. }));
}

#[test]
fn a_forged_undo_in_a_stored_log_is_an_error_not_a_panic() {
    let t = table(Classic);
    let mut events = t.events.clone();
    events.push(Envelope {
        seq: events.len() as u32 + 1,
        cmd: 1,
        at: 0,
        event: Event::Undone {
            cmd: 1,
            public: true,
        },
    });
    let err = Game::replay(t.g.setup().clone(), &events).unwrap_err();
    assert!(matches!(err, ReplayError::Inconsistent { .. }));
}

#[test]
fn rfm_4_4_16_exception_2_the_closing_speakers_sole_nominee_stands_despite_a_removal() {
    for (id, stands) in [(Rfm, true), (Classic, false)] {
        let mut t = table(id);
        t.play_night0();
        t.quiet_round();
        // Day 2 opens with seat 2; seat 1 closes the round and names seat 8.
        t.speeches_until(1);
        t.ok(Command::Nominate {
            by: s(1),
            target: s(8),
        });
        t.ok(Command::Disqualify { seat: s(3) });
        t.ok(Command::EndSpeech {
            seat: s(1),
            timeout: false,
        });
        assert_eq!(!t.alive(8), stands, "{id}");
    }
}

#[test]
fn rfm_4_5_9_classic_3_2_3_minsk2017_4_2_4_ua_3_7_no_sheriff_check_on_night_0() {
    for (rules, clause) in [
        (Rfm, "000 §4.5.9"),
        (Classic, "001 §3.2.3"),
        (Minsk2017, "002 §4.2.4"),
        (Ua, "003 §3.7"),
        (Club, "004 \"НОЧЬ\""),
    ] {
        let mut t = table(rules);
        let v = t.err(Command::SheriffCheck { target: Some(s(3)) });
        assert_eq!(
            (v.code, v.clause.as_str()),
            (Code::NoSheriffCheckOnNight0, clause),
            "{rules:?}"
        );
    }
}

// ---- the start of the shooting (ua §5.6, rfm §5.17) ------------------------

/// Plays to the first night's shooting step.
fn to_the_shooting(rules: RuleSetId) -> Table {
    let mut t = table(rules);
    t.play_night0();
    t.speeches(&[]);
    loop {
        match t.prompt() {
            Expect::Shots { .. } => return t,
            Expect::VoteCall { .. } => {
                t.ok(Command::VoteCall { yes: set(&[]) });
            }
            Expect::BeautyPick { .. } => {
                t.ok(Command::BeautyPick { target: None });
            }
            Expect::SheriffCheck { .. } => {
                t.ok(Command::SheriffCheck { target: None });
            }
            other => panic!("{rules:?}: {other:?}"),
        }
    }
}

#[test]
fn ua_5_6_rfm_5_17_mafia_shoot_starts_the_shooting_in_prompt_and_views() {
    for rules in RuleSetId::ALL {
        let mut t = to_the_shooting(rules);
        assert!(
            matches!(t.prompt(), Expect::Shots { started: false, .. }),
            "{rules:?}"
        );
        assert!(!t.g.view(Audience::Judge).shooting_started);
        let ev = t.ok(Command::StartShooting);
        assert_eq!(ev, vec![Event::ShootingStarted], "{rules:?}");
        assert!(
            matches!(t.prompt(), Expect::Shots { started: true, .. }),
            "{rules:?}"
        );
        assert!(t.g.view(Audience::Judge).shooting_started);
        assert!(t.g.view(Audience::Broadcast).shooting_started);
        // The public learns nothing of the night.
        assert!(!t.g.view(Audience::Public).shooting_started);
        assert_eq!(Event::ShootingStarted.for_audience(Audience::Public), None);
        // Said once a night.
        assert_eq!(t.err(Command::StartShooting).code, Code::WrongPhase);
        t.night(None);
        assert!(!t.g.view(Audience::Judge).shooting_started);
    }
}

#[test]
fn ua_5_6_a_night_without_mafia_shoot_began_its_shooting_at_the_first_shot() {
    for rules in RuleSetId::ALL {
        let mut t = to_the_shooting(rules);
        let Expect::Shots { pending, .. } = t.prompt() else {
            unreachable!()
        };
        let by = pending.first().unwrap();
        let ev = t.ok(Command::Shot { by, target: None });
        // Records written before the command replay to the same events.
        assert_eq!(ev[0], Event::ShotFired { by, target: None }, "{rules:?}");
        if let Expect::Shots { started, .. } = t.prompt() {
            assert!(started, "{rules:?}");
            assert_eq!(t.err(Command::StartShooting).code, Code::WrongPhase);
        }
    }
}

#[test]
fn mafia_shoot_is_refused_outside_the_shooting() {
    let mut t = table(Classic);
    assert_eq!(t.err(Command::StartShooting).code, Code::WrongPhase);
    t.play_night0();
    assert_eq!(t.err(Command::StartShooting).code, Code::WrongPhase);
}

// ---- the night's victim leaves at dawn (issue 13 §1) -----------------------

fn shoot_all(t: &mut Table, target: u8) {
    let Expect::Shots { pending, .. } = t.prompt() else {
        panic!("not the shooting: {:?}", t.prompt())
    };
    for by in pending.iter() {
        t.ok(Command::Shot {
            by,
            target: Some(s(target)),
        });
    }
}

fn out(t: &Table, n: u8) -> mafia_rules::state::Departure {
    t.g.core().seats[s(n).index()]
        .out
        .unwrap_or_else(|| panic!("seat {n} is still in the game"))
}

fn announced_killed(t: &Table, n: u8) -> bool {
    t.saw(|e| matches!(e, Event::DayStarted { killed: Some(k), .. } if *k == s(n)))
}

fn saw_best_move_step(t: &Table) -> bool {
    t.saw(|e| {
        matches!(
            e,
            Event::StepStarted {
                step: Step::BestMove { .. }
            }
        )
    })
}

#[test]
fn rfm_4_5_4_classic_3_5_4_minsk2017_4_5_4_ua_5_4_the_night_victim_leaves_the_table_at_dawn() {
    for rules in RuleSetId::ALL {
        let mut t = to_the_shooting(rules);
        t.ok(Command::StartShooting);
        shoot_all(&mut t, 3);
        assert!(t.alive(3), "{rules:?}: at the table until the morning");
        assert_eq!(
            t.g.view(Audience::Judge).night_kill,
            Some(s(3)),
            "{rules:?}"
        );
        assert_eq!(t.g.view(Audience::Broadcast).night_kill, Some(s(3)));
        // The public learns of the kill in the morning only.
        let public = t.g.view(Audience::Public);
        assert_eq!(public.night_kill, None);
        assert!(public.seats[2].alive && public.seats[2].departure.is_none());
        let seen = mafia_rules::view::events_for(Audience::Public, &t.events, false);
        assert!(
            !seen
                .iter()
                .any(|e| matches!(e.event, Event::Left { .. } | Event::NightResult { .. })),
            "{rules:?}"
        );
        // A foul in the night still reaches him.
        t.ok(Command::Foul { seat: s(3) });
        t.night(None);
        let d = out(&t, 3);
        assert_eq!(
            (d.cause, d.when),
            (Cause::Shot, When::Night(1)),
            "{rules:?}"
        );
        assert_eq!(t.g.core().seats[2].fouls, 1);
        assert!(announced_killed(&t, 3), "{rules:?}");
        assert!(
            matches!(t.prompt(), Expect::LastWords { seat, .. } if seat == s(3)),
            "{rules:?}: {:?}",
            t.prompt()
        );
    }
}

#[test]
fn ua_5_6_rfm_5_17_classic_6_1_minsk2017_7_2_killed_then_disqualified_is_announced_killed_and_the_vote_is_held(
) {
    for rules in RuleSetId::ALL {
        let mut t = to_the_shooting(rules);
        t.ok(Command::StartShooting);
        shoot_all(&mut t, 3);
        // Refused as player_out while the victim left at the last shot.
        t.ok(Command::Disqualify { seat: s(3) });
        let d = out(&t, 3);
        assert_eq!(
            (d.cause, d.when),
            (Cause::Disqualified, When::Night(1)),
            "{rules:?}"
        );
        t.night(None);
        assert!(
            announced_killed(&t, 3),
            "{rules:?}: killed and disqualified"
        );
        assert!(
            !saw_best_move_step(&t),
            "{rules:?}: a removed player leaves silently"
        );
        assert!(
            !matches!(t.prompt(), Expect::LastWords { .. }),
            "{rules:?}: no last words after a removal"
        );
        assert!(
            !t.saw(|e| matches!(e, Event::VotesCancelled { .. })),
            "{rules:?}: the vote is held"
        );
        if rules != Club {
            t.speeches(&[(4, 9)]);
            assert!(!t.alive(9), "{rules:?}");
        }
    }
}

#[test]
fn ua_5_6_disqualified_before_mafia_shoot_the_shot_is_a_miss_after_it_killed_and_disqualified() {
    // (rules, killed when removed before the shooting began)
    for (rules, before_is_kill) in [(Rfm, true), (Classic, true), (Minsk2017, true), (Ua, false)] {
        for started in [false, true] {
            let mut t = to_the_shooting(rules);
            if started {
                t.ok(Command::StartShooting);
            }
            t.ok(Command::Disqualify { seat: s(3) });
            if !started {
                t.ok(Command::StartShooting);
            }
            shoot_all(&mut t, 3);
            t.night(None);
            let killed = started || before_is_kill;
            assert_eq!(
                announced_killed(&t, 3),
                killed,
                "{rules:?}, started {started}"
            );
            // rfm §5.7 keeps every vote after a night removal.
            let held = killed || rules == Rfm;
            t.speeches(&[(4, 9)]);
            assert_eq!(!t.alive(9), held, "{rules:?}, started {started}");
        }
    }
}

#[test]
fn rfm_5_17_classic_3_5_9_ua_5_12_a_victim_disqualified_in_his_best_move_loses_it() {
    for rules in [Rfm, Classic, Ua] {
        let mut t = to_the_shooting(rules);
        shoot_all(&mut t, 3);
        loop {
            match t.prompt() {
                Expect::DonCheck { .. } => {
                    t.ok(Command::DonCheck { target: None });
                }
                Expect::SheriffCheck { .. } => {
                    t.ok(Command::SheriffCheck { target: None });
                }
                Expect::BestMove { seat } => {
                    assert_eq!(seat, s(3));
                    break;
                }
                other => panic!("{rules:?}: {other:?}"),
            }
        }
        t.ok(Command::Disqualify { seat: s(3) });
        assert!(t.g.core().best_move.is_none(), "{rules:?}");
        assert!(announced_killed(&t, 3), "{rules:?}");
        assert_eq!(out(&t, 3).cause, Cause::Disqualified);
        assert!(
            matches!(t.prompt(), Expect::Speech { .. }),
            "{rules:?}: {:?}",
            t.prompt()
        );
    }
}

#[test]
fn classic_1_4_a_night_removal_that_decides_the_game_ends_the_night_with_the_victims_last_words() {
    let mut t = table(Classic);
    t.play_night0();
    for victim in [1, 2] {
        t.speeches(&[]);
        t.night(Some(victim));
        t.words();
    }
    // 5 red and 3 black: the kill of 3 alone decides nothing.
    t.speeches(&[]);
    t.ok(Command::StartShooting);
    shoot_all(&mut t, 3);
    assert_eq!(t.outcome(), None);
    t.ok(Command::Disqualify { seat: s(4) });
    assert_eq!(t.outcome().unwrap().winner, Some(Team::Black));
    assert_eq!(out(&t, 3).cause, Cause::Shot);
    assert_eq!(out(&t, 4).cause, Cause::Disqualified);
    assert!(matches!(t.prompt(), Expect::LastWords { seat, .. } if seat == s(3)));
    t.words();
    assert!(t.g.is_over());
}

// ---- discipline after the result (issue 13 §3) ------------------------------

/// Plays a game of kills (seats 1, 2, 3, 4) to the final last words of 4:
/// black wins at 3 against 3.
fn to_the_final_words(rules: RuleSetId) -> Table {
    let mut t = table(rules);
    let mut victim = 1;
    while t.outcome().is_none() {
        match t.prompt() {
            Expect::Night0 { .. } | Expect::FreeTalk => {
                t.ok(Command::NextStep);
            }
            Expect::Speech { seat, .. } => {
                t.ok(Command::EndSpeech {
                    seat,
                    timeout: false,
                });
            }
            Expect::VoteCall { .. } => {
                t.ok(Command::VoteCall { yes: set(&[]) });
            }
            Expect::LastWords { seat, .. } => {
                t.ok(Command::EndLastWords { seat });
            }
            Expect::BeautyPick { .. } => {
                t.ok(Command::BeautyPick { target: None });
            }
            Expect::Shots { .. } => {
                shoot_all(&mut t, victim);
                victim += 1;
            }
            Expect::DonCheck { .. } => {
                t.ok(Command::DonCheck { target: None });
            }
            Expect::SheriffCheck { .. } => {
                t.ok(Command::SheriffCheck { target: None });
            }
            Expect::BestMove { seat } => {
                t.ok(Command::BestMove {
                    seat,
                    named: list(&[]),
                });
            }
            other => panic!("{rules:?}: {other:?}"),
        }
    }
    assert_eq!(t.outcome().unwrap().winner, Some(Team::Black), "{rules:?}");
    assert!(
        matches!(t.prompt(), Expect::LastWords { seat, .. } if seat == s(4)),
        "{rules:?}: {:?}",
        t.prompt()
    );
    t
}

#[test]
fn classic_6_9_rfm_5_15_ua_1_9_discipline_in_the_final_last_words_keeps_the_result() {
    for rules in RuleSetId::ALL {
        let mut t = to_the_final_words(rules);
        let result = t.outcome();
        if rules == Rfm {
            // rfm §5.14: after the deciding kill only insults and obscenity
            // are punished (a penalty, a disqualification), not fouls.
            let v = t.err(Command::Foul { seat: s(5) });
            assert_eq!(
                (v.code, v.clause.as_str()),
                (Code::NoFoulAfterResult, "000 §5.14")
            );
            t.ok(Command::Penalty {
                seat: s(5),
                kind: PenaltyKind::Small,
            });
        } else {
            t.ok(Command::Foul { seat: s(5) });
            assert_eq!(t.g.core().seats[s(5).index()].fouls, 1, "{rules:?}");
        }
        t.ok(Command::Disqualify { seat: s(6) });
        assert_eq!(out(&t, 6).cause, Cause::Disqualified, "{rules:?}");
        assert_eq!(t.outcome(), result, "{rules:?}: the result stands");
        // The speaker himself: his departure stands, his words end.
        t.ok(Command::Disqualify { seat: s(4) });
        assert_eq!(out(&t, 4).cause, Cause::Shot);
        assert!(t.g.is_over(), "{rules:?}");
        assert_eq!(t.outcome(), result);
        assert_eq!(
            t.err(Command::Disqualify { seat: s(5) }).code,
            Code::GameOver,
            "{rules:?}: nothing after the final words"
        );
        let summary = t.g.summary();
        assert_eq!(summary.disqualified_in_last_words, vec![s(4)], "{rules:?}");
        assert_eq!(
            summary.sanctioned_after_result,
            vec![s(4), s(5), s(6)],
            "{rules:?}"
        );
        let protocol =
            mafia_record::Protocol::new(t.record.header(), &t.g, &t.events).to_markdown();
        assert!(
            protocol.contains("4: disqualified in his last words, the result stands"),
            "{rules:?}: {protocol}"
        );
        assert!(
            protocol.contains("6 (removed / удалён) after the result, which stands"),
            "{rules:?}: {protocol}"
        );
    }
}

#[test]
fn classic_5_5_ua_10_10_a_disqualification_in_his_own_last_words_ends_them_and_keeps_his_departure()
{
    for rules in RuleSetId::ALL {
        let mut t = to_the_shooting(rules);
        shoot_all(&mut t, 3);
        t.night(None);
        assert!(matches!(t.prompt(), Expect::LastWords { seat, .. } if seat == s(3)));
        let ev = t.ok(Command::Disqualify { seat: s(3) });
        assert_eq!(ev[0], Event::Disqualified { seat: s(3) }, "{rules:?}");
        assert_eq!(out(&t, 3).cause, Cause::Shot);
        assert!(
            !matches!(t.prompt(), Expect::LastWords { .. }),
            "{rules:?}: {:?}",
            t.prompt()
        );
        assert!(
            !t.saw(|e| matches!(e, Event::VotesCancelled { .. })),
            "{rules:?}"
        );
        assert_eq!(t.g.summary().disqualified_in_last_words, vec![s(3)]);
        assert!(t.g.summary().sanctioned_after_result.is_empty());
    }
    // Voted out: the same.
    let mut t = table(Classic);
    t.play_night0();
    t.speeches(&[(1, 8), (2, 9)]);
    t.vote(8, &[1, 2, 3, 4, 5, 6]);
    t.ok(Command::Disqualify { seat: s(8) });
    assert_eq!(out(&t, 8).cause, Cause::Vote);
    assert!(matches!(t.prompt(), Expect::Shots { .. }));
}

// ---- the exact clause (issue 13 §4) ----------------------------------------

#[test]
fn rfm_4_5_2_classic_3_5_2_minsk2017_4_5_2_ua_5_2_a_shot_by_day_cites_the_shooting_clause() {
    for (rules, clause) in [
        (Rfm, "000 §4.5.2"),
        (Classic, "001 §3.5.2"),
        (Minsk2017, "002 §4.5.2"),
        (Ua, "003 §5.2"),
        (Club, "004 \"ПЕРВАЯ И ПОСЛЕДУЮЩИЕ НОЧИ\""),
    ] {
        let mut t = table(rules);
        t.play_night0();
        let v = t.err(Command::Shot {
            by: s(8),
            target: Some(s(1)),
        });
        assert_eq!((v.code, v.clause.as_str()), (Code::WrongPhase, clause));
        assert_eq!(v.source, rules.source_file());
    }
}

#[test]
fn club_a_nomination_cites_its_day_voting_rules_not_the_fouls_section() {
    let mut t = table(Club);
    t.play_night0();
    let v = t.err(Command::Nominate {
        by: s(1),
        target: s(2),
    });
    assert_eq!(
        (v.code, v.clause.as_str()),
        (Code::NotInRuleSet, "004 \"Правила дневного голосования\"")
    );
    let v = t.err(Command::EndSpeech {
        seat: s(2),
        timeout: false,
    });
    assert_eq!(
        (v.code, v.clause.as_str()),
        (Code::NotYourTurn, "004 \"ПЕРВЫЙ ДЕНЬ\"")
    );
}

// ---- the audit against the sources (session 26) ---------------------------

fn cancelled_votes(t: &Table) -> usize {
    t.events
        .iter()
        .filter(|e| {
            matches!(
                e.event,
                Event::VoteSkipped {
                    reason: NoVote::Cancelled
                }
            )
        })
        .count()
}

#[test]
fn ua_4_20_a_vote_with_a_critical_number_of_votes_is_held_despite_a_removal() {
    // ua: six hands of ten against seat 8 with two nominees still to come:
    // nobody else can reach six, so the vote "counts as held" (§4.20) and
    // a removal now is one after the result (§4.22).
    let mut t = table(Ua);
    t.play_night0();
    t.speeches(&[(1, 8), (2, 9), (3, 5)]);
    t.vote(8, &[1, 2, 3, 4, 5, 6]);
    t.ok(Command::Disqualify { seat: s(7) });
    assert_eq!(out(&t, 8).cause, Cause::Vote);
    assert!(t.alive(9) && t.alive(5));
    assert!(matches!(t.prompt(), Expect::LastWords { seat, .. } if seat == s(8)));
    assert!(t.saw(|e| matches!(
        e,
        Event::VotesCancelled {
            today: false,
            next_days: 1
        }
    )));
    t.words();
    t.night(None);
    t.speeches(&[(1, 9)]);
    assert_eq!(cancelled_votes(&t), 1);
    assert!(t.alive(9));

    // Five of ten with two nominees to come is not decided: the vote is
    // cancelled, as in every rule set before the result.
    let mut t = table(Ua);
    t.play_night0();
    t.speeches(&[(1, 8), (2, 9), (3, 5)]);
    t.vote(8, &[1, 2, 3, 4, 5]);
    t.ok(Command::Disqualify { seat: s(7) });
    assert!(t.alive(8));
    assert!(t.saw(|e| matches!(e, Event::VotesCancelled { today: true, .. })));
    assert!(matches!(t.prompt(), Expect::Shots { .. }));

    // The decided nominee himself removed: he counts as out for this vote,
    // which is not held, and the next day's vote is.
    let mut t = table(Ua);
    t.play_night0();
    t.speeches(&[(1, 8), (2, 9), (3, 5)]);
    t.vote(8, &[1, 2, 3, 4, 5, 6]);
    t.ok(Command::Disqualify { seat: s(8) });
    assert_eq!(out(&t, 8).cause, Cause::Disqualified);
    assert!(t.alive(9) && t.alive(5));
    assert!(t.saw(|e| matches!(
        e,
        Event::VotesCancelled {
            today: true,
            next_days: 0
        }
    )));
    t.night(None);
    t.speeches(&[(1, 9), (2, 5)]);
    assert!(
        matches!(t.prompt(), Expect::Vote { .. }),
        "{:?}",
        t.prompt()
    );

    // classic §6.1 has no such rule: the same removal cancels the vote.
    let mut t = table(Classic);
    t.play_night0();
    t.speeches(&[(1, 8), (2, 9), (3, 5)]);
    t.vote(8, &[1, 2, 3, 4, 5, 6]);
    t.ok(Command::Disqualify { seat: s(7) });
    assert!(t.alive(8));
    assert!(t.saw(|e| matches!(e, Event::VotesCancelled { today: true, .. })));
}

#[test]
fn ua_4_21_removals_in_one_round_reach_no_further_than_the_next_days_vote() {
    let mut t = table(Ua);
    t.play_night0();
    for seat in [3, 4, 5] {
        t.ok(Command::Disqualify { seat: s(seat) });
    }
    t.speeches(&[(1, 8), (2, 9)]);
    t.night(None);
    t.speeches(&[(1, 8), (2, 9)]);
    assert_eq!(cancelled_votes(&t), 2);
    t.night(None);
    // Day 3: the third removal of day 1's round does not reach it.
    t.speeches(&[(1, 8), (2, 9)]);
    assert_eq!(cancelled_votes(&t), 2);
    assert!(
        matches!(t.prompt(), Expect::Vote { .. }),
        "{:?}",
        t.prompt()
    );
}

#[test]
fn rfm_4_7_1_a_removal_at_night_does_not_break_the_quiet_streak_a_removal_by_day_does() {
    // "Nobody leaves by shot or vote (the mafia misses) … and by day no
    // player leaves the table": a night removal is neither.
    let mut t = table(Rfm);
    t.play_night0();
    t.quiet_round();
    t.speeches(&[]);
    t.ok(Command::Disqualify { seat: s(2) });
    t.night(None);
    t.speeches(&[]);
    t.night(None);
    assert_eq!(t.outcome().map(|o| o.reason), Some(EndReason::NoDepartures));

    let mut t = table(Rfm);
    t.play_night0();
    t.quiet_round();
    t.ok(Command::Disqualify { seat: s(2) });
    t.speeches(&[]);
    t.night(None);
    t.speeches(&[]);
    t.night(None);
    assert!(t.outcome().is_none());

    // classic §6.7: "the number of participants unchanged": any removal.
    let mut t = table(Classic);
    t.play_night0();
    t.quiet_round();
    t.speeches(&[]);
    t.ok(Command::Disqualify { seat: s(2) });
    t.night(None);
    t.speeches(&[]);
    t.night(None);
    assert!(t.outcome().is_none());
}

#[test]
fn ua_5_12_a_removal_in_the_second_night_after_the_shot_counts_against_the_best_move() {
    // "Before the end of the second game night": a removal after the shot
    // of that night counts too.
    let mut t = table(Ua);
    t.play_night0();
    t.ok(Command::Disqualify { seat: s(2) });
    t.speeches(&[]);
    shoot_all(&mut t, 1);
    t.ok(Command::Disqualify { seat: s(3) });
    t.night(None);
    assert!(!saw_best_move_step(&t));
    assert!(t.g.core().best_move.is_none());

    // One removal only: the best move stands.
    let mut t = table(Ua);
    t.play_night0();
    t.speeches(&[]);
    shoot_all(&mut t, 1);
    t.ok(Command::Disqualify { seat: s(3) });
    t.night(None);
    assert!(saw_best_move_step(&t));
}

#[test]
fn ua_3_13_thirty_seconds_at_four_players_only_for_a_third_foul_during_or_after_his_speech() {
    // Four players at the table: 1, 5 (red), 7 (Sheriff), 10 (Don).
    let setup = |t: &mut Table| {
        t.play_night0();
        for seat in [8, 9, 2, 3, 4, 6] {
            t.ok(Command::Disqualify { seat: s(seat) });
        }
        assert_eq!(t.g.core().living().len(), 4);
    };
    // A third foul before his speech on the critical round: the speech is lost.
    let mut t = table(Ua);
    setup(&mut t);
    for _ in 0..3 {
        t.ok(Command::Foul { seat: s(5) });
    }
    t.speeches_until(5);
    assert_eq!(turn(&t), (true, None));

    // A third foul after his speech, then the night: 30 seconds.
    let mut t = table(Ua);
    setup(&mut t);
    assert_eq!(muted_turn_after_the_night(&mut t, 5), (false, Some(30)));
}

/// The speaker's turn: (nominations only, its seconds).
fn turn(t: &Table) -> (bool, Option<u16>) {
    let Expect::Speech {
        nominations_only, ..
    } = t.prompt()
    else {
        panic!("not a speech: {:?}", t.prompt())
    };
    (nominations_only, t.secs())
}

/// Plays the day's speeches, gives `seat` three fouls after them, plays
/// the night and returns his turn of the next day.
fn muted_turn_after_the_night(t: &mut Table, seat: u8) -> (bool, Option<u16>) {
    t.speeches(&[]);
    for _ in 0..3 {
        t.ok(Command::Foul { seat: s(seat) });
    }
    t.night(None);
    t.speeches_until(seat);
    turn(t)
}

#[test]
fn rfm_5_5_a_third_foul_at_night_leaves_10_seconds_for_nominations_next_day() {
    // He has spoken his minute of the day: "on the next game day he may only
    // nominate (he is given 10 seconds)".
    let mut t = table(Rfm);
    t.play_night0();
    assert_eq!(muted_turn_after_the_night(&mut t, 5), (true, Some(10)));
}

#[test]
fn rfm_4_4_2_a_nomination_out_of_ones_minute_cites_the_nomination_clause_not_the_speaking_order() {
    for (rules, clause) in [
        (Rfm, "000 §4.4.2"),
        (Classic, "001 §3.4.2"),
        (Minsk2017, "002 §4.4.2"),
        (Ua, "003 §4.2"),
    ] {
        let mut t = table(rules);
        t.play_night0();
        let v = t.err(Command::Nominate {
            by: s(2),
            target: s(8),
        });
        assert_eq!((v.code, v.clause.as_str()), (Code::NotYourTurn, clause));
        // The speaking order itself keeps its clause.
        let v = t.err(Command::EndSpeech {
            seat: s(2),
            timeout: false,
        });
        assert_ne!(v.clause, clause, "{rules:?}");
    }
}

#[test]
fn rfm_4_4_14_ending_another_players_last_words_cites_the_last_words_clause() {
    for (rules, clause) in [
        (Rfm, "000 §4.4.14"),
        (Classic, "001 §3.4.13"),
        (Minsk2017, "002 §4.4.14"),
        (Ua, "003 §4.19"),
    ] {
        let mut t = table(rules);
        t.play_night0();
        t.speeches(&[(1, 8), (2, 9)]);
        t.vote(8, &[1, 2, 3, 4, 5, 6]);
        let v = t.err(Command::EndLastWords { seat: s(9) });
        assert_eq!((v.code, v.clause.as_str()), (Code::NotYourTurn, clause));
    }
}

#[test]
fn club_a_ballot_out_of_turn_cites_the_day_voting_rules_not_the_monologues() {
    let mut t = table(Club);
    t.play_night0();
    t.speeches(&[]);
    t.ok(Command::VoteCall {
        yes: set(&[1, 2, 3, 4, 5]),
    });
    let v = t.err(Command::Ballot {
        voter: s(2),
        target: Some(s(8)),
    });
    assert_eq!(
        (v.code, v.clause.as_str()),
        (Code::NotYourTurn, "004 \"Правила дневного голосования\"")
    );
}

#[test]
fn rfm_4_5_5_classic_3_5_5_minsk2017_4_5_5_ua_5_5_a_black_player_shooting_two_seats_makes_a_miss() {
    // rfm §4.5.5 "shoots at several players" (the tactical miss of rfm
    // §6.5.9.4.5: "he must shoot at two different players"), classic
    // §3.5.5, minsk2017 §4.5.5 "more than once", ua §5.5 "at different
    // players": a miss. The judge counts on after every black hand went up
    // on seat 3; seat 8's hand at seat 6 comes after the kill was entered.
    for rules in [Rfm, Classic, Minsk2017, Ua] {
        let mut t = to_the_shooting(rules);
        shoot_all(&mut t, 3);
        assert!(matches!(t.prompt(), Expect::DonCheck { .. }), "{rules:?}");
        t.ok(Command::Shot {
            by: s(8),
            target: Some(s(6)),
        });
        assert!(matches!(t.prompt(), Expect::DonCheck { .. }), "{rules:?}");
        t.night(None);
        assert!(t.alive(3), "{rules:?}");
        assert!(!announced_killed(&t, 3), "{rules:?}");
        // Once the Don has checked, the count is long over.
        let mut t = to_the_shooting(rules);
        shoot_all(&mut t, 3);
        t.ok(Command::DonCheck { target: None });
        assert_eq!(
            t.err(Command::Shot {
                by: s(8),
                target: Some(s(6))
            })
            .code,
            Code::WrongPhase
        );
    }
    // Two shots on one seat by the same player are one shot entered twice.
    let mut t = to_the_shooting(Rfm);
    t.ok(Command::Shot {
        by: s(8),
        target: Some(s(3)),
    });
    let v = t.err(Command::Shot {
        by: s(8),
        target: Some(s(3)),
    });
    assert_eq!(v.code, Code::AlreadyShot);
    // club: "a mafioso may shoot only once" is a night rule, its breach a foul.
    let mut t = to_the_shooting(Club);
    shoot_all(&mut t, 3);
    assert_eq!(
        t.err(Command::Shot {
            by: s(8),
            target: Some(s(6))
        })
        .code,
        Code::WrongPhase
    );
}
