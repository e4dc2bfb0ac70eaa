//! The WebSocket transport against real sockets: what one client may take
//! (send budget, connections per address), what it may send (RFC 6455's
//! handshake and close codes), and that a client who left holds nothing
//! (its socket, a standings slot, a trickled request body).

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use common::{connect, gid, next_json, refused, serving_a_game, start, until};
use futures::{SinkExt, StreamExt};
use mafia_gateway::ServerConfig;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;

const GAME: &str = "cup.final.r1.t1.g1";

/// Waits, checking every few milliseconds, until `done` holds; panics
/// after a generous wait so a broken test fails instead of hanging. For
/// conditions nothing signals (gauges, the process's descriptors).
async fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    let give_up = tokio::time::Instant::now() + Duration::from_secs(30);
    while !done() {
        assert!(
            tokio::time::Instant::now() < give_up,
            "{what}: not within 30 s"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// A masked client frame.
fn client_frame(opcode: u8, payload: &[u8]) -> Vec<u8> {
    let mask = [0x37, 0xfa, 0x21, 0x3d];
    let mut f = vec![0x80 | opcode];
    match payload.len() {
        n @ 0..=125 => f.push(0x80 | n as u8),
        n => {
            f.push(0x80 | 126);
            f.extend_from_slice(&(n as u16).to_be_bytes());
        }
    }
    f.extend_from_slice(&mask);
    f.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    f
}

/// A raw socket with a small receive buffer (so the server's writes back
/// up soon), upgraded on `path` with `protocol`, if any.
async fn raw_upgrade(addr: SocketAddr, path: &str, protocol: Option<&str>) -> TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut tcp = socket.connect(addr).await.unwrap();
    let protocol = protocol.map_or(String::new(), |p| {
        format!("Sec-WebSocket-Protocol: {p}\r\n")
    });
    let req = format!(
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
         Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n{protocol}\r\n"
    );
    tcp.write_all(req.as_bytes()).await.unwrap();
    let head = read_head(&mut tcp).await;
    assert!(head.starts_with("HTTP/1.1 101"), "{head}");
    tcp
}

/// The response head, read byte by byte so nothing after it is taken.
async fn read_head(tcp: &mut TcpStream) -> String {
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        let b = tokio::time::timeout(Duration::from_secs(30), tcp.read_u8())
            .await
            .expect("a response head within 30 s")
            .expect("a response head");
        head.push(b);
    }
    String::from_utf8(head).unwrap()
}

/// The server frames in `bytes` (unmasked): opcode and payload.
fn server_frames(mut bytes: &[u8]) -> Vec<(u8, Vec<u8>)> {
    let mut out = Vec::new();
    while bytes.len() >= 2 {
        let (op, len0) = (bytes[0] & 0x0f, (bytes[1] & 0x7f) as usize);
        let (len, at) = match len0 {
            126 if bytes.len() >= 4 => (u16::from_be_bytes([bytes[2], bytes[3]]) as usize, 4),
            127 if bytes.len() >= 10 => (
                u64::from_be_bytes(bytes[2..10].try_into().unwrap()) as usize,
                10,
            ),
            126 | 127 => break,
            n => (n, 2),
        };
        if bytes.len() < at + len {
            break;
        }
        out.push((op, bytes[at..at + len].to_vec()));
        bytes = &bytes[at + len..];
    }
    out
}

/// Floods `tcp` with `frame` (never reading) until the server marks a
/// connection over its budget, then reads what it sent until it closes:
/// the close code of its last frame.
async fn flood_until_over_budget(
    tcp: TcpStream,
    frame: Vec<u8>,
    sockets: &mafia_gateway::limits::Sockets,
) -> Option<u16> {
    let (mut rx, mut tx) = tcp.into_split();
    let chunk: Vec<u8> = frame
        .iter()
        .copied()
        .cycle()
        .take(frame.len() * 64)
        .collect();
    let flood = tokio::spawn(async move { while tx.write_all(&chunk).await.is_ok() {} });
    eventually("a connection over its budget", || {
        sockets.over_budget() >= 1
    })
    .await;
    flood.abort();
    let mut all = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), rx.read_to_end(&mut all))
        .await
        .expect("closed within 30 s")
        .ok()?;
    let frames = server_frames(&all);
    let (op, payload) = frames.last()?;
    (*op == 0x8).then(|| u16::from_be_bytes([payload[0], payload[1]]))
}

