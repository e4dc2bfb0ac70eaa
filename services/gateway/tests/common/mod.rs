//! Test fixtures: an embedded event log written the way the referee writes
//! it, a gateway on 127.0.0.1:0, and WebSocket clients.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::{SinkExt, StreamExt};
use mafia_event_log::{EmbeddedLog, EventLog};
use mafia_gateway::{app_state, Hub, HubConfig, ServerConfig, Tokens};
use mafia_record::{Header, LoggedEvent};
use mafia_rules::sim::{simulate, SimulatedGame};
use mafia_rules::{Envelope, RuleSetId};
use rand::SeedableRng;
use serde_json::Value;
use tokio_tungstenite::tungstenite::Message;

pub const BROADCAST: &str = "broadcast-token-1";
pub const CHIEF: &str = "chief-judge-token-1";
pub const JUDGE_T1: &str = "table-judge-token-1";
/// A chief judge of table 2 only.
pub const CHIEF_T2: &str = "chief-judge-t2-token-1";

pub type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A simulated game whose events have hidden facts of every kind.
pub fn game(rules: RuleSetId, seed: u64) -> SimulatedGame {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    quick_nights(simulate(rules, &mut rng, 1_700_000_000_000))
}

/// `sim` with its rules' public night cut to a second. The tests feed
/// whole games at once, and the presets' public nights (40-50 s, what
/// `hub_core.rs` and `mafia-rules` test) would hold each morning, and the
/// test, that long.
pub fn quick_nights(mut sim: SimulatedGame) -> SimulatedGame {
    sim.setup.rules.params.public_night_secs = 1;
    sim.game = mafia_rules::Game::replay(sim.setup.clone(), &sim.events).unwrap();
    sim
}

/// A game id from its text.
pub fn gid(s: &str) -> mafia_record::GameId {
    s.parse().expect("a game id")
}

pub fn header(sim: &SimulatedGame, table: u32) -> Header {
    let id = format!("cup.final.r1.t{table}.g1").parse().unwrap();
    let mut header = Header::for_setup(&sim.setup, &id);
    header.judge = "Judge".into();
    header
}

pub struct Fixture {
    pub log: Arc<dyn EventLog>,
    pub hub: Hub,
    pub addr: SocketAddr,
    /// What the server shares: its limits' gauges, the standings board.
    pub state: mafia_gateway::AppState,
    _dir: tempfile::TempDir,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Fixture {
    /// What Ctrl-C does in the binary: the server's shutdown signal, with
    /// the hub still running.
    pub fn signal_shutdown(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}

/// The close code the server ends `ws` with, skipping other messages.
pub async fn close_code(ws: &mut Ws) -> Option<u16> {
    loop {
        let m = tokio::time::timeout(Duration::from_secs(30), ws.next())
            .await
            .expect("no close within 30 s");
        match m {
            Some(Ok(Message::Close(c))) => return c.map(|c| c.code.into()),
            Some(Ok(_)) => {}
            None | Some(Err(_)) => return None,
        }
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        self.hub.close();
    }
}

pub fn tokens() -> Tokens {
    Tokens::from_json(&format!(
        r#"{{"tokens":[{{"role":"broadcast","token":"{BROADCAST}"}},{{"role":"chief_judge","token":"{CHIEF}"}},
            {{"role":"table_judge","token":"{JUDGE_T1}","games":["cup.final.r1.t1.g1"]}},
            {{"role":"chief_judge","token":"{CHIEF_T2}","games":["cup.*.*.t2.*"]}}]}}"#
    ))
    .unwrap()
}

pub async fn start(hub_config: HubConfig, server: ServerConfig) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let log: Arc<dyn EventLog> = Arc::new(
        EmbeddedLog::open(dir.path().join("log.redb"))
            .await
            .unwrap(),
    );
    let hub = Hub::start(log.clone(), hub_config).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let state = app_state(hub.clone(), tokens(), server);
    let shared = state.clone();
    tokio::spawn(mafia_gateway::serve(listener, state, async {
        let _ = rx.await;
    }));
    Fixture {
        log,
        hub,
        addr,
        state: shared,
        _dir: dir,
        shutdown: Some(tx),
    }
}

