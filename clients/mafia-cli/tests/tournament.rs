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
    ok(&mafia(
        &s,
        org,
        &["stage", "main", "--rounds", "2", "--tables", "2"],
    )
    .await);
    ok(&mafia(&s, org, &["judge", "j1", "Anna"]).await);
    ok(&mafia(&s, org, &["judge", "j2", "Boris"]).await);
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
