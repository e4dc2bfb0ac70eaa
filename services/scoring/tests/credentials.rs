//! Credentials issued at runtime through the scoring service over real
//! gRPC on 127.0.0.1:0: who may issue and revoke, what a credential
//! covers, the audit trail, bad input refused with nothing stored, and the
//! token never in the log's bytes.

use mafia_event_log::{EmbeddedLog, EventLog};
use mafia_proto::v1::scoring_client::ScoringClient;
use mafia_proto::v1::{
    CommandRequest, CreateTournamentRequest, IssueCredentialRequest, RegisterPlayersCsvRequest,
    RevokeCredentialRequest, TournamentRef,
};
use mafia_record::{StageId, TournamentId};
use mafia_rules::RuleSetId;
use mafia_scoring::{start, Running, Tokens};
use mafia_tournament::{
    Coefficient, Judge, JudgeId, PlayerId, Scheme, SeatedTable, Stage, TournamentCommand,
    TournamentSpec,
};
use std::sync::Arc;
use std::time::Duration;
use tonic::transport::Channel;
use tonic::{Code, Request};

const TOKENS: &str = r#"{"tokens":[
  {"role":"organiser","token":"org-token","name":"Olga"},
  {"role":"organiser","token":"org-t1-token","games":["cup.*.*.t1.*"]},
  {"role":"organiser","token":"org-other-token","games":["other.*.*.*.*"]},
  {"role":"chief_judge","token":"chief-token"}]}"#;

fn with_token<T>(token: &str, msg: T) -> Request<T> {
    let mut r = Request::new(msg);
    if !token.is_empty() {
        r.metadata_mut()
            .insert("authorization", format!("Bearer {token}").parse().unwrap());
    }
    r
}

async fn serve(log: Arc<dyn EventLog>) -> (Running, ScoringClient<Channel>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let running = start(listener, log, Tokens::from_json(TOKENS).unwrap())
        .await
        .unwrap();
    let client = ScoringClient::connect(format!("http://{}", running.addr))
        .await
        .unwrap();
    (running, client)
}

async fn command(c: &mut ScoringClient<Channel>, cmd: &TournamentCommand) {
    c.command(with_token(
        "org-token",
        CommandRequest {
            tournament: "cup".into(),
            command_json: serde_json::to_string(cmd).unwrap(),
        },
    ))
    .await
    .unwrap();
}

/// "cup": judges anna (seated at table 1 of round 1) and boris (seated
/// nowhere), one stage, ten players.
async fn set_up(c: &mut ScoringClient<Channel>) {
    let spec = TournamentSpec {
        id: TournamentId::new("cup").unwrap(),
        name: "Cup".into(),
        rules: RuleSetId::Rfm,
        rule_overrides: serde_json::Value::Null,
        scheme: Scheme::rfm(),
    };
    c.create_tournament(with_token(
        "org-token",
        CreateTournamentRequest {
            spec_json: serde_json::to_string(&spec).unwrap(),
        },
    ))
    .await
    .unwrap();
    for j in ["anna", "boris"] {
        let judge = Judge {
            id: JudgeId::new(j),
            name: j.into(),
        };
        command(c, &TournamentCommand::AddJudge { judge }).await;
    }
    let stage = Stage {
        id: StageId::new("main").unwrap(),
        name: "Main".into(),
        rounds: 2,
        tables: 1,
        coefficient: Coefficient::ONE,
    };
    command(c, &TournamentCommand::AddStage { stage }).await;
    let mut csv = String::from("id,nickname\n");
    for n in 1..=10 {
        csv.push_str(&format!("p{n:02},Player {n}\n"));
    }
    c.register_players_csv(with_token(
        "org-token",
        RegisterPlayersCsvRequest {
            tournament: "cup".into(),
            csv,
            csv_bytes: Vec::new(),
        },
    ))
    .await
    .unwrap();
    let seat = TournamentCommand::SeatRound {
        stage: StageId::new("main").unwrap(),
        round: 1,
        tables: vec![SeatedTable {
            table: 1,
            seats: (1..=10)
                .map(|n| PlayerId::new(format!("p{n:02}")))
                .collect(),
            judge: Some(JudgeId::new("anna")),
        }],
    };
    command(c, &seat).await;
}

fn issue(role: &str, name: &str, scopes: &[&str]) -> IssueCredentialRequest {
    IssueCredentialRequest {
        tournament: "cup".into(),
        role: role.into(),
        name: name.into(),
        scopes: scopes.iter().map(|s| s.to_string()).collect(),
    }
}