/// A server that pings a silent client every `ping` and closes one silent
/// for `idle`: the keepalive in milliseconds, for its tests.
pub fn quick_keepalive(ping: Duration, idle: Duration) -> ServerConfig {
    ServerConfig {
        ping_interval: ping,
        idle_timeout: idle,
        ..ServerConfig::default()
    }
}

/// A gateway with `server`'s settings serving one game, `id`, five events
/// in; the game, for its later events.
pub async fn serving_a_game(server: ServerConfig, id: &str) -> (Fixture, SimulatedGame) {
    let fx = start(hub_config(Duration::from_secs(3600)), server).await;
    let sim = game(RuleSetId::Classic, 1);
    create(&fx.log, id, &sim, 1).await;
    append(&fx.log, id, &sim.events[..5]).await;
    until(&fx.hub, |h| h.has_game(&gid(id))).await;
    (fx, sim)
}

pub fn hub_config(delay: Duration) -> HubConfig {
    HubConfig {
        broadcast_delay: delay,
        ..HubConfig::default()
    }
}

/// Creates the game as the referee does (header first, no events).
pub async fn create(log: &Arc<dyn EventLog>, id: &str, sim: &SimulatedGame, table: u32) {
    let h = serde_json::to_vec(&header(sim, table)).unwrap();
    log.create_game(id, &h).await.unwrap();
}

/// [`create`], in a tournament called `name` (what screens show as its
/// title).
pub async fn create_named(
    log: &Arc<dyn EventLog>,
    id: &str,
    sim: &SimulatedGame,
    table: u32,
    name: &str,
) {
    let mut h = header(sim, table);
    h.tournament = name.into();
    log.create_game(id, &serde_json::to_vec(&h).unwrap())
        .await
        .unwrap();
}

/// Appends `events` as LoggedEvent payloads after whatever the game has.
pub async fn append(log: &Arc<dyn EventLog>, id: &str, events: &[Envelope]) {
    if events.is_empty() {
        return;
    }
    let last = log.last_seq(id).await.unwrap();
    let payloads: Vec<Bytes> = events
        .iter()
        .map(|e| {
            Bytes::from(
                serde_json::to_vec(&LoggedEvent {
                    client_seq: None,
                    envelope: *e,
                })
                .unwrap(),
            )
        })
        .collect();
    log.append(id, last, 0, &payloads).await.unwrap();
}

pub async fn connect(addr: SocketAddr, path: &str) -> Ws {
    let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}{path}"))
        .await
        .unwrap_or_else(|e| panic!("connecting to {path}: {e}"));
    ws
}

