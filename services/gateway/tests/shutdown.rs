//! FEED.md: on shutdown every WebSocket is closed with 1001 (going away).

mod common;

use std::time::Duration;

use common::*;
use futures::SinkExt;
use mafia_gateway::ServerConfig;
use mafia_rules::RuleSetId;
use serde_json::json;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

#[tokio::test]
async fn shutdown_closes_every_websocket_with_going_away() {
    let mut fx = start(hub_config(Duration::ZERO), ServerConfig::default()).await;
    let sim = game(RuleSetId::Rfm, 5);
    create(&fx.log, "cup-t1", &sim, 1).await;
    append(&fx.log, "cup-t1", &sim.events[..10]).await;
    until(&fx.hub, |h| h.has_table("cup-t1")).await;

    let mut raw = connect(fx.addr, "/ws/table/cup-t1").await;
    next_json(&mut raw).await;
    let mut hall = connect(fx.addr, "/ws/hall").await;
    next_json(&mut hall).await;
    let mut req = format!("ws://{}/graphql/ws", fx.addr)
        .into_client_request()
        .unwrap();
    req.headers_mut().insert(
        "sec-websocket-protocol",
        "graphql-transport-ws".parse().unwrap(),
    );
    let (mut gql, _) = tokio_tungstenite::connect_async(req).await.unwrap();
    gql.send(Message::Text(
        json!({"type": "connection_init", "payload": {}})
            .to_string()
            .into(),
    ))
    .await
    .unwrap();
    assert_eq!(next_json(&mut gql).await["type"], "connection_ack");

    fx.signal_shutdown();
    assert_eq!(close_code(&mut raw).await, Some(1001), "raw feed");
    assert_eq!(close_code(&mut hall).await, Some(1001), "hall");
    assert_eq!(close_code(&mut gql).await, Some(1001), "GraphQL");
}

#[tokio::test]
async fn a_client_message_over_the_limit_is_closed_with_1009() {
    let fx = start(hub_config(Duration::ZERO), ServerConfig::default()).await;
    let sim = game(RuleSetId::Rfm, 5);
    create(&fx.log, "cup-t1", &sim, 1).await;
    append(&fx.log, "cup-t1", &sim.events[..10]).await;
    until(&fx.hub, |h| h.has_table("cup-t1")).await;
    let mut raw = connect(fx.addr, "/ws/table/cup-t1").await;
    next_json(&mut raw).await;
    raw.send(Message::Text("x".repeat(200_000).into()))
        .await
        .unwrap();
    assert_eq!(close_code(&mut raw).await, Some(1009));
}
