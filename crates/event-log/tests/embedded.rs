//! Conformance suite and file-specific behaviour of the embedded backend.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use mafia_event_log::conformance::{assert_feed_quiet, take_feed};
use mafia_event_log::{EmbeddedConfig, EmbeddedLog, EventLog, FeedCursor, LogError};
use tempfile::TempDir;

async fn fresh_log() -> (Arc<dyn EventLog>, TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let log = EmbeddedLog::open(dir.path().join("events.redb"))
        .await
        .unwrap();
    (Arc::new(log), dir)
}

mafia_event_log::event_log_conformance_tests!(fresh_log());

fn batch(prefix: &str, n: usize) -> Vec<Bytes> {
    (0..n)
        .map(|i| Bytes::from(format!("{prefix}-{i}")))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn data_fences_and_feed_survive_reopening_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("events.redb");
    let (cursor, fence) = {
        let log = EmbeddedLog::open(&path).await.unwrap();
        log.create_game("g", b"setup").await.unwrap();
        let lease = log
            .acquire_lease("g", "ref", Duration::from_secs(30))
            .await
            .unwrap();
        log.append("g", 0, lease.fence, &batch("a", 3))
            .await
            .unwrap();
        let mut feed = log.feed(FeedCursor::beginning());
        let seen = take_feed(&mut feed, 2).await;
        (seen[1].0.clone(), lease.fence)
    };

    let log = EmbeddedLog::open(&path).await.unwrap();
    assert_eq!(log.header("g").await.unwrap(), Some(Bytes::from("setup")));
    assert_eq!(log.list_games().await.unwrap(), vec!["g".to_owned()]);
    assert_eq!(log.last_seq("g").await.unwrap(), 3);
    let events = log.read("g", 1, 10).await.unwrap();
    assert_eq!(events[2].payload, Bytes::from("a-2"));

    // The old fence is still current (no lease was granted since), so the old
    // holder may keep writing; a new lease must get a fresh, higher fence.
    log.append("g", 3, fence, &batch("b", 1)).await.unwrap();
    let lease = log
        .acquire_lease("g", "other", Duration::from_secs(30))
        .await
        .unwrap();
    assert!(
        lease.fence > fence,
        "fences must never be reused after a restart"
    );

    let mut feed = log.feed(cursor);
    let rest = take_feed(&mut feed, 2).await;
    assert_eq!(
        rest.iter().map(|(_, e)| e.seq).collect::<Vec<_>>(),
        vec![3, 4]
    );
    assert_feed_quiet(&mut feed).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn feed_follower_that_lags_the_live_channel_catches_up_from_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = EmbeddedConfig {
        feed_buffer: 2,
        ..EmbeddedConfig::default()
    };
    let log = EmbeddedLog::open_with(dir.path().join("e.redb"), cfg)
        .await
        .unwrap();
    log.create_game("g", b"h").await.unwrap();
    let mut feed = log.feed(log.feed_head().await.unwrap());
    assert_feed_quiet(&mut feed).await;
    let mut last = 0;
    for i in 0..20 {
        last = log
            .append("g", last, 0, &batch(&format!("r{i}"), 5))
            .await
            .unwrap()
            .last_seq;
    }
    let got = take_feed(&mut feed, 100).await;
    assert!(got.iter().zip(1..).all(|((_, e), seq)| e.seq == seq));
    assert_feed_quiet(&mut feed).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn second_open_of_the_same_file_fails_while_the_first_is_open() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("e.redb");
    let first = EmbeddedLog::open(&path).await.unwrap();
    match EmbeddedLog::open(&path).await {
        Err(LogError::Storage(_)) => {}
        other => panic!("a second open must fail, got {other:?}"),
    }
    drop(first);
    EmbeddedLog::open(&path).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn feed_ends_when_the_log_is_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let log = EmbeddedLog::open(dir.path().join("e.redb")).await.unwrap();
    let mut feed = log.feed(FeedCursor::now());
    assert_feed_quiet(&mut feed).await;
    drop(log);
    let end = tokio::time::timeout(Duration::from_secs(5), futures::StreamExt::next(&mut feed))
        .await
        .expect("feed must notice the shutdown");
    assert!(end.is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_cursor_is_reported_by_the_feed() {
    let (log, _dir) = fresh_log().await;
    let mut feed = log.feed(FeedCursor::from("12-0"));
    match futures::StreamExt::next(&mut feed).await {
        Some(Err(LogError::InvalidArgument(_))) => {}
        other => panic!("expected InvalidArgument, got {other:?}"),
    }
    assert!(futures::StreamExt::next(&mut feed).await.is_none());
}