/// `GET path` over plain HTTP/1.1: the status and the JSON body.
pub async fn get_json(addr: SocketAddr, path: &str) -> (u16, Value) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    tcp.write_all(req.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    tcp.read_to_end(&mut raw).await.unwrap();
    let text = String::from_utf8(raw).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").expect("an HTTP response");
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

/// The HTTP status a WebSocket handshake was refused with.
pub async fn refused(addr: SocketAddr, path: &str) -> u16 {
    match tokio_tungstenite::connect_async(format!("ws://{addr}{path}")).await {
        Ok(_) => panic!("{path} was accepted"),
        Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => resp.status().as_u16(),
        Err(e) => panic!("{path}: unexpected error {e}"),
    }
}

/// The next JSON message, skipping pings; panics after a generous wait so a
/// broken test fails instead of hanging.
pub async fn next_json(ws: &mut Ws) -> Value {
    loop {
        let m = tokio::time::timeout(Duration::from_secs(30), ws.next())
            .await
            .expect("no message within 30 s")
            .expect("stream ended")
            .expect("websocket error");
        match m {
            Message::Text(t) => return serde_json::from_str(&t).unwrap(),
            Message::Ping(p) => ws.send(Message::Pong(p)).await.unwrap(),
            Message::Close(c) => panic!("closed: {c:?}"),
            _ => {}
        }
    }
}

/// A client's copy of a table: a snapshot with deltas applied.
#[derive(Default)]
pub struct Follower {
    pub seq: u64,
    pub view: Value,
    pub events: Vec<Value>,
}

impl Follower {
    /// Applies one feed message; checks the sequence has no gap.
    pub fn apply(&mut self, m: &Value) {
        match m["type"].as_str().unwrap() {
            "snapshot" => {
                self.seq = m["seq"].as_u64().unwrap();
                self.view = m["view"].clone();
            }
            "delta" => {
                let seq = m["seq"].as_u64().unwrap();
                assert_eq!(seq, self.seq + 1, "gap or repeat in the feed");
                self.seq = seq;
                mafia_gateway::patch::apply(&mut self.view, &m["patch"]);
                self.events.push(m["event"].clone());
            }
            other => panic!("unexpected message type {other}"),
        }
    }

    /// The view with nulls dropped, to compare with a fresh snapshot.
    pub fn normalized(&self) -> Value {
        let mut v = self.view.clone();
        mafia_gateway::patch::strip_nulls(&mut v);
        v
    }
}

pub fn normalized(v: &Value) -> Value {
    let mut v = v.clone();
    mafia_gateway::patch::strip_nulls(&mut v);
    v
}

/// Event types the public must never see while a game runs.
pub const HIDDEN: [&str; 7] = [
    "dealt",
    "shot_fired",
    "night_result",
    "don_checked",
    "sheriff_checked",
    "beauty_picked",
    "best_move_made",
];

pub fn is_end(m: &Value) -> bool {
    m["event"]["event"]["type"] == "game_ended"
}

/// Waits until `done` holds of the hub, re-checking after each input it
/// handles (never by polling); panics after a generous wait so a broken
/// test fails instead of hanging.
pub async fn until(hub: &Hub, done: impl FnMut(&Hub) -> bool) {
    tokio::time::timeout(Duration::from_secs(30), hub.wait_until(done))
        .await
        .expect("the hub did not get there within 30 s");
}

/// Waits until the hub has folded `seq` events of `game` (the judges see
/// every one).
pub async fn until_folded(hub: &Hub, game: &str, seq: u64) {
    until(hub, |h| {
        h.state(&gid(game), mafia_rules::Audience::Judge)
            .is_ok_and(|s| s.seq >= seq)
    })
    .await;
}

/// The chromium binary for the screen tests: `MAFIA_CHROMIUM`, or the
/// first of the usual names on PATH.
pub fn chromium() -> Option<std::path::PathBuf> {
    if let Some(p) = std::env::var_os("MAFIA_CHROMIUM") {
        return Some(p.into());
    }
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            std::env::var_os("PATH").and_then(|paths| {
                std::env::split_paths(&paths)
                    .map(|d| d.join(name))
                    .find(|p| p.is_file())
            })
        })
}

/// Everything the server sends on `ws` from now until it closes the
/// socket, read past the WebSocket client, so nothing is answered (no pong)
/// and the client's own writes cannot cut the read short.
pub async fn bytes_until_closed(ws: &mut Ws) -> Vec<u8> {
    use tokio::io::AsyncReadExt;
    let tokio_tungstenite::MaybeTlsStream::Plain(tcp) = ws.get_mut() else {
        panic!("a plain socket");
    };
    let mut all = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), tcp.read_to_end(&mut all))
        .await
        .expect("the server closed the connection within 30 s")
        .expect("read");
    all
}

/// Whether `bytes` hold `frame` (an unmasked server frame).
pub fn holds_frame(bytes: &[u8], frame: &[u8]) -> bool {
    bytes.windows(frame.len()).any(|w| w == frame)
}

/// A server's close frame, as it is on the wire.
pub fn close_frame(code: u16, reason: &str) -> Vec<u8> {
    let mut f = vec![0x88, (2 + reason.len()) as u8];
    f.extend_from_slice(&code.to_be_bytes());
    f.extend_from_slice(reason.as_bytes());
    f
}

/// An empty ping, as the server sends it.
pub const PING_FRAME: [u8; 2] = [0x89, 0x00];
