//! Nothing forged, nothing leaked, nothing unbounded (issue 36): drawn
//! deals committed at the opening and revealed at the end, conflicting
//! resends, judges' clocks, and who may open games where.

mod common;

use common::*;
use mafia_event_log::EventLog;
use mafia_proto::convert::request_from_header;
use mafia_proto::v1;
use mafia_record::{GameId, Header, LoggedEvent};
use mafia_rules::setup::deal_from_seed;
use mafia_rules::{Command, Commitment, Deal, Drawn, Event, RuleSetId};
use std::sync::Arc;
use tonic::Code;

fn drawn_header(table: u32) -> Header {
    let mut h = header(table, RuleSetId::Rfm, 0);
    h.deal = Deal::Drawn(Drawn::default());
    h
}

fn game_id(table: u32) -> GameId {
    format!("cup.main.r1.t{table}.g1").parse().unwrap()
}

async fn stored_events(log: &Arc<dyn EventLog>, game: &GameId) -> Vec<LoggedEvent> {
    let page = log.read(&game.to_string(), 1, 10_000).await.unwrap();
    page.iter()
        .map(|e| serde_json::from_slice(&e.payload).unwrap())
        .collect()
}

/// Everything a client could be sent about the game now, as text: the
/// OpenGame replies (judge's and organiser's), GetGame in every audience,
/// the opening events WatchGame sends in every audience, and what the log
/// holds for the services that follow it (the game's header and events).
async fn everything_said(
    r: &mafia_referee::RunningReferee,
    log: &Arc<dyn EventLog>,
    h: &Header,
) -> String {
    let mut c = raw(r).await;
    let mut said = String::new();
    for token in [CHIEF, ORGANISER] {
        let opened = c
            .open_game(with_token(request_from_header(h, 1), token))
            .await
            .unwrap()
            .into_inner();
        said.push_str(&format!("{opened:?}\n"));
    }
    let game = game_id(h.table).to_string();
    for audience in [
        v1::Audience::Judge,
        v1::Audience::Broadcast,
        v1::Audience::Public,
    ] {
        let got = c
            .get_game(with_token(
                v1::GetGameRequest {
                    game_id: game.clone(),
                    audience: audience as i32,
                },
                CHIEF,
            ))
            .await
            .unwrap()
            .into_inner();
        said.push_str(&format!("{got:?}\n"));
        let mut watch = c
            .watch_game(with_token(
                v1::WatchGameRequest {
                    game_id: game.clone(),
                    audience: audience as i32,
                    from_seq: 1,
                },
                CHIEF,
            ))
            .await
            .unwrap()
            .into_inner();
        for _ in &got.events {
            said.push_str(&format!("{:?}\n", watch.message().await.unwrap().unwrap()));
        }
    }
    let stored = log.header(&game).await.unwrap().unwrap();
    said.push_str(&String::from_utf8_lossy(&stored));
    for e in log.read(&game, 1, 10_000).await.unwrap() {
        said.push_str(&String::from_utf8_lossy(&e.payload));
    }
    said
}

