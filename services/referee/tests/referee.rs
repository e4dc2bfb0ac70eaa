//! The referee over real loopback gRPC, against both event-log backends.

mod common;

use common::*;
use mafia_judge_client::{play, JudgeSession, Record};
use mafia_proto::convert::request_from_header;
use mafia_proto::v1;
use mafia_referee::RefereeOptions;
use mafia_rules::{Command, RuleSetId, Seat};
use std::time::Duration;
use tokio_stream::StreamExt;
use tonic::Code;

fn record(table: u32, seed: u64) -> (Record, usize) {
    let (header, cmds, events) = simulated(table, seed);
    let commands = cmds
        .into_iter()
        .enumerate()
        .map(|(i, (at, c))| (i + 2, at, c))
        .collect();
    (Record { header, commands }, events)
}

async fn a_recorded_game_plays_to_the_end_and_every_event_is_stored(b: Backend) {
    let log = b.log().await;
    let r = start(log.clone(), options()).await;
    let (rec, n_events) = record(3, 11);
    let report = play(referee(vec![url(&r)], TABLE3), &rec, None)
        .await
        .unwrap();
    assert!(report.over);
    assert_eq!(report.sent, rec.commands.len());
    let key = mafia_referee::keys::parse_game_id(&report.game_id.to_string())
        .unwrap()
        .to_string();
    assert_eq!(log.last_seq(&key).await.unwrap(), n_events as u64);

    let mut c = raw(&r).await;
    let got = c
        .get_game(with_token(
            v1::GetGameRequest {
                game_id: report.game_id.to_string(),
                audience: v1::Audience::Public as i32,
            },
            CHIEF,
        ))
        .await
        .unwrap()
        .into_inner();
    // Once over, the public sees the whole history.
    assert_eq!(got.events.len(), n_events);
    assert!(got.state.unwrap().over);
    drop(log);
    r.shutdown().await;
}

async fn opening_a_game_twice_is_idempotent_and_a_different_header_conflicts(b: Backend) {
    let r = start(b.log().await, options()).await;
    let mut c = raw(&r).await;
    let h = header(5, RuleSetId::Classic, 1);
    let req = request_from_header(&h, 1000);
    let first = c
        .open_game(with_token(req.clone(), CHIEF))
        .await
        .unwrap()
        .into_inner();
    let again = c
        .open_game(with_token(req.clone(), CHIEF))
        .await
        .unwrap()
        .into_inner();
    assert!(first.created && !again.created);
    assert_eq!(first.game_id, "cup.main.r1.t5.g1");
    assert_eq!(first.state.unwrap().seq, again.state.unwrap().seq);
    let mut other = req;
    other.deal = Some(v1::open_game_request::Deal::Seed(2));
    let err = c.open_game(with_token(other, CHIEF)).await.unwrap_err();
    assert_eq!(err.code(), Code::AlreadyExists);
    r.shutdown().await;
}

