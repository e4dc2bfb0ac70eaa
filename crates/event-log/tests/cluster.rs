//! The event log on a real Redis Cluster: `REDIS_CLUSTER_URLS` if set, else
//! a private one on loopback (3 primaries, a replica each). The whole
//! conformance suite runs in one test, on one cluster; the failover test
//! starts a cluster of its own and kills a primary.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures::StreamExt;
use mafia_event_log::testing::{unique_prefix, RedisCluster};
use mafia_event_log::{
    follow_games, EventLog, FollowConfig, FollowStream, Followed, LogError, RedisLog,
    RedisLogConfig,
};

fn cluster() -> RedisCluster {
    RedisCluster::from_env_or_spawn()
        .unwrap_or_else(|e| panic!("these tests need redis-server and redis-cli: {e}"))
}

fn config(tag: &str) -> RedisLogConfig {
    RedisLogConfig {
        // Short blocks keep dropped feeds from holding server connections long.
        feed_block: Duration::from_millis(500),
        ..RedisLogConfig::with_prefix(unique_prefix(tag))
    }
}

async fn fresh_log(cluster: &RedisCluster) -> (Arc<dyn EventLog>, ()) {
    let log = RedisLog::connect_with(cluster.url(), config("cluster-conformance"))
        .await
        .unwrap();
    (Arc::new(log), ())
}

mafia_event_log::event_log_conformance_tests!(
    sequential conformance_suite_passes_on_a_redis_cluster,
    cluster = cluster(),
    fresh_log(&cluster)
);

/// A cluster of this test's own (3 primaries, a replica each: the test
/// kills or stops nodes) and a log on it whose appends wait `replica_wait`
/// for a replica.
async fn own_cluster(tag: &str, replica_wait: Duration) -> (RedisCluster, Arc<RedisLog>) {
    let cluster = RedisCluster::spawn(3, 1).unwrap_or_else(|e| panic!("{e}"));
    let cfg = RedisLogConfig {
        cluster_replica_wait: Some(replica_wait),
        ..config(tag)
    };
    let log = Arc::new(RedisLog::connect_with(cluster.url(), cfg).await.unwrap());
    (cluster, log)
}

/// The next item of a follower that is not a store error (it resumes by
/// itself).
async fn next_followed(s: &mut FollowStream) -> Followed {
    // Errors are retried by the follower; one that only fails must still
    // end the test.
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut last_error = None;
    loop {
        assert!(
            Instant::now() < deadline,
            "the follower yielded only errors for 60 s, the last: {last_error:?}"
        );
        match tokio::time::timeout(Duration::from_secs(30), s.next()).await {
            Ok(Some(Ok(item))) => return item,
            Ok(Some(Err(e))) => last_error = Some(e.to_string()),
            Ok(None) => panic!("follower ended"),
            Err(_) => panic!("follower stalled"),
        }
    }
}

fn payload(game: &str, i: u64) -> Bytes {
    Bytes::from(format!("{game}/{i}"))
}

/// What one writer knows: the events the log acknowledged.
type Acked = HashMap<u64, Bytes>;