async fn a_drawn_deal_is_committed_at_the_opening_and_revealed_only_at_the_end(b: Backend) {
    let log = b.log().await;
    let r = start(log.clone(), options()).await;
    let h = drawn_header(3);
    let game = game_id(3);
    let said = everything_said(&r, &log, &h).await;
    let secret = mafia_referee::sealed::stored(log.as_ref(), &game)
        .await
        .unwrap()
        .expect("the referee keeps the secret");
    let commitment = secret.commitment().to_string();
    assert!(said.contains(&commitment), "the commitment is published");
    let salt = secret.salt.to_string();
    let seed = secret.seed().to_string();
    assert!(!said.contains(&salt), "the salt leaked before the end");
    assert!(!said.contains(&seed), "the seed leaked before the end");

    // Played to its end by a judge who knows the cards, not the seed.
    let report = mafia_judge_client::simulate_game(referee(vec![url(&r)], TABLE3), &h, 5, None)
        .await
        .unwrap();
    assert_eq!(report.games_finished, 1);
    let events = stored_events(&log, &game).await;
    let revealed = events.last().unwrap();
    let Event::DealRevealed(revealed) = revealed.envelope.event else {
        panic!("the last event is the reveal: {revealed:?}")
    };
    let (seed, salt) = (revealed.seed(), revealed.salt);
    let Event::Dealt { roles } = events[0].envelope.event else {
        panic!("the first event is the deal")
    };
    // Anyone can check: the reveal matches the commitment published at
    // the opening, and deals the cards the game was played with.
    assert_eq!(Commitment::of(seed, &salt).to_string(), commitment);
    let cards = mafia_rules::RuleSet::preset(RuleSetId::Rfm).params.cards;
    assert_eq!(deal_from_seed(&cards, seed), roles);
    // The public sees the reveal, and a watcher gets it as the game's last
    // event.
    let mut c = raw(&r).await;
    let mut watch = c
        .watch_game(with_token(
            v1::WatchGameRequest {
                game_id: game.to_string(),
                audience: v1::Audience::Public as i32,
                from_seq: 1,
            },
            CHIEF,
        ))
        .await
        .unwrap()
        .into_inner();
    let mut last = None;
    while let Some(e) = watch.message().await.unwrap() {
        last = Some(e);
    }
    let last = last.unwrap();
    assert!(last.game_over);
    assert_eq!(last.event.unwrap().r#type, "deal_revealed");
    drop(log);
    r.shutdown().await;
}

async fn a_drawn_deal_cannot_be_opened_with_a_commitment_of_the_callers(b: Backend) {
    let r = start(b.log().await, options()).await;
    let mut c = raw(&r).await;
    let mut h = drawn_header(4);
    h.deal = Deal::Drawn(Drawn {
        commitment: Some(Commitment([7; 32])),
        seed: None,
        salt: None,
    });
    let err = c
        .open_game(with_token(request_from_header(&h, 1), CHIEF))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
    r.shutdown().await;
}

/// A Judge stream attached to `game`, past its Attached, with no replays
/// asked for.
async fn attached(
    r: &mafia_referee::RunningReferee,
    game: &str,
) -> (
    tokio::sync::mpsc::Sender<v1::JudgeCommand>,
    tonic::Streaming<v1::RefereeReply>,
) {
    let mut c = raw(r).await;
    let (tx, mut rx) = judge_with(&mut c, TABLE3).await;
    tx.send(attach(game, u64::MAX)).await.unwrap();
    let first = rx.message().await.unwrap().unwrap().kind.unwrap();
    assert!(matches!(first, v1::referee_reply::Kind::Attached(_)));
    (tx, rx)
}

async fn open_seeded(
    r: &mafia_referee::RunningReferee,
    seed: u64,
) -> (String, Vec<(i64, Command)>) {
    let (h, cmds, _) = simulated(3, seed);
    let mut c = raw(r).await;
    let opened = c
        .open_game(with_token(request_from_header(&h, 1), TABLE3))
        .await
        .unwrap()
        .into_inner();
    (opened.game_id, cmds)
}

async fn a_different_command_under_an_accepted_client_seq_is_a_conflict(b: Backend) {
    let log = b.log().await;
    let r = start(log.clone(), options()).await;
    let (game, cmds) = open_seeded(&r, 31).await;
    let (tx, mut rx) = attached(&r, &game).await;
    let (at, cmd) = &cmds[0];
    tx.send(submit(1, *at, cmd)).await.unwrap();
    rx.message().await.unwrap().unwrap();
    let stored = log.last_seq(&game).await.unwrap();
    // The same command again is a resend, acknowledged again.
    tx.send(submit(1, *at, cmd)).await.unwrap();
    match rx.message().await.unwrap().unwrap().kind.unwrap() {
        v1::referee_reply::Kind::Accepted(a) => assert!(a.duplicate),
        other => panic!("{other:?}"),
    }
    // A second judge's different command under the same number is not.
    let (tx2, mut rx2) = attached(&r, &game).await;
    let other = cmds.iter().map(|(_, c)| c).find(|c| *c != cmd).unwrap();
    tx2.send(submit(1, *at, other)).await.unwrap();
    let err = rx2.message().await.unwrap_err();
    assert_eq!(err.code(), Code::AlreadyExists, "{err:?}");
    assert!(err.message().contains("conflicting resend"), "{err:?}");
    // Nor the same command at another time.
    let (tx3, mut rx3) = attached(&r, &game).await;
    tx3.send(submit(1, *at + 1, cmd)).await.unwrap();
    assert_eq!(rx3.message().await.unwrap_err().code(), Code::AlreadyExists);
    assert_eq!(log.last_seq(&game).await.unwrap(), stored, "nothing stored");
    drop((tx, tx2, tx3, log));
    r.shutdown().await;
}

fn rejected_code(k: v1::referee_reply::Kind) -> String {
    match k {
        v1::referee_reply::Kind::Rejected(r) => r.violation.unwrap().code,
        other => panic!("expected Rejected, got {other:?}"),
    }
}

async fn a_command_dated_before_the_last_event_or_far_ahead_is_refused(b: Backend) {
    let log = b.log().await;
    let r = start(log.clone(), options()).await;
    let (game, cmds) = open_seeded(&r, 32).await;
    let (tx, mut rx) = attached(&r, &game).await;
    let (at, cmd) = &cmds[0];
    tx.send(submit(1, *at, cmd)).await.unwrap();
    rx.message().await.unwrap().unwrap();
    let stored = log.last_seq(&game).await.unwrap();
    let (_, next) = &cmds[1];
    for (when, code) in [(*at - 1, "time_backwards"), (i64::MAX, "time_ahead")] {
        tx.send(submit(2, when, next)).await.unwrap();
        let reply = rx.message().await.unwrap().unwrap().kind.unwrap();
        assert_eq!(rejected_code(reply), code);
    }
    assert_eq!(log.last_seq(&game).await.unwrap(), stored, "nothing stored");
    // The stream stays open, and the same number takes a good time.
    tx.send(submit(2, *at, next)).await.unwrap();
    match rx.message().await.unwrap().unwrap().kind.unwrap() {
        v1::referee_reply::Kind::Accepted(a) => assert!(!a.duplicate),
        other => panic!("{other:?}"),
    }
    // A game cannot be opened far ahead of the referee's clock either.
    let mut c = raw(&r).await;
    let err = c
        .open_game(with_token(
            request_from_header(&header(5, RuleSetId::Ua, 1), i64::MAX),
            CHIEF,
        ))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
    drop((tx, log));
    r.shutdown().await;
}

async fn opening_needs_a_tournament_the_caller_may_act_in(b: Backend) {
    let log = b.log().await;
    let r = start(log.clone(), options()).await;
    let mut c = raw(&r).await;
    let mut h = header(1, RuleSetId::Rfm, 9);
    h.tournament_id = Some("made-up-7".parse().unwrap());
    let err = c
        .open_game(with_token(request_from_header(&h, 1), TABLE1_ANYWHERE))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::PermissionDenied, "{err:?}");
    assert!(err.message().contains("not held"), "{err:?}");
    assert!(log
        .header("made-up-7.main.r1.t1.g1")
        .await
        .unwrap()
        .is_none());
    // Once the scoring service holds the tournament, its digital deals are
    // drawn by the referee: a seed of the caller's is refused, a drawn deal
    // opens.
    hold(&log, &h).await;
    let err = c
        .open_game(with_token(request_from_header(&h, 1), TABLE1_ANYWHERE))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
    h.deal = Deal::Drawn(Drawn::default());
    let opened = c
        .open_game(with_token(request_from_header(&h, 1), TABLE1_ANYWHERE))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(opened.deal_commitment.len(), 64);
    // A held tournament opens only the games it assigned, with its seating.
    let mut other = h.clone();
    let (a, b) = (other.seats[2].clone(), other.seats[3].clone());
    (other.seats[2].player_id, other.seats[3].player_id) = (b.player_id, a.player_id);
    let err = c
        .open_game(with_token(request_from_header(&other, 1), TABLE1_ANYWHERE))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition, "{err:?}");
    assert!(err.message().contains("seat 3: the round seats"), "{err:?}");
    let mut unplanned = h.clone();
    unplanned.game = 2;
    let err = c
        .open_game(with_token(
            request_from_header(&unplanned, 1),
            TABLE1_ANYWHERE,
        ))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition, "{err:?}");
    assert!(err.message().contains("not assigned"), "{err:?}");
    assert!(log
        .header("made-up-7.main.r1.t1.g2")
        .await
        .unwrap()
        .is_none());
    // A judge whose token names the tournament opens in it as before.
    let opened = c
        .open_game(with_token(
            request_from_header(&header(3, RuleSetId::Rfm, 9), 1),
            TABLE3,
        ))
        .await
        .unwrap()
        .into_inner();
    assert!(opened.created);
    drop(log);
    r.shutdown().await;
}

