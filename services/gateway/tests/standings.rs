//! Standings to people: a real gateway following a real tournament log (the
//! committed `crates/tournament/tests/data/cup.jsonl`, written into an
//! embedded event log as the scoring service writes it), over GraphQL, the
//! raw WebSocket channel and the HTTP exports; a newly scored game changes
//! what every one of them serves.

mod common;
#[path = "common/cup.rs"]
mod cup;

use std::net::SocketAddr;

use common::{connect, next_json, refused, Ws, BROADCAST, CHIEF, CHIEF_T2};
use cup::{empty_gateway, folded, gateway, http, run, score_round_3, write_cup};
use futures::SinkExt;
use mafia_tournament::{export, standings, Actor, AppealDecision, TournamentCommand};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

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

/// An appeal filed and then rejected: open while it waits, then in
/// `appeals` with the chief judge's ruling and no longer open; nobody but
/// the chief judge reads either list.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_decided_appeal_is_read_back_with_its_ruling_by_the_chief_judge() {
    let gw = gateway().await;
    let (mut ws, _) = first_table(gw.addr, None).await;
    let game: mafia_record::GameId = "cup.main.r1.t1.g1".parse().unwrap();
    let ended = folded(&gw.log).await.games[&game]
        .result
        .as_ref()
        .unwrap()
        .ended_at;
    let file = TournamentCommand::FileAppeal {
        game: game.clone(),
        player: None,
        event_seq: Some(40),
        text: "the vote was miscounted".into(),
    };
    run(&gw.log, &file, &Actor::Organiser, ended + 60_000).await;
    next_json(&mut ws).await;
    let q = "{ openAppeals(tournament: \"cup\") { id text decided { kind } } appeals(tournament: \"cup\") { id eventSeq decided { kind reason by at decision } } }";
    let v = gql(gw.addr, Some(CHIEF), q).await;
    assert_eq!(
        v["data"]["openAppeals"],
        json!([{ "id": 1, "text": "the vote was miscounted", "decided": null }]),
        "{v}"
    );
    assert_eq!(v["data"]["appeals"][0]["decided"], Value::Null, "{v}");
    let decide = TournamentCommand::DecideAppeal {
        appeal: 1,
        decision: AppealDecision::Rejected,
        reason: "the count was checked on the video".into(),
    };
    run(&gw.log, &decide, &Actor::ChiefJudge, ended + 120_000).await;
    next_json(&mut ws).await;
    let v = gql(gw.addr, Some(CHIEF), q).await;
    assert_eq!(v["data"]["openAppeals"], json!([]), "{v}");
    assert_eq!(
        v["data"]["appeals"],
        json!([{ "id": 1, "eventSeq": 40, "decided": {
            "kind": "rejected",
            "reason": "the count was checked on the video",
            "by": "the chief judge",
            "at": ended + 120_000,
            "decision": { "kind": "rejected" },
        } }]),
        "{v}"
    );
    for who in [None, Some(BROADCAST)] {
        let v = gql(gw.addr, who, q).await;
        assert!(v["data"].is_null(), "{who:?}: {v}");
    }
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