/// Opens table 3's game and returns its id and the game's first commands.
async fn open_simulated(
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

async fn judge_stream(
    r: &mafia_referee::RunningReferee,
    token: &str,
) -> (
    tokio::sync::mpsc::Sender<v1::JudgeCommand>,
    Result<tonic::Streaming<v1::RefereeReply>, tonic::Status>,
) {
    try_judge_with(&mut raw(r).await, token).await
}

async fn next(rx: &mut tonic::Streaming<v1::RefereeReply>) -> v1::referee_reply::Kind {
    rx.message().await.unwrap().unwrap().kind.unwrap()
}

fn accepted(k: v1::referee_reply::Kind) -> v1::Accepted {
    match k {
        v1::referee_reply::Kind::Accepted(a) => a,
        other => panic!("expected Accepted, got {other:?}"),
    }
}

async fn a_resent_command_is_acknowledged_again_and_never_applied_twice(b: Backend) {
    let log = b.log().await;
    let r = start(log.clone(), options()).await;
    let (game_id, cmds) = open_simulated(&r, 21).await;
    let (tx, rx) = judge_stream(&r, TABLE3).await;
    let mut rx = rx.unwrap();
    tx.send(attach(&game_id, 0)).await.unwrap();
    assert!(matches!(
        next(&mut rx).await,
        v1::referee_reply::Kind::Attached(_)
    ));
    let (at, cmd) = &cmds[0];
    tx.send(submit(1, *at, cmd)).await.unwrap();
    let first = accepted(next(&mut rx).await);
    let key = mafia_referee::keys::parse_game_id(&game_id)
        .unwrap()
        .to_string();
    let stored = log.last_seq(&key).await.unwrap();
    tx.send(submit(1, *at, cmd)).await.unwrap();
    let again = accepted(next(&mut rx).await);
    assert!(again.duplicate && !first.duplicate);
    assert_eq!(again.events, first.events);
    assert_eq!(log.last_seq(&key).await.unwrap(), stored);
    drop((tx, rx, log));
    r.shutdown().await;
}

async fn a_reconnecting_judge_receives_the_acks_it_missed(b: Backend) {
    let r = start(b.log().await, options()).await;
    let (game_id, cmds) = open_simulated(&r, 22).await;
    let (tx, rx) = judge_stream(&r, TABLE3).await;
    let mut rx = rx.unwrap();
    tx.send(attach(&game_id, 0)).await.unwrap();
    next(&mut rx).await;
    let mut sent = Vec::new();
    for (i, (at, cmd)) in cmds.iter().take(3).enumerate() {
        tx.send(submit(i as u64 + 1, *at, cmd)).await.unwrap();
        sent.push(accepted(next(&mut rx).await));
    }
    drop((tx, rx));
    // The judge saw only the first ack before the connection dropped.
    let (tx, rx) = judge_stream(&r, TABLE3).await;
    let mut rx = rx.unwrap();
    tx.send(attach(&game_id, 1)).await.unwrap();
    let v1::referee_reply::Kind::Attached(a) = next(&mut rx).await else {
        panic!("expected Attached")
    };
    assert_eq!(a.state.unwrap().last_client_seq, 3);
    for k in 2..=3u64 {
        let re = accepted(next(&mut rx).await);
        assert!(re.replayed);
        assert_eq!(re.client_seq, k);
        assert_eq!(re.events, sent[k as usize - 1].events);
    }
    // And the stream goes on with the next number.
    let (at, cmd) = &cmds[3];
    tx.send(submit(4, *at, cmd)).await.unwrap();
    assert_eq!(accepted(next(&mut rx).await).client_seq, 4);
    drop((tx, rx));
    r.shutdown().await;
}

async fn acks_carry_the_state_unless_the_stream_omits_it(b: Backend) {
    let r = start(b.log().await, options()).await;
    let (game_id, cmds) = open_simulated(&r, 24).await;

    // With omit_state: events only, on new, duplicate and replayed acks.
    let (tx, rx) = judge_stream(&r, TABLE3).await;
    let mut rx = rx.unwrap();
    tx.send(attach_omitting_state(&game_id, 0)).await.unwrap();
    let v1::referee_reply::Kind::Attached(a) = next(&mut rx).await else {
        panic!("expected Attached")
    };
    assert!(a.state.is_some(), "Attached keeps the state");
    for (i, (at, cmd)) in cmds.iter().take(2).enumerate() {
        tx.send(submit(i as u64 + 1, *at, cmd)).await.unwrap();
        let ack = accepted(next(&mut rx).await);
        assert_eq!(ack.client_seq, i as u64 + 1);
        assert!(!ack.events.is_empty());
        assert!(ack.state.is_none());
    }
    let (at, cmd) = &cmds[1];
    tx.send(submit(2, *at, cmd)).await.unwrap();
    let again = accepted(next(&mut rx).await);
    assert!(again.duplicate && !again.events.is_empty() && again.state.is_none());
    drop((tx, rx));
    let (tx, rx) = judge_stream(&r, TABLE3).await;
    let mut rx = rx.unwrap();
    tx.send(attach_omitting_state(&game_id, 1)).await.unwrap();
    next(&mut rx).await;
    let re = accepted(next(&mut rx).await);
    assert!(re.replayed && !re.events.is_empty() && re.state.is_none());
    drop((tx, rx));

    // Without it: the same acks carry the state after the command.
    let (tx, rx) = judge_stream(&r, TABLE3).await;
    let mut rx = rx.unwrap();
    tx.send(attach(&game_id, 2)).await.unwrap();
    next(&mut rx).await;
    let (at, cmd) = &cmds[2];
    tx.send(submit(3, *at, cmd)).await.unwrap();
    let ack = accepted(next(&mut rx).await);
    assert!(!ack.events.is_empty());
    let state = ack.state.expect("the state after the command");
    assert_eq!(state.last_client_seq, 3);
    assert!(!state.view_json.is_empty() && !state.prompt_json.is_empty());
    tx.send(submit(3, *at, cmd)).await.unwrap();
    let again = accepted(next(&mut rx).await);
    assert!(again.duplicate && !again.events.is_empty() && again.state.is_some());
    drop((tx, rx));
    r.shutdown().await;
}

async fn an_illegal_command_is_rejected_and_the_stream_stays_open(b: Backend) {
    let log = b.log().await;
    let r = start(log.clone(), options()).await;
    let (game_id, cmds) = open_simulated(&r, 23).await;
    let key = mafia_referee::keys::parse_game_id(&game_id)
        .unwrap()
        .to_string();
    let before = log.last_seq(&key).await.unwrap();
    let (tx, rx) = judge_stream(&r, TABLE3).await;
    let mut rx = rx.unwrap();
    tx.send(attach(&game_id, 0)).await.unwrap();
    next(&mut rx).await;
    // Night 0 expects next_step; a vote is out of place.
    let bad = Command::Vote {
        nominee: Seat::new(1).unwrap(),
        hands: Default::default(),
    };
    tx.send(submit(1, 5, &bad)).await.unwrap();
    let v1::referee_reply::Kind::Rejected(rej) = next(&mut rx).await else {
        panic!("expected Rejected")
    };
    assert_eq!(rej.violation.unwrap().code, "wrong_phase");
    // Malformed JSON is rejected the same way.
    tx.send(v1::JudgeCommand {
        kind: Some(v1::judge_command::Kind::Submit(v1::Submit {
            client_seq: 1,
            at: 5,
            body: Some(v1::submit::Body::CommandJson(
                "{\"type\":\"no_such\"}".into(),
            )),
        })),
    })
    .await
    .unwrap();
    let v1::referee_reply::Kind::Rejected(rej) = next(&mut rx).await else {
        panic!("expected Rejected")
    };
    assert_eq!(rej.violation.unwrap().code, "malformed_command");
    assert_eq!(log.last_seq(&key).await.unwrap(), before);
    // The rejected number is used again by the next command.
    let (at, cmd) = &cmds[0];
    tx.send(submit(1, *at, cmd)).await.unwrap();
    assert_eq!(accepted(next(&mut rx).await).client_seq, 1);
    drop((tx, rx, log));
    r.shutdown().await;
}

async fn a_sequence_gap_ends_the_stream_with_failed_precondition(b: Backend) {
    let r = start(b.log().await, options()).await;
    let (game_id, cmds) = open_simulated(&r, 24).await;
    let (tx, rx) = judge_stream(&r, TABLE3).await;
    let mut rx = rx.unwrap();
    tx.send(attach(&game_id, 0)).await.unwrap();
    next(&mut rx).await;
    let (at, cmd) = &cmds[0];
    tx.send(submit(5, *at, cmd)).await.unwrap();
    let err = rx.message().await.unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition);
    assert!(err.message().contains("sequence gap"), "{}", err.message());
    drop((tx, rx));
    r.shutdown().await;
}

