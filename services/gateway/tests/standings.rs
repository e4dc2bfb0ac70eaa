//! Standings to people: a real gateway following a real tournament log (the
//! committed `crates/tournament/tests/data/cup.jsonl`, written into an
//! embedded event log as the scoring service writes it), over GraphQL, the
//! raw WebSocket channel and the HTTP exports; a newly scored game changes
//! what every one of them serves.

mod common;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use common::{connect, next_json, refused, tokens, Ws, BROADCAST, CHIEF};
use futures::SinkExt;
use mafia_event_log::{EmbeddedLog, EventLog};
use mafia_gateway::{app_state, Hub, HubConfig, ServerConfig};
use mafia_tournament::{
    export, standings, stored, Actor, Tournament, TournamentCommand, TournamentEvent,
};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

pub const CUP_LOG: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../crates/tournament/tests/data/cup.jsonl"
);

pub struct Gateway {
    pub log: Arc<dyn EventLog>,
    pub addr: SocketAddr,
    _dir: tempfile::TempDir,
    _stop: tokio::sync::oneshot::Sender<()>,
}

/// The cup's log as the scoring service stores it, and a gateway on it.
pub async fn gateway() -> Gateway {
    let dir = tempfile::tempdir().unwrap();
    let log: Arc<dyn EventLog> = Arc::new(
        EmbeddedLog::open(dir.path().join("log.redb"))
            .await
            .unwrap(),
    );
    let text = std::fs::read_to_string(CUP_LOG).unwrap();
    let mut lines = text.lines();
    let stream = "tournament.cup";
    log.create_game(stream, lines.next().unwrap().as_bytes())
        .await
        .unwrap();
    let events: Vec<Bytes> = lines.map(|l| Bytes::from(l.to_owned())).collect();
    log.append(stream, 0, 0, &events).await.unwrap();
    let hub = Hub::start(log.clone(), HubConfig::default()).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let state = app_state(hub, tokens(), ServerConfig::default());
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
    let events: Vec<TournamentEvent> = t
        .command(&cmd, &Actor::Organiser, 1_780_000_900_000)
        .unwrap();
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

async fn gql(addr: SocketAddr, auth: Option<&str>, query: &str) -> Value {
    let (status, _, body) = http(
        addr,
        "POST",
        "/graphql",
        auth,
        &json!({ "query": query }).to_string(),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).unwrap()
}

/// The first table the standings channel sends: the follower has folded.
async fn first_table(addr: SocketAddr, token: Option<&str>) -> (Ws, Value) {
    let path = match token {
        Some(t) => format!("/ws/standings/cup?token={t}"),
        None => "/ws/standings/cup".to_owned(),
    };
    let mut ws = connect(addr, &path).await;
    let m = next_json(&mut ws).await;
    (ws, m)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_standings_channel_sends_the_table_then_a_new_version_after_a_scored_game() {
    let gw = gateway().await;
    let (mut ws, m) = first_table(gw.addr, None).await;
    assert_eq!(m["type"], "standings");
    assert_eq!(m["tournament"], "cup");
    let v1 = m["version"].as_u64().unwrap();
    assert_eq!(v1, gw.log.last_seq("tournament.cup").await.unwrap());
    assert_eq!(m["standings"]["games"], 4);
    assert_eq!(m["standings"]["rows"].as_array().unwrap().len(), 20);
    let expected = export::public_standings(standings(&folded(&gw.log).await));
    assert_eq!(m["standings"], serde_json::to_value(&expected).unwrap());

    let v2 = score_round_3(&gw.log).await;
    let m = next_json(&mut ws).await;
    assert_eq!(m["version"].as_u64().unwrap(), v2);
    assert!(v2 > v1);
    assert_eq!(m["standings"]["games"], 5);
    let expected = export::public_standings(standings(&folded(&gw.log).await));
    assert_eq!(m["standings"], serde_json::to_value(&expected).unwrap());
    ws.close(None).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn graphql_standings_give_rank_player_games_wins_by_role_and_the_points_split() {
    let gw = gateway().await;
    first_table(gw.addr, None).await;
    let v = gql(
        gw.addr,
        None,
        "{ standings(tournament: \"cup\") { tournament version games rows { rank player nickname games wins \
         winsByRole { civilian sheriff mafia don } points { base extra bestMove penalties compensation total } \
         extraPending tie } } }",
    )
    .await;
    assert!(v["errors"].is_null(), "{v}");
    let t = folded(&gw.log).await;
    let s = standings(&t);
    let rows = v["data"]["standings"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), s.rows.len());
    for (got, want) in rows.iter().zip(&s.rows) {
        assert_eq!(got["rank"], want.rank);
        assert_eq!(got["player"], want.player.as_str());
        assert_eq!(got["games"], want.games);
        assert_eq!(got["wins"], want.wins);
        assert_eq!(got["winsByRole"]["sheriff"], want.wins_by_role.sheriff);
        assert_eq!(
            got["points"]["total"].as_f64().unwrap(),
            want.points.total.to_f64()
        );
        assert_eq!(
            got["points"]["base"].as_f64().unwrap(),
            want.points.base.to_f64()
        );
        assert_eq!(
            got["extraPending"].as_f64().unwrap(),
            0.0,
            "hidden from the public"
        );
    }
    let v = gql(
        gw.addr,
        None,
        "{ playerHistory(tournament: \"cup\", player: \"p03\") { game seat role outcome points { total } } }",
    )
    .await;
    let h = v["data"]["playerHistory"].as_array().unwrap();
    assert_eq!(h.len(), 2);
    assert_eq!(h[0]["game"], "cup.main.r1.t1.g1");
    assert_eq!(h[0]["role"], "sheriff");
    let v = gql(
        gw.addr,
        None,
        "{ standings(tournament: \"nope\") { version } }",
    )
    .await;
    assert_eq!(v["errors"][0]["message"], "no tournament nope");
    let v = gql(
        gw.addr,
        None,
        "{ playerHistory(tournament: \"cup\", player: \"p99\") { game } }",
    )
    .await;
    assert_eq!(v["errors"][0]["message"], "no player p99 in cup");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pending_approvals_and_open_appeals_are_for_the_chief_judge_only() {
    let gw = gateway().await;
    first_table(gw.addr, None).await;
    let q = "{ pendingApprovals(tournament: \"cup\") { game kind item } openAppeals(tournament: \"cup\") { id } }";
    for who in [None, Some(BROADCAST)] {
        let v = gql(gw.addr, who, q).await;
        assert!(v["data"].is_null(), "{who:?}: {v}");
        assert!(
            v["errors"][0]["message"]
                .as_str()
                .unwrap()
                .contains("rule on"),
            "{v}"
        );
    }
    let v = gql(gw.addr, Some(CHIEF), q).await;
    assert!(v["errors"].is_null(), "{v}");
    let pending = v["data"]["pendingApprovals"].as_array().unwrap();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0]["game"], "cup.main.r1.t1.g1");
    assert_eq!(pending[0]["kind"], "extra_value");
    assert_eq!(v["data"]["openAppeals"], json!([]));
    // The chief judge sees the pending extra in the table too; others do not.
    let q = "{ standings(tournament: \"cup\") { rows { extraPending } } }";
    let pending = |v: &Value| {
        v["data"]["standings"]["rows"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["extraPending"].as_f64() != Some(0.0))
            .count()
    };
    assert_eq!(pending(&gql(gw.addr, Some(CHIEF), q).await), 1);
    assert_eq!(pending(&gql(gw.addr, Some(BROADCAST), q).await), 0);
}

async fn gql_ws(addr: SocketAddr) -> Ws {
    let mut req = format!("ws://{addr}/graphql/ws")
        .into_client_request()
        .unwrap();
    req.headers_mut().insert(
        "sec-websocket-protocol",
        "graphql-transport-ws".parse().unwrap(),
    );
    let (ws, _) = tokio_tungstenite::connect_async(req).await.unwrap();
    ws
}

async fn next_msg(ws: &mut Ws) -> Value {
    loop {
        let m = next_json(ws).await;
        if m["type"] != "ka" && m["type"] != "ping" && m["type"] != "pong" {
            return m;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_graphql_subscription_pushes_a_new_table_with_a_higher_version_after_each_change() {
    let gw = gateway().await;
    first_table(gw.addr, None).await;
    let mut ws = gql_ws(gw.addr).await;
    let send = |v: Value| Message::Text(v.to_string().into());
    ws.send(send(json!({"type": "connection_init", "payload": {}})))
        .await
        .unwrap();
    assert_eq!(next_msg(&mut ws).await["type"], "connection_ack");
    ws.send(send(json!({"type": "subscribe", "id": "s", "payload": {
        "query": "subscription { standings(tournament: \"cup\") { version games rows { player points { total } } } }"
    }})))
    .await
    .unwrap();
    let m = next_msg(&mut ws).await;
    assert_eq!(m["type"], "next", "{m}");
    let first = &m["payload"]["data"]["standings"];
    assert_eq!(first["games"], 4);
    let v1 = first["version"].as_u64().unwrap();
    let v2 = score_round_3(&gw.log).await;
    let m = next_msg(&mut ws).await;
    let next = &m["payload"]["data"]["standings"];
    assert_eq!(next["version"].as_u64().unwrap(), v2);
    assert!(v2 > v1);
    assert_eq!(next["games"], 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_http_exports_are_the_crates_exports_of_the_followed_log() {
    let gw = gateway().await;
    first_table(gw.addr, None).await;
    let t = folded(&gw.log).await;
    let public = export::public_standings(standings(&t));
    let (status, ctype, body) = http(gw.addr, "GET", "/export/cup/standings.csv", None, "").await;
    assert_eq!(status, 200);
    assert!(ctype.starts_with("text/csv"), "{ctype}");
    assert_eq!(body, export::standings_csv(&public));
    let (_, ctype, body) = http(gw.addr, "GET", "/export/cup/standings.json", None, "").await;
    assert!(ctype.starts_with("application/json"));
    assert_eq!(body, export::standings_json(&public));
    let games = export::public_game_points(export::game_points(&t));
    let (_, _, body) = http(gw.addr, "GET", "/export/cup/games.csv", None, "").await;
    assert_eq!(body, export::games_csv(&games));
    let (_, _, body) = http(gw.addr, "GET", "/export/cup/games.json", None, "").await;
    assert_eq!(body, export::games_json(&games));
    // The chief judge's export has the pending extra.
    let (_, _, body) = http(
        gw.addr,
        "GET",
        "/export/cup/standings.json",
        Some(CHIEF),
        "",
    )
    .await;
    assert_eq!(body, export::standings_json(&standings(&t)));
    let (status, ctype, body) = http(gw.addr, "GET", "/export/cup/seating/3.html", None, "").await;
    assert_eq!(status, 200);
    assert!(ctype.starts_with("text/html"));
    assert_eq!(body, export::seating_html(&t, None, 3).unwrap());
    for (path, why) in [
        ("/export/cup/seating/9.html", "round 9 is not seated"),
        ("/export/cup/seating/x.html", "seating/N.html"),
        ("/export/cup/points.xls", "no export points.xls"),
        ("/export/nope/standings.csv", "no tournament nope"),
    ] {
        let (status, _, body) = http(gw.addr, "GET", path, None, "").await;
        assert_eq!(status, 404, "{path}");
        assert!(body.contains(why), "{path}: {body}");
    }
    assert_eq!(
        refused(gw.addr, "/ws/standings/cup?token=wrong-token").await,
        401
    );
}