async fn access_events(log: &Arc<dyn EventLog>) -> u64 {
    log.last_seq(mafia_access::issued::STREAM)
        .await
        .unwrap_or(0)
}

/// The service on an embedded log in `dir` (`events.redb`), with "cup" set up.
async fn cup(dir: &std::path::Path) -> (Arc<dyn EventLog>, Running, ScoringClient<Channel>) {
    let log: Arc<dyn EventLog> =
        Arc::new(EmbeddedLog::open(dir.join("events.redb")).await.unwrap());
    let (running, mut c) = serve(log.clone()).await;
    set_up(&mut c).await;
    (log, running, c)
}

#[tokio::test]
async fn bad_requests_are_refused_with_a_clear_error_and_store_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (log, _running, mut c) = cup(dir.path()).await;
    let cases: Vec<(&str, IssueCredentialRequest, Code, &str)> = vec![
        (
            "org-token",
            issue("referee", "anna", &[]),
            Code::InvalidArgument,
            "unknown role",
        ),
        (
            "org-token",
            issue("table_judge", "anna", &["other.main.r1.t1.*"]),
            Code::InvalidArgument,
            "outside tournament cup",
        ),
        (
            "org-token",
            issue("chief_judge", "chief", &["*"]),
            Code::InvalidArgument,
            "outside tournament cup",
        ),
        (
            "org-token",
            issue("table_judge", "anna", &["cup.main.r1.t1*"]),
            Code::InvalidArgument,
            "scope",
        ),
        (
            "org-token",
            issue("table_judge", "", &[]),
            Code::InvalidArgument,
            "needs a name",
        ),
        (
            "org-token",
            issue("table_judge", "nobody", &[]),
            Code::FailedPrecondition,
            "not a judge of tournament cup",
        ),
        (
            "org-token",
            issue("table_judge", "boris", &[]),
            Code::FailedPrecondition,
            "seated at no table",
        ),
        (
            "chief-token",
            issue("table_judge", "anna", &[]),
            Code::PermissionDenied,
            "only its organiser",
        ),
        (
            "",
            issue("table_judge", "anna", &[]),
            Code::PermissionDenied,
            "only its organiser",
        ),
        (
            "org-t1-token",
            issue("table_judge", "anna", &[]),
            Code::PermissionDenied,
            "whole tournament cup",
        ),
        (
            "org-other-token",
            issue("table_judge", "anna", &[]),
            Code::PermissionDenied,
            "whole tournament cup",
        ),
        (
            "not-a-token",
            issue("table_judge", "anna", &[]),
            Code::Unauthenticated,
            "invalid token",
        ),
    ];
    for (token, req, code, says) in cases {
        let e = c
            .issue_credential(with_token(token, req.clone()))
            .await
            .unwrap_err();
        assert_eq!(e.code(), code, "{token} {req:?}: {e:?}");
        assert!(e.message().contains(says), "{token} {req:?}: {e:?}");
    }
    let e = c
        .issue_credential(with_token(
            "org-token",
            IssueCredentialRequest {
                tournament: "nope".into(),
                ..issue("organiser", "x", &[])
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::NotFound, "{e:?}");
    let e = c
        .revoke_credential(with_token(
            "org-token",
            RevokeCredentialRequest {
                tournament: "cup".into(),
                id: "c-000000000000".into(),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::NotFound, "{e:?}");
    assert!(e.message().contains("no credential"), "{e:?}");
    assert_eq!(access_events(&log).await, 0, "nothing stored");
    let list = c
        .list_credentials(with_token(
            "org-token",
            TournamentRef {
                tournament: "cup".into(),
            },
        ))
        .await
        .unwrap()
        .into_inner();
    assert!(list.credentials.is_empty());
    let e = c
        .list_credentials(with_token(
            "org-other-token",
            TournamentRef {
                tournament: "cup".into(),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
}

/// A table judge's credential gets his seated tables; the token is in the
/// reply once, only its hash in the log's file; revoking is kept with who
/// and when, and revoking again changes nothing.
#[tokio::test]
async fn a_credential_is_stored_as_its_hash_with_its_audit_trail() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("events.redb");
    let (log, running, mut c) = cup(dir.path()).await;
    let reply = c
        .issue_credential(with_token("org-token", issue("table_judge", "anna", &[])))
        .await
        .unwrap()
        .into_inner();
    let cred = reply.credential.unwrap();
    let token = reply.token;
    assert_eq!(cred.scopes, vec!["cup.main.r1.t1.*".to_owned()]);
    assert_eq!(cred.role, "table_judge");
    assert_eq!(cred.issued_by, "Olga");
    assert!(cred.issued_at_ms > 0 && cred.revoked_at_ms == 0);
    assert!(token.len() >= 32 && !token.contains(&cred.id));
    let chief = c
        .issue_credential(with_token(
            "org-token",
            issue(
                "chief_judge",
                "Chief",
                &["cup.main.*.*.*", "cup.main.*.*.*"],
            ),
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        chief.credential.unwrap().scopes,
        vec!["cup.main.*.*.*".to_owned()]
    );
    let organiser = c
        .issue_credential(with_token("org-token", issue("organiser", "Deputy", &[])))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        organiser.credential.as_ref().unwrap().scopes,
        vec!["cup.*.*.*.*".to_owned()]
    );

    // Honoured by the service itself within seconds: the organiser it
    // issued may list, and issue in his turn.
    let deputy = organiser.token.clone();
    let listed = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            let r = c
                .list_credentials(with_token(
                    &deputy,
                    TournamentRef {
                        tournament: "cup".into(),
                    },
                ))
                .await;
            match r {
                Ok(l) => break l.into_inner(),
                Err(e) => {
                    assert_eq!(e.code(), Code::Unauthenticated, "{e:?}");
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            }
        }
    })
    .await
    .expect("the issued credential is honoured");
    assert_eq!(listed.credentials.len(), 3);

    // Revoked, with who and when; again: nothing more stored.
    let before = access_events(&log).await;
    let revoke = RevokeCredentialRequest {
        tournament: "cup".into(),
        id: cred.id.clone(),
    };
    let after = c
        .revoke_credential(with_token(&deputy, revoke.clone()))
        .await
        .unwrap()
        .into_inner();
    let revoked = after.credentials.iter().find(|x| x.id == cred.id).unwrap();
    assert!(revoked.revoked_at_ms >= cred.issued_at_ms);
    assert!(revoked.revoked_by.starts_with("Deputy (c-"), "{revoked:?}");
    assert_eq!(access_events(&log).await, before + 1);
    let again = c
        .revoke_credential(with_token("org-token", revoke))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(again, after, "revoking twice changes nothing");
    assert_eq!(access_events(&log).await, before + 1);

    // The log's own bytes: each credential's hash, never its token.
    running.shutdown().await;
    drop(c);
    drop(log);
    let bytes = std::fs::read(&path).unwrap();
    let holds = |needle: &str| bytes.windows(needle.len()).any(|w| w == needle.as_bytes());
    for t in [&token, &chief.token, &organiser.token] {
        assert!(!holds(t), "a token is in the log's bytes");
        assert!(holds(&hex_sha256(t)), "its hash is stored");
    }
    assert!(holds(&cred.id));
}

fn hex_sha256(token: &str) -> String {
    mafia_access::TokenHash::of(token)
        .0
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Removing a tournament revokes its live credentials at once, so one made
/// again under its id inherits none; the revoked stay in the audit trail.
#[tokio::test]
async fn revoking_all_of_a_tournaments_credentials_leaves_none_live() {
    let dir = tempfile::tempdir().unwrap();
    let (log, running, mut c) = cup(dir.path()).await;
    for name in ["A", "B", "C"] {
        c.issue_credential(with_token("org-token", issue("organiser", name, &[])))
            .await
            .unwrap();
    }
    let list = |c: &mut ScoringClient<Channel>| {
        let mut c = c.clone();
        async move {
            c.list_credentials(with_token(
                "org-token",
                TournamentRef {
                    tournament: "cup".into(),
                },
            ))
            .await
            .unwrap()
            .into_inner()
            .credentials
        }
    };
    let first = list(&mut c).await[0].id.clone();
    c.revoke_credential(with_token(
        "org-token",
        RevokeCredentialRequest {
            tournament: "cup".into(),
            id: first,
        },
    ))
    .await
    .unwrap();
    let tokens = Tokens::from_json(TOKENS).unwrap();
    let cup: TournamentId = "cup".parse().unwrap();
    let chief = tokens.check(Some("chief-token")).unwrap();
    let e = running
        .credentials
        .revoke_all(&chief, &cup, 5)
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    let org = tokens.check(Some("org-token")).unwrap();
    let before = access_events(&log).await;
    assert_eq!(
        running.credentials.revoke_all(&org, &cup, 5).await.unwrap(),
        2
    );
    assert_eq!(access_events(&log).await, before + 2);
    assert_eq!(
        running.credentials.revoke_all(&org, &cup, 6).await.unwrap(),
        0
    );
    let after = list(&mut c).await;
    assert_eq!(after.len(), 3);
    assert!(after.iter().all(|x| x.revoked_at_ms > 0), "{after:?}");
}
