//! The chief judge's and the organiser's JSON routes on a real gateway
//! following a real embedded log (`ruling_fixture`): who may read them
//! (401 without a credential, 403 for the wrong one), what the ruling
//! panel gets (the clause and the game of each item, appeals, the audit,
//! the ties), a game's state at a disputed event as `mafia state` shows
//! it, the protocol, and the table board's states and console presence.

mod ruling_fixture;

use ruling_fixture::*;
use serde_json::Value;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_a_chief_judge_or_the_organiser_of_the_tournament_reads_the_routes() {
    let s = start(false, false).await;
    s.ready().await;
    let state = format!("/api/ruling/cup/state/{FINISHED}?seq={DISPUTED_SEQ}");
    let protocol = format!("/api/protocol/{FINISHED}");
    // (path, token, status)
    let cases: Vec<(&str, Option<&str>, u16)> = vec![
        ("/api/ruling/cup", None, 401),
        ("/api/ruling/cup", Some(JUDGE_T2), 403),
        ("/api/ruling/cup", Some(BROADCAST), 403),
        ("/api/ruling/cup", Some(ORGANISER), 403),
        ("/api/ruling/cup", Some("no-such-token"), 401),
        ("/api/ruling/cup", Some(CHIEF), 200),
        ("/api/ruling/cup", Some(CHIEF_T2), 200),
        ("/api/ruling/nope", Some(CHIEF), 404),
        (&state, None, 401),
        (&state, Some(JUDGE_T2), 403),
        (&state, Some(ORGANISER), 403),
        // His grant is table 2's: not this game's.
        (&state, Some(CHIEF_T2), 403),
        (&state, Some(CHIEF), 200),
        ("/api/board/cup", None, 401),
        ("/api/board/cup", Some(JUDGE_T2), 403),
        ("/api/board/cup", Some(BROADCAST), 403),
        ("/api/board/cup", Some(ORGANISER), 200),
        ("/api/board/cup", Some(CHIEF), 200),
        ("/api/board/cup", Some(CHIEF_T2), 200),
        (&protocol, None, 401),
        (&protocol, Some(JUDGE_T2), 403),
        (&protocol, Some(BROADCAST), 403),
        (&protocol, Some(ORGANISER), 200),
        (&protocol, Some(CHIEF), 200),
    ];
    for (path, token, want) in cases {
        let (status, body) = s.http("GET", path, token).await;
        assert_eq!(status, want, "{path} with {token:?}: {body}");
        if status != 200 {
            let v: Value = serde_json::from_str(&body).unwrap();
            assert!(v["error"].as_str().is_some_and(|e| !e.is_empty()), "{body}");
        }
    }
    // The organiser reads a game's protocol only once it is over.
    let (status, _) = s
        .http("GET", &format!("/api/protocol/{IN_PLAY}"), Some(ORGANISER))
        .await;
    assert_eq!(status, 403);
    // Query fields the routes do not know are refused, never dropped.
    let (status, _) = s
        .http("GET", "/api/board/cup?tokn=x", Some(ORGANISER))
        .await;
    assert_eq!(status, 400);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ruling_panel_gets_each_item_with_its_clause_and_game_and_the_audit() {
    let s = start(false, false).await;
    s.ready().await;
    let v = s.json("/api/ruling/cup", CHIEF).await;
    let approvals = v["approvals"].as_array().unwrap();
    assert_eq!(approvals.len(), 2, "{v:#}");
    let first = &approvals[0];
    assert_eq!(first["game"], "cup.main.r1.t1.g1");
    assert_eq!(first["kind"], "extra_value");
    assert_eq!(first["clause"], "rfm §6.4.2");
    let ctx = &first["context"];
    assert_eq!(ctx["table"], 1);
    assert_eq!(ctx["round"], 1);
    assert_eq!(ctx["judge"], "j1");
    assert_eq!(ctx["seats"].as_array().unwrap().len(), 10);
    assert_eq!(ctx["seats"][0]["nickname"], "Player 1");

    let appeals = v["appeals"].as_array().unwrap();
    assert_eq!(appeals.len(), 1);
    assert_eq!(appeals[0]["game"], FINISHED);
    assert_eq!(appeals[0]["event_seq"], DISPUTED_SEQ);
    assert!(appeals[0]["decided"].is_null());
    assert_eq!(appeals[0]["context"]["scored"], true);

    // The audit: the judge's inputs and the appeal, with who and when.
    let audit = v["audit"].as_array().unwrap();
    let kinds: Vec<&str> = audit.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert!(kinds.contains(&"judge_inputs_recorded"), "{kinds:?}");
    assert!(kinds.contains(&"appeal_filed"), "{kinds:?}");
    assert!(audit.iter().all(|e| e["at"].is_i64() && !e["by"].is_null()));
    assert!(!kinds.contains(&"player_registered"), "set-up is no ruling");

    // Ties: each row after the first says what ranked it there.
    let rows = v["standings"]["rows"].as_array().unwrap();
    assert_eq!(rows[0]["decided_by"]["by"], "total");
    for w in rows.windows(2) {
        let d = &w[1]["decided_by"]["by"];
        if w[0]["total"] == w[1]["total"] {
            assert_ne!(d, "total", "{w:?}");
        } else {
            assert_eq!(d, "total", "{w:?}");
        }
    }
    // The round a swap is for: round 3, its two tables.
    assert_eq!(v["seating"]["round"], 3);
    assert_eq!(v["seating"]["tables"].as_array().unwrap().len(), 2);

    // A chief judge of table 2 only: nothing of table 1, no seating.
    let t2 = s.json("/api/ruling/cup", CHIEF_T2).await;
    assert!(t2["approvals"].as_array().unwrap().is_empty());
    assert!(t2["appeals"].as_array().unwrap().is_empty());
    assert!(t2["seating"].is_null());
    assert!(t2["audit"]
        .as_array()
        .unwrap()
        .iter()
        .all(|e| e["game"].as_str().is_none_or(|g| g.contains(".t2."))));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_disputed_moment_is_the_state_before_and_after_its_event() {
    let s = start(false, false).await;
    s.ready().await;
    let v = s
        .json(
            &format!("/api/ruling/cup/state/{FINISHED}?seq={DISPUTED_SEQ}"),
            CHIEF,
        )
        .await;
    assert_eq!(v["seq"], DISPUTED_SEQ);
    assert_eq!(v["event"]["seq"], DISPUTED_SEQ);
    assert_eq!(v["before"]["seq"], DISPUTED_SEQ - 1);
    assert_eq!(v["after"]["seq"], DISPUTED_SEQ);
    assert_eq!(v["after"]["audience"], "judge");
    // Past the game's end, and before its start: not found, a clear error.
    for (seq, want) in [(100_000, 404), (0, 400)] {
        let (status, body) = s
            .http(
                "GET",
                &format!("/api/ruling/cup/state/{FINISHED}?seq={seq}"),
                Some(CHIEF),
            )
            .await;
        assert_eq!(status, want, "{body}");
    }
    let (status, _) = s
        .http(
            "GET",
            "/api/ruling/cup/state/other.main.r1.t1.g1?seq=1",
            Some(CHIEF),
        )
        .await;
    assert_eq!(status, 400);
    let (status, body) = s
        .http("GET", &format!("/api/protocol/{FINISHED}"), Some(CHIEF))
        .await;
    assert_eq!(status, 200);
    assert!(body.contains("<table"), "{body}");
}

fn table(v: &Value, n: u64) -> &Value {
    v["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["table"] == n)
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_board_shows_each_tables_state_and_its_consoles_presence() {
    let s = start(false, false).await;
    s.ready().await;
    let v = s.json("/api/board/cup", CHIEF).await;
    assert_eq!(v["round"], 3);
    assert_eq!(v["stage"], "main");
    let t1 = table(&v, 1);
    assert_eq!(t1["status"], "finished", "{t1:#}");
    assert_eq!(t1["finished"], "awaiting_inputs");
    let alerts = t1["alerts"].as_array().unwrap();
    assert!(alerts.contains(&"open_appeal".into()), "{alerts:?}");
    assert!(
        alerts.contains(&"awaiting_confirmation".into()),
        "{alerts:?}"
    );
    let t2 = table(&v, 2);
    assert_eq!(t2["status"], "in_play", "{t2:#}");
    assert!(t2["phase"]["step"].is_string());
    assert!(t2["last_command_at"].is_i64());
    assert_eq!(t2["console"]["connected"], false);
    assert!(t2["alerts"]
        .as_array()
        .unwrap()
        .contains(&"console_offline".into()));

    // Table 2's judge's console says it is there: connected.
    let presence = format!("/judge-console/api/presence/{IN_PLAY}");
    for (token, want) in [
        (None, 401),
        (Some(CHIEF), 403),
        (Some(ORGANISER), 403),
        (Some(JUDGE_T2), 204),
    ] {
        let (status, body) = s.http("POST", &presence, token).await;
        assert_eq!(status, want, "{token:?}: {body}");
    }
    // Not his table; not opened.
    let (status, _) = s
        .http(
            "POST",
            &format!("/judge-console/api/presence/{FINISHED}"),
            Some(JUDGE_T2),
        )
        .await;
    assert_eq!(status, 403);
    let (status, _) = s
        .http(
            "POST",
            "/judge-console/api/presence/cup.main.r3.t2.g2",
            Some(JUDGE_T2),
        )
        .await;
    assert_eq!(status, 404);
    let v = s.json("/api/board/cup", ORGANISER).await;
    let t2 = table(&v, 2);
    assert_eq!(t2["console"]["connected"], true, "{t2:#}");
    assert!(!t2["alerts"]
        .as_array()
        .unwrap()
        .contains(&"console_offline".into()));

    // A chief judge of table 2 sees table 2 only.
    let v = s.json("/api/board/cup", CHIEF_T2).await;
    let tables: Vec<&Value> = v["tables"].as_array().unwrap().iter().collect();
    assert_eq!(tables.len(), 1);
    assert_eq!(tables[0]["table"], 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_not_opened_shows_its_tables_not_opened() {
    let s = start_with(false, false, false).await;
    s.ready().await;
    let v = s.json("/api/board/cup", ORGANISER).await;
    assert_eq!(v["round"], 3);
    for n in [1, 2] {
        let t = table(&v, n);
        assert_eq!(t["status"], "not_opened", "{t:#}");
        assert!(t["alerts"].as_array().unwrap().is_empty(), "{t:#}");
        assert_eq!(t["game"], format!("cup.main.r3.t{n}.g1"));
    }
}
