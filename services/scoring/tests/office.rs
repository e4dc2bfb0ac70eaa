//! The tournament office's calls over real gRPC on 127.0.0.1:0: listing,
//! archiving and removing tournaments, their dates, and the chief judge's
//! rulings with their audit trail.

mod common;

use common::{as_caller, spec_json, tref, Office};
use mafia_proto::v1::ListTournamentsRequest;
use tonic::Code;

async fn listed(o: &mut Office, token: &str, include_archived: bool) -> Vec<(String, bool)> {
    let req = ListTournamentsRequest { include_archived };
    o.c.list_tournaments(as_caller(token, req))
        .await
        .unwrap()
        .into_inner()
        .tournaments
        .into_iter()
        .map(|t| (t.id, t.archived))
        .collect()
}

fn ids(l: &[(String, bool)]) -> Vec<&str> {
    l.iter().map(|(id, _)| id.as_str()).collect()
}

#[tokio::test]
async fn tournaments_are_listed_newest_first_archived_on_request_removed_never() {
    let mut o = Office::start().await;
    o.create("org-token", &spec_json("old", "Old cup"))
        .await
        .unwrap();
    let dated = spec_json("cup", "Cup").replacen(
        '{',
        r#"{"starts_on":"2026-05-01","ends_on":"2026-05-03","#,
        1,
    );
    o.create("org-token", &dated).await.unwrap();
    assert_eq!(ids(&listed(&mut o, "", false).await), ["cup", "old"]);
    let cup = o.get("", "cup").await.unwrap();
    assert_eq!(
        (cup.starts_on.as_str(), cup.ends_on.as_str()),
        ("2026-05-01", "2026-05-03")
    );
    assert!(cup.detail_json.is_empty(), "the public gets no office view");
    assert!(!o
        .get("org-token", "cup")
        .await
        .unwrap()
        .detail_json
        .is_empty());

    // Archiving is the organiser's, for the whole tournament.
    let e = o
        .cmd("chief-token", "old", r#"{"type":"archive"}"#)
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    let e = o
        .cmd("org-t2-token", "cup", r#"{"type":"archive"}"#)
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    o.cmd("org-token", "old", r#"{"type":"archive"}"#)
        .await
        .unwrap();
    assert_eq!(ids(&listed(&mut o, "", false).await), ["cup"]);
    assert_eq!(
        listed(&mut o, "", true).await,
        [("cup".to_string(), false), ("old".to_string(), true)]
    );
    assert!(o.get("", "old").await.unwrap().archived);
    let again = o
        .cmd("org-token", "old", r#"{"type":"archive"}"#)
        .await
        .unwrap();
    assert!(
        again.events_json.is_empty(),
        "archiving twice changes nothing"
    );
    o.cmd("org-token", "old", r#"{"type":"unarchive"}"#)
        .await
        .unwrap();
    assert_eq!(ids(&listed(&mut o, "", false).await), ["cup", "old"]);

    // Removing: the organiser of the whole tournament only.
    for token in ["chief-token", "org-t2-token", ""] {
        let e =
            o.c.remove_tournament(as_caller(token, tref("old")))
                .await
                .unwrap_err();
        assert_eq!(e.code(), Code::PermissionDenied, "{token}: {e:?}");
    }
    let removed =
        o.c.remove_tournament(as_caller("org-token", tref("old")))
            .await
            .unwrap();
    assert!(removed.into_inner().events_json[0].contains(r#""type":"removed""#));
    for o in [&mut o] {
        gone(o, "old").await;
    }
    // The id's history stays in the log; the id stays taken.
    let header = o.log.header("tournament.old").await.unwrap();
    assert!(header.is_some(), "the log keeps the tournament");
    let e = o
        .create("org-token", &spec_json("old", "Again"))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::AlreadyExists, "{e:?}");
    // A restart folds the log: still removed.
    let mut o = o.restart().await;
    gone(&mut o, "old").await;
    assert_eq!(ids(&listed(&mut o, "", true).await), ["cup"]);
    o.running.shutdown().await;
}

/// Every read and command of a removed tournament is NOT_FOUND, and no
/// list names it.
async fn gone(o: &mut Office, id: &str) {
    assert_eq!(
        o.get("org-token", id).await.unwrap_err().code(),
        Code::NotFound
    );
    let e =
        o.c.get_standings(as_caller("", tref(id)))
            .await
            .unwrap_err();
    assert_eq!(e.code(), Code::NotFound);
    let e = o
        .cmd("org-token", id, r#"{"type":"unarchive"}"#)
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::NotFound, "{e:?}");
    let e =
        o.c.remove_tournament(as_caller("org-token", tref(id)))
            .await
            .unwrap_err();
    assert_eq!(e.code(), Code::NotFound, "{e:?}");
    assert!(!ids(&listed(o, "org-token", true).await).contains(&id));
}

#[tokio::test]
async fn a_tournament_with_an_opened_game_is_not_removed() {
    let mut o = Office::start().await;
    o.cup().await;
    o.seat_round_1().await;
    let assign = r#"{"type":"assign_game","game":"cup.main.r1.t2.g1"}"#;
    o.cmd("org-token", "cup", assign).await.unwrap();
    let before = o.get("org-token", "cup").await.unwrap();
    let e =
        o.c.remove_tournament(as_caller("org-token", tref("cup")))
            .await
            .unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    assert!(
        e.message().contains("cup.main.r1.t2.g1"),
        "names the game: {e:?}"
    );
    assert_eq!(
        o.get("org-token", "cup").await.unwrap(),
        before,
        "nothing stored"
    );
    o.running.shutdown().await;
}

#[tokio::test]
async fn dates_are_iso_days_and_the_end_is_not_before_the_start() {
    let mut o = Office::start().await;
    let bad = spec_json("cup", "Cup").replacen('{', r#"{"starts_on":"01.05.2026","#, 1);
    let e = o.create("org-token", &bad).await.unwrap_err();
    assert!(
        e.message().contains("starts_on") && e.message().contains("YYYY-MM-DD"),
        "{e:?}"
    );
    let reversed = spec_json("cup", "Cup").replacen(
        '{',
        r#"{"starts_on":"2026-05-02","ends_on":"2026-05-01","#,
        1,
    );
    let e = o.create("org-token", &reversed).await.unwrap_err();
    assert!(e.message().contains("before it starts"), "{e:?}");
    assert!(listed(&mut o, "", true).await.is_empty(), "nothing created");
    o.create("org-token", &spec_json("cup", "Cup"))
        .await
        .unwrap();
    let set = r#"{"type":"set_dates","starts_on":"2026-06-01","ends_on":null}"#;
    o.cmd("org-token", "cup", set).await.unwrap();
    let cup = o.get("", "cup").await.unwrap();
    assert_eq!(
        (cup.starts_on.as_str(), cup.ends_on.as_str()),
        ("2026-06-01", "")
    );
    let e = o.cmd("chief-token", "cup", set).await.unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    o.running.shutdown().await;
}

fn csv_request(tournament: &str, bytes: Vec<u8>) -> mafia_proto::v1::RegisterPlayersCsvRequest {
    mafia_proto::v1::RegisterPlayersCsvRequest {
        tournament: tournament.into(),
        csv: String::new(),
        csv_bytes: bytes,
    }
}

/// A roster as Russian Excel saves it: `;`-separated Windows-1251 with a
/// Russian header and no ids.
fn russian_excel(nicknames: &[&str]) -> Vec<u8> {
    let mut text = String::from("Никнейм;Клуб\r\n");
    for (i, n) in nicknames.iter().enumerate() {
        text.push_str(&format!("{n};Клуб «{}»\r\n", i % 3));
    }
    let (bytes, _, unmappable) = encoding_rs::WINDOWS_1251.encode(&text);
    assert!(!unmappable);
    bytes.into_owned()
}

#[tokio::test]
async fn a_russian_excel_roster_is_previewed_then_registered_with_made_ids() {
    let mut o = Office::start().await;
    o.create("org-token", &spec_json("cup", "Cup"))
        .await
        .unwrap();
    let mut names: Vec<String> = (1..=19).map(|n| format!("Игрок {n}")).collect();
    names.push("Александра-Константинопольская".into());
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let file = russian_excel(&names);
    let preview =
        o.c.preview_players_csv(as_caller("org-token", csv_request("cup", file.clone())))
            .await
            .unwrap()
            .into_inner();
    assert_eq!(
        (preview.encoding.as_str(), preview.separator.as_str()),
        ("windows-1251", ";")
    );
    assert_eq!((preview.rows.len(), preview.errors), (20, 0));
    let last = &preview.rows[19];
    assert_eq!(
        (
            last.line,
            last.id.as_str(),
            last.nickname.as_str(),
            last.club.as_str(),
            last.id_made
        ),
        (
            21,
            "aleksandra-konstantinopolskaya",
            "Александра-Константинопольская",
            "Клуб «1»",
            true
        )
    );
    assert_eq!(preview.rows[0].id, "igrok-1");
    assert_eq!(
        o.get("", "cup").await.unwrap().players,
        0,
        "a preview stores nothing"
    );

    o.c.register_players_csv(as_caller("org-token", csv_request("cup", file.clone())))
        .await
        .unwrap();
    let detail: serde_json::Value =
        serde_json::from_str(&o.get("org-token", "cup").await.unwrap().detail_json).unwrap();
    let ids: Vec<&str> = detail["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["player"]["id"].as_str().unwrap())
        .collect();
    let previewed: Vec<&str> = preview.rows.iter().map(|r| r.id.as_str()).collect();
    let mut sorted = previewed.clone();
    sorted.sort();
    assert_eq!(ids, sorted, "registered under the ids the preview showed");

    // The same file again: every line is a player already registered.
    let again =
        o.c.preview_players_csv(as_caller("org-token", csv_request("cup", file)))
            .await
            .unwrap()
            .into_inner();
    assert_eq!(again.errors, 20);
    assert!(
        again.rows[0].error.contains("already registered"),
        "{:?}",
        again.rows[0]
    );
    assert!(
        again.rows[0].error_ru.contains("уже зарегистрирован"),
        "{:?}",
        again.rows[0]
    );
    o.running.shutdown().await;
}

#[tokio::test]
async fn every_broken_line_is_named_in_the_preview_and_registering_stores_nothing() {
    let mut o = Office::start().await;
    o.create("org-token", &spec_json("cup", "Cup"))
        .await
        .unwrap();
    let one = r#"{"type":"register_player","player":{"id":"ann","nickname":"Ann"}}"#;
    o.cmd("org-token", "cup", one).await.unwrap();
    // UTF-8 with a BOM, `,`-separated, an id column that is sometimes empty.
    let mut file = vec![0xEF, 0xBB, 0xBF];
    file.extend_from_slice(
        "id,nickname,club\r\nb1,Bob,\r\n,Bob,Red\r\nc1;Carl;Blue\r\n,ANN,\r\nd1,,\r\n,Dan,\r\n\"e1,Eve\r\n".as_bytes(),
    );
    let preview =
        o.c.preview_players_csv(as_caller("org-token", csv_request("cup", file.clone())))
            .await
            .unwrap()
            .into_inner();
    assert_eq!(preview.encoding, "utf-8 with BOM");
    let lines: Vec<(u32, &str)> = preview
        .rows
        .iter()
        .map(|r| (r.line, r.error.as_str()))
        .collect();
    assert_eq!(lines[0], (2, ""));
    assert!(
        lines[1].1.contains("nickname \"Bob\" is on line 2 too"),
        "{lines:?}"
    );
    assert!(
        lines[2].1.contains("is the file `;`-separated?"),
        "{lines:?}"
    );
    assert!(
        lines[3].1.contains("already registered (player ann)"),
        "{lines:?}"
    );
    assert!(lines[4].1.contains("nickname is empty"), "{lines:?}");
    assert_eq!(lines[5], (7, ""));
    assert_eq!(preview.rows[5].id, "dan");
    assert!(preview.rows[5].id_made);
    assert!(lines[6].1.contains("quote not closed"), "{lines:?}");
    assert_eq!(preview.errors, 5);
    assert!(preview
        .rows
        .iter()
        .all(|r| r.error.is_empty() == r.error_ru.is_empty()));

    let before = o.get("org-token", "cup").await.unwrap();
    let e =
        o.c.register_players_csv(as_caller("org-token", csv_request("cup", file)))
            .await
            .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e:?}");
    assert!(
        e.message().starts_with("players CSV line 3: nickname"),
        "{e:?}"
    );
    assert_eq!(
        o.get("org-token", "cup").await.unwrap(),
        before,
        "nothing stored"
    );
    // A nickname already registered is the tournament's refusal.
    let e =
        o.c.register_players_csv(as_caller(
            "org-token",
            csv_request("cup", b"nickname\nann\n".to_vec()),
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    assert!(
        e.message().contains("line 2") && e.message().contains("already registered"),
        "{e:?}"
    );
    o.running.shutdown().await;
}

fn plan_request(tables_json: &str) -> mafia_proto::v1::PlanSeatingRequest {
    mafia_proto::v1::PlanSeatingRequest {
        tournament: "cup".into(),
        stage: "main".into(),
        round: 1,
        seed: 7,
        tables_json: tables_json.into(),
    }
}

/// "cup" with its pair rule: p01 and p02 never at one table.
async fn cup_keeping_p01_from_p02() -> Office {
    let mut o = Office::start().await;
    o.cup().await;
    let rules = r#"{"type":"set_pair_rules","rules":[{"kind":"separate","a":"p01","b":"p02"}]}"#;
    o.cmd("org-token", "cup", rules).await.unwrap();
    o
}

#[tokio::test]
async fn a_seating_plan_is_the_generated_round_measured_beside_a_random_one() {
    let mut o = cup_keeping_p01_from_p02().await;
    let version = o.get("", "cup").await.unwrap().version;
    let plan =
        o.c.plan_seating(as_caller("chief-token", plan_request("")))
            .await
            .unwrap()
            .into_inner();
    assert!(plan.problems.is_empty(), "{:?}", plan.problems);
    let tables: Vec<mafia_tournament::SeatedTable> =
        serde_json::from_str(&plan.tables_json).unwrap();
    assert_eq!(tables.len(), 2);
    let metrics: serde_json::Value = serde_json::from_str(&plan.metrics_json).unwrap();
    let random: serde_json::Value = serde_json::from_str(&plan.random_metrics_json).unwrap();
    assert_eq!(
        (metrics["players"].as_u64(), metrics["rounds"].as_u64()),
        (Some(20), Some(1))
    );
    assert_eq!(metrics["separate_violations"], 0);
    assert_eq!(random["rounds"], 1);
    assert_eq!(
        o.get("", "cup").await.unwrap().version,
        version,
        "a plan stores nothing"
    );

    // Published as planned, it is what SeatRound itself seats from that seed.
    let req = mafia_proto::v1::SeatRoundRequest {
        tournament: "cup".into(),
        stage: "main".into(),
        round: 1,
        seed: 7,
        policies_json: String::new(),
    };
    let seated =
        o.c.seat_round(as_caller("org-token", req))
            .await
            .unwrap()
            .into_inner();
    let event: serde_json::Value = serde_json::from_str(&seated.events_json[0]).unwrap();
    assert_eq!(event["tables"], serde_json::to_value(&tables).unwrap());

    for token in ["", "named-j1-token"] {
        let e =
            o.c.plan_seating(as_caller(token, plan_request("")))
                .await
                .unwrap_err();
        assert_eq!(e.code(), Code::PermissionDenied, "{token}: {e:?}");
    }
    o.running.shutdown().await;
}

/// Round 1 as `seat_round` takes it: p01..p10 at table 1, p11..p20 at 2.
fn by_hand() -> Vec<serde_json::Value> {
    (0..2)
        .map(|t| {
            let seats: Vec<String> = (1..=10).map(|n| format!("p{:02}", t * 10 + n)).collect();
            serde_json::json!({"table": t + 1, "seats": seats, "judge": format!("j{}", t + 1)})
        })
        .collect()
}

#[tokio::test]
async fn a_proposal_gets_every_broken_rule_named_and_seat_round_refuses_it_alike() {
    let mut o = cup_keeping_p01_from_p02().await;
    // A seating whose only fault is the separate pair at table 1.
    let tables = serde_json::to_string(&by_hand()).unwrap();
    let plan =
        o.c.plan_seating(as_caller("org-token", plan_request(&tables)))
            .await
            .unwrap()
            .into_inner();
    assert_eq!(
        plan.problems,
        ["p01 and p02 sit at table 1, a pair the tournament keeps apart (separate)"]
    );
    let metrics: serde_json::Value = serde_json::from_str(&plan.metrics_json).unwrap();
    assert_eq!(metrics["separate_violations"], 1);
    let seat = format!(r#"{{"type":"seat_round","stage":"main","round":1,"tables":{tables}}}"#);
    let e = o.cmd("org-token", "cup", &seat).await.unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition);
    assert_eq!(e.message(), plan.problems[0], "the same text");

    // Everything at once: a withdrawn player, one twice, one unknown, a
    // table of 9, a table the stage does not have, an unknown judge.
    o.cmd(
        "org-token",
        "cup",
        r#"{"type":"withdraw_player","player":"p20"}"#,
    )
    .await
    .unwrap();
    let mut t = by_hand();
    t[0]["seats"][0] = "p03".into();
    t[0]["seats"][1] = "zed".into();
    t[1]["seats"].as_array_mut().unwrap().pop();
    t[1]["judge"] = "nobody".into();
    t.push(serde_json::json!({"table": 3, "seats": by_hand()[1]["seats"].clone()}));
    let plan =
        o.c.plan_seating(as_caller(
            "org-token",
            plan_request(&serde_json::to_string(&t).unwrap()),
        ))
        .await
        .unwrap()
        .into_inner();
    let all = plan.problems.join("\n");
    for named in [
        "player p03 is seated twice at table 1",
        "player zed is not registered",
        "table 2 has 9 seats; a table seats 10",
        "judge nobody is not registered",
        "player p20 has withdrawn",
        "there is no table 3",
    ] {
        assert!(all.contains(named), "{named:?} not in\n{all}");
    }
    assert!(plan.metrics_json.is_empty(), "not a seating: no metrics");
    assert_eq!(plan.problems_ru.len(), plan.problems.len());
    let ru = plan.problems_ru.join("\n");
    for named in [
        "игрок zed не зарегистрирован",
        "за столом 2 мест: 9",
        "игрок p20 снялся",
    ] {
        assert!(ru.contains(named), "{named:?} not in\n{ru}");
    }
    let seat = format!(
        r#"{{"type":"seat_round","stage":"main","round":1,"tables":{}}}"#,
        serde_json::to_string(&t).unwrap()
    );
    let e = o.cmd("org-token", "cup", &seat).await.unwrap_err();
    assert_eq!(e.message(), plan.problems[0]);
    let e =
        o.c.plan_seating(as_caller("org-token", plan_request("[{]")))
            .await
            .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e:?}");
    o.running.shutdown().await;
}

/// The chief judge's day from JSON commands: an extra refused (with a
/// reason, or refused for want of one), results confirmed, an appeal
/// decided in its documented shape, and all of it in the audit trail
/// GetTournament shows the office.
#[tokio::test]
async fn the_chief_judge_refuses_confirms_and_decides_and_the_audit_trail_keeps_why() {
    let mut o = Office::start().await;
    o.cup().await;
    o.seat_round_1().await;
    let ended = common::now_ms() - 1_000;
    o.finish(1, ended).await;
    o.finish(2, ended).await;
    let g1 = "cup.main.r1.t1.g1";
    let inputs = format!(
        r#"{{"type":"submit_judge_inputs","game":"{g1}","inputs":{{"extras":[{{"seat":1,"points":1.6}}]}}}}"#
    );
    o.cmd("named-j1-token", "cup", &inputs).await.unwrap();
    let item = r#"{"item":"extra_value","seat":1,"points":1.6}"#;
    let confirm1 = format!(r#"{{"type":"confirm_result","game":"{g1}"}}"#);
    let e = o.cmd("chief-token", "cup", &confirm1).await.unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    assert!(e.message().contains("waits for the chief judge"), "{e:?}");

    let no_reason = format!(r#"{{"type":"refuse","game":"{g1}","item":{item}}}"#);
    let e = o.cmd("chief-token", "cup", &no_reason).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e:?}");
    assert!(e.message().contains("missing field `reason`"), "{e:?}");
    let empty = format!(r#"{{"type":"refuse","game":"{g1}","item":{item},"reason":""}}"#);
    let e = o.cmd("chief-token", "cup", &empty).await.unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    assert!(e.message().contains("`reason` is empty"), "{e:?}");
    let refuse = format!(
        r#"{{"type":"refuse","game":"{g1}","item":{item},"reason":"1.6 only for the game's best"}}"#
    );
    let e = o.cmd("chief-t2-token", "cup", &refuse).await.unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "not his table: {e:?}");
    o.cmd("chief-token", "cup", &refuse).await.unwrap();
    o.cmd("chief-token", "cup", &confirm1).await.unwrap();

    // Table 2: an appeal decided with points corrected; no reason, no
    // decision.
    let g2 = "cup.main.r1.t2.g1";
    let file = format!(
        r#"{{"type":"file_appeal","game":"{g2}","player":"p12","text":"a foul miscounted"}}"#
    );
    o.cmd("chief-t2-token", "cup", &file).await.unwrap();
    let decide = |reason: &str| {
        format!(
            r#"{{"type":"decide_appeal","appeal":1,"decision":{{"kind":"points_corrected","corrections":[{{"player":"p12","points":0.5,"note":"foul taken back"}}]}},"reason":"{reason}"}}"#
        )
    };
    let e = o
        .cmd("chief-t2-token", "cup", &decide(" "))
        .await
        .unwrap_err();
    assert!(e.message().contains("`reason` is empty"), "{e:?}");
    let word = r#"{"type":"decide_appeal","appeal":1,"decision":"upheld","reason":"x"}"#;
    let e = o.cmd("chief-t2-token", "cup", word).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e:?}");
    assert!(
        e.message().contains(r#"{"kind":"replay"}"#),
        "names the shapes: {e:?}"
    );
    o.cmd("chief-t2-token", "cup", &decide("the video shows 2 fouls"))
        .await
        .unwrap();

    let summary = o.get("chief-token", "cup").await.unwrap();
    let detail: serde_json::Value = serde_json::from_str(&summary.detail_json).unwrap();
    let games = detail["games"].as_array().unwrap();
    assert_eq!(games[0]["state"], "confirmed");
    assert_eq!(games[0]["refused"][0]["item"], "extra_value");
    assert_eq!(games[1]["state"], "finished", "awaiting confirmation");
    let audit = detail["audit"].as_array().unwrap();
    assert_eq!(audit.len(), 3, "{audit:?}");
    assert_eq!(
        (
            &audit[0]["action"],
            &audit[0]["reason"],
            &audit[0]["by"]["role"]
        ),
        (
            &"refused".into(),
            &"1.6 only for the game's best".into(),
            &"chief_judge".into()
        )
    );
    assert_eq!(audit[1]["action"], "result_confirmed");
    assert_eq!(audit[2]["action"], "appeal_decided");
    assert_eq!(audit[2]["decision"]["kind"], "points_corrected");
    assert_eq!(audit[2]["reason"], "the video shows 2 fouls");
    assert!(audit.iter().all(|a| a["at"].as_i64().unwrap() > 0));
    o.running.shutdown().await;
}

/// services/scoring/README.md gives a JSON example of every command a
/// person may give, and each reads as one.
#[test]
fn every_command_example_in_the_readme_is_a_command() {
    let readme = include_str!("../README.md");
    let mut kinds = std::collections::BTreeSet::new();
    for line in readme.lines().filter(|l| l.starts_with(r#"{"type":""#)) {
        let cmd: mafia_tournament::TournamentCommand =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("README example {line}: {e}"));
        let v = serde_json::to_value(&cmd).unwrap();
        kinds.insert(v["type"].as_str().unwrap().to_owned());
    }
    let every = [
        "add_judge",
        "add_stage",
        "register_player",
        "update_player",
        "withdraw_player",
        "seat_round",
        "swap_seats",
        "assign_game",
        "submit_judge_inputs",
        "approve",
        "refuse",
        "confirm_result",
        "file_appeal",
        "decide_appeal",
        "draw_lot",
        "set_pair_rules",
        "publish_standings",
        "set_dates",
        "archive",
        "unarchive",
        "remove",
    ];
    let every: std::collections::BTreeSet<String> = every.iter().map(|s| s.to_string()).collect();
    assert_eq!(
        kinds, every,
        "record_result aside, every command has its example"
    );
}
