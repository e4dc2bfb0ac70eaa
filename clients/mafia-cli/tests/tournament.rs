//! `mafia tournament` against a real scoring service and referee on
//! 127.0.0.1:0 (one embedded log, as `make run` has them): an organiser
//! creates, registers, seats and opens a round from the command line, and
//! every refusal is printed with the rule the service names.

use mafia_event_log::{EmbeddedLog, EventLog};
use std::process::Output;
use std::sync::Arc;

const TOKENS: &str = r#"{"tokens":[
  {"role":"organiser","token":"org-token","games":["*"]},
  {"role":"chief_judge","token":"chief-token","games":["*"]}]}"#;

struct Services {
    scoring: String,
    _dir: tempfile::TempDir,
    _referee: mafia_referee::server::RunningReferee,
    _scoring: mafia_scoring::Running,
}

async fn services() -> Services {
    let dir = tempfile::tempdir().unwrap();
    let log: Arc<dyn EventLog> = Arc::new(
        EmbeddedLog::open(dir.path().join("log.redb"))
            .await
            .unwrap(),
    );
    let opts = mafia_referee::RefereeOptions {
        tokens: mafia_referee::Tokens::from_json(TOKENS).unwrap(),
        ..mafia_referee::RefereeOptions::default()
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let referee = mafia_referee::server::start(listener, log.clone(), opts)
        .await
        .unwrap();
    let link = mafia_scoring::RefereeLink {
        url: format!("http://{}", referee.addr),
        token: "org-token".into(),
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let scoring = mafia_scoring::start_with(
        listener,
        log,
        mafia_scoring::Tokens::from_json(TOKENS).unwrap(),
        Some(link),
    )
    .await
    .unwrap();
    Services {
        scoring: format!("http://{}", scoring.addr),
        _dir: dir,
        _referee: referee,
        _scoring: scoring,
    }
}

/// `mafia tournament -t cup --scoring … [--token …] ARGS…`, run as a user would.
async fn mafia(s: &Services, token: &str, args: &[&str]) -> Output {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_mafia"));
    cmd.args(["tournament", "-t", "cup", "--scoring", &s.scoring])
        .args(args)
        .env_remove("MAFIA_TOKEN");
    if !token.is_empty() {
        cmd.args(["--token", token]);
    }
    tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap()
}

fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// Stage "main" of 2 rounds at 2 tables, judges j1 (Anna) and j2 (Boris).
async fn stage_and_judges(s: &Services, org: &str) {
    ok(&mafia(s, org, &["stage", "main", "--rounds", "2", "--tables", "2"]).await);
    ok(&mafia(s, org, &["judge", "j1", "Anna"]).await);
    ok(&mafia(s, org, &["judge", "j2", "Boris"]).await);
}

fn refused(o: &Output) -> String {
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    String::from_utf8(o.stderr.clone()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_organiser_creates_seats_and_opens_a_round_from_the_command_line() {
    let s = services().await;
    let org = "org-token";
    let out = ok(&mafia(&s, org, &["create", "--name", "Cup 2026", "--rules", "rfm"]).await);
    assert!(out.starts_with("created cup"), "{out}");
    stage_and_judges(&s, org).await;
    let csv = s._dir.path().join("players.csv");
    let players: String = (1..=20)
        .map(|n| format!("p{n:02},Player {n},Club {}\n", n % 3))
        .collect();
    std::fs::write(&csv, format!("id,nickname,club\n{players}")).unwrap();
    let out = ok(&mafia(&s, org, &["players", csv.to_str().unwrap()]).await);
    assert!(out.starts_with("20 players registered"), "{out}");

    let out = ok(&mafia(&s, org, &["seat", "--round", "1", "--seed", "7"]).await);
    let tables: Vec<&str> = out.lines().filter(|l| l.starts_with("table ")).collect();
    assert_eq!(
        tables,
        ["table 1 (judge j1):", "table 2 (judge j2):"],
        "{out}"
    );
    // Every player once, with his nickname.
    for n in 1..=20 {
        let seated = format!(":p{n:02} Player {n}\n");
        assert_eq!(out.matches(&seated).count(), 1, "{seated}{out}");
    }
    assert!(out.contains("stage quality: pair meetings"), "{out}");
    // The same round again: the service refuses, and says why.
    let err = refused(&mafia(&s, org, &["seat", "--round", "1", "--seed", "7"]).await);
    assert!(err.contains("refused (FailedPrecondition)"), "{err}");

    let out = ok(&mafia(&s, org, &["open", "--round", "1"]).await);
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        ["cup.main.r1.t1.g1", "cup.main.r1.t2.g1"]
    );
    let out = ok(&mafia(&s, "", &["show"]).await);
    assert!(out.contains("Cup 2026 · rules rfm"), "{out}");
    assert!(out.contains("20 players · 2 games, 0 scored"), "{out}");

    let out = ok(&mafia(&s, "", &["standings", "--top", "3"]).await);
    assert_eq!(out.lines().count(), 4, "{out}");
    let sheet = s._dir.path().join("seating.html");
    let out = ok(&mafia(
        &s,
        "",
        &[
            "export",
            "seating",
            "--round",
            "1",
            "-o",
            sheet.to_str().unwrap(),
        ],
    )
    .await);
    assert!(out.contains("seating.html"), "{out}");
    let html = std::fs::read_to_string(&sheet).unwrap();
    assert!(html.contains("Player 1") && html.contains("Anna"), "{html}");
    let csv = ok(&mafia(&s, "", &["export", "standings"]).await);
    assert_eq!(csv.lines().count(), 21, "{csv}");

    // Any command as JSON, as the chief judge.
    let out = ok(&mafia(
        &s,
        "chief-token",
        &["command", r#"{"type":"publish_standings"}"#],
    )
    .await);
    assert!(out.contains("standings_published"), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_public_may_read_but_not_create_and_bad_input_changes_nothing() {
    let s = services().await;
    let err = refused(&mafia(&s, "", &["create", "--name", "Cup", "--rules", "rfm"]).await);
    assert!(err.contains("refused (PermissionDenied)"), "{err}");
    let err = refused(&mafia(&s, "", &["show"]).await);
    assert!(err.contains("refused (NotFound)"), "{err}");
    ok(&mafia(
        &s,
        "org-token",
        &["create", "--name", "Cup", "--rules", "ua"],
    )
    .await);
    let err = refused(&mafia(&s, "org-token", &["command", r#"{"type":"no_such"}"#]).await);
    assert!(err.contains("not a tournament command"), "{err}");
    let err = refused(
        &mafia(
            &s,
            "org-token",
            &[
                "stage",
                "main",
                "--rounds",
                "1",
                "--tables",
                "1",
                "--coefficient",
                "1.2345",
            ],
        )
        .await,
    );
    assert!(err.contains("coefficient"), "{err}");
    let out = ok(&mafia(&s, "", &["show"]).await);
    assert!(
        out.contains("scheme ua@") && out.contains("version 1"),
        "{out}"
    );
}

/// Windows-1251, as Russian Excel saves a CSV (Cyrillic and ASCII only).
fn cp1251(text: &str) -> Vec<u8> {
    text.chars()
        .map(|c| match c {
            'А'..='я' => (c as u32 - 'А' as u32 + 0xC0) as u8,
            'ё' => 0xB8,
            'Ё' => 0xA8,
            c if c.is_ascii() => c as u8,
            c => panic!("{c} is not in this test's Windows-1251"),
        })
        .collect()
}

/// Table `table`'s seats as a finished game's facts, won by red.
fn facts_of(tables: &[mafia_tournament::SeatedTable], table: u32) -> mafia_tournament::GameFacts {
    use mafia_rules::Role;
    let t = tables.iter().find(|t| t.table == table).unwrap();
    let role = |n: u8| match n {
        3 => Role::Sheriff,
        5 | 9 => Role::Mafia,
        7 => Role::Don,
        _ => Role::Civilian,
    };
    let seats = (1..=10u8)
        .map(|n| {
            serde_json::from_value(serde_json::json!({
                "seat": n, "player": t.seats[n as usize - 1], "role": role(n),
            }))
            .unwrap()
        })
        .collect();
    mafia_tournament::GameFacts {
        seats,
        winner: Some(mafia_rules::Team::Red),
        reason: "all_black_out".into(),
        first_killed: None,
        best_move: None,
        opposite_team_victory: None,
    }
}

/// What the office does, from the command line: a Russian Excel roster
/// previewed and registered, a pair rule, a seating planned and published,
/// the round opened, a result confirmed, an appeal decided, the audit
/// trail, archiving and removing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_office_from_the_command_line() {
    let s = services().await;
    let (org, chief) = ("org-token", "chief-token");
    let create = [
        "create",
        "--name",
        "Cup 2026",
        "--rules",
        "rfm",
        "--starts-on",
        "2026-05-01",
        "--ends-on",
        "2026-05-02",
    ];
    ok(&mafia(&s, org, &create).await);
    stage_and_judges(&s, org).await;
    let mut text = String::from("Никнейм;Клуб\r\n");
    for n in 1..=20 {
        text.push_str(&format!("Игрок {n};Клуб {}\r\n", n % 3));
    }
    let csv = s._dir.path().join("players.csv");
    std::fs::write(&csv, cp1251(&text)).unwrap();
    let out = ok(&mafia(&s, org, &["preview-players", csv.to_str().unwrap()]).await);
    assert!(
        out.starts_with("windows-1251 · separated by `;` · 20 lines"),
        "{out}"
    );
    assert!(
        out.contains("line 2: igrok-1 (id made) · Игрок 1 · Клуб 1"),
        "{out}"
    );
    assert!(out.contains("all 20 lines would be registered"), "{out}");
    let out = ok(&mafia(&s, org, &["players", csv.to_str().unwrap()]).await);
    assert!(out.starts_with("20 players registered"), "{out}");
    let err = refused(&mafia(&s, org, &["preview-players", csv.to_str().unwrap()]).await);
    assert!(err.contains("20 line(s) refused"), "{err}");
    ok(&mafia(&s, org, &["pair-rules", "--separate", "igrok-1,igrok-2"]).await);

    let json = ok(&mafia(
        &s,
        org,
        &["plan-seating", "--round", "1", "--seed", "3", "--json"],
    )
    .await);
    let tables: Vec<mafia_tournament::SeatedTable> = serde_json::from_str(json.trim()).unwrap();
    // The pair at one table: the plan names it, and fails.
    let mut bad = tables.clone();
    let at = |id: &str| {
        let t = bad
            .iter()
            .position(|t| t.seats.iter().any(|p| p.as_str() == id))
            .unwrap();
        (
            t,
            bad[t].seats.iter().position(|p| p.as_str() == id).unwrap(),
        )
    };
    let ((ta, ia), (tb, ib)) = (at("igrok-1"), at("igrok-2"));
    // igrok-2 swapped with igrok-1's neighbour.
    let k = if ia == 0 { 1 } else { 0 };
    let neighbour = bad[ta].seats[k].clone();
    bad[ta].seats[k] = bad[tb].seats[ib].clone();
    bad[tb].seats[ib] = neighbour;
    let bad_json = serde_json::to_string(&bad).unwrap();
    let o = mafia(
        &s,
        chief,
        &["plan-seating", "--round", "1", "--tables", &bad_json],
    )
    .await;
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        out.contains("PROBLEM: igrok-1 and igrok-2 sit at table"),
        "{out}"
    );
    assert!(refused(&o).contains("1 rule(s) broken"));
    let err = refused(&mafia(&s, org, &["publish-seating", "--round", "1", &bad_json]).await);
    assert!(err.contains("a pair the tournament keeps apart"), "{err}");
    ok(&mafia(&s, org, &["publish-seating", "--round", "1", json.trim()]).await);
    let games = ok(&mafia(&s, org, &["open", "--round", "1"]).await);
    assert_eq!(games.lines().count(), 2, "{games}");

    // Table 1 finishes (as the follower records it from the referee's log).
    let g1: mafia_record::GameId = "cup.main.r1.t1.g1".parse().unwrap();
    let ended = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    mafia_scoring::follower::record(&s._scoring.store, &g1, facts_of(&tables, 1), ended)
        .await
        .unwrap();
    let player = tables[0].seats[1].to_string();
    ok(&mafia(
        &s,
        org,
        &[
            "appeal",
            "cup.main.r1.t1.g1",
            "--text",
            "a foul miscounted",
            "--player",
            &player,
        ],
    )
    .await);
    let err = refused(&mafia(&s, chief, &["confirm", "cup.main.r1.t1.g1"]).await);
    assert!(err.contains("appeal 1"), "{err}");
    let points = format!("points:{player}=+0.5");
    let err = refused(&mafia(&s, chief, &["decide", "1", &points, "--reason", ""]).await);
    assert!(err.contains("`reason` is empty"), "{err}");
    ok(&mafia(&s, chief, &["decide", "1", &points, "--reason", "video"]).await);
    ok(&mafia(&s, chief, &["confirm", "cup.main.r1.t1.g1"]).await);
    let audit = ok(&mafia(&s, chief, &["audit"]).await);
    let lines: Vec<&str> = audit.lines().collect();
    assert_eq!(lines.len(), 2, "{audit}");
    assert!(
        lines[0].contains("chief_judge · cup.main.r1.t1.g1 · appeal_decided"),
        "{audit}"
    );
    assert!(lines[0].ends_with("why: video"), "{audit}");
    assert!(lines[1].contains("result_confirmed"), "{audit}");

    // Archive, list, remove.
    let err = refused(&mafia(&s, org, &["remove"]).await);
    assert!(err.contains("cup.main.r1.t1.g1"), "{err}");
    ok(&mafia(&s, org, &["archive"]).await);
    assert_eq!(ok(&mafia(&s, "", &["list"]).await), "");
    let listed = ok(&mafia(&s, "", &["list", "--archived"]).await);
    assert!(
        listed.starts_with("cup · Cup 2026 · 2026-05-01–2026-05-02 · rules rfm"),
        "{listed}"
    );
    assert!(listed.trim_end().ends_with("archived"), "{listed}");
    let run = |args: &[&str]| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_mafia"));
        c.args([
            "tournament",
            "-t",
            "tmp",
            "--scoring",
            &s.scoring,
            "--token",
            org,
        ])
        .args(args);
        c.output().unwrap()
    };
    ok(&run(&["create", "--name", "Test", "--rules", "rfm"]));
    ok(&run(&["remove"]));
    assert!(refused(&run(&["show"])).contains("NotFound"));
}