async fn tokens_are_checked_against_the_table(b: Backend) {
    let r = start(b.log().await, options()).await;
    let mut c = raw(&r).await;
    let req4 = request_from_header(&header(4, RuleSetId::Ua, 1), 0);
    // No token, an unknown token, a table-3 token on table 4.
    let err = c.open_game(req4.clone()).await.unwrap_err();
    assert_eq!(err.code(), Code::Unauthenticated);
    let err = c
        .open_game(with_token(req4.clone(), "forged"))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Unauthenticated);
    let err = c
        .open_game(with_token(req4.clone(), TABLE3))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::PermissionDenied);
    // The chief opens it; the table-3 judge still may not judge it.
    let opened = c
        .open_game(with_token(req4, CHIEF))
        .await
        .unwrap()
        .into_inner();
    let (tx, rx) = judge_stream(&r, TABLE3).await;
    let mut rx = rx.unwrap();
    tx.send(attach(&opened.game_id, 0)).await.unwrap();
    assert_eq!(
        rx.message().await.unwrap_err().code(),
        Code::PermissionDenied
    );
    let err = c
        .get_game(with_token(
            v1::GetGameRequest {
                game_id: opened.game_id.clone(),
                audience: 0,
            },
            TABLE3,
        ))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::PermissionDenied);
    drop((tx, rx));
    r.shutdown().await;
}

