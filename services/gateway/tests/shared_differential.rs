//! The shared subscription path against async-graphql's own: for every
//! subscription field and a set of selections (aliases, `__typename`,
//! nested objects, arguments as literals and variables, defaults), both
//! give the same payload, byte for byte, event by event. The shared path
//! is taken over a real `/graphql/ws` connection.

mod common;

use std::time::Duration;

use common::*;
use futures::{SinkExt, Stream, StreamExt};
use mafia_gateway::graphql::{field_table, schema};
use mafia_gateway::shared::Plan;
use mafia_gateway::{Caller, ServerConfig};
use mafia_rules::{Audience, RuleSetId};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

const ID: &str = "cup.final.r1.t1.g1";

struct Case {
    query: &'static str,
    variables: Value,
    public: bool,
}

fn cases() -> Vec<Case> {
    let case = |query, variables, public| Case {
        query,
        variables,
        public,
    };
    vec![
        case(
            "subscription($id: String!) { game(id: $id) { kind gameId seq view patch event { seq at cmd kind event } } }",
            json!({"id": ID}),
            false,
        ),
        case(
            "subscription($id: String!) { game(id: $id) { kind gameId seq view patch event { seq at cmd kind event } } }",
            json!({"id": ID}),
            true,
        ),
        case(
            r#"subscription { g: game(id: "cup.final.r1.t1.g1", from: 25) { __typename k: kind s: seq event { __typename kind cmd } } }"#,
            Value::Null,
            false,
        ),
        case(
            "subscription($id: String!, $from: Int) { game(id: $id, from: $from) { seq patch } }",
            json!({"id": ID, "from": 28}),
            false,
        ),
        case(
            "subscription { games { __typename kind games { __typename gameId info { gameId tournament judge } seq view } } }",
            Value::Null,
            false,
        ),
        case(
            "subscription Hall { h: games { kind games { gameId seq } } }",
            Value::Null,
            true,
        ),
        case(
            "subscription($id: String!) { events(gameId: $id) { seq at cmd kind event } }",
            json!({"id": ID}),
            false,
        ),
        case(
            "subscription($id: String!) { events(gameId: $id) { seq at cmd kind event } }",
            json!({"id": ID}),
            true,
        ),
        case(
            r#"subscription { e: events(gameId: "cup.final.r1.t1.g1", after: 27) { __typename s: seq kind } }"#,
            Value::Null,
            false,
        ),
        case(
            "subscription($id: String!, $after: Int! = 29) { events(gameId: $id, after: $after) { kind event } }",
            json!({"id": ID}),
            false,
        ),
    ]
}

type Payloads = std::pin::Pin<Box<dyn Stream<Item = String> + Send>>;

