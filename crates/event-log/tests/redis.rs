//! Conformance suite and Redis-specific behaviour, against a real server:
//! `REDIS_URL` if set, else a private `redis-server` per test.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt;
use mafia_event_log::conformance::take_feed;
use mafia_event_log::testing::{RedisServer, ScopedPrefix};
use mafia_event_log::{EventLog, FeedCursor, LogError, RedisLog, RedisLogConfig};
use redis::AsyncCommands;

fn server() -> RedisServer {
    RedisServer::from_env_or_spawn()
        .unwrap_or_else(|e| panic!("these tests need a real Redis: {e}"))
}

async fn connect(server: &RedisServer, cfg: RedisLogConfig) -> RedisLog {
    RedisLog::connect_with(server.url(), cfg).await.unwrap()
}

/// The prefix comes first so it is dropped (and its keys deleted) before the server.
async fn fresh_log() -> (Arc<dyn EventLog>, (ScopedPrefix, RedisServer)) {
    let server = server();
    let prefix = server.scoped_prefix("event-log-conformance");
    let cfg = RedisLogConfig {
        // Short blocks keep dropped feeds from holding server connections long.
        feed_block: Duration::from_millis(500),
        ..RedisLogConfig::with_prefix(prefix.as_str())
    };
    let log = connect(&server, cfg).await;
    (Arc::new(log), (prefix, server))
}

mafia_event_log::event_log_conformance_tests!(fresh_log());

fn batch(prefix: &str, n: usize) -> Vec<Bytes> {
    (0..n)
        .map(|i| Bytes::from(format!("{prefix}-{i}")))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_follow_the_documented_layout() {
    let server = server();
    let prefix = server.scoped_prefix("event-log-layout");
    let log = connect(&server, RedisLogConfig::with_prefix(prefix.as_str())).await;
    let prefix = prefix.as_str();
    log.create_game("g", b"setup").await.unwrap();
    let lease = log
        .acquire_lease("g", "ref-1", Duration::from_secs(30))
        .await
        .unwrap();
    log.append("g", 0, lease.fence, &batch("e", 2))
        .await
        .unwrap();

    let client = redis::Client::open(server.url()).unwrap();
    let mut c = client.get_multiplexed_async_connection().await.unwrap();
    // Every key of the game, and its feed shard, under one hash tag.
    let keys: Vec<String> = c.keys(format!("{{{prefix}:*")).await.unwrap();
    let tag = keys
        .iter()
        .find(|k| k.ends_with(":game:g:header"))
        .and_then(|k| k.split_once('}'))
        .map(|(t, _)| format!("{t}}}"))
        .expect("the header key");
    let mut mine: Vec<&str> = keys
        .iter()
        .filter_map(|k| k.strip_prefix(tag.as_str()))
        .collect();
    mine.sort();
    assert_eq!(
        mine,
        vec![
            ":feed",
            ":game:g:events",
            ":game:g:header",
            ":game:g:lease",
            ":game:g:state",
            ":games"
        ],
        "{keys:?}"
    );
    let header: Vec<u8> = c.get(format!("{tag}:game:g:header")).await.unwrap();
    assert_eq!(header, b"setup");
    let games: Vec<String> = c.smembers(format!("{tag}:games")).await.unwrap();
    assert_eq!(games, vec!["g".to_owned()]);
    let fence: String = c
        .hget(format!("{tag}:game:g:state"), "fence")
        .await
        .unwrap();
    assert_eq!(fence, "1");
    let lease_val: String = c.get(format!("{tag}:game:g:lease")).await.unwrap();
    assert_eq!(lease_val, "1:ref-1");
    let events: Vec<Vec<u8>> = c
        .lrange(format!("{tag}:game:g:events"), 0, -1)
        .await
        .unwrap();
    let appended: Vec<Vec<u8>> = batch("e", 2).iter().map(|b| b.to_vec()).collect();
    assert_eq!(events, appended, "seq s at index s - 1");
    // One feed entry per append, naming it: the game, its first seq, its
    // events (the payloads are the list's).
    let feed: redis::Value = redis::cmd("XRANGE")
        .arg(format!("{tag}:feed"))
        .arg("-")
        .arg("+")
        .query_async(&mut c)
        .await
        .unwrap();
    let entries: Vec<(String, Vec<Vec<u8>>)> = redis::from_redis_value(&feed).unwrap();
    let fields: Vec<Vec<u8>> = [&b"e"[..], b"g 1 2"].iter().map(|f| f.to_vec()).collect();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].1, fields);
}

