//! The cup tournament's log in a real embedded event log, and a gateway
//! following it (shared by the standings tests and their screens).
#![allow(dead_code)]

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use mafia_event_log::{EmbeddedLog, EventLog};
use mafia_gateway::{app_state, Hub, HubConfig, ServerConfig};
use mafia_tournament::{stored, Actor, Tournament, TournamentCommand, TournamentEvent};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::common::tokens;

pub const CUP_LOG: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../crates/tournament/tests/data/cup.jsonl"
);

pub struct Gateway {
    pub log: Arc<dyn EventLog>,
    pub hub: Hub,
    pub addr: SocketAddr,
    _dir: tempfile::TempDir,
    _stop: tokio::sync::oneshot::Sender<()>,
}

/// An embedded event log in a directory of its own.
async fn open_log() -> (tempfile::TempDir, Arc<dyn EventLog>) {
    let dir = tempfile::tempdir().unwrap();
    let log: Arc<dyn EventLog> = Arc::new(
        EmbeddedLog::open(dir.path().join("log.redb"))
            .await
            .unwrap(),
    );
    (dir, log)
}

/// The cup's log as the scoring service stores it, and a gateway on it.
pub async fn gateway() -> Gateway {
    let (dir, log) = open_log().await;
    write_cup(&log).await;
    serve(dir, log, with_delay(Duration::from_secs(1))).await
}

/// The round-3 game [`score_round_3`] scores.
pub const ROUND_3: &str = "cup.main.r3.t1.g1";

/// The cup with its round-3 game ([`ROUND_3`]) played in the log and
/// scored: every event of it long ago but its end, which came `ended_ago`
/// ago; and a gateway whose broadcast lags by `delay`.
pub async fn gateway_after_a_game(delay: Duration, ended_ago: Duration) -> Gateway {
    let (dir, log) = open_log().await;
    write_cup(&log).await;
    let sim = crate::common::game(mafia_rules::RuleSetId::Classic, 3);
    let id: mafia_record::GameId = ROUND_3.parse().unwrap();
    let header = mafia_record::Header::for_setup(&sim.setup, &id);
    log.create_game(ROUND_3, &serde_json::to_vec(&header).unwrap())
        .await
        .unwrap();
    let now = mafia_gateway::hub::unix_ms();
    let ended = now - ended_ago.as_millis() as i64;
    let long_ago = ended - 3 * 3_600_000;
    let mut over = false;
    let events: Vec<mafia_rules::Envelope> = sim
        .events
        .iter()
        .enumerate()
        .map(|(i, e)| {
            over |= matches!(e.event, mafia_rules::Event::GameEnded { .. });
            let at = if over { ended } else { long_ago + i as i64 };
            mafia_rules::Envelope { at, ..*e }
        })
        .collect();
    crate::common::append(&log, ROUND_3, &events).await;
    score_round_3(&log).await;
    serve(dir, log, with_delay(delay)).await
}

/// A gateway on a log with no tournament yet.
pub async fn empty_gateway() -> Gateway {
    let (dir, log) = open_log().await;
    serve(dir, log, with_delay(Duration::from_secs(1))).await
}

/// Writes the committed cup log into `log` as the scoring service would;
/// returns its last seq.
pub async fn write_cup(log: &Arc<dyn EventLog>) -> u64 {
    let text = std::fs::read_to_string(CUP_LOG).unwrap();
    let mut lines = text.lines();
    let stream = "tournament.cup";
    log.create_game(stream, lines.next().unwrap().as_bytes())
        .await
        .unwrap();
    let events: Vec<Bytes> = lines.map(|l| Bytes::from(l.to_owned())).collect();
    log.append(stream, 0, 0, &events).await.unwrap().last_seq
}

fn with_delay(broadcast_delay: Duration) -> HubConfig {
    HubConfig {
        broadcast_delay,
        ..HubConfig::default()
    }
}

// The screens' tests follow games as they are written, with a broadcast
// token too: the default minute of broadcast delay would outwait them, so
// they serve with a delay of a second.
async fn serve(dir: tempfile::TempDir, log: Arc<dyn EventLog>, config: HubConfig) -> Gateway {
    let hub = Hub::start(log.clone(), config).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let state = app_state(hub.clone(), tokens(), ServerConfig::default());
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let (stop_follow, follow_rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(mafia_gateway::standings::follow(
        state.standings.clone(),
        log.clone(),
        async {
            let _ = follow_rx.await;
        },
    ));
    tokio::spawn(async move {
        let _keep = stop_follow;
        mafia_gateway::serve(listener, state, async {
            let _ = rx.await;
        })
        .await
    });
    Gateway {
        log,
        hub,
        addr,
        _dir: dir,
        _stop: tx,
    }
}

/// The cup as the log holds it now.
pub async fn folded(log: &Arc<dyn EventLog>) -> Tournament {
    let header = log.header("tournament.cup").await.unwrap().unwrap();
    let events = log.read("tournament.cup", 1, 10_000).await.unwrap();
    stored::fold_stored(&header, events.iter().map(|e| &e.payload[..])).unwrap()
}

/// Scores round 3, table 1 as the scoring service would: red wins again,
/// with round 1 table 1's facts (the same ten players in the same seats).
/// Returns the log's new last seq.
pub async fn score_round_3(log: &Arc<dyn EventLog>) -> u64 {
    let t = folded(log).await;
    let r1 = "cup.main.r1.t1.g1".parse().unwrap();
    let facts = t.games[&r1].result.as_ref().unwrap().facts.clone();
    let cmd = TournamentCommand::RecordResult {
        game: "cup.main.r3.t1.g1".parse().unwrap(),
        facts,
        ended_at: 1_780_000_900_000,
    };
    run(log, &cmd, &Actor::RefereeLog, 1_780_000_900_000).await
}

/// Runs one command on the stored tournament as the scoring service would:
/// decided on the folded state, its events appended; the new version.
pub async fn run(log: &Arc<dyn EventLog>, cmd: &TournamentCommand, by: &Actor, at: i64) -> u64 {
    let t = folded(log).await;
    let events: Vec<TournamentEvent> = t.command(cmd, by, at).unwrap();
    let last = log.last_seq("tournament.cup").await.unwrap();
    let payloads: Vec<Bytes> = events
        .iter()
        .map(|e| Bytes::from(stored::encode(e)))
        .collect();
    log.append("tournament.cup", last, 0, &payloads)
        .await
        .unwrap()
        .last_seq
}

/// A minimal HTTP/1.1 request: status, content type, body.
pub async fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    auth: Option<&str>,
    body: &str,
) -> (u16, String, String) {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let auth = auth.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n{auth}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
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
    let ctype = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-type: ")
                .map(str::to_owned)
        })
        .unwrap_or_default();
    (status, ctype, body.to_owned())
}