async fn an_unknown_game_is_not_found(b: Backend) {
    let r = start(b.log().await, options()).await;
    let mut c = raw(&r).await;
    let err = c
        .get_game(with_token(
            v1::GetGameRequest {
                game_id: "cup.main.r9.t9.g9".into(),
                audience: 0,
            },
            CHIEF,
        ))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::NotFound);
    let (tx, rx) = judge_stream(&r, CHIEF).await;
    let mut rx = rx.unwrap();
    tx.send(attach("cup.main.r9.t9.g9", 0)).await.unwrap();
    assert_eq!(rx.message().await.unwrap_err().code(), Code::NotFound);
    drop((tx, rx));
    r.shutdown().await;
}

async fn a_malformed_or_huge_game_id_is_invalid_argument_with_a_short_message(b: Backend) {
    let r = start(b.log().await, options()).await;
    let mut c = raw(&r).await;
    for bad in [
        "cup.r1.t3.g1".to_owned(),
        "x".repeat(60_000),
        "cup.main.r1.t3.g1/..".into(),
    ] {
        let err = c
            .get_game(with_token(
                v1::GetGameRequest {
                    game_id: bad.clone(),
                    audience: 0,
                },
                CHIEF,
            ))
            .await
            .unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument, "{:.80}", err.message());
        assert!(err.message().len() < 120, "{:.200}", err.message());
        let (tx, rx) = judge_stream(&r, CHIEF).await;
        let mut rx = rx.unwrap();
        tx.send(attach(&bad, 0)).await.unwrap();
        let err = rx.message().await.unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument);
        assert!(err.message().len() < 120);
    }
    r.shutdown().await;
}

async fn the_bearer_scheme_is_read_in_any_case(b: Backend) {
    let r = start(b.log().await, options()).await;
    let mut c = raw(&r).await;
    for scheme in ["bearer", "BEARER", "Bearer"] {
        let mut req = tonic::Request::new(request_from_header(&header(3, RuleSetId::Rfm, 1), 0));
        req.metadata_mut().insert(
            "authorization",
            format!("{scheme} {CHIEF}").parse().unwrap(),
        );
        c.open_game(req).await.unwrap();
    }
    let mut req = tonic::Request::new(request_from_header(&header(3, RuleSetId::Rfm, 1), 0));
    req.metadata_mut()
        .insert("authorization", CHIEF.parse().unwrap());
    assert_eq!(
        c.open_game(req).await.unwrap_err().code(),
        Code::Unauthenticated
    );
    r.shutdown().await;
}

