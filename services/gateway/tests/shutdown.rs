//! FEED.md: shutdown closes every WebSocket with 1001; oversized client
//! messages get 1009; the clock the screens count timers against.

mod common;

use std::time::Duration;

use common::*;
use futures::SinkExt;
use mafia_gateway::ServerConfig;
use mafia_rules::RuleSetId;
use serde_json::json;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

/// A gateway following one game, "cup.final.r1.t1.g1", 10 events in.
async fn with_a_table(fx: &Fixture) {
    let sim = game(RuleSetId::Rfm, 5);
    create(&fx.log, "cup.final.r1.t1.g1", &sim, 1).await;
    append(&fx.log, "cup.final.r1.t1.g1", &sim.events[..10]).await;
    until(&fx.hub, |h| h.has_game(&gid("cup.final.r1.t1.g1"))).await;
}

#[tokio::test]
async fn shutdown_closes_every_websocket_with_going_away() {
    let mut fx = start(hub_config(Duration::ZERO), ServerConfig::default()).await;
    with_a_table(&fx).await;

    let mut raw = connect(fx.addr, "/ws/game/cup.final.r1.t1.g1").await;
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
    with_a_table(&fx).await;
    let mut raw = connect(fx.addr, "/ws/game/cup.final.r1.t1.g1").await;
    next_json(&mut raw).await;
    raw.send(Message::Text("x".repeat(200_000).into()))
        .await
        .unwrap();
    assert_eq!(close_code(&mut raw).await, Some(1009));
}

#[tokio::test]
async fn the_clock_endpoint_gives_the_gateways_time_for_screen_timers() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let fx = start(hub_config(Duration::ZERO), ServerConfig::default()).await;
    let mut s = tokio::net::TcpStream::connect(fx.addr).await.unwrap();
    s.write_all(b"GET /api/clock HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).await.unwrap();
    let (head, body) = out.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(
        head.to_ascii_lowercase()
            .contains("cache-control: no-store"),
        "{head}"
    );
    let v: serde_json::Value = serde_json::from_str(body).unwrap();
    let server_ms = v["server_ms"].as_u64().unwrap();
    let ours = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    // Same machine: the same day, not a stale or zero clock.
    assert!(
        server_ms.abs_diff(ours) < 86_400_000,
        "{server_ms} vs {ours}"
    );
}

/// issue 15: small frames to many clients must not wait for Nagle.
#[tokio::test]
async fn every_accepted_socket_has_tcp_nodelay() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let fx = start(hub_config(Duration::ZERO), ServerConfig::default()).await;
    let mut client = tokio::net::TcpStream::connect(fx.addr).await.unwrap();
    let local = client.local_addr().unwrap();
    // An answer on this connection means the server has accepted it.
    client
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let mut buf = [0u8; 64];
    let n = client.read(&mut buf).await.unwrap();
    assert!(buf[..n].starts_with(b"HTTP/1.1 200"));
    let nodelay = mafia_event_log::testing::net::accepted_nodelay(fx.addr, local).unwrap();
    assert_eq!(nodelay, Some(true));
}
