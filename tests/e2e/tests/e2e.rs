//! The whole system for real: a referee and a gateway process on one real
//! Redis, a recorded game streamed by `mafia play`, followed by raw WebSocket
//! clients (public, broadcast, chief judge) and by the reference `graphql-ws`
//! npm client. Checks the audiences' boundaries, the broadcast delay, and
//! that the final state equals the record's replay.

use futures::StreamExt;
use mafia_event_log::testing::RedisServer;
use mafia_record::Record;
use mafia_rules::Audience;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};
use tokio_tungstenite::tungstenite::Message;

const CHIEF: &str = "chief-e2e-token";
const JUDGE: &str = "judge-e2e-token";
const BROADCAST: &str = "broadcast-e2e-token";
const DELAY_SECS: u64 = 2;
/// Event types the public must never see before the game has a result.
const HIDDEN: &[&str] = &[
    "dealt",
    "shot_fired",
    "night_result",
    "don_checked",
    "sheriff_checked",
    "beauty_picked",
    "best_move_made",
];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The binaries of the workspace, built now if needed, in this test's own
/// target directory.
fn bins() -> PathBuf {
    let status = std::process::Command::new(env!("CARGO"))
        .current_dir(workspace())
        .args([
            "build",
            "--bins",
            "-p",
            "mafia-referee",
            "-p",
            "mafia-gateway",
            "-p",
            "mafia-cli",
        ])
        .status()
        .expect("cargo runs");
    assert!(status.success(), "building the binaries failed");
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().parent().unwrap().to_path_buf()
}

async fn spawn(
    cmd: &mut Command,
) -> (
    Child,
    tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
) {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("the process starts");
    let lines = BufReader::new(child.stdout.take().unwrap()).lines();
    (child, lines)
}

/// Reads stdout lines until one contains `marker`; returns the address after it.
async fn address_after(
    lines: &mut tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
    marker: &str,
) -> String {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        let line = tokio::time::timeout(Duration::from_secs(60), lines.next_line())
            .await
            .expect("the process prints its address")
            .unwrap()
            .expect("the process did not exit");
        if let Some(rest) = line.split(marker).nth(1) {
            let addr = rest.trim().trim_start_matches("http://");
            return addr.split('/').next().unwrap().to_string();
        }
    }
    panic!("no line with {marker:?}");
}

/// One WebSocket feed's messages, each with the instant it arrived.
async fn follow_ws(url: String) -> Vec<(Instant, Value)> {
    let mut ws = None;
    for _ in 0..200 {
        match tokio_tungstenite::connect_async(url.as_str()).await {
            Ok((s, _)) => {
                ws = Some(s);
                break;
            }
            // The table appears when `mafia play` has opened the game.
            Err(_) => tokio::time::sleep(Duration::from_millis(25)).await,
        }
    }
    let mut ws = ws.unwrap_or_else(|| panic!("could not connect to {url}"));
    let mut got = Vec::new();
    while let Ok(Some(msg)) = tokio::time::timeout(Duration::from_secs(120), ws.next()).await {
        let Ok(Message::Text(text)) = msg else {
            continue;
        };
        let v: Value = serde_json::from_str(&text).unwrap();
        let e = &v["event"]["event"];
        let done = e["type"] == "step_started" && e["step"]["kind"] == "ended";
        got.push((Instant::now(), v));
        if done {
            break;
        }
    }
    got
}

fn merge(target: &mut Value, patch: &Value) {
    match (target, patch) {
        (Value::Object(t), Value::Object(p)) => {
            for (k, v) in p {
                if v.is_null() {
                    t.remove(k);
                } else {
                    merge(t.entry(k.clone()).or_insert(Value::Null), v);
                }
            }
        }
        (t, p) => *t = p.clone(),
    }
}