async fn an_oversized_message_is_refused_and_others_are_still_served(b: Backend) {
    let r = start(b.log().await, options()).await;
    let mut c = raw(&r).await;
    let mut req = request_from_header(&header(3, RuleSetId::Rfm, 1), 0);
    req.judge = "x".repeat(200_000);
    let err = c.open_game(with_token(req, CHIEF)).await.unwrap_err();
    assert!(
        matches!(err.code(), Code::OutOfRange | Code::ResourceExhausted),
        "{err:?}"
    );
    let ok = request_from_header(&header(3, RuleSetId::Rfm, 1), 0);
    c.open_game(with_token(ok, CHIEF)).await.unwrap();
    r.shutdown().await;
}

async fn an_oversized_submit_ends_the_judge_stream_with_out_of_range(b: Backend) {
    let r = start(b.log().await, options()).await;
    let (game_id, _) = open_simulated(&r, 25).await;
    let (tx, rx) = judge_stream(&r, TABLE3).await;
    let mut rx = rx.unwrap();
    tx.send(attach(&game_id, 0)).await.unwrap();
    next(&mut rx).await;
    tx.send(v1::JudgeCommand {
        kind: Some(v1::judge_command::Kind::Submit(v1::Submit {
            client_seq: 1,
            at: 5,
            body: Some(v1::submit::Body::CommandJson("x".repeat(100_000))),
        })),
    })
    .await
    .unwrap();
    let err = rx.message().await.unwrap_err();
    assert_eq!(err.code(), Code::OutOfRange, "{err:?}");
    drop((tx, rx));
    r.shutdown().await;
}

/// issue 15: tonic ignores `.tcp_nodelay` for an incoming stream; without
/// it every unary reply's trailer waits ~40 ms for Nagle.
async fn every_accepted_socket_has_tcp_nodelay(b: Backend) {
    let r = start(b.log().await, options()).await;
    let client = tokio::net::TcpStream::connect(r.addr).await.unwrap();
    let local = client.local_addr().unwrap();
    let mut nodelay = None;
    // The accept runs on the server's task: wait for the socket to exist.
    for _ in 0..200 {
        nodelay = mafia_event_log::testing::net::accepted_nodelay(r.addr, local).unwrap();
        if nodelay.is_some() {
            break;
        }
        tokio::task::yield_now().await;
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(nodelay, Some(true));
    drop(client);
    r.shutdown().await;
}

/// A peer that opened an HTTP/2 connection and then went silent (a judge's
/// laptop off the network) is pinged, and closed when it does not answer:
/// it must not hold its streams for ever.
async fn an_http2_peer_that_answers_no_ping_is_closed(b: Backend) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let r = start(
        b.log().await,
        RefereeOptions {
            connections: mafia_proto::serve::Connections {
                keepalive: Duration::from_millis(300),
                ..Default::default()
            },
            ..options()
        },
    )
    .await;
    let mut tcp = tokio::net::TcpStream::connect(r.addr).await.unwrap();
    // The client preface and an empty SETTINGS frame; then nothing, not
    // even the ack of the server's settings or of its pings.
    tcp.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\0\x04\0\0\0\0\0")
        .await
        .unwrap();
    let mut got = Vec::new();
    let ended = tokio::time::timeout(Duration::from_secs(20), tcp.read_to_end(&mut got)).await;
    assert!(ended.is_ok(), "still open after 20 s; read {got:?}");
    // A PING frame (type 6) came before the end.
    assert!(
        got.windows(4).any(|w| w[0] == 0 && w[1] == 8 && w[2] == 6),
        "no ping in {got:?}"
    );
    r.shutdown().await;
}

