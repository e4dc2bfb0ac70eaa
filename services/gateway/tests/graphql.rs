//! GraphQL over HTTP and over both WebSocket protocols, with real clients.

mod common;

use std::time::Duration;

use common::*;
use futures::{SinkExt, StreamExt};
use mafia_gateway::ServerConfig;
use mafia_rules::{Audience, RuleSetId};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

const SDL_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/schema.graphql");

#[test]
fn committed_sdl_matches_the_schema() {
    let sdl = mafia_gateway::graphql::sdl();
    if std::env::var_os("UPDATE_SCHEMA").is_some() {
        std::fs::write(SDL_PATH, &sdl).unwrap();
    }
    let committed = std::fs::read_to_string(SDL_PATH).unwrap_or_default();
    assert!(
        committed == sdl,
        "schema.graphql is out of date: run `UPDATE_SCHEMA=1 cargo test -p mafia-gateway --test graphql`"
    );
}

/// A minimal HTTP/1.1 POST, so the test exercises the real server.
async fn post(
    addr: std::net::SocketAddr,
    path: &str,
    auth: Option<&str>,
    body: &Value,
) -> (u16, Value) {
    let body = body.to_string();
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let auth = auth.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    let req = format!(
        "POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n{auth}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), s.read_to_end(&mut out))
        .await
        .unwrap()
        .unwrap();
    let text = String::from_utf8(out).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

async fn fixture_with_game() -> (Fixture, mafia_rules::sim::SimulatedGame) {
    let fx = start(
        hub_config(Duration::from_secs(3600)),
        ServerConfig::default(),
    )
    .await;
    let sim = game(RuleSetId::Club, 7);
    create(&fx.log, "cup-t1", &sim, 1).await;
    append(&fx.log, "cup-t1", &sim.events[..60]).await;
    while fx
        .hub
        .state("cup-t1", Audience::Judge)
        .map_or(true, |s| s.seq < 60)
    {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    (fx, sim)
}

const TABLE_QUERY: &str =
    r#"query($id: String!) { table(gameId: $id) { seq over view table { gameId table } } }"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn queries_answer_in_the_callers_audience() {
    let (fx, _sim) = fixture_with_game().await;
    let q = json!({"query": TABLE_QUERY, "variables": {"id": "cup-t1"}});
    let (status, public) = post(fx.addr, "/graphql", None, &q).await;
    assert_eq!(status, 200);
    let view = &public["data"]["table"]["view"];
    assert!(
        view["seats"][0]["role"].is_null(),
        "public saw a role: {view}"
    );
    assert!(view["prompt"].is_null());
    let (_, judge) = post(fx.addr, "/graphql", Some(CHIEF), &q).await;
    assert!(judge["data"]["table"]["view"]["seats"][0]["role"].is_string());
    assert_eq!(judge["data"]["table"]["seq"], 60);

    let (_, tables) = post(
        fx.addr,
        "/graphql",
        None,
        &json!({"query": "{ tables { gameId round table } }"}),
    )
    .await;
    assert_eq!(tables["data"]["tables"][0]["gameId"], "cup-t1");
    let q = json!({"query": "{ tournaments { name rounds { number tables { gameId } } } }"});
    let (_, t) = post(fx.addr, "/graphql", None, &q).await;
    assert_eq!(t["data"]["tournaments"][0]["name"], "cup");
    assert_eq!(
        t["data"]["tournaments"][0]["rounds"][0]["tables"][0]["gameId"],
        "cup-t1"
    );

    // Events: the public gets its own numbering and no hidden event.
    let ev = json!({"query": r#"{ events(gameId: "cup-t1", after: 0) { seq kind cmd } }"#});
    let (_, public) = post(fx.addr, "/graphql", None, &ev).await;
    let evs = public["data"]["events"].as_array().unwrap();
    for (i, e) in evs.iter().enumerate() {
        assert_eq!(e["seq"], i as u64 + 1);
        assert!(
            !HIDDEN.contains(&e["kind"].as_str().unwrap()),
            "public saw {e}"
        );
        assert!(e["cmd"].is_null());
    }
    let (_, judge) = post(fx.addr, "/graphql", Some(CHIEF), &ev).await;
    assert_eq!(judge["data"]["events"].as_array().unwrap().len(), 60);
    assert_eq!(judge["data"]["events"][0]["kind"], "dealt");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_gets_clear_errors() {
    let (fx, _sim) = fixture_with_game().await;
    // Malformed.
    let (_, r) = post(fx.addr, "/graphql", None, &json!({"query": "{ tables { "})).await;
    assert!(r["errors"][0]["message"].is_string());
    // Too deep: nested introspection is the classic way to build one.
    let deep = "{ __schema { types { fields { type { ofType { ofType { ofType { ofType { name } } } } } } } } }";
    let (_, r) = post(fx.addr, "/graphql", None, &json!({"query": deep})).await;
    assert!(
        r["errors"][0]["message"].as_str().unwrap().contains("deep"),
        "{r}"
    );
    // Too complex.
    let wide = format!(
        "{{ {} }}",
        (0..300)
            .map(|i| format!("a{i}: tables {{ gameId }}"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    let (_, r) = post(fx.addr, "/graphql", None, &json!({"query": wide})).await;
    assert!(
        r["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("complex"),
        "{r}"
    );
    // Unknown table, and a judge token's scope.
    let q = json!({"query": TABLE_QUERY, "variables": {"id": "nope"}});
    let (_, r) = post(fx.addr, "/graphql", None, &q).await;
    assert!(r["errors"][0]["message"]
        .as_str()
        .unwrap()
        .contains("unknown table"));
    // A bad token is refused outright.
    let (status, _) = post(fx.addr, "/graphql", Some("not-a-token"), &q).await;
    assert_eq!(status, 401);
}

async fn gql_ws(addr: std::net::SocketAddr, protocol: &str, query: &str) -> Ws {
    let mut req = format!("ws://{addr}/graphql/ws?{query}")
        .into_client_request()
        .unwrap();
    req.headers_mut()
        .insert("sec-websocket-protocol", protocol.parse().unwrap());
    let (ws, _) = tokio_tungstenite::connect_async(req).await.unwrap();
    ws
}

async fn send(ws: &mut Ws, v: Value) {
    ws.send(Message::Text(v.to_string().into())).await.unwrap();
}

/// The next protocol message that is not a keep-alive.
async fn next_msg(ws: &mut Ws) -> Value {
    loop {
        let m = next_json(ws).await;
        if m["type"] != "ka" && m["type"] != "ping" && m["type"] != "pong" {
            return m;
        }
    }
}

const SUB: &str =
    r#"subscription($id: String!) { table(gameId: $id) { kind seq view patch event { kind } } }"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn graphql_transport_ws_streams_a_snapshot_then_deltas() {
    let (fx, sim) = fixture_with_game().await;
    let mut ws = gql_ws(fx.addr, "graphql-transport-ws", "").await;
    send(
        &mut ws,
        json!({"type": "connection_init", "payload": {"token": CHIEF}}),
    )
    .await;
    assert_eq!(next_msg(&mut ws).await["type"], "connection_ack");
    send(&mut ws, json!({"id": "1", "type": "subscribe", "payload": {"query": SUB, "variables": {"id": "cup-t1"}}})).await;
    let m = next_msg(&mut ws).await;
    assert_eq!(m["type"], "next");
    let t = &m["payload"]["data"]["table"];
    assert_eq!(t["kind"], "snapshot");
    assert_eq!(t["seq"], 60);
    assert!(t["view"]["seats"][0]["role"].is_string());
    append(&fx.log, "cup-t1", &sim.events[60..70]).await;
    for seq in 61..=70 {
        let m = next_msg(&mut ws).await;
        let t = &m["payload"]["data"]["table"];
        assert_eq!(t["kind"], "delta");
        assert_eq!(t["seq"], seq);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legacy_graphql_ws_streams_events_from_a_sequence() {
    let (fx, sim) = fixture_with_game().await;
    let mut ws = gql_ws(fx.addr, "graphql-ws", &format!("token={CHIEF}")).await;
    send(&mut ws, json!({"type": "connection_init", "payload": {}})).await;
    assert_eq!(next_msg(&mut ws).await["type"], "connection_ack");
    let q = r#"subscription { events(gameId: "cup-t1", after: 50) { seq kind } }"#;
    send(
        &mut ws,
        json!({"id": "a", "type": "start", "payload": {"query": q}}),
    )
    .await;
    append(&fx.log, "cup-t1", &sim.events[60..65]).await;
    for seq in 51..=65 {
        let m = next_msg(&mut ws).await;
        assert_eq!(m["type"], "data", "{m}");
        assert_eq!(m["payload"]["data"]["events"]["seq"], seq);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn public_subscription_carries_no_hidden_fact_and_floods_are_refused() {
    let (fx, sim) = fixture_with_game().await;
    let mut ws = gql_ws(fx.addr, "graphql-transport-ws", "").await;
    send(&mut ws, json!({"type": "connection_init"})).await;
    assert_eq!(next_msg(&mut ws).await["type"], "connection_ack");
    send(&mut ws, json!({"id": "1", "type": "subscribe", "payload": {"query": SUB, "variables": {"id": "cup-t1"}}})).await;
    let m = next_msg(&mut ws).await;
    assert!(m["payload"]["data"]["table"]["view"]["seats"][0]["role"].is_null());
    let before_end = sim
        .events
        .iter()
        .position(|e| matches!(e.event, mafia_rules::Event::GameEnded { .. }))
        .unwrap();
    append(&fx.log, "cup-t1", &sim.events[60..before_end]).await;
    let want = loop {
        let s = fx.hub.state("cup-t1", Audience::Judge).unwrap();
        if s.seq == before_end as u64 {
            break fx.hub.state("cup-t1", Audience::Public).unwrap().seq;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let mut seq = m["payload"]["data"]["table"]["seq"].as_u64().unwrap();
    while seq < want {
        let m = next_msg(&mut ws).await;
        let t = &m["payload"]["data"]["table"];
        assert!(
            !HIDDEN.contains(&t["event"]["kind"].as_str().unwrap()),
            "{t}"
        );
        if let Some(seats) = t["patch"]["seats"].as_array() {
            assert!(seats.iter().all(|s| s["role"].is_null()), "{t}");
        }
        seq = t["seq"].as_u64().unwrap();
    }
    // A flood of subscriptions on one connection hits the limit cleanly.
    let limit = mafia_gateway::graphql::MAX_SUBSCRIPTIONS_PER_CONNECTION;
    for i in 2..=limit + 1 {
        send(&mut ws, json!({"id": i.to_string(), "type": "subscribe", "payload": {"query": "subscription { tables { kind } }"}})).await;
    }
    let mut refused = false;
    for _ in 0..limit * 2 {
        let m = next_msg(&mut ws).await;
        // Subscriptions start concurrently, so any one of them may be the
        // one over the limit; it gets an error and completes.
        if let Some(msg) = m["payload"]["errors"][0]["message"].as_str() {
            assert!(msg.contains("subscriptions per connection"), "{m}");
            refused = true;
            break;
        }
    }
    assert!(refused, "no subscription was refused");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_token_in_connection_init_closes_the_connection() {
    let (fx, _sim) = fixture_with_game().await;
    let mut ws = gql_ws(fx.addr, "graphql-transport-ws", "").await;
    send(
        &mut ws,
        json!({"type": "connection_init", "payload": {"token": "not-a-token"}}),
    )
    .await;
    let mut closed = false;
    for _ in 0..10 {
        match tokio::time::timeout(Duration::from_secs(30), ws.next())
            .await
            .unwrap()
        {
            Some(Ok(Message::Close(_))) | None | Some(Err(_)) => {
                closed = true;
                break;
            }
            Some(Ok(Message::Text(t))) => assert_ne!(
                serde_json::from_str::<Value>(&t).unwrap()["type"],
                "connection_ack"
            ),
            _ => {}
        }
    }
    assert!(closed);
    // In the URL it is refused before the upgrade.
    let mut req = format!("ws://{}/graphql/ws?token=not-a-token", fx.addr)
        .into_client_request()
        .unwrap();
    req.headers_mut().insert(
        "sec-websocket-protocol",
        "graphql-transport-ws".parse().unwrap(),
    );
    match tokio_tungstenite::connect_async(req).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => assert_eq!(r.status(), 401),
        other => panic!("accepted: {:?}", other.map(|_| ())),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_protocol_is_given_only_once_the_game_is_over() {
    let (fx, sim) = fixture_with_game().await;
    let q = json!({"query": r#"{ protocol(gameId: "cup-t1") { table { gameId } events { seq kind } } }"#});
    let (_, r) = post(fx.addr, "/graphql", None, &q).await;
    assert!(
        r["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("not finished"),
        "{r}"
    );
    append(&fx.log, "cup-t1", &sim.events[60..]).await;
    let n = sim.events.len() as u64;
    while fx.hub.state("cup-t1", Audience::Judge).unwrap().seq < n {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (_, r) = post(fx.addr, "/graphql", None, &q).await;
    let evs = r["data"]["protocol"]["events"].as_array().unwrap();
    assert_eq!(evs.len() as u64, n);
    assert_eq!(evs[0]["kind"], "dealt");
    // The broadcast waits for its delayed game to end (an hour here).
    let (_, r) = post(fx.addr, "/graphql", Some(BROADCAST), &q).await;
    assert!(
        r["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("not finished"),
        "{r}"
    );
}