/// Feed entries written before entries named their appends carry their
/// payloads, one event each or an append's: a follower reads them as
/// before, and then the new ones.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn feed_entries_of_the_earlier_layouts_are_still_read() {
    let server = server();
    let prefix = server.scoped_prefix("event-log-old-entries");
    let log = connect(&server, RedisLogConfig::with_prefix(prefix.as_str())).await;
    log.create_game("g", b"h").await.unwrap();
    log.append("g", 0, 0, &batch("e", 3)).await.unwrap();
    let client = redis::Client::open(server.url()).unwrap();
    let mut c = client.get_multiplexed_async_connection().await.unwrap();
    let keys: Vec<String> = c
        .keys(format!("{{{}:*:feed", prefix.as_str()))
        .await
        .unwrap();
    let feed = keys.first().expect("the game's feed shard").clone();
    let _: i64 = c.del(&feed).await.unwrap();
    // Seq 1 alone, then seqs 2 and 3 in one entry, as the list holds them.
    let _: String = redis::cmd("XADD")
        .arg(&feed)
        .arg("*")
        .arg(&["g", "g", "s", "1", "p", "e-0"])
        .query_async(&mut c)
        .await
        .unwrap();
    let _: String = redis::cmd("XADD")
        .arg(&feed)
        .arg("*")
        .arg(&["g", "g", "s", "2", "p", "e-1", "p", "e-2"])
        .query_async(&mut c)
        .await
        .unwrap();
    let mut follower = log.feed(FeedCursor::beginning());
    log.append("g", 3, 0, &batch("f", 1)).await.unwrap();
    let got: Vec<(u64, Bytes)> = take_feed(&mut follower, 4)
        .await
        .into_iter()
        .map(|(_, e)| (e.seq, e.payload))
        .collect();
    let expected: Vec<(u64, Bytes)> = batch("e", 3)
        .into_iter()
        .chain(batch("f", 1))
        .enumerate()
        .map(|(i, p)| (i as u64 + 1, p))
        .collect();
    assert_eq!(got, expected);
}

/// A log whose feed keeps about 10 entries, with game "g" at seq 1. The
/// prefix comes before the server so it is dropped (keys deleted) first.
async fn capped_log(tag: &str) -> (RedisLog, ScopedPrefix, RedisServer) {
    let server = server();
    let prefix = server.scoped_prefix(tag);
    let cfg = RedisLogConfig {
        feed_maxlen: 10,
        ..RedisLogConfig::with_prefix(prefix.as_str())
    };
    let log = connect(&server, cfg).await;
    log.create_game("g", b"h").await.unwrap();
    log.append("g", 0, 0, &batch("a", 1)).await.unwrap();
    (log, prefix, server)
}

