//! The `access` stream's follower on a real log: credentials appended to
//! the stream are honoured, then refused once revoked, by a table that
//! only follows the log; a long-lived stream's revocation resolves.
#![cfg(feature = "follow")]

use bytes::Bytes;
use mafia_access::issued::{AccessEvent, TokenHash, STREAM};
use mafia_access::{AuthError, Role, Tokens};
use mafia_event_log::testing::RedisServer;
use mafia_event_log::{EventLog, RedisLog, RedisLogConfig};
use std::sync::Arc;
use std::time::Duration;

async fn append(log: &dyn EventLog, e: &AccessEvent) {
    let last = log.last_seq(STREAM).await.unwrap();
    log.append(STREAM, last, 0, &[Bytes::from(e.encode())])
        .await
        .unwrap();
}

fn issued(id: &str, token: &str) -> AccessEvent {
    AccessEvent::Issued {
        id: id.into(),
        hash: TokenHash::of(token),
        tournament: "cup".parse().unwrap(),
        role: Role::TableJudge,
        name: "anna".into(),
        games: vec!["cup.main.*.t3.*".parse().unwrap()],
        issued_by: "org".into(),
        issued_at_ms: 1,
    }
}

/// Waits (bounded) until `cond` holds of the table.
async fn until(tokens: &Tokens, cond: impl Fn(&Tokens) -> bool) {
    tokio::time::timeout(Duration::from_secs(20), async {
        while !cond(tokens) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the table followed the log");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issued_credentials_are_honoured_and_revoked_ones_refused_by_every_follower() {
    let server = RedisServer::from_env_or_spawn().expect("a redis-server for tests");
    let prefix = server.scoped_prefix("access");
    let connect = || async {
        Arc::new(
            RedisLog::connect_with(server.url(), RedisLogConfig::with_prefix(prefix.as_str()))
                .await
                .unwrap(),
        ) as Arc<dyn EventLog>
    };
    let writer = connect().await;
    let file = r#"{"tokens":[{"role":"organiser","token":"organiser-token"}]}"#;
    // Two followers, as two processes on one Redis would have.
    let (a, b) = (
        Tokens::from_json(file).unwrap(),
        Tokens::from_json(file).unwrap(),
    );
    for t in [&a, &b] {
        let log = connect().await;
        tokio::spawn(mafia_access::follow::run(
            t.clone(),
            log,
            std::future::pending(),
        ));
    }
    // History before the followers caught up, and live after.
    mafia_access::follow::ensure_stream(writer.as_ref()).await;
    append(writer.as_ref(), &issued("c-old", "old-token-000")).await;
    for t in [&a, &b] {
        t.caught_up().await;
    }
    append(writer.as_ref(), &issued("c-new", "new-token-000")).await;
    for t in [&a, &b] {
        until(t, |t| t.check(Some("new-token-000")).is_ok()).await;
        let c = t.check(Some("old-token-000")).unwrap();
        assert_eq!(c.credential(), Some("c-old"));
        assert_eq!(c.holder(), Some("anna"));
        assert!(c.may_judge(&"cup.main.r1.t3.g1".parse().unwrap()).is_ok());
        assert!(c.may_judge(&"cup.main.r1.t4.g1".parse().unwrap()).is_err());
    }
    let caller = a.check(Some("new-token-000")).unwrap();
    let mut revoked = a.until_revoked(&caller);
    let file_caller = a.check(Some("organiser-token")).unwrap();
    assert!(!a.until_revoked(&file_caller).is_revocable());
    append(
        writer.as_ref(),
        &AccessEvent::Revoked {
            id: "c-new".into(),
            tournament: "cup".parse().unwrap(),
            revoked_by: "org".into(),
            revoked_at_ms: 2,
        },
    )
    .await;
    tokio::time::timeout(Duration::from_secs(20), &mut revoked)
        .await
        .expect("the open stream learns of the revocation");
    assert!(revoked.is_revoked());
    for t in [&a, &b] {
        until(t, |t| t.check(Some("new-token-000")).is_err()).await;
        assert_eq!(t.check(Some("new-token-000")), Err(AuthError::BadToken));
        assert!(t.check(Some("old-token-000")).is_ok());
        assert!(t.check(Some("organiser-token")).is_ok());
    }
    // A stream opened by a credential revoked meanwhile ends at once.
    tokio::time::timeout(Duration::from_secs(5), a.until_revoked(&caller))
        .await
        .expect("already revoked");
}