/// A chief judge of table 2 reads table 2's approvals and appeals only: the
/// extra waiting on table 1 and an appeal against table 1's game are not
/// his, nor the standings' pending sums, which mix every game.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chief_judge_of_one_table_reads_only_that_tables_approvals_and_appeals() {
    let gw = gateway().await;
    let (mut ws, _) = first_table(gw.addr, None).await;
    let game: mafia_record::GameId = "cup.main.r1.t1.g1".parse().unwrap();
    let t = folded(&gw.log).await;
    let ended = t.games[&game].result.as_ref().unwrap().ended_at;
    let file = TournamentCommand::FileAppeal {
        game,
        player: None,
        event_seq: None,
        text: "table 1".into(),
    };
    run(&gw.log, &file, &Actor::Organiser, ended + 60_000).await;
    next_json(&mut ws).await;
    let q = "{ pendingApprovals(tournament: \"cup\") { game } openAppeals(tournament: \"cup\") { id } appeals(tournament: \"cup\") { id } standings(tournament: \"cup\") { rows { extraPending } } }";
    // Approvals, open appeals, appeals, and rows with a pending extra.
    let seen = |v: &Value| {
        let count = |field: &str| v["data"][field].as_array().unwrap().len();
        let rows = v["data"]["standings"]["rows"].as_array().unwrap();
        let pending = rows
            .iter()
            .filter(|r| r["extraPending"].as_f64() != Some(0.0))
            .count();
        [
            count("pendingApprovals"),
            count("openAppeals"),
            count("appeals"),
            pending,
        ]
    };
    let all = gql(gw.addr, Some(CHIEF), q).await;
    assert_eq!(seen(&all), [1, 1, 1, 1], "{all}");
    let t2 = gql(gw.addr, Some(CHIEF_T2), q).await;
    assert!(t2["errors"].is_null(), "{t2}");
    assert_eq!(seen(&t2), [0, 0, 0, 0], "{t2}");
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subscriber_before_the_tournament_exists_gets_its_table_once_it_is_written() {
    let gw = empty_gateway().await;
    let mut ws = connect(gw.addr, "/ws/standings/cup").await;
    let v = gql(
        gw.addr,
        None,
        "{ standings(tournament: \"cup\") { version } }",
    )
    .await;
    assert_eq!(v["errors"][0]["message"], "no tournament cup");
    let last = write_cup(&gw.log).await;
    // The board may publish while it is still folding what the feed has
    // delivered so far: each message is a newer version, up to the last.
    let mut m = next_json(&mut ws).await;
    while m["version"].as_u64().unwrap() < last {
        let next = next_json(&mut ws).await;
        assert!(next["version"].as_u64() > m["version"].as_u64(), "{next}");
        m = next;
    }
    assert_eq!(m["version"].as_u64().unwrap(), last);
    assert_eq!(m["standings"]["games"], 4);
    let (status, _, body) = http(gw.addr, "GET", "/api/standings", None, "").await;
    assert_eq!(status, 200);
    let list: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        list["tournaments"],
        json!([{"tournament": "cup", "name": "Cup", "version": last}])
    );
    assert_eq!(
        refused(gw.addr, "/ws/standings/not%20an%20id").await,
        400,
        "a malformed tournament id is refused before the upgrade"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_players_of_a_followed_tournament_are_listed_with_their_photos_for_the_screens() {
    let gw = gateway().await;
    first_table(gw.addr, None).await;
    let t = folded(&gw.log).await;
    let (status, ctype, body) = http(gw.addr, "GET", "/api/players/cup", None, "").await;
    assert_eq!(status, 200);
    assert!(ctype.starts_with("application/json"), "{ctype}");
    let got: Value = serde_json::from_str(&body).unwrap();
    let want: Vec<Value> = t
        .players
        .values()
        .map(|r| serde_json::to_value(&r.player).unwrap())
        .collect();
    assert_eq!(got["players"], json!(want));
    assert!(want[0].get("photo_url").is_some(), "{}", want[0]);
    let (status, _, _) = http(gw.addr, "GET", "/api/players/nope", None, "").await;
    assert_eq!(status, 404);
    let (status, _, _) = http(gw.addr, "GET", "/api/players/Not%20An%20Id", None, "").await;
    assert_eq!(status, 400);
}

/// Reads the standings channel until the table counts `games` games.
async fn table_with(addr: SocketAddr, token: &str, games: u64) {
    let (mut ws, mut m) = first_table(addr, Some(token)).await;
    while m["standings"]["games"] != games {
        m = next_json(&mut ws).await;
    }
}

/// What `token` reads of the cup: the games the channel's first table,
/// GraphQL and `standings.json` count, and whether `games.json` names the
/// round-3 game.
async fn read_by(addr: SocketAddr, token: &str) -> (Value, Value, Value, bool) {
    let (_, m) = first_table(addr, Some(token)).await;
    let v = gql(
        addr,
        Some(token),
        "{ standings(tournament: \"cup\") { games } }",
    )
    .await;
    let get = |file: &'static str| async move {
        let path = format!("/export/cup/{file}");
        let (status, _, body) = http(addr, "GET", &path, Some(token), "").await;
        assert_eq!(status, 200, "{body}");
        body
    };
    let standings: Value = serde_json::from_str(&get("standings.json").await).unwrap();
    (
        m["standings"]["games"].clone(),
        v["data"]["standings"]["games"].clone(),
        standings["games"].clone(),
        get("games.json").await.contains(cup::ROUND_3),
    )
}

