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
    let header = auth.map(|t| format!("Bearer {t}"));
    post_authorized(addr, path, header.as_deref(), body).await
}

/// [`post`] with the `Authorization` header's whole value, as given.
async fn post_authorized(
    addr: std::net::SocketAddr,
    path: &str,
    authorization: Option<&str>,
    body: &Value,
) -> (u16, Value) {
    let body = body.to_string();
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let auth = authorization.map_or(String::new(), |v| format!("Authorization: {v}\r\n"));
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
    create(&fx.log, "cup.final.r1.t1.g1", &sim, 1).await;
    append(&fx.log, "cup.final.r1.t1.g1", &sim.events[..60]).await;
    until_folded(&fx.hub, "cup.final.r1.t1.g1", 60).await;
    (fx, sim)
}

const GAME_QUERY: &str =
    r#"query($id: String!) { game(id: $id) { seq over view game { gameId table } } }"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn queries_answer_in_the_callers_audience() {
    let (fx, _sim) = fixture_with_game().await;
    let q = json!({"query": GAME_QUERY, "variables": {"id": "cup.final.r1.t1.g1"}});
    let (status, public) = post(fx.addr, "/graphql", None, &q).await;
    assert_eq!(status, 200);
    let view = &public["data"]["game"]["view"];
    assert!(
        view["seats"][0]["role"].is_null(),
        "public saw a role: {view}"
    );
    assert!(view["prompt"].is_null());
    let (_, judge) = post(fx.addr, "/graphql", Some(CHIEF), &q).await;
    assert!(judge["data"]["game"]["view"]["seats"][0]["role"].is_string());
    assert_eq!(judge["data"]["game"]["seq"], 60);

    let (_, games) = post(
        fx.addr,
        "/graphql",
        None,
        &json!({"query": "{ games { gameId round table } }"}),
    )
    .await;
    assert_eq!(games["data"]["games"][0]["gameId"], "cup.final.r1.t1.g1");
    let q = json!({"query": "{ tournaments { name rounds { number games { gameId } } } }"});
    let (_, t) = post(fx.addr, "/graphql", None, &q).await;
    assert_eq!(t["data"]["tournaments"][0]["name"], "cup");
    assert_eq!(
        t["data"]["tournaments"][0]["rounds"][0]["games"][0]["gameId"],
        "cup.final.r1.t1.g1"
    );

    // Events: the public gets its own numbering and no hidden event.
    let ev =
        json!({"query": r#"{ events(gameId: "cup.final.r1.t1.g1", after: 0) { seq kind cmd } }"#});
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
    let (_, r) = post(fx.addr, "/graphql", None, &json!({"query": "{ games { "})).await;
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
            .map(|i| format!("a{i}: games {{ gameId }}"))
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
    // Unknown game, and a judge token's scope.
    let q = json!({"query": GAME_QUERY, "variables": {"id": "nope"}});
    let (_, r) = post(fx.addr, "/graphql", None, &q).await;
    assert!(r["errors"][0]["message"]
        .as_str()
        .unwrap()
        .contains("unknown game"));
    // A bad token is refused outright.
    let (status, _) = post(fx.addr, "/graphql", Some("not-a-token"), &q).await;
    assert_eq!(status, 401);
}

/// `POST /graphql` reads the `Authorization` header as every other route
/// does: its scheme in any case (RFC 7235), and a header that is there but
/// not a bearer token is 401, never a silent downgrade to the public.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_authorization_header_is_read_as_on_every_other_route() {
    let (fx, _sim) = fixture_with_game().await;
    let q = json!({"query": GAME_QUERY, "variables": {"id": "cup.final.r1.t1.g1"}});
    for scheme in ["Bearer", "bearer", "BEARER"] {
        let (status, r) =
            post_authorized(fx.addr, "/graphql", Some(&format!("{scheme} {CHIEF}")), &q).await;
        assert_eq!(status, 200, "{scheme}");
        let view = &r["data"]["game"]["view"];
        assert!(view["seats"][0]["role"].is_string(), "{scheme}: {r}");
    }
    for bad in [CHIEF.to_owned(), format!("Basic {CHIEF}"), "Bearer".into()] {
        let (status, r) = post_authorized(fx.addr, "/graphql", Some(&bad), &q).await;
        assert_eq!(status, 401, "{bad}: {r}");
    }
}