/// A connection that never finishes a request (silent, trickling a head,
/// or kept alive after its answer) is closed after the header timeout: none
/// holds a descriptor and a task for ever.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_that_sends_no_whole_request_head_is_closed_after_the_header_timeout() {
    let b = Backend::embedded();
    let r = start(b.log().await, short_header_timeout()).await;
    mafia_proto::testing::assert_http1_connections_without_a_request_are_closed(
        r.addr,
        Duration::from_secs(20),
    )
    .await;
    r.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_http2_connection_outlives_the_header_timeout() {
    let b = Backend::embedded();
    let r = start(b.log().await, short_header_timeout()).await;
    mafia_proto::testing::assert_an_idle_http2_connection_is_kept(r.addr, Duration::from_secs(3))
        .await;
    r.shutdown().await;
}

async fn a_finished_game_rejects_further_commands_with_game_over(b: Backend) {
    let r = start(b.log().await, options()).await;
    let (rec, _) = record(3, 31);
    let report = play(referee(vec![url(&r)], TABLE3), &rec, None)
        .await
        .unwrap();
    assert!(report.over);
    let mut s = JudgeSession::attach(referee(vec![url(&r)], TABLE3), &report.game_id)
        .await
        .unwrap();
    match s.submit(0, &Command::NextStep).await.unwrap() {
        Err(r) => assert_eq!(r.refusal.code(), "game_over"),
        other => panic!("expected a rejection, got {other:?}"),
    }
    r.shutdown().await;
}

async fn a_watcher_gets_past_and_live_events_until_the_game_ends(b: Backend) {
    let r = start(b.log().await, options()).await;
    let (rec, n_events) = record(3, 41);
    let mut c = raw(&r).await;
    c.open_game(with_token(request_from_header(&rec.header, 1), CHIEF))
        .await
        .unwrap();
    let game_id = rec.header.game_id().unwrap().to_string();
    let mut watch = c
        .watch_game(with_token(
            v1::WatchGameRequest {
                game_id: game_id.clone(),
                audience: v1::Audience::Judge as i32,
                from_seq: 1,
            },
            CHIEF,
        ))
        .await
        .unwrap()
        .into_inner();
    let client = referee(vec![url(&r)], TABLE3);
    let played = tokio::spawn(async move { play(client, &rec, None).await });
    let mut seqs = Vec::new();
    while let Some(e) = watch.next().await {
        let e = e.unwrap();
        seqs.push(e.event.unwrap().seq);
        if e.game_over {
            break;
        }
        assert!(seqs.len() <= n_events, "more events than the game has");
    }
    assert_eq!(seqs, (1..=n_events as u64).collect::<Vec<_>>());
    played.await.unwrap().unwrap();
    r.shutdown().await;
}