/// The payloads of one subscription on its own graphql-transport-ws
/// connection, as sent.
async fn shared_payloads(
    addr: std::net::SocketAddr,
    token: Option<&str>,
    query: &str,
    variables: &Value,
) -> Payloads {
    let q = token.map_or(String::new(), |t| format!("?token={t}"));
    let mut req = format!("ws://{addr}/graphql/ws{q}")
        .into_client_request()
        .unwrap();
    req.headers_mut().insert(
        "sec-websocket-protocol",
        "graphql-transport-ws".parse().unwrap(),
    );
    let (mut ws, _) = tokio_tungstenite::connect_async(req).await.unwrap();
    let init = json!({"type": "connection_init"});
    ws.send(Message::Text(init.to_string().into()))
        .await
        .unwrap();
    let sub = json!({"id": "1", "type": "subscribe",
        "payload": {"query": query, "variables": variables}});
    ws.send(Message::Text(sub.to_string().into()))
        .await
        .unwrap();
    Box::pin(futures::stream::unfold(ws, |mut ws| async move {
        while let Some(Ok(m)) = ws.next().await {
            let Message::Text(t) = m else { continue };
            if let Some(p) = t
                .strip_prefix(r#"{"id":"1","type":"next","payload":"#)
                .and_then(|t| t.strip_suffix('}'))
            {
                return Some((p.to_owned(), ws));
            }
            let v: Value = serde_json::from_str(&t).unwrap();
            assert!(
                v["type"] == "connection_ack" || v["type"] == "ping" || v["type"] == "pong",
                "unexpected {t}"
            );
        }
        None
    }))
}

async fn next(s: &mut Payloads, what: &str) -> String {
    tokio::time::timeout(Duration::from_secs(30), s.next())
        .await
        .unwrap_or_else(|_| panic!("{what}: no message within 30 s"))
        .unwrap_or_else(|| panic!("{what}: ended"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_shared_path_answers_every_subscription_like_async_graphql_event_by_event() {
    let fx = start(
        hub_config(Duration::from_secs(3600)),
        ServerConfig::default(),
    )
    .await;
    let sim = game(RuleSetId::Club, 7);
    create(&fx.log, ID, &sim, 1).await;
    append(&fx.log, ID, &sim.events[..30]).await;
    until_folded(&fx.hub, ID, 30).await;
    let chief = tokens().check(Some(CHIEF)).unwrap();
    let schema = schema(fx.hub.clone(), mafia_gateway::board::Board::default());
    let fields = field_table();
    let public_before = fx.hub.state(&gid(ID), Audience::Public).unwrap().seq;

    let mut streams = Vec::new();
    for (i, c) in cases().into_iter().enumerate() {
        let caller = if c.public {
            Caller::Public
        } else {
            chief.clone()
        };
        let payload = json!({"query": c.query, "variables": c.variables});
        Plan::parse(&payload, &fields)
            .unwrap_or_else(|| panic!("case {i} is not shared: {}", c.query));
        let token = (!c.public).then_some(CHIEF);
        let shared = shared_payloads(fx.addr, token, c.query, &c.variables).await;
        let request = async_graphql::Request::new(c.query)
            .variables(async_graphql::Variables::from_json(c.variables.clone()))
            .data(caller);
        let own: Payloads = Box::pin(schema.execute_stream(request).map(|r| {
            assert!(r.errors.is_empty(), "{:?}", r.errors);
            format!("{{\"data\":{}}}", serde_json::to_string(&r.data).unwrap())
        }));
        streams.push((i, c, shared, own));
    }
    // The first message of each, so both have subscribed before the game
    // goes on (async-graphql's resolver runs on the first poll).
    let mut seen = vec![0usize; streams.len()];
    let shared_before = fx
        .hub
        .stats()
        .graphql_shared_deliveries
        .load(std::sync::atomic::Ordering::Relaxed);
    for (i, _, shared, own) in &mut streams {
        assert_eq!(
            next(shared, "shared").await,
            next(own, "async-graphql").await,
            "case {i}, message 0"
        );
        seen[*i] = 1;
    }
    append(&fx.log, ID, &sim.events[30..40]).await;
    until_folded(&fx.hub, ID, 40).await;
    let public_after = fx.hub.state(&gid(ID), Audience::Public).unwrap().seq;
    let public_live = (public_after - public_before) as usize;
    assert!(public_live > 0);
    for (i, c, shared, own) in &mut streams {
        // What each case has to come: its catch-up, then one message per
        // event its audience sees.
        let live = if c.public { public_live } else { 10 };
        let catch_up = match *i {
            0 | 1 | 4 | 5 => 1,
            2 => 5,
            3 => 2,
            6 => 30,
            7 => public_before as usize,
            8 => 3,
            9 => 1,
            _ => unreachable!(),
        };
        for n in seen[*i]..catch_up + live {
            let (a, b) = (
                next(shared, "shared").await,
                next(own, "async-graphql").await,
            );
            assert_eq!(a, b, "case {i} ({}), message {n}", c.query);
        }
    }
    // The live messages came through the shared groups, not
    // async-graphql's resolvers.
    let shared_after = fx
        .hub
        .stats()
        .graphql_shared_deliveries
        .load(std::sync::atomic::Ordering::Relaxed);
    assert!(shared_after - shared_before >= 10);
}
