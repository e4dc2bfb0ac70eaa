//! `mafia tournament credential issue|revoke|list` against a real scoring
//! service on 127.0.0.1:0: a judge's credential issued from the command
//! line (its token printed once), listed with its audit trail, revoked,
//! and every refusal printed with the service's reason.

use mafia_event_log::{EmbeddedLog, EventLog};
use std::process::Output;
use std::sync::Arc;

const TOKENS: &str = r#"{"tokens":[
  {"role":"organiser","token":"org-token","name":"Olga"},
  {"role":"chief_judge","token":"chief-token"}]}"#;

struct Scoring {
    url: String,
    dir: tempfile::TempDir,
    _running: mafia_scoring::Running,
}

async fn scoring() -> Scoring {
    let dir = tempfile::tempdir().unwrap();
    let log: Arc<dyn EventLog> = Arc::new(
        EmbeddedLog::open(dir.path().join("log.redb"))
            .await
            .unwrap(),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let running = mafia_scoring::start(
        listener,
        log,
        mafia_scoring::Tokens::from_json(TOKENS).unwrap(),
    )
    .await
    .unwrap();
    Scoring {
        url: format!("http://{}", running.addr),
        dir,
        _running: running,
    }
}

async fn mafia(s: &Scoring, token: &str, args: &[&str]) -> Output {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_mafia"));
    cmd.args([
        "tournament",
        "-t",
        "cup",
        "--scoring",
        &s.url,
        "--token",
        token,
    ])
    .args(args)
    .env_remove("MAFIA_TOKEN");
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
async fn an_organiser_issues_lists_and_revokes_credentials_from_the_command_line() {
    let s = scoring().await;
    let org = "org-token";
    ok(&mafia(&s, org, &["create", "--name", "Cup", "--rules", "rfm"]).await);
    ok(&mafia(
        &s,
        org,
        &["stage", "main", "--rounds", "1", "--tables", "1"],
    )
    .await);
    ok(&mafia(&s, org, &["judge", "anna", "Anna"]).await);
    let csv = s.dir.path().join("players.csv");
    let players: String = (1..=10).map(|n| format!("p{n:02},Player {n}\n")).collect();
    std::fs::write(&csv, format!("id,nickname\n{players}")).unwrap();
    ok(&mafia(&s, org, &["players", csv.to_str().unwrap()]).await);
    ok(&mafia(&s, org, &["seat", "--round", "1", "--seed", "7"]).await);

    let out = ok(&mafia(
        &s,
        org,
        &[
            "credential",
            "issue",
            "--role",
            "table_judge",
            "--name",
            "anna",
        ],
    )
    .await);
    let first = out.lines().next().unwrap();
    assert!(
        first.contains("table_judge  anna  [cup.main.r1.t1.*]  issued by Olga"),
        "{out}"
    );
    let id = first.split_whitespace().next().unwrap().to_owned();
    let token = out
        .lines()
        .find_map(|l| l.strip_prefix("token: "))
        .unwrap()
        .to_owned();
    assert_eq!(token.len(), 32, "{out}");

    let json = ok(&mafia(
        &s,
        org,
        &[
            "credential",
            "issue",
            "--role",
            "chief_judge",
            "--name",
            "Boris",
            "--scope",
            "cup.main.*.*.*",
            "--json",
        ],
    )
    .await);
    let v: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
    assert_eq!(v["credential"]["scopes"][0], "cup.main.*.*.*");
    assert_eq!(v["token"].as_str().unwrap().len(), 32);

    let e = refused(
        &mafia(
            &s,
            org,
            &["credential", "issue", "--role", "referee", "--name", "x"],
        )
        .await,
    );
    assert!(
        e.contains("InvalidArgument") && e.contains("unknown role"),
        "{e}"
    );
    let e = refused(
        &mafia(
            &s,
            org,
            &[
                "credential",
                "issue",
                "--role",
                "table_judge",
                "--name",
                "anna",
                "--scope",
                "other.*.*.*.*",
            ],
        )
        .await,
    );
    assert!(e.contains("outside tournament cup"), "{e}");
    let e = refused(
        &mafia(
            &s,
            "chief-token",
            &["credential", "issue", "--role", "organiser", "--name", "x"],
        )
        .await,
    );
    assert!(e.contains("PermissionDenied"), "{e}");
    let e = refused(&mafia(&s, org, &["credential", "revoke", "c-000000000000"]).await);
    assert!(e.contains("NotFound"), "{e}");

    let out = ok(&mafia(&s, org, &["credential", "revoke", &id]).await);
    assert!(
        out.contains(&id) && out.contains("revoked by Olga"),
        "{out}"
    );
    let list = ok(&mafia(&s, org, &["credential", "list", "--json"]).await);
    let rows: Vec<serde_json::Value> = list
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2, "{list}");
    assert_eq!(rows[0]["id"], id.as_str());
    assert_eq!(rows[0]["revoked_by"], "Olga");
    assert_eq!(rows[1]["revoked_at_ms"], 0);
    assert!(!list.contains(&token), "the list never holds a token");
}