/// The view a feed ends on: its snapshot with every patch applied.
fn final_view(feed: &[(Instant, Value)]) -> Value {
    let mut view = Value::Null;
    for (_, m) in feed {
        match m["type"].as_str() {
            Some("snapshot") => view = m["view"].clone(),
            Some("delta") => merge(&mut view, &m["patch"]),
            _ => {}
        }
    }
    view
}

/// Drops the nulls a merge patch cannot carry, so views compare by content.
fn without_nulls(v: &Value) -> Value {
    match v {
        Value::Object(o) => Value::Object(
            o.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), without_nulls(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(without_nulls).collect()),
        v => v.clone(),
    }
}

async fn graphql_ws_client(gateway: &str, game: &str) -> tokio::process::Child {
    let js = workspace().join("tests/e2e/js");
    if !js.join("node_modules/graphql-ws").exists() {
        let status = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&js)
            .status()
            .await
            .expect("npm runs (install Node.js and npm)");
        assert!(status.success(), "npm ci failed");
    }
    Command::new("node")
        .arg(js.join("follow.mjs"))
        .arg(format!("ws://{gateway}/graphql/ws"))
        .arg(game)
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("node runs")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_recorded_game_streamed_to_the_referee_reaches_every_audience_as_allowed() {
    let bin = bins();
    let redis = RedisServer::from_env_or_spawn().expect("a redis-server");
    let prefix = mafia_event_log::testing::unique_prefix("e2e");
    let record_path = workspace().join("tests/records/sim/rfm.jsonl");
    let record = Record::parse(&std::fs::read_to_string(&record_path).unwrap()).unwrap();
    let game = record.header().game_id().unwrap();
    // One token file for both services, as deploy/run.sh passes it.
    let tokens = json!({"tokens": [
        {"role": "chief_judge", "token": CHIEF},
        {"role": "broadcast", "token": BROADCAST},
        {"role": "table_judge", "token": JUDGE, "games": [game.to_string()]},
    ]})
    .to_string();

    let (_referee, mut out) = spawn(
        Command::new(bin.join("mafia-referee"))
            .args([
                "--listen",
                "127.0.0.1:0",
                "--metrics-listen",
                "",
                "--store",
                "redis",
            ])
            .args(["--redis-url", redis.url(), "--redis-prefix", &prefix])
            .env("MAFIA_TOKENS", &tokens),
    )
    .await;
    let referee = address_after(&mut out, "listening on").await;

    let (_gateway, mut out) = spawn(
        Command::new(bin.join("mafia-gateway"))
            .args(["--listen", "127.0.0.1:0", "--redis-url", redis.url()])
            .args(["--redis-prefix", &prefix])
            .args(["--broadcast-delay-secs", &DELAY_SECS.to_string()])
            .env("MAFIA_TOKENS", &tokens),
    )
    .await;
    let gateway = address_after(&mut out, "hall screen:").await;

    let play = Command::new(bin.join("mafia"))
        .args([
            "play",
            "--referee",
            &format!("http://{referee}"),
            "--token",
            JUDGE,
        ])
        .arg(&record_path)
        .args(["--speed", "100"])
        .kill_on_drop(true)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();

    let ws = |token: Option<&str>| {
        let q = token.map(|t| format!("?token={t}")).unwrap_or_default();
        tokio::spawn(follow_ws(format!("ws://{gateway}/ws/game/{game}{q}")))
    };
    let public = ws(None);
    let chief = ws(Some(CHIEF));
    let broadcast = ws(Some(BROADCAST));
    // The table exists once the public feed is connected; then the npm client.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let gql = graphql_ws_client(&gateway, &game.to_string()).await;

    let status = play.wait_with_output().await.unwrap().status;
    assert!(status.success(), "mafia play failed");
    let (public, chief, broadcast) = (
        public.await.unwrap(),
        chief.await.unwrap(),
        broadcast.await.unwrap(),
    );
    let gql = gql.wait_with_output().await.unwrap();
    assert!(
        gql.status.success(),
        "graphql-ws client: {}",
        String::from_utf8_lossy(&gql.stderr)
    );

    // The public raw feed and the GraphQL public subscription: no hidden fact
    // before the result.
    let mut ended = false;
    for (_, m) in &public {
        let kind = m["event"]["event"]["type"].as_str().unwrap_or("");
        assert!(ended || !HIDDEN.contains(&kind), "public feed carried {m}");
        if m["type"] == "snapshot" && !ended {
            assert!(m["view"]["seats"]
                .as_array()
                .unwrap()
                .iter()
                .all(|s| s["role"].is_null()));
        }
        ended |= kind == "game_ended";
    }
    assert!(ended, "the public feed saw the end");
    let mut ended = false;
    let gql_lines: Vec<Value> = String::from_utf8_lossy(&gql.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(gql_lines.len() > 10, "graphql-ws followed the game");
    for e in &gql_lines {
        let kind = e["kind"].as_str().unwrap();
        assert!(
            ended || !HIDDEN.contains(&kind),
            "graphql public stream carried {e}"
        );
        ended |= kind == "game_ended";
    }

    // The broadcast saw the hidden facts, each after the chief judge saw it
    // live. How long after is the hub's to decide and its tests' to check
    // on explicit instants (hub_core, hub): here a loaded machine may read
    // either socket late, so only the order is asserted and the smallest
    // lag printed.
    let live: std::collections::HashMap<u64, Instant> = chief
        .iter()
        .filter(|(_, m)| m["type"] == "delta")
        .map(|(t, m)| (m["seq"].as_u64().unwrap(), *t))
        .collect();
    let mut hidden_seen = 0;
    let mut smallest = None::<Duration>;
    for (t, m) in broadcast.iter().filter(|(_, m)| m["type"] == "delta") {
        let seq = m["seq"].as_u64().unwrap();
        if HIDDEN.contains(&m["event"]["event"]["type"].as_str().unwrap_or("")) {
            hidden_seen += 1;
        }
        if let Some(first) = live.get(&seq) {
            assert!(first < t, "broadcast event {seq} came before the live one");
            let lag = t.duration_since(*first);
            smallest = Some(smallest.map_or(lag, |s: Duration| s.min(lag)));
        }
    }
    println!("smallest broadcast lag behind the live stream: {smallest:?} (delay {DELAY_SECS} s)");
    assert!(hidden_seen > 0, "the broadcast carries hidden facts");

    // Every feed ends where the record's replay ends.
    let replayed = record.replay();
    assert!(replayed.violation.is_none());
    let expected = |aud| without_nulls(&serde_json::to_value(replayed.game.view(aud)).unwrap());
    assert_eq!(
        without_nulls(&final_view(&chief)),
        expected(Audience::Judge)
    );
    assert_eq!(
        without_nulls(&final_view(&broadcast)),
        expected(Audience::Broadcast)
    );
    let pv = without_nulls(&final_view(&public));
    let ev = expected(Audience::Public);
    assert_eq!(pv["seats"], ev["seats"]);
    assert_eq!(pv["result"], ev["result"]);

    // The gateway's GraphQL query agrees with the feeds.
    let body = json!({"query": format!("{{ game(id: \"{game}\") {{ view }} }}")}).to_string();
    let mut tcp = tokio::net::TcpStream::connect(&gateway).await.unwrap();
    let req = format!(
        "POST /graphql HTTP/1.1\r\nHost: {gateway}\r\nAuthorization: Bearer {CHIEF}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    tcp.write_all(req.as_bytes()).await.unwrap();
    let mut resp = String::new();
    tcp.read_to_string(&mut resp).await.unwrap();
    let json_body: Value = serde_json::from_str(resp.split("\r\n\r\n").nth(1).unwrap()).unwrap();
    assert_eq!(
        without_nulls(&json_body["data"]["game"]["view"]),
        expected(Audience::Judge)
    );
}