/// 300 more events of "g" after `last`, 150 feed entries (one per
/// append), far past the cap; the new last seq.
async fn append_past_the_cap(log: &RedisLog, mut last: u64) -> u64 {
    for i in 0..150 {
        last = log
            .append("g", last, 0, &batch(&format!("r{i}"), 2))
            .await
            .unwrap()
            .last_seq;
    }
    last
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn feed_is_capped_and_a_cursor_behind_the_cap_is_reported_trimmed() {
    let (log, _prefix, _server) = capped_log("event-log-trim").await;
    let mut feed = log.feed(FeedCursor::beginning());
    let early = take_feed(&mut feed, 1).await[0].0.clone();
    drop(feed);

    let last = append_past_the_cap(&log, 1).await;
    // The per-game log is never trimmed.
    assert_eq!(log.read("g", 1, 1_000).await.unwrap().len(), 301);

    let mut feed = log.feed(early);
    match feed.next().await {
        Some(Err(LogError::FeedTrimmed { .. })) => {}
        other => panic!("a trimmed-away cursor must be reported, got {other:?}"),
    }
    // From the head, it works.
    let mut feed = log.feed(log.feed_head().await.unwrap());
    log.append("g", last, 0, &batch("z", 1)).await.unwrap();
    assert_eq!(take_feed(&mut feed, 1).await[0].1.seq, last + 1);
}

/// The feed reads from the cursor's own entry to learn cheaply that
/// nothing after it was trimmed; a cursor that names no entry (here, one
/// just before the first) takes the slower check and is not mistaken for
/// a trimmed one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cursor_that_names_no_entry_reads_what_follows_it() {
    let (log, _prefix, _server) = capped_log("event-log-cursor-between").await;
    log.append("g", 1, 0, &batch("b", 2)).await.unwrap();
    let mut feed = log.feed(FeedCursor::beginning());
    let first = take_feed(&mut feed, 1).await[0].0.clone();
    drop(feed);
    // The first entry's shard moved to an id just before that entry.
    let before: Vec<String> = first
        .as_str()
        .split(',')
        .map(|part| {
            let (shard, id) = part.split_once(':').unwrap();
            if id == "0-0" {
                return part.to_owned();
            }
            let ms: u64 = id.split_once('-').unwrap().0.parse().unwrap();
            format!("{shard}:{}-99", ms - 1)
        })
        .collect();
    let mut feed = log.feed(FeedCursor::from(before.join(",")));
    let seqs: Vec<u64> = take_feed(&mut feed, 3)
        .await
        .into_iter()
        .map(|(_, e)| e.seq)
        .collect();
    assert_eq!(seqs, vec![1, 2, 3]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_feed_that_falls_behind_the_cap_is_told_it_was_trimmed_not_skipped() {
    let (log, _prefix, _server) = capped_log("event-log-live-trim").await;
    // The feed is open and has read the first entry when the writer races
    // past the cap.
    let mut feed = log.feed(FeedCursor::beginning());
    assert_eq!(take_feed(&mut feed, 1).await[0].1.seq, 1);
    append_past_the_cap(&log, 1).await;
    match feed.next().await {
        Some(Err(LogError::FeedTrimmed { .. })) => {}
        other => panic!("entries trimmed under a live feed must be reported, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_cursor_is_reported_by_the_feed() {
    let (log, _server) = fresh_log().await;
    let mut feed = log.feed(FeedCursor::from("not-a-cursor"));
    match feed.next().await {
        Some(Err(LogError::InvalidArgument(_))) => {}
        other => panic!("expected InvalidArgument, got {other:?}"),
    }
    assert!(feed.next().await.is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_clients_share_one_log_and_fence_each_other() {
    let server = server();
    let prefix = server.scoped_prefix("event-log-two-clients");
    let a = connect(&server, RedisLogConfig::with_prefix(prefix.as_str())).await;
    let b = connect(&server, RedisLogConfig::with_prefix(prefix.as_str())).await;
    a.create_game("g", b"h").await.unwrap();
    assert!(!b.create_game("g", b"h").await.unwrap());
    let la = a
        .acquire_lease("g", "ref-a", Duration::from_millis(100))
        .await
        .unwrap();
    a.append("g", 0, la.fence, &batch("a", 1)).await.unwrap();
    tokio::time::sleep(Duration::from_millis(250)).await;
    let lb = b
        .acquire_lease("g", "ref-b", Duration::from_secs(30))
        .await
        .unwrap();
    assert!(matches!(
        a.append("g", 1, la.fence, &batch("a", 1)).await,
        Err(LogError::Fenced { .. })
    ));
    b.append("g", 1, lb.fence, &batch("b", 1)).await.unwrap();
    assert_eq!(a.last_seq("g").await.unwrap(), 2);
}

#[test]
fn spawned_test_server_is_killed_on_drop() {
    let server = RedisServer::spawn().unwrap_or_else(|e| panic!("{e}"));
    assert!(server.is_spawned());
    let url = server.url().to_owned();
    let client = redis::Client::open(url.as_str()).unwrap();
    let mut conn = client.get_connection().unwrap();
    let pong: String = redis::cmd("PING").query(&mut conn).unwrap();
    assert_eq!(pong, "PONG");
    drop(conn);
    drop(server);
    let addr = url
        .trim_start_matches("redis://")
        .trim_end_matches('/')
        .to_owned();
    assert!(
        std::net::TcpStream::connect(addr).is_err(),
        "the server must be gone after drop"
    );
}

/// Redis caps the feed at about `feed_maxlen` entries (whole stream nodes
/// of 100 go at a time); the games' streams are kept in full.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn follower_from_a_cursor_older_than_the_trimmed_feed_says_so_and_reads_the_rest() {
    let server = server();
    let prefix = server.scoped_prefix("event-log-retention");
    let cfg = RedisLogConfig {
        feed_maxlen: 10,
        feed_block: Duration::from_millis(500),
        ..RedisLogConfig::with_prefix(prefix.as_str())
    };
    let log: Arc<dyn EventLog> = Arc::new(connect(&server, cfg).await);
    mafia_event_log::conformance::follower_from_a_cursor_older_than_the_retention_says_so_and_reads_the_rest(log, true).await;
}

/// A private server (never `REDIS_URL`), killed with SIGKILL and started
/// again on the same port with its append-only file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn follower_resumes_by_itself_after_redis_is_killed_and_restarted() {
    let server = RedisServer::spawn_persistent()
        .unwrap_or_else(|e| panic!("this test needs redis-server: {e}"));
    let cfg = RedisLogConfig {
        feed_block: Duration::from_millis(500),
        ..RedisLogConfig::with_prefix(mafia_event_log::testing::unique_prefix("event-log-restart"))
    };
    let log: Arc<dyn EventLog> = Arc::new(connect(&server, cfg).await);
    let server = std::sync::Mutex::new(server);
    mafia_event_log::conformance::follower_resumes_by_itself_after_the_store_restarts(
        log,
        || async {
            server
                .lock()
                .unwrap()
                .restart()
                .expect("redis-server restarts");
        },
    )
    .await;
}

/// Appends on a single server go over the log's own connection (not the
/// client library's): it must do what the library did for them. Here it
/// authenticates and selects the URL's database, loads the append script
/// again after `SCRIPT FLUSH`, and reconnects after the server dropped it,
/// each append answered once, in order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn appends_authenticate_select_the_database_reload_the_script_and_reconnect() {
    // A private server: the test sets a password on it.
    let server =
        RedisServer::spawn().unwrap_or_else(|e| panic!("this test needs redis-server: {e}"));
    let addr = server
        .url()
        .trim_start_matches("redis://")
        .trim_end_matches('/')
        .to_owned();
    let mut admin = redis::Client::open(server.url())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let _: () = redis::cmd("CONFIG")
        .arg("SET")
        .arg("requirepass")
        .arg("s3cret")
        .query_async(&mut admin)
        .await
        .unwrap();
    let _: () = redis::cmd("AUTH")
        .arg("s3cret")
        .query_async(&mut admin)
        .await
        .unwrap();
    let url = format!("redis://:s3cret@{addr}/3");
    let log = RedisLog::connect_with(&url, RedisLogConfig::with_prefix("wire"))
        .await
        .unwrap();
    log.create_game("g", b"setup").await.unwrap();
    log.append("g", 0, 0, &batch("a", 2)).await.unwrap();
    let in_db = |db: i64| {
        let mut admin = admin.clone();
        async move {
            let _: () = redis::cmd("SELECT")
                .arg(db)
                .query_async(&mut admin)
                .await
                .unwrap();
            let n: u64 = redis::cmd("DBSIZE").query_async(&mut admin).await.unwrap();
            n
        }
    };
    assert!(in_db(3).await > 0, "the log writes to the URL's database");
    assert_eq!(in_db(0).await, 0, "and nothing to database 0");

    let _: () = redis::cmd("SCRIPT")
        .arg("FLUSH")
        .query_async(&mut admin)
        .await
        .unwrap();
    let a = log.append("g", 2, 0, &batch("b", 1)).await.unwrap();
    assert_eq!(
        (a.first_seq, a.last_seq),
        (3, 3),
        "appended after SCRIPT FLUSH"
    );

    // Every connection but the admin's dropped by the server.
    let _: () = redis::cmd("CLIENT")
        .arg("KILL")
        .arg("TYPE")
        .arg("normal")
        .arg("SKIPME")
        .arg("yes")
        .query_async(&mut admin)
        .await
        .unwrap();
    let mut last = 3;
    for attempt in 0.. {
        assert!(attempt < 20, "no append went through after the disconnect");
        match log.append("g", last, 0, &batch("c", 1)).await {
            Ok(a) => {
                assert_eq!(a.last_seq, last + 1);
                break;
            }
            // The outcome of an append cut off is unknown: look.
            Err(LogError::Redis(_)) => {
                last = loop {
                    if let Ok(n) = log.last_seq("g").await {
                        break n;
                    }
                    tokio::time::sleep(Duration::from_millis(50)).await;
                };
                if last == 4 {
                    break;
                }
            }
            Err(e) => panic!("{e}"),
        }
    }
    let stored: Vec<Bytes> = log
        .read("g", 1, 10)
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.payload)
        .collect();
    let mut expected = batch("a", 2);
    expected.extend(batch("b", 1));
    expected.extend(batch("c", 1));
    assert_eq!(stored, expected);
}

/// A server that stops answering (SIGSTOP) fails the append in flight
/// after the response timeout, its outcome unknown, instead of leaving it
/// waiting; once the server runs again the next append goes through on a
/// new connection, after the one that timed out if that one landed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_append_the_server_does_not_answer_times_out_and_the_next_one_reconnects() {
    let server =
        RedisServer::spawn().unwrap_or_else(|e| panic!("this test needs redis-server: {e}"));
    let cfg = RedisLogConfig {
        response_timeout: Some(Duration::from_millis(500)),
        ..RedisLogConfig::with_prefix("wire-timeout")
    };
    let log = connect(&server, cfg).await;
    log.create_game("g", b"setup").await.unwrap();
    log.append("g", 0, 0, &batch("a", 1)).await.unwrap();

    server.pause();
    let stalled = tokio::time::timeout(
        Duration::from_secs(30),
        log.append("g", 1, 0, &batch("b", 1)),
    )
    .await;
    server.resume();
    match stalled {
        Ok(Err(LogError::Redis(_))) => {}
        other => panic!("expected a timed-out append, got {other:?}"),
    }
    // Whether it landed is unknown: the server may have read it before it
    // stopped. The log says.
    let last = log.last_seq("g").await.unwrap();
    assert!(last == 1 || last == 2, "last seq {last}");
    let a = log.append("g", last, 0, &batch("c", 1)).await.unwrap();
    assert_eq!(a.last_seq, last + 1);
}
