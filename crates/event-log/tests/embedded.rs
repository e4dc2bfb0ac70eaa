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
    let cfg = EmbeddedConfig { feed_buffer: 2 };
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

/// The tables of the earlier redb layout, as that code wrote them.
mod old_layout {
    use redb::TableDefinition;
    pub const HEADERS: TableDefinition<&str, &[u8]> = TableDefinition::new("headers");
    pub const GAMES: TableDefinition<&str, (u64, u64)> = TableDefinition::new("games");
    pub const EVENTS: TableDefinition<(&str, u64), &[u8]> = TableDefinition::new("events");
    pub const FEED: TableDefinition<u64, (&str, u64)> = TableDefinition::new("feed");
}

/// g1 (fence 2) and g2 (never leased), their events interleaved on the feed:
/// g1/1, g2/1, g1/2, g1/3.
fn write_old_layout(path: &std::path::Path) {
    use old_layout::*;
    let db = redb::Database::builder()
        .create_with_file_format_v3(true)
        .create(path)
        .unwrap();
    let txn = db.begin_write().unwrap();
    {
        let mut headers = txn.open_table(HEADERS).unwrap();
        let mut games = txn.open_table(GAMES).unwrap();
        let mut events = txn.open_table(EVENTS).unwrap();
        let mut feed = txn.open_table(FEED).unwrap();
        headers.insert("g1", b"setup-1".as_slice()).unwrap();
        headers.insert("g2", b"setup-2".as_slice()).unwrap();
        games.insert("g1", (3, 2)).unwrap();
        games.insert("g2", (1, 0)).unwrap();
        for (feed_seq, game, seq) in [(1, "g1", 1), (2, "g2", 1), (3, "g1", 2), (4, "g1", 3)] {
            let payload = format!("{game}-{seq}");
            events.insert((game, seq), payload.as_bytes()).unwrap();
            feed.insert(feed_seq, (game, seq)).unwrap();
        }
    }
    txn.commit().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_in_the_earlier_redb_layout_is_migrated_on_open_keeping_events_fences_and_cursors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("arena.redb");
    write_old_layout(&path);

    let log = EmbeddedLog::open(&path).await.unwrap();
    assert_eq!(log.list_games().await.unwrap(), vec!["g1", "g2"]);
    assert_eq!(
        log.header("g2").await.unwrap(),
        Some(Bytes::from("setup-2"))
    );
    let g1: Vec<_> = log.read("g1", 0, 10).await.unwrap();
    assert_eq!(
        g1.iter()
            .map(|e| (e.seq, e.payload.clone()))
            .collect::<Vec<_>>(),
        vec![
            (1, Bytes::from("g1-1")),
            (2, Bytes::from("g1-2")),
            (3, Bytes::from("g1-3"))
        ]
    );
    assert_eq!(log.last_seq("g2").await.unwrap(), 1);
    // A cursor the old file handed out resumes at the same place.
    let mut feed = log.feed(FeedCursor::from("2"));
    let rest = take_feed(&mut feed, 2).await;
    assert_eq!(
        rest.iter()
            .map(|(c, e)| (c.as_str().to_owned(), e.game.clone(), e.seq))
            .collect::<Vec<_>>(),
        vec![("3".into(), "g1".into(), 2), ("4".into(), "g1".into(), 3)]
    );
    // Fences never go back: g1 had 2, g2 none.
    let lease = log
        .acquire_lease("g1", "ref", Duration::from_secs(30))
        .await
        .unwrap();
    assert_eq!(lease.fence, 3);
    match log.append("g2", 1, 0, &batch("new", 1)).await {
        Ok(a) => assert_eq!(a.first_seq, 2),
        other => panic!("g2 was never leased, fence 0 appends: {other:?}"),
    }
    let feed_next = take_feed(&mut feed, 1).await;
    assert_eq!(feed_next[0].0.as_str(), "5");
    drop(feed);
    drop(log);

    let kept = std::fs::read(dir.path().join("arena.redb.redb-layout")).unwrap();
    assert!(kept.starts_with(b"redb"), "the old file is kept beside it");
    let log = EmbeddedLog::open(&path).await.unwrap();
    assert_eq!(log.last_seq("g2").await.unwrap(), 2);
    assert_eq!(log.last_seq("g1").await.unwrap(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_that_is_not_an_event_log_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.txt");
    std::fs::write(&path, "these are not events, just some text").unwrap();
    match EmbeddedLog::open(&path).await {
        Err(LogError::Corrupt(why)) => assert!(why.contains("notes.txt"), "{why}"),
        other => panic!("expected a refusal, got {other:?}"),
    }
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "these are not events, just some text",
        "the refused file is left as it was"
    );
}

/// A commit that a crash cut short was never acknowledged: reopening drops
/// it and the log goes on from the last complete one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn damage_in_the_middle_of_the_file_is_refused_on_open_and_cuts_nothing_off() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("e.redb");
    // More acknowledged data after the first event than one group (16 MiB)
    // can hold: a crash cannot have torn that far back.
    let big = Bytes::from(vec![b'x'; 1 << 20]);
    {
        let log = EmbeddedLog::open(&path).await.unwrap();
        log.create_game("g", b"h").await.unwrap();
        log.append("g", 0, 0, &batch("first", 1)).await.unwrap();
        for seq in 1..=20 {
            log.append("g", seq, 0, std::slice::from_ref(&big))
                .await
                .unwrap();
        }
    }
    let bytes = std::fs::read(&path).unwrap();
    let at = bytes.windows(7).position(|w| w == b"first-0").unwrap();
    let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    std::os::unix::fs::FileExt::write_all_at(&f, b"FIRST", at as u64).unwrap();
    let len = bytes.len() as u64;
    match EmbeddedLog::open(&path).await {
        Err(LogError::Corrupt(why)) => assert!(why.contains("damaged in its middle"), "{why}"),
        other => panic!("opened a file damaged in its middle: {other:?}"),
    }
    assert_eq!(std::fs::metadata(&path).unwrap().len(), len);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_torn_last_commit_is_dropped_on_open_and_appends_go_on_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("e.redb");
    {
        let log = EmbeddedLog::open(&path).await.unwrap();
        log.create_game("g", b"h").await.unwrap();
        log.append("g", 0, 0, &batch("a", 2)).await.unwrap();
    }
    // Opening cuts the file at its last record (the zeros made ahead too).
    let complete = {
        let log = EmbeddedLog::open(&path).await.unwrap();
        let complete = std::fs::metadata(&path).unwrap().len();
        log.append("g", 2, 0, &batch("b", 3)).await.unwrap();
        complete
    };
    let write_at = |at: u64, bytes: &[u8]| {
        let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        std::os::unix::fs::FileExt::write_all_at(&f, bytes, at).unwrap();
    };
    // The last record cut short; then a frame whose checksum does not
    // match, behind it what a crash may leave (zeros, a whole record).
    let cut = || {
        let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.set_len(complete + 3).unwrap();
    };
    let garbage = || {
        write_at(complete, &[5, 0, 0, 0, 1, 2, 3, 4, 9, 9, 9, 9, 9]);
        write_at(complete + 200, &[0u8; 64]);
    };
    for (case, tear) in [("cut", &cut as &dyn Fn()), ("garbage", &garbage)] {
        tear();
        let log = EmbeddedLog::open(&path).await.unwrap();
        assert_eq!(log.last_seq("g").await.unwrap(), 2, "{case}");
        assert_eq!(std::fs::metadata(&path).unwrap().len(), complete, "{case}");
    }
    let log = EmbeddedLog::open(&path).await.unwrap();
    log.append("g", 2, 0, &batch("c", 1)).await.unwrap();
    let events = log.read("g", 1, 10).await.unwrap();
    assert_eq!(
        events.iter().map(|e| e.payload.clone()).collect::<Vec<_>>(),
        [batch("a", 2), batch("c", 1)].concat()
    );
    let mut feed = log.feed(FeedCursor::beginning());
    let all = take_feed(&mut feed, 3).await;
    assert_eq!(
        all.iter().map(|(c, _)| c.as_str()).collect::<Vec<_>>(),
        ["1", "2", "3"]
    );
}