/// A table judge's token answers for its own game only, on every field;
/// the broadcast gets its delayed copy (an hour behind here: the game
/// before its deal), whatever it asks for.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_field_answers_a_token_in_its_audience_and_scope() {
    let (fx, sim) = fixture_with_game().await;
    let other = "cup.final.r1.t2.g1";
    create(&fx.log, other, &sim, 2).await;
    append(&fx.log, other, &sim.events[..60]).await;
    until_folded(&fx.hub, other, 60).await;
    let ask = |query: String| json!({ "query": query });
    let fields = |id: &str| {
        [
            format!(r#"{{ game(id: "{id}") {{ seq view }} }}"#),
            format!(r#"{{ events(gameId: "{id}", after: 0) {{ seq kind }} }}"#),
            format!(r#"{{ protocol(gameId: "{id}") {{ events {{ kind }} }} }}"#),
        ]
    };
    for q in fields(other) {
        let (status, r) = post(fx.addr, "/graphql", Some(JUDGE_T1), &ask(q.clone())).await;
        assert_eq!(status, 200);
        assert!(r["data"].is_null(), "{q}: {r}");
        let why = r["errors"][0]["message"].as_str().unwrap();
        assert!(why.contains("may not watch"), "{q}: {why}");
    }
    let (_, r) = post(
        fx.addr,
        "/graphql",
        Some(JUDGE_T1),
        &ask("{ games { gameId } }".into()),
    )
    .await;
    assert_eq!(
        r["data"]["games"],
        json!([{"gameId": "cup.final.r1.t1.g1"}])
    );
    let [game, events, _] = fields(other);
    let (_, r) = post(fx.addr, "/graphql", Some(BROADCAST), &ask(game)).await;
    assert_eq!(r["data"]["game"]["seq"], 0, "{r}");
    let seats = r["data"]["game"]["view"]["seats"].as_array().unwrap();
    assert!(seats.iter().all(|s| s["role"].is_null()), "{r}");
    let (_, r) = post(fx.addr, "/graphql", Some(BROADCAST), &ask(events)).await;
    assert_eq!(r["data"]["events"], json!([]), "{r}");
    // A sequence from the future gets nothing, not the judges' events.
    let q = format!(r#"{{ events(gameId: "{other}", after: 1000) {{ seq kind }} }}"#);
    for token in [None, Some(BROADCAST)] {
        let (_, r) = post(fx.addr, "/graphql", token, &ask(q.clone())).await;
        assert_eq!(r["data"]["events"], json!([]), "{token:?}: {r}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversized_post_body_is_refused_with_413_and_changes_nothing() {
    let (fx, _sim) = fixture_with_game().await;
    let huge = json!({"query": format!("{{ games {{ gameId }} }} #{}", "x".repeat(1 << 20))});
    let (status, _) = post(fx.addr, "/graphql", None, &huge).await;
    assert_eq!(status, 413);
    let (status, body) = post(
        fx.addr,
        "/graphql",
        None,
        &json!({"query": "{ games { gameId } }"}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert!(body["data"]["games"].is_array(), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_playground_and_the_schema_are_served_from_the_binary_with_no_cdn() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let (fx, _sim) = fixture_with_game().await;
    for path in ["/graphql", "/graphql/schema.graphql"] {
        let mut s = tokio::net::TcpStream::connect(fx.addr).await.unwrap();
        let req = format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        s.write_all(req.as_bytes()).await.unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).await.unwrap();
        let (head, body) = out.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 200"), "{path}: {head}");
        assert!(
            !body.contains("https://") && !body.contains("http://") && !body.contains("//cdn"),
            "{path} loads something from outside the gateway"
        );
        if path.ends_with(".graphql") {
            assert!(body.contains("type SubscriptionRoot"), "{body}");
        } else {
            assert!(
                body.contains("/graphql/ws"),
                "the playground subscribes over /graphql/ws"
            );
        }
    }
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

/// Executions of shared subscription groups so far.
fn executed(fx: &Fixture) -> u64 {
    fx.hub
        .stats()
        .graphql_group_executions
        .load(std::sync::atomic::Ordering::Relaxed)
}

const SUB: &str =
    r#"subscription($id: String!) { game(id: $id) { kind seq view patch event { kind } } }"#;

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
    send(&mut ws, json!({"id": "1", "type": "subscribe", "payload": {"query": SUB, "variables": {"id": "cup.final.r1.t1.g1"}}})).await;
    let m = next_msg(&mut ws).await;
    assert_eq!(m["type"], "next");
    let t = &m["payload"]["data"]["game"];
    assert_eq!(t["kind"], "snapshot");
    assert_eq!(t["seq"], 60);
    assert!(t["view"]["seats"][0]["role"].is_string());
    append(&fx.log, "cup.final.r1.t1.g1", &sim.events[60..70]).await;
    for seq in 61..=70 {
        let m = next_msg(&mut ws).await;
        let t = &m["payload"]["data"]["game"];
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
    let q = r#"subscription { events(gameId: "cup.final.r1.t1.g1", after: 50) { seq kind } }"#;
    send(
        &mut ws,
        json!({"id": "a", "type": "start", "payload": {"query": q}}),
    )
    .await;
    append(&fx.log, "cup.final.r1.t1.g1", &sim.events[60..65]).await;
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
    send(&mut ws, json!({"id": "1", "type": "subscribe", "payload": {"query": SUB, "variables": {"id": "cup.final.r1.t1.g1"}}})).await;
    let m = next_msg(&mut ws).await;
    assert!(m["payload"]["data"]["game"]["view"]["seats"][0]["role"].is_null());
    let before_end = sim
        .events
        .iter()
        .position(|e| matches!(e.event, mafia_rules::Event::GameEnded { .. }))
        .unwrap();
    append(&fx.log, "cup.final.r1.t1.g1", &sim.events[60..before_end]).await;
    until_folded(&fx.hub, "cup.final.r1.t1.g1", before_end as u64).await;
    let want = fx
        .hub
        .state(&gid("cup.final.r1.t1.g1"), Audience::Public)
        .unwrap()
        .seq;
    let mut seq = m["payload"]["data"]["game"]["seq"].as_u64().unwrap();
    while seq < want {
        let m = next_msg(&mut ws).await;
        let t = &m["payload"]["data"]["game"];
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
        send(&mut ws, json!({"id": i.to_string(), "type": "subscribe", "payload": {"query": "subscription { games { kind } }"}})).await;
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
    let q = json!({"query": r#"{ protocol(gameId: "cup.final.r1.t1.g1") { game { gameId } events { seq kind } } }"#});
    let (_, r) = post(fx.addr, "/graphql", None, &q).await;
    assert!(
        r["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("not finished"),
        "{r}"
    );
    append(&fx.log, "cup.final.r1.t1.g1", &sim.events[60..]).await;
    let n = sim.events.len() as u64;
    until_folded(&fx.hub, "cup.final.r1.t1.g1", n).await;
    // The public's copy ends once its last night is over for it.
    let id = gid("cup.final.r1.t1.g1");
    until(&fx.hub, |h| {
        h.state(&id, Audience::Public).is_ok_and(|s| s.over)
    })
    .await;
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

/// The next protocol message that is not a keep-alive, as sent.
async fn next_text(ws: &mut Ws) -> String {
    loop {
        let m = tokio::time::timeout(Duration::from_secs(30), ws.next())
            .await
            .expect("no message within 30 s")
            .expect("stream ended")
            .expect("websocket error");
        match m {
            Message::Text(t) => {
                let v: Value = serde_json::from_str(&t).unwrap();
                if v["type"] != "ka" && v["type"] != "ping" && v["type"] != "pong" {
                    return t.to_string();
                }
            }
            Message::Ping(p) => ws.send(Message::Pong(p)).await.unwrap(),
            Message::Close(c) => panic!("closed: {c:?}"),
            _ => {}
        }
    }
}

/// The payload bytes of a `next`/`data` message, as sent.
fn payload_of<'a>(text: &'a str, id: &str, kind: &str) -> &'a str {
    let head = format!(r#"{{"id":"{id}","type":"{kind}","payload":"#);
    text.strip_prefix(head.as_str())
        .and_then(|t| t.strip_suffix('}'))
        .unwrap_or_else(|| panic!("not a shared {kind} for {id}: {text}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscribers_with_one_query_share_one_execution_per_event() {
    let (fx, sim) = fixture_with_game().await;
    let vars = json!({"id": "cup.final.r1.t1.g1"});
    // Both protocols, one group: the same operation in the same audience.
    let mut subs = Vec::new();
    for i in 0..12 {
        let (protocol, kind, start) = if i % 2 == 0 {
            ("graphql-transport-ws", "next", "subscribe")
        } else {
            ("graphql-ws", "data", "start")
        };
        let mut ws = gql_ws(fx.addr, protocol, "").await;
        send(
            &mut ws,
            json!({"type": "connection_init", "payload": {"token": CHIEF}}),
        )
        .await;
        assert_eq!(next_msg(&mut ws).await["type"], "connection_ack");
        let id = format!("sub-{i}");
        send(
            &mut ws,
            json!({"id": id, "type": start, "payload": {"query": SUB, "variables": vars}}),
        )
        .await;
        let first = next_text(&mut ws).await;
        let snapshot: Value = serde_json::from_str(payload_of(&first, &id, kind)).unwrap();
        assert_eq!(snapshot["data"]["game"]["kind"], "snapshot");
        assert_eq!(snapshot["data"]["game"]["seq"], 60);
        subs.push((ws, id, kind));
    }
    // The same selection behind a directive takes async-graphql's own path:
    // the reference for what the shared path must answer.
    let mut reference = gql_ws(fx.addr, "graphql-transport-ws", "").await;
    send(
        &mut reference,
        json!({"type": "connection_init", "payload": {"token": CHIEF}}),
    )
    .await;
    assert_eq!(next_msg(&mut reference).await["type"], "connection_ack");
    let q = r#"subscription($id: String!) { game(id: $id) @include(if: true) { kind seq view patch event { kind } } }"#;
    send(
        &mut reference,
        json!({"id": "ref", "type": "subscribe", "payload": {"query": q, "variables": vars}}),
    )
    .await;
    let first = next_msg(&mut reference).await;
    assert_eq!(first["payload"]["data"]["game"]["seq"], 60);

    let before = executed(&fx);
    append(&fx.log, "cup.final.r1.t1.g1", &sim.events[60..70]).await;
    for seq in 61..=70u64 {
        let want = next_msg(&mut reference).await;
        assert_eq!(want["type"], "next");
        let mut shared: Option<String> = None;
        for (ws, id, kind) in &mut subs {
            let text = next_text(ws).await;
            let payload = payload_of(&text, id, kind).to_owned();
            let v: Value = serde_json::from_str(&payload).unwrap();
            assert_eq!(v["data"]["game"]["seq"], seq);
            assert_eq!(
                v, want["payload"],
                "shared and per-subscriber answers differ"
            );
            match &shared {
                Some(s) => assert_eq!(s, &payload, "payload bytes differ"),
                None => shared = Some(payload),
            }
        }
    }
    // One group, ten events: ten executions for twelve subscribers.
    assert_eq!(executed(&fx) - before, 10);

    // `complete` ends one subscription; the others go on.
    let (ws0, id0, _) = &mut subs[0];
    send(ws0, json!({"id": id0, "type": "complete"})).await;
    let m: Value = serde_json::from_str(&next_text(ws0).await).unwrap();
    assert_eq!(m["type"], "complete");
    append(&fx.log, "cup.final.r1.t1.g1", &sim.events[70..71]).await;
    for (ws, id, kind) in subs.iter_mut().skip(1) {
        let text = next_text(ws).await;
        let v: Value = serde_json::from_str(payload_of(&text, id, kind)).unwrap();
        assert_eq!(v["data"]["game"]["seq"], 71);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shared_hall_and_events_subscriptions_answer_like_the_resolvers() {
    let (fx, sim) = fixture_with_game().await;
    let public_seq = |fx: &Fixture| {
        fx.hub
            .state(&gid("cup.final.r1.t1.g1"), Audience::Public)
            .unwrap()
            .seq
    };
    let after = public_seq(&fx) - 3;
    let mut ws = gql_ws(fx.addr, "graphql-transport-ws", "").await;
    send(&mut ws, json!({"type": "connection_init"})).await;
    assert_eq!(next_msg(&mut ws).await["type"], "connection_ack");
    let hall = "t: games { __typename kind games { gameId seq view } }";
    let events = format!(
        r#"t: events(gameId: "cup.final.r1.t1.g1", after: {after}) {{ seq at cmd kind event __typename }}"#
    );
    subscribe_on_both_paths(&mut ws, &[hall, &events]).await;
    let mut got: Got = Default::default();
    collect(&mut ws, &mut got, 1, 3).await;
    assert_eq!(got["1"][0], got["2"][0]);
    assert_eq!(got["1"][0]["data"]["t"]["__typename"], "HallMessage");
    assert_eq!(
        got["1"][0]["data"]["t"]["games"][0]["gameId"],
        "cup.final.r1.t1.g1"
    );
    append(&fx.log, "cup.final.r1.t1.g1", &sim.events[60..70]).await;
    until_folded(&fx.hub, "cup.final.r1.t1.g1", 70).await;
    let n = (public_seq(&fx) - after) as usize;
    collect(&mut ws, &mut got, 1, n).await;
    assert_eq!(got["3"][..n], got["4"][..n]);
    assert_eq!(got["3"][0]["data"]["t"]["seq"], after + 1);
    assert_eq!(got["3"][0]["data"]["t"]["__typename"], "GameEvent");
    assert!(
        got["3"][0]["data"]["t"]["cmd"].is_null(),
        "public saw a command number"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hall_subscription_there_before_a_game_opens_gets_its_info_in_its_first_message() {
    let fx = start(
        hub_config(Duration::from_secs(3600)),
        ServerConfig::default(),
    )
    .await;
    let mut ws = gql_ws(fx.addr, "graphql-transport-ws", "").await;
    send(&mut ws, json!({"type": "connection_init"})).await;
    assert_eq!(next_msg(&mut ws).await["type"], "connection_ack");
    let hall = "games { kind games { gameId seq info { gameId tournament table judge } } }";
    subscribe_on_both_paths(&mut ws, &[hall]).await;
    let mut got: Got = Default::default();
    collect(&mut ws, &mut got, 1, 0).await;
    assert_eq!(got["1"][0]["data"]["games"]["games"], json!([]));

    let sim = game(RuleSetId::Club, 7);
    let id = "cup.final.r1.t1.g1";
    create_named(&fx.log, id, &sim, 1, "Cup 2026").await;
    append(&fx.log, id, &sim.events[..60]).await;
    until_folded(&fx.hub, id, 60).await;
    // The new game's first message, then one about its first public event.
    collect(&mut ws, &mut got, 3, 0).await;
    assert_eq!(got["1"][..3], got["2"][..3]);
    let first = &got["1"][1]["data"]["games"];
    assert_eq!(first["kind"], "table");
    assert_eq!(
        first["games"][0],
        json!({"gameId": id, "seq": 0,
            "info": {"gameId": id, "tournament": "Cup 2026", "table": 1, "judge": "Judge"}})
    );
    let later = &got["1"][2]["data"]["games"]["games"][0];
    assert_eq!(later["gameId"], id);
    assert!(later["info"].is_null(), "{later}");
}

/// Subscribes to each field twice: plain, which the shared path serves
/// (ids 1, 3, …), and behind a directive, which takes async-graphql's own
/// path (the next id: 2, 4, …).
async fn subscribe_on_both_paths(ws: &mut Ws, fields: &[&str]) {
    let mut id = 0;
    for field in fields {
        let own = field.replacen(" {", " @include(if: true) {", 1);
        for f in [*field, own.as_str()] {
            id += 1;
            let query = format!("subscription {{ {f} }}");
            send(
                ws,
                json!({"id": id.to_string(), "type": "subscribe", "payload": {"query": query}}),
            )
            .await;
        }
    }
}

type Got = std::collections::HashMap<String, Vec<Value>>;

/// Reads `next` payloads by id until ids 1 and 2 have `hall` each and ids
/// 3 and 4 have `events` each.
async fn collect(ws: &mut Ws, got: &mut Got, hall: usize, events: usize) {
    loop {
        let count = |id: &str| got.get(id).map_or(0, Vec::len);
        if count("1") >= hall && count("2") >= hall && count("3") >= events && count("4") >= events
        {
            return;
        }
        let m = next_msg(ws).await;
        assert_eq!(m["type"], "next", "{m}");
        got.entry(m["id"].as_str().unwrap().to_owned())
            .or_default()
            .push(m["payload"].clone());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subscribe_sent_with_connection_init_is_shared_and_async_graphql_starts_only_when_needed()
{
    let (fx, sim) = fixture_with_game().await;
    let vars = json!({"id": "cup.final.r1.t1.g1"});
    let mut subs = Vec::new();
    for i in 0..3 {
        let mut ws = gql_ws(fx.addr, "graphql-transport-ws", "").await;
        // Both in one write: the subscribe does not wait for the ack.
        let init = json!({"type": "connection_init", "payload": {"token": CHIEF}});
        let sub =
            json!({"id": "s", "type": "subscribe", "payload": {"query": SUB, "variables": vars}});
        ws.feed(Message::Text(init.to_string().into()))
            .await
            .unwrap();
        ws.feed(Message::Text(sub.to_string().into()))
            .await
            .unwrap();
        ws.flush().await.unwrap();
        assert_eq!(
            next_msg(&mut ws).await["type"],
            "connection_ack",
            "client {i}"
        );
        let first = next_msg(&mut ws).await;
        assert_eq!(first["payload"]["data"]["game"]["seq"], 60);
        subs.push(ws);
    }
    let before = executed(&fx);
    append(&fx.log, "cup.final.r1.t1.g1", &sim.events[60..61]).await;
    for ws in &mut subs {
        assert_eq!(next_msg(ws).await["payload"]["data"]["game"]["seq"], 61);
    }
    // One shared execution for the three: none took async-graphql's path.
    assert_eq!(executed(&fx) - before, 1);

    // A graphql-transport-ws ping is answered without async-graphql.
    let ws = &mut subs[0];
    send(ws, json!({"type": "ping"})).await;
    assert_eq!(next_json(ws).await, json!({"type": "pong"}));
    // What only async-graphql serves starts it, as a connection already
    // acknowledged: no second ack, and the caller's audience holds.
    send(
        ws,
        json!({"id": "q", "type": "subscribe", "payload": {"query": r#"subscription($id: String!) { game(id: $id) @include(if: true) { seq } }"#, "variables": vars}}),
    )
    .await;
    let m = next_msg(ws).await;
    assert_eq!(m["type"], "next", "{m}");
    assert_eq!(m["id"], "q");
    assert_eq!(m["payload"]["data"]["game"]["seq"], 61);
    // A second connection_init is refused as the protocol says.
    send(ws, json!({"type": "connection_init"})).await;
    let closed = loop {
        match tokio::time::timeout(Duration::from_secs(30), ws.next())
            .await
            .unwrap()
        {
            Some(Ok(Message::Close(c))) => break c.map(|c| u16::from(c.code)),
            Some(Ok(_)) => continue,
            other => panic!("unexpected {other:?}"),
        }
    };
    assert_eq!(closed, Some(4429));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_graphql_connection_is_pinged_and_closed_when_it_answers_nothing() {
    let server = quick_keepalive(Duration::from_millis(100), Duration::from_millis(600));
    let fx = start(hub_config(Duration::from_secs(3600)), server).await;
    let mut ws = gql_ws(fx.addr, "graphql-transport-ws", "").await;
    send(&mut ws, json!({"type": "connection_init"})).await;
    let got = bytes_until_closed(&mut ws).await;
    assert!(holds_frame(&got, br#"{"type":"connection_ack"}"#));
    assert!(holds_frame(&got, &PING_FRAME), "never pinged");
    assert!(holds_frame(&got, &close_frame(1000, "idle")), "{got:?}");
}