fn small_budget() -> ServerConfig {
    ServerConfig {
        send_budget: 64 * 1024,
        ..ServerConfig::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_raw_feed_client_flooding_pings_without_reading_is_closed_1008_within_its_budget() {
    let (fx, _) = serving_a_game(small_budget(), GAME).await;
    let sockets = fx.state.sockets.clone();
    let tcp = raw_upgrade(fx.addr, &format!("/ws/game/{GAME}"), None).await;
    let ping = client_frame(0x9, &[7; 125]);
    let code = flood_until_over_budget(tcp, ping, &sockets).await;
    assert_eq!(code, Some(1008));
    // Never more waited than the budget and one frame (a pong: 127 bytes
    // and the per-frame overhead).
    let bound = sockets.send_budget + 127 + mafia_gateway::limits::FRAME_OVERHEAD;
    assert!(
        sockets.peak_queued_bytes() <= bound,
        "{} > {bound}",
        sockets.peak_queued_bytes()
    );
    eventually("nothing queued once closed", || sockets.queued_bytes() == 0).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_graphql_client_flooding_pings_without_reading_is_closed_1008_within_its_budget() {
    let (fx, _) = serving_a_game(small_budget(), GAME).await;
    let sockets = fx.state.sockets.clone();
    let tcp = raw_upgrade(fx.addr, "/graphql/ws", Some("graphql-transport-ws")).await;
    let ping = client_frame(0x1, br#"{"type":"ping"}"#);
    let code = flood_until_over_budget(tcp, ping, &sockets).await;
    assert_eq!(code, Some(1008));
    let pong = br#"{"type":"pong"}"#.len() + 2;
    let bound = sockets.send_budget + pong + mafia_gateway::limits::FRAME_OVERHEAD;
    assert!(sockets.peak_queued_bytes() <= bound);
    eventually("nothing queued once closed", || sockets.queued_bytes() == 0).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_past_the_per_address_cap_are_refused_503_before_the_upgrade() {
    let server = ServerConfig {
        max_connections_per_address: 3,
        ..ServerConfig::default()
    };
    let (fx, _) = serving_a_game(server, GAME).await;
    let mut held = Vec::new();
    for path in ["/ws/hall", &format!("/ws/game/{GAME}"), "/ws/hall"] {
        let mut ws = connect(fx.addr, path).await;
        next_json(&mut ws).await;
        held.push(ws);
    }
    assert_eq!(refused(fx.addr, "/ws/hall").await, 503);
    assert_eq!(refused(fx.addr, "/graphql/ws").await, 503);
    let sockets = fx.state.sockets.clone();
    assert_eq!(sockets.refused(), 2);
    // One leaves: its place is free again.
    let mut gone = held.pop().unwrap();
    gone.close(None).await.unwrap();
    while gone.next().await.is_some() {}
    drop(gone);
    let local = "127.0.0.1".parse().unwrap();
    eventually("the departed connection's slot back", || {
        sockets.held_by(local) == 2
    })
    .await;
    let mut again = connect(fx.addr, "/ws/hall").await;
    next_json(&mut again).await;
}

/// The status line and headers a raw request gets.
async fn raw_response(addr: SocketAddr, request: &str) -> String {
    let mut tcp = TcpStream::connect(addr).await.unwrap();
    tcp.write_all(request.as_bytes()).await.unwrap();
    read_head(&mut tcp).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handshake_rfc_6455_forbids_is_refused_400_and_a_wrong_version_names_13() {
    let (fx, _) = serving_a_game(ServerConfig::default(), GAME).await;
    let addr = fx.addr;
    // The standings channel runs on axum's WebSocket, checked the same.
    for path in ["/ws/hall", "/graphql/ws", "/ws/standings/cup"] {
        let upgrade = |host: &str, key: &str, version: &str| {
            format!(
                "GET {path} HTTP/1.1\r\n{host}Connection: Upgrade\r\nUpgrade: websocket\r\n\
                 Sec-WebSocket-Version: {version}\r\nSec-WebSocket-Key: {key}\r\n\
                 Sec-WebSocket-Protocol: graphql-transport-ws\r\n\r\n"
            )
        };
        let host = format!("Host: {addr}\r\n");
        let good = "dGhlIHNhbXBsZSBub25jZQ==";
        let ok = raw_response(addr, &upgrade(&host, good, "13")).await;
        assert!(ok.starts_with("HTTP/1.1 101"), "{path}: {ok}");
        for key in [
            "abc",
            "dGhlIHNhbXBsZSBub25jZQ",
            "dGhlIHNhbXBsZSBub25jZSE=",
            "!!!!!!!!!!!!!!!!!!!!!!==",
        ] {
            let r = raw_response(addr, &upgrade(&host, key, "13")).await;
            assert!(r.starts_with("HTTP/1.1 400"), "{path} key {key}: {r}");
        }
        let r = raw_response(addr, &upgrade("", good, "13")).await;
        assert!(r.starts_with("HTTP/1.1 400"), "{path} without Host: {r}");
        let r = raw_response(addr, &upgrade(&host, good, "8")).await;
        assert!(r.starts_with("HTTP/1.1 400"), "{path} version 8: {r}");
        assert!(
            r.to_ascii_lowercase()
                .contains("sec-websocket-version: 13\r\n"),
            "{path} version 8: {r}"
        );
    }
}

/// What the server answers `frame` with on a fresh feed connection: the
/// close code of its last frame.
async fn close_answer(addr: SocketAddr, path: &str, frame: &[u8]) -> Option<u16> {
    close_code(&answer_to(addr, path, frame).await)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_close_code_that_may_not_be_sent_is_answered_1002_never_echoed() {
    let (fx, _) = serving_a_game(ServerConfig::default(), GAME).await;
    for path in [format!("/ws/game/{GAME}"), "/graphql/ws".to_owned()] {
        for code in [0u16, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000] {
            let close = client_frame(0x8, &code.to_be_bytes());
            assert_eq!(
                close_answer(fx.addr, &path, &close).await,
                Some(1002),
                "{path} close {code}"
            );
        }
        for code in [1000u16, 1001, 3000, 4999] {
            let close = client_frame(0x8, &code.to_be_bytes());
            assert_eq!(
                close_answer(fx.addr, &path, &close).await,
                Some(code),
                "{path} close {code}"
            );
        }
        // A 64-bit length with its top bit set: a protocol error, not 1009.
        let mut huge = vec![0x82, 0xFF];
        huge.extend_from_slice(&(1u64 << 63 | 3).to_be_bytes());
        huge.extend_from_slice(&[0, 0, 0, 0]);
        assert_eq!(
            close_answer(fx.addr, &path, &huge).await,
            Some(1002),
            "{path}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trickled_request_body_is_cut_off_at_the_body_deadline_with_408() {
    let server = ServerConfig {
        body_timeout: Duration::from_secs(1),
        ..ServerConfig::default()
    };
    let fx = start(common::hub_config(Duration::ZERO), server).await;
    let mut tcp = TcpStream::connect(fx.addr).await.unwrap();
    let head = "POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
                Content-Length: 1000\r\n\r\n";
    tcp.write_all(head.as_bytes()).await.unwrap();
    let (mut rx, mut tx) = tcp.into_split();
    // One byte every 200 ms: the whole body would take 200 s.
    let trickle = tokio::spawn(async move {
        let mut ticks = tokio::time::interval(Duration::from_millis(200));
        loop {
            ticks.tick().await;
            if tx.write_all(b" ").await.is_err() {
                return;
            }
        }
    });
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), rx.read_to_end(&mut answer))
        .await
        .expect("answered and closed within 30 s")
        .ok();
    trickle.abort();
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
}

/// The inodes of this process's sockets accepted on `port` (local port
/// `port`, not the listener): the server side of each connection.
fn accepted_on(port: u16) -> std::collections::HashSet<String> {
    let mut inodes = std::collections::HashSet::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = std::fs::read_to_string(table) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let f: Vec<&str> = line.split_whitespace().collect();
            let local_port = f[1].rsplit(':').next().unwrap();
            let listening = f[3] == "0A";
            if u16::from_str_radix(local_port, 16) == Ok(port) && !listening && f[9] != "0" {
                inodes.insert(f[9].to_owned());
            }
        }
    }
    inodes
}

/// How many of `inodes` this process still holds a descriptor of (a
/// socket whose connection ended is still held until its descriptor is
/// closed, whatever its TCP state).
fn held(inodes: &std::collections::HashSet<String>) -> usize {
    std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
        .filter_map(|l| {
            let l = l.to_string_lossy().into_owned();
            Some(l.strip_prefix("socket:[")?.strip_suffix(']')?.to_owned())
        })
        .filter(|ino| inodes.contains(ino))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_left_a_finished_game_holds_no_socket_though_no_event_comes() {
    let (fx, sim) = serving_a_game(ServerConfig::default(), GAME).await;
    // The rest of the game: it ends, and no event will ever come again.
    common::append(&fx.log, GAME, &sim.events[5..]).await;
    until(&fx.hub, |h| {
        h.state(&gid(GAME), mafia_rules::Audience::Public)
            .is_ok_and(|s| s.over)
    })
    .await;
    let port = fx.addr.port();
    // The raw feed.
    let mut raw = connect(fx.addr, &format!("/ws/game/{GAME}")).await;
    next_json(&mut raw).await;
    // A shared GraphQL subscription.
    let mut gql = graphql_subscribed(fx.addr).await;
    let mut sockets = std::collections::HashSet::new();
    eventually("both connections held", || {
        sockets = accepted_on(port);
        held(&sockets) == 2
    })
    .await;
    raw.close(None).await.unwrap();
    while raw.next().await.is_some() {}
    gql.close(None).await.unwrap();
    while gql.next().await.is_some() {}
    drop((raw, gql));
    eventually("no socket held for clients that left", || {
        held(&sockets) == 0
    })
    .await;
}

async fn graphql_subscribed(addr: SocketAddr) -> common::Ws {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut req = format!("ws://{addr}/graphql/ws")
        .into_client_request()
        .unwrap();
    req.headers_mut().insert(
        "Sec-WebSocket-Protocol",
        "graphql-transport-ws".parse().unwrap(),
    );
    let (mut ws, _) = tokio_tungstenite::connect_async(req).await.unwrap();
    ws.send(Message::text(r#"{"type":"connection_init"}"#))
        .await
        .unwrap();
    assert_eq!(next_json(&mut ws).await["type"], "connection_ack");
    let sub = serde_json::json!({"id": "1", "type": "subscribe", "payload": {
        "query": format!("subscription {{ game(id: \"{GAME}\") {{ seq }} }}")}});
    ws.send(Message::text(sub.to_string())).await.unwrap();
    assert_eq!(next_json(&mut ws).await["type"], "next");
    ws
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_standings_subscriber_to_an_unknown_tournament_leaves_no_state_behind() {
    let fx = start(common::hub_config(Duration::ZERO), ServerConfig::default()).await;
    let board = fx.state.standings.clone();
    assert_eq!(board.held(), 0);
    let mut ws = connect(fx.addr, "/ws/standings/never-written").await;
    assert_eq!(board.held(), 1);
    ws.close(None).await.unwrap();
    while ws.next().await.is_some() {}
    eventually("the unknown tournament forgotten", || board.held() == 0).await;
    // The GraphQL subscription alike.
    let mut gql = {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        let mut req = format!("ws://{}/graphql/ws", fx.addr)
            .into_client_request()
            .unwrap();
        req.headers_mut().insert(
            "Sec-WebSocket-Protocol",
            "graphql-transport-ws".parse().unwrap(),
        );
        tokio_tungstenite::connect_async(req).await.unwrap().0
    };
    gql.send(Message::text(r#"{"type":"connection_init"}"#))
        .await
        .unwrap();
    assert_eq!(next_json(&mut gql).await["type"], "connection_ack");
    let sub = serde_json::json!({"id": "s", "type": "subscribe", "payload": {
        "query": "subscription { standings(tournament: \"nowhere\") { version } }"}});
    gql.send(Message::text(sub.to_string())).await.unwrap();
    eventually("the subscription holds its slot", || board.held() == 1).await;
    gql.close(None).await.unwrap();
    while gql.next().await.is_some() {}
    eventually("the unknown tournament forgotten", || board.held() == 0).await;
}

#[test]
fn the_tournaments_awaited_at_once_are_bounded() {
    let board = mafia_gateway::board::Board::default();
    let ids: Vec<mafia_record::TournamentId> = (0..mafia_gateway::board::MAX_AWAITED)
        .map(|i| format!("t{i}").parse().unwrap())
        .collect();
    let held: Vec<_> = ids.iter().map(|id| board.watch(id).unwrap()).collect();
    let one_more: mafia_record::TournamentId = "one-more".parse().unwrap();
    assert!(board.watch(&one_more).is_err());
    // One already awaited may be watched again.
    let again = board.watch(&ids[0]).unwrap();
    drop(again);
    drop(held);
    assert_eq!(board.held(), 0);
    assert!(board.watch(&one_more).is_ok());
}

/// Everything the server sends on a fresh connection on `path` after
/// `bytes` (in one write) until it closes: its frames.
async fn answer_to(addr: SocketAddr, path: &str, bytes: &[u8]) -> Vec<(u8, Vec<u8>)> {
    let mut tcp = raw_upgrade(addr, path, Some("graphql-transport-ws")).await;
    tcp.write_all(bytes).await.unwrap();
    let mut all = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), tcp.read_to_end(&mut all))
        .await
        .expect("closed within 30 s")
        // What came before a reset is still read.
        .ok();
    server_frames(&all)
}

fn close_code(frames: &[(u8, Vec<u8>)]) -> Option<u16> {
    let (op, payload) = frames.last()?;
    (*op == 0x8 && payload.len() >= 2).then(|| u16::from_be_bytes([payload[0], payload[1]]))
}

/// Autobahn 3.2, 4.1.3, 5.15: frames are handled in order, so what came
/// before a broken frame is answered before the connection fails.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn frames_before_a_broken_one_are_answered_before_the_connection_fails() {
    let (fx, _) = serving_a_game(ServerConfig::default(), GAME).await;
    let mut bytes = client_frame(0x9, b"first");
    let mut reserved = client_frame(0x1, b"x");
    reserved[0] |= 0x20;
    bytes.extend(reserved);
    bytes.extend(client_frame(0x9, b"never"));
    for path in [format!("/ws/game/{GAME}"), "/graphql/ws".to_owned()] {
        let frames = answer_to(fx.addr, &path, &bytes).await;
        let pongs: Vec<&[u8]> = frames
            .iter()
            .filter(|(op, _)| *op == 0xA)
            .map(|(_, p)| p.as_slice())
            .collect();
        assert_eq!(pongs, [b"first"], "{path}");
        assert_eq!(close_code(&frames), Some(1002), "{path}");
    }
}

/// Autobahn 6.4.1-6.4.4: text that no continuation can make UTF-8 fails
/// the connection with 1007 as soon as it arrives, in a fragment or in
/// part of a frame, not when (or if) the message ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_that_cannot_be_utf8_fails_1007_before_the_message_ends() {
    let (fx, _) = serving_a_game(ServerConfig::default(), GAME).await;
    // κόσμε, then a code point past U+10FFFF; the message never ends.
    let mut first = client_frame(0x1, "κόσμε".as_bytes());
    first[0] &= 0x7f;
    let mut second = client_frame(0x0, b"\xf4\x90\x80\x80");
    second[0] &= 0x7f;
    let fragments = [first, second].concat();
    // One frame of 40 bytes of which only the first 16 come: the valid
    // text, then a UTF-16 surrogate.
    let mut text = "κόσμε".as_bytes().to_vec();
    text.extend_from_slice(b"\xed\xa0\x80");
    text.resize(40, b'a');
    let chopped = client_frame(0x1, &text)[..2 + 4 + 16].to_vec();
    for path in [format!("/ws/game/{GAME}"), "/graphql/ws".to_owned()] {
        for (what, bytes) in [("fragments", &fragments), ("chopped frame", &chopped)] {
            let frames = answer_to(fx.addr, &path, bytes).await;
            assert_eq!(close_code(&frames), Some(1007), "{path}: {what}");
        }
    }
}

/// The echo route of conformance runs exists only when asked for, and
/// echoes on the feeds' transport.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_autobahn_echo_route_is_served_only_with_its_flag() {
    let (fx, _) = serving_a_game(ServerConfig::default(), GAME).await;
    let req = format!(
        "GET /ws/autobahn-echo HTTP/1.1\r\nHost: {}\r\nConnection: Upgrade\r\n\
         Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
        fx.addr
    );
    let head = raw_response(fx.addr, &req).await;
    assert!(head.starts_with("HTTP/1.1 404"), "{head}");
    let echo = ServerConfig {
        autobahn_echo: true,
        ..ServerConfig::default()
    };
    let (fx, _) = serving_a_game(echo, GAME).await;
    let mut ws = connect(fx.addr, "/ws/autobahn-echo").await;
    ws.send(Message::text("κόσμε")).await.unwrap();
    ws.send(Message::binary(vec![0, 255])).await.unwrap();
    assert_eq!(ws.next().await.unwrap().unwrap(), Message::text("κόσμε"));
    assert_eq!(
        ws.next().await.unwrap().unwrap(),
        Message::binary(vec![0, 255])
    );
}
