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

/// Many games' appends at once share group commits; each is still checked on
/// its own, so refused ones (stale seq, old fence) fail alone and write
/// nothing, and every accepted one is stored and on the feed exactly once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_appends_are_checked_one_by_one_within_a_group_commit() {
    let (log, _dir) = fresh_log().await;
    let games: Vec<String> = (0..40).map(|i| format!("g{i}")).collect();
    for g in &games {
        log.create_game(g, b"setup").await.unwrap();
    }
    let lease = log
        .acquire_lease("g0", "ref", Duration::from_secs(30))
        .await
        .unwrap();
    let mut feed = log.feed(FeedCursor::beginning());
    for round in 0..3u64 {
        let calls = games.iter().enumerate().flat_map(|(i, g)| {
            let log = log.clone();
            let fence = if i == 0 { lease.fence } else { 0 };
            let good = {
                let (log, g) = (log.clone(), g.clone());
                async move {
                    (
                        g.clone(),
                        "good",
                        log.append(&g, round * 2, fence, &batch(&format!("{g}-{round}"), 2))
                            .await,
                    )
                }
            };
            // The same position again (loses to `good` or conflicts with it),
            // and a stale fence on the leased game.
            let dup = {
                let (log, g) = (log.clone(), g.clone());
                async move {
                    (
                        g.clone(),
                        "dup",
                        log.append(&g, round * 2 + 5, fence, &batch("dup", 1)).await,
                    )
                }
            };
            let stale = {
                let (log, g) = (log, g.clone());
                async move {
                    (
                        g.clone(),
                        "stale",
                        log.append(&g, round * 2, fence + 1, &batch("stale", 1))
                            .await,
                    )
                }
            };
            [
                Box::pin(good) as std::pin::Pin<Box<dyn std::future::Future<Output = _> + Send>>,
                Box::pin(dup),
                Box::pin(stale),
            ]
        });
        let results = futures::future::join_all(calls.collect::<Vec<_>>()).await;
        for (g, kind, r) in results {
            match (kind, r) {
                ("good", Ok(a)) => {
                    assert_eq!((a.first_seq, a.last_seq), (round * 2 + 1, round * 2 + 2))
                }
                ("dup", Err(LogError::Conflict { .. })) => {}
                ("stale", Err(LogError::Fenced { .. })) => {}
                (kind, other) => panic!("{g} {kind}: unexpected {other:?}"),
            }
        }
    }
    for g in &games {
        let events = log.read(g, 1, 100).await.unwrap();
        let got: Vec<_> = events.iter().map(|e| e.payload.clone()).collect();
        let want: Vec<Bytes> = (0..3).flat_map(|r| batch(&format!("{g}-{r}"), 2)).collect();
        assert_eq!(got, want, "{g}");
    }
    let seen = take_feed(&mut feed, games.len() * 6).await;
    let mut next: std::collections::HashMap<String, u64> = Default::default();
    for (_, e) in &seen {
        let n = next.entry(e.game.clone()).or_insert(1);
        assert_eq!(e.seq, *n, "feed order of {}", e.game);
        *n += 1;
    }
    assert_feed_quiet(&mut feed).await;
}

/// The embedded log keeps its whole feed: no cursor it issued is ever
/// older than its retention.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn follower_from_an_old_cursor_gets_everything_after_it_since_the_feed_is_never_trimmed() {
    let (log, _dir) = fresh_log().await;
    mafia_event_log::conformance::follower_from_a_cursor_older_than_the_retention_says_so_and_reads_the_rest(log, false).await;
}