/// Appends events `1..=n` to `game`, one per call, through whatever the
/// store does: an append that fails is checked against the log (its
/// outcome is unknown, as the trait says) and sent again if it did not
/// land. Returns what was acknowledged.
async fn write_through_failures(
    log: Arc<RedisLog>,
    game: String,
    n: u64,
    progress: Arc<std::sync::atomic::AtomicU64>,
) -> (Acked, u64) {
    let mut acked = Acked::new();
    let mut failures = 0;
    let mut last = 0;
    while last < n {
        let p = payload(&game, last + 1);
        match log.append(&game, last, 0, std::slice::from_ref(&p)).await {
            Ok(a) => {
                assert_eq!(a.last_seq, last + 1);
                acked.insert(last + 1, p);
                last += 1;
                progress.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            Err(e @ (LogError::Fenced { .. } | LogError::UnknownGame(_))) => panic!("{game}: {e}"),
            // The log holds fewer events than were acknowledged: retrying
            // could never succeed, and the test would hang instead of
            // naming the loss.
            Err(LogError::Conflict { actual_last_seq }) if actual_last_seq < last => panic!(
                "{game}: {last} events acknowledged, the log holds {actual_last_seq}: acked \
                 events lost"
            ),
            Err(_) => {
                failures += 1;
                // Whether it landed (Conflict says the seq moved on): read
                // it back, once the store answers.
                loop {
                    match log.read(&game, last + 1, 1).await {
                        Ok(got) => {
                            if let Some(e) = got.first() {
                                assert_eq!(
                                    e.payload,
                                    p,
                                    "{game}: seq {} holds another event",
                                    last + 1
                                );
                                last += 1;
                            }
                            break;
                        }
                        Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
                    }
                }
            }
        }
    }
    (acked, failures)
}

/// kill -9 of a primary while appends run: its replica is promoted, the
/// appends go on, and every acknowledged event is in the log afterwards
/// (each append waited for a replica, `WAIT 1`, before its ack), and a
/// follower of every game gets each event once, in order, through it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_acked_event_is_lost_and_followers_go_on_when_a_primary_is_killed_mid_game() {
    let (mut cluster, log) = own_cluster("cluster-failover", Duration::from_millis(200)).await;
    // Spread over every shard, so every primary holds some of them.
    let games: Vec<String> = (0..24).map(|i| format!("cup.final.r1.t{i}.g1")).collect();
    for g in &games {
        log.create_game(g, b"setup").await.unwrap();
    }
    // A follower of every game reads through the failover.
    let mut follower = follow_games(
        log.clone(),
        FollowConfig {
            retry_after: Duration::from_millis(100),
            ..FollowConfig::default()
        },
    );
    assert_eq!(next_followed(&mut follower).await, Followed::CaughtUp);
    const EVENTS: u64 = 60;
    let progress = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let writers: Vec<_> = games
        .iter()
        .map(|g| {
            tokio::spawn(write_through_failures(
                log.clone(),
                g.clone(),
                EVENTS,
                progress.clone(),
            ))
        })
        .collect();
    // Mid-game: a third of the events are in.
    let deadline = Instant::now() + Duration::from_secs(60);
    while progress.load(std::sync::atomic::Ordering::Relaxed) < games.len() as u64 * EVENTS / 3 {
        assert!(Instant::now() < deadline, "the writers made no progress");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let before = cluster.primaries();
    let victim = before[0];
    cluster.kill(victim);
    let acked_at_kill = progress.load(std::sync::atomic::Ordering::Relaxed);
    let waited = Instant::now();
    tokio::task::block_in_place(|| {
        cluster.wait_for_failover(victim, before.len()).unwrap();
    });
    let promoted_in = waited.elapsed();
    let mut failures = 0;
    let mut acked_total = 0;
    for (g, w) in games.iter().zip(writers) {
        let (acked, f) = w.await.unwrap();
        failures += f;
        acked_total += acked.len();
        let stored = log.read(g, 1, 1_000).await.unwrap();
        let seqs: Vec<u64> = stored.iter().map(|e| e.seq).collect();
        assert_eq!(
            seqs,
            (1..=EVENTS).collect::<Vec<_>>(),
            "{g}: every event once"
        );
        for e in &stored {
            assert_eq!(e.payload, payload(g, e.seq), "{g}: seq {}", e.seq);
        }
        for (seq, p) in &acked {
            assert_eq!(
                &stored[*seq as usize - 1].payload,
                p,
                "{g}: acked seq {seq} lost"
            );
        }
    }
    let written_in = waited.elapsed();
    let mut followed: HashMap<String, Vec<u64>> = HashMap::new();
    // A follower that keeps yielding something other than the events (a
    // trim notice, over and over) must fail the test, not hang it.
    let deadline = Instant::now() + Duration::from_secs(120);
    let (mut others, mut last_other) = (0usize, None);
    while followed.values().map(Vec::len).sum::<usize>() < games.len() * EVENTS as usize {
        assert!(
            Instant::now() < deadline,
            "the follower delivered {} of {} events in 120 s after the writes; it yielded \
             {others} other items, the last: {last_other:?}",
            followed.values().map(Vec::len).sum::<usize>(),
            games.len() * EVENTS as usize,
        );
        match next_followed(&mut follower).await {
            Followed::Event(e) => {
                assert_eq!(e.payload, payload(&e.game, e.seq));
                followed.entry(e.game).or_default().push(e.seq);
            }
            other => {
                others += 1;
                last_other = Some(other);
            }
        }
    }
    for g in &games {
        assert_eq!(
            followed.get(g),
            Some(&(1..=EVENTS).collect::<Vec<_>>()),
            "{g}: the follower saw every event once, in order"
        );
    }
    eprintln!(
        "failover: killed primary :{victim} after {acked_at_kill} acks; cluster ok again after \
         {promoted_in:?}, every game written {written_in:?} after the kill; {acked_total} acked events, 0 lost; {failures} appends failed and were \
         checked against the log"
    );
}

/// A replica that is connected but behind (here: stopped) holds an append's
/// ack back until it has the append: acking after one `WAIT` timed out
/// left the event on its primary only, and a kill of that primary then
/// lost an acknowledged event. A primary with no replica at all still
/// acknowledges (durable on itself only), so the log stays writable after
/// a failover.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_append_is_acked_only_once_a_connected_replica_has_it() {
    let (mut cluster, log) =
        own_cluster("cluster-replica-behind", Duration::from_millis(100)).await;
    log.create_game("g", b"setup").await.unwrap();
    log.append("g", 0, 0, &[payload("g", 1)]).await.unwrap();

    let replicas = cluster.replicas();
    assert_eq!(replicas.len(), 3, "a replica per primary");
    for &r in &replicas {
        cluster.pause(r);
    }
    let append = tokio::spawn({
        let log = log.clone();
        async move { log.append("g", 1, 0, &[payload("g", 2)]).await }
    });
    // Ten of the append's WAITs time out while the replicas are stopped.
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert!(
        !append.is_finished(),
        "acknowledged while no replica could have it: {:?}",
        append.await
    );
    for &r in &replicas {
        cluster.resume(r);
    }
    let acked = tokio::time::timeout(Duration::from_secs(30), append)
        .await
        .expect("acknowledged once the replica caught up")
        .unwrap()
        .unwrap();
    assert_eq!(acked.last_seq, 2);

    // With no replica left, a primary acknowledges on its own.
    for &r in &replicas {
        cluster.kill(r);
    }
    let acked = tokio::time::timeout(
        Duration::from_secs(60),
        log.append("g", 2, 0, &[payload("g", 3)]),
    )
    .await
    .expect("a primary without replicas still takes appends")
    .unwrap();
    assert_eq!(acked.last_seq, 3);
    let seqs: Vec<u64> = log
        .read("g", 1, 10)
        .await
        .unwrap()
        .iter()
        .map(|e| e.seq)
        .collect();
    assert_eq!(seqs, [1, 2, 3]);
}