/// Issue 36 #8: the broadcast audience (a broadcast or an organiser's
/// token) reads a game's result in the standings, the channel and the
/// exports only once its delayed stream has shown the game's end; the
/// chief judge at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_broadcast_reads_a_result_only_once_its_delayed_stream_has_shown_the_end() {
    let hour = std::time::Duration::from_secs(3600);
    // Ended just now, an hour of delay: the broadcast has not seen the end.
    let gw = cup::gateway_after_a_game(hour, std::time::Duration::ZERO).await;
    table_with(gw.addr, CHIEF, 5).await;
    let chief = read_by(gw.addr, CHIEF).await;
    assert_eq!(chief, (json!(5), json!(5), json!(5), true), "at once");
    let broadcast = read_by(gw.addr, BROADCAST).await;
    assert_eq!(broadcast, (json!(4), json!(4), json!(4), false));
    // Ended two hours ago: the delay is over, the result is read.
    let gw = cup::gateway_after_a_game(hour, 2 * hour).await;
    table_with(gw.addr, CHIEF, 5).await;
    let broadcast = read_by(gw.addr, BROADCAST).await;
    assert_eq!(broadcast, (json!(5), json!(5), json!(5), true));
}

/// "Finished: awaiting confirmation" follows the model: every finished game
/// is listed until the chief judge's `confirm_result`; nobody else reads it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_game_awaits_confirmation_until_the_chief_judge_confirms_it() {
    let gw = gateway().await;
    let (mut ws, _) = first_table(gw.addr, None).await;
    let q = "{ awaitingConfirmation(tournament: \"cup\") }";
    let v = gql(gw.addr, Some(CHIEF), q).await;
    let waiting: Vec<String> =
        serde_json::from_value(v["data"]["awaitingConfirmation"].clone()).unwrap();
    let t = folded(&gw.log).await;
    let finished = t
        .games
        .values()
        .filter(|g| g.result.is_some() && !g.annulled)
        .count();
    assert_eq!(waiting.len(), finished, "{v}");
    // One with nothing pending for the chief judge.
    let pending: Vec<_> = t
        .pending_approvals()
        .into_iter()
        .map(|(g, _)| g.to_string())
        .collect();
    let game = waiting
        .iter()
        .find(|g| !pending.contains(g))
        .unwrap()
        .clone();
    let confirm = TournamentCommand::ConfirmResult {
        game: game.parse().unwrap(),
    };
    run(&gw.log, &confirm, &Actor::ChiefJudge, t.created_at + 1).await;
    next_json(&mut ws).await;
    let v = gql(gw.addr, Some(CHIEF), q).await;
    let after: Vec<String> =
        serde_json::from_value(v["data"]["awaitingConfirmation"].clone()).unwrap();
    assert_eq!(after.len(), waiting.len() - 1, "{v}");
    assert!(!after.contains(&game));
    for who in [None, Some(BROADCAST)] {
        let v = gql(gw.addr, who, q).await;
        assert!(v["data"].is_null(), "{who:?}: {v}");
    }
}

/// A tournament the scoring service removed leaves the gateway's lists and
/// reads: its `removed` event folds it out of the board.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_removed_tournament_leaves_the_lists_and_the_reads() {
    use mafia_tournament::{stored, TournamentEvent};
    let gw = gateway().await;
    first_table(gw.addr, None).await;
    let removed = TournamentEvent::Removed {
        by: Actor::Organiser,
        at: folded(&gw.log).await.created_at + 1,
    };
    let last = gw.log.last_seq("tournament.cup").await.unwrap();
    let payload = bytes::Bytes::from(stored::encode(&removed));
    gw.log
        .append("tournament.cup", last, 0, &[payload])
        .await
        .unwrap();
    // Another tournament written after it: once its table is out, the
    // feed has passed the removal.
    let mut created: Value = serde_json::from_str(
        std::fs::read_to_string(cup::CUP_LOG)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    created["id"] = json!("later");
    gw.log
        .create_game("tournament.later", created.to_string().as_bytes())
        .await
        .unwrap();
    // The feed carries appends: the header alone is not on it.
    let published = TournamentEvent::StandingsPublished {
        games: 0,
        by: Actor::Organiser,
        at: created["at"].as_i64().unwrap() + 1,
    };
    let payload = bytes::Bytes::from(stored::encode(&published));
    gw.log
        .append("tournament.later", 0, 0, &[payload])
        .await
        .unwrap();
    let mut later = common::connect(gw.addr, "/ws/standings/later").await;
    next_json(&mut later).await;
    let (_, _, body) = http(gw.addr, "GET", "/api/standings", None, "").await;
    let listed: Value = serde_json::from_str(&body).unwrap();
    let ids: Vec<&str> = listed["tournaments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["tournament"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["later"], "{body}");
    let (status, _, _) = http(gw.addr, "GET", "/export/cup/standings.csv", None, "").await;
    assert_eq!(status, 404);
    let v = gql(
        gw.addr,
        Some(CHIEF),
        "{ standings(tournament: \"cup\") { version } }",
    )
    .await;
    assert_eq!(v["errors"][0]["message"], "no tournament cup", "{v}");
}