async fn health_reports_serving(b: Backend) {
    use tonic_health::pb::{health_client::HealthClient, HealthCheckRequest};
    let r = start(b.log().await, options()).await;
    let channel = tonic::transport::Endpoint::from_shared(url(&r))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut h = HealthClient::new(channel);
    let resp = h
        .check(HealthCheckRequest {
            service: "mafia.v1.Referee".into(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(resp.status, 1, "SERVING");
    r.shutdown().await;
}

async fn simulated_tables_play_their_games_to_the_end_at_once(b: Backend) {
    let r = start(b.log().await, options()).await;
    let mut cfg = mafia_judge_client::SimConfig::new(4, 99);
    cfg.games_per_table = 2;
    let report = mafia_judge_client::simulate_tables(referee(vec![url(&r)], CHIEF), cfg)
        .await
        .unwrap();
    assert_eq!(report.games_finished, 8);
    assert_eq!(report.latencies.len() as u64, report.commands);
    assert_eq!(r.metrics.accepted_total(), report.commands);
    r.shutdown().await;
}

/// Screens count timers from the commands' `at`: a paced demo table must
/// stamp the wall clock, not a simulated one from years ago.
async fn paced_simulated_tables_stamp_the_wall_clock(b: Backend) {
    let r = start(b.log().await, options()).await;
    let mut cfg = mafia_judge_client::SimConfig::new(1, 5);
    cfg.speed = Some(1_000_000.0);
    cfg.max_commands_per_table = 3;
    cfg.games_per_table = 1;
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    mafia_judge_client::simulate_tables(referee(vec![url(&r)], CHIEF), cfg)
        .await
        .unwrap();
    let mut c = raw(&r).await;
    let games = c
        .get_game(with_token(
            v1::GetGameRequest {
                game_id: "sim-5.sim.r1.t1.g1".into(),
                audience: v1::Audience::Judge as i32,
            },
            CHIEF,
        ))
        .await
        .unwrap()
        .into_inner();
    let last = games.events.last().expect("events").at;
    assert!(last >= before, "stamped {last}, before the run {before}");
    r.shutdown().await;
}

async fn the_public_does_not_see_the_cards_while_the_game_runs(b: Backend) {
    let r = start(b.log().await, options()).await;
    let (game_id, _) = open_simulated(&r, 25).await;
    let mut c = raw(&r).await;
    let get = |audience: v1::Audience| {
        with_token(
            v1::GetGameRequest {
                game_id: game_id.clone(),
                audience: audience as i32,
            },
            TABLE3,
        )
    };
    let public = c
        .get_game(get(v1::Audience::Public))
        .await
        .unwrap()
        .into_inner();
    assert!(public.events.iter().all(|e| e.r#type != "dealt"));
    let view: serde_json::Value =
        serde_json::from_str(&public.state.as_ref().unwrap().view_json).unwrap();
    assert!(view["seats"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["role"].is_null()));
    assert!(public.state.unwrap().prompt_json.is_empty());
    let judge = c
        .get_game(get(v1::Audience::Judge))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(judge.events[0].r#type, "dealt");
    assert!(!judge.state.unwrap().prompt_json.is_empty());
    r.shutdown().await;
}

async fn watching_past_the_end_of_a_finished_game_ends_at_once(b: Backend) {
    let r = start(b.log().await, options()).await;
    let (rec, n_events) = record(3, 42);
    let report = play(referee(vec![url(&r)], TABLE3), &rec, None)
        .await
        .unwrap();
    let mut c = raw(&r).await;
    let mut watch = c
        .watch_game(with_token(
            v1::WatchGameRequest {
                game_id: report.game_id.to_string(),
                audience: v1::Audience::Public as i32,
                from_seq: n_events as u64 + 1,
            },
            CHIEF,
        ))
        .await
        .unwrap()
        .into_inner();
    assert!(watch.next().await.is_none());
    r.shutdown().await;
}

both_backends!(
    watching_past_the_end_of_a_finished_game_ends_at_once,
    the_public_does_not_see_the_cards_while_the_game_runs,
    simulated_tables_play_their_games_to_the_end_at_once,
    paced_simulated_tables_stamp_the_wall_clock,
    a_recorded_game_plays_to_the_end_and_every_event_is_stored,
    opening_a_game_twice_is_idempotent_and_a_different_header_conflicts,
    a_resent_command_is_acknowledged_again_and_never_applied_twice,
    a_reconnecting_judge_receives_the_acks_it_missed,
    acks_carry_the_state_unless_the_stream_omits_it,
    an_illegal_command_is_rejected_and_the_stream_stays_open,
    a_sequence_gap_ends_the_stream_with_failed_precondition,
    tokens_are_checked_against_the_table,
    an_unknown_game_is_not_found,
    a_malformed_or_huge_game_id_is_invalid_argument_with_a_short_message,
    the_bearer_scheme_is_read_in_any_case,
    an_oversized_message_is_refused_and_others_are_still_served,
    an_oversized_submit_ends_the_judge_stream_with_out_of_range,
    every_accepted_socket_has_tcp_nodelay,
    an_http2_peer_that_answers_no_ping_is_closed,
    a_finished_game_rejects_further_commands_with_game_over,
    a_watcher_gets_past_and_live_events_until_the_game_ends,
    health_reports_serving,
);
