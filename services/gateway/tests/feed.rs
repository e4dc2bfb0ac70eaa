//! The raw WebSocket feed, followed by real clients.

mod common;

use std::collections::HashMap;
use std::time::Duration;

use common::*;
use futures::StreamExt;
use mafia_gateway::ServerConfig;
use mafia_rules::{Audience, RuleSetId};
use serde_json::Value;
use tokio_tungstenite::tungstenite::Message;

/// A club game (it has a Beauty) and a classic one, both with night actions.
fn games() -> Vec<(RuleSetId, u64)> {
    vec![
        (RuleSetId::Club, 7),
        (RuleSetId::Classic, 3),
        (RuleSetId::Rfm, 11),
    ]
}

fn assert_no_hidden_fact(m: &Value) {
    let view = if m["type"] == "snapshot" {
        &m["view"]
    } else {
        &Value::Null
    };
    if !view.is_null() {
        for s in view["seats"].as_array().unwrap() {
            assert!(s["role"].is_null(), "public snapshot shows a role: {s}");
        }
    }
    if m["type"] == "delta" {
        let ty = m["event"]["event"]["type"].as_str().unwrap();
        assert!(!HIDDEN.contains(&ty), "public saw {ty} before the end");
        assert!(
            m["event"].get("cmd").is_none(),
            "public saw command numbers"
        );
        let patch = &m["patch"];
        if let Some(seats) = patch["seats"].as_array() {
            for s in seats {
                assert!(s["role"].is_null(), "public patch shows a role: {s}");
            }
        }
        assert!(
            patch["best_move"]["hits"].is_null(),
            "public saw best-move hits"
        );
        assert!(patch["prompt"].is_null(), "public saw the judge's prompt");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn public_never_sees_a_hidden_fact_before_the_game_ends() {
    // Queues that never fill: a client cut back after the end gets a
    // snapshot with the roles revealed, which is right but not this test.
    let config = mafia_gateway::HubConfig {
        queue_capacity: 100_000,
        ..hub_config(Duration::from_secs(3600))
    };
    let fx = start(config, ServerConfig::default()).await;
    for (i, (rules, seed)) in games().into_iter().enumerate() {
        let sim = game(rules, seed);
        let id = format!("cup.pub{i}.r1.t1.g1");
        create(&fx.log, &id, &sim, i as u32 + 1).await;
        append(&fx.log, &id, &sim.events[..1]).await;
        // Wait until the hub knows the table, then follow it live.
        until(&fx.hub, |h| h.has_game(&gid(&id))).await;
        let mut ws = connect(fx.addr, &format!("/ws/game/{id}")).await;
        for chunk in sim.events[1..].chunks(25) {
            append(&fx.log, &id, chunk).await;
        }
        let mut f = Follower::default();
        loop {
            let m = next_json(&mut ws).await;
            let end = is_end(&m);
            if !end {
                assert_no_hidden_fact(&m);
            }
            f.apply(&m);
            if end {
                break;
            }
        }
        until_folded(&fx.hub, &id, sim.game.seq() as u64).await;
        // After the end everything may be shown: roles are revealed.
        let hub_state = fx.hub.state(&gid(&id), Audience::Public).unwrap();
        assert!(hub_state.over);
        assert!(hub_state.view["seats"][0]["role"].is_string());
        // Public numbering counts only what the public saw: 1, 2, 3, … (checked
        // by Follower) and fewer than the engine's.
        assert!(f.seq < sim.game.seq() as u64);
        // The client's patched copy equals the engine's public view.
        let mut engine = serde_json::to_value(sim.game.view(Audience::Public)).unwrap();
        engine["seq"] = hub_state.seq.into();
        // The follower stopped at game_ended; later public events (roles
        // revealed) may follow, so compare with what the hub has now only
        // after draining them.
        while f.seq < hub_state.seq {
            let m = next_json(&mut ws).await;
            f.apply(&m);
        }
        assert_eq!(f.normalized(), normalized(&engine));
    }
}

/// When the broadcast gets each event is the hub's timer's business
/// (`hub.rs`, on tokio's paused clock, and `hub_core.rs`, with explicit
/// instants); here the delay is zero and the WebSocket carries what the
/// broadcast sees.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn broadcast_sees_hidden_facts_of_its_delayed_copy_of_the_game() {
    let fx = start(hub_config(Duration::ZERO), ServerConfig::default()).await;
    let sim = game(RuleSetId::Club, 7);
    let id = "cup.bc.r1.t1.g1";
    create(&fx.log, id, &sim, 1).await;
    // Subscribe before anything happens, so every event is seen arriving.
    append(&fx.log, id, &sim.events[..1]).await;
    until(&fx.hub, |h| h.has_game(&gid(id))).await;
    let mut ws = connect(fx.addr, &format!("/ws/game/{id}?token={BROADCAST}")).await;
    let half = sim.events.len() / 2;
    append(&fx.log, id, &sim.events[1..half]).await;
    let mut f = Follower::default();
    let mut saw_roles = false;
    while f.seq < half as u64 {
        let m = next_json(&mut ws).await;
        f.apply(&m);
        saw_roles |= f.view["seats"][0]["role"].is_string();
    }
    // The deal itself was folded before the client connected: its roles
    // are in the first snapshot.
    assert!(saw_roles, "broadcast never saw the deal");
    assert!(
        f.events
            .iter()
            .any(|e| e["event"]["type"] == "shot_fired" || e["event"]["type"] == "night_result"),
        "broadcast saw no night action"
    );
    // The delayed view is consistent: it equals the engine's view of the
    // game replayed up to the same event.
    let setup = sim.setup.clone();
    let upto = mafia_rules::Game::replay(setup, &sim.events[..half]).unwrap();
    let engine = serde_json::to_value(upto.view(Audience::Broadcast)).unwrap();
    assert_eq!(f.normalized(), normalized(&engine));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_open_exactly_their_games() {
    let fx = start(
        hub_config(Duration::from_secs(3600)),
        ServerConfig::default(),
    )
    .await;
    let sim = game(RuleSetId::Classic, 5);
    for (id, table) in [("cup.final.r1.t1.g1", 1), ("cup.final.r1.t2.g1", 2)] {
        create(&fx.log, id, &sim, table).await;
        append(&fx.log, id, &sim.events[..40]).await;
    }
    for t in ["cup.final.r1.t1.g1", "cup.final.r1.t2.g1"] {
        until_folded(&fx.hub, t, 40).await;
    }
    // The table judge sees its own table live, roles and all.
    let mut ws = connect(
        fx.addr,
        &format!("/ws/game/cup.final.r1.t1.g1?token={JUDGE_T1}"),
    )
    .await;
    let m = next_json(&mut ws).await;
    assert_eq!(m["type"], "snapshot");
    assert!(m["view"]["seats"][0]["role"].is_string());
    assert!(m["view"]["prompt"].is_object());
    // …but not another table.
    assert_eq!(
        refused(
            fx.addr,
            &format!("/ws/game/cup.final.r1.t2.g1?token={JUDGE_T1}")
        )
        .await,
        403
    );
    // The chief judge sees every table live.
    let mut ws = connect(
        fx.addr,
        &format!("/ws/game/cup.final.r1.t2.g1?token={CHIEF}"),
    )
    .await;
    let m = next_json(&mut ws).await;
    assert_eq!(m["seq"], 40);
    assert!(m["view"]["seats"][0]["role"].is_string());
    // A bad token is refused, never downgraded to the public.
    assert_eq!(
        refused(fx.addr, "/ws/game/cup.final.r1.t1.g1?token=not-a-token").await,
        401
    );
    // An unknown token is refused before anything else (FEED.md's order).
    assert_eq!(
        refused(fx.addr, "/ws/game/nope?token=not-a-token").await,
        401
    );
    // An unknown table is not found, for every caller.
    assert_eq!(refused(fx.addr, "/ws/game/nope").await, 404);
    assert_eq!(
        refused(fx.addr, &format!("/ws/game/nope?token={JUDGE_T1}")).await,
        404
    );
    // The Authorization header works as well as the query, its scheme in
    // any case (RFC 7235); a header that is there but not a known bearer
    // token is 401, never the public view.
    let with_auth = |auth: String| {
        let mut req =
            tokio_tungstenite::tungstenite::client::IntoClientRequest::into_client_request(
                format!("ws://{}/ws/game/cup.final.r1.t1.g1", fx.addr),
            )
            .unwrap();
        req.headers_mut()
            .insert("authorization", auth.parse().unwrap());
        req
    };
    for scheme in ["Bearer", "bearer", "BEARER"] {
        let (mut ws, _) = tokio_tungstenite::connect_async(with_auth(format!("{scheme} {CHIEF}")))
            .await
            .unwrap();
        let m = next_json(&mut ws).await;
        assert!(m["view"]["seats"][0]["role"].is_string(), "{scheme}");
    }
    for bad in [
        CHIEF.to_owned(),
        format!("Basic {CHIEF}"),
        "Bearer not-a-token".into(),
    ] {
        match tokio_tungstenite::connect_async(with_auth(bad.clone())).await {
            Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => {
                assert_eq!(resp.status().as_u16(), 401, "{bad}")
            }
            other => panic!("{bad}: {:?}", other.map(|_| ())),
        }
    }
    assert_eq!(
        refused(fx.addr, "/ws/game/cup.final.r1.t1.g1?token=").await,
        401
    );
    // The hall feed with a table-judge token lists only its tables.
    let mut ws = connect(fx.addr, &format!("/ws/hall?token={JUDGE_T1}")).await;
    let m = next_json(&mut ws).await;
    assert_eq!(m["type"], "tables");
    let ids: Vec<_> = m["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["game_id"].clone())
        .collect();
    assert_eq!(ids, vec![Value::from("cup.final.r1.t1.g1")]);
    // The public hall lists both, without roles.
    let mut ws = connect(fx.addr, "/ws/hall").await;
    let m = next_json(&mut ws).await;
    assert_eq!(m["tables"].as_array().unwrap().len(), 2);
    for t in m["tables"].as_array().unwrap() {
        assert!(t["view"]["seats"][0]["role"].is_null());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resuming_from_a_sequence_leaves_no_gap() {
    let fx = start(
        hub_config(Duration::from_secs(3600)),
        ServerConfig::default(),
    )
    .await;
    let sim = game(RuleSetId::Rfm, 21);
    let id = "cup.resume.r1.t1.g1";
    create(&fx.log, id, &sim, 1).await;
    let n = sim.events.len();
    append(&fx.log, id, &sim.events[..n / 3]).await;
    until(&fx.hub, |h| {
        h.state(&gid(id), Audience::Public).is_ok_and(|s| s.seq > 0)
    })
    .await;
    for token in ["", CHIEF] {
        let q = if token.is_empty() {
            String::new()
        } else {
            format!("&token={token}")
        };
        let audience = if token.is_empty() {
            Audience::Public
        } else {
            Audience::Judge
        };
        let mut f = Follower::default();
        let mut ws = connect(fx.addr, &format!("/ws/game/{id}?{q}")).await;
        f.apply(&next_json(&mut ws).await);
        assert!(f.seq > 0);
        ws.close(None).await.unwrap();
        // Events happen while the client is away.
        let have = fx.hub.state(&gid(id), audience).unwrap().seq;
        let target_engine = if token.is_empty() { 2 * n / 3 } else { n };
        let done = fx.log.last_seq(id).await.unwrap() as usize;
        if done < target_engine {
            append(&fx.log, id, &sim.events[done..target_engine]).await;
        }
        until(&fx.hub, |h| {
            h.state(&gid(id), audience).unwrap().seq != have
        })
        .await;
        let mut ws = connect(fx.addr, &format!("/ws/game/{id}?from={}{q}", f.seq)).await;
        let want = fx.hub.state(&gid(id), audience).unwrap();
        while f.seq < want.seq {
            let m = next_json(&mut ws).await;
            assert_eq!(
                m["type"], "delta",
                "resume within history sends deltas only"
            );
            f.apply(&m);
        }
        assert_eq!(f.normalized(), normalized(&want.view));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_never_reads_does_not_hold_back_the_others() {
    // Small queues so the stalled subscriber fills its own quickly; the
    // healthy reader may be cut back on a busy machine too (it then gets a
    // fresh snapshot), so it is allowed many cutbacks before being closed.
    let config = mafia_gateway::HubConfig {
        queue_capacity: 16,
        ..hub_config(Duration::from_secs(3600))
    };
    let server = ServerConfig {
        send_timeout: Duration::from_millis(500),
        max_cutbacks: 1_000,
        ..ServerConfig::default()
    };
    let fx = start(config, server).await;
    let sim = game(RuleSetId::Club, 9);
    let id = "cup.slow.r1.t1.g1";
    create(&fx.log, id, &sim, 1).await;
    append(&fx.log, id, &sim.events[..1]).await;
    until(&fx.hub, |h| h.has_game(&gid(id))).await;
    // A hub subscriber that never reads: cut back once its queue is full.
    let stalled = fx.hub.subscribe(&gid(id), Audience::Judge, None).unwrap();
    // A WebSocket client that never reads.
    let _stalled_ws = connect(fx.addr, &format!("/ws/game/{id}?token={CHIEF}")).await;
    let mut ws = connect(fx.addr, &format!("/ws/game/{id}?token={CHIEF}")).await;
    let mut f = Follower::default();
    f.apply(&next_json(&mut ws).await);
    for e in &sim.events[1..] {
        append(&fx.log, id, std::slice::from_ref(e)).await;
    }
    while f.seq < sim.events.len() as u64 {
        let m = next_json(&mut ws).await;
        if m["type"] == "snapshot" {
            // A healthy reader may still be cut back if the machine is slow;
            // it must then be a consistent snapshot.
            f = Follower::default();
        }
        f.apply(&m);
    }
    assert!(
        stalled.is_lagged(),
        "the stalled subscriber was never cut back"
    );
    assert!(
        fx.hub
            .stats()
            .lagged
            .load(std::sync::atomic::Ordering::Relaxed)
            >= 1
    );
    let want = fx.hub.state(&gid(id), Audience::Judge).unwrap();
    assert_eq!(f.normalized(), normalized(&want.view));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_pings_and_answers_close() {
    let server = ServerConfig {
        ping_interval: Duration::from_millis(100),
        ..ServerConfig::default()
    };
    let (fx, _) = serving_a_game(server, "cup.ping.r1.t1.g1").await;
    let mut ws = connect(fx.addr, "/ws/game/cup.ping.r1.t1.g1").await;
    let mut pinged = false;
    for _ in 0..50 {
        match tokio::time::timeout(Duration::from_secs(10), ws.next()).await {
            Ok(Some(Ok(Message::Ping(_)))) => {
                pinged = true;
                break;
            }
            Ok(Some(Ok(_))) => continue,
            other => panic!("unexpected {other:?}"),
        }
    }
    assert!(pinged);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_answers_no_ping_is_closed_as_idle_and_one_that_does_stays() {
    let server = quick_keepalive(Duration::from_millis(100), Duration::from_millis(600));
    let (fx, _) = serving_a_game(server, "cup.idle.r1.t1.g1").await;
    let mut silent = connect(fx.addr, "/ws/game/cup.idle.r1.t1.g1").await;
    let mut live = connect(fx.addr, "/ws/game/cup.idle.r1.t1.g1").await;
    // The live one reads (tungstenite answers each ping) for well over the
    // idle timeout, and is pinged again and again; the silent one reads
    // nothing meanwhile.
    let began = tokio::time::Instant::now();
    let mut pings = 0;
    while pings < 3 || began.elapsed() < Duration::from_millis(1500) {
        match tokio::time::timeout(Duration::from_secs(30), live.next()).await {
            Ok(Some(Ok(Message::Ping(_)))) => pings += 1,
            Ok(Some(Ok(Message::Text(_)))) => {}
            other => panic!("the live client lost its connection: {other:?}"),
        }
    }
    let got = bytes_until_closed(&mut silent).await;
    assert!(holds_frame(&got, &PING_FRAME), "never pinged");
    assert!(holds_frame(&got, &close_frame(1000, "idle")), "{got:?}");
}

/// RFC 6455 §7.1.1: the server ends its side after its close frame and
/// reads the client's last frames until the client ends its side. Had it
/// stopped reading, a pong sent after its close would reset the connection
/// and throw away what it had not yet delivered, the close frame with it:
/// here a client with a small receive window has not yet taken it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_writes_after_the_servers_close_frame_still_gets_it_and_a_clean_end() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let server = quick_keepalive(Duration::from_millis(100), Duration::from_millis(400));
    let (fx, sim) = serving_a_game(server, "cup.bye.r1.t1.g1").await;
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let tcp = socket.connect(fx.addr).await.unwrap();
    let (mut ws, _) = tokio_tungstenite::client_async(
        format!("ws://{}/ws/game/cup.bye.r1.t1.g1", fx.addr),
        tokio_tungstenite::MaybeTlsStream::Plain(tcp),
    )
    .await
    .unwrap();
    // More than the client's window, which it leaves unread.
    let n = sim.events.len().min(80);
    append(&fx.log, "cup.bye.r1.t1.g1", &sim.events[5..n]).await;
    // Silent past the idle timeout: the server has said goodbye by then.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let tokio_tungstenite::MaybeTlsStream::Plain(tcp) = ws.get_mut() else {
        panic!("a plain socket");
    };
    // A late pong, masked as a client's frames are.
    tcp.write_all(&[0x8a, 0x80, 1, 2, 3, 4]).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut got = Vec::new();
    let end = tokio::time::timeout(Duration::from_secs(30), tcp.read_to_end(&mut got))
        .await
        .expect("the server ended its side within 30 s");
    assert!(
        end.is_ok(),
        "the connection ended with {end:?} after {} bytes, not cleanly",
        got.len()
    );
    assert!(holds_frame(&got, &close_frame(1000, "idle")), "{got:?}");
}

/// A client that never sends a whole request head (silent, trickling, or
/// idle on a kept-alive connection after its answer) is closed after the
/// header timeout: none of them holds a descriptor and a task for ever.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_connection_that_sends_no_whole_request_head_is_closed_after_the_header_timeout() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let server = ServerConfig {
        header_timeout: Duration::from_millis(300),
        ..ServerConfig::default()
    };
    let fx = start(hub_config(Duration::from_secs(3600)), server).await;
    let silent = tokio::net::TcpStream::connect(fx.addr).await.unwrap();
    let mut trickling = tokio::net::TcpStream::connect(fx.addr).await.unwrap();
    trickling
        .write_all(b"GET /api/clock HTTP/1.1\r\nHost: arena\r\n")
        .await
        .unwrap();
    let mut kept = tokio::net::TcpStream::connect(fx.addr).await.unwrap();
    kept.write_all(b"GET /api/clock HTTP/1.1\r\nHost: arena\r\n\r\n")
        .await
        .unwrap();
    for (name, mut tcp) in [
        ("silent", silent),
        ("trickling", trickling),
        ("kept alive", kept),
    ] {
        let mut got = Vec::new();
        let ended = tokio::time::timeout(Duration::from_secs(20), tcp.read_to_end(&mut got)).await;
        assert!(
            ended.is_ok(),
            "the {name} connection is still open after 20 s"
        );
        if name == "kept alive" {
            assert!(
                got.starts_with(b"HTTP/1.1 200"),
                "{}",
                String::from_utf8_lossy(&got)
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn departed_subscribers_of_a_quiet_game_are_forgotten() {
    let fx = start(
        hub_config(Duration::from_secs(3600)),
        ServerConfig::default(),
    )
    .await;
    let sim = game(RuleSetId::Classic, 2);
    create(&fx.log, "cup.quiet.r1.t1.g1", &sim, 1).await;
    append(&fx.log, "cup.quiet.r1.t1.g1", &sim.events).await;
    until(&fx.hub, |h| h.has_game(&gid("cup.quiet.r1.t1.g1"))).await;
    for _ in 0..100 {
        drop(
            fx.hub
                .subscribe(&gid("cup.quiet.r1.t1.g1"), Audience::Public, None)
                .unwrap(),
        );
    }
    let kept = fx
        .hub
        .subscribe(&gid("cup.quiet.r1.t1.g1"), Audience::Public, None)
        .unwrap();
    assert_eq!(
        fx.hub
            .subscriber_count(&gid("cup.quiet.r1.t1.g1"), Audience::Public),
        1
    );
    drop(kept);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_old_table_routes_still_serve_the_game_routes() {
    let fx = start(hub_config(Duration::from_secs(60)), ServerConfig::default()).await;
    let sim = game(RuleSetId::Classic, 2);
    let id = "cup.final.r1.t1.g1";
    create(&fx.log, id, &sim, 1).await;
    append(&fx.log, id, &sim.events[..20]).await;
    until_folded(&fx.hub, id, 20).await;

    let (status, games) = get_json(fx.addr, "/api/games").await;
    assert_eq!(status, 200);
    assert_eq!(games["games"][0]["game_id"], id);
    assert_eq!(games["games"][0]["table"], 1, "the physical table");
    let (status, tables) = get_json(fx.addr, "/api/tables").await;
    assert_eq!(status, 200);
    assert_eq!(tables["tables"], games["games"]);

    let (status, new) = get_json(fx.addr, &format!("/api/game/{id}?token={CHIEF}")).await;
    assert_eq!(status, 200);
    let (_, old) = get_json(fx.addr, &format!("/api/table/{id}?token={CHIEF}")).await;
    assert_eq!(new, old);
    assert_eq!(new["seq"], 20);
    // An id that is not a game id names no game.
    assert_eq!(get_json(fx.addr, "/api/game/nope").await.0, 404);
    assert_eq!(get_json(fx.addr, "/api/table/nope").await.0, 404);

    let mut by_game = connect(fx.addr, &format!("/ws/game/{id}?token={CHIEF}")).await;
    let mut by_table = connect(fx.addr, &format!("/ws/table/{id}?token={CHIEF}")).await;
    assert_eq!(
        next_json(&mut by_game).await,
        next_json(&mut by_table).await
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hall_screen_there_before_a_game_opens_learns_its_info_from_the_feed() {
    let fx = start(hub_config(Duration::from_secs(60)), ServerConfig::default()).await;
    let mut public = connect(fx.addr, "/ws/hall").await;
    let mut judge = connect(fx.addr, &format!("/ws/hall?token={JUDGE_T1}")).await;
    for ws in [&mut public, &mut judge] {
        let m = next_json(ws).await;
        assert_eq!(m["type"], "tables");
        assert_eq!(m["tables"], Value::Array(vec![]));
    }
    // The other table first and folded, so that anything the table
    // judge's hall heard of it would come before its own table's.
    let sim = game(RuleSetId::Classic, 2);
    for (id, table) in [("cup.final.r1.t2.g1", 2), ("cup.final.r1.t1.g1", 1)] {
        create_named(&fx.log, id, &sim, table, "Cup 2026").await;
        append(&fx.log, id, &sim.events[..5]).await;
        until_folded(&fx.hub, id, 5).await;
    }
    for (ws, audience, ids) in [
        (
            &mut public,
            Audience::Public,
            &["cup.final.r1.t2.g1", "cup.final.r1.t1.g1"][..],
        ),
        (&mut judge, Audience::Judge, &["cup.final.r1.t1.g1"][..]),
    ] {
        // Each game's messages up to its state now (games may interleave).
        let last: HashMap<&str, u64> = ids
            .iter()
            .map(|id| (*id, fx.hub.state(&gid(id), audience).unwrap().seq))
            .collect();
        let mut heard: HashMap<String, Vec<Value>> = HashMap::new();
        let behind = |heard: &HashMap<String, Vec<Value>>| {
            last.iter().any(|(id, last)| {
                heard
                    .get(*id)
                    .and_then(|msgs| msgs.last())
                    .is_none_or(|m| m["seq"].as_u64().unwrap() < *last)
            })
        };
        while behind(&heard) {
            let m = next_json(ws).await;
            let id = m["game_id"].as_str().unwrap().to_owned();
            assert!(last.contains_key(id.as_str()), "{audience:?} heard of {id}");
            heard.entry(id).or_default().push(m);
        }
        for (id, msgs) in &heard {
            // The game's first message carries what the screens used to
            // fetch from /api/game, the tournament's name with it.
            let first = &msgs[0];
            assert_eq!(first["type"], "table");
            assert_eq!(first["seq"], 0, "the game before its deal");
            let (_, state) = get_json(fx.addr, &format!("/api/game/{id}?token={CHIEF}")).await;
            assert_eq!(first["info"], state["info"]);
            assert_eq!(first["info"]["tournament"], "Cup 2026");
            // Its later messages leave it out.
            for m in &msgs[1..] {
                assert!(m.get("info").is_none(), "{m}");
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hall_asked_for_one_tournament_hears_of_its_games_only() {
    let fx = start(hub_config(Duration::from_secs(60)), ServerConfig::default()).await;
    let sim = game(RuleSetId::Classic, 2);
    create_named(&fx.log, "cup.final.r1.t1.g1", &sim, 1, "Cup").await;
    create_named(&fx.log, "open.main.r1.t1.g1", &sim, 1, "Open").await;
    for id in ["cup.final.r1.t1.g1", "open.main.r1.t1.g1"] {
        append(&fx.log, id, &sim.events[..2]).await;
        until_folded(&fx.hub, id, 2).await;
    }
    let mut hall = connect(fx.addr, "/ws/hall?tournament=cup").await;
    let m = next_json(&mut hall).await;
    let ids: Vec<_> = m["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["game_id"].clone())
        .collect();
    assert_eq!(ids, vec![Value::from("cup.final.r1.t1.g1")]);
    // The other tournament's events first: the next message this hall gets
    // is its own tournament's.
    append(&fx.log, "open.main.r1.t1.g1", &sim.events[2..5]).await;
    until_folded(&fx.hub, "open.main.r1.t1.g1", 5).await;
    append(&fx.log, "cup.final.r1.t1.g1", &sim.events[2..3]).await;
    let m = next_json(&mut hall).await;
    assert_eq!(m["game_id"], "cup.final.r1.t1.g1");
    assert_eq!(refused(fx.addr, "/ws/hall?tournament=no%20such").await, 400);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_clock_tells_a_broadcast_screen_how_far_behind_its_feed_runs() {
    let fx = start(hub_config(Duration::from_secs(60)), ServerConfig::default()).await;
    let (status, v) = get_json(fx.addr, &format!("/api/clock?token={BROADCAST}")).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["delay_ms"], 60_000);
    assert!(v["server_ms"].as_i64().unwrap() > 0);
    for path in ["/api/clock".to_owned(), format!("/api/clock?token={CHIEF}")] {
        let (status, v) = get_json(fx.addr, &path).await;
        assert_eq!(status, 200, "{v}");
        assert_eq!(v["delay_ms"], 0, "{path}");
    }
    let (status, _) = get_json(fx.addr, "/api/clock?token=nope-nope-nope").await;
    assert_eq!(status, 401);
}