both_backends!(
    a_drawn_deal_is_committed_at_the_opening_and_revealed_only_at_the_end,
    a_drawn_deal_cannot_be_opened_with_a_commitment_of_the_callers,
    a_different_command_under_an_accepted_client_seq_is_a_conflict,
    a_command_dated_before_the_last_event_or_far_ahead_is_refused,
    opening_needs_a_tournament_the_caller_may_act_in,
);

/// Puts the tournament of `h`'s game in the log as the scoring service
/// holds it: `h`'s players registered, seated in `h`'s order at its table
/// in round 1, and its game assigned.
async fn hold(log: &Arc<dyn EventLog>, h: &Header) {
    use mafia_tournament::{stored, Actor, Tournament, TournamentCommand, TournamentSpec};
    let game = h.game_id().unwrap();
    let spec: TournamentSpec = serde_json::from_value(serde_json::json!({
        "id": game.tournament.to_string(), "name": "Made up", "rules": h.rules.id,
        "scheme": mafia_tournament::Scheme::rfm(),
    }))
    .unwrap();
    let created = Tournament::create(spec, &Actor::Organiser, 1).unwrap();
    let mut t = Tournament::from_created(&created).unwrap();
    let seats: Vec<String> = h.seats.iter().map(|s| s.player_id.clone()).collect();
    let mut commands: Vec<serde_json::Value> =
        vec![serde_json::json!({"type": "add_stage", "stage": {
        "id": game.stage.to_string(), "name": "Main", "rounds": 1, "tables": game.table}})];
    for s in &h.seats {
        commands.push(serde_json::json!({"type": "register_player",
            "player": {"id": s.player_id, "nickname": s.nickname}}));
    }
    commands.push(
        serde_json::json!({"type": "seat_round", "stage": game.stage.to_string(),
        "round": game.round, "tables": [{"table": game.table, "seats": seats}]}),
    );
    commands.push(serde_json::json!({"type": "assign_game", "game": game.to_string()}));
    let mut payloads = Vec::new();
    for c in commands {
        let c: TournamentCommand = serde_json::from_value(c).unwrap();
        for e in t.command(&c, &Actor::Organiser, 1).unwrap() {
            t.apply(&e);
            payloads.push(bytes::Bytes::from(stored::encode(&e)));
        }
    }
    let stream = stored::stream_of(&game.tournament);
    log.create_game(&stream, &stored::encode(&created))
        .await
        .unwrap();
    log.append(&stream, 0, 0, &payloads).await.unwrap();
}
